#!/bin/sh
# Layer L3 (unprivileged namespaces): the read-only view closes what
# Landlock leaves open (chmod, chown, utimensat, setxattr outside the
# writable roots), masks hold inside a writable project, the host's
# processes and /tmp are out of sight, net = none keeps a working
# loopback, no capability survives, the process tree is exactly
# monitor + init + command, and a refused user namespace fails closed.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

if bwrap_backend; then
	# The fallback's namespaces are bwrap's; the suites it reruns test
	# them.  L3 is the Landlock backend's layer.
	skip_rest "L3 is the Landlock backend's namespace layer"
fi
if ! userns_works; then
	skip_rest "unprivileged user namespaces are refused here: no L3"
fi

# A profile that needs L3 without any mask: private /tmp and a pid
# namespace.
L3=$T/l3.ini
printf '[profile]\ninclude = default\n[filesystem]\nprivate-tmp = yes\n[process]\nhide-processes = yes\n' >"$L3"
chmod 644 "$L3"

# --- The read-only view -------------------------------------------------
# $OUTSIDE/file belongs to the test user, so without L3 chmod and
# utimensat on it would succeed: Landlock does not govern them.
ro_file=$OUTSIDE/file
rw_file=$PROJ/src/main.c
expect_denied "chmod of a read-only file fails" EROFS \
	llw -p "$L3" --ro "$OUTSIDE" -- "$PROBE" chmod "$ro_file" 600
expect_output "... with EROFS" "errno=EROFS"
expect_succeeded "... while chmod of a project file works" \
	llw -p "$L3" --ro "$OUTSIDE" -- "$PROBE" chmod "$rw_file" 644
expect_denied "utimensat (touch) of a read-only file fails" EROFS \
	llw -p "$L3" --ro "$OUTSIDE" -- "$PROBE" touch "$ro_file"
expect_output "... with EROFS" "errno=EROFS"
expect_succeeded "... while touch of a project file works" \
	llw -p "$L3" --ro "$OUTSIDE" -- "$PROBE" touch "$rw_file"
expect_denied "chown of a read-only file (to its own ids) fails" EROFS \
	llw -p "$L3" --ro "$OUTSIDE" -- "$PROBE" chown "$ro_file" "$TEST_UID" "$TEST_GID"
expect_output "... with EROFS" "errno=EROFS"
expect_succeeded "... while chown of a project file works" \
	llw -p "$L3" --ro "$OUTSIDE" -- "$PROBE" chown "$rw_file" "$TEST_UID" "$TEST_GID"
if as_user "$PROBE" setxattr "$rw_file" >/dev/null 2>&1; then
	expect_denied "setxattr of a read-only file fails" EROFS \
		llw -p "$L3" --ro "$OUTSIDE" -- "$PROBE" setxattr "$ro_file"
	expect_output "... with EROFS" "errno=EROFS"
	expect_succeeded "... while setxattr of a project file works" \
		llw -p "$L3" --ro "$OUTSIDE" -- "$PROBE" setxattr "$rw_file"
else
	skip "the build tree's filesystem has no user xattrs"
fi
expect_succeeded "/dev/null stays writable in the read-only view" \
	llw -p "$L3" -- "$PROBE" write /dev/null

# --- Masks under -p opencode --------------------------------------------
git_id="-c user.name=llwtest -c user.email=llwtest@example.invalid"
echo "SECRET=llw-dotenv" >"$PROJ/.env"
echo "keep" >"$PROJ/README"
chown "$TEST_UID:$TEST_GID" "$PROJ/.env" "$PROJ/README"
if why=$(supervisor_refused); then
	skip "the opencode profile's masks: $why"
