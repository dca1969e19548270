/*
 * Unit tests for src/filter.c.
 *
 * Three views of the same filter:
 *
 * - golden: the PFC export of every option combination, compared byte for
 *   byte with tests/data/filter/NAME.pfc (found through $LLW_DATA, else
 *   relative to this file).  Run with LLW_UPDATE_GOLDEN=1 to rewrite the
 *   golden files after a deliberate change, then review the diff.  The
 *   first line of each file records the libseccomp it came from; under
 *   another libseccomp the comparison is skipped, not passed.
 * - model: the exported BPF run by a small interpreter over grids of
 *   argument values (high bits, flags, every family) and compared with a
 *   reference written straight from DESIGN.md §2.  This is where "deny
 *   everything outside the allowed set" is proved, without loading
 *   anything.
 * - live: the filter loaded in a forked child (no_new_privs set), each
 *   denial asserted next to the legitimate call beside it.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cleanup.h"
#include "filter.h"
#include "golden.h"
#include "strv.h"
#include "xalloc.h"

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef NETLINK_SOCK_DIAG
#define NETLINK_SOCK_DIAG 4
#endif

/*
 * False when this process cannot use seccomp(2) (valgrind does not
 * implement it): the live tests skip, and the rest run with libseccomp
 * told the kernel API level instead of probing for it.
 */
static bool seccomp_live = true;

/* Option combinations, one golden file each. */
enum {
	OPT_ALLOW_UNIX = 1 << 0,
	OPT_DENY_INET = 1 << 1,
	OPT_DENY_UDP = 1 << 2,
	OPT_DENY_PTRACE = 1 << 3,
	OPT_UNIX_DGRAM_PAIR = 1 << 4,
	OPT_PID_ANY = 1 << 5,
};

static const struct combo {
	const char *name;
	unsigned int opts;
} combos[] = {
	{ "default", 0 },
	{ "allow-unix", OPT_ALLOW_UNIX },
	{ "deny-inet", OPT_DENY_INET },
	{ "deny-udp", OPT_DENY_UDP },
	{ "deny-ptrace", OPT_DENY_PTRACE },
	{ "allow-unix-dgram-pair", OPT_UNIX_DGRAM_PAIR },
	{ "pid-any", OPT_PID_ANY },
};

static void
opts_from(struct filter_opts *o, unsigned int bits)
{
	filter_opts_init(o);
	o->allow_unix = bits & OPT_ALLOW_UNIX;
	o->deny_inet = bits & OPT_DENY_INET;
	o->deny_udp = bits & OPT_DENY_UDP;
	o->deny_ptrace = bits & OPT_DENY_PTRACE;
	o->allow_unix_dgram_pair = bits & OPT_UNIX_DGRAM_PAIR;
	o->pid_any = bits & OPT_PID_ANY;
}

/* The golden and model tests describe the x86_64 filter. */
static void
require_x86_64(void)
{
	if (seccomp_arch_native() != SCMP_ARCH_X86_64) {
		print_message("# golden and model tests need an x86_64 host\n");
		skip();
	}
}

static scmp_filter_ctx
build(unsigned int bits)
{
	struct filter_opts o;
	scmp_filter_ctx ctx = NULL;
	_cleanup_free_ char *cause = NULL;
	int r;

	opts_from(&o, bits);
	r = filter_build(&o, &ctx, &cause);
	if (r < 0)
		fail_msg("filter_build: %s", cause);
	assert_non_null(ctx);
	return ctx;
}

/* Everything written to a memfd by an export function. */
static char *export(scmp_filter_ctx ctx, int (*fn)(const scmp_filter_ctx, int),
		    size_t *len)
{
	_cleanup_close_ int fd = memfd_create("filter", MFD_CLOEXEC);
	struct stat st;
	char *buf;

	assert_true(fd >= 0);
	assert_int_equal(fn(ctx, fd), 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = xmalloc((size_t)st.st_size + 1);
	assert_int_equal(pread(fd, buf, (size_t)st.st_size, 0), st.st_size);
	buf[st.st_size] = '\0';
	*len = (size_t)st.st_size;
	return buf;
}

/*
 * What the golden files depend on: the libseccomp version and how many
 * syscall numbers below the limit it can name (distributions backport
 * syscall tables).
 */
static char *
golden_header(void)
{
	const struct scmp_version *v = seccomp_version();
	int named = 0;

	for (int nr = 0; nr < 1024; nr++) {
		char *n =
			seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);

		named += n != NULL;
		free(n);
	}
	return xasprintf("# llwrap golden PFC: libseccomp %u.%u.%u, %d x86_64 "
			 "syscalls named below 1024\n",
			 v->major, v->minor, v->micro, named);
}

static void
test_golden(void **state)
{
	const struct combo *c = *state;
	scmp_filter_ctx ctx;
	_cleanup_free_ char *pfc = NULL, *header = golden_header();
	_cleanup_free_ char *want = NULL, *got = NULL, *rel = NULL;
	size_t len;

	require_x86_64();
	ctx = build(c->opts);
	pfc = export(ctx, seccomp_export_pfc, &len);
	seccomp_release(ctx);
	got = xasprintf("%s%s", header, pfc);
	rel = xasprintf("filter/%s.pfc", c->name);

	if (golden_update(rel, got))
		return;
	want = golden_read(rel);
	if (strncmp(want, header, strlen(header)) != 0) {
		print_message("# %s was made with another libseccomp; this "
			      "one is: %s",
			      rel, header);
		skip();
	}
	golden_compare(rel, want, got);
}

/* ---- A classic BPF interpreter for the exported program ---- */

struct prog {
	struct sock_filter *insns;
	size_t len;
};

static void
prog_load(struct prog *p, unsigned int bits)
{
	scmp_filter_ctx ctx = build(bits);
	size_t len;

	/* What llwrap loads: libseccomp's program behind the prefix that
	 * denies unknown syscall numbers. */
	assert_int_equal(filter_export(ctx, &p->insns, &len), 0);
	seccomp_release(ctx);
	p->len = len;
}

