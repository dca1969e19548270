/*
 * What the watch on files run later shares between its parts
 * (watchlater.h): watchlater.c the watch itself (the watched directories
 * and names, the moves aside, the loop, the start and the report) and
 * watchlater-git.c the repository's checks (the index's gitlinks, a
 * repository the command made, its config and hooks, the repositories
 * under modules/).  Every path is reached through a descriptor opened
 * beneath a root the watcher opened itself.
 */
#ifndef LLW_WATCHLATER_INT_H
#define LLW_WATCHLATER_INT_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "gitguard.h"
#include "watchlater.h"

/* The largest index read (a large monorepo's is tens of MiB). */
#define WATCHLATER_MAX_INDEX (256u << 20)
/* The largest config read (watchlater-git.c), as a held file's: one
 * larger is moved aside as one llwrap cannot read as git does. */
#define WATCHLATER_MAX_CONFIG (1u << 20)

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
	/* A repository's directory (or tree): a symbolic link, FIFO,
	 * socket or device made there is moved aside as made. */
	bool special;
	/* logs/ or worktrees/ of a repository, or a directory beneath:
	 * one made or moved in is walked and watched the same (special). */
	bool tree;
	/* Watched for that alone (wdir_add_tree, counted against
	 * WATCHLATER_TREE_DIRS): dropped once its path no longer leads to
	 * it (moved out, removed), when it holds no other watch. */
	bool tree_only;
	/* gitdir: its work tree (the project, or a submodule's checkout),
	 * where the gitlinks of its index are. */
	int wt_fd;
	char *wt_path;
	/* gitdir: the entries its index hid from git status and diff at
	 * the start (assume-unchanged, skip-worktree); its replace refs. */
	char **hidden;
	char **replaced;
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

/* The most files and directories held without L3, and the largest file
 * (watchlater-hold.c): past them the start fails. */
#define WATCHLATER_HOLD_MAX	 256
#define WATCHLATER_HOLD_MAX_SIZE (1u << 20)

/* A file or directory beneath the project the monitor holds in place of
 * a read-only mount (no L3): as it was at the start. */
struct held {
	char *rel;  /* beneath the project */
	char *path; /* for messages */
	const char *reader;
	bool dir;    /* a directory: names are its entries at the start */
	bool hooks;  /* ... git's hooks/: a new sample is left */
	bool config; /* a repository's config: left unless unsafe */
	char **names;
	/* A file's content, and its identity when last seen as it was. */
	char *text;
	size_t len;
	mode_t mode;
	struct wkey key;
	struct timespec mtime, ctime;
};

/* A name in a directory, by identity: what llwrap moved aside (the name
 * it gave), or a link the start had in a repository's directory. */
struct wplace {
	struct wkey dir;
	struct wkey key;
	char *name;
};

/* The most moves aside remembered: past it the run fails (and an entry
 * named as llwrap names them counts as one of its own). */
#define WATCHLATER_MAX_ASIDES 4096

/* The most entries of a repository's directory looked at outside its
 * objects/ and content stores, and how deep (watchlater-gitdir.c): more
 * fails the check. */
#define WATCHLATER_GITDIR_MAX	65536
#define WATCHLATER_GITDIR_DEPTH 32
/* The most entries of git-lfs's and git-annex's content stores looked
 * at (a store holds one file per object: large ones hold 100,000s). */
#define WATCHLATER_STORE_MAX (1u << 20)
/* The most directories beneath logs/ and worktrees/ watched during the
 * run (one per branch prefix: tens in most clones, a few hundred where
 * branches are named per user; counted apart from WATCHLATER_MAX_DIRS):
 * one more refuses the run at the start, and stops it during the run
 * (a directory there unwatched is one a link can be planted in). */
#define WATCHLATER_TREE_DIRS 4096

/* A repository in a directory of the project's top level (not the
 * project's own): as the start had it, so that what the user's own git
 * changes in it during the run is told from what the command does. */
