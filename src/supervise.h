/*
 * Process supervision: the loop a process runs while its child is the
 * sandboxed command (or the pid-namespace init above it), and the network
 * supervisor (layer S, DESIGN.md §6) that mediates connect/bind/sendto/
 * sendmsg through a seccomp user-notification listener.
 *
 * One loop serves every waiting process llwrap has: the outer monitor
 * (which is also the network supervisor when the policy needs one) and
 * pid 1 of a pid namespace (which also reaps orphans).  It forwards the
 * signals sent to it (not those the terminal sends to the whole process
 * group, which the command receives itself) and returns the child's
 * wait status.
 */
#ifndef LLW_SUPERVISE_H
#define LLW_SUPERVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy.h"

/* The network supervisor's state; NULL where nothing is mediated. */
struct supervisor;

/* True when p has rules only the supervisor can enforce. */
bool supervise_needed(const struct policy *p);

/*
 * Whether this kernel and system let the supervisor work: seccomp user
 * notification, pidfd_open and pidfd_getfd, and a Yama ptrace_scope
 * below 2 (pidfd_getfd and process_vm_readv need ptrace access to the
 * sandboxed process).  When not, false and *cause names the reason.
 */
bool supervise_available(char **cause);

/*
 * Why Yama keeps the supervisor out, given the text of
 * /proc/sys/kernel/yama/ptrace_scope: a new message for a scope of 2 or
 * more (or text that is not a scope), NULL when it allows the supervisor
 * (0 or 1; pidfd_getfd(2) then needs what ptrace would).
 */
char *supervise_yama_cause(const char *scope);

/* ---- The rules (pure; tests/unit/test-supervise.c) ---- */

/* An IP address; IPv4-mapped IPv6 addresses are kept as AF_INET. */
struct supervise_addr {
	int family; /* AF_INET or AF_INET6 */
	uint8_t a[16];
	uint16_t port;
};

/* An allow-cidr entry: a prefix and the ports it allows. */
struct supervise_cidr {
	struct supervise_addr net;
	unsigned prefix;
	struct llw_port_range *ports; /* none: the policy's port list */
	size_t n_ports;
	const char *origin;
};

enum supervise_op {
	SUPERVISE_CONNECT,
	SUPERVISE_SEND, /* sendto, sendmsg, sendmmsg with a destination */
	SUPERVISE_BIND,
	SUPERVISE_LISTEN, /* listen() on an unbound socket binds port 0 */
};

enum supervise_proto {
	SUPERVISE_TCP,
	SUPERVISE_UDP,
	SUPERVISE_UNIX,
};

/*
 * Parse "ADDR[/N][:PORTS]" (the allow-cidr syntax of profile.c) into c;
 * an IPv6 prefix inside ::ffff:0:0/96 becomes the IPv4 one.  Returns 0 or
 * -EINVAL.  c->ports is allocated; free it.
 */
int supervise_parse_cidr(const char *s, struct supervise_cidr *c);

/* Parse an address, "[V6]" allowed, port 0.  Returns 0 or -EINVAL. */
int supervise_parse_addr(const char *s, struct supervise_addr *a);

/* Parse a listen value "ADDR:PORT" or "[V6]:PORT".  0 or -EINVAL. */
int supervise_parse_listen(const char *s, struct supervise_addr *a);

/*
 * Read a sockaddr of len bytes as an IP destination; an IPv4-mapped
 * IPv6 address becomes AF_INET.  Returns 0, or -EINVAL (too short) or
 * -EAFNOSUPPORT (not AF_INET or AF_INET6).
 */
int supervise_addr_from_sockaddr(const void *sa, size_t len,
				 struct supervise_addr *a);

/* True when a lies inside c's prefix (ports are not looked at). */
bool supervise_cidr_contains(const struct supervise_cidr *c,
			     const struct supervise_addr *a);

/* "203.0.113.7:443" or "[::1]:443"; a new string. */
char *supervise_addr_format(const struct supervise_addr *a);

/* The compiled rules the supervisor decides with. */
struct supervise_rules;

/*
 * Compile p's supervisor rules; resolvers are the DNS servers port 53
 * may reach (see supervise_resolvers).  Returns 0 or -EINVAL with *cause
 * naming the bad value and its origin.
 */
int supervise_rules_new(const struct policy *p, char *const *resolvers,
			struct supervise_rules **out, char **cause);
void supervise_rules_free(struct supervise_rules *r);

