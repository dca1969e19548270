#!/bin/sh
# tests/fuzz/run.sh [SECONDS]: build the harnesses with clang and
# libFuzzer (address and undefined sanitizers) and fuzz for SECONDS in
# all (default 60): half to tests/fuzz/fuzz-profile (profile parsing,
# precedence and path compilation, from the seeds in conf/ and
# tests/data/), the rest in eight equal parts to tests/fuzz/fuzz-cmsg
# (the control data the supervisor rebuilds, from
# tests/fuzz/regressions-cmsg/), tests/fuzz/fuzz-msgcopy (the sendmsg
# message it copies out of the command, from
# tests/fuzz/regressions-msgcopy/), tests/fuzz/fuzz-httpreq (the requests
# the proxy reads, from tests/fuzz/regressions-httpreq/),
# tests/fuzz/fuzz-tlshello (the ClientHellos it reads the SNI from, from
# tests/data/tls/ and tests/fuzz/regressions-tlshello/),
# tests/fuzz/fuzz-relaycheck (the first bytes llwrap-relay checks the
# name of, from the hellos and tests/fuzz/regressions-relaycheck/) and
# tests/fuzz/fuzz-dns (DNS queries and answers, the resolver's replies,
# from tests/fuzz/regressions-dns/), tests/fuzz/fuzz-index (the git
# index the watch reads, from tests/fuzz/regressions-index/) and
# tests/fuzz/fuzz-gitconfig (the git configuration it judges, and the
# start's scans of config, includes, .gitmodules and .envrc, from
# tests/fuzz/regressions-gitconfig/).
#
# Run from a configured build tree (it needs config.h and the generated
# src/*.h); LLW_SRCDIR overrides the source tree (default: this script's
# ../..).  A crash is copied to the harness's regressions directory as
# crash-<sha1>, where make check replays it, and the script exits 1.
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

FLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-include $build/config.h -I$src/lib -I$src/src -I$build/src -I$src/tests/lib"

# Only the pure core each harness drives, plus lib/.
# shellcheck disable=SC2086
$CC $FLAGS $(pkg-config --cflags inih) \
	"$src/tests/fuzz/fuzz-profile.c" "$src/tests/lib/fakefs.c" \
	"$src/src/profile.c" "$src/src/policy.c" "$src/src/policy-merge.c" \
	"$src/src/access.c" \
	"$src/src/profilematch.c" "$src/src/keys.c" "$src/src/value.c" \
	"$src/src/vars.c" \
	"$src/src/pathtree.c" "$src/src/known.c" "$src/src/gitconfig.c" \
	"$src/src/hostrule.c" "$src/src/httpreq.c" "$src/src/netpolicy.c" \
	"$src/src/netpolicy-log.c" \
	"$src/src/proxy.c" "$src/src/refusal.c" \
	"$src/lib/strv.c" "$src/lib/xalloc.c" "$src/lib/fdutil.c" \
	"$src/lib/path.c" "$src/lib/text.c" \
	$(pkg-config --libs inih) -o "$out/fuzz-profile"
# shellcheck disable=SC2086
$CC $FLAGS "$src/tests/fuzz/fuzz-cmsg.c" "$src/src/cmsg.c" \
	"$src/lib/xalloc.c" -o "$out/fuzz-cmsg"
# shellcheck disable=SC2086
$CC $FLAGS "$src/tests/fuzz/fuzz-msgcopy.c" "$src/src/msgcopy.c" \
	"$src/lib/xalloc.c" -o "$out/fuzz-msgcopy"
# shellcheck disable=SC2086
$CC $FLAGS "$src/tests/fuzz/fuzz-httpreq.c" "$src/src/httpreq.c" \
	"$src/lib/xalloc.c" -o "$out/fuzz-httpreq"
# shellcheck disable=SC2086
$CC $FLAGS "$src/tests/fuzz/fuzz-tlshello.c" "$src/src/tlshello.c" \
	"$src/src/httpreq.c" "$src/lib/xalloc.c" -o "$out/fuzz-tlshello"
