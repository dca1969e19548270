/*
 * The stub resolver of named hosts (DESIGN.md §6.1, design (a)): its
 * process and sockets; what it decides is hostdns.c's.
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
 * Two channels (channel.h) tie it to the supervisor.  On ctl the
 * supervisor asks for a socket made in the stub's namespace (connected
 * to a resolver's port 53, or not) and gets it beside the answer; it also hands
 * over fresh host TCP sockets when the stub says it runs low.  On rec the stub
 * reports each query it refused and each answer it forwarded, before
 * the answer goes to the command: the supervisor reads its records
 * before deciding any connect, so an address is learned before the
 * command can know it.
 *
 * One thread; a UDP query waits for its answer in a table (the answer is
 * matched by id and source, and the id sent upstream is the stub's own);
 * a query over TCP is forwarded over TCP and waited for (two seconds at
 * most: rare, and only that client waits).
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "caps.h"
#include "channel.h"
#include "cleanup.h"
#include "dnsstub.h"
#include "fdutil.h"
#include "filter.h"
#include "helper.h"
#include "hostdns.h"
#include "ns.h"
#include "ruleset.h"
#include "testhook.h"
#include "xalloc.h"

#define ST_MAX_DNS     8   /* resolvers served */
#define ST_MAX_PENDING 256 /* UDP queries waiting for an answer */
#define ST_MAX_TCP     16  /* TCP clients at once */
#define ST_QUERY_MAX   4096
#define ST_TIMEOUT_MS  5000 /* a query's answer, a TCP client's silence */
#define ST_TCP_MS      2000 /* one exchange with a resolver over TCP */
#define ST_POOL	       8    /* host TCP sockets kept per family */
#define ST_SPARES      4    /* datagram sockets made ahead, per family */
#define ST_MAX_QUEUE   1024 /* records read ahead of the supervisor */
#define ST_REFILL_MS                                                           \
	100 /* host TCP sockets handed over at most this                       \
	     * often */

enum { REQ_SOCKET = 1, REQ_REFILL = 2, REC_NEED_TCP = 100 };

/* The frames of the two channels (channel.h): on ctl a request (struct
 * st_req, with host sockets for REQ_REFILL) and its answer (struct
 * st_resp, with the socket made); on rec a struct dnsstub_record. */
enum { ST_MSG_REQ = 1, ST_MSG_RESP = 2, ST_MSG_RECORD = 3 };

/* A REQ_SOCKET and its answer carry the same seq: an answer that came
 * after its request gave up is told from the next one's.  Seq 0 asks
 * for a spare: an unconnected datagram socket the supervisor keeps for
 * the next swap (its answer names the family). */
struct st_req {
	uint8_t op;
	uint8_t connected;
	uint32_t seq;
	int32_t family, type;
	struct netpolicy_addr dst;
};

struct st_resp {
	uint32_t seq;
	int32_t err;
	int32_t family;
};

/* The stub's word on its start, on the status pipe. */
struct st_status {
	int32_t err;
	char why[240];
	uint64_t netns; /* its network namespace's cookie; 0 unknown */
};

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
	const struct policy *p;
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
} st;

struct dnsstub {
	pid_t pid;
	int ctl, rec;
	int status;	/* the stub's word on its start, until read; -1 after */
	bool fam[2];	/* the families of the resolvers */
	uint64_t netns; /* the stub's network namespace (its start said) */
	uint64_t refilled_ms; /* when TCP sockets were last handed over */
	struct dnsstub_record *queue;
	size_t n_queue;
	uint32_t seq; /* of the last REQ_SOCKET */
	/* Datagram sockets made ahead (the stub's round trip is most of a
	 * swap's time), and how many are asked for. */
	int spare[2][ST_SPARES];
	size_t n_spare[2], n_asked[2];
};

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int
fam_index(int family)
{
	return family == AF_INET6;
}

/* dst's address, port 53, as a sockaddr of family (an IPv4 address in
 * an AF_INET6 socket is IPv4-mapped). */
