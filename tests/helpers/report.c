#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

int
parse_long(const char *s, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 0);
	if (errno || end == s || *end)
		return usage_error("not a number: %s", s);
	return 0;
}

int
parse_inet(const char *host, const char *port, union addr *a, socklen_t *len)
{
	long long p;

	if (parse_long(port, &p))
		return USAGE;
	if (p < 0 || p > 65535)
		return usage_error("bad port: %s", port);
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, host, &a->in.sin_addr) == 1) {
		a->in.sin_family = AF_INET;
		a->in.sin_port = htons((uint16_t)p);
		*len = sizeof(a->in);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &a->in6.sin6_addr) == 1) {
		a->in6.sin6_family = AF_INET6;
		a->in6.sin6_port = htons((uint16_t)p);
		*len = sizeof(a->in6);
		return 0;
	}
	return usage_error("not an IPv4 or IPv6 address: %s", host);
}

int
unix_addr(const char *name, bool abstract, union addr *a, socklen_t *len)
{
	size_t n = strlen(name), off = abstract ? 1 : 0;

	memset(a, 0, sizeof(*a));
	if (n + off + 1 > sizeof(a->un.sun_path))
		return usage_error("unix socket name too long: %s", name);
	a->un.sun_family = AF_UNIX;
	memcpy(a->un.sun_path + off, name, n);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + off + n +
			   (abstract ? 0 : 1));
	return 0;
}
