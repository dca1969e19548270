#!/bin/sh
# The host side acts on nothing the sandbox controls (issue 23, DESIGN.md
# §15): each way a review found for a sandboxed command to make llwrap's
# own processes outside the sandbox run, rename, kill or leak something
# for it, tried as an unprivileged user, with the legitimate neighbour
# beside it.  Under -p opencode (and -p default for the process calls),
# and again under bubblewrap (backend-bwrap.sh).
. "$LLW_SRCDIR/tests/lib/libtest.sh"

command -v git >/dev/null 2>&1 || skip_rest "git is not installed"
command -v python3 >/dev/null 2>&1 || skip_rest "python3 is not installed"

HOOKED=$LLW_HELPERS/llwrap-hooked
# $LLWRAP_B on the test clock of llwrap-hooked, where a second of
# --timeout and of its grace period lasts 200 ms (limits.sh), so that
# the runs that wait for the timeout do not wait real seconds.
if [ -x "$HOOKED" ]; then
	LLWRAP_FAST="env LLW_HOOK_SECOND_MS=200 $HOOKED${LLW_BACKEND:+ --backend $LLW_BACKEND}"
else
	LLWRAP_FAST=$LLWRAP_B
fi
git_fixture

# ---- Calls on another process by pid (item 3) ----
# A process of the same user outside the sandbox: its limits and its
# priority are not the sandbox's to change, with or without a pid
# namespace; the sandbox's own processes' are.
spawn_as_user sleep 300
host=$spawned
limits_before=$(cat "/proc/$host/limits")
nice_before=$(awk '{print $19}' "/proc/$host/stat")

# pid_calls PROFILE...: the calls on $host, each as its own command.
pid_calls() {
	for call in "prlimit --pid $host --cpu=0:0" \
		"prlimit --pid $host --fsize=0:0" \
		"renice -n 10 -p $host" "taskset -p 1 $host" \
		"ionice -c 3 -p $host" "renice -n 10 -g $(ps -o pgid= -p "$host" | tr -d " ")" "renice -n 10 -u $TEST_UID"; do
		run llw "$@" -q -- /bin/sh -c "$call"
		if [ "$rc" -ne 0 ] &&
			printf '%s\n' "$out" | grep -Eq 'Operation not permitted|No such process'; then
			ok "$*: '$call' is refused (EPERM, or ESRCH where a pid namespace hides it)"
		else
			not_ok "$*: '$call' should be refused"
			diag "status $rc: $out"
		fi
	done
}
pid_calls -p default
# A supervisor without a pid namespace checks each pid itself.
pid_calls -p default --allow-cidr 127.0.0.1/32:9
if [ "$(cat "/proc/$host/limits")" = "$limits_before" ] &&
	[ "$(awk '{print $19}' "/proc/$host/stat")" = "$nice_before" ] &&
	kill -0 "$host" 2>/dev/null; then
	ok "... the host process is alive, its limits and priority unchanged"
else
	not_ok "the host process was changed or killed"
	diag "$(diff "/proc/$host/limits" - <<EOF
$limits_before
EOF
)"
fi

# The legitimate neighbours: the caller's own limits and priority, and
# (where a pid namespace or the supervisor decides) its children's.
OWN='nice -n 5 sh -c "cut -d\" \" -f19 /proc/\$\$/stat" &&
prlimit --nofile=64:64 sh -c "ulimit -n" &&
ionice -c 3 true && echo own-ok'
CHILD='sleep 30 & c=$!; renice -n 7 -p $c >/dev/null && prlimit --pid $c --nofile=32:32 &&
cut -d" " -f19 /proc/$c/stat; kill $c'
run llw -p default -q -- /bin/sh -c "$OWN"
expect_output "-p default: nice, prlimit and ionice of the command itself work" "^5\$"
expect_output "... (all of them)" "own-ok"
run llw -p default --allow-cidr 127.0.0.1/32:9 -q -- /bin/sh -c "$CHILD"
expect_output "... with the supervisor, renice and prlimit of the command's own child work" "^7\$"
run llw -p default -q -- /bin/sh -c "$CHILD"
if bwrap_backend; then
	expect_output "... under bubblewrap's pid namespace, without the supervisor too" "^7\$"
elif own_pid_ns -p default; then
	# L3 standing in for Landlock's signal scope (ABI < 6).
	expect_output "... under L3's pid namespace, without the supervisor too" "^7\$"
else
	expect_output "... without it (no pid namespace, no supervisor), another pid is refused (EPERM)" \
		"Operation not permitted|Permission denied"
fi

if ! bwrap_backend && ! userns_works; then
	# The rest needs the opencode profile, which fails closed here.
	expect_status "without user namespaces the opencode profile fails closed" 125 \
		llw -p opencode -- /bin/true
	done_testing
	exit
fi
need_opencode_profile

pid_calls -p opencode $BE
run llw -p opencode $BE -q -- /bin/sh -c "$CHILD"
expect_output "opencode (pid namespace): renice and prlimit of the command's own child work" "^7\$"

# ---- The gitlink that named the project itself (item 1) ----
# make_repo DIR: a repository with a commit and a submodule at sub, made
# as the test user.
make_repo() {
	as_user /bin/sh -ec '
		d=$1
		git init -q "$d.sub"
		cd "$d.sub" && echo s >s && git add s && git commit -qm s
		git init -q "$d" && cd "$d"
		echo a >a && git add a && git commit -qm a
		git submodule add -q "$d.sub" sub 2>/dev/null
		git commit -qm sub' sh "$1"
}

# An index whose only entries are gitlinks at the paths given, with a
# valid checksum, so that host git reads it (python, inside the sandbox).
INDEX_PY='
import hashlib, struct, sys
paths = sys.argv[1:]
out = b"DIRC" + struct.pack(">II", 2, len(paths))
for p in sorted(paths):
    name = p.encode()
    e = struct.pack(">10I", 0, 0, 0, 0, 0, 0, 0o160000, 0, 0, 0)
    e += bytes.fromhex("1234567890abcdef1234567890abcdef12345678")
    e += struct.pack(">H", min(len(name), 0xfff)) + name
    e += b"\0" * (8 - (len(e) % 8))
    out += e
out += hashlib.sha1(out).digest()
open(".git/index", "wb").write(out)
'
# After the watch had moved .git aside, the command could make its own
# .git, whose config runs a command in the user's next git status.
REPLANT='sleep 1
if [ ! -e .git/HEAD ]; then
	rm -rf .git 2>/dev/null; git init -q . &&
	printf "[core]\n\tfsmonitor = touch %s/%s\n" "$1" "$2" >>.git/config
fi
if [ ! -e sub/.git ]; then
	mkdir -p evil.git && git init -q --bare evil.git &&
	printf "[core]\n\tfsmonitor = touch %s/%s\n\tworktree = %s/sub\n" "$1" "$2" "$PWD" >>evil.git/config &&
	printf "gitdir: %s/evil.git\n" "$PWD" >sub/.git
fi
exit 0'
for link in . ./sub sub/ sub/.. ".git/../sub"; do
	tag=$(printf '%s' "$link" | tr -c 'a-z' 'x')
	R=$HOME_DIR/work/gl-$tag
	make_repo "$R"
	head_before=$(cat "$R/.git/HEAD")
	run llw -p opencode $BE -C "$R" -- /bin/sh -c \
		"python3 -c '$INDEX_PY' '$link' && $REPLANT" sh "$MARKS" "gl-$tag"
	expect_rc "gitlink '$link': a path git refuses to write fails the run (125)" 125
	expect_output "... naming the index entry" \
		"submodule entry '$(printf '%s' "$link" | sed 's/[.]/\\./g')' into the git index, a path git itself refuses"
	# (--ignore-submodules: a gitlink at '.' or 'sub/..' names the
	# repository itself, into which a plain git status recurses until
	# it fails, a minute or more of CPU, reading no configuration but
	# .git's and sub/.git's, which these two runs read.)
	as_user /bin/sh -c 'cd "$1" && git status --ignore-submodules=all >/dev/null 2>&1
		git -C sub status --ignore-submodules=all >/dev/null 2>&1; exit 0' sh "$R"
	if [ ! -e "$MARKS/gl-$tag" ] && [ -e "$R/.git/HEAD" ] &&
		[ "$(cat "$R/.git/HEAD")" = "$head_before" ] && [ -e "$R/sub/.git" ] &&
		! ls -d "$R"/.git.llwrap-blocked-* "$R"/sub/.git.llwrap-blocked-* >/dev/null 2>&1; then
		ok "... .git and sub/.git stayed in place, and the user's git ran nothing"
	else
		not_ok "gitlink '$link' moved a repository or ran a planted command"
		diag "$(ls -la "$R" "$R/sub" 2>&1)"
	fi
done
# The control: host git reads such an index (so the check above could
# fail), and a real new submodule's .git is still moved aside.
as_user git -C "$HOME_DIR/work/gl-x" ls-files -s 2>/dev/null | grep -q '^160000 .*	\.$' &&
	ok "control: host git reads the planted index with its '.' gitlink" ||
	not_ok "control: the planted index is not one host git reads"
R=$HOME_DIR/work/gl-new
make_repo "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c \
	'mkdir nested && cd nested && git init -q && echo n >n && git add n &&
	git commit -qm n && printf "[core]\n\tfsmonitor = touch %s/new\n" "$1" >>.git/config &&
	cd .. && git add nested 2>/dev/null; git -C sub status --short; echo sub-ok' sh "$MARKS"
expect_output "a submodule registered inside has its .git moved aside" \
	"the command created $R/nested/\\.git, which git \\(a submodule's repository\\) reads later"
expect_output "... while the existing submodule works inside" "sub-ok"
as_user git -C "$R" status >/dev/null 2>&1
[ ! -e "$MARKS/new" ] && ok "... and the user's git ran nothing" || not_ok "the nested repository's config ran"

# ---- The monitor cannot be wedged or killed (item 2) ----
# connect.py HOST PORT: one connect the supervisor refuses (loopback is
# not allowed under -p opencode), which it notes on the caller's stderr.
CONNECT_PY='
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
try:
    s.connect(("127.0.0.1", 443))
except OSError:
    pass
'
# An ordinary pipeline: llwrap's output read by a program that has gone.
R=$HOME_DIR/work/pipe
make_repo "$R"
as_user /bin/sh -c '
	{ $1 --rx "$2" -p opencode $3 -q -C "$4" -- /bin/sh -c "sleep 1; python3 -c \"\$0\"; exit 3" "$5" 2>&1
	  echo $? >"$4/status"; } | true' sh "$LLWRAP_B" "$LLW_HELPERS" "$BE" "$R" "$CONNECT_PY"
st=$(cat "$R/status" 2>/dev/null)
[ "$st" = 3 ] && ok "cmd 2>&1 | true, then a refused connect: llwrap exits with the command's status" ||
	not_ok "the pipeline's llwrap exited $st, not the command's 3"

# A one-page packet pipe, full, its mode 0 (no reopening): the note would
# have to block.  Then a later-run file is planted: still moved aside.
WEDGE_PY='
import fcntl, os, socket
r, w = os.pipe2(os.O_DIRECT)
fcntl.fcntl(w, 1031, 4096)
fl = fcntl.fcntl(w, fcntl.F_GETFL)
fcntl.fcntl(w, fcntl.F_SETFL, fl | os.O_NONBLOCK)
try:
    while True:
        os.write(w, b"x" * 512)
except BlockingIOError:
    pass
fcntl.fcntl(w, fcntl.F_SETFL, fl)
os.fchmod(w, 0)
os.dup2(w, 2)
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
try:
    s.connect(("127.0.0.1", 443))
except OSError:
    pass
open(".git/commondir", "w").write(os.getcwd() + "/evil.git\n")
'
R=$HOME_DIR/work/wedge
make_repo "$R"
# (timeout: before the fix this run never ended)
run as_user timeout -s KILL 60 $LLWRAP_B --rx "$LLW_HELPERS" -p opencode $BE \
	-C "$R" -- /bin/sh -c 'cp -r .git evil.git &&
	printf "[core]\n\tfsmonitor = touch %s/wedge\n" "$1" >>evil.git/config &&
	python3 -c "$0"; exit 4' "$WEDGE_PY" "$MARKS"
expect_rc "a full, unwritable one-page pipe as stderr does not stall llwrap: the command's status" 4
expect_output "... and the commondir planted after it is moved aside" \
	"the command created $R/\\.git/commondir, which git reads later"
as_user git -C "$R" status >/dev/null 2>&1
[ ! -e "$MARKS/wedge" ] && ok "... and the user's git ran nothing" || not_ok "host git ran the planted config"

# The supervisor killed from outside (as nothing inside can any more):
# the guardian still makes the final check and fails the run loudly.
R=$HOME_DIR/work/killed
make_repo "$R"
as_user /bin/sh -c 'cd "$1" && cp -r .git evil.git &&
	printf "[core]\n\tfsmonitor = touch %s/killed\n" "$2" >>evil.git/config' sh "$R" "$MARKS"
rm -f "$OUTSIDE/killed.out"
spawn_as_user /bin/sh -c 'exec $1 --rx "$2" -p opencode $3 -C "$4" -- /bin/sh -c \
	"sleep 3; printf \"%s/evil.git\n\" \"\$PWD\" >.git/commondir; sleep 30" >"$5" 2>&1' \
	sh "$LLWRAP_B" "$LLW_HELPERS" "$BE" "$R" "$OUTSIDE/killed.out"
guardian=$spawned
sleep 1
sup=
for c in $(pgrep -P "$guardian"); do
	[ -n "$(pgrep -P "$c")" ] && sup=$c
done
if [ -n "$sup" ]; then
	kill -9 "$sup"
	wait "$guardian"
	st=$?
	out=$(cat "$OUTSIDE/killed.out")
	[ "$st" -eq 125 ] && ok "the supervisor killed: llwrap exits 125" ||
		not_ok "the supervisor killed: llwrap exited $st"
	expect_output "... and says so" "supervisor .* was ended by signal 9"
	as_user git -C "$R" status >/dev/null 2>&1
	[ ! -e "$MARKS/killed" ] && [ ! -s "$R/.git/commondir" ] &&
		ok "... nothing the command planted runs in the user's git" ||
		not_ok "a commondir planted after the supervisor died ran"
else
	not_ok "no supervisor process under llwrap $guardian"
	diag "$(ps -o pid,ppid,comm --ppid "$guardian" 2>&1)"
fi

# The timeout does not wait for a supervisor that stopped answering
# (on the test clock: --timeout 5 is 1 s, its grace period 1 s).
if [ -x "$HOOKED" ]; then
	start=$(date +%s)
	run as_user env LLW_HOOK_SUPERVISOR_STALL=1 LLW_HOOK_SECOND_MS=200 \
		timeout -s KILL 60 "$HOOKED" \
		${LLW_BACKEND:+--backend "$LLW_BACKEND"} --rx "$LLW_HELPERS" \
		-p opencode $BE -q --timeout 5 -- /bin/sh -c 'python3 -c "$0"; sleep 50' "$CONNECT_PY"
	expect_rc "a wedged supervisor: --timeout 5 still ends the run (124)" 124
	[ $(($(date +%s) - start)) -lt 30 ] &&
		ok "... within the timeout and its grace period" ||
		not_ok "the timeout waited for the supervisor"
