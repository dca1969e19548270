/*
 * The repository's directories hold no symbolic link and no special file
 * the command made (watchlater-int.h).  The user's git opens what is
 * there following links and waits on a FIFO: it appends a reflog line to
 * logs/HEAD and beneath logs/refs/, writes COMMIT_EDITMSG, FETCH_HEAD,
 * ORIG_HEAD and MERGE_MSG, reads the index, packed-refs and what is beneath
 * refs/; a link there makes it write outside the project, a FIFO makes it hang.
 * Git itself makes neither there (a symbolic ref is a file, "ref: ...";
 * objects/info/alternates is a file).
 *
 * At the start the links and special files the repository has are
 * recorded as the user's (a hook linked to the project's scripts); during
 * the run one made in the repository's directory, in its common directory
 * or anywhere beneath their logs/ and worktrees/ (each directory there
 * watched, one made or moved in walked and watched at once) is moved
 * aside as it is made (the later-run watch's inotify; past
 * WATCHLATER_TREE_DIRS directories there the start is refused and the
 * run stopped); at the end (and after an overflow) each directory is
 * walked, as is a repository the command made, and every other one is
 * moved aside.  objects/ is listed one level (its loose objects'
 * directories not descended): objects/info walked, objects/pack listed;
 * git-lfs's and git-annex's stores are walked whole, counted apart
 * (WATCHLATER_STORE_MAX).  Every directory is opened beneath the one
 * above it, without symlinks; more than WATCHLATER_GITDIR_MAX entries
 * fails the check.
 * A repository nested in the project is walked the same way at the end
 * (watchlater-git.c): with no start's record, a link or special file
 * whose ctime is after the start is the command's.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "cleanup.h"
#include "strv.h"
#include "text.h"
#include "watchlater-int.h"
#include "xalloc.h"

/* Where an entry is, for what is descended. */
enum where {
	W_ANY,	   /* beneath a repository: everything */
	W_REPO,	   /* a repository's top: its objects/ is not descended */
	W_MODULES, /* under modules/: a directory with a HEAD is a repository */
	W_OBJECTS, /* objects/: listed, its info/ walked, its pack/ listed */
	W_PACK,	   /* objects/pack: listed only */
	W_STORE,   /* lfs/objects, annex/objects...: walked, counted apart */
	W_LFS,	   /* lfs/: its stores and the rest walked */
	W_ANNEX,   /* annex/: likewise */
	W_TREE,	   /* logs/, worktrees/ and beneath: watched during the run */
};

struct walk {
	struct watchlater *w;
	bool record; /* at the start: what is there is the user's */
	bool watch;  /* W_TREE directories watched as special */
	bool over;   /* more entries than WATCHLATER_GITDIR_MAX: said */
	bool nested; /* a nested repository: a link changed since the start */
	bool made;   /* ... or any, in one the command made */
	size_t seen;
	size_t store_seen; /* ... of them in content stores */
};

/* Content stores (git-lfs's, git-annex's): one file per object, written
 * by their tool under new names, walked whole (their tool reads an
 * object through a link there: git-lfs's smudge copies what it names
 * into the work tree), counted against WATCHLATER_STORE_MAX. */
static const char *const lfs_stores[] = { "objects", "tmp", "incomplete" };
static const char *const annex_stores[] = { "objects", "tmp", "bad", "othertmp",
					    "misctmp" };

static bool
in(const char *const *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], name) == 0)
			return true;
	return false;
}

static const char *
special_reader(mode_t mode, enum where where)
{
	if (where == W_STORE)
		return S_ISLNK(mode)
			       ? "git-lfs or git-annex (a checkout copies "
				 "what a link there names into the work "
				 "tree)"
			       : "git-lfs or git-annex (they wait on a "
				 "FIFO there, or read a socket or "
				 "device)";
	return S_ISLNK(mode) ? "git (it writes and reads through a symbolic "
			       "link there)"
			     : "git (it waits on a FIFO there, or reads a "
			       "socket or device)";
}

/* Whether st, named name in the directory dst, is a link or special
 * file the start had there. */
