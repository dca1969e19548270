/*
 * sockdiag: which socket is bound where, asked of the kernel.  The
 * contract is in sockdiag.h.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <stdlib.h>
#include <unistd.h>

#include "cleanup.h"
#include "netpolicy.h"
#include "sockdiag.h"
#include "xalloc.h"

#ifndef SO_COOKIE
#define SO_COOKIE 57
#endif
#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

/* Send one request and read its one answer into buf.  Returns the
 * answer's payload length, or -errno (the kernel's NLMSG_ERROR). */
static int
ask(const void *req, size_t req_len, uint16_t type, void *buf, size_t size,
    void **payload)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct {
		struct nlmsghdr h;
		unsigned char req[128];
	} msg;
	_cleanup_close_ int fd = -1;
	struct nlmsghdr *h = buf;
	ssize_t n;

	if (req_len > sizeof(msg.req))
		return -EINVAL;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	memset(&msg, 0, sizeof(msg));
	msg.h.nlmsg_len = NLMSG_LENGTH(req_len);
	msg.h.nlmsg_type = type;
	msg.h.nlmsg_flags = NLM_F_REQUEST;
	msg.h.nlmsg_seq = 1;
	memcpy(msg.req, req, req_len);
	if (sendto(fd, &msg, msg.h.nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		return -errno;
	do
		n = recv(fd, buf, size, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (!NLMSG_OK(h, (size_t)n))
		return -EPROTO;
	if (h->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(h);

		if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
			return -EPROTO;
		return e->error < 0 ? e->error : -EPROTO;
	}
	if (h->nlmsg_type != type)
		return -EPROTO;
	*payload = NLMSG_DATA(h);
	return (int)(h->nlmsg_len - NLMSG_LENGTH(0));
}

static uint64_t
cookie_of(const uint32_t c[2])
{
	return (uint64_t)c[0] | (uint64_t)c[1] << 32;
}

int
sockdiag_inet(int family, const uint8_t *addr, uint16_t port, bool udp,
	      uint64_t *cookie)
{
	struct inet_diag_req_v2 req = {
		.sdiag_family = (uint8_t)family,
		.sdiag_protocol = udp ? IPPROTO_UDP : IPPROTO_TCP,
		.idiag_states = ~0u,
		.id.idiag_cookie = { INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE },
	};
	union {
		struct nlmsghdr h;
		unsigned char b[1024];
	} buf;
	size_t alen = family == AF_INET ? 4 : 16;
	void *p;
	int n;

	/* The kernel's exact lookups read the fields differently: TCP
	 * finds the listener for a connection to src:sport; UDP finds the
	 * socket for a datagram to dst:dport. */
	if (udp) {
		memcpy(req.id.idiag_dst, addr, alen);
		req.id.idiag_dport = htons(port);
	} else {
		memcpy(req.id.idiag_src, addr, alen);
		req.id.idiag_sport = htons(port);
	}
	n = ask(&req, sizeof(req), SOCK_DIAG_BY_FAMILY, &buf, sizeof(buf), &p);
	if (n < 0)
		return n;
	if ((size_t)n < sizeof(struct inet_diag_msg))
		return -EPROTO;
	*cookie = cookie_of(((struct inet_diag_msg *)p)->id.idiag_cookie);
	return 0;
}

/* One family's part of sockdiag_port, appended to *v. */
static int
port_dump(int family, bool udp, uint16_t port, struct netpolicy_sock **v,
	  size_t *n)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
	} msg = {
		.h = { .nlmsg_len = sizeof(msg),
		       .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		       .nlmsg_seq = 1 },
		.r = { .sdiag_family = (uint8_t)family,
		       .sdiag_protocol = udp ? IPPROTO_UDP : IPPROTO_TCP,
		       /* TCP: listeners (what a connection reaches); UDP:
			* every socket holds its port. */
		       .idiag_states = udp ? ~0u : 1u << 10 /* TCP_LISTEN */,
		       .id.idiag_sport = htons(port) },
	};
	_cleanup_close_ int fd = -1;
	union {
		struct nlmsghdr h;
		unsigned char b[16384];
	} buf;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	if (sendto(fd, &msg, sizeof(msg), 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		return -errno;
	for (;;) {
		ssize_t len;

		do
			len = recv(fd, &buf, sizeof(buf), 0);
		while (len < 0 && errno == EINTR);
		if (len < 0)
			return -errno;
		for (struct nlmsghdr *h = &buf.h; NLMSG_OK(h, (size_t)len);
		     h = NLMSG_NEXT(h, len)) {
			const struct inet_diag_msg *m = NLMSG_DATA(h);
			struct netpolicy_sock sk = { 0 };

			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				return h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e))
					       ? (e->error < 0 ? e->error : 0)
					       : -EPROTO;
			}
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
			    h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
				return -EPROTO;
			/* The kernel filters by port; an older one might
			 * not. */
			if (ntohs(m->id.idiag_sport) != port)
				continue;
			sk.addr.family = m->idiag_family;
			memcpy(sk.addr.a, m->id.idiag_src,
			       m->idiag_family == AF_INET ? 4 : 16);
			sk.addr.port = port;
			if (sk.addr.family == AF_INET6) {
				struct sockaddr_in6 s6 = { .sin6_family =
								   AF_INET6 };

				/* IPv4-mapped becomes IPv4, as everywhere. */
				memcpy(&s6.sin6_addr, sk.addr.a, 16);
				(void)netpolicy_addr_from_sockaddr(
					&s6, sizeof(s6), &sk.addr);
				sk.addr.port = port;
			}
			sk.cookie = cookie_of(m->id.idiag_cookie);
			*v = xreallocarray(*v, *n + 1, sizeof(**v));
			(*v)[(*n)++] = sk;
		}
	}
}

