#!/bin/sh
# The manuals are clean roff: mandoc -T lint (or groff -w all) reports
# nothing.  tests/unit/test-doc checks that they describe every option
# and key.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

for m in "$LLW_BUILDDIR/doc/llwrap.1" "$LLW_BUILDDIR/doc/llwrap.ini.5"; do
	if command -v mandoc >/dev/null 2>&1; then
		run mandoc -T lint -W warning "$m"
		what="mandoc -T lint"
	elif command -v groff >/dev/null 2>&1; then
		run groff -w all -man -Tutf8 -z "$m"
		what="groff -w all"
	else
		skip "neither mandoc nor groff is installed"
		continue
	fi
	if [ "$rc" -eq 0 ] && [ -z "$out" ]; then
		ok "$what: $(basename "$m") is clean"
	else
		not_ok "$what: $(basename "$m")"
		diag "$out"
	fi
done

done_testing
