/*
 * Unit tests for src/ruleset.c: the per-ABI plan (pure) for every ABI from
 * 0 to 10, the descriptions of the probe, and one real ruleset applied in
 * a child process when the kernel has Landlock.
 *
 * Policies are built here with calloc, not policy_new(), so these tests
 * depend on nothing but the module under test.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cleanup.h"
#include "compat/landlock.h"
#include "planner.h"
#include "policy.h"
#include "ruleset.h"
#include "xalloc.h"

/* L1's inputs of p, as the planner gives them (one at a time). */
static const struct ruleset_inputs *
rin(const struct policy *p)
{
	static struct ruleset_inputs in;

	planner_ruleset_inputs(p, &in);
	return &in;
}

/* Rights the tests use for access levels (pathtree decides the real
 * ones; ruleset only masks them). */
#define RO (LLW_FS_READ_FILE | LLW_FS_READ_DIR)
#define RW                                                                     \
	(RO | LLW_FS_WRITE_FILE | LLW_FS_REMOVE_DIR | LLW_FS_REMOVE_FILE |     \
	 LLW_FS_MAKE_DIR | LLW_FS_MAKE_REG | LLW_FS_MAKE_SYM | LLW_FS_REFER |  \
	 LLW_FS_TRUNCATE)

/* Test-local policy helpers. */

static struct policy *
tpolicy_new(enum llw_net_mode net)
{
	struct policy *p = xcalloc(1, sizeof(*p));

	p->net = net;
	return p;
}

static void
ports_add(struct llw_ports *ps, uint16_t lo, uint16_t hi)
{
	ps->v = xreallocarray(ps->v, ps->n + 1, sizeof(*ps->v));
	ps->v[ps->n].lo = lo;
	ps->v[ps->n].hi = hi;
	ps->v[ps->n].origin = xasprintf("test.ini:%zu", ps->n + 1);
	ps->n++;
}

static void
ports_free(struct llw_ports *ps)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		free(ps->v[i].origin);
	free(ps->v);
}

static void
items_add(struct llw_items *it, const char *value)
{
	it->v = xreallocarray(it->v, it->n + 1, sizeof(*it->v));
	it->v[it->n].value = xstrdup(value);
	it->v[it->n].origin = xstrdup("test.ini:9");
	it->n++;
}

static void
items_free(struct llw_items *it)
{
	size_t i;

	for (i = 0; i < it->n; i++) {
		free(it->v[i].value);
		free(it->v[i].origin);
	}
	free(it->v);
}

static void
tpolicy_free(struct policy *p)
{
	ports_free(&p->connect_tcp);
	ports_free(&p->bind_tcp);
	ports_free(&p->connect_udp);
	ports_free(&p->bind_udp);
	items_free(&p->unix_paths);
	free(p);
}

/* A fixed filesystem plan: rw project, ro /usr, a device and a socket. */
static struct plan_rule fixed_rules[] = {
	{ "/home/u/project", RW, "cli", false },
	{ "/usr", RO | LLW_FS_EXECUTE, "default.ini:3", false },
	{ "/dev/tty", LLW_FS_IOCTL_DEV | LLW_FS_READ_FILE, "default.ini:4",
	  false },
	{ "/run/only-ioctl", LLW_FS_IOCTL_DEV, "default.ini:5", true },
	{ "/run/only-unix", LLW_FS_RESOLVE_UNIX, "default.ini:6", false },
};

static const struct plan fixed_plan = {
	.rules = fixed_rules,
	.n_rules = ARRAY_SIZE(fixed_rules),
};

/* Attribute sizes. */

static void
test_attr_size(void **state)
{
	static const size_t want[] = { 0,  8,  8,  8,  16, 16,
				       24, 24, 24, 24, 48, 48 };
	int abi;

	(void)state;
	for (abi = 0; abi < (int)ARRAY_SIZE(want); abi++)
		assert_int_equal(llw_ruleset_attr_size(abi), want[abi]);
	assert_int_equal(llw_ruleset_attr_size(-1), 0);
	assert_int_equal(sizeof(struct llw_ruleset_attr), 48);
}

/* Handled masks per ABI. */

static const struct {
	int abi;
	uint64_t fs, net, scoped;
	uint32_t restrict_flags;
} masks[] = {
	{ 1, 0x1fff, 0x0, 0x0, 0x0 },	{ 2, 0x3fff, 0x0, 0x0, 0x0 },
	{ 3, 0x7fff, 0x0, 0x0, 0x0 },	{ 4, 0x7fff, 0x3, 0x0, 0x0 },
	{ 5, 0xffff, 0x3, 0x0, 0x0 },	{ 6, 0xffff, 0x3, 0x3, 0x0 },
	{ 7, 0xffff, 0x3, 0x3, 0x7 },	{ 8, 0xffff, 0x3, 0x3, 0xf },
	{ 9, 0x1ffff, 0x3, 0x3, 0xf },	{ 10, 0x1ffff, 0xf, 0x3, 0xf },
	{ 11, 0x1ffff, 0xf, 0x3, 0xf },
};

static void
test_handled_masks(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(masks); i++) {
		static const enum llw_net_mode modes[] = { LLW_NET_FILTERED,
							   LLW_NET_NONE,
							   LLW_NET_HOST };
		size_t m;

		assert_int_equal(llw_fs_rights(masks[i].abi), masks[i].fs);
		assert_int_equal(llw_net_rights(masks[i].abi), masks[i].net);
		assert_int_equal(llw_scopes(masks[i].abi), masks[i].scoped);
		assert_int_equal(llw_restrict_self_flags(masks[i].abi),
				 masks[i].restrict_flags);

		for (m = 0; m < ARRAY_SIZE(modes); m++) {
			struct policy *p = tpolicy_new(modes[m]);
			struct ruleset_plan *rp = ruleset_plan_new(
				rin(p), &fixed_plan, masks[i].abi);

			assert_int_equal(rp->abi,
					 masks[i].abi > 10 ? 10 : masks[i].abi);
			assert_int_equal(rp->handled_fs, masks[i].fs);
			assert_int_equal(
				rp->handled_net,
				modes[m] == LLW_NET_HOST ? 0 : masks[i].net);
			assert_int_equal(rp->scoped, masks[i].scoped);
			ruleset_plan_free(rp);
			tpolicy_free(p);
		}
	}
	assert_int_equal(llw_fs_rights(0), 0);
	assert_int_equal(llw_net_rights(0), 0);
	assert_int_equal(llw_scopes(0), 0);
}

/* Rule masking: the fixed plan's rules after each ABI. */

