/*
 * SHA-1 (FIPS 180-4, RFC 3174) and SHA-256 (FIPS 180-4, RFC 6234), as git
 * names its objects: the watch hashes a work-tree file as the blob an
 * index entry says it is (watchlater-git.c).  Not for anything secret:
 * no constant-time promise, the state left in memory.
 */
#ifndef LLW_SHA_H
#define LLW_SHA_H

#include <stddef.h>
#include <stdint.h>

#define SHA1_LEN   20
#define SHA256_LEN 32

struct sha {
	uint32_t h[8];
	uint64_t bytes; /* hashed so far */
	unsigned char block[64];
	size_t n;   /* bytes in block */
	size_t len; /* SHA1_LEN or SHA256_LEN */
};

/* A hash of len bytes of output: SHA1_LEN or SHA256_LEN (anything else
 * is taken as SHA-1's). */
void sha_init(struct sha *s, size_t len);
void sha_update(struct sha *s, const void *p, size_t n);
/* The digest, s->len bytes, in out; s is spent. */
void sha_final(struct sha *s, unsigned char *out);

#endif /* LLW_SHA_H */