else
	skip "no $HOOKED (configure --disable-tests?)"
fi

# ---- A fail-closed watch (item 6) ----
# An index that is a FIFO: the watch neither blocks on it nor passes it:
# moved aside as it is made (a FIFO in .git), or, when the index's check
# comes first, not read and the run failed closed.
R=$HOME_DIR/work/fifo
make_repo "$R"
run as_user timeout -s KILL 60 $LLWRAP_B --rx "$LLW_HELPERS" -p opencode $BE \
	-C "$R" -- /bin/sh -c 'rm .git/index && mkfifo .git/index; exit 0'
if [ "$rc" -ne 137 ] && [ ! -p "$R/.git/index" ]; then
	ok "an index replaced by a FIFO: not waited on, and no FIFO left there (status $rc)"
else
	not_ok "an index replaced by a FIFO: not waited on, and no FIFO left there"
	diag "status $rc: $out"
fi
expect_output "... naming it, moved aside" \
	"(created $R/\\.git/index, which git \\(it waits on a FIFO there|cannot read the git index $R/\\.git/index)"
# More gitlinks with checkouts than the watch may hold.
R=$HOME_DIR/work/many
make_repo "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c '
	i=0; while [ $i -lt 1100 ]; do mkdir -p m/$i; i=$((i + 1)); done
	python3 -c "$0" $(i=0; while [ $i -lt 1100 ]; do echo m/$i; i=$((i + 1)); done)' "$INDEX_PY"
expect_rc "more submodule checkouts than it may watch: the run fails closed (125)" 125
expect_output "... and says why" "more than 1024 directories to watch"

# ---- .envrc through a symlink to the home (item 5) ----
R=$HOME_DIR/work/envrc
make_repo "$R"
as_user /bin/sh -c 'cd "$1" && ln -s "$HOME" sub2 &&
	echo "source_env sub2/.ssh/authorized_keys" >.envrc' sh "$R"
rm -f "$HOME_DIR/.ssh/authorized_keys"
run llw -p opencode $BE -C "$R" --explain -- /bin/true
expect_output "--explain: a path .envrc loads through a symlink is not watched" \
	"loads sub2/.ssh/authorized_keys, which does not exist and is reached through a symbolic link"
spawn_as_user /bin/sh -c 'sleep 1; echo ssh-ed25519 AAAA user >"$HOME/.ssh/authorized_keys"'
run llw -p opencode $BE -C "$R" -q -- /bin/sh -c 'sleep 3'
if [ -f "$HOME_DIR/.ssh/authorized_keys" ] &&
	! ls "$HOME_DIR"/.ssh/authorized_keys.llwrap-blocked-* >/dev/null 2>&1; then
	ok "... the user's ~/.ssh/authorized_keys, made during the run, stays where it is"
else
	not_ok "llwrap acted on ~/.ssh through a link in the project"
	diag "$out"
fi

# ---- .opencode/ made inside (item 7) ----
# opencode makes .opencode/ itself (its plans): that stays; what it loads
# from there and runs outside (a plugin, a tool) is moved aside.
R=$HOME_DIR/work/oc
make_repo "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'mkdir -p .opencode/plans &&
	echo plan >.opencode/plans/a.md && sleep 0.5 && mkdir .opencode/plugin &&
	echo "export default async () => ({})" >.opencode/plugin/p.js; sleep 0.5; exit 0'
expect_output "a plugin directory in a .opencode/ made inside is moved aside and named" \
	"the command created $R/\\.opencode/plugin, which opencode"
[ -f "$R/.opencode/plans/a.md" ] && [ ! -e "$R/.opencode/plugin" ] &&
	[ -d "$R"/.opencode/plugin.llwrap-blocked-* ] &&
	ok "... kept beside it, while opencode's own plans stay" ||
	not_ok ".opencode: plans lost or plugin left"

# A guardian over a pid namespace starts that watch once it has forked
# the supervisor, while the sandbox is made; the command's go-ahead
# waits for it.  Started a second late (llwrap-hooked), a plugin the
# command makes first thing is still moved aside: the command waited.
if [ -x "$HOOKED" ]; then
	R=$HOME_DIR/work/oc-late
	make_repo "$R"
	run as_user env LLW_HOOK_WATCH_START_DELAY_MS=1000 "$HOOKED" \
		${LLW_BACKEND:+--backend "$LLW_BACKEND"} --rx "$LLW_HELPERS" \
		-p opencode $BE -C "$R" -- /bin/sh -c 'mkdir -p .opencode/plugin &&
	echo "export default async () => ({})" >.opencode/plugin/p.js; sleep 0.5; exit 0'
	expect_output "the watch started late: a plugin the command makes first thing is still moved aside" \
		"the command created $R/\\.opencode/plugin, which opencode"
else
	skip "the watch started late: no $HOOKED"
fi

# ---- The review of the fixes (issue 23) ----
# plant_evil DIR NAME: a repository beside DIR's, whose config runs a
# command that leaves $MARKS/NAME; its path in $EVIL.
plant_evil() {
	as_user /bin/sh -c 'cd "$1" && cp -r .git evil.git &&
		printf "[core]\n\tfsmonitor = touch %s/%s\n" "$2" "$3" >>evil.git/config' \
		sh "$1" "$MARKS" "$2"
	EVIL=$1/evil.git
}
# host_ran NAME DIR DESC: after the user's git status in DIR, the planted
# command did not run.
host_ran() {
	as_user /bin/sh -c 'cd "$1" && git status >/dev/null 2>&1; git -C sub status >/dev/null 2>&1; exit 0' sh "$2"
	[ ! -e "$MARKS/$1" ] && ok "$3" || not_ok "$3 (the planted command ran)"
}

# A name moved aside once, planted again while every name the old scheme
# would have moved it to is taken: still moved aside (the new name cannot
# be guessed), or the run fails.
R=$HOME_DIR/work/again
make_repo "$R"
plant_evil "$R" again
run llw -p opencode $BE -C "$R" -- /bin/sh -c '
	printf "%s/evil.git\n" "$PWD" >.git/commondir; sleep 1
	now=$(date +%s); t=$now
	while [ $t -lt $((now + 5)) ]; do
		: >.git/commondir.llwrap-blocked-$t; i=1
		while [ $i -lt 100 ]; do : >.git/commondir.llwrap-blocked-$t-$i; i=$((i + 1)); done
		t=$((t + 1))
	done
	printf "%s/evil.git\n" "$PWD" >.git/commondir; sleep 1; exit 0'
[ "$(printf '%s\n' "$out" | grep -c 'created .*commondir, which git reads later.*moved aside')" -ge 2 ] &&
	ok "a commondir planted twice is moved aside twice, whatever names were taken" ||
	{ not_ok "the second commondir was not moved aside"; diag "$out"; }
host_ran again "$R" "... and the user's git ran nothing"

# Index entries git would not write but reads, and an index cut as git
# cuts it and not at its NULs: the run fails (125) and nothing runs.
DESYNC_PY='
import hashlib, struct, sys
GL = sys.argv[1].encode()
def hdr(mode, n):
    return struct.pack(">10I", 0,0,0,0,0,0, mode, 0,0,0) + b"\x12" * 20 + struct.pack(">H", n)
L = 200
d0 = bytearray(hdr(0o100644, L))
name = bytearray(L + 1)
name[0:2] = b"0\0"
c = hdr(0o100644, 1) + b"a\0"
c += b"\0" * (64 - len(c))
name[2:2 + len(c)] = c
d0 += name
d0 += b"\0" * (((62 + L + 8) & ~7) - len(d0))
gl = hdr(0o160000, len(GL)) + GL
gl += b"\0" * (((62 + len(GL) + 8) & ~7) - len(gl))
body = bytearray(b"DIRC" + struct.pack(">II", 2, 2) + bytes(d0) + gl)
body[140:148] = b"XXXX" + struct.pack(">I", len(body) - 148)
open(".git/index", "wb").write(bytes(body) + hashlib.sha1(bytes(body)).digest())
'
PLANT_GL='git init -q --bare e.git &&
	printf "[core]\n\tbare = false\n\tworktree = %s/e2\n\tfsmonitor = touch %s/%s\n" "$PWD" "$1" "$2" >>e.git/config &&
	mkdir -p e2 && printf "gitdir: %s/e.git\n" "$PWD" >e2/.git'
for how in slash desync; do
	R=$HOME_DIR/work/gl2-$how
	make_repo "$R"
	if [ $how = slash ]; then
		write="python3 -c '$INDEX_PY' e2/ sub"
	else
		write="python3 -c '$DESYNC_PY' e2"
	fi
	run llw -p opencode $BE -C "$R" -- /bin/sh -c "$PLANT_GL && $write; exit 0" sh "$MARKS" "gl2-$how"
	expect_rc "index ($how): a gitlink git reads and llwrap would not: the run fails (125)" 125
	expect_output "... saying why" "submodule entry 'e2/'|cannot read the git index .*not an index llwrap can read"
	host_ran "gl2-$how" "$R" "... and the user's git ran nothing"
done

# An index made to be expensive (100,000 entries, each name one byte
# longer than the one before): refused at once, the timeout unaffected.
R=$HOME_DIR/work/bigidx
make_repo "$R"
start=$(date +%s)
run as_user timeout -s KILL 120 $LLWRAP_B --rx "$LLW_HELPERS" -p opencode $BE \
	-C "$R" --timeout 10 -- python3 -c '
import hashlib, struct
e = struct.pack(">10I", 0,0,0,0,0,0, 0o160000, 0,0,0) + bytes(20) + struct.pack(">H", 0xfff) + b"\x00" + b"a\x00"
body = b"DIRC" + struct.pack(">II", 4, 100000) + e * 100000
open(".git/index", "wb").write(body + hashlib.sha1(body).digest())'
expect_rc "an index of 100,000 growing names: the run fails (125)" 125
[ $(($(date +%s) - start)) -lt 60 ] && ok "... at once, not after minutes of parsing" ||
	not_ok "the index took $(($(date +%s) - start)) s"

# The command stops itself: the guardian's timer and watch go on (on
# the test clock: --timeout 10 is 2 s, its grace period 1 s).
R=$HOME_DIR/work/stopped
make_repo "$R"
plant_evil "$R" stopped
start=$(date +%s)
run as_user timeout -s KILL 60 $LLWRAP_FAST --rx "$LLW_HELPERS" -p opencode $BE \
	-C "$R" --timeout 10 -- /bin/sh -c '
	(sleep 0.5; printf "%s/evil.git\n" "$PWD" >.git/commondir; sleep 100) &
	kill -STOP $$'
expect_rc "a command that stops itself: the timeout still ends the run (124)" 124
expect_output "... and the commondir planted meanwhile is moved aside" "created $R/\\.git/commondir"
[ $(($(date +%s) - start)) -lt 30 ] && ok "... in time" || not_ok "the stopped command stopped llwrap"
host_ran stopped "$R" "... and the user's git ran nothing"

# core.hooksPath inside the work tree (husky): read-only, like .git/hooks.
R=$HOME_DIR/work/husky
make_repo "$R"
as_user /bin/sh -c 'cd "$1" && mkdir -p .husky && printf "#!/bin/sh\nexit 0\n" >.husky/pre-commit &&
	chmod +x .husky/pre-commit && git config core.hooksPath .husky &&
	git add .husky && git commit -qm husky' sh "$R"
run llw -p opencode $BE -C "$R" -q -- /bin/sh -c \
	'printf "#!/bin/sh\ntouch %s/husky\n" "$1" >.husky/pre-commit || echo refused; git commit -q --allow-empty -m inside && echo committed' sh "$MARKS"
expect_output "core.hooksPath in the project: its hooks are read-only" "^refused$"
expect_output "... while commits inside still run them" "^committed$"
as_user /bin/sh -c 'cd "$1" && git commit -q --allow-empty -m host' sh "$R"
[ ! -e "$MARKS/husky" ] && ok "... and the user's next commit runs nothing planted" || not_ok "a planted husky hook ran"

# A project that is no repository: a repository the command makes may
# not configure a command for the user's next git.
R=$HOME_DIR/work/norepo
mkdir -p "$R"
chown "$TEST_UID:$TEST_GID" "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'git init -q . && echo a >a && git add a &&
	git commit -qm a && printf "[core]\n\tfsmonitor = touch %s/norepo\n" "$1" >>.git/config &&
	git remote add origin https://example.invalid/r.git; echo made' sh "$MARKS"
expect_output "git init inside a project without a repository works" "^made$"
expect_output "... its config, which sets core.fsmonitor, is moved aside" "created $R/\\.git/config, which git \\(it sets core\\.fsmonitor\\)"
as_user /bin/sh -c 'cd "$1" && git status >/dev/null 2>&1; git log --oneline | wc -l' sh "$R" >"$OUTSIDE/norepo.log" 2>&1
[ ! -e "$MARKS/norepo" ] && ok "... and the user's git there runs nothing" || not_ok "the new repository's fsmonitor ran"
# The red team's G1: git ends a header at the first ']' outside its
# quotes, and reads a key after it on the same line; a reader ending it
# at the first ']' saw remote.x.url.  First, outside any sandbox, that
# the user's git fetch runs what it sets (so the check below can fail).
SPLIT='git init -q . && printf "[remote \"x]url=a\"]uploadpack=touch %s/%s; git-upload-pack\n\turl = %s\n" "$1" "$2" "$PWD" >>.git/config; echo made'
R=$HOME_DIR/work/split-ctrl
mkdir -p "$R"
chown "$TEST_UID:$TEST_GID" "$R"
as_user /bin/sh -c 'cd "$0" && /bin/sh -c "$1" sh "$2" "$3"' "$R" "$SPLIT" "$MARKS" split-ctrl >/dev/null
as_user /bin/sh -c 'cd "$1" && git fetch -q --all' sh "$R" >/dev/null 2>&1
[ -e "$MARKS/split-ctrl" ] && ok "control: remote.x]url=a.uploadpack runs in the user's git fetch" ||
	not_ok "control: remote.x]url=a.uploadpack should run in git fetch"
R=$HOME_DIR/work/split
mkdir -p "$R"
chown "$TEST_UID:$TEST_GID" "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c "$SPLIT" sh "$MARKS" split
expect_output "... made in a new repository, its config is moved aside, the key named as git reads it" \
	"created $R/\\.git/config, which git \\(it sets remote\\.x\\]url=a\\.uploadpack\\)"
