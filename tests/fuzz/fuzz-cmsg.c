/*
 * libFuzzer harness: the control data of a message the supervisor sends
 * for the command (src/cmsg.c), untrusted bytes copied from the
 * sandboxed process.
 *
 * The first input byte picks the sending socket's family, the rest is
 * the control buffer.  Each input goes through cmsg_rebuild(), whose
 * result must be well formed (every header whole and inside the buffer,
 * every descriptor one the fake take handed out), and, as text, through
 * cmsg_sender_parse().
 *
 * Built by tests/fuzz/run.sh with clang -fsanitize=fuzzer,address,
 * undefined; built without libFuzzer (tests/fuzz/replay.c supplies
 * main), make check replays tests/fuzz/regressions-cmsg/.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cleanup.h"
#include "cmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Descriptors below 64 exist; each becomes 1000 + fd. */
static int
take(void *ctx, int fd)
{
	(*(unsigned *)ctx)++;
	return fd >= 0 && fd < 64 ? 1000 + fd : -EBADF;
}

static void
check(const unsigned char *out, size_t len, unsigned takes)
{
	size_t off = 0;
	unsigned fds = 0;

	while (off < len) {
		struct cmsghdr h;

		if (len - off < sizeof(h))
			abort();
		memcpy(&h, out + off, sizeof(h));
		if (h.cmsg_len < sizeof(h) || h.cmsg_len > len - off)
			abort();
		if (h.cmsg_level == SOL_SOCKET && h.cmsg_type == SCM_RIGHTS) {
			for (size_t i = CMSG_LEN(0);
			     i + sizeof(int) <= h.cmsg_len; i += sizeof(int)) {
				int fd;

				memcpy(&fd, out + off + i, sizeof(fd));
				if (fd < 1000 || fd >= 1064)
					abort();
				fds++;
			}
		}
		off += CMSG_ALIGN(h.cmsg_len);
	}
	if (off != len || fds != takes || fds > LLW_CMSG_MAX_FDS)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int families[] = { AF_UNIX, AF_INET, AF_INET6, AF_NETLINK,
					AF_PACKET };
	struct cmsg_sender s = {
		.pid = 42,
		.uid = { 1000, 1000, 1000 },
		.gid = { 100, 100, 100 },
		.fwd_pid = 7,
	};
	_cleanup_free_ unsigned char *buf = NULL;
	_cleanup_free_ char *text = NULL;
	void *out = NULL;
	size_t out_len = 0;
	unsigned takes = 0;
	pid_t tgid;

	if (size == 0)
		return 0;
	s.family = families[data[0] % ARRAY_SIZE(families)];
	/* An exact-size copy, so a read past it is a sanitizer report. */
	buf = malloc(size - 1 ? size - 1 : 1);
	memcpy(buf, data + 1, size - 1);
	if (cmsg_rebuild(buf, size - 1, &s, take, &takes, &out, &out_len) == 0)
		check(out, out_len, takes);
	else if (out != NULL || out_len != 0)
		abort();
	free(out);

	text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	(void)cmsg_sender_parse(text, &s, &tgid);
	return 0;
}