else
	run llw -p opencode -- /bin/sh -c "git init -q && git add src README && git $git_id commit -qm first && git log --oneline"
	if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q first; then
		ok "git init && git commit work in the project under -p opencode"
	else
		not_ok "git init && git commit work under -p opencode"; diag "status $rc: $out"
	fi
	run llw -p opencode -- /bin/cat "$PROJ/.env"
	if [ "$rc" -ne 0 ] && ! printf '%s' "$out" | grep -q llw-dotenv; then
		ok "deny \${PROJECT}/.env hides its content"
	else
		not_ok "deny \${PROJECT}/.env hides its content"; diag "status $rc: $out"
	fi
	expect_denied "... a write to the masked .env fails, never into /dev/null" EACCES \
		llw -p opencode -- "$PROBE" append "$PROJ/.env"
	expect_succeeded "... while README beside it is readable" \
		llw -p opencode -- "$PROBE" read "$PROJ/README"
	expect_denied "rm of the masked .env fails" EBUSY \
		llw -p opencode -- "$PROBE" unlink "$PROJ/.env"
	expect_output "... with EBUSY (a mount point)" "errno=EBUSY"
	expect_denied "mv of the masked .env fails" EBUSY \
		llw -p opencode -- "$PROBE" rename "$PROJ/.env" "$PROJ/env.txt"
	[ -f "$PROJ/.env" ] && grep -q llw-dotenv "$PROJ/.env" && ok "... and .env is intact" || not_ok ".env is intact"
	expect_denied "a new hook in .git/hooks (now masked read-only) fails" EROFS \
		llw -p opencode -- "$PROBE" write "$PROJ/.git/hooks/post-checkout"
	expect_output "... with EROFS" "errno=EROFS"
	expect_denied ".git/config cannot be appended to" EROFS \
		llw -p opencode -- "$PROBE" append "$PROJ/.git/config"
	expect_denied ".git/hooks cannot be removed" EBUSY \
		llw -p opencode -- "$PROBE" rename "$PROJ/.git/hooks" "$PROJ/.git/hooks.old"
	run llw -p opencode -- /bin/sh -c "echo more >>README && git add README && git $git_id commit -qm second && git log --oneline"
	if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q second; then
		ok "... while git commit in the project still works"
	else
		not_ok "git commit works with .git/config and .git/hooks masked"; diag "status $rc: $out"
	fi
	[ ! -e "$PROJ/.git/hooks/post-checkout" ] && ok "no hook was created" || not_ok "a hook was created"
	run llw -p opencode --explain -- /bin/true
	expect_output "--explain lists the masks" "mask rx $PROJ/.git/hooks"
	expect_output "--explain notes a protected path that does not exist" "\\.vscode, .* do not exist in $PROJ"
	expect_output "--explain says L3 runs and why" "L3 namespaces +yes, for .*private-tmp"
fi

# --- Many masks, few descriptors ---------------------------------------
# 1,500 read-only rules inside the writable project are 1,500 masks.  The
# view held a clone (a descriptor) of each until all were made, and the
# masks' watch a descriptor of each one's directory: past the limit of
# open files the run failed ("Too many open files"; 10,000 rules at the
# usual 1,024, issue 29).  Under a hard limit of 512, which llwrap cannot
# raise, each mask still holds, the project beside them stays writable,
# and the command gets the soft limit it was given (300), not the one
# llwrap raised for itself.
many=$T/many.ini
awk -v p="$PROJ/many" 'BEGIN { for (i = 0; i < 1500; i++) print p "/d" i }' >"$T/many.dirs"
xargs mkdir -p <"$T/many.dirs"
chown -R "$TEST_UID:$TEST_GID" "$PROJ/many"
{
	printf '[profile]\ninclude = default\n[filesystem]\n'
	sed 's/^/ro = /' "$T/many.dirs"
} >"$many"
chmod 644 "$many"
# llw_files ARGS...: llw under a hard limit of 512 open files, soft 300.
llw_files() {
	as_user sh -c 'ulimit -Sn 300 && ulimit -Hn 512 && exec "$@"' sh \
		"$LLWRAP" --rx "$LLW_HELPERS" "$@"
}
expect_denied "1,500 masks under a hard limit of 512 open files: a write beneath the last fails" EROFS \
	llw_files -p "$many" -- "$PROBE" write "$PROJ/many/d1499/new"
