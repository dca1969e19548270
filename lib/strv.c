#include <stdlib.h>
#include <string.h>

#include "strv.h"
#include "xalloc.h"

size_t
strv_length(char *const *v)
{
	size_t n = 0;

	if (v == NULL)
		return 0;
	while (v[n] != NULL)
		n++;
	return n;
}

void
strv_free(char **v)
{
	if (v == NULL)
		return;
	for (char **p = v; *p != NULL; p++)
		free(*p);
	free(v);
}

void
strv_push_take(char ***v, char *s)
{
	size_t n = strv_length(*v);

	*v = xreallocarray(*v, n + 2, sizeof(char *));
	(*v)[n] = s;
	(*v)[n + 1] = NULL;
}

void
strv_push(char ***v, const char *s)
{
	strv_push_take(v, xstrdup(s));
}

char **
strv_copy(char *const *v)
{
	char **r;
	size_t n;

	if (v == NULL)
		return NULL;
	n = strv_length(v);
	r = xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		r[i] = xstrdup(v[i]);
	return r;
}

bool
strv_contains(char *const *v, const char *s)
{
	if (v == NULL)
		return false;
	for (; *v != NULL; v++)
		if (strcmp(*v, s) == 0)
			return true;
	return false;
}

char **
strv_split_blank(const char *s)
{
	char **v = xcalloc(1, sizeof(char *));
	const char *blank = " \t\n\r";

	while (*s != '\0') {
		size_t len;

		s += strspn(s, blank);
		len = strcspn(s, blank);
		if (len == 0)
			break;
		strv_push_take(&v, xstrndup(s, len));
		s += len;
	}
	return v;
}

char *
strv_join(char *const *v, const char *sep)
{
	size_t len = 1, seplen = strlen(sep);
	char *r, *p;

	for (char *const *q = v; q != NULL && *q != NULL; q++)
		len += strlen(*q) + seplen;
	r = p = xmalloc(len);
	*p = '\0';
	for (char *const *q = v; q != NULL && *q != NULL; q++) {
		if (q != v) {
			memcpy(p, sep, seplen);
			p += seplen;
		}
		p = stpcpy(p, *q);
	}
	return r;
}

const char *
strv_env_get(char *const *envp, const char *name)
{
	size_t len = strlen(name);

	for (; envp != NULL && *envp != NULL; envp++)
		if ((*envp)[0] == name[0] && strncmp(*envp, name, len) == 0 &&
		    (*envp)[len] == '=')
			return *envp + len + 1;
	return NULL;
}
