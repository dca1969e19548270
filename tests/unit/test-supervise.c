/*
 * Unit tests for the pure parts of src/supervise.c: CIDR parsing and
 * matching (IPv4-mapped IPv6 included), port ranges, the rule decision,
 * DNS resolvers, the rate limiter and the log line.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "cleanup.h"
#include "policy.h"
#include "strv.h"
#include "supervise.h"
#include "xalloc.h"

static struct supervise_addr
addr(const char *s, uint16_t port)
{
	struct supervise_addr a;

	assert_int_equal(supervise_parse_addr(s, &a), 0);
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
		struct supervise_cidr c;
		int r = supervise_parse_cidr(t[i].in, &c);

		if (r != t[i].ok)
			fail_msg("%s: got %d, want %d", t[i].in, r, t[i].ok);
		if (r == 0) {
			assert_int_equal(c.net.family, t[i].family);
			assert_int_equal(c.prefix, t[i].prefix);
			assert_int_equal(c.n_ports, t[i].n_ports);
		}
		free(c.ports);
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
		struct supervise_cidr c;
		struct supervise_addr a = addr(t[i].addr, 0);

		assert_int_equal(supervise_parse_cidr(t[i].cidr, &c), 0);
		if (supervise_cidr_contains(&c, &a) != t[i].in)
			fail_msg("%s in %s: want %d", t[i].addr, t[i].cidr,
				 t[i].in);
		free(c.ports);
	}
}

static void
test_sockaddr(void **state)
{
	struct sockaddr_in in = { .sin_family = AF_INET,
				  .sin_port = htons(443) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6,
				    .sin6_port = htons(80) };
	struct supervise_addr a;
	_cleanup_free_ char *s1 = NULL, *s2 = NULL, *s3 = NULL;

	(void)state;
	inet_pton(AF_INET, "203.0.113.7", &in.sin_addr);
	assert_int_equal(supervise_addr_from_sockaddr(&in, sizeof(in), &a), 0);
	s1 = supervise_addr_format(&a);
	assert_string_equal(s1, "203.0.113.7:443");
	assert_int_equal(supervise_addr_from_sockaddr(&in, 8, &a), -EINVAL);

	inet_pton(AF_INET6, "::ffff:127.0.0.2", &in6.sin6_addr);
	assert_int_equal(supervise_addr_from_sockaddr(&in6, sizeof(in6), &a),
			 0);
	assert_int_equal(a.family, AF_INET);
	s2 = supervise_addr_format(&a);
	assert_string_equal(s2, "127.0.0.2:80");

	inet_pton(AF_INET6, "::1", &in6.sin6_addr);
	/* SIN6_LEN_RFC2133 (24 bytes, no scope id) is accepted. */
	assert_int_equal(supervise_addr_from_sockaddr(&in6, 24, &a), 0);
	s3 = supervise_addr_format(&a);
	assert_string_equal(s3, "[::1]:80");

	in.sin_family = AF_UNIX;
	assert_int_equal(supervise_addr_from_sockaddr(&in, sizeof(in), &a),
			 -EAFNOSUPPORT);
}

