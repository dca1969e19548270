/*
 * Unit tests of src/learnpropose.c: the grants proposed for a table of denied
 * accesses, and, for many random ones, that no grant is wider than an
 * observed path or its directory, and none is the home, "/", or covers
 * a secret or a denied path (the bounds of suggest.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "learnpropose.h"
#include "path.h"
#include "strv.h"
#include "xalloc.h"

#define HOME "/home/u"

/* The bounds of a target policy that denies denied. */
static void
bounds(struct suggest_bounds *b, char *const *denied)
{
	suggest_bounds_init(b, HOME, NULL);
	for (char *const *d = denied; *d != NULL; d++)
		strv_push(&b->denied, *d);
}

static char *
render(const struct learnpropose_grant *g, size_t n)
{
	_cleanup_strv_ char **v = NULL;

	for (size_t i = 0; i < n; i++)
		strv_push_take(&v, xasprintf("%s %s %lu",
					     policy_access_name(g[i].access),
					     g[i].path, g[i].count));
	return v ? strv_join(v, "\n") : xstrdup("");
}

static void
test_table(void **state)
{
	static const struct learnpropose_access acc[] = {
		/* two files side by side: their directory */
		{ "/opt/tool/data/a", LLW_ACCESS_RO, false, true, false },
		{ "/opt/tool/data/b", LLW_ACCESS_RO, false, true, false },
		/* one file alone: itself */
		{ "/opt/tool/conf.ini", LLW_ACCESS_RO, false, true, false },
		/* a directory listed: itself */
		{ "/opt/tool/plugins", LLW_ACCESS_RO, true, true, false },
		/* a program run: itself, rx */
		{ "/opt/tool/bin/run", LLW_ACCESS_RX, false, true, false },
		/* a file created: its directory, rw */
		{ "/var/cache/tool/new", LLW_ACCESS_RW, false, false, false },
		/* a device: alone */
		{ "/dev/kvm", LLW_ACCESS_RW, false, true, true },
		/* home files side by side: not the home itself */
		{ HOME "/.toolrc", LLW_ACCESS_RO, false, true, false },
		{ HOME "/.toolrc2", LLW_ACCESS_RO, false, true, false },
		/* ~/.config holds a secret (~/.config/gh): files alone */
		{ HOME "/.config/a.conf", LLW_ACCESS_RO, false, true, false },
		{ HOME "/.config/b.conf", LLW_ACCESS_RO, false, true, false },
		/* secrets and denied paths: nothing */
		{ HOME "/.ssh/id_ed25519", LLW_ACCESS_RO, false, true, false },
		{ HOME "/.aws/credentials", LLW_ACCESS_RO, false, true, false },
		{ "/srv/x/.env", LLW_ACCESS_RO, false, true, false },
		/* next to a denied path: itself */
		{ "/srv/x/a", LLW_ACCESS_RO, false, true, false },
		{ "/srv/x/b", LLW_ACCESS_RO, false, true, false },
		/* per run: nothing */
		{ "/proc/1234/status", LLW_ACCESS_RO, false, true, false },
		/* a file created in the home: nothing to grant on */
		{ HOME "/new", LLW_ACCESS_RW, false, false, false },
		/* directories holding the home or a secret, listed:
		 * nothing */
		{ "/home", LLW_ACCESS_RO, true, true, false },
		{ HOME "/.config", LLW_ACCESS_RO, true, true, false },
		{ "/srv/x", LLW_ACCESS_RO, true, true, false },
	};
	char *denied[] = { "/srv/x/.env", NULL };
	struct suggest_bounds b;
	unsigned long dropped;
	size_t n;
	struct learnpropose_grant *g;
	_cleanup_free_ char *got = NULL;

	(void)state;
	bounds(&b, denied);
	g = learnpropose_grants(acc, ARRAY_SIZE(acc), &b, &n, &dropped);
	suggest_bounds_clear(&b);
	got = render(g, n);
	assert_string_equal(got, "rw /dev/kvm 1\n"
				 "ro /home/u/.config/a.conf 1\n"
				 "ro /home/u/.config/b.conf 1\n"
				 "ro /home/u/.toolrc 1\n"
				 "ro /home/u/.toolrc2 1\n"
				 "rx /opt/tool/bin/run 1\n"
				 "ro /opt/tool/conf.ini 1\n"
				 "ro /opt/tool/data 2\n"
				 "ro /opt/tool/plugins 1\n"
				 "ro /srv/x/a 1\n"
				 "ro /srv/x/b 1\n"
				 "rw /var/cache/tool 1");
	assert_int_equal(dropped, 8);
	learnpropose_grants_free(g, n);
}

