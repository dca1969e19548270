/*
 * Unit tests of src/relaycheck.c (relay_decide): the name a
 * connection's first bytes carry against the allow-host entries its
 * address was learned under.  TLS: the ClientHello's server name; none,
 * or an encrypted ClientHello, refused.  HTTP/1: one Host in origin
 * form, rewritten with "Connection: close".  Anything else refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "relaycheck.h"

static const struct hostrule rules[] = {
	{ "api.example.com", false, NULL, 0, "a.ini:1" },
	{ "cdn.example", true, NULL, 0, "a.ini:2" },
	{ "other.example", false, NULL, 0, "a.ini:3" },
};
/* The address was learned under entries 0 and 1, not 2. */
static const uint16_t learned[] = { 0, 1 };

static int
decide(const char *text, size_t len, bool full, char **name, bool *http,
       char **out, size_t *out_len, size_t *head_len)
{
	return relay_decide((const uint8_t *)text, len, full, rules, 3, learned,
			    2, name, http, out, out_len, head_len);
}

/* A ClientHello record naming name (NULL: no server_name), with an
 * extension of type extra when it is not 0. */
static size_t
hello(uint8_t *b, const char *name, unsigned extra)
{
	uint8_t ext[512], body[1024];
	size_t e = 0, n = 0, len = name ? strlen(name) : 0;

	if (name) {
		ext[e++] = 0, ext[e++] = 0;
		ext[e++] = (uint8_t)((len + 5) >> 8),
		ext[e++] = (uint8_t)(len + 5);
		ext[e++] = (uint8_t)((len + 3) >> 8),
		ext[e++] = (uint8_t)(len + 3);
		ext[e++] = 0;
		ext[e++] = (uint8_t)(len >> 8), ext[e++] = (uint8_t)len;
		memcpy(ext + e, name, len);
		e += len;
	}
	if (extra) {
		ext[e++] = (uint8_t)(extra >> 8), ext[e++] = (uint8_t)extra;
		ext[e++] = 0, ext[e++] = 1, ext[e++] = 0;
	}
	body[n++] = 3, body[n++] = 3;
	memset(body + n, 0, 32);
	n += 32;
	body[n++] = 0;
	body[n++] = 0, body[n++] = 2, body[n++] = 0x13, body[n++] = 1;
	body[n++] = 1, body[n++] = 0;
	body[n++] = (uint8_t)(e >> 8), body[n++] = (uint8_t)e;
	memcpy(body + n, ext, e);
	n += e;
	b[0] = 22, b[1] = 3, b[2] = 1;
	b[3] = (uint8_t)((n + 4) >> 8), b[4] = (uint8_t)(n + 4);
	b[5] = 1, b[6] = 0, b[7] = (uint8_t)(n >> 8), b[8] = (uint8_t)n;
	memcpy(b + 9, body, n);
	return n + 9;
}

static void
test_tls(void **state)
{
	static const struct {
		const char *name;
		unsigned extra;
		int want;
	} t[] = {
		{ "api.example.com", 0, REFUSAL_NONE },
		{ "API.Example.COM", 0, REFUSAL_NONE },
		{ "x.cdn.example", 0, REFUSAL_NONE },
		{ "a.b.cdn.example", 0, REFUSAL_SERVER_NAME },
		{ "cdn.example", 0, REFUSAL_SERVER_NAME },
		/* Allowed by the policy, but not learned at this address. */
		{ "other.example", 0, REFUSAL_SERVER_NAME },
		{ "evil.test", 0, REFUSAL_SERVER_NAME },
		{ NULL, 0, REFUSAL_NO_NAME },
		{ "api.example.com", 0xfe0d, REFUSAL_ECH },
		{ "api.example.com", 0xffce, REFUSAL_ECH },
		{ "api.example.com", 0x0017, REFUSAL_NONE },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t b[2048];
		size_t len = hello(b, t[i].name, t[i].extra);
		char *name, *out;
		size_t out_len, head_len;
		bool http;

		assert_int_equal(decide((char *)b, len, false, &name, &http,
					&out, &out_len, &head_len),
				 t[i].want);
		assert_false(http);
		free(name);
		/* Cut short: more, or when nothing more comes, refused. */
		assert_int_equal(decide((char *)b, len - 1, false, &name, &http,
					&out, &out_len, &head_len),
				 -EAGAIN);
		assert_int_equal(decide((char *)b, len - 1, true, &name, &http,
					&out, &out_len, &head_len),
				 REFUSAL_NO_NAME);
		free(name);
	}
}

