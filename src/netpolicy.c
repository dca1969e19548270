/*
 * The network policy's typed values and pure decisions (netpolicy.h).
 * No system calls: the engine in supervise.c asks, and applies the
 * answer.  The blocked-attempt log and --explain's words are
 * netpolicy-log.c's, the identity of the sandbox's own sockets
 * netpolicy-own.c's.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cleanup.h"
#include "hostrule.h"
#include "netpolicy.h"
#include "planconf.h"
#include "policy.h"
#include "strv.h"
#include "xalloc.h"

bool
netpolicy_needs_supervisor(const struct policy *p)
{
	return p->supervise || netpolicy_proxy_enabled(p) || p->n_cidrs > 0 ||
	       p->unix_paths.n > 0 || p->n_listen_addrs > 0 ||
	       p->n_dns_addrs > 0;
}

bool
netpolicy_proxy_enabled(const struct policy *p)
{
	return p->net == LLW_NET_FILTERED && (p->proxy || p->n_hosts > 0);
}

/* ---- The rules ---- */

struct netpolicy_rules {
	enum llw_net_mode net;
	/* The policy asked for the supervisor (netpolicy_needs_supervisor):
	 * local destinations and binds off loopback are its to refuse.  When it
	 * only stands in for Landlock's port rules (layer substitution),
	 * the port rules mean what Landlock's would. */
	bool local;
	struct netpolicy_cidr *cidrs;
	size_t n_cidrs;
	struct netpolicy_addr *dns, *listen;
	size_t n_dns, n_listen;
	struct llw_ports connect_tcp, connect_udp, bind_tcp, bind_udp;
	/* proxy = yes: names go through llwrap's proxy at proxy_addr
	 * (set once it listens); no DNS, and port rules no longer reach
	 * the network directly (DESIGN.md §6.1). */
	bool proxy;
	struct netpolicy_addr proxy_addr;
	/* allow-host through llwrap's resolver instead (design (a)). */
	bool stub;
	/* The first port the kernel lets an unprivileged process bind
	 * (net.ipv4.ip_unprivileged_port_start). */
	uint16_t unprivileged_start;
};

void
netpolicy_addr_to_sockaddr(const struct netpolicy_addr *a,
			   struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(a->port);
		memcpy(&s4->sin_addr, a->a, 4);
		*len = sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(a->port);
		memcpy(&s6->sin6_addr, a->a, 16);
		*len = sizeof(*s6);
	}
}

int
netpolicy_addr_from_sockaddr(const void *sa, size_t len,
			     struct netpolicy_addr *a)
{
	sa_family_t family;

	memset(a, 0, sizeof(*a));
	if (len < sizeof(family))
		return -EINVAL;
	memcpy(&family, sa, sizeof(family));
	if (family == AF_INET) {
		struct sockaddr_in in;

		if (len < sizeof(in))
			return -EINVAL;
		memcpy(&in, sa, sizeof(in));
		a->family = AF_INET;
		memcpy(a->a, &in.sin_addr, 4);
		a->port = ntohs(in.sin_port);
		return 0;
	}
	if (family == AF_INET6) {
		struct sockaddr_in6 in6;

		/* SIN6_LEN_RFC2133: the kernel accepts it without scope. */
		if (len < 24)
			return -EINVAL;
		memset(&in6, 0, sizeof(in6));
		memcpy(&in6, sa, len < sizeof(in6) ? len : sizeof(in6));
		a->family = AF_INET6;
		memcpy(a->a, &in6.sin6_addr, 16);
		a->port = ntohs(in6.sin6_port);
		value_addr_normalise(a);
		return 0;
	}
	return -EAFNOSUPPORT;
}

bool
netpolicy_cidr_contains(const struct netpolicy_cidr *c,
			const struct netpolicy_addr *a)
{
	unsigned bits = c->prefix, i;

	if (c->net.family != a->family)
		return false;
	for (i = 0; bits >= 8; i++, bits -= 8)
		if (c->net.a[i] != a->a[i])
			return false;
	if (bits == 0)
		return true;
	return ((c->net.a[i] ^ a->a[i]) & (0xff << (8 - bits)) & 0xff) == 0;
}

