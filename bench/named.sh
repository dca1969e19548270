#!/bin/bash
# bench/named.sh [BUILD-DIR]: allow-host through llwrap's resolver
# (DESIGN.md §6.1, design (a)) against DNS the supervisor only lets
# through, and no sandbox at all.
#
# Everything runs in a network namespace of this script's own (a user
# namespace makes it unprivileged; lib.sh's net_fixture): the fixture
# resolver, and fixture servers (tests/data/proxy/servers.py) on
# 198.51.100.7 in a namespace of their own behind a veth pair.  Each
# row is measured inside one sandboxed run (start-up is not in it):
#   bare      no sandbox
#   dns       llwrap, allow-cidr 198.51.100.7/32: DNS to the resolver
#             and the connect checked by the supervisor, no names
#   resolver  llwrap, allow-host api.llw.test: DNS through llwrap's
#             resolver (socket swap, the query decided, the answer
#             learned), the connect allowed by what was learned
# lookup: the median and p90 of N (default 500) getaddrinfo() calls of
# api.llw.test (A only: one query each, a new socket each, as glibc
# does).  connect: the median and p90 of N TCP connects to 198.51.100.7
# (closed at once; the fixture server's backlog makes the tail).  Then,
# for the resolver row, the supervisor's peak memory (VmHWM) before and
# after 10,000 addresses were learned (417 lookups of many<N>.llw.test,
# 24 addresses each).  Each of those names is an exact allow-host entry
# of the run's own profile ($work/many.ini): through one wildcard
# (*.llw.test) all but the first 20 new labels a minute would be
# refused (the resolver's label budget, DESIGN.md §6.1) and nothing
# learned; exact names carry no label of the command's and take no
# budget.  Prints a Markdown table; bench/RESULTS.md keeps one run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
N=${BENCH_N:-500}

setup() {
	cp "$top/tests/data/proxy/servers.py" "$work/"
	net_cert rsa api.llw.test
	net_resolver
}
net_bench named setup
net_fixture ready <<'SH'
exec python3 "$1/servers.py" "$1/cert.pem" "$1/key.pem" "$1/ready" 198.51.100.7 >/dev/null 2>&1
SH

cat >"$work/loop.py" <<'PY'
import os, socket, sys, time
n, learn = int(sys.argv[1]), sys.argv[2] == "learn"

def stats(name, v):
    v.sort()
    print("%s_p50 %.1f" % (name, v[len(v) // 2] * 1e6))
    print("%s_p90 %.1f" % (name, v[int(len(v) * 0.9)] * 1e6))

v = []
for _ in range(n):
    t = time.perf_counter()
    socket.getaddrinfo("api.llw.test", 8080, socket.AF_INET, socket.SOCK_STREAM)
    v.append(time.perf_counter() - t)
stats("lookup", v)
v = []
for _ in range(n):
    s = socket.socket()
    t = time.perf_counter()
    s.connect(("198.51.100.7", 8080))
    v.append(time.perf_counter() - t)
    s.close()
stats("connect", v)
def hwm(key):
    for line in open("/proc/%d/status" % os.getppid()):
        if line.startswith("VmHWM"):
            print(key, line.split()[1])

hwm("hwm0_kib")
if learn:
    for i in range(417):
        socket.getaddrinfo("many%d.llw.test" % i, 443, socket.AF_INET, socket.SOCK_STREAM)
    hwm("hwm_kib")
PY
chmod a+r "$work/loop.py"
# The 417 names the learning loop looks up, each an exact entry.
{
	printf '[network]\nallow-host ='
	i=0
	while [ $i -lt 417 ]; do
		printf ' many%d.llw.test:443\n' $i
		i=$((i + 1))
	done | sed '2,$s/^/\t/'
} >"$work/many.ini"
chmod a+r "$work/many.ini"

row() {
	local name=$1 learn=$2
	shift 2
	"$@" python3 "$work/loop.py" "$N" "$learn" 2>/dev/null | sed "s/^/$name /"
}
{
	row bare no env
	row dns no "$LLWRAP" -p default --ro "$work" --allow-cidr 198.51.100.7/32:8080 --
	row resolver learn "$LLWRAP" -p default -p "$work/many.ini" --ro "$work" \
		--allow-host api.llw.test:8080 --
} >"$work/results"

md_table "$work/results" \
	"| | lookup p50 (p90) | connect p50 (p90) | supervisor VmHWM before, after 10,000 learned |" \
	'"| %s | %s µs (%s) | %s µs (%s) | %s |\n", r,
		v[r, "lookup_p50"], v[r, "lookup_p90"],
		v[r, "connect_p50"], v[r, "connect_p90"],
		((r, "hwm_kib") in v ? sprintf("%.2f MiB, %.2f MiB", v[r, "hwm0_kib"] / 1024, v[r, "hwm_kib"] / 1024) : \
		 (r, "hwm0_kib") in v && r != "bare" ? sprintf("%.2f MiB", v[r, "hwm0_kib"] / 1024) : "")'
