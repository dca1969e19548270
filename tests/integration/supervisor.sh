#!/bin/sh
# The network supervisor (layer S, DESIGN.md §6): CIDR and port rules,
# DNS resolvers, unix sockets by inode, listen addresses, the blocked-
# attempt log, and failing closed when the supervisor dies.  Loopback
# only: servers run outside the sandbox (as the suite's user), the
# sandboxed commands as the unprivileged test user.
. "$LLW_SRCDIR/tests/lib/libtest.sh"
need_default_profile

NETPROBE=$LLW_HELPERS/netprobe

# Under the bubblewrap backend llwrap stays outside as the supervisor
# just the same (bwrap runs under its notification filter): the suite
# runs whole there too (backend-bwrap.sh).
if ! "$LLWRAP" --check 2>/dev/null | grep -q "S  supervisor   usable"; then
	skip_rest "the supervisor is unavailable here: $("$LLWRAP" --check | grep supervisor)"
fi

# srv.py (tests/data): counting servers, outside the sandbox.
cp "$LLW_DATA/srv.py" "$T/srv.py"
serve() {
	python3 "$T/srv.py" "$@" &
	bg_pids="${bg_pids:-} $!"
}
wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}
count() { cat "$1" 2>/dev/null || echo 0; }

mkdir -p "$T/sock"
chmod 755 "$T/sock"
serve tcp 127.0.0.1 0 "$T/a" tcp 127.0.0.2 0 "$T/b" tcp ::1 0 "$T/c" \
	tcp 127.0.0.1 0 "$T/a2" \
	udp 127.0.0.1 0 "$T/ua" udp 127.0.0.2 0 "$T/ub" \
	unix-stream "$T/sock/pg.sock" - "$T/pg" \
	unix-stream "$T/sock/docker.sock" - "$T/docker" \
	unix-dgram "$T/sock/dgram.sock" - "$T/dgram" \
	unix-stream "@llw-host-abstract-$$" - "$T/abs"
for f in a b c a2 ua ub; do wait_file "$T/$f.port"; done
wait_file "$T/abs"
PA=$(cat "$T/a.port") PB=$(cat "$T/b.port") PC=$(cat "$T/c.port")
PA2=$(cat "$T/a2.port") UA=$(cat "$T/ua.port") UB=$(cat "$T/ub.port")
# One port on two addresses, for "another address, same port".
serve tcp 127.0.0.2 "$PA" "$T/b2"
wait_file "$T/b2"

# ---- TCP destinations ----
expect_succeeded "allow-cidr 127.0.0.1/32:PA: 127.0.0.1:PA connects" \
	llw -p default --allow-cidr "127.0.0.1/32:$PA" -- "$PROBE" tcp-connect 127.0.0.1 "$PA"
expect_denied "... 127.0.0.2:PA (another address) is refused" EACCES \
	llw -p default --allow-cidr "127.0.0.1/32:$PA" -- "$PROBE" tcp-connect 127.0.0.2 "$PA"
expect_denied "... 127.0.0.1:PA2 (another port on loopback) is refused" EACCES \
	llw -p default --allow-cidr "127.0.0.1/32:$PA" -- "$PROBE" tcp-connect 127.0.0.1 "$PA2"
expect_succeeded "an entry without ports takes connect-tcp's" \
	llw -p default --connect-tcp "$PA2" --allow-cidr 127.0.0.0/8 -- "$PROBE" tcp-connect 127.0.0.1 "$PA2"
expect_denied "... and only those" EACCES \
	llw -p default --connect-tcp "$PA2" --allow-cidr 127.0.0.0/8 -- "$PROBE" tcp-connect 127.0.0.1 "$PA"
expect_succeeded "IPv6 ::1/128:PC connects to [::1]:PC" \
	llw -p default --allow-cidr "::1/128:$PC" -- "$PROBE" tcp-connect ::1 "$PC"
expect_denied "an IPv4 entry does not cover ::1" EACCES \
	llw -p default --allow-cidr "127.0.0.0/8:$PC" -- "$PROBE" tcp-connect ::1 "$PC"
expect_succeeded "IPv4-mapped ::ffff:127.0.0.1 is 127.0.0.1" \
	llw -p default --allow-cidr "127.0.0.1/32:$PA" -- "$PROBE" tcp-connect ::ffff:127.0.0.1 "$PA"
expect_denied "IPv4-mapped ::ffff:127.0.0.2 is refused like 127.0.0.2" EACCES \
	llw -p default --allow-cidr "127.0.0.1/32:$PA" -- "$PROBE" tcp-connect ::ffff:127.0.0.2 "$PA"
expect_succeeded "a non-blocking connect completes (EINPROGRESS, then poll)" \
	llw -p default --allow-cidr "127.0.0.1/32:$PA" -- "$NETPROBE" tcp-connect-nb 127.0.0.1 "$PA"
expect_output "... answered EINPROGRESS as the kernel would" "einprogress|immediate"
expect_denied "a non-blocking connect to a refused address fails" EACCES \
	llw -p default --allow-cidr "127.0.0.1/32:$PA" -- "$NETPROBE" tcp-connect-nb 127.0.0.2 "$PA"