bool
netpolicy_addr_same(const struct netpolicy_addr *x,
		    const struct netpolicy_addr *y)
{
	size_t n = x->family == AF_INET ? 4 : 16;

	return x->family == y->family && memcmp(x->a, y->a, n) == 0;
}

bool
netpolicy_addr_loopback(const struct netpolicy_addr *a)
{
	static const uint8_t v6lo[16] = { [15] = 1 };

	if (a->family == AF_INET)
		return a->a[0] == 127;
	return memcmp(a->a, v6lo, 16) == 0;
}

bool
netpolicy_addr_unspecified(const struct netpolicy_addr *a)
{
	static const uint8_t zero[16];

	return memcmp(a->a, zero, a->family == AF_INET ? 4 : 16) == 0;
}

static void
addr_set_loopback(struct netpolicy_addr *a)
{
	memset(a->a, 0, sizeof(a->a));
	if (a->family == AF_INET) {
		a->a[0] = 127;
		a->a[3] = 1;
	} else {
		a->a[15] = 1;
	}
}

void
netpolicy_addr_destination(struct netpolicy_addr *a)
{
	if (netpolicy_addr_unspecified(a))
		addr_set_loopback(a);
}

/* NAT64's well-known prefix, 64:ff9b::/96 (RFC 6052). */
static const uint8_t nat64_wkp[12] = { 0, 0x64, 0xff, 0x9b };

bool
netpolicy_nat64(const struct netpolicy_addr *a, struct netpolicy_addr *v4)
{
	if (a->family != AF_INET6 || memcmp(a->a, nat64_wkp, 12) != 0)
		return false;
	memset(v4, 0, sizeof(*v4));
	v4->family = AF_INET;
	memcpy(v4->a, a->a + 12, 4);
	v4->port = a->port;
	return true;
}

bool
netpolicy_addr_local(const struct netpolicy_addr *a)
{
	const uint8_t *b = a->a;
	struct netpolicy_addr v4;

	if (netpolicy_nat64(a, &v4))
		return netpolicy_addr_local(&v4);
	if (a->family == AF_INET)
		return b[0] == 127 || b[0] == 0 || b[0] == 10 ||
		       (b[0] == 172 && (b[1] & 0xf0) == 16) ||
		       (b[0] == 192 && b[1] == 168) ||
		       (b[0] == 169 && b[1] == 254) ||
		       (b[0] == 100 && (b[1] & 0xc0) == 64) || b[0] >= 224;
	return netpolicy_addr_loopback(a) || netpolicy_addr_unspecified(a) ||
	       (b[0] & 0xfe) == 0xfc ||			  /* ULA fc00::/7 */
	       (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) || /* fe80::/10 */
	       b[0] == 0xff;				  /* multicast */
}

bool
netpolicy_prefixes_hold(const struct netpolicy_prefix *v, size_t n,
			const struct netpolicy_addr *a)
{
	struct netpolicy_addr v4;

	if (netpolicy_nat64(a, &v4))
		return netpolicy_prefixes_hold(v, n, &v4);
	for (size_t i = 0; i < n; i++) {
		struct netpolicy_cidr c = { .net = v[i].net,
					    .prefix = v[i].len };

		if (netpolicy_cidr_contains(&c, a))
			return true;
	}
	return false;
}

static const struct llw_port_range *
ranges_find(const struct llw_port_range *v, size_t n, uint16_t port)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].lo <= port && port <= v[i].hi)
			return &v[i];
	return NULL;
}

static bool
ranges_hold(const struct llw_port_range *v, size_t n, uint16_t port)
{
	return ranges_find(v, n, port) != NULL;
}

const char *const netpolicy_closed_environ[] = {
	"npm_config_fetch_retries=0",
	"PIP_RETRIES=0",
	NULL,
};

bool
netpolicy_names_closed(const struct policy *p, bool supervised)
{
	if (p->net == LLW_NET_NONE)
		return true;
	/* A policy that asks for the supervisor runs it, or not at all. */
	return p->net == LLW_NET_FILTERED && !supervised &&
	       !netpolicy_needs_supervisor(p) &&
	       !ranges_hold(p->connect_udp.v, p->connect_udp.n, 53);
}

