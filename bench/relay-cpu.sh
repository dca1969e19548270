#!/bin/bash
# bench/relay-cpu.sh [BUILD-DIR]: where a relayed TLS request's time goes,
# in figures a shared machine moves less than wall-clock ones: the CPU
# each process spends on a request (its schedstat run time, read before
# and after the requests) and the connect's own latency, for the
# connection checked by llwrap-relay (allow-host) and the same one
# decided by address (allow-cidr).
#
# bench/relay.sh's fixture (lib.sh's net_fixture: api.llw.test is
# 198.51.100.7, behind a veth pair; openssl s_server -www on 8445 with a
# P-256 certificate).  In each sandboxed run, Python makes BENCH_N (1000)
# TLS requests back to back (connect, handshake, GET, first byte) after
# two to warm up; the runs alternate cidr and relay, and with
# BENCH_BASE=LLWRAP the same two under another build, BENCH_ROUNDS (5)
# times.  Prints, for each build and row, the medians over the rounds
# of: the request's p50 and the connect's (socket to connected), and
# the CPU a request of the supervisor (llwrap), the relay and the client
# (python3), and the first two over the client's (the same work in every
# run: a load that slows every process alike cancels out); then each
# build's relay less its cidr, paired by round.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
N=${BENCH_N:-1000}

setup() {
	cp "$top/tests/data/srv.py" "$work/"
	net_cert ec api.llw.test
	net_resolver
}
net_bench relay-cpu setup pid
net_fixture ready tcp:8445 <<'SH'
python3 "$1/srv.py" tcp 198.51.100.7 22 "$1/ready" >/dev/null 2>&1 &
exec openssl s_server -quiet -www -accept 198.51.100.7:8445 \
	-cert "$1/cert.pem" -key "$1/key.pem" >/dev/null 2>&1
SH

cat >"$work/loop.py" <<'PY'
import socket, ssl, sys, time
n = int(sys.argv[1])
addr = socket.getaddrinfo("api.llw.test", 8445, socket.AF_INET, socket.SOCK_STREAM)[0][4]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
req, conn = [], []

def one():
    t = time.perf_counter()
    s = socket.create_connection(addr)
    conn.append(time.perf_counter() - t)
    s = ctx.wrap_socket(s, server_hostname="api.llw.test")
    s.sendall(b"GET / HTTP/1.1\r\nHost: api.llw.test\r\nConnection: close\r\n\r\n")
    s.recv(1)
    req.append(time.perf_counter() - t)
    s.close()

one()
one()
print("warm", flush=True)
time.sleep(0.5)  # the run times read meanwhile
req, conn = [], []
for _ in range(n):
    one()
req.sort()
conn.sort()
print("done %.0f %.0f" % (req[n // 2] * 1e6, conn[n // 2] * 1e6), flush=True)
time.sleep(0.5)
PY
chmod a+r "$work/loop.py"

# The run time (ns) of pid so far.
ran() {
	read -r t _ 2>/dev/null <"/proc/$1/schedstat" && echo "$t" || echo 0
}
# run NAME LLWRAP ROW: one run; prints NAME ROW request connect, then
# the µs a request of each process of the run's.
run() {
	local out=$work/out pid kids p
	local -A t0=()
	: >"$out"
	if [ "$3" = relay ]; then
		set -- "$1" "$2" "$3" --allow-host api.llw.test:8445
	else
		set -- "$1" "$2" "$3" --allow-cidr 198.51.100.7/32:8445
	fi
	"$2" -p default -q --ro "$work" "$4" "$5" -- python3 "$work/loop.py" "$N" >"$out" 2>>"$work/errors" &
	pid=$!
	while ! grep -q '^warm' "$out"; do
		kill -0 "$pid" 2>/dev/null || return
		sleep 0.02
	done
	kids="$pid $(pgrep -P "$pid" | tr '\n' ' ')"
	for p in $kids; do
		kids="$kids $(pgrep -P "$p" | tr '\n' ' ')"
	done
	for p in $kids; do
		t0[$p]=$(ran "$p")
	done
	while ! grep -q '^done' "$out"; do
		kill -0 "$pid" 2>/dev/null || return
		sleep 0.05
	done
	set -- "$1" "$3" "$(sed -n 's/^done //p' "$out")"
	for p in $kids; do
		set -- "$@" "$(cat "/proc/$p/comm" 2>/dev/null)=$((($(ran "$p") - ${t0[$p]}) / N / 1000))"
	done
	wait "$pid"
	echo "$*"
}
builds="this=$LLWRAP"
[ -n "${BENCH_BASE:-}" ] && builds="$builds base=$BENCH_BASE"
for _ in $(seq "${BENCH_ROUNDS:-5}"); do
	for b in $builds; do
		run "${b%%=*}" "${b#*=}" cidr
		run "${b%%=*}" "${b#*=}" relay
	done
done >"$work/rounds"
[ -s "$work/errors" ] && sed "s/^/# /" "$work/errors" | tail -5

# Each line: build row request connect comm=µs ...; the k-th line of a
# build and row is of round k.
python3 - "$work/rounds" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 4:
        continue
    cpu = dict(x.split("=", 1) for x in f[4:] if "=" in x)
    runs.setdefault((f[0], f[1]), []).append(
        {"req": int(f[2]), "conn": int(f[3]),
         "sup": int(cpu.get("llwrap", 0)), "relay": int(cpu.get("llwrap-relay", 0)),
         "client": int(cpu.get("python3", 0))})
med = lambda v: statistics.median(v) if v else 0
print("| build | row | TLS request p50 | connect p50 | supervisor CPU a request | relay CPU | client CPU | supervisor / client | relay / client |")
print("|---|---|---|---|---|---|---|---|---|")
for (b, r), v in runs.items():
    per = lambda k: med([x[k] / x["client"] for x in v if x["client"]])
    print("| %s | %s | %d µs | %d µs | %d µs | %d µs | %d µs | %.3f | %.3f |" % (
        b, r, med([x["req"] for x in v]), med([x["conn"] for x in v]),
        med([x["sup"] for x in v]), med([x["relay"] for x in v]), med([x["client"] for x in v]),
        per("sup"), per("relay")))
for b in dict.fromkeys(k[0] for k in runs):
    c, r = runs.get((b, "cidr"), []), runs.get((b, "relay"), [])
    d = [y["req"] - x["req"] for x, y in zip(c, r)]
    e = [y["conn"] - x["conn"] for x, y in zip(c, r)]
    if d:
        print("%s: relay over cidr, paired by round (median, range of %d): request %+d µs (%+d to %+d), connect %+d µs (%+d to %+d)" % (
            b, len(d), med(d), min(d), max(d), med(e), min(e), max(e)))
PY