static socklen_t
resolver_sockaddr(const struct netpolicy_addr *dst, int family,
		  struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(53);
		memcpy(&s4->sin_addr, dst->a, 4);
		return sizeof(*s4);
	}
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(53);
	if (dst->family == AF_INET) {
		s6->sin6_addr.s6_addr[10] = 0xff;
		s6->sin6_addr.s6_addr[11] = 0xff;
		memcpy(s6->sin6_addr.s6_addr + 12, dst->a, 4);
	} else {
		memcpy(&s6->sin6_addr, dst->a, 16);
	}
	return sizeof(*s6);
}

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
	int f = fam_index(dst->family);
	_cleanup_close_ int fd = -1;
	struct sockaddr_storage ss;
	socklen_t sl = resolver_sockaddr(dst, dst->family, &ss);
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
		st.p->hosts, st.p->n_hosts, buf, n, &q, out, sizeof(out));
	const struct netpolicy_addr *dst = &st.dns[cl->server];
	struct sockaddr_storage ss;
	socklen_t sl;
	struct pending *pd;
	uint16_t id;

	if (v.action == HOSTDNS_DROP)
		return;
	if (v.action == HOSTDNS_ANSWER) {
		struct dnsstub_record r = { .kind = DNSSTUB_REFUSED,
					    .proto = (uint8_t)cl->proto,
					    .client_port = cl->port,
					    .rule = v.rule };

		snprintf(r.name, sizeof(r.name), "%s",
			 q.name[0] ? q.name : ".");
		snprintf(r.log_rule, sizeof(r.log_rule), "%s",
			 v.log_rule ? v.log_rule : "filtered/host");
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
	if ((pd = pending_new()) == NULL || st.up[fam_index(dst->family)] < 0 ||
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
				.deadline = now_ms() + ST_TIMEOUT_MS };
	memcpy(&pd->peer, cl->peer, cl->peer_len);
	pd->question_len = q.end - DNS_HEADER_LEN;
	memcpy(pd->question, buf + DNS_HEADER_LEN, pd->question_len);
	sl = resolver_sockaddr(dst, dst->family, &ss);
	if (sendto(st.up[fam_index(dst->family)], ask, (size_t)qn,
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
			st.cl[i].deadline = now_ms() + ST_TIMEOUT_MS;
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
	c->deadline = now_ms() + ST_TIMEOUT_MS;
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
			    st.n_pool[f = fam_index(ss.ss_family)] >= ST_POOL) {
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
		socklen_t sl = resolver_sockaddr(&rq.dst, rq.family, &ss);

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
		uint64_t now = now_ms(), next = now + ST_TIMEOUT_MS;

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
			used |= fam_index(st.dns[i].family) == f;
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
		socklen_t sl = resolver_sockaddr(&st.dns[i], f, &ss);

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

/* ---- The supervisor's side ---- */

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

static void
spares_close(struct dnsstub *s)
{
	for (int f = 0; f < 2; f++) {
		while (s->n_spare[f] > 0)
			close(s->spare[f][--s->n_spare[f]]);
		s->n_asked[f] = 0;
	}
}

/* Ask for spares up to ST_SPARES per family of the resolvers, without
 * waiting: the answers come with the next swap's (take_answer). */
static void
spares_ask(struct dnsstub *s)
{
	for (int f = 0; f < 2; f++)
		while (s->fam[f] && s->n_spare[f] + s->n_asked[f] < ST_SPARES) {
			struct st_req rq = { .op = REQ_SOCKET,
					     .family = f ? AF_INET6 : AF_INET,
					     .type = SOCK_DGRAM };

			if (channel_send(s->ctl, ST_MSG_REQ, &rq, sizeof(rq),
					 NULL, 0, MSG_DONTWAIT) < 0)
				return;
			s->n_asked[f]++;
		}
}

int
dnsstub_wait(struct dnsstub *s, char **cause)
{
	struct st_status msg = { 0 };
	ssize_t got;

	if (s->status < 0)
		return 0;
	do
		got = read(s->status, &msg, sizeof(msg));
	while (got < 0 && errno == EINTR);
	close(s->status);
	s->status = -1;
	if (got == sizeof(msg) && msg.err == 0) {
		/* Said before the stub read anything of the command's: the
		 * namespace every socket it hands over must be in. */
		s->netns = msg.netns;
		return 0;
	}
	msg.why[sizeof(msg.why) - 1] = '\0';
	*cause = xasprintf("%s (allow-host needs it; with proxy = yes, or "
			   "--proxy, names go through llwrap's proxy instead)",
			   got == sizeof(msg)
				   ? msg.why
				   : "llwrap's resolver ended at start");
	return got == sizeof(msg) ? -msg.err : -EIO;
}

int
dnsstub_start(const struct policy *p, const struct netpolicy_addr *dns,
	      size_t n, bool wait, struct dnsstub **out, char **cause)
{
	int ctl[2] = { -1, -1 }, rec[2] = { -1, -1 }, status[2] = { -1, -1 };
	struct st_status msg = { 0 };
	pid_t pid;
	struct dnsstub *s;
	int r;

	*out = NULL;
	if ((r = channel_pair(ctl, false)) == 0 &&
	    (r = channel_pair(rec, false)) == 0 && pipe2(status, O_CLOEXEC) < 0)
		r = -errno;
	if (r < 0) {
		*cause = xasprintf("cannot create the resolver's sockets: %s",
				   strerror(-r));
		goto fail;
	}
	pid = helper_start(&(struct helper){
		.name = "llwrap-dns",
		.keep = (const int[]){ ctl[1], rec[1], status[1] },
		.n_keep = 3 });
	if (pid < 0) {
		r = (int)pid;
		*cause = xasprintf("cannot start llwrap's resolver: %s",
				   strerror(-r));
		goto fail;
	}
	if (pid == 0) {
		st.p = p;
		st.ctl = ctl[1];
		st.rec = rec[1];
		st.n_dns = dns_unique(dns, n, st.dns);
		for (size_t i = 0; i < ST_MAX_TCP; i++)
			st.cl[i].fd = -1;
		msg.err = -stub_setup(msg.why, sizeof(msg.why), &msg.netns);
		if (write(status[1], &msg, sizeof(msg)) != sizeof(msg) ||
		    msg.err != 0)
			_exit(1);
		close(status[1]);
		stub_main();
	}
	close(status[1]);
	status[1] = -1;
	close(ctl[1]);
	close(rec[1]);
	ctl[1] = rec[1] = -1;
	s = xcalloc(1, sizeof(*s));
	s->pid = pid;
	s->ctl = ctl[0];
	s->rec = rec[0];
	s->status = status[0];
	for (size_t i = 0; i < n; i++)
		s->fam[fam_index(dns[i].family)] = true;
	if (wait && (r = dnsstub_wait(s, cause)) < 0) {
		dnsstub_stop(s);
		return r;
	}
	spares_ask(s);
	*out = s;
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (ctl[i] >= 0)
			close(ctl[i]);
		if (rec[i] >= 0)
			close(rec[i]);
		if (status[i] >= 0)
			close(status[i]);
	}
	return r;
}

/* Hand the stub fresh host TCP sockets. */
static void
refill(struct dnsstub *s)
{
	int fds[ST_POOL * 2];
	size_t n = 0;
	struct st_req rq = { .op = REQ_REFILL };

	for (int f = 0; f < 2; f++)
		for (size_t i = 0; s->fam[f] && i < ST_POOL; i++) {
			int fd = socket(f ? AF_INET6 : AF_INET,
					SOCK_STREAM | SOCK_CLOEXEC, 0);

			if (fd >= 0)
				fds[n++] = fd;
		}
	(void)channel_send(s->ctl, ST_MSG_REQ, &rq, sizeof(rq), fds, n, 0);
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
}

/* Read one record from the stub into the queue: 1, 0 none, -errno. */
static int
take_record(struct dnsstub *s)
{
	struct channel_msg m;
	struct dnsstub_record r;
	int got = channel_recv(s->rec, &m, 0, MSG_DONTWAIT);

	if (got == -EAGAIN)
		return 0;
	if (got < 0 && got != -EMSGSIZE && got != -EBADMSG)
		return got;
	if (got <= 0 || channel_expect(&m, ST_MSG_RECORD, sizeof(r)) == NULL)
		return -EPIPE;
	memcpy(&r, m.payload, sizeof(r));
	if (r.kind == REC_NEED_TCP) {
		/* At most every ST_REFILL_MS: a stub gone wrong gets no
		 * stream of host sockets. */
		uint64_t now = now_ms();

		if (now - s->refilled_ms >= ST_REFILL_MS) {
			s->refilled_ms = now;
			refill(s);
		}
		return 1;
	}
	/* The stub reads what the command sends: its records are checked
	 * as anything else the command could shape. */
	if (!dnsstub_record_valid(&r) || s->n_queue >= ST_MAX_QUEUE)
		return 1;
	s->queue = xreallocarray(s->queue, s->n_queue + 1, sizeof(r));
	s->queue[s->n_queue++] = r;
	return 1;
}

bool
dnsstub_record_valid(struct dnsstub_record *r)
{
	if ((r->kind != DNSSTUB_ANSWERED && r->kind != DNSSTUB_REFUSED) ||
	    (r->proto != NETPOLICY_UDP && r->proto != NETPOLICY_TCP) ||
	    r->answer.n > DNS_ANSWER_ADDRS ||
	    r->answer.n_cnames > DNS_CNAME_MAX)
		return false;
	r->name[sizeof(r->name) - 1] = '\0';
	r->log_rule[sizeof(r->log_rule) - 1] = '\0';
	for (size_t i = 0; i < DNS_CNAME_MAX; i++)
		r->answer.cnames[i][DNS_NAME_MAX] = '\0';
	if (r->kind == DNSSTUB_REFUSED && !hostdns_log_rule_known(r->log_rule))
		return false;
	for (size_t i = 0; i < r->answer.n; i++)
		if (r->answer.v[i].addr.family != AF_INET &&
		    r->answer.v[i].addr.family != AF_INET6)
			return false;
	return true;
}

int
dnsstub_read(struct dnsstub *s, struct dnsstub_record *rec)
{
	int r;

	while (s->n_queue == 0)
		if ((r = take_record(s)) <= 0)
			return r;
	*rec = s->queue[0];
	memmove(s->queue, s->queue + 1, --s->n_queue * sizeof(*rec));
	return 1;
}

/*
 * A socket the stub handed over goes into the command's descriptor table:
 * it must be what was asked for, of the stub's own network namespace
 * (never one of the host's, which the stub also holds to reach the
 * resolvers).  0, or -EPROTO.
 */
static int
stub_socket_check(const struct dnsstub *s, int fd, int family, int type)
{
	int domain = -1, got_type = -1;
	uint64_t netns = 0;
	socklen_t len = sizeof(int);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0 ||
	    domain != family)
		return -EPROTO;
	len = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &got_type, &len) < 0 ||
	    got_type != type)
		return -EPROTO;
	len = sizeof(netns);
	if (s->netns != 0 &&
	    (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &netns, &len) < 0 ||
	     netns != s->netns))
		return -EPROTO;
	return 0;
}

