/*
 * Test hooks: how the kernel matrix's cheap half simulates an older or
 * more restricted kernel on this one.  llwrap links the defaults in
 * testhook.c, which only pass the real facts on; the test binary
 * tests/helpers/llwrap-hooked links tests/helpers/hooks.c instead, which
 * reads LLW_HOOK_* variables.  An installed llwrap has no hook.
 */
#ifndef LLW_TESTHOOK_H
#define LLW_TESTHOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The Landlock ABI to use given the kernel's (abi, 0 when *err says why
 * it is missing).  A hook may only lower it (or make it missing, setting
 * *err): every ABI's rights are a subset of the next one's, so the
 * running kernel enforces exactly what the lower ABI would.
 */
int testhook_landlock_abi(int abi, int *err);

/* True when unprivileged user namespaces are to be treated as refused
 * (then *err is the errno to report). */
bool testhook_userns_refused(int *err);

/* Seconds to add to the clock that addresses learned for allow-host
 * names expire by (a test jumps past a TTL without waiting for it). */
uint64_t testhook_clock_skew(void);

/* The milliseconds a second of the [limits] timeout and its grace
 * period lasts (a test runs them on a faster clock): 1000. */
uint64_t testhook_timer_ms_per_s(void);

/* The bubblewrap binary to run instead of the one bwrap_find() would
 * pick (a test's wrapper around the real one), or NULL. */
const char *testhook_bwrap(void);

/* True when the supervisor is to stop answering at its first
 * notification, as one the command had wedged would (the guardian's
 * timeout and final check must not depend on it). */
bool testhook_supervisor_stalls(void);

/* True when llwrap's resolver is to fail its start, as one the kernel
 * refused a network namespace would (at the first query under L3). */
bool testhook_resolver_fails(void);

/* True when llwrap-relay is to fail its set-up, as one whose confinement
 * the kernel refused would (at the first relayed connect). */
bool testhook_relay_fails(void);

/* The milliseconds the watch on L3's masks waits before it stops the
 * sandbox (maskwatch.h): 0.  A test lets the command write the host's
 * new file first, for the final check to find. */
unsigned testhook_maskwatch_delay_ms(void);

/* The milliseconds the watch on the masks waits before its first look
 * at the view (maskwatch_arm, maskwatch_arm_bwrap): 0.  A test replaces
 * a masked file in between. */
unsigned testhook_maskwatch_arm_delay_ms(void);

/* True when the watch on the masks is to look at them without
 * statmount(2), as on a kernel before 6.8 (it reads the mount table
 * then): false. */
bool testhook_no_statmount(void);

/* The milliseconds a guardian waits before it starts the watch on files
 * run later, which it starts while the supervisor and pid 1 make the
 * sandbox (sandbox.c, guard_and_wait): 0.  A test sees the command wait
 * for it. */
unsigned testhook_watch_start_delay_ms(void);

/* The most directories the end's look for repositories in the project
 * walks (watchlater-git.c): max; a test lowers it to see the failure
 * past it. */
size_t testhook_nested_walk_max(size_t max);

#endif /* LLW_TESTHOOK_H */