static void
test_parse_listen(void **state)
{
	struct supervise_addr a;

	(void)state;
	assert_int_equal(supervise_parse_listen("127.0.0.1:8787", &a), 0);
	assert_int_equal(a.port, 8787);
	assert_int_equal(supervise_parse_listen("[::1]:8080", &a), 0);
	assert_int_equal(a.family, AF_INET6);
	assert_int_equal(supervise_parse_listen("::1:8080", &a), -EINVAL);
	assert_int_equal(supervise_parse_listen("127.0.0.1", &a), -EINVAL);
	assert_int_equal(supervise_parse_listen("127.0.0.1:1-2", &a), -EINVAL);
	assert_int_equal(supervise_parse_listen("[10.0.0.1]:80", &a), -EINVAL);
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

static void
test_decide(void **state)
{
	struct policy *p = policy_new();
	struct supervise_rules *r = NULL;
	char *dns[] = { "127.0.0.53", NULL };
	char *cause = NULL;
	static const struct {
		enum supervise_op op;
		enum supervise_proto proto;
		const char *addr;
		uint16_t port;
		const char *rule; /* NULL: allowed */
	} t[] = {
		/* allow-cidr 127.0.0.1/32 (ports from connect-tcp 443) */
		{ SUPERVISE_CONNECT, SUPERVISE_TCP, "127.0.0.1", 443, NULL },
		{ SUPERVISE_CONNECT, SUPERVISE_TCP, "127.0.0.1", 444,
		  "filtered/port" },
		{ SUPERVISE_CONNECT, SUPERVISE_TCP, "127.0.0.2", 443,
		  "filtered/local" },
		/* Entries add reach: the internet on connect-tcp's ports */
		{ SUPERVISE_CONNECT, SUPERVISE_TCP, "203.0.113.7", 443, NULL },
		{ SUPERVISE_CONNECT, SUPERVISE_TCP, "203.0.113.7", 80,
		  "filtered/no-cidr" },
		{ SUPERVISE_CONNECT, SUPERVISE_TCP, "192.168.1.1", 443,
		  "filtered/local" },
		{ SUPERVISE_CONNECT, SUPERVISE_TCP, "::ffff:127.0.0.1", 443,
		  NULL },
		/* 10.10.0.0/16:8000-8100: its own ports, TCP and UDP */
		{ SUPERVISE_CONNECT, SUPERVISE_TCP, "10.10.1.1", 8050, NULL },
		{ SUPERVISE_SEND, SUPERVISE_UDP, "10.10.1.1", 8100, NULL },
		{ SUPERVISE_CONNECT, SUPERVISE_TCP, "10.10.1.1", 443,
		  "filtered/port" },
		/* ::1/128 without ports: connect-udp has none */
		{ SUPERVISE_SEND, SUPERVISE_UDP, "::1", 443, "filtered/port" },
		{ SUPERVISE_CONNECT, SUPERVISE_TCP, "::1", 443, NULL },
		/* DNS only to the resolver, even inside an allowed CIDR */
		{ SUPERVISE_SEND, SUPERVISE_UDP, "127.0.0.53", 53, NULL },
		{ SUPERVISE_CONNECT, SUPERVISE_TCP, "127.0.0.53", 53, NULL },
		{ SUPERVISE_SEND, SUPERVISE_UDP, "10.10.0.1", 53,
		  "filtered/dns" },
		{ SUPERVISE_SEND, SUPERVISE_UDP, "8.8.8.8", 53,
		  "filtered/dns" },
		/* listen 127.0.0.1:8787; bind-tcp 0 */
		{ SUPERVISE_BIND, SUPERVISE_TCP, "127.0.0.1", 8787, NULL },
		{ SUPERVISE_BIND, SUPERVISE_TCP, "127.0.0.1", 8788,
		  "filtered/listen" },
		{ SUPERVISE_BIND, SUPERVISE_TCP, "0.0.0.0", 8787,
		  "filtered/listen" },
		{ SUPERVISE_BIND, SUPERVISE_TCP, "127.0.0.1", 0, NULL },
		{ SUPERVISE_BIND, SUPERVISE_TCP, "::1", 0, NULL },
		{ SUPERVISE_BIND, SUPERVISE_TCP, "0.0.0.0", 0,
		  "filtered/listen" },
		{ SUPERVISE_LISTEN, SUPERVISE_TCP, "0.0.0.0", 0,
		  "filtered/listen" },
		/* no bind-udp 0: no ephemeral UDP bind */
		{ SUPERVISE_BIND, SUPERVISE_UDP, "127.0.0.1", 0,
		  "filtered/listen" },
	};

	(void)state;
	ports_add(&p->connect_tcp, 443, 443);
	ports_add(&p->bind_tcp, 0, 0);
	items_add(&p->allow_cidr, "127.0.0.1/32");
	items_add(&p->allow_cidr, "10.10.0.0/16:8000-8100");
	items_add(&p->allow_cidr, "::1/128");
	items_add(&p->listen, "127.0.0.1:8787");
	assert_int_equal(supervise_rules_new(p, dns, &r, &cause), 0);
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct supervise_addr a = addr(t[i].addr, t[i].port);
		const char *got = supervise_decide(r, t[i].op, t[i].proto, &a);

		if ((got == NULL) != (t[i].rule == NULL) ||
		    (got && strcmp(got, t[i].rule) != 0))
			fail_msg("case %zu (%s:%u): got %s, want %s", i,
				 t[i].addr, t[i].port, got ? got : "allow",
				 t[i].rule ? t[i].rule : "allow");
	}
	supervise_rules_free(r);
	policy_free(p);
}

