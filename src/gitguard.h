/*
 * Git metadata protection (protect-git, DESIGN.md §11): the files of the
 * project's repository through which git can be made to run a command
 * later, outside the sandbox, and the directories that must not be
 * renamed or replaced so that those files stay the ones git reads.
 *
 * gitguard_scan() only reads: it finds the repository of a project (a
 * .git directory, or a .git file naming one), the common directory a
 * commondir file names, the submodules' repositories under modules/ and
 * their checkouts (from .gitmodules), and returns one entry per path to
 * protect.  sandbox.c turns the entries into rules that pathtree
 * compiles on resolved paths: a read-only entry or a pin protects
 * something only where the policy lets the command write.
 */
#ifndef LLW_GITGUARD_H
#define LLW_GITGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

struct gitconfig_var;

enum gitguard_kind {
	GITGUARD_RO,  /* read-only: config, commondir, .git files */
	GITGUARD_RX,  /* read-only, executable where the tree is: hooks/ */
	GITGUARD_PIN, /* bound onto itself: cannot be renamed or replaced */
	/* Writable as a .git inside the project is: the repository of a
	 * linked worktree (or submodule checkout) outside the project, so
	 * that git works there; what runs commands in it stays read-only. */
	GITGUARD_RW,
};

struct gitguard_entry {
	char *path; /* absolute, as found (pathtree resolves it) */
	enum gitguard_kind kind;
	char *why; /* what it is, for --explain */
	/* The rule's origin in --explain, or NULL for protect-git's own. */
	char *origin;
};

struct gitguard {
	struct gitguard_entry *v;
	size_t n;
	char **notes; /* what cannot be protected, for --explain */
	/* Paths that do not exist and would be run or read later if the
	 * command created them: checked again after the run. */
	char **missing;
	/* ... those Mercurial reads (what an .hg/hgrc %includes). */
	char **hg_missing;
};

/* The file system as gitguard_scan() sees it. */
struct gitguard_fs {
	/* 'd' directory, 'f' regular file, 'l' symlink, 'o' other, 0
	 * missing (lstat: a symlink is not followed). */
	int (*kind)(void *ctx, const char *path);
	/* Names in directory path, sorted, without . and ..; NULL on
	 * error. */
	char **(*list)(void *ctx, const char *path);
	/* The text of a small file (at most 64 KiB), NUL-terminated; NULL
	 * on error. */
	char *(*read_file)(void *ctx, const char *path);
	void *ctx;
	/* The text of a git configuration file as git reads it: through
	 * symbolic links, a regular file of at most 1 MiB without a NUL;
	 * NULL when it is not one.  NULL: read_file is used. */
	char *(*read_config)(void *ctx, const char *path);
};

extern const struct gitguard_fs gitguard_fs_real;

/*
 * The entries protecting the repository of project (absolute,
 * resolved).  A project without .git gives none and a note.  Never
 * fails: what cannot be read is left out, with a note.  global_configs
 * (NULL-terminated, or NULL) are the user's git configuration files in
 * the order git reads them (system, global), read before the
 * repository's own (config, config.worktree); home (or NULL) is what
 * "~/" in them names.  The files they include (include.path,
 * includeIf.*.path whatever the condition, in turn, as deep as git goes)
 * are read-only where they exist and watched for (missing) beneath the
 * project or the repository; core.hooksPath, wherever one of them sets
 * it, is protected as the repository's hooks/ is.  env (n_env of them)
 * is the configuration given in the environment (gitconfig_env), which
 * git reads last: what it includes and a core.hooksPath it sets are
 * protected the same way, --explain naming the variable that set it.
 */
struct gitguard *gitguard_scan(const char *project,
			       const struct gitguard_fs *fs,
			       char *const *global_configs, const char *home,
			       const struct gitconfig_var *env, size_t n_env);

void gitguard_free(struct gitguard *g);

/*
 * The hooks directory to create before the sandbox starts, so that it
 * can be made read-only (a missing one could be created inside and
 * run later): the path, or NULL when project has a .git directory with
 * hooks/ already, or no .git directory.
 */
char *gitguard_missing_hooks(const char *project, const struct gitguard_fs *fs);

