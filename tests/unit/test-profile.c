/*
 * Unit tests for src/profile.c: every key, lists, continuation lines,
 * "none", variables, and every error with its exact file:line prefix.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cleanup.h"
#include "profile.h"
#include "value.h"
#include "strv.h"
#include "xalloc.h"

DEFINE_CLEANUP_FUNC(struct profile, profile_free)
DEFINE_CLEANUP_FUNC(struct vars, vars_free)

#define FILE_NAME "/t/p.ini"

static char *const test_env[] = {
	"HOME=/home/u",	     "USER=u", "XDG_CONFIG_HOME=/cfg",
	"TMPDIR=/var/tmp/u", NULL,
};

static struct vars *
test_vars(void)
{
	return vars_new(test_env, "/home/u/proj", "tool");
}

/*
 * A profile as text: one line per entry "section.key=v1|v2@line", then
 * "description=...", "include=...", "command=...", "project=..." when set.
 */
static char *
dump(const struct profile *p)
{
	char *out = xstrdup("");

	for (size_t i = 0; i < p->n_entries; i++) {
		const struct profile_entry *e = &p->entries[i];
		_cleanup_free_ char *vals = xstrdup(e->none ? "none" : "");
		char *n;

		for (size_t j = 0; j < e->n_values; j++) {
			_cleanup_free_ char *v =
				profile_value_format(e->key, &e->values[j]);

			n = xasprintf("%s%s%s", vals, j > 0 ? "|" : "", v);
			free(vals);
			vals = n;
		}
		n = xasprintf("%s%s.%s=%s@%u\n", out, e->key->section,
			      e->key->name, vals, e->line);

		free(out);
		out = n;
	}
	if (p->description != NULL) {
		char *n = xasprintf("%sdescription=%s\n", out, p->description);

		free(out);
		out = n;
	}
	if (p->match_command != NULL) {
		_cleanup_free_ char *j = strv_join(p->match_command, "|");
		char *n = xasprintf("%scommand=%s\n", out, j);

		free(out);
		out = n;
	}
	if (p->match_project != NULL) {
		_cleanup_free_ char *j = strv_join(p->match_project, "|");
		char *n = xasprintf("%sproject=%s\n", out, j);

		free(out);
		out = n;
	}
	return out;
}

