#!/bin/sh
# Every .nix file parses (nix-instantiate --parse), and the package, the
# default.nix and the agent CLI evaluate with stub inputs: the attributes
# nixpkgs needs are there, and bubblewrap is not baked in.
. "$LLW_SRCDIR/tests/lib/libtest.sh"
. "$LLW_SRCDIR/contrib/nixos/tests/lib.sh"

have_nix || skip_rest "nix-instantiate is not installed (Debian: apt install nix-bin)"

for f in "$LLW_SRCDIR/flake.nix" $(find "$NIXOS" -name '*.nix' | sort) \
	"$LLW_SRCDIR/contrib/oci/image.nix"; do
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

# contrib/oci/image.nix (the flake's packages.image) with stubs:
# buildLayeredImage returns its arguments.
run nix_str "let i = import $LLW_SRCDIR/contrib/oci/image.nix {
	dockerTools.buildLayeredImage = a: a;
	writeTextDir = p: t: \"\${p}\";
	llwrap = { version = \"0.1.0\"; outPath = \"/llwrap\"; };
	opencode = \"opencode\"; bashInteractive = \"bash\"; coreutils = \"coreutils\";
	gnugrep = \"grep\"; gnused = \"sed\"; findutils = \"findutils\";
	diffutils = \"diffutils\"; less = \"less\"; git = \"git\";
	python3 = \"python3\"; util-linux = \"util-linux\"; procps = \"procps\";
	cacert = \"/cacert\"; }; in builtins.toJSON {
	inherit (i) name tag; inherit (i.config) User Entrypoint Cmd;
	contents = map toString i.contents; }"
expect_rc "contrib/oci/image.nix evaluates with stub inputs" 0
expect_output "... the agent's user, under llwrap -p opencode, opencode serve" \
	'"Cmd":\["opencode","serve".*"Entrypoint":\["llwrap","-p","opencode","--"\],"User":"1000:1000"'
expect_output "... llwrap and opencode in the image" '"contents":\["/llwrap","opencode"'

run nix_str "let d = import $NIXOS/default.nix { pkgs.callPackage = f: a: { called = toString f; }; }; in d.llwrap.called"
expect_output "default.nix: llwrap is callPackage ./package.nix" 'contrib/nixos/package\.nix$'

run nix_str "let c = import $NIXOS/agents/default.nix {
	lib = $stub_lib; bash = \"/bash\"; coreutils = \"/coreutils\"; gnused = \"/gnused\";
	systemd = \"/systemd\"; llwrap = \"/llwrap\"; opencode = \"/opencode\";
	runCommand = n: a: s: { inherit n s; inherit (a.meta) mainProgram; }; };
	in c.n + \" \" + c.mainProgram + \"\n\" + c.s"
expect_output "agents/default.nix: the llwrap-agent command, with llwrap and opencode fixed" '^llwrap-agent llwrap-agent'
expect_output "... llwrap's store path replaces @llwrap@" "--replace-fail '@llwrap@' '/llwrap'"

