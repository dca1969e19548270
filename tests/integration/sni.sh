#!/bin/sh
# The name check on connections to learned addresses (DESIGN.md §6.1):
# an address an allowed name resolved to is a shared front end serving
# other names too; a connection there must carry an allowed name.  The
# fixtures of named.sh: a resolver on 192.0.2.53 (api.llw.test is
# 198.51.100.7), and behind a veth pair, in a namespace of the test's
# own, servers on 198.51.100.7 that serve any name over HTTP (8080) and
# HTTPS (8443, a certificate for api.llw.test and other.llw.test), and
# count connections on port 22.  Run as root, the namespaces are the
# test's own and llwrap runs as the test user (as users run it: the relay
# forked by an unprivileged user); otherwise llwrap runs as root in a
# user namespace of the test's.
#
# Asserted, each with its neighbour: the allowed name works over HTTPS
# (curl, Python, Node, git) and HTTP; another name on the same address
# is refused (curl with --resolve, Python: ECONNRESET) with the log line
# and the note naming the check; no server name, an encrypted
# ClientHello, a session resumed under another name, an HTTP Host of
# another name: refused, and the server (a tally of the bytes each
# connection brought, on 8447) saw the relay's connection but not a byte
# of it, while the allowed name's reached it; the relayed socket is the
# client's own (connected to the relay: the options it set before its
# connect kept), or where its connect sends nothing yet (TCP Fast Open)
# a pair's end with those options carried; IPv4 and IPv6 sockets in
# turn in one run, each relayed; a plain TCP connection to
# an allowed :22 name reaches the address (nothing to check: no relay);
# a server that speaks first (a banner on 2525) refused at its first
# byte, not after the 10 s a first record is awaited, and reached by
# allow-cidr; a wildcard's budget of new labels a minute (the label
# channel); QUIC to a learned address
# refused; the relay confined; through llwrap's proxy (design (b)), an
# encrypted ClientHello closes the tunnel.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

if ! "$LLWRAP" --check 2>/dev/null | grep -q "S  supervisor   usable"; then
	skip_rest "the supervisor is unavailable here: $("$LLWRAP" --check | grep supervisor)"
fi
if ! userns_works; then
	skip_rest "no unprivileged user namespaces: the fixtures and llwrap's resolver need network namespaces of their own"
fi
# What why and --explain say of it.
run as_user $LLWRAP_B --allow-host api.llw.test:443,22 why api.llw.test:443
expect_output "why HOST:PORT names the check on the name" "note: +the name is checked too \\(llwrap-relay\\): a connection to the address must carry api\\.llw\\.test"
run as_user $LLWRAP_B --allow-host api.llw.test:443,22 why api.llw.test:22
expect_output "... and that ssh's port is decided by address alone" "note: +decided by address alone: port 22"
run as_user "$LLWRAP" --allow-host api.llw.test:443 --explain -- true
expect_output "--explain says which connections are checked by name" "names checked: a TCP connection to an address learned from a name goes through llwrap-relay"
for tool in unshare ip python3 openssl curl; do
	command -v "$tool" >/dev/null || skip_rest "$tool is not installed"
done

D=$T/sni
mkdir -p "$D/rw"
cp "$LLW_DATA/named/names.py" "$LLW_DATA/proxy/servers.py" "$LLW_DATA/srv.py" \
	"$LLW_DATA/sni/tls.py" "$LLW_DATA/named/gitsrv.py" \
	"$LLW_BUILDDIR/tests/helpers/llwrap-hooked" "$D/"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=api.llw.test \
	-addext "subjectAltName=DNS:api.llw.test,DNS:other.llw.test" \
	-keyout "$D/key.pem" -out "$D/cert.pem" 2>/dev/null ||
	skip_rest "openssl cannot make a test certificate"
printf '127.0.0.1 localhost\n198.51.100.7 etc.llw.test\n' >"$D/hosts"
echo "nameserver 192.0.2.53" >"$D/resolv.conf"
cat >"$D/allow.ini" <<'EOF'
[profile]
include = default
[network]
allow-host = api.llw.test:443,8080,8443,8444,22,9001,2525,8447
EOF
cat >"$D/banner.py" <<'EOF'
# banner.py READY: on 198.51.100.7:2525, a server that speaks first (an
# SMTP-like banner), then waits for its client to end.
import socket, threading, sys
s = socket.create_server(("198.51.100.7", 2525))
open(sys.argv[1], "w").close()
def serve(c):
    c.sendall(b"220 banner.llw.test ready\r\n")
    c.recv(1)
    c.close()
