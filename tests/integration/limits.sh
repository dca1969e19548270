#!/bin/sh
# [limits] beyond rlimits (issue 17, class 11; DESIGN.md §11): the
# wall-clock timeout, and cgroup v2 limits in a delegated cgroup.  The
# rlimits are tested in persistence.sh.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

if [ "$(landlock_abi)" -eq 0 ] && ! bwrap_backend; then
	skip_rest "Landlock is not available on this kernel"
fi
BE=
bwrap_backend && BE=--best-effort

# A unique command line for what the command leaves running, so that
# the test can look for it on the host afterwards.
tag=$(( $$ % 1000 + 7000 ))
left_running() {
	pgrep -f "^sleep $tag\$" >/dev/null
}

# The timeout stops the command, names the limit, and exits 124.
run llw -p default $BE -q --timeout 1 -- sleep 60
expect_rc "--timeout 1: sleep 60 is stopped" 124
expect_output "... and llwrap names the limit" \
	"exceeded \\[limits\\] timeout = 1 s \\(wall clock\\) and was stopped \\(SIGTERM\\)"
run llw -p default $BE -q --timeout 60 -- /bin/sh -c 'echo done'
expect_rc "--timeout 60: a short command ends as usual" 0
expect_output "... with its output" "^done$"
expect_no_output "... and no limit named" "exceeded"

# A command that ignores SIGTERM gets SIGKILL after the grace period:
# on the test clock of llwrap-hooked (a second lasts 200 ms), --timeout 5
# sends SIGTERM after 1 s and SIGKILL, 5 "seconds" later, after 1 s more.
# (It sleeps 30 s in short steps: without a pid namespace a single sleep
# 30, which ignores SIGTERM too, outlives the shell killed and holds the
# output open for the rest of its 30 s.)
HOOKED=$LLW_HELPERS/llwrap-hooked
IGNORES_TERM='trap "" TERM; i=0; while [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done; echo survived'
if [ -x "$HOOKED" ]; then
	run as_user env LLW_HOOK_SECOND_MS=200 "$HOOKED" \
		${LLW_BACKEND:+--backend "$LLW_BACKEND"} --rx "$LLW_HELPERS" \
		-p default $BE -q --timeout 5 -- /bin/sh -c "$IGNORES_TERM"
else
	run llw -p default $BE -q --timeout 1 -- /bin/sh -c "$IGNORES_TERM"
fi
expect_rc "a command ignoring SIGTERM is stopped too" 124
if bwrap_backend; then
	skip "bwrap itself ends on SIGTERM, and the command with it"
else
	expect_output "... by SIGKILL, said so" "then SIGKILL 5 s later"
fi
expect_no_output "... before it could go on" "survived"

# bwrap ties its sandbox to itself (--die-with-parent) only once the
# sandbox is built: a timeout that ended bwrap before then (on a slow
# machine: Debian 12's 6.1 under qemu) left the command running under
# init, past the limit.  A wrapper makes that window the whole run: the
# real bwrap it starts is an orphan from the start, and never tied;
# llwrap, its subreaper, ends it with the command.
real_bwrap=$(command -v bwrap)
if ! "$LLWRAP" --check | grep -q '^  F  bubblewrap   usable'; then
	skip "bubblewrap cannot run here: $("$LLWRAP" --check | grep '^  F ')"
elif [ ! -x "$HOOKED" ]; then
	skip "no $HOOKED (configure --disable-tests?)"
else
	cat >"$T/orphaning-bwrap" <<EOF
#!/bin/sh
for a; do shift; [ "\$a" = --die-with-parent ] || set -- "\$@" "\$a"; done
($real_bwrap "\$@" &)
exec sleep 60
EOF
	chmod 755 "$T/orphaning-bwrap"
	run as_user env LLW_HOOK_BWRAP="$T/orphaning-bwrap" "$HOOKED" \
		--backend bwrap --rx "$LLW_HELPERS" -p default --best-effort -q \
		--timeout 1 -- /bin/sh -c 'sleep 10; echo survived'
	expect_rc "bwrap ended before it tied its sandbox: stopped" 124
	expect_no_output "... and the sandbox it left ends with llwrap" "survived"
fi

# The profile key, from a profile; a bad value is refused with file:line.
printf '[limits]\ntimeout = 1\n' >"$T/to.ini"
printf '[limits]\ntimeout = 1x\n' >"$T/bad.ini"
chmod 644 "$T/to.ini" "$T/bad.ini"
run llw -p default -p "$T/to.ini" $BE -q -- sleep 60
expect_rc "[limits] timeout = 1 in a profile" 124
marker=$PROJ/ran
expect_refused "a bad timeout is refused with file:line" 'bad\.ini:2.*bad duration' \
	llw -p default -p "$T/bad.ini" $BE -- /bin/sh -c "touch $marker"

