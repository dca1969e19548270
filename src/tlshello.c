/*
 * tlshello: the SNI of a TLS ClientHello.  See tlshello.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "httpreq.h"
#include "tlshello.h"
#include "xalloc.h"

#define TLS_HANDSHAKE	      22
#define TLS_CLIENT_HELLO      1
#define TLS_EXT_SERVER_NAME   0
#define TLS_EXT_ECH	      0xfe0d /* encrypted_client_hello (RFC 9849) */
#define TLS_EXT_ESNI	      0xffce /* its draft, encrypted_server_name */
#define TLS_NAME_HOST	      0
#define TLS_MAX_RECORD	      (16384 + 2048) /* TLSCiphertext's limit */
#define TLS_HANDSHAKE_HDR_LEN 4

/* A bounded reader over the handshake body. */
struct rd {
	const uint8_t *p;
	size_t n;
};

static bool
rd_u8(struct rd *r, unsigned *v)
{
	if (r->n < 1)
		return false;
	*v = r->p[0];
	r->p++;
	r->n--;
	return true;
}

static bool
rd_u16(struct rd *r, unsigned *v)
{
	if (r->n < 2)
		return false;
	*v = (unsigned)r->p[0] << 8 | r->p[1];
	r->p += 2;
	r->n -= 2;
	return true;
}

/* A sub-reader of n bytes. */
static bool
rd_sub(struct rd *r, size_t n, struct rd *sub)
{
	if (r->n < n)
		return false;
	sub->p = r->p;
	sub->n = n;
	r->p += n;
	r->n -= n;
	return true;
}

/* The server_name extension's body: exactly one host_name. */
static int
server_name(struct rd ext, char **sni)
{
	struct rd list, name;
	unsigned list_len, type, name_len;

	if (!rd_u16(&ext, &list_len) || list_len != ext.n || list_len == 0)
		return -EINVAL;
	list = ext;
	while (list.n > 0) {
		if (!rd_u8(&list, &type) || !rd_u16(&list, &name_len) ||
		    !rd_sub(&list, name_len, &name))
			return -EINVAL;
		if (type != TLS_NAME_HOST)
			continue;
		/* RFC 6066: one name per type; no trailing dot. */
		if (*sni != NULL || name.n == 0 || name.p[name.n - 1] == '.' ||
		    !httpreq_name_valid((const char *)name.p, name.n))
			return -EINVAL;
		*sni = xmalloc(name.n + 1);
		for (size_t i = 0; i < name.n; i++) {
			char c = (char)name.p[i];

			(*sni)[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a')
							 : c;
		}
		(*sni)[name.n] = '\0';
	}
	return 0;
}

/* The ClientHello body (RFC 8446 §4.1.2). */
static int
client_hello(struct rd h, char **sni)
{
	struct rd skip, exts;
	unsigned n, ext_type, ext_len;
	bool seen = false, ech = false;

	if (!rd_u16(&h, &n) || !rd_sub(&h, 32, &skip)) /* version, random */
		return -EINVAL;
	if (!rd_u8(&h, &n) || n > 32 || !rd_sub(&h, n, &skip)) /* session */
		return -EINVAL;
	if (!rd_u16(&h, &n) || n < 2 || n % 2 || !rd_sub(&h, n, &skip))
		return -EINVAL; /* cipher suites */
	if (!rd_u8(&h, &n) || n < 1 || !rd_sub(&h, n, &skip))
		return -EINVAL; /* compression methods */
	if (h.n == 0)
		return 0; /* no extensions at all (SSL 3.0 style) */
	if (!rd_u16(&h, &n) || n != h.n)
		return -EINVAL;
	exts = h;
	while (exts.n > 0) {
		struct rd ext;
		int r;

		if (!rd_u16(&exts, &ext_type) || !rd_u16(&exts, &ext_len) ||
		    !rd_sub(&exts, ext_len, &ext))
			return -EINVAL;
		if (ext_type == TLS_EXT_ECH || ext_type == TLS_EXT_ESNI)
			ech = true;
		if (ext_type != TLS_EXT_SERVER_NAME)
			continue;
		if (seen)
			return -EINVAL;
		seen = true;
		r = server_name(ext, sni);
		if (r < 0)
			return r;
	}
	return ech ? -EPERM : 0;
}

int
tlshello_sni(const uint8_t *buf, size_t len, char **sni)
{
	_cleanup_free_ uint8_t *msg = NULL;
	size_t have = 0, want = 0, off = 0;
	char *name = NULL;
	int r;

	*sni = NULL;
	if (len == 0)
		return -EAGAIN;
	if (buf[0] != TLS_HANDSHAKE)
		return -EPROTO;
	/* Gather the handshake message from the records' fragments. */
	for (;;) {
		size_t rec_len, take;

		if (len - off < 5)
			return -EAGAIN;
		if (buf[off] != TLS_HANDSHAKE || buf[off + 1] != 3)
			return off == 0 ? -EPROTO : -EINVAL;
		rec_len = (size_t)buf[off + 3] << 8 | buf[off + 4];
		if (rec_len == 0 || rec_len > TLS_MAX_RECORD)
			return -EINVAL;
		if (len - off - 5 < rec_len)
			return -EAGAIN;
		off += 5;
		/* The handshake header itself may be split across
		 * records: the fragments are joined in msg first. */
		if (msg == NULL)
			msg = xmalloc(TLS_HANDSHAKE_HDR_LEN + LLW_TLSHELLO_MAX);
		take = rec_len;
		if (want != 0 && take > want - have)
			return -EINVAL; /* bytes after the hello */
		if (have + take > TLS_HANDSHAKE_HDR_LEN + LLW_TLSHELLO_MAX)
			return -EINVAL;
		memcpy(msg + have, buf + off, take);
		have += take;
		off += rec_len;
		if (want == 0 && have >= TLS_HANDSHAKE_HDR_LEN) {
			size_t body = (size_t)msg[1] << 16 |
				      (size_t)msg[2] << 8 | msg[3];

			if (msg[0] != TLS_CLIENT_HELLO ||
			    body > LLW_TLSHELLO_MAX)
				return -EINVAL;
			want = TLS_HANDSHAKE_HDR_LEN + body;
			if (have > want)
				return -EINVAL;
		}
		if (want != 0 && have == want)
			break;
	}
	r = client_hello((struct rd){ msg + TLS_HANDSHAKE_HDR_LEN,
				      want - TLS_HANDSHAKE_HDR_LEN },
			 &name);
	if (r < 0 && r != -EPERM) {
		free(name);
		return r;
	}
	*sni = name;
	return r;
}
