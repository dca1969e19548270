/*
 * Unit tests for src/httpreq.c: the head of a request to llwrap's proxy,
 * CONNECT and absolute-form, from untrusted bytes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "httpreq.h"

static void
test_connect(void **state)
{
	static const struct {
		const char *in;
		int ret;
		const char *host;
		bool is_ip;
		uint16_t port;
	} t[] = {
		{ "CONNECT api.openai.com:443 HTTP/1.1\r\n"
		  "Host: api.openai.com:443\r\n\r\n",
		  0, "api.openai.com", false, 443 },
		{ "CONNECT API.OpenAI.com.:443 HTTP/1.0\r\n\r\n", 0,
		  "api.openai.com", false, 443 },
		{ "CONNECT 10.1.2.3:8443 HTTP/1.1\r\n\r\n", 0, "10.1.2.3", true,
		  8443 },
		{ "CONNECT [2001:db8::1]:443 HTTP/1.1\r\n\r\n", 0,
		  "2001:db8::1", true, 443 },
		{ "CONNECT [::ffff:127.0.0.1]:443 HTTP/1.1\r\n\r\n", 0,
		  "::ffff:127.0.0.1", true, 443 },
		{ "CONNECT my_host.example:22 HTTP/1.1\r\n"
		  "User-Agent: curl/8\r\nProxy-Connection: Keep-Alive\r\n\r\n",
		  0, "my_host.example", false, 22 },
		/* Incomplete: read more. */
		{ "CONNECT api.openai.com:443 HTTP/1.1\r\n", -EAGAIN, NULL,
		  false, 0 },
		{ "CONNECT api.openai.com:443 HTTP/1.1\r\n\r", -EAGAIN, NULL,
		  false, 0 },
		{ "", -EAGAIN, NULL, false, 0 },
		/* Malformed. */
		{ "CONNECT api.openai.com HTTP/1.1\r\n\r\n", -EINVAL, NULL,
		  false, 0 },
		{ "CONNECT api.openai.com:0 HTTP/1.1\r\n\r\n", -EINVAL, NULL,
		  false, 0 },
		{ "CONNECT api.openai.com:65536 HTTP/1.1\r\n\r\n", -EINVAL,
		  NULL, false, 0 },
		{ "CONNECT api.openai.com:-1 HTTP/1.1\r\n\r\n", -EINVAL, NULL,
		  false, 0 },
		{ "CONNECT api.openai.com:443x HTTP/1.1\r\n\r\n", -EINVAL, NULL,
		  false, 0 },
		{ "CONNECT 2001:db8::1:443 HTTP/1.1\r\n\r\n", -EINVAL, NULL,
		  false, 0 },
		{ "CONNECT [2001:db8::1:443 HTTP/1.1\r\n\r\n", -EINVAL, NULL,
		  false, 0 },
		{ "CONNECT [fe80::1%25eth0]:443 HTTP/1.1\r\n\r\n", -EINVAL,
		  NULL, false, 0 },
		{ "CONNECT [10.0.0.1]:443 HTTP/1.1\r\n\r\n", -EINVAL, NULL,
		  false, 0 },
		{ "CONNECT user@api.openai.com:443 HTTP/1.1\r\n\r\n", -EINVAL,
		  NULL, false, 0 },
		{ "CONNECT 0x7f.1:443 HTTP/1.1\r\n\r\n", -EINVAL, NULL, false,
		  0 },
		{ "CONNECT 127.1:443 HTTP/1.1\r\n\r\n", -EINVAL, NULL, false,
		  0 },
		{ "CONNECT 010.0.0.1:443 HTTP/1.1\r\n\r\n", -EINVAL, NULL,
		  false, 0 },
		{ "CONNECT a..b:443 HTTP/1.1\r\n\r\n", -EINVAL, NULL, false,
		  0 },
		{ "CONNECT .a:443 HTTP/1.1\r\n\r\n", -EINVAL, NULL, false, 0 },
		{ "CONNECT *.example.com:443 HTTP/1.1\r\n\r\n", -EINVAL, NULL,
		  false, 0 },
		{ "CONNECT :443 HTTP/1.1\r\n\r\n", -EINVAL, NULL, false, 0 },
		{ "CONNECT  api.openai.com:443 HTTP/1.1\r\n\r\n", -EINVAL, NULL,
		  false, 0 },
		{ "CONNECT api.openai.com:443 HTTP/2.0\r\n\r\n", -EINVAL, NULL,
		  false, 0 },
		{ "CONNECT api.openai.com:443 HTTP/1.1 \r\n\r\n", -EINVAL, NULL,
		  false, 0 },
		{ "CONNECT api.openai.com:443\r\n\r\n", -EINVAL, NULL, false,
		  0 },
		{ "CONNECT api.openai.com:443 HTTP/1.1\r\n"
		  " folded: header\r\n\r\n",
		  -EINVAL, NULL, false, 0 },
		{ "CONNECT api.openai.com:443 HTTP/1.1\r\nNoColon\r\n\r\n",
		  -EINVAL, NULL, false, 0 },
		{ "CONNECT api.openai.com:443 HTTP/1.1\r\nBad Name: x\r\n\r\n",
		  -EINVAL, NULL, false, 0 },
		{ "CONNECT api.openai.com:443 HTTP/1.1\r\nX: a\rb\r\n\r\n",
		  -EINVAL, NULL, false, 0 },
		{ "CONNECT api.openai.com:443 HTTP/1.1\nHost: x\n\n", -EAGAIN,
		  NULL, false, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct httpreq req;
		int r = httpreq_parse(t[i].in, strlen(t[i].in), &req);

		if (r != t[i].ret)
			fail_msg("%zu: '%s': %d, not %d", i, t[i].in, r,
				 t[i].ret);
		if (r != 0)
			continue;
		assert_int_equal(req.kind, HTTPREQ_CONNECT);
		assert_string_equal(req.host, t[i].host);
		assert_int_equal(req.is_ip, t[i].is_ip);
		assert_int_equal(req.port, t[i].port);
		assert_int_equal(req.head_len, strlen(t[i].in));
		assert_null(req.out);
		httpreq_clear(&req);
	}
}

