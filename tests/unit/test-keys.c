/*
 * Unit tests for src/keys.c, the key table: its rows are whole, its
 * flags are the option table's, each key's tighten rule is what a
 * project's .llwrap.ini gets, and a flag gives the value its key gives
 * in a file.  (tests/unit/test-doc.c checks the manual against it.)
 */
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleanup.h"
#include "keys.h"
#include "options.h"
#include "policy.h"
#include "profile.h"
#include "strv.h"
#include "xalloc.h"

DEFINE_CLEANUP_FUNC(struct profile, profile_free)
DEFINE_CLEANUP_FUNC(struct vars, vars_free)
DEFINE_CLEANUP_FUNC(struct policy, policy_free)

static char *const test_env[] = { "HOME=/home/u", "USER=u", NULL };

static void
test_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < KEY_COUNT; i++) {
		const struct key *k = &keys_table[i];

		/* A row left out of the table would be all zeros. */
		if (k->section == NULL || k->name == NULL || k->help == NULL)
			fail_msg("row %zu is empty or has no help", i);
		assert_int_equal(k->id, i);
		assert_ptr_equal(keys_find(k->section, k->name), k);
		if ((k->type == KEY_T_CHOICE) != (k->choices != NULL))
			fail_msg("%s: choices for a choice, only", k->name);
		if ((k->tighten == KEY_TIGHTEN_ONLY) != (k->only != NULL))
			fail_msg("%s: only for the ONLY rule, only", k->name);
		if ((k->tighten == KEY_TIGHTEN_NEVER ||
		     k->tighten == KEY_TIGHTEN_ONLY) &&
		    k->why == NULL)
			fail_msg("%s: a refusal needs its reason", k->name);
		if (k->merge == KEY_MERGE_SOURCE &&
		    k->tighten != KEY_TIGHTEN_NEVER)
			fail_msg("%s: .llwrap.ini chooses no sources", k->name);
		for (size_t j = 0; j < i; j++)
			if (strcmp(keys_table[j].section, k->section) == 0 &&
			    strcmp(keys_table[j].name, k->name) == 0)
				fail_msg("%s twice", k->name);
	}
	assert_null(keys_find("network", "nope"));
	assert_null(keys_find("filesystem", "mode"));
	assert_string_equal(keys_section_of("connect-tcp"), "network");
	/* "profile" is a key in [match] only; "project" too. */
	assert_string_equal(keys_section_of("profile"), "match");
	assert_true(keys_section_known("limits"));
	assert_false(keys_section_known("limit"));
}

/*
 * Every flag of a key is an option of the option table, and every option
 * of the rule groups sets a key: the option table spells the flag and its
 * help, the key table what it sets.
 */
static void
test_flags(void **state)
{
	(void)state;
	for (size_t i = 0; i < KEY_COUNT; i++) {
		const struct key *k = &keys_table[i];
		const struct options_spec *o = NULL;

		if (k->flag == NULL)
			continue;
		for (size_t j = 0; j < options_n_specs; j++)
			if (strcmp(options_specs[j].name, k->flag) == 0)
				o = &options_specs[j];
		if (o == NULL)
			fail_msg("[%s] %s: no option --%s", k->section, k->name,
				 k->flag);
		assert_ptr_equal(keys_by_flag(k->flag), k);
		/* The key table has the flag's help. */
		if (o->help != NULL)
			fail_msg("--%s: its help is [%s] %s's", k->flag,
				 k->section, k->name);
		assert_string_equal(options_help(o), k->help);
		/* A flag without a value sets yes. */
		if (o->has_arg == no_argument && k->type != KEY_T_BOOL)
			fail_msg("--%s takes no value, [%s] %s is no boolean",
				 k->flag, k->section, k->name);
		if (k->type == KEY_T_PATHS &&
		    options_value(o) != OPTIONS_VALUE_PATH)
			fail_msg("--%s: a path key's flag completes paths",
				 k->flag);
	}
	for (size_t j = 0; j < options_n_specs; j++) {
		const struct options_spec *o = &options_specs[j];

		if (strncmp(o->group, "Filesystem rules", 16) != 0 &&
		    strncmp(o->group, "Network rules", 13) != 0 &&
		    strncmp(o->name, "env-", 4) != 0)
			continue;
		if (keys_by_flag(o->name) == NULL)
			fail_msg("--%s is a rule but sets no key", o->name);
	}
	for (size_t j = 0; j < options_n_specs; j++) {
		const struct options_spec *o = &options_specs[j];

		if (o->help == NULL && keys_by_flag(o->name) == NULL)
			fail_msg("--%s has no help", o->name);
	}
}

