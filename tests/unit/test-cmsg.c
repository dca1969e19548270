/*
 * Unit tests for src/cmsg.c: the control data the supervisor sends for
 * the command, checked and rebuilt; the ids read from /proc/PID/status;
 * the send flags it performs.
 */
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "cleanup.h"
#include "cmsg.h"

/* One entry of a control buffer to build; len 0 means "as it should". */
struct ent {
	size_t len;
	int level, type;
	size_t n; /* data bytes */
	const void *data;
};

/* Build the entries into buf, each at CMSG_ALIGN'ed offsets, plus
 * extra bytes of 0x41 after them.  Returns the buffer's length. */
static size_t
build(unsigned char *buf, size_t size, const struct ent *e, size_t n,
      size_t extra)
{
	size_t off = 0;

	memset(buf, 0, size);
	for (size_t i = 0; i < n; i++) {
		struct cmsghdr h = {
			.cmsg_len = e[i].len ? e[i].len : CMSG_LEN(e[i].n),
			.cmsg_level = e[i].level,
			.cmsg_type = e[i].type,
		};

		assert_true(off + CMSG_SPACE(e[i].n) <= size);
		memcpy(buf + off, &h, sizeof(h));
		if (e[i].n)
			memcpy(buf + off + CMSG_LEN(0), e[i].data, e[i].n);
		off += CMSG_SPACE(e[i].n);
	}
	assert_true(off + extra <= size);
	memset(buf + off, 0x41, extra);
	return off + extra;
}

struct takes {
	int n;
	int fail_at; /* -1: never */
};

/* A fake take: descriptor N becomes 1000 + N. */
static int
fake_take(void *ctx, int fd)
{
	struct takes *t = ctx;

	if (t->n++ == t->fail_at)
		return -EBADF;
	return 1000 + fd;
}

static const struct cmsg_sender unix_sender = {
	.family = AF_UNIX,
	.pid = 42,
	.uid = { 1000, 1000, 1000 },
	.gid = { 100, 100, 100 },
	.fwd_pid = 7,
};

/* Every header of out is whole and inside it. */
static void
assert_well_formed(const unsigned char *out, size_t len)
{
	size_t off = 0;

	while (len - off >= sizeof(struct cmsghdr)) {
		struct cmsghdr h;

		memcpy(&h, out + off, sizeof(h));
		assert_true(h.cmsg_len >= sizeof(h));
		assert_true(h.cmsg_len <= len - off);
		off += CMSG_SPACE(h.cmsg_len - CMSG_LEN(0));
	}
	assert_int_equal(off, len);
}

static void
test_malformed(void **state)
{
	static const int fd = 3, two_fds[2] = { 3, 4 };
	static const struct {
		const char *name;
		struct ent e[2];
		size_t n, extra, cut;
	} t[] = {
		{ "longer than the buffer",
		  { { CMSG_LEN(64 * sizeof(int)), SOL_SOCKET, SCM_RIGHTS,
		      sizeof(int), &fd } },
		  1,
		  0,
		  0 },
		{ "longer than the buffer, stray bytes after it",
		  { { CMSG_LEN(64 * sizeof(int)), SOL_SOCKET, SCM_RIGHTS,
		      sizeof(int), &fd } },
		  1,
		  8,
		  0 },
		{ "one byte too long",
		  { { CMSG_SPACE(sizeof(int)) + 1, SOL_SOCKET, SCM_RIGHTS,
		      sizeof(int), &fd } },
		  1,
		  0,
		  0 },
		{ "cmsg_len below a header",
		  { { CMSG_LEN(0) - 1, SOL_SOCKET, SCM_RIGHTS, sizeof(int),
		      &fd } },
		  1,
		  0,
		  0 },
		{ "cmsg_len SIZE_MAX",
		  { { SIZE_MAX, SOL_SOCKET, SCM_RIGHTS, sizeof(int), &fd } },
		  1,
		  0,
		  0 },
		{ "a good header, then one too long",
		  { { 0, SOL_SOCKET, SCM_RIGHTS, sizeof(int), &fd },
		    { CMSG_LEN(64 * sizeof(int)), SOL_SOCKET, SCM_RIGHTS,
		      sizeof(int), &fd } },
		  2,
		  0,
		  0 },
		{ "a good header, then cmsg_len 1",
		  { { 0, SOL_SOCKET, SCM_RIGHTS, sizeof(int), &fd },
		    { 1, SOL_SOCKET, SCM_RIGHTS, sizeof(int), &fd } },
		  2,
		  0,
		  0 },
		{ "the last entry cut short",
		  { { 0, SOL_SOCKET, SCM_RIGHTS, sizeof(two_fds), two_fds } },
		  1,
		  0,
		  4 },
	};
	unsigned char buf[512];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct takes tk = { 0, -1 };
		void *out = (void *)1;
		size_t out_len = 99;
		size_t len =
			build(buf, sizeof(buf), t[i].e, t[i].n, t[i].extra);
		int r;

		r = cmsg_rebuild(buf, len - t[i].cut, &unix_sender, fake_take,
				 &tk, &out, &out_len);
		if (r != -EINVAL || tk.n != 0 || out != NULL || out_len != 0)
			fail_msg("%s: got %d with %d takes", t[i].name, r,
				 tk.n);
	}

	/* cmsg_len 0: the descriptor count would underflow. */
	{
		struct ent e = { 0, SOL_SOCKET, SCM_RIGHTS, sizeof(int), &fd };
		struct takes tk = { 0, -1 };
		struct cmsghdr h;
		void *out;
		size_t out_len, len = build(buf, sizeof(buf), &e, 1, 0);

		memcpy(&h, buf, sizeof(h));
		h.cmsg_len = 0;
		memcpy(buf, &h, sizeof(h));
		assert_int_equal(cmsg_rebuild(buf, len, &unix_sender, fake_take,
					      &tk, &out, &out_len),
				 -EINVAL);
		assert_int_equal(tk.n, 0);
	}
}

