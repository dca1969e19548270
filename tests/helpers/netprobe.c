/*
 * netprobe: network probes for the supervisor tests and benchmarks.
 *
 *	netprobe NAME [ARGS...]
 *
 * Same conventions as probe.c: one line "SUCCEEDED NAME [DETAIL]" or
 * "DENIED NAME errno=ENAME (strerror)" on stdout, exit 0, 1, or 2 for a
 * usage or setup error.  A separate program so that probe.c's table
 * (shared with the escape corpus) stays as it is.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report.h"

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- The race: a thread flips the address the main thread connects to ---- */

static union addr race_addr; /* written by the flipper, read by connect */
static struct in_addr race_a, race_b;
static atomic_bool race_stop;

static void *
flipper(void *arg)
{
	volatile uint32_t *p = (volatile uint32_t *)&race_addr.in.sin_addr;

	(void)arg;
	/* A pause after each store: where the reader's view changes only
	 * at the end of a block of instructions (one vCPU under qemu's
	 * TCG), it would otherwise always see the second address. */
	while (!atomic_load(&race_stop)) {
		*p = race_a.s_addr;
		for (volatile int i = 0; i < 64; i++)
			;
		*p = race_b.s_addr;
		for (volatile int i = 0; i < 64; i++)
			;
	}
	return NULL;
}

static int
p_race(char **argv)
{
	long n = atol(argv[3]);
	long connected = 0, refused = 0, i;
	pthread_t t;

	memset(&race_addr, 0, sizeof(race_addr));
	race_addr.in.sin_family = AF_INET;
	race_addr.in.sin_port = htons((uint16_t)atoi(argv[2]));
	if (inet_pton(AF_INET, argv[0], &race_a) != 1 ||
	    inet_pton(AF_INET, argv[1], &race_b) != 1 || n <= 0)
		return usage_error("usage: race ALLOWED DENIED PORT N");
	race_addr.in.sin_addr = race_a;
	if (pthread_create(&t, NULL, flipper, NULL) != 0)
		return usage_error("pthread_create failed");
	/* N connects, and more (up to 20 N) until both addresses were
	 * tried: on a loaded machine the flipper can be off its CPU for a
	 * whole burst, which then tries one address only and proves
	 * nothing about the race. */
	for (i = 0; i < n || ((connected == 0 || refused == 0) && i < 20 * n);
	     i++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0) {
			atomic_store(&race_stop, true);
			return deny("socket");
		}
		if (connect(fd, &race_addr.sa, sizeof(race_addr.in)) == 0)
			connected++;
		else
			refused++;
		close(fd);
	}
	atomic_store(&race_stop, true);
	pthread_join(t, NULL);
	return succeed("connected=%ld refused=%ld tries=%ld", connected,
		       refused, i);
}

/* N connects to one address; how many were refused. */
static int
p_connect_loop(char **argv)
{
	union addr a;
	socklen_t len;
	long n = atol(argv[2]), ok = 0, refused = 0;

	if (parse_inet(argv[0], argv[1], &a, &len))
		return USAGE;
	for (long i = 0; i < n; i++) {
		int fd = socket(a.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return deny("socket");
		if (connect(fd, &a.sa, len) == 0)
			ok++;
		else
			refused++;
		close(fd);
	}
	return succeed("ok=%ld refused=%ld", ok, refused);
}

/* Non-blocking connect: EINPROGRESS, then poll and SO_ERROR. */
static int
p_tcp_connect_nb(char **argv)
{
	union addr a;
	socklen_t len, elen = sizeof(int);
	int fd, err = 0;
	struct pollfd pfd;

	if (parse_inet(argv[0], argv[1], &a, &len))
		return USAGE;
	fd = socket(a.sa.sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0)
		return deny("socket");
	if (connect(fd, &a.sa, len) < 0) {
		if (errno != EINPROGRESS)
			return deny("connect");
		pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
		if (poll(&pfd, 1, 5000) != 1)
			return deny_err("poll", ETIMEDOUT);
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen);
		if (err != 0)
			return deny_err("SO_ERROR", err);
		return succeed("einprogress");
	}
	return succeed("immediate");
}

