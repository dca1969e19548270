/*
 * seccomp (layer L2): the table of DESIGN.md §2 as a libseccomp filter.
 *
 * filter_build() is a pure function of its options (no syscall but
 * libseccomp's own bookkeeping); tests export it with seccomp_export_pfc
 * and compare it with a golden file.  filter_load() installs it.
 */
#ifndef LLW_FILTER_H
#define LLW_FILTER_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>

#include <seccomp.h>

struct filter_opts {
	bool allow_unix; /* AF_UNIX socket() allowed (policy or ABI 9) */
	bool allow_unix_dgram_pair; /* socketpair(AF_UNIX, SOCK_DGRAM) */
	bool deny_inet;		    /* net = none without a network namespace */
	bool deny_udp;		    /* no AF_INET/AF_INET6 datagram sockets: the
				     * policy allows no UDP, or no layer can
				     * restrict its ports */
	bool deny_ptrace;	    /* [process] ptrace = deny */
	/* A pid other than the caller's own may be named to prlimit64,
	 * setpriority, ioprio_set and sched_set*: the pid namespace confines
	 * what a pid names, or the supervisor checks each (DESIGN.md §15).
	 * Without it only pid 0 (the caller) is accepted. */
	bool pid_any;
	/* The architecture to build for: SCMP_ARCH_NATIVE, or the native
	 * one by name (golden tests); filter_build refuses any other,
	 * because libseccomp 2.5 reads rule numbers in the host's table. */
	uint32_t arch;
};

/* Fill o with the defaults: everything false, native arch. */
void filter_opts_init(struct filter_opts *o);

/*
 * Build the filter.  Returns 0 and a new context in *out (release it with
 * seccomp_release), or -errno with *cause.
 */
int filter_build(const struct filter_opts *o, scmp_filter_ctx *out,
		 char **cause);

/* A few lines describing what the filter denies, for --explain. */
char **filter_describe(const struct filter_opts *o);

/* Load the filter into the calling thread (no_new_privs must be set). */
int filter_load(scmp_filter_ctx ctx, char **cause);

/*
 * Precompiled programs.  Building and generating the filter with
 * libseccomp takes milliseconds, longer than everything else llwrap does
 * before exec, and the filter is a pure function of a few booleans: so
 * the build runs filter_build() for every combination of them
 * (src/filter-gen.c) and embeds the BPF, and a run only picks one.
 * tests/unit/test-filter.c checks that each embedded program is what
 * filter_build() makes today.
 */
#define FILTER_N_PROGRAMS 64

/* The options the i-th program was built for (native architecture). */
void filter_opts_from_index(unsigned int i, struct filter_opts *o);

/* The index of o's program, or -EINVAL when o cannot be precompiled (a
 * foreign architecture). */
int filter_index(const struct filter_opts *o);

/* The embedded program for o.  Returns 0 or -EINVAL as filter_index. */
int filter_program(const struct filter_opts *o, struct sock_fprog *prog);

/* Load a BPF program into the calling thread (no_new_privs must be set). */
int filter_load_program(const struct sock_fprog *prog, char **cause);

/*
 * Give a helper process of llwrap's own (the resolver, the watch judge,
 * the proxy: DESIGN.md §15) the sandbox's filter, as narrow as it can run
 * with: no AF_UNIX socket unless unix_ok (the proxy's syslog), no socket of
 * the network at all when no_inet (the judge), no ptrace or
 * process_vm_*, no other pid's limits or priority, and the rest of the
 * table (io_uring, namespaces, bpf, ...).  no_new_privs must be set.
 * Returns 0, or -errno with *cause.
 */
int filter_confine_helper(bool unix_ok, bool no_inet, char **cause);

/* The BPF libseccomp generates for ctx, in a new array of *n insns. */
int filter_export(scmp_filter_ctx ctx, struct sock_filter **insns, size_t *n);

/* The embedded programs (generated into src/filter-programs.c). */
extern const struct sock_fprog filter_programs[FILTER_N_PROGRAMS];

/* libseccomp's program for ctx alone, without filter_export()'s prefix,
 * in a new array of *n insns. */
int filter_export_plain(scmp_filter_ctx ctx, struct sock_filter **insns,
			size_t *n);

/*
 * The network supervisor's notification filter (DESIGN.md §6): connect,
 * bind, listen, sendmsg, sendmmsg, and sendto with a destination address
 * go to the supervisor (SECCOMP_RET_USER_NOTIF), and so do prlimit64
 * (setting a limit), setpriority, ioprio_set (of one process) and
 * sched_setaffinity, sched_setscheduler, sched_setparam, sched_setattr
 * when they name a pid other than the caller's 0 (DESIGN.md §15: the
 * supervisor lets them through only for processes of the sandbox); with
 * watches, inotify_add_watch too (the watch judge decides it: DESIGN.md
 * §11, watching), without, the kernel adds a watch where the view shows
 * the path (the plan's SANDBOX_WATCHES_VIEW).  Every other call goes on
 * to the main filter, which decides it.  Pure, as filter_build().
 */
int filter_notify_build(scmp_filter_ctx *out, bool watches, char **cause);

/* filter_notify_build()'s programs, with watches and without, exported
 * plain at build time, as the main programs are
 * (tests/unit/test-filter.c checks them). */
extern const struct sock_fprog filter_notify_program;
extern const struct sock_fprog filter_notify_view_program;

/*
 * Load filter_notify_program (watches) or filter_notify_view_program into
 * the calling thread (no_new_privs must be set) with a new listener.
 * Returns the listener's fd (close-on-exec) or -errno with *cause.
 */
int filter_load_notify(bool watches, char **cause);

#endif /* LLW_FILTER_H */
