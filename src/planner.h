/*
 * The planner: a resolved policy and this system's facts (probe.h) in,
 * the plan of a run out (struct sandbox): the backend, the compiled
 * rules of every layer, the shape of the processes the run makes, whether
 * allow-host goes through llwrap's resolver or its proxy, and the layer
 * accounting (which layer enforces each restriction asked for, what is
 * not enforced, and whether the run must fail).  The runner
 * (sandbox_exec) switches on the plan, --explain prints it, and a unit
 * test drives it with injected facts (tests/unit/test-planner.c).
 *
 * It reads the policy and the file system the rules name (through a
 * pathtree_fs), and asks the kernel nothing the facts do not hold; facts
 * still unknown are probed once, when a decision needs them.
 */
#ifndef LLW_PLANNER_H
#define LLW_PLANNER_H

#include <stdbool.h>
#include <stddef.h>

#include "bwrap.h"
#include "filter.h"
#include "gitguard.h"
#include "layers.h"
#include "ns.h"
#include "pathtree.h"
#include "planconf.h"
#include "probe.h"
#include "resources.h"
#include "ruleset.h"

/* The namespaces of L3 a run makes (ns.h). */
enum planner_ns {
	PLANNER_NS_NONE,
	/* user, mount, ipc (and net) namespaces, made by this process,
	 * which goes on to exec */
	PLANNER_NS_MOUNT,
	/* user, pid, ipc (and net): this process stays outside as the
	 * monitor, its child is pid 1, makes the mount namespace and
	 * spawns the command */
	PLANNER_NS_PID,
};

/* Who watches L3's masks for the host's removing one (maskwatch.h):
 * the process waiting for the command in the sandbox's mount
 * namespace. */
enum planner_masks {
	PLANNER_MASKS_NONE,    /* no mask, or not L3's */
	PLANNER_MASKS_PID1,    /* pid 1 of the pid namespace */
	PLANNER_MASKS_MONITOR, /* the monitor, which made the view */
	PLANNER_MASKS_BWRAP,   /* the monitor above bwrap, from outside */
};

/*
 * The processes a run makes, outermost first: a guardian (the timeout
 * and the watch on files run later, above a supervisor the command can
 * stall), a monitor (a process above the command: the network
 * supervisor, the limits' or the watch's monitor), the namespaces, and
 * bubblewrap, which this process becomes (bwrap then builds its own
 * namespaces and stays as their monitor).
 */
struct planner_shape {
	bool guardian;
	bool monitor;
	enum planner_ns ns;
	bool bwrap;
	enum planner_masks masks;
};

/* allow-host's names (DESIGN.md §6.1). */
enum planner_hosts {
	PLANNER_HOSTS_NONE, /* no allow-host, or no supervisor */
	/* llwrap's resolver in a network namespace of its own; where user
	 * namespaces were not probed the run may find them refused and
	 * take the proxy (sandbox_exec) */
	PLANNER_HOSTS_STUB,
	PLANNER_HOSTS_PROXY, /* llwrap's HTTP(S) proxy */
};

struct policy;
struct watchlater;
struct maskwatch;

/* How a watch (inotify_add_watch) is checked (DESIGN.md §11, watching),
 * decided once (planner.c: plan_watches): the supervisor's filter and
 * --explain read it. */
enum sandbox_watches {
	/* Nothing: known limit fs.inotify (no supervisor, and a view that
	 * shows more than the sandbox may read) */
	SANDBOX_WATCHES_UNCHECKED,
	/* bubblewrap's view: its binds, its denials masked, the nodes its
	 * --dev makes that no rule grants covered; the kernel adds a watch
	 * where the view shows the path, the supervisor is not asked */
	SANDBOX_WATCHES_VIEW,
	/* The supervisor's watch judge, under the sandbox's Landlock
	 * ruleset, decides each watch */
	SANDBOX_WATCHES_JUDGED,
};

enum sandbox_backend {
	SANDBOX_BACKEND_AUTO,
	SANDBOX_BACKEND_LANDLOCK,
	SANDBOX_BACKEND_BWRAP,
};

