/*
 * The network supervisor's names (supervise-int.h), allow-host through llwrap's
 * resolver (dnsstub.h, DESIGN.md §6.1 design (a)): the resolver's
 * records (refusals logged, answers learned before any decision), the
 * named lookup netpolicy_decide asks, /etc/hosts, the swap of a
 * socket to a resolver's port 53 for one the resolver made in its own
 * namespace (SECCOMP_IOCTL_NOTIF_ADDFD), and the name check on
 * connections to learned addresses: a socket to llwrap-relay (relay.h)
 * installed the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "channel.h"
#include "cleanup.h"
#include "dnsstub.h"
#include "fdutil.h"
#include "hostdns.h"
#include "httpreq.h"
#include "mono.h"
#include "relay.h"
#include "testhook.h"
#include "sockdiag.h"
#include "supervise-int.h"
#include "xalloc.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

/* The relay gone, or never up: said once, in the log. */
static void
relay_down(struct supervisor *sv, const char *why)
{
	_cleanup_free_ char *l = xasprintf(
		"%s; every connect whose server name it would check is "
		"refused (filtered/relay)",
		why);

	svlog_fault(sv, l);
	svnames_relay_close(sv);
}

/*
 * At the first connect to relay: the loopback listener each relayed
 * connection's pair is made through, and the relay's set-up, waited for
 * (RELAY_START_MS).  0, or -1 when there is no relay (said in the log).
 */
static int
relay_go(struct supervisor *sv)
{
	struct sockaddr_in at = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(at);
	struct pollfd pfd = { .fd = sv->relay, .events = POLLIN };
	uint64_t deadline = mono_ns() + RELAY_START_MS * 1000000ull;
	const struct relay_status *st;
	struct channel_msg m;
	char *cause = NULL;
	int l, r;

	if (sv->relay_up || sv->relay < 0)
		return sv->relay < 0 ? -1 : 0;
	/* The resolver forks the relay at its own start: a connect to an
	 * /etc/hosts address may come before any query. */
	if (dnsstub_wake(sv->stub, deadline / 1000000, &cause) < 0) {
		relay_down(sv, cause);
		free(cause);
		return -1;
	}
	/* TCP_NODELAY on the listener: its accepted ends, the relay's
	 * side of each pair, have it (relay.h); and Reno, which every
	 * kernel allows, in place of a pacing congestion control (BBR, a
	 * host's default): loopback has no path to model, and the relay's
	 * sends paced there stall a bulk transfer's catching up after its
	 * reader ran late (DESIGN.md §6.1). */
	l = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (l >= 0)
		(void)setsockopt(l, IPPROTO_TCP, TCP_CONGESTION, "reno", 4);
	if (l < 0 ||
	    setsockopt(l, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int)) <
		    0 ||
	    bind(l, (struct sockaddr *)&at, sizeof(at)) < 0 ||
	    listen(l, RELAY_MAX_CONNS) < 0 ||
	    getsockname(l, (struct sockaddr *)&at, &len) < 0) {
		_cleanup_free_ char *why = xasprintf(
			"the supervisor cannot listen on loopback for "
			"llwrap-relay: %s",
			strerror(errno));

		if (l >= 0)
			close(l);
		relay_down(sv, why);
		return -1;
	}
	sv->relay_listener = l;
	sv->relay_port = ntohs(at.sin_port);
	if ((r = channel_send(sv->relay, RELAY_START, NULL, 0, NULL, 0, 0)) <
	    0) {
		relay_down(sv, "llwrap-relay ended before its first "
			       "connection");
		return -1;
	}
	for (;;) {
		uint64_t now = mono_ns();

		if (now >= deadline) {
			relay_down(sv, "llwrap-relay did not set up within "
				       "5 s");
			return -1;
		}
		r = poll(&pfd, 1, (int)((deadline - now) / 1000000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r > 0)
			break;
	}
	do
		r = channel_recv(sv->relay, &m, 0, 0);
	while (r == -EINTR);
	if (r <= 0 ||
	    (st = channel_expect(&m, RELAY_STATUS, sizeof(*st))) == NULL) {
		relay_down(sv, "llwrap-relay ended at its set-up");
		return -1;
	}
	if (st->err != 0) {
		_cleanup_free_ char *why = xasprintf(
			"%.*s", (int)strnlen(st->why, sizeof(st->why)),
			st->why);

		relay_down(sv, why);
		return -1;
	}
	sv->relay_up = true;
	return 0;
}