# ---- The race: a thread flips the address during the connects ----
before=$(count "$T/b2")
beforea=$(count "$T/a")
run llw -p default --allow-cidr "127.0.0.1/32:$PA" -- "$NETPROBE" race 127.0.0.1 127.0.0.2 "$PA" 3000
# A connect completes in the listener's backlog, before srv.py counts
# it: wait for the allowed count to move (at most 20 s), not a while.
i=0
while [ "$(count "$T/a")" -eq "$beforea" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
after=$(count "$T/b2")
aftera=$(count "$T/a")
if [ "$rc" -eq 0 ] && [ "$after" -eq "$before" ]; then
	ok "race: 3000 or more connects (until both addresses were tried) with the address flipping never reach the denied listener"
else
	not_ok "race: the denied listener was reached"
	diag "status $rc, denied listener accepts $before -> $after: $out"
fi
if [ "$aftera" -gt "$beforea" ]; then
	ok "race: ... while the allowed listener got $((aftera - beforea)) connections"
else
	not_ok "race: the allowed listener got nothing"
	diag "$out"
fi

# ---- UDP ----
ua0=$(count "$T/ua")
expect_succeeded "UDP sendto an allowed destination" \
	llw -p default --allow-cidr "127.0.0.1/32:$UA" -- "$PROBE" udp-send 127.0.0.1 "$UA"
expect_denied "UDP sendto another address is refused" EACCES \
	llw -p default --allow-cidr "127.0.0.1/32:$UA" -- "$PROBE" udp-send 127.0.0.2 "$UB"
expect_succeeded "UDP sendmsg with a destination, allowed" \
	llw -p default --allow-cidr "127.0.0.1/32:$UA" -- "$NETPROBE" udp-sendmsg 127.0.0.1 "$UA"
expect_denied "UDP sendmsg to another address is refused" EACCES \
	llw -p default --allow-cidr "127.0.0.1/32:$UA" -- "$NETPROBE" udp-sendmsg 127.0.0.2 "$UB"
expect_succeeded "UDP sendmmsg, allowed (both messages)" \
	llw -p default --allow-cidr "127.0.0.1/32:$UA" -- "$NETPROBE" udp-sendmmsg 127.0.0.1 "$UA"
expect_denied "UDP sendmmsg to another address is refused" EACCES \
	llw -p default --allow-cidr "127.0.0.1/32:$UA" -- "$NETPROBE" udp-sendmmsg 127.0.0.2 "$UB"
expect_succeeded "UDP connect + send, allowed" \
	llw -p default --allow-cidr "127.0.0.1/32:$UA" -- "$NETPROBE" udp-connect-send 127.0.0.1 "$UA"
expect_denied "UDP connect to another address is refused" EACCES \
	llw -p default --allow-cidr "127.0.0.1/32:$UA" -- "$NETPROBE" udp-connect-send 127.0.0.2 "$UB"
# Datagrams have no answer to wait for: wait for their count (at most 20
# s), not a while.
i=0
while [ "$(count "$T/ua")" -lt $((ua0 + 5)) ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
if [ "$(count "$T/ua")" -ge $((ua0 + 5)) ] && [ "$(count "$T/ub")" -eq 0 ]; then
	ok "UDP: the allowed server got the datagrams, the other none"
else
	not_ok "UDP datagram counts"
	diag "allowed $ua0 -> $(count "$T/ua"), other $(count "$T/ub")"
fi

# ---- DNS: only the configured resolver ----
expect_succeeded "DNS to the configured resolver 127.0.0.2:53" \
	llw -p default --dns 127.0.0.2 --allow-cidr 127.0.0.0/8:1-65535 -- "$PROBE" udp-send 127.0.0.2 53
expect_denied "DNS to another server is refused, even inside allow-cidr" EACCES \
	llw -p default --dns 127.0.0.2 --allow-cidr 127.0.0.0/8:1-65535 -- "$PROBE" udp-send 127.0.0.3 53
# (dns.sh runs a resolver on port 53 in a namespace of its own and
# counts what reaches it; no fixture here needs a privileged port.)
run llw -p default --allow-cidr 10.0.0.0/8 --explain -- /bin/true
expect_output "without dns, the resolvers come from /etc/resolv.conf" "DNS .*resolv.conf"

# ---- Unix sockets ----
ln -s "$T/sock/docker.sock" "$PROJ/docker-link.sock"
ln -s "$T/sock/pg.sock" "$PROJ/pg-link.sock"
U="--unix $T/sock/pg.sock"
# shellcheck disable=SC2086
{
expect_succeeded "unix allow-list: the listed socket connects" \
	llw -p default $U -- "$PROBE" unix-connect "$T/sock/pg.sock"
expect_denied "unix allow-list: another host socket (docker.sock) does not" EACCES \
	llw -p default $U -- "$PROBE" unix-connect "$T/sock/docker.sock"
expect_succeeded "a symlink to the listed socket connects (compared by inode)" \
	llw -p default $U -- "$PROBE" unix-connect "$PROJ/pg-link.sock"
expect_denied "a symlink to docker.sock inside the project does not" 'landlock:EACCES|bwrap:ENOENT' \
	llw -p default $U -- "$PROBE" unix-connect "$PROJ/docker-link.sock"
expect_denied "/proc/self/root/...docker.sock does not" 'landlock:EACCES|bwrap:ENOENT' \
	llw -p default $U -- "$PROBE" unix-connect "/proc/self/root$T/sock/docker.sock"
expect_denied "a relative path to docker.sock does not" EACCES \
	llw -p default $U -- /bin/sh -c "cd $PROJ && exec $PROBE unix-connect docker-link.sock"
expect_denied "SOCK_DGRAM + sendto a host datagram socket does not" EACCES \
	llw -p default $U -- "$NETPROBE" unix-dgram-sendto "$T/sock/dgram.sock"
expect_succeeded "... unless it is on the allow-list" \
	llw -p default --unix "$T/sock/dgram.sock" -- "$NETPROBE" unix-dgram-sendto "$T/sock/dgram.sock"
expect_succeeded "socketpair(AF_UNIX, SOCK_DGRAM) is allowed under the supervisor" \
	llw -p default $U -- "$PROBE" socketpair-dgram
expect_succeeded "the sandbox's own unix server: bind + listen + connect from a child" \
	llw -p default $U -- "$NETPROBE" unix-self "$PROJ/own.sock"

# The allow-list is resolved before the command runs (review of
# 2026-11-27, F1): a listed socket in a tree the sandbox can write,
# swapped for a symlink to another socket of the user's, must not lead
# the supervisor there.
serve unix-stream "$PROJ/listed.sock" - "$T/listed"
i=0
while [ ! -S "$PROJ/listed.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
docker_before=$(count "$T/docker")
run llw -p default --unix "$PROJ/listed.sock" -- /bin/sh -c "
	$PROBE unix-connect $PROJ/listed.sock || exit 90
	mv $PROJ/listed.sock $PROJ/listed.aside &&
	ln -s $T/sock/docker.sock $PROJ/listed.sock || exit 91
	$PROBE unix-connect $PROJ/listed.sock; r=\$?
	rm -f $PROJ/listed.sock; mv $PROJ/listed.aside $PROJ/listed.sock
	exit \$r"
expect_was_denied "a listed socket in the project, swapped for a symlink to docker.sock during the run, is refused" \
	'landlock:EACCES|bwrap:ENOENT'
if [ "$(count "$T/docker")" = "$docker_before" ] && [ "$(count "$T/listed")" -ge 1 ]; then
	ok "... docker.sock got nothing; the listed socket got the first connect"
else
	not_ok "... docker.sock got nothing; the listed socket got the first connect"
	diag "docker: $docker_before -> $(count "$T/docker"); listed: $(count "$T/listed"); $out"
fi
# An entry whose directories are the host's alone is looked up again:
# a socket the host makes after the start (a service that starts or
# restarts) connects.
rm -f "$T/sock/late.sock"
if [ "${LLW_BACKEND:-}" = bwrap ]; then
	skip "a listed socket made after the start: bubblewrap's view binds the listed sockets there at the start (DESIGN.md §6)"
else
# (The socket's file exists from its bind, before its listen: a connect
# between them is refused by the kernel, ECONNREFUSED, and tried again;
# a refusal of the policy's, EACCES, is not.)
llw -p default --unix "$T/sock/late.sock" -- /bin/sh -c "
	i=0; while [ ! -S $T/sock/late.sock ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i + 1)); done
	while o=\$($PROBE unix-connect $T/sock/late.sock 2>&1); r=\$?; [ \$r -ne 0 ] &&
		[ \$i -lt 200 ] && case \$o in *ECONNREFUSED*) true ;; *) false ;; esac; do
		sleep 0.05; i=\$((i + 1))
	done
	printf '%s\\n' \"\$o\"; exit \$r" >"$T/late.out" 2>&1 &
late_pid=$!
sleep 0.2
serve unix-stream "$T/sock/late.sock" - "$T/latesock"
if wait "$late_pid"; then
	ok "a listed socket outside what the sandbox can write, made by the host after the start, connects"
else
	not_ok "a listed socket outside what the sandbox can write, made by the host after the start, connects"
	diag "$(cat "$T/late.out")"
fi
fi
# The supervisor never waits on a descriptor the sandbox holds: a thread
# clearing O_NONBLOCK on a socket whose connect the supervisor makes, to
# the sandbox's own listener with a full backlog, must not stop it from
# answering the sandbox's other calls (review of 2026-11-27, F2: it
# waited until the run was killed).
run llw -p default $U --timeout 30 -- "$NETPROBE" wedge-connect 127.0.0.2 9 10
expect_output "a sandboxed thread clearing O_NONBLOCK during the supervisor's connect does not wedge it: every other call is answered" \
	"^SUCCEEDED wedge-connect answered=10 "
expect_denied "binding a unix socket outside the writable tree is refused" 'landlock:EACCES|bwrap:ENOENT' \
	llw -p default $U -- "$NETPROBE" unix-self "$OUTSIDE/own.sock"
if [ ! -e "$OUTSIDE/own.sock" ]; then ok "... and created nothing there"; else not_ok "a socket appeared in $OUTSIDE"; fi
# A writable tree named through a symlink: Landlock resolves the rule,
# and the supervisor's check decides on the same compiled plan
# (plan_decide on the kernel's path), so the bind succeeds there by
# either name, and the neighbour outside the tree is still refused (by
# the supervisor's check, EACCES, under either backend: bubblewrap's view
# holds the directory, as the parent of the bound tree).
mkdir -p "$OUTSIDE/real-rw"
chown "$TEST_UID:$TEST_GID" "$OUTSIDE/real-rw"
ln -s "$OUTSIDE/real-rw" "$OUTSIDE/rw-link"
expect_succeeded "a unix socket binds in an rw tree named through a symlink" \
	llw -p default $U --rw "$OUTSIDE/rw-link" -- "$NETPROBE" unix-self "$OUTSIDE/real-rw/own.sock"
expect_succeeded "... and by the symlink's name" \
	llw -p default $U --rw "$OUTSIDE/rw-link" -- "$NETPROBE" unix-self "$OUTSIDE/rw-link/own2.sock"
expect_denied "... its neighbour outside the tree is still refused" EACCES \
	llw -p default $U --rw "$OUTSIDE/rw-link" -- "$NETPROBE" unix-self "$OUTSIDE/own.sock"
# A connect to a socket that is not there says ENOENT where the command
# may look (decided on the plan at the kernel's path: the rw tree named
# through the symlink is the one it sees), EACCES where it may not.
expect_denied "a missing socket in an rw tree named through a symlink: ENOENT" ENOENT \
	llw -p default $U --rw "$OUTSIDE/rw-link" -- "$PROBE" unix-connect "$OUTSIDE/real-rw/gone/none.sock"
expect_denied "... a missing socket outside what the command sees: EACCES" EACCES \
	llw -p default $U --rw "$OUTSIDE/rw-link" -- "$PROBE" unix-connect "$OUTSIDE/gone.sock"
expect_denied "a host abstract socket is refused" EACCES \
	llw -p default $U -- "$PROBE" abstract-connect "llw-host-abstract-$$"
# The server says SUCCEEDED once it listens: the client waits for that.
run llw -p default $U -- /bin/sh -c "$PROBE abstract-serve llw-own-$$ >$PROJ/own.ready & i=0; until grep -q SUCCEEDED $PROJ/own.ready 2>/dev/null || [ \$i -ge 400 ]; do sleep 0.05; i=\$((i + 1)); done; $PROBE abstract-connect llw-own-$$; wait"
expect_output "the sandbox's own abstract socket connects" "SUCCEEDED abstract-connect"
}
if [ "$(count "$T/docker")" -eq 0 ] && [ "$(count "$T/pg")" -ge 2 ]; then
	ok "unix: the listed server got connections, docker.sock none"
