/*
 * Path compilation (DESIGN.md §5): turn the policy's filesystem rules, which
 * may nest narrower rules inside wider ones, into what Landlock (allow-only,
 * inherited down the tree) and L3 mount masks can express.
 *
 *  - At one path the rule of the highest rank wins; a path's access is that
 *    of its longest component-wise prefix rule.
 *  - Narrower inside a read-only parent: the parent's rule is replaced by
 *    rules on each of its other entries ("hole punching"); exact.
 *  - Narrower inside a writable parent: a mask (needs L3).  When masks are
 *    not available it fails closed naming the path, unless best effort,
 *    where it punches holes and records the loss in plan->lost.
 *  - Paths that do not exist: a deny is noted, not created; a grant on a
 *    missing path is dropped with a note, and listed in plan->missing
 *    unless the rule says the path may be missing ("?PATH").
 *
 * The filesystem is reached only through struct pathtree_fs so the unit
 * tests can drive the compiler with a table-defined tree.
 */
#ifndef LLW_PATHTREE_H
#define LLW_PATHTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "access.h"

struct pathtree_fs {
	/* Resolve symlinks in the longest existing prefix of path; the rest
	 * is appended as is.  0 and a new absolute path in *out, or -errno. */
	int (*resolve)(void *ctx, const char *path, char **out);
	/* 1 and *is_dir when path exists (following symlinks: a dangling
	 * one does not exist), 0 when it does not, or -errno. */
	int (*stat)(void *ctx, const char *path, bool *is_dir);
	/* Names in directory path, without "." and "..", sorted.  0 and a new
	 * vector in *names, or -errno. */
	int (*list)(void *ctx, const char *path, char ***names);
	void *ctx;
	/* Optional (NULL: resolve and stat are used).  Resolve one component
	 * name inside dir, an existing directory as resolve returned it,
	 * and stat the result: 1 and *is_dir when it exists, 0 when it does
	 * not, with the resolved path in *out either way, or -errno.  It
	 * lets the compiler resolve n rules with about one system call per
	 * distinct path component instead of one per component per rule. */
	int (*resolve_at)(void *ctx, const char *dir, const char *name,
			  char **out, bool *is_dir);
	/* Optional (NULL: resolve_at, name by name).  resolve_at for the n
	 * names in directory dir, its results in r[i], out[i] and
	 * is_dir[i]: the compiler hands it each run of sibling rules, which
	 * one read of the directory can settle. */
	void (*resolve_in)(void *ctx, const char *dir, const char *const *names,
			   size_t n, int *r, char **out, bool *is_dir);
};

/* The real filesystem. */
extern const struct pathtree_fs pathtree_fs_real;

/* Landlock filesystem rights for an access level (LLW_FS_* bits of
 * lib/compat/landlock.h, every ABI; ruleset masks them per ABI). */
uint64_t pathtree_access_bits(enum llw_access a);

/* qsort(v, n, size, cmp), stable, and linear on input that is in order
 * but for a few places (rule lists are). */
void pathtree_sort(void *v, size_t n, size_t size,
		   int (*cmp)(const void *, const void *));

/*
 * A Landlock rule.  Paths are resolved (no symlink in them).  A rule on a
 * non-directory carries LLW_FS_FILE_RIGHTS bits only.
 */
struct plan_rule {
	char *path;
	uint64_t access; /* LLW_FS_* bits, before ABI masking */
	char *origin;	 /* the configured rule this came from */
	bool punched;	 /* produced by hole punching */
};

/*
 * An L3 mount mask: the mount view of path and everything beneath it is
 * set to access, on top of the Landlock rules (the command gets the
 * intersection).  deny: an empty read-only tmpfs for a directory,
 * /dev/null on a nodev mount (every open fails) for a file; ro: a read-only
 * noexec bind of the real path; rx: read-only bind; rw: writable noexec bind;
 * rwx: writable bind.  Masks are applied in the plan's order (parents first); a
 * mask beneath another re-exposes the real path with its own access.  A
 * writable mask occurs only there (`deny ~/.ssh` + `rw ~/.ssh/agent-dir` in a
 * writable ~), when a writable directory is narrowed by execute alone (`rwx
 * P` + `rw P/a`), or for a pin (a rule of rank LLW_RANK_PIN on a writable
 * path): the path bound onto itself with its own access, a mount point the
 * command cannot rename or replace.
 */
struct plan_mask {
	char *path;
	enum llw_access access; /* mostly DENY or RO(X), see above */
	bool is_dir;
	bool pin; /* the path's own access, only to pin it in place */
	char *origin;
};

/*
 * A configured rule at its resolved path (a rule on a symlink at its
 * target's): what the plan was compiled from, so that the rule a path
 * is held by can be named (plan_source_at) without matching the rules
 * as written against the kernel's path.
 */
