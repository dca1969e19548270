/*
 * The plan of L3's mount view (ns.h): which mounts the view needs, in
 * which order, and what to do with each, from the options, the compiled
 * plan and the policy.
 *
 * Pure: no system calls.  What only the filesystem can tell (whether a
 * path is a directory, a regular file, something else or missing)
 * reaches the plan through a callback; ns.c answers it with stat(2) and
 * builds the view the plan describes, tests/unit/test-viewplan.c
 * answers it from a table.
 */
#ifndef LLW_VIEWPLAN_H
#define LLW_VIEWPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pathtree.h"

/* What L3 is asked for (ns.h makes it; the view is planned from it). */
struct ns_opts {
	bool pid; /* new pid namespace; the caller's next child is pid 1 */
	bool net; /* new network namespace with only lo up */
	bool private_tmp;    /* tmpfs on /tmp, /var/tmp and /dev/shm */
	uint64_t tmpfs_size; /* bytes, for each of them; 0: the kernel's */
	bool devpts; /* a devpts instance of its own on /dev/pts and ptmx */
	const struct plan *fs; /* writable roots and masks */
	/* Decided by the planner on the compiled plan (plan_decide), so
	 * that nothing here reads the policy: */
	bool proc_rw;	     /* the fresh /proc is writable */
	unsigned tmp_rw;     /* bit i: policy_private_tmps[i] stays writable */
	const char *project; /* bound under a private /tmp ... */
	enum llw_access project_access; /* ... with this access */
};

/* At one path the entries sort in this order (viewplan_build). */
enum viewplan_kind {
	VIEWPLAN_PROC, /* a fresh proc for the pid namespace */
	VIEWPLAN_TMP,  /* a private /tmp, /var/tmp or /dev/shm */
	VIEWPLAN_PTS,  /* a devpts instance of the sandbox's own */
	VIEWPLAN_ROOT, /* a writable root: the real path as the host has it */
	VIEWPLAN_MASK, /* a plan mask */
	VIEWPLAN_BIND, /* the project under a private /tmp, as the policy
			* has it */
};

struct viewplan_mount {
	const char *path; /* borrowed: a constant, or the plan's or policy's */
	enum viewplan_kind kind;
	enum llw_access access; /* VIEWPLAN_MASK, VIEWPLAN_BIND */
	bool is_dir;
	bool skip; /* nothing to do */
	bool lazy; /* cloned at attach time, from the view above it */
	int tmpfs; /* index of the tmpfs entry it lies in, or -1 */
	int fd;	   /* ns.c's detached mount; -1 in the plan */
};

struct viewplan {
	struct viewplan_mount *m;
	size_t n;
};

/* What a path is, as stat(2) (which follows symlinks) says. */
enum viewplan_type {
	VIEWPLAN_TYPE_MISSING, /* stat fails: absent, or out of reach */
	VIEWPLAN_TYPE_DIR,
	VIEWPLAN_TYPE_FILE,  /* a regular file */
	VIEWPLAN_TYPE_OTHER, /* a device, socket or fifo */
};

/*
 * Fill the empty v with the view o asks for: a fresh /proc with a pid
 * namespace, /dev/pts with devpts, the private tmp directories that
 * type_of says are directories, a root for every rule that writes, the
 * plan's masks, and the project when it lies under a private /tmp and
 * no entry names it.  Sorted by path, parents first; at one path in
 * enum viewplan_kind's order.  Then each entry is decided: a root is
 * skipped where a private tmpfs or the devpts instance takes its path,
 * where the nearest entry above it is writable already, and unless
 * type_of says it is a directory or a regular file; an entry under a
 * private tmpfs is skipped unless it contains the project or lies
 * under it (the new tmpfs is empty); an entry under /proc with a pid
 * namespace is lazy.  tmpfs is the nearest tmpfs entry above
 * (viewplan_is_tmpfs).  type_of is asked about the private tmp
 * directories and the roots not skipped before it, with ctx.
 */
void viewplan_build(const struct ns_opts *o,
		    enum viewplan_type (*type_of)(void *ctx, const char *path),
		    void *ctx, struct viewplan *v);

/* Frees v's entries, not v itself, and leaves it empty; v may be NULL.
 * The descriptors ns.c put in them are its own to close first. */
void viewplan_free(struct viewplan *v);

/* Whether o keeps the private scratch directory path (one of
 * policy_private_tmps) writable. */
bool viewplan_tmp_writable(const struct ns_opts *o, const char *path);

/* The entry is a new tmpfs: a private tmp, or a denied directory. */
bool viewplan_is_tmpfs(const struct viewplan_mount *m);

#endif /* LLW_VIEWPLAN_H */
