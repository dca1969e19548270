#!/bin/sh
# Refusals in a container tell the truth (DESIGN.md §14, Containers).  A
# container runtime's default seccomp profile (Docker's, podman's,
# containerd's, a pod's RuntimeDefault) refuses new user namespaces and
# what the network supervisor needs with EPERM: --check and the
# refusals name that filter, the calls it refuses and the option that
# allows them -- not Yama, not an outer llwrap -- and -p default still
# runs.  Built on the host: the probe helper's container-filter installs
# such a filter (EPERM for unshare, clone with CLONE_NEWUSER, pidfd_getfd
# and process_vm_readv) and execs llwrap.  Which runtime is named
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
SUP="refuses what the network supervisor needs \\(pidfd_getfd, process_vm_readv: EPERM\\)"

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
expect_output "... says the supervisor is unavailable, naming the filter and its calls" \
	"^  S  supervisor   unavailable: .*$SUP"
expect_output "... and the option that allows them" \
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
expect_refused "a policy that needs the supervisor fails closed (125) naming the filter's calls" \
	"need the network supervisor, but .*$SUP" \
	in_filter -p default --allow-cidr 127.0.0.1/32:9 -- /bin/sh -c "touch $marker"
expect_ran "... with --best-effort it runs" \
	in_filter -p default --allow-cidr 127.0.0.1/32:9 --best-effort -- /bin/sh -c "touch $marker"
expect_output "... reporting the supervisor's rules as not enforced, and why" \
	"NOT ENFORCED: the network supervisor's rules.*$SUP"
expect_ran "-p default runs under the filter" \
	in_filter -p default -- /bin/sh -c "touch $marker"

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
	unshare -m -p -f --mount-proc --propagation private -- /bin/sh -c \
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
	expect_refused "... private-tmp still fails closed, naming private-tmp and not hide-processes" \
		"namespace layer \\(L3\\) for private-tmp, but " \
		in_docker -p "$L3" -- /bin/sh -c "touch $marker"
	run in_pid_ns LLW_HOOK_NO_USERNS=1 "$HOOKED" --rx "$LLW_HELPERS" --check
	expect_output "... --check: C hides processes there" \
		"^  C    hiding processes outside the sandbox"
	run as_user env LLW_HOOK_NO_USERNS=1 "$HOOKED" --rx "$LLW_HELPERS" -p "$HIDE" -- /bin/true
	expect_rc "... while in the host's pid namespace hide-processes without user namespaces fails closed" 125
fi

done_testing
