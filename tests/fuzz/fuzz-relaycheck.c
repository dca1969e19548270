/*
 * libFuzzer harness: the name check of llwrap-relay (src/relaycheck.c),
 * on the first bytes a sandboxed command sends to a learned address:
 * a TLS ClientHello or an HTTP/1 request head, untrusted.
 *
 * Each input is decided whole as the last bytes that will come (full)
 * and cut short at every 7th byte as bytes with more to come.  Checked:
 * the verdict is one the relay knows; a complete input is never asked
 * for more; an allowed name is one the entries name; an allowed HTTP
 * head is rewritten within bounds, ends its head, says "Connection:
 * close", and replaces a head no longer than the input.
 *
 * Built by tests/fuzz/run.sh with clang -fsanitize=fuzzer,address,
 * undefined; built without libFuzzer (tests/fuzz/replay.c supplies
 * main), make check replays tests/data/tls/ and
 * tests/fuzz/regressions-relaycheck/.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "relaycheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct hostrule rules[] = {
	{ "api.example.com", false, NULL, 0, NULL },
	{ "registry.npmjs.org", false, NULL, 0, NULL },
	{ "cdn.example", true, NULL, 0, NULL },
	{ "other.example", false, NULL, 0, NULL },
};
static const uint16_t entries[] = { 0, 1, 2, 99 };

static int
check(const uint8_t *data, size_t len, bool full)
{
	uint8_t *buf = malloc(len ? len : 1);
	char *name = NULL, *out = NULL;
	size_t out_len = 0, head_len = 0;
	bool http = false;
	int r;

	/* An exact-size copy, so a read past it is a sanitizer report. */
	memcpy(buf, data, len);
	r = relay_decide(buf, len, full, rules, 4, entries, 4, &name, &http,
			 &out, &out_len, &head_len);
	if (r != -EAGAIN && r != REFUSAL_NONE && r != REFUSAL_SERVER_NAME &&
	    r != REFUSAL_NO_NAME && r != REFUSAL_ECH)
		abort();
	if (full && r == -EAGAIN)
		abort();
	if (r == REFUSAL_NONE) {
		if (name == NULL || (!hostrule_names(&rules[0], name) &&
				     !hostrule_names(&rules[1], name) &&
				     !hostrule_names(&rules[2], name)))
			abort();
		if (http &&
		    (out == NULL || head_len > len || head_len < 4 ||
		     out_len > head_len + 21 || out_len < 4 ||
		     memcmp(out + out_len - 4, "\r\n\r\n", 4) != 0 ||
		     memmem(out, out_len, "Connection: close\r\n", 19) == NULL))
			abort();
		if (!http && out != NULL)
			abort();
	}
	free(name);
	free(out);
	free(buf);
	return r;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int whole = check(data, size, false);

	(void)check(data, size, true);
	/* Its prefixes, with more to come: the same checks. */
	for (size_t cut = 0; whole != -EAGAIN && cut < size; cut += 7)
		(void)check(data, cut, false);
	return 0;
}
