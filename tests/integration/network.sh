#!/bin/sh
# Network rules: Landlock TCP ports (ABI 4), the seccomp family and type
# allow-list, net modes.  Loopback only.
. "$LLW_SRCDIR/tests/lib/libtest.sh"
need_default_profile

abi=$(landlock_abi)

# Two listeners outside the sandbox, on IPv4 and IPv6 loopback.
serve() {
	python3 - "$@" <<'PY' &
import socket, sys, time
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(fam, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 0))
s.listen(64)
open(sys.argv[2], "w").write(str(s.getsockname()[1]))
s.settimeout(1)
end = time.time() + 300
while time.time() < end:
    try:
        c, _ = s.accept()
        c.close()
    except OSError:
        pass
PY
	bg_pids="${bg_pids:-} $!"
}
serve 127.0.0.1 "$T/p1"
serve 127.0.0.1 "$T/p2"
serve ::1 "$T/p3"
for f in p1 p2 p3; do
	i=0
	while [ ! -s "$T/$f" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
done
P1=$(cat "$T/p1") P2=$(cat "$T/p2") P3=$(cat "$T/p3")

if bwrap_backend; then
	# bubblewrap has no port filtering: the supervisor takes the port
	# rules over (DESIGN.md §14), beside bwrap; where it cannot run,
	# a port rule is refused, naming the cause.
	if supervisor_refused >/dev/null; then
		marker=$PROJ/ran-bwrap-port
		expect_refused "bwrap: connect-tcp P1 without the supervisor is refused, naming the cause" \
			"cannot enforce the policy: TCP bind/connect port rules" \
			llw -p default --connect-tcp "$P1" -- /bin/sh -c "touch $marker"
	else
		expect_succeeded "bwrap: connect-tcp P1: the supervisor lets 127.0.0.1:P1 connect" \
			llw -p default --connect-tcp "$P1" -- "$PROBE" tcp-connect 127.0.0.1 "$P1"
		expect_denied "bwrap: ... and refuses 127.0.0.1:P2" EACCES \
			llw -p default --connect-tcp "$P1" -- "$PROBE" tcp-connect 127.0.0.1 "$P2"
		run llw -p default --connect-tcp "$P1" --explain -- /bin/true
		expect_output "... the supervisor is named as the layer for TCP ports" "^  S +TCP bind/connect port rules"
	fi
	expect_denied "bwrap: no port at all is a private network: nothing connects" ECONNREFUSED \
		llw -p default -- "$PROBE" tcp-connect 127.0.0.1 "$P1"
	expect_succeeded "... while binding its own loopback port works" \
		llw -p default -- "$PROBE" tcp-bind 127.0.0.1 0
	expect_succeeded "net host: any port connects" \
		llw -p default --net host -- "$PROBE" tcp-connect 127.0.0.1 "$P2"
elif [ "$abi" -ge 4 ]; then
	expect_succeeded "connect-tcp P1: 127.0.0.1:P1 connects" \
		llw -p default --connect-tcp "$P1" -- "$PROBE" tcp-connect 127.0.0.1 "$P1"
	expect_denied "connect-tcp P1: 127.0.0.1:P2 is refused" EACCES \
		llw -p default --connect-tcp "$P1" -- "$PROBE" tcp-connect 127.0.0.1 "$P2"
	expect_succeeded "a port range covers IPv6 ::1 too" \
		llw -p default --connect-tcp "$P3-$P3" -- "$PROBE" tcp-connect ::1 "$P3"
	expect_denied "no connect-tcp: nothing connects" EACCES \
		llw -p default -- "$PROBE" tcp-connect 127.0.0.1 "$P1"
	expect_succeeded "bind-tcp 0: an ephemeral localhost port binds" \
		llw -p default --bind-tcp 0 -- "$PROBE" tcp-bind 127.0.0.1 0
	fixed=$(free_port)
	expect_denied "bind-tcp 0: a fixed port does not" EACCES \
		llw -p default --bind-tcp 0 -- "$PROBE" tcp-bind 127.0.0.1 "$fixed"
	expect_succeeded "bind-tcp PORT: that port binds" \
		llw -p default --bind-tcp "$fixed" -- "$PROBE" tcp-bind 127.0.0.1 "$fixed"
	expect_succeeded "net host: any port connects" \
		llw -p default --net host -- "$PROBE" tcp-connect 127.0.0.1 "$P2"
else
	skip "Landlock ABI $abi has no TCP port rules (needs 4)"
fi

expect_denied "net none: no TCP socket at all" ECONNREFUSED \
	llw -p default --net none --connect-tcp "$P1" -- "$PROBE" tcp-connect 127.0.0.1 "$P1"
if bwrap_backend; then
	expect_succeeded "bwrap: net none keeps a working loopback" \
		llw -p offline -- /bin/sh -c "$PROBE tcp-bind 127.0.0.1 0"
fi
if userns_works || bwrap_backend; then
	expect_denied "offline profile: no TCP" ECONNREFUSED \
		llw -p offline -- "$PROBE" tcp-connect 127.0.0.1 "$P1"
	expect_succeeded "offline profile: the project still works" \
		llw -p offline -- "$PROBE" write "$PROJ/offline.txt"
else
	# Its masks and net = none need L3: it fails closed, naming why.
	marker=$PROJ/ran
	expect_refused "offline profile without user namespaces: refused, naming L3" \
		'needs the namespace layer \(L3\).*user namespaces' \
		llw -p offline -- /bin/sh -c "touch $marker"
	skip "offline profile: the project works (needs user namespaces here)"
fi

# UDP: refused unless the policy allows UDP ports; ports themselves need
# Landlock ABI 10 (or the supervisor), so asking for them fails closed.
expect_denied "filtered, no UDP port: no UDP" EPERM \
	llw -p default -- "$PROBE" udp-send 127.0.0.1 "$P1"
if [ "$abi" -lt 10 ] && ! "$LLWRAP" --check | grep -q '^  S  supervisor   usable'; then
	expect_status "connect-udp on ABI $abi without the supervisor fails closed" 125 \
		llw -p default --connect-udp 53 -- "$PROBE" udp-send 127.0.0.1 53
	expect_output "... naming --best-effort" "best-effort"
	expect_succeeded "with --best-effort UDP runs, reported" \
		llw -p default --connect-udp 53 --best-effort -- "$PROBE" udp-send 127.0.0.1 "$P1"
elif [ "$abi" -lt 10 ]; then
	# DESIGN.md §14: the supervisor takes the UDP port rules over.
	# A port rule is not a host rule under the supervisor: loopback
	# needs an allow-cidr entry, whose ports are then connect-udp's.
	expect_succeeded "connect-udp P1 on ABI $abi: the supervisor lets UDP to P1 out" \
		llw -p default --connect-udp "$P1" --allow-cidr 127.0.0.1/32 -- "$PROBE" udp-send 127.0.0.1 "$P1"
	expect_no_output "... and reports no UDP loss" "NOT ENFORCED: UDP"
	expect_denied "... and refuses UDP to P2" EACCES \
		llw -p default --connect-udp "$P1" --allow-cidr 127.0.0.1/32 -- "$PROBE" udp-send 127.0.0.1 "$P2"
elif ! bwrap_backend; then
	# Landlock ABI 10 holds the UDP port rules itself (DESIGN.md §2).
	expect_succeeded "connect-udp P1 on ABI $abi: Landlock lets UDP to P1 out (from an unbound socket: port 0 is allowed)" \
		llw -p default --connect-udp "$P1" -- "$PROBE" udp-send 127.0.0.1 "$P1"
	expect_no_output "... and reports no UDP loss" "NOT ENFORCED: UDP"
	expect_denied "... and refuses UDP to P2" EACCES \
		llw -p default --connect-udp "$P1" -- "$PROBE" udp-send 127.0.0.1 "$P2"
	expect_succeeded "... an explicit bind to port 0 (an ephemeral port) works" \
		llw -p default --connect-udp "$P1" -- "$PROBE" udp-bind 127.0.0.1 0
	expect_denied "... a fixed port needs bind-udp" EACCES \
		llw -p default --connect-udp "$P1" -- "$PROBE" udp-bind 127.0.0.1 "$P2"
	expect_succeeded "... which grants it" \
		llw -p default --connect-udp "$P1" --bind-udp "$P2" -- "$PROBE" udp-bind 127.0.0.1 "$P2"
fi
expect_succeeded "net host: UDP works" \
	llw -p default --net host -- "$PROBE" udp-send 127.0.0.1 "$P1"

# Families and protocols (seccomp).
expect_succeeded "AF_NETLINK/NETLINK_ROUTE is allowed (getifaddrs)" \
	llw -p default -- "$PROBE" socket 16 3 0
expect_denied "AF_NETLINK/NETLINK_SOCK_DIAG is not" EAFNOSUPPORT \
	llw -p default -- "$PROBE" socket 16 3 4
expect_denied "AF_PACKET is not" EAFNOSUPPORT llw -p default -- "$PROBE" socket 17 3 0
expect_denied "AF_VSOCK is not" EAFNOSUPPORT llw -p default -- "$PROBE" socket 40 1 0
expect_denied "MPTCP is not" EPERM llw -p default --net host -- "$PROBE" socket 2 1 262
expect_denied "SCTP is not" EPERM llw -p default --net host -- "$PROBE" socket 2 1 132
expect_denied "raw IP is not" EPERM llw -p default --net host -- "$PROBE" socket 2 3 1
expect_denied "ICMP datagram (ping) is not" EPERM llw -p default --net host -- "$PROBE" socket 2 2 1
expect_succeeded "plain TCP is" llw -p default --net host -- "$PROBE" socket 2 1 6

# Where no name resolves (-p default: DNS closed), the refusal is fast
# and named (DESIGN.md §12): on a terminal, a note before the command
# starts names the flags that open the network, and the tools that
# would retry a failed lookup in vain (npm for 71 s, pip for 9 s) are
# told not to.
CLOSED="^llwrap: note: no name resolves and no port connects or binds here; --allow-host NAME:443 opens a name, --connect-tcp PORTS a port on every host, --bind-tcp PORTS a server's port \\(0: any free one\\), -p opencode the model providers and package registries"
run llw -p default -- /usr/bin/env
expect_output "-p default: npm is told not to retry a lookup that cannot succeed" "^npm_config_fetch_retries=0$"
expect_output "... nor pip" "^PIP_RETRIES=0$"
expect_no_output "... and off a terminal (a script capturing stderr) no note" "llwrap: note"
if command -v script >/dev/null 2>&1; then
	run as_user script -qec "$LLWRAP_B -p default -- /bin/true" /dev/null
	expect_output "on a terminal a note names what opens the closed network" "$CLOSED"
	run as_user script -qec "$LLWRAP_B -q -p default -- /bin/true" /dev/null
	expect_no_output "... -q: no note" "llwrap: note"
	run as_user script -qec "$LLWRAP_B -p default --net none -- /bin/true" /dev/null
	expect_no_output "... net none, asked for: no note" "llwrap: note"
else
	skip "script(1) is not installed: the terminal case"
fi
run llw -p default --env-set PIP_RETRIES=2 -- /usr/bin/env
expect_output "a value of the policy's own stands" "^PIP_RETRIES=2$"
# Where the supervisor takes the port rules over (bubblewrap, Landlock
# before ABI 4), it lets DNS reach the resolvers, and names resolve.
ports_supervised=
run llw -p default --connect-tcp 443 --explain -- /bin/true
printf '%s\n' "$out" | grep -Eq "^  S +TCP bind/connect port rules" && ports_supervised=yes
if [ -n "$ports_supervised" ]; then
	skip "connect-tcp here is the supervisor's, which lets DNS reach the resolvers: names resolve, no note"
else
	run llw -p default --connect-tcp 443 -- /bin/true
	expect_output "connect-tcp without names: the note says ports are not names" \
		"^llwrap: note: connect-tcp opens ports, not names: no name resolves here \\(DNS is closed\\), so only addresses are reached; --allow-host NAME:443 opens a name"
fi
run llw -p default --net host -- /usr/bin/env
expect_no_output "net host: no note" "llwrap: note"
expect_no_output "... and no retry variable" "npm_config_fetch_retries"
if supervisor_refused >/dev/null; then
	skip "names under the supervisor: $(supervisor_refused)"
else
	run llw -p default --allow-cidr 127.0.0.1/32:"$P1" -- /usr/bin/env
	expect_no_output "under the supervisor DNS reaches the resolvers: no note" "llwrap: note"
	expect_no_output "... and no retry variable" "npm_config_fetch_retries"
	run llw -p default --allow-host llw.invalid -- /bin/true
	expect_output "an allow-host entry that reaches no port is named, with the fix" \
		"^llwrap: note: allow-host llw.invalid \\(command line\\) reaches no port: an entry without ports takes connect-tcp's, and there are none; write llw.invalid:443$"
fi
if [ -n "$ports_supervised" ]; then
	skip "why a name under a port rule: the supervisor's port rules resolve names here"
else
	run llw -p default --connect-tcp 443 why registry.llw.invalid:443
	expect_output "why a name under a port rule: it does not resolve" \
		"denied: registry.llw.invalid does not resolve here: DNS is closed"
	expect_output "... and allow-host opens it" \
		"allow:  \\[network\\] allow-host = registry.llw.invalid:443 \\(or --allow-host registry.llw.invalid:443\\)"
	expect_rc "... exit 1" 1
	run llw -p default --connect-tcp 443 why localhost:443
	expect_output "... a name /etc/hosts gives still resolves" "allowed: connect to localhost:443"
fi
# npm and pip fail at the first attempt (no timing: their own logs say
# how many attempts there were).
if command -v npm >/dev/null 2>&1; then
	run llw -p default -- npm view is-number --registry http://registry.llw.invalid/ --loglevel=http --cache "$PROJ/.npm-cache"
	if printf '%s\n' "$out" | grep -q "attempt 1 failed with EAI_AGAIN" &&
		! printf '%s\n' "$out" | grep -q "attempt 2"; then
		ok "npm: the lookup fails once, no retry"
	else
		not_ok "npm: the lookup fails once, no retry"
		diag "$out"
	fi
	run llw -q -p default --env-set npm_config_fetch_retries=1 \
		--env-set npm_config_fetch_retry_mintimeout=100 \
		--env-set npm_config_fetch_retry_maxtimeout=200 -- \
		npm view is-number --registry http://registry.llw.invalid/ --loglevel=http --cache "$PROJ/.npm-cache"
	expect_output "... while a retry asked for is made (what the check above would see)" "attempt 2 failed"
else
	skip "npm is not installed"
fi
if python3 -m pip --version >/dev/null 2>&1; then
	run llw -p default -- python3 -m pip download --no-deps -d "$PROJ/dl" llw-none --index-url https://pypi.llw.invalid/simple
	expect_no_output "pip: the lookup fails once, no retry" "Retrying"
	run llw -q -p default --env-set PIP_RETRIES=1 -- python3 -m pip download --no-deps -d "$PROJ/dl" llw-none --index-url https://pypi.llw.invalid/simple
	expect_output "... while a retry asked for is made" "Retrying"
else
	skip "pip is not installed"
fi

done_testing