static void
test_rule_masking(void **state)
{
	static const struct {
		int abi;
		size_t n;
		uint64_t project, dev_tty;
		bool ioctl_only, unix_only;
	} want[] = {
		{ 1, 3, RW & ~(LLW_FS_REFER | LLW_FS_TRUNCATE),
		  LLW_FS_READ_FILE, false, false },
		{ 2, 3, RW & ~LLW_FS_TRUNCATE, LLW_FS_READ_FILE, false, false },
		{ 3, 3, RW, LLW_FS_READ_FILE, false, false },
		{ 4, 3, RW, LLW_FS_READ_FILE, false, false },
		{ 5, 4, RW, LLW_FS_READ_FILE | LLW_FS_IOCTL_DEV, true, false },
		{ 8, 4, RW, LLW_FS_READ_FILE | LLW_FS_IOCTL_DEV, true, false },
		{ 9, 5, RW, LLW_FS_READ_FILE | LLW_FS_IOCTL_DEV, true, true },
		{ 10, 5, RW, LLW_FS_READ_FILE | LLW_FS_IOCTL_DEV, true, true },
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		struct policy *p = tpolicy_new(LLW_NET_HOST);
		struct ruleset_plan *rp =
			ruleset_plan_new(rin(p), &fixed_plan, want[i].abi);
		bool saw_ioctl = false, saw_unix = false;

		assert_int_equal(rp->n_fs_rules, want[i].n);
		assert_string_equal(rp->fs_rules[0].path, "/home/u/project");
		assert_int_equal(rp->fs_rules[0].access, want[i].project);
		assert_string_equal(rp->fs_rules[0].origin, "cli");
		assert_string_equal(rp->fs_rules[1].path, "/usr");
		assert_int_equal(rp->fs_rules[1].access, RO | LLW_FS_EXECUTE);
		assert_string_equal(rp->fs_rules[2].path, "/dev/tty");
		assert_int_equal(rp->fs_rules[2].access, want[i].dev_tty);
		for (j = 0; j < rp->n_fs_rules; j++) {
			assert_int_equal(
				rp->fs_rules[j].access & ~rp->handled_fs, 0);
			assert_int_not_equal(rp->fs_rules[j].access, 0);
			if (strcmp(rp->fs_rules[j].path, "/run/only-ioctl") ==
			    0) {
				saw_ioctl = true;
				assert_true(rp->fs_rules[j].punched);
			}
			if (strcmp(rp->fs_rules[j].path, "/run/only-unix") == 0)
				saw_unix = true;
		}
		assert_int_equal(saw_ioctl, want[i].ioctl_only);
		assert_int_equal(saw_unix, want[i].unix_only);
		assert_int_equal(rp->n_net_rules, 0);
		ruleset_plan_free(rp);
		tpolicy_free(p);
	}
}

/* Losses. */

enum loss_id {
	L_END = 0,
	L_REFER,
	L_TRUNC,
	L_TCP,
	L_TCP_NONE,
	L_IOCTL,
	L_ABSTRACT,
	L_SIGNAL,
	L_PATHUNIX,
	L_UDP,
};

static const struct {
	const char *what; /* a substring of the loss's what */
	const char *needs;
	bool fatal;
} loss_def[] = {
	[L_REFER] = { "across directories", "Landlock ABI 2 (Linux 5.19)",
		      false },
	[L_TRUNC] = { "truncate(2) of files outside writable roots",
		      "Landlock ABI 3 (Linux 6.2)", true },
	[L_TCP] = { "every TCP port", "Landlock ABI 4 (Linux 6.7)", true },
	[L_TCP_NONE] = { "seccomp denies inet sockets",
			 "Landlock ABI 4 (Linux 6.7)", false },
	[L_IOCTL] = { "ioctl(2) on device files", "Landlock ABI 5 (Linux 6.10)",
		      false },
	[L_ABSTRACT] = { "abstract unix sockets", "Landlock ABI 6 (Linux 6.12)",
			 true },
	[L_SIGNAL] = { "signalling processes outside",
		       "Landlock ABI 6 (Linux 6.12)", true },
	[L_PATHUNIX] = { "pathname unix sockets", "Landlock ABI 9 (Linux 7.1)",
			 true },
	[L_UDP] = { "every UDP port", "Landlock ABI 10 (Linux 7.2)", true },
};

#define MAX_LOSSES 9

static const struct {
	int abi;
	enum llw_net_mode net;
	bool tcp, udp, unix_sockets;
	enum loss_id want[MAX_LOSSES];
} loss_cases[] = {
	{ 1,
	  LLW_NET_FILTERED,
	  true,
	  true,
	  false,
	  { L_REFER, L_TRUNC, L_TCP, L_IOCTL, L_SIGNAL, L_UDP } },
	{ 2,
	  LLW_NET_FILTERED,
	  true,
	  true,
	  false,
	  { L_TRUNC, L_TCP, L_IOCTL, L_SIGNAL, L_UDP } },
	{ 3,
	  LLW_NET_FILTERED,
	  true,
	  true,
	  false,
	  { L_TCP, L_IOCTL, L_SIGNAL, L_UDP } },
	{ 4,
	  LLW_NET_FILTERED,
	  true,
	  true,
	  false,
	  { L_IOCTL, L_SIGNAL, L_UDP } },
	{ 5, LLW_NET_FILTERED, true, true, false, { L_SIGNAL, L_UDP } },
	{ 6, LLW_NET_FILTERED, true, true, false, { L_UDP } },
	{ 7, LLW_NET_FILTERED, true, true, false, { L_UDP } },
	{ 8, LLW_NET_FILTERED, true, true, false, { L_UDP } },
	{ 9, LLW_NET_FILTERED, true, true, false, { L_UDP } },
	{ 10, LLW_NET_FILTERED, true, true, false, { L_END } },
	/* No UDP port listed: seccomp denies UDP sockets, nothing lost. */
	{ 4, LLW_NET_FILTERED, true, false, false, { L_IOCTL, L_SIGNAL } },
	{ 9, LLW_NET_FILTERED, false, false, false, { L_END } },
	/* Unix sockets allowed: the scopes and RESOLVE_UNIX matter. */
	{ 1,
	  LLW_NET_FILTERED,
	  false,
	  false,
	  true,
	  { L_REFER, L_TRUNC, L_TCP, L_IOCTL, L_ABSTRACT, L_SIGNAL,
	    L_PATHUNIX } },
	{ 5,
	  LLW_NET_HOST,
	  false,
	  false,
	  true,
	  { L_ABSTRACT, L_SIGNAL, L_PATHUNIX } },
	{ 6, LLW_NET_HOST, false, false, true, { L_PATHUNIX } },
	{ 8, LLW_NET_FILTERED, true, true, true, { L_PATHUNIX, L_UDP } },
	{ 9, LLW_NET_FILTERED, true, false, true, { L_END } },
	/* net = none: seccomp covers TCP, UDP lists are not used. */
	{ 3,
	  LLW_NET_NONE,
	  true,
	  true,
	  false,
	  { L_TCP_NONE, L_IOCTL, L_SIGNAL } },
	{ 4, LLW_NET_NONE, true, true, false, { L_IOCTL, L_SIGNAL } },
	{ 9, LLW_NET_NONE, false, true, false, { L_END } },
	/* net = host: no network restriction to lose. */
	{ 3, LLW_NET_HOST, true, true, false, { L_IOCTL, L_SIGNAL } },
	{ 7, LLW_NET_HOST, true, true, false, { L_END } },
};

