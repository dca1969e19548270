#!/bin/sh
# bench/protect.sh [BUILD-DIR]: the start-up cost of the opencode
# profile's protections of files run later (issue 17: protect-git and
# protect-later-run: their L3 masks and pins, the scan of .git, the
# monitor's inotify watch and its holder), paired against the same
# profile with both off, in a git repository, as nobody when run as root.
# bench/ab.c alternates the two, N runs each (default 300), ROUNDS times
# (default 3), and prints each round's paired median difference (wall
# and CPU).  Target (issue 17): at most 0.2 ms at the median.  Not a
# test: no timed assertion.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
N=${N:-300}
ROUNDS=${ROUNDS:-3}
bench_home
cc -O2 -o "$work/ab" "$here/ab.c"
mkdir -p "$HOME/proj"
git init -q "$HOME/proj"
git -C "$HOME/proj" -c user.name=b -c user.email=b@b.invalid commit -q --allow-empty -m b
cat >"$work/off.ini" <<'INI'
[profile]
include = opencode
[filesystem]
protect-git = no
protect-later-run = no
INI
chmod 644 "$work/off.ini"
[ -n "$as" ] && chown -R nobody: "$HOME"
cd "$HOME/proj"
for p in opencode "$work/off.ini"; do
	$as "$LLWRAP" -p "$p" -q -- /bin/true || {
		echo "llwrap -p $p -- /bin/true failed"
		exit 1
	}
done
echo "| round | with (ms) | without (ms) | paired difference, wall (ms) | CPU (ms) |"
echo "|---|---|---|---|---|"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	# shellcheck disable=SC2086
	AB_CPU=1 $as "$work/ab" "$N" "$LLWRAP" -p opencode -q -- /bin/true \
		::: "$LLWRAP" -p "$work/off.ini" -q -- /bin/true >"$work/ab.out"
	awk -v r="$r" 'NR == 1 { w = $1 } NR == 2 {
		printf "| %d | %.2f | %.2f | %.2f | %.2f |\n", r, w / 1000, $1 / 1000, -$3 / 1000, -$6 / 1000 }' "$work/ab.out"
	r=$((r + 1))
done
