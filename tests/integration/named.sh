#!/bin/sh
# allow-host through llwrap's resolver (DESIGN.md §6.1, design (a)): no
# proxy, every client as it is.  Everything runs in network namespaces
# of the test's own (netns_fixture: as root, the real root's, and llwrap
# runs as the test user, as users run it, but for a few cases run as
# root; otherwise owned by a user namespace whose root llwrap runs as): a
# fixture resolver on 192.0.2.53 (UDP and TCP, logging every query it
# receives; /etc/resolv.conf bind mounted to name it), and fixture
# servers on 198.51.100.7 (api, other, ttl, x.wild), 203.0.113.9 (evil)
# and 2001:db8::7 (v6) in a second namespace behind a veth pair, routed
# to through its far end (192.0.2.2, 2001:db8:ffff::2) as an internet
# host is, and 127.0.0.9 (rebind) here.  Documentation ranges and not
# on a link of this host: not local, so only the name rules decide.
#
# Asserted, each with its legitimate neighbour: an allowed name is
# reached by curl (http, https), Python's getaddrinfo and connect, Node's
# fetch, Go's own resolver, git clone over HTTPS and ssh on port 22, over
# IPv4 and IPv6, TCP and UDP, through a CNAME, with no proxy variable; a
# name not in allow-host is answered REFUSED and its query never reaches
# the resolver, with a log line and a note; the address of a denied name
# is not reached, even right after an allowed lookup; a name allowed on
# 8443 does not reach 8080; a one-label wildcard; rebinding to loopback
# is refused unless allow-cidr holds it; a learned address expires with
# its TTL (the floor of 30 s, jumped with the test clock) and is learned
# again by the next lookup; an answer too long for UDP comes over TCP;
# /etc/hosts entries for allowed names; a race flipping the destination
# between a learned and a denied address never reaches the denied one;
# the resolver process is confined; without user namespaces the proxy
# (design (b)) takes over; llwrap run as root reaches the allowed name,
# and its resolver and relay keep no capability and no bounding set.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

if ! "$LLWRAP" --check 2>/dev/null | grep -q "S  supervisor   usable"; then
	skip_rest "the supervisor is unavailable here: $("$LLWRAP" --check | grep supervisor)"
fi
if ! userns_works; then
	skip_rest "no unprivileged user namespaces: the fixtures and llwrap's resolver need network namespaces of their own"
fi
# What --check, --explain and why say of it.
run as_user "$LLWRAP" --check
expect_output "--check: named hosts through llwrap's resolver here" "^  S    named hosts \\(allow-host\\): llwrap's resolver in a network namespace of its own"
run as_user env LLW_HOOK_NO_USERNS=1 "$LLW_BUILDDIR/tests/helpers/llwrap-hooked" --check
expect_output "... through the proxy where user namespaces are refused" "^  S    named hosts \\(allow-host\\): llwrap's HTTP\\(S\\) proxy \\(user namespaces are refused\\)"
run as_user "$LLWRAP" --allow-host api.openai.com:443 --explain -- true
expect_output "--explain: names through llwrap's resolver" "host api\\.openai\\.com:443 \\(supervised: names through llwrap's resolver"
expect_output "... a query for another name never leaves the machine" "is answered REFUSED and never leaves the machine"
why() {
	run as_user $LLWRAP_B --allow-host api.openai.com:443 \
		--allow-cidr 10.0.0.0/8:443 why "$@"
}
why 203.0.113.7:443
expect_output "why: an address is reached once an allowed name resolved to it" "rule: +filtered/unnamed"
expect_output "... or with allow-cidr" "allow: +\\[network\\] allow-cidr = 203\\.0\\.113\\.7/32:443"
why 10.1.2.3:443
expect_rc "why: ... inside allow-cidr it is allowed" 0
why --udp 127.0.0.53:53
expect_output "why: DNS goes to llwrap's resolver" "answered by llwrap's resolver, which resolves only the names in allow-host"
for tool in unshare ip python3 openssl curl getent; do
	command -v "$tool" >/dev/null || skip_rest "$tool is not installed"
done

D=$T/named
mkdir -p "$D/rw"
cp "$LLW_DATA/named/names.py" "$LLW_DATA/proxy/servers.py" "$LLW_DATA/srv.py" \
	"$LLW_DATA/helper-of.sh" "$LLW_DATA/named/gitsrv.py" "$D/"
cp "$LLW_BUILDDIR/tests/helpers/netprobe" "$LLW_BUILDDIR/tests/helpers/probe" "$D/"
cp "$LLW_SRCDIR/tests/integration/mock-llm.py" "$D/"
# The real agent by name: one tool call, a lookup the policy refuses.
printf '%s\n' '["getent hosts evil.llw.test; echo STEP0-rc=$?; echo STEP0-OK"]' >"$D/script.json"
mkdir -p "$D/proj" "$D/home"
OPENCODE=$(command -v opencode || true)
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=api.llw.test \
	-addext "subjectAltName=DNS:api.llw.test,DNS:other.llw.test" \
	-keyout "$D/key.pem" -out "$D/cert.pem" 2>/dev/null ||
	skip_rest "openssl cannot make a test certificate"
