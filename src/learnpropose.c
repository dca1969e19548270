/*
 * --learn's proposals (see learnpropose.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "learnpropose.h"
#include "path.h"
#include "strv.h"
#include "suggest.h"
#include "xalloc.h"

/* The user's tool caches and program directories (DESIGN.md §10). */
static const char *const tool_names[] = {
	".cache",
	".npm",
	".cargo",
	"go",
	".m2",
	".gradle",
	".rustup",
	".bun",
	".yarn",
	".pnpm-store",
	".local/bin",
	"bin",
	".local/share/pnpm",
};

static char **
under_home(const char *home, const char *const *names, size_t n)
{
	char **v = NULL;

	if (home == NULL || home[0] != '/')
		return NULL;
	for (size_t i = 0; i < n; i++)
		strv_push_take(&v, xasprintf("%s/%s",
					     strcmp(home, "/") == 0 ? "" : home,
					     names[i]));
	return v;
}

char **
learnpropose_tool_dirs(const char *home)
{
	return under_home(home, tool_names,
			  sizeof(tool_names) / sizeof(*tool_names));
}

static char *
parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL || slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* The smallest level holding both a and b. */
static enum llw_access
join(enum llw_access a, enum llw_access b)
{
	bool w = policy_access_writable(a) || policy_access_writable(b);
	bool x = a == LLW_ACCESS_RX || a == LLW_ACCESS_RWX ||
		 b == LLW_ACCESS_RX || b == LLW_ACCESS_RWX;

	if (a == LLW_ACCESS_DENY)
		return b;
	if (b == LLW_ACCESS_DENY)
		return a;
	return w ? (x ? LLW_ACCESS_RWX : LLW_ACCESS_RW)
		 : (x ? LLW_ACCESS_RX : LLW_ACCESS_RO);
}

static void
add(struct learnpropose_grant **g, size_t *n, const char *path,
    enum llw_access a)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*g)[i].path, path) == 0) {
			(*g)[i].access = join((*g)[i].access, a);
			(*g)[i].count++;
			return;
		}
	*g = xreallocarray(*g, *n + 1, sizeof(**g));
	(*g)[*n].path = xstrdup(path);
	(*g)[*n].access = a;
	(*g)[*n].count = 1;
	(*n)++;
}

static int
grant_cmp(const void *a, const void *b)
{
	return path_cmp(((const struct learnpropose_grant *)a)->path,
			((const struct learnpropose_grant *)b)->path);
}

/* Paths whose names are per run or per boot: no grant proposed. */
static bool
volatile_path(const char *path)
{
	return path_under(path, "/proc") || path_under(path, "/sys");
}

/* How many distinct files (not directories) among the accesses have
 * dir as their directory. */
static size_t
siblings(const struct learnpropose_access *v, size_t n, const char *dir)
{
	_cleanup_strv_ char **seen = NULL;

	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *p = NULL;

		if (v[i].is_dir)
			continue;
		p = parent_of(v[i].path);
		if (strcmp(p, dir) == 0 && !strv_contains(seen, v[i].path))
			strv_push(&seen, v[i].path);
	}
	return strv_length(seen);
}

static bool
has_control(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

struct learnpropose_grant *
learnpropose_grants(const struct learnpropose_access *v, size_t n,
		    const struct suggest_bounds *b, size_t *n_out,
		    unsigned long *dropped)
{
	struct learnpropose_grant *g = NULL;
	size_t ng = 0;

	*dropped = 0;
	for (size_t i = 0; i < n; i++) {
		const struct learnpropose_access *a = &v[i];
		_cleanup_free_ char *dir = parent_of(a->path);
		_cleanup_free_ char *unsafe_dir = NULL, *unsafe = NULL;
		const char *where = a->path;

		/* A name with a control character (one the command chose
		 * to hide the fragment's lines on a terminal) is never
		 * proposed. */
		if (volatile_path(a->path) || has_control(a->path)) {
			(*dropped)++;
			continue;
		}
		/*
		 * The path itself, unless its directory is what is needed
		 * or covers several: a file created needs its directory
		 * writable, and files read side by side (a tool's data,
		 * a library's modules) are granted through their
		 * directory.  A device, a socket or a fifo goes alone.
		 * Never a grant that reaches what suggest_unsafe() names:
		 * home, "/", a secret or a denied path.
		 */
		if (!a->alone && !(a->is_dir && a->exists) &&
		    (!a->exists || siblings(v, n, dir) > 1) &&
		    (unsafe_dir = suggest_unsafe(b, dir, NULL)) == NULL)
			where = dir;
		else if (!a->exists)
			where = NULL; /* nothing to grant a new file on */
		if (where == NULL ||
		    (unsafe = suggest_unsafe(b, where, NULL))) {
			(*dropped)++;
			continue;
		}
		add(&g, &ng, where, a->need);
	}
	if (ng > 1)
		qsort(g, ng, sizeof(*g), grant_cmp);
	/* A grant under another that allows as much adds nothing (and
	 * would take away what the wider one gives, being more specific
	 * and narrower: rw under rwx loses execute). */
	{
		size_t k = 0;

		for (size_t i = 0; i < ng; i++) {
			size_t w = k;

			for (size_t j = 0; j < k && w == k; j++)
				if (path_under(g[i].path, g[j].path) &&
				    join(g[j].access, g[i].access) ==
					    g[j].access)
					w = j;
			if (w < k) {
				g[w].count += g[i].count;
				free(g[i].path);
			} else {
				g[k++] = g[i];
			}
		}
		ng = k;
	}
	*n_out = ng;
	return g;
}

void
learnpropose_grants_free(struct learnpropose_grant *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(g[i].path);
	free(g);
}

/* A path as a profile value: quoted when it has a blank or a quote. */
static char *
quote(const char *path)
{
	char *out, *o;

	if (strpbrk(path, " \t\"\\;#") == NULL)
		return xstrdup(path);
	out = xcalloc(2 * strlen(path) + 3, 1);
	o = out;
	*o++ = '"';
	for (const char *s = path; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			*o++ = '\\';
		*o++ = *s;
	}
	*o++ = '"';
	return out;
}

char *
learnpropose_fragment(const struct learnpropose_grant *g, size_t n,
		      char *const *network, const char *command,
		      const char *project, const char *profile,
		      const char *name)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (f == NULL)
		abort();
	fprintf(f,
		"# Proposed by llwrap --learn for '%s' in %s under "
		"profile %s.\n"
		"# Review it, then save it as "
		"~/.config/llwrap/profiles/%s-learned.ini:\n"
		"# it applies when the command, the project and the "
		"profile match [match].\n\n"
		"[profile]\ndescription = learned for %s in this project "
		"under %s\n",
		command, project, profile, name, command, profile);
	if (n > 0) {
		fputs("\n[filesystem]\n", f);
		for (size_t i = 0; i < n; i++) {
			_cleanup_free_ char *q = quote(g[i].path);

			fprintf(f, "; %lu access%s\n%s = %s\n", g[i].count,
				g[i].count == 1 ? "" : "es",
				policy_access_name(g[i].access), q);
		}
	}
	if (network != NULL && *network != NULL) {
		fputs("\n[network]\n", f);
		for (char *const *l = network; *l != NULL; l++)
			fprintf(f, "%s\n", *l);
	}
	{
		_cleanup_free_ char *q = quote(project);

		fprintf(f,
			"\n[match]\ncommand = %s\nproject = %s\nprofile = %s\n",
			command, q, profile);
	}
	if (fclose(f) != 0)
		abort();
	return out;
}