static bool
had(const struct watchlater *w, const struct stat *dst, const char *name,
    const struct stat *st)
{
	for (size_t i = 0; i < w->n_specials; i++) {
		const struct wplace *p = &w->specials[i];

		if (p->key.ino == st->st_ino && p->key.dev == st->st_dev &&
		    p->dir.ino == dst->st_ino && p->dir.dev == dst->st_dev &&
		    strcmp(p->name, name) == 0)
			return true;
	}
	return false;
}

bool
wl_gitdir_had(struct watchlater *w, int dirfd, const char *name)
{
	struct stat dst, st;

	return fstat(dirfd, &dst) == 0 &&
	       fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       had(w, &dst, name, &st);
}

/* st, the link or special file name in dirfd (path): recorded as the
 * user's at the start, moved aside after unless the start had it. */
static void
special_one(struct walk *k, int dirfd, const char *path, const char *name,
	    const struct stat *st, enum where where)
{
	struct watchlater *w = k->w;
	struct stat dst;

	if (fstat(dirfd, &dst) < 0) {
		int e = errno;
		_cleanup_free_ char *shown = text_shown(path);

		wl_fail(w,
			xasprintf("cannot look at %s: %s", shown, strerror(e)));
		return;
	}
	if (k->record) {
		w->specials = xreallocarray(w->specials, w->n_specials + 1,
					    sizeof(*w->specials));
		w->specials[w->n_specials++] = (struct wplace){
			.dir = { .dev = dst.st_dev, .ino = dst.st_ino },
			.key = { .dev = st->st_dev, .ino = st->st_ino },
			.name = xstrdup(name),
		};
		return;
	}
	if (had(w, &dst, name, st) || wl_is_aside(w, dirfd, name))
		return;
	/* In a nested repository no start's record: one whose ctime is
	 * before the start (which no one can set back) is the user's. */
	if (k->nested && !k->made && !wl_changed(w, st))
		return;
	wl_move_aside(w, dirfd, path, name, special_reader(st->st_mode, where));
}

static void walk_dir(struct walk *k, int fd, const char *path, enum where where,
		     int depth);

/* A name git gives a directory of loose objects: two hex digits. */
static bool
loose_dir(const char *name)
{
	return strlen(name) == 2 && strspn(name, "0123456789abcdef") == 2;
}

/* Whether a directory at path/NAME (where: path's) is a linked
 * worktree's own directory in worktrees/. */
static bool
worktree_admin(enum where where, const char *path)
{
	size_t n = strlen(path);

	return where == W_TREE && n >= 10 &&
	       strcmp(path + n - 10, "/worktrees") == 0;
}

/*
 * The directory name in dirfd (path/name), where git makes no directory
 * or keeps no repository: a repository or a work tree inside a
 * repository's directory (git runs in none there), a directory among
 * objects/'s loose objects or packs.  Nothing of git's reads it, but
 * it is where a command would leave a repository for a later run to
 * rename into the work tree whole: renamed, its .git, config and hooks
 * keep their change times, from before that run's start, and would be
 * taken for the user's (review A's walk, H).  Made or changed since the
 * start: moved aside; one the start had is the user's.
 */
static bool
stash_dir(struct walk *k, int dirfd, const char *path, const char *name)
{
	struct stat st;

	if (k->record || wl_is_aside(k->w, dirfd, name) ||
	    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISDIR(st.st_mode) || !wl_changed(k->w, &st))
		return false;
	wl_move_aside(k->w, dirfd, path, name,
		      "git (a repository or directory left where git keeps "
		      "none: renamed into the work tree later, it would pass "
		      "for the user's)");
	return true;
}

/* Whether git would take the directory fd for a repository or a work
 * tree: a .git in it, or a HEAD file beside the directories objects/ and
 * refs/ or a commondir file (git's is_git_directory, which a ref
 * directory holding a HEAD and a branch named objects is not). */
