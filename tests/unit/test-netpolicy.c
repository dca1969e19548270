/*
 * Unit tests for src/netpolicy.c, the pure network policy: CIDR, address
 * and port parsing (IPv4-mapped IPv6 included), the typed rules a
 * resolved policy holds, the rule decision and its lookups, DNS
 * resolvers, the identity of the sandbox's own sockets, the rate limiter
 * and the log line.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "cleanup.h"
#include "hostrule.h"
#include "netpolicy.h"
#include "planner.h"
#include "policy.h"
#include "strv.h"
#include "xalloc.h"

static struct netpolicy_addr
addr(const char *s, uint16_t port)
{
	struct netpolicy_addr a;

	assert_int_equal(value_addr(s, &a, NULL), 0);
	a.port = port;
	return a;
}

static void
test_parse_cidr(void **state)
{
	static const struct {
		const char *in;
		int ok;
		int family;
		unsigned prefix;
		size_t n_ports;
	} t[] = {
		{ "10.0.0.0/8", 0, AF_INET, 8, 0 },
		{ "10.0.0.0/8:443,8000-8100", 0, AF_INET, 8, 2 },
		{ "192.0.2.1", 0, AF_INET, 32, 0 },
		{ "192.0.2.1:53", 0, AF_INET, 32, 1 },
		{ "::1/128:8080", 0, AF_INET6, 128, 1 },
		{ "[::1]:8080", 0, AF_INET6, 128, 1 },
		{ "::1", 0, AF_INET6, 128, 0 },
		{ "2001:db8::/32", 0, AF_INET6, 32, 0 },
		/* IPv4-mapped prefixes are IPv4 prefixes. */
		{ "::ffff:10.0.0.0/104", 0, AF_INET, 8, 0 },
		{ "[::ffff:127.0.0.1]:80", 0, AF_INET, 32, 1 },
		{ "10.0.0.0/33", -EINVAL, 0, 0, 0 },
		{ "::/129", -EINVAL, 0, 0, 0 },
		{ "10.0.0.0/8:", -EINVAL, 0, 0, 0 },
		{ "10.0.0.0/8:70000", -EINVAL, 0, 0, 0 },
		{ "10.0.0.0/8:90-80", -EINVAL, 0, 0, 0 },
		{ "10.0.0.0/x", -EINVAL, 0, 0, 0 },
		{ "example.com", -EINVAL, 0, 0, 0 },
		{ "[10.0.0.1]:80", -EINVAL, 0, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct netpolicy_cidr c;
		int r = value_cidr(t[i].in, &c, NULL);

		if (r != t[i].ok)
			fail_msg("%s: got %d, want %d", t[i].in, r, t[i].ok);
		if (r == 0) {
			assert_int_equal(c.net.family, t[i].family);
			assert_int_equal(c.prefix, t[i].prefix);
			assert_int_equal(c.n_ports, t[i].n_ports);
		}
		value_cidr_clear(&c);
	}
}

static void
test_cidr_contains(void **state)
{
	static const struct {
		const char *cidr, *addr;
		bool in;
	} t[] = {
		{ "10.10.0.0/16", "10.10.3.4", true },
		{ "10.10.0.0/16", "10.11.0.1", false },
		{ "10.10.0.0/15", "10.11.0.1", true },
		{ "127.0.0.1/32", "127.0.0.1", true },
		{ "127.0.0.1/32", "127.0.0.2", false },
		{ "0.0.0.0/0", "203.0.113.7", true },
		{ "0.0.0.0/0", "::1", false },
		{ "::/0", "10.0.0.1", false },
		{ "::/0", "2001:db8::1", true },
		{ "10.0.0.0/8", "::ffff:10.1.2.3", true },
		{ "::ffff:10.0.0.0/104", "10.200.0.1", true },
		{ "192.168.1.128/25", "192.168.1.127", false },
		{ "192.168.1.128/25", "192.168.1.200", true },
		{ "2001:db8::/33", "2001:db8:8000::1", false },
		{ "2001:db8::/33", "2001:db8:7fff::1", true },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct netpolicy_cidr c;
		struct netpolicy_addr a = addr(t[i].addr, 0);

		assert_int_equal(value_cidr(t[i].cidr, &c, NULL), 0);
		if (netpolicy_cidr_contains(&c, &a) != t[i].in)
			fail_msg("%s in %s: want %d", t[i].addr, t[i].cidr,
				 t[i].in);
		value_cidr_clear(&c);
	}
}

static void
test_sockaddr(void **state)
{
	struct sockaddr_in in = { .sin_family = AF_INET,
				  .sin_port = htons(443) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6,
				    .sin6_port = htons(80) };
	struct netpolicy_addr a;
	_cleanup_free_ char *s1 = NULL, *s2 = NULL, *s3 = NULL;

	(void)state;
	inet_pton(AF_INET, "203.0.113.7", &in.sin_addr);
	assert_int_equal(netpolicy_addr_from_sockaddr(&in, sizeof(in), &a), 0);
	s1 = value_addr_format(&a);
	assert_string_equal(s1, "203.0.113.7:443");
	assert_int_equal(netpolicy_addr_from_sockaddr(&in, 8, &a), -EINVAL);

	inet_pton(AF_INET6, "::ffff:127.0.0.2", &in6.sin6_addr);
	assert_int_equal(netpolicy_addr_from_sockaddr(&in6, sizeof(in6), &a),
			 0);
	assert_int_equal(a.family, AF_INET);
	s2 = value_addr_format(&a);
	assert_string_equal(s2, "127.0.0.2:80");

	inet_pton(AF_INET6, "::1", &in6.sin6_addr);
	/* SIN6_LEN_RFC2133 (24 bytes, no scope id) is accepted. */
	assert_int_equal(netpolicy_addr_from_sockaddr(&in6, 24, &a), 0);
	s3 = value_addr_format(&a);
	assert_string_equal(s3, "[::1]:80");

	in.sin_family = AF_UNIX;
	assert_int_equal(netpolicy_addr_from_sockaddr(&in, sizeof(in), &a),
			 -EAFNOSUPPORT);
}

static void
test_parse_listen(void **state)
{
	struct netpolicy_addr a;

	(void)state;
	assert_int_equal(value_listen("127.0.0.1:8787", &a, NULL), 0);
	assert_int_equal(a.port, 8787);
	assert_int_equal(value_listen("[::1]:8080", &a, NULL), 0);
	assert_int_equal(a.family, AF_INET6);
	assert_int_equal(value_listen("::1:8080", &a, NULL), -EINVAL);
	assert_int_equal(value_listen("127.0.0.1", &a, NULL), -EINVAL);
	assert_int_equal(value_listen("127.0.0.1:1-2", &a, NULL), -EINVAL);
	assert_int_equal(value_listen("[10.0.0.1]:80", &a, NULL), -EINVAL);
}

static void
ports_add(struct llw_ports *p, uint16_t lo, uint16_t hi)
{
	p->v = xreallocarray(p->v, p->n + 1, sizeof(*p->v));
	p->v[p->n++] = (struct llw_port_range){ .lo = lo, .hi = hi };
}

static void
items_add(struct llw_items *it, const char *v)
{
	it->v = xreallocarray(it->v, it->n + 1, sizeof(*it->v));
	it->v[it->n].value = xstrdup(v);
	it->v[it->n++].origin = xstrdup("test");
}

/* [network] key = v, from "test", into p's typed rules. */
static void
add(struct policy *p, const char *key, const char *v)
{
	char *cause = NULL;

	if (policy_add(p, "network", key, v, "test", &cause) < 0)
		fail_msg("%s = %s: %s", key, v, cause);
}

/* p's rules, its network values parsed first as policy_resolve would;
 * dns as text. */
static struct netpolicy_rules *
rules(struct policy *p, char *const *dns)
{
	_cleanup_free_ struct netpolicy_addr *v = NULL;
	size_t n = strv_length(dns);

	v = xcalloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		assert_int_equal(value_addr(dns[i], &v[i], NULL), 0);
	return netpolicy_rules_new(p, v, n);
}

/* The rules' decision alone (no lookup). */
static const char *
decide(const struct netpolicy_rules *r, enum netpolicy_op op,
       enum netpolicy_proto proto, const struct netpolicy_addr *a)
{
	struct netpolicy_query q = { .op = op, .proto = proto, .addr = *a };

	return refusal_name(netpolicy_decide(r, &q, NULL).refusal);
}

/*
 * The verdict names the rule that decided, the one the supervisor's log
 * and why read: the kind, the key, the entry of its list, the port
 * range that held the port and where it was set.
 */