int
sockdiag_port(int family, bool udp, uint16_t port, struct netpolicy_sock **v,
	      size_t *n)
{
	int r = 0;

	*v = NULL;
	*n = 0;
	if ((family != AF_INET6 &&
	     (r = port_dump(AF_INET, udp, port, v, n)) < 0) ||
	    (family != AF_INET &&
	     (r = port_dump(AF_INET6, udp, port, v, n)) < 0)) {
		free(*v);
		*v = NULL;
		*n = 0;
	}
	return r;
}

int
sockdiag_unix(uint32_t ino, uint64_t cookie, struct netpolicy_unix *out)
{
	struct unix_diag_req req = {
		.sdiag_family = AF_UNIX,
		.udiag_states = ~0u,
		.udiag_ino = ino,
		.udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_VFS,
		.udiag_cookie = { (uint32_t)cookie, (uint32_t)(cookie >> 32) },
	};
	union {
		struct nlmsghdr h;
		unsigned char b[1024];
	} buf;
	struct rtattr *a;
	void *p;
	int n;

	memset(out, 0, sizeof(*out));
	n = ask(&req, sizeof(req), SOCK_DIAG_BY_FAMILY, &buf, sizeof(buf), &p);
	if (n < 0)
		return n == -ESTALE ? -ENOENT : n; /* another cookie */
	if ((size_t)n < NLMSG_ALIGN(sizeof(struct unix_diag_msg)))
		return -EPROTO;
	n -= (int)NLMSG_ALIGN(sizeof(struct unix_diag_msg));
	a = (struct rtattr *)((char *)p +
			      NLMSG_ALIGN(sizeof(struct unix_diag_msg)));
	for (; RTA_OK(a, n); a = RTA_NEXT(a, n)) {
		size_t len = RTA_PAYLOAD(a);

		if (a->rta_type == UNIX_DIAG_VFS &&
		    len >= sizeof(struct unix_diag_vfs)) {
			const struct unix_diag_vfs *v = RTA_DATA(a);

			out->has_vfs = true;
			out->vfs_ino = v->udiag_vfs_ino;
			/* The kernel's own dev_t: major << 20 | minor. */
			out->vfs_dev = makedev(v->udiag_vfs_dev >> 20,
					       v->udiag_vfs_dev & 0xfffff);
		} else if (a->rta_type == UNIX_DIAG_NAME && len > 0 &&
			   len <= sizeof(out->name)) {
			const char *s = RTA_DATA(a);

			out->abstract = s[0] == '\0';
			out->name_len = out->abstract ? len - 1 : len;
			memcpy(out->name, out->abstract ? s + 1 : s,
			       out->name_len);
		}
	}
	return 0;
}

bool
sockdiag_same_netns(int fd)
{
	static uint64_t mine;
	uint64_t theirs;
	socklen_t len = sizeof(theirs);

	if (mine == 0) {
		_cleanup_close_ int s =
			socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		socklen_t l = sizeof(mine);

		if (s < 0 ||
		    getsockopt(s, SOL_SOCKET, SO_NETNS_COOKIE, &mine, &l) < 0)
			return true;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &theirs, &len) < 0)
		return true;
	return theirs == mine;
}

