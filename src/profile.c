/*
 * Profiles: parse INI text with inih into validated, expanded entries.
 *
 * inih (Debian's r55) is used with its compiled-in defaults: ';' and '#'
 * start a comment line, ';' after a blank starts an inline comment, and an
 * indented line continues the previous key (the handler sees the same key
 * again, which the "a repeated key appends" rule makes harmless).  Because
 * r55 silently splits lines over 199 bytes and truncates section names at
 * 49 characters, the line reader given to inih checks every line itself
 * first, following the same state machine to know which lines are section
 * headers, and stops the parse at the first problem.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ini.h>

#include "cleanup.h"
#include "fdutil.h"
#include "keys.h"
#include "path.h"
#include "profile.h"
#include "strv.h"
#include "value.h"
#include "xalloc.h"

#include "builtin-profiles.h"

/* A profile larger than this is certainly a mistake. */
#define PROFILE_FILE_MAX (1024 * 1024)

/* "[profile], [filesystem], ... and [match]": every section, in the
 * order of the key table, for the messages that list them (last_sep
 * before the last: " and ", " or "). */
static char *
section_list(const char *last_sep)
{
	_cleanup_strv_ char **v = NULL;
	_cleanup_free_ char *head = NULL, *last = NULL;
	size_t n;

	for (size_t i = 0; i < KEY_COUNT; i++) {
		_cleanup_free_ char *s =
			xasprintf("[%s]", keys_table[i].section);

		if (!strv_contains(v, s))
			strv_push(&v, s);
	}
	n = strv_length(v);
	last = v[n - 1];
	v[n - 1] = NULL;
	head = strv_join(v, ", ");
	return xasprintf("%s%s%s", head, last_sep, last);
}

/* "file:line", or just "file" for line 0 (the command line). */
static char *
location(const char *file, unsigned line)
{
	if (line == 0)
		return xstrdup(file);
	return xasprintf("%s:%u", file, line);
}

/* Set *cause to "LOCATION: message" and return -EINVAL. */
static int __attribute__((format(printf, 4, 5)))
fail(char **cause, const char *file, unsigned line, const char *fmt, ...)
{
	_cleanup_free_ char *where = location(file, line);
	_cleanup_free_ char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	*cause = xasprintf("%s: %s", where, msg);
	return -EINVAL;
}

/*
 * What .llwrap.ini may not do with a key whatever less specific sources
 * set: the key table's tighten rule.  Checks that depend on those sources
 * (mode, ports, path access) are made by policy_resolve().
 */
static int
project_check(const struct profile *p, const struct profile_entry *e,
	      char **cause)
{
	const struct key *ks = e->key;
	const char *why = NULL;
	_cleanup_free_ char *value = NULL;

	switch (ks->tighten) {
	case KEY_TIGHTEN_FREE:
		break;
	case KEY_TIGHTEN_NARROW:
		if (e->none)
			why = ks->why;
		break;
	case KEY_TIGHTEN_ONLY:
		if (!e->none)
			value = profile_value_format(ks, &e->values[0]);
		if (value == NULL || strcmp(value, ks->only) != 0)
			why = ks->why;
		break;
	case KEY_TIGHTEN_NEVER:
		why = ks->why;
		break;
	}
	if (why == NULL)
		return 0;
	return fail(cause, p->file, e->line,
		    ".llwrap.ini may only tighten the policy: [%s] %s is not "
		    "allowed here (%s).",
		    ks->section, ks->name, why);
}

/* The keys a path given as "?PATH" may be missing for: the grants,
 * touch and copy's source. */
static bool
optional_key(const struct key *ks)
{
	return ks->id == KEY_RO || ks->id == KEY_RX || ks->id == KEY_RW ||
	       ks->id == KEY_RWX || ks->id == KEY_TOUCH || ks->id == KEY_COPY;
}

/*
 * Parse one element of a value with its key's grammar into *out.
 * Returns 0, or -EINVAL with *cause ("FILE:LINE: [section] key: ...").
 */
