/*
 * The watch on files run later (see watchlater.h): the watched
 * directories and names, the moves aside, the loop, the start and the
 * report.  The repository's checks (the index, a repository the command
 * made, modules/) are watchlater-git.c's; watchlater-int.h is what the
 * two share.  At some 1,000 lines (issue 26's bound) it is one concern,
 * the watch, whose parts share struct watchlater's state; its start
 * (the roots, the missing names: watchlater_start) is the part to split
 * off next if it grows.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
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
#include "watchlater-int.h"
#include "watchlater.h"
#include "xalloc.h"

static void note_left(struct watchlater *w, int dirfd, const char *dirpath,
		      const char *name);

bool
wl_key_in(const struct wkey *v, size_t n, const struct stat *st)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].dev == st->st_dev && v[i].ino == st->st_ino)
			return true;
	return false;
}

void
wl_protect_add(struct watchlater *w, const struct stat *st)
{
	if (wl_key_in(w->protect, w->n_protect, st))
		return;
	w->protect = xreallocarray(w->protect, w->n_protect + 1,
				   sizeof(*w->protect));
	w->protect[w->n_protect++] =
		(struct wkey){ .dev = st->st_dev, .ino = st->st_ino };
}

/* A failure of the check, said once; past WATCHLATER_MAX_LINES of them,
 * counted.  While the command runs, the sandbox is stopped at once, as
 * the timeout stops it (the process it runs under killed, the rest
 * ending with it): what could not be watched or checked then is what
 * the user's git, running meanwhile, could meet. */
void
wl_fail(struct watchlater *w, char *why)
{
	if (w->n_failures >= WATCHLATER_MAX_LINES ||
	    strv_contains(w->failures, why)) {
		free(why);
	} else {
		strv_push_take(&w->failures, why);
	}
	w->n_failures++;
	if (w->running && !w->stopped && w->child > 0) {
		w->stopped = true;
		kill(w->child, SIGKILL);
	}
}

/* rel beneath dirfd with flags: no symlink (the last component's
 * included), no mount crossed, never above it ("" is dirfd itself).  A
 * descriptor, or -errno. */
static int
open_beneath(int dirfd, const char *rel, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)flags | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	int fd = (int)syscall(SYS_openat2, dirfd, *rel != '\0' ? rel : ".",
			      &how, sizeof(how));

	return fd < 0 ? -errno : fd;
}

int
wl_open_beneath(int rootfd, const char *rel, bool dir)
{
	return open_beneath(rootfd, rel, O_PATH | (dir ? O_DIRECTORY : 0));
}

int
wl_open_listed(int dirfd, const char *rel)
{
	return open_beneath(dirfd, rel, O_RDONLY | O_DIRECTORY | O_NOCTTY);
}

int
wl_open_or_fail(struct watchlater *w, int dirfd, const char *rel,
		enum wl_open how, const char *path)
{
	int fd = how == WL_OPEN_LIST
			 ? wl_open_listed(dirfd, rel)
			 : wl_open_beneath(dirfd, rel, how == WL_OPEN_DIR);

	if (fd < 0 && fd != -ENOENT && fd != -ENOTDIR && fd != -ELOOP) {
		_cleanup_free_ char *shown = text_shown(path);

		wl_fail(w,
			xasprintf("cannot open %s: %s", shown, strerror(-fd)));
	}
	return fd;
}

