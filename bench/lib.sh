# bench/lib.sh: shared by the benchmark scripts (sourced, not run, after
# they set here to bench/).

# The source tree, the build directory ($1, default the source tree) and
# its llwrap, which must be built; the shipped profiles are the profile
# path.
top=$(cd "$here/.." && pwd)
build=$(cd "${1:-$top}" && pwd)
LLWRAP=$build/llwrap
export LLWRAP_PROFILE_PATH=$top/conf
[ -x "$LLWRAP" ] || { echo "no $LLWRAP: build first"; exit 1; }

# rules_profile FILE TREE N: write FILE, a profile of N ro rules on
# existing directories TREE/d0 ... d(N-1), on top of default.
rules_profile() {
	awk -v t="$2" -v n="$3" 'BEGIN { for (i = 0; i < n; i++) print t "/d" i }' >"$1.dirs"
	xargs mkdir -p <"$1.dirs"
	{
		echo "[profile]"
		echo "include = default"
		echo "[filesystem]"
		sed 's/^/ro = /' "$1.dirs"
	} >"$1"
	rm -f "$1.dirs"
}

# thousand_rules DIR: write DIR/thousand.ini, a profile of 1,000 ro rules
# on existing directories DIR/tree/d0 ... d999, on top of default.
thousand_rules() {
	rules_profile "$1/thousand.ini" "$1/tree" 1000
}
