/*
 * `llwrap why HOST:PORT` and `ADDR:PORT` (why-int.h): IP decided layer by
 * layer as the kernel meets them: net = none's namespace or seccomp,
 * bubblewrap's network, then the supervisor's decision (netpolicy_decide,
 * the same function it runs, whose verdict names the rule) or Landlock's
 * port rules as the ruleset gives them; a name under allow-host by the
 * entries (hostrule_match), through llwrap's resolver or proxy.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cleanup.h"
#include "compat/landlock.h"
#include "hostrule.h"
#include "proxy.h"
#include "refusal.h"
#include "relay.h"
#include "sockdiag.h"
#include "strv.h"
#include "why-int.h"
#include "xalloc.h"

/* ---- IP ---- */

static const char *
origin_or_default(const char *o)
{
	return o != NULL ? o : "built-in default";
}

/* The key of the port list an IP access is checked against. */
static const char *
port_key(enum why_access a)
{
	switch (a) {
	case WHY_SEND_UDP:
		return "connect-udp";
	case WHY_BIND_TCP:
		return "bind-tcp";
	case WHY_BIND_UDP:
		return "bind-udp";
	default:
		return "connect-tcp";
	}
}

static uint64_t
net_right(enum why_access a)
{
	switch (a) {
	case WHY_SEND_UDP:
		return LLW_NET_CONNECT_SEND_UDP;
	case WHY_BIND_TCP:
		return LLW_NET_BIND_TCP;
	case WHY_BIND_UDP:
		return LLW_NET_BIND_UDP;
	default:
		return LLW_NET_CONNECT_TCP;
	}
}

static bool
is_bind(enum why_access a)
{
	return a == WHY_BIND_TCP || a == WHY_BIND_UDP;
}

/* The target as the log writes it: "host:port" or the address. */
static char *
target_text(const struct why_query *q)
{
	if (q->host != NULL)
		return xasprintf("%s:%u", q->host, q->addr.port);
	return value_addr_format(&q->addr);
}

/* The address alone, without port or brackets. */
static char *
addr_text(const struct netpolicy_addr *a)
{
	char buf[INET6_ADDRSTRLEN];

	if (inet_ntop(a->family, a->a, buf, sizeof(buf)) == NULL)
		return xstrdup("?");
	return xstrdup(buf);
}

/* The smallest change that lets the sandbox reach a:port directly: an
 * allow-cidr entry of that one address. */
static char *
cidr_change(const struct netpolicy_addr *a, unsigned port)
{
	_cleanup_free_ char *t = addr_text(a);
	int bits = a->family == AF_INET ? 32 : 128;

	return xasprintf("[network] allow-cidr = %s/%d:%u (or --allow-cidr "
			 "%s/%d:%u)",
			 t, bits, port, t, bits, port);
}

/* What the supervisor asks of this host (netpolicy_lookup): its own
 * addresses and on-link prefixes, as it reads them now.  The sandbox's
 * own listeners and the names learned are the run's, which why has not. */
static bool
why_host_local(void *ctx, const struct netpolicy_addr *a)
{
	(void)ctx;
	return sockdiag_host_local(NULL, a);
}

static const struct netpolicy_lookup why_lookup = {
	.host_local = why_host_local,
};

/* A port rule's warning: it is not a host rule (DESIGN.md §11). */
static void
note_port_reach(struct why_verdict *v, const char *key, uint16_t port)
{
	if (strcmp(key, "connect-tcp") == 0 || strcmp(key, "connect-udp") == 0)
		note(v, xasprintf("a port rule reaches every host on that "
				  "port: %s %u allows port %u on any "
				  "address, loopback and LAN included",
				  key, port, port));
}

/* Set v's rule to the allow-cidr entry the supervisor's verdict
 * names. */
static void
cidr_rule(const struct plan_conf *p, const struct netpolicy_verdict *nv,
	  struct why_verdict *v)
{
	_cleanup_free_ char *c = NULL;

	if (nv->index >= p->n_cidrs)
		return;
	c = value_cidr_format(&p->cidrs[nv->index]);
	set(&v->rule, xasprintf("allow-cidr = %s", c));
	set(&v->origin, xstrdup(p->cidrs[nv->index].origin));
}

