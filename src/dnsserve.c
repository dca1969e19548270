/*
 * llwrap's resolver, its process (DESIGN.md §6.1, design (a); dnsstub.c
 * starts it and is the supervisor's side).
 *
 * The stub is forked by llwrap before any namespace or restriction.  It
 * makes its upstream sockets (and a few TCP ones for answers too long
 * for UDP) while it is still in the host's network namespace, then
 * unshares a user and a network namespace of its own, brings lo up with
 * the resolvers' addresses, and listens on each resolver's port 53, UDP
 * and TCP: there no privilege is needed.  Then it confines itself (no
 * capability, no new privileges, a Landlock domain that reads nothing),
 * says it is ready, and serves.
 *
 * One thread; a UDP query waits for its answer in a table (the answer is
 * matched by id and source, and the id sent upstream is the stub's own);
 * a query over TCP is forwarded over TCP and waited for (two seconds at
 * most: rare, and only that client waits).
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "channel.h"
#include "cleanup.h"
#include "dnsstub-int.h"
#include "helper.h"
#include "hostdns.h"
#include "mono.h"
#include "ns.h"
#include "relay.h"
#include "testhook.h"
#include "xalloc.h"

struct pending {
	bool used;
	uint16_t id; /* the stub's, upstream */
	int server;  /* the resolver: index into st.dns */
	struct sockaddr_storage peer;
	socklen_t peer_len;
	struct dns_question q; /* the client's id */
	/* The client's question as it wrote it (its letters' case), which
	 * the answer gets back. */
	uint8_t question[DNS_NAME_MAX + 2 + 4];
	size_t question_len;
	int rule;
	uint64_t deadline;
};

struct tcp_client {
	int fd; /* -1: free */
	int server;
	size_t have;
	uint64_t deadline;
	uint16_t port;
	uint8_t buf[2 + ST_QUERY_MAX];
};

/* The stub process's state: one, a static. */
static struct {
	const struct hostrule *hosts; /* allow-host */
	size_t n_hosts;
	struct netpolicy_addr dns[ST_MAX_DNS];
	size_t n_dns;
	int udp[ST_MAX_DNS], tcp[ST_MAX_DNS];
	int up[2]; /* upstream UDP, host namespace: [0] IPv4, [1] IPv6 */
	int pool[2][ST_POOL];
	size_t n_pool[2];
	bool asked;
	int ctl, rec;
	struct pending pend[ST_MAX_PENDING];
	struct tcp_client cl[ST_MAX_TCP];
	struct hostdns_budget *budget; /* the wildcard label channel's */
} st;

static uint16_t
sockaddr_port(const struct sockaddr_storage *ss)
{
	return ntohs(ss->ss_family == AF_INET6
			     ? ((const struct sockaddr_in6 *)ss)->sin6_port
			     : ((const struct sockaddr_in *)ss)->sin_port);
}

static void
set_timeouts(int fd, unsigned ms)
{
	struct timeval tv = { .tv_sec = ms / 1000,
			      .tv_usec = (ms % 1000) * 1000 };

	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* ---- The stub process ---- */

/* A record for the supervisor; the stub waits until it is taken. */
static void
report(const struct dnsstub_record *r)
{
	if (channel_send(st.rec, ST_MSG_RECORD, r, sizeof(*r), NULL, 0, 0) < 0)
		_exit(0); /* the supervisor is gone */
}

static void
reply_udp(int server, const struct sockaddr_storage *peer, socklen_t len,
	  const void *buf, size_t n)
{
	(void)sendto(st.udp[server], buf, n, MSG_DONTWAIT | MSG_NOSIGNAL,
		     (const struct sockaddr *)peer, len);
}

static void
reply_tcp(struct tcp_client *c, const uint8_t *buf, size_t n)
{
	uint8_t len[2] = { (uint8_t)(n >> 8), (uint8_t)n };
	struct iovec iov[2] = { { len, 2 }, { (void *)buf, n } };
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };

	/* Small, and the client reads: a client that does not is
	 * dropped. */
	if (sendmsg(c->fd, &msg, MSG_NOSIGNAL) != (ssize_t)(n + 2)) {
		close(c->fd);
		c->fd = -1;
	}
}

