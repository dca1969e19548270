/*
 * A reader of git's configuration syntax, written from the rules of git's
 * config.c and read the way git reads it, character by character:
 * - a CR before a LF is dropped;
 * - '#' or ';' outside a value starts a comment to the end of the line;
 * - a header "[name]", "[name "sub"]" or the old "[name.sub]": the name
 *   of letters, digits, '-' and '.' in any case (lowered), a quoted
 *   subsection kept as written but for '\' before any character, the
 *   header ended by the first ']' outside the quotes; what follows it on
 *   the same line is read as any other text;
 * - a key: a letter, then letters, digits and '-', lowered; then blanks,
 *   then the end of the line (a key alone: true) or '=' and a value;
 * - a value: blanks around it dropped, '"' opening and closing a quoted
 *   part, '\' before '"', '\\', 'n', 't', 'b' or the end of the line (a
 *   continuation) and nothing else, '#' or ';' outside quotes a comment.
 *   A tab or CR inside a value outside quotes, which git before 2.45
 *   reads as a space and later gits as itself, is told as unsure.
 * git's classes of characters are ASCII whatever the locale: a blank is
 * space, tab, CR or LF (not VT nor FF), a byte above 127 is no letter.
 * Where git would stop with "bad config line", so does this reader, and
 * says so; where git reads on and llwrap cannot tell how, it says so and
 * reads on (gitconfig.h).
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "gitconfig.h"
#include "path.h"
#include "strv.h"
#include "text.h"
#include "xalloc.h"

/* The text being read and where. */
struct gc_in {
	const char *p;
	const char *last;    /* the character read last */
	const char *counted; /* lines counted up to here, */
	int line;	     /* ... this many newlines */
	bool eof;
};

static bool
gc_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool
gc_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool
gc_keychar(int c)
{
	return gc_alpha(c) || (c >= '0' && c <= '9') || c == '-';
}

static int
gc_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* The next character, CR LF read as LF; at the end, LF with eof set. */
static int
gc_getc(struct gc_in *in)
{
	int c;

	in->last = in->p;
	if (*in->p == '\0') {
		in->eof = true;
		return '\n';
	}
	c = (unsigned char)*in->p++;
	if (c == '\r' && *in->p == '\n')
		c = (unsigned char)*in->p++;
	return c;
}

/* The line of the character read last, from 1: counted on from where
 * the last call stopped (the reading only goes forward), so that a text
 * of many lines llwrap is unsure of costs no more than its length. */
static int
gc_line(struct gc_in *in)
{
	for (; in->counted < in->last; in->counted++)
		if (*in->counted == '\n')
			in->line++;
	return in->line + 1;
}

/*
 * A header, after its '[': its name as git makes it ("section" or
 * "section.subsection") in name, of n bytes.  false when git refuses it.
 */
static bool
gc_header(struct gc_in *in, char *name, size_t *n)
{
	int c;

	*n = 0;
	for (;;) {
		c = gc_getc(in);
		if (in->eof)
			return false;
		if (c == ']')
			return *n > 0;
		if (gc_space(c))
			break;
		if (!gc_keychar(c) && c != '.')
			return false;
		name[(*n)++] = (char)gc_lower(c);
	}
	/* [section "subsection"]: blanks on one line, then the quotes. */
	while (gc_space(c)) {
		if (c == '\n')
			return false;
		c = gc_getc(in);
	}
	if (c != '"')
		return false;
	name[(*n)++] = '.';
	for (;;) {
		c = gc_getc(in);
		if (c == '\n')
			return false;
		if (c == '"')
			break;
		if (c == '\\' && (c = gc_getc(in)) == '\n')
			return false;
		name[(*n)++] = (char)c;
	}
	return gc_getc(in) == ']';
}

/* A value, after its '=', into out: 0, 1 where gits differ on it (out as
 * later ones read it), -1 when git refuses it. */