/*
 * A name under allow-host (DESIGN.md §6.1): the entries decide, through
 * llwrap's proxy; the addresses it resolves to are checked when it is
 * reached (rebinding), which why cannot know.
 */
static void
why_host(const struct plan_conf *p, bool stub, const struct why_query *q,
	 struct why_verdict *v)
{
	_cleanup_free_ char *name = xstrdup(q->host);
	size_t len = strlen(name);
	const char *origin = NULL;
	enum hostrule_verdict hv;
	uint16_t port = q->addr.port;

	if (len > 1 && name[len - 1] == '.')
		name[len - 1] = '\0';
	for (char *c = name; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	set(&v->layer, stub ? xstrdup("S supervisor and llwrap's resolver "
				      "(allow-host)")
			    : xstrdup("S supervisor and llwrap's proxy "
				      "(allow-host)"));
	hv = hostrule_match(p->hosts, p->n_hosts, &p->connect_tcp, name, port,
			    &origin);
	for (size_t i = 0; origin != NULL && i < p->n_hosts; i++) {
		_cleanup_free_ char *h = NULL;

		if (p->hosts[i].origin != origin)
			continue;
		h = value_host_format(&p->hosts[i]);
		set(&v->rule, xasprintf("allow-host = %s", h));
		set(&v->origin, xstrdup(origin));
		break;
	}
	if (hv == HOSTRULE_ALLOWED) {
		v->allowed = true;
		set(&v->decision,
		    stub ? xasprintf("allowed: connect %s:%u, at the "
				     "addresses llwrap's resolver gives for it",
				     name, port)
			 : xasprintf("allowed: connect %s:%u, by name, through "
				     "llwrap's proxy (HTTPS_PROXY)",
				     name, port));
		note(v, xstrdup("an address the name resolves to on this "
				"host or its networks (loopback, private, "
				"link-local, CGNAT, ULA) is refused unless an "
				"allow-cidr entry holds it (rebinding)"));
		if (stub && relay_port_checked(port))
			note(v,
			     xasprintf(
				     "the name is checked too (llwrap-relay): "
				     "a connection to the address must "
				     "carry %s (or another name learned "
				     "there) as its TLS server name or "
				     "HTTP Host; another name at the same "
				     "address (a CDN) is refused (%s), so "
				     "are none and an encrypted "
				     "ClientHello (%s, %s)",
				     name, refusal_name(REFUSAL_SERVER_NAME),
				     refusal_name(REFUSAL_NO_NAME),
				     refusal_name(REFUSAL_ECH)));
		else
			note(v,
			     stub ? xasprintf("decided by address alone: port "
					      "%u (ssh, git://) carries no "
					      "server name to check; another "
					      "name at the same address is "
					      "reached too",
					      port)
				  : xstrdup("a client that ignores the proxy "
					    "variables reaches no name: DNS "
					    "is refused"));
		return;
	}
	v->allowed = false;
	if (hv == HOSTRULE_PORT) {
		set(&v->decision,
		    xasprintf(
			    "denied: %s is in allow-host, not on port %u (%s)",
			    name, port, refusal_name(REFUSAL_HOST_PORT)));
	} else {
		set(&v->decision,
		    xasprintf("denied: %s is not in allow-host (%s)%s", name,
			      refusal_name(REFUSAL_HOST),
			      stub ? "; its DNS query is answered REFUSED "
				     "and never leaves the machine"
				   : ""));
		set(&v->rule,
		    xasprintf("allow-host (%zu %s, none names %s)", p->n_hosts,
			      p->n_hosts == 1 ? "entry" : "entries", name));
		set(&v->origin, xstrdup(p->hosts[0].origin));
	}
	set(&v->change, xasprintf("[network] allow-host = %s:%u (or "
				  "--allow-host %s:%u)",
				  name, port, name, port));
}

/* Who turned the proxy on: proxy = yes, else the first allow-host. */
static char *
proxy_origin(const struct plan_conf *p)
{
	return xstrdup(origin_or_default(p->proxy_origin.origin
						 ? p->proxy_origin.origin
					 : p->n_hosts ? p->hosts[0].origin
						      : NULL));
}

/* What would allow a refused destination. */
enum why_net_change {
	WHY_NET_CHANGE_NONE,
	WHY_NET_CHANGE_CIDR, /* an allow-cidr entry for the address */
	WHY_NET_CHANGE_DNS,  /* the address as a resolver */
};

/* The refusals the supervisor words itself, the first match: a rule,
 * on a port (0: any), only with llwrap's resolver (stub); what it says
 * (the target between decision and after_target, where that is set),
 * what would allow it, whose rule it is. */
static const struct why_net_refusal {
	enum refusal rule;
	bool stub;
	uint16_t port;
	const char *decision;
	const char *after_target;
	enum why_net_change change;
	bool proxy_origin; /* allow-host's and proxy's, else [network]'s */
	bool depends;
} why_net_refusals[] = {
	{ REFUSAL_DNS, true, 0,
	  "depends: a query to a resolver of /etc/resolv.conf (or the dns "
	  "key) is answered by llwrap's resolver, which resolves only the "
	  "names in allow-host and answers any other REFUSED without asking "
	  "anyone; port 53 reaches nothing else",
	  NULL, WHY_NET_CHANGE_NONE, true, true },
	{ REFUSAL_UNNAMED, false, 0,
	  "depends: outside allow-cidr, an address is reached only after a "
	  "name in allow-host resolved to it (for the answer's TTL, on that "
	  "entry's ports); by itself, denied",
	  NULL, WHY_NET_CHANGE_CIDR, true, true },
	{ REFUSAL_PROXY, false, 53,
	  "denied: names are resolved by llwrap's proxy (allow-host, proxy = "
	  "yes), not by the command: no DNS",
	  NULL, WHY_NET_CHANGE_NONE, true, false },
	{ REFUSAL_PROXY, false, 0,
	  "denied: with llwrap's proxy (allow-host, proxy = yes) only "
	  "allow-cidr entries are reached directly; port rules name the "
	  "hosts' ports, and names go through the proxy (HTTPS_PROXY)",
	  NULL, WHY_NET_CHANGE_CIDR, true, false },
	{ REFUSAL_DNS, false, 0,
	  "denied: port 53 reaches only the resolvers (the dns key, else "
	  "/etc/resolv.conf)",
	  NULL, WHY_NET_CHANGE_DNS, false, false },
	{ REFUSAL_LOCAL, false, 0, "denied: ",
	  " is on this host or its networks (loopback, private, link-local), "
	  "which a port rule does not reach; the sandbox's own listeners "
	  "there are reachable",
	  WHY_NET_CHANGE_CIDR, false, false },
};

static void
why_supervised(const struct sandbox *sb, const struct netpolicy_rules *rules,
	       const struct why_query *q, struct why_verdict *v)
{
	const struct plan_conf *p = &sb->conf;
	enum netpolicy_proto proto =
		q->access == WHY_CONNECT_TCP || q->access == WHY_BIND_TCP
			? NETPOLICY_TCP
			: NETPOLICY_UDP;
	enum netpolicy_op op = q->access == WHY_SEND_UDP ? NETPOLICY_SEND
			       : is_bind(q->access)	 ? NETPOLICY_BIND
							 : NETPOLICY_CONNECT;
	const char *key = port_key(q->access);
	struct netpolicy_query nq = { .op = op,
				      .proto = proto,
				      .addr = q->addr,
				      .by_name = q->host != NULL };
	struct netpolicy_verdict nv;
	enum refusal rule;
	_cleanup_free_ char *t = target_text(q);
	uint16_t port = q->addr.port;

	set(&v->layer, xstrdup("S supervisor"));
	if (q->host != NULL && p->proxy_enabled &&
	    q->access == WHY_CONNECT_TCP) {
		why_host(p, sandbox_hosts_stub(sb), q, v);
		return;
	}
	if (q->host != NULL) {
		/* A name: the supervisor sees only the address it resolves
		 * to.  Without allow-cidr entries the port decides. */
		if (port == 53 || p->n_cidrs > 0) {
			v->depends = true;
			v->allowed = false;
			set(&v->decision,
			    xasprintf("depends on the address %s resolves "
				      "to: only destinations inside an "
				      "allow-cidr entry are reachable",
				      q->host));
			for (size_t i = 0; i < p->n_cidrs; i++) {
				_cleanup_free_ char *c =
					value_cidr_format(&p->cidrs[i]);

				note(v, xasprintf("allow-cidr = %s (%s)", c,
						  p->cidrs[i].origin));
			}
			set(&v->change,
			    xasprintf("[network] allow-host = %s:%u (or "
				      "allow-cidr = ADDR/32:%u for each of "
				      "its addresses)",
				      q->host, port, port));
			return;
		}
	}
	/* The supervisor's own decision, the same function it runs (a
	 * name's address unknown: decided as an internet address's). */
	if (op == NETPOLICY_BIND)
		(void)netpolicy_bind_address(rules, &nq.addr);
	else if (q->host == NULL)
		netpolicy_addr_destination(&nq.addr);
	nv = netpolicy_decide(rules, &nq, &why_lookup);
	rule = nv.refusal;
	v->allowed = nv.allowed;
	if (nv.allowed) {
		set(&v->decision,
		    xasprintf("allowed: %s %s", why_access_verb(q->access), t));
		if (nv.by == NETPOLICY_BY_MODE) {
			set(&v->rule, xstrdup("mode = host"));
			set(&v->origin,
			    xstrdup(origin_or_default(p->net_origin.origin)));
		} else if (nv.by == NETPOLICY_BY_LISTEN &&
			   nv.index < p->n_listen_addrs) {
			_cleanup_free_ char *l = value_addr_format(
				&p->listen_addrs[nv.index].addr);

			set(&v->rule, xasprintf("listen = %s", l));
			set(&v->origin,
			    xstrdup(p->listen_addrs[nv.index].origin));
		} else if (nv.by == NETPOLICY_BY_DNS) {
			set(&v->rule, xstrdup("dns (the resolvers)"));
			set(&v->origin,
			    xstrdup(nv.index < p->n_dns_addrs
					    ? p->dns_addrs[nv.index].origin
					    : "/etc/resolv.conf"));
		} else if (nv.by == NETPOLICY_BY_CIDR) {
			cidr_rule(p, &nv, v);
		} else if (nv.by == NETPOLICY_BY_PORTS) {
			set(&v->rule, xasprintf("%s = %u", nv.key, port));
			set(&v->origin, xstrdup(origin_or_default(nv.origin)));
			if (!is_bind(q->access))
				note(v, xasprintf("under the supervisor, %s "
						  "%u reaches port %u of "
						  "internet hosts, not of "
						  "this host or its networks",
						  key, port, port));
		}
		if (q->host != NULL)
			note(v, xstrdup("a name is decided by the address it "
					"resolves to; resolving it needs DNS "
					"(port 53 to a resolver)"));
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(why_net_refusals); i++) {
		const struct why_net_refusal *w = &why_net_refusals[i];

		if (w->rule != rule || (w->stub && !sandbox_hosts_stub(sb)) ||
		    (w->port != 0 && w->port != port))
			continue;
		set(&v->decision, w->after_target != NULL
					  ? xasprintf("%s%s%s", w->decision, t,
						      w->after_target)
					  : xstrdup(w->decision));
		set(&v->rule, xstrdup(refusal_name(rule)));
		if (w->change == WHY_NET_CHANGE_CIDR)
			set(&v->change, cidr_change(&q->addr, port));
		else if (w->change == WHY_NET_CHANGE_DNS)
			set(&v->change,
			    xasprintf("[network] dns = %s (or --dns %s)", t,
				      t));
		set(&v->origin,
		    w->proxy_origin
			    ? proxy_origin(p)
			    : xstrdup(origin_or_default(p->net_origin.origin)));
		v->depends = w->depends;
		return;
	}
	if (rule == REFUSAL_NO_CIDR) {
		_cleanup_free_ char *a = addr_text(&q->addr);

		set(&v->decision, xstrdup("denied: the address is inside no "
					  "allow-cidr entry"));
		set(&v->rule, xasprintf("allow-cidr (%zu entries, none holds "
					"%s)",
					p->n_cidrs, a));
		set(&v->origin, xstrdup(p->cidrs[0].origin));
		set(&v->change, cidr_change(&q->addr, port));
		return;
	} else if (is_bind(q->access)) {
		set(&v->decision,
		    xasprintf("denied: %s is not an allowed bind address "
			      "(%s)",
			      t, refusal_name(rule)));
		set(&v->rule, xstrdup(refusal_name(rule)));
		set(&v->change, p->n_listen_addrs > 0
					? xasprintf("[network] listen = %s (or "
						    "--listen %s)",
						    t, t)
					: xasprintf("[network] %s = %u (or "
						    "--%s %u)",
						    key, port, key, port));
	} else if (p->n_cidrs > 0) {
		set(&v->decision,
		    xasprintf("denied: port %u is not among the ports of the "
			      "allow-cidr entries holding the address",
			      port));
		cidr_rule(p, &nv, v);
		set(&v->change, cidr_change(&q->addr, port));
		return;
	} else {
		set(&v->decision,
		    xasprintf("denied: port %u is not in %s", port, key));
		set(&v->rule, xasprintf("%s (port %u not listed)", key, port));
		set(&v->change, xasprintf("[network] %s = %u (or --%s %u)", key,
					  port, key, port));
		note_port_reach(v, key, port);
	}
	set(&v->origin, xstrdup(origin_or_default(p->net_origin.origin)));
}

void
why_inet(const struct sandbox *sb, const struct netpolicy_rules *rules,
	 const struct why_query *q, struct why_verdict *v)
{
	const struct plan_conf *p = &sb->conf;
	const struct ruleset_plan *rp = sb->landlock;
	const char *key = port_key(q->access);
	bool udp = q->access == WHY_SEND_UDP || q->access == WHY_BIND_UDP;
	_cleanup_free_ char *t = target_text(q);
	uint16_t port = q->addr.port;

	if (p->net == LLW_NET_NONE) {
		set(&v->rule, xstrdup("mode = none"));
		set(&v->origin,
		    xstrdup(origin_or_default(p->net_origin.origin)));
		if (sb->filter.deny_inet) {
			v->allowed = false;
			set(&v->layer, xstrdup("L2 seccomp (no inet "
					       "sockets)"));
			set(&v->decision, xstrdup("denied: no network at "
						  "all"));
		} else if (is_bind(q->access)) {
			v->allowed = true;
			set(&v->layer, xstrdup("L3 network namespace (only "
					       "lo)"));
			set(&v->decision,
			    xstrdup("allowed, in the sandbox's own network "
				    "namespace: only the sandbox itself can "
				    "connect to it"));
			return;
		} else if (q->host == NULL &&
			   netpolicy_addr_loopback(&q->addr)) {
			v->allowed = false;
			set(&v->layer, xstrdup("L3 network namespace (only "
					       "lo)"));
			set(&v->decision,
			    xstrdup("denied: loopback in the sandbox is its "
				    "own network namespace's, so servers on "
				    "the host's loopback are out of reach "
				    "(the sandbox's own servers answer "
				    "there)"));
		} else {
			v->allowed = false;
			set(&v->layer, xstrdup("L3 network namespace (only "
					       "lo)"));
			set(&v->decision,
			    xstrdup("denied: the sandbox's network namespace "
				    "has only lo"));
		}
		set(&v->change, xstrdup("[network] mode = filtered with the "
					"port rules you need (or --net "
					"filtered)"));
		return;
	}
	if (udp && sb->filter.deny_udp) {
		v->allowed = false;
		set(&v->layer, xstrdup("L2 seccomp (no UDP sockets)"));
		set(&v->decision, xstrdup("denied: the policy allows no UDP "
					  "port, so UDP sockets are refused"));
		set(&v->rule, xasprintf("%s (empty)", key));
		set(&v->change, xasprintf("[network] %s = %u (or --%s %u)", key,
					  port, key, port));
		return;
	}
	if (sb->backend == SANDBOX_BACKEND_BWRAP && sb->bwrap != NULL) {
		/* bubblewrap has no port rules: a network namespace of its
		 * own, or the host's whole network, where the supervisor
		 * (when it runs) decides as under Landlock. */
		if (sb->bwrap->share_net && rules != NULL && sb->supervise) {
			why_supervised(sb, rules, q, v);
			return;
		}
		if (sb->bwrap->share_net) {
			v->allowed = true;
			set(&v->layer, xstrdup("none (bubblewrap shares the "
					       "host network)"));
			set(&v->decision,
			    xasprintf("allowed: %s %s; under bubblewrap every "
				      "port is reachable once any is (NOT "
				      "ENFORCED)",
				      why_access_verb(q->access), t));
			return;
		}
		v->allowed = false;
		set(&v->layer, xstrdup("F bubblewrap (a network namespace "
				       "with only lo)"));
		set(&v->decision, xstrdup("denied: the policy allows no port, "
					  "so the sandbox has no host "
					  "network"));
		set(&v->rule, xasprintf("%s (port %u not listed)", key, port));
		set(&v->origin,
		    xstrdup(origin_or_default(p->net_origin.origin)));
		set(&v->change, xasprintf("[network] %s = %u (or --%s %u); "
					  "bubblewrap then shares the host "
					  "network, every port (best effort "
					  "only)",
					  key, port, key, port));
		return;
	}
	if (rules != NULL && sb->supervise) {
		why_supervised(sb, rules, q, v);
		return;
	}
	if (p->net == LLW_NET_HOST) {
		v->allowed = true;
		set(&v->layer, xstrdup("none"));
		set(&v->decision,
		    xasprintf("allowed: %s %s", why_access_verb(q->access), t));
		set(&v->rule, xstrdup("mode = host"));
		set(&v->origin,
		    xstrdup(origin_or_default(p->net_origin.origin)));
		return;
	}
	if (q->host != NULL && !q->host_in_hosts && !is_bind(q->access) &&
	    p->names_closed) {
		/* The port is never reached: the name does not resolve. */
		v->allowed = false;
		set(&v->layer, sb->filter.deny_udp
				       ? xstrdup("L2 seccomp (no UDP sockets, "
						 "so no DNS query)")
				       : xasprintf("L1 Landlock (ABI %d, UDP "
						   "port 53 not allowed)",
						   rp->abi));
		set(&v->decision,
		    xasprintf("denied: %s does not resolve here: DNS is "
			      "closed (only names in /etc/hosts resolve), so "
			      "no port rule is reached by name",
			      q->host));
		set(&v->rule, xstrdup("connect-udp (no port 53)"));
		set(&v->origin,
		    xstrdup(origin_or_default(p->net_origin.origin)));
		set(&v->change, xasprintf("[network] allow-host = %s:%u (or "
					  "--allow-host %s:%u): llwrap "
					  "resolves that name alone",
					  q->host, port, q->host, port));
		note(v, xstrdup("-p opencode opens the model providers and the "
				"package registries by name"));
		return;
	}
	if ((rp->handled_net & net_right(q->access)) == 0) {
		v->allowed = true;
		set(&v->layer, xstrdup("none"));
		set(&v->decision,
		    xasprintf("allowed: this kernel's Landlock (ABI %d) "
			      "does not restrict %s ports (NOT ENFORCED)",
			      rp->abi, udp ? "UDP" : "TCP"));
		return;
	}
	set(&v->layer, xasprintf("L1 Landlock (ABI %d)", rp->abi));
	for (size_t i = 0; i < rp->n_net_rules; i++) {
		if (rp->net_rules[i].port != port ||
		    !(rp->net_rules[i].access & net_right(q->access)))
			continue;
		v->allowed = true;
		set(&v->decision,
		    xasprintf("allowed: %s %s", why_access_verb(q->access), t));
		set(&v->rule, xasprintf("%s = %u", key, port));
		set(&v->origin,
		    xstrdup(origin_or_default(rp->net_rules[i].origin)));
		note_port_reach(v, key, port);
		if (q->host != NULL)
			note(v, xstrdup("the port decides, whatever address "
					"the name resolves to (to reach this "
					"name alone: allow-host, which starts "
					"the supervisor)"));
		return;
	}
	v->allowed = false;
	set(&v->decision,
	    xasprintf("denied: no %s rule for port %u", key, port));
	set(&v->rule, xasprintf("%s (port %u not listed)", key, port));
	set(&v->origin, xstrdup(origin_or_default(p->net_origin.origin)));
	set(&v->change,
	    xasprintf("[network] %s = %u (or --%s %u)", key, port, key, port));
	if (!is_bind(q->access)) {
		note_port_reach(v, key, port);
		if (q->host == NULL) {
			_cleanup_free_ char *a = addr_text(&q->addr);

			note(v,
			     xasprintf("to reach this host alone instead: "
				       "allow-cidr = %s/%d:%u, which "
				       "starts the supervisor and then "
				       "limits every destination to "
				       "allow-cidr entries",
				       a, q->addr.family == AF_INET ? 32 : 128,
				       port));
		}
	}
}
