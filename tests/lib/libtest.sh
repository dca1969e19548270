# libtest.sh: sourced by tests/integration/*.sh.
#
# TAP output (ok / not ok / skip / done_testing), a scratch directory
# removed on exit, and a fixture: a home with secrets, a project, another
# project, all owned by the unprivileged user the sandboxed commands run
# as.  Every security check asserts the denial *and* the legitimate
# neighbour; a denial names its errno class, and so the layer that must
# deny (expect_denied: the table of errnos and layers is above it).  The scratch directory lives in the build tree, never under
# /tmp, /var/tmp or /dev/shm, which the shipped profiles make writable.

set -u

: "${LLWRAP:?run through make check}"
: "${LLW_HELPERS:?run through make check}"
: "${LLW_BUILDDIR:?run through make check}"
PROBE=$LLW_HELPERS/probe

test_count=0
test_failed=0
test_skipped=0

ok() {
	test_count=$((test_count + 1))
	echo "ok $test_count - $*"
}

not_ok() {
	test_count=$((test_count + 1))
	test_failed=$((test_failed + 1))
	echo "not ok $test_count - $*"
}

skip() {
	test_count=$((test_count + 1))
	test_skipped=$((test_skipped + 1))
	echo "ok $test_count # SKIP $*"
}

diag() {
	echo "# $*"
}

done_testing() {
	echo "1..$test_count"
	[ "$test_skipped" -eq 0 ] || diag "$test_skipped skipped"
	[ "$test_failed" -eq 0 ]
}

# skip_rest REASON: skip what is left of the suite, saying why, and end it.
skip_rest() {
	skip "$@"
	done_testing
	exit
}

# The sandboxed commands run as an unprivileged user.  As root (CI) that
# is nobody (65534) with no groups and no capabilities; otherwise the
# caller is already unprivileged.
if [ "$(id -u)" -eq 0 ]; then
	TEST_UID=65534
	TEST_GID=65534
else
	TEST_UID=$(id -u)
	TEST_GID=$(id -g)
fi

