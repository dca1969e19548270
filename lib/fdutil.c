#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/fs.h>

#include "cleanup.h"
#include "compat/syscall.h"
#include "fdutil.h"
#include "xalloc.h"

static int
int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int
close_range_fallback(unsigned int lo, unsigned int hi)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (d == NULL)
		return -errno;
	while ((e = readdir(d)) != NULL) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (*end != '\0' || e->d_name[0] == '\0' || fd == dirfd(d))
			continue;
		if (fd >= lo && fd <= hi)
			close((int)fd);
	}
	closedir(d);
	return 0;
}

static int
close_between(unsigned int lo, unsigned int hi)
{
	if (lo > hi)
		return 0;
	if (sys_close_range(lo, hi, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return -errno;
	return close_range_fallback(lo, hi);
}

int
fd_close_inherited(const int *keep, size_t n)
{
	int *sorted = xcalloc(n + 1, sizeof(int));
	unsigned int next = 3;
	int r = 0;

	/* keep is NULL when nothing is kept: memcpy from NULL is undefined
	 * even for 0 bytes (UBSan). */
	if (n > 0)
		memcpy(sorted, keep, n * sizeof(int));
	qsort(sorted, n, sizeof(int), int_cmp);
	for (size_t i = 0; i < n; i++) {
		int flags;

		if (sorted[i] < 3)
			continue;
		if ((flags = fcntl(sorted[i], F_GETFD)) < 0) {
			r = -EBADF;
			goto out;
		}
		if (fcntl(sorted[i], F_SETFD, flags & ~FD_CLOEXEC) < 0) {
			r = -errno;
			goto out;
		}
		if ((r = close_between(next, (unsigned int)sorted[i] - 1)) < 0)
			goto out;
		next = (unsigned int)sorted[i] + 1;
	}
	r = close_between(next, ~0U);
out:
	free(sorted);
	return r;
}

int
fd_read_all(int fd, size_t max, char **out, size_t *len)
{
	size_t size = 4096, n = 0;
	char *buf = xmalloc(size + 1);

	for (;;) {
		ssize_t r;

		if (n == size) {
			if (size >= max) {
				free(buf);
				return -EFBIG;
			}
			size *= 2;
			buf = xreallocarray(buf, size + 1, 1);
		}
		r = read(fd, buf + n, size - n);
		if (r < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			free(buf);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			free(buf);
			return -EFBIG;
		}
	}
	buf[n] = '\0';
	*out = buf;
	if (len != NULL)
		*len = n;
	return 0;
}

char *
file_read_line(const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *s = NULL;
	int r;

	if (fd < 0)
		return NULL;
	r = fd_read_all(fd, max, &s, NULL);
	close(fd);
	if (r < 0)
		return NULL;
	s[strcspn(s, "\n")] = '\0';
	return s;
}

int
dir_make_path(const char *path, mode_t mode)
{
	_cleanup_free_ char *copy = xstrdup(path);

	for (char *s = copy + 1;; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(copy, mode) < 0 && errno != EEXIST)
			return -errno;
		*s = c;
		if (c == '\0')
			return 0;
	}
}

int
proc_stat_at(int dirfd, struct proc_stat *st)
{
	char buf[512];
	int fd = openat(dirfd, "stat", O_RDONLY | O_CLOEXEC);
	const char *s;
	long parent;
	int tty;
	char state;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "PID (COMM) STATE PPID PGRP SESSION TTY_NR ...": COMM, which may
	 * hold ')' and spaces, ends at the last ')'. */
	if ((s = strrchr(buf, ')')) == NULL ||
	    sscanf(s + 1, " %c %ld %*d %*d %d", &state, &parent, &tty) != 3)
		return -1;
	*st = (struct proc_stat){ .state = state,
				  .ppid = (pid_t)parent,
				  .tty = tty };
	return 0;
}

pid_t
proc_parent_at(int dirfd)
{
	struct proc_stat st;

	return proc_stat_at(dirfd, &st) < 0 ? -1 : st.ppid;
}

/* fd (opened O_NONBLOCK, never to wait on a FIFO) when it is a regular
 * file, its status flags then set to fl; else closed, and -errno
 * (EISDIR, EINVAL for anything else). */
static int
regular_or_close(int fd, int fl)
{
	struct stat st;
	int e;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		e = errno;
	else if (S_ISDIR(st.st_mode))
		e = EISDIR;
	else if (!S_ISREG(st.st_mode))
		e = EINVAL;
	else if (fcntl(fd, F_SETFL, fl) < 0)
		e = errno;
	else
		return fd;
	close(fd);
	return -e;
}

int
fd_open_regular(int dirfd, const char *path, int flags)
{
	return regular_or_close(
		openat(dirfd, path,
		       O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | flags),
		0);
}

int
fd_append_regular(int dirfd, const char *path, mode_t mode)
{
	return regular_or_close(openat(dirfd, path,
				       O_WRONLY | O_APPEND | O_CREAT |
					       O_CLOEXEC | O_NOCTTY |
					       O_NOFOLLOW | O_NONBLOCK,
				       mode),
				O_APPEND);
}

int
fd_move_aside(int dirfd, const char *name, time_t when, char **to)
{
	int e = EEXIST;

	*to = NULL;
	for (int i = 0; i < 8 && e == EEXIST; i++) {
		uint32_t rnd = 0;

		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			return errno != 0 ? -errno : -EIO;
		*to = xasprintf("%s.llwrap-blocked-%lld-%08x", name,
				(long long)when, (unsigned)rnd);
		if (syscall(SYS_renameat2, dirfd, name, dirfd, *to,
			    RENAME_NOREPLACE) == 0)
			return 0;
		e = errno;
		free(*to);
		*to = NULL;
	}
	return -e;
}

struct fd_holder {
	int fds[FD_HOLD_MAX];
	size_t n;
	int owner; /* a pidfd of the process that started it */
	int more;  /* its end of the socket for later ones, or -1 */
	char stack[16384] __attribute__((aligned(16)));
};

/* What the socket at fd gives, after ppoll said so (revents): a
 * descriptor kept (close-on-exec) while fewer than FD_HOLD_MORE are,
 * else closed; false once it has nothing more to give (every sender
 * gone).  Only calls that cannot fail here: errno is the owner's. */
static bool
fd_holder_take(int fd, short revents, size_t *kept)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = c.buf,
			    .msg_controllen = sizeof(c.buf) };
	struct cmsghdr *h;
	int in;

	if (!(revents & POLLIN) ||
	    syscall(SYS_recvmsg, fd, &m, MSG_CMSG_CLOEXEC) <= 0)
		return false;
	h = CMSG_FIRSTHDR(&m);
	if (h == NULL || h->cmsg_level != SOL_SOCKET ||
	    h->cmsg_type != SCM_RIGHTS || h->cmsg_len != CMSG_LEN(sizeof(int)))
		return true;
	memcpy(&in, CMSG_DATA(h), sizeof(in));
	if (*kept >= FD_HOLD_MORE)
		syscall(SYS_close, in);
	else
		(*kept)++;
	return true;
}

