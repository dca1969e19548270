#!/bin/sh
# bench/getfd.sh: what the supervisor's substitutes cost where a container
# runtime's seccomp profile refuses pidfd_getfd and process_vm_readv
# (DESIGN.md §6, "Without pidfd_getfd"), against the same supervisor with
# them, in the same run: the median time of a mediated TCP connect, a
# bind and a UDP sendto, on loopback.  The substitutes are forced as the
# tests force them: the probe helper's container-filter installs Docker's
# EPERM rules and execs llwrap.  Not a test: it prints a Markdown
# section for bench/RESULTS.md.
#
#   bench/getfd.sh [BUILDDIR]      (default: the source tree)
#
# Environment: N (operations per run, default 5000).  Needs make check's
# helpers built (tests/helpers/netprobe and probe) and python3.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
NP=$build/tests/helpers/netprobe
PROBE=$build/tests/helpers/probe
[ -x "$NP" ] && [ -x "$PROBE" ] ||
	{ echo "build the helpers first: make -C $build check TESTS="; exit 1; }
N=${N:-5000}

bench_home
mkdir -p "$work/proj"
[ -z "$as" ] || chown -R "$(id -u nobody):$(id -g nobody)" "$work"
pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
PACC=$(free_port) PBIND=$(free_port)
"$NP" tcp-accept 127.0.0.1 "$PACC" >/dev/null &
pids="$pids $!"
sleep 0.5

# llw FORM ARGS...: llwrap as the sandbox's user, with pidfd_getfd
# (getfd) or with the container's filter (subst).
llw() {
	form=$1
	shift
	# shellcheck disable=SC2086
	case $form in
	getfd) $as "$LLWRAP" -C "$work/proj" -p default --rx "$build/tests/helpers" "$@" ;;
	subst) $as "$PROBE" container-filter "$LLWRAP" -C "$work/proj" -p default --rx "$build/tests/helpers" "$@" ;;
	esac
}
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
median3() { sort -n | sed -n 2p; }
three() { for i in 1 2 3; do "$@" | field median_ns; done | median3; }
us() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1000 }'; }

nat_conn=$(three "$NP" connect-lat 127.0.0.1 "$PACC" "$N")
get_conn=$(three llw getfd --allow-cidr "127.0.0.1/32:$PACC" -- "$NP" connect-lat 127.0.0.1 "$PACC" "$N")
sub_conn=$(three llw subst --allow-cidr "127.0.0.1/32:$PACC" -- "$NP" connect-lat 127.0.0.1 "$PACC" "$N")
nat_bind=$(three "$NP" bind-lat 127.0.0.1 "$PBIND" "$N")
get_bind=$(three llw getfd --bind-tcp "$PBIND" --listen "127.0.0.1:$PBIND" -- "$NP" bind-lat 127.0.0.1 "$PBIND" "$N")
sub_bind=$(three llw subst --bind-tcp "$PBIND" --listen "127.0.0.1:$PBIND" -- "$NP" bind-lat 127.0.0.1 "$PBIND" "$N")
form=$(llw subst --check 2>/dev/null | sed -n 's/^  S  supervisor   //p')

cat <<EOF
## The supervisor without pidfd_getfd (bench/getfd.sh)

$(date -u +%Y-%m-%d), $(uname -r), $(nproc) CPUs, N=$N, the median of three
runs' medians, in microseconds.  "substitute": under the probe helper's
container-filter (pidfd_getfd and process_vm_readv EPERM, as Docker's
default profile): $form.

| operation | native | supervisor, pidfd_getfd | supervisor, substitute |
|---|---|---|---|
| TCP connect (loopback) | $(us "$nat_conn") | $(us "$get_conn") | $(us "$sub_conn") |
| TCP bind (each socket closed before the next) | $(us "$nat_bind") | $(us "$get_bind") | $(us "$sub_bind") |
EOF
