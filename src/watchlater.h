/*
 * Files run later that do not exist when the sandbox starts (DESIGN.md
 * §11; known limits git.commondir, proj.envrc, git.gitlink): a read-only
 * mount needs something to mount on, so a process outside the command
 * watches for them instead.  With inotify (IN_CREATE, IN_MOVED_TO) on the
 * directories that would hold them, it moves each one aside as soon as
 * the command makes it (renamed to NAME.llwrap-blocked-TIME beside it,
 * never deleted), and names it after the run with the time it existed
 * under its name.
 *
 * The same watch covers the repository's index: a gitlink (a submodule
 * entry) whose checkout gets a .git it did not have at the start has that
 * .git moved aside, since host git looks into a populated submodule (git
 * status, git diff) and runs what that repository's configuration names.
 * What remains is the window between creation and the move (a host git
 * running in that instant), measured in bench/RESULTS.md.
 *
 * The watcher has the user's full rights and acts on a tree the command
 * writes (DESIGN.md §15), so it acts only through descriptors it opened
 * itself: the project (and a repository outside it) opened at the start,
 * everything else opened beneath them with openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV), names from the index validated
 * as git validates them (gitguard_verify_path), and never a rename of
 * the project, a repository, a pinned path or a checkout that was there
 * at the start (compared by device and inode, recorded at the start).
 * The index is opened without blocking and read only when it is a
 * regular file.  What it could not check (an index it cannot read, a
 * descriptor it cannot open, more than it may watch) makes the run fail
 * loudly (watchlater_failures), never pass quietly; while the command
 * runs, it stops the sandbox at once (watchlater_parent).
 *
 * It runs in the outermost process of the run (sandbox.c's guardian),
 * which the command cannot stall or stop: it holds no descriptor the
 * command holds, and it makes the final sweep after the command and its
 * supervisor have ended, however they ended.
 */
#ifndef LLW_WATCHLATER_H
#define LLW_WATCHLATER_H

#include <stdbool.h>
#include <sys/types.h>

struct gitguard;
struct watchlater;

/* The most directories watched, besides those beneath a repository's
 * logs/ and worktrees/ (WATCHLATER_TREE_DIRS): past it the check fails
 * closed (and past GITGUARD_MAX_LINKS gitlinks in one index). */
#define WATCHLATER_MAX_DIRS 1024
/* The moves named one by one after the run; more are counted. */
#define WATCHLATER_MAX_LINES 20

/*
 * Before the command runs (the monitor, before it forks; a guardian over
 * a pid namespace, once it has forked the supervisor, whose go-ahead to
 * the command waits for it: sandbox.c): watch the parent directories of the
 * missing paths of git and later (absolute, as gitguard lists them) and, when
 * git is not NULL and the project has a repository, its index.  The paths
 * gitguard protects (git's entries) are recorded as never to be moved.
 * 0 and NULL in *out when there is nothing to watch or check; -errno
 * and *cause when the watch cannot be set up (an index llwrap cannot
 * read included: what it could not check later it refuses now).
 * holds (NULL, or absolute paths beneath project): without L3, the files
 * and directories of git and later the monitor holds as they are now in
 * place of read-only mounts (DESIGN.md §14): a changed one is moved
 * aside and the start's content restored, a new name in a held
 * directory moved aside; a git config only when it sets what could run
 * a command (gitguard_config_unsafe).  More than WATCHLATER_HOLD_MAX of
 * them, a file over 1 MiB or a symbolic link among them is refused.
 */
int watchlater_start(const char *project, const struct gitguard *git,
		     const struct gitguard *later, char *const *holds,
		     struct watchlater **out, char **cause);

/* The watch's inotify instance (for fd_hold), or -1. */
int watchlater_inotify(const struct watchlater *w);

/* In the monitor's child: close the watch. */
void watchlater_child(struct watchlater *w);

/* In the monitor, once its child (the command, or the supervisor above
 * it) runs: handle events in its loop.  A watch that fails while the
 * command runs (a directory it cannot watch: a bound, the user's inotify
 * limit) kills that child, which ends the sandbox: the run is stopped,
 * not left going unwatched (watchlater_stopped). */
void watchlater_parent(struct watchlater *w, pid_t child);

/* In the monitor, once the command has ended: handle what is pending,
 * check everything once more, and stop watching. */
void watchlater_finish(struct watchlater *w);

/* What was moved aside, and what was made that is not, as the lines
 * llwrap prints after the run; NULL when nothing was. */
char **watchlater_report(const struct watchlater *w);

/* Why the check could not be completed, one sentence each; NULL when it
 * was.  The run then fails (sandbox.c). */
char **watchlater_failures(const struct watchlater *w);

/* Whether the watch stopped the run (watchlater_parent). */
bool watchlater_stopped(const struct watchlater *w);

void watchlater_free(struct watchlater *w);

#endif
