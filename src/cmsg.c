/*
 * cmsg: the control data of a message the supervisor sends for the
 * command, checked and rebuilt.  cmsg.h has the contract.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cleanup.h"
#include "cmsg.h"
#include "xalloc.h"

/* Values are UAPI; glibc 2.36 lacks some. */
#ifndef SO_TIMESTAMPING_OLD
#define SO_TIMESTAMPING_OLD 37
#endif
#ifndef SO_TIMESTAMPING_NEW
#define SO_TIMESTAMPING_NEW 65
#endif
#ifndef SCM_TXTIME
#define SCM_TXTIME 61
#endif
#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef IPV6_2292PKTINFO
#define IPV6_2292PKTINFO 2
#endif
#ifndef IPV6_2292HOPOPTS
#define IPV6_2292HOPOPTS 3
#endif
#ifndef IPV6_2292DSTOPTS
#define IPV6_2292DSTOPTS 4
#endif
#ifndef IPV6_2292RTHDR
#define IPV6_2292RTHDR 5
#endif
#ifndef IPV6_2292HOPLIMIT
#define IPV6_2292HOPLIMIT 8
#endif
#ifndef IP_PROTOCOL
#define IP_PROTOCOL 52
#endif
#ifndef IPV6_FLOWINFO
#define IPV6_FLOWINFO 11
#endif
#ifndef MSG_PROBE
#define MSG_PROBE 0x10 /* glibc's MSG_PROXY */
#endif
#ifndef IPV6_DONTFRAG
#define IPV6_DONTFRAG 62
#endif

enum verdict {
	KEEP,	/* sent as it came */
	DROP,	/* the kernel would ignore it: left out */
	RIGHTS, /* descriptors to take over */
	CREDS,	/* credentials to check and rename */
};

/* What becomes of an entry sent on an IP socket, or -errno. */
static int
judge_inet(int level, int type)
{
	switch (level) {
	case SOL_SOCKET:
		switch (type) {
		case SO_MARK:
		case SO_PRIORITY:
		case SO_TIMESTAMPING_OLD:
		case SO_TIMESTAMPING_NEW:
		case SCM_TXTIME:
			return KEEP;
		}
		return -EINVAL;
	case SOL_IP:
		switch (type) {
		case IP_PKTINFO:
		case IP_TTL:
		case IP_TOS:
		case IP_PROTOCOL:
			return KEEP;
		case IP_RETOPTS:
			return -EPERM; /* source routing */
		}
		return -EINVAL;
	case SOL_IPV6:
		switch (type) {
		case IPV6_PKTINFO:
		case IPV6_2292PKTINFO:
		case IPV6_FLOWINFO:
		case IPV6_HOPLIMIT:
		case IPV6_2292HOPLIMIT:
		case IPV6_TCLASS:
		case IPV6_DONTFRAG:
		case IPV6_HOPOPTS:
		case IPV6_2292HOPOPTS:
		case IPV6_DSTOPTS:
		case IPV6_2292DSTOPTS:
		case IPV6_RTHDRDSTOPTS:
			return KEEP;
		case IPV6_RTHDR:
		case IPV6_2292RTHDR:
			return -EPERM; /* source routing */
		}
		return -EINVAL;
	case SOL_UDP:
		return type == UDP_SEGMENT ? KEEP : -EINVAL;
	}
	return DROP;
}

/* What becomes of an entry of s's message, or -errno. */
static int
judge(const struct cmsg_sender *s, int level, int type)
{
	switch (s->family) {
	case AF_INET:
	case AF_INET6:
		return judge_inet(level, type);
	case AF_UNIX:
	case AF_NETLINK:
		if (level != SOL_SOCKET)
			return DROP;
		if (type == SCM_CREDENTIALS)
			return CREDS;
		if (type == SCM_RIGHTS && s->family == AF_UNIX)
			return RIGHTS;
		return -EINVAL;
	}
	return -EINVAL;
}

static bool
id_in(unsigned id, const unsigned *v)
{
	return id == v[0] || id == v[1] || id == v[2];
}

/* The kernel's check of SCM_CREDENTIALS, for the sender. */
static int
creds_check(const struct cmsg_sender *s, const struct ucred *u)
{
	if (u->pid != s->pid || !id_in(u->uid, s->uid) ||
	    !id_in(u->gid, s->gid))
		return -EPERM;
	return 0;
}

/* One header of in[0..len) at off, whole, or NULL at the end. */
static const struct cmsghdr *
header_at(const unsigned char *in, size_t len, size_t off, struct cmsghdr *h)
{
	if (off > len || len - off < sizeof(*h))
		return NULL;
	memcpy(h, in + off, sizeof(*h));
	return h;
}

/* Where the header after h at off starts. */
static size_t
next_off(size_t off, const struct cmsghdr *h)
{
	return off + CMSG_ALIGN(h->cmsg_len);
}

/* Append one entry to out at *pos. */
static void
put(unsigned char *out, size_t *pos, int level, int type, const void *data,
    size_t n)
{
	struct cmsghdr h = { .cmsg_len = CMSG_LEN(n),
			     .cmsg_level = level,
			     .cmsg_type = type };

	memcpy(out + *pos, &h, sizeof(h));
	memcpy(out + *pos + CMSG_LEN(0), data, n);
	*pos += CMSG_SPACE(n);
}

