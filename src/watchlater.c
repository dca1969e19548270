/*
 * The watch on files run later (see watchlater.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "cleanup.h"
#include "fdutil.h"
#include "gitguard.h"
#include "monitor.h"
#include "path.h"
#include "strv.h"
#include "text.h"
#include "watchlater.h"
#include "xalloc.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* The largest index read (a large monorepo's is tens of MiB). */
#define WATCHLATER_MAX_INDEX (256u << 20)

/* The trees the watcher opens beneath: the project, and a repository
 * outside it (a linked worktree's own directory and its common one). */
#define WATCHLATER_MAX_ROOTS 3

/* A file or directory, by identity: what a rename cannot fake. */
struct wkey {
	dev_t dev;
	ino_t ino;
};

/* A name watched in a directory, and who reads it later. */
struct wname {
	char *name;
	const char *reader;
	bool move; /* false: named after the run, left (a new .envrc) */
};

/* A watched directory. */
struct wdir {
	int wd;
	int fd; /* O_PATH, opened beneath a root */
	struct wkey key;
	char *path; /* for messages */
	struct wname *names;
	size_t n_names;
	bool gitdir; /* the repository: its index is watched too */
};

/* A missing path whose directory did not exist at the start: looked at
 * after the run, beneath its root. */
struct unwatched {
	size_t root;
	char *rel;
	char *path;
	const char *reader;
	bool move;
};

struct root {
	int fd;
	char *path;
};

struct watchlater {
	int ifd;
	int release; /* the holder's pipe (holder_start) */
	struct root roots[WATCHLATER_MAX_ROOTS];
	size_t n_roots;
	size_t hash_len; /* of the repository's object ids */
	struct wkey *protect;
	size_t n_protect;
	struct wdir *dirs;
	size_t n_dirs;
	struct unwatched *unwatched;
	size_t n_unwatched;
	char **done;	 /* what was reported already, as named */
	char **lines;	 /* the report */
	char **failures; /* what could not be checked */
};

static bool
key_in(const struct wkey *v, size_t n, const struct stat *st)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].dev == st->st_dev && v[i].ino == st->st_ino)
			return true;
	return false;
}

static void
protect_add(struct watchlater *w, const struct stat *st)
{
	if (key_in(w->protect, w->n_protect, st))
		return;
	w->protect = xreallocarray(w->protect, w->n_protect + 1,
				   sizeof(*w->protect));
	w->protect[w->n_protect++] =
		(struct wkey){ .dev = st->st_dev, .ino = st->st_ino };
}

/* A failure of the check, said once. */
static void
fail(struct watchlater *w, char *why)
{
	if (strv_contains(w->failures, why))
		free(why);
	else
		strv_push_take(&w->failures, why);
}

/* dir beneath the root's descriptor: no symlink, no mount crossed, never
 * above it ("" or "." is the root itself). */
static int
open_beneath(int rootfd, const char *rel, bool dir)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | (dir ? O_DIRECTORY : 0),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};

	int fd;

	if (*rel == '\0')
		rel = ".";
	fd = (int)syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
	return fd < 0 ? -errno : fd;
}

/* The root path lies under (the deepest), and its path relative to it;
 * -1 when none. */
static ssize_t
root_of(const struct watchlater *w, const char *path, const char **rel)
{
	ssize_t best = -1;

	for (size_t i = 0; i < w->n_roots; i++)
		if (path_under(path, w->roots[i].path) &&
		    (best < 0 ||
		     strlen(w->roots[i].path) > strlen(w->roots[best].path)))
			best = (ssize_t)i;
	if (best >= 0) {
		*rel = path + strlen(w->roots[best].path);
		*rel += strspn(*rel, "/");
	}
	return best;
}

static struct wdir *
wdir_find(struct watchlater *w, const struct stat *st)
{
	for (size_t i = 0; i < w->n_dirs; i++)
		if (w->dirs[i].key.dev == st->st_dev &&
		    w->dirs[i].key.ino == st->st_ino)
			return &w->dirs[i];
	return NULL;
}

/* Watch the directory fd (taken), opened safely by the caller; NULL and
 * a failure when it cannot be. */
