/*
 * The merge (DESIGN.md §4): one source's entries, typed already
 * (profile.h), applied to the policy being resolved by each key's merge
 * rule (keys.h): path rules kept with their rank (pathtree picks the
 * winner per path), "none" removing the key's rules applied so far; port
 * and item lists unions, each value once, "none" clearing them; scalars
 * the last, most specific, source's, "none" their built-in default; a
 * project's .llwrap.ini checked against what less specific sources
 * allow (paths, ports, mode).  policy.c finds, orders and loads the
 * sources and drives it; nothing else includes this header.
 */
#ifndef LLW_POLICY_MERGE_H
#define LLW_POLICY_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "profile.h"

/* Resolution state (policy_resolve). */
struct resolver {
	const struct policy_request *req;
	struct vars *vars;
	struct policy *p;
	uint32_t rank;	/* rank of the last source applied */
	char **applied; /* profile->file of every source applied */
	char **stack;	/* the include chain being applied */
	char **names;	/* the run's profiles, for [match] profile */
	/* [filesystem] git-config: the files, their origins and ranks */
	struct llw_path_rule *git;
	size_t n_git;
};

/* Apply the entries of prof (not its includes) at the given rank.
 * Returns 0, or -EINVAL with *cause (a project's widening line). */
int policy_merge_profile(struct resolver *r, const struct profile *prof,
			 uint32_t rank, char **cause);

/* [filesystem] git-config, once every source is applied: each file
 * read-only with what it makes git read (policy-merge.c says which). */
void policy_merge_git_config(struct resolver *r);
void policy_merge_git_clear(struct resolver *r);

/* Append value to it unless it is there (the first origin stays). */
void policy_merge_items_add(struct llw_items *it, const char *value,
			    const char *origin);

/* fnmatch(glob, name, 0), fast for a name or a PREFIX* glob. */
bool policy_merge_env_glob_match(const char *glob, const char *name);

/* Free what the merge put in p (its lists and rules), not p. */
void policy_merge_values_free(struct policy *p);

#endif /* LLW_POLICY_MERGE_H */