else
	not_ok "unix connection counts"
	diag "pg $(count "$T/pg"), docker $(count "$T/docker")"
fi

# ---- bind: only the listen address ----
L=$(free_port)
expect_succeeded "listen 127.0.0.1:L: that bind succeeds" \
	llw -p default --listen "127.0.0.1:$L" -- "$PROBE" tcp-bind 127.0.0.1 "$L"
expect_denied "... another port does not" EACCES \
	llw -p default --listen "127.0.0.1:$L" -- "$PROBE" tcp-bind 127.0.0.1 "$(free_port)"
expect_denied "... another address (127.0.0.2) does not" EACCES \
	llw -p default --listen "127.0.0.1:$L" -- "$PROBE" tcp-bind 127.0.0.2 "$L"
expect_succeeded "... the wildcard address binds loopback instead (never serves the network)" \
	llw -p default --listen "127.0.0.1:$L" -- "$NETPROBE" self tcp 0.0.0.0 "$L" 127.0.0.1
expect_output "... bound to 127.0.0.1" "bound=127\.0\.0\.1 $L\$"
expect_denied "... nor port 0 without bind-tcp 0" EACCES \
	llw -p default --listen "127.0.0.1:$L" -- "$PROBE" tcp-bind 127.0.0.1 0
expect_succeeded "... port 0 on loopback with bind-tcp 0" \
	llw -p default --listen "127.0.0.1:$L" --bind-tcp 0 -- "$PROBE" tcp-bind 127.0.0.1 0
expect_succeeded "... listen() without bind lands on loopback, not the wildcard" \
	llw -p default --listen "127.0.0.1:$L" --bind-tcp 0 -- "$NETPROBE" tcp-listen-unbound
expect_output "... 127.0.0.1:ephemeral" "bound=127\.0\.0\.1 [0-9]+\$"
expect_denied "... and without bind-tcp 0 it is refused" EACCES \
	llw -p default --listen "127.0.0.1:$L" -- "$NETPROBE" tcp-listen-unbound
expect_denied "... UDP bind of the same address needs its own rule" EACCES \
	llw -p default --listen "127.0.0.1:$L" -- "$PROBE" udp-bind 127.0.0.2 "$L"

# ---- supervise = yes: local destinations, the sandbox's own listeners ----
# A port rule is not a host rule: it reaches the internet, not this host
# or its networks.  The sandbox's own listeners (by socket cookie) are
# reachable on any loopback port; binds land on loopback only.
printf '[network]\nsupervise = yes\nconnect-tcp = %s\nbind-tcp = 0 1024-65535\nbind-udp = 0 1024-65535\n' "$PA" >"$T/sv.ini"
chmod 644 "$T/sv.ini"
SV="-p $T/sv.ini"
# shellcheck disable=SC2086
{
expect_denied "supervise: connect-tcp PA does not reach a host listener on 127.0.0.1:PA" EACCES \
	llw -p default $SV -- "$PROBE" tcp-connect 127.0.0.1 "$PA"
expect_output "... refused at once (EACCES)" "errno=EACCES"
expect_denied "... nor through 0.0.0.0:PA (which is loopback)" EACCES \
	llw -p default $SV -- "$PROBE" tcp-connect 0.0.0.0 "$PA"
expect_denied "... nor [::]:PC" EACCES \
	llw -p default $SV -- "$PROBE" tcp-connect :: "$PC"
run llw -p default --connect-tcp "$PA" -- "$PROBE" tcp-connect 127.0.0.1 "$PA"
expect_output "... where Landlock alone lets the port rule reach it (the reason for the supervisor)" "SUCCEEDED"
expect_succeeded "... an allow-cidr entry reaches it" \
	llw -p default $SV --allow-cidr "127.0.0.1/32:$PA" -- "$PROBE" tcp-connect 127.0.0.1 "$PA"
L2=$(free_port)
expect_succeeded "the sandbox's own TCP server on a fixed port: a client in the sandbox connects" \
	llw -p default $SV -- "$NETPROBE" self tcp 127.0.0.1 "$L2" -
expect_succeeded "... on an ephemeral port" \
	llw -p default $SV -- "$NETPROBE" self tcp 127.0.0.1 0 -
expect_succeeded "... over IPv6" \
	llw -p default $SV -- "$NETPROBE" self tcp ::1 0 -
expect_succeeded "... bound to 0.0.0.0: it lands on 127.0.0.1, reached through 0.0.0.0" \
	llw -p default $SV -- "$NETPROBE" self tcp 0.0.0.0 0 0.0.0.0
expect_output "... bound to 127.0.0.1" "bound=127\.0\.0\.1 "
expect_succeeded "... bound to ::, it lands on ::1" \
	llw -p default $SV -- "$NETPROBE" self tcp :: 0 ::1
expect_output "... bound to ::1" "bound=::1 "
# ... and where the kernel's port for ::1 is one a host socket holds on
# 127.0.0.1 (a network namespace of the test's own whose ephemeral range
# is two ports, both held on 127.0.0.1): the command asked for any port,
# and gets one no host socket shares, not EADDRINUSE (filtered/shared-port
# refused it, seen in CI at load).
cat >"$T/eph.sh" <<'EOS'
ip link set lo up 2>/dev/null || exit 3
echo "40000 40003" >/proc/sys/net/ipv4/ip_local_port_range || exit 3
python3 -c '
import socket, sys, time
h = []
for p in (40001, 40003):
    s = socket.socket(); s.bind(("127.0.0.1", p)); s.listen(); h.append(s)
open(sys.argv[1], "w").close(); time.sleep(60)' "$1/held" &
while [ ! -e "$1/held" ]; do sleep 0.05; done
shift
$LLW_AS_USER "$@"
EOS
if [ "$(id -u)" -eq 0 ] && command -v ip >/dev/null 2>&1; then
	rm -f "$T/held"
	run netns_fixture sh "$T/eph.sh" "$T" "$LLWRAP" --rx "$LLW_HELPERS" -p default $SV -- "$NETPROBE" self tcp :: 0 ::1
	if [ "$rc" -eq 3 ]; then
		skip "a port of ::1 held on 127.0.0.1: no network namespace of the test's own here"
	else
		expect_rc "... bound to :: where the kernel's ports for ::1 are held on 127.0.0.1: it listens, on another" 0
		expect_output "... on ::1, at a port no host socket holds" "bound=::1 .*4000[02]"
	fi
else
	skip "a port of ::1 held on 127.0.0.1: needs root (a network namespace of the test's own, ip)"
fi
expect_succeeded "the sandbox's own UDP server: a datagram reaches it" \
	llw -p default $SV -- "$NETPROBE" self udp 127.0.0.1 0 -
expect_denied "a bind of a privileged or unlisted port is still refused" EACCES \
	llw -p default $SV -- "$NETPROBE" self tcp 127.0.0.1 80 -
}

