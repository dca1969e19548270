/*
 * The network supervisor's sends (supervise-int.h): sendto, sendmsg and
 * sendmmsg, checked as a connect would be and performed from the
 * supervisor's own copy of the message (msgcopy.h copies it out of the
 * caller, cmsg.h rebuilds its control data).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "compat/syscall.h"
#include "msgcopy.h"
#include "supervise-int.h"
#include "xalloc.h"

/* A message copied from the caller, ready to send from here. */
struct msg_buf {
	struct addr_buf name;
	bool has_name;
	char *data;
	size_t len;
	char *control;
	size_t controllen;
};

static void
msg_buf_free(struct msg_buf *m)
{
	if (m->name.opath >= 0)
		close(m->name.opath);
	free(m->data);
	free(m->control);
}

/* cmsg_take_fn: one of the caller's descriptors, for SCM_RIGHTS. */
static int
take_fd(void *ctx, int fd)
{
	struct call *c = ctx;
	int own = sys_pidfd_getfd(c->pidfd, fd, 0);

	if (own < 0)
		return errno == EBADF ? -EBADF : -errno;
	c->fds = xreallocarray(c->fds, c->n_fds + 1, sizeof(int));
	c->fds[c->n_fds++] = own;
	return own;
}

/*
 * Replace the control data copied from the caller with what the
 * supervisor may send in its name (cmsg_rebuild): SCM_RIGHTS with its
 * own copies of the caller's descriptors, SCM_CREDENTIALS checked
 * against the caller and renamed to the supervisor.
 */
static int
rebuild_control(struct call *c, struct msg_buf *m)
{
	struct cmsg_sender s = { .family = c->domain, .fwd_pid = getpid() };
	void *out;
	size_t len;
	pid_t tgid;
	int r;

	if ((r = svcall_ids(c, &s, &tgid)) < 0)
		return r;
	if ((r = cmsg_rebuild(m->control, m->controllen, &s, take_fd, c, &out,
			      &len)) < 0)
		return r;
	free(m->control);
	m->control = out;
	m->controllen = len;
	return 0;
}

/* msgcopy_read_fn: the caller's memory. */
static int
msg_read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct call *c = ctx;

	return svcall_read(c->pid, addr, buf, len);
}

/* Copy the struct msghdr at ptr out of the caller (msgcopy.h), and the
 * address it names. */
static int
read_msg(struct call *c, uint64_t ptr, struct msg_buf *m)
{
	struct msgcopy mc;
	int r;

	memset(m, 0, sizeof(*m));
	m->name.opath = -1;
	r = msgcopy_read(msg_read_mem, c, ptr, c->type == SOCK_STREAM,
			 &msgcopy_limits, &mc);
	m->data = mc.data;
	m->len = mc.len;
	m->control = mc.control;
	m->controllen = mc.controllen;
	if (r < 0)
		return r;
	if (mc.name != 0) {
		if ((r = svaddr_read(c, mc.name, mc.namelen, &m->name)) < 0)
			return r;
		m->has_name = true;
	}
	return 0;
}

/* Send m on the caller's socket; a blocking caller's EAGAIN is kept. */
static ssize_t
msg_send(struct supervisor *sv, struct call *c, struct msg_buf *m, int flags)
{
	struct iovec iov = { .iov_base = m->data, .iov_len = m->len };
	struct msghdr h = {
		.msg_name = m->has_name ? &m->name.u : NULL,
		.msg_namelen = m->has_name ? m->name.len : 0,
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = m->control,
		.msg_controllen = m->controllen,
	};
	ssize_t n;

	int r;

	/* Never SIGPIPE the supervisor; never block it. */
	n = sendmsg(c->sock, &h, flags | MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0)
		return -errno;
	/* Sent on a socket of the supervisor's (no pidfd_getfd): it takes
	 * the caller's place now. */
	if ((r = svcall_install(sv, c)) < 0)
		return r;
	return n;
}

/*
 * The caller's socket (svcall_open).  Without pidfd_getfd a send is
 * performed on a UDP socket the supervisor made (a new one, or the one it
 * connected or sent on before and holds); a stream socket it does not
 * hold has no substitute.
 */
static int
send_open(struct supervisor *sv, struct call *c)
{
	int r = svcall_open(sv, c);

	if (r == SVCALL_NO_SUBSTITUTE ||
	    (r == 0 && c->made && c->type != SOCK_DGRAM))
		return svcall_no_getfd(sv, c, NETPOLICY_SEND);
	return r;
}

static bool
wants_block(const struct call *c, int flags)
{
	return !c->nonblock && !(flags & MSG_DONTWAIT);
}

