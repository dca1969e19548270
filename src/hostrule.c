/*
 * hostrule: allow-host entries and the name matcher.  See hostrule.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "hostrule.h"
#include "httpreq.h"
#include "profile.h"
#include "xalloc.h"

void
hostrule_clear(struct hostrule *r)
{
	free(r->name);
	for (size_t i = 0; i < r->n_ports; i++)
		free(r->ports[i].origin);
	free(r->ports);
	memset(r, 0, sizeof(*r));
}

int
hostrule_parse(const char *s, struct hostrule *r)
{
	const char *colon = strchr(s, ':'), *name = s;
	size_t n = colon ? (size_t)(colon - s) : strlen(s);

	memset(r, 0, sizeof(*r));
	if (n > 2 && s[0] == '*' && s[1] == '.') {
		r->wildcard = true;
		name += 2;
		n -= 2;
	}
	if (!httpreq_name_valid(name, n) || memchr(name, '*', n) != NULL)
		return -EINVAL;
	if (name[n - 1] == '.')
		n--;
	r->name = xstrndup(name, n);
	for (char *c = r->name; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	if (colon != NULL) {
		_cleanup_free_ char *copy = xstrdup(colon + 1);
		char *save = NULL;

		for (char *t = strtok_r(copy, ",", &save); t != NULL;
		     t = strtok_r(NULL, ",", &save)) {
			uint16_t lo, hi;

			if (profile_port_range(t, &lo, &hi) < 0 || lo == 0) {
				hostrule_clear(r);
				return -EINVAL;
			}
			r->ports = xreallocarray(r->ports, r->n_ports + 1,
						 sizeof(*r->ports));
			r->ports[r->n_ports++] =
				(struct llw_port_range){ lo, hi, NULL };
		}
		if (r->n_ports == 0) {
			hostrule_clear(r);
			return -EINVAL;
		}
	}
	return 0;
}

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