# A port the sandbox once listened on, taken over by a host server after
# the sandbox closed its socket: the host's server is not the sandbox's.
L3P=$(free_port)
rm -f "$PROJ/go" "$PROJ/closed"
spawn_as_user "$LLWRAP" --rx "$LLW_HELPERS" -p default -p "$T/sv.ini" -- /bin/sh -c \
	"$NETPROBE tcp-bind-close 127.0.0.1 $L3P && touch $PROJ/closed; while [ ! -e $PROJ/go ]; do sleep 0.05; done; $PROBE tcp-connect 127.0.0.1 $L3P" >"$T/squat.out" 2>&1
sq=$spawned
i=0
while [ ! -e "$PROJ/closed" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
serve tcp 127.0.0.1 "$L3P" "$T/squat"
wait_file "$T/squat"
touch "$PROJ/go"
wait "$sq" 2>/dev/null
if grep -q "^SUCCEEDED tcp-bind-close" "$T/squat.out" && grep -q "^DENIED tcp-connect errno=EACCES" "$T/squat.out" &&
	[ "$(count "$T/squat")" -eq 0 ]; then
	ok "a host server on a port the sandbox used to listen on is refused (identity by socket cookie, not port)"
else
	not_ok "a host server that took over the sandbox's port"
	diag "$(cat "$T/squat.out"), accepts $(count "$T/squat")"
fi

# The same for an abstract unix name.
rm -f "$PROJ/go" "$PROJ/closed"
spawn_as_user "$LLWRAP" --rx "$LLW_HELPERS" -p default -p "$T/sv.ini" -- /bin/sh -c \
	"$PROBE abstract-serve llw-squat-$$ >$PROJ/squat.ready & i=0; until grep -q SUCCEEDED $PROJ/squat.ready 2>/dev/null || [ \$i -ge 400 ]; do sleep 0.05; i=\$((i + 1)); done; $PROBE abstract-connect llw-squat-$$; kill %1; wait; touch $PROJ/closed; while [ ! -e $PROJ/go ]; do sleep 0.05; done; $PROBE abstract-connect llw-squat-$$" >"$T/asquat.out" 2>&1
sq=$spawned
i=0
while [ ! -e "$PROJ/closed" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
serve unix-stream "@llw-squat-$$" - "$T/asquat"
wait_file "$T/asquat"
touch "$PROJ/go"
wait "$sq" 2>/dev/null
if [ "$(grep -c "^SUCCEEDED abstract-connect" "$T/asquat.out")" -eq 1 ] &&
	grep -q "^DENIED abstract-connect" "$T/asquat.out" && [ "$(count "$T/asquat")" -eq 0 ]; then
	ok "an abstract name the sandbox bound and let go, taken by a host server, is refused"
else
	not_ok "a host server that took over the sandbox's abstract name"
	diag "$(cat "$T/asquat.out"), accepts $(count "$T/asquat")"
fi

# ---- Listeners and shared ports (DESIGN.md §16) ----
LOGDIR=$HOME_DIR/.local/state/llwrap
# hold_listener NAME PROTO ADDR PORT [reuseport]: a host service as the
# test user (a SO_REUSEPORT group can be joined by the same user only),
# until the test ends; its port in $HOLD/NAME.port.
HOLD=$PROJ/hold
mkdir -p "$HOLD"
chmod 777 "$HOLD"
hold_listener() {
	cat >"$T/hold.py" <<'PY'
import socket, sys, time
name, proto, addr, port = sys.argv[1:5]
s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET,
                  socket.SOCK_STREAM if proto == "tcp" else socket.SOCK_DGRAM)
if sys.argv[5:] == ["reuseport"]:
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
s.bind((addr, int(port)))
if proto == "tcp":
    s.listen(64)
open(name + ".port.tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(name + ".port.tmp", name + ".port")
time.sleep(1800)
PY
	chmod 644 "$T/hold.py"
	rm -f "$HOLD/$1.port"
	spawn_as_user python3 "$T/hold.py" "$HOLD/$1" "$2" "$3" "$4" ${5:-}
	wait_file "$HOLD/$1.port"
}
# shellcheck disable=SC2086
{
hold_listener group tcp 127.0.0.1 0 reuseport
RP=$(cat "$HOLD/group.port")
run as_user python3 -c "
import socket; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
s.bind(('127.0.0.1', $RP)); s.listen(); print('joined')"
expect_output "SO_REUSEPORT: outside the sandbox the same user joins a host service's group (the kernel lets it)" "^joined"
expect_denied "... in the sandbox the bind that would join it is refused" EADDRINUSE \
	llw -p default $SV -n shared -- "$PROBE" tcp-bind 127.0.0.1 "$RP"
expect_output "... with EADDRINUSE, as for a port in use" "errno=EADDRINUSE"
OP=$(free_port)
mkdir -p "$PROJ/rp"
chmod 777 "$PROJ/rp"
expect_succeeded "... while the sandbox's own SO_REUSEPORT group works" \
	llw -p default $SV -- /bin/sh -c "$NETPROBE listen-wait 127.0.0.1 $OP 1 $PROJ/rp & while [ ! -s $PROJ/rp/listening ]; do sleep 0.05; done; $NETPROBE listen-wait 127.0.0.1 $OP 1 $PROJ/rp.2 >/dev/null 2>&1 & sleep 0.3; touch $PROJ/rp/go; wait %1"
expect_output "... its own clients reach it" "own=10 refused=0"
if grep -Eq "^llwrap-shared-blocked: bind tcp 127\.0\.0\.1:$RP pid=[0-9]+ comm=probe rule=filtered/shared-port\$" "$LOGDIR/shared.log" 2>/dev/null; then
	ok "... the refusal is logged as filtered/shared-port"
else
	not_ok "the shared-port log line"
	diag "$(cat "$LOGDIR/shared.log" 2>&1)"
fi

# A host service that joins the sandbox's group afterwards: the
# sandbox's connects there reach both, so the own-listener exemption no
# longer applies.
OP2=$(free_port)
rm -rf "$PROJ/rp2"
mkdir -p "$PROJ/rp2"
chmod 777 "$PROJ/rp2"
spawn_as_user $LLWRAP_B --rx "$LLW_HELPERS" -p default $SV -- "$NETPROBE" listen-wait 127.0.0.1 "$OP2" 1 "$PROJ/rp2" >"$T/rp2.out" 2>&1
rp2=$spawned
wait_file "$PROJ/rp2/listening"
hold_listener joiner tcp 127.0.0.1 "$OP2" reuseport
touch "$PROJ/rp2/go"
wait "$rp2" 2>/dev/null
if grep -q "own=0 refused=10 errno=EACCES" "$T/rp2.out"; then
	ok "a host service in the sandbox's own SO_REUSEPORT group: the sandbox's connects there are refused (not all its own)"
else
	not_ok "connects to a group a host service joined"
	diag "$(cat "$T/rp2.out")"
fi

# The other loopback family, and the wildcard, beside a host service.
serve tcp 127.0.0.1 0 "$T/v4only" tcp ::1 0 "$T/v6only" udp 127.0.0.1 0 "$T/u4only"
wait_file "$T/v4only.port"
wait_file "$T/v6only.port"
wait_file "$T/u4only.port"
P4=$(cat "$T/v4only.port") P6=$(cat "$T/v6only.port") U4=$(cat "$T/u4only.port")
run "$PROBE" tcp-bind ::1 "$P4"
expect_output "a listener on [::1] beside a host service on 127.0.0.1 at that port: the kernel allows it" "^SUCCEEDED"
expect_denied "... the sandbox may not (host clients trying ::1 first for localhost would reach it)" EADDRINUSE \
	llw -p default $SV -- "$PROBE" tcp-bind ::1 "$P4"
expect_output "... EADDRINUSE" "errno=EADDRINUSE"
expect_denied "... nor 0.0.0.0 (made loopback) beside a host service on [::1]" EADDRINUSE \
	llw -p default $SV -- "$PROBE" tcp-bind 0.0.0.0 "$P6"
expect_output "... EADDRINUSE" "errno=EADDRINUSE"
expect_denied "... nor a UDP socket on [::1] beside one on 127.0.0.1" EADDRINUSE \
	llw -p default $SV -- "$PROBE" udp-bind ::1 "$U4"
expect_output "... EADDRINUSE" "errno=EADDRINUSE"
FP=$(free_port)
expect_succeeded "... a free port on [::1] binds" \
	llw -p default $SV -- "$PROBE" tcp-bind ::1 "$FP"
if userns_works; then
	expect_succeeded "... and with a network of its own (net = none), the host's ports are not its" \
		llw -p default $SV --net none -- "$PROBE" tcp-bind 127.0.0.1 "$P4"
else
	skip "no user namespaces: net = none's network of its own"
fi
}

# A listener on a port no rule names: the sandbox's alone.  The
# supervisor binds it to a port of the kernel's choosing and sends the
# sandbox's clients of the asked port there; a host client at the asked
# port finds nothing, and a host service may still take it.
printf '[network]\nsupervise = yes\nbind-tcp = 0\n' >"$T/private.ini"
chmod 644 "$T/private.ini"
PRIV="-p $T/private.ini"
PUBP=$(free_port)
PRIVP=$(free_port)
rm -rf "$PROJ/pv"
mkdir -p "$PROJ/pv"
chmod 777 "$PROJ/pv"
# shellcheck disable=SC2086
spawn_as_user $LLWRAP_B --rx "$LLW_HELPERS" -p default $PRIV -n private -- "$NETPROBE" listen-wait 127.0.0.1 "$PRIVP" 0 "$PROJ/pv" >"$T/pv.out" 2>&1
pv=$spawned
wait_file "$PROJ/pv/listening"
got=$(cat "$PROJ/pv/listening")
if [ -n "$got" ] && [ "$got" != "$PRIVP" ]; then
	ok "a listener on a port no rule names is bound to another port, of the kernel's choosing ($PRIVP -> $got)"
else
	not_ok "a listener on a port no rule names: bound to $got"
fi
run "$NETPROBE" tcp-connect-nb 127.0.0.1 "$PRIVP"
expect_output "... a host client at the asked port finds nothing (refused at once)" "^DENIED tcp-connect-nb errno=ECONNREFUSED"
run "$PROBE" tcp-bind 127.0.0.1 "$PRIVP"
expect_output "... a host service may still take the port" "^SUCCEEDED"
serve tcp 127.0.0.1 "$PRIVP" "$T/late"
wait_file "$T/late"
touch "$PROJ/pv/go"
wait "$pv" 2>/dev/null
if grep -q "own=10 refused=0" "$T/pv.out"; then
	ok "... the sandbox's own clients of the asked port reach its listener"
else
	not_ok "the sandbox's own clients and its listener on a port no rule names"
	diag "$(cat "$T/pv.out")"
fi
if [ "$(count "$T/late")" -eq 0 ]; then
	ok "... not the host service that took the port meanwhile"
else
	not_ok "the sandbox's clients reached the host service: $(count "$T/late")"
fi
if grep -q "127\.0\.0\.1:$PRIVP listens for the sandbox only.*--bind-tcp $PRIVP" "$T/pv.out"; then
	ok "... and the command is told how to publish it (--bind-tcp)"
else
	not_ok "the note naming --bind-tcp"
	diag "$(cat "$T/pv.out")"
fi
# shellcheck disable=SC2086
{
expect_succeeded "the sandbox's own server on an ephemeral port, its own client reaching it" \
	llw -p default $PRIV -- "$NETPROBE" self tcp 127.0.0.1 0 -
rm -rf "$PROJ/pub"
mkdir -p "$PROJ/pub"
chmod 777 "$PROJ/pub"
spawn_as_user $LLWRAP_B --rx "$LLW_HELPERS" -p default $PRIV --bind-tcp "$PUBP" -- "$NETPROBE" listen-wait 127.0.0.1 "$PUBP" 0 "$PROJ/pub" >"$T/pub.out" 2>&1
pub=$spawned
wait_file "$PROJ/pub/listening"
run "$NETPROBE" tcp-connect-nb 127.0.0.1 "$PUBP"
expect_output "a port --bind-tcp names is published: a host client connects" "^SUCCEEDED tcp-connect-nb"
touch "$PROJ/pub/go"
wait "$pub" 2>/dev/null
}

# ---- The blocked-attempt log ----

run llw -p default -n suplog --allow-cidr "127.0.0.1/32:$PA" -- "$PROBE" tcp-connect 127.0.0.2 "$PA"
# The command's stderr here is a pipe: it gets the agent note (footer.sh
# tests it), never the log line.
if printf '%s' "$out" | grep -q "suplog-blocked"; then
	not_ok "the log line went to the command's stderr"
	diag "$out"
else
	ok "the log line is not on the command's stdout/stderr"
fi
if grep -Eq "^llwrap-suplog-blocked: connect tcp 127\.0\.0\.2:$PA pid=[0-9]+ comm=probe rule=filtered/local\$" "$LOGDIR/suplog.log" 2>/dev/null; then
	ok "the log file has the line with the instance prefix"
else
	not_ok "the log line"
	diag "$(cat "$LOGDIR/suplog.log" 2>&1)"
fi
if [ "$(stat -c %a "$LOGDIR/suplog.log")" = 600 ] && [ "$(stat -c %a "$LOGDIR")" = 700 ]; then
	ok "the log file is 0600 in a 0700 directory"
else
	not_ok "log modes"
	diag "$(ls -la "$LOGDIR")"
fi
printf '[network]\nlog-prefix = opencode-%%n-blocked\n' >"$T/prefix.ini"
chmod 644 "$T/prefix.ini"
llw -p default -p "$T/prefix.ini" -n pfx --allow-cidr "127.0.0.1/32:$PA" -- "$PROBE" tcp-connect 127.0.0.2 "$PA" >/dev/null 2>&1
if grep -q "^opencode-pfx-blocked: connect tcp 127.0.0.2:$PA " "$LOGDIR/pfx.log" 2>/dev/null; then
	ok "log-prefix with %n names the instance"
else
	not_ok "log-prefix"
	diag "$(cat "$LOGDIR/pfx.log" 2>&1)"
fi
printf '[network]\nlog-blocked = no\n' >"$T/nolog.ini"
chmod 644 "$T/nolog.ini"
expect_denied "log-blocked = no: still refused" EACCES \
	llw -p default -p "$T/nolog.ini" -n nolog --allow-cidr "127.0.0.1/32:$PA" -- "$PROBE" tcp-connect 127.0.0.2 "$PA"
if [ ! -s "$LOGDIR/nolog.log" ]; then ok "... and not logged"; else not_ok "log-blocked = no logged"; fi

run llw -p default -n flood --allow-cidr "127.0.0.1/32:$PA" -- "$NETPROBE" connect-loop 127.0.0.2 "$PA" 10000
expect_output "10,000 blocked attempts are all refused" "ok=0 refused=10000"
lines=$(grep -c ": connect tcp " "$LOGDIR/flood.log" 2>/dev/null || echo 0)
suppressed=$(sed -n 's/^llwrap-flood-blocked: suppressed \([0-9]*\)$/\1/p' "$LOGDIR/flood.log" | awk '{s += $1} END {print s + 0}')
if [ "$lines" -ge 20 ] && [ "$lines" -lt 500 ] && [ "$suppressed" -gt 0 ]; then
	ok "the flood gave $lines lines and 'suppressed' lines"
else
	not_ok "rate limit"
	diag "lines $lines, suppressed $suppressed"
fi
if [ $((lines + suppressed)) -eq 10000 ]; then
	ok "every attempt is a line or counted as suppressed"
else
	not_ok "lines $lines + suppressed $suppressed != 10000"
fi

# ---- Control data: the supervisor sends the command's messages ----
# It rebuilds their control data (src/cmsg.c); a malformed header once
# made it write past a heap buffer.  The sandboxed side gets what the
# kernel would answer, and the supervisor keeps enforcing afterwards.
S="--allow-cidr 127.0.0.1/32:$PA"
# shellcheck disable=SC2086
{
run llw -p default $S -- /bin/sh -c "$NETPROBE cmsg-malformed 7000; $PROBE tcp-connect 127.0.0.1 $PA; $PROBE tcp-connect 127.0.0.2 $PA"
expect_output "7,000 malformed control messages (cmsg_len past the buffer, below a header, ...) all fail with EINVAL" \
	"SUCCEEDED cmsg-malformed einval=7000 other=0 sent=0"
expect_output "... then the same supervisor still connects the allowed destination" "SUCCEEDED tcp-connect"
expect_output "... and still refuses the denied one" "DENIED tcp-connect errno=EACCES"
run "$NETPROBE" cmsg-malformed 7000
expect_output "... as the kernel answers them without a supervisor" "einval=7000 other=0 sent=0"
expect_succeeded "SCM_RIGHTS: descriptors in two entries arrive and work" \
	llw -p default $S -- "$NETPROBE" scm-rights
expect_succeeded "SCM_CREDENTIALS naming the sender itself is sent" \
	llw -p default $S -- "$NETPROBE" scm-creds self
# (A pid namespace, bwrap's or the one L3 makes where it stands in for
# an old Landlock ABI, has no number for the supervisor outside it.)
if bwrap_backend || l3_stands_in >/dev/null; then seen="seen=0 "; else seen="seen=[1-9][0-9]* "; fi
expect_output "... and the receiver sees the supervisor's pid (the kernel's rule for who sends)" \
	"claimed=[0-9]+ $seen"
expect_denied "SCM_CREDENTIALS naming the supervisor (the sender's parent) is EPERM" EPERM \
	llw -p default $S -- "$NETPROBE" scm-creds parent
expect_output "... as the kernel would answer" "errno=EPERM"
expect_denied "SCM_CREDENTIALS naming pid 1 is EPERM" EPERM \
	llw -p default $S -- "$NETPROBE" scm-creds 1
expect_succeeded "sendmsg with MSG_DONTWAIT|MSG_NOSIGNAL works" \
	llw -p default $S -- "$NETPROBE" send-flags 4040
expect_denied "sendmsg with MSG_ZEROCOPY is refused (EOPNOTSUPP)" EOPNOTSUPP \
	llw -p default $S -- "$NETPROBE" send-flags 4000000
expect_output "... with EOPNOTSUPP" "errno=EOPNOTSUPP"
expect_succeeded "UDP sendmsg with an IP_TTL control message works" \
	llw -p default --allow-cidr "127.0.0.1/32:$UA" -- "$NETPROBE" udp-cmsg ttl 127.0.0.1 "$UA"
expect_denied "UDP sendmsg with source routing (IP_RETOPTS) is refused" EPERM \
	llw -p default --allow-cidr "127.0.0.1/32:$UA" -- "$NETPROBE" udp-cmsg retopts 127.0.0.1 "$UA"
expect_output "... with EPERM" "errno=EPERM"
expect_denied "an IPv6 routing header on a socket (its packets would go to the first segment, not the checked destination) is refused" EPERM \
	llw -p default $S -- "$NETPROBE" ipv6-sockopt rthdr
expect_output "... with the filter's EPERM" "errno=EPERM"
run "$NETPROBE" ipv6-sockopt rthdr
expect_output "... which the kernel alone allows an unprivileged process" "SUCCEEDED"
# IPV6_2292PKTOPTIONS makes a whole control-message buffer the socket's
# sticky options: a hop limit alone, which every kernel takes, shows the
# filter is what refuses it; a type 2 routing header through it needs
# CONFIG_IPV6_MIP6 (Debian's kernels, not every one).
expect_denied "IPV6_2292PKTOPTIONS (sticky control messages) is refused" EPERM \
	llw -p default $S -- "$NETPROBE" ipv6-sockopt pktoptions
expect_output "... with the filter's EPERM" "errno=EPERM"
run "$NETPROBE" ipv6-sockopt pktoptions
expect_output "... which the kernel alone takes" "SUCCEEDED"
expect_denied "... and with a type 2 routing header in it" EPERM \
	llw -p default $S -- "$NETPROBE" ipv6-sockopt mip6
expect_output "... with the filter's EPERM" "errno=EPERM"
run "$NETPROBE" ipv6-sockopt mip6
case $out in
SUCCEEDED*) ok "... which this kernel alone takes (CONFIG_IPV6_MIP6)" ;;
*EINVAL*) skip "this kernel refuses a type 2 routing header itself (no CONFIG_IPV6_MIP6): $out" ;;
*) not_ok "a type 2 routing header without the sandbox"; diag "$out" ;;
esac
# A socket that already carries a routing header, made outside (where
# nothing refuses it) and passed in: the supervisor connects nothing
# on it, nor sends, and says why; the same socket without one works.
for kind in udp tcp; do
	run as_user "$NETPROBE" rthdr-exec srh ::1 "$kind" 5 $LLWRAP_B --rx "$LLW_HELPERS" \
		-p default -n route --allow-cidr "::1/128:$PC" --keep-fd 5 -- \
		"$NETPROBE" fd-send 5 ::1 "$PC" llw-payload
	expect_output "a $kind socket passed in with a routing header: its connect is refused" "^DENIED fd-send errno=EPERM"
	run as_user "$NETPROBE" rthdr-exec none ::1 "$kind" 5 $LLWRAP_B --rx "$LLW_HELPERS" \
		-p default -n route --allow-cidr "::1/128:$PC" --keep-fd 5 -- \
		"$NETPROBE" fd-send 5 ::1 "$PC" llw-payload
	expect_output "... the same socket without one connects and sends" "^SUCCEEDED fd-send"