/* Run p over d; any instruction libseccomp is not expected to emit fails. */
static uint32_t
prog_run(const struct prog *p, const struct seccomp_data *d)
{
	const unsigned char *data = (const unsigned char *)d;
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };
	size_t pc = 0;

	while (pc < p->len) {
		const struct sock_filter *i = &p->insns[pc++];
		uint32_t k = i->k;

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			assert_true(k % 4 == 0 && k + 4 <= sizeof(*d));
			memcpy(&a, data + k, 4);
			break;
		case BPF_LD | BPF_IMM:
			a = k;
			break;
		case BPF_LD | BPF_MEM:
			a = mem[k];
			break;
		case BPF_LDX | BPF_IMM:
			x = k;
			break;
		case BPF_LDX | BPF_MEM:
			x = mem[k];
			break;
		case BPF_ST:
			mem[k] = a;
			break;
		case BPF_STX:
			mem[k] = x;
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= k;
			break;
		case BPF_ALU | BPF_OR | BPF_K:
			a |= k;
			break;
		case BPF_MISC | BPF_TAX:
			x = a;
			break;
		case BPF_MISC | BPF_TXA:
			a = x;
			break;
		case BPF_JMP | BPF_JA:
			pc += k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			pc += a > k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += a >= k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += (a & k) ? i->jt : i->jf;
			break;
		case BPF_RET | BPF_K:
			return k;
		case BPF_RET | BPF_A:
			return a;
		default:
			fail_msg("unexpected BPF opcode 0x%x at %zu", i->code,
				 pc - 1);
		}
	}
	fail_msg("BPF program ran off its end");
	return 0;
}

#define RET_ALLOW  SECCOMP_RET_ALLOW
#define RET_KILL   SECCOMP_RET_KILL_PROCESS
#define RET_ERR(e) (SECCOMP_RET_ERRNO | (uint32_t)(e))

static uint32_t
run_call(const struct prog *p, int nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
	struct seccomp_data d = {
		.nr = nr,
		.arch = AUDIT_ARCH_X86_64,
		.args = { a0, a1, a2 },
	};

	return prog_run(p, &d);
}

static int
nr_of(const char *name)
{
	int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name);

	assert_true(nr >= 0);
	return nr;
}

/*
 * DESIGN.md §2 for socket(2), on the values the kernel sees, except that
 * a family or protocol with any of its high 32 bits set is denied: the
 * kernel reads only the low word, and the filter denies such a value
 * outright (one 64-bit "greater than" rule instead of dozens of blocks)
 * rather than judge it by the low word.  That is stricter than the
 * kernel's view, never looser.
 */
static uint32_t
model_socket(unsigned int bits, uint64_t fa, uint64_t ty, uint64_t pr)
{
	uint32_t f = (uint32_t)fa, t = (uint32_t)ty & 0xf, p = (uint32_t)pr;
	bool high = pr >> 32 != 0;

	if (fa >> 32 != 0)
		return RET_ERR(EAFNOSUPPORT);
	switch (f) {
	case AF_UNIX:
		return bits & OPT_ALLOW_UNIX ? RET_ALLOW
					     : RET_ERR(EAFNOSUPPORT);
	case AF_INET:
	case AF_INET6:
		if (bits & OPT_DENY_INET)
			return RET_ERR(EAFNOSUPPORT);
		if (t == SOCK_STREAM && !high && (p == 0 || p == IPPROTO_TCP))
			return RET_ALLOW;
		if (t == SOCK_DGRAM && !(bits & OPT_DENY_UDP) && !high &&
		    (p == 0 || p == IPPROTO_UDP))
			return RET_ALLOW;
		return RET_ERR(EPERM);
	case AF_NETLINK:
		return p == NETLINK_ROUTE && !high ? RET_ALLOW
						   : RET_ERR(EAFNOSUPPORT);
	default:
		return RET_ERR(EAFNOSUPPORT);
	}
}

/*
 * socketpair(2): note AF_UNIX SOCK_RAW is a datagram pair.  A family with
 * high bits is denied, as in model_socket.
 */
static uint32_t
model_socketpair(unsigned int bits, uint64_t fa, uint64_t ty)
{
	uint32_t t = (uint32_t)ty & 0xf;

	if (fa != AF_UNIX)
		return RET_ERR(EAFNOSUPPORT);
	if (bits & OPT_UNIX_DGRAM_PAIR)
		return RET_ALLOW;
	return t == SOCK_STREAM || t == SOCK_SEQPACKET ? RET_ALLOW
						       : RET_ERR(EPERM);
}

static const uint64_t high_bits[] = { 0, 1ULL << 32, 0xffffffff00000000ULL,
				      0x8000000000000000ULL };

static const uint64_t some_protocols[] = {
	0,	    1,		2,	    4,		6,
	15,	    16,		17,	    18,		58,
	132,	    136,	255,	    256,	IPPROTO_MPTCP,
	0x10006,    0x10011,	0x7fffffff, 0x80000000, 0x80000006,
	0xfffffffe, 0xffffffff,
};

static void
test_model_socket(void **state)
{
	const struct combo *c = *state;
	struct prog p;
	int nr = nr_of("socket"), nr_pair = nr_of("socketpair");
	uint64_t families[80];
	size_t nf = 0;

	require_x86_64();
	for (uint64_t f = 0; f <= 64; f++)
		families[nf++] = f;
	families[nf++] = 128;
	families[nf++] = 255;
	families[nf++] = 256;
	families[nf++] = 0x10002;
	families[nf++] = 0x7fffffff;
	families[nf++] = 0x80000000;
	families[nf++] = 0x80000002;
	families[nf++] = 0xfffffff0;
	families[nf++] = 0xffffffff;

	prog_load(&p, c->opts);
	for (size_t i = 0; i < nf; i++) {
		for (size_t h = 0; h < ARRAY_SIZE(high_bits); h++) {
			uint64_t fa = families[i] | high_bits[h];

			for (uint64_t t = 0; t < 16; t++) {
				static const uint64_t flags[] = {
					0,
					SOCK_NONBLOCK | SOCK_CLOEXEC,
					0x10,
					0x500000000ULL,
				};

				for (size_t fl = 0; fl < ARRAY_SIZE(flags);
				     fl++) {
					uint64_t ty = t | flags[fl];

					for (size_t k = 0;
					     k < ARRAY_SIZE(some_protocols);
					     k++) {
						uint64_t pr =
							some_protocols[k] |
							high_bits[(k + h) % 4];
						uint32_t got = run_call(
							&p, nr, fa, ty, pr);

						if (got != model_socket(c->opts,
									fa, ty,
									pr))
							fail_msg("socket(%#lx, "
								 "%#lx, %#lx): "
								 "%#x",
								 (unsigned long)
									 fa,
								 (unsigned long)
									 ty,
								 (unsigned long)
									 pr,
								 got);
					}
					if (run_call(&p, nr_pair, fa, ty, 0) !=
					    model_socketpair(c->opts, fa, ty))
						fail_msg("socketpair(%#lx, "
							 "%#lx)",
							 (unsigned long)fa,
							 (unsigned long)ty);
				}
			}
		}
	}
	free(p.insns);
}