static int
value_parse(const struct profile *p, const struct vars *v, const struct key *ks,
	    const char *raw, unsigned line, struct profile_value *out,
	    char **cause)
{
	_cleanup_free_ char *s = NULL;
	_cleanup_free_ char *err = NULL;
	int r = 0;

	memset(out, 0, sizeof(*out));
	switch (ks->type) {
	case KEY_T_PATHS:
		/* "?PATH": a grant that may be missing, dropped quietly. */
		out->optional = raw[0] == '?' && p->kind != PROFILE_KIND_CLI;
		if (out->optional && !optional_key(ks))
			return fail(cause, p->file, line,
				    "[%s] %s: '?' (the path may be missing) "
				    "is only for ro, rx, rw, rwx, touch and "
				    "copy's source.",
				    ks->section, ks->name);
		if (vars_expand(v, raw + out->optional, &s, &err) < 0)
			return fail(cause, p->file, line, "%s.", err);
		if (s[0] != '/')
			return fail(cause, p->file, line,
				    "[%s] %s: path '%s' is not absolute; start "
				    "it with '/', '~/' or a variable such as "
				    "${PROJECT}.",
				    ks->section, ks->name, s);
		/* Normal already, as most are: the expansion is the value. */
		out->u.text = path_is_normal(s) ? steal_pointer(&s)
						: path_normalise(s);
		return 0;
	case KEY_T_INCLUDES:
		if (vars_expand(v, raw, &s, &err) < 0)
			return fail(cause, p->file, line, "%s.", err);
		out->u.text = steal_pointer(&s);
		return 0;
	case KEY_T_ENVSET:
		if (value_env_set(raw, &err) < 0)
			break;
		/* Variables in the value are expanded; '~' is not. */
		if (vars_expand_env(v, raw, &s, &err) < 0)
			return fail(cause, p->file, line, "%s.", err);
		out->u.text = steal_pointer(&s);
		return 0;
	case KEY_T_PORTS:
		r = value_port_range(raw, &out->u.ports.lo, &out->u.ports.hi,
				     &err);
		break;
	case KEY_T_BOOL:
		r = value_bool(raw, &out->u.yes, &err);
		break;
	case KEY_T_CHOICE:
		r = value_choice(raw, ks->choices, &out->u.choice, &err);
		break;
	case KEY_T_BYTES:
		r = value_bytes(raw, &out->u.n, &err);
		break;
	case KEY_T_COUNT:
		r = value_count(raw, &out->u.n, &err);
		break;
	case KEY_T_DURATION:
		r = value_duration(raw, &out->u.n, &err);
		break;
	case KEY_T_SIZE:
		r = value_size(raw, &out->u.size.bytes, &out->u.size.percent,
			       &err);
		break;
	case KEY_T_CIDRS:
		r = value_cidr(raw, &out->u.cidr, &err);
		break;
	case KEY_T_LISTEN:
		r = value_listen(raw, &out->u.addr, &err);
		break;
	case KEY_T_ADDRS:
		r = value_ip(raw, &out->u.addr, &err);
		break;
	case KEY_T_HOSTS:
		r = value_host(raw, &out->u.host, &err);
		break;
	case KEY_T_ENVGLOBS:
		r = value_env_glob(raw, &err);
		if (r == 0)
			out->u.text = xstrdup(raw);
		break;
	case KEY_T_COMMANDS:
	case KEY_T_NAMES:
		if (strchr(raw, '/') != NULL)
			return fail(
				cause, p->file, line,
				"[%s] %s: '%s' must be a %s, not a path.",
				ks->section, ks->name, raw,
				ks->type == KEY_T_COMMANDS
					? "command name"
					: "profile name (NAME for NAME.ini)");
		out->u.text = xstrdup(raw);
		return 0;
	case KEY_T_TEXT:
		out->u.text = xstrdup(raw);
		return 0;
	}
	if (r < 0 || err != NULL)
		return fail(cause, p->file, line, "[%s] %s: %s.", ks->section,
			    ks->name, err);
	return 0;
}

/* What value_parse made of *v, freed (not v). */
static void
value_clear(const struct key *k, struct profile_value *v)
{
	switch (k->type) {
	case KEY_T_CIDRS:
		value_cidr_clear(&v->u.cidr);
		break;
	case KEY_T_HOSTS:
		value_host_clear(&v->u.host);
		break;
	case KEY_T_PATHS:
	case KEY_T_TEXT:
	case KEY_T_ENVGLOBS:
	case KEY_T_ENVSET:
	case KEY_T_INCLUDES:
	case KEY_T_COMMANDS:
	case KEY_T_NAMES:
		free(v->u.text);
		break;
	default:
		break;
	}
	memset(v, 0, sizeof(*v));
}

/* n in the largest unit of units (suffix, size) it is a whole number
 * of: "512M", "30m". */
