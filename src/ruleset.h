/*
 * Landlock (layer L1): ABI and errata probe, best-effort masking per ABI,
 * and applying a compiled plan to the calling thread.
 *
 * Planning is pure (ruleset_plan, ruleset_restrict_flags) so the unit
 * tests can run it for every ABI from 1 to 10; only ruleset_probe,
 * ruleset_threads and ruleset_apply (create, restrict) make syscalls.
 */
#ifndef LLW_RULESET_H
#define LLW_RULESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layers.h"
#include "pathtree.h"
#include "value.h"

/* The highest ABI this build knows (lib/compat/landlock.h). */
#define LLW_LANDLOCK_ABI_MAX 10

struct ruleset_kernel {
	int abi; /* 0: Landlock unavailable */
	int err; /* errno of the probe when abi == 0 (ENOSYS, EOPNOTSUPP) */
	uint64_t errata; /* LANDLOCK_CREATE_RULESET_ERRATA bits, 0 if unknown */
};

/* Ask the kernel.  Never fails: an unavailable Landlock is abi 0. */
void ruleset_probe(struct ruleset_kernel *k);

/* A human sentence for k (ABI, errata, or why it is missing, with a hint). */
char *ruleset_describe(const struct ruleset_kernel *k);

/* One restriction the policy asks for that this ABI cannot enforce. */
struct ruleset_loss {
	char *what;  /* "truncate(2) of files outside writable roots" */
	char *needs; /* "Landlock ABI 3 (Linux 6.2)" */
	bool fatal;  /* a real hole: fail closed unless best effort */
	/* The restriction, for layer substitution (layers.h); LAYERS_NONE
	 * for a loss no other layer takes over. */
	enum layers_restriction restriction;
};

/* The network, as L1 sees it. */
enum ruleset_net {
	RULESET_NET_HOST,     /* no network right handled */
	RULESET_NET_FILTERED, /* the port lists below */
	RULESET_NET_NONE,     /* every network right handled, none granted */
};

/*
 * What L1 enforces besides the compiled path rules, as the planner
 * decided it (planner_ruleset_inputs): the lists are borrowed.
 */
struct ruleset_inputs {
	enum ruleset_net net;
	struct llw_ports connect_tcp, bind_tcp, connect_udp, bind_udp;
	bool unix_sockets;	     /* AF_UNIX socket() allowed */
	struct llw_items unix_paths; /* pathname sockets it may reach */
};

struct ruleset_plan {
	int abi;
	uint64_t handled_fs, handled_net, scoped; /* after ABI masking */
	/* Rules after masking; rules whose rights all vanished are dropped. */
	struct plan_rule *fs_rules;
	size_t n_fs_rules, cap_fs_rules;
	struct {
		uint64_t port;
		uint64_t access; /* LLW_NET_* bits */
		char *origin;
	} * net_rules;
	size_t n_net_rules;
	struct ruleset_loss *losses;
	size_t n_losses;
};

/*
 * Build the Landlock plan for ABI abi (1..LLW_LANDLOCK_ABI_MAX, or 0 for
 * "no Landlock": then every restriction is a loss).  Pure.  An abi above
 * LLW_LANDLOCK_ABI_MAX is planned as LLW_LANDLOCK_ABI_MAX.
 *
 *  - handled_fs is every filesystem right of the ABI; fs_rules are fs's
 *    rules masked to it, plus, from ABI 9, one RESOLVE_UNIX rule per
 *    in->unix_paths entry (so handled_fs & LLW_FS_RESOLVE_UNIX tells the
 *    caller that Landlock mediates pathname unix sockets).
 *  - handled_net is every network right of the ABI when in->net is
 *    filtered or none (0 for host); net_rules, one per port in port
 *    order, only for filtered.  From ABI 10 a connect-udp list also
 *    grants the UDP bind of port 0 (the autobind of a client socket).
 *  - scoped is abstract unix sockets and signals from ABI 6.
 *  - losses: see the table in ruleset.c.
 */
struct ruleset_plan *ruleset_plan_new(const struct ruleset_inputs *in,
				      const struct plan *fs, int abi);

/* ruleset_plan_new() for a probed kernel: when k->abi is 0 the loss says
 * why (k->err) Landlock is unavailable. */
struct ruleset_plan *ruleset_plan_new_probed(const struct ruleset_inputs *in,
					     const struct plan *fs,
					     const struct ruleset_kernel *k);

/*
 * ruleset_plan_new_probed()'s losses, handled rights and ABI, without
 * its rules (n_fs_rules and n_net_rules are 0): what layer substitution
 * reads, at no cost per rule (a port range such as 1024-65535 is one
 * rule per port).
 */
struct ruleset_plan *ruleset_plan_losses(const struct ruleset_inputs *in,
					 const struct plan *fs,
					 const struct ruleset_kernel *k);

