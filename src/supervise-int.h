/*
 * The network supervisor's insides, shared by the files it is split into
 * (DESIGN.md §8); nothing outside them includes this.  supervise.h is
 * the supervisor's interface to the rest of llwrap.
 *
 *  supervise.c  the engine: state, the hand-over of the listener, the
 *               dispatch table from syscall to handler, answers, pending
 *               calls and the monitor loop's part
 *  svcall.c     call plumbing: the caller's memory, pidfd, socket and
 *               paths; validity, ADDFD/CONTINUE sentinels, queueing
 *  svlog.c      the blocked-attempt log and the agent notes
 *  svaddr.c     addresses: connect, bind and listen decided and performed
 *  svunix.c     unix sockets: pathname and abstract destinations, binds
 *  svnames.c    names: llwrap's resolver (its records, the socket swap)
 *               and the addresses learned from it
 *  svsend.c     sendto, sendmsg, sendmmsg (the copy itself: msgcopy.h)
 *  svlearn.c    --learn's observation and the watch judge's side
 */
#ifndef LLW_SVINT_H
#define LLW_SVINT_H

#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>

#include "cmsg.h"
#include "netpolicy.h"
#include "suggest.h"
#include "supervise.h"

/* Calls waiting for their socket (a connect in progress, a full send
 * buffer); more get EAGAIN. */
#define SV_MAX_PENDING (SUPERVISE_POLL_MAX - 3)
/* With llwrap's resolver: local addresses allowed names gave, sockets
 * swapped for the resolver's, and who asked from which port, each the
 * most recent this many. */
#define SV_MAX_REBIND  64
#define SV_MAX_SWAPPED 256
#define SV_MAX_ASKERS  64
/* Relayed connections whose caller a refusal names (relay.h). */
#define SV_MAX_RELAYED 256
/* Sockets the supervisor made and holds, without pidfd_getfd
 * (svcall_open): the most recent this many. */
#define SV_MAX_HELD 256
/* Of them inotify instances, at most (the user's instances are few:
 * fs.inotify.max_user_instances, 128 by default). */
#define SV_MAX_HELD_INOTIFY 16
/* Sockets let go (svcall_unhold, or an older one held): the most recent
 * this many, whose calls have no substitute any more. */
#define SV_MAX_GONE 1024
/* A stream socket the supervisor connected is held while it connects, at
 * most SV_HOLD_CONNECTING_NS, and SV_HOLD_CONNECTED_NS once connected:
 * a second connect (Ruby's and Perl's idiom after EINPROGRESS) then
 * gets the kernel's answer (EALREADY, EISCONN) rather than a new
 * connection.  Then it is let go: the caller's close must reach the
 * peer. */
#define SV_HOLD_CONNECTING_NS (30ULL * 1000 * 1000 * 1000)
#define SV_HOLD_CONNECTED_NS  (50ULL * 1000 * 1000)
/* Agent notes per run: each kind of attempt once, at most this many. */
#define SV_MAX_NOTES 32
/* The kinds of attempt remembered for the notes. */
#define SV_MAX_NOTED 256

enum pending_kind {
	PENDING_CONNECT, /* wait for POLLOUT, answer with SO_ERROR */
	PENDING_RETRY,	 /* handle the notification again on POLLOUT */
	PENDING_TIMER,	 /* handle it again after a short delay */
};

struct pending {
	enum pending_kind kind;
	struct seccomp_notif req;
	int sock;
	uint64_t deadline_ns;
};

/* An entry of the unix allow-list (svunix.c). */
struct unix_allowed {
	char *path; /* as resolved at start: no symlink, or NULL */
	dev_t dev;  /* the socket there at start, when have */
	ino_t ino;
	bool have;
	bool sandbox_can_swap; /* a directory on path is one the sandbox
				* can change: only the inode of the start */
};