/* Without allow-cidr or listen the port lists alone decide, for any
 * address; net host allows every port. */
static void
test_decide_ports_only(void **state)
{
	struct policy *p = policy_new();
	struct supervise_rules *r = NULL;
	char *cause = NULL;
	struct supervise_addr a = addr("203.0.113.7", 443);

	(void)state;
	ports_add(&p->connect_tcp, 443, 443);
	items_add(&p->unix_paths, "/run/postgresql/.s.PGSQL.5432");
	assert_int_equal(supervise_rules_new(p, NULL, &r, &cause), 0);
	assert_null(supervise_decide(r, SUPERVISE_CONNECT, SUPERVISE_TCP, &a));
	a.port = 80;
	assert_string_equal(
		supervise_decide(r, SUPERVISE_CONNECT, SUPERVISE_TCP, &a),
		"filtered/port");
	/* A bind off loopback: the address refuses before the port. */
	assert_string_equal(
		supervise_decide(r, SUPERVISE_BIND, SUPERVISE_TCP, &a),
		"filtered/listen");
	a = addr("127.0.0.1", 80);
	assert_string_equal(
		supervise_decide(r, SUPERVISE_BIND, SUPERVISE_TCP, &a),
		"filtered/bind-port");
	a = addr("203.0.113.7", 80);
	supervise_rules_free(r);
	p->net = LLW_NET_HOST;
	assert_int_equal(supervise_rules_new(p, NULL, &r, &cause), 0);
	assert_null(supervise_decide(r, SUPERVISE_CONNECT, SUPERVISE_TCP, &a));
	/* No resolver: no DNS, whatever the mode. */
	a.port = 53;
	assert_string_equal(
		supervise_decide(r, SUPERVISE_SEND, SUPERVISE_UDP, &a),
		"filtered/dns");
	supervise_rules_free(r);
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
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct supervise_addr a = addr(t[i].addr, 80);

		if (supervise_addr_local(&a) != t[i].local)
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
	struct supervise_rules *r = NULL;
	char *cause = NULL;
	char *const dns[] = { "127.0.0.53", NULL };
	struct supervise_addr a, px = addr("127.0.0.1", 40123);

	(void)state;
	items_add(&p->allow_host, "api.openai.com");
	ports_add(&p->connect_tcp, 443, 443);
	items_add(&p->allow_cidr, "10.1.0.0/16:8443");
	assert_true(supervise_needed(p));
	assert_int_equal(supervise_rules_new(p, dns, &r, &cause), 0);

	/* Before the proxy listens, its port is nothing special. */
	assert_string_equal(
		supervise_decide(r, SUPERVISE_CONNECT, SUPERVISE_TCP, &px),
		"filtered/local");
	supervise_rules_set_proxy(r, &px);
	assert_null(supervise_decide(r, SUPERVISE_CONNECT, SUPERVISE_TCP, &px));
	a = addr("127.0.0.1", 40124);
	assert_string_equal(
		supervise_decide(r, SUPERVISE_CONNECT, SUPERVISE_TCP, &a),
		"filtered/local");
	a = addr("127.0.0.1", 40123);
	assert_string_equal(
		supervise_decide(r, SUPERVISE_SEND, SUPERVISE_UDP, &a),
		"filtered/local");
	/* DNS, even to the resolver. */
	a = addr("127.0.0.53", 53);
	assert_string_equal(
		supervise_decide(r, SUPERVISE_SEND, SUPERVISE_UDP, &a),
		"filtered/proxy");
	assert_string_equal(
		supervise_decide(r, SUPERVISE_CONNECT, SUPERVISE_TCP, &a),
		"filtered/proxy");
	/* The port rule no longer reaches the internet... */
	a = addr("203.0.113.7", 443);
	assert_string_equal(
		supervise_decide(r, SUPERVISE_CONNECT, SUPERVISE_TCP, &a),
		"filtered/proxy");
	a = addr("203.0.113.7", 443);
	assert_string_equal(
		supervise_decide(r, SUPERVISE_SEND, SUPERVISE_UDP, &a),
		"filtered/proxy");
	/* ... allow-cidr does. */
	a = addr("10.1.2.3", 8443);
	assert_null(supervise_decide(r, SUPERVISE_CONNECT, SUPERVISE_TCP, &a));
	assert_string_equal(supervise_cidr_allows(r, &a), "test");
	a = addr("10.1.2.3", 443);
	assert_null(supervise_cidr_allows(r, &a));
	a = addr("10.2.2.3", 8443);
	assert_null(supervise_cidr_allows(r, &a));
	supervise_rules_free(r);

	/* In mode host the proxy is not used. */
	p->net = LLW_NET_HOST;
	assert_int_equal(supervise_rules_new(p, dns, &r, &cause), 0);
	a = addr("203.0.113.7", 443);
	assert_null(supervise_decide(r, SUPERVISE_CONNECT, SUPERVISE_TCP, &a));
	supervise_rules_free(r);
	policy_free(p);
}

