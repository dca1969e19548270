/*
 * The network supervisor's addresses (supervise-int.h): connect, bind and
 * listen of IP sockets decided (netpolicy_decide, with the kernel-side
 * lookups it asks for: the sockets the sandbox bound, ports shared with
 * the host) and performed on the caller's socket; the sandbox's private
 * listeners (DESIGN.md §16), source routing, UDP autobind, and the
 * note to llwrap's proxy of which process each client is.  Unix
 * sockets are svunix.c's, names svnames.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "channel.h"
#include "cleanup.h"
#include "mono.h"
#include "proxyserve.h"
#include "sockdiag.h"
#include "supervise-int.h"
#include "xalloc.h"

/* Whether socket sock (of type) has a flag set that lets the kernel
 * share its port: SO_REUSEPORT, or for UDP SO_REUSEADDR. */
static bool
sock_reuses(int sock, int type)
{
	int v = 0;
	socklen_t len = sizeof(v);

	if (getsockopt(sock, SOL_SOCKET, SO_REUSEPORT, &v, &len) == 0 && v)
		return true;
	len = sizeof(v);
	return type == SOCK_DGRAM &&
	       getsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &v, &len) == 0 && v;
}

/* Remember an IP socket the sandbox bound (or listen() bound), and
 * whether it may share its port. */
static void
own_ip_record(struct supervisor *sv, const struct call *c)
{
	uint64_t cookie;

	if (sockdiag_cookie(c->sock, &cookie) == 0)
		netpolicy_own_add_ip(sv->own, cookie,
				     sock_reuses(c->sock, c->type));
}

/*
 * The decision's lookup (netpolicy_lookup): whether a connection or
 * datagram to q->addr reaches a socket the sandbox bound and nothing
 * else.  The socket the kernel's lookup finds there (an exact lookup,
 * cheap) must be one the sandbox bound, compared by cookie; where it may
 * share its port (a reuse flag: netpolicy_own_ip_shares), every
 * listener (TCP) or bound socket (UDP) at that port that would get it
 * must be (netpolicy_dest_own, over a dump of the sockets at the port,
 * some 40 us): the kernel answers a lookup with any member of a
 * SO_REUSEPORT group.
 */
static bool
own_socket(void *ctx, const struct netpolicy_query *q)
{
	const struct supervisor *sv = ctx;
	const struct netpolicy_addr *a = &q->addr;
	bool udp = q->proto == NETPOLICY_UDP;
	_cleanup_free_ struct netpolicy_sock *v = NULL;
	uint64_t cookie;
	size_t n;

	if (sv->found_set && !udp && netpolicy_addr_same(&sv->found_at, a) &&
	    sv->found_at.port == a->port)
		cookie = sv->found_cookie;
	else if (sv->own->n_ip == 0 ||
		 sockdiag_inet(a->family, a->a, a->port, udp, &cookie) < 0)
		return false;
	if (!netpolicy_own_has_ip(sv->own, cookie))
		return false;
	/* Without a reuse flag nothing shares its port: it is alone. */
	if (!netpolicy_own_ip_shares(sv->own, cookie))
		return true;
	/* An IPv6 destination: IPv6 sockets alone reach it; an IPv4 one:
	 * IPv4 sockets and IPv6 dual-stack ones. */
	return sockdiag_port(a->family == AF_INET6 ? AF_INET6 : AF_UNSPEC, udp,
			     a->port, &v, &n) == 0 &&
	       netpolicy_dest_own(sv->own, a, v, n);
}

/*
 * The decision's lookup for a bind or listen of the socket being decided
 * (sv->deciding): whether a socket the sandbox did not create holds
 * q->addr's port, in either family, at any address.  A socket table that
 * cannot be read counts as shared: fail closed.
 */
