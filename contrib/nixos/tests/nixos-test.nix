# A NixOS VM test of the module, two instances end to end.  Needs a
# machine with Nix and KVM (it is not run by make check):
#
#   nix build .#checks.x86_64-linux.nixos        (or: nix flake check)
#
# opencode is replaced by a small stand-in that, started by the service
# (so under llwrap and systemd's hardening), tries what seeds 000 and 001
# describe, writes one line per attempt into its directory, then serves
# HTTP on the configured address like "opencode serve".
{ pkgs, module }:
let
  probe = pkgs.writeText "fake-opencode.py" ''
    import os, socket, sys, http.server

    args = sys.argv[1:]
    host = args[args.index("--hostname") + 1]
    port = int(args[args.index("--port") + 1])
    me = os.path.basename(os.getcwd())
    other = "b" if me == "a" else "a"
    results = []

    def attempt(name, fn):
        try:
            fn()
            results.append(name + " ok")
        except OSError as e:
            results.append(name + " denied " + str(e.errno))

    def write(path):
        with open(path, "w") as f:
            f.write("x")

    def connect_unix(path):
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(3)
        s.connect(path)
        s.close()

    def connect_tcp(addr, p):
        s = socket.create_connection((addr, p), timeout=3)
        s.close()

    attempt("write-directory", lambda: write("probe-file"))
    attempt("write-state", lambda: write(os.environ["HOME"] + "/probe"))
    attempt("write-etc", lambda: write("/etc/opencode-probe"))
    attempt("write-outside", lambda: write("/var/lib/outside-probe"))
    attempt("read-other-state", lambda: os.listdir("/var/lib/opencode/" + other))
    attempt("write-other-state", lambda: write("/var/lib/opencode/" + other + "/home/probe"))
    attempt("unix-listed", lambda: connect_unix("/run/postgresql/.s.PGSQL.5432"))
    attempt("unix-unlisted", lambda: connect_unix("/run/other/other.sock"))
    attempt("sysctl-write", lambda: write("/proc/sys/kernel/hostname"))
    attempt("tcp-other-instance", lambda: connect_tcp("127.0.0.1", 8788 if me == "a" else 8787))
    attempt("tcp-allowed-cidr", lambda: connect_tcp("192.0.2.10", 9000))
    attempt("tcp-outside-cidr", lambda: connect_tcp("198.51.100.10", 9000))
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
    results.append("proc-pids " + str(len(pids)))
    with open("results.txt", "w") as f:
        f.write("\n".join(results) + "\n")

    http.server.HTTPServer((host, port), http.server.SimpleHTTPRequestHandler).serve_forever()
  '';
  fakeOpencode = pkgs.writeShellScriptBin "opencode" ''
    exec ${pkgs.python3}/bin/python3 ${probe} "$@"
  '';
in
pkgs.testers.runNixOSTest {
  name = "llwrap-opencode-instances";

  nodes.machine =
    { pkgs, ... }:
    {
      imports = [ module ];
      virtualisation.memorySize = 2048;
      networking.firewall.enable = false;
      networking.nftables.enable = true;
      # Addresses on the machine itself: one inside a's CIDR, one outside.
      networking.interfaces.eth1.ipv4.addresses = [
        {
          address = "192.0.2.10";
          prefixLength = 24;
        }
        {
          address = "198.51.100.10";
          prefixLength = 24;
        }
      ];

      # Two host sockets: one listed for a, one listed for nobody; and a
      # TCP server on both addresses.
      systemd.services.fake-services = {
        wantedBy = [ "multi-user.target" ];
        before = [
          "opencode-a.service"
          "opencode-b.service"
        ];
        serviceConfig.ExecStart = "${pkgs.python3}/bin/python3 ${pkgs.writeText "services.py" ''
          import os, select, socket
          socks = []
          for path in ("/run/postgresql/.s.PGSQL.5432", "/run/other/other.sock"):
              os.makedirs(os.path.dirname(path), exist_ok=True)
              os.chmod(os.path.dirname(path), 0o755)
              s = socket.socket(socket.AF_UNIX)
              s.bind(path)
              os.chmod(path, 0o777)
              s.listen(16)
              socks.append(s)
          for addr in ("192.0.2.10", "198.51.100.10"):
              s = socket.socket()
              s.bind((addr, 9000))
              s.listen(16)
              socks.append(s)
          while True:
              for s in select.select(socks, [], [])[0]:
                  s.accept()[0].close()
        ''}";
      };

      systemd.tmpfiles.rules = [
        "d /srv/a 0700 opencode-a opencode-a - -"
        "d /srv/b 0700 opencode-b opencode-b - -"
      ];

      services.opencode.instances = {
        a = {
          uid = 4001;
          directory = "/srv/a";
          listen.port = 8787;
          package = fakeOpencode;
          sandbox.unixSockets.allow = [ "/run/postgresql/.s.PGSQL.5432" ];
          networkIsolation = {
            enable = true;
            outboundAllowCidrs = [ "192.0.2.0/24" ];
          };
        };
        b = {
          uid = 4002;
          directory = "/srv/b";
          listen.port = 8788;
          package = fakeOpencode;
        };
      };
    };

  testScript = ''
    machine.wait_for_unit("fake-services.service")
    machine.wait_for_unit("opencode-a.service")
    machine.wait_for_unit("opencode-b.service")
    machine.wait_for_open_port(8787)
    machine.wait_for_open_port(8788)

    def results(n):
        machine.wait_for_file(f"/srv/{n}/results.txt")
        return dict(line.split(" ", 1) for line in machine.succeed(f"cat /srv/{n}/results.txt").splitlines())

    a = results("a")
    b = results("b")
    print("a:", a)
    print("b:", b)

    with subtest("default filesystem policy"):
        assert a["write-directory"] == "ok"
        assert a["write-state"] == "ok"
        assert a["write-etc"].startswith("denied")
        assert a["write-outside"].startswith("denied")

    with subtest("cross-instance state"):
        assert a["read-other-state"].startswith("denied")
        assert a["write-other-state"].startswith("denied")
        assert b["read-other-state"].startswith("denied")

    with subtest("unix sockets"):
        assert a["unix-listed"] == "ok"
        assert a["unix-unlisted"].startswith("denied")
        assert b["unix-listed"].startswith("denied")

    with subtest("kernel tunables and /proc"):
        assert a["sysctl-write"].startswith("denied")
        assert int(a["proc-pids"].split()[0]) < 10, a["proc-pids"]

    with subtest("outbound CIDRs, no blanket loopback"):
        assert a["tcp-allowed-cidr"] == "ok"
        assert a["tcp-outside-cidr"].startswith("denied")
        assert a["tcp-other-instance"].startswith("denied")

    with subtest("listen address and users"):
        machine.succeed("ss -ltnp | grep -q '127.0.0.1:8787'")
        machine.fail("ss -ltn | grep -q '0.0.0.0:8787'")
        machine.succeed("test $(stat -c %u /var/lib/opencode/a) = 4001")
        machine.succeed("test $(stat -c %a /var/lib/opencode/a) = 700")
        machine.succeed("test $(stat -c %u /var/lib/opencode/b) = 4002")

    with subtest("the blocked attempt is logged with the instance's prefix"):
        machine.wait_until_succeeds("journalctl -k | grep -q 'opencode-a-blocked: '")
        machine.succeed("nft list table inet opencode-a | grep -q 'meta skuid 4001'")
  '';
}
