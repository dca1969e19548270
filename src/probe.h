/*
 * The kernel's facts, gathered in one place: what the Landlock ABI is,
 * whether user namespaces work the way a run uses them, whether the
 * network supervisor, bubblewrap and a cgroup of the command's own can
 * run here.  The planner (planner.h) decides on these facts alone, and
 * --check prints them, so the two cannot disagree.
 *
 * The cheap facts (one syscall or none) are read by probe_init().  The
 * others cost a process or a walk of the file system and are asked only
 * when a decision needs them: probe_userns() and the others answer from
 * the facts when known and ask the kernel once otherwise.  A test fills
 * a struct facts itself and leaves live false: then nothing is asked,
 * and a fact left unknown counts as refused (fail closed).
 */
#ifndef LLW_PROBE_H
#define LLW_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "bwrap.h"
#include "contain.h"
#include "ns.h"
#include "access.h"
#include "resources.h"
#include "ruleset.h"
#include "supervise.h"

enum probe_answer { PROBE_UNKNOWN, PROBE_YES, PROBE_NO };

struct facts {
	bool live;		      /* ask the kernel for what is unknown */
	struct ruleset_kernel kernel; /* Landlock */
	bool root;		      /* the effective uid is 0 */
	uint64_t ram;		      /* bytes of memory, 0 if unknown */
	/* llwrap's pid namespace is not the host's initial one (a
	 * container's, or another sandbox's): only the processes of that
	 * namespace and those below it have a pid here, none of the
	 * host's (contain_pidns_nested()). */
	bool pidns_nested;
	/* llwrap's IPC namespace is not the initial one: the container's
	 * /dev/shm is its own (contain_ipcns_nested()). */
	bool ipcns_nested;
	/* One of the command's standard descriptors is a terminal, or
	 * llwrap has a controlling terminal (the command's /dev/tty): a
	 * process it leaves running would keep it, and read what the user
	 * types there once llwrap has returned to the shell (review M,
	 * F6; review X, X1): such a run always has a process to end what
	 * is left. */
	bool terminal;
	/* Unprivileged user, mount, pid and network namespaces, as ns.c
	 * makes them (AppArmor's restriction included); why not. */
	enum probe_answer userns;
	char *userns_why;
	/* The seccomp user-notification supervisor (supervise.h). */
	enum probe_answer supervisor;
	char *supervisor_why;
	/* When usable: how it reaches the caller where a filter refuses
	 * pidfd_getfd or process_vm_readv (the substitutes), else NULL. */
	char *supervisor_form;
	/* bubblewrap: found (bwrap_bin.path), and runnable here (setuid,
	 * or user namespaces). */
	enum probe_answer bwrap;
	char *bwrap_why;
	struct bwrap_binary bwrap_bin;
	bool bwrap_looked; /* bwrap_bin was looked for */
	/* A cgroup of the command's own, for [limits] memory-max and
	 * pids-max (resources.h); asked for a policy that sets them. */
	enum probe_answer cgroup;
	char *cgroup_why;
	/* A new /proc in a user and pid namespace, as L3 mounts one for a
	 * pid namespace; asked where a substitute exists (contain.h
	 * pidns_nested) and by --check. */
	enum probe_answer newproc;
	char *newproc_why;
	/* The container llwrap runs in and the seccomp filter it
	 * inherited (contain.h); read when container_read. */
	struct contain container;
	bool container_read;
};

/* The cheap facts of this system, live; the rest left unknown. */
void probe_init(struct facts *f);

/* dst: a copy of src, its own strings. */
void probe_copy(struct facts *dst, const struct facts *src);

/* Free what f holds (not f). */
void probe_clear(struct facts *f);

/* Whether user namespaces can be used; when not, *why (borrowed) says
 * why, with the sysctl to look at. */
bool probe_userns(struct facts *f, const char **why);

/*
 * Before a run that creates the namespaces anyway: ns_precheck()
 * (ns.h), without creating one.  Known facts answer: refused, or
 * NS_PROBE (probe_userns() answers at once).
 */
enum ns_precheck probe_userns_precheck(struct facts *f);

/* The container and the inherited filter, read once (live). */
const struct contain *probe_container(struct facts *f);

/* Whether the network supervisor can run here, probed as a run uses it
 * (a listener of a child's taken, its memory read, a descriptor
 * handed); *why when not, naming who refused. */
bool probe_supervisor(struct facts *f, const char **why);

/*
 * Whether the supervisor can run here, without the probe's child: the
 * cheap checks alone (the kernel's calls, Yama).  False when refused
 * (probe_supervisor() then answers so); true when a run may take its own
 * hand-over as the probe (supervise_parent_attach()), the fact left
 * unknown.  False when not live.
 */
bool probe_supervisor_precheck(struct facts *f);

/* Why the supervisor cannot run, from the steps a hand-over or the
 * probe found refused: the words probe_supervisor() gives. */
char *probe_supervisor_refused(struct facts *f,
			       const struct supervise_refused *r);

/* Whether bubblewrap can run here (f->bwrap_bin names it); *why when
 * not. */
bool probe_bwrap(struct facts *f, const char **why);

/* Whether l's [limits] memory-max and pids-max have a cgroup (true when
 * l sets neither); *why when not. */
bool probe_cgroup(struct facts *f, const struct limits_plan *l,
		  const char **why);

/*
 * Whether a user namespace can mount a new /proc (as L3 does for a pid
 * namespace), tried once in a child of its own; when not (user
 * namespaces refused included), *why says why, with the option that
 * allows it (contain_proc_fix()).
 */
bool probe_newproc(struct facts *f, const char **why);

#endif /* LLW_PROBE_H */
