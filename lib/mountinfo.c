/*
 * /proc/PID/mountinfo's lines (see mountinfo.h).
 */
#include "mountinfo.h"

char *
mountinfo_field(const char **s, char *buf, size_t size)
{
	const char *p = *s;
	size_t n = 0;

	while (*p == ' ')
		p++;
	if (*p == '\0' || *p == '\n')
		return NULL;
	while (*p != '\0' && *p != ' ' && *p != '\n') {
		char c = *p++;

		if (c == '\\' && p[0] >= '0' && p[0] <= '3' && p[1] >= '0' &&
		    p[1] <= '7' && p[2] >= '0' && p[2] <= '7') {
			c = (char)((p[0] - '0') * 64 + (p[1] - '0') * 8 +
				   (p[2] - '0'));
			p += 3;
		}
		if (n + 1 < size)
			buf[n++] = c;
	}
	buf[n] = '\0';
	*s = p;
	return buf;
}
