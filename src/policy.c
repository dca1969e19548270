/*
 * Policy resolution: sources in the precedence order of DESIGN.md §4,
 * merged into one struct policy that remembers where every rule came from.
 *
 * Sources and ranks, least to most specific; every source applied gets the
 * next rank, so two -p profiles are ordered too:
 *   rank 0   the built-in base: the §7 environment keep list, network
 *            filtered, nothing else;
 *   then     each -p profile (none given: "default"), preceded by its
 *            includes, depth-first and in order;
 *   then     each profile on the profile path whose [match] holds, least
 *            specific first (profilematch_compare()), preceded by its includes;
 *   then     ${PROJECT}/.llwrap.ini, which may only tighten;
 *   last     the command-line flags.
 * A file (or built-in) already applied is not applied again, so a profile
 * included twice, or matched after being given with -p, counts once at the
 * place it was first applied.
 *
 * Each source's entries are merged by policy-merge.c, by the key table's merge
 * rules.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "policy-merge.h"
#include "profilematch.h"
#include "path.h"
#include "policy.h"
#include "profile.h"
#include "strv.h"
#include "xalloc.h"

/* How much network a mode allows: none < filtered < host. */
/* The environment the built-in base keeps (DESIGN.md §7). */
static const char *const base_env_keep[] = {
	"PATH", "HOME",	     "USER",	   "LOGNAME",  "SHELL",
	"TERM", "COLORTERM", "LANG",	   "LANGUAGE", "LC_*",
	"TZ",	"TMPDIR",    "XDG_*_HOME", "PWD",
};

struct policy *
policy_new(void)
{
	struct policy *p = xcalloc(1, sizeof(*p));

	p->net = LLW_NET_FILTERED;
	/* DESIGN.md §6: blocked attempts are logged unless turned off. */
	p->log_blocked = true;
	p->log_stderr = true;
	return p;
}

void
policy_free(struct policy *p)
{
	if (p == NULL)
		return;
	free(p->name);
	free(p->project);
	free(p->own_data);
	free(p->workdir);
	free(p->project_why);
	free(p->run_profile);
	for (size_t i = 0; i < p->n_paths; i++) {
		free(p->paths[i].path);
		free(p->paths[i].origin);
	}
	free(p->paths);
	free(p->net_origin.origin);
	free(p->unix_sockets_origin.origin);
	policy_merge_values_free(p);
	free(p->log_prefix);
	free(p->ptrace_origin.origin);
	free(p->hide_processes_origin.origin);
	free(p->supervise_origin.origin);
	free(p->proxy_origin.origin);
	free(p->private_tmp_origin.origin);
	free(p->protect_git_origin.origin);
	free(p->protect_later_run_origin.origin);
	free(p->tmpfs_size_origin.origin);
	free(p->best_effort_origin.origin);
	free(p->limit_cgroup_origin.origin);
	strv_free(p->config_files);
	strv_free(p->descriptions);
	free(p);
}

DEFINE_CLEANUP_FUNC(struct policy, policy_free)
DEFINE_CLEANUP_FUNC(struct profile, profile_free)
DEFINE_CLEANUP_FUNC(struct vars, vars_free)

/* Push "dir/llwrap/profiles" when dir is absolute and not there yet. */
static void
path_push(char ***v, const char *dir, const char *suffix)
{
	_cleanup_free_ char *s = NULL;

	/* Relative entries would depend on the working directory: skip. */
	if (dir == NULL || dir[0] != '/')
		return;
	s = xasprintf("%s%s", dir, suffix);
	if (!strv_contains(*v, s))
		strv_push(v, s);
}