static bool
port_shared(void *ctx, const struct netpolicy_query *q)
{
	const struct supervisor *sv = ctx;
	_cleanup_free_ struct netpolicy_sock *v = NULL;
	uint64_t self = 0;
	size_t n;

	/* In a network namespace of the sandbox's own (net = none), no
	 * host socket shares its ports. */
	if (!sockdiag_same_netns(sv->deciding))
		return false;
	(void)sockdiag_cookie(sv->deciding, &self);
	return sockdiag_port(AF_UNSPEC, q->proto == NETPOLICY_UDP, q->addr.port,
			     &v, &n) < 0 ||
	       netpolicy_port_shared(sv->own, self, v, n);
}

/* The log target of an address. */
static char *
addr_target(const struct call *c, const struct addr_buf *a)
{
	struct netpolicy_addr ip;

	if (c->domain == AF_UNIX) {
		size_t n;

		if (a->len <= offsetof(struct sockaddr_un, sun_path))
			return xstrdup("?");
		n = a->len - offsetof(struct sockaddr_un, sun_path);
		if (a->u.un.sun_path[0] == '\0')
			return xasprintf("@%.*s", (int)(n - 1),
					 a->u.un.sun_path + 1);
		return svunix_path(a);
	}
	if (netpolicy_addr_from_sockaddr(&a->u, a->len, &ip) == 0)
		return value_addr_format(&ip);
	return xstrdup("?");
}

/* Put ip's address (not its port) into ss, of ss's own family; an IPv4
 * address in an AF_INET6 sockaddr is IPv4-mapped. */
static void
sockaddr_set_ip(struct sockaddr_storage *ss, const struct netpolicy_addr *ip)
{
	if (ss->ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		if (ip->family == AF_INET) {
			memset(&s6->sin6_addr, 0, 10);
			memset(s6->sin6_addr.s6_addr + 10, 0xff, 2);
			memcpy(s6->sin6_addr.s6_addr + 12, ip->a, 4);
		} else {
			memcpy(&s6->sin6_addr, ip->a, 16);
		}
	} else {
		/* AF_INET, or an IPv4 bind with AF_UNSPEC: now AF_INET. */
		ss->ss_family = AF_INET;
		memcpy(&((struct sockaddr_in *)ss)->sin_addr, ip->a, 4);
	}
}

/*
 * Whether the caller's IP socket carries source routing, set by any
 * option (an IPv6 routing header of any type, an IPv4 loose or strict
 * source route): its packets would go to the route's first hop, not the
 * destination decided.  The filter refuses every option that sets one
 * (filter.c); this holds should one come another way (a socket passed
 * in from outside, an option a kernel adds).  A socket whose options
 * cannot be read counts as routed.
 */
static bool
call_source_routed(const struct call *c)
{
	uint8_t opt[40], rthdr[8];
	socklen_t len = sizeof(opt), rlen = 0;

	if (c->domain != AF_INET && c->domain != AF_INET6)
		return false;
	if (getsockopt(c->sock, IPPROTO_IP, IP_OPTIONS, opt, &len) < 0)
		return true;
	if (c->domain == AF_INET6) {
		rlen = sizeof(rthdr);
		if (getsockopt(c->sock, IPPROTO_IPV6, IPV6_RTHDR, rthdr,
			       &rlen) < 0)
			return true;
	}
	return netpolicy_source_routed(opt, len, rlen);
}

/* Refuse op to a on a source-routed socket (call_source_routed): 0 when
 * it is not, else -EPERM, logged. */
int
svaddr_check_route(struct supervisor *sv, const struct call *c,
		   enum netpolicy_op op, const struct addr_buf *a)
{
	_cleanup_free_ char *t = NULL;

	if (!call_source_routed(c))
		return 0;
	if (a != NULL) {
		t = addr_target(c, a);
	} else {
		struct addr_buf peer = { .len = sizeof(peer.u), .opath = -1 };

		/* A send on a connected socket: its peer. */
		t = getpeername(c->sock, &peer.u.sa, &peer.len) == 0
			    ? addr_target(c, &peer)
			    : xstrdup("?");
	}
	svlog_blocked(sv, op, svcall_proto(c), t, c->pid, c->pidfd,
		      REFUSAL_SOURCE_ROUTE);
	return -refusal_errno(REFUSAL_SOURCE_ROUTE);
}