static struct wdir *
wdir_add(struct watchlater *w, int fd, const struct stat *st, const char *path)
{
	_cleanup_close_ int cwd = -1;
	struct wdir *d;
	int wd = -1, e = 0;

	if (w->n_dirs >= WATCHLATER_MAX_DIRS) {
		close(fd);
		fail(w, xasprintf("more than %d directories to watch for files "
				  "run later",
				  WATCHLATER_MAX_DIRS));
		return NULL;
	}
	/* Through the descriptor, not the path (it may have changed since):
	 * inotify takes a path only, and /proc/self may be the sandbox's
	 * /proc now, where this process has no pid.  So "." of a moment. */
	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cwd >= 0 && fchdir(fd) == 0) {
		wd = inotify_add_watch(w->ifd, ".",
				       IN_CREATE | IN_MOVED_TO |
					       IN_CLOSE_WRITE | IN_ONLYDIR);
		e = errno;
		if (fchdir(cwd) < 0) {
			/* The watcher uses no relative path. */
		}
	} else {
		e = errno;
	}
	if (wd < 0) {
		_cleanup_free_ char *shown = text_shown(path);

		close(fd);
		fail(w, xasprintf("cannot watch %s: %s", shown, strerror(e)));
		return NULL;
	}
	w->dirs = xreallocarray(w->dirs, w->n_dirs + 1, sizeof(*w->dirs));
	d = &w->dirs[w->n_dirs++];
	*d = (struct wdir){ .wd = wd,
			    .fd = fd,
			    .key = { .dev = st->st_dev, .ino = st->st_ino },
			    .path = xstrdup(path) };
	return d;
}

static void
wdir_name(struct wdir *d, const char *name, const char *reader, bool move)
{
	for (size_t i = 0; i < d->n_names; i++)
		if (strcmp(d->names[i].name, name) == 0)
			return;
	d->names = xreallocarray(d->names, d->n_names + 1, sizeof(*d->names));
	d->names[d->n_names++] = (struct wname){ .name = xstrdup(name),
						 .reader = reader,
						 .move = move };
}

/* 1.2 ms, 340 µs: how long a file existed under its name. */
static char *
age_text(const struct statx *stx)
{
	struct timespec now;
	long long us;

	if (!(stx->stx_mask & STATX_BTIME) ||
	    clock_gettime(CLOCK_REALTIME, &now) < 0)
		return xstrdup("");
	us = ((long long)now.tv_sec - stx->stx_btime.tv_sec) * 1000000 +
	     ((long long)now.tv_nsec - stx->stx_btime.tv_nsec) / 1000;
	if (us < 0)
		us = 0;
	if (us < 10000)
		return xasprintf(", %lld µs after it was made", us);
	return xasprintf(", %lld ms after it was made", us / 1000);
}

/*
 * name in the directory dirfd (dirpath in messages) was made by the
 * command: rename it aside, to NAME.llwrap-blocked-TIME[-N], never over
 * anything, unless it is one of the protected paths.  Said once.
 */
static void
move_aside(struct watchlater *w, int dirfd, const char *dirpath,
	   const char *name, const char *reader)
{
	_cleanup_free_ char *from = xasprintf("%s/%s", dirpath, name);
	_cleanup_free_ char *shown = text_shown(from), *age = NULL;
	struct statx stx;
	struct stat st;
	time_t now = time(NULL);
	int e;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			fail(w, xasprintf("cannot look at %s: %s", shown,
					  strerror(errno)));
		return;
	}
	if (key_in(w->protect, w->n_protect, &st))
		return;
	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_BTIME, &stx) < 0)
		stx.stx_mask = 0;
	age = age_text(&stx);
	for (int i = 0; i < 100; i++) {
		_cleanup_free_ char *to =
			i == 0 ? xasprintf("%s.llwrap-blocked-%lld", name,
					   (long long)now)
			       : xasprintf("%s.llwrap-blocked-%lld-%d", name,
					   (long long)now, i);

		if (syscall(SYS_renameat2, dirfd, name, dirfd, to,
			    RENAME_NOREPLACE) == 0) {
			_cleanup_free_ char *dir = text_shown(dirpath);
			_cleanup_free_ char *as = text_shown(to);

			strv_push(&w->done, from);
			strv_push_take(
				&w->lines,
				xasprintf("llwrap: the command created %s, "
					  "which %s reads later, outside the "
					  "sandbox: moved aside to %s/%s%s; "
					  "review it before putting it back",
					  shown, reader, dir, as, age));
			return;
		}
		if (errno != EEXIST)
			break;
	}
	e = errno;
	if (e == ENOENT)
		return; /* gone meanwhile */
	if (!strv_contains(w->done, from)) {
		strv_push(&w->done, from);
		fail(w, xasprintf("the command created %s, which %s reads "
				  "later, and llwrap could not move it aside "
				  "(%s)",
				  shown, reader, strerror(e)));
	}
}