static int
gc_value(struct gc_in *in, char *out)
{
	size_t n = 0, trim = 0;
	bool quoted = false, comment = false, odd = false, differ = false;
	int c;

	for (;;) {
		c = gc_getc(in);
		if (c == '\n') {
			if (quoted)
				return -1;
			/* Blanks at the end, outside quotes, dropped. */
			if (trim != 0)
				n = trim;
			out[n] = '\0';
			return differ ? 1 : 0;
		}
		if (comment)
			continue;
		if (gc_space(c) && !quoted) {
			/* Blanks at the start dropped; later ones kept
			 * unless nothing but blanks follows. */
			if (trim == 0)
				trim = n;
			if (n != 0) {
				out[n++] = (char)c;
				odd = odd || c != ' ';
			}
			continue;
		}
		if (!quoted && (c == '#' || c == ';')) {
			comment = true;
			continue;
		}
		/* A tab or CR inside a value, outside quotes: git before
		 * 2.45 reads a space there, later ones the character; which
		 * git reads the file is not known. */
		differ = differ || odd;
		trim = 0;
		if (c == '"') {
			quoted = !quoted;
			continue;
		}
		if (c == '\\') {
			switch (c = gc_getc(in)) {
			case '\n':
				continue; /* the value goes on */
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			case 'n':
				c = '\n';
				break;
			case '"':
			case '\\':
				break;
			default:
				return -1;
			}
		}
		out[n++] = (char)c;
	}
}

/* That llwrap cannot tell what git makes of the text around the character
 * read last. */
static int
gc_unsure(struct gc_in *in,
	  int (*fn)(void *ctx, const char *section, const char *sub,
		    const char *key, const char *value),
	  void *ctx)
{
	_cleanup_free_ char *where = xasprintf("line %d", gc_line(in));

	return fn(ctx, NULL, NULL, NULL, where);
}

int
gitconfig_each(const char *text,
	       int (*fn)(void *ctx, const char *section, const char *sub,
			 const char *key, const char *value),
	       void *ctx)
{
	size_t size = strlen(text) + 2;
	_cleanup_free_ char *name = xmalloc(size), *key = xmalloc(size);
	_cleanup_free_ char *value = xmalloc(size);
	_cleanup_free_ char *section = NULL, *sub = NULL;
	struct gc_in in = { .p = text, .last = text, .counted = text };
	bool comment = false;
	int c, r, v;

	/* git skips a UTF-8 byte order mark at the start (a part of one is
	 * no letter: refused below, as git refuses it). */
	if (strncmp(text, "\xef\xbb\xbf", 3) == 0)
		in.p += 3;
	for (;;) {
		size_t n = 0;

		c = gc_getc(&in);
		if (c == '\n') {
			if (in.eof)
				return 0;
			comment = false;
			continue;
		}
		if (comment || gc_space(c))
			continue;
		if (c == '#' || c == ';') {
			comment = true;
			continue;
		}
		if (c == '[') {
			char *dot;

			free(section);
			free(sub);
			section = sub = NULL;
			if (!gc_header(&in, name, &n))
				break;
			name[n] = '\0';
			/* git's name is "section.subsection.key": the
			 * subsection lies between the first dot and the
			 * last.  An empty section, which git takes ([.x],
			 * [ "x"]), is none here: its keys are unsure. */
			if ((dot = strchr(name, '.')) != NULL)
				sub = xstrdup(dot + 1);
			if (dot != name)
				section = xstrndup(
					name,
					dot != NULL ? (size_t)(dot - name) : n);
			continue;
		}
		if (!gc_alpha(c))
			break;
		key[n++] = (char)gc_lower(c);
		for (;;) {
			c = gc_getc(&in);
			if (in.eof || !gc_keychar(c))
				break;
			key[n++] = (char)gc_lower(c);
		}
		key[n] = '\0';
		while (c == ' ' || c == '\t')
			c = gc_getc(&in);
		if (c == '\n')
			v = 0;
		else if (c != '=' || (v = gc_value(&in, value)) < 0)
			break;
		/* What git reads and llwrap cannot tell how (a key outside
		 * any section, a value gits read differently) is told, and
		 * the reading goes on, as git's does. */
		if ((section == NULL || v == 1) &&
		    (r = gc_unsure(&in, fn, ctx)) != 0)
			return r;
		if (section != NULL && (r = fn(ctx, section, sub, key,
					       c == '\n' ? NULL : value)) != 0)
			return r;
	}
	/* What git refuses: it reads nothing more. */
	return gc_unsure(&in, fn, ctx);
}

static char *
gc_join(const char *dir, const char *rel)
{
	_cleanup_free_ char *s = xasprintf("%s/%s", dir, rel);

	return path_normalise(s);
}