expect_output "... with EROFS (its mask, not a setup error)" "errno=EROFS"
expect_denied "... and beneath the first" EROFS \
	llw_files -p "$many" -- "$PROBE" write "$PROJ/many/d0/new"
expect_succeeded "... while a write beside them in the project works" \
	llw_files -p "$many" -- "$PROBE" write "$PROJ/many/new"
run llw_files -p "$many" -- /bin/sh -c 'ulimit -Sn; ulimit -Hn'
if [ "$rc" -eq 0 ] && [ "$(printf '%s\n' "$out" | tail -n 2 | tr '\n' ' ')" = "300 512 " ]; then
	ok "... and the command keeps the limit of open files it was given (300, hard 512)"
else
	not_ok "the command keeps its limit of open files"; diag "status $rc: $out"
fi
rm -rf "$PROJ/many" "$PROJ/new"

# --- Processes ----------------------------------------------------------
spawn_as_user sleep 300
victim=$spawned
sleep 0.2
run llw -p "$L3" -- /bin/ls /proc
if [ "$rc" -eq 0 ] && ! printf '%s\n' "$out" | grep -qx "$victim" && printf '%s\n' "$out" | grep -qx 1; then
	ok "a host process ($victim) is absent from /proc; pid 1 is the sandbox's"
else
	not_ok "host processes are invisible"; diag "status $rc: $out"
fi
ls /proc | grep -qx "$victim" && ok "... while the host sees it" || not_ok "the host process is gone"
run llw -p "$L3" -- /bin/sh -c 'grep NSpid /proc/self/status; echo "pid $$"'
if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q '^pid 2$' && ! printf '%s' "$out" | grep -Eq 'NSpid:[[:space:]]+1$'; then
	ok "the command is pid 2, not pid 1 (the init above it reaps)"
else
	not_ok "the command is not pid 1"; diag "$out"
fi
expect_denied "a signal to the host process fails (it does not exist here)" ESRCH \
	llw -p "$L3" -- "$PROBE" kill "$victim" 0
expect_succeeded "... while signalling its own child works" \
	llw -p "$L3" -- /bin/sh -c "sleep 5 & exec $PROBE kill \$! 15"

# Exactly monitor + init + command, and nothing left after a kill.
# tree_of MONITOR: its init ($init) and the command beneath it ($cmd),
# waited for 5 s at most.
tree_of() {
	init=
	cmd=
	i=0
	while [ $i -lt 50 ]; do
		init=$(pgrep -P "$1" || true)
		[ -n "$init" ] && cmd=$(pgrep -P "$init" || true)
		[ -n "$cmd" ] && break
		sleep 0.1
		i=$((i + 1))
	done
}
spawn_as_user "$LLWRAP" -p "$L3" -- /bin/sleep 300
monitor=$spawned
tree_of "$monitor"
n_init=$(printf '%s\n' "$init" | grep -c .)
n_cmd=$(printf '%s\n' "$cmd" | grep -c .)
if [ "$n_init" -eq 1 ] && [ "$n_cmd" -eq 1 ] && [ "$(cat /proc/"$cmd"/comm)" = sleep ] && [ -z "$(pgrep -P "$cmd" || true)" ]; then
	ok "with a pid namespace: exactly monitor, init and the command"
else
	not_ok "monitor, init and command"; diag "monitor $monitor init '$init' cmd '$cmd'"
fi
kill -TERM "$cmd" 2>/dev/null
wait "$monitor"
st=$?
if [ "$st" -eq 143 ]; then
	ok "the command killed by SIGTERM: the monitor exits 143"
else
	not_ok "the monitor exits 128+15"; diag "status $st"
fi
if ! kill -0 "$init" 2>/dev/null && ! kill -0 "$cmd" 2>/dev/null; then
	ok "... and nothing is left behind"
