#!/bin/sh
# The case table of the container matrix (tests/containers/run.sh), run
# inside each container as its non-root user agent (uid 1000), HOME
# /home/agent (a tmpfs where the root filesystem is read-only).  Each case
# prints one line
#	LLWCASE NAME RESULT
# and, when llwrap refused (exit 125), the refusal's cause: its last
# line (--best-effort's NOT ENFORCED lines and "the next message says
# why" come before it):
#	LLWMSG NAME LINE
# RESULT is ok, ran, refused-CAUSE, pass, escapedN, denied-ERRNO, or
# exitN / failed-STEP for anything else; the host compares them with
# tests/containers/expected.  Each command's output follows, indented,
# for the log.
L=llwrap
H=${HOME:-/home/agent}
export HOME=$H PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 TERM=dumb
cd "$H" || exit 1
echo "LLWID $(id -u):$(id -g)"
for f in /proc/self/status; do
	sed -n 's/^\(Seccomp\|NoNewPrivs\|CapEff\|CapBnd\):[[:space:]]*/LLWFACT \1 /p' "$f"
done
for f in /proc/sys/user/max_user_namespaces /proc/sys/kernel/yama/ptrace_scope; do
	[ -r "$f" ] && echo "LLWFACT $f $(cat "$f")"
done
printf '[user]\n\tname = agent\n\temail = agent@example.invalid\n[init]\n\tdefaultBranch = main\n' >"$H/.gitconfig"
mkdir -p "$H/outside" "$H/proj"
echo data >"$H/outside/file"
git -C "$H/proj" init -q

show() {
	printf '%s\n' "$out" | sed -e "s/^/  $1| /" | head -40
}

# verdict NAME RC: ran; refused-CAUSE (the refusal's cause, its line
# recorded), or exitN.  CAUSE: userns (user namespaces refused), proc (a
# new /proc refused), supervisor (it cannot start), other.
verdict() {
	case $2 in
	0) r=ran ;;
	125)
		msg=$(printf '%s\n' "$out" | grep '^llwrap:' |
			grep -v '^llwrap: NOT ENFORCED:' | tail -1)
		echo "LLWMSG $1 $msg"
		case $msg in
		*"cannot make a new proc"*) r=refused-proc ;;
		*"refuses new user namespaces"* | *"user namespaces"*) r=refused-userns ;;
		*"network supervisor"*) r=refused-supervisor ;;
		*) r=refused-other ;;
		esac
		;;
	*) r=exit$2 ;;
	esac
}

c_check() {
	out=$(cd "$H/proj" && "$L" --check 2>&1)
	rc=$?
	show check
	[ $rc -eq 0 ] && r=ok || r=exit$rc
	echo "LLWCASE check $r"
}

# c_run NAME ARGS...: llwrap ARGS -- true in the project.
c_run() {
	name=$1
	shift
	out=$(cd "$H/proj" && "$L" "$@" -- true 2>&1)
	rc=$?
	show "$name"
	verdict "$name" $rc
	echo "LLWCASE $name $r"
}

# c_selftest NAME PROFILE: pass (nothing escaped outside the known
# limits), escapedN, or refused.
c_selftest() {
	out=$(cd "$H/proj" && "$L" -p "$2" --selftest 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -v '^  \(BLOCKED\|KNOWN\|SKIP\)' |
		sed -e "s/^/  $1| /" | tail -30
	verdict "$1" $rc
	case $rc in
	0) r=pass ;;
	1) r=escaped$(printf '%s\n' "$out" | sed -n 's/.* \([0-9]*\) escaped,.*/\1/p' | tail -1) ;;
	esac
	echo "LLWCASE $1 $r"
}

# The section 10 workflow in a fresh project: git init and commit, a
# Python module imported and byte-compiled, files created and removed at
# the project's top level.
WORKFLOW='set -e
git init -q
printf "def f():\n    return 42\n" >mod.py
printf "import mod\nprint(mod.f())\n" >main.py
test "$(python3 main.py)" = 42 || { echo "failed-python"; exit 3; }
mkdir build
python3 -c "import py_compile; py_compile.compile(\"mod.py\", cfile=\"build/mod.pyc\", doraise=True)"
git add mod.py main.py
git commit -qm first
test "$(git log --format=%s)" = first || { echo "failed-git"; exit 3; }
rm -r build main.py
echo WORKFLOW-OK'