/*
 * Expand a path the way git does for these keys (path.c
 * interpolate_path, then config.c's include relative to the including
 * file): "~" and "~/" from home, "~name" and "~name/" from name's home
 * directory (getpwnam, as git).  NULL where git reads nothing, or
 * (*unknown) where it reads a path llwrap cannot know: "%(prefix)/" is
 * beneath where git itself is installed, and a name llwrap finds no
 * user for may be one git's lookup finds (a static llwrap's NSS).
 */
static char *
gc_expand(const char *value, const char *dir, const char *home, bool include,
	  bool *unknown)
{
	_cleanup_free_ char *user = NULL, *s = NULL;

	*unknown = false;
	if (value[0] == '\0')
		return NULL;
	if (strncmp(value, "%(prefix)/", strlen("%(prefix)/")) == 0) {
		*unknown = true;
		return NULL;
	}
	if (value[0] == '~') {
		size_t n = strcspn(value + 1, "/");
		const char *from = home;

		if (n > 0) {
			struct passwd *pw;

			user = xstrndup(value + 1, n);
			if ((pw = getpwnam(user)) == NULL) {
				*unknown = true;
				return NULL;
			}
			from = pw->pw_dir;
		}
		if (from == NULL)
			return NULL;
		s = xasprintf("%s%s", from, value + 1 + n);
		value = s;
	}
	if (value[0] == '/')
		return path_normalise(value);
	if (!include)
		return NULL;
	return gc_join(dir, value);
}

struct gc_paths {
	const char *dir, *home;
	char **out;
};

/* Whether the variable is one git follows as an include: include.path,
 * includeIf.<condition>.path (config.c, git_config_include). */
static bool
gc_include(const char *section, const char *sub, const char *key)
{
	return strcmp(key, "path") == 0 &&
	       ((sub == NULL && strcmp(section, "include") == 0) ||
		(sub != NULL && strcmp(section, "includeif") == 0));
}

char *
gitconfig_path(const char *section, const char *sub, const char *key,
	       const char *value, const char *dir, const char *home)
{
	bool include, unknown;
	char *p;

	if (section == NULL || value == NULL)
		return NULL;
	include = gc_include(section, sub, key);
	if (!include && !(sub == NULL && strcmp(section, "core") == 0 &&
			  (strcmp(key, "excludesfile") == 0 ||
			   strcmp(key, "attributesfile") == 0)))
		return NULL;
	/* (Not from a file, a relative include is one git refuses.) */
	if ((p = gc_expand(value, dir, home, include && dir != NULL,
			   &unknown)) != NULL) {
		char *r = xasprintf("%c%s", include ? 'i' : 'f', p);

		free(p);
		return r;
	}
	if (unknown && include)
		return xasprintf("u%s", value);
	return NULL;
}

static int
gc_path(void *ctx, const char *section, const char *sub, const char *key,
	const char *value)
{
	struct gc_paths *g = ctx;
	char *p = gitconfig_path(section, sub, key, value, g->dir, g->home);

	if (p != NULL)
		strv_push_take(&g->out, p);
	return 0;
}

char **
gitconfig_paths(const char *text, const char *file, const char *home)
{
	_cleanup_free_ char *dir = xstrdup(file);
	struct gc_paths g = { .dir = dir, .home = home };
	char *slash = strrchr(dir, '/');

	if (slash != NULL)
		*(slash == dir ? slash + 1 : slash) = '\0';
	g.out = xcalloc(1, sizeof(char *));
	gitconfig_each(text, gc_path, &g);
	return g.out;
}

/*
 * The configuration given in the environment, as git reads it (config.c,
 * git_config_from_parameters, git_config_parse_key,
 * parse_config_env_list; quote.c, sq_dequote_step): what git -c and git
 * --config-env export to the gits they run, and what a user or a tool
 * sets for every git of a shell.  Where git refuses it (it dies: "unable
 * to parse command-line config"), so does this reader, saying what git
 * says, and nothing of it is taken.
 */

