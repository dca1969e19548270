/*
 * A reader of git's configuration syntax, just enough to find the files a
 * configuration makes git read (see gitconfig.h).  It follows git's
 * config.c: section names and keys are case-insensitive, a subsection is
 * quoted, values may be quoted, '#' and ';' start a comment outside
 * quotes, and a backslash escapes '"', '\\', 'n', 't' and 'b'.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "gitconfig.h"
#include "path.h"
#include "strv.h"
#include "xalloc.h"

enum gc_section {
	GC_OTHER,
	GC_INCLUDE, /* [include] and [includeIf "..."] */
	GC_CORE,
};

/* The section of a header line ("[name]" or "[name "sub"]"). */
static enum gc_section
gc_header(const char *s, const char *end)
{
	const char *p = s + 1;
	size_t n = 0;
	char name[16];

	while (p < end &&
	       (isalnum((unsigned char)*p) || *p == '-' || *p == '.')) {
		if (n < sizeof(name) - 1)
			name[n++] = (char)tolower((unsigned char)*p);
		p++;
	}
	name[n] = '\0';
	if (strcmp(name, "include") == 0 || strcmp(name, "includeif") == 0)
		return GC_INCLUDE;
	if (strcmp(name, "core") == 0)
		return GC_CORE;
	return GC_OTHER;
}

/* The value after '=' up to end, unquoted and unescaped. */
static char *
gc_value(const char *p, const char *end)
{
	char *out = xmalloc((size_t)(end - p) + 1);
	size_t n = 0, keep = 0;
	bool quoted = false;

	while (p < end && isspace((unsigned char)*p))
		p++;
	for (; p < end; p++) {
		if (!quoted && (*p == '#' || *p == ';'))
			break;
		if (*p == '"') {
			quoted = !quoted;
			keep = n;
			continue;
		}
		if (*p == '\\' && p + 1 < end) {
			p++;
			out[n++] = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
			keep = n;
			continue;
		}
		out[n++] = *p;
		if (quoted || !isspace((unsigned char)*p))
			keep = n;
	}
	out[keep] = '\0';
	return out;
}

static char *
gc_join(const char *dir, const char *rel)
{
	_cleanup_free_ char *s = xasprintf("%s/%s", dir, rel);

	return path_normalise(s);
}

/* Expand a path the way git does for these keys, or NULL. */
static char *
gc_expand(const char *value, const char *dir, const char *home, bool include)
{
	if (value[0] == '\0')
		return NULL;
	if (value[0] == '~') {
		if (value[1] != '/' || home == NULL || home[0] != '/')
			return NULL;
		return gc_join(home, value + 2);
	}
	if (value[0] == '/')
		return path_normalise(value);
	if (!include)
		return NULL;
	return gc_join(dir, value);
}

char **
gitconfig_paths(const char *text, const char *file, const char *home)
{
	_cleanup_free_ char *dir = xstrdup(file);
	char **out = xcalloc(1, sizeof(char *));
	enum gc_section section = GC_OTHER;
	char *slash = strrchr(dir, '/');

	if (slash != NULL)
		*(slash == dir ? slash + 1 : slash) = '\0';
	while (*text != '\0') {
		const char *end = text + strcspn(text, "\n");
		const char *s = text, *k, *eq;
		char key[32];
		size_t n = 0;

		text = *end == '\n' ? end + 1 : end;
		while (s < end && isspace((unsigned char)*s))
			s++;
		if (s == end || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			section = gc_header(s, end);
			/* "[section] key = value" on one line */
			s = memchr(s, ']', (size_t)(end - s));
			if (s == NULL)
				continue;
			s++;
			while (s < end && isspace((unsigned char)*s))
				s++;
			if (s == end)
				continue;
		}
		if (section == GC_OTHER)
			continue;
		for (k = s;
		     k < end && (isalnum((unsigned char)*k) || *k == '-'); k++)
			if (n < sizeof(key) - 1)
				key[n++] = (char)tolower((unsigned char)*k);
		key[n] = '\0';
		eq = k;
		while (eq < end && isspace((unsigned char)*eq))
			eq++;
		if (eq == end || *eq != '=')
			continue;
		if ((section == GC_INCLUDE && strcmp(key, "path") == 0) ||
		    (section == GC_CORE &&
		     (strcmp(key, "excludesfile") == 0 ||
		      strcmp(key, "attributesfile") == 0))) {
			_cleanup_free_ char *v = gc_value(eq + 1, end);
			_cleanup_free_ char *p =
				gc_expand(v, dir, home, section == GC_INCLUDE);

			if (p != NULL)
				strv_push_take(&out,
					       xasprintf("%c%s",
							 section == GC_INCLUDE
								 ? 'i'
								 : 'f',
							 p));
		}
	}
	return out;
}