char **
netpolicy_notes(const struct plan_conf *p, bool closed)
{
	char **v = NULL;

	if (p->net == LLW_NET_FILTERED && p->names_closed) {
		if (p->connect_tcp.n > 0)
			strv_push(&v,
				  "connect-tcp opens ports, not names: no "
				  "name resolves here (DNS is closed), so "
				  "only addresses are reached; --allow-host "
				  "NAME:443 opens a name (llwrap resolves it, "
				  "for that name alone), -p opencode the model "
				  "providers and package registries");
		else if (closed)
			strv_push(&v,
				  p->bind_tcp.n > 0
					  ? "no name resolves and no port "
					    "connects here; --allow-host "
					    "NAME:443 opens a name, "
					    "--connect-tcp PORTS a port on "
					    "every host, -p opencode the model "
					    "providers and package registries"
					  : "no name resolves and no port "
					    "connects or binds here; "
					    "--allow-host NAME:443 opens a "
					    "name, --connect-tcp PORTS a port "
					    "on every host, --bind-tcp PORTS "
					    "a server's port (0: any free "
					    "one), -p opencode the model "
					    "providers and package "
					    "registries");
	}
	/* An entry without ports takes connect-tcp's. */
	for (size_t i = 0; p->connect_tcp.n == 0 && i < p->n_hosts; i++) {
		_cleanup_free_ char *h = NULL;

		if (p->hosts[i].n_ports != 0)
			continue;
		h = value_host_format(&p->hosts[i]);
		strv_push_take(&v, xasprintf("allow-host %s (%s) reaches no "
					     "port: an entry without ports "
					     "takes connect-tcp's, and there "
					     "are none; write %s:443",
					     h, p->hosts[i].origin, h));
	}
	return v;
}

static void
ports_copy(struct llw_ports *to, const struct llw_ports *from)
{
	to->n = from->n;
	to->v = from->n ? xcalloc(from->n, sizeof(*to->v)) : NULL;
	for (size_t i = 0; i < from->n; i++) {
		to->v[i].lo = from->v[i].lo;
		to->v[i].hi = from->v[i].hi;
		to->v[i].origin =
			from->v[i].origin ? xstrdup(from->v[i].origin) : NULL;
	}
}

static void
ports_free(struct llw_ports *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		free(ps->v[i].origin);
	free(ps->v);
}

static void
cidr_copy(struct netpolicy_cidr *to, const struct netpolicy_cidr *from)
{
	*to = *from;
	to->ports = from->n_ports ? xcalloc(from->n_ports, sizeof(*to->ports))
				  : NULL;
	for (size_t i = 0; i < from->n_ports; i++) {
		to->ports[i].lo = from->ports[i].lo;
		to->ports[i].hi = from->ports[i].hi;
	}
	to->origin = from->origin ? xstrdup(from->origin) : NULL;
}

void
netpolicy_rules_free(struct netpolicy_rules *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->n_cidrs; i++)
		value_cidr_clear(&r->cidrs[i]);
	free(r->cidrs);
	free(r->dns);
	free(r->listen);
	ports_free(&r->connect_tcp);
	ports_free(&r->connect_udp);
	ports_free(&r->bind_tcp);
	ports_free(&r->bind_udp);
	free(r);
}

struct netpolicy_rules *
netpolicy_rules_new(const struct policy *p, const struct netpolicy_addr *dns,
		    size_t n_dns)
{
	struct netpolicy_rules *r = xcalloc(1, sizeof(*r));

	r->net = p->net;
	r->local = netpolicy_needs_supervisor(p);
	r->proxy = netpolicy_proxy_enabled(p);
	ports_copy(&r->connect_tcp, &p->connect_tcp);
	ports_copy(&r->connect_udp, &p->connect_udp);
	ports_copy(&r->bind_tcp, &p->bind_tcp);
	ports_copy(&r->bind_udp, &p->bind_udp);
	r->cidrs = xcalloc(p->n_cidrs + 1, sizeof(*r->cidrs));
	for (size_t i = 0; i < p->n_cidrs; i++)
		cidr_copy(&r->cidrs[i], &p->cidrs[i]);
	r->n_cidrs = p->n_cidrs;
	r->dns = xcalloc(n_dns + 1, sizeof(*r->dns));
	if (n_dns > 0)
		memcpy(r->dns, dns, n_dns * sizeof(*dns));
	r->n_dns = n_dns;
	r->listen = xcalloc(p->n_listen_addrs + 1, sizeof(*r->listen));
	for (size_t i = 0; i < p->n_listen_addrs; i++)
		r->listen[i] = p->listen_addrs[i].addr;
	r->n_listen = p->n_listen_addrs;
	r->unprivileged_start = 1024;
	return r;
}

