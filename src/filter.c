/*
 * seccomp (layer L2): the table of DESIGN.md §2 as a libseccomp filter.
 *
 * The filter is a deny-list layered on Landlock: its default action is
 * ALLOW, and every rule returns an errno.  Two properties of libseccomp
 * 2.5 shape how the rules are written:
 *
 * - A rule holds at most one comparison per argument (a second one is
 *   EINVAL), so "family is none of AF_INET, AF_INET6, ..." cannot be one
 *   rule.  It is written as one rule per aligned block of the complement
 *   (fb_add_not_in): the values outside the allowed set, cut into blocks
 *   whose size is a power of two and whose start is a multiple of it, each
 *   matched with SCMP_CMP_MASKED_EQ.  [17, 2^32) for example is
 *   17, 18-19, 20-23, 24-31, 32-63, ..., 2^31-(2^32-1): 31 rules.
 *
 * - Rules of one syscall become a tree, one level per argument, and a
 *   value that matches a node but none of the nodes below it does not
 *   reliably fall through to the node's siblings.  So the rules of one
 *   syscall are disjoint: no argument tuple matches two rules with
 *   different actions, every rule of a syscall compares the same leading
 *   arguments, and a tuple that matches no rule is one the table allows.
 *
 * Integer arguments that the kernel declares as int or unsigned int are
 * compared on their low 32 bits (the mask never covers the high word),
 * because the kernel truncates them: socket(0x100000001, ...) is
 * socket(AF_UNIX, ...) to the kernel, and a comparison of all 64 bits
 * that decides to allow could be fooled by high bits.  The one exception
 * only ever denies more: socket(2)'s and socketpair(2)'s families and
 * protocols, whose allowed values are all small, are denied above the
 * largest allowed value by a 64-bit GT rule (fb_add_not_in_small), which
 * denies every value with a high bit set, whatever its low word; the rules
 * beside it compare that argument on all 64 bits so that they stay
 * disjoint from it.  That replaces some 30 blocks per set of allowed values
 * and more than halves the program, whose load costs about 0.3 us per
 * instruction at every start.  tests/unit/test-filter.c checks the
 * exported PFC against tests/data/filter/ and the behaviour of the loaded
 * filter in a child, high-bit tricks included.
 *
 * This file is the table and the one way of writing it as disjoint rules
 * (with --explain's description of it, which must not drift from it),
 * which is why it stays whole at some 1,100 lines; the program around
 * libseccomp's (the prefix, the export, the precompiled programs,
 * loading) is filter-bpf.c.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <unistd.h>

#include <seccomp.h>

#include "cleanup.h"
#include "fdutil.h"
#include "filter.h"
#include "filter-int.h"
#include "strv.h"
#include "xalloc.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef TIOCSTI
#define TIOCSTI 0x5412
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* The kernel's int and unsigned int arguments: the low word only. */
#define LO32 0xffffffffULL
/* The one bit in which AF_INET and AF_INET6 differ. */
#define INET_FAMILY_BIT ((uint64_t)(AF_INET ^ AF_INET6))
/* Both words: for rules whose other values a GT rule denies. */
#define ALL64 0xffffffffffffffffULL
/* socket(2)'s type: the kernel's SOCK_TYPE_MASK; the rest are flags. */
#define SOCK_TYPE_BITS 0xfULL

/* The namespace flags of clone(2) and unshare(2). */
static const uint64_t ns_flags[] = {
	CLONE_NEWNS,  CLONE_NEWUSER, CLONE_NEWPID,    CLONE_NEWNET,
	CLONE_NEWUTS, CLONE_NEWIPC,  CLONE_NEWCGROUP, CLONE_NEWTIME,
};

/* A list of syscalls denied whatever their arguments. */
struct deny_group {
	const char *what; /* for filter_describe */
	const char *const *names;
	int err;
	/* Which option turns the group on; NULL: always on. */
	bool (*enabled)(const struct filter_opts *o);
};

/*
 * io_uring performs socket, connect and openat calls that seccomp never
 * sees (measured), so it is off; libuv, tokio and liburing users fall
 * back to ordinary syscalls on ENOSYS.
 */
static const char *const io_uring_calls[] = { "io_uring_setup",
					      "io_uring_enter",
					      "io_uring_register", NULL };

/*
 * clone3 passes its flags in memory, out of seccomp's reach; glibc falls
 * back to clone(2), whose flags register the rules below inspect.
 */
static const char *const clone3_calls[] = { "clone3", NULL };

/*
 * Namespaces and mounts: a new user namespace would let the command
 * remount its view of the file system.  setns needs CAP_SYS_ADMIN over
 * the target namespace, which the sandbox has no business with either.
 */
static const char *const mount_calls[] = {
	"setns",      "mount",	       "umount2", "pivot_root", "chroot",
	"move_mount", "open_tree",     "fsopen",  "fsconfig",	"fsmount",
	"fspick",     "mount_setattr", NULL
};

