#!/bin/sh
# Refusals in a container tell the truth (DESIGN.md §14, Containers).  A
# container runtime's default seccomp profile (Docker's, podman's,
# containerd's, a pod's RuntimeDefault) refuses new user namespaces and
# pidfd_getfd and process_vm_readv with EPERM: --check and the
# refusals name that filter, the calls it refuses and the option that
# allows them -- not Yama, not an outer llwrap -- and -p default still
# runs.  The network supervisor runs there without those calls (its
# substitutes, DESIGN.md §6): the listener passed with SCM_RIGHTS, the
# caller's memory read through /proc/PID/mem, the sockets it decides on
# made by it and installed in the caller's place; the policy still
# decides, the address raced still does not get through, and what has
# no substitute is refused with its errno (filtered/no-getfd).  Built on
# the host: the probe helper's container-filter installs such a filter
# (EPERM for unshare, clone with CLONE_NEWUSER, pidfd_getfd and
# process_vm_readv) and execs llwrap.  Which runtime is named
# depends on this machine (/.dockerenv, /run/.containerenv, cgroups), so
# the patterns take any; test-contain checks each runtime's words.  A new
# /proc refused over masked /proc paths is built in a mount namespace of
# root's with /proc/keys covered, as a runtime's masked paths are.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

if ! userns_works; then
	skip_rest "unprivileged user namespaces are refused here already"
fi
if supervisor_refused >/dev/null; then
	skip_rest "the network supervisor cannot run here already"
fi

L3=$T/l3.ini
printf '[profile]\ninclude = default\n[filesystem]\nprivate-tmp = yes\n[process]\nhide-processes = yes\n' >"$L3"
chmod 644 "$L3"
marker=$PROJ/ran-container
in_filter() {
	as_user "$PROBE" container-filter "$LLWRAP" "$@"
}
FILTER="(seccomp profile|seccomp filter)[^;]* refuses"
USERNS="refuses new user namespaces \\(unshare, clone with CLONE_NEWUSER: EPERM\\)"
SUBST="pidfd_getfd refused \\(Operation not permitted\\): the supervisor makes the sockets"

# Where Landlock lacks truncate (ABI < 3: Debian 12's 6.1) every policy
# needs L3 for it, which a runtime's filter refuses: -p default fails
# closed there too, and nothing below can run.
if [ "$(llwrap_abi)" -lt 3 ]; then
	expect_refused "Landlock ABI $(llwrap_abi): -p default under a runtime's filter fails closed, naming truncate(2)" \
		"cannot enforce the policy: truncate\\(2\\).*$USERNS" \
		in_filter -p default -- /bin/sh -c "touch $marker"
	expect_no_output "... and offers no -p default, which needs L3 here too" \
		"-p default \\(Landlock and seccomp alone\\) runs here"
	run in_filter --check
	expect_no_output "... nor does --check" \
		"-p default \\(Landlock and seccomp alone\\) runs here"
	skip_rest "Landlock ABI $(llwrap_abi) has no truncate right: under a runtime's filter every policy fails closed"
fi

# --- --check ------------------------------------------------------------
run as_user "$LLWRAP" --check
expect_output "--check without the filter: user namespaces work" \
	"^user namespaces: unprivileged creation works"
expect_output "... and the supervisor is usable" "^  S  supervisor   usable"
run in_filter --check
expect_rc "--check under a runtime's filter exits 0 (Landlock runs)" 0
expect_output "... names the filter and the calls it refuses for user namespaces" \
	"^user namespaces: unprivileged creation refused \\(.*$FILTER new user namespaces"
expect_output "... with EPERM and the calls named" "$USERNS"
expect_output "... says the supervisor is usable by its substitutes, and which" \
	"^  S  supervisor   usable \\($SUBST.*memory read through /proc/PID/mem\\)"
expect_output "... and the option that allows user namespaces" \
	"seccomp=unconfined|seccompProfile|--seccomp-profile|start it without that filter"
expect_output "... and what runs without changing the container" \
	"if the container cannot change, -p default \\(Landlock and seccomp alone\\) runs here"
if printf '%s\n' "$out" | grep -E "^user namespaces:|^  S  supervisor" |
	grep -Eq "Yama|outer llwrap"; then
	not_ok "... and blames neither Yama nor an outer llwrap"
	diag "$out"
else
	ok "... and blames neither Yama nor an outer llwrap"
fi

# --- The refusals ---------------------------------------------------------
expect_refused "a policy that needs L3 fails closed (125) naming the filter, not an outer llwrap" \
	"namespace layer \\(L3\\).*$USERNS.*-p default" \
	in_filter -p "$L3" -- /bin/sh -c "touch $marker"
expect_ran "a policy that needs the supervisor runs" \
	in_filter -p default --allow-cidr 127.0.0.1/32:9 -- /bin/sh -c "touch $marker"
run in_filter -p default --allow-cidr 127.0.0.1/32:9 --explain -- true
expect_output "... and --explain says the supervisor enforces, on which substitutes" \
	"^  substitutes  $SUBST"
expect_ran "-p default runs under the filter" \
	in_filter -p default -- /bin/sh -c "touch $marker"

# --- The supervisor without pidfd_getfd and process_vm_readv ----------------
# The cases supervisor.sh runs on the host, under the filter: the policy
# decides on the supervisor's copy of the address, and the supervisor
# performs the call on a socket of its own, installed in the caller's
# place.  The bubblewrap backend needs user namespaces (or a setuid
# bwrap), which the filter refuses.
NETPROBE=$LLW_HELPERS/netprobe
in_filter_h() {
	as_user "$PROBE" container-filter "$LLWRAP" --rx "$LLW_HELPERS" "$@"
}
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
if bwrap_backend; then
	skip "the supervisor under the filter: bwrap needs user namespaces, which the filter refuses"
