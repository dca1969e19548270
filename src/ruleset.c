/*
 * Landlock (layer L1): probe, per-ABI planning and enforcement.
 *
 * Planning follows the kernel's samples/landlock/sandboxer.c: handle every
 * right the running ABI knows, so that whatever the policy does not grant
 * is denied, and clear from the rules what an older ABI lacks.  Each right
 * the policy relies on and the ABI lacks becomes a struct ruleset_loss;
 * DESIGN.md §2 "Fail closed" decides what a fatal one does.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "compat/landlock.h"
#include "compat/syscall.h"
#include "fdutil.h"
#include "ruleset.h"
#include "testhook.h"
#include "xalloc.h"

_Static_assert(LLW_LANDLOCK_ABI_MAX == LLW_ABI_LAST,
	       "ruleset.h and compat/landlock.h disagree on the newest ABI");

void
ruleset_probe(struct ruleset_kernel *k)
{
	int v, e;

	k->abi = 0;
	k->err = 0;
	k->errata = 0;

	v = sys_landlock_create_ruleset(NULL, 0, LLW_CREATE_RULESET_VERSION);
	if (v < 0) {
		k->err = errno;
		return;
	}
	k->abi = v = testhook_landlock_abi(v, &k->err);
	if (v == 0)
		return;

	/* The errata query exists since ABI 7; older kernels say EINVAL. */
	if (v >= 7) {
		e = sys_landlock_create_ruleset(NULL, 0,
						LLW_CREATE_RULESET_ERRATA);
		if (e >= 0)
			k->errata = (uint64_t)e;
	}
}

/* Why Landlock is unavailable, as the end of a sentence. */
static char *
unavailable_reason(int err)
{
	switch (err) {
	case ENOSYS:
		return xstrdup("Landlock is not built into this kernel "
			       "(CONFIG_SECURITY_LANDLOCK)");
	case EOPNOTSUPP:
		return xstrdup("Landlock is built in but disabled at boot: "
			       "add landlock to the lsm= kernel parameter");
	case 0:
		return xstrdup("this kernel does not provide Landlock");
	default:
		return xasprintf("the Landlock probe failed: %s",
				 strerror(err));
	}
}

char *
ruleset_describe(const struct ruleset_kernel *k)
{
	if (k->abi < 1)
		return unavailable_reason(k->err);
	if (k->abi > LLW_LANDLOCK_ABI_MAX)
		return xasprintf("Landlock ABI %d, errata 0x%llx (llwrap uses "
				 "up to ABI %d)",
				 k->abi, (unsigned long long)k->errata,
				 LLW_LANDLOCK_ABI_MAX);
	if (k->abi >= 7)
		return xasprintf("Landlock ABI %d, errata 0x%llx", k->abi,
				 (unsigned long long)k->errata);
	return xasprintf("Landlock ABI %d", k->abi);
}

/*
 * What each ABI needs, for the `needs` half of a loss.  Kernel versions
 * for ABI 9 and 10 are those the Landlock maintainers announced; see
 * lib/compat/landlock.h for the sources.
 */
static const char *const abi_needs[] = {
	[1] = "Landlock ABI 1 (Linux 5.13)",
	[2] = "Landlock ABI 2 (Linux 5.19)",
	[3] = "Landlock ABI 3 (Linux 6.2)",
	[4] = "Landlock ABI 4 (Linux 6.7)",
	[5] = "Landlock ABI 5 (Linux 6.10)",
	[6] = "Landlock ABI 6 (Linux 6.12)",
	[7] = "Landlock ABI 7 (Linux 6.15)",
	[8] = "Landlock ABI 8 (Linux 7.0)",
	[9] = "Landlock ABI 9 (Linux 7.1)",
	[10] = "Landlock ABI 10 (Linux 7.2)",
};

static void
add_loss(struct ruleset_plan *rp, char *what, const char *needs, bool fatal,
	 enum layers_restriction r)
{
	struct ruleset_loss *l;

	rp->losses = xreallocarray(rp->losses, rp->n_losses + 1,
				   sizeof(*rp->losses));
	l = &rp->losses[rp->n_losses++];
	l->what = what;
	l->needs = xstrdup(needs);
	l->fatal = fatal;
	l->restriction = r;
}

