/*
 * dns: the DNS wire format (RFC 1035) as named hosts need it (DESIGN.md
 * §6.1): the sandbox's query read (name, type, class, id), the
 * upstream's answer read (A and AAAA records with their TTLs, through
 * CNAME chains, names compressed), a query built, and a refusal
 * (REFUSED, NXDOMAIN) built for a query.  Pure: no system calls; every
 * input is untrusted bytes, read within its length.
 */
#ifndef LLW_DNS_H
#define LLW_DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "value.h"

enum {
	DNS_TYPE_A = 1,
	DNS_TYPE_CNAME = 5,
	DNS_TYPE_AAAA = 28,
	DNS_CLASS_IN = 1,
};

enum {
	DNS_RCODE_NOERROR = 0,
	DNS_RCODE_FORMERR = 1,
	DNS_RCODE_SERVFAIL = 2,
	DNS_RCODE_NXDOMAIN = 3,
	DNS_RCODE_REFUSED = 5,
};

#define DNS_HEADER_LEN	 12
#define DNS_NAME_MAX	 253 /* text, without the trailing dot */
#define DNS_CNAME_MAX	 8   /* CNAMEs followed from the question */
#define DNS_ANSWER_ADDRS 32  /* addresses kept from one answer */
#define DNS_POINTERS_MAX 32  /* compression pointers in one name */

/* A question: the first (and only) one of a message. */
struct dns_question {
	uint16_t id;
	bool rd;		     /* recursion desired */
	char name[DNS_NAME_MAX + 1]; /* lower case, no trailing dot;
				      * "" for the root */
	uint16_t type, qclass;
	size_t end; /* offset just past the question */
};

/* An address an answer gives for the question's name, with its TTL
 * (the least along the CNAME chain that led to it). */
struct dns_addr {
	struct netpolicy_addr addr; /* port 0 */
	uint32_t ttl;
};

struct dns_answer {
	uint8_t rcode;
	bool truncated;
	size_t n; /* addresses in v */
	struct dns_addr v[DNS_ANSWER_ADDRS];
	size_t n_cnames; /* the chain followed, in order */
	char cnames[DNS_CNAME_MAX][DNS_NAME_MAX + 1];
};

/*
 * Read a query from the sandbox: a standard query (QR 0, opcode 0) with
 * one question and no answer or authority records (an EDNS OPT record
 * in the additional section is allowed), its name uncompressed, every
 * label letters, digits, '-' or '_'.  Returns 0, or -EINVAL for anything
 * else (the stub answers FORMERR when the header can be echoed, else
 * drops it).
 */
int dns_query_parse(const uint8_t *buf, size_t len, struct dns_question *q);

/*
 * Build a query (recursion desired) for name (lower case, no trailing
 * dot) of type with id into buf (size bytes).  Returns its length,
 * -EINVAL for a name that is not one, -ENOBUFS when buf is too small.
 */
int dns_query_build(const char *name, uint16_t type, uint16_t id, uint8_t *buf,
		    size_t size);

/*
 * Read the answer buf[0..len) to q (its id, name, type and class
 * echoed).  Addresses of q's type owned by q's name or by a name of the
 * CNAME chain from it go to a (in message order, at most
 * DNS_ANSWER_ADDRS; an IPv4-mapped AAAA is kept as the IPv4 address),
 * records owned by other names are ignored.  Returns 0 (a->rcode may be
 * an error and a->n 0), -ESRCH when buf is not the answer to q (another
 * id or question, not a response), -EINVAL when malformed.
 */
int dns_answer_parse(const uint8_t *buf, size_t len,
		     const struct dns_question *q, struct dns_answer *a);

/*
 * An answer with rcode and no records to the query that dns_query_parse
 * read into q: its id and RD from q, its question section echoed from
 * question[0..question_len) (the client's own bytes, as it wrote them:
 * never another message's, whose length the client's q->end does not
 * describe), RA set.  Returns its length, or -ENOBUFS when out (size
 * bytes) is too small.
 */
int dns_error_build(const struct dns_question *q, const uint8_t *question,
		    size_t question_len, uint8_t rcode, uint8_t *out,
		    size_t size);

/*
 * The answer buf[0..n) (upstream's, to the stub's own query for q) made
 * the client's, in place: read as dns_answer_parse does (into *a), and the
 * client's question, as it wrote it (its letters' case), put back over
 * the stub's, whose length is the same.  Returns 0, or -errno when buf is
 * not an answer to q: then the client gets dns_error_build's SERVFAIL,
 * built from its own question alone.
 */
int dns_answer_for_client(uint8_t *buf, size_t n, const struct dns_question *q,
			  const uint8_t *question, size_t question_len,
			  struct dns_answer *a);

#endif /* LLW_DNS_H */
