/*
 * seccomp (layer L2): the table of DESIGN.md §2 as a libseccomp filter.
 *
 * filter_build() is a pure function of its options (no syscall but
 * libseccomp's own bookkeeping); tests export it with seccomp_export_pfc
 * and compare it with a golden file.  filter_load() installs it.
 */
#ifndef LLW_FILTER_H
#define LLW_FILTER_H

#include <stdbool.h>

#include <seccomp.h>

/*
 * Syscall numbers below this limit that libseccomp cannot name are denied
 * with ENOSYS ("newer than the filter knows"); numbers at or above it are
 * not covered.  See filter_unknown() in filter.c.
 */
#define LLW_FILTER_NR_LIMIT 600

struct filter_opts {
	bool allow_unix; /* AF_UNIX socket() allowed (policy or ABI 9) */
	bool allow_unix_dgram_pair; /* socketpair(AF_UNIX, SOCK_DGRAM) */
	bool deny_inet;		    /* net = none without a network namespace */
	bool deny_udp;		    /* no AF_INET/AF_INET6 datagram sockets: the
				     * policy allows no UDP, or no layer can
				     * restrict its ports */
	bool deny_ptrace;	    /* [process] ptrace = deny */
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

#endif /* LLW_FILTER_H */
