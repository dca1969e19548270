#!/bin/sh
# The llwrap profile the module generates (render.nix, the same function
# module.nix calls), run for real, no NixOS needed: the scenarios of
# seed 000 (and the supervisor's half of seed 001) hold under it.  Two
# instances, a (allow-lists, network isolation) and b (defaults), run as
# the suite's one unprivileged user, so what keeps them apart here is
# llwrap alone; on NixOS their own uids and 0700 state add to it.
. "$LLW_SRCDIR/tests/lib/libtest.sh"
. "$LLW_SRCDIR/contrib/nixos/tests/lib.sh"

have_nix || skip_rest "nix-instantiate is not installed (Debian: apt install nix-bin)"
userns_works || skip_rest "unprivileged user namespaces are unavailable: the opencode profile needs them (L3)"
"$LLWRAP" --check 2>/dev/null | grep -q "S  supervisor   usable" ||
	skip_rest "the network supervisor is unavailable here, and the generated profiles need it (listen, unix, allow-cidr)"

R=$T/r
SOCK=$R/run/postgresql/.s.PGSQL.5432
OTHER_SOCK=$R/run/other/.s.other
mkdir -p "$R/srv/a" "$R/srv/b" "$R/var/lib/my-cache" "$R/run/postgresql" "$R/run/other"
for n in a b; do
	for d in home config config/opencode data state cache; do
		mkdir -p "$R/state/$n/$d"
	done
	echo "state of $n" >"$R/state/$n/home/secret"
	chmod -R go-rwx "$R/state/$n"
done
chown -R "$TEST_UID:$TEST_GID" "$R/srv" "$R/state" "$R/var"

# Servers outside the sandbox: TCP on 127.0.0.2 (inside a's CIDR) and
# 127.0.0.3 (outside it), and two unix sockets (only one listed).
cat >"$T/srv.py" <<'PY'
import os, select, socket, sys
out, socks = sys.argv[1], []
for a in ("127.0.0.2", "127.0.0.3"):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((a, 0))
    s.listen(16)
    socks.append(s)
for p in sys.argv[2:]:
    s = socket.socket(socket.AF_UNIX)
    s.bind(p)
    os.chmod(p, 0o777)
    s.listen(16)
    socks.append(s)
open(out + ".tmp", "w").write(" ".join(str(s.getsockname()[1]) for s in socks[:2]) + "\n")
os.rename(out + ".tmp", out)
while True:
    for s in select.select(socks, [], [], 60)[0]:
        s.accept()[0].close()
