#!/bin/sh
# llwrap's HTTP(S) proxy for named hosts (DESIGN.md §6.1, design (b);
# allow-host with proxy = yes, and where user namespaces are refused:
# named.sh shows that fallback).  Everything runs in network namespaces of
# the test's own (owned by a user namespace the test creates): fixture
# HTTP and HTTPS servers on 198.51.100.7 (api.llw.test, other.llw.test)
# and 203.0.113.9 (evil.llw.test) in a second namespace behind a veth
# pair, routed to through its far end 192.0.2.2 (link.llw.test, an
# on-link neighbour), and on this host's own 192.0.2.1 (self.llw.test)
# and 127.0.0.9 (rebind.llw.test).  The names come from a private
# /etc/hosts bind mount, which the proxy resolves with as any resolver
# would; /etc/resolv.conf names 192.0.2.53, which nothing answers.
# 198.51.100.0/24 and 203.0.113.0/24 are documentation ranges, not on a
# link of this host: not local, so only the name rules decide for the
# servers behind the veth.
#
# Asserted, each with its legitimate neighbour: bad allow-host values
# are file:line errors; an allowed name is reached over https (curl,
# Python) and plain http, 32 MiB whole; a one-label wildcard; a name not
# in allow-host gets 403 and a log line; a name allowed on 8443 does not
# reach 8080; an SNI other than the CONNECT name is refused; an IP
# literal only with allow-cidr; a name resolving to loopback or to this
# host's own address is refused (rebinding) unless allow-cidr holds it;
# a client that ignores the proxy fails at once, DNS included, and the
# note names the proxy; the same without user namespaces
# (llwrap-hooked, LLW_HOOK_NO_USERNS); the log names pid and command.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

# Bad input: file:line (or the flag), exit 125, before anything runs.
printf '[network]\nallow-host = api.openai.com\nallow-host = api.*.com\n' >"$T/bad.ini"
chmod a+r "$T/bad.ini"
run as_user "$LLWRAP" -p "$T/bad.ini" -- true
expect_rc "a wildcard in the wrong place is an error (125)" 125
expect_output "... naming file:line" "bad\\.ini:3: \\[network\\] allow-host: bad host 'api\\.\\*\\.com'"
run as_user "$LLWRAP" --allow-host registry.npmjs.org:65536 -- true
expect_rc "a port out of range is an error (125)" 125
expect_output "... naming the value" "bad host 'registry\\.npmjs\\.org:65536'"
run as_user "$LLWRAP" --allow-host 'api..openai.com' -- true
expect_rc "a malformed name is an error (125)" 125

if ! "$LLWRAP" --check 2>/dev/null | grep -q "S  supervisor   usable"; then
	skip_rest "the supervisor is unavailable here: $("$LLWRAP" --check | grep supervisor)"
fi
run as_user "$LLWRAP" --proxy --allow-host '*.githubusercontent.com' \
	--allow-host registry.npmjs.org:443 --explain -- true
expect_rc "good names are accepted (--explain)" 0
expect_output "... and shown with the proxy" "host \\*\\.githubusercontent\\.com; host registry\\.npmjs\\.org:443 \\(supervised: names only through llwrap's proxy"
# llwrap why, with the proxy: an address outside allow-cidr, and DNS,
# are refused to the command (filtered/proxy); inside allow-cidr it is
# reached.  (Names under allow-host: why.sh.)
why() {
	run as_user $LLWRAP_B --proxy --allow-host api.openai.com:443 \
		--allow-cidr 10.0.0.0/8:443 why "$@"
}
why 203.0.113.7:443
expect_rc "why: an address outside allow-cidr is denied (exit 1)" 1
expect_output "... by filtered/proxy" "rule: +filtered/proxy "
expect_output "... with the entry to add" "allow: +\\[network\\] allow-cidr = 203\\.0\\.113\\.7/32:443"
why 10.1.2.3:443
expect_rc "why: ... inside allow-cidr it is allowed" 0
why --udp 192.0.2.53:53
expect_output "why: DNS is the proxy's" "names are resolved by llwrap's proxy"

if ! userns_works; then
	skip_rest "no unprivileged user namespaces: the fixture servers need a network namespace of their own"