printf '127.0.0.1 localhost\n198.51.100.9 fromhosts.llw.test\n' >"$D/hosts"
echo "nameserver 192.0.2.53" >"$D/resolv.conf"
cat >"$D/allow.ini" <<'EOF'
[profile]
include = default
[network]
allow-host = api.llw.test:8080,8443,8444,9000,9001,22 other.llw.test:8443
allow-host = *.wild.llw.test:8080 ttl.llw.test:8080 big.llw.test:8080
allow-host = v6.llw.test:9000 alias.llw.test:8080 fromhosts.llw.test:8080
EOF
# The same under L3 (a pid namespace): the sandbox makes user namespaces
# itself, and the resolver makes its own at the first query.
{
	cat "$D/allow.ini"
	printf '[process]\nhide-processes = yes\n'
} >"$D/allow-l3.ini"
cp "$LLW_BUILDDIR/tests/helpers/llwrap-hooked" "$D/llwrap-hooked"
cat >"$D/edns.py" <<'EOF'
# edns.py: a query for Api.Llw.Test with an EDNS record carrying an
# option of 64 bytes (data a client could try to carry out), sent to the
# resolver as glibc would: the answer's question keeps the case asked.
# edns.py sendto: the same from an unconnected socket (sendto and
# recvfrom, as some resolvers do); the answer's source is printed.
import socket, struct, sys
name = b"".join(bytes([len(l)]) + l for l in b"Api.Llw.Test".split(b".")) + b"\0"
opt = b"\0" + struct.pack("!HHIH", 41, 4096, 0, 68) + struct.pack("!HH", 65001, 64) + b"x" * 64
q = struct.pack("!HHHHHH", 0x4242, 0x0100, 1, 0, 0, 1) + name + struct.pack("!HH", 1, 1) + opt
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(5)
if sys.argv[1:] == ["sendto"]:
    s.sendto(q, ("192.0.2.53", 53))
    a, src = s.recvfrom(4096)
else:
    s.connect(("192.0.2.53", 53))
    s.send(q)
    a, src = s.recv(4096), s.getpeername()
print("%sanswer id %x question %s records %d from %s:%d" % ("".join(m + ": " for m in sys.argv[1:]),
      struct.unpack("!H", a[:2])[0],
      a[12:12 + len(name)].replace(b"\x03", b".").replace(b"\x04", b".").decode(errors="replace"),
      struct.unpack("!H", a[6:8])[0], src[0], src[1]))
EOF
# burst.py N: N lookups in a row, each a new socket (as glibc makes
# them), each followed by a connect to the address it gave.
cat >"$D/burst.py" <<'EOF'
import socket, sys
n, ok = int(sys.argv[1]), 0
for i in range(n):
    try:
        a = socket.getaddrinfo("api.llw.test", 8080, socket.AF_INET, socket.SOCK_STREAM)[0][4]
        socket.create_connection(a, timeout=10).close()
        ok += 1
    except OSError as e:
        print("lookup %d failed: %s" % (i, e))
print("burst: %d of %d" % (ok, n))
EOF
# The clients the issue names, each resolving by itself: Node's fetch,
# Go (its own resolver), git over HTTPS (a dumb-HTTP repository served
# by gitsrv.py), ssh on port 22 (srv.py counts the connection).
mkdir -p "$T/gitsrc" "$D/repo"
(cd "$T/gitsrc" && git init -q && echo llwrap-fixture >README && git add README &&
	git -c user.name=llw -c user.email=llw@llw.test commit -qm fixture &&
	git clone -q --bare . "$D/repo/proj.git" &&
	git -C "$D/repo/proj.git" update-server-info) ||
	skip_rest "git cannot make the fixture repository"
if command -v go >/dev/null 2>&1; then
	mkdir -p "$T/goget"
	cat >"$T/goget/main.go" <<'EOF'
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
)

func main() {
	r, err := http.Get(os.Args[1])
	if err != nil {
		fmt.Println("go failed:", err)
		return
	}
	b, _ := io.ReadAll(r.Body)
	fmt.Printf("go: %s", b)
}
EOF
	(cd "$T/goget" && HOME=$T GOCACHE=$T/gocache GOPATH=$T/gopath GOFLAGS=-mod=mod \
		GO111MODULE=off go build -o "$D/goget" main.go) >/dev/null 2>&1
fi
cat >"$D/conn.py" <<'EOF'
# conn.py tcp|udp NAME PORT: getaddrinfo and connect (or send), as a
# proxy-unaware client does.
import socket, sys
kind, name, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    if kind == "tcp":
        s = socket.create_connection((name, port), timeout=10)
        print("connected", s.getpeername()[0])
    else:
        fam, t, p, _, sa = socket.getaddrinfo(name, port, type=socket.SOCK_DGRAM)[0]
        s = socket.socket(fam, t)
        s.sendto(b"x", sa)
        print("sent", sa[0])
except OSError as e:
    print("failed:", e.errno, e)
