#!/bin/sh
# Every .nix file parses (nix-instantiate --parse), and the package, the
# default.nix and the agent CLI evaluate with stub inputs: the attributes
# nixpkgs needs are there, and bubblewrap is not baked in.
. "$LLW_SRCDIR/tests/lib/libtest.sh"
. "$LLW_SRCDIR/contrib/nixos/tests/lib.sh"

have_nix || skip_rest "nix-instantiate is not installed (Debian: apt install nix-bin)"

for f in "$LLW_SRCDIR/flake.nix" $(find "$NIXOS" -name '*.nix' | sort); do
	run nixi --parse "$f"
	if [ "$rc" -eq 0 ]; then
		ok "parses: ${f#"$LLW_SRCDIR"/}"
	else
		not_ok "parses: ${f#"$LLW_SRCDIR"/}"
		diag "$out"
	fi
done

# package.nix with stubs for what callPackage would pass: mkDerivation
# returns its arguments, so they can be inspected.
stub_lib='{ platforms.linux = [ "x86_64-linux" "aarch64-linux" ]; }'
pkg="import $NIXOS/package.nix {
	lib = $stub_lib;
	stdenv.mkDerivation = a: a;
	autoreconfHook = \"autoreconfHook\"; pkg-config = \"pkg-config\";
	libseccomp = \"libseccomp\"; inih = \"inih\"; libnl = \"libnl\";
	libcap_ng = \"libcap_ng\"; src = \"/src\"; }"
run nix_str "let p = $pkg; in builtins.toJSON {
	inherit (p) pname strictDeps nativeBuildInputs buildInputs configureFlags;
	inherit (p.meta) mainProgram platforms; }"
if [ "$rc" -eq 0 ]; then
	ok "package.nix evaluates with stub inputs"
else
	not_ok "package.nix evaluates with stub inputs"
	diag "$out"
fi
expect_output "... pname llwrap, meta.mainProgram llwrap" '"mainProgram":"llwrap".*"pname":"llwrap"'
expect_output "... strictDeps" '"strictDeps":true'
expect_output "... autoreconfHook and pkg-config are native inputs" '"nativeBuildInputs":\["autoreconfHook","pkg-config"\]'
expect_output "... libseccomp inih libnl libcap_ng are the build inputs" '"buildInputs":\["libseccomp","inih","libnl","libcap_ng"\]'
expect_output "... meta.platforms is Linux" '"platforms":\["x86_64-linux","aarch64-linux"\]'
expect_output "... administrator profiles in /etc/llwrap/profiles" '"--sysconfdir=/etc"'
run nix_str "builtins.toJSON ($pkg)"
expect_no_output "... bubblewrap is not an input (looked up at run time)" 'bwrap|bubblewrap'

run nix_str "let d = import $NIXOS/default.nix { pkgs.callPackage = f: a: { called = toString f; }; }; in d.llwrap.called"
expect_output "default.nix: llwrap is callPackage ./package.nix" 'contrib/nixos/package\.nix$'

run nix_str "let c = import $NIXOS/agents/default.nix {
	lib = $stub_lib; bash = \"/bash\"; coreutils = \"/coreutils\"; gnused = \"/gnused\";
	systemd = \"/systemd\"; llwrap = \"/llwrap\"; opencode = \"/opencode\";
	runCommand = n: a: s: { inherit n s; inherit (a.meta) mainProgram; }; };
	in c.n + \" \" + c.mainProgram + \"\n\" + c.s"
expect_output "agents/default.nix: the llwrap-agent command, with llwrap and opencode fixed" '^llwrap-agent llwrap-agent'
expect_output "... llwrap's store path replaces @llwrap@" "--replace-fail '@llwrap@' '/llwrap'"

done_testing
