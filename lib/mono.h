/*
 * The monotonic clock (CLOCK_MONOTONIC), for deadlines and intervals.
 */
#ifndef LLW_MONO_H
#define LLW_MONO_H

#include <stdint.h>

/* Now, in nanoseconds and in milliseconds. */
uint64_t mono_ns(void);
uint64_t mono_ms(void);

#endif /* LLW_MONO_H */