while True:
    threading.Thread(target=serve, args=(s.accept()[0],), daemon=True).start()
EOF
cat >"$D/tally.py" <<'EOF'
# tally.py READY TALLY: on 198.51.100.7:8447, read each connection to its
# end (or reset) and append "bytes N" to TALLY: what reached the server.
import socket, threading, sys
s = socket.create_server(("198.51.100.7", 8447))
open(sys.argv[1], "w").close()
lock = threading.Lock()
def serve(c):
    n = 0
    try:
        while True:
            b = c.recv(65536)
            if not b:
                break
            n += len(b)
    except OSError:
        pass
    with lock, open(sys.argv[2], "a") as f:
        f.write("bytes %d\n" % n)
    c.close()
while True:
    threading.Thread(target=serve, args=(s.accept()[0],), daemon=True).start()
EOF
cat >"$D/hello.py" <<'EOF'
# hello.py tls|http NAME: to api.llw.test:8447 (its address learned),
# a TLS ClientHello naming NAME or an HTTP request with Host NAME, sent a
# moment after the connect (the relay's own connect to the address is
# done by then), then the end of the writing side; what came back, or
# the errno.
import socket, ssl, sys, time
mode, name = sys.argv[1], sys.argv[2]
a = socket.getaddrinfo("api.llw.test", 8447, socket.AF_INET, socket.SOCK_STREAM)[0][4]
if mode == "tls":
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    i, o = ssl.MemoryBIO(), ssl.MemoryBIO()
    t = ctx.wrap_bio(i, o, server_hostname=name)
    try:
        t.do_handshake()
    except ssl.SSLWantReadError:
        pass
    msg = o.read()
else:
    msg = b"GET / HTTP/1.1\r\nHost: %s\r\n\r\n" % name.encode()
s = socket.create_connection(a, timeout=10)
time.sleep(0.3)
try:
    s.sendall(msg)
    try:
        s.shutdown(socket.SHUT_WR)
    except OSError:
        pass  # reset already: recv says so
    got = b""
    while True:
        b = s.recv(4096)
        if not b:
            break
        got += b
    print("%s %s: sent %d, got %d" % (mode, name, len(msg), len(got)))
except OSError as e:
    print("%s %s: errno %d" % (mode, name, e.errno))
EOF
cat >"$D/first.py" <<'EOF'
# first.py NAME PORT: connect, wait for the server's first line; what
# came, or the errno, and how long it took (whole seconds).
import socket, sys, time
t = time.monotonic()
try:
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=30)
    print("first: got", s.recv(64).split(b" ")[0].decode(), end="")
except OSError as e:
    print("first: errno", e.errno, end="")
print(" after %ds" % int(time.monotonic() - t), flush=True)
# The relay's refusal comes after the connect, and its note reaches the
# command's stderr only while the command lives (DESIGN.md 6.1): stay a
# moment, as a client that goes on does.
time.sleep(1)
EOF
cat >"$D/conn.py" <<'EOF'
# conn.py NAME PORT: getaddrinfo and a TCP connect; the peer it got.
import socket, sys
try:
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
    print("peer", s.getpeername()[0])
except OSError as e:
    print("failed:", e.errno)
EOF
mkdir -p "$T/gitsrc" "$D/repo"
(cd "$T/gitsrc" && git init -q && echo llwrap-fixture >README && git add README &&
	git -c user.name=llw -c user.email=llw@llw.test commit -qm fixture &&
	git clone -q --bare . "$D/repo/proj.git" &&
	git -C "$D/repo/proj.git" update-server-info) >/dev/null 2>&1 || : >"$D/no-git"
