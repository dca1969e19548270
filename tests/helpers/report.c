#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

const char *report_program = "probe";
const char *probe_name = "?";

int
succeed(const char *fmt, ...)
{
	va_list ap;

	printf("SUCCEEDED %s", probe_name);
	if (fmt && *fmt) {
		putchar(' ');
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	putchar('\n');
	fflush(stdout);
	return OK;
}

int
deny_err(const char *step, int err)
{
	const char *name = strerrorname_np(err);
	char buf[32];

	if (name == NULL) {
		snprintf(buf, sizeof(buf), "E%d", err);
		name = buf;
	}
	fprintf(stderr, "%s: %s: %s: %s\n", report_program, probe_name, step,
		strerror(err));
	printf("DENIED %s errno=%s (%s)\n", probe_name, name, strerror(err));
	fflush(stdout);
	return DENIED;
}

int
deny(const char *step)
{
	return deny_err(step, errno);
}

int
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", report_program, probe_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return USAGE;
}
