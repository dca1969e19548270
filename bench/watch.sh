#!/bin/sh
# bench/watch.sh [BUILD-DIR]: the cost of inotify mediation (DESIGN.md
# §11, watching): under the supervisor each inotify_add_watch goes to
# the supervisor and its judge.  A recursive watch of a tree of DIRS
# directories (default 10,100, issue 29's figure) in the project, as a
# file watcher adds it (tests/helpers/probe watch-tree), timed by
# hyperfine:
#   bare        no sandbox
#   nosup       llwrap -p opencode --allow-host none with supervise = no:
#               the same view and rules, no supervisor (no mediation);
#               supervise = no alone keeps it (allow-host needs it)
#   opencode    llwrap -p opencode: under L3 the sealed view decides each
#               watch (the kernel, no notification); without user
#               namespaces (or as root, whose /etc is not sealed) the
#               supervisor's judge does
#   bwrap       llwrap -p opencode --backend bwrap: the supervisor beside
#               bubblewrap, whose view alone decides a watch (the kernel
#               adds it, no notification); left out where bubblewrap
#               cannot run
# and the same three with one watch, whose difference is start-up.
# Issue 29's target: opencode at most 1.5× bare on the tree.  The cost
# per watch is ((opencode - nosup) on the tree - (opencode - nosup) on
# one watch) / DIRS.  As root the sandboxes run as nobody (setpriv).
# Environment: DIRS, RUNS (default 10).  Prints a Markdown table;
# bench/RESULTS.md keeps one run.  Not a test: no timed assertion.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)"; exit 1; }
PROBE=$build/tests/helpers/probe
[ -x "$PROBE" ] || { echo "no $PROBE: make check builds it (or make tests/helpers/probe)"; exit 1; }
DIRS=${DIRS:-10100}
RUNS=${RUNS:-10}

bench_home
mkdir -p "$HOME/proj/tree" "$work/bin"
cp "$PROBE" "$work/bin/probe"
nosup_profile "$work/nosup.ini"
# DIRS directories, 50 to a parent.
awk -v n="$DIRS" -v t="$HOME/proj/tree" \
	'BEGIN { for (i = 1; i < n; i++) print t "/p" int(i / 50) "/d" i }' |
	xargs mkdir -p
total=$(find "$HOME/proj/tree" -type d | wc -l)
[ -n "$as" ] && chown -R nobody: "$HOME" "$work/nosup.ini"
chmod 644 "$work/nosup.ini"
nosup="-p $work/nosup.ini --allow-host none"
cd "$HOME/proj"

lw="$as $LLWRAP --rx $work/bin"
bwrap="-p opencode --backend bwrap"
runs="-p opencode|$nosup"
# shellcheck disable=SC2086
if $lw $bwrap -q -- /bin/true >/dev/null 2>&1; then
	runs="$runs|$bwrap"
else
	bwrap=
fi
IFS='|'
# shellcheck disable=SC2086
set -- $runs
unset IFS
for p in "$@"; do
	# shellcheck disable=SC2086
	out=$($lw $p -q -- "$work/bin/probe" watch-tree "$HOME/proj/tree") || {
		echo "llwrap $p: $out"
		exit 1
	}
	case $out in
	*"watches=$total"*) ;;
	*) echo "llwrap $p: $out (wanted $total watches)"; exit 1 ;;
	esac
done

set -- -n "bare, tree" "$as $work/bin/probe watch-tree $HOME/proj/tree" \
	-n "nosup, tree" "$lw $nosup -q -- $work/bin/probe watch-tree $HOME/proj/tree" \
	-n "opencode, tree" "$lw -p opencode -q -- $work/bin/probe watch-tree $HOME/proj/tree" \
	-n "bare, one" "$as $work/bin/probe watch $HOME/proj -" \
	-n "nosup, one" "$lw $nosup -q -- $work/bin/probe watch $HOME/proj -" \
	-n "opencode, one" "$lw -p opencode -q -- $work/bin/probe watch $HOME/proj -"
[ -n "$bwrap" ] && set -- "$@" \
	-n "bwrap, tree" "$lw $bwrap -q -- $work/bin/probe watch-tree $HOME/proj/tree" \
	-n "bwrap, one" "$lw $bwrap -q -- $work/bin/probe watch $HOME/proj -"
hyperfine -N --warmup 3 --runs "$RUNS" --style none --export-json "$work/h.json" \
	"$@" >/dev/null

python3 - "$work/h.json" "$total" <<'PY'
import json, sys
r = {x["command"]: x["median"] * 1000 for x in json.load(open(sys.argv[1]))["results"]}
n = int(sys.argv[2])
print("| run | %d watches (ms) | one watch (ms) |" % n)
print("|---|---|---|")
for k in ("bare", "nosup", "opencode", "bwrap"):
    if k + ", tree" in r:
        print("| %s | %.1f | %.2f |" % (k, r[k + ", tree"], r[k + ", one"]))
per = ((r["opencode, tree"] - r["nosup, tree"]) - (r["opencode, one"] - r["nosup, one"])) / (n - 1)
print()
print("-p opencode, %d watches: %.2f× bare (target ≤ 1.5×; without the supervisor %.2f×); "
      "a watch costs %.1f us over one without the supervisor." %
      (n, r["opencode, tree"] / r["bare, tree"], r["nosup, tree"] / r["bare, tree"], per * 1000))
if "bwrap, tree" in r:
    print("-p opencode --backend bwrap (the view decides, no notification): %.2f× bare." %
          (r["bwrap, tree"] / r["bare, tree"]))
PY
