# The agent's OCI image with Nix: llwrap, opencode and a minimal
# userland in layers (dockerTools.buildLayeredImage), run as the user
# agent (uid 1000) under llwrap's opencode profile, as the Containerfile
# beside it does from Debian's packages.
#
#   nix build .#image && docker load <result     (podman load too)
#
# Reproducible: the same flake.lock gives the same image, byte for byte
# (no timestamps: created is the epoch).
{
  dockerTools,
  writeTextDir,
  llwrap,
  opencode,
  bashInteractive,
  coreutils,
  gnugrep,
  gnused,
  findutils,
  diffutils,
  less,
  git,
  python3,
  util-linux,
  procps,
  cacert,
}:

let
  # git, ssh and opencode look the user up.
  passwd = writeTextDir "etc/passwd" ''
    root:x:0:0:root:/root:/bin/sh
    agent:x:1000:1000:agent:/home/agent:/bin/sh
    nobody:x:65534:65534:nobody:/nonexistent:/bin/false
  '';
  group = writeTextDir "etc/group" ''
    root:x:0:
    agent:x:1000:
    nobody:x:65534:
  '';
in
dockerTools.buildLayeredImage {
  name = "llwrap-opencode";
  tag = llwrap.version;
  contents = [
    llwrap
    opencode
    bashInteractive
    coreutils
    gnugrep
    gnused
    findutils
    diffutils
    less
    git
    python3
    util-linux
    procps
    cacert
    passwd
    group
  ];
  # HOME, the workspace and /tmp writable where no volume is mounted (a
  # read-only root gets volumes there instead); bash gives /bin/sh.
  fakeRootCommands = ''
    mkdir -p home/agent workspace tmp
    chown 1000:1000 home/agent workspace
    chmod 0700 home/agent
    chmod 1777 tmp
  '';
  config = {
    User = "1000:1000";
    # llwrap's project: the workspace, never the home directory.
    WorkingDir = "/workspace";
    Env = [
      "HOME=/home/agent"
      "PATH=/bin"
      "SSL_CERT_FILE=${cacert}/etc/ssl/certs/ca-bundle.crt"
    ];
    Entrypoint = [
      "llwrap"
      "-p"
      "opencode"
      "--"
    ];
    Cmd = [
      "opencode"
      "serve"
      "--hostname"
      "127.0.0.1"
      "--port"
      "4096"
    ];
  };
}
