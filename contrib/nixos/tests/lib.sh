# lib.sh: sourced by contrib/nixos/tests/*.sh, after tests/lib/libtest.sh
# (TAP, the scratch directory $T, as_user).
#
# Nix runs without a daemon and without a store: nix-instantiate
# --store dummy:// parses and evaluates (nothing is built), with its
# state, configuration and cache inside the scratch directory.

NIXOS=$LLW_SRCDIR/contrib/nixos

have_nix() {
	command -v nix-instantiate >/dev/null 2>&1
}

nixi() {
	mkdir -p "$T/nix/home" "$T/nix/conf"
	env NIX_STATE_DIR="$T/nix/state" NIX_LOG_DIR="$T/nix/log" \
		NIX_CONF_DIR="$T/nix/conf" XDG_CACHE_HOME="$T/nix/cache" \
		XDG_CONFIG_HOME="$T/nix/home" HOME="$T/nix/home" NIX_PATH= \
		nix-instantiate --store dummy:// "$@"
}

# nix_str EXPR: evaluate the Nix expression EXPR to a string and print it
# as it is.
nix_str() {
	nixi --eval --strict --json -E "$1" |
		python3 -c 'import json, sys; sys.stdout.write(json.load(sys.stdin))'
}

# The fixture instances (tests/instances.nix) under the root $1, with
# more arguments as a Nix attribute set body in $2.
fixture() {
	printf 'import %s/tests/instances.nix { root = "%s"; %s }' "$NIXOS" "$1" "${2:-}"
}

# render WHAT INSTANCE ROOT [ARGS]: render.nix's WHAT (profile,
# nftRuleset) of a fixture instance.
render() {
	nix_str "let r = import $NIXOS/render.nix; i = ($(fixture "$3" "${4:-}")).$2; in r.$1 i"
}

# tap_checks: read "ok|fail NAME [DETAIL]" lines (from a Nix evaluation)
# and report each as a TAP line.
tap_checks() {
	while IFS= read -r line; do
		case "$line" in
		"ok "*) ok "${line#ok }" ;;
		"fail "*) not_ok "${line#fail }" ;;
		*) diag "$line" ;;
		esac
	done
}
