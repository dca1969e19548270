/* File descriptor helpers. */
#ifndef LLW_FDUTIL_H
#define LLW_FDUTIL_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/*
 * Close every descriptor >= 3 except those listed in keep (n entries),
 * which also get FD_CLOEXEC cleared so they survive exec.  Uses
 * close_range() where the kernel has it, /proc/self/fd otherwise.
 * Returns 0 or -errno.
 */
int fd_close_inherited(const int *keep, size_t n);

/* Read all of fd into a new NUL-terminated buffer (at most max bytes, else
 * -EFBIG).  Returns 0 and *out, or -errno. */
int fd_read_all(int fd, size_t max, char **out, size_t *len);

/* The first line of a small file (at most max bytes) without its newline,
 * as a new string; NULL when it cannot be opened or read. */
char *file_read_line(const char *path, size_t max);

/* mkdir -p: make path and its missing ancestors with mode (an absolute
 * path; those that exist are left as they are).  0 or -errno. */
int dir_make_path(const char *path, mode_t mode);

/*
 * Open path (relative to dirfd, or AT_FDCWD) for reading when it is a
 * regular file, adding flags (O_NOFOLLOW, ...): never waiting in the
 * open (a FIFO or a device someone put where a file was expected opens
 * O_NONBLOCK and is refused), never becoming the controlling terminal.
 * The descriptor (O_CLOEXEC; blocking again), or -errno: -EISDIR for a
 * directory, -EINVAL for anything else that is not a regular file.
 */
int fd_open_regular(int dirfd, const char *path, int flags);

/*
 * Open path (relative to dirfd, or AT_FDCWD) to append to, made with
 * mode where it is missing, when it is a regular file: never through a
 * symbolic link at its name, never waiting in the open (a FIFO with no
 * reader fails -ENXIO there), never becoming the controlling terminal.
 * The descriptor (O_CLOEXEC), or -errno: -ELOOP for a link, -EISDIR for
 * a directory, -EINVAL for anything else that is not a regular file.
 */
int fd_append_regular(int dirfd, const char *path, mode_t mode);

/*
 * Rename name in dirfd beside itself, to NAME.llwrap-blocked-WHEN-RAND
 * (a random 32-bit suffix, tried a few times), never over anything
 * (RENAME_NOREPLACE): what llwrap moves aside on the host, never deleted.
 * 0 and *to (the new name, the caller's), or -errno (-ENOENT: name is
 * gone).
 */
int fd_move_aside(int dirfd, const char *name, time_t when, char **to);

/*
 * The parent pid of the task whose /proc directory is dirfd (/proc/PID or
 * /proc/PID/task/TID, opened by the caller), from its stat file; -1 when
 * it cannot be read (the task is gone: a directory held open keeps
 * naming the task it was opened for, never one that reused its pid).
 */
pid_t proc_parent_at(int dirfd);

/* What the same task's stat file says that llwrap reads. */
struct proc_stat {
	char state; /* R, S, Z, T, ... */
	pid_t ppid;
	int tty; /* its controlling terminal's device number, or 0 */
};

/* The same task's stat: 0, or -1 as above. */
int proc_stat_at(int dirfd, struct proc_stat *st);

/*
 * The kernel frees an inotify instance with marks after an SRCU grace
 * period, which the close(2) of its last reference (or the exit of its
 * last holder) waits for: 2-15 ms measured on 6.18, which would be added
 * to every run; and a mount namespace after an RCU grace period
 * (synchronize_rcu_expedited in namespace_unlock, with every mount of it
 * unmounted first), which the exit of its last process waits for.  A
 * helper holds a further reference to each of fds (at most FD_HOLD_MAX)
 * and nothing else until this process has exited (a pidfd: readable once
 * the exit has released every descriptor), and takes those waits then,
 * after whoever waits for this process has seen its end.  It shares this
 * process's memory (CLONE_VM: no page table copied), runs system calls
 * alone and blocks every signal; a monitor that ends its children spares
 * it (monitor_spare).  Once per process, before any pid namespace is
 * unshared (its next child would be that namespace's pid 1).  With more,
 * *more is the sending end (close-on-exec) of a socket over which this
 * process or a child of it hands the helper a descriptor made later
 * (fd_hold_send; at most FD_HOLD_MORE kept, later ones closed at once),
 * -1 without one; n may be 0 then.  Its pid, or -1 when it cannot run
 * (the last close then waits).
 */
#define FD_HOLD_MAX  4
#define FD_HOLD_MORE 2
pid_t fd_hold(const int *fds, size_t n, int *more);

/* Hand fd to the helper over more (fd_hold), never waiting; the caller
 * still closes its own fd.  Nothing when either is -1; a helper that
 * cannot take it (gone, full) leaves the last close to the caller. */
void fd_hold_send(int more, int fd);

/*
 * RLIMIT_NOFILE for a process that holds a descriptor per rule or per
 * mount (a clone per mask, root's rule paths held open): its soft limit
 * raised to the hard one, the soft limit it had kept (copied by fork) so
 * that fd_limit_restore() gives it back in the process that execs
 * something else (the command, bubblewrap), which keeps the limit it was
 * given.  A failed raise is no error: the limit stays as it was, and an
 * open past it fails as it would have.  A second raise keeps the first
 * one's limit.
 */
void fd_limit_raise(void);

/* The soft limit fd_limit_raise() found, set again: 0 (also with no raise
 * before), or -errno. */
int fd_limit_restore(void);

#endif /* LLW_FDUTIL_H */
