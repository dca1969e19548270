/*
 * Text shown to a person: strings that came from somewhere else (a file
 * name, a process's name, a DNS name a sandboxed command chose) made safe
 * to print on a terminal.
 */
#ifndef LLW_TEXT_H
#define LLW_TEXT_H

/*
 * A new copy of s that a terminal shows as text: ASCII control
 * characters (0x00-0x1f, 0x7f), the C1 controls in UTF-8 (U+0080 to
 * U+009F) and every byte that is not part of valid UTF-8 become \xHH;
 * everything else, backslashes included, is kept.  A string without any
 * of them comes back unchanged, so ordinary names read as they are.
 */
char *text_shown(const char *s);

#endif
