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

# thousand_rules DIR: write DIR/thousand.ini, a profile of 1,000 ro rules
# on existing directories DIR/tree/d0 ... d999, on top of default.
thousand_rules() {
	{
		echo "[profile]"
		echo "include = default"
		echo "[filesystem]"
		i=0
		while [ $i -lt 1000 ]; do
			mkdir -p "$1/tree/d$i"
			echo "ro = $1/tree/d$i"
			i=$((i + 1))
		done
	} >"$1/thousand.ini"
}