/* The text of the index, beneath the repository's directory fd: opened
 * without blocking (a FIFO planted there waits for no writer) and read
 * only when it is a regular file.  0, -ENOENT when there is none, or
 * -errno. */
static int
index_read(int gitdir_fd, const char *name, char **buf, size_t *len)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	_cleanup_close_ int fd =
		(int)syscall(SYS_openat2, gitdir_fd, name, &how, sizeof(how));
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size > WATCHLATER_MAX_INDEX)
		return -EFBIG;
	return fd_read_all(fd, WATCHLATER_MAX_INDEX, buf, len);
}

/* The gitlinks of the index, validated; NULL and a failure when it
 * cannot be read (an index git could read and llwrap cannot is not
 * passed over), NULL alone when there is none. */
static char **
index_links(struct watchlater *w, int gitdir_fd, const char *gitdir)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_strv_ char **all = NULL;
	char **links = xcalloc(1, sizeof(char *));
	size_t len = 0;
	_cleanup_free_ char *shared = NULL;
	const char *file = "index";
	int r = index_read(gitdir_fd, file, &buf, &len);

	if (r == 0)
		r = gitguard_index_gitlinks(buf, len, w->hash_len, &all,
					    &shared);
	/* A split index (core.splitIndex): the entries of the shared
	 * index it links to are git's too. */
	if (r == 0 && shared != NULL) {
		_cleanup_strv_ char **more = NULL;

		free(buf);
		buf = NULL;
		file = shared;
		if ((r = index_read(gitdir_fd, file, &buf, &len)) == 0 &&
		    (r = gitguard_index_gitlinks(buf, len, w->hash_len, &more,
						 NULL)) == 0)
			for (char **m = more; *m != NULL; m++)
				strv_push(&all, *m);
	}
	if (r == -ENOENT && file == shared) {
		r = -EINVAL;
	} else if (r == -ENOENT) {
		return links;
	}
	if (r < 0) {
		_cleanup_free_ char *shown = text_shown(gitdir);

		fail(w, xasprintf("cannot read the git index %s/%s: %s", shown,
				  file,
				  r == -EINVAL ? "not an index llwrap can read"
					       : strerror(-r)));
		strv_free(links);
		return NULL;
	}
	if (strv_length(all) > WATCHLATER_MAX_LINKS) {
		fail(w, xasprintf("the git index holds more than %d "
				  "submodule entries",
				  WATCHLATER_MAX_LINKS));
		strv_free(links);
		return NULL;
	}
	for (char **l = all; *l != NULL; l++) {
		if (gitguard_verify_path(*l)) {
			strv_push(&links, *l);
		} else if (!strv_contains(w->done, *l)) {
			_cleanup_free_ char *shown = text_shown(*l);

			/* Git would not write it: nothing is done to what it
			 * names (a gitlink "." is the project). */
			strv_push(&w->done, *l);
			strv_push_take(
				&w->lines,
				xasprintf(
					"llwrap: warning: the command wrote a "
					"submodule entry '%s' into the git "
					"index, a path git itself refuses; "
					"llwrap left what it names alone; "
					"run `git status` with care",
					shown));
		}
	}
	return links;
}

/*
 * Every gitlink of the index whose checkout now has a .git that was not
 * one of the protected paths at the start: moved aside; one that has no
 * .git yet: watched for one.
 */