EOF
# inner.sh LLWRAP [BACKEND]: in the new namespaces (as their root), the
# fixtures, then each case between "== NAME" lines, llwrap run as the
# test user ($U: as users run it, when the suite runs as root), and a
# few as root ("== root").
cat >"$D/inner.sh" <<'SH'
L=$1; B=${2:-}; O=${3:-}; d=$(dirname "$0")
U=$LLW_AS_USER; unset LLW_AS_USER
setup_failed() { echo "SETUP: $*"; exit 2; }
mount --bind "$d/hosts" /etc/hosts || setup_failed "cannot bind-mount /etc/hosts"
mount --bind "$d/resolv.conf" /etc/resolv.conf || setup_failed "cannot bind-mount /etc/resolv.conf"
ip link set lo up && ip addr add 192.0.2.53/32 dev lo || setup_failed "cannot address lo"
ip link add v0 type veth peer name v1 2>&1 || setup_failed "cannot create a veth pair (no veth driver?)"
unshare -n sh -c 'ip link set lo up
	while ! ip link show v1 >/dev/null 2>&1; do sleep 0.05; done
	ip addr add 192.0.2.2/30 dev v1 && ip addr add 2001:db8:ffff::2/64 dev v1 nodad &&
	ip addr add 198.51.100.7/32 dev v1 && ip addr add 198.51.100.8/32 dev v1 &&
	ip addr add 198.51.100.9/32 dev v1 &&
	ip addr add 203.0.113.9/32 dev v1 &&
	ip addr add 2001:db8::7/128 dev v1 nodad && ip link set v1 up &&
	ip route add default via 192.0.2.1 &&
	ip -6 route add default via 2001:db8:ffff::1 &&
	{ python3 "$1/srv.py" tcp 198.51.100.7 9000 "$1/a" tcp 203.0.113.9 9000 "$1/b" \
		udp 198.51.100.7 9001 "$1/u" tcp 2001:db8::7 9000 "$1/v6" \
		tcp 198.51.100.7 22 "$1/ssh" tcp 203.0.113.9 22 "$1/b22" \
		>/dev/null 2>&1 & } &&
	{ python3 "$1/gitsrv.py" "$1/cert.pem" "$1/key.pem" "$1/repo" "$1/ready.git" \
		>/dev/null 2>&1 & } &&
	{ python3 "$1/mock-llm.py" "$1/script.json" "$1/mock.jsonl" "$1/mock-port" \
		198.51.100.7 >/dev/null 2>&1 & } &&
	exec python3 "$1/servers.py" "$1/cert.pem" "$1/key.pem" "$1/ready" \
		198.51.100.7 198.51.100.8 198.51.100.9 203.0.113.9 192.0.2.2 >/dev/null 2>&1' sh "$d" &
pid=$!
sleep 0.2
# A router's link, not the servers': their addresses are routed to, not
# on-link, which would make them this host's networks (local).
ip link set v1 netns $pid && ip addr add 192.0.2.1/30 dev v0 &&
	ip addr add 2001:db8:ffff::1/64 dev v0 nodad && ip link set v0 up &&
	ip route add 198.51.100.0/24 via 192.0.2.2 &&
	ip route add 203.0.113.0/24 via 192.0.2.2 &&
	ip -6 route add 2001:db8::/64 via 2001:db8:ffff::2 ||
	setup_failed "cannot set up the veth pair"
python3 "$d/names.py" 192.0.2.53 "$d/queries" "$d/ready.dns" >/dev/null 2>&1 &
pid2=$!
python3 "$d/servers.py" "$d/cert.pem" "$d/key.pem" "$d/ready.here" 127.0.0.9 192.0.2.1 >/dev/null 2>&1 &
pid3=$!
i=0
while { [ ! -e "$d/ready" ] || [ ! -e "$d/ready.dns" ] || [ ! -e "$d/ready.here" ] || [ ! -e "$d/v6" ] || [ ! -e "$d/b22" ] || [ ! -s "$d/mock-port" ] || [ ! -e "$d/ready.git" ]; } && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
export XDG_STATE_HOME=$d/state
# shellcheck disable=SC2086
llw() { $U "$L" ${B:+--backend "$B"} --rx "$d" -p "$d/allow.ini" "$@" 2>&1; }
. "$d/helper-of.sh"
echo "== env"
llw -- env | grep -ci proxy
echo "== curl"
llw -- curl -sS -m 10 http://api.llw.test:8080/
llw -- curl -sS -m 10 --cacert "$d/cert.pem" https://api.llw.test:8443/
echo "== python"
llw -- python3 "$d/conn.py" tcp api.llw.test 8443
echo "== denied"
: >"$d/queries"
llw -- curl -sS -m 10 http://evil.llw.test:8080/
llw -- getent hosts evil.llw.test; echo "getent status $?"
echo "queries: $(cat "$d/queries" | tr '\n' ';')"
echo "== denied-address"
llw -- sh -c "getent hosts api.llw.test >/dev/null; $d/probe tcp-connect 203.0.113.9 8080"
llw -- sh -c "getent hosts api.llw.test >/dev/null; $d/probe tcp-connect 198.51.100.7 8080"
llw -- "$d/probe" tcp-connect 198.51.100.7 8080
echo "== port"
llw -- curl -sS -m 10 http://other.llw.test:8080/
llw -- curl -sS -m 10 --cacert "$d/cert.pem" https://other.llw.test:8443/
echo "== wildcard"
: >"$d/queries"
llw -- curl -sS -m 10 http://x.wild.llw.test:8080/
llw -- curl -sS -m 10 http://a.b.wild.llw.test:8080/
echo "queries: $(cat "$d/queries" | tr '\n' ';')"
echo "== edns"
: >"$d/queries"
llw -- python3 "$d/edns.py"
echo "queries: $(cat "$d/queries" | tr '\n' ';')"
echo "== sendto"
: >"$d/queries"
llw -- python3 "$d/edns.py" sendto
echo "queries: $(cat "$d/queries" | tr '\n' ';')"
echo "== burst"
llw -- python3 "$d/burst.py" 60
echo "== cname"
llw -- curl -sS -m 10 http://alias.llw.test:8080/
echo "== rebind"
llw --allow-host rebind.llw.test:8080 -- curl -sS -m 10 http://rebind.llw.test:8080/
llw --allow-host rebind.llw.test:8080 --allow-cidr 127.0.0.9/32:8080 -- curl -sS -m 10 http://rebind.llw.test:8080/
echo "== onlink"
llw --allow-host link.llw.test:8080 -- curl -sS -m 10 http://link.llw.test:8080/
llw --allow-host link.llw.test:8080 --allow-cidr 192.0.2.2/32:8080 -- curl -sS -m 10 http://link.llw.test:8080/
llw --allow-host self.llw.test:8080 -- curl -sS -m 10 http://self.llw.test:8080/
llw --allow-host self.llw.test:8080 --allow-cidr 192.0.2.1/32:8080 -- curl -sS -m 10 http://self.llw.test:8080/
llw --allow-host nat64.llw.test:8080 -- python3 "$d/conn.py" tcp nat64.llw.test 8080
echo "== sort"
# getaddrinfo without a service sorts its answers (RFC 6724) by
# connecting a UDP socket to port 0 of each: nothing sent, nothing to
# report, and the order it finds is the one it finds outside.
llw --allow-host two.llw.test:8080 -- python3 -c "import socket; print('order', [a[4][0] for a in socket.getaddrinfo('two.llw.test', None, type=socket.SOCK_STREAM)])"
python3 -c "import socket; print('order', [a[4][0] for a in socket.getaddrinfo('two.llw.test', None, type=socket.SOCK_STREAM)])"
echo "== ttl"
LLW_HOOK_CLOCK_SKEW=$d/rw/skew $U "$d/llwrap-hooked" ${B:+--backend "$B"} --rx "$d" --rw "$d/rw" -p "$d/allow.ini" -- sh -c "
python3 $d/conn.py tcp ttl.llw.test 8080
echo 40 >$d/rw/skew
$d/probe tcp-connect 198.51.100.7 8080
python3 $d/conn.py tcp ttl.llw.test 8080" 2>&1
echo "== tcp"
: >"$d/queries"
llw -- curl -sS -m 10 http://big.llw.test:8080/
echo "queries: $(cat "$d/queries" | tr '\n' ';')"
echo "== clients"
llw -- node -e "fetch('http://api.llw.test:8080/').then(r => r.text()).then(t => console.log('node: ' + t.trim()), e => console.log('node failed: ' + ((e.cause && e.cause.code) || e)))"
llw -- node -e "fetch('http://evil.llw.test:8080/').then(r => console.log('node: reached evil'), e => console.log('node evil failed: ' + ((e.cause && e.cause.code) || e)))"
[ -x "$d/goget" ] && llw -- env GODEBUG=netdns=go "$d/goget" http://api.llw.test:8080/
[ -x "$d/goget" ] && llw -- env GODEBUG=netdns=go "$d/goget" http://evil.llw.test:8080/
llw --rw "$d/rw" -- env GIT_SSL_CAINFO="$d/cert.pem" HOME="$d/rw" \
	git clone -q https://api.llw.test:8444/proj.git "$d/rw/clone" &&
	echo "git: cloned $(cat "$d/rw/clone/README")"
