#!/bin/sh
# Replay the fuzz inputs through the harnesses, built without
# libFuzzer: fuzz-profile over the seeds (conf/, tests/data/) and
# tests/fuzz/regressions/, fuzz-cmsg over tests/fuzz/regressions-cmsg/,
# fuzz-msgcopy over tests/fuzz/regressions-msgcopy/,
# fuzz-httpreq over tests/fuzz/regressions-httpreq/, fuzz-tlshello over
# the captured hellos (tests/data/tls/) and tests/fuzz/regressions-tlshello/,
# fuzz-relaycheck over the hellos and tests/fuzz/regressions-relaycheck/,
# fuzz-dns over tests/fuzz/regressions-dns/, fuzz-index over
# tests/fuzz/regressions-index/, fuzz-gitconfig over
# tests/fuzz/regressions-gitconfig/.
# Each replay program prints a TAP line per input; this script numbers
# them as one stream and adds a failing line when a program died.
set -u
: "${LLW_SRCDIR:?run through make check}"
: "${LLW_BUILDDIR:?run through make check}"
out=$(mktemp "${TMPDIR:-/tmp}/llwrap-replay.XXXXXX")
trap 'rm -f "$out"' EXIT

# replay HARNESS FILE...: FILEs that exist, through HARNESS's replay.
replay() {
	prog=$LLW_BUILDDIR/tests/fuzz/$1-replay
	shift
	for f in "$@"; do
		shift
		[ -f "$f" ] && set -- "$@" "$f"
	done
	"$prog" "$@" >>"$out" 2>&1 ||
		echo "not ok - $(basename "$prog") failed (status $?)" >>"$out"
}
replay fuzz-profile "$LLW_SRCDIR"/conf/*.ini "$LLW_SRCDIR"/conf/known-limits \
	"$LLW_SRCDIR"/tests/data/profiles/*.ini \
	"$LLW_SRCDIR"/tests/data/profiles-broken/* \
	"$LLW_SRCDIR"/tests/fuzz/regressions/*
replay fuzz-cmsg "$LLW_SRCDIR"/tests/fuzz/regressions-cmsg/*
replay fuzz-msgcopy "$LLW_SRCDIR"/tests/fuzz/regressions-msgcopy/*
replay fuzz-httpreq "$LLW_SRCDIR"/tests/fuzz/regressions-httpreq/*
replay fuzz-tlshello "$LLW_SRCDIR"/tests/data/tls/* \
	"$LLW_SRCDIR"/tests/fuzz/regressions-tlshello/*
replay fuzz-relaycheck "$LLW_SRCDIR"/tests/data/tls/* \
	"$LLW_SRCDIR"/tests/fuzz/regressions-relaycheck/*
replay fuzz-dns "$LLW_SRCDIR"/tests/fuzz/regressions-dns/*
replay fuzz-index "$LLW_SRCDIR"/tests/fuzz/regressions-index/*
replay fuzz-gitconfig "$LLW_SRCDIR"/tests/fuzz/regressions-gitconfig/*
awk '/^1\.\./ { next }
/^(not )?ok/ {
	n++
	not = /^not/
	sub(/^(not )?ok( [0-9]+)?/, "")
	print (not ? "not ok " : "ok ") n $0
	next
}
{ print "# " $0 }
END { print "1.." n }' "$out"