struct supervisor {
	const struct net_plan *net; /* the plan's network side */
	const struct plan *fs;	    /* the compiled paths (plan_decide) */
	struct netpolicy_rules *rules;
	scmp_filter_ctx notify; /* built under --learn only */
	int sock[2];		/* [0] the supervisor's end, [1] the child's */
	/* The guardian's word that its watch is set up, waited for before
	 * the go-ahead (supervise_wait_for), or -1. */
	int ready;
	int listener;
	int logfd;
	char *prefix;
	bool log;
	struct netpolicy_ratelimit rl;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	struct pending *pending;
	size_t n_pending, max_pending; /* pending holds max_pending */
	struct netpolicy_own *own;     /* the sockets the sandbox bound */
	/* The unix allow-list, resolved before the command ran (svunix.c):
	 * what a connect may reach is decided against these inodes, never
	 * by looking a listed path up again where the sandbox could have
	 * swapped it. */
	struct unix_allowed *unix_allowed;
	size_t n_unix_allowed;
	/* This host's addresses and on-link prefixes (local, as loopback
	 * and private space are), kept current. */
	struct sockdiag_host *host;
	/* The socket whose bind or listen is being decided (port_shared);
	 * one call at a time. */
	int deciding;
	/* The listener private_destination found at a destination it
	 * rewrote, for this call's decision (own_socket): one lookup, not
	 * two.  Cleared once decided. */
	bool found_set;
	struct netpolicy_addr found_at;
	uint64_t found_cookie;
	char **noted; /* the attempts noted on a caller's stderr */
	size_t n_noted, n_noted_keys;
	struct suggest_bounds bounds; /* what a note's suggestion may reach */
	int learn_fd;	      /* --learn: where observed paths go, or -1 */
	bool polled_listener; /* supervise_poll_fds gave the listener */
	/* proxy = yes: its address, and where to tell it which process
	 * each of its clients is ("PORT PID COMM" lines), or -1. */
	struct netpolicy_addr proxy;
	int proxy_note_fd;
	/* inotify_add_watch's judge, under the sandbox's Landlock ruleset
	 * (watchjudge.h); its process starts at the first watch.  Not
	 * asked where the view decides (watches false:
	 * supervise_view_watches). */
	struct watchjudge *judge;
	bool watches;
	/* With pidfd_getfd: the inotify instance of the last watch, taken
	 * from the caller, or -1 (svlearn_inotify_add_watch). */
	int watch_ifd;
	/* The resolvers (port 53 reaches them, or with the stub, their
	 * sockets are swapped). */
	struct netpolicy_addr *dns;
	size_t n_dns;
	/* allow-host through llwrap's resolver (dnsstub.h, borrowed): the
	 * addresses learned from its answers, those /etc/hosts gives
	 * allowed names, the local ones allowed names' answers gave (not
	 * learned: rebinding), the sockets swapped (by cookie: they stay
	 * the stub's), and who asked from which port of the stub's
	 * namespace (its pidfd, for the note). */
	struct dnsstub *stub;
	struct hostaddrs *learned;
	struct hostdns_fixed *fixed;
	size_t n_fixed;
	struct netpolicy_addr rebind[SV_MAX_REBIND];
	size_t n_rebind, next_rebind;
	uint64_t swapped[SV_MAX_SWAPPED];
	size_t n_swapped, next_swapped;
	struct asker {
		uint16_t port;
		uint8_t proto;
		pid_t pid;
		int pidfd;
	} askers[SV_MAX_ASKERS];
	size_t next_asker;
	/* The name check on connections to learned addresses (relay.h):
	 * the relay's channel (-1: none; with the stub, a connect that
	 * needs it is refused: filtered/relay; the resolver forks the
	 * relay, relay_spawn), whether it was told to set up (at the
	 * first connect it relays: relay_go), the loopback listener each
	 * relayed connection reaches the relay through (the caller's own
	 * socket connected to it, or a pair's client end), and who made
	 * each relayed connection. */
	int relay;
	bool relay_up;
	int relay_listener;
	uint16_t relay_port;
	uint32_t relay_next_id;
	struct relayed {
		uint32_t id;
		pid_t pid;
		int pidfd; /* -1 when unused */
		struct netpolicy_addr dst;
	} relayed[SV_MAX_RELAYED];
	bool polled_relay; /* supervise_poll_fds gave the relay's reports */
	bool polled_stub;  /* supervise_poll_fds gave the stub's records */
	bool stub_gone;	   /* it ended: no more records, no more swaps */
	/* The command's first process (or pid 1 above it), and whether a pid
	 * namespace confines the pids it names (supervise_set_command). */
	pid_t root;
	bool pidns;
	/* Whether pidfd_getfd takes the caller's sockets (svcall_reach);
	 * else the substitute: sockets the supervisor makes, installs at the
	 * caller's number (SECCOMP_IOCTL_NOTIF_ADDFD) and, for UDP, holds
	 * for the sends that follow, by inode. */
	bool getfd;
	/* What the hand-over found refused (supervise_refusal). */
	struct supervise_refused refused;
	struct held {
		uint64_t ino;  /* a socket's; 0 for an inotify instance */
		int sock;      /* -1 when unused */
		uint16_t port; /* the port it was bound to when held, or 0 */
		/* A stream socket connected: let go at this time, or once
		 * connected and SV_HOLD_CONNECTED_NS later; 0: held until
		 * let go otherwise. */
		uint64_t expire_ns;
	} held[SV_MAX_HELD];
	size_t next_held;
	uint64_t gone[SV_MAX_GONE];
	size_t next_gone;
	bool expiring; /* a held socket has expire_ns (svcall_expire) */
	uint64_t expire_check_ns; /* when svcall_expire looks next */
};