/*
 * Kernel attack surface and host state that no build or agent needs:
 * eBPF, perf events, userfaultfd (a classic exploit helper), the kernel
 * keyring (shared with the user's other sessions), kexec, modules,
 * accounting, quotas, swap, reboot and the kernel log.  Most need a
 * capability anyway; denying them keeps a kernel bug in their permission
 * checks out of reach.  Additions beyond DESIGN.md's list:
 * open_by_handle_at (the "shocker" container escape; it needs
 * CAP_DAC_READ_SEARCH, denied to be safe, while name_to_handle_at stays
 * allowed because it only names files the caller can already reach),
 * lookup_dcookie (CAP_SYS_ADMIN, gone since Linux 6.10), vhangup
 * (CAP_SYS_TTY_CONFIG), iopl/ioperm (raw port I/O, CAP_SYS_RAWIO) and
 * fanotify_init: unprivileged since Linux 5.13, its inode marks watch
 * trees the sandbox may not read, as inotify's do (DESIGN.md §11,
 * watching), which Landlock does not cover; file watchers use inotify.
 */
static const char *const kernel_calls[] = { "bpf",
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
					    NULL };

/*
 * [process] ptrace = deny.  Otherwise Landlock (and the pid namespace)
 * confine these to the sandbox's own processes, so gdb and strace work.
 * pidfd_getfd is added because it passes the same ptrace attach check
 * and copies another process's file descriptors.
 */
static const char *const ptrace_calls[] = { "ptrace", "process_vm_readv",
					    "process_vm_writev", "pidfd_getfd",
					    NULL };

static bool
deny_ptrace_enabled(const struct filter_opts *o)
{
	return o->deny_ptrace;
}

static const struct deny_group deny_groups[] = {
	{ "io_uring", io_uring_calls, ENOSYS, NULL },
	{ "clone3", clone3_calls, ENOSYS, NULL },
	{ "namespaces and mounts", mount_calls, EPERM, NULL },
	{ "kernel attack surface", kernel_calls, EPERM, NULL },
	{ "process access", ptrace_calls, EPERM, deny_ptrace_enabled },
};

struct filter_builder {
	scmp_filter_ctx ctx;
	uint32_t arch;
	char **cause;
};

static const char *
errno_name(int err)
{
	switch (err) {
	case EPERM:
		return "EPERM";
	case ENOSYS:
		return "ENOSYS";
	case EAFNOSUPPORT:
		return "EAFNOSUPPORT";
	default:
		return "an errno";
	}
}

static struct scmp_arg_cmp
cmp_masked(unsigned int arg, uint64_t mask, uint64_t value)
{
	struct scmp_arg_cmp c = {
		.arg = arg,
		.op = SCMP_CMP_MASKED_EQ,
		.datum_a = mask,
		.datum_b = value,
	};

	return c;
}

/* The syscall's number on the filter's architecture, or negative. */
static int
fb_nr(const struct filter_builder *b, const char *name)
{
	return seccomp_syscall_resolve_name_arch(b->arch, name);
}

/*
 * Like fb_nr, for a syscall whose arguments the filter inspects: leaving
 * it out would leave it allowed, so a missing one is an error.
 */
static int
fb_nr_required(const struct filter_builder *b, const char *name)
{
	int nr = fb_nr(b, name);

	if (nr < 0) {
		*b->cause = xasprintf("libseccomp has no number for %s(2) on "
				      "this architecture; llwrap's seccomp "
				      "filter cannot describe it.",
				      name);
		return -EOPNOTSUPP;
	}
	return nr;
}

static int
fb_add(struct filter_builder *b, int err, int nr, unsigned int n,
       const struct scmp_arg_cmp *cmp)
{
	int r = seccomp_rule_add_exact_array(b->ctx, SCMP_ACT_ERRNO(err), nr, n,
					     cmp);

	if (r < 0) {
		_cleanup_free_ char *name =
			seccomp_syscall_resolve_num_arch(b->arch, nr);

		*b->cause = xasprintf("libseccomp refused a rule for %s(2) "
				      "(syscall %d): %s.",
				      name ? name : "an unnamed syscall", nr,
				      strerror(-r));
	}
	return r;
}

/*
 * Add one rule per aligned block of [lo, hi] on argument arg, each with
 * cmp[0..n-1] in front of it.  Values are taken under width (LO32,
 * SOCK_TYPE_BITS or ALL64): the mask of every comparison lies inside
 * width, so bits above it never matter.  cmp has room for n + 1 entries.
 */
static int
fb_add_range(struct filter_builder *b, int err, int nr,
	     struct scmp_arg_cmp *cmp, unsigned int n, unsigned int arg,
	     uint64_t width, uint64_t lo, uint64_t hi)
{
	while (lo <= hi) {
		/* The largest block that starts at lo and ends by hi; a
		 * block at 0 is limited by width alone (2^63 for ALL64,
		 * whose width + 1 does not fit). */
		uint64_t size = lo		 ? (lo & -lo)
				: width == ALL64 ? 1ULL << 63
						 : width + 1;
		int r;

		while (size - 1 > hi - lo)
			size >>= 1;
		cmp[n] = cmp_masked(arg, width & ~(size - 1), lo);
		r = fb_add(b, err, nr, n + 1, cmp);
		if (r < 0)
			return r;
		if (hi - lo == size - 1)
			break;
		lo += size;
	}
	return 0;
}

/*
 * Deny (with err) every value of argument arg, taken under width, that is
 * not in allowed[] (sorted, ascending, within width), for the tuples that
 * match cmp[0..n-1].
 */
