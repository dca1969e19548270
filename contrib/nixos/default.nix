# nix-env -f contrib/nixos -iA llwrap     (or: nix-build contrib/nixos -A llwrap)
#
# pkgs defaults to <nixpkgs>; pass your own with --arg pkgs.
{
  pkgs ? import <nixpkgs> { },
}:
let
  llwrap = pkgs.callPackage ./package.nix { };
in
{
  inherit llwrap;
  default = llwrap;
  # The NixOS module, for imports = [ (import ./contrib/nixos { }).module ];
  module = ./module.nix;
}
