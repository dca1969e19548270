/*
 * [match] evaluation and specificity order (see profilematch.h).
 */
#include <string.h>

#include "profilematch.h"
#include "path.h"
#include "xalloc.h"

size_t
profilematch_path_depth(const char *path)
{
	size_t n = 0;

	for (const char *s = path; *s != '\0'; s++)
		if (*s == '/' && s[1] != '\0' && s[1] != '/')
			n++;
	return n;
}

static const char *
base_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash != NULL ? slash + 1 : s;
}

bool
profilematch_holds(const struct profile *p, const char *command,
		   const char *project, struct profilematch_score *score)
{
	struct profilematch_score s = { 0 };
	bool has_command = p->match_command != NULL && *p->match_command;
	bool has_project = p->match_project != NULL && *p->match_project;

	if (!has_command && !has_project)
		return false;
	if (has_command) {
		if (command == NULL)
			return false;
		for (char **c = p->match_command; *c != NULL; c++)
			if (strcmp(*c, base_name(command)) == 0)
				s.command = true;
		if (!s.command)
			return false;
	}
	if (has_project) {
		if (project == NULL)
			return false;
		for (char **d = p->match_project; *d != NULL; d++) {
			size_t depth = profilematch_path_depth(*d);

			if (path_under(project, *d) &&
			    (!s.project || depth > s.depth)) {
				s.project = true;
				s.depth = depth;
			}
		}
		if (!s.project)
			return false;
	}
	*score = s;
	return true;
}

bool
profilematch_profile_holds(const struct profile *p, char *const *names)
{
	if (p->match_profile == NULL || *p->match_profile == NULL)
		return true;
	for (char **m = p->match_profile; *m != NULL; m++)
		for (char *const *n = names; n != NULL && *n != NULL; n++)
			if (strcmp(*m, *n) == 0)
				return true;
	return false;
}

char *
profilematch_profile_name(const char *arg)
{
	const char *base = base_name(arg);
	size_t n = strlen(base);

	if (n > 4 && strcmp(base + n - 4, ".ini") == 0)
		n -= 4;
	return xstrndup(base, n);
}

static int
cmp_bool(bool a, bool b)
{
	return (int)a - (int)b;
}

int
profilematch_compare(const struct profilematch_score *a, const char *file_a,
		     const struct profilematch_score *b, const char *file_b)
{
	int r;

	r = cmp_bool(a->command && a->project, b->command && b->project);
	if (r != 0)
		return r;
	r = cmp_bool(a->project, b->project);
	if (r != 0)
		return r;
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	r = strcmp(base_name(file_a), base_name(file_b));
	if (r != 0)
		return r;
	return strcmp(file_a, file_b);
}
