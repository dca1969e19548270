/*
 * The manuals against the code: every option of the parser's table
 * (src/options.c) and every subcommand is described in doc/llwrap.1,
 * every profile key (src/profile.c) in doc/llwrap.ini.5; and --help,
 * made from the same table, names every option and fits 80 columns.
 * The manuals are made from doc/llwrap.1.in and doc/llwrap.ini.5.in with
 * the directories of this build.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "cmd.h"
#include "fdutil.h"
#include "keys.h"
#include "options.h"
#include "profile.h"
#include "strv.h"
#include "xalloc.h"

static char *man1, *man5;

/* The manual's text with roff's \- as - and font escapes removed. */
static char *
read_manual(const char *name)
{
	const char *dir = getenv("LLW_BUILDDIR");
	_cleanup_free_ char *path =
		xasprintf("%s/doc/%s", dir ? dir : ".", name);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *text = NULL, *out;
	size_t n = 0;

	if (fd < 0 || fd_read_all(fd, 1 << 22, &text, NULL) < 0)
		fail_msg("cannot read %s", path);
	out = xcalloc(strlen(text) + 1, 1);
	for (const char *s = text; *s != '\0'; s++) {
		if (s[0] == '\\' && s[1] == '-') {
			out[n++] = '-';
			s++;
		} else if (s[0] == '\\' && s[1] == 'f' && s[2] != '\0') {
			s += 2;
		} else if (s[0] == '\\' && s[1] == '&') {
			s++;
		} else {
			out[n++] = *s;
		}
	}
	free(text);
	return out;
}

static bool
word_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_';
}

/* True when word occurs in text with no word character on either side. */
static bool
has_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *s = strstr(text, word); s != NULL;
	     s = strstr(s + 1, word))
		if ((s == text || !word_char(s[-1])) && !word_char(s[n]))
			return true;
	return false;
}

/* True when a line of text starts with a font macro (.B, .BR, .BI,
 * .IR, ...) whose first argument is word: how the manuals open the
 * entry of a key or subcommand. */
static bool
has_entry(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *l = text; l != NULL && *l != '\0';
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *s = l;

		if (*s++ != '.')
			continue;
		if (*s != 'B' && *s != 'I')
			continue;
		while (*s == 'B' || *s == 'I' || *s == 'R')
			s++;
		if (*s != ' ')
			continue;
		s++;
		if (*s == '"')
			s++;
		if (strncmp(s, word, n) == 0 && !word_char(s[n]))
			return true;
	}
	return false;
}

static void
test_options_in_manual(void **state)
{
	(void)state;
	for (size_t i = 0; i < options_n_specs; i++) {
		const struct options_spec *o = &options_specs[i];
		_cleanup_free_ char *l = xasprintf("--%s", o->name);

		if (!has_word(man1, l))
			fail_msg("option %s is not in doc/llwrap.1", l);
		if (o->val < 0x100) {
			_cleanup_free_ char *s = xasprintf("-%c", o->val);

			if (!has_word(man1, s))
				fail_msg("option %s is not in doc/llwrap.1", s);
		}
	}
	for (const struct cmd_entry *const *e = cmd_table; *e != NULL; e++)
		if (((*e)->how & CMD_WORD) && !has_entry(man1, (*e)->name))
			fail_msg("subcommand %s has no entry in doc/llwrap.1",
				 (*e)->name);
}

/* What each option's value is, for the completions made from the table
 * (src/completion-gen.c): every option that takes one has a kind, and
 * these have the kinds their shells offer. */
static void
test_option_values(void **state)
{
	static const struct {
		const char *name;
		enum options_value v;
	} t[] = {
		{ "profile", OPTIONS_VALUE_PROFILE },
		{ "directory", OPTIONS_VALUE_DIR },
		{ "ro", OPTIONS_VALUE_PATH },
		{ "rwx", OPTIONS_VALUE_PATH },
		{ "deny", OPTIONS_VALUE_PATH },
		{ "unix", OPTIONS_VALUE_PATH },
		{ "why", OPTIONS_VALUE_PATH },
		{ "net", OPTIONS_VALUE_WORDS },
		{ "backend", OPTIONS_VALUE_WORDS },
		{ "env-keep", OPTIONS_VALUE_ENV },
		{ "connect-tcp", OPTIONS_VALUE_TEXT },
		{ "allow-host", OPTIONS_VALUE_TEXT },
		{ "timeout", OPTIONS_VALUE_TEXT },
		{ "explain", OPTIONS_VALUE_NONE },
		{ "learn", OPTIONS_VALUE_NONE },
	};
	size_t found = 0;

	(void)state;
	for (size_t i = 0; i < options_n_specs; i++) {
		const struct options_spec *o = &options_specs[i];
		enum options_value v = options_value(o);

		if ((v == OPTIONS_VALUE_NONE) != (o->has_arg == no_argument))
			fail_msg("--%s: value kind %d, has_arg %d", o->name, v,
				 o->has_arg);
		for (size_t k = 0; k < ARRAY_SIZE(t); k++) {
			if (strcmp(t[k].name, o->name) != 0)
				continue;
			found++;
			if (v != t[k].v)
				fail_msg("--%s: value kind %d, want %d",
					 o->name, v, t[k].v);
		}
	}
	assert_int_equal(found, ARRAY_SIZE(t));
	/* Each subcommand's flags are in the manual. */
	for (const struct cmd_entry *const *e = cmd_table; *e != NULL; e++) {
		_cleanup_strv_ char **f = NULL;

		if (!((*e)->how & CMD_WORD))
			continue;
		f = strv_split_blank((*e)->flags);
		assert_non_null(f);
		for (char **w = f; *w != NULL; w++)
			if (!has_word(man1, *w))
				fail_msg("%s %s is not in doc/llwrap.1",
					 (*e)->name, *w);
	}
}