else
	serve tcp 127.0.0.1 0 "$T/a" udp 127.0.0.1 0 "$T/ua"
	wait_file "$T/a.port"
	wait_file "$T/ua.port"
	PA=$(cat "$T/a.port") UA=$(cat "$T/ua.port")
	serve tcp 127.0.0.2 "$PA" "$T/b2"
	wait_file "$T/b2"
	ALLOW="--allow-cidr 127.0.0.1/32:$PA"

	expect_succeeded "under the filter: an allowed connect works (the supervisor's socket, installed)" \
		in_filter_h -p default $ALLOW -- "$PROBE" tcp-connect 127.0.0.1 "$PA"
	expect_denied "... another address is refused by the policy (EACCES)" EACCES \
		in_filter_h -p default $ALLOW -- "$PROBE" tcp-connect 127.0.0.2 "$PA"
	expect_succeeded "... a non-blocking connect: EINPROGRESS, then poll" \
		in_filter_h -p default $ALLOW -- "$NETPROBE" tcp-connect-nb 127.0.0.1 "$PA"
	expect_output "... answered EINPROGRESS as the kernel would" "einprogress|immediate"
	expect_denied "... a non-blocking connect to a refused address fails" EACCES \
		in_filter_h -p default $ALLOW -- "$NETPROBE" tcp-connect-nb 127.0.0.2 "$PA"

	before=$(count "$T/b2")
	beforea=$(count "$T/a")
	run in_filter_h -p default $ALLOW -- "$NETPROBE" race 127.0.0.1 127.0.0.2 "$PA" 2000
	i=0
	while [ "$(count "$T/a")" -eq "$beforea" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
	if [ "$rc" -eq 0 ] && [ "$(count "$T/b2")" -eq "$before" ] &&
		[ "$(count "$T/a")" -gt "$beforea" ]; then
		ok "... race: a thread flipping the address never reaches the denied listener, the allowed one is reached"
	else
		not_ok "... race: the denied listener was reached, or the allowed one was not"
		diag "status $rc, denied $before -> $(count "$T/b2"), allowed $beforea -> $(count "$T/a"): $out"
	fi

	ua0=$(count "$T/ua")
	expect_succeeded "... UDP sendto an allowed destination (an unconnected socket of the supervisor's)" \
		in_filter_h -p default --allow-cidr "127.0.0.1/32:$UA" -- "$PROBE" udp-send 127.0.0.1 "$UA"
	expect_succeeded "... UDP connect, then send (the socket held for the send)" \
		in_filter_h -p default --allow-cidr "127.0.0.1/32:$UA" -- "$NETPROBE" udp-connect-send 127.0.0.1 "$UA"
	expect_succeeded "... UDP sendmmsg" \
		in_filter_h -p default --allow-cidr "127.0.0.1/32:$UA" -- "$NETPROBE" udp-sendmmsg 127.0.0.1 "$UA"
	expect_denied "... UDP sendto another address is refused" EACCES \
		in_filter_h -p default --allow-cidr "127.0.0.1/32:$UA" -- "$PROBE" udp-send 127.0.0.2 "$UA"
	i=0
	while [ "$(count "$T/ua")" -lt $((ua0 + 3)) ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	if [ "$(count "$T/ua")" -ge $((ua0 + 3)) ]; then
		ok "... the allowed datagrams arrived"
	else
		not_ok "... the allowed datagrams arrived"
		diag "$ua0 -> $(count "$T/ua")"
	fi

	# A second connect after EINPROGRESS (Ruby's and Perl's idiom): the
	# kernel's answer from the socket the supervisor connected, not a
	# second connection; and a close reaches the peer.
	cat >"$PROJ/twice.py" <<'PY'
import errno, select, socket, sys
port = int(sys.argv[1])
b = socket.socket(); b.bind(("127.0.0.1", 0)); b.listen(); p = b.getsockname()[1]
s = socket.socket(); s.setblocking(False)
first = s.connect_ex(("127.0.0.1", p))
select.select([], [s], [], 5)
second = s.connect_ex(("127.0.0.1", p))
third = s.connect_ex(("127.0.0.1", p))
a, _ = b.accept()
b.settimeout(0.5)
try:
    b.accept(); extra = "a second connection"
except socket.timeout:
    extra = "one connection"
s.close()
a.settimeout(5)
eof = a.recv(1) == b""
print("%s %s %s %s %s" % ("SUCCEEDED" if second in (0, errno.EISCONN) and third == errno.EISCONN and extra == "one connection" and eof else "FAILED",
      errno.errorcode.get(first, first), errno.errorcode.get(second, second), errno.errorcode.get(third, third), extra))
PY
	chmod 644 "$PROJ/twice.py"
	run in_filter_h -p default --bind-tcp 0 --bind-tcp 1-65535 --allow-cidr 127.0.0.1/32 -- python3 "$PROJ/twice.py" 0
	expect_output "... a second and third connect after EINPROGRESS get the kernel's answers (EISCONN), one connection is made, and its close reaches the peer" \
		"^SUCCEEDED (EINPROGRESS|0) "

	L=$(free_port)
	expect_succeeded "... a listener bound through the supervisor accepts a child's connection" \
		in_filter_h -p default --listen "127.0.0.1:$L" --connect-tcp "$L" --allow-cidr "127.0.0.1/32:$L" -- "$NETPROBE" self tcp 127.0.0.1 "$L" 127.0.0.1
	# bind, close, bind again: the port the supervisor's socket held is
	# the caller's again (the "free port" idiom of test suites).
	cat >"$PROJ/rebind.py" <<'PY'
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close()
t = socket.socket(); t.bind(("127.0.0.1", p)); t.listen()
u = socket.socket()
try:
    u.bind(("127.0.0.1", p)); print("FAILED a second bind to a port in use worked")
except OSError as e:
    print("SUCCEEDED rebind, then EADDRINUSE" if e.errno == 98 else "FAILED errno %d" % e.errno)
PY
	chmod 644 "$PROJ/rebind.py"
	run in_filter_h -p default --bind-tcp 0 --bind-tcp 1-65535 --allow-cidr 127.0.0.1/32 -- python3 "$PROJ/rebind.py"
	expect_output "... bind, close, bind the same port again works; a second socket on it gets EADDRINUSE" \
		"^SUCCEEDED rebind, then EADDRINUSE"
	expect_denied "... a bind the policy refuses is refused (EACCES)" EACCES \
		in_filter_h -p default --listen "127.0.0.1:$L" -- "$PROBE" tcp-bind 127.0.0.2 "$L"

	mkdir -p "$T/sock"
	chmod 755 "$T/sock"
	serve unix-stream "$T/sock/ok.sock" - "$T/ok" unix-stream "$T/sock/no.sock" - "$T/no" \
		unix-dgram "$T/sock/dg.sock" - "$T/dg"
	wait_file "$T/ok"
	wait_file "$T/no"
	wait_file "$T/dg"
	expect_succeeded "... a unix stream socket on the allow-list connects (the supervisor's socket)" \
		in_filter_h -p default --unix "$T/sock/ok.sock" -- "$PROBE" unix-connect "$T/sock/ok.sock"
	expect_denied "... one not on it is refused (EACCES)" EACCES \
		in_filter_h -p default --unix "$T/sock/ok.sock" -- "$PROBE" unix-connect "$T/sock/no.sock"
	mkdir -p "$PROJ/usock"
	chown "$TEST_UID:$TEST_GID" "$PROJ/usock"
	expect_succeeded "... the sandbox's own unix server: bind + listen + connect from a child" \
		in_filter_h -p default --unix "$T/sock/ok.sock" -- "$NETPROBE" unix-self "$PROJ/usock/own.sock"
	expect_denied "... a unix datagram socket has no substitute: refused (EACCES), fail closed" EACCES \
		in_filter_h -p default -n nogetfd --unix "$T/sock/dg.sock" -- "$NETPROBE" unix-dgram-sendto "$T/sock/dg.sock"
	if grep -Eq "^llwrap-nogetfd-blocked: sendto unix fd[0-9]+ pid=[0-9]+ comm=netprobe rule=filtered/no-getfd\$" \
		"$HOME_DIR/.local/state/llwrap/nogetfd.log" 2>/dev/null; then
		ok "... and the log names why (filtered/no-getfd)"
	else
		not_ok "... and the log names why (filtered/no-getfd)"
		diag "$(cat "$HOME_DIR/.local/state/llwrap/nogetfd.log" 2>&1)"
	fi

	# inotify_add_watch on an instance the supervisor made (none of
	# the caller's can be taken): the judge still decides.
	mkdir -p "$PROJ/wt/a/b" "$PROJ/wt/c"
	chown -R "$TEST_UID:$TEST_GID" "$PROJ/wt"
	expect_succeeded "... a watch on the project reports its events (an inotify instance of the supervisor's)" \
		in_filter_h -p default -q -- "$PROBE" watch "$PROJ/wt" event
	expect_succeeded "... a recursive watcher adds a watch on each directory to one instance" \
		in_filter_h -p default -q -- "$PROBE" watch-tree "$PROJ/wt"
	expect_output "... all four" "watches=4"
	expect_denied "... a watch where the sandbox may not read (-p opencode: ~/.ssh) is refused (EACCES)" EACCES \
		in_filter_h -p opencode --best-effort -q -- "$PROBE" watch "$HOME_DIR/.ssh" -
	expect_denied "... a descriptor that is not an inotify instance: EINVAL, as the kernel says" EINVAL \
		in_filter_h -p default -q -- "$PROBE" watch "$PROJ/wt" badfd

	run in_filter_h -p opencode --best-effort --connect-tcp "$PA" --allow-cidr 127.0.0.1/32 -- "$PROBE" tcp-connect 127.0.0.1 "$PA"
	expect_output "-p opencode --best-effort: the port rules still decide (an allowed port connects)" "^SUCCEEDED tcp-connect"
	if printf '%s\n' "$out" | grep -q "NOT ENFORCED: the network supervisor"; then
		not_ok "... and the supervisor's rules are kept"
		diag "$out"
	else
		ok "... and the supervisor's rules are kept"
	fi
	expect_denied "... another destination is refused (EACCES)" EACCES \
		in_filter_h -p opencode --best-effort --connect-tcp "$PA" --allow-cidr 127.0.0.1/32 -- "$PROBE" tcp-connect 127.0.0.2 "$PA"
fi

# --- L3 beside the substitutes ---------------------------------------------
# A filter that refuses only pidfd_getfd and process_vm_readv: user
# namespaces work, so -p opencode runs whole, its supervisor on its
# substitutes; its own servers (a bind moved to a port of the kernel's
# choosing, the sandbox's clients sent there) and its rules as on the host.
in_getfd() {
	as_user "$PROBE" getfd-filter "$LLWRAP" --rx "$LLW_HELPERS" "$@"
}
if bwrap_backend; then
	skip "L3 beside the substitutes: the Landlock backend's"
else
	run in_getfd --check
	expect_output "pidfd_getfd refused alone: --check says which substitutes run" \
		"^  S  supervisor   usable \\($SUBST"
	expect_succeeded "-p opencode (L3) on the substitutes: an allowed connect works" \
		in_getfd -p opencode -q --allow-cidr "127.0.0.1/32:$PA" -- "$PROBE" tcp-connect 127.0.0.1 "$PA"
	expect_denied "... this host's port 443 is refused by the supervisor (EACCES, not ECONNREFUSED)" EACCES \
		in_getfd -p opencode -q -- "$PROBE" tcp-connect 127.0.0.1 443
	expect_succeeded "... the sandbox's own server on a port no rule publishes: a child connects" \
		in_getfd -p opencode -q -- "$NETPROBE" self tcp 127.0.0.1 "$(free_port)" 127.0.0.1
fi

# --- A new /proc over masked paths -----------------------------------------
# Root's mount namespace with a file over /proc/keys: the kernel then
# refuses the test user's namespaces a new proc (hide-processes).
masked() {
	unshare -m --propagation private -- /bin/sh -c \
		'sh "$UNPROC" && mount --bind /dev/null /proc/keys && cd "$0" && exec setpriv --reuid="$1" --regid="$2" --clear-groups --inh-caps=-all --bounding-set=-all -- env -i HOME="$3" PATH=/usr/bin:/bin GIT_CEILING_DIRECTORIES="$8" LLWRAP_PROFILE_PATH="$4" "$5" -p "$6" -- /bin/sh -c "touch $7"' \
		"$PROJ" "$TEST_UID" "$TEST_GID" "$HOME_DIR" "${LLWRAP_PROFILE_PATH:-}" \
		"$LLWRAP" "$@" "$marker" "$T"
}
# Another proc mount in sight (a chroot's /proc, as debootstrap's) lets
# the kernel mount a new /proc over masked paths (mnt_already_visible):
# the masked namespaces unmount every proc but /proc first (their own
# copies: the host's stay).
UNPROC=$T/unproc.sh
export UNPROC
cat >"$UNPROC" <<'EOS'
sed -n 's/^[^ ]* [^ ]* [^ ]* [^ ]* \([^ ]*\) .* - proc .*/\1/p' /proc/self/mountinfo |
	grep -vx /proc | while read -r m; do umount -l "$m" || exit 1; done
EOS
if bwrap_backend; then
	skip "a new /proc over masked paths: L3 is the Landlock backend's"
elif ! unshare -m --propagation private -- mount --bind /dev/null /proc/keys 2>/dev/null; then
	skip "a new /proc over masked paths: /proc/keys cannot be covered here"
else
	expect_refused "hide-processes under a masked /proc fails closed (125) naming the unmasking option" \
		"cannot make a new proc for /proc: Operation not permitted.*(systempaths=unconfined|unmask=ALL|procMount).*hide-processes = no" \
		masked "$L3"
	expect_ran "... while a policy without a new /proc runs there" \
		masked default
	run unshare -m --propagation private -- /bin/sh -c \
		'sh "$UNPROC" && mount --bind /dev/null /proc/keys && cd "$0" && exec setpriv --reuid="$1" --regid="$2" --clear-groups --inh-caps=-all --bounding-set=-all -- "$3" --check' \
		"$PROJ" "$TEST_UID" "$TEST_GID" "$LLWRAP"
	expect_output "--check there says a new /proc is refused, and the option" \
		"^     a new /proc \\(hide-processes\\): refused \\(EPERM: .*(systempaths=unconfined|unmask=ALL|procMount).*hide-processes = no"
	run as_user "$LLWRAP" --check
	if printf '%s\n' "$out" | grep -q "^     a new /proc"; then
		not_ok "... and not where /proc is whole"
		diag "$out"
	else
		ok "... and not where /proc is whole"
	fi
fi

# --- The container's pid namespace (C) ------------------------------------
# Rootless podman: llwrap in a pid namespace that is not the host's,
# over a /proc with masked paths, where the kernel refuses a new /proc
# (subset=pid too: mount_too_revealing, 6.18).  Root's pid and mount
# namespace, a new /proc there with /proc/keys covered, as the runtime
# makes them; the test user's llwrap inside.  hide-processes is then the
# container's pid namespace's: the run goes on without a pid namespace
# of its own (whose pids the container's /proc would not show).
in_pid_ns() {
	unshare -m -p -f ${IPC_NS:-} --mount-proc --propagation private -- /bin/sh -c \
		'sh "$UNPROC" && mount --bind /dev/null /proc/keys && cd "$0" && u=$1 g=$2 h=$3 pp=$4 t=$5 && shift 5 && exec setpriv --reuid="$u" --regid="$g" --clear-groups --inh-caps=-all --bounding-set=-all -- env -i HOME="$h" PATH=/usr/bin:/bin GIT_CEILING_DIRECTORIES="$t" LLWRAP_PROFILE_PATH="$pp" "$@"' \
		"$PROJ" "$TEST_UID" "$TEST_GID" "$HOME_DIR" "${LLWRAP_PROFILE_PATH:-}" "$T" "$@"
}
in_pod() {
	in_pid_ns "$LLWRAP" --rx "$LLW_HELPERS" "$@"
}
# Docker's default profile: no user namespaces there either
# (llwrap-hooked with LLW_HOOK_NO_USERNS=1, as oldkernel.sh).
HOOKED=$LLW_HELPERS/llwrap-hooked
in_docker() {
	in_pid_ns LLW_HOOK_NO_USERNS=1 "$HOOKED" --rx "$LLW_HELPERS" "$@"
}
if bwrap_backend; then
	skip_rest "the container's pid namespace: L3 is the Landlock backend's"
fi
if ! unshare -m -p -f --mount-proc --propagation private -- mount --bind /dev/null /proc/keys 2>/dev/null; then
	skip_rest "the container's pid namespace: /proc/keys cannot be covered here"
fi
run in_pod --check
expect_output "--check in a container's pid namespace says so" \
	"^pid namespace: +not the host's"
expect_output "... that a new /proc is refused, and that the container's pid namespace hides processes instead" \
	"^     a new /proc \\(hide-processes\\): refused \\(EPERM: .*; the pid namespace llwrap runs in hides the host's processes instead \\(C\\)"
expect_output "... and the layer per restriction says C" \
	"^  C    hiding processes outside the sandbox \\(hide-processes\\): the pid namespace llwrap runs in"
run in_pod -p "$L3" --explain -- /bin/true
expect_output "--explain: hide-processes enforced by the container's pid namespace" \
	"^  C    hiding processes outside the sandbox \\(hide-processes\\): the pid namespace llwrap runs in \\(the container's\\)"
expect_output "... L3 runs without a pid namespace of its own" \
	"^shape: command \\(user and mount namespaces"
expect_ran "hide-processes over a masked /proc runs in a container's pid namespace" \
	in_pod -p "$L3" -- /bin/sh -c "touch $marker"
spawn_as_user sleep 300
victim=$spawned
sleep 0.2
run in_pod -p "$L3" -- /bin/sh -c 'cat /proc/[0-9]*/comm'
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -qx sh &&
	! printf '%s\n' "$out" | grep -qx sleep; then
	ok "a host process ($victim) is absent from the container's /proc"
else
	not_ok "a host process is absent from the container's /proc"
	diag "status $rc: $out"
fi
grep -qx sleep "/proc/$victim/comm" && ok "... while the host sees it" ||
	not_ok "the host process is gone"
expect_denied "a signal to the host process fails (it has no pid in the container)" ESRCH \
	in_pod -p "$L3" -- "$PROBE" kill "$victim" 0
run in_pod -p "$L3" -- /bin/sh -c 'grep -q "^Pid:[[:space:]]*$$\$" /proc/$$/status && echo same'
expect_output "/proc/PID names the command's own process (no pid namespace the container's /proc does not show)" \
	"^same$"
run in_pod -p "$L3" -- /bin/sh -c "echo private >/tmp/llw-pod-tmp"
[ "$rc" -eq 0 ] && [ ! -e /tmp/llw-pod-tmp ] &&
	ok "... and the rest of L3 holds there (a private /tmp)" ||
	{ not_ok "the rest of L3 holds there (a private /tmp)"; diag "status $rc: $out"; rm -f /tmp/llw-pod-tmp; }

# private-tmp without user namespaces (DESIGN.md §14, M): a directory of
# the run's own as TMPDIR, /tmp and /var/tmp themselves refused, removed
# after the run through descriptors only; /dev/shm only in an IPC
# namespace of the container's own.
private_tmp_tests() {
	run in_docker -p "$L3" --explain -- /bin/true
	expect_output "private-tmp without user namespaces: --explain names the run's own directory (M)" \
		"^  M    a private /tmp \\(private-tmp\\): a directory of the run's own as TMPDIR"
	expect_output "... and the shared scratch line says /tmp itself is refused" \
		"^  shared scratch    private /tmp: /tmp/llwrap-run\\.XXXXXXXX .*/tmp and /var/tmp themselves refused \\(EACCES\\); /dev/shm refused"
	if printf '%s\n' "$out" | grep -Eq "WILL NOT RUN|NOT ENFORCED: private-tmp"; then
		not_ok "... and neither refuses nor reports it lost"
		diag "$out"
	else
		ok "... and neither refuses nor reports it lost"
	fi
	run in_pid_ns LLW_HOOK_NO_USERNS=1 "$HOOKED" --rx "$LLW_HELPERS" --check
	expect_output "... --check lists the row: M, the run's own directory" \
		"^  M    a private /tmp \\(private-tmp\\): a directory of the run's own"
	run in_docker -p "$L3" -- /bin/sh -c 'echo "dir=$TMPDIR"; f=$(mktemp) && echo made >"$f" && echo "mktemp=$f" && cat "$f" && python3 -c "import tempfile; f = tempfile.NamedTemporaryFile(delete=False); f.write(b\"x\"); f.close(); print(\"python=\" + f.name)"'
	dir=$(printf '%s\n' "$out" | sed -n 's/^dir=//p')
	case $dir in
	/tmp/llwrap-run.????????) ok "TMPDIR is the run's own directory ($dir)" ;;
	*) not_ok "TMPDIR is the run's own directory"; diag "status $rc: $out" ;;
	esac
	if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q "^mktemp=$dir/tmp\\." &&
		printf '%s\n' "$out" | grep -qx made; then
		ok "... mktemp makes its file there and it works"
	else
		not_ok "mktemp makes its file in the run's directory"; diag "status $rc: $out"
	fi
	if ! command -v python3 >/dev/null; then
		skip "... python's tempfile: no python3 here"
	elif printf '%s\n' "$out" | grep -q "^python=$dir/"; then
		ok "... so does python's tempfile"
	else
		not_ok "python's tempfile lands in the run's directory"; diag "status $rc: $out"
	fi
	[ -n "$dir" ] && [ ! -e "$dir" ] && ok "... and after the run the directory is gone" ||
		{ not_ok "the run's directory is removed after the run"; diag "$(ls -la "$dir" 2>&1)"; }
	rm -f /tmp/llw-ptmp-x
	expect_denied "writing /tmp/NAME by its literal path is refused (EACCES)" EACCES \
		in_docker -p "$L3" -- "$PROBE" write /tmp/llw-ptmp-x
	[ ! -e /tmp/llw-ptmp-x ] && ok "... and nothing was written there" ||
		{ not_ok "a file was written in the host's /tmp"; rm -f /tmp/llw-ptmp-x; }
	expect_denied "... so is /var/tmp (EACCES)" EACCES \
		in_docker -p "$L3" -- "$PROBE" write /var/tmp/llw-ptmp-x
	printf 'host\n' >/tmp/llw-ptmp-host
	chown "$TEST_UID:$TEST_GID" /tmp/llw-ptmp-host
	expect_denied "a file of the host's in /tmp (the user's own) is out of reach (EACCES)" EACCES \
		in_docker -p "$L3" -- "$PROBE" read /tmp/llw-ptmp-host
	other=/tmp/llwrap-run.llwother
	rm -rf "$other"
	mkdir -m 700 "$other"
	printf 'other run\n' >"$other/f"
	chown -R "$TEST_UID:$TEST_GID" "$other"
	expect_denied "another run's directory is out of reach (EACCES)" EACCES \
		in_docker -p "$L3" -- "$PROBE" read "$other/f"
	expect_denied "... and cannot be listed (EACCES)" EACCES \
		in_docker -p "$L3" -- "$PROBE" ls "$other"
	# What the sandbox plants in its directory cannot steer the removal:
	# links to the user's files and to another run's directory, a FIFO
	# (which an open would block on), a deep tree.
	target=$T/ptmp-target
	rm -rf "$target"
	mkdir -p "$target/sub"
	printf 'keep\n' >"$target/file"
	printf 'keep\n' >"$target/sub/file"
	chown -R "$TEST_UID:$TEST_GID" "$target"
	run in_docker -p "$L3" -- /bin/sh -c "
		ln -s '$target' \"\$TMPDIR/dirlink\" &&
		ln -s '$target/file' \"\$TMPDIR/filelink\" &&
		ln -s '$other' \"\$TMPDIR/otherlink\" &&
		mkdir \"\$TMPDIR/d\" && ln -s '$target' \"\$TMPDIR/d/inner\" &&
		mkfifo \"\$TMPDIR/fifo\" \"\$TMPDIR/d/fifo\" &&
		p=\"\$TMPDIR\" && i=0 && while [ \$i -lt 40 ]; do p=\$p/deep; mkdir \$p; : >\$p/f; i=\$((i + 1)); done &&
		echo \"dir=\$TMPDIR\""
	dir=$(printf '%s\n' "$out" | sed -n 's/^dir=//p')
	if [ "$rc" -eq 0 ] && [ -n "$dir" ] && [ ! -e "$dir" ]; then
		ok "links, FIFOs and a tree 40 deep planted in it: removed, without blocking"
	else
		not_ok "the planted directory is removed without blocking"; diag "status $rc: $out"
	fi
	if [ -f "$target/file" ] && [ -f "$target/sub/file" ] && [ -f "$other/f" ]; then
		ok "... and nothing a link named was touched"
	else
		not_ok "the removal followed a link"; diag "$(ls -laR "$target" "$other" 2>&1)"
	fi
	# Directories the command left without its owner's permissions (a
	# read-only tree, chmod 0, the run's directory itself): removed whole
	# all the same, their owner's rwx given back through descriptors.
	run in_docker -p "$L3" -- /bin/sh -c '
		mkdir -p "$TMPDIR/ro/sub" "$TMPDIR/none/sub" &&
		: >"$TMPDIR/ro/sub/f" && : >"$TMPDIR/none/sub/f" &&
		chmod 500 "$TMPDIR/ro/sub" "$TMPDIR/ro" &&
		chmod 000 "$TMPDIR/none/sub" "$TMPDIR/none" &&
		echo "dir=$TMPDIR" && chmod 000 "$TMPDIR"'
	dir=$(printf '%s\n' "$out" | sed -n 's/^dir=//p')
	if [ "$rc" -eq 0 ] && [ -n "$dir" ] && [ ! -e "$dir" ] &&
		! printf '%s\n' "$out" | grep -q "not removed whole"; then
		ok "read-only and unreadable directories planted in it (and itself chmod 0): removed whole"
	else
		not_ok "directories without their owner's permissions are removed"; diag "status $rc: $out"
	fi
	[ -n "$dir" ] && case $dir in /tmp/llwrap-run.*) rm -rf "$dir" ;; esac
	# Root without user namespaces: the same, its directory root's.
	if [ "$(id -u)" -ne 0 ]; then
		skip "private-tmp without user namespaces as root: not root"
	else
		run sh -c 'cd "$1" && shift && exec unshare -m -p -f --mount-proc --propagation private -- env LLW_HOOK_NO_USERNS=1 "$@"' sh "$PROJ" \
			"$HOOKED" --rx "$LLW_HELPERS" -p "$L3" -- /bin/sh -c 'f=$(mktemp) && echo root-made >"$f" && cat "$f" && echo "dir=$TMPDIR" && "$0" write /tmp/llw-ptmp-root' "$PROBE"
		dir=$(printf '%s\n' "$out" | sed -n 's/^dir=//p')
		if printf '%s\n' "$out" | grep -qx root-made &&
			printf '%s\n' "$out" | grep -q "^DENIED .*errno=EACCES" &&
			[ ! -e /tmp/llw-ptmp-root ] && [ -n "$dir" ] && [ ! -e "$dir" ]; then
			ok "as root: mktemp in the run's directory, /tmp itself EACCES, the directory gone after"
		else
			not_ok "private-tmp without user namespaces as root"; diag "status $rc: $out"
			rm -f /tmp/llw-ptmp-root
		fi
	fi
	# Past the removal's bounds (64 levels) what is left is named, never
	# silently left.
	run in_docker -p "$L3" -- /bin/sh -c '
		p=$TMPDIR && i=0 && while [ $i -lt 70 ]; do p=$p/d; mkdir $p || exit 1; i=$((i + 1)); done &&
		echo "dir=$TMPDIR"'
	dir=$(printf '%s\n' "$out" | sed -n 's/^dir=//p')
	if [ "$rc" -eq 0 ] && [ -n "$dir" ] && [ -d "$dir" ] &&
		printf '%s\n' "$out" | grep -q "^llwrap: error: the run's temporary directory was not removed whole: $dir/.*: deeper than 64 levels (left)" &&
		printf '%s\n' "$out" | grep -q "^llwrap: error: remove $dir yourself"; then
		ok "a tree deeper than the removal's bound: what is left is named, with the way out"
	else
		not_ok "a tree past the removal's bound is named"; diag "status $rc: $out"
	fi
	[ -n "$dir" ] && case $dir in /tmp/llwrap-run.*) rm -rf "$dir" ;; esac
	# /dev/shm: the host's IPC namespace here, so not granted; in one of
	# the container's own (unshare --ipc around the run, as a runtime
	# makes it) it is.
	if [ ! -d /dev/shm ] || [ ! -w /dev/shm ]; then
		skip "/dev/shm without user namespaces: no writable /dev/shm here"
	else
		rm -f /dev/shm/llw-ptmp-shm
		expect_denied "/dev/shm in the host's IPC namespace is refused (EACCES)" EACCES \
			in_docker -p "$L3" -- "$PROBE" write /dev/shm/llw-ptmp-shm
		IPC_NS=--ipc
		run in_docker -p "$L3" --explain -- /bin/true
		expect_output "... in an IPC namespace of the container's own --explain grants it" \
			"^  shared scratch    private /tmp: .*/dev/shm granted: the container's own"
		expect_succeeded "... and writing there works" \
			in_docker -p "$L3" -- "$PROBE" write /dev/shm/llw-ptmp-shm
		IPC_NS=
		rm -f /dev/shm/llw-ptmp-shm
	fi
	rm -rf "$other" "$target" /tmp/llw-ptmp-host
}