static void
add_fs_rule(struct ruleset_plan *rp, const char *path, uint64_t access,
	    const char *origin, bool punched)
{
	struct plan_rule *r;

	rp->fs_rules = xgrow(rp->fs_rules, rp->n_fs_rules + 1,
			     &rp->cap_fs_rules, sizeof(*rp->fs_rules));
	r = &rp->fs_rules[rp->n_fs_rules++];
	r->path = xstrdup(path);
	r->access = access;
	r->origin = xstrdup(origin ? origin : "");
	r->punched = punched;
}

void
ruleset_plan_grant(struct ruleset_plan *rp, const char *path, uint64_t access,
		   const char *origin)
{
	if ((access & rp->handled_fs) != 0)
		add_fs_rule(rp, path, access & rp->handled_fs, origin, false);
}

static bool
has_ports(const struct llw_ports *ports)
{
	return ports->n > 0;
}

/* A port range with the rights it grants: one input of plan_net_rules(). */
struct net_span {
	uint32_t lo, hi; /* inclusive */
	uint64_t bits;
	const char *origin;
};

static void
push_spans(struct net_span **v, size_t *n, const struct llw_ports *ports,
	   uint64_t bits)
{
	for (size_t i = 0; i < ports->n; i++) {
		*v = xreallocarray(*v, *n + 1, sizeof(**v));
		(*v)[(*n)++] = (struct net_span){
			.lo = ports->v[i].lo,
			.hi = ports->v[i].hi,
			.bits = bits,
			.origin = ports->v[i].origin ? ports->v[i].origin : "",
		};
	}
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * One net rule per port, in port order, with the rights of every list
 * that names it merged (the kernel would merge them too) and the origin
 * of the first range, in list order, that names it.  The ports are swept
 * segment by segment between range boundaries, so the cost follows the
 * number of ranges and of ports granted, not the 65,536 possible ports.
 */
static void
plan_net_rules(struct ruleset_plan *rp, const struct ruleset_inputs *in)
{
	_cleanup_free_ struct net_span *sp = NULL;
	_cleanup_free_ uint32_t *cut = NULL;
	size_t n = 0, n_cut = 0, i, j;

	push_spans(&sp, &n, &in->connect_tcp, LLW_NET_CONNECT_TCP);
	/* bind-tcp 0 is a bind to an ephemeral port, which Landlock checks
	 * against the rule for port 0. */
	push_spans(&sp, &n, &in->bind_tcp, LLW_NET_BIND_TCP);
	if (rp->handled_net & LLW_NET_BIND_UDP) {
		push_spans(&sp, &n, &in->connect_udp, LLW_NET_CONNECT_SEND_UDP);
		push_spans(&sp, &n, &in->bind_udp, LLW_NET_BIND_UDP);
		/*
		 * BIND_UDP also governs the autobind of an ephemeral port that
		 * the first connect() or sendto() of an unbound UDP socket
		 * triggers, so a connect-udp list would be unusable without
		 * the port-0 bind.  An ephemeral local port exposes nothing:
		 * it cannot impersonate a service.
		 */
		if (has_ports(&in->connect_udp)) {
			struct llw_port_range port0 = {
				.origin = in->connect_udp.v[0].origin,
			};
			struct llw_ports zero = { .v = &port0, .n = 1 };

			push_spans(&sp, &n, &zero, LLW_NET_BIND_UDP);
		}
	}
	if (n == 0)
		return;

	/* Segment boundaries: every lo and every hi + 1. */
	cut = xreallocarray(NULL, 2 * n, sizeof(*cut));
	for (i = 0; i < n; i++) {
		cut[n_cut++] = sp[i].lo;
		cut[n_cut++] = sp[i].hi + 1;
	}
	qsort(cut, n_cut, sizeof(*cut), cmp_u32);

	for (j = 0; j + 1 < n_cut; j++) {
		uint32_t lo = cut[j], hi = cut[j + 1], port;
		const char *origin = NULL;
		uint64_t a = 0;

		if (lo == hi)
			continue;
		/* [lo, hi) lies wholly inside or outside every span. */
		for (i = 0; i < n; i++) {
			if (sp[i].lo > lo || sp[i].hi < lo)
				continue;
			if ((sp[i].bits & rp->handled_net) == 0)
				continue;
			a |= sp[i].bits & rp->handled_net;
			if (origin == NULL)
				origin = sp[i].origin;
		}
		if (a == 0)
			continue;
		rp->net_rules = xreallocarray(rp->net_rules,
					      rp->n_net_rules + (hi - lo),
					      sizeof(*rp->net_rules));
		for (port = lo; port < hi; port++) {
			rp->net_rules[rp->n_net_rules].port = port;
			rp->net_rules[rp->n_net_rules].access = a;
			rp->net_rules[rp->n_net_rules].origin = xstrdup(origin);
			rp->n_net_rules++;
		}
	}
}

/*
 * The losses, in ABI order.  Severity, right by right (fatal = a real
 * hole, so the run fails closed unless best effort):
 *
 * | missing                 | below | fatal | why                            |
 * |-------------------------|-------|-------|--------------------------------|
 * | Landlock itself         | 1     | yes   | no filesystem allow-list       |
 * | REFER                   | 2     | no    | stricter: ABI 1 always denies  |
 * |                         |       |       | cross-directory rename/link;   |
 * |                         |       |       | reported only when a rule      |
 * |                         |       |       | grants it                      |
 * | TRUNCATE                | 3     | yes   | truncate(2) needs no open, so  |
 * |                         |       |       | any file the user owns, even a |
 * |                         |       |       | read-only or hidden one, could |
 * |                         |       |       | be emptied                     |
 * | TCP port rules          | 4     | yes   | net = filtered: every TCP port |
 * |                         |       | no    | net = none: seccomp denies     |
 * |                         |       |       | inet sockets (reported)        |
 * | IOCTL_DEV               | 5     | no    | see below                      |
 * | signal scope            | 6     | yes   | signals to host processes      |
 * | abstract unix scope     | 6     | yes   | only when unix sockets are     |
 * |                         |       |       | allowed; else seccomp denies   |
 * |                         |       |       | AF_UNIX and nothing is lost    |
 * | RESOLVE_UNIX            | 9     | yes   | likewise for pathname sockets  |
 * |                         |       |       | (docker, ssh-agent, D-Bus)     |
 * | UDP port rules          | 10    | yes   | only when the policy lists a   |
 * |                         |       |       | UDP port; else the caller      |
 * |                         |       |       | denies UDP sockets by seccomp  |
 *
 * IOCTL_DEV is not fatal: without it, ioctl(2) on a device is governed
 * only by whether the command could open the device, which READ_FILE and
 * WRITE_FILE still decide; the ioctls that reach outside the sandbox
 * through a terminal it already holds (TIOCSTI, TIOCLINUX) are denied by
 * the seccomp filter on every kernel.
 *
 * Signal scoping is fatal on its own: a pid namespace (L3) would also hide
 * host processes, but this module cannot know whether one is in place, so
 * the caller that sets one up may drop this loss.
 */
static const char signal_loss[] =
	"isolation from signalling processes outside the sandbox";
static const char none_tcp_loss[] =
	"TCP port rules (net = none: seccomp denies inet sockets instead)";

static void
plan_losses(struct ruleset_plan *rp, const struct ruleset_inputs *in,
	    uint64_t fs_wanted)
{
	int abi = rp->abi;
	bool filtered = in->net == RULESET_NET_FILTERED;
	bool none = in->net == RULESET_NET_NONE;

	if (abi < 2 && (fs_wanted & LLW_FS_REFER))
		add_loss(rp,
			 xstrdup("renaming or linking files across "
				 "directories (always denied on this kernel, "
				 "stricter than the policy)"),
			 abi_needs[2], false, LAYERS_NONE);
	if (abi < 3)
		add_loss(rp,
			 xstrdup("truncate(2) of files outside writable "
				 "roots"),
			 abi_needs[3], true, LAYERS_TRUNCATE);
	if (abi < 4 && filtered)
		add_loss(rp,
			 xstrdup("TCP bind/connect port rules (every TCP "
				 "port would be reachable)"),
			 abi_needs[4], true, LAYERS_TCP_PORTS);
	if (abi < 4 && none)
		add_loss(rp, xstrdup(none_tcp_loss), abi_needs[4], false,
			 LAYERS_NONE);
	if (abi < 5)
		add_loss(rp,
			 xstrdup("ioctl(2) on device files (TIOCSTI and "
				 "TIOCLINUX stay denied by seccomp)"),
			 abi_needs[5], false, LAYERS_NONE);
	if (abi < 6) {
		if (in->unix_sockets)
			add_loss(rp,
				 xstrdup("isolation from abstract unix sockets "
					 "outside the sandbox (session D-Bus, "
					 "X11)"),
				 abi_needs[6], true, LAYERS_ABSTRACT_UNIX);
		add_loss(rp, xstrdup(signal_loss), abi_needs[6], true,
			 LAYERS_SIGNALS);
	}
	if (abi < 9 && in->unix_sockets)
		add_loss(rp,
			 xstrdup("denial of pathname unix sockets outside the "
				 "sandbox (docker, ssh-agent, D-Bus system "
				 "bus)"),
			 abi_needs[9], true, LAYERS_PATH_UNIX);
	if (abi < 10 && filtered &&
	    (has_ports(&in->connect_udp) || has_ports(&in->bind_udp)))
		add_loss(rp,
			 xstrdup("UDP port rules for connect-udp and bind-udp "
				 "(every UDP port would be reachable)"),
			 abi_needs[10], true, LAYERS_UDP_PORTS);
}

/* The plan, or with rules false its losses alone (no fs or net rules). */
static struct ruleset_plan *
plan_build(const struct ruleset_inputs *in, const struct plan *fs, int abi,
	   int err, bool rules)
{
	struct ruleset_plan *rp = xcalloc(1, sizeof(*rp));
	uint64_t fs_wanted = 0;
	size_t i;

	if (abi > LLW_LANDLOCK_ABI_MAX)
		abi = LLW_LANDLOCK_ABI_MAX;
	if (abi < 0)
		abi = 0;
	rp->abi = abi;

	if (abi == 0) {
		_cleanup_free_ char *why = unavailable_reason(err);

		add_loss(rp, xasprintf("Landlock unavailable: %s", why),
			 abi_needs[1], true, LAYERS_FS_ALLOWLIST);
		return rp;
	}

	rp->handled_fs = llw_fs_rights(abi);
	rp->scoped = llw_scopes(abi);
	if (in->net == RULESET_NET_FILTERED || in->net == RULESET_NET_NONE)
		rp->handled_net = llw_net_rights(abi);

	for (i = 0; fs != NULL && i < fs->n_rules; i++) {
		const struct plan_rule *r = &fs->rules[i];
		uint64_t a = r->access & rp->handled_fs;

		fs_wanted |= r->access;
		if (rules && a != 0)
			add_fs_rule(rp, r->path, a, r->origin, r->punched);
	}

	/*
	 * The unix allow-list: with RESOLVE_UNIX handled, a connect() to a
	 * pathname socket created outside the sandbox needs a rule on it.
	 */
	if (rules && (rp->handled_fs & LLW_FS_RESOLVE_UNIX))
		for (i = 0; i < in->unix_paths.n; i++)
			add_fs_rule(rp, in->unix_paths.v[i].value,
				    LLW_FS_RESOLVE_UNIX,
				    in->unix_paths.v[i].origin, false);

	/* net = none handles every network right and grants none. */
	if (rules && in->net == RULESET_NET_FILTERED && rp->handled_net != 0)
		plan_net_rules(rp, in);

	plan_losses(rp, in, fs_wanted);
	return rp;
}

void
ruleset_plan_cover(struct ruleset_plan *rp, enum layers_restriction r)
{
	for (size_t i = 0; i < rp->n_losses;) {
		if (rp->losses[i].restriction != r || r == LAYERS_NONE) {
			i++;
			continue;
		}
		free(rp->losses[i].what);
		free(rp->losses[i].needs);
		memmove(&rp->losses[i], &rp->losses[i + 1],
			(rp->n_losses - i - 1) * sizeof(*rp->losses));
		rp->n_losses--;
	}
}

static void
drop_loss(struct ruleset_plan *rp, const char *what)
{
	for (size_t i = 0; i < rp->n_losses; i++) {
		if (strcmp(rp->losses[i].what, what) != 0)
			continue;
		free(rp->losses[i].what);
		free(rp->losses[i].needs);
		memmove(&rp->losses[i], &rp->losses[i + 1],
			(rp->n_losses - i - 1) * sizeof(*rp->losses));
		rp->n_losses--;
		return;
	}
}

void
ruleset_plan_ns_covers(struct ruleset_plan *rp, bool pid, bool net)
{
	if (pid)
		ruleset_plan_cover(rp, LAYERS_SIGNALS);
	if (net) {
		/*
		 * net = none in a private network namespace: the namespace
		 * holds only lo and only the sandbox's own processes, so
		 * every TCP or UDP endpoint the command can reach is its
		 * own.  Handling TCP with no rule would only break that
		 * loopback traffic (test suites, language servers), which
		 * DESIGN.md §6 promises works, and would add nothing.
		 */
		rp->handled_net = 0;
		for (size_t i = 0; i < rp->n_net_rules; i++)
			free(rp->net_rules[i].origin);
		free(rp->net_rules);
		rp->net_rules = NULL;
		rp->n_net_rules = 0;
		drop_loss(rp, none_tcp_loss);
	}
}

struct ruleset_plan *
ruleset_plan_new(const struct ruleset_inputs *in, const struct plan *fs,
		 int abi)
{
	return plan_build(in, fs, abi, 0, true);
}

struct ruleset_plan *
ruleset_plan_new_probed(const struct ruleset_inputs *in, const struct plan *fs,
			const struct ruleset_kernel *k)
{
	return plan_build(in, fs, k->abi, k->err, true);
}

struct ruleset_plan *
ruleset_plan_losses(const struct ruleset_inputs *in, const struct plan *fs,
		    const struct ruleset_kernel *k)
{
	return plan_build(in, fs, k->abi, k->err, false);
}

void
ruleset_plan_free(struct ruleset_plan *rp)
{
	size_t i;

	if (rp == NULL)
		return;
	for (i = 0; i < rp->n_fs_rules; i++) {
		free(rp->fs_rules[i].path);
		free(rp->fs_rules[i].origin);
	}
	free(rp->fs_rules);
	for (i = 0; i < rp->n_net_rules; i++)
		free(rp->net_rules[i].origin);
	free(rp->net_rules);
	for (i = 0; i < rp->n_losses; i++) {
		free(rp->losses[i].what);
		free(rp->losses[i].needs);
	}
	free(rp->losses);
	free(rp);
}

bool
ruleset_plan_must_fail(const struct ruleset_plan *rp, bool best_effort)
{
	size_t i;

	if (best_effort)
		return false;
	for (i = 0; i < rp->n_losses; i++)
		if (rp->losses[i].fatal)
			return true;
	return false;
}

/* A hint for the errno of a Landlock system call, or "". */
static const char *
errno_hint(int err)
{
	switch (err) {
	case ENOSYS:
		return " (Landlock is not built into this kernel: "
		       "CONFIG_SECURITY_LANDLOCK)";
	case EOPNOTSUPP:
		return " (Landlock is disabled at boot: add landlock to the "
		       "lsm= kernel parameter)";
	default:
		return "";
	}
}

/*
 * The descriptors of the rules, closed RUN_MAX at a time (the descriptor
 * limit): each open gets the lowest free number, so they are mostly
 * consecutive, and one close_range closes each stretch of consecutive
 * ones (open and add remain of a rule's system calls: 1,000 rules make
 * about 1,000 fewer).  Only descriptors opened here are in a stretch.
 */
#define RUN_MAX 64

struct fdrun {
	int fd[RUN_MAX];
	size_t n;
};

static void
fdrun_close(struct fdrun *run)
{
	size_t i = 0, j;

	while (i < run->n) {
		for (j = i; j + 1 < run->n && run->fd[j + 1] == run->fd[j] + 1;
		     j++)
			;
		if (syscall(SYS_close_range, run->fd[i], run->fd[j], 0) < 0)
			for (size_t k = i; k <= j; k++)
				close(run->fd[k]);
		i = j + 1;
	}
	run->n = 0;
}

static void
fdrun_add(struct fdrun *run, int fd)
{
	if (run->n == RUN_MAX)
		fdrun_close(run);
	run->fd[run->n++] = fd;
}

/*
 * The directory of the rules being added, open O_PATH, and its path (a
 * prefix of len bytes of a rule's path).  The plan's rules come sorted
 * (pathtree), so siblings are neighbours: a rule followed by DIR_MIN - 1
 * siblings opens their directory once, and each opens its last
 * component relative to it, where an open would otherwise walk the whole
 * path again.  Fewer siblings, or a directory just under "/" (/dev,
 * /etc: one component to walk again), would not pay for the directory's
 * open and close.
 */
#define DIR_MIN 8

struct ruleset_dir {
	int fd;
	const char *path;
	size_t len;
};

/* Whether path's parent directory is the len bytes of dir. */
static bool
in_dir(const char *path, const char *dir, size_t len)
{
	return strncmp(path, dir, len) == 0 && path[len] == '/' &&
	       path[len + 1] != '\0' && strchr(path + len + 1, '/') == NULL;
}

/*
 * open(rules[i].path, flags), relative to d where it lies in it; d
 * follows the rules (n of them), run holds their descriptors.  A
 * relative open that fails is retried whole, so a failure reports what
 * open(path) says.
 */
static int
rule_open(struct ruleset_dir *d, struct fdrun *run,
	  const struct plan_rule *rules, size_t i, size_t n, int flags)
{
	const char *path = rules[i].path;
	const char *slash = strrchr(path, '/');
	size_t len = slash != NULL ? (size_t)(slash - path) : 0, k;
	char dir[PATH_MAX];
	int fd;

	if (d->fd >= 0 && !in_dir(path, d->path, d->len)) {
		close(d->fd);
		d->fd = -1;
	}
	if (d->fd < 0 && len > 0 && len < sizeof(dir) && i + DIR_MIN <= n &&
	    memchr(path + 1, '/', len - 1) != NULL && in_dir(path, path, len)) {
		for (k = 1; k < DIR_MIN && in_dir(rules[i + k].path, path, len);
		     k++)
			;
		if (k == DIR_MIN) {
			memcpy(dir, path, len);
			dir[len] = '\0';
			/* Below the rules' descriptors, not among them: one
			 * amid a stretch would split each close_range. */
			fdrun_close(run);
			d->fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
			d->path = path;
			d->len = len;
		}
	}
	if (d->fd >= 0 && (fd = openat(d->fd, slash + 1, flags)) >= 0)
		return fd;
	return open(path, flags);
}

/*
 * Add the rule for r.  Every Landlock rule is a grant, so a path that has
 * vanished since planning (ENOENT) has nothing to grant and is skipped:
 * the command cannot reach what is not there, and a later creation under
 * a parent it may not write is denied by the parent's rules.  Any other
 * failure is an error naming the path.
 *
 * The plan gives a non-directory file rights only, so a rule with other
 * rights was planned on a directory: it is opened with O_DIRECTORY, which
 * checks that with no fstat() (one system call less per rule, 1 ms for
 * 1,000 rules).  One replaced by a file since planning gets file rights,
 * the only ones valid on it.
 */
static int
add_path(int rfd, const struct ruleset_plan *rp, size_t i, int held,
	 struct ruleset_dir *d, struct fdrun *run, char **cause)
{
	const struct plan_rule *r = &rp->fs_rules[i];
	struct llw_path_beneath_attr pb = { .allowed_access = r->access };
	bool dir = (r->access & ~LLW_FS_FILE_RIGHTS) != 0;
	int err, fd;

	fd = rule_open(d, run, rp->fs_rules, i, rp->n_fs_rules,
		       O_PATH | O_CLOEXEC | (dir ? O_DIRECTORY : 0));
	if (fd < 0 && dir && errno == ENOTDIR) {
		pb.allowed_access &= LLW_FS_FILE_RIGHTS;
		fd = open(r->path, O_PATH | O_CLOEXEC);
	}
	/* Refused here, opened before (ruleset_hold()). */
	if (fd < 0 && (errno == EACCES || errno == EPERM) && held >= 0) {
		struct stat st;

		fd = fcntl(held, F_DUPFD_CLOEXEC, 3);
		if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
			pb.allowed_access &= LLW_FS_FILE_RIGHTS;
	}
	if (fd < 0) {
		err = errno;
		if (err == ENOENT)
			return 0;
		*cause = xasprintf("Landlock: cannot open %s for its rule: %s",
				   r->path, strerror(err));
		return -err;
	}
	fdrun_add(run, fd);
	if (pb.allowed_access == 0)
		return 0;
	pb.parent_fd = fd;

	if (sys_landlock_add_rule(rfd, LLW_RULE_PATH_BENEATH, &pb, 0) < 0) {
		err = errno;
		*cause = xasprintf("Landlock: adding the rule for %s (from %s) "
				   "failed: %s%s",
				   r->path, r->origin, strerror(err),
				   errno_hint(err));
		return -err;
	}
	return 0;
}

/* The descriptors ruleset_hold() leaves free beneath the limit of open
 * files: ruleset_create()'s own (RUN_MAX and a directory) and the rest
 * of the run's. */
#define HOLD_SPARE 256

int *
ruleset_hold(const struct ruleset_plan *rp)
{
	int *held = xcalloc(rp->n_fs_rules ? rp->n_fs_rules : 1, sizeof(int));
	struct rlimit rl;
	rlim_t top = RLIM_INFINITY;
	size_t i;

	/* Descriptors are numbered lowest free first: one at top or above
	 * is one of the last HOLD_SPARE, given back, and the rest are not
	 * held (ruleset_create() opens them itself). */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		top = rl.rlim_cur > HOLD_SPARE ? rl.rlim_cur - HOLD_SPARE : 0;
	for (i = 0; i < rp->n_fs_rules; i++) {
		held[i] = open(rp->fs_rules[i].path, O_PATH | O_CLOEXEC);
		if (held[i] >= 0 && (rlim_t)held[i] >= top) {
			close(held[i]);
			break;
		}
		if (held[i] < 0 && (errno == EMFILE || errno == ENFILE))
			break;
	}
	for (; i < rp->n_fs_rules; i++)
		held[i] = -1;
	return held;
}

void
ruleset_hold_free(const struct ruleset_plan *rp, int *held)
{
	for (size_t i = 0; held != NULL && i < rp->n_fs_rules; i++)
		if (held[i] >= 0)
			close(held[i]);
	free(held);
}

int
ruleset_create(const struct ruleset_plan *rp, const int *held, int *out,
	       char **cause)
{
	struct llw_ruleset_attr attr = { 0 };
	struct fdrun run = { .n = 0 };
	struct ruleset_dir d = { .fd = -1 };
	_cleanup_close_ int rfd = -1;
	size_t i;
	int err, r = 0;

	if (rp->abi < 1) {
		*cause = xstrdup("Landlock: this kernel does not provide it, "
				 "so there is no ruleset to apply");
		return -EOPNOTSUPP;
	}

	attr.handled_access_fs = rp->handled_fs;
	attr.handled_access_net = rp->handled_net;
	attr.scoped = rp->scoped;
	rfd = sys_landlock_create_ruleset(&attr, llw_ruleset_attr_size(rp->abi),
					  0);
	if (rfd < 0) {
		err = errno;
		*cause = xasprintf("Landlock: landlock_create_ruleset (ABI %d) "
				   "failed: %s%s",
				   rp->abi, strerror(err), errno_hint(err));
		return -err;
	}

	for (i = 0; i < rp->n_fs_rules; i++) {
		r = add_path(rfd, rp, i, held ? held[i] : -1, &d, &run, cause);
		if (r < 0)
			break;
	}
	fdrun_close(&run);
	if (d.fd >= 0)
		close(d.fd);
	if (r < 0)
		return r;

	for (i = 0; i < rp->n_net_rules; i++) {
		struct llw_net_port_attr np = {
			.allowed_access = rp->net_rules[i].access,
			.port = rp->net_rules[i].port,
		};

		if (sys_landlock_add_rule(rfd, LLW_RULE_NET_PORT, &np, 0) < 0) {
			err = errno;
			*cause = xasprintf("Landlock: adding the rule for port "
					   "%llu (from %s) failed: %s%s",
					   (unsigned long long)np.port,
					   rp->net_rules[i].origin,
					   strerror(err), errno_hint(err));
			return -err;
		}
	}
	*out = steal_fd(&rfd);
	return 0;
}

int
ruleset_restrict_flags(int abi, long threads, uint32_t *flags, char **cause)
{
	*flags = 0;
	if (threads == 1)
		return 0;
	if (abi >= 8) {
		*flags = LLW_RESTRICT_SELF_TSYNC;
		return 0;
	}
	if (threads <= 0)
		return 0; /* llwrap restricts a single-threaded child */
	*cause = xasprintf("Landlock: this process has %ld threads, and "
			   "Landlock ABI %d restricts only the calling one "
			   "(restricting them all needs ABI 8, Linux 7.0)",
			   threads, abi);
	return -EBUSY;
}

long
ruleset_threads(void)
{
	struct stat st;

	/* procfs counts a process's threads in its task directory's links
	 * (two, and one a thread): a stat, where /proc/self/status would be
	 * formatted whole, tens of microseconds in every start-up. */
	if (stat("/proc/self/task", &st) < 0)
		return -errno;
	return st.st_nlink > 2 ? (long)st.st_nlink - 2 : -ENOENT;
}

int
ruleset_restrict(int rfd, int abi, char **cause)
{
	uint32_t flags;
	int err, r;

	/* The child that execs the command is single-threaded: TSYNC only
	 * where that ever stops being true. */
	if ((r = ruleset_restrict_flags(abi, ruleset_threads(), &flags,
					cause)) < 0)
		return r;
	if (sys_landlock_restrict_self(rfd, flags) < 0) {
		err = errno;
		*cause = xasprintf("Landlock: landlock_restrict_self failed: "
				   "%s%s",
				   strerror(err),
				   err == EPERM ? " (no_new_privs is not set)"
						: errno_hint(err));
		return -err;
	}
	return 0;
}

int
ruleset_apply(const struct ruleset_plan *rp, char **cause)
{
	_cleanup_close_ int rfd = -1;
	int r;

	if ((r = ruleset_create(rp, NULL, &rfd, cause)) < 0)
		return r;
	return ruleset_restrict(rfd, rp->abi, cause);
}

int
ruleset_confine_helper(const char *const *paths, size_t n,
		       enum ruleset_helper_net net, bool *applied, char **cause)
{
	struct ruleset_kernel k;
	struct ruleset_plan rp = { 0 };
	_cleanup_free_ struct plan_rule *rules = NULL;
	_cleanup_close_ int rfd = -1;
	int r;
	__typeof__(*rp.net_rules) dns = { .port = 53,
					  .access = LLW_NET_CONNECT_TCP,
					  .origin =
						  (char *)"llwrap's resolver" };

	*applied = false;
	/* First, and with or without Landlock: nothing the helper runs or
	 * maps gains privilege. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		r = -errno;
		*cause = xasprintf("cannot set no_new_privs: %s", strerror(-r));
		return r;
	}
	ruleset_probe(&k);
	if (k.abi < 1)
		return 0;
	rules = xcalloc(n + 1, sizeof(*rules));
	for (size_t i = 0; i < n; i++) {
		rules[i].path = (char *)paths[i];
		rules[i].access = LLW_FS_READ_FILE | LLW_FS_READ_DIR;
		rules[i].origin = (char *)"llwrap's helper";
	}
	rp.abi = k.abi;
	/* The proxy connects to a pathname socket (syslog's /dev/log):
	 * RESOLVE_UNIX is not handled there. */
	rp.handled_fs = llw_fs_rights(k.abi);
	if (net == RULESET_HELPER_NET_ANY)
		rp.handled_fs &= ~LLW_FS_RESOLVE_UNIX;
	rp.scoped = llw_scopes(k.abi);
	rp.fs_rules = rules;
	rp.n_fs_rules = n;
	/* The resolver's host sockets: the resolvers' port 53 and nothing
	 * else (UDP is not handled: it answers its clients, in its own
	 * namespace, on their ports). */
	if (net == RULESET_HELPER_DNS) {
		rp.handled_net = llw_net_rights(k.abi) &
				 (LLW_NET_BIND_TCP | LLW_NET_CONNECT_TCP);
		if (rp.handled_net != 0) {
			rp.net_rules = &dns;
			rp.n_net_rules = 1;
		}
	}
	if ((r = ruleset_create(&rp, NULL, &rfd, cause)) < 0 ||
	    (r = ruleset_restrict(rfd, k.abi, cause)) < 0)
		return r;
	*applied = true;
	return 0;
}