static struct policy *
loss_policy(size_t i)
{
	struct policy *p = tpolicy_new(loss_cases[i].net);

	if (loss_cases[i].tcp) {
		ports_add(&p->connect_tcp, 443, 443);
		ports_add(&p->bind_tcp, 0, 0);
	}
	if (loss_cases[i].udp)
		ports_add(&p->connect_udp, 53, 53);
	p->unix_sockets = loss_cases[i].unix_sockets;
	return p;
}

static void
test_losses(void **state)
{
	size_t i, j, n;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(loss_cases); i++) {
		struct policy *p = loss_policy(i);
		struct ruleset_plan *rp = ruleset_plan_new(rin(p), &fixed_plan,
							   loss_cases[i].abi);
		bool any_fatal = false;

		for (n = 0; n < MAX_LOSSES && loss_cases[i].want[n] != L_END;
		     n++)
			;
		if (rp->n_losses != n) {
			for (j = 0; j < rp->n_losses; j++)
				print_message("case %zu: %s (needs %s)\n", i,
					      rp->losses[j].what,
					      rp->losses[j].needs);
		}
		assert_int_equal(rp->n_losses, n);
		for (j = 0; j < n; j++) {
			enum loss_id id = loss_cases[i].want[j];

			if (strstr(rp->losses[j].what, loss_def[id].what) ==
			    NULL)
				print_message("case %zu loss %zu: %s\n", i, j,
					      rp->losses[j].what);
			assert_non_null(
				strstr(rp->losses[j].what, loss_def[id].what));
			assert_string_equal(rp->losses[j].needs,
					    loss_def[id].needs);
			assert_int_equal(rp->losses[j].fatal,
					 loss_def[id].fatal);
			any_fatal |= loss_def[id].fatal;
		}

		assert_int_equal(ruleset_plan_must_fail(rp, p->best_effort),
				 any_fatal);
		p->best_effort = true;
		assert_false(ruleset_plan_must_fail(rp, p->best_effort));

		ruleset_plan_free(rp);
		tpolicy_free(p);
	}
}

/*
 * ruleset_plan_losses() is the full plan's losses and handled rights
 * without its rules, for every loss case, with a port range as wide as
 * the agent profiles' (one rule per port in the full plan).
 */
static void
test_losses_only(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(loss_cases); i++) {
		struct policy *p = loss_policy(i);
		struct ruleset_kernel k = { loss_cases[i].abi, 0, 0 };
		struct ruleset_plan *full, *lo;

		ports_add(&p->bind_tcp, 1024, 65535);
		full = ruleset_plan_new_probed(rin(p), &fixed_plan, &k);
		lo = ruleset_plan_losses(rin(p), &fixed_plan, &k);
		assert_int_equal(lo->abi, full->abi);
		assert_int_equal(lo->handled_fs, full->handled_fs);
		assert_int_equal(lo->handled_net, full->handled_net);
		assert_int_equal(lo->scoped, full->scoped);
		assert_int_equal(lo->n_fs_rules, 0);
		assert_int_equal(lo->n_net_rules, 0);
		if (loss_cases[i].net == LLW_NET_FILTERED &&
		    full->handled_net != 0)
			assert_true(full->n_net_rules >= 64512);
		assert_int_equal(lo->n_losses, full->n_losses);
		for (size_t j = 0; j < lo->n_losses; j++) {
			assert_string_equal(lo->losses[j].what,
					    full->losses[j].what);
			assert_string_equal(lo->losses[j].needs,
					    full->losses[j].needs);
			assert_int_equal(lo->losses[j].fatal,
					 full->losses[j].fatal);
			assert_int_equal(lo->losses[j].restriction,
					 full->losses[j].restriction);
		}
		ruleset_plan_free(full);
		ruleset_plan_free(lo);
		tpolicy_free(p);
	}
}

/* REFER is reported on ABI 1 only when some rule grants it. */
static void
test_refer_only_when_granted(void **state)
{
	static struct plan_rule ro_rules[] = {
		{ "/usr", RO, "default.ini:3", false },
	};
	static const struct plan ro_plan = { .rules = ro_rules, .n_rules = 1 };
	struct policy *p = tpolicy_new(LLW_NET_HOST);
	struct ruleset_plan *rp = ruleset_plan_new(rin(p), &ro_plan, 1);
	size_t i;

	(void)state;
	for (i = 0; i < rp->n_losses; i++)
		assert_null(strstr(rp->losses[i].what, "across directories"));
	ruleset_plan_free(rp);

	/* A NULL filesystem plan is an empty one. */
	rp = ruleset_plan_new(rin(p), NULL, 7);
	assert_int_equal(rp->n_fs_rules, 0);
	assert_int_equal(rp->n_losses, 0);
	ruleset_plan_free(rp);
	tpolicy_free(p);
}

