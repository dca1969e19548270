/*
 * Known limits (see known.h): a line-oriented list, parsed without
 * inih because its last field is free text.
 */
#include <errno.h>
#include <string.h>

#include "cleanup.h"
#include "known.h"
#include "strv.h"
#include "xalloc.h"

#include "known-limits.h"

static const char *const layers[] = { "L3",	"L3-pid",   "L3-tmp",
				      "L3-git", "L3-later", "L3-seal",
				      "S",	"F",	    "none" };

static bool
valid_layer(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(layers); i++)
		if (strcmp(s, layers[i]) == 0)
			return true;
	return false;
}

static bool
valid_backend(const char *s)
{
	return strcmp(s, "landlock") == 0 || strcmp(s, "bwrap") == 0 ||
	       strcmp(s, "*") == 0;
}

/* Split off the next blank-separated field of *s. */
static char *
next_field(const char **s)
{
	const char *p = *s + strspn(*s, " \t");
	size_t n = strcspn(p, " \t");

	*s = p + n;
	return n ? xstrndup(p, n) : NULL;
}

static int
parse_line(const char *file, unsigned line, const char *text,
	   struct known_limit *e, char **cause)
{
	_cleanup_free_ char *backends = NULL;
	const char *s = text;

	memset(e, 0, sizeof(*e));
	e->line = line;
	e->id = next_field(&s);
	backends = next_field(&s);
	e->closed_by = next_field(&s);
	s += strspn(s, " \t");
	if (e->id == NULL || backends == NULL || e->closed_by == NULL ||
	    *s == '\0') {
		*cause = xasprintf("%s:%u: expected ID BACKENDS CLOSED-BY "
				   "REASON; a known limit needs a reason.",
				   file, line);
		return -EINVAL;
	}
	e->reason = xstrdup(s);
	for (char *b = strtok(backends, ","); b != NULL;
	     b = strtok(NULL, ",")) {
		if (!valid_backend(b)) {
			*cause = xasprintf("%s:%u: unknown backend '%s': use "
					   "landlock, bwrap or *.",
					   file, line, b);
			return -EINVAL;
		}
		strv_push(&e->backends, b);
	}
	if (!valid_layer(e->closed_by)) {
		*cause = xasprintf("%s:%u: unknown layer '%s': use L3, "
				   "L3-pid, L3-tmp, L3-git, L3-later, "
				   "L3-seal, S, F or none.",
				   file, line, e->closed_by);
		return -EINVAL;
	}
	return 0;
}

static void
entry_clear(struct known_limit *e)
{
	free(e->id);
	strv_free(e->backends);
	free(e->closed_by);
	free(e->reason);
}

void
known_free(struct known_limits *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; i < l->n; i++)
		entry_clear(&l->v[i]);
	free(l->v);
	free(l);
}

int
known_parse(const char *file, const char *text, struct known_limits **out,
	    char **cause)
{
	struct known_limits *l = xcalloc(1, sizeof(*l));
	unsigned line = 0;

	for (const char *s = text; *s != '\0';) {
		size_t n = strcspn(s, "\n");
		_cleanup_free_ char *copy = xstrndup(s, n);
		const char *t = copy + strspn(copy, " \t");
		int r;

		line++;
		s += n + (s[n] == '\n');
		if (*t == '\0' || *t == '#')
			continue;
		l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
		r = parse_line(file, line, t, &l->v[l->n], cause);
		l->n++;
		if (r < 0) {
			known_free(l);
			return r;
		}
	}
	*out = l;
	return 0;
}

struct known_limits *
known_builtin(void)
{
	struct known_limits *l = NULL;
	char *cause = NULL;

	if (known_parse("built-in known-limits", builtin_known_limits, &l,
			&cause) < 0) {
		free(cause);
		return NULL;
	}
	return l;
}

const struct known_limit *
known_find(const struct known_limits *l, const char *id, const char *backend)
{
	for (size_t i = 0; l != NULL && i < l->n; i++) {
		const struct known_limit *e = &l->v[i];

		if (strcmp(e->id, id) != 0)
			continue;
		if (strv_contains(e->backends, backend) ||
		    strv_contains(e->backends, "*"))
			return e;
	}
	return NULL;
}

bool
known_applies(const struct known_limit *e, const char *backend, unsigned l3,
	      bool use_supervisor)
{
	if (!strv_contains(e->backends, backend) &&
	    !strv_contains(e->backends, "*"))
		return false;
	if (strcmp(e->closed_by, "L3") == 0)
		return !(l3 & KNOWN_L3);
	if (strcmp(e->closed_by, "L3-pid") == 0)
		return !(l3 & KNOWN_L3_PID);
	if (strcmp(e->closed_by, "L3-tmp") == 0)
		return !(l3 & KNOWN_L3_TMP);
	if (strcmp(e->closed_by, "L3-git") == 0)
		return !(l3 & KNOWN_L3_GIT);
	if (strcmp(e->closed_by, "L3-later") == 0)
		return !(l3 & KNOWN_L3_LATER);
	if (strcmp(e->closed_by, "L3-seal") == 0)
		return !(l3 & KNOWN_L3_SEAL);
	if (strcmp(e->closed_by, "S") == 0)
		return !use_supervisor;
	if (strcmp(e->closed_by, "F") == 0)
		return strcmp(backend, "bwrap") != 0;
	return true;
}