/* ---- One mediated call ---- */

/* What the handler learnt about a call; sock is the caller's socket. */
struct call {
	const struct seccomp_notif *req;
	pid_t pid;
	int pidfd;
	int sock;
	int domain, type;
	bool nonblock;
	/* Without pidfd_getfd: sock is a new socket of the caller's kind
	 * (made), to be installed in the caller's place once decided
	 * (svcall_install); or one the supervisor holds (held). */
	bool made, held, cloexec;
	bool keep; /* hold sock once installed (svcall_install) */
	/* Local fds to close when done (SCM_RIGHTS copies). */
	int *fds;
	size_t n_fds;
};

/* Sentinel results of a handler. */
#define CALL_PENDING (-100000) /* answered later */
#define CALL_GONE    (-100001) /* the caller is gone: no answer */
/* observed (--learn): let the kernel run it */
#define CALL_CONTINUE (-100002)
/* svcall_open without pidfd_getfd: a kind of socket or a call that has
 * no substitute (svcall_no_getfd). */
#define SVCALL_NO_SUBSTITUTE (-100003)

/* An address copied from the caller, and the one to perform with. */
struct addr_buf {
	union {
		struct sockaddr sa;
		struct sockaddr_storage ss;
		struct sockaddr_un un;
	} u;
	socklen_t len;
	int opath; /* an O_PATH fd the rewritten unix address points at */
};

enum {
	SWAP_NO,      /* not a resolver's port 53: decide as usual */
	SWAP_DONE,    /* swapped: c->sock is the stub's socket now */
	SWAP_ALREADY, /* the stub's socket already: it reaches nothing
		       * else, perform the call as it is */
};

/* ---- svcall.c: call plumbing ---- */

/* Read (write) len bytes at addr of process pid: 0, -EFAULT, or
 * CALL_GONE when the process is gone (read). */
int svcall_read(pid_t pid, uint64_t addr, void *buf, size_t len);
int svcall_write(pid_t pid, uint64_t addr, const void *buf, size_t len);
/* A NUL-terminated string of the caller's, at most PATH_MAX bytes;
 * NULL when it cannot be read. */
char *svcall_read_string(pid_t pid, uint64_t addr);
/*
 * At the hand-over: whether the supervisor can reach the command's
 * process pid (not exec'd yet: pidfd_open) and read its memory, and the
 * form every later read and write takes: process_vm_readv, else
 * /proc/PID/mem; and whether pidfd_getfd takes its descriptor fd
 * (sv->getfd), else the caller's sockets are substituted (svcall_open).
 * 0, or -errno with the steps refused noted in *r.
 */
int svcall_reach(struct supervisor *sv, pid_t pid, int fd,
		 struct supervise_refused *r);
/* Whether the notification is still pending: 0 or CALL_GONE.  Checked
 * after everything read from the caller and before acting on it. */