else
	not_ok "processes left behind"; diag "$(ps -o pid,ppid,comm -p "$init,$cmd")"
fi
# With a mask the watches' holder runs (fd_hold): pid 1 hands it the
# view's mount namespace once built, so that pid 1's exit, which the
# monitors wait for, does not tear the namespace down (its unmounts and
# an RCU grace period: after llwrap's exit).  The command holds neither
# the namespace nor the holder's socket, and the holder ends after the
# monitor.
L3M=$T/l3m.ini
printf '[profile]\ninclude = default\n[filesystem]\nprivate-tmp = yes\nro = ${PROJECT}/src\n[process]\nhide-processes = yes\n' >"$L3M"
chmod 644 "$L3M"
spawn_as_user "$LLWRAP" -p "$L3M" -- /bin/sleep 300
monitor=$spawned
holder=
init=
cmd=
i=0
while [ $i -lt 50 ] && [ -z "$cmd" ]; do
	for c in $(pgrep -P "$monitor" || true); do
		case $(cat /proc/"$c"/comm 2>/dev/null) in
		llwrap-hold) holder=$c ;;
		*) init=$c ;;
		esac
	done
	[ -n "$init" ] && cmd=$(pgrep -P "$init" || true)
	[ -n "$cmd" ] || sleep 0.1
	i=$((i + 1))
done
ns=$(readlink /proc/"$cmd"/ns/mnt 2>/dev/null || true)
held=
for f in /proc/"$holder"/fd/*; do
	[ -n "$ns" ] && [ "$(readlink "$f" 2>/dev/null)" = "$ns" ] && held=yes
done
if [ -z "$holder" ]; then
	not_ok "a mask starts the watches' holder"; diag "monitor $monitor: $(pgrep -l -P "$monitor")"
elif [ -n "$held" ] && [ "$(readlink /proc/1/ns/mnt)" != "$ns" ]; then
	ok "the holder holds the view's mount namespace, not pid 1 alone"
else
	not_ok "the holder holds the view's mount namespace"; diag "ns '$ns' holder $holder: $(ls -l /proc/"$holder"/fd/ 2>&1)"
fi
if [ -n "$cmd" ] && ! ls -l /proc/"$cmd"/fd/ | grep -qE 'socket:|mnt:'; then
	ok "... the command holds neither it nor the holder's socket"
else
	not_ok "the command holds none of the holder's"; diag "$(ls -l /proc/"$cmd"/fd/ 2>&1)"
fi
kill -TERM "$cmd" 2>/dev/null
wait "$monitor"
i=0
while [ $i -lt 50 ] && [ -n "$holder" ] && [ "$(sed 's/.*) \(.\).*/\1/' /proc/"$holder"/stat 2>/dev/null || echo Z)" != Z ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ -n "$holder" ] && [ $i -lt 50 ]; then
	ok "... and the holder ends once the monitor has"
else
	not_ok "the holder ends after the monitor"; diag "$(ps -o pid,ppid,stat,comm -p "$holder" 2>&1)"
fi
# With the supervisor (allow-cidr), the monitor is the supervisor: it
# made the user namespace, so it held every capability in it until the
# command was attached, and holds none while the command runs.
if why=$(supervisor_refused); then
	skip "the supervisor's capabilities: $why"
else
	spawn_as_user "$LLWRAP" -p "$L3" --allow-cidr 127.0.0.1/32:9 -- /bin/sleep 300
	monitor=$spawned
	tree_of "$monitor"
	caps=$(grep -E "^Cap(Eff|Prm|Inh|Amb)" /proc/"$monitor"/status 2>/dev/null)
	if [ -n "$cmd" ] && [ "$(printf '%s\n' "$caps" | grep -c '0000000000000000$')" -eq 4 ]; then
		ok "the supervisor holds no capability while the command runs"
	else
		not_ok "the supervisor holds no capability"; diag "cmd '$cmd': $caps"
	fi
	kill -TERM "$cmd" 2>/dev/null
	wait "$monitor"
