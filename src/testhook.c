/*
 * The test hooks of an installed llwrap: none (testhook.h).  Weak, so
 * that tests/helpers/hooks.c replaces them in the test binary.
 */
#include <stddef.h>

#include "testhook.h"

__attribute__((weak)) int
testhook_landlock_abi(int abi, int *err)
{
	(void)err;
	return abi;
}

__attribute__((weak)) bool
testhook_userns_refused(int *err)
{
	(void)err;
	return false;
}

__attribute__((weak)) uint64_t
testhook_clock_skew(void)
{
	return 0;
}

__attribute__((weak)) uint64_t
testhook_timer_ms_per_s(void)
{
	return 1000;
}

__attribute__((weak)) const char *
testhook_bwrap(void)
{
	return NULL;
}

__attribute__((weak)) bool
testhook_supervisor_stalls(void)
{
	return false;
}

__attribute__((weak)) bool
testhook_resolver_fails(void)
{
	return false;
}

__attribute__((weak)) bool
testhook_relay_fails(void)
{
	return false;
}

__attribute__((weak)) unsigned
testhook_maskwatch_delay_ms(void)
{
	return 0;
}

__attribute__((weak)) unsigned
testhook_maskwatch_arm_delay_ms(void)
{
	return 0;
}

__attribute__((weak)) bool
testhook_no_statmount(void)
{
	return false;
}

__attribute__((weak)) unsigned
testhook_watch_start_delay_ms(void)
{
	return 0;
}

__attribute__((weak)) size_t
testhook_nested_walk_max(size_t max)
{
	return max;
}