/* The first value of name in env, as getenv finds it, or NULL. */
static const char *
gc_getenv(char *const *env, const char *name)
{
	size_t n = strlen(name);

	for (char *const *e = env; e != NULL && *e != NULL; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

/* What git refuses in the environment, and where, as cause (what, taken,
 * quotes the environment: shown as text on the terminal). */
static int
gc_env_refuse(char **cause, const char *from, char *what)
{
	_cleanup_free_ char *shown = text_shown(what);

	*cause = xasprintf("the git configuration given in the environment "
			   "(%s) is one git refuses: %s; git would not run "
			   "with it and llwrap does not guess what it means: "
			   "correct it, or unset %s, before running llwrap",
			   from, shown,
			   strcmp(from, "GIT_CONFIG_PARAMETERS") == 0
				   ? "GIT_CONFIG_PARAMETERS"
				   : "GIT_CONFIG_COUNT and the "
				     "GIT_CONFIG_KEY_<n>/GIT_CONFIG_VALUE_<n> "
				     "it counts");
	free(what);
	return -EINVAL;
}

struct gc_env {
	struct gitconfig_var *v;
	size_t n;
	const char *home;
};

/* key (git's "section.subsection.key") = value (NULL: a key alone), from
 * source, as git_config_parse_key and the include it reads at once take
 * it (config_parse_pair, git_config_include); -EINVAL and *cause where
 * git refuses it. */
static int
gc_env_pair(struct gc_env *e, const char *source, const char *key,
	    const char *value, char **cause)
{
	const char *first = strchr(key, '.'), *last = strrchr(key, '.');
	struct gitconfig_var v = { 0 };
	bool unknown;
	char *p;

	if (*key == '\0')
		return gc_env_refuse(cause, source,
				     xstrdup("empty config key"));
	if (last == NULL || last == key)
		return gc_env_refuse(
			cause, source,
			xasprintf("key does not contain a section: %s", key));
	if (last[1] == '\0')
		return gc_env_refuse(
			cause, source,
			xasprintf("key does not contain variable name: %s",
				  key));
	for (const char *c = key; c < first; c++)
		if (!gc_keychar((unsigned char)*c))
			return gc_env_refuse(cause, source,
					     xasprintf("invalid key: %s", key));
	for (const char *c = last + 1; *c != '\0'; c++)
		if (!gc_keychar((unsigned char)*c) ||
		    (c == last + 1 && !gc_alpha((unsigned char)*c)))
			return gc_env_refuse(cause, source,
					     xasprintf("invalid key: %s", key));
	if (memchr(first, '\n', (size_t)(last - first)) != NULL)
		return gc_env_refuse(
			cause, source,
			xasprintf("invalid key (newline): %s", key));
	v.source = xstrdup(source);
	v.section = xstrndup(key, (size_t)(first - key));
	v.sub = first != last ? xstrndup(first + 1, (size_t)(last - first - 1))
			      : NULL;
	v.key = xstrdup(last + 1);
	v.value = value != NULL ? xstrdup(value) : NULL;
	for (char *c = v.section; *c != '\0'; c++)
		*c = (char)gc_lower(*c);
	for (char *c = v.key; *c != '\0'; c++)
		*c = (char)gc_lower(*c);
	e->v = xreallocarray(e->v, e->n + 1, sizeof(*e->v));
	e->v[e->n++] = v;
	/* An include is read as it is met: one without a value, or relative
	 * ("relative config includes must come from files"), and so one
	 * whose ~/ has no home to start from, ends git.  An includeIf's is
	 * read only where its condition holds, which llwrap does not
	 * evaluate: such a one names no file git reads, either way. */
	if (!gc_include(v.section, v.sub, v.key) || v.sub != NULL)
		return 0;
	if (value == NULL)
		return gc_env_refuse(cause, source,
				     xasprintf("missing value for '%s'", key));
	if ((p = gc_expand(value, NULL, e->home, false, &unknown)) == NULL &&
	    !unknown)
		return gc_env_refuse(
			cause, source,
			xasprintf("%s = '%s' names no absolute path "
				  "(relative config includes must come from "
				  "files; ~/ needs HOME)",
				  key, value));
	free(p);
	return 0;
}

/* git's sq_dequote_step: the single-quoted word at arg, unquoted in
 * place ('\'' and '\!' between two quoted parts kept); *next what
 * follows it (NULL at the end); NULL when arg is no such word. */
static char *
gc_sq_dequote_step(char *arg, char **next)
{
	char *dst = arg, *src = arg;

	if (*src != '\'')
		return NULL;
	for (;;) {
		char c = *++src;

		if (c == '\0')
			return NULL;
		if (c != '\'') {
			*dst++ = c;
			continue;
		}
		switch (*++src) {
		case '\0':
			*dst = '\0';
			*next = NULL;
			return arg;
		case '\\':
			if ((src[1] == '\'' || src[1] == '!') &&
			    src[2] == '\'') {
				*dst++ = src[1];
				src += 2;
				continue;
			}
			/* fall through */
		default:
			*dst = '\0';
			*next = src;
			return arg;
		}
	}
}

/* git's isspace (ASCII: space, tab, LF, CR). */
static char *
gc_skip_space(char *s)
{
	while (s != NULL && gc_space((unsigned char)*s))
		s++;
	return s;
}

/* GIT_CONFIG_PARAMETERS: 'key'='value' (or 'key'= for a key alone)
 * separated by blanks, as git -c writes it, or the old 'key=value'. */
static int
gc_env_parameters(struct gc_env *e, const char *text, char **cause)
{
	static const char from[] = "GIT_CONFIG_PARAMETERS";
	_cleanup_free_ char *copy = xstrdup(text);
	char *cur = copy;

	while (cur != NULL && *cur != '\0') {
		char *key = gc_sq_dequote_step(cur, &cur);
		int r;

		if (key == NULL)
			return gc_env_refuse(cause, from,
					     xstrdup("bogus format"));
		if (cur == NULL || gc_space((unsigned char)*cur)) {
			/* The old 'key=value': the key trimmed, no '=' a
			 * key alone. */
			char *eq = strchr(key, '=');
			char *k, *end;

			if (eq != NULL)
				*eq = '\0';
			k = gc_skip_space(key);
			end = k + strlen(k);
			while (end > k && gc_space((unsigned char)end[-1]))
				*--end = '\0';
			if (*k == '\0')
				return gc_env_refuse(
					cause, from,
					xasprintf("bogus config parameter: %s",
						  key));
			r = gc_env_pair(e, from, k, eq != NULL ? eq + 1 : NULL,
					cause);
		} else if (*cur == '=') {
			char *value = NULL;

			cur++;
			if (*cur == '\'') {
				value = gc_sq_dequote_step(cur, &cur);
				if (value == NULL ||
				    (cur != NULL &&
				     !gc_space((unsigned char)*cur)))
					return gc_env_refuse(
						cause, from,
						xstrdup("bogus format"));
			} else if (*cur != '\0' &&
				   !gc_space((unsigned char)*cur)) {
				return gc_env_refuse(cause, from,
						     xstrdup("bogus format"));
			}
			r = gc_env_pair(e, from, key, value, cause);
		} else {
			return gc_env_refuse(cause, from,
					     xstrdup("bogus format"));
		}
		if (r < 0)
			return r;
		cur = gc_skip_space(cur);
	}
	return 0;
}

void
gitconfig_vars_free(struct gitconfig_var *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].source);
		free(v[i].section);
		free(v[i].sub);
		free(v[i].key);
		free(v[i].value);
	}
	free(v);
}