static void
test_verdict(void **state)
{
	struct policy *p = policy_new();
	struct netpolicy_rules *r;
	char *dns[] = { "127.0.0.53", NULL };
	static const struct {
		enum netpolicy_op op;
		enum netpolicy_proto proto;
		const char *addr;
		uint16_t port;
		bool by_name;
		bool allowed;
		enum netpolicy_by by;
		const char *key;
		size_t index;
		const char *origin;
	} t[] = {
		{ NETPOLICY_CONNECT, NETPOLICY_TCP, "10.10.1.1", 8050, false,
		  true, NETPOLICY_BY_CIDR, "allow-cidr", 1, "test" },
		{ NETPOLICY_CONNECT, NETPOLICY_TCP, "127.0.0.1", 443, false,
		  true, NETPOLICY_BY_CIDR, "allow-cidr", 0, "test" },
		{ NETPOLICY_CONNECT, NETPOLICY_TCP, "10.10.1.1", 443, false,
		  false, NETPOLICY_BY_NONE, "allow-cidr", 1, "test" },
		{ NETPOLICY_CONNECT, NETPOLICY_TCP, "203.0.113.7", 443, false,
		  true, NETPOLICY_BY_PORTS, "connect-tcp", 0, "ports.ini:3" },
		{ NETPOLICY_CONNECT, NETPOLICY_TCP, "203.0.113.7", 80, false,
		  false, NETPOLICY_BY_NONE, "allow-cidr", 0, NULL },
		/* A name's unknown address: an internet address's rules,
		 * whatever the entries hold. */
		{ NETPOLICY_CONNECT, NETPOLICY_TCP, "0.0.0.0", 443, true, true,
		  NETPOLICY_BY_PORTS, "connect-tcp", 0, "ports.ini:3" },
		{ NETPOLICY_SEND, NETPOLICY_UDP, "127.0.0.53", 53, false, true,
		  NETPOLICY_BY_DNS, "dns", 0, NULL },
		{ NETPOLICY_BIND, NETPOLICY_TCP, "127.0.0.1", 8787, false, true,
		  NETPOLICY_BY_LISTEN, "listen", 0, NULL },
		{ NETPOLICY_BIND, NETPOLICY_TCP, "127.0.0.1", 0, false, true,
		  NETPOLICY_BY_PORTS, "bind-tcp", 0, NULL },
		{ NETPOLICY_BIND, NETPOLICY_TCP, "192.168.1.5", 8788, false,
		  false, NETPOLICY_BY_NONE, "listen", 0, NULL },
	};

	(void)state;
	ports_add(&p->connect_tcp, 443, 443);
	p->connect_tcp.v[0].origin = xstrdup("ports.ini:3");
	ports_add(&p->bind_tcp, 0, 0);
	add(p, "allow-cidr", "127.0.0.1/32");
	add(p, "allow-cidr", "10.10.0.0/16:8000-8100");
	add(p, "listen", "127.0.0.1:8787");
	r = rules(p, dns);
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct netpolicy_query q = { .op = t[i].op,
					     .proto = t[i].proto,
					     .addr = addr(t[i].addr, t[i].port),
					     .by_name = t[i].by_name };
		struct netpolicy_verdict v = netpolicy_decide(r, &q, NULL);

		if (v.allowed != t[i].allowed || v.by != t[i].by ||
		    (v.refusal == REFUSAL_NONE) != v.allowed || v.key == NULL ||
		    strcmp(v.key, t[i].key) != 0 || v.index != t[i].index ||
		    (t[i].origin != NULL &&
		     (v.origin == NULL || strcmp(v.origin, t[i].origin) != 0)))
			fail_msg("case %zu (%s:%u): got %s by %d, key %s, "
				 "index %zu, origin %s",
				 i, t[i].addr, t[i].port,
				 v.allowed ? "allowed"
					   : refusal_name(v.refusal),
				 (int)v.by, v.key ? v.key : "none", v.index,
				 v.origin ? v.origin : "none");
	}
	netpolicy_rules_free(r);
	policy_free(p);
}

static void
test_decide(void **state)
{
	struct policy *p = policy_new();
	struct netpolicy_rules *r = NULL;
	char *dns[] = { "127.0.0.53", NULL };
	static const struct {
		enum netpolicy_op op;
		enum netpolicy_proto proto;
		const char *addr;
		uint16_t port;
		const char *rule; /* NULL: allowed */
	} t[] = {
		/* allow-cidr 127.0.0.1/32 (ports from connect-tcp 443) */
		{ NETPOLICY_CONNECT, NETPOLICY_TCP, "127.0.0.1", 443, NULL },
		{ NETPOLICY_CONNECT, NETPOLICY_TCP, "127.0.0.1", 444,
		  "filtered/port" },
		{ NETPOLICY_CONNECT, NETPOLICY_TCP, "127.0.0.2", 443,
		  "filtered/local" },
		/* Entries add reach: the internet on connect-tcp's ports */
		{ NETPOLICY_CONNECT, NETPOLICY_TCP, "203.0.113.7", 443, NULL },
		{ NETPOLICY_CONNECT, NETPOLICY_TCP, "203.0.113.7", 80,
		  "filtered/no-cidr" },
		{ NETPOLICY_CONNECT, NETPOLICY_TCP, "192.168.1.1", 443,
		  "filtered/local" },
		{ NETPOLICY_CONNECT, NETPOLICY_TCP, "::ffff:127.0.0.1", 443,
		  NULL },
		/* 10.10.0.0/16:8000-8100: its own ports, TCP and UDP */
		{ NETPOLICY_CONNECT, NETPOLICY_TCP, "10.10.1.1", 8050, NULL },
		{ NETPOLICY_SEND, NETPOLICY_UDP, "10.10.1.1", 8100, NULL },
		{ NETPOLICY_CONNECT, NETPOLICY_TCP, "10.10.1.1", 443,
		  "filtered/port" },
		/* ::1/128 without ports: connect-udp has none */
		{ NETPOLICY_SEND, NETPOLICY_UDP, "::1", 443, "filtered/port" },
		{ NETPOLICY_CONNECT, NETPOLICY_TCP, "::1", 443, NULL },
		/* DNS only to the resolver, even inside an allowed CIDR */
		{ NETPOLICY_SEND, NETPOLICY_UDP, "127.0.0.53", 53, NULL },
		{ NETPOLICY_CONNECT, NETPOLICY_TCP, "127.0.0.53", 53, NULL },
		{ NETPOLICY_SEND, NETPOLICY_UDP, "10.10.0.1", 53,
		  "filtered/dns" },
		{ NETPOLICY_SEND, NETPOLICY_UDP, "8.8.8.8", 53,
		  "filtered/dns" },
		/* listen 127.0.0.1:8787; bind-tcp 0 (the sandbox's own
		 * servers on any loopback port) */
		{ NETPOLICY_BIND, NETPOLICY_TCP, "127.0.0.1", 8787, NULL },
		{ NETPOLICY_BIND, NETPOLICY_TCP, "127.0.0.1", 8788, NULL },
		{ NETPOLICY_BIND, NETPOLICY_TCP, "192.168.1.5", 8788,
		  "filtered/listen" },
		{ NETPOLICY_BIND, NETPOLICY_UDP, "127.0.0.1", 8788,
		  "filtered/listen" },
		{ NETPOLICY_BIND, NETPOLICY_TCP, "0.0.0.0", 8787,
		  "filtered/listen" },
		{ NETPOLICY_BIND, NETPOLICY_TCP, "127.0.0.1", 0, NULL },
		{ NETPOLICY_BIND, NETPOLICY_TCP, "::1", 0, NULL },
		{ NETPOLICY_BIND, NETPOLICY_TCP, "0.0.0.0", 0,
		  "filtered/listen" },
		{ NETPOLICY_LISTEN, NETPOLICY_TCP, "0.0.0.0", 0,
		  "filtered/listen" },
		/* no bind-udp 0: no ephemeral UDP bind */
		{ NETPOLICY_BIND, NETPOLICY_UDP, "127.0.0.1", 0,
		  "filtered/listen" },
	};

	(void)state;
	ports_add(&p->connect_tcp, 443, 443);
	ports_add(&p->bind_tcp, 0, 0);
	add(p, "allow-cidr", "127.0.0.1/32");
	add(p, "allow-cidr", "10.10.0.0/16:8000-8100");
	add(p, "allow-cidr", "::1/128");
	add(p, "listen", "127.0.0.1:8787");
	r = rules(p, dns);
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct netpolicy_addr a = addr(t[i].addr, t[i].port);
		const char *got = decide(r, t[i].op, t[i].proto, &a);

		if ((got == NULL) != (t[i].rule == NULL) ||
		    (got && strcmp(got, t[i].rule) != 0))
			fail_msg("case %zu (%s:%u): got %s, want %s", i,
				 t[i].addr, t[i].port, got ? got : "allow",
				 t[i].rule ? t[i].rule : "allow");
	}
	netpolicy_rules_free(r);
	policy_free(p);
}

/* Without allow-cidr or listen the port lists alone decide, for any
 * address; net host allows every port. */
static void
test_decide_ports_only(void **state)
{
	struct policy *p = policy_new();
	struct netpolicy_rules *r = NULL;
	struct netpolicy_addr a = addr("203.0.113.7", 443);

	(void)state;
	ports_add(&p->connect_tcp, 443, 443);
	items_add(&p->unix_paths, "/run/postgresql/.s.PGSQL.5432");
	r = rules(p, NULL);
	assert_null(decide(r, NETPOLICY_CONNECT, NETPOLICY_TCP, &a));
	a.port = 80;
	assert_string_equal(decide(r, NETPOLICY_CONNECT, NETPOLICY_TCP, &a),
			    "filtered/net-port");
	/* A bind off loopback: the address refuses before the port. */
	assert_string_equal(decide(r, NETPOLICY_BIND, NETPOLICY_TCP, &a),
			    "filtered/listen");
	a = addr("127.0.0.1", 80);
	assert_string_equal(decide(r, NETPOLICY_BIND, NETPOLICY_TCP, &a),
			    "filtered/bind-port");
	a = addr("203.0.113.7", 80);
	netpolicy_rules_free(r);
	p->net = LLW_NET_HOST;
	r = rules(p, NULL);
	assert_null(decide(r, NETPOLICY_CONNECT, NETPOLICY_TCP, &a));
	/* No resolver: no DNS, whatever the mode. */
	a.port = 53;
	assert_string_equal(decide(r, NETPOLICY_SEND, NETPOLICY_UDP, &a),
			    "filtered/dns");
	netpolicy_rules_free(r);
	policy_free(p);
}