# Scratch space, readable by the test user.  Not in a tree the shipped
# profiles make writable (/tmp, /var/tmp, /dev/shm): a fake home there
# would be writable, and inside a private /tmp invisible.  So when the
# build tree lies in one (a checkout under /tmp), the scratch space moves
# out, and so do the programs the sandbox runs (the helpers, and llwrap
# with its escape corpus beside it, the profiles and the test data).
# They move too when the test user cannot reach the build tree (root's
# checkout under /root, mode 0700).
relocate=no
case "$LLW_BUILDDIR/" in
/tmp/* | /var/tmp/* | /dev/shm/*) relocate=yes ;;
esac
if [ "$(id -u)" -eq 0 ] && ! setpriv --reuid="$TEST_UID" \
	--regid="$TEST_GID" --clear-groups -- test -x "$LLW_BUILDDIR/."; then
	relocate=yes
fi
# A directory per build tree, so that runs of two trees side by side
# (.ci/run's passes) keep apart, and leftovers.sh names only its own.
case $relocate in
yes)
	if [ "$(id -u)" -eq 0 ]; then
		scratch=/var/lib/llwrap-tests
	elif [ -d "${XDG_RUNTIME_DIR:-/nonexistent}" ]; then
		scratch=$XDG_RUNTIME_DIR/llwrap-tests
	else
		scratch=$HOME/.cache/llwrap-tests
	fi
	scratch=$scratch/$(printf '%s' "$LLW_BUILDDIR" | cksum | cut -d' ' -f1)
	;;
*)
	scratch=$LLW_BUILDDIR/tests
	;;
esac
mkdir -p "$scratch"
T=$(mktemp -d "$scratch/run.XXXXXX")
chmod 755 "$T"
if [ "$relocate" = yes ]; then
	mkdir "$T/bin" "$T/helpers"
	cp "$LLW_HELPERS/probe" "$LLW_HELPERS/netprobe" "$T/helpers/"
	# (oldkernel.sh skipped itself in a relocated run without it.)
	[ -x "$LLW_HELPERS/llwrap-hooked" ] &&
		cp "$LLW_HELPERS/llwrap-hooked" "$T/helpers/"
	cp "$LLWRAP" "$T/bin/llwrap"
	[ -x "$LLW_BUILDDIR/llwrap-escape" ] &&
		cp "$LLW_BUILDDIR/llwrap-escape" "$T/bin/"
	# The profiles too: a policy protects the files it read, and inside
	# a writable /tmp that takes mount masks (L3).
	cp -R "$LLWRAP_PROFILE_PATH" "$T/conf"
	cp -R "$LLW_DATA" "$T/data"
	chmod -R a+rX "$T/bin" "$T/helpers" "$T/conf" "$T/data"
	LLW_DATA=$T/data
	LLWRAP=$T/bin/llwrap
	LLW_HELPERS=$T/helpers
	PROBE=$LLW_HELPERS/probe
	LLWRAP_PROFILE_PATH=$T/conf
	export LLWRAP LLW_HELPERS LLWRAP_PROFILE_PATH LLW_DATA
fi
# stop PID...: SIGTERM, then SIGKILL after 5 s, and reap.
stop() {
	for pid in "$@"; do
		kill "$pid" 2>/dev/null || continue
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
}
cleanup() {
	# shellcheck disable=SC2086
	[ -n "${bg_pids:-}" ] && stop $bg_pids
	rm -rf "$T"
}
trap cleanup EXIT

HOME_DIR=$T/home
PROJ=$HOME_DIR/work/proj
# A home is not inside a git work tree; the scratch directory may be (a
# build tree in a checkout).  Without -C llwrap takes the top level of
# the work tree holding the working directory as the project, as git
# finds it, and so does git: neither looks above $T.
GIT_CEILING_DIRECTORIES=$T
export GIT_CEILING_DIRECTORIES
OTHER=$HOME_DIR/work/other
OUTSIDE=$T/outside

# as_user CMD...: run CMD as the test user in the project directory, in a
# clean environment plus a few secrets the sandbox must scrub.
as_user_exec() {
	cd "$PROJ" || exit 125
	set -- env -i HOME="$HOME_DIR" USER=llwtest LOGNAME=llwtest \
		PATH=/usr/local/bin:/usr/bin:/bin SHELL=/bin/sh TERM=dumb \
		LANG=C.UTF-8 LLWRAP_PROFILE_PATH="${LLWRAP_PROFILE_PATH:-}" \
		GIT_CEILING_DIRECTORIES="$T" \
		SSH_AUTH_SOCK=/run/user/1000/ssh-agent.sock \
		AWS_SECRET_ACCESS_KEY=llw-secret-aws \
		GITHUB_TOKEN=llw-secret-gh "$@"
	if [ "$(id -u)" -eq 0 ] && [ -z "${_as_root:-}" ]; then
		exec setpriv --reuid="$TEST_UID" --regid="$TEST_GID" \
			--clear-groups --inh-caps=-all --bounding-set=-all -- "$@"
	fi
	exec "$@"
}
as_user() {
	(as_user_exec "$@")
}

# netns_fixture CMD...: run CMD (a fixture's inner.sh) in network, mount
# and pid namespaces of the test's own, as their root, in the project
# with as_user's environment; every process it leaves ends with it.
# $LLW_AS_USER, in its environment, is the prefix that runs a command
# as the test user.  As root the namespaces are the real root's and
# llwrap run under that prefix runs as users run it: its helpers (the
# resolver, the relay, the proxy, the judge) forked by an unprivileged
# user, outside any user namespace of the test's (run as root in one,
# they hold capabilities a user's never do: a user's relay could not
# start and no test saw it).  Otherwise they are owned by a user
# namespace of the test's, whose root llwrap runs as, and the prefix is
# empty.
netns_fixture() {
	if [ "$(id -u)" -eq 0 ]; then
		(_as_root=1 as_user_exec env LLW_AS_USER="setpriv --reuid=$TEST_UID --regid=$TEST_GID --clear-groups --inh-caps=-all --bounding-set=-all --" \
			unshare -n -m -p --fork --mount-proc "$@")
	else
		as_user env LLW_AS_USER= unshare -r -n -m -p --fork --mount-proc "$@"
	fi
}

# spawn_as_user CMD...: as_user in the background; $spawned is the
# command's own pid (the subshell execs), stopped on exit.
bg_pids=
spawn_as_user() {
	(as_user_exec "$@") &
	spawned=$!
	bg_pids="$bg_pids $spawned"
}

# llw ARGS...: llwrap as the test user, with the probe helper executable,
# through the backend $LLW_BACKEND names when it is set.
llw() {
	as_user "$LLWRAP" ${LLW_BACKEND:+--backend "$LLW_BACKEND"} \
		--rx "$LLW_HELPERS" "$@"
}

# On a kernel without Landlock llwrap runs every command through the
# bubblewrap fallback (--backend auto): the suites then run as under
# backend-bwrap.sh, expecting what the fallback does (the kernel
# matrix's nolandlock configurations).
if [ -z "${LLW_BACKEND:-}" ] &&
	python3 -c 'import ctypes, sys; sys.exit(ctypes.CDLL(None).syscall(444, None, 0, 1) > 0)' &&
	"$LLWRAP" --check 2>/dev/null | grep -q '^  F  bubblewrap   usable'; then
	LLW_BACKEND=bwrap
	export LLW_BACKEND
fi

# $LLWRAP with that backend, for the tests that run llwrap other than
# through llw (inside sh -c or script -c, as root, with another profile
# path).  Paths in the build tree have no blanks.
LLWRAP_B="$LLWRAP${LLW_BACKEND:+ --backend $LLW_BACKEND}"

# expect_no_output DESC PATTERN: the last run's output does not match.
expect_no_output() {
	if printf '%s\n' "$out" | grep -Eq -- "$2"; then
		not_ok "$1"
		diag "output matches /$2/: $out"
	else
		ok "$1"
	fi
}

# bwrap_backend: true when the suite runs through the bubblewrap fallback
# (tests/integration/backend-bwrap.sh).
bwrap_backend() {
	[ "${LLW_BACKEND:-}" = bwrap ]
}

# l3_stands_in: prints why, and is true, when llwrap takes L3 (with a
# pid namespace) for every policy on this kernel, -p default included:
# a Landlock ABI older than 3 (truncate outside writable roots) or 6
# (signal scoping), for which L3 stands in (DESIGN.md §14), as on Debian
# 12's 6.1.  Tests that assume a run without L3 skip then, saying why.
l3_stands_in() {
	if [ -z "${_l3_stands_in+set}" ]; then
		_l3_stands_in=$(as_user "$LLWRAP" -p default \
			--explain -- /bin/true 2>/dev/null |
			sed -n 's/^  L3 namespaces   yes, for //p')
	fi
	[ -n "$_l3_stands_in" ] &&
		echo "this kernel's Landlock ABI makes every policy take L3 (for $_l3_stands_in)"
}

# supervisor_refused: prints why, and is true, where llwrap's supervisor
# cannot run (Yama ptrace_scope >= 2 keeps it from the sandboxed process):
# llwrap then refuses every policy that needs it (allow-cidr, unix,
# listen, dns, allow-host: the opencode profile), naming the cause.
supervisor_refused() {
	if [ -z "${_sup_refused+set}" ]; then
		_sup_refused=$("$LLWRAP" --check 2>/dev/null |
			sed -n 's/^  S  supervisor   unavailable: //p')
	fi
	[ -n "$_sup_refused" ] &&
		echo "the supervisor cannot run here ($_sup_refused), and policies that need it are refused"
}

# need_default_profile: where llwrap refuses even -p default because no
# layer on this kernel can enforce one of its restrictions (a Landlock
# ABI older than 3 without user namespaces: Debian 12's 6.1 with them
# off, DESIGN.md §14), assert that the refusal names that restriction,
# as --check lists it unenforceable, and the way out, and skip the rest
# of the suite, whose tests need a run.  Anywhere else a refusal is not
# excused: the suite's tests fail on it.
need_default_profile() {
	_out=$(as_user "$LLWRAP" ${LLW_BACKEND:+--backend "$LLW_BACKEND"} \
		-p default -q -- /bin/true 2>&1)
	[ $? -eq 125 ] || return 0
	_none=$("$LLWRAP" --check 2>/dev/null |
		sed -n 's/^  none \(.*\): NOT ENFORCED here.*/\1/p')
	_cause=$(printf '%s\n' "$_out" |
		sed -n 's/^llwrap: this kernel cannot enforce the policy: \(.*\) (Landlock ABI [0-9]*); it needs .*--best-effort.*/\1/p')
	if [ -n "$_cause" ] && printf '%s\n' "$_none" | grep -Fqx -- "$_cause"; then
		ok "-p default is refused here, naming what no layer enforces ($_cause) and the way out"
		skip_rest "llwrap refuses -p default on this kernel, as it must: $(printf '%s\n' "$_out" | grep -m1 .)"
	fi
	not_ok "-p default is refused only where --check lists a restriction no layer enforces"
	diag "refused: $_out"
	diag "unenforceable per --check: ${_none:-none}"
}