/* The bytes after the head are not the head's: head_len stops at the
 * blank line, whatever the client sent after it. */
static void
test_connect_early_data(void **state)
{
	static const char in[] = "CONNECT a.example:443 HTTP/1.1\r\n\r\n"
				 "\x16\x03\x01\x00\x05hello";
	struct httpreq req;

	(void)state;
	assert_int_equal(httpreq_parse(in, sizeof(in) - 1, &req), 0);
	assert_int_equal(req.head_len, 34);
	httpreq_clear(&req);
}

static void
test_forward(void **state)
{
	static const struct {
		const char *in;
		int ret;
		const char *host;
		uint16_t port;
		const char *out;
	} t[] = {
		{ "GET http://example.com/a/b?c=d HTTP/1.1\r\n"
		  "Host: example.com\r\nUser-Agent: curl/8\r\n"
		  "Proxy-Connection: Keep-Alive\r\nAccept: */*\r\n\r\n",
		  0, "example.com", 80,
		  "GET /a/b?c=d HTTP/1.1\r\nHost: example.com\r\n"
		  "User-Agent: curl/8\r\nAccept: */*\r\n"
		  "Connection: close\r\n\r\n" },
		{ "POST http://Example.COM:8080 HTTP/1.0\r\n"
		  "Content-Length: 3\r\nConnection: keep-alive\r\n"
		  "Proxy-Authorization: Basic eDp5\r\n\r\nabc",
		  0, "example.com", 8080,
		  "POST / HTTP/1.0\r\nHost: example.com:8080\r\n"
		  "Content-Length: 3\r\nConnection: close\r\n\r\n" },
		{ "GET http://[::1]:81?x HTTP/1.1\r\n\r\n", 0, "::1", 81,
		  "GET /?x HTTP/1.1\r\nHost: [::1]:81\r\n"
		  "Connection: close\r\n\r\n" },
		{ "GET HTTP://a.example/ HTTP/1.1\r\nhost:  a.example:80 \r\n"
		  "\r\n",
		  0, "a.example", 80,
		  "GET / HTTP/1.1\r\nHost: a.example\r\n"
		  "Connection: close\r\n\r\n" },
		/* Host naming another host than the URL: fronting. */
		{ "GET http://a.example/ HTTP/1.1\r\nHost: b.example\r\n\r\n",
		  -EINVAL, NULL, 0, NULL },
		{ "GET http://a.example/ HTTP/1.1\r\nHost: "
		  "a.example:81\r\n\r\n",
		  -EINVAL, NULL, 0, NULL },
		{ "GET http://a.example/ HTTP/1.1\r\nHost: a.example\r\n"
		  "Host: a.example\r\n\r\n",
		  -EINVAL, NULL, 0, NULL },
		{ "GET http://a.example/#frag HTTP/1.1\r\n\r\n", -EINVAL, NULL,
		  0, NULL },
		{ "GET http://u:p@a.example/ HTTP/1.1\r\n\r\n", -EINVAL, NULL,
		  0, NULL },
		{ "GET http:///x HTTP/1.1\r\n\r\n", -EINVAL, NULL, 0, NULL },
		{ "GET https://a.example/ HTTP/1.1\r\n\r\n", -EPROTONOSUPPORT,
		  NULL, 0, NULL },
		{ "GET / HTTP/1.1\r\nHost: a.example\r\n\r\n", -EOPNOTSUPP,
		  NULL, 0, NULL },
		{ "OPTIONS * HTTP/1.1\r\n\r\n", -EOPNOTSUPP, NULL, 0, NULL },
		{ "GET ftp://a.example/ HTTP/1.1\r\n\r\n", -EINVAL, NULL, 0,
		  NULL },
		{ "G(T http://a.example/ HTTP/1.1\r\n\r\n", -EINVAL, NULL, 0,
		  NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct httpreq req;
		int r = httpreq_parse(t[i].in, strlen(t[i].in), &req);

		if (r != t[i].ret)
			fail_msg("%zu: '%s': %d, not %d", i, t[i].in, r,
				 t[i].ret);
		if (r != 0) {
			assert_null(req.out);
			continue;
		}
		assert_int_equal(req.kind, HTTPREQ_FORWARD);
		assert_string_equal(req.host, t[i].host);
		assert_int_equal(req.port, t[i].port);
		assert_non_null(req.out);
		assert_int_equal(req.out_len, strlen(t[i].out));
		assert_string_equal(req.out, t[i].out);
		httpreq_clear(&req);
	}
}

/* A head is at most LLW_HTTPREQ_MAX_HEAD bytes: -EAGAIN below it,
 * -E2BIG at it, also when the blank line comes later. */
static void
test_limits(void **state)
{
	size_t n = LLW_HTTPREQ_MAX_HEAD + 64;
	char *buf = malloc(n);
	struct httpreq req;
	const char *head = "CONNECT a.example:443 HTTP/1.1\r\nX: ";
	size_t hl = strlen(head);

	(void)state;
	memcpy(buf, head, hl);
	memset(buf + hl, 'a', n - hl);
	assert_int_equal(httpreq_parse(buf, LLW_HTTPREQ_MAX_HEAD - 1, &req),
			 -EAGAIN);
	assert_int_equal(httpreq_parse(buf, LLW_HTTPREQ_MAX_HEAD, &req),
			 -E2BIG);
	memcpy(buf + LLW_HTTPREQ_MAX_HEAD, "\r\n\r\n", 4);
	assert_int_equal(httpreq_parse(buf, n, &req), -E2BIG);
	/* Just fitting: the blank line ends at the limit. */
	memcpy(buf + LLW_HTTPREQ_MAX_HEAD - 4, "\r\n\r\n", 4);
	assert_int_equal(httpreq_parse(buf, n, &req), 0);
	assert_int_equal(req.head_len, LLW_HTTPREQ_MAX_HEAD);
	httpreq_clear(&req);
	/* A NUL in the head. */
	memcpy(buf, "CONNECT a.example:443 HTTP/1.1\r\nX: \0\r\n\r\n", 41);
	assert_int_equal(httpreq_parse(buf, 41, &req), -EINVAL);
	free(buf);

	assert_string_equal(httpreq_status(-E2BIG),
			    "431 Request Header Fields Too Large");
	assert_string_equal(httpreq_status(-EINVAL), "400 Bad Request");
	assert_string_equal(httpreq_status(-EOPNOTSUPP),
			    "405 Method Not Allowed");
}

static void
test_names(void **state)
{
	static const struct {
		const char *name;
		bool ok;
	} t[] = {
		{ "a", true },
		{ "a.", true },
		{ "xn--bcher-kva.example", true },
		{ "a-b_c.example", true },
		{ "1.example", true },
		{ "example.123", false },
		{ "123", false },
		{ "", false },
		{ ".", false },
		{ "a..b", false },
		{ "a.b..", false },
		{ "a b", false },
		{ "a/b", false },
		{ "*.a", false },
		{ "a:1", false },
	};
	char big[300];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (httpreq_name_valid(t[i].name, strlen(t[i].name)) != t[i].ok)
			fail_msg("'%s': not %s", t[i].name,
				 t[i].ok ? "valid" : "invalid");
	/* Labels of 63, names of 253. */
	memset(big, 'a', 64);
	assert_true(httpreq_name_valid(big, 63));
	assert_false(httpreq_name_valid(big, 64));
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = i % 50 == 49 ? '.' : 'a';
	assert_true(httpreq_name_valid(big, 253));
	assert_false(httpreq_name_valid(big, 254));
}

/* The longest name with its trailing dot is one byte longer than host
 * holds: nothing may be written past it (found by fuzz-httpreq, as a
 * one-byte stack overflow in the proxy's Host header check). */
static void
test_longest_name(void **state)
{
	char auth[300], head[700], host[LLW_HTTPREQ_MAX_HOST + 2];
	struct httpreq req;
	bool ip;
	uint16_t port;
	size_t n;

	(void)state;
	for (n = 0; n < LLW_HTTPREQ_MAX_HOST; n++)
		auth[n] = n % 50 == 49 ? '.' : 'A';
	memcpy(auth + n, ".:443", 6);
	memset(host, 'x', sizeof(host));
	assert_int_equal(
		httpreq_authority(auth, strlen(auth), host, &ip, &port, 0), 0);
	assert_int_equal(host[LLW_HTTPREQ_MAX_HOST + 1], 'x');
	assert_int_equal(strlen(host), LLW_HTTPREQ_MAX_HOST);
	assert_int_equal(host[0], 'a');
	assert_false(ip);
	assert_int_equal(port, 443);
	/* One more character is refused, dot or not. */
	memcpy(auth + n, "a.:443", 7);
	assert_int_equal(
		httpreq_authority(auth, strlen(auth), host, &ip, &port, 0),
		-EINVAL);
	assert_int_equal(host[LLW_HTTPREQ_MAX_HOST + 1], 'x');

	/* Through a forwarded request's Host header too. */
	memcpy(auth + n, ".", 2);
	snprintf(head, sizeof(head),
		 "GET http://%s/ HTTP/1.1\r\nHost: %s\r\n\r\n", auth, auth);
	assert_int_equal(httpreq_parse(head, strlen(head), &req), 0);
	assert_int_equal(strlen(req.host), LLW_HTTPREQ_MAX_HOST);
	httpreq_clear(&req);
	/* An IPv4 literal is still one. */
	assert_int_equal(
		httpreq_authority("127.0.0.1:80", 12, host, &ip, &port, 0), 0);
	assert_true(ip);
	assert_string_equal(host, "127.0.0.1");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connect),
		cmocka_unit_test(test_connect_early_data),
		cmocka_unit_test(test_forward),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_longest_name),
	};

	return cmocka_run_group_tests_name("httpreq", tests, NULL, NULL);
}
