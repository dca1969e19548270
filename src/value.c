/*
 * Values: the grammars of profile values and flags (value.h).  Pure.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cleanup.h"
#include "httpreq.h"
#include "strv.h"
#include "value.h"
#include "xalloc.h"

/* Set *cause (when asked for) and return -EINVAL. */
static int __attribute__((format(printf, 2, 3)))
bad(char **cause, const char *fmt, ...)
{
	va_list ap;

	if (cause == NULL)
		return -EINVAL;
	va_start(ap, fmt);
	*cause = xvasprintf(fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * A port number: decimal digits only, 0..65535.  Returns the end of the
 * number, or NULL.
 */
static const char *
parse_port(const char *s, uint16_t *port)
{
	unsigned long n = 0;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p)) {
		n = n * 10 + (unsigned long)(*p - '0');
		if (n > 65535)
			return NULL;
		p++;
	}
	*port = (uint16_t)n;
	return p;
}

static int
port_range(const char *s, uint16_t *lo, uint16_t *hi)
{
	const char *p = parse_port(s, lo);

	if (p == NULL)
		return -EINVAL;
	if (*p == '\0') {
		*hi = *lo;
		return 0;
	}
	if (*p != '-')
		return -EINVAL;
	p = parse_port(p + 1, hi);
	if (p == NULL || *p != '\0' || *hi < *lo)
		return -EINVAL;
	return 0;
}

#define PORTS_HINT "use numbers 0-65535 and ranges LOW-HIGH with LOW <= HIGH"

int
value_port_range(const char *s, uint16_t *lo, uint16_t *hi, char **cause)
{
	if (port_range(s, lo, hi) < 0)
		return bad(cause, "bad port or range '%s'; " PORTS_HINT, s);
	return 0;
}

/* Ports separated by commas; min is the lowest port allowed. */
static int
ports_list(const char *s, uint16_t min, struct llw_port_range **v, size_t *n)
{
	_cleanup_free_ char *copy = xstrdup(s);
	char *save = NULL;

	*v = NULL;
	*n = 0;
	if (s[0] == ',' || s[0] == '\0' || s[strlen(s) - 1] == ',' ||
	    strstr(s, ",,") != NULL)
		return -EINVAL;
	for (char *t = strtok_r(copy, ",", &save); t != NULL;
	     t = strtok_r(NULL, ",", &save)) {
		uint16_t lo, hi;

		if (port_range(t, &lo, &hi) < 0 || lo < min) {
			free(*v);
			*v = NULL;
			*n = 0;
			return -EINVAL;
		}
		*v = xreallocarray(*v, *n + 1, sizeof(**v));
		(*v)[(*n)++] = (struct llw_port_range){ .lo = lo, .hi = hi };
	}
	return 0;
}

int
value_ports(const char *s, struct llw_port_range **v, size_t *n, char **cause)
{
	if (ports_list(s, 0, v, n) < 0)
		return bad(cause, "bad port or range '%s'; " PORTS_HINT, s);
	return 0;
}

