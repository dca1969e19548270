/*
 * channel: framed messages and descriptors between llwrap's processes.
 * channel.h has the contract.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "channel.h"

/* The frame's header, then the payload. */
struct channel_hdr {
	uint32_t type;
	uint32_t len;
};

int
channel_pair(int sv[2], bool passcred)
{
	int one = 1;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	if (passcred &&
	    setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0) {
		int e = errno;

		close(sv[0]);
		close(sv[1]);
		sv[0] = sv[1] = -1;
		return -e;
	}
	return 0;
}

int
channel_send(int sock, uint32_t type, const void *payload, size_t len,
	     const int *fds, size_t n, int flags)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * CHANNEL_MAX_FDS)];
		struct cmsghdr align;
	} u;
	struct channel_hdr h = { .type = type, .len = (uint32_t)len };
	struct iovec iov[2] = {
		{ .iov_base = &h, .iov_len = sizeof(h) },
		{ .iov_base = (void *)payload, .iov_len = len },
	};
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = len > 0 ? 2 : 1 };
	ssize_t r;

	if (len > CHANNEL_MAX_PAYLOAD || n > CHANNEL_MAX_FDS)
		return -EMSGSIZE;
	if (n > 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * n);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
	}
	if (n > 0 && (flags & CHANNEL_WRITEV))
		return -EINVAL;
	do {
		if (flags & CHANNEL_WRITEV)
			r = writev(sock, iov, (int)msg.msg_iovlen);
		else
			r = sendmsg(sock, &msg, flags | MSG_NOSIGNAL);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return (size_t)r == sizeof(h) + len ? 0 : -EMSGSIZE;
}

void
channel_msg_close(struct channel_msg *m)
{
	for (size_t i = 0; i < m->n_fds; i++)
		if (m->fds[i] >= 0)
			close(m->fds[i]);
	m->n_fds = 0;
}

int
channel_recv(int sock, struct channel_msg *m, size_t max_fds, int flags)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * CHANNEL_MAX_FDS) +
			 CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	struct channel_hdr h;
	struct iovec iov[2] = {
		{ .iov_base = &h, .iov_len = sizeof(h) },
		{ .iov_base = m->payload, .iov_len = sizeof(m->payload) },
	};
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };
	bool extra = false;
	ssize_t r;

	if (max_fds > CHANNEL_MAX_FDS)
		max_fds = CHANNEL_MAX_FDS;
	m->n_fds = 0;
	m->len = 0;
	m->pid = 0;
	m->uid = (uid_t)-1;
	m->gid = (gid_t)-1;
	msg.msg_control = u.buf;
	/* Room for max_fds and the credentials, no more: a sender that
	 * passes more is cut short (MSG_CTRUNC) and refused. */
	msg.msg_controllen =
		(max_fds > 0 ? CMSG_SPACE(sizeof(int) * max_fds) : 0) +
		CMSG_SPACE(sizeof(struct ucred));
	do
		r = recvmsg(sock, &msg, flags | MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL;
	     c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len == CMSG_LEN(sizeof(struct ucred))) {
			struct ucred cred;

			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			m->pid = cred.pid;
			m->uid = cred.uid;
			m->gid = cred.gid;
		} else if (c->cmsg_type == SCM_RIGHTS) {
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < k; i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(c) + i * sizeof(int),
				       sizeof(fd));
				if (m->n_fds < max_fds)
					m->fds[m->n_fds++] = fd;
				else {
					close(fd);
					extra = true;
				}
			}
		}
	}
	if (extra || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		channel_msg_close(m);
		return -EMSGSIZE;
	}
	if (r == 0) {
		/* The end (or an empty frame): nothing it carried is kept. */
		channel_msg_close(m);
		return 0;
	}
	if ((size_t)r < sizeof(h) || h.len != (size_t)r - sizeof(h)) {
		channel_msg_close(m);
		return -EBADMSG;
	}
	m->type = h.type;
	m->len = h.len;
	return 1;
}

const void *
channel_expect(const struct channel_msg *m, uint32_t type, size_t len)
{
	return m->type == type && m->len == len ? m->payload : NULL;
}
