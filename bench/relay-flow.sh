#!/bin/bash
# bench/relay-flow.sh [BUILD-DIR]: where a relayed bulk download waits.
# bench/relay.sh's fixture (servers.py's HTTPS on 198.51.100.7:8443
# behind a veth pair); one download of BENCH_MB (1024) MiB with curl for
# each row of FLOW_ROWS ("cidr relay"; base: relay's with BENCH_BASE's
# llwrap), each in a sandboxed run of its own, its MB/s printed.  Meanwhile
# every TCP socket of the bench's namespace is sampled (ss -tmi, every
# FLOW_SS seconds, 0.05; 0: none) into FLOW_OUT/ss.ROW (FLOW_OUT,
# /tmp/relay-flow): the relay's input socket (192.0.2.1 to the address)
# and its end of the loopback pair (the listener's port) show who waits:
# Recv-Q and rb, Send-Q, notsent, rwnd_limited, the congestion control
# and its pacing_rate; the command's socket its rb and rcv_space.  With
# FLOW_CTL=FIFO, "enable" and "disable" are written to FIFO around the
# download alone, for a system-wide perf started outside, e.g.
#   mkfifo -m 666 /tmp/ctl
#   perf record -a -e sched:sched_switch -e sched:sched_wakeup \
#       --control fifo:/tmp/ctl -D -1 &
#   FLOW_CTL=/tmp/ctl FLOW_SS=0 FLOW_ROWS=relay bench/relay-flow.sh
#   perf sched timehist -s    # each process's run, sleep and wait
# (the sandbox may write FIFO: --rw).  FLOW_CC=NAME sets the congestion
# control of the bench's own network namespace (the relay's and the
# command's sockets) and the servers', for a comparison (root of the
# bench's user namespace may; the host's is left alone).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
MB=${BENCH_MB:-1024}
OUT=${FLOW_OUT:-/tmp/relay-flow}
SS=${FLOW_SS:-0.05}

setup() {
	cp "$top/tests/data/proxy/servers.py" "$work/"
	net_cert ec api.llw.test
	net_resolver
	[ -n "${FLOW_CC:-}" ] && echo "$FLOW_CC" >"$work/cc"
}
net_bench relayflow setup pid
[ -s "$work/cc" ] && sysctl -qw net.ipv4.tcp_congestion_control="$(cat "$work/cc")"
net_fixture ready <<'SH'
[ -s "$1/cc" ] && sysctl -qw net.ipv4.tcp_congestion_control="$(cat "$1/cc")"
exec python3 "$1/servers.py" "$1/cert.pem" "$1/key.pem" "$1/ready" 198.51.100.7 >/dev/null 2>&1
SH
mkdir -p "$OUT"
for r in ${FLOW_ROWS:-cidr relay}; do
	case $r in
	cidr) set -- "$LLWRAP" --allow-cidr 198.51.100.7/32:8443 ;;
	relay) set -- "$LLWRAP" --allow-host api.llw.test:8443 ;;
	base) set -- "$BENCH_BASE" --allow-host api.llw.test:8443 ;;
	*) echo "relay-flow.sh: no row $r" >&2 && exit 1 ;;
	esac
	[ -n "${FLOW_CTL:-}" ] && set -- "$@" --rw "$FLOW_CTL"
	sampler=
	if [ "$SS" != 0 ]; then
		while :; do
			date +%s.%N
			ss -tmi state established
			sleep "$SS"
		done >"$OUT/ss.$r" 2>&1 &
		sampler=$!
	fi
	"$@" -q -p default --ro "$work" -- sh -c '
		[ -n "$1" ] && echo enable >"$1"
		curl -sk -o /dev/null -w "%{speed_download}" "https://api.llw.test:8443/bytes/$2"
		[ -n "$1" ] && echo disable >"$1"' sh "${FLOW_CTL:-}" "$((MB << 20))" |
		awk -v r="$r" '{ printf "%s %.0f MB/s\n", r, $1 / 1e6 }'
	if [ -n "$sampler" ]; then
		kill "$sampler"
		wait "$sampler" 2>/dev/null
	fi
done
exit 0
