#!/bin/sh
# tests/fuzz/run.sh [SECONDS]: build tests/fuzz/fuzz-profile with clang
# and libFuzzer (address and undefined sanitizers) and fuzz profile
# parsing, precedence and path compilation for SECONDS (default 60),
# starting from the seeds in conf/ and tests/data/.
#
# Run from a configured build tree (it needs config.h and the generated
# src/*.h); LLW_SRCDIR overrides the source tree (default: this script's
# ../..).  A crash is copied to tests/fuzz/regressions/crash-<sha1>,
# where make check replays it, and the script exits 1.
set -eu
secs=${1:-60}
src=${LLW_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=$(pwd)
CC=${CLANG:-clang}
[ -f "$build/config.h" ] || { echo "run.sh: run from a configured build tree" >&2; exit 2; }
command -v "$CC" >/dev/null || { echo "run.sh: $CC not found" >&2; exit 77; }

out=$build/tests/fuzz
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/llwrap-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# Only the pure core the harness drives, plus lib/.
$CC -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-include "$build/config.h" -I"$src/lib" -I"$src/src" -I"$build/src" -I"$src/tests/lib" \
	$(pkg-config --cflags inih) \
	"$src/tests/fuzz/fuzz-profile.c" "$src/tests/lib/fakefs.c" \
	"$src/src/profile.c" "$src/src/policy.c" "$src/src/match.c" \
	"$src/src/pathtree.c" "$src/src/known.c" \
	"$src/lib/strv.c" "$src/lib/xalloc.c" "$src/lib/fdutil.c" \
	"$src/lib/path.c" \
	$(pkg-config --libs inih) -o "$out/fuzz-profile"

mkdir "$work/corpus"
cp "$src"/conf/*.ini "$src"/conf/known-limits "$src"/tests/data/profiles/*.ini \
	"$src"/tests/data/profiles-broken/* "$work/corpus/"
cp "$src"/tests/fuzz/regressions/* "$work/corpus/" 2>/dev/null || true

status=0
"$out/fuzz-profile" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-artifact_prefix="$work/" -print_final_stats=1 "$work/corpus" \
	>"$work/log" 2>&1 || status=$?
tail -15 "$work/log"
for a in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
	[ -f "$a" ] || continue
	sum=$(sha1sum "$a" | cut -c1-12)
	cp "$a" "$src/tests/fuzz/regressions/$(basename "$a" | cut -d- -f1)-$sum"
	echo "run.sh: $(basename "$a") saved as tests/fuzz/regressions/$(basename "$a" | cut -d- -f1)-$sum"
	status=1
done
[ "$status" -eq 0 ] && echo "fuzz: clean after ${secs}s"
exit "$status"