static void
test_rights(void **state)
{
	int one = 5, two[2] = { 6, 7 }, many[LLW_CMSG_MAX_FDS + 1];
	struct ent e[2] = {
		{ 0, SOL_SOCKET, SCM_RIGHTS, sizeof(one), &one },
		{ 0, SOL_SOCKET, SCM_RIGHTS, sizeof(two), two },
	};
	unsigned char buf[2048];
	struct takes tk = { 0, -1 };
	_cleanup_free_ void *out = NULL;
	struct cmsghdr h;
	int fds[3];
	size_t len, out_len;

	(void)state;
	/* Two entries become one, each descriptor taken over. */
	len = build(buf, sizeof(buf), e, 2, 0);
	assert_int_equal(cmsg_rebuild(buf, len, &unix_sender, fake_take, &tk,
				      &out, &out_len),
			 0);
	assert_int_equal(tk.n, 3);
	assert_int_equal(out_len, CMSG_SPACE(3 * sizeof(int)));
	assert_well_formed(out, out_len);
	memcpy(&h, out, sizeof(h));
	assert_int_equal(h.cmsg_level, SOL_SOCKET);
	assert_int_equal(h.cmsg_type, SCM_RIGHTS);
	assert_int_equal(h.cmsg_len, CMSG_LEN(3 * sizeof(int)));
	memcpy(fds, (unsigned char *)out + CMSG_LEN(0), sizeof(fds));
	assert_int_equal(fds[0], 1005);
	assert_int_equal(fds[1], 1006);
	assert_int_equal(fds[2], 1007);

	/* A trailing piece shorter than a header is ignored. */
	free(steal_pointer(&out));
	tk.n = 0;
	len = build(buf, sizeof(buf), e, 1, sizeof(struct cmsghdr) - 1);
	assert_int_equal(cmsg_rebuild(buf, len, &unix_sender, fake_take, &tk,
				      &out, &out_len),
			 0);
	assert_int_equal(tk.n, 1);
	assert_int_equal(out_len, CMSG_SPACE(sizeof(int)));

	/* An entry without a whole descriptor is ignored. */
	free(steal_pointer(&out));
	tk.n = 0;
	e[0].n = 3;
	len = build(buf, sizeof(buf), e, 1, 0);
	assert_int_equal(cmsg_rebuild(buf, len, &unix_sender, fake_take, &tk,
				      &out, &out_len),
			 0);
	assert_int_equal(tk.n, 0);
	assert_null(out);
	assert_int_equal(out_len, 0);

	/* At most SCM_MAX_FD descriptors, counted over every entry. */
	for (size_t i = 0; i < ARRAY_SIZE(many); i++)
		many[i] = (int)i;
	e[0] = (struct ent){ 0, SOL_SOCKET, SCM_RIGHTS,
			     LLW_CMSG_MAX_FDS * sizeof(int), many };
	len = build(buf, sizeof(buf), e, 1, 0);
	assert_int_equal(cmsg_rebuild(buf, len, &unix_sender, fake_take, &tk,
				      &out, &out_len),
			 0);
	assert_int_equal(tk.n, LLW_CMSG_MAX_FDS);
	free(steal_pointer(&out));
	tk.n = 0;
	e[1] = (struct ent){ 0, SOL_SOCKET, SCM_RIGHTS, sizeof(int), many };
	len = build(buf, sizeof(buf), e, 2, 0);
	assert_int_equal(cmsg_rebuild(buf, len, &unix_sender, fake_take, &tk,
				      &out, &out_len),
			 -EINVAL);
	assert_int_equal(tk.n, 0);

	/* A descriptor the sender does not have: the take's error. */
	e[0] = (struct ent){ 0, SOL_SOCKET, SCM_RIGHTS, sizeof(two), two };
	tk = (struct takes){ 0, 1 };
	len = build(buf, sizeof(buf), e, 1, 0);
	assert_int_equal(cmsg_rebuild(buf, len, &unix_sender, fake_take, &tk,
				      &out, &out_len),
			 -EBADF);
	assert_null(out);
}

