/*
 * A command-line profile for the unit tests that resolve policies
 * (test-why, test-planner): "section key value; ..." applied as the
 * command line would, a failure failing the test (cmocka).
 */
#ifndef LLW_TESTS_CLIPROFILE_H
#define LLW_TESTS_CLIPROFILE_H

#include "profile.h"
#include "vars.h"

struct profile *cli_profile(const struct vars *v, const char *flags);

#endif /* LLW_TESTS_CLIPROFILE_H */