# Without user namespaces in a container's pid namespace (Docker's
# default profile): hide-processes alone runs, held by C; a policy that
# needs L3 for more still fails closed, naming only that.
HIDE=$T/hide.ini
printf '[profile]\ninclude = default\n[process]\nhide-processes = yes\n' >"$HIDE"
chmod 644 "$HIDE"
if [ ! -x "$HOOKED" ]; then
	skip "no user namespaces in a container's pid namespace: no $HOOKED"
else
	run in_docker -p "$HIDE" --explain -- /bin/true
	expect_output "no user namespaces: --explain names the container's pid namespace for hide-processes" \
		"^  C    hiding processes outside the sandbox \\(hide-processes\\): the pid namespace llwrap runs in"
	if printf '%s\n' "$out" | grep -Eq "NOT ENFORCED: hide-processes|WILL NOT RUN"; then
		not_ok "... and neither reports it lost nor refuses"
		diag "$out"
	else
		ok "... and neither reports it lost nor refuses"
	fi
	expect_ran "... hide-processes runs there" \
		in_docker -p "$HIDE" -- /bin/sh -c "touch $marker"
	expect_denied "... a signal to the host process fails (ESRCH: no pid in the container)" ESRCH \
		in_docker -p "$HIDE" -- "$PROBE" kill "$victim" 0
	private_tmp_tests
	run in_pid_ns LLW_HOOK_NO_USERNS=1 "$HOOKED" --rx "$LLW_HELPERS" --check
	expect_output "... --check: C hides processes there" \
		"^  C    hiding processes outside the sandbox"
	run as_user env LLW_HOOK_NO_USERNS=1 "$HOOKED" --rx "$LLW_HELPERS" -p "$HIDE" -- /bin/true
	expect_rc "... while in the host's pid namespace hide-processes without user namespaces fails closed" 125