int
sockdiag_cookie(int fd, uint64_t *cookie)
{
	socklen_t len = sizeof(*cookie);

	return getsockopt(fd, SOL_SOCKET, SO_COOKIE, cookie, &len) < 0 ? -errno
								       : 0;
}

/* The prefix length of a netmask; its leading ones. */
static unsigned
mask_len(const struct sockaddr *m, int family)
{
	const uint8_t *b =
		family == AF_INET
			? (const uint8_t *)&((const struct sockaddr_in *)m)
				  ->sin_addr
			: ((const struct sockaddr_in6 *)m)->sin6_addr.s6_addr;
	size_t n = family == AF_INET ? 4 : 16;
	unsigned len = 0;

	for (size_t i = 0; i < n && b[i] == 0xff; i++)
		len += 8;
	if (len < n * 8)
		for (uint8_t x = b[len / 8]; x & 0x80; x = (uint8_t)(x << 1))
			len++;
	return len;
}

/* Read the table: each address, and its network unless the mask is
 * empty (a /0 would hold the whole internet).  0 or -errno. */
static int
host_read(struct netpolicy_prefix **v, size_t *n)
{
	struct ifaddrs *ifa = NULL;

	*v = NULL;
	*n = 0;
	if (getifaddrs(&ifa) < 0)
		return -errno;
	for (struct ifaddrs *i = ifa; i != NULL; i = i->ifa_next) {
		const struct sockaddr *sa = i->ifa_addr;
		struct netpolicy_prefix p = { 0 };
		size_t alen;

		if (sa == NULL ||
		    (sa->sa_family != AF_INET && sa->sa_family != AF_INET6))
			continue;
		alen = sa->sa_family == AF_INET ? sizeof(struct sockaddr_in)
						: sizeof(struct sockaddr_in6);
		if (netpolicy_addr_from_sockaddr(sa, alen, &p.net) < 0)
			continue;
		p.net.port = 0;
		p.len = p.net.family == AF_INET ? 32 : 128;
		*v = xreallocarray(*v, *n + 2, sizeof(**v));
		(*v)[(*n)++] = p;
		if (i->ifa_netmask != NULL &&
		    i->ifa_netmask->sa_family == sa->sa_family &&
		    (p.len = mask_len(i->ifa_netmask, sa->sa_family)) > 0 &&
		    p.len < (p.net.family == AF_INET ? 32u : 128u))
			(*v)[(*n)++] = p;
	}
	freeifaddrs(ifa);
	return 0;
}

struct sockdiag_host {
	struct netpolicy_prefix *v;
	size_t n;
	int watch; /* -1: read the table at every question */
	bool loaded;
};

struct sockdiag_host *
sockdiag_host_new(void)
{
	struct sockdiag_host *h = xcalloc(1, sizeof(*h));
	struct sockaddr_nl nl = {
		.nl_family = AF_NETLINK,
		.nl_groups = RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR,
	};

	h->watch = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
			  NETLINK_ROUTE);
	if (h->watch >= 0 &&
	    bind(h->watch, (struct sockaddr *)&nl, sizeof(nl)) < 0) {
		close(h->watch);
		h->watch = -1;
	}
	return h;
}

void
sockdiag_host_free(struct sockdiag_host *h)
{
	if (h == NULL)
		return;
	if (h->watch >= 0)
		close(h->watch);
	free(h->v);
	free(h);
}

/* Whether the kernel reported an address change since the last call
 * (all of it read now); an overflow or an error is a change. */
static bool
host_changed(struct sockdiag_host *h)
{
	char buf[8192];
	bool changed = false;
	ssize_t r;

	if (h->watch < 0)
		return true;
	while ((r = recv(h->watch, buf, sizeof(buf), MSG_DONTWAIT)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			break;
		changed = true;
		if (r < 0 && errno != ENOBUFS)
			break;
	}
	return changed;
}

bool
sockdiag_host_local(struct sockdiag_host *h, const struct netpolicy_addr *a)
{
	_cleanup_free_ struct netpolicy_prefix *v = NULL;
	size_t n;

	if (h == NULL)
		return host_read(&v, &n) < 0 ||
		       netpolicy_prefixes_hold(v, n, a);
	/* The watch was subscribed before the first read, so no change
	 * falls between a read and the next question. */
	if (!h->loaded || host_changed(h)) {
		free(h->v);
		h->loaded = host_read(&h->v, &h->n) == 0;
		if (!h->loaded)
			return true;
	}
	return netpolicy_prefixes_hold(h->v, h->n, a);
}