/*
 * Decide on an address for op on the caller's socket, and rewrite it
 * where the supervisor must (unix).  Returns 0 to perform the call,
 * -errno to answer with.
 */
int
svaddr_check(struct supervisor *sv, const struct call *c, enum netpolicy_op op,
	     struct addr_buf *a)
{
	enum refusal rule = REFUSAL_NONE;
	struct netpolicy_addr ip;
	struct netpolicy_lookup lookup = { .own_socket = own_socket,
					   .named = svnames_lookup,
					   .host_local = svnames_host_local,
					   .port_shared = port_shared,
					   .ctx = sv };
	struct netpolicy_query q = { .proto = NETPOLICY_UNIX };
	int r;

	if (c->domain == AF_NETLINK)
		return 0; /* NETLINK_ROUTE only: the filter saw to that */
	if (c->domain == AF_UNIX) {
		r = op == NETPOLICY_BIND ? 0
					 : svunix_destination(sv, c, a, &rule);
		goto out;
	}
	if (c->domain != AF_INET && c->domain != AF_INET6)
		return -EAFNOSUPPORT;
	if (a->len < sizeof(sa_family_t))
		return -EINVAL;
	/*
	 * AF_UNSPEC: connect() disconnects, which reaches nothing.  But an
	 * IPv4 bind() with AF_UNSPEC and INADDR_ANY binds, and an IPv4 UDP
	 * send with AF_UNSPEC sends to the address it holds: there the
	 * address is read as AF_INET, as the kernel reads it.
	 */
	if (a->u.sa.sa_family == AF_UNSPEC) {
		if (op == NETPOLICY_CONNECT)
			return 0;
		if (a->len < sizeof(struct sockaddr_in))
			return -EINVAL;
		a->u.sa.sa_family = AF_INET;
		r = netpolicy_addr_from_sockaddr(&a->u, a->len, &ip);
		a->u.sa.sa_family = AF_UNSPEC;
	} else {
		r = netpolicy_addr_from_sockaddr(&a->u, a->len, &ip);
	}
	if (r < 0)
		return r;
	if (op == NETPOLICY_BIND) {
		if (netpolicy_bind_address(sv->rules, &ip))
			sockaddr_set_ip(&a->u.ss, &ip);
	} else {
		netpolicy_addr_destination(&ip);
	}
	q = (struct netpolicy_query){ .op = op,
				      .proto = svcall_proto(c),
				      .addr = ip,
				      .now_ns = mono_ns() };
	sv->deciding = c->sock;
	rule = netpolicy_decide(sv->rules, &q, &lookup).refusal;
	/* QUIC to a learned address: no name the relay checks. */
	if (rule == REFUSAL_NONE && op != NETPOLICY_BIND &&
	    q.proto == NETPOLICY_UDP)
		rule = svnames_datagram(sv, &ip);
	/* A port in use is in use: programs try another, as they would
	 * when the kernel says so. */
	r = -refusal_errno(rule);
out:
	if (rule != REFUSAL_NONE && !netpolicy_quiet(&q)) {
		_cleanup_free_ char *t = addr_target(c, a);

		svlog_blocked(sv, op, svcall_proto(c), t, c->pid, c->pidfd,
			      rule);
	}
	return r;
}

int
svaddr_read(const struct call *c, uint64_t ptr, uint64_t len,
	    struct addr_buf *a)
{
	memset(a, 0, sizeof(*a));
	a->opath = -1;
	if ((int64_t)(int32_t)len < 0 || len > sizeof(a->u))
		return -EINVAL;
	a->len = (socklen_t)len;
	return svcall_read(c->pid, ptr, &a->u, (size_t)len);
}

/*
 * A connect to llwrap's proxy: tell it which process the client is, by
 * the socket's local port, so its log names it as this log would.  The
 * line is written before the caller learns its connect worked, so it is
 * there before the proxy reads a request.  Never blocks: a note that
 * does not fit is dropped.
 */