void
svnames_relay_close(struct supervisor *sv)
{
	if (sv->relay >= 0)
		close(sv->relay);
	if (sv->relay_listener >= 0)
		close(sv->relay_listener);
	sv->relay = sv->relay_listener = -1;
	for (size_t i = 0; i < SV_MAX_RELAYED; i++) {
		if (sv->relayed[i].pidfd >= 0)
			close(sv->relayed[i].pidfd);
		sv->relayed[i].pidfd = -1;
	}
}

void
supervise_set_stub(struct supervisor *sv, struct dnsstub *stub)
{
	_cleanup_close_ int fd = open("/etc/hosts", O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *hosts = NULL;
	const struct net_plan *np = sv->net;
	size_t max = 256;

	netpolicy_rules_use_stub(sv->rules);
	sv->stub = stub;
	sv->learned = hostaddrs_new();
	/* The relay (relay.h), forked by the resolver outside every
	 * namespace; it sets up at the first connect it relays (relay_go).
	 * Fails closed: without it a connect that needs the check is
	 * refused. */
	sv->relay = dnsstub_relay(stub);
	/* /etc/hosts answers before DNS: its addresses for allowed names
	 * are allowed for the whole run, but never a local one. */
	if (fd >= 0 && fd_read_all(fd, 1 << 20, &hosts, NULL) == 0) {
		size_t n, k = 0;

		sv->fixed = xcalloc(max, sizeof(*sv->fixed));
		n = hostdns_hosts_file(np->hosts, np->n_hosts, hosts, sv->fixed,
				       max);
		for (size_t i = 0; i < n; i++)
			if (!netpolicy_addr_local(&sv->fixed[i].addr) &&
			    !sockdiag_host_local(sv->host, &sv->fixed[i].addr))
				sv->fixed[k++] = sv->fixed[i];
		sv->n_fixed = k;
	}
}

/* ---- allow-host through llwrap's resolver (design (a)) ---- */

/* The clock learned addresses expire by, in seconds. */
static uint64_t
learned_now(uint64_t now_ns)
{
	return now_ns / 1000000000u + testhook_clock_skew();
}

/* The decision's lookup (netpolicy_lookup) and the learning's: whether
 * a is this host or on one of its links (sockdiag_host_local). */
bool
svnames_host_local(void *ctx, const struct netpolicy_addr *a)
{
	const struct supervisor *sv = ctx;

	return sockdiag_host_local(sv->host, a);
}

static struct asker *
asker_find(struct supervisor *sv, uint16_t port, uint8_t proto)
{
	for (size_t i = 0; i < SV_MAX_ASKERS; i++)
		if (sv->askers[i].pid > 0 && sv->askers[i].port == port &&
		    sv->askers[i].proto == proto)
			return &sv->askers[i];
	return NULL;
}

/* One record of the stub's: a refusal is logged, an answer learned. */
static void
stub_record(struct supervisor *sv, const struct dnsstub_record *rec)
{
	struct asker *who = asker_find(sv, rec->client_port, rec->proto);
	struct netpolicy_addr refused[DNS_ANSWER_ADDRS];
	size_t n_refused;

	if (rec->kind == DNSSTUB_REFUSED) {
		svlog_blocked(sv, NETPOLICY_QUERY, rec->proto, rec->name,
			      who ? who->pid : 0, who ? who->pidfd : -1,
			      (enum refusal)rec->log_rule);
		return;
	}
	if (rec->rule < 0 || (size_t)rec->rule >= sv->net->n_hosts)
		return;
	hostdns_learn(sv->learned, &rec->answer, (uint16_t)rec->rule,
		      learned_now(mono_ns()), svnames_host_local, sv, refused,
		      DNS_ANSWER_ADDRS, &n_refused);
	for (size_t i = 0; i < n_refused; i++) {
		sv->rebind[sv->next_rebind] = refused[i];
		sv->next_rebind = (sv->next_rebind + 1) % SV_MAX_REBIND;
		if (sv->n_rebind < SV_MAX_REBIND)
			sv->n_rebind++;
	}
}

/* Take what the stub reported: before any decision, so an answer the
 * command has is learned. */
void
svnames_drain(struct supervisor *sv)
{
	struct dnsstub_record rec;
	int r;

	while (sv->stub != NULL && !sv->stub_gone &&
	       (r = dnsstub_read(sv->stub, &rec)) != 0) {
		if (r < 0) {
			/* Killed: its socket would wake every poll.  DNS
			 * now fails (closed), nothing else changes. */
			sv->stub_gone = true;
			break;
		}
		stub_record(sv, &rec);
	}
}

enum netpolicy_named
svnames_lookup(void *ctx, const struct netpolicy_query *q)
{
	struct supervisor *sv = ctx;
	const struct net_plan *np = sv->net;
	const struct llw_ports *ports =
		q->proto == NETPOLICY_TCP ? np->connect_tcp : np->connect_udp;
	bool port_only;
	int rule;

	svnames_drain(sv);
	switch (hostaddrs_decide(sv->learned, np->hosts, np->n_hosts, ports,
				 &q->addr, learned_now(q->now_ns), &rule)) {
	case HOSTRULE_ALLOWED:
		return NETPOLICY_NAMED_YES;
	case HOSTRULE_PORT:
		port_only = true;
		break;
	default:
		port_only = false;
		break;
	}
	for (size_t i = 0; i < sv->n_fixed; i++) {
		if (!netpolicy_addr_same(&sv->fixed[i].addr, &q->addr))
			continue;
		if (hostrule_port(&np->hosts[sv->fixed[i].rule], ports,
				  q->addr.port))
			return NETPOLICY_NAMED_YES;
		port_only = true;
	}
	if (port_only)
		return NETPOLICY_NAMED_PORT;
	for (size_t i = 0; i < sv->n_rebind; i++)
		if (netpolicy_addr_same(&sv->rebind[i], &q->addr))
			return NETPOLICY_NAMED_REBIND;
	return NETPOLICY_NAMED_NO;
}

/* Whether the caller's descriptor is close-on-exec (its fdinfo). */
static bool
caller_cloexec(const struct call *c)
{
	char path[80], s[128], *flags;
	unsigned long v = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)c->pid,
		 (int)(uint32_t)c->req->data.args[0]);
	{
		_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);

		/* One read: "flags:" is its second line (proc(5)). */
		if (fd < 0 || (n = read(fd, s, sizeof(s) - 1)) <= 0)
			return true;
		s[n] = '\0';
	}
	flags = strstr(s, "flags:");
	if (flags != NULL)
		v = strtoul(flags + 6, NULL, 8);
	return flags == NULL || (v & O_CLOEXEC);
}