done
if grep -Eq "^llwrap-route-blocked: connect udp \[::1\]:$PC pid=[0-9]+ comm=netprobe rule=filtered/source-route\$" "$LOGDIR/route.log" 2>/dev/null; then
	ok "... and the refusal is logged as filtered/source-route"
else
	not_ok "the source-route refusal's log line"
	diag "$(cat "$LOGDIR/route.log" 2>&1)"
fi
expect_succeeded "... while a traffic class on the same kind of socket is set" \
	llw -p default $S -- "$NETPROBE" ipv6-sockopt tclass
expect_succeeded "a connect from a thread other than the main one is answered" \
	llw -p default $S -- "$NETPROBE" thread-connect 127.0.0.1 "$PA"
expect_denied "... and refused from a thread when the destination is" EACCES \
	llw -p default $S -- "$NETPROBE" thread-connect 127.0.0.2 "$PA"
}

# ---- The command never outlives its supervisor ----
# gone PATTERN: wait up to 5 s until no process's command line is
# PATTERN.
gone() {
	i=0
	while pgrep -f "^$1\$" >/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	! pgrep -f "^$1\$" >/dev/null
}
# started PATTERN: wait up to 5 s until it runs.
started() {
	i=0
	while ! pgrep -f "^$1\$" >/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}