int svcall_valid(const struct supervisor *sv, const struct call *c);
/* err, or CALL_GONE when the caller went away meanwhile. */
int svcall_error(const struct supervisor *sv, const struct call *c, int err);
/* The caller's ids (for SCM_CREDENTIALS) and its thread group id. */
int svcall_ids(const struct call *c, struct cmsg_sender *s, pid_t *tgid);
/* A pidfd for the caller's descriptors, or -errno. */
int svcall_pidfd(const struct call *c);
/* The caller's socket (its first argument) into c, and what kind it
 * is: 0, -errno or CALL_GONE. */
int svcall_open(struct supervisor *sv, struct call *c);
enum netpolicy_proto svcall_proto(const struct call *c);
/*
 * Without pidfd_getfd: put c->sock, a socket the supervisor made
 * (c->made), at the caller's descriptor number (SECCOMP_IOCTL_NOTIF_ADDFD
 * with SETFD), once the call is decided and before it is performed; a UDP
 * socket is held for the sends that follow.  Nothing where c->sock is the
 * caller's own or one held.  0, -errno or CALL_GONE.
 */
int svcall_install(struct supervisor *sv, struct call *c);
/*
 * inotify_add_watch's instance (its first argument) into c->sock: the
 * caller's (pidfd_getfd), or without it the instance the supervisor made
 * for it before and holds, or a new one where the caller's has no watch
 * yet (c->made: install it once the watch is added).  0, -errno or
 * CALL_GONE.
 */
int svcall_inotify(struct supervisor *sv, struct call *c);
/* Hold c->sock, installed at the caller's number (by svcall_install, or
 * the resolver's swap), for the calls that follow: the bound socket's
 * listen or connect, a UDP socket's sends; without pidfd_getfd only.
 * The most recent SV_MAX_HELD: an older one is let go (its next call is
 * made on a new socket, as for one never bound). */
void svcall_hold(struct supervisor *sv, const struct call *c);
/* No longer hold c->sock (a listener). */
void svcall_unhold(struct supervisor *sv, const struct call *c);
/* Hold c->sock, a stream socket whose connect the supervisor started
 * (connected: already connected), for a moment (SV_HOLD_*_NS). */
void svcall_hold_connect(struct supervisor *sv, const struct call *c,
			 bool connected);
/* Let go of the held sockets whose moment passed (now); sv->expiring
 * says whether some remain. */
void svcall_expire(struct supervisor *sv, uint64_t now);
/*
 * Before a bind to a, on a socket the supervisor made: let go of each
 * socket it holds that is bound to the same port and neither listens nor
 * is connected, the port being the caller's to reuse where it closed
 * that socket (bind, close, bind again; while the caller keeps it, the
 * bind fails as it would have).
 */
void svcall_release_port(struct supervisor *sv, const struct call *c,
			 const struct sockaddr *a, socklen_t len);
/* Without pidfd_getfd, a call with no substitute: logged and refused
 * (filtered/no-getfd). */
int svcall_no_getfd(struct supervisor *sv, struct call *c,
		    enum netpolicy_op op);
/* Close what c holds. */
void svcall_done(struct call *c);
/* Answer c later (when its socket is writable, or a moment passed):
 * CALL_PENDING, or -EAGAIN when too many wait. */
int svcall_queue(struct supervisor *sv, struct call *c, enum pending_kind kind);
/* The caller's root (O_PATH) and path made absolute in its view. */
int svcall_root_path(pid_t pid, const char *path, int *root, char **abs);
/* path opened O_PATH as process pid sees it (with parent, its directory,
 * and the last component in *base): the fd or -errno. */
int svcall_open_path(pid_t pid, const char *path, bool parent, char **base);
/* Write all of buf to fd: 0 or -errno. */
int svcall_write_all(int fd, const void *buf, size_t len);
/* connect(2) of a socket the caller holds, bounded in time (EINTR). */
int svcall_connect(int sock, const struct sockaddr *sa, socklen_t len);
/* The calls that name another process by pid (filter_pids). */
int svcall_pid_call(struct supervisor *sv, struct call *c);

/* ---- svlog.c: the log and the agent notes ---- */

/* A blocked attempt: the agent note on the caller's stderr (pidfd) and
 * the rate-limited log line. */
