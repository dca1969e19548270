/*
 * httpreq: the request a client sends to llwrap's HTTP proxy (DESIGN.md
 * §6.1), read from untrusted bytes.
 *
 * Two forms are understood, both as HTTP/1.0 or HTTP/1.1:
 *  - "CONNECT host:port HTTP/1.1" (authority-form), what every client
 *    sends for https:// through HTTPS_PROXY, and what git, pip, npm,
 *    cargo and go send for a TLS tunnel;
 *  - "GET http://host[:port]/path HTTP/1.1" (absolute-form), what a
 *    client sends through HTTP_PROXY for a plain http:// URL.  The proxy
 *    rewrites it for the origin server (origin-form, hop-by-hop headers
 *    dropped, "Connection: close") so the connection carries this one
 *    request: a second request on it could name another host.
 * Anything else (origin-form "GET /", "https://" in absolute-form,
 * userinfo, obsolete line folding, a head over LLW_HTTPREQ_MAX_HEAD) is
 * refused with the status httpreq_status() names.
 *
 * Pure: no system calls.
 */
#ifndef LLW_HTTPREQ_H
#define LLW_HTTPREQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The request line and headers together, through the blank line. */
#define LLW_HTTPREQ_MAX_HEAD 16384
/* A host name (RFC 1035: 253 characters without the trailing dot). */
#define LLW_HTTPREQ_MAX_HOST 253

enum httpreq_kind {
	HTTPREQ_CONNECT, /* a tunnel to host:port */
	HTTPREQ_FORWARD, /* one plain HTTP request, forwarded */
};

struct httpreq {
	enum httpreq_kind kind;
	/* A name in lower case without a trailing dot, or an IP literal
	 * (IPv6 without its brackets) when is_ip. */
	char host[LLW_HTTPREQ_MAX_HOST + 1];
	bool is_ip;
	uint16_t port;
	/* Bytes of the input the head took, through CRLFCRLF: what
	 * follows is the start of the body or of the tunnel's data. */
	size_t head_len;
	/* HTTPREQ_FORWARD: the head to send to the origin server
	 * (malloc'ed, out_len bytes); NULL for CONNECT. */
	char *out;
	size_t out_len;
};

/*
 * Read the head of a request from buf[0..len).  Returns 0 and fills req
 * (free req->out), -EAGAIN when the head is not complete yet (read more
 * and call again with everything read so far), -E2BIG when it is longer
 * than LLW_HTTPREQ_MAX_HEAD, -EINVAL when it is malformed (bad request
 * line, bad authority or header, a Host header that names another host
 * than the absolute-form URL), -EPROTONOSUPPORT for an "https://" URL,
 * -EOPNOTSUPP for any other form of request (a proxy is not a server).
 */
int httpreq_parse(const char *buf, size_t len, struct httpreq *req);

/*
 * Parse an authority "host:port" or "[v6]:port" (n bytes at s): the host
 * into host (LLW_HTTPREQ_MAX_HOST + 1 bytes) as struct httpreq keeps it,
 * *is_ip, and *port; without ":port", *port is default_port, and 0 means
 * the port is required.  A name is letters, digits, '-' and '_' in labels
 * of 1 to 63 characters whose last is not all digits (such a "name" is a
 * mistyped or disguised address: "0x7f.1").  Returns 0 or -EINVAL.
 */
int httpreq_authority(const char *s, size_t n, char *host, bool *is_ip,
		      uint16_t *port, uint16_t default_port);

/*
 * True when name (n bytes) is a host name as httpreq_authority accepts
 * one, trailing dot allowed; case is not looked at.
 */
bool httpreq_name_valid(const char *name, size_t n);

/* The status line for an httpreq_parse() error: "400 Bad Request", ... */
const char *httpreq_status(int err);

void httpreq_clear(struct httpreq *req);

#endif /* LLW_HTTPREQ_H */
