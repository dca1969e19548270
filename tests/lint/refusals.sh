#!/bin/sh
# Refusals are an enum with one table (src/refusal.h): a refusal's log
# name ("filtered/port") is written in src/refusal.c alone, and the code
# decides on the enum, never by comparing names.  This fails on a
# "filtered/..." string literal in any other source file (comments may
# name them), and on a strcmp() against one anywhere.
set -u
: "${LLW_SRCDIR:?run through make check}"
S=$LLW_SRCDIR
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
diag() { printf '%s\n' "$1" | sed '/^$/d; s/^/# /'; }

# Lines with a literal, comment lines (" * ...", "/* ...") left out.
found=$(cd "$S" && grep -n '"filtered/' src/*.c src/*.h lib/*.c lib/*.h |
	grep -v '^src/refusal\.c:' |
	grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)')
if [ -z "$found" ]; then
	ok 'refusal names are written in src/refusal.c alone'
else
	not_ok 'refusal names are written in src/refusal.c alone'
	diag "$found"
fi

found=$(cd "$S" && grep -nE 'str(n?case)?cmp\([^)]*"filtered/' \
	src/*.c src/*.h lib/*.c lib/*.h)
if [ -z "$found" ]; then
	ok 'no strcmp() on a refusal name'
else
	not_ok 'no strcmp() on a refusal name'
	diag "$found"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