fi
for tool in unshare ip python3 openssl curl; do
	command -v "$tool" >/dev/null || skip_rest "$tool is not installed"
done

D=$T/proxy
mkdir -p "$D"
cp "$LLW_DATA/proxy/servers.py" "$LLW_DATA/proxy/client.py" "$LLW_DATA/helper-of.sh" "$D/"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=api.llw.test \
	-addext "subjectAltName=DNS:api.llw.test,DNS:other.llw.test,DNS:evil.llw.test,DNS:rebind.llw.test" \
	-keyout "$D/key.pem" -out "$D/cert.pem" 2>/dev/null ||
	skip_rest "openssl cannot make a test certificate"
cat >"$D/hosts" <<'EOF'
127.0.0.1 localhost
198.51.100.7 api.llw.test other.llw.test x.wild.llw.test a.b.wild.llw.test
203.0.113.9 evil.llw.test
127.0.0.9 rebind.llw.test
192.0.2.1 self.llw.test
192.0.2.2 link.llw.test
EOF
echo "nameserver 192.0.2.53" >"$D/resolv.conf"
cat >"$D/allow.ini" <<'EOF'
[profile]
include = default
[network]
proxy = yes
allow-host = api.llw.test:8443,8080 other.llw.test:8443
allow-host = *.wild.llw.test:8443
EOF
cp "$LLW_BUILDDIR/tests/helpers/llwrap-hooked" "$D/llwrap-hooked"
# inner.sh LLWRAP [BACKEND]: in the new namespaces (as their root), the fixture,
# then each case between "== NAME" lines, llwrap run as the test user
# ($U: as users run it, when the suite runs as root), and a few as root
# ("== root").
cat >"$D/inner.sh" <<'SH'
L=$1; B=${2:-}; d=$(dirname "$0")
U=$LLW_AS_USER; unset LLW_AS_USER
mount --bind "$d/hosts" /etc/hosts || exit 2
mount --bind "$d/resolv.conf" /etc/resolv.conf || exit 2
ip link set lo up || exit 2
# The servers of the names in a namespace of their own behind a veth
# pair (v1 there, v0 here), routed to through its far end as an internet
# host is (on-link, they would be this host's networks: local); this
# host's own addresses are 192.0.2.1 (self.llw.test) and 127.0.0.9
# (rebind.llw.test), served here.
ip link add v0 type veth peer name v1 || exit 2
unshare -n sh -c 'ip link set lo up
	while ! ip link show v1 >/dev/null 2>&1; do sleep 0.05; done
	ip addr add 192.0.2.2/30 dev v1 &&
	ip addr add 198.51.100.7/32 dev v1 && ip addr add 203.0.113.9/32 dev v1 &&
	ip link set v1 up && ip route add default via 192.0.2.1 &&
	exec python3 "$1/servers.py" "$1/cert.pem" "$1/key.pem" "$1/ready" \
		198.51.100.7 203.0.113.9 192.0.2.2' sh "$d" &
pid=$!
sleep 0.2
ip link set v1 netns $pid && ip addr add 192.0.2.1/30 dev v0 &&
	ip link set v0 up && ip route add 198.51.100.0/24 via 192.0.2.2 &&
	ip route add 203.0.113.0/24 via 192.0.2.2 || exit 2
python3 "$d/servers.py" "$d/cert.pem" "$d/key.pem" "$d/ready.here" \
	192.0.2.1 127.0.0.9 &