/* supervise = yes with port rules only: the internet on those ports,
 * local destinations never; binds on loopback; the unspecified address
 * is loopback as a destination and becomes loopback as a bind. */
static void
test_decide_local(void **state)
{
	struct policy *p = policy_new();
	struct supervise_rules *r = NULL;
	char *cause = NULL;
	char *const dns[] = { "127.0.0.53", NULL };
	struct supervise_addr a;

	(void)state;
	p->supervise = true;
	ports_add(&p->connect_tcp, 443, 443);
	ports_add(&p->bind_tcp, 0, 0);
	ports_add(&p->bind_tcp, 1024, 65535);
	assert_int_equal(supervise_rules_new(p, dns, &r, &cause), 0);

	a = addr("203.0.113.7", 443);
	assert_null(supervise_decide(r, SUPERVISE_CONNECT, SUPERVISE_TCP, &a));
	a = addr("127.0.0.1", 443);
	assert_string_equal(
		supervise_decide(r, SUPERVISE_CONNECT, SUPERVISE_TCP, &a),
		"filtered/local");
	a = addr("192.168.1.1", 443);
	assert_string_equal(
		supervise_decide(r, SUPERVISE_CONNECT, SUPERVISE_TCP, &a),
		"filtered/local");
	/* The resolver, on loopback, over UDP and TCP. */
	a = addr("127.0.0.53", 53);
	assert_null(supervise_decide(r, SUPERVISE_SEND, SUPERVISE_UDP, &a));
	assert_null(supervise_decide(r, SUPERVISE_CONNECT, SUPERVISE_TCP, &a));

	a = addr("0.0.0.0", 443);
	supervise_addr_destination(&a);
	assert_int_equal(a.family, AF_INET);
	assert_int_equal(a.a[0], 127);
	assert_int_equal(a.a[3], 1);
	a = addr("::", 8080);
	supervise_addr_destination(&a);
	assert_int_equal(a.family, AF_INET6);
	assert_int_equal(a.a[15], 1);
	assert_int_equal(a.port, 8080);

	/* Binds: loopback only; the wildcard becomes loopback. */
	a = addr("0.0.0.0", 5173);
	assert_true(supervise_bind_address(r, &a));
	assert_int_equal(a.a[0], 127);
	assert_null(supervise_decide(r, SUPERVISE_BIND, SUPERVISE_TCP, &a));
	a = addr("127.0.0.1", 5173);
	assert_false(supervise_bind_address(r, &a));
	assert_null(supervise_decide(r, SUPERVISE_BIND, SUPERVISE_TCP, &a));
	a = addr("192.168.1.5", 5173);
	assert_false(supervise_bind_address(r, &a));
	assert_string_equal(
		supervise_decide(r, SUPERVISE_BIND, SUPERVISE_TCP, &a),
		"filtered/listen");
	a = addr("127.0.0.1", 80);
	assert_string_equal(
		supervise_decide(r, SUPERVISE_BIND, SUPERVISE_TCP, &a),
		"filtered/bind-port");
	supervise_rules_free(r);

	/* A listen entry on the wildcard is asked for: kept. */
	items_add(&p->listen, "0.0.0.0:4096");
	assert_int_equal(supervise_rules_new(p, dns, &r, &cause), 0);
	a = addr("0.0.0.0", 4096);
	assert_false(supervise_bind_address(r, &a));
	assert_null(supervise_decide(r, SUPERVISE_BIND, SUPERVISE_TCP, &a));
	supervise_rules_free(r);
	/* net = host: nothing changes. */
	p->net = LLW_NET_HOST;
	assert_int_equal(supervise_rules_new(p, dns, &r, &cause), 0);
	a = addr("0.0.0.0", 5173);
	assert_false(supervise_bind_address(r, &a));
	a = addr("127.0.0.1", 443);
	assert_null(supervise_decide(r, SUPERVISE_CONNECT, SUPERVISE_TCP, &a));
	supervise_rules_free(r);
	policy_free(p);
}

