/*
 * Unit tests for src/gitconfig.c: a git configuration read as git reads
 * it, checked against a table and against git itself, and the files it
 * makes git read.
 */
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cleanup.h"
#include "gitconfig.h"
#include "strv.h"
#include "xalloc.h"

static const struct {
	const char *text, *want;
} cases[] = {
	/* include.path: relative to the file's directory, or from ~/. */
	{ "[include]\n\tpath = .gitconfig-work\n", "i/h/.gitconfig-work" },
	{ "[include]\n  path = ~/conf/extra\n", "i/h/conf/extra" },
	{ "[Include]\nPath = /etc/x\n", "i/etc/x" },
	/* includeIf, whatever the condition; quoted values, comments. */
	{ "[includeIf \"gitdir:~/work/\"]\n\tpath = \"work config\" # c\n",
	  "i/h/work config" },
	{ "[includeif \"onbranch:main\"]\npath=../up ; c\n", "i/up" },
	/* core.excludesFile and core.attributesFile: absolute or ~/. */
	{ "[core]\n\texcludesFile = ~/.gitignore\n\tattributesfile = "
	  "/a/attr\n",
	  "f/h/.gitignore f/a/attr" },
	{ "[core]\n\texcludesFile = relative\n", "" },
	/* ~user/ of a user llwrap finds none for: an include not followed,
	 * as written (git refuses it, or its own lookup finds one); other
	 * sections and keys are ignored. */
	{ "[include]\npath = ~llw-no-such-user/x\n[user]\npath = /no\n"
	  "[alias]\nexcludesfile = /no\n[core]\nexcludesfile = ~llw-no/x\n",
	  "u~llw-no-such-user/x" },
	/* %(prefix)/: where git is installed, which llwrap cannot know:
	 * an include of it listed as not followed, a plain file left. */
	{ "[include]\npath = %(prefix)/etc/inc\n[core]\nexcludesfile = "
	  "%(prefix)/x\n",
	  "u%(prefix)/etc/inc" },
	/* "~" alone is the home. */
	{ "[include]\npath = ~\n", "i/h" },
	/* A key on the header's line; escapes. */
	{ "[include] path = /a\\\"b\n", "i/a\"b" },
	/* Comment lines and blank lines. */
	{ "# [include]\n; path = /no\n\n[include]\n# path = /no\n", "" },
};

