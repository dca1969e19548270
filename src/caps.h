/*
 * Dropping capabilities: libcap-ng for the effective, permitted,
 * inheritable and ambient sets; capget(2) to ask whether there is
 * anything to drop, and prctl(2) for the bounding set, because libcap-ng
 * learns both by reading /proc/self/status (twice for the bounding set:
 * tens of microseconds in every start-up that drops them).
 */
#ifndef LLW_CAPS_H
#define LLW_CAPS_H

#include <stdbool.h>

/*
 * Whether the calling thread holds any capability: 1 when its effective,
 * permitted or inheritable set is not empty (the ambient set is a subset
 * of the last two), 0 when all three are, -errno when capget(2) fails.
 * *setpcap, when not NULL, is whether CAP_SETPCAP is effective (what
 * dropping the bounding set needs).
 */
int caps_held(bool *setpcap);

/*
 * Drop every capability: the bounding set when bounding is true (it needs
 * CAP_SETPCAP), then the ambient set, then the effective, permitted and
 * inheritable sets.  Returns 0 or -errno of the first call that fails.
 */
int caps_drop(bool bounding);

#endif /* LLW_CAPS_H */
