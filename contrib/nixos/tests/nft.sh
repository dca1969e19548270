#!/bin/sh
# The nftables tables the module renders (render.nix): nft -c accepts
# each, and in a network namespace this test creates, the table of an
# instance lets its uid reach the allowed CIDR and its own listener,
# rejects (and counts) everything else, IPv6 included, and leaves other
# uids alone.  No blanket loopback: instance a cannot reach b's server.
#
# Runs itself again inside "unshare -n" (root): nothing touches the
# host's network or ruleset.
if [ "${LLW_IN_NETNS:-}" != 1 ] && [ "$(id -u)" -eq 0 ] &&
	command -v unshare >/dev/null 2>&1 && command -v nft >/dev/null 2>&1; then
	if unshare -n true 2>/dev/null; then
		LLW_IN_NETNS=1 exec unshare -n "${SHELL:-/bin/sh}" "$0" "$@"
	fi
fi
. "$LLW_SRCDIR/tests/lib/libtest.sh"
. "$LLW_SRCDIR/contrib/nixos/tests/lib.sh"

have_nix || skip_rest "nix-instantiate is not installed (Debian: apt install nix-bin)"
command -v nft >/dev/null 2>&1 || skip_rest "nft is not installed (Debian: apt install nftables)"
[ "${LLW_IN_NETNS:-}" = 1 ] ||
	skip_rest "needs root and unshare -n (a network namespace of its own) for nft"

UID_A=$TEST_UID
UID_B=$((TEST_UID - 1))
R=/nonexistent
args="uidA = $UID_A; uidB = $UID_B; portA = 8787; portB = 8788;
	cidrs = [ \"10.10.0.0/16\" ]; dns = [ \"10.53.0.53\" ];"
render nftRuleset a "$R" "$args" >"$T/a.nft" || skip_rest "render.nix did not render a's table"
# b isolated too, with an IPv6 CIDR, to check the ip6 rules.
nix_str "let r = import $NIXOS/render.nix; i = ($(fixture "$R" "$args")).b; in r.nftRuleset (i // {
	networkIsolation = i.networkIsolation // { enable = true;
		outboundAllowCidrs = [ \"10.20.0.0/16\" \"fd00:20::/64\" ]; }; })" >"$T/b.nft" ||
	skip_rest "render.nix did not render b's table"
diag "instance a's table:"
sed 's/^/#   /' "$T/a.nft"

for n in a b; do
	run nft -c -f "$T/$n.nft"
	if [ "$rc" -eq 0 ]; then ok "nft -c accepts $n's table"; else not_ok "nft -c accepts $n's table"; diag "$out"; fi
done
run cat "$T/a.nft"
expect_output "a's table matches its numeric uid" "meta skuid $UID_A jump instance"
expect_output "a's table logs with a rate limit and the opencode-a-blocked prefix" \
	'limit rate 10/minute burst 5 packets log prefix "opencode-a-blocked: "'
expect_no_output "a's table has no IPv6 accept (none given)" 'ip6 daddr'
run cat "$T/b.nft"
expect_output "b's table accepts its IPv6 CIDR only through ip6" 'ip6 daddr \{ fd00:20::/64 \} accept'

# The namespace: loopback, with an address inside a's CIDR, one outside
# and an IPv6 one (local addresses: their traffic passes the output hook).
ip link set lo up &&
	ip addr add 10.10.0.1/32 dev lo &&
	ip addr add 10.99.0.1/32 dev lo &&
	ip -6 addr add fd00:99::1/128 dev lo nodad ||
	skip_rest "cannot add addresses to lo in the namespace"
nft -f "$T/a.nft" || skip_rest "nft -f of a's table failed in the namespace"

# Listeners as root (whose traffic no table matches).
cat >"$T/srv.py" <<'PY'
import os, select, socket, sys
socks = []
for a in sys.argv[2:]:
    host, port = a.rsplit(":", 1)
    s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, int(port)))
    s.listen(16)
    socks.append(s)
open(sys.argv[1], "w").write("up\n")
while True:
    for s in select.select(socks, [], [], 60)[0]:
        s.accept()[0].close()
PY
python3 "$T/srv.py" "$T/up" 10.10.0.1:9000 10.99.0.1:9000 "fd00:99::1:9000" \
	127.0.0.1:8787 127.0.0.1:8788 &
bg_pids="$bg_pids $!"
i=0
while [ ! -s "$T/up" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done

# as UID CMD...: CMD as that uid, no capabilities.
as() {
	_u=$1
	shift
	setpriv --reuid="$_u" --regid="$_u" --clear-groups --inh-caps=-all \
		--bounding-set=-all -- "$@"
}
blocked() {
	nft list counter inet opencode-a blocked | sed -n 's/.*packets \([0-9]*\).*/\1/p'
}

expect_succeeded "a's uid reaches its allowed CIDR (10.10.0.1)" as "$UID_A" "$PROBE" tcp-connect 10.10.0.1 9000
before=$(blocked)
expect_denied "a's uid is rejected outside it (10.99.0.1)" ECONNREFUSED as "$UID_A" "$PROBE" tcp-connect 10.99.0.1 9000
after=$(blocked)
if [ "${after:-0}" -gt "${before:-0}" ]; then
	ok "... and the rejection is counted ($before -> $after)"
else
	not_ok "... and the rejection is counted ($before -> $after)"
fi
expect_denied "a's uid is rejected on IPv6 (no IPv6 CIDR)" ECONNREFUSED as "$UID_A" "$PROBE" tcp-connect fd00:99::1 9000
expect_succeeded "a's uid reaches its own listener (127.0.0.1:8787)" as "$UID_A" "$PROBE" tcp-connect 127.0.0.1 8787
expect_denied "a's uid cannot reach instance b's server (127.0.0.1:8788): no blanket loopback" ECONNREFUSED \
	as "$UID_A" "$PROBE" tcp-connect 127.0.0.1 8788
expect_succeeded "another uid (b's) is not affected by a's table (10.99.0.1)" as "$UID_B" "$PROBE" tcp-connect 10.99.0.1 9000
expect_succeeded "another uid reaches b's server" as "$UID_B" "$PROBE" tcp-connect 127.0.0.1 8788
run nft list table inet opencode-a
expect_output "the loaded table carries the log rule" 'log prefix "opencode-a-blocked: "'

done_testing
