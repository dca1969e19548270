/*
 * The result protocol of the probe helpers (probe, netprobe): one line on
 * stdout, "SUCCEEDED NAME [detail]" or "DENIED NAME errno=ENAME (text)",
 * and an exit status the shell tests read: 0 the operation worked, 1 it
 * failed with an errno, 2 the probe itself was misused or could not set
 * up.  The failing step also goes to stderr, for the test's diagnostics.
 */
#ifndef LLW_TESTS_REPORT_H
#define LLW_TESTS_REPORT_H

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

#endif /* LLW_TESTS_REPORT_H */
