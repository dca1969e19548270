/*
 * The values a policy and its compiled plan share: access levels, the
 * network mode, source ranks, a filesystem rule with its origin, an
 * address with its origin, a copy, who set a scalar.  Plain data and the words
 * for it, so that the compiler (pathtree.h), the kernel glue and the command's
 * questions use them without seeing struct policy, which only the planner reads
 * (policy.h, DESIGN.md §8).  The functions keep their policy_ names:
 * they are the policy's vocabulary.
 */
#ifndef LLW_ACCESS_H
#define LLW_ACCESS_H

#include <stdbool.h>
#include <stdint.h>

#include "value.h"

/* Access levels of DESIGN.md §4, ordered from nothing to everything. */
enum llw_access {
	LLW_ACCESS_DENY = 0,
	LLW_ACCESS_RO,	/* read files, list directories */
	LLW_ACCESS_RX,	/* ro + execute */
	LLW_ACCESS_RW,	/* ro + write, create, remove, rename, truncate */
	LLW_ACCESS_RWX, /* rw + execute */
};

/* "deny", "ro", ... ; NULL for an out-of-range value. */
const char *policy_access_name(enum llw_access a);

/* True when access a grants something b does not (a is not within b). */
bool policy_access_wider(enum llw_access a, enum llw_access b);

/* True when access a lets the command create or modify entries. */
bool policy_access_writable(enum llw_access a);

/* True when access a lets the command execute files. */
bool policy_access_executable(enum llw_access a);

enum llw_net_mode {
	LLW_NET_FILTERED = 0, /* Landlock port rules + seccomp family list */
	LLW_NET_NONE,	      /* no network at all */
	LLW_NET_HOST,	      /* no network restriction */
};

const char *policy_net_mode_name(enum llw_net_mode m);

/*
 * Source ranks, least to most specific (DESIGN.md §4).  A rank is a
 * position in the list of sources; policy_resolve() gives each source its
 * own rank so two profiles given with -p are ordered too.  The builtin
 * default is rank 0; config-file write protection (§4.4) uses
 * LLW_RANK_CONFIG, above every source.
 */
#define LLW_RANK_CONFIG UINT32_MAX
/* A pin (protect-git): the path is bound onto itself so that it cannot be
 * renamed or replaced; its access does not change.  Below config-file
 * protection, above every source. */
#define LLW_RANK_PIN (UINT32_MAX - 1)
/* A rule llwrap adds for a layer of its own (the terminals without L3,
 * a linked worktree's repository under protect-git): above every source
 * at its path, and not a guard, so it grants like any rule. */
#define LLW_RANK_LLWRAP (UINT32_MAX - 2)

/* The default size of a private tmpfs, in percent of memory: the
 * kernel's own default is half of it, per mount. */
#define LLW_TMPFS_PERCENT 25

/* A filesystem rule. */
struct llw_path_rule {
	char *path; /* absolute, normalised ("/a/b", no trailing /) */
	enum llw_access access;
	uint32_t rank; /* rank of the source that set it */
	char *origin;  /* "file:line", "command line", "built-in" */
	bool optional; /* "?PATH": dropped quietly when it is missing */
};

/* A listen or dns address with its origin. */
struct llw_addr_rule {
	struct netpolicy_addr addr;
	char *origin;
};

/* [filesystem] copy = SRC DST (copyin.h). */
struct llw_copy {
	char *src, *dst; /* absolute, as written after expansion */
	bool optional;	 /* ?SRC: may be missing, quietly */
	char *origin;
};

/* A scalar setting: its value is in the policy, here is who set it. */
struct llw_scalar_origin {
	char *origin; /* NULL while the built-in default stands */
};

/*
 * The shared scratch directories private-tmp replaces with a tmpfs of the
 * sandbox's own (DESIGN.md §11), where they exist; NULL-terminated.
 */
extern const char *const policy_private_tmps[];

/* The private scratch directory path lies in, or NULL. */
const char *policy_private_tmp_of(const char *path);

/*
 * Whether the new tmpfs of a private scratch directory hides path: it
 * lies beneath one, and neither holds the project nor lies in it.  The
 * view (L3's and bubblewrap's) binds only those there, as the host has
 * them; a rule on any other path there grants nothing.
 */
bool policy_private_tmp_hides(const char *path, const char *project);

#endif /* LLW_ACCESS_H */