# c_workflow NAME PROFILE
c_workflow() {
	d=$H/wf-$2
	rm -rf "$d"
	mkdir -p "$d"
	out=$(cd "$d" && "$L" -p "$2" -C . -- /bin/sh -c "$WORKFLOW" 2>&1)
	rc=$?
	show "$1"
	verdict "$1" $rc
	if [ $rc -eq 0 ]; then
		printf '%s\n' "$out" | grep -qx WORKFLOW-OK && r=ok || r=failed
	elif [ $rc -ne 125 ]; then
		r=$(printf '%s\n' "$out" | grep -m1 '^failed-' || echo "exit$rc")
	fi
	echo "LLWCASE $1 $r"
}

# The write outside every writable root: a file of the user's, writable
# without the sandbox (the control), under ~/outside.
PYWRITE='import errno, sys
try:
    open(sys.argv[1], "a").write("x")
    print("SUCCEEDED")
except OSError as e:
    print("DENIED", errno.errorcode[e.errno])'

# c_outside NAME PROFILE: denied-ERRNO, or succeeded.
c_outside() {
	out=$(python3 -c "$PYWRITE" "$H/outside/file" 2>&1)
	case $out in
	SUCCEEDED) ;;
	*)
		echo "LLWCASE $1 failed-control"
		return
		;;
	esac
	out=$(cd "$H/proj" && "$L" -p "$2" -- python3 -c "$PYWRITE" "$H/outside/file" 2>&1)
	rc=$?
	show "$1"
	verdict "$1" $rc
	case "$rc:$out" in
	0:*SUCCEEDED*) r=succeeded ;;
	0:*DENIED*) r=denied-$(printf '%s\n' "$out" | sed -n 's/.*DENIED //p' | head -1) ;;
	esac
	echo "LLWCASE $1 $r"
}

# c_local NAME ARGS...: the network supervisor decides (issue 28 item 2:
# it runs without pidfd_getfd and process_vm_readv): a connect to this
# host's port 443, which Landlock's port rule lets through and the
# supervisor refuses (EACCES, filtered/local; without the supervisor,
# nothing listening, ECONNREFUSED).  denied-ERRNO, succeeded, or the
# refusal.
PYLOCAL='import errno, socket
s = socket.socket()
try:
    s.connect(("127.0.0.1", 443))
    print("SUCCEEDED")
except OSError as e:
    print("DENIED", errno.errorcode[e.errno])'
c_local() {
	n=$1
	shift
	out=$(cd "$H/proj" && "$L" "$@" -- python3 -c "$PYLOCAL" 2>&1)
	rc=$?
	show "$n"
	verdict "$n" $rc
	case "$rc:$out" in
	0:*SUCCEEDED*) r=succeeded ;;
	0:*DENIED*) r=denied-$(printf '%s\n' "$out" | sed -n 's/.*DENIED //p' | head -1) ;;
	esac
	echo "LLWCASE $n $r"
}

# A terminal: /dev/ptmx opened (its errno when it fails), openpty, and
# script(1), which runs its command on a new pty.
PTY='import errno, os, pty
try:
    os.close(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY))
except OSError as e:
    print("PTMX", errno.errorcode[e.errno])
    raise SystemExit(3)
m, s = pty.openpty()
print("PTY", os.ttyname(s))'