/*
 * The decision for an IP operation: NULL when allowed, else the name of
 * the rule that refused it ("filtered/no-cidr", "filtered/port",
 * "filtered/local", "filtered/dns", "filtered/listen",
 * "filtered/bind-port", "filtered/proxy").
 *
 * Destinations (connect, send; see supervise_addr_destination): port 53
 * only to a resolver; a destination inside an allow-cidr entry on its
 * ports (its own, or else the policy's connect-tcp / connect-udp list;
 * "filtered/port" when none holds the port); outside every entry, a
 * destination that is not local (supervise_addr_local, else
 * "filtered/local") on the port lists ("filtered/no-cidr" when there
 * are entries, else "filtered/port").  So entries add reach, and a
 * profile that wants only its entries has no connect ports.  Binds (see
 * supervise_bind_address): with listen entries, exactly one of them, or
 * port 0 on loopback or a listen address when bind-tcp / bind-udp holds
 * 0; without, loopback only ("filtered/listen") on the bind port lists,
 * and UDP port 0 there always (what a send would autobind).  In net host
 * mode, anything but DNS outside the resolvers.  When the supervisor
 * only stands in for Landlock's port rules (the policy does not need it:
 * !supervise_needed), local destinations and binds are decided by the
 * port lists alone, as Landlock would.  With proxy = yes (mode
 * filtered), the proxy's address is reached, DNS is not
 * ("filtered/proxy"), and a destination neither local nor inside an
 * entry is "filtered/proxy": the port lists no longer reach it.
 */
const char *supervise_decide(const struct supervise_rules *r,
			     enum supervise_op op, enum supervise_proto proto,
			     const struct supervise_addr *a);

/*
 * The origin of the allow-cidr entry that lets a TCP connect reach a
 * (a->port set; an entry without ports: the connect-tcp list), or NULL.
 * What the proxy asks for IP literals and rebinding (proxy.h).
 */
const char *supervise_cidr_allows(const struct supervise_rules *r,
				  const struct supervise_addr *a);

/*
 * proxy = yes: the address llwrap's proxy listens on, which TCP
 * connects may reach (before it is set, none).
 */
void supervise_rules_set_proxy(struct supervise_rules *r,
			       const struct supervise_addr *a);

/*
 * As a destination, the unspecified address (0.0.0.0, ::) reaches this
 * host's loopback: make it 127.0.0.1 or ::1, which every rule then sees.
 */
void supervise_addr_destination(struct supervise_addr *a);

/*
 * Whether a is this host or one of its networks: loopback, unspecified,
 * RFC 1918, link-local, CGNAT (100.64/10), multicast and broadcast, ULA
 * (fc00::/7), fe80::/10.  A port rule never reaches these.
 */
bool supervise_addr_local(const struct supervise_addr *a);

/*
 * A bind to the unspecified address becomes loopback (the sandbox's
 * listeners never serve the network) unless a listen entry names that
 * address, the network mode is host, or the supervisor only stands in
 * for Landlock's port rules.  Returns true when a changed.
 */
bool supervise_bind_address(const struct supervise_rules *r,
			    struct supervise_addr *a);

/*
 * The DNS servers: p->dns, or when it is empty the nameserver lines of
 * resolv_conf (the text of /etc/resolv.conf; NULL: none).  A new vector.
 */
char **supervise_resolvers(const struct policy *p, const char *resolv_conf);

/* ---- The blocked-attempt log (pure parts) ---- */

/* CLOCK_MONOTONIC in nanoseconds, the rate limit's clock. */
uint64_t supervise_now_ns(void);

/* A token bucket: burst tokens, refilled at rate per second. */
struct supervise_ratelimit {
	double tokens;
	uint64_t last_ns;
	unsigned burst, rate;
	unsigned long suppressed;
};

void supervise_ratelimit_init(struct supervise_ratelimit *rl, unsigned burst,
			      unsigned rate, uint64_t now_ns);

/*
 * Take a token at now_ns: true when a line may be written.  When lines
 * were suppressed before and a token is available again, *report is set
 * to their number (write "PREFIX: suppressed N" first) and the count
 * restarts; otherwise *report is 0.
 */
bool supervise_ratelimit_take(struct supervise_ratelimit *rl, uint64_t now_ns,
			      unsigned long *report);

/*
 * Whether the suppressed count should be reported now (a token is back,
 * or at_exit); sets *report and restarts the count like _take.
 */
bool supervise_ratelimit_flush(struct supervise_ratelimit *rl, uint64_t now_ns,
			       bool at_exit, unsigned long *report);

/* The prefix: fmt ("llwrap-%n-blocked" when NULL) with %n the name. */
char *supervise_log_prefix(const char *fmt, const char *name);