static void
test_local(void **state)
{
	static const struct {
		const char *addr;
		bool local;
	} t[] = {
		{ "127.0.0.1", true },
		{ "127.255.0.9", true },
		{ "0.0.0.0", true },
		{ "10.1.2.3", true },
		{ "172.16.0.1", true },
		{ "172.31.255.1", true },
		{ "172.32.0.1", false },
		{ "192.168.1.1", true },
		{ "192.169.1.1", false },
		{ "169.254.169.254", true },
		{ "100.64.0.1", true },
		{ "100.127.255.1", true },
		{ "100.128.0.1", false },
		{ "224.0.0.251", true },
		{ "255.255.255.255", true },
		{ "203.0.113.7", false },
		{ "8.8.8.8", false },
		{ "::1", true },
		{ "::", true },
		{ "fe80::1", true },
		{ "fd00::1", true },
		{ "fc00::1", true },
		{ "ff02::fb", true },
		{ "2001:db8::1", false },
		{ "::ffff:10.0.0.1", true },
		{ "::ffff:8.8.8.8", false },
		/* NAT64's well-known prefix: the IPv4 address it carries. */
		{ "64:ff9b::7f00:1", true },
		{ "64:ff9b::a00:1", true },
		{ "64:ff9b::c0a8:101", true },
		{ "64:ff9b::a9fe:a9fe", true },
		{ "64:ff9b::cb00:7107", false },
		{ "64:ff9b::808:808", false },
		{ "64:ff9b:0:0:1::a00:1", false },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct netpolicy_addr a = addr(t[i].addr, 80);

		if (netpolicy_addr_local(&a) != t[i].local)
			fail_msg("%s: local should be %d", t[i].addr,
				 t[i].local);
	}
}

/* proxy = yes (or allow-host): the proxy's address is reached, DNS is
 * not, port rules no longer reach the network; allow-cidr entries and
 * the sandbox's own loopback rules still decide as before. */
static void
test_decide_proxy(void **state)
{
	struct policy *p = policy_new();
	struct netpolicy_rules *r = NULL;
	char *const dns[] = { "127.0.0.53", NULL };
	struct netpolicy_addr a, px = addr("127.0.0.1", 40123);

	(void)state;
	add(p, "allow-host", "api.openai.com");
	ports_add(&p->connect_tcp, 443, 443);
	add(p, "allow-cidr", "10.1.0.0/16:8443");
	assert_true(netpolicy_needs_supervisor(p));
	r = rules(p, dns);

	/* Before the proxy listens, its port is nothing special. */
	assert_string_equal(decide(r, NETPOLICY_CONNECT, NETPOLICY_TCP, &px),
			    "filtered/local");
	netpolicy_rules_set_proxy(r, &px);
	assert_null(decide(r, NETPOLICY_CONNECT, NETPOLICY_TCP, &px));
	a = addr("127.0.0.1", 40124);
	assert_string_equal(decide(r, NETPOLICY_CONNECT, NETPOLICY_TCP, &a),
			    "filtered/local");
	a = addr("127.0.0.1", 40123);
	assert_string_equal(decide(r, NETPOLICY_SEND, NETPOLICY_UDP, &a),
			    "filtered/local");
	/* DNS, even to the resolver. */
	a = addr("127.0.0.53", 53);
	assert_string_equal(decide(r, NETPOLICY_SEND, NETPOLICY_UDP, &a),
			    "filtered/proxy");
	assert_string_equal(decide(r, NETPOLICY_CONNECT, NETPOLICY_TCP, &a),
			    "filtered/proxy");
	/* The port rule no longer reaches the internet... */
	a = addr("203.0.113.7", 443);
	assert_string_equal(decide(r, NETPOLICY_CONNECT, NETPOLICY_TCP, &a),
			    "filtered/proxy");
	a = addr("203.0.113.7", 443);
	assert_string_equal(decide(r, NETPOLICY_SEND, NETPOLICY_UDP, &a),
			    "filtered/proxy");
	/* ... allow-cidr does. */
	a = addr("10.1.2.3", 8443);
	assert_null(decide(r, NETPOLICY_CONNECT, NETPOLICY_TCP, &a));
	assert_string_equal(netpolicy_cidr_allows(r, &a), "test");
	a = addr("10.1.2.3", 443);
	assert_null(netpolicy_cidr_allows(r, &a));
	a = addr("10.2.2.3", 8443);
	assert_null(netpolicy_cidr_allows(r, &a));
	netpolicy_rules_free(r);

	/* In mode host the proxy is not used. */
	p->net = LLW_NET_HOST;
	r = rules(p, dns);
	a = addr("203.0.113.7", 443);
	assert_null(decide(r, NETPOLICY_CONNECT, NETPOLICY_TCP, &a));
	netpolicy_rules_free(r);
	policy_free(p);
}

/* allow-host through llwrap's resolver: what the learned names say
 * decides outside allow-cidr; port 53 reaches nothing (the engine swaps
 * the resolvers' sockets first); a local address is refused as such,
 * as rebinding when an allowed name gave it. */
struct named_fake {
	struct netpolicy_addr addr;  /* learned on port addr.port */
	struct netpolicy_addr local; /* a rebinding answer's address */
};

static enum netpolicy_named
named_fake(void *ctx, const struct netpolicy_query *q)
{
	const struct named_fake *f = ctx;

	if (memcmp(q->addr.a, f->addr.a, 16) == 0)
		return q->addr.port == f->addr.port ? NETPOLICY_NAMED_YES
						    : NETPOLICY_NAMED_PORT;
	if (memcmp(q->addr.a, f->local.a, 16) == 0)
		return NETPOLICY_NAMED_REBIND;
	return NETPOLICY_NAMED_NO;
}

static void
test_decide_stub(void **state)
{
	struct policy *p = policy_new();
	struct netpolicy_rules *r = NULL;
	char *const dns[] = { "192.0.2.53", NULL };
	struct named_fake f = { .addr = addr("198.51.100.7", 443),
				.local = addr("127.0.0.9", 0) };
	struct netpolicy_lookup lk = { .named = named_fake, .ctx = &f };
	struct {
		const char *addr;
		uint16_t port;
		enum netpolicy_proto proto;
		const char *rule; /* NULL: allowed */
	} t[] = {
		{ "198.51.100.7", 443, NETPOLICY_TCP, NULL },
		{ "198.51.100.7", 443, NETPOLICY_UDP, NULL },
		{ "198.51.100.7", 80, NETPOLICY_TCP, "filtered/host-port" },
		{ "203.0.113.9", 443, NETPOLICY_TCP, "filtered/unnamed" },
		{ "192.0.2.53", 53, NETPOLICY_UDP, "filtered/dns" },
		{ "198.51.100.7", 53, NETPOLICY_UDP, "filtered/dns" },
		{ "127.0.0.9", 443, NETPOLICY_TCP, "filtered/rebind" },
		{ "127.0.0.8", 443, NETPOLICY_TCP, "filtered/local" },
		{ "10.1.2.3", 8443, NETPOLICY_TCP, NULL },
		{ "10.1.2.3", 443, NETPOLICY_TCP, "filtered/port" },
	};

	(void)state;
	add(p, "allow-host", "api.openai.com");
	ports_add(&p->connect_tcp, 443, 443);
	add(p, "allow-cidr", "10.1.0.0/16:8443");
	r = rules(p, dns);
	netpolicy_rules_use_stub(r);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct netpolicy_query q = { .op = NETPOLICY_CONNECT,
					     .proto = t[i].proto,
					     .addr = addr(t[i].addr,
							  t[i].port) };
		const char *got =
			refusal_name(netpolicy_decide(r, &q, &lk).refusal);

		if (t[i].rule == NULL && got != NULL)
			fail_msg("%s:%u: %s", t[i].addr, t[i].port, got);
		if (t[i].rule != NULL)
			assert_string_equal(got ? got : "(allowed)", t[i].rule);
	}
	/* Without the lookup nothing outside allow-cidr is reached. */
	{
		struct netpolicy_addr a = addr("198.51.100.7", 443);

		assert_string_equal(
			decide(r, NETPOLICY_CONNECT, NETPOLICY_TCP, &a),
			"filtered/unnamed");
	}
	netpolicy_rules_free(r);
	policy_free(p);
}

/* supervise = yes with port rules only: the internet on those ports,
 * local destinations never; binds on loopback; the unspecified address
 * is loopback as a destination and becomes loopback as a bind. */
