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
};

struct gitguard {
	struct gitguard_entry *v;
	size_t n;
	char **notes; /* what cannot be protected, for --explain */
	/* Paths that do not exist and would be run or read later if the
	 * command created them: checked again after the run. */
	char **missing;
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
};

extern const struct gitguard_fs gitguard_fs_real;

/*
 * The entries protecting the repository of project (absolute,
 * resolved).  A project without .git gives none and a note.  Never
 * fails: what cannot be read is left out, with a note.
 */
struct gitguard *gitguard_scan(const char *project,
			       const struct gitguard_fs *fs);

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
 * become read-only entries; a missing one is noted, since a read-only
 * mount needs something to mount on.
 */
struct gitguard *gitguard_later_run(const char *project,
				    const struct gitguard_fs *fs);

/*
 * Who reads the later-run path outside the sandbox, by its name, for
 * the messages about one the command made: "direnv" (.envrc, .envrc.*,
 * .env), "opencode" (opencode.json, opencode.jsonc, .opencode), "VS
 * Code", "JetBrains IDEs", the MCP clients (.mcp.json); what .envrc
 * loads under other names, "direnv or an editor".
 */
const char *gitguard_later_reader(const char *path);

/*
 * The directories of gitguard_later_run() that are missing in project,
 * to create (empty) before the sandbox starts so that they can be made
 * read-only: an empty .vscode/, .idea/ or .opencode/ changes nothing for
 * the programs that read them, and git does not list empty directories.
 */
char **gitguard_later_run_dirs(const char *project,
			       const struct gitguard_fs *fs);

/*
 * The gitlinks (mode 160000: submodule entries) of a git index file, the
 * text of .git/index (versions 2, 3 and 4).  Host git runs a command
 * inside each populated one (git status, git diff look into it, and its
 * own configuration may name core.fsmonitor), so a nested repository the
 * command registers in the writable index would be run later, outside.
 * 0 and a new vector of their paths (relative to the work tree, maybe
 * empty) in *paths, or -EINVAL for a file that is not an index.
 */
int gitguard_index_gitlinks(const void *buf, size_t len, char ***paths);

/*
 * The object directory of the repository whose work tree is worktree
 * (its .git directory, or the one a .git file names, and for a linked
 * worktree its common directory), with the git directory in *gitdir;
 * NULL when worktree has no repository.
 */
char *gitguard_objects(const char *worktree, const struct gitguard_fs *fs,
		       char **gitdir);

/* The stat data git keeps for an index entry (32-bit, as stored). */
struct gitguard_index_entry {
	uint32_t ctime_sec, ctime_nsec, mtime_sec, mtime_nsec;
	uint32_t dev, ino, mode, uid, gid, size;
	uint16_t flags, ext_flags;
};

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

#endif /* LLW_GITGUARD_H */