/*
 * setsockopt at the IP levels (DESIGN.md §2): the options the design
 * reviewed, by their UAPI values; everything else there is EPERM.
 */
static uint32_t
model_sockopt(int level, uint64_t name)
{
	static const uint64_t ip[] = { 1,  2,  8,  10, 11, 12, 13,
				       20, 24, 32, 33, 34, 49 };
	static const uint64_t ipv6[] = { 16, 17, 18, 19, 23, 25, 26,
					 29, 49, 51, 62, 66, 67, 74 };
	const uint64_t *v = level == IPPROTO_IP ? ip : ipv6;
	size_t n = level == IPPROTO_IP ? ARRAY_SIZE(ip) : ARRAY_SIZE(ipv6);

	for (size_t i = 0; i < n; i++)
		if (v[i] == name)
			return RET_ALLOW;
	return RET_ERR(EPERM);
}

/*
 * Everything but socket(2) and socketpair(2): every syscall number with
 * zero arguments, the flag-inspecting rules with each bit, and the
 * architecture checks.
 */
static void
test_model_other(void **state)
{
	const struct combo *c = *state;
	static const char *const eperm[] = {
		"setns",
		"mount",
		"umount2",
		"pivot_root",
		"chroot",
		"move_mount",
		"open_tree",
		"fsopen",
		"fsconfig",
		"fsmount",
		"fspick",
		"mount_setattr",
		"bpf",
		"perf_event_open",
		"userfaultfd",
		"keyctl",
		"add_key",
		"request_key",
		"kexec_load",
		"kexec_file_load",
		"init_module",
		"finit_module",
		"delete_module",
		"acct",
		"quotactl",
		"quotactl_fd",
		"swapon",
		"swapoff",
		"reboot",
		"syslog",
		"open_by_handle_at",
		"lookup_dcookie",
		"vhangup",
		"iopl",
		"ioperm",
		"fanotify_init",
	};
	static const char *const enosys[] = {
		"io_uring_setup",
		"io_uring_enter",
		"io_uring_register",
		"clone3",
	};
	static const char *const ptrace_calls[] = {
		"ptrace",
		"process_vm_readv",
		"process_vm_writev",
		"pidfd_getfd",
	};
	static const uint64_t ns[] = {
		CLONE_NEWNS,  CLONE_NEWUSER, CLONE_NEWPID,    CLONE_NEWNET,
		CLONE_NEWUTS, CLONE_NEWIPC,  CLONE_NEWCGROUP, CLONE_NEWTIME,
	};
	uint32_t want[700];
	struct prog p;
	int nr;

	require_x86_64();
	prog_load(&p, c->opts);

	/* Zero arguments: the model for every number. */
	for (nr = 0; nr < (int)ARRAY_SIZE(want); nr++) {
		char *name =
			seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);

		want[nr] = RET_ALLOW;
		if (name == NULL && nr != 335 && nr != 336)
			want[nr] = RET_ERR(ENOSYS);
		free(name);
	}
	for (size_t i = 0; i < ARRAY_SIZE(eperm); i++)
		want[nr_of(eperm[i])] = RET_ERR(EPERM);
	for (size_t i = 0; i < ARRAY_SIZE(enosys); i++)
		want[nr_of(enosys[i])] = RET_ERR(ENOSYS);
	for (size_t i = 0; i < ARRAY_SIZE(ptrace_calls); i++)
		if (c->opts & OPT_DENY_PTRACE)
			want[nr_of(ptrace_calls[i])] = RET_ERR(EPERM);
	want[nr_of("socket")] = model_socket(c->opts, 0, 0, 0);
	want[nr_of("socketpair")] = model_socketpair(c->opts, 0, 0);
	want[nr_of("personality")] = RET_ALLOW; /* PER_LINUX */
	/* ioprio_set's which 0 is no IOPRIO_WHO_PROCESS. */
	want[nr_of("ioprio_set")] = RET_ERR(EPERM);
	want[nr_of("setsockopt")] = model_sockopt(IPPROTO_IP, 0);
	for (nr = 0; nr < (int)ARRAY_SIZE(want); nr++)
		if (run_call(&p, nr, 0, 0, 0) != want[nr])
			fail_msg("syscall %d: %#x, want %#x", nr,
				 run_call(&p, nr, 0, 0, 0), want[nr]);
	/* The numbers libseccomp cannot name, without an upper limit short
	 * of x32's bit, whose numbers are a foreign table: killed. */
	assert_int_equal(run_call(&p, 470, 0, 0, 0), RET_ERR(ENOSYS));
	assert_int_equal(run_call(&p, 600, 0, 0, 0), RET_ERR(ENOSYS));
	assert_int_equal(run_call(&p, 0x3fffffff, 0, 0, 0), RET_ERR(ENOSYS));
	assert_int_equal(run_call(&p, 0x40000000 | 39, 0, 0, 0),
			 SECCOMP_RET_KILL_PROCESS);

	/* clone and unshare: each namespace flag, alone or with others. */
	for (int bit = 0; bit < 64; bit++) {
		uint64_t f = 1ULL << bit;
		bool is_ns = false;

		for (size_t i = 0; i < ARRAY_SIZE(ns); i++)
			is_ns |= ns[i] == f;
		assert_int_equal(run_call(&p, nr_of("unshare"), f, 0, 0),
				 is_ns ? RET_ERR(EPERM) : RET_ALLOW);
		assert_int_equal(run_call(&p, nr_of("clone"),
					  f | SIGCHLD | CLONE_VM, 0, 0),
				 is_ns ? RET_ERR(EPERM) : RET_ALLOW);
		assert_int_equal(run_call(&p, nr_of("unshare"),
					  f | CLONE_NEWUSER | CLONE_FILES, 0,
					  0),
				 RET_ERR(EPERM));
	}

	/* ioctl: the command is the low 32 bits of arg1. */
	for (size_t h = 0; h < ARRAY_SIZE(high_bits); h++) {
		nr = nr_of("ioctl");
		assert_int_equal(run_call(&p, nr, 0, TIOCSTI | high_bits[h], 0),
				 RET_ERR(EPERM));
		assert_int_equal(
			run_call(&p, nr, 0, TIOCLINUX | high_bits[h], 0),
			RET_ERR(EPERM));
		assert_int_equal(
			run_call(&p, nr, 0, TIOCGWINSZ | high_bits[h], 0),
			RET_ALLOW);
		assert_int_equal(run_call(&p, nr, TIOCSTI, TIOCSTI + 1, 0),
				 RET_ALLOW);

		/* setsockopt: at IPPROTO_IP and IPPROTO_IPV6 (the level's
		 * low 32 bits), the reviewed options only, their names on
		 * all 64 bits; other levels are not looked at. */
		nr = nr_of("setsockopt");
		for (uint64_t name = 0; name < 100; name++) {
			uint64_t hb = high_bits[(h + name) % 4];

			assert_int_equal(run_call(&p, nr, 3,
						  IPPROTO_IP | high_bits[h],
						  name),
					 model_sockopt(IPPROTO_IP, name));
			assert_int_equal(run_call(&p, nr, 3,
						  IPPROTO_IPV6 | high_bits[h],
						  name),
					 model_sockopt(IPPROTO_IPV6, name));
			assert_int_equal(
				run_call(&p, nr, 3, IPPROTO_IPV6, name | hb),
				hb ? RET_ERR(EPERM)
				   : model_sockopt(IPPROTO_IPV6, name));
			assert_int_equal(run_call(&p, nr, 3,
						  SOL_SOCKET | high_bits[h],
						  name | hb),
					 RET_ALLOW);
			assert_int_equal(
				run_call(&p, nr, 3, IPPROTO_TCP, name | hb),
				RET_ALLOW);
		}
		assert_int_equal(run_call(&p, nr, 3, IPPROTO_IPV6, 0x7fffffff),
				 RET_ERR(EPERM));
		assert_int_equal(run_call(&p, nr, 3, IPPROTO_IP, 0xffffffff),
				 RET_ERR(EPERM));

		/* personality: PER_LINUX and the query only. */
		nr = nr_of("personality");
		assert_int_equal(run_call(&p, nr, high_bits[h], 0, 0),
				 RET_ALLOW);
		assert_int_equal(
			run_call(&p, nr, 0xffffffff | high_bits[h], 0, 0),
			RET_ALLOW);
		for (int bit = 0; bit < 32; bit++)
			assert_int_equal(run_call(&p, nr,
						  (1ULL << bit) | high_bits[h],
						  0, 0),
					 RET_ERR(EPERM));
		/* Each value with a single clear bit needs its own rule. */
		for (int bit = 0; bit < 32; bit++)
			assert_int_equal(
				run_call(&p, nr,
					 (0xffffffffULL & ~(1ULL << bit)) |
						 high_bits[h],
					 0, 0),
				RET_ERR(EPERM));

		/* seccomp: NEW_LISTENER with SET_MODE_FILTER only. */
		nr = nr_of("seccomp");
		assert_int_equal(
			run_call(&p, nr, SECCOMP_SET_MODE_FILTER | high_bits[h],
				 SECCOMP_FILTER_FLAG_NEW_LISTENER |
					 SECCOMP_FILTER_FLAG_TSYNC,
				 0),
			RET_ERR(EPERM));
		assert_int_equal(
			run_call(&p, nr, SECCOMP_SET_MODE_FILTER,
				 SECCOMP_FILTER_FLAG_TSYNC | high_bits[h], 0),
			RET_ALLOW);
		assert_int_equal(run_call(&p, nr, SECCOMP_GET_ACTION_AVAIL,
					  SECCOMP_FILTER_FLAG_NEW_LISTENER, 0),
				 RET_ALLOW);
	}

	/* Another process by pid (DESIGN.md §15): the caller itself always,
	 * another pid only with pid_any, a group or a user never. */
	{
		uint32_t other =
			c->opts & OPT_PID_ANY ? RET_ALLOW : RET_ERR(EPERM);
		static const char *const by_pid[] = { "sched_setaffinity",
						      "sched_setscheduler",
						      "sched_setparam",
						      "sched_setattr" };

		for (size_t i = 0; i < ARRAY_SIZE(by_pid); i++) {
			nr = nr_of(by_pid[i]);
			assert_int_equal(run_call(&p, nr, 0, 8, 0), RET_ALLOW);
			assert_int_equal(run_call(&p, nr, 1234, 8, 0), other);
			assert_int_equal(run_call(&p, nr, 1ULL << 32, 8, 0),
					 other);
		}
		nr = nr_of("prlimit64");
		assert_int_equal(run_call(&p, nr, 0, RLIMIT_CPU, 0x1000),
				 RET_ALLOW);
		assert_int_equal(run_call(&p, nr, 1234, RLIMIT_CPU, 0),
				 RET_ALLOW);
		assert_int_equal(run_call(&p, nr, 1234, RLIMIT_CPU, 0x1000),
				 other);
		nr = nr_of("setpriority");
		assert_int_equal(run_call(&p, nr, PRIO_PROCESS, 0, 10),
				 RET_ALLOW);
		assert_int_equal(run_call(&p, nr, PRIO_PROCESS, 1234, 10),
				 other);
		assert_int_equal(run_call(&p, nr, PRIO_PGRP, 0, 10),
				 RET_ERR(EPERM));
		assert_int_equal(run_call(&p, nr, PRIO_USER, 0, 10),
				 RET_ERR(EPERM));
		assert_int_equal(
			run_call(&p, nr, PRIO_PGRP | 1ULL << 32, 0, 10),
			RET_ERR(EPERM));
		nr = nr_of("ioprio_set");
		assert_int_equal(run_call(&p, nr, 1, 0, 0), RET_ALLOW);
		assert_int_equal(run_call(&p, nr, 1, 1234, 0), other);
		assert_int_equal(run_call(&p, nr, 2, 0, 0), RET_ERR(EPERM));
		assert_int_equal(run_call(&p, nr, 3, 0, 0), RET_ERR(EPERM));
	}

	/* Another architecture, and x32's numbers, are killed. */
	{
		struct seccomp_data d = { .nr = 20, .arch = AUDIT_ARCH_I386 };

		assert_int_equal(prog_run(&p, &d), RET_KILL);
		d.arch = AUDIT_ARCH_X86_64;
		d.nr = 39 | 0x40000000;
		assert_int_equal(prog_run(&p, &d), RET_KILL);
		d.nr = 39;
		assert_int_equal(prog_run(&p, &d), RET_ALLOW);
	}
	free(p.insns);
}

