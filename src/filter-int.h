/*
 * What filter.c (the rules) and filter-bpf.c (the program around
 * libseccomp's) share.
 */
#ifndef LLW_FILTER_INT_H
#define LLW_FILTER_INT_H

#include <stddef.h>
#include <stdint.h>

#ifndef SECCOMP_SET_MODE_FILTER
#define SECCOMP_SET_MODE_FILTER 1
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif

/* Numbers from here on are x32's (libseccomp kills them as a foreign
 * architecture). */
#define LLW_X32_SYSCALL_BIT 0x40000000U

struct nr_range {
	uint32_t lo, hi; /* [lo, hi) */
};

/*
 * The maximal runs of syscall numbers libseccomp cannot name for arch,
 * at most max of them, the last open-ended up to x32's bit: what the
 * program's prefix answers with ENOSYS, and --explain lists.
 */
size_t filter_unknown_runs(uint32_t arch, struct nr_range *runs, size_t max);

#endif /* LLW_FILTER_INT_H */
