#!/bin/sh
# Name resolution under -p opencode (a name allow-host names: the
# profile's own are not on the test's resolver): llwrap's resolver asks
# the system's resolvers over UDP and over TCP, so a resolver that answers
# only UDP works, and so does one that truncates UDP answers (TC) and
# answers in full only over TCP.  The resolver is a fixture on
# 127.0.0.1:53 in a network namespace of the test's own (netns_fixture:
# as root, the real root's, and llwrap runs as the test user, as users
# run it, and once as root; otherwise owned by a user namespace, where
# port 53 needs no privilege and llwrap runs as its root),
# /etc/resolv.conf bind mounted to name it: no privileged port on the
# host, no other address.
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
# inner.sh MODE[-root] CMD...: in the new namespaces (as their root), name
# the fixture in /etc/resolv.conf, start it, and resolve www.llw.test
# bare and under CMD, run as the test user ($U), or as root with -root
# (its stderr in $d/err: as root, llwrap says the command runs as root).
cat >"$D/inner.sh" <<'SH'
mode=$1; d=$2; shift 2
U=$LLW_AS_USER; unset LLW_AS_USER
# As root, a home of root's own: the test user's is not root's to
# enter under bubblewrap (process.sh).
case $mode in
*-root) mode=${mode%-root} U= HOME=$d/root ;;
esac
mount --bind "$d/resolv.conf" /etc/resolv.conf || exit 2
ip link set lo up || exit 2
python3 "$d/dns.py" "$mode" "$d/ready.$mode" &
pid=$!
i=0
while [ ! -e "$d/ready.$mode" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
echo "bare: $(getent hosts www.llw.test)"
before=$(cat "$d/ready.$mode")
# shellcheck disable=SC2086
echo "sandboxed: $($U "$@" getent hosts www.llw.test 2>"$d/err")"
echo "asked by the sandbox: $(($(cat "$d/ready.$mode") - before))"
echo "notes that the command runs as root: $(grep -c 'runs as root' "$d/err")"
kill $pid
SH
chmod -R a+rX "$D"
chown -R "$TEST_UID:$TEST_GID" "$D" 2>/dev/null
mkdir "$D/root"

# tc-root: llwrap run as root (the real root's when the suite runs as
# root), its resolver dropping what root holds.
for mode in udp tc tc-root; do
	case $mode in
	udp) what="a resolver that answers only over UDP" ;;
	tc) what="a resolver that truncates UDP answers and answers over TCP" ;;
	tc-root) what="the latter, llwrap run as root" ;;
	esac
	run netns_fixture sh "$D/inner.sh" "$mode" "$D" \
		$LLWRAP_B --rx "$LLW_HELPERS" -p opencode --allow-host www.llw.test --
	expect_output "$mode: bare, the fixture answers ($what)" "^bare: 127\\.0\\.0\\.7 +www\\.llw\\.test"
	expect_output "$mode: -p opencode resolves an allowed name through $what" "^sandboxed: 127\\.0\\.0\\.7 +www\\.llw\\.test"
	case $mode in
	*-root) expect_output "... llwrap ran as root" "^notes that the command runs as root: 1$" ;;
	*) if [ "$(id -u)" -eq 0 ]; then
		expect_output "... llwrap ran as the test user" "^notes that the command runs as root: 0$"
	else
		skip "not root: llwrap runs as root in a user namespace of the test's"
	fi ;;
	esac
	rm -f "$D/ready.${mode%-root}"
done

# The same fixture, a resolver the sandbox was not given: port 53 of any
# other address is refused (supervisor.sh counts the datagrams).
run netns_fixture sh "$D/inner.sh" udp "$D" \
	$LLWRAP_B --rx "$LLW_HELPERS" -p opencode --allow-host www.llw.test --dns 127.0.0.2 --
expect_output "with --dns naming another resolver, the name does not resolve" "^sandboxed: *\$"
expect_output "... and the fixture was never asked" "^asked by the sandbox: 0\$"

done_testing
