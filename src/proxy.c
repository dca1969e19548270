/*
 * proxy: the proxy's decisions and environment.  See proxy.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "httpreq.h"
#include "netpolicy.h"
#include "proxy.h"
#include "cleanup.h"
#include "strv.h"
#include "xalloc.h"

struct proxy_verdict
proxy_decide_request(const struct proxy_rules *r, const char *host, bool is_ip,
		     uint16_t port)
{
	struct proxy_verdict v = { REFUSAL_NONE, NULL };

	if (is_ip) {
		struct netpolicy_addr a;

		if (value_addr(host, &a, NULL) < 0) {
			v.rule = REFUSAL_HOST;
			return v;
		}
		a.port = port;
		netpolicy_addr_destination(&a);
		v.origin = r->cidr(r->ctx, &a);
		if (v.origin == NULL)
			v.rule = REFUSAL_NO_CIDR;
		return v;
	}
	switch (r->host(r->ctx, host, port, &v.origin)) {
	case HOSTRULE_ALLOWED:
		break;
	case HOSTRULE_PORT:
		v.rule = REFUSAL_HOST_PORT;
		break;
	default:
		v.rule = REFUSAL_HOST;
		v.origin = NULL;
		break;
	}
	return v;
}

struct proxy_verdict
proxy_decide_address(const struct proxy_rules *r,
		     const struct netpolicy_addr *a)
{
	struct proxy_verdict v = { REFUSAL_NONE, NULL };

	if (!netpolicy_addr_local(a) && (r->own == NULL || !r->own(r->ctx, a)))
		return v;
	v.origin = r->cidr(r->ctx, a);
	if (v.origin == NULL)
		v.rule = REFUSAL_REBIND;
	return v;
}

struct proxy_verdict
proxy_decide_sni(const char *host, const char *sni)
{
	struct proxy_verdict v = { REFUSAL_NONE, NULL };

	if (sni != NULL && strcasecmp(host, sni) != 0)
		v.rule = REFUSAL_SNI;
	return v;
}

char **
proxy_environ(uint16_t port)
{
	static const char *const names[] = {
		"HTTPS_PROXY", "https_proxy", "HTTP_PROXY",
		"http_proxy",  "ALL_PROXY",   "all_proxy",
	};
	char **env = NULL;
	char url[64];

	snprintf(url, sizeof(url), "http://127.0.0.1:%u", port);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		strv_push_take(&env, xasprintf("%s=%s", names[i], url));
	strv_push(&env, "NO_PROXY=localhost,127.0.0.1,::1");
	strv_push(&env, "no_proxy=localhost,127.0.0.1,::1");
	strv_push(&env, "NODE_USE_ENV_PROXY=1");
	return env;
}

size_t
proxy_hosts_lookup(const char *text, const char *name,
		   struct netpolicy_addr *out, size_t max)
{
	size_t n = 0;

	if (text == NULL)
		return 0;
	for (const char *line = text; *line && n < max;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		char buf[1024], *save = NULL, *tok, *hash;
		struct netpolicy_addr a;

		if (len < sizeof(buf)) {
			memcpy(buf, line, len);
			buf[len] = '\0';
			hash = strchr(buf, '#');
			if (hash)
				*hash = '\0';
			tok = strtok_r(buf, " \t\r", &save);
			if (tok && strchr(tok, '[') == NULL &&
			    value_addr(tok, &a, NULL) == 0) {
				while ((tok = strtok_r(NULL, " \t\r", &save))) {
					size_t tl = strlen(tok);

					if (tl && tok[tl - 1] == '.')
						tok[--tl] = '\0';
					if (strcasecmp(tok, name) == 0) {
						a.port = 0;
						out[n++] = a;
						break;
					}
				}
			}
		}
		line += len + (eol != NULL);
	}
	return n;
}

int
proxy_dns_addrs(const struct dns_answer *a, struct netpolicy_addr *out,
		size_t max, size_t *n)
{
	*n = 0;
	if (a->truncated)
		return -EAGAIN;
	if (a->rcode == DNS_RCODE_NXDOMAIN)
		return -ENOENT;
	if (a->rcode != DNS_RCODE_NOERROR)
		return -EAGAIN;
	for (size_t i = 0; i < a->n && *n < max; i++)
		out[(*n)++] = a->v[i].addr;
	return 0;
}

static void
clients_line(struct proxy_clients *c, const char *line)
{
	struct proxy_client *e = &c->v[c->next % PROXY_CLIENTS];
	unsigned port;
	int pid;
	char comm[17];

	if (sscanf(line, "%u %d %16s", &port, &pid, comm) != 3 || port == 0 ||
	    port > 65535 || pid <= 0)
		return;
	e->port = (uint16_t)port;
	e->pid = pid;
	memcpy(e->comm, comm, sizeof(e->comm));
	c->next++;
}

void
proxy_clients_add(struct proxy_clients *c, const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != '\n') {
			if (c->n_partial < sizeof(c->partial) - 1)
				c->partial[c->n_partial++] = buf[i];
			continue;
		}
		c->partial[c->n_partial] = '\0';
		clients_line(c, c->partial);
		c->n_partial = 0;
	}
}

const struct proxy_client *
proxy_clients_find(const struct proxy_clients *c, uint16_t port)
{
	size_t n = c->next < PROXY_CLIENTS ? c->next : PROXY_CLIENTS;

	for (size_t k = 1; k <= n; k++) {
		const struct proxy_client *e =
			&c->v[(c->next - k) % PROXY_CLIENTS];

		if (e->port == port)
			return e;
	}
	return NULL;
}