struct netpolicy_rules *
netpolicy_rules_copy(const struct netpolicy_rules *from,
		     const struct netpolicy_addr *dns, size_t n_dns)
{
	struct netpolicy_rules *r = xcalloc(1, sizeof(*r));

	*r = *from;
	ports_copy(&r->connect_tcp, &from->connect_tcp);
	ports_copy(&r->connect_udp, &from->connect_udp);
	ports_copy(&r->bind_tcp, &from->bind_tcp);
	ports_copy(&r->bind_udp, &from->bind_udp);
	r->cidrs = xcalloc(from->n_cidrs + 1, sizeof(*r->cidrs));
	for (size_t i = 0; i < from->n_cidrs; i++)
		cidr_copy(&r->cidrs[i], &from->cidrs[i]);
	r->dns = xcalloc(n_dns + 1, sizeof(*r->dns));
	if (n_dns > 0)
		memcpy(r->dns, dns, n_dns * sizeof(*dns));
	r->n_dns = n_dns;
	r->listen = xcalloc(from->n_listen + 1, sizeof(*r->listen));
	if (from->n_listen > 0)
		memcpy(r->listen, from->listen,
		       from->n_listen * sizeof(*r->listen));
	return r;
}

void
netpolicy_plan(const struct policy *p, struct net_plan *np)
{
	memset(np, 0, sizeof(*np));
	np->rules = netpolicy_rules_new(p, NULL, 0);
	np->dns = xcalloc(p->n_dns_addrs + 1, sizeof(*np->dns));
	for (size_t i = 0; i < p->n_dns_addrs; i++)
		np->dns[i] = p->dns_addrs[i].addr;
	np->n_dns = p->n_dns_addrs;
	np->hosts = p->hosts;
	np->n_hosts = p->n_hosts;
	np->cidrs = p->cidrs;
	np->n_cidrs = p->n_cidrs;
	np->connect_tcp = &p->connect_tcp;
	np->connect_udp = &p->connect_udp;
	for (size_t i = 0; i < p->unix_paths.n; i++)
		strv_push(&np->unix_paths, p->unix_paths.v[i].value);
	np->log_blocked = p->log_blocked;
	np->log_stderr = p->log_stderr;
	/* Every run has a name (the command's by default); a plan made
	 * without one (why, --explain) logs nothing. */
	np->log_prefix = netpolicy_log_prefix(p->log_prefix,
					      p->name != NULL ? p->name : "");
	np->name = p->name != NULL ? xstrdup(p->name) : NULL;
}

void
net_plan_clear(struct net_plan *np)
{
	netpolicy_rules_free(np->rules);
	free(np->dns);
	strv_free(np->unix_paths);
	free(np->log_prefix);
	free(np->name);
	memset(np, 0, sizeof(*np));
}

void
netpolicy_rules_set_unprivileged_start(struct netpolicy_rules *r, uint16_t port)
{
	r->unprivileged_start = port;
}

/* A verdict refused by rule, read by key (index: its entry). */
static struct netpolicy_verdict
refused(const struct netpolicy_rules *r, enum refusal rule, const char *key)
{
	return (struct netpolicy_verdict){ .refusal = rule,
					   .stand_in = !r->local,
					   .key = key };
}

/* A verdict allowed by a rule of kind by, read by key. */
static struct netpolicy_verdict
allowed(const struct netpolicy_rules *r, enum netpolicy_by by, const char *key)
{
	return (struct netpolicy_verdict){
		.allowed = true, .by = by, .stand_in = !r->local, .key = key
	};
}

