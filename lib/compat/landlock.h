/*
 * The Landlock UAPI under llwrap's own names.  Debian 12's
 * <linux/landlock.h> stops at ABI 2, so the system header is never
 * included; values are UAPI and must never change.
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
};

/* landlock_create_ruleset() flags. */
#define LLW_CREATE_RULESET_VERSION (1U << 0) /* ABI 1 */
#define LLW_CREATE_RULESET_ERRATA  (1U << 1) /* ABI 7 */

/* landlock_restrict_self() flags (ABI 7). */
#define LLW_RESTRICT_SELF_LOG_SAME_EXEC_OFF (1U << 0)
#define LLW_RESTRICT_SELF_LOG_NEW_EXEC_ON   (1U << 1)
#define LLW_RESTRICT_SELF_LOG_SUBDOMAINS_OFF (1U << 2)

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
#define LLW_FS_EXECUTE	   (1ULL << 0)	/* ABI 1 */
#define LLW_FS_WRITE_FILE  (1ULL << 1)
#define LLW_FS_READ_FILE   (1ULL << 2)
#define LLW_FS_READ_DIR	   (1ULL << 3)
#define LLW_FS_REMOVE_DIR  (1ULL << 4)
#define LLW_FS_REMOVE_FILE (1ULL << 5)
#define LLW_FS_MAKE_CHAR   (1ULL << 6)
#define LLW_FS_MAKE_DIR	   (1ULL << 7)
#define LLW_FS_MAKE_REG	   (1ULL << 8)
#define LLW_FS_MAKE_SOCK   (1ULL << 9)
#define LLW_FS_MAKE_FIFO   (1ULL << 10)
#define LLW_FS_MAKE_BLOCK  (1ULL << 11)
#define LLW_FS_MAKE_SYM	   (1ULL << 12)
#define LLW_FS_REFER	   (1ULL << 13) /* ABI 2 */
#define LLW_FS_TRUNCATE	   (1ULL << 14) /* ABI 3 */
#define LLW_FS_IOCTL_DEV   (1ULL << 15) /* ABI 5 */

/* Network rights. */
#define LLW_NET_BIND_TCP    (1ULL << 0) /* ABI 4 */
#define LLW_NET_CONNECT_TCP (1ULL << 1) /* ABI 4 */

/* Scopes. */
#define LLW_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define LLW_SCOPE_SIGNAL	       (1ULL << 1) /* ABI 6 */

/* Rights that apply to files (not only directories), ABI 1..3. */
#define LLW_FS_FILE_RIGHTS                                                     \
	(LLW_FS_EXECUTE | LLW_FS_WRITE_FILE | LLW_FS_READ_FILE |               \
	 LLW_FS_TRUNCATE | LLW_FS_IOCTL_DEV)

#endif /* LLW_COMPAT_LANDLOCK_H */
