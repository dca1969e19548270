/*
 * Unprivileged namespaces (layer L3, DESIGN.md §2 and §5): a user
 * namespace mapping the caller 1:1, a mount namespace whose view makes
 * everything not writable by policy read-only and applies the masks of
 * the compiled plan, optionally a pid namespace with a fresh /proc, a
 * private /tmp, a network namespace with only lo up (libnl-3), and an ipc
 * namespace.
 */
#ifndef LLW_NS_H
#define LLW_NS_H

#include <stdbool.h>
#include <stdint.h>

#include "netpolicy.h"
#include "pathtree.h"
#include "access.h"
#include "viewplan.h"

struct maskwatch;

/*
 * Whether this process may create an unprivileged user namespace; when
 * not, 0 and *cause naming the reason and the sysctl to look at.  A
 * short-lived child tries; where clone() alone answers, the child is
 * left to exit and ns_probe_reap() reaps it.
 */
bool ns_available(char **cause);

/* Reap the child ns_available() left, if any (once a plan is made). */
void ns_probe_reap(void);

/* layers_apparmor_fix() with this system's facts: whether llwrap's
 * AppArmor profile is installed, whether this is NixOS, where llwrap's
 * copy of the profile and llwrap itself are. */
char *ns_apparmor_fix(const char *restrict_sysctl, bool userns);

/*
 * What a run that will create the namespaces anyway must know first,
 * without creating one: NS_REFUSED (and *cause) when the test hook
 * refuses user namespaces; NS_PROBE when a namespace may be created and
 * still be useless (AppArmor's restriction), so only ns_available()
 * tells; NS_UNKNOWN otherwise, when ns_unshare() is as good a probe (it
 * fails with the causes ns_available() gives, sysctls included, and
 * changes nothing).  One sysctl read.
 */
enum ns_precheck { NS_REFUSED, NS_UNKNOWN, NS_PROBE };
enum ns_precheck ns_precheck(char **cause);

/*
 * In the calling process: unshare user, mount and ipc namespaces (and net;
 * and pid for the children) and map the caller's uid and gid 1:1.
 * Returns 0 or -errno with *cause; when the kernel refuses the namespaces
 * (-EPERM, nothing changed), *cause is the reason as ns_available() gives
 * it.
 */
int ns_unshare(const struct ns_opts *o, char **cause);

/*
 * In the process that goes on towards exec, after ns_unshare() (inside
 * the pid namespace when o->pid): build the mount view and bring lo up;
 * each mask's mount is told to mw as it is attached (maskwatch_mounted;
 * mw may be NULL).  With mnt_ns (o->pid only), *mnt_ns is a descriptor
 * of the mount namespace made (close-on-exec), or -1 where /proc cannot
 * give one.  Returns 0 or -errno with *cause (and no descriptor).
 */
int ns_setup(const struct ns_opts *o, struct maskwatch *mw, int *mnt_ns,
	     char **cause);
/*
 * In a network namespace of this process's own: bring lo up and give it
 * the n addresses addrs (host routes; loopback ones it has already).
 * libnl-route-3.  Returns 0 or -errno with *cause.
 */
int ns_lo_up(const struct netpolicy_addr *addrs, size_t n, char **cause);

#endif /* LLW_NS_H */