pid2=$!
i=0
while { [ ! -e "$d/ready" ] || [ ! -e "$d/ready.here" ]; } && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
export XDG_STATE_HOME=$d/state
# shellcheck disable=SC2086
llw() { $U "$L" ${B:+--backend "$B"} --ro "$d" -p "$d/allow.ini" "$@" 2>&1; }
. "$d/helper-of.sh"
echo "== env"
llw -- env | grep -i -e proxy | sort
echo "== https-allowed"
llw -- curl -sS -m 10 --cacert "$d/cert.pem" https://api.llw.test:8443/
echo "== python-allowed"
llw -- python3 -c "
import os, ssl, urllib.request
ctx = ssl.create_default_context(cafile='$d/cert.pem')
print(urllib.request.urlopen('https://api.llw.test:8443/', context=ctx, timeout=10).read().decode().strip())"
echo "== http-allowed"
llw -- curl -sS -m 10 http://api.llw.test:8080/
echo "== bulk"
llw -- sh -c "curl -sS -m 60 http://api.llw.test:8080/bytes/33554433 | wc -c
curl -sS -m 60 --cacert $d/cert.pem https://api.llw.test:8443/bytes/33554433 | wc -c"
echo "== flood"
llw -- sh -c "python3 $d/client.py flood 300; sleep 0.5
curl -sS -m 10 http://api.llw.test:8080/"
echo "== wildcard"
llw -- curl -sS -m 10 -k https://x.wild.llw.test:8443/
llw -- curl -sS -m 10 -k https://a.b.wild.llw.test:8443/
echo "== denied-name"
llw -- curl -sS -m 10 --cacert "$d/cert.pem" https://evil.llw.test:8443/
llw -- curl -sS -m 10 http://evil.llw.test:8080/
echo "== port"
llw -- curl -sS -m 10 http://other.llw.test:8080/
llw -- curl -sS -m 10 --cacert "$d/cert.pem" https://other.llw.test:8443/
echo "== sni"
llw -- python3 "$d/client.py" tunnel api.llw.test:8443 evil.llw.test "$d/cert.pem"
llw -- python3 "$d/client.py" tunnel api.llw.test:8443 api.llw.test "$d/cert.pem"
echo "== ip-literal"
llw -- curl -sS -m 10 -k https://198.51.100.7:8443/
llw --allow-cidr 198.51.100.7/32:8443 -- curl -sS -m 10 -k https://198.51.100.7:8443/
echo "== rebind"
llw --allow-host rebind.llw.test:8080 -- curl -sS -m 10 http://rebind.llw.test:8080/
llw --allow-host rebind.llw.test:8080 --allow-cidr 127.0.0.9/32:8080 -- curl -sS -m 10 http://rebind.llw.test:8080/
echo "== own"
llw --allow-host self.llw.test:8080 -- curl -sS -m 10 http://self.llw.test:8080/
llw --allow-host self.llw.test:8080 --allow-cidr 192.0.2.1/32:8080 -- curl -sS -m 10 http://self.llw.test:8080/
echo "== onlink"
llw --allow-host link.llw.test:8080 -- curl -sS -m 10 http://link.llw.test:8080/
llw --allow-host link.llw.test:8080 --allow-cidr 192.0.2.2/32:8080 -- curl -sS -m 10 http://link.llw.test:8080/
echo "== direct"
llw -- python3 "$d/client.py" direct 198.51.100.7 8443
llw -- getent hosts not-in-hosts.llw.test; echo "getent status $?"
echo "== no-userns"
[ -z "$B" ] && LLW_HOOK_NO_USERNS=1 $U "$d/llwrap-hooked" --ro "$d" -p "$d/allow.ini" -- sh -c "
curl -sS -m 10 --cacert $d/cert.pem https://api.llw.test:8443/
curl -sS -m 10 --cacert $d/cert.pem https://evil.llw.test:8443/
python3 $d/client.py direct 198.51.100.7 8443" 2>&1
echo "== confined"
# The command waits for the look to end.
llw -- sh -c "while [ ! -e $d/looked ]; do sleep 0.1; done" >/dev/null &
sleeper=$!
if p=/proc/$(helper_of $sleeper llwrap-proxy); then
	grep NoNewPrivs "$p/status"
fi
: >"$d/looked"
wait $sleeper
echo "== root"
# llwrap run as root: the real root's when the suite runs as root, else a
# user namespace's (as every case above then).  The proxy drops what
# root holds.
llw_root() { "$L" ${B:+--backend "$B"} --ro "$d" -p "$d/allow.ini" "$@" 2>&1; }
llw_root -- curl -sS -m 10 --cacert "$d/cert.pem" https://api.llw.test:8443/
llw_root -- curl -sS -m 10 --cacert "$d/cert.pem" https://evil.llw.test:8443/
llw_root -- sh -c "while [ ! -e $d/looked.root ]; do sleep 0.1; done" >/dev/null &
sleeper=$!
if p=/proc/$(helper_of $sleeper llwrap-proxy); then
	grep -e NoNewPrivs -e CapEff -e CapBnd "$p/status"
