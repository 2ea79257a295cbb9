/* SPDX-License-Identifier: MIT */
/*
 * Replays a libFuzzer corpus through a fuzz target as an ordinary test:
 * each argument is a file or a directory of files fed to
 * LLVMFuzzerTestOneInput() once. Built with ASan+UBSan in `make check`.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	size_t off = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "replay: cannot open '%s': %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		close(fd);
		return -1;
	}
	while (off < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + off, (size_t)st.st_size - off);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	LLVMFuzzerTestOneInput(buf, off);
	free(buf);
	return 0;
}

static int replay(const char *path, unsigned *count)
{
	struct stat st;
	DIR *dir;
	struct dirent *de;
	int ret = 0;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "replay: cannot stat '%s': %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return replay_file(path);
	}
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		char sub[4096];

		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (replay(sub, count) < 0)
			ret = -1;
	}
	closedir(dir);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int ret = 0;

	for (int i = 1; i < argc; i++)
		if (replay(argv[i], &count) < 0)
			ret = 1;
	printf("replayed %u inputs\n", count);
	return ret;
}
