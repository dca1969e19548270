/*
 * relay: llwrap-relay, the name check on connections to learned
 * addresses.  See relay.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "cleanup.h"
#include "helper.h"
#include "mono.h"
#include "netpolicy.h"
#include "relay.h"
#include "testhook.h"
#include "xalloc.h"

/* A direction's pipe starts at the kernel's default size and grows to
 * RELAY_PIPE_MAX the first time it fills (a bulk transfer: fewer, larger
 * splices), while the relay's grown pipes hold at most
 * RELAY_PIPE_BUDGET more: pipe pages count against the user's soft
 * limit (fs.pipe-user-pages-soft, 64 MiB by default), past which every
 * new pipe of the user's gets two pages. */
#define RELAY_PIPE_MAX	  (1024 * 1024)
#define RELAY_PIPE_BUDGET (16 * 1024 * 1024)
/* Empty pipes of their first size kept for the next connections. */
#define RELAY_PIPES_KEPT 16
/* A turn that reads less than this acknowledges it at once (quickack). */
#define RELAY_QUICKACK_MAX (16 * 1024)

/* ---- The process ---- */

enum conn_state {
	CONN_FREE,
	CONN_HEAD, /* reading the first record; connecting */
	CONN_RUN,  /* splicing */
};

/* One direction: from -> pipe -> to. */
struct dir {
	int pipe[2];
	size_t held;  /* bytes in the pipe */
	size_t cap;   /* the pipe's size */
	size_t grown; /* bytes of it beyond its first size */
	bool eof, shut, grew;
};

struct conn {
	enum conn_state state;
	struct relay_conn req;
	int c, u; /* the command's side, the address's */
	uint8_t *buf;
	size_t have;
	/* Bytes for the address before anything spliced (the first
	 * record, rewritten for HTTP). */
	char *pend;
	size_t pend_len, pend_off;
	uint64_t deadline_ms;
	struct dir up, down;
	short ce, ue; /* poll's answer for c and u */
};

static const struct hostrule *relay_rules;
static size_t relay_n_rules;
static int relay_chan = -1;
static struct conn conns[RELAY_MAX_CONNS];
static size_t relay_pipe_grown; /* the sum of the pipes' grown */
static struct {
	int fd[2];
	size_t cap;
} relay_kept[RELAY_PIPES_KEPT];
static size_t relay_n_kept;

/* Close fd with a reset, not an orderly end: the command sees
 * ECONNRESET. */
static void
close_reset(int fd)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };

	if (fd < 0)
		return;
	(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(fd);
}

/* A direction's pipe, once its connection ended: kept for the next
 * one when empty and of its first size (two pipes a connection made and
 * closed otherwise), closed past RELAY_PIPES_KEPT. */
static void
dir_close(struct dir *d)
{
	if (d->pipe[0] >= 0 && d->cap > 0 && d->held == 0 && d->grown == 0 &&
	    relay_n_kept < RELAY_PIPES_KEPT) {
		memcpy(relay_kept[relay_n_kept].fd, d->pipe, sizeof(d->pipe));
		relay_kept[relay_n_kept++].cap = d->cap;
		return;
	}
	for (int i = 0; i < 2; i++)
		if (d->pipe[i] >= 0)
			close(d->pipe[i]);
	relay_pipe_grown -= d->grown;
}

/* The pipe filled: grow it once, within the budget (or stay). */
static void
dir_grow(struct dir *d)
{
	int r;

	if (d->grew)
		return;
	d->grew = true;
	if (relay_pipe_grown + RELAY_PIPE_MAX > RELAY_PIPE_BUDGET ||
	    fcntl(d->pipe[1], F_SETPIPE_SZ, RELAY_PIPE_MAX) < 0 ||
	    (r = fcntl(d->pipe[1], F_GETPIPE_SZ)) <= (int)d->cap)
		return;
	d->grown = (size_t)r - d->cap;
	d->cap = (size_t)r;
	relay_pipe_grown += d->grown;
}