/*
 * protect-later-run (DESIGN.md §11): the files in the project that
 * other programs run later, outside the sandbox: direnv's .envrc, the
 * .envrc.* beside it and what .envrc loads by convention (source_env,
 * source_env_if_exists, dotenv, dotenv_if_exists, source_url is not
 * followed), the editors' and agents' configuration (.vscode/, .idea/,
 * .mcp.json, opencode.json, opencode.jsonc, .opencode/).  Existing ones
 * become read-only entries; a missing one is noted and listed in
 * missing (but .opencode/, which opencode makes itself), since a
 * read-only mount needs something to mount on: the monitor moves one
 * made during the run aside (watchlater.h).  Nothing is created.
 */
struct gitguard *gitguard_later_run(const char *project,
				    const struct gitguard_fs *fs);

/*
 * The file a line of .envrc loads by direnv's convention (source_env,
 * source_env_if_exists, dotenv, dotenv_if_exists): true and *arg its
 * argument as bash reads it (one word, its quotes removed, a leading
 * $PWD/ or ${PWD}/ dropped; ".env" for a bare dotenv; "" when the scan
 * cannot tell which file: an expansion, an escape, a glob, '~', a quote
 * left open, another load later on the line), or false when the line is
 * no such load (*arg NULL).  Pure: the start's scan and the end's look
 * at an .envrc below the project's top read lines alike.
 */
bool gitguard_envrc_load(const char *line, char **arg);

/*
 * Who reads the later-run path outside the sandbox, by its name, for
 * the messages about one the command made: "direnv" (.envrc, .envrc.*,
 * .env), "opencode" (opencode.json, opencode.jsonc, .opencode), "VS
 * Code", "JetBrains IDEs", the MCP clients (.mcp.json); what .envrc
 * loads under other names, "direnv or an editor".
 */
const char *gitguard_later_reader(const char *path);

/* Whether name is one of mise's configuration environments' files
 * (mise.ENV.toml, .mise.ENV.toml, mise.ENV.local.toml: MISE_ENV picks
 * ENV, so any), which mise trusts by path as it does mise.toml; and
 * their patterns (fnmatch), n of them. */
bool gitguard_mise_env(const char *name);
const char *const *gitguard_mise_env_patterns(size_t *n);

/* Whether path is one of the later-run names deeper than the project's
 * top (.hg/hgrc), which gitguard_later_reader names too. */
bool gitguard_later_nested(const char *project, const char *path);

/* The path a line of a Mercurial configuration file includes, as
 * Mercurial's config.py reads the line (one that starts "%include",
 * blanks, the path, blanks; a byte order mark before it; the line split
 * at \n, \r or \r\n), unexpanded; NULL for another line. */
char *gitguard_hg_include(const char *line);

/* How deep Mercurial's %include is followed (hg has no bound: a cycle is
 * its own error). */
#define GITGUARD_HG_INCLUDE_DEPTH 8

/*
 * The directories of gitguard_later_run() that are missing in project,
 * to create (empty) before the sandbox starts so that they can be made
 * read-only: an empty .vscode/, .idea/ or .opencode/ changes nothing for
 * the programs that read them, and git does not list empty directories.
 */
char **gitguard_later_run_dirs(const char *project,
			       const struct gitguard_fs *fs);

/* The longest path an index entry may have (PATH_MAX: no longer one can
 * exist), and the most gitlinks read from one index. */
#define GITGUARD_MAX_PATH  4096
#define GITGUARD_MAX_LINKS 4096

/* The length of an object id in the index: SHA-1's, or SHA-256's. */
#define GITGUARD_SHA1_LEN   20
#define GITGUARD_SHA256_LEN 32

/*
 * The object id length of a repository whose configuration (config, the
 * text) is given: GITGUARD_SHA256_LEN where extensions.objectFormat is
 * sha256, GITGUARD_SHA1_LEN otherwise (git's default).
 */
size_t gitguard_hash_len(const char *config);

/* The value of core.hooksPath in a repository's configuration (the
 * last), as written; NULL when it sets none. */
char *gitguard_hooks_path(const char *config);

