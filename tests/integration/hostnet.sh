#!/bin/sh
# The network below and beside the supervisor's decision (DESIGN.md §16),
# in network namespaces of the test's own (netns_fixture: as root, the
# real root's, and llwrap runs as the test user, as users run it, but for
# a few cases run as root; otherwise owned by a user namespace whose root
# llwrap runs as): this host (llwrap runs here) on 192.0.2.1/30 and
# 2001:db8:ffff::1/64, and a "world" namespace behind a veth pair, its
# far end 192.0.2.2 and 2001:db8:ffff::2, through which this host routes
# 198.51.100.0/24, 2001:db8::/64 and NAT64's 64:ff9b::/96 as it would
# the internet.  A packet capture on the world's end of the link
# (AF_PACKET, before the world's stack drops anything) records what
# arrives there.  Documentation addresses only.
#
# Asserted, each with its legitimate neighbour:
# - routing headers: a socket's type 4 header (IPV6_RTHDR) and type 2
#   header (IPV6_2292PKTOPTIONS, where CONFIG_IPV6_MIP6 is built) send
#   a UDP payload to the header's address 2001:db8::66 rather than the
#   connected one, outside the sandbox (the capture sees it); inside,
#   setting either is EPERM and nothing reaches 2001:db8::66, while the
#   same socket without a header reaches 2001:db8::7; a UDP or TCP
#   socket made with a header outside and passed in is refused by the
#   supervisor (EPERM) and its packets never leave;
# - "this host and its networks" under port rules with the supervisor:
#   this host's own global address (a server on the wildcard answers
#   there), an on-link neighbour's global address (IPv4 and IPv6) and
#   the NAT64 form of a local address are refused as local, logged
#   filtered/local; an address routed through the link, and the NAT64
#   form of one, are reached by the same port rule; allow-cidr reaches
#   the neighbour;
# - llwrap run as root: IPV6_RTHDR refused, a neighbour refused as
#   local, the routed address reached.
. "$LLW_SRCDIR/tests/lib/libtest.sh"
need_default_profile

if ! "$LLWRAP" --check 2>/dev/null | grep -q "S  supervisor   usable"; then
	skip_rest "the supervisor is unavailable here: $("$LLWRAP" --check | grep supervisor)"
fi
if ! userns_works; then
	skip_rest "no unprivileged user namespaces: the fixture needs network namespaces of its own"
fi
for tool in unshare ip python3; do
	command -v "$tool" >/dev/null || skip_rest "$tool is not installed"
done

D=$T/hostnet
mkdir -p "$D"
cp "$LLW_DATA/srv.py" "$D/"
cp "$LLW_BUILDDIR/tests/helpers/netprobe" "$LLW_BUILDDIR/tests/helpers/probe" "$D/"
# capture.py IFACE OUT READY: one line per IP packet arriving on IFACE,
# "v6 SRC DST NEXT PAYLOAD-TAIL" or "v4 SRC DST PROTO PAYLOAD-TAIL" (the
# last bytes of the packet, printable), appended to OUT.
cat >"$D/capture.py" <<'EOF'
import socket, struct, sys
iface, out, ready = sys.argv[1:4]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind((iface, 0))
open(ready, "w").close()
while True:
    pkt, addr = s.recvfrom(65536)
    if addr[2] == socket.PACKET_OUTGOING:
        continue
    eth = struct.unpack("!H", pkt[12:14])[0]
    ip = pkt[14:]
    # (";" too is shown as ".": settle joins the lines with it.)
    tail = "".join(chr(c) if 32 < c < 127 and c != 59 else "." for c in pkt[-16:])
    if eth == 0x86dd and len(ip) >= 40:
        line = "v6 %s %s %d %s" % (socket.inet_ntop(socket.AF_INET6, ip[8:24]),
                                   socket.inet_ntop(socket.AF_INET6, ip[24:40]), ip[6], tail)
    elif eth == 0x0800 and len(ip) >= 20:
        line = "v4 %s %s %d %s" % (socket.inet_ntop(socket.AF_INET, ip[12:16]),
                                   socket.inet_ntop(socket.AF_INET, ip[16:20]), ip[9], tail)
    else:
        continue
    with open(out, "a") as f:
        f.write(line + "\n")
