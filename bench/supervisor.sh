#!/bin/sh
# bench/supervisor.sh: the network supervisor's cost, on loopback, with
# srt (npm @anthropic-ai/sandbox-runtime, whose proxy is in the data
# path) measured in the same run.  Not a test: it prints a Markdown
# section for bench/RESULTS.md.
#
#   bench/supervisor.sh [BUILDDIR]      (default: the source tree)
#
# Targets (issue 4): a mediated connect adds at most 100 us median over
# an unmediated one; bulk TCP through an allowed connection runs at the
# native rate (the supervisor is not in the data path); the supervisor's
# RSS stays under 2 MiB.
#
# Environment: N, MIB (sizes); KV, a file to which the figures are also
# written as key=value lines (bench/run reads them).
#
# Needs: make check's helpers built (tests/helpers/netprobe), python3,
# curl; srt, bwrap, socat and rg for the srt column (else it says why).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
NP=$build/tests/helpers/netprobe
[ -x "$NP" ] || { echo "build the helpers first: make -C $build check TESTS="; exit 1; }
N=${N:-5000}   # connects per latency run
MIB=${MIB:-4096}

work=$(mktemp -d "${TMPDIR:-/tmp}/llwrap-bench.XXXXXX")
chmod 755 "$work"
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/proj" "$work/www"
truncate -s 1G "$work/www/big"
echo hi >"$work/www/small"

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
PACC=$(free_port) PSINK=$(free_port) PHTTP=$(free_port)
"$NP" tcp-accept 127.0.0.1 "$PACC" >/dev/null & pids="$pids $!"
"$NP" tcp-sink 127.0.0.1 "$PSINK" >/dev/null & pids="$pids $!"
(cd "$work/www" && exec python3 -m http.server --bind 127.0.0.1 "$PHTTP" >/dev/null 2>&1) & pids="$pids $!"
sleep 1

llw() {
	"$LLWRAP" -C "$work/proj" -p default --rx "$build/tests/helpers" "$@"
}
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
median3() { sort -n | sed -n 2p; }

lat() { # lat LABEL CMD...: the median of three runs' median connect time
	label=$1
	shift
	for i in 1 2 3; do "$@" connect-lat 127.0.0.1 "$PACC" "$N" | field median_ns; done | median3
}
nat_lat=$(lat native "$NP")
ll_lat=$(lat landlock llw --connect-tcp "$PACC" -- "$NP")
sup_lat=$(lat supervisor llw --allow-cidr "127.0.0.1/32:$PACC" -- "$NP")

bulk() { for i in 1 2 3; do "$@" tcp-bulk 127.0.0.1 "$PSINK" "$MIB" | field mib_per_s; done | median3; }
nat_bulk=$(bulk "$NP")
sup_bulk=$(bulk llw --allow-cidr "127.0.0.1/32:$PSINK" -- "$NP")

# RSS of the supervisor (the llwrap process) while a command connects.
"$LLWRAP" -C "$work/proj" -p default --rx "$build/tests/helpers" \
	--allow-cidr "127.0.0.1/32:$PACC" -- \
	/bin/sh -c "$NP connect-lat 127.0.0.1 $PACC 20000 >/dev/null; sleep 2" &
sup=$!
sleep 1.5
comm=$(cat "/proc/$sup/comm")
rss=$(awk '/^VmHWM/ {print $2}' "/proc/$sup/status")
anon=$(awk '/^RssAnon/ {print $2}' "/proc/$sup/status")
pss=$(awk '/^Pss:/ {print $2}' "/proc/$sup/smaps_rollup")
wait "$sup"

# HTTP through curl: native, under the supervisor, under srt (whose
# proxy carries the bytes).  --noproxy '' because srt's no_proxy exempts
# loopback, which would bypass its proxy and fail in its network
# namespace.
CURL="curl --noproxy '' -s -o /dev/null"
ttfb_cmd="for i in \$(seq 50); do $CURL -w '%{time_starttransfer}\n' http://127.0.0.1:$PHTTP/small; done | sort -n | sed -n 25p"
speed_cmd="$CURL -w '%{speed_download}\n' http://127.0.0.1:$PHTTP/big"
nat_ttfb=$(sh -c "$ttfb_cmd")
nat_speed=$(sh -c "$speed_cmd")
sup_ttfb=$(llw --allow-cidr "127.0.0.1/32:$PHTTP" -- /bin/sh -c "$ttfb_cmd")
sup_speed=$(llw --allow-cidr "127.0.0.1/32:$PHTTP" -- /bin/sh -c "$speed_cmd")
srt_note=
if command -v srt >/dev/null; then
	cat >"$work/srt.json" <<EOF
{"network":{"allowedDomains":["127.0.0.1:$PHTTP"],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":["$work/proj"],"denyWrite":[]}}
EOF
	srt_ttfb=$(cd "$work/proj" && srt -s "$work/srt.json" -c "$ttfb_cmd" 2>&1 | tail -1)
	srt_speed=$(cd "$work/proj" && srt -s "$work/srt.json" -c "$speed_cmd" 2>&1 | tail -1)
	srt_note="srt $(srt --version 2>/dev/null | tail -1)"
else
	srt_ttfb="n/a" srt_speed="n/a"
	srt_note="srt not installed (npm install -g @anthropic-ai/sandbox-runtime)"
fi
mb() { awk -v b="$1" 'BEGIN { if (b + 0 > 0) printf "%.0f", b / 1048576; else print b }'; }
ms() { awk -v s="$1" 'BEGIN { if (s + 0 > 0) printf "%.2f", s * 1000; else print s }'; }
us() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1000 }'; }

if [ -n "${KV:-}" ]; then
	cat >"$KV" <<EOF
nat_lat=$nat_lat
ll_lat=$ll_lat
sup_lat=$sup_lat
nat_bulk=$nat_bulk
sup_bulk=$sup_bulk
nat_ttfb=$nat_ttfb
sup_ttfb=$sup_ttfb
srt_ttfb=$srt_ttfb
nat_speed=$nat_speed
sup_speed=$sup_speed
srt_speed=$srt_speed
sup_hwm=$rss
sup_anon=$anon
sup_pss=$pss
srt_note='$srt_note'
EOF
fi
cat <<EOF
## Network supervisor

$(date -u +%Y-%m-%d), $(uname -r), $(nproc) CPUs, loopback, llwrap run as $(id -un).
Medians of three runs (each of $N connects, or $MIB MiB); $srt_note.

| connect() latency (median) | µs | added |
|---|---|---|
| native | $(us "$nat_lat") | |
| llwrap, Landlock port rule only | $(us "$ll_lat") | $(us $((ll_lat - nat_lat))) |
| llwrap, supervisor (allow-cidr) | $(us "$sup_lat") | **$(us $((sup_lat - nat_lat)))** (target ≤ 100) |

| bulk TCP, one connection (netprobe tcp-bulk) | MiB/s |
|---|---|
| native | $nat_bulk |
| llwrap, supervisor | $sup_bulk |

| HTTP via curl to python http.server | first byte, median of 50 (ms) | 1 GiB download (MiB/s) |
|---|---|---|
| native | $(ms "$nat_ttfb") | $(mb "$nat_speed") |
| llwrap, supervisor | $(ms "$sup_ttfb") | $(mb "$sup_speed") |
| srt (proxy in the data path) | $(ms "$srt_ttfb") | $(mb "$srt_speed") |

Supervisor ($comm) memory during 20,000 mediated connects: VmHWM $rss KiB,
RssAnon $anon KiB (private), Pss $pss KiB.
EOF