static void
test_decide_local(void **state)
{
	struct policy *p = policy_new();
	struct netpolicy_rules *r = NULL;
	char *const dns[] = { "127.0.0.53", NULL };
	struct netpolicy_addr a;

	(void)state;
	p->supervise = true;
	ports_add(&p->connect_tcp, 443, 443);
	ports_add(&p->bind_tcp, 0, 0);
	ports_add(&p->bind_tcp, 1024, 65535);
	r = rules(p, dns);

	a = addr("203.0.113.7", 443);
	assert_null(decide(r, NETPOLICY_CONNECT, NETPOLICY_TCP, &a));
	a = addr("127.0.0.1", 443);
	assert_string_equal(decide(r, NETPOLICY_CONNECT, NETPOLICY_TCP, &a),
			    "filtered/local");
	a = addr("192.168.1.1", 443);
	assert_string_equal(decide(r, NETPOLICY_CONNECT, NETPOLICY_TCP, &a),
			    "filtered/local");
	/* The resolver, on loopback, over UDP and TCP. */
	a = addr("127.0.0.53", 53);
	assert_null(decide(r, NETPOLICY_SEND, NETPOLICY_UDP, &a));
	assert_null(decide(r, NETPOLICY_CONNECT, NETPOLICY_TCP, &a));

	a = addr("0.0.0.0", 443);
	netpolicy_addr_destination(&a);
	assert_int_equal(a.family, AF_INET);
	assert_int_equal(a.a[0], 127);
	assert_int_equal(a.a[3], 1);
	a = addr("::", 8080);
	netpolicy_addr_destination(&a);
	assert_int_equal(a.family, AF_INET6);
	assert_int_equal(a.a[15], 1);
	assert_int_equal(a.port, 8080);

	/* Binds: loopback only; the wildcard becomes loopback. */
	a = addr("0.0.0.0", 5173);
	assert_true(netpolicy_bind_address(r, &a));
	assert_int_equal(a.a[0], 127);
	assert_null(decide(r, NETPOLICY_BIND, NETPOLICY_TCP, &a));
	a = addr("127.0.0.1", 5173);
	assert_false(netpolicy_bind_address(r, &a));
	assert_null(decide(r, NETPOLICY_BIND, NETPOLICY_TCP, &a));
	a = addr("192.168.1.5", 5173);
	assert_false(netpolicy_bind_address(r, &a));
	assert_string_equal(decide(r, NETPOLICY_BIND, NETPOLICY_TCP, &a),
			    "filtered/listen");
	/* bind-tcp holds 0: the sandbox's own servers on any loopback
	 * port an unprivileged process may bind, published (reachable from
	 * the host) on the named ones. */
	a = addr("127.0.0.1", 80);
	assert_string_equal(decide(r, NETPOLICY_BIND, NETPOLICY_TCP, &a),
			    "filtered/bind-port");
	netpolicy_rules_set_unprivileged_start(r, 80);
	assert_null(decide(r, NETPOLICY_BIND, NETPOLICY_TCP, &a));
	assert_false(netpolicy_bind_published(r, NETPOLICY_TCP, &a));
	netpolicy_rules_set_unprivileged_start(r, 1024);
	a = addr("127.0.0.1", 3000);
	assert_null(decide(r, NETPOLICY_BIND, NETPOLICY_TCP, &a));
	assert_true(netpolicy_bind_published(r, NETPOLICY_TCP, &a));
	a = addr("127.0.0.1", 5173);
	assert_true(netpolicy_bind_published(r, NETPOLICY_TCP, &a));
	a = addr("::1", 5173);
	assert_true(netpolicy_bind_published(r, NETPOLICY_TCP, &a));
	/* An ephemeral port: not hidden (nothing on the host expects it). */
	a = addr("127.0.0.1", 0);
	assert_null(decide(r, NETPOLICY_BIND, NETPOLICY_TCP, &a));
	assert_true(netpolicy_bind_published(r, NETPOLICY_TCP, &a));
	/* UDP: only the named ports (and port 0, a client's), published. */
	a = addr("127.0.0.1", 5353);
	assert_string_equal(decide(r, NETPOLICY_BIND, NETPOLICY_UDP, &a),
			    "filtered/bind-port");
	a = addr("127.0.0.1", 0);
	assert_null(decide(r, NETPOLICY_BIND, NETPOLICY_UDP, &a));
	assert_true(netpolicy_bind_published(r, NETPOLICY_UDP, &a));
	netpolicy_rules_free(r);
	/* Without bind-tcp 0 the named ports alone, all published. */
	free(p->bind_tcp.v);
	p->bind_tcp.v = NULL;
	p->bind_tcp.n = 0;
	ports_add(&p->bind_tcp, 3000, 3009);
	r = rules(p, dns);
	a = addr("127.0.0.1", 3001);
	assert_null(decide(r, NETPOLICY_BIND, NETPOLICY_TCP, &a));
	assert_true(netpolicy_bind_published(r, NETPOLICY_TCP, &a));
	a = addr("127.0.0.1", 5432);
	assert_string_equal(decide(r, NETPOLICY_BIND, NETPOLICY_TCP, &a),
			    "filtered/bind-port");
	netpolicy_rules_free(r);
	ports_add(&p->bind_tcp, 0, 0);

	/* A listen entry on the wildcard is asked for: kept. */
	add(p, "listen", "0.0.0.0:4096");
	r = rules(p, dns);
	a = addr("0.0.0.0", 4096);
	assert_false(netpolicy_bind_address(r, &a));
	assert_null(decide(r, NETPOLICY_BIND, NETPOLICY_TCP, &a));
	netpolicy_rules_free(r);
	/* net = host: nothing changes. */
	p->net = LLW_NET_HOST;
	r = rules(p, dns);
	a = addr("0.0.0.0", 5173);
	assert_false(netpolicy_bind_address(r, &a));
	a = addr("127.0.0.1", 443);
	assert_null(decide(r, NETPOLICY_CONNECT, NETPOLICY_TCP, &a));
	netpolicy_rules_free(r);
	policy_free(p);
}

/* A value is parsed once, when it is added, with value.h's grammar: a
 * bad one (which profile loading refuses the same way) names its
 * origin and is not added. */
static void
test_parse_network(void **state)
{
	static const struct {
		const char *key, *value, *want;
	} t[] = {
		{ "allow-cidr", "10.0.0.0/40",
		  "test: [network] allow-cidr: bad CIDR '10.0.0.0/40'" },
		{ "listen", "127.0.0.1:80-80",
		  "test: [network] listen: bad address '127.0.0.1:80-80'" },
		{ "dns", "[::1]",
		  "test: [network] dns: bad IP address '[::1]'" },
		{ "allow-host", "a.*.example",
		  "test: [network] allow-host: bad host 'a.*.example'" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct policy *p = policy_new();
		char *cause = NULL;

		add(p, "allow-cidr", "10.0.0.0/8:443");
		assert_int_equal(policy_add(p, "network", t[i].key, t[i].value,
					    "test", &cause),
				 -EINVAL);
		if (strstr(cause, t[i].want) == NULL)
			fail_msg("%s: got '%s'", t[i].value, cause);
		assert_int_equal(p->n_cidrs, 1);
		assert_int_equal(
			p->n_hosts + p->n_listen_addrs + p->n_dns_addrs, 0);
		free(cause);
		policy_free(p);
	}
}

/* The typed values, in the order added, each once, each with its
 * origin. */
static void
test_parse_network_typed(void **state)
{
	struct policy *p = policy_new();
	_cleanup_free_ char *l = NULL, *d = NULL;

	(void)state;
	add(p, "allow-cidr", "10.0.0.0/8:443,8000-8100");
	add(p, "allow-cidr", "[::ffff:127.0.0.1]:80");
	add(p, "listen", "[::1]:8080");
	add(p, "dns", "::ffff:192.0.2.53");
	add(p, "allow-host", "*.Example.COM:443,8443");
	assert_int_equal(p->n_hosts, 1);
	assert_string_equal(p->hosts[0].name, "example.com");
	assert_true(p->hosts[0].wildcard);
	assert_int_equal(p->hosts[0].n_ports, 2);
	assert_string_equal(p->hosts[0].origin, "test");
	assert_int_equal(p->n_cidrs, 2);
	assert_int_equal(p->cidrs[0].prefix, 8);
	assert_int_equal(p->cidrs[0].n_ports, 2);
	assert_int_equal(p->cidrs[0].ports[1].lo, 8000);
	assert_int_equal(p->cidrs[0].ports[1].hi, 8100);
	assert_string_equal(p->cidrs[0].origin, "test");
	assert_int_equal(p->cidrs[1].net.family, AF_INET);
	assert_int_equal(p->cidrs[1].prefix, 32);
	assert_int_equal(p->n_listen_addrs, 1);
	l = value_addr_format(&p->listen_addrs[0].addr);
	assert_string_equal(l, "[::1]:8080");
	assert_string_equal(p->listen_addrs[0].origin, "test");
	assert_int_equal(p->n_dns_addrs, 1);
	d = value_ip_format(&p->dns_addrs[0].addr);
	assert_string_equal(d, "192.0.2.53");
	/* The same value again is there once; "none" clears. */
	add(p, "allow-cidr", "10.0.0.0/8:443,8000-8100");
	add(p, "allow-host", "*.example.com:443,8443");
	assert_int_equal(p->n_cidrs, 2);
	assert_int_equal(p->n_hosts, 1);
	add(p, "allow-cidr", "none");
	add(p, "dns", "none");
	assert_int_equal(p->n_cidrs, 0);
	assert_int_equal(p->n_dns_addrs, 0);
	assert_int_equal(p->n_hosts, 1);
	policy_free(p);
}

/* The grammar profile.c validates with is the one that parses. */
static void
test_parse_strict(void **state)
{
	static const struct {
		const char *in;
		int ok;
	} ports[] = {
		{ "443", 0 },	      { "443,8000-8100", 0 },
		{ "0", 0 },	      { "", -EINVAL },
		{ ",443", -EINVAL },  { "443,", -EINVAL },
		{ "1,,2", -EINVAL },  { "2-1", -EINVAL },
		{ "65536", -EINVAL }, { " 1", -EINVAL },
	};
	struct netpolicy_addr a;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ports); i++) {
		_cleanup_free_ struct llw_port_range *v = NULL;
		size_t n = 0;
		int r = value_ports(ports[i].in, &v, &n, NULL);

		if (r != ports[i].ok)
			fail_msg("ports '%s': got %d", ports[i].in, r);
		if (r == 0)
			assert_true(n > 0);
	}
	assert_int_equal(value_listen("127.0.0.1:80-80", &a, NULL), -EINVAL);
	assert_int_equal(value_listen("127.0.0.1:080", &a, NULL), 0);
	assert_int_equal(a.port, 80);
	assert_int_equal(value_ip("192.0.2.1", &a, NULL), 0);
	assert_int_equal(value_ip("[::1]", &a, NULL), -EINVAL);
	assert_int_equal(value_addr("[::1]", &a, NULL), 0);
	assert_int_equal(value_ip("::ffff:10.0.0.1", &a, NULL), 0);
	assert_int_equal(a.family, AF_INET);
	assert_int_equal(value_ip("10.0.0.1 ", &a, NULL), -EINVAL);
}

