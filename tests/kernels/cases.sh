#!/bin/sh
# The case table of the kernel matrix, run as root inside the VM
# (tests/kernels/init.sh); every sandboxed command runs as the
# unprivileged user llw (uid 1000).  Each case prints one line
#	LLWCASE NAME RESULT
# with RESULT one of: ok, ran, refused, pass, escaped, succeeded, denied,
# or exitN / other for anything unexpected; the host compares them with
# tests/kernels/expected.  The output of each command follows, indented,
# for the log.
B=/llw/bin
L=$B/llwrap
HOME_DIR=/home/llw
PROJ=$HOME_DIR/proj

echo "LLWKERNEL $(uname -r)"
for f in /proc/sys/kernel/yama/ptrace_scope /proc/sys/user/max_user_namespaces \
	/proc/sys/kernel/unprivileged_userns_clone /sys/kernel/security/lsm; do
	[ -r "$f" ] && echo "LLWFACT $f $(cat "$f")"
done

# Fixtures: a git project, a file outside every writable root, a host
# process, two loopback listeners (8001 allowed by the cases, 8002 not).
mkdir -p "$PROJ" /srv/outside
echo data >"$PROJ/file"
echo data >/srv/outside/file
chmod 666 /srv/outside/file
git init -q "$PROJ"
chown -R 1000:1000 "$HOME_DIR"
sleep 1000 &
host_pid=$!
"$B/probe" tcp-serve 127.0.0.1 8001 100 >/dev/null 2>&1 &
"$B/probe" tcp-serve 127.0.0.1 8002 100 >/dev/null 2>&1 &
sleep 1

as_llw() {
	(cd "$PROJ" && setpriv --reuid=1000 --regid=1000 --clear-groups \
		--inh-caps=-all --bounding-set=-all -- env -i HOME="$HOME_DIR" \
		USER=llw LOGNAME=llw PATH=/usr/bin:/bin TERM=dumb LANG=C.UTF-8 \
		LLWRAP_PROFILE_PATH=/llw/profiles "$@")
}

show() {
	printf '%s\n' "$out" | sed -e "s/^/  $1| /" | head -60
}

# check NAME: llwrap --check exits 0.
c_check() {
	out=$(as_llw "$L" --check 2>&1)
	rc=$?
	show check
	[ $rc -eq 0 ] && r=ok || r=exit$rc
	echo "LLWCASE check $r"
}

# c_run NAME ARGS...: the command ran (0) or was refused (125).
c_run() {
	name=$1
	shift
	out=$(as_llw "$L" --rx "$B" "$@" 2>&1)
	rc=$?
	show "$name"
	case $rc in
	0) r=ran ;;
	125) r=refused ;;
	*) r=exit$rc ;;
	esac
	echo "LLWCASE $name $r"
}

# c_probe NAME ARGS...: the probe's operation succeeded or was denied, or
# llwrap refused to run it.
c_probe() {
	name=$1
	shift
	out=$(as_llw "$L" --rx "$B" "$@" 2>&1)
	rc=$?
	show "$name"
	case "$rc:$out" in
	0:*SUCCEEDED*) r=succeeded ;;
	1:*DENIED*) r=denied ;;
	125:*) r=refused ;;
	*) r=exit$rc ;;
	esac
	echo "LLWCASE $name $r"
}

# c_selftest NAME PROFILE: --selftest passes (0), finds escapes (1) or is
# refused (125).
c_selftest() {
	out=$(as_llw "$L" -p "$2" --selftest 2>&1)
	rc=$?
	show "$1"
	case $rc in
	0) r=pass ;;
	1) r=escaped ;;
	125) r=refused ;;
	*) r=exit$rc ;;
	esac
	echo "LLWCASE $1 $r"
}

c_check
echo "LLWABI $(printf '%s\n' "$out" | sed -n 's/^Landlock: *Landlock ABI \([0-9]*\).*/\1/p' | head -1 | grep . || echo 0)"
out=$(as_llw "$L" -p default --explain -- true 2>&1)
show explain-default
c_run default-runs -p default -- true
c_run opencode-runs -p opencode -- true
c_run offline-runs -p offline -- true
c_run opencode-best-effort -p opencode --best-effort -- true
c_probe tcp-allowed -p default --connect-tcp 8001 -- "$B/probe" tcp-connect 127.0.0.1 8001
c_probe tcp-denied -p default --connect-tcp 8001 -- "$B/probe" tcp-connect 127.0.0.1 8002
c_probe tcp-cidr -p default --allow-cidr 127.0.0.1/32:8001 -- "$B/probe" tcp-connect 127.0.0.1 8001
c_probe tcp-none -p default -- "$B/probe" tcp-connect 127.0.0.1 8001
c_probe truncate-outside -p default --ro /srv/outside -- "$B/probe" truncate /srv/outside/file
c_probe truncate-project -p default -- "$B/probe" truncate "$PROJ/file"
c_probe signal-host -p default -- "$B/probe" kill "$host_pid" 0
if [ "${LLW_QUICK:-}" != 1 ]; then
	c_selftest selftest-default default
	c_selftest selftest-offline offline
	c_selftest selftest-opencode opencode
fi
kill "$host_pid" 2>/dev/null
