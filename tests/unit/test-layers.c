/*
 * Unit tests for src/layers.c: layer substitution (DESIGN.md §14), every
 * restriction on simulated kernels, and the restriction each Landlock
 * loss carries (src/ruleset.c), so the substitution is decided here for
 * the kernels this machine does not run.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleanup.h"
#include "layers.h"
#include "planner.h"
#include "policy.h"
#include "ruleset.h"
#include "strv.h"
#include "xalloc.h"

/* L1's inputs of p, as the planner gives them (one at a time). */
static const struct ruleset_inputs *
rin(const struct policy *p)
{
	static struct ruleset_inputs in;

	planner_ruleset_inputs(p, &in);
	return &in;
}

/* Kernels of the matrix (tests/kernels), as facts. */
enum {
	K_NEW,		/* 6.18: ABI 7, userns, supervisor */
	K_DEB12,	/* Debian 12 6.1: ABI 2, userns, supervisor */
	K_ABI1,		/* 5.13-5.18: ABI 1 */
	K_ABI3,		/* 6.2-6.6: ABI 3 */
	K_ABI10,	/* 7.2: ABI 10 */
	K_NOLL_BWRAP,	/* no landlock in lsm=: the bubblewrap backend */
	K_DEB12_NOUSR,	/* 6.1 with user namespaces off */
	K_DEB12_YAMA2,	/* 6.1 with Yama ptrace_scope 2 or 3: no supervisor */
	K_ABI3_NONE,	/* ABI 3, neither userns nor supervisor */
	K_NOLL,		/* no Landlock and no bubblewrap: nothing */
	K_YAMA2_NOPORT, /* 6.1, Yama 2, a policy allowing no port at all */
	K_PODMAN,	/* 6.18 in rootless podman: a new /proc refused */
	K_DOCKER,	/* 6.18 in Docker: no userns, no supervisor */
	K_N,
};

static const struct layers_facts facts[K_N] = {
	[K_NEW] = { .abi = 7, .userns = true, .supervisor = true },
	[K_DEB12] = { .abi = 2, .userns = true, .supervisor = true },
	[K_ABI1] = { .abi = 1, .userns = true, .supervisor = true },
	[K_ABI3] = { .abi = 3, .userns = true, .supervisor = true },
	[K_ABI10] = { .abi = 10, .userns = true, .supervisor = true },
	[K_NOLL_BWRAP] = { .abi = 0,
			   .userns = true,
			   .supervisor = true,
			   .bwrap = true },
	[K_DEB12_NOUSR] = { .abi = 2, .userns = false, .supervisor = true },
	[K_DEB12_YAMA2] = { .abi = 2, .userns = true, .supervisor = false },
	[K_ABI3_NONE] = { .abi = 3 },
	[K_NOLL] = { .abi = 0, .userns = true, .supervisor = true },
	[K_YAMA2_NOPORT] = { .abi = 2, .userns = true, .portless = true },
	[K_PODMAN] = { .abi = 7,
		       .userns = true,
		       .supervisor = true,
		       .newproc_refused = true,
		       .pidns_nested = true },
	[K_DOCKER] = { .abi = 7, .pidns_nested = true },
};

#define N  LAYER_NONE
#define L1 LAYER_L1
#define L2 LAYER_L2
#define L3 LAYER_L3
#define S  LAYER_S
#define F  LAYER_F
#define C  LAYER_C
#define M  LAYER_M

