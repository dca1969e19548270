/*
 * The option table and --help (see options.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "keys.h"
#include "options.h"
#include "strv.h"
#include "xalloc.h"

#define SRC  "Policy sources"
#define FS   "Filesystem rules (most specific: they beat every profile)"
#define NET  "Network rules"
#define SUP  "Network rules the supervisor enforces (each starts it)"
#define PROC "Process"
#define INSP "Inspection"

const struct options_spec options_specs[] = {
	{ "profile", required_argument, 'p', "NAME|FILE", SRC,
	  "add a profile (repeatable): a FILE, or NAME.ini\n"
	  "on the profile path below (built-in: empty, default)" },
	{ "directory", required_argument, 'C', "DIR", SRC,
	  "project directory, ${PROJECT}; the command starts\n"
	  "there (default: the git work tree holding cwd, else\n"
	  "cwd; the command starts in cwd)" },
	{ "name", required_argument, 'n', "NAME", SRC,
	  "instance name for logs (default: command basename)" },
	{ "allow-broad-project", no_argument, OPT_ALLOW_BROAD_PROJECT, NULL,
	  SRC,
	  "run even when the project is the home directory, an\n"
	  "ancestor of it, or / (refused otherwise)" },
	{ "ro", required_argument, OPT_RO, "PATH", FS, NULL },
	{ "rx", required_argument, OPT_RX, "PATH", FS, NULL },
	{ "rw", required_argument, OPT_RW, "PATH", FS, NULL },
	{ "rwx", required_argument, OPT_RWX, "PATH", FS, NULL },
	{ "deny", required_argument, OPT_DENY, "PATH", FS, NULL },
	{ "net", required_argument, OPT_NET, "none|filtered|host", NET, NULL },
	{ "connect-tcp", required_argument, OPT_CONNECT_TCP, "PORTS", NET,
	  NULL },
	{ "bind-tcp", required_argument, OPT_BIND_TCP, "PORTS", NET, NULL },
	{ "connect-udp", required_argument, OPT_CONNECT_UDP, "PORTS", NET,
	  NULL },
	{ "bind-udp", required_argument, OPT_BIND_UDP, "PORTS", NET, NULL },
	{ "allow-cidr", required_argument, OPT_ALLOW_CIDR, "CIDR[:PORTS]", SUP,
	  NULL },
	{ "allow-host", required_argument, OPT_ALLOW_HOST, "NAME[:PORTS]", SUP,
	  NULL },
	{ "proxy", no_argument, OPT_PROXY, NULL, SUP, NULL },
	{ "unix", required_argument, OPT_UNIX, "PATH", SUP, NULL },
	{ "listen", required_argument, OPT_LISTEN, "ADDR:PORT", SUP, NULL },
	{ "dns", required_argument, OPT_DNS, "ADDR", SUP, NULL },
	{ "env-keep", required_argument, OPT_ENV_KEEP, "NAME|GLOB", PROC,
	  NULL },
	{ "env-set", required_argument, OPT_ENV_SET, "NAME=VALUE", PROC, NULL },
	{ "env-unset", required_argument, OPT_ENV_UNSET, "NAME|GLOB", PROC,
	  NULL },
	{ "keep-fd", required_argument, OPT_KEEP_FD, "N", PROC,
	  "do not close this inherited fd" },
	{ "best-effort", no_argument, OPT_BEST_EFFORT, NULL, PROC, NULL },
	{ "timeout", required_argument, OPT_TIMEOUT, "DURATION", PROC, NULL },
	{ "backend", required_argument, OPT_BACKEND, "auto|landlock|bwrap",
	  PROC, "auto: Landlock when available, else bubblewrap" },
	{ "explain", no_argument, OPT_EXPLAIN, NULL, INSP,
	  "print the resolved policy with every rule's\n"
	  "file:line, each layer, what is NOT ENFORCED; exit" },
	{ "check", no_argument, OPT_CHECK, NULL, INSP,
	  "print the kernel's features and the usable layers" },
	{ "selftest", no_argument, OPT_SELFTEST, NULL, INSP,
	  "run the escape probes under this policy" },
	{ "learn", no_argument, OPT_LEARN, NULL, INSP,
	  "run sandboxed (reading all but the secrets, writing\n"
	  "in the project, the rest as the policy says) while\n"
	  "recording what the policy denies; propose a profile\n"
	  "fragment (stderr, and saved under\n"
	  "$XDG_STATE_HOME/llwrap/learned/)" },
	{ "why", required_argument, OPT_WHY, "WHAT", INSP,
	  "as the subcommand why below (it must come last)" },
	{ "verbose", no_argument, 'v', NULL, INSP,
	  "say what runs where before running it" },
	{ "quiet", no_argument, 'q', NULL, INSP,
	  "no NOT ENFORCED lines, no network note before a run,\n"
	  "no footer after it" },
	{ "version", no_argument, 'V', NULL, INSP, "print the version" },
	{ "help", no_argument, 'h', NULL, INSP, "print this help" },
};

const size_t options_n_specs = sizeof(options_specs) / sizeof(*options_specs);

const struct options_spec *
options_find(int val)
{
	for (size_t i = 0; i < options_n_specs; i++)
		if (options_specs[i].val == val)
			return &options_specs[i];
	return NULL;
}

const char *
options_help(const struct options_spec *s)
{
	const struct key *k;

	if (s->help != NULL)
		return s->help;
	k = keys_by_flag(s->name);
	return k != NULL ? k->help : "";
}

enum options_value
options_value(const struct options_spec *s)
{
	const char *a = s->arg;

	if (s->has_arg == no_argument || a == NULL)
		return OPTIONS_VALUE_NONE;
	if (strcmp(a, "PATH") == 0 || strcmp(a, "WHAT") == 0)
		return OPTIONS_VALUE_PATH;
	if (strcmp(a, "DIR") == 0)
		return OPTIONS_VALUE_DIR;
	if (strcmp(a, "NAME|FILE") == 0)
		return OPTIONS_VALUE_PROFILE;
	if (strcmp(a, "NAME|GLOB") == 0)
		return OPTIONS_VALUE_ENV;
	if (strchr(a, '|') != NULL &&
	    strspn(a, "abcdefghijklmnopqrstuvwxyz|") == strlen(a))
		return OPTIONS_VALUE_WORDS;
	return OPTIONS_VALUE_TEXT;
}

struct option *
options_long(void)
{
	struct option *o = xcalloc(options_n_specs + 1, sizeof(*o));

	for (size_t i = 0; i < options_n_specs; i++) {
		o[i].name = options_specs[i].name;
		o[i].has_arg = options_specs[i].has_arg;
		o[i].val = options_specs[i].val;
	}
	return o;
}

char *
options_short(void)
{
	char *s = xcalloc(2 * options_n_specs + 2, 1);
	size_t n = 0;

	/* Options stop at the command. */
	s[n++] = '+';
	for (size_t i = 0; i < options_n_specs; i++) {
		if (options_specs[i].val >= 0x100)
			continue;
		s[n++] = (char)options_specs[i].val;
		if (options_specs[i].has_arg == required_argument)
			s[n++] = ':';
	}
	return s;
}

void
options_usage_line(FILE *f, const char *left, const char *help)
{
	const int col = 28;
	int n = (int)strlen(left);

	if (n + 2 > col)
		fprintf(f, "%s\n%*s", left, col, "");
	else
		fprintf(f, "%s%*s", left, col - n, "");
	for (const char *h = help; *h != '\0'; h++) {
		fputc(*h, f);
		if (*h == '\n')
			fprintf(f, "%*s", col, "");
	}
	fputc('\n', f);
}

void
options_usage(FILE *f)
{
	const char *group = NULL;

	for (size_t i = 0; i < options_n_specs; i++) {
		const struct options_spec *s = &options_specs[i];
		char left[80];

		if (group == NULL || strcmp(group, s->group) != 0) {
			group = s->group;
			fprintf(f, "\n%s\n", group);
		}
		if (s->val < 0x100)
			snprintf(left, sizeof(left), "  -%c, --%s%s%s", s->val,
				 s->name, s->arg ? " " : "",
				 s->arg ? s->arg : "");
		else
			snprintf(left, sizeof(left), "  --%s%s%s", s->name,
				 s->arg ? " " : "", s->arg ? s->arg : "");
		options_usage_line(f, left, options_help(s));
	}
}