/* The holder: its descriptors as 0..n-1 and nothing else, until the
 * owner has exited; those sent on its socket meanwhile too. */
static int
fd_holder_main(void *arg)
{
	const struct fd_holder *h = arg;
	struct pollfd p[2] = { { .fd = (int)h->n, .events = POLLIN },
			       { .fd = -1, .events = POLLIN } };
	uint64_t all = ~0ULL;
	size_t kept = 0;

	/* No signal interrupts it: errno is the owner's too (CLONE_VM). */
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, sizeof(all));
	/* Named for ps, and not taken for llwrap's own processes. */
	syscall(SYS_prctl, PR_SET_NAME, "llwrap-hold", 0, 0, 0);
	for (size_t i = 0; i < h->n; i++)
		syscall(SYS_dup3, h->fds[i], (int)i, 0);
	syscall(SYS_dup3, h->owner, (int)h->n, 0);
	if (h->more >= 0) {
		syscall(SYS_dup3, h->more, (int)h->n + 1, O_CLOEXEC);
		p[1].fd = (int)h->n + 1;
	}
	syscall(SYS_close_range, (unsigned)h->n + (h->more >= 0 ? 2 : 1), ~0U,
		0);
	while (syscall(SYS_ppoll, p, 2, NULL, NULL, 0) >= 0 &&
	       p[0].revents == 0)
		if (p[1].revents != 0 &&
		    !fd_holder_take(p[1].fd, p[1].revents, &kept)) {
			syscall(SYS_close, p[1].fd);
			p[1].fd = -1;
		}
	syscall(SYS_exit, 0);
	return 0;
}

