/*
 * The watch judge: a process under the sandbox's Landlock ruleset that
 * opens, for the supervisor, the paths the sandbox asks to watch
 * (watchjudge.h).
 *
 * One request at a time over a channel (channel.h): the supervisor sends
 * the mask and the path with the caller's root, the judge answers with
 * an errno and, on success, the open file.  The judge holds
 * the root only while it answers.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "channel.h"
#include "cleanup.h"
#include "compat/syscall.h"
#include "fdutil.h"
#include "helper.h"
#include "watchjudge.h"
#include "xalloc.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

struct watchjudge {
	int ruleset; /* -1: no Landlock, the view alone decides */
	int sock;    /* the supervisor's end, -1 before the first request */
	pid_t pid;
};

/* How long the supervisor waits for an answer (an open on a hung network
 * file system, a judge stopped by a signal) before it refuses the watch
 * and starts another judge. */
#define JUDGE_TIMEOUT_S 5

struct request {
	uint32_t mask;
	char path[PATH_MAX];
};

struct reply {
	int32_t err; /* 0, or a positive errno */
};

/* The frames of the judge's channel (channel.h). */
enum { JUDGE_OPEN = 1, JUDGE_REPLY = 2 };

void
watchjudge_how(uint32_t mask, struct open_how *how)
{
	memset(how, 0, sizeof(*how));
	how->flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	if (mask & IN_ONLYDIR)
		how->flags |= O_DIRECTORY;
	if (mask & IN_DONT_FOLLOW)
		how->flags |= O_NOFOLLOW;
	how->resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
}

static int
openat2_in(int dirfd, const char *path, const struct open_how *how)
{
	int fd = (int)syscall(SYS_openat2, dirfd, path, how, sizeof(*how));

	return fd < 0 ? -errno : fd;
}

/*
 * A watch on the symlink itself (IN_DONT_FOLLOW): the sandbox may watch
 * it where it may list the directory that holds it.  That directory is
 * opened for reading (Landlock decides), the symlink beneath it as
 * O_PATH, so nothing is walked twice.
 */
static int
judge_symlink(int root, const char *path)
{
	struct open_how how;
	_cleanup_free_ char *dir = xstrdup(path);
	_cleanup_close_ int dfd = -1;
	char *slash = strrchr(dir, '/');
	const char *base;
	struct stat st;
	int fd;

	if (slash == NULL)
		return -ELOOP;
	base = path + (slash - dir) + 1;
	if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return -ELOOP;
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	watchjudge_how(IN_ONLYDIR, &how);
	if ((dfd = openat2_in(root, dir, &how)) < 0)
		return dfd;
	fd = openat(dfd, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISLNK(st.st_mode)) {
		close(fd);
		return -ELOOP;
	}
	return fd;
}

static int
judge_open(int root, const struct request *rq)
{
	struct open_how how;
	int fd;

	watchjudge_how(rq->mask, &how);
	fd = openat2_in(root, rq->path, &how);
	if (fd == -ELOOP && (rq->mask & IN_DONT_FOLLOW) &&
	    !(rq->mask & IN_ONLYDIR))
		fd = judge_symlink(root, rq->path);
	return fd;
}

/* The judge's loop, until the supervisor closes its end. */
static void __attribute__((noreturn)) judge_serve(int sock)
{
	for (;;) {
		struct channel_msg m;
		struct request rq;
		struct reply rp = { 0 };
		_cleanup_close_ int root = -1, fd = -1;
		int r = channel_recv(sock, &m, 1, 0);

		if (r == 0 || (r < 0 && r != -EMSGSIZE && r != -EBADMSG))
			_exit(0);
		if (r == 1 && m.n_fds == 1)
			root = m.fds[0];
		if (r < 0 || m.type != JUDGE_OPEN || root < 0 ||
		    m.len < sizeof(rq.mask) + 1 || m.len > sizeof(rq) ||
		    m.payload[m.len - 1] != '\0') {
			rp.err = EINVAL;
		} else {
			memcpy(&rq, m.payload, m.len);
			if ((fd = judge_open(root, &rq)) < 0)
				rp.err = -fd;
		}
		if (channel_send(sock, JUDGE_REPLY, &rp, sizeof(rp), &fd,
				 fd >= 0, 0) < 0)
			_exit(0);
	}
}

