/*
 * The watch on files run later (see watchlater.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/random.h>
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
	bool move;   /* false: named after the run, left (a new .envrc) */
	bool prefix; /* every new name that starts with name (.envrc.*) */
	/* Not a file: a watched directory of that name was moved or removed
	 * from here; one made in its place is watched again (dir_again). */
	bool rewatch;
	/* .git in a project that had none: a repository the command makes
	 * is watched and checked (newrepo_check), not moved aside whole. */
	bool newrepo;
};

/* A watched directory. */
struct wdir {
	int wd;
	int fd; /* O_PATH, opened beneath a root */
	struct wkey key;
	char *path; /* for messages */
	struct wname *names;
	size_t n_names;
	bool gitdir;  /* a repository: its index is watched too */
	bool newrepo; /* ... one the command made: its config and hooks too */
	bool hooks;   /* the hooks/ of such a one: every new hook moved */
	bool changed; /* gitdir: its index changed (checked once a batch) */
	/* gitdir: its work tree (the project, or a submodule's checkout),
	 * where the gitlinks of its index are. */
	int wt_fd;
	char *wt_path;
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
	bool watch_newrepo; /* the project had no .git at the start */
	char **done;	    /* what was reported already, as named */
	size_t n_moved;	    /* moves made (the report names the first ones) */
	size_t n_failures;  /* failures (the report names the first ones) */

	char **lines;	 /* the report */
	char **failures; /* what could not be checked */
};

static void note_left(struct watchlater *w, int dirfd, const char *dirpath,
		      const char *name);
static struct wdir *dir_at(struct watchlater *w, const char *path,
			   size_t *root);

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

/* A failure of the check, said once; past WATCHLATER_MAX_LINES of them,
 * counted. */
static void
fail(struct watchlater *w, char *why)
{
	if (w->n_failures >= WATCHLATER_MAX_LINES ||
	    strv_contains(w->failures, why)) {
		free(why);
	} else {
		strv_push_take(&w->failures, why);
	}
	w->n_failures++;
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
					       IN_CLOSE_WRITE | IN_MOVE_SELF |
					       IN_DELETE_SELF | IN_ONLYDIR);
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
			    .wt_fd = -1,
			    .key = { .dev = st->st_dev, .ino = st->st_ino },
			    .path = xstrdup(path) };
	return d;
}

static struct wname *
wdir_name(struct wdir *d, const char *name, const char *reader, bool move)
{
	for (size_t i = 0; i < d->n_names; i++)
		if (strcmp(d->names[i].name, name) == 0)
			return &d->names[i];
	d->names = xreallocarray(d->names, d->n_names + 1, sizeof(*d->names));
	d->names[d->n_names] = (struct wname){ .name = xstrdup(name),
					       .reader = reader,
					       .move = move };
	return &d->names[d->n_names++];
}

/* Whether a name in a watched directory is the wname n: its own, or one
 * starting with it (never one llwrap's own move made). */