static void
proxy_note(struct supervisor *sv, const struct call *c,
	   const struct addr_buf *a)
{
	struct netpolicy_addr dst;
	struct sockaddr_in self;
	socklen_t sl = sizeof(self);
	_cleanup_free_ char *comm = NULL, *line = NULL;

	if (sv->proxy_note_fd < 0 || c->domain != AF_INET ||
	    netpolicy_addr_from_sockaddr(&a->u.sa, a->len, &dst) < 0 ||
	    dst.family != AF_INET || dst.port != sv->proxy.port ||
	    memcmp(dst.a, sv->proxy.a, 4) != 0 ||
	    getsockname(c->sock, (struct sockaddr *)&self, &sl) < 0)
		return;
	comm = svlog_comm(c->pid);
	for (char *p = comm; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
			*p = '?';
	line = xasprintf("%u %d %s\n", ntohs(self.sin_port), (int)c->pid, comm);
	(void)channel_send(sv->proxy_note_fd, PROXYSERVE_NOTE, line,
			   strlen(line), NULL, 0, MSG_DONTWAIT);
}

/*
 * A socket bound to a port the kernel chose (bind to port 0): with
 * SO_REUSEADDR or SO_REUSEPORT set, a UDP socket's choice may land on a
 * port a host socket with the same flag holds, and share it (its
 * datagrams).  Such a socket is unbound again (a disconnect drops a
 * port the kernel chose, not one asked for) and bound again, a few
 * times; then EADDRINUSE.  TCP needs nothing here: a listener is
 * checked at listen(), and nothing else receives.
 */
static int
udp_ephemeral_unshared(struct supervisor *sv, const struct call *c,
		       const struct addr_buf *a)
{
	struct sockaddr_storage ss;
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	struct netpolicy_query q = { .op = NETPOLICY_BIND,
				     .proto = NETPOLICY_UDP };

	for (int i = 0; i < 8; i++) {
		socklen_t len = sizeof(ss);

		if (getsockname(c->sock, (struct sockaddr *)&ss, &len) < 0 ||
		    netpolicy_addr_from_sockaddr(&ss, len, &q.addr) < 0)
			return -errno;
		sv->deciding = c->sock;
		if (!port_shared(sv, &q))
			return 0;
		if (connect(c->sock, &unspec, sizeof(unspec)) < 0 ||
		    bind(c->sock, &a->u.sa, a->len) < 0)
			return -errno;
	}
	return -EADDRINUSE;
}

/*
 * A TCP bind of a loopback address to port 0 where the sandbox may share
 * no port with a host socket: the kernel's choice for one family's
 * loopback may be a port a host socket holds in the other family's (or
 * at another address), which listen() would then refuse
 * (filtered/shared-port) although the command asked for any port.  So
 * the port is chosen here: probes of the caller's family bound as asked,
 * a port no host socket shares taken (bound to the caller's socket by
 * number), the shared ones held while looking so that the kernel offers
 * others; after 8, or when the port went to someone between the probe
 * and the bind, the kernel's choice as before.  0 or -errno.
 */
static void sockaddr_set_port(struct addr_buf *a, uint16_t port);

static int
tcp_ephemeral_unshared(struct supervisor *sv, const struct call *c,
		       struct addr_buf *a)
{
	struct netpolicy_query q = { .op = NETPOLICY_LISTEN,
				     .proto = NETPOLICY_TCP };
	int held[8], n_held = 0, r = -1;

	sv->deciding = c->sock;
	while (n_held < (int)ARRAY_SIZE(held)) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		int p = socket(c->domain, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (p < 0)
			break;
		if (bind(p, &a->u.sa, a->len) < 0 ||
		    getsockname(p, (struct sockaddr *)&ss, &len) < 0 ||
		    netpolicy_addr_from_sockaddr(&ss, len, &q.addr) < 0) {
			close(p);
			break;
		}
		held[n_held++] = p;
		if (port_shared(sv, &q))
			continue;
		/* The probe lets go of the port; the caller's socket takes it.
		 */
		close(held[--n_held]);
		sockaddr_set_port(a, q.addr.port);
		r = bind(c->sock, &a->u.sa, a->len);
		sockaddr_set_port(a, 0);
		break;
	}
	while (n_held > 0)
		close(held[--n_held]);
	if (r == 0)
		return 0;
	return bind(c->sock, &a->u.sa, a->len) < 0 ? -errno : 0;
}

/* Whether the caller's socket has SO_REUSEADDR or SO_REUSEPORT set:
 * the kernel then lets it share a port. */
static bool
call_reuses(const struct call *c)
{
	int v = 0;
	socklen_t len = sizeof(v);

	return sock_reuses(c->sock, c->type) ||
	       (getsockopt(c->sock, SOL_SOCKET, SO_REUSEADDR, &v, &len) == 0 &&
		v);
}

/*
 * Before a UDP connect or send with a destination: a socket not bound
 * yet would be bound by the kernel to a port it chooses (autobind).
 * Where it reuses ports, the supervisor binds it first, to the
 * unspecified address as autobind would, and keeps it off a port a host
 * socket holds (udp_ephemeral_unshared).  0 or -errno.
 */
int
svaddr_udp_autobind(struct supervisor *sv, const struct call *c)
{
	struct addr_buf any = { .opath = -1 };
	struct netpolicy_addr ip;

	if (c->type != SOCK_DGRAM ||
	    (c->domain != AF_INET && c->domain != AF_INET6) || !call_reuses(c))
		return 0;
	any.len = sizeof(any.u);
	if (getsockname(c->sock, &any.u.sa, &any.len) < 0 ||
	    netpolicy_addr_from_sockaddr(&any.u, any.len, &ip) < 0 ||
	    ip.port != 0)
		return 0;
	memset(&any.u, 0, sizeof(any.u));
	any.u.sa.sa_family = (sa_family_t)c->domain;
	any.len = c->domain == AF_INET ? sizeof(struct sockaddr_in)
				       : sizeof(struct sockaddr_in6);
	if (bind(c->sock, &any.u.sa, any.len) < 0)
		return -errno;
	return udp_ephemeral_unshared(sv, c, &any);
}

/* The port in an IP socket address (either family). */
static void
sockaddr_set_port(struct addr_buf *a, uint16_t port)
{
	if (a->u.sa.sa_family == AF_INET6)
		((struct sockaddr_in6 *)&a->u)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)&a->u)->sin_port = htons(port);
}

