/*
 * The watch judge: a process under the sandbox's Landlock ruleset that
 * opens, for the supervisor, the paths the sandbox asks to watch
 * (watchjudge.h).
 *
 * One request at a time over a channel (channel.h): the supervisor sends
 * the mask and the path with the caller's root, the judge answers with
 * an errno and, on success, the open file.  The judge holds
 * the root only while it answers.
 *
 * A recursive watch (tsc --watch, jest, webpack, a language server)
 * asks for every directory of a tree in turn, each a round trip to the
 * judge.  So with a directory's answer the judge opens ahead, the same
 * way (under the ruleset, no symlink followed), up to AHEAD_MAX
 * directories of the tree around it (its parent's, breadth first), and
 * hands them over in frames after the answer; the supervisor keeps them
 * by the path the caller would name them with, and a later request for
 * that path takes one without a round trip when the caller's path, in
 * its root now, leads to that very directory (device, inode, mount).  A
 * directory opened ahead was one the sandbox could read then, so the
 * watch is one it could have asked for then; the path is checked again
 * when it is used.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/resource.h>
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

/* Directories opened ahead: at most AHEAD_MAX a request, AHEAD_KEEP kept
 * (the oldest closed first). */
#define AHEAD_MAX  128
#define AHEAD_KEEP 256

struct ahead {
	char *path; /* the caller's path to it; NULL: a free slot */
	int fd;
	uint64_t dev, ino, mnt;
};

struct watchjudge {
	int ruleset; /* -1: no Landlock, the view alone decides */
	int sock;    /* the supervisor's end, -1 before the first request */
	pid_t pid;
	struct ahead ahead[AHEAD_KEEP];
	size_t next_ahead;  /* the slot the next one takes */
	size_t n_keep;	    /* slots used: AHEAD_KEEP, or fewer where this
			     * process may open few descriptors */
	uint32_t ahead_max; /* asked of the judge a request */
};

/* How long the supervisor waits for an answer (an open on a hung network
 * file system, a judge stopped by a signal) before it refuses the watch
 * and starts another judge. */
#define JUDGE_TIMEOUT_S 5

struct request {
	uint32_t mask;
	uint32_t ahead; /* how many directories to open ahead, at most */
	char path[PATH_MAX];
};

struct reply {
	int32_t err;   /* 0, or a positive errno */
	uint32_t more; /* JUDGE_AHEAD frames that follow */
};

/* The frames of the judge's channel (channel.h): JUDGE_AHEAD carries
 * directories opened ahead, one descriptor each, and their paths
 * relative to the request's parent, each NUL-terminated, in order. */
enum { JUDGE_OPEN = 1, JUDGE_REPLY = 2, JUDGE_AHEAD = 3 };

/* The directory that holds path ("/a/b": "/a"; "/a": "/"), or NULL for
 * the root or a path that is not absolute. */
static char *
parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t len;

	if (path[0] != '/' || strcmp(path, "/") == 0 || slash == NULL)
		return NULL;
	len = (size_t)(slash - path);
	return len == 0 ? xstrdup("/") : xstrndup(path, len);
}

/* base joined with rel (base "/": no double slash). */
static char *
joined(const char *base, const char *rel)
{
	return xasprintf("%s/%s", strcmp(base, "/") == 0 ? "" : base, rel);
}

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

/* The directories opened ahead for one answer. */
struct batch {
	char *rel[AHEAD_MAX];
	int fd[AHEAD_MAX];
	size_t n;
};

/* The subdirectories of dfd (whose path relative to the parent is rel,
 * "" for the parent itself) into b, up to max, opened as the request's
 * were: under the ruleset, no symlink followed.  A name too long for a
 * frame is left out. */