/*
 * A connect (connected) or send to a resolver's port 53 under llwrap's
 * resolver: the caller's socket becomes one the stub made in its own
 * namespace (connected to that resolver's address there, for a
 * connect), at the same descriptor number (SECCOMP_IOCTL_NOTIF_ADDFD),
 * so the replies come from the address the command expects.  Returns a
 * SWAP_* or -errno.
 */
int
svnames_swap(struct supervisor *sv, struct call *c, const struct addr_buf *a,
	     bool connected)
{
	struct netpolicy_addr ip;
	struct seccomp_notif_addfd af = { 0 };
	struct sockaddr_storage self;
	socklen_t sl = sizeof(self);
	struct asker *who;
	_cleanup_free_ char *cause = NULL;
	uint64_t cookie = 0;
	bool resolver = false;
	int fd, r;

	if (sv->stub == NULL ||
	    (c->domain != AF_INET && c->domain != AF_INET6) ||
	    (c->type != SOCK_DGRAM && c->type != SOCK_STREAM) ||
	    (c->type == SOCK_STREAM && !connected) ||
	    netpolicy_addr_from_sockaddr(&a->u, a->len, &ip) < 0 ||
	    ip.port != 53)
		return SWAP_NO;
	for (size_t i = 0; i < sv->n_dns && !resolver; i++)
		resolver = netpolicy_addr_same(&sv->dns[i], &ip);
	if (!resolver)
		return SWAP_NO;
	if (sockdiag_cookie(c->sock, &cookie) == 0)
		for (size_t i = 0; i < sv->n_swapped; i++)
			if (sv->swapped[i] == cookie)
				return SWAP_ALREADY;
	if (sv->stub_gone)
		return -ECONNREFUSED;
	if ((r = dnsstub_socket(sv->stub, c->domain, c->type, &ip, connected,
				&fd, &cause)) < 0) {
		/* It could not start (at the first query): said once, and
		 * every query fails at once from now on. */
		if (cause != NULL) {
			svlog_fault(sv, cause);
			sv->stub_gone = true;
			return -ECONNREFUSED;
		}
		return r;
	}
	if ((c->nonblock && fcntl(fd, F_SETFL, O_NONBLOCK) < 0) ||
	    (r = svcall_valid(sv, c)) < 0) {
		r = r < 0 ? r : -errno;
		close(fd);
		return r;
	}
	af.id = c->req->id;
	af.flags = SECCOMP_ADDFD_FLAG_SETFD;
	af.srcfd = (uint32_t)fd;
	af.newfd = (uint32_t)c->req->data.args[0];
	af.newfd_flags = caller_cloexec(c) ? O_CLOEXEC : 0;
	if (ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &af) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (sockdiag_cookie(fd, &cookie) == 0) {
		sv->swapped[sv->next_swapped] = cookie;
		sv->next_swapped = (sv->next_swapped + 1) % SV_MAX_SWAPPED;
		if (sv->n_swapped < SV_MAX_SWAPPED)
			sv->n_swapped++;
	}
	/* Who asks from this port, for the log of what the stub refuses. */
	if (getsockname(fd, (struct sockaddr *)&self, &sl) == 0) {
		who = &sv->askers[sv->next_asker];
		sv->next_asker = (sv->next_asker + 1) % SV_MAX_ASKERS;
		if (who->pidfd >= 0)
			close(who->pidfd);
		who->port = ntohs(
			self.ss_family == AF_INET6
				? ((struct sockaddr_in6 *)&self)->sin6_port
				: ((struct sockaddr_in *)&self)->sin_port);
		who->proto = (uint8_t)svcall_proto(c);
		who->pid = c->pid;
		who->pidfd = fcntl(c->pidfd, F_DUPFD_CLOEXEC, 3);
	}
	close(c->sock);
	c->sock = fd;
	return SWAP_DONE;
}

