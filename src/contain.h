/*
 * The container llwrap may run in, and the seccomp filter it inherited:
 * what can be known without privilege (contain_read()), and, from those
 * facts alone, who refused a system call and the option that would allow
 * it (contain_filter_cause(), contain_proc_fix()), for --check and the
 * refusals.
 */
#ifndef LLW_CONTAIN_H
#define LLW_CONTAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum contain_runtime {
	CONTAIN_NONE,	    /* no container seen */
	CONTAIN_DOCKER,	    /* /.dockerenv, /docker/containers/ mounts */
	CONTAIN_PODMAN,	    /* /run/.containerenv, container=podman */
	CONTAIN_CONTAINERD, /* io.containerd mounts (ctr, nerdctl) */
	CONTAIN_KUBERNETES, /* kubepods cgroup, kubelet's mounts */
	CONTAIN_OTHER,	    /* container=NAME in pid 1's environment */
};

struct contain {
	enum contain_runtime runtime;
	char other[32];	       /* CONTAIN_OTHER: the container= value */
	int seccomp;	       /* Seccomp: of /proc/self/status, -1 unknown */
	int seccomp_filters;   /* Seccomp_filters:, -1 unknown */
	bool no_new_privs;     /* NoNewPrivs: 1 */
	bool outer_llwrap;     /* an llwrap ancestor, or LLWRAP set */
	bool dumpable;	       /* PR_GET_DUMPABLE: ptrace may reach it */
	bool default_needs_l3; /* Landlock lacks truncate (ABI < 3): -p
				* default needs L3 too */
};

/* The facts of this process, read live (a few files, no privilege). */
void contain_read(struct contain *c);

/*
 * The runtime from what a process can read: whether /.dockerenv and
 * /run/.containerenv exist, /proc/1/cgroup, /proc/self/mountinfo and the
 * container= value of pid 1's environment (each NULL when unreadable).
 */
enum contain_runtime contain_runtime_of(bool dockerenv, bool containerenv,
					const char *cgroup,
					const char *mountinfo,
					const char *container);

/*
 * Whether the link /proc/self/ns/pid ("pid:[INODE]") names a pid
 * namespace other than the initial one, whose inode number is fixed
 * (PROC_PID_INIT_INO, 0xEFFFFFFC); false when link is NULL (unknown).
 */
bool contain_pidns_nested(const char *link);

/*
 * Whether an llwrap is outside this one: of the ancestors pids[] (the
 * parent first, n of them) with their comms[] (NULL: unknown), one
 * named "llwrap" above the process this llwrap started as (started;
 * self is this process): the guardian and monitor a run forks are its
 * own, never an outer llwrap.
 */
bool contain_outer_in(const pid_t *pids, char *const *comms, size_t n,
		      pid_t self, pid_t started);

/*
 * The same for /proc/self/ns/ipc ("ipc:[INODE]", PROC_IPC_INIT_INO
 * 0xEFFFFFFF): an IPC namespace of a container's own, whose /dev/shm is
 * the container's.
 */
bool contain_ipcns_nested(const char *link);

/* c's Seccomp:, Seccomp_filters: and NoNewPrivs: from a status text. */
void contain_status(struct contain *c, const char *status);

/* The runtime's name ("Docker"), or NULL for CONTAIN_NONE. */
const char *contain_runtime_name(const struct contain *c);

/*
 * A system call (or a set: syscalls names them) refused with EPERM by
 * an inherited seccomp filter: why, as a clause (the runtime's filter
 * and the option that allows them, an outer llwrap's, or one of unknown
 * origin); NULL when c shows no inherited filter.  what says what was
 * refused ("new user namespaces").
 */
char *contain_filter_cause(const struct contain *c, const char *what,
			   const char *syscalls);

/*
 * A system call that needs ptrace access to a child of llwrap's own
 * (pidfd_getfd, process_vm_readv) refused with EPERM: llwrap is not
 * dumpable, an inherited seccomp filter (contain_filter_cause()), or a
 * security module's ptrace rule.
 */
char *contain_ptrace_cause(const struct contain *c, const char *what,
			   const char *syscalls);

/* The option that unmasks /proc in c's runtime, as a clause (a new proc
 * is refused over masked paths), and hide-processes = no unless held:
 * the pid namespace llwrap runs in hides processes already. */
char *contain_proc_fix(const struct contain *c, bool held);

#endif /* LLW_CONTAIN_H */
