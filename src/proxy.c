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
#include "profile.h"
#include "proxy.h"
#include "cleanup.h"
#include "strv.h"
#include "xalloc.h"

struct proxy_verdict
proxy_decide_request(const struct proxy_rules *r, const char *host, bool is_ip,
		     uint16_t port)
{
	struct proxy_verdict v = { NULL, NULL };

	if (is_ip) {
		struct netpolicy_addr a;

		if (netpolicy_parse_addr(host, &a) < 0) {
			v.rule = "filtered/host";
			return v;
		}
		a.port = port;
		netpolicy_addr_destination(&a);
		v.origin = r->cidr(r->ctx, &a);
		if (v.origin == NULL)
			v.rule = "filtered/no-cidr";
		return v;
	}
	switch (r->host(r->ctx, host, port, &v.origin)) {
	case HOSTRULE_ALLOWED:
		break;
	case HOSTRULE_PORT:
		v.rule = "filtered/host-port";
		break;
	default:
		v.rule = "filtered/host";
		v.origin = NULL;
		break;
	}
	return v;
}

struct proxy_verdict
proxy_decide_address(const struct proxy_rules *r,
		     const struct netpolicy_addr *a)
{
	struct proxy_verdict v = { NULL, NULL };

	if (!netpolicy_addr_local(a) && (r->own == NULL || !r->own(r->ctx, a)))
		return v;
	v.origin = r->cidr(r->ctx, a);
	if (v.origin == NULL)
		v.rule = "filtered/rebind";
	return v;
}

struct proxy_verdict
proxy_decide_sni(const char *host, const char *sni)
{
	struct proxy_verdict v = { NULL, NULL };

	if (sni != NULL && strcasecmp(host, sni) != 0)
		v.rule = "filtered/sni";
	return v;
}

const char *
proxy_rule_reason(const char *rule)
{
	static const struct {
		const char *rule, *reason;
	} reasons[] = {
		{ "filtered/host", "not in allow-host" },
		{ "filtered/host-port", "allow-host does not allow this port" },
		{ "filtered/no-cidr", "an address no allow-cidr entry holds" },
		{ "filtered/rebind",
		  "the name resolves to a local address or one of this "
		  "host's, which no allow-cidr entry holds (rebinding)" },
		{ "filtered/sni",
		  "the TLS server name differs from the CONNECT host "
		  "(domain fronting)" },
	};

	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (strcmp(rule, reasons[i].rule) == 0)
			return reasons[i].reason;
	return "refused";
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
			    netpolicy_parse_addr(tok, &a) == 0) {
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

bool
proxy_enabled(const struct policy *p)
{
	return p->net == LLW_NET_FILTERED && (p->proxy || p->allow_host.n > 0);
}

int
proxy_dns_query(const char *name, uint16_t type, uint16_t id, uint8_t *buf,
		size_t size)
{
	size_t n = strlen(name), off = 12;

	if (!httpreq_name_valid(name, n))
		return -EINVAL;
	if (size < 12 + n + 2 + 4)
		return -ENOBUFS;
	memset(buf, 0, 12);
	buf[0] = (uint8_t)(id >> 8);
	buf[1] = (uint8_t)id;
	buf[2] = 0x01; /* RD */
	buf[5] = 1;    /* QDCOUNT */
	for (const char *l = name; *l;) {
		size_t ll = strcspn(l, ".");

		buf[off++] = (uint8_t)ll;
		memcpy(buf + off, l, ll);
		off += ll;
		l += ll;
		if (*l == '.')
			l++;
	}
	buf[off++] = 0;
	buf[off++] = (uint8_t)(type >> 8);
	buf[off++] = (uint8_t)type;
	buf[off++] = 0;
	buf[off++] = 1; /* IN */
	return (int)off;
}

/* Skip a (possibly compressed) name at *off. */
static int
dns_skip_name(const uint8_t *buf, size_t len, size_t *off)
{
	for (unsigned labels = 0; labels < 128; labels++) {
		uint8_t l;

		if (*off >= len)
			return -EINVAL;
		l = buf[*off];
		if (l == 0) {
			(*off)++;
			return 0;
		}
		if ((l & 0xc0) == 0xc0) {
			if (*off + 2 > len)
				return -EINVAL;
			*off += 2;
			return 0;
		}
		if (l & 0xc0)
			return -EINVAL;
		*off += 1 + l;
	}
	return -EINVAL;
}

int
proxy_dns_answer(const uint8_t *buf, size_t len, uint16_t id, uint16_t type,
		 struct netpolicy_addr *out, size_t max, size_t *n)
{
	size_t off = 12;
	unsigned qd, an;

	*n = 0;
	if (len < 12 || (unsigned)(buf[0] << 8 | buf[1]) != id ||
	    !(buf[2] & 0x80))
		return -ESRCH;
	if (buf[2] & 0x02) /* TC */
		return -EAGAIN;
	switch (buf[3] & 0x0f) {
	case 0:
		break;
	case 3:
		return -ENOENT;
	default:
		return -EAGAIN;
	}
	qd = (unsigned)buf[4] << 8 | buf[5];
	an = (unsigned)buf[6] << 8 | buf[7];
	for (unsigned i = 0; i < qd; i++) {
		if (dns_skip_name(buf, len, &off) < 0 || off + 4 > len)
			return -EINVAL;
		off += 4;
	}
	for (unsigned i = 0; i < an; i++) {
		unsigned rtype, rclass, rdlen;

		if (dns_skip_name(buf, len, &off) < 0 || off + 10 > len)
			return -EINVAL;
		rtype = (unsigned)buf[off] << 8 | buf[off + 1];
		rclass = (unsigned)buf[off + 2] << 8 | buf[off + 3];
		rdlen = (unsigned)buf[off + 8] << 8 | buf[off + 9];
		off += 10;
		if (off + rdlen > len)
			return -EINVAL;
		if (rclass == 1 && rtype == type && *n < max &&
		    ((type == 1 && rdlen == 4) ||
		     (type == 28 && rdlen == 16))) {
			struct netpolicy_addr *a = &out[(*n)++];

			memset(a, 0, sizeof(*a));
			a->family = type == 1 ? AF_INET : AF_INET6;
			memcpy(a->a, buf + off, rdlen);
			if (a->family == AF_INET6) {
				/* A mapped address is the IPv4 one. */
				struct netpolicy_addr m;
				char text[64];

				if (inet_ntop(AF_INET6, a->a, text,
					      sizeof(text)) != NULL &&
				    netpolicy_parse_addr(text, &m) == 0)
					*a = m;
			}
		}
		off += rdlen;
	}
	return 0;
}

unsigned long
proxy_tcp_inode(const char *text, uint16_t from_port, uint16_t to_port)
{
	char want_local[32], want_remote[32];

	if (text == NULL)
		return 0;
	snprintf(want_local, sizeof(want_local), "0100007F:%04X", from_port);
	snprintf(want_remote, sizeof(want_remote), "0100007F:%04X", to_port);
	for (const char *line = text; *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		char sl[16], local[64], remote[64];
		unsigned long inode;

		/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
		if (len < 512 &&
		    sscanf(line, "%15s %63s %63s %*s %*s %*s %*s %*s %*s %lu",
			   sl, local, remote, &inode) == 4 &&
		    strcmp(local, want_local) == 0 &&
		    strcmp(remote, want_remote) == 0)
			return inode;
		line += len + (eol != NULL);
	}
	return 0;
}
