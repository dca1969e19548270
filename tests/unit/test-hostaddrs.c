/*
 * Unit tests of src/hostaddrs.c: addresses learned for allow-host
 * entries, their TTL floored and capped, the decision on a connect, the
 * table's bound in entries and memory.  The time is passed in.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

#include "hostaddrs.h"

static struct netpolicy_addr
addr(const char *s, uint16_t port)
{
	struct netpolicy_addr a;

	assert_int_equal(value_addr(s, &a, NULL), 0);
	a.port = port;
	return a;
}

/* api.example.com (the connect-tcp ports, 443), *.git.example:22,443 */
static struct llw_port_range p443 = { 443, 443, NULL };
static struct llw_port_range pgit[] = { { 22, 22, NULL }, { 443, 443, NULL } };
static const struct llw_ports def = { &p443, 1 };
static const struct hostrule rules[] = {
	{ "api.example.com", false, NULL, 0, "a.ini:1" },
	{ "git.example", true, pgit, 2, "a.ini:2" },
};

static enum hostrule_verdict
decide(const struct hostaddrs *t, const char *s, uint16_t port, uint64_t now,
       int *rule)
{
	struct netpolicy_addr a = addr(s, port);

	return hostaddrs_decide(t, rules, 2, &def, &a, now, rule);
}

static void
test_decide(void **state)
{
	struct hostaddrs *t = hostaddrs_new();
	struct netpolicy_addr a = addr("203.0.113.9", 0);
	struct netpolicy_addr b = addr("2001:db8::9", 0);
	int rule;

	(void)state;
	assert_int_equal(decide(t, "203.0.113.9", 443, 1000, &rule),
			 HOSTRULE_UNLISTED);
	assert_int_equal(rule, -1);
	hostaddrs_add(t, &a, 0, 60, 1000);
	assert_int_equal(decide(t, "203.0.113.9", 443, 1000, &rule),
			 HOSTRULE_ALLOWED);
	assert_int_equal(rule, 0);
	/* Another port, another address, another family. */
	assert_int_equal(decide(t, "203.0.113.9", 80, 1000, &rule),
			 HOSTRULE_PORT);
	assert_int_equal(rule, 0);
	assert_int_equal(decide(t, "203.0.113.10", 443, 1000, &rule),
			 HOSTRULE_UNLISTED);
	assert_int_equal(decide(t, "2001:db8::9", 443, 1000, &rule),
			 HOSTRULE_UNLISTED);
	/* Until the TTL runs out. */
	assert_int_equal(decide(t, "203.0.113.9", 443, 1059, &rule),
			 HOSTRULE_ALLOWED);
	assert_int_equal(decide(t, "203.0.113.9", 443, 1060, &rule),
			 HOSTRULE_UNLISTED);
	/* A second entry on the address, with its own ports. */
	hostaddrs_add(t, &b, 0, 300, 1000);
	hostaddrs_add(t, &b, 1, 300, 1000);
	assert_int_equal(decide(t, "2001:db8::9", 22, 1100, &rule),
			 HOSTRULE_ALLOWED);
	assert_int_equal(rule, 1);
	assert_int_equal(decide(t, "2001:db8::9", 443, 1100, &rule),
			 HOSTRULE_ALLOWED);
	assert_int_equal(rule, 0);
	assert_int_equal(decide(t, "2001:db8::9", 80, 1100, &rule),
			 HOSTRULE_PORT);
	assert_int_equal(hostaddrs_count(t, 1100), 1);
	assert_int_equal(hostaddrs_count(t, 1000), 2);
	/* An index the rules do not have (a stale table) allows nothing. */
	hostaddrs_add(t, &a, 7, 300, 2000);
	assert_int_equal(decide(t, "203.0.113.9", 443, 2000, &rule),
			 HOSTRULE_UNLISTED);
	hostaddrs_free(t);
}

static void
test_ttl(void **state)
{
	struct hostaddrs *t = hostaddrs_new();
	struct netpolicy_addr a = addr("203.0.113.9", 0);
	int rule;

	(void)state;
	/* A TTL of 0 holds for the floor. */
	hostaddrs_add(t, &a, 0, 0, 1000);
	assert_int_equal(decide(t, "203.0.113.9", 443,
				1000 + HOSTADDRS_TTL_FLOOR - 1, &rule),
			 HOSTRULE_ALLOWED);
	assert_int_equal(decide(t, "203.0.113.9", 443,
				1000 + HOSTADDRS_TTL_FLOOR, &rule),
			 HOSTRULE_UNLISTED);
	/* A day's TTL holds for the cap. */
	hostaddrs_add(t, &a, 0, 86400, 5000);
	assert_int_equal(decide(t, "203.0.113.9", 443,
				5000 + HOSTADDRS_TTL_CAP - 1, &rule),
			 HOSTRULE_ALLOWED);
	assert_int_equal(
		decide(t, "203.0.113.9", 443, 5000 + HOSTADDRS_TTL_CAP, &rule),
		HOSTRULE_UNLISTED);
	/* Learning again extends, never shortens. */
	hostaddrs_add(t, &a, 0, 600, 10000);
	hostaddrs_add(t, &a, 0, 60, 10000);
	assert_int_equal(decide(t, "203.0.113.9", 443, 10599, &rule),
			 HOSTRULE_ALLOWED);
	hostaddrs_add(t, &a, 0, 600, 10500);
	assert_int_equal(decide(t, "203.0.113.9", 443, 11099, &rule),
			 HOSTRULE_ALLOWED);
	hostaddrs_free(t);
}