/* ---- The name check on connections to learned addresses ---- */

/* Socket options a client sets before its connect, carried over to
 * the socket that takes its place. */
static const struct {
	int level, name;
	socklen_t len;
} carried[] = {
	{ IPPROTO_TCP, TCP_NODELAY, sizeof(int) },
	{ SOL_SOCKET, SO_KEEPALIVE, sizeof(int) },
	{ IPPROTO_TCP, TCP_KEEPIDLE, sizeof(int) },
	{ IPPROTO_TCP, TCP_KEEPINTVL, sizeof(int) },
	{ IPPROTO_TCP, TCP_KEEPCNT, sizeof(int) },
	{ IPPROTO_TCP, TCP_USER_TIMEOUT, sizeof(int) },
	{ SOL_SOCKET, SO_RCVTIMEO, sizeof(struct timeval) },
	{ SOL_SOCKET, SO_SNDTIMEO, sizeof(struct timeval) },
};
#define N_CARRIED (sizeof(carried) / sizeof(carried[0]))

/* A new socket's values of the options carried, read at the first
 * relayed connect: a caller's value that equals its own is not set
 * again (most callers set none). */
static struct {
	bool known;
	socklen_t len[N_CARRIED];
	char v[N_CARRIED][sizeof(struct timeval)];
} carried_default;

/* Give client the options the caller set on sock. */
static void
carry_options(int sock, int client)
{
	if (!carried_default.known) {
		for (size_t i = 0; i < N_CARRIED; i++) {
			carried_default.len[i] = carried[i].len;
			if (getsockopt(client, carried[i].level,
				       carried[i].name, carried_default.v[i],
				       &carried_default.len[i]) < 0)
				carried_default.len[i] = 0; /* set always */
		}
		carried_default.known = true;
	}
	for (size_t i = 0; i < N_CARRIED; i++) {
		char v[sizeof(struct timeval)];
		socklen_t len = carried[i].len;

		if (getsockopt(sock, carried[i].level, carried[i].name, v,
			       &len) < 0 ||
		    (len == carried_default.len[i] &&
		     memcmp(v, carried_default.v[i], len) == 0))
			continue;
		(void)setsockopt(client, carried[i].level, carried[i].name, v,
				 len);
	}
}

/* The relay's listener as a socket of family domain reaches it (an IPv6
 * one IPv4-mapped). */
