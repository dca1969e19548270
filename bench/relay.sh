#!/bin/bash
# bench/relay.sh [BUILD-DIR]: the name check on learned addresses
# (DESIGN.md §6.1, llwrap-relay) against the same connections decided by
# address, and no sandbox at all.
#
# Everything runs in network namespaces of this script's own (a user
# namespace makes it unprivileged; lib.sh's net_fixture): the fixture
# resolver (api.llw.test is 198.51.100.7) and behind a veth pair, routed
# to as an internet host is, the fixture servers
# (tests/data/proxy/servers.py: HTTPS on 8443, HTTP on 8080), openssl
# s_server on 8445 and a TCP listener on 22 (tests/data/srv.py).  Rows,
# each measured inside one sandboxed run:
#   bare   no sandbox
#   cidr   llwrap, allow-cidr 198.51.100.7/32:8443,8445,8080,22: decided
#          by address, nothing relayed
#   relay  llwrap, allow-host api.llw.test:8443,8445,8080,22: all but 22
#          through llwrap-relay (the name checked, then spliced)
#   base   with BENCH_BASE=LLWRAP (another build's llwrap, say main's):
#          relay's row with that one, for a before/after in one run
# Columns: a 1 GiB HTTPS download with curl (MB/s; BENCH_MB to change
# the size), the median time to the first byte of N (BENCH_N, 200) TLS
# requests from Python to openssl s_server -www (connect, handshake, GET,
# first byte; a P-256 certificate: a C server with a cheap handshake, so
# that the relay's share is not lost in the server's), the same of N
# plain HTTP requests to servers.py's 8080 (no handshake), and the median
# of N TCP connects to port 22 (not relayed: the +100 µs budget).
# The rows alternate (BENCH_ROUNDS, 9; the sandboxed rows' order turns
# each round, so that none always runs first) and each figure is the
# median of its rounds.  BENCH_MB=0 leaves the download out (more
# rounds in the time).  Prints a Markdown table; bench/RESULTS.md keeps
# one run.  Under it, the first bytes paired by round (each round's
# relay and base less that round's cidr, and relay less base): the
# median of the paired differences, its 95% confidence interval
# (distribution-free, from the ranks: narrower with more rounds, where
# the interquartile range and range, also shown, are the spread of the
# rounds themselves), and the same of the TLS first bytes' 10th
# percentiles, which a load that comes and goes moves less than their
# medians; and against the mark (BENCH_MARK_US, 300: the first byte's
# +0.3 ms over cidr) "met" where the interval lies within it, "not met"
# where it lies past it, else "not shown".  The medians of rounds alone
# move by more than the mark between runs on a shared machine, the
# paired differences less; two identical builds (BENCH_BASE a copy of
# LLWRAP) show what the machine's load leaves resolvable.  For the first
# byte alone, many short rounds pair better than a few long ones
# (BENCH_MB=0 BENCH_N=100 BENCH_ROUNDS=30: each pair a second apart).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
N=${BENCH_N:-200}
MB=${BENCH_MB:-1024}

setup() {
	cp "$top/tests/data/proxy/servers.py" "$top/tests/data/srv.py" "$work/"
	net_cert ec api.llw.test
	net_resolver
}
net_bench relay setup pid
net_fixture ready ssh tcp:8445 <<'SH'
python3 "$1/srv.py" tcp 198.51.100.7 22 "$1/ssh" >/dev/null 2>&1 &
openssl s_server -quiet -www -accept 198.51.100.7:8445 \
	-cert "$1/cert.pem" -key "$1/key.pem" >/dev/null 2>&1 &
exec python3 "$1/servers.py" "$1/cert.pem" "$1/key.pem" "$1/ready" 198.51.100.7 >/dev/null 2>&1
SH

cat >"$work/loop.py" <<'PY'
import socket, ssl, subprocess, sys, time
n, mb = int(sys.argv[1]), int(sys.argv[2])

