/*
 * The Landlock UAPI under llwrap's own names.  Debian 12's
 * <linux/landlock.h> stops at ABI 2, so the system header is never
 * included; values are UAPI and must never change.
 *
 * Sources of the values added after ABI 7 (every one checked against at
 * least two independent copies):
 *  - ABI 8 (Linux 7.0): LANDLOCK_RESTRICT_SELF_TSYNC (1U << 3), from the
 *    patch "landlock: Multithreading support for landlock_restrict_self()"
 *    (security/landlock/tsync.c, which bumped landlock_abi_version to 8),
 *    and go-landlock's FlagRestrictSelfTSync / ABI 8 table.
 *  - ABI 9: LANDLOCK_ACCESS_FS_RESOLVE_UNIX (1ULL << 16), from mainline
 *    commit ae97330d1bd6 "landlock: Control pathname UNIX domain socket
 *    resolution by path" (landlock_abi_version 8 -> 9), go-landlock's
 *    ABI 9 table and syzkaller's generated landlock.txt.const (65536).
 *    It is a file right: a rule may name the socket file itself.
 *  - ABI 10 (planned for Linux 7.2, in mic/linux.git "next" in June
 *    2026): LANDLOCK_ACCESS_NET_BIND_UDP (1ULL << 2),
 *    LANDLOCK_ACCESS_NET_CONNECT_SEND_UDP (1ULL << 3), the quiet_* fields
 *    of landlock_ruleset_attr (48 bytes) and LANDLOCK_ADD_RULE_QUIET
 *    (1U << 0), from syzkaller's landlock.txt(.const) as updated by the
 *    Landlock maintainer ("planned to be part of Linux 7.2") and the
 *    kernel's UDP documentation patch ("Starting with the Landlock ABI
 *    version 10 ...").  Not yet in a released kernel when this was
 *    written: if the merged UAPI differs, only this file changes.
 *
 * The kernel accepts any struct size from the first field up to its own
 * and rejects non-zero bytes it does not know, so callers pass
 * llw_ruleset_attr_size(abi).
 */
#ifndef LLW_COMPAT_LANDLOCK_H
#define LLW_COMPAT_LANDLOCK_H

#include <stddef.h>
#include <stdint.h>

struct llw_ruleset_attr {
	uint64_t handled_access_fs;  /* ABI 1 */
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped;	     /* ABI 6 */
	uint64_t quiet_access_fs;    /* ABI 10: no audit record for these */
	uint64_t quiet_access_net;   /* ABI 10 */
	uint64_t quiet_scoped;	     /* ABI 10 */
};

/* landlock_create_ruleset() flags. */
#define LLW_CREATE_RULESET_VERSION (1U << 0) /* ABI 1 */
#define LLW_CREATE_RULESET_ERRATA  (1U << 1) /* ABI 7 */

/* landlock_restrict_self() flags. */
#define LLW_RESTRICT_SELF_LOG_SAME_EXEC_OFF  (1U << 0) /* ABI 7 */
#define LLW_RESTRICT_SELF_LOG_NEW_EXEC_ON    (1U << 1) /* ABI 7 */
#define LLW_RESTRICT_SELF_LOG_SUBDOMAINS_OFF (1U << 2) /* ABI 7 */
#define LLW_RESTRICT_SELF_TSYNC		     (1U << 3) /* ABI 8 */

/* landlock_add_rule() flags. */
#define LLW_ADD_RULE_QUIET (1U << 0) /* ABI 10 */

/* Rule types. */
#define LLW_RULE_PATH_BENEATH 1 /* ABI 1 */
#define LLW_RULE_NET_PORT     2 /* ABI 4 */

struct llw_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct llw_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};

/* Filesystem rights. */
#define LLW_FS_EXECUTE	    (1ULL << 0) /* ABI 1 */
#define LLW_FS_WRITE_FILE   (1ULL << 1)
#define LLW_FS_READ_FILE    (1ULL << 2)
#define LLW_FS_READ_DIR	    (1ULL << 3)
#define LLW_FS_REMOVE_DIR   (1ULL << 4)
#define LLW_FS_REMOVE_FILE  (1ULL << 5)
#define LLW_FS_MAKE_CHAR    (1ULL << 6)
#define LLW_FS_MAKE_DIR	    (1ULL << 7)
#define LLW_FS_MAKE_REG	    (1ULL << 8)
#define LLW_FS_MAKE_SOCK    (1ULL << 9)
#define LLW_FS_MAKE_FIFO    (1ULL << 10)
#define LLW_FS_MAKE_BLOCK   (1ULL << 11)
#define LLW_FS_MAKE_SYM	    (1ULL << 12)
#define LLW_FS_REFER	    (1ULL << 13) /* ABI 2 */
#define LLW_FS_TRUNCATE	    (1ULL << 14) /* ABI 3 */
#define LLW_FS_IOCTL_DEV    (1ULL << 15) /* ABI 5 */
#define LLW_FS_RESOLVE_UNIX (1ULL << 16) /* ABI 9 */