/* want[restriction][kernel]: the layer chosen, LAYER_NONE: refused. */
static const enum layers_id want[LAYERS_N][K_N] = {
	/* NEW DEB12 ABI1 ABI3 ABI10 NOLL+F NOUSR YAMA2 ABI3- NOLL YAMA2-NOPORT
	 * PODMAN DOCKER */
	[LAYERS_FS_ALLOWLIST] = { L1, L1, L1, L1, L1, F, L1, L1, L1, N, L1, L1,
				  L1 },
	[LAYERS_TRUNCATE] = { L1, L3, L3, L1, L1, F, N, L3, L1, L3, L3, L1,
			      L1 },
	[LAYERS_METADATA] = { L3, L3, L3, L3, L3, F, N, L3, N, L3, L3, L3, N },
	[LAYERS_MASKS] = { L3, L3, L3, L3, L3, F, N, L3, N, L3, L3, L3, N },
	[LAYERS_TCP_PORTS] = { L1, S, S, S, L1, N, S, N, N, S, L2, L1, L1 },
	[LAYERS_UDP_PORTS] = { S, S, S, S, L1, N, S, N, N, S, N, S, N },
	[LAYERS_PATH_UNIX] = { S, S, S, S, L1, N, S, N, N, S, N, S, N },
	[LAYERS_ABSTRACT_UNIX] = { L1, S, S, S, L1, N, S, N, N, S, N, L1, L1 },
	[LAYERS_SIGNALS] = { L1, L3, L3, L3, L1, F, N, L3, N, L3, L3, L1, L1 },
	[LAYERS_PROCESSES] = { L3, L3, L3, L3, L3, F, N, L3, N, L3, L3, C, C },
	[LAYERS_HELD] = { L3, L3, L3, L3, L3, F, M, L3, M, L3, L3, L3, M },
	[LAYERS_PRIVATE_TMP] = { L3, L3, L3, L3, L3, F, M, L3, M, L3, L3, L3,
				 M },
};

static void
test_table(void **state)
{
	(void)state;
	for (int r = 0; r < LAYERS_N; r++)
		for (int k = 0; k < K_N; k++) {
			enum layers_id got = layers_choose(r, &facts[k]);

			if (got != want[r][k])
				fail_msg("%s on kernel %d: got %s, want %s",
					 layers_restriction_name(r), k,
					 layers_short_name(got),
					 layers_short_name(want[r][k]));
		}
}

/* Every row has a name, an order and a way for each layer it picks. */
static void
test_names(void **state)
{
	(void)state;
	for (int r = 0; r < LAYERS_N; r++) {
		assert_true(strlen(layers_restriction_name(r)) > 10);
		assert_true(strlen(layers_order(r)) > 10);
		for (int k = 0; k < K_N; k++) {
			enum layers_id l = want[r][k];

			if (l != LAYER_NONE)
				assert_string_not_equal(layers_how(r, l),
							"no layer on this "
							"system");
		}
	}
	assert_int_equal(layers_choose(LAYERS_NONE, &facts[K_NEW]), LAYER_NONE);
	assert_string_equal(layers_short_name(LAYER_S), "S");
}

#define ALL	   ((1u << LAYERS_N) - 1)
#define BIT(r)	   (1u << (r))
#define NET_RULES  (BIT(LAYERS_TCP_PORTS) | BIT(LAYERS_UDP_PORTS))
#define UNIX_RULES (BIT(LAYERS_PATH_UNIX) | BIT(LAYERS_ABSTRACT_UNIX))

/*
 * The layer of every restriction once what runs is known: bubblewrap's
 * plan and its losses, the supervisor performing the network calls
 * there, L3's signals needing a pid namespace, and nothing for what is
 * not asked.
 */