n=31000
for sig in KILL SEGV ABRT; do
	n=$((n + 1))
	# (In a sanitizer build, AddressSanitizer would take SIGSEGV and
	# exit 1 instead of dying of it.)
	spawn_as_user env ASAN_OPTIONS=handle_segv=0 "$LLWRAP" --rx "$LLW_HELPERS" -p default $S -- /bin/sh -c "exec sleep $n"
	sup=$spawned
	started "sleep $n"
	kill -"$sig" "$sup"
	wait "$sup" 2>/dev/null
	status=$?
	if gone "sleep $n"; then
		ok "kill -$sig of the supervisor: the command dies with it"
	else
		not_ok "kill -$sig of the supervisor: the command outlived it"
		pkill -9 -f "^sleep $n\$"
	fi
	[ "$sig" = KILL ] && continue
	case $sig in SEGV) num=11 ;; *) num=6 ;; esac
	if [ "$status" -eq $((128 + num)) ]; then
		ok "... and llwrap still dies of SIG$sig (status $status)"
	else
		not_ok "... llwrap's status after SIG$sig: $status"
	fi
done

# A process that left the command's children (here a background job of
# the shell, which the parent-death signal of the shell does not reach)
# is cut off: its mediated calls fail closed once the supervisor is gone.
rm -f "$PROJ/go"
# A duration of this run's own: the backend-bwrap run of this file may
# be looking for its sleeper at the same time.
nap=$((31100000 + $$))
spawn_as_user $LLWRAP_B --rx "$LLW_HELPERS" -p default $S -- \
	/bin/sh -c "$PROBE tcp-connect 127.0.0.1 $PA; (while [ ! -e $PROJ/go ]; do sleep 0.05; done; $PROBE tcp-connect 127.0.0.1 $PA) & exec sleep $nap" >"$T/kill.out" 2>&1
