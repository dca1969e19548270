/*
 * Unit tests for src/proxy.c: the proxy's decisions (allow-host names
 * and ports, IP literals only inside allow-cidr, rebinding, SNI against
 * the CONNECT name), its environment, and the /etc/hosts lookup.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "cleanup.h"
#include "proxy.h"
#include "xalloc.h"
#include "strv.h"

/* The fake rules: api.openai.com on 443, *.example.com on 443 and 8443
 * (one label), and the CIDR 10.10.0.0/16 on 443 and 127.0.0.0/8. */
static enum hostrule_verdict
fake_host(void *ctx, const char *name, uint16_t port, const char **origin)
{
	const char *dot = strchr(name, '.');
	bool named = strcmp(name, "api.openai.com") == 0;
	bool wild = dot && dot != name && strcmp(dot, ".example.com") == 0;

	(void)ctx;
	if (!named && !wild)
		return HOSTRULE_UNLISTED;
	*origin = named ? "test.ini:3" : "test.ini:4";
	if (port == 443 || (wild && port == 8443))
		return HOSTRULE_ALLOWED;
	return HOSTRULE_PORT;
}

static const char *
fake_cidr(void *ctx, const struct netpolicy_addr *a)
{
	(void)ctx;
	if (a->family == AF_INET && a->a[0] == 10 && a->a[1] == 10 &&
	    a->port == 443)
		return "test.ini:5";
	if (a->family == AF_INET && a->a[0] == 127)
		return "test.ini:6";
	return NULL;
}

/* This host's own addresses: 198.51.100.1. */
static bool
fake_own(void *ctx, const struct netpolicy_addr *a)
{
	(void)ctx;
	return a->family == AF_INET && a->a[0] == 198 && a->a[1] == 51 &&
	       a->a[2] == 100 && a->a[3] == 1;
}

static const struct proxy_rules rules = { fake_host, fake_cidr, fake_own,
					  NULL };

