/*
 * seccomp (layer L2): the BPF program around libseccomp's (filter.c
 * writes the rules).  The syscall numbers libseccomp cannot name, the
 * prefix llwrap puts before libseccomp's program (ENOSYS for those
 * numbers, EPERM for personality flags), the export of the whole
 * program, the table of programs precompiled at build time
 * (filter-gen.c) and loading a program, llwrap's or the supervisor's.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <linux/seccomp.h>
#include <unistd.h>

#include <seccomp.h>

#include "cleanup.h"
#include "fdutil.h"
#include "filter.h"
#include "filter-int.h"
#include "xalloc.h"

/* x86_64 syscalls that the kernel lets through seccomp (see below). */
#define X86_64_NR_URETPROBE 335
#define X86_64_NR_UPROBE    336

/*
 * Numbers the kernel routes around seccomp on some versions: x86_64's
 * uretprobe (335, Linux 6.11) and uprobe (336, 6.17) are entered from the
 * kernel's own probe trampolines.  Linux 6.14 and later skip seccomp for
 * them; 6.11 to 6.13 do not, and denying them there would crash a
 * sandboxed process the moment someone traces it with a uretprobe.
 */
static bool
nr_exempt(uint32_t arch, int nr)
{
	return arch == SCMP_ARCH_X86_64 &&
	       (nr == X86_64_NR_URETPROBE || nr == X86_64_NR_UPROBE);
}

/*
 * Is nr a syscall number this filter does not know?  libseccomp names
 * every syscall of its syscall table; a number it cannot name is newer
 * than the filter's review (x86_64: 457 and up with Debian's 2.5.4) or
 * unassigned (x86_64's gap 337-423, which the kernel answers with ENOSYS
 * today and could fill later, as it did with 335 and 336).
 */
static bool
nr_unknown(uint32_t arch, int nr)
{
	_cleanup_free_ char *name = seccomp_syscall_resolve_num_arch(arch, nr);

	return name == NULL && !nr_exempt(arch, nr);
}

/*
 * Any syscall number newer than the filter knows gets ENOSYS, so a new
 * kernel's syscalls are denied until reviewed; callers treat ENOSYS as
 * "kernel too old" and fall back.  libseccomp cannot compare the syscall
 * number with a range, and one rule per number made the program three
 * times longer and its load 0.4 ms slower, so the unknown numbers are
 * denied by a short prefix prepended to libseccomp's program
 * (filter_export): for the native architecture, each maximal run of
 * numbers libseccomp cannot name gets ENOSYS, the last run open-ended up
 * to x32's bit (those numbers stay libseccomp's: killed as a foreign
 * architecture).
 */
#define LLW_FILTER_NR_SCAN 1024

size_t
filter_unknown_runs(uint32_t arch, struct nr_range *runs, size_t max)
{
	size_t n = 0;
	int start = -1;

	for (int nr = 0; nr <= LLW_FILTER_NR_SCAN; nr++) {
		bool unknown = nr < LLW_FILTER_NR_SCAN && nr_unknown(arch, nr);

		if (unknown && start < 0)
			start = nr;
		if (unknown || start < 0)
			continue;
		if (n < max)
			runs[n++] = (struct nr_range){ (uint32_t)start,
						       (uint32_t)nr };
		start = -1;
	}
	/* A run reaching the end of the scan goes on to x32's bit. */
	if (n > 0 && runs[n - 1].hi == LLW_FILTER_NR_SCAN)
		runs[n - 1].hi = LLW_X32_SYSCALL_BIT;
	return n;
}

static int
filter_load_error(int r, char **cause)
{
	const char *hint = "";

	switch (-r) {
	case EACCES:
		hint = " (no_new_privs is not set; see prctl(2) "
		       "PR_SET_NO_NEW_PRIVS)";
		break;
	case EINVAL:
		hint = " (the kernel may lack CONFIG_SECCOMP_FILTER)";
		break;
	case ENOMEM:
		hint = " (too many filters are stacked on this process)";
		break;
	}
	*cause = xasprintf("cannot load the seccomp filter: %s%s.",
			   strerror(-r), hint);
	return r;
}

int
filter_load(scmp_filter_ctx ctx, char **cause)
{
	struct sock_filter *insns;
	struct sock_fprog prog;
	size_t n;
	int r;

	/* Through filter_export, so what is loaded has the prefix. */
	if ((r = filter_export(ctx, &insns, &n)) < 0) {
		*cause = xasprintf("cannot generate the seccomp program: %s.",
				   strerror(-r));
		return r;
	}
	prog.len = (unsigned short)n;
	prog.filter = insns;
	r = filter_load_program(&prog, cause);
	free(insns);
	return r;
}

void
filter_opts_from_index(unsigned int i, struct filter_opts *o)
{
	filter_opts_init(o);
	o->allow_unix = i & 1;
	o->allow_unix_dgram_pair = i & 2;
	o->deny_inet = i & 4;
	o->deny_udp = i & 8;
	o->deny_ptrace = i & 16;
	o->pid_any = i & 32;
}

int
filter_index(const struct filter_opts *o)
{
	if (o->arch != SCMP_ARCH_NATIVE && o->arch != seccomp_arch_native())
		return -EINVAL;
	return (o->allow_unix ? 1 : 0) | (o->allow_unix_dgram_pair ? 2 : 0) |
	       (o->deny_inet ? 4 : 0) | (o->deny_udp ? 8 : 0) |
	       (o->deny_ptrace ? 16 : 0) | (o->pid_any ? 32 : 0);
}

int
filter_program(const struct filter_opts *o, struct sock_fprog *prog)
{
	int i = filter_index(o);

	if (i < 0)
		return i;
	*prog = filter_programs[i];
	return 0;
}