sup=$spawned
started "sleep $nap"
kill -9 "$sup"
wait "$sup" 2>/dev/null
# The command's end first (under bubblewrap, with its pid namespace, which
# takes its processes along), then the go: teardown on a loaded machine
# can be slower than a poll of the flag file.
if gone "sleep $nap"; then
	ok "kill -9 of the supervisor: the command (its child) is gone"
else
	not_ok "the command outlived the supervisor"
	pkill -9 -f "^sleep $nap\$"
fi
touch "$PROJ/go"
i=0
while [ "$(grep -c tcp-connect "$T/kill.out")" -lt 2 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
if why=$(l3_stands_in); then
	skip "a process that left the command: $why, whose pid namespace ends with the supervisor and takes it along"
elif bwrap_backend; then
	# bwrap's own pid namespace ends with it (--die-with-parent), and
	# the process that left the command with it: no second connect.
	if [ "$(grep -c tcp-connect "$T/kill.out")" -eq 1 ] && gone "sleep $nap"; then
		ok "... and a process that left it ends with bubblewrap's pid namespace, before another connect"
	else
		not_ok "... and a process that left it ends with bubblewrap's pid namespace, before another connect"
		diag "$(cat "$T/kill.out")"
	fi
elif grep -q "^SUCCEEDED tcp-connect" "$T/kill.out" && grep -q "^DENIED tcp-connect errno=ENOSYS" "$T/kill.out"; then
	ok "... and a process that left it has its next connect fail (ENOSYS)"
else
	not_ok "connect after the supervisor died"
	diag "$(cat "$T/kill.out")"
fi

# ---- Ptrace access refused: fail closed ----
# The supervisor takes the seccomp listener with pidfd_getfd(2), which
# needs ptrace access to the sandboxed process.  Yama's ptrace_scope >= 2
# refuses it (there is no Yama on every test machine); so does a process
# that is not dumpable, which an llwrap executed without read permission
# is (here by env(1), running as the test user like a shell would): the
# same refusal, at the same point, on any kernel.  Mode 0111: not even
# its owner may read it (the suite may run as the test user itself).
mkdir -p "$T/noread"
cp "$LLWRAP" "$T/noread/llwrap"
chmod 0711 "$T/noread"
chmod 0111 "$T/noread/llwrap"
marker=$PROJ/ran-sup
if why=$(l3_stands_in); then
	# A process that is not dumpable cannot write its own
	# /proc/self/setgroups: L3 refuses before the supervisor would.
	skip "a non-dumpable llwrap: $why, which such a process cannot set up"
else
	expect_refused "ptrace access refused (not dumpable, as under Yama ptrace_scope 2): exit 125, nothing run, cause named" \
		"(cannot take the seccomp listener|need the network supervisor, but).*ptrace access is refused" \
		as_user "$T/noread/llwrap" --rx "$LLW_HELPERS" -p default --allow-cidr "127.0.0.1/32:$PA" -- \
		/bin/sh -c "touch $marker"
	# (No port rule: under bubblewrap, or Landlock before ABI 4, the
	# supervisor enforces those.)
	expect_ran "... while the same copy runs a policy that needs no supervisor" \
		as_user "$T/noread/llwrap" --rx "$LLW_HELPERS" -p default -- \
		/bin/sh -c "touch $marker"
fi

# ---- A kernel without pidfd_getfd (Linux < 5.6): fail closed ----
# pidfd_getfd (438 on every architecture) hidden with ENOSYS, as on a
# kernel that lacks it.
expect_refused "no pidfd_getfd: a policy that needs the supervisor fails closed (125, nothing run, cause named)" \
	"no pidfd_getfd \\(Linux 5\\.6\\)" \
	as_user "$PROBE" without-syscall 438 "$LLWRAP" --rx "$LLW_HELPERS" -p default \
	--allow-cidr "127.0.0.1/32:$PA" -- /bin/sh -c "touch $marker"
expect_ran "... with --best-effort it runs" \
	as_user "$PROBE" without-syscall 438 "$LLWRAP" --rx "$LLW_HELPERS" -p default \
	--allow-cidr "127.0.0.1/32:$PA" --best-effort -- /bin/sh -c "touch $marker"
expect_output "... reporting the supervisor's rules as not enforced" \
	"NOT ENFORCED: the network supervisor's rules.*no pidfd_getfd"

# ---- A step of the supervisor's refused: the run's hand-over is the probe ----
# A run that needs the supervisor makes no probe's child: the hand-over
# of its own listener takes the probe's steps on the command's process,
# before the command runs.  Each step refused by a filter (EPERM) fails
# the run closed, in the words --explain's probe gives; --best-effort
# still probes first, and runs without the supervisor's rules.
for step in listener addfd; do
	case $step in
	listener) call="seccomp user notification \\(SECCOMP_FILTER_FLAG_NEW_LISTENER\\): EPERM" ;;
	addfd) call="ioctl SECCOMP_IOCTL_NOTIF_ADDFD: EPERM" ;;
	esac
	run as_user "$PROBE" supervisor-filter $step "$LLWRAP" --rx "$LLW_HELPERS" \
		${LLW_BACKEND:+--backend "$LLW_BACKEND"} -p default \
		--allow-cidr "127.0.0.1/32:$PA" --explain -- /bin/true
	probed=$(printf '%s\n' "$out" | sed -n 's/^ *WILL NOT RUN: //p' | head -n 1)
	expect_output "$step refused: --explain's probe names the step" "need the network supervisor, but .*$call"
	expect_refused "... a run fails closed (125, nothing run), naming the step" \
		"need the network supervisor, but .*$call" \
		as_user "$PROBE" supervisor-filter $step "$LLWRAP" --rx "$LLW_HELPERS" \
		${LLW_BACKEND:+--backend "$LLW_BACKEND"} -p default \
		--allow-cidr "127.0.0.1/32:$PA" -- /bin/sh -c "touch $marker"
	if [ -n "$probed" ] && printf '%s\n' "$out" | grep -qxF "llwrap: $probed"; then
		ok "... in the probe's words"
	else
		not_ok "... in the probe's words"
		diag "probe: $probed"
		diag "run: $out"
	fi
	expect_ran "... with --best-effort it runs" \
		as_user "$PROBE" supervisor-filter $step "$LLWRAP" --rx "$LLW_HELPERS" \
		${LLW_BACKEND:+--backend "$LLW_BACKEND"} -p default \
		--allow-cidr "127.0.0.1/32:$PA" --best-effort -- /bin/sh -c "touch $marker"
	expect_output "... reporting the supervisor's rules as not enforced, naming the step" \
		"NOT ENFORCED: the network supervisor's rules.*$call"