/* A valid value of each grammar, for the rows' tests. */
static const char *
sample(const struct key *k)
{
	switch (k->type) {
	case KEY_T_PATHS:
		return k->id == KEY_COPY ? "/a /b" : "/a";
	case KEY_T_PORTS:
		return "443";
	case KEY_T_TEXT:
		return "text";
	case KEY_T_BOOL:
		return "yes";
	case KEY_T_CHOICE:
		return k->choices[0];
	case KEY_T_SIZE:
	case KEY_T_BYTES:
		return "1M";
	case KEY_T_COUNT:
	case KEY_T_DURATION:
		return "1";
	case KEY_T_CIDRS:
		return "10.0.0.0/8";
	case KEY_T_LISTEN:
		return "127.0.0.1:80";
	case KEY_T_ADDRS:
		return "192.0.2.1";
	case KEY_T_HOSTS:
		return "example.com";
	case KEY_T_ENVGLOBS:
		return "FOO";
	case KEY_T_ENVSET:
		return "FOO=1";
	case KEY_T_INCLUDES:
		return "default";
	case KEY_T_COMMANDS:
	case KEY_T_NAMES:
		return "x";
	}
	return NULL;
}

/* Parse "[section]\nkey = value\n" as kind: 0, or -EINVAL and *cause. */
static int
parse_one(const struct key *k, const char *value, enum profile_kind kind,
	  char **cause)
{
	attribute_cleanup(vars_freep) struct vars *v =
		vars_new(test_env, "/home/u/proj", "t");
	_cleanup_free_ char *text =
		xasprintf("[%s]\n%s = %s\n", k->section, k->name, value);
	struct profile *p = NULL;
	int r = profile_parse_string("/p/.llwrap.ini", text, kind, v, &p,
				     cause);

	profile_free(p);
	return r;
}

/* What .llwrap.ini gets for each key is its row's tighten rule. */
static void
test_tighten(void **state)
{
	(void)state;
	for (size_t i = 0; i < KEY_COUNT; i++) {
		const struct key *k = &keys_table[i];
		const char *ok = NULL, *refused = NULL;
		_cleanup_free_ char *want = NULL;
		char *cause = NULL;

		switch (k->tighten) {
		case KEY_TIGHTEN_FREE:
			ok = sample(k);
			break;
		case KEY_TIGHTEN_NARROW:
			ok = sample(k);
			if (k->why != NULL)
				refused = "none";
			break;
		case KEY_TIGHTEN_ONLY:
			ok = k->only;
			refused =
				k->type == KEY_T_BOOL
					? (strcmp(k->only, "yes") == 0 ? "no"
								       : "yes")
					: (strcmp(k->choices[0], k->only) == 0
						   ? k->choices[1]
						   : k->choices[0]);
			break;
		case KEY_TIGHTEN_NEVER:
			refused = sample(k);
			break;
		}
		/* Each value is valid where tightening is not asked. */
		if (ok != NULL &&
		    parse_one(k, ok, PROFILE_KIND_NORMAL, &cause) < 0)
			fail_msg("%s = %s: %s", k->name, ok, cause);
		if (ok != NULL &&
		    parse_one(k, ok, PROFILE_KIND_PROJECT, &cause) < 0)
			fail_msg(".llwrap.ini: %s = %s: %s", k->name, ok,
				 cause);
		if (refused == NULL)
			continue;
		if (parse_one(k, refused, PROFILE_KIND_NORMAL, &cause) < 0)
			fail_msg("%s = %s: %s", k->name, refused, cause);
		want = xasprintf("/p/.llwrap.ini:2: .llwrap.ini may only "
				 "tighten the policy: [%s] %s is not allowed "
				 "here (%s).",
				 k->section, k->name, k->why);
		if (parse_one(k, refused, PROFILE_KIND_PROJECT, &cause) !=
			    -EINVAL ||
		    strcmp(cause, want) != 0)
			fail_msg("%s = %s in .llwrap.ini:\n got: %s\nwant: %s",
				 k->name, refused, cause, want);
		free(cause);
		cause = NULL;
	}
}