static void
test_account(void **state)
{
	/* Automatic: rows copy the facts of the kernels above. */
	const struct {
		const char *name;
		struct layers_facts f;
		unsigned asked; /* BIT(restriction) */
		struct layers_run run;
		enum layers_id want[LAYERS_N];
	} t[] = {
		{ "bwrap, nothing lost",
		  { .userns = true, .bwrap = true },
		  ALL,
		  { .bwrap = true },
		  { F, F, F, F, F, F, F, F, F, F, F, F } },
		{ "bwrap losing the port rules and masks",
		  { .userns = true, .bwrap = true },
		  ALL,
		  { .bwrap = true,
		    .bwrap_loses = { [LAYERS_TCP_PORTS] = true,
				     [LAYERS_UDP_PORTS] = true,
				     [LAYERS_MASKS] = true } },
		  { F, F, F, N, N, N, F, F, F, F, F, F } },
		{ "bwrap with the supervisor",
		  { .userns = true, .supervisor = true, .bwrap = true },
		  ALL,
		  { .bwrap = true,
		    .bwrap_loses = { [LAYERS_TCP_PORTS] = true,
				     [LAYERS_UDP_PORTS] = true,
				     [LAYERS_PATH_UNIX] = true,
				     [LAYERS_ABSTRACT_UNIX] = true },
		    .supervisor = true },
		  { F, F, F, F, S, S, S, N, F, F, F, F } },
		{ "bwrap with the supervisor, no UDP rule and no mask",
		  { .userns = true, .supervisor = true, .bwrap = true },
		  ALL & ~BIT(LAYERS_UDP_PORTS) & ~BIT(LAYERS_MASKS),
		  { .bwrap = true, .supervisor = true },
		  { F, F, F, N, S, N, S, F, F, F, F, F } },
		{ "Debian 12, L3 without a pid namespace",
		  facts[K_DEB12],
		  ALL,
		  { .supervisor = true },
		  { L1, L3, L3, L3, S, S, S, S, N, N, L3, L3 } },
		{ "Debian 12, L3 with a pid namespace",
		  facts[K_DEB12],
		  ALL,
		  { .supervisor = true, .pid_ns = true },
		  { L1, L3, L3, L3, S, S, S, S, L3, L3, L3, L3 } },
		{ "6.18 without a pid namespace: Landlock's scope",
		  facts[K_NEW],
		  ALL,
		  { .supervisor = true },
		  { L1, L1, L3, L3, L1, S, S, L1, L1, N, L3, L3 } },
		{ "6.18, no network and no unix rule asked",
		  facts[K_NEW],
		  ALL & ~NET_RULES & ~UNIX_RULES,
		  { .supervisor = true },
		  { L1, L1, L3, L3, N, N, N, N, L1, N, L3, L3 } },
		{ "6.18, only the allow-list asked",
		  facts[K_NEW],
		  BIT(LAYERS_FS_ALLOWLIST),
		  { .supervisor = true },
		  { L1, N, N, N, N, N, N, N, N, N, N, N } },
		{ "rootless podman: a new /proc refused, the container's pid "
		  "namespace",
		  facts[K_PODMAN],
		  ALL,
		  { .supervisor = true },
		  { L1, L1, L3, L3, L1, S, S, L1, L1, C, L3, L3 } },
		{ "Docker: no L3, the container's pid namespace",
		  facts[K_DOCKER],
		  ALL & ~UNIX_RULES,
		  { 0 },
		  { L1, L1, N, N, L1, N, N, N, L1, C, M, M } },
		{ "a nested pid namespace where L3 makes none (a policy "
		  "without a new /proc)",
		  { .abi = 7, .userns = true, .pidns_nested = true },
		  BIT(LAYERS_PROCESSES),
		  { 0 },
		  { N, N, N, N, N, N, N, N, N, C, N, N } },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		bool asked[LAYERS_N];
		enum layers_id got[LAYERS_N];

		for (int r = 0; r < LAYERS_N; r++)
			asked[r] = (t[i].asked & BIT(r)) != 0;
		layers_account(asked, &t[i].f, &t[i].run, got);
		for (int r = 0; r < LAYERS_N; r++)
			if (got[r] != t[i].want[r])
				fail_msg("%s: %s: got %s, want %s", t[i].name,
					 layers_restriction_name(r),
					 layers_short_name(got[r]),
					 layers_short_name(t[i].want[r]));
	}
}

static bool
has_loss(const struct ruleset_plan *rp, enum layers_restriction r)
{
	for (size_t i = 0; i < rp->n_losses; i++)
		if (rp->losses[i].restriction == r)
			return true;
	return false;
}

/*
 * The Landlock plan tags each loss with its restriction, so sandbox.c
 * can hand it to another layer; losses no layer takes over carry
 * LAYERS_NONE and are never fatal except Landlock missing altogether.
 */
