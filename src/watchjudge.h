/*
 * The watch judge (DESIGN.md §11, watching): Landlock does not check
 * inotify_add_watch, so a watch could be added on a tree the sandbox may
 * not read (~/.ssh, another project) and show when the user opens or
 * changes the files there.  The supervisor mediates the call: it copies
 * the path out of the caller's memory once, and asks the judge, a helper
 * process it starts at the first watch, to open that path the way the
 * sandbox would.  The judge is restricted by the sandbox's own Landlock
 * ruleset (its domain is a sibling of the sandbox's, which therefore can
 * neither ptrace nor signal it), resolves the path in the sandbox's view
 * (beneath the caller's /proc/PID/root), and opens it for reading: the
 * open succeeds exactly where the sandbox may read.  It hands the open
 * file back, and the supervisor adds the watch on that very object
 * (through /proc/self/fd/N), never walking the path again.
 *
 * Without Landlock (the bubblewrap backend) the judge has no domain and
 * the view alone decides: what is not mounted cannot be watched.
 */
#ifndef LLW_WATCHJUDGE_H
#define LLW_WATCHJUDGE_H

#include <linux/openat2.h>
#include <stdint.h>

struct watchjudge;

/*
 * The open the judge makes for inotify_add_watch's mask: read-only, not
 * blocking on a FIFO, no controlling terminal; IN_ONLYDIR asks for a
 * directory, IN_DONT_FOLLOW refuses a trailing symlink (see
 * watchjudge_open() for a watch on the symlink itself).  Resolution stays
 * beneath the root given (the caller's) and never follows a magic link.
 * Pure.
 */
void watchjudge_how(uint32_t mask, struct open_how *how);

/*
 * A judge under the Landlock ruleset ruleset (-1: none), whose descriptor
 * it takes.  The process starts at the first watchjudge_open(), and keeps
 * no descriptor but its end of a socket.
 */
struct watchjudge *watchjudge_new(int ruleset);

/*
 * Ask the judge to open path (absolute in the caller's view; root is an
 * O_PATH descriptor of the caller's root) for a watch with mask.  0 and
 * an O_CLOEXEC descriptor of the object in *fd, or -errno: the open's
 * error (EACCES where the sandbox may not read), or -EIO when the judge
 * is gone (the next call starts another).
 *
 * With IN_DONT_FOLLOW on a symlink, the judge opens the directory that
 * holds it for reading (the sandbox could list it) and returns an O_PATH
 * descriptor of the symlink.
 */
int watchjudge_open(struct watchjudge *j, int root, const char *path,
		    uint32_t mask, int *fd);

/*
 * Reap the judge if it has exited (on SIGCHLD): under a pid namespace it
 * is one of the sandbox's processes, which the namespace's end kills, and
 * that end waits until each is reaped.  Accepts NULL.
 */
void watchjudge_reap(struct watchjudge *j);

/* Stop the judge (it ends when its socket closes) and close the ruleset.
 * Accepts NULL. */
void watchjudge_free(struct watchjudge *j);

#endif