/* Allowed by range of the port list key (NULL: refused by rule). */
static struct netpolicy_verdict
by_ports(const struct netpolicy_rules *r, const struct llw_port_range *range,
	 const char *key, enum refusal rule)
{
	struct netpolicy_verdict v =
		range != NULL ? allowed(r, NETPOLICY_BY_PORTS, key)
			      : refused(r, rule, key);

	v.range = range;
	v.origin = range != NULL ? range->origin : NULL;
	return v;
}

static const char *
connect_key(enum netpolicy_proto proto)
{
	return proto == NETPOLICY_TCP ? "connect-tcp" : "connect-udp";
}

static struct netpolicy_verdict
decide_destination(const struct netpolicy_rules *r,
		   const struct netpolicy_query *q,
		   const struct netpolicy_lookup *lk)
{
	enum netpolicy_proto proto = q->proto;
	const struct netpolicy_addr *a = &q->addr;
	enum netpolicy_named named = NETPOLICY_NAMED_NO;
	const struct llw_ports *list =
		proto == NETPOLICY_TCP ? &r->connect_tcp : &r->connect_udp;
	const char *key = connect_key(proto);
	bool host = r->net == LLW_NET_HOST;
	struct netpolicy_verdict v, in = { .refusal = REFUSAL_NONE };
	bool inside = false;

	/* With the proxy, names are its to resolve: its listener is
	 * reached, DNS is not. */
	if (r->proxy && proto == NETPOLICY_TCP && r->proxy_addr.port != 0 &&
	    netpolicy_addr_same(&r->proxy_addr, a) &&
	    a->port == r->proxy_addr.port)
		return allowed(r, NETPOLICY_BY_PROXY, "proxy");
	if (r->proxy && a->port == 53)
		return refused(r, REFUSAL_PROXY, "proxy");
	/* With the resolver, DNS to a resolver never gets here: its
	 * socket was swapped for the resolver's. */
	if (r->stub && a->port == 53)
		return refused(r, REFUSAL_DNS, "dns");
	/* DNS goes to the configured resolvers and nowhere else, so a
	 * resolver the policy did not name cannot be used to tunnel. */
	if (a->port == 53) {
		for (size_t i = 0; i < r->n_dns; i++)
			if (netpolicy_addr_same(&r->dns[i], a)) {
				v = allowed(r, NETPOLICY_BY_DNS, "dns");
				v.index = i;
				return v;
			}
		return refused(r, REFUSAL_DNS, "dns");
	}
	if (host)
		return allowed(r, NETPOLICY_BY_MODE, "mode");
	/* An allow-cidr entry reaches what it names, on its ports. */
	for (size_t i = 0; !q->by_name && i < r->n_cidrs; i++) {
		const struct netpolicy_cidr *c = &r->cidrs[i];
		const struct llw_port_range *range;

		if (!netpolicy_cidr_contains(c, a))
			continue;
		range = c->n_ports > 0
				? ranges_find(c->ports, c->n_ports, a->port)
				: ranges_find(list->v, list->n, a->port);
		if (range != NULL) {
			v = allowed(r, NETPOLICY_BY_CIDR, "allow-cidr");
			v.index = i;
			v.range = range;
			v.origin = c->origin;
			return v;
		}
		if (!inside) {
			in = refused(r, REFUSAL_PORT, "allow-cidr");
			in.index = i;
			in.origin = c->origin;
		}
		inside = true;
	}
	if (inside)
		return in;
	if (r->stub && lk != NULL && lk->named != NULL)
		named = lk->named(lk->ctx, q);
	/* A port rule is not a host rule: it reaches the internet, not
	 * this host nor its networks, which only an entry (or the
	 * sandbox's own listener, which the engine checks) reaches.  The
	 * host is every address of its interfaces (a server bound to the
	 * unspecified address answers there as on loopback), its networks
	 * every on-link prefix, global ones included. */
	if (r->local && !q->by_name &&
	    (netpolicy_addr_local(a) || (lk != NULL && lk->host_local != NULL &&
					 lk->host_local(lk->ctx, a))))
		return refused(r,
			       named == NETPOLICY_NAMED_REBIND ? REFUSAL_REBIND
							       : REFUSAL_LOCAL,
			       "allow-cidr");
	/* With the resolver, the network is reached by name. */
	if (r->stub)
		return named == NETPOLICY_NAMED_YES
			       ? allowed(r, NETPOLICY_BY_NAME, "allow-host")
			       : refused(r,
					 named == NETPOLICY_NAMED_PORT
						 ? REFUSAL_HOST_PORT
						 : REFUSAL_UNNAMED,
					 "allow-host");
	/* With the proxy, a port rule only names the ports of allow-host
	 * entries: the network is reached by name, through it. */
	if (r->proxy)
		return refused(r, REFUSAL_PROXY, "proxy");
	/* The rule says which port list refused, and so what it reaches
	 * (blocked_suggest): under the supervisor the internet; standing in
	 * for Landlock, every host, as Landlock's rule would. */
	v = by_ports(r, ranges_find(list->v, list->n, a->port), key,
		     r->n_cidrs > 0 ? REFUSAL_NO_CIDR
		     : r->local	    ? REFUSAL_NET_PORT
				    : REFUSAL_LANDLOCK_PORT);
	if (!v.allowed && r->n_cidrs > 0)
		v.key = "allow-cidr";
	return v;
}

