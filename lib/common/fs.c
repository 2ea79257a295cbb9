/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs.h"

int fs_mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

bool fs_component_ok(const char *name)
{
	return name[0] && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && !strchr(name, '/') &&
	       strlen(name) <= NAME_MAX;
}

int fs_open_dir_beneath(int dirfd, const char *rel, mode_t mode, bool create)
{
	char buf[PATH_MAX];
	size_t len = strlen(rel);
	char *comp, *next;
	int fd;

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, rel, len + 1);
	fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	for (comp = buf; comp; comp = next) {
		int sub;

		next = strchr(comp, '/');
		if (next)
			*next++ = '\0';
		if (!fs_component_ok(comp)) {
			close(fd);
			return -EINVAL;
		}
		if (create && mkdirat(fd, comp, mode) < 0 && errno != EEXIST) {
			int err = -errno;

			close(fd);
			return err;
		}
		/* A link in its place: ELOOP (O_NOFOLLOW), or ENOTDIR for a file. */
		sub = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (sub < 0)
			return -errno;
		fd = sub;
	}
	return fd;
}

int fs_create_file(int dirfd, const char *name, mode_t mode)
{
	int fd;

	if (!fs_component_ok(name))
		return -EINVAL;
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	return fd < 0 ? -errno : fd;
}