as_user /bin/sh -c 'cd "$1" && git fetch -q --all' sh "$R" >/dev/null 2>&1
[ ! -e "$MARKS/split" ] && ok "... and the user's git fetch there runs nothing" || not_ok "the new repository's uploadpack ran"
# A NUL, which git reads past (here in a comment, before a command):
# llwrap cannot read such a config as git does, so it is moved aside.
NUL_SH='git init -q . && printf "[core]\n# \000\n[core]\n\tfsmonitor = touch %s/%s\n" "$1" "$2" >>.git/config; echo made'
R=$HOME_DIR/work/nul-ctrl
mkdir -p "$R"
chown "$TEST_UID:$TEST_GID" "$R"
as_user /bin/sh -c 'cd "$0" && /bin/sh -c "$1" sh "$2" "$3" && git status' "$R" "$NUL_SH" "$MARKS" nul-ctrl >/dev/null 2>&1
[ -e "$MARKS/nul-ctrl" ] && ok "control: git reads past a NUL in a config and runs core.fsmonitor after it" ||
	not_ok "control: git should read past a NUL in a config"
R=$HOME_DIR/work/nul
mkdir -p "$R"
chown "$TEST_UID:$TEST_GID" "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c "$NUL_SH" sh "$MARKS" nul
expect_output "... a new repository's config holding a NUL is moved aside" \
	"created $R/\\.git/config, which git \\(llwrap cannot read it as git does: it holds a NUL\\)"
as_user /bin/sh -c 'cd "$1" && git status' sh "$R" >/dev/null 2>&1
[ ! -e "$MARKS/nul" ] && ok "... and the user's git there runs nothing" || not_ok "the fsmonitor after a NUL ran"
# A config that is a symbolic link, which git follows and llwrap does
# not read through: moved aside too.
R=$HOME_DIR/work/cfglink
mkdir -p "$R"
chown "$TEST_UID:$TEST_GID" "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'git init -q . &&
	printf "[core]\n\tfsmonitor = touch %s/cfglink\n" "$1" >x.cfg && rm .git/config && ln -s ../x.cfg .git/config; echo made' sh "$MARKS"
expect_output "... a new repository's config that is a symbolic link is moved aside" \
	"created $R/\\.git/config, which git \\((llwrap cannot read it as git does: |it writes and reads through a symbolic link there)"
as_user /bin/sh -c 'cd "$1" && git status' sh "$R" >/dev/null 2>&1
[ ! -e "$MARKS/cfglink" ] && ok "... and the user's git there runs nothing" || not_ok "the fsmonitor of a linked config ran"
R=$HOME_DIR/work/norepo2
mkdir -p "$R"
chown "$TEST_UID:$TEST_GID" "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'git init -q . && echo a >a && git add a &&
	git commit -qm a && git remote add origin https://example.invalid/r.git &&
	printf "#!/bin/sh\n" >.git/hooks/post-checkout && chmod +x .git/hooks/post-checkout; exit 0'
expect_no_output "... a plain git init, commit and remote keep their config" "\\.git/config"
expect_output "... but a hook made there is moved aside" "created $R/\\.git/hooks/post-checkout"

# A directory holding a watched name, renamed and made again.
R=$HOME_DIR/work/renamed
make_repo "$R"
as_user /bin/sh -c 'cd "$1" && mkdir config && echo keep >config/README &&
	echo "source_env_if_exists config/.envrc.local" >.envrc' sh "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'mv config config.old 2>/dev/null && mkdir config; echo "touch x" >config/.envrc.local; sleep 1; exit 0'
if [ -e "$R/config/.envrc.local" ]; then
	not_ok "a file .envrc loads, in a directory renamed and made again, stays"
	diag "$out"
else
	ok "a file .envrc loads, in a directory renamed and made again, is moved aside (or its directory cannot be renamed)"
fi

# The index of an existing submodule: a repository registered there.
R=$HOME_DIR/work/subidx
make_repo "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'cd sub && git init -q --bare ../e.git &&
	printf "[core]\n\tbare = false\n\tworktree = %s/evil\n\tfsmonitor = touch %s/subidx\n" "$PWD" "$1" >>../e.git/config &&
	mkdir evil && printf "gitdir: %s/../e.git\n" "$PWD" >evil/.git &&
	git update-index --add --cacheinfo 160000,1234567890abcdef1234567890abcdef12345678,evil; exit 0' sh "$MARKS"
expect_output "a repository registered in a submodule's index has its .git moved aside" "created $R/sub/evil/\\.git"
host_ran subidx "$R" "... and the user's git ran nothing"

# Files an .envrc loads behind a condition or an expansion: every new
# .envrc.* is moved aside, and --explain names what it cannot read.
R=$HOME_DIR/work/envrc2
make_repo "$R"
as_user /bin/sh -c 'cd "$1" && printf "%s\n" "[ -f .envrc.local ] && source_env .envrc.local" \
	"PATH_add bin" >.envrc' sh "$R"
run llw -p opencode $BE -C "$R" --explain -- /bin/true
expect_output "--explain names .envrc lines it does not read" "'PATH_add bin' loads or runs what the project holds"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'echo "touch x" >.envrc.local; echo "touch y" >.envrc.whatever'
expect_output "a new .envrc.* is moved aside, whatever its name" "created $R/\\.envrc\\.whatever, which direnv"
[ ! -e "$R/.envrc.local" ] && [ ! -e "$R/.envrc.whatever" ] && ok "... both of them" || not_ok ".envrc.* left in place"

# A directory .envrc loads from, missing at the start, made a link: the
# run fails (direnv would follow it).
R=$HOME_DIR/work/envlink
make_repo "$R"
as_user /bin/sh -c 'cd "$1" && echo "source_env_if_exists env/local.sh" >.envrc' sh "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'mkdir -p x && echo "touch x" >x/local.sh && ln -s x env'
expect_rc "a directory .envrc loads from made a link: the run fails (125)" 125
expect_output "... naming it" "env/local\\.sh, which direnv .* is now reached through a symbolic link"

# Review L, L2: an .envrc below the project's top (a monorepo's web/,
# allowed by the user) loads .envrc.local and .env.dev without direnv
# asking again, and direnv loads it when the user's shell enters web/:
# what the command writes there is moved aside at the end, whatever its
# name beside .envrc (.envrc.*), a FIFO made at a nested .envrc too (the
# prompt would wait on it); the user's own files there are left.
R=$HOME_DIR/work/envnested
make_repo "$R"
as_user /bin/sh -c 'cd "$1" && mkdir -p web api/env fifo &&
	printf "source_env_if_exists .envrc.local\ndotenv_if_exists .env.dev\n" >web/.envrc &&
	echo "export KEEP=1" >web/.envrc.user && echo "source_env env/local.sh" >api/.envrc &&
	echo "export A=1" >api/env/local.sh' sh "$R"
sleep 1
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'echo "touch $1/envnested" >web/.envrc.local &&
	echo "PROMPT_COMMAND=\"touch $1/envnested\"" >web/.env.dev && mkfifo fifo/.envrc && echo LEFT' sh "$MARKS"
expect_output "an .envrc.* beside an .envrc below the top: moved aside, said" \
	"created $R/web/\\.envrc\\.local, which direnv \\(an \\.envrc below the project's top loads it\\)"
expect_output "... what it loads (dotenv_if_exists) too" "created $R/web/\\.env\\.dev, which direnv"
expect_output "... and a FIFO made at an .envrc" "created $R/fifo/\\.envrc, which direnv"
if [ ! -e "$R/web/.envrc.local" ] && [ ! -e "$R/web/.env.dev" ] && [ ! -e "$R/fifo/.envrc" ] &&
	[ -f "$R/web/.envrc.user" ] && [ -f "$R/web/.envrc" ] && [ -f "$R/api/env/local.sh" ]; then
	ok "... gone from where direnv loads them; the user's own left"
else
	not_ok "an .envrc below the top: what the command made is moved aside, the user's left"
	diag "$(ls -a "$R/web" "$R/api/env" "$R/fifo")"
fi
if command -v direnv >/dev/null 2>&1; then
	as_user /bin/sh -c 'cd "$1/web" && direnv allow . && direnv exec . true' sh "$R" >/dev/null 2>&1
	[ ! -e "$MARKS/envnested" ] && ok "... and direnv in web/ runs nothing of the command's" ||
		not_ok "direnv in web/ ran what the command wrote"
fi
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'echo "touch $1/envnested" >>api/env/local.sh' sh "$MARKS"
expect_output "a file an .envrc below the top loads, changed in place: moved aside" \
	"changed $R/api/env/local\\.sh, which direnv"
# ... and without user namespaces (the monitor's hold, M; simulated with
# llwrap-hooked as git.sh's held runs do): the end's look is the same.
if ! bwrap_backend && [ -x "$HOOKED" ] && [ "$(llwrap_abi)" -ge 3 ]; then
	printf '[profile]\ninclude = opencode\n[filesystem]\nprivate-tmp = no\n[process]\nhide-processes = no\n[limits]\nprocesses = 1000000\n' >"$T/held-envrc.ini"
	chmod 644 "$T/held-envrc.ini"
	run as_user env LLW_HOOK_NO_USERNS=1 "$HOOKED" --rx "$LLW_HELPERS" -p "$T/held-envrc.ini" \
		-C "$R" -- /bin/sh -c 'echo "touch $1/envnested" >web/.envrc.local' sh "$MARKS"
	expect_output "without user namespaces: an .envrc.* beside an .envrc below the top is moved aside" \
		"created $R/web/\\.envrc\\.local, which direnv"
fi
rm -f "$MARKS/envnested"

# Review R: an allowed .envrc below the top loads, unasked, a file named
# "../shared/env.sh" (not followed: '..') and, with source_up, the
# nearest .envrc above it, which the command may make (direnv asks only
# for the .envrc it entered).  Both moved aside at the end; the user's
# unchanged ones are left.
R=$HOME_DIR/work/envup
make_repo "$R"
as_user /bin/sh -c 'cd "$1" && mkdir -p apps/web apps/shared lib/api &&
	printf "source_env ../shared/env.sh\n" >apps/web/.envrc && echo "export S=1" >apps/shared/env.sh &&
	printf "source_up\nexport W=1\n" >lib/api/.envrc && echo "export KEEP=1" >lib/keep.sh' sh "$R"
if command -v direnv >/dev/null 2>&1; then
	as_user /bin/sh -c 'cd "$1/apps/web" && direnv allow . && cd "$1/lib/api" && direnv allow .' sh "$R" >/dev/null 2>&1
fi
sleep 1
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'echo "touch $1/envup" >>apps/shared/env.sh &&
	echo "touch $1/envup" >lib/.envrc && echo LEFT' sh "$MARKS"
expect_output "a file an .envrc below the top loads through ../: changed, moved aside" \
	"changed $R/apps/shared/env\\.sh, which direnv \\(an \\.envrc below the project's top loads it\\)"
expect_output "... a new .envrc above one with source_up: moved aside" "created $R/lib/\\.envrc, which direnv"
[ -f "$R/lib/keep.sh" ] && [ -f "$R/apps/web/.envrc" ] && [ -f "$R/lib/api/.envrc" ] &&
	ok "... the user's own files there are left" || not_ok "an .envrc's ../ load or source_up moved a file of the user's"
if command -v direnv >/dev/null 2>&1; then
	as_user /bin/sh -c 'cd "$1/apps/web" && direnv exec . true; cd "$1/lib/api" && direnv exec . true' sh "$R" >/dev/null 2>&1
	[ ! -e "$MARKS/envup" ] && ok "... and direnv in apps/web and lib/api runs nothing of the command's" ||
		not_ok "direnv ran what the command wrote through ../ or source_up"
fi
rm -f "$MARKS/envup"

# ... and of a new .envrc at the top (left, named: direnv asks), what it
# loads that the command wrote is moved aside.
R=$HOME_DIR/work/envnew
make_repo "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'mkdir -p scripts && echo "source_env scripts/env.sh" >.envrc &&
	echo "touch x" >scripts/env.sh'
expect_output "a new .envrc at the top: named, and what it loads that the command wrote moved aside" \
	"created $R/scripts/env\\.sh, which direnv"

# Review L, L3 below the top: mise trusts a project's mise.toml by its
# path, and runs its [env] and [hooks] when the user's shell enters that
# directory: one changed or made during the run below the top, or a
# .mise/ with a file changed in its conf.d/, is moved aside at the end;
# the user's unchanged one is left.
R=$HOME_DIR/work/misenested
make_repo "$R"
as_user /bin/sh -c 'cd "$1" && mkdir -p web api/.mise/conf.d keep && printf "[tools]\n" >web/mise.toml &&
	echo "[tools]" >api/.mise/conf.d/a.toml && printf "[tools]\n" >keep/.mise.toml' sh "$R"
sleep 1
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'printf "[env]\n_.source = \"./x.sh\"\n" >>web/mise.toml &&
	echo "[hooks]" >>api/.mise/conf.d/a.toml && mkdir new && echo "[hooks]" >new/mise.local.toml &&
	echo "nodejs path:$PWD/new" >new/.tool-versions'
expect_output "a mise.toml below the top, changed: moved aside, said" \
	"changed $R/web/mise\\.toml, which mise \\(its env and hooks"
expect_output "... a .mise/ whose conf.d/ changed, whole" "changed $R/api/\\.mise, which mise"
expect_output "... a mise.local.toml made below the top" "created $R/new/mise\\.local\\.toml, which mise"
expect_output "... and asdf's .tool-versions (review L, L7)" "created $R/new/\\.tool-versions, which asdf and mise"
[ -f "$R/keep/.mise.toml" ] && [ ! -e "$R/web/mise.toml" ] && [ ! -e "$R/api/.mise" ] &&
	ok "... gone from their names; the user's unchanged one left" ||
	not_ok "mise's configuration below the top: moved aside, the user's left"

# ... and mise's other places below the top (mise/config.toml,
# .config/mise.toml, .config/mise/config.toml, its conf.d/, mise.ENV.toml),
# reached a component at a time: a .config made a symbolic link (to a
# directory holding a mise.toml) is moved aside, not followed; the user's
# unchanged ones are left.
R=$HOME_DIR/work/misenested2
make_repo "$R"
as_user /bin/sh -c 'cd "$1" && mkdir -p keep/.config/mise/conf.d keep/mise &&
	echo "[tools]" >keep/.config/mise/conf.d/a.toml && echo "[tools]" >keep/mise/config.toml &&
	echo "[tools]" >keep/mise.dev.toml' sh "$R"
sleep 1
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'mkdir -p ma/.config/mise/conf.d mb/mise mc evil &&
	echo "[hooks]" >ma/.config/mise.toml && echo "[hooks]" >ma/.config/mise/config.toml &&
	echo "[hooks]" >ma/.config/mise/conf.d/z.toml && echo "[hooks]" >mb/mise/config.toml &&
	echo "[hooks]" >mb/mise.dev.toml && echo "[hooks]" >evil/mise.toml && ln -s ../evil mc/.config'
expect_output "mise's .config/mise.toml below the top, made: moved aside" \
	"created $R/ma/\\.config/mise\\.toml, which mise"
expect_output "... .config/mise/config.toml" "created $R/ma/\\.config/mise/config\\.toml, which mise"
expect_output "... .config/mise/conf.d" "created $R/ma/\\.config/mise/conf\\.d, which mise"
expect_output "... mise/config.toml" "created $R/mb/mise/config\\.toml, which mise"
expect_output "... mise.dev.toml (MISE_ENV's)" "created $R/mb/mise\\.dev\\.toml, which mise"
expect_output "... a .config made a symbolic link: moved aside, not followed" \
	"created $R/mc/\\.config, which mise"
