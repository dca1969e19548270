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

/* Variables, in the order vars_expand's error message lists them. */
static const char *const var_names[] = {
	"HOME",		  "PROJECT",
	"PROJECT_ID",	  "NAME",
	"USER",		  "UID",
	"TMPDIR",	  "XDG_CONFIG_HOME",
	"XDG_DATA_HOME",  "XDG_STATE_HOME",
	"XDG_CACHE_HOME", "XDG_RUNTIME_DIR",
};

struct vars {
	char *values[ARRAY_SIZE(var_names)];
};

static void
vars_set(struct vars *v, const char *name, char *value)
{
	for (size_t i = 0; i < ARRAY_SIZE(var_names); i++) {
		if (strcmp(var_names[i], name) == 0) {
			free(v->values[i]);
			v->values[i] = value;
			return;
		}
	}
	free(value);
}

/*
 * An XDG base directory: the environment's value when it is absolute (the
 * XDG specification says relative values are to be ignored), otherwise
 * the default under HOME, or unset when HOME is unknown too.
 */
static char *
vars_xdg(char *const *envp, const char *home, const char *name,
	 const char *dflt)
{
	const char *s = strv_env_get(envp, name);

	if (s != NULL && s[0] == '/')
		return xstrdup(s);
	if (home == NULL)
		return NULL;
	return xasprintf("%s/%s", strcmp(home, "/") == 0 ? "" : home, dflt);
}

/*
 * ${PROJECT_ID}: a name for the project that differs from every other
 * project's, for per-project state directories (DESIGN.md §11): the
 * project directory's last component (letters, digits, '-', '_' and '.'
 * kept, at most 32) and 16 hex digits of the FNV-1a hash of its path.
 */
static char *
vars_project_id(const char *project)
{
	const char *base = strrchr(project, '/');
	uint64_t h = 0xcbf29ce484222325ULL;
	char name[33];
	size_t n = 0;

	for (const char *c = project; *c != '\0'; c++) {
		h ^= (unsigned char)*c;
		h *= 0x100000001b3ULL;
	}
	for (const char *c = base != NULL ? base + 1 : project;
	     *c != '\0' && n < sizeof(name) - 1; c++)
		name[n++] = (isalnum((unsigned char)*c) || strchr("-_.", *c))
				    ? *c
				    : '_';
	name[n] = '\0';
	return xasprintf("%s%s%016llx", name, n > 0 ? "-" : "",
			 (unsigned long long)h);
}

struct vars *
vars_new(char *const *envp, const char *project, const char *name)
{
	struct vars *v = xcalloc(1, sizeof(*v));
	const char *home = strv_env_get(envp, "HOME");
	const char *s;

	if (home != NULL && home[0] != '/')
		home = NULL;
	vars_set(v, "HOME", home != NULL ? xstrdup(home) : NULL);
	vars_set(v, "PROJECT", project != NULL ? xstrdup(project) : NULL);
	vars_set(v, "PROJECT_ID",
		 project != NULL ? vars_project_id(project) : NULL);
	vars_set(v, "NAME", name != NULL ? xstrdup(name) : NULL);
	s = strv_env_get(envp, "USER");
	if (s == NULL || *s == '\0')
		s = strv_env_get(envp, "LOGNAME");
	vars_set(v, "USER", s != NULL && *s != '\0' ? xstrdup(s) : NULL);
	vars_set(v, "UID", xasprintf("%u", (unsigned)getuid()));
	s = strv_env_get(envp, "TMPDIR");
	vars_set(v, "TMPDIR", xstrdup(s != NULL && s[0] == '/' ? s : "/tmp"));
	vars_set(v, "XDG_CONFIG_HOME",
		 vars_xdg(envp, home, "XDG_CONFIG_HOME", ".config"));
	vars_set(v, "XDG_DATA_HOME",
		 vars_xdg(envp, home, "XDG_DATA_HOME", ".local/share"));
	vars_set(v, "XDG_STATE_HOME",
		 vars_xdg(envp, home, "XDG_STATE_HOME", ".local/state"));
	vars_set(v, "XDG_CACHE_HOME",
		 vars_xdg(envp, home, "XDG_CACHE_HOME", ".cache"));
	s = strv_env_get(envp, "XDG_RUNTIME_DIR");
	vars_set(v, "XDG_RUNTIME_DIR",
		 s != NULL && s[0] == '/'
			 ? xstrdup(s)
			 : xasprintf("/run/user/%u", (unsigned)getuid()));
	return v;
}