static char *
format_units(uint64_t n, const char *suffixes, const uint64_t *sizes,
	     size_t n_units)
{
	for (size_t i = n_units; i-- > 0;)
		if (n % sizes[i] == 0 && n >= sizes[i])
			return xasprintf("%llu%c",
					 (unsigned long long)(n / sizes[i]),
					 suffixes[i]);
	return xasprintf("%llu", (unsigned long long)n);
}

char *
profile_value_format(const struct key *k, const struct profile_value *v)
{
	static const uint64_t bytes[] = { 1024, 1024 * 1024,
					  1024ULL * 1024 * 1024 };
	static const uint64_t seconds[] = { 60, 3600, 86400 };

	switch (k->type) {
	case KEY_T_PORTS:
		if (v->u.ports.lo == v->u.ports.hi)
			return xasprintf("%u", v->u.ports.lo);
		return xasprintf("%u-%u", v->u.ports.lo, v->u.ports.hi);
	case KEY_T_BOOL:
		return xstrdup(v->u.yes ? "yes" : "no");
	case KEY_T_CHOICE:
		return xstrdup(k->choices[v->u.choice]);
	case KEY_T_SIZE:
		if (v->u.size.percent != 0)
			return xasprintf("%u%%", v->u.size.percent);
		return format_units(v->u.size.bytes, "KMG", bytes, 3);
	case KEY_T_BYTES:
		return format_units(v->u.n, "KMG", bytes, 3);
	case KEY_T_COUNT:
		return xasprintf("%llu", (unsigned long long)v->u.n);
	case KEY_T_DURATION:
		return format_units(v->u.n, "mhd", seconds, 3);
	case KEY_T_CIDRS:
		return value_cidr_format(&v->u.cidr);
	case KEY_T_LISTEN:
		return value_addr_format(&v->u.addr);
	case KEY_T_ADDRS:
		return value_ip_format(&v->u.addr);
	case KEY_T_HOSTS:
		return value_host_format(&v->u.host);
	case KEY_T_PATHS:
		return xasprintf("%s%s", v->optional ? "?" : "", v->u.text);
	default:
		return xstrdup(v->u.text);
	}
}

static void
entry_clear(struct profile_entry *e)
{
	for (size_t i = 0; i < e->n_values; i++)
		value_clear(e->key, &e->values[i]);
	free(e->values);
	e->values = NULL;
	e->n_values = 0;
}

struct profile *
profile_new(const char *file, enum profile_kind kind)
{
	struct profile *p = xcalloc(1, sizeof(*p));

	p->file = xstrdup(file);
	p->kind = kind;
	return p;
}

void
profile_free(struct profile *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->n_entries; i++)
		entry_clear(&p->entries[i]);
	free(p->entries);
	free(p->file);
	free(p->description);
	strv_free(p->includes);
	strv_free(p->match_command);
	strv_free(p->match_project);
	strv_free(p->match_profile);
	free(p);
}

DEFINE_CLEANUP_FUNC(struct profile, profile_free)

/*
 * Split a list of paths on blanks.  Double quotes keep blanks in a path:
 * "~/My Files" or ~/"My Files" is one path; inside quotes \" is a quote
 * and \\ a backslash.  NULL for an unterminated quote.
 */
static char **
paths_split(const char *value)
{
	_cleanup_strv_ char **v = NULL;
	_cleanup_free_ char *word = NULL;
	const char *s = value;

	/* Most lines name one path, with no blank or quote in it. */
	if (value[0] != '\0' && strpbrk(value, " \t\n\v\f\r\"") == NULL) {
		v = xcalloc(2, sizeof(char *));
		v[0] = xstrdup(value);
		return steal_pointer(&v);
	}
	word = xmalloc(strlen(value) + 1);
	for (;;) {
		size_t n = 0;
		bool quoted = false;

		while (isspace((unsigned char)*s))
			s++;
		if (*s == '\0')
			break;
		while (*s != '\0' && (quoted || !isspace((unsigned char)*s))) {
			if (*s == '"') {
				quoted = !quoted;
				s++;
				continue;
			}
			if (quoted && *s == '\\' &&
			    (s[1] == '"' || s[1] == '\\'))
				s++;
			word[n++] = *s++;
		}
		if (quoted)
			return NULL;
		word[n] = '\0';
		strv_push(&v, word);
	}
	if (v == NULL)
		v = xcalloc(1, sizeof(char *));
	return steal_pointer(&v);
}

/* Split a value: blanks always, commas too for port lists.  A value
 * given on the command line is one path, blanks and quotes included. */
