# The module under lib.evalModules with minimal stubs of the NixOS
# options it sets or reads, and the scenarios of seeds 000 and 001
# asserted on what it renders (units, profiles, tables, assertions).
#
#   nix-instantiate --eval --strict --json \
#     --arg lib 'import /path/to/nixpkgs/lib' contrib/nixos/tests/eval-modules.nix
#
# gives a list of "ok NAME" / "fail NAME: DETAIL" lines.  Needs a nixpkgs
# lib/ (NIXPKGS_LIB for modules.sh); nothing of it is part of llwrap.
{ lib }:
let
  inherit (lib) mkOption types;

  fakeDrv = name: {
    type = "derivation";
    inherit name;
    outPath = "/nix/store/00000000000000000000000000000000-${name}";
  };
  pkgs = {
    opencode = fakeDrv "opencode";
    apparmor-parser = fakeDrv "apparmor-parser-4.0.3";
    callPackage = fn: _: fakeDrv (baseNameOf (toString fn));
  };

  anyAttrs = mkOption {
    type = types.attrsOf types.anything;
    default = { };
  };
  stubs = {
    options = {
      assertions = mkOption {
        type = types.listOf types.unspecified;
        default = [ ];
      };
      warnings = mkOption {
        type = types.listOf types.str;
        default = [ ];
      };
      users.users = anyAttrs;
      users.groups = anyAttrs;
      systemd.services = anyAttrs;
      systemd.tmpfiles.rules = mkOption {
        type = types.listOf types.str;
        default = [ ];
      };
      networking.firewall.enable = mkOption {
        type = types.bool;
        default = true;
      };
      networking.firewall.allowedTCPPorts = mkOption {
        type = types.listOf types.port;
        default = [ ];
      };
      networking.nftables.enable = mkOption {
        type = types.bool;
        default = false;
      };
      networking.nftables.tables = anyAttrs;
      networking.nameservers = mkOption {
        type = types.listOf types.str;
        default = [ ];
      };
      environment.systemPackages = mkOption {
        type = types.listOf types.anything;
        default = [ ];
      };
      environment.etc = anyAttrs;
      security.apparmor.enable = mkOption {
        type = types.bool;
        default = false;
      };
      security.apparmor.policies = anyAttrs;
    };
  };

  evalPkgs =
    p: cfg:
    let
      e = lib.evalModules {
        modules = [
          stubs
          ../module.nix
          { _module.args.pkgs = p; }
          cfg
        ];
      };
    in
    {
      inherit (e) config;
      failed = map (a: a.message) (lib.filter (a: !a.assertion) e.config.assertions);
    };

  eval = evalPkgs pkgs;

  # The smallest instance: only the options without a default.
  minimal = name: uid: port: {
    directory = "/srv/${name}";
    inherit uid;
    listen.port = port;
  };

  noFirewall = {
    networking.firewall.enable = false;
    networking.nftables.enable = true;
  };

  check = name: cond: detail: if cond then "ok ${name}" else "fail ${name}: ${detail}";
  has = sub: s: lib.hasInfix sub s;
  lines = s: lib.splitString "\n" s;
  failedWith = sub: r: lib.any (has sub) r.failed;

  # ---- seed 000: filesystem, /proc, hardening, sockets, state ----
  one = eval {
    services.opencode.instances.a = minimal "a" 4001 8787;
  };
  svcA = one.config.systemd.services.opencode-a;
  sc = svcA.serviceConfig;
  profA = one.config.environment.etc."llwrap/opencode-a.ini".text;

  lists = eval {
    services.opencode.instances.a = minimal "a" 4001 8787 // {
      sandbox.readWritePaths = [ "/var/lib/my-cache" ];
      sandbox.unixSockets.allow = [ "/run/postgresql/.s.PGSQL.5432" ];
    };
  };
  profLists = lists.config.environment.etc."llwrap/opencode-a.ini".text;

  two = eval {
    services.opencode.instances = {
      a = minimal "a" 4001 8787;
      b = minimal "b" 4002 8788;
    };
  };
  profTwoA = two.config.environment.etc."llwrap/opencode-a.ini".text;

  # ---- seed 001: listener, firewall, CIDRs, logging, fail-safe ----
  opened = eval {
    services.opencode.instances.a = lib.recursiveUpdate (minimal "a" 4001 8787) {
      openFirewall = true;
      listen.address = "0.0.0.0";
    };
  };
  isolated = eval (
    noFirewall
    // {
      services.opencode.instances.a = minimal "a" 4001 8787 // {
        networkIsolation.enable = true;
        networkIsolation.outboundAllowCidrs = [ "10.10.0.0/16" ];
      };
    }
  );
  table = isolated.config.networking.nftables.tables.opencode-a or { content = ""; };
  profIso = isolated.config.environment.etc."llwrap/opencode-a.ini".text;
  isolated6 = eval (
    noFirewall
    // {
      services.opencode.instances.a = minimal "a" 4001 8787 // {
        networkIsolation.enable = true;
        networkIsolation.outboundAllowCidrs = [
          "10.10.0.0/16"
          "2001:db8::/32"
        ];
      };
    }
  );
  isoInstance = {
    networkIsolation.enable = true;
    networkIsolation.outboundAllowCidrs = [ "10.10.0.0/16" ];
  };
  noNft = eval {
    networking.firewall.enable = false;
    services.opencode.instances.a = minimal "a" 4001 8787 // isoInstance;
  };
  withFirewall = eval {
    networking.nftables.enable = true;
    services.opencode.instances.a = minimal "a" 4001 8787 // isoInstance;
  };
  optIn = eval {
    networking.nftables.enable = true;
    services.opencode.allowNixosFirewall = true;
    services.opencode.instances.a = minimal "a" 4001 8787 // isoInstance // { openFirewall = true; };
  };
  optInIptables = eval {
    services.opencode.allowNixosFirewall = true;
    services.opencode.instances.a = minimal "a" 4001 8787 // isoInstance;
  };
  hosts = eval {
    services.opencode.instances.a = minimal "a" 4001 8787 // {
      allowedHosts = [
        "llm.example.com"
        "*.registry.example.com:443,8443"
      ];
    };
  };
  profHosts = hosts.config.environment.etc."llwrap/opencode-a.ini".text;
  # An isolated instance with these allowedHosts.
  hostsIsoWith =
    allowedHosts:
    eval (
      noFirewall
      // {
        services.opencode.instances.a = minimal "a" 4001 8787 // isoInstance // { inherit allowedHosts; };
      }
    );
  hostsIso = hostsIsoWith [ "llm.internal.example:8443" ];
  profHostsIso = hostsIso.config.environment.etc."llwrap/opencode-a.ini".text;
  hostsIsoNoPort = hostsIsoWith [ "llm.internal.example" ];
  hostsBad = eval {
    services.opencode.instances.a = minimal "a" 4001 8787 // {
      allowedHosts = [
        "api.*.com"
        "api.example.com:http"
      ];
    };
  };
  sameUid = eval {
    services.opencode.instances = {
      a = minimal "a" 4001 8787;
      b = minimal "b" 4001 8788;
    };
  };
  badName = eval {
    services.opencode.instances."A_b" = minimal "x" 4001 8787;
  };
  badPath = eval {
    services.opencode.instances.a = minimal "a" 4001 8787 // {
      sandbox.readOnlyPaths = [ "/srv/with space" ];
    };
  };
  # Every value the module renders is checked at evaluation, with an
  # assertion naming the option (not at nft's, systemd's or llwrap's
  # start): each of these has one bad value.
  badValues = eval (
    noFirewall
    // {
      services.opencode.instances.a = lib.recursiveUpdate (minimal "a" 4001 8787) {
        listen.address = "localhost";
        networkIsolation = {
          enable = true;
          outboundAllowCidrs = [
            "10.10.0.0/33"
            "2001:db8::/129"
            "300.1.2.3/8"
            "10.20.0.0/16"
          ];
          dnsServers = [
            "10.0.0.53"
            "fe80::1%eth0"
          ];
          logRate = "10/min";
        };
        allowedHosts = [ "api.example.com:70000" ];
        limits = {
          memory = "4GB";
          cpuQuota = "2";
          runtimeMaxSec = "8 x";
        };
        environmentFile = "secrets.env";
        credentials."../key" = "/run/secrets/key";
      };
    }
  );
  agentsBadLimits = eval {
    services.opencode.agents.enable = true;
    services.opencode.agents.limits.memory = "lots";
  };
  goodValues = eval (
    noFirewall
    // {
      services.opencode.instances.a = lib.recursiveUpdate (minimal "a" 4001 8787) {
        listen.address = "::1";
        networkIsolation = {
          enable = true;
          outboundAllowCidrs = [
            "10.10.0.0/16"
            "2001:db8::/32"
            "192.0.2.7"
            "::ffff:10.0.0.0/104"
          ];
          dnsServers = [
            "10.0.0.53"
            "2001:db8::53"
          ];
          logRate = "5/second";
        };
        allowedHosts = [ "api.example.com:443,8000-8100" ];
        limits = {
          memory = "50%";
          cpuQuota = "150%";
          runtimeMaxSec = "1h 30min";
        };
        environmentFile = "-/run/secrets/a.env";
        credentials.anthropic = "/run/secrets/anthropic";
      };
    }
  );
  agents = eval {
    services.opencode.agents.enable = true;
  };
  tmpl = agents.config.systemd.services."opencode-agent@" or { serviceConfig = { }; };

  # ---- AppArmor: llwrap's profile where AppArmor 4 runs ----
  aa = eval {
    services.opencode.instances.a = minimal "a" 4001 8787;
    security.apparmor.enable = true;
  };
  aaPolicies = aa.config.security.apparmor.policies;
  aaOff = eval { services.opencode.instances.a = minimal "a" 4001 8787; };
  aaOld = evalPkgs (pkgs // { apparmor-parser = fakeDrv "apparmor-parser-3.1.7"; }) {
    services.opencode.instances.a = minimal "a" 4001 8787;
    security.apparmor.enable = true;
  };
  aaUnused = eval { security.apparmor.enable = true; };
  aaAgents = eval {
    services.opencode.agents.enable = true;
    security.apparmor.enable = true;
  };