/*
 * Texts git reads in a way a line-based reader does not, and what git
 * makes of each: "name=value" or "name" (a key alone, true), one a line,
 * the name as git lists it; "!line N" where git refuses the text (the
 * last: git reads no more) or llwrap cannot tell what git makes of it.
 */
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *text, *want;
} each_cases[] = {
	/* The red team's first: the header ends at the first ']' outside
	 * the quotes, and a key follows it on the same line; ';' starts a
	 * comment in a value. */
	{ "[remote \"x]url=a\"]uploadpack=touch /tmp/m; git-upload-pack\n"
	  "\turl = /p\n",
	  "remote.x]url=a.uploadpack=touch /tmp/m\nremote.x]url=a.url=/p" },
	/* The second: '\' before the end of the line continues the value,
	 * so the header below is part of it and the url is origin's. */
	{ "[remote \"origin\"]\n\turl = /a\n\ttagOpt = --no-tags \\\n"
	  "[submodule \"x\"]\n\turl = https://attacker.invalid/loot.git\n",
	  "remote.origin.url=/a\n"
	  "remote.origin.tagopt=--no-tags [submodule x]\n"
	  "remote.origin.url=https://attacker.invalid/loot.git" },
	/* ... with CR LF after the '\'. */
	{ "[a]\r\n\tk = x \\\r\n[core]\r\n\tfsmonitor = y\r\n",
	  "a.k=x [core]\na.fsmonitor=y" },
	/* ... inside quotes too; at the end of the text, nothing follows. */
	{ "[a]\nk = \"x\\\ny\"\nl = z\\", "a.k=xy\na.l=z" },
	/* A continuation inside a comment is none. */
	{ "[a]\n# c \\\n[core]fsmonitor=x\n", "core.fsmonitor=x" },
	/* Escapes: \" \\ \n \t \b, outside quotes as inside. */
	{ "[a]\n\tk = \\\"q\\\" \\\\ a\\nb\\tc\\bd \"\\\"\"\n",
	  "a.k=\"q\" \\ a\nb\tc\bd \"" },
	/* Any other escape: git refuses the file. */
	{ "[a]\n\tk = x\n\tl = a\\x\n", "a.k=x\n!line 3" },
	{ "[a]\n\tk = a\\ b\n", "!line 2" },
	/* Comments: '#' and ';' outside quotes, not inside. */
	{ "# x\n; y\n[a] # c\n\tk = \"a # b ; c\" # d\n\tl = e;f\n",
	  "a.k=a # b ; c\na.l=e" },
	/* Subsections: '\' before any character, case kept. */
	{ "[a \"b\\\"c\"]k=1\n[a \"b\\\\c\"]k=2\n[a \"b\\c\"]k=3\n"
	  "[Remote \"OrIgin\"]URL=u\n",
	  "a.b\"c.k=1\na.b\\c.k=2\na.bc.k=3\nremote.OrIgin.url=u" },
	/* The old form [section.sub]: all of it in lower case. */
	{ "[a.B]k=1\n[a.B.C]k=2\n[a.]k=3\n", "a.b.k=1\na.b.c.k=2\na..k=3" },
	/* Case: section and key in lower case. */
	{ "[CoRe]FsMonitor = x\n", "core.fsmonitor=x" },
	/* Keys on the header's line, headers after headers. */
	{ "[a][b]k=v [c]\n[d]\tl\n", "b.k=v [c]\nd.l" },
	/* Blanks: tabs, around '=', at the ends of a value, inside it. */
	{ "[a]\n\tk\t=\tv\t\n k =  a  b  \n k = \"  v  \"  \n"
	  " k = a \"\" \n",
	  "a.k=v\na.k=a  b\na.k=  v  \na.k=a " },
	/* Empty values, and a key alone (true) at the end of the text. */
	{ "[a]\nk =\nl = \"\"\nm", "a.k=\na.l=\na.m" },
	/* A key alone followed by a comment: git refuses it. */
	{ "[a]\nk # c\n", "!line 2" },
	{ "[a]\nk ;c\n", "!line 2" },
	/* A lone CR is a blank between keys. */
	{ "[a]\r k = a\n", "a.k=a" },
	/* A tab or CR inside an unquoted value: a space to git before
	 * 2.45, itself to later ones (told as unsure, then given as later
	 * ones read it, and the reading goes on); trimmed at the ends by
	 * both. */
	{ "[a]\n k = a\t\tb\n", "!line 2\na.k=a\t\tb" },
	{ "[a]\n k = a\rb\n", "!line 2\na.k=a\rb" },
	{ "[a]\n k = a\t\"\"\n", "!line 2\na.k=a\t" },
	{ "[a]\n k = \t\ra \t\r\n l = \"x\ty\"\n", "a.k=a\na.l=x\ty" },
	/* VT and FF are no blanks to git. */
	{ "[a]\n\vk = v\n", "!line 2" },
	{ "[a]\nk = a\fb\n", "a.k=a\fb" },
	/* Includes are variables like any other (not followed here). */
	{ "[include]\n\tpath = x\n[includeIf \"gitdir:/a/\"]\n\tpath = y\n",
	  "include.path=x\nincludeif.gitdir:/a/.path=y" },
	/* Headers git refuses. */
	{ "[core ]\nk = v\n", "!line 1" },
	{ "[ core]\nk = v\n", "!line 1" },
	{ "[]\nk = v\n", "!line 1" },
	{ "[a \"x\" ]\nk = v\n", "!line 1" },
	{ "[a \"b\nc\"]\nk = v\n", "!line 1" },
	{ "[a_b]\nk = v\n", "!line 1" },
	{ "[core", "!line 1" },
	{ "[a \"x", "!line 1" },
	/* Headers git takes and llwrap does not: an empty section, whose
	 * keys are told as unsure; the reading goes on. */
	{ "[.a]\nk = v\n[b]l\n", "!line 2\nb.l" },
	{ "[ \"x\"]\nk = v\n", "!line 2" },
	/* Keys git refuses: a digit first, '_', a continued name. */
	{ "[a]\n1k = v\n", "!line 2" },
	{ "[a]\nk_x = v\n", "!line 2" },
	{ "[a]\nfs\\\nmonitor = x\n", "!line 2" },
	/* A key outside any section: unsure, and the reading goes on. */
	{ "k = v\n[a]\nl = w\n", "!line 1\na.l=w" },
	/* An unterminated quote. */
	{ "[a]\nk = \"abc\nl = d\n", "!line 2" },
	/* Bytes above 127: no letters, kept in values and subsections. */
	{ "[a \"\xff\"]\nk = \xfe\xff\n", "a.\xff.k=\xfe\xff" },
	{ "[a]\nk\xc3\xa9 = v\n", "!line 2" },
	/* A byte order mark at the start, and only a whole one. */
	{ "\xef\xbb\xbf[a]k=v\n", "a.k=v" },
	{ "\xef\xbb[a]k=v\n", "!line 1" },
	/* '=' in a value; no newline at the end. */
	{ "[a]k = a=b", "a.k=a=b" },
	/* Both forms at once: the name lowered, the quoted part kept. */
	{ "[a.B \"C\"]k=v\n", "a.b.C.k=v" },
	{ "[a.b ]k=v\n", "!line 1" },
	/* Nothing but blanks and comments; blanks before a header. */
	{ "", "" },
	{ "\n\t \n# c\n;d", "" },
	{ "  \t[a]  k=v\n[b]", "a.k=v" },
	/* A quoted key is no key. */
	{ "[a]\n\"k\" = v\n", "!line 2" },
};