static void
test_credentials(void **state)
{
	static const struct {
		const char *name;
		struct ucred u;
		size_t n;
		int want;
	} t[] = {
		{ "itself", { 42, 1000, 100 }, sizeof(struct ucred), 0 },
		{ "the supervisor's pid",
		  { 7, 1000, 100 },
		  sizeof(struct ucred),
		  -EPERM },
		{ "another pid",
		  { 1, 1000, 100 },
		  sizeof(struct ucred),
		  -EPERM },
		{ "another uid", { 42, 0, 100 }, sizeof(struct ucred), -EPERM },
		{ "another gid",
		  { 42, 1000, 0 },
		  sizeof(struct ucred),
		  -EPERM },
		{ "short",
		  { 42, 1000, 100 },
		  sizeof(struct ucred) - 4,
		  -EINVAL },
	};
	unsigned char buf[256];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct ent e = { 0, SOL_SOCKET, SCM_CREDENTIALS, t[i].n,
				 &t[i].u };
		struct takes tk = { 0, -1 };
		_cleanup_free_ void *out = NULL;
		size_t out_len, len = build(buf, sizeof(buf), &e, 1, 0);
		struct ucred got;
		int r;

		r = cmsg_rebuild(buf, len, &unix_sender, fake_take, &tk, &out,
				 &out_len);
		if (r != t[i].want)
			fail_msg("%s: got %d, want %d", t[i].name, r,
				 t[i].want);
		if (r < 0)
			continue;
		/* Sent in the supervisor's name, the only pid the kernel
		 * lets it give. */
		assert_int_equal(out_len, CMSG_SPACE(sizeof(got)));
		memcpy(&got, (unsigned char *)out + CMSG_LEN(0), sizeof(got));
		assert_int_equal(got.pid, 7);
		assert_int_equal(got.uid, 1000);
		assert_int_equal(got.gid, 100);
	}
}

static void
test_families(void **state)
{
	static const int fd = 3, ttl = 9;
	static const unsigned char opt[8] = { 1, 131, 7, 4, 10, 0, 0, 1 };
	static const struct {
		const char *name;
		int family, level, type;
		const void *data;
		size_t n;
		int want; /* 0 kept, 1 dropped, else -errno */
	} t[] = {
		{ "unix: SO_MARK", AF_UNIX, SOL_SOCKET, SO_MARK, &ttl, 4,
		  -EINVAL },
		{ "unix: an unknown SOL_SOCKET type", AF_UNIX, SOL_SOCKET,
		  0x7777, &ttl, 4, -EINVAL },
		{ "unix: SOL_IP is ignored by the kernel", AF_UNIX, SOL_IP,
		  IP_TTL, &ttl, 4, 1 },
		{ "inet: SCM_RIGHTS", AF_INET, SOL_SOCKET, SCM_RIGHTS, &fd, 4,
		  -EINVAL },
		{ "inet: SCM_CREDENTIALS", AF_INET, SOL_SOCKET, SCM_CREDENTIALS,
		  &fd, 4, -EINVAL },
		{ "inet: IP_TTL", AF_INET, SOL_IP, IP_TTL, &ttl, 4, 0 },
		{ "inet: IP_PKTINFO", AF_INET, SOL_IP, IP_PKTINFO, opt, 8, 0 },
		{ "inet: source routing (IP_RETOPTS)", AF_INET, SOL_IP,
		  IP_RETOPTS, opt, 8, -EPERM },
		{ "inet6: source routing (IPV6_RTHDR)", AF_INET6, SOL_IPV6,
		  IPV6_RTHDR, opt, 8, -EPERM },
		{ "inet6: IPV6_HOPLIMIT", AF_INET6, SOL_IPV6, IPV6_HOPLIMIT,
		  &ttl, 4, 0 },
		{ "inet6: IPv4 options on a mapped address", AF_INET6, SOL_IP,
		  IP_RETOPTS, opt, 8, -EPERM },
		{ "inet: an unknown SOL_IP type", AF_INET, SOL_IP, 99, &ttl, 4,
		  -EINVAL },
		{ "inet: SO_TIMESTAMPING", AF_INET, SOL_SOCKET, SO_TIMESTAMPING,
		  &ttl, 4, 0 },
		{ "inet: an unknown level", AF_INET, 99, 1, &ttl, 4, 1 },
		{ "netlink: SCM_RIGHTS", AF_NETLINK, SOL_SOCKET, SCM_RIGHTS,
		  &fd, 4, -EINVAL },
		{ "packet: anything", AF_PACKET, 99, 1, &ttl, 4, -EINVAL },
	};
	unsigned char buf[256];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct cmsg_sender s = unix_sender;
		struct ent e = { 0, t[i].level, t[i].type, t[i].n, t[i].data };
		struct takes tk = { 0, -1 };
		_cleanup_free_ void *out = NULL;
		size_t out_len, len = build(buf, sizeof(buf), &e, 1, 0);
		int r;

		s.family = t[i].family;
		r = cmsg_rebuild(buf, len, &s, fake_take, &tk, &out, &out_len);
		if (t[i].want < 0) {
			if (r != t[i].want || out != NULL)
				fail_msg("%s: got %d, want %d", t[i].name, r,
					 t[i].want);
			continue;
		}
		if (r != 0)
			fail_msg("%s: got %d", t[i].name, r);
		if (t[i].want == 1) {
			if (out != NULL || out_len != 0)
				fail_msg("%s: not dropped", t[i].name);
			continue;
		}
		/* Kept as it came. */
		if (out_len != len || memcmp(out, buf, len) != 0)
			fail_msg("%s: not kept as it came", t[i].name);
		assert_int_equal(tk.n, 0);
	}
}

