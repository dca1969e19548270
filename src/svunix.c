/*
 * The network supervisor's unix sockets (supervise-int.h): an abstract name is
 * reachable when the sandbox bound it; a pathname socket when it is one
 * the sandbox bound or on the allow-list, reached through the inode the
 * supervisor resolved in the caller's view (never the caller's string a
 * second time); a pathname bind happens in the directory checked, where
 * the policy lets the command create entries.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "cleanup.h"
#include "compat/landlock.h"
#include "sockdiag.h"
#include "supervise-int.h"
#include "xalloc.h"

/* Remember a unix socket the sandbox bound: abstract (name from
 * getsockname), or pathname (path_st, the inode bind made). */
void
svunix_record(struct supervisor *sv, int sock, const struct stat *path_st)
{
	struct netpolicy_own_unix o = { 0 };
	struct sockaddr_un un;
	socklen_t len = sizeof(un);
	struct stat st;

	if (fstat(sock, &st) < 0 || sockdiag_cookie(sock, &o.cookie) < 0)
		return;
	o.ino = (uint32_t)st.st_ino;
	if (path_st != NULL) {
		o.dev = path_st->st_dev;
		o.vfs_ino = path_st->st_ino;
	} else {
		if (getsockname(sock, (struct sockaddr *)&un, &len) < 0 ||
		    len <= offsetof(struct sockaddr_un, sun_path) + 1 ||
		    un.sun_path[0] != '\0')
			return;
		o.abstract = true;
		o.len = len - offsetof(struct sockaddr_un, sun_path) - 1;
		memcpy(o.name, un.sun_path + 1, o.len);
	}
	netpolicy_own_add_unix(sv->own, &o);
}

/*
 * Whether the unix socket at d is one the sandbox bound and still has:
 * a candidate remembered at bind must still exist (its cookie) and still
 * be bound there.
 */
static bool
own_unix(const struct supervisor *sv, const struct netpolicy_unix_dest *d)
{
	for (size_t i = 0; i < sv->own->n_unix; i++) {
		const struct netpolicy_own_unix *o = &sv->own->unix_[i];
		struct netpolicy_unix now;

		if (netpolicy_own_unix_candidate(o, d) &&
		    sockdiag_unix(o->ino, o->cookie, &now) == 0 &&
		    netpolicy_own_unix_current(d, &now))
			return true;
	}
	return false;
}

/* The path of a pathname unix address, NUL-terminated. */
char *
svunix_path(const struct addr_buf *a)
{
	size_t n = a->len - offsetof(struct sockaddr_un, sun_path);

	return xstrndup(a->u.un.sun_path, n);
}

/*
 * Whether the sandbox can replace entry (resolved, not "/"): remove or
 * rename it, or make it when it is not there.  Not where the user
 * cannot write its directory and does not own it (the command runs as
 * the user, and a user namespace gives it no power over what the user
 * does not own; Landlock does not stop a chmod), nor in
 * a sticky directory over an entry neither the entry nor the directory
 * of which is the user's, nor where the plan Landlock enforces does not
 * let it.
 */
static bool
sandbox_can_replace(const struct plan *fs, const char *entry)
{
	static const uint64_t rights[] = {
		LLW_FS_REMOVE_DIR, LLW_FS_REMOVE_FILE, LLW_FS_MAKE_DIR,
		LLW_FS_MAKE_REG,   LLW_FS_MAKE_SOCK,   LLW_FS_MAKE_SYM,
		LLW_FS_MAKE_FIFO,  LLW_FS_MAKE_CHAR,   LLW_FS_MAKE_BLOCK,
	};
	_cleanup_free_ char *dir = xstrdup(entry);
	char *slash = strrchr(dir, '/');
	struct stat d, e;

	*(slash == dir ? slash + 1 : slash) = '\0';
	if (stat(dir, &d) < 0)
		return true;
	/* Its owner may chmod it first. */
	if (d.st_uid != geteuid() &&
	    faccessat(AT_FDCWD, dir, W_OK, AT_EACCESS) < 0 && errno == EACCES)
		return false;
	if ((d.st_mode & S_ISVTX) && lstat(entry, &e) == 0 &&
	    e.st_uid != geteuid() && d.st_uid != geteuid())
		return false;
	if (fs == NULL)
		return true;
	for (size_t i = 0; i < sizeof(rights) / sizeof(rights[0]); i++)
		if (plan_decide(fs, dir, rights[i]).allowed)
			return true;
	return false;
}

