/*
 * Files run later that do not exist when the sandbox starts (DESIGN.md
 * §11; known limits git.commondir, proj.envrc, git.gitlink): a read-only
 * mount needs something to mount on, so the monitor outside the command
 * watches for them instead.  With inotify (IN_CREATE, IN_MOVED_TO) on the
 * directories that would hold them, it moves each one aside as soon as
 * the command makes it (renamed to NAME.llwrap-blocked-TIME beside it,
 * never deleted), and names it after the run with the time it existed
 * under its name.
 *
 * The same watch covers the repository's index: a gitlink (a submodule
 * entry) that was not there at the start, or whose checkout had no .git
 * then, gets its checkout's .git moved aside, since host git looks into
 * a populated submodule (git status, git diff) and runs what that
 * repository's configuration names.  What remains is the window between
 * creation and the move (a host git running in that instant), measured
 * in bench/RESULTS.md.
 */
#ifndef LLW_WATCHLATER_H
#define LLW_WATCHLATER_H

#include <stdbool.h>

struct watchlater;

/*
 * Before the monitor forks: watch the parent directories of missing
 * (absolute paths that do not exist yet, as gitguard lists them) and,
 * when gitlinks is set and project has a .git directory, its index.
 * 0 and NULL in *out when there is nothing to watch; -errno when inotify
 * cannot be used.
 */
int watchlater_start(const char *project, char *const *missing, bool gitlinks,
		     struct watchlater **out);

/* In the monitor's child: close the watch. */
void watchlater_child(struct watchlater *w);

/* In the monitor, once the child runs: handle events in its loop. */
void watchlater_parent(struct watchlater *w);

/* In the monitor, once the command has ended: handle what is pending,
 * check once more, and stop watching. */
void watchlater_finish(struct watchlater *w);

/* What was moved aside, as the lines llwrap prints after the run; NULL
 * when nothing was. */
char **watchlater_report(const struct watchlater *w);

/* Whether path was moved aside (sandbox_check_created need not warn). */
bool watchlater_moved(const struct watchlater *w, const char *path);

void watchlater_free(struct watchlater *w);

#endif