fi
spawn_as_user "$LLWRAP" -p "$L3" -- /bin/sh -c 'sleep 300 & sleep 300 & exec sleep 300'
monitor=$spawned
sleep 0.5
init=$(pgrep -P "$monitor" || true)
kids=$(pgrep -P "$init" | tr '\n' ' ')
kill -KILL "$monitor"
wait "$monitor" 2>/dev/null
sleep 0.3
# A process whose parent was killed stays a zombie until the host's
# init reaps it: only a running one counts.
left=
for p in $init $kids; do
	st=$(sed 's/.*) \(.\).*/\1/' "/proc/$p/stat" 2>/dev/null || true)
	[ -n "$st" ] && [ "$st" != Z ] && left="$left $p"
done
if [ -n "$init" ] && [ -z "$left" ]; then
	ok "killing the monitor takes init and every process in the namespace with it"
else
	not_ok "the namespace dies with the monitor"; diag "init '$init' kids '$kids' left '$left'"
fi

# L3 without a pid namespace adds no process.
run as_user /bin/sh -c "$LLWRAP -p default --net none -- /bin/sh -c 'echo \$\$' & echo \$!; wait"
if why=$(l3_stands_in); then
	skip "no extra process without a pid namespace: $why, with a pid namespace"
elif [ "$rc" -eq 0 ] && [ "$(printf '%s\n' "$out" | sort -u | wc -l)" -eq 1 ]; then
	ok "L3 without a pid namespace (net = none) runs in llwrap's own process"
else
	not_ok "no extra process without a pid namespace"; diag "$out"
fi

# --- Private /tmp ---------------------------------------------------------
host_tmp=$(mktemp /tmp/llw-host.XXXXXX)
chmod 644 "$host_tmp"
expect_denied "a file in the host's /tmp is not there" ENOENT \
	llw -p "$L3" -- "$PROBE" read "$host_tmp"
expect_succeeded "... while /tmp is writable" \
	llw -p "$L3" -- "$PROBE" write /tmp/llw-inside
[ ! -e /tmp/llw-inside ] && ok "... and what is written there stays inside" || { not_ok "the write reached the host's /tmp"; rm -f /tmp/llw-inside; }
expect_succeeded "without private-tmp the host's /tmp is shared" \
	llw -p default -- "$PROBE" read "$host_tmp"
rm -f "$host_tmp"

# --- Capabilities -------------------------------------------------------
caps_zero() {
	run "$@" -- /bin/sh -c 'grep -E "^Cap(Eff|Prm|Inh|Amb|Bnd)" /proc/self/status'
	if [ "$rc" -eq 0 ] && [ "$(printf '%s\n' "$out" | grep -c '0000000000000000$')" -eq 5 ]; then
		ok "$desc"
	else
		not_ok "$desc"; diag "$out"
	fi
}
desc="in the user namespace the command has no capability at all" caps_zero llw -p "$L3"
if [ "$(id -u)" -eq 0 ]; then
	desc="... also when root runs it" caps_zero \
		env HOME="$HOME_DIR" "$LLWRAP" -p "$L3" -C "$PROJ"
fi

# --- net = none -------------------------------------------------------
port=$(free_port)
expect_succeeded "net = none: a server on 127.0.0.1 inside is reachable from inside" \
	llw -p default --net none -- /bin/sh -c "$PROBE tcp-serve 127.0.0.1 $port 1 & sleep 0.3; $PROBE tcp-connect 127.0.0.1 $port"
expect_denied "... while TCP to a non-loopback address fails" ENETUNREACH \
	llw -p default --net none -- "$PROBE" tcp-connect 192.0.2.1 80
host_addr=$(hostname -I 2>/dev/null | awk '{print $1}')
if [ -n "$host_addr" ]; then
	expect_denied "... also to the host's own address $host_addr" ENETUNREACH \
		llw -p default --net none -- "$PROBE" tcp-connect "$host_addr" 22
