/*
 * libFuzzer harness: the git configuration the host side reads after the
 * sandboxed command wrote it (src/gitconfig.c's reader and the judges of
 * src/gitguard-read.c: a repository's config, config.worktree, a legacy
 * remote file), untrusted bytes through and through.
 *
 * An input is read as a config (cut at its first NUL, as the callers
 * refuse one with a NUL inside), and its two halves, cut at the first
 * "\n--\n", as the config before and after a run.  Each variable the
 * reader gives is one git could name: a section of lower-case letters,
 * digits and '-', a key of a letter and then those, no newline in its
 * subsection; or, where the reader cannot tell, no name and a "line N"
 * saying where.  Then every judge reads it: the object format, the hooks
 * path, what could run a command, where git reads and sends, the paths
 * it names, and the input as a legacy remote file and as the
 * environment's configuration (one variable a line).  Then the start's
 * scans read it from a small file system: as a project's .git/config,
 * every file it includes (includes of includes, cycles), .gitmodules and
 * .envrc; each line as a direnv load (gitguard_envrc_load).
 *
 * Built by tests/fuzz/run.sh with clang -fsanitize=fuzzer,address,
 * undefined; built without libFuzzer (tests/fuzz/replay.c supplies
 * main), make check replays tests/fuzz/regressions-gitconfig/.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gitconfig.h"
#include "gitguard.h"
#include "strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool
name_ok(const char *s, bool first_alpha)
{
	if (*s == '\0' || (first_alpha && !((*s >= 'a' && *s <= 'z'))))
		return false;
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '-'))
			return false;
	return true;
}

/* What gitconfig.h promises of each call, checked independently. */
static int
check_var(void *ctx, const char *section, const char *sub, const char *key,
	  const char *value)
{
	(void)ctx;
	if (section == NULL) {
		if (sub != NULL || key != NULL || value == NULL ||
		    strncmp(value, "line ", 5) != 0)
			abort();
		return 0;
	}
	if (!name_ok(section, false) || key == NULL || !name_ok(key, true) ||
	    (sub != NULL && strchr(sub, '\n') != NULL))
		abort();
	return 0;
}

/* The file system the scans read: /p, its repository, and the input at
 * every file they read. */
static int
fs_kind(void *ctx, const char *path)
{
	static const char *const dirs[] = {
		"/p",		"/p/.git", "/p/.git/hooks", "/p/.git/objects",
		"/p/.git/refs", "/p/sub"
	};
	/* A few files: as many as the input names would have the scans
	 * follow a tree of includes as wide as it is deep (git reads them
	 * all too: slow, not wrong). */
	static const char *const files[] = {
		"/p/.git/HEAD",	  "/p/.envrc", "/p/.gitmodules",
		"/p/.git/config", "/p/inc1",   "/p/.git/i2",
		"/p/sub/i3",
	};

	(void)ctx;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (strcmp(path, dirs[i]) == 0)
			return 'd';
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (strcmp(path, files[i]) == 0)
			return 'f';
	return 0;
}

static char **
fs_list(void *ctx, const char *path)
{
	(void)ctx;
	(void)path;
	return calloc(1, sizeof(char *));
}

static char *
fs_read(void *ctx, const char *path)
{
	if (strcmp(path, "/p/.git/HEAD") == 0)
		return strdup("ref: refs/heads/main\n");
	return fs_kind(ctx, path) == 'f' ? strdup(ctx) : NULL;
}

static void
check_scan(struct gitguard *g)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].path == NULL || g->v[i].path[0] != '/')
			abort();
	gitguard_free(g);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *before, *after, *cut, *s;
	char **paths, **env = NULL;
	struct gitconfig_var *vars = NULL;
	size_t n = 0;
	char *cause = NULL;

	memcpy(text, data, size);
	text[size] = '\0';
	gitconfig_each(text, check_var, NULL);
	(void)gitguard_hash_len(text);
	free(gitguard_hooks_path(text));
	free(gitguard_config_unsafe(text));
	{
		char *wt = NULL;

		free(gitguard_config_unsafe_worktree(text, &wt));
		free(wt);
	}
	paths = gitconfig_paths(text, "/p/.git/config", "/h");
	for (char **p = paths; *p != NULL; p++)
		if (((*p)[0] == 'i' || (*p)[0] == 'f') && (*p)[1] != '/')
			abort();
	strv_free(paths);

	/* Before and after a run. */
	before = strdup(text);
	if ((cut = strstr(before, "\n--\n")) != NULL) {
		*cut = '\0';
		after = cut + 4;
	} else {
		after = before + strlen(before);
	}
	free(gitguard_config_rerouted(before, after));
	free(gitguard_config_unsafe_change(before, after));
	free(gitguard_config_unsafe_change(NULL, after));
	free(before);

	/* A legacy remote file (the bytes whole, NULs and all). */
	free(gitguard_remote_file_unsafe((const char *)data, size, false));
	free(gitguard_remote_file_unsafe((const char *)data, size, true));

	/* The environment's configuration: one NAME=VALUE a line. */
	s = strdup(text);
	for (char *save = NULL, *l = strtok_r(s, "\n", &save); l != NULL;
	     l = strtok_r(NULL, "\n", &save))
		strv_push(&env, l);
	if (gitconfig_env(env, "/h", &vars, &n, &cause) == 0) {
		if (cause != NULL)
			abort();
		for (size_t i = 0; i < n; i++)
			if (vars[i].section == NULL || vars[i].key == NULL ||
			    vars[i].source == NULL)
				abort();
		gitconfig_vars_free(vars, n);
	} else if (cause == NULL) {
		abort();
	}
	free(cause);
	strv_free(env);
	free(s);

	/* The start's scans, and each line as a direnv load. */
	{
		struct gitguard_fs fs = { fs_kind, fs_list, fs_read, text,
					  NULL };

		check_scan(gitguard_scan("/p", &fs, NULL, "/h", NULL, 0));
		check_scan(gitguard_later_run("/p", &fs));
	}
	s = strdup(text);
	for (char *save = NULL, *l = strtok_r(s, "\n", &save); l != NULL;
	     l = strtok_r(NULL, "\n", &save)) {
		char *arg = NULL;

		if (gitguard_envrc_load(l, &arg)) {
			if (arg == NULL)
				abort();
		} else if (arg != NULL) {
			abort();
		}
		free(arg);
	}
	free(s);
	free(text);
	return 0;
}