# shellcheck disable=SC2086
$CC $FLAGS "$src/tests/fuzz/fuzz-relaycheck.c" \
	"$src/src/relaycheck.c" "$src/src/tlshello.c" "$src/src/hostrule.c" \
	"$src/src/httpreq.c" "$src/src/value.c" "$src/lib/xalloc.c" \
	"$src/lib/strv.c" -o "$out/fuzz-relaycheck"
# shellcheck disable=SC2086
$CC $FLAGS "$src/tests/fuzz/fuzz-dns.c" "$src/src/dns.c" -o "$out/fuzz-dns"
# shellcheck disable=SC2086
$CC $FLAGS "$src/tests/fuzz/fuzz-index.c" "$src/src/gitguard-read.c" \
	"$src/lib/strv.c" "$src/lib/xalloc.c" "$src/lib/fdutil.c" \
	"$src/src/gitconfig.c" "$src/lib/path.c" "$src/lib/text.c" \
	-o "$out/fuzz-index"
# shellcheck disable=SC2086
$CC $FLAGS "$src/tests/fuzz/fuzz-gitconfig.c" "$src/src/gitguard.c" \
	"$src/src/gitguard-read.c" \
	"$src/lib/strv.c" "$src/lib/xalloc.c" "$src/lib/fdutil.c" \
	"$src/src/gitconfig.c" "$src/lib/path.c" "$src/lib/text.c" \
	-o "$out/fuzz-gitconfig"

mkdir "$work/profile" "$work/cmsg" "$work/msgcopy" "$work/httpreq" "$work/tlshello" "$work/dns" \
	"$work/index" "$work/relaycheck" "$work/gitconfig"
cp "$src"/conf/*.ini "$src"/conf/known-limits "$src"/tests/data/profiles/*.ini \
	"$src"/tests/data/profiles-broken/* "$work/profile/"
cp "$src"/tests/fuzz/regressions/* "$work/profile/" 2>/dev/null || true
cp "$src"/tests/fuzz/regressions-cmsg/* "$work/cmsg/"
cp "$src"/tests/fuzz/regressions-msgcopy/* "$work/msgcopy/"
cp "$src"/tests/fuzz/regressions-httpreq/* "$work/httpreq/"
cp "$src"/tests/data/tls/* "$src"/tests/fuzz/regressions-tlshello/* \
	"$work/tlshello/"
cp "$src"/tests/data/tls/* "$src"/tests/fuzz/regressions-relaycheck/* \
	"$work/relaycheck/"
cp "$src"/tests/fuzz/regressions-dns/* "$work/dns/"
cp "$src"/tests/fuzz/regressions-index/* "$work/index/"
cp "$src"/tests/fuzz/regressions-gitconfig/* "$work/gitconfig/"

status=0
# fuzz NAME SECONDS REGRESSIONS-DIR
fuzz() {
	mkdir -p "$work/$1.art"
	"$out/fuzz-$1" -max_total_time="$2" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$work/$1.art/" -print_final_stats=1 "$work/$1" \
		>"$work/$1.log" 2>&1 || status=1
	echo "fuzz-$1:"
	tail -15 "$work/$1.log"
	for a in "$work/$1.art"/*; do
		[ -f "$a" ] || continue
		sum=$(sha1sum "$a" | cut -c1-12)
		kind=$(basename "$a" | cut -d- -f1)
		cp "$a" "$src/tests/fuzz/$3/$kind-$sum"
		echo "run.sh: $(basename "$a") saved as tests/fuzz/$3/$kind-$sum"
		status=1
	done
}
rest=$((secs - secs / 2))
fuzz profile $((secs / 2)) regressions
fuzz cmsg $((rest / 8)) regressions-cmsg
fuzz msgcopy $((rest / 8)) regressions-msgcopy
fuzz httpreq $((rest / 8)) regressions-httpreq
fuzz tlshello $((rest / 8)) regressions-tlshello
fuzz relaycheck $((rest / 8)) regressions-relaycheck
fuzz dns $((rest / 8)) regressions-dns
fuzz index $((rest / 8)) regressions-index
fuzz gitconfig $((rest - rest / 8 * 7)) regressions-gitconfig
[ "$status" -eq 0 ] && echo "fuzz: clean after ${secs}s"
exit "$status"