if [ -f "$R/keep/.config/mise/conf.d/a.toml" ] && [ -f "$R/keep/mise/config.toml" ] && [ -f "$R/keep/mise.dev.toml" ] &&
	[ ! -L "$R/mc/.config" ] && [ ! -e "$R/mc/.config" ]; then
	ok "... the user's unchanged ones left; the link gone from its name"
else
	not_ok "mise's other places below the top: the user's left, the link moved"
	diag "$(cd "$R" && find keep mc evil | sort)"
fi
# ... and through a .config link the user made beneath the project (sub/.config
# -> ../cfg: mise reads cfg/mise/conf.d/*.toml as sub's .config/mise/conf.d),
# a conf.d file made there is moved aside (review Z, Z5).
R=$HOME_DIR/work/misenested3
make_repo "$R"
as_user /bin/sh -c 'cd "$1" && mkdir -p sub cfg/mise && ln -s ../cfg sub/.config' sh "$R"
sleep 1
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'mkdir -p cfg/mise/conf.d && echo "[hooks]" >cfg/mise/conf.d/evil.toml'
expect_output "mise's conf.d reached through the user's own .config link: moved aside" \
	"created $R/cfg/mise/conf\\.d, which mise"
[ ! -e "$R/cfg/mise/conf.d/evil.toml" ] && [ -L "$R/sub/.config" ] &&
	ok "... gone from its name; the user's link left" ||
	not_ok "mise's conf.d through the user's .config link: moved aside, the link left"

# Review L, L4, in a repository nested in the project: an index entry
# .git/hooks/post-checkout written there had the user's git checkout -- .
# in it write the hook and run it.  At the end the index is moved aside
# and the run fails; the nested repository's own index, staged by git,
# is left.
R=$HOME_DIR/work/nestindex
make_repo "$R"
as_user /bin/sh -c 'cd "$1" && git init -q nest && cd nest && echo b >b && git add b &&
	git commit -qm b && cd .. && git init -q other && echo c >other/c' sh "$R"