static const uint8_t v4mapped[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

void
value_addr_normalise(struct netpolicy_addr *a)
{
	if (a->family == AF_INET6 && memcmp(a->a, v4mapped, 12) == 0) {
		memmove(a->a, a->a + 12, 4);
		memset(a->a + 4, 0, 12);
		a->family = AF_INET;
	}
}

static int
parse_ip(const char *s, size_t len, struct netpolicy_addr *a)
{
	char buf[INET6_ADDRSTRLEN + 1];

	memset(a, 0, sizeof(*a));
	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (inet_pton(AF_INET, buf, a->a) == 1)
		a->family = AF_INET;
	else if (inet_pton(AF_INET6, buf, a->a) == 1)
		a->family = AF_INET6;
	else
		return -EINVAL;
	return 0;
}

int
value_ip(const char *s, struct netpolicy_addr *a, char **cause)
{
	if (parse_ip(s, strlen(s), a) < 0)
		return bad(cause, "bad IP address '%s'", s);
	value_addr_normalise(a);
	return 0;
}

int
value_addr(const char *s, struct netpolicy_addr *a, char **cause)
{
	size_t n = strlen(s);
	int r;

	if (n > 2 && s[0] == '[' && s[n - 1] == ']') {
		r = parse_ip(s + 1, n - 2, a);
		if (r == 0 && a->family != AF_INET6)
			r = -EINVAL;
	} else {
		r = parse_ip(s, n, a);
	}
	if (r < 0)
		return bad(cause, "bad IP address '%s'", s);
	value_addr_normalise(a);
	return 0;
}

static int
listen_parse(const char *s, struct netpolicy_addr *a)
{
	const char *colon;
	uint16_t lo, hi;
	int r;

	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (close == NULL || close[1] != ':')
			return -EINVAL;
		r = parse_ip(s + 1, (size_t)(close - s - 1), a);
		if (r == 0 && a->family != AF_INET6)
			return -EINVAL;
		colon = close + 1;
	} else {
		colon = strrchr(s, ':');
		if (colon == NULL)
			return -EINVAL;
		r = parse_ip(s, (size_t)(colon - s), a);
		if (r == 0 && a->family != AF_INET)
			return -EINVAL;
	}
	if (r < 0 || strchr(colon + 1, '-') != NULL ||
	    port_range(colon + 1, &lo, &hi) < 0)
		return -EINVAL;
	value_addr_normalise(a);
	a->port = lo;
	return 0;
}

int
value_listen(const char *s, struct netpolicy_addr *a, char **cause)
{
	if (listen_parse(s, a) < 0)
		return bad(cause,
			   "bad address '%s'; use ADDR:PORT such as "
			   "127.0.0.1:8080 or [::1]:8080",
			   s);
	return 0;
}

static int
cidr_parse(const char *s, struct netpolicy_cidr *c)
{
	const char *rest, *slash, *colon;
	unsigned max;

	memset(c, 0, sizeof(*c));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (close == NULL)
			return -EINVAL;
		if (parse_ip(s + 1, (size_t)(close - s - 1), &c->net) < 0 ||
		    c->net.family != AF_INET6)
			return -EINVAL;
		rest = close + 1;
	} else {
		size_t len;

		slash = strchr(s, '/');
		colon = strchr(s, ':');
		if (slash != NULL)
			len = (size_t)(slash - s);
		else if (colon != NULL && strchr(colon + 1, ':') == NULL)
			len = (size_t)(colon - s);
		else
			len = strlen(s);
		if (parse_ip(s, len, &c->net) < 0)
			return -EINVAL;
		rest = s + len;
	}
	max = c->net.family == AF_INET ? 32 : 128;
	c->prefix = max;
	if (*rest == '/') {
		unsigned long n = 0;

		if (!isdigit((unsigned char)*++rest))
			return -EINVAL;
		for (; isdigit((unsigned char)*rest); rest++) {
			n = n * 10 + (unsigned long)(*rest - '0');
			if (n > max)
				return -EINVAL;
		}
		c->prefix = (unsigned)n;
	}
	if (*rest == ':') {
		if (ports_list(rest + 1, 0, &c->ports, &c->n_ports) < 0)
			return -EINVAL;
	} else if (*rest != '\0') {
		return -EINVAL;
	}
	/* An IPv6 prefix inside ::ffff:0:0/96 is an IPv4 one. */
	if (c->net.family == AF_INET6 && c->prefix >= 96 &&
	    memcmp(c->net.a, v4mapped, 12) == 0) {
		value_addr_normalise(&c->net);
		c->prefix -= 96;
	}
	return 0;
}

int
value_cidr(const char *s, struct netpolicy_cidr *c, char **cause)
{
	if (cidr_parse(s, c) < 0) {
		value_cidr_clear(c);
		return bad(cause,
			   "bad CIDR '%s'; use ADDR[/N][:PORTS] such as "
			   "10.0.0.0/8:443 or ::1/128:8080",
			   s);
	}
	return 0;
}