static void
test_resolvers(void **state)
{
	struct policy *p = policy_new();
	_cleanup_free_ struct netpolicy_addr *v = NULL, *w = NULL, *z = NULL;
	size_t n;
	const char *conf = "# comment\nsearch example.com\n"
			   "nameserver 127.0.0.53\n"
			   "nameserver\t::1 # trailing\n"
			   "nameserver fe80::1%eth0\n"
			   "nameserver not-an-address\n"
			   "nameserver 127.0.0.53\n";
	static const char *const want[] = { "127.0.0.53", "::1", "fe80::1" };

	(void)state;
	v = netpolicy_resolvers(p, conf, &n);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *s = value_ip_format(&v[i]);

		assert_string_equal(s, want[i]);
	}
	z = netpolicy_resolvers(p, NULL, &n);
	assert_null(z);
	assert_int_equal(n, 0);
	add(p, "dns", "192.0.2.53");
	w = netpolicy_resolvers(p, conf, &n);
	assert_int_equal(n, 1);
	{
		_cleanup_free_ char *s = value_ip_format(&w[0]);

		assert_string_equal(s, "192.0.2.53");
	}
	policy_free(p);
}

/*
 * The plan's network side (netpolicy_plan): its rules, copied with the
 * run's resolvers (netpolicy_rules_copy), decide as the policy's
 * compiled with them; the plan holds the decided values the supervisor
 * and its helpers read.
 */
static void
test_plan(void **state)
{
	struct policy *p = policy_new();
	struct net_plan np;
	struct netpolicy_rules *want, *got;
	struct netpolicy_addr resolver;
	char *dns[] = { "127.0.0.53", NULL };
	static const char *const addrs[] = { "127.0.0.1",   "127.0.0.2",
					     "127.0.0.53",  "10.10.1.1",
					     "203.0.113.7", "192.168.1.5",
					     "::1",	    "0.0.0.0" };
	static const uint16_t ports[] = { 0, 53, 80, 443, 8050, 8787, 8788 };
	static const enum netpolicy_op ops[] = { NETPOLICY_CONNECT,
						 NETPOLICY_SEND, NETPOLICY_BIND,
						 NETPOLICY_LISTEN };
	size_t checked = 0;

	(void)state;
	ports_add(&p->connect_tcp, 443, 443);
	ports_add(&p->bind_tcp, 0, 0);
	add(p, "allow-cidr", "127.0.0.1/32");
	add(p, "allow-cidr", "10.10.0.0/16:8000-8100");
	add(p, "listen", "127.0.0.1:8787");
	add(p, "dns", "127.0.0.53");
	items_add(&p->unix_paths, "/run/postgresql/.s.PGSQL.5432");
	netpolicy_plan(p, &np);
	assert_int_equal(np.n_dns, 1);
	assert_int_equal(np.n_cidrs, 2);
	assert_ptr_equal(np.connect_tcp, &p->connect_tcp);
	assert_int_equal(strv_length(np.unix_paths), 1);
	assert_string_equal(np.unix_paths[0], "/run/postgresql/.s.PGSQL.5432");
	assert_non_null(np.log_prefix);

	/* Without resolvers the plan's own rules let no DNS out. */
	resolver = addr("127.0.0.53", 53);
	assert_string_equal(
		decide(np.rules, NETPOLICY_SEND, NETPOLICY_UDP, &resolver),
		"filtered/dns");
	want = rules(p, dns);
	got = netpolicy_rules_copy(np.rules, np.dns, np.n_dns);
	for (size_t o = 0; o < ARRAY_SIZE(ops); o++)
		for (size_t i = 0; i < ARRAY_SIZE(addrs); i++)
			for (size_t j = 0; j < ARRAY_SIZE(ports); j++)
				for (int udp = 0; udp < 2; udp++) {
					enum netpolicy_proto pr =
						udp ? NETPOLICY_UDP
						    : NETPOLICY_TCP;
					struct netpolicy_addr a =
						addr(addrs[i], ports[j]);
					const char *w =
						decide(want, ops[o], pr, &a);
					const char *g =
						decide(got, ops[o], pr, &a);

					if ((w == NULL) != (g == NULL) ||
					    (w && strcmp(w, g) != 0))
						fail_msg("%s:%u op %zu udp %d: "
							 "copy %s, policy %s",
							 addrs[i], ports[j], o,
							 udp, g ? g : "allow",
							 w ? w : "allow");
					checked++;
				}
	assert_int_equal(checked, ARRAY_SIZE(ops) * ARRAY_SIZE(addrs) *
					  ARRAY_SIZE(ports) * 2);
	netpolicy_rules_free(want);
	netpolicy_rules_free(got);
	net_plan_clear(&np);
	policy_free(p);
}

/* The sandbox's own listener: a loopback destination the rules refuse
 * is reached when the lookup says the sandbox bound what is there, and
 * only then; binds, and destinations the rules decide, never ask. */
struct lookup_log {
	unsigned calls;
	bool answer;
	uint64_t now_ns;
	bool udp;
};

static bool
own_socket(void *ctx, const struct netpolicy_query *q)
{
	struct lookup_log *l = ctx;

	l->calls++;
	l->now_ns = q->now_ns;
	l->udp = q->proto == NETPOLICY_UDP;
	return l->answer;
}

static void
test_decide_lookup(void **state)
{
	struct policy *p = policy_new();
	struct netpolicy_rules *r;
	struct lookup_log log = { 0 };
	struct netpolicy_lookup lk = { .own_socket = own_socket, .ctx = &log };
	struct netpolicy_query q = { .op = NETPOLICY_CONNECT,
				     .proto = NETPOLICY_TCP,
				     .now_ns = 77 };

	(void)state;
	p->supervise = true;
	ports_add(&p->connect_tcp, 443, 443);
	ports_add(&p->bind_tcp, 8000, 8000);
	r = rules(p, NULL);

	q.addr = addr("127.0.0.1", 8000);
	assert_int_equal(netpolicy_decide(r, &q, NULL).refusal, REFUSAL_LOCAL);
	assert_int_equal(netpolicy_decide(r, &q, &lk).refusal, REFUSAL_LOCAL);
	assert_int_equal(log.calls, 1);
	assert_int_equal(log.now_ns, 77);
	log.answer = true;
	assert_int_equal(netpolicy_decide(r, &q, &lk).refusal, REFUSAL_NONE);
	q.proto = NETPOLICY_UDP;
	q.op = NETPOLICY_SEND;
	assert_int_equal(netpolicy_decide(r, &q, &lk).refusal, REFUSAL_NONE);
	assert_true(log.udp);
	/* Not loopback: the rules alone. */
	q.addr = addr("192.168.1.1", 8000);
	assert_int_equal(netpolicy_decide(r, &q, &lk).refusal, REFUSAL_LOCAL);
	/* Allowed by the rules: nothing asked. */
	log.calls = 0;
	q.op = NETPOLICY_CONNECT;
	q.proto = NETPOLICY_TCP;
	q.addr = addr("203.0.113.7", 443);
	assert_int_equal(netpolicy_decide(r, &q, &lk).refusal, REFUSAL_NONE);
	/* A bind is the rules' alone. */
	q.op = NETPOLICY_BIND;
	q.addr = addr("127.0.0.1", 8001);
	assert_string_equal(refusal_name(netpolicy_decide(r, &q, &lk).refusal),
			    "filtered/bind-port");
	assert_int_equal(log.calls, 0);
	/* A lookup without the question: no. */
	lk.own_socket = NULL;
	q.op = NETPOLICY_CONNECT;
	q.addr = addr("127.0.0.1", 8000);
	assert_int_equal(netpolicy_decide(r, &q, &lk).refusal, REFUSAL_LOCAL);
	netpolicy_rules_free(r);
	policy_free(p);
}