# With a pid namespace, what the command left running ends with it.
if userns_works && ! bwrap_backend; then
	run llw -p opencode -q --timeout 1 -- /bin/sh -c "sleep $tag & sleep 60"
	expect_rc "opencode --timeout 1: stopped" 124
	if left_running; then
		not_ok "... with its background process (pid namespace)"
		pkill -f "^sleep $tag\$"
	else
		ok "... with its background process (pid namespace)"
	fi
else
	skip "the pid namespace case needs unprivileged user namespaces"
fi

# cgroup limits need a delegated cgroup: without one (the test user may
# not write the cgroup it runs in) the run fails closed, naming the key
# and the way out, or runs without them under best effort.
printf '[limits]\npids-max = 16\n' >"$T/pids.ini"
chmod 644 "$T/pids.ini"
cg_mount=$(findmnt -n -t cgroup2 -o TARGET 2>/dev/null | head -n 1)
marker=$PROJ/ran
if bwrap_backend; then
	skip "the bubblewrap backend runs these profiles only with best effort"
else
	expect_refused "pids-max without a delegated cgroup fails closed" \
		'\[limits\] pids-max needs a cgroup of the command.s own.*systemd-run --user --scope' \
		llw -p default -p "$T/pids.ini" -- /bin/sh -c "touch $marker"
fi
run llw -p default --best-effort -p "$T/pids.ini" -- \
	/bin/sh -c 'echo works'
expect_output "... and runs under --best-effort" "^works$"
expect_output "... reported NOT ENFORCED" "NOT ENFORCED.*pids-max"

# A delegated cgroup, as systemd-run --user --scope gives: made here by
# root for the test user.
if [ "$(id -u)" -ne 0 ] || [ -z "$cg_mount" ]; then
	skip_rest "a delegated cgroup needs root to make it and a cgroup v2 mount"
fi
cg_base=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
D=$cg_mount${cg_base%/}/llwtest-$$
if ! mkdir "$D" 2>/dev/null; then
	skip_rest "cannot make a cgroup under $cg_mount$cg_base"
