/*
 * A command-line profile for the unit tests that resolve policies
 * (test-why, test-planner): "section key value; ..." applied as the
 * command line would, a failure failing the test (cmocka).
 */
#ifndef LLW_TESTS_CLIPROFILE_H
#define LLW_TESTS_CLIPROFILE_H

#include "policy.h"
#include "profile.h"
#include "vars.h"

struct profile *cli_profile(const struct vars *v, const char *flags);

/*
 * The policy llwrap resolves for the command "tool" (instance "tool") in
 * project, environment envp, with profile (found in conf_dir) and the
 * command line flags (as cli_profile; NULL: none).  0, or -1 with
 * *cause when the policy is refused.
 */
int cli_policy(char *const *envp, const char *conf_dir, const char *project,
	       const char *profile, const char *flags, struct policy **p,
	       char **cause);

#endif /* LLW_TESTS_CLIPROFILE_H */