# need_opencode_profile: skip the rest of the suite, naming the cause,
# where llwrap refuses the opencode profile (exit 125: no L3 for its
# masks, an old kernel without the layers that stand in, ...), and set
# $BE to what the bubblewrap backend needs: best effort, which drops
# only the port rules it cannot filter.  Asked of llwrap itself, so a
# kernel where the supervisor stands in for Landlock's port rules (ABI
# < 4, Debian 12's 6.1) runs the suite.
need_opencode_profile() {
	BE=
	bwrap_backend && BE=--best-effort
	_out=$(as_user "$LLWRAP" ${LLW_BACKEND:+--backend "$LLW_BACKEND"} \
		-p opencode $BE -q -- /bin/true 2>&1)
	[ $? -ne 125 ] ||
		skip_rest "llwrap refuses the opencode profile here: $(printf '%s\n' "$_out" | grep -m1 .)"
}

setup_fixture() {
	mkdir -p "$HOME_DIR/.ssh" "$HOME_DIR/.aws" "$PROJ/src" "$OTHER" \
		"$OUTSIDE" "$HOME_DIR/.config"
	echo "-----BEGIN OPENSSH PRIVATE KEY----- llw-secret" >"$HOME_DIR/.ssh/id_ed25519"
	echo "[default] aws_secret_access_key = llw-secret" >"$HOME_DIR/.aws/credentials"
	echo "# bashrc" >"$HOME_DIR/.bashrc"
	echo "other project secret" >"$OTHER/notes.txt"
	echo "outside" >"$OUTSIDE/file"
	echo "int main(void) { return 0; }" >"$PROJ/src/main.c"
	chmod 600 "$HOME_DIR/.ssh/id_ed25519"
	chown -R "$TEST_UID:$TEST_GID" "$HOME_DIR" "$OUTSIDE"
}
setup_fixture

