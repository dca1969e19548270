/*
 * cmsg: the control data of a message the supervisor sends for the
 * command, checked and rebuilt.
 *
 * The supervisor performs sendmsg()/sendmmsg() itself on the command's
 * socket (DESIGN.md §6), so the control data the command wrote is
 * untrusted input that the supervisor hands to the kernel in its own
 * name.  Nothing of it is passed through as it came: every header is
 * checked as the kernel's CMSG_OK() checks it, every entry is judged,
 * and the buffer that is sent is built anew from the entries kept.
 *
 * Pure: the only effect is the caller's take() for each descriptor.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* At most this many descriptors in one message (the kernel's
 * SCM_MAX_FD). */
#define LLW_CMSG_MAX_FDS 253

/* Who sends the message, as far as its control data may speak of it. */
struct cmsg_sender {
	int family; /* of the sending socket: AF_UNIX, AF_INET, ... */
	/* SCM_CREDENTIALS: the ids the sender may claim, as it names
	 * them (its thread group id in its own pid namespace; its real,
	 * effective and saved uid and gid), and the pid the supervisor
	 * names instead, the only one the kernel lets it name: its own. */
	pid_t pid;
	uid_t uid[3];
	gid_t gid[3];
	pid_t fwd_pid;
};

/*
 * Take over descriptor fd of the sender: return the supervisor's copy,
 * or -errno.  The caller owns (and closes) every copy it returned, also
 * when cmsg_rebuild() fails afterwards.
 */
typedef int (*cmsg_take_fn)(void *ctx, int fd);

/*
 * Check the control buffer in[0..len) of a message sent by s and build
 * the one to send instead into *out (malloc'ed, *out_len bytes; NULL
 * and 0 when nothing is left to send).  Returns 0, or the -errno the
 * send fails with; on failure nothing is built and, when the failure is
 * in the buffer itself, take() was never called.
 *
 * Entries, by the sending socket's family (the kernel's own checks go
 * first: a header shorter than struct cmsghdr or longer than what is
 * left of the buffer is -EINVAL, a trailing piece shorter than a header
 * is ignored):
 *  - AF_UNIX: SCM_RIGHTS, each descriptor taken over with take() and
 *    the lot sent as one entry (at most LLW_CMSG_MAX_FDS, else -EINVAL;
 *    an entry without a whole descriptor is ignored, as the kernel
 *    ignores it); SCM_CREDENTIALS (exactly one struct ucred, else
 *    -EINVAL) naming the sender itself, else -EPERM, sent naming
 *    fwd_pid; any other SOL_SOCKET type -EINVAL; other levels, which
 *    the kernel ignores on unix sockets, are dropped.
 *  - AF_NETLINK: SCM_CREDENTIALS as for AF_UNIX; any other SOL_SOCKET
 *    type -EINVAL; other levels dropped.
 *  - AF_INET, AF_INET6: the per-message options that do not choose
 *    where the packet goes are kept as they are (SOL_SOCKET: SO_MARK,
 *    SO_PRIORITY, SO_TIMESTAMPING, SCM_TXTIME; SOL_IP: IP_PKTINFO,
 *    IP_TTL, IP_TOS, IP_PROTOCOL; SOL_IPV6: packet info, flow info, hop
 *    limit, traffic class, don't-fragment, hop-by-hop and destination
 *    options; SOL_UDP: UDP_SEGMENT), and the kernel judges them as it
 *    would for the command.  Source routing (IP_RETOPTS, IPV6_RTHDR)
 *    would send the packet to a first hop that is not the destination
 *    the supervisor checked: -EPERM.  Any other type at those levels
 *    -EINVAL; other levels dropped.
 *  - any other family: any entry -EINVAL.
 */
int cmsg_rebuild(const void *in, size_t len, const struct cmsg_sender *s,
		 cmsg_take_fn take, void *ctx, void **out, size_t *out_len);

/*
 * Read the ids of a process from the text of its /proc/PID/status, as
 * the supervisor's procfs shows them: *tgid its thread group id there,
 * s->pid its thread group id in its own pid namespace (the last NStgid
 * field), s->uid and s->gid its real, effective and saved ids.  Returns
 * 0, or -EINVAL when a field is missing or malformed.
 */
int cmsg_sender_parse(const char *status, struct cmsg_sender *s, pid_t *tgid);

/*
 * The send flags the supervisor performs a send with: flags when every
 * bit is one it has reasoned about (MSG_OOB, MSG_DONTROUTE, MSG_DONTWAIT,
 * MSG_EOR, MSG_NOSIGNAL, MSG_MORE, MSG_CONFIRM, MSG_PROBE), else
 * -EOPNOTSUPP: MSG_ZEROCOPY would pin the supervisor's copy of the data
 * and report completions the command never asked for, MSG_FASTOPEN
 * connects without connect(), and a bit unknown today may mean anything
 * tomorrow.
 */
int cmsg_flags(int flags);