static char **
value_split(const struct profile *p, const struct key *ks, const char *value)
{
	_cleanup_free_ char *copy = NULL;

	if (ks->type == KEY_T_PATHS && p->kind != PROFILE_KIND_CLI)
		return paths_split(value);
	copy = xstrdup(value);
	if (ks->type == KEY_T_TEXT || ks->type == KEY_T_PATHS) {
		char **v = xcalloc(2, sizeof(char *));

		v[0] = steal_pointer(&copy);
		return v;
	}
	if (ks->type == KEY_T_PORTS) {
		/* "443,80" and "443, 80" are both a list of two. */
		for (char *c = copy; *c != '\0'; c++)
			if (*c == ',')
				*c = ' ';
	}
	return strv_split_blank(copy);
}

int
profile_add(struct profile *p, const struct vars *v, const char *section,
	    const char *key, const char *value, unsigned line, char **cause)
{
	const struct key *ks;
	_cleanup_strv_ char **raw = NULL;
	struct profile_entry ne = { 0 };
	size_t n;
	int r = 0;

	if (section[0] == '\0') {
		_cleanup_free_ char *all = section_list(" or ");

		return fail(cause, p->file, line,
			    "key '%s' is outside any section; put it under "
			    "%s.",
			    key, all);
	}
	/* A key found is in a known section: the sections are looked
	 * through only for the error. */
	ks = keys_find(section, key);
	if (ks == NULL && !keys_section_known(section)) {
		_cleanup_free_ char *all = section_list(" and ");

		return fail(cause, p->file, line,
			    "unknown section [%s]; the sections are %s.",
			    section, all);
	}
	if (ks == NULL) {
		const char *other = keys_section_of(key);

		if (other != NULL)
			return fail(cause, p->file, line,
				    "key '%s' belongs in section [%s], not "
				    "[%s].",
				    key, other, section);
		return fail(cause, p->file, line,
			    "unknown key '%s' in section [%s].", key, section);
	}
	if (p->kind == PROFILE_KIND_CLI && ks->merge == KEY_MERGE_SOURCE)
		return fail(cause, p->file, line,
			    "[%s] %s cannot be given on the command line; "
			    "use -p for profiles.",
			    section, key);

	raw = value_split(p, ks, value);
	if (raw == NULL)
		return fail(cause, p->file, line,
			    "[%s] %s: a '\"' is not closed; quote a path with "
			    "blanks as \"/a b\" (\\\" and \\\\ inside quotes).",
			    section, key);
	n = strv_length(raw);
	/* An empty value adds nothing: "rw =" followed by indented lines is
	 * a list spread over continuation lines. */
	if (n == 0)
		return 0;
	if (strv_contains(raw, "none") && ks->type != KEY_T_CHOICE &&
	    ks->type != KEY_T_TEXT) {
		if (n > 1)
			return fail(cause, p->file, line,
				    "[%s] %s: 'none' clears the list and must "
				    "stand alone on its line.",
				    section, key);
		if (ks->merge == KEY_MERGE_SOURCE)
			return fail(cause, p->file, line,
				    "[%s] %s cannot be 'none'.", section, key);
	}
	if (keys_single(ks) && n != 1)
		return fail(cause, p->file, line,
			    "[%s] %s takes one value, not %zu.", section, key,
			    n);

	ne.key = ks;
	ne.line = line;
	ne.none = strcmp(raw[0], "none") == 0 && ks->type != KEY_T_CHOICE &&
		  ks->type != KEY_T_TEXT;
	if (!ne.none) {
		ne.values = xcalloc(n, sizeof(*ne.values));
		for (; ne.n_values < n; ne.n_values++) {
			r = value_parse(p, v, ks, raw[ne.n_values], line,
					&ne.values[ne.n_values], cause);
			if (r < 0)
				goto out;
		}
	}
	if (ks->id == KEY_COPY && !ne.none &&
	    (n != 2 || ne.values[1].optional)) {
		r = fail(cause, p->file, line,
			 "[filesystem] copy takes a source and a destination "
			 "on one line, copy = SRC DST (the source may be "
			 "written ?SRC), not %zu path%s.",
			 n, n == 1 ? "" : "s");
		goto out;
	}
	if (p->kind == PROFILE_KIND_PROJECT &&
	    (r = project_check(p, &ne, cause)) < 0)
		goto out;

	switch (ks->id) {
	case KEY_DESCRIPTION:
		/* Continuation lines and repeated keys join with a blank. */
		if (p->description == NULL) {
			p->description = xstrdup(ne.values[0].u.text);
		} else {
			char *d = xasprintf("%s %s", p->description,
					    ne.values[0].u.text);

			free(p->description);
			p->description = d;
		}
		goto out;
	case KEY_MATCH_COMMAND:
	case KEY_MATCH_PROFILE:
	case KEY_MATCH_PROJECT:
		for (size_t i = 0; i < n; i++)
			strv_push(ks->id == KEY_MATCH_COMMAND
					  ? &p->match_command
				  : ks->id == KEY_MATCH_PROFILE
					  ? &p->match_profile
					  : &p->match_project,
				  ne.values[i].u.text);
		goto out;
	case KEY_INCLUDE:
		for (size_t i = 0; i < n; i++)
			strv_push(&p->includes, ne.values[i].u.text);
		break;
	default:
		break;
	}
	p->entries = xgrow(p->entries, p->n_entries + 1, &p->cap_entries,
			   sizeof(*p->entries));
	p->entries[p->n_entries++] = ne;
	return 0;
out:
	entry_clear(&ne);
	return r;
}