/* The answer (an error, for a query it cannot forward) to the client
 * of a query. */
struct client {
	int server;
	int proto; /* NETPOLICY_UDP or NETPOLICY_TCP */
	const struct sockaddr_storage *peer;
	socklen_t peer_len;
	struct tcp_client *tcp;
	uint16_t port;
};

static void
reply(const struct client *cl, const uint8_t *buf, size_t n)
{
	if (cl->proto == NETPOLICY_TCP)
		reply_tcp(cl->tcp, buf, n);
	else
		reply_udp(cl->server, cl->peer, cl->peer_len, buf, n);
}

/* An error to the client of q, whose question section, as it wrote it,
 * is question[0..len): built from the client's own bytes alone. */
static void
reply_error(const struct client *cl, const struct dns_question *q,
	    const uint8_t *question, size_t len, uint8_t rcode)
{
	uint8_t out[512];
	int n = dns_error_build(q, question, len, rcode, out, sizeof(out));

	if (n > 0)
		reply(cl, out, (size_t)n);
}

/* The same, for a query the client sent as query (q read from it). */
static void
reply_query_error(const struct client *cl, const uint8_t *query,
		  const struct dns_question *q, uint8_t rcode)
{
	reply_error(cl, q, query + DNS_HEADER_LEN, q->end - DNS_HEADER_LEN,
		    rcode);
}

/* Learn from an answer (report it), then pass it on. */
static void
answered(const struct client *cl, const struct dns_question *q, int rule,
	 uint8_t *buf, size_t n, const uint8_t *question, size_t question_len)
{
	struct dnsstub_record r = { .kind = DNSSTUB_ANSWERED,
				    .proto = (uint8_t)cl->proto,
				    .client_port = cl->port,
				    .rule = rule };

	/* The stub asked in lower case: the client gets its own question
	 * back (the same length; names in the answer point at it). */
	if (dns_answer_for_client(buf, n, q, question, question_len,
				  &r.answer) < 0) {
		reply_error(cl, q, question, question_len, DNS_RCODE_SERVFAIL);
		return;
	}
	snprintf(r.name, sizeof(r.name), "%s", q->name);
	report(&r);
	reply(cl, buf, n);
}

static void
ask_refill(void)
{
	struct dnsstub_record r = { .kind = REC_NEED_TCP };

	if (st.asked)
		return;
	st.asked = true;
	report(&r);
}

/* A query over TCP: forwarded over TCP, waited for. */
static void
forward_tcp(const struct client *cl, const uint8_t *query, const uint8_t *ask,
	    size_t n, const struct dns_question *q, int rule)
{
	const struct netpolicy_addr *dst = &st.dns[cl->server];
	int f = dnsint_fam(dst->family);
	_cleanup_close_ int fd = -1;
	struct sockaddr_storage ss;
	socklen_t sl = dnsint_sockaddr(dst, dst->family, &ss);
	uint8_t len[2] = { (uint8_t)(n >> 8), (uint8_t)n };
	_cleanup_free_ uint8_t *answer = NULL;
	size_t want, have = 0;
	ssize_t got;

	if (st.n_pool[f] == 0) {
		ask_refill();
		reply_query_error(cl, query, q, DNS_RCODE_SERVFAIL);
		return;
	}
	fd = st.pool[f][--st.n_pool[f]];
	if (st.n_pool[f] < ST_POOL / 2)
		ask_refill();
	set_timeouts(fd, ST_TCP_MS);
	if (connect(fd, (struct sockaddr *)&ss, sl) < 0 ||
	    send(fd, len, 2, MSG_NOSIGNAL | MSG_MORE) != 2 ||
	    send(fd, ask, n, MSG_NOSIGNAL) != (ssize_t)n ||
	    recv(fd, len, 2, MSG_WAITALL) != 2) {
		reply_query_error(cl, query, q, DNS_RCODE_SERVFAIL);
		return;
	}
	want = (size_t)len[0] << 8 | len[1];
	answer = xmalloc(want + 1);
	while (have < want &&
	       (got = recv(fd, answer + have, want - have, 0)) > 0)
		have += (size_t)got;
	if (have < want) {
		reply_query_error(cl, query, q, DNS_RCODE_SERVFAIL);
		return;
	}
	answered(cl, q, rule, answer, want, query + DNS_HEADER_LEN,
		 q->end - DNS_HEADER_LEN);
}