static int
each_collect(void *ctx, const char *section, const char *sub, const char *key,
	     const char *value)
{
	char ***v = ctx;

	if (section == NULL) {
		strv_push_take(v, xasprintf("!%s", value));
		return 0;
	}
	strv_push_take(v,
		       xasprintf("%s%s%s.%s%s%s", section,
				 sub != NULL ? "." : "", sub != NULL ? sub : "",
				 key, value != NULL ? "=" : "",
				 value != NULL ? value : ""));
	return 0;
}

static char *
each_list(const char *text)
{
	char **v = xcalloc(1, sizeof(char *));
	char *j;

	gitconfig_each(text, each_collect, &v);
	j = strv_join(v, "\n");
	strv_free(v);
	return j;
}

static void
test_each(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(each_cases) / sizeof(each_cases[0]);
	     i++) {
		_cleanup_free_ char *got = each_list(each_cases[i].text);

		if (strcmp(got, each_cases[i].want) != 0)
			fail_msg("case %zu: got '%s', want '%s'", i, got,
				 each_cases[i].want);
	}
}

/* fn's return stops the reading and is returned. */
static int
each_stop(void *ctx, const char *section, const char *sub, const char *key,
	  const char *value)
{
	int *n = ctx;

	(void)section, (void)sub, (void)key, (void)value;
	return ++*n == 2 ? 7 : 0;
}

static void
test_each_stop(void **state)
{
	int n = 0;

	(void)state;
	assert_int_equal(gitconfig_each("[a]k\nl\nm\n", each_stop, &n), 7);
	assert_int_equal(n, 2);
}

/* A text of many lines llwrap is unsure of (keys outside any section,
 * which git reads on past), each told with its line: in time linear in
 * the text (review J: a .gitmodules of 32,000 such lines took seconds
 * of the next run's start; 300,000 took minutes). */
static int
each_unsure(void *ctx, const char *section, const char *sub, const char *key,
	    const char *value)
{
	char **last = ctx;

	(void)sub, (void)key;
	if (section == NULL) {
		free(*last);
		*last = xstrdup(value);
	}
	return 0;
}

static void
test_each_many_unsure(void **state)
{
	enum { LINES = 300000 };
	_cleanup_free_ char *text = xmalloc(2 * LINES + 1);
	_cleanup_free_ char *last = NULL;

	(void)state;
	for (size_t i = 0; i < LINES; i++)
		memcpy(text + 2 * i, "a\n", 2);
	text[2 * LINES] = '\0';
	alarm(10);
	gitconfig_each(text, each_unsure, &last);
	alarm(0);
	assert_string_equal(last, "line 300000");
	free(last);
	last = NULL;
	gitconfig_each("[s]\n\tk = v\nx\n[s]\ny = \"\n", each_unsure, &last);
	assert_string_equal(last, "line 5");
}

