#!/bin/sh
# bench/dns-facts.sh: measure the resolver facts DESIGN.md §6.1 builds
# named hosts on, with this system's libc, in a user and network
# namespace of the script's own (unshare -Urnm: no privileges, nothing
# leaves the machine).  A fixture DNS server on 127.0.0.1:53 answers
# x.llw.test with 127.0.0.9, from port 53 ("same") or from another
# socket, port 5353 ("other"); a private /etc/resolv.conf names it.
# For each, the resolver's socket calls (strace) and whether the lookup
# succeeded:
#   - does the resolver connect() its UDP socket, then send without a
#     destination (sendto with none, or sendmmsg for A and AAAA)?
#   - does it drop a reply from another source?
set -eu
command -v strace >/dev/null || { echo "dns-facts.sh: needs strace" >&2; exit 77; }
command -v python3 >/dev/null || { echo "dns-facts.sh: needs python3" >&2; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/llw-dns-facts.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
cat >"$work/srv.py" <<'PY'
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('127.0.0.1', 53))
other = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
other.bind(('127.0.0.1', 5353))
while True:
    q, peer = s.recvfrom(512)
    end = 12
    while q[end] != 0:
        end += 1 + q[end]
    end += 5
    qtype = struct.unpack('>H', q[end - 4:end - 2])[0]
    an = 1 if qtype == 1 else 0
    r = q[:2] + b'\x81\x80' + struct.pack('>HHHH', 1, an, 0, 0) + q[12:end]
    if an:
        r += b'\xc0\x0c' + struct.pack('>HHIH', 1, 1, 60, 4) + bytes([127, 0, 0, 9])
    (other if sys.argv[1] == 'other' else s).sendto(r, peer)
PY
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' >"$work/resolv.conf"
ldd --version 2>/dev/null | head -1 || true
for mode in same other; do
	for family in socket.AF_INET 0; do
		# shellcheck disable=SC2016 # expanded by the inner shell
		unshare -Urnm sh -c '
			ip link set lo up
			mount --bind "$1/resolv.conf" /etc/resolv.conf
			python3 "$1/srv.py" "$2" >/dev/null 2>&1 & p=$!
			sleep 0.5
			strace -f -e trace=connect,sendto,sendmmsg -o "$1/trace" \
				python3 -c "import socket,sys
try:
    print(\"resolved:\", socket.getaddrinfo(\"x.llw.test\", 80, $3, socket.SOCK_STREAM)[0][4][0])
except OSError as e:
    print(\"failed:\", e)" || true
			kill "$p"
			grep -v AF_UNIX "$1/trace" | grep -oE "(connect|sendto|sendmmsg)\([0-9]+, (\{sa_family=AF_INET, sin_port=htons\(53\)[^}]*\}|\"[^\"]*\"[^)]*NULL, 0|\[\{msg_hdr=\{msg_name=NULL)" |
				sed "/^send/s/\"[^\"]*\"/\"...\"/" | sort -u
		' sh "$work" "$mode" "$family" | sed "s/^/reply from $mode socket, family $family: /"
	done
done