# flake.lock pins what flake.nix asks for: one node per input, each
# input's original its URL, locked to a commit and its NAR hash, so that
# every user's first build gets the nixpkgs the project was checked
# with, not that day's nixos-unstable.
run nix_str "let
	lock = builtins.fromJSON (builtins.readFile $LLW_SRCDIR/flake.lock);
	flake = import $LLW_SRCDIR/flake.nix;
	inputs = builtins.attrNames flake.inputs;
	node = i: lock.nodes.\${lock.nodes.\${lock.root}.inputs.\${i}};
	url = i: builtins.match \"github:([^/]+)/([^/]+)/(.+)\" flake.inputs.\${i}.url;
	pinned = i: let n = node i; u = url i; l = n.locked; in
		u != null
		&& n.original == { type = \"github\"; owner = builtins.elemAt u 0;
			repo = builtins.elemAt u 1; ref = builtins.elemAt u 2; }
		&& l.type == \"github\" && l.owner == n.original.owner
		&& l.repo == n.original.repo
		&& builtins.match \"[0-9a-f]{40}\" l.rev != null
		&& builtins.match \"sha256-[A-Za-z0-9+/]{43}=\" l.narHash != null
		&& builtins.isInt l.lastModified;
	in builtins.toJSON {
		version = lock.version;
		same = builtins.attrNames lock.nodes.\${lock.root}.inputs == inputs;
		pinned = builtins.all pinned inputs;
		rev = (node \"nixpkgs\").locked.rev;
	}"
expect_output "flake.lock: format version 7, the inputs of flake.nix and no other" '"same":true.*"version":7'
expect_output "... each pinned: its URL as original, a github commit and its NAR hash" '"pinned":true'
expect_output "... nixpkgs at a commit of nixos-unstable" '"rev":"[0-9a-f]{40}"'

# What the module renders is checked at evaluation (render.problems, the
# function behind its assertions; builtins only, so no nixpkgs is
# needed): each bad value named with its option, the good ones silent.
problems() { # NIX-ATTRS-FOR-INSTANCE-A
	nix_str "let r = import $NIXOS/render.nix;
		i = (import $NIXOS/tests/instances.nix { root = \"/r\"; }).a;
		in builtins.concatStringsSep \"\\n\" (r.problems (i // { $1 }))"
}
W=services.opencode.instances.a
run problems 'networkIsolation = i.networkIsolation // { outboundAllowCidrs = [ "10.10.0.0/33" "10.10.0.0/16" ]; };'
expect_output "outboundAllowCidrs 10.10.0.0/33 fails evaluation, naming the option" \
	"^$W\\.networkIsolation\\.outboundAllowCidrs: '10\\.10\\.0\\.0/33' is not an IPv4 or IPv6 CIDR"
expect_no_output "... and 10.10.0.0/16 does not" "'10\\.10\\.0\\.0/16'"
for c in '"2001:db8::/129"' '"300.1.2.3/8"' '"10.1.1/8"' '"1::2::3/64"' '"fe80::1%eth0/64"'; do
	run problems "networkIsolation = i.networkIsolation // { outboundAllowCidrs = [ $c ]; };"
	expect_output "outboundAllowCidrs $c is refused" "outboundAllowCidrs: '.*' is not an IPv4 or IPv6 CIDR"
done
run problems 'networkIsolation = i.networkIsolation // { outboundAllowCidrs = [ "2001:db8::/32" "::ffff:10.0.0.0/104" "0.0.0.0/0" "192.0.2.7" ]; dnsServers = [ "10.0.0.53" "::1" ]; };'
expect_no_output "IPv6, mapped, /0 and plain-address CIDRs and resolvers pass" "."
run problems 'networkIsolation = i.networkIsolation // { dnsServers = [ "fe80::1%eth0" ]; logRate = "10/min"; }; listen = { address = "localhost"; port = 8787; };'
expect_output "dnsServers with a zone is refused, naming the option" "^$W\\.networkIsolation\\.dnsServers: 'fe80::1%eth0' is not an IPv4 or IPv6 address"
expect_output "logRate 10/min is refused" "^$W\\.networkIsolation\\.logRate: '10/min' is not an nftables rate"
expect_output "listen.address localhost is refused" "^$W\\.listen\\.address: 'localhost' is not an IPv4 or IPv6 address"
run problems 'allowedHosts = [ "a.example.com:70000" "b.example.com:9000-8000" ];'
expect_output "allowedHosts with a port over 65535 is refused" "^$W\\.allowedHosts: 'a\\.example\\.com:70000' is not a host name"
expect_output "... and a range whose low end is above its high end" "^$W\\.allowedHosts: 'b\\.example\\.com:9000-8000' is not a host name"
run problems 'limits = { memory = "4GB"; cpuQuota = "2"; runtimeMaxSec = "8 x"; tasks = 1; }; environmentFile = "rel.env"; credentials = { "../x" = "/run/s"; good = "rel"; };'
expect_output "limits.memory 4GB is refused" "^$W\\.limits\\.memory: '4GB'"
expect_output "limits.cpuQuota 2 is refused" "^$W\\.limits\\.cpuQuota: '2'"
expect_output "limits.runtimeMaxSec '8 x' is refused" "^$W\\.limits\\.runtimeMaxSec: '8 x'"
expect_output "environmentFile relative is refused" "^$W\\.environmentFile: 'rel\\.env'"
expect_output "a credential ID with a slash is refused" "^$W\\.credentials: '\\.\\./x' is not a credential ID"
expect_output "a credential file that is not absolute is refused" "^$W\\.credentials\\.good: 'rel' is not a plain absolute path"
run problems 'limits = { memory = "50%"; cpuQuota = "200%"; runtimeMaxSec = "1h 30min"; tasks = 1; }; environmentFile = "-/run/a.env"; credentials = { anthropic = "/run/secrets/k"; };'
expect_no_output "good limits, environmentFile and credentials pass" "."

done_testing
