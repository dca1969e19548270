/*
 * The stub resolver of named hosts (DESIGN.md §6.1, design (a)): its
 * start and the supervisor's side of it (this file), its process
 * (dnsserve.c; dnsstub-int.h is what the two share); what it decides is
 * hostdns.c's.
 *
 * Two channels (channel.h) tie it to the supervisor.  On ctl the
 * supervisor asks for a socket made in the stub's namespace (connected
 * to a resolver's port 53, or not) and gets it beside the answer; it
 * also hands over fresh host TCP sockets when the stub says it runs low.
 * On rec the stub reports each query it refused and each answer it
 * forwarded, before the answer goes to the command: the supervisor reads
 * its records before deciding any connect, so an address is learned
 * before the command can know it.  What comes from the stub is checked
 * as anything the command could shape: the stub reads what the command
 * sends.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "channel.h"
#include "cleanup.h"
#include "dnsstub-int.h"
#include "helper.h"
#include "hostdns.h"
#include "mono.h"
#include "xalloc.h"

struct dnsstub {
	pid_t pid;
	pid_t owner; /* who started it: only that process stops it */
	int ctl, rec;
	int status; /* the stub's word on its start, until read; -1 after */
	int relay;  /* the supervisor's end of llwrap-relay's channel,
		     * until dnsstub_relay takes it */
	/* The stub's ends of ctl, rec, status and relay, from
	 * dnsstub_open until it is forked (dnsstub_fork) or they are
	 * dropped (dnsstub_peer_close); -1 after. */
	int peer[4];
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

/* ---- The supervisor's side ---- */

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

/*
 * The stub's word on its start, waited for until deadline_ms (0: no
 * limit).  Returns 0 (it serves), or -errno with *cause.
 */
static int
status_take(struct dnsstub *s, uint64_t deadline_ms, char **cause)
{
	struct st_status msg = { 0 };
	struct pollfd pfd = { s->status, POLLIN, 0 };
	ssize_t got = -1;

	if (s->status < 0)
		return 0;
	for (;;) {
		uint64_t now = mono_ms();
		int wait = deadline_ms == 0 ? -1 : (int)(deadline_ms - now) + 1;

		if (deadline_ms != 0 && now >= deadline_ms)
			break;
		if (poll(&pfd, 1, wait) > 0) {
			do
				got = read(s->status, &msg, sizeof(msg));
			while (got < 0 && errno == EINTR);
			break;
		}
	}
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
			   got == sizeof(msg) ? msg.why
			   : got < 0 ? "llwrap's resolver did not start "
				       "within 5 s"
				     : "llwrap's resolver ended at start");
	return got == sizeof(msg) ? -msg.err : got < 0 ? -ETIMEDOUT : -EIO;
}

static void
peer_close(struct dnsstub *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(s->peer); i++)
		if (s->peer[i] >= 0) {
			close(s->peer[i]);
			s->peer[i] = -1;
		}
}

int
dnsstub_open(struct dnsstub **out, char **cause)
{
	int ctl[2] = { -1, -1 }, rec[2] = { -1, -1 }, status[2] = { -1, -1 };
	int relay[2] = { -1, -1 };
	struct dnsstub *s;
	int r;

	*out = NULL;
	if ((r = channel_pair(ctl, false)) == 0 &&
	    (r = channel_pair(rec, false)) == 0 &&
	    (r = channel_pair(relay, false)) == 0 &&
	    pipe2(status, O_CLOEXEC) < 0)
		r = -errno;
	if (r < 0) {
		*cause = xasprintf("cannot create the resolver's sockets: %s",
				   strerror(-r));
		for (int i = 0; i < 2; i++) {
			if (ctl[i] >= 0)
				close(ctl[i]);
			if (rec[i] >= 0)
				close(rec[i]);
			if (status[i] >= 0)
				close(status[i]);
			if (relay[i] >= 0)
				close(relay[i]);
		}
		return r;
	}
	s = xcalloc(1, sizeof(*s));
	s->pid = -1;
	s->owner = getpid();
	s->ctl = ctl[0];
	s->rec = rec[0];
	s->status = status[0];
	s->relay = relay[0];
	s->peer[0] = ctl[1];
	s->peer[1] = rec[1];
	s->peer[2] = status[1];
	s->peer[3] = relay[1];
	*out = s;
	return 0;
}

