# NixOS module: opencode instances and dynamic agents under llwrap.
#
#   services.opencode.instances.<name>   an "opencode serve" systemd
#     service opencode-<name> per instance, as its own static user, inside
#     llwrap (a profile generated from the options, fail closed) and
#     systemd's hardening, with an nftables table per instance when
#     networkIsolation.enable (doc/DESIGN.md section 13, the seeds 000 and
#     001 under /work/shared/seeds in the project's history).
#   services.opencode.agents             a template unit opencode-agent@
#     and the llwrap-agent CLI that spawns, lists, stops and destroys
#     agents from an agent card, without nixos-rebuild (seed 002).
#
# See contrib/nixos/README.md.
{
  config,
  lib,
  pkgs,
  ...
}:

let
  inherit (lib)
    mkOption
    mkEnableOption
    mkIf
    types
    literalExpression
    mapAttrs'
    mapAttrsToList
    nameValuePair
    filterAttrs
    concatLists
    optional
    optionalAttrs
    attrValues
    ;

  render = import ./render.nix;
  cfg = config.services.opencode;

  llwrapPkg = cfg.llwrapPackage;

  # Systemd's hardening, shared by the instances and the agent template.
  # llwrap itself needs user, mount, pid, net and ipc namespaces (L3),
  # seccomp (its own filter and the supervisor's notifications), and
  # AF_NETLINK (route) for loopback in a network namespace.
  hardening = {
    ProtectSystem = "strict";
    PrivateTmp = true;
    PrivateDevices = true;
    ProtectProc = "invisible";
    ProcSubset = "pid";
    ProtectKernelTunables = true;
    ProtectKernelModules = true;
    ProtectKernelLogs = true;
    ProtectControlGroups = true;
    ProtectClock = true;
    ProtectHostname = true;
    NoNewPrivileges = true;
    CapabilityBoundingSet = "";
    AmbientCapabilities = "";
    RestrictAddressFamilies = [
      "AF_UNIX"
      "AF_INET"
      "AF_INET6"
      "AF_NETLINK"
    ];
    RestrictNamespaces = "user mnt pid net ipc";
    SystemCallArchitectures = "native";
    LockPersonality = true;
    RestrictRealtime = true;
    RestrictSUIDSGID = true;
    RemoveIPC = true;
    UMask = "0077";
    # opencode runs on a JIT (Bun/JavaScriptCore).
    MemoryDenyWriteExecute = false;
  };

  limitsOptions = {
    memory = mkOption {
      type = types.nullOr types.str;
      default = "4G";
      description = "systemd MemoryMax= of the service (null: no limit).";
    };
    tasks = mkOption {
      type = types.nullOr types.ints.positive;
      default = 512;
      description = "systemd TasksMax= (processes and threads; null: systemd's default).";
    };
    cpuQuota = mkOption {
      type = types.nullOr types.str;
      default = null;
      example = "200%";
      description = "systemd CPUQuota= (null: no quota).";
    };
    runtimeMaxSec = mkOption {
      type = types.nullOr types.str;
      default = null;
      example = "8h";
      description = "systemd RuntimeMaxSec=: the service is stopped after this long (null: never).";
    };
  };

  limitsConfig =
    l:
    filterAttrs (_: v: v != null) {
      MemoryMax = l.memory;
      TasksMax = l.tasks;
      CPUQuota = l.cpuQuota;
      RuntimeMaxSec = l.runtimeMaxSec;
    };

  instanceModule =
    { name, ... }:
    {
      options = {
        package = mkOption {
          type = types.package;
          default = pkgs.opencode;
          defaultText = literalExpression "pkgs.opencode";
          description = "The opencode package this instance runs.";
        };
        uid = mkOption {
          type = types.ints.between 1000 65533;
          example = 4001;
          description = ''
            The numeric uid of the instance's own system user
            opencode-<name> (its group gets the same gid).  Fixed, because the
            instance's nftables table matches it (meta skuid).
          '';
        };
        directory = mkOption {
          type = types.str;
          example = "/srv/projects/web";
          description = "The project directory: the instance works here, read-write.";
        };
        stateDir = mkOption {
          type = types.str;
          default = "/var/lib/opencode/${name}";
          defaultText = literalExpression ''"/var/lib/opencode/<name>"'';
          description = ''
            The instance's own state: HOME and the XDG directories live in it
            (home, config, data, state, cache), each 0700 and owned by the
            instance's user.
          '';
        };
        listen = {
          address = mkOption {
            type = types.str;
            default = "127.0.0.1";
            description = "The address opencode serve binds (the only address where llwrap lets the host reach a server of the instance).";
          };
          port = mkOption {
            type = types.port;
            example = 8787;
            description = "The port opencode serve listens on.";
          };
        };
        openFirewall = mkOption {
          type = types.bool;
          default = false;
          description = "Open listen.port (TCP, that port only) in the NixOS firewall.";
        };
        sandbox = {
          readWritePaths = mkOption {
            type = types.listOf types.str;
            default = [ ];
            example = [ "/var/lib/my-cache" ];
            description = "More paths the instance may write (llwrap rw and systemd ReadWritePaths).";
          };
          readOnlyPaths = mkOption {
            type = types.listOf types.str;
            default = [ ];
            description = "More paths the instance may read.";
          };
          unixSockets.allow = mkOption {
            type = types.listOf types.str;
            default = [ ];
            example = [ "/run/postgresql/.s.PGSQL.5432" ];
            description = ''
              Host unix sockets the instance may connect to (llwrap's supervisor
              compares them by inode); every other host socket is refused.
            '';
          };
        };
        networkIsolation = {
          enable = mkEnableOption "the outbound allow-list (llwrap's supervisor and an nftables table for the instance's uid)";
          outboundAllowCidrs = mkOption {
            type = types.listOf types.str;
            default = [ ];
            example = [
              "10.10.0.0/16"
              "2001:db8::/32"
            ];
            description = "Destinations the instance may reach, every port; IPv6 is denied unless an IPv6 CIDR is listed.";
          };
          dnsServers = mkOption {
            type = types.listOf types.str;
            default = config.networking.nameservers;
            defaultText = literalExpression "config.networking.nameservers";
            description = "Resolvers the instance may query on port 53 (empty: llwrap uses /etc/resolv.conf's, nftables allows none).";
          };
          logRate = mkOption {
            type = types.str;
            default = "10/minute";
            description = "nftables limit rate of the blocked-attempt log lines.";
          };
          logBurst = mkOption {
            type = types.ints.positive;
            default = 5;
            description = "nftables limit burst (packets) of the blocked-attempt log.";
          };
        };
        allowedHosts = mkOption {
          type = types.listOf types.str;
          default = [ ];
          description = ''
            Named hosts the instance may reach, as llwrap's allow-host
            entries (doc/DESIGN.md section 6.1): api.example.com,
            *.example.com, each with optional ports (api.example.com:443,22).
            Without networkIsolation they add to the opencode profile's host
            groups.  With it they are the only names (after allow-host =
            none), each needs its ports, and nftables still admits only
            networkIsolation.outboundAllowCidrs: the name must resolve inside
            them.  A malformed entry fails evaluation.
          '';
        };
        environmentFile = mkOption {
          type = types.nullOr types.str;
          default = null;
          example = "/run/secrets/opencode-web.env";
          description = ''
            A systemd EnvironmentFile (KEY=value lines), for provider keys
            opencode only takes from the environment; llwrap passes on the
            *_API_KEY variables its opencode profile keeps.  Prefer credentials.
          '';
        };
        credentials = mkOption {
          type = types.attrsOf types.str;
          default = { };
          example = {
            anthropic = "/run/secrets/anthropic-key";
          };
          description = ''
            Secret files handed over with systemd LoadCredential (never in the
            environment or the store): credential ID = file.  opencode reads
            them as {file:/run/credentials/opencode-<name>.service/ID} in its
            opencode.json; the sandbox may read that directory.
          '';
        };
        limits = limitsOptions;
        extraArgs = mkOption {
          type = types.listOf types.str;
          default = [ ];
          description = "More arguments to opencode serve.";
        };
      };
    };

  instances = cfg.instances;
  unitName = name: "opencode-${name}";

  # What render.nix gets for an instance.
  renderInput =
    name: i:
    i
    // {
      inherit name;
      credentialsDirectory = if i.credentials == { } then null else "/run/credentials/${unitName name}.service";
    };

  # The generated profile is /etc/llwrap/opencode-<name>.ini: readable by
  # operators (llwrap --explain -p /etc/llwrap/opencode-<name>.ini), and
  # outside llwrap's profile path, so no other run picks it up by [match].
  profileFile = name: "/etc/llwrap/opencode-${name}.ini";
  profileText = name: i: render.profile (renderInput name i);

  underHome = p: lib.any (h: p == h || lib.hasPrefix "${h}/" p) [ "/home" "/root" "/run/user" ];

  instanceService =
    name: i:
    let
      ri = renderInput name i;
      rw = [
        i.directory
        i.stateDir
      ] ++ i.sandbox.readWritePaths;
      ro = i.sandbox.readOnlyPaths;
      homeRw = lib.filter underHome rw;
      homeRo = lib.filter underHome ro;
    in
    nameValuePair (unitName name) {
      description = "opencode instance ${name} (llwrap sandbox)";
      wantedBy = [ "multi-user.target" ];
      after = [ "network.target" ] ++ optional i.networkIsolation.enable "nftables.service";
      environment = render.environment ri;
      restartTriggers = [ (builtins.hashString "sha256" (profileText name i)) ];
      serviceConfig =
        hardening
        // limitsConfig i.limits
        // {
          Type = "simple";
          User = unitName name;
          Group = unitName name;
          ExecStart = lib.escapeShellArgs (render.command {
            llwrap = llwrapPkg;
            opencode = i.package;
            profileFile = profileFile name;
            instance = ri;
          });
          WorkingDirectory = i.directory;
          Restart = "on-failure";
          RestartSec = "5s";
          ReadWritePaths = lib.filter (p: !underHome p) rw;
          # /home, /root and /run/user stay hidden; paths under them are
          # bound into the empty view.
          ProtectHome = if homeRw ++ homeRo == [ ] then true else "tmpfs";
          BindPaths = homeRw;
          BindReadOnlyPaths = homeRo;
          LoadCredential = mapAttrsToList (id: file: "${id}:${file}") i.credentials;
        }
        // optionalAttrs (i.environmentFile != null) { EnvironmentFile = i.environmentFile; };
    };

  anyIsolated = lib.any (i: i.networkIsolation.enable) (attrValues instances);

  agentCli = pkgs.callPackage ./agents {
    llwrap = llwrapPkg;
    opencode = cfg.agents.package;
  };