/* ABI 0: one fatal loss that says why. */
static void
test_abi0(void **state)
{
	static const struct {
		int err;
		const char *why;
	} cases[] = {
		{ 0, "Landlock unavailable: this kernel does not provide" },
		{ ENOSYS, "Landlock unavailable: Landlock is not built into "
			  "this kernel (CONFIG_SECURITY_LANDLOCK)" },
		{ EOPNOTSUPP, "Landlock unavailable: Landlock is built in but "
			      "disabled at boot: add landlock to the lsm= "
			      "kernel parameter" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct ruleset_kernel k = { 0, cases[i].err, 0 };
		struct policy *p = tpolicy_new(LLW_NET_FILTERED);
		struct ruleset_plan *rp;
		char *cause = NULL;

		ports_add(&p->connect_tcp, 443, 443);
		p->unix_sockets = true;
		rp = ruleset_plan_new_probed(rin(p), &fixed_plan, &k);
		assert_int_equal(rp->abi, 0);
		assert_int_equal(rp->handled_fs, 0);
		assert_int_equal(rp->handled_net, 0);
		assert_int_equal(rp->scoped, 0);
		assert_int_equal(rp->n_fs_rules, 0);
		assert_int_equal(rp->n_net_rules, 0);
		assert_int_equal(rp->n_losses, 1);
		assert_non_null(strstr(rp->losses[0].what, cases[i].why));
		assert_string_equal(rp->losses[0].needs,
				    "Landlock ABI 1 (Linux 5.13)");
		assert_true(rp->losses[0].fatal);
		assert_true(ruleset_plan_must_fail(rp, p->best_effort));
		p->best_effort = true;
		assert_false(ruleset_plan_must_fail(rp, p->best_effort));

		/* Nothing to apply: an error, never a silent success. */
		assert_int_equal(ruleset_apply(rp, &cause), -EOPNOTSUPP);
		assert_non_null(cause);
		free(cause);
		ruleset_plan_free(rp);
		tpolicy_free(p);
	}
}

/* Net rules: ranges expanded, lists merged, port order. */

struct want_port {
	uint64_t port, access;
};

static void
check_net(const struct ruleset_plan *rp, const struct want_port *w, size_t n)
{
	size_t i;

	assert_int_equal(rp->n_net_rules, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(rp->net_rules[i].port, w[i].port);
		assert_int_equal(rp->net_rules[i].access, w[i].access);
		assert_non_null(rp->net_rules[i].origin);
		assert_int_equal(rp->net_rules[i].access & ~rp->handled_net, 0);
	}
}

static struct policy *
net_policy(enum llw_net_mode mode)
{
	struct policy *p = tpolicy_new(mode);

	ports_add(&p->connect_tcp, 443, 443);
	ports_add(&p->connect_tcp, 8000, 8002);
	ports_add(&p->bind_tcp, 0, 0);
	ports_add(&p->bind_tcp, 443, 443);
	ports_add(&p->connect_udp, 53, 53);
	ports_add(&p->bind_udp, 5353, 5353);
	return p;
}

static void
test_net_rules(void **state)
{
	static const struct want_port tcp[] = {
		{ 0, LLW_NET_BIND_TCP },
		{ 443, LLW_NET_BIND_TCP | LLW_NET_CONNECT_TCP },
		{ 8000, LLW_NET_CONNECT_TCP },
		{ 8001, LLW_NET_CONNECT_TCP },
		{ 8002, LLW_NET_CONNECT_TCP },
	};
	static const struct want_port tcp_udp[] = {
		{ 0, LLW_NET_BIND_TCP | LLW_NET_BIND_UDP },
		{ 53, LLW_NET_CONNECT_SEND_UDP },
		{ 443, LLW_NET_BIND_TCP | LLW_NET_CONNECT_TCP },
		{ 5353, LLW_NET_BIND_UDP },
		{ 8000, LLW_NET_CONNECT_TCP },
		{ 8001, LLW_NET_CONNECT_TCP },
		{ 8002, LLW_NET_CONNECT_TCP },
	};
	struct policy *p;
	struct ruleset_plan *rp;
	int abi;

	(void)state;
	p = net_policy(LLW_NET_FILTERED);
	for (abi = 1; abi <= 10; abi++) {
		rp = ruleset_plan_new(rin(p), &fixed_plan, abi);
		if (abi < 4)
			check_net(rp, NULL, 0);
		else if (abi < 10)
			check_net(rp, tcp, ARRAY_SIZE(tcp));
		else
			check_net(rp, tcp_udp, ARRAY_SIZE(tcp_udp));
		/* Port 443 is named by connect-tcp first, then bind-tcp. */
		if (abi >= 4)
			assert_string_equal(
				rp->net_rules[abi < 10 ? 1 : 2].origin,
				"test.ini:1");
		ruleset_plan_free(rp);
	}
	tpolicy_free(p);

	/* none: every right handled, no rule granted. */
	p = net_policy(LLW_NET_NONE);
	for (abi = 4; abi <= 10; abi++) {
		rp = ruleset_plan_new(rin(p), &fixed_plan, abi);
		assert_int_equal(rp->handled_net, llw_net_rights(abi));
		check_net(rp, NULL, 0);
		ruleset_plan_free(rp);
	}
	tpolicy_free(p);

	/* host: nothing handled, no rule. */
	p = net_policy(LLW_NET_HOST);
	rp = ruleset_plan_new(rin(p), &fixed_plan, 10);
	assert_int_equal(rp->handled_net, 0);
	check_net(rp, NULL, 0);
	ruleset_plan_free(rp);
	tpolicy_free(p);

	/* The whole range, and overlapping ranges merge. */
	p = tpolicy_new(LLW_NET_FILTERED);
	ports_add(&p->connect_tcp, 1, 65535);
	ports_add(&p->connect_tcp, 65000, 65535);
	ports_add(&p->bind_tcp, 65535, 65535);
	rp = ruleset_plan_new(rin(p), &fixed_plan, 4);
	assert_int_equal(rp->n_net_rules, 65535);
	assert_int_equal(rp->net_rules[0].port, 1);
	assert_int_equal(rp->net_rules[65534].port, 65535);
	assert_int_equal(rp->net_rules[65534].access,
			 LLW_NET_CONNECT_TCP | LLW_NET_BIND_TCP);
	assert_string_equal(rp->net_rules[65534].origin, "test.ini:1");
	ruleset_plan_free(rp);
	tpolicy_free(p);
}

/*
 * A DNS client alone (connect-udp 53, no bind-udp, no TCP): from ABI 10
 * the autobind of its socket is the BIND_UDP of port 0, granted with
 * the send; before, no UDP rule at all (seccomp decides).
 */
static void
test_net_rules_udp_client(void **state)
{
	static const struct want_port dns[] = {
		{ 0, LLW_NET_BIND_UDP },
		{ 53, LLW_NET_CONNECT_SEND_UDP },
	};
	struct policy *p = tpolicy_new(LLW_NET_FILTERED);
	struct ruleset_plan *rp;

	(void)state;
	ports_add(&p->connect_udp, 53, 53);
	for (int abi = 1; abi <= 11; abi++) {
		rp = ruleset_plan_new(rin(p), &fixed_plan, abi);
		if (abi < 10) {
			assert_int_equal(rp->handled_net & LLW_NET_BIND_UDP, 0);
			check_net(rp, NULL, 0);
		} else {
			assert_true(rp->handled_net & LLW_NET_BIND_UDP);
			check_net(rp, dns, ARRAY_SIZE(dns));
			assert_string_equal(rp->net_rules[0].origin,
					    "test.ini:1");
		}
		ruleset_plan_free(rp);
	}
	tpolicy_free(p);
}

/*
 * Random overlapping ranges against a port-by-port model: rights merged,
 * ports in order, the origin of the first range (in list order) naming
 * each port.
 */
static void
test_net_rules_model(void **state)
{
	struct llw_ports *lists[4];
	static const uint64_t bits[4] = { LLW_NET_CONNECT_TCP, LLW_NET_BIND_TCP,
					  LLW_NET_CONNECT_SEND_UDP,
					  LLW_NET_BIND_UDP };
	uint64_t *acc = xcalloc(65536, sizeof(*acc));
	const char **origin = xcalloc(65536, sizeof(*origin));
	unsigned seed = 1;
	int round;

	(void)state;
	for (round = 0; round < 200; round++) {
		struct policy *p = tpolicy_new(LLW_NET_FILTERED);
		struct ruleset_plan *rp;
		size_t l, i, k = 0;
		uint32_t port;

		lists[0] = &p->connect_tcp;
		lists[1] = &p->bind_tcp;
		lists[2] = &p->connect_udp;
		lists[3] = &p->bind_udp;
		for (l = 0; l < 4; l++) {
			size_t n = rand_r(&seed) % 5;

			for (i = 0; i < n; i++) {
				/* Mostly narrow ranges near each other. */
				uint16_t lo = rand_r(&seed) % 64 +
					      (rand_r(&seed) % 3) * 30000;
				uint16_t hi = lo + rand_r(&seed) % 40;

				ports_add(lists[l], lo, hi);
				free(lists[l]->v[i].origin);
				lists[l]->v[i].origin =
					xasprintf("list%zu:%zu", l, i);
			}
		}
		memset(acc, 0, 65536 * sizeof(*acc));
		memset(origin, 0, 65536 * sizeof(*origin));
		for (l = 0; l < 4; l++)
			for (i = 0; i < lists[l]->n; i++)
				for (port = lists[l]->v[i].lo;
				     port <= lists[l]->v[i].hi; port++) {
					acc[port] |= bits[l];
					if (origin[port] == NULL)
						origin[port] =
							lists[l]->v[i].origin;
				}
		if (p->connect_udp.n > 0) {
			acc[0] |= LLW_NET_BIND_UDP;
			if (origin[0] == NULL)
				origin[0] = p->connect_udp.v[0].origin;
		}

		rp = ruleset_plan_new(rin(p), &fixed_plan, 10);
		for (port = 0; port < 65536; port++) {
			if (acc[port] == 0)
				continue;
			assert_true(k < rp->n_net_rules);
			assert_int_equal(rp->net_rules[k].port, port);
			assert_int_equal(rp->net_rules[k].access, acc[port]);
			assert_string_equal(rp->net_rules[k].origin,
					    origin[port]);
			k++;
		}
		assert_int_equal(k, rp->n_net_rules);
		ruleset_plan_free(rp);
		tpolicy_free(p);
	}
	free(acc);
	free(origin);
}

/* What L3 covers: the signal-scope loss with a pid namespace; every
 * network right, and the TCP loss, with net = none in its own netns. */
static void
test_ns_covers(void **state)
{
	struct policy *p = tpolicy_new(LLW_NET_NONE);
	struct ruleset_plan *rp;

	(void)state;
	rp = ruleset_plan_new(rin(p), &fixed_plan, 2);
	assert_true(ruleset_plan_must_fail(rp, p->best_effort));
	ruleset_plan_ns_covers(rp, true, true);
	assert_int_equal(rp->handled_net, 0);
	for (size_t i = 0; i < rp->n_losses; i++) {
		assert_null(strstr(rp->losses[i].what, "signalling"));
		assert_null(strstr(rp->losses[i].what, "TCP port rules"));
	}
	/* truncate (below ABI 3) is still lost, and still fatal. */
	assert_true(ruleset_plan_must_fail(rp, p->best_effort));
	ruleset_plan_free(rp);

	rp = ruleset_plan_new(rin(p), &fixed_plan, 5);
	assert_true(ruleset_plan_must_fail(rp, p->best_effort));
	ruleset_plan_ns_covers(rp, true, false);
	assert_false(ruleset_plan_must_fail(rp, p->best_effort));
	assert_int_equal(rp->handled_net, llw_net_rights(5));
	ruleset_plan_free(rp);

	rp = ruleset_plan_new(rin(p), &fixed_plan, 7);
	ruleset_plan_ns_covers(rp, false, true);
	assert_int_equal(rp->handled_net, 0);
	assert_int_equal(rp->n_net_rules, 0);
	ruleset_plan_free(rp);
	tpolicy_free(p);
}

/* The unix allow-list becomes RESOLVE_UNIX rules from ABI 9 on. */
static void
test_unix_paths(void **state)
{
	struct policy *p = tpolicy_new(LLW_NET_FILTERED);
	struct ruleset_plan *rp;
	int abi;

	(void)state;
	items_add(&p->unix_paths, "/run/postgresql/.s.PGSQL.5432");
	for (abi = 1; abi <= 10; abi++) {
		size_t n_plain;

		rp = ruleset_plan_new(rin(p), &fixed_plan, abi);
		n_plain = abi < 5 ? 3 : abi < 9 ? 4 : 5;
		if (abi < 9) {
			assert_int_equal(rp->n_fs_rules, n_plain);
			assert_int_equal(rp->handled_fs & LLW_FS_RESOLVE_UNIX,
					 0);
		} else {
			const struct plan_rule *r =
				&rp->fs_rules[rp->n_fs_rules - 1];

			assert_int_equal(rp->n_fs_rules, n_plain + 1);
			assert_int_equal(rp->handled_fs & LLW_FS_RESOLVE_UNIX,
					 LLW_FS_RESOLVE_UNIX);
			/* Never in a broad rule (no access level of a path
			 * rule carries it): only on each allowed socket. */
			for (enum llw_access a = LLW_ACCESS_DENY;
			     a <= LLW_ACCESS_RWX; a++)
				assert_int_equal(pathtree_access_bits(a) &
							 LLW_FS_RESOLVE_UNIX,
						 0);
			assert_string_equal(r->path,
					    "/run/postgresql/.s.PGSQL.5432");
			assert_int_equal(r->access, LLW_FS_RESOLVE_UNIX);
			assert_string_equal(r->origin, "test.ini:9");
		}
		ruleset_plan_free(rp);
	}
	tpolicy_free(p);
}

/* An ABI newer than this build is planned as the newest it knows. */
static void
test_abi_clamp(void **state)
{
	struct policy *p = tpolicy_new(LLW_NET_FILTERED);
	struct ruleset_plan *rp = ruleset_plan_new(rin(p), &fixed_plan, 12);

	(void)state;
	assert_int_equal(rp->abi, LLW_LANDLOCK_ABI_MAX);
	assert_int_equal(rp->handled_fs, llw_fs_rights(LLW_LANDLOCK_ABI_MAX));
	assert_int_equal(rp->n_losses, 0);
	ruleset_plan_free(rp);
	tpolicy_free(p);
}

/* Probe and its description. */

static void
test_describe(void **state)
{
	static const struct {
		struct ruleset_kernel k;
		const char *want;
	} cases[] = {
		{ { 7, 0, 0x7 }, "Landlock ABI 7, errata 0x7" },
		{ { 10, 0, 0x1f }, "Landlock ABI 10, errata 0x1f" },
		{ { 5, 0, 0 }, "Landlock ABI 5" },
		{ { 1, 0, 0 }, "Landlock ABI 1" },
		{ { 12, 0, 0x3 },
		  "Landlock ABI 12, errata 0x3 (llwrap uses up to ABI 10)" },
		{ { 0, ENOSYS, 0 },
		  "Landlock is not built into this kernel "
		  "(CONFIG_SECURITY_LANDLOCK)" },
		{ { 0, EOPNOTSUPP, 0 },
		  "Landlock is built in but disabled at boot: add landlock to "
		  "the lsm= kernel parameter" },
		{ { 0, EPERM, 0 },
		  "the Landlock probe failed: Operation not permitted" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *s = ruleset_describe(&cases[i].k);

		assert_string_equal(s, cases[i].want);
		free(s);
	}
}

static void
test_probe(void **state)
{
	struct ruleset_kernel k = { -1, -1, ~0ULL };
	char *s;

	(void)state;
	ruleset_probe(&k);
	if (k.abi == 0) {
		assert_true(k.err == ENOSYS || k.err == EOPNOTSUPP);
	} else {
		assert_true(k.abi >= 1);
		assert_int_equal(k.err, 0);
		if (k.abi < 7)
			assert_int_equal(k.errata, 0);
	}
	s = ruleset_describe(&k);
	assert_non_null(s);
	print_message("# %s\n", s);
	free(s);
}

/*
 * landlock_restrict_self()'s flags: TSYNC (ABI 8) wherever the process
 * may have another thread; refused where it has one and the kernel can
 * restrict only the caller.
 */
static void
test_restrict_flags(void **state)
{
	static const struct {
		int abi;
		long threads;
		int r;
		uint32_t flags;
	} t[] = {
		{ 1, 1, 0, 0 },
		{ 7, 1, 0, 0 },
		{ 8, 1, 0, 0 },
		{ 10, 1, 0, 0 },
		{ 8, 2, 0, LLW_RESTRICT_SELF_TSYNC },
		{ 9, 40, 0, LLW_RESTRICT_SELF_TSYNC },
		{ 10, 3, 0, LLW_RESTRICT_SELF_TSYNC },
		/* Not known: TSYNC where it exists, costs nothing alone. */
		{ 8, -ENOENT, 0, LLW_RESTRICT_SELF_TSYNC },
		{ 7, -ENOENT, 0, 0 },
		{ 7, 2, -EBUSY, 0 },
		{ 1, 5, -EBUSY, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		char *cause = NULL;
		uint32_t flags = 0xdead;
		int r = ruleset_restrict_flags(t[i].abi, t[i].threads, &flags,
					       &cause);

		if (r != t[i].r || flags != t[i].flags)
			fail_msg("ABI %d, %ld threads: got %d flags %#x",
				 t[i].abi, t[i].threads, r, flags);
		if (r < 0) {
			assert_non_null(strstr(cause, "threads"));
			assert_non_null(strstr(cause, "ABI 8"));
		} else {
			assert_null(cause);
		}
		free(cause);
	}
}

/* A real ruleset, in a child: read-only on a temporary directory. */

enum child_status {
	CHILD_OK = 0,
	CHILD_APPLY_FAILED = 10,
	CHILD_READ_FAILED,
	CHILD_WRITE_ALLOWED,
	CHILD_WRITE_WRONG_ERRNO,
	CHILD_CREATE_ALLOWED,
	CHILD_CREATE_WRONG_ERRNO,
	CHILD_OUTSIDE_ALLOWED,
	CHILD_NNP_FAILED,
	CHILD_LIST_FAILED,
};

static int
child_run(const struct ruleset_plan *rp, const char *dir, const char *file)
{
	char *cause = NULL;
	_cleanup_free_ char *newfile = xasprintf("%s/new", dir);
	int fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return CHILD_NNP_FAILED;
	if (ruleset_apply(rp, &cause) < 0) {
		fprintf(stderr, "# %s\n", cause);
		free(cause);
		return CHILD_APPLY_FAILED;
	}

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return CHILD_READ_FAILED;
	close(fd);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return CHILD_LIST_FAILED;
	close(fd);

	fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd >= 0)
		return CHILD_WRITE_ALLOWED;
	if (errno != EACCES)
		return CHILD_WRITE_WRONG_ERRNO;

	fd = open(newfile, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		return CHILD_CREATE_ALLOWED;
	if (errno != EACCES)
		return CHILD_CREATE_WRONG_ERRNO;

	/* Outside every rule: denied too. */
	fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return CHILD_OUTSIDE_ALLOWED;
	return CHILD_OK;
}

static void
test_apply_real(void **state)
{
	struct ruleset_kernel k;
	char dir[] = "/tmp/llw-test-ruleset-XXXXXX";
	_cleanup_free_ char *file = NULL;
	_cleanup_free_ char *gone = NULL;
	struct plan_rule rules[3];
	struct plan fs = { 0 };
	struct policy *p;
	struct ruleset_plan *rp;
	pid_t pid;
	int fd, status;

	(void)state;
	ruleset_probe(&k);
	if (k.abi < 1) {
		char *why = ruleset_describe(&k);

		print_message("# SKIP real ruleset: %s\n", why);
		free(why);
		skip();
	}

	assert_non_null(mkdtemp(dir));
	file = xasprintf("%s/file", dir);
	gone = xasprintf("%s/vanished", dir);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);

	/* ro on the directory; a directory-only right on the file itself
	 * (must be masked to file rights, or the kernel says EINVAL); a
	 * rule on a path that does not exist (skipped). */
	rules[0] = (struct plan_rule){ dir, RO, "test", false };
	rules[1] = (struct plan_rule){ file, RO, "test", false };
	rules[2] = (struct plan_rule){ gone, RO, "test", false };
	fs.rules = rules;
	fs.n_rules = ARRAY_SIZE(rules);

	p = tpolicy_new(LLW_NET_HOST);
	rp = ruleset_plan_new_probed(rin(p), &fs, &k);

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child_run(rp, dir, file));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), CHILD_OK);

	/* The parent is untouched. */
	fd = open(file, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	close(fd);

	ruleset_plan_free(rp);
	tpolicy_free(p);
	assert_int_equal(unlink(file), 0);
	assert_int_equal(rmdir(dir), 0);
}