void
vars_free(struct vars *v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(var_names); i++)
		free(v->values[i]);
	free(v);
}

const char *
vars_get(const struct vars *v, const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(var_names); i++)
		if (strcmp(var_names[i], name) == 0)
			return v->values[i];
	return NULL;
}

static bool
vars_known(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(var_names); i++)
		if (strcmp(var_names[i], name) == 0)
			return true;
	return false;
}

/* Append n bytes of s to the growing string *buf of length *len. */
static void
buf_add(char **buf, size_t *len, const char *s, size_t n)
{
	*buf = xreallocarray(*buf, *len + n + 1, 1);
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

/*
 * Expand ${VAR} everywhere in s and, when tilde is set, a leading "~" or
 * "~/".  The cause carries no file:line; profile_add() prefixes it.
 */
static int
vars_expand_full(const struct vars *v, const char *s, bool tilde, char **out,
		 char **cause)
{
	_cleanup_free_ char *r = xstrdup("");
	size_t len = 0;

	if (tilde && s[0] == '~' && (s[1] == '\0' || s[1] == '/')) {
		const char *home = vars_get(v, "HOME");

		if (home == NULL) {
			*cause = xstrdup("'~' needs HOME, which is not set "
					 "to an absolute path");
			return -EINVAL;
		}
		buf_add(&r, &len, home, strlen(home));
		s++;
	}
	while (*s != '\0') {
		const char *dollar = strstr(s, "${"), *end;
		_cleanup_free_ char *name = NULL;
		const char *value;

		if (dollar == NULL) {
			buf_add(&r, &len, s, strlen(s));
			break;
		}
		buf_add(&r, &len, s, (size_t)(dollar - s));
		end = strchr(dollar + 2, '}');
		if (end == NULL) {
			*cause = xasprintf("unterminated variable in '%s'",
					   dollar);
			return -EINVAL;
		}
		name = xstrndup(dollar + 2, (size_t)(end - dollar - 2));
		if (!vars_known(name)) {
			*cause = xasprintf(
				"unknown variable ${%s}; the known ones are "
				"${HOME} ${PROJECT} ${NAME} ${USER} ${UID} "
				"${TMPDIR} ${XDG_CONFIG_HOME} ${XDG_DATA_HOME} "
				"${XDG_STATE_HOME} ${XDG_CACHE_HOME} "
				"${XDG_RUNTIME_DIR}",
				name);
			return -EINVAL;
		}
		value = vars_get(v, name);
		if (value == NULL) {
			*cause = xasprintf("variable ${%s} has no value here "
					   "(is it set in the environment?)",
					   name);
			return -EINVAL;
		}
		buf_add(&r, &len, value, strlen(value));
		s = end + 1;
	}
	*out = steal_pointer(&r);
	return 0;
}

int
vars_expand(const struct vars *v, const char *s, char **out, char **cause)
{
	return vars_expand_full(v, s, true, out, cause);
}

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
project_check(const struct profile *p, const struct key *ks,
	      char *const *values, unsigned line, char **cause)
{
	bool is_none = values[0] != NULL && strcmp(values[0], "none") == 0 &&
		       ks->type != KEY_T_CHOICE && ks->type != KEY_T_TEXT;
	const char *why = NULL;

	switch (ks->tighten) {
	case KEY_TIGHTEN_FREE:
		break;
	case KEY_TIGHTEN_NARROW:
		if (is_none)
			why = ks->why;
		break;
	case KEY_TIGHTEN_ONLY:
		if (is_none || strcmp(values[0], ks->only) != 0)
			why = ks->why;
		break;
	case KEY_TIGHTEN_NEVER:
		why = ks->why;
		break;
	}
	if (why == NULL)
		return 0;
	return fail(cause, p->file, line,
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
 * Check and normalise one element of a list value.  Returns 0 and the
 * element to store in *out, or -EINVAL with *cause.
 */
static int
value_check(const struct profile *p, const struct vars *v, const struct key *ks,
	    const char *raw, unsigned line, char **out, char **cause)
{
	_cleanup_free_ char *s = NULL;
	_cleanup_free_ char *err = NULL;
	_cleanup_free_ char *norm = NULL;
	bool optional, yes;
	struct netpolicy_addr addr;
	uint64_t n64;
	unsigned percent, choice;
	int r = 0;

	switch (ks->type) {
	case KEY_T_PATHS:
		/* "?PATH": a grant that may be missing, dropped quietly. */
		optional = raw[0] == '?' && p->kind != PROFILE_KIND_CLI;
		if (optional && !optional_key(ks))
			return fail(cause, p->file, line,
				    "[%s] %s: '?' (the path may be missing) "
				    "is only for ro, rx, rw, rwx, touch and "
				    "copy's source.",
				    ks->section, ks->name);
		if (vars_expand_full(v, raw + optional, true, &s, &err) < 0)
			return fail(cause, p->file, line, "%s.", err);
		if (s[0] != '/')
			return fail(cause, p->file, line,
				    "[%s] %s: path '%s' is not absolute; start "
				    "it with '/', '~/' or a variable such as "
				    "${PROJECT}.",
				    ks->section, ks->name, s);
		norm = path_normalise(s);
		*out = optional ? xasprintf("?%s", norm) : xstrdup(norm);
		return 0;
	case KEY_T_INCLUDES:
		if (vars_expand_full(v, raw, true, &s, &err) < 0)
			return fail(cause, p->file, line, "%s.", err);
		*out = steal_pointer(&s);
		return 0;
	case KEY_T_PORTS: {
		_cleanup_free_ struct llw_port_range *pv = NULL;
		size_t n;

		r = value_ports(raw, &pv, &n, &err);
		break;
	}
	case KEY_T_BOOL:
		r = value_bool(raw, &yes, &err);
		break;
	case KEY_T_CHOICE:
		r = value_choice(raw, ks->choices, &choice, &err);
		break;
	case KEY_T_BYTES:
		r = value_bytes(raw, &n64, &err);
		break;
	case KEY_T_COUNT:
		r = value_count(raw, &n64, &err);
		break;
	case KEY_T_DURATION:
		r = value_duration(raw, &n64, &err);
		break;
	case KEY_T_SIZE:
		r = value_size(raw, &n64, &percent, &err);
		break;
	case KEY_T_CIDRS: {
		struct netpolicy_cidr c;

		r = value_cidr(raw, &c, &err);
		value_cidr_clear(&c);
		break;
	}
	case KEY_T_LISTEN:
		r = value_listen(raw, &addr, &err);
		break;
	case KEY_T_ADDRS:
		r = value_ip(raw, &addr, &err);
		break;
	case KEY_T_HOSTS: {
		struct hostrule hr;

		r = value_host(raw, &hr, &err);
		value_host_clear(&hr);
		break;
	}
	case KEY_T_ENVGLOBS:
		r = value_env_glob(raw, &err);
		break;
	case KEY_T_ENVSET:
		if (value_env_set(raw, &err) < 0)
			return fail(cause, p->file, line, "[%s] %s: %s.",
				    ks->section, ks->name, err);
		/* Variables in the value are expanded; '~' is not. */
		if (vars_expand_full(v, raw, false, &s, &err) < 0)
			return fail(cause, p->file, line, "%s.", err);
		*out = steal_pointer(&s);
		return 0;
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
		*out = xstrdup(raw);
		return 0;
	case KEY_T_TEXT:
		break;
	}
	if (r < 0)
		return fail(cause, p->file, line, "[%s] %s: %s.", ks->section,
			    ks->name, err);
	*out = xstrdup(raw);
	return 0;
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
	for (size_t i = 0; i < p->n_entries; i++) {
		free(p->entries[i].section);
		free(p->entries[i].key);
		strv_free(p->entries[i].values);
	}
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
	_cleanup_free_ char *word = xmalloc(strlen(value) + 1);
	const char *s = value;

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
	_cleanup_free_ char *copy = xstrdup(value);

	if (ks->type == KEY_T_PATHS && p->kind != PROFILE_KIND_CLI)
		return paths_split(value);
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
	_cleanup_strv_ char **values = NULL;
	struct profile_entry *e;
	size_t n;

	if (section[0] == '\0') {
		_cleanup_free_ char *all = section_list(" or ");

		return fail(cause, p->file, line,
			    "key '%s' is outside any section; put it under "
			    "%s.",
			    key, all);
	}
	if (!keys_section_known(section)) {
		_cleanup_free_ char *all = section_list(" and ");

		return fail(cause, p->file, line,
			    "unknown section [%s]; the sections are %s.",
			    section, all);
	}
	ks = keys_find(section, key);
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

	values = xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		int r;

		if (strcmp(raw[i], "none") == 0 && ks->type != KEY_T_TEXT) {
			values[i] = xstrdup(raw[i]);
			continue;
		}
		r = value_check(p, v, ks, raw[i], line, &values[i], cause);
		if (r < 0)
			return r;
	}
	if (strcmp(key, "copy") == 0 && strcmp(values[0], "none") != 0 &&
	    (n != 2 || values[1][0] == '?'))
		return fail(cause, p->file, line,
			    "[filesystem] copy takes a source and a "
			    "destination on one line, copy = SRC DST (the "
			    "source may be written ?SRC), not %zu path%s.",
			    n, n == 1 ? "" : "s");
	if (p->kind == PROFILE_KIND_PROJECT) {
		int r = project_check(p, ks, values, line, cause);

		if (r < 0)
			return r;
	}

	if (strcmp(key, "description") == 0) {
		/* Continuation lines and repeated keys join with a blank. */
		if (p->description == NULL) {
			p->description = xstrdup(values[0]);
		} else {
			char *d = xasprintf("%s %s", p->description, values[0]);

			free(p->description);
			p->description = d;
		}
		return 0;
	}
	if (strcmp(section, "match") == 0) {
		char ***list = strcmp(key, "command") == 0 ? &p->match_command
			       : strcmp(key, "profile") == 0
				       ? &p->match_profile
				       : &p->match_project;

		for (size_t i = 0; i < n; i++)
			strv_push(list, values[i]);
		return 0;
	}
	if (ks->type == KEY_T_INCLUDES)
		for (size_t i = 0; i < n; i++)
			strv_push(&p->includes, values[i]);

	p->entries = xreallocarray(p->entries, p->n_entries + 1,
				   sizeof(*p->entries));
	e = &p->entries[p->n_entries++];
	e->section = xstrdup(section);
	e->key = xstrdup(key);
	e->values = steal_pointer(&values);
	e->line = line;
	return 0;
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
	_cleanup_free_ char *copy = xstrdup(value);

	if (st->cause != NULL)
		return 0;
	/* inih r55 strips inline comments from "key = value" lines but not
	 * from continuation lines; do it here for both. */
	for (char *c = copy; *c != '\0'; c++) {
		if (*c == ';' && c > copy && isspace((unsigned char)c[-1])) {
			*c = '\0';
			break;
		}
	}
	if (profile_add(st->p, st->v, section, name, copy, st->line,
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
