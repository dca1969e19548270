/*
 * Unit tests for src/tlshello.c: the SNI of a ClientHello, through the
 * record layer, whole, fragmented across records and cut across reads;
 * and ClientHellos captured from Python's ssl and curl
 * (tests/data/tls/).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fdutil.h"
#include "tlshello.h"

struct buf {
	uint8_t b[70000];
	size_t n;
};

static void
put(struct buf *b, const void *p, size_t n)
{
	assert_true(b->n + n <= sizeof(b->b));
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void
put8(struct buf *b, unsigned v)
{
	uint8_t c = (uint8_t)v;

	put(b, &c, 1);
}

static void
put16(struct buf *b, unsigned v)
{
	put8(b, v >> 8);
	put8(b, v);
}

/* The server_name extension for names (NULL-terminated), type 0 each. */
static void
sni_ext(struct buf *b, const char *const *names)
{
	size_t list = 0;

	for (size_t i = 0; names[i]; i++)
		list += 3 + strlen(names[i]);
	put16(b, 0);
	put16(b, (unsigned)list + 2);
	put16(b, (unsigned)list);
	for (size_t i = 0; names[i]; i++) {
		put8(b, 0);
		put16(b, (unsigned)strlen(names[i]));
		put(b, names[i], strlen(names[i]));
	}
}

/* A ClientHello handshake message (header included) with exts. */
static void
hello(struct buf *h, const struct buf *exts)
{
	struct buf body = { .n = 0 };
	static const uint8_t random[32];

	put16(&body, 0x0303);
	put(&body, random, 32);
	put8(&body, 0);	 /* session id */
	put16(&body, 2); /* cipher suites */
	put16(&body, 0x1301);
	put8(&body, 1); /* compression */
	put8(&body, 0);
	if (exts) {
		put16(&body, (unsigned)exts->n);
		put(&body, exts->b, exts->n);
	}
	put8(h, 1);
	put8(h, (unsigned)(body.n >> 16));
	put16(h, (unsigned)body.n);
	put(h, body.b, body.n);
}

/* msg as handshake records of at most frag bytes each. */
static void
records(struct buf *out, const struct buf *msg, size_t frag)
{
	for (size_t off = 0; off < msg->n; off += frag) {
		size_t n = msg->n - off < frag ? msg->n - off : frag;

		put8(out, 22);
		put16(out, 0x0301);
		put16(out, (unsigned)n);
		put(out, msg->b + off, n);
	}
}

static void
expect(const struct buf *in, int ret, const char *sni)
{
	char *got = (char *)0x1;
	int r = tlshello_sni(in->b, in->n, &got);

	if (r != ret)
		fail_msg("%d, not %d", r, ret);
	if (sni == NULL)
		assert_null(got);
	else
		assert_string_equal(got, sni);
	free(got);
}

