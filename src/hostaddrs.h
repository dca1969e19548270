/*
 * hostaddrs: the addresses that names allowed by allow-host resolved to
 * (DESIGN.md §6.1), each allowed under the entries that named it for
 * the answer's TTL, floored and capped, in bounded memory.  Pure: no
 * system calls; the time ("now", in seconds of a monotonic clock, below
 * 2^32 - HOSTADDRS_TTL_CAP: seconds since boot) is passed in.
 *
 * What reaches the table is the caller's to check: an answer's address
 * in local space (netpolicy_addr_local) or of this host's own is
 * refused as rebinding unless an allow-cidr entry holds it
 * (proxy_decide_address), before it is learned.
 */
#ifndef LLW_HOSTADDRS_H
#define LLW_HOSTADDRS_H

#include <stddef.h>
#include <stdint.h>

#include "hostrule.h"
#include "netpolicy.h"

#define HOSTADDRS_TTL_FLOOR                                                    \
	30u /* s: a TTL of 0 still lets the connect                            \
	     * that follows the lookup through */
#define HOSTADDRS_TTL_CAP                                                      \
	3600u /* s: an address learned stays at most                           \
	       * an hour without another lookup */
#define HOSTADDRS_MAX                                                          \
	10000u /* (address, entry) pairs; then the pair                        \
		* that expires first is replaced */
#define HOSTADDRS_ENTRIES                                                      \
	4u /* allow-host entries one address holds                             \
	    * (names of several entries on one CDN                             \
	    * address); then the first to expire goes */

struct hostaddrs;

struct hostaddrs *hostaddrs_new(void);
void hostaddrs_free(struct hostaddrs *t);

/*
 * Learn that a name allow-host entry rule (an index into the policy's
 * hosts) allows resolved to a (port ignored) with ttl seconds, at now.
 * Learning it again extends it (never shortens).
 */
void hostaddrs_add(struct hostaddrs *t, const struct netpolicy_addr *a,
		   uint16_t rule, uint32_t ttl, uint64_t now);

/*
 * The decision on a connect to a (port set) at now: HOSTRULE_ALLOWED
 * when an entry the address was learned for, unexpired, allows a->port
 * (its own ports, else default_ports), with *rule its index;
 * HOSTRULE_PORT when such entries exist but none on that port (*rule:
 * the first); HOSTRULE_UNLISTED when no allowed name resolves here
 * (*rule -1).  rules: the policy's hosts, n of them.
 */
enum hostrule_verdict hostaddrs_decide(const struct hostaddrs *t,
				       const struct hostrule *rules, size_t n,
				       const struct llw_ports *default_ports,
				       const struct netpolicy_addr *a,
				       uint64_t now, int *rule);

/*
 * The entries (indexes into rules) under which a (port set) was learned,
 * unexpired at now, that allow a->port: at most max of them into out
 * (HOSTADDRS_ENTRIES is enough); returns how many.  The names a
 * connection to a may carry (the relay's check, relay.h).
 */
size_t hostaddrs_entries(const struct hostaddrs *t,
			 const struct hostrule *rules, size_t n,
			 const struct llw_ports *default_ports,
			 const struct netpolicy_addr *a, uint64_t now,
			 uint16_t *out, size_t max);

/* Addresses held with an unexpired entry at now. */
size_t hostaddrs_count(const struct hostaddrs *t, uint64_t now);

/* Bytes the table holds (its arrays), for the memory bound's test. */
size_t hostaddrs_memory(const struct hostaddrs *t);

#endif /* LLW_HOSTADDRS_H */
