/*
 * sha: SHA-1 and SHA-256 against the FIPS 180 examples (RFC 3174,
 * RFC 6234: "abc", the 448-bit message, a million 'a's, and the empty
 * message), fed whole and in uneven pieces, and git's blob ids (what
 * `git hash-object` prints for the same bytes).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sha.h"

static void
hex(const unsigned char *d, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* The digest of n bytes of m, fed in pieces of step bytes (0: whole). */
static void
digest(size_t len, const void *m, size_t n, size_t step, char *out)
{
	unsigned char d[SHA256_LEN];
	struct sha s;

	sha_init(&s, len);
	for (size_t at = 0; step > 0 && at < n; at += step)
		sha_update(&s, (const char *)m + at,
			   n - at < step ? n - at : step);
	if (step == 0)
		sha_update(&s, m, n);
	sha_final(&s, d);
	hex(d, len, out);
}

static const struct {
	const char *m;
	const char *sha1, *sha256;
} vectors[] = {
	{ "abc", "a9993e364706816aba3e25717850c26c9cd0d89d",
	  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
	{ "", "da39a3ee5e6b4b0d3255bfef95601890afd80709",
	  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
	{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	  "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
	  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
};

static void
test_fips(void **state)
{
	char out[2 * SHA256_LEN + 1];
	static const size_t steps[] = { 0, 1, 3, 63, 64, 65 };

	(void)state;
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++)
		for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
			size_t n = strlen(vectors[i].m);

			digest(SHA1_LEN, vectors[i].m, n, steps[k], out);
			assert_string_equal(out, vectors[i].sha1);
			digest(SHA256_LEN, vectors[i].m, n, steps[k], out);
			assert_string_equal(out, vectors[i].sha256);
		}
}

static void
test_million(void **state)
{
	char out[2 * SHA256_LEN + 1];
	char *m = malloc(1000000);

	(void)state;
	assert_non_null(m);
	memset(m, 'a', 1000000);
	digest(SHA1_LEN, m, 1000000, 0, out);
	assert_string_equal(out, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
	digest(SHA256_LEN, m, 1000000, 4093, out);
	assert_string_equal(out, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a4972"
				 "00e046d39ccc7112cd0");
	free(m);
}

/* Every length around the padding's edges (55, 56, 63, 64 bytes):
 * whole and byte by byte agree. */
static void
test_edges(void **state)
{
	char a[2 * SHA256_LEN + 1], b[2 * SHA256_LEN + 1];
	unsigned char m[200];

	(void)state;
	for (size_t i = 0; i < sizeof(m); i++)
		m[i] = (unsigned char)(i * 7 + 1);
	for (size_t n = 0; n <= sizeof(m); n++) {
		digest(SHA1_LEN, m, n, 0, a);
		digest(SHA1_LEN, m, n, 1, b);
		assert_string_equal(a, b);
		digest(SHA256_LEN, m, n, 0, a);
		digest(SHA256_LEN, m, n, 7, b);
		assert_string_equal(a, b);
	}
}

/* git's blob ids: "blob LEN\0" and the bytes. */
static void
test_git_blob(void **state)
{
	char out[2 * SHA256_LEN + 1];

	(void)state;
	digest(SHA1_LEN, "blob 0", 7, 0, out);
	assert_string_equal(out, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
	digest(SHA1_LEN, "blob 6\0hello\n", 13, 0, out);
	assert_string_equal(out, "ce013625030ba8dba906f756967f9e9ca394464a");
	digest(SHA256_LEN, "blob 6\0hello\n", 13, 0, out);
	assert_string_equal(out, "2cf8d83d9ee29543b34a87727421fdecb7e3f3a183d33"
				 "7639025de576db9ebb4");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fips),
		cmocka_unit_test(test_million),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_git_blob),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
