/*
 * Unit tests of src/dns.c: queries read and built, answers read through
 * CNAME chains and compression, refusals built; every cut of a message
 * read within its bounds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "dns.h"

/* A message under construction. */
struct msg {
	uint8_t b[2048];
	size_t n;
};

static void
put8(struct msg *m, unsigned v)
{
	assert_true(m->n < sizeof(m->b));
	m->b[m->n++] = (uint8_t)v;
}

static void
put16(struct msg *m, unsigned v)
{
	put8(m, v >> 8);
	put8(m, v & 0xff);
}

static void
put32(struct msg *m, uint32_t v)
{
	put16(m, v >> 16);
	put16(m, v & 0xffff);
}

/* A name in labels, ending with a pointer to ptr when ptr != 0. */
static void
put_name(struct msg *m, const char *name, unsigned ptr)
{
	for (const char *l = name; *l;) {
		size_t ll = strcspn(l, ".");

		put8(m, (unsigned)ll);
		for (size_t i = 0; i < ll; i++)
			put8(m, (uint8_t)l[i]);
		l += ll + (l[ll] == '.');
	}
	if (ptr)
		put16(m, 0xc000 | ptr);
	else
		put8(m, 0);
}

static void
header(struct msg *m, unsigned id, unsigned flags, unsigned qd, unsigned an)
{
	m->n = 0;
	put16(m, id);
	put16(m, flags);
	put16(m, qd);
	put16(m, an);
	put16(m, 0);
	put16(m, 0);
}

/* A record header: owner (a name, or a pointer when name is NULL). */
static void
rr(struct msg *m, const char *name, unsigned ptr, unsigned type, uint32_t ttl,
   unsigned rdlen)
{
	put_name(m, name ? name : "", ptr);
	put16(m, type);
	put16(m, DNS_CLASS_IN);
	put32(m, ttl);
	put16(m, rdlen);
}

