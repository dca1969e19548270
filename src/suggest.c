/*
 * The bounds of every suggested grant (see suggest.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "path.h"
#include "strv.h"
#include "suggest.h"
#include "xalloc.h"

static const char *const secret_names[] = {
	".ssh",
	".aws",
	".gnupg",
	".config/gh",
	".docker",
	".kube",
	".netrc",
	".git-credentials",
	".config/git/credentials",
	".npmrc",
	".pypirc",
	".password-store",
	".local/share/keyrings",
	".mozilla",
	".config/google-chrome",
	".config/chromium",
};

char **
suggest_secrets(const char *home)
{
	char **v = NULL;

	if (home == NULL || home[0] != '/')
		return NULL;
	for (size_t i = 0; i < sizeof(secret_names) / sizeof(*secret_names);
	     i++)
		strv_push_take(&v, xasprintf("%s/%s",
					     strcmp(home, "/") == 0 ? "" : home,
					     secret_names[i]));
	return v;
}

void
suggest_bounds_init(struct suggest_bounds *b, const char *home,
		    const struct plan *fs)
{
	memset(b, 0, sizeof(*b));
	if (home != NULL && home[0] == '/') {
		b->home = path_normalise(home);
		b->secrets = suggest_secrets(b->home);
	}
	for (size_t i = 0; fs != NULL && i < fs->n_sources; i++) {
		const struct plan_source *s = &fs->sources[i];

		if (s->access != LLW_ACCESS_DENY)
			continue;
		if (!strv_contains(b->denied, s->path))
			strv_push(&b->denied, s->path);
		if (!strv_contains(b->denied, s->written))
			strv_push(&b->denied, s->written);
	}
}

void
suggest_bounds_clear(struct suggest_bounds *b)
{
	free(b->home);
	strv_free(b->secrets);
	strv_free(b->denied);
	memset(b, 0, sizeof(*b));
}

/* path as the user knows it: ~/... under home. */
static char *
tilde(const struct suggest_bounds *b, const char *path)
{
	size_t n = b->home ? strlen(b->home) : 0;

	if (n > 1 && strncmp(path, b->home, n) == 0 &&
	    (path[n] == '/' || path[n] == '\0'))
		return xasprintf("~%s", path + n);
	return xstrdup(path);
}

/* The first of list that path is under (under) or holds (!under). */
static const char *
first(char *const *list, const char *path, bool under)
{
	for (char *const *l = list; l != NULL && *l != NULL; l++)
		if (under ? path_under(path, *l) : path_under(*l, path))
			return *l;
	return NULL;
}

char *
suggest_unsafe(const struct suggest_bounds *b, const char *path, bool *inside)
{
	_cleanup_free_ char *t = NULL;
	const char *s;
	bool in_dummy;

	if (inside == NULL)
		inside = &in_dummy;
	*inside = true;
	if ((s = first(b->secrets, path, true)) != NULL) {
		t = tilde(b, s);
		return xasprintf("it is %s%s, which holds keys or credentials",
				 strcmp(path, s) == 0 ? "" : "under ", t);
	}
	if ((s = first(b->denied, path, true)) != NULL) {
		t = tilde(b, s);
		return xasprintf("it is %s%s, which the policy denies by name",
				 strcmp(path, s) == 0 ? "" : "under ", t);
	}
	*inside = false;
	if (strcmp(path, "/") == 0)
		return xstrdup("it is the whole filesystem, your home and its "
			       "secrets with it");
	if (b->home != NULL && strcmp(path, b->home) == 0)
		return xstrdup("it is your home directory, with ~/.ssh and "
			       "every other secret in it");
	if (b->home != NULL && path_under(b->home, path))
		return xstrdup("it holds your home directory");
	if ((s = first(b->secrets, path, false)) != NULL) {
		t = tilde(b, s);
		return xasprintf("it holds %s, which holds keys or "
				 "credentials",
				 t);
	}
	if ((s = first(b->denied, path, false)) != NULL) {
		t = tilde(b, s);
		return xasprintf("it holds %s, which the policy denies by name",
				 t);
	}
	return NULL;
}