/* The kernel refuses programs longer than BPF_MAXINSNS. */
static void
test_size(void **state)
{
	const struct combo *c = *state;
	struct prog p;

	require_x86_64();
	prog_load(&p, c->opts);
	print_message("# %s: %zu BPF instructions\n", c->name, p.len);
	assert_true(p.len > 0 && p.len <= BPF_MAXINSNS);
	free(p.insns);
}

static void
test_describe(void **state)
{
	struct filter_opts o;
	_cleanup_strv_ char **d = NULL, **u = NULL, **n = NULL;

	(void)state;
	opts_from(&o, 0);
	d = filter_describe(&o);
	assert_true(strv_contains(d, "socket AF_UNIX: denied (EAFNOSUPPORT)"));
	assert_true(strv_contains(d, "socket AF_NETLINK NETLINK_ROUTE: "
				     "allowed"));
	assert_true(strv_contains(d, "socketpair AF_UNIX datagram and other "
				     "types: denied (EPERM)"));
	assert_true(strv_contains(d, "process access (ptrace, "
				     "process_vm_readv, process_vm_writev, "
				     "pidfd_getfd): allowed"));

	opts_from(&o, OPT_ALLOW_UNIX | OPT_DENY_PTRACE | OPT_DENY_UDP);
	u = filter_describe(&o);
	assert_true(strv_contains(u, "socket AF_UNIX: allowed"));
	assert_true(strv_contains(u, "socket AF_INET/AF_INET6 datagram: "
				     "denied (EPERM)"));
	assert_true(strv_contains(u, "process access (ptrace, "
				     "process_vm_readv, process_vm_writev, "
				     "pidfd_getfd): denied (EPERM)"));

	opts_from(&o, OPT_DENY_INET);
	n = filter_describe(&o);
	assert_true(strv_contains(n, "socket AF_INET/AF_INET6: denied "
				     "(EAFNOSUPPORT)"));
	for (char **l = n; *l; l++)
		if (strncmp(*l, "syscalls unknown", 16) == 0)
			assert_non_null(strstr(*l, "denied (ENOSYS)"));
}