PY
python3 "$T/srv.py" "$T/ports" "$SOCK" "$OTHER_SOCK" &
bg_pids="$bg_pids $!"
i=0
while [ ! -s "$T/ports" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
read -r P_IN P_OUT <"$T/ports" || skip_rest "the test servers did not start"
chmod 755 "$R/run" "$R/run/postgresql" "$R/run/other"

PORT_A=$(free_port)
PORT_B=$(free_port)
args="portA = $PORT_A; portB = $PORT_B; socket = \"$SOCK\"; cidrs = [ \"127.0.0.2/32\" ];"
for n in a b; do
	if ! render profile "$n" "$R" "$args" >"$T/$n.ini"; then
		skip_rest "render.nix did not render the profile of $n"
	fi
done
diag "instance a's profile:"
sed 's/^/#   /' "$T/a.ini"

# inst NAME CMD...: CMD as instance NAME runs it: its environment (HOME
# and XDG inside its state), llwrap with the module's arguments.
inst() {
	_n=$1
	shift
	as_user env HOME="$R/state/$_n/home" XDG_CONFIG_HOME="$R/state/$_n/config" \
		XDG_DATA_HOME="$R/state/$_n/data" XDG_STATE_HOME="$R/state/$_n/state" \
		XDG_CACHE_HOME="$R/state/$_n/cache" \
		"$LLWRAP" --backend landlock --name "opencode-$_n" --profile "$T/$_n.ini" \
		--directory "$R/srv/$_n" --rx "$LLW_HELPERS" -- "$@"
}

# Default-deny filesystem policy.
expect_succeeded "a writes in its directory" inst a "$PROBE" write "$R/srv/a/file"
expect_succeeded "a writes in its state (HOME)" inst a "$PROBE" write "$R/state/a/home/file"
echo '{}' >"$R/state/a/config/opencode/opencode.json"
chown "$TEST_UID:$TEST_GID" "$R/state/a/config/opencode/opencode.json"
expect_succeeded "a reads its opencode configuration" inst a "$PROBE" read "$R/state/a/config/opencode/opencode.json"
expect_denied "... which is read-only to it (DESIGN.md section 11)" EROFS inst a "$PROBE" write "$R/state/a/config/opencode/opencode.json"
expect_succeeded "a reads /nix/store or /usr (read-only system paths)" inst a "$PROBE" read /usr/lib/os-release
expect_denied "... and cannot write there" EROFS inst a "$PROBE" write /usr/lib/llwrap-nixos-test
# Where the instance may not read, L3's sealed view holds a placeholder
# (a directory of mode 0111 or a file of mode 000): EACCES, where the
# read-only view gave EROFS (DESIGN.md, watching).
expect_denied "a cannot write outside the allowed paths" EACCES inst a "$PROBE" write "$OUTSIDE/file"
expect_denied "a cannot write to /etc" EROFS inst a "$PROBE" write /etc/llwrap-nixos-test
expect_denied "a cannot plant a profile in its XDG_CONFIG_HOME/llwrap (read at the next start)" EROFS \
	inst a "$PROBE" mkdir "$R/state/a/config/llwrap"
expect_denied "a cannot rename its state layout around" EROFS \
	inst a "$PROBE" rename "$R/state/a/config" "$R/state/a/config.old"

# Allow-lists.
expect_succeeded "a writes sandbox.readWritePaths (/var/lib/my-cache)" inst a "$PROBE" write "$R/var/lib/my-cache/x"
expect_denied "b, without that allow-list entry, cannot" EACCES inst b "$PROBE" write "$R/var/lib/my-cache/y"

# Cross-instance state.
expect_succeeded "b reads its own state" inst b "$PROBE" read "$R/state/b/home/secret"
expect_denied "a cannot read b's state" EACCES inst a "$PROBE" read "$R/state/b/home/secret"
expect_denied "a cannot write into b's state" EACCES inst a "$PROBE" write "$R/state/b/home/planted"
expect_denied "a cannot list b's state" EACCES inst a "$PROBE" ls "$R/state/b"
expect_denied "b cannot read a's directory" EACCES inst b "$PROBE" read "$R/srv/a/file"

# Unix sockets.
expect_succeeded "a connects to the listed socket (.s.PGSQL.5432)" inst a "$PROBE" unix-connect "$SOCK"
expect_denied "a cannot connect to an unlisted socket" EACCES inst a "$PROBE" unix-connect "$OTHER_SOCK"
expect_denied "b (no socket listed) cannot connect to .s.PGSQL.5432" EACCES inst b "$PROBE" unix-connect "$SOCK"

# /proc shows only the instance's processes: a process of the same user
# outside is invisible.
# Its output goes nowhere: a sleeper holding the test's stdout would keep
# the harness waiting for it.
as_user sleep 300 >/dev/null 2>&1 </dev/null &
outside_pid=$!
bg_pids="$bg_pids $outside_pid"
sleep 0.2
host_sleep=$(pgrep -P "$outside_pid" sleep 2>/dev/null || echo "$outside_pid")
bg_pids="$bg_pids $host_sleep"
run inst a "$PROBE" ls /proc
if [ "$rc" -eq 0 ] && ! printf '%s\n' "$out" | grep -qx "$host_sleep"; then
	ok "a's /proc does not show a process of the same uid outside"
else
	not_ok "a's /proc does not show a process of the same uid outside"
	diag "status $rc, pid $host_sleep: $out"
fi
expect_succeeded "... while its own (/proc/self/status) is there" inst a "$PROBE" read /proc/self/status
expect_denied "a cannot read that process's environ" ENOENT inst a "$PROBE" read "/proc/$host_sleep/environ"

# Outbound CIDRs and the listen address (llwrap's supervisor).
expect_succeeded "a connects inside its CIDR (127.0.0.2/32)" inst a "$PROBE" tcp-connect 127.0.0.2 "$P_IN"
expect_denied "a cannot connect outside it (127.0.0.3)" EACCES inst a "$PROBE" tcp-connect 127.0.0.3 "$P_OUT"
# Isolation means the CIDRs and nothing else: no port rule reaches the
# internet either.  Asked of llwrap why (no packet is sent).
if "$LLWRAP" --help 2>/dev/null | grep -Eq '^ +why( |$)'; then
	why() {
		_n=$1
		shift
		as_user env HOME="$R/state/$_n/home" XDG_CONFIG_HOME="$R/state/$_n/config" \
			"$LLWRAP" --profile "$T/$_n.ini" --directory "$R/srv/$_n" why "$@"
	}
	run why a 203.0.113.7:443
	expect_output "a (isolated) may not reach an internet host on 443" '^203\.0\.113\.7:443: denied'
	run why a api.openai.com:443
	expect_output "... nor a name of the opencode profile's host groups" '^api\.openai\.com:443: depends on the address .*: only destinations inside an allow-cidr entry'
	run why b api.openai.com:443
	expect_output "... where b (not isolated) may, by the opencode profile's host groups" '^api\.openai\.com:443: allowed'
	run why b 203.0.113.7:443
	expect_output "... and an address only when an allowed name resolves to it" '^203\.0\.113\.7:443: depends'
	run why b git.example.org:22
	expect_output "b reaches a name of its own allowedHosts on its port" '^git\.example\.org:22: allowed'
	run why b git.example.org:443
	expect_output "... not on another port" '^git\.example\.org:443: denied'
	# An isolated instance's allowedHosts come after isolation's
	# "allow-host = none" (eval-modules.nix checks the order): the
	# name alone, on its port.
	{ cat "$T/a.ini"; echo "allow-host = llm.internal.example:8443"; } >"$T/a-hosts.ini"
	run as_user env HOME="$R/state/a/home" XDG_CONFIG_HOME="$R/state/a/config" \
		"$LLWRAP" --profile "$T/a-hosts.ini" --directory "$R/srv/a" why llm.internal.example:8443
	expect_output "a (isolated) with allowedHosts reaches that name, after allow-host = none" '^llm\.internal\.example:8443: allowed'
	run as_user env HOME="$R/state/a/home" XDG_CONFIG_HOME="$R/state/a/config" \
		"$LLWRAP" --profile "$T/a-hosts.ini" --directory "$R/srv/a" why api.openai.com:443
	expect_output "... and still no name of the opencode profile's host groups" '^api\.openai\.com:443: denied'
	run why a 127.0.0.2:5432
	expect_output "a may reach its CIDR on any port" '^127\.0\.0\.2:5432: allowed'
else
	skip "llwrap why is not available: the internet reach of the profile not checked"
fi
expect_succeeded "a binds its listen address 127.0.0.1:$PORT_A" inst a "$PROBE" tcp-bind 127.0.0.1 "$PORT_A"
# A server asking for the any-address lands on 127.0.0.1 only: not
# reachable at another local address (127.0.0.2), reachable at 127.0.0.1.
inst a "$PROBE" tcp-serve 0.0.0.0 "$PORT_A" 1 >"$T/serve.out" 2>&1 &
serve_pid=$!
bg_pids="$bg_pids $serve_pid"
i=0
while ! grep -q SUCCEEDED "$T/serve.out" && kill -0 "$serve_pid" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
conn() {
	python3 -c 'import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), 3).close()
    print("connected")
except OSError as e:
    print("refused", e)' "$@"
}
run conn 127.0.0.2 "$PORT_A"
expect_output "a's server asked for 0.0.0.0:$PORT_A is not on the any-address (127.0.0.2 refused)" '^refused'
run conn 127.0.0.1 "$PORT_A"
expect_output "... it listens on 127.0.0.1:$PORT_A" '^connected'
# b's port is not a's to take.  The opencode profile's bind-tcp 0 lets
# a's server that asks for it listen for a alone, at a port of the
# kernel's choosing (DESIGN.md section 6): a client outside is refused
# at b's port, b still binds it, a's own client reaches a's server.
cat >"$R/srv/a/squat.sh" <<'SH'
"$1" tcp-serve 127.0.0.1 "$2" 1 >"$3.serve" 2>&1 &
i=0
while ! grep -q SUCCEEDED "$3.serve" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
echo ready >"$3.ready"
i=0
while [ ! -e "$3.go" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
"$1" tcp-connect 127.0.0.1 "$2" >"$3.connect" 2>&1
wait
SH
inst a sh "$R/srv/a/squat.sh" "$PROBE" "$PORT_B" "$R/srv/a/squat" >/dev/null 2>&1 &
squat_pid=$!
bg_pids="$bg_pids $squat_pid"
i=0
while [ ! -e "$R/srv/a/squat.ready" ] && kill -0 "$squat_pid" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
run grep -c SUCCEEDED "$R/srv/a/squat.serve"
expect_output "a's server asks for b's port 127.0.0.1:$PORT_B" '^1'
run conn 127.0.0.1 "$PORT_B"
expect_output "... a client outside is refused there" '^refused'
expect_succeeded "... b binds its listen address 127.0.0.1:$PORT_B meanwhile" inst b "$PROBE" tcp-bind 127.0.0.1 "$PORT_B"
touch "$R/srv/a/squat.go"
wait "$squat_pid"
run cat "$R/srv/a/squat.connect"
expect_output "... a's own client reaches a's server" '^SUCCEEDED'

# Under systemd's ProtectProc=invisible and ProcSubset=pid (a /proc with
# hidepid=invisible,subset=pid), llwrap still starts: its pid namespace
# mounts a fresh /proc.
if [ "$(id -u)" -eq 0 ]; then
	cat >"$T/subset.sh" <<'SH'
umount -l /proc && mount -t proc -o hidepid=invisible,subset=pid proc /proc || exit 3
exec "$@"
SH
	expect_succeeded "under ProtectProc=invisible and ProcSubset=pid, a starts and works" \
		unshare -m --propagation private sh "$T/subset.sh" \
		setpriv --reuid="$TEST_UID" --regid="$TEST_GID" --clear-groups \
		--inh-caps=-all --bounding-set=-all -- \
		env -i PATH=/usr/bin:/bin HOME="$R/state/a/home" \
		XDG_CONFIG_HOME="$R/state/a/config" LLWRAP_PROFILE_PATH="$LLWRAP_PROFILE_PATH" \
		"$LLWRAP" --backend landlock --name opencode-a --profile "$T/a.ini" \
		--directory "$R/srv/a" --rx "$LLW_HELPERS" -- "$PROBE" write "$R/srv/a/subset"
else
	skip "emulating ProtectProc needs root (a private mount namespace)"
fi

done_testing