int
wl_open_regular(int dirfd, const char *name, struct stat *st)
{
	int fd = open_beneath(dirfd, name,
			      O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);

	if (fd < 0)
		return fd;
	if (fstat(fd, st) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

int
wl_read_beneath(int dirfd, const char *name, size_t max, struct stat *st,
		char **buf, size_t *len)
{
	struct stat own;
	_cleanup_close_ int fd =
		wl_open_regular(dirfd, name, st != NULL ? st : &own);

	if (fd < 0)
		return fd;
	if ((uint64_t)(st != NULL ? st : &own)->st_size > max)
		return -EFBIG;
	return fd_read_all(fd, max, buf, len);
}

DIR *
wl_list(struct watchlater *w, int fd, const char *path)
{
	int lfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = lfd >= 0 ? fdopendir(lfd) : NULL;
	int err = errno;

	if (d == NULL) {
		_cleanup_free_ char *shown = text_shown(path);

		if (lfd >= 0)
			close(lfd);
		wl_fail(w,
			xasprintf("cannot list %s: %s", shown, strerror(err)));
	}
	return d;
}

/* The root path lies under (the deepest), and its path relative to it;
 * -1 when none. */
ssize_t
wl_root_of(const struct watchlater *w, const char *path, const char **rel)
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

struct wdir *
wdir_find(struct watchlater *w, const struct stat *st)
{
	for (size_t i = 0; i < w->n_dirs; i++)
		if (w->dirs[i].key.dev == st->st_dev &&
		    w->dirs[i].key.ino == st->st_ino)
			return &w->dirs[i];
	return NULL;
}

/* Descriptors of the watching process's hard limit left to the rest of
 * the watch (the other directories it watches: tens in most projects;
 * the walk's, one a level) and of llwrap (tree_bound). */
#define TREE_RESERVE ((size_t)512)

/* Why the directory at path cannot be watched (inotify_add_watch's
 * errno e), and what helps. */
static char *
watch_failed(const char *path, int e)
{
	_cleanup_free_ char *shown = text_shown(path);

	if (e != ENOSPC)
		return xasprintf("cannot watch %s: %s", shown, strerror(e));
	return xasprintf("cannot watch %s: this user's inotify watches are "
			 "all taken (fs.inotify.max_user_watches; editors "
			 "and the command's own watches count too): raise "
			 "it (sysctl fs.inotify.max_user_watches=524288) or "
			 "end what holds them",
			 shown);
}

/* Watch the directory fd (taken), opened safely by the caller, as a
 * tree directory or not; NULL and a failure when it cannot be. */
static struct wdir *
wdir_watch(struct watchlater *w, int fd, const struct stat *st,
	   const char *path, bool tree)
{
	_cleanup_close_ int cwd = -1;
	struct wdir *d;
	int wd = -1, e = 0, high;

	if (tree && w->n_tree >= w->tree_max && w->tree_full) {
		/* Said once (the first directory past it fails the run). */
		close(fd);
		return NULL;
	}
	if (tree && w->n_tree >= w->tree_max) {
		_cleanup_free_ char *shown = text_shown(path);
		_cleanup_free_ char *lower =
			w->tree_max < WATCHLATER_TREE_DIRS
				? xasprintf("; %zu and not %d because the "
					    "hard limit on open files is "
					    "%llu (`ulimit -Hn`): raising it "
					    "raises this",
					    w->tree_max, WATCHLATER_TREE_DIRS,
					    w->fd_hard)
				: xstrdup("");

		close(fd);
		wl_fail(w,
			xasprintf("more than %zu directories beneath the "
				  "repository's logs/ and worktrees/ to watch "
				  "for links the command makes there (the "
				  "count passed it at %s; git makes one there "
				  "for each prefix of its branches' names, "
				  "a/b/c making two: if they are yours, `git "
				  "remote prune origin` drops the reflogs of "
				  "the branches deleted upstream, deleting a "
				  "branch drops its own; else the command made "
				  "them%s)",
				  w->tree_max, shown, lower));
		w->tree_full = true;
		return NULL;
	}
	if (!tree && w->n_dirs - w->n_tree >= WATCHLATER_MAX_DIRS) {
		close(fd);
		wl_fail(w,
			xasprintf("more than %d directories to watch for files "
				  "run later",
				  WATCHLATER_MAX_DIRS));
		return NULL;
	}
	/* At the start, above the limit the rest of llwrap keeps. */
	if (w->fd_floor > 0 && fd < w->fd_floor &&
	    (high = fcntl(fd, F_DUPFD_CLOEXEC, w->fd_floor)) >= 0) {
		close(fd);
		fd = high;
	}
	/* Through the descriptor, not the path (it may have changed since):
	 * inotify takes a path only, and /proc/self may be the sandbox's
	 * /proc now, where this process has no pid.  So "." of a moment. */
	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cwd >= 0 && fchdir(fd) == 0) {
		wd = inotify_add_watch(
			w->ifd, ".",
			IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB |
				IN_DELETE | IN_MOVED_FROM | IN_MOVE_SELF |
				IN_DELETE_SELF | IN_ONLYDIR);
		e = errno;
		if (fchdir(cwd) < 0) {
			/* The watcher uses no relative path. */
		}
	} else {
		e = errno;
	}
	if (wd < 0) {
		close(fd);
		wl_fail(w, watch_failed(path, e));
		return NULL;
	}
	w->dirs = xreallocarray(w->dirs, w->n_dirs + 1, sizeof(*w->dirs));
	d = &w->dirs[w->n_dirs++];
	*d = (struct wdir){ .wd = wd,
			    .fd = fd,
			    .wt_fd = -1,
			    .key = { .dev = st->st_dev, .ino = st->st_ino },
			    .path = xstrdup(path),
			    .special = tree,
			    .tree = tree,
			    .tree_only = tree };
	w->n_tree += tree;
	return d;
}

struct wdir *
wdir_add(struct watchlater *w, int fd, const struct stat *st, const char *path)
{
	return wdir_watch(w, fd, st, path, false);
}

struct wdir *
wdir_add_tree(struct watchlater *w, int fd, const struct stat *st,
	      const char *path)
{
	return wdir_watch(w, fd, st, path, true);
}

/* Whether d is watched for the tree alone. */
static bool
tree_only(const struct wdir *d)
{
	return d->tree_only && !d->gitdir && !d->newrepo && !d->hooks &&
	       d->n_names == 0;
}

/* Whether the i-th watched directory's path still leads to it. */
static bool
dir_there(struct watchlater *w, size_t i)
{
	const char *rel;
	ssize_t r = wl_root_of(w, w->dirs[i].path, &rel);
	_cleanup_close_ int fd = -1;
	struct stat st;

	if (r < 0 || (fd = wl_open_beneath(w->roots[r].fd, rel, true)) < 0 ||
	    fstat(fd, &st) < 0)
		return false;
	return st.st_dev == w->dirs[i].key.dev &&
	       st.st_ino == w->dirs[i].key.ino;
}

/* The i-th watched directory no longer watched: its watch removed (but
 * when the kernel has: gone), its slot freed. */
static void
wdir_drop(struct watchlater *w, size_t i, bool gone)
{
	struct wdir *d = &w->dirs[i];

	if (!gone && d->wd >= 0)
		(void)inotify_rm_watch(w->ifd, d->wd);
	close(d->fd);
	if (d->wt_fd >= 0)
		close(d->wt_fd);
	free(d->wt_path);
	strv_free(d->hidden);
	strv_free(d->replaced);
	free(d->path);
	for (size_t k = 0; k < d->n_names; k++)
		free(d->names[k].name);
	free(d->names);
	w->n_tree -= d->tree_only;
	memmove(d, d + 1, (w->n_dirs - i - 1) * sizeof(*d));
	w->n_dirs--;
	w->last_dir = 0;
}

/*
 * The tree directories beneath path (itself included) that their paths
 * no longer lead to (moved out of logs/ and worktrees/, removed): no
 * longer watched, so that renames do not fill WATCHLATER_TREE_DIRS.  One
 * moved within the tree was walked again where it went (its path there
 * now, watch_tree), before its move's own event.  path NULL: every one.
 */
static void
tree_prune(struct watchlater *w, const char *path)
{
	_cleanup_free_ char *at = path != NULL ? xstrdup(path) : NULL;

	for (size_t i = w->n_dirs; i-- > 0;)
		if (tree_only(&w->dirs[i]) &&
		    (at == NULL || path_under(w->dirs[i].path, at)) &&
		    !dir_there(w, i))
			wdir_drop(w, i, false);
}

struct wname *
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

/* What llwrap moved aside: st (as it was) in dirfd, now named name. */
static void
aside_add(struct watchlater *w, int dirfd, const char *name,
	  const struct stat *st)
{
	struct stat dst;

	if (w->n_asides >= WATCHLATER_MAX_ASIDES) {
		if (!w->asides_full)
			wl_fail(w, xasprintf("more than %d files made to run "
					     "later were moved aside",
					     WATCHLATER_MAX_ASIDES));
		w->asides_full = true;
		return;
	}
	if (fstat(dirfd, &dst) < 0)
		return;
	w->asides =
		xreallocarray(w->asides, w->n_asides + 1, sizeof(*w->asides));
	w->asides[w->n_asides++] = (struct wplace){
		.dir = { .dev = dst.st_dev, .ino = dst.st_ino },
		.key = { .dev = st->st_dev, .ino = st->st_ino },
		.name = xstrdup(name),
	};
}

/*
 * Whether name in dirfd is one of llwrap's moves aside: the name it gave
 * (fd_move_aside's), in that directory, the same file.  Not a name that
 * merely looks like one: the command can make those, and rename a file
 * llwrap moved back or elsewhere.  Past WATCHLATER_MAX_ASIDES moves the
 * run has failed already, and a name of that form counts as one, so that
 * llwrap's own renames do not feed its watch for ever.
 */
bool
wl_is_aside(struct watchlater *w, int dirfd, const char *name)
{
	struct stat dst, st;

	if (strstr(name, ".llwrap-blocked-") == NULL)
		return false;
	if (w->asides_full)
		return true;
	if (fstat(dirfd, &dst) < 0 ||
	    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	for (size_t i = 0; i < w->n_asides; i++) {
		const struct wplace *a = &w->asides[i];

		if (a->key.ino == st.st_ino && a->key.dev == st.st_dev &&
		    a->dir.ino == dst.st_ino && a->dir.dev == dst.st_dev &&
		    strcmp(a->name, name) == 0)
			return true;
	}
	return false;
}

/* Whether a name in the watched directory dirfd is the wname n: its own,
 * or one starting with it (never one of llwrap's own moves aside). */
static bool
wname_is(struct watchlater *w, int dirfd, const struct wname *n,
	 const char *name)
{
	if (!n->prefix)
		return strcmp(n->name, name) == 0;
	/* A pattern (mise.*.toml), or a prefix (.envrc.). */
	return (strchr(n->name, '*') != NULL
			? fnmatch(n->name, name, 0) == 0
			: strncmp(n->name, name, strlen(n->name)) == 0) &&
	       !wl_is_aside(w, dirfd, name);
}

/* 1.2 ms, 340 µs: how long a file existed under its name (made: since
 * its birth), or as it is (else: since its last change). */
static char *
age_text(const struct statx *stx, bool made)
{
	const struct statx_timestamp *t =
		made ? &stx->stx_btime : &stx->stx_mtime;
	struct timespec now;
	long long us;

	if (!(stx->stx_mask & (made ? STATX_BTIME : STATX_MTIME)) ||
	    clock_gettime(CLOCK_REALTIME, &now) < 0)
		return xstrdup("");
	us = ((long long)now.tv_sec - t->tv_sec) * 1000000 +
	     ((long long)now.tv_nsec - t->tv_nsec) / 1000;
	if (us < 0)
		us = 0;
	if (us < 10000)
		return xasprintf(", %lld µs after it was %s", us,
				 made ? "made" : "changed");
	return xasprintf(", %lld ms after it was %s", us / 1000,
			 made ? "made" : "changed");
}

/*
 * name in the directory dirfd (dirpath in messages) was made by the
 * command: rename it aside, to NAME.llwrap-blocked-TIME-RANDOM (a name
 * the command cannot guess ahead to take), never over anything, unless it
 * is one of the protected paths.  Each move is reported (at most
 * WATCHLATER_MAX_LINES lines, then counted); one that cannot be made is
 * a failure every time, whatever happened to that name before.
 */
void
wl_move_aside(struct watchlater *w, int dirfd, const char *dirpath,
	      const char *name, const char *reader)
{
	wl_move_aside_as(w, dirfd, dirpath, name, reader, "created");
}

void
wl_move_aside_as(struct watchlater *w, int dirfd, const char *dirpath,
		 const char *name, const char *reader, const char *did)
{
	_cleanup_free_ char *from = xasprintf("%s/%s", dirpath, name);
	_cleanup_free_ char *shown = text_shown(from), *age = NULL;
	_cleanup_free_ char *to = NULL;
	struct statx stx;
	struct stat st;
	time_t now = time(NULL);
	int e;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			wl_fail(w, xasprintf("cannot look at %s: %s", shown,
					     strerror(errno)));
		return;
	}
	/* What was there at the start is never moved as made by the
	 * command; a held file that changed is (watchlater-hold.c), in
	 * place or not: the start's content comes back. */
	if (strcmp(did, "created") == 0 &&
	    wl_key_in(w->protect, w->n_protect, &st))
		return;
	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_BTIME | STATX_MTIME,
		  &stx) < 0)
		stx.stx_mask = 0;
	age = age_text(&stx, strcmp(did, "created") == 0);
	if ((e = -fd_move_aside(dirfd, name, now, &to)) == 0) {
		_cleanup_free_ char *dir = text_shown(dirpath);
		_cleanup_free_ char *as = text_shown(to);

		aside_add(w, dirfd, to, &st);
		if (++w->n_moved > WATCHLATER_MAX_LINES)
			return;
		strv_push_take(&w->lines,
			       xasprintf("llwrap: the command %s %s, which %s "
					 "reads later, outside the sandbox: "
					 "moved aside to %s/%s%s; review it "
					 "before putting it back",
					 did, shown, reader, dir, as, age));
		return;
	}
	if (e == ENOENT)
		return; /* gone meanwhile */
	wl_fail(w, xasprintf("the command %s %s, which %s reads later, and "
			     "llwrap could not move it aside (%s)",
			     did, shown, reader, strerror(e)));
}

