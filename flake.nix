{
  # llwrap: the package, the NixOS module (services.opencode) and checks.
  #   nix build .#llwrap        nix profile install .#llwrap
  #   nix build .#image         the agent's OCI image (contrib/oci)
  #   nixosModules.default      (imports = [ llwrap.nixosModules.default ];)
  #   nix flake check           (builds the package; the runNixOSTest with KVM)
  # See contrib/nixos/README.md.
  description = "llwrap: unprivileged self-sandboxing for AI coding agents, with a NixOS module";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  outputs =
    { self, nixpkgs }:
    let
      systems = [
        "x86_64-linux"
        "aarch64-linux"
      ];
      forAll = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
    in
    {
      packages = forAll (pkgs: rec {
        llwrap = pkgs.callPackage ./contrib/nixos/package.nix { };
        default = llwrap;
        # The agent's OCI image (contrib/oci): nix build .#image.
        image = pkgs.callPackage ./contrib/oci/image.nix { inherit llwrap; };
      });

      nixosModules.default =
        { pkgs, ... }:
        {
          imports = [ ./contrib/nixos/module.nix ];
          services.opencode.llwrapPackage = nixpkgs.lib.mkDefault self.packages.${pkgs.stdenv.hostPlatform.system}.llwrap;
        };

      checks = forAll (pkgs: {
        llwrap = self.packages.${pkgs.stdenv.hostPlatform.system}.llwrap;
        nixos = import ./contrib/nixos/tests/nixos-test.nix {
          inherit pkgs;
          module = self.nixosModules.default;
        };
      });
    };
}
