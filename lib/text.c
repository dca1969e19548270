/* Text shown to a person (text.h). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "text.h"
#include "xalloc.h"

/* The length of the valid UTF-8 sequence at p (not a C1 control), or 0. */
static size_t
utf8_len(const unsigned char *p)
{
	size_t n;
	unsigned int cp;

	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		cp = p[0] & 0x1fu;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		cp = p[0] & 0x0fu;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		cp = p[0] & 0x07u;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3fu);
	}
	/* Overlong forms, surrogates, past U+10FFFF, and C1 controls. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff ||
	    (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return n;
}

char *
text_shown(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), o = 0;
	char *out = xmalloc(len * 4 + 1);

	while (*p != '\0') {
		size_t n;

		if (*p >= 0x20 && *p < 0x7f) {
			out[o++] = (char)*p++;
		} else if (*p >= 0x80 && (n = utf8_len(p)) > 0) {
			memcpy(out + o, p, n);
			o += n;
			p += n;
		} else {
			snprintf(out + o, 5, "\\x%02x", *p++);
			o += 4;
		}
	}
	out[o] = '\0';
	return out;
}