int
filter_load_program(const struct sock_fprog *prog, char **cause)
{
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog) < 0)
		return filter_load_error(-errno, cause);
	return 0;
}

int
filter_confine_helper(bool unix_ok, bool no_inet, char **cause)
{
	struct filter_opts o;
	struct sock_fprog prog;
	int r;

	filter_opts_init(&o);
	o.allow_unix = unix_ok;
	o.deny_inet = no_inet;
	o.deny_ptrace = true;
	if ((r = filter_program(&o, &prog)) < 0) {
		*cause = xstrdup("no precompiled seccomp program fits a "
				 "helper");
		return r;
	}
	return filter_load_program(&prog, cause);
}

/*
 * The prefix before libseccomp's program, which starts by loading the
 * architecture itself.  For the native architecture it answers:
 *
 * - every number libseccomp cannot name: ENOSYS (see filter_unknown_runs);
 * - personality(2) other than PER_LINUX (0) and the query 0xffffffff:
 *   EPERM, since READ_IMPLIES_EXEC would make every readable mapping
 *   executable.  The kernel reads an unsigned int, and libc passes an
 *   unsigned long, so the query may come as a 64-bit -1: only the low
 *   word is compared.  libseccomp can only say "low word in [1,
 *   0xfffffffe]" with 32 masked rules (a value with one bit set needs a
 *   rule of its own), about 100 instructions that cost ~55 us at every
 *   load (~0.56 us per instruction, bench/RESULTS.md); here it is four.
 *
 * Everything else goes on to libseccomp's program.
 */
#define LLW_PREFIX_PERSONALITY_LEN 5

static size_t
filter_prefix(uint32_t arch, struct sock_filter *out, size_t max)
{
	struct nr_range runs[64];
	size_t nr = filter_unknown_runs(arch, runs, ARRAY_SIZE(runs));
	size_t len = 3 + 2 * nr + LLW_PREFIX_PERSONALITY_LEN + 2, k = 0;
	int personality =
		seccomp_syscall_resolve_name_arch(arch, "personality");
	/* The low word of args[0]. */
	uint32_t arg0 = offsetof(struct seccomp_data, args[0]) +
			(__BYTE_ORDER == __BIG_ENDIAN ? 4 : 0);

	if (len > max || len > 255 || personality < 0)
		return 0;
	out[k++] = (struct sock_filter)BPF_STMT(
		BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	/* Another architecture: straight to libseccomp's program. */
	out[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch,
						0, (uint8_t)(len - 2));
	out[k++] = (struct sock_filter)BPF_STMT(
		BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < nr; i++) {
		/* At k: below lo, on to the next run; at k+1: at or above
		 * hi, on to the next run (after the last one, the
		 * personality check), else ENOSYS, the prefix's last insn. */
		out[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
						      runs[i].lo, 0, 1);
		k++;
		out[k] = (struct sock_filter)BPF_JUMP(
			BPF_JMP | BPF_JGE | BPF_K, runs[i].hi, 0,
			(uint8_t)(len - 1 - (k + 1)));
		k++;
	}
	/* Not personality: on to the "ja" into libseccomp's program. */
	out[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						(uint32_t)personality, 0, 4);
	out[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, arg0);
	out[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						PER_LINUX, 2, 0);
	out[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						0xffffffffU, 1, 0);
	out[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						SECCOMP_RET_ERRNO | EPERM);
	out[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 1, 0, 0);
	out[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						SECCOMP_RET_ERRNO | ENOSYS);
	return k;
}

/* libseccomp's program for ctx, in a new buffer of *len bytes. */
static int
export_bpf(scmp_filter_ctx ctx, char **buf, size_t *len)
{
	_cleanup_close_ int fd = memfd_create("llwrap-bpf", MFD_CLOEXEC);
	int r;

	if (fd < 0)
		return -errno;
	if ((r = seccomp_export_bpf(ctx, fd)) < 0)
		return r;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	if ((r = fd_read_all(fd, 1 << 20, buf, len)) < 0)
		return r;
	if (*len % sizeof(struct sock_filter) != 0 || *len == 0) {
		free(*buf);
		return -EINVAL;
	}
	return 0;
}

int
filter_export(scmp_filter_ctx ctx, struct sock_filter **insns, size_t *n)
{
	struct sock_filter prefix[160];
	size_t len, np;
	char *buf;
	int r;

	if ((r = export_bpf(ctx, &buf, &len)) < 0)
		return r;
	np = filter_prefix(seccomp_arch_native(), prefix, ARRAY_SIZE(prefix));
	if (np == 0) {
		free(buf);
		return -E2BIG;
	}
	*n = np + len / sizeof(struct sock_filter);
	*insns = xcalloc(*n, sizeof(struct sock_filter));
	memcpy(*insns, prefix, np * sizeof(struct sock_filter));
	memcpy(*insns + np, buf, len);
	free(buf);
	return 0;
}

int
filter_export_plain(scmp_filter_ctx ctx, struct sock_filter **insns, size_t *n)
{
	size_t len;
	char *buf;
	int r;

	if ((r = export_bpf(ctx, &buf, &len)) < 0)
		return r;
	*n = len / sizeof(struct sock_filter);
	*insns = (struct sock_filter *)buf;
	return 0;
}

int
filter_load_notify(bool watches, char **cause)
{
	int fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			      SECCOMP_FILTER_FLAG_NEW_LISTENER,
			      watches ? &filter_notify_program
				      : &filter_notify_view_program);

	if (fd < 0) {
		int e = errno;

		*cause = xasprintf("cannot load the supervisor's seccomp "
				   "filter: %s",
				   strerror(e));
		return -e;
	}
	return fd;
}
