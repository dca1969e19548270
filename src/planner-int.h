/*
 * What the planner's parts share: planner.c decides, planner-rules.c
 * makes the rules llwrap adds to the policy's.
 */
#ifndef LLW_PLANNER_INT_H
#define LLW_PLANNER_INT_H

#include <stddef.h>

#include "planner.h"
#include "policy.h"

/*
 * The policy's path rules with llwrap's own added (a new array in *rules,
 * *n entries, whose strings are p's or sb's): configuration files
 * write-protected, protect-git's and protect-later-run's files (sb->git,
 * sb->later, and in sb->git_limits what they cannot protect), and deny
 * rules on files git tracks unchanged made read-only (sb->unhidden).
 * 0, or -EINVAL and *cause when the run must be refused: git's
 * configuration given in the environment is one git refuses
 * (gitconfig_env); the rules are made all the same, for --explain.
 */
int planner_rules(struct sandbox *sb, const struct policy *p,
		  struct llw_path_rule **rules, size_t *n, char **cause);

#endif /* LLW_PLANNER_INT_H */