llw -- ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
	-o ConnectTimeout=10 -T git@api.llw.test >/dev/null 2>&1
echo "ssh: $(cat "$d/ssh") connection(s) on port 22"
echo "== hosts"
llw -- curl -sS -m 10 http://fromhosts.llw.test:8080/
echo "== v6"
llw -- python3 "$d/conn.py" tcp v6.llw.test 9000
echo "== udp"
llw -- python3 "$d/conn.py" udp api.llw.test 9001
llw -- python3 "$d/conn.py" udp evil.llw.test 9001
llw -- sh -c "getent hosts api.llw.test >/dev/null; $d/probe udp-send 203.0.113.9 9001"
# A datagram has no answer to wait for: wait for its count (at most 20
# s: a loaded machine is slow, not wrong).
i=0
while [ "$(cat "$d/u")" = 0 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
echo "udp count: $(cat "$d/u")"
echo "== race"
# On port 22, which the relay does not take (DESIGN.md §6.1): the
# connects send nothing, and through the relay nothing reaches the
# address before the first record is checked.
b0=$(cat "$d/b22"); a0=$(cat "$d/ssh")
# All of llwrap's output is kept: should a run fail to start, its message
# is what tells why the allowed listener got nothing.
llw -- sh -c "getent hosts api.llw.test >/dev/null || echo 'race: getent failed'; $d/netprobe race 198.51.100.7 203.0.113.9 22 500"
# A connect completes in the listener's backlog, before srv.py counts
# it: wait for the allowed listener's count to move (at most 20 s).
i=0
while [ "$(cat "$d/ssh")" = "$a0" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
echo "denied listener: $b0 -> $(cat "$d/b22"); allowed listener: $a0 -> $(cat "$d/ssh")"
echo "== stub-killed"
# The resolver is killed once the run's first lookup is done, however
# long the run took to start (a loaded machine, an emulated one); the
# second lookup comes 5 s later.  Nothing is written where the sandbox
# can see it: under bubblewrap without Landlock a directory may be bound
# entry by entry, and one that comes and goes then can fail the start.
llw -- sh -c 'getent hosts api.llw.test >/dev/null && echo "before: resolved"; sleep 5
getent hosts api.llw.test; echo "after: status $?"' >"$d/killed.out" 2>&1 &
killed=$!
i=0
while ! grep -q '^before: resolved$' "$d/killed.out" 2>/dev/null && [ $i -lt 1200 ]; do
	sleep 0.05
	i=$((i + 1))
done
# This run's supervisor: the llwrap the background job started (other
# runs may be going on beside this one).
sup=$(pgrep -x llwrap -P $killed | head -1)
[ -n "$sup" ] || sup=$killed
# This run's resolver only: other suites' runs go on beside this one.
pkill -KILL -x -P "$sup" llwrap-dns
sleep 0.2
t0=$(awk '{ print $14 + $15 }' /proc/$sup/stat 2>/dev/null)
sleep 1
t1=$(awk '{ print $14 + $15 }' /proc/$sup/stat 2>/dev/null)
wait $killed
cat "$d/killed.out"
echo "supervisor ($sup) ticks in 1 s: $((t1 - t0))"
echo "== stub-slow"
# A resolver that does not answer the supervisor for 2 s (stopped; a
# loaded machine): a datagram socket's swap takes one the stub made
# ahead, at once; a TCP socket's swap waits for the stub, as a
# resolver's client would wait for an answer (it gave up after 1 s),
# and the next lookup gets its own socket, not a late answer to an
# earlier request.
llw -- sh -c "while [ ! -e $d/stopped ]; do sleep 0.05; done
python3 -c '
import socket, time
for kind, t in ((\"made ahead\", socket.SOCK_DGRAM), (\"slow\", socket.SOCK_STREAM)):
    s = socket.socket(socket.AF_INET, t)
    start = time.monotonic()
    try:
        s.connect((\"192.0.2.53\", 53))
        print(\"%s: connected%s\" % (kind, \" at once\" if time.monotonic() - start < 1 else \"\"))
    except OSError as e:
        print(kind + \": failed\", e.errno)
'
getent hosts api.llw.test >/dev/null && echo 'next: resolved'" &
slow=$!
stub=$(helper_of $slow llwrap-dns)
kill -STOP "$stub"
: >"$d/stopped"
sleep 2
kill -CONT "$stub"
wait $slow
echo "== confined"
# The command waits for the look to end.
llw -- sh -c "while [ ! -e $d/looked ]; do sleep 0.1; done" >/dev/null &
sleeper=$!
if p=/proc/$(helper_of $sleeper llwrap-dns); then
	grep -e NoNewPrivs -e CapEff "$p/status"
	[ "$(readlink "$p/ns/net")" = "$(readlink /proc/self/ns/net)" ] && echo "same netns" || echo "own netns"
fi
: >"$d/looked"
wait $sleeper
echo "== deferred"
# Under L3 the resolver is forked at the start but makes its namespace,
# listeners and confinement at the first query: before it, it is in the
# host's network namespace holding nothing but its channels; after it,
# confined as above, and the query answered.
if [ -z "$B" ]; then
	$U "$L" --rx "$d" -p "$d/allow-l3.ini" -- sh -c "while [ ! -e $d/ask ]; do sleep 0.05; done
getent hosts api.llw.test >/dev/null && echo 'deferred: resolved'
while [ ! -e $d/asked ]; do sleep 0.05; done" >"$d/deferred.out" 2>&1 &
	dp=$!
	# This run's resolver, a child of the supervisor, which is the
	# monitor of the pid namespace here (helper_of waits for a confined
	# one, a level below).
	i=0 h=
	while [ -z "$h" ] && [ $i -lt 300 ]; do
		h=$(pgrep -x -P $dp llwrap-dns | head -1)
		[ -n "$h" ] || sleep 0.1
		i=$((i + 1))
	done
	p=/proc/$h
	[ "$(readlink "$p/ns/net")" = "$(readlink /proc/self/ns/net)" ] && echo "before the first query: same netns" || echo "before the first query: own netns"
	pgrep -x -P "$h" llwrap-relay >/dev/null && echo "before the first query: a relay" || echo "before the first query: no relay"
	: >"$d/ask"
	i=0
	while ! grep -q '^deferred: resolved$' "$d/deferred.out" 2>/dev/null && [ $i -lt 400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	grep -e NoNewPrivs -e CapEff "$p/status" | sed 's/^/after: /'
	[ "$(readlink "$p/ns/net")" = "$(readlink /proc/self/ns/net)" ] && echo "after the first query: same netns" || echo "after the first query: own netns"
	r=$(pgrep -x -P "$h" llwrap-relay | head -1)
	if [ -n "$r" ]; then
		[ "$(readlink "/proc/$r/ns/net")" = "$(readlink /proc/self/ns/net)" ] &&
			[ "$(readlink "/proc/$r/ns/pid")" = "$(readlink /proc/self/ns/pid)" ] &&
			echo "after the first query: a relay, in the host's namespaces" ||
			echo "after the first query: a relay, in another namespace"
	else
		echo "after the first query: no relay"
	fi
	: >"$d/asked"
	wait $dp
	cat "$d/deferred.out"
	# A name /etc/hosts answers, no query before it: the connect wakes
	# the resolver, which forks the relay.
	q0=$(grep -c . "$d/queries")
	$U "$L" --rx "$d" -p "$d/allow-l3.ini" -- curl -sS -m 10 http://fromhosts.llw.test:8080/ 2>&1 |
		sed 's/^/deferred hosts: /'
	echo "deferred hosts: $(($(grep -c . "$d/queries") - q0)) queries"
	# A resolver that cannot start at the first query (its namespace
	# refused): the query fails at once, the command goes on, the log
	# says why.
	LLW_HOOK_RESOLVER_FAILS=1 $U "$d/llwrap-hooked" --rx "$d" -p "$d/allow-l3.ini" -- sh -c '
s=$(date +%s); getent hosts api.llw.test; r=$?
echo "failed start: lookup status $r after $(($(date +%s) - s)) s"
getent hosts api.llw.test; echo "failed start: again, status $?"
echo "failed start: the command goes on"' 2>&1
fi
echo "== agent"
if [ -n "$O" ]; then
	port=$(cat "$d/mock-port")
	cat >"$d/proj/opencode.json" <<EOF
{
  "\$schema": "https://opencode.ai/config.json",
  "provider": {
    "mock": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "llwrap mock",
      "options": { "baseURL": "http://llm.llw.test:$port/v1", "apiKey": "mock" },
      "models": { "mock-model": { "name": "mock", "tool_call": true } }
    }
  },
  "model": "mock/mock-model",
  "autoupdate": false,
  "share": "disabled"
}
EOF
	(cd "$d/proj" && HOME=$d/home OPENCODE_DISABLE_MODELS_FETCH=1 \
		OPENCODE_DISABLE_AUTOUPDATE=1 timeout 180 $U "$L" ${B:+--backend "$B"} \
		-p opencode --allow-host "llm.llw.test:$port" -- \
		"$O" run --auto -m mock/mock-model "do it" 2>&1 | tail -3)
	grep -o 'STEP0-[A-Za-z]*=*[0-9]*' "$d/mock.jsonl" | sort -u
fi
echo "== no-userns"
[ -z "$B" ] && LLW_HOOK_NO_USERNS=1 $U "$d/llwrap-hooked" --ro "$d" -p "$d/allow.ini" -- sh -c "
env | grep '^HTTPS_PROXY='
curl -sS -m 10 --cacert $d/cert.pem https://api.llw.test:8443/" 2>&1
echo "== root"
# llwrap run as root: the real root's when the suite runs as root, else a
# user namespace's (as every case above then).  Its helpers drop what
# root holds.
llw_root() { "$L" ${B:+--backend "$B"} --rx "$d" -p "$d/allow.ini" "$@" 2>&1; }
llw_root -- curl -sS -m 10 --cacert "$d/cert.pem" https://api.llw.test:8443/
llw_root -- getent hosts evil.llw.test; echo "root getent status $?"
# A query first: the resolver forks the relay at its first request.
llw_root -- sh -c "getent hosts api.llw.test >/dev/null
while [ ! -e $d/looked.root ]; do sleep 0.1; done" >/dev/null &
sleeper=$!
for h in llwrap-dns llwrap-relay; do
	if p=/proc/$(helper_of $sleeper $h); then
		grep -e NoNewPrivs -e CapEff -e CapBnd "$p/status" | sed "s/^/$h: /"
	fi
done
: >"$d/looked.root"
wait $sleeper
echo "== log"
cat "$d"/state/llwrap/*.log
echo "== end"
kill $pid $pid2 $pid3
pkill -f "$d/srv.py"
pkill -f "$d/mock-llm.py"
SH
chmod -R a+rX "$D"
chmod a+rwx "$D/rw"
# The test clock's skew, which the sandboxed command (the test user) moves.
echo 0 >"$D/rw/skew"
chown -R "$TEST_UID:$TEST_GID" "$D" 2>/dev/null

# A pid namespace of its own: every fixture process (gitsrv.py, srv.py,
# the resolvers) ends with inner.sh, however it ends.
run netns_fixture sh "$D/inner.sh" "$LLWRAP" "${LLW_BACKEND:-}" "$OPENCODE"
all=$out
case $all in
*SETUP:*)
	skip_rest "the fixture network cannot be built here: $(printf '%s\n' "$all" | sed -n 's/^SETUP: //p' | head -1)" ;;
esac
section() {
	out=$(printf '%s\n' "$all" | sed -n "/^== $1\$/,/^== /p" | sed '1d;$d')
}

section env
expect_output "no proxy variable: clients need no configuration" "^0$"
section curl
expect_output "curl reaches an allowed name over http, directly" "^hello api\\.llw\\.test:8080 from 198\\.51\\.100\\.7 sni=-$"
expect_output "... and over https" "^hello api\\.llw\\.test:8443 from 198\\.51\\.100\\.7 sni=api\\.llw\\.test$"
if [ "$(id -u)" -eq 0 ]; then
	expect_no_output "... llwrap ran as the test user (no note that the command runs as root)" "runs as root"
else
	skip "not root: llwrap runs as root in a user namespace of the test's"
fi
section python
# Through the name check's relay (DESIGN.md §6.1) the socket's peer is
# the relay's loopback end, not the address.
expect_output "Python's getaddrinfo and connect reach it (a proxy-unaware client)" "^connected 127\\.0\\.0\\.1$"

section denied
expect_output "a name not in allow-host does not resolve" "Could not resolve host: evil\\.llw\\.test"
expect_output "... getent fails too" "^getent status 2$"
expect_output "... and its query never reached the resolver" "^queries: $"
expect_output "... the note names the query and the rule" "dns-query udp evil\\.llw\\.test \\(rule filtered/host\\)"

section denied-address
expect_output "the address of a denied name is not reached, after an allowed lookup" "^DENIED tcp-connect errno=EACCES"
expect_output "... the allowed name's address is" "^SUCCEEDED tcp-connect"
out=$(printf '%s\n' "$out" | grep -E '^(SUCCEEDED|DENIED)' | tail -1)
expect_output "... but not before its name was looked up" "^DENIED tcp-connect errno=EACCES"

section port
expect_output "a name allowed on 8443 only does not reach 8080" "Failed to connect to other\\.llw\\.test port 8080"
expect_output "... and reaches 8443" "^hello other\\.llw\\.test:8443 from 198\\.51\\.100\\.8"

section wildcard
expect_output "a one-label wildcard allows x.wild.llw.test" "^hello x\\.wild\\.llw\\.test:8080 from 198\\.51\\.100\\.7"
expect_output "... not a.b.wild.llw.test" "Could not resolve host: a\\.b\\.wild\\.llw\\.test"
out=$(printf '%s\n' "$out" | grep '^queries:')
expect_no_output "... whose query never reached the resolver" "a\\.b\\.wild"

section edns
expect_output "a query's own additional records do not leave: the stub asks with name and type only" "^queries: api\\.llw\\.test 1 udp 0;\$"
expect_output "... and the answer keeps the client's id and the case it asked in" "^answer id 4242 question .Api.Llw.Test.? records 1 from 192\\.0\\.2\\.53:53\$"
section sendto
expect_output "an unconnected socket's sendto to the resolver is answered from the resolver's address" "^sendto: answer id 4242 question .Api.Llw.Test.? records 1 from 192\\.0\\.2\\.53:53\$"
expect_output "... by llwrap's resolver: the query that left is the stub's own" "^queries: api\\.llw\\.test 1 udp 0;\$"
section burst
expect_output "60 lookups in a row, each on a new socket, each connects to what it learned" "^burst: 60 of 60\$"

section cname
expect_output "a name allowed through a CNAME chain's question is reached" "^hello alias\\.llw\\.test:8080 from 198\\.51\\.100\\.7"

section rebind
expect_output "an allowed name resolving to loopback is refused (rebinding)" "connect tcp 127\\.0\\.0\\.9:8080 \\(rule filtered/rebind\\)"
expect_output "... unless allow-cidr holds the address" "^hello rebind\\.llw\\.test:8080 from 127\\.0\\.0\\.9"

section onlink
expect_output "an allowed name resolving to an on-link neighbour's global address is refused (rebinding: this host's networks)" "connect tcp 192\\.0\\.2\\.2:8080 \\(rule filtered/rebind\\)"
expect_output "... unless allow-cidr holds the address" "^hello link\\.llw\\.test:8080 from 192\\.0\\.2\\.2"
expect_output "... to this host's own global address, refused" "connect tcp 192\\.0\\.2\\.1:8080 \\(rule filtered/rebind\\)"
expect_output "... unless allow-cidr holds it" "^hello self\\.llw\\.test:8080 from 192\\.0\\.2\\.1"
expect_output "... to the NAT64 form of a local address, refused" "connect tcp \\[64:ff9b::c000:202\\]:8080 \\(rule filtered/rebind\\)"

section sort
n=$(printf '%s\n' "$out" | grep '^order ' | sort -u | wc -l)
if [ "$n" -eq 1 ] && printf '%s\n' "$out" | grep -q "^order \\['198\\.51\\.100\\."; then
	ok "getaddrinfo without a service sorts an allowed name's two addresses as it does outside"
else
	not_ok "getaddrinfo's sorting in the sandbox"
	diag "$out"
fi
expect_no_output "... with no note of its UDP connects to port 0" ":0 \\(rule"

section ttl
expect_output "a learned address is reached within its TTL" "^connected 127\\.0\\.0\\.1$"
expect_output "... not once the TTL (floored at 30 s) has passed" "^DENIED tcp-connect errno=EACCES"
out=$(printf '%s\n' "$out" | grep -E '^(connected|failed)' | tail -1)
expect_output "... and again after the next lookup" "^connected 127\\.0\\.0\\.1$"

section tcp
expect_output "an answer too long for UDP comes over TCP, and is learned" "^hello big\\.llw\\.test:8080 from 198\\.51\\.100\\.7"
expect_output "... the resolver was asked over TCP" "big\\.llw\\.test 1 tcp"

section clients
if command -v node >/dev/null 2>&1; then
	expect_output "Node's fetch reaches an allowed name" "^node: hello api\\.llw\\.test:8080 from 198\\.51\\.100\\.7"
	expect_output "... a name outside allow-host does not resolve for it" "^node evil failed: (ENOTFOUND|EAI_AGAIN)"
else
	skip "Node is not installed (apt-get install nodejs)"
	skip "Node is not installed (apt-get install nodejs)"
fi
if [ -x "$D/goget" ]; then
	expect_output "... and Go, with its own resolver (netdns=go)" "^go: hello api\\.llw\\.test:8080 from 198\\.51\\.100\\.7"
	expect_output "... where a name outside allow-host does not resolve either" "^go failed: .*evil\\.llw\\.test.*(server misbehaving|no such host|refused)"
else
	skip "Go is not installed (apt-get install golang-go)"
	skip "Go is not installed (apt-get install golang-go)"
fi
expect_output "... and git clone over HTTPS" "^git: cloned llwrap-fixture$"
if command -v ssh >/dev/null 2>&1; then
	expect_output "... and ssh to the name on port 22" "^ssh: [1-9][0-9]* connection\\(s\\) on port 22$"
else
	skip "ssh is not installed (apt-get install openssh-client)"
fi

section hosts
expect_output "an /etc/hosts entry for an allowed name works" "^hello fromhosts\\.llw\\.test:8080 from 198\\.51\\.100\\.9"

section v6
expect_output "IPv6: an AAAA answer is learned and reached" "^connected ::ffff:127\\.0\\.0\\.1$"

section udp
expect_output "UDP: an allowed name's port is reached" "^sent 198\\.51\\.100\\.7$"
expect_output "... a denied name does not resolve" "^failed: -[0-9]+ "
expect_output "... its address is not reached" "^DENIED udp-send errno=EACCES"
expect_output "... one datagram arrived" "^udp count: 1$"

section race
expect_output "race: 500 or more connects (until both addresses were tried) flipping between a learned and a denied address never reach the denied listener" "^denied listener: ([0-9]+) -> \\1;"
expect_no_output "... while the allowed one got connections" "allowed listener: ([0-9]+) -> \\1$"

section stub-killed
expect_output "a run resolves before its resolver is killed" "^before: resolved$"
expect_output "... and fails closed after (no name resolves)" "^after: status 2$"
out=$(printf '%s\n' "$out" | sed -n 's/^supervisor ([0-9][0-9]*) ticks in 1 s: //p')
if [ -n "$out" ] && [ "$out" -lt 20 ]; then
	ok "... while the supervisor stays idle ($out ticks in a second)"
else
	not_ok "... while the supervisor stays idle"
	diag "ticks: $out"
fi

section stub-slow
expect_output "a datagram socket to the resolver is swapped at once while the resolver is stopped (made ahead)" "^made ahead: connected at once$"
expect_output "a TCP socket's swap waits for a resolver slow to answer the supervisor" "^slow: connected( at once)?$"
expect_output "... and the next lookup resolves too" "^next: resolved$"

section confined
expect_output "the resolver has no new privileges" "^NoNewPrivs:[[:space:]]+1$"
expect_output "... no capability" "^CapEff:[[:space:]]+0+$"
expect_output "... and a network namespace of its own" "^own netns$"

section deferred
if [ -n "${LLW_BACKEND:-}" ]; then
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12; do
		skip "L3 under llwrap's own backend only (the hooked binary, a pid namespace of llwrap's)"
	done
else
	expect_output "under L3 the resolver has no namespace of its own before the first query" "^before the first query: same netns$"
	expect_output "... the first query is answered" "^deferred: resolved$"
	expect_output "... after it the resolver has a network namespace of its own" "^after the first query: own netns$"
	expect_output "... no new privileges" "^after: NoNewPrivs:[[:space:]]+1$"
	expect_output "... no capability" "^after: CapEff:[[:space:]]+0+$"
	expect_output "no relay before the first query (the resolver forks it at its first request)" "^before the first query: no relay$"
	expect_output "... after it a relay, in the host's namespaces, not the resolver's" "^after the first query: a relay, in the host's namespaces$"
	expect_output "a name /etc/hosts answers, before any query: the connect wakes the resolver, and the relay checks it" "^deferred hosts: hello fromhosts\\.llw\\.test:8080 from 198\\.51\\.100\\.9"
	expect_output "... no query made" "^deferred hosts: 0 queries$"
	expect_output "a resolver that cannot start fails the query at once (no hang)" "^failed start: lookup status 2 after [0-2] s$"
	expect_output "... and the next one" "^failed start: again, status 2$"
	expect_output "... while the command goes on" "^failed start: the command goes on$"
fi

section agent
if [ -z "$OPENCODE" ]; then
	for _ in 1 2 3; do
		skip "opencode is not installed (npm install -g opencode-ai)"
	done
else
	expect_output "the real opencode agent reaches its provider by name (-p opencode, allow-host)" "done"
	expect_output "... its tool call ran" "^STEP0-OK$"
	expect_output "... and a name outside allow-host did not resolve for it" "^STEP0-rc=2$"
fi

section no-userns
if bwrap_backend; then
	for _ in 1 2; do
		skip "without user namespaces bubblewrap cannot run: the path of the Landlock backend"
	done
elif [ "$(landlock_abi)" -lt 3 ]; then
	# Nothing stands in for truncate(2) before ABI 3 without user
	# namespaces (DESIGN.md §14): the policy fails closed.
	expect_output "without user namespaces on Landlock ABI $(landlock_abi): the policy is refused, naming truncate(2)" \
		"this kernel cannot enforce the policy: truncate\\(2\\)"
	skip "... so the proxy path cannot be tried here"
else
	expect_output "without user namespaces, llwrap's proxy takes over" "^HTTPS_PROXY=http://127\\.0\\.0\\.1:[0-9]+$"
	expect_output "... and the allowed name is reached through it" "^hello api\\.llw\\.test:8443 from 198\\.51\\.100\\.7 sni=api\\.llw\\.test$"
fi

section root
expect_output "llwrap run as root says the command runs as root" "^llwrap: curl runs as root"
expect_output "as root, the allowed name is reached over https (the resolver, the relay)" "^hello api\\.llw\\.test:8443 from 198\\.51\\.100\\.7 sni=api\\.llw\\.test$"
expect_output "... a name not in allow-host does not resolve" "^root getent status 2$"
for h in llwrap-dns llwrap-relay; do
	expect_output "... $h has no new privileges" "^$h: NoNewPrivs:[[:space:]]+1$"
	expect_output "... no capability" "^$h: CapEff:[[:space:]]+0+$"
	expect_output "... and an empty bounding set" "^$h: CapBnd:[[:space:]]+0+$"
done

section log
expect_output "the log names the refused query, its process and rule" "dns-query udp evil\\.llw\\.test pid=[0-9]+ comm=curl rule=filtered/host$"
expect_no_output "... and no UDP connect to port 0 (getaddrinfo's sorting)" "connect udp [^ ]*:0 "
expect_output "... and the connect to an address no allowed name resolves to" "connect tcp 203\\.0\\.113\\.9:8080 pid=[0-9]+ comm=probe rule=filtered/unnamed$"
expect_output "... and the port an entry does not allow" "connect tcp 198\\.51\\.100\\.8:8080 pid=[0-9]+ comm=curl rule=filtered/host-port$"
if [ -z "${LLW_BACKEND:-}" ]; then
	expect_output "... and why a resolver could not start at the first query" "llwrap's resolver: refused \\(test hook\\)"
else
	skip "the hooked binary under llwrap's own backend only"
fi
done_testing
