#!/bin/sh
# Replay the fuzz seeds (conf/, tests/data/) and every input under
# tests/fuzz/regressions/ through the fuzz harness, built without
# libFuzzer.  TAP comes from the replay program itself.
set -u
: "${LLW_SRCDIR:?run through make check}"
: "${LLW_BUILDDIR:?run through make check}"
set -- "$LLW_SRCDIR"/conf/*.ini "$LLW_SRCDIR"/conf/known-limits \
	"$LLW_SRCDIR"/tests/data/profiles/*.ini \
	"$LLW_SRCDIR"/tests/data/profiles-broken/* \
	"$LLW_SRCDIR"/tests/fuzz/regressions/*
# A glob that matched nothing stays as written: drop it.
for f in "$@"; do
	shift
	[ -f "$f" ] && set -- "$@" "$f"
done
exec "$LLW_BUILDDIR/tests/fuzz/fuzz-profile-replay" "$@"