static socklen_t
relay_listener_addr(const struct supervisor *sv, int domain,
		    struct sockaddr_storage *to)
{
	memset(to, 0, sizeof(*to));
	if (domain == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)to;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(sv->relay_port);
		s6->sin6_addr.s6_addr[10] = s6->sin6_addr.s6_addr[11] = 0xff;
		s6->sin6_addr.s6_addr[12] = 127;
		s6->sin6_addr.s6_addr[15] = 1;
		return sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)to;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(sv->relay_port);
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*s4);
	}
}

/*
 * *server, the listener's end of the connection from sock, which
 * connected to it.  A connection of another process's that reached the
 * listener is closed.  0 or -errno.
 */
static int
relay_accept(struct supervisor *sv, int sock, int *server)
{
	struct sockaddr_storage self, peer;
	socklen_t sl = sizeof(self);

	if (getsockname(sock, (struct sockaddr *)&self, &sl) < 0)
		return -errno;
	for (int tries = 0; tries < 16; tries++) {
		socklen_t pl = sizeof(peer);
		struct pollfd pfd = { .fd = sv->relay_listener,
				      .events = POLLIN };
		int a = accept4(sv->relay_listener, (struct sockaddr *)&peer,
				&pl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		const struct sockaddr_in *p4 = (struct sockaddr_in *)&peer;
		const struct sockaddr_in6 *m6 = (struct sockaddr_in6 *)&self;
		const struct sockaddr_in *m4 = (struct sockaddr_in *)&self;
		uint16_t want_port;
		uint32_t want_addr;

		if (a < 0) {
			/* On loopback the handshake is done by now. */
			if (errno != EAGAIN || poll(&pfd, 1, 10) <= 0)
				return -ECONNREFUSED;
			continue;
		}
		/* Ours is the one from our socket's own address and port,
		 * which no other socket can bind while ours holds it (the
		 * port alone, from 127.0.0.2, could be another process's). */
		if (self.ss_family == AF_INET6) {
			want_port = m6->sin6_port;
			memcpy(&want_addr, &m6->sin6_addr.s6_addr[12],
			       sizeof(want_addr));
		} else {
			want_port = m4->sin_port;
			want_addr = m4->sin_addr.s_addr;
		}
		if (peer.ss_family == AF_INET && p4->sin_port == want_port &&
		    p4->sin_addr.s_addr == want_addr) {
			*server = a;
			return 0;
		}
		close(a); /* not ours */
	}
	return -ECONNREFUSED;
}

/*
 * A connected pair of TCP sockets on loopback, made through the relay's
 * listener: *client of family domain, *server the listener's accepted
 * end.  0 or -errno.
 */
static int
relay_pair(struct supervisor *sv, int domain, int *client, int *server)
{
	struct sockaddr_storage to;
	socklen_t tl = relay_listener_addr(sv, domain, &to);
	_cleanup_close_ int s = -1;
	int zero = 0, r;

	s = socket(domain, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (domain == AF_INET6)
		(void)setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &zero,
				 sizeof(zero));
	if (connect(s, (struct sockaddr *)&to, tl) < 0 && errno != EINPROGRESS)
		return -errno;
	if ((r = relay_accept(sv, s, server)) < 0)
		return r;
	*client = s;
	s = -1;
	return 0;
}

/*
 * The caller's own socket connected to the relay's listener (*server its
 * accepted end): nothing installed in its place, its options, flags and
 * descriptor its own, as a connect decided by address leaves them.  The
 * connect is the supervisor's, non-blocking (on loopback the handshake
 * is done as it returns).  Where the listener cannot be reached from it
 * (a socket of another network namespace, or of a kernel that does not
 * say which; an IPv6 socket that takes no IPv4; one bound to a device: a
 * connect refused at once; none is bound to an address not this host's,
 * IP_FREEBIND being refused by the filter) or its connect would send
 * nothing yet (TCP Fast Open's), 1: a pair of the supervisor's instead
 * (relay_pair).  0, 1 or -errno.
 */
static int
relay_own(struct supervisor *sv, const struct call *c, int *server)
{
	static uint64_t own; /* the listener's network namespace */
	struct sockaddr_storage to;
	socklen_t tl = relay_listener_addr(sv, c->domain, &to), l;
	uint64_t theirs = 0;
	int v = 0, fl = 0, r, e;

	l = sizeof(own);
	if (own == 0 && getsockopt(sv->relay_listener, SOL_SOCKET,
				   SO_NETNS_COOKIE, &own, &l) < 0)
		return 1;
	l = sizeof(theirs);
	if (getsockopt(c->sock, SOL_SOCKET, SO_NETNS_COOKIE, &theirs, &l) < 0 ||
	    theirs != own)
		return 1;
	l = sizeof(v);
	if (c->domain == AF_INET6 &&
	    (getsockopt(c->sock, IPPROTO_IPV6, IPV6_V6ONLY, &v, &l) < 0 || v))
		return 1;
	l = sizeof(v);
	if (getsockopt(c->sock, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &v, &l) <
		    0 ||
	    v)
		return 1;
	if (!c->nonblock) {
		if ((fl = fcntl(c->sock, F_GETFL)) < 0)
			return -errno;
		(void)fcntl(c->sock, F_SETFL, fl | O_NONBLOCK);
	}
	r = connect(c->sock, (struct sockaddr *)&to, tl);
	e = errno;
	if (!c->nonblock)
		(void)fcntl(c->sock, F_SETFL, fl);
	/* Refused at once: the socket unconnected, as it was. */
	if (r < 0 && e != EINPROGRESS)
		return 1;
	return relay_accept(sv, c->sock, server);
}

int
svnames_relay(struct supervisor *sv, struct call *c, const struct addr_buf *a)
{
	const struct net_plan *np = sv->net;
	struct relay_conn req = { 0 };
	struct seccomp_notif_addfd af = { 0 };
	struct netpolicy_addr ip;
	struct relayed *slot;
	int client = -1, server = -1, r;

	if (sv->stub == NULL || c->type != SOCK_STREAM ||
	    (c->domain != AF_INET && c->domain != AF_INET6) ||
	    netpolicy_addr_from_sockaddr(&a->u, a->len, &ip) < 0 ||
	    !relay_port_checked(ip.port) ||
	    netpolicy_cidr_allows(sv->rules, &ip) != NULL)
		return SWAP_NO;
	/* The entries under which the address was learned (from the
	 * resolver's answers, and /etc/hosts), on this port. */
	req.n = (uint32_t)hostaddrs_entries(
		sv->learned, np->hosts, np->n_hosts, np->connect_tcp, &ip,
		learned_now(mono_ns()), req.entries, RELAY_ENTRIES);
	for (size_t i = 0; i < sv->n_fixed && req.n < RELAY_ENTRIES; i++)
		if (netpolicy_addr_same(&sv->fixed[i].addr, &ip) &&
		    hostrule_port(&np->hosts[sv->fixed[i].rule],
				  np->connect_tcp, ip.port))
			req.entries[req.n++] = sv->fixed[i].rule;
	if (req.n == 0)
		return SWAP_NO; /* allowed by no name: nothing to check */
	{
		struct sockaddr_storage peer;
		socklen_t pl = sizeof(peer);
		int listening = 0;
		socklen_t ll = sizeof(listening);

		/* Connected already, or listening: the kernel's answer
		 * (EISCONN, EINVAL), not a new connection in its place. */
		if (getpeername(c->sock, (struct sockaddr *)&peer, &pl) == 0 ||
		    (getsockopt(c->sock, SOL_SOCKET, SO_ACCEPTCONN, &listening,
				&ll) == 0 &&
		     listening))
			return SWAP_NO;
	}
	/* Fail closed, the refusal named: no relay, no connection. */
	if (relay_go(sv) < 0) {
		_cleanup_free_ char *t = value_addr_format(&ip);

		if ((r = svcall_valid(sv, c)) < 0)
			return r;
		svlog_blocked(sv, NETPOLICY_CONNECT, NETPOLICY_TCP, t, c->pid,
			      c->pidfd, REFUSAL_RELAY);
		return -refusal_errno(REFUSAL_RELAY);
	}
	req.id = ++sv->relay_next_id;
	req.dst = ip;
	/* The caller's socket itself where it is the supervisor's to
	 * connect; else a pair, its client end installed in its place. */
	if (c->made || c->held || (r = relay_own(sv, c, &server)) > 0) {
		if ((r = relay_pair(sv, c->domain, &client, &server)) < 0)
			return r;
		carry_options(c->sock, client);
		if (!c->nonblock)
			(void)fcntl(client, F_SETFL, 0);
	} else if (r < 0) {
		return r;
	}
	if ((r = svcall_valid(sv, c)) < 0)
		goto fail;
	r = channel_send(sv->relay, RELAY_CONN, &req, sizeof(req), &server, 1,
			 MSG_DONTWAIT);
	if (r < 0) {
		r = r == -EAGAIN ? -EAGAIN : -ECONNREFUSED;
		goto fail;
	}
	close(server);
	server = -1;
	if (client < 0)
		goto done;
	af.id = c->req->id;
	af.flags = SECCOMP_ADDFD_FLAG_SETFD;
	af.srcfd = (uint32_t)client;
	af.newfd = (uint32_t)c->req->data.args[0];
	af.newfd_flags = caller_cloexec(c) ? O_CLOEXEC : 0;
	if (ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &af) < 0) {
		r = -errno;
		goto fail;
	}
	close(c->sock);
	c->sock = client;
done:
	slot = &sv->relayed[req.id % SV_MAX_RELAYED];
	if (slot->pidfd >= 0)
		close(slot->pidfd);
	*slot = (struct relayed){
		.id = req.id,
		.pid = c->pid,
		.pidfd = fcntl(c->pidfd, F_DUPFD_CLOEXEC, 3),
		.dst = ip,
	};
	return SWAP_DONE;
fail:
	if (client >= 0)
		close(client);
	if (server >= 0)
		close(server);
	return r;
}

