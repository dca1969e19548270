/*
 * The bubblewrap fallback (layer F): the compiled policy as a bwrap
 * argument vector (a pure function, golden-tested), and running it.
 */
#ifndef LLW_BWRAP_H
#define LLW_BWRAP_H

#endif /* LLW_BWRAP_H */
