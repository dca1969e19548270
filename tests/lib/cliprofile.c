/* The unit tests' command-line profile (cliprofile.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cleanup.h"
#include "cliprofile.h"
#include "strv.h"
#include "xalloc.h"

struct profile *
cli_profile(const struct vars *v, const char *flags)
{
	struct profile *cli = profile_new("command line", PROFILE_KIND_CLI);
	_cleanup_free_ char *copy = flags ? xstrdup(flags) : NULL;
	char *save = NULL;

	for (char *f = copy ? strtok_r(copy, ";", &save) : NULL; f != NULL;
	     f = strtok_r(NULL, ";", &save)) {
		_cleanup_strv_ char **w = strv_split_blank(f);
		_cleanup_free_ char *cause = NULL;

		assert_int_equal(strv_length(w), 3);
		if (profile_add(cli, v, w[0], w[1], w[2], 0, &cause) < 0)
			fail_msg("%s", cause);
	}
	return cli;
}

int
cli_policy(char *const *envp, const char *conf_dir, const char *project,
	   const char *profile, const char *flags, struct policy **p,
	   char **cause)
{
	char *profiles[] = { (char *)profile, NULL };
	char *path[] = { (char *)conf_dir, NULL };
	struct vars *vars = vars_new(envp, project, "tool");
	struct profile *cli = cli_profile(vars, flags);
	struct policy_request req = {
		.envp = envp,
		.project = project,
		.command = "tool",
		.name = "tool",
		.profiles = profiles,
		.profile_path = path,
		.cli = cli,
	};
	int r = policy_resolve(&req, p, cause);

	profile_free(cli);
	vars_free(vars);
	return r < 0 ? -1 : 0;
}