EOF
cat >"$D/ports.ini" <<'EOF'
[profile]
include = default
[network]
supervise = yes
connect-tcp = 9000 9001
connect-udp = 9000
EOF
# inner.sh LLWRAP [BACKEND]: in the new namespaces (as their root), the
# fixture, then each case between "== NAME" lines, llwrap run as the test
# user ($U: as users run it, when the suite runs as root), and a few as
# root ("== root").
cat >"$D/inner.sh" <<'SH'
L=$1; B=${2:-}; d=$(dirname "$0")
U=$LLW_AS_USER; unset LLW_AS_USER
setup_failed() { echo "SETUP: $*"; exit 2; }
ip link set lo up || setup_failed "cannot bring lo up"
ip link add v0 type veth peer name v1 2>&1 || setup_failed "cannot create a veth pair (no veth driver?)"
unshare -n sh -c 'ip link set lo up
	while ! ip link show v1 >/dev/null 2>&1; do sleep 0.05; done
	ip addr add 192.0.2.2/30 dev v1 && ip addr add 2001:db8:ffff::2/64 dev v1 nodad &&
	ip addr add 198.51.100.7/32 dev v1 && ip addr add 2001:db8::7/128 dev v1 nodad &&
	ip addr add 2001:db8::66/128 dev v1 nodad &&
	ip addr add 64:ff9b::c633:6407/128 dev v1 nodad &&
	ip addr add 64:ff9b::c000:202/128 dev v1 nodad &&
	ip link set v1 up && ip route add default via 192.0.2.1 &&
	ip -6 route add default via 2001:db8:ffff::1 &&
	{ python3 "$1/capture.py" v1 "$1/captured" "$1/ready.capture" >/dev/null 2>&1 & } &&
	exec python3 "$1/srv.py" tcp 198.51.100.7 9000 "$1/w7" tcp 192.0.2.2 9000 "$1/w2" \
		tcp 2001:db8::7 9000 "$1/w7v6" tcp 2001:db8:ffff::2 9000 "$1/w2v6" \
		tcp 64:ff9b::c633:6407 9000 "$1/wnat" tcp 64:ff9b::c000:202 9000 "$1/wnatlocal" \
		udp 2001:db8::7 9000 "$1/u7" >/dev/null 2>&1' sh "$d" &
pid=$!
sleep 0.2
ip link set v1 netns $pid && ip addr add 192.0.2.1/30 dev v0 &&
	ip addr add 2001:db8:ffff::1/64 dev v0 nodad && ip link set v0 up &&
	ip route add 198.51.100.0/24 via 192.0.2.2 &&
	ip -6 route add 2001:db8::/64 via 2001:db8:ffff::2 &&
	ip -6 route add 64:ff9b::/96 via 2001:db8:ffff::2 ||
	setup_failed "cannot set up the veth pair"
# A server of this host's on every address.
python3 "$d/srv.py" tcp 0.0.0.0 9001 "$d/here" >/dev/null 2>&1 &
pid2=$!
i=0
while { [ ! -e "$d/ready.capture" ] || [ ! -e "$d/u7" ] || [ ! -e "$d/here" ]; } && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
[ -e "$d/ready.capture" ] || setup_failed "the capture cannot start (AF_PACKET)"
export XDG_STATE_HOME=$d/state
# shellcheck disable=SC2086
llw() { $U "$L" ${B:+--backend "$B"} --rx "$d" -n hostnet "$@" 2>&1; }
np="$d/netprobe"
# settle: let the capture write what arrived, then show it and start over.
settle() { sleep 0.3; echo "captured: $(tr '\n' ';' <"$d/captured" 2>/dev/null)"; : >"$d/captured"; }
echo "== base-srh"
"$np" rthdr-send srh 2001:db8::66 2001:db8::7 9000 llw-base-srh; settle
echo "== base-mip6"
"$np" rthdr-send mip6 2001:db8::66 2001:db8::7 9000 llw-base-mip6; settle
echo "== box-srh"
llw -p "$d/ports.ini" -- "$np" rthdr-send srh 2001:db8::66 2001:db8::7 9000 llw-box-srh; settle
echo "== box-mip6"
llw -p "$d/ports.ini" -- "$np" rthdr-send mip6 2001:db8::66 2001:db8::7 9000 llw-box-mip6; settle
echo "== box-none"
llw -p "$d/ports.ini" -- "$np" rthdr-send none 2001:db8::66 2001:db8::7 9000 llw-box-none; settle
echo "== passed-in"
for kind in udp tcp; do
	$U "$np" rthdr-exec srh 2001:db8::66 $kind 5 "$L" ${B:+--backend "$B"} --rx "$d" \
		-n hostnet -p "$d/ports.ini" --keep-fd 5 -- "$np" fd-send 5 2001:db8::7 9000 llw-passed-$kind 2>&1
	settle
