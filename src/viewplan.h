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
	/* Shown as the host has them where sealed, though no rule lets
	 * them be read: the unix sockets the network plan allows, which
	 * the supervisor knows by their inode.  NULL-terminated, or NULL;
	 * the planner's (planner_free frees it). */
	char **keep;
	/* llwrap's own data directory (policy.h): where sealed, what of
	 * it may not be read is absent, not a placeholder each (the other
	 * projects' directories: the names of the user's projects, more
	 * with each one an agent ran in); the planner's. */
	char *own_data;
	/* The view is sealed (viewplan_unsealable): nothing in it the plan
	 * does not let the sandbox read but absent or a placeholder the
	 * kernel refuses to read (mode 000), so that the kernel decides
	 * every inotify watch (DESIGN.md, watching). */
	bool seal;
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
	/* The seal (o->seal): */
	VIEWPLAN_SEAL, /* a directory not readable, with something readable
			* beneath: a new tmpfs (mode 0111) holding its
			* entries, or a directory of the one above (made) */
	VIEWPLAN_KEEP, /* a readable entry of a sealed directory: a
			* read-only clone of the real path */
	VIEWPLAN_HIDE, /* what may not be read: a placeholder of mode 000,
			* made in the seal's tmpfs or bound over the path */
	VIEWPLAN_LINK, /* a symbolic link of a sealed directory, made again
			* in its tmpfs (Landlock does not check readlink) */
};

struct viewplan_mount {
	const char *path; /* borrowed: a constant, or the plan's or policy's */
	enum viewplan_kind kind;
	enum llw_access access; /* VIEWPLAN_MASK, VIEWPLAN_BIND */
	bool is_dir;
	bool skip; /* nothing to do */
	bool lazy; /* cloned at attach time, from the view above it */
	/* Cloned at attach time as well, no descriptor held for it till
	 * then: a read-only mask (ro, rx) whose nearest entry above is a
	 * writable root, from (an index of the view).  It is cloned from the
	 * host's tree beneath that root's path (a descriptor of the path
	 * taken before the root's clone covers it), so the same files and
	 * flags as a clone taken at the start, but read-only, which the
	 * mask makes it anyway; and never from the root's clone, where
	 * each clone would walk every mask attached before it. */
	bool late;
	int from;
	bool made; /* created in the seal's tmpfs above it, not mounted */
	int tmpfs; /* index of the tmpfs entry it lies in, or -1 */
	int fd;	   /* ns.c's detached mount; -1 in the plan */
	char *own; /* path, when the plan made it (the seal's entries) */
};

struct viewplan {
	struct viewplan_mount *m;
	size_t n, cap;
};

/* What a path is, as stat(2) (which follows symlinks) says. */
enum viewplan_type {
	VIEWPLAN_TYPE_MISSING, /* stat fails: absent, or out of reach */
	VIEWPLAN_TYPE_DIR,
	VIEWPLAN_TYPE_FILE,  /* a regular file */
	VIEWPLAN_TYPE_OTHER, /* a device, socket or fifo */
	VIEWPLAN_TYPE_LINK,  /* a symbolic link (struct viewplan_fs's list) */
};

/* An entry of a directory, as lstat(2) says. */
struct viewplan_dirent {
	char *name;
	enum viewplan_type type;
};

/* What only the filesystem can tell the plan. */
struct viewplan_fs {
	/* What path is, following symbolic links. */
	enum viewplan_type (*type_of)(void *ctx, const char *path);
	/* The entries of directory path, without "." and "..": 0 with a
	 * new array in *ents (names and array freed by the caller) and
	 * their number in *n, or -errno.  Asked only for a sealed view. */
	int (*list)(void *ctx, const char *path, struct viewplan_dirent **ents,
		    size_t *n);
	/* What path is, as list would say it (not following a final
	 * symbolic link: VIEWPLAN_TYPE_LINK), for a sealed directory not
	 * listed (seal_dir); NULL to list every sealed directory. */
	enum viewplan_type (*entry_type)(void *ctx, const char *path);
	void *ctx;
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
 * directories and the roots not skipped before it.  Last, each entry
 * that may be late is (struct viewplan_mount).
 *
 * With o->seal the view is then sealed, on the plan's verdicts
 * (plan_decide: READ_DIR for a directory, READ_FILE for the rest).  A
 * directory not readable that holds, at any depth, a rule, a mask that
 * is not a denial or an entry above is sealed: a new tmpfs, or a
 * directory of the seal's tmpfs above it (made), whose entries (list)
 * are each a sealed directory again, the same symbolic link, a
 * read-only clone of the real entry where the plan lets it be read (a
 * device too), or a placeholder; "/" takes no tmpfs, so where it is
 * sealed only its entries that may not be read are placeholders, bound
 * over them.  A configured rule's path (the plan's sources) that may not
 * be read in a directory that may is a placeholder bound over it, unless
 * an entry is there.  list failing is an empty directory (its entries on
 * the way to a rule still there).
 */
void viewplan_build(const struct ns_opts *o, const struct viewplan_fs *fs,
		    struct viewplan *v);

/* A sealed directory's entries that may be read are a mount each: past
 * this many read-only rules in directories that may not be listed (/etc
 * as root, hole punched where /etc/sudoers.d is denied; a profile of
 * many files in a directory it does not grant) the view is not sealed. */
#define VIEWPLAN_SEAL_CLONES_MAX 64

/* Why fs's plan cannot be sealed, or NULL when it can: /proc, which the
 * seal leaves as the view has it, must be readable whole (the shipped
 * profiles grant it), and at most VIEWPLAN_SEAL_CLONES_MAX read-only
 * rules may lie in directories that may not be listed. */
const char *viewplan_unsealable(const struct plan *fs);

/* Frees v's entries, not v itself, and leaves it empty; v may be NULL.
 * The descriptors ns.c put in them are its own to close first. */
void viewplan_free(struct viewplan *v);

/* Whether o keeps the private scratch directory path (one of
 * policy_private_tmps) writable. */
bool viewplan_tmp_writable(const struct ns_opts *o, const char *path);

/* The entry is a new tmpfs: a private tmp, a denied directory, or a
 * sealed directory not made in another's tmpfs. */
bool viewplan_is_tmpfs(const struct viewplan_mount *m);

#endif /* LLW_VIEWPLAN_H */