sleep 1
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'cd other && git add c && cd ../nest && python3 -c "
import hashlib, struct, subprocess
blob = subprocess.check_output([\"git\", \"hash-object\", \"-w\", \"--stdin\"], input=b\"#!/bin/sh\\ntouch $1/nestindex\\n\").strip()
name = b\".git/hooks/post-checkout\"
e = struct.pack(\">10I\", 0, 0, 0, 0, 0, 0, 0o100755, 0, 0, 0) + bytes.fromhex(blob.decode()) + struct.pack(\">H\", len(name)) + name
e += bytes(8 - len(e) % 8)
out = b\"DIRC\" + struct.pack(\">II\", 2, 1) + e
open(\".git/index\", \"wb\").write(out + hashlib.sha1(out).digest())
"' sh "$MARKS"
expect_rc "a nested repository's index with an entry .git/hooks/post-checkout: the run fails (125)" 125
expect_output "... naming it, the index moved aside" \
	"the command wrote an entry '\\.git/hooks/post-checkout' into the git index $R/nest/\\.git/index"
as_user /bin/sh -c 'cd "$1/nest" && git checkout -- .' sh "$R" >/dev/null 2>&1
[ ! -e "$MARKS/nestindex" ] && [ ! -e "$R/nest/.git/hooks/post-checkout" ] &&
	ok "... and the user's checkout there runs nothing" || not_ok "the user's checkout in the nested repository ran the planted hook"
[ -f "$R/other/.git/index" ] && as_user git -C "$R/other" diff --cached --name-only | grep -q '^c$' &&
	ok "... another nested repository's index, staged by git, is left" ||
	not_ok "a nested repository's own index was not left"
rm -f "$MARKS/nestindex"

# Review R: a Mercurial repository below the project's top (the top's
# .hg/hgrc is a later-run entry): hg there, a shell prompt's hg status,
# runs the [hooks] of its .hg/hgrc and .hg/hgrc-not-shared.  Those made
# or changed during the run are moved aside at the end, and a .hg made a
# link; the user's own nested repository, hg committing in it, is left.
if command -v hg >/dev/null 2>&1; then
	R=$HOME_DIR/work/hgnested
	make_repo "$R"
	as_user /bin/sh -c 'cd "$1" && hg init olds && printf "[ui]\nusername = u\n" >olds/.hg/hgrc' sh "$R"
	sleep 1
	run llw -p opencode $BE -C "$R" -- /bin/sh -c 'hg init sub &&
		printf "[hooks]\npre-status = touch %s/hgnested\n" "$1" >>sub/.hg/hgrc &&
		mkdir -p bare/.hg && printf "[hooks]\npre-status = touch %s/hgnested\n" "$1" >bare/.hg/hgrc-not-shared &&
		mkdir lnk && ln -s ../bare/.hg lnk/.hg &&
		cd olds && echo f >f && hg add -q f && hg commit -q -m f && echo COMMITTED' sh "$MARKS"
	expect_output "a nested hg repository's .hg/hgrc made during the run: moved aside, said" \
		"created $R/sub/\\.hg/hgrc, which Mercurial \\(its hooks and extensions, at hg in that directory\\)"
	expect_output "... a .hg/hgrc-not-shared too" "created $R/bare/\\.hg/hgrc-not-shared, which Mercurial"
	expect_output "... and a .hg made a link" "created $R/lnk/\\.hg, which Mercurial"
	for d in sub bare lnk olds; do
		as_user /bin/sh -c 'cd "$1" && hg status' sh "$R/$d" >/dev/null 2>&1
	done
	if [ ! -e "$MARKS/hgnested" ] && [ -f "$R/olds/.hg/hgrc" ] && printf '%s\n' "$out" | grep -q COMMITTED &&
		! printf '%s\n' "$out" | grep -q "$R/olds"; then
		ok "... the user's hg status there runs nothing; the user's own nested repository is left"
	else
		not_ok "a nested hg repository: the user's hg status ran the command's hook, or the user's repository was moved"
		diag "status $rc: $out"; diag "$(ls "$MARKS")"
	fi
	rm -f "$MARKS/hgnested"
	# Review Y: what the user's nested .hg/hgrc %includes from the
	# project (and what that includes) is hg's configuration too: one
	# changed during the run is moved aside; one left alone is left.
	as_user /bin/sh -c 'cd "$1" && mkdir olds/conf && printf "%%include inner.rc\n" >olds/conf/shared.rc &&
		: >olds/conf/inner.rc && : >common.rc && : >olds/conf/kept.rc &&
		printf "%%include ../conf/shared.rc\n%%include ../../common.rc\n%%include ../conf/kept.rc\n" >>olds/.hg/hgrc' sh "$R"
	sleep 1
	run llw -p opencode $BE -C "$R" -- /bin/sh -c \
		'printf "[hooks]\npre-status = touch %s/hginc\n" "$1" | tee -a olds/conf/inner.rc >>common.rc' sh "$MARKS"
	as_user /bin/sh -c 'cd "$1" && hg status' sh "$R/olds" >/dev/null 2>&1
	if [ ! -e "$MARKS/hginc" ] && [ -f "$R/olds/conf/kept.rc" ] && [ -f "$R/olds/conf/shared.rc" ] &&
		printf '%s\n' "$out" | grep -q "changed $R/olds/conf/inner\\.rc, which Mercurial (a nested repository's \\.hg/hgrc includes it" &&
		printf '%s\n' "$out" | grep -q "changed $R/common\\.rc, which Mercurial"; then
		ok "... what a nested .hg/hgrc %includes (in turn too), changed during the run, is moved aside; hg status there runs nothing"
	else
		not_ok "what a nested .hg/hgrc %includes, changed during the run, is moved aside"
		diag "status $rc: $out"; diag "$(ls "$MARKS")"
	fi
	rm -f "$MARKS/hginc"
else
	skip "a nested hg repository: hg is not installed"
fi

# The project's .llwrap.ini made inside: llwrap's own next run would read
# it; moved aside.
R=$HOME_DIR/work/ini
make_repo "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'printf "[network]\nfoo\033]0;x\007 = 1\n" >.llwrap.ini'
expect_output "a .llwrap.ini made inside is moved aside" "created $R/\\.llwrap\\.ini, which llwrap"
as_user /bin/sh -c 'cd "$1" && mv .llwrap.ini.llwrap-blocked-* .llwrap.ini' sh "$R"
run llw -p opencode $BE -C "$R" -- /bin/true
if printf '%s' "$out" | grep -q "$(printf '\033')"; then
	not_ok "an error about a .llwrap.ini shows its control characters raw"
else
	ok "... and an error about one shows its control characters escaped"
fi


# ---- The second review (issue 23) ----
# A new repository's .git swapped for another directory (renameat2
# RENAME_EXCHANGE): the guardian follows it, and does not crash before
# its final check.
R=$HOME_DIR/work/swap
mkdir -p "$R"
chown "$TEST_UID:$TEST_GID" "$R"
as_user /bin/sh -c 'cd "$1" && echo "source_env_if_exists config/dev.envrc" >.envrc' sh "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'mkdir config && echo "touch x" >config/dev.envrc &&
	git init -q . && mkdir .git2 && python3 -c "
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print(\"swap\", libc.syscall(316, -100, b\".git\", -100, b\".git2\", 2))"'
if [ "$rc" -eq 139 ] || printf '%s\n' "$out" | grep -q 'Segmentation'; then
	not_ok "a new repository's .git swapped: the guardian crashed"
	diag "$out"
else
	ok "a new repository's .git swapped: the guardian goes on (status $rc)"
fi
[ ! -e "$R/config/dev.envrc" ] && ok "... and its final check moved the planted file aside" ||
	not_ok "config/dev.envrc was left"

# A UTF-8 byte order mark before the config of a repository made inside.
R=$HOME_DIR/work/bom
mkdir -p "$R"
chown "$TEST_UID:$TEST_GID" "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'git init -q . &&
	printf "\357\273\277[core]\n\tfsmonitor = touch %s/bom\n" "$1" >.git/config' sh "$MARKS"
expect_output "a config behind a byte order mark is read as git reads it: moved aside" \
	"created $R/\\.git/config, which git \\(it sets core\\.fsmonitor\\)"
as_user /bin/sh -c 'cd "$1" && git status >/dev/null 2>&1; exit 0' sh "$R"
[ ! -e "$MARKS/bom" ] && ok "... and the user's git runs nothing" || not_ok "the BOM config ran"

# A repository planted under .git/modules for a submodule not checked
# out: git submodule update --init would take it.
R=$HOME_DIR/work/modules
make_repo "$R"
as_user /bin/sh -c 'cd "$1" && git submodule deinit -q -f sub 2>/dev/null; rm -rf .git/modules/sub' sh "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'git init -q --bare .git/modules/sub &&
	printf "[core]\n\tbare = false\n\tworktree = ../../../sub\n\tfsmonitor = touch %s/modules\n" "$1" >>.git/modules/sub/config' sh "$MARKS"
expect_output "a repository planted under .git/modules has its config moved aside" \
	"created $R/\\.git/modules/sub/config, which git \\(it sets core\\.(fsmonitor|bare)"
as_user /bin/sh -c 'cd "$1" && git submodule update --init -q >/dev/null 2>&1; git status >/dev/null 2>&1; exit 0' sh "$R"
[ ! -e "$MARKS/modules" ] && ok "... and the user's git submodule update runs nothing" || not_ok "the planted module ran"

# A repository planted under .git/modules under a name that looks like
# one of llwrap's moves aside (review 35 H1): checked all the same, as
# the one .gitmodules names; llwrap skips only what it moved itself.
R=$HOME_DIR/work/modules-named
make_repo "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'N=evil.llwrap-blocked-1 &&
	git clone -q --bare . .git/modules/$N &&
	git --git-dir=.git/modules/$N config core.bare false &&
	git --git-dir=.git/modules/$N config core.fsmonitor "touch $1/modules-named" &&
	printf "#!/bin/sh\ntouch %s/modules-named-hook\n" "$1" >.git/modules/$N/hooks/post-checkout &&
	chmod +x .git/modules/$N/hooks/post-checkout &&
	git config -f .gitmodules submodule.$N.path lib &&
	git config -f .gitmodules submodule.$N.url ./lib-upstream &&
	git update-index --add --cacheinfo "160000,$(git rev-parse HEAD),lib" &&
	git add .gitmodules' sh "$MARKS"
expect_output "a module repository named like a move aside: its config is moved aside" \
	"created $R/\\.git/modules/evil\\.llwrap-blocked-1/config, which git \\(it sets core\\.fsmonitor"
expect_output "... and its hook" "created $R/\\.git/modules/evil\\.llwrap-blocked-1/hooks/post-checkout"
as_user /bin/sh -c 'cd "$1" && git submodule update --init -q >/dev/null 2>&1; git status >/dev/null 2>&1; exit 0' sh "$R"
[ ! -e "$MARKS/modules-named" ] && [ ! -e "$MARKS/modules-named-hook" ] &&
	ok "... and the user's git submodule update runs nothing" || not_ok "the module named like a move aside ran"
as_user /bin/sh -c 'cd "$1" && git submodule update -q sub && git -C sub status -s' sh "$R" >/dev/null 2>&1 &&
	ok "... the legitimate submodule updates" || not_ok "the legitimate submodule does not update"

# A link to a repository elsewhere in the project, where git takes the
# submodule's (.git/modules/NAME), and .git/modules itself a link.
R=$HOME_DIR/work/modules-link
make_repo "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'git clone -q --bare . store &&
	git --git-dir=store config core.bare false &&
	git --git-dir=store config core.fsmonitor "touch $1/modules-link" &&
	ln -s ../../store .git/modules/evil &&
	git config -f .gitmodules submodule.evil.path lib &&
	git config -f .gitmodules submodule.evil.url ./lib-upstream &&
	git update-index --add --cacheinfo "160000,$(git rev-parse HEAD),lib" &&
	git add .gitmodules' sh "$MARKS"
expect_output "a link at .git/modules/NAME is moved aside" \
	"created $R/\\.git/modules/evil, which git \\((submodule update follows|it writes and reads through) a"
as_user /bin/sh -c 'cd "$1" && git submodule update --init -q >/dev/null 2>&1; git status >/dev/null 2>&1; exit 0' sh "$R"
[ ! -e "$MARKS/modules-link" ] && ok "... and the user's git submodule update runs nothing" ||
	not_ok "the module linked to a repository in the project ran"
R=$HOME_DIR/work/modules-top
make_repo "$R"
as_user /bin/sh -c 'cd "$1" && git submodule deinit -q -f sub 2>/dev/null; rm -rf .git/modules' sh "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'mkdir -p mods && git clone -q --bare . mods/sub &&
	git --git-dir=mods/sub config core.bare false &&
	git --git-dir=mods/sub config core.fsmonitor "touch $1/modules-top" && ln -s ../mods .git/modules' sh "$MARKS"
expect_output ".git/modules a link is moved aside" "created $R/\\.git/modules, which git"
as_user /bin/sh -c 'cd "$1" && git submodule update --init -q >/dev/null 2>&1; git status >/dev/null 2>&1; exit 0' sh "$R"
[ ! -e "$MARKS/modules-top" ] && ok "... and the user's git submodule update runs nothing" ||
	not_ok "a module under a linked .git/modules ran"

# Links and FIFOs planted in .git (review 35 H5): the user's git follows
# a link at .git/logs/HEAD (a reflog line with the branch's name appended
# to ~/.bashrc), COMMIT_EDITMSG (truncated), and waits on a FIFO at
# FETCH_HEAD.  Moved aside as made, and at the end.
R=$HOME_DIR/work/gitlinks
make_repo "$R"
as_user /bin/sh -c 'git init -q --bare "$1.remote" && cd "$1" && git push -q "$1.remote" main &&
	git remote add origin "$1.remote" && mkdir -p .hooks && printf "#!/bin/sh\nexit 0\n" >.hooks/pre-commit &&
	chmod +x .hooks/pre-commit && ln -s ../../.hooks/pre-commit .git/hooks/pre-commit &&
	echo "# bashrc" >"$2/bashrc" && echo victim >"$2/victim"' sh "$R" "$OUTSIDE"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'rm -f .git/logs/HEAD .git/COMMIT_EDITMSG .git/FETCH_HEAD && ln -s "$1/bashrc" .git/logs/HEAD &&
	ln -s "$1/victim" .git/COMMIT_EDITMSG && mkfifo .git/FETCH_HEAD &&
	mkdir -p .git/logs/refs/heads && ln -s "$1/victim" .git/logs/refs/heads/main-x &&
	sleep 1 && if [ -L .git/logs/HEAD ]; then echo "still a link"; else echo "moved during the run"; fi' sh "$OUTSIDE"
expect_output "a link made at .git/logs/HEAD is moved aside" \
	"created $R/\\.git/logs/HEAD, which git \\(it writes and reads through a symbolic link there\\)"
expect_output "... as it is made, during the run" "^moved during the run"
expect_output "... a link at COMMIT_EDITMSG" "created $R/\\.git/COMMIT_EDITMSG, which git \\(it writes"
expect_output "... a FIFO at FETCH_HEAD" "created $R/\\.git/FETCH_HEAD, which git \\(it waits on a FIFO there"
expect_output "... a link deeper in logs/, at the end" "created $R/\\.git/logs/refs/heads/main-x, which git"
expect_no_output "... the user's own link to a hook is left" "\\.git/hooks/pre-commit"
[ -L "$R/.git/hooks/pre-commit" ] && ok "... (it is still there)" || not_ok "the user's hook link was moved"
as_user /bin/sh -c 'cd "$1" && git checkout -q -b fix && git checkout -q main &&
	git commit -q --allow-empty -m host && timeout 20 git fetch -q origin && git log -1 --format=%s' sh "$R" "$MARKS"
[ "$(cat "$OUTSIDE/bashrc")" = "# bashrc" ] && [ "$(cat "$OUTSIDE/victim")" = victim ] &&
	ok "... the user's checkout, commit and fetch write nothing outside the project" ||
	not_ok "the user's git wrote through a link planted in .git: $(cat "$OUTSIDE/bashrc" "$OUTSIDE/victim")"
as_user git -C "$R" log -1 --format=%s 2>/dev/null | grep -qx host && as_user git -C "$R" rev-parse -q --verify origin/main >/dev/null &&
	ok "... and they work (the fetch does not hang)" || not_ok "the user's git after the run fails"
# Deeper in logs/, and in a logs/ swapped for a prepared one (review 35s
# H1): every directory beneath logs/ is watched, and one moved in is
# walked at once, so the links are gone while the command still runs.
R=$HOME_DIR/work/gitlinks-deep
make_repo "$R"
as_user /bin/sh -c 'cd "$1" && git branch side && echo "# bashrc" >"$2/bashrc" && echo victim >"$2/victim"' sh "$R" "$OUTSIDE"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'mkdir .git/l2 && ln -s "$1/bashrc" .git/l2/HEAD && cp -r .git/logs/refs .git/l2/ &&
	mv .git/logs .git/l3 && mv .git/l2 .git/logs &&
	rm .git/logs/refs/heads/side && ln -s "$1/victim" .git/logs/refs/heads/side &&
	mkdir -p .git/logs/refs/heads/topic && mkfifo .git/logs/refs/heads/topic/x &&
	for i in $(seq 50); do [ -L .git/logs/HEAD ] || [ -L .git/logs/refs/heads/side ] ||
		[ -p .git/logs/refs/heads/topic/x ] || break; sleep 0.1; done
	[ -L .git/logs/HEAD ] || [ -L .git/logs/refs/heads/side ] || [ -p .git/logs/refs/heads/topic/x ] &&
		echo "still there" || echo "moved during the run"; ls .git/logs' sh "$OUTSIDE"
expect_output "links in a swapped-in logs/ and deeper in logs/refs/heads are moved aside as made" "^moved during the run"
expect_output "... the swapped-in logs/HEAD" "created $R/\\.git/logs/HEAD, which git \\(it writes and reads through a symbolic link there\\)"
expect_output "... logs/refs/heads/side" "created $R/\\.git/logs/refs/heads/side, which git"
expect_output "... a FIFO in a directory made beneath" "created $R/\\.git/logs/refs/heads/topic/x, which git \\(it waits on a FIFO there"
as_user /bin/sh -c 'cd "$1" && git checkout -q side && git commit -q --allow-empty -m user && git log -1 --format=%s' sh "$R" >"$OUTSIDE/out" 2>&1
[ "$(cat "$OUTSIDE/bashrc")" = "# bashrc" ] && [ "$(cat "$OUTSIDE/victim")" = victim ] &&
	ok "... the user's checkout and commit write nothing outside the project" ||
	not_ok "the user's git wrote through a link planted in .git/logs: $(cat "$OUTSIDE/bashrc" "$OUTSIDE/victim")"
[ "$(cat "$OUTSIDE/out")" = user ] && ok "... and they work" || not_ok "the user's git after the run: $(cat "$OUTSIDE/out")"
# The neighbour: the command's own branches and reflogs, in directories
# it makes beneath logs/refs/heads, move nothing aside.
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'git checkout -q -b feat/deep/x && git commit -q --allow-empty -m in &&
	git checkout -q main && git branch -q -D feat/deep/x && echo done'
expect_output "branches under new directories made in the sandbox work" "^done\$"
expect_no_output "... and nothing of git's own is moved aside" "moved aside"
# A branch prefix's directory removed and its name made a branch (a
# reflog file where its directory was): git's own, left.
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'git branch a/b && sleep 0.2 && git branch -q -D a/b 2>/dev/null;
	sleep 0.2 && git branch a && sleep 0.2 && [ -f .git/logs/refs/heads/a ] && echo done'
expect_output "a branch named as a prefix's removed directory works" "^done\$"
expect_no_output "... and its reflog is left, the run passes" "moved aside|could not be completed"
# The bounds of that watch (review A F1): the command filled them to have
# a directory beneath logs/ unwatched (512, silently) or the watch end
# (1024, said after the run), then planted a link there for the user's
# git running meanwhile.  Directories moved out of logs/ or removed are
# no longer counted, one moved within it is watched where it went; past
# 4,096 there the sandbox is stopped at once, and a repository that has
# more at the start is refused, saying what to do.
R=$HOME_DIR/work/gitlinks-bound
make_repo "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'cd .git
	for p in 1 2 3 4 5 6; do mkdir logs/z && (cd logs/z && seq 0 999 | xargs mkdir) && sleep 0.3 && mv logs/z old$p; done
	mkdir logs/z && (cd logs/z && seq 0 9 | xargs mkdir) && sleep 0.2 && mv logs/z logs/y && sleep 0.2 &&
	ln -s "$1/victim" logs/y/5/x && mkdir -p logs/refs/heads/agent && ln -s "$1/victim" logs/refs/heads/agent/fix &&
	for i in $(seq 50); do [ -L logs/refs/heads/agent/fix ] || [ -L logs/y/5/x ] || break; sleep 0.1; done
	[ -L logs/refs/heads/agent/fix ] || [ -L logs/y/5/x ] && echo "still there" || echo "moved during the run"' sh "$OUTSIDE"
expect_output "6,000 directories made and moved out of logs/ in turn: a link in one made after is moved as made" "^moved during the run"
expect_output "... named" "created $R/\\.git/logs/refs/heads/agent/fix, which git"
expect_output "... and one in a directory moved within logs/, where it went" "created $R/\\.git/logs/y/5/x, which git"
expect_rc "... and the run passes" 0
start=$(date +%s)
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'cd .git/logs && mkdir z && (cd z && seq 0 4200 | xargs mkdir) && sleep 60; echo "still running"'
expect_rc "4,200 directories made beneath logs/: the run fails (125)" 125
expect_no_output "... the sandbox stopped at once" "still running"
# (a bound well below the command's 60 s: a kernel-matrix VM under TCG
# takes some 25 s to make the 4,200 directories)
[ $(($(date +%s) - start)) -lt 50 ] && ok "... (not after the command's 60 s)" ||
	not_ok "the sandbox ran on for $(($(date +%s) - start)) s"
expect_output "... saying which bound" "more than [0-9]* directories beneath the repository's logs/ and worktrees/ to watch"
expect_output "... and that it stopped the sandbox" "llwrap stopped the sandbox while the command ran"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'echo ran'
expect_rc "a repository with 4,200 directories beneath logs/ is refused at the start (125)" 125
expect_no_output "... running nothing" "^ran\$"
expect_output "... saying what to do" "more than [0-9]* directories beneath .*git remote prune origin"
as_user rm -rf "$R/.git/logs/z"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'echo ran'
expect_output "... and runs once they are gone" "^ran\$"
# Under a hard limit on open files too low for that bound (the kernel's
# default is 4,096: an init without systemd's 524,288) the bound is
# lowered to what it leaves, and said, rather than "Too many open files"
# at one directory after another (the kernel matrix's VMs).
as_user /bin/sh -c 'mkdir "$1" && cd "$1" && seq 0 2989 | xargs mkdir' sh "$R/.git/logs/z"
run as_user prlimit --nofile=1024:3000 -- "$LLWRAP" ${LLW_BACKEND:+--backend "$LLW_BACKEND"} \
	--rx "$LLW_HELPERS" -p opencode $BE -C "$R" -- /bin/sh -c 'echo ran'
expect_rc "a hard limit of 3,000 open files and 2,990 directories beneath logs/: refused at the start (125)" 125
expect_output "... saying the bound it leaves and why" "more than 2488 directories beneath .*2488 and not 4096 because the hard limit on open files is 3000 \\(\`ulimit -Hn\`\\)"
expect_no_output "... not running out of descriptors" "Too many open files"
n=$(printf '%s\n' "$out" | grep -o "more than 2488 directories" | wc -l)
[ "$n" -eq 1 ] && ok "... once" || not_ok "the bound was said $n times"
as_user rm -rf "$R/.git/logs/z"
# The user's inotify watches used up by the command (review A, also
# seen: its watches count against the same per-user limit): a directory
# the watch then cannot add stops the sandbox the same way.  The limit is
# lowered in a user namespace of the test's own (/proc/sys/user), not
# for the machine.
WATCHES_PY='
import ctypes, os, sys, time
libc = ctypes.CDLL(None)
fd = libc.inotify_init()
for i in range(400):
    os.makedirs("w/%d" % i, exist_ok=True)
    libc.inotify_add_watch(fd, ("w/%d" % i).encode(), 0x100)
time.sleep(0.3)
os.makedirs(".git/logs/refs/heads/agent")
time.sleep(0.5)
os.symlink(sys.argv[1], ".git/logs/refs/heads/agent/fix")
time.sleep(3)
print("still running", flush=True)
'
R=$HOME_DIR/work/gitlinks-inotify
make_repo "$R"
if as_user unshare -U --map-current-user --keep-caps sh -c 'echo 150 >/proc/sys/user/max_inotify_watches' 2>/dev/null; then
	run as_user unshare -U --map-current-user --keep-caps sh -c 'echo 150 >/proc/sys/user/max_inotify_watches &&
		exec setpriv --inh-caps=-all --ambient-caps=-all -- "$@"' sh \
		$LLWRAP_B --rx "$LLW_HELPERS" -p opencode $BE -C "$R" -- python3 -c "$WATCHES_PY" "$OUTSIDE/victim"
	expect_rc "the user's inotify watches used up by the command: the run fails (125)" 125
	expect_no_output "... the sandbox stopped at once" "still running"
	expect_output "... saying why and what to do" "inotify watches are all taken \\(fs\\.inotify\\.max_user_watches"
	expect_output "... and that it stopped the sandbox" "llwrap stopped the sandbox while the command ran"
else
	skip "no user namespace with a lowered inotify limit here (unshare --keep-caps)"
fi
# objects/XX replaced by links to a directory outside (review 35s M2):
# the user's next commit would write its objects there.  objects/ is
# listed one level, objects/pack too; git gc's own work moves nothing.
R=$HOME_DIR/work/gitlinks-objects
make_repo "$R"
as_user mkdir -p "$OUTSIDE/objdir"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'git gc -q && echo gc done' sh
expect_output "git gc in the sandbox works" "^gc done\$"
expect_no_output "... and moves nothing aside" "moved aside"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'git repack -q -a -d && git prune-packed && cd .git/objects &&
	for d in ??; do [ -d "$d" ] && rmdir "$d"; done
	for i in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do for j in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do
		ln -s "$1/objdir" $i$j; done; done; mkfifo pack/pack-0.pack && echo linked' sh "$OUTSIDE"
expect_output "links at .git/objects/XX are moved aside" "created $R/\\.git/objects/[0-9a-f][0-9a-f], which git \\(it writes and reads through a symbolic link there\\)"
[ ! -L "$R/.git/objects/00" ] && [ ! -L "$R/.git/objects/ff" ] && ok "... all of them" || not_ok "a link at .git/objects/XX was left"
[ ! -p "$R/.git/objects/pack/pack-0.pack" ] && ok "... and a FIFO in objects/pack" || not_ok "a FIFO in .git/objects/pack was left"
as_user /bin/sh -c 'cd "$1" && echo b >b && git add b && git commit -q -m user && git log -1 --format=%s' sh "$R" >"$OUTSIDE/out" 2>&1
[ -z "$(ls -A "$OUTSIDE/objdir")" ] && ok "... the user's commit writes nothing outside the project" ||
	not_ok "the user's commit wrote objects through .git/objects links: $(ls "$OUTSIDE/objdir")"
[ "$(cat "$OUTSIDE/out")" = user ] && ok "... and works" || not_ok "the user's commit after the run: $(cat "$OUTSIDE/out")"
# A content store is counted apart (review 35s M5): more than 65,536
# files in .git/lfs/objects do not fail the run; the same files
# elsewhere fail it once, saying where.  It is walked whole (review A
# F3): a link at lfs/objects/XX/YY/OID has git-lfs's smudge (the user's
# checkout) copy what it names, a file the sandbox cannot read, into the
# work tree; one there, in lfs/tmp or deep in annex/objects is moved
# aside at the end, the store's files left.
R=$HOME_DIR/work/gitlinks-lfs
make_repo "$R"
as_user /bin/sh -c 'mkdir -p "$1/.git/lfs/objects/ab/cd" && cd "$1/.git/lfs/objects/ab/cd" && seq 1 65537 | xargs touch' sh "$R"
OID=abcd$(printf '%060d' 0)
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'ln -s "$1/victim" .git/lfs/objects/ef &&
	ln -s "$1/victim" .git/lfs/objects/ab/cd/$2 && mkdir -p .git/lfs/tmp/d && mkfifo .git/lfs/tmp/d/x &&
	mkdir -p .git/annex/objects/aa/bb/K1 && ln -s "$1/victim" .git/annex/objects/aa/bb/K1/K1 && echo ran' sh "$OUTSIDE" "$OID"
expect_output "a repository with 65,537 files in .git/lfs/objects runs" "^ran\$"
expect_no_output "... the check completes" "could not be completed|more than 65536"
expect_output "... and a link at lfs/objects/XX is moved aside" "created $R/\\.git/lfs/objects/ef, which git"
expect_output "... one at lfs/objects/XX/YY/OID" "created $R/\\.git/lfs/objects/ab/cd/$OID, which git-lfs or git-annex \\(a checkout copies what a link there names"
expect_output "... a FIFO deep in lfs/tmp" "created $R/\\.git/lfs/tmp/d/x, which git-lfs or git-annex \\(they wait on a FIFO"
expect_output "... a link at annex/objects/XX/YY/KEY/KEY" "created $R/\\.git/annex/objects/aa/bb/K1/K1, which git-lfs or git-annex"
[ ! -L "$R/.git/lfs/objects/ab/cd/$OID" ] && [ "$(ls "$R/.git/lfs/objects/ab/cd" | grep -vc llwrap-blocked)" = 65537 ] &&
	ok "... the link gone, the store's files left" || not_ok "the store after the run: $(ls -l "$R/.git/lfs/objects/ab/cd/$OID" 2>&1)"
as_user rm -rf "$R/.git/annex" "$R/.git/lfs/tmp" "$R/.git/lfs/objects/ef".llwrap-blocked-* "$R/.git/lfs/objects/ab/cd/$OID".llwrap-blocked-*
# A directory there left listable but not searchable (review A, also
# seen): what is in it cannot be looked at, which fails the run.
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'mkdir -p .git/lfs/objects/12/34 && ln -s "$1/victim" .git/lfs/objects/12/34/$2 &&
	chmod 644 .git/lfs/objects/12/34 && echo ran' sh "$OUTSIDE" "$OID"
expect_rc "a link in a store's directory made unsearchable (chmod 644): the run fails (125)" 125
expect_output "... naming it" "cannot look at $R/\\.git/lfs/objects/12/34/$OID: Permission denied"
as_user chmod 755 "$R/.git/lfs/objects/12/34"
as_user rm -rf "$R/.git/lfs/objects/12"
as_user mv "$R/.git/lfs/objects/ab/cd" "$R/.git/junk"
run llw -p opencode $BE -C "$R" -- /bin/true
expect_output "65,537 files in .git/junk refuse the run, naming where" \
	"more than 65536 entries.*the count passed it in $R/\\.git/junk; neither refs nor reflogs"
[ "$(printf '%s\n' "$out" | grep -o "more than 65536 entries" | wc -l)" = 1 ] &&
	ok "... said once" || not_ok "the bound's failure said more than once: $out"
as_user rm -rf "$R/.git/junk"
# In a repository the command made: git init and a commit move nothing
# (git init's probe of core.symlinks is a link it removes at once); a
# link planted in its logs/ is moved aside at the end.
R=$HOME_DIR/work/newrepo-links
mkdir -p "$R"
chown "$TEST_UID:$TEST_GID" "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'git init -q . && git commit -q --allow-empty -m x && echo made'
expect_output "a git init and commit in a project with no repository work" "^made\$"
expect_no_output "... and move nothing aside" "moved aside"
R=$HOME_DIR/work/newrepo-links2
mkdir -p "$R"
chown "$TEST_UID:$TEST_GID" "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'git init -q . && git commit -q --allow-empty -m x &&
	rm -f .git/logs/HEAD && ln -s "$1/bashrc" .git/logs/HEAD' sh "$OUTSIDE"
expect_output "a link planted in the logs/ of a repository the command made is moved aside" \
	"created $R/\\.git/logs/HEAD, which git \\(it writes and reads through a symbolic link there\\)"
# The neighbour: git's own work in the sandbox moves nothing.
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'git checkout -q -b feature && echo b >b && git add b &&
	git commit -q -m in && git checkout -q main && git merge -q --no-edit feature && git log -1 --format=%s'
expect_output "a commit, checkout and merge in the sandbox work" "^in\$"
expect_no_output "... and nothing of git's own is moved aside" "moved aside"

# A .git made a link to a secret's directory, for a later run from that
# directory: the grants on .git/config and hooks do not follow it.
R=$HOME_DIR/work/gitlink-secret
make_repo "$R"
mkdir -p "$HOME_DIR/.kube"
echo "token: llw-secret-kube" >"$HOME_DIR/.kube/config"
chown -R "$TEST_UID:$TEST_GID" "$HOME_DIR/.kube"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'mkdir -p src/objects src/refs && echo "ref: refs/heads/main" >src/HEAD &&
	ln -s ../../../.kube src/.git'
run llw -p opencode $BE -C "$R/src" -q -- /bin/sh -c 'cat .git/config; exit 0'
expect_no_output "a .git pointed at ~/.kube: its config is not readable through the rules on .git" "llw-secret-kube"

# A relative core.hooksPath in the user's global configuration.
R=$HOME_DIR/work/globalhooks
make_repo "$R"
as_user git config --global core.hooksPath .githooks
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'mkdir -p .githooks &&
	printf "#!/bin/sh\ntouch %s/globalhooks\n" "$1" >.githooks/pre-commit && chmod +x .githooks/pre-commit' sh "$MARKS"
expect_output "a global core.hooksPath inside the project: a hooks directory made there is moved aside" \
	"created $R/\\.githooks"
as_user /bin/sh -c 'cd "$1" && git commit -q --allow-empty -m host' sh "$R"
[ ! -e "$MARKS/globalhooks" ] && ok "... and the user's next commit runs nothing planted" || not_ok "a hook under a global hooksPath ran"
as_user git config --global --unset core.hooksPath

# Other tools' files that run commands on the host (a dev container's
# initializeCommand).
R=$HOME_DIR/work/devcontainer
make_repo "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'mkdir -p .devcontainer &&
	echo "{\"initializeCommand\": \"touch x\"}" >.devcontainer/devcontainer.json'
expect_output "a .devcontainer/ made inside is moved aside" "created $R/\\.devcontainer, which a dev container"
# Zed's and Helix's language servers (a command in the project's
# settings), Continue's config.ts.
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'mkdir -p .zed .helix .continue &&
	echo "{\"lsp\": {}}" >.zed/settings.json &&
	echo "[language-server]" >.helix/languages.toml && echo x >.continue/config.ts'
expect_output "a .zed/ made inside is moved aside" "created $R/\\.zed, which Zed"
expect_output "... a .helix/ too" "created $R/\\.helix, which Helix"
expect_output "... a .continue/ too" "created $R/\\.continue, which Continue"
# The Dev Containers spec's other place (.devcontainer.json at the top,
# review A's F9) and other agents' project MCP servers: each moved aside
# as made, and one that exists is read-only.
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'echo "{\"initializeCommand\": \"touch x\"}" >.devcontainer.json &&
	mkdir -p .roo .kilocode .amazonq && for d in .roo .kilocode .amazonq; do echo "{\"mcpServers\": {}}" >$d/mcp.json; done'
expect_output "a .devcontainer.json made inside is moved aside" "created $R/\\.devcontainer\\.json, which a dev container"
[ ! -e "$R/.devcontainer.json" ] && ok "... gone from its name" || not_ok ".devcontainer.json left in place"
expect_output "... a .roo/ too" "created $R/\\.roo, which Roo Code"
expect_output "... a .kilocode/ too" "created $R/\\.kilocode, which Kilo Code"
expect_output "... an .amazonq/ too" "created $R/\\.amazonq, which Amazon Q"
as_user /bin/sh -c 'cd "$1" && echo "{}" >.devcontainer.json' sh "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'echo "{\"initializeCommand\": \"touch x\"}" >.devcontainer.json'
[ "$(cat "$R/.devcontainer.json")" = "{}" ] && ok "an existing .devcontainer.json cannot be changed inside" ||
	not_ok "an existing .devcontainer.json was changed inside"

# Repositories one level down (VS Code looks for them there; a shell
# prompt runs git in them): one the command makes is checked as a
# repository it made, one the start had for what its config now runs
# and its new hooks; a .git file naming another repository is moved.
R=$HOME_DIR/work/nested
make_repo "$R"
as_user sh -c 'cd "$1" && mkdir lib && cd lib && git init -q . && git config user.name x' sh "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c '
	mkdir nsub && cd nsub && git init -q . &&
	git config core.fsmonitor "touch $1/nested-ran" &&
	printf "#!/bin/sh\ntouch %s/nested-hook\n" "$1" >.git/hooks/pre-commit &&
	chmod +x .git/hooks/pre-commit && cd ../lib &&
	git config core.fsmonitor "touch $1/nested-ran" &&
	printf "#!/bin/sh\ntouch %s/nested-hook\n" "$1" >.git/hooks/post-commit &&
	chmod +x .git/hooks/post-commit && mkdir ../other &&
	echo "gitdir: $2/lib/.git" >../other/.git' sh "$MARKS" "$R"
expect_output "a repository the command makes one level down: its config is moved aside" \
	"created $R/nsub/\\.git/config, which git \\(it sets core\\.fsmonitor\\)"
expect_output "... and its hook" "created $R/nsub/\\.git/hooks/pre-commit"
expect_output "one the start had: its config that now runs something" \
	"changed $R/lib/\\.git/config, which git \\(in a repository nested in the project, it sets core\\.fsmonitor\\)"
expect_output "... and its new hook" "created $R/lib/\\.git/hooks/post-commit"
expect_output "a .git file naming another repository one level down is moved aside" \
	"created $R/other/\\.git, which git \\(a repository the command named in the project\\)"
for d in nsub lib; do
	as_user sh -c 'cd "$1" && git status -s >/dev/null 2>&1 && git commit -q --allow-empty -m x' sh "$R/$d"
done
[ ! -e "$MARKS/nested-ran" ] && [ ! -e "$MARKS/nested-hook" ] &&
	ok "... and the user's git there runs nothing planted" ||
	not_ok "the user's git in a repository one level down ran what the command planted"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'cd lib && git config user.email l@llwrap.invalid'
case $out in
*moved\ aside*) not_ok "a harmless change to its config is left"; diag "$out" ;;
*) ok "a harmless change to its config is left" ;;
esac

# Every repository in the project, at any depth, checked as the
# project's is (review 35, H2, H3, H7): in one the start had, a hook
# rewritten in place, a config.worktree, a commondir; in one the command
# made, hooks/ a link, a commondir; a linked worktree's .git file
# rewritten in place; a repository two levels down; bare ones.  Beside
# them, the user's own: a repository with its hook, one deeper, a
# linked worktree, the submodule, all left as they were.
R=$HOME_DIR/work/nested2
make_repo "$R"
as_user sh -c 'cd "$1" &&
	for d in keep lib sub2 sub5 sub6 third/deep; do
		git init -q $d && git -C $d commit -q --allow-empty -m i || exit 1
	done &&
	printf "#!/bin/sh\ntouch %s/keep-hook\n" "$2" >keep/.git/hooks/pre-commit &&
	printf "#!/bin/sh\ntouch %s/deep-hook\n" "$2" >third/deep/.git/hooks/pre-commit &&
	printf "#!/bin/sh\ntrue\n" >lib/.git/hooks/pre-commit &&
	printf "[core]\n\tfsmonitor = \"touch %s/pwn-wtconfig; false\"\n" "$2" >sub6/.git/config.worktree &&
	chmod +x keep/.git/hooks/pre-commit third/deep/.git/hooks/pre-commit lib/.git/hooks/pre-commit &&
	git worktree add -q wt && git worktree add -q wt2' sh "$R" "$MARKS"
run llw -p opencode $BE -C "$R" -- /bin/sh -c '
	printf "#!/bin/sh\ntouch %s/pwn-a\n" "$1" >lib/.git/hooks/pre-commit
	git -C sub2 config extensions.worktreeConfig true
	printf "[core]\n\tfsmonitor = \"touch %s/pwn-b; false\"\n" "$1" >sub2/.git/config.worktree
	git init -q sub3 && rm -rf sub3/.git/hooks && mkdir hk &&
	printf "#!/bin/sh\ntouch %s/pwn-c\n" "$1" >hk/pre-commit && chmod +x hk/pre-commit &&
	ln -s ../../hk sub3/.git/hooks
	git init -q --bare evilcommon &&
	printf "[core]\n\tfsmonitor = \"touch %s/pwn-d; false\"\n" "$1" >>evilcommon/config
	git init -q sub4 && echo ../../evilcommon >sub4/.git/commondir
	echo ../../evilcommon >sub5/.git/commondir
	git -C sub6 config extensions.worktreeConfig true
	git init -q --bare store && git --git-dir=store config core.bare false &&
	git --git-dir=store config core.fsmonitor "touch $1/pwn-gitfile; false"
	printf "gitdir: ../store\n" >wt/.git
	mkdir -p x/y && git init -q x/y && git -C x/y config core.fsmonitor "touch $1/pwn-depth2; false"
	mkdir -p decoy/refs decoy/objects && echo "ref: refs/heads/main" >decoy/HEAD &&
	git init -q decoy/in && git -C decoy/in config core.fsmonitor "touch $1/pwn-decoy; false"
	git init -q --bare vendor.git &&
	printf "#!/bin/sh\ntouch %s/pwn-bare\n" "$1" >vendor.git/hooks/post-receive &&
	chmod +x vendor.git/hooks/post-receive; exit 0' sh "$MARKS"
expect_output "a hook of a repository the start had, rewritten in place, is moved aside" \
	"changed $R/lib/\\.git/hooks/pre-commit, which git \\(a hook of a repository nested in the project\\)"
expect_output "... a config.worktree that runs something" \
	"(created|changed) $R/sub2/\\.git/config\\.worktree, which git \\(in a repository nested in the project, it sets core\\.fsmonitor\\)"
expect_output "... a config.worktree the start had, inert, that a changed config turns on" \
	"changed $R/sub6/\\.git/config\\.worktree, which git \\(in a repository nested in the project, it sets core\\.fsmonitor\\)"
expect_output "... hooks/ a link in a repository the command made" \
	"created $R/sub3/\\.git/hooks, which git \\(its hooks, through a link\\)"
expect_output "... a commondir in a repository the command made" "created $R/sub4/\\.git/commondir, which git"
expect_output "... a new commondir in a repository the start had" "$R/sub5/\\.git/commondir, which git"
expect_output "... a linked worktree's .git file rewritten in place" \
	"changed $R/wt/\\.git, which git \\(a repository the command named in the project\\)"
expect_output "... a repository two levels down" \
	"created $R/x/y/\\.git/config, which git \\(it sets core\\.fsmonitor\\)"
# (git takes the directory for a repository, so the walk of its
# "repository directory" moves the work tree inside it aside whole, a
# repository where git keeps none: either way it is gone.)
expect_output "... one inside a directory that looks like a bare repository" \
	"created $R/decoy/in(/\\.git/config, which git \\(it sets core\\.fsmonitor\\)|, which git \\(a repository or directory left where git keeps none)"
expect_output "... a bare repository's config" "created $R/evilcommon/config, which git \\(it sets core\\.fsmonitor\\)"
expect_output "... a bare repository's hook" "created $R/vendor\\.git/hooks/post-receive, which git"
expect_no_output "... and nothing of the user's own repositories is touched" \
	"$R/(keep|third|wt2|sub)/"
as_user sh -c 'cd "$1" &&
	for d in lib sub2 sub3 sub4 sub5 sub6 wt x/y store decoy/in; do
		git -C $d status >/dev/null 2>&1
		git -C $d commit -q --allow-empty -m x >/dev/null 2>&1
	done
	git push -q ./vendor.git HEAD:refs/heads/x >/dev/null 2>&1; true' sh "$R"
if ls "$MARKS" | grep -q '^pwn-'; then
	not_ok "... and the user's git in them runs nothing planted"
	diag "ran: $(ls "$MARKS" | grep '^pwn-' | tr '\n' ' ')"
else
	ok "... and the user's git in them runs nothing planted"
fi
as_user sh -c 'cd "$1" && git -C keep commit -q --allow-empty -m x &&
	git -C third/deep commit -q --allow-empty -m x' sh "$R"
[ -e "$MARKS/keep-hook" ] && [ -e "$MARKS/deep-hook" ] &&
	ok "... the user's own hooks, one and two levels down, still run" ||
	not_ok "the user's own hooks in repositories nested in the project were moved"
# The user's own git in a top-level repository while the command runs
# (its .git changes): its hook and config are the start's, left.
llw -p opencode $BE -C "$R" -- /bin/sh -c 'touch started; sleep 2' >"$T/nested-during.out" 2>&1 &
llw_pid=$!
i=0
while [ ! -e "$R/started" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
rm -f "$MARKS/keep-hook"
as_user sh -c 'cd "$1" && git -C keep commit -q --allow-empty -m during' sh "$R"
wait $llw_pid
if [ -e "$MARKS/keep-hook" ] && ! grep -q "$R/keep/" "$T/nested-during.out"; then
	ok "... the user's own commit in one during the run leaves its hook"
else
	not_ok "the user's own commit during the run had its repository's files moved"
	diag "$(cat "$T/nested-during.out")"
fi
run as_user sh -c 'cd "$1" && git -C wt2 status --short && git -C wt2 commit -q --allow-empty -m w &&
	git submodule update -q --init && git -C sub status --short && echo neighbours-ok' sh "$R"
expect_output "... a linked worktree the user made and the submodule work" "neighbours-ok"

# The links and special files of a repository nested in the project
# (review 35s, H2): the user's git commit there writes COMMIT_EDITMSG
# and appends to logs/HEAD through a link, fetch writes FETCH_HEAD; one
# the command made in a repository the start had, in one it made, a FIFO
# in a bare one, moved aside.  The user's own link, made before the run,
# is left.
R=$HOME_DIR/work/nested3
make_repo "$R"
as_user sh -c 'cd "$1" && echo KEEP >"$2/victim3" && : >"$2/victim4" &&
	echo "*.o" >excl && git init -q vendor/lib && git init -q mine &&
	git init -q third/mine2 &&
	git -C vendor/lib commit -q --allow-empty -m v &&
	git -C mine commit -q --allow-empty -m m &&
	ln -sf ../../../excl mine/.git/info/exclude &&
	ln -sf ../../../../excl third/mine2/.git/info/exclude' sh "$R" "$MARKS"
run llw -p opencode $BE -C "$R" -- /bin/sh -c '
	ln -sf "$1/victim3" vendor/lib/.git/COMMIT_EDITMSG &&
	ln -sf "$1/victim4" vendor/lib/.git/logs/HEAD &&
	git init -q deep/new && ln -s "$1/victim4" deep/new/.git/FETCH_HEAD &&
	git init -q --bare pipes.git && mkfifo pipes.git/packed-refs && echo planted' sh "$MARKS"
expect_output "a link at a nested repository's COMMIT_EDITMSG is moved aside" \
	"created $R/vendor/lib/\\.git/COMMIT_EDITMSG, which git \\(it writes and reads through a symbolic link there\\)"
expect_output "... one at its logs/HEAD" \
	"created $R/vendor/lib/\\.git/logs/HEAD, which git \\(it writes and reads through a symbolic link there\\)"
expect_output "... one in a repository the command made two levels down" \
	"created $R/deep/new/\\.git/FETCH_HEAD, which git \\(it writes and reads through a symbolic link there\\)"
expect_output "... a FIFO in a bare repository it made" \
	"created $R/pipes\\.git/packed-refs, which git \\(it waits on a FIFO there"
expect_no_output "... and the user's own links in nested repositories are left" "$R/(mine|third)/"
run as_user sh -c 'cd "$1" && git -C vendor/lib commit -q --allow-empty -m "user msg" &&
	git -C mine commit -q --allow-empty -m m2 && readlink mine/.git/info/exclude &&
	readlink third/mine2/.git/info/exclude && echo user-ok' sh "$R"
expect_output "... the user's commits there work" "user-ok"
expect_output "... the user's link one level down is still there" "(^|[^.])\\.\\./\\.\\./\\.\\./excl"
expect_output "... and two levels down" "\\.\\./\\.\\./\\.\\./\\.\\./excl"
[ "$(cat "$MARKS/victim3")" = KEEP ] && [ ! -s "$MARKS/victim4" ] &&
	ok "... and leave the files outside the project as they were" ||
	not_ok "the user's git wrote through a link in a nested repository: $(cat "$MARKS/victim3" "$MARKS/victim4")"

# Repositories inside node_modules (review 35s, H3): VS Code opens the
# repository of a file shown from there (go to definition), git -C finds
# one at any depth.  One the command makes there, two levels of
# node_modules down too, is checked; the installed packages beside them
# (a .bin link, a package the command updates) are left.
R=$HOME_DIR/work/nested4
make_repo "$R"
as_user sh -c 'cd "$1" && mkdir -p node_modules/.bin node_modules/pkg/lib node_modules/a/node_modules/b/dist &&
	echo "module.exports = 1" >node_modules/pkg/lib/index.js &&
	ln -s ../pkg/lib/index.js node_modules/.bin/pkg' sh "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c '
	git init -q node_modules/pkg && git -C node_modules/pkg config core.fsmonitor "touch $1/pwn-nm; false"
	git init -q node_modules/a/node_modules/b &&
	git -C node_modules/a/node_modules/b config core.fsmonitor "touch $1/pwn-nm2; false"
	mkdir -p node_modules/c && echo "{}" >node_modules/c/package.json; exit 0' sh "$MARKS"
expect_output "a repository the command makes in node_modules is checked" \
	"created $R/node_modules/pkg/\\.git/config, which git \\(it sets core\\.fsmonitor\\)"
expect_output "... one in a nested node_modules too" \
	"created $R/node_modules/a/node_modules/b/\\.git/config, which git \\(it sets core\\.fsmonitor\\)"
expect_no_output "... and the packages beside them are left" "$R/node_modules/(\\.bin|c|pkg/lib)"
as_user sh -c 'cd "$1" && git -C node_modules/pkg/lib status >/dev/null 2>&1
	git -C node_modules/a/node_modules/b/dist status >/dev/null 2>&1; true' sh "$R"
if ls "$MARKS" | grep -q '^pwn-nm'; then
	not_ok "... and the user's git there runs nothing planted"
else
	ok "... and the user's git there runs nothing planted"
fi


# Files git opens in the work tree without O_NONBLOCK (review A, F6):
# a FIFO named .gitignore or .gitattributes anywhere in the project
# hangs the user's git status (a shell prompt, VS Code).  One the
# command made is moved aside at the end; the user's own is left.
R=$HOME_DIR/work/fifos
make_repo "$R"
as_user sh -c 'cd "$1" && mkdir -p src/util own && mkfifo own/.gitattributes' sh "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c '
	mkfifo src/util/.gitignore && mkdir -p new/deep && mkfifo new/deep/.gitattributes && echo made'
expect_output "a FIFO .gitignore the command made in the work tree is moved aside" \
	"created $R/src/util/\\.gitignore, which git \\(it opens it and waits"
expect_output "... one in a directory it made too" \
	"created $R/new/deep/\\.gitattributes, which git \\(it opens it and waits"
expect_no_output "... and the user's own is left" "$R/own/"
as_user rm "$R/own/.gitattributes"
run as_user sh -c 'cd "$1" && timeout 20 git status --short >/dev/null && echo status-ok' sh "$R"
expect_output "... and the user's git status then completes" "status-ok"

# A repository left inside a repository's directory (review A's walk,
# helper H): renamed into the work tree in a later run, its .git, config
# and hooks keep their change times and would pass for the user's.  git
# keeps none there (but a submodule's under modules/ and a worktree's
# own directory), nor any directory among its loose objects or packs:
# one made during the run is moved aside at its end.
R=$HOME_DIR/work/stash
make_repo "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c '
	mkdir -p .git/stash && git init -q .git/stash/evil &&
	git -C .git/stash/evil config core.fsmonitor "touch $1/pwn-stash; false" &&
	git init -q --bare .git/info/bare &&
	mkdir -p .git/objects/ab/hide .git/objects/pack/hide .git/objects/hide &&
	git update-ref refs/remotes/origin/main HEAD && git update-ref refs/remotes/origin/objects HEAD &&
	git symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main && echo staged' sh "$MARKS"
expect_output "a work tree with its repository left in .git is moved aside" \
	"created $R/\\.git/stash/evil, which git \\(a repository or directory left where git keeps none"
expect_output "... a bare repository there too" "created $R/\\.git/info/bare, which git \\(a repository or"
expect_output "... a directory among the loose objects" "created $R/\\.git/objects/ab/hide, which git"
expect_output "... among the packs" "created $R/\\.git/objects/pack/hide, which git"
expect_output "... and one beside them" "created $R/\\.git/objects/hide, which git"
expect_no_output "... a ref directory holding a HEAD and a branch named objects is left" "refs/remotes/origin"
run as_user sh -c 'cd "$1" && git commit -q --allow-empty -m after && git status --short && echo stash-ok' sh "$R"
expect_output "... and the user's git works after" "stash-ok"

# Files a nested repository's config includes (DESIGN.md §15, "What
# remains" (5) until then): the config stays as it was, the command
# rewrites what it includes.  In the project, each such file changed
# since the start (or made) that sets what runs a command is moved
# aside, as deep as git follows includes (an unchanged file including a
# changed one); one replaced by a link is moved aside; a harmless change
# to another repository's include is left (harmless as a changed config
# of a nested repository is: gitguard_config_unsafe's settings), with the
# includes it reads.
R=$HOME_DIR/work/nested5
make_repo "$R"
as_user sh -c 'cd "$1" && mkdir shared &&
	git init -q lib && git init -q deep/inner && git init -q keep &&
	printf "[user]\n\temail = s@llwrap.invalid\n" >shared/git.inc &&
	printf "[include]\n\tpath = chain2.inc\n" >shared/chain.inc &&
	printf "[user]\n\temail = c@llwrap.invalid\n" >shared/chain2.inc &&
	printf "[user]\n\temail = l@llwrap.invalid\n" >shared/link.inc &&
	printf "[user]\n\temail = k@llwrap.invalid\n" >shared/keep.inc &&
	git -C lib config --add include.path ../../shared/git.inc &&
	git -C lib config --add include.path ../../shared/missing.inc &&
	git -C lib config --add include.path ../../shared/link.inc &&
	git -C deep/inner config includeIf.gitdir:/nowhere/.path ../../../shared/chain.inc &&
	git -C keep config include.path ../../shared/keep.inc' sh "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c '
	evil() { printf "[core]\n\tfsmonitor = \"touch %s/pwn-%s; false\"\n" "$1" "$2"; }
	evil "$1" inc1 >>shared/git.inc
	evil "$1" inc2 >shared/missing.inc
	evil "$1" inc3 >>shared/chain2.inc
	evil "$1" inc4 >evil.inc && rm shared/link.inc && ln -s ../evil.inc shared/link.inc
	printf "[user]\n\tname = harmless\n" >>shared/keep.inc; exit 0' sh "$MARKS"
expect_output "a file of the project a nested repository's config includes, rewritten, is moved aside" \
	"changed $R/shared/git\\.inc, which git \\(in a repository nested in the project, whose configuration includes it: it sets core\\.fsmonitor\\)"
expect_output "... one it includes that the command made" \
	"created $R/shared/missing\\.inc, which git \\(in a repository nested in the project, whose configuration includes it: it sets core\\.fsmonitor\\)"
expect_output "... one an unchanged include includes in turn" \
	"changed $R/shared/chain2\\.inc, which git \\(in a repository nested in the project, whose configuration includes it: it sets core\\.fsmonitor\\)"
expect_output "... one replaced by a link" \
	"(created|changed) $R/shared/link\\.inc, which git \\(in a repository nested in the project, whose configuration includes it, through a link\\)"
expect_no_output "... and a harmless change to another's include, and the include between, are left" \
	"$R/shared/(keep|chain)\\.inc"
as_user sh -c 'cd "$1" && for d in lib deep/inner keep; do
	git -C $d status >/dev/null 2>&1; done; true' sh "$R"
if ls "$MARKS" | grep -q '^pwn-inc'; then
	not_ok "... and the user's git in them runs nothing planted"
	diag "ran: $(ls "$MARKS" | grep '^pwn-' | tr '\n' ' ')"
else
	ok "... and the user's git in them runs nothing planted"
fi
run as_user sh -c 'cd "$1" && git -C keep config user.name && git -C keep config user.email &&
	test -f shared/chain.inc && git -C keep commit -q --allow-empty -m k &&
	echo neighbours-ok' sh "$R"
expect_output "... the user's git reads the harmless include" "^harmless$"
expect_output "... and what it set before" "^k@llwrap\\.invalid$"
expect_output "... the includes between are left, and the user commits there" "neighbours-ok"
# A link the user had at an include's name: what it leads to is not
# followed, so not judged: the run fails loudly, naming it.
R=$HOME_DIR/work/nested6
make_repo "$R"
as_user sh -c 'cd "$1" && git init -q lib && printf "[llwtest]\n\tl = yes\n" >real.inc &&
	ln -s real.inc link.inc && git -C lib config include.path ../../link.inc' sh "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c \
	'printf "[core]\n\tfsmonitor = \"touch %s/pwn-inc5; false\"\n" "$1" >>real.inc' sh "$MARKS"
expect_rc "a link the user had at the name a nested config includes: the run fails loudly (125)" 125
expect_output "... naming it and what to look at" \
	"$R/link\\.inc, which the configuration of $R/lib/\\.git includes, is a symbolic link.*look at its target"

# A file a nested config includes twice, first met 10 deep under a
# condition that does not hold, where git stops, and again 2 deep, where
# git reads it and what it includes (review J): what it includes is
# judged all the same.
R=$HOME_DIR/work/nested8
make_repo "$R"
as_user sh -c 'cd "$1" && mkdir inc && i=1 && while [ $i -le 8 ]; do
		printf "[include]\n\tpath = c$((i + 1)).inc\n" >inc/c$i.inc; i=$((i + 1)); done &&
	printf "[includeIf \"gitdir:/nowhere/\"]\n\tpath = x.inc\n" >inc/c9.inc &&
	printf "[include]\n\tpath = d.inc\n" >inc/x.inc &&
	printf "[include]\n\tpath = x.inc\n" >inc/b.inc &&
	git init -q lib && git -C lib config --add include.path ../../inc/c1.inc &&
	git -C lib config --add include.path ../../inc/b.inc' sh "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c \
	'printf "[core]\n\tfsmonitor = \"touch %s/pwn-twice; false\"\n" "$1" >inc/d.inc' sh "$MARKS"
expect_output "a file a nested config includes through one included 10 deep and again 2 deep is judged" \
	"created $R/inc/d\\.inc, which git \\(in a repository nested in the project, whose configuration includes it: it sets core\\.fsmonitor\\)"
as_user sh -c 'git -C "$1/lib" status >/dev/null 2>&1; true' sh "$R"
[ ! -e "$MARKS/pwn-twice" ] && ok "... and the user's git there runs nothing planted" ||
	not_ok "the user's git in a nested repository ran what a file included twice includes"

# A nested repository's config larger than llwrap reads of one (1 MiB,
# as a held file; review A, F5) is moved aside unread, as one llwrap
# cannot read as git does: each was read up to the index's 256 MiB, and
# a sparse one kept the end reading for a second.  A small change
# beside it is judged, and left.
R=$HOME_DIR/work/bigconfig
make_repo "$R"
as_user sh -c 'cd "$1" && git init -q big && git init -q small' sh "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c '
	yes "# a comment line, harmless, many times over" | head -c 1200000 >>big/.git/config &&
	git -C small config user.email s@llwrap.invalid'
expect_output "a nested config larger than llwrap reads is moved aside, unread" \
	"changed $R/big/\\.git/config, which git \\(in a repository nested in the project; llwrap cannot read it as git does: it is larger than 1 MiB"
expect_no_output "... a small harmless change beside it is left" "$R/small/"

# The repositories inside a nested repository's directory (review A,
# F2): its submodules' (.git/modules/NAME: config and hooks, one the
# command made there for git submodule update --init to take) and its
# linked worktrees' (.git/worktrees/NAME: a commondir naming a planted
# config, a config.worktree, a gitdir rewritten), each checked as a
# nested repository is; one renamed in from where an earlier run left it
# (its files keep their change times), a modules/ renamed in too, as
# made.  Beside them, the user's own: a submodule with its hook, a
# linked worktree, left as they were, the command's git status in the
# submodule too.
R=$HOME_DIR/work/nested5
make_repo "$R"
as_user sh -c 'cd "$1" && git init -q "$1.up/sublib" && git init -q "$1.up/keep" &&
	git -C "$1.up/sublib" commit -q --allow-empty -m s &&
	git -C "$1.up/keep" commit -q --allow-empty -m k &&
	git init -q lib && cd lib && git commit -q --allow-empty -m l &&
	git submodule add -q "$1.up/sublib" deps/sublib &&
	git submodule add -q "$1.up/keep" deps/keep && git commit -q -m subs &&
	printf "#!/bin/sh\ntouch %s/keep5-hook\n" "$2" >.git/modules/deps/keep/hooks/pre-commit &&
	chmod +x .git/modules/deps/keep/hooks/pre-commit &&
	for t in wt wt2 wt3; do git worktree add -q "$1.wts/$t" -b $t || exit 1; done &&
	git init -q ../lib2 && git init -q --bare .git/stash/prep/x &&
	git init -q --bare ../lib2/.git/stash/modules/y &&
	git --git-dir=.git/stash/prep/x config core.fsmonitor "touch $2/pwn5-renamed; false" &&
	git --git-dir=../lib2/.git/stash/modules/y config core.fsmonitor "touch $2/pwn5-renamed; false" &&
	cd .. && printf "/lib/\n/lib2/\n" >>.git/info/exclude' sh "$R" "$MARKS"
run llw -p opencode $BE -C "$R" -- /bin/sh -c '
	cd lib && git -C deps/keep status --short
	mkdir -p docs && cp -r .git docs/c && rm -rf docs/c/HEAD docs/c/worktrees docs/c/modules &&
	git config -f docs/c/config core.fsmonitor "touch $1/pwn5-common; false" &&
	printf "%s\n" "$PWD/docs/c" >.git/worktrees/wt/commondir
	git config extensions.worktreeConfig true
	printf "[core]\n\tfsmonitor = \"touch %s/pwn5-wtconfig; false\"\n" "$1" >.git/worktrees/wt3/config.worktree
	echo "$1/victim5/.git" >.git/worktrees/wt3/gitdir
	git config -f .git/modules/deps/sublib/config core.fsmonitor "touch $1/pwn5-mod; false"
	printf "#!/bin/sh\ntouch %s/pwn5-modhook\n" "$1" >.git/modules/deps/sublib/hooks/pre-commit &&
	chmod +x .git/modules/deps/sublib/hooks/pre-commit
	git init -q --bare .git/modules/vendor && M="git --git-dir=.git/modules/vendor" &&
	C=$($M commit-tree -m v $($M mktree </dev/null)) && $M update-ref refs/heads/main $C &&
	$M config core.bare false &&
	printf "#!/bin/sh\ntouch %s/pwn5-vendor\n" "$1" >.git/modules/vendor/hooks/post-checkout &&
	chmod +x .git/modules/vendor/hooks/post-checkout &&
	printf "[submodule \"vendor\"]\n\tpath = vendor\n\turl = %s/nowhere.git\n" "$1" >>.gitmodules &&
	git update-index --add --cacheinfo 160000,$C,vendor && git add .gitmodules
	mv .git/stash/prep .git/modules/ && mv ../lib2/.git/stash/modules ../lib2/.git/
	exit 0' sh "$MARKS" "$R"
expect_output "a nested repository's submodule's config that runs something is moved aside" \
	"(created|changed) $R/lib/\\.git/modules/deps/sublib/config, which git \\(in a repository nested in the project, it sets"
expect_output "... a hook added there" \
	"created $R/lib/\\.git/modules/deps/sublib/hooks/pre-commit, which git \\(a hook of a repository nested"
expect_output "... the hook of a submodule's repository the command made there" \
	"created $R/lib/\\.git/modules/vendor/hooks/post-checkout, which git \\(a hook of a repository nested"
expect_output "... a submodule's repository renamed in from where it was left" \
	"created $R/lib/\\.git/modules/prep/x/config, which git \\(it sets core\\.fsmonitor\\)"
expect_output "... one in a modules/ renamed in" \
	"created $R/lib2/\\.git/modules/y/config, which git \\(it sets core\\.fsmonitor\\)"
expect_output "... a linked worktree's commondir naming another repository" \
	"changed $R/lib/\\.git/worktrees/wt/commondir, which git \\(in a repository nested in the project, it names another"
expect_output "... a linked worktree's config.worktree" \
	"created $R/lib/\\.git/worktrees/wt3/config\\.worktree, which git"
expect_output "... a linked worktree's gitdir rewritten" \
	"changed $R/lib/\\.git/worktrees/wt3/gitdir, which git \\(in a linked worktree of a repository nested in the project"
expect_no_output "... and the user's own submodule and worktree are left" \
	"$R/lib/\\.git/(modules/deps/keep|worktrees/wt2)"
run as_user sh -c 'cd "$1" && git -C lib/deps/sublib status --short >/dev/null 2>&1
	git -C lib/deps/sublib commit -q --allow-empty -m x >/dev/null 2>&1
	git -C "$1.wts/wt" status --short >/dev/null 2>&1
	git -C "$1.wts/wt3" status --short >/dev/null 2>&1
	git -C "$1.wts/wt3" commit -q --allow-empty -m x >/dev/null 2>&1
	cd lib && git submodule update --init vendor 2>&1 && git -C vendor status --short &&
	echo vendor-ok' sh "$R"
if ls "$MARKS" | grep -q '^pwn5-'; then
	not_ok "... and the user's git in them runs nothing planted"
	diag "ran: $(ls "$MARKS" | grep '^pwn5-' | tr '\n' ' ')"
else
	ok "... and the user's git in them runs nothing planted"
fi
expect_output "... git submodule update --init still takes the submodule's repository" "vendor-ok"
run as_user sh -c 'cd "$1" && git -C lib/deps/keep commit -q --allow-empty -m x &&
	git -C "$1.wts/wt2" status --short && git -C "$1.wts/wt2" commit -q --allow-empty -m w &&
	echo neighbours5-ok' sh "$R"
expect_output "... the user's own linked worktree works" "neighbours5-ok"
[ -e "$MARKS/keep5-hook" ] && ok "... and the user's own submodule's hook still runs" ||
	not_ok "the user's own hook in a nested repository's submodule was moved"

# A nested repository's submodule's config has no start's record: it is
# judged whole, as a new repository's, but for the core.worktree git
# writes in every submodule's, judged by where it points.  A harmless
# change there (the submodule's remote an https one) is left.
R=$HOME_DIR/work/subwt
make_repo "$R"
as_user sh -c 'cd "$1" && git init -q libsrc && git -C libsrc commit -q --allow-empty -m l &&
	git init -q outer && cd outer && git commit -q --allow-empty -m o &&
	git -c protocol.file.allow=always submodule add -q ../libsrc lib >/dev/null 2>&1 &&
	git commit -q -m add && git -C lib config remote.origin.url https://example.invalid/lib.git' sh "$R"
run llw -p opencode $BE -C "$R" -- /bin/sh -c 'git -C outer/lib config user.name agent && echo set'
expect_output "a harmless change to a nested repository's submodule's config runs" "^set$"
expect_no_output "... and the config, whose core.worktree points into the project, is left" "outer/\\.git/modules/lib/config"

# A nested repository's own hooks directory, core.hooksPath, in the
# project (review J, F7): the project's own is read-only; a nested
# one's is the project's files.  A hook there the command wrote or
# changed is moved aside; the user's own, unchanged, is left and runs.
R=$HOME_DIR/work/hookspath
make_repo "$R"
as_user sh -c 'cd "$1" && git init -q lib && mkdir lib/.githooks lib/other &&
	printf "#!/bin/sh\ntouch %s/own-hp\n" "$2" >lib/.githooks/post-commit &&
	chmod +x lib/.githooks/post-commit && git -C lib config core.hooksPath .githooks &&
	git init -q other && git -C other config core.hooksPath "$1/other/hooks" && mkdir other/hooks' sh "$R" "$MARKS"
run llw -p opencode $BE -C "$R" -- /bin/sh -c '
	printf "#!/bin/sh\ntouch %s/pwn-hp\n" "$1" >lib/.githooks/pre-commit && chmod +x lib/.githooks/pre-commit &&
	printf "#!/bin/sh\ntouch %s/pwn-hp2\n" "$1" >other/hooks/pre-commit && chmod +x other/hooks/pre-commit &&
	echo planted' sh "$MARKS"
expect_output "a hook written in a nested repository's core.hooksPath (relative) is moved aside" \
	"created $R/lib/\\.githooks/pre-commit, which git \\(a hook in the directory core\\.hooksPath"
expect_output "... and in one it names by its absolute path" \
	"created $R/other/hooks/pre-commit, which git \\(a hook in the directory core\\.hooksPath"
expect_no_output "... the user's own hook there is left" "lib/\\.githooks/post-commit"
as_user sh -c 'cd "$1" && git -C lib commit -q --allow-empty -m x && git -C other commit -q --allow-empty -m y; true' sh "$R"
[ ! -e "$MARKS/pwn-hp" ] && [ ! -e "$MARKS/pwn-hp2" ] && [ -e "$MARKS/own-hp" ] &&
	ok "... the user's commits there run the user's hook, nothing planted" ||
	not_ok "hooks: planted $(ls "$MARKS" | grep -c "^pwn-hp"), own $(ls "$MARKS" | grep -c "^own-hp")"

# The end's look through the project is bounded: past it the run fails,
# saying where it stopped (llwrap-hooked lowers the bound to 40
# directories); a directory it cannot list fails the run too, but
# another user's that this one cannot write either.
R=$HOME_DIR/work/walk
make_repo "$R"
as_user sh -c 'cd "$1" && i=0; while [ $i -lt 50 ]; do mkdir -p d/$i; i=$((i + 1)); done' sh "$R"
if [ -x "$HOOKED" ]; then
	run as_user env LLW_HOOK_NESTED_WALK_MAX=40 $HOOKED ${LLW_BACKEND:+--backend "$LLW_BACKEND"} \
		--rx "$LLW_HELPERS" -p opencode $BE -C "$R" -- /bin/true
	expect_rc "a project larger than the look after the run may walk: the run fails (125)" 125
	expect_output "... saying where it stopped and what to look at" \
		"too large to look through for the repositories .* stopped at $R/.*look at its \\.git's config"
	run as_user env LLW_HOOK_NESTED_WALK_MAX=100 $HOOKED ${LLW_BACKEND:+--backend "$LLW_BACKEND"} \
		--rx "$LLW_HELPERS" -p opencode $BE -C "$R" -- /bin/true
	expect_rc "... one within it runs as before" 0
else
	skip "llwrap-hooked is not built"
	skip "llwrap-hooked is not built"
	skip "llwrap-hooked is not built"
fi
as_user chmod 000 "$R/d/7"
run llw -p opencode $BE -C "$R" -- /bin/true
as_user chmod 755 "$R/d/7"
expect_rc "a directory of the user's the look cannot list: the run fails (125)" 125
expect_output "... naming it" "cannot look for repositories in $R/d/7: Permission denied"
if [ "$(id -u)" -eq 0 ] && [ "$TEST_UID" -ne 0 ]; then
	mkdir "$R/d/pgdata" && chmod 700 "$R/d/pgdata"
	run llw -p opencode $BE -C "$R" -- /bin/true
	expect_rc "another user's directory it cannot list (a database's volume) is passed over" 0
	rmdir "$R/d/pgdata"
else
	skip "needs root to make another user's directory"
fi

done_testing