struct nested {
	char *name;	       /* the directory's, in the project */
	struct wkey key;       /* its .git's */
	struct wkey hooks_key; /* its hooks/ (0, 0: none) */
	/* its modules/ and worktrees/ (0, 0: none): one renamed in holds
	 * repositories whose files keep their change times */
	struct wkey modules_key, worktrees_key;
	char *config; /* the text of its config, or NULL */
	size_t len;
	char *config_wt; /* ... of its config.worktree, or NULL */
	size_t len_wt;
};

/* The most top-level repositories recorded (more: checked as deeper
 * ones are, by change time alone). */
#define WATCHLATER_NESTED_MAX 64

struct watchlater {
	int ifd;
	struct root roots[WATCHLATER_MAX_ROOTS];
	size_t n_roots;
	size_t hash_len; /* of the repository's object ids */
	struct wkey *protect;
	size_t n_protect;
	struct wdir *dirs;
	size_t n_dirs;
	size_t n_tree; /* of them, tree_only */
	/* the most of them: WATCHLATER_TREE_DIRS, less where the hard
	 * limit on descriptors would run out first (tree_bound) */
	size_t tree_max;
	unsigned long long fd_hard; /* that hard limit (RLIM_INFINITY: none) */
	bool tree_full;		    /* tree_max was passed (said once) */
	size_t last_dir;	    /* the last one an event was for */
	/* At the start, with the limit on descriptors raised for the
	 * watch: its descriptors go at or above the limit the rest of
	 * llwrap (and the command) keeps (0: where they fall). */
	int fd_floor;
	/* The run: the process the command runs under (the command, or
	 * its supervisor), killed when the watch fails while it runs
	 * (wl_fail), and whether it was. */
	pid_t child;
	bool running;
	bool stopped;
	struct unwatched *unwatched;
	size_t n_unwatched;
	bool watch_newrepo; /* the project had no .git at the start */
	char **done;	    /* what was reported already, as named */
	size_t n_moved;	    /* moves made (the report names the first ones) */
	size_t n_failures;  /* failures (the report names the first ones) */

	struct held *held; /* without L3: what the monitor holds */
	size_t n_held;

	/* The start, on the clock the kernel stamps file changes with
	 * (CLOCK_REALTIME_COARSE: a change after it is at or after it):
	 * what changed since is the command's (wl_changed). */
	struct timespec since;

	/* protect-git: the repositories in the project (watchlater-git.c,
	 * wl_nested_start), checked at the end */
	bool nested_check;
	struct nested *nested;
	size_t n_nested;
	struct wl_walk *walk; /* the project's directories (walk.c) */

	/* What llwrap moved aside (wl_is_aside), the first
	 * WATCHLATER_MAX_ASIDES of them. */
	struct wplace *asides;
	size_t n_asides;
	bool asides_full;

	/* The project's repository's directories (its own and the common
	 * one), checked for links and special files (watchlater-gitdir.c),
	 * and the links and special files they had at the start. */
	char **gitdirs;
	struct wplace *specials;
	size_t n_specials;

	char **lines;	 /* the report */
	char **failures; /* what could not be checked */

	/* What the end hashed (wl_index_blob_check), bounded. */
	size_t blob_files;
	unsigned long long blob_bytes;
};

/* Whether st changed (its ctime: every write, rename, link or chmod,
 * which nothing unprivileged sets back) since the start (w->since). */
bool wl_changed(const struct watchlater *w, const struct stat *st);

/* The start, taken back to the second before it where the project's
 * file system stamps whole seconds (root: the project's stat; its
 * change time with no nanoseconds): ext4 with 128-byte inodes, FAT (two
 * seconds), a network file system's server that does.  There a change
 * made just after the start is stamped before it, in the start's
 * second, and would read as the user's from before the run (the walk
 * would keep a directory's listing without the repository made in it);
 * a change in the second before the start counts as the command's. */
void wl_since_stamped(struct watchlater *w, const struct stat *root);

/* Whether st is one of the n keys of v. */
bool wl_key_in(const struct wkey *v, size_t n, const struct stat *st);
/* A failure of the check, said once (why taken); while the command
 * runs, it stops the sandbox (what is not watched then is what the
 * user's git running meanwhile could meet). */
void wl_fail(struct watchlater *w, char *why);
/* rel beneath the root's descriptor rootfd: no symlink, no mount
 * crossed, never above it.  A descriptor (O_PATH), or -errno. */
