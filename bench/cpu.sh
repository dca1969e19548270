#!/bin/sh
# bench/cpu.sh: the CPU time of one run of llwrap, measured so that the
# figure means what it says; bubblewrap's agent-like sandbox (startup.sh's)
# in the same run for reference.  Not a test: it prints a markdown table.
#
#   bench/cpu.sh [BUILDDIR]          (default: the source tree)
#
# Environment: RUNS (default 200), ROUNDS (default 3), BENCH_DIR (as
# startup.sh), BASE (another llwrap binary, measured the same way; it
# reads the profiles of this tree's conf/).
#
# Why not rusage (hyperfine's "User", wait4, /usr/bin/time): on a kernel
# with tick-based CPU accounting (CONFIG_TICK_CPU_ACCOUNTING, no
# VIRT_CPU_ACCOUNTING_GEN: this VM's) a process's user and system times
# are its exact run time split in the proportion of the timer ticks that
# found it in either mode (cputime_adjust); a process that got no system
# tick has ALL its run time called user time.  llwrap's run is a few short
# processes, most of them too short for a tick, so rusage called ~4 ms of
# a -p opencode run "user" where ~1.3 ms was.
#
# What is measured instead, for all the processes of a run together:
#   total  the exact run time (user and system), from the scheduler's
#          clock: perf stat's task-clock, inherited by every child, the
#          mean of RUNS runs (perf stat -r);
#   user   the share of it in user mode, sampled: perf record of
#          cpu-clock:u, a sample every 50 µs of a process's run time (a
#          timer: no PMU needed), kept when it interrupted user mode;
#          samples × 50 µs / RUNS, split by process name (llwrap's own
#          processes, llwrap, llwrap-hold and llwrap-dns, or bwrap; the
#          command, /bin/true: true), the loop's shell left out.  About
#          30 samples a run: the sampling's error is a few per cent; a
#          busy machine's is larger (see ROUNDS below).
# perf needs perf_event_paranoid <= 2 (user-mode events of one's own
# processes), the default; no root.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
command -v perf >/dev/null || { echo "needs perf (apt-get install linux-perf)"; exit 1; }

base=${BENCH_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/llwrap-bench}
mkdir -p "$base"
work=$(mktemp -d "$base/cpu.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/proj"
cd "$work/proj"
git init -q .
runs=${RUNS:-200}
period=50000 # ns of a process's run time between two samples

bwrap_agent="bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs $HOME --tmpfs /tmp --tmpfs /var/tmp --tmpfs /dev/shm --bind $work/proj $work/proj --ro-bind $work/proj/.git $work/proj/.git --unshare-all --share-net --die-with-parent --new-session --chdir $work/proj /bin/true"

# measure NAME CMD: one round of CMD (a command line, split by the
# shell), which must succeed: "NAME<TAB>total<TAB>own<TAB>cmd" (ms a
# run) to $work/rounds.
measure() {
	name=$1 cmd=$2
	# shellcheck disable=SC2086
	$cmd 2>"$work/err" || {
		echo "$cmd failed (status $?):"
		cat "$work/err"
		exit 1
	}
	# shellcheck disable=SC2086
	total=$(perf stat -x, -r "$runs" -e task-clock:u $cmd 2>&1 >/dev/null |
		awk -F, '$3 ~ /^task-clock/ { print $1 }')
	# shellcheck disable=SC2016
	perf record -q -e cpu-clock:u -c $period -o "$work/perf.data" -- \
		sh -c 'i=0; while [ $i -lt "$1" ]; do $2 || exit; i=$((i + 1)); done' \
		sh "$runs" "$cmd" >/dev/null 2>&1
	perf script -i "$work/perf.data" -F comm 2>/dev/null | awk \
		-v name="$name" -v total="$total" -v runs="$runs" -v p="$period" '
	{ c = $1; if (c ~ /^llwrap/ || c == "bwrap") own++
	  else if (c == "true") cmd++ }
	END {
		ms = p / 1e6 / runs
		printf "%s\t%.4f\t%.4f\t%.4f\n", name, total, own * ms, cmd * ms
	}' >>"$work/rounds"
}

# The rows, in rounds (ROUNDS, default 3): a busy machine (another
# process's, or the hypervisor's, time taken from a run counts as the
# run's) disturbs each row of a round alike; the table has each row's
# median over the rounds.
rounds=${ROUNDS:-3}
have_bwrap=false
command -v bwrap >/dev/null &&
	bwrap --ro-bind / / --unshare-all /bin/true 2>/dev/null && have_bwrap=true
r=0
while [ $r -lt "$rounds" ]; do
	measure "bare /bin/true" /bin/true
	measure "llwrap -p default" "$LLWRAP -p default -- /bin/true"
	measure "llwrap -p opencode" "$LLWRAP -p opencode -- /bin/true"
	if [ -n "${BASE:-}" ]; then
		measure "BASE -p default" "$BASE -p default -- /bin/true"
		measure "BASE -p opencode" "$BASE -p opencode -- /bin/true"
	fi
	$have_bwrap && measure "bwrap agent-like" "$bwrap_agent"
	r=$((r + 1))
done

echo "CPU time of one run (ms; $rounds rounds of $runs runs, the median round): total, the scheduler's run time of all the run's processes; user, their sampled user-mode time"
echo
echo "| command | total | user: llwrap's (bwrap's) | user: /bin/true |"
echo "|---|---:|---:|---:|"
awk -F '\t' '
function med(k, n,   i, j, t, a) {
	for (i = 1; i <= n; i++) a[i] = v[k, i]
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	if (!($1 in n)) order[++rows] = $1
	k = ++n[$1]
	v[$1 "\t1", k] = $2; v[$1 "\t2", k] = $3; v[$1 "\t3", k] = $4
}
END {
	for (i = 1; i <= rows; i++) {
		c = order[i]
		printf "| %s | %.2f | %.2f | %.2f |\n", c, med(c "\t1", n[c]),
		    med(c "\t2", n[c]), med(c "\t3", n[c])
	}
}' "$work/rounds"
echo
echo "Target (issue 29): llwrap -p opencode's own user time at most 1.0 ms."
