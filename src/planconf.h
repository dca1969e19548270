/*
 * The configuration a plan was made from, as --explain prints it and
 * `llwrap why` and the supervisor's description name it: each setting
 * with its origin, and what the planner decided of the network from
 * them.  The planner fills it (planner_conf, once the supervisor is
 * decided) into the plan, struct sandbox's conf; the
 * command layer, explain, why and the log's description read it there,
 * never struct policy (DESIGN.md §8).  Borrowed from the policy, which
 * outlives the plan.
 */
#ifndef LLW_PLANCONF_H
#define LLW_PLANCONF_H

#include <stdbool.h>
#include <stddef.h>

#include "access.h"
#include "value.h"

struct hostrule;

struct plan_conf {
	const char *name;	 /* ${NAME} */
	const char *project;	 /* ${PROJECT} */
	const char *workdir;	 /* where the command starts, or NULL */
	const char *project_why; /* how the project was chosen, or NULL */
	const char *run_profile; /* as --learn names it (policy.h) */
	char *const *descriptions;
	char *const *config_files; /* every configuration file read */

	/* [filesystem], as configured (the compiled rules are the plan's) */
	const struct llw_path_rule *paths;
	size_t n_paths;
	struct llw_items mkdirs, touches;
	const struct llw_copy *copies;
	size_t n_copies;
	bool private_tmp;
	struct llw_scalar_origin private_tmp_origin;
	bool protect_git;
	struct llw_scalar_origin protect_git_origin;
	bool protect_later_run;

	/* [network] */
	enum llw_net_mode net;
	struct llw_scalar_origin net_origin;
	struct llw_ports connect_tcp, bind_tcp, connect_udp, bind_udp;
	bool unix_sockets;
	struct llw_scalar_origin unix_sockets_origin;
	struct llw_items unix_paths;
	const struct netpolicy_cidr *cidrs;
	size_t n_cidrs;
	const struct llw_addr_rule *listen_addrs, *dns_addrs;
	size_t n_listen_addrs, n_dns_addrs;
	const struct hostrule *hosts;
	size_t n_hosts;
	struct llw_scalar_origin proxy_origin;
	bool log_blocked;
	const char *log_prefix; /* as configured, or NULL */
	/* Decided: llwrap's proxy or resolver serves allow-host's names
	 * (netpolicy_proxy_enabled); the policy asks for the supervisor
	 * (netpolicy_needs_supervisor); no name resolves in this run, the
	 * supervisor decided (netpolicy_names_closed). */
	bool proxy_enabled;
	bool needs_supervisor;
	bool names_closed;

	/* [environment] */
	struct llw_items env_keep, env_set, env_unset;

	/* [process], [profile] */
	bool ptrace_deny;
	struct llw_scalar_origin ptrace_origin;
	bool hide_processes;
	struct llw_scalar_origin hide_processes_origin;
	bool best_effort;
	struct llw_scalar_origin best_effort_origin;
};

#endif /* LLW_PLANCONF_H */
