/*
 * Unit tests of src/hostdns.c: the stub resolver's decision on a query
 * (forwarded only for a name allow-host names, answered at once
 * otherwise) and what an answer teaches the learned table (no local
 * address: rebinding).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "hostdns.h"

static struct llw_port_range p443 = { 443, 443, NULL };
static const struct llw_ports def = { &p443, 1 };
static const struct hostrule rules[] = {
	{ "api.example.com", false, NULL, 0, "a.ini:1" },
	{ "cdn.example", true, &p443, 1, "a.ini:2" },
};

static struct hostdns_verdict
ask(const char *name, uint16_t type, struct dns_question *q, uint8_t *reply)
{
	uint8_t buf[512];
	int n = dns_query_build(name, type, 0x77, buf, sizeof(buf));

	assert_true(n > 0);
	return hostdns_decide_query(rules, 2, buf, (size_t)n, q, reply, 512);
}

static void
test_query(void **state)
{
	uint8_t reply[512];
	struct dns_question q;
	struct dns_answer a;
	struct hostdns_verdict v;

	(void)state;
	v = ask("api.example.com", DNS_TYPE_A, &q, reply);
	assert_int_equal(v.action, HOSTDNS_FORWARD);
	assert_int_equal(v.rule, 0);
	assert_null(v.reason);
	assert_int_equal(v.log_rule, REFUSAL_NONE);
	v = ask("img.cdn.example", DNS_TYPE_AAAA, &q, reply);
	assert_int_equal(v.action, HOSTDNS_FORWARD);
	assert_int_equal(v.rule, 1);
	/* Not named: REFUSED, nothing forwarded. */
	v = ask("secret.evil.example", DNS_TYPE_A, &q, reply);
	assert_int_equal(v.action, HOSTDNS_ANSWER);
	assert_string_equal(v.reason, "not in allow-host");
	assert_int_equal(v.log_rule, REFUSAL_HOST);
	assert_int_equal(v.rule, -1);
	assert_int_equal(dns_answer_parse(reply, v.reply_len, &q, &a), 0);
	assert_int_equal(a.rcode, DNS_RCODE_REFUSED);
	/* One label below the wildcard only; the wildcard's own name is
	 * not below it. */
	assert_int_equal(ask("a.b.cdn.example", 1, &q, reply).action,
			 HOSTDNS_ANSWER);
	assert_int_equal(ask("cdn.example", 1, &q, reply).action,
			 HOSTDNS_ANSWER);
	assert_int_equal(ask("api.example.com.evil", 1, &q, reply).action,
			 HOSTDNS_ANSWER);
	/* A TXT query for an allowed name carries data too: no records. */
	v = ask("api.example.com", 16, &q, reply);
	assert_int_equal(v.action, HOSTDNS_ANSWER);
	assert_string_equal(v.reason, "type not forwarded");
	assert_int_equal(v.log_rule, REFUSAL_DNS_TYPE);
	assert_int_equal(dns_answer_parse(reply, v.reply_len, &q, &a), 0);
	assert_int_equal(a.rcode, DNS_RCODE_NOERROR);
	assert_int_equal(a.n, 0);
}

static void
test_malformed(void **state)
{
	uint8_t buf[512], reply[512];
	struct dns_question q;
	struct hostdns_verdict v;
	int n = dns_query_build("api.example.com", 1, 0x77, buf, sizeof(buf));

	(void)state;
	/* A label with a byte a name does not hold: FORMERR, echoed. */
	buf[14] = '*';
	v = hostdns_decide_query(rules, 2, buf, (size_t)n, &q, reply, 512);
	assert_int_equal(v.action, HOSTDNS_ANSWER);
	assert_int_equal(v.reply_len, (size_t)n);
	assert_int_equal(reply[0], 0);
	assert_int_equal(reply[1], 0x77);
	assert_int_equal(reply[3] & 0x0f, DNS_RCODE_FORMERR);
	assert_true(reply[2] & 0x80);
	assert_int_equal(v.log_rule, REFUSAL_DNS_MALFORMED);
	/* Not even a question to echo, or a response: dropped. */
	v = hostdns_decide_query(rules, 2, buf, 11, &q, reply, 512);
	assert_int_equal(v.action, HOSTDNS_DROP);
	buf[2] |= 0x80;
	v = hostdns_decide_query(rules, 2, buf, (size_t)n, &q, reply, 512);
	assert_int_equal(v.action, HOSTDNS_DROP);
	/* Every cut of a good query: never forwarded, never read past. */
	buf[2] &= 0x7f;
	buf[14] = 'p';
	for (int cut = 0; cut < n; cut++)
		assert_int_not_equal(hostdns_decide_query(rules, 2, buf,
							  (size_t)cut, &q,
							  reply, 512)
					     .action,
				     HOSTDNS_FORWARD);
}

static bool
own(void *ctx, const struct netpolicy_addr *a)
{
	(void)ctx;
	return a->family == AF_INET && a->a[0] == 198 && a->a[1] == 51;
}

static void
add(struct dns_answer *a, const char *s, uint32_t ttl)
{
	assert_int_equal(value_addr(s, &a->v[a->n].addr, NULL), 0);
	a->v[a->n++].ttl = ttl;
}