static int
fb_add_not_in(struct filter_builder *b, int err, int nr,
	      const struct scmp_arg_cmp *prefix, unsigned int n,
	      unsigned int arg, uint64_t width, const uint64_t *allowed,
	      size_t nallowed)
{
	struct scmp_arg_cmp cmp[4];
	uint64_t lo = 0;
	int r;

	if (n >= ARRAY_SIZE(cmp))
		return -EINVAL;
	/* memcpy from NULL is undefined even for 0 bytes (UBSan). */
	if (n > 0)
		memcpy(cmp, prefix, n * sizeof(*prefix));
	for (size_t i = 0; i < nallowed; i++) {
		if (allowed[i] > lo) {
			r = fb_add_range(b, err, nr, cmp, n, arg, width, lo,
					 allowed[i] - 1);
			if (r < 0)
				return r;
		}
		lo = allowed[i] + 1;
	}
	if (lo <= width)
		return fb_add_range(b, err, nr, cmp, n, arg, width, lo, width);
	return 0;
}

/*
 * Like fb_add_not_in, for an int argument whose allowed values are all
 * small (families, protocols): instead of some 30 blocks for the values
 * above the largest allowed one, a single rule denies every 64-bit value
 * above it, and the gaps below it are blocks compared on all 64 bits.
 * The kernel reads only the low word, so a value with any high bit set is
 * one the kernel would see as something else; this denies it whatever
 * the low word says, which is stricter than the kernel's view (no libc
 * passes high bits in an int) and so cannot let a denied value through.
 * It also keeps the rules disjoint: a rule comparing arg with an allowed
 * value on all 64 bits matches none of the values the GT rule denies.
 */
static int
fb_add_not_in_small(struct filter_builder *b, int err, int nr,
		    const struct scmp_arg_cmp *prefix, unsigned int n,
		    unsigned int arg, const uint64_t *allowed, size_t nallowed)
{
	struct scmp_arg_cmp cmp[4];
	uint64_t lo = 0;
	int r;

	if (n >= ARRAY_SIZE(cmp) || nallowed == 0)
		return -EINVAL;
	/* memcpy from NULL is undefined even for 0 bytes (UBSan). */
	if (n > 0)
		memcpy(cmp, prefix, n * sizeof(*prefix));
	cmp[n] = (struct scmp_arg_cmp){
		.arg = arg,
		.op = SCMP_CMP_GT,
		.datum_a = allowed[nallowed - 1],
	};
	r = fb_add(b, err, nr, n + 1, cmp);
	for (size_t i = 0; r == 0 && i < nallowed; i++) {
		if (allowed[i] > lo)
			r = fb_add_range(b, err, nr, cmp, n, arg, ALL64, lo,
					 allowed[i] - 1);
		lo = allowed[i] + 1;
	}
	return r;
}

static void
sorted_insert(uint64_t *v, size_t *n, uint64_t x)
{
	size_t i = *n;

	while (i > 0 && v[i - 1] > x) {
		v[i] = v[i - 1];
		i--;
	}
	v[i] = x;
	(*n)++;
}

/*
 * socket(family, type, protocol).  Every rule starts with a comparison of
 * family, and the families' rule sets are disjoint:
 *
 *   family not allowed          -> EAFNOSUPPORT (GT the largest allowed
 *                                  family, and blocks below it)
 *   AF_INET, AF_INET6:
 *     type & 0xf not allowed    -> EPERM (raw, packet, seqpacket, ...)
 *     SOCK_STREAM, protocol not 0/TCP -> EPERM (MPTCP, SCTP, ...)
 *     SOCK_DGRAM, protocol not 0/UDP  -> EPERM (ICMP, UDP-Lite, ...)
 *   AF_NETLINK, protocol not NETLINK_ROUTE -> EAFNOSUPPORT
 *   AF_UNIX (when allowed)      -> no rule
 *
 * type is compared under SOCK_TYPE_MASK because the kernel strips
 * SOCK_NONBLOCK and SOCK_CLOEXEC (and rejects other flags) before it
 * looks at the type.  family and protocol are compared on all 64 bits
 * (fb_add_not_in_small): one with a high bit set is denied.
 */
static int
filter_socket(struct filter_builder *b, const struct filter_opts *o)
{
	static const uint64_t stream_protocols[] = { 0, IPPROTO_TCP };
	static const uint64_t dgram_protocols[] = { 0, IPPROTO_UDP };
	static const uint64_t route_protocols[] = { NETLINK_ROUTE };
	uint64_t families[4], types[2];
	size_t nfamilies = 0, ntypes = 0;
	struct scmp_arg_cmp cmp[2];
	int nr, r;

	nr = fb_nr_required(b, "socket");
	if (nr < 0)
		return nr;

	sorted_insert(families, &nfamilies, AF_NETLINK);
	if (o->allow_unix)
		sorted_insert(families, &nfamilies, AF_UNIX);
	if (!o->deny_inet) {
		sorted_insert(families, &nfamilies, AF_INET);
		sorted_insert(families, &nfamilies, AF_INET6);
	}
	r = fb_add_not_in_small(b, EAFNOSUPPORT, nr, NULL, 0, 0, families,
				nfamilies);
	if (r < 0)
		return r;

	sorted_insert(types, &ntypes, SOCK_STREAM);
	if (!o->deny_udp)
		sorted_insert(types, &ntypes, SOCK_DGRAM);
	/*
	 * AF_INET (2) and AF_INET6 (10) differ in bit 3 alone, so one
	 * comparison with that bit masked out matches exactly these two
	 * families (on all 64 bits, like the rules beside it), and their
	 * type and protocol rules are emitted once instead of twice.
	 */
	_Static_assert((INET_FAMILY_BIT & (INET_FAMILY_BIT - 1)) == 0 &&
			       (AF_INET & INET_FAMILY_BIT) == 0,
		       "AF_INET and AF_INET6 differ in more than one bit");
	if (!o->deny_inet) {
		cmp[0] = cmp_masked(0, ALL64 & ~INET_FAMILY_BIT, AF_INET);
		r = fb_add_not_in(b, EPERM, nr, cmp, 1, 1, SOCK_TYPE_BITS,
				  types, ntypes);
		if (r < 0)
			return r;

		cmp[1] = cmp_masked(1, SOCK_TYPE_BITS, SOCK_STREAM);
		r = fb_add_not_in_small(b, EPERM, nr, cmp, 2, 2,
					stream_protocols,
					ARRAY_SIZE(stream_protocols));
		if (r < 0)
			return r;
	}
	if (!o->deny_inet && !o->deny_udp) {
		cmp[1] = cmp_masked(1, SOCK_TYPE_BITS, SOCK_DGRAM);
		r = fb_add_not_in_small(b, EPERM, nr, cmp, 2, 2,
					dgram_protocols,
					ARRAY_SIZE(dgram_protocols));
		if (r < 0)
			return r;
	}

	/* getifaddrs() needs NETLINK_ROUTE; sock_diag, audit, ... stay out. */
	cmp[0] = cmp_masked(0, ALL64, AF_NETLINK);
	return fb_add_not_in_small(b, EAFNOSUPPORT, nr, cmp, 1, 2,
				   route_protocols,
				   ARRAY_SIZE(route_protocols));
}