void svlog_blocked(struct supervisor *sv, enum netpolicy_op op,
		   enum netpolicy_proto proto, const char *target, pid_t pid,
		   int pidfd, enum refusal rule);
/* Log how many lines the rate limit suppressed, when due (or at_exit). */
void svlog_flush(struct supervisor *sv, bool at_exit);
/* A fault of the supervisor's own that the run goes on without (the
 * resolver could not start at the first query): to syslog and the log
 * file, whatever log-blocked says, never rate-limited. */
void svlog_fault(struct supervisor *sv, const char *what);
/* The name of process pid ("?" when unknown). */
char *svlog_comm(pid_t pid);

/* ---- svaddr.c: connect, bind, listen ---- */

int svaddr_connect(struct supervisor *sv, struct call *c);
int svaddr_bind(struct supervisor *sv, struct call *c);
int svaddr_listen(struct supervisor *sv, struct call *c);
/* Decide on address a for op on the caller's socket (and rewrite it
 * where the supervisor must): 0 to perform the call, else -errno. */
int svaddr_check(struct supervisor *sv, const struct call *c,
		 enum netpolicy_op op, struct addr_buf *a);
/* -EPERM, logged, when the caller's socket is source-routed; else 0. */
int svaddr_check_route(struct supervisor *sv, const struct call *c,
		       enum netpolicy_op op, const struct addr_buf *a);
/* Copy the caller's address (len bytes at ptr) into a. */
int svaddr_read(const struct call *c, uint64_t ptr, uint64_t len,
		struct addr_buf *a);
/* Bind a UDP socket that reuses ports before the kernel autobinds it. */
int svaddr_udp_autobind(struct supervisor *sv, const struct call *c);

/* ---- svunix.c: unix sockets ---- */

int svunix_destination(struct supervisor *sv, const struct call *c,
		       struct addr_buf *a, enum refusal *rule);
int svunix_bind(struct supervisor *sv, struct call *c, struct addr_buf *a);
/* Remember a unix socket the sandbox bound (path_st: the inode a
 * pathname bind made; NULL: abstract). */
void svunix_record(struct supervisor *sv, int sock, const struct stat *path_st);
/* The path of a pathname unix address, NUL-terminated. */
char *svunix_path(const struct addr_buf *a);
void svunix_allow_init(struct supervisor *sv);
void svunix_allow_free(struct supervisor *sv);

/* ---- svnames.c: llwrap's resolver and learned addresses ---- */

/* A connect or send to a resolver's port 53: a SWAP_* or -errno. */
int svnames_swap(struct supervisor *sv, struct call *c,
		 const struct addr_buf *a, bool connected);
/* Take the resolver's records (before any decision). */
void svnames_drain(struct supervisor *sv);
/* A TCP connect to a learned address, allowed: through the relay (its
 * socket installed at the caller's number) when a name must be checked:
 * a SWAP_* or -errno. */
int svnames_relay(struct supervisor *sv, struct call *c,
		  const struct addr_buf *a);
/* A UDP destination the decision allowed: REFUSAL_QUIC for QUIC to
 * a learned address (its name is not checked), else REFUSAL_NONE. */
enum refusal svnames_datagram(struct supervisor *sv,
			      const struct netpolicy_addr *ip);
/* Take the relay's reports (refusals: logged and noted). */
void svnames_relay_drain(struct supervisor *sv);
/* Close the relay's channel, listener and callers' pidfds. */
void svnames_relay_close(struct supervisor *sv);
/* netpolicy_lookup's named and host_local. */
enum netpolicy_named svnames_lookup(void *ctx, const struct netpolicy_query *q);
bool svnames_host_local(void *ctx, const struct netpolicy_addr *a);

/* ---- svsend.c: sends ---- */

int svsend_sendto(struct supervisor *sv, struct call *c);
int svsend_sendmsg(struct supervisor *sv, struct call *c);
int svsend_sendmmsg(struct supervisor *sv, struct call *c);

/* ---- svlearn.c: --learn and inotify ---- */

int svlearn_observe(struct supervisor *sv, struct call *c);
int svlearn_inotify_add_watch(struct supervisor *sv, struct call *c);

#endif /* LLW_SVINT_H */