done
echo "== local"
llw -p "$d/ports.ini" -- "$d/probe" tcp-connect 198.51.100.7 9000
llw -p "$d/ports.ini" -- "$d/probe" tcp-connect 2001:db8::7 9000
llw -p "$d/ports.ini" -- "$d/probe" tcp-connect 64:ff9b::c633:6407 9000
llw -p "$d/ports.ini" -- "$d/probe" tcp-connect 192.0.2.1 9001
llw -p "$d/ports.ini" -- "$d/probe" tcp-connect 127.0.0.1 9001
llw -p "$d/ports.ini" -- "$d/probe" tcp-connect 192.0.2.2 9000
llw -p "$d/ports.ini" -- "$d/probe" tcp-connect 2001:db8:ffff::2 9000
llw -p "$d/ports.ini" -- "$d/probe" tcp-connect 64:ff9b::c000:202 9000
llw -p "$d/ports.ini" --allow-cidr 192.0.2.2/32:9000 -- "$d/probe" tcp-connect 192.0.2.2 9000
"$d/probe" tcp-connect 192.0.2.1 9001
sleep 0.3
echo "here: $(cat "$d/here"); neighbour: $(cat "$d/w2"); neighbour v6: $(cat "$d/w2v6"); nat64 local: $(cat "$d/wnatlocal")"
echo "== root"
# llwrap run as root: the real root's when the suite runs as root, else a
# user namespace's (as every case above then).
llw_root() { "$L" ${B:+--backend "$B"} --rx "$d" -n hostnet "$@" 2>&1; }
llw_root -p "$d/ports.ini" -- "$np" rthdr-send srh 2001:db8::66 2001:db8::7 9000 llw-root-srh; settle
llw_root -p "$d/ports.ini" -- "$d/probe" tcp-connect 192.0.2.2 9000
llw_root -p "$d/ports.ini" -- "$d/probe" tcp-connect 198.51.100.7 9000
echo "== log"
cat "$d"/state/llwrap/*.log
echo "== end"
kill $pid $pid2
SH
chmod -R a+rX "$D"
chown -R "$TEST_UID:$TEST_GID" "$D" 2>/dev/null

run netns_fixture sh "$D/inner.sh" "$LLWRAP" "${LLW_BACKEND:-}"
all=$out
case $all in
*SETUP:*)
	skip_rest "the fixture network cannot be built here: $(printf '%s\n' "$all" | sed -n 's/^SETUP: //p' | head -1)" ;;
esac
section() {
	out=$(printf '%s\n' "$all" | sed -n "/^== $1\$/,/^== /p" | sed '1d;$d')
}

section base-srh
if printf '%s\n' "$out" | grep -q '^SUCCEEDED rthdr-send'; then
	expect_output "outside the sandbox a type 4 routing header sends the payload to its address, not the connected one (the capture sees it)" \
		"^captured: .*v6 2001:db8:ffff::1 2001:db8::66 43 [^;]*llw-base-srh"
else
	skip "this kernel refuses a type 4 routing header itself: $out"
fi
section base-mip6
case $out in
SUCCEEDED*)
	expect_output "... and a type 2 header through IPV6_2292PKTOPTIONS (CONFIG_IPV6_MIP6) does the same" \
		"^captured: .*v6 2001:db8:ffff::1 2001:db8::66 43 [^;]*llw-base-mip6" ;;
*EINVAL*) skip "this kernel refuses a type 2 routing header itself (no CONFIG_IPV6_MIP6)" ;;
*) not_ok "a type 2 routing header outside the sandbox"; diag "$out" ;;
esac
section box-srh
expect_output "in the sandbox IPV6_RTHDR is refused" "^DENIED rthdr-send errno=EPERM"
expect_no_output "... and nothing reaches the header's address" "2001:db8::66"
if [ "$(id -u)" -eq 0 ]; then
	expect_no_output "llwrap ran as the test user (no note that the command runs as root)" "runs as root"
else
	skip "not root: llwrap runs as root in a user namespace of the test's"
fi
section box-mip6
expect_output "in the sandbox IPV6_2292PKTOPTIONS with a type 2 header is refused" "^DENIED rthdr-send errno=EPERM"
expect_no_output "... and nothing reaches the header's address" "2001:db8::66"
section box-none
expect_output "the same socket without a header sends" "^SUCCEEDED rthdr-send none"
expect_output "... and its payload reaches the connected address (the capture sees the sandbox's packets)" \
	"^captured: .*v6 2001:db8:ffff::1 2001:db8::7 17 [^;]*llw-box-none"
section passed-in
n=$(printf '%s\n' "$out" | grep -c '^DENIED fd-send errno=EPERM')
if [ "$n" -eq 2 ]; then
	ok "a UDP and a TCP socket passed in with a routing header: the supervisor connects neither (EPERM)"
else
	not_ok "sockets passed in with a routing header"
	diag "$out"
fi
expect_no_output "... and nothing of theirs reaches the header's address" "2001:db8::66"

section local
expect_output "a port rule reaches an address routed through the link" "^SUCCEEDED tcp-connect 198\\.51\\.100\\.7"
expect_output "... over IPv6 too" "^SUCCEEDED tcp-connect 2001:db8::7"
expect_output "... and the NAT64 form of one" "^SUCCEEDED tcp-connect 64:ff9b::c633:6407"
n=$(printf '%s\n' "$out" | grep -c '^DENIED tcp-connect errno=EACCES')
if [ "$n" -eq 5 ]; then
	ok "this host's own global address, loopback, an on-link neighbour (IPv4, IPv6) and the NAT64 form of one are refused (EACCES)"
else
	not_ok "local destinations under port rules: $n of 5 refused"
	diag "$out"
fi
expect_output "... allow-cidr reaches the neighbour" "^SUCCEEDED tcp-connect 192\\.0\\.2\\.2"
expect_output "... and the host's server answers on its global address outside the sandbox" "^SUCCEEDED tcp-connect 192\\.0\\.2\\.1"
expect_output "... which got that one connection only; the neighbour the allowed one; the NAT64 neighbour none" \
	"^here: 1; neighbour: 1; neighbour v6: 0; nat64 local: 0"

section root
expect_output "llwrap run as root says the command runs as root" "^llwrap: [^ ]*netprobe runs as root"
expect_output "as root, IPV6_RTHDR is refused in the sandbox" "^DENIED rthdr-send errno=EPERM"
expect_no_output "... and nothing reaches the header's address" "2001:db8::66"
expect_output "... an on-link neighbour is refused as local" "^DENIED tcp-connect errno=EACCES"
expect_output "... an address routed through the link is reached" "^SUCCEEDED tcp-connect 198\\.51\\.100\\.7"

section log
for t in 192.0.2.1:9001 192.0.2.2:9000 "\\[2001:db8:ffff::2\\]:9000" "\\[64:ff9b::c000:202\\]:9000"; do
	expect_output "logged as filtered/local: $t" "connect tcp $t pid=[0-9]+ comm=probe rule=filtered/local"
done
expect_output "the sockets passed in: logged as filtered/source-route" \
	"connect udp \\[2001:db8::7\\]:9000 pid=[0-9]+ comm=netprobe rule=filtered/source-route"
done_testing