/* The section of a header "[name]", "[name "sub"]" or "[name.sub]", in
 * lower case, and its subsection (case kept) in *sub, NULL when none. */
static char *
gc_header_name(const char *s, const char *end, char **sub)
{
	const char *p = s + 1, *close;
	size_t n = 0;
	char *name;

	*sub = NULL;
	close = memchr(s, ']', (size_t)(end - s));
	if (close == NULL)
		return NULL;
	name = xmalloc((size_t)(close - p) + 1);
	while (p < close && (isalnum((unsigned char)*p) || *p == '-'))
		name[n++] = (char)tolower((unsigned char)*p++);
	name[n] = '\0';
	if (p < close && *p == '.') {
		/* The old form: [section.subsection], a lower-case name. */
		const char *q = ++p;

		while (q < close && !isspace((unsigned char)*q))
			q++;
		*sub = xstrndup(p, (size_t)(q - p));
		for (char *c = *sub; *c != '\0'; c++)
			*c = (char)tolower((unsigned char)*c);
	} else {
		while (p < close && isspace((unsigned char)*p))
			p++;
		if (p < close && *p == '"') {
			_cleanup_free_ char *v = gc_value(p, close);

			*sub = steal_pointer(&v);
		}
	}
	return name;
}

int
gitconfig_each(const char *text,
	       int (*fn)(void *ctx, const char *section, const char *sub,
			 const char *key, const char *value),
	       void *ctx)
{
	_cleanup_free_ char *section = NULL, *sub = NULL;

	/* git skips a UTF-8 byte order mark at the start. */
	if (strncmp(text, "\xef\xbb\xbf", 3) == 0)
		text += 3;
	while (*text != '\0') {
		const char *end = text + strcspn(text, "\n");
		const char *s = text, *k, *eq;
		_cleanup_free_ char *key = NULL, *value = NULL;
		_cleanup_free_ char *line = NULL;
		size_t n = 0;
		int r;

		text = *end == '\n' ? end + 1 : end;
		while (s < end && isspace((unsigned char)*s))
			s++;
		if (s == end || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			free(section);
			free(sub);
			sub = NULL;
			section = gc_header_name(s, end, &sub);
			/* "[section] key = value" on one line */
			s = memchr(s, ']', (size_t)(end - s));
			if (s == NULL)
				continue;
			s++;
			while (s < end && isspace((unsigned char)*s))
				s++;
			if (s == end)
				continue;
		}
		key = xmalloc((size_t)(end - s) + 1);
		for (k = s;
		     k < end && (isalnum((unsigned char)*k) || *k == '-'); k++)
			key[n++] = (char)tolower((unsigned char)*k);
		key[n] = '\0';
		eq = k;
		while (eq < end && isspace((unsigned char)*eq))
			eq++;
		if (section == NULL || n == 0 ||
		    (eq < end && *eq != '=' && *eq != '#' && *eq != ';')) {
			/* Nothing git would read as it is here (a key
			 * outside a section, a continued line): told as
			 * such, for a reader that must fail closed. */
			line = xstrndup(s, (size_t)(end - s));
			if ((r = fn(ctx, NULL, NULL, NULL, line)) != 0)
				return r;
			continue;
		}
		if (eq < end && *eq == '=')
			value = gc_value(eq + 1, end);
		if ((r = fn(ctx, section, sub, key, value)) != 0)
			return r;
	}
	return 0;
}