/*
 * What git itself lists for text, in git config --list -z's form
 * ("name\nvalue" or "name", each ended by a NUL), in *out; -1 when git
 * refuses the text (or cannot be run).
 */
static int
git_list(const char *text, char **out, size_t *len)
{
	char path[] = "/tmp/test-gitconfig-XXXXXX";
	_cleanup_free_ char *cmd = NULL;
	char buf[4096];
	size_t n;
	FILE *f;
	int fd, status;

	if ((fd = mkstemp(path)) < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	cmd = xasprintf("git config --file %s --no-includes --list -z "
			"2>/dev/null",
			path);
	*out = NULL;
	*len = 0;
	if ((f = popen(cmd, "r")) == NULL) {
		unlink(path);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		*out = xreallocarray(*out, *len + n + 1, 1);
		memcpy(*out + *len, buf, n);
		*len += n;
	}
	status = pclose(f);
	unlink(path);
	if (*out == NULL)
		*out = xstrdup("");
	else
		(*out)[*len] = '\0';
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

struct each_z {
	char *buf;
	size_t len;
	bool unreadable;
};

static int
each_z(void *ctx, const char *section, const char *sub, const char *key,
       const char *value)
{
	struct each_z *z = ctx;
	_cleanup_free_ char *e = NULL;
	size_t n;

	if (section == NULL) {
		z->unreadable = true;
		return 0;
	}
	e = xasprintf("%s%s%s.%s%s%s", section, sub != NULL ? "." : "",
		      sub != NULL ? sub : "", key, value != NULL ? "\n" : "",
		      value != NULL ? value : "");
	n = strlen(e) + 1;
	z->buf = xreallocarray(z->buf, z->len + n, 1);
	memcpy(z->buf + z->len, e, n);
	z->len += n;
	return 0;
}

/*
 * Each text of the table as git reads it: what gitconfig_each reports is
 * what git lists, byte for byte, unless gitconfig_each said it cannot
 * read the text, which its readers take as unsafe.  Where git refuses a
 * text, gitconfig_each must say so.
 */
static void
test_each_git(void **state)
{
	(void)state;
	if (system("git --version >/dev/null 2>&1") != 0) {
		print_message("# SKIP git is not installed: the reader is "
			      "checked against the table alone\n");
		skip();
	}
	for (size_t i = 0; i < sizeof(each_cases) / sizeof(each_cases[0]);
	     i++) {
		_cleanup_free_ char *git = NULL;
		struct each_z z = { .buf = NULL, .len = 0 };
		size_t len;
		int r = git_list(each_cases[i].text, &git, &len);

		gitconfig_each(each_cases[i].text, each_z, &z);
		if (z.unreadable) {
			free(z.buf);
			continue;
		}
		if (r < 0)
			fail_msg("case %zu: git refuses the text, llwrap "
				 "reads it",
				 i);
		if (len != z.len || (len > 0 && memcmp(git, z.buf, len) != 0))
			fail_msg("case %zu: git lists '%s', llwrap '%s' "
				 "(first entries)",
				 i, git, z.buf != NULL ? z.buf : "");
		free(z.buf);
	}
}

/* One of n pieces, at random. */
static const char *
pick(unsigned int *seed, const char *const *v, size_t n)
{
	return v[(size_t)rand_r(seed) % n];
}

#define PICK(seed, v) pick(seed, v, ARRAY_LEN(v))

/* A random text of headers, keys and values made of git's tricky
 * pieces, mostly well formed, into text. */
static void
random_text(unsigned int *seed, char *text)
{
	static const char *const names[] = {
		"core", "a.B", "Remote", "", "x-y", "a_b", "c.d.e", ".",
	};
	static const char *const subs[] = {
		"x", "]", "\\\"", "\\\\", "\\x",  ".",		 " ",
		"=", "#", "\t",	  "\\\n", "\xff", "url=a\"]k=v",
	};
	static const char *const keys[] = {
		"url", "fsMonitor", "k-1", "1k", "k_x", "K", "",
	};
	static const char *const values[] = {
		"a",   " ",    "\t",   "\"",   "\\", "\\n",  "\\t",
		"\\b", "\\\n", "#",    ";",    "=",  "]",    "[core]",
		"\r",  "x y",  "\\\"", "\\\\", "\v", "\xef", "\\\r\n",
	};
	static const char *const ends[] = {
		"\n", "\n", "\n", "\r\n", " \n", "\t# c\n", " ; c\n", "",
	};
	size_t lines = 1 + (size_t)(rand_r(seed) % 5);

	text[0] = '\0';
	for (size_t i = 0; i < lines; i++) {
		int kind = rand_r(seed) % 8;

		if (kind < 2 || (i == 0 && kind < 6)) {
			strcat(text, rand_r(seed) % 4 == 0 ? "  [" : "[");
			strcat(text, PICK(seed, names));
			if (rand_r(seed) % 2 == 0) {
				strcat(text,
				       rand_r(seed) % 4 == 0 ? "\t\"" : " \"");
				for (int j = rand_r(seed) % 3; j >= 0; j--)
					strcat(text, PICK(seed, subs));
				strcat(text, "\"");
			}
			strcat(text, "]");
			if (rand_r(seed) % 3 != 0) {
				strcat(text, PICK(seed, ends));
				continue;
			}
		} else if (kind == 7) {
			strcat(text,
			       rand_r(seed) % 2 ? "# c \\" : "\t; [core]");
			strcat(text, PICK(seed, ends));
			continue;
		}
		strcat(text, rand_r(seed) % 2 ? "\t" : "");
		strcat(text, PICK(seed, keys));
		if (rand_r(seed) % 5 != 0) {
			strcat(text, rand_r(seed) % 2 ? " = " : "=");
			for (int j = rand_r(seed) % 5; j >= 0; j--)
				strcat(text, PICK(seed, values));
		}
		strcat(text, PICK(seed, ends));
	}
}

/*
 * Random texts of git's tricky pieces, against git as above: a fixed
 * seed, so that a failure comes back; LLW_GITCONFIG_FUZZ sets how many
 * (a longer hunt by hand).
 */
static void
test_each_git_random(void **state)
{
	const char *env = getenv("LLW_GITCONFIG_FUZZ");
	unsigned long rounds = env != NULL ? strtoul(env, NULL, 10) : 300;
	unsigned int seed = 34;
	unsigned long compared = 0, refused = 0;

	(void)state;
	if (system("git --version >/dev/null 2>&1") != 0) {
		print_message("# SKIP git is not installed\n");
		skip();
	}
	for (unsigned long i = 0; i < rounds; i++) {
		char text[1024];
		_cleanup_free_ char *git = NULL;
		struct each_z z = { .buf = NULL, .len = 0 };
		size_t len;
		int r;

		random_text(&seed, text);
		r = git_list(text, &git, &len);
		gitconfig_each(text, each_z, &z);
		compared += !z.unreadable;
		refused += r < 0;
		if (!z.unreadable &&
		    (r < 0 || len != z.len ||
		     (len > 0 && memcmp(git, z.buf, len) != 0)))
			fail_msg("round %lu: text '%s': git %s '%s', llwrap "
				 "'%s'",
				 i, text, r < 0 ? "refuses it" : "lists", git,
				 z.buf != NULL ? z.buf : "");
		free(z.buf);
	}
	print_message("# %lu random texts: %lu refused by git, %lu read by "
		      "llwrap as git reads them\n",
		      rounds, refused, compared);
}

static void
test_paths(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_strv_ char **v =
			gitconfig_paths(cases[i].text, "/h/.gitconfig", "/h");
		_cleanup_free_ char *j = strv_join(v, " ");

		if (strcmp(j, cases[i].want) != 0)
			fail_msg("case %zu: got '%s', want '%s'", i, j,
				 cases[i].want);
	}
}

static void
test_no_home(void **state)
{
	_cleanup_strv_ char **v = gitconfig_paths(
		"[include]\npath = ~/x\npath = y\n", "/etc/gitconfig", NULL);
	_cleanup_free_ char *j = strv_join(v, " ");

	(void)state;
	assert_string_equal(j, "i/etc/y");
}

/* ~name/ from name's home as git finds it (getpwnam), normalised, for
 * includes and the core.* files; "~name" alone is that home. */
static void
test_tilde_user(void **state)
{
	struct passwd *pw = getpwuid(getuid());
	_cleanup_free_ char *name = NULL, *text = NULL, *want = NULL;
	_cleanup_strv_ char **v = NULL;
	_cleanup_free_ char *j = NULL;

	(void)state;
	if (pw == NULL || pw->pw_dir[0] != '/' || pw->pw_dir[1] == '\0')
		skip();
	name = xstrdup(pw->pw_name);
	want = xasprintf("i%s/inc f%s/ign i%s", pw->pw_dir, pw->pw_dir,
			 pw->pw_dir);
	text = xasprintf("[include]\npath = ~%s/sub/../inc\n[core]\n"
			 "excludesfile = ~%s/ign\n[includeIf \"x\"]\n"
			 "path = ~%s\n",
			 name, name, name);
	v = gitconfig_paths(text, "/h/.gitconfig", "/h");
	j = strv_join(v, " ");
	assert_string_equal(j, want);
}

/*
 * The configuration given in the environment: each case is its variables
 * (NAME=VALUE, one a line) and what gitconfig_env reads, as git config
 * --list -z names it ("section.sub.key=value", one a line, each with its
 * source after '@'), or "!" and a part of the refusal.
 */
static const struct {
	const char *env, *want;
} env_cases[] = {
	{ "", "" },
	/* git -c and --config-env: 'key'='value', a key alone 'key'=. */
	{ "GIT_CONFIG_PARAMETERS='include.path'='/a/b'",
	  "include.path=/a/b@GIT_CONFIG_PARAMETERS" },
	{ "GIT_CONFIG_PARAMETERS='Core.HooksPath'='.h' 'x.y'= "
	  "'includeIf.gitdir:/W/.PATH'='/p q'",
	  "core.hookspath=.h@GIT_CONFIG_PARAMETERS\n"
	  "x.y@GIT_CONFIG_PARAMETERS\n"
	  "includeif.gitdir:/W/.path=/p q@GIT_CONFIG_PARAMETERS" },
	/* The quoting git writes for a quote and a '!'. */
	{ "GIT_CONFIG_PARAMETERS='a.b'='it'\\''s'\\!''",
	  "a.b=it's!@GIT_CONFIG_PARAMETERS" },
	/* The old 'key=value' form, the key trimmed. */
	{ "GIT_CONFIG_PARAMETERS=' a.b =c=d' 'e.f'",
	  "a.b=c=d@GIT_CONFIG_PARAMETERS\ne.f@GIT_CONFIG_PARAMETERS" },
	/* GIT_CONFIG_COUNT first, in order; its values may be anything. */
	{ "GIT_CONFIG_PARAMETERS='a.b'='2'\nGIT_CONFIG_COUNT=2\n"
	  "GIT_CONFIG_KEY_0=include.path\nGIT_CONFIG_VALUE_0=/x'y\n"
	  "GIT_CONFIG_KEY_1=a.S.b\nGIT_CONFIG_VALUE_1=",
	  "include.path=/x'y@GIT_CONFIG_KEY_0\na.S.b=@GIT_CONFIG_KEY_1\n"
	  "a.b=2@GIT_CONFIG_PARAMETERS" },
	/* The first of a name, as getenv. */
	{ "GIT_CONFIG_COUNT=1\nGIT_CONFIG_KEY_0=a.b\nGIT_CONFIG_VALUE_0=1\n"
	  "GIT_CONFIG_KEY_0=c.d",
	  "a.b=1@GIT_CONFIG_KEY_0" },
	{ "GIT_CONFIG_COUNT=0", "" },
	{ "GIT_CONFIG_COUNT=", "" },
	/* A subsection is as written, dots and all. */
	{ "GIT_CONFIG_PARAMETERS='Url.HTTPS://x.y/.insteadOf'='z'",
	  "url.HTTPS://x.y/.insteadof=z@GIT_CONFIG_PARAMETERS" },
	/* What git refuses. */
	{ "GIT_CONFIG_COUNT=x", "!bogus count in GIT_CONFIG_COUNT" },
	{ "GIT_CONFIG_COUNT=1", "!missing config key GIT_CONFIG_KEY_0" },
	{ "GIT_CONFIG_COUNT=1\nGIT_CONFIG_KEY_0=a.b",
	  "!missing config value GIT_CONFIG_VALUE_0" },
	{ "GIT_CONFIG_COUNT=99999999999", "!too many entries" },
	{ "GIT_CONFIG_COUNT=1\nGIT_CONFIG_KEY_0=\nGIT_CONFIG_VALUE_0=x",
	  "!empty config key" },
	{ "GIT_CONFIG_PARAMETERS='ab'='c'", "!does not contain a section" },
	{ "GIT_CONFIG_PARAMETERS='a.'='c'", "!does not contain variable" },
	{ "GIT_CONFIG_PARAMETERS='a_b.c'='d'", "!invalid key" },
	{ "GIT_CONFIG_PARAMETERS='a.b.1c'='d'", "!invalid key" },
	{ "GIT_CONFIG_PARAMETERS='a.b'='c", "!bogus format" },
	{ "GIT_CONFIG_PARAMETERS='a.b'=c", "!bogus format" },
	{ "GIT_CONFIG_PARAMETERS='a.b'x", "!bogus format" },
	{ "GIT_CONFIG_PARAMETERS=a.b=c", "!bogus format" },
	{ "GIT_CONFIG_PARAMETERS=''", "!bogus config parameter" },
	{ "GIT_CONFIG_PARAMETERS='a.b'='x'\\y", "!bogus format" },
	{ "GIT_CONFIG_PARAMETERS='a.b'\\'c'", "!bogus format" },
	/* Blanks: tabs and runs of them between, and after the last. */
	{ "GIT_CONFIG_PARAMETERS='a.b'='1'\t \t'c.d'='2' ",
	  "a.b=1@GIT_CONFIG_PARAMETERS\nc.d=2@GIT_CONFIG_PARAMETERS" },
	/* An include git cannot read from here ends git. */
	{ "GIT_CONFIG_PARAMETERS='include.path'", "!missing value" },
	{ "GIT_CONFIG_PARAMETERS='include.path'='rel'", "!names no absolute" },
	{ "GIT_CONFIG_COUNT=1\nGIT_CONFIG_KEY_0=include.path\n"
	  "GIT_CONFIG_VALUE_0=",
	  "!names no absolute" },
	/* ... but not where it is no include, an includeIf whose condition
	 * git may not take, or of ~/ or %(prefix)/. */
	{ "GIT_CONFIG_PARAMETERS='includeIf.onbranch:x.path'='r' "
	  "'includeIf.gitdir:/nowhere/.path'",
	  "includeif.onbranch:x.path=r@GIT_CONFIG_PARAMETERS\n"
	  "includeif.gitdir:/nowhere/.path@GIT_CONFIG_PARAMETERS" },
	{ "GIT_CONFIG_PARAMETERS='include.x.path'='rel' 'a.include'='r'",
	  "include.x.path=rel@GIT_CONFIG_PARAMETERS\n"
	  "a.include=r@GIT_CONFIG_PARAMETERS" },
	{ "GIT_CONFIG_PARAMETERS='include.path'='~/x' "
	  "'include.path'='%(prefix)/y'",
	  "include.path=~/x@GIT_CONFIG_PARAMETERS\n"
	  "include.path=%(prefix)/y@GIT_CONFIG_PARAMETERS" },
};

/* The environment of a case: its lines, a new vector. */
static char **
env_of(const char *text)
{
	char **v = xcalloc(1, sizeof(char *));
	_cleanup_free_ char *copy = xstrdup(text);
	char *save = NULL;

	for (char *l = strtok_r(copy, "\n", &save); l != NULL;
	     l = strtok_r(NULL, "\n", &save))
		strv_push(&v, l);
	return v;
}

/* What gitconfig_env reads from env, as the table writes it (sep between
 * the name and the source: "@", or "" and no source when NULL). */
static char *
env_read(char *const *env, const char *sep)
{
	struct gitconfig_var *vars = NULL;
	_cleanup_free_ char *cause = NULL;
	_cleanup_strv_ char **v = xcalloc(1, sizeof(char *));
	size_t n = 0;

	if (gitconfig_env(env, "/h", &vars, &n, &cause) < 0)
		return xasprintf("!%s", cause);
	for (size_t i = 0; i < n; i++)
		strv_push_take(
			&v,
			xasprintf("%s%s%s.%s%s%s%s%s", vars[i].section,
				  vars[i].sub != NULL ? "." : "",
				  vars[i].sub != NULL ? vars[i].sub : "",
				  vars[i].key, vars[i].value != NULL ? "=" : "",
				  vars[i].value != NULL ? vars[i].value : "",
				  sep != NULL ? sep : "",
				  sep != NULL ? vars[i].source : ""));
	gitconfig_vars_free(vars, n);
	return strv_join(v, "\n");
}

static void
test_env(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(env_cases); i++) {
		_cleanup_strv_ char **env = env_of(env_cases[i].env);
		_cleanup_free_ char *got = env_read(env, "@");
		const char *want = env_cases[i].want;

		if (want[0] == '!'
			    ? got[0] != '!' || strstr(got, want + 1) == NULL
			    : strcmp(got, want) != 0)
			fail_msg("case %zu: got '%s', want '%s'", i, got, want);
	}
}