/* The names of d (the files to move, the repository's index) looked at
 * in the directory dirfd. */
void
wl_names_at(struct watchlater *w, int dirfd, const char *path,
	    const struct wname *names, size_t n, bool at_end)
{
	for (size_t k = 0; k < n; k++) {
		if (names[k].rewatch || names[k].prefix || names[k].newrepo)
			continue;
		if (names[k].move)
			wl_move_aside(w, dirfd, path, names[k].name,
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
			if (names[k].prefix &&
			    wname_is(w, dirfd, &names[k], e->d_name))
				wl_move_aside(w, dirfd, path, e->d_name,
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
	ssize_t r = wl_root_of(w, path, &rel);
	struct stat st;
	struct wdir *d;
	size_t at;
	int fd;

	if (r < 0 || *rel == '\0')
		return;
	fd = wl_open_beneath(w->roots[r].fd, rel, true);
	if (fd == -ENOENT) {
		/* Not (yet) there: its parent tells when it is. */
		char *slash = strrchr(path, '/');
		size_t root;

		*slash = '\0';
		if ((d = wl_dir_at(w, path, &root)) != NULL) {
			struct wname *n = wdir_name(d, slash + 1, NULL, false);

			n->rewatch = true;
		}
		return;
	}
	if (fd == -ENOTDIR || fd == -ELOOP) {
		/* A file or link made in its place (a .git file naming
		 * another repository): moved aside, never followed.  The
		 * directory itself went elsewhere: the run still fails. */
		char *slash = strrchr(path, '/');
		const char *last = strrchr(rel, '/');
		_cleanup_free_ char *up =
			xstrndup(rel, last != NULL ? (size_t)(last - rel) : 0);
		int upfd = wl_open_beneath(w->roots[r].fd, up, true);

		*slash = '\0';
		if (upfd >= 0 &&
		    fstatat(upfd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISDIR(st.st_mode))
			wl_move_aside_as(w, upfd, path, slash + 1,
					 w->dirs[i].gitdir
						 ? "git"
						 : "git, direnv or an editor",
					 "replaced");
		if (upfd >= 0)
			close(upfd);
		*slash = '/';
	}
	if (fd < 0) {
		shown = text_shown(path);
		wl_fail(w,
			xasprintf(
				"cannot watch %s again (the command moved it): "
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
		w->dirs[at].hidden = strv_copy(w->dirs[i].hidden);
		w->dirs[at].replaced = strv_copy(w->dirs[i].replaced);
	}
	w->dirs[at].newrepo |= w->dirs[i].newrepo;
	w->dirs[at].hooks |= w->dirs[i].hooks;
	w->dirs[at].special |= w->dirs[i].special;
	w->dirs[at].tree |= w->dirs[i].tree;
	wl_names_at(w, w->dirs[at].fd, w->dirs[at].path, w->dirs[at].names,
		    w->dirs[at].n_names, at_end);
	prefix_scan(w, w->dirs[at].fd, w->dirs[at].path, w->dirs[at].names,
		    w->dirs[at].n_names);
	if (w->dirs[at].gitdir)
		w->dirs[at].changed = true;
	if (w->dirs[at].tree)
		wl_gitdir_tree(w, at);
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
	/* The tree directories gone meanwhile (an overflow lost their
	 * events); those still there are walked again below. */
	tree_prune(w, NULL);
	/* Each directory as watched, and what its path names now. */
	for (size_t i = 0; i < w->n_dirs; i++) {
		if (tree_only(&w->dirs[i]))
			continue;
		if (w->dirs[i].fd >= 0) {
			wl_names_at(w, w->dirs[i].fd, w->dirs[i].path,
				    w->dirs[i].names, w->dirs[i].n_names,
				    at_end);
			prefix_scan(w, w->dirs[i].fd, w->dirs[i].path,
				    w->dirs[i].names, w->dirs[i].n_names);
		}
		dir_again(w, i, at_end);
	}
	if (w->watch_newrepo)
		wl_newrepo_check(w, at_end);
	for (size_t i = 0; i < w->n_dirs; i++)
		if (w->dirs[i].gitdir)
			wl_check_gitlinks(w, &w->dirs[i]);
	wl_hold_check(w, at_end);
	if (!at_end) {
		wl_gitdir_check(w, true);
		return;
	}
	for (size_t i = 0; i < w->n_dirs; i++)
		if (w->dirs[i].gitdir) {
			wl_modules_check(w, &w->dirs[i]);
			wl_index_hidden_check(w, &w->dirs[i]);
		}
	wl_gitdir_check(w, false);
	wl_todo_check(w);
	wl_nested_check(w);
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
		fd = wl_open_beneath(w->roots[u->root].fd,
				     slash != NULL ? dir : "", true);
		if (fd == -ENOENT || fd == -ENOTDIR)
			continue;
		if (fd == -ELOOP || fd == -EXDEV) {
			/* The reader would follow the link, where the watch
			 * may not go: a failure. */
			wl_fail(w,
				xasprintf("%s, which %s reads later, is now "
					  "reached through a symbolic link the "
					  "command made",
					  shown, u->reader));
			continue;
		}
		if (fd < 0) {
			wl_fail(w,
				xasprintf("cannot open the directory of %s: %s",
					  shown, strerror(-fd)));
			continue;
		}
		if (fstatat(fd, name, &(struct stat){ 0 },
			    AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (u->move)
			wl_move_aside(w, fd, dirpath, name, u->reader);
		else
			note_left(w, fd, dirpath, name);
	}
}

/* The watched directory of the watch wd (n_dirs: none), looked up from
 * the last one: events come in runs for one directory. */
static size_t
dir_of_wd(struct watchlater *w, int wd)
{
	if (w->last_dir < w->n_dirs && w->dirs[w->last_dir].wd == wd)
		return w->last_dir;
	for (size_t i = 0; i < w->n_dirs; i++)
		if (w->dirs[i].wd == wd)
			return w->last_dir = i;
	return w->n_dirs;
}

static void
watchlater_ready(void *arg)
{
	struct watchlater *w = arg;
	char buf[16384]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	bool overflow = false, any = false;
	ssize_t len;

	while ((len = read(w->ifd, buf, sizeof(buf))) > 0) {
		any = true;
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (void *)p;
			size_t i;

			p += sizeof(*ev) + ev->len;
			if (ev->mask & IN_Q_OVERFLOW) {
				overflow = true;
				continue;
			}
			if ((i = dir_of_wd(w, ev->wd)) == w->n_dirs)
				continue;
			/* A tree directory moved out or removed: no longer
			 * watched, nor what was beneath it (one made where
			 * it was is its parent's event, tree_made). */
			if ((ev->mask & IN_IGNORED) && tree_only(&w->dirs[i])) {
				wdir_drop(w, i, true);
				continue;
			}
			if ((ev->mask & (IN_MOVE_SELF | IN_DELETE_SELF)) &&
			    tree_only(&w->dirs[i])) {
				_cleanup_free_ char *gone =
					xstrdup(w->dirs[i].path);

				tree_prune(w, gone);
				continue;
			}
			if (ev->mask & (IN_MOVE_SELF | IN_DELETE_SELF)) {
				dir_again(w, i, false);
				continue;
			}
			if (ev->len == 0)
				continue;
			/* The index (and rerere's MERGE_RR): read once for
			 * the whole batch (a command writing it in a loop
			 * costs one read a wake-up, not one an event). */
			if (w->dirs[i].gitdir &&
			    (strcmp(ev->name, "index") == 0 ||
			     strcmp(ev->name, "MERGE_RR") == 0) &&
			    (ev->mask & (IN_MOVED_TO | IN_CLOSE_WRITE))) {
				w->dirs[i].changed = true;
				continue;
			}
			if (w->dirs[i].newrepo &&
			    (ev->mask & (IN_MOVED_TO | IN_CLOSE_WRITE)) &&
			    strcmp(ev->name, "config") == 0) {
				wl_newrepo_config(w, &w->dirs[i]);
				continue;
			}
			if (!(ev->mask & (IN_CREATE | IN_MOVED_TO)))
				continue;
			if (w->dirs[i].special)
				wl_gitdir_made(w, &w->dirs[i], ev->name);
			if (w->dirs[i].newrepo &&
			    strcmp(ev->name, "hooks") == 0) {
				wl_newrepo_watch_hooks(w, i);
				continue;
			}
			if (w->dirs[i].hooks) {
				if (wl_is_hook(ev->name) &&
				    !wl_is_aside(w, w->dirs[i].fd, ev->name))
					wl_move_aside(
						w, w->dirs[i].fd,
						w->dirs[i].path, ev->name,
						"git (a hook of a repository "
						"the command made)");
				continue;
			}
			for (size_t k = 0; k < w->dirs[i].n_names; k++) {
				const struct wname *n = &w->dirs[i].names[k];

				if (!wname_is(w, w->dirs[i].fd, n, ev->name))
					continue;
				if (n->newrepo)
					wl_newrepo_check(w, false);
				else if (n->rewatch)
					rewatch(w, &w->dirs[i], ev->name);
				else if (n->move)
					wl_move_aside(w, w->dirs[i].fd,
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
			wl_check_gitlinks(w, &w->dirs[i]);
		}
	/* What is held: a few files, looked at once a batch. */
	if (any && w->n_held > 0)
		wl_hold_check(w, false);
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
	if (gitguard_later_nested(project, path))
		return gitguard_later_reader(path);
	return "direnv (.envrc loads it)";
}

/* Open path (absolute, the user's layout at the start) as a root. */
static void
root_add(struct watchlater *w, const char *path)
{
	const char *rel;
	int fd;

	if (w->n_roots >= WATCHLATER_MAX_ROOTS ||
	    wl_root_of(w, path, &rel) >= 0)
		return;
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	w->roots[w->n_roots++] =
		(struct root){ .fd = fd, .path = xstrdup(path) };
}

/* The directory path (under a root) as a watched directory, or NULL. */
struct wdir *
wl_dir_at(struct watchlater *w, const char *path, size_t *root)
{
	const char *rel;
	ssize_t r = wl_root_of(w, path, &rel);
	struct stat st;
	struct wdir *d;
	int fd;

	if (r < 0)
		return NULL;
	*root = (size_t)r;
	fd = wl_open_beneath(w->roots[r].fd, rel, true);
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
	      bool git, const char *reader)
{
	_cleanup_free_ char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	const char *rel;
	struct wdir *d;
	size_t root;
	bool move = true;
	ssize_t r = wl_root_of(w, path, &rel);

	if (reader == NULL)
		reader = missing_reader(project, path, git, &move);

	if (slash == NULL || slash == dir || r < 0 || *rel == '\0')
		return;
	*slash = '\0';
	if ((d = wl_dir_at(w, dir, &root)) != NULL) {
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

/* What mise reads by its patterns (mise.ENV.toml, gitguard_mise_env), in
 * the project and its .config/: every new name matching them moved
 * aside; a .config/ made during the run watched for them as it is made
 * (the end looks at .config/mise/ beneath it, as at any missing path). */
static void
watch_mise_env(struct watchlater *w, const char *project)
{
	const char *reader = "mise (its env and hooks, at the shell's cd)";
	_cleanup_free_ char *config = xasprintf("%s/.config", project);
	size_t n, root;
	const char *const *pat = gitguard_mise_env_patterns(&n);
	struct wdir *d;
	struct stat st;
	int r;

	if ((d = wl_dir_at(w, project, &root)) != NULL)
		for (size_t i = 0; i < n; i++)
			wdir_name(d, pat[i], reader, true)->prefix = true;
	/* (A .config the user made a link is not followed: --explain
	 * says so, gitguard_later_run.) */
	r = fstatat(w->roots[0].fd, ".config", &st, AT_SYMLINK_NOFOLLOW);
	if (r == 0 && S_ISDIR(st.st_mode)) {
		if ((d = wl_dir_at(w, config, &root)) != NULL)
			for (size_t i = 0; i < n; i++)
				wdir_name(d, pat[i], reader, true)->prefix =
					true;
	} else if (r < 0 && errno == ENOENT) {
		/* As watch_pending, with the patterns. */
		w->dirs =
			xreallocarray(w->dirs, w->n_dirs + 1, sizeof(*w->dirs));
		d = &w->dirs[w->n_dirs++];
		*d = (struct wdir){
			.wd = -1, .fd = -1, .wt_fd = -1, .path = xstrdup(config)
		};
		wdir_name(d, "mise.toml", reader, true);
		for (size_t i = 0; i < n; i++)
			wdir_name(d, pat[i], reader, true)->prefix = true;
		dir_again(w, w->n_dirs - 1, false);
	}
}

bool
wl_changed(const struct watchlater *w, const struct stat *st)
{
	return st->st_ctim.tv_sec > w->since.tv_sec ||
	       (st->st_ctim.tv_sec == w->since.tv_sec &&
		st->st_ctim.tv_nsec >= w->since.tv_nsec);
}

void
wl_since_stamped(struct watchlater *w, const struct stat *root)
{
	if (root->st_ctim.tv_nsec == 0)
		w->since = (struct timespec){ w->since.tv_sec - 1, 0 };
}

static int
watch_start(struct watchlater *w, const char *project,
	    const struct gitguard *git, const struct gitguard *later,
	    char *const *holds, struct watchlater **out, char **cause)
{
	_cleanup_free_ char *gitdir = NULL, *objects = NULL, *common = NULL;
	const struct gitguard *g[] = { git, later };
	struct stat st;

	*out = NULL;
	clock_gettime(CLOCK_REALTIME_COARSE, &w->since);
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
	wl_protect_add(w, &st);
	wl_since_stamped(w, &st);
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
			/* ... but what the monitor holds is moved aside
			 * when changed. */
			if (strv_contains(holds, g[k]->v[i].path) &&
			    lstat(g[k]->v[i].path, &st) == 0 &&
			    !S_ISDIR(st.st_mode))
				continue;
			if (lstat(g[k]->v[i].path, &st) == 0)
				wl_protect_add(w, &st);
			if (stat(g[k]->v[i].path, &st) == 0)
				wl_protect_add(w, &st);
		}
	if (gitdir != NULL && stat(gitdir, &st) == 0 && S_ISDIR(st.st_mode)) {
		wl_protect_add(w, &st);
		w->hash_len = wl_repo_hash_len(gitdir, common);
		wl_watch_repository(w, gitdir, w->roots[0].fd, project);
		wl_watch_submodules(w, project, git);
		wl_gitdir_start(w, gitdir, common);
	}
	for (size_t i = 0; i < ARRAY_SIZE(g); i++)
		for (char **m = g[i] != NULL ? g[i]->missing : NULL;
		     m != NULL && *m != NULL; m++)
			watch_missing(w, project, *m, g[i] == git, NULL);
	/* What a Mercurial repository's configuration includes. */
	for (char **m = later != NULL ? later->hg_missing : NULL;
	     m != NULL && *m != NULL; m++)
		watch_missing(w, project, *m, false,
			      "Mercurial (an .hg/hgrc includes it: its hooks "
			      "and extensions)");
	/* What .envrc files source beside them (.envrc.local and the
	 * like, DESIGN.md §11): every new .envrc.* in the project. */
	if (later != NULL) {
		struct wdir *d;
		size_t root;

		if ((d = wl_dir_at(w, project, &root)) != NULL)
			wdir_name(d, ".envrc.", "direnv (an .envrc loads it)",
				  true)
				->prefix = true;
	}
	if (later != NULL)
		watch_mise_env(w, project);
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
	/* No Mercurial repository: the configuration of one the command
	 * makes (hg init, then .hg/hgrc or .hg/sharedpath) is moved aside
	 * as made, not only at the end (a shell prompt's hg status in the
	 * project meanwhile would run its hooks; review L, L6). */
	if (later != NULL) {
		static const char *const hg_names[] = { "hgrc",
							"hgrc-not-shared",
							"sharedpath" };
		_cleanup_free_ char *hg = xasprintf("%s/.hg", project);

		if (fstatat(w->roots[0].fd, ".hg", &st, AT_SYMLINK_NOFOLLOW) <
			    0 &&
		    errno == ENOENT)
			watch_pending(w, hg, hg_names, ARRAY_SIZE(hg_names),
				      "Mercurial (its hooks and extensions, "
				      "or another repository's)");
	}
	/* No repository: one the command makes is checked. */
	if (git != NULL &&
	    fstatat(w->roots[0].fd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0 &&
	    errno == ENOENT) {
		struct wdir *d;
		size_t root;

		if ((d = wl_dir_at(w, project, &root)) != NULL) {
			wdir_name(d, ".git", "git", false)->newrepo = true;
			w->watch_newrepo = true;
		}
	}
	wl_hold_start(w, holds, git);
	if (git != NULL)
		wl_nested_start(w);
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
	if (w->n_dirs == 0 && w->n_unwatched == 0 && !w->nested_check) {
		watchlater_free(w);
		return 0;
	}
	*out = w;
	return 0;
}

/* What the hard limit on descriptors leaves for the watch beneath logs/
 * and worktrees/ after TREE_RESERVE: a lower bound
 * that says so, rather than EMFILE at one directory after another (the
 * kernel's default hard limit is 4,096; systemd's 524,288). */
static size_t
tree_bound(rlim_t hard)
{
	if (hard == RLIM_INFINITY ||
	    hard >= WATCHLATER_TREE_DIRS + TREE_RESERVE)
		return WATCHLATER_TREE_DIRS;
	return hard > TREE_RESERVE ? (size_t)(hard - TREE_RESERVE) : 0;
}

/*
 * The watch holds a descriptor for each directory it watches, up to
 * WATCHLATER_TREE_DIRS + WATCHLATER_MAX_DIRS of them, more than the
 * limit a process starts with (1024): for the start, the limit is
 * raised to its hard one and the watch's descriptors put above the one
 * it had, which comes back after, so that the rest of llwrap and the
 * command keep it (the watching process raises it again for the run,
 * watchlater_parent).
 */
int
watchlater_start(const char *project, const struct gitguard *git,
		 const struct gitguard *later, char *const *holds,
		 struct watchlater **out, char **cause)
{
	struct watchlater *w = xcalloc(1, sizeof(*w));
	struct rlimit rl, was;
	bool raised = false;
	int r;

	w->tree_max = WATCHLATER_TREE_DIRS;
	if (getrlimit(RLIMIT_NOFILE, &was) == 0) {
		w->tree_max = tree_bound(was.rlim_max);
		w->fd_hard = (unsigned long long)was.rlim_max;
	}
	if (getrlimit(RLIMIT_NOFILE, &was) == 0 &&
	    was.rlim_cur < was.rlim_max && was.rlim_cur <= INT_MAX) {
		rl = (struct rlimit){ .rlim_cur = was.rlim_max,
				      .rlim_max = was.rlim_max };
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0) {
			raised = true;
			w->fd_floor = (int)was.rlim_cur;
		}
	}
	r = watch_start(w, project, git, later, holds, out, cause);
	if (*out != NULL)
		(*out)->fd_floor = 0;
	if (raised)
		(void)setrlimit(RLIMIT_NOFILE, &was);
	return r;
}

int
watchlater_inotify(const struct watchlater *w)
{
	return w != NULL ? w->ifd : -1;
}

void
watchlater_child(struct watchlater *w)
{
	if (w == NULL)
		return;
	close(w->ifd);
	w->ifd = -1;
}

void
watchlater_parent(struct watchlater *w, pid_t child)
{
	struct rlimit rl;

	if (w == NULL)
		return;
	w->child = child;
	w->running = true;
	/* Its own descriptors only, after the fork: the command keeps the
	 * limit it was given. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	monitor_watch(w->ifd, watchlater_ready, w);
	wl_walk_start(w);
}

void
watchlater_finish(struct watchlater *w)
{
	if (w == NULL || w->ifd < 0)
		return;
	w->running = false;
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

bool
watchlater_stopped(const struct watchlater *w)
{
	return w != NULL && w->stopped;
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
	/* Its thread first: it reads through the project's descriptor. */
	wl_walk_free(w);
	for (size_t i = 0; i < w->n_dirs; i++) {
		close(w->dirs[i].fd);
		if (w->dirs[i].wt_fd >= 0)
			close(w->dirs[i].wt_fd);
		free(w->dirs[i].wt_path);
		strv_free(w->dirs[i].hidden);
		strv_free(w->dirs[i].replaced);
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
	wl_hold_free(w);
	wl_nested_free(w);
	wl_gitdir_free(w);
	for (size_t i = 0; i < w->n_asides; i++)
		free(w->asides[i].name);
	free(w->asides);
	free(w->protect);
	strv_free(w->done);
	strv_free(w->lines);
	strv_free(w->failures);
	free(w);
}