static void
test_rules_bad(void **state)
{
	struct policy *p = policy_new();
	struct supervise_rules *r = NULL;
	char *cause = NULL;

	(void)state;
	items_add(&p->allow_cidr, "10.0.0.0/40");
	assert_int_equal(supervise_rules_new(p, NULL, &r, &cause), -EINVAL);
	assert_non_null(strstr(cause, "test: bad allow-cidr '10.0.0.0/40'"));
	free(cause);
	policy_free(p);
}

static void
test_resolvers(void **state)
{
	struct policy *p = policy_new();
	_cleanup_strv_ char **v = NULL, **w = NULL;
	const char *conf = "# comment\nsearch example.com\n"
			   "nameserver 127.0.0.53\n"
			   "nameserver\t::1 # trailing\n"
			   "nameserver fe80::1%eth0\n"
			   "nameserver not-an-address\n"
			   "nameserver 127.0.0.53\n";

	(void)state;
	v = supervise_resolvers(p, conf);
	assert_int_equal(strv_length(v), 3);
	assert_string_equal(v[0], "127.0.0.53");
	assert_string_equal(v[1], "::1");
	assert_string_equal(v[2], "fe80::1");
	items_add(&p->dns, "192.0.2.53");
	w = supervise_resolvers(p, conf);
	assert_int_equal(strv_length(w), 1);
	assert_string_equal(w[0], "192.0.2.53");
	policy_free(p);
}

static void
test_ratelimit(void **state)
{
	struct supervise_ratelimit rl;
	unsigned long rep, shown = 0, reported = 0;
	uint64_t t = 1000000000ull;

	(void)state;
	supervise_ratelimit_init(&rl, 20, 5, t);
	/* 10,000 attempts within one second: the burst and at most five
	 * more get through. */
	for (int i = 0; i < 10000; i++) {
		if (supervise_ratelimit_take(&rl, t + (uint64_t)i * 100000,
					     &rep))
			shown++;
		reported += rep;
	}
	assert_true(shown >= 20 && shown <= 26);
	assert_false(supervise_ratelimit_flush(&rl, t + 1000000000ull, false,
					       &rep) &&
		     rep == 0);
	/* The report comes when a token is back, and counts every line
	 * not shown. */
	t += 10ull * 1000000000ull;
	assert_true(supervise_ratelimit_take(&rl, t, &rep));
	assert_true(rep > 0);
	reported += rep;
	assert_int_equal(shown + reported, 10000);
	assert_true(supervise_ratelimit_take(&rl, t, &rep));
	assert_int_equal(rep, 0);
	/* At exit, whatever is left is reported without a token. */
	rl.tokens = 0;
	rl.suppressed = 7;
	assert_true(supervise_ratelimit_flush(&rl, t, true, &rep));
	assert_int_equal(rep, 7);
	assert_false(supervise_ratelimit_flush(&rl, t, true, &rep));
}