static int
udp_socket(const union addr *a)
{
	return socket(a->sa.sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

static int
p_udp_sendmsg(char **argv)
{
	union addr a;
	socklen_t len;
	char x = 'x';
	struct iovec iov = { .iov_base = &x, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fd;

	if (parse_inet(argv[0], argv[1], &a, &len))
		return USAGE;
	m.msg_name = &a;
	m.msg_namelen = len;
	if ((fd = udp_socket(&a)) < 0)
		return deny("socket");
	if (sendmsg(fd, &m, 0) != 1)
		return deny("sendmsg");
	return succeed("%s %s", argv[0], argv[1]);
}

static int
p_udp_sendmmsg(char **argv)
{
	union addr a;
	socklen_t len;
	char x[2] = "xy";
	struct iovec iov[2] = { { &x[0], 1 }, { &x[1], 1 } };
	struct mmsghdr mm[2];
	int fd, n;

	if (parse_inet(argv[0], argv[1], &a, &len))
		return USAGE;
	memset(mm, 0, sizeof(mm));
	for (int i = 0; i < 2; i++) {
		mm[i].msg_hdr.msg_name = &a;
		mm[i].msg_hdr.msg_namelen = len;
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	if ((fd = udp_socket(&a)) < 0)
		return deny("socket");
	n = sendmmsg(fd, mm, 2, 0);
	if (n < 0)
		return deny("sendmmsg");
	if (n != 2 || mm[0].msg_len != 1 || mm[1].msg_len != 1)
		return deny_err("sendmmsg count", EIO);
	return succeed("sent=%d", n);
}

static int
p_udp_connect_send(char **argv)
{
	union addr a;
	socklen_t len;
	int fd;

	if (parse_inet(argv[0], argv[1], &a, &len))
		return USAGE;
	if ((fd = udp_socket(&a)) < 0)
		return deny("socket");
	if (connect(fd, &a.sa, len) < 0)
		return deny("connect");
	if (send(fd, "x", 1, 0) != 1)
		return deny("send");
	return succeed("%s %s", argv[0], argv[1]);
}

/* AF_UNIX datagram socket + sendto a pathname: no connect() at all. */
static int
p_unix_dgram_sendto(char **argv)
{
	union addr a;
	socklen_t len;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return deny("socket");
	if (unix_addr(argv[0], false, &a, &len))
		return USAGE;
	if (sendto(fd, "x", 1, 0, &a.sa, len) != 1)
		return deny("sendto");
	return succeed("%s", argv[0]);
}

/* The sandbox's own unix server: bind + listen at PATH, a child
 * connects, the parent accepts, a byte goes across. */
static int
p_unix_self(char **argv)
{
	union addr a;
	socklen_t len;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), c, st;
	char buf[1];
	pid_t pid;

	if (fd < 0)
		return deny("socket");
	if (unix_addr(argv[0], false, &a, &len))
		return USAGE;
	unlink(argv[0]);
	if (bind(fd, &a.sa, len) < 0)
		return deny("bind");
	if (listen(fd, 4) < 0)
		return deny("listen");
	pid = fork();
	if (pid < 0)
		return usage_error("fork failed");
	if (pid == 0) {
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (s < 0 || connect(s, &a.sa, len) < 0) {
			fprintf(stderr, "netprobe: child connect: %s\n",
				strerror(errno));
			_exit(1);
		}
		_exit(write(s, "x", 1) == 1 ? 0 : 1);
	}
	/* The child reports first: a refused connect never reaches us. */
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return deny_err("child connect", ECONNREFUSED);
	c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return deny("accept");
	if (read(c, buf, 1) != 1)
		return deny("read");
	unlink(argv[0]);
	return succeed("%s", argv[0]);
}

/* "ADDR PORT" of a bound socket, for the result line. */
static const char *
bound(int fd)
{
	static char out[INET6_ADDRSTRLEN + 8];
	union addr a;
	socklen_t len = sizeof(a);
	char host[INET6_ADDRSTRLEN] = "?";

	if (getsockname(fd, &a.sa, &len) < 0)
		return "?";
	if (a.sa.sa_family == AF_INET)
		inet_ntop(AF_INET, &a.in.sin_addr, host, sizeof(host));
	else
		inet_ntop(AF_INET6, &a.in6.sin6_addr, host, sizeof(host));
	snprintf(out, sizeof(out), "%s %u", host,
		 ntohs(a.sa.sa_family == AF_INET ? a.in.sin_port
						 : a.in6.sin6_port));
	return out;
}

/* listen() on a socket never bound: the kernel binds 0.0.0.0:ephemeral. */
static int
p_tcp_listen_unbound(char **argv)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	(void)argv;
	if (fd < 0)
		return deny("socket");
	if (listen(fd, 4) < 0)
		return deny("listen");
	return succeed("bound=%s", bound(fd));
}

/*
 * The sandbox's own server: bind ADDR PORT (TYPE tcp: and listen), then
 * a child connects (or sends) to TO (the address it got when TO is "-",
 * with the port it got) and a byte goes across.
 */
static int
p_self(char **argv)
{
	bool udp = strcmp(argv[0], "udp") == 0;
	union addr a, to;
	socklen_t len, tolen;
	int fd, c, st, type = udp ? SOCK_DGRAM : SOCK_STREAM;
	char buf[1], port[8];
	pid_t pid;

	if (parse_inet(argv[1], argv[2], &a, &len))
		return USAGE;
	fd = socket(a.sa.sa_family, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return deny("socket");
	if (bind(fd, &a.sa, len) < 0)
		return deny("bind");
	if (!udp && listen(fd, 4) < 0)
		return deny("listen");
	snprintf(port, sizeof(port), "%s", strchr(bound(fd), ' ') + 1);
	if (parse_inet(strcmp(argv[3], "-") == 0 ? argv[1] : argv[3], port, &to,
		       &tolen))
		return USAGE;
	pid = fork();
	if (pid < 0)
		return usage_error("fork failed");
	if (pid == 0) {
		int s = socket(to.sa.sa_family, type | SOCK_CLOEXEC, 0);

		if (s < 0 || connect(s, &to.sa, tolen) < 0) {
			fprintf(stderr, "netprobe: child connect: %s\n",
				strerror(errno));
			_exit(1);
		}
		_exit(write(s, "x", 1) == 1 ? 0 : 1);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return deny_err("child connect", EACCES);
	c = udp ? fd : accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return deny("accept");
	if (read(c, buf, 1) != 1)
		return deny("read");
	return succeed("bound=%s", bound(fd));
}

/* Bind and listen on ADDR PORT, then close: a listener that was the
 * sandbox's and is gone. */
static int
p_tcp_bind_close(char **argv)
{
	union addr a;
	socklen_t len;
	int fd;

	if (parse_inet(argv[0], argv[1], &a, &len))
		return USAGE;
	fd = socket(a.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return deny("socket");
	if (bind(fd, &a.sa, len) < 0 || listen(fd, 4) < 0)
		return deny("bind");
	close(fd);
	return succeed("%s %s", argv[0], argv[1]);
}

/* ---- Control data the supervisor sends for the command ---- */

/*
 * Malformed control buffer number k into buf (size bytes), every int
 * after the first header's room set to fd: what a walk past the buffer
 * would read as descriptors.  Returns msg_controllen.
 */
static size_t
cmsg_malformed(unsigned k, unsigned char *buf, size_t size, int fd)
{
	struct cmsghdr *c = (struct cmsghdr *)(void *)buf, *c2;
	size_t one = CMSG_SPACE(sizeof(int));

	memset(buf, 0, size);
	for (size_t i = CMSG_LEN(0); i + sizeof(int) <= size; i += sizeof(int))
		memcpy(buf + i, &fd, sizeof(int));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	switch (k % 7) {
	case 0: /* longer than the buffer */
		c->cmsg_len = CMSG_LEN(64 * sizeof(int));
		return one;
	case 1: /* shorter than a header: the count underflows */
		c->cmsg_len = 0;
		return one;
	case 2:
		c->cmsg_len = CMSG_LEN(0) - 1;
		return one;
	case 3:
		c->cmsg_len = (size_t)-1;
		return one;
	case 4: /* one byte too long */
		c->cmsg_len = one + 1;
		return one;
	case 5: /* a good header, then a bad one */
		c->cmsg_len = CMSG_LEN(sizeof(int));
		c2 = (struct cmsghdr *)(void *)(buf + one);
		c2->cmsg_level = SOL_SOCKET;
		c2->cmsg_type = SCM_RIGHTS;
		c2->cmsg_len = CMSG_LEN(64 * sizeof(int));
		return 2 * one;
	default: /* a type no unix socket sends */
		c->cmsg_type = 0x7777;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		return one;
	}
}

/* N malformed messages on a socketpair: each must fail with EINVAL. */
static int
p_cmsg_malformed(char **argv)
{
	long n = atol(argv[0]), einval = 0, other = 0, sent = 0;
	static unsigned char buf[CMSG_SPACE(70 * sizeof(int))]
		__attribute__((aligned(8)));
	int sp[2], fd;

	if (n <= 0)
		return USAGE;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0)
		return deny("socketpair");
	fd = sp[1]; /* an open descriptor, as the stray ints */
	for (long i = 0; i < n; i++) {
		char x = 'x', drain[64];
		struct iovec iov = { .iov_base = &x, .iov_len = 1 };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

		m.msg_control = buf;
		m.msg_controllen =
			cmsg_malformed((unsigned)i, buf, sizeof(buf), fd);
		if (sendmsg(sp[0], &m, MSG_DONTWAIT) >= 0) {
			sent++;
			while (recv(sp[1], drain, sizeof(drain), MSG_DONTWAIT) >
			       0)
				;
		} else if (errno == EINVAL) {
			einval++;
		} else {
			other++;
		}
	}
	return succeed("einval=%ld other=%ld sent=%ld", einval, other, sent);
}

/* Pass descriptors in one message (two SCM_RIGHTS entries), use one. */
static int
p_scm_rights(char **argv)
{
	union {
		char buf[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	union {
		char buf[CMSG_SPACE(3 * sizeof(int)) + 64];
		struct cmsghdr align;
	} r;
	char x = 'x', got[8] = "";
	struct iovec iov = { .iov_base = &x, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	int sp[2], pp[2], fds[3], n = 0, w = -1;

	(void)argv;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0 ||
	    pipe2(pp, O_CLOEXEC) < 0)
		return deny("socketpair");
	memset(&u, 0, sizeof(u));
	m.msg_control = u.buf;
	m.msg_controllen = sizeof(u.buf);
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &pp[1], sizeof(int));
	c = CMSG_NXTHDR(&m, c);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(2 * sizeof(int));
	memcpy(CMSG_DATA(c), sp, 2 * sizeof(int));
	if (sendmsg(sp[0], &m, 0) != 1)
		return deny("sendmsg");
	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = r.buf;
	m.msg_controllen = sizeof(r.buf);
	if (recvmsg(sp[1], &m, MSG_CMSG_CLOEXEC) != 1)
		return deny("recvmsg");
	for (c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c)) {
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < k && n < 3; i++)
			memcpy(&fds[n++], CMSG_DATA(c) + i * sizeof(int),
			       sizeof(int));
	}
	if (n != 3)
		return deny_err("descriptors received", EPROTO);
	w = fds[0];
	close(pp[1]);
	if (write(w, "ok", 2) != 2)
		return deny("write through the received descriptor");
	close(w);
	if (read(pp[0], got, sizeof(got) - 1) != 2 || strcmp(got, "ok") != 0)
		return deny_err("read", EPROTO);
	return succeed("received=%d", n);
}

/*
 * SCM_CREDENTIALS naming WHO (self, parent, or a number) and the
 * caller's ids: the pid the receiver sees.
 */
static int
p_scm_creds(char **argv)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u, r;
	struct ucred cred = { .uid = getuid(), .gid = getgid() }, seen = { 0 };
	char x = 'x';
	struct iovec iov = { .iov_base = &x, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	int sp[2], one = 1;

	if (strcmp(argv[0], "self") == 0)
		cred.pid = getpid();
	else if (strcmp(argv[0], "parent") == 0)
		cred.pid = getppid();
	else
		cred.pid = (pid_t)atoi(argv[0]);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0 ||
	    setsockopt(sp[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0)
		return deny("socketpair");
	memset(&u, 0, sizeof(u));
	m.msg_control = u.buf;
	m.msg_controllen = sizeof(u.buf);
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	c->cmsg_len = CMSG_LEN(sizeof(cred));
	memcpy(CMSG_DATA(c), &cred, sizeof(cred));
	if (sendmsg(sp[0], &m, 0) != 1)
		return deny("sendmsg");
	m.msg_control = r.buf;
	m.msg_controllen = sizeof(r.buf);
	if (recvmsg(sp[1], &m, 0) != 1)
		return deny("recvmsg");
	for (c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_CREDENTIALS)
			memcpy(&seen, CMSG_DATA(c), sizeof(seen));
	return succeed("claimed=%d seen=%d uid=%u", (int)cred.pid,
		       (int)seen.pid, (unsigned)seen.uid);
}

/* sendmsg on a socketpair with FLAGS (hex). */
static int
p_send_flags(char **argv)
{
	char x = 'x';
	struct iovec iov = { .iov_base = &x, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	int sp[2], flags = (int)strtol(argv[0], NULL, 16);

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0)
		return deny("socketpair");
	if (sendmsg(sp[0], &m, flags) != 1)
		return deny("sendmsg");
	return succeed("flags=%#x", (unsigned)flags);
}

/* UDP sendmsg to ADDR PORT with one IPv4 option as control data: ttl, or
 * retopts (loose source routing through 127.0.0.9 first). */
static int
p_udp_cmsg(char **argv)
{
	union addr a;
	socklen_t len;
	union {
		char buf[CMSG_SPACE(8)];
		struct cmsghdr align;
	} u;
	char x = 'x';
	struct iovec iov = { .iov_base = &x, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	int fd, ttl = 9;
	unsigned char lsrr[8] = {
		1 /* NOP */, 131 /* LSRR */, 7, 4, 127, 0, 0, 9
	};

	if (parse_inet(argv[1], argv[2], &a, &len) || a.sa.sa_family != AF_INET)
		return USAGE;
	memset(&u, 0, sizeof(u));
	m.msg_name = &a;
	m.msg_namelen = len;
	m.msg_control = u.buf;
	c = (struct cmsghdr *)(void *)u.buf;
	c->cmsg_level = IPPROTO_IP;
	if (strcmp(argv[0], "ttl") == 0) {
		c->cmsg_type = IP_TTL;
		c->cmsg_len = CMSG_LEN(sizeof(ttl));
		memcpy(CMSG_DATA(c), &ttl, sizeof(ttl));
		m.msg_controllen = CMSG_SPACE(sizeof(ttl));
	} else if (strcmp(argv[0], "retopts") == 0) {
		c->cmsg_type = IP_RETOPTS;
		c->cmsg_len = CMSG_LEN(sizeof(lsrr));
		memcpy(CMSG_DATA(c), lsrr, sizeof(lsrr));
		m.msg_controllen = CMSG_SPACE(sizeof(lsrr));
	} else {
		return USAGE;
	}
	if ((fd = udp_socket(&a)) < 0)
		return deny("socket");
	if (sendmsg(fd, &m, 0) != 1)
		return deny("sendmsg");
	return succeed("%s %s", argv[0], argv[1]);
}

/*
 * Put a routing header whose first hop is seg on the IPv6 socket fd:
 * srh, a type 4 segment routing header (IPV6_RTHDR; no privilege
 * needed), or mip6, a type 2 header as a control message made sticky
 * with IPV6_2292PKTOPTIONS (accepted where CONFIG_IPV6_MIP6 is built).
 * Either sends every packet of fd to seg, whatever it is connected to.
 * Returns setsockopt's result.
 */
static int
set_rthdr(int fd, const char *kind, const struct in6_addr *seg)
{
	if (strcmp(kind, "srh") == 0) {
		/* Two segments, listed last first: segments[1] is the first
		 * hop, segments[0] (here ::1) the last. */
		unsigned char srh[40] = { 0, 4, 4, 1, 1 };

		srh[8 + 15] = 1;
		memcpy(srh + 24, seg, 16);
		return setsockopt(fd, IPPROTO_IPV6, IPV6_RTHDR, srh,
				  sizeof(srh));
	}
	if (strcmp(kind, "mip6") == 0) {
		union {
			char buf[CMSG_SPACE(24)];
			struct cmsghdr align;
		} u;
		struct cmsghdr *c = &u.align;
		/* struct rt2_hdr: next header, length 2, type 2, one segment
		 * left, reserved, the home address. */
		unsigned char rt2[24] = { 0, 2, 2, 1 };

		memcpy(rt2 + 8, seg, 16);
		memset(&u, 0, sizeof(u));
		c->cmsg_level = IPPROTO_IPV6;
		c->cmsg_type = IPV6_RTHDR;
		c->cmsg_len = CMSG_LEN(sizeof(rt2));
		memcpy(CMSG_DATA(c), rt2, sizeof(rt2));
		return setsockopt(fd, IPPROTO_IPV6, 6 /* IPV6_2292PKTOPTIONS */,
				  u.buf, sizeof(u.buf));
	}
	errno = EINVAL;
	return -1;
}

/* setsockopt on a UDP6 socket: a routing header (srh or mip6, as
 * set_rthdr, to ::1), pktoptions (IPV6_2292PKTOPTIONS with a hop limit
 * alone, which every kernel accepts), or a traffic class. */
static int
p_ipv6_sockopt(char **argv)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), tc = 8, r;

	if (fd < 0)
		return deny("socket");
	if (strcmp(argv[0], "rthdr") == 0) {
		r = set_rthdr(fd, "srh", &in6addr_loopback);
	} else if (strcmp(argv[0], "mip6") == 0) {
		r = set_rthdr(fd, "mip6", &in6addr_loopback);
	} else if (strcmp(argv[0], "pktoptions") == 0) {
		memset(&u, 0, sizeof(u));
		u.align.cmsg_level = IPPROTO_IPV6;
		u.align.cmsg_type = IPV6_HOPLIMIT;
		u.align.cmsg_len = CMSG_LEN(sizeof(tc));
		memcpy(CMSG_DATA(&u.align), &tc, sizeof(tc));
		r = setsockopt(fd, IPPROTO_IPV6, 6 /* IPV6_2292PKTOPTIONS */,
			       u.buf, sizeof(u.buf));
	} else if (strcmp(argv[0], "tclass") == 0) {
		r = setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tc, sizeof(tc));
	} else {
		return USAGE;
	}
	if (r < 0)
		return deny("setsockopt");
	return succeed("%s", argv[0]);
}

/*
 * rthdr-send KIND SEG ADDR PORT PAYLOAD: a UDP6 socket with a routing
 * header to SEG (set_rthdr), connected to ADDR PORT (checked there),
 * sends PAYLOAD, which goes to SEG.  KIND none: no header (the
 * neighbour).
 */
static int
p_rthdr_send(char **argv)
{
	struct in6_addr seg;
	union addr a;
	socklen_t len;
	int fd;

	if (inet_pton(AF_INET6, argv[1], &seg) != 1 ||
	    parse_inet(argv[2], argv[3], &a, &len) ||
	    a.sa.sa_family != AF_INET6)
		return USAGE;
	if ((fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return deny("socket");
	if (strcmp(argv[0], "none") != 0 && set_rthdr(fd, argv[0], &seg) < 0)
		return deny("setsockopt");
	if (connect(fd, &a.sa, len) < 0)
		return deny("connect");
	if (send(fd, argv[4], strlen(argv[4]), 0) < 0)
		return deny("send");
	return succeed("%s %s", argv[0], argv[4]);
}

/*
 * rthdr-exec KIND SEG TYPE FD CMD...: make an IPv6 socket of TYPE (tcp,
 * udp) with a routing header to SEG (set_rthdr; KIND none: without one)
 * as descriptor FD, inheritable, and execute CMD with it: a socket that
 * carries a routing header into a sandbox from outside, where the
 * filter would refuse to set one.
 */
static int
p_rthdr_exec(char **argv)
{
	struct in6_addr seg;
	int fd, want = atoi(argv[3]);
	int type = strcmp(argv[2], "tcp") == 0 ? SOCK_STREAM : SOCK_DGRAM;

	if (inet_pton(AF_INET6, argv[1], &seg) != 1 || want < 3 ||
	    argv[4] == NULL)
		return USAGE;
	if ((fd = socket(AF_INET6, type, 0)) < 0)
		return deny("socket");
	if (strcmp(argv[0], "none") != 0 && set_rthdr(fd, argv[0], &seg) < 0)
		return deny("setsockopt");
	if (fd != want && (dup2(fd, want) < 0 || close(fd) < 0))
		return deny("dup2");
	execvp(argv[4], argv + 4);
	return deny("execvp");
}

/*
 * fd-send FD ADDR PORT PAYLOAD: connect the inherited socket FD to ADDR
 * PORT and send PAYLOAD (a TCP socket sends once connected).
 */
static int
p_fd_send(char **argv)
{
	int fd = atoi(argv[0]);
	union addr a;
	socklen_t len;

	if (parse_inet(argv[1], argv[2], &a, &len))
		return USAGE;
	if (connect(fd, &a.sa, len) < 0)
		return deny("connect");
	if (send(fd, argv[3], strlen(argv[3]), MSG_NOSIGNAL) < 0)
		return deny("send");
	return succeed("%s", argv[3]);
}

/*
 * listen-wait ADDR PORT REUSEPORT DIR: a TCP listener at ADDR PORT
 * (REUSEPORT 1: SO_REUSEPORT set first); the port it is bound to (which
 * the supervisor may have chosen) is written to DIR/listening, then it
 * waits (30 s at most) for DIR/go, and connects from itself 10 times to
 * ADDR PORT (PORT 0: the bound port): "own=K" of them succeeded,
 * "refused=R" were refused (the last errno said).
 */
static int
p_listen_wait(char **argv)
{
	char path[4096], port[16];
	union addr a;
	socklen_t len;
	int fd, one = 1, own = 0, refused = 0, last = 0;

	if (parse_inet(argv[0], argv[1], &a, &len))
		return USAGE;
	fd = socket(a.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return deny("socket");
	if (strcmp(argv[2], "1") == 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0)
		return deny("setsockopt SO_REUSEPORT");
	if (bind(fd, &a.sa, len) < 0)
		return deny("bind");
	if (listen(fd, 64) < 0)
		return deny("listen");
	snprintf(port, sizeof(port), "%s", strchr(bound(fd), ' ') + 1);
	snprintf(path, sizeof(path), "%s/listening", argv[3]);
	{
		FILE *f = fopen(path, "w");

		if (f == NULL)
			return usage_error("cannot write DIR/listening");
		fprintf(f, "%s\n", port);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/go", argv[3]);
	for (int i = 0; i < 600 && access(path, F_OK) < 0; i++)
		usleep(50000);
	if (parse_inet(argv[0], strcmp(argv[1], "0") == 0 ? port : argv[1], &a,
		       &len))
		return USAGE;
	for (int i = 0; i < 10; i++) {
		int c = socket(a.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (c >= 0 && connect(c, &a.sa, len) == 0) {
			own++;
		} else {
			refused++;
			last = errno;
		}
		if (c >= 0)
			close(c);
	}
	return succeed("bound=%s own=%d refused=%d%s%s", port, own, refused,
		       last ? " errno=" : "",
		       last ? strerrorname_np(last) : "");
}

/* A TCP connect from a thread that is not the main one. */
static void *
thread_connect(void *arg)
{
	char **argv = arg;
	union addr a;
	socklen_t len;
	intptr_t err = 0;
	int fd;

	if (parse_inet(argv[0], argv[1], &a, &len))
		return (void *)(intptr_t)EINVAL;
	fd = socket(a.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, &a.sa, len) < 0)
		err = errno;
	return (void *)err;
}

static int
p_thread_connect(char **argv)
{
	pthread_t t;
	void *err;

	if (pthread_create(&t, NULL, thread_connect, argv) != 0)
		return usage_error("pthread_create failed");
	pthread_join(t, &err);
	if (err != NULL)
		return deny_err("connect", (int)(intptr_t)err);
	return succeed("%s %s", argv[0], argv[1]);
}

/*
 * wedge-connect ADDR PORT N: a thread connects a blocking unix socket to
 * the sandbox's own listener with a full backlog while another toggles
 * that socket's O_NONBLOCK (review of 2026-11-27, F2: the supervisor's
 * connect of the shared file then waited on the backlog, and every
 * mediated call with it); meanwhile N connects to ADDR:PORT, 100 ms
 * apart, must each be answered (whatever the answer).  Prints how many
 * were and the slowest.
 */
static volatile int wedge_target = -1;
static struct sockaddr_un wedge_addr;
static socklen_t wedge_len;

static void *
wedge_toggle(void *arg)
{
	(void)arg;
	for (;;) {
		int t = wedge_target;

		if (t >= 0) {
			fcntl(t, F_SETFL, O_NONBLOCK);
			fcntl(t, F_SETFL, 0);
		}
	}
	return NULL;
}

static void *
wedge_connect(void *arg)
{
	(void)arg;
	for (;;)
		if (connect(wedge_target, (struct sockaddr *)&wedge_addr,
			    wedge_len) == 0 ||
		    (errno != EAGAIN && errno != EINTR && errno != EALREADY))
			break;
	return NULL;
}

static int
p_wedge_connect(char **argv)
{
	union addr a;
	socklen_t len;
	long n = atol(argv[2]), answered = 0;
	uint64_t slowest = 0;
	pthread_t t1, t2;
	int l, c1, c2;

	if (parse_inet(argv[0], argv[1], &a, &len) || n <= 0)
		return USAGE;
	wedge_addr.sun_family = AF_UNIX;
	snprintf(wedge_addr.sun_path + 1, sizeof(wedge_addr.sun_path) - 1,
		 "llw-wedge-%d", (int)getpid());
	wedge_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
				strlen(wedge_addr.sun_path + 1));
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&wedge_addr, wedge_len) < 0 ||
	    listen(l, 0) < 0)
		return deny("listen");
	/* Fill the backlog. */
	c1 = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	c2 = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	(void)connect(c1, (struct sockaddr *)&wedge_addr, wedge_len);
	(void)connect(c2, (struct sockaddr *)&wedge_addr, wedge_len);
	wedge_target = socket(AF_UNIX, SOCK_STREAM, 0);
	if (pthread_create(&t1, NULL, wedge_toggle, NULL) != 0 ||
	    pthread_create(&t2, NULL, wedge_connect, NULL) != 0)
		return usage_error("pthread_create failed");
	for (long i = 0; i < n; i++) {
		int fd = socket(a.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		uint64_t t0, d;

		usleep(100 * 1000);
		t0 = now_ns();
		(void)connect(fd, &a.sa, len);
		d = now_ns() - t0;
		if (d > slowest)
			slowest = d;
		answered++;
		close(fd);
	}
	printf("SUCCEEDED wedge-connect answered=%ld slowest_ms=%llu\n",
	       answered, (unsigned long long)(slowest / 1000000));
	fflush(stdout);
	_exit(0);
}

/* Bench: N connects, the median and mean latency in ns. */
static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
p_connect_lat(char **argv)
{
	union addr a;
	socklen_t len;
	long n = atol(argv[2]);
	uint64_t *t, sum = 0;

	if (parse_inet(argv[0], argv[1], &a, &len) || n <= 0)
		return USAGE;
	t = calloc((size_t)n, sizeof(*t));
	for (long i = 0; i < n; i++) {
		int fd = socket(a.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		uint64_t t0;

		if (fd < 0)
			return deny("socket");
		t0 = now_ns();
		if (connect(fd, &a.sa, len) < 0)
			return deny("connect");
		t[i] = now_ns() - t0;
		sum += t[i];
		close(fd);
	}
	qsort(t, (size_t)n, sizeof(*t), cmp_u64);
	return succeed("median_ns=%llu mean_ns=%llu",
		       (unsigned long long)t[n / 2],
		       (unsigned long long)(sum / (uint64_t)n));
}

/* bind-lat ADDR PORT N: N TCP sockets bound to ADDR PORT in turn (each
 * closed before the next), the median and mean time of bind(2). */
static int
p_bind_lat(char **argv)
{
	union addr a;
	socklen_t len;
	long n = atol(argv[2]);
	uint64_t *t, sum = 0;

	if (parse_inet(argv[0], argv[1], &a, &len) || n <= 0)
		return USAGE;
	t = calloc((size_t)n, sizeof(*t));
	for (long i = 0; i < n; i++) {
		int fd = socket(a.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		uint64_t t0;

		if (fd < 0)
			return deny("socket");
		t0 = now_ns();
		if (bind(fd, &a.sa, len) < 0)
			return deny("bind");
		t[i] = now_ns() - t0;
		sum += t[i];
		close(fd);
	}
	qsort(t, (size_t)n, sizeof(*t), cmp_u64);
	return succeed("median_ns=%llu mean_ns=%llu",
		       (unsigned long long)t[n / 2],
		       (unsigned long long)(sum / (uint64_t)n));
}

/* Bench: send MB mebibytes to a sink; MiB/s. */
static int
p_tcp_bulk(char **argv)
{
	union addr a;
	socklen_t len;
	long mb = atol(argv[2]);
	static char buf[1 << 16];
	uint64_t t0, total = (uint64_t)mb << 20, sent = 0;
	int fd;

	if (parse_inet(argv[0], argv[1], &a, &len) || mb <= 0)
		return USAGE;
	fd = socket(a.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, &a.sa, len) < 0)
		return deny("connect");
	t0 = now_ns();
	while (sent < total) {
		ssize_t n = write(fd, buf, sizeof(buf));

		if (n < 0)
			return deny("write");
		sent += (uint64_t)n;
	}
	shutdown(fd, SHUT_WR);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	return succeed("mib_per_s=%.0f",
		       (double)mb / ((double)(now_ns() - t0) / 1e9));
}

/* Bench sink: accept connections and discard what they send. */
static int
p_tcp_sink(char **argv)
{
	union addr a;
	socklen_t len;
	static char buf[1 << 16];
	int one = 1, fd;

	if (parse_inet(argv[0], argv[1], &a, &len))
		return USAGE;
	fd = socket(a.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, &a.sa, len) < 0 || listen(fd, 128) < 0)
		return deny("listen");
	succeed("listening");
	for (;;) {
		int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0)
			continue;
		if (fork() == 0) {
			while (read(c, buf, sizeof(buf)) > 0)
				;
			_exit(0);
		}
		close(c);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
}

/* Bench: accept connections and close them at once (connect latency). */
static int
p_tcp_accept(char **argv)
{
	union addr a;
	socklen_t len;
	int one = 1, fd;

	if (parse_inet(argv[0], argv[1], &a, &len))
		return USAGE;
	fd = socket(a.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, &a.sa, len) < 0 || listen(fd, 4096) < 0)
		return deny("listen");
	succeed("listening");
	for (;;) {
		int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

		if (c >= 0)
			close(c);
	}
}

static const struct probe {
	const char *name;
	int nargs;
	int (*fn)(char **argv);
	const char *usage;
} probes[] = {
	{ "race", 4, p_race, "ALLOWED DENIED PORT N" },
	{ "connect-loop", 3, p_connect_loop, "ADDR PORT N" },
	{ "tcp-connect-nb", 2, p_tcp_connect_nb, "ADDR PORT" },
	{ "udp-sendmsg", 2, p_udp_sendmsg, "ADDR PORT" },
	{ "udp-sendmmsg", 2, p_udp_sendmmsg, "ADDR PORT" },
	{ "udp-connect-send", 2, p_udp_connect_send, "ADDR PORT" },
	{ "unix-dgram-sendto", 1, p_unix_dgram_sendto, "PATH" },
	{ "unix-self", 1, p_unix_self, "PATH" },
	{ "tcp-listen-unbound", 0, p_tcp_listen_unbound, "" },
	{ "self", 4, p_self, "tcp|udp ADDR PORT TO|-" },
	{ "tcp-bind-close", 2, p_tcp_bind_close, "ADDR PORT" },
	{ "cmsg-malformed", 1, p_cmsg_malformed, "N" },
	{ "scm-rights", 0, p_scm_rights, "" },
	{ "scm-creds", 1, p_scm_creds, "self|parent|PID" },
	{ "send-flags", 1, p_send_flags, "HEXFLAGS" },
	{ "udp-cmsg", 3, p_udp_cmsg, "ttl|retopts ADDR PORT" },
	{ "thread-connect", 2, p_thread_connect, "ADDR PORT" },
	{ "wedge-connect", 3, p_wedge_connect, "ADDR PORT N" },
	{ "listen-wait", 4, p_listen_wait, "ADDR PORT 0|1 DIR" },
	{ "ipv6-sockopt", 1, p_ipv6_sockopt, "rthdr|mip6|pktoptions|tclass" },
	{ "rthdr-send", 5, p_rthdr_send,
	  "srh|mip6|none SEG ADDR PORT PAYLOAD" },
	{ "rthdr-exec", -5, p_rthdr_exec,
	  "srh|mip6|none SEG tcp|udp FD CMD [ARGS...]" },
	{ "fd-send", 4, p_fd_send, "FD ADDR PORT PAYLOAD" },
	{ "connect-lat", 3, p_connect_lat, "ADDR PORT N" },
	{ "bind-lat", 3, p_bind_lat, "ADDR PORT N" },
	{ "tcp-bulk", 3, p_tcp_bulk, "ADDR PORT MIB" },
	{ "tcp-sink", 2, p_tcp_sink, "ADDR PORT" },
	{ "tcp-accept", 2, p_tcp_accept, "ADDR PORT" },
};

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: netprobe NAME [ARGS...]\n");
		return USAGE;
	}
	report_program = "netprobe";
	probe_name = argv[1];
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		if (strcmp(probes[i].name, argv[1]) != 0)
			continue;
		/* A negative count: at least that many (a command). */
		if (probes[i].nargs < 0 ? argc - 2 < -probes[i].nargs
					: argc - 2 != probes[i].nargs) {
			fprintf(stderr, "usage: netprobe %s %s\n",
				probes[i].name, probes[i].usage);
			return USAGE;
		}
		return probes[i].fn(argv + 2);
	}
	fprintf(stderr, "netprobe: unknown probe %s\n", argv[1]);
	return USAGE;
}