char **
policy_profile_path(char *const *envp, const char *sysconfdir,
		    const char *datadir)
{
	char **v = xcalloc(1, sizeof(char *));
	const char *s = strv_env_get(envp, "LLWRAP_PROFILE_PATH");
	const char *xdg = strv_env_get(envp, "XDG_CONFIG_HOME");

	if (s != NULL) {
		_cleanup_free_ char *copy = xstrdup(s);
		char *save = NULL;

		/* strtok_r skips empty entries. */
		for (char *t = strtok_r(copy, ":", &save); t != NULL;
		     t = strtok_r(NULL, ":", &save))
			path_push(&v, t, "");
	}
	if (xdg != NULL && xdg[0] == '/') {
		path_push(&v, xdg, "/llwrap/profiles");
	} else {
		const char *home = strv_env_get(envp, "HOME");

		if (home != NULL && home[0] == '/')
			path_push(&v, strcmp(home, "/") == 0 ? "" : home,
				  "/.config/llwrap/profiles");
	}
	path_push(&v, sysconfdir, "/llwrap/profiles");
	path_push(&v, datadir, "/llwrap/profiles");
	return v;
}

static void
config_file_add(struct resolver *r, const char *file)
{
	if (!strv_contains(r->p->config_files, file))
		strv_push(&r->p->config_files, file);
}

/*
 * Load the profile an -p argument or an include names.
 *   - With a "/" it is a FILE.  A relative -p FILE is taken from the
 *     working directory; a relative include from the directory of the
 *     including file (built-ins and the command line cannot include one).
 *   - Otherwise a NAME: the first NAME.ini on the profile path, else the
 *     built-in profile of that name.
 * from is the including profile (NULL for -p), line its include line.
 */
static int
load(struct resolver *r, const char *arg, const struct profile *from,
     unsigned line, struct profile **out, char **cause)
{
	_cleanup_free_ char *where = NULL;
	_cleanup_free_ char *file = NULL;
	const char *text;
	int ret;

	if (from != NULL)
		where = xasprintf("%s:%u: ", from->file, line);
	else
		where = xstrdup("");

	if (strchr(arg, '/') != NULL) {
		if (arg[0] == '/') {
			file = path_normalise(arg);
		} else if (from == NULL) {
			_cleanup_free_ char *cwd = getcwd(NULL, 0);

			if (cwd == NULL) {
				ret = -errno;
				*cause = xasprintf("cannot resolve profile "
						   "'%s': no working "
						   "directory: %s.",
						   arg, strerror(-ret));
				return ret;
			}
			_cleanup_free_ char *abs = xasprintf("%s/%s", cwd, arg);
			file = path_normalise(abs);
		} else if (from->file[0] == '/') {
			_cleanup_free_ char *abs =
				xasprintf("%s/../%s", from->file, arg);
			file = path_normalise(abs);
		} else {
			*cause = xasprintf("%sinclude '%s' is relative, and "
					   "%s is not a file to resolve it "
					   "against; use an absolute path or "
					   "a profile name.",
					   where, arg, from->file);
			return -EINVAL;
		}
		ret = profile_parse_file(file, PROFILE_KIND_NORMAL, r->vars,
					 out, cause);
		if (ret == 0 || ret == -EINVAL) {
			config_file_add(r, file);
		} else if (from != NULL) {
			/* Say which include wanted the file. */
			char *c = xasprintf("%s%s", where, *cause);

			free(*cause);
			*cause = c;
		}
		return ret;
	}

	for (char *const *dir = r->req->profile_path; dir != NULL && *dir;
	     dir++) {
		_cleanup_free_ char *cand = xasprintf("%s/%s.ini", *dir, arg);
		_cleanup_free_ char *err = NULL;

		file = path_normalise(cand);
		ret = profile_parse_file(file, PROFILE_KIND_NORMAL, r->vars,
					 out, &err);
		if (ret == -ENOENT || ret == -ENOTDIR) {
			free(steal_pointer(&file));
			continue;
		}
		config_file_add(r, file);
		if (ret < 0)
			*cause = steal_pointer(&err);
		return ret;
	}
	text = profile_builtin(arg);
	if (text != NULL) {
		_cleanup_free_ char *name = xasprintf("built-in %s", arg);

		return profile_parse_string(name, text, PROFILE_KIND_NORMAL,
					    r->vars, out, cause);
	}
	{
		_cleanup_free_ char *searched =
			strv_join(r->req->profile_path, ":");
		_cleanup_strv_ char **names =
			policy_profile_names(r->req->profile_path);
		_cleanup_free_ char *found =
			names ? strv_join(names, " ") : NULL;

		*cause = xasprintf("%sunknown profile '%s': no %s.ini on the "
				   "profile path (%s) and no built-in profile "
				   "of that name; the profiles there are: "
				   "%s (built in: empty default).",
				   where, arg, arg,
				   *searched ? searched : "empty",
				   found ? found : "none");
	}
	return -ENOENT;
}