static void
test_learn(void **state)
{
	struct hostaddrs *t = hostaddrs_new();
	struct dns_answer a;
	struct netpolicy_addr refused[4], c;
	size_t nr;
	int rule;

	(void)state;
	memset(&a, 0, sizeof(a));
	add(&a, "203.0.113.9", 60);
	add(&a, "127.0.0.1", 60);    /* rebinding: loopback */
	add(&a, "192.168.1.1", 60);  /* private */
	add(&a, "100.64.0.1", 60);   /* CGNAT */
	add(&a, "fd00::1", 60);	     /* ULA */
	add(&a, "198.51.100.7", 60); /* this host's own */
	add(&a, "2001:db8::9", 60);
	assert_int_equal(
		hostdns_learn(t, &a, 0, 1000, own, NULL, refused, 4, &nr), 2);
	assert_int_equal(nr, 4); /* as many as fit */
	assert_int_equal(refused[0].a[0], 127);
	assert_int_equal(value_addr("203.0.113.9", &c, NULL), 0);
	c.port = 443;
	assert_int_equal(hostaddrs_decide(t, rules, 2, &def, &c, 1000, &rule),
			 HOSTRULE_ALLOWED);
	assert_int_equal(value_addr("127.0.0.1", &c, NULL), 0);
	c.port = 443;
	assert_int_equal(hostaddrs_decide(t, rules, 2, &def, &c, 1000, &rule),
			 HOSTRULE_UNLISTED);
	assert_int_equal(value_addr("198.51.100.7", &c, NULL), 0);
	c.port = 443;
	assert_int_equal(hostaddrs_decide(t, rules, 2, &def, &c, 1000, &rule),
			 HOSTRULE_UNLISTED);
	/* An error answer teaches nothing. */
	a.rcode = DNS_RCODE_SERVFAIL;
	assert_int_equal(
		hostdns_learn(t, &a, 1, 1000, NULL, NULL, refused, 4, &nr), 0);
	hostaddrs_free(t);
}

/* /etc/hosts: the addresses of named names, each (address, entry)
 * once; comments, case, trailing dots and bad lines handled. */
static void
test_hosts_file(void **state)
{
	const char *text = "# a comment\n"
			   "127.0.0.1 localhost\n"
			   "203.0.113.7 API.example.com. api.example.com # x\n"
			   "not-an-address api.example.com\n"
			   "2001:db8::7\timg.cdn.example\n"
			   "198.51.100.1 a.b.cdn.example other.example\n"
			   "203.0.113.8 api.example.com img.cdn.example";
	struct hostdns_fixed out[8];
	size_t n = hostdns_hosts_file(rules, 2, text, out, 8);

	(void)state;
	assert_int_equal(n, 4);
	assert_int_equal(out[0].rule, 0);
	assert_int_equal(out[0].addr.family, AF_INET);
	assert_int_equal(out[0].addr.a[3], 7);
	assert_int_equal(out[1].rule, 1);
	assert_int_equal(out[1].addr.family, AF_INET6);
	assert_int_equal(out[2].rule, 0);
	assert_int_equal(out[2].addr.a[3], 8);
	assert_int_equal(out[3].rule, 1);
	assert_int_equal(out[3].addr.a[3], 8);
	/* At most max. */
	assert_int_equal(hostdns_hosts_file(rules, 2, text, out, 1), 1);
	assert_int_equal(hostdns_hosts_file(rules, 2, NULL, out, 8), 0);
}

/* The wildcard label channel's budget: new labels a minute per
 * wildcard entry; a label seen before is free; an exact entry is never
 * counted; the next minute has a new budget. */
static void
test_budget(void **state)
{
	struct hostdns_budget *b = hostdns_budget_new(2);
	char name[64];
	uint64_t t = 600;

	(void)state;
	for (unsigned i = 0; i < HOSTDNS_LABELS_PER_MIN; i++) {
		snprintf(name, sizeof(name), "l%u.cdn.example", i);
		assert_true(hostdns_budget_take(b, rules, 2, 1, name, t));
	}
	assert_false(hostdns_budget_take(b, rules, 2, 1, "new.cdn.example", t));
	assert_false(
		hostdns_budget_take(b, rules, 2, 1, "new.cdn.example", t + 59));
	/* Seen before (in any case): free. */
	assert_true(hostdns_budget_take(b, rules, 2, 1, "L3.cdn.example", t));
	/* Not a wildcard: no budget. */
	for (unsigned i = 0; i < 3 * HOSTDNS_LABELS_PER_MIN; i++)
		assert_true(hostdns_budget_take(b, rules, 2, 0,
						"api.example.com", t));
	/* Out of range: not counted. */
	assert_true(hostdns_budget_take(b, rules, 2, -1, "x.cdn.example", t));
	/* The next minute. */
	assert_true(
		hostdns_budget_take(b, rules, 2, 1, "new.cdn.example", t + 60));
	hostdns_budget_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_learn),
		cmocka_unit_test(test_hosts_file),
		cmocka_unit_test(test_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