int
svsend_sendto(struct supervisor *sv, struct call *c)
{
	const __u64 *arg = c->req->data.args;
	struct msg_buf m;
	int flags = (int)(uint32_t)arg[3];
	ssize_t n;
	int r;

	memset(&m, 0, sizeof(m));
	m.name.opath = -1;
	if ((r = cmsg_flags(flags)) < 0 ||
	    (r = svaddr_read(c, arg[4], arg[5], &m.name)) < 0 ||
	    (r = send_open(sv, c)) < 0)
		goto out;
	m.has_name = true;
	if ((r = svnames_swap(sv, c, &m.name, false)) < 0 ||
	    (r == SWAP_NO &&
	     (r = svaddr_check(sv, c, NETPOLICY_SEND, &m.name)) < 0) ||
	    (r = svaddr_check_route(sv, c, NETPOLICY_SEND, &m.name)) < 0 ||
	    (r = svaddr_udp_autobind(sv, c)) < 0)
		goto out;
	m.len = arg[2] < MSGCOPY_MAX_PAYLOAD ? arg[2] : MSGCOPY_MAX_PAYLOAD;
	if (arg[2] > MSGCOPY_MAX_PAYLOAD && c->type != SOCK_STREAM) {
		r = -EMSGSIZE;
		goto out;
	}
	m.data = xmalloc(m.len + 1);
	if ((r = svcall_read(c->pid, arg[1], m.data, m.len)) < 0 ||
	    (r = svcall_valid(sv, c)) < 0)
		goto out;
	n = msg_send(sv, c, &m, flags);
	if (n == -EAGAIN && wants_block(c, flags))
		r = svcall_queue(sv, c, PENDING_RETRY);
	else
		r = (int)n;
out:
	msg_buf_free(&m);
	return r;
}

/* One message of sendmsg or sendmmsg: checked, then sent. */
static ssize_t
send_one(struct supervisor *sv, struct call *c, uint64_t ptr, int flags)
{
	struct msg_buf m;
	ssize_t n;
	int r;

	if ((r = read_msg(c, ptr, &m)) < 0)
		goto out;
	if (m.has_name &&
	    ((r = svnames_swap(sv, c, &m.name, false)) < 0 ||
	     (r == SWAP_NO &&
	      (r = svaddr_check(sv, c, NETPOLICY_SEND, &m.name)) < 0)))
		goto out;
	if ((r = svaddr_check_route(sv, c, NETPOLICY_SEND,
				    m.has_name ? &m.name : NULL)) < 0 ||
	    (m.has_name && (r = svaddr_udp_autobind(sv, c)) < 0))
		goto out;
	if (m.control && (r = rebuild_control(c, &m)) < 0)
		goto out;
	if ((r = svcall_valid(sv, c)) < 0)
		goto out;
	n = msg_send(sv, c, &m, flags);
	msg_buf_free(&m);
	return n;
out:
	msg_buf_free(&m);
	return r;
}

int
svsend_sendmsg(struct supervisor *sv, struct call *c)
{
	int flags = (int)(uint32_t)c->req->data.args[2];
	ssize_t n;
	int r;

	if ((r = cmsg_flags(flags)) < 0 || (r = send_open(sv, c)) < 0)
		return r;
	n = send_one(sv, c, c->req->data.args[1], flags);
	if (n == -EAGAIN && wants_block(c, flags))
		return svcall_queue(sv, c, PENDING_RETRY);
	return (int)n;
}

int
svsend_sendmmsg(struct supervisor *sv, struct call *c)
{
	const __u64 *arg = c->req->data.args;
	unsigned vlen = (unsigned)arg[2];
	int flags = (int)(uint32_t)arg[3];
	unsigned i;
	int r;

	if ((r = cmsg_flags(flags)) < 0 || (r = send_open(sv, c)) < 0)
		return r;
	if (vlen > MSGCOPY_MAX_IOV)
		vlen = MSGCOPY_MAX_IOV;
	for (i = 0; i < vlen; i++) {
		uint64_t ptr = arg[1] + (uint64_t)i * sizeof(struct mmsghdr);
		ssize_t n = send_one(sv, c, ptr, flags);
		unsigned len;

		if (n < 0) {
			if (i > 0)
				break;
			if (n == -EAGAIN && wants_block(c, flags))
				return svcall_queue(sv, c, PENDING_RETRY);
			return (int)n;
		}
		len = (unsigned)n;
		if (svcall_write(c->pid,
				 ptr + offsetof(struct mmsghdr, msg_len), &len,
				 sizeof(len)) < 0)
			return i > 0 ? (int)i : -EFAULT;
	}
	return (int)i;
}
