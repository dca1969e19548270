/*
 * sockdiag: which socket is bound where, asked of the kernel
 * (NETLINK_SOCK_DIAG), for the supervisor's identity of "the sandbox's
 * own" sockets (DESIGN.md §6).
 *
 * A socket is named by its cookie (SO_COOKIE): a 64-bit value the kernel
 * gives each socket once and never gives again, unlike a port, a name or
 * an inode number, which another process can take over once the
 * sandbox's socket is gone.  Every query (an exact lookup, or a dump of
 * the sockets at one port) is answered in the network namespace of the
 * asking process.
 */
#ifndef LLW_SOCKDIAG_H
#define LLW_SOCKDIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The cookie of the socket that a TCP connection (udp false) or a UDP
 * datagram (udp true) to addr:port would reach: a listener, or a bound
 * UDP socket, the wildcard-bound included.  family is AF_INET or
 * AF_INET6, addr 4 or 16 bytes in network order.  Returns 0, -ENOENT
 * when no socket is there, or -errno.
 */
int sockdiag_inet(int family, const uint8_t *addr, uint16_t port, bool udp,
		  uint64_t *cookie);

struct netpolicy_sock;

/*
 * Every socket bound to port (host order) now, of family (AF_INET,
 * AF_INET6, or AF_UNSPEC for both) and at any address: TCP listeners
 * (udp false) or UDP sockets in any state, each with the address it is
 * bound to and its cookie, in a new array *v of *n (NULL and 0 when
 * none).  A dump of this network namespace's tables, filtered by port
 * (each family's walks its whole table).  Returns 0 or -errno.
 */
int sockdiag_port(int family, bool udp, uint16_t port,
		  struct netpolicy_sock **v, size_t *n);

struct netpolicy_unix;

/*
 * Look up the unix socket with sockfs inode ino (fstat of the socket)
 * and cookie: 0 and *out when it still exists, -ENOENT when it does not
 * (closed, or the inode number now names another socket), or -errno.
 */
int sockdiag_unix(uint32_t ino, uint64_t cookie, struct netpolicy_unix *out);

/*
 * Whether socket fd lives in the calling process's network namespace
 * (SO_NETNS_COOKIE, Linux 5.14), where the queries above look: a socket
 * of a namespace of the sandbox's own (net = none) shares no port with
 * the host's.  Where the kernel cannot tell, true.
 */
bool sockdiag_same_netns(int fd);

/* The cookie of socket fd (SO_COOKIE).  0 or -errno. */
int sockdiag_cookie(int fd, uint64_t *cookie);

/*
 * This host and its networks as the kernel knows them now: every address
 * of this network namespace's interfaces (a server bound to the
 * unspecified address answers there as on loopback) and the on-link
 * prefix each is on (its netmask: neighbours with global addresses are
 * this host's networks too).  A table read once and again whenever the
 * kernel reports an address change (a NETLINK_ROUTE socket subscribed
 * to them, drained before each answer), so an address added just now
 * counts.
 */
struct netpolicy_addr;
struct sockdiag_host;

struct sockdiag_host *sockdiag_host_new(void);
void sockdiag_host_free(struct sockdiag_host *h);

/*
 * Whether a is this host or on one of its links (netpolicy_prefixes_hold
 * over the table: the NAT64 form of such an address counts).  h NULL:
 * read now, uncached (for threads).  When the table cannot be read, the
 * answer is yes: fail closed.
 */
bool sockdiag_host_local(struct sockdiag_host *h,
			 const struct netpolicy_addr *a);

#endif /* LLW_SOCKDIAG_H */
