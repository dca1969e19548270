#!/bin/sh
# Name resolution under -p opencode (a name allow-host names: the
# profile's own are not on the test's resolver): llwrap's resolver asks
# the system's resolvers over UDP and over TCP, so a resolver that answers
# only UDP works, and so does one that truncates UDP answers (TC) and
# answers in full only over TCP.  The resolver is a fixture on
# 127.0.0.1:53 in a network namespace of the test's own (owned by a user
# namespace, where port 53 needs no privilege), /etc/resolv.conf bind
# mounted to name it: no privileged port on the host, no other address.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

if ! "$LLWRAP" --check 2>/dev/null | grep -q "S  supervisor   usable"; then
	skip_rest "the supervisor is unavailable here: $("$LLWRAP" --check | grep supervisor)"
fi
if ! userns_works; then
	skip_rest "no unprivileged user namespaces: the fixture resolver needs a network namespace of its own"
fi
for tool in unshare getent ip python3; do
	command -v "$tool" >/dev/null || skip_rest "$tool is not installed"
done

D=$T/dns
mkdir -p "$D"
cp "$LLW_DATA/dns/dns.py" "$D/"
echo "nameserver 127.0.0.1" >"$D/resolv.conf"
# inner.sh MODE CMD...: in the new namespaces (as their root), name the
# fixture in /etc/resolv.conf, start it, and resolve www.llw.test bare
# and under CMD (its stderr in $d/err: as the namespace's root, llwrap
# says the command runs as root).
cat >"$D/inner.sh" <<'SH'
mode=$1; d=$2; shift 2
mount --bind "$d/resolv.conf" /etc/resolv.conf || exit 2
ip link set lo up || exit 2
python3 "$d/dns.py" "$mode" "$d/ready.$mode" &
pid=$!
i=0
while [ ! -e "$d/ready.$mode" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
echo "bare: $(getent hosts www.llw.test)"
before=$(cat "$d/ready.$mode")
echo "sandboxed: $("$@" getent hosts www.llw.test 2>"$d/err")"
echo "asked by the sandbox: $(($(cat "$d/ready.$mode") - before))"
kill $pid
SH
chmod -R a+rX "$D"
chown -R "$TEST_UID:$TEST_GID" "$D" 2>/dev/null

for mode in udp tc; do
	case $mode in
	udp) what="a resolver that answers only over UDP" ;;
	tc) what="a resolver that truncates UDP answers and answers over TCP" ;;
	esac
	run as_user unshare -r -n -m sh "$D/inner.sh" "$mode" "$D" \
		$LLWRAP_B --rx "$LLW_HELPERS" -p opencode --allow-host www.llw.test --
	expect_output "$mode: bare, the fixture answers ($what)" "^bare: 127\\.0\\.0\\.7 +www\\.llw\\.test"
	expect_output "$mode: -p opencode resolves an allowed name through $what" "^sandboxed: 127\\.0\\.0\\.7 +www\\.llw\\.test"
	rm -f "$D/ready.$mode"
done

# The same fixture, a resolver the sandbox was not given: port 53 of any
# other address is refused (supervisor.sh counts the datagrams).
run as_user unshare -r -n -m sh "$D/inner.sh" udp "$D" \
	$LLWRAP_B --rx "$LLW_HELPERS" -p opencode --allow-host www.llw.test --dns 127.0.0.2 --
expect_output "with --dns naming another resolver, the name does not resolve" "^sandboxed: *\$"
expect_output "... and the fixture was never asked" "^asked by the sandbox: 0\$"

done_testing