static struct pending *
pending_new(void)
{
	for (size_t i = 0; i < ST_MAX_PENDING; i++)
		if (!st.pend[i].used)
			return &st.pend[i];
	return NULL;
}

static bool
id_used(uint16_t id)
{
	for (size_t i = 0; i < ST_MAX_PENDING; i++)
		if (st.pend[i].used && st.pend[i].id == id)
			return true;
	return false;
}

/* One query from the command. */
static void
on_query(const struct client *cl, uint8_t *buf, size_t n)
{
	struct dns_question q;
	uint8_t out[512], ask[512];
	int qn;
	struct hostdns_verdict v = hostdns_decide_query(
		st.hosts, st.n_hosts, buf, n, &q, out, sizeof(out));
	const struct netpolicy_addr *dst = &st.dns[cl->server];
	struct sockaddr_storage ss;
	socklen_t sl;
	struct pending *pd;
	uint16_t id;

	if (v.action == HOSTDNS_DROP)
		return;
	/* A wildcard's new labels, past their budget: nothing leaves. */
	if (v.action == HOSTDNS_FORWARD &&
	    !hostdns_budget_take(st.budget, st.hosts, st.n_hosts, v.rule,
				 q.name, mono_ms() / 1000)) {
		struct dnsstub_record r = { .kind = DNSSTUB_REFUSED,
					    .proto = (uint8_t)cl->proto,
					    .client_port = cl->port,
					    .rule = v.rule,
					    .log_rule = REFUSAL_DNS_BUDGET };

		snprintf(r.name, sizeof(r.name), "%s", q.name);
		report(&r);
		reply_query_error(cl, buf, &q, DNS_RCODE_REFUSED);
		return;
	}
	if (v.action == HOSTDNS_ANSWER) {
		struct dnsstub_record r = { .kind = DNSSTUB_REFUSED,
					    .proto = (uint8_t)cl->proto,
					    .client_port = cl->port,
					    .rule = v.rule };

		snprintf(r.name, sizeof(r.name), "%s",
			 q.name[0] ? q.name : ".");
		r.log_rule = v.log_rule ? v.log_rule : REFUSAL_HOST;
		report(&r);
		reply(cl, out, v.reply_len);
		return;
	}
	/* What leaves the machine is a query the stub builds: the name and
	 * type, nothing else the client put in its message (EDNS options,
	 * additional records). */
	if (cl->proto == NETPOLICY_TCP) {
		if ((qn = dns_query_build(q.name, q.type, q.id, ask,
					  sizeof(ask))) < 0) {
			reply_query_error(cl, buf, &q, DNS_RCODE_SERVFAIL);
			return;
		}
		forward_tcp(cl, buf, ask, (size_t)qn, &q, v.rule);
		return;
	}
	if ((pd = pending_new()) == NULL ||
	    st.up[dnsint_fam(dst->family)] < 0 ||
	    q.end - DNS_HEADER_LEN > sizeof(pd->question)) {
		reply_query_error(cl, buf, &q, DNS_RCODE_SERVFAIL);
		return;
	}
	do
		if (getrandom(&id, sizeof(id), 0) != sizeof(id))
			_exit(1);
	while (id_used(id));
	if ((qn = dns_query_build(q.name, q.type, id, ask, sizeof(ask))) < 0) {
		reply_query_error(cl, buf, &q, DNS_RCODE_SERVFAIL);
		return;
	}
	*pd = (struct pending){ .used = true,
				.id = id,
				.server = cl->server,
				.peer_len = cl->peer_len,
				.q = q,
				.rule = v.rule,
				.deadline = mono_ms() + ST_TIMEOUT_MS };
	memcpy(&pd->peer, cl->peer, cl->peer_len);
	pd->question_len = q.end - DNS_HEADER_LEN;
	memcpy(pd->question, buf + DNS_HEADER_LEN, pd->question_len);
	sl = dnsint_sockaddr(dst, dst->family, &ss);
	if (sendto(st.up[dnsint_fam(dst->family)], ask, (size_t)qn,
		   MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&ss,
		   sl) != (ssize_t)qn) {
		pd->used = false;
		reply_query_error(cl, buf, &q, DNS_RCODE_SERVFAIL);
	}
}