static void
test_names(void **state)
{
	static const struct {
		const char *what;
		const char *names[3];
		bool two_exts;
		int ret;
		const char *sni;
	} t[] = {
		{ "one name",
		  { "api.openai.com" },
		  false,
		  0,
		  "api.openai.com" },
		{ "upper case",
		  { "API.OpenAI.com" },
		  false,
		  0,
		  "api.openai.com" },
		{ "two host names",
		  { "a.example", "b.example" },
		  false,
		  -EINVAL,
		  NULL },
		{ "two extensions", { "a.example" }, true, -EINVAL, NULL },
		{ "trailing dot", { "a.example." }, false, -EINVAL, NULL },
		{ "not a name", { "a\x01.example" }, false, -EINVAL, NULL },
		{ "an address", { "127.0.0.1" }, false, -EINVAL, NULL },
		{ "empty", { "" }, false, -EINVAL, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct buf exts = { .n = 0 }, msg = { .n = 0 }, in = { .n = 0 };

		/* Another extension first: supported_versions. */
		put16(&exts, 43);
		put16(&exts, 3);
		put8(&exts, 2);
		put16(&exts, 0x0304);
		sni_ext(&exts, t[i].names);
		if (t[i].two_exts)
			sni_ext(&exts, t[i].names);
		hello(&msg, &exts);
		records(&in, &msg, 16384);
		print_message("# %s\n", t[i].what);
		expect(&in, t[i].ret, t[i].sni);
	}
}

static void
test_no_sni(void **state)
{
	struct buf exts = { .n = 0 }, msg = { .n = 0 }, in = { .n = 0 };

	(void)state;
	/* No extensions at all. */
	hello(&msg, NULL);
	records(&in, &msg, 16384);
	expect(&in, 0, NULL);
	/* Extensions without server_name. */
	put16(&exts, 43);
	put16(&exts, 3);
	put8(&exts, 2);
	put16(&exts, 0x0304);
	msg.n = in.n = 0;
	hello(&msg, &exts);
	records(&in, &msg, 16384);
	expect(&in, 0, NULL);
}

/* The hello in records of every size from 1 byte, and every prefix of
 * the stream: -EAGAIN until the last byte, then the name. */
static void
test_fragments(void **state)
{
	static const char *const names[] = { "registry.npmjs.org", NULL };
	struct buf exts = { .n = 0 }, msg = { .n = 0 };

	(void)state;
	sni_ext(&exts, names);
	hello(&msg, &exts);
	for (size_t frag = 1; frag <= msg.n; frag++) {
		struct buf in = { .n = 0 };

		records(&in, &msg, frag);
		for (size_t cut = 0; cut < in.n; cut++) {
			char *sni = NULL;

			if (tlshello_sni(in.b, cut, &sni) != -EAGAIN)
				fail_msg("frag %zu cut %zu: not -EAGAIN", frag,
					 cut);
			assert_null(sni);
		}
		expect(&in, 0, "registry.npmjs.org");
	}
}

static void
test_malformed(void **state)
{
	static const char *const names[] = { "a.example", NULL };
	struct buf exts = { .n = 0 }, msg = { .n = 0 }, in = { .n = 0 };
	static const uint8_t http[] = "GET / HTTP/1.1\r\n\r\n";

	(void)state;
	memcpy(in.b, http, sizeof(http) - 1);
	in.n = sizeof(http) - 1;
	expect(&in, -EPROTO, NULL);

	sni_ext(&exts, names);
	hello(&msg, &exts);

	/* A ServerHello (type 2), not a ClientHello. */
	msg.b[0] = 2;
	in.n = 0;
	records(&in, &msg, 16384);
	expect(&in, -EINVAL, NULL);
	msg.b[0] = 1;

	/* A second record of another type in the middle. */
	in.n = 0;
	records(&in, &msg, 20);
	in.b[25] = 23;
	expect(&in, -EINVAL, NULL);

	/* A record of length 0. */
	in.n = 0;
	put8(&in, 22);
	put16(&in, 0x0301);
	put16(&in, 0);
	expect(&in, -EINVAL, NULL);

	/* A handshake length beyond the limit. */
	in.n = 0;
	put8(&in, 22);
	put16(&in, 0x0301);
	put16(&in, 4);
	put8(&in, 1);
	put8(&in, 0x10);
	put16(&in, 1);
	expect(&in, -EINVAL, NULL);

	/* Bytes after the hello in its last record. */
	in.n = 0;
	msg.b[msg.n++] = 0;
	records(&in, &msg, 16384);
	expect(&in, -EINVAL, NULL);
	msg.n--;

	/* The extensions length one more than what is there. */
	in.n = 0;
	{
		size_t ext_len_at = 4 + 2 + 32 + 1 + 2 + 2 + 1 + 1;

		msg.b[ext_len_at + 1]++;
		records(&in, &msg, 16384);
		expect(&in, -EINVAL, NULL);
		msg.b[ext_len_at + 1]--;
	}

	/* Every truncation of the body, lengths kept consistent: a
	 * shorter handshake message, never a read past it. */
	for (size_t cut = 4; cut < msg.n; cut++) {
		struct buf m = msg;
		char *sni = NULL;
		int r;

		m.n = cut;
		m.b[1] = 0;
		m.b[2] = (uint8_t)((cut - 4) >> 8);
		m.b[3] = (uint8_t)(cut - 4);
		in.n = 0;
		records(&in, &m, 16384);
		r = tlshello_sni(in.b, in.n, &sni);
		assert_true(r == -EINVAL || (r == 0 && sni == NULL));
		free(sni);
	}
}

/* encrypted_client_hello (0xfe0d), or its draft (0xffce), before or
 * after the server_name: -EPERM, with the outer name; any other
 * unknown extension is not. */
static void
test_ech(void **state)
{
	static const unsigned types[] = { 0xfe0d, 0xffce };
	static const char *const outer[] = { "public.example", NULL };

	(void)state;
	for (size_t i = 0; i < 2; i++)
		for (int after = 0; after < 2; after++) {
			struct buf exts = { .n = 0 }, msg = { .n = 0 },
				   in = { .n = 0 };

			if (after)
				sni_ext(&exts, outer);
			put16(&exts, types[i]);
			put16(&exts, 3);
			put(&exts, "\x01\x02\x03", 3);
			if (!after)
				sni_ext(&exts, outer);
			hello(&msg, &exts);
			records(&in, &msg, 16384);
			expect(&in, -EPERM, "public.example");
			/* Cut short it still asks for more. */
			in.n--;
			expect(&in, -EAGAIN, NULL);
		}
	/* Without a server_name: -EPERM, no name. */
	{
		struct buf exts = { .n = 0 }, msg = { .n = 0 }, in = { .n = 0 };

		put16(&exts, 0xfe0d);
		put16(&exts, 0);
		hello(&msg, &exts);
		records(&in, &msg, 16384);
		expect(&in, -EPERM, NULL);
	}
	/* A neighbouring type is just an extension. */
	{
		struct buf exts = { .n = 0 }, msg = { .n = 0 }, in = { .n = 0 };

		put16(&exts, 0xfe0c);
		put16(&exts, 0);
		sni_ext(&exts, outer);
		hello(&msg, &exts);
		records(&in, &msg, 16384);
		expect(&in, 0, "public.example");
	}
}

static void
test_captured(void **state)
{
	static const struct {
		const char *file, *sni;
	} t[] = {
		{ "hello-python", "api.example.com" },
		{ "hello-curl", "registry.npmjs.org" },
		{ "hello-noname", NULL },
	};
	const char *data = getenv("LLW_DATA");

	(void)state;
	if (data == NULL)
		skip();
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char path[4096], *text = NULL, *sni = NULL;
		size_t len = 0;
		int fd;

		snprintf(path, sizeof(path), "%s/tls/%s", data, t[i].file);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		assert_int_equal(fd_read_all(fd, 1 << 20, &text, &len), 0);
		close(fd);
		assert_int_equal(tlshello_sni((uint8_t *)text, len, &sni), 0);
		if (t[i].sni == NULL)
			assert_null(sni);
		else
			assert_string_equal(sni, t[i].sni);
		free(sni);
		/* Cut short: read more. */
		assert_int_equal(tlshello_sni((uint8_t *)text, len - 1, &sni),
				 -EAGAIN);
		free(text);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_no_sni),
		cmocka_unit_test(test_fragments),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_ech),
		cmocka_unit_test(test_captured),
	};

	return cmocka_run_group_tests_name("tlshello", tests, NULL, NULL);
}
