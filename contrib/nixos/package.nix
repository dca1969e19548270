# llwrap, callPackage style: pkgs.callPackage ./package.nix { }.
#
# bubblewrap, for the fallback backend, is not an input: llwrap looks it
# up when it runs (/usr/bin/bwrap, /run/wrappers/bin/bwrap, then PATH),
# so no store path of it is baked in and NixOS's setuid wrapper is used
# where one exists.
{
  lib,
  stdenv,
  autoreconfHook,
  pkg-config,
  libseccomp,
  inih,
  libnl,
  libcap_ng,
  src ? import ./source.nix { inherit lib; },
  version ? "0.1.0",
}:

stdenv.mkDerivation {
  pname = "llwrap";
  inherit version src;

  strictDeps = true;
  nativeBuildInputs = [
    autoreconfHook
    pkg-config
  ];
  buildInputs = [
    libseccomp
    inih
    libnl
    libcap_ng
  ];

  configureFlags = [
    # Profiles the administrator adds: /etc/llwrap/profiles, not the store.
    "--sysconfdir=/etc"
    # The test suite needs cmocka and runs sandboxes; it is run by the
    # project's CI, not in the build sandbox.
    "--disable-tests"
    # Nixpkgs' glibc has no libc.a by default.
    "--disable-static-pie"
    "--disable-static-deps"
    # NixOS generates /etc/apparmor.d from its configuration: the profile
    # stays in share/llwrap/apparmor, which module.nix includes.
    "--with-apparmordir=no"
  ];
  installFlags = [ "sysconfdir=${placeholder "out"}/etc" ];

  enableParallelBuilding = true;

  meta = {
    description = "Unprivileged self-sandboxing wrapper for AI coding agents (Landlock, seccomp, namespaces)";
    longDescription = ''
      llwrap runs a command, typically the opencode agent, inside a sandbox
      the command cannot widen, without privileges: Landlock, seccomp,
      unprivileged namespaces and a seccomp user-notification network
      supervisor, configured by INI profiles.
    '';
    mainProgram = "llwrap";
    platforms = lib.platforms.linux;
  };
}