/* An answer from upstream, for a pending UDP query. */
static void
on_upstream(int fd)
{
	static uint8_t buf[65536];
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	ssize_t n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT,
			     (struct sockaddr *)&from, &fl);
	struct netpolicy_addr src;
	uint16_t id;

	if (n < DNS_HEADER_LEN ||
	    netpolicy_addr_from_sockaddr(&from, fl, &src) < 0 || src.port != 53)
		return;
	id = (uint16_t)(buf[0] << 8 | buf[1]);
	for (size_t i = 0; i < ST_MAX_PENDING; i++) {
		struct pending *pd = &st.pend[i];
		const struct netpolicy_addr *dst;
		struct dns_question q;
		struct client cl;

		if (!pd->used || pd->id != id)
			continue;
		dst = &st.dns[pd->server];
		if (!netpolicy_addr_same(dst, &src))
			return; /* not from the resolver asked */
		q = pd->q;
		q.id = id;
		{
			struct dns_answer a;

			if (dns_answer_parse(buf, (size_t)n, &q, &a) == -ESRCH)
				return; /* not the answer to it */
		}
		q.id = pd->q.id;
		buf[0] = (uint8_t)(q.id >> 8);
		buf[1] = (uint8_t)q.id;
		cl = (struct client){ .server = pd->server,
				      .proto = NETPOLICY_UDP,
				      .peer = &pd->peer,
				      .peer_len = pd->peer_len,
				      .port = sockaddr_port(&pd->peer) };
		pd->used = false;
		answered(&cl, &q, pd->rule, buf, (size_t)n, pd->question,
			 pd->question_len);
		return;
	}
}

static void
on_udp(int server)
{
	uint8_t buf[ST_QUERY_MAX];
	struct sockaddr_storage peer;

	for (int k = 0; k < 64; k++) {
		socklen_t pl = sizeof(peer);
		ssize_t n =
			recvfrom(st.udp[server], buf, sizeof(buf), MSG_DONTWAIT,
				 (struct sockaddr *)&peer, &pl);
		struct client cl = { .server = server,
				     .proto = NETPOLICY_UDP,
				     .peer = &peer,
				     .peer_len = pl };

		if (n < 0)
			return;
		cl.port = sockaddr_port(&peer);
		on_query(&cl, buf, (size_t)n);
	}
}