static void
conn_end(struct conn *k, bool reset)
{
	if (reset) {
		close_reset(k->c);
		close_reset(k->u);
	} else {
		if (k->c >= 0)
			close(k->c);
		if (k->u >= 0)
			close(k->u);
	}
	dir_close(&k->up);
	dir_close(&k->down);
	free(k->buf);
	free(k->pend);
	memset(k, 0, sizeof(*k));
	k->state = CONN_FREE;
}

static void
report(const struct conn *k, enum refusal rule, const char *name)
{
	struct relay_report rep = { .id = k->req.id, .rule = (uint32_t)rule };

	if (name != NULL)
		strncpy(rep.name, name, sizeof(rep.name) - 1);
	(void)channel_send(relay_chan, RELAY_REPORT, &rep, sizeof(rep), NULL, 0,
			   MSG_DONTWAIT);
}

/*
 * Acknowledge at once what was read from fd, rather than with the
 * relay's next bytes to that side or the delayed-ACK timer: a sender
 * that Nagles (Python's sockets, most servers) holds its next small
 * write until its last is acknowledged, and an acknowledgement that
 * waits for the other end's answer makes each such write wait for a
 * round trip through the relay.  A TLS client's Finished and its first
 * request, written apart, would cross the relay one answer apart.  The
 * kernel leaves quick-ACK mode as it likes: set after each turn that
 * read a little (under RELAY_QUICKACK_MAX: an exchange, not a bulk
 * transfer, which the kernel acknowledges every other segment anyway).
 */
static void
quickack(int fd)
{
	(void)setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &(int){ 1 },
			 sizeof(int));
}

/* Move what one direction can now, from was readable (in) and to
 * writable (out) as poll said; false on an error (end it).  A splice
 * that moves less than it asked for has emptied its source or filled
 * its sink, and poll says when to go on: no splice is made to learn
 * EAGAIN. */