/*
 * For a repository the command made during the run: NULL when its
 * configuration holds only what git init, clone, remote and commit write
 * and settings that run nothing, its remotes' and submodules' addresses
 * network ones (https://, ssh://, git://, scp-like host:path); else the
 * first variable that could run a command in the user's next git
 * ("core.fsmonitor", "filter.x.smudge", "include.path", "alias.st",
 * "core.worktree", "remote.origin.url to './cache', not a network
 * address", ...), or, where llwrap cannot read the text as git does
 * (gitconfig_each), "what llwrap cannot read as git does, on line N".
 */
char *gitguard_config_unsafe(const char *config);

/*
 * For a repository the command made: the text (len bytes) of a legacy
 * remote file, remotes/NAME (branches false) or branches/NAME (true),
 * read as git reads it (remote.c read_remotes_file: each "URL:" line's
 * value, blanks around it dropped; read_branches_file: the first line,
 * trimmed, up to a '#').  NULL when every address it names is a network
 * one (gitguard_config_unsafe's rule for remote.*.url); else what is
 * found ("URL './cache', not a network address", or "a NUL, which git
 * reads past").  git reads these when the config defines no URL for the
 * remote name: the user's push there runs the named repository's hooks.
 */
char *gitguard_remote_file_unsafe(const char *text, size_t len, bool branches);

/*
 * gitguard_config_unsafe, but core.worktree left to the caller, which
 * knows where it points: its last value (as written, "" for a key alone)
 * in *worktree, NULL when none or when something else is unsafe.  git
 * writes one for each submodule's repository under modules/.
 */
char *gitguard_config_unsafe_worktree(const char *config, char **worktree);

/*
 * Of a repository's configuration before and after the command: the
 * first variable that sends the user's next git elsewhere, or NULL: a
 * changed core.worktree, another address (url, pushurl) for a remote
 * before had, a branch's remote or pushremote naming a remote before had
 * not (nor "."), as "remote.origin.url", or "what llwrap cannot read as
 * git does, on line N" when after cannot be read so.  A new remote's own
 * addresses, and branches pointed at the remotes before had, are not.
 */
char *gitguard_config_rerouted(const char *before, const char *after);

/*
 * Of a configuration that changed from before (NULL: not known, a
 * repository the command made) to after: what in after the user's next
 * git must not meet, the first of gitguard_config_unsafe(after) (where
 * before is known, core.worktree and any address allowed: the start's
 * repository may have a local remote) and, where before is known,
 * gitguard_config_rerouted(before, after); NULL when neither.
 */
char *gitguard_config_unsafe_change(const char *before, const char *after);

/*
 * The gitlinks (mode 160000: submodule entries) of a git index file, the
 * text of .git/index (versions 2, 3 and 4) of a repository whose object
 * ids are hash_len bytes.  Host git runs a command inside each populated
 * one (git status, git diff look into it, and its own configuration may
 * name core.fsmonitor), so a nested repository the command registers in
 * the writable index would be run later, outside.  0 and a new vector of
 * their paths (as the index holds them: not checked, see
 * gitguard_verify_path) in *paths, -EINVAL for a file that is not an
 * index as git reads one (entries are cut as git cuts them), -E2BIG for
 * more than GITGUARD_MAX_LINKS gitlinks.  A split index (core.splitIndex) holds
 * only some entries: when shared is not NULL, the name of the shared index it
 * links to
 * ("sharedindex.HEX", in the same directory; its entries are the
 * index's too) goes to *shared, NULL when there is none.
 */
int gitguard_index_gitlinks(const void *buf, size_t len, size_t hash_len,
			    char ***paths, char **shared);

/*
 * gitguard_index_gitlinks, and in *invalid (where not NULL) the first
 * entry other than a gitlink whose path git itself would not write
 * (gitguard_verify_path), or NULL: git checks an entry's path when it
 * adds one, not when it checks files out of the index, so the user's
 * `git checkout -- .` or `git restore .` writes an entry
 * ".git/hooks/post-checkout" into the repository's hooks, and runs it,
 * and one "../.bashrc" beside the work tree (review L, L4).  In *hidden
 * (where not NULL) the entries git status and git diff pass over,
 * whatever the file holds: assume-unchanged (CE_VALID) and skip-worktree
 * ones (VS Code's changes view too), at most GITGUARD_MAX_LINKS; set by
 * the command (git update-index --assume-unchanged Makefile), they hide
 * its changes to those files from the user's review (review L, L5).
 */
