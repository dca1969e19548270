#!/bin/sh
# The NixOS module under lib.evalModules (tests/eval-modules.nix): each
# scenario of seeds 000 and 001, asserted on the rendered units, profiles,
# tables and assertions.  Needs a nixpkgs lib/ directory: NIXPKGS_LIB=DIR
# (Debian has no nixpkgs; none is part of llwrap).
. "$LLW_SRCDIR/tests/lib/libtest.sh"
. "$LLW_SRCDIR/contrib/nixos/tests/lib.sh"

have_nix || skip_rest "nix-instantiate is not installed (Debian: apt install nix-bin)"
[ -n "${NIXPKGS_LIB:-}" ] ||
	skip_rest "NIXPKGS_LIB is not set: give it a nixpkgs lib/ directory (nixpkgs/lib, or nix-community/nixpkgs.lib's lib/) to run the module scenarios"
[ -f "$NIXPKGS_LIB/default.nix" ] || skip_rest "NIXPKGS_LIB=$NIXPKGS_LIB has no default.nix"

run nixi --eval --strict --json --arg lib "import $NIXPKGS_LIB" \
	"$NIXOS/tests/eval-modules.nix"
if [ "$rc" -ne 0 ]; then
	not_ok "the module evaluates under lib.evalModules"
	diag "$out"
	done_testing
	exit
fi
ok "the module evaluates under lib.evalModules"
printf '%s' "$out" | python3 -c 'import json, sys
for line in json.load(sys.stdin):
    print(line.replace("\n", " "))' >"$T/checks"
tap_checks <"$T/checks"

# The flake's outputs, as Nix calls them with its lock (flake.lock's
# nixpkgs node gives the input's source information), with nixpkgs
# stubbed by that lib and the package's callPackage: offline.
run nix_str "let
	lib = import $NIXPKGS_LIB;
	lock = builtins.fromJSON (builtins.readFile $LLW_SRCDIR/flake.lock);
	locked = lock.nodes.\${lock.nodes.\${lock.root}.inputs.nixpkgs}.locked;
	fake = n: { type = \"derivation\"; name = n; outPath = \"/nix/store/x-\" + n; };
	pkgs = { callPackage = f: a: fake (baseNameOf (toString f));
		stdenv.hostPlatform.system = \"x86_64-linux\"; };
	nixpkgs = { inherit lib; inherit (locked) rev narHash lastModified;
		legacyPackages = lib.genAttrs [ \"x86_64-linux\" \"aarch64-linux\" ] (_: pkgs); };
	flake = import $LLW_SRCDIR/flake.nix;
	self = flake.outputs { inherit self nixpkgs; };
	in builtins.toJSON {
		pkg = self.packages.x86_64-linux.llwrap.name;
		dflt = self.packages.aarch64-linux.default.name;
		module = builtins.isFunction self.nixosModules.default;
		checks = builtins.attrNames self.checks.x86_64-linux;
	}"
expect_output "flake: packages.<system>.llwrap and .default are package.nix" '"dflt":"package.nix".*"pkg":"package.nix"'
expect_output "flake: nixosModules.default and checks (llwrap, nixos)" '"checks":\["llwrap","nixos"\],"dflt".*"module":true'

done_testing