/* This host's addresses and on-link prefixes (netpolicy_prefixes_hold),
 * and the decision that asks for them (lk->host_local). */
static struct netpolicy_prefix host_table[4];

static bool
host_local(void *ctx, const struct netpolicy_addr *a)
{
	(*(int *)ctx)++;
	return netpolicy_prefixes_hold(host_table, ARRAY_SIZE(host_table), a);
}

static void
test_host_local(void **state)
{
	static const struct {
		const char *addr;
		bool local;
	} t[] = {
		{ "198.51.100.5", true },	/* the host's own */
		{ "198.51.100.77", true },	/* a neighbour on its link */
		{ "198.51.101.1", false },	/* past the /24 */
		{ "64:ff9b::c633:6407", true }, /* NAT64 of 198.51.100.7 */
		{ "2001:db8:1::5", true },	{ "2001:db8:1::beef", true },
		{ "2001:db8:1:1::1", false },	{ "2001:db8:2::1", false },
		{ "203.0.113.7", false },	{ "::ffff:198.51.100.9", true },
	};
	struct policy *p = policy_new();
	struct netpolicy_rules *r;
	int calls = 0;
	struct netpolicy_lookup lk = { .host_local = host_local,
				       .ctx = &calls };
	struct netpolicy_addr a;

	(void)state;
	host_table[0] =
		(struct netpolicy_prefix){ addr("198.51.100.5", 0), 32 };
	host_table[1] =
		(struct netpolicy_prefix){ addr("198.51.100.0", 0), 24 };
	host_table[2] =
		(struct netpolicy_prefix){ addr("2001:db8:1::5", 0), 128 };
	host_table[3] =
		(struct netpolicy_prefix){ addr("2001:db8:1::", 0), 64 };
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		a = addr(t[i].addr, 80);
		if (netpolicy_prefixes_hold(host_table, ARRAY_SIZE(host_table),
					    &a) != t[i].local)
			fail_msg("%s: local should be %d", t[i].addr,
				 t[i].local);
	}

	/* Port rules under the supervisor: the host's own address and its
	 * on-link neighbours are local, as loopback is. */
	p->supervise = true;
	ports_add(&p->connect_tcp, 443, 443);
	r = rules(p, NULL);
	a = addr("198.51.100.5", 443);
	assert_null(decide(r, NETPOLICY_CONNECT, NETPOLICY_TCP, &a));
	{
		struct netpolicy_query q = { .op = NETPOLICY_CONNECT,
					     .proto = NETPOLICY_TCP,
					     .addr = a };

		assert_string_equal(
			refusal_name(netpolicy_decide(r, &q, &lk).refusal),
			"filtered/local");
		q.addr = addr("2001:db8:1::99", 443);
		assert_string_equal(
			refusal_name(netpolicy_decide(r, &q, &lk).refusal),
			"filtered/local");
		q.addr = addr("64:ff9b::c633:6405", 443);
		assert_string_equal(
			refusal_name(netpolicy_decide(r, &q, &lk).refusal),
			"filtered/local");
		q.addr = addr("203.0.113.7", 443);
		assert_int_equal(netpolicy_decide(r, &q, &lk).refusal,
				 REFUSAL_NONE);
		assert_int_equal(calls, 4);
		/* Statically local: nothing asked. */
		q.addr = addr("10.0.0.1", 443);
		assert_string_equal(
			refusal_name(netpolicy_decide(r, &q, &lk).refusal),
			"filtered/local");
		assert_int_equal(calls, 4);
		netpolicy_rules_free(r);
		/* An allow-cidr entry reaches it, as any local address. */
		add(p, "allow-cidr", "198.51.100.0/24:443");
		r = rules(p, NULL);
		q.addr = addr("198.51.100.77", 443);
		assert_int_equal(netpolicy_decide(r, &q, &lk).refusal,
				 REFUSAL_NONE);
		netpolicy_rules_free(r);
		/* Standing in for Landlock's port rules, the supervisor
		 * reaches what Landlock would. */
		policy_free(p);
		p = policy_new();
		ports_add(&p->connect_tcp, 443, 443);
		r = rules(p, NULL);
		q.addr = addr("198.51.100.5", 443);
		assert_int_equal(netpolicy_decide(r, &q, &lk).refusal,
				 REFUSAL_NONE);
	}
	netpolicy_rules_free(r);
	policy_free(p);
}

/* Sharing a port: the sockets at a port, which are the sandbox's own. */
static bool
shared_yes(void *ctx, const struct netpolicy_query *q)
{
	(void)q;
	(*(int *)ctx)++;
	return true;
}

static void
test_shared(void **state)
{
	struct netpolicy_own *o = xcalloc(1, sizeof(*o));
	struct netpolicy_sock v[4];
	struct netpolicy_addr d;
	struct policy *p = policy_new();
	struct netpolicy_rules *r;
	int calls = 0;
	struct netpolicy_lookup lk = { .port_shared = shared_yes,
				       .ctx = &calls };
	struct netpolicy_query q = { .op = NETPOLICY_BIND,
				     .proto = NETPOLICY_TCP };

	(void)state;
	/* Who a destination reaches. */
	d = addr("127.0.0.1", 8080);
	v[0] = (struct netpolicy_sock){ addr("127.0.0.1", 8080), 1 };
	v[1] = (struct netpolicy_sock){ addr("0.0.0.0", 8080), 2 };
	v[2] = (struct netpolicy_sock){ addr("::", 8080), 3 };
	v[3] = (struct netpolicy_sock){ addr("::1", 8080), 4 };
	assert_true(netpolicy_sock_reaches(&v[0].addr, &d));
	assert_true(netpolicy_sock_reaches(&v[1].addr, &d));
	assert_true(netpolicy_sock_reaches(&v[2].addr, &d)); /* dual stack */
	assert_false(netpolicy_sock_reaches(&v[3].addr, &d));
	d.port = 8081;
	assert_false(netpolicy_sock_reaches(&v[0].addr, &d));
	d = addr("::1", 8080);
	assert_false(netpolicy_sock_reaches(&v[1].addr, &d));
	assert_true(netpolicy_sock_reaches(&v[2].addr, &d));
	assert_true(netpolicy_sock_reaches(&v[3].addr, &d));

	/* The own-listener exemption: every socket a destination reaches
	 * is own, and one does. */
	d = addr("127.0.0.1", 8080);
	netpolicy_own_add_ip(o, 1, false);
	assert_true(netpolicy_dest_own(o, &d, v, 1));
	/* A host's socket in the same group (SO_REUSEPORT): not own. */
	assert_false(netpolicy_dest_own(o, &d, v, 2));
	/* A host's on the other family's loopback does not get it. */
	v[1] = v[3];
	assert_true(netpolicy_dest_own(o, &d, v, 2));
	/* Nothing there: no exemption. */
	assert_false(netpolicy_dest_own(o, &d, v + 1, 1));
	assert_false(netpolicy_dest_own(o, &d, NULL, 0));

	/* A bind that would share a port with a host's socket, in any
	 * family, at any address; the socket itself does not count. */
	assert_false(netpolicy_port_shared(o, 1, v, 1));
	assert_false(netpolicy_port_shared(o, 9, v, 1));
	assert_true(netpolicy_port_shared(o, 1, v, 2));
	netpolicy_own_add_ip(o, 4, false);
	assert_false(netpolicy_port_shared(o, 1, v, 2));
	assert_true(netpolicy_port_shared(o, 4, v + 2, 1));
	assert_false(netpolicy_port_shared(o, 4, NULL, 0));

	/* The decision asks for it on a bind or listen the rules allow,
	 * not on port 0, nor in mode host. */
	p->supervise = true;
	ports_add(&p->bind_tcp, 0, 0);
	ports_add(&p->bind_udp, 5353, 5353);
	r = rules(p, NULL);
	q.addr = addr("127.0.0.1", 8080);
	assert_string_equal(refusal_name(netpolicy_decide(r, &q, &lk).refusal),
			    "filtered/shared-port");
	q.op = NETPOLICY_LISTEN;
	assert_string_equal(refusal_name(netpolicy_decide(r, &q, &lk).refusal),
			    "filtered/shared-port");
	q.proto = NETPOLICY_UDP;
	q.op = NETPOLICY_BIND;
	q.addr = addr("127.0.0.1", 5353);
	assert_string_equal(refusal_name(netpolicy_decide(r, &q, &lk).refusal),
			    "filtered/shared-port");
	assert_int_equal(calls, 3);
	q.addr.port = 0;
	assert_int_equal(netpolicy_decide(r, &q, &lk).refusal, REFUSAL_NONE);
	q.addr = addr("127.0.0.1", 5354);
	assert_string_equal(refusal_name(netpolicy_decide(r, &q, &lk).refusal),
			    "filtered/bind-port");
	assert_int_equal(calls, 3);
	netpolicy_rules_free(r);
	p->net = LLW_NET_HOST;
	r = rules(p, NULL);
	q.addr = addr("127.0.0.1", 5353);
	assert_int_equal(netpolicy_decide(r, &q, &lk).refusal, REFUSAL_NONE);
	assert_int_equal(calls, 3);
	netpolicy_rules_free(r);
	policy_free(p);

	/* The listeners moved off the port they asked for: found by the
	 * address and port asked, the most recent first. */
	d = addr("127.0.0.1", 5432);
	assert_null(netpolicy_own_private(o, &d));
	netpolicy_own_add_private(o, &d, 41000, 7);
	d = addr("::1", 5432);
	netpolicy_own_add_private(o, &d, 42000, 8);
	d = addr("127.0.0.1", 5432);
	assert_int_equal(netpolicy_own_private(o, &d)->port, 41000);
	d = addr("::1", 5432);
	assert_int_equal(netpolicy_own_private(o, &d)->port, 42000);
	d = addr("127.0.0.2", 5432);
	assert_null(netpolicy_own_private(o, &d));
	d = addr("127.0.0.1", 5433);
	assert_null(netpolicy_own_private(o, &d));
	d = addr("127.0.0.1", 5432);
	netpolicy_own_add_private(o, &d, 43000, 9);
	assert_int_equal(netpolicy_own_private(o, &d)->port, 43000);
	assert_int_equal(netpolicy_own_private(o, &d)->cookie, 9);
	for (int i = 0; i < NETPOLICY_MAX_PRIVATE; i++) {
		struct netpolicy_addr x = addr("127.0.0.3", (uint16_t)(i + 1));

		netpolicy_own_add_private(o, &x, 1, 1);
	}
	assert_null(netpolicy_own_private(o, &d));
	free(o);
}