/*
 * The unix allow-list, resolved once, before the command runs (F1 of the
 * 2026-11-27 review: looked up by its path at every connect, a listed
 * socket in a tree the sandbox could write was swapped for a symlink to
 * any other socket of the user's, which the supervisor then connected
 * to).  Each entry keeps its path without symlinks and the socket there
 * now; an entry any of whose directories the sandbox can change keeps
 * only that socket.  Others may be looked up again (a service that
 * restarts makes a new socket), without following a symlink: their
 * directories are the host's alone.
 */
void
svunix_allow_init(struct supervisor *sv)
{
	char *const *l = sv->net->unix_paths;
	size_t n = strv_length(l);

	sv->unix_allowed = xcalloc(n + 1, sizeof(*sv->unix_allowed));
	sv->n_unix_allowed = n;
	for (size_t i = 0; i < n; i++) {
		struct unix_allowed *u = &sv->unix_allowed[i];
		char *dir, *slash;
		struct stat st;

		u->path = realpath(l[i], NULL);
		if (u->path == NULL) {
			/* Not there yet: its directory, resolved. */
			_cleanup_free_ char *w = xstrdup(l[i]);
			char *d;

			if ((slash = strrchr(w, '/')) == NULL ||
			    slash[1] == '\0')
				continue;
			*slash = '\0';
			d = realpath(*w != '\0' ? w : "/", NULL);
			if (d == NULL)
				continue;
			u->path =
				xasprintf("%s/%s", strcmp(d, "/") == 0 ? "" : d,
					  slash + 1);
			free(d);
		} else if (stat(u->path, &st) == 0 && S_ISSOCK(st.st_mode)) {
			u->dev = st.st_dev;
			u->ino = st.st_ino;
			u->have = true;
		}
		/* The socket and every directory above it. */
		dir = xstrdup(u->path);
		while (strcmp(dir, "/") != 0 && *dir != '\0') {
			if (sandbox_can_replace(sv->fs, dir)) {
				u->sandbox_can_swap = true;
				break;
			}
			slash = strrchr(dir, '/');
			*(slash == dir ? slash + 1 : slash) = '\0';
		}
		free(dir);
	}
}

void
svunix_allow_free(struct supervisor *sv)
{
	for (size_t i = 0; i < sv->n_unix_allowed; i++)
		free(sv->unix_allowed[i].path);
	free(sv->unix_allowed);
}

/* Whether st is the socket of an entry of the unix allow-list. */
static bool
unix_allowed(const struct supervisor *sv, const struct stat *st)
{
	for (size_t i = 0; i < sv->n_unix_allowed; i++) {
		const struct unix_allowed *u = &sv->unix_allowed[i];
		struct open_how how = { .flags = O_PATH | O_CLOEXEC,
					.resolve = RESOLVE_NO_SYMLINKS |
						   RESOLVE_NO_MAGICLINKS };
		_cleanup_close_ int fd = -1;
		struct stat a;

		if (u->have && u->dev == st->st_dev && u->ino == st->st_ino)
			return true;
		if (u->path == NULL || u->sandbox_can_swap)
			continue;
		fd = (int)syscall(SYS_openat2, AT_FDCWD, u->path, &how,
				  sizeof(how));
		if (fd >= 0 && fstat(fd, &a) == 0 && S_ISSOCK(a.st_mode) &&
		    a.st_dev == st->st_dev && a.st_ino == st->st_ino)
			return true;
	}
	return false;
}

/* The kernel's name of fd's file, as /proc/self/fd names it, or NULL. */
static char *
fd_path(int fd)
{
	char self[64], real[4096];
	ssize_t n;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	n = readlink(self, real, sizeof(real) - 1);
	if (n < 0)
		return NULL;
	real[n] = '\0';
	return xstrdup(real);
}

/*
 * Whether the command may see path, which does not exist in its view:
 * decided on the plan at the kernel's name of its deepest existing
 * ancestor, the missing rest appended (a rule may name a symlink on the
 * way), as Landlock decides the lookup.
 */
static bool
visible_missing(const struct supervisor *sv, pid_t pid, const char *path)
{
	_cleanup_free_ char *prefix = xstrdup(path), *real = NULL;
	_cleanup_free_ char *full = NULL;
	char *slash;
	int fd = -1;

	while ((slash = strrchr(prefix, '/')) != NULL) {
		if (slash == prefix)
			slash[1] = '\0';
		else
			*slash = '\0';
		if ((fd = svcall_open_path(pid, prefix, false, NULL)) >= 0 ||
		    slash == prefix)
			break;
	}
	if (fd < 0)
		return false;
	real = fd_path(fd);
	close(fd);
	if (real == NULL)
		return false;
	full = xasprintf("%s%s%s", real, strcmp(real, "/") == 0 ? "" : "/",
			 path + strlen(prefix) + (strcmp(prefix, "/") != 0));
	return plan_decide(sv->fs, full, LLW_FS_READ_FILE).allowed;
}