in
{
  options.services.opencode = {
    llwrapPackage = mkOption {
      type = types.package;
      default = pkgs.callPackage ./package.nix { };
      defaultText = literalExpression "pkgs.callPackage ./package.nix { }";
      description = "The llwrap package the instances and agents run under.";
    };

    allowNixosFirewall = mkOption {
      type = types.bool;
      default = false;
      description = ''
        Let instances with networkIsolation.enable coexist with the NixOS
        firewall (networking.firewall.enable), which openFirewall needs.
        Only when that firewall runs on nftables (networking.nftables.enable):
        the iptables backend is refused.  Off by default, as seed 001 asks:
        the firewall's rules and the instances' tables then live side by
        side in one nftables ruleset, and each table's verdicts apply (a
        drop anywhere wins); see contrib/nixos/README.md.
      '';
    };

    instances = mkOption {
      type = types.attrsOf (types.submodule instanceModule);
      default = { };
      description = "opencode serve instances, each its own user, service and sandbox.";
    };

    agents = {
      enable = mkEnableOption "dynamic opencode agents: the opencode-agent@ template unit and the llwrap-agent CLI";
      package = mkOption {
        type = types.package;
        default = pkgs.opencode;
        defaultText = literalExpression "pkgs.opencode";
        description = "The opencode package agents run.";
      };
      limits = limitsOptions;
    };
  };

  config = lib.mkMerge [
    (mkIf (instances != { }) {
      assertions =
        concatLists (
          mapAttrsToList (
            name: i:
            map (m: {
              assertion = false;
              message = m;
            }) (render.problems (renderInput name i))
          ) instances
        )
        ++ [
          {
            assertion = !anyIsolated || config.networking.nftables.enable;
            message = ''
              services.opencode: an instance has networkIsolation.enable, which needs
              the nftables backend: set networking.nftables.enable = true (its tables
              are installed through networking.nftables.tables), or turn
              networkIsolation off.
            '';
          }
          {
            assertion = !anyIsolated || !config.networking.firewall.enable || cfg.allowNixosFirewall;
            message = ''
              services.opencode: an instance has networkIsolation.enable while the NixOS
              firewall is on (networking.firewall.enable).  Outbound isolation needs
              the nftables backend (networking.nftables.enable = true) with the
              instances' own tables.  Either set networking.firewall.enable = false,
              or, to keep the firewall (for openFirewall), run it on nftables and set
              services.opencode.allowNixosFirewall = true (see contrib/nixos/README.md).
            '';
          }
          {
            assertion = !cfg.allowNixosFirewall || config.networking.nftables.enable;
            message = ''
              services.opencode.allowNixosFirewall needs the firewall on nftables
              (networking.nftables.enable = true); the iptables backend is not
              supported with networkIsolation.
            '';
          }
          {
            assertion =
              let
                uids = mapAttrsToList (_: i: i.uid) instances;
              in
              lib.length (lib.unique uids) == lib.length uids;
            message = "services.opencode.instances: two instances have the same uid; each needs its own.";
          }
          {
            assertion =
              let
                eps = mapAttrsToList (_: i: "${i.listen.address}:${toString i.listen.port}") instances;
              in
              lib.length (lib.unique eps) == lib.length eps;
            message = "services.opencode.instances: two instances listen on the same address and port.";
          }
        ];

      warnings = concatLists (
        mapAttrsToList (
          name: i:
          optional (i.openFirewall && !config.networking.firewall.enable)
            "services.opencode.instances.${name}.openFirewall has no effect: networking.firewall.enable is false."
          ++ optional (i.openFirewall && lib.hasPrefix "127." i.listen.address)
            "services.opencode.instances.${name}.openFirewall opens port ${toString i.listen.port}, but the instance listens on ${i.listen.address} only."
        ) instances
      );

      users.users = mapAttrs' (
        name: i:
        nameValuePair (unitName name) {
          isSystemUser = true;
          inherit (i) uid;
          group = unitName name;
          home = i.stateDir;
          createHome = false;
          description = "opencode instance ${name}";
        }
      ) instances;
      users.groups = mapAttrs' (name: i: nameValuePair (unitName name) { gid = i.uid; }) instances;

      systemd.tmpfiles.rules = concatLists (
        mapAttrsToList (
          name: i:
          let
            s = render.stateLayout i.stateDir;
            u = unitName name;
          in
          map (d: "d ${d} 0700 ${u} ${u} - -") [
            i.stateDir
            s.home
            s.config
            s.configOpencode
            s.data
            s.state
            s.cache
          ]
        ) instances
      );

      systemd.services = mapAttrs' instanceService instances;

      environment.etc = mapAttrs' (
        name: i:
        nameValuePair "llwrap/opencode-${name}.ini" {
          text = profileText name i;
          mode = "0444";
        }
      ) instances;

      networking.firewall.allowedTCPPorts = mapAttrsToList (_: i: i.listen.port) (
        filterAttrs (_: i: i.openFirewall) instances
      );

      networking.nftables.tables = mapAttrs' (
        name: i:
        nameValuePair "opencode-${name}" {
          family = "inet";
          content = render.nftContent (renderInput name i);
        }
      ) (filterAttrs (_: i: i.networkIsolation.enable) instances);
    })

    # Where AppArmor restricts unprivileged user namespaces
    # (kernel.apparmor_restrict_unprivileged_userns = 1), llwrap creates
    # them only under its profile (contrib/apparmor, doc/DESIGN.md §14):
    # the copy the package installs, attached to its bin/llwrap, which
    # the instances and agents run.  AppArmor before 4.0 has neither the
    # restriction nor the profile's userns rule.
    (mkIf
      (
        (instances != { } || cfg.agents.enable)
        && config.security.apparmor.enable
        && lib.versionAtLeast (lib.getVersion pkgs.apparmor-parser) "4.0"
      )
      {
        security.apparmor.policies.llwrap.profile = ''
          include "${llwrapPkg}/share/llwrap/apparmor/llwrap"
        '';
      }
    )

    (mkIf cfg.agents.enable {
      assertions = map (m: {
        assertion = false;
        message = m;
      }) (render.limitProblems "services.opencode.agents" cfg.agents.limits);

      environment.systemPackages = [ agentCli ];

      systemd.tmpfiles.rules = [
        "d /etc/opencode-agents 0755 root root - -"
        "d /var/lib/opencode-agents 0755 root root - -"
      ];

      # One unit per agent, started by llwrap-agent spawn; the agent's
      # directory, limits, TTL and credential come from a drop-in it
      # writes under /run/systemd/system/opencode-agent@NAME.service.d.
      systemd.services."opencode-agent@" = {
        description = "opencode agent %i (llwrap, dynamic)";
        after = [ "network.target" ];
        environment = {
          HOME = "/var/lib/opencode-agents/%i/home";
          XDG_CONFIG_HOME = "/var/lib/opencode-agents/%i/config";
          XDG_DATA_HOME = "/var/lib/opencode-agents/%i/data";
          XDG_STATE_HOME = "/var/lib/opencode-agents/%i/state";
          XDG_CACHE_HOME = "/var/lib/opencode-agents/%i/cache";
        };
        serviceConfig =
          hardening
          // limitsConfig cfg.agents.limits
          // {
            Type = "simple";
            DynamicUser = true;
            User = "opencode-agent-%i";
            StateDirectory = "opencode-agents/%i";
            StateDirectoryMode = "0700";
            ProtectHome = true;
            # As root, before the sandbox: hand the agent's directory and
            # state layout to its dynamic uid.
            ExecStartPre = "+${agentCli}/bin/llwrap-agent prepare %i";
            ExecStart = "${agentCli}/bin/llwrap-agent exec %i";
            Restart = "no";
          };
      };
    })
  ];
}
