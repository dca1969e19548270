/*
 * libFuzzer harness: the TLS ClientHello the proxy reads the server name
 * from (src/tlshello.c), untrusted bytes from the sandboxed command.
 *
 * Each input goes through tlshello_sni() whole and cut short at every
 * 7th byte; a name it returns must be a host name in lower case, and a
 * prefix of an input it read whole must ask for more, or (when the
 * hello ends before the cut) name the same server with the same
 * verdict (-EPERM: it carries encrypted_client_hello).
 *
 * Built by tests/fuzz/run.sh with clang -fsanitize=fuzzer,address,
 * undefined; built without libFuzzer (tests/fuzz/replay.c supplies
 * main), make check replays tests/data/tls/ and
 * tests/fuzz/regressions-tlshello/.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "httpreq.h"
#include "tlshello.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
check(const uint8_t *data, size_t len, char **sni)
{
	uint8_t *buf = malloc(len ? len : 1);
	int r;

	/* An exact-size copy, so a read past it is a sanitizer report. */
	memcpy(buf, data, len);
	r = tlshello_sni(buf, len, sni);
	free(buf);
	if (r != 0 && r != -EAGAIN && r != -EPROTO && r != -EINVAL &&
	    r != -EPERM)
		abort();
	if (r != 0 && r != -EPERM && *sni != NULL)
		abort();
	if (*sni != NULL) {
		if (!httpreq_name_valid(*sni, strlen(*sni)))
			abort();
		for (const char *c = *sni; *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				abort();
	}
	return r;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *sni = NULL;
	int whole = check(data, size, &sni);

	for (size_t cut = 0; (whole == 0 || whole == -EPERM) && cut < size;
	     cut += 7) {
		char *part = NULL;
		int r = check(data, cut, &part);

		if (r != whole && r != -EAGAIN)
			abort();
		if (r == whole && (part == NULL) != (sni == NULL))
			abort();
		if (r == whole && sni != NULL && strcmp(part, sni) != 0)
			abort();
		free(part);
	}
	free(sni);
	return 0;
}