fi

# --- Masks without user namespaces: the monitor holds them (M) -------------
# Docker's default profile again (llwrap-hooked, LLW_HOOK_NO_USERNS=1, in
# a pid namespace of the container's): -p opencode's masks on git's and
# the later-run files are the monitor's (DESIGN.md §14): the project is
# granted whole, REFER withheld beneath it, a change moved aside and the
# start's content restored.  private-tmp (L3 alone) is off here: this
# section is about the masks.  processes: the test user's other
# processes on this machine count against opencode's 4096 without a
# user namespace.
HP=$HOME_DIR/work/held
OC=$T/oc-held.ini
printf '[profile]\ninclude = opencode\n[filesystem]\nprivate-tmp = no\n[limits]\nprocesses = 1000000\n' >"$OC"
chmod 644 "$OC"
held() {
	(PROJ=$HP && in_docker -p "$OC" "$@")
}
# held_in DIR ARGS...: held, with DIR as the project.
held_in() {
	(PROJ=$1 && shift && in_docker -p "$OC" "$@")
}
if [ ! -x "$HOOKED" ]; then
	skip_rest "masks without user namespaces: no $HOOKED"
fi
rm -rf "$HP"
mkdir -p "$HP"
git init -q "$HP"
git -C "$HP" -c user.email=t@t -c user.name=t commit -q --allow-empty -m start
printf '#!/bin/sh\necho user hook\n' >"$HP/.git/hooks/pre-push"
chmod 755 "$HP/.git/hooks/pre-push"
chown -R "$TEST_UID:$TEST_GID" "$HP"
cfg0=$(cat "$HP/.git/config")
hook0=$(cat "$HP/.git/hooks/pre-push")

