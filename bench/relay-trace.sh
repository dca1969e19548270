#!/bin/bash
# bench/relay-trace.sh [BUILD-DIR]: where a relayed TLS first byte's time
# goes, as a timeline of the kernel's own record (ftrace), not of a
# tracer that stops each process (strace, perf trace slow what they
# watch by more than the relay costs).
#
# bench/relay.sh's fixture (lib.sh's net_fixture: api.llw.test is
# 198.51.100.7 behind a veth pair, openssl s_server -www on 8445 with a
# P-256 certificate).  One sandboxed run per row, cidr (allow-cidr: the
# connect decided by address, nothing relayed) then relay (allow-host:
# through llwrap-relay), each making BENCH_N (200) TLS requests back to
# back from Python (connect, handshake, GET, first byte), marked by a
# getppid(2) before and after each.  Meanwhile an ftrace instance of its
# own (tracefs, root: skipped with the reason otherwise) records every
# system call, wake-up, context switch and packet queued of the machine.
# Prints, for each row, the averages a request of its second half (the
# first warms up): the CPU each process of the request's path ran
# (client, supervisor, relay, server; "other" is every other process of
# the machine, "idle" either CPU's idle time), their system calls,
# context switches and packets by device; then the timeline of the
# request whose time is the row's median (µs from its first mark): each
# call of those four processes with its duration and result (named on
# x86-64, numbered elsewhere), and each wake-up, switch and packet.
# Tracing costs each event about a microsecond: the times are the
# traced run's, for where the time goes, not for the overhead itself
# (bench/relay.sh and relay-cpu.sh measure that).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
N=${BENCH_N:-200}
T=/sys/kernel/tracing/instances/llwrap-relay-trace

if [ -z "$inner" ]; then
	if [ "$(id -u)" -ne 0 ] || [ ! -d /sys/kernel/tracing/instances ]; then
		echo "relay-trace.sh: skipped: needs root and tracefs" \
			"(/sys/kernel/tracing/instances)"
		exit 0
	fi
	work=$(mktemp -d "$build/bench-relay-trace.XXXXXX") || exit 1
	trap 'echo 0 >"$T/tracing_on" 2>/dev/null; rmdir "$T" 2>/dev/null; rm -rf "$work"' EXIT
	cp "$top/tests/data/srv.py" "$work/"
	net_cert ec api.llw.test
	net_resolver
	cat >"$work/analyse.py" <<'PY'
# The analysis of bench/relay-trace.sh: an ftrace text record (TRACE)
# of one sandboxed run's TLS requests, each between two getppid calls
# of the client.
import collections, re, sys

NR = {0: "read", 1: "write", 3: "close", 7: "poll", 16: "ioctl", 41: "socket",
      42: "connect", 43: "accept", 44: "sendto", 45: "recvfrom", 46: "sendmsg",
      47: "recvmsg", 48: "shutdown", 49: "bind", 50: "listen", 51: "getsockname",
      52: "getpeername", 54: "setsockopt", 55: "getsockopt", 72: "fcntl",
      110: "getppid", 232: "epoll_wait", 275: "splice", 288: "accept4",
      310: "process_vm_readv", 434: "pidfd_open", 438: "pidfd_getfd"}
RX = re.compile(r"^\s*(.{1,16}?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+):\s+(\w+):\s*(.*)$")
SW = re.compile(r"prev_comm=(.*?) prev_pid=(\d+).*prev_state=(\S+) ==> next_comm=(.*?) next_pid=(\d+)")
WK = re.compile(r"comm=(.*?) pid=(\d+).*target_cpu=(\d+)")

ev = []
for line in open(sys.argv[1], errors="replace"):
    m = RX.match(line)
    if m:
        comm, tid, cpu, t, e, rest = m.groups()
        ev.append((float(t), comm, int(tid), int(cpu), e, rest))
marks = [x for x in ev if x[4] == "sys_enter" and x[5].startswith("NR 110 ")
         and x[1] == "python3"]
if len(marks) < 4:
    sys.exit("no marks: the run failed, or the trace buffer overflowed")