# c_terminal NAME PROFILE: ok, or ptmx-ERRNO / failed-script.
c_terminal() {
	out=$(cd "$H/proj" && "$L" -p "$2" -- /bin/sh -c \
		'python3 -c "$1" && script -qec tty /dev/null' sh "$PTY" 2>&1 </dev/null)
	rc=$?
	show "$1"
	verdict "$1" $rc
	if [ $rc -ne 125 ]; then
		if printf '%s\n' "$out" | grep -q '^PTMX '; then
			r=ptmx-$(printf '%s\n' "$out" | sed -n 's/^PTMX //p')
		elif [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^/dev/pts/'; then
			r=ok
		else
			r=failed-script
		fi
	fi
	echo "LLWCASE $1 $r"
}

# git's files held by whichever layer runs (issue 28 item 1): a project
# with a commit and a hook, -p opencode with private-tmp off (L3 alone
# makes a private /tmp) and no network (the supervisor, refused under
# the runtimes' default profiles, is item 2): this case is about the
# masks.  The workflow at
# the top level and in git, then core.fsmonitor set, a new hook, the
# old one changed, a file renamed into .git/hooks from another
# directory.  held: the workflow ran and, after the run, the config sets
# no fsmonitor, no new hook is at its name and the old one is as it
# was; else failed-STEP, or refused-CAUSE.
HELD='echo top >top.txt && cat "$PWD/top.txt" >/dev/null && mkdir d && rmdir d && rm top.txt
echo x >f && git add f && git commit -qm inside || { echo failed-git; exit 3; }
git config core.fsmonitor "touch $HOME/fsmonitor-ran" 2>/dev/null
printf "#!/bin/sh\ntouch $HOME/hook-ran\n" >.git/hooks/pre-commit 2>/dev/null
echo evil >>.git/hooks/pre-push 2>/dev/null
mkdir -p src && echo "#!/bin/sh" >src/x && python3 -c "import os; os.rename(\"src/x\", \".git/hooks/post-checkout\")" 2>/dev/null
sleep 0.3
echo HELD-RAN'
c_held() {
	d=$H/held
	rm -rf "$d"
	mkdir -p "$d" "$H/.config/llwrap/profiles"
	printf '[profile]\ninclude = opencode\n[filesystem]\nprivate-tmp = no\n[network]\nmode = none\nsupervise = no\n' \
		>"$H/.config/llwrap/profiles/oc-held.ini"
	git -C "$d" init -q && git -C "$d" commit -q --allow-empty -m start &&
		printf '#!/bin/sh\necho user hook\n' >"$d/.git/hooks/pre-push" &&
		chmod 755 "$d/.git/hooks/pre-push" || {
		echo "LLWCASE $1 failed-setup"
		return
	}
	out=$(cd "$d" && "$L" -p oc-held -C . -- /bin/sh -c "$HELD" 2>&1)
	rc=$?
	show "$1"
	verdict "$1" $rc
	if [ $rc -ne 125 ]; then
		if ! printf '%s\n' "$out" | grep -qx HELD-RAN; then
			r=$(printf '%s\n' "$out" | grep -m1 '^failed-' || echo "exit$rc")
		elif git -C "$d" config core.fsmonitor >/dev/null; then
			r=failed-config
		elif [ -e "$d/.git/hooks/pre-commit" ] || [ -e "$d/.git/hooks/post-checkout" ]; then
			r=failed-hook
		elif [ "$(cat "$d/.git/hooks/pre-push")" != "$(printf '#!/bin/sh\necho user hook')" ]; then
			r=failed-changed-hook
		else
			r=held
		fi
	fi
	echo "LLWCASE $1 $r"
}

# c_tmp NAME: -p opencode's private /tmp (the supervisor off: the case
# is about /tmp).  own-dir: without user namespaces, a directory of the
# run's own as TMPDIR (mktemp and python's tempfile there, /tmp itself
# EACCES), removed after the run without following a link or opening a
# FIFO planted in it; tmpfs: L3's empty /tmp; else failed-STEP.
TMPCASE='case $TMPDIR in
/tmp/llwrap-run.*)
	f=$(mktemp) && case $f in "$TMPDIR"/*) ;; *) echo failed-mktemp; exit 0 ;; esac
	python3 -c "import tempfile, os, sys; sys.exit(0 if tempfile.mkdtemp().startswith(os.environ[\"TMPDIR\"]) else 1)" || { echo failed-python; exit 0; }
	if echo x 2>/dev/null >/tmp/llw-tmp-x; then echo failed-tmp-writable; exit 0; fi
	ln -s "$HOME/outside" "$TMPDIR/link" && mkfifo "$TMPDIR/fifo" && mkdir "$TMPDIR/d" && ln -s "$HOME/outside/file" "$TMPDIR/d/f" || { echo failed-plant; exit 0; }
	echo "TMP-DIR $TMPDIR" ;;
*)
	echo x >/tmp/llw-tmp-x && [ "$(ls /tmp)" = llw-tmp-x ] && echo TMP-TMPFS || echo failed-tmpfs ;;
esac'
c_tmp() {
	mkdir -p "$H/.config/llwrap/profiles"
	printf '[profile]\ninclude = opencode\n[network]\nmode = none\nsupervise = no\n' \
		>"$H/.config/llwrap/profiles/oc-tmp.ini"
	out=$(cd "$H/proj" && "$L" -p oc-tmp -- /bin/sh -c "$TMPCASE" 2>&1)
	rc=$?
	show "$1"
	verdict "$1" $rc
	if [ $rc -ne 125 ]; then
		dir=$(printf '%s\n' "$out" | sed -n 's/^TMP-DIR //p')
		if printf '%s\n' "$out" | grep -q '^failed-'; then
			r=$(printf '%s\n' "$out" | grep -m1 '^failed-')
		elif printf '%s\n' "$out" | grep -qx TMP-TMPFS; then
			r=tmpfs
		elif [ -z "$dir" ]; then
			r=exit$rc
		elif [ -e "$dir" ]; then
			r=failed-left
		elif [ ! -f "$H/outside/file" ]; then
			r=failed-followed
		else
			r=own-dir
		fi
	fi
	echo "LLWCASE $1 $r"
}

# The agent itself (issue 28, "How it is checked"): opencode run under
# -p opencode against the scripted mock provider
# (tests/integration/mock-llm.py, mounted at /llw/mock-llm.py) on the
# container's loopback, its port named by a profile of the user's own
# (allow-cidr), as tests/integration/agent.sh does on the host.  The
# mock answers with two bash tool calls: a file written in the project,
# then a write to the user's file outside every writable root.
# wrote-denied-ERRNO: opencode finished, the mock received both tool
# results, the file is in the project, the write outside failed with
# ERRNO and the file outside is unchanged; else refused-CAUSE,
# failed-STEP, or escaped (the write outside succeeded).  skipped: the
# image has no opencode (run.sh says why).
MOCK=/llw/mock-llm.py
c_agent() {
	if ! command -v opencode >/dev/null 2>&1 || [ ! -r $MOCK ]; then
		echo "LLWCASE $1 skipped"
		return
	fi
	d=$H/agent
	a=$H/agent-run
	rm -rf "$d" "$a"
	mkdir -p "$d" "$a" "$H/.config/llwrap/profiles"
	before=$(cat "$H/outside/file")
	python3 - "$H/outside/file" >"$a/script.json" <<'PY'
import json, sys
write = """import errno, sys
try:
    open(sys.argv[1], "a").write("x")
    print("OUT-SUCCEEDED")
except OSError as e:
    print("OUT-DENIED", errno.errorcode[e.errno])"""
print(json.dumps([
    "echo agent-wrote > made-by-agent.txt && echo STEP0-OK",
    "python3 -c '%s' %s" % (write, sys.argv[1]),
]))
PY
	python3 $MOCK "$a/script.json" "$a/mock.jsonl" "$a/port" 2>"$a/mock.err" &
	mock=$!
	i=0
	while [ ! -s "$a/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	port=$(cat "$a/port" 2>/dev/null)
	printf '[profile]\ninclude = opencode\n[network]\nallow-cidr = 127.0.0.1/32:%s\n' \
		"$port" >"$H/.config/llwrap/profiles/oc-agent.ini"
	cat >"$d/opencode.json" <<JSON
{
  "\$schema": "https://opencode.ai/config.json",
  "provider": {
    "mock": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "llwrap mock",
      "options": { "baseURL": "http://127.0.0.1:$port/v1", "apiKey": "mock" },
      "models": { "mock-model": { "name": "mock", "tool_call": true } }
    }
  },
  "model": "mock/mock-model",
  "autoupdate": false,
  "share": "disabled"
}
JSON
	out=$(cd "$d" && OPENCODE_DISABLE_MODELS_FETCH=1 timeout 180 "$L" -p oc-agent -- \
		opencode run --auto -m mock/mock-model "do it" 2>&1 </dev/null)
	rc=$?
	kill $mock 2>/dev/null
	wait $mock 2>/dev/null
	show "$1"
	res=$(python3 $MOCK --results "$a/mock.jsonl" 2>&1)
	printf '%s\n' "$res" | sed -e "s/^/  $1 mock| /" | head -10
	verdict "$1" $rc
	if [ $rc -eq 125 ]; then
		:
	elif [ $rc -ne 0 ]; then
		r=failed-run$rc
	elif [ "$(printf '%s\n' "$res" | grep -c '^RESULT')" -ne 2 ]; then
		r=failed-results
	elif ! printf '%s\n' "$res" | sed -n 1p | grep -q STEP0-OK ||
		[ "$(cat "$d/made-by-agent.txt" 2>/dev/null)" != agent-wrote ]; then
		r=failed-project
	elif printf '%s\n' "$res" | sed -n 2p | grep -q OUT-SUCCEEDED; then
		r=escaped
	elif [ "$(cat "$H/outside/file")" != "$before" ]; then
		r=escaped-file
	else
		e=$(printf '%s\n' "$res" | sed -n '2s/.*OUT-DENIED \([A-Z]*\).*/\1/p')
		r=wrote-denied-${e:-unknown}
	fi
	echo "LLWCASE $1 $r"
}

c_check
c_run default-runs -p default
c_run opencode-runs -p opencode
c_run opencode-best-effort -p opencode --best-effort
c_local opencode-best-effort-local -p opencode --best-effort
c_workflow default-workflow default
c_workflow opencode-workflow opencode
c_outside default-outside default
c_outside opencode-outside opencode
c_terminal default-terminal default
c_terminal opencode-terminal opencode
c_held opencode-held
c_tmp opencode-tmp
c_agent opencode-agent
if [ "${LLW_QUICK:-}" != 1 ]; then
	c_selftest selftest-default default
	c_selftest selftest-offline offline
	c_selftest selftest-opencode opencode
fi
echo LLWDONE
