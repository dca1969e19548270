/*
 * libFuzzer harness: the head of a request to llwrap's proxy
 * (src/httpreq.c), untrusted bytes from the sandboxed command.
 *
 * Each input goes through httpreq_parse() whole and cut at every tenth
 * byte (a head arrives in pieces); a head it accepts must hold what the
 * contract says: a host httpreq_authority() accepts again, a port, a
 * head_len inside the input, and for a forwarded request an origin head
 * ending in "Connection: close" and a blank line.
 *
 * Built by tests/fuzz/run.sh with clang -fsanitize=fuzzer,address,
 * undefined; built without libFuzzer (tests/fuzz/replay.c supplies
 * main), make check replays tests/fuzz/regressions-httpreq/.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "httpreq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check(const char *buf, size_t len)
{
	struct httpreq req;
	char host[LLW_HTTPREQ_MAX_HOST + 1];
	bool ip;
	uint16_t port;
	int r = httpreq_parse(buf, len, &req);

	if (r != 0) {
		if (r != -EAGAIN && r != -E2BIG && r != -EINVAL &&
		    r != -EOPNOTSUPP && r != -EPROTONOSUPPORT)
			abort();
		if (req.out != NULL)
			abort();
		return;
	}
	if (req.head_len == 0 || req.head_len > len ||
	    req.head_len > LLW_HTTPREQ_MAX_HEAD || req.port == 0)
		abort();
	if (!req.is_ip && (httpreq_authority(req.host, strlen(req.host), host,
					     &ip, &port, 1) != 0 ||
			   ip || strcmp(host, req.host) != 0))
		abort();
	if (req.kind == HTTPREQ_FORWARD) {
		static const char tail[] = "Connection: close\r\n\r\n";

		if (req.out == NULL || req.out_len < sizeof(tail) - 1 ||
		    memcmp(req.out + req.out_len - (sizeof(tail) - 1), tail,
			   sizeof(tail) - 1) != 0)
			abort();
	} else if (req.out != NULL) {
		abort();
	}
	httpreq_clear(&req);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);

	/* Exact-size copies, so a read past them is a sanitizer report. */
	memcpy(buf, data, size);
	check(buf, size);
	for (size_t cut = 0; cut < size; cut += 10) {
		char *part = malloc(cut ? cut : 1);

		memcpy(part, data, cut);
		check(part, cut);
		free(part);
	}
	free(buf);
	return 0;
}