/*
 * A UDP connect to port 0 (netpolicy_quiet): allowed where some port of
 * the address is reachable, since a send on the socket afterwards goes to
 * port 0 of it, a way out only to an address no rule reaches.
 */
static struct netpolicy_verdict
decide_probe(const struct netpolicy_rules *r, const struct netpolicy_query *q,
	     const struct netpolicy_lookup *lk)
{
	const struct netpolicy_addr *a = &q->addr;
	enum netpolicy_named named = NETPOLICY_NAMED_NO;
	struct netpolicy_verdict v;

	if (r->net == LLW_NET_HOST)
		return allowed(r, NETPOLICY_BY_MODE, "mode");
	for (size_t i = 0; i < r->n_cidrs; i++)
		if (netpolicy_cidr_contains(&r->cidrs[i], a)) {
			v = allowed(r, NETPOLICY_BY_CIDR, "allow-cidr");
			v.index = i;
			v.origin = r->cidrs[i].origin;
			return v;
		}
	if (r->stub && lk != NULL && lk->named != NULL)
		named = lk->named(lk->ctx, q);
	if (r->local && !q->by_name &&
	    (netpolicy_addr_local(a) || (lk != NULL && lk->host_local != NULL &&
					 lk->host_local(lk->ctx, a))))
		return refused(r, REFUSAL_LOCAL, "allow-cidr");
	if (r->stub)
		return named == NETPOLICY_NAMED_YES ||
				       named == NETPOLICY_NAMED_PORT
			       ? allowed(r, NETPOLICY_BY_NAME, "allow-host")
			       : refused(r, REFUSAL_UNNAMED, "allow-host");
	if (r->proxy)
		return refused(r, REFUSAL_PROXY, "proxy");
	if (r->connect_tcp.n > 0 || r->connect_udp.n > 0)
		return allowed(r, NETPOLICY_BY_AUTOBIND, "connect-udp");
	return refused(r, r->local ? REFUSAL_NET_PORT : REFUSAL_LANDLOCK_PORT,
		       "connect-udp");
}

bool
netpolicy_quiet(const struct netpolicy_query *q)
{
	return q->op == NETPOLICY_CONNECT && q->proto == NETPOLICY_UDP &&
	       q->addr.port == 0;
}

const char *
netpolicy_cidr_allows(const struct netpolicy_rules *r,
		      const struct netpolicy_addr *a)
{
	for (size_t i = 0; i < r->n_cidrs; i++) {
		const struct netpolicy_cidr *c = &r->cidrs[i];

		if (netpolicy_cidr_contains(c, a) &&
		    (c->n_ports > 0 ? ranges_hold(c->ports, c->n_ports, a->port)
				    : ranges_hold(r->connect_tcp.v,
						  r->connect_tcp.n, a->port)))
			return c->origin;
	}
	return NULL;
}

void
netpolicy_rules_use_stub(struct netpolicy_rules *r)
{
	r->proxy = false;
	r->stub = true;
}

void
netpolicy_rules_set_proxy(struct netpolicy_rules *r,
			  const struct netpolicy_addr *a)
{
	r->proxy_addr = *a;
}