/*
 * A datagram to a learned address (a UDP connect or send the decision
 * allowed): QUIC, on port 443, carries its name in an Initial packet
 * the relay does not read, so it is refused (filtered/quic) where no
 * allow-cidr entry holds the address; HTTP/3 clients fall back to TCP,
 * where the name is checked.  Other UDP ports are decided by address.
 */
enum refusal
svnames_datagram(struct supervisor *sv, const struct netpolicy_addr *ip)
{
	const struct net_plan *np = sv->net;
	uint16_t e[RELAY_ENTRIES];

	if (sv->stub == NULL || ip->port != 443)
		return REFUSAL_NONE;
	for (size_t i = 0; i < np->n_cidrs; i++)
		if (netpolicy_cidr_contains(&np->cidrs[i], ip))
			return REFUSAL_NONE;
	if (hostaddrs_entries(sv->learned, np->hosts, np->n_hosts,
			      np->connect_udp, ip, learned_now(mono_ns()), e,
			      RELAY_ENTRIES) > 0)
		return REFUSAL_QUIC;
	for (size_t i = 0; i < sv->n_fixed; i++)
		if (netpolicy_addr_same(&sv->fixed[i].addr, ip))
			return REFUSAL_QUIC;
	return REFUSAL_NONE;
}

void
svnames_relay_drain(struct supervisor *sv)
{
	static struct channel_msg m;
	const struct relay_report *rep;

	while (sv->relay >= 0) {
		int r = channel_recv(sv->relay, &m, 0, MSG_DONTWAIT);
		const struct relayed *who;
		_cleanup_free_ char *addr = NULL, *t = NULL;

		if (r == -EAGAIN || r == -EINTR)
			return;
		if (r <= 0 && r != -EMSGSIZE && r != -EBADMSG) {
			/* The relay ended: relayed connects now fail. */
			relay_down(sv, "llwrap-relay ended");
			return;
		}
		if (r <= 0 ||
		    (rep = channel_expect(&m, RELAY_REPORT, sizeof(*rep))) ==
			    NULL ||
		    rep->rule == REFUSAL_NONE || rep->rule >= REFUSAL_UNKNOWN)
			continue;
		who = &sv->relayed[rep->id % SV_MAX_RELAYED];
		if (who->id != rep->id || who->pidfd < 0)
			continue;
		addr = value_addr_format(&who->dst);
		/* NAME@ADDRESS:PORT: the name the connection carried and
		 * where it went (blocked.c words the note). */
		if (memchr(rep->name, '\0', sizeof(rep->name)) != NULL &&
		    rep->name[0] != '\0' &&
		    httpreq_name_valid(rep->name, strlen(rep->name)))
			t = xasprintf("%s@%s", rep->name, addr);
		else
			t = xstrdup(addr);
		svlog_blocked(sv, NETPOLICY_CONNECT, NETPOLICY_TCP, t, who->pid,
			      who->pidfd, (enum refusal)rep->rule);
	}
}