const struct llw_path_rule *
policy_rule_at(const struct policy *p, const char *path)
{
	const struct llw_path_rule *best = NULL;

	for (size_t i = 0; i < p->n_paths; i++) {
		const struct llw_path_rule *pr = &p->paths[i];

		if (!path_under(path, pr->path))
			continue;
		if (best == NULL || strlen(pr->path) > strlen(best->path) ||
		    (strlen(pr->path) == strlen(best->path) &&
		     pr->rank >= best->rank))
			best = pr;
	}
	return best;
}

enum llw_access
policy_access_at(const struct policy *p, const char *path, const char **origin)
{
	const struct llw_path_rule *best = policy_rule_at(p, path);

	if (origin != NULL)
		*origin = best != NULL ? best->origin : NULL;
	return best != NULL ? best->access : LLW_ACCESS_DENY;
}

/*
 * Apply prof (owned) after its includes, depth-first.  A source already
 * applied is skipped; one on the current include chain is a cycle.
 */
static int
apply_source(struct resolver *r, struct profile *prof_in, char **cause)
{
	attribute_cleanup(profile_freep) struct profile *prof = prof_in;
	int ret;

	if (strv_contains(r->applied, prof->file))
		return 0;
	strv_push(&r->stack, prof->file);
	for (size_t i = 0; i < prof->n_entries; i++) {
		const struct profile_entry *e = &prof->entries[i];

		if (e->key->id != KEY_INCLUDE)
			continue;
		for (size_t k = 0; k < e->n_values; k++) {
			struct profile *child = NULL;

			ret = load(r, e->values[k].u.text, prof, e->line,
				   &child, cause);
			if (ret < 0)
				return ret;
			if (strv_contains(r->stack, child->file)) {
				_cleanup_free_ char *chain =
					strv_join(r->stack, " -> ");

				*cause = xasprintf(
					"%s:%u: include cycle: %s -> %s; a "
					"profile cannot include itself, "
					"directly or not.",
					prof->file, e->line, chain,
					child->file);
				profile_free(child);
				return -ELOOP;
			}
			ret = apply_source(r, child, cause);
			if (ret < 0)
				return ret;
		}
	}
	free(r->stack[strv_length(r->stack) - 1]);
	r->stack[strv_length(r->stack) - 1] = NULL;

	ret = policy_merge_profile(r, prof, ++r->rank, cause);
	if (ret < 0)
		return ret;
	strv_push(&r->applied, prof->file);
	return 0;
}

/* A matched profile and how well it matched, for sorting. */
struct candidate {
	struct profile *prof;
	struct profilematch_score score;
};