static struct netpolicy_verdict
decide_bind(const struct netpolicy_rules *r, enum netpolicy_proto proto,
	    const struct netpolicy_addr *a)
{
	const struct llw_ports *list =
		proto == NETPOLICY_TCP ? &r->bind_tcp : &r->bind_udp;
	const char *key = proto == NETPOLICY_TCP ? "bind-tcp" : "bind-udp";
	const struct llw_port_range *zero = ranges_find(list->v, list->n, 0);
	/* bind-tcp 0: the sandbox's own servers, on any loopback port,
	 * reachable from the sandbox only (netpolicy_bind_published). */
	bool own_server = proto == NETPOLICY_TCP &&
			  netpolicy_addr_loopback(a) &&
			  a->port >= r->unprivileged_start && zero != NULL;
	struct netpolicy_verdict v;

	if (r->net == LLW_NET_HOST && r->n_listen == 0)
		return allowed(r, NETPOLICY_BY_MODE, "mode");
	/* Without listen entries: loopback only (a wildcard bind was made
	 * loopback by netpolicy_bind_address), on the bind ports. */
	if (r->n_listen == 0) {
		const struct llw_port_range *range =
			ranges_find(list->v, list->n, a->port);

		if (!r->local)
			return by_ports(r, range, key, REFUSAL_BIND_PORT);
		if (!netpolicy_addr_loopback(a))
			return refused(r, REFUSAL_LISTEN, "listen");
		/* A UDP client's own port: what sending would autobind. */
		if (proto == NETPOLICY_UDP && a->port == 0)
			return allowed(r, NETPOLICY_BY_AUTOBIND, key);
		return by_ports(r,
				range != NULL ? range
				: own_server  ? zero
					      : NULL,
				key, REFUSAL_BIND_PORT);
	}
	for (size_t i = 0; i < r->n_listen; i++)
		if (netpolicy_addr_same(&r->listen[i], a) &&
		    r->listen[i].port == a->port) {
			v = allowed(r, NETPOLICY_BY_LISTEN, "listen");
			v.index = i;
			return v;
		}
	/* An ephemeral port where the profile allows them (bind-tcp 0), on
	 * loopback or a configured listen address: never on a wildcard or
	 * another interface, which would accept connections from outside. */
	if (a->port == 0 && zero != NULL) {
		if (netpolicy_addr_loopback(a))
			return by_ports(r, zero, key, REFUSAL_LISTEN);
		for (size_t i = 0; i < r->n_listen; i++)
			if (netpolicy_addr_same(&r->listen[i], a))
				return by_ports(r, zero, key, REFUSAL_LISTEN);
	}
	return own_server ? by_ports(r, zero, key, REFUSAL_LISTEN)
			  : refused(r, REFUSAL_LISTEN, "listen");
}

bool
netpolicy_refuses_sharing(const struct netpolicy_rules *r)
{
	return r->net != LLW_NET_HOST;
}

bool
netpolicy_bind_published(const struct netpolicy_rules *r,
			 enum netpolicy_proto proto,
			 const struct netpolicy_addr *a)
{
	const struct llw_ports *list =
		proto == NETPOLICY_TCP ? &r->bind_tcp : &r->bind_udp;

	/* An ephemeral port is the kernel's random pick, which no host
	 * program expects to find a service on: not hidden. */
	if (r->net == LLW_NET_HOST || !r->local || proto != NETPOLICY_TCP ||
	    a->port == 0 || !netpolicy_addr_loopback(a))
		return true;
	for (size_t i = 0; i < r->n_listen; i++)
		if (netpolicy_addr_same(&r->listen[i], a) &&
		    r->listen[i].port == a->port)
			return true;
	return r->n_listen == 0 && ranges_hold(list->v, list->n, a->port);
}

bool
netpolicy_bind_address(const struct netpolicy_rules *r,
		       struct netpolicy_addr *a)
{
	if (!netpolicy_addr_unspecified(a) || r->net == LLW_NET_HOST ||
	    !r->local)
		return false;
	for (size_t i = 0; i < r->n_listen; i++)
		if (netpolicy_addr_same(&r->listen[i], a))
			return false; /* listen = 0.0.0.0:PORT: asked for */
	addr_set_loopback(a);
	return true;
}

