/*
 * The network supervisor's filesystem side (supervise-int.h): --learn's
 * observation of open, exec and mkdir (let continue: Landlock decides),
 * and inotify_add_watch, which Landlock does not check, judged by the
 * watch judge (watchjudge.h) under the sandbox's ruleset.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "cleanup.h"
#include "compat/syscall.h"
#include "filter.h"
#include "supervise-int.h"
#include "watchjudge.h"
#include "xalloc.h"

/* ---- --learn: observing the filesystem ---- */

/* The syscalls --learn observes, and where their path and flags are. */
static const struct {
	const char *name;
	int dirfd_arg; /* -1: relative to the cwd */
	int path_arg;
	int flags_arg; /* open flags, -1: none */
	char kind;     /* 'o' open, 'x' exec, 'w' creates an entry */
} learn_calls[] = {
	{ "open", -1, 0, 1, 'o' },     { "openat", 0, 1, 2, 'o' },
	{ "creat", -1, 0, -1, 'w' },   { "execve", -1, 0, -1, 'x' },
	{ "execveat", 0, 1, -1, 'x' }, { "mkdir", -1, 0, -1, 'w' },
	{ "mkdirat", 0, 1, -1, 'w' },
};

int
supervise_learn(struct supervisor *sv, int fd, char **cause)
{
	int r;

	/* The notification filter, built now with the calls below. */
	if (sv->notify == NULL &&
	    (r = filter_notify_build(&sv->notify, sv->watches, cause)) < 0)
		return r;
	for (size_t i = 0; i < ARRAY_SIZE(learn_calls); i++) {
		int nr = seccomp_syscall_resolve_name(learn_calls[i].name);

		/* open, creat and mkdir are missing on some architectures,
		 * where the *at calls are all there is. */
		if (nr < 0)
			continue;
		r = seccomp_rule_add_exact(sv->notify, SCMP_ACT_NOTIFY, nr, 0);
		if (r < 0) {
			*cause = xasprintf("cannot observe %s for --learn: "
					   "%s.",
					   learn_calls[i].name, strerror(-r));
			return r;
		}
	}
	sv->learn_fd = fd;
	return 0;
}

/*
 * Record the path of an open, exec or mkdir, as an absolute path, with
 * what the call wants ("r", "w", "x"), one line to learn_fd; then let
 * the kernel run the call itself.  Observation only: Landlock decides,
 * so what the caller changes after this read does not matter.
 */
int
svlearn_observe(struct supervisor *sv, struct call *c)
{
	const struct seccomp_notif *req = c->req;
	_cleanup_free_ char *path = NULL, *base = NULL, *line = NULL;
	const char *want = "r";
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(learn_calls); i++) {
		int nr = seccomp_syscall_resolve_name(learn_calls[i].name);

		if (nr >= 0 && nr == req->data.nr)
			break;
	}
	if (i == (int)ARRAY_SIZE(learn_calls))
		return CALL_CONTINUE;
	path = svcall_read_string(c->pid,
				  req->data.args[learn_calls[i].path_arg]);
	if (path == NULL || path[0] == '\0')
		return CALL_CONTINUE;
	if (path[0] != '/') {
		char link[64], target[PATH_MAX];
		int dirfd =
			learn_calls[i].dirfd_arg < 0
				? AT_FDCWD
				: (int)req->data.args[learn_calls[i].dirfd_arg];
		ssize_t n;

		if (dirfd == AT_FDCWD)
			snprintf(link, sizeof(link), "/proc/%d/cwd",
				 (int)c->pid);
		else
			snprintf(link, sizeof(link), "/proc/%d/fd/%d",
				 (int)c->pid, dirfd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0 || target[0] != '/')
			return CALL_CONTINUE;
		target[n] = '\0';
		base = xasprintf("%s/%s", target, path);
		free(path);
		path = steal_pointer(&base);
	}
	if (learn_calls[i].kind == 'x') {
		want = "x";
	} else if (learn_calls[i].kind == 'w') {
		want = "w";
	} else if (learn_calls[i].flags_arg >= 0) {
		uint64_t fl = req->data.args[learn_calls[i].flags_arg];

		if ((fl & O_ACCMODE) != O_RDONLY || (fl & (O_CREAT | O_TRUNC)))
			want = "w";
	}
	/* One line each; a path with a newline cannot be one. */
	if (strchr(path, '\n') == NULL) {
		line = xasprintf("%s %s\n", want, path);
		(void)svcall_write_all(sv->learn_fd, line, strlen(line));
	}
	return CALL_CONTINUE;
}

/*
 * The caller's inotify instance (svcall_inotify) in *ifd.  With
 * pidfd_getfd the one of the last watch is kept: a recursive watcher
 * adds all its watches to one instance, and a call whose descriptor is
 * that very open file (kcmp) takes it without a pidfd, a copy and a
 * look at its kind.  Where kcmp is missing or refused, each call takes
 * the caller's anew.
 */
static int
watch_instance(struct supervisor *sv, struct call *c, int *ifd)
{
	static pid_t self;
	int theirs = (int)(uint32_t)c->req->data.args[0], r;

	if (self == 0)
		self = getpid();
	if (sv->getfd && sv->watch_ifd >= 0 &&
	    sys_kcmp_file(self, c->pid, sv->watch_ifd, theirs) == 0) {
		*ifd = sv->watch_ifd;
		return 0;
	}
	if ((r = svcall_inotify(sv, c)) < 0)
		return r;
	*ifd = c->sock;
	if (sv->getfd) {
		if (sv->watch_ifd >= 0)
			close(sv->watch_ifd);
		sv->watch_ifd = c->sock;
		c->sock = -1;
	}
	return 0;
}

/*
 * inotify_add_watch(fd, path, mask) (DESIGN.md §11, watching): Landlock
 * does not check it, so the watch judge opens path as the sandbox would,
 * under its Landlock ruleset and in its view, and the watch goes on the
 * object it opened, through this process's /proc/self/fd: the path is
 * read from the caller once and never walked again.  A path the sandbox
 * may not read gets the judge's EACCES.
 */
int
svlearn_inotify_add_watch(struct supervisor *sv, struct call *c)
{
	const struct seccomp_notif *req = c->req;
	uint32_t mask = (uint32_t)req->data.args[2];
	_cleanup_free_ char *path = NULL, *abs = NULL;
	_cleanup_close_ int root = -1, obj = -1;
	char link[64];
	int ifd, r, wd;

	/* The caller's instance, or the supervisor's in its place. */
	if ((r = watch_instance(sv, c, &ifd)) < 0)
		return r;
	path = svcall_read_string(c->pid, req->data.args[1]);
	if (path == NULL)
		return svcall_error(sv, c, -EFAULT);
	if ((r = svcall_root_path(c->pid, path, &root, &abs)) < 0)
		return svcall_error(sv, c, r);
	if (svcall_valid(sv, c) < 0)
		return CALL_GONE;
	/* A judge that cannot answer refuses: fail closed. */
	r = watchjudge_open(sv->judge, root, abs, mask, &obj);
	if (r < 0)
		return svcall_error(sv, c, r == -EIO ? -EACCES : r);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", obj);
	wd = inotify_add_watch(ifd, link, mask & ~(uint32_t)IN_DONT_FOLLOW);
	if (wd < 0)
		return svcall_error(sv, c, -errno);
	if ((r = svcall_install(sv, c)) < 0)
		return r;
	return wd;
}