int
cmsg_rebuild(const void *in_, size_t len, const struct cmsg_sender *s,
	     cmsg_take_fn take, void *ctx, void **out, size_t *out_len)
{
	const unsigned char *in = in_;
	struct cmsghdr hb;
	const struct cmsghdr *h;
	struct ucred creds;
	bool has_creds = false;
	size_t n_fds = 0, size = 0, pos = 0, off;
	_cleanup_free_ int *fds = NULL;
	_cleanup_free_ unsigned char *buf = NULL;

	*out = NULL;
	*out_len = 0;

	/* First the whole buffer is judged; nothing is taken over until
	 * every entry has passed. */
	for (off = 0; (h = header_at(in, len, off, &hb)) != NULL;
	     off = next_off(off, h)) {
		size_t data;
		int v;

		if (h->cmsg_len < sizeof(*h) || h->cmsg_len > len - off)
			return -EINVAL;
		data = h->cmsg_len - CMSG_LEN(0);
		v = judge(s, h->cmsg_level, h->cmsg_type);
		if (v < 0)
			return v;
		switch (v) {
		case KEEP:
			size += CMSG_SPACE(data);
			break;
		case RIGHTS:
			n_fds += data / sizeof(int);
			if (n_fds > LLW_CMSG_MAX_FDS)
				return -EINVAL;
			break;
		case CREDS:
			if (h->cmsg_len != CMSG_LEN(sizeof(creds)))
				return -EINVAL;
			memcpy(&creds, in + off + CMSG_LEN(0), sizeof(creds));
			if ((v = creds_check(s, &creds)) < 0)
				return v;
			has_creds = true; /* the last one counts */
			break;
		}
	}
	if (has_creds)
		size += CMSG_SPACE(sizeof(creds));
	if (n_fds > 0)
		size += CMSG_SPACE(n_fds * sizeof(int));
	if (size == 0)
		return 0;

	buf = xcalloc(1, size);
	fds = xcalloc(n_fds + 1, sizeof(int));
	n_fds = 0;
	for (off = 0; (h = header_at(in, len, off, &hb)) != NULL;
	     off = next_off(off, h)) {
		const unsigned char *data = in + off + CMSG_LEN(0);
		size_t n = h->cmsg_len - CMSG_LEN(0);
		int v = judge(s, h->cmsg_level, h->cmsg_type);

		if (v == KEEP)
			put(buf, &pos, h->cmsg_level, h->cmsg_type, data, n);
		if (v != RIGHTS)
			continue;
		for (size_t i = 0; i < n / sizeof(int); i++) {
			int fd;

			memcpy(&fd, data + i * sizeof(int), sizeof(fd));
			fd = take(ctx, fd);
			if (fd < 0)
				return fd;
			fds[n_fds++] = fd;
		}
	}
	if (has_creds) {
		creds.pid = s->fwd_pid;
		put(buf, &pos, SOL_SOCKET, SCM_CREDENTIALS, &creds,
		    sizeof(creds));
	}
	if (n_fds > 0)
		put(buf, &pos, SOL_SOCKET, SCM_RIGHTS, fds,
		    n_fds * sizeof(int));
	*out = steal_pointer(&buf);
	*out_len = size;
	return 0;
}

/* The numbers after "Name:" at the start of a line of status. */
static int
status_field(const char *status, const char *name, long *v, size_t max,
	     size_t *n)
{
	size_t len = strlen(name);
	const char *p = status;

	while (p != NULL && strncmp(p, name, len) != 0) {
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	if (p == NULL)
		return -EINVAL;
	p += len;
	*n = 0;
	for (;;) {
		char *end;
		long x;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\n' || *p == '\0')
			break;
		errno = 0;
		x = strtol(p, &end, 10);
		if (end == p || errno != 0 || x < 0 || x > UINT32_MAX ||
		    *n == max)
			return -EINVAL;
		v[(*n)++] = x;
		p = end;
	}
	return *n > 0 ? 0 : -EINVAL;
}

int
cmsg_sender_parse(const char *status, struct cmsg_sender *s, pid_t *tgid)
{
	long v[32];
	size_t n;

	if (status_field(status, "Tgid:", v, 1, &n) < 0 || v[0] <= 0)
		return -EINVAL;
	*tgid = (pid_t)v[0];
	if (status_field(status, "NStgid:", v, ARRAY_SIZE(v), &n) < 0 ||
	    v[n - 1] <= 0)
		return -EINVAL;
	s->pid = (pid_t)v[n - 1];
	if (status_field(status, "Uid:", v, 4, &n) < 0 || n < 3)
		return -EINVAL;
	for (size_t i = 0; i < 3; i++)
		s->uid[i] = (uid_t)v[i];
	if (status_field(status, "Gid:", v, 4, &n) < 0 || n < 3)
		return -EINVAL;
	for (size_t i = 0; i < 3; i++)
		s->gid[i] = (gid_t)v[i];
	return 0;
}

int
cmsg_flags(int flags)
{
	const int known = MSG_OOB | MSG_DONTROUTE | MSG_DONTWAIT | MSG_EOR |
			  MSG_NOSIGNAL | MSG_MORE | MSG_CONFIRM | MSG_PROBE;

	return (flags & ~known) ? -EOPNOTSUPP : flags;
}
