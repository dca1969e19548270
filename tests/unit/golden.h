/*
 * Golden files for the unit tests: expected outputs kept under
 * tests/data (found through $LLW_DATA, else relative to this source), and
 * compared byte for byte.  With LLW_UPDATE_GOLDEN=1 a test rewrites them
 * instead, after a deliberate change whose diff is then reviewed.
 */
#ifndef LLW_TESTS_GOLDEN_H
#define LLW_TESTS_GOLDEN_H

#include <stdbool.h>

/* The absolute path of tests/data/rel, new string. */
char *golden_path(const char *rel);

/* Under LLW_UPDATE_GOLDEN=1: write got to rel (making its directory) and
 * return true; the test then has nothing to compare.  Else false. */
bool golden_update(const char *rel, const char *got);

/* The text of rel; fails the test when it cannot be read. */
char *golden_read(const char *rel);

/* Fail the test, naming rel and the first line that differs, unless want
 * and got are equal. */
void golden_compare(const char *rel, const char *want, const char *got);

#endif /* LLW_TESTS_GOLDEN_H */