/*
 * One log line, without newline:
 * "PREFIX: connect tcp 203.0.113.7:443 pid=4242 comm=curl rule=R".
 * Control characters and spaces in target and comm become '?'.
 */
char *supervise_log_line(const char *prefix, enum supervise_op op,
			 enum supervise_proto proto, const char *target,
			 pid_t pid, const char *comm, const char *rule);

/*
 * The per-instance log file: ${XDG_STATE_HOME}/llwrap/NAME.log, with
 * XDG_STATE_HOME defaulting to ~/.local/state, from envp; NULL when
 * neither is set.  Characters of name outside [A-Za-z0-9._-] become '_'.
 */
char *supervise_log_path(const char *name, char *const *envp);

/* Lines describing the supervisor's rules and log, for --explain. */
char **supervise_describe(const struct policy *p, char *const *envp);

/* ---- The supervisor process ---- */

/*
 * Everything acquired before the fork: the rules, the notification
 * filter, the hand-over socket pair and the open log file.  Returns 0 or
 * -errno with *cause.
 */
int supervise_new(const struct policy *p, char *const *envp,
		  struct supervisor **out, char **cause);
void supervise_free(struct supervisor *sv);

/* proxy = yes: the address of llwrap's proxy (proxyserve.h), which the
 * command's TCP connects may reach.  Call before fork. */
void supervise_set_proxy(struct supervisor *sv, const struct supervise_addr *a);

/*
 * --learn: also observe open, openat, creat, execve, execveat, mkdir and
 * mkdirat, writing "r PATH", "w PATH" or "x PATH" (absolute) to fd for
 * each, and let the kernel run them (Landlock decides).  Call after
 * supervise_new, before fork.  Returns 0, or -errno with *cause.
 */
int supervise_learn(struct supervisor *sv, int fd, char **cause);

/*
 * In the process that goes on to exec, right after fork: close what
 * belongs to the supervisor.
 */
void supervise_child_forked(struct supervisor *sv);

/*
 * In the process that goes on to exec, after Landlock and before the
 * main seccomp filter: load the notification filter, hand its listener
 * to the supervisor and wait for the supervisor's go-ahead.  Returns 0,
 * or -errno with *cause.
 */
int supervise_child_attach(struct supervisor *sv, char **cause);

/*
 * In the supervisor, after fork: receive the listener and check that the
 * supervisor can reach the sandboxed process; tell it to go on or to
 * stop.  Returns 0, or -errno with *cause (the child then exits 125).
 */
int supervise_parent_attach(struct supervisor *sv, char **cause);

/*
 * Block the signals the loop forwards, so none is lost between fork and
 * supervise_run.  Call before fork(); the child calls
 * supervise_unblock_signals() before it goes on.
 */
void supervise_block_signals(void);
void supervise_unblock_signals(void);

/*
 * Wait for child, forwarding signals to it; when sv is not NULL, also
 * answer its notifications.  With reap_all (pid 1 of a namespace) every
 * child is reaped.  Returns 0 and the child's wait status, or -errno.
 */
int supervise_run(struct supervisor *sv, pid_t child, bool reap_all,
		  int *wstatus);

/*
 * Job control: a waiting process stops itself when its child stops, so
 * the shell sees the job stopped, and the SIGCONT that resumes it is
 * forwarded.  pid 1 of a pid namespace cannot stop itself: it writes the
 * stop signal to report_fd instead, and the monitor above it, watching
 * the other end (watch_fd), stops.  -1 for either means none.
 */
void supervise_stop_fds(int watch_fd, int report_fd);

/*
 * Tie the lives of a waiting process and the child it forked together,
 * so the command never outlives the process that supervises it.
 *
 * supervise_tie_prepare(), before fork(): a pidfd of this process for
 * the child (-errno on failure).  supervise_tie_child(), in the child at
 * once: SIGKILL when the parent dies (PR_SET_PDEATHSIG), then a check
 * that the parent did not die before that (its pidfd is not readable;
 * getppid() cannot tell across a pid namespace); closes parent_pidfd.
 * Returns 0, or -errno with *cause.  supervise_tie_parent(), in the
 * parent: close parent_pidfd, and on a fatal signal (a crash, abort(),
 * or one sent by someone) SIGKILL the child before dying of it, which
 * with a pid namespace ends every process in it.
 */
int supervise_tie_prepare(void);
int supervise_tie_child(int parent_pidfd, char **cause);
void supervise_tie_parent(int parent_pidfd, pid_t child);

/* The exit status for a wait status: the code, or 128+N for signal N. */
int supervise_exit_status(int wstatus);

#endif /* LLW_SUPERVISE_H */