/* Valid profiles and what they parse to. */
static const struct {
	const char *text, *dump;
} good_cases[] = {
	/* Every key of [filesystem], with expansion and normalisation. */
	{ "[filesystem]\nro = /etc ~ ~/.gitconfig\n",
	  "filesystem.ro=/etc|/home/u|/home/u/.gitconfig@2\n" },
	{ "[filesystem]\nrx = /usr//lib/./x/../y/\n",
	  "filesystem.rx=/usr/lib/y@2\n" },
	{ "[filesystem]\nrw = ${PROJECT}\nrwx = ${TMPDIR}/b\n",
	  "filesystem.rw=/home/u/proj@2\nfilesystem.rwx=/var/tmp/u/b@3\n" },
	{ "[filesystem]\ndeny = ${HOME}/.ssh /..\n",
	  "filesystem.deny=/home/u/.ssh|/@2\n" },
	{ "[filesystem]\nrw = none\n", "filesystem.rw=none@2\n" },
	/* Repeated keys append; continuation lines continue a key. */
	{ "[filesystem]\nrw = /a\nrw = /b\n",
	  "filesystem.rw=/a@2\nfilesystem.rw=/b@3\n" },
	{ "[filesystem]\nrw = /a\n     /b /c\n\t/d ; comment\n",
	  "filesystem.rw=/a@2\nfilesystem.rw=/b|/c@3\nfilesystem.rw=/d@4\n" },
	{ "[filesystem]\nrw =\n  /a\n", "filesystem.rw=/a@3\n" },
	/* Comments: ';' and '#' lines, inline ';' after a blank. */
	{ "# c\n; c\n[network]\n  # indented comment\nmode = host ; c\n",
	  "network.mode=host@5\n" },
	/* [network]. */
	{ "[network]\nmode = none\n", "network.mode=none@2\n" },
	{ "[network]\nmode = filtered\n", "network.mode=filtered@2\n" },
	{ "[network]\nconnect-tcp = 443 80,8000-8100\n",
	  "network.connect-tcp=443|80|8000-8100@2\n" },
	{ "[network]\nbind-tcp = 0\nconnect-udp = 53\nbind-udp = 0-65535\n",
	  "network.bind-tcp=0@2\nnetwork.connect-udp=53@3\n"
	  "network.bind-udp=0-65535@4\n" },
	{ "[network]\nconnect-tcp = none\n", "network.connect-tcp=none@2\n" },
	{ "[network]\nunix-sockets = allow\n",
	  "network.unix-sockets=allow@2\n" },
	{ "[network]\nallow-cidr = 10.0.0.0/8 ::1/128:8080 [::1]:80,443\n",
	  "network.allow-cidr=10.0.0.0/8|::1/128:8080|::1/128:80,443@2\n" },
	{ "[network]\nunix = /run/pg/.s.PGSQL.5432\n",
	  "network.unix=/run/pg/.s.PGSQL.5432@2\n" },
	{ "[network]\nlisten = 127.0.0.1:8080 [::1]:0\n",
	  "network.listen=127.0.0.1:8080|[::1]:0@2\n" },
	{ "[network]\ndns = 1.1.1.1 2606:4700::1111\n",
	  "network.dns=1.1.1.1|2606:4700::1111@2\n" },
	{ "[network]\nlog-blocked = no\nlog-prefix = oc-%n-blocked x\n",
	  "network.log-blocked=no@2\nnetwork.log-prefix=oc-%n-blocked x@3\n" },
	/* [environment]. */
	{ "[environment]\nkeep = PATH LC_* XDG_*_HOME\n",
	  "environment.keep=PATH|LC_*|XDG_*_HOME@2\n" },
	{ "[environment]\nset = A=1 B= C=${HOME}/x D=~\n",
	  "environment.set=A=1|B=|C=/home/u/x|D=~@2\n" },
	{ "[environment]\nunset = AWS_* GITHUB_TOKEN\n",
	  "environment.unset=AWS_*|GITHUB_TOKEN@2\n" },
	{ "[environment]\nkeep = none\n", "environment.keep=none@2\n" },
	/* [process], [profile], [match]. */
	{ "[process]\nptrace = deny\n", "process.ptrace=deny@2\n" },
	{ "[process]\nhide-processes = yes\n",
	  "process.hide-processes=yes@2\n" },
	{ "[filesystem]\nprivate-tmp = no\n", "filesystem.private-tmp=no@2\n" },
	{ "[profile]\nbest-effort = yes\n", "profile.best-effort=yes@2\n" },
	{ "[profile]\ninclude = default ./x.ini\n  ${HOME}/y.ini\n",
	  "profile.include=default|./x.ini@2\n"
	  "profile.include=/home/u/y.ini@3\n" },
	{ "[profile]\ndescription = an agent ; c\n  over two lines\n",
	  "description=an agent over two lines\n" },
	{ "[match]\ncommand = opencode oc\nproject = ~/work /srv/\n",
	  "command=opencode|oc\nproject=/home/u/work|/srv\n" },
	/* Variables, with their XDG defaults. */
	{ "[filesystem]\nro = ${XDG_CONFIG_HOME} ${XDG_DATA_HOME}\n"
	  "     ${XDG_STATE_HOME} ${XDG_CACHE_HOME}\n",
	  "filesystem.ro=/cfg|/home/u/.local/share@2\n"
	  "filesystem.ro=/home/u/.local/state|/home/u/.cache@3\n" },
	{ "[filesystem]\nro = /n/${NAME} /u/${USER}\n",
	  "filesystem.ro=/n/tool|/u/u@2\n" },
	/* An empty file and an empty value are fine. */
	{ "", "" },
	{ "[filesystem]\nrw =\n", "" },
	/* The longest line accepted: 190 bytes. */
	{ "[filesystem]\nro = /"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
	  "filesystem.ro=/"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa@2\n" },
	/* CRLF line ends. */
	{ "[network]\r\nmode = host\r\n", "network.mode=host@2\n" },
	/* Quoted paths keep their blanks; \" and \\ inside quotes. */
	{ "[filesystem]\nro = \"/a b\" ~/\"My Files\"/x /c\n",
	  "filesystem.ro=/a b|/home/u/My Files/x|/c@2\n" },
	{ "[filesystem]\nro = \"/q\\\"x\\\\y\"\n",
	  "filesystem.ro=/q\"x\\y@2\n" },
	/* "?PATH": a grant that may be missing. */
	{ "[filesystem]\nrx = ?/nix/store ?~/bin\n",
	  "filesystem.rx=?/nix/store|?/home/u/bin@2\n" },
	{ "[filesystem]\ngit-config = ~/.gitconfig\n",
	  "filesystem.git-config=/home/u/.gitconfig@2\n" },
};

static void
test_good(void **state)
{
	attribute_cleanup(vars_freep) struct vars *v = test_vars();

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good_cases); i++) {
		attribute_cleanup(profile_freep) struct profile *p = NULL;
		_cleanup_free_ char *cause = NULL;
		_cleanup_free_ char *d = NULL;
		int r;

		r = profile_parse_string(FILE_NAME, good_cases[i].text,
					 PROFILE_KIND_NORMAL, v, &p, &cause);
		if (r != 0)
			fail_msg("case %zu: %s", i, cause);
		assert_non_null(p);
		assert_string_equal(p->file, FILE_NAME);
		d = dump(p);
		if (strcmp(d, good_cases[i].dump) != 0)
			fail_msg("case %zu:\n got: %s\nwant: %s", i, d,
				 good_cases[i].dump);
	}
}