/* The state the line reader and the handler share during one parse. */
struct parse_state {
	struct profile *p;
	const struct vars *v;
	const char *text; /* what is left to read */
	unsigned line;	  /* the line inih is working on */
	bool in_key;	  /* inih would take an indented line as more value */
	bool in_match;	  /* the line is in [match] */
	bool header;	  /* the line is a section header */
	char *cause;	  /* the first error */
	unsigned err_line;
};

/*
 * Look at one line the way inih r55 will, to catch what inih would
 * silently mangle (long lines, long section names) and what it would not
 * report (an unknown section with no keys).  Returns false with st->cause
 * set on error.
 */
static bool
parse_check_line(struct parse_state *st, const char *line, size_t len)
{
	const char *start = line, *end = line + len;
	const char *file = st->p->file;

	st->header = false;
	if (st->line == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0)
		start += 3;
	while (start < end && isspace((unsigned char)*start))
		start++;
	while (end > start && isspace((unsigned char)end[-1]))
		end--;
	if (len > LLW_PROFILE_LINE_MAX) {
		fail(&st->cause, file, st->line,
		     "line is too long (%zu bytes, at most %d); spread a "
		     "long list over indented continuation lines.",
		     len, LLW_PROFILE_LINE_MAX);
		return false;
	}
	if (start == end || *start == ';' || *start == '#')
		return true;
	if (st->in_key && start > line)
		return true;
	if (*start == '[') {
		const char *close = start + 1;
		_cleanup_free_ char *name = NULL;
		bool space = false;

		/* Find "]" the way inih does: an inline ';' comment after a
		 * blank ends the search. */
		while (close < end && *close != ']' &&
		       !(space && *close == ';')) {
			space = isspace((unsigned char)*close);
			close++;
		}
		if (close == end || *close != ']') {
			fail(&st->cause, file, st->line,
			     "section header without ']'.");
			return false;
		}
		if ((size_t)(close - start - 1) > LLW_PROFILE_SECTION_MAX) {
			fail(&st->cause, file, st->line,
			     "section name is too long (%zu characters, at "
			     "most %d).",
			     (size_t)(close - start - 1),
			     LLW_PROFILE_SECTION_MAX);
			return false;
		}
		name = xstrndup(start + 1, (size_t)(close - start - 1));
		if (!keys_section_known(name)) {
			_cleanup_free_ char *all = section_list(" and ");

			fail(&st->cause, file, st->line,
			     "unknown section [%s]; the sections are %s.", name,
			     all);
			return false;
		}
		st->in_key = false;
		st->in_match = strcmp(name, "match") == 0;
		st->header = true;
		return true;
	}
	{
		const char *eq = memchr(start, '=', (size_t)(end - start));
		const char *colon = memchr(start, ':', (size_t)(end - start));

		/* inih also takes "key: value"; llwrap's syntax is "key =
		 * value", so "rwx: ~/bin" is a mistake, not a grant. */
		if (eq == NULL || (colon != NULL && colon < eq)) {
			fail(&st->cause, file, st->line,
			     "expected 'key = value', '[section]' or a "
			     "comment%s.",
			     colon != NULL && (eq == NULL || colon < eq)
				     ? " (the separator is '=', not ':')"
				     : "");
			return false;
		}
	}
	st->in_key = true;
	return true;
}

