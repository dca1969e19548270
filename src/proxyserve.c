/*
 * proxyserve: the proxy process.  See proxyserve.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "cleanup.h"
#include "dns.h"
#include "fdutil.h"
#include "filter.h"
#include "helper.h"
#include "hostrule.h"
#include "httpreq.h"
#include "mono.h"
#include "proxy.h"
#include "proxyserve.h"
#include "sockdiag.h"
#include "ruleset.h"
#include "strv.h"
#include "tlshello.h"
#include "xalloc.h"

/* How long a client may take to send its request, and a tunnel its
 * ClientHello; how long a connect and a DNS answer may take. */
#define PS_HEAD_TIMEOUT_MS    30000
#define PS_CONNECT_TIMEOUT_MS 10000
#define PS_DNS_TIMEOUT_MS     2000
#define PS_MAX_ADDRS	      16
#define PS_RELAY_BUF	      65536
#define PS_LOG_BURST	      20
#define PS_LOG_RATE	      5
#define PS_MAX_CLIENTS	      256

struct proxyserve {
	pid_t pid;
	pid_t owner; /* who started it: only that process stops it */
	uint16_t port;
	int note_fd; /* the write end of the supervisor's notes, or -1 */
};

/* The proxy process's state: one per process, read by every thread;
 * the log under its lock. */
static struct {
	const struct net_plan *np; /* the plan's network side */
	struct netpolicy_rules *rules;
	struct netpolicy_addr *dns;
	size_t n_dns;
	char *prefix;
	int logfd;
	pthread_mutex_t lock; /* the log and clients */
	struct netpolicy_ratelimit rl;
	struct proxy_clients clients;
	int notes; /* the supervisor's notes (a channel), or -1 */
} ps = { .logfd = -1, .notes = -1, .lock = PTHREAD_MUTEX_INITIALIZER };

static int
send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void
log_line(const char *line)
{
	size_t plen = strlen(ps.prefix);

	if (strncmp(line, ps.prefix, plen) == 0 && line[plen] == ':')
		syslog(LOG_USER | LOG_WARNING, "%s", line + plen + 2);
	else
		syslog(LOG_USER | LOG_WARNING, "%s", line);
	if (ps.logfd >= 0) {
		_cleanup_free_ char *l = xasprintf("%s\n", line);
		size_t len = strlen(l);

		/* O_APPEND: one write, one line, beside the supervisor's. */
		(void)!write(ps.logfd, l, len);
	}
}

/* The supervisor's notes so far (a channel, one line a frame), into
 * ps.clients; call with ps.lock held.  Never waits. */
static void
notes_drain(void)
{
	struct channel_msg m;
	int r;

	while ((r = channel_recv(ps.notes, &m, 0, MSG_DONTWAIT)) != -EAGAIN &&
	       r != 0)
		if (r == 1 && m.type == PROXYSERVE_NOTE)
			proxy_clients_add(&ps.clients, (const char *)m.payload,
					  m.len);
}

/* The client whose socket's local port is that of c's peer, as the
 * supervisor told it (proxy_clients_add); 0 and NULL when unknown.  The
 * note was written before the client's connect returned, so before any
 * request of its was read. */
static pid_t
client_process(int c, char **comm)
{
	struct sockaddr_in peer;
	socklen_t pl = sizeof(peer);
	const struct proxy_client *e = NULL;
	pid_t pid = 0;

	*comm = NULL;
	if (getpeername(c, (struct sockaddr *)&peer, &pl) < 0 ||
	    peer.sin_family != AF_INET)
		return 0;
	pthread_mutex_lock(&ps.lock);
	notes_drain();
	e = proxy_clients_find(&ps.clients, ntohs(peer.sin_port));
	if (e != NULL) {
		pid = e->pid;
		*comm = xstrdup(e->comm);
	}
	pthread_mutex_unlock(&ps.lock);
	return pid;
}