static void
test_losses_tagged(void **state)
{
	struct policy *p = policy_new();
	struct llw_port_range udp = { 53, 53, (char *)"t" };
	struct ruleset_plan *rp;

	(void)state;
	p->net = LLW_NET_FILTERED;
	p->unix_sockets = true;
	p->connect_udp.v = &udp;
	p->connect_udp.n = 1;

	rp = ruleset_plan_new(rin(p), NULL, 2);
	assert_true(has_loss(rp, LAYERS_TRUNCATE));
	assert_true(has_loss(rp, LAYERS_TCP_PORTS));
	assert_true(has_loss(rp, LAYERS_UDP_PORTS));
	assert_true(has_loss(rp, LAYERS_PATH_UNIX));
	assert_true(has_loss(rp, LAYERS_ABSTRACT_UNIX));
	assert_true(has_loss(rp, LAYERS_SIGNALS));
	for (size_t i = 0; i < rp->n_losses; i++)
		if (rp->losses[i].restriction == LAYERS_NONE)
			assert_false(rp->losses[i].fatal);
	assert_true(ruleset_plan_must_fail(rp, p->best_effort));
	/* Covering every substitutable restriction leaves nothing fatal. */
	for (int r = 0; r < LAYERS_N; r++)
		ruleset_plan_cover(rp, r);
	assert_false(ruleset_plan_must_fail(rp, p->best_effort));
	ruleset_plan_free(rp);

	rp = ruleset_plan_new(rin(p), NULL, 6);
	assert_false(has_loss(rp, LAYERS_TRUNCATE));
	assert_false(has_loss(rp, LAYERS_SIGNALS));
	assert_true(has_loss(rp, LAYERS_PATH_UNIX));
	ruleset_plan_free(rp);

	rp = ruleset_plan_new(rin(p), NULL, 0);
	assert_true(has_loss(rp, LAYERS_FS_ALLOWLIST));
	ruleset_plan_free(rp);

	p->connect_udp.v = NULL;
	p->connect_udp.n = 0;
	policy_free(p);
}

/* --check's AppArmor remedy, from the sysctl's text and what is there. */
static void
test_apparmor_fix(void **state)
{
	static const char shipped[] = "/usr/share/llwrap/apparmor/llwrap";
	char *s;

	(void)state;
	/* Nothing to fix: no AppArmor restriction, or namespaces work
	 * (the profile is loaded, or the sysctl is 0). */
	assert_null(
		layers_apparmor_fix(NULL, false, false, false, shipped, "/b"));
	assert_null(
		layers_apparmor_fix("0", false, false, false, shipped, "/b"));
	assert_null(
		layers_apparmor_fix("1", true, false, false, shipped, "/b"));
	/* Not installed: install and load the shipped copy. */
	s = layers_apparmor_fix("1", false, false, false, shipped, "/usr/bin");
	assert_non_null(strstr(s, "sudo install -m 644 "
				  "/usr/share/llwrap/apparmor/llwrap "
				  "/etc/apparmor.d/llwrap && sudo "
				  "apparmor_parser -r /etc/apparmor.d/llwrap"));
	assert_non_null(strstr(s, "/usr/bin/llwrap"));
	free(s);
	/* Installed but not in force: load it. */
	s = layers_apparmor_fix("1", false, true, false, shipped, "/usr/bin");
	assert_non_null(
		strstr(s, "'sudo apparmor_parser -r /etc/apparmor.d/llwrap'"));
	assert_null(strstr(s, "install -m"));
	free(s);
	/* NixOS generates /etc/apparmor.d from its configuration: the
	 * policy to add there, including the store's copy, not a copy
	 * into a read-only /etc. */
	s = layers_apparmor_fix("1", false, false, true,
				"/nix/store/x-llwrap/share/llwrap/apparmor/"
				"llwrap",
				"/nix/store/x-llwrap/bin");
	assert_non_null(strstr(
		s, "'security.apparmor.policies.llwrap.profile = \"include "
		   "\\\"/nix/store/x-llwrap/share/llwrap/apparmor/"
		   "llwrap\\\"\";'"));
	assert_non_null(strstr(s, "/nix/store/x-llwrap/bin/llwrap"));
	assert_null(strstr(s, "install -m"));
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_account),
		cmocka_unit_test(test_losses_tagged),
		cmocka_unit_test(test_apparmor_fix),
	};

	return cmocka_run_group_tests_name("layers", tests, NULL, NULL);
}
