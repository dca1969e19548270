/*
 * [limits] beyond rlimits (DESIGN.md §11): a wall-clock timeout and cgroup
 * v2 limits (memory.max, pids.max) on the command's own cgroup, made in a
 * delegated cgroup (one this user may write, as systemd-run --user --scope
 * gives).  Both need a monitor process outside the command: it arms the
 * timer, puts the command in its cgroup, and afterwards says which limit
 * the command exceeded.
 *
 * The pure part (resources_cgroup_dir, resources_report) is table-tested; the
 * rest touches the kernel.
 */
#ifndef LLW_RESOURCES_H
#define LLW_RESOURCES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Seconds between the timeout's SIGTERM and the SIGKILL that follows. */
#define LLW_TIMEOUT_GRACE 5
/* Seconds the monitor waits for the command's cgroup to empty before it
 * names it as left behind. */
#define LLW_CGROUP_REMOVE_S 5

/* The exit status of a command stopped by the timeout, as timeout(1). */
#define LLW_EXIT_TIMEOUT 124

/*
 * [limits] as the planner decided them (planner.c): each value as set,
 * 0 for none.
 */
struct limits_plan {
	/* rlimits, applied by the command's process (sandbox_enter) */
	uint64_t memory, file_size, processes, files, cpu;
	uint64_t timeout;	       /* wall clock, in seconds */
	uint64_t memory_max, pids_max; /* the command's cgroup */
	bool best_effort; /* without a cgroup, run without memory-max and
			   * pids-max (reported by the plan) */
};

/* Whether l needs the command's own cgroup (memory-max, pids-max). */
static inline bool
limits_plan_cgroup(const struct limits_plan *l)
{
	return l->memory_max > 0 || l->pids_max > 0;
}

/* What happened to the command, as the monitor saw it. */
struct resources_outcome {
	bool timed_out;	       /* the timeout expired: SIGTERM sent */
	bool killed;	       /* ... and SIGKILL after the grace period */
	uint64_t oom_kills;    /* memory.events oom_kill of its cgroup */
	uint64_t pids_refused; /* pids.events max of its cgroup */
};

/*
 * The directory of this process's cgroup v2: proc_cgroup is the text of
 * /proc/self/cgroup, mountinfo that of /proc/self/mountinfo.  0 and a new
 * path in *dir, or -ENOENT (no cgroup v2 line or mount, or the cgroup is
 * not under the mount's root).
 */
int resources_cgroup_dir(const char *proc_cgroup, const char *mountinfo,
			 char **dir);

/*
 * The lines llwrap prints after the command ended with exit status
 * status (128 + N for signal N): each limit of l the command exceeded,
 * named with its value and mechanism.  NULL when none.
 */
char **resources_report(const struct limits_plan *l,
			const struct resources_outcome *o, int status);

/* The state of one run's timeout and cgroup. */
struct resources_run;

/*
 * Whether the cgroup limits of l (memory-max, pids-max) can be enforced
 * here: 0, or -errno and *why, a sentence saying what is missing.  Does
 * not change anything.
 */
int resources_cgroup_probe(const struct limits_plan *l, char **why);

/* The refusal when the cgroup limits of l cannot be enforced for why. */
char *resources_cgroup_refusal(const struct limits_plan *l, const char *why);

/*
 * Before the monitor forks: NULL in *out when l needs no monitor for its
 * limits (no timeout, no cgroup limit).  Otherwise the command's cgroup
 * is made when a delegated one exists (required for memory-max and
 * pids-max unless best effort; for the timeout alone it is optional and
 * lets the timeout end every process of the command, not only its first).
 * 0, or -errno and *cause.
 */
int resources_start(const struct limits_plan *l, struct resources_run **out,
		    char **cause);

/* In the monitor's child, at once: enter the command's cgroup. */
int resources_child(struct resources_run *lr, char **cause);

/* In the monitor, once the child runs: arm the timeout (the monitor loop
 * polls its timer, monitor_watch). */
int resources_parent(struct resources_run *lr, pid_t child);

/* In the monitor, once the child has ended: what happened, then the
 * command's cgroup removed once empty (what the command left running in
 * it first killed; at most LLW_CGROUP_REMOVE_S).  The lines saying which
 * cgroup was left behind and why, the caller's to print and free
 * (nothing here prints). */
char **resources_finish(struct resources_run *lr, struct resources_outcome *o);

/* The rest undone: the monitor's cgroup, where llwrap's helpers ran, so
 * after they are stopped (what is left there killed, then removed as
 * the command's).  The notes not yet taken, the caller's to print. */
char **resources_free(struct resources_run *lr);

#endif