static void
test_opts_and_arches(void **state)
{
	struct filter_opts o;
	scmp_filter_ctx ctx = NULL;
	_cleanup_free_ char *cause = NULL, *cause2 = NULL;

	(void)state;
	filter_opts_init(&o);
	assert_int_equal(o.arch, SCMP_ARCH_NATIVE);
	assert_false(o.allow_unix || o.deny_inet || o.deny_udp ||
		     o.deny_ptrace || o.allow_unix_dgram_pair);

	assert_int_equal(filter_build(&o, &ctx, &cause), 0);
	assert_int_equal(seccomp_arch_exist(ctx, seccomp_arch_native()), 0);
	seccomp_release(ctx);

	/* libseccomp 2.5 cannot build for a foreign architecture. */
	o.arch = seccomp_arch_native() == SCMP_ARCH_AARCH64 ? SCMP_ARCH_X86_64
							    : SCMP_ARCH_AARCH64;
	ctx = NULL;
	assert_int_equal(filter_build(&o, &ctx, &cause), -EOPNOTSUPP);
	assert_null(ctx);
	assert_non_null(strstr(cause, "architecture it runs on"));

	/* Nor for one where socketcall(2) carries socket() past the rules. */
	if (seccomp_arch_native() == SCMP_ARCH_X86) {
		o.arch = SCMP_ARCH_X86;
		assert_int_equal(filter_build(&o, &ctx, &cause2), -EOPNOTSUPP);
		assert_non_null(strstr(cause2, "socketcall"));
	}
}

/* ---- Live: the filter loaded in a child ---- */

/* An operation: returns >= 0 on success, -errno on failure. */
typedef long (*live_fn)(void);

#define RAW(...) (syscall(__VA_ARGS__) < 0 ? -errno : 0)

static long
op_unix_stream(void)
{
	return RAW(SYS_socket, AF_UNIX, SOCK_STREAM, 0);
}

static long
op_unix_high_bits(void)
{
	return RAW(SYS_socket, 0x100000000UL | AF_UNIX, SOCK_STREAM, 0);
}

static long
op_inet_stream(void)
{
	return RAW(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

static long
op_inet6_tcp(void)
{
	return RAW(SYS_socket, AF_INET6, SOCK_STREAM, IPPROTO_TCP);
}

static long
op_inet_dgram(void)
{
	return RAW(SYS_socket, AF_INET, SOCK_DGRAM, 0);
}

static long
op_inet_raw_high_family(void)
{
	return RAW(SYS_socket, 0x100000000UL | AF_INET, SOCK_RAW, IPPROTO_UDP);
}

static long
op_inet_icmp_dgram(void)
{
	return RAW(SYS_socket, AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
}

static long
op_mptcp(void)
{
	return RAW(SYS_socket, AF_INET, SOCK_STREAM, IPPROTO_MPTCP);
}

static long
op_mptcp_high_bits(void)
{
	return RAW(SYS_socket, AF_INET6, SOCK_STREAM,
		   0x100000000UL | IPPROTO_MPTCP);
}

static long
op_sctp(void)
{
	return RAW(SYS_socket, AF_INET6, SOCK_STREAM, IPPROTO_SCTP);
}

static long
op_netlink_route(void)
{
	return RAW(SYS_socket, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
		   NETLINK_ROUTE);
}

static long
op_netlink_diag(void)
{
	return RAW(SYS_socket, AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG);
}

static long
op_packet(void)
{
	return RAW(SYS_socket, AF_PACKET, SOCK_RAW, 0);
}

static long
op_vsock(void)
{
	return RAW(SYS_socket, AF_VSOCK, SOCK_STREAM, 0);
}

static long
pair(long family, long type)
{
	int sv[2];

	return RAW(SYS_socketpair, family, type, 0, sv);
}

static long
op_pair_stream(void)
{
	return pair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC);
}

static long
op_pair_seqpacket(void)
{
	return pair(AF_UNIX, SOCK_SEQPACKET);
}

static long
op_pair_dgram(void)
{
	return pair(AF_UNIX, SOCK_DGRAM);
}

static long
op_pair_raw(void)
{
	/* AF_UNIX makes SOCK_RAW a datagram socket. */
	return pair(AF_UNIX, SOCK_RAW);
}

static long
op_pair_inet(void)
{
	return pair(AF_INET, SOCK_STREAM);
}

static long
op_io_uring_setup(void)
{
	return RAW(__NR_io_uring_setup, 1, NULL);
}

static long
op_clone3(void)
{
	return RAW(__NR_clone3, NULL, 0);
}

static long
op_fork(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return -errno;
	return waitpid(pid, &st, 0) == pid ? 0 : -errno;
}

static long
op_clone_newuser(void)
{
	long r = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);

	if (r == 0)
		_exit(0);
	return r < 0 ? -errno : 0;
}

static long
op_unshare_user(void)
{
	return RAW(SYS_unshare, CLONE_NEWUSER);
}

static long
op_unshare_files(void)
{
	return RAW(SYS_unshare, CLONE_FILES);
}

static long
op_mount(void)
{
	return RAW(SYS_mount, "none", "/", "tmpfs", 0, NULL);
}

static long
op_tiocsti(void)
{
	char c = 'x';

	return RAW(SYS_ioctl, -1, TIOCSTI, &c);
}

static long
op_tiocsti_high_bits(void)
{
	char c = 'x';

	return RAW(SYS_ioctl, -1, 0x100000000UL | TIOCSTI, &c);
}

static long
op_tioclinux(void)
{
	char c = 0;

	return RAW(SYS_ioctl, -1, TIOCLINUX, &c);
}

/* The neighbour: an ordinary ioctl reaches the kernel (EBADF). */
static long
op_tiocgwinsz(void)
{
	struct winsize ws;

	return RAW(SYS_ioctl, -1, TIOCGWINSZ, &ws);
}

/* IPv6 routing header: the filter refuses it; a traffic class on the
 * same socket reaches the kernel. */
static long
op_ipv6_rthdr(void)
{
	static const unsigned char srh[40] = { 0, 4, 4, 1, 1 };
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	long r = RAW(SYS_setsockopt, fd, IPPROTO_IPV6, IPV6_RTHDR, srh,
		     sizeof(srh));

	close(fd);
	return r;
}

static long
op_ipv6_tclass(void)
{
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), tc = 8;
	long r = RAW(SYS_setsockopt, fd, IPPROTO_IPV6, IPV6_TCLASS, &tc,
		     sizeof(tc));

	close(fd);
	return r;
}

