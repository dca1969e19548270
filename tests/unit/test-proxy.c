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
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "cleanup.h"
#include "proxy.h"
#include "strv.h"

/* The fake rules: api.openai.com on 443, *.example.com on 443 and 8443
 * (one label), and the CIDR 10.10.0.0/16 on 443 and 127.0.0.0/8. */
static enum proxy_host
fake_host(void *ctx, const char *name, uint16_t port, const char **origin)
{
	const char *dot = strchr(name, '.');
	bool named = strcmp(name, "api.openai.com") == 0;
	bool wild = dot && dot != name && strcmp(dot, ".example.com") == 0;

	(void)ctx;
	if (!named && !wild)
		return PROXY_HOST_UNLISTED;
	*origin = named ? "test.ini:3" : "test.ini:4";
	if (port == 443 || (wild && port == 8443))
		return PROXY_HOST_ALLOWED;
	return PROXY_HOST_PORT;
}

static const char *
fake_cidr(void *ctx, const struct supervise_addr *a)
{
	(void)ctx;
	if (a->family == AF_INET && a->a[0] == 10 && a->a[1] == 10 &&
	    a->port == 443)
		return "test.ini:5";
	if (a->family == AF_INET && a->a[0] == 127)
		return "test.ini:6";
	return NULL;
}

static const struct proxy_rules rules = { fake_host, fake_cidr, NULL };

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

		if ((v.rule == NULL) != (t[i].rule == NULL) ||
		    (v.rule && strcmp(v.rule, t[i].rule) != 0))
			fail_msg("%s:%u: %s, not %s", t[i].host, t[i].port,
				 v.rule ? v.rule : "allowed",
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
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct supervise_addr a;
		struct proxy_verdict v;

		assert_int_equal(supervise_parse_addr(t[i].addr, &a), 0);
		a.port = t[i].port;
		v = proxy_decide_address(&rules, &a);
		if ((v.rule == NULL) != (t[i].rule == NULL))
			fail_msg("%s:%u: %s", t[i].addr, t[i].port,
				 v.rule ? v.rule : "allowed");
	}
}

static void
test_sni(void **state)
{
	(void)state;
	assert_null(proxy_decide_sni("api.openai.com", "api.openai.com").rule);
	assert_null(proxy_decide_sni("api.openai.com", "API.openai.com").rule);
	assert_null(proxy_decide_sni("api.openai.com", NULL).rule);
	assert_string_equal(
		proxy_decide_sni("api.openai.com", "evil.example").rule,
		"filtered/sni");
	assert_string_equal(
		proxy_decide_sni("api.openai.com", "api.openai.com.evil").rule,
		"filtered/sni");
	assert_string_equal(proxy_decide_sni("10.10.0.1", "evil.example").rule,
			    "filtered/sni");
	assert_string_equal(proxy_rule_reason("filtered/host"),
			    "not in allow-host");
	assert_string_equal(proxy_rule_reason("filtered/nonsense"), "refused");
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
	struct supervise_addr a[4];

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request), cmocka_unit_test(test_rebind),
		cmocka_unit_test(test_sni),	cmocka_unit_test(test_environ),
		cmocka_unit_test(test_hosts),
	};

	return cmocka_run_group_tests_name("proxy", tests, NULL, NULL);
}