/* A few directories and names, combined at random. */
static const char *const dirs[] = {
	"/",	  HOME,	      HOME "/.config", HOME "/.ssh", HOME "/src",
	"/opt/a", "/opt/a/b", "/srv",	       "/srv/deny",  HOME "/.config/gh",
	"/home",
};
static const char *const names[] = { "x", "y", "z", ".env", "lib" };

static void
test_property(void **state)
{
	char *denied[] = { "/srv/deny", "/opt/a/b/x", NULL };
	_cleanup_strv_ char **secrets = suggest_secrets(HOME);
	struct suggest_bounds b;

	(void)state;
	bounds(&b, denied);
	srand(12345);
	for (int round = 0; round < 2000; round++) {
		struct learnpropose_access acc[12];
		size_t n = 1 + (size_t)rand() % 12, ng;
		unsigned long dropped;
		struct learnpropose_grant *g;

		for (size_t i = 0; i < n; i++) {
			const char *d = dirs[rand() % ARRAY_SIZE(dirs)];
			const char *nm = names[rand() % ARRAY_SIZE(names)];

			acc[i].path = strcmp(d, "/") == 0
					      ? xasprintf("/%s", nm)
					      : xasprintf("%s/%s", d, nm);
			acc[i].need = (enum llw_access)(1 + rand() % 4);
			acc[i].is_dir = rand() % 4 == 0;
			acc[i].exists = rand() % 3 != 0;
			acc[i].alone = rand() % 8 == 0;
		}
		g = learnpropose_grants(acc, n, &b, &ng, &dropped);
		for (size_t k = 0; k < ng; k++) {
			bool ok = false;

			/* An observed path or the directory of one. */
			for (size_t i = 0; i < n; i++) {
				_cleanup_free_ char *p = xstrdup(acc[i].path);
				char *slash = strrchr(p, '/');

				if (strcmp(g[k].path, acc[i].path) == 0)
					ok = true;
				if (slash != NULL && slash != p)
					*slash = '\0';
				if (strcmp(g[k].path, p) == 0)
					ok = true;
			}
			if (!ok)
				fail_msg("round %d: %s is wider than what "
					 "was observed",
					 round, g[k].path);
			if (path_under(HOME, g[k].path))
				fail_msg("round %d: a grant on %s", round,
					 g[k].path);
			for (char **s = secrets; *s != NULL; s++)
				if (path_under(*s, g[k].path) ||
				    path_under(g[k].path, *s))
					fail_msg("round %d: %s reaches the "
						 "secret %s",
						 round, g[k].path, *s);
			for (char **d = denied; *d != NULL; d++)
				if (path_under(*d, g[k].path) ||
				    path_under(g[k].path, *d))
					fail_msg("round %d: %s reaches the "
						 "denied %s",
						 round, g[k].path, *d);
		}
		learnpropose_grants_free(g, ng);
		for (size_t i = 0; i < n; i++)
			free(acc[i].path);
	}
	suggest_bounds_clear(&b);
}

static void
test_fragment(void **state)
{
	struct learnpropose_grant g[] = {
		{ "/opt/my tool", LLW_ACCESS_RX, 3 },
		{ "/var/cache/t", LLW_ACCESS_RW, 1 },
	};
	char *net[] = { "connect-tcp = 5432", NULL };
	_cleanup_free_ char *f = learnpropose_fragment(
		g, 2, net, "make", "/home/u/proj", "default", "make");

	(void)state;
	assert_non_null(strstr(f, "[filesystem]\n; 3 accesses\n"
				  "rx = \"/opt/my tool\"\n; 1 access\n"
				  "rw = /var/cache/t\n"));
	assert_non_null(strstr(f, "[network]\nconnect-tcp = 5432\n"));
	assert_non_null(strstr(f, "[match]\ncommand = make\n"
				  "project = /home/u/proj\n"
				  "profile = default\n"));
	assert_non_null(strstr(f, "~/.config/llwrap/profiles/"
				  "make-learned.ini"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_property),
		cmocka_unit_test(test_fragment),
	};

	return cmocka_run_group_tests_name("learn", tests, NULL, NULL);
}