/* A refusal, as the supervisor logs one: "connect tcp NAME:PORT". */
static void
log_refusal(int c, const char *host, bool is_ip, uint16_t port,
	    enum refusal rule)
{
	_cleanup_free_ char *target = NULL, *line = NULL, *comm = NULL;
	unsigned long rep = 0;
	pid_t pid;

	if (!ps.np->log_blocked)
		return;
	pid = client_process(c, &comm);
	target = is_ip && strchr(host, ':') ? xasprintf("[%s]:%u", host, port)
					    : xasprintf("%s:%u", host, port);
	pthread_mutex_lock(&ps.lock);
	if (netpolicy_ratelimit_take(&ps.rl, mono_ns(), &rep)) {
		if (rep > 0) {
			_cleanup_free_ char *s =
				xasprintf("%s: suppressed %lu", ps.prefix, rep);

			log_line(s);
		}
		line = netpolicy_log_line(ps.prefix, NETPOLICY_CONNECT,
					  NETPOLICY_TCP, target, pid,
					  comm ? comm : "?", rule);
		log_line(line);
	}
	pthread_mutex_unlock(&ps.lock);
}

static void
respond(int c, const char *status, const char *body)
{
	_cleanup_free_ char *msg =
		xasprintf("HTTP/1.1 %s\r\nContent-Type: text/plain\r\n"
			  "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
			  status, strlen(body), body);

	(void)send_all(c, msg, strlen(msg));
}

static void
refuse(int c, const char *host, bool is_ip, uint16_t port,
       const struct proxy_verdict *v)
{
	_cleanup_free_ char *body = xasprintf(
		"llwrap: %s:%u is blocked by the sandbox's policy: %s (rule "
		"%s%s%s)\n",
		host, port, refusal_reason(v->rule), refusal_name(v->rule),
		v->origin ? ", " : "", v->origin ? v->origin : "");

	log_refusal(c, host, is_ip, port, v->rule);
	respond(c, "403 Forbidden", body);
}

/* ---- The rules, as proxy.h asks for them ---- */

static enum hostrule_verdict
rules_host(void *ctx, const char *name, uint16_t port, const char **origin)
{
	(void)ctx;
	return hostrule_match(ps.np->hosts, ps.np->n_hosts, ps.np->connect_tcp,
			      name, port, origin);
}

static const char *
rules_cidr(void *ctx, const struct netpolicy_addr *a)
{
	(void)ctx;
	return netpolicy_cidr_allows(ps.rules, a);
}

/* Asked for each address a name resolves to, from the clients' threads:
 * this host's addresses and on-link prefixes, read each time
 * (interfaces come and go).  An IPv4-mapped address was made IPv4 when
 * it was read. */
static bool
rules_own(void *ctx, const struct netpolicy_addr *a)
{
	(void)ctx;
	return sockdiag_host_local(NULL, a);
}

static const struct proxy_rules rules = { rules_host, rules_cidr, rules_own,
					  NULL };

/* ---- Resolving ---- */

/* One query to one server over UDP. */
static int
dns_ask(const struct netpolicy_addr *server, const char *name, uint16_t type,
	struct netpolicy_addr *out, size_t max, size_t *n)
{
	_cleanup_close_ int fd = -1;
	struct sockaddr_storage ss;
	socklen_t sl;
	uint8_t q[512], a[4096];
	struct dns_question question = { .type = type, .qclass = DNS_CLASS_IN };
	struct dns_answer answer;
	uint16_t id;
	int qlen, r;
	uint64_t deadline = mono_ns() + PS_DNS_TIMEOUT_MS * 1000000ull;

	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		return -EIO;
	if ((qlen = dns_query_build(name, type, id, q, sizeof(q))) < 0)
		return qlen;
	question.id = id;
	snprintf(question.name, sizeof(question.name), "%s", name);
	fd = socket(server->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	netpolicy_addr_to_sockaddr(server, &ss, &sl);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, sl) < 0 ||
	    send(fd, q, (size_t)qlen, 0) != qlen)
		return -errno;
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		uint64_t now = mono_ns();
		ssize_t got;

		if (now >= deadline)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, (int)((deadline - now) / 1000000) + 1) <= 0)
			continue;
		got = recv(fd, a, sizeof(a), 0);
		if (got < 0)
			return -errno;
		r = dns_answer_parse(a, (size_t)got, &question, &answer);
		if (r == -ESRCH)
			continue;
		if (r < 0)
			return r;
		return proxy_dns_addrs(&answer, out, max, n);
	}
}

