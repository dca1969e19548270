# The llwrap source tree for package.nix, without build products, so a
# configured or built checkout gives the same derivation as a clean one
# (the store's timestamps would otherwise make stale generated files look
# up to date).
{ lib }:
let
  root = ../..;
  topLevel = [
    ".clang-format"
    "Makefile.am"
    "README.md"
    "autogen.sh"
    "build-aux"
    "conf"
    "configure.ac"
    "contrib"
    "doc"
    "lib"
    "m4"
    "src"
  ];
  generated = [
    ".deps"
    ".dirstamp"
    "Makefile"
    "Makefile.in"
    "builtin-profiles.h"
    "known-limits.h"
    "filter-gen"
    "filter-programs.c"
    # contrib/apparmor/llwrap, contrib/shell/bash/llwrap and the other
    # completions, contrib/shell/gen/: made from their .in files.
    "llwrap"
    "_llwrap"
    "llwrap.fish"
    "gen"
    "completion-gen"
  ];
in
lib.cleanSourceWith {
  src = root;
  name = "llwrap-source";
  filter =
    path: type:
    let
      rel = lib.removePrefix (toString root + "/") (toString path);
      parts = lib.splitString "/" rel;
      base = baseNameOf (toString path);
    in
    builtins.elem (builtins.head parts) topLevel
    && !(builtins.elem base generated)
    && !(lib.hasSuffix ".o" base || lib.hasSuffix ".a" base || lib.hasSuffix ".log" base)
    # build-aux and m4 are autoreconf's, but for llwrap's own scripts.
    && (builtins.head parts != "build-aux" || rel == "build-aux" || lib.hasPrefix "build-aux/embed" rel)
    && (builtins.head parts != "m4" || rel == "m4" || rel == "m4/.keep");
}
