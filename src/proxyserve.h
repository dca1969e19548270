/*
 * proxyserve: llwrap's HTTP(S) proxy process (DESIGN.md §6.1).
 *
 * Started before the sandbox is built, outside it: a process of its own
 * (forked from llwrap, tied to it by PR_SET_PDEATHSIG) listening on
 * 127.0.0.1 on a port the kernel picks.  For each client it reads the
 * request (httpreq.h), decides (proxy.h) with the policy's allow-host
 * and allow-cidr entries, resolves the name itself (/etc/hosts, then
 * the nameservers of /etc/resolv.conf or the dns key), refuses
 * addresses in local ranges no allow-cidr entry holds (rebinding),
 * connects, checks the TLS server name of a tunnel against the CONNECT
 * name (tlshello.h), and relays bytes both ways, one thread a direction.
 * Refusals are answered 403 with the reason, and logged as the
 * supervisor logs (DESIGN.md §6) to syslog and the instance's log file,
 * naming the client's pid and command as the supervisor told them.  The
 * process confines itself before it serves (ruleset_confine_helper,
 * filter_confine_helper).
 */
#ifndef LLW_PROXYSERVE_H
#define LLW_PROXYSERVE_H

#include <stdint.h>
#include <sys/types.h>

#include "netpolicy.h"
#include "supervise.h"

struct proxyserve;

/*
 * Listen and fork the proxy process, deciding with np, the plan's
 * network side (borrowed: it outlives the proxy).  Call before the
 * command's sandbox is built and before any namespace is entered.
 * Returns 0, or -errno with *cause.
 */
int proxyserve_start(const struct net_plan *np, char *const *envp,
		     struct proxyserve **out, char **cause);

/* The address the proxy listens on (127.0.0.1 and its port). */
void proxyserve_addr(const struct proxyserve *ps, struct netpolicy_addr *a);

/*
 * The supervisor's end of the channel (channel.h) on which the proxy
 * learns who its clients are (supervise_set_proxy), handed to the
 * caller, who owns it then: one PROXYSERVE_NOTE frame per client, the
 * line "PORT PID COMM\n" (proxy_clients_add), sent with MSG_DONTWAIT.
 */
int proxyserve_take_note_fd(struct proxyserve *ps);
#define PROXYSERVE_NOTE 1

/* End the proxy process and wait for it; NULL is allowed. */
void proxyserve_stop(struct proxyserve *ps);

#endif /* LLW_PROXYSERVE_H */