# git_fixture: the test user's ~/.gitconfig for suites that run git (an
# identity, local submodules allowed, branch main) and $MARKS, a directory
# of the test user's where planted commands leave a mark when they run.
git_fixture() {
	MARKS=$OUTSIDE/marks
	mkdir -p "$MARKS"
	chown "$TEST_UID:$TEST_GID" "$MARKS"
	printf '%s\n' '[user]' '	name = llwrap test' \
		'	email = test@llwrap.invalid' '[protocol "file"]' \
		'	allow = always' '[init]' '	defaultBranch = main' \
		>"$HOME_DIR/.gitconfig"
	chown "$TEST_UID:$TEST_GID" "$HOME_DIR/.gitconfig"
}

# run_capture VAR CMD...: run CMD, store stdout+stderr in $out and the
# status in $rc.
out=
rc=0
run() {
	out=$("$@" 2>&1)
	rc=$?
}

# expect_succeeded DESC CMD...: the probe reports the operation worked.
expect_succeeded() {
	desc=$1
	shift
	run "$@"
	case "$rc:$out" in
	0:*SUCCEEDED*) ok "$desc" ;;
	*) not_ok "$desc"; diag "status $rc: $out" ;;
	esac
}

# expect_denied DESC CLASS CMD...: the probe reports the operation failed
# (exit 1, not a setup error, not a crash) with an errno of CLASS, and so
# by the layer that gives it.  CLASS is errno names joined by "|"; a name
# prefixed "landlock:" or "bwrap:" counts only under that backend
# ($LLW_BACKEND), as in "landlock:EACCES|bwrap:EROFS".  "any:REASON" takes
# any errno, saying why (an errno the kernel's version decides).  Which
# layer gives which errno (a denial by a missing fixture, ENOENT, must
# not pass for a layer's):
#
#	EACCES		Landlock (L1): a file, socket or port right not granted;
#			the supervisor refuses a connect, send or bind so too
#	EPERM		seccomp (L2) or a Landlock scope: a refused syscall,
#			argument, signal or ptrace; a namespace or mount the
#			kernel refuses the sandbox
#	EAFNOSUPPORT	seccomp: a refused socket family
#	ENOSYS		seccomp: a refused system call (io_uring, clone3)
#	EOPNOTSUPP	seccomp: a refused flag (MSG_ZEROCOPY)
#	EROFS		the mount view (L3, or bubblewrap): a read-only bind
#	EBUSY		the mount view: a masked file is a mount point
#	ENOENT		the mount view: not mounted (a private /tmp, devpts,
#			bubblewrap's view) -- only beside a control that the
#			path exists outside
#	ESRCH		the pid namespace: a host process is not there
#	ENETUNREACH	the network namespace: no route out
#	ECONNREFUSED	the network namespace (nothing listens in it), or a
#			firewall rejecting a connect (contrib/nixos's nft)
#	EADDRINUSE	the supervisor: a bind that would share a host's port
#	EINVAL, ENOTDIR	the kernel's own answer, kept as without the sandbox
#
# Where L3 stands in for every policy (l3_stands_in: a Landlock ABI
# below 3 or 6, Debian 12's 6.1), its mount view and pid namespace
# answer before Landlock does: there EACCES's class takes EROFS and
# ENOENT too, EPERM's ESRCH.  The runs on a current kernel keep them
# apart.
expect_denied() {
	desc=$1
	class=${2-}
	if ! errno_class_valid "$class"; then
		not_ok "$desc"
		diag "no errno class: expect_denied DESC CLASS CMD... (tests/lib/libtest.sh), not '$class'"
		return
	fi
	shift 2
	run "$@"
	expect_was_denied "$desc" "$class"
}