void
value_cidr_clear(struct netpolicy_cidr *c)
{
	free(c->ports);
	free(c->origin);
	c->ports = NULL;
	c->origin = NULL;
	c->n_ports = 0;
}

static int
host_parse(const char *s, struct hostrule *r)
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
	if (colon != NULL &&
	    ports_list(colon + 1, 1, &r->ports, &r->n_ports) < 0)
		return -EINVAL;
	return 0;
}

int
value_host(const char *s, struct hostrule *r, char **cause)
{
	if (host_parse(s, r) < 0) {
		value_host_clear(r);
		return bad(cause,
			   "bad host '%s'; use a NAME or *.NAME ('*' as the "
			   "whole first label), with optional :PORTS such as "
			   "registry.npmjs.org:443",
			   s);
	}
	return 0;
}

void
value_host_clear(struct hostrule *r)
{
	free(r->name);
	for (size_t i = 0; i < r->n_ports; i++)
		free(r->ports[i].origin);
	free(r->ports);
	free(r->origin);
	memset(r, 0, sizeof(*r));
}

/* ":443,8000-8100" appended to s (a new string, s freed). */
static char *
ports_append(char *s, const struct llw_port_range *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *t;

		if (v[i].lo == v[i].hi)
			t = xasprintf("%s%c%u", s, i == 0 ? ':' : ',', v[i].lo);
		else
			t = xasprintf("%s%c%u-%u", s, i == 0 ? ':' : ',',
				      v[i].lo, v[i].hi);
		free(s);
		s = t;
	}
	return s;
}

char *
value_addr_format(const struct netpolicy_addr *a)
{
	char buf[INET6_ADDRSTRLEN];

	inet_ntop(a->family, a->a, buf, sizeof(buf));
	if (a->family == AF_INET6)
		return xasprintf("[%s]:%u", buf, a->port);
	return xasprintf("%s:%u", buf, a->port);
}

char *
value_ip_format(const struct netpolicy_addr *a)
{
	char buf[INET6_ADDRSTRLEN];

	inet_ntop(a->family, a->a, buf, sizeof(buf));
	return xstrdup(buf);
}

char *
value_cidr_format(const struct netpolicy_cidr *c)
{
	char buf[INET6_ADDRSTRLEN];

	inet_ntop(c->net.family, c->net.a, buf, sizeof(buf));
	return ports_append(xasprintf("%s/%u", buf, c->prefix), c->ports,
			    c->n_ports);
}

char *
value_host_format(const struct hostrule *r)
{
	return ports_append(xasprintf("%s%s", r->wildcard ? "*." : "", r->name),
			    r->ports, r->n_ports);
}

/* Decimal digits into *n, at least one; the end, or NULL on overflow. */
static const char *
parse_decimal(const char *c, uint64_t *n)
{
	*n = 0;
	if (*c < '0' || *c > '9')
		return NULL;
	for (; *c >= '0' && *c <= '9'; c++) {
		if (*n > UINT64_MAX / 10 - 9)
			return NULL;
		*n = *n * 10 + (uint64_t)(*c - '0');
	}
	return c;
}

static int
size_parse(const char *s, uint64_t *bytes, unsigned *percent)
{
	uint64_t n, mult = 1;
	const char *c = parse_decimal(s, &n);

	*bytes = 0;
	*percent = 0;
	if (c == NULL)
		return -EINVAL;
	if (strcmp(c, "%") == 0) {
		if (n < 1 || n > 100)
			return -EINVAL;
		*percent = (unsigned)n;
		return 0;
	}
	if (strcmp(c, "K") == 0 || strcmp(c, "k") == 0)
		mult = 1024;
	else if (strcmp(c, "M") == 0 || strcmp(c, "m") == 0)
		mult = 1024 * 1024;
	else if (strcmp(c, "G") == 0 || strcmp(c, "g") == 0)
		mult = 1024ULL * 1024 * 1024;
	else if (*c != '\0')
		return -EINVAL;
	if (n == 0 || n > UINT64_MAX / mult)
		return -EINVAL;
	*bytes = n * mult;
	return 0;
}