fi
: >"$d/looked.root"
wait $sleeper
echo "== log"
cat "$d"/state/llwrap/*.log
echo "== end"
kill $pid $pid2
SH
chmod -R a+rX "$D"
chown -R "$TEST_UID:$TEST_GID" "$D" 2>/dev/null

run netns_fixture sh "$D/inner.sh" "$LLWRAP" "${LLW_BACKEND:-}"
all=$out
# section NAME: the output of one case.
section() {
	out=$(printf '%s\n' "$all" | sed -n "/^== $1\$/,/^== /p" | sed '1d;$d')
}

section env
expect_output "the command's environment names the proxy (HTTPS_PROXY)" "^HTTPS_PROXY=http://127\\.0\\.0\\.1:[0-9]+$"
expect_output "... and HTTP_PROXY, lower case too" "^http_proxy=http://127\\.0\\.0\\.1:[0-9]+$"
expect_output "... NO_PROXY names loopback" "^NO_PROXY=localhost,127\\.0\\.0\\.1,::1$"
expect_output "... NODE_USE_ENV_PROXY=1 for Node" "^NODE_USE_ENV_PROXY=1$"

section https-allowed
expect_output "curl reaches an allowed name over https, through the proxy" "^hello api\\.llw\\.test:8443 from 198\\.51\\.100\\.7 sni=api\\.llw\\.test$"
if [ "$(id -u)" -eq 0 ]; then
	expect_no_output "... llwrap ran as the test user (no note that the command runs as root)" "runs as root"
else
	skip "not root: llwrap runs as root in a user namespace of the test's"
fi
section python-allowed
expect_output "Python's urllib reaches it too" "^hello api\\.llw\\.test:8443 from 198\\.51\\.100\\.7 sni=api\\.llw\\.test$"
section http-allowed
expect_output "plain http to an allowed name is forwarded (HTTP_PROXY)" "^hello api\\.llw\\.test(:8080)? from 198\\.51\\.100\\.7 sni=-$"

section bulk
if [ "$(printf '%s\n' "$out" | grep -c '^33554433$')" -eq 2 ]; then
	ok "32 MiB and a byte arrive whole through the proxy, over http and https"
else
	not_ok "32 MiB and a byte arrive whole through the proxy, over http and https"
	diag "$out"
fi

section flood
expect_output "past 256 clients at once the proxy closes new ones at once" "^closed 44 of 300$"
expect_output "... and serves again once they are gone" "^hello api\\.llw\\.test(:8080)? from 198\\.51\\.100\\.7"

section wildcard
expect_output "a one-label wildcard allows x.wild.llw.test" "^hello x\\.wild\\.llw\\.test:8443 from 198\\.51\\.100\\.7"
expect_output "... not a.b.wild.llw.test (403)" "CONNECT tunnel failed, response 403"

section denied-name
expect_output "a name not in allow-host gets 403 over https" "CONNECT tunnel failed, response 403"
expect_output "... and over http, with the reason and the rule" "evil\\.llw\\.test:8080 is blocked by the sandbox's policy: not in allow-host \\(rule filtered/host\\)"

section port
expect_output "a name allowed on 8443 only does not reach 8080" "other\\.llw\\.test:8080 is blocked .*allow-host does not allow this port \\(rule filtered/host-port, .*allow\\.ini:5\\)"
expect_output "... and reaches 8443" "^hello other\\.llw\\.test:8443 from 198\\.51\\.100\\.7"

section sni
expect_output "a ClientHello naming another server than CONNECT's is refused (domain fronting)" "^tls failed:"
expect_no_output "... the server never answered it" "sni=evil"
expect_output "... the same tunnel with the CONNECT name works" "^body: hello api\\.llw\\.test from 198\\.51\\.100\\.7 sni=api\\.llw\\.test$"

section ip-literal
expect_output "an IP literal outside allow-cidr is refused by the proxy" "CONNECT tunnel failed, response 403"
expect_output "... inside allow-cidr it is reached" "^hello 198\\.51\\.100\\.7:8443 from 198\\.51\\.100\\.7"

section rebind
expect_output "an allowed name that resolves to loopback is refused (rebinding)" "rebind\\.llw\\.test:8080 is blocked .*rebinding\\) \\(rule filtered/rebind\\)"
expect_output "... unless allow-cidr holds the address" "^hello rebind\\.llw\\.test(:8080)? from 127\\.0\\.0\\.9"

section own
expect_output "an allowed name that resolves to an address of this host's own is refused" "self\\.llw\\.test:8080 is blocked .*one of this host's.* \\(rule filtered/rebind\\)"
expect_output "... unless allow-cidr holds it" "^hello self\\.llw\\.test(:8080)? from 192\\.0\\.2\\.1"

section onlink
expect_output "an allowed name that resolves to an on-link neighbour's global address is refused (this host's networks)" "link\\.llw\\.test:8080 is blocked .*one of this host's.* \\(rule filtered/rebind\\)"
expect_output "... unless allow-cidr holds it" "^hello link\\.llw\\.test(:8080)? from 192\\.0\\.2\\.2"

section direct
expect_output "a client that ignores the proxy fails at once (EACCES)" "^failed: 13 "
expect_output "... told that it ignored the proxy" "connect tcp 198\\.51\\.100\\.7:8443 \\(rule filtered/proxy\\); to allow: this client ignored llwrap's proxy"
expect_output "DNS is refused: names go through the proxy" "connect udp 192\\.0\\.2\\.53:53 \\(rule filtered/proxy\\); to allow: nothing: names are resolved by llwrap's proxy"

section no-userns
if bwrap_backend; then
	for _ in 1 2 3; do
		skip "without user namespaces bubblewrap cannot run: the path of the Landlock backend"
	done
elif [ "$(landlock_abi)" -lt 3 ]; then
	# Nothing stands in for truncate(2) before ABI 3 without user
	# namespaces (DESIGN.md §14): the policy fails closed.
	expect_output "without user namespaces on Landlock ABI $(landlock_abi): the policy is refused, naming truncate(2)" \
		"this kernel cannot enforce the policy: truncate\\(2\\)"
	for _ in 1 2; do
		skip "... so the proxy path cannot be tried here"
	done
else
	expect_output "without user namespaces: the allowed name is reached through the proxy" "^hello api\\.llw\\.test:8443 from 198\\.51\\.100\\.7 sni=api\\.llw\\.test$"
	expect_output "... the denied one is not" "CONNECT tunnel failed, response 403"
	expect_output "... a direct connect fails at once" "^failed: 13 "
fi

section confined
if [ "$(landlock_abi)" -gt 0 ]; then
	expect_output "the proxy confines itself (no_new_privs, then Landlock)" "^NoNewPrivs:[[:space:]]+1$"
else
	skip "Landlock is unavailable here: the proxy runs unconfined"
fi

section root
expect_output "llwrap run as root says the command runs as root" "^llwrap: curl runs as root"
expect_output "as root, the allowed name is reached through the proxy" "^hello api\\.llw\\.test:8443 from 198\\.51\\.100\\.7 sni=api\\.llw\\.test$"
expect_output "... the denied one is not" "CONNECT tunnel failed, response 403"
if [ "$(landlock_abi)" -gt 0 ]; then
	expect_output "... the proxy has no new privileges" "^NoNewPrivs:[[:space:]]+1$"
else
	skip "Landlock is unavailable here: the proxy runs unconfined"
fi
expect_output "... no capability" "^CapEff:[[:space:]]+0+$"
expect_output "... and an empty bounding set" "^CapBnd:[[:space:]]+0+$"

section log
expect_output "the proxy's refusals are logged like the supervisor's" "^llwrap-[a-z0-9]+-blocked: connect tcp evil\\.llw\\.test:8443 pid=[0-9]+ comm=curl rule=filtered/host$"
expect_output "... fronting too" "connect tcp api\\.llw\\.test:8443 pid=[0-9]+ comm=python3 rule=filtered/sni$"
expect_output "... rebinding too" "connect tcp rebind\\.llw\\.test:8080 pid=[0-9]+ comm=curl rule=filtered/rebind$"
expect_output "... and the supervisor's refusal of a direct connect" "connect tcp 198\\.51\\.100\\.7:8443 pid=[0-9]+ comm=python3 rule=filtered/proxy$"

done_testing