/*
 * What git lists from the configuration of env alone (no system or
 * global file, outside any repository), as env_read writes it without
 * sources ("name=value" a line); -1 when git refuses it.
 */
static int
git_env_list(char *const *env, char **out)
{
	_cleanup_strv_ char **e = NULL;
	_cleanup_strv_ char **v = xcalloc(1, sizeof(char *));
	char buf[4096], *all = NULL;
	size_t len = 0;
	ssize_t n;
	int pipefd[2], status;
	pid_t pid;

	strv_push(&e, "GIT_CONFIG_NOSYSTEM=1");
	strv_push(&e, "GIT_CONFIG_GLOBAL=/dev/null");
	strv_push(&e, "HOME=/h");
	strv_push(&e, "PATH=/usr/local/bin:/usr/bin:/bin");
	for (char *const *p = env; *p != NULL; p++)
		strv_push(&e, *p);
	if (pipe(pipefd) < 0 || (pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		char *argv[] = { "git", "config", "--list", "-z", NULL };

		dup2(pipefd[1], 1);
		close(pipefd[0]);
		if (freopen("/dev/null", "w", stderr) == NULL || chdir("/") < 0)
			_exit(126);
		execvpe("git", argv, e);
		_exit(127);
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], buf, sizeof(buf))) > 0) {
		all = xreallocarray(all, len + (size_t)n + 1, 1);
		memcpy(all + len, buf, (size_t)n);
		len += (size_t)n;
	}
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		free(all);
		return -1;
	}
	/* "name\nvalue\0" or "name\0": as env_read's lines. */
	for (size_t at = 0; at < len; at += strlen(all + at) + 1) {
		char *nl = strchr(all + at, '\n');

		if (nl != NULL)
			*nl = '=';
		strv_push(&v, all + at);
	}
	free(all);
	*out = strv_join(v, "\n");
	return 0;
}