cat >"$D/inner.sh" <<'SH'
L=$1; B=${2:-}; DROP=${3:-}; d=$(dirname "$0")
setup_failed() { echo "SETUP: $*"; exit 2; }
mount --bind "$d/hosts" /etc/hosts || setup_failed "cannot bind-mount /etc/hosts"
mount --bind "$d/resolv.conf" /etc/resolv.conf || setup_failed "cannot bind-mount /etc/resolv.conf"
ip link set lo up && ip addr add 192.0.2.53/32 dev lo || setup_failed "cannot address lo"
ip link add v0 type veth peer name v1 2>&1 || setup_failed "cannot create a veth pair (no veth driver?)"
unshare -n sh -c 'ip link set lo up
	while ! ip link show v1 >/dev/null 2>&1; do sleep 0.05; done
	ip addr add 192.0.2.2/30 dev v1 && ip addr add 198.51.100.7/32 dev v1 &&
	ip link set v1 up && ip route add default via 192.0.2.1 &&
	{ python3 "$1/srv.py" tcp 198.51.100.7 22 "$1/ssh" >/dev/null 2>&1 & } &&
	{ python3 "$1/banner.py" "$1/ready.banner" >/dev/null 2>&1 & } &&
	{ python3 "$1/tally.py" "$1/ready.tally" "$1/tally" >/dev/null 2>&1 & } &&
	{ python3 "$1/gitsrv.py" "$1/cert.pem" "$1/key.pem" "$1/repo" "$1/ready.git" \
		>/dev/null 2>&1 & } &&
	exec python3 "$1/servers.py" "$1/cert.pem" "$1/key.pem" "$1/ready" \
		198.51.100.7 >/dev/null 2>&1' sh "$d" &
pid=$!
sleep 0.2
ip link set v1 netns $pid && ip addr add 192.0.2.1/30 dev v0 && ip link set v0 up &&
	ip route add 198.51.100.0/24 via 192.0.2.2 ||
	setup_failed "cannot set up the veth pair"
python3 "$d/names.py" 192.0.2.53 "$d/queries" "$d/ready.dns" >/dev/null 2>&1 &
i=0
while { [ ! -e "$d/ready" ] || [ ! -e "$d/ready.dns" ] || [ ! -e "$d/ssh" ] ||
	[ ! -e "$d/ready.banner" ] || [ ! -e "$d/ready.tally" ]; } && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
[ -e "$d/no-git" ] || while [ ! -e "$d/ready.git" ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
export XDG_STATE_HOME=$d/state
# shellcheck disable=SC2086
llw() { $DROP "$L" ${B:+--backend "$B"} --rx "$d" -p "$d/allow.ini" "$@" 2>&1; }
echo "== https"
llw -- curl -sS -m 10 --cacert "$d/cert.pem" https://api.llw.test:8443/
llw -- python3 "$d/tls.py" sni api.llw.test
command -v node >/dev/null && llw -- env NODE_EXTRA_CA_CERTS="$d/cert.pem" node -e "fetch('https://api.llw.test:8443/').then(r => r.text()).then(t => console.log('node: ' + t.trim()), e => console.log('node failed: ' + ((e.cause && e.cause.code) || e)))"
[ -e "$d/no-git" ] || { llw --rw "$d/rw" -- env GIT_SSL_CAINFO="$d/cert.pem" HOME="$d/rw" \
	git clone -q https://api.llw.test:8444/proj.git "$d/rw/clone" &&
	echo "git: cloned $(cat "$d/rw/clone/README")"; }
echo "== opts"
llw -- python3 -c "
import socket
a = socket.getaddrinfo('api.llw.test', 8443, socket.AF_INET, socket.SOCK_STREAM)[0][4]
o = [(socket.IPPROTO_TCP, socket.TCP_NODELAY), (socket.SOL_SOCKET, socket.SO_KEEPALIVE),
     (socket.IPPROTO_TCP, socket.TCP_KEEPIDLE), (socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT)]
get = lambda s: [s.getsockopt(l, n) for l, n in o]
s = socket.socket()
for (l, n), v in zip(o, [1, 1, 33, 4000]):
    s.setsockopt(l, n, v)
s.connect(a)
print('set:', *get(s), 'peer', s.getpeername()[0])
t, fresh = socket.socket(), get(socket.socket())
t.connect(a)
print('unset:', 'as a new socket' if get(t) == fresh else get(t), 'peer', t.getpeername()[0])
# IP_TOS is not one the supervisor carries: kept where the socket is the
# caller's own, a new socket's (0) on a pair's (TCP Fast Open's connect).
tos = lambda s: s.getsockopt(socket.IPPROTO_IP, socket.IP_TOS)
u = socket.socket()
u.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 16)
u.connect(a)
print('own:', tos(u), 'peer', u.getpeername()[0])
import ssl
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.load_verify_locations('$d/cert.pem')
f = socket.socket()
f.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 16)
f.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
f.setsockopt(socket.IPPROTO_TCP, 30, 1)  # TCP_FASTOPEN_CONNECT
f.connect(a)
r = [tos(f), f.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY), 'peer', f.getpeername()[0]]
f = ctx.wrap_socket(f, server_hostname='api.llw.test')
f.sendall(b'GET / HTTP/1.1\\r\\nHost: api.llw.test\\r\\nConnection: close\\r\\n\\r\\n')
body = b''
while True:
    b = f.recv(4096)
    if not b:
        break
    body += b
