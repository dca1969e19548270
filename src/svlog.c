/*
 * The network supervisor's voice (supervise-int.h): the blocked-attempt log
 * (syslog and the log file, rate-limited) and the agent note on a
 * caller's stderr (DESIGN.md §12), written so that the supervisor never
 * waits on nor dies of a descriptor the sandbox holds (DESIGN.md §15).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <syslog.h>
#include <unistd.h>

#include "blocked.h"
#include "cleanup.h"
#include "compat/syscall.h"
#include "fdutil.h"
#include "mono.h"
#include "supervise-int.h"
#include "xalloc.h"

/* ---- Logging ---- */

static void
log_write(struct supervisor *sv, const char *line)
{
	size_t plen = strlen(sv->prefix);

	/* syslog's ident is the prefix, so the journal shows the line as
	 * it is in the file. */
	if (strncmp(line, sv->prefix, plen) == 0 && line[plen] == ':')
		syslog(LOG_USER | LOG_WARNING, "%s", line + plen + 2);
	else
		syslog(LOG_USER | LOG_WARNING, "%s", line);
	if (sv->logfd >= 0) {
		_cleanup_free_ char *l = xasprintf("%s\n", line);

		(void)svcall_write_all(sv->logfd, l, strlen(l));
	}
}

static void
log_suppressed(struct supervisor *sv, unsigned long n)
{
	_cleanup_free_ char *l = xasprintf("%s: suppressed %lu", sv->prefix, n);

	log_write(sv, l);
}

void
svlog_fault(struct supervisor *sv, const char *what)
{
	_cleanup_free_ char *l = xasprintf("%s: %s", sv->prefix, what);

	log_write(sv, l);
}

char *
svlog_comm(pid_t pid)
{
	char path[64], *s;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	s = file_read_line(path, 64);
	return s != NULL ? s : xstrdup("?");
}

/*
 * A note into the caller's pipe, through its own description (which may
 * be blocking, in packet mode, a page long, full), without ever waiting:
 * vmsplice(SPLICE_F_NONBLOCK) gives EAGAIN where a write would sleep, and
 * needs no reopening (a pipe of another user's, or one the command made
 * mode 0, takes it too).  vmsplice lends the pipe the pages themselves,
 * read when the reader reads: the note goes from a page of its own that
 * nothing of the supervisor's ever shares, unmapped at once (the pipe
 * keeps it alive).  A note that does not fit is dropped.
 */
static void
note_pipe(int fd, const char *note, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	struct iovec iov;
	void *p;

	if (page <= 0 || len > (size_t)page)
		return;
	p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	memcpy(p, note, len);
	iov = (struct iovec){ .iov_base = p, .iov_len = len };
	(void)vmsplice(fd, &iov, 1, SPLICE_F_NONBLOCK);
	munmap(p, (size_t)page);
}

/*
 * The agent note (DESIGN.md §12): each kind of blocked attempt once per
 * run, on the caller's stderr when that is a pipe, a socket or a regular
 * file (an agent's tool call, a CI log), never a terminal or another
 * device.  The caller holds that descriptor and may do anything to it
 * (DESIGN.md §15): the supervisor never waits on it and never dies of it.
 * A pipe gets it with note_pipe, a socket with MSG_DONTWAIT; SIGPIPE and
 * SIGXFSZ are ignored (monitor_host_signals).  A note that does not fit
 * is dropped.
 */
static void
note_stderr(struct supervisor *sv, int pidfd, enum netpolicy_op op,
	    enum netpolicy_proto proto, const char *target, enum refusal rule)
{
	_cleanup_free_ char *key = NULL, *note = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	size_t len;
	int flags;

	if (!sv->net->log_stderr || pidfd < 0 || sv->n_noted >= SV_MAX_NOTES)
		return;
	key = xasprintf("%s %s %s", netpolicy_op_name(op),
			netpolicy_proto_name(proto), target);
	/* The kinds already seen, at most SV_MAX_NOTED of them: a command
	 * that tries thousands of targets is not looked up in a list that
	 * long (nor noted again past it). */
	if (sv->n_noted_keys >= SV_MAX_NOTED || strv_contains(sv->noted, key))
		return;
	strv_push(&sv->noted, key);
	sv->n_noted_keys++;
	note = blocked_note(netpolicy_op_name(op), netpolicy_proto_name(proto),
			    target, rule, &sv->bounds);
	if (note == NULL)
		return;
	sv->n_noted++;
	fd = (int)sys_pidfd_getfd(pidfd, STDERR_FILENO, 0);
	if (fd < 0 || fstat(fd, &st) < 0 || isatty(fd))
		return;
	/* Only where the caller may write itself: a pipe it holds for
	 * reading is not one to write to. */
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY)
		return;
	len = strlen(note);
	if (S_ISSOCK(st.st_mode)) {
		(void)send(fd, note, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	} else if (S_ISFIFO(st.st_mode)) {
		note_pipe(fd, note, len);
	} else if (S_ISREG(st.st_mode)) {
		(void)svcall_write_all(fd, note, len);
	}
}

void
svlog_blocked(struct supervisor *sv, enum netpolicy_op op,
	      enum netpolicy_proto proto, const char *target, pid_t pid,
	      int pidfd, enum refusal rule)
{
	_cleanup_free_ char *comm = NULL, *line = NULL;
	unsigned long rep;

	note_stderr(sv, pidfd, op, proto, target, rule);
	if (!sv->log)
		return;
	if (!netpolicy_ratelimit_take(&sv->rl, mono_ns(), &rep))
		return;
	if (rep > 0)
		log_suppressed(sv, rep);
	comm = svlog_comm(pid);
	line = netpolicy_log_line(sv->prefix, op, proto, target, pid, comm,
				  rule);
	log_write(sv, line);
}

void
svlog_flush(struct supervisor *sv, bool at_exit)
{
	unsigned long rep;

	if (sv->log &&
	    netpolicy_ratelimit_flush(&sv->rl, mono_ns(), at_exit, &rep))
		log_suppressed(sv, rep);
}