#define L191                                                                   \
	"[filesystem]\nro = /"                                                 \
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"   \
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"   \
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n"

/* Errors: the text, the kind, and the exact start of the cause. */
static const struct {
	const char *text;
	enum profile_kind kind;
	const char *cause;
} bad_cases[] = {
	/* inih's "key: value" is not llwrap's syntax. */
	{ "[filesystem]\nrwx: ~/bin\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: expected 'key = value', '[section]' or a comment "
		    "(the separator is '=', not ':')." },
	{ "[filesystem]\nro = \"/a b\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [filesystem] ro: a '\"' is not closed" },
	{ "[filesystem]\ndeny = ?/a\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [filesystem] deny: '?' (the path may be missing) "
		    "is only for ro, rx, rw, rwx, touch and copy's "
		    "source." },
	{ "[filesystem]\ncopy = /a\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [filesystem] copy takes a source and a "
		    "destination on one line, copy = SRC DST (the source may "
		    "be written ?SRC), not 1 path." },
	{ "[filesystem]\ncopy = /a /b /c\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [filesystem] copy takes a source" },
	{ "[filesystem]\ncopy = /a ?/b\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [filesystem] copy takes a source" },
	{ "[filesystem]\ncopy = ~/a ~/b\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: "
		    "[filesystem] copy is not allowed here" },
	{ "[filesystem]\ngit-config = ~/.gitconfig\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: "
		    "[filesystem] git-config is not allowed here" },
	{ "[bogus]\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":1: unknown section [bogus]; the sections are [profile], "
		    "[filesystem], [network], [environment], [process], "
		    "[limits] and [match]." },
	{ "\n\n[network]\nmode = host\n[ network ]\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":5: unknown section [ network ]" },
	{ "[filesystem]\nrox = /a\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: unknown key 'rox' in section [filesystem]" },
	{ "[network]\nro = /a\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: key 'ro' belongs in section [filesystem], not "
		    "[network]." },
	{ "[filesystem]\nconnect-tcp = 443\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: key 'connect-tcp' belongs in section [network], not "
		    "[filesystem]." },
	{ "mode = none\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":1: key 'mode' is outside any section; put it under "
		    "[profile], [filesystem], [network], [environment], "
		    "[process], [limits] or [match]." },
	{ "[filesystem]\nro = ${NOPE}/x\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: unknown variable ${NOPE}" },
	{ "[filesystem]\nro = ${HOME\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: unterminated variable" },
	{ "[filesystem]\nrw = /a\n  relative/b\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":3: [filesystem] rw: path 'relative/b' is not absolute" },
	{ "[filesystem]\nro = ~user/x\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [filesystem] ro: path '~user/x' is not absolute" },
	{ "[network]\nunix = sock\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] unix: path 'sock' is not absolute" },
	{ "[match]\nproject = work\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [match] project: path 'work' is not absolute" },
	{ L191, PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: line is too long (191 bytes, at most 190)" },
	{ "[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":1: section name is too long (41 characters, at most "
		    "40)" },
	{ "[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":1: unknown section [aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		    "aaaa]" },
	{ "[network\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":1: section header without ']'" },
	{ "[network]\njust words\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: expected 'key = value'" },
	/* Ports. */
	{ "[network]\nconnect-tcp = 65536\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] connect-tcp: bad port or range '65536'" },
	{ "[network]\nbind-tcp = 90-80\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] bind-tcp: bad port or range '90-80'" },
	{ "[network]\nconnect-udp = -1\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] connect-udp: bad port or range '-1'" },
	{ "[network]\nbind-udp = 1-\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] bind-udp: bad port or range '1-'" },
	{ "[network]\nconnect-tcp = https\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] connect-tcp: bad port or range 'https'" },
	{ "[network]\nconnect-tcp = 443 none\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] connect-tcp: 'none' clears the list and "
		    "must stand alone" },
	/* CIDR, listen, dns. */
	{ "[network]\nallow-cidr = 10.0.0.0/33\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] allow-cidr: bad CIDR '10.0.0.0/33'" },
	{ "[network]\nallow-cidr = ::1/129\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] allow-cidr: bad CIDR '::1/129'" },
	{ "[network]\nallow-cidr = 10.0.0.0/8:99999\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] allow-cidr: bad CIDR '10.0.0.0/8:99999'" },
	{ "[network]\nallow-cidr = 300.1.1.1\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] allow-cidr: bad CIDR '300.1.1.1'" },
	{ "[network]\nlisten = 127.0.0.1\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] listen: bad address '127.0.0.1'" },
	{ "[network]\nlisten = ::1:8080\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] listen: bad address '::1:8080'" },
	{ "[network]\ndns = resolver.local\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] dns: bad IP address 'resolver.local'" },
	/* Booleans and enums. */
	{ "[profile]\nbest-effort = maybe\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [profile] best-effort: bad value 'maybe'; use 'yes' "
		    "or 'no'." },
	{ "[network]\nlog-blocked = true\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] log-blocked: bad value 'true'" },
	{ "[network]\nmode = open\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] mode: bad value 'open'; use 'none', "
		    "'filtered' or 'host'." },
	{ "[network]\nmode = none host\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] mode takes one value, not 2." },
	{ "[network]\nunix-sockets = yes\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] unix-sockets: bad value 'yes'; use 'allow' "
		    "or 'deny'." },
	{ "[process]\nptrace = no\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [process] ptrace: bad value 'no'" },
	/* Environment names. */
	{ "[environment]\nset = 1A=x\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [environment] set: '1A=x' is not NAME=VALUE" },
	{ "[environment]\nset = NOVALUE\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [environment] set: 'NOVALUE' is not NAME=VALUE" },
	{ "[environment]\nset = A-B=1\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [environment] set: 'A-B=1' is not NAME=VALUE" },
	{ "[environment]\nkeep = A.B\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [environment] keep: bad environment variable name "
		    "or glob 'A.B'" },
	{ "[environment]\nunset = $X\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [environment] unset: bad environment variable name "
		    "or glob '$X'" },
	/* [match] and include. */
	{ "[match]\ncommand = /usr/bin/opencode\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [match] command: '/usr/bin/opencode' must be a "
		    "command name" },
	{ "[match]\ncommand = none\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [match] command cannot be 'none'." },
	{ "[match]\nprofile = ./default.ini\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [match] profile: './default.ini' must be a "
		    "profile name (NAME for NAME.ini), not a path." },
	{ "[match]\nprofile = none\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [match] profile cannot be 'none'." },
	{ "[profile]\ninclude = none\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [profile] include cannot be 'none'." },
	/* Only the first error is reported. */
	{ "[network]\nmode = x\nmode = y\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [network] mode: bad value 'x'" },
	/* .llwrap.ini: the keys and values that always widen. */
	{ "[profile]\ninclude = default\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: [profile] "
		    "include" },
	{ "[profile]\nbest-effort = yes\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: [profile] "
		    "best-effort" },
	{ "[filesystem]\nrw = /x\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: "
		    "[filesystem] rw" },
	{ "[filesystem]\nrwx = /x\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: "
		    "[filesystem] rwx" },
	{ "[filesystem]\ndeny = none\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: "
		    "[filesystem] deny" },
	{ "[network]\nunix-sockets = allow\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: [network] "
		    "unix-sockets" },
	{ "[network]\nallow-cidr = 10.0.0.0/8\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: [network] "
		    "allow-cidr" },
	{ "[network]\nunix = /run/x\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: [network] "
		    "unix" },
	{ "[network]\nlisten = 127.0.0.1:80\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: [network] "
		    "listen" },
	{ "[network]\ndns = 1.1.1.1\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: [network] "
		    "dns" },
	{ "[environment]\nkeep = FOO\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: "
		    "[environment] keep" },
	{ "[environment]\nset = FOO=1\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: "
		    "[environment] set" },
	{ "[environment]\nunset = none\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: "
		    "[environment] unset" },
	{ "[process]\nptrace = allow\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: [process] "
		    "ptrace" },
	{ "[filesystem]\nprivate-tmp = no\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: "
		    "[filesystem] private-tmp" },
	{ "[filesystem]\nprivate-tmp = none\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: "
		    "[filesystem] private-tmp" },
	{ "[process]\nhide-processes = no\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: [process] "
		    "hide-processes" },
	{ "[process]\nhide-processes = maybe\n", PROFILE_KIND_NORMAL,
	  FILE_NAME ":2: [process] hide-processes: bad value 'maybe'" },
	{ "[match]\ncommand = x\n", PROFILE_KIND_PROJECT,
	  FILE_NAME ":2: .llwrap.ini may only tighten the policy: [match] "
		    "command" },
};

static void
test_bad(void **state)
{
	attribute_cleanup(vars_freep) struct vars *v = test_vars();

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		struct profile *p = NULL;
		_cleanup_free_ char *cause = NULL;
		int r;

		r = profile_parse_string(FILE_NAME, bad_cases[i].text,
					 bad_cases[i].kind, v, &p, &cause);
		if (r != -EINVAL || cause == NULL)
			fail_msg("case %zu: r=%d, no error", i, r);
		assert_null(p);
		if (strncmp(cause, bad_cases[i].cause,
			    strlen(bad_cases[i].cause)) != 0)
			fail_msg("case %zu:\n got: %s\nwant: %s...", i, cause,
				 bad_cases[i].cause);
	}
}

/* What .llwrap.ini may say. */
static void
test_project_allowed(void **state)
{
	attribute_cleanup(vars_freep) struct vars *v = test_vars();
	attribute_cleanup(profile_freep) struct profile *p = NULL;
	_cleanup_free_ char *cause = NULL;
	_cleanup_free_ char *d = NULL;
	int r;

	(void)state;
	r = profile_parse_string(
		"/home/u/proj/.llwrap.ini",
		"[profile]\ndescription = mine\nbest-effort = no\n"
		"[filesystem]\ndeny = ${PROJECT}/.env\nro = ${PROJECT}/doc\n"
		"rx = ${PROJECT}/bin\n"
		"[network]\nmode = none\nconnect-tcp = 443\nbind-tcp = none\n"
		"unix-sockets = deny\n"
		"[environment]\nunset = AWS_*\n[process]\nptrace = deny\n",
		PROFILE_KIND_PROJECT, v, &p, &cause);
	if (r != 0)
		fail_msg("%s", cause);
	d = dump(p);
	assert_string_equal(d, "profile.best-effort=no@3\n"
			       "filesystem.deny=/home/u/proj/.env@5\n"
			       "filesystem.ro=/home/u/proj/doc@6\n"
			       "filesystem.rx=/home/u/proj/bin@7\n"
			       "network.mode=none@9\n"
			       "network.connect-tcp=443@10\n"
			       "network.bind-tcp=none@11\n"
			       "network.unix-sockets=deny@12\n"
			       "environment.unset=AWS_*@14\n"
			       "process.ptrace=deny@16\n"
			       "description=mine\n");
	assert_int_equal(p->kind, PROFILE_KIND_PROJECT);
}

/* The command line is a profile built with profile_add(). */
static void
test_cli(void **state)
{
	attribute_cleanup(vars_freep) struct vars *v = test_vars();
	attribute_cleanup(profile_freep) struct profile *p =
		profile_new("command line", PROFILE_KIND_CLI);
	_cleanup_free_ char *cause = NULL;
	_cleanup_free_ char *cause2 = NULL;
	_cleanup_free_ char *cause3 = NULL;
	_cleanup_free_ char *d = NULL;

	(void)state;
	assert_int_equal(
		profile_add(p, v, "filesystem", "rw", "~/x", 0, &cause), 0);
	assert_int_equal(profile_add(p, v, "network", "connect-tcp", "443,80",
				     0, &cause),
			 0);
	assert_int_equal(
		profile_add(p, v, "profile", "best-effort", "yes", 0, &cause),
		0);
	assert_null(cause);
	d = dump(p);
	assert_string_equal(d, "filesystem.rw=/home/u/x@0\n"
			       "network.connect-tcp=443|80@0\n"
			       "profile.best-effort=yes@0\n");

	assert_int_equal(
		profile_add(p, v, "filesystem", "ro", "rel", 0, &cause),
		-EINVAL);
	assert_string_equal(cause, "command line: [filesystem] ro: path 'rel' "
				   "is not absolute; start it with '/', '~/' "
				   "or a variable such as ${PROJECT}.");
	assert_int_equal(
		profile_add(p, v, "profile", "include", "x", 0, &cause2),
		-EINVAL);
	assert_string_equal(cause2, "command line: [profile] include cannot "
				    "be given on the command line; use -p for "
				    "profiles.");
	assert_int_equal(
		profile_add(p, v, "network", "bind-tcp", "1,x", 0, &cause3),
		-EINVAL);
	assert_non_null(strstr(cause3, "bad port or range 'x'"));
	/* Failed additions leave the profile as it was. */
	assert_int_equal(p->n_entries, 3);
	{
		/* A flag is one path: blanks and quotes are part of it. */
		attribute_cleanup(profile_freep) struct profile *q =
			profile_new("command line", PROFILE_KIND_CLI);
		_cleanup_free_ char *dq = NULL;

		assert_int_equal(profile_add(q, v, "filesystem", "ro", "/x/c d",
					     0, &cause3),
				 0);
		assert_int_equal(profile_add(q, v, "filesystem", "deny",
					     "/a /b", 0, &cause3),
				 0);
		assert_int_equal(profile_add(q, v, "filesystem", "ro",
					     "/q\"uo\"te", 0, &cause3),
				 0);
		dq = dump(q);
		assert_string_equal(dq, "filesystem.ro=/x/c d@0\n"
					"filesystem.deny=/a /b@0\n"
					"filesystem.ro=/q\"uo\"te@0\n");
	}
}

/* Variables and their defaults. */
static const struct {
	char *const *env;
	const char *name, *value;
} var_cases[] = {
	{ (char *const[]){ "HOME=/h", NULL }, "HOME", "/h" },
	{ (char *const[]){ "HOME=/h", NULL }, "XDG_CONFIG_HOME", "/h/.config" },
	{ (char *const[]){ "HOME=/h", NULL }, "XDG_DATA_HOME",
	  "/h/.local/share" },
	{ (char *const[]){ "HOME=/h", NULL }, "XDG_STATE_HOME",
	  "/h/.local/state" },
	{ (char *const[]){ "HOME=/h", NULL }, "XDG_CACHE_HOME", "/h/.cache" },
	{ (char *const[]){ "HOME=/h", "XDG_CACHE_HOME=/c", NULL },
	  "XDG_CACHE_HOME", "/c" },
	/* Relative XDG values are ignored, as the specification says. */
	{ (char *const[]){ "HOME=/h", "XDG_DATA_HOME=rel", NULL },
	  "XDG_DATA_HOME", "/h/.local/share" },
	{ (char *const[]){ "HOME=/", NULL }, "XDG_CONFIG_HOME", "/.config" },
	{ (char *const[]){ NULL }, "XDG_CONFIG_HOME", NULL },
	{ (char *const[]){ NULL }, "HOME", NULL },
	{ (char *const[]){ NULL }, "TMPDIR", "/tmp" },
	{ (char *const[]){ "TMPDIR=/t", NULL }, "TMPDIR", "/t" },
	{ (char *const[]){ "XDG_RUNTIME_DIR=/r", NULL }, "XDG_RUNTIME_DIR",
	  "/r" },
	{ (char *const[]){ "LOGNAME=l", NULL }, "USER", "l" },
	{ (char *const[]){ "USER=u", "LOGNAME=l", NULL }, "USER", "u" },
	{ (char *const[]){ NULL }, "USER", NULL },
	{ (char *const[]){ NULL }, "PROJECT", "/p" },
	{ (char *const[]){ NULL }, "NAME", "n" },
	{ (char *const[]){ "FOO=bar", NULL }, "FOO", NULL },
};

static void
test_vars_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(var_cases); i++) {
		attribute_cleanup(vars_freep) struct vars *v =
			vars_new(var_cases[i].env, "/p", "n");
		const char *got = vars_get(v, var_cases[i].name);

		if (var_cases[i].value == NULL) {
			if (got != NULL)
				fail_msg("case %zu: %s = %s, want unset", i,
					 var_cases[i].name, got);
		} else {
			if (got == NULL || strcmp(got, var_cases[i].value) != 0)
				fail_msg("case %zu: %s = %s, want %s", i,
					 var_cases[i].name,
					 got ? got : "(unset)",
					 var_cases[i].value);
		}
	}
}

static void
test_vars_uid_runtime(void **state)
{
	attribute_cleanup(vars_freep) struct vars *v =
		vars_new(test_env, NULL, NULL);
	_cleanup_free_ char *uid = xasprintf("%u", (unsigned)getuid());
	_cleanup_free_ char *run =
		xasprintf("/run/user/%u", (unsigned)getuid());

	(void)state;
	assert_string_equal(vars_get(v, "UID"), uid);
	assert_string_equal(vars_get(v, "XDG_RUNTIME_DIR"), run);
	assert_null(vars_get(v, "PROJECT"));
	assert_null(vars_get(v, "NAME"));
}

static const struct {
	const char *in, *out, *err;
} expand_cases[] = {
	{ "~", "/home/u", NULL },
	{ "~/a", "/home/u/a", NULL },
	{ "/x/~", "/x/~", NULL },
	{ "${HOME}${HOME}", "/home/u/home/u", NULL },
	{ "$HOME", "$HOME", NULL },
	{ "a${USER}b", "aub", NULL },
	{ "${X}", NULL, "unknown variable ${X}" },
	{ "${PROJECT}", NULL, "variable ${PROJECT} has no value here" },
	{ "${HOME", NULL, "unterminated variable in '${HOME'" },
};

static void
test_vars_expand(void **state)
{
	attribute_cleanup(vars_freep) struct vars *v =
		vars_new(test_env, NULL, "n");

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(expand_cases); i++) {
		_cleanup_free_ char *out = NULL;
		_cleanup_free_ char *cause = NULL;
		int r = vars_expand(v, expand_cases[i].in, &out, &cause);

		if (expand_cases[i].out != NULL) {
			assert_int_equal(r, 0);
			assert_string_equal(out, expand_cases[i].out);
		} else {
			assert_int_equal(r, -EINVAL);
			assert_null(out);
			if (strncmp(cause, expand_cases[i].err,
				    strlen(expand_cases[i].err)) != 0)
				fail_msg("case %zu: %s", i, cause);
		}
	}
}

static const struct {
	const char *s;
	int r;
	uint16_t lo, hi;
} range_cases[] = {
	{ "0", 0, 0, 0 },
	{ "443", 0, 443, 443 },
	{ "65535", 0, 65535, 65535 },
	{ "8000-8100", 0, 8000, 8100 },
	{ "5-5", 0, 5, 5 },
	{ "65536", -EINVAL, 0, 0 },
	{ "6-5", -EINVAL, 0, 0 },
	{ "", -EINVAL, 0, 0 },
	{ "1-", -EINVAL, 0, 0 },
	{ "-1", -EINVAL, 0, 0 },
	{ "1x", -EINVAL, 0, 0 },
	{ "+1", -EINVAL, 0, 0 },
	{ "1 2", -EINVAL, 0, 0 },
};

static void
test_port_range(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(range_cases); i++) {
		uint16_t lo = 1, hi = 1;
		int r = value_port_range(range_cases[i].s, &lo, &hi, NULL);

		if (r != range_cases[i].r)
			fail_msg("case %zu '%s': r=%d", i, range_cases[i].s, r);
		if (r == 0) {
			assert_int_equal(lo, range_cases[i].lo);
			assert_int_equal(hi, range_cases[i].hi);
		}
	}
}

/* allow-cidr and listen syntax, one value each. */
static const struct {
	const char *key, *value;
	bool ok;
} net_cases[] = {
	{ "allow-cidr", "10.0.0.0/8", true },
	{ "allow-cidr", "10.10.0.0/16:443", true },
	{ "allow-cidr", "0.0.0.0/0", true },
	{ "allow-cidr", "192.168.1.1", true },
	{ "allow-cidr", "192.168.1.1:22", true },
	{ "allow-cidr", "10.0.0.0/8:443,8000-8100", true },
	{ "allow-cidr", "::1", true },
	{ "allow-cidr", "::1/128:8080", true },
	{ "allow-cidr", "fe80::/10", true },
	{ "allow-cidr", "[::1]:8080", true },
	{ "allow-cidr", "[2001:db8::]/32:80,443", true },
	{ "allow-cidr", "10.0.0.0/33", false },
	{ "allow-cidr", "::/129", false },
	{ "allow-cidr", "10.0.0.0/", false },
	{ "allow-cidr", "10.0.0.0/8:", false },
	{ "allow-cidr", "10.0.0.0/8:1,", false },
	{ "allow-cidr", "10.0.0.0/8:9-1", false },
	{ "allow-cidr", "10.0.0.0/8x", false },
	{ "allow-cidr", "[10.0.0.1]:80", false },
	{ "allow-cidr", "[::1", false },
	{ "allow-cidr", "example.com", false },
	{ "listen", "127.0.0.1:8080", true },
	{ "listen", "0.0.0.0:0", true },
	{ "listen", "[::1]:65535", true },
	{ "listen", "127.0.0.1:65536", false },
	{ "listen", "127.0.0.1:", false },
	{ "listen", "[::1]", false },
	{ "listen", "[127.0.0.1]:80", false },
	{ "listen", "localhost:80", false },
	{ "dns", "::1", true },
	{ "dns", "9.9.9.9", true },
	{ "dns", "9.9.9.9:53", false },
};

static void
test_network_syntax(void **state)
{
	attribute_cleanup(vars_freep) struct vars *v = test_vars();

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(net_cases); i++) {
		attribute_cleanup(profile_freep) struct profile *p =
			profile_new("f", PROFILE_KIND_NORMAL);
		_cleanup_free_ char *cause = NULL;
		int r = profile_add(p, v, "network", net_cases[i].key,
				    net_cases[i].value, 7, &cause);

		if ((r == 0) != net_cases[i].ok)
			fail_msg("case %zu %s '%s': r=%d %s", i,
				 net_cases[i].key, net_cases[i].value, r,
				 cause ? cause : "");
		if (r < 0)
			assert_true(strncmp(cause, "f:7: [network] ", 15) == 0);
	}
}