/* The addresses of name: /etc/hosts first, then DNS (A, then AAAA). */
static size_t
resolve(const char *name, struct netpolicy_addr *out, size_t max)
{
	_cleanup_close_ int fd = open("/etc/hosts", O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *hosts = NULL;
	size_t n = 0;

	if (fd >= 0 && fd_read_all(fd, 1 << 20, &hosts, NULL) == 0)
		n = proxy_hosts_lookup(hosts, name, out, max);
	if (n > 0)
		return n;
	for (size_t i = 0; i < ps.n_dns; i++) {
		size_t n4 = 0, n6 = 0;
		int r4 = dns_ask(&ps.dns[i], name, 1, out, max, &n4);
		int r6 = r4 == -ENOENT ? r4
				       : dns_ask(&ps.dns[i], name, 28, out + n4,
						 max - n4, &n6);

		if (r4 == 0 || r6 == 0 || r4 == -ENOENT)
			return n4 + n6;
	}
	return 0;
}

/* A connect that gives up after PS_CONNECT_TIMEOUT_MS. */
static int
connect_to(const struct netpolicy_addr *a)
{
	_cleanup_close_ int fd = -1;
	struct sockaddr_storage ss;
	socklen_t sl;
	struct pollfd pfd;
	int err = 0, flags, one = 1;
	socklen_t el = sizeof(err);

	fd = socket(a->family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	netpolicy_addr_to_sockaddr(a, &ss, &sl);
	if (connect(fd, (struct sockaddr *)&ss, sl) < 0) {
		if (errno != EINPROGRESS)
			return -errno;
		pfd = (struct pollfd){ fd, POLLOUT, 0 };
		if (poll(&pfd, 1, PS_CONNECT_TIMEOUT_MS) <= 0)
			return -ETIMEDOUT;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
			return -errno;
		if (err != 0)
			return -err;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
		return -errno;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return steal_fd(&fd);
}

/* ---- Relaying ---- */

struct pump {
	int from, to;
};

/* Move from -> to through a pipe with splice(2), so the bytes are never
 * copied to this process.  Returns 0 at end of file, -EINVAL when the
 * sockets do not splice (then nothing was moved), else -errno. */
static int
pump_splice(struct pump *p)
{
	_cleanup_close_ int pin = -1, pout = -1;
	int fds[2];
	bool moved = false;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pin = fds[0];
	pout = fds[1];
	(void)fcntl(pout, F_SETPIPE_SZ, PS_RELAY_BUF * 4);
	for (;;) {
		ssize_t n = splice(p->from, NULL, pout, NULL, PS_RELAY_BUF * 4,
				   SPLICE_F_MOVE);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EINVAL && !moved ? -EINVAL : -errno;
		if (n == 0)
			return 0;
		moved = true;
		while (n > 0) {
			ssize_t w = splice(pin, NULL, p->to, NULL, (size_t)n,
					   SPLICE_F_MOVE);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return w < 0 ? -errno : -EIO;
			n -= w;
		}
	}
}

/* Copy from -> to until end of file, then pass the end on. */
static void *
pump_run(void *arg)
{
	struct pump *p = arg;
	char *buf;

	if (pump_splice(p) != -EINVAL)
		goto done;
	buf = xmalloc(PS_RELAY_BUF);
	for (;;) {
		ssize_t n = recv(p->from, buf, PS_RELAY_BUF, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || send_all(p->to, buf, (size_t)n) < 0)
			break;
	}
	free(buf);
done:
	shutdown(p->to, SHUT_WR);
	shutdown(p->from, SHUT_RD);
	return NULL;
}

/* Relay c <-> u, one thread a direction, until both ends are done. */
static void
relay(int c, int u)
{
	struct pump up = { c, u }, down = { u, c };
	pthread_attr_t attr;
	pthread_t t;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	if (pthread_create(&t, &attr, pump_run, &down) != 0) {
		pthread_attr_destroy(&attr);
		return;
	}
	pthread_attr_destroy(&attr);
	pump_run(&up);
	pthread_join(t, NULL);
}

/* Read more of the client's bytes into buf (have so far, size in all),
 * waiting at most until deadline.  Returns bytes read, 0 at end of
 * file, or -errno. */
static ssize_t
read_more(int c, char *buf, size_t have, size_t size, uint64_t deadline)
{
	struct pollfd pfd = { c, POLLIN, 0 };
	uint64_t now = mono_ns();
	ssize_t n;

	if (have >= size)
		return -ENOBUFS;
	if (now >= deadline ||
	    poll(&pfd, 1, (int)((deadline - now) / 1000000) + 1) <= 0)
		return -ETIMEDOUT;
	n = recv(c, buf + have, size - have, 0);
	return n < 0 ? -errno : n;
}

/* ---- One client ---- */

#define PS_BUF (LLW_HTTPREQ_MAX_HEAD + LLW_TLSHELLO_MAX + 4096)

static void
serve(int c)
{
	_cleanup_free_ char *buf = xmalloc(PS_BUF);
	_cleanup_close_ int u = -1;
	struct httpreq req = { 0 };
	struct netpolicy_addr addrs[PS_MAX_ADDRS];
	struct proxy_verdict v = { REFUSAL_NONE, NULL },
			     refused = { REFUSAL_NONE, NULL };
	uint64_t deadline = mono_ns() + PS_HEAD_TIMEOUT_MS * 1000000ull;
	size_t have = 0, n_addrs;
	int r = -EAGAIN;

	while (r == -EAGAIN) {
		ssize_t n =
			read_more(c, buf, have, LLW_HTTPREQ_MAX_HEAD, deadline);

		if (n == -ENOBUFS) {
			r = -E2BIG;
			break;
		}
		if (n <= 0)
			return;
		have += (size_t)n;
		r = httpreq_parse(buf, have, &req);
	}
	if (r < 0) {
		respond(c, httpreq_status(r),
			"llwrap's proxy: a CONNECT host:port or a GET "
			"http://host/ request was expected\n");
		return;
	}

	v = proxy_decide_request(&rules, req.host, req.is_ip, req.port);
	if (v.rule != REFUSAL_NONE) {
		refuse(c, req.host, req.is_ip, req.port, &v);
		goto out;
	}
	if (req.is_ip) {
		n_addrs = value_addr(req.host, &addrs[0], NULL) == 0;
	} else {
		n_addrs = resolve(req.host, addrs, PS_MAX_ADDRS);
		if (n_addrs == 0) {
			respond(c, "502 Bad Gateway",
				"llwrap's proxy: the name does not resolve\n");
			goto out;
		}
	}
	for (size_t i = 0; i < n_addrs && u < 0; i++) {
		addrs[i].port = req.port;
		if (!req.is_ip) {
			struct proxy_verdict av =
				proxy_decide_address(&rules, &addrs[i]);

			if (av.rule != REFUSAL_NONE) {
				refused = av;
				continue;
			}
		}
		u = connect_to(&addrs[i]);
	}
	if (u < 0) {
		if (refused.rule != REFUSAL_NONE)
			refuse(c, req.host, req.is_ip, req.port, &refused);
		else
			respond(c, "502 Bad Gateway",
				"llwrap's proxy: cannot connect\n");
		goto out;
	}

	if (req.kind == HTTPREQ_FORWARD) {
		if (send_all(u, req.out, req.out_len) < 0 ||
		    send_all(u, buf + req.head_len, have - req.head_len) < 0)
			goto out;
	} else {
		static const char ok[] =
			"HTTP/1.1 200 Connection established\r\n\r\n";
		size_t start = req.head_len;
		char *sni = NULL;

		if (send_all(c, ok, sizeof(ok) - 1) < 0)
			goto out;
		/* The tunnel's first bytes: a TLS ClientHello must name
		 * the host CONNECT named. */
		deadline = mono_ns() + PS_HEAD_TIMEOUT_MS * 1000000ull;
		for (;;) {
			ssize_t n;

			r = tlshello_sni((uint8_t *)buf + start, have - start,
					 &sni);
			if (r != -EAGAIN)
				break;
			n = read_more(c, buf, have, PS_BUF, deadline);
			if (n <= 0) {
				r = have > start ? -EINVAL : -EPROTO;
				break;
			}
			have += (size_t)n;
		}
		if (r == 0)
			v = proxy_decide_sni(req.host, sni);
		else if (r == -EPERM)
			v.rule = REFUSAL_ECH; /* the name is inside */
		else if (r == -EINVAL)
			v.rule = REFUSAL_SNI;
		free(sni);
		if (v.rule != REFUSAL_NONE) {
			/* After 200 there is no status to answer with: the
			 * tunnel closes, the log says why. */
			log_refusal(c, req.host, req.is_ip, req.port, v.rule);
			goto out;
		}
		if (send_all(u, buf + start, have - start) < 0)
			goto out;
	}
	free(steal_pointer(&buf));
	relay(c, u);
out:
	httpreq_clear(&req);
}

/* Clients being served, at most PS_MAX_CLIENTS. */
static unsigned clients_now;

static void *
client_main(void *arg)
{
	int c = (int)(intptr_t)arg, one = 1;

	/* Relayed TLS records are small and interactive: no Nagle delay
	 * on either side of the proxy. */
	(void)setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	serve(c);
	close(c);
	__atomic_sub_fetch(&clients_now, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* The proxy process: accept until killed. */
static void __attribute__((noreturn)) proxy_main(int listener)
{
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 128 * 1024);
	for (;;) {
		pthread_t t;
		int c = accept4(listener, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0) {
			if (errno == EMFILE || errno == ENFILE)
				/* The connection waits in the backlog. */
				poll(NULL, 0, 10);
			if (errno == EINTR || errno == ECONNABORTED ||
			    errno == EMFILE || errno == ENFILE)
				continue;
			_exit(1);
		}
		/* Keep the supervisor's pipe from filling up. */
		pthread_mutex_lock(&ps.lock);
		notes_drain();
		pthread_mutex_unlock(&ps.lock);
		/* Two threads and four descriptors a client: a bound on
		 * them, so the command cannot exhaust the proxy. */
		if (__atomic_add_fetch(&clients_now, 1, __ATOMIC_RELAXED) >
			    PS_MAX_CLIENTS ||
		    pthread_create(&t, &attr, client_main,
				   (void *)(intptr_t)c) != 0) {
			__atomic_sub_fetch(&clients_now, 1, __ATOMIC_RELAXED);
			close(c);
		}
	}
}

/* ---- The parent's side ---- */

static void
state_init(const struct net_plan *np, char *const *envp)
{
	_cleanup_close_ int fd = open("/etc/resolv.conf", O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *conf = NULL, *path = NULL;

	if (fd >= 0)
		(void)fd_read_all(fd, 1 << 16, &conf, NULL);
	ps.dns = netpolicy_resolvers_of(np->dns, np->n_dns, conf, &ps.n_dns);
	for (size_t i = 0; i < ps.n_dns; i++)
		ps.dns[i].port = 53;
	ps.np = np;
	ps.rules = netpolicy_rules_copy(np->rules, ps.dns, ps.n_dns);
	ps.prefix = xstrdup(np->log_prefix);
	netpolicy_ratelimit_init(&ps.rl, PS_LOG_BURST, PS_LOG_RATE, mono_ns());
	path = np->log_blocked ? netpolicy_log_path(np->name, envp) : NULL;
	/* The supervisor's file, which it checked first. */
	if (path != NULL &&
	    (ps.logfd = fd_append_regular(AT_FDCWD, path, 0600)) < 0)
		ps.logfd = -1;
}

int
proxyserve_start(const struct net_plan *np, char *const *envp,
		 struct proxyserve **out, char **cause)
{
	_cleanup_close_ int l = -1, notes_r = -1, notes_w = -1;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int notes[2];
	socklen_t sl = sizeof(sin);
	pid_t pid;
	int r;

	state_init(np, envp);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(l, 128) < 0 ||
	    getsockname(l, (struct sockaddr *)&sin, &sl) < 0) {
		r = -errno;
		*cause = xasprintf("cannot listen on 127.0.0.1 for the proxy: "
				   "%s",
				   strerror(-r));
		return r;
	}
	if ((r = channel_pair(notes, false)) < 0) {
		*cause = xasprintf("cannot create the proxy's channel: %s",
				   strerror(-r));
		return r;
	}
	notes_r = notes[0];
	notes_w = notes[1];
	/* Outlive nothing: the proxy ends with llwrap; hold nothing of the
	 * command's: not its terminal, not the pipes a caller waits on to
	 * see it end. */
	pid = helper_start(
		&(struct helper){ .name = "llwrap-proxy",
				  .keep = (const int[]){ l, notes_r, ps.logfd },
				  .n_keep = 3,
				  .not_dumpable = true });
	if (pid < 0) {
		r = (int)pid;
		*cause = xasprintf("cannot start the proxy: %s", strerror(-r));
		return r;
	}
	if (pid == 0) {
		/* /etc/hosts may be replaced (renamed over) or be a link
		 * into another tree (NixOS): its directories, not its
		 * inode. */
		_cleanup_free_ char *real = realpath("/etc/hosts", NULL);
		char *slash = real ? strrchr(real, '/') : NULL;
		const char *confined[] = { "/etc", real };
		char *why = NULL;

		openlog(ps.prefix, LOG_NDELAY, LOG_USER);
		/* It parses what the command sends: it keeps only what it
		 * needs, reading /etc (hosts) and the network, before the
		 * first byte arrives, and none of root's capabilities. */
		if (slash != NULL && slash != real)
			*slash = '\0';
		if (helper_confine(
			    &(struct helper_confinement){
				    .drop_caps = true,
				    .paths = confined,
				    .n_paths = ARRAY_SIZE(confined) -
					       (real == NULL),
				    .net = RULESET_HELPER_NET_ANY,
				    .unix_ok = true },
			    &why) < 0) {
			syslog(LOG_USER | LOG_ERR,
			       "the proxy cannot confine "
			       "itself: %s",
			       why);
			_exit(1);
		}
		ps.notes = notes_r;
		proxy_main(l);
	}
	*out = xcalloc(1, sizeof(**out));
	(*out)->pid = pid;
	(*out)->owner = getpid();
	(*out)->port = ntohs(sin.sin_port);
	(*out)->note_fd = steal_fd(&notes_w);
	return 0;
}

void
proxyserve_addr(const struct proxyserve *p, struct netpolicy_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->family = AF_INET;
	a->a[0] = 127;
	a->a[3] = 1;
	a->port = p->port;
}

int
proxyserve_take_note_fd(struct proxyserve *p)
{
	int fd = p->note_fd;

	p->note_fd = -1;
	return fd;
}

void
proxyserve_stop(struct proxyserve *p)
{
	if (p == NULL)
		return;
	if (p->note_fd >= 0)
		close(p->note_fd);
	helper_stop(p->pid, p->owner, true);
	free(p);
}