static void
test_log_line(void **state)
{
	_cleanup_free_ char *prefix = supervise_log_prefix(NULL, "opencode");
	_cleanup_free_ char *custom = supervise_log_prefix("x-%n-%%", "a");
	_cleanup_free_ char *l1 = NULL, *l2 = NULL;

	(void)state;
	assert_string_equal(prefix, "llwrap-opencode-blocked");
	assert_string_equal(custom, "x-a-%");
	l1 = supervise_log_line(prefix, SUPERVISE_CONNECT, SUPERVISE_TCP,
				"203.0.113.7:443", 4242, "curl",
				"filtered/no-cidr");
	assert_string_equal(l1, "llwrap-opencode-blocked: connect tcp "
				"203.0.113.7:443 pid=4242 comm=curl "
				"rule=filtered/no-cidr");
	/* One attempt is one line, whatever the names hold. */
	l2 = supervise_log_line("p", SUPERVISE_SEND, SUPERVISE_UNIX,
				"/tmp/a b\nfake: line", 1, "evil\ncomm",
				"filtered/unix");
	assert_string_equal(l2, "p: sendto unix /tmp/a?b?fake:?line pid=1 "
				"comm=evil?comm rule=filtered/unix");
}

static void
test_log_path(void **state)
{
	char *env1[] = { "HOME=/home/u", NULL };
	char *env2[] = { "HOME=/home/u", "XDG_STATE_HOME=/s", NULL };
	char *env3[] = { NULL };
	_cleanup_free_ char *a = supervise_log_path("opencode", env1);
	_cleanup_free_ char *b = supervise_log_path("../x/y", env2);

	(void)state;
	assert_string_equal(a, "/home/u/.local/state/llwrap/opencode.log");
	assert_string_equal(b, "/s/llwrap/_.._x_y.log");
	assert_null(supervise_log_path("n", env3));
}

/* Yama: 0 and 1 let the supervisor in; 2, 3 and unreadable text do not. */
static void
test_yama(void **state)
{
	static const struct {
		const char *text;
		const char *want; /* substring of the cause, NULL: allowed */
	} cases[] = {
		{ "0\n", NULL },
		{ "1\n", NULL },
		{ "1", NULL },
		{ "2\n", "ptrace_scope is 2, which keeps the supervisor" },
		{ "3\n", "ptrace_scope is 3" },
		{ "", "reads '', not a scope" },
		{ "x\n", "reads 'x', not a scope llwrap knows" },
		{ "-1\n", "not a scope" },
		{ "1x\n", "not a scope" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *cause =
			supervise_yama_cause(cases[i].text);

		if (cases[i].want == NULL) {
			if (cause != NULL)
				fail_msg("'%s': %s", cases[i].text, cause);
			continue;
		}
		if (cause == NULL || strstr(cause, cases[i].want) == NULL)
			fail_msg("'%s': got %s, want ...%s...", cases[i].text,
				 cause ? cause : "(null)", cases[i].want);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_cidr),
		cmocka_unit_test(test_cidr_contains),
		cmocka_unit_test(test_sockaddr),
		cmocka_unit_test(test_parse_listen),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_decide_ports_only),
		cmocka_unit_test(test_local),
		cmocka_unit_test(test_decide_local),
		cmocka_unit_test(test_decide_proxy),
		cmocka_unit_test(test_rules_bad),
		cmocka_unit_test(test_resolvers),
		cmocka_unit_test(test_ratelimit),
		cmocka_unit_test(test_log_line),
		cmocka_unit_test(test_log_path),
		cmocka_unit_test(test_yama),
	};

	return cmocka_run_group_tests_name("supervise", tests, NULL, NULL);
}