static void
on_accept(int server)
{
	struct sockaddr_storage peer;
	socklen_t pl = sizeof(peer);
	int fd = accept4(st.tcp[server], (struct sockaddr *)&peer, &pl,
			 SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	for (size_t i = 0; i < ST_MAX_TCP; i++)
		if (st.cl[i].fd < 0) {
			st.cl[i].fd = fd;
			st.cl[i].server = server;
			st.cl[i].have = 0;
			st.cl[i].port = sockaddr_port(&peer);
			st.cl[i].deadline = mono_ms() + ST_TIMEOUT_MS;
			return;
		}
	close(fd); /* too many: the client retries */
}

static void
on_tcp(struct tcp_client *c)
{
	ssize_t n = recv(c->fd, c->buf + c->have, sizeof(c->buf) - c->have,
			 MSG_DONTWAIT);

	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			close(c->fd);
			c->fd = -1;
		}
		return;
	}
	c->have += (size_t)n;
	c->deadline = mono_ms() + ST_TIMEOUT_MS;
	while (c->fd >= 0 && c->have >= 2) {
		size_t len = (size_t)c->buf[0] << 8 | c->buf[1];
		struct client cl = { .server = c->server,
				     .proto = NETPOLICY_TCP,
				     .tcp = c,
				     .port = c->port };

		if (len > ST_QUERY_MAX) {
			close(c->fd);
			c->fd = -1;
			return;
		}
		if (c->have < 2 + len)
			return;
		on_query(&cl, c->buf + 2, len);
		if (c->fd < 0)
			return;
		memmove(c->buf, c->buf + 2 + len, c->have - 2 - len);
		c->have -= 2 + len;
	}
}

/* A request of the supervisor's. */
static void
on_ctl(void)
{
	struct channel_msg m;
	struct st_req rq = { 0 };
	int *fds = m.fds;
	size_t n;
	int got = channel_recv(st.ctl, &m, ST_POOL * 2, MSG_DONTWAIT);
	struct st_resp resp = { 0 };
	_cleanup_close_ int s = -1;

	if (got == -EAGAIN)
		return;
	if (got <= 0)
		_exit(0); /* the supervisor is gone */
	n = m.n_fds;
	if (channel_expect(&m, ST_MSG_REQ, sizeof(rq)) != NULL)
		memcpy(&rq, m.payload, sizeof(rq));
	if (rq.op == REQ_REFILL) {
		for (size_t i = 0; i < n; i++) {
			struct sockaddr_storage ss;
			socklen_t sl = sizeof(ss);
			int f;

			if (getsockname(fds[i], (struct sockaddr *)&ss, &sl) <
				    0 ||
			    st.n_pool[f = dnsint_fam(ss.ss_family)] >=
				    ST_POOL) {
				close(fds[i]);
				continue;
			}
			st.pool[f][st.n_pool[f]++] = fds[i];
		}
		st.asked = false;
		return;
	}
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
	resp.seq = rq.seq;
	resp.family = rq.family;
	if (rq.op != REQ_SOCKET ||
	    (rq.family != AF_INET && rq.family != AF_INET6) ||
	    (rq.type != SOCK_DGRAM && rq.type != SOCK_STREAM)) {
		resp.err = EINVAL;
	} else if ((s = socket(rq.family, rq.type | SOCK_CLOEXEC, 0)) < 0) {
		resp.err = errno;
	} else if (rq.connected) {
		struct sockaddr_storage ss;
		socklen_t sl = dnsint_sockaddr(&rq.dst, rq.family, &ss);

		/* Over TCP, the handshake is the kernel's: it completes
		 * before the stub accepts, unless the backlog is full. */
		set_timeouts(s, 1000);
		if (connect(s, (struct sockaddr *)&ss, sl) < 0)
			resp.err = errno;
		set_timeouts(s, 0);
	} else {
		/* Bound now, so its port is known before the first send
		 * (the supervisor names the sender by it). */
		struct sockaddr_storage any = {
			.ss_family = (sa_family_t)rq.family
		};

		if (bind(s, (struct sockaddr *)&any,
			 rq.family == AF_INET
				 ? sizeof(struct sockaddr_in)
				 : sizeof(struct sockaddr_in6)) < 0)
			resp.err = errno;
	}
	if (channel_send(st.ctl, ST_MSG_RESP, &resp, sizeof(resp), &s,
			 resp.err == 0, 0) < 0)
		_exit(0);
}