/* Network rights. */
#define LLW_NET_BIND_TCP	 (1ULL << 0) /* ABI 4 */
#define LLW_NET_CONNECT_TCP	 (1ULL << 1) /* ABI 4 */
#define LLW_NET_BIND_UDP	 (1ULL << 2) /* ABI 10 */
#define LLW_NET_CONNECT_SEND_UDP (1ULL << 3) /* ABI 10 */

/* Scopes. */
#define LLW_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define LLW_SCOPE_SIGNAL	       (1ULL << 1) /* ABI 6 */

/*
 * Rights that apply to files, not only to directories: a rule on a
 * non-directory may carry only these (the kernel returns EINVAL
 * otherwise).  RESOLVE_UNIX is one: a rule may name a socket file.
 */
#define LLW_FS_FILE_RIGHTS                                                     \
	(LLW_FS_EXECUTE | LLW_FS_WRITE_FILE | LLW_FS_READ_FILE |               \
	 LLW_FS_TRUNCATE | LLW_FS_IOCTL_DEV | LLW_FS_RESOLVE_UNIX)

/* The highest ABI whose definitions this file holds. */
#define LLW_ABI_LAST 10

/*
 * Every right (or scope, or flag) ABI abi knows; 0 for abi < 1.  An abi
 * above LLW_ABI_LAST gets what LLW_ABI_LAST knows.  The fall-through
 * switches follow samples/landlock/sandboxer.c: start from everything
 * and clear what each older ABI lacks.
 */
static inline uint64_t
llw_fs_rights(int abi)
{
	uint64_t r = (LLW_FS_RESOLVE_UNIX << 1) - 1;

	if (abi < 1)
		return 0;
	switch (abi) {
	case 1:
		r &= ~LLW_FS_REFER;
		__attribute__((fallthrough));
	case 2:
		r &= ~LLW_FS_TRUNCATE;
		__attribute__((fallthrough));
	case 3:
	case 4:
		r &= ~LLW_FS_IOCTL_DEV;
		__attribute__((fallthrough));
	case 5:
	case 6:
	case 7:
	case 8:
		r &= ~LLW_FS_RESOLVE_UNIX;
		break;
	default:
		break;
	}
	return r;
}

static inline uint64_t
llw_net_rights(int abi)
{
	if (abi >= 10)
		return LLW_NET_BIND_TCP | LLW_NET_CONNECT_TCP |
		       LLW_NET_BIND_UDP | LLW_NET_CONNECT_SEND_UDP;
	if (abi >= 4)
		return LLW_NET_BIND_TCP | LLW_NET_CONNECT_TCP;
	return 0;
}

static inline uint64_t
llw_scopes(int abi)
{
	if (abi >= 6)
		return LLW_SCOPE_ABSTRACT_UNIX_SOCKET | LLW_SCOPE_SIGNAL;
	return 0;
}

static inline uint32_t
llw_restrict_self_flags(int abi)
{
	uint32_t f = 0;

	if (abi >= 7)
		f |= LLW_RESTRICT_SELF_LOG_SAME_EXEC_OFF |
		     LLW_RESTRICT_SELF_LOG_NEW_EXEC_ON |
		     LLW_RESTRICT_SELF_LOG_SUBDOMAINS_OFF;
	if (abi >= 8)
		f |= LLW_RESTRICT_SELF_TSYNC;
	return f;
}

/*
 * The size of struct llw_ruleset_attr to pass to a kernel of ABI abi: the
 * end of the last field that ABI knows.  0 for abi < 1.
 */
static inline size_t
llw_ruleset_attr_size(int abi)
{
	if (abi >= 10)
		return offsetof(struct llw_ruleset_attr, quiet_scoped) +
		       sizeof(uint64_t);
	if (abi >= 6)
		return offsetof(struct llw_ruleset_attr, scoped) +
		       sizeof(uint64_t);
	if (abi >= 4)
		return offsetof(struct llw_ruleset_attr, handled_access_net) +
		       sizeof(uint64_t);
	if (abi >= 1)
		return offsetof(struct llw_ruleset_attr, handled_access_fs) +
		       sizeof(uint64_t);
	return 0;
}

_Static_assert(sizeof(struct llw_ruleset_attr) == 48, "UAPI size");
_Static_assert(sizeof(struct llw_path_beneath_attr) == 12, "UAPI size");
_Static_assert(sizeof(struct llw_net_port_attr) == 16, "UAPI size");

#endif /* LLW_COMPAT_LANDLOCK_H */