# expect_was_denied DESC CLASS: expect_denied of the last run's.
expect_was_denied() {
	desc=$1
	class=${2-}
	if ! errno_class_valid "$class"; then
		not_ok "$desc"
		diag "no errno class: expect_was_denied DESC CLASS (tests/lib/libtest.sh), not '$class'"
		return
	fi
	got=$(printf '%s\n' "$out" | sed -n 's/^DENIED [^ ]* errno=\([A-Z0-9]*\) .*/\1/p' | head -n 1)
	case "$rc:$out" in
	1:*DENIED*) ;;
	*)
		not_ok "$desc"
		diag "status $rc: $out"
		return
		;;
	esac
	if errno_in_class "$got" "$class" || l3_answers_first "$got" "$class"; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "denied with $got, not $class (the layer the test names): $out"
	fi
}

# errno_class_valid CLASS: CLASS is one (expect_denied).
errno_class_valid() {
	case $1 in
	any:?*) return 0 ;;
	"" | *"||"* | "|"* | *"|") return 1 ;;
	esac
	_rest=$1
	while [ -n "$_rest" ]; do
		_alt=${_rest%%|*}
		case $_rest in
		*"|"*) _rest=${_rest#*|} ;;
		*) _rest= ;;
		esac
		_alt=${_alt#landlock:}
		_alt=${_alt#bwrap:}
		case $_alt in
		E*[!A-Z0-9]* | [!E]*) return 1 ;;
		esac
	done
}

