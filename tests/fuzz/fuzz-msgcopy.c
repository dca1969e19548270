/*
 * libFuzzer harness: the message of a sendmsg() the supervisor copies
 * out of the sandboxed process (src/msgcopy.c), whose every pointer and
 * length is the command's.
 *
 * The first input byte picks the socket (bit 0: a stream) and the
 * bounds (bit 1: small ones, so the cuts are reached; else the
 * supervisor's own); the rest is the command's memory, mapped at
 * MEM_BASE, with the struct msghdr at its start.  Pointers outside it
 * read as -EFAULT.  A copy that succeeds must be within the bounds and
 * hold exactly the bytes the iovecs and control pointed at; one that
 * fails must hold nothing msgcopy_free cannot free.
 *
 * Built by tests/fuzz/run.sh with clang -fsanitize=fuzzer,address,
 * undefined; built without libFuzzer (tests/fuzz/replay.c supplies
 * main), make check replays tests/fuzz/regressions-msgcopy/.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "cleanup.h"
#include "msgcopy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MEM_BASE 0x10000u

struct mem {
	const uint8_t *p;
	size_t len;
	size_t reads;
};

static int
mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct mem *m = ctx;

	m->reads++;
	if (len == 0)
		abort(); /* the contract: never asked for nothing */
	if (addr < MEM_BASE || addr - MEM_BASE > m->len ||
	    len > m->len - (addr - MEM_BASE))
		return -EFAULT;
	memcpy(buf, m->p + (addr - MEM_BASE), len);
	return 0;
}

/* Whether [addr, addr + len) is inside the memory; its bytes in *at. */
static bool
mem_at(const struct mem *m, uint64_t addr, size_t len, const uint8_t **at)
{
	if (addr < MEM_BASE || addr - MEM_BASE > m->len ||
	    len > m->len - (addr - MEM_BASE))
		return false;
	*at = m->p + (addr - MEM_BASE);
	return true;
}

/* The copy must be what the memory says, cut where the bounds cut. */
static void
check(const struct mem *mem, const struct msgcopy_limits *lim, bool stream,
      const struct msgcopy *c)
{
	struct msghdr h;
	size_t off = 0, want = 0;

	memcpy(&h, mem->p, sizeof(h));
	if (c->len > lim->max_payload || c->controllen > lim->max_control ||
	    h.msg_iovlen > lim->max_iov || c->data == NULL)
		abort();
	if (c->namelen != (h.msg_name != NULL ? h.msg_namelen : 0))
		abort();
	for (size_t i = 0; i < h.msg_iovlen; i++) {
		struct iovec v;
		const uint8_t *at;

		memcpy(&v,
		       mem->p + ((uintptr_t)h.msg_iov - MEM_BASE) +
			       i * sizeof(v),
		       sizeof(v));
		/* The whole length the command asked for, saturated. */
		want = v.iov_len > SIZE_MAX - want ? SIZE_MAX
						   : want + v.iov_len;
		if (off == c->len || v.iov_len == 0)
			continue;
		if (v.iov_len > c->len - off)
			v.iov_len = c->len - off;
		if (!mem_at(mem, (uintptr_t)v.iov_base, v.iov_len, &at) ||
		    memcmp(c->data + off, at, v.iov_len) != 0)
			abort();
		off += v.iov_len;
	}
	/* A datagram goes whole or not at all; a stream may be cut. */
	if (off != c->len || (!stream && want != c->len) ||
	    (stream &&
	     c->len != (want < lim->max_payload ? want : lim->max_payload)))
		abort();
	if (h.msg_control != NULL && h.msg_controllen > 0) {
		const uint8_t *at;

		if (c->controllen != h.msg_controllen ||
		    !mem_at(mem, (uintptr_t)h.msg_control, c->controllen,
			    &at) ||
		    memcmp(c->control, at, c->controllen) != 0)
			abort();
	} else if (c->control != NULL || c->controllen != 0) {
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct msgcopy_limits small = { .max_payload = 64,
						     .max_control = 48,
						     .max_iov = 4 };
	_cleanup_free_ uint8_t *buf = NULL;
	const struct msgcopy_limits *lim;
	struct msgcopy c;
	struct mem mem;
	bool stream;
	int r;

	if (size == 0)
		return 0;
	stream = data[0] & 1;
	lim = data[0] & 2 ? &small : &msgcopy_limits;
	/* An exact-size copy, so a read past it is a sanitizer report. */
	buf = malloc(size - 1 ? size - 1 : 1);
	memcpy(buf, data + 1, size - 1);
	mem = (struct mem){ .p = buf, .len = size - 1 };
	r = msgcopy_read(mem_read, &mem, MEM_BASE, stream, lim, &c);
	if (r == 0)
		check(&mem, lim, stream, &c);
	else if (r != -EFAULT && r != -EMSGSIZE && r != -ENOBUFS)
		abort();
	msgcopy_free(&c);
	return 0;
}