static bool
wname_is(const struct wname *n, const char *name)
{
	if (!n->prefix)
		return strcmp(n->name, name) == 0;
	return strncmp(n->name, name, strlen(n->name)) == 0 &&
	       strstr(name, ".llwrap-blocked-") == NULL;
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
 * command: rename it aside, to NAME.llwrap-blocked-TIME-RANDOM (a name
 * the command cannot guess ahead to take), never over anything, unless it
 * is one of the protected paths.  Each move is reported (at most
 * WATCHLATER_MAX_LINES lines, then counted); one that cannot be made is
 * a failure every time, whatever happened to that name before.
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
	int e = EEXIST;

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
	for (int i = 0; i < 8 && e == EEXIST; i++) {
		uint32_t rnd = 0;
		_cleanup_free_ char *to = NULL;

		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd)) {
			e = errno;
			break;
		}
		to = xasprintf("%s.llwrap-blocked-%lld-%08x", name,
			       (long long)now, (unsigned)rnd);
		if (syscall(SYS_renameat2, dirfd, name, dirfd, to,
			    RENAME_NOREPLACE) == 0) {
			_cleanup_free_ char *dir = text_shown(dirpath);
			_cleanup_free_ char *as = text_shown(to);

			if (++w->n_moved > WATCHLATER_MAX_LINES)
				return;
			strv_push_take(
				&w->lines,
				xasprintf("llwrap: the command created %s, "
					  "which %s reads later, outside the "
					  "sandbox: moved aside to %s/%s%s; "
					  "review it before putting it back",
					  shown, reader, dir, as, age));
			return;
		}
		e = errno;
	}
	if (e == ENOENT)
		return; /* gone meanwhile */
	fail(w, xasprintf("the command created %s, which %s reads later, and "
			  "llwrap could not move it aside (%s)",
			  shown, reader, strerror(e)));
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
						 NULL)) == 0) {
			size_t n = strv_length(all), m = strv_length(more);

			all = xreallocarray(all, n + m + 1, sizeof(char *));
			memcpy(all + n, more, (m + 1) * sizeof(char *));
			free(steal_pointer(&more));
		}
	}
	if (r == -ENOENT && file == shared) {
		r = -EINVAL;
	} else if (r == -ENOENT) {
		return links;
	}
	if (r < 0) {
		_cleanup_free_ char *shown = text_shown(gitdir);

		/* Host git may read what llwrap cannot, and go into the
		 * submodules it names: the index goes aside (git reset
		 * makes a new one from HEAD), and the run fails. */
		if (r == -EINVAL || r == -E2BIG)
			move_aside(w, gitdir_fd, gitdir, file,
				   "git (an index llwrap cannot read)");
		fail(w, xasprintf("cannot read the git index %s/%s: %s", shown,
				  file,
				  r == -EINVAL	? "not an index llwrap can read"
				  : r == -E2BIG ? "more submodule entries than "
						  "llwrap reads"
						: strerror(-r)));
		strv_free(links);
		return NULL;
	}
	for (char **l = all; *l != NULL; l++) {
		/* Git would not write it, and host git may still go into
		 * what it names (./sub, sub/): a failure, and what it names
		 * is checked as written, beneath the project, where nothing
		 * protected is ever moved (a gitlink "." is the project). */
		if (!gitguard_verify_path(*l)) {
			_cleanup_free_ char *shown = text_shown(*l);

			fail(w, xasprintf("the command wrote a submodule entry "
					  "'%s' into the git index, a path git "
					  "itself refuses to write",
					  shown));
		}
	}
	strv_free(links);
	return steal_pointer(&all);
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
	/* gd may move (wdir_add): its work tree, as it is now. */
	_cleanup_free_ char *wt_path =
		xstrdup(gd->wt_path != NULL ? gd->wt_path : gd->path);
	_cleanup_close_ int wt_fd =
		gd->wt_fd >= 0 ? fcntl(gd->wt_fd, F_DUPFD_CLOEXEC, 3) : -1;

	if (wt_fd < 0) {
		_cleanup_free_ char *shown = text_shown(wt_path);

		fail(w, xasprintf("cannot look at the checkouts of the "
				  "repository %s: %s",
				  shown,
				  gd->wt_fd < 0 ? "no work tree known"
						: strerror(errno)));
		return;
	}
	for (char **l = links; l != NULL && *l != NULL; l++) {
		_cleanup_free_ char *path = xasprintf("%s/%s", wt_path, *l);
		struct stat st;
		struct wdir *d;
		int fd = open_beneath(wt_fd, *l, true);

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

/* The names of d (the files to move, the repository's index) looked at
 * in the directory dirfd. */
static void
names_at(struct watchlater *w, int dirfd, const char *path,
	 const struct wname *names, size_t n, bool at_end)
{
	for (size_t k = 0; k < n; k++) {
		if (names[k].rewatch || names[k].prefix || names[k].newrepo)
			continue;
		if (names[k].move)
			move_aside(w, dirfd, path, names[k].name,
				   names[k].reader);
		else if (at_end)
			note_left(w, dirfd, path, names[k].name);
	}
}

/* Every new name of the directory dirfd that a prefix name of its
 * matches (.envrc.*): moved aside, unless it was there at the start. */
static void
prefix_scan(struct watchlater *w, int dirfd, const char *path,
	    const struct wname *names, size_t n)
{
	DIR *dir = NULL;
	struct dirent *e;
	int fd;

	for (size_t k = 0; k < n && dir == NULL; k++)
		if (names[k].prefix &&
		    (fd = openat(dirfd, ".",
				 O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0 &&
		    (dir = fdopendir(fd)) == NULL)
			close(fd);
	if (dir == NULL)
		return;
	while ((e = readdir(dir)) != NULL)
		for (size_t k = 0; k < n; k++)
			if (names[k].prefix && wname_is(&names[k], e->d_name))
				move_aside(w, dirfd, path, e->d_name,
					   names[k].reader);
	closedir(dir);
}

/*
 * The directory the i-th watched directory's path names now is another
 * than it (the command moved or removed it, and may have made another
 * there, DESIGN.md §15): that one is watched too, for the same names,
 * which are looked at now.  When nothing is there yet, its parent is
 * watched for one to be made.
 */
static void
dir_again(struct watchlater *w, size_t i, bool at_end)
{
	_cleanup_free_ char *path = xstrdup(w->dirs[i].path);
	_cleanup_free_ char *shown = NULL;
	const char *rel;
	ssize_t r = root_of(w, path, &rel);
	struct stat st;
	struct wdir *d;
	size_t at;
	int fd;

	if (r < 0 || *rel == '\0')
		return;
	fd = open_beneath(w->roots[r].fd, rel, true);
	if (fd == -ENOENT) {
		/* Not (yet) there: its parent tells when it is. */
		char *slash = strrchr(path, '/');
		size_t root;

		*slash = '\0';
		if ((d = dir_at(w, path, &root)) != NULL) {
			struct wname *n = wdir_name(d, slash + 1, NULL, false);

			n->rewatch = true;
		}
		return;
	}
	if (fd < 0) {
		shown = text_shown(path);
		fail(w,
		     xasprintf("cannot watch %s again (the command moved it): "
			       "%s",
			       shown, strerror(-fd)));
		return;
	}
	if (fstat(fd, &st) < 0 || (d = wdir_find(w, &st)) == &w->dirs[i]) {
		close(fd);
		return;
	}
	if (d == NULL && (d = wdir_add(w, fd, &st, path)) == NULL)
		return;
	if (d->fd != fd)
		close(fd);
	/* wdir_add may have moved the array. */
	at = (size_t)(d - w->dirs);
	for (size_t k = 0; k < w->dirs[i].n_names; k++) {
		struct wname *from = &w->dirs[i].names[k];
		struct wname *n = wdir_name(&w->dirs[at], from->name,
					    from->reader, from->move);

		n->prefix = from->prefix;
		n->rewatch = from->rewatch;
		n->newrepo = from->newrepo;
	}
	/* What the old one was, the new one is: a repository (with its
	 * work tree), a new repository, a new repository's hooks. */
	if (w->dirs[i].gitdir && !w->dirs[at].gitdir) {
		w->dirs[at].gitdir = true;
		w->dirs[at].wt_fd = fcntl(w->dirs[i].wt_fd, F_DUPFD_CLOEXEC, 3);
		w->dirs[at].wt_path = xstrdup(w->dirs[i].wt_path);
	}
	w->dirs[at].newrepo |= w->dirs[i].newrepo;
	w->dirs[at].hooks |= w->dirs[i].hooks;
	names_at(w, w->dirs[at].fd, w->dirs[at].path, w->dirs[at].names,
		 w->dirs[at].n_names, at_end);
	prefix_scan(w, w->dirs[at].fd, w->dirs[at].path, w->dirs[at].names,
		    w->dirs[at].n_names);
	if (w->dirs[at].gitdir)
		w->dirs[at].changed = true;
}

/* A watched directory's name made again where one was moved from. */
static void
rewatch(struct watchlater *w, const struct wdir *parent, const char *name)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", parent->path, name);

	for (size_t i = 0; i < w->n_dirs; i++)
		if (strcmp(w->dirs[i].path, path) == 0) {
			dir_again(w, i, false);
			return;
		}
}

/* A hook in the hooks/ of a repository the command made: anything but
 * git init's samples (which git never runs). */
static bool
is_hook(const char *name)
{
	size_t n = strlen(name);

	return strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
	       strstr(name, ".llwrap-blocked-") == NULL &&
	       (n < 7 || strcmp(name + n - 7, ".sample") != 0);
}

/* The new repository's config: moved aside when it sets what could run a
 * command in the user's next git (gitguard_config_unsafe). */
static void
config_check(struct watchlater *w, int dirfd, const char *dir)
{
	_cleanup_free_ char *text = NULL, *unsafe = NULL, *shown = NULL;
	_cleanup_free_ char *path = xasprintf("%s/config", dir);
	_cleanup_free_ char *reader = NULL;
	size_t len;
	int r = index_read(dirfd, "config", &text, &len);

	if (r == -ENOENT)
		return;
	if (r < 0 || strlen(text) != len) {
		shown = text_shown(path);
		fail(w,
		     xasprintf("cannot read %s, the configuration of a "
			       "repository the command made: %s",
			       shown, r < 0 ? strerror(-r) : "it holds a NUL"));
		return;
	}
	if ((unsafe = gitguard_config_unsafe(text)) == NULL)
		return;
	shown = text_shown(unsafe);
	reader = xasprintf("git (it sets %s)", shown);
	move_aside(w, dirfd, dir, "config", reader);
}

static void
newrepo_config(struct watchlater *w, const struct wdir *gd)
{
	config_check(w, gd->fd, gd->path);
}

/* The hooks of the new repository: each one moved aside. */
static void
newrepo_hooks(struct watchlater *w, int hooks_fd, const char *path)
{
	int fd = openat(hooks_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (dir == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(dir)) != NULL)
		if (is_hook(e->d_name))
			move_aside(w, hooks_fd, path, e->d_name,
				   "git (a hook of a repository the command "
				   "made)");
	closedir(dir);
}

/* hooks/ of the new repository gd (at index at), watched from now. */
static void
newrepo_watch_hooks(struct watchlater *w, size_t at)
{
	_cleanup_free_ char *path = xasprintf("%s/hooks", w->dirs[at].path);
	struct stat st;
	struct wdir *h;
	int fd = open_beneath(w->dirs[at].fd, "hooks", true);

	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || ((h = wdir_find(w, &st)) == NULL &&
				   (h = wdir_add(w, fd, &st, path)) == NULL)) {
		return;
	}
	if (h->fd != fd)
		close(fd);
	h->hooks = true;
	newrepo_hooks(w, h->fd, h->path);
}

/*
 * The project had no repository and the command made one (git init): it
 * may, but nothing in it may run a command in the user's next git there.
 * Its directory is watched as the project's repository is (the index's
 * gitlinks, a new commondir or config.worktree moved aside), and its
 * config and hooks are checked as they change and at the end.  A .git
 * that is not a directory (a file naming another repository, a link) is
 * moved aside at once.
 */
static void
newrepo_check(struct watchlater *w, bool at_end)
{
	const struct root *proj = &w->roots[0];
	struct stat st;
	struct wdir *gd;
	size_t at;
	int fd;

	if (fstatat(proj->fd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		move_aside(w, proj->fd, proj->path, ".git",
			   "git (a repository the command named)");
		return;
	}
	fd = open_beneath(proj->fd, ".git", true);
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return;
	}
	if ((gd = wdir_find(w, &st)) == NULL) {
		_cleanup_free_ char *path = xasprintf("%s/.git", proj->path);

		if ((gd = wdir_add(w, fd, &st, path)) == NULL)
			return;
		gd->gitdir = gd->newrepo = true;
		gd->wt_fd = fcntl(proj->fd, F_DUPFD_CLOEXEC, 3);
		gd->wt_path = xstrdup(proj->path);
		wdir_name(gd, "commondir", "git", true);
		wdir_name(gd, "config.worktree", "git", true);
	} else {
		close(fd);
	}
	at = (size_t)(gd - w->dirs);
	newrepo_config(w, &w->dirs[at]);
	newrepo_watch_hooks(w, at);
	names_at(w, w->dirs[at].fd, w->dirs[at].path, w->dirs[at].names,
		 w->dirs[at].n_names, at_end);
	w->dirs[at].changed = true;
}

/*
 * The repositories under a repository's modules/ (each submodule's, at
 * modules/NAME, NAME maybe with slashes) that were not there at the
 * start: git submodule update --init takes one it finds there for the
 * submodule's, and runs what its configuration and hooks say.  Each is
 * checked as a repository the command made (its config, its hooks), at
 * most MODULES_MAX directories, MODULES_DEPTH deep; more fails the run.
 */
#define MODULES_MAX   4096
#define MODULES_DEPTH 8

static void
modules_walk(struct watchlater *w, int dirfd, const char *dir, int depth,
	     size_t *seen)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		_cleanup_free_ char *path = NULL;
		_cleanup_close_ int sub = -1;
		struct stat st;
		bool repo;

		if (strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0 ||
		    strstr(e->d_name, ".llwrap-blocked-") != NULL)
			continue;
		if (++*seen > MODULES_MAX || depth > MODULES_DEPTH) {
			_cleanup_free_ char *shown = text_shown(dir);

			fail(w, xasprintf("more submodule repositories under "
					  "%s than llwrap looks at",
					  shown));
			break;
		}
		sub = open_beneath(dirfd, e->d_name, true);
		if (sub < 0 || fstat(sub, &st) < 0)
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		repo = fstatat(sub, "HEAD", &(struct stat){ 0 },
			       AT_SYMLINK_NOFOLLOW) == 0 ||
		       fstatat(sub, "config", &(struct stat){ 0 },
			       AT_SYMLINK_NOFOLLOW) == 0;
		if (!repo) {
			modules_walk(w, sub, path, depth + 1, seen);
			continue;
		}
		if (!key_in(w->protect, w->n_protect, &st)) {
			_cleanup_close_ int hooks =
				open_beneath(sub, "hooks", true);
			_cleanup_free_ char *hp = xasprintf("%s/hooks", path);

			config_check(w, sub, path);
			if (hooks >= 0)
				newrepo_hooks(w, hooks, hp);
		}
		{
			_cleanup_close_ int mods =
				open_beneath(sub, "modules", true);
			_cleanup_free_ char *mp = xasprintf("%s/modules", path);

			if (mods >= 0)
				modules_walk(w, mods, mp, depth + 1, seen);
		}
	}
	closedir(d);
}