static void
test_http(void **state)
{
	static const struct {
		const char *req;
		int want;
		const char *head; /* the rewritten head */
	} t[] = {
		{ "GET / HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
		  REFUSAL_NONE,
		  "GET / HTTP/1.1\r\nHost: api.example.com\r\nConnection: "
		  "close\r\n\r\n" },
		{ "POST /x?y HTTP/1.0\r\nhost:  API.example.com:8080 \r\n"
		  "Connection: keep-alive\r\nKeep-Alive: 5\r\nA: b\r\n\r\nBODY",
		  REFUSAL_NONE,
		  "POST /x?y HTTP/1.0\r\nhost:  API.example.com:8080 \r\nA: "
		  "b\r\nConnection: close\r\n\r\n" },
		{ "GET / HTTP/1.1\r\nHost: y.cdn.example\r\n\r\n", REFUSAL_NONE,
		  NULL },
		{ "GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n",
		  REFUSAL_SERVER_NAME, NULL },
		{ "GET / HTTP/1.1\r\nHost: other.example\r\n\r\n",
		  REFUSAL_SERVER_NAME, NULL },
		/* Two Hosts; none; folding; an absolute target; a port
		 * that is not one; HTTP/2's preface; a bare LF. */
		{ "GET / HTTP/1.1\r\nHost: api.example.com\r\nHost: "
		  "evil.test\r\n\r\n",
		  REFUSAL_NO_NAME, NULL },
		{ "GET / HTTP/1.1\r\nA: b\r\n\r\n", REFUSAL_NO_NAME, NULL },
		{ "GET / HTTP/1.1\r\nHost: api.example.com\r\n x\r\n\r\n",
		  REFUSAL_NO_NAME, NULL },
		{ "GET http://evil.test/ HTTP/1.1\r\nHost: "
		  "api.example.com\r\n\r\n",
		  REFUSAL_NO_NAME, NULL },
		{ "GET / HTTP/1.1\r\nHost: api.example.com:x\r\n\r\n",
		  REFUSAL_NO_NAME, NULL },
		{ "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", REFUSAL_NO_NAME, NULL },
		{ "GET / HTTP/1.1\nHost: api.example.com\r\n\r\n",
		  REFUSAL_NO_NAME, NULL },
		{ "get / HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
		  REFUSAL_NO_NAME, NULL },
		{ "SSH-2.0-OpenSSH_9.2\r\n", REFUSAL_NO_NAME, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *name, *out;
		size_t out_len, head_len, len = strlen(t[i].req);
		bool http;
		int r = decide(t[i].req, len, true, &name, &http, &out,
			       &out_len, &head_len);

		if (r != t[i].want)
			fail_msg("%zu: %d, not %d", i, r, t[i].want);
		if (t[i].head != NULL) {
			assert_int_equal(out_len, strlen(t[i].head));
			assert_memory_equal(out, t[i].head, out_len);
			assert_int_equal(head_len,
					 (size_t)(strstr(t[i].req, "\r\n\r\n") -
						  t[i].req) +
						 4);
		}
		free(name);
		free(out);
	}
	/* A head cut short asks for more, until the buffer is full. */
	{
		char *name, *out;
		size_t out_len, head_len;
		bool http;

		assert_int_equal(decide("GET / HTTP/1.1\r\nHost: api", 26,
					false, &name, &http, &out, &out_len,
					&head_len),
				 -EAGAIN);
		assert_true(http);
		assert_int_equal(decide("", 0, false, &name, &http, &out,
					&out_len, &head_len),
				 -EAGAIN);
		assert_int_equal(decide("", 0, true, &name, &http, &out,
					&out_len, &head_len),
				 REFUSAL_NO_NAME);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tls),
		cmocka_unit_test(test_http),
	};

	return cmocka_run_group_tests_name("relay", tests, NULL, NULL);
}
