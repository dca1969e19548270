/*
 * libFuzzer harness: the DNS messages the stub resolver reads
 * (src/dns.c), queries from the sandboxed command and answers from the
 * resolvers, both untrusted bytes.
 *
 * Each input is read as a query and, when one, answered REFUSED and the
 * refusal read back as its answer; then read as the answer to the
 * question its own first question would be (so the question check
 * passes and the records are reached), whole and, when it reads, cut
 * short at every 7th byte.  A name read must be lower case, without a trailing
 * dot, at most DNS_NAME_MAX bytes; addresses at most DNS_ANSWER_ADDRS.
 *
 * Built by tests/fuzz/run.sh with clang -fsanitize=fuzzer,address,
 * undefined; built without libFuzzer (tests/fuzz/replay.c supplies
 * main), make check replays tests/fuzz/regressions-dns/.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_name(const char *s)
{
	size_t n = strnlen(s, DNS_NAME_MAX + 1);

	if (n > DNS_NAME_MAX || (n > 0 && s[n - 1] == '.'))
		abort();
	for (size_t i = 0; i < n; i++)
		if (s[i] >= 'A' && s[i] <= 'Z')
			abort();
}

/* Read data[0..len) from an exact-size copy, so a read past it is a
 * sanitizer report. */
static int
answer(const uint8_t *data, size_t len, const struct dns_question *q)
{
	uint8_t *buf = malloc(len ? len : 1);
	struct dns_answer a;
	int r;

	memcpy(buf, data, len);
	r = dns_answer_parse(buf, len, q, &a);
	free(buf);
	if (r != 0 && r != -ESRCH && r != -EINVAL)
		abort();
	if (r == 0) {
		if (a.n > DNS_ANSWER_ADDRS || a.n_cnames > DNS_CNAME_MAX)
			abort();
		for (size_t i = 0; i < a.n_cnames; i++)
			check_name(a.cnames[i]);
	}
	return r;
}

/*
 * The stub's reply to the client of q (its query in query), for an
 * upstream answer taken from the input's tail, as long as the input
 * says (shorter than the question included: the heap over-read of
 * issue 23 read past such an answer): the reply is that answer with the
 * client's question, or an error made of the client's bytes alone.
 * ASan sees any read past either buffer.
 */
static void
reply_for_client(const uint8_t *data, size_t size, const struct dns_question *q,
		 const uint8_t *query)
{
	size_t n = size > 0 ? data[size - 1] % (size + 1) : 0;
	uint8_t *up = malloc(n ? n : 1), out[512];
	struct dns_answer a;
	size_t qlen = q->end - DNS_HEADER_LEN;

	memcpy(up, data + size - n, n);
	if (dns_answer_for_client(up, n, q, query + DNS_HEADER_LEN, qlen, &a) ==
	    0) {
		if (n < q->end || memcmp(up + DNS_HEADER_LEN,
					 query + DNS_HEADER_LEN, qlen) != 0)
			abort();
	} else {
		int m = dns_error_build(q, query + DNS_HEADER_LEN, qlen,
					DNS_RCODE_SERVFAIL, out, sizeof(out));

		if (m > 0 && (size_t)m != q->end)
			abort();
	}
	free(up);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1), out[512];
	struct dns_question q;
	int r;

	memcpy(buf, data, size);
	r = dns_query_parse(buf, size, &q);
	if (r != 0 && r != -EINVAL)
		abort();
	if (r == 0) {
		int n;

		check_name(q.name);
		if (q.end > size)
			abort();
		n = dns_error_build(&q, buf + DNS_HEADER_LEN,
				    q.end - DNS_HEADER_LEN, DNS_RCODE_REFUSED,
				    out, sizeof(out));
		if (n == -ENOBUFS ? q.end <= sizeof(out) : n != (int)q.end)
			abort();
		/* Only the client's own bytes: its question, a new header. */
		if (n > 0 && memcmp(out + DNS_HEADER_LEN, buf + DNS_HEADER_LEN,
				    q.end - DNS_HEADER_LEN) != 0)
			abort();
		if (n > 0 && answer(out, (size_t)n, &q) != 0)
			abort();
		reply_for_client(data, size, &q, buf);
	}
	free(buf);

	/* As an answer to its own first question, whatever the header
	 * says: name read as compressed answers are. */
	if (size >= DNS_HEADER_LEN + 5) {
		uint8_t *copy = malloc(size);
		int whole;

		memcpy(copy, data, size);
		copy[2] = 0x01;
		copy[4] = 0;
		copy[5] = 1;
		copy[6] = copy[8] = copy[10] = 0;
		copy[7] = copy[9] = copy[11] = 0;
		r = dns_query_parse(copy, size, &q);
		free(copy);
		if (r == 0) {
			whole = answer(data, size, &q);
			for (size_t cut = 0; whole == 0 && cut < size; cut += 7)
				(void)answer(data, cut, &q);
		}
	}
	return 0;
}