static void
modules_check(struct watchlater *w, const struct wdir *gd)
{
	_cleanup_free_ char *path = xasprintf("%s/modules", gd->path);
	_cleanup_close_ int fd = open_beneath(gd->fd, "modules", true);
	size_t seen = 0;

	if (fd >= 0)
		modules_walk(w, fd, path, 0, &seen);
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
	/* Each directory as watched, and what its path names now. */
	for (size_t i = 0; i < w->n_dirs; i++) {
		if (w->dirs[i].fd >= 0) {
			names_at(w, w->dirs[i].fd, w->dirs[i].path,
				 w->dirs[i].names, w->dirs[i].n_names, at_end);
			prefix_scan(w, w->dirs[i].fd, w->dirs[i].path,
				    w->dirs[i].names, w->dirs[i].n_names);
		}
		dir_again(w, i, at_end);
	}
	if (w->watch_newrepo)
		newrepo_check(w, at_end);
	for (size_t i = 0; i < w->n_dirs; i++)
		if (w->dirs[i].gitdir)
			check_gitlinks(w, &w->dirs[i]);
	if (!at_end)
		return;
	for (size_t i = 0; i < w->n_dirs; i++)
		if (w->dirs[i].gitdir)
			modules_check(w, &w->dirs[i]);
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
			/* The reader would follow the link, where the watch
			 * may not go: a failure. */
			fail(w, xasprintf("%s, which %s reads later, is now "
					  "reached through a symbolic link the "
					  "command made",
					  shown, u->reader));
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
	bool overflow = false;
	ssize_t len;

	while ((len = read(w->ifd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (void *)p;
			size_t i;

			p += sizeof(*ev) + ev->len;
			if (ev->mask & IN_Q_OVERFLOW) {
				overflow = true;
				continue;
			}
			for (i = 0; i < w->n_dirs && w->dirs[i].wd != ev->wd;
			     i++)
				;
			if (i == w->n_dirs)
				continue;
			if (ev->mask & (IN_MOVE_SELF | IN_DELETE_SELF)) {
				dir_again(w, i, false);
				continue;
			}
			if (ev->len == 0)
				continue;
			/* The index: read once for the whole batch (a
			 * command writing it in a loop costs one read a
			 * wake-up, not one an event). */
			if (w->dirs[i].gitdir &&
			    strcmp(ev->name, "index") == 0 &&
			    (ev->mask & (IN_MOVED_TO | IN_CLOSE_WRITE))) {
				w->dirs[i].changed = true;
				continue;
			}
			if (w->dirs[i].newrepo &&
			    (ev->mask & (IN_MOVED_TO | IN_CLOSE_WRITE)) &&
			    strcmp(ev->name, "config") == 0) {
				newrepo_config(w, &w->dirs[i]);
				continue;
			}
			if (!(ev->mask & (IN_CREATE | IN_MOVED_TO)))
				continue;
			if (w->dirs[i].newrepo &&
			    strcmp(ev->name, "hooks") == 0) {
				newrepo_watch_hooks(w, i);
				continue;
			}
			if (w->dirs[i].hooks) {
				if (is_hook(ev->name))
					move_aside(
						w, w->dirs[i].fd,
						w->dirs[i].path, ev->name,
						"git (a hook of a repository "
						"the command made)");
				continue;
			}
			for (size_t k = 0; k < w->dirs[i].n_names; k++) {
				const struct wname *n = &w->dirs[i].names[k];

				if (!wname_is(n, ev->name))
					continue;
				if (n->newrepo)
					newrepo_check(w, false);
				else if (n->rewatch)
					rewatch(w, &w->dirs[i], ev->name);
				else if (n->move)
					move_aside(w, w->dirs[i].fd,
						   w->dirs[i].path, ev->name,
						   n->reader);
				break;
			}
		}
	}
	if (overflow) {
		check_all(w, false);
		return;
	}
	for (size_t i = 0; i < w->n_dirs; i++)
		if (w->dirs[i].changed) {
			w->dirs[i].changed = false;
			check_gitlinks(w, &w->dirs[i]);
		}
}

/*
 * Who reads a missing path later, and whether it is moved aside: a new
 * .envrc is not (direnv refuses to load a new or changed .envrc until
 * `direnv allow`; what it sources is loaded without asking).
 */
static const char *
missing_reader(const char *project, const char *path, bool git, bool *move)
{
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash != NULL ? (size_t)(slash - path) : 0;

	*move = true;
	if (git)
		return "git";
	if (dir_len == strlen(project) &&
	    strncmp(path, project, dir_len) == 0) {
		*move = strcmp(slash + 1, ".envrc") != 0;
		return gitguard_later_reader(path);
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
watch_missing(struct watchlater *w, const char *project, const char *path,
	      bool git)
{
	_cleanup_free_ char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	const char *rel;
	struct wdir *d;
	size_t root;
	bool move;
	const char *reader = missing_reader(project, path, git, &move);
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
watch_repository(struct watchlater *w, const char *gitdir, int wt_fd,
		 const char *wt_path)
{
	_cleanup_strv_ char **links = NULL;
	struct stat st;
	struct wdir *d;
	size_t root;

	if ((d = dir_at(w, gitdir, &root)) == NULL || d->gitdir)
		return;
	d->gitdir = true;
	d->wt_fd = fcntl(wt_fd, F_DUPFD_CLOEXEC, 3);
	d->wt_path = xstrdup(wt_path);
	/* The start: a checkout that has its .git now is the user's. */
	links = index_links(w, d->fd, d->path);
	for (char **l = links; l != NULL && *l != NULL; l++) {
		_cleanup_close_ int fd = open_beneath(wt_fd, *l, true);

		if (fd >= 0 && fstat(fd, &st) == 0)
			protect_add(w, &st);
		if (fd >= 0 &&
		    fstatat(fd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0)
			protect_add(w, &st);
	}
}

/*
 * The repositories of the submodules checked out at the start (their
 * .git files, as gitguard found them from .gitmodules, nested ones
 * included): each index is watched as the project's is, its gitlinks
 * beneath its checkout, so that a nested repository registered inside a
 * submodule (which host git status goes into) is moved aside too.
 */
static void
watch_submodules(struct watchlater *w, const char *project,
		 const struct gitguard *git)
{
	_cleanup_free_ char *own = xasprintf("%s/.git", project);

	for (size_t i = 0; i < git->n; i++) {
		const char *f = git->v[i].path;
		size_t n = strlen(f);
		_cleanup_free_ char *text = NULL, *checkout = NULL;
		_cleanup_free_ char *gitdir = NULL;
		_cleanup_close_ int fd = -1;
		const char *rel, *line;

		if (git->v[i].kind != GITGUARD_RO || n < 5 ||
		    strcmp(f + n - 5, "/.git") != 0 || strcmp(f, own) == 0 ||
		    root_of(w, f, &rel) != 0)
			continue;
		text = gitguard_fs_real.read_file(NULL, f);
		if (text == NULL || strncmp(text, "gitdir:", 7) != 0)
			continue;
		line = text + 7 + strspn(text + 7, " \t");
		text[strcspn(text, "\r\n")] = '\0';
		checkout = xstrndup(f, n - 5);
		if (line[0] == '/') {
			gitdir = path_normalise(line);
		} else {
			_cleanup_free_ char *joined =
				xasprintf("%s/%s", checkout, line);

			gitdir = path_normalise(joined);
		}
		fd = open_beneath(w->roots[0].fd,
				  checkout + strlen(project) + 1, true);
		if (fd >= 0)
			watch_repository(w, gitdir, fd, checkout);
	}
}

/* What opencode loads from a project's .opencode/ and runs or obeys. */
static const char *const opencode_loads[] = {
	"plugin",	"plugins",	"tool",		 "tools",
	"agent",	"agents",	"command",	 "commands",
	"mode",		"modes",	"opencode.json", "opencode.jsonc",
	"package.json", "node_modules",
};

/*
 * A directory that does not exist yet, whose names (n of them) are moved
 * aside if the command makes it: a placeholder (no descriptor) that
 * dir_again resolves, now, when its parent gets that name, and at the
 * end.
 */
static void
watch_pending(struct watchlater *w, const char *path, const char *const *names,
	      size_t n, const char *reader)
{
	struct wdir *d;

	w->dirs = xreallocarray(w->dirs, w->n_dirs + 1, sizeof(*w->dirs));
	d = &w->dirs[w->n_dirs++];
	*d = (struct wdir){
		.wd = -1, .fd = -1, .wt_fd = -1, .path = xstrdup(path)
	};
	for (size_t i = 0; i < n; i++)
		wdir_name(d, names[i], reader, true);
	dir_again(w, w->n_dirs - 1, false);
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
	/* Never moved: the repository, what gitguard pins or protects, the
	 * later-run files there were at the start. */
	for (size_t k = 0; k < ARRAY_SIZE(g); k++)
		for (size_t i = 0; g[k] != NULL && i < g[k]->n; i++) {
			if (lstat(g[k]->v[i].path, &st) == 0)
				protect_add(w, &st);
			if (stat(g[k]->v[i].path, &st) == 0)
				protect_add(w, &st);
		}
	if (gitdir != NULL && stat(gitdir, &st) == 0 && S_ISDIR(st.st_mode)) {
		protect_add(w, &st);
		w->hash_len = repo_hash_len(gitdir, common);
		watch_repository(w, gitdir, w->roots[0].fd, project);
		watch_submodules(w, project, git);
	}
	for (size_t i = 0; i < ARRAY_SIZE(g); i++)
		for (char **m = g[i] != NULL ? g[i]->missing : NULL;
		     m != NULL && *m != NULL; m++)
			watch_missing(w, project, *m, g[i] == git);
	/* What .envrc files source beside them (.envrc.local and the
	 * like, DESIGN.md §11): every new .envrc.* in the project. */
	if (later != NULL) {
		struct wdir *d;
		size_t root;

		if ((d = dir_at(w, project, &root)) != NULL)
			wdir_name(d, ".envrc.", "direnv (an .envrc loads it)",
				  true)
				->prefix = true;
	}
	/* .opencode/ is opencode's to make (its plans, a .gitignore): made
	 * inside, what opencode loads from it outside (plugins, tools,
	 * agents, commands, its configuration, the dependencies it
	 * installs for them) is moved aside. */
	if (later != NULL) {
		_cleanup_free_ char *oc = xasprintf("%s/.opencode", project);

		if (fstatat(w->roots[0].fd, ".opencode", &st,
			    AT_SYMLINK_NOFOLLOW) < 0 &&
		    errno == ENOENT)
			watch_pending(w, oc, opencode_loads,
				      ARRAY_SIZE(opencode_loads),
				      "opencode (it loads it from .opencode)");
	}
	/* No repository: one the command makes is checked. */
	if (git != NULL &&
	    fstatat(w->roots[0].fd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0 &&
	    errno == ENOENT) {
		struct wdir *d;
		size_t root;

		if ((d = dir_at(w, project, &root)) != NULL) {
			wdir_name(d, ".git", "git", false)->newrepo = true;
			w->watch_newrepo = true;
		}
	}
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
	char **v;

	if (w == NULL)
		return NULL;
	v = strv_copy(w->lines);
	if (w->n_moved > WATCHLATER_MAX_LINES)
		strv_push_take(&v,
			       xasprintf("llwrap: ... and %zu more files "
					 "made to run later were moved "
					 "aside the same way",
					 w->n_moved - WATCHLATER_MAX_LINES));
	return v;
}

char **
watchlater_failures(const struct watchlater *w)
{
	char **v;

	if (w == NULL || w->failures == NULL)
		return NULL;
	v = strv_copy(w->failures);
	if (w->n_failures > strv_length(w->failures))
		strv_push_take(&v, xasprintf("... and %zu more",
					     w->n_failures -
						     strv_length(w->failures)));
	return v;
}

void
watchlater_free(struct watchlater *w)
{
	if (w == NULL)
		return;
	for (size_t i = 0; i < w->n_dirs; i++) {
		close(w->dirs[i].fd);
		if (w->dirs[i].wt_fd >= 0)
			close(w->dirs[i].wt_fd);
		free(w->dirs[i].wt_path);
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