/* fd moved above FD_HOLD_MAX + 1 (close-on-exec), or -1. */
static int
fd_above(int fd)
{
	int up;

	if (fd < 0 || fd > FD_HOLD_MAX + 1)
		return fd;
	up = fcntl(fd, F_DUPFD_CLOEXEC, FD_HOLD_MAX + 2);
	close(fd);
	return up;
}

pid_t
fd_hold(const int *fds, size_t n, int *more)
{
	/* Static: the helper reads them after this frame is gone. */
	static struct fd_holder h;
	static bool started;
	int sp[2] = { -1, -1 };
	pid_t pid;

	if (more != NULL)
		*more = -1;
	if (started || (n == 0 && more == NULL) || n > FD_HOLD_MAX)
		return -1;
	h.n = n;
	if (n > 0)
		memcpy(h.fds, fds, n * sizeof(*fds));
	/* Above the numbers the helper moves its descriptors to. */
	if ((h.owner = fd_above(sys_pidfd_open(getpid(), 0))) < 0)
		return -1;
	h.more = -1;
	if (more != NULL &&
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) == 0 &&
	    (h.more = fd_above(sp[0])) < 0) {
		close(sp[1]);
		sp[1] = -1;
	}
	pid = clone(fd_holder_main, h.stack + sizeof(h.stack),
		    CLONE_VM | SIGCHLD, &h);
	/* The helper has its own copy of the descriptor table. */
	close(h.owner);
	if (h.more >= 0)
		close(h.more);
	if (pid < 0) {
		if (sp[1] >= 0)
			close(sp[1]);
		return -1;
	}
	if (more != NULL)
		*more = sp[1];
	started = true;
	return pid;
}

void
fd_hold_send(int more, int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	char byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = c.buf,
			    .msg_controllen = sizeof(c.buf) };
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);

	if (more < 0 || fd < 0)
		return;
	memset(c.buf, 0, sizeof(c.buf));
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof(fd));
	/* Never waits: a holder that cannot take it leaves the release
	 * to the sender, as without a holder. */
	(void)sendmsg(more, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* The soft RLIMIT_NOFILE fd_limit_raise() found; raised: one was. */
static struct rlimit fd_limit_was;
static bool fd_limit_raised;

void
fd_limit_raise(void)
{
	struct rlimit rl;

	if (fd_limit_raised || getrlimit(RLIMIT_NOFILE, &rl) < 0 ||
	    rl.rlim_cur >= rl.rlim_max)
		return;
	fd_limit_was = rl;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
		fd_limit_raised = true;
}

int
fd_limit_restore(void)
{
	struct rlimit rl;

	if (!fd_limit_raised)
		return 0;
	/* The hard limit as it is now (a lowered one stays lowered). */
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	rl.rlim_cur = fd_limit_was.rlim_cur < rl.rlim_max
			      ? fd_limit_was.rlim_cur
			      : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	fd_limit_raised = false;
	return 0;
}
