#!/bin/sh
# bench/startup.sh: llwrap's start-up cost, with bubblewrap's minimal
# sandbox measured in the same run for reference.  Not a test: it prints
# hyperfine's tables and writes bench/startup.md.
#
#   bench/startup.sh [BUILDDIR]      (default: the source tree)
#
# Target (issue 2): llwrap -p default -- /bin/true adds at most 0.5 ms
# median over bare /bin/true; with 1,000 path rules it stays under 5 ms.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=${1:-$top}
LLWRAP=$build/llwrap
export LLWRAP_PROFILE_PATH=$top/conf
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/llwrap-bench.XXXXXX")
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

cd "$work/proj"
runs=${RUNS:-300}
set -- \
	-n "bare /bin/true" "/bin/true" \
	-n "llwrap -p default" "$LLWRAP -p default -- /bin/true" \
	-n "llwrap, 1000 path rules" "$LLWRAP -p $work/thousand.ini -- /bin/true"
if command -v bwrap >/dev/null; then
	set -- "$@" -n "bwrap minimal" \
		"bwrap --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --dev /dev --unshare-all /bin/true"
fi
hyperfine -N --warmup 20 --runs "$runs" --export-markdown "$here/startup.md" "$@"

echo
echo "Peak RSS of llwrap -p default (KiB):"
/usr/bin/time -f "%M" "$LLWRAP" -p default -- /bin/true