int gitguard_index_scan(const void *buf, size_t len, size_t hash_len,
			char ***paths, char **shared, char **invalid,
			char ***hidden);

/*
 * Whether path is one git itself would put in an index (git's
 * verify_path()): relative, no empty component (leading, trailing or
 * double slash), no "." or ".." component, no ".git" component in any
 * case, nor one NTFS takes for .git (git~1, ".git " and ".git.", as git
 * refuses them by default on every system).  An index entry that fails it was
 * not written by git; the host side acts on none (a gitlink named "." is the
 * project itself).
 */
bool gitguard_verify_path(const char *path);

/*
 * The object directory of the repository whose work tree is worktree
 * (its .git directory, or the one a .git file names, and for a linked
 * worktree its common directory), with the git directory in *gitdir;
 * NULL when worktree has no repository.
 */
char *gitguard_objects(const char *worktree, const struct gitguard_fs *fs,
		       char **gitdir);

/* The stat data git keeps for an index entry (32-bit, as stored), and
 * its object id (hash_len bytes in the index read; NULL where not
 * given). */
struct gitguard_index_entry {
	uint32_t ctime_sec, ctime_nsec, mtime_sec, mtime_nsec;
	uint32_t dev, ino, mode, uid, gid, size;
	uint16_t flags, ext_flags;
	const unsigned char *oid;
};

/*
 * A split index's link to its shared index (core.splitIndex, or git
 * update-index --split-index): the positions, among the shared index's
 * entries, that it deletes and that it replaces (git's "link" extension,
 * two EWAH bitmaps), each below shared_n, the shared index's entry
 * count.  The split index's first n_replaced entries, which carry no
 * name, are the replacements, in that order.  0 (nothing in *out for an
 * index with no link), or -EINVAL.
 */
struct gitguard_split {
	uint32_t *deleted, *replaced;
	size_t n_deleted, n_replaced;
};
int gitguard_index_split(const void *buf, size_t len, size_t hash_len,
			 uint32_t shared_n, struct gitguard_split *out);
void gitguard_split_free(struct gitguard_split *s);

/*
 * Each entry of a git index read as gitguard_index_scan reads it (and no
 * more checked): fn(ctx, path, entry), both valid during the call, a
 * nonzero return stopping the walk.  0, or -EINVAL for a file that is
 * not an index.
 */
typedef int gitguard_entry_fn(void *ctx, const char *path,
			      const struct gitguard_index_entry *e);
int gitguard_index_each(const void *buf, size_t len, size_t hash_len,
			gitguard_entry_fn *fn, void *ctx);

/*
 * The entry for path (relative to the work tree) of a git index: 0, or
 * -ENOENT when git does not track path, -EINVAL for a file that is not
 * an index.
 */
int gitguard_index_find(const void *buf, size_t len, const char *path,
			struct gitguard_index_entry *out);

/*
 * Whether the file st describes is, by git's own stat test, the one
 * the index entry e recorded: same type, size, inode, device, owner,
 * mtime and ctime, and not racily clean (changed in the tick the index,
 * of mtime index_mtime, was written).  Then its contents are the
 * entry's blob, which the repository holds.
 */
bool gitguard_unchanged(const struct gitguard_index_entry *e,
			const struct stat *st,
			const struct timespec *index_mtime);

/*
 * Whether git, whatever its stat checks (core.checkStat=minimal,
 * core.trustctime=false: the size and mtime's seconds alone), may take
 * the file st describes for the entry e without reading it: a file (or a
 * symbolic link) as the entry says, no conflict, assume-unchanged,
 * skip-worktree or intent-to-add flag, the same size and mtime, and not
 * racily clean (mtime not before the index's, index_mtime: git then
 * reads the contents; never when the index's mtime is 0 in 32 bits,
 * which git takes as none).  Wider than gitguard_unchanged: a file for which
 * it holds and whose contents are not the entry's object is one git
 * status and git diff pass over (review R, R10).
 */
bool gitguard_stat_trusted(const struct gitguard_index_entry *e,
			   const struct stat *st,
			   const struct timespec *index_mtime);

#endif /* LLW_GITGUARD_H */