/* inih's fgets-like reader: one line of st->text per call. */
static char *
parse_reader(char *buf, int size, void *stream)
{
	struct parse_state *st = stream;
	size_t len, take;

	if (st->cause != NULL || *st->text == '\0')
		return NULL;
	len = strcspn(st->text, "\n");
	st->line++;
	if (!parse_check_line(st, st->text, len)) {
		st->err_line = st->line;
		return NULL;
	}
	/* The line fits: LLW_PROFILE_LINE_MAX + "\n\0" < INI_MAX_LINE. */
	take = len + (st->text[len] == '\n');
	if (take > (size_t)size - 1)
		take = (size_t)size - 1;
	if (st->p->kind == PROFILE_KIND_MATCH && !st->in_match && !st->header) {
		/* Checked above; inih needs only the headers and [match]
		 * (an empty line keeps the line count). */
		st->text += take;
		strcpy(buf, "\n");
		return buf;
	}
	memcpy(buf, st->text, take);
	buf[take] = '\0';
	st->text += take;
	return buf;
}

static int
parse_handler(void *user, const char *section, const char *name,
	      const char *value)
{
	struct parse_state *st = user;
	_cleanup_free_ char *copy = NULL;

	if (st->cause != NULL)
		return 0;
	/* inih r55 strips inline comments from "key = value" lines but not
	 * from continuation lines; do it here for both (on a copy, the
	 * value being inih's). */
	for (const char *c = value; (c = strchr(c, ';')) != NULL; c++) {
		if (c > value && isspace((unsigned char)c[-1])) {
			copy = xstrndup(value, (size_t)(c - value));
			break;
		}
	}
	if (profile_add(st->p, st->v, section, name,
			copy != NULL ? copy : value, st->line,
			&st->cause) < 0) {
		st->err_line = st->line;
		return 0;
	}
	return 1;
}

int
profile_parse_string(const char *file, const char *text, enum profile_kind kind,
		     const struct vars *v, struct profile **out, char **cause)
{
	attribute_cleanup(profile_freep) struct profile *p =
		profile_new(file, kind);
	struct parse_state st = { .p = p, .v = v, .text = text };
	int r;

	r = ini_parse_stream(parse_reader, &st, parse_handler, &st);
	if (st.cause != NULL) {
		*cause = st.cause;
		return -EINVAL;
	}
	if (r != 0)
		return fail(cause, file, r > 0 ? (unsigned)r : 0,
			    "cannot parse this line.");
	*out = steal_pointer(&p);
	return 0;
}

static int read_profile(const char *file, int flags, char **out, char **cause);

int
profile_read_file(const char *file, char **out, char **cause)
{
	return read_profile(file, 0, out, cause);
}

/* profile_read_file, with flags for the open (O_NOFOLLOW). */
static int
read_profile(const char *file, int flags, char **out, char **cause)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *text = NULL;
	size_t len;
	int r;

	/* Where a command could have put a FIFO (a project's .llwrap.ini):
	 * a regular file, or nothing to wait on. */
	fd = fd_open_regular(AT_FDCWD, file, flags);
	if (fd < 0) {
		r = fd;
		*cause = xasprintf("cannot read profile %s: %s.", file,
				   r == -EINVAL	 ? "not a regular file"
				   : r == -ELOOP ? "a symbolic link (the "
						   "project's own profile is "
						   "read only as a file)"
						 : strerror(-r));
		return r;
	}
	r = fd_read_all(fd, PROFILE_FILE_MAX, &text, &len);
	if (r < 0) {
		*cause = xasprintf("cannot read profile %s: %s.", file,
				   strerror(-r));
		return r;
	}
	if (strlen(text) != len) {
		*cause = xasprintf("cannot read profile %s: it contains a NUL "
				   "byte.",
				   file);
		return -EINVAL;
	}
	*out = steal_pointer(&text);
	return 0;
}

int
profile_parse_file(const char *file, enum profile_kind kind,
		   const struct vars *v, struct profile **out, char **cause)
{
	_cleanup_free_ char *text = NULL;
	int r;

	/* The project's own .llwrap.ini is the command's to write where it
	 * does not exist yet: never followed through a link it made (to a
	 * file whose text the errors would show). */
	if ((r = read_profile(file,
			      kind == PROFILE_KIND_PROJECT ? O_NOFOLLOW : 0,
			      &text, cause)) < 0)
		return r;
	return profile_parse_string(file, text, kind, v, out, cause);
}

const char *
profile_builtin(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtin_profiles); i++)
		if (strcmp(builtin_profiles[i].name, name) == 0)
			return builtin_profiles[i].text;
	return NULL;
}