struct plan_source {
	char *path;    /* resolved */
	char *written; /* as configured */
	enum llw_access access;
	uint32_t rank;
	char *origin;
};

/*
 * Rules and masks are sorted by path component by component ("/" before
 * any other byte, so "/a/b" comes before "/a-b"), one per path; sources
 * so too, at one path in the order the last of which wins.
 */
struct plan {
	struct plan_rule *rules;
	size_t n_rules;
	struct plan_mask *masks; /* for L3; empty unless have_masks */
	size_t n_masks;
	char **notes; /* informational, for --explain */
	char **lost;  /* best-effort losses: NOT ENFORCED lines */
	/* grants on missing paths not marked "?PATH": also in notes, and
	 * reported on stderr before the command runs */
	char **missing;
	/* denied paths that do not exist at the start where the rules would
	 * let the command read a file made there: nothing to mask, so the
	 * mask watch stops the run if one appears (maskwatch.h) */
	char **absent;
	struct plan_source *sources;
	size_t n_sources;
};

/*
 * What the compiler takes of the policy, filled by the planner
 * (planner_pathtree_input); borrowed.
 */
struct pathtree_input {
	const struct llw_path_rule *paths; /* in source order */
	size_t n_paths;
	const char *project; /* ${PROJECT}, or NULL */
	bool best_effort;    /* punch holes where a mask is missing */
};

/*
 * Compile p's filesystem rules.  have_masks says whether L3 mount masks can
 * be used.  Returns 0 and a new plan, or -EPERM with *cause naming the path
 * when a rule cannot be enforced and best effort is off, or -errno.
 */
int pathtree_compile(const struct pathtree_input *p,
		     const struct pathtree_fs *fs, bool have_masks,
		     struct plan **out, char **cause);

/*
 * A plan of p's sources alone (no rules, no masks): what resolving
 * every rule's path costs, for a question about the configured rules
 * before the sandbox is compiled (copy-in's, selftest's).  NULL on an
 * error the compiler would report (a path that cannot be resolved).
 */
struct plan *pathtree_sources(const struct pathtree_input *p,
			      const struct pathtree_fs *fs);

void plan_free(struct plan *plan);

/* Which part of the plan decided. */
enum plan_layer {
	PLAN_NO_RULE,  /* no rule holds the path: Landlock denies */
	PLAN_LANDLOCK, /* a Landlock rule (allowed, or short of right) */
	PLAN_MASK,     /* an L3 mount mask narrowed it */
};

struct plan_verdict {
	bool allowed;
	enum plan_layer layer;
	const char *rule;   /* the deciding rule's or mask's path, or NULL */
	const char *origin; /* the configured rule it came from, or NULL */
	/* The configured rule that holds path (plan_source_at), allowed
	 * or not, or NULL; plan_decide_rules leaves it NULL. */
	const struct plan_source *source;
};

/*
 * The one matcher (DESIGN.md §5): whether the plan lets the command have
 * every bit of right (LLW_FS_* bits) on path, which must be resolved (no
 * symlink: the kernel's view, as /proc/PID/fd names it).  Landlock grants
 * what the rules on path and its ancestors grant together; the deepest
 * mask holding path then narrows it to the mask's access.  The verdict
 * points into plan.
 */
struct plan_verdict plan_decide(const struct plan *plan, const char *path,
				uint64_t right);

/* plan_decide's verdict alone (.allowed), without the source that holds
 * path, which costs a binary search a component more: for the callers
 * that ask about many paths (the seal asks about each entry of each
 * directory it lists). */
bool plan_allows(const struct plan *plan, const char *path, uint64_t right);

/* Whether a rule or a mask of the plan lies at path itself.  Where none
 * does, plan_decide's verdict on path is its parent's: the verdicts
 * change only at the paths of rules and masks. */
bool plan_holds_at(const struct plan *plan, const char *path);

/*
 * The configured rule that holds path (resolved): of the sources whose
 * path is a component-wise prefix of it the deepest, at one path the
 * one that wins there (highest rank, then the latest), as the compiler
 * decides; NULL when none does.  What the rule says, not what is
 * enforced: a grant may be dropped (a missing path), narrowed by a rule
 * beneath it or lost; plan_decide says what the command gets.
 */
const struct plan_source *plan_source_at(const struct plan *plan,
					 const char *path);

/* plan_decide on rules and masks in any order: a ruleset's rules as
 * Landlock gets them (ruleset.h), which why asks. */
struct plan_verdict plan_decide_rules(const struct plan_rule *rules,
				      size_t n_rules,
				      const struct plan_mask *masks,
				      size_t n_masks, const char *path,
				      uint64_t right);

#endif /* LLW_PATHTREE_H */