/*
 * Whether the sandbox's listener cookie still listens at at (an address
 * and port): the listener the kernel's lookup finds there.  Whether
 * nothing else does is own_socket's to ask, at the connect.
 */
static bool
private_listening(const struct netpolicy_addr *at, uint64_t cookie)
{
	uint64_t found;

	return sockdiag_inet(at->family, at->a, at->port, false, &found) == 0 &&
	       found == cookie;
}

/*
 * A TCP connect to a port one of the sandbox's own listeners asked for
 * (private_bind): to where that listener is, while it still listens
 * there (whether it is there alone, the decision asks: own_socket, told
 * what was found).
 */
static void
private_destination(struct supervisor *sv, const struct call *c,
		    struct addr_buf *a)
{
	const struct netpolicy_private *p;
	struct netpolicy_addr d;

	if (sv->own->n_priv == 0 || c->type != SOCK_STREAM ||
	    (c->domain != AF_INET && c->domain != AF_INET6) ||
	    a->u.sa.sa_family == AF_UNSPEC ||
	    netpolicy_addr_from_sockaddr(&a->u, a->len, &d) < 0)
		return;
	netpolicy_addr_destination(&d);
	if ((p = netpolicy_own_private(sv->own, &d)) == NULL)
		return;
	d.port = p->port;
	if (!private_listening(&d, p->cookie))
		return;
	sockaddr_set_port(a, p->port);
	sv->found_set = true;
	sv->found_at = d;
	sv->found_cookie = p->cookie;
}

