/*
 * The resolved policy: what the command may do, with the source (file:line)
 * of every rule.  It is produced by policy_resolve() from an ordered list of
 * sources (built-in default, profiles, matched profiles, the project's
 * .llwrap.ini, command-line flags) and read by the planner alone
 * (DESIGN.md §8: policy*.c, planner*.c, netpolicy.c's network compile,
 * and cmd.c, which makes the request; tests/include-check.sh holds the
 * list), which turns it into the plan the others read (planner.h,
 * planconf.h).  The values it shares with the plan are access.h's.
 *
 * Everything here is plain data: no file descriptors, no kernel state.
 */
#ifndef LLW_POLICY_H
#define LLW_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "access.h"
#include "profile.h"
#include "value.h"

struct hostrule;

struct policy {
	char *name;    /* instance name, ${NAME} (default: command basename) */
	char *project; /* absolute project directory, ${PROJECT} */
	/* Where the command starts, when not in the project: the working
	 * directory beneath a project found as its git work tree's top
	 * level (project.h); NULL: the project. */
	char *workdir;
	/* How the project was chosen, for --explain; NULL: -C or the
	 * working directory, as given. */
	char *project_why;
	/* llwrap's own data directory, ${XDG_DATA_HOME}/llwrap, where the
	 * profiles keep a directory for each project (${PROJECT_ID}); NULL
	 * without a home. */
	char *own_data;
	/* The profile the run is under, as --learn names it in a
	 * fragment's [match] profile (profilematch.h): the last profile matched
	 * on the command, else the last -p, else "default". */
	char *run_profile;

	/* [filesystem]: every rule from every source, in source order.  At
	 * one path the highest rank wins (pathtree_compile resolves that). */
	struct llw_path_rule *paths;
	size_t n_paths, cap_paths;
	/* [filesystem] mkdir: directories created (mode 0700, parents
	 * included) before the sandbox starts when they are missing, so a
	 * tool's own state directories can be granted on its first run. */
	struct llw_items mkdirs;
	/* [filesystem] touch: empty files (mode 0600) created after mkdir
	 * when missing, for a tool that insists on one existing in a
	 * directory the policy makes read-only. */
	struct llw_items touches;
	/* [filesystem] copy: the user's files the sandbox gets a copy of,
	 * made again before each run where the user's is newer. */
	struct llw_copy *copies;
	size_t n_copies;

	/* [network] */
	enum llw_net_mode net;
	struct llw_scalar_origin net_origin;
	struct llw_ports connect_tcp, bind_tcp, connect_udp, bind_udp;
	bool unix_sockets; /* unix-sockets = allow: AF_UNIX socket() allowed */
	struct llw_scalar_origin unix_sockets_origin;
	/* Supervisor rules (DESIGN.md §6), enforced by supervise.c, typed
	 * when the profiles were parsed (value.h), in source order, each
	 * value once, each with its origin. */
	struct llw_items unix_paths;
	struct netpolicy_cidr *cidrs; /* allow-cidr */
	size_t n_cidrs;
	struct llw_addr_rule *listen_addrs, *dns_addrs; /* listen, dns */
	size_t n_listen_addrs, n_dns_addrs;
	/* allow-host: NAME or *.NAME with optional :PORTS (proxy.h). */
	struct hostrule *hosts;
	size_t n_hosts;
	/* supervise = yes: the supervisor runs even without such rules,
	 * for what only it decides (local destinations, the sandbox's own
	 * listeners, loopback-only binds, DNS to the resolvers). */
	bool supervise;
	struct llw_scalar_origin supervise_origin;
	/* proxy = yes: llwrap's HTTP(S) proxy (proxy.h) is the way to the
	 * network by name; the supervisor refuses DNS and direct connects
	 * outside allow-cidr (DESIGN.md §6.1). */
	bool proxy;
	struct llw_scalar_origin proxy_origin;
	bool log_blocked;
	/* log-stderr: note each kind of blocked attempt on the blocked
	 * process's stderr when it is a pipe, socket or file. */
	bool log_stderr;
	char *log_prefix;

	/* [environment] */
	struct llw_items env_keep;  /* names or globs */
	struct llw_items env_set;   /* NAME=VALUE */
	struct llw_items env_unset; /* names or globs, applied after keep */

	/* [process] */
	bool ptrace_deny;
	struct llw_scalar_origin ptrace_origin;
	/* hide-processes = yes: a pid namespace with a fresh /proc (L3). */
	bool hide_processes;
	struct llw_scalar_origin hide_processes_origin;

	/* [filesystem] private-tmp = yes: an empty tmpfs on /tmp (L3); the
	 * rules on /tmp then apply to it. */
	bool private_tmp;
	struct llw_scalar_origin private_tmp_origin;

	/* [filesystem] protect-git = yes: the project repository's files
	 * that can run commands read-only, its directories pinned (L3;
	 * gitguard.h, DESIGN.md §11). */
	bool protect_git;
	struct llw_scalar_origin protect_git_origin;
	/* [filesystem] protect-later-run = yes: direnv's and the editors'
	 * and agents' files in the project read-only (gitguard.h). */
	bool protect_later_run;
	struct llw_scalar_origin protect_later_run_origin;