/*
 * socketpair(family, type, protocol, sv): a connected AF_UNIX pair can
 * address nothing else, but a datagram socket can sendto() any pathname
 * socket, so SOCK_DGRAM needs the supervisor.  AF_UNIX turns SOCK_RAW
 * into SOCK_DGRAM (unix_create), which is why the types are an allow-list
 * rather than a denial of SOCK_DGRAM alone.
 */
static int
filter_socketpair(struct filter_builder *b, const struct filter_opts *o)
{
	static const uint64_t families[] = { AF_UNIX };
	static const uint64_t types[] = { SOCK_STREAM, SOCK_SEQPACKET };
	struct scmp_arg_cmp cmp[1];
	int nr, r;

	nr = fb_nr_required(b, "socketpair");
	if (nr < 0)
		return nr;
	r = fb_add_not_in_small(b, EAFNOSUPPORT, nr, NULL, 0, 0, families,
				ARRAY_SIZE(families));
	if (r < 0 || o->allow_unix_dgram_pair)
		return r;
	cmp[0] = cmp_masked(0, ALL64, AF_UNIX);
	return fb_add_not_in(b, EPERM, nr, cmp, 1, 1, SOCK_TYPE_BITS, types,
			     ARRAY_SIZE(types));
}

/*
 * clone(2) and unshare(2) with any namespace flag.  The kernel reads the
 * low 32 bits of clone's flags; each flag gets its own rule (rules with
 * one action are OR-ed).  In clone(2), CLONE_NEWTIME's bit belongs to the
 * exit signal field, where no valid signal (at most 64) sets it, so
 * denying it there costs nothing.
 */