static void
check_gitlinks(struct watchlater *w, const struct wdir *gd)
{
	_cleanup_strv_ char **links = index_links(w, gd->fd, gd->path);
	const struct root *proj = &w->roots[0];

	for (char **l = links; l != NULL && *l != NULL; l++) {
		_cleanup_free_ char *path = xasprintf("%s/%s", proj->path, *l);
		struct stat st;
		struct wdir *d;
		int fd = open_beneath(proj->fd, *l, true);

		if (fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP) {
			/* Not there, or not without a symlink (which git
			 * does not look through for a submodule). */
			continue;
		}
		if (fd < 0 || fstat(fd, &st) < 0) {
			_cleanup_free_ char *shown = text_shown(path);

			fail(w,
			     xasprintf("cannot open the submodule checkout "
				       "%s: %s",
				       shown, strerror(fd < 0 ? -fd : errno)));
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (fstatat(fd, ".git", &(struct stat){ 0 },
			    AT_SYMLINK_NOFOLLOW) == 0) {
			move_aside(w, fd, path, ".git",
				   "git (a submodule's repository)");
			close(fd);
			continue;
		}
		if ((d = wdir_find(w, &st)) != NULL) {
			close(fd);
		} else if ((d = wdir_add(w, fd, &st, path)) == NULL) {
			continue;
		}
		wdir_name(d, ".git", "git (a submodule's repository)", true);
		/* It may have come between the look and the watch. */
		move_aside(w, d->fd, d->path, ".git",
			   "git (a submodule's repository)");
	}
}

/* Every watched name once, the unwatched ones, and the index: after an
 * overflow, and at the end. */
/* A new .envrc, left where it is: direnv asks before it loads one. */
static void
note_left(struct watchlater *w, int dirfd, const char *dirpath,
	  const char *name)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", dirpath, name);
	_cleanup_free_ char *shown = text_shown(path);

	if (fstatat(dirfd, name, &(struct stat){ 0 }, AT_SYMLINK_NOFOLLOW) <
		    0 ||
	    strv_contains(w->done, path))
		return;
	strv_push(&w->done, path);
	strv_push_take(&w->lines,
		       xasprintf("llwrap: note: the command created %s; direnv "
				 "refuses to load it until you review it and "
				 "run `direnv allow`",
				 shown));
}