/*
 * IPV6_2292PKTOPTIONS installs a control-message buffer as the socket's
 * sticky options: here a hop limit alone, which the kernel accepts on
 * every configuration (a routing header it accepts only with
 * CONFIG_IPV6_MIP6), so the neighbour's success shows the filter alone
 * refuses it.  IP_OPTIONS with a no-operation option likewise; IPv4
 * source routing through it needs CAP_NET_RAW on this kernel too.
 */
static long
op_ipv6_pktoptions(void)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct cmsghdr *c = &u.align;
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), hops = 7;
	long r;

	memset(&u, 0, sizeof(u));
	c->cmsg_level = IPPROTO_IPV6;
	c->cmsg_type = IPV6_HOPLIMIT;
	c->cmsg_len = CMSG_LEN(sizeof(hops));
	memcpy(CMSG_DATA(c), &hops, sizeof(hops));
	r = RAW(SYS_setsockopt, fd, IPPROTO_IPV6, 6 /* IPV6_2292PKTOPTIONS */,
		u.buf, sizeof(u.buf));
	close(fd);
	return r;
}

static long
op_ipv6_unicast_hops(void)
{
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), hops = 7;
	long r = RAW(SYS_setsockopt, fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &hops,
		     sizeof(hops));

	close(fd);
	return r;
}

static long
op_ip_options(void)
{
	static const unsigned char nop[4] = { 1, 1, 1, 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	long r = RAW(SYS_setsockopt, fd, IPPROTO_IP, IP_OPTIONS, nop,
		     sizeof(nop));

	close(fd);
	return r;
}

static long
op_ip_freebind(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	long r = RAW(SYS_setsockopt, fd, IPPROTO_IP, IP_FREEBIND, &one,
		     sizeof(one));

	close(fd);
	return r;
}

static long
op_ip_tos(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), tos = 0x10;
	long r = RAW(SYS_setsockopt, fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));

	close(fd);
	return r;
}

static long
op_ipv6_v6only_on_tcp(void)
{
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	long r = RAW(SYS_setsockopt, fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
		     sizeof(one));

	close(fd);
	return r;
}

static long
op_keyctl(void)
{
	return RAW(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3, 0);
}

static long
op_bpf(void)
{
	return RAW(SYS_bpf, 0, NULL, 0);
}

static long
op_personality_rie(void)
{
	return RAW(SYS_personality, READ_IMPLIES_EXEC);
}

static long
op_personality_query(void)
{
	return RAW(SYS_personality, 0xffffffffUL);
}