int
value_size(const char *s, uint64_t *bytes, unsigned *percent, char **cause)
{
	if (size_parse(s, bytes, percent) < 0)
		return bad(cause,
			   "bad size '%s'; use bytes with an optional K, M "
			   "or G (512M), or a percentage of memory from 1%% "
			   "to 100%% (10%%)",
			   s);
	return 0;
}

int
value_bytes(const char *s, uint64_t *bytes, char **cause)
{
	unsigned percent;

	if (size_parse(s, bytes, &percent) < 0 || percent != 0) {
		*bytes = 0;
		return bad(cause,
			   "bad size '%s'; use bytes with an optional K, M "
			   "or G (8G)",
			   s);
	}
	return 0;
}

static int
count_parse(const char *s, uint64_t *n)
{
	const char *end = parse_decimal(s, n);

	if (end == NULL || *end != '\0' || *n == 0) {
		*n = 0;
		return -EINVAL;
	}
	return 0;
}

int
value_count(const char *s, uint64_t *n, char **cause)
{
	/* "0..." is refused as it always was: a count has no leading
	 * zero. */
	if (s[0] == '0' || count_parse(s, n) < 0) {
		*n = 0;
		return bad(cause,
			   "bad number '%s'; use a positive decimal number", s);
	}
	return 0;
}

int
value_duration(const char *s, uint64_t *seconds, char **cause)
{
	static const struct {
		char unit;
		uint64_t mult;
	} units[] = { { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 } };
	_cleanup_free_ char *digits = xstrdup(s);
	size_t len = strlen(digits);
	uint64_t n, mult = 1;

	*seconds = 0;
	for (size_t i = 0; len > 0 && i < ARRAY_SIZE(units); i++)
		if (digits[len - 1] == units[i].unit) {
			mult = units[i].mult;
			digits[len - 1] = '\0';
			break;
		}
	if (digits[0] == '0' || count_parse(digits, &n) < 0 ||
	    n > UINT64_MAX / mult)
		return bad(cause,
			   "bad duration '%s'; use seconds with an optional "
			   "s, m, h or d (90, 30m)",
			   s);
	*seconds = n * mult;
	return 0;
}

int
value_choice(const char *s, const char *const *choices, unsigned *index,
	     char **cause)
{
	_cleanup_free_ char *list = NULL;
	size_t n = 0;

	for (; choices[n] != NULL; n++)
		if (strcmp(choices[n], s) == 0) {
			*index = (unsigned)n;
			return 0;
		}
	if (cause == NULL)
		return -EINVAL;
	/* "'a', 'b' or 'c'" */
	list = xstrdup("");
	for (size_t i = 0; i < n; i++) {
		char *t = xasprintf("%s%s'%s'", list,
				    i == 0	 ? ""
				    : i == n - 1 ? " or "
						 : ", ",
				    choices[i]);

		free(list);
		list = t;
	}
	return bad(cause, "bad value '%s'; use %s", s, list);
}

int
value_bool(const char *s, bool *yes, char **cause)
{
	static const char *const yes_no[] = { "yes", "no", NULL };
	unsigned i;
	int r = value_choice(s, yes_no, &i, cause);

	*yes = r == 0 && i == 0;
	return r;
}

bool
value_env_name(const char *s, size_t n)
{
	if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

int
value_env_glob(const char *s, char **cause)
{
	bool ok = true;

	if (strpbrk(s, "*?[") == NULL)
		ok = value_env_name(s, strlen(s));
	for (const char *c = s; ok && *c != '\0'; c++)
		if (!(isalnum((unsigned char)*c) || strchr("_*?[]!^-", *c)))
			ok = false;
	if (!ok)
		return bad(cause, "bad environment variable name or glob '%s'",
			   s);
	return 0;
}

int
value_env_set(const char *s, char **cause)
{
	const char *eq = strchr(s, '=');

	if (eq == NULL || !value_env_name(s, (size_t)(eq - s)))
		return bad(cause,
			   "'%s' is not NAME=VALUE with a valid variable name",
			   s);
	return 0;
}
