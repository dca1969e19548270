# Pure renderers shared by module.nix and the tests: the llwrap profile,
# the nftables table and the command line of one opencode instance.
#
# Builtins only (no nixpkgs), so that tests/nixos can render and check
# them with nothing but nix-instantiate, and so that what the tests run
# is exactly what the module installs.
#
# An instance here is the attribute set module.nix builds from
# services.opencode.instances.<name>:
#   { name, uid, directory, stateDir,
#     listen = { address, port };
#     sandbox = { readWritePaths, readOnlyPaths, unixSockets.allow };
#     networkIsolation = { enable, outboundAllowCidrs, dnsServers,
#                          logRate, logBurst };
#     credentialsDirectory;   # null or /run/credentials/<unit>
#   }
let
  inherit (builtins)
    all
    concatStringsSep
    filter
    fromJSON
    isString
    length
    map
    match
    split
    toString
    ;

  concatMap = f: l: builtins.concatLists (map f l);
  optional = c: x: if c then [ x ] else [ ];
  optionals = c: l: if c then l else [ ];
  lines = l: concatStringsSep "\n" l + "\n";
in
rec {
  # Instance names: they become a user name (opencode-<name>, at most 31
  # characters), a unit name, an nftables table name and a log prefix.
  namePattern = "[a-z][a-z0-9-]{0,21}";
  validName = n: match namePattern n != null;

  # Paths llwrap profiles can hold: absolute, no blanks (a value is a
  # list of words), no "$" or "~" (llwrap would expand them), no ";" or
  # "#" (comments), short enough for llwrap's 190-byte lines.
  pathPattern = "/[A-Za-z0-9._@%+=:,/-]{0,150}";
  validPath = p: match pathPattern p != null;

  isIPv6 = a: match ".*:.*" a != null;

  # A decimal number without leading zeros, at most max.
  decimalAtMost =
    max: d: (d == "0" || match "[1-9][0-9]{0,9}" d != null) && fromJSON d <= max;

  # Addresses as llwrap reads them (inet_pton): IPv4 dotted quads, each
  # 0-255 without leading zeros; IPv6 in full or with one "::", an IPv4
  # tail allowed, no zone ("%eth0").
  validIPv4 =
    a:
    let
      m = match "([0-9]+)\\.([0-9]+)\\.([0-9]+)\\.([0-9]+)" a;
    in
    m != null && all (decimalAtMost 255) m;
  validIPv6 =
    a:
    let
      halves = filter isString (split "::" a);
      groups = h: if h == "" then [ ] else filter isString (split ":" h);
      gs = builtins.concatLists (map groups halves);
      n = length gs;
      tail4 = n > 0 && validIPv4 (builtins.elemAt gs (n - 1));
      hexes = if tail4 then builtins.genList (builtins.elemAt gs) (n - 1) else gs;
      width = if tail4 then n + 1 else n;
    in
    length halves <= 2
    && all (g: match "[0-9A-Fa-f]{1,4}" g != null) hexes
    && (if length halves == 2 then width <= 7 else width == 8);
  validIP = a: validIPv4 a || validIPv6 a;

  # "10.0.0.0/8" or "2001:db8::/32", prefix optional (0-32, 0-128).
  validCidr =
    c:
    let
      m = match "([^/]*)(/([0-9]+))?" c;
      addr = builtins.elemAt m 0;
      prefix = builtins.elemAt m 2;
    in
    m != null
    && (
      if validIPv4 addr then
        prefix == null || decimalAtMost 32 prefix
      else
        validIPv6 addr && (prefix == null || decimalAtMost 128 prefix)
    );

  # allow-host's grammar (DESIGN.md section 6.1): a name, or *. and a
  # name (one label), and optional ports (N or N-M, 1-65535, separated
  # by commas).  llwrap checks it again; here a mistake fails evaluation,
  # not the service's start.
  hostPorts = "(:[0-9]{1,5}(-[0-9]{1,5})?(,[0-9]{1,5}(-[0-9]{1,5})?)*)";
  hostName = "(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+";
  hostPortsOk =
    h:
    let
      m = match "[^:]*:(.*)" h;
      ranges = if m == null then [ ] else filter isString (split "," (builtins.head m));
      rangeOk =
        r:
        let
          lh = filter isString (split "-" r);
          lo = builtins.head lh;
          hi = builtins.elemAt lh (length lh - 1);
        in
        decimalAtMost 65535 lo && decimalAtMost 65535 hi && lo != "0" && fromJSON lo <= fromJSON hi;
    in
    all rangeOk ranges;
  validHost = h: match "${hostName}${hostPorts}?" h != null && hostPortsOk h;
  hostHasPort = h: match "${hostName}${hostPorts}" h != null;

  # nftables' limit rate, as the table's log line uses it.
  validLogRate = r: match "[1-9][0-9]{0,8}/(second|minute|hour|day|week)" r != null;

  # systemd's values: MemoryMax= (bytes with K, M, G, T, P or E; a
  # percentage; infinity), CPUQuota= (a percentage), RuntimeMaxSec= (a
  # time span: "8h", "1h 30min", seconds, infinity), credential IDs.
  validMemory = m: match "[0-9]+[KMGTPE]?|[0-9]+(\\.[0-9]+)?%|infinity" m != null;
  validCpuQuota = q: match "[0-9]+(\\.[0-9]+)?%" q != null;
  timeUnit = "(us|usec|ms|msec|s|sec|second|seconds|m|min|minute|minutes|h|hr|hour|hours|d|day|days|w|week|weeks|M|month|months|y|year|years)";
  validTimeSpan =
    t: t == "infinity" || match "[0-9]+" t != null || match "([0-9]+ ?${timeUnit} ?)+" t != null;
  # systemd's "-FILE": the file may be missing.
  dropDash = f: if builtins.substring 0 1 f == "-" then builtins.substring 1 (builtins.stringLength f) f else f;
  validCredentialId = id: match "[A-Za-z0-9_-][A-Za-z0-9_.-]{0,254}" id != null;

  # The state directory's layout: HOME and the XDG directories.  The
  # sandbox gets each of them, never stateDir itself, so it cannot drop
  # a profile into ${XDG_CONFIG_HOME}/llwrap/profiles (which llwrap would
  # read on the next start) nor rename its way around that.
  stateLayout = stateDir: {
    home = "${stateDir}/home";
    config = "${stateDir}/config";
    configOpencode = "${stateDir}/config/opencode";
    data = "${stateDir}/data";
    state = "${stateDir}/state";
    cache = "${stateDir}/cache";
  };

  environment = i: let s = stateLayout i.stateDir; in {
    HOME = s.home;
    XDG_CONFIG_HOME = s.config;
    XDG_DATA_HOME = s.data;
    XDG_STATE_HOME = s.state;
    XDG_CACHE_HOME = s.cache;
  };

  listenString =
    l: if isIPv6 l.address then "[${l.address}]:${toString l.port}" else "${l.address}:${toString l.port}";

  # One key per line: llwrap appends repeated keys, and a line never
  # grows past its 190-byte limit.
  keyLines = key: values: map (v: "${key} = ${v}") values;

  profile =
    i:
    let
      s = stateLayout i.stateDir;
      ni = i.networkIsolation;
    in
    lines (
      [
        "# opencode-${i.name}: generated by the llwrap NixOS module"
        "# (contrib/nixos/module.nix); edit the NixOS options instead."
        "[profile]"
        "include = opencode"
        "description = opencode-${i.name} (NixOS module)"
        ""
        "[filesystem]"
        "rwx = ${i.directory}"
      ]
      # Not config/opencode: the included opencode profile keeps the
      # agent's configuration read-only (doc/DESIGN.md section 11).
      ++ keyLines "rw" [
        s.home
        s.data
        s.state
        s.cache
      ]
      ++ keyLines "rw" i.sandbox.readWritePaths
      ++ keyLines "ro" i.sandbox.readOnlyPaths
      ++ optional (i.credentialsDirectory or null != null) "ro = ${i.credentialsDirectory}"
      ++ [
        "rx = /nix/store /run/current-system/sw"
        ""
        "[network]"
        "mode = filtered"
        "bind-tcp = ${toString i.listen.port}"
        "listen = ${listenString i.listen}"
        "log-prefix = opencode-${i.name}-blocked"
      ]
      ++ keyLines "unix" i.sandbox.unixSockets.allow
      # Isolation: the CIDRs and nothing else (the opencode profile's
      # named hosts and port rules would reach internet hosts on 443),
      # every port of an allowed CIDR, as the nftables table allows it.
      ++ optionals ni.enable [
        "allow-host = none"
        "connect-tcp = none"
        "connect-udp = none"
      ]
      # After isolation's none: the instance's own names, on top of the
      # profile's host groups or alone.
      ++ keyLines "allow-host" (i.allowedHosts or [ ])
      ++ optionals ni.enable (keyLines "allow-cidr" (map (c: "${c}:1-65535") ni.outboundAllowCidrs))
      ++ optionals (ni.enable && ni.dnsServers != [ ]) (keyLines "dns" ni.dnsServers)
    );

  # The nftables table, as networking.nftables.tables.<name>.content
  # (the part inside "table inet opencode-<name> { ... }").
  nftContent =
    i:
    let
      ni = i.networkIsolation;
      v4 = filter (c: !isIPv6 c) ni.outboundAllowCidrs;
      v6 = filter isIPv6 ni.outboundAllowCidrs;
      dns4 = filter (c: !isIPv6 c) ni.dnsServers;
      dns6 = filter isIPv6 ni.dnsServers;
      set = l: "{ ${concatStringsSep ", " l} }";
      own =
        if isIPv6 i.listen.address then
          "ip6 daddr ${i.listen.address} tcp dport ${toString i.listen.port} accept"
        else
          "ip daddr ${i.listen.address} tcp dport ${toString i.listen.port} accept";
    in
    lines (
      [
        "  # opencode-${i.name}: outbound policy of uid ${toString i.uid}."
        "  counter blocked { }"
        ""
        "  chain output {"
        "    type filter hook output priority filter; policy accept;"
        "    meta skuid ${toString i.uid} jump instance"
        "  }"
        ""
        "  chain instance {"
        "    ct state established,related accept"
        "    ct state invalid drop"
        "    # Its own listener (no blanket loopback: other instances stay out)."
        "    ${own}"
      ]
      ++ optionals (dns4 != [ ]) [
        "    ip daddr ${set dns4} udp dport 53 accept"
        "    ip daddr ${set dns4} tcp dport 53 accept"
      ]
      ++ optionals (dns6 != [ ]) [
        "    ip6 daddr ${set dns6} udp dport 53 accept"
        "    ip6 daddr ${set dns6} tcp dport 53 accept"
      ]
      ++ optional (v4 != [ ]) "    ip daddr ${set v4} accept"
      # IPv6 is denied when no IPv6 CIDR is given: nothing accepts it.
      ++ optional (v6 != [ ]) "    ip6 daddr ${set v6} accept"
      ++ [
        "    limit rate ${ni.logRate} burst ${toString ni.logBurst} packets log prefix \"opencode-${i.name}-blocked: \" level info"
        "    counter name \"blocked\""
        "    meta l4proto tcp reject with tcp reset"
        "    reject with icmpx type admin-prohibited"
        "  }"
      ]
    );

  nftTableName = i: "opencode-${i.name}";
  # A whole ruleset file, for nft -c -f and for reading.
  nftRuleset = i: "table inet ${nftTableName i} {\n${nftContent i}}\n";

  # The service's command line: llwrap, fallback off (fail closed), the
  # generated profile, then opencode serve on the configured address.
  command =
    {
      llwrap,
      opencode,
      profileFile,
      instance,
    }:
    [
      "${llwrap}/bin/llwrap"
      "--backend"
      "landlock"
      "--name"
      "opencode-${instance.name}"
      "--profile"
      profileFile
      "--directory"
      instance.directory
      "--"
      "${opencode}/bin/opencode"
      "serve"
      "--hostname"
      instance.listen.address
      "--port"
      (toString instance.listen.port)
    ]
    ++ instance.extraArgs or [ ];

  # Problems with an instance's values, as messages (empty: none).  The
  # module turns them into assertions; the tests call it directly.
  problems =
    i:
    let
      where = "services.opencode.instances.${i.name}";
      badPaths =
        opt: l:
        map (p: "${where}.${opt}: '${p}' is not a plain absolute path (letters, digits and ._@%+=:,/- only, at most 150 bytes): llwrap profiles cannot hold it.") (
          filter (p: !validPath p) l
        );
    in
    optional (!validName i.name) "${where}: the name must match ${namePattern} (it becomes a user, a unit and an nftables table name)."
    ++ badPaths "directory" [ i.directory ]
    ++ badPaths "stateDir" [ i.stateDir ]
    ++ badPaths "sandbox.readWritePaths" i.sandbox.readWritePaths
    ++ badPaths "sandbox.readOnlyPaths" i.sandbox.readOnlyPaths
    ++ badPaths "sandbox.unixSockets.allow" i.sandbox.unixSockets.allow
    ++ map (c: "${where}.networkIsolation.outboundAllowCidrs: '${c}' is not an IPv4 or IPv6 CIDR (an address, then /0-32 for IPv4 or /0-128 for IPv6: 10.10.0.0/16, 2001:db8::/32).") (
      filter (c: !validCidr c) i.networkIsolation.outboundAllowCidrs
    )
    ++ map (a: "${where}.networkIsolation.dnsServers: '${a}' is not an IPv4 or IPv6 address (no port, no zone): llwrap's dns key and the nftables table need one.") (
      filter (a: !validIP a) i.networkIsolation.dnsServers
    )
    ++ optional (!validLogRate i.networkIsolation.logRate) "${where}.networkIsolation.logRate: '${i.networkIsolation.logRate}' is not an nftables rate (N/second, N/minute, N/hour, N/day or N/week, e.g. 10/minute)."
    ++ optional (!validIP i.listen.address) "${where}.listen.address: '${i.listen.address}' is not an IPv4 or IPv6 address: opencode serve binds it, llwrap's listen key and the nftables table name it."
    ++ optional (i.networkIsolation.enable && i.networkIsolation.outboundAllowCidrs == [ ])
      "${where}.networkIsolation.outboundAllowCidrs is empty: with networkIsolation.enable the instance could reach nothing but its DNS servers; list the CIDRs it needs (its model provider's, 10.10.0.0/16, ...)."
    ++ map (h: "${where}.allowedHosts: '${h}' is not a host name with optional ports (api.example.com, *.example.com, api.example.com:443 or :8000-8100,443; ports 1-65535, low before high).") (
      filter (h: !validHost h) (i.allowedHosts or [ ])
    )
    ++ map (h: "${where}.allowedHosts: '${h}' has no port: with networkIsolation.enable no port is allowed by default; write ${h}:443 (and its addresses must lie in networkIsolation.outboundAllowCidrs, which nftables admits).") (
      filter (h: i.networkIsolation.enable && validHost h && !hostHasPort h) (i.allowedHosts or [ ])
    )
    ++ limitProblems where (i.limits or { })
    ++ optional (i.environmentFile or null != null && !validPath (dropDash i.environmentFile))
      "${where}.environmentFile: '${i.environmentFile}' is not a plain absolute path (a leading - makes it optional)."
    ++ concatMap (
      id:
      optional (!validCredentialId id) "${where}.credentials: '${id}' is not a credential ID (letters, digits and _.- only, not starting with a dot): systemd's LoadCredential takes ID:FILE."
      ++ optional (!validPath i.credentials.${id}) "${where}.credentials.${id}: '${i.credentials.${id}}' is not a plain absolute path."
    ) (builtins.attrNames (i.credentials or { }));

  # Problems with a limits option set (the instances' and the agents'),
  # under where.
  limitProblems =
    where: l:
    optional (l.memory or null != null && !validMemory l.memory) "${where}.limits.memory: '${l.memory}' is not a systemd MemoryMax= value (bytes with K, M, G, T, P or E, a percentage, or infinity: 4G, 50%)."
    ++ optional (l.cpuQuota or null != null && !validCpuQuota l.cpuQuota) "${where}.limits.cpuQuota: '${l.cpuQuota}' is not a systemd CPUQuota= value (a percentage: 200%)."
    ++ optional (l.runtimeMaxSec or null != null && !validTimeSpan l.runtimeMaxSec) "${where}.limits.runtimeMaxSec: '${l.runtimeMaxSec}' is not a systemd time span (8h, 1h 30min, 3600, infinity).";
}