int
svaddr_connect(struct supervisor *sv, struct call *c)
{
	struct addr_buf a;
	int r, e, fl;

	if ((r = svaddr_read(c, c->req->data.args[1], c->req->data.args[2],
			     &a)) < 0 ||
	    (r = svcall_open(sv, c)) < 0)
		return r == SVCALL_NO_SUBSTITUTE
			       ? svcall_no_getfd(sv, c, NETPOLICY_CONNECT)
			       : r;
	/* Swapped or relayed: the socket installed is theirs. */
	if ((r = svnames_swap(sv, c, &a, true)) < 0 || r == SWAP_DONE) {
		c->made = false;
		svcall_hold(sv, c);
		return r < 0 ? r : 0;
	}
	if (r == SWAP_NO) {
		private_destination(sv, c, &a);
		r = svaddr_check(sv, c, NETPOLICY_CONNECT, &a);
		sv->found_set = false;
		if (r < 0)
			return r;
		/* To a learned address: the name is checked (relay.h). */
		if ((r = svnames_relay(sv, c, &a)) < 0 || r == SWAP_DONE) {
			c->made = false;
			return r < 0 ? r : 0;
		}
	}
	if ((r = svaddr_check_route(sv, c, NETPOLICY_CONNECT, &a)) < 0 ||
	    (r = svaddr_udp_autobind(sv, c)) < 0 ||
	    (r = svcall_valid(sv, c)) < 0 || (r = svcall_install(sv, c)) < 0) {
		if (a.opath >= 0)
			close(a.opath);
		return r;
	}
	/* A blocking connect runs in the background: non-blocking on the
	 * caller's file for the moment it takes to start, then answered
	 * from poll.  The caller may clear O_NONBLOCK meanwhile: the
	 * connect is bounded in time all the same (svcall_connect), and
	 * its EINTR read as the non-blocking answer it stands for (a TCP
	 * connect goes on; a unix one to a full backlog is tried again). */
	fl = fcntl(c->sock, F_GETFL);
	if (!c->nonblock)
		fcntl(c->sock, F_SETFL, fl | O_NONBLOCK);
	r = svcall_connect(c->sock, &a.u.sa, a.len);
	e = errno;
	if (r < 0 && e == EINTR)
		e = c->domain == AF_UNIX ? EAGAIN : EINPROGRESS;
	if (!c->nonblock)
		fcntl(c->sock, F_SETFL, fl);
	if (a.opath >= 0)
		close(a.opath);
	/* Without pidfd_getfd, a non-blocking caller's stream socket still
	 * connecting is held a moment (its second connect gets EALREADY or
	 * EISCONN from it), then let go (SV_HOLD_CONNECTING_NS).  A
	 * blocking caller never saw EINPROGRESS. */
	if (c->type == SOCK_STREAM && c->nonblock && r < 0 && e == EINPROGRESS)
		svcall_hold_connect(sv, c, false);
	if (r == 0 || e == EINPROGRESS)
		proxy_note(sv, c, &a);
	if (r == 0)
		return 0;
	if (!c->nonblock && e == EINPROGRESS)
		return svcall_queue(sv, c, PENDING_CONNECT);
	/* A unix listener with a full backlog: a blocking caller waits. */
	if (!c->nonblock && e == EAGAIN && c->domain == AF_UNIX)
		return svcall_queue(sv, c, PENDING_TIMER);
	return -e;
}

/*
 * A TCP bind to a loopback port no rule publishes
 * (netpolicy_bind_published): the sandbox's own server, reachable from
 * the sandbox alone (DESIGN.md §16).  The supervisor binds it to a port
 * of the kernel's choosing instead, and sends the sandbox's clients of
 * the asked port there (private_destination): a host program knocking at
 * the asked port finds nothing (its connection is refused at once), and
 * a host service may still take that port.  A socket of a SO_REUSEPORT
 * group of the sandbox's own joins its group where it now listens.  The
 * command is told (filtered/unpublished), with the flag that publishes
 * the port.
 */