static void
check_all(struct watchlater *w, bool at_end)
{
	for (size_t i = 0; i < w->n_dirs; i++) {
		struct wdir *d = &w->dirs[i];

		for (size_t k = 0; k < d->n_names; k++)
			if (d->names[k].move)
				move_aside(w, d->fd, d->path, d->names[k].name,
					   d->names[k].reader);
			else if (at_end)
				note_left(w, d->fd, d->path, d->names[k].name);
	}
	for (size_t i = 0; i < w->n_dirs; i++)
		if (w->dirs[i].gitdir)
			check_gitlinks(w, &w->dirs[i]);
	if (!at_end)
		return;
	/* What nobody watched: a directory made during the run holds it. */
	for (size_t i = 0; i < w->n_unwatched; i++) {
		const struct unwatched *u = &w->unwatched[i];
		_cleanup_free_ char *dir = xstrdup(u->rel);
		_cleanup_free_ char *dirpath = xstrdup(u->path);
		_cleanup_free_ char *shown = text_shown(u->path);
		_cleanup_close_ int fd = -1;
		char *slash = strrchr(dir, '/');
		const char *name = slash != NULL ? slash + 1 : dir;

		if (slash != NULL)
			*slash = '\0';
		*strrchr(dirpath, '/') = '\0';
		fd = open_beneath(w->roots[u->root].fd,
				  slash != NULL ? dir : "", true);
		if (fd == -ENOENT || fd == -ENOTDIR)
			continue;
		if (fd == -ELOOP || fd == -EXDEV) {
			/* The reader would follow the link: name it. */
			strv_push_take(
				&w->lines,
				xasprintf("llwrap: warning: %s, which %s reads "
					  "later, is now reached through a "
					  "symbolic link the command may have "
					  "made; review it before %s runs",
					  shown, u->reader, u->reader));
			continue;
		}
		if (fd < 0) {
			fail(w, xasprintf("cannot open the directory of %s: %s",
					  shown, strerror(-fd)));
			continue;
		}
		if (fstatat(fd, name, &(struct stat){ 0 },
			    AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (u->move)
			move_aside(w, fd, dirpath, name, u->reader);
		else
			note_left(w, fd, dirpath, name);
	}
}

static void
watchlater_ready(void *arg)
{
	struct watchlater *w = arg;
	char buf[16384]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t len;

	while ((len = read(w->ifd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (void *)p;
			struct wdir *d = NULL;

			p += sizeof(*ev) + ev->len;
			if (ev->mask & IN_Q_OVERFLOW) {
				check_all(w, false);
				continue;
			}
			for (size_t i = 0; i < w->n_dirs && d == NULL; i++)
				if (w->dirs[i].wd == ev->wd)
					d = &w->dirs[i];
			if (d == NULL || ev->len == 0)
				continue;
			if (d->gitdir && strcmp(ev->name, "index") == 0 &&
			    (ev->mask & (IN_MOVED_TO | IN_CLOSE_WRITE))) {
				/* d may move: check_gitlinks adds dirs. */
				size_t at = (size_t)(d - w->dirs);

				check_gitlinks(w, &w->dirs[at]);
				continue;
			}
			if (!(ev->mask & (IN_CREATE | IN_MOVED_TO)))
				continue;
			for (size_t k = 0; k < d->n_names; k++)
				if (d->names[k].move &&
				    strcmp(d->names[k].name, ev->name) == 0)
					move_aside(w, d->fd, d->path, ev->name,
						   d->names[k].reader);
		}
	}
}

/*
 * Who reads a missing path later, and whether it is moved aside: a new
 * .envrc is not (direnv refuses to load a new or changed .envrc until
 * `direnv allow`; what it sources is loaded without asking).
 */
static const char *
missing_reader(const char *project, const char *path, bool *move)
{
	static const struct {
		const char *name, *reader;
	} top[] = {
		{ ".envrc", "direnv" },
		{ ".mcp.json", "an MCP client (an editor or an agent)" },
		{ "opencode.json", "opencode" },
		{ "opencode.jsonc", "opencode" },
		{ ".opencode", "opencode" },
		{ ".vscode", "VS Code" },
		{ ".idea", "a JetBrains IDE" },
	};
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash != NULL ? (size_t)(slash - path) : 0;

	*move = true;
	if (strstr(path, "/.git/") != NULL || !path_under(path, project))
		return "git";
	if (dir_len == strlen(project) && strncmp(path, project, dir_len) == 0)
		for (size_t i = 0; i < ARRAY_SIZE(top); i++)
			if (strcmp(slash + 1, top[i].name) == 0) {
				*move = strcmp(top[i].name, ".envrc") != 0;
				return top[i].reader;
			}
	return "direnv (.envrc loads it)";
}

/*
 * The kernel frees an inotify instance with marks after an SRCU grace
 * period, which the close(2) of its last reference (or the exit of its
 * last holder) waits for: about 15 ms measured on 6.18, which would be
 * added to every run.  A helper holds a second reference and nothing
 * else, and takes that wait when the monitor lets it go (closing the
 * pipe it reads; its death does too).  It shares this process's memory
 * (CLONE_VM: no page table copied) and runs system calls alone.  Made
 * before any namespace, since a process cannot fork into a pid
 * namespace whose pid 1 is gone.
 */
struct holder {
	int ifd, wait_fd;
};

static char holder_stack[16384] __attribute__((aligned(16)));

static int
holder_main(void *arg)
{
	const struct holder *h = arg;
	char b;

	syscall(SYS_dup3, h->ifd, 0, 0);
	syscall(SYS_dup3, h->wait_fd, 1, 0);
	syscall(SYS_close_range, 2, ~0U, 0);
	while (syscall(SYS_read, 1, &b, 1) < 0 && errno == EINTR)
		;
	syscall(SYS_exit, 0);
	return 0;
}

/* Start the holder of w->ifd; -1 in w->release when it cannot run (then
 * the monitor waits itself). */
static void
holder_start(struct watchlater *w)
{
	/* Static: the helper reads it after this frame is gone. */
	static struct holder h;
	int p[2];

	w->release = -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	h = (struct holder){ .ifd = w->ifd, .wait_fd = p[0] };
	if (clone(holder_main, holder_stack + sizeof(holder_stack),
		  CLONE_VM | SIGCHLD, &h) < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	close(p[0]);
	w->release = p[1];
}

/* Open path (absolute, the user's layout at the start) as a root. */
static void
root_add(struct watchlater *w, const char *path)
{
	const char *rel;
	int fd;

	if (w->n_roots >= WATCHLATER_MAX_ROOTS || root_of(w, path, &rel) >= 0)
		return;
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	w->roots[w->n_roots++] =
		(struct root){ .fd = fd, .path = xstrdup(path) };
}

/* The directory path (under a root) as a watched directory, or NULL. */
static struct wdir *
dir_at(struct watchlater *w, const char *path, size_t *root)
{
	const char *rel;
	ssize_t r = root_of(w, path, &rel);
	struct stat st;
	struct wdir *d;
	int fd;

	if (r < 0)
		return NULL;
	*root = (size_t)r;
	fd = open_beneath(w->roots[r].fd, rel, true);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return NULL;
	}
	if ((d = wdir_find(w, &st)) != NULL) {
		close(fd);
		return d;
	}
	return wdir_add(w, fd, &st, path);
}

/* A missing path: its directory watched for it, or, when that directory
 * is missing too, looked at after the run. */
static void
watch_missing(struct watchlater *w, const char *project, const char *path)
{
	_cleanup_free_ char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	const char *rel;
	struct wdir *d;
	size_t root;
	bool move;
	const char *reader = missing_reader(project, path, &move);
	ssize_t r = root_of(w, path, &rel);

	if (slash == NULL || slash == dir || r < 0 || *rel == '\0')
		return;
	*slash = '\0';
	if ((d = dir_at(w, dir, &root)) != NULL) {
		wdir_name(d, slash + 1, reader, move);
		return;
	}
	w->unwatched = xreallocarray(w->unwatched, w->n_unwatched + 1,
				     sizeof(*w->unwatched));
	w->unwatched[w->n_unwatched++] =
		(struct unwatched){ .root = (size_t)r,
				    .rel = xstrdup(rel),
				    .path = xstrdup(path),
				    .reader = reader,
				    .move = move };
}

/* The object id length of the repository at gitdir (its config, or the
 * common directory's). */
static size_t
repo_hash_len(const char *gitdir, const char *common)
{
	const char *dirs[] = { common, gitdir };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		_cleanup_free_ char *path = NULL, *text = NULL;
		_cleanup_close_ int fd = -1;

		if (dirs[i] == NULL)
			continue;
		path = xasprintf("%s/config", dirs[i]);
		fd = fd_open_regular(AT_FDCWD, path, O_NOFOLLOW);
		if (fd >= 0 && fd_read_all(fd, 1 << 20, &text, NULL) == 0)
			return gitguard_hash_len(text);
	}
	return GITGUARD_SHA1_LEN;
}

/* The repository: its directory watched (the index), the checkouts of
 * its gitlinks recorded as they are at the start. */
static void
watch_repository(struct watchlater *w, const char *gitdir)
{
	_cleanup_strv_ char **links = NULL;
	struct stat st;
	struct wdir *d;
	size_t root;

	if ((d = dir_at(w, gitdir, &root)) == NULL)
		return;
	d->gitdir = true;
	/* The start: a checkout that has its .git now is the user's. */
	links = index_links(w, d->fd, d->path);
	for (char **l = links; l != NULL && *l != NULL; l++) {
		_cleanup_close_ int fd = open_beneath(w->roots[0].fd, *l, true);

		if (fd >= 0 && fstat(fd, &st) == 0)
			protect_add(w, &st);
		if (fd >= 0 &&
		    fstatat(fd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0)
			protect_add(w, &st);
	}
}

int
watchlater_start(const char *project, const struct gitguard *git,
		 const struct gitguard *later, struct watchlater **out,
		 char **cause)
{
	struct watchlater *w = xcalloc(1, sizeof(*w));
	_cleanup_free_ char *gitdir = NULL, *objects = NULL, *common = NULL;
	const struct gitguard *g[] = { git, later };
	struct stat st;

	*out = NULL;
	w->release = -1;
	w->hash_len = GITGUARD_SHA1_LEN;
	w->ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (w->ifd < 0) {
		int r = -errno;

		*cause = xasprintf("cannot watch for files run later: "
				   "inotify: %s",
				   strerror(-r));
		watchlater_free(w);
		return r;
	}
	root_add(w, project);
	if (w->n_roots == 0 || fstat(w->roots[0].fd, &st) < 0) {
		*cause = xasprintf("cannot open the project %s to watch it",
				   project);
		watchlater_free(w);
		return -ENOENT;
	}
	protect_add(w, &st);
	/* The repository: .git, or the one a .git file names (a linked
	 * worktree's index is in <common>/worktrees/<name>), and the
	 * common directory, as roots of their own when outside. */
	if (git != NULL)
		objects = gitguard_objects(project, &gitguard_fs_real, &gitdir);
	if (objects != NULL) {
		char *slash = strrchr(objects, '/');

		common = xstrndup(objects, (size_t)(slash - objects));
		if (stat(gitdir, &st) == 0 && S_ISDIR(st.st_mode)) {
			root_add(w, gitdir);
			root_add(w, common);
		}
	}
	/* Never moved: the repository, what gitguard pins or protects. */
	for (size_t i = 0; git != NULL && i < git->n; i++) {
		if (lstat(git->v[i].path, &st) == 0)
			protect_add(w, &st);
		if (stat(git->v[i].path, &st) == 0)
			protect_add(w, &st);
	}
	if (gitdir != NULL && stat(gitdir, &st) == 0 && S_ISDIR(st.st_mode)) {
		protect_add(w, &st);
		w->hash_len = repo_hash_len(gitdir, common);
		watch_repository(w, gitdir);
	}
	for (size_t i = 0; i < ARRAY_SIZE(g); i++)
		for (char **m = g[i] != NULL ? g[i]->missing : NULL;
		     m != NULL && *m != NULL; m++)
			watch_missing(w, project, *m);
	if (w->failures != NULL) {
		/* Before the command runs: a refusal, not a report. */
		_cleanup_free_ char *why = strv_join(w->failures, "; ");

		*cause = xasprintf("cannot watch for files run later: %s; "
				   "llwrap refuses to run what it could not "
				   "check afterwards",
				   why);
		watchlater_free(w);
		return -EIO;
	}
	if (w->n_dirs == 0 && w->n_unwatched == 0) {
		watchlater_free(w);
		return 0;
	}
	holder_start(w);
	*out = w;
	return 0;
}

void
watchlater_child(struct watchlater *w)
{
	if (w == NULL)
		return;
	close(w->ifd);
	close(w->release);
	w->ifd = w->release = -1;
}

void
watchlater_parent(struct watchlater *w)
{
	struct rlimit rl;

	if (w == NULL)
		return;
	/* Its own descriptors only, after the fork: the command keeps the
	 * limit it was given. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	monitor_watch(w->ifd, watchlater_ready, w);
}

void
watchlater_finish(struct watchlater *w)
{
	if (w == NULL || w->ifd < 0)
		return;
	monitor_unwatch(w->ifd);
	watchlater_ready(w);
	check_all(w, true);
}

char **
watchlater_report(const struct watchlater *w)
{
	return w != NULL ? strv_copy(w->lines) : NULL;
}

char **
watchlater_failures(const struct watchlater *w)
{
	return w != NULL ? strv_copy(w->failures) : NULL;
}

void
watchlater_free(struct watchlater *w)
{
	if (w == NULL)
		return;
	for (size_t i = 0; i < w->n_dirs; i++) {
		close(w->dirs[i].fd);
		free(w->dirs[i].path);
		for (size_t k = 0; k < w->dirs[i].n_names; k++)
			free(w->dirs[i].names[k].name);
		free(w->dirs[i].names);
	}
	free(w->dirs);
	for (size_t i = 0; i < w->n_unwatched; i++) {
		free(w->unwatched[i].rel);
		free(w->unwatched[i].path);
	}
	free(w->unwatched);
	for (size_t i = 0; i < w->n_roots; i++) {
		close(w->roots[i].fd);
		free(w->roots[i].path);
	}
	if (w->ifd >= 0)
		close(w->ifd);
	if (w->release >= 0)
		close(w->release);
	free(w->protect);
	strv_free(w->done);
	strv_free(w->lines);
	strv_free(w->failures);
	free(w);
}