run held --explain -- /bin/true
expect_output "--explain: git's and the later-run files are the monitor's (M), with its known limit" \
	"^  M    write masks of git's and the later-run files .*the monitor outside the command.*known limit: the instant before the move"
expect_output "... git metadata held by the monitor" \
	"^  git metadata +[0-9]+ held by the monitor \(M: "
expect_output "... each held file named: .git/config" "^    M $HP/\\.git/config: "
expect_output "... .git/hooks" "^    M $HP/\\.git/hooks: "
# (The project's missing .env, which no watch covers here, is another
# line: its path names the project.)
if printf '%s\n' "$out" | grep -v 'not exist at the start' |
	grep -Eq "WILL NOT RUN|NOT ENFORCED: .*held"; then
	not_ok "... and it neither refuses nor reports them lost"
	diag "$out"
else
	ok "... and it neither refuses nor reports them lost"
fi
run in_pid_ns LLW_HOOK_NO_USERNS=1 "$HOOKED" --rx "$LLW_HELPERS" --check
expect_output "--check lists the monitor's row" \
	"^  M    write masks of git's and the later-run files"

# The §10 workflow at the top level and in git.
run held -- /bin/sh -c 'echo top >top.txt && cat "$PWD/top.txt" && mkdir d && rmdir d &&
	echo x >f && git add f && git -c user.email=t@t -c user.name=t commit -qm inside &&
	rm top.txt && python3 -c "print(\"py ran\")" && git config user.name inside'