static void
ahead_list(int dfd, const char *rel, size_t max, struct batch *b)
{
	char buf[16384];
	long n;

	while (b->n < max && (n = sys_getdents64(dfd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n && b->n < max;) {
			const struct llw_dirent64 *d =
				(const void *)(buf + off);
			char *r;
			int fd;

			off += d->d_reclen;
			if (d->d_type != DT_DIR ||
			    strcmp(d->d_name, ".") == 0 ||
			    strcmp(d->d_name, "..") == 0)
				continue;
			r = *rel ? xasprintf("%s/%s", rel, d->d_name)
				 : xstrdup(d->d_name);
			if (strlen(r) >= CHANNEL_MAX_PAYLOAD / 2 ||
			    (fd = openat(dfd, d->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
						 O_NONBLOCK | O_NOCTTY |
						 O_CLOEXEC)) < 0) {
				free(r);
				continue;
			}
			b->rel[b->n] = r;
			b->fd[b->n++] = fd;
		}
	}
}

/* Open ahead the tree around path (a directory just opened): its
 * parent's subdirectories, breadth first, at most max. */
static void
ahead_collect(int root, const char *path, size_t max, struct batch *b)
{
	_cleanup_free_ char *base = parent_of(path);
	struct open_how how;
	int bfd;

	b->n = 0;
	if (base == NULL)
		return;
	watchjudge_how(IN_ONLYDIR, &how);
	if ((bfd = openat2_in(root, base, &how)) < 0)
		return;
	ahead_list(bfd, "", max, b);
	close(bfd);
	/* A directory with two links has no subdirectory (its own "." and
	 * its entry in its parent; where a file system counts otherwise,
	 * btrfs' 1, it is listed): a tree's leaves, most of its
	 * directories, are not read. */
	for (size_t head = 0; head < b->n && b->n < max; head++) {
		struct stat st;

		if (fstat(b->fd[head], &st) == 0 && st.st_nlink == 2)
			continue;
		ahead_list(b->fd[head], b->rel[head], max, b);
	}
}

/* The frames of b: how many descriptors and payload bytes each takes,
 * from first.  Returns the count that fit. */
static size_t
ahead_frame(const struct batch *b, size_t first, size_t *bytes)
{
	size_t k = 0;

	*bytes = 0;
	while (first + k < b->n && k < CHANNEL_MAX_FDS &&
	       *bytes + strlen(b->rel[first + k]) + 1 <= CHANNEL_MAX_PAYLOAD)
		*bytes += strlen(b->rel[first + k++]) + 1;
	return k;
}

/* Answer with the reply, its descriptor, and b's frames. */
static int
judge_answer(int sock, struct reply *rp, int fd, const struct batch *b)
{
	unsigned char payload[CHANNEL_MAX_PAYLOAD];
	size_t first = 0, k, bytes;

	rp->more = 0;
	for (first = 0; first < b->n; first += k, rp->more++)
		k = ahead_frame(b, first, &bytes);
	if (channel_send(sock, JUDGE_REPLY, rp, sizeof(*rp), &fd, fd >= 0, 0) <
	    0)
		return -1;
	for (first = 0; first < b->n; first += k) {
		size_t at = 0;

		k = ahead_frame(b, first, &bytes);
		for (size_t i = 0; i < k; i++) {
			size_t len = strlen(b->rel[first + i]) + 1;

			memcpy(payload + at, b->rel[first + i], len);
			at += len;
		}
		if (channel_send(sock, JUDGE_AHEAD, payload, at, b->fd + first,
				 k, 0) < 0)
			return -1;
	}
	return 0;
}

/* The judge's loop, until the supervisor closes its end. */
static void __attribute__((noreturn)) judge_serve(int sock)
{
	for (;;) {
		struct channel_msg m;
		struct request rq;
		struct reply rp = { 0 };
		struct batch b = { .n = 0 };
		_cleanup_close_ int root = -1, fd = -1;
		struct stat st;
		int r = channel_recv(sock, &m, 1, 0);

		if (r == 0 || (r < 0 && r != -EMSGSIZE && r != -EBADMSG))
			_exit(0);
		if (r == 1 && m.n_fds == 1)
			root = m.fds[0];
		if (r < 0 || m.type != JUDGE_OPEN || root < 0 ||
		    m.len < offsetof(struct request, path) + 1 ||
		    m.len > sizeof(rq) || m.payload[m.len - 1] != '\0') {
			rp.err = EINVAL;
		} else {
			memcpy(&rq, m.payload, m.len);
			if ((fd = judge_open(root, &rq)) < 0)
				rp.err = -fd;
			else if (rq.ahead > 0 && fstat(fd, &st) == 0 &&
				 S_ISDIR(st.st_mode))
				ahead_collect(root, rq.path,
					      rq.ahead < AHEAD_MAX ? rq.ahead
								   : AHEAD_MAX,
					      &b);
		}
		r = judge_answer(sock, &rp, fd, &b);
		for (size_t i = 0; i < b.n; i++) {
			close(b.fd[i]);
			free(b.rel[i]);
		}
		if (r < 0)
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
	struct rlimit rl;

	for (size_t i = 0; i < AHEAD_KEEP; i++)
		j->ahead[i].fd = -1;
	/* A quarter of the descriptors this process may open, at most. */
	j->n_keep = AHEAD_KEEP;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur / 4 < AHEAD_KEEP)
		j->n_keep = (size_t)(rl.rlim_cur / 4);
	j->ahead_max = (uint32_t)(j->n_keep / 2);
	return j;
}

static void
ahead_drop(struct ahead *a)
{
	if (a->fd >= 0)
		close(a->fd);
	free(a->path);
	a->path = NULL;
	a->fd = -1;
}

/* Where the kernel has no mount id in statx (before 5.8), nothing is
 * kept: a directory could not be told from the same one seen through
 * another mount. */
static int
identity(int fd, uint64_t *dev, uint64_t *ino, uint64_t *mnt)
{
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_INO | STATX_MNT_ID, &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID) || !(sx.stx_mask & STATX_INO))
		return -1;
	*dev = ((uint64_t)sx.stx_dev_major << 32) | sx.stx_dev_minor;
	*ino = sx.stx_ino;
	*mnt = sx.stx_mnt_id;
	return 0;
}

