/*
 * The monotonic clock (see mono.h).
 */
#include <time.h>

#include "mono.h"

uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t
mono_ms(void)
{
	return mono_ns() / 1000000u;
}