/* glibc's address sorting: a UDP connect to port 0, performed where the
 * address is reachable on some port, refused quietly elsewhere. */
static enum netpolicy_named probe_named;

static enum netpolicy_named
named_fixed(void *ctx, const struct netpolicy_query *q)
{
	(void)ctx;
	(void)q;
	return probe_named;
}

static void
test_probe(void **state)
{
	struct policy *p = policy_new();
	struct netpolicy_rules *r;
	struct netpolicy_lookup lk = { .named = named_fixed };
	struct netpolicy_query q = { .op = NETPOLICY_CONNECT,
				     .proto = NETPOLICY_UDP };

	(void)state;
	q.addr = addr("203.0.113.7", 0);
	assert_true(netpolicy_quiet(&q));
	q.op = NETPOLICY_SEND;
	assert_false(netpolicy_quiet(&q));
	q.op = NETPOLICY_CONNECT;
	q.proto = NETPOLICY_TCP;
	assert_false(netpolicy_quiet(&q));
	q.proto = NETPOLICY_UDP;
	q.addr.port = 53;
	assert_false(netpolicy_quiet(&q));
	q.addr.port = 0;

	/* Port rules: an internet address is reachable on a port. */
	p->supervise = true;
	ports_add(&p->connect_tcp, 443, 443);
	r = rules(p, NULL);
	assert_int_equal(netpolicy_decide(r, &q, NULL).refusal, REFUSAL_NONE);
	q.addr = addr("192.168.1.7", 0);
	assert_int_equal(netpolicy_decide(r, &q, NULL).refusal, REFUSAL_LOCAL);
	add(p, "allow-cidr", "192.168.1.0/24:5432");
	netpolicy_rules_free(r);
	r = rules(p, NULL);
	assert_int_equal(netpolicy_decide(r, &q, NULL).refusal, REFUSAL_NONE);
	/* llwrap's resolver: where an allowed name resolved, on any port. */
	netpolicy_rules_use_stub(r);
	q.addr = addr("203.0.113.7", 0);
	probe_named = NETPOLICY_NAMED_PORT;
	assert_int_equal(netpolicy_decide(r, &q, &lk).refusal, REFUSAL_NONE);
	probe_named = NETPOLICY_NAMED_NO;
	assert_string_equal(refusal_name(netpolicy_decide(r, &q, &lk).refusal),
			    "filtered/unnamed");
	netpolicy_rules_free(r);
	/* No port at all: nothing. */
	policy_free(p);
	p = policy_new();
	p->supervise = true;
	r = rules(p, NULL);
	assert_string_equal(refusal_name(netpolicy_decide(r, &q, NULL).refusal),
			    "filtered/net-port");
	netpolicy_rules_free(r);
	policy_free(p);
}

