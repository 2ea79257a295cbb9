/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/daemon.h"
#include "common/log.h"
#include "common/common.h"

int strata_daemonize(bool keep_stdio, int timeout_ms)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0) {
		log_error("Failed to create a pipe: %s", strerror(errno));
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		log_error("Failed to fork: %s", strerror(errno));
		exit(1);
	}
	if (pid > 0) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };
		char c = 0;
		int status;

		close(p[1]);
		waitpid(pid, &status, 0); /* the intermediate child exits at once */
		if (poll(&pfd, 1, timeout_ms) == 1 && read(p[0], &c, 1) == 1 && c == 'R')
			exit(0);
		exit(1);
	}
	close(p[0]);
	if (setsid() < 0)
		_exit(1);
	pid = fork();
	if (pid < 0)
		_exit(1);
	if (pid > 0)
		_exit(0);
	if (chdir("/") < 0)
		_exit(1);
	if (!keep_stdio) {
		int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
	}
	return p[1];
}