# errno_in_class ERRNO CLASS: ERRNO is one of CLASS's (expect_denied) for
# this run's backend.
errno_in_class() {
	case $2 in
	any:*) return 0 ;;
	esac
	_backend=${LLW_BACKEND:-landlock}
	_rest=$2
	while [ -n "$_rest" ]; do
		_alt=${_rest%%|*}
		case $_rest in
		*"|"*) _rest=${_rest#*|} ;;
		*) _rest= ;;
		esac
		case $_alt in
		"$1" | "$_backend:$1") return 0 ;;
		esac
	done
	return 1
}

# l3_answers_first ERRNO CLASS: where L3 stands in for every policy,
# ERRNO is what its mount view or pid namespace gives in place of CLASS's
# EACCES or EPERM (Landlock's); EXDEV: a rename or link between two
# mounts of the sealed view, which the kernel refuses before Landlock.
l3_answers_first() {
	case $1 in
	EROFS | ENOENT | EXDEV) _as=EACCES ;;
	ESRCH) _as=EPERM ;;
	*) return 1 ;;
	esac
	[ "${LLW_BACKEND:-landlock}" = landlock ] &&
		errno_in_class "$_as" "$2" && l3_stands_in >/dev/null
}

# expect_status DESC STATUS CMD...
expect_status() {
	desc=$1
	want=$2
	shift 2
	run "$@"
	if [ "$rc" -eq "$want" ]; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "wanted status $want, got $rc: $out"
	fi
}

# expect_rc DESC STATUS: the last run ended with STATUS.
expect_rc() {
	if [ "$rc" -eq "$2" ]; then
		ok "$1"
	else
		not_ok "$1"
		diag "wanted status $2, got $rc: $out"
	fi
}

# expect_output DESC PATTERN: the last run's output matches the grep -E
# PATTERN.
expect_output() {
	if printf '%s\n' "$out" | grep -Eq -- "$2"; then
		ok "$1"
	else
		not_ok "$1"
		diag "output does not match /$2/: $out"
	fi
}

# expect_refused DESC PATTERN CMD...: CMD (whose command would create
# $marker) fails closed: status 125, $marker not created, and the output
# matches the grep -E PATTERN (any output when PATTERN is empty).
expect_refused() {
	desc=$1
	pat=$2
	shift 2
	rm -f "$marker"
	run "$@"
	if [ "$rc" -eq 125 ] && [ ! -e "$marker" ] &&
		printf '%s\n' "$out" | grep -Eq -- "$pat"; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "status $rc, ran: $([ -e "$marker" ] && echo yes || echo no), wanted /$pat/: $out"
	fi
}

# expect_ran DESC CMD...: CMD (whose command creates $marker) runs it:
# status 0 and $marker created.
expect_ran() {
	desc=$1
	shift
	rm -f "$marker"
	run "$@"
	if [ "$rc" -eq 0 ] && [ -e "$marker" ]; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "status $rc, ran: $([ -e "$marker" ] && echo yes || echo no): $out"
	fi
}