	/* [limits] tmpfs-size: the size of each private tmpfs (/tmp,
	 * /var/tmp, /dev/shm), in bytes or a percentage of memory; both 0
	 * for the default (LLW_TMPFS_PERCENT). */
	uint64_t tmpfs_bytes;
	unsigned tmpfs_percent;
	struct llw_scalar_origin tmpfs_size_origin;

	/* [limits] as resource limits (setrlimit, soft and hard, never
	 * raised): 0 is no limit.  memory is RLIMIT_AS, file-size
	 * RLIMIT_FSIZE (bytes), processes RLIMIT_NPROC, files
	 * RLIMIT_NOFILE, cpu RLIMIT_CPU (seconds). */
	uint64_t limit_memory, limit_file_size, limit_processes, limit_files,
		limit_cpu;
	/* [limits] timeout: wall-clock seconds, 0 for none (a monitor
	 * stops the command, resources.h).  memory-max and pids-max: cgroup v2
	 * memory.max (bytes) and pids.max of the command's own cgroup, 0
	 * for none (a delegated cgroup is needed, resources.h). */
	uint64_t limit_timeout, limit_memory_max, limit_pids_max;
	struct llw_scalar_origin limit_cgroup_origin;

	/* [profile] best-effort = yes, or --best-effort */
	bool best_effort;
	struct llw_scalar_origin best_effort_origin;

	/* Every configuration file read, absolute (write-protected, §4.4). */
	char **config_files;

	/* Descriptions of the profiles applied, in order, for --explain. */
	char **descriptions;
};

/*
 * The access p's configured rules give path: the rule with the longest
 * component-wise prefix, at one path the highest rank (then the latest).
 * *origin, when not NULL, is set to that rule's origin or NULL.  Lexical:
 * pathtree_compile() is what resolves symlinks.
 */
enum llw_access policy_access_at(const struct policy *p, const char *path,
				 const char **origin);

/* The configured rule policy_access_at() decides path by, or NULL.
 * Both are lexical: a question about a kernel path goes to the compiled
 * plan (pathtree.h: plan_decide, plan_source_at, pathtree_sources). */
const struct llw_path_rule *policy_rule_at(const struct policy *p,
					   const char *path);

struct policy *policy_new(void);
void policy_free(struct policy *p);

/* What policy_resolve() needs to know; it reads only the files it names. */
struct policy_request {
	char *const *envp;	   /* environment, for ${VAR} and §7 */
	const char *project;	   /* absolute project directory */
	const char *command;	   /* the command as given (basename matched) */
	const char *name;	   /* instance name */
	char *const *profiles;	   /* -p arguments in order; none: "default" */
	char *const *profile_path; /* directories searched for NAME.ini and
				    * for profiles with a [match] section */
	const struct profile *cli; /* command-line flags, most specific */
	bool read_project_file;	   /* apply ${PROJECT}/.llwrap.ini if present */
	bool as_root; /* the command runs as root: deny root's secrets */
	/* Resolve symlinks in the longest existing prefix of an absolute
	 * path (pathtree_fs's resolve): 0 and a new path, or -errno.  When
	 * set, .llwrap.ini's "only tighten" check compares resolved paths,
	 * as the rules are enforced; NULL compares them as written. */
	int (*resolve)(void *ctx, const char *path, char **out);
	void *resolve_ctx;
	/* Where the command starts when not in the project (NULL: the
	 * project), and how the project was chosen (NULL: as given). */
	const char *workdir;
	const char *project_why;
};

/*
 * The profile path of DESIGN.md §4 for this environment:
 * $LLWRAP_PROFILE_PATH entries, $XDG_CONFIG_HOME/llwrap/profiles,
 * sysconfdir/llwrap/profiles, datadir/llwrap/profiles.
 */
char **policy_profile_path(char *const *envp, const char *sysconfdir,
			   const char *datadir);

/*
 * The profile names (NAME for NAME.ini) in the directories dirs, sorted,
 * each once; a new vector (NULL when there is none).  Unreadable
 * directories are skipped.
 */
char **policy_profile_names(char *const *dirs);

/*
 * Resolve the sources of req into a policy, in the precedence order of
 * DESIGN.md §4.  Returns 0 and a new policy, or -errno with *cause naming
 * file:line for every user error (bad profile, include cycle, loosening
 * key in .llwrap.ini, unknown profile name).
 */
int policy_resolve(const struct policy_request *req, struct policy **out,
		   char **cause);

/*
 * Apply section's key = value to p as the most specific source so far,
 * parsed as a command-line value is (keys.h, value.h) and merged by the
 * key's merge rule, with origin as its origin: a policy built without
 * files (the tests).  Keys that choose sources (include, [match]) and
 * git-config are refused.  Returns 0, or -EINVAL with *cause.
 */
int policy_add(struct policy *p, const char *section, const char *key,
	       const char *value, const char *origin, char **cause);

/*
 * DESIGN.md §11, home as project: why project (resolved) is too broad to
 * be the project, as a sentence, or NULL.  It is when it is "/", the
 * home directory home (resolved; NULL or "" when unknown) or one of its
 * ancestors: every rule on ${PROJECT} would then cover the whole home.
 */
char *policy_broad_project(const char *project, const char *home);

/*
 * The command's environment (DESIGN.md §7): the names of envp matching
 * p->env_keep (names or fnmatch globs), minus p->env_unset, plus
 * p->env_set.  Pure; returns a new vector.
 */
char **policy_environ(const struct policy *p, char *const *envp);

#endif /* LLW_POLICY_H */