static int
filter_namespaces(struct filter_builder *b)
{
	static const char *const calls[] = { "clone", "unshare" };
	struct scmp_arg_cmp cmp[1];

	for (size_t i = 0; i < ARRAY_SIZE(calls); i++) {
		int nr = fb_nr_required(b, calls[i]);

		if (nr < 0)
			return nr;
		for (size_t j = 0; j < ARRAY_SIZE(ns_flags); j++) {
			int r;

			cmp[0] = cmp_masked(0, ns_flags[j], ns_flags[j]);
			r = fb_add(b, EPERM, nr, 1, cmp);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* TIOCSTI and TIOCLINUX push input into the terminal the user reads. */
static int
filter_ioctl(struct filter_builder *b)
{
	static const uint64_t cmds[] = { TIOCSTI, TIOCLINUX };
	struct scmp_arg_cmp cmp[1];
	int nr = fb_nr_required(b, "ioctl");

	if (nr < 0)
		return nr;
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++) {
		int r;

		cmp[0] = cmp_masked(1, LO32, cmds[i]);
		r = fb_add(b, EPERM, nr, 1, cmp);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * TCP Fast Open from the client side: sendto(), sendmsg() and sendmmsg()
 * with MSG_FASTOPEN connect a TCP socket without connect(2), and Landlock
 * (through ABI 7 at least) checks only connect(2) and bind(2): measured
 * by tests/escape (net.tfo-sendto), a sendto(MSG_FASTOPEN) reached a port
 * the policy did not allow.  No build or agent needs client-side Fast
 * Open; TCP_FASTOPEN_CONNECT stays allowed because it connects through
 * connect(2), which Landlock sees.
 */
static int
filter_fastopen(struct filter_builder *b)
{
	static const struct {
		const char *name;
		unsigned int flags_arg;
	} calls[] = { { "sendto", 3 }, { "sendmsg", 2 }, { "sendmmsg", 3 } };
	struct scmp_arg_cmp cmp[1];

	for (size_t i = 0; i < ARRAY_SIZE(calls); i++) {
		int nr = fb_nr_required(b, calls[i].name), r;

		if (nr < 0)
			return nr;
		cmp[0] = cmp_masked(calls[i].flags_arg, MSG_FASTOPEN,
				    MSG_FASTOPEN);
		r = fb_add(b, EPERM, nr, 1, cmp);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * setsockopt(2) at the IP levels: an allow-list of the options the design
 * has reasoned about (DESIGN.md §2), every other one EPERM.  Options at
 * these levels decide where and how a socket's packets go after connect(2)
 * and the supervisor have looked at the destination, and a sticky one
 * applies to every later send, which nothing mediates:
 *
 * - IPV6_RTHDR (a type 4 segment routing header needs no privilege) and
 *   IPV6_2292PKTOPTIONS (a whole control-message buffer installed as
 *   sticky options; a type 2 routing header passes wherever
 *   CONFIG_IPV6_MIP6 is built, as on Debian's kernels) send every packet
 *   to the header's address instead of the destination that was checked:
 *   measured, a connected UDP socket's payload and a TCP SYN reached
 *   another host.  IP_OPTIONS carries IPv4 source routing.
 * - IPV6_PKTINFO (sticky), IP_UNICAST_IF and IPV6_UNICAST_IF choose the
 *   outgoing interface, as SO_BINDTODEVICE does with CAP_NET_RAW;
 *   IP_FREEBIND and IPV6_FREEBIND bind (and, with a packet-info message,
 *   send from) addresses that are not the host's; IP_LOCAL_PORT_RANGE
 *   picks the port an autobind lands on.
 * - Multicast group membership (IP_ADD_MEMBERSHIP, MCAST_JOIN_GROUP and
 *   the rest of that family): a join sends an IGMP or MLD report to the
 *   local network at once, naming the group the command chose, which is
 *   a way out to the LAN no destination rule sees; and receiving from a
 *   group needs a wildcard bind, which the supervisor keeps on loopback.
 * - The rest is unreviewed: the 2292 API, IPsec and xfrm policies,
 *   transparent proxying, raw-socket options, anycast.
 *
 * What real clients and servers set stays: glibc's resolver (IP_RECVERR,
 * IPV6_RECVERR), curl, ssh and Chromium (IP_TOS, IPV6_TCLASS), Go,
 * libuv, Python and Rust (IPV6_V6ONLY, IP_TTL, IPV6_UNICAST_HOPS, the
 * multicast options), QUIC stacks (IP_MTU_DISCOVER, IPV6_MTU_DISCOVER,
 * IPV6_DONTFRAG, IP_PKTINFO, IPV6_RECVPKTINFO, IP_RECVTOS,
 * IPV6_RECVTCLASS, IP_RECVTTL, IPV6_RECVHOPLIMIT, the original
 * destination), the JDK (IP_MULTICAST_ALL, IPV6_MULTICAST_ALL), proxies
 * (IP_BIND_ADDRESS_NO_PORT), and the multicast sender's interface, hop
 * limit and loop.  None of these changes the destination, the route or
 * the source address of a unicast packet; a multicast destination is
 * decided like any other.  Values
 * are UAPI (glibc 2.36 lacks some names).  The option name is compared
 * on all 64 bits (fb_add_not_in_small): one with a high bit set is
 * refused, though the kernel would read its low word.
 */
static const uint64_t sockopt_ip[] = {
	1,  /* IP_TOS */
	2,  /* IP_TTL */
	8,  /* IP_PKTINFO (what is received) */
	10, /* IP_MTU_DISCOVER */
	11, /* IP_RECVERR */
	12, /* IP_RECVTTL */
	13, /* IP_RECVTOS */
	20, /* IP_RECVORIGDSTADDR */
	24, /* IP_BIND_ADDRESS_NO_PORT */
	32, /* IP_MULTICAST_IF */
	33, /* IP_MULTICAST_TTL */
	34, /* IP_MULTICAST_LOOP */
	49, /* IP_MULTICAST_ALL */
};
static const uint64_t sockopt_ipv6[] = {
	16, /* IPV6_UNICAST_HOPS */
	17, /* IPV6_MULTICAST_IF */
	18, /* IPV6_MULTICAST_HOPS */
	19, /* IPV6_MULTICAST_LOOP */
	23, /* IPV6_MTU_DISCOVER */
	25, /* IPV6_RECVERR */
	26, /* IPV6_V6ONLY */
	29, /* IPV6_MULTICAST_ALL */
	49, /* IPV6_RECVPKTINFO */
	51, /* IPV6_RECVHOPLIMIT */
	62, /* IPV6_DONTFRAG */
	66, /* IPV6_RECVTCLASS */
	67, /* IPV6_TCLASS */
	74, /* IPV6_RECVORIGDSTADDR */
};

static int
filter_sockopt(struct filter_builder *b)
{
	static const struct {
		uint64_t level;
		const uint64_t *allowed;
		size_t n;
	} levels[] = {
		{ IPPROTO_IP, sockopt_ip, ARRAY_SIZE(sockopt_ip) },
		{ IPPROTO_IPV6, sockopt_ipv6, ARRAY_SIZE(sockopt_ipv6) },
	};
	struct scmp_arg_cmp cmp[1];
	int nr = fb_nr_required(b, "setsockopt");

	if (nr < 0)
		return nr;
	for (size_t i = 0; i < ARRAY_SIZE(levels); i++) {
		int r;

		/* The level is an int: its low word, as the kernel reads. */
		cmp[0] = cmp_masked(1, LO32, levels[i].level);
		r = fb_add_not_in_small(b, EPERM, nr, cmp, 1, 2,
					levels[i].allowed, levels[i].n);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * Calls that act on another process by pid and need no ptrace access,
 * only the same user (DESIGN.md §15): prlimit64 (a lowered RLIMIT_CPU
 * hard limit makes the kernel SIGKILL the target, RLIMIT_FSIZE kills it
 * at its next write past the size, and a lowered hard limit cannot be
 * raised back), setpriority, ioprio_set and the scheduler's setters.
 * Without a pid namespace a pid names the user's other processes, the
 * editor, the shell, llwrap's own supervisor: then only the caller itself
 * (pid 0) is accepted, unless the supervisor checks each (pid_any).  A
 * process group or a user (setpriority PRIO_PGRP/PRIO_USER, ioprio_set
 * IOPRIO_WHO_PGRP/IOPRIO_WHO_USER) reaches past any pid namespace (the
 * group of the terminal's job holds llwrap and the rest of the pipeline):
 * never.  Reading a limit or a priority stays allowed.
 */
static const char *const by_pid[] = { "sched_setaffinity", "sched_setscheduler",
				      "sched_setparam", "sched_setattr" };
static const struct {
	const char *name;
	uint64_t one; /* the value of which that names one process */
} by_which[] = { { "setpriority", PRIO_PROCESS },
		 { "ioprio_set", 1 /* IOPRIO_WHO_PROCESS */ } };

static int
filter_pids(struct filter_builder *b, const struct filter_opts *o)
{
	struct scmp_arg_cmp cmp[2];
	int nr, r;

	for (size_t i = 0; i < ARRAY_SIZE(by_which); i++) {
		uint64_t allowed[] = { by_which[i].one };

		if ((nr = fb_nr_required(b, by_which[i].name)) < 0)
			return nr;
		r = fb_add_not_in(b, EPERM, nr, NULL, 0, 0, LO32, allowed, 1);
		if (r == 0 && !o->pid_any) {
			cmp[0] = cmp_masked(0, LO32, by_which[i].one);
			cmp[1] = (struct scmp_arg_cmp){ .arg = 1,
							.op = SCMP_CMP_NE };
			r = fb_add(b, EPERM, nr, 2, cmp);
		}
		if (r < 0)
			return r;
	}
	if (o->pid_any)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(by_pid); i++) {
		if ((nr = fb_nr_required(b, by_pid[i])) < 0)
			return nr;
		cmp[0] = (struct scmp_arg_cmp){ .arg = 0, .op = SCMP_CMP_NE };
		if ((r = fb_add(b, EPERM, nr, 1, cmp)) < 0)
			return r;
	}
	if ((nr = fb_nr_required(b, "prlimit64")) < 0)
		return nr;
	cmp[0] = (struct scmp_arg_cmp){ .arg = 0, .op = SCMP_CMP_NE };
	cmp[1] = (struct scmp_arg_cmp){ .arg = 2, .op = SCMP_CMP_NE };
	return fb_add(b, EPERM, nr, 2, cmp);
}

/*
 * seccomp(SECCOMP_SET_MODE_FILTER, ...NEW_LISTENER...): a listener would
 * let the command answer its own children's syscalls, including the
 * supervisor's.  Plain filters stay allowed (they only narrow).
 */
static int
filter_seccomp(struct filter_builder *b)
{
	struct scmp_arg_cmp cmp[2];
	int nr = fb_nr_required(b, "seccomp");

	if (nr < 0)
		return nr;
	cmp[0] = cmp_masked(0, LO32, SECCOMP_SET_MODE_FILTER);
	cmp[1] = cmp_masked(1, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			    SECCOMP_FILTER_FLAG_NEW_LISTENER);
	return fb_add(b, EPERM, nr, 2, cmp);
}

static int
filter_groups(struct filter_builder *b, const struct filter_opts *o)
{
	for (size_t i = 0; i < ARRAY_SIZE(deny_groups); i++) {
		const struct deny_group *g = &deny_groups[i];

		if (g->enabled && !g->enabled(o))
			continue;
		for (const char *const *n = g->names; *n; n++) {
			int nr = fb_nr(b, *n), r;

			/*
			 * Not on this architecture (iopl on aarch64), or a
			 * name libseccomp does not know, whose number the
			 * unknown-syscall rules deny with ENOSYS.
			 */
			if (nr < 0)
				continue;
			r = fb_add(b, g->err, nr, 0, NULL);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static uint32_t
filter_arch(const struct filter_opts *o)
{
	return o->arch == SCMP_ARCH_NATIVE ? seccomp_arch_native() : o->arch;
}

void
filter_opts_init(struct filter_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->arch = SCMP_ARCH_NATIVE;
}

static int
filter_attrs(struct filter_builder *b)
{
	static const struct {
		enum scmp_filter_attr attr;
		uint32_t value;
		const char *what;
	} attrs[] = {
		/*
		 * A second syscall table the rules do not describe: i386's
		 * int 0x80 and, because the filter holds x86_64 alone,
		 * x32's numbers (0x40000000 and up), which libseccomp
		 * sends to the bad-arch action too.
		 */
		{ SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS,
		  "the bad-architecture action" },
		/* A binary search over syscall numbers, not a linear one. */
		{ SCMP_FLTATR_CTL_OPTIMIZE, 2, "the binary-tree optimisation" },
		/* Kernel errnos from seccomp_load, not ECANCELED. */
		{ SCMP_FLTATR_API_SYSRAWRC, 1, "raw error codes" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(attrs); i++) {
		int r = seccomp_attr_set(b->ctx, attrs[i].attr, attrs[i].value);

		if (r < 0) {
			*b->cause = xasprintf("libseccomp cannot set %s: %s.",
					      attrs[i].what, strerror(-r));
			return r;
		}
	}
	return 0;
}

/*
 * The filter holds one architecture: the one llwrap runs on.  Building
 * for another is refused because libseccomp 2.5 reads a rule's syscall
 * number in the host's table and translates it by name, which cannot
 * carry the numbers it has no name for (the unknown-syscall rules) nor a
 * syscall the host lacks (iopl on aarch64).
 */
static int
filter_check_arch(struct filter_builder *b)
{
	if (b->arch != seccomp_arch_native()) {
		*b->cause = xasprintf("llwrap builds seccomp filters only for "
				      "the architecture it runs on, not for "
				      "0x%x.",
				      b->arch);
		return -EOPNOTSUPP;
	}
	/*
	 * On i386 and other socketcall architectures, socket() is also
	 * reachable through socketcall(2), whose arguments sit in memory.
	 */
	if (seccomp_syscall_resolve_name_arch(b->arch, "socketcall") >= 0) {
		*b->cause = xstrdup("llwrap's seccomp filter does not support "
				    "architectures with socketcall(2), such as "
				    "32-bit x86.");
		return -EOPNOTSUPP;
	}
	return 0;
}

int
filter_build(const struct filter_opts *o, scmp_filter_ctx *out, char **cause)
{
	struct filter_builder b = {
		.arch = filter_arch(o),
		.cause = cause,
	};
	int r;

	*out = NULL;
	b.ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (b.ctx == NULL) {
		*cause = xstrdup("libseccomp cannot create a filter.");
		return -ENOMEM;
	}
	r = filter_check_arch(&b);
	if (r == 0)
		r = filter_attrs(&b);
	if (r == 0)
		r = filter_socket(&b, o);
	if (r == 0)
		r = filter_socketpair(&b, o);
	if (r == 0)
		r = filter_namespaces(&b);
	if (r == 0)
		r = filter_ioctl(&b);
	if (r == 0)
		r = filter_fastopen(&b);
	if (r == 0)
		r = filter_sockopt(&b);
	if (r == 0)
		r = filter_seccomp(&b);
	if (r == 0)
		r = filter_pids(&b, o);
	if (r == 0)
		r = filter_groups(&b, o);
	if (r < 0) {
		seccomp_release(b.ctx);
		return r;
	}
	*out = b.ctx;
	return 0;
}

/* "a, b, c" for a deny group. */
static char *
join_names(const char *const *names)
{
	return strv_join((char *const *)names, ", ");
}

/* The unknown numbers as "337-423, 457 and up". */
static char *
unknown_ranges(uint32_t arch)
{
	_cleanup_strv_ char **parts = NULL;
	struct nr_range runs[64];
	size_t n = filter_unknown_runs(arch, runs, ARRAY_SIZE(runs));

	for (size_t i = 0; i < n; i++) {
		if (runs[i].hi == LLW_X32_SYSCALL_BIT)
			strv_push_take(&parts,
				       xasprintf("%u and up", runs[i].lo));
		else if (runs[i].lo + 1 == runs[i].hi)
			strv_push_take(&parts, xasprintf("%u", runs[i].lo));
		else
			strv_push_take(&parts, xasprintf("%u-%u", runs[i].lo,
							 runs[i].hi - 1));
	}
	return parts ? strv_join(parts, ", ") : xstrdup("none");
}

char **
filter_describe(const struct filter_opts *o)
{
	uint32_t arch = filter_arch(o);
	char **v = NULL;
	_cleanup_free_ char *ranges = NULL;

	if (o->deny_inet) {
		strv_push(&v, "socket AF_INET/AF_INET6: denied (EAFNOSUPPORT)");
	} else {
		strv_push(&v, "socket AF_INET/AF_INET6 stream, protocol 0 or "
			      "TCP: allowed");
		strv_push(&v,
			  o->deny_udp
				  ? "socket AF_INET/AF_INET6 datagram: denied "
				    "(EPERM)"
				  : "socket AF_INET/AF_INET6 datagram, "
				    "protocol 0 or UDP: allowed");
		strv_push(&v, "socket AF_INET/AF_INET6 MPTCP, SCTP, ICMP, "
			      "raw, packet and other types or protocols: "
			      "denied (EPERM)");
	}
	strv_push(&v, "socket AF_NETLINK NETLINK_ROUTE: allowed");
	strv_push(&v, "socket AF_NETLINK other protocols: denied "
		      "(EAFNOSUPPORT)");
	strv_push(&v, o->allow_unix ? "socket AF_UNIX: allowed"
				    : "socket AF_UNIX: denied (EAFNOSUPPORT)");
	strv_push(&v, "socket other families (AF_PACKET, AF_VSOCK, "
		      "AF_BLUETOOTH, ...): denied (EAFNOSUPPORT)");
	if (o->allow_unix_dgram_pair) {
		strv_push(&v, "socketpair AF_UNIX: allowed");
	} else {
		strv_push(&v, "socketpair AF_UNIX stream or seqpacket: "
			      "allowed");
		strv_push(&v, "socketpair AF_UNIX datagram and other types: "
			      "denied (EPERM)");
	}
	strv_push(&v, "socketpair other families: denied (EAFNOSUPPORT)");
	strv_push(&v, "clone, unshare with namespace flags: denied (EPERM)");
	strv_push(&v, "ioctl TIOCSTI, TIOCLINUX: denied (EPERM)");
	strv_push(&v, "sendto, sendmsg, sendmmsg with MSG_FASTOPEN: denied "
		      "(EPERM)");
	strv_push(&v, "setsockopt IPPROTO_IP and IPPROTO_IPV6 options "
		      "outside the reviewed list (IPV6_RTHDR, "
		      "IPV6_2292PKTOPTIONS, IP_OPTIONS, IPV6_PKTINFO, "
		      "IP_FREEBIND, IP_UNICAST_IF, ...): denied (EPERM)");
	strv_push(&v, "seccomp with SECCOMP_FILTER_FLAG_NEW_LISTENER: denied "
		      "(EPERM)");
	strv_push(&v, "setpriority, ioprio_set of a process group or a user: "
		      "denied (EPERM)");
	strv_push(&v,
		  o->pid_any ? "prlimit64 (setting), setpriority, ioprio_set, "
			       "sched_setaffinity, sched_setscheduler, "
			       "sched_setparam, sched_setattr of another pid: "
			       "allowed (a pid namespace confines the pids, or "
			       "the supervisor checks each)"
			     : "prlimit64 (setting), setpriority, ioprio_set, "
			       "sched_setaffinity, sched_setscheduler, "
			       "sched_setparam, sched_setattr of a pid other "
			       "than the caller's (0): denied (EPERM)");
	strv_push(&v, "personality other than PER_LINUX and the query: "
		      "denied (EPERM)");
	for (size_t i = 0; i < ARRAY_SIZE(deny_groups); i++) {
		const struct deny_group *g = &deny_groups[i];
		_cleanup_free_ char *names = join_names(g->names);

		if (g->enabled && !g->enabled(o))
			strv_push_take(&v, xasprintf("%s (%s): allowed",
						     g->what, names));
		else
			strv_push_take(&v, xasprintf("%s (%s): denied (%s)",
						     g->what, names,
						     errno_name(g->err)));
	}
	ranges = unknown_ranges(arch);
	strv_push_take(&v, xasprintf("syscalls unknown to libseccomp %u.%u.%u "
				     "(%s): denied (ENOSYS)",
				     seccomp_version()->major,
				     seccomp_version()->minor,
				     seccomp_version()->micro, ranges));
	strv_push(&v, "other architectures (i386 int 0x80, x32): process "
		      "killed");
	return v;
}

/*
 * sendto without a destination (the common send on a connected socket)
 * stays in the kernel; the pointer is in a register, so it cannot change
 * after the check.  sendmsg keeps its destination in memory, so every
 * sendmsg is mediated.
 */
int
filter_notify_build(scmp_filter_ctx *out, bool watches, char **cause)
{
	/* inotify_add_watch last: without watches it is left out. */
	static const char *const calls[] = { "connect",	 "bind",
					     "listen",	 "sendmsg",
					     "sendmmsg", "inotify_add_watch" };
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	size_t n_calls = ARRAY_SIZE(calls) - (watches ? 0 : 1);
	int r = 0, nr;

	if (ctx == NULL) {
		*cause = xstrdup("libseccomp cannot create a filter.");
		return -ENOMEM;
	}
	r = seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
	for (size_t i = 0; r == 0 && i < n_calls; i++) {
		nr = seccomp_syscall_resolve_name(calls[i]);
		r = nr < 0 ? -EOPNOTSUPP
			   : seccomp_rule_add_exact(ctx, SCMP_ACT_NOTIFY, nr,
						    0);
	}
	if (r == 0) {
		nr = seccomp_syscall_resolve_name("sendto");
		r = nr < 0 ? -EOPNOTSUPP
			   : seccomp_rule_add_exact(ctx, SCMP_ACT_NOTIFY, nr, 1,
						    SCMP_A4(SCMP_CMP_NE, 0));
	}
	/* Another process by pid (filter_pids). */
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(by_pid); i++) {
		nr = seccomp_syscall_resolve_name(by_pid[i]);
		r = nr < 0 ? -EOPNOTSUPP
			   : seccomp_rule_add_exact(ctx, SCMP_ACT_NOTIFY, nr, 1,
						    SCMP_A0(SCMP_CMP_NE, 0));
	}
	if (r == 0) {
		nr = seccomp_syscall_resolve_name("prlimit64");
		r = nr < 0 ? -EOPNOTSUPP
			   : seccomp_rule_add_exact(ctx, SCMP_ACT_NOTIFY, nr, 2,
						    SCMP_A0(SCMP_CMP_NE, 0),
						    SCMP_A2(SCMP_CMP_NE, 0));
	}
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(by_which); i++) {
		nr = seccomp_syscall_resolve_name(by_which[i].name);
		r = nr < 0 ? -EOPNOTSUPP
			   : seccomp_rule_add_exact(ctx, SCMP_ACT_NOTIFY, nr, 2,
						    SCMP_A0(SCMP_CMP_MASKED_EQ,
							    LO32,
							    by_which[i].one),
						    SCMP_A1(SCMP_CMP_NE, 0));
	}
	if (r < 0) {
		*cause = xasprintf("cannot build the supervisor's seccomp "
				   "filter: %s.",
				   strerror(-r));
		seccomp_release(ctx);
		return r;
	}
	*out = ctx;
	return 0;
}
