/*
 * What the probe helpers (probe, netprobe) share: argument parsing, and
 * the result protocol: one line on
 * stdout, "SUCCEEDED NAME [detail]" or "DENIED NAME errno=ENAME (text)",
 * and an exit status the shell tests read: 0 the operation worked, 1 it
 * failed with an errno, 2 the probe itself was misused or could not set
 * up.  The failing step also goes to stderr, for the test's diagnostics.
 */
#ifndef LLW_TESTS_REPORT_H
#define LLW_TESTS_REPORT_H

#include <netinet/in.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/un.h>

#define OK     0
#define DENIED 1
#define USAGE  2

/* Set by main: the program ("probe") and the probe being run. */
extern const char *report_program;
extern const char *probe_name;

/* Print SUCCEEDED with an optional detail; returns OK. */
int succeed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print DENIED for errno err, step naming the failing call; returns
 * DENIED.  deny() takes the current errno. */
int deny_err(const char *step, int err);
int deny(const char *step);

/* Explain a misuse on stderr; returns USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A whole number (strtoll base 0) in *out: 0, or USAGE said on stderr. */
int parse_long(const char *s, long long *out);

union addr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
	struct sockaddr_un un;
};

/* An IPv4 or IPv6 HOST and a PORT (0-65535) in *a and *len: 0, or USAGE
 * said on stderr. */
int parse_inet(const char *host, const char *port, union addr *a,
	       socklen_t *len);

/* A unix socket NAME in *a and *len, a pathname or (abstract) one in the
 * abstract namespace: 0, or USAGE said on stderr when it is too long. */
int unix_addr(const char *name, bool abstract, union addr *a, socklen_t *len);

#endif /* LLW_TESTS_REPORT_H */
