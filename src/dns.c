/*
 * dns: the DNS wire format as named hosts need it.  See dns.h.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "dns.h"

static const uint8_t v4mapped[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A byte a label may hold: in a query, letters, digits, '-' and '_'
 * (strict: the name is matched as text); in an answer, any printable
 * byte but '.' (which would make the text ambiguous). */
static bool
label_byte(uint8_t c, bool strict)
{
	if (!strict)
		return c > ' ' && c < 0x7f && c != '.';
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/*
 * Read the name at *off into out (lower case, no trailing dot) and move
 * *off past it.  Compression pointers (not in a query: !compressed) must
 * point before themselves, at most DNS_POINTERS_MAX in one name; a loop
 * through labels ends at DNS_NAME_MAX.
 */
static int
read_name(const uint8_t *buf, size_t len, size_t *off,
	  char out[DNS_NAME_MAX + 1], bool compressed, bool strict)
{
	size_t pos = *off, n = 0;
	unsigned pointers = 0;
	bool jumped = false;

	for (;;) {
		uint8_t l;

		if (pos >= len)
			return -EINVAL;
		l = buf[pos];
		if (l == 0) {
			if (!jumped)
				*off = pos + 1;
			out[n] = '\0';
			return 0;
		}
		if ((l & 0xc0) == 0xc0) {
			size_t to;

			if (!compressed || pos + 2 > len ||
			    ++pointers > DNS_POINTERS_MAX)
				return -EINVAL;
			to = (size_t)(l & 0x3f) << 8 | buf[pos + 1];
			if (to >= pos)
				return -EINVAL;
			if (!jumped)
				*off = pos + 2;
			jumped = true;
			pos = to;
			continue;
		}
		if (l & 0xc0)
			return -EINVAL;
		if (pos + 1 + l > len || n + (n > 0) + l > DNS_NAME_MAX)
			return -EINVAL;
		if (n > 0)
			out[n++] = '.';
		for (size_t i = 0; i < l; i++) {
			uint8_t c = buf[pos + 1 + i];

			if (!label_byte(c, strict))
				return -EINVAL;
			if (c >= 'A' && c <= 'Z')
				c = (uint8_t)(c - 'A' + 'a');
			out[n++] = (char)c;
		}
		pos += 1 + l;
	}
}

int
dns_query_parse(const uint8_t *buf, size_t len, struct dns_question *q)
{
	size_t off = DNS_HEADER_LEN;

	memset(q, 0, sizeof(*q));
	if (len < DNS_HEADER_LEN)
		return -EINVAL;
	/* QR 0, opcode 0 (QUERY); one question, no answers or authority,
	 * at most one additional record (EDNS). */
	if ((buf[2] & 0xf8) != 0 || get16(buf + 4) != 1 ||
	    get16(buf + 6) != 0 || get16(buf + 8) != 0 || get16(buf + 10) > 1)
		return -EINVAL;
	if (read_name(buf, len, &off, q->name, false, true) < 0 ||
	    off + 4 > len)
		return -EINVAL;
	q->id = get16(buf);
	q->rd = buf[2] & 0x01;
	q->type = get16(buf + off);
	q->qclass = get16(buf + off + 2);
	q->end = off + 4;
	return 0;
}

int
dns_query_build(const char *name, uint16_t type, uint16_t id, uint8_t *buf,
		size_t size)
{
	size_t n = strlen(name), off = DNS_HEADER_LEN;

	if (n == 0 || n > DNS_NAME_MAX || name[0] == '.' || name[n - 1] == '.')
		return -EINVAL;
	for (const char *l = name; *l;) {
		size_t ll = strcspn(l, ".");

		if (ll == 0 || ll > 63)
			return -EINVAL;
		for (size_t i = 0; i < ll; i++)
			if (!label_byte((uint8_t)l[i], true))
				return -EINVAL;
		l += ll + (l[ll] == '.');
	}
	if (size < DNS_HEADER_LEN + n + 2 + 4)
		return -ENOBUFS;
	memset(buf, 0, DNS_HEADER_LEN);
	put16(buf, id);
	buf[2] = 0x01; /* RD */
	put16(buf + 4, 1);
	for (const char *l = name; *l;) {
		size_t ll = strcspn(l, ".");

		buf[off++] = (uint8_t)ll;
		memcpy(buf + off, l, ll);
		off += ll;
		l += ll + (l[ll] == '.');
	}
	buf[off++] = 0;
	put16(buf + off, type);
	put16(buf + off + 2, DNS_CLASS_IN);
	return (int)(off + 4);
}

/* One resource record of the answer section, read at *off. */
struct rr {
	char owner[DNS_NAME_MAX + 1];
	uint16_t type, rclass;
	uint32_t ttl;
	size_t rdata, rdlen; /* offset and length of its data */
};

static int
read_rr(const uint8_t *buf, size_t len, size_t *off, struct rr *r)
{
	if (read_name(buf, len, off, r->owner, true, false) < 0 ||
	    *off + 10 > len)
		return -EINVAL;
	r->type = get16(buf + *off);
	r->rclass = get16(buf + *off + 2);
	r->ttl = get32(buf + *off + 4);
	if (r->ttl > INT32_MAX) /* RFC 2181 §8: as 0 */
		r->ttl = 0;
	r->rdlen = get16(buf + *off + 8);
	r->rdata = *off + 10;
	if (r->rdata + r->rdlen > len)
		return -EINVAL;
	*off = r->rdata + r->rdlen;
	return 0;
}

static uint32_t
min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

int
dns_answer_parse(const uint8_t *buf, size_t len, const struct dns_question *q,
		 struct dns_answer *a)
{
	char qname[DNS_NAME_MAX + 1];
	/* ttl[i]: the least TTL on the way to chain name i (0: q->name). */
	uint32_t ttl[DNS_CNAME_MAX + 1] = { UINT32_MAX };
	size_t off = DNS_HEADER_LEN, start;
	unsigned an;

	memset(a, 0, sizeof(*a));
	if (len < DNS_HEADER_LEN || get16(buf) != q->id ||
	    (buf[2] & 0xf8) != 0x80 || get16(buf + 4) != 1)
		return -ESRCH;
	if (read_name(buf, len, &off, qname, true, false) < 0 || off + 4 > len)
		return -EINVAL;
	if (strcmp(qname, q->name) != 0 || get16(buf + off) != q->type ||
	    get16(buf + off + 2) != q->qclass)
		return -ESRCH;
	off += 4;
	a->rcode = buf[3] & 0x0f;
	a->truncated = buf[2] & 0x02;
	an = get16(buf + 6);
	start = off;

	/* Every record read once, checking bounds; the chain followed
	 * from the question's name, one link a pass. */
	for (unsigned i = 0; i < an; i++) {
		struct rr r;

		if (read_rr(buf, len, &off, &r) < 0)
			return -EINVAL;
	}
	for (size_t link = 0; link < DNS_CNAME_MAX; link++) {
		const char *cur = link == 0 ? q->name : a->cnames[link - 1];
		bool found = false;

		off = start;
		for (unsigned i = 0; i < an && !found; i++) {
			struct rr r;
			size_t t;

			(void)read_rr(buf, len, &off, &r);
			if (r.type != DNS_TYPE_CNAME ||
			    r.rclass != DNS_CLASS_IN || strcmp(r.owner, cur))
				continue;
			t = r.rdata;
			if (read_name(buf, r.rdata + r.rdlen, &t,
				      a->cnames[link], true, false) < 0 ||
			    t != r.rdata + r.rdlen)
				return -EINVAL;
			ttl[link + 1] = min32(ttl[link], r.ttl);
			a->n_cnames++;
			found = true;
		}
		if (!found)
			break;
	}
	off = start;
	for (unsigned i = 0; i < an; i++) {
		struct rr r;
		struct dns_addr *d;
		size_t link;

		(void)read_rr(buf, len, &off, &r);
		if (r.type != q->type || r.rclass != DNS_CLASS_IN ||
		    (r.type != DNS_TYPE_A && r.type != DNS_TYPE_AAAA))
			continue;
		if (r.rdlen != (r.type == DNS_TYPE_A ? 4u : 16u))
			return -EINVAL;
		for (link = 0; link <= a->n_cnames; link++)
			if (strcmp(r.owner,
				   link == 0 ? q->name : a->cnames[link - 1]) ==
			    0)
				break;
		if (link > a->n_cnames || a->n == DNS_ANSWER_ADDRS)
			continue;
		d = &a->v[a->n++];
		memset(d, 0, sizeof(*d));
		d->ttl = min32(ttl[link], r.ttl);
		if (r.type == DNS_TYPE_AAAA &&
		    memcmp(buf + r.rdata, v4mapped, 12) != 0) {
			d->addr.family = AF_INET6;
			memcpy(d->addr.a, buf + r.rdata, 16);
		} else {
			d->addr.family = AF_INET;
			memcpy(d->addr.a, buf + r.rdata + r.rdlen - 4, 4);
		}
	}
	return 0;
}

int
dns_error_build(const struct dns_question *q, const uint8_t *question,
		size_t question_len, uint8_t rcode, uint8_t *out, size_t size)
{
	if (size < DNS_HEADER_LEN || size - DNS_HEADER_LEN < question_len)
		return -ENOBUFS;
	put16(out, q->id);
	memcpy(out + DNS_HEADER_LEN, question, question_len);
	out[2] = (uint8_t)(0x80 | (q->rd ? 0x01 : 0)); /* QR, opcode 0 */
	out[3] = (uint8_t)(0x80 | (rcode & 0x0f));     /* RA */
	put16(out + 4, 1);
	put16(out + 6, 0);
	put16(out + 8, 0);
	put16(out + 10, 0);
	return (int)(DNS_HEADER_LEN + question_len);
}

int
dns_answer_for_client(uint8_t *buf, size_t n, const struct dns_question *q,
		      const uint8_t *question, size_t question_len,
		      struct dns_answer *a)
{
	int r = dns_answer_parse(buf, n, q, a);

	if (r < 0)
		return r;
	/* The answer echoes q's question, of q->end - header bytes. */
	if (question_len != q->end - DNS_HEADER_LEN ||
	    n < DNS_HEADER_LEN + question_len)
		return -EINVAL;
	memcpy(buf + DNS_HEADER_LEN, question, question_len);
	return 0;
}