static int
private_bind(struct supervisor *sv, struct call *c, struct addr_buf *a,
	     const struct netpolicy_addr *asked)
{
	const struct netpolicy_private *p =
		netpolicy_own_private(sv->own, asked);
	struct netpolicy_addr at = *asked, got;
	struct addr_buf self = { .len = sizeof(self.u), .opath = -1 };
	_cleanup_free_ char *t = NULL;
	uint64_t cookie;

	at.port = p != NULL ? p->port : 0;
	if (at.port == 0 || !call_reuses(c) ||
	    !private_listening(&at, p->cookie))
		at.port = 0;
	sockaddr_set_port(a, at.port);
	if (bind(c->sock, &a->u.sa, a->len) < 0) {
		/* The group's port went to someone else: a port of its own. */
		if (at.port == 0 || errno != EADDRINUSE)
			return -errno;
		sockaddr_set_port(a, 0);
		if (bind(c->sock, &a->u.sa, a->len) < 0)
			return -errno;
	}
	if (getsockname(c->sock, &self.u.sa, &self.len) < 0 ||
	    netpolicy_addr_from_sockaddr(&self.u, self.len, &got) < 0 ||
	    sockdiag_cookie(c->sock, &cookie) < 0)
		return -EADDRNOTAVAIL;
	own_ip_record(sv, c);
	netpolicy_own_add_private(sv->own, asked, got.port, cookie);
	t = value_addr_format(asked);
	svlog_blocked(sv, NETPOLICY_BIND, NETPOLICY_TCP, t, c->pid, c->pidfd,
		      REFUSAL_UNPUBLISHED);
	return 0;
}

int
svaddr_bind(struct supervisor *sv, struct call *c)
{
	struct addr_buf a;
	struct netpolicy_addr ip;
	bool inet;
	int r;

	if ((r = svaddr_read(c, c->req->data.args[1], c->req->data.args[2],
			     &a)) < 0 ||
	    (r = svcall_open(sv, c)) < 0)
		return r == SVCALL_NO_SUBSTITUTE
			       ? svcall_no_getfd(sv, c, NETPOLICY_BIND)
			       : r;
	if (c->domain == AF_UNIX && a.len > sizeof(sa_family_t) &&
	    a.u.sa.sa_family == AF_UNIX && a.u.un.sun_path[0] != '\0')
		return svunix_bind(sv, c, &a);
	/* Without pidfd_getfd the socket bound is the supervisor's, held
	 * for the listen, connect or sends that follow. */
	if ((r = svaddr_check(sv, c, NETPOLICY_BIND, &a)) < 0 ||
	    (r = svcall_valid(sv, c)) < 0)
		return r;
	svcall_release_port(sv, c, &a.u.sa, a.len);
	if ((r = svcall_install(sv, c)) < 0)
		return r;
	svcall_hold(sv, c);
	inet = (c->domain == AF_INET || c->domain == AF_INET6) &&
	       netpolicy_addr_from_sockaddr(&a.u, a.len, &ip) == 0;
	if (inet && c->type == SOCK_STREAM && ip.port != 0 &&
	    !netpolicy_bind_published(sv->rules, NETPOLICY_TCP, &ip))
		return private_bind(sv, c, &a, &ip);
	if (inet && ip.port == 0 && c->type == SOCK_STREAM &&
	    netpolicy_refuses_sharing(sv->rules)) {
		if ((r = tcp_ephemeral_unshared(sv, c, &a)) < 0)
			return r;
	} else if (bind(c->sock, &a.u.sa, a.len) < 0) {
		return -errno;
	}
	if (c->domain == AF_UNIX) {
		svunix_record(sv, c->sock, NULL);
		return 0;
	}
	if (inet && ip.port == 0 && c->type == SOCK_DGRAM && call_reuses(c) &&
	    (r = udp_ephemeral_unshared(sv, c, &a)) < 0)
		return r;
	if (c->domain == AF_INET || c->domain == AF_INET6)
		own_ip_record(sv, c);
	return 0;
}