/*
 * One answer of the stub's, without waiting.  The answer to seq: 1,
 * *resp and its socket in *fd (-1 when none).  A spare's: kept, 0.  A
 * stale one's (its request gave up): dropped, 0.  None waiting:
 * -EAGAIN; the stub gone: -EPIPE.
 */
static int
take_answer(struct dnsstub *s, uint32_t seq, struct st_resp *resp, int *fd)
{
	struct channel_msg m;
	size_t n;
	int got_fd, f;
	int got = channel_recv(s->ctl, &m, 1, MSG_DONTWAIT);

	if (got == -EAGAIN)
		return -EAGAIN;
	if (got != 1 ||
	    channel_expect(&m, ST_MSG_RESP, sizeof(*resp)) == NULL) {
		channel_msg_close(&m);
		return -EPIPE;
	}
	memcpy(resp, m.payload, sizeof(*resp));
	n = m.n_fds;
	got_fd = n == 1 ? m.fds[0] : -1;
	if (seq != 0 && resp->seq == seq) {
		*fd = n == 1 ? got_fd : -1;
		return 1;
	}
	if (resp->seq == 0 &&
	    (resp->family == AF_INET || resp->family == AF_INET6)) {
		f = fam_index(resp->family);
		if (s->n_asked[f] > 0)
			s->n_asked[f]--;
		if (resp->err == 0 && n == 1 && s->n_spare[f] < ST_SPARES &&
		    stub_socket_check(s, got_fd, resp->family, SOCK_DGRAM) ==
			    0) {
			s->spare[f][s->n_spare[f]++] = got_fd;
			return 0;
		}
	}
	if (n == 1)
		close(got_fd);
	return 0;
}

