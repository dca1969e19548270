#!/bin/sh
# The seccomp layer (L2): each escape route next to its legitimate twin.
. "$LLW_SRCDIR/tests/lib/libtest.sh"
need_default_profile

# unix_listener PATH: a host process serving a unix socket at PATH, what
# a unix rule opens and nothing else reaches.
unix_listener() {
	python3 - "$1" <<'PY' &
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
s.listen(8)
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
	while [ ! -S "$1" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}
mkdir -p "$T/usock"
chmod 777 "$T/usock"
unix_listener "$T/usock/host.sock"

if [ "$(landlock_abi)" -ge 9 ] && ! bwrap_backend; then
	# DESIGN.md §2: Landlock ABI 9 checks each connect to a socket path
	# (RESOLVE_UNIX, granted per allowed socket), so socket() is no
	# longer where unix sockets are stopped.
	expect_succeeded "AF_UNIX socket() works where Landlock ABI 9 checks each connect" \
		llw -p default -- "$PROBE" unix-socket
	expect_denied "... and a host socket is refused at connect" EACCES \
		llw -p default -- "$PROBE" unix-connect "$T/usock/host.sock"
	expect_succeeded "... unless a unix rule names it" \
		llw -p default --unix "$T/usock/host.sock" -- "$PROBE" unix-connect "$T/usock/host.sock"
	# RESOLVE_UNIX is granted per socket, never with a directory's
	# rights: a host socket inside the writable project stays out,
	# while one the sandbox serves there itself is reachable.
	unix_listener "$PROJ/host.sock"
	expect_denied "... a host socket inside the writable project too" EACCES \
		llw -p default -- "$PROBE" unix-connect "$PROJ/host.sock"
	run llw -p default -- /bin/sh -c "\"$PROBE\" unix-serve \"$PROJ/own.sock\" & i=0
		while [ ! -S \"$PROJ/own.sock\" ] && [ \$i -lt 100 ]; do sleep 0.05; i=\$((i + 1)); done
		\"$PROBE\" unix-connect \"$PROJ/own.sock\"; wait"
	expect_output "... while a socket the sandbox serves there itself is reachable" "SUCCEEDED unix-connect"
	rm -f "$PROJ/own.sock"
else
	expect_denied "AF_UNIX socket() is refused by default" EAFNOSUPPORT \
		llw -p default -- "$PROBE" unix-socket
fi
expect_denied "socket() with high bits set in the family argument is refused" EAFNOSUPPORT \
	llw -p default -- "$PROBE" socket 0x100000001 1 0
if [ "$(landlock_abi)" -lt 9 ] &&
	! "$LLWRAP" --check | grep -q '^  S  supervisor   usable'; then
	expect_status "unix-sockets = allow fails closed before Landlock ABI 9 without the supervisor" 125 \
		llw -p default -p "$LLW_DATA/profiles/unix-allow.ini" -- "$PROBE" unix-socket
	expect_succeeded "... and with --best-effort permits AF_UNIX" \
		llw -p default -p "$LLW_DATA/profiles/unix-allow.ini" --best-effort -q -- "$PROBE" unix-socket
elif [ "$(landlock_abi)" -lt 9 ]; then
	# DESIGN.md §14: the supervisor stands in for RESOLVE_UNIX (beside
	# bubblewrap too).
	expect_succeeded "unix-sockets = allow before Landlock ABI 9: AF_UNIX works (the supervisor stands in)" \
		llw -p default -p "$LLW_DATA/profiles/unix-allow.ini" -- "$PROBE" unix-socket
	expect_denied "... and a host socket outside the unix allow-list is refused" EACCES \
		llw -p default -p "$LLW_DATA/profiles/unix-allow.ini" -- "$PROBE" unix-connect "$T/usock/host.sock"
	expect_succeeded "... which the allow-list opens" \
		llw -p default -p "$LLW_DATA/profiles/unix-allow.ini" --unix "$T/usock/host.sock" -- "$PROBE" unix-connect "$T/usock/host.sock"
else
	expect_succeeded "unix-sockets = allow permits AF_UNIX" \
		llw -p default -p "$LLW_DATA/profiles/unix-allow.ini" -- "$PROBE" unix-socket
fi
expect_succeeded "socketpair(AF_UNIX, SOCK_STREAM) works (IPC of forked workers)" \
	llw -p default -- "$PROBE" socketpair-stream
expect_denied "socketpair(AF_UNIX, SOCK_DGRAM) does not" EPERM \
	llw -p default -- "$PROBE" socketpair-dgram

expect_denied "io_uring_setup is refused" ENOSYS llw -p default -- "$PROBE" io-uring-setup
expect_output "... with ENOSYS, so libraries fall back" "ENOSYS"
expect_denied "clone3 is refused with ENOSYS" ENOSYS llw -p default -- "$PROBE" clone3
expect_output "... ENOSYS" "ENOSYS"
expect_status "fork and exec still work" 0 llw -p default -- /bin/sh -c '/bin/true && /bin/true' 

expect_denied "a new user namespace cannot be made" EPERM llw -p default -- "$PROBE" unshare-user
expect_denied "nor a mount namespace" EPERM llw -p default -- "$PROBE" unshare-mount
expect_denied "mount is refused" EPERM llw -p default -- "$PROBE" mount-tmpfs "$PROJ"
expect_denied "bpf is refused" EPERM llw -p default -- "$PROBE" bpf
expect_denied "perf_event_open is refused" EPERM llw -p default -- "$PROBE" perf-event-open
expect_denied "userfaultfd is refused" EPERM llw -p default -- "$PROBE" userfaultfd
expect_denied "keyctl is refused" EPERM llw -p default -- "$PROBE" keyctl
expect_denied "personality(READ_IMPLIES_EXEC) is refused" EPERM llw -p default -- "$PROBE" personality-rie
expect_denied "a seccomp user-notification listener is refused" EPERM llw -p default -- "$PROBE" seccomp-listener
expect_denied "an unknown syscall number gives ENOSYS" ENOSYS llw -p default -- "$PROBE" syscall 470
expect_output "... ENOSYS" "ENOSYS"

# TIOCSTI needs a terminal: give the probe one with script(1) if present.
if command -v script >/dev/null 2>&1; then
	run as_user script -qec "$LLWRAP_B --rx $LLW_HELPERS -p default -- $PROBE tiocsti" /dev/null
	case "$out" in
	*DENIED*EPERM*) ok "TIOCSTI into the terminal is refused" ;;
	*) not_ok "TIOCSTI into the terminal is refused"; diag "$out" ;;
	esac
	run as_user script -qec "$PROBE tiocsti" /dev/null
	case "$out" in
	*SUCCEEDED*|*DENIED*EIO*|*DENIED*EPERM*) ok "(outside the sandbox the probe reaches the ioctl: $(echo "$out" | tr -d '\r' | head -1))" ;;
	*) not_ok "tiocsti probe outside"; diag "$out" ;;
	esac
	run as_user script -qec "$LLWRAP_B --rx $LLW_HELPERS -p default -- $PROBE tioclinux" /dev/null
	case "$out" in
	*DENIED*EPERM*) ok "TIOCLINUX is refused" ;;
	*) not_ok "TIOCLINUX is refused"; diag "$out" ;;
	esac
else
	skip "script(1) missing: no terminal for the TIOCSTI test"
fi

# Other syscall tables.
run as_user "$PROBE" i386-getpid
if [ "$rc" -ne 0 ]; then
	skip "this kernel runs no i386 syscalls at all (probe outside: status $rc)"
else
	run llw -p default -- "$PROBE" i386-getpid
	if [ "$rc" -eq 159 ]; then
		ok "an i386 int 0x80 syscall kills the process (SIGSYS)"
	else
		not_ok "an i386 int 0x80 syscall kills the process"
		diag "status $rc: $out"
	fi
fi
run llw -p default -- "$PROBE" x32-getpid
if [ "$rc" -eq 159 ] || [ "$rc" -eq 1 ]; then
	ok "an x32 syscall is killed or refused (status $rc)"
else
	not_ok "an x32 syscall is killed or refused"
	diag "status $rc: $out"
fi

done_testing
