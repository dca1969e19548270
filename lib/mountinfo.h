/*
 * /proc/PID/mountinfo's lines, field by field.
 */
#ifndef LLW_MOUNTINFO_H
#define LLW_MOUNTINFO_H

#include <stddef.h>

/*
 * The next blank-separated field of the line at *s into buf (size bytes,
 * the rest of a longer field dropped), its octal escapes (\040 for a
 * blank) undone, and *s past it: buf, or NULL at the end of the line.
 * No allocation: the mount table is read on llwrap's start.
 */
char *mountinfo_field(const char **s, char *buf, size_t size);

#endif /* LLW_MOUNTINFO_H */