int
dnsstub_fork(struct dnsstub *s, const struct hostrule *hosts, size_t n_hosts,
	     const struct netpolicy_addr *dns, size_t n, bool wait,
	     char **cause)
{
	pid_t pid;
	int r;

	pid = helper_start(&(struct helper){ .name = "llwrap-dns",
					     .keep = s->peer,
					     .n_keep = ARRAY_SIZE(s->peer),
					     .not_dumpable = true });
	if (pid < 0) {
		*cause = xasprintf("cannot start llwrap's resolver: %s",
				   strerror((int)-pid));
		return (int)pid;
	}
	if (pid == 0)
		dnsserve_main(hosts, n_hosts, dns, n, s->peer[0], s->peer[1],
			      s->peer[2], s->peer[3], !wait);
	peer_close(s);
	s->pid = pid;
	s->owner = getpid();
	for (size_t i = 0; i < n; i++)
		s->fam[dnsint_fam(dns[i].family)] = true;
	if (wait) {
		if ((r = status_take(s, 0, cause)) < 0)
			return r;
		spares_ask(s);
	}
	return 0;
}

void
dnsstub_peer_close(struct dnsstub *s, const struct netpolicy_addr *dns,
		   size_t n)
{
	if (s == NULL)
		return;
	peer_close(s);
	for (size_t i = 0; i < n; i++)
		s->fam[dnsint_fam(dns[i].family)] = true;
}

int
dnsstub_start(const struct hostrule *hosts, size_t n_hosts,
	      const struct netpolicy_addr *dns, size_t n, bool wait,
	      struct dnsstub **out, char **cause)
{
	struct dnsstub *s;
	int r;

	*out = NULL;
	if ((r = dnsstub_open(&s, cause)) < 0)
		return r;
	if ((r = dnsstub_fork(s, hosts, n_hosts, dns, n, wait, cause)) < 0) {
		dnsstub_stop(s);
		return r;
	}
	*out = s;
	return 0;
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
		uint64_t now = mono_ms();

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
	for (size_t i = 0; i < DNS_CNAME_MAX; i++)
		r->answer.cnames[i][DNS_NAME_MAX] = '\0';
	if (r->kind == DNSSTUB_REFUSED &&
	    !hostdns_log_rule_known((enum refusal)r->log_rule))
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
		f = dnsint_fam(resp->family);
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
	int f = dnsint_fam(family), sp;
	struct sockaddr_storage ss;
	socklen_t sl;

	if (s->n_spare[f] == 0)
		return -1;
	sp = s->spare[f][--s->n_spare[f]];
	sl = dnsint_sockaddr(dst, family, &ss);
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
	       const struct netpolicy_addr *dst, bool connected, int *fd,
	       char **cause)
{
	struct st_req rq = { .op = REQ_SOCKET,
			     .connected = connected,
			     .family = family,
			     .type = type,
			     .dst = *dst };
	struct st_resp resp;
	/* The supervisor waits (the command's call with it): as long as a
	 * resolver's client would for an answer, on a loaded machine. */
	uint64_t deadline = mono_ms() + ST_TIMEOUT_MS;
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
	/* The first request is what starts it (dnsstub_start without
	 * wait): its word first, within the query's time. */
	if ((r = status_take(s, deadline, cause)) < 0)
		return r;
	for (;;) {
		struct pollfd pfd[2] = { { s->ctl, POLLIN, 0 },
					 { s->rec, POLLIN, 0 } };
		uint64_t now = mono_ms();

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

int
dnsstub_relay(struct dnsstub *s)
{
	int fd = s->relay;

	s->relay = -1;
	return fd;
}

int
dnsstub_wake(struct dnsstub *s, uint64_t deadline_ms, char **cause)
{
	struct st_req rq = { .op = REQ_REFILL };
	int r;

	if (s->status < 0)
		return 0; /* started */
	/* A refill of no socket: a request that asks for nothing. */
	if ((r = channel_send(s->ctl, ST_MSG_REQ, &rq, sizeof(rq), NULL, 0,
			      0)) < 0) {
		*cause = xasprintf("llwrap's resolver ended: %s", strerror(-r));
		return r;
	}
	if ((r = status_take(s, deadline_ms, cause)) == 0)
		spares_ask(s);
	return r;
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
	if (s->relay >= 0)
		close(s->relay);
	s->ctl = s->rec = s->status = s->relay = -1;
	spares_close(s);
}

void
dnsstub_stop(struct dnsstub *s)
{
	if (s == NULL)
		return;
	peer_close(s);
	if (s->ctl >= 0)
		close(s->ctl);
	if (s->rec >= 0)
		close(s->rec);
	if (s->status >= 0)
		close(s->status);
	if (s->relay >= 0)
		close(s->relay);
	spares_close(s);
	/* Not waited for: llwrap exits next, and its network namespace's
	 * teardown is the kernel's to finish, not the command's to wait
	 * for. */
	helper_stop(s->pid, s->owner, false);
	free(s->queue);
	free(s);
}