int wl_open_beneath(int rootfd, const char *rel, bool dir);
/* The same, a directory to list (O_RDONLY). */
int wl_open_listed(int dirfd, const char *rel);
/* How wl_open_or_fail opens: O_PATH, a file or a directory; a directory
 * to list (wl_open_listed). */
enum wl_open { WL_OPEN_FILE, WL_OPEN_DIR, WL_OPEN_LIST };
/* rel beneath dirfd opened as how says, where a failure but gone
 * (ENOENT), not a directory (ENOTDIR) or reached through a link
 * (ELOOP), which callers pass over, is one of the check's, naming path
 * ("cannot open PATH: why").  A descriptor, or -errno. */
int wl_open_or_fail(struct watchlater *w, int dirfd, const char *rel,
		    enum wl_open how, const char *path);
/* The regular file name beneath dirfd (as wl_open_beneath reaches it),
 * opened to read without blocking (a FIFO planted there waits for no
 * writer), its stat in *st: a descriptor, -EINVAL when it is no regular
 * file, or -errno. */
int wl_open_regular(int dirfd, const char *name, struct stat *st);
/* Its text, at most max bytes (its stat in *st where not NULL): 0,
 * -EFBIG when it is larger, -EINVAL, or -errno. */
int wl_read_beneath(int dirfd, const char *name, size_t max, struct stat *st,
		    char **buf, size_t *len);
/* The directory fd (O_PATH, opened beneath) at path, to read; NULL
 * and a failure of the check naming path when it cannot be listed. */
DIR *wl_list(struct watchlater *w, int fd, const char *path);
/* The watched directory st is, or NULL. */
struct wdir *wdir_find(struct watchlater *w, const struct stat *st);
/* Watch the directory fd (taken) at path; NULL (and a failure) when it
 * cannot be. */
struct wdir *wdir_add(struct watchlater *w, int fd, const struct stat *st,
		      const char *path);
/* The same for a directory beneath logs/ or worktrees/ (tree_only),
 * bounded by WATCHLATER_TREE_DIRS. */
struct wdir *wdir_add_tree(struct watchlater *w, int fd, const struct stat *st,
			   const char *path);
/* Name name of d watched, for reader (move: moved aside when made). */
struct wname *wdir_name(struct wdir *d, const char *name, const char *reader,
			bool move);
/* Move name in dirfd (at dirpath) aside, for reader: renamed beside it,
 * reported, never deleted; never what is protected. */
void wl_move_aside(struct watchlater *w, int dirfd, const char *dirpath,
		   const char *name, const char *reader);
/* The same, for a file that was there and has changed: did is
 * "changed" or "replaced" (wl_move_aside's is "created"). */
void wl_move_aside_as(struct watchlater *w, int dirfd, const char *dirpath,
		      const char *name, const char *reader, const char *did);
/* Whether name in dirfd is what llwrap itself moved aside there: the
 * name it gave, the same file. */
bool wl_is_aside(struct watchlater *w, int dirfd, const char *name);
/* Record st as never to be moved (a checkout there at the start). */
void wl_protect_add(struct watchlater *w, const struct stat *st);
/* The root path is beneath (its index, *rel the rest), or -1. */
ssize_t wl_root_of(const struct watchlater *w, const char *path,
		   const char **rel);
/* The watched directory at path (watched now when it is not), beneath
 * its root (*root), or NULL. */
struct wdir *wl_dir_at(struct watchlater *w, const char *path, size_t *root);
/* The names of a directory looked at in dirfd: moved or noted. */
void wl_names_at(struct watchlater *w, int dirfd, const char *path,
		 const struct wname *names, size_t n, bool at_end);

/* watchlater-git.c */

/* The gitlinks of the index in gitdir_fd, validated (watchlater-git.c);
 * NULL and a failure when it cannot be read, NULL alone when there is
 * none; in *hidden (where not NULL) what it hides from git status. */
char **wl_index_links(struct watchlater *w, int gitdir_fd, const char *gitdir,
		      char ***hidden);
/* The most files, and bytes, the end hashes to check indexes against
 * the files the command wrote (watchlater-blob.c): past them the run
 * fails, saying so. */