expect_rc "no user namespaces: -p opencode runs (create, read back, mkdir, rm at the top level; git add, commit; python)" 0
expect_output "... the file made at the top is read back by path" "^top$"
expect_output "... python runs" "^py ran$"
[ "$(git -c safe.directory="*" -C "$HP" log -1 --format=%s)" = inside ] &&
	ok "... the commit is in the user's repository" ||
	not_ok "the commit is in the user's repository"
[ "$(git -c safe.directory="*" -C "$HP" config user.name)" = inside ] &&
	ok "... a config change that runs nothing is kept (git writes branches and remotes)" ||
	not_ok "a config change that runs nothing is kept"
git -c safe.directory="*" -C "$HP" config --unset user.name
cfg0=$(cat "$HP/.git/config")

# -p opencode itself, private /tmp included: the run's own directory.
OCT=$T/oc-tmp.ini
printf '[profile]\ninclude = opencode\n[limits]\nprocesses = 1000000\n' >"$OCT"
chmod 644 "$OCT"
proj0=$PROJ
PROJ=$HP
run in_docker -p "$OCT" -- /bin/sh -c 'f=$(mktemp) && echo tmp-ok >"$f" && cat "$f" && echo top >top2.txt && cat top2.txt && rm top2.txt && git status --short >/dev/null && echo "dir=$TMPDIR"'
expect_rc "no user namespaces: -p opencode with its private /tmp runs (mktemp, the top level, git)" 0
expect_output "... mktemp works in the run's own directory" "^tmp-ok$"
dir=$(printf '%s\n' "$out" | sed -n 's/^dir=//p')
[ -n "$dir" ] && [ ! -e "$dir" ] && ok "... and the directory is gone after the run" ||
	not_ok "the run's directory is gone after -p opencode"
