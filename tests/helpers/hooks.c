/*
 * The test hooks of tests/helpers/llwrap-hooked (src/testhook.h):
 *
 *	LLW_HOOK_LANDLOCK_ABI=N	use Landlock ABI N if the kernel has it;
 *				0: Landlock missing (ENOSYS)
 *	LLW_HOOK_LANDLOCK_ERR=EOPNOTSUPP
 *				with ABI 0: "disabled at boot" instead
 *	LLW_HOOK_NO_USERNS=1	unprivileged user namespaces refused (EPERM)
 *	LLW_HOOK_CLOCK_SKEW=FILE	the seconds FILE holds (read each
 *				time) are added to the clock of learned
 *				addresses
 *	LLW_HOOK_SECOND_MS=N	a second of the [limits] timeout and
 *				its grace period lasts N ms (1..1000)
 *	LLW_HOOK_BWRAP=PATH	run PATH as bubblewrap (a wrapper around
 *				the real one that misbehaves as a slow
 *				bwrap can)
 *	LLW_HOOK_SUPERVISOR_STALL=1
 *				the supervisor stops answering at its
 *				first notification (a wedged one)
 *	LLW_HOOK_RESOLVER_FAILS=1
 *				llwrap's resolver fails its start (its
 *				namespace refused)
 *	LLW_HOOK_RELAY_FAILS=1	llwrap-relay fails its set-up (its
 *				confinement refused)
 *	LLW_HOOK_NESTED_WALK_MAX=N
 *				the look for repositories after the run
 *				walks at most N directories (fewer only)
 *	LLW_HOOK_NO_STATMOUNT=1	the watch on the masks looks at them as
 *				on a kernel before 6.8 (the mount table)
 *
 * They only take away: a kernel never gains a feature this way, and
 * LLW_HOOK_BWRAP's wrapper runs the real bwrap.
 */
#include <errno.h>
#include <stdio.h>
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

uint64_t
testhook_clock_skew(void)
{
	const char *path = getenv("LLW_HOOK_CLOCK_SKEW");
	unsigned long long v = 0;
	FILE *f = path ? fopen(path, "re") : NULL;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

uint64_t
testhook_timer_ms_per_s(void)
{
	const char *s = getenv("LLW_HOOK_SECOND_MS");
	long v = s != NULL ? atol(s) : 0;

	return v >= 1 && v <= 1000 ? (uint64_t)v : 1000;
}

const char *
testhook_bwrap(void)
{
	const char *s = getenv("LLW_HOOK_BWRAP");

	return s != NULL && *s == '/' ? s : NULL;
}

bool
testhook_supervisor_stalls(void)
{
	const char *s = getenv("LLW_HOOK_SUPERVISOR_STALL");

	return s != NULL && strcmp(s, "1") == 0;
}

bool
testhook_resolver_fails(void)
{
	const char *s = getenv("LLW_HOOK_RESOLVER_FAILS");

	return s != NULL && strcmp(s, "1") == 0;
}

bool
testhook_relay_fails(void)
{
	const char *s = getenv("LLW_HOOK_RELAY_FAILS");

	return s != NULL && strcmp(s, "1") == 0;
}

unsigned
testhook_maskwatch_delay_ms(void)
{
	const char *s = getenv("LLW_HOOK_MASKWATCH_DELAY_MS");

	return s != NULL ? (unsigned)strtoul(s, NULL, 10) : 0;
}

unsigned
testhook_maskwatch_arm_delay_ms(void)
{
	const char *s = getenv("LLW_HOOK_MASKWATCH_ARM_DELAY_MS");

	return s != NULL ? (unsigned)strtoul(s, NULL, 10) : 0;
}

bool
testhook_no_statmount(void)
{
	const char *s = getenv("LLW_HOOK_NO_STATMOUNT");

	return s != NULL && strcmp(s, "1") == 0;
}

unsigned
testhook_watch_start_delay_ms(void)
{
	const char *s = getenv("LLW_HOOK_WATCH_START_DELAY_MS");

	return s != NULL ? (unsigned)strtoul(s, NULL, 10) : 0;
}

size_t
testhook_nested_walk_max(size_t max)
{
	const char *s = getenv("LLW_HOOK_NESTED_WALK_MAX");
	unsigned long v = s != NULL ? strtoul(s, NULL, 10) : 0;

	return v >= 1 && v < max ? (size_t)v : max;
}