/* Each case as git reads it: refused by both, or read alike. */
static void
test_env_git(void **state)
{
	(void)state;
	if (system("git --version >/dev/null 2>&1") != 0) {
		print_message("# SKIP git is not installed\n");
		skip();
	}
	for (size_t i = 0; i < ARRAY_LEN(env_cases); i++) {
		_cleanup_strv_ char **env = env_of(env_cases[i].env);
		_cleanup_free_ char *got = env_read(env, NULL);
		_cleanup_free_ char *git = NULL;
		int r = git_env_list(env, &git);

		/* (git expands no %(prefix)/ it cannot follow.) */
		if (strstr(env_cases[i].env, "%(prefix)") != NULL)
			continue;
		if (r < 0 && got[0] != '!')
			fail_msg("case %zu: git refuses it, llwrap reads '%s'",
				 i, got);
		if (r == 0 && strcmp(got, git) != 0)
			fail_msg("case %zu: git lists '%s', llwrap '%s'", i,
				 git, got);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each),
		cmocka_unit_test(test_each_stop),
		cmocka_unit_test(test_each_many_unsure),
		cmocka_unit_test(test_each_git),
		cmocka_unit_test(test_each_git_random),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_no_home),
		cmocka_unit_test(test_tilde_user),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_env_git),
	};

	return cmocka_run_group_tests_name("gitconfig", tests, NULL, NULL);
}
