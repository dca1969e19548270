/*
 * channel: the one way llwrap's processes talk to their helpers (the
 * resolver llwrap-dns, the watch judge, the supervisor's hand-over of
 * the seccomp listener), after OpenBSD's imsg: framed messages, each a
 * type, a length and a payload, with descriptors passed beside them.
 *
 * A channel is one end of a SOCK_SEQPACKET unix socket pair: the kernel
 * keeps each frame whole, so one send is one receive.  What a receive
 * takes is checked before it is believed, since the peer may be a
 * process the sandbox can reach (DESIGN.md §15):
 *  - a frame longer than the receiver's buffer (MSG_TRUNC), or control
 *    data cut short (MSG_CTRUNC: more descriptors than asked for, or
 *    more than the receiver may hold), is refused, and every descriptor
 *    that did arrive is closed;
 *  - a frame shorter than its header, or whose header's length is not
 *    what arrived, is refused;
 *  - descriptors arrive close-on-exec (MSG_CMSG_CLOEXEC), never more
 *    than the receiver said it takes;
 *  - no send raises SIGPIPE (but see CHANNEL_WRITEV), and a caller
 *    that must not wait passes MSG_DONTWAIT.
 * The sender's credentials come with every frame to a receiver that
 * asked for them (channel_pair's passcred): the kernel fills them in.
 */
#ifndef LLW_CHANNEL_H
#define LLW_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The largest payload and the most descriptors of one frame. */
#define CHANNEL_MAX_PAYLOAD 8192
#define CHANNEL_MAX_FDS	    16

/* A frame received. */
struct channel_msg {
	uint32_t type;
	size_t len; /* bytes of payload */
	unsigned char payload[CHANNEL_MAX_PAYLOAD];
	int fds[CHANNEL_MAX_FDS]; /* the receiver's, close-on-exec */
	size_t n_fds;
	/* The sender's pid, uid and gid in the receiver's namespaces, on a
	 * channel made with passcred (else pid 0). */
	pid_t pid;
	uid_t uid;
	gid_t gid;
};

/*
 * A new channel: sv[0] and sv[1], close-on-exec; with passcred, frames
 * to sv[0] carry their sender's credentials.  0 or -errno.
 */
int channel_pair(int sv[2], bool passcred);

/*
 * Send one frame of type with payload (len bytes, at most
 * CHANNEL_MAX_PAYLOAD) and n descriptors (at most CHANNEL_MAX_FDS; the
 * caller keeps its own).  flags: 0, MSG_DONTWAIT, or CHANNEL_WRITEV: a
 * frame without descriptors sent with writev(), for a process whose
 * sendmsg() the supervisor's filter holds (it must ignore SIGPIPE
 * itself, or not mind it).  0, -EMSGSIZE when over a bound, or -errno
 * (-EPIPE: the peer is gone; -EAGAIN: it would wait).
 */
#define CHANNEL_WRITEV 0x10000000 /* no MSG_ flag of Linux 6.18 */
int channel_send(int sock, uint32_t type, const void *payload, size_t len,
		 const int *fds, size_t n, int flags);

/*
 * Receive one frame into *m, with at most max_fds descriptors
 * (max_fds <= CHANNEL_MAX_FDS).  flags: 0 or MSG_DONTWAIT.  Returns 1,
 * 0 when the peer closed its end (or sent an empty datagram, which no
 * channel_send does), or -errno with no descriptor left
 * open: -EMSGSIZE (a frame too long, or more descriptors than max_fds),
 * -EBADMSG (shorter than its header, or its length not what arrived),
 * -EAGAIN (nothing yet, or the receive timeout passed), or what
 * recvmsg() said.
 */
int channel_recv(int sock, struct channel_msg *m, size_t max_fds, int flags);

/* Close the descriptors m still holds (taken ones set to -1 first). */
void channel_msg_close(struct channel_msg *m);

/*
 * The payload of m when it is exactly len bytes of type, else NULL:
 * the receiver's one check of what it got.
 */
const void *channel_expect(const struct channel_msg *m, uint32_t type,
			   size_t len);

#endif /* LLW_CHANNEL_H */