struct sandbox {
	/* borrowed; read by the planner alone (planner.c, planner-rules.c:
	 * planner_environ, planner_hosts), the others read conf */
	const struct policy *policy;
	/* The configuration the plan was made from, with what the planner
	 * decided of it (planconf.h): what --explain, why and the command
	 * layer read. */
	struct plan_conf conf;
	/* What the runner takes of the policy besides the layers' plans
	 * (borrowed from it): */
	const char *project;
	const char *workdir; /* where the command starts: workdir or project */
	bool protect_git, protect_later_run; /* asked for (L3's parts) */
	enum sandbox_backend backend;	     /* the one that will run */
	struct facts facts;		     /* this system's, as planned on */
	struct plan *fs;		     /* compiled paths */
	struct ruleset_plan *landlock;	     /* L1 */
	/* Root under L3: the rule paths opened before the user namespace,
	 * where its capabilities no longer reach other users' files
	 * (ruleset_hold()); NULL otherwise. */
	int *held;
	struct filter_opts filter; /* L2 */
	bool supervise;		   /* S: the network supervisor */
	bool use_ns;		   /* L3 */
	struct ns_opts ns;
	char *ns_needed;	  /* why the policy needs L3, or NULL */
	bool pts_granted;	  /* the rules grant /dev/pts (terminals) */
	char *backend_why;	  /* why this backend, for --explain */
	struct bwrap_plan *bwrap; /* F, when backend is BWRAP */
	struct gitguard *git;	  /* protect-git's entries, or NULL */
	struct gitguard *later;	  /* protect-later-run's, or NULL */
	struct watchlater *watch; /* the monitor's watch on them */
	/* The watch on L3's masks (shape.masks), made by sandbox_exec */
	struct maskwatch *maskwatch;
	/* The socket to the holder of what is freed after llwrap's exit
	 * (fd_hold): pid 1 hands it its mount namespace.  -1 without one;
	 * set by sandbox_exec. */
	int hold_more;
	/* Without L3 (DESIGN.md §14, "Masks without user namespaces"): the
	 * files and directories of git and the later-run files the monitor
	 * holds in place of read-only mounts (M), absolute; NULL when L3,
	 * bubblewrap or nothing holds them. */
	char **monitor_holds;
	/* private-tmp without L3 (DESIGN.md §14, M): the run's own
	 * directory as TMPDIR, granted tmp_access; /tmp and /var/tmp not
	 * granted, /dev/shm only where the IPC namespace is the
	 * container's (run_tmp_shm).  sandbox_exec() makes the directory
	 * (run_tmp_dir) and the process that made it (run_tmp_pid)
	 * removes it once the command has ended. */
	bool run_tmp;
	bool run_tmp_shm;
	enum llw_access run_tmp_access;
	struct runtmp *run_tmp_dir;
	int run_tmp_pid;
	char **unhidden;   /* deny rules on files git tracks unchanged,
			    * read-only for this run: their origins */
	char **git_limits; /* what protect-git and protect-later-run cannot
			    * protect here, for --explain */
	/* Layer substitution (layers.h): for each restriction the policy
	 * asks for (asked), the layer that enforces it, LAYER_NONE for
	 * none.  L3 and S are probed only when Landlock falls short. */
	bool asked[LAYERS_N];
	enum layers_id enforced_by[LAYERS_N];
	bool run;		/* sandbox_prepare_run() */
	bool ns_unshare_probes; /* L3 not probed: sandbox_exec's unshare
				 * answers, and a refusal fails the run */
	/* The supervisor not probed: the run's hand-over of the listener
	 * answers (supervise_parent_attach), and a refusal fails the run
	 * before the command starts. */
	bool sv_handover_probes;
	bool l2_deny_inet;   /* seccomp stands in for port rules (none) */
	char **not_enforced; /* every restriction dropped or missing */
	bool learn;	     /* --learn: the supervisor observes paths */
	int learn_fd;	     /* ... and writes them here (sandbox_exec) */
	struct limits_plan limits_plan; /* [limits], decided */
	struct resources_outcome
		limits; /* what the monitor saw (resources.h) */
	/* Set by sandbox_exec() in the process that returns once the command
	 * has ended and is the run's outermost: it reports (the footer, the
	 * limits, sandbox_after()); pid 1 of a pid namespace does not. */
	bool reporter;
	struct planner_shape shape; /* the processes the run makes */
	bool must_fail;		    /* a fatal loss without best effort */
	char *fail_cause;	    /* why, when must_fail */

	/* The network side (netpolicy_plan): what the supervisor and its
	 * helpers read. */
	struct net_plan net;

	/* Who checks an inotify watch (plan_watches). */
	enum sandbox_watches watches;
	/* Why L3's view is not sealed (viewplan_unsealable), or NULL. */
	const char *unsealed;
};

