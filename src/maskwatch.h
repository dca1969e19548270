/*
 * The watch on the view's masks, L3's and bubblewrap's (DESIGN.md §5,
 * §15; review finding F1): every mask of the view is a mount on a host
 * directory entry, and the kernel detaches it, in every mount namespace but the
 * caller's, when the host unlinks or renames over that entry (an editor's save,
 * git's config.lock).  The path then shows the host's new file, which the
 * command may read or write as its directory allows.
 *
 * The command cannot mount (L2 refuses every mount call), so a change
 * of the sandbox's mount table during the run is the host's doing.  The
 * process that waits for the command in the sandbox's mount namespace
 * (pid 1 of its pid namespace, or the monitor the planner gives a run
 * without one: struct planner_shape's masks) holds the table
 * (/proc/self/mountinfo, opened once the view is built) in its loop;
 * under bubblewrap the monitor above bwrap watches its pid 1's table
 * (maskwatch_arm_bwrap).  When a mask's mount has gone the watcher
 * stops the whole sandbox at once, and the run fails (125) with a
 * message saying which path and what to do.
 * The final check then looks at each git configuration a read-only mask
 * held: one that changed and now sets what could run a command (or
 * sends git elsewhere) is moved aside, never deleted.
 *
 * A denied path that does not exist at the start has no mask (review35
 * H6): the nearest directory on its way is watched for its name, and
 * one made there, where the view shows that directory, stops the
 * sandbox the same way (plan->absent).
 */
#ifndef LLW_MASKWATCH_H
#define LLW_MASKWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct plan;
struct maskwatch;

/*
 * Before any fork of the run, in the host's view: the masks of fs to
 * watch, a page shared by every process of the run's (where the watcher
 * records what it saw), and each git configuration a read-only mask
 * holds (its directory's descriptor and the start's content); the
 * directories on the way to fs's missing denied paths, watched from
 * here (one there already refuses the run, -ESTALE).  0 and NULL in
 * *out when fs has no mask and no such path; -errno and *cause on
 * failure.
 */
int maskwatch_new(const struct plan *fs, struct maskwatch **out, char **cause);

/* The inotify instance on the masks' directories (for fd_hold), or -1. */
int maskwatch_inotify(const struct maskwatch *m);

/*
 * In the process that builds L3's view (ns.c), as each mask is attached:
 * the mask at path is mnt_fd's mount.  A mask the view does not mount
 * (beneath a placeholder) is not watched.  Nothing when m is NULL.
 */
void maskwatch_mounted(struct maskwatch *m, const char *path, int mnt_fd);

/*
 * In the watcher, once the view is built and before the command starts:
 * check that each mask's mount (maskwatch_mounted) is still there (one
 * the host removed meanwhile refuses the run) and watch the table
 * (monitor_watch_mounts).  pid1: this process is pid 1 of the
 * sandbox's pid namespace, and stops it with kill(-1); else it is the
 * command's parent and subreaper, and stops every child it has
 * (monitor_end_orphans).  -errno and *cause when the table cannot be
 * read (the run is refused: what cannot be watched does not start).
 * Nothing when m is NULL.
 */
int maskwatch_arm(struct maskwatch *m, bool pid1, char **cause);

/*
 * The same for bubblewrap's sandbox, in the monitor that forked bwrap
 * (pid), its subreaper: bwrap's child, the sandbox's pid 1, is looked
 * for every millisecond until it has forked the command (bwrap's view
 * is built then), and its mount table is watched from then on; a mask
 * gone SIGKILLs that pid 1.  -errno and *cause when the timer cannot
 * start.
 */
int maskwatch_arm_bwrap(struct maskwatch *m, pid_t bwrap, char **cause);

/* In the watcher that is not pid 1, once it has forked the command:
 * the process it stops first.  Nothing when m is NULL. */
void maskwatch_child(struct maskwatch *m, pid_t child);

/* In the watcher, once its loop has returned: the teardown's changes are
 * not watched.  Nothing when m is NULL or not armed. */
void maskwatch_disarm(struct maskwatch *m);

/*
 * In the process that reports the run, after its final checks: when a
 * mask went, check the git configurations (above) and return the lines
 * to print (which path went and what to do; each configuration moved
 * aside), and the run fails (125); NULL when nothing happened.
 */
char **maskwatch_finish(struct maskwatch *m);

void maskwatch_free(struct maskwatch *m);

/*
 * Pure, on table (the text of a /proc/PID/mountinfo), read once:
 * maskwatch_mount_ids sets ids[i] to the mount on top at paths[i]
 * (sorted by path_cmp), -1 where none is; maskwatch_gone is the first i
 * whose ids[i] (>= 0) the table no longer holds at paths[i] (gone, or
 * moved with an entry the host renamed away), -1 when none.
 */
void maskwatch_mount_ids(const char *table, char *const *paths, size_t n,
			 int *ids);
ssize_t maskwatch_gone(const char *table, char *const *paths, const int *ids,
		       size_t n);

#endif /* LLW_MASKWATCH_H */
