#!/bin/sh
# bench/startup.sh: llwrap's start-up cost, with bubblewrap's minimal
# sandbox measured in the same run for reference.  Not a test: it prints
# a markdown table of hyperfine's medians and writes it to bench/startup.md.
#
#   bench/startup.sh [BUILDDIR]      (default: the source tree)
#
# Environment: RUNS (default 300), BENCH_DIR (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/llwrap-bench); BASE, another llwrap
# binary (a build of an older commit, not installed): its -p default,
# --explain, 1,000 and 10,000 rules, offline and opencode runs are timed
# in the same run, in alternating rounds as L3 and bubblewrap are below,
# and each ratio (this build's median of round medians over BASE's) is
# printed; with BASE_ONLY=1 those rounds alone (no table, no L3 rounds).
#
# Target (issue 2): llwrap -p default -- /bin/true adds at most 0.5 ms
# median over bare /bin/true; with 1,000 path rules it stays under 5 ms.
# Target (issue 29): 10,000 path rules at most +50 ms, growth linear.
# Target (issue 29): -p opencode at most 0.7× the agent-like bubblewrap
# below, its user CPU time at most 1.0 ms.
# Target (issue 3): with L3 (mount and pid namespaces, private /tmp, 20
# binds) it stays below bubblewrap's own minimal sandbox; the two are also
# measured in short alternating rounds (ROUNDS, default 15), which a
# loaded machine disturbs less than two long sequential runs.
#
# The work directory must not be writable under the default profile:
# the 1,000-rule profile in it is a configuration file llwrap read, and
# one inside a writable tree (such as /tmp) needs a mount mask, so the run
# would fail closed with status 125.  The home directory is invisible
# under the default profile, hence ~/.cache.  For the same reason the
# source tree (whose conf/ is the profile path) must not be under /tmp.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)"; exit 1; }