#define WATCHLATER_BLOB_FILES 200000
#define WATCHLATER_BLOB_BYTES (2048ull << 20)

/* watchlater-blob.c: at the end, of an index (in gitdir_fd) written
 * during the run, the entries git takes as clean by their stat data
 * whose files (beneath wt_fd, at wt_path) the command wrote and whose
 * contents are not the entry's object (review R, R10): named. */
void wl_index_blob_check(struct watchlater *w, int gitdir_fd, int wt_fd,
			 const char *wt_path);

/* At the end: the entries the index of the repository d now hides from
 * git status and diff that it did not at the start, and the replace refs
 * it has that the start's had not, said. */
void wl_index_hidden_check(struct watchlater *w, const struct wdir *d);
/* Each gitlink's checkout with a new .git: that .git moved aside; one
 * without: watched for it. */
void wl_check_gitlinks(struct watchlater *w, const struct wdir *gd);
/* A hook of a new repository's hooks/ (not git init's samples). */
bool wl_is_hook(const char *name);
/* The repositories in the project other than its own, at any depth:
 * the top level's recorded at the start, every one checked at the end
 * (a bounded walk): what changed in them since the start (a config that
 * runs something or reroutes git, a hook, a commondir, a .git file), and
 * one the command made as a repository it made; the repositories inside
 * each (its submodules', its linked worktrees') the same way. */
void wl_nested_start(struct watchlater *w);
void wl_nested_check(struct watchlater *w);
void wl_nested_free(struct watchlater *w);

/* The walk of the project's directories for them (watchlater-walk.c):
 * at most WATCHLATER_WALK_MAX directories, and at the end at most
 * WATCHLATER_WALK_SECONDS, past which the run fails, saying where. */
#define WATCHLATER_WALK_MAX	200000
#define WATCHLATER_WALK_SECONDS 10
/* What the walk found in a directory: a .git; that git takes it for a
 * bare repository; a file git reads there (.gitignore, .gitattributes,
 * .gitmodules, .mailmap) that is a FIFO, a socket or a device; an
 * .envrc (direnv's, loaded when the user's shell enters it); a version
 * manager's file (wl_tools_name); a .hg (a Mercurial repository). */
enum {
	WALK_DOTGIT = 1 << 0,
	WALK_BARE = 1 << 1,
	WALK_SPECIAL = 1 << 2,
	WALK_ENVRC = 1 << 3,
	WALK_TOOLS = 1 << 4,
	WALK_HG = 1 << 5,
};
/* Whether name is one of the version managers' project files (mise's
 * mise.toml, .mise.toml, mise.local.toml, .mise.local.toml, .mise/;
 * asdf's and mise's .tool-versions). */
bool wl_tools_name(const char *name);
/* A directory where the walk found any of those (flags), open for
 * reading (fd) at rel beneath the project ("" for the project). */
typedef void wl_walk_fn(struct watchlater *w, int fd, const char *rel,
			unsigned flags);
/* Once the command runs (the watching process, after its forks): the
 * listing starts, in a thread of its own. */
void wl_walk_start(struct watchlater *w);
/* At the end: the thread stopped, what it listed looked at again, the
 * rest walked; fn called once for every such directory there is. */
void wl_walk_end(struct watchlater *w, wl_walk_fn *fn);
/* Tests: waits until the thread has listed all (a run never waits). */
void wl_walk_wait(struct watchlater *w);
/* The thread stopped, the walk freed. */
void wl_walk_free(struct watchlater *w);
/* A new repository's config, its hooks, its hooks/ watched. */
void wl_newrepo_config(struct watchlater *w, const struct wdir *gd);
void wl_newrepo_hooks(struct watchlater *w, int hooks_fd, const char *path);
void wl_newrepo_watch_hooks(struct watchlater *w, size_t at);
/* A repository the command made in a project that had none. */
void wl_newrepo_check(struct watchlater *w, bool at_end);
/* The new repositories under a repository's modules/. */
void wl_modules_check(struct watchlater *w, const struct wdir *gd);
/* At the start: the object id length of the repository at gitdir; its
 * index watched with its work tree wt_fd (wt_path); the submodules'
 * repositories gitguard found watched the same way. */