print('fastopen:', *r, body.split(b'\\r\\n\\r\\n')[-1].decode().strip())"
echo "== families"
# One run, IPv4 and IPv6 sockets (an IPv4-mapped destination) in turn,
# twice: each the caller's own, connected to the relay.
llw -- python3 -c "
import socket, ssl
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.load_verify_locations('$d/cert.pem')
a = socket.getaddrinfo('api.llw.test', 8443, socket.AF_INET, socket.SOCK_STREAM)[0][4]
for fam in [socket.AF_INET, socket.AF_INET6] * 2:
    s = socket.socket(fam)
    s.connect(a if fam == socket.AF_INET else ('::ffff:' + a[0], a[1]))
    f, p = s.family, s.getpeername()[0]
    t = ctx.wrap_socket(s, server_hostname='api.llw.test')
    t.sendall(b'GET / HTTP/1.1\\r\\nHost: api.llw.test\\r\\nConnection: close\\r\\n\\r\\n')
    body = b''
    while not body.endswith(b'\\n') or b'hello' not in body:
        b = t.recv(4096)
        if not b:
            break
        body += b
    print(f.name, 'peer', p, body.split(b'\\r\\n\\r\\n')[-1].decode().strip())
    t.close()"
echo "== pace"
# The relay's end of the pair (the accepted one: the listener's port)
# sends with Reno, not a pacing congestion control such as a host's
# default BBR: loopback has no path to pace for, and paced sends stall a
# download's catching up after its reader ran late.  The command's
# socket keeps a new socket's.
rm -f "$d/rw/went" "$d/rw/end"
llw --rw "$d/rw" -- python3 -c "
import os, socket, time
a = socket.getaddrinfo('api.llw.test', 8443, socket.AF_INET, socket.SOCK_STREAM)[0][4]
cc = lambda s: s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).split(b'\\0')[0]
fresh, s = cc(socket.socket()), socket.socket()
s.connect(a)
print('command:', 'as a new socket' if cc(s) == fresh else cc(s))
open('$d/rw/went', 'w').close()
while not os.path.exists('$d/rw/end'):
    time.sleep(0.05)" &