def med(v):
    v.sort()
    return v[len(v) // 2] * 1e6

def p10(v):
    v.sort()
    return v[len(v) // 10] * 1e6

out = mb and subprocess.run(["curl", "-sk", "-o", "/dev/null", "-w", "%{speed_download}",
                             "https://api.llw.test:8443/bytes/%d" % (mb << 20)],
                            capture_output=True, text=True).stdout
print("mbps %.0f" % (float(out or 0) / 1e6))
addr = socket.getaddrinfo("api.llw.test", 8445, socket.AF_INET, socket.SOCK_STREAM)[0][4]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
v = []
for _ in range(n):
    t = time.perf_counter()
    s = ctx.wrap_socket(socket.create_connection(addr), server_hostname="api.llw.test")
    s.sendall(b"GET / HTTP/1.1\r\nHost: api.llw.test\r\nConnection: close\r\n\r\n")
    s.recv(1)
    v.append(time.perf_counter() - t)
    s.close()
print("first %.0f" % med(v))
print("first10 %.0f" % p10(v))
v = []
for _ in range(n):
    t = time.perf_counter()
    s = socket.create_connection((addr[0], 8080))
    s.sendall(b"GET / HTTP/1.1\r\nHost: api.llw.test\r\nConnection: close\r\n\r\n")
    s.recv(1)
    v.append(time.perf_counter() - t)
    s.close()
print("http %.0f" % med(v))
v = []
for _ in range(n):
    s = socket.socket()
    t = time.perf_counter()
    s.connect(("198.51.100.7", 22))
    v.append(time.perf_counter() - t)
    s.close()
print("connect %.0f" % med(v))
PY
chmod a+r "$work/loop.py"

row() {
	local name=$1
	shift
	"$@" python3 "$work/loop.py" "$N" "$MB" 2>>"$work/errors" | sed "s/^/$name /"
}
# The rows alternate, BENCH_ROUNDS (3) times, and each figure is the
# median of its rounds: the machine is shared, and a row run while
# another build runs would be compared with one that ran alone.
sandboxed() {
	case $1 in
	cidr) row cidr "$LLWRAP" -p default --ro "$work" --allow-cidr 198.51.100.7/32:8443,8445,8080,22 -- ;;
	relay) row relay "$LLWRAP" -p default --ro "$work" --allow-host api.llw.test:8443,8445,8080,22 -- ;;
	base) row base "$BENCH_BASE" -p default --ro "$work" --allow-host api.llw.test:8443,8445,8080,22 -- ;;
	esac
}
order="cidr relay"
[ -n "${BENCH_BASE:-}" ] && order="$order base"
for _ in $(seq "${BENCH_ROUNDS:-9}"); do
	row bare env
	for r in $order; do
		sandboxed "$r"
	done
	order="${order#* } ${order%% *}"
done >"$work/rounds"
awk '{ k = $1 " " $2; v[k] = v[k] " " $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
END {
	for (i = 1; i <= n; i++) {
		m = split(v[order[i]], a, " ")
		for (x = 1; x <= m; x++) for (y = x + 1; y <= m; y++)
			if (a[y] + 0 < a[x] + 0) { t = a[x]; a[x] = a[y]; a[y] = t }
		print order[i], a[int((m + 1) / 2)]
	}
}' "$work/rounds" >"$work/results"
[ -s "$work/errors" ] && sed "s/^/# /" "$work/errors" | tail -5

md_table "$work/results" \
	"| | HTTPS download | ratio to cidr | first byte p50 | over cidr | HTTP first byte p50 | over cidr | TCP connect :22 p50 | over bare |" \
	'"| %s | %s MB/s | %.2f | %s µs | %+d µs | %s µs | %+d µs | %s µs | %+d µs |\n", r,
		v[r, "mbps"], v["cidr", "mbps"] ? v[r, "mbps"] / v["cidr", "mbps"] : 0,
		v[r, "first"], v[r, "first"] - v["cidr", "first"],
		v[r, "http"], v[r, "http"] - v["cidr", "http"],
		v[r, "connect"], v[r, "connect"] - v["bare", "connect"]'
# The k-th figure of a row and key is of round k.
awk -v mark="${BENCH_MARK_US:-300}" '$2 == "first" || $2 == "first10" || $2 == "http" { k = $1 " " $2; v[k, ++n[k]] = $3 }
# The p-quantile of d[1..c], sorted (the nearest rank below).
function q(p) { return d[1 + int((c - 1) * p)] }
# The rank k of the 95% confidence interval d[k]..d[c+1-k] of the median
# (distribution-free: the largest k with P(Binomial(c, 1/2) < k) <= 2.5%;
# 1 below 6 rounds, which give no such interval).
function ci_rank(    k, p, cum, i) {
	p = 0.5 ^ c
	cum = 0
	for (k = 0; k < c; k++) {
		if (cum + p > 0.025)
			break
		cum += p
		p = p * (c - k) / (k + 1)
	}
	return k < 1 ? 1 : k
}
function paired(a, b, key, label,    x, y, t) {
	c = n[a " " key] < n[b " " key] ? n[a " " key] : n[b " " key]
	for (x = 1; x <= c; x++)
		d[x] = v[a " " key, x] - v[b " " key, x]
	for (x = 1; x <= c; x++) for (y = x + 1; y <= c; y++)
		if (d[y] < d[x]) { t = d[x]; d[x] = d[y]; d[y] = t }
	lo = d[ci_rank()]
	hi = d[c + 1 - ci_rank()]
	return sprintf("%s %+d µs (95%% CI %+d to %+d, IQR %+d to %+d, range %+d to %+d)", label, q(0.5),
		lo, hi, q(0.25), q(0.75), d[1], d[c])
}
END {
	split("relay base", rows, " ")
	for (i = 1; i <= 2; i++) {
		r = rows[i]
		if (!n[r " first"])
			continue
		line = paired(r, "cidr", "first", "TLS")
		verdict = hi <= mark ? "met" : lo > mark ? "not met" : "not shown"
		line = line ", " paired(r, "cidr", "first10", "TLS p10") ", " paired(r, "cidr", "http", "HTTP")
		printf "%s over cidr, paired by round (median, of %d): %s; TLS first byte within +%d µs: %s\n", r, c, line, mark, verdict
	}
	if (n["base first"])
		printf "relay over base, paired by round: %s, %s, %s\n", paired("relay", "base", "first", "TLS"),
			paired("relay", "base", "first10", "TLS p10"), paired("relay", "base", "http", "HTTP")
}' "$work/rounds"