int
gitconfig_env(char *const *env, const char *home, struct gitconfig_var **vars,
	      size_t *n, char **cause)
{
	struct gc_env e = { .home = home };
	const char *count = gc_getenv(env, "GIT_CONFIG_COUNT");
	const char *params = gc_getenv(env, "GIT_CONFIG_PARAMETERS");
	int r = 0;

	if (count != NULL) {
		static const char from[] = "GIT_CONFIG_COUNT";
		char *end;
		unsigned long c = strtoul(count, &end, 10);

		if (*end != '\0')
			r = gc_env_refuse(cause, from,
					  xasprintf("bogus count in %s", from));
		else if (c > INT_MAX)
			r = gc_env_refuse(
				cause, from,
				xasprintf("too many entries in %s", from));
		for (unsigned long i = 0; r == 0 && i < c; i++) {
			_cleanup_free_ char *kn =
				xasprintf("GIT_CONFIG_KEY_%lu", i);
			_cleanup_free_ char *vn =
				xasprintf("GIT_CONFIG_VALUE_%lu", i);
			const char *k = gc_getenv(env, kn);
			const char *v = gc_getenv(env, vn);

			if (k == NULL)
				r = gc_env_refuse(cause, from,
						  xasprintf("missing config "
							    "key %s",
							    kn));
			else if (v == NULL)
				r = gc_env_refuse(cause, from,
						  xasprintf("missing config "
							    "value %s",
							    vn));
			else
				r = gc_env_pair(&e, kn, k, v, cause);
		}
	}
	if (r == 0 && params != NULL)
		r = gc_env_parameters(&e, params, cause);
	if (r < 0) {
		gitconfig_vars_free(e.v, e.n);
		return r;
	}
	*vars = e.v;
	*n = e.n;
	return 0;
}