static bool
dir_pump(struct dir *d, int from, int to, bool in, bool out)
{
	bool acked = false, ack = false;

	out = out || d->held == 0; /* not waiting for room */
	for (int i = 0; i < 16; i++) {
		ssize_t n;

		if (in && !d->eof && d->held < d->cap) {
			size_t want = d->cap - d->held;

			n = splice(from, NULL, d->pipe[1], NULL, want,
				   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
			if (n == 0)
				d->eof = true;
			else if (n > 0) {
				ack = !acked && (size_t)n < RELAY_QUICKACK_MAX;
				acked = true;
				d->held += (size_t)n;
				in = (size_t)n == want;
				if (in)
					dir_grow(d);
			} else if (errno == EAGAIN || errno == EINTR)
				in = false;
			else
				return false;
		}
		if (out && d->held > 0) {
			n = splice(d->pipe[0], NULL, to, NULL, d->held,
				   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
			if (n > 0) {
				d->held -= (size_t)n;
				out = d->held == 0;
			} else if (n == 0 || errno == EAGAIN || errno == EINTR)
				out = false;
			else
				return false;
		}
		/* Acknowledged once what was read went on its way. */
		if (ack) {
			quickack(from);
			ack = false;
		}
		if (d->eof && d->held == 0 && !d->shut) {
			(void)shutdown(to, SHUT_WR);
			d->shut = true;
		}
		if (!in || d->eof || d->held == d->cap)
			break;
	}
	return true;
}

/* Poll's events, as a direction's pump reads them. */
#define CAN_IN(ev)  (((ev) & (POLLIN | POLLHUP | POLLERR)) != 0)
#define CAN_OUT(ev) (((ev) & (POLLOUT | POLLHUP | POLLERR)) != 0)

/* Splicing; ce and ue what poll said of the command's side and the
 * address's. */
static void
conn_run(struct conn *k, short ce, short ue)
{
	while (k->pend_off < k->pend_len) {
		ssize_t n = send(k->u, k->pend + k->pend_off,
				 k->pend_len - k->pend_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EAGAIN)
			return; /* connecting still, or full */
		if (n <= 0) {
			conn_end(k, true); /* the address refused, or failed */
			return;
		}
		k->pend_off += (size_t)n;
		ue |= POLLOUT;
	}
	if (!dir_pump(&k->up, k->c, k->u, CAN_IN(ce), CAN_OUT(ue)) ||
	    !dir_pump(&k->down, k->u, k->c, CAN_IN(ue), CAN_OUT(ce))) {
		conn_end(k, true);
		return;
	}
	if (k->up.shut && k->down.shut)
		conn_end(k, false);
}

/* The name checked: splice.  The connect to the address, started when
 * the connection came, may still be under way: the first record waits
 * for it (conn_run).  What else came is spliced when poll says so. */
static void
conn_go(struct conn *k)
{
	k->state = CONN_RUN;
	conn_run(k, 0, 0);
}

/* The address's side before the check: it is watched for input only.
 * A server that speaks first (SMTP, a database) would wait for a first
 * record the client will not send: refused at once, as naming no
 * server, rather than after RELAY_HEAD_MS.  A failed connect is kept
 * for after the check (a refused name is reported as such). */
static void
conn_early(struct conn *k)
{
	ssize_t n;
	char b;

	n = recv(k->u, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n == 1) {
		report(k, REFUSAL_NO_NAME, NULL);
		conn_end(k, true);
	} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		close_reset(k->u); /* ended, or refused */
		k->u = -1;
	}
}

/* The first record is in: decide, then splice or refuse. */
static void
conn_decide(struct conn *k, bool full)
{
	_cleanup_free_ char *name = NULL;
	char *out = NULL;
	size_t out_len, head_len;
	bool http;
	int r;

	r = relay_decide(k->buf, k->have, full, relay_rules, relay_n_rules,
			 k->req.entries, k->req.n, &name, &http, &out, &out_len,
			 &head_len);
	if (r == -EAGAIN)
		return;
	if (r != REFUSAL_NONE) {
		static const char forbidden[] =
			"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n"
			"Connection: close\r\n\r\nllwrap: the Host is not one "
			"of the names that resolved to this address "
			"(allow-host)\n";

		report(k, (enum refusal)r, name);
		close_reset(k->u); /* connected to, never sent a byte */
		k->u = -1;
		if (http)
			(void)send(k->c, forbidden, sizeof(forbidden) - 1,
				   MSG_DONTWAIT | MSG_NOSIGNAL);
		conn_end(k, !http);
		return;
	}
	if (http) {
		/* The rewritten head, then what followed it. */
		k->pend = xreallocarray(out, 1, out_len + k->have - head_len);
		memcpy(k->pend + out_len, k->buf + head_len,
		       k->have - head_len);
		k->pend_len = out_len + k->have - head_len;
		free(k->buf);
	} else {
		k->pend = (char *)k->buf; /* the record as it came */
		k->pend_len = k->have;
	}
	k->buf = NULL;
	if (k->u < 0) {
		conn_end(k, true); /* the address refused, or failed */
		return;
	}
	conn_go(k);
}

static void
conn_head(struct conn *k)
{
	ssize_t n;

	n = recv(k->c, k->buf + k->have, RELAY_HEAD_MAX - k->have,
		 MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0 || (n == 0 && k->have == 0)) {
		conn_end(k, false); /* gone before a word */
		return;
	}
	k->have += (size_t)n;
	conn_decide(k, n == 0 || k->have == RELAY_HEAD_MAX);
	/* Acknowledged once the record went on to the address (a request
	 * whose body the client holds until then, Nagling). */
	if (n > 0 && k->state != CONN_FREE)
		quickack(k->c);
}

/* Connect to the address while the first record is awaited: the
 * handshake overlaps the client's, and no byte is sent before the name
 * is checked (conn_decide).  A refused name resets the connection. */
static void
conn_connect(struct conn *k)
{
	struct sockaddr_storage ss;
	socklen_t sl;

	k->u = socket(k->req.dst.family,
		      SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (k->u < 0)
		return;
	(void)setsockopt(k->u, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 },
			 sizeof(int));
	netpolicy_addr_to_sockaddr(&k->req.dst, &ss, &sl);
	if (connect(k->u, (struct sockaddr *)&ss, sl) < 0 &&
	    errno != EINPROGRESS) {
		close(k->u);
		k->u = -1;
	}
}

/* A direction's pipe, with the connection: off the way of its first
 * record; a kept one if there is.  0 or -1. */
static int
dir_open(struct dir *d)
{
	int r;

	if (relay_n_kept > 0) {
		relay_n_kept--;
		memcpy(d->pipe, relay_kept[relay_n_kept].fd, sizeof(d->pipe));
		d->cap = relay_kept[relay_n_kept].cap;
		return 0;
	}
	if (pipe2(d->pipe, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    (r = fcntl(d->pipe[1], F_GETPIPE_SZ)) <= 0)
		return -1;
	d->cap = (size_t)r;
	return 0;
}

/* A connection from the supervisor. */
static void
conn_take(const struct channel_msg *m)
{
	const struct relay_conn *req =
		channel_expect(m, RELAY_CONN, sizeof(*req));
	struct conn *k = NULL;

	if (req == NULL || m->n_fds != 1 || req->n > RELAY_ENTRIES) {
		for (size_t i = 0; i < m->n_fds; i++)
			close(m->fds[i]);
		return;
	}
	for (size_t i = 0; i < RELAY_MAX_CONNS && k == NULL; i++)
		if (conns[i].state == CONN_FREE)
			k = &conns[i];
	if (k == NULL) {
		close_reset(m->fds[0]);
		return;
	}
	memset(k, 0, sizeof(*k));
	k->req = *req;
	k->c = m->fds[0];
	k->u = -1;
	k->up.pipe[0] = k->up.pipe[1] = -1;
	k->down.pipe[0] = k->down.pipe[1] = -1;
	k->buf = xmalloc(RELAY_HEAD_MAX);
	k->deadline_ms = mono_ms() + RELAY_HEAD_MS;
	k->state = CONN_HEAD;
	/* The address's handshake first: it has the client's whole first
	 * record to finish in. */
	conn_connect(k);
	/* k->c came non-blocking, without Nagle's delay (relay.h): records
	 * are relayed as they come. */
	if (dir_open(&k->up) < 0 || dir_open(&k->down) < 0)
		conn_end(k, true);
}

/* The poll events of k's two descriptors. */
static void
conn_events(const struct conn *k, short *ce, short *ue)
{
	*ce = *ue = 0;
	switch (k->state) {
	case CONN_HEAD:
		*ce = POLLIN;
		*ue = k->u >= 0 ? POLLIN : 0;
		break;
	case CONN_RUN:
		if (k->pend_off < k->pend_len) {
			*ue = POLLOUT;
			break;
		}
		if (!k->up.eof && k->up.held < k->up.cap)
			*ce |= POLLIN;
		if (k->up.held > 0)
			*ue |= POLLOUT;
		if (!k->down.eof && k->down.held < k->down.cap)
			*ue |= POLLIN;
		if (k->down.held > 0)
			*ce |= POLLOUT;
		break;
	default:
		break;
	}
}

static void __attribute__((noreturn)) relay_main(void)
{
	/* Only the descriptors that wait for something are polled; who[]
	 * is each one's connection, and k->ce, k->ue what poll said. */
	static struct pollfd pfd[1 + 2 * RELAY_MAX_CONNS];
	static uint16_t who[1 + 2 * RELAY_MAX_CONNS];
	static struct channel_msg m;

	for (;;) {
		uint64_t now = mono_ms(), next = UINT64_MAX;
		nfds_t n = 1;
		int timeout;

		pfd[0] = (struct pollfd){ .fd = relay_chan, .events = POLLIN };
		for (size_t i = 0; i < RELAY_MAX_CONNS; i++) {
			struct conn *k = &conns[i];
			short ce, ue;

			if (k->state == CONN_FREE)
				continue;
			if (k->state == CONN_HEAD && k->deadline_ms <= now) {
				report(k, REFUSAL_NO_NAME, NULL);
				conn_end(k, true);
				continue;
			}
			if (k->state == CONN_HEAD && k->deadline_ms < next)
				next = k->deadline_ms;
			conn_events(k, &ce, &ue);
			if (ce) {
				who[n] = (uint16_t)i;
				pfd[n++] = (struct pollfd){ .fd = k->c,
							    .events = ce };
			}
			if (ue) {
				who[n] = (uint16_t)i;
				pfd[n++] = (struct pollfd){ .fd = k->u,
							    .events = ue };
			}
		}
		timeout = next == UINT64_MAX ? -1 : (int)(next - now + 1);
		if (poll(pfd, n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		for (nfds_t j = 1; j < n; j++) {
			struct conn *k = &conns[who[j]];

			if (pfd[j].fd == k->c)
				k->ce = pfd[j].revents;
			else
				k->ue = pfd[j].revents;
		}
		/* Each connection once, at its first descriptor. */
		for (nfds_t j = 1; j < n; j++) {
			struct conn *k = &conns[who[j]];
			short ce = k->ce, ue = k->ue;

			if (!ce && !ue)
				continue;
			k->ce = k->ue = 0;
			switch (k->state) {
			case CONN_HEAD:
				if (ue)
					conn_early(k);
				if (ce && k->state == CONN_HEAD)
					conn_head(k);
				break;
			case CONN_RUN:
				conn_run(k, ce, ue);
				break;
			default:
				break;
			}
		}
		/* New connections last: their slots are not in pfd. */
		if (pfd[0].revents) {
			int r = channel_recv(relay_chan, &m, 1, MSG_DONTWAIT);

			if (r == 0 || (r < 0 && r != -EAGAIN && r != -EINTR &&
				       r != -EMSGSIZE && r != -EBADMSG))
				_exit(0); /* the supervisor is gone */
			if (r > 0) {
				conn_take(&m);
				/* Taken, or closed by conn_take. */
			}
		}
	}
}

/*
 * Until the supervisor's first relayed connect it holds nothing but its
 * channel, without capabilities or new privileges: its Landlock domain
 * and filter come then.  The supervisor gone, it ends.  Then its
 * confinement, and its word on it.
 */
static void
relay_setup(void)
{
	struct relay_status st = { 0 };
	struct channel_msg m;
	char *why = NULL;
	int r, early;

	/* What root holds goes at once, while it waits (cheap); its
	 * Landlock domain and filter at the first relayed connect. */
	early = helper_unprivilege(&why);
	do
		r = channel_recv(relay_chan, &m, 0, 0);
	while (r == -EINTR);
	if (r <= 0 || channel_expect(&m, RELAY_START, 0) == NULL)
		_exit(0);
	/* It reads nothing, connects where the supervisor says. */
	if (early < 0) {
		r = early;
	} else if (testhook_relay_fails()) {
		why = xstrdup("its confinement refused (test hook)");
		r = -EPERM;
	} else {
		r = helper_confine(
			&(struct helper_confinement){
				.drop_caps = true,
				.net = RULESET_HELPER_NET_ANY },
			&why);
	}
	if (r < 0) {
		st.err = -r;
		snprintf(st.why, sizeof(st.why),
			 "llwrap-relay cannot confine itself: %s", why);
	}
	if (channel_send(relay_chan, RELAY_STATUS, &st, sizeof(st), NULL, 0,
			 0) < 0 ||
	    r < 0)
		_exit(1);
	free(why);
}

pid_t
relay_spawn(const struct hostrule *rules, size_t n, int chan)
{
	pid_t pid = helper_start(&(struct helper){
		.name = "llwrap-relay", .keep = &chan, .n_keep = 1 });

	if (pid == 0) {
		relay_rules = rules;
		relay_n_rules = n;
		relay_chan = chan;
		relay_setup();
		relay_main();
	}
	return pid;
}