# mock_results LOG: the tool results an agent sent the mock provider
# (tests/integration/mock-llm.py, its LOG), in order, into $T/results,
# shown; then result N prints the Nth (from 0), has N PATTERN DESC and
# hasnt N PATTERN DESC check it.
mock_results() {
	python3 "$LLW_SRCDIR/tests/integration/mock-llm.py" --results "$1" >"$T/results"
	sed 's/^/# /' "$T/results"
}
result() { sed -n "$(($1 + 1))p" "$T/results"; }
has() {
	if result "$1" | grep -q -- "$2"; then ok "$3"; else not_ok "$3"; diag "step $1: $(result "$1")"; fi
}
hasnt() {
	if result "$1" | grep -q -- "$2"; then not_ok "$3"; diag "step $1: $(result "$1")"; else ok "$3"; fi
}

# The running Landlock ABI (0 when unavailable).
landlock_abi() {
	python3 -c 'import ctypes; r = ctypes.CDLL(None).syscall(444, None, 0, 1); print(r if r > 0 else 0)'
}

# llwrap_abi: the Landlock ABI llwrap uses here (0: none), which a
# simulated older kernel (llwrap-hooked) lowers.
llwrap_abi() {
	"$LLWRAP" --check 2>/dev/null | sed -n 's/^Landlock: *Landlock ABI \([0-9]*\).*/\1/p' | grep . || echo 0
}

# A free TCP port on loopback, on both families, released again: one
# below the kernel's ephemeral range, which the outgoing connections of
# the tests beside this one take from (a dev server given such a port
# failed a loaded CI run once with, most likely, EADDRINUSE).
free_port() {
	python3 -c '
import random, socket
lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
for _ in range(200):
    p = random.randrange(10000, max(lo, 10001))
    try:
        for fam, addr in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
            with socket.socket(fam) as s:
                s.bind((addr, p))
    except OSError as e:
        if e.errno == 98:  # EADDRINUSE (no IPv6 loopback: taken as free)
            continue
    print(p)
    break
'
}

# userns_works: unprivileged user namespaces can be created here.
userns_works() {
	"$LLWRAP" --check 2>/dev/null | grep -q "unprivileged creation works"
}

# own_pid_ns ARGS...: llw ARGS runs its command in a pid namespace of its
# own (its /proc/self/ns/pid is not the test user's): bubblewrap always
# makes one, L3 where the policy hides processes or stands in for
# Landlock's signal scope (ABI < 6: Debian 12's 6.1).
own_pid_ns() {
	_ns=$(llw "$@" -q -- readlink /proc/self/ns/pid 2>/dev/null)
	case $_ns in
	pid:\[*) [ "$_ns" != "$(as_user readlink /proc/self/ns/pid)" ] ;;
	*) return 1 ;;
	esac
}

# userns_refused CMD...: run CMD in a user namespace of its own where
# user.max_user_namespaces = 0 (the limit is per namespace and may be
# lowered inside), so an llwrap run there is refused a user namespace
# the way a distribution's policy would refuse it.  Needs root: the
# identity map keeps every uid, so CMD can drop to the test user.
userns_refused() {
	_fifo=$T/userns-fifo
	rm -f "$_fifo"
	mkfifo "$_fifo"
	# unshare(1) execs the shell before the map exists, which costs it
	# its capabilities; the second exec, after the map, gets them back.
	unshare --user -- /bin/sh -c 'read _ <"$0" && exec /bin/sh -c "echo 0 >/proc/sys/user/max_user_namespaces && exec \"\$@\"" sh "$@"' "$_fifo" "$@" &
	_pid=$!
	_self=$(readlink /proc/self/ns/user)
	_i=0
	while [ "$(readlink "/proc/$_pid/ns/user")" = "$_self" ] && [ $_i -lt 500 ]; do
		sleep 0.01
		_i=$((_i + 1))
	done
	echo "0 0 4294967295" >"/proc/$_pid/uid_map"
	echo "0 0 4294967295" >"/proc/$_pid/gid_map"
	echo go >"$_fifo"
	wait "$_pid"
}
