/*
 * msgcopy: a sendmsg() message copied out of the command's memory,
 * bounded before anything is allocated.  msgcopy.h has the contract.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "cleanup.h"
#include "msgcopy.h"
#include "xalloc.h"

const struct msgcopy_limits msgcopy_limits = {
	.max_payload = MSGCOPY_MAX_PAYLOAD,
	.max_control = MSGCOPY_MAX_CONTROL,
	.max_iov = MSGCOPY_MAX_IOV,
};

void
msgcopy_free(struct msgcopy *m)
{
	free(m->data);
	free(m->control);
	m->data = m->control = NULL;
	m->len = m->controllen = 0;
}

int
msgcopy_read(msgcopy_read_fn read, void *ctx, uint64_t ptr, bool stream,
	     const struct msgcopy_limits *lim, struct msgcopy *m)
{
	struct msghdr h;
	_cleanup_free_ struct iovec *iov = NULL;
	size_t n_iov, total = 0;
	int r;

	memset(m, 0, sizeof(*m));
	if ((r = read(ctx, ptr, &h, sizeof(h))) < 0)
		return r;
	/* Each length once, into a local: h is not read again. */
	n_iov = h.msg_iovlen;
	if (h.msg_name != NULL && h.msg_namelen > 0) {
		m->name = (uintptr_t)h.msg_name;
		m->namelen = h.msg_namelen;
	}
	if (n_iov > lim->max_iov)
		return -EMSGSIZE;
	if (h.msg_control != NULL && h.msg_controllen > lim->max_control)
		return -ENOBUFS;
	if (n_iov > 0) {
		iov = xcalloc(n_iov, sizeof(*iov));
		if ((r = read(ctx, (uintptr_t)h.msg_iov, iov,
			      n_iov * sizeof(*iov))) < 0)
			return r;
	}
	/* Each entry counts at most max_payload + 1 (one past the bound is
	 * enough to tell a datagram too long), so the sum of at most
	 * max_iov of them cannot wrap. */
	for (size_t i = 0; i < n_iov; i++)
		total += iov[i].iov_len <= lim->max_payload
				 ? iov[i].iov_len
				 : lim->max_payload + 1;
	if (total > lim->max_payload) {
		if (!stream)
			return -EMSGSIZE;
		total = lim->max_payload; /* a stream send may be short */
	}
	m->data = xmalloc(total + 1);
	for (size_t i = 0; i < n_iov && m->len < total; i++) {
		size_t n = iov[i].iov_len;

		if (n > total - m->len)
			n = total - m->len;
		if (n > 0 && (r = read(ctx, (uintptr_t)iov[i].iov_base,
				       m->data + m->len, n)) < 0)
			return r;
		m->len += n;
	}
	if (h.msg_control != NULL && h.msg_controllen > 0) {
		m->control = xmalloc(h.msg_controllen);
		if ((r = read(ctx, (uintptr_t)h.msg_control, m->control,
			      h.msg_controllen)) < 0)
			return r;
		m->controllen = h.msg_controllen;
	}
	return 0;
}