static void
test_file_errors(void **state)
{
	attribute_cleanup(vars_freep) struct vars *v = test_vars();
	struct profile *p = NULL;
	_cleanup_free_ char *c1 = NULL;
	_cleanup_free_ char *c2 = NULL;

	(void)state;
	assert_int_equal(profile_parse_file("/nonexistent/x.ini",
					    PROFILE_KIND_NORMAL, v, &p, &c1),
			 -ENOENT);
	assert_null(p);
	assert_string_equal(c1, "cannot read profile /nonexistent/x.ini: No "
				"such file or directory.");
	assert_int_equal(
		profile_parse_file("/", PROFILE_KIND_NORMAL, v, &p, &c2),
		-EISDIR);
	assert_string_equal(c2, "cannot read profile /: Is a directory.");
}

static void
test_file_ok(void **state)
{
	attribute_cleanup(vars_freep) struct vars *v = test_vars();
	attribute_cleanup(profile_freep) struct profile *p = NULL;
	_cleanup_free_ char *cause = NULL;
	char tmpl[] = "/tmp/llw-test-profile-XXXXXX";
	const char text[] = "[network]\nmode = none\n";
	int fd = mkstemp(tmpl);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1),
			 (ssize_t)sizeof(text) - 1);
	close(fd);
	assert_int_equal(
		profile_parse_file(tmpl, PROFILE_KIND_NORMAL, v, &p, &cause),
		0);
	unlink(tmpl);
	assert_string_equal(p->file, tmpl);
	assert_int_equal(p->n_entries, 1);
	/* mode's "none" is one of its words, not the clearing none. */
	assert_false(p->entries[0].none);
	assert_int_equal(p->entries[0].key->id, KEY_MODE);
	assert_string_equal(
		p->entries[0].key->choices[p->entries[0].values[0].u.choice],
		"none");
}

/* The built-in profiles exist and parse. */
static void
test_builtins(void **state)
{
	attribute_cleanup(vars_freep) struct vars *v = test_vars();
	const char *names[] = { "default", "empty" };

	(void)state;
	assert_null(profile_builtin("nope"));
	assert_null(profile_builtin("opencode"));
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		attribute_cleanup(profile_freep) struct profile *p = NULL;
		_cleanup_free_ char *cause = NULL;
		const char *text = profile_builtin(names[i]);

		assert_non_null(text);
		if (profile_parse_string(names[i], text, PROFILE_KIND_NORMAL, v,
					 &p, &cause) != 0)
			fail_msg("%s: %s", names[i], cause);
		assert_true(p->n_entries > 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_project_allowed),
		cmocka_unit_test(test_cli),
		cmocka_unit_test(test_vars_table),
		cmocka_unit_test(test_vars_uid_runtime),
		cmocka_unit_test(test_vars_expand),
		cmocka_unit_test(test_port_range),
		cmocka_unit_test(test_network_syntax),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_file_ok),
		cmocka_unit_test(test_builtins),
	};

	return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}