base=${BENCH_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/llwrap-bench}
mkdir -p "$base"
work=$(mktemp -d "$base/run.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/proj" "$work/tree"

# 1,000 path rules on existing directories, as a profile; and 10,000
# (issue 29: at most +50 ms, growing linearly from the 1,000).
thousand_rules "$work"
rules_profile "$work/tenk.ini" "$work/tree10k" 10000

# L3: private /tmp, a pid namespace with a fresh /proc, and 20 binds: 10
# writable roots and 10 read-only masks inside the writable project.
{
	echo "[profile]"
	echo "include = default"
	echo "[filesystem]"
	echo "private-tmp = yes"
	i=0
	while [ $i -lt 10 ]; do
		mkdir -p "$work/rw/d$i" "$work/proj/m$i"
		echo "rw = $work/rw/d$i"
		echo "ro = \${PROJECT}/m$i"
		i=$((i + 1))
	done
	echo "[process]"
	echo "hide-processes = yes"
} >"$work/l3.ini"

cd "$work/proj"
# The project is a git repository, as an agent's is (-p opencode masks
# its .git/config and hooks; the agent-like bubblewrap binds .git
# read-only).
git init -q .
# Every llwrap command must succeed before it is timed: a refusal (125)
# is fast and would look like a fine result.
for p in "-p default" "-p $work/thousand.ini" "-p $work/tenk.ini" \
	"-p $work/l3.ini" "-p offline" \
	"-p opencode" "-p opencode --allow-host none"; do
	for l in "$LLWRAP" ${BASE:-}; do
		# shellcheck disable=SC2086
		"$l" $p -- /bin/true || {
			echo "$l $p -- /bin/true failed (status $?); see above"
			exit 1
		}
	done
done

runs=${RUNS:-300}
set -- \
	-n "bare /bin/true" "/bin/true" \
	-n "llwrap --version" "$LLWRAP --version" \
	-n "llwrap -p default --explain" "$LLWRAP -p default --explain -- /bin/true" \
	-n "llwrap -p default" "$LLWRAP -p default -- /bin/true" \
	-n "llwrap, 1000 path rules" "$LLWRAP -p $work/thousand.ini -- /bin/true" \
	-n "llwrap, 10000 path rules" "$LLWRAP -p $work/tenk.ini -- /bin/true" \
	-n "llwrap L3: mount+pid+ipc ns, private /tmp, 20 binds" "$LLWRAP -p $work/l3.ini -- /bin/true" \
	-n "llwrap L3: net = none (mount+net+ipc ns, lo up)" "$LLWRAP -p offline -- /bin/true" \
	-n "llwrap -p opencode" "$LLWRAP -p opencode -- /bin/true" \
	-n "llwrap -p opencode --allow-host none" "$LLWRAP -p opencode --allow-host none -- /bin/true"
bwrap_min="bwrap --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --dev /dev --unshare-all /bin/true"
# Issue 29's careful bubblewrap, kept identical to bench/run's
# bwrap-agent: read-only root, tmpfs home, /tmp, /var/tmp and /dev/shm,
# the project bound writable with its .git read-only, every namespace
# but the network's, tied to its parent, a new session.
bwrap_agent="bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs $HOME --tmpfs /tmp --tmpfs /var/tmp --tmpfs /dev/shm --bind $work/proj $work/proj --ro-bind $work/proj/.git $work/proj/.git --unshare-all --share-net --die-with-parent --new-session --chdir $work/proj /bin/true"
have_bwrap=false
if command -v bwrap >/dev/null &&
	bwrap --ro-bind / / --unshare-all /bin/true 2>/dev/null; then
	have_bwrap=true
	set -- "$@" -n "bwrap minimal" "$bwrap_min" -n "bwrap agent-like" "$bwrap_agent"
fi
# round_medians FILE...: of hyperfine's JSON files, one a round, each
# command's median of its per-round medians, and their range, in ms:
# "command<TAB>median<TAB>min<TAB>max" lines.
round_medians() {
	awk '
	/"command":/ { sub(/^[^:]*: *"/, ""); sub(/",? *$/, ""); c = $0 }
	/"median":/ { v = $2; sub(/,$/, "", v); m[c, ++k[c]] = v * 1000 }
	END {
		for (c in k) {
			n = k[c]
			for (i = 1; i <= n; i++) a[i] = m[c, i]
			for (i = 1; i <= n; i++)
				for (j = i + 1; j <= n; j++)
					if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			med = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
			printf "%s\t%.4f\t%.4f\t%.4f\n", c, med, a[1], a[n]
		}
	}' "$@"
}

if [ -z "${BASE_ONLY:-}" ]; then
hyperfine -N --warmup 20 --runs "$runs" --style basic \
	--export-json "$work/result.json" "$@" >/dev/null

# hyperfine's JSON has one field per line: pick name, median, mean,
# stddev and min of each result and print them as a table (ms).
awk '
/"command":/ {
	sub(/^[^:]*: *"/, ""); sub(/",? *$/, ""); name[++n] = $0
}
/"(mean|stddev|median|min)":/ {
	key = $1; gsub(/[":]/, "", key); v = $2; sub(/,$/, "", v)
	val[n, key] = v * 1000
}
END {
	printf "| command | median (ms) | over bare (ms) | mean ± σ (ms) | min (ms) |\n"
	printf "|---|---:|---:|---:|---:|\n"
	for (i = 1; i <= n; i++)
		printf "| %s | %.2f | %+.2f | %.2f ± %.2f | %.2f |\n", name[i],
		    val[i, "median"], val[i, "median"] - val[1, "median"],
		    val[i, "mean"], val[i, "stddev"], val[i, "min"]
}' "$work/result.json" | tee "$here/startup.md"

# Issue 29's ratio: -p opencode against the agent-like bubblewrap (target
# at most 0.7), from the medians above, with hyperfine's user CPU time
# (its mean): rusage's, which a kernel with tick-based accounting makes
# up (all of a short process's run time is "user" when no tick found it
# in the kernel): bench/cpu.sh measures it.
awk '
/"command":/ { sub(/^[^:]*: *"/, ""); sub(/",? *$/, ""); c = $0 }
/"median":/ { v = $2; sub(/,$/, "", v); med[c] = v * 1000 }
/"user":/ { v = $2; sub(/,$/, "", v); usr[c] = v * 1000 }
END {
	b = med["bwrap agent-like"]
	if (b == "") exit
	for (c in med) if (c ~ /^llwrap -p opencode/)
		printf "%s: %.2f× the agent-like bubblewrap (target ≤ 0.7×); rusage user %.2f ms (bubblewrap agent-like %.2f ms; tick-sampled: bench/cpu.sh measures it, target ≤ 1.0 ms)\n", c, med[c] / b, usr[c], usr["bwrap agent-like"]
}' "$work/result.json"

echo
printf "Peak RSS of llwrap -p default (KiB): "
/usr/bin/time -f "%M" "$LLWRAP" -p default -- /bin/true 2>&1

# L3 against bubblewrap in alternating rounds: the median of each one's
# per-round medians.
if $have_bwrap; then
	rounds=${ROUNDS:-15}
	r=0
	while [ $r -lt "$rounds" ]; do
		hyperfine -N --warmup 5 --runs 40 --style none \
			--export-json "$work/round$r.json" \
			-n "llwrap L3" "$LLWRAP -p $work/l3.ini -- /bin/true" \
			-n "bwrap minimal" "$bwrap_min" >/dev/null
		r=$((r + 1))
	done
	echo
	echo "Alternating, $rounds rounds of 40 runs (median of round medians, range):"
	round_medians "$work"/round*.json |
		awk -F '\t' '{ printf "| %s | %.2f | %.2f .. %.2f |\n", $1, $2, $3, $4 }'
fi
fi

# This build against BASE, in alternating rounds of each pair: the median
# of each one's per-round medians, and their ratio.
if [ -n "${BASE:-}" ]; then
	rounds=${ROUNDS:-15}
	r=0
	while [ $r -lt "$rounds" ]; do
		set --
		for p in "-p default --explain" "-p default" \
			"-p $work/thousand.ini" "-p $work/tenk.ini" "-p offline" \
			"-p opencode"; do
			n=$(echo "$p" | sed -e "s|$work/thousand.ini|<1000 rules>|" \
				-e "s|$work/tenk.ini|<10000 rules>|")
			set -- "$@" -n "llwrap $n" "$LLWRAP $p -- /bin/true" \
				-n "BASE $n" "$BASE $p -- /bin/true"
		done
		hyperfine -N --warmup 5 --runs 40 --style none \
			--export-json "$work/base$r.json" "$@" >/dev/null
		r=$((r + 1))
	done
	echo
	echo "This build against BASE ($BASE), $rounds alternating rounds of 40 runs:"
	echo "| command | this build (ms) | BASE (ms) | ratio |"
	echo "|---|---:|---:|---:|"
	round_medians "$work"/base*.json | awk -F '\t' '
	{ med[$1] = $2 }
	END {
		for (c in med) if (c ~ /^llwrap /) {
			b = c; sub(/^llwrap /, "BASE ", b)
			printf "| %s | %.2f | %.2f | %.3f |\n", c, med[c], med[b], med[c] / med[b]
		}
	}' | sort
fi
