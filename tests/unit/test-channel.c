/*
 * Unit tests for src/channel.c: the helper channel's frames and
 * descriptors, and what a receive refuses (a frame too long or too
 * short, too many descriptors, a lying length), each with no descriptor
 * left open; a peer that went away; a receive that must not wait.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cmocka.h>

#include "channel.h"
#include "cleanup.h"

/* How many descriptors this process has open. */
static int
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

/* Send buf raw (no channel framing) with n copies of fd 0. */
static void
raw_send(int sock, const void *buf, size_t len, size_t n)
{
	union {
		char b[CMSG_SPACE(sizeof(int) * 32)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fds[32];

	assert_true(n <= 32);
	if (n > 0) {
		struct cmsghdr *c;

		for (size_t i = 0; i < n; i++)
			fds[i] = 0;
		memset(&u, 0, sizeof(u));
		msg.msg_control = u.b;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * n);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
	}
	assert_int_equal(sendmsg(sock, &msg, MSG_NOSIGNAL), (ssize_t)len);
}

/* A frame goes whole: type, payload, descriptors (close-on-exec), and
 * the sender's credentials where asked for. */
static void
test_roundtrip(void **state)
{
	struct channel_msg m;
	int sv[2], fds[2];
	const char *text = "hello";

	(void)state;
	assert_int_equal(channel_pair(sv, true), 0);
	assert_int_equal(pipe(fds), 0); /* without O_CLOEXEC */
	assert_int_equal(channel_send(sv[1], 7, text, 5, fds, 2, 0), 0);
	assert_int_equal(channel_recv(sv[0], &m, 2, 0), 1);
	assert_int_equal(m.type, 7);
	assert_int_equal(m.len, 5);
	assert_memory_equal(m.payload, text, 5);
	assert_non_null(channel_expect(&m, 7, 5));
	assert_null(channel_expect(&m, 7, 4));
	assert_null(channel_expect(&m, 8, 5));
	assert_int_equal(m.n_fds, 2);
	for (size_t i = 0; i < 2; i++)
		assert_true(fcntl(m.fds[i], F_GETFD) & FD_CLOEXEC);
	assert_int_equal(m.pid, getpid());
	assert_int_equal(m.uid, getuid());
	channel_msg_close(&m);
	/* An empty payload, no descriptors, sent with writev. */
	assert_int_equal(
		channel_send(sv[1], 9, NULL, 0, NULL, 0, CHANNEL_WRITEV), 0);
	assert_int_equal(channel_recv(sv[0], &m, 0, 0), 1);
	assert_int_equal(m.type, 9);
	assert_int_equal(m.len, 0);
	assert_int_equal(m.n_fds, 0);
	/* Without passcred: no credentials. */
	assert_int_equal(channel_send(sv[0], 1, "x", 1, NULL, 0, 0), 0);
	assert_int_equal(channel_recv(sv[1], &m, 0, 0), 1);
	assert_int_equal(m.pid, 0);
	close(fds[0]);
	close(fds[1]);
	close(sv[0]);
	close(sv[1]);
}

/* The sender's bounds. */
static void
test_send_bounds(void **state)
{
	static char big[CHANNEL_MAX_PAYLOAD + 1];
	int fds[CHANNEL_MAX_FDS + 1] = { 0 };
	int sv[2];

	(void)state;
	assert_int_equal(channel_pair(sv, false), 0);
	assert_int_equal(channel_send(sv[1], 1, big, sizeof(big), NULL, 0, 0),
			 -EMSGSIZE);
	assert_int_equal(
		channel_send(sv[1], 1, "x", 1, fds, CHANNEL_MAX_FDS + 1, 0),
		-EMSGSIZE);
	assert_int_equal(channel_send(sv[1], 1, "x", 1, fds, 1, CHANNEL_WRITEV),
			 -EINVAL);
	assert_int_equal(channel_send(sv[1], 1, big, CHANNEL_MAX_PAYLOAD, fds,
				      CHANNEL_MAX_FDS, 0),
			 0);
	close(sv[0]);
	close(sv[1]);
}

/* More descriptors than the receiver takes: refused, none kept open,
 * whether they fit the control buffer's padding or cut it short. */
static void
test_too_many_fds(void **state)
{
	static const size_t sent[] = { 2, 3, 5, 16, 32 };
	struct channel_msg m;
	int sv[2];

	(void)state;
	assert_int_equal(channel_pair(sv, true), 0);
	for (size_t i = 0; i < sizeof(sent) / sizeof(sent[0]); i++) {
		unsigned char frame[8] = { 1, 0, 0, 0, 0, 0, 0, 0 };
		int before = open_fds();

		raw_send(sv[1], frame, sizeof(frame), sent[i]);
		assert_int_equal(channel_recv(sv[0], &m, 1, 0), -EMSGSIZE);
		assert_int_equal(m.n_fds, 0);
		assert_int_equal(open_fds(), before);
	}
	/* None at all where none is taken. */
	{
		unsigned char frame[8] = { 1 };
		int before = open_fds();

		raw_send(sv[1], frame, sizeof(frame), 1);
		assert_int_equal(channel_recv(sv[0], &m, 0, 0), -EMSGSIZE);
		assert_int_equal(open_fds(), before);
	}
	close(sv[0]);
	close(sv[1]);
}

/* A frame longer than the receiver's buffer (MSG_TRUNC): refused, its
 * descriptor closed. */
static void
test_truncated(void **state)
{
	static unsigned char frame[8 + CHANNEL_MAX_PAYLOAD + 1];
	struct channel_msg m;
	int sv[2], before;

	(void)state;
	assert_int_equal(channel_pair(sv, false), 0);
	frame[0] = 1;
	frame[5] = (CHANNEL_MAX_PAYLOAD + 1) >> 8;
	frame[4] = (CHANNEL_MAX_PAYLOAD + 1) & 0xff;
	before = open_fds();
	raw_send(sv[1], frame, sizeof(frame), 1);
	assert_int_equal(channel_recv(sv[0], &m, 1, 0), -EMSGSIZE);
	assert_int_equal(open_fds(), before);
	close(sv[0]);
	close(sv[1]);
}

/* Shorter than a header, or a header whose length lies: refused, the
 * descriptor closed; the next good frame still comes. */
static void
test_short_frames(void **state)
{
	static const struct {
		unsigned char b[12];
		size_t len;
	} bad[] = {
		{ { 1 }, 1 },
		{ { 1, 0, 0, 0, 4, 0, 0 }, 7 },
		{ { 1, 0, 0, 0, 4, 0, 0, 0 }, 8 }, /* says 4, has 0 */
		{ { 1, 0, 0, 0, 1, 0, 0, 0, 'a', 'b' }, 10 }, /* says 1 */
		{ { 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 'a' }, 9 },
	};
	struct channel_msg m;
	int sv[2];

	(void)state;
	assert_int_equal(channel_pair(sv, false), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int before = open_fds();

		raw_send(sv[1], bad[i].b, bad[i].len, 1);
		assert_int_equal(channel_recv(sv[0], &m, 1, 0), -EBADMSG);
		assert_int_equal(open_fds(), before);
	}
	assert_int_equal(channel_send(sv[1], 3, "ok", 2, NULL, 0, 0), 0);
	assert_int_equal(channel_recv(sv[0], &m, 1, 0), 1);
	assert_non_null(channel_expect(&m, 3, 2));
	close(sv[0]);
	close(sv[1]);
}

/* An empty frame that carries a descriptor reads as the end, and the
 * descriptor is not kept (review of 2026-11-27, F5). */
static void
test_empty_frame_fds(void **state)
{
	struct channel_msg m;
	int sv[2], before;

	(void)state;
	assert_int_equal(channel_pair(sv, false), 0);
	before = open_fds();
	raw_send(sv[1], "", 0, 1);
	assert_int_equal(channel_recv(sv[0], &m, 1, 0), 0);
	assert_int_equal(m.n_fds, 0);
	assert_int_equal(open_fds(), before);
	close(sv[0]);
	close(sv[1]);
}

/* A peer that is gone: the receiver sees the end, the sender EPIPE (and
 * lives: no SIGPIPE); one that sends nothing: EAGAIN where the receiver
 * must not wait, and where its timeout passed. */
static void
test_peer_gone(void **state)
{
	struct timeval tv = { .tv_usec = 10000 };
	struct channel_msg m;
	int sv[2];

	(void)state;
	signal(SIGPIPE, SIG_DFL);
	assert_int_equal(channel_pair(sv, false), 0);
	assert_int_equal(channel_recv(sv[0], &m, 1, MSG_DONTWAIT), -EAGAIN);
	assert_int_equal(
		setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	assert_int_equal(channel_recv(sv[0], &m, 1, 0), -EAGAIN);
	/* A frame sent before the end is still read, then the end. */
	assert_int_equal(channel_send(sv[1], 5, "z", 1, &sv[1], 1, 0), 0);
	close(sv[1]);
	assert_int_equal(channel_recv(sv[0], &m, 1, 0), 1);
	assert_int_equal(m.n_fds, 1);
	channel_msg_close(&m);
	assert_int_equal(channel_recv(sv[0], &m, 1, 0), 0);
	assert_int_equal(channel_send(sv[0], 5, "z", 1, NULL, 0, 0), -EPIPE);
	close(sv[0]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_send_bounds),
		cmocka_unit_test(test_too_many_fds),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_short_frames),
		cmocka_unit_test(test_peer_gone),
		cmocka_unit_test(test_empty_frame_fds),
	};

	return cmocka_run_group_tests_name("channel", tests, NULL, NULL);
}
