/*
 * hostrule: allow-host entries (DESIGN.md §6.1) as typed rules, and the
 * name matcher.  Pure: no system calls.
 */
#ifndef LLW_HOSTRULE_H
#define LLW_HOSTRULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "value.h"

enum hostrule_verdict {
	HOSTRULE_ALLOWED,  /* an allow-host entry holds name and port */
	HOSTRULE_UNLISTED, /* no entry names it */
	HOSTRULE_PORT,	   /* an entry names it, not on this port */
};

/* struct hostrule, an allow-host entry, and its grammar (value_host)
 * are value.h's. */

/* Whether r names name (lower case, no trailing dot), on any port. */
bool hostrule_names(const struct hostrule *r, const char *name);

/* Whether r allows port: its own ports, else default_ports. */
bool hostrule_port(const struct hostrule *r,
		   const struct llw_ports *default_ports, uint16_t port);

/*
 * Whether rules (n of them) let name (lower case, no trailing dot) be
 * reached on port, with default_ports for entries without their own;
 * *origin is the origin of the entry that allowed it, or else of the
 * first that named it.
 */
enum hostrule_verdict hostrule_match(const struct hostrule *rules, size_t n,
				     const struct llw_ports *default_ports,
				     const char *name, uint16_t port,
				     const char **origin);

#endif /* LLW_HOSTRULE_H */
