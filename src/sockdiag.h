/*
 * sockdiag: which socket is bound where, asked of the kernel
 * (NETLINK_SOCK_DIAG), for the supervisor's identity of "the sandbox's
 * own" sockets (DESIGN.md §6).
 *
 * A socket is named by its cookie (SO_COOKIE): a 64-bit value the kernel
 * gives each socket once and never gives again, unlike a port, a name or
 * an inode number, which another process can take over once the
 * sandbox's socket is gone.  Every query is an exact lookup, answered in
 * the network namespace of the asking process.
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

/* What the kernel says of a unix socket that still exists. */
struct sockdiag_unix {
	bool has_vfs; /* bound to a path: the inode it made */
	uint32_t vfs_ino;
	dev_t vfs_dev;
	size_t name_len; /* abstract: the name without its leading NUL */
	char name[108];
	bool abstract;
};

/*
 * Look up the unix socket with sockfs inode ino (fstat of the socket)
 * and cookie: 0 and *out when it still exists, -ENOENT when it does not
 * (closed, or the inode number now names another socket), or -errno.
 */
int sockdiag_unix(uint32_t ino, uint64_t cookie, struct sockdiag_unix *out);

/* The cookie of socket fd (SO_COOKIE).  0 or -errno. */
int sockdiag_cookie(int fd, uint64_t *cookie);

/*
 * Whether addr (4 or 16 bytes by family) is an address of one of this
 * network namespace's interfaces now (getifaddrs): a server bound to
 * the unspecified address answers there as on loopback.
 */
bool sockdiag_own_address(int family, const uint8_t *addr);

#endif /* LLW_SOCKDIAG_H */