expect_denied "... /tmp itself refused (EACCES)" EACCES in_docker -p "$OCT" -- "$PROBE" write /tmp/llw-oc-x
PROJ=$proj0

# An unsafe config: moved aside, the start's restored.
run held -- /bin/sh -c 'git config core.fsmonitor "touch /tmp/llw-held-x"; sleep 0.2'
expect_output "core.fsmonitor set inside: moved aside, named with what it sets" \
	"the command changed $HP/\\.git/config, which git \\(it sets core\\.fsmonitor\\) reads later.*moved aside to $HP/\\.git/config\\.llwrap-blocked-"
expect_output "... and the start's restored" "$HP/\\.git/config restored as it was at the start"
[ "$(cat "$HP/.git/config")" = "$cfg0" ] &&
	ok "... the config is the start's" ||
	{ not_ok "the config is the start's"; diag "$(cat "$HP/.git/config")"; }
grep -q fsmonitor "$HP"/.git/config.llwrap-blocked-* &&
	ok "... the changed one is kept beside it" ||
	not_ok "the changed one is kept beside it"

# Hooks: a new one moved aside, a changed one moved aside and restored.
run held -- /bin/sh -c 'printf "#!/bin/sh\ntouch /tmp/llw-held-y\n" >.git/hooks/pre-commit;
	chmod +x .git/hooks/pre-commit; echo evil >>.git/hooks/pre-push; sleep 0.2'
expect_output "a new hook: moved aside" \
	"the command created $HP/\\.git/hooks/pre-commit, which git reads later.*moved aside"
[ ! -e "$HP/.git/hooks/pre-commit" ] && ls "$HP"/.git/hooks/pre-commit.llwrap-blocked-* >/dev/null 2>&1 &&
	ok "... gone from its name, kept beside it" || not_ok "the new hook gone from its name, kept beside it"
expect_output "a changed hook: moved aside" \
	"the command changed $HP/\\.git/hooks/pre-push, which git reads later"
[ "$(cat "$HP/.git/hooks/pre-push")" = "$hook0" ] && [ -x "$HP/.git/hooks/pre-push" ] &&
	ok "... and the start's restored, executable" ||
	{ not_ok "the changed hook is the start's again"; diag "$(ls -l "$HP/.git/hooks/pre-push"; cat "$HP/.git/hooks/pre-push")"; }

# Nothing renamed or linked into .git from another directory: REFER is
# withheld (EXDEV from Landlock, before the monitor); in the same
# directory a rename works.
cat >"$T/refer.py" <<'EOS'
import errno, os, sys
os.makedirs("src", exist_ok=True)
open("src/x", "w").write("#!/bin/sh\n")
for name, f in (("rename", lambda: os.rename("src/x", ".git/hooks/post-checkout")),
                ("link", lambda: os.link("src/x", ".git/hooks/post-checkout")),
                ("config", lambda: os.rename("src/x", ".git/config")),
                ("same-dir", lambda: os.rename("src/x", "src/y"))):
    try:
        f()
        print(name, "ok")
    except OSError as e:
        print(name, errno.errorcode[e.errno])
EOS
chmod 644 "$T/refer.py"
run held --ro "$T/refer.py" -- python3 "$T/refer.py"
expect_output "mv src/x .git/hooks/post-checkout: EXDEV (Landlock, REFER withheld)" "^rename EXDEV$"
expect_output "ln src/x .git/hooks/post-checkout: EXDEV" "^link EXDEV$"
expect_output "a rename over .git/config from another directory: EXDEV" "^config EXDEV$"
expect_output "... while a rename in the same directory works" "^same-dir ok$"