/*
 * Plan p for a system with facts f (copied: the plan completes its own
 * copy when a decision needs a fact f leaves unknown), compiling the
 * path rules on fs.  run: the plan is for sandbox_exec(), which finds out
 * itself what it can (sandbox_prepare_run()).  Returns 0 and a new plan;
 * (*out)->must_fail tells whether running it would be refused (the plan
 * still says why, for --explain).  Returns -errno with *cause for an
 * error that leaves nothing to explain.
 */
int planner_plan(const struct policy *p, enum sandbox_backend backend,
		 const struct facts *f, const struct pathtree_fs *fs, bool run,
		 struct sandbox **out, char **cause);

/* The compiler's inputs from p (pathtree.h), borrowed: its configured
 * rules as they are, without the rules the planner adds. */
void planner_pathtree_input(const struct policy *p, struct pathtree_input *in);

/* A plan of p's configured rules alone, on the real file system
 * (pathtree_sources): the question which rule holds a path, asked
 * before the sandbox is compiled (copy-in, selftest).  NULL on an error
 * the compiler would report. */
struct plan *planner_sources(const struct policy *p);

/* p's configuration as a plan carries it (struct sandbox's conf,
 * planconf.h), borrowed from p, with what the network's settings
 * decide: names_closed for a run with the supervisor or without. */
void planner_conf(const struct policy *p, bool supervised, struct plan_conf *c);

/* L1's inputs besides the path rules, from p (lists borrowed from p):
 * the network mode, the port lists, AF_UNIX and pathname sockets. */
void planner_ruleset_inputs(const struct policy *p, struct ruleset_inputs *in);

/* The symlinks on the way to each path p grants (bwrap_find_symlinks). */
void planner_bwrap_symlinks(const struct policy *p, struct bwrap_symlink **out,
			    size_t *n);

/* The bubblewrap view of p (bwrap_plan_new) with fs and links, and what
 * it takes of p besides: private-tmp, the project, the working
 * directory.  Borrows from p. */
struct bwrap_plan *planner_bwrap_plan(const struct policy *p,
				      const struct plan *fs,
				      const struct bwrap_symlink *links,
				      size_t n_links);

/* The command's environment from envp: PWD naming the directory the
 * command starts in, the policy's keep and unset applied, and where no
 * name resolves, the variables that tell tools not to retry
 * (netpolicy_closed_environ).  A new vector. */
char **planner_environ(const struct sandbox *sb, char *const *envp);

/* Whether allow-host's names go through llwrap's resolver or its proxy,
 * from sb's policy, supervisor and facts. */
enum planner_hosts planner_hosts(const struct sandbox *sb);

/* The shape as words, outermost process first ("guardian > supervisor >
 * pid 1 > command"). */
char *planner_shape_describe(const struct sandbox *sb);

/* Free a plan (and what a run left in it); NULL is fine. */
void planner_free(struct sandbox *sb);

/* The run refused for want of L3: needed says what for, why what refuses
 * it. */
char *planner_l3_refusal(const char *needed, const char *why);

/* The run refused for want of the supervisor, which the policy of sb
 * needs: why says who refuses it (probe_supervisor's words). */
char *planner_supervisor_refusal(const struct sandbox *sb, const char *why);

/* Take REFER out of every rule of fs at, beneath or above project: no
 * file is renamed or linked from one directory of it into another
 * (EXDEV), so nothing is moved into .git from elsewhere while the
 * monitor holds its files (DESIGN.md §14). */
void planner_withhold_refer(struct plan *fs, const char *project);

/* Whether some rule of p lets something execute (rx or rwx): without
 * one no command can start, whatever it is. */
bool planner_executes(const struct policy *p);

/* What is made before a run is planned (sandbox_make_dirs), from p,
 * borrowed but for later_run. */
struct planner_dirs {
	const struct llw_items *mkdirs;	 /* [filesystem] mkdir */
	const struct llw_items *touches; /* [filesystem] touch */
	const char *project;
	/* protect-git in a project: a missing hooks/ is made, to be
	 * mounted read-only; the key's origin. */
	bool hooks;
	const char *hooks_origin;
	/* protect-later-run's directories (planner_later_run_dirs), owned;
	 * NULL when it is not asked for. */
	char **later_run;
};

void planner_dirs(const struct policy *p, struct planner_dirs *d);

/* The directories whose files run later (protect-later-run): the
 * project, then each from the working directory up to it.  A new
 * vector. */
char **planner_later_run_dirs(const struct policy *p);

#endif /* LLW_PLANNER_H */