pacer=$!
i=0
while [ ! -e "$d/rw/went" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
port=$(ss -Htln | awk '$4 ~ /^127\.0\.0\.1:/ { sub(/.*:/, "", $4); print $4; exit }')
echo "relay end: $(ss -Htin state established "( sport = :$port )" | awk 'NR == 2 { print $1 }')"
: >"$d/rw/end"
wait $pacer
echo "== other"
llw -- sh -c "getent hosts api.llw.test >/dev/null; curl -sS -m 10 --cacert $d/cert.pem --resolve other.llw.test:8443:198.51.100.7 https://other.llw.test:8443/; echo curl-status \$?"
llw -- python3 "$d/tls.py" sni other.llw.test
echo "== log"
grep -h 'server-name\|no-name\|filtered/ech' "$d/state/llwrap/"*.log 2>/dev/null | sed 's/.*: //'
echo "== nosni"
llw -- python3 "$d/tls.py" nosni -
echo "== ech"
llw -- python3 "$d/tls.py" raw api.llw.test
llw -- python3 "$d/tls.py" ech api.llw.test
echo "== proxy"
llw --proxy -- python3 "$d/tls.py" proxy-raw api.llw.test
llw --proxy -- python3 "$d/tls.py" proxy-ech api.llw.test
grep -h 'rule=filtered/ech' "$d/state/llwrap/"*.log 2>/dev/null | sed 's/.*: //' | tail -1
echo "== resume"
llw -- python3 "$d/tls.py" resume api.llw.test
llw -- python3 "$d/tls.py" resume other.llw.test
echo "== http"
llw -- curl -sS -m 10 http://api.llw.test:8080/
llw -- curl -sS -m 10 -H "Host: other.llw.test" http://api.llw.test:8080/
echo "== hosts"
# A name /etc/hosts answers: no query, so the resolver (which forks the
# relay at its first request) is woken by the connect itself.
: >"$d/queries"
llw --allow-host etc.llw.test:8080 -- sh -c "curl -sS -m 10 http://etc.llw.test:8080/
curl -sS -m 10 -H 'Host: other.llw.test' http://etc.llw.test:8080/"
echo "queries: $(wc -l <"$d/queries")"
echo "== ssh"
n0=$(cat "$d/ssh")
llw -- python3 "$d/conn.py" api.llw.test 22
i=0
while [ "$(cat "$d/ssh")" = "$n0" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
echo "port 22: $n0 -> $(cat "$d/ssh")"
echo "== upstream"
# What reached the server, one connection at a time: the relay connects
# to the address at once, and sends nothing there before the check.
for h in "tls other.llw.test" "tls api.llw.test" "http other.llw.test" "http api.llw.test"; do
	n=$(cat "$d/tally" 2>/dev/null | wc -l)
	llw -- python3 "$d/hello.py" $h
	i=0
	while [ "$(cat "$d/tally" 2>/dev/null | wc -l)" -le "$n" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	echo "server: $h: $(sed -n "$((n + 1))p" "$d/tally" 2>/dev/null)"
done
echo "== banner"
llw -- python3 "$d/first.py" api.llw.test 2525
llw --allow-cidr 198.51.100.7/32:2525 -- python3 "$d/first.py" api.llw.test 2525
echo "== quic"
for port in 443 9001; do
	llw -- python3 -c "
import socket
a = socket.getaddrinfo('api.llw.test', $port, socket.AF_INET, socket.SOCK_DGRAM)[0][4]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.sendto(b'q' * 1200, a)
    print('udp $port: sent')
except OSError as e:
    print('udp $port: errno', e.errno)"
done
echo "== budget"
: >"$d/queries"
llw --allow-host '*.wild.llw.test:8080' -- python3 -c "
import socket
for i in list(range(25)) + [0]:
    try:
        socket.getaddrinfo('l%d.wild.llw.test' % i, 8080, socket.AF_INET)
    except OSError:
        pass
print('asked 26')"
echo "forwarded: $(grep '^l[0-9]*\.wild\.llw\.test ' "$d/queries" | cut -d' ' -f1 | sort -u | wc -l) names, l0 $(grep -c '^l0\.wild\.llw\.test ' "$d/queries") times"
grep -h 'filtered/dns-budget' "$d/state/llwrap/"*.log 2>/dev/null | sed 's/.*: //' | head -1
echo "== relay"
# Idle until the command's first connect to a learned address, then
# confined: each step waits for the other's file in $d/rw.
rm -f "$d/rw/go" "$d/rw/went" "$d/rw/end"
llw --rw "$d/rw" -- sh -c "while [ ! -e $d/rw/go ]; do sleep 0.05; done
curl -sS -m 10 --cacert $d/cert.pem https://api.llw.test:8443/ >/dev/null; : >$d/rw/went
while [ ! -e $d/rw/end ]; do sleep 0.05; done" >/dev/null &
sleeper=$!
i=0
while ! pgrep -x llwrap-relay >/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
p=/proc/$(pgrep -x llwrap-relay | head -1)
echo "idle: $(grep Seccomp: "$p/status" | tr -s '\t ' '  ')"
: >"$d/rw/go"
i=0
while [ ! -e "$d/rw/went" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
grep -e NoNewPrivs -e Seccomp: -e CapEff "$p/status"
: >"$d/rw/end"
wait $sleeper
echo "== relay-fails"
# A relay that cannot set up (its confinement refused): the relayed
# connect is refused, named; one decided by address alone goes on.
# shellcheck disable=SC2086
$DROP env LLW_HOOK_RELAY_FAILS=1 "$d/llwrap-hooked" ${B:+--backend "$B"} --rx "$d" \
	-p "$d/allow.ini" -- sh -c "python3 $d/conn.py api.llw.test 8443
python3 $d/conn.py api.llw.test 8443
python3 $d/conn.py api.llw.test 22" 2>&1
grep -h 'filtered/relay' "$d/state/llwrap/"*.log 2>/dev/null
echo "== relay-ended"
# The relay ends mid-run (killed, the one of this pid namespace's run):
# the next connect it would relay is refused, named; one decided by
# address alone goes on.
rm -f "$d/rw/go" "$d/rw/went" "$d/state/llwrap/"*.log
llw --rw "$d/rw" -- sh -c "python3 $d/conn.py api.llw.test 8443; : >$d/rw/went
while [ ! -e $d/rw/go ]; do sleep 0.05; done
python3 $d/conn.py api.llw.test 8443
python3 $d/conn.py api.llw.test 22" 2>&1 &
ender=$!
i=0
while [ ! -e "$d/rw/went" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
kill -9 $(pgrep -x llwrap-relay) 2>/dev/null
sleep 0.5
: >"$d/rw/go"
wait $ender
grep -h 'llwrap-relay ended' "$d/state/llwrap/"*.log 2>/dev/null
echo "== end"
SH
chmod -R a+rX "$D"
chmod a+rwx "$D/rw"
chown -R "$TEST_UID:$TEST_GID" "$D" 2>/dev/null

if [ "$(id -u)" -eq 0 ]; then
	# As root, the namespaces are the test's and llwrap runs as the test
	# user, as users run it: its helpers (the relay) forked by an
	# unprivileged user, outside any user namespace of the test's.
	drop="setpriv --reuid=$TEST_UID --regid=$TEST_GID --clear-groups --inh-caps=-all --bounding-set=-all --
		env -i HOME=$HOME_DIR USER=llwtest LOGNAME=llwtest PATH=/usr/local/bin:/usr/bin:/bin
		SHELL=/bin/sh TERM=dumb LANG=C.UTF-8 LLWRAP_PROFILE_PATH=${LLWRAP_PROFILE_PATH:-}
		GIT_CEILING_DIRECTORIES=$T XDG_STATE_HOME=$D/state"
	run sh -c 'cd "$1" && shift && exec unshare -n -m -p --fork --mount-proc sh "$@"' \
		sh "$PROJ" "$D/inner.sh" "$LLWRAP" "${LLW_BACKEND:-}" "$drop"
else
	run as_user unshare -r -n -m -p --fork --mount-proc sh "$D/inner.sh" "$LLWRAP" "${LLW_BACKEND:-}"
fi
all=$out
case $all in
*SETUP:*)
	skip_rest "the fixture network cannot be built here: $(printf '%s\n' "$all" | sed -n 's/^SETUP: //p' | head -1)" ;;
esac
section() {
	out=$(printf '%s\n' "$all" | sed -n "/^== $1\$/,/^== /p" | sed '1d;$d')
}

section https
expect_output "curl reaches the allowed name over HTTPS, through the check" "^hello api\\.llw\\.test:8443 from 198\\.51\\.100\\.7 sni=api\\.llw\\.test$"
expect_output "... Python's ssl too" "^sni: ok hello api\\.llw\\.test from 198\\.51\\.100\\.7 sni=api\\.llw\\.test$"
if command -v node >/dev/null; then
	expect_output "... Node's fetch too" "^node: hello api\\.llw\\.test:8443 from 198\\.51\\.100\\.7"
else
	skip "Node is not installed"
fi
if [ -e "$D/no-git" ]; then
	skip "git cannot make the fixture repository"
else
	expect_output "... git clone over HTTPS too" "^git: cloned llwrap-fixture$"
fi
section opts
expect_output "the options a client set before its connect are kept on the relayed socket" "^set: 1 1 33 4000 peer 127\\.0\\.0\\.1$"
expect_output "... and one that set none has a new socket's" "^unset: as a new socket peer 127\\.0\\.0\\.1$"
expect_output "... the caller's own socket, connected to the relay (an option never carried, IP_TOS, kept)" "^own: 16 peer 127\\.0\\.0\\.1$"
expect_output "... a TCP Fast Open connect on a pair of the supervisor's instead (IP_TOS a new socket's, TCP_NODELAY carried), through the check" "^fastopen: 0 1 peer 127\\.0\\.0\\.1 hello api\\.llw\\.test"
section families
expect_output "IPv4 and IPv6 sockets in turn in one run, each relayed: the first IPv4" "^AF_INET peer 127\\.0\\.0\\.1 hello api\\.llw\\.test from 198\\.51\\.100\\.7 sni=api\\.llw\\.test$"
expect_output "... the first IPv6 (connected to the relay IPv4-mapped)" "^AF_INET6 peer ::ffff:127\\.0\\.0\\.1 hello api\\.llw\\.test from 198\\.51\\.100\\.7 sni=api\\.llw\\.test$"
if [ "$(printf '%s\n' "$out" | grep -c "^AF_INET peer 127\\.0\\.0\\.1 hello api")" -eq 2 ] &&
	[ "$(printf '%s\n' "$out" | grep -c "^AF_INET6 peer ::ffff:127\\.0\\.0\\.1 hello api")" -eq 2 ]; then
	ok "... and the second of each family"
else
	not_ok "... and the second of each family"
	diag "$out"
fi
section pace
expect_output "the relay's end of a relayed connection sends with Reno (no pacing on loopback)" "^relay end: reno$"
expect_output "... the command's socket keeps a new socket's congestion control" "^command: as a new socket$"
section other
# The note may land inside curl's own message, across its lines: the
# status says it, Python's errno below the reset.
expect_output "another name on the same address is refused: curl's TLS connect fails (error 35)" "^curl-status 35$"
expect_no_output "... it never reached the server" "hello other"
expect_output "... Python sees ECONNRESET" "^sni: errno 104$"
expect_output "... the note names the check" "server name other\\.llw\\.test is not one of the names that resolved to 198\\.51\\.100\\.7 \\(rule filtered/server-name\\)"
section log
expect_output "the log line names the name, the address and the rule" "connect tcp other\\.llw\\.test@198\\.51\\.100\\.7:8443 pid=[0-9]+ comm=[^ ]+ rule=filtered/server-name"
section nosni
expect_output "a ClientHello without a server name is refused (ECONNRESET)" "^nosni: errno 104$"
section ech
expect_output "a hand-written ClientHello naming the allowed name gets a TLS record back" "^raw: ok record (15|16)$"
expect_output "... the same with encrypted_client_hello is refused (ECONNRESET)" "^ech: errno 104$"
section proxy
expect_output "through llwrap's proxy (design (b)), the hello naming the CONNECT host gets a TLS record" "^proxy-raw: record (15|16)$"
expect_output "... the same with encrypted_client_hello closes the tunnel" "^proxy-ech: (closed|errno 104)$"
expect_output "... logged by the proxy" "connect tcp api\\.llw\\.test:8443 pid=[0-9]+ comm=[^ ]+ rule=filtered/ech"
section resume
expect_output "a session resumed under the allowed name works" "^resume: ok hello api\\.llw\\.test"
expect_output "... resumed under another name it is refused" "^resume: errno 104$"
section http
expect_output "plain HTTP to the allowed name works" "^hello api\\.llw\\.test:8080 from 198\\.51\\.100\\.7 sni=-$"
expect_output "... a Host of another name gets 403 from the check" "not one of the names that resolved to this address"
expect_no_output "... and never reaches the server" "hello other"
section hosts
expect_output "a name /etc/hosts answers, before any query: through the check too" "^hello etc\\.llw\\.test:8080 from 198\\.51\\.100\\.7 sni=-$"
expect_output "... another Host to its address gets 403" "not one of the names that resolved to this address"
expect_output "... and no query was made" "^queries: 0$"
section ssh
expect_output "a plain TCP connection to an allowed name's port 22 reaches the address itself" "^peer 198\\.51\\.100\\.7$"
expect_output "... and the server" "^port 22: ([0-9]+) -> [1-9]"
section upstream
expect_output "a ClientHello naming another name is refused (ECONNRESET)" "^tls other\\.llw\\.test: errno 104$"
expect_output "... the server saw the relay's connection and not a byte of it" "^server: tls other\\.llw\\.test: bytes 0$"
expect_output "... the same hello naming the allowed name reaches the server whole" "^server: tls api\\.llw\\.test: bytes [1-9][0-9]*$"
expect_output "an HTTP request with another Host gets 403 from the check" "^http other\\.llw\\.test: sent [0-9]+, got [1-9]"
expect_output "... the server saw not a byte of it" "^server: http other\\.llw\\.test: bytes 0$"
expect_output "... the request with the allowed Host reaches the server" "^server: http api\\.llw\\.test: bytes [1-9][0-9]*$"
section banner
expect_output "a server that speaks first, to a learned address: refused at its first byte (ECONNRESET), not after the 10 s a first record is awaited" "^first: errno 104 after [0-4]s$"
expect_output "... with the note naming the rule" "connect tcp 198\\.51\\.100\\.7:2525: .*\\(rule filtered/no-name\\)"
expect_output "... the same server through allow-cidr (decided by address) answers" "^first: got 220 after [0-4]s$"
section quic
expect_output "QUIC (UDP 443) to a learned address is refused: its name is not checked (EACCES)" "^udp 443: errno 13$"
expect_output "... with the note naming the rule" "connect udp 198\\.51\\.100\\.7:443 \\(rule filtered/quic\\)|send(to|msg) udp 198\\.51\\.100\\.7:443 \\(rule filtered/quic\\)"
expect_output "... another UDP port of the name is decided by address, as before" "^udp 9001: sent$"
section budget
expect_output "a wildcard's new labels: the first $((20)) a minute leave the machine" "^forwarded: 20 names, l0 2 times$"
expect_output "... the rest are refused and logged" "dns-query udp l2[0-4]\\.wild\\.llw\\.test pid=[0-9]+ comm=[^ ]+ rule=filtered/dns-budget"
section relay
expect_output "before the first connect it relays, the relay holds only its channel: not confined yet (its set-up deferred)" "^idle: Seccomp: 0$"
expect_output "after it, the relay has no new privileges" "^NoNewPrivs:[[:space:]]+1$"
expect_output "... a seccomp filter" "^Seccomp:[[:space:]]+2$"
expect_output "... and no capability" "^CapEff:[[:space:]]+0+$"
section relay-fails
expect_output "a relay that cannot set up: the connect it would relay is refused (EACCES, not a reset or ECONNREFUSED)" "^failed: 13$"
if [ "$(printf '%s\n' "$out" | grep -c '^failed: 13$')" -eq 2 ]; then
	ok "... and the next one too"
else
	not_ok "... and the next one too"
	diag "$out"
fi
expect_output "... a connect decided by address alone still goes on" "^peer 198\\.51\\.100\\.7$"
expect_output "... the note on the command's stderr names the refusal" "198\\.51\\.100\\.7:8443.*\\(rule filtered/relay\\)"
expect_output "... the log line too" "connect tcp 198\\.51\\.100\\.7:8443 pid=[0-9]+ comm=[^ ]+ rule=filtered/relay$"
expect_output "... and the log says why the relay could not start" "llwrap-relay cannot confine itself: its confinement refused \\(test hook\\); every connect whose server name it would check is refused \\(filtered/relay\\)"
section relay-ended
expect_output "a relayed connect before the relay ends goes through it" "^peer 127\\.0\\.0\\.1$"
expect_output "... the relay ended, the next one is refused (EACCES)" "^failed: 13$"
expect_output "... a connect decided by address alone still goes on" "^peer 198\\.51\\.100\\.7$"
expect_output "... and the log says the relay ended" "llwrap-relay ended; every connect whose server name it would check is refused \\(filtered/relay\\)"
done_testing