done
if "$LLWRAP" --check 2>/dev/null | grep -q "L3 namespaces   usable"; then
	# (The command's process says why and exits before its exec, in the
	# sandbox's namespaces, where a sanitizer build's LeakSanitizer
	# cannot stop the world at exit and would turn 125 into 1.)
	expect_refused "listener refused: -p opencode (L3, a pid namespace) fails closed before its command runs" \
		"need the network supervisor, but .*SECCOMP_FILTER_FLAG_NEW_LISTENER" \
		as_user env ASAN_OPTIONS=detect_leaks=0 "$PROBE" supervisor-filter listener "$LLWRAP" --rx "$LLW_HELPERS" \
		${LLW_BACKEND:+--backend "$LLW_BACKEND"} -p opencode -- /bin/sh -c "touch $marker"
fi

# ---- With L3: a pid namespace and masks (the opencode profile) ----
# The outer process is then the monitor and the supervisor at once; it
# must still see the command's pids in its /proc (comm in the log) and
# resolve unix paths in the command's masked view.
if "$LLWRAP" --check 2>/dev/null | grep -q "L3 namespaces   usable"; then
	# shellcheck disable=SC2086
	{
	expect_succeeded "L3 + supervisor: the allowed destination connects" \
		llw -p opencode --allow-cidr "127.0.0.1/32:$PA" -- "$PROBE" tcp-connect 127.0.0.1 "$PA"
	expect_denied "L3 + supervisor: another port is refused" EACCES \
		llw -p opencode --allow-cidr "127.0.0.1/32:$PA" -- "$PROBE" tcp-connect 127.0.0.1 "$PA2"
	expect_succeeded "L3 + supervisor: the listed unix socket connects" \
		llw -p opencode $U --ro "$T/sock" -- "$PROBE" unix-connect "$T/sock/pg.sock"
	expect_denied "L3 + supervisor: docker.sock does not" EACCES \
		llw -p opencode $U --ro "$T/sock" -- "$PROBE" unix-connect "$T/sock/docker.sock"
	}
	nap1=$((31200000 + $$)) nap2=$((31300000 + $$))
	spawn_as_user "$LLWRAP" --rx "$LLW_HELPERS" -p opencode --allow-cidr "127.0.0.1/32:$PA" -- \
		/bin/sh -c "sleep $nap1 & exec sleep $nap2"
	sup=$spawned
	started "sleep $nap2"
	kill -9 "$sup"
	wait "$sup" 2>/dev/null
	if gone "sleep $nap1" && gone "sleep $nap2"; then
		ok "L3 + supervisor: kill -9 of the supervisor ends every process of the sandbox"
	else
		not_ok "L3 + supervisor: a process outlived the supervisor"
		pkill -9 -f "^sleep ($nap1|$nap2)\$"
	fi
	run llw -p opencode -n l3sup --allow-cidr "127.0.0.1/32:$PA" -- /bin/sh -c "echo pid=\$\$; $PROBE tcp-connect 127.0.0.2 $PA"
	expect_output "L3 + supervisor: the command is pid 2 of its namespace" "^pid=2$"
	if grep -Eq "^llwrap-l3sup-blocked: connect tcp 127\.0\.0\.2:$PA pid=[0-9]+ comm=probe rule=" \
		"$HOME_DIR/.local/state/llwrap/l3sup.log" 2>/dev/null; then
		ok "L3 + supervisor: the log names the process (comm=probe)"
	else
		not_ok "L3 + supervisor: the log names the process"
		diag "$(cat "$HOME_DIR/.local/state/llwrap/l3sup.log" 2>&1)"
	fi
else
	skip "no unprivileged user namespaces: L3 + supervisor not tested"
fi

# ---- The command line and --explain ----
run llw -p default --allow-cidr 10.0.0.0/8:443 --unix "$T/sock/pg.sock" --listen 127.0.0.1:8787 --dns 127.0.0.53 --explain -- /bin/true
expect_output "--explain: the supervisor enforces" "Network supervisor \\(S\\): enforces"
expect_output "--explain: allow-cidr with its origin" "allow-cidr +10\\.0\\.0\\.0/8:443.*command line"
expect_output "--explain: the log target" "blocked attempts: logged as 'llwrap-true-blocked: \\.\\.\\.' to syslog and .*/llwrap/true\\.log"
for bad in "--allow-cidr 10.0.0.0/33" "--allow-cidr 10.0.0.0/8:90-80" \
	"--listen [127.0.0.1]:80" "--listen ::1:80" "--dns not-an-address" "--listen 127.0.0.1:99999"; do
	# shellcheck disable=SC2086
	expect_status "bad input '$bad' is exit 125" 125 llw -p default $bad -- /bin/true
done
expect_output "... with a message naming the value" "99999"
printf '[network]\nunix = relative.sock\n' >"$T/relunix.ini"
chmod 644 "$T/relunix.ini"
expect_status "a relative unix path in a profile is exit 125" 125 \
	llw -p default -p "$T/relunix.ini" -- /bin/true
expect_output "... naming file:line" "relunix.ini:2: .*not absolute"
run llw -p default --unix relative.sock --explain -- /bin/true
expect_output "--unix on the command line is made absolute like --rw" "unix +$PROJ/relative.sock"

done_testing