/*
 * The judge, just forked: it ends with the supervisor (killed, or at the
 * end of its socket), cannot be ptraced or read through /proc by the
 * sandbox (not dumpable; its Landlock domain is the sandbox's sibling,
 * not its descendant, and with ABI 6 out of its signal scope), keeps
 * only its socket, and restricts itself before its first answer.  It has
 * no capability: the supervisor dropped them before the command ran.
 * Under a pid namespace it is in the sandbox's (the supervisor's
 * children are), visible there; a judge stopped there is given up on
 * (JUDGE_TIMEOUT_S).
 */
static void __attribute__((noreturn)) judge_main(int sock, int ruleset)
{
	/* No network, no unix socket of its own, no other process. */
	if (helper_confine(&(struct helper_confinement){ .use_ruleset_fd = true,
							 .ruleset_fd = ruleset,
							 .no_inet = true },
			   &(char *){ NULL }) < 0)
		_exit(1);
	if (ruleset >= 0)
		close(ruleset);
	judge_serve(sock);
}

struct watchjudge *
watchjudge_new(int ruleset)
{
	struct watchjudge *j = xcalloc(1, sizeof(*j));

	j->ruleset = ruleset;
	j->sock = -1;
	j->pid = -1;
	return j;
}

static void
judge_stop(struct watchjudge *j)
{
	if (j->sock >= 0)
		close(j->sock);
	j->sock = -1;
	if (j->pid > 0) {
		kill(j->pid, SIGKILL);
		while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	j->pid = -1;
}

static int
judge_start(struct watchjudge *j)
{
	struct timeval tv = { .tv_sec = JUDGE_TIMEOUT_S };
	int sv[2], r;
	pid_t pid;

	if ((r = channel_pair(sv, false)) < 0)
		return r;
	/* The supervisor waits for no process of the sandbox's reach for
	 * long: one that stops the judge stops nothing else. */
	if (setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		int e = errno;

		close(sv[0]);
		close(sv[1]);
		return -e;
	}
	pid = helper_start(
		&(struct helper){ .name = "llwrap-judge",
				  .keep = (const int[]){ sv[1], j->ruleset },
				  .n_keep = 2,
				  .close_stdio = true,
				  .not_dumpable = true });
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return (int)pid;
	}
	if (pid == 0)
		judge_main(sv[1], j->ruleset);
	close(sv[1]);
	j->sock = sv[0];
	j->pid = pid;
	return 0;
}

int
watchjudge_open(struct watchjudge *j, int root, const char *path, uint32_t mask,
		int *fd)
{
	struct channel_msg m;
	struct request rq;
	struct reply rp;
	size_t len = strlen(path);
	int r;

	*fd = -1;
	if (len >= sizeof(rq.path))
		return -ENAMETOOLONG;
	rq.mask = mask;
	memcpy(rq.path, path, len + 1);
	if (j->sock < 0 && (r = judge_start(j)) < 0)
		return r;
	m.n_fds = 0;
	if (channel_send(j->sock, JUDGE_OPEN, &rq, sizeof(rq.mask) + len + 1,
			 &root, 1, 0) < 0 ||
	    channel_recv(j->sock, &m, 1, 0) != 1 ||
	    channel_expect(&m, JUDGE_REPLY, sizeof(rp)) == NULL) {
		/* Gone (killed, or it could not restrict itself), silent
		 * past the timeout, or speaking nonsense: the next request
		 * starts another. */
		channel_msg_close(&m);
		judge_stop(j);
		return -EIO;
	}
	memcpy(&rp, m.payload, sizeof(rp));
	if (rp.err != 0 || m.n_fds != 1) {
		channel_msg_close(&m);
		return rp.err > 0 ? -rp.err : -EIO;
	}
	*fd = m.fds[0];
	return 0;
}

void
watchjudge_reap(struct watchjudge *j)
{
	if (j == NULL || j->pid <= 0 || waitpid(j->pid, NULL, WNOHANG) <= 0)
		return;
	j->pid = -1;
	close(j->sock);
	j->sock = -1;
}

void
watchjudge_free(struct watchjudge *j)
{
	if (j == NULL)
		return;
	judge_stop(j);
	if (j->ruleset >= 0)
		close(j->ruleset);
	free(j);
}