/*
 * Keep the directories of one JUDGE_AHEAD frame, their paths relative to
 * base: exactly one NUL-terminated path a descriptor, none empty,
 * absolute, or with a "." or ".." component.  0, or -1 for a frame the
 * judge could not have sent (then nothing of it is kept).
 */
static int
ahead_take(struct watchjudge *j, const char *base, struct channel_msg *m)
{
	const char *rel[CHANNEL_MAX_FDS];
	size_t at = 0;

	if (m->type != JUDGE_AHEAD || m->n_fds == 0 || m->len == 0 ||
	    m->payload[m->len - 1] != '\0')
		return -1;
	for (size_t i = 0; i < m->n_fds; i++) {
		const char *r = (const char *)m->payload + at;
		size_t len;

		if (at >= m->len)
			return -1;
		len = strlen(r);
		rel[i] = r;
		at += len + 1;
		if (len == 0 || r[0] == '/' || r[len - 1] == '/' ||
		    strstr(r, "//") != NULL)
			return -1;
		for (const char *c = r; c != NULL; c = strchr(c, '/')) {
			if (*c == '/')
				c++;
			if ((c[0] == '.' && (c[1] == '/' || c[1] == '\0')) ||
			    (c[0] == '.' && c[1] == '.' &&
			     (c[2] == '/' || c[2] == '\0')))
				return -1;
		}
	}
	if (at != m->len)
		return -1;
	for (size_t i = 0; i < m->n_fds; i++) {
		struct ahead *a = &j->ahead[j->next_ahead];

		if (j->n_keep == 0)
			return 0;
		ahead_drop(a);
		if (identity(m->fds[i], &a->dev, &a->ino, &a->mnt) < 0)
			continue;
		a->fd = m->fds[i];
		m->fds[i] = -1;
		a->path = joined(base, rel[i]);
		j->next_ahead = (j->next_ahead + 1) % j->n_keep;
	}
	return 0;
}

/*
 * A directory opened ahead for path, when the caller's path (in its root
 * root, now; with IN_DONT_FOLLOW the link itself) leads to that very
 * directory: 0 and its descriptor in *fd, taken.  Else -1: the judge
 * decides.
 */
static int
ahead_use(struct watchjudge *j, int root, const char *path, uint32_t mask,
	  int *fd)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC |
			 ((mask & IN_DONT_FOLLOW) ? O_NOFOLLOW : 0),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	uint64_t dev, ino, mnt;
	struct ahead *a = NULL;
	int now, same;

	for (size_t i = 0; i < AHEAD_KEEP && a == NULL; i++)
		if (j->ahead[i].path != NULL &&
		    strcmp(j->ahead[i].path, path) == 0)
			a = &j->ahead[i];
	if (a == NULL)
		return -1;
	now = openat2_in(root, path, &how);
	same = now >= 0 && identity(now, &dev, &ino, &mnt) == 0 &&
	       dev == a->dev && ino == a->ino && mnt == a->mnt;
	if (now >= 0)
		close(now);
	if (!same) {
		ahead_drop(a);
		return -1;
	}
	*fd = a->fd;
	a->fd = -1;
	ahead_drop(a);
	return 0;
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

/* The more JUDGE_AHEAD frames after an answer for path: 0, or -1 for
 * frames the judge could not have sent (or none in time). */
static int
ahead_recv(struct watchjudge *j, const char *path, uint32_t more)
{
	_cleanup_free_ char *base = parent_of(path);

	if (base == NULL || more > AHEAD_MAX)
		return -1;
	for (uint32_t k = 0; k < more; k++) {
		struct channel_msg m;
		int r;

		m.n_fds = 0;
		if (channel_recv(j->sock, &m, CHANNEL_MAX_FDS, 0) != 1) {
			channel_msg_close(&m);
			return -1;
		}
		r = ahead_take(j, base, &m);
		channel_msg_close(&m);
		if (r < 0)
			return -1;
	}
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
	if (ahead_use(j, root, path, mask, fd) == 0)
		return 0;
	rq.mask = mask;
	rq.ahead = j->ahead_max;
	memcpy(rq.path, path, len + 1);
	if (j->sock < 0 && (r = judge_start(j)) < 0)
		return r;
	m.n_fds = 0;
	if (channel_send(j->sock, JUDGE_OPEN, &rq,
			 offsetof(struct request, path) + len + 1, &root, 1,
			 0) < 0 ||
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
	/* Frames it could not have sent, or that did not arrive (this
	 * process out of descriptors): the answer stands, the judge is
	 * started again at the next request. */
	if (rp.more > 0 && ahead_recv(j, path, rp.more) < 0)
		judge_stop(j);
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
	for (size_t i = 0; i < AHEAD_KEEP; i++)
		ahead_drop(&j->ahead[i]);
	free(j);
}