static void
test_query(void **state)
{
	static const uint8_t want[] = {
		0x12, 0x34, 0x01, 0x00, 0,   1,	  0,   0,   0,	 0,   0,
		0,    3,    'a',  'p',	'i', 7,	  'e', 'x', 'a', 'm', 'p',
		'l',  'e',  3,	  'c',	'o', 'm', 0,   0,   1,	 0,   1,
	};
	uint8_t buf[512];
	char longname[300];
	struct dns_question q;
	struct msg m;

	(void)state;
	assert_int_equal(dns_query_build("api.example.com", DNS_TYPE_A, 0x1234,
					 buf, sizeof(buf)),
			 sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	assert_int_equal(dns_query_build("api.example.com", 1, 1, buf, 20),
			 -ENOBUFS);
	assert_int_equal(dns_query_build("a..b", 1, 1, buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(dns_query_build("", 1, 1, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(dns_query_build("a.b.", 1, 1, buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(dns_query_build("a*b.c", 1, 1, buf, sizeof(buf)),
			 -EINVAL);
	memset(longname, 'a', 64);
	strcpy(longname + 64, ".com");
	assert_int_equal(dns_query_build(longname, 1, 1, buf, sizeof(buf)),
			 -EINVAL);
	for (size_t i = 0; i < 254; i++)
		longname[i] = i % 2 ? '.' : 'a';
	longname[253] = '\0';
	assert_int_equal(dns_query_build(longname, 1, 1, buf, sizeof(buf)),
			 253 + 2 + 4 + 12);
	longname[253] = 'b';
	longname[254] = '\0';
	assert_int_equal(dns_query_build(longname, 1, 1, buf, sizeof(buf)),
			 -EINVAL);

	/* What was built reads back. */
	assert_int_equal(dns_query_parse(want, sizeof(want), &q), 0);
	assert_int_equal(q.id, 0x1234);
	assert_true(q.rd);
	assert_string_equal(q.name, "api.example.com");
	assert_int_equal(q.type, DNS_TYPE_A);
	assert_int_equal(q.qclass, DNS_CLASS_IN);
	assert_int_equal(q.end, sizeof(want));
	/* Every cut is refused, never read past. */
	for (size_t cut = 0; cut < sizeof(want); cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);

		memcpy(copy, want, cut);
		assert_int_equal(dns_query_parse(copy, cut, &q), -EINVAL);
		free(copy);
	}

	/* Case folded; an EDNS record after the question allowed. */
	header(&m, 7, 0x0100, 1, 0);
	m.b[11] = 1;
	put_name(&m, "API.OpenAI.COM", 0);
	put16(&m, DNS_TYPE_AAAA);
	put16(&m, DNS_CLASS_IN);
	assert_int_equal(dns_query_parse(m.b, m.n, &q), 0);
	assert_string_equal(q.name, "api.openai.com");
	assert_int_equal(q.type, DNS_TYPE_AAAA);
	/* A response, another opcode, two questions, an answer record, a
	 * compression pointer, a label holding a dot or a byte outside
	 * letters, digits, '-' and '_': refused. */
	memcpy(buf, m.b, m.n);
	buf[2] = 0x81;
	assert_int_equal(dns_query_parse(buf, m.n, &q), -EINVAL);
	buf[2] = 0x08;
	assert_int_equal(dns_query_parse(buf, m.n, &q), -EINVAL);
	memcpy(buf, m.b, m.n);
	buf[5] = 2;
	assert_int_equal(dns_query_parse(buf, m.n, &q), -EINVAL);
	memcpy(buf, m.b, m.n);
	buf[7] = 1;
	assert_int_equal(dns_query_parse(buf, m.n, &q), -EINVAL);
	header(&m, 7, 0x0100, 1, 0);
	put_name(&m, "a", 12);
	put16(&m, 1);
	put16(&m, 1);
	assert_int_equal(dns_query_parse(m.b, m.n, &q), -EINVAL);
	header(&m, 7, 0x0100, 1, 0);
	put8(&m, 3);
	put8(&m, 'a');
	put8(&m, '.');
	put8(&m, 'b');
	put8(&m, 0);
	put16(&m, 1);
	put16(&m, 1);
	assert_int_equal(dns_query_parse(m.b, m.n, &q), -EINVAL);
	m.b[14] = 0;
	assert_int_equal(dns_query_parse(m.b, m.n, &q), -EINVAL);
	m.b[14] = '_';
	assert_int_equal(dns_query_parse(m.b, m.n, &q), 0);
	assert_string_equal(q.name, "a_b");
}

static void
test_error(void **state)
{
	uint8_t query[512], out[512];
	struct dns_question q;
	struct dns_answer a;
	int n = dns_query_build("evil.example", DNS_TYPE_A, 0xbeef, query,
				sizeof(query));

	(void)state;
	assert_true(n > 0);
	assert_int_equal(dns_query_parse(query, (size_t)n, &q), 0);
	assert_int_equal(dns_error_build(&q, query + 12, (size_t)n - 12,
					 DNS_RCODE_REFUSED, out, sizeof(out)),
			 n);
	assert_int_equal(out[0], 0xbe);
	assert_int_equal(out[1], 0xef);
	assert_int_equal(out[2], 0x81); /* QR, RD */
	assert_int_equal(out[3], 0x85); /* RA, REFUSED */
	assert_memory_equal(out + 12, query + 12, (size_t)n - 12);
	/* It is the answer to that query, with no address. */
	assert_int_equal(dns_answer_parse(out, (size_t)n, &q, &a), 0);
	assert_int_equal(a.rcode, DNS_RCODE_REFUSED);
	assert_int_equal(a.n, 0);
	assert_int_equal(dns_error_build(&q, query + 12, (size_t)n - 12,
					 DNS_RCODE_NXDOMAIN, out,
					 (size_t)n - 1),
			 -ENOBUFS);
}

/*
 * An upstream answer shorter than the client's question (issue 23: the
 * error built from it read the stub's heap past it): not the client's
 * answer, and the error the client gets holds only its own question.
 */
static void
test_answer_for_client(void **state)
{
	uint8_t query[512], up[512], out[512];
	struct dns_question q;
	struct dns_answer a;
	int n = dns_query_build("a-rather-long-name.example.org", DNS_TYPE_A,
				0x1234, query, sizeof(query));
	size_t qlen;

	(void)state;
	assert_true(n > 0);
	assert_int_equal(dns_query_parse(query, (size_t)n, &q), 0);
	qlen = q.end - 12;
	/* A bare header, then the same with the stub's question. */
	memset(up, 0xaa, sizeof(up));
	memcpy(up, query, 12);
	up[2] = 0x81;
	up[3] = 0x80;
	assert_true(dns_answer_for_client(up, 12, &q, query + 12, qlen, &a) <
		    0);
	assert_int_equal(dns_error_build(&q, query + 12, qlen,
					 DNS_RCODE_SERVFAIL, out, sizeof(out)),
			 (int)q.end);
	assert_memory_equal(out + 12, query + 12, qlen);
	/* A real answer gets the client's own letters back. */
	memcpy(up + 12, query + 12, qlen);
	up[12 + 1] = 'A';
	up[7] = 0; /* no records */
	assert_int_equal(
		dns_answer_for_client(up, q.end, &q, query + 12, qlen, &a), 0);
	assert_memory_equal(up + 12, query + 12, qlen);
}

/* The answer to api.example.com A: a CNAME to edge.cdn.example, its A
 * records, one for a name outside the chain, all compressed. */
static void
cdn_answer(struct msg *m, unsigned id)
{
	header(m, id, 0x8180, 1, 5);
	put_name(m, "api.example.com", 0); /* at 12 */
	put16(m, DNS_TYPE_A);
	put16(m, DNS_CLASS_IN);
	rr(m, NULL, 12, DNS_TYPE_CNAME, 30, 11);
	put_name(m, "edge.cdn", 16); /* "edge.cdn" + example.com */
	rr(m, "other.example", 0, DNS_TYPE_A, 900, 4);
	put32(m, 0xc0000201); /* 192.0.2.1: not in the chain */
	rr(m, "edge.cdn", 16, DNS_TYPE_A, 300, 4);
	put32(m, 0xcb007109); /* 203.0.113.9 */
	rr(m, "edge.cdn", 16, DNS_TYPE_A, 10, 4);
	put32(m, 0xc6336407);			 /* 198.51.100.7 */
	rr(m, NULL, 12, DNS_TYPE_AAAA, 300, 16); /* another type */
	for (int i = 0; i < 15; i++)
		put8(m, 0);
	put8(m, 1);
}

static void
test_answer(void **state)
{
	struct dns_question q = { .id = 0x4242,
				  .name = "api.example.com",
				  .type = DNS_TYPE_A,
				  .qclass = DNS_CLASS_IN };
	struct dns_answer a;
	struct msg m;

	(void)state;
	cdn_answer(&m, 0x4242);
	assert_int_equal(dns_answer_parse(m.b, m.n, &q, &a), 0);
	assert_int_equal(a.rcode, 0);
	assert_int_equal(a.n_cnames, 1);
	assert_string_equal(a.cnames[0], "edge.cdn.example.com");
	assert_int_equal(a.n, 2);
	assert_int_equal(a.v[0].addr.family, AF_INET);
	assert_int_equal(a.v[0].addr.a[0], 203);
	assert_int_equal(a.v[0].addr.a[3], 9);
	assert_int_equal(a.v[0].ttl, 30); /* the CNAME's, the lesser */
	assert_int_equal(a.v[1].addr.a[0], 198);
	assert_int_equal(a.v[1].ttl, 10);
	/* Every cut: never a read past the end. */
	for (size_t cut = 0; cut < m.n; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		int r;

		memcpy(copy, m.b, cut);
		r = dns_answer_parse(copy, cut, &q, &a);
		assert_true(r == -EINVAL || r == -ESRCH);
		free(copy);
	}
	/* Another id, another question, a query: not this answer. */
	cdn_answer(&m, 0x4243);
	assert_int_equal(dns_answer_parse(m.b, m.n, &q, &a), -ESRCH);
	cdn_answer(&m, 0x4242);
	m.b[2] = 0x01;
	assert_int_equal(dns_answer_parse(m.b, m.n, &q, &a), -ESRCH);
	q.type = DNS_TYPE_AAAA;
	cdn_answer(&m, 0x4242);
	assert_int_equal(dns_answer_parse(m.b, m.n, &q, &a), -ESRCH);
	q.type = DNS_TYPE_A;
	strcpy(q.name, "api.example.co");
	assert_int_equal(dns_answer_parse(m.b, m.n, &q, &a), -ESRCH);
	strcpy(q.name, "api.example.com");
	/* NXDOMAIN, truncated: said, no addresses. */
	header(&m, 0x4242, 0x8383, 1, 0);
	put_name(&m, "API.example.com", 0);
	put16(&m, DNS_TYPE_A);
	put16(&m, DNS_CLASS_IN);
	assert_int_equal(dns_answer_parse(m.b, m.n, &q, &a), 0);
	assert_int_equal(a.rcode, DNS_RCODE_NXDOMAIN);
	assert_true(a.truncated);
	assert_int_equal(a.n, 0);
}

static void
test_answer_hostile(void **state)
{
	struct dns_question q = { .id = 1,
				  .name = "a.example",
				  .type = DNS_TYPE_AAAA,
				  .qclass = DNS_CLASS_IN };
	struct dns_answer a;
	struct msg m;

	(void)state;
	/* A pointer to itself, and one pointing forward. */
	header(&m, 1, 0x8180, 1, 0);
	put16(&m, 0xc000 | 12);
	put16(&m, DNS_TYPE_AAAA);
	put16(&m, DNS_CLASS_IN);
	assert_int_equal(dns_answer_parse(m.b, m.n, &q, &a), -EINVAL);
	header(&m, 1, 0x8180, 1, 0);
	put16(&m, 0xc000 | 20);
	put16(&m, DNS_TYPE_AAAA);
	put16(&m, DNS_CLASS_IN);
	assert_int_equal(dns_answer_parse(m.b, m.n, &q, &a), -EINVAL);
	/* A loop through a label: "x" then a pointer back to it. */
	header(&m, 1, 0x8180, 1, 0);
	put_name(&m, "x", 12);
	put16(&m, DNS_TYPE_AAAA);
	put16(&m, DNS_CLASS_IN);
	assert_int_equal(dns_answer_parse(m.b, m.n, &q, &a), -EINVAL);

	/* A CNAME loop, a mapped AAAA, a TTL with the high bit, more
	 * addresses than kept. */
	header(&m, 1, 0x8180, 1, 4 + 40);
	put_name(&m, "a.example", 0);
	put16(&m, DNS_TYPE_AAAA);
	put16(&m, DNS_CLASS_IN);
	rr(&m, NULL, 12, DNS_TYPE_CNAME, 60, 4);
	put_name(&m, "b", 14); /* b.example */
	rr(&m, "b", 14, DNS_TYPE_CNAME, 60, 2);
	put16(&m, 0xc000 | 12); /* back to a.example */
	rr(&m, NULL, 12, DNS_TYPE_AAAA, 0x80000000u, 16);
	for (int i = 0; i < 10; i++)
		put8(&m, 0);
	put16(&m, 0xffff);
	put32(&m, 0xcb007101); /* ::ffff:203.0.113.1 */
	rr(&m, NULL, 12, DNS_TYPE_AAAA, 120, 16);
	put32(&m, 0x20010db8);
	put32(&m, 0);
	put32(&m, 0);
	put32(&m, 1);
	for (int i = 0; i < 40; i++) {
		rr(&m, NULL, 12, DNS_TYPE_AAAA, 5, 16);
		put32(&m, 0x20010db8);
		put32(&m, 0);
		put32(&m, 0);
		put32(&m, (uint32_t)i + 2);
	}
	assert_int_equal(dns_answer_parse(m.b, m.n, &q, &a), 0);
	assert_int_equal(a.n_cnames, DNS_CNAME_MAX);
	assert_int_equal(a.n, DNS_ANSWER_ADDRS);
	assert_int_equal(a.v[0].addr.family, AF_INET);
	assert_int_equal(a.v[0].addr.a[0], 203);
	assert_int_equal(a.v[0].ttl, 0);
	assert_int_equal(a.v[1].addr.family, AF_INET6);
	assert_int_equal(a.v[1].addr.a[15], 1);
	assert_int_equal(a.v[1].ttl, 120);

	/* An A record of the wrong length is malformed. */
	q.type = DNS_TYPE_A;
	header(&m, 1, 0x8180, 1, 1);
	put_name(&m, "a.example", 0);
	put16(&m, DNS_TYPE_A);
	put16(&m, DNS_CLASS_IN);
	rr(&m, NULL, 12, DNS_TYPE_A, 5, 3);
	put8(&m, 1);
	put8(&m, 2);
	put8(&m, 3);
	assert_int_equal(dns_answer_parse(m.b, m.n, &q, &a), -EINVAL);
	/* A record longer than the message. */
	m.b[m.n - 4] = 200;
	assert_int_equal(dns_answer_parse(m.b, m.n, &q, &a), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_error),
		cmocka_unit_test(test_answer_for_client),
		cmocka_unit_test(test_answer),
		cmocka_unit_test(test_answer_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