client = collections.Counter(x[2] for x in marks).most_common(1)[0][0]
mk = [x[0] for x in marks if x[2] == client]
reqs = [(mk[i], mk[i + 1]) for i in range(0, len(mk) - 1, 2)]
reqs = reqs[len(reqs) // 2:]


def tid_of(comm, nrs):
    c = collections.Counter(
        x[2] for x in ev if x[1] == comm and x[4] == "sys_enter"
        and int(x[5].split()[1]) in nrs and reqs[0][0] <= x[0] <= reqs[-1][1])
    return c.most_common(1)[0][0] if c else None


role = {client: "client"}
for comm, nrs, name in (("llwrap", (438,), "supervisor"),
                        ("llwrap-relay", (275, 44), "relay"),
                        ("openssl", (43, 288), "server")):
    t = tid_of(comm, nrs)
    if t is not None:
        role[t] = name
names = ["client", "supervisor", "relay", "server"]

# Per request: CPU by role, calls, switches, packets.
tot = collections.Counter()
oncpu = {}
i = 0
for t, comm, tid, cpu, e, rest in ev:
    while i < len(reqs) and t > reqs[i][1]:
        i += 1
    if i == len(reqs):
        break
    a, b = reqs[i]
    inside = t >= a
    if e == "sched_switch":
        m = SW.match(rest) or SW.search(rest)
        prev = oncpu.get(cpu)
        if prev and inside:
            tot["cpu " + prev[0]] += (t - max(prev[1], a)) * 1e6
        nxt = int(m.group(5))
        oncpu[cpu] = (role.get(nxt, "idle" if nxt == 0 else "other"), t)
        if inside:
            tot["switches " + role.get(int(m.group(2)), "other")] += 1
    elif inside and e == "sys_enter":
        tot["calls " + role.get(tid, "other")] += 1
    elif inside and e == "net_dev_queue":
        tot["packets " + re.search(r"dev=(\S+)", rest).group(1)] += 1
n = len(reqs)
durs = sorted((b - a, k) for k, (a, b) in enumerate(reqs))
print("requests %d, time p50 %.0f µs (traced)" % (n, durs[n // 2][0] * 1e6))
for what in ("cpu", "calls", "switches", "packets"):
    keys = sorted(k for k in tot if k.startswith(what + " "))
    print("  %-9s" % what + "  ".join(
        "%s %.1f" % (k.split(" ", 1)[1], tot[k] / n) for k in keys))

# The median request's timeline.
a, b = reqs[durs[n // 2][1]]
print("timeline of the median request (µs, duration):")
start = {}
for t, comm, tid, cpu, e, rest in ev:
    if t < a or t > b:
        continue
    us = (t - a) * 1e6
    who = role.get(tid)
    if e == "sys_enter" and who:
        start[tid] = us
    elif e == "sys_exit" and who:
        nr = int(rest.split()[1])
        s = start.pop(tid, us)
        print("%7.0f %5.0f  %-10s [%d] %s = %s" % (
            s, us - s, who, cpu, NR.get(nr, nr), rest.split("=")[-1].strip()))
    elif e == "sched_switch":
        m = SW.search(rest)
        p, q = role.get(int(m.group(2))), role.get(int(m.group(5)))
        if p or q:
            print("%7.0f        %-10s [%d] switch %s (%s) -> %s" % (
                us, p or "other", cpu, p or m.group(1), m.group(3), q or m.group(4)))
    elif e == "sched_wakeup":
        m = WK.search(rest)
        q = role.get(int(m.group(2)))
        if q and (who or q):
            print("%7.0f        %-10s [%d] wakes %s on cpu %s" % (
                us, who or comm, cpu, q, m.group(3)))
    elif e == "net_dev_queue" and who:
        print("%7.0f        %-10s [%d] packet %s" % (us, who, cpu, rest[:60]))
print("%7.0f        client first byte read; end" % ((b - a) * 1e6))
PY
	chmod -R a+rX "$work"
	mkdir "$T" || exit 1
	echo 65536 >"$T/buffer_size_kb"
	echo 'sched:sched_switch sched:sched_wakeup raw_syscalls:sys_enter raw_syscalls:sys_exit net:net_dev_queue' >"$T/set_event"
	for row in cidr relay; do
		: >"$T/trace"
		echo 1 >"$T/tracing_on"
		unshare -r -n -m -p --fork --mount-proc "$0" --inner "$work" "$build" "$row"
		echo 0 >"$T/tracing_on"
		echo "## $row"
		python3 "$work/analyse.py" "$T/trace"
	done
	exit
fi

work=$inner
row=$4
net_fixture ready tcp:8445 <<'SH'
python3 "$1/srv.py" tcp 198.51.100.7 22 "$1/ready" >/dev/null 2>&1 &
exec openssl s_server -quiet -www -accept 198.51.100.7:8445 \
	-cert "$1/cert.pem" -key "$1/key.pem" >/dev/null 2>&1
SH
cat >"$work/loop.py" <<'PY'
import os, socket, ssl, sys
n = int(sys.argv[1])
addr = socket.getaddrinfo("api.llw.test", 8445, socket.AF_INET, socket.SOCK_STREAM)[0][4]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
for _ in range(n):
    os.getppid()
    s = ctx.wrap_socket(socket.create_connection(addr), server_hostname="api.llw.test")
    s.sendall(b"GET / HTTP/1.1\r\nHost: api.llw.test\r\nConnection: close\r\n\r\n")
    s.recv(1)
    os.getppid()
    s.close()
PY
if [ "$row" = relay ]; then
	set -- --allow-host api.llw.test:8445
else
	set -- --allow-cidr 198.51.100.7/32:8445
fi
"$LLWRAP" -p default -q --ro "$work" "$@" -- python3 "$work/loop.py" "$N"
