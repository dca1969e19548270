/*
 * The test hooks of tests/helpers/llwrap-hooked (src/testhook.h):
 *
 *	LLW_HOOK_LANDLOCK_ABI=N	use Landlock ABI N if the kernel has it;
 *				0: Landlock missing (ENOSYS)
 *	LLW_HOOK_LANDLOCK_ERR=EOPNOTSUPP
 *				with ABI 0: "disabled at boot" instead
 *	LLW_HOOK_NO_USERNS=1	unprivileged user namespaces refused (EPERM)
 *
 * They only take away: a kernel never gains a feature this way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testhook.h"

int
testhook_landlock_abi(int abi, int *err)
{
	const char *s = getenv("LLW_HOOK_LANDLOCK_ABI");
	const char *e = getenv("LLW_HOOK_LANDLOCK_ERR");
	int want;

	if (s == NULL || *s == '\0' || abi <= 0)
		return abi;
	want = atoi(s);
	if (want >= abi)
		return abi;
	if (want <= 0) {
		*err = e != NULL && strcmp(e, "EOPNOTSUPP") == 0 ? EOPNOTSUPP
								 : ENOSYS;
		return 0;
	}
	return want;
}

bool
testhook_userns_refused(int *err)
{
	const char *s = getenv("LLW_HOOK_NO_USERNS");

	if (s == NULL || strcmp(s, "1") != 0)
		return false;
	*err = EPERM;
	return true;
}
