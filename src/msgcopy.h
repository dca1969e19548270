/*
 * msgcopy: the message of a sendmsg()/sendmmsg() the supervisor performs
 * for the command, copied out of the command's memory.
 *
 * The struct msghdr, its iovec array, the bytes each iovec points at and
 * the control data are all the command's, read while the command may
 * rewrite them: every length is the command's word, so each is bounded
 * before anything is allocated or read, and the copy is made into
 * buffers sized by the bounded lengths alone.  The supervisor's worst
 * heap bug lived in this copy: it is kept small, alone and fuzzed.
 *
 * Pure: the only way to the command's memory is the caller's read(),
 * so tests/fuzz/fuzz-msgcopy.c drives it with a fake memory.
 */
#ifndef LLW_MSGCOPY_H
#define LLW_MSGCOPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Read len bytes at addr of the command's memory into buf: 0, or a
 * negative value msgcopy_read() returns as it is (-EFAULT, or a
 * sentinel of the caller's).  Never called with len 0.
 */
typedef int (*msgcopy_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* The bounds of one copy. */
struct msgcopy_limits {
	size_t max_payload; /* bytes of data, all iovecs together */
	size_t max_control; /* bytes of control data */
	size_t max_iov;	    /* entries of the iovec array */
};

/* The supervisor's bounds (svsend.c's mediated sends). */
#define MSGCOPY_MAX_PAYLOAD (1u << 20)
#define MSGCOPY_MAX_CONTROL 65536
#define MSGCOPY_MAX_IOV	    1024
extern const struct msgcopy_limits msgcopy_limits;

/* A message copied from the command. */
struct msgcopy {
	/* msg_name and msg_namelen as the command gave them, not read
	 * (the caller reads and judges the address); 0 and 0 when the
	 * message names no destination. */
	uint64_t name;
	uint32_t namelen;
	char *data; /* the iovecs' bytes, gathered: len bytes (+1 spare) */
	size_t len;
	char *control; /* controllen bytes, NULL when none */
	size_t controllen;
};

/*
 * Copy the struct msghdr at ptr of the command's memory, with its data
 * and control, into *m (to be freed with msgcopy_free, also on
 * failure).  stream: the socket is a stream, whose send may be short.
 * Returns 0 or:
 *  - -EMSGSIZE: more than max_iov iovecs; or, not a stream, more than
 *    max_payload bytes of data (a stream's data is cut at max_payload);
 *  - -ENOBUFS: more than max_control bytes of control data;
 *  - what read() returned, when a read failed.
 * The data copied is at most max_payload bytes, the control at most
 * max_control, whatever the command's memory says and however it
 * changes meanwhile: each length is read once.
 */
int msgcopy_read(msgcopy_read_fn read, void *ctx, uint64_t ptr, bool stream,
		 const struct msgcopy_limits *lim, struct msgcopy *m);

/* Free what *m holds (not m); m may be all zeros. */
void msgcopy_free(struct msgcopy *m);

#endif /* LLW_MSGCOPY_H */