/*
 * The manual's SECTIONS AND KEYS and the key table (keys.h) list the same
 * keys: each entry (".TP" or ".TQ", then the key in bold) under ".SS
 * [section]" is a key of that section, each key has its entry, and the
 * entry of a key taking yes|no or a choice names its words (read_manual
 * has taken the font changes out).
 */
static void
test_keys_in_manual(void **state)
{
	const char *start = strstr(man5, "\n.SH SECTIONS AND KEYS\n");
	const char *end = strstr(man5, "\n.SH VARIABLES\n");
	bool seen[KEY_COUNT] = { false };
	char section[64] = "";

	(void)state;
	assert_non_null(start);
	assert_non_null(end);
	for (const char *l = start + 1; l < end; l = strchr(l, '\n') + 1) {
		size_t len = strcspn(l, "\n");
		_cleanup_free_ char *line = xstrndup(l, len);
		_cleanup_free_ char *next = NULL;
		char word[64];
		size_t n = 0;
		const char *w;
		const struct key *k;

		if (sscanf(line, ".SS [%63[^]]]", section) == 1)
			continue;
		if (strncmp(line, ".SS", 3) == 0)
			section[0] = '\0';
		if (strcmp(line, ".TP") != 0 && strcmp(line, ".TQ") != 0)
			continue;
		next = xstrndup(l + len + 1, strcspn(l + len + 1, "\n"));
		if (strncmp(next, ".B", 2) != 0)
			continue;
		w = next + strcspn(next, " ") + 1;
		for (; *w != '\0' && *w != ' ' && n + 1 < sizeof(word); w++) {
			if (*w == '\\')
				continue; /* "\-" is "-" */
			word[n++] = *w;
		}
		word[n] = '\0';
		k = keys_find(section, word);
		if (k == NULL)
			fail_msg("doc/llwrap.ini.5 documents [%s] %s, which is "
				 "not a key (src/keys.c)",
				 section, word);
		seen[k->id] = true;
		for (const char *const *c = k->choices; c != NULL && *c; c++) {
			if (strstr(next, *c) == NULL)
				fail_msg("[%s] %s: its entry does not name %s",
					 section, word, *c);
		}
		if (k->type == KEY_T_BOOL && strstr(next, " yes|no") == NULL)
			fail_msg("[%s] %s: its entry does not say yes|no: %s",
				 section, word, next);
	}
	for (size_t i = 0; i < KEY_COUNT; i++)
		if (!seen[i])
			fail_msg("key [%s] %s has no entry in "
				 "doc/llwrap.ini.5 (SECTIONS AND KEYS)",
				 keys_table[i].section, keys_table[i].name);
}

static void
test_help(void **state)
{
	char *dirs[] = { "/etc/llwrap/profiles", NULL };
	char *names[] = { "default", "opencode", NULL };
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	cmd_usage(f, dirs, names);
	assert_int_equal(fclose(f), 0);
	for (size_t i = 0; i < options_n_specs; i++) {
		_cleanup_free_ char *l =
			xasprintf("--%s", options_specs[i].name);

		if (!has_word(text, l))
			fail_msg("--help does not name %s", l);
	}
	/* Every word of the command table, with its usage: in the synopsis
	 * and among the subcommands. */
	for (const struct cmd_entry *const *e = cmd_table; *e != NULL; e++) {
		_cleanup_free_ char *syn = NULL, *sub = NULL;

		if (!((*e)->how & CMD_WORD))
			continue;
		syn = xasprintf("llwrap %s%s\n",
				((*e)->how & CMD_POLICY) ? "[OPTIONS] " : "",
				(*e)->usage);
		sub = xasprintf("\n  %s", (*e)->usage);
		if (strstr(text, syn) == NULL || strstr(text, sub) == NULL)
			fail_msg("--help does not show %s", (*e)->usage);
	}
	for (const char *l = text; *l != '\0';) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);

		if (n > 80)
			fail_msg("--help line over 80 columns: %.*s", (int)n,
				 l);
		l += n + (e != NULL);
	}
	assert_non_null(strstr(text, "  /etc/llwrap/profiles\n"));
	assert_non_null(strstr(text, "default opencode"));
}

/* The profile path the binary searches is the one the manuals name. */
static void
test_paths_in_manual(void **state)
{
	const char *want[] = {
		LLW_SYSCONFDIR "/llwrap/profiles/",
		LLW_DATADIR "/llwrap/profiles/",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (strstr(man1, want[i]) == NULL)
			fail_msg("doc/llwrap.1 does not name %s", want[i]);
		if (strstr(man5, want[i]) == NULL)
			fail_msg("doc/llwrap.ini.5 does not name %s", want[i]);
	}
	assert_null(strstr(man1, "@sysconfdir@"));
	assert_null(strstr(man5, "@datadir@"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths_in_manual),
		cmocka_unit_test(test_options_in_manual),
		cmocka_unit_test(test_option_values),
		cmocka_unit_test(test_keys_in_manual),
		cmocka_unit_test(test_help),
	};
	int r;

	man1 = read_manual("llwrap.1");
	man5 = read_manual("llwrap.ini.5");
	r = cmocka_run_group_tests_name("doc", tests, NULL, NULL);
	free(man1);
	free(man5);
	return r;
}