/*
 * What L3 covers: with a pid namespace (pid) host processes cannot be
 * signalled at all, so the loss of Landlock's signal scope is dropped;
 * with net = none in a network namespace of its own (net) no network
 * right is handled (ruleset.c says why) and the TCP-rules loss is
 * dropped.
 */
void ruleset_plan_ns_covers(struct ruleset_plan *rp, bool pid, bool net);

/* Another layer enforces r (layers.h): drop the losses of r. */
void ruleset_plan_cover(struct ruleset_plan *rp, enum layers_restriction r);

/* One more path rule, made at run time (the run's own /tmp: runtmp.h):
 * access (LLW_FS_* bits) masked to the handled rights. */
void ruleset_plan_grant(struct ruleset_plan *rp, const char *path,
			uint64_t access, const char *origin);

void ruleset_plan_free(struct ruleset_plan *rp);

/* True when some loss is fatal and the run is not best effort. */
bool ruleset_plan_must_fail(const struct ruleset_plan *rp, bool best_effort);

/*
 * Create the ruleset, open each rule path O_PATH|O_CLOEXEC and add it,
 * then landlock_restrict_self().  The caller has set no_new_privs.
 * A rule path that no longer exists (ENOENT) is skipped: every rule is a
 * grant, and there is nothing left to grant.  On a non-directory only
 * LLW_FS_FILE_RIGHTS are added.  Returns 0, or -errno with *cause naming
 * the failing path or call.
 */
int ruleset_apply(const struct ruleset_plan *rp, char **cause);

/* What a helper of llwrap's may reach of the network and of pathname
 * sockets (ruleset_confine_helper). */
enum ruleset_helper_net {
	/* Any address (the proxy connects where the supervisor allowed);
	 * pathname sockets too (syslog). */
	RULESET_HELPER_NET_ANY,
	/* llwrap's resolver: TCP connects to port 53 alone, no TCP bind,
	 * no pathname socket (Landlock ABI 4 and 9 where the kernel has
	 * them). */
	RULESET_HELPER_DNS,
};

/*
 * Confine the calling process, a trusted helper of llwrap's such as its
 * proxy (proxyserve.h) or resolver (dnsstub.h), before it starts threads:
 * no_new_privs, then a Landlock domain in which it may only read the
 * files and directories of paths (n of them; a missing one is skipped),
 * execute nothing, write nowhere, signal and reach abstract sockets only
 * inside the domain, and reach the network and pathname sockets as net
 * says.  Without Landlock only no_new_privs is set, and *applied is
 * false.  Returns 0, or -errno with *cause.
 */
int ruleset_confine_helper(const char *const *paths, size_t n,
			   enum ruleset_helper_net net, bool *applied,
			   char **cause);

/*
 * ruleset_apply() in its two steps, for callers that must acquire
 * everything before dropping privileges (DESIGN.md §2): ruleset_create()
 * opens every rule path and returns the ruleset in *fd (O_CLOEXEC);
 * ruleset_restrict() enforces it (no_new_privs set) and leaves fd open.
 * held, when not NULL, holds a descriptor per path rule that
 * ruleset_hold() opened earlier (or -1): one is used where the path no
 * longer opens with EACCES or EPERM.
 */
int ruleset_create(const struct ruleset_plan *rp, const int *held, int *fd,
		   char **cause);

/*
 * Open every path rule's path now (O_PATH), for ruleset_create() to fall
 * back on: root's capabilities do not cross into the user namespace of
 * L3, where a rule inside another user's 0700 directory no longer opens.
 * The same object: L3 binds the host's paths (a path a mount replaces,
 * such as a private /tmp, opens there anyway).  An array of
 * rp->n_fs_rules descriptors (O_CLOEXEC, -1 where the open failed);
 * ruleset_hold_free() closes them.  Near the limit of open files the
 * rest are -1: a few hundred descriptors stay free.
 */
int *ruleset_hold(const struct ruleset_plan *rp);
void ruleset_hold_free(const struct ruleset_plan *rp, int *held);
int ruleset_restrict(int fd, int abi, char **cause);

/*
 * The landlock_restrict_self() flags for a process of threads threads
 * (0 or less: not known) under ABI abi, in *flags.  Landlock restricts
 * the calling thread alone unless RESTRICT_SELF_TSYNC (ABI 8) asks it to
 * restrict every thread of the process: so TSYNC wherever there may be
 * another thread and the kernel knows the flag.  Where there is another
 * thread and it does not, that thread would stay unrestricted: -EBUSY,
 * and *cause says so.  Audit logging keeps the kernel's defaults.  Pure.
 */
int ruleset_restrict_flags(int abi, long threads, uint32_t *flags,
			   char **cause);

/* The number of threads of this process (the links of /proc/self/task),
 * or -errno. */
long ruleset_threads(void);

#endif /* LLW_RULESET_H */
