/*
 * Unit tests for src/value.c: every grammar's accepts and rejects, the
 * typed value each accept gives, and the cause each reject says.
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
#include "value.h"
#include "xalloc.h"

/* A reject: -EINVAL and the cause the user sees. */
static void
expect_cause(int r, char **causep, const char *in, const char *want)
{
	char *cause = *causep;

	if (r != -EINVAL || cause == NULL || strcmp(cause, want) != 0)
		fail_msg("'%s': r=%d\n got: %s\nwant: %s", in, r,
			 cause ? cause : "(null)", want);
	free(cause);
	*causep = NULL;
}

static void
test_ports(void **state)
{
	static const struct {
		const char *in;
		int lo, hi; /* -1: rejected */
	} t[] = {
		{ "0", 0, 0 },
		{ "443", 443, 443 },
		{ "8000-8100", 8000, 8100 },
		{ "65535", 65535, 65535 },
		{ "65536", -1, -1 },
		{ "80-79", -1, -1 },
		{ "-1", -1, -1 },
		{ "80-", -1, -1 },
		{ "", -1, -1 },
		{ "8o", -1, -1 },
		{ " 80", -1, -1 },
		{ "80 ", -1, -1 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		uint16_t lo, hi;
		char *cause = NULL;
		int r = value_port_range(t[i].in, &lo, &hi, &cause);

		if (t[i].lo < 0) {
			_cleanup_free_ char *want = xasprintf(
				"bad port or range '%s'; use numbers 0-65535 "
				"and ranges LOW-HIGH with LOW <= HIGH",
				t[i].in);

			expect_cause(r, &cause, t[i].in, want);
			continue;
		}
		assert_int_equal(r, 0);
		assert_int_equal(lo, t[i].lo);
		assert_int_equal(hi, t[i].hi);
	}
}

static void
test_port_list(void **state)
{
	static const struct {
		const char *in;
		size_t n; /* 0: rejected */
	} t[] = {
		{ "443", 1 },  { "443,80", 2 }, { "1-2,3-4,5", 3 },
		{ ",443", 0 }, { "443,", 0 },	{ "443,,80", 0 },
		{ "", 0 },     { "443;80", 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		_cleanup_free_ struct llw_port_range *v = NULL;
		size_t n = 99;
		int r = value_ports(t[i].in, &v, &n, NULL);

		assert_int_equal(r, t[i].n ? 0 : -EINVAL);
		assert_int_equal(n, t[i].n);
	}
}

static void
test_addresses(void **state)
{
	static const struct {
		int (*parse)(const char *, struct netpolicy_addr *, char **);
		const char *in;
		int family; /* 0: rejected */
		uint16_t port;
	} t[] = {
		{ value_ip, "192.0.2.1", AF_INET, 0 },
		{ value_ip, "::1", AF_INET6, 0 },
		{ value_ip, "::ffff:10.0.0.1", AF_INET, 0 },
		{ value_ip, "[::1]", 0, 0 },
		{ value_ip, "192.0.2.1 ", 0, 0 },
		{ value_ip, "example.com", 0, 0 },
		{ value_addr, "[::1]", AF_INET6, 0 },
		{ value_addr, "[10.0.0.1]", 0, 0 },
		{ value_addr, "10.0.0.1", AF_INET, 0 },
		{ value_listen, "127.0.0.1:8787", AF_INET, 8787 },
		{ value_listen, "[::1]:8080", AF_INET6, 8080 },
		{ value_listen, "127.0.0.1:080", AF_INET, 80 },
		{ value_listen, "::1:8080", 0, 0 },
		{ value_listen, "127.0.0.1", 0, 0 },
		{ value_listen, "127.0.0.1:1-2", 0, 0 },
		{ value_listen, "[10.0.0.1]:80", 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct netpolicy_addr a;
		int r = t[i].parse(t[i].in, &a, NULL);

		if (t[i].family == 0) {
			if (r != -EINVAL)
				fail_msg("'%s' accepted", t[i].in);
			continue;
		}
		if (r != 0)
			fail_msg("'%s' rejected", t[i].in);
		assert_int_equal(a.family, t[i].family);
		assert_int_equal(a.port, t[i].port);
	}
}

static void
test_address_causes(void **state)
{
	struct netpolicy_addr a;
	char *cause = NULL;

	(void)state;
	expect_cause(value_ip("x", &a, &cause), &cause, "x",
		     "bad IP address 'x'");
	expect_cause(value_listen("x", &a, &cause), &cause, "x",
		     "bad address 'x'; use ADDR:PORT such as 127.0.0.1:8080 "
		     "or [::1]:8080");
}

/* A CIDR and a host read back to themselves through their formatters,
 * in the canonical form (an IPv4-mapped prefix becomes IPv4). */
static void
test_cidr_host(void **state)
{
	static const struct {
		const char *in, *out; /* out NULL: rejected */
	} cidrs[] = {
		{ "10.0.0.0/8:443,8000-8100", "10.0.0.0/8:443,8000-8100" },
		{ "::1/128:8080", "::1/128:8080" },
		{ "[::1]:8080", "::1/128:8080" },
		{ "192.0.2.7", "192.0.2.7/32" },
		{ "[::ffff:127.0.0.1]:80", "127.0.0.1/32:80" },
		{ "10.0.0.0/33", NULL },
		{ "10.0.0.0/8:", NULL },
		{ "10.0.0.0/8x", NULL },
		{ "[10.0.0.1]", NULL },
	}, hosts[] = {
		{ "api.openai.com", "api.openai.com" },
		{ "*.Example.COM:443,8443", "*.example.com:443,8443" },
		{ "example.com.", "example.com" },
		{ "a.*.com", NULL },
		{ "*", NULL },
		{ "example.com:0", NULL },
		{ "example.com:", NULL },
		{ "exa mple.com", NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cidrs); i++) {
		struct netpolicy_cidr c;
		char *cause = NULL;
		int r = value_cidr(cidrs[i].in, &c, &cause);
		_cleanup_free_ char *s = NULL;

		if (cidrs[i].out == NULL) {
			_cleanup_free_ char *want = xasprintf(
				"bad CIDR '%s'; use ADDR[/N][:PORTS] such as "
				"10.0.0.0/8:443 or ::1/128:8080",
				cidrs[i].in);

			expect_cause(r, &cause, cidrs[i].in, want);
			continue;
		}
		assert_int_equal(r, 0);
		s = value_cidr_format(&c);
		assert_string_equal(s, cidrs[i].out);
		value_cidr_clear(&c);
	}
	for (size_t i = 0; i < ARRAY_SIZE(hosts); i++) {
		struct hostrule h;
		char *cause = NULL;
		int r = value_host(hosts[i].in, &h, &cause);
		_cleanup_free_ char *s = NULL;

		if (hosts[i].out == NULL) {
			_cleanup_free_ char *want = xasprintf(
				"bad host '%s'; use a NAME or *.NAME ('*' as "
				"the whole first label), with optional :PORTS "
				"such as registry.npmjs.org:443",
				hosts[i].in);

			expect_cause(r, &cause, hosts[i].in, want);
			continue;
		}
		assert_int_equal(r, 0);
		s = value_host_format(&h);
		assert_string_equal(s, hosts[i].out);
		value_host_clear(&h);
	}
}

static void
test_numbers(void **state)
{
	static const struct {
		char kind; /* s size, b bytes, c count, d duration */
		const char *in;
		uint64_t n; /* bytes, count or seconds; 0: rejected */
		unsigned percent;
	} t[] = {
		{ 's', "512M", 512ULL << 20, 0 },
		{ 's', "10%", 0, 10 },
		{ 's', "100%", 0, 100 },
		{ 's', "0%", 0, 0 },
		{ 's', "101%", 0, 0 },
		{ 's', "0", 0, 0 },
		{ 's', "1T", 0, 0 },
		{ 'b', "8G", 8ULL << 30, 0 },
		{ 'b', "8g", 8ULL << 30, 0 },
		{ 'b', "1k", 1024, 0 },
		{ 'b', "4096", 4096, 0 },
		{ 'b', "10%", 0, 0 },
		{ 'b', "99999999999999999999", 0, 0 },
		{ 'b', "18446744073709551615G", 0, 0 },
		{ 'c', "1", 1, 0 },
		{ 'c', "4096", 4096, 0 },
		{ 'c', "0", 0, 0 },
		{ 'c', "01", 0, 0 },
		{ 'c', "-1", 0, 0 },
		{ 'c', "1k", 0, 0 },
		{ 'c', "", 0, 0 },
		{ 'd', "90", 90, 0 },
		{ 'd', "90s", 90, 0 },
		{ 'd', "30m", 1800, 0 },
		{ 'd', "2h", 7200, 0 },
		{ 'd', "1d", 86400, 0 },
		{ 'd', "0", 0, 0 },
		{ 'd', "m", 0, 0 },
		{ 'd', "1w", 0, 0 },
		{ 'd', "1.5h", 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		uint64_t n = 7;
		unsigned percent = 7;
		bool ok = t[i].n != 0 || t[i].percent != 0;
		int r;

		switch (t[i].kind) {
		case 's':
			r = value_size(t[i].in, &n, &percent, NULL);
			break;
		case 'b':
			r = value_bytes(t[i].in, &n, NULL);
			percent = 0;
			break;
		case 'c':
			r = value_count(t[i].in, &n, NULL);
			percent = 0;
			break;
		default:
			r = value_duration(t[i].in, &n, NULL);
			percent = 0;
			break;
		}
		if (r != (ok ? 0 : -EINVAL))
			fail_msg("%c '%s': r=%d", t[i].kind, t[i].in, r);
		if (ok) {
			assert_int_equal(n, t[i].n);
			assert_int_equal(percent, t[i].percent);
		}
	}
}

static void
test_number_causes(void **state)
{
	uint64_t n;
	unsigned pc;
	char *cause = NULL;

	(void)state;
	expect_cause(value_size("x", &n, &pc, &cause), &cause, "x",
		     "bad size 'x'; use bytes with an optional K, M or G "
		     "(512M), or a percentage of memory from 1% to 100% (10%)");
	expect_cause(value_bytes("x", &n, &cause), &cause, "x",
		     "bad size 'x'; use bytes with an optional K, M or G (8G)");
	expect_cause(value_count("x", &n, &cause), &cause, "x",
		     "bad number 'x'; use a positive decimal number");
	expect_cause(value_duration("x", &n, &cause), &cause, "x",
		     "bad duration 'x'; use seconds with an optional s, m, h "
		     "or d (90, 30m)");
}

static void
test_choices(void **state)
{
	static const char *const three[] = { "none", "filtered", "host", NULL };
	unsigned i;
	bool yes;
	char *cause = NULL;

	(void)state;
	assert_int_equal(value_choice("host", three, &i, NULL), 0);
	assert_int_equal(i, 2);
	expect_cause(value_choice("Host", three, &i, &cause), &cause, "Host",
		     "bad value 'Host'; use 'none', 'filtered' or 'host'");
	assert_int_equal(value_bool("yes", &yes, NULL), 0);
	assert_true(yes);
	assert_int_equal(value_bool("no", &yes, NULL), 0);
	assert_false(yes);
	expect_cause(value_bool("true", &yes, &cause), &cause, "true",
		     "bad value 'true'; use 'yes' or 'no'");
}

static void
test_env(void **state)
{
	static const struct {
		const char *in;
		bool glob_ok, set_ok;
	} t[] = {
		{ "PATH", true, false },       { "LC_*", true, false },
		{ "XDG_*_HOME", true, false }, { "_X1", true, false },
		{ "1X", false, false },	       { "A-B", false, false },
		{ "A=1", false, true },	       { "_A=", false, true },
		{ "=1", false, false },	       { "1A=1", false, false },
		{ "", false, false },	       { "A B", false, false },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		if ((value_env_glob(t[i].in, NULL) == 0) != t[i].glob_ok)
			fail_msg("glob '%s'", t[i].in);
		if ((value_env_set(t[i].in, NULL) == 0) != t[i].set_ok)
			fail_msg("set '%s'", t[i].in);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_port_list),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_address_causes),
		cmocka_unit_test(test_cidr_host),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_number_causes),
		cmocka_unit_test(test_choices),
		cmocka_unit_test(test_env),
	};

	return cmocka_run_group_tests_name("value", tests, NULL, NULL);
}