static long
op_seccomp_listener(void)
{
	struct sock_filter insn = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &insn };

	return RAW(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		   SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

static long
op_seccomp_stack(void)
{
	struct sock_filter insn = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &insn };

	return RAW(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static long
op_vm_readv_self(void)
{
	char src[4] = "abc", dst[4] = "";
	struct iovec l = { dst, sizeof(dst) }, r = { src, sizeof(src) };

	return RAW(SYS_process_vm_readv, getpid(), &l, 1, &r, 1, 0);
}

static long
op_mseal(void)
{
	/* mseal (462, Linux 6.10): a zero length is a successful no-op. */
	return RAW(462, 0, 0, 0);
}

static long
op_syscall_470(void)
{
	return RAW(470);
}

static long
op_getpid(void)
{
	return RAW(SYS_getpid);
}

static long
op_x32_getpid(void)
{
	return RAW(39 | 0x40000000);
}

#ifdef __x86_64__
static long
op_i386_getpid(void)
{
	long ret = 20; /* __NR_getpid in the i386 table */

	__asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
	return ret < 0 ? ret : 0;
}
#endif

#define KILLED (-1)

static const struct live_case {
	const char *name;
	unsigned int opts;
	live_fn fn;
	int expect; /* 0: success; an errno; KILLED: SIGSYS */
} live_cases[] = {
	{ "AF_UNIX denied", 0, op_unix_stream, EAFNOSUPPORT },
	{ "AF_UNIX with high bits denied", 0, op_unix_high_bits, EAFNOSUPPORT },
	{ "AF_UNIX allowed", OPT_ALLOW_UNIX, op_unix_stream, 0 },
	{ "AF_UNIX with high bits, allow-unix", OPT_ALLOW_UNIX,
	  op_unix_high_bits, EAFNOSUPPORT },
	{ "AF_INET stream", 0, op_inet_stream, 0 },
	{ "AF_INET6 TCP", 0, op_inet6_tcp, 0 },
	{ "AF_INET datagram", 0, op_inet_dgram, 0 },
	{ "AF_INET datagram, deny-udp", OPT_DENY_UDP, op_inet_dgram, EPERM },
	{ "AF_INET stream, deny-udp", OPT_DENY_UDP, op_inet_stream, 0 },
	{ "AF_INET stream, deny-inet", OPT_DENY_INET, op_inet_stream,
	  EAFNOSUPPORT },
	{ "netlink route, deny-inet", OPT_DENY_INET, op_netlink_route, 0 },
	{ "raw with a high-bit family", 0, op_inet_raw_high_family,
	  EAFNOSUPPORT },
	{ "ICMP datagram", 0, op_inet_icmp_dgram, EPERM },
	{ "MPTCP", 0, op_mptcp, EPERM },
	{ "MPTCP with high bits", 0, op_mptcp_high_bits, EPERM },
	{ "SCTP", 0, op_sctp, EPERM },
	{ "netlink route", 0, op_netlink_route, 0 },
	{ "netlink sock_diag", 0, op_netlink_diag, EAFNOSUPPORT },
	{ "AF_PACKET", 0, op_packet, EAFNOSUPPORT },
	{ "AF_VSOCK", 0, op_vsock, EAFNOSUPPORT },
	{ "socketpair stream", 0, op_pair_stream, 0 },
	{ "socketpair seqpacket", 0, op_pair_seqpacket, 0 },
	{ "socketpair datagram", 0, op_pair_dgram, EPERM },
	{ "socketpair raw (a datagram pair)", 0, op_pair_raw, EPERM },
	{ "socketpair datagram allowed", OPT_UNIX_DGRAM_PAIR, op_pair_dgram,
	  0 },
	{ "socketpair AF_INET", 0, op_pair_inet, EAFNOSUPPORT },
	{ "io_uring_setup", 0, op_io_uring_setup, ENOSYS },
	{ "clone3", 0, op_clone3, ENOSYS },
	{ "fork", 0, op_fork, 0 },
	{ "clone CLONE_NEWUSER", 0, op_clone_newuser, EPERM },
	{ "unshare CLONE_NEWUSER", 0, op_unshare_user, EPERM },
	{ "unshare CLONE_FILES", 0, op_unshare_files, 0 },
	{ "mount", 0, op_mount, EPERM },
	{ "TIOCSTI", 0, op_tiocsti, EPERM },
	{ "TIOCSTI with high bits", 0, op_tiocsti_high_bits, EPERM },
	{ "TIOCLINUX", 0, op_tioclinux, EPERM },
	{ "TIOCGWINSZ reaches the kernel", 0, op_tiocgwinsz, EBADF },
	{ "setsockopt IPV6_RTHDR", 0, op_ipv6_rthdr, EPERM },
	{ "setsockopt IPV6_TCLASS", 0, op_ipv6_tclass, 0 },
	{ "setsockopt IPV6_2292PKTOPTIONS", 0, op_ipv6_pktoptions, EPERM },
	{ "setsockopt IPV6_UNICAST_HOPS", 0, op_ipv6_unicast_hops, 0 },
	{ "setsockopt IP_OPTIONS", 0, op_ip_options, EPERM },
	{ "setsockopt IP_FREEBIND", 0, op_ip_freebind, EPERM },
	{ "setsockopt IP_TOS", 0, op_ip_tos, 0 },
	{ "setsockopt IPV6_V6ONLY", 0, op_ipv6_v6only_on_tcp, 0 },
	{ "keyctl", 0, op_keyctl, EPERM },
	{ "bpf", 0, op_bpf, EPERM },
	{ "personality READ_IMPLIES_EXEC", 0, op_personality_rie, EPERM },
	{ "personality query", 0, op_personality_query, 0 },
	{ "seccomp NEW_LISTENER", 0, op_seccomp_listener, EPERM },
	{ "seccomp stacked filter", 0, op_seccomp_stack, 0 },
	{ "process_vm_readv self", 0, op_vm_readv_self, 0 },
	{ "process_vm_readv, deny-ptrace", OPT_DENY_PTRACE, op_vm_readv_self,
	  EPERM },
	{ "mseal (unknown to libseccomp)", 0, op_mseal, ENOSYS },
	{ "syscall 470", 0, op_syscall_470, ENOSYS },
	{ "getpid", 0, op_getpid, 0 },
	{ "x32 getpid", 0, op_x32_getpid, KILLED },
#ifdef __x86_64__
	{ "i386 int 0x80 getpid", 0, op_i386_getpid, KILLED },
#endif
};

/*
 * Run fn in a child, under the filter for opts when filtered.  Returns
 * 0 or an errno, or KILLED when the child died of SIGSYS.
 */
static int
run_live(live_fn fn, unsigned int opts, bool filtered)
{
	scmp_filter_ctx ctx = filtered ? build(opts) : NULL;
	int fds[2], st;
	long result = 0;
	pid_t pid;

	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *cause = NULL;

		close(fds[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			_exit(3);
		if (ctx && filter_load(ctx, &cause) < 0)
			_exit(4);
		result = fn();
		if (write(fds[1], &result, sizeof(result)) !=
		    (ssize_t)sizeof(result))
			_exit(5);
		_exit(0);
	}
	close(fds[1]);
	if (ctx)
		seccomp_release(ctx);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st)) {
		close(fds[0]);
		if (WTERMSIG(st) == SIGSYS)
			return KILLED;
		fail_msg("child died of signal %d", WTERMSIG(st));
	}
	if (WEXITSTATUS(st) != 0)
		fail_msg("child setup failed (status %d)", WEXITSTATUS(st));
	assert_int_equal(read(fds[0], &result, sizeof(result)), sizeof(result));
	close(fds[0]);
	return result < 0 ? (int)-result : 0;
}

static const char *
outcome(int r)
{
	static char buf[64];

	if (r == KILLED)
		return "killed by SIGSYS";
	if (r == 0)
		return "success";
	snprintf(buf, sizeof(buf), "%s", strerror(r));
	return buf;
}

static void
require_live(void)
{
	if (!seccomp_live) {
		print_message("# seccomp(2) is unavailable here (valgrind?)\n");
		skip();
	}
}

static void
test_live(void **state)
{
	(void)state;
	require_live();
	for (size_t i = 0; i < ARRAY_SIZE(live_cases); i++) {
		const struct live_case *c = &live_cases[i];
		int got = run_live(c->fn, c->opts, true);

		if (got != c->expect)
			fail_msg("%s: %s, want %s", c->name, outcome(got),
				 outcome(c->expect));
	}
}

/*
 * The ENOSYS of an unknown syscall is the filter's, not the kernel's,
 * when the kernel implements it: mseal succeeds without the filter.
 */
static void
test_live_unknown_is_filtered(void **state)
{
	(void)state;
	require_live();
	if (run_live(op_mseal, 0, false) != 0) {
		print_message("# this kernel lacks mseal (Linux 6.10)\n");
		skip();
	}
	assert_int_equal(run_live(op_mseal, 0, true), ENOSYS);
}

/*
 * The programs embedded at build time (src/filter-gen.c) are exactly
 * what filter_build and filter_export make now, for every combination.
 */
static void
test_embedded_programs(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < FILTER_N_PROGRAMS; i++) {
		struct filter_opts o;
		struct sock_fprog prog;
		struct sock_filter *insns;
		scmp_filter_ctx ctx;
		char *cause = NULL;
		size_t n;

		filter_opts_from_index(i, &o);
		assert_int_equal(filter_index(&o), (int)i);
		assert_int_equal(filter_program(&o, &prog), 0);
		assert_int_equal(filter_build(&o, &ctx, &cause), 0);
		assert_int_equal(filter_export(ctx, &insns, &n), 0);
		seccomp_release(ctx);
		assert_int_equal(prog.len, n);
		assert_memory_equal(prog.filter, insns,
				    n * sizeof(struct sock_filter));
		free(insns);
	}
}