# A link or FIFO renamed over what the monitor restores: the link is
# moved aside, not followed; the FIFO does not block it.
echo host >"$T/target"
chown "$TEST_UID:$TEST_GID" "$T/target"
run held -- /bin/sh -c "ln -s $T/target .git/l && mv -T .git/l .git/config; sleep 0.3"
[ "$(cat "$T/target")" = host ] && [ ! -L "$HP/.git/config" ] &&
	[ "$(cat "$HP/.git/config")" = "$cfg0" ] &&
	ok "a link renamed over .git/config: moved aside, not followed, the config restored" ||
	{ not_ok "a link renamed over .git/config: moved aside, not followed"; diag "$out"; }
run held -- /bin/sh -c "mkfifo .git/p && mv -T .git/p .git/config; sleep 0.3"
expect_rc "a FIFO renamed over .git/config: the run ends" 0
[ -f "$HP/.git/config" ] && [ "$(cat "$HP/.git/config")" = "$cfg0" ] &&
	ok "... the config restored (the FIFO did not block the monitor)" ||
	{ not_ok "the config restored after a FIFO"; diag "$out"; }

# The later-run files: an existing .envrc changed is restored; a new
# file in an existing .vscode/ is moved aside, a changed one restored.
printf 'export A=1\n' >"$HP/.envrc"
mkdir -p "$HP/.vscode"
printf '{}\n' >"$HP/.vscode/settings.json"
chown -R "$TEST_UID:$TEST_GID" "$HP/.envrc" "$HP/.vscode"
run held -- /bin/sh -c 'echo "touch /tmp/llw-held-z" >>.envrc;
	echo "{\"tasks\": []}" >.vscode/tasks.json; echo changed >.vscode/settings.json; sleep 0.2'
[ "$(cat "$HP/.envrc")" = "export A=1" ] &&
	ok "a changed .envrc (run later by direnv) is restored" ||
	{ not_ok "a changed .envrc is restored"; diag "$out"; }
expect_output "... named, with its reader" "the command changed $HP/\\.envrc, which direnv"
[ ! -e "$HP/.vscode/tasks.json" ] && ls "$HP"/.vscode/tasks.json.llwrap-blocked-* >/dev/null 2>&1 &&
	ok "a new .vscode/tasks.json is moved aside" ||
	{ not_ok "a new .vscode/tasks.json is moved aside"; diag "$out"; }
[ "$(cat "$HP/.vscode/settings.json")" = "{}" ] &&
	ok "... a changed .vscode/settings.json restored" ||
	{ not_ok "a changed .vscode/settings.json restored"; diag "$out"; }
rm -rf "$HP/.envrc" "$HP"/.envrc.llwrap-blocked-* "$HP/.vscode"

# A new name in a held directory that looks like one of llwrap's moves
# aside (review 35): moved aside too; a dev container reads
# .devcontainer/*/devcontainer.json whatever the folder's name.
mkdir -p "$HP/.devcontainer"
printf '{}\n' >"$HP/.devcontainer/devcontainer.json"
chown -R "$TEST_UID:$TEST_GID" "$HP/.devcontainer"
run held -- /bin/sh -c 'mkdir .devcontainer/x.llwrap-blocked-1 &&
	echo "{\"initializeCommand\": \"touch /tmp/llw-held-d\"}" >.devcontainer/x.llwrap-blocked-1/devcontainer.json; sleep 0.2'
expect_output "a folder named like a move aside in a held .devcontainer/ is moved aside" \
	"the command created $HP/\\.devcontainer/x\\.llwrap-blocked-1, which .*moved aside"
[ ! -e "$HP/.devcontainer/x.llwrap-blocked-1" ] && [ "$(cat "$HP/.devcontainer/devcontainer.json")" = "{}" ] &&
	ok "... gone from its name, the start's devcontainer.json left" ||
	{ not_ok "the folder named like a move aside is gone from its name"; diag "$out"; }
rm -rf "$HP/.devcontainer"

# .git replaced by a link to a copy the command changes: the monitor does
# not follow it, moves it aside, and the run fails loudly, naming it.
run held -- /bin/sh -c 'cp -r .git .git-copy && echo "[core] fsmonitor = touch /tmp/llw-held-w" >>.git-copy/config &&
	mv .git .git-real && ln -s .git-copy .git; sleep 0.2'
expect_rc ".git replaced by a symbolic link: the run fails" 125
expect_output "... naming the link the command made, moved aside" "the command replaced $HP/\\.git, which git reads later, outside the sandbox: moved aside to $HP/\\.git\\.llwrap-blocked-"
[ ! -L "$HP/.git" ] && ok "... and .git is no longer the link" ||
	{ not_ok ".git is no longer the link"; diag "$(ls -la "$HP" 2>&1)"; }
rm -f "$HP/.git" "$HP"/.git.llwrap-blocked-*
mv "$HP/.git-real" "$HP/.git"
rm -rf "$HP/.git-copy"

# A later-run file that is a link: what it names cannot be held (it may
# be another file of the project's): refused before the run, naming it.
echo '{}' >"$HP/mcp-real.json"
ln -s mcp-real.json "$HP/.mcp.json"
chown -h "$TEST_UID:$TEST_GID" "$HP/mcp-real.json" "$HP/.mcp.json"
expect_refused "a later-run file that is a symbolic link is refused, naming it and the way out" \
	"$HP/\\.mcp\\.json is a symbolic link: without user namespaces llwrap cannot hold what it names in place \\(put the file itself there" \
	held -- /bin/true
rm -f "$HP/.mcp.json" "$HP/mcp-real.json"

# A read denial that exists at the start cannot be held: fail closed.
echo SECRET=1 >"$HP/.env"
chown "$TEST_UID:$TEST_GID" "$HP/.env"
expect_refused "an existing .env (deny inside the project) fails closed, naming it" \
	"namespace layer \\(L3\\) for narrower rules inside writable directories that the monitor cannot hold \\(mount masks: deny $HP/\\.env; move such a file out of the project, or drop its rule\\)" \
	held -- /bin/cat .env
rm -f "$HP/.env"

# A linked worktree as the project: its repository lies outside it, where
# the monitor holds nothing: fail closed, naming the main checkout.
as_user git -C "$HP" worktree add -q "$HP-wt" 2>/dev/null
if [ -f "$HP-wt/.git" ]; then
	expect_refused "a linked worktree (its repository outside the project) fails closed, naming the main checkout" \
		"that the monitor cannot hold \\(mount masks: .*a linked worktree's repository lies outside it: run from the main checkout\\)" \
		held_in "$HP-wt" -- /bin/true
else
	skip "a linked worktree without user namespaces: git worktree add failed"
fi
as_user git -C "$HP" worktree remove --force "$HP-wt" 2>/dev/null
rm -rf "$HP-wt"

done_testing
