# Two opencode instances, a and b, as module.nix hands them to render.nix
# (its defaults filled in), under a scratch root, for the tests.
# Instance a has the allow-lists and network isolation, b only the
# required options.
{
  root,
  uidA ? 4001,
  uidB ? 4002,
  portA ? 8787,
  portB ? 8788,
  socket ? "/run/postgresql/.s.PGSQL.5432",
  cidrs ? [ "10.10.0.0/16" ],
  dns ? [ ],
}:
let
  base = name: uid: port: {
    inherit name uid;
    directory = "${root}/srv/${name}";
    stateDir = "${root}/state/${name}";
    listen = {
      address = "127.0.0.1";
      inherit port;
    };
    sandbox = {
      readWritePaths = [ ];
      readOnlyPaths = [ ];
      unixSockets.allow = [ ];
    };
    networkIsolation = {
      enable = false;
      outboundAllowCidrs = [ ];
      dnsServers = dns;
      logRate = "10/minute";
      logBurst = 5;
    };
    allowedHosts = [ ];
    extraArgs = [ ];
    credentialsDirectory = null;
  };
in
{
  a = base "a" uidA portA // {
    sandbox = {
      readWritePaths = [ "${root}/var/lib/my-cache" ];
      readOnlyPaths = [ ];
      unixSockets.allow = [ socket ];
    };
    networkIsolation = {
      enable = true;
      outboundAllowCidrs = cidrs;
      dnsServers = dns;
      logRate = "10/minute";
      logBurst = 5;
    };
  };
  b = base "b" uidB portB // {
    allowedHosts = [ "git.example.org:22" ];
  };
}