/* A flag gives its key the value a file's line gives it. */
static void
test_flag_is_key(void **state)
{
	attribute_cleanup(vars_freep) struct vars *v =
		vars_new(test_env, "/home/u/proj", "t");

	(void)state;
	for (size_t i = 0; i < KEY_COUNT; i++) {
		const struct key *k = &keys_table[i];
		attribute_cleanup(profile_freep) struct profile *cli =
			profile_new("command line", PROFILE_KIND_CLI);
		attribute_cleanup(profile_freep) struct profile *file = NULL;
		_cleanup_free_ char *text = NULL;
		_cleanup_free_ char *cause = NULL;

		if (k->flag == NULL)
			continue;
		text = xasprintf("[%s]\n%s = %s\n", k->section, k->name,
				 sample(k));
		if (profile_add(cli, v, k->section, k->name, sample(k), 0,
				&cause) < 0 ||
		    profile_parse_string("/p.ini", text, PROFILE_KIND_NORMAL, v,
					 &file, &cause) < 0)
			fail_msg("--%s: %s", k->flag, cause);
		assert_int_equal(cli->n_entries, 1);
		assert_int_equal(file->n_entries, 1);
		assert_ptr_equal(cli->entries[0].key, k);
		assert_ptr_equal(file->entries[0].key, k);
		assert_int_equal(cli->entries[0].n_values,
				 file->entries[0].n_values);
		for (size_t j = 0; j < cli->entries[0].n_values; j++) {
			_cleanup_free_ char *a = profile_value_format(
				k, &cli->entries[0].values[j]);
			_cleanup_free_ char *b = profile_value_format(
				k, &file->entries[0].values[j]);

			assert_string_equal(a, b);
		}
	}
}

/* p with section's key = value added, which must succeed. */
static void
add(struct policy *p, const char *section, const char *key, const char *v)
{
	_cleanup_free_ char *cause = NULL;

	if (policy_add(p, section, key, v, "test", &cause) < 0)
		fail_msg("[%s] %s = %s: %s", section, key, v, cause);
}

/* Each merge rule, and none clearing, on the typed values. */
static void
test_merge(void **state)
{
	attribute_cleanup(policy_freep) struct policy *p = policy_new();
	_cleanup_free_ char *cause = NULL;

	(void)state;
	/* Scalar: the last stands; none is the built-in default. */
	add(p, "limits", "memory", "1G");
	add(p, "limits", "memory", "2g");
	assert_int_equal(p->limit_memory, 2ULL << 30);
	add(p, "limits", "memory", "none");
	assert_int_equal(p->limit_memory, 0);
	add(p, "limits", "timeout", "30m");
	assert_int_equal(p->limit_timeout, 1800);
	add(p, "limits", "tmpfs-size", "10%");
	assert_int_equal(p->tmpfs_percent, 10);
	assert_int_equal(p->tmpfs_bytes, 0);
	add(p, "network", "log-blocked", "no");
	assert_false(p->log_blocked);
	add(p, "network", "log-blocked", "none");
	assert_true(p->log_blocked);
	add(p, "network", "mode", "none");
	assert_int_equal(p->net, LLW_NET_NONE);
	add(p, "process", "ptrace", "deny");
	assert_true(p->ptrace_deny);
	add(p, "network", "unix-sockets", "allow");
	assert_true(p->unix_sockets);
	/* A bad value is refused and changes nothing. */
	assert_int_equal(
		policy_add(p, "limits", "memory", "10%", "test", &cause),
		-EINVAL);
	assert_string_equal(cause, "test: [limits] memory: bad size '10%'; "
				   "use bytes with an optional K, M or G "
				   "(8G).");
	assert_int_equal(p->limit_memory, 0);

	/* List: appended, each value once; none empties it. */
	add(p, "network", "allow-host", "a.example");
	add(p, "network", "allow-host", "B.example:443 a.example");
	assert_int_equal(p->n_hosts, 2);
	assert_string_equal(p->hosts[1].name, "b.example");
	add(p, "network", "allow-host", "none");
	assert_int_equal(p->n_hosts, 0);
	add(p, "network", "unix", "/run/a.sock");
	add(p, "network", "unix", "/run/a.sock");
	assert_int_equal(p->unix_paths.n, 1);

	/* Ports: ranges appended; none empties. */
	add(p, "network", "connect-tcp", "443,80");
	add(p, "network", "connect-tcp", "8000-8100");
	assert_int_equal(p->connect_tcp.n, 3);
	assert_int_equal(p->connect_tcp.v[2].hi, 8100);
	add(p, "network", "connect-tcp", "none");
	assert_int_equal(p->connect_tcp.n, 0);

	/* Paths: rules kept by level; none drops that level's. */
	add(p, "filesystem", "ro", "/a");
	add(p, "filesystem", "deny", "/a/b");
	assert_int_equal(p->n_paths, 2);
	add(p, "filesystem", "ro", "none");
	assert_int_equal(p->n_paths, 1);
	assert_int_equal(p->paths[0].access, LLW_ACCESS_DENY);

	/* Environment: a later unset drops the set it matches. */
	add(p, "environment", "set", "FOO=1");
	add(p, "environment", "unset", "FO*");
	assert_int_equal(p->env_set.n, 0);

	/* Keys that choose sources are no policy's. */
	free(steal_pointer(&cause));
	assert_int_equal(
		policy_add(p, "profile", "include", "default", "test", &cause),
		-EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_tighten),
		cmocka_unit_test(test_flag_is_key),
		cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests_name("keys", tests, NULL, NULL);
}