static void
test_request(void **state)
{
	static const struct {
		const char *host;
		bool is_ip;
		uint16_t port;
		const char *rule, *origin;
	} t[] = {
		{ "api.openai.com", false, 443, NULL, "test.ini:3" },
		{ "api.openai.com", false, 80, "filtered/host-port",
		  "test.ini:3" },
		{ "x.example.com", false, 8443, NULL, "test.ini:4" },
		{ "x.example.com", false, 22, "filtered/host-port",
		  "test.ini:4" },
		{ "a.b.example.com", false, 443, "filtered/host", NULL },
		{ "evil.example", false, 443, "filtered/host", NULL },
		{ "10.10.3.4", true, 443, NULL, "test.ini:5" },
		{ "10.10.3.4", true, 80, "filtered/no-cidr", NULL },
		{ "93.184.216.34", true, 443, "filtered/no-cidr", NULL },
		{ "::ffff:10.10.0.1", true, 443, NULL, "test.ini:5" },
		{ "2001:db8::1", true, 443, "filtered/no-cidr", NULL },
		/* The unspecified address is loopback as a destination. */
		{ "0.0.0.0", true, 80, NULL, "test.ini:6" },
		{ "not-an-ip", true, 443, "filtered/host", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct proxy_verdict v = proxy_decide_request(
			&rules, t[i].host, t[i].is_ip, t[i].port);

		const char *got = refusal_name(v.rule);

		if ((got == NULL) != (t[i].rule == NULL) ||
		    (got && strcmp(got, t[i].rule) != 0))
			fail_msg("%s:%u: %s, not %s", t[i].host, t[i].port,
				 got ? got : "allowed",
				 t[i].rule ? t[i].rule : "allowed");
		if (t[i].origin == NULL)
			assert_null(v.origin);
		else
			assert_string_equal(v.origin, t[i].origin);
	}
}

static void
test_rebind(void **state)
{
	static const struct {
		const char *addr;
		uint16_t port;
		const char *rule;
	} t[] = {
		{ "93.184.216.34", 443, NULL },
		{ "2606:4700::1", 443, NULL },
		{ "127.0.0.1", 443, NULL }, /* the CIDR 127.0.0.0/8 */
		{ "10.10.1.1", 443, NULL },
		{ "10.10.1.1", 80, "filtered/rebind" },
		{ "10.0.0.1", 443, "filtered/rebind" },
		{ "172.16.0.1", 443, "filtered/rebind" },
		{ "192.168.1.1", 443, "filtered/rebind" },
		{ "169.254.169.254", 80, "filtered/rebind" },
		{ "100.64.0.1", 443, "filtered/rebind" },
		{ "0.0.0.0", 443, "filtered/rebind" },
		{ "::1", 443, "filtered/rebind" },
		{ "fd00::1", 443, "filtered/rebind" },
		{ "fe80::1", 443, "filtered/rebind" },
		{ "::ffff:192.168.0.1", 443, "filtered/rebind" },
		{ "198.51.100.1", 443, "filtered/rebind" },
		{ "198.51.100.2", 443, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct netpolicy_addr a;
		struct proxy_verdict v;

		assert_int_equal(value_addr(t[i].addr, &a, NULL), 0);
		a.port = t[i].port;
		v = proxy_decide_address(&rules, &a);
		if ((v.rule == REFUSAL_NONE) != (t[i].rule == NULL))
			fail_msg("%s:%u: %s", t[i].addr, t[i].port,
				 v.rule ? refusal_name(v.rule) : "allowed");
	}
}

static void
test_sni(void **state)
{
	(void)state;
	assert_int_equal(
		proxy_decide_sni("api.openai.com", "api.openai.com").rule,
		REFUSAL_NONE);
	assert_int_equal(
		proxy_decide_sni("api.openai.com", "API.openai.com").rule,
		REFUSAL_NONE);
	assert_int_equal(proxy_decide_sni("api.openai.com", NULL).rule,
			 REFUSAL_NONE);
	assert_int_equal(
		proxy_decide_sni("api.openai.com", "evil.example").rule,
		REFUSAL_SNI);
	assert_int_equal(
		proxy_decide_sni("api.openai.com", "api.openai.com.evil").rule,
		REFUSAL_SNI);
	assert_int_equal(proxy_decide_sni("10.10.0.1", "evil.example").rule,
			 REFUSAL_SNI);
	assert_string_equal(refusal_reason(refusal_parse("filtered/host")),
			    "not in allow-host");
	assert_string_equal(refusal_reason(refusal_parse("filtered/nonsense")),
			    "refused");
}

static void
test_environ(void **state)
{
	_cleanup_strv_ char **env = proxy_environ(40123);

	(void)state;
	assert_true(strv_contains(env, "HTTPS_PROXY=http://127.0.0.1:40123"));
	assert_true(strv_contains(env, "https_proxy=http://127.0.0.1:40123"));
	assert_true(strv_contains(env, "HTTP_PROXY=http://127.0.0.1:40123"));
	assert_true(strv_contains(env, "http_proxy=http://127.0.0.1:40123"));
	assert_true(strv_contains(env, "ALL_PROXY=http://127.0.0.1:40123"));
	assert_true(strv_contains(env, "NO_PROXY=localhost,127.0.0.1,::1"));
	assert_true(strv_contains(env, "no_proxy=localhost,127.0.0.1,::1"));
	assert_true(strv_contains(env, "NODE_USE_ENV_PROXY=1"));
	assert_int_equal(strv_length(env), 9);
}

static void
test_hosts(void **state)
{
	static const char text[] = "127.0.0.1\tlocalhost\n"
				   "# 10.0.0.9 api.example.com\n"
				   "10.0.0.1 other api.Example.com. # comment\n"
				   "::1 ip6-localhost api.example.com\n"
				   "bogus api.example.com\n"
				   "[::2] api.example.com\n"
				   "10.0.0.2 api.example.comx\n"
				   "10.0.0.3   api.example.com";
	struct netpolicy_addr a[4];

	(void)state;
	assert_int_equal(proxy_hosts_lookup(text, "api.example.com", a, 4), 3);
	assert_int_equal(a[0].family, AF_INET);
	assert_int_equal(a[0].a[3], 1);
	assert_int_equal(a[1].family, AF_INET6);
	assert_int_equal(a[1].a[15], 1);
	assert_int_equal(a[2].a[3], 3);
	assert_int_equal(proxy_hosts_lookup(text, "api.example.com", a, 1), 1);
	assert_int_equal(proxy_hosts_lookup(text, "localhost", a, 4), 1);
	assert_int_equal(proxy_hosts_lookup(text, "nothere", a, 4), 0);
	assert_int_equal(proxy_hosts_lookup(NULL, "localhost", a, 4), 0);
}

static void
test_hostrule(void **state)
{
	static const struct {
		const char *in;
		int ret;
		const char *name;
		bool wildcard;
		size_t n_ports;
	} t[] = {
		{ "api.openai.com", 0, "api.openai.com", false, 0 },
		{ "API.OpenAI.com.", 0, "api.openai.com", false, 0 },
		{ "*.githubusercontent.com", 0, "githubusercontent.com", true,
		  0 },
		{ "registry.npmjs.org:443", 0, "registry.npmjs.org", false, 1 },
		{ "github.com:22,443,8000-8100", 0, "github.com", false, 3 },
		{ "api.*.com", -EINVAL, NULL, false, 0 },
		{ "*api.com", -EINVAL, NULL, false, 0 },
		{ "*.", -EINVAL, NULL, false, 0 },
		{ "*", -EINVAL, NULL, false, 0 },
		{ "*.*.com", -EINVAL, NULL, false, 0 },
		{ "a..com", -EINVAL, NULL, false, 0 },
		{ "10.0.0.1", -EINVAL, NULL, false, 0 },
		{ "api.com:", -EINVAL, NULL, false, 0 },
		{ "api.com:0", -EINVAL, NULL, false, 0 },
		{ "api.com:65536", -EINVAL, NULL, false, 0 },
		{ "api.com:443:80", -EINVAL, NULL, false, 0 },
		{ "api.com:80-20", -EINVAL, NULL, false, 0 },
		{ "[::1]:443", -EINVAL, NULL, false, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct hostrule r;
		int ret = value_host(t[i].in, &r, NULL);

		if (ret != t[i].ret)
			fail_msg("'%s': %d, not %d", t[i].in, ret, t[i].ret);
		if (ret != 0)
			continue;
		assert_string_equal(r.name, t[i].name);
		assert_int_equal(r.wildcard, t[i].wildcard);
		assert_int_equal(r.n_ports, t[i].n_ports);
		value_host_clear(&r);
	}
}

static void
test_hostrule_match(void **state)
{
	struct hostrule r[3];
	struct llw_port_range def = { 443, 443, NULL };
	struct llw_ports ports = { &def, 1 };
	const char *origin;

	(void)state;
	assert_int_equal(value_host("api.openai.com", &r[0], NULL), 0);
	assert_int_equal(value_host("*.example.com:8443", &r[1], NULL), 0);
	assert_int_equal(value_host("api.openai.com:22", &r[2], NULL), 0);
	r[0].origin = xstrdup("a:1");
	r[1].origin = xstrdup("a:2");
	r[2].origin = xstrdup("a:3");
	assert_int_equal(
		hostrule_match(r, 3, &ports, "api.openai.com", 443, &origin),
		HOSTRULE_ALLOWED);
	assert_string_equal(origin, "a:1");
	assert_int_equal(
		hostrule_match(r, 3, &ports, "api.openai.com", 22, &origin),
		HOSTRULE_ALLOWED);
	assert_string_equal(origin, "a:3");
	assert_int_equal(
		hostrule_match(r, 3, &ports, "api.openai.com", 80, &origin),
		HOSTRULE_PORT);
	assert_string_equal(origin, "a:1");
	assert_int_equal(
		hostrule_match(r, 3, &ports, "x.example.com", 8443, &origin),
		HOSTRULE_ALLOWED);
	assert_int_equal(
		hostrule_match(r, 3, &ports, "x.example.com", 443, &origin),
		HOSTRULE_PORT);
	assert_int_equal(
		hostrule_match(r, 3, &ports, "example.com", 8443, &origin),
		HOSTRULE_UNLISTED);
	assert_null(origin);
	assert_int_equal(
		hostrule_match(r, 3, &ports, "a.b.example.com", 8443, &origin),
		HOSTRULE_UNLISTED);
	assert_int_equal(
		hostrule_match(r, 3, &ports, "xexample.com", 8443, &origin),
		HOSTRULE_UNLISTED);
	assert_int_equal(
		hostrule_match(r, 3, &ports, "openai.com", 443, &origin),
		HOSTRULE_UNLISTED);
	for (int i = 0; i < 3; i++)
		value_host_clear(&r[i]);
}

/* A query as RFC 1035 lays it out, and answers with A, AAAA, CNAME,
 * compression, NXDOMAIN, truncation and lengths that lie. */
/* What the proxy takes from an answer (the wire: test-dns.c). */
static void
test_dns(void **state)
{
	struct dns_answer a = { .rcode = DNS_RCODE_NOERROR, .n = 2 };
	struct netpolicy_addr out[4];
	size_t n = 99;

	(void)state;
	a.v[0].addr.family = AF_INET;
	a.v[0].addr.a[0] = 198;
	a.v[1].addr.family = AF_INET6;
	a.v[1].addr.a[0] = 0x20;
	assert_int_equal(proxy_dns_addrs(&a, out, 4, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(out[0].a[0], 198);
	assert_int_equal(out[1].family, AF_INET6);
	/* Only as many as asked for. */
	assert_int_equal(proxy_dns_addrs(&a, out, 1, &n), 0);
	assert_int_equal(n, 1);
	/* NXDOMAIN ends the lookup; a failure or a truncated answer sends
	 * it to the next server. */
	a.rcode = DNS_RCODE_NXDOMAIN;
	assert_int_equal(proxy_dns_addrs(&a, out, 4, &n), -ENOENT);
	assert_int_equal(n, 0);
	a.rcode = DNS_RCODE_SERVFAIL;
	assert_int_equal(proxy_dns_addrs(&a, out, 4, &n), -EAGAIN);
	a.rcode = DNS_RCODE_NOERROR;
	a.truncated = true;
	assert_int_equal(proxy_dns_addrs(&a, out, 4, &n), -EAGAIN);
}

static void
test_clients(void **state)
{
	static struct proxy_clients c;
	const struct proxy_client *e;
	static const char a[] = "40001 4242 curl\n40002 43";

	(void)state;
	assert_null(proxy_clients_find(&c, 40001));
	proxy_clients_add(&c, a, sizeof(a) - 1);
	e = proxy_clients_find(&c, 40001);
	assert_non_null(e);
	assert_int_equal(e->pid, 4242);
	assert_string_equal(e->comm, "curl");
	/* The second line is cut between two reads. */
	assert_null(proxy_clients_find(&c, 40002));
	proxy_clients_add(&c, "43 python3\n", 11);
	e = proxy_clients_find(&c, 40002);
	assert_non_null(e);
	assert_int_equal(e->pid, 4343);
	assert_string_equal(e->comm, "python3");
	/* Junk is ignored; a port reused is the newest. */
	proxy_clients_add(&c, "x y z\n0 1 a\n40001 -1 a\n", 23);
	proxy_clients_add(&c, "40001 5000 git\n", 15);
	assert_int_equal(proxy_clients_find(&c, 40001)->pid, 5000);
	/* The oldest are forgotten after PROXY_CLIENTS more. */
	for (int i = 0; i < PROXY_CLIENTS; i++) {
		char line[64];
		int n = snprintf(line, sizeof(line), "%d %d sh\n", 50000 + i,
				 100 + i);

		proxy_clients_add(&c, line, (size_t)n);
	}
	assert_null(proxy_clients_find(&c, 40001));
	assert_int_equal(proxy_clients_find(&c, 50000)->pid, 100);
	/* An over-long line is cut, not overflowed. */
	{
		char big[200];

		memset(big, '7', sizeof(big));
		proxy_clients_add(&c, big, sizeof(big));
		proxy_clients_add(&c, "\n", 1);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_rebind),
		cmocka_unit_test(test_sni),
		cmocka_unit_test(test_environ),
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_hostrule),
		cmocka_unit_test(test_hostrule_match),
		cmocka_unit_test(test_dns),
		cmocka_unit_test(test_clients),
	};

	return cmocka_run_group_tests_name("proxy", tests, NULL, NULL);
}