fi
run llw -p default --net none --explain -- /bin/true
expect_output "--explain: net = none uses a network namespace" "net \(only lo\)"

# --- .llwrap.ini may only turn these on -------------------------------
printf '[filesystem]\nprivate-tmp = no\n' >"$PROJ/.llwrap.ini"
chown "$TEST_UID:$TEST_GID" "$PROJ/.llwrap.ini"
expect_status ".llwrap.ini with private-tmp = no is refused" 125 llw -p "$L3" -- /bin/true
printf '[process]\nhide-processes = yes\n' >"$PROJ/.llwrap.ini"
run llw -p default -- /bin/sh -c 'echo $$'
expect_output ".llwrap.ini with hide-processes = yes applies (pid 2)" "^2$"
rm -f "$PROJ/.llwrap.ini"

# --- The run's own unshare as the probe ---------------------------------
# A run that fails closed without L3 creates no probe namespace: its own
# unshare answers.  Refused there (llwrap inside llwrap, whose seccomp
# filter refuses new user namespaces while the sysctls allow them), it
# fails closed with the cause a probe would have given, before the
# command; the same nesting with a policy that needs no L3 runs.
marker=$PROJ/ran-nested
nested() {
	as_user "$LLWRAP" -q -p default --env-keep LLWRAP_PROFILE_PATH \
		--ro "$LLWRAP_PROFILE_PATH" --ro "$L3" --rx "$(dirname "$LLWRAP")" \
		-- "$LLWRAP" "$@"
}
if why=$(l3_stands_in); then
	# The outer run takes L3 too, and llwrap inside it is refused by the
	# outer seccomp filter before any policy of its own matters.
	skip "nested llwrap, a policy without L3: $why"
else
	expect_refused "unshare refused at the run: fails closed (125) naming L3 and the outer seccomp filter" \
		"namespace layer \\(L3\\) for hide-processes \\(a pid namespace\\).*an outer llwrap.s seccomp filter refuses new user namespaces" \
		nested -p "$L3" -- /bin/sh -c "touch $marker"
	expect_ran "... while the same nesting runs a policy without L3" \
		nested -p default -- /bin/sh -c "touch $marker"
	run nested -p "$L3" --explain -- /bin/true
	expect_output "... and --explain, which probes, says so before any run" \
		"^WILL NOT RUN: the policy needs the namespace layer \\(L3\\)"
	rm -f "$marker"
fi

# --- Terminals where /dev/ptmx is a symbolic link ----------------------
# OCI runtimes give a container a tmpfs /dev with its own devpts instance
# and /dev/ptmx a symbolic link to pts/ptmx.  Under L3 the link leads to
# the sandbox's devpts instance; a mount on the link itself (as on a
# /dev/ptmx device node) is reached by no Landlock rule and opened with
# EACCES.  Built here in a mount namespace of root's, with a pty of the
# container's open (its /dev/pts/0) while llwrap runs.
OCI_DEV='d=$1; shift
	mount -t tmpfs -o mode=755 tmpfs "$d"
	for n in null zero full tty random urandom; do
		touch "$d/$n" && mount --bind "/dev/$n" "$d/$n"
	done
	mkdir "$d/pts" "$d/shm"
	mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$d/pts"
	ln -s pts/ptmx "$d/ptmx"
	mount --move "$d" /dev
	exec 3<>/dev/ptmx
	test -e /dev/pts/0 || { echo "no pts/0 in the container layout"; exit 99; }'