static void __attribute__((noreturn)) stub_main(void)
{
	for (;;) {
		struct pollfd pfd[2 + 2 * ST_MAX_DNS + 2 + ST_MAX_TCP];
		struct tcp_client *who[ST_MAX_TCP];
		size_t n = 0, base_tcp;
		uint64_t now = mono_ms(), next = now + ST_TIMEOUT_MS;

		pfd[n++] = (struct pollfd){ st.ctl, POLLIN, 0 };
		for (size_t i = 0; i < st.n_dns; i++) {
			pfd[n++] = (struct pollfd){ st.udp[i], POLLIN, 0 };
			pfd[n++] = (struct pollfd){ st.tcp[i], POLLIN, 0 };
		}
		pfd[n++] = (struct pollfd){ st.up[0], POLLIN, 0 };
		pfd[n++] = (struct pollfd){ st.up[1], POLLIN, 0 };
		base_tcp = n;
		for (size_t i = 0; i < ST_MAX_TCP; i++) {
			if (st.cl[i].fd < 0)
				continue;
			if (st.cl[i].deadline <= now) {
				close(st.cl[i].fd);
				st.cl[i].fd = -1;
				continue;
			}
			if (st.cl[i].deadline < next)
				next = st.cl[i].deadline;
			who[n - base_tcp] = &st.cl[i];
			pfd[n++] = (struct pollfd){ st.cl[i].fd, POLLIN, 0 };
		}
		for (size_t i = 0; i < ST_MAX_PENDING; i++) {
			if (!st.pend[i].used)
				continue;
			if (st.pend[i].deadline <= now)
				st.pend[i].used = false; /* the client asks
							  * again */
			else if (st.pend[i].deadline < next)
				next = st.pend[i].deadline;
		}
		if (poll(pfd, n, (int)(next - now) + 1) <= 0)
			continue;
		if (pfd[0].revents)
			on_ctl();
		for (size_t i = 0; i < st.n_dns; i++) {
			if (pfd[1 + 2 * i].revents)
				on_udp((int)i);
			if (pfd[2 + 2 * i].revents)
				on_accept((int)i);
		}
		for (size_t i = 0; i < 2; i++)
			if (pfd[base_tcp - 2 + i].revents)
				on_upstream(st.up[i]);
		for (size_t i = base_tcp; i < n; i++)
			if (pfd[i].revents && who[i - base_tcp]->fd >= 0)
				on_tcp(who[i - base_tcp]);
	}
}

/* In the stub, before it serves: its namespaces, listeners and
 * confinement.  Returns 0, or -errno with why (a static buffer). */