fi
cleanup_cgroup() {
	for c in "$D"/*/; do
		[ -d "$c" ] && rmdir "$c" 2>/dev/null
	done
	rmdir "$D" 2>/dev/null
}
trap 'cleanup_cgroup; cleanup' EXIT
chown "$TEST_UID:$TEST_GID" "$D" "$D/cgroup.procs" "$D/cgroup.threads" \
	"$D/cgroup.subtree_control"
# in_cgroup llw ARGS...: llw from inside the delegated cgroup, as the
# only process there (a subshell that moves itself, then execs).
in_cgroup() {
	shift
	(
		read -r me _ </proc/self/stat
		echo "$me" >"$D/cgroup.procs" || exit 125
		as_user_exec "$LLWRAP" ${LLW_BACKEND:+--backend "$LLW_BACKEND"} \
			--rx "$LLW_HELPERS" "$@"
	)
}

run in_cgroup llw -p default $BE -q --timeout 1 -- /bin/sh -c \
	"sleep $tag & echo \$(cat /proc/self/cgroup | sed -n 's/^0:://p'); sleep 60"
expect_rc "in a delegated cgroup, --timeout 1 stops the command" 124
if bwrap_backend; then
	skip "bwrap gives the command a cgroup namespace: its cgroup shows as /"
else
	expect_output "... which ran in a cgroup of its own" "/llwtest-$$/llwrap-[0-9]+$"
fi
if left_running; then
	not_ok "... and its background process ends too, without a pid namespace"
	pkill -f "^sleep $tag\$"
else
	ok "... and its background process ends too, without a pid namespace"
fi
if ls -d "$D"/llwrap-* >/dev/null 2>&1; then
	not_ok "... and its cgroup is removed afterwards"
else
	ok "... and its cgroup is removed afterwards"
fi
# The command's cgroup is removed once it can be, which may be a while
# after the command's end was reported (pid 1's teardown; here a cgroup
# root makes beneath it during the run, and removes a second after the
# end), and one llwrap cannot remove is named on stderr once the wait
# (bounded: 5 s) is over, not left behind silently.
# pinned_run SECONDS: the run, its cgroup pinned until SECONDS after the
# command's end (a number past the bound: never by the test).
pinned_run() {
	in_cgroup llw -p default $BE -q --timeout 60 -- /bin/sh -c 'sleep 1' \
		>"$T/pinned.out" 2>&1 &
	pinned=$!
	i=0
	c=
	while [ $i -lt 100 ] && [ -z "$c" ]; do
		c=$(ls -d "$D"/llwrap-[0-9]* 2>/dev/null | head -n 1)
		[ -n "$c" ] || sleep 0.05
		i=$((i + 1))
	done
	if [ -z "$c" ] || ! mkdir "$c/pinned"; then
		wait $pinned
		return 1
	fi
	[ "$1" -lt 5 ] && (sleep $((1 + $1)); rmdir "$c/pinned") &
	wait $pinned
	out=$(cat "$T/pinned.out")
}
if pinned_run 1; then
	[ ! -d "$c" ] && ok "a cgroup still in use at the command's end is removed once it is free" ||
		{ not_ok "a cgroup still in use at the command's end is removed once it is free"; diag "$out"; }
	expect_no_output "... without a word" "cgroup"
	rmdir "$c" 2>/dev/null
else
	not_ok "a cgroup still in use at the command's end (no cgroup of the run's seen: $c)"
fi
wait
if pinned_run 99; then
	expect_output "a cgroup llwrap cannot remove is named on stderr" \
		"llwrap: cannot remove the cgroup $c: still in use after 5 s"
	rmdir "$c/pinned" "$c"
else
	not_ok "a cgroup llwrap cannot remove is named (no cgroup of the run's seen: $c)"
fi
# Root, whose run under the opencode profile takes L3 (user, mount and
# pid namespaces) and drops its capabilities: in a cgroup root owns, its
# cgroup is made and removed; in the test user's delegated one it makes
# none (it could not remove it without capabilities: one was left
# behind), and the timeout works without.
root_in() {
	run sh -c 'read -r me _ </proc/self/stat; echo "$me" >"$0/cgroup.procs" &&
		cd "$1" && exec "$2" $3 -p opencode -q --timeout 60 -- /bin/sh -c \
		"grep ^0:: /proc/self/cgroup; sleep 30 & exit 0"' \
		"$1" "$PROJ" "$LLWRAP" "${LLW_BACKEND:+--backend $LLW_BACKEND $BE}"
}
R=$cg_mount${cg_base%/}/llwtest-root-$$
if ! git init -q "$PROJ" 2>/dev/null; then
	skip "git is needed for the opencode profile's project"
elif mkdir "$R"; then
	root_in "$R"
	if bwrap_backend; then
		expect_rc "root, opencode, in a cgroup root owns: runs" 0
	else
		expect_output "root, opencode (L3), in a cgroup root owns: a cgroup of its own" \
			"/llwtest-root-$$/llwrap-[0-9]+$"
	fi
	if ls -d "$R"/llwrap-* >/dev/null 2>&1; then
		not_ok "... removed afterwards"
	else
		ok "... removed afterwards"
	fi
	rmdir "$R"/llwrap-* "$R" 2>/dev/null
	root_in "$D"
	bwrap_backend || expect_output "root in another user's delegated cgroup: runs in it, makes none" \
		"^0::.*/llwtest-$$$"
	if ls -d "$D"/llwrap-* >/dev/null 2>&1; then
		not_ok "... and leaves nothing behind"
		rmdir "$D"/llwrap-* 2>/dev/null
	else
		ok "... and leaves nothing behind"
	fi
else
	skip "cannot make a cgroup root owns under $cg_mount$cg_base"
fi
run in_cgroup llw -p default $BE -q -- /bin/sh -c 'echo plain'
expect_output "without limits, nothing changes in a delegated cgroup" "^plain$"

if ! grep -qw pids "$D/cgroup.controllers" ||
	! grep -qw memory "$D/cgroup.controllers"; then
	skip_rest "the cgroup v2 hierarchy here offers no pids and memory controllers (cgroup.controllers: $(cat "$D/cgroup.controllers"))"
fi
run in_cgroup llw -p default $BE -q -p "$T/pids.ini" -- \
	/usr/bin/python3 -c '
import os
n = 0
try:
    for i in range(100):
        if os.fork() == 0:
            os.execv("/bin/sleep", ["sleep", "2"])
        n += 1
except OSError as e:
    print("fork stopped", e.errno, n)
'
expect_output "[limits] pids-max = 16 stops a fork loop (EAGAIN)" "^fork stopped 11 1[0-9]$"
expect_output "... and llwrap names the limit" "reached \\[limits\\] pids-max = 16 \\(cgroup pids.max\\)"
printf '[limits]\nmemory-max = 64M\n' >"$T/mem.ini"
chmod 644 "$T/mem.ini"
run in_cgroup llw -p default $BE -q -p "$T/mem.ini" -- /usr/bin/python3 -c '
b = []
for i in range(64):
    b.append(bytearray(8 << 20))
print("allocated")
'
expect_rc "[limits] memory-max = 64M: 512 MiB is refused (OOM kill)" 137
expect_output "... and llwrap names the limit" "exceeded \\[limits\\] memory-max = 67108864 bytes"
run in_cgroup llw -p default $BE -q -p "$T/mem.ini" -- /usr/bin/python3 -c '
b = bytearray(16 << 20)
print("allocated")
'
expect_output "... while 16 MiB works" "^allocated$"

done_testing