/*
 * Check a unix destination and rewrite it to what the supervisor
 * connects to: for a pathname, /proc/self/fd/N of the socket inode it
 * resolved, so what it checked is what it reaches (no second lookup of
 * the caller's string).  Returns 0, or -errno; *rule set when refused.
 */
int
svunix_destination(struct supervisor *sv, const struct call *c,
		   struct addr_buf *a, enum refusal *rule)
{
	_cleanup_free_ char *path = NULL;
	struct netpolicy_unix_dest d;
	struct stat st;
	size_t n;
	int fd;

	if (a->len <= offsetof(struct sockaddr_un, sun_path) ||
	    a->u.sa.sa_family != AF_UNIX)
		return 0; /* AF_UNSPEC (disconnect) or invalid: harmless */
	n = a->len - offsetof(struct sockaddr_un, sun_path);
	if (a->u.un.sun_path[0] == '\0') {
		/* Abstract: Landlock's scope would judge the supervisor, not
		 * the caller, so the supervisor applies it: only names the
		 * sandbox bound. */
		d = (struct netpolicy_unix_dest){ .abstract = true,
						  .name = a->u.un.sun_path + 1,
						  .len = n - 1 };
		if (own_unix(sv, &d))
			return 0;
		*rule = REFUSAL_ABSTRACT;
		return -EACCES;
	}
	path = svunix_path(a);
	fd = svcall_open_path(c->pid, path, false, NULL);
	if (fd < 0) {
		/* Say ENOENT only where the policy lets the command see. */
		if ((fd == -ENOENT || fd == -ENOTDIR) && path[0] == '/' &&
		    visible_missing(sv, c->pid, path))
			return fd;
		*rule = REFUSAL_UNIX;
		return -EACCES;
	}
	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		close(fd);
		return -ECONNREFUSED;
	}
	/* unix-sockets = allow only lets AF_UNIX sockets be created: as
	 * under Landlock ABI 9, for which the supervisor stands in on older
	 * kernels (DESIGN.md §14), host sockets need the allow-list. */
	d = (struct netpolicy_unix_dest){ .dev = st.st_dev, .ino = st.st_ino };
	if (!own_unix(sv, &d) && !unix_allowed(sv, &st)) {
		close(fd);
		*rule = REFUSAL_UNIX;
		return -EACCES;
	}
	memset(&a->u.un, 0, sizeof(a->u.un));
	a->u.un.sun_family = AF_UNIX;
	snprintf(a->u.un.sun_path, sizeof(a->u.un.sun_path), "/proc/self/fd/%d",
		 fd);
	a->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
			     strlen(a->u.un.sun_path) + 1);
	a->opath = fd;
	return 0;
}

/* bind() of a pathname unix socket: in the directory the caller names,
 * when the policy lets the command create entries there. */
int
svunix_bind(struct supervisor *sv, struct call *c, struct addr_buf *a)
{
	_cleanup_free_ char *path = svunix_path(a), *base = NULL;
	_cleanup_free_ char *real = NULL;
	_cleanup_close_ int dir = -1;
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct stat st;
	int r, e;

	dir = svcall_open_path(c->pid, path, true, &base);
	if (dir < 0)
		return dir == -ELOOP ? -EACCES : dir;
	if ((real = fd_path(dir)) == NULL)
		return -EACCES;
	/* real is the kernel's path: decided on the plan Landlock enforces,
	 * not on the rules as written (a rule may name a symlink). */
	if (!plan_decide(sv->fs, real, LLW_FS_MAKE_SOCK).allowed) {
		svlog_blocked(sv, NETPOLICY_BIND, NETPOLICY_UNIX, path, c->pid,
			      c->pidfd, REFUSAL_UNIX_BIND);
		return -EACCES;
	}
	if (strlen(base) >= sizeof(un.sun_path))
		return -EINVAL;
	/* Without pidfd_getfd the socket bound is the supervisor's, held
	 * for its listen or connect. */
	if ((r = svcall_valid(sv, c)) < 0 || (r = svcall_install(sv, c)) < 0)
		return r;
	svcall_hold(sv, c);
	strcpy(un.sun_path, base);
	/* The supervisor has one thread, so its working directory is its
	 * own to move: bind the last component in the directory it
	 * checked, not the caller's string again. */
	if (fchdir(dir) < 0)
		return -errno;
	r = bind(c->sock, (struct sockaddr *)&un,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
			     strlen(base) + 1));
	e = errno;
	if (chdir("/") < 0)
		abort();
	if (r < 0)
		return -e;
	if (fstatat(dir, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISSOCK(st.st_mode))
		svunix_record(sv, c->sock, &st);
	return 0;
}