static bool
repo_shaped(int fd)
{
	struct stat st;

	if (fstatat(fd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0)
		return true;
	if (fstatat(fd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode))
		return false;
	if (fstatat(fd, "commondir", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode))
		return true;
	return fstatat(fd, "objects", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISDIR(st.st_mode) &&
	       fstatat(fd, "refs", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISDIR(st.st_mode);
}

/* The directory entry name of dirfd (path/name): descended as where
 * says; a link or a special file (one made in its place too) taken. */
static void
walk_entry(struct walk *k, int dirfd, const char *path, const char *name,
	   unsigned char type, enum where where, int depth)
{
	_cleanup_free_ char *sub = NULL;
	int fd;
	enum where to = W_ANY;
	struct stat st;

	if (type == DT_REG)
		return;
	if (type != DT_DIR) {
		/* Not looked at (a directory the command left listable
		 * but not searchable: chmod 644): a failure, not a pass. */
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			int e = errno;

			if (e != ENOENT) {
				_cleanup_free_ char *at =
					xasprintf("%s/%s", path, name);
				_cleanup_free_ char *shown = text_shown(at);

				wl_fail(k->w, xasprintf("cannot look at %s: %s",
							shown, strerror(e)));
			}
			return;
		}
		if (S_ISREG(st.st_mode))
			return;
		if (!S_ISDIR(st.st_mode)) {
			special_one(k, dirfd, path, name, &st, where);
			return;
		}
	}
	if (where == W_PACK) {
		(void)stash_dir(k, dirfd, path, name);
		return;
	}
	if (where == W_OBJECTS) {
		/* Its 256 directories of loose objects, which git writes
		 * under new names and renames, never through a link, and
		 * reads checking each object's hash: not listed (a link in
		 * their place was taken above), but one with a directory in
		 * it (its link count: listed, as packs are) or not named as
		 * git names them. */
		if (strcmp(name, "info") == 0)
			to = W_ANY;
		else if (strcmp(name, "pack") == 0)
			to = W_PACK;
		else if (!loose_dir(name)) {
			(void)stash_dir(k, dirfd, path, name);
			return;
		} else if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) ==
				   0 &&
			   S_ISDIR(st.st_mode) && st.st_nlink > 2)
			to = W_PACK;
		else
			return;
	} else if (where == W_STORE) {
		to = W_STORE;
	} else if (where == W_REPO && strcmp(name, "objects") == 0)
		to = W_OBJECTS;
	else if (where == W_REPO && strcmp(name, "modules") == 0)
		to = W_MODULES;
	else if (where == W_REPO &&
		 (strcmp(name, "logs") == 0 || strcmp(name, "worktrees") == 0))
		to = W_TREE;
	else if (where == W_REPO && strcmp(name, "lfs") == 0)
		to = W_LFS;
	else if (where == W_REPO && strcmp(name, "annex") == 0)
		to = W_ANNEX;
	else if (where == W_TREE)
		to = W_TREE;
	else if ((where == W_LFS &&
		  in(lfs_stores, ARRAY_SIZE(lfs_stores), name)) ||
		 (where == W_ANNEX &&
		  in(annex_stores, ARRAY_SIZE(annex_stores), name)))
		to = W_STORE;
	sub = xasprintf("%s/%s", path, name);
	fd = wl_open_listed(dirfd, name);
	if (fd == -ELOOP || fd == -ENOTDIR) {
		/* Made a link or a file meanwhile. */
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
			special_one(k, dirfd, path, name, &st, where);
		return;
	}
	if (fd == -ENOENT)
		return;
	if (fd < 0) {
		_cleanup_free_ char *shown = text_shown(sub);

		wl_fail(k->w,
			xasprintf("cannot open %s: %s", shown, strerror(-fd)));
		return;
	}
	if (where == W_MODULES)
		to = fstatat(fd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0
			     ? W_REPO
			     : W_MODULES;
	/* A repository there, but a submodule's (W_MODULES) and a linked
	 * worktree's own directory (worktrees/NAME: HEAD beside its
	 * commondir), is no git's: moved aside whole. */
	if (where != W_MODULES && to != W_REPO &&
	    !worktree_admin(where, path) && repo_shaped(fd) &&
	    stash_dir(k, dirfd, path, name)) {
		close(fd);
		return;
	}
	walk_dir(k, fd, sub, to, depth + 1);
}

/* What makes a repository's directories many entries, by where the
 * count passed the bound. */
static const char *
bound_hint(const char *path)
{
	if (strstr(path, "/objects/pack") != NULL)
		return "packs: git gc packs them into one";
	if (strstr(path, "/logs/") != NULL ||
	    (strlen(path) >= 5 &&
	     strcmp(path + strlen(path) - 5, "/logs") == 0))
		return "reflogs: git reflog expire --expire=now --all empties "
		       "them, and a branch deleted takes its reflog along";
	if (strstr(path, "/refs/") != NULL ||
	    (strlen(path) >= 5 &&
	     strcmp(path + strlen(path) - 5, "/refs") == 0))
		return "loose refs: git pack-refs --all packs them into one "
		       "file";
	return "neither refs nor reflogs but something else: move it out "
	       "of the repository; llwrap lists objects/ one level only, "
	       "and counts git-lfs's and git-annex's stores apart";
}

/* The directory fd (W_TREE, open to list) at path: watched as special,
 * what is made in it taken as made.  One watched already that moved
 * here within the tree is watched at its path now (its old one no
 * longer leads to it, and a tree directory whose path does not is
 * dropped). */
static void
watch_tree(struct walk *k, int fd, const char *path)
{
	struct stat st;
	struct wdir *d;
	int dup;

	if (fstat(fd, &st) < 0) {
		_cleanup_free_ char *shown = text_shown(path);

		wl_fail(k->w, xasprintf("cannot look at %s: %s", shown,
					strerror(errno)));
		return;
	}
	if ((d = wdir_find(k->w, &st)) != NULL) {
		if (d->tree_only && strcmp(d->path, path) != 0) {
			free(d->path);
			d->path = xstrdup(path);
		}
		d->special = d->tree = true;
		return;
	}
	if ((dup = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0) {
		_cleanup_free_ char *shown = text_shown(path);

		wl_fail(k->w, xasprintf("cannot watch %s: %s", shown,
					strerror(errno)));
		return;
	}
	(void)wdir_add_tree(k->w, dup, &st, path);
}

/* The directory fd (taken, open to list) at path. */
static void
walk_dir(struct walk *k, int fd, const char *path, enum where where, int depth)
{
	_cleanup_free_ char *shown = text_shown(path);
	DIR *d = fdopendir(fd);
	struct dirent *e;

	if (d == NULL) {
		wl_fail(k->w, xasprintf("cannot list %s: %s", shown,
					strerror(errno)));
		close(fd);
		return;
	}
	if (depth > WATCHLATER_GITDIR_DEPTH) {
		wl_fail(k->w, xasprintf("%s is deeper than llwrap looks for "
					"links the command made in a "
					"repository",
					shown));
		closedir(d);
		return;
	}
	/* Watched before it is listed: what is made meanwhile is seen. */
	if (where == W_TREE && k->watch)
		watch_tree(k, fd, path);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (k->over)
			break;
		if (where == W_STORE ? ++k->store_seen > WATCHLATER_STORE_MAX
				     : ++k->seen > WATCHLATER_GITDIR_MAX) {
			k->over = true;
			wl_fail(k->w,
				xasprintf("a repository's %s hold more than "
					  "%u entries, more than llwrap looks "
					  "at for links the command made (the "
					  "count passed it in %s; %s)",
					  where == W_STORE ? "content stores "
							     "(git-lfs's, "
							     "git-annex's)"
							   : "directories",
					  where == W_STORE
						  ? WATCHLATER_STORE_MAX
						  : WATCHLATER_GITDIR_MAX,
					  shown,
					  where == W_STORE
						  ? "git lfs prune deletes the "
						    "objects no recent commit "
						    "needs, git annex unused "
						    "and dropunused those "
						    "none does"
						  : bound_hint(path)));
			break;
		}
		walk_entry(k, fd, path, e->d_name, e->d_type, where, depth);
	}
	closedir(d);
}

/* The repository's directory at path (beneath a root), walked as k
 * says. */
static void
walk_repository_k(struct walk *k, const char *path)
{
	struct watchlater *w = k->w;
	const char *rel;
	ssize_t r = wl_root_of(w, path, &rel);
	int fd;

	if (r < 0)
		return;
	/* Gone, or another in its place: the watch on it says so
	 * (dir_again, wl_newrepo_check). */
	if ((fd = wl_open_or_fail(w, w->roots[r].fd, rel, WL_OPEN_LIST, path)) <
	    0)
		return;
	walk_dir(k, fd, path, W_REPO, 0);
}

/* The repository's directory at path (beneath a root), walked (watch:
 * its logs/ and worktrees/ watched, after an overflow). */
static void
walk_repository(struct watchlater *w, const char *path, bool watch)
{
	struct walk k = { .w = w, .watch = watch };

	walk_repository_k(&k, path);
}

void
wl_gitdir_start(struct watchlater *w, const char *gitdir, const char *common)
{
	const char *dirs[] = { gitdir, common };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		struct walk k = { .w = w, .record = true, .watch = true };
		struct wdir *d;
		size_t root;

		if (dirs[i] == NULL || strv_contains(w->gitdirs, dirs[i]))
			continue;
		strv_push(&w->gitdirs, dirs[i]);
		/* Watched: the repository's own files, and (the walk)
		 * every directory of its reflogs and worktrees. */
		if ((d = wl_dir_at(w, dirs[i], &root)) != NULL)
			d->special = true;
		walk_repository_k(&k, dirs[i]);
	}
}

