/*
 * relaycheck: the name a relayed connection carries.  See relaycheck.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cleanup.h"
#include "httpreq.h"
#include "relaycheck.h"
#include "tlshello.h"
#include "xalloc.h"

#define TLS_HANDSHAKE 22

bool
relay_port_checked(uint16_t port)
{
	return port != 22 && port != 9418;
}

/* Whether one of entries (indexes into rules) names name. */
static bool
named(const struct hostrule *rules, size_t n_rules, const uint16_t *entries,
      size_t n_entries, const char *name)
{
	for (size_t i = 0; i < n_entries; i++)
		if (entries[i] < n_rules &&
		    hostrule_names(&rules[entries[i]], name))
			return true;
	return false;
}

/* The end of line at p (its "\r\n"), within end; NULL if none or a bare
 * CR or LF comes first. */
static const uint8_t *
line_end(const uint8_t *p, const uint8_t *end)
{
	for (; p + 1 < end; p++) {
		if (p[0] == '\r' && p[1] == '\n')
			return p;
		if (p[0] == '\r' || p[0] == '\n')
			return NULL;
	}
	return NULL;
}

static bool
tchar(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* Whether header name [p, p + n) is want (case-insensitive). */
static bool
header_is(const uint8_t *p, size_t n, const char *want)
{
	return n == strlen(want) && strncasecmp((const char *)p, want, n) == 0;
}

/*
 * An HTTP/1 request head at the start of buf: its Host (lower case, no
 * port) and the head rewritten with "Connection: close".  -EAGAIN for
 * more, else a refusal.
 */
static int
http_head(const uint8_t *buf, size_t len, bool full, char **host, char **out,
	  size_t *out_len, size_t *head_len)
{
	const uint8_t *end = NULL, *p, *e, *sp1, *sp2;
	_cleanup_free_ char *h = NULL;
	char *o;
	size_t n = 0;

	for (size_t i = 0; i + 3 < len; i++)
		if (memcmp(buf + i, "\r\n\r\n", 4) == 0) {
			end = buf + i + 4;
			break;
		}
	if (end == NULL)
		return full || len >= RELAY_HEAD_MAX ? REFUSAL_NO_NAME
						     : -EAGAIN;
	/* The request line: METHOD SP /target SP HTTP/1.x */
	if ((e = line_end(buf, end)) == NULL)
		return REFUSAL_NO_NAME;
	sp1 = memchr(buf, ' ', (size_t)(e - buf));
	if (sp1 == NULL || sp1 == buf || sp1 - buf > 16)
		return REFUSAL_NO_NAME;
	for (p = buf; p < sp1; p++)
		if (*p < 'A' || *p > 'Z')
			return REFUSAL_NO_NAME;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(e - sp1 - 1));
	/* Origin form only: an absolute target names its own host, which
	 * a server takes over Host. */
	if (sp2 == NULL || sp1[1] != '/' || e - sp2 != 9 ||
	    (memcmp(sp2 + 1, "HTTP/1.1", 8) != 0 &&
	     memcmp(sp2 + 1, "HTTP/1.0", 8) != 0))
		return REFUSAL_NO_NAME;
	for (p = sp1 + 1; p < sp2; p++)
		if (*p <= ' ' || *p >= 0x7f)
			return REFUSAL_NO_NAME;
	o = xmalloc((size_t)(end - buf) + 32);
	memcpy(o, buf, (size_t)(e - buf) + 2);
	n = (size_t)(e - buf) + 2;
	for (p = e + 2; p < end - 2; p = e + 2) {
		const uint8_t *colon, *v, *ve;

		if ((e = line_end(p, end)) == NULL || *p == ' ' || *p == '\t')
			goto refused; /* obsolete folding */
		colon = memchr(p, ':', (size_t)(e - p));
		if (colon == NULL || colon == p)
			goto refused;
		for (const uint8_t *q = p; q < colon; q++)
			if (!tchar(*q))
				goto refused;
		if (header_is(p, (size_t)(colon - p), "connection") ||
		    header_is(p, (size_t)(colon - p), "keep-alive") ||
		    header_is(p, (size_t)(colon - p), "proxy-connection"))
			continue;
		memcpy(o + n, p, (size_t)(e - p) + 2);
		n += (size_t)(e - p) + 2;
		if (!header_is(p, (size_t)(colon - p), "host"))
			continue;
		if (h != NULL)
			goto refused; /* two: which one the server reads */
		for (v = colon + 1; v < e && (*v == ' ' || *v == '\t'); v++)
			;
		for (ve = e; ve > v && (ve[-1] == ' ' || ve[-1] == '\t'); ve--)
			;
		/* A port after the name: digits only. */
		for (const uint8_t *q = ve; q > v; q--)
			if (q[-1] == ':') {
				for (const uint8_t *d = q; d < ve; d++)
					if (*d < '0' || *d > '9')
						goto refused;
				ve = q - 1;
				break;
			}
		if (ve == v ||
		    !httpreq_name_valid((const char *)v, (size_t)(ve - v)))
			goto refused;
		h = xstrndup((const char *)v, (size_t)(ve - v));
		for (char *c = h; *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c - 'A' + 'a');
	}
	if (h == NULL)
		goto refused;
	memcpy(o + n, "Connection: close\r\n\r\n", 21);
	n += 21;
	*host = steal_pointer(&h);
	*out = o;
	*out_len = n;
	*head_len = (size_t)(end - buf);
	return REFUSAL_NONE;
refused:
	free(o);
	return REFUSAL_NO_NAME;
}

int
relay_decide(const uint8_t *buf, size_t len, bool full,
	     const struct hostrule *rules, size_t n_rules,
	     const uint16_t *entries, size_t n_entries, char **name, bool *http,
	     char **out, size_t *out_len, size_t *head_len)
{
	int r;

	*name = NULL;
	*http = false;
	*out = NULL;
	*out_len = *head_len = 0;
	if (len == 0)
		return full ? REFUSAL_NO_NAME : -EAGAIN;
	if (buf[0] == TLS_HANDSHAKE) {
		r = tlshello_sni(buf, len, name);
		if (r == -EAGAIN)
			return full || len >= RELAY_HEAD_MAX ? REFUSAL_NO_NAME
							     : -EAGAIN;
		if (r == -EPERM)
			return REFUSAL_ECH;
		if (r < 0 || *name == NULL)
			return REFUSAL_NO_NAME;
	} else if (buf[0] >= 'A' && buf[0] <= 'Z') {
		*http = true;
		r = http_head(buf, len, full, name, out, out_len, head_len);
		if (r != REFUSAL_NONE)
			return r;
	} else {
		return REFUSAL_NO_NAME;
	}
	return named(rules, n_rules, entries, n_entries, *name)
		       ? REFUSAL_NONE
		       : REFUSAL_SERVER_NAME;
}