/*
 * A process with a second thread: ruleset_apply restricts both (TSYNC,
 * ABI 8), or refuses where Landlock would restrict the caller alone.
 */
struct other_thread {
	int go[2], done[2];
	const char *file;
};

static void *
other_thread_run(void *arg)
{
	struct other_thread *o = arg;
	char b;
	int fd, err = 0;

	if (read(o->go[0], &b, 1) != 1)
		return NULL;
	fd = open(o->file, O_WRONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	else
		err = errno;
	b = (char)err;
	(void)write(o->done[1], &b, 1);
	return NULL;
}

enum {
	THREADS_OK = 0,
	THREADS_SETUP = 20,
	THREADS_COUNT,
	THREADS_APPLY,
	THREADS_NOT_REFUSED,
	THREADS_OTHER_FREE,
};

static int
threads_child(const struct ruleset_plan *rp, const char *file)
{
	struct other_thread o = { .file = file };
	char *cause = NULL;
	pthread_t t;
	char b = 'g';
	int r;

	if (ruleset_threads() != 1)
		return THREADS_COUNT;
	if (pipe(o.go) < 0 || pipe(o.done) < 0 ||
	    pthread_create(&t, NULL, other_thread_run, &o) != 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return THREADS_SETUP;
	if (ruleset_threads() != 2)
		return THREADS_COUNT;
	r = ruleset_apply(rp, &cause);
	if (rp->abi < 8) {
		/* Refused before any restriction: the other thread is as
		 * free as the caller, and the caller says why. */
		if (r != -EBUSY || strstr(cause, "2 threads") == NULL)
			return THREADS_NOT_REFUSED;
		free(cause);
		return THREADS_OK;
	}
	if (r < 0) {
		fprintf(stderr, "# %s\n", cause);
		return THREADS_APPLY;
	}
	if (write(o.go[1], &b, 1) != 1 || read(o.done[0], &b, 1) != 1)
		return THREADS_SETUP;
	return b == EACCES ? THREADS_OK : THREADS_OTHER_FREE;
}

static void
test_apply_threads(void **state)
{
	struct ruleset_kernel k;
	char dir[] = "/tmp/llw-test-threads-XXXXXX";
	_cleanup_free_ char *file = NULL;
	struct plan_rule rules[1];
	struct plan fs = { 0 };
	struct policy *p;
	struct ruleset_plan *rp;
	pid_t pid;
	int fd, status;

	(void)state;
	ruleset_probe(&k);
	if (k.abi < 1) {
		char *why = ruleset_describe(&k);

		print_message("# SKIP threads: %s\n", why);
		free(why);
		skip();
	}
	assert_non_null(mkdtemp(dir));
	file = xasprintf("%s/file", dir);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	rules[0] = (struct plan_rule){ dir, RO, "test", false };
	fs.rules = rules;
	fs.n_rules = ARRAY_SIZE(rules);
	p = tpolicy_new(LLW_NET_HOST);
	rp = ruleset_plan_new_probed(rin(p), &fs, &k);
	print_message("# ABI %d: %s\n", rp->abi,
		      rp->abi < 8 ? "refused (no TSYNC)"
				  : "both threads restricted (TSYNC)");

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(threads_child(rp, file));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), THREADS_OK);

	ruleset_plan_free(rp);
	tpolicy_free(p);
	assert_int_equal(unlink(file), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* A rule whose path cannot be opened for a reason other than ENOENT. */
/* How many descriptors this process has open. */
static int
open_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/*
 * ruleset_create closes its rules' descriptors a stretch at a time
 * (close_range): every one it opened is closed, more than a batch of
 * them, and no descriptor of the caller's, including one that splits
 * their numbers (holes they filled below it, the rest above it).
 */
static void
test_create_closes_rule_fds(void **state)
{
	enum { N = 150 };
	struct ruleset_kernel k;
	struct plan_rule rules[N];
	struct plan fs = { .rules = rules, .n_rules = N };
	char dir[] = "/tmp/llw-rules.XXXXXX";
	char *paths[N];
	struct policy *p;
	struct ruleset_plan *rp;
	char *cause = NULL;
	int a, hole, b, rfd = -1, before;

	(void)state;
	ruleset_probe(&k);
	if (k.abi < 1) {
		print_message("# SKIP: no Landlock\n");
		skip();
	}
	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < N; i++) {
		paths[i] = xasprintf("%s/d%03d", dir, i);
		assert_int_equal(mkdir(paths[i], 0700), 0);
		rules[i] = (struct plan_rule){ paths[i], RO, (char *)"test:1",
					       false };
	}
	/* a, two holes, b: the ruleset takes the first hole, the rules'
	 * first descriptor the second, the next ones go above b. */
	a = open("/dev/null", O_RDONLY | O_CLOEXEC);
	hole = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_int_equal(open("/dev/null", O_RDONLY | O_CLOEXEC), a + 2);
	b = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(a >= 0 && hole == a + 1 && b == a + 3);
	close(hole);
	close(a + 2);
	before = open_fds();
	p = tpolicy_new(LLW_NET_HOST);
	rp = ruleset_plan_new(rin(p), &fs, k.abi);
	assert_int_equal(ruleset_create(rp, NULL, &rfd, &cause), 0);
	assert_true(rfd >= 0);
	/* The ruleset alone is new; a and b are still open. */
	assert_int_equal(open_fds(), before + 1);
	assert_true(fcntl(a, F_GETFD) >= 0);
	assert_true(fcntl(b, F_GETFD) >= 0);
	close(rfd);
	close(a);
	close(b);
	ruleset_plan_free(rp);
	tpolicy_free(p);
	for (int i = 0; i < N; i++) {
		rmdir(paths[i]);
		free(paths[i]);
	}
	rmdir(dir);
}

/* rp applied in a child fails with err, its cause naming needle. */
static void
assert_apply_fails(const struct ruleset_plan *rp, int err, const char *needle)
{
	pid_t pid;
	int status;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *cause = NULL;
		int r;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			_exit(2);
		r = ruleset_apply(rp, &cause);
		if (r != err || cause == NULL || strstr(cause, needle) == NULL)
			_exit(1);
		free(cause);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void
test_apply_error_names_path(void **state)
{
	struct ruleset_kernel k;
	/* ENOTDIR: a file used as a directory. */
	struct plan_rule rules[1] = {
		{ (char *)"/etc/passwd/x", RO, (char *)"test:1", false },
	};
	struct plan fs = { .rules = rules, .n_rules = 1 };
	struct policy *p;
	struct ruleset_plan *rp;

	(void)state;
	ruleset_probe(&k);
	if (k.abi < 1) {
		print_message("# SKIP: no Landlock\n");
		skip();
	}
	p = tpolicy_new(LLW_NET_HOST);
	rp = ruleset_plan_new(rin(p), &fs, k.abi);
	assert_apply_fails(rp, -ENOTDIR, "/etc/passwd/x");
	ruleset_plan_free(rp);
	tpolicy_free(p);
}

/*
 * Rules in one directory are opened relative to it (ruleset_create): each
 * grants its own path, in either of two directories and after a vanished
 * sibling, and nothing beside them; a sibling that cannot be opened still
 * fails the run with its path and errno.
 */
static void
test_apply_siblings(void **state)
{
	static const char *const made[] = { "a",   "a/f", "a/x", "a/y", "b",
					    "b/x", "b/y", "c",	 "c/x" };
	struct ruleset_kernel k;
	char dir[] = "/tmp/llw-siblings.XXXXXX";
	char *path[ARRAY_SIZE(made)];
	_cleanup_free_ char *gone = NULL;
	_cleanup_free_ char *bad1 = NULL;
	_cleanup_free_ char *bad2 = NULL;
	struct plan_rule rules[6];
	struct plan fs = { .rules = rules, .n_rules = ARRAY_SIZE(rules) };
	struct policy *p;
	struct ruleset_plan *rp;
	pid_t pid;
	int fd, status;

	(void)state;
	ruleset_probe(&k);
	if (k.abi < 1) {
		print_message("# SKIP: no Landlock\n");
		skip();
	}
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < ARRAY_SIZE(made); i++) {
		path[i] = xasprintf("%s/%s", dir, made[i]);
		if (strcmp(made[i], "a/f") == 0) {
			fd = open(path[i],
				  O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
				  0600);
			assert_true(fd >= 0);
			close(fd);
		} else {
			assert_int_equal(mkdir(path[i], 0700), 0);
		}
	}
	gone = xasprintf("%s/a/gone", dir);
	/* In plan order: a/f, a/gone, a/x, a/y, b/x, b/y. */
	rules[0] = (struct plan_rule){ path[1], RO, (char *)"t:1", false };
	rules[1] = (struct plan_rule){ gone, RO, (char *)"t:2", false };
	rules[2] = (struct plan_rule){ path[2], RO, (char *)"t:3", false };
	rules[3] = (struct plan_rule){ path[3], RO, (char *)"t:4", false };
	rules[4] = (struct plan_rule){ path[5], RO, (char *)"t:5", false };
	rules[5] = (struct plan_rule){ path[6], RO, (char *)"t:6", false };
	p = tpolicy_new(LLW_NET_HOST);
	rp = ruleset_plan_new(rin(p), &fs, k.abi);

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *cause = NULL;
		int code = 0;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    ruleset_apply(rp, &cause) < 0)
			_exit(10);
		/* Granted: a/f (a file), a/x, a/y, b/x, b/y. */
		for (size_t i = 1; i < ARRAY_SIZE(made); i++) {
			bool granted = i != 4 && i != 7 && i != 8;

			fd = open(path[i], O_RDONLY | O_CLOEXEC);
			if (granted && fd < 0)
				code = 20 + (int)i;
			if (!granted && (fd >= 0 || errno != EACCES))
				code = 40 + (int)i;
			if (fd >= 0)
				close(fd);
		}
		/* Their parents are not. */
		fd = open(path[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0 || errno != EACCES)
			code = 60;
		_exit(code);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	ruleset_plan_free(rp);

	/* Two rules under a file: the directory they share cannot be opened,
	 * and the first one's error is the run's. */
	bad1 = xasprintf("%s/x", path[1]);
	bad2 = xasprintf("%s/y", path[1]);
	rules[0] = (struct plan_rule){ path[2], RO, (char *)"t:1", false };
	rules[1] = (struct plan_rule){ bad1, RO, (char *)"t:2", false };
	rules[2] = (struct plan_rule){ bad2, RO, (char *)"t:3", false };
	fs.n_rules = 3;
	rp = ruleset_plan_new(rin(p), &fs, k.abi);
	assert_apply_fails(rp, -ENOTDIR, bad1);
	ruleset_plan_free(rp);
	tpolicy_free(p);
	assert_int_equal(unlink(path[1]), 0);
	for (size_t i = ARRAY_SIZE(made); i-- > 0;) {
		if (i != 1)
			assert_int_equal(rmdir(path[i]), 0);
		free(path[i]);
	}
	assert_int_equal(rmdir(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attr_size),
		cmocka_unit_test(test_handled_masks),
		cmocka_unit_test(test_rule_masking),
		cmocka_unit_test(test_losses),
		cmocka_unit_test(test_losses_only),
		cmocka_unit_test(test_refer_only_when_granted),
		cmocka_unit_test(test_abi0),
		cmocka_unit_test(test_net_rules),
		cmocka_unit_test(test_net_rules_model),
		cmocka_unit_test(test_net_rules_udp_client),
		cmocka_unit_test(test_unix_paths),
		cmocka_unit_test(test_abi_clamp),
		cmocka_unit_test(test_ns_covers),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_apply_real),
		cmocka_unit_test(test_restrict_flags),
		cmocka_unit_test(test_apply_threads),
		cmocka_unit_test(test_apply_error_names_path),
		cmocka_unit_test(test_create_closes_rule_fds),
		cmocka_unit_test(test_apply_siblings),
	};

	return cmocka_run_group_tests_name("ruleset", tests, NULL, NULL);
}