size_t wl_repo_hash_len(const char *gitdir, const char *common);
void wl_watch_repository(struct watchlater *w, const char *gitdir, int wt_fd,
			 const char *wt_path);
void wl_watch_submodules(struct watchlater *w, const char *project,
			 const struct gitguard *git);

/* watchlater-gitdir.c */

/* At the start: the links and special files of the project's repository's
 * directories (gitdir, and common when another), recorded as the user's. */
void wl_gitdir_start(struct watchlater *w, const char *gitdir,
		     const char *common);
/* name made in the watched directory d (d->special): moved aside when it
 * is a link or special file the start did not have there; walked and
 * watched when a directory beneath logs/ or worktrees/. */
void wl_gitdir_made(struct watchlater *w, const struct wdir *d,
		    const char *name);
/* The i-th watched directory (tree), another in its place now: walked,
 * what is beneath it watched. */
void wl_gitdir_tree(struct watchlater *w, size_t i);
/* Every link and special file of those directories (and of a repository
 * the command made) that the start did not have: moved aside; watch:
 * their logs/ and worktrees/ watched again (after an overflow). */
void wl_gitdir_check(struct watchlater *w, bool watch);
/* The directories of a repository nested in the project (gitfd at
 * path), walked the same way: a link or special file whose ctime is
 * after the start (every one when made, the command made it) moved
 * aside. */
void wl_gitdir_nested(struct watchlater *w, int gitfd, const char *path,
		      bool made);
/* Whether name in dirfd is a link or special file the start had there. */
bool wl_gitdir_had(struct watchlater *w, int dirfd, const char *name);
void wl_gitdir_free(struct watchlater *w);

/* watchlater-todo.c */

/* A rebase's (or cherry-pick's) todo list in the project's repository
 * whose state changed since the start: moved aside when it holds an exec
 * line, is larger than llwrap reads, or its state names a merge strategy
 * that is not git's own or options for one of git's strategy scripts;
 * git am's rebase-apply/apply-opt, when it holds an option git am does
 * not write itself (wl_apply_opt_ok). */
/* What a nested Mercurial repository's configuration (its .hg, hfd, at
 * hg) includes from the project, made or changed during the run: moved
 * aside (watchlater-hg.c). */
void wl_hg_includes(struct watchlater *w, int hfd, const char *hg);

void wl_todo_check(struct watchlater *w);
/* The same in the repository's directory gitfd (at path): one nested in
 * the project (watchlater-git.c's nested_repo). */
void wl_todo_at(struct watchlater *w, int gitfd, const char *path);
/* Whether the todo list's line (len bytes, no newline) runs a command,
 * read as git reads it. */
bool wl_todo_exec_line(const char *line, size_t len);
/* Whether text (len bytes), git am's rebase-apply/apply-opt, holds only
 * the options git am itself passes to git apply, as it writes them. */
bool wl_apply_opt_ok(const char *text, size_t len);

/* Whether opt (len bytes, "--" dropped) is a strategy option of git's
 * own merges (ort, recursive), which none of git's strategies turns into
 * an option that writes a file: given to a rebase or cherry-pick that
 * names no strategy, for which git takes the user's pull.twohead, which
 * may be resolve (review Y). */
bool wl_strategy_option_ok(const char *opt, size_t len);

/* watchlater-remotes.c */

/* The legacy remote files (remotes/, branches/) of the repository gitfd
 * at path: one that names an address that is not a network one is moved
 * aside; every one when made (a repository the command made), else
 * those changed since the start. */
void wl_remotes_check(struct watchlater *w, int gitfd, const char *path,
		      bool made);

/* watchlater-hold.c */

/* At the start: record what holds (absolute, beneath the project) are,
 * their directories watched; git's entries tell its config and hooks. */
void wl_hold_start(struct watchlater *w, char *const *holds,
		   const struct gitguard *git);
/* Each held file and directory as it was at the start (a change moved
 * aside, the start's restored); at_end, each file's content compared
 * even where its identity and times are the same. */
void wl_hold_check(struct watchlater *w, bool at_end);
void wl_hold_free(struct watchlater *w);

#endif /* LLW_WATCHLATER_INT_H */