/*
 * listen(): on an unbound IP socket the kernel binds the wildcard
 * address on an ephemeral port first, which is checked as that bind
 * (and made loopback).  Then a TCP listener must not share its port with
 * a socket the sandbox did not create (filtered/shared-port: a
 * SO_REUSEPORT group, the other family's loopback).
 */
int
svaddr_listen(struct supervisor *sv, struct call *c)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct netpolicy_addr ip;
	bool inet;
	int r;

	if ((r = svcall_open(sv, c)) < 0)
		return r == SVCALL_NO_SUBSTITUTE
			       ? svcall_no_getfd(sv, c, NETPOLICY_LISTEN)
			       : r;
	inet = (c->domain == AF_INET || c->domain == AF_INET6) &&
	       getsockname(c->sock, (struct sockaddr *)&ss, &len) == 0 &&
	       netpolicy_addr_from_sockaddr(&ss, len, &ip) == 0;
	if (inet && ip.port == 0) {
		bool loopback = netpolicy_bind_address(sv->rules, &ip);
		struct netpolicy_query q = { .op = NETPOLICY_LISTEN,
					     .proto = svcall_proto(c),
					     .addr = ip,
					     .now_ns = mono_ns() };
		enum refusal rule =
			netpolicy_decide(sv->rules, &q, NULL).refusal;

		if (rule != REFUSAL_NONE) {
			_cleanup_free_ char *t = value_addr_format(&ip);

			svlog_blocked(sv, NETPOLICY_LISTEN, svcall_proto(c), t,
				      c->pid, c->pidfd, rule);
			return -EACCES;
		}
		/* The kernel would bind the wildcard: bind loopback first. */
		sockaddr_set_ip(&ss, &ip);
		if ((r = svcall_valid(sv, c)) < 0 ||
		    (r = svcall_install(sv, c)) < 0)
			return r;
		if (loopback && c->type == SOCK_STREAM &&
		    netpolicy_refuses_sharing(sv->rules)) {
			struct addr_buf b = { .len = len, .opath = -1 };

			memcpy(&b.u.ss, &ss, sizeof(ss));
			if ((r = tcp_ephemeral_unshared(sv, c, &b)) < 0)
				return r;
		} else if (loopback &&
			   bind(c->sock, (struct sockaddr *)&ss, len) < 0) {
			return -errno;
		}
		len = sizeof(ss);
		inet = getsockname(c->sock, (struct sockaddr *)&ss, &len) ==
			       0 &&
		       netpolicy_addr_from_sockaddr(&ss, len, &ip) == 0;
	}
	if (inet && c->type == SOCK_STREAM && ip.port != 0) {
		struct netpolicy_query q = { .op = NETPOLICY_LISTEN,
					     .proto = NETPOLICY_TCP,
					     .addr = ip };

		sv->deciding = c->sock;
		if (netpolicy_refuses_sharing(sv->rules) &&
		    port_shared(sv, &q)) {
			_cleanup_free_ char *t = value_addr_format(&ip);

			svlog_blocked(sv, NETPOLICY_LISTEN, NETPOLICY_TCP, t,
				      c->pid, c->pidfd, REFUSAL_SHARED_PORT);
			return -EADDRINUSE;
		}
	}
	if ((r = svcall_valid(sv, c)) < 0 || (r = svcall_install(sv, c)) < 0)
		return r;
	if (listen(c->sock, (int)(uint32_t)c->req->data.args[1]) < 0)
		return -errno;
	/* A listener is the caller's alone now: what follows (accept) is
	 * not mediated. */
	svcall_unhold(sv, c);
	if (c->domain == AF_UNIX)
		svunix_record(sv, c->sock, NULL);
	else
		own_ip_record(sv, c);
	return 0;
}
