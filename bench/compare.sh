#!/bin/sh
# bench/compare.sh: llwrap's start-up in alternating runs (bench/ab.c),
# against bare /bin/true and against the floor of any wrapper: a static
# program that only execs its argument.  Not a test: it prints a Markdown
# table of medians and of median paired differences from bare /bin/true.
#
#   bench/compare.sh [BUILDDIR]        (default: the source tree)
#
# Environment: N (runs of each command, default 1000); BENCH_DIR (where
# the work directory goes, default bench/); BASE, another
# llwrap binary to compare with (a build of an older commit); AS_ROOT=1 to
# stay root (by default root runs everything as nobody, llwrap's usual
# user, through setpriv).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

# The work directory holds the 1,000-rule profile, which must not lie in
# a tree the default profile makes writable (/tmp, /var/tmp: see
# startup.sh), and nobody must reach it: by default under bench/ itself.
work=$(mktemp -d "${BENCH_DIR:-$here}/run.XXXXXX")
# Not the checkout's work tree as the project (see bench/run).
GIT_CEILING_DIRECTORIES=$work
export GIT_CEILING_DIRECTORIES
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir -p "$work/proj" "$work/tree"
cc -O2 -o "$work/ab" "$here/ab.c"
printf '#include <unistd.h>\nint main(int c, char **v) { (void)c; execv(v[1], v + 1); return 127; }\n' >"$work/wrap.c"
cc -O2 -static -o "$work/wrap" "$work/wrap.c"
# The kernel's share (bench/floor.c): the calls llwrap -p default makes,
# with the same rule paths (below: llwrap --explain lists them) and seccomp
# program, and none of llwrap's own work.
cc -O2 -static -I"$top/lib" -I"$top/src" -I"$build/src" -o "$work/floor" \
	"$here/floor.c" "$build/src/filter-programs.c"
thousand_rules "$work"
chmod -R a+rX "$work"

[ "${AS_ROOT:-0}" = 1 ] && as=
cd "$work/proj"
# The floor's rule paths: those llwrap -p default adds for this user
# (--explain's Landlock rules: 17 or so for a user; as root some 200,
# its secrets in /etc denied by a rule on every other entry there), so
# that the floor is the kernel's work of the same sandbox.
# shellcheck disable=SC2086
$as "$LLWRAP" -p default --explain -- /bin/true 2>&1 |
	sed -n '/^Landlock rules/,/^[^ ]/p' |
	sed -n 's|^  [a-z_,]* *\(/[^	]*\)	.*|\1|p' >"$work/floor.paths"
n_floor=$(wc -l <"$work/floor.paths")
[ "$n_floor" -gt 0 ] || { echo "compare.sh: no Landlock rule in llwrap --explain" >&2; exit 1; }
set -- /bin/true ::: "$work/wrap" /bin/true ::: "$work/floor"
while IFS= read -r p; do set -- "$@" "$p"; done <"$work/floor.paths"
set -- "$@" -- /bin/true \
	::: "$LLWRAP" --version \
	::: "$LLWRAP" -p default -- /bin/true
[ -n "${BASE:-}" ] && set -- "$@" ::: "$BASE" -p default -- /bin/true
set -- "$@" ::: "$LLWRAP" -p "$work/thousand.ini" -- /bin/true
[ -n "${BASE:-}" ] && set -- "$@" ::: "$BASE" -p "$work/thousand.ini" -- /bin/true
# shellcheck disable=SC2086
$as "$work/ab" "${N:-1000}" "$@" >"$work/out"

echo "| command | median (us) | p10 (us) | paired diff from bare (us) |"
echo "|---|---:|---:|---:|"
sed -e "s|$work/thousand.ini|<1000 rules>|" -e "s|$work/wrap|exec-only static wrapper|" \
	-e "s|$work/floor .* -- |kernel floor ($n_floor rules, seccomp) |" \
	-e "s|${BASE:-@none@}|BASE|" -e "s|$LLWRAP|llwrap|" "$work/out" |
	awk '{ name = $5; for (i = 6; i <= NF; i++) name = name " " $i
		printf "| %s | %d | %d | %s |\n", name, $1, $2, $3 }'