in
[
  (check "only required options: evaluates without assertion failures" (one.failed == [ ]) (toString one.failed))
  (check "default policy: the directory is writable (profile rwx, systemd ReadWritePaths)" (
    has "rwx = /srv/a\n" profA && lib.elem "/srv/a" sc.ReadWritePaths
  ) profA)
  (check "default policy: the state directory is writable (its HOME and XDG parts)" (
    has "rw = /var/lib/opencode/a/home\n" profA
    && has "rw = /var/lib/opencode/a/data\n" profA
    && lib.elem "/var/lib/opencode/a" sc.ReadWritePaths
  ) profA)
  (check "default policy: /nix/store is read-only (rx)" (has "rx = /nix/store" profA) profA)
  (check "default policy: systemd ReadWritePaths is the directory and stateDir only" (
    sc.ReadWritePaths == [
      "/srv/a"
      "/var/lib/opencode/a"
    ]
  ) (toString sc.ReadWritePaths))
  (check "default policy: ProtectSystem=strict, ProtectHome, PrivateTmp" (
    sc.ProtectSystem == "strict" && sc.ProtectHome == true && sc.PrivateTmp
  ) "")
  (check "default policy: no other rw path in the profile" (
    lib.filter (l: lib.hasPrefix "rw" l && !has "/srv/a" l && !has "/var/lib/opencode/a/" l) (lines profA) == [ ]
  ) profA)
  (check "allow-list: sandbox.readWritePaths /var/lib/my-cache is writable" (
    has "rw = /var/lib/my-cache\n" profLists
    && lib.elem "/var/lib/my-cache" lists.config.systemd.services.opencode-a.serviceConfig.ReadWritePaths
  ) profLists)
  (check "allow-list: /etc is not writable (not in any rw rule)" (!has "rw = /etc" profLists) profLists)
  (check "unix sockets: a listed socket is in the profile's unix allow-list" (
    has "unix = /run/postgresql/.s.PGSQL.5432\n" profLists
  ) profLists)
  (check "unix sockets: none listed, none allowed" (!has "unix =" profA) profA)
  (check "/proc: ProtectProc=invisible, ProcSubset=pid, and llwrap's opencode profile (hide-processes)" (
    sc.ProtectProc == "invisible" && sc.ProcSubset == "pid" && has "include = opencode\n" profA
  ) "")
  (check "hardening: kernel tunables, modules, logs, control groups protected" (
    sc.ProtectKernelTunables && sc.ProtectKernelModules && sc.ProtectKernelLogs && sc.ProtectControlGroups
  ) "")
  (check "hardening: no capabilities, NoNewPrivileges, native syscalls, W^X off for the JIT" (
    sc.CapabilityBoundingSet == "" && sc.NoNewPrivileges && sc.SystemCallArchitectures == "native" && sc.MemoryDenyWriteExecute == false
  ) "")
  (check "hardening: RestrictNamespaces leaves what llwrap needs" (
    sc.RestrictNamespaces == "user mnt pid net ipc"
  ) sc.RestrictNamespaces)
  (check "limits: MemoryMax and TasksMax by default" (sc.MemoryMax == "4G" && sc.TasksMax == 512) "")
  (check "fail closed: llwrap --backend landlock, the generated profile" (
    has "/bin/llwrap --backend landlock --name opencode-a --profile /etc/llwrap/opencode-a.ini --directory /srv/a --" sc.ExecStart
  ) sc.ExecStart)
  (check "bwrap is not baked in" (!has "bwrap" sc.ExecStart) sc.ExecStart)
  (check "HOME and XDG dirs inside stateDir" (
    svcA.environment.HOME == "/var/lib/opencode/a/home" && svcA.environment.XDG_CONFIG_HOME == "/var/lib/opencode/a/config"
  ) "")
  (check "state: 0700 and owned by the instance (tmpfiles)" (
    lib.elem "d /var/lib/opencode/a 0700 opencode-a opencode-a - -" one.config.systemd.tmpfiles.rules
  ) (toString one.config.systemd.tmpfiles.rules))
  (check "two instances: distinct users with their explicit uids" (
    two.config.users.users.opencode-a.uid == 4001 && two.config.users.users.opencode-b.uid == 4002
    && two.config.systemd.services.opencode-b.serviceConfig.User == "opencode-b"
  ) "")
  (check "two instances: each state 0700, owned by its own user" (
    lib.elem "d /var/lib/opencode/b 0700 opencode-b opencode-b - -" two.config.systemd.tmpfiles.rules
  ) "")
  (check "two instances: a's profile grants nothing of b's state" (!has "/var/lib/opencode/b" profTwoA) profTwoA)
  (check "listen: opencode serve --hostname 127.0.0.1 --port 8787" (
    has "serve --hostname 127.0.0.1 --port 8787" sc.ExecStart
  ) sc.ExecStart)
  (check "listen: llwrap lets it bind 127.0.0.1:8787 only" (
    has "listen = 127.0.0.1:8787\n" profA && has "bind-tcp = 8787\n" profA
  ) profA)
  (check "firewall: closed by default (no port opened)" (
    one.config.networking.firewall.allowedTCPPorts == [ ]
  ) "")
  (check "firewall: openFirewall opens listen.port and nothing else" (
    opened.config.networking.firewall.allowedTCPPorts == [ 8787 ]
  ) (toString opened.config.networking.firewall.allowedTCPPorts))
  (check "isolation: evaluates with nftables on and the NixOS firewall off" (isolated.failed == [ ]) (toString isolated.failed))
  (check "isolation: one inet table opencode-a matching the numeric uid" (
    table.family or "" == "inet" && has "meta skuid 4001 jump instance" table.content
  ) table.content)
  (check "isolation: established/related, then the CIDR (ip)" (
    has "ct state established,related accept" table.content && has "ip daddr { 10.10.0.0/16 } accept" table.content
  ) table.content)
  (check "isolation: IPv6 denied when no IPv6 CIDR is given" (!has "ip6 daddr" table.content) table.content)
  (check "isolation: an IPv6 CIDR gets its ip6 rule" (
    has "ip6 daddr { 2001:db8::/32 } accept" isolated6.config.networking.nftables.tables.opencode-a.content
  ) "")
  (check "isolation: no blanket loopback accept" (!has "iif lo accept" table.content && !has "oif lo accept" table.content) table.content)
  (check "logging: rate-limited log with the opencode-a-blocked prefix, then reject" (
    has "limit rate 10/minute burst 5 packets log prefix \"opencode-a-blocked: \"" table.content
    && has "reject with icmpx type admin-prohibited" table.content
  ) table.content)
  (check "isolation: llwrap's supervisor gets the same CIDRs and prefix" (
    has "allow-cidr = 10.10.0.0/16:1-65535\n" profIso && has "log-prefix = opencode-a-blocked\n" profIso
  ) profIso)
  (check "isolation: no port rule reaches past the CIDRs (connect-tcp/udp = none)" (
    has "allow-host = none\n" profIso && has "connect-tcp = none\n" profIso && has "connect-udp = none\n" profIso && !has "connect-tcp = none" profA
  ) profIso)
  (check "isolation: no table without networkIsolation" (one.config.networking.nftables.tables == { }) "")
  (check "fail safe: isolation without nftables fails, naming networking.nftables.enable" (
    failedWith "networking.nftables.enable = true" noNft
  ) (toString noNft.failed))
  (check "fail safe: isolation with the NixOS firewall on fails by default, naming the nftables requirement and the way out" (
    failedWith "networking.firewall.enable = false" withFirewall
    && failedWith "nftables" withFirewall
    && failedWith "allowNixosFirewall" withFirewall
  ) (toString withFirewall.failed))
  (check "fail safe: allowNixosFirewall on nftables lets them combine (openFirewall works)" (
    optIn.failed == [ ] && optIn.config.networking.firewall.allowedTCPPorts == [ 8787 ]
  ) (toString optIn.failed))
  (check "fail safe: allowNixosFirewall on iptables is refused" (
    failedWith "the iptables backend" optInIptables
  ) (toString optInIptables.failed))
  (check "allowedHosts: rendered as allow-host lines, on top of the profile's host groups" (
    hosts.failed == [ ] && has "allow-host = llm.example.com\n" profHosts
    && has "allow-host = *.registry.example.com:443,8443\n" profHosts
    && !has "allow-host = none" profHosts
  ) (toString hosts.failed + profHosts))
  (check "allowedHosts under isolation: after allow-host = none, with their ports" (
    hostsIso.failed == [ ] && has "allow-host = none\nconnect-tcp = none\nconnect-udp = none\nallow-host = llm.internal.example:8443\n" profHostsIso
  ) (toString hostsIso.failed + profHostsIso))
  (check "allowedHosts under isolation without a port: refused, naming the fix" (
    failedWith "'llm.internal.example' has no port" hostsIsoNoPort && failedWith "llm.internal.example:443" hostsIsoNoPort
  ) (toString hostsIsoNoPort.failed))
  (check "allowedHosts: a wildcard in the wrong place or a port that is not a number is refused" (
    failedWith "'api.*.com' is not a host name" hostsBad && failedWith "'api.example.com:http' is not a host name" hostsBad
  ) (toString hostsBad.failed))
  (check "two instances with one uid are refused" (failedWith "same uid" sameUid) (toString sameUid.failed))
  (check "an instance name outside the safe pattern is refused" (failedWith "must match" badName) (toString badName.failed))
  (check "a path llwrap profiles cannot hold is refused" (failedWith "not a plain absolute path" badPath) (toString badPath.failed))
  (check "outboundAllowCidrs: 10.10.0.0/33, a /129 and 300.1.2.3 are refused at evaluation, naming the option" (
    failedWith "services.opencode.instances.a.networkIsolation.outboundAllowCidrs: '10.10.0.0/33' is not an IPv4 or IPv6 CIDR" badValues
    && failedWith "'2001:db8::/129' is not an IPv4 or IPv6 CIDR" badValues
    && failedWith "'300.1.2.3/8' is not an IPv4 or IPv6 CIDR" badValues
    && !failedWith "'10.20.0.0/16'" badValues
  ) (toString badValues.failed))
  (check "every other rendered value is checked, naming its option" (
    failedWith "services.opencode.instances.a.networkIsolation.dnsServers: 'fe80::1%eth0' is not an IPv4 or IPv6 address" badValues
    && !failedWith "'10.0.0.53'" badValues
    && failedWith "services.opencode.instances.a.networkIsolation.logRate: '10/min' is not an nftables rate" badValues
    && failedWith "services.opencode.instances.a.listen.address: 'localhost' is not an IPv4 or IPv6 address" badValues
    && failedWith "services.opencode.instances.a.allowedHosts: 'api.example.com:70000' is not a host name" badValues
    && failedWith "services.opencode.instances.a.limits.memory: '4GB'" badValues
    && failedWith "services.opencode.instances.a.limits.cpuQuota: '2'" badValues
    && failedWith "services.opencode.instances.a.limits.runtimeMaxSec: '8 x'" badValues
    && failedWith "services.opencode.instances.a.environmentFile: 'secrets.env'" badValues
    && failedWith "services.opencode.instances.a.credentials: '../key' is not a credential ID" badValues
  ) (toString badValues.failed))
  (check "agents.limits too" (failedWith "services.opencode.agents.limits.memory: 'lots'" agentsBadLimits) (toString agentsBadLimits.failed))
  (check "good values of each kind evaluate without assertion failures" (goodValues.failed == [ ]) (toString goodValues.failed))
  (check "agents: the opencode-agent@ template, DynamicUser, state under /var/lib/opencode-agents" (
    tmpl.serviceConfig.DynamicUser or false && tmpl.serviceConfig.StateDirectory or "" == "opencode-agents/%i"
    && has "llwrap-agent exec %i" (tmpl.serviceConfig.ExecStart or "")
    && has "+" (tmpl.serviceConfig.ExecStartPre or "")
  ) "")
  (check "AppArmor 4 on: the policy includes the package's profile, attached to its bin/llwrap" (
    aa.failed == [ ]
    && aaPolicies.llwrap.profile or ""
      == "include \"${(fakeDrv "package.nix").outPath}/share/llwrap/apparmor/llwrap\"\n"
  ) (builtins.toJSON aaPolicies))
  (check "AppArmor 4 on and only agents: the policy too" (
    aaAgents.config.security.apparmor.policies ? llwrap
  ) "")
  (check "no policy without AppArmor, before AppArmor 4.0 (no userns rule), or with nothing run under llwrap" (
    !(aaOff.config.security.apparmor.policies ? llwrap)
    && !(aaOld.config.security.apparmor.policies ? llwrap)
    && !(aaUnused.config.security.apparmor.policies ? llwrap)
  ) "")
  (check "agents: the llwrap-agent CLI is installed" (
    lib.any (p: p.name or "" == "agents") agents.config.environment.systemPackages
  ) "")
]