/* Source routing on a socket: IPv4 options and an IPv6 routing header. */
static void
test_source_routed(void **state)
{
	static const struct {
		const char *what;
		uint8_t opt[12];
		size_t len, rthdr_len;
		bool routed;
	} cases[] = {
		{ "no options", { 0 }, 0, 0, false },
		{ "an IPv6 routing header", { 0 }, 0, 24, true },
		{ "NOP, LSRR", { 1, 131, 7, 4, 192, 0, 2, 9 }, 8, 0, true },
		{ "SSRR", { 137, 7, 4, 192, 0, 2, 9, 0 }, 8, 0, true },
		{ "record route (not a route)",
		  { 7, 7, 4, 0, 0, 0, 0, 0 },
		  8,
		  0,
		  false },
		{ "timestamp, then LSRR",
		  { 68, 4, 5, 0, 131, 7, 4, 10, 0, 0, 1, 0 },
		  12,
		  0,
		  true },
		{ "END stops", { 0, 131, 7, 4, 1, 2, 3, 4 }, 8, 0, false },
		{ "NOPs", { 1, 1, 1, 1 }, 4, 0, false },
		{ "a length past the end", { 7, 9, 4, 0 }, 4, 0, true },
		{ "a length of 1", { 7, 1, 0, 0 }, 4, 0, true },
		{ "a type without its length", { 1, 1, 1, 7 }, 4, 0, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		if (netpolicy_source_routed(cases[i].opt, cases[i].len,
					    cases[i].rthdr_len) !=
		    cases[i].routed)
			fail_msg("%s: want %d", cases[i].what, cases[i].routed);
}

static void
test_own(void **state)
{
	struct netpolicy_own *o = xcalloc(1, sizeof(*o));
	struct netpolicy_own_unix u = {
		.cookie = 1, .abstract = true, .len = 3, .name = "abc"
	};
	struct netpolicy_own_unix pu = { .cookie = 2, .dev = 8, .vfs_ino = 99 };
	struct netpolicy_unix_dest abs = { .abstract = true,
					   .name = "abc",
					   .len = 3 };
	struct netpolicy_unix_dest abs2 = { .abstract = true,
					    .name = "abd",
					    .len = 3 };
	struct netpolicy_unix_dest path = { .dev = 8, .ino = 99 };
	struct netpolicy_unix_dest path2 = { .dev = 9, .ino = 99 };
	struct netpolicy_unix now = { 0 };

	(void)state;
	/* IP sockets by cookie, each once, the oldest forgotten first. */
	assert_false(netpolicy_own_has_ip(o, 5));
	netpolicy_own_add_ip(o, 5, false);
	netpolicy_own_add_ip(o, 5, false);
	assert_int_equal(o->n_ip, 1);
	assert_true(netpolicy_own_has_ip(o, 5));
	/* Whether it may share its port: a reuse flag at bind or listen. */
	assert_false(netpolicy_own_ip_shares(o, 5));
	netpolicy_own_add_ip(o, 5, true);
	assert_true(netpolicy_own_ip_shares(o, 5));
	netpolicy_own_add_ip(o, 5, false);
	assert_true(netpolicy_own_ip_shares(o, 5));
	assert_true(netpolicy_own_ip_shares(o, 6)); /* not the sandbox's */
	assert_int_equal(o->n_ip, 1);
	for (uint64_t c = 100; c < 100 + NETPOLICY_MAX_OWN; c++)
		netpolicy_own_add_ip(o, c, false);
	assert_int_equal(o->n_ip, NETPOLICY_MAX_OWN);
	assert_false(netpolicy_own_has_ip(o, 5));
	assert_true(netpolicy_own_has_ip(o, 100 + NETPOLICY_MAX_OWN - 1));

	/* Unix sockets: candidates by what they were bound to. */
	netpolicy_own_add_unix(o, &u);
	netpolicy_own_add_unix(o, &u);
	netpolicy_own_add_unix(o, &pu);
	assert_int_equal(o->n_unix, 2);
	assert_true(netpolicy_own_unix_candidate(&o->unix_[0], &abs));
	assert_false(netpolicy_own_unix_candidate(&o->unix_[0], &abs2));
	assert_false(netpolicy_own_unix_candidate(&o->unix_[0], &path));
	assert_true(netpolicy_own_unix_candidate(&o->unix_[1], &path));
	assert_false(netpolicy_own_unix_candidate(&o->unix_[1], &path2));
	assert_false(netpolicy_own_unix_candidate(&o->unix_[1], &abs));

	/* Still there: the kernel's word on the cookie. */
	now.abstract = true;
	now.name_len = 3;
	memcpy(now.name, "abc", 3);
	assert_true(netpolicy_own_unix_current(&abs, &now));
	assert_false(netpolicy_own_unix_current(&abs2, &now));
	assert_false(netpolicy_own_unix_current(&path, &now));
	now = (struct netpolicy_unix){ .has_vfs = true,
				       .vfs_dev = 8,
				       .vfs_ino = 99 };
	assert_true(netpolicy_own_unix_current(&path, &now));
	assert_false(netpolicy_own_unix_current(&path2, &now));
	now.has_vfs = false; /* unbound since: its path was removed */
	assert_false(netpolicy_own_unix_current(&path, &now));
	free(o);
}

static void
test_names(void **state)
{
	(void)state;
	assert_string_equal(netpolicy_op_name(NETPOLICY_CONNECT), "connect");
	assert_string_equal(netpolicy_op_name(NETPOLICY_SEND), "sendto");
	assert_string_equal(netpolicy_op_name(NETPOLICY_BIND), "bind");
	assert_string_equal(netpolicy_op_name(NETPOLICY_LISTEN), "listen");
	assert_string_equal(netpolicy_proto_name(NETPOLICY_TCP), "tcp");
	assert_string_equal(netpolicy_proto_name(NETPOLICY_UDP), "udp");
	assert_string_equal(netpolicy_proto_name(NETPOLICY_UNIX), "unix");
}

/* Where no name resolves, and the notes that name the fix. */
static void
test_closed(void **state)
{
	static const struct {
		const char *what;
		enum llw_net_mode net;
		bool supervised;
		uint16_t tcp, udp, bind; /* a port each, 0 for none */
		const char *host;	 /* an allow-host entry, or NULL */
		bool closed;
		const char *note; /* the start of the first note, or NULL */
	} t[] = {
		{ "-p default", LLW_NET_FILTERED, false, 0, 0, 0, NULL, true,
		  "no name resolves and no port connects or binds here; "
		  "--allow-host NAME:443 opens a name" },
		{ "bind-tcp alone", LLW_NET_FILTERED, false, 0, 0, 8000, NULL,
		  true,
		  "no name resolves and no port connects here; --allow-host" },
		{ "connect-tcp 443", LLW_NET_FILTERED, false, 443, 0, 0, NULL,
		  true, "connect-tcp opens ports, not names" },
		{ "connect-udp 53", LLW_NET_FILTERED, false, 443, 53, 0, NULL,
		  false, NULL },
		{ "connect-udp 5353", LLW_NET_FILTERED, false, 0, 5353, 0, NULL,
		  true, "no name resolves" },
		{ "supervised", LLW_NET_FILTERED, true, 443, 0, 0, NULL, false,
		  NULL },
		{ "mode = none", LLW_NET_NONE, false, 0, 0, 0, NULL, true,
		  NULL },
		{ "mode = host", LLW_NET_HOST, false, 0, 0, 0, NULL, false,
		  NULL },
		{ "allow-host without ports", LLW_NET_FILTERED, true, 0, 0, 0,
		  "example.org", false,
		  "allow-host example.org (test) reaches no port: an entry "
		  "without ports takes connect-tcp's, and there are none; "
		  "write example.org:443" },
		{ "allow-host with ports", LLW_NET_FILTERED, true, 0, 0, 0,
		  "example.org:443", false, NULL },
		{ "allow-host under connect-tcp", LLW_NET_FILTERED, true, 443,
		  0, 0, "example.org", false, NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct policy *p = policy_new();
		_cleanup_strv_ char **notes = NULL;
		struct plan_conf conf;

		p->net = t[i].net;
		if (t[i].tcp)
			ports_add(&p->connect_tcp, t[i].tcp, t[i].tcp);
		if (t[i].udp)
			ports_add(&p->connect_udp, t[i].udp, t[i].udp);
		if (t[i].bind)
			ports_add(&p->bind_tcp, t[i].bind, t[i].bind);
		if (t[i].host)
			add(p, "allow-host", t[i].host);
		if (netpolicy_names_closed(p, t[i].supervised) != t[i].closed)
			fail_msg("%s: names closed %d, want %d", t[i].what,
				 !t[i].closed, t[i].closed);
		planner_conf(p, t[i].supervised, &conf);
		notes = netpolicy_notes(&conf, true);
		if (t[i].note == NULL && notes != NULL)
			fail_msg("%s: a note: %s", t[i].what, notes[0]);
		if (t[i].note != NULL &&
		    (notes == NULL ||
		     strncmp(notes[0], t[i].note, strlen(t[i].note)) != 0))
			fail_msg("%s: note '%s', want '%s...'", t[i].what,
				 notes ? notes[0] : "(none)", t[i].note);
		/* Not on a terminal: only the notes about a mistake. */
		strv_free(notes);
		notes = netpolicy_notes(&conf, false);
		if (notes != NULL &&
		    strncmp(notes[0], "no name resolves", 16) == 0)
			fail_msg("%s: the closed network noted off a terminal",
				 t[i].what);
		policy_free(p);
	}
	for (const char *const *e = netpolicy_closed_environ; *e; e++)
		assert_non_null(strchr(*e, '='));
}

static void
test_ratelimit(void **state)
{
	struct netpolicy_ratelimit rl;
	unsigned long rep, shown = 0, reported = 0;
	uint64_t t = 1000000000ull;

	(void)state;
	netpolicy_ratelimit_init(&rl, 20, 5, t);
	/* 10,000 attempts within one second: the burst and at most five
	 * more get through. */
	for (int i = 0; i < 10000; i++) {
		if (netpolicy_ratelimit_take(&rl, t + (uint64_t)i * 100000,
					     &rep))
			shown++;
		reported += rep;
	}
	assert_true(shown >= 20 && shown <= 26);
	assert_false(netpolicy_ratelimit_flush(&rl, t + 1000000000ull, false,
					       &rep) &&
		     rep == 0);
	/* The report comes when a token is back, and counts every line
	 * not shown. */
	t += 10ull * 1000000000ull;
	assert_true(netpolicy_ratelimit_take(&rl, t, &rep));
	assert_true(rep > 0);
	reported += rep;
	assert_int_equal(shown + reported, 10000);
	assert_true(netpolicy_ratelimit_take(&rl, t, &rep));
	assert_int_equal(rep, 0);
	/* At exit, whatever is left is reported without a token. */
	rl.tokens = 0;
	rl.suppressed = 7;
	assert_true(netpolicy_ratelimit_flush(&rl, t, true, &rep));
	assert_int_equal(rep, 7);
	assert_false(netpolicy_ratelimit_flush(&rl, t, true, &rep));
}

static void
test_log_line(void **state)
{
	_cleanup_free_ char *prefix = netpolicy_log_prefix(NULL, "opencode");
	_cleanup_free_ char *custom = netpolicy_log_prefix("x-%n-%%", "a");
	_cleanup_free_ char *l1 = NULL, *l2 = NULL;

	(void)state;
	assert_string_equal(prefix, "llwrap-opencode-blocked");
	assert_string_equal(custom, "x-a-%");
	l1 = netpolicy_log_line(prefix, NETPOLICY_CONNECT, NETPOLICY_TCP,
				"203.0.113.7:443", 4242, "curl",
				REFUSAL_NO_CIDR);
	assert_string_equal(l1, "llwrap-opencode-blocked: connect tcp "
				"203.0.113.7:443 pid=4242 comm=curl "
				"rule=filtered/no-cidr");
	/* One attempt is one line, whatever the names hold. */
	l2 = netpolicy_log_line("p", NETPOLICY_SEND, NETPOLICY_UNIX,
				"/tmp/a b\nfake: line", 1, "evil\ncomm",
				REFUSAL_UNIX);
	assert_string_equal(l2, "p: sendto unix /tmp/a?b?fake:?line pid=1 "
				"comm=evil?comm rule=filtered/unix");
}

static void
test_log_path(void **state)
{
	char *env1[] = { "HOME=/home/u", NULL };
	char *env2[] = { "HOME=/home/u", "XDG_STATE_HOME=/s", NULL };
	char *env3[] = { NULL };
	_cleanup_free_ char *a = netpolicy_log_path("opencode", env1);
	_cleanup_free_ char *b = netpolicy_log_path("../x/y", env2);

	(void)state;
	assert_string_equal(a, "/home/u/.local/state/llwrap/opencode.log");
	assert_string_equal(b, "/s/llwrap/_.._x_y.log");
	assert_null(netpolicy_log_path("n", env3));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_cidr),
		cmocka_unit_test(test_cidr_contains),
		cmocka_unit_test(test_sockaddr),
		cmocka_unit_test(test_parse_listen),
		cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_parse_strict),
		cmocka_unit_test(test_parse_network),
		cmocka_unit_test(test_parse_network_typed),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_decide_ports_only),
		cmocka_unit_test(test_local),
		cmocka_unit_test(test_decide_local),
		cmocka_unit_test(test_decide_proxy),
		cmocka_unit_test(test_decide_stub),
		cmocka_unit_test(test_decide_lookup),
		cmocka_unit_test(test_resolvers),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_host_local),
		cmocka_unit_test(test_shared),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_source_routed),
		cmocka_unit_test(test_own),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_closed),
		cmocka_unit_test(test_ratelimit),
		cmocka_unit_test(test_log_line),
		cmocka_unit_test(test_log_path),
	};

	return cmocka_run_group_tests_name("netpolicy", tests, NULL, NULL);
}