static int
stub_setup(char *why, size_t size, uint64_t *netns)
{
	char *cause = NULL;
	int r, one = 1;
	socklen_t len = sizeof(*netns);

	for (int f = 0; f < 2; f++) {
		bool used = false;

		for (size_t i = 0; i < st.n_dns; i++)
			used |= dnsint_fam(st.dns[i].family) == f;
		st.up[f] = -1;
		if (!used)
			continue;
		st.up[f] = socket(f ? AF_INET6 : AF_INET,
				  SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		for (size_t i = 0; i < ST_POOL; i++) {
			int s = socket(f ? AF_INET6 : AF_INET,
				       SOCK_STREAM | SOCK_CLOEXEC, 0);

			if (s >= 0)
				st.pool[f][st.n_pool[f]++] = s;
		}
	}
	if (testhook_userns_refused(&r)) {
		snprintf(why, size, "user namespaces are refused (test hook)");
		return -EPERM;
	}
	if (testhook_resolver_fails()) {
		snprintf(why, size,
			 "cannot create a user and network namespace for "
			 "llwrap's resolver: refused (test hook)");
		return -ENOSPC;
	}
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0) {
		r = -errno;
		snprintf(why, size,
			 "cannot create a user and network namespace for "
			 "llwrap's resolver: %s",
			 strerror(-r));
		return r == -EINVAL || r == -ENOSPC || r == -EACCES ? -EPERM
								    : r;
	}
	if ((r = ns_lo_up(st.dns, st.n_dns, &cause)) < 0) {
		snprintf(why, size, "%s", cause);
		free(cause);
		return r;
	}
	for (size_t i = 0; i < st.n_dns; i++) {
		struct sockaddr_storage ss;
		int f = st.dns[i].family;
		socklen_t sl = dnsint_sockaddr(&st.dns[i], f, &ss);

		st.udp[i] = socket(f, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		st.tcp[i] = socket(f, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (st.udp[i] < 0 || st.tcp[i] < 0 ||
		    (f == AF_INET6 &&
		     (setsockopt(st.udp[i], IPPROTO_IPV6, IPV6_V6ONLY, &one,
				 sizeof(one)) < 0 ||
		      setsockopt(st.tcp[i], IPPROTO_IPV6, IPV6_V6ONLY, &one,
				 sizeof(one)) < 0)) ||
		    setsockopt(st.tcp[i], SOL_SOCKET, SO_REUSEADDR, &one,
			       sizeof(one)) < 0 ||
		    bind(st.udp[i], (struct sockaddr *)&ss, sl) < 0 ||
		    bind(st.tcp[i], (struct sockaddr *)&ss, sl) < 0 ||
		    listen(st.tcp[i], 128) < 0) {
			r = -errno;
			snprintf(why, size,
				 "llwrap's resolver cannot listen on port 53 "
				 "in its namespace: %s",
				 strerror(-r));
			return r;
		}
	}
	if (st.n_dns == 0 ||
	    getsockopt(st.udp[0], SOL_SOCKET, SO_NETNS_COOKIE, netns, &len) < 0)
		*netns = 0; /* Linux before 5.14 */
	/* It reads what the command sends: nothing more than it needs.
	 * Its host sockets reach resolvers' port 53 alone (where Landlock
	 * handles ports), and it makes no unix socket, traces, signals or
	 * maps nothing of anyone's (ruleset.h, filter.h). */
	if ((r = helper_confine(
		     &(struct helper_confinement){ .drop_caps = true,
						   .net = RULESET_HELPER_DNS },
		     &cause)) < 0) {
		snprintf(why, size,
			 "llwrap's resolver cannot confine itself: %s",
			 cause ? cause : strerror(-r));
		free(cause);
		return r;
	}
	return 0;
}

/* Remove duplicates, keep at most ST_MAX_DNS. */
static size_t
dns_unique(const struct netpolicy_addr *dns, size_t n,
	   struct netpolicy_addr *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k < ST_MAX_DNS; i++) {
		bool seen = false;

		for (size_t j = 0; j < k; j++)
			seen |= netpolicy_addr_same(&out[j], &dns[i]);
		if (!seen) {
			out[k] = dns[i];
			out[k++].port = 53;
		}
	}
	return k;
}

void
dnsserve_main(const struct hostrule *hosts, size_t n_hosts,
	      const struct netpolicy_addr *dns, size_t n, int ctl, int rec,
	      int status, int relay, bool deferred)
{
	struct st_status msg = { 0 };
	struct pollfd p = { ctl, POLLIN, 0 };

	st.hosts = hosts;
	st.n_hosts = n_hosts;
	st.budget = hostdns_budget_new(n_hosts);
	st.ctl = ctl;
	st.rec = rec;
	st.n_dns = dns_unique(dns, n, st.dns);
	for (size_t i = 0; i < ST_MAX_TCP; i++)
		st.cl[i].fd = -1;
	/* Until the first request it holds nothing but its channels: no
	 * host socket, no namespace.  The supervisor gone, it ends. */
	while (deferred && poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	if (deferred && (p.revents & (POLLHUP | POLLERR | POLLNVAL)))
		_exit(0);
	/* The relay, while this process is still outside every namespace
	 * (relay.h): it waits for the supervisor's word.  Reaped by the
	 * kernel; without it, the supervisor's RELAY_START finds its
	 * channel closed and refuses what it would relay. */
	signal(SIGCHLD, SIG_IGN);
	(void)relay_spawn(hosts, n_hosts, relay);
	close(relay);
	msg.err = -stub_setup(msg.why, sizeof(msg.why), &msg.netns);
	if (write(status, &msg, sizeof(msg)) != sizeof(msg) || msg.err != 0)
		_exit(1);
	close(status);
	stub_main();
}
