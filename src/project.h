/*
 * The project directory (DESIGN.md §11): -C names it; without -C it is
 * the top level of the git work tree that holds the working directory,
 * found as git finds it (a .git directory or a .git file naming one, as
 * linked worktrees and submodule checkouts have), else the working
 * directory itself.  Pure: the file system through callbacks, so that
 * tests drive it with a table.
 */
#ifndef LLW_PROJECT_H
#define LLW_PROJECT_H

/* The file system as project_toplevel() sees it. */
struct project_fs {
	/* stat(2), following symbolic links: 'd' directory, 'f' regular
	 * file, 'o' other, 0 missing; *dev is the file's device. */
	int (*stat)(void *ctx, const char *path, unsigned long long *dev);
	/* The text of a small file, NUL-terminated; NULL on error. */
	char *(*read_file)(void *ctx, const char *path);
	void *ctx;
};

extern const struct project_fs project_fs_real;

/*
 * The top level of the git work tree that holds dir (absolute,
 * resolved), as git's discovery finds it: the nearest of dir and its
 * ancestors with a .git that is a git directory (HEAD, objects/ and
 * refs/, or a commondir naming where they are) or a .git file whose
 * "gitdir:" names one.  The search stops, finding nothing, at a
 * directory that is itself a git directory (a bare repository, or the
 * inside of .git: no work tree), at a .git file git would refuse, at a
 * .git directory that is not a git directory (git goes on past it; a
 * sandboxed command could make its project's so, for the next run to
 * take the work tree above as its project), at a ceiling (a directory
 * of ceilings strictly above dir and everything above it are not looked
 * at, as GIT_CEILING_DIRECTORIES says) and on leaving dir's file system
 * (git does not cross a mount point either).  A new string, or NULL
 * when dir is in no work tree.
 */
char *project_toplevel(const char *dir, char *const *ceilings,
		       const struct project_fs *fs);

#endif /* LLW_PROJECT_H */
