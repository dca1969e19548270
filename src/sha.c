/*
 * SHA-1 and SHA-256 (sha.h), straight from FIPS 180-4: one 64-byte
 * block compressed at a time, big-endian words, the same padding.
 */
#include <string.h>

#include "sha.h"

static uint32_t
rol(uint32_t x, int n)
{
	return x << n | x >> (32 - n);
}

static uint32_t
ror(uint32_t x, int n)
{
	return x >> n | x << (32 - n);
}

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void
sha1_block(uint32_t *h, const unsigned char *p)
{
	uint32_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];

	for (int t = 0; t < 16; t++)
		w[t] = be32(p + 4 * t);
	for (int t = 16; t < 80; t++)
		w[t] = rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
		/* The four stages, each its own loop (no branch in a round). */
#define SHA1_ROUNDS(from, to, f, k)                                            \
	for (int t = (from); t < (to); t++) {                                  \
		uint32_t tmp = rol(a, 5) + (f) + e + (k) + w[t];               \
		e = d;                                                         \
		d = c;                                                         \
		c = rol(b, 30);                                                \
		b = a;                                                         \
		a = tmp;                                                       \
	}
	SHA1_ROUNDS(0, 20, (b & c) | (~b & d), 0x5a827999)
	SHA1_ROUNDS(20, 40, b ^ c ^ d, 0x6ed9eba1)
	SHA1_ROUNDS(40, 60, (b & c) | (b & d) | (c & d), 0x8f1bbcdc)
	SHA1_ROUNDS(60, 80, b ^ c ^ d, 0xca62c1d6)
#undef SHA1_ROUNDS
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
}

static const uint32_t k256[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static void
sha256_block(uint32_t *h, const unsigned char *p)
{
	uint32_t w[64], v[8];

	for (int t = 0; t < 16; t++)
		w[t] = be32(p + 4 * t);
	for (int t = 16; t < 64; t++) {
		uint32_t s0 = ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^
			      (w[t - 15] >> 3);
		uint32_t s1 = ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^
			      (w[t - 2] >> 10);

		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	memcpy(v, h, sizeof(v));
	for (int t = 0; t < 64; t++) {
		uint32_t s1 = ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25);
		uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
		uint32_t t1 = v[7] + s1 + ch + k256[t] + w[t];
		uint32_t s0 = ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22);
		uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);

		v[7] = v[6];
		v[6] = v[5];
		v[5] = v[4];
		v[4] = v[3] + t1;
		v[3] = v[2];
		v[2] = v[1];
		v[1] = v[0];
		v[0] = t1 + s0 + maj;
	}
	for (int i = 0; i < 8; i++)
		h[i] += v[i];
}

void
sha_init(struct sha *s, size_t len)
{
	static const uint32_t h1[5] = { 0x67452301, 0xefcdab89, 0x98badcfe,
					0x10325476, 0xc3d2e1f0 };
	static const uint32_t h256[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372,
					  0xa54ff53a, 0x510e527f, 0x9b05688c,
					  0x1f83d9ab, 0x5be0cd19 };

	memset(s, 0, sizeof(*s));
	s->len = len == SHA256_LEN ? SHA256_LEN : SHA1_LEN;
	if (s->len == SHA256_LEN)
		memcpy(s->h, h256, sizeof(h256));
	else
		memcpy(s->h, h1, sizeof(h1));
}

static void
sha_block(struct sha *s, const unsigned char *p)
{
	if (s->len == SHA256_LEN)
		sha256_block(s->h, p);
	else
		sha1_block(s->h, p);
}

void
sha_update(struct sha *s, const void *p, size_t n)
{
	const unsigned char *b = p;

	s->bytes += n;
	if (s->n > 0) {
		size_t k = 64 - s->n < n ? 64 - s->n : n;

		memcpy(s->block + s->n, b, k);
		s->n += k;
		b += k;
		n -= k;
		if (s->n < 64)
			return;
		sha_block(s, s->block);
		s->n = 0;
	}
	for (; n >= 64; b += 64, n -= 64)
		sha_block(s, b);
	memcpy(s->block, b, n);
	s->n = n;
}

void
sha_final(struct sha *s, unsigned char *out)
{
	uint64_t bits = s->bytes * 8;

	s->block[s->n++] = 0x80;
	if (s->n > 56) {
		memset(s->block + s->n, 0, 64 - s->n);
		sha_block(s, s->block);
		s->n = 0;
	}
	memset(s->block + s->n, 0, 56 - s->n);
	for (int i = 0; i < 8; i++)
		s->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	sha_block(s, s->block);
	for (size_t i = 0; i < s->len / 4; i++) {
		out[4 * i] = (unsigned char)(s->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)s->h[i];
	}
}