/* Whether name in dirfd is git init's probe of core.symlinks: a link
 * "tXXXXXX" -> "testing", which git removes at once (a name git never
 * opens otherwise; one still there at the end is moved aside). */
static bool
init_probe(int dirfd, const char *name)
{
	char target[sizeof("testing")];
	ssize_t n;

	if (strlen(name) != 7 || name[0] != 't' ||
	    strspn(name + 1, "abcdefghijklmnopqrstuvwxyz"
			     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != 6)
		return false;
	n = readlinkat(dirfd, name, target, sizeof(target));
	return n == (ssize_t)strlen("testing") &&
	       memcmp(target, "testing", (size_t)n) == 0;
}

/* The directory name made or moved in dirfd (path), beneath logs/ or
 * worktrees/: watched, and what it holds taken. */
static void
tree_made(struct watchlater *w, int dirfd, const char *path, const char *name)
{
	struct walk k = { .w = w, .watch = true };
	_cleanup_free_ char *sub = xasprintf("%s/%s", path, name);
	/* Gone, or a link in its place (taken as made). */
	int fd = wl_open_or_fail(w, dirfd, name, WL_OPEN_LIST, sub);

	if (fd < 0)
		return;
	walk_dir(&k, fd, sub, W_TREE, 1);
}

void
wl_gitdir_tree(struct watchlater *w, size_t i)
{
	struct walk k = { .w = w, .watch = true };
	_cleanup_free_ char *path = xstrdup(w->dirs[i].path);
	int fd;

	/* The same directory, opened again to list. */
	if (w->dirs[i].fd < 0 || (fd = wl_open_listed(w->dirs[i].fd, "")) < 0)
		return;
	walk_dir(&k, fd, path, W_TREE, 1);
}

void
wl_gitdir_made(struct watchlater *w, const struct wdir *d, const char *name)
{
	struct walk k = { .w = w };
	struct stat st;

	if (fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (S_ISDIR(st.st_mode) && (d->tree || strcmp(name, "logs") == 0 ||
				    strcmp(name, "worktrees") == 0)) {
		/* d may move (wdir_add): its descriptor and path now. */
		_cleanup_free_ char *path = xstrdup(d->path);

		tree_made(w, d->fd, path, name);
		return;
	}
	if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ||
	    (S_ISLNK(st.st_mode) && init_probe(d->fd, name)))
		return;
	special_one(&k, d->fd, d->path, name, &st, W_ANY);
}

void
wl_gitdir_check(struct watchlater *w, bool watch)
{
	for (char **g = w->gitdirs; g != NULL && *g != NULL; g++)
		walk_repository(w, *g, watch);
	if (w->watch_newrepo) {
		_cleanup_free_ char *git =
			xasprintf("%s/.git", w->roots[0].path);

		walk_repository(w, git, false);
	}
}

void
wl_gitdir_nested(struct watchlater *w, int gitfd, const char *path, bool made)
{
	struct walk k = { .w = w, .nested = true, .made = made };
	int fd = wl_open_listed(gitfd,
				""); /* its own offset: gitfd may be listed */

	if (fd < 0) {
		_cleanup_free_ char *shown = text_shown(path);

		wl_fail(w, xasprintf("cannot open the repository %s: %s", shown,
				     strerror(-fd)));
		return;
	}
	walk_dir(&k, fd, path, W_REPO, 0);
}

void
wl_gitdir_free(struct watchlater *w)
{
	strv_free(w->gitdirs);
	for (size_t i = 0; i < w->n_specials; i++)
		free(w->specials[i].name);
	free(w->specials);
}
