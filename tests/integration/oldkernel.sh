#!/bin/sh
# Layer substitution on older kernels (DESIGN.md §14), simulated on this
# one: tests/helpers/llwrap-hooked lowers the Landlock ABI the kernel
# reports (LLW_HOOK_LANDLOCK_ABI) or refuses user namespaces
# (LLW_HOOK_NO_USERNS), so the lower ABI's ruleset is what the running
# kernel enforces.  The shipped profiles must run without --best-effort
# where other layers take over, with the same denials, and refuse
# naming the cause where none can.  Loopback only.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

abi=$(landlock_abi)
HOOKED=$LLW_HELPERS/llwrap-hooked
[ -x "$HOOKED" ] || skip_rest "no $HOOKED (configure --disable-tests?)"
[ "$abi" -ge 4 ] || skip_rest "Landlock ABI $abi: the simulation needs a kernel with ABI 4 or newer to lower"
bwrap_backend && skip_rest "the simulation is of the Landlock backend"
userns_works || skip_rest "unprivileged user namespaces are refused here"
if ! "$LLWRAP" --check | grep -q '^  S  supervisor   usable'; then
	skip_rest "the supervisor cannot run here: $("$LLWRAP" --check | grep '^  S ')"
fi
setup_fixture

# A listener outside the sandbox, and a second port nothing listens on
# that the policy does not allow either.
python3 - "$T/port" <<'PY' &
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
s.settimeout(1)
end = time.time() + 300
while time.time() < end:
    try:
        c, _ = s.accept()
        c.close()
    except OSError:
        pass
PY
bg_pids="$bg_pids $!"
i=0
while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
P=$(cat "$T/port")
python3 - "$T/port2" <<'PY' &
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
time.sleep(300)
PY
bg_pids="$bg_pids $!"
i=0
while [ ! -s "$T/port2" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
P2=$(cat "$T/port2")

echo data >"$OUTSIDE/file"
chmod 666 "$OUTSIDE/file"
marker=$PROJ/ran

# A host process the sandbox must not signal.
sleep 300 &
host_pid=$!
bg_pids="$bg_pids $host_pid"

hooked() {
	as_user env LLW_HOOK_LANDLOCK_ABI="$1" ${LLW_HOOK_NO_USERNS:+LLW_HOOK_NO_USERNS=1} \
		"$HOOKED" --rx "$LLW_HELPERS" "$@"
}

for sim in 1 2 3; do
	h() { as_user env LLW_HOOK_LANDLOCK_ABI=$sim "$HOOKED" --rx "$LLW_HELPERS" "$@"; }
	run h -p default --explain -- true
	expect_output "ABI $sim: the kernel is reported as Landlock ABI $sim" "^kernel: Landlock ABI $sim\$"
	expect_output "ABI $sim: -p default allows no port: seccomp stands in for port rules" "^  L2 +TCP bind/connect port rules"
	run h -p opencode --explain -- true
	expect_output "ABI $sim: -p opencode's ports: the supervisor stands in" "^  S +TCP bind/connect port rules"
	run h -p default --explain -- true
	expect_output "ABI $sim: ... and a pid namespace for signals" "^  L3 +isolation from signalling"
	expect_no_output "ABI $sim: nothing but [not a hole] losses is NOT ENFORCED" "^NOT ENFORCED: [^[]*\$"
	expect_ran "ABI $sim: -p default runs without --best-effort" \
		h -p default -- /bin/sh -c "touch $marker"
	expect_ran "ABI $sim: -p opencode runs without --best-effort" \
		h -p opencode -- /bin/sh -c "touch $marker"
	# Standing in for Landlock's port rules, the supervisor gives them
	# Landlock's meaning (every host on the port); a policy that asks
	# for the supervisor gets its own (internet only, DESIGN.md §6).
	expect_denied "ABI $sim: connect-tcp P: 127.0.0.1:P2 is refused (supervisor)" EACCES \
		h -p default --connect-tcp "$P" -- "$PROBE" tcp-connect 127.0.0.1 "$P2"
	expect_succeeded "ABI $sim: ... while the host's 127.0.0.1:P connects, as under Landlock" \
		h -p default --connect-tcp "$P" -- "$PROBE" tcp-connect 127.0.0.1 "$P"
	expect_succeeded "ABI $sim: ... which allow-cidr 127.0.0.1/32:P reaches" \
		h -p default --allow-cidr "127.0.0.1/32:$P" -- "$PROBE" tcp-connect 127.0.0.1 "$P"
	expect_denied "ABI $sim: ... but not P2 on it" EACCES \
		h -p default --allow-cidr "127.0.0.1/32:$P" -- "$PROBE" tcp-connect 127.0.0.1 "$P2"
	expect_succeeded "ABI $sim: the sandbox's own server on loopback works (bind-tcp 0)" \
		h -p default --bind-tcp 0 -- "$LLW_HELPERS/netprobe" self tcp 127.0.0.1 0 -
	expect_denied "ABI $sim: -p opencode: a port it does not list is refused" EACCES \
		h -p opencode -- "$PROBE" tcp-connect 127.0.0.1 "$P2"
	fixed=$(free_port)
	expect_denied "ABI $sim: bind-tcp 0: a fixed port is refused" EACCES \
		h -p default --bind-tcp 0 -- "$PROBE" tcp-bind 127.0.0.1 "$fixed"
	expect_succeeded "ABI $sim: ... an ephemeral one binds" \
		h -p default --bind-tcp 0 -- "$PROBE" tcp-bind 127.0.0.1 0
	expect_denied "ABI $sim: truncate outside writable roots is refused" EROFS \
		h -p default --ro "$OUTSIDE" -- "$PROBE" truncate "$OUTSIDE/file"
	[ "$sim" -lt 3 ] &&
		expect_output "... by the read-only view (L3)" "EROFS"
	echo data >"$PROJ/new.txt"
	chmod 666 "$PROJ/new.txt"
	expect_succeeded "ABI $sim: ... truncate inside the project works" \
		h -p default -- "$PROBE" truncate "$PROJ/new.txt"
	expect_denied "ABI $sim: a host process cannot be signalled (pid namespace)" ESRCH \
		h -p default -- "$PROBE" kill "$host_pid" 0
done

# Without user namespaces nothing takes over truncate (ABI 2) and the
# refusal says which layers could and why they cannot.
expect_refused "ABI 2 without user namespaces: -p default refuses" \
	"truncate.*L3.*best-effort" \
	as_user env LLW_HOOK_LANDLOCK_ABI=2 LLW_HOOK_NO_USERNS=1 "$HOOKED" \
	-p default -- /bin/sh -c "touch $marker"
expect_refused "ABI 3 without user namespaces: signal isolation has no layer: refused" \
	"signalling.*L3.*best-effort" \
	as_user env LLW_HOOK_LANDLOCK_ABI=3 LLW_HOOK_NO_USERNS=1 "$HOOKED" \
	--rx "$LLW_HELPERS" -p default -- /bin/sh -c "touch $marker"
expect_ran "... with --best-effort it runs" \
	as_user env LLW_HOOK_LANDLOCK_ABI=3 LLW_HOOK_NO_USERNS=1 "$HOOKED" \
	--rx "$LLW_HELPERS" -p default --best-effort -- /bin/sh -c "touch $marker"
expect_output "... naming what is NOT ENFORCED" "NOT ENFORCED: isolation from signalling"
expect_no_output "... and nothing the supervisor took over" "NOT ENFORCED: TCP"
done_testing