static void
test_entries_bound(void **state)
{
	struct hostaddrs *t = hostaddrs_new();
	struct netpolicy_addr a = addr("203.0.113.9", 0);
	struct llw_port_range ports[HOSTADDRS_ENTRIES + 1];
	struct hostrule many[HOSTADDRS_ENTRIES + 1];
	int rule;

	(void)state;
	/* Entry i allows port 1000 + i; entry 0 expires first. */
	for (size_t i = 0; i <= HOSTADDRS_ENTRIES; i++) {
		ports[i] =
			(struct llw_port_range){ (uint16_t)(1000 + i),
						 (uint16_t)(1000 + i), NULL };
		many[i] = (struct hostrule){ "x", false, &ports[i], 1, NULL };
		hostaddrs_add(t, &a, (uint16_t)i, 100 + (uint32_t)i, 0);
	}
	/* HOSTADDRS_ENTRIES on one address: the first to expire went, the
	 * one added last is there. */
	for (size_t i = 0; i <= HOSTADDRS_ENTRIES; i++) {
		struct netpolicy_addr c =
			addr("203.0.113.9", (uint16_t)(1000 + i));

		assert_int_equal(hostaddrs_decide(t, many,
						  HOSTADDRS_ENTRIES + 1, &def,
						  &c, 10, &rule),
				 i == 0 ? HOSTRULE_PORT : HOSTRULE_ALLOWED);
		if (i > 0)
			assert_int_equal(rule, (int)i);
	}
	hostaddrs_free(t);
}

static void
test_table_bound(void **state)
{
	struct hostaddrs *t = hostaddrs_new();
	const size_t extra = 500;
	int rule;

	(void)state;
	/* HOSTADDRS_MAX addresses, then more learned later: the ones that
	 * expire first make room, the rest stay found. */
	for (size_t i = 0; i < HOSTADDRS_MAX + extra; i++) {
		struct netpolicy_addr a = { .family = AF_INET6 };

		a.a[0] = 0x20;
		a.a[1] = 0x01;
		a.a[12] = (uint8_t)(i >> 24);
		a.a[13] = (uint8_t)(i >> 16);
		a.a[14] = (uint8_t)(i >> 8);
		a.a[15] = (uint8_t)i;
		hostaddrs_add(t, &a, 0, i < extra ? 60 : 600,
			      i < HOSTADDRS_MAX ? 0 : 10);
	}
	assert_int_equal(hostaddrs_count(t, 20), HOSTADDRS_MAX);
	/* 16 bytes a pair, and 16 more for an IPv6 address. */
	assert_true(hostaddrs_memory(t) < 400u << 10);
	for (size_t i = 0; i < HOSTADDRS_MAX + extra; i++) {
		struct netpolicy_addr a = { .family = AF_INET6, .port = 443 };

		a.a[0] = 0x20;
		a.a[1] = 0x01;
		a.a[12] = (uint8_t)(i >> 24);
		a.a[13] = (uint8_t)(i >> 16);
		a.a[14] = (uint8_t)(i >> 8);
		a.a[15] = (uint8_t)i;
		assert_int_equal(
			hostaddrs_decide(t, rules, 2, &def, &a, 20, &rule),
			i < extra ? HOSTRULE_UNLISTED : HOSTRULE_ALLOWED);
	}
	hostaddrs_free(t);
}

/* IPv4 addresses, 16 bytes each: with several entries on some, and
 * pairs replaced in their own chain once the table is full. */
static bool
twice(size_t i)
{
	return i >= 1000 && i % 100 == 50;
}

/* IPv4 addresses, 16 bytes a pair: some learned for two entries, and
 * the pairs that expire first replaced once the table is full. */
static void
test_table_v4(void **state)
{
	struct hostaddrs *t = hostaddrs_new();
	const size_t n = HOSTADDRS_MAX + 300;
	size_t early = n - HOSTADDRS_MAX;
	int rule;

	(void)state;
	for (size_t i = 0; i < n; i++)
		early += twice(i);
	for (size_t i = 0; i < n; i++) {
		struct netpolicy_addr a = { .family = AF_INET };

		a.a[0] = 10;
		a.a[1] = (uint8_t)(i >> 16);
		a.a[2] = (uint8_t)(i >> 8);
		a.a[3] = (uint8_t)i;
		hostaddrs_add(t, &a, 0, i < early ? 60 : 600, 0);
		if (twice(i))
			hostaddrs_add(t, &a, 1, 600, 0);
	}
	assert_int_equal(hostaddrs_count(t, 20), n - early);
	assert_true(hostaddrs_memory(t) < 200u << 10);
	for (size_t i = 0; i < n; i++) {
		struct netpolicy_addr a = { .family = AF_INET, .port = 22 };

		a.a[0] = 10;
		a.a[1] = (uint8_t)(i >> 16);
		a.a[2] = (uint8_t)(i >> 8);
		a.a[3] = (uint8_t)i;
		assert_int_equal(
			hostaddrs_decide(t, rules, 2, &def, &a, 20, &rule),
			i < early  ? HOSTRULE_UNLISTED
			: twice(i) ? HOSTRULE_ALLOWED
				   : HOSTRULE_PORT);
		if (i >= early)
			assert_int_equal(rule, twice(i) ? 1 : 0);
	}
	hostaddrs_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_ttl),
		cmocka_unit_test(test_entries_bound),
		cmocka_unit_test(test_table_bound),
		cmocka_unit_test(test_table_v4),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
