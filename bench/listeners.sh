#!/bin/sh
# bench/listeners.sh: what the checks of issue 24 (DESIGN.md §16) cost
# a connect and a bind on loopback under the supervisor.  Not a test: it
# prints a Markdown table for bench/RESULTS.md.
#
#   bench/listeners.sh [BUILDDIR]      (default: the source tree)
#
# The budget (issue 4): a mediated connect adds at most 100 us median
# over an unmediated one.  Each figure is the median of three runs, each
# the median of N calls:
# - connect to a host listener an allow-cidr entry names (the
#   supervisor reads the socket's IP options and routing header before
#   it connects);
# - connect to the sandbox's own listener on a port --bind-tcp
#   publishes (the own-listener exemption: the exact lookup as before,
#   then, where it found the sandbox's own, a dump of every socket at
#   the port);
# - connect to the sandbox's own listener on a port no rule names (bound
#   elsewhere by the supervisor; the asked port's clients are sent there:
#   one more exact lookup);
# - bind of a published port, and of 127.0.0.1:0 (the dump of the
#   sockets at a fixed port, to refuse sharing it).
# NP (environment) names the netprobe to use, so that an older llwrap
# (BUILDDIR) is measured with the same probe.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
NP=${NP:-$build/tests/helpers/netprobe}
[ -x "$NP" ] || { echo "build the helpers first: make -C $build check TESTS="; exit 1; }
N=${N:-3000}

work=$(mktemp -d "${TMPDIR:-/tmp}/llwrap-bench.XXXXXX")
chmod 755 "$work"
cp "$NP" "$work/netprobe"
chmod 755 "$work/netprobe"
NP=$work/netprobe
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/proj"
chmod 777 "$work/proj"
printf '[network]\nsupervise = yes\nbind-tcp = 0\n' >"$work/own.ini"
chmod 644 "$work/own.ini"

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
PACC=$(free_port)
"$NP" tcp-accept 127.0.0.1 "$PACC" >/dev/null & pids="$pids $!"
sleep 0.5

llw() {
	(cd "$work/proj" && "$LLWRAP" -p default -p "$work/own.ini" \
		--rx "$work" "$@")
}
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
median3() { sort -n | sed -n 2p; }
three() { for i in 1 2 3; do "$@" | field median_ns; done | median3; }
# own PORT LLWRAP-ARGS...: connects to the sandbox's own listener on
# PORT, in one run.
own() {
	port=$1
	shift
	llw "$@" -- /bin/sh -c "$NP tcp-accept 127.0.0.1 $port >/dev/null & a=\$!; sleep 0.3; $NP connect-lat 127.0.0.1 $port $N; kill \$a"
}

nat_conn=$(three "$NP" connect-lat 127.0.0.1 "$PACC" "$N")
cidr_conn=$(three llw --allow-cidr "127.0.0.1/32:$PACC" -- "$NP" connect-lat 127.0.0.1 "$PACC" "$N")
P1=$(free_port)
pub_conn=$(three own "$P1" --bind-tcp "$P1")
P2=$(free_port)
priv_conn=$(three own "$P2")
P3=$(free_port)
nat_bind=$(three "$NP" bind-lat 127.0.0.1 "$P3" "$N")
pub_bind=$(three llw --bind-tcp "$P3" -- "$NP" bind-lat 127.0.0.1 "$P3" "$N")
eph_bind=$(three llw -- "$NP" bind-lat 127.0.0.1 0 "$N")

us() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1000 }'; }
added() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f", (a - b) / 1000 }'; }
cat <<EOF
$(date -u +%Y-%m-%d), $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg), llwrap $build, run as $(id -un).
Medians of three runs of $N calls each.

| on loopback (median) | µs | over native |
|---|---|---|
| connect, native | $(us "$nat_conn") | |
| connect to a host listener, allow-cidr | $(us "$cidr_conn") | $(added "$cidr_conn" "$nat_conn") |
| connect to its own listener, published port | $(us "$pub_conn") | $(added "$pub_conn" "$nat_conn") |
| connect to its own listener, port no rule names | $(us "$priv_conn") | $(added "$priv_conn" "$nat_conn") |
| bind 127.0.0.1:PORT, native | $(us "$nat_bind") | |
| bind 127.0.0.1:PORT, published | $(us "$pub_bind") | $(added "$pub_bind" "$nat_bind") |
| bind 127.0.0.1:0 | $(us "$eph_bind") | $(added "$eph_bind" "$nat_bind") |
EOF
