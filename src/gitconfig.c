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
#include <pwd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "gitconfig.h"
#include "path.h"
#include "strv.h"
#include "xalloc.h"

/* The text being read and where. */
struct gc_in {
	const char *start;
	const char *p;
	const char *last; /* the character read last */
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

/* The line of the character read last, from 1. */
static int
gc_line(const struct gc_in *in)
{
	int line = 1;

	for (const char *s = in->start; s < in->last; s++)
		if (*s == '\n')
			line++;
	return line;
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
gc_unsure(const struct gc_in *in,
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
	struct gc_in in = { .start = text, .p = text, .last = text };
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

static int
gc_path(void *ctx, const char *section, const char *sub, const char *key,
	const char *value)
{
	struct gc_paths *g = ctx;
	bool include, unknown;
	char *p;

	if (section == NULL || value == NULL)
		return 0;
	include = strcmp(key, "path") == 0 &&
		  ((sub == NULL && strcmp(section, "include") == 0) ||
		   (sub != NULL && strcmp(section, "includeif") == 0));
	if (!include && !(sub == NULL && strcmp(section, "core") == 0 &&
			  (strcmp(key, "excludesfile") == 0 ||
			   strcmp(key, "attributesfile") == 0)))
		return 0;
	if ((p = gc_expand(value, g->dir, g->home, include, &unknown)) != NULL)
		strv_push_take(&g->out,
			       xasprintf("%c%s", include ? 'i' : 'f', p));
	else if (unknown && include)
		strv_push_take(&g->out, xasprintf("u%s", value));
	free(p);
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
