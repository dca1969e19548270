/*
 * completion-gen SHELL TEMPLATE: print llwrap's completion for SHELL
 * (bash, zsh or fish): TEMPLATE (contrib/shell/SHELL/...in) with its
 * line "@OPTIONS@" replaced by what the option table (options.c) says,
 * every option and what its value is (options_value()), and the command
 * table (cmd.h), the subcommands and their flags.  Run at build time, so the
 * completions offer what
 * --help lists, nothing more and nothing less (DESIGN.md §3).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "options.h"

/* The word commands of cmd_table, in its order. */
static const struct cmd_entry *words[16];
static size_t n_words;

/* An option's help on one line. */
static void
one_line(const char *help, char *out, size_t size)
{
	size_t n = 0;

	for (; *help != '\0' && n + 1 < size; help++) {
		if (*help != '\n')
			out[n++] = *help;
		else if (n > 0 && out[n - 1] != '|')
			out[n++] = ' ';
	}
	out[n] = '\0';
}

/* s for zsh's _arguments, inside '...': the characters of special get a
 * backslash (inside [...] ']' and '\', in a message ':' too), and a '
 * is '\''. */
static void
put_zsh(FILE *f, const char *s, const char *special)
{
	for (; *s != '\0'; s++) {
		if (strchr(special, *s) != NULL)
			fputc('\\', f);
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
}

/* s inside '...' of fish: ' and \ escaped. */
static void
put_fish(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\'' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
}

/* The words of a WORDS argument ("auto|landlock") blank-separated. */
static void
put_words(FILE *f, const char *arg)
{
	for (; *arg != '\0'; arg++)
		fputc(*arg == '|' ? ' ' : *arg, f);
}

static const char *
kind_name(enum options_value v)
{
	switch (v) {
	case OPTIONS_VALUE_NONE:
		return "none";
	case OPTIONS_VALUE_TEXT:
		return "text";
	case OPTIONS_VALUE_PATH:
		return "path";
	case OPTIONS_VALUE_DIR:
		return "dir";
	case OPTIONS_VALUE_PROFILE:
		return "profile";
	case OPTIONS_VALUE_WORDS:
		return "words";
	case OPTIONS_VALUE_ENV:
		return "env";
	}
	return "text";
}

/* "-p | --profile" or "--ro". */
static void
put_names(FILE *f, const struct options_spec *s, const char *sep)
{
	if (s->val < 0x100)
		fprintf(f, "-%c%s", s->val, sep);
	fprintf(f, "--%s", s->name);
}

static void
gen_bash(FILE *f)
{
	fputs("_llwrap_options='", f);
	for (size_t i = 0; i < options_n_specs; i++) {
		fputs(i ? " " : "", f);
		put_names(f, &options_specs[i], " ");
	}
	fputs("'\n_llwrap_subcommands='", f);
	for (size_t i = 0; i < n_words; i++)
		fprintf(f, "%s%s", i ? " " : "", words[i]->name);
	fputs("'\n\n# _llwrap_value OPTION: what its value is (none: it takes "
	      "none; words\n# W...: one of the words W).\n"
	      "_llwrap_value() {\n\tcase $1 in\n",
	      f);
	for (size_t i = 0; i < options_n_specs; i++) {
		const struct options_spec *s = &options_specs[i];
		enum options_value v = options_value(s);

		if (v == OPTIONS_VALUE_NONE)
			continue;
		fputc('\t', f);
		put_names(f, s, " | ");
		fprintf(f, ") echo '%s", kind_name(v));
		if (v == OPTIONS_VALUE_WORDS) {
			fputc(' ', f);
			put_words(f, s->arg);
		}
		fputs("' ;;\n", f);
	}
	fputs("\t*) echo none ;;\n\tesac\n}\n\n"
	      "# _llwrap_flags SUBCOMMAND: its own flags.\n"
	      "_llwrap_flags() {\n\tcase $1 in\n",
	      f);
	for (size_t i = 0; i < n_words; i++)
		fprintf(f, "\t%s) echo '%s' ;;\n", words[i]->name,
			words[i]->flags);
	fputs("\tesac\n}\n", f);
}

static void
gen_zsh(FILE *f)
{
	fputs("_llwrap_specs=(\n", f);
	for (size_t i = 0; i < options_n_specs; i++) {
		const struct options_spec *s = &options_specs[i];
		enum options_value v = options_value(s);
		char help[256];

		one_line(options_help(s), help, sizeof(help));
		if (s->val < 0x100)
			fprintf(f, "\t'*'{-%c%s,--%s%s}'[", s->val,
				v == OPTIONS_VALUE_NONE ? "" : "+", s->name,
				v == OPTIONS_VALUE_NONE ? "" : "=");
		else
			fprintf(f, "\t'*--%s%s[", s->name,
				v == OPTIONS_VALUE_NONE ? "" : "=");
		put_zsh(f, help, "]\\");
		fputc(']', f);
		if (v != OPTIONS_VALUE_NONE) {
			fputc(':', f);
			put_zsh(f, s->arg, ":\\");
			fputc(':', f);
			switch (v) {
			case OPTIONS_VALUE_PATH:
				fputs("_files", f);
				break;
			case OPTIONS_VALUE_DIR:
				fputs("_files -/", f);
				break;
			case OPTIONS_VALUE_PROFILE:
				fputs("_llwrap_profiles", f);
				break;
			case OPTIONS_VALUE_WORDS:
				fputc('(', f);
				put_words(f, s->arg);
				fputc(')', f);
				break;
			case OPTIONS_VALUE_ENV:
				fputs("_parameters", f);
				break;
			default:
				fputs(" ", f);
				break;
			}
		}
		fputs("'\n", f);
	}
	fputs(")\n_llwrap_subcommands=(\n", f);
	for (size_t i = 0; i < n_words; i++) {
		char help[256];

		one_line(words[i]->help, help, sizeof(help));
		fprintf(f, "\t'%s:", words[i]->name);
		put_zsh(f, help, "");
		fputs("'\n", f);
	}
	fputs(")\n", f);
	for (size_t i = 0; i < n_words; i++)
		fprintf(f, "_llwrap_flags_%s=(%s)\n", words[i]->name,
			words[i]->flags);
}

static void
gen_fish(FILE *f)
{
	fputs("set -g __llwrap_valued", f);
	for (size_t i = 0; i < options_n_specs; i++) {
		const struct options_spec *s = &options_specs[i];

		if (options_value(s) == OPTIONS_VALUE_NONE)
			continue;
		fputc(' ', f);
		put_names(f, s, " ");
	}
	fputs("\nset -g __llwrap_subcommands", f);
	for (size_t i = 0; i < n_words; i++)
		fprintf(f, " %s", words[i]->name);
	fputc('\n', f);
	for (size_t i = 0; i < options_n_specs; i++) {
		const struct options_spec *s = &options_specs[i];
		enum options_value v = options_value(s);
		char help[256];

		one_line(options_help(s), help, sizeof(help));
		fputs("complete -c llwrap -n __llwrap_no_command", f);
		if (s->val < 0x100)
			fprintf(f, " -s %c", s->val);
		fprintf(f, " -l %s", s->name);
		switch (v) {
		case OPTIONS_VALUE_NONE:
			break;
		case OPTIONS_VALUE_PATH:
			fputs(" -r -F", f);
			break;
		case OPTIONS_VALUE_DIR:
			fputs(" -x -a '(__fish_complete_directories)'", f);
			break;
		case OPTIONS_VALUE_PROFILE:
			fputs(" -x -a '(__llwrap_profiles)'", f);
			break;
		case OPTIONS_VALUE_WORDS:
			fputs(" -x -a '", f);
			put_words(f, s->arg);
			fputc('\'', f);
			break;
		case OPTIONS_VALUE_ENV:
			fputs(" -x -a '(set -n)'", f);
			break;
		default:
			fputs(" -x", f);
			break;
		}
		fputs(" -d '", f);
		put_fish(f, help);
		fputs("'\n", f);
	}
	for (size_t i = 0; i < n_words; i++) {
		const struct cmd_entry *c = words[i];
		char help[256];

		one_line(c->help, help, sizeof(help));
		fprintf(f,
			"complete -c llwrap -n __llwrap_no_command -x -a %s "
			"-d '",
			c->name);
		put_fish(f, help);
		fputs("'\n", f);
		fprintf(f, "complete -c llwrap -n '__llwrap_in %s' -a '%s'\n",
			c->name, c->flags);
	}
}

int
main(int argc, char **argv)
{
	char line[4096];
	FILE *t;
	bool found = false;

	for (const struct cmd_entry *const *e = cmd_table; *e != NULL; e++)
		if (((*e)->how & CMD_WORD) && n_words < 16)
			words[n_words++] = *e;
	if (argc != 3 ||
	    (strcmp(argv[1], "bash") != 0 && strcmp(argv[1], "zsh") != 0 &&
	     strcmp(argv[1], "fish") != 0)) {
		fprintf(stderr, "usage: completion-gen bash|zsh|fish "
				"TEMPLATE\n");
		return 2;
	}
	if ((t = fopen(argv[2], "re")) == NULL) {
		perror(argv[2]);
		return 1;
	}
	while (fgets(line, sizeof(line), t) != NULL) {
		if (strcmp(line, "@OPTIONS@\n") != 0) {
			fputs(line, stdout);
			continue;
		}
		found = true;
		printf("# Made from llwrap's option table (src/options.c) when "
		       "llwrap was built.\n");
		if (strcmp(argv[1], "bash") == 0)
			gen_bash(stdout);
		else if (strcmp(argv[1], "zsh") == 0)
			gen_zsh(stdout);
		else
			gen_fish(stdout);
	}
	fclose(t);
	if (!found) {
		fprintf(stderr, "completion-gen: %s has no @OPTIONS@ line\n",
			argv[2]);
		return 1;
	}
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