struct netpolicy_verdict
netpolicy_decide(const struct netpolicy_rules *r,
		 const struct netpolicy_query *q,
		 const struct netpolicy_lookup *lk)
{
	struct netpolicy_verdict v;

	if (q->op == NETPOLICY_BIND || q->op == NETPOLICY_LISTEN) {
		v = decide_bind(r, q->proto, &q->addr);
		/* Never a port a socket the sandbox did not create holds,
		 * whatever the rules allow (but mode host). */
		if (v.allowed && q->addr.port != 0 &&
		    netpolicy_refuses_sharing(r) && lk != NULL &&
		    lk->port_shared != NULL && lk->port_shared(lk->ctx, q))
			v = refused(r, REFUSAL_SHARED_PORT, v.key);
		return v;
	}
	v = netpolicy_quiet(q) ? decide_probe(r, q, lk)
			       : decide_destination(r, q, lk);
	/* The sandbox's own listener, on any loopback port. */
	if (!v.allowed && netpolicy_addr_loopback(&q->addr) && lk != NULL &&
	    lk->own_socket != NULL && lk->own_socket(lk->ctx, q))
		return allowed(r, NETPOLICY_BY_OWN, NULL);
	return v;
}

static bool
addrs_hold(const struct netpolicy_addr *v, size_t n,
	   const struct netpolicy_addr *a)
{
	for (size_t i = 0; i < n; i++)
		if (netpolicy_addr_same(&v[i], a))
			return true;
	return false;
}

struct netpolicy_addr *
netpolicy_resolvers(const struct policy *p, const char *resolv_conf, size_t *n)
{
	_cleanup_free_ struct netpolicy_addr *set =
		xcalloc(p->n_dns_addrs + 1, sizeof(*set));

	for (size_t i = 0; i < p->n_dns_addrs; i++)
		set[i] = p->dns_addrs[i].addr;
	return netpolicy_resolvers_of(set, p->n_dns_addrs, resolv_conf, n);
}

struct netpolicy_addr *
netpolicy_resolvers_of(const struct netpolicy_addr *set, size_t n_set,
		       const char *resolv_conf, size_t *n)
{
	_cleanup_free_ char *copy = NULL;
	struct netpolicy_addr *v = NULL;
	char *save = NULL;

	*n = 0;
	if (n_set > 0) {
		v = xcalloc(n_set, sizeof(*v));
		memcpy(v, set, n_set * sizeof(*v));
		*n = n_set;
		return v;
	}
	if (resolv_conf == NULL)
		return NULL;
	copy = xstrdup(resolv_conf);
	for (char *line = strtok_r(copy, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *w, *s = line + strspn(line, " \t");
		struct netpolicy_addr a;

		if (strncmp(s, "nameserver", 10) != 0 ||
		    (s[10] != ' ' && s[10] != '\t'))
			continue;
		s += 10 + strspn(s + 10, " \t");
		w = s;
		s += strcspn(s, " \t#;%");
		*s = '\0';
		if (value_addr(w, &a, NULL) == 0 && !addrs_hold(v, *n, &a)) {
			v = xreallocarray(v, *n + 1, sizeof(*v));
			v[(*n)++] = a;
		}
	}
	return v;
}

bool
netpolicy_source_routed(const uint8_t *ipv4, size_t len, size_t rthdr_len)
{
	if (rthdr_len > 0)
		return true;
	/* RFC 791's options: END and NOP are one byte, the others carry a
	 * length that counts their type and length bytes. */
	for (size_t i = 0; i < len;) {
		uint8_t type = ipv4[i];

		if (type == 0) /* IPOPT_END */
			return false;
		if (type == 1) { /* IPOPT_NOP */
			i++;
			continue;
		}
		if (len - i < 2 || ipv4[i + 1] < 2 || ipv4[i + 1] > len - i)
			return true;
		if (type == 131 || type == 137) /* IPOPT_LSRR, IPOPT_SSRR */
			return true;
		i += ipv4[i + 1];
	}
	return false;
}

bool
netpolicy_ports_hold(const struct llw_ports *ps, uint16_t port)
{
	return ranges_hold(ps->v, ps->n, port);
}
