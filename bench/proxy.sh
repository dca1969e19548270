#!/bin/bash
# bench/proxy.sh [BUILD-DIR]: llwrap's proxy for named hosts (allow-host,
# DESIGN.md §6.1) against a direct connection, and srt's proxy when it is
# installed (bench/run installs it into bench/.cache/npm).
#
# Everything runs in a network namespace of this script's own (a user
# namespace makes it unprivileged; lib.sh's net_fixture): fixture HTTP
# and HTTPS servers (tests/data/proxy/servers.py) on 198.51.100.7 in a
# network namespace of their own behind a veth pair, named api.llw.test
# by a private /etc/hosts.  Each row is measured inside one sandboxed
# run, so sandbox start-up is not in it:
#   bare      curl, no sandbox
#   direct    llwrap, allow-cidr 198.51.100.7/32 (the supervisor checks
#             the connect, nothing in the data path)
#   proxy     llwrap, allow-host api.llw.test (through llwrap's proxy)
#   srt       srt, allowedDomains api.llw.test (through srt's proxies)
# Latency: the median and p90 of N (default 200) sequential requests, a
# new connection each, time to first byte (curl's time_starttransfer),
# for http:// and https://.  Throughput: one download of SIZE MiB
# (default 1024) over http:// and https://, MiB/s.  Then the resident
# memory of llwrap's proxy process after it all.  Prints a Markdown
# table; bench/RESULTS.md keeps one run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
N=${BENCH_N:-200}
SIZE=${BENCH_MIB:-1024}
SRT=$here/.cache/npm/node_modules/.bin/srt

setup() {
	cp "$top/tests/data/proxy/servers.py" "$work/"
	net_cert rsa api.llw.test san
	printf '127.0.0.1 localhost\n198.51.100.7 api.llw.test\n' >"$work/hosts"
}
net_bench proxy setup
# The servers in a namespace of their own behind a veth pair: srt's proxy
# (rightly) refuses a name that resolves to an address of this host's
# own interfaces.
net_fixture ready <<'SH'
exec python3 "$1/servers.py" "$1/cert.pem" "$1/key.pem" "$1/ready" 198.51.100.7
SH
trap 'kill $net_fixture_pids; cat "$work/srt.err" >&2 2>/dev/null' EXIT

# The loop each row runs: latency, then throughput; one "key value" a line.
cat >"$work/loop.sh" <<'SH'
n=$1 size=$2 cert=$3
for scheme in http https; do
	port=8080; [ $scheme = https ] && port=8443
	i=0
	while [ $i -lt "$n" ]; do
		curl -sS -o /dev/null --cacert "$cert" -w '%{time_starttransfer}\n' \
			"$scheme://api.llw.test:$port/"
		i=$((i + 1))
	done | sort -n | awk -v s=$scheme '{ v[NR] = $1 } END {
		printf "ttfb_%s_p50 %.3f\nttfb_%s_p90 %.3f\n", s, v[int(NR * 0.5)] * 1000, s, v[int(NR * 0.9)] * 1000 }'
	curl -s -o /dev/null --cacert "$cert" -w "speed_$scheme %{speed_download}\n" \
		"$scheme://api.llw.test:$port/bytes/$((size * 1048576))" |
		awk '{ printf "%s %.0f\n", $1, $2 / 1048576 }'
done
# The proxy's memory after all that (its comm is llwrap-proxy).
for p in /proc/[0-9]*; do
	[ "$(cat "$p/comm" 2>/dev/null)" = llwrap-proxy ] &&
		awk '/^VmRSS/ { print "rss_kib", $2 }' "$p/status"
done
SH
chmod -R a+rX "$work"

row() {
	local name=$1
	shift
	if [ "$name" = srt ]; then
		"$@" -c "sh $work/loop.sh $N $SIZE $work/cert.pem" 2>"$work/srt.err"
	else
		"$@" sh "$work/loop.sh" "$N" "$SIZE" "$work/cert.pem" 2>/dev/null
	fi | sed "s/^/$name /"
}
{
	row bare env
	row direct "$LLWRAP" --ro "$work" --allow-cidr 198.51.100.7/32:8080,8443 --
	row proxy "$LLWRAP" --ro "$work" --allow-host api.llw.test:8080,8443 --
	if [ -x "$SRT" ]; then
		printf '{"network": {"allowedDomains": ["api.llw.test"], "deniedDomains": []}, "filesystem": {"denyRead": [], "allowWrite": ["/tmp"], "denyWrite": []}}\n' >"$work/srt.json"
		row srt "$SRT" -s "$work/srt.json"
	fi
} >"$work/results"

md_table "$work/results" \
	"| | http first byte p50 (p90) | https first byte p50 (p90) | http MiB/s | https MiB/s | proxy RSS |" \
	'"| %s | %s ms (%s) | %s ms (%s) | %s | %s | %s |\n", r,
		v[r, "ttfb_http_p50"], v[r, "ttfb_http_p90"],
		v[r, "ttfb_https_p50"], v[r, "ttfb_https_p90"],
		v[r, "speed_http"], v[r, "speed_https"],
		((r, "rss_kib") in v ? sprintf("%.1f MiB", v[r, "rss_kib"] / 1024) : "")'
