/*
 * httpreq: the head of a request to llwrap's HTTP proxy.  See httpreq.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "httpreq.h"
#include "xalloc.h"

static bool
is_tchar(unsigned char c)
{
	/* RFC 9110 token characters. */
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') ||
	       (c != 0 && strchr("!#$%&'*+-.^_`|~", c));
}

static bool
is_label_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_';
}

bool
httpreq_name_valid(const char *name, size_t n)
{
	size_t label = 0;
	bool digits = true;

	if (n > 0 && name[n - 1] == '.')
		n--;
	if (n == 0 || n > LLW_HTTPREQ_MAX_HOST)
		return false;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || name[i] == '.') {
			if (label == 0 || label > 63)
				return false;
			label = 0;
			if (i < n)
				digits = true;
			continue;
		}
		if (!is_label_char((unsigned char)name[i]))
			return false;
		if (name[i] < '0' || name[i] > '9')
			digits = false;
		label++;
	}
	/* The last label all digits: an address in disguise, not a name. */
	return !digits;
}

static int
parse_port(const char *s, size_t n, uint16_t *port)
{
	unsigned long v = 0;

	if (n == 0 || n > 5)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v == 0 || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

int
httpreq_authority(const char *s, size_t n, char *host, bool *is_ip,
		  uint16_t *port, uint16_t default_port)
{
	const char *h = s, *colon = NULL;
	size_t hn;
	unsigned char a[16];

	if (n == 0)
		return -EINVAL;
	if (s[0] == '[') {
		const char *end = memchr(s, ']', n);

		if (end == NULL)
			return -EINVAL;
		h = s + 1;
		hn = (size_t)(end - h);
		if (hn == 0 || hn > 45)
			return -EINVAL;
		memcpy(host, h, hn);
		host[hn] = '\0';
		if (inet_pton(AF_INET6, host, a) != 1)
			return -EINVAL;
		*is_ip = true;
		if (end + 1 < s + n) {
			if (end[1] != ':')
				return -EINVAL;
			colon = end + 1;
		}
	} else {
		char v4[INET_ADDRSTRLEN];

		colon = memchr(s, ':', n);
		hn = colon ? (size_t)(colon - s) : n;
		if (hn == 0 || memchr(s, '\0', hn) != NULL)
			return -EINVAL;
		if (hn < sizeof(v4)) {
			memcpy(v4, s, hn);
			v4[hn] = '\0';
		}
		if (hn < sizeof(v4) && inet_pton(AF_INET, v4, a) == 1) {
			memcpy(host, v4, hn + 1);
			*is_ip = true;
		} else {
			/* Checked before it is copied: with its trailing
			 * dot a name is one byte longer than host holds. */
			if (!httpreq_name_valid(s, hn))
				return -EINVAL;
			if (s[hn - 1] == '.')
				hn--;
			for (size_t i = 0; i < hn; i++)
				host[i] = s[i] >= 'A' && s[i] <= 'Z'
						  ? (char)(s[i] - 'A' + 'a')
						  : s[i];
			host[hn] = '\0';
			*is_ip = false;
		}
	}
	if (colon == NULL) {
		if (default_port == 0)
			return -EINVAL;
		*port = default_port;
		return 0;
	}
	return parse_port(colon + 1, (size_t)(s + n - colon - 1), port);
}

void
httpreq_clear(struct httpreq *req)
{
	free(req->out);
	memset(req, 0, sizeof(*req));
}

const char *
httpreq_status(int err)
{
	switch (err) {
	case -E2BIG:
		return "431 Request Header Fields Too Large";
	case -EOPNOTSUPP:
		return "405 Method Not Allowed";
	case -EPROTONOSUPPORT:
		return "501 Not Implemented";
	default:
		return "400 Bad Request";
	}
}

/* The end of the head (the index after CRLFCRLF), or 0. */
static size_t
head_end(const char *buf, size_t len)
{
	for (size_t i = 3; i < len; i++)
		if (buf[i] == '\n' && buf[i - 1] == '\r' &&
		    buf[i - 2] == '\n' && buf[i - 3] == '\r')
			return i + 1;
	return 0;
}

/* Hop-by-hop headers, and those meant for the proxy: never forwarded. */
static bool
hop_by_hop(const char *name, size_t n)
{
	static const char *const names[] = {
		"connection",
		"keep-alive",
		"proxy-connection",
		"te",
		"trailer",
		"upgrade",
		"host",
		"proxy-authorization",
		"proxy-authenticate",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n &&
		    strncasecmp(name, names[i], n) == 0)
			return true;
	return false;
}

struct out {
	char *p;
	size_t n, size;
};

static void
out_add(struct out *o, const char *s, size_t n)
{
	if (o->n + n + 1 > o->size) {
		o->size = (o->n + n + 1) * 2;
		o->p = xreallocarray(o->p, o->size, 1);
	}
	memcpy(o->p + o->n, s, n);
	o->n += n;
	o->p[o->n] = '\0';
}

static void
out_str(struct out *o, const char *s)
{
	out_add(o, s, strlen(s));
}

/* The absolute-form target of a FORWARD request: the authority into req,
 * the origin-form path into *path (path_n bytes). */
static int
parse_url(const char *t, size_t n, struct httpreq *req, const char **path,
	  size_t *path_n)
{
	const char *auth, *end;
	int r;

	if (n >= 8 && strncasecmp(t, "https://", 8) == 0)
		return -EPROTONOSUPPORT;
	if (n < 7 || strncasecmp(t, "http://", 7) != 0)
		return t[0] == '/' || (n == 1 && t[0] == '*') ? -EOPNOTSUPP
							      : -EINVAL;
	auth = t + 7;
	end = auth;
	while (end < t + n && *end != '/' && *end != '?' && *end != '#')
		end++;
	if (memchr(t, '#', n) != NULL)
		return -EINVAL;
	r = httpreq_authority(auth, (size_t)(end - auth), req->host,
			      &req->is_ip, &req->port, 80);
	if (r < 0)
		return r;
	*path = end;
	*path_n = (size_t)(t + n - end);
	return 0;
}

int
httpreq_parse(const char *buf, size_t len, struct httpreq *req)
{
	size_t end = head_end(
		buf, len < LLW_HTTPREQ_MAX_HEAD ? len : LLW_HTTPREQ_MAX_HEAD);
	const char *line, *eol, *sp1, *sp2, *path = NULL;
	size_t path_n = 0;
	struct out o = { 0 };
	bool host_seen = false;
	int r;

	memset(req, 0, sizeof(*req));
	if (end == 0)
		return len >= LLW_HTTPREQ_MAX_HEAD ? -E2BIG : -EAGAIN;
	if (memchr(buf, '\0', end) != NULL)
		return -EINVAL;

	/* The request line: METHOD SP TARGET SP HTTP/1.x */
	eol = memmem(buf, end, "\r\n", 2);
	sp1 = memchr(buf, ' ', (size_t)(eol - buf));
	if (sp1 == NULL || sp1 == buf)
		return -EINVAL;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1));
	if (sp2 == NULL || sp2 == sp1 + 1 || eol - sp2 - 1 != 8 ||
	    (strncmp(sp2 + 1, "HTTP/1.1", 8) != 0 &&
	     strncmp(sp2 + 1, "HTTP/1.0", 8) != 0))
		return -EINVAL;
	for (const char *c = buf; c < sp1; c++)
		if (!is_tchar((unsigned char)*c))
			return -EINVAL;
	for (const char *c = sp1 + 1; c < sp2; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return -EINVAL;

	if (sp1 - buf == 7 && strncmp(buf, "CONNECT", 7) == 0) {
		req->kind = HTTPREQ_CONNECT;
		r = httpreq_authority(sp1 + 1, (size_t)(sp2 - sp1 - 1),
				      req->host, &req->is_ip, &req->port, 0);
	} else {
		req->kind = HTTPREQ_FORWARD;
		r = parse_url(sp1 + 1, (size_t)(sp2 - sp1 - 1), req, &path,
			      &path_n);
	}
	if (r < 0)
		goto fail;

	if (req->kind == HTTPREQ_FORWARD) {
		char hostline[LLW_HTTPREQ_MAX_HOST + 32];

		out_add(&o, buf, (size_t)(sp1 - buf + 1));
		if (path_n == 0 || path[0] == '?')
			out_str(&o, "/");
		out_add(&o, path, path_n);
		out_add(&o, sp2, 9);
		out_str(&o, "\r\n");
		snprintf(hostline, sizeof(hostline), "Host: %s%s%s",
			 req->is_ip && strchr(req->host, ':') ? "[" : "",
			 req->host,
			 req->is_ip && strchr(req->host, ':') ? "]" : "");
		out_str(&o, hostline);
		if (req->port != 80) {
			snprintf(hostline, sizeof(hostline), ":%u", req->port);
			out_str(&o, hostline);
		}
		out_str(&o, "\r\n");
	}

	/* The headers, up to the blank line. */
	for (line = eol + 2; line < buf + end - 2; line = eol + 2) {
		const char *colon;

		eol = memmem(line, (size_t)(buf + end - line), "\r\n", 2);
		if (line[0] == ' ' || line[0] == '\t') {
			r = -EINVAL; /* obsolete line folding */
			goto fail;
		}
		colon = memchr(line, ':', (size_t)(eol - line));
		if (colon == NULL || colon == line) {
			r = -EINVAL;
			goto fail;
		}
		for (const char *c = line; c < colon; c++)
			if (!is_tchar((unsigned char)*c)) {
				r = -EINVAL;
				goto fail;
			}
		for (const char *c = colon + 1; c < eol; c++)
			if (*c == '\r' || *c == '\n') {
				r = -EINVAL;
				goto fail;
			}
		if (req->kind != HTTPREQ_FORWARD)
			continue;
		if (colon - line == 4 && strncasecmp(line, "host", 4) == 0) {
			const char *v = colon + 1, *ve = eol;
			char h[LLW_HTTPREQ_MAX_HOST + 1];
			bool ip;
			uint16_t port;

			while (v < ve && (*v == ' ' || *v == '\t'))
				v++;
			while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
				ve--;
			/* The URL decides where the request goes; a Host
			 * that names another host is fronting. */
			if (host_seen ||
			    httpreq_authority(v, (size_t)(ve - v), h, &ip,
					      &port, 80) < 0 ||
			    strcmp(h, req->host) != 0 || port != req->port) {
				r = -EINVAL;
				goto fail;
			}
			host_seen = true;
		}
		if (hop_by_hop(line, (size_t)(colon - line)))
			continue;
		out_add(&o, line, (size_t)(eol - line + 2));
	}
	if (req->kind == HTTPREQ_FORWARD) {
		out_str(&o, "Connection: close\r\n\r\n");
		req->out = o.p;
		req->out_len = o.n;
	}
	req->head_len = end;
	return 0;
fail:
	free(o.p);
	memset(req, 0, sizeof(*req));
	return r;
}