/* A spare of family, connected to dst when connected: 0 and *fd, or -1
 * when there is none (or it would not connect). */
static int
spare_take(struct dnsstub *s, int family, const struct netpolicy_addr *dst,
	   bool connected, int *fd)
{
	int f = fam_index(family), sp;
	struct sockaddr_storage ss;
	socklen_t sl;

	if (s->n_spare[f] == 0)
		return -1;
	sp = s->spare[f][--s->n_spare[f]];
	sl = resolver_sockaddr(dst, family, &ss);
	/* The socket lives in the stub's namespace: connect() there
	 * reaches the stub's resolver address, whoever calls it. */
	if (connected && connect(sp, (struct sockaddr *)&ss, sl) < 0) {
		close(sp);
		return -1;
	}
	*fd = sp;
	return 0;
}

int
dnsstub_socket(struct dnsstub *s, int family, int type,
	       const struct netpolicy_addr *dst, bool connected, int *fd)
{
	struct st_req rq = { .op = REQ_SOCKET,
			     .connected = connected,
			     .family = family,
			     .type = type,
			     .dst = *dst };
	struct st_resp resp;
	/* The supervisor waits (the command's call with it): as long as a
	 * resolver's client would for an answer, on a loaded machine. */
	uint64_t deadline = now_ms() + ST_TIMEOUT_MS;
	int r;

	*fd = -1;
	while ((r = take_answer(s, 0, &resp, fd)) == 0)
		;
	if (r == -EPIPE)
		return r;
	if (type == SOCK_DGRAM &&
	    spare_take(s, family, dst, connected, fd) == 0) {
		spares_ask(s);
		return 0;
	}
	/* Seq 0 is a spare's. */
	if (++s->seq == 0)
		++s->seq;
	rq.seq = s->seq;
	if ((r = channel_send(s->ctl, ST_MSG_REQ, &rq, sizeof(rq), NULL, 0,
			      0)) < 0)
		return r;
	for (;;) {
		struct pollfd pfd[2] = { { s->ctl, POLLIN, 0 },
					 { s->rec, POLLIN, 0 } };
		uint64_t now = now_ms();

		if (now >= deadline)
			return -ETIMEDOUT;
		if (poll(pfd, 2, (int)(deadline - now) + 1) <= 0)
			continue;
		/* The stub may be waiting for its records to be taken. */
		while (pfd[1].revents && (r = take_record(s)) > 0)
			;
		r = -EAGAIN;
		while (pfd[0].revents &&
		       (r = take_answer(s, rq.seq, &resp, fd)) == 0)
			;
		if (r == -EPIPE)
			return r;
		if (r != 1)
			continue;
		if (resp.err != 0 || *fd < 0) {
			if (*fd >= 0)
				close(*fd);
			*fd = -1;
			return resp.err ? -resp.err : -EPIPE;
		}
		if ((r = stub_socket_check(s, *fd, family, type)) < 0) {
			close(*fd);
			*fd = -1;
			return r;
		}
		spares_ask(s);
		return 0;
	}
}

int
dnsstub_fd(const struct dnsstub *s)
{
	return s->rec;
}

void
dnsstub_child_forked(struct dnsstub *s)
{
	if (s == NULL)
		return;
	close(s->ctl);
	close(s->rec);
	if (s->status >= 0)
		close(s->status);
	s->ctl = s->rec = s->status = -1;
	spares_close(s);
}

void
dnsstub_stop(struct dnsstub *s)
{
	if (s == NULL)
		return;
	if (s->ctl >= 0)
		close(s->ctl);
	if (s->rec >= 0)
		close(s->rec);
	if (s->status >= 0)
		close(s->status);
	spares_close(s);
	/* Not waited for: llwrap exits next, and its network namespace's
	 * teardown is the kernel's to finish, not the command's to wait
	 * for. */
	kill(s->pid, SIGKILL);
	free(s->queue);
	free(s);
}