static int
candidate_cmp(const void *a, const void *b)
{
	const struct candidate *ca = a, *cb = b;

	return profilematch_compare(&ca->score, ca->prof->file, &cb->score,
				    cb->prof->file);
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The profiles on the profile path whose [match] holds.  Only the first
 * file of a given name on the path is considered, as for NAME lookup.
 * Every file in those directories is read and checked line by line, and
 * its [match] parsed: a broken one is an error (it could be meant to
 * match).  The rest of a file is parsed, and its errors reported, only
 * when its [match] holds: a profile that does not apply costs no more
 * than a scan.  Every directory and file read is added to config_files
 * (a new file there could change the next run).
 */
char **
policy_profile_names(char *const *dirs)
{
	char **names = NULL;

	for (char *const *dir = dirs; dir != NULL && *dir != NULL; dir++) {
		DIR *d = opendir(*dir);
		struct dirent *de;

		if (d == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			size_t len = strlen(de->d_name);
			_cleanup_free_ char *name = NULL;

			if (de->d_name[0] == '.' || len < 5 ||
			    strcmp(de->d_name + len - 4, ".ini") != 0)
				continue;
			name = xstrndup(de->d_name, len - 4);
			if (!strv_contains(names, name))
				strv_push(&names, name);
		}
		closedir(d);
	}
	if (names != NULL)
		qsort(names, strv_length(names), sizeof(char *), name_cmp);
	return names;
}

static int
apply_matched(struct resolver *r, char **cause)
{
	_cleanup_strv_ char **seen = NULL;
	struct candidate *cands = NULL;
	size_t n = 0;
	int ret = 0;

	for (char *const *dir = r->req->profile_path; dir != NULL && *dir;
	     dir++) {
		_cleanup_strv_ char **names = NULL;
		_cleanup_free_ char *ndir = path_normalise(*dir);
		DIR *d = opendir(ndir);
		struct dirent *de;

		if (d == NULL)
			continue;
		config_file_add(r, ndir);
		while ((de = readdir(d)) != NULL) {
			size_t len = strlen(de->d_name);

			if (de->d_name[0] == '.' || len < 5 ||
			    strcmp(de->d_name + len - 4, ".ini") != 0)
				continue;
			strv_push(&names, de->d_name);
		}
		closedir(d);
		if (names == NULL)
			continue;
		qsort(names, strv_length(names), sizeof(char *), name_cmp);
		for (char **nm = names; *nm != NULL && ret == 0; nm++) {
			_cleanup_free_ char *file = NULL, *text = NULL;
			struct profile *prof = NULL;
			struct profilematch_score sc;

			if (strv_contains(seen, *nm))
				continue;
			strv_push(&seen, *nm);
			file = xasprintf("%s/%s", strcmp(ndir, "/") ? ndir : "",
					 *nm);
			if (strv_contains(r->applied, file))
				continue;
			ret = profile_read_file(file, &text, cause);
			if (ret == -ENOENT || ret == -EISDIR) {
				/* Gone since readdir, or not a file. */
				free(steal_pointer(cause));
				ret = 0;
				continue;
			}
			if (ret < 0)
				break;
			/* One read: the scan and the full parse see the same
			 * text. */
			ret = profile_parse_string(file, text,
						   PROFILE_KIND_MATCH, r->vars,
						   &prof, cause);
			if (ret < 0)
				break;
			config_file_add(r, file);
			if (!profilematch_holds(prof, r->req->command,
						r->req->project, &sc)) {
				profile_free(prof);
				continue;
			}
			profile_free(prof);
			prof = NULL;
			ret = profile_parse_string(file, text,
						   PROFILE_KIND_NORMAL, r->vars,
						   &prof, cause);
			if (ret < 0)
				break;
			cands = xreallocarray(cands, n + 1, sizeof(*cands));
			cands[n].prof = prof;
			cands[n].score = sc;
			n++;
		}
		if (ret < 0)
			break;
	}
	/* [match] profile holds against the -p profiles and those matched
	 * without the condition; the run is under the last of those
	 * matched on its command (opencode.ini), else the last -p. */
	for (size_t i = 0; i < n && ret == 0; i++) {
		const struct profile *prof = cands[i].prof;

		if (prof->match_profile != NULL)
			continue;
		strv_push_take(&r->names,
			       profilematch_profile_name(prof->file));
		if (cands[i].score.command) {
			free(r->p->run_profile);
			r->p->run_profile =
				profilematch_profile_name(prof->file);
		}
	}
	for (size_t i = 0; i < n && ret == 0;) {
		if (profilematch_profile_holds(cands[i].prof, r->names)) {
			i++;
			continue;
		}
		profile_free(cands[i].prof);
		cands[i] = cands[--n];
	}
	/* qsort(NULL, 0, ...) is undefined (glibc declares the array
	 * nonnull); found by tests/fuzz with an empty profile path. */
	if (ret == 0 && n > 0)
		qsort(cands, n, sizeof(*cands), candidate_cmp);
	for (size_t i = 0; i < n; i++) {
		struct profile *prof = steal_pointer(&cands[i].prof);

		if (ret == 0)
			ret = apply_source(r, prof, cause);
		else
			profile_free(prof);
	}
	free(cands);
	return ret;
}

/*
 * Secrets only root can read (DESIGN.md §11), denied in every profile when
 * the command runs as root.  A missing one is only noted by --explain.
 */
static const char *const root_secrets[] = {
	"/etc/shadow",
	"/etc/shadow-",
	"/etc/gshadow",
	"/etc/gshadow-",
	"/etc/sudoers",
	"/etc/sudoers.d",
	"/etc/security/opasswd",
	"/etc/ssh/ssh_host_rsa_key",
	"/etc/ssh/ssh_host_dsa_key",
	"/etc/ssh/ssh_host_ecdsa_key",
	"/etc/ssh/ssh_host_ed25519_key",
	"/etc/ssl/private",
	"/etc/krb5.keytab",
	"/etc/NetworkManager/system-connections",
	"/etc/wireguard",
};

/* The built-in base, rank 0 (DESIGN.md §7, network filtered). */
static void
apply_base(struct policy *p, bool as_root)
{
	for (size_t i = 0; i < ARRAY_SIZE(base_env_keep); i++)
		policy_merge_items_add(&p->env_keep, base_env_keep[i],
				       "built-in");
	p->net = LLW_NET_FILTERED;
	if (!as_root)
		return;
	p->paths = xgrow(p->paths, p->n_paths + ARRAY_SIZE(root_secrets),
			 &p->cap_paths, sizeof(*p->paths));
	for (size_t i = 0; i < ARRAY_SIZE(root_secrets); i++)
		p->paths[p->n_paths++] = (struct llw_path_rule){
			.path = xstrdup(root_secrets[i]),
			.access = LLW_ACCESS_DENY,
			.origin = xstrdup("built-in, as root"),
		};
}

int
policy_resolve(const struct policy_request *req, struct policy **out,
	       char **cause)
{
	static char *const default_profiles[] = { "default", NULL };
	attribute_cleanup(policy_freep) struct policy *p = policy_new();
	attribute_cleanup(vars_freep) struct vars *vars =
		vars_new(req->envp, req->project, req->name);
	struct resolver r = { .req = req, .vars = vars, .p = p };
	char *const *profiles = req->profiles;
	int ret = 0;

	p->name = req->name != NULL ? xstrdup(req->name) : NULL;
	p->project = req->project != NULL ? xstrdup(req->project) : NULL;
	p->workdir = req->workdir != NULL ? xstrdup(req->workdir) : NULL;
	p->project_why =
		req->project_why != NULL ? xstrdup(req->project_why) : NULL;
	if (vars_get(vars, "XDG_DATA_HOME") != NULL)
		p->own_data =
			xasprintf("%s/llwrap", vars_get(vars, "XDG_DATA_HOME"));
	p->config_files = xcalloc(1, sizeof(char *));
	p->descriptions = xcalloc(1, sizeof(char *));
	apply_base(p, req->as_root);

	if (profiles == NULL || profiles[0] == NULL)
		profiles = default_profiles;
	for (char *const *a = profiles; *a != NULL; a++)
		strv_push_take(&r.names, profilematch_profile_name(*a));
	p->run_profile = xstrdup(r.names[strv_length(r.names) - 1]);
	for (char *const *a = profiles; *a != NULL && ret == 0; a++) {
		struct profile *prof = NULL;

		ret = load(&r, *a, NULL, 0, &prof, cause);
		if (ret == 0)
			ret = apply_source(&r, prof, cause);
	}
	if (ret == 0)
		ret = apply_matched(&r, cause);
	if (ret == 0 && req->read_project_file && req->project != NULL) {
		_cleanup_free_ char *raw =
			xasprintf("%s/.llwrap.ini", req->project);
		_cleanup_free_ char *file = path_normalise(raw);
		struct profile *prof = NULL;

		ret = profile_parse_file(file, PROFILE_KIND_PROJECT, vars,
					 &prof, cause);
		if (ret == -ENOENT) {
			free(steal_pointer(cause));
			ret = 0;
		} else {
			if (ret == 0 || ret == -EINVAL)
				config_file_add(&r, file);
			if (ret == 0)
				ret = apply_source(&r, prof, cause);
		}
	}
	if (ret == 0 && req->cli != NULL)
		ret = policy_merge_profile(&r, req->cli, ++r.rank, cause);
	if (ret == 0)
		policy_merge_git_config(&r);
	policy_merge_git_clear(&r);

	strv_free(r.applied);
	strv_free(r.stack);
	strv_free(r.names);
	if (ret < 0)
		return ret;
	*out = steal_pointer(&p);
	return 0;
}

int
policy_add(struct policy *p, const char *section, const char *key,
	   const char *value, const char *origin, char **cause)
{
	static char *const env[] = { NULL };
	static const struct policy_request req = { .envp = env };
	attribute_cleanup(vars_freep) struct vars *vars =
		vars_new(env, NULL, NULL);
	attribute_cleanup(profile_freep) struct profile *prof =
		profile_new(origin, PROFILE_KIND_CLI);
	const struct key *k = keys_find(section, key);
	struct resolver r = { .req = &req, .vars = vars, .p = p };
	int ret;

	if (k == NULL || k->merge == KEY_MERGE_SOURCE ||
	    k->id == KEY_GIT_CONFIG) {
		*cause = xasprintf("[%s] %s cannot be added to a policy.",
				   section, key);
		return -EINVAL;
	}
	if ((ret = profile_add(prof, vars, section, key, value, 0, cause)) < 0)
		return ret;
	return policy_merge_profile(&r, prof, LLW_RANK_LLWRAP - 1, cause);
}

char *
policy_broad_project(const char *project, const char *home)
{
	if (strcmp(project, "/") == 0)
		return xstrdup("the project directory is /, so rules on "
			       "${PROJECT} would cover the whole file system");
	if (home == NULL || *home == '\0' || !path_under(home, project))
		return NULL;
	if (strcmp(home, project) == 0)
		return xasprintf("the project directory is the home directory "
				 "%s, so rules on ${PROJECT} would cover "
				 "every file of the user (keys, other "
				 "projects, shell start-up files)",
				 home);
	return xasprintf("the project directory %s contains the home "
			 "directory %s, so rules on ${PROJECT} would cover "
			 "every file of the user",
			 project, home);
}

static bool
items_match(const struct llw_items *it, const char *name)
{
	for (size_t i = 0; i < it->n; i++)
		if (policy_merge_env_glob_match(it->v[i].value, name))
			return true;
	return false;
}

char **
policy_environ(const struct policy *p, char *const *envp)
{
	char **env = xcalloc(1, sizeof(char *));
	_cleanup_strv_ char **names = xcalloc(1, sizeof(char *));

	for (; envp != NULL && *envp != NULL; envp++) {
		_cleanup_free_ char *name = NULL;

		if (strchr(*envp, '=') == NULL)
			continue;
		name = xstrndup(*envp, strcspn(*envp, "="));
		/* The first of duplicated names is the one getenv() sees. */
		if (strv_contains(names, name))
			continue;
		strv_push(&names, name);
		if (items_match(&p->env_keep, name) &&
		    !items_match(&p->env_unset, name))
			strv_push(&env, *envp);
	}
	for (size_t i = 0; i < p->env_set.n; i++) {
		const char *s = p->env_set.v[i].value;
		size_t len = strcspn(s, "=");
		bool replaced = false;

		for (char **e = env; *e != NULL; e++) {
			if (strncmp(*e, s, len) == 0 && (*e)[len] == '=') {
				free(*e);
				*e = xstrdup(s);
				replaced = true;
				break;
			}
		}
		if (!replaced)
			strv_push(&env, s);
	}
	return env;
}
