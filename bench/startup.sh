#!/bin/sh
# bench/startup.sh: llwrap's start-up cost, with bubblewrap's minimal
# sandbox measured in the same run for reference.  Not a test: it prints
# hyperfine's tables and writes bench/startup.md.
#
#   bench/startup.sh [BUILDDIR]      (default: the source tree)
#
# Target (issue 2): llwrap -p default -- /bin/true adds at most 0.5 ms
# median over bare /bin/true; with 1,000 path rules it stays under 5 ms.
# Target (issue 3): with L3 (mount and pid namespaces, 20 binds) it stays
# below bubblewrap's own minimal sandbox.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=${1:-$top}
LLWRAP=$build/llwrap
export LLWRAP_PROFILE_PATH=$top/conf
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)"; exit 1; }

# Not under /tmp: with private-tmp the L3 case would see its binds there
# refer to the private tmpfs and skip them.
work=$(mktemp -d "$build/.llwrap-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/proj" "$work/tree"

# 1,000 path rules on existing directories, as a profile.
{
	echo "[profile]"
	echo "include = default"
	echo "[filesystem]"
	i=0
	while [ $i -lt 1000 ]; do
		mkdir -p "$work/tree/d$i"
		echo "ro = $work/tree/d$i"
		i=$((i + 1))
	done
} >"$work/thousand.ini"

# L3 (issue 3): private /tmp, a pid namespace with a fresh /proc, and 20
# binds: 10 writable roots and 10 read-only masks inside the writable
# project.  Target: below bubblewrap's minimal sandbox in the same run.
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
runs=${RUNS:-300}
set -- \
	-n "bare /bin/true" "/bin/true" \
	-n "llwrap -p default" "$LLWRAP -p default -- /bin/true" \
	-n "llwrap, 1000 path rules" "$LLWRAP -p $work/thousand.ini -- /bin/true" \
	-n "llwrap L3 (mount+pid+ipc ns, private /tmp, 20 binds)" "$LLWRAP -p $work/l3.ini -- /bin/true" \
	-n "llwrap L3 net = none (mount+net+ipc ns, lo up)" "$LLWRAP -p offline -- /bin/true"
if command -v bwrap >/dev/null; then
	set -- "$@" -n "bwrap minimal" \
		"bwrap --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --dev /dev --unshare-all /bin/true"
fi
hyperfine -N --warmup 20 --runs "$runs" --export-markdown "$here/startup.md" \
	--export-json "$work/startup.json" "$@"

# Medians, which the machine's noise (other jobs) moves least.
echo
echo "Medians:"
python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("| %s | %.2f ms |" % (r["command"], r["median"] * 1000))
' "$work/startup.json"

# L3 against bubblewrap, interleaved: on a loaded machine the load moves
# between two long sequential runs, so both are measured in short
# alternating rounds and the median of the per-round medians is kept.
if command -v bwrap >/dev/null; then
	rounds=${ROUNDS:-15}
	r=0
	while [ $r -lt "$rounds" ]; do
		hyperfine -N --warmup 5 --runs 40 --style none \
			--export-json "$work/round$r.json" \
			-n "llwrap L3" "$LLWRAP -p $work/l3.ini -- /bin/true" \
			-n "bwrap minimal" "bwrap --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --dev /dev --unshare-all /bin/true" \
			>/dev/null
		r=$((r + 1))
	done
	echo
	echo "Interleaved, $rounds rounds of 40 runs each (median of round medians):"
	python3 -c '
import json, statistics, sys
med = {}
for f in sys.argv[1:]:
    for r in json.load(open(f))["results"]:
        med.setdefault(r["command"], []).append(r["median"] * 1000)
for c, v in med.items():
    print("| %s | %.2f ms | %.2f .. %.2f ms |" % (c, statistics.median(v), min(v), max(v)))
' "$work"/round*.json
fi

echo
echo "Peak RSS of llwrap -p default (KiB):"
/usr/bin/time -f "%M" "$LLWRAP" -p default -- /bin/true
