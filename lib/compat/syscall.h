/*
 * Raw system call wrappers for calls glibc 2.36 does not wrap.  Each
 * returns what the kernel returns, with errno set, and fails with ENOSYS
 * where the number is unknown at build time (values are UAPI).
 */
#ifndef LLW_COMPAT_SYSCALL_H
#define LLW_COMPAT_SYSCALL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_close_range
#define __NR_close_range 436
#endif
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef __NR_statmount
#define __NR_statmount 457
#endif

static inline int
sys_close_range(unsigned int first, unsigned int last, unsigned int flags)
{
	return (int)syscall(__NR_close_range, first, last, flags);
}

static inline int
sys_landlock_create_ruleset(const void *attr, size_t size, uint32_t flags)
{
	return (int)syscall(__NR_landlock_create_ruleset, attr, size, flags);
}

static inline int
sys_landlock_add_rule(int ruleset_fd, int rule_type, const void *attr,
		      uint32_t flags)
{
	return (int)syscall(__NR_landlock_add_rule, ruleset_fd, rule_type, attr,
			    flags);
}

static inline int
sys_landlock_restrict_self(int ruleset_fd, uint32_t flags)
{
	return (int)syscall(__NR_landlock_restrict_self, ruleset_fd, flags);
}

static inline int
sys_pidfd_open(pid_t pid, unsigned int flags)
{
	return (int)syscall(__NR_pidfd_open, pid, flags);
}

static inline int
sys_pidfd_getfd(int pidfd, int targetfd, unsigned int flags)
{
	return (int)syscall(__NR_pidfd_getfd, pidfd, targetfd, flags);
}

/* kcmp(2) KCMP_FILE: 0 when fd1 of pid1 and fd2 of pid2 are one open
 * file. */
static inline int
sys_kcmp_file(pid_t pid1, pid_t pid2, int fd1, int fd2)
{
	return (int)syscall(__NR_kcmp, pid1, pid2, 0 /* KCMP_FILE */,
			    (unsigned long)fd1, (unsigned long)fd2);
}

/* An entry of getdents64(2)'s buffer (the kernel's struct
 * linux_dirent64), which glibc 2.36 does not declare without
 * _GNU_SOURCE's struct dirent64; d_reclen leads to the next. */
struct llw_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static inline long
sys_getdents64(int fd, void *buf, size_t len)
{
	return syscall(SYS_getdents64, fd, buf, len);
}

/* statx(2)'s mask bit for a mount's unique id (Linux 6.8), never reused,
 * which statmount(2) takes (STATX_MNT_ID_UNIQUE). */
#define LLW_STATX_MNT_ID_UNIQUE 0x4000U

/* statmount(2)'s request (MNT_ID_REQ_SIZE_VER0) and reply (Linux 6.8,
 * UAPI struct mnt_id_req, struct statmount): what it asks for
 * (STATMOUNT_MNT_POINT) and, in the reply's strings, where the mount
 * point is, relative to the caller's root. */
#define LLW_STATMOUNT_MNT_POINT 0x10U
struct llw_mnt_id_req {
	uint32_t size;
	uint32_t spare;
	uint64_t mnt_id;
	uint64_t param;
};
struct llw_statmount {
	uint32_t size; /* with the strings */
	uint32_t spare1;
	uint64_t mask; /* what was written */
	uint32_t sb_dev_major, sb_dev_minor;
	uint64_t sb_magic;
	uint32_t sb_flags, fs_type;
	uint64_t mnt_id, mnt_parent_id;
	uint32_t mnt_id_old, mnt_parent_id_old;
	uint64_t mnt_attr, mnt_propagation, mnt_peer_group, mnt_master;
	uint64_t propagate_from;
	uint32_t mnt_root;
	uint32_t mnt_point; /* its offset in str */
	uint64_t spare2[50];
	char str[];
};

static inline int
sys_statmount(const struct llw_mnt_id_req *req, struct llw_statmount *buf,
	      size_t size, unsigned int flags)
{
	return (int)syscall(__NR_statmount, req, buf, size, flags);
}

#endif /* LLW_COMPAT_SYSCALL_H */