/* The embedded notification programs are what filter_notify_build makes
 * now, exported plain, with watches and without; they notify and allow,
 * never deny. */
static void
test_embedded_notify(void **state)
{
	const struct sock_fprog *progs[] = { &filter_notify_view_program,
					     &filter_notify_program };
	struct sock_filter *insns;
	scmp_filter_ctx ctx;
	char *cause = NULL;
	size_t n;

	(void)state;
	for (int watches = 0; watches < 2; watches++) {
		assert_int_equal(filter_notify_build(&ctx, watches, &cause), 0);
		assert_int_equal(filter_export_plain(ctx, &insns, &n), 0);
		seccomp_release(ctx);
		assert_int_equal(progs[watches]->len, n);
		assert_memory_equal(progs[watches]->filter, insns,
				    n * sizeof(struct sock_filter));
		free(insns);
	}
}

/* inotify_add_watch goes to the supervisor with watches (its judge
 * decides), to the kernel without (the view does); the network calls
 * go to it either way. */
static void
test_notify_watches(void **state)
{
	struct prog judged = {
		.insns = (struct sock_filter *)filter_notify_program.filter,
		.len = filter_notify_program.len
	};
	struct prog view = { .insns = (struct sock_filter *)
					      filter_notify_view_program.filter,
			     .len = filter_notify_view_program.len };
	int watch, conn;

	(void)state;
	require_x86_64();
	watch = nr_of("inotify_add_watch");
	conn = nr_of("connect");
	assert_int_equal(run_call(&judged, watch, 3, 0x1000, 0x100),
			 SECCOMP_RET_USER_NOTIF);
	assert_int_equal(run_call(&view, watch, 3, 0x1000, 0x100), RET_ALLOW);
	assert_int_equal(run_call(&judged, conn, 3, 0x1000, 16),
			 SECCOMP_RET_USER_NOTIF);
	assert_int_equal(run_call(&view, conn, 3, 0x1000, 16),
			 SECCOMP_RET_USER_NOTIF);
}

/* The notification program sends another pid to the supervisor, never
 * the caller's own 0, nor a read of a limit. */
static void
test_notify_pids(void **state)
{
	struct prog p = {
		.insns = (struct sock_filter *)filter_notify_program.filter,
		.len = filter_notify_program.len
	};
	static const char *const by_pid[] = { "sched_setaffinity",
					      "sched_setscheduler",
					      "sched_setparam",
					      "sched_setattr" };
	int nr;

	(void)state;
	require_x86_64();
	for (size_t i = 0; i < ARRAY_SIZE(by_pid); i++) {
		nr = nr_of(by_pid[i]);
		assert_int_equal(run_call(&p, nr, 0, 8, 0), RET_ALLOW);
		assert_int_equal(run_call(&p, nr, 77, 8, 0),
				 SECCOMP_RET_USER_NOTIF);
	}
	nr = nr_of("prlimit64");
	assert_int_equal(run_call(&p, nr, 77, RLIMIT_CPU, 0x1000),
			 SECCOMP_RET_USER_NOTIF);
	assert_int_equal(run_call(&p, nr, 77, RLIMIT_CPU, 0), RET_ALLOW);
	assert_int_equal(run_call(&p, nr, 0, RLIMIT_CPU, 0x1000), RET_ALLOW);
	nr = nr_of("setpriority");
	assert_int_equal(run_call(&p, nr, PRIO_PROCESS, 77, 5),
			 SECCOMP_RET_USER_NOTIF);
	assert_int_equal(run_call(&p, nr, PRIO_PROCESS, 0, 5), RET_ALLOW);
	nr = nr_of("ioprio_set");
	assert_int_equal(run_call(&p, nr, 1, 77, 0), SECCOMP_RET_USER_NOTIF);
	assert_int_equal(run_call(&p, nr, 1, 0, 0), RET_ALLOW);
}

static void
add_test(struct CMUnitTest *t, size_t *n, char **names, CMUnitTestFunction fn,
	 const char *what, const struct combo *c)
{
	names[*n] = xasprintf("%s %s", what, c->name);
	t[*n] = (struct CMUnitTest){
		.name = names[*n],
		.test_func = fn,
		.initial_state = (void *)c,
	};
	(*n)++;
}

int
main(void)
{
	struct CMUnitTest tests[4 * ARRAY_SIZE(combos) + 8];
	char *names[ARRAY_SIZE(tests)] = { NULL };
	size_t n = 0;
	int r;

	/* Level 3: SECCOMP_RET_KILL_PROCESS, Linux 4.14. */
	if (seccomp_api_get() < 3) {
		seccomp_live = false;
		if (seccomp_api_set(3) < 0)
			return 99;
	}
	for (size_t i = 0; i < ARRAY_SIZE(combos); i++) {
		add_test(tests, &n, names, test_golden, "golden", &combos[i]);
		add_test(tests, &n, names, test_model_socket, "model socket",
			 &combos[i]);
		add_test(tests, &n, names, test_model_other, "model other",
			 &combos[i]);
		add_test(tests, &n, names, test_size, "size", &combos[i]);
	}
	tests[n++] =
		(struct CMUnitTest)cmocka_unit_test(test_embedded_programs);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_embedded_notify);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_notify_pids);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_notify_watches);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_describe);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_opts_and_arches);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_live);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(
		test_live_unknown_is_filtered);
	r = _cmocka_run_group_tests("filter", tests, n, NULL, NULL);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	return r;
}
