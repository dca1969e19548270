/*
 * hostrule: allow-host entries and the name matcher.  See hostrule.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "hostrule.h"
#include "xalloc.h"

static bool
ports_hold(const struct llw_port_range *v, size_t n, uint16_t port)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].lo <= port && port <= v[i].hi)
			return true;
	return false;
}

bool
hostrule_names(const struct hostrule *r, const char *name)
{
	const char *dot = strchr(name, '.');

	if (!r->wildcard)
		return strcmp(name, r->name) == 0;
	return dot != NULL && dot != name && strcmp(dot + 1, r->name) == 0;
}

bool
hostrule_port(const struct hostrule *r, const struct llw_ports *default_ports,
	      uint16_t port)
{
	return r->n_ports > 0
		       ? ports_hold(r->ports, r->n_ports, port)
		       : ports_hold(default_ports->v, default_ports->n, port);
}

enum hostrule_verdict
hostrule_match(const struct hostrule *rules, size_t n,
	       const struct llw_ports *default_ports, const char *name,
	       uint16_t port, const char **origin)
{
	enum hostrule_verdict ret = HOSTRULE_UNLISTED;

	*origin = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct hostrule *r = &rules[i];

		if (!hostrule_names(r, name))
			continue;
		if (hostrule_port(r, default_ports, port)) {
			*origin = r->origin;
			return HOSTRULE_ALLOWED;
		}
		if (ret == HOSTRULE_UNLISTED)
			*origin = r->origin;
		ret = HOSTRULE_PORT;
	}
	return ret;
}