llw_oci() {
	mkdir -p "$T/oci-dev"
	(cd "$PROJ" && unshare -m --propagation private -- /bin/sh -ec "$OCI_DEV"'
	u=$1 g=$2 h=$3 pp=$4 l=$5 rx=$6 t=$7
	shift 7
	setpriv --reuid="$u" --regid="$g" --clear-groups --inh-caps=-all \
		--bounding-set=-all -- env -i HOME="$h" PATH=/usr/bin:/bin \
		LLWRAP_PROFILE_PATH="$pp" GIT_CEILING_DIRECTORIES="$t" \
		"$l" --rx "$rx" "$@" 3>&-' \
		sh "$T/oci-dev" "$TEST_UID" "$TEST_GID" "$HOME_DIR" \
		"$LLWRAP_PROFILE_PATH" "$LLWRAP" "$LLW_HELPERS" "$T" "$@")
}
if [ "$(id -u)" -ne 0 ]; then
	skip "an OCI container's /dev needs root here (a mount namespace)"
else
	expect_succeeded "/dev/ptmx a link to pts/ptmx (OCI): -p opencode opens it" \
		llw_oci -p opencode -- "$PROBE" write /dev/ptmx
	run llw_oci -p opencode -- python3 -c 'import os, pty
m, s = pty.openpty()
os.write(s, b"ping\n")
print("pty", os.ttyname(s), os.read(m, 16))'
	expect_rc "... a pty opens (openpty) and carries data" 0
	expect_output "... on the sandbox's own devpts" "^pty /dev/pts/[0-9]+ b'ping"
	expect_denied "... the container's own pty is out of reach (its pts/0 exists outside)" ENOENT \
		llw_oci -p opencode -- "$PROBE" read /dev/pts/0
fi

# --- A refused user namespace -----------------------------------------
if [ "$(id -u)" -ne 0 ]; then
	skip_rest "refusing user namespaces needs root (a namespace with the limit at 0)"
fi
# llwrap as the test user in a user namespace where
# user.max_user_namespaces = 0.
llw_refused() {
	(cd "$PROJ" && userns_refused setpriv --reuid="$TEST_UID" \
		--regid="$TEST_GID" --clear-groups --inh-caps=-all \
		--bounding-set=-all -- env -i HOME="$HOME_DIR" \
		PATH=/usr/bin:/bin LLWRAP_PROFILE_PATH="$LLWRAP_PROFILE_PATH" \
		"$LLWRAP" --rx "$LLW_HELPERS" "$@")
}
marker=$PROJ/ran-refused
expect_refused "userns refused: a policy that needs L3 fails closed (125) naming user.max_user_namespaces" \
	'user\.max_user_namespaces = 0' llw_refused -p "$L3" -- /bin/sh -c "touch $marker"
expect_ran "... with --best-effort it runs" \
	llw_refused -p "$L3" --best-effort -- /bin/sh -c "touch $marker"
expect_output "... reporting hide-processes as NOT ENFORCED" 'NOT ENFORCED: hide-processes'
if printf '%s\n' "$out" | grep -q 'NOT ENFORCED: private-tmp'; then
	not_ok "... but not private-tmp (the run's own directory stands in, M)"
	diag "$out"
else
	ok "... but not private-tmp (the run's own directory stands in, M)"
fi
rm -f "$marker"
run llw_refused -p default --deny "$PROJ/.env" -- /bin/true
if [ "$rc" -eq 125 ] && printf '%s' "$out" | grep -q "$PROJ/.env"; then
	ok "... a deny inside a writable directory fails closed, naming the path"
else
	not_ok "deny inside writable without L3 fails closed"; diag "status $rc: $out"
fi
run llw_refused -p default --best-effort --deny "$PROJ/.env" -- "$PROBE" read "$PROJ/.env"
expect_rc "... with --best-effort it is hole punched" 1
expect_output "... and reported" "NOT ENFORCED: .*hole punching"
if why=$(l3_stands_in); then
	skip "net = none alone without user namespaces: $why, so it is refused like any policy (its --best-effort runs above)"
else
	run llw_refused -p default --net none -- "$PROBE" tcp-connect 127.0.0.1 "$port"
	expect_rc "... net = none alone still runs (seccomp denies inet sockets, stricter)" 1
	expect_output "... and says loopback is lost too" "NOT ENFORCED: net = none with a working loopback"
fi

done_testing