static void
test_sender_parse(void **state)
{
	static const char status[] = "Name:\tcurl\nUmask:\t0022\n"
				     "State:\tS (sleeping)\nTgid:\t4242\n"
				     "Ngid:\t0\nPid:\t4243\nPPid:\t4000\n"
				     "TracerPid:\t0\n"
				     "Uid:\t1000\t1000\t1000\t1000\n"
				     "Gid:\t100\t101\t102\t100\n"
				     "NStgid:\t4242\t2\nNSpid:\t4243\t3\n";
	struct cmsg_sender s;
	pid_t tgid;

	(void)state;
	assert_int_equal(cmsg_sender_parse(status, &s, &tgid), 0);
	assert_int_equal(tgid, 4242);
	assert_int_equal(s.pid, 2); /* in its own pid namespace */
	assert_int_equal(s.uid[0], 1000);
	assert_int_equal(s.gid[1], 101);
	assert_int_equal(s.gid[2], 102);
	assert_int_equal(cmsg_sender_parse("Tgid:\t1\nUid:\t1 1 1 1\n"
					   "Gid:\t1 1 1 1\n",
					   &s, &tgid),
			 -EINVAL);
	assert_int_equal(cmsg_sender_parse("Tgid:\tx\nNStgid:\t1\n"
					   "Uid:\t1 1 1 1\nGid:\t1 1 1 1\n",
					   &s, &tgid),
			 -EINVAL);
	assert_int_equal(cmsg_sender_parse("NStgid:\t5\nTgid:\t5\n"
					   "Uid:\t1 1\nGid:\t1 1 1 1\n",
					   &s, &tgid),
			 -EINVAL);
	assert_int_equal(cmsg_sender_parse("", &s, &tgid), -EINVAL);
}

static void
test_flags(void **state)
{
	(void)state;
	assert_int_equal(cmsg_flags(0), 0);
	assert_int_equal(cmsg_flags(MSG_NOSIGNAL | MSG_DONTWAIT | MSG_MORE),
			 MSG_NOSIGNAL | MSG_DONTWAIT | MSG_MORE);
	assert_int_equal(cmsg_flags(MSG_OOB | MSG_EOR | MSG_CONFIRM),
			 MSG_OOB | MSG_EOR | MSG_CONFIRM);
	assert_int_equal(cmsg_flags(MSG_ZEROCOPY), -EOPNOTSUPP);
	assert_int_equal(cmsg_flags(MSG_FASTOPEN), -EOPNOTSUPP);
	assert_int_equal(cmsg_flags(MSG_NOSIGNAL | (1 << 30)), -EOPNOTSUPP);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_rights),
		cmocka_unit_test(test_credentials),
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_sender_parse),
		cmocka_unit_test(test_flags),
	};

	return cmocka_run_group_tests_name("cmsg", tests, NULL, NULL);
}
