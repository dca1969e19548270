#!/bin/sh
# The last test of make check (Makefile.am makes it wait for every other
# test): no test left a process behind.  A process is the suite's when it
# runs this build's llwrap, its helpers or its escape corpus, names a
# test's scratch directory or works in one (a sandboxed command runs in
# the test's project, and llwrap's exec leaves no other trace); it is
# this run's when it started after the make that runs the suite.  This run's leftovers fail the test; an
# earlier run's (an interrupted make check) are named.  Both are killed
# once named, so that the next run starts clean.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

# The start time of PID in clock ticks since boot (field 22 of its stat;
# the command name, field 2, may hold blanks and parentheses).
start_of() {
	sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $20 }'
}
ppid_of() {
	sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $2 }'
}

# This test's ancestors (never leftovers), and the oldest make among them,
# whose start is the run's.
ancestors=" $$ "
run_start=0
p=$$
while [ -n "$p" ] && [ "$p" -gt 1 ]; do
	p=$(ppid_of "$p")
	[ -n "$p" ] || break
	ancestors="$ancestors$p "
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = make ] && run_start=$(start_of "$p")
done

# suite_procs: "PID ARGS" of the suite's processes but this test's own.
suite_procs() {
	_ps=$(ps -eo pid=,args=)
	printf '%s\n' "$_ps" | while read -r _pid _args; do
		case "$ancestors" in *" $_pid "*) continue ;; esac
		_cwd=$(readlink "/proc/$_pid/cwd" 2>/dev/null)
		_exe=$(readlink "/proc/$_pid/exe" 2>/dev/null)
		case "$_args $_cwd" in *"$T"*) continue ;; esac
		case "$_args|$_cwd|$_exe" in
		*"$scratch/run."* | *"$LLWRAP "* | *"$LLWRAP|"* | \
			*"$LLW_BUILDDIR/llwrap"* | *"$LLW_HELPERS/"* | \
			*"$LLW_BUILDDIR/tests/helpers/"*)
			echo "$_pid $_args" ;;
		esac
	done
}

# A process a test stopped may take a moment to go: wait for them (at
# most 10 s) before naming any.
i=0
while [ -n "$(suite_procs)" ] && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
left=$(suite_procs)
mine= earlier=
while read -r pid args; do
	[ -n "$pid" ] || continue
	s=$(start_of "$pid")
	[ -n "$s" ] || continue
	if [ "$s" -ge "$run_start" ]; then
		mine="$mine$pid $args
"
	else
		earlier="$earlier$pid $args
"
	fi
done <<EOF
$left
EOF

if [ -z "$mine" ]; then
	ok "no test of this run left a process behind"
else
	not_ok "no test of this run left a process behind"
	printf '%s' "$mine" | sed 's/^/# left: /'
fi
[ -n "$earlier" ] && printf '%s' "$earlier" | sed 's/^/# left by an earlier run (killed now): /'
for pid in $(printf '%s%s' "$mine" "$earlier" | awk '{ print $1 }'); do
	kill -9 "$pid" 2>/dev/null
done

done_testing
