#!/bin/sh
# The escape corpus (llwrap-escape) against the shipped profiles, as an
# unprivileged user, once per backend: a TAP line per probe and a table
# probe x backend -> blocked / ESCAPED / skipped (reason).
#
# An ESCAPED probe fails unless conf/known-limits lists it for that
# backend (then it is a TAP TODO, an expected failure).  A listed probe
# that no longer escapes is reported as stale on a diagnostic line and in
# the table, without failing: a kernel or a layer closed it, and the
# entry should go (conf/known-limits explains why this warns).  A twin
# (the legitimate action beside each probe) that fails always fails.
#
# The table is written to $LLW_BUILDDIR/tests/escape/table.tsv;
# tests/escape/table-to-md.sh turns it into README.md's section.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

ESCAPE=$LLW_BUILDDIR/llwrap-escape
LIMITS=$LLW_SRCDIR/conf/known-limits
PROFILES="opencode default"
BACKENDS="landlock bwrap"
TABLE_DIR=$LLW_BUILDDIR/tests/escape
mkdir -p "$TABLE_DIR"

# The probe runs from a directory of its own: granting rx on the build
# tree would grant the scratch directory (and its fixture) with it.
mkdir -p "$T/bin"
cp "$ESCAPE" "$T/bin/llwrap-escape"
chmod 755 "$T/bin" "$T/bin/llwrap-escape"

# The profiles as files the test user owns, so that only the sandbox can
# refuse editing them (fs.config-edit).
CONF=$HOME_DIR/.config/llwrap/profiles
mkdir -p "$CONF"
cp "$LLW_SRCDIR"/conf/*.ini "$CONF/"
chown -R "$TEST_UID:$TEST_GID" "$HOME_DIR/.config"
LLWRAP_PROFILE_PATH=$CONF
export LLWRAP_PROFILE_PATH

# The project is a git repository, with a .envrc-less root.
git init -q "$PROJ" 2>/dev/null || mkdir -p "$PROJ/.git/hooks"
mkdir -p "$PROJ/.git/hooks"
chown -R "$TEST_UID:$TEST_GID" "$PROJ"

# The host side, as the test user, until its stdin closes.
HOSTDIR=$T/host
mkdir "$HOSTDIR"
chown "$TEST_UID:$TEST_GID" "$HOSTDIR"
mkfifo "$T/host.in"
chmod 666 "$T/host.in"
# Open both ends here first (so neither open blocks); the host gets the
# read end alone and sees end-of-file once fd 9 closes.
exec 9<>"$T/host.in"
# (An asynchronous command's own redirection: dash gives a background
# job /dev/null as stdin otherwise.)
(as_user_exec "$T/bin/llwrap-escape" host "$HOSTDIR/d" "$PROJ") \
	<"$T/host.in" >"$T/host.out" 2>"$T/host.err" 9>&- &
host_pid=$!
bg_pids="$bg_pids $host_pid"
i=0
while ! grep -q '^READY$' "$T/host.out" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
if ! grep -q '^READY$' "$T/host.out"; then
	not_ok "the host side of the corpus starts"
	diag "$(cat "$T/host.err")"
	done_testing
	exit
fi
# Its defaults, then this fixture's own secrets, home and project.
grep -v '^READY$' "$T/host.out" >"$T/fixture"
cat >>"$T/fixture" <<EOF
SECRET=$HOME_DIR/.ssh/id_ed25519
SECRET_DIR=$HOME_DIR/.ssh
AWS=$HOME_DIR/.aws/credentials
BASHRC=$HOME_DIR/.bashrc
OTHER=$OTHER/notes.txt
CONFIG=$CONF/opencode.ini
GIT=$PROJ/.git
DOTFILES=$PROJ
REAL_SSH=$HOME_DIR/.ssh
EOF
TCP_OK=$(sed -n 's/^TCP_OK=//p' "$T/fixture")
OWN_PORT=$(sed -n 's/^OWN_PORT=//p' "$T/fixture")

# run_corpus PROFILE BACKEND OUT: the corpus under llwrap, with a secret
# open on fd 7 that llwrap must not pass on.  The twins get one allowed
# loopback port and ephemeral binds, which both shipped profiles are
# meant to be used with (opencode has bind-tcp 0 already).
#
# bubblewrap has no port filtering, so the shipped profiles' port rules
# make it refuse (fail closed); the bwrap column runs with --best-effort,
# which drops exactly those, and the known limits say what that costs.
backend_opts() {
	[ "$1" = bwrap ] && echo --best-effort
}
# twin_opts PROFILE BACKEND: the twins' listener.  Under opencode's
# supervisor a port rule does not reach loopback: an allow-cidr entry
# names it.
# A port rule names the port of the host's service on its own address
# (net.own-address), which only the supervisor keeps local.
twin_opts() {
	if [ "$1" = opencode ]; then
		echo --allow-cidr "127.0.0.1/32:$TCP_OK" --allow-cidr "::1/128:$TCP_OK"
	else
		echo --connect-tcp "$TCP_OK"
	fi
	[ -n "$OWN_PORT" ] && echo --connect-tcp "$OWN_PORT"
}
run_corpus() {
	# shellcheck disable=SC2046
	as_user /bin/sh -c 'exec 7<"$0"; exec "$@"' "$HOME_DIR/.ssh/id_ed25519" \
		"$LLWRAP" --rx "$T/bin" -p "$1" --backend="$2" $(backend_opts "$2") \
		$(twin_opts "$1" "$2") --bind-tcp 0 -- "$T/bin/llwrap-escape" run \
		$(cat "$T/fixture") >"$3" 2>"$3.err"
}

# uses_l3 PROFILE BACKEND: whether that run has the namespace layer, whose
# known limits then do not apply.
uses_l3() {
	as_user "$LLWRAP" -p "$1" --backend="$2" $(backend_opts "$2") \
		--explain -- /bin/true 2>/dev/null | grep -q "^  L3 namespaces   yes"
}

# todo DESC REASON: an expected failure (TAP TODO, automake's XFAIL); it
# does not fail the script.
todo() {
	test_count=$((test_count + 1))
	echo "not ok $test_count - $1 # TODO $2"
}

# limit ID BACKEND: the known-limits entry (layer and reason), if any.
limit() {
	awk -v id="$1" -v be="$2" '
		/^[ \t]*(#|$)/ { next }
		$1 == id {
			n = split($2, b, ",")
			for (i = 1; i <= n; i++)
				if (b[i] == be || b[i] == "*") {
					layer = $3
					$1 = $2 = $3 = ""
					sub(/^ +/, "")
					print layer ": " $0
					exit
				}
		}' "$LIMITS"
}

# The shared-address probe (net.shared-address) needs a resolver and a
# front end serving every name on one address, which only network
# namespaces of the test's own give: the fixture of sni.sh (api.llw.test
# is 198.51.100.7, reached behind a veth pair, where servers.py answers
# TLS on 8443 for any server name).  The probe and its twin run there,
# under each profile and backend with --allow-host api.llw.test:8443,
# and their lines replace the main run's (which skips the probe: no
# fixture keys).  As root the namespaces are the real root's and llwrap
# runs as the test user; otherwise llwrap runs as root in a user
# namespace of the test's (netns_fixture).  $T/shared.PROFILE.BACKEND:
# the two lines; .err: llwrap's notes.
SHARED_KEYS="SHARED_HOST=api.llw.test SHARED_OTHER=other.llw.test SHARED_PORT=8443"
shared_skip() {
	for profile in $PROFILES; do
		for backend in $BACKENDS; do
			printf 'SKIPPED net.shared-address %s\nTWIN-SKIPPED net.shared-address %s\n' \
				"$1" "$1" >"$T/shared.$profile.$backend"
		done
	done
}
shared_fixture() {
	for tool in unshare ip python3 openssl; do
		command -v "$tool" >/dev/null ||
			{ shared_skip "$tool is not installed"; return; }
	done
	"$LLWRAP" --check 2>/dev/null | grep -q "unprivileged creation works" ||
		{ shared_skip "no unprivileged user namespaces (the resolver fixture needs network namespaces)"; return; }
	SD=$T/shared
	mkdir -p "$SD"
	cp "$LLW_DATA/named/names.py" "$LLW_DATA/proxy/servers.py" "$SD/"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=api.llw.test \
		-keyout "$SD/key.pem" -out "$SD/cert.pem" 2>/dev/null ||
		{ shared_skip "openssl cannot make a test certificate"; return; }
	echo "nameserver 192.0.2.53" >"$SD/resolv.conf"
	{
		cat <<SH
d=$SD
U=\$LLW_AS_USER; unset LLW_AS_USER
setup_failed() { echo "SETUP: \$*"; exit 2; }
mount --bind "\$d/resolv.conf" /etc/resolv.conf || setup_failed "cannot bind-mount /etc/resolv.conf"
ip link set lo up && ip addr add 192.0.2.53/32 dev lo || setup_failed "cannot address lo"
ip link add v0 type veth peer name v1 2>&1 || setup_failed "cannot create a veth pair (no veth driver?)"
unshare -n sh -c 'ip link set lo up
	while ! ip link show v1 >/dev/null 2>&1; do sleep 0.05; done
	ip addr add 192.0.2.2/30 dev v1 && ip addr add 198.51.100.7/32 dev v1 &&
	ip link set v1 up && ip route add default via 192.0.2.1 &&
	exec python3 "\$1/servers.py" "\$1/cert.pem" "\$1/key.pem" "\$1/ready" \\
		198.51.100.7 >/dev/null 2>&1' sh "\$d" &
pid=\$!
sleep 0.2
ip link set v1 netns \$pid && ip addr add 192.0.2.1/30 dev v0 && ip link set v0 up &&
	ip route add 198.51.100.0/24 via 192.0.2.2 || setup_failed "cannot set up the veth pair"
python3 "\$d/names.py" 192.0.2.53 /dev/null "\$d/ready.dns" >/dev/null 2>&1 &
i=0
while { [ ! -e "\$d/ready" ] || [ ! -e "\$d/ready.dns" ]; } && [ \$i -lt 200 ]; do
	sleep 0.05
	i=\$((i + 1))
done
[ -e "\$d/ready" ] && [ -e "\$d/ready.dns" ] || setup_failed "the fixture servers did not start"
cd "$PROJ" || exit 2
SH
		for profile in $PROFILES; do
			for backend in $BACKENDS; do
				# shellcheck disable=SC2016,SC2046
				echo '$U' "$LLWRAP" --rx "$T/bin" -p "$profile" --backend="$backend" \
					$(backend_opts "$backend") --allow-host api.llw.test:8443 -- \
					"$T/bin/llwrap-escape" single net.shared-address $SHARED_KEYS \
					">$T/shared.$profile.$backend" "2>$T/shared.$profile.$backend.err"
			done
		done
	} >"$SD/inner.sh"
	chmod -R a+rX "$SD"
	netns_fixture sh "$SD/inner.sh" >"$SD/setup.out" 2>&1
	if grep -q '^SETUP: ' "$SD/setup.out"; then
		shared_skip "the resolver fixture cannot be built here: $(sed -n 's/^SETUP: //p' "$SD/setup.out" | head -1)"
	elif [ ! -s "$T/shared.opencode.landlock" ]; then
		shared_skip "the resolver fixture did not run: $(tail -1 "$SD/setup.out")"
	fi
}
shared_fixture
# As root, what the fixture ran is llwrap as users run it.
if [ "$(id -u)" -eq 0 ] && [ -s "$T/shared.opencode.landlock" ]; then
	if grep -q "runs as root" "$T"/shared.*.err; then
		not_ok "the shared-address fixture runs llwrap as the test user"
		diag "$(grep -l "runs as root" "$T"/shared.*.err)"
	else
		ok "the shared-address fixture runs llwrap as the test user (no note that the command runs as root)"
	fi
fi

"$ESCAPE" list >"$T/ids"
nprobes=$(wc -l <"$T/ids")
if [ "$nprobes" -ge 60 ]; then
	ok "the corpus has $nprobes probes (at least 60)"
else
	not_ok "the corpus has at least 60 probes (has $nprobes)"
fi

: >"$T/cells"
stale=0
for profile in $PROFILES; do
	for backend in $BACKENDS; do
		col="$profile/$backend"
		out=$T/out.$profile.$backend
		run_corpus "$profile" "$backend" "$out"
		status=$?
		l3=no
		uses_l3 "$profile" "$backend" && l3=yes
		if [ "$status" -eq 125 ]; then
			why=$(head -1 "$out.err" | sed 's/^llwrap: //')
			skip "$col: backend unavailable: $why"
			while IFS="	" read -r id what; do
				printf '%s\t%s\tskipped (backend unavailable: %s)\n' \
					"$col" "$id" "$why" >>"$T/cells"
			done <"$T/ids"
			continue
		fi
		if [ "$status" -ne 0 ]; then
			not_ok "$col: the corpus runs (status $status)"
			diag "$(cat "$out.err")"
			continue
		fi
		# The shared-address probe's lines from its fixture.
		shared=$T/shared.$profile.$backend
		if [ -s "$shared" ]; then
			grep -v -E "^[A-Z-]+ net\.shared-address " "$out" >"$out.tmp"
			cat "$shared" >>"$out.tmp"
			mv "$out.tmp" "$out"
		fi
		case $(grep "^BLOCKED net\.shared-address " "$out") in
		"") ;;
		*"): ECONNRESET")
			ok "$col net.shared-address: refused by the name check (the ClientHello reset)"
			if grep -q "server name other\.llw\.test is not one of the names that resolved to 198\.51\.100\.7 (rule filtered/server-name)" "$shared.err"; then
				ok "$col net.shared-address: the note names the check"
			else
				not_ok "$col net.shared-address: the note names the check"
				diag "$(cat "$shared.err")"
			fi
			;;
		*)
			not_ok "$col net.shared-address: refused by the name check, not another layer"
			diag "$(grep " net\.shared-address " "$out")"
			;;
		esac
		while IFS="	" read -r id what; do
			line=$(grep -E "^(BLOCKED|ESCAPED|SKIPPED) $id " "$out" | head -1)
			twin=$(grep -E "^TWIN-[A-Z]+ $id " "$out" | head -1)
			word=${line%% *}
			detail=${line#* "$id" }
			lim=$(limit "$id" "$backend")
			# An entry L3 closes does not apply where L3 runs.
			[ "$l3" = yes ] && [ "${lim%%:*}" = L3 ] && lim=
			case "$word" in
			BLOCKED)
				cell=blocked
				if [ -n "$lim" ]; then
					cell="blocked (stale known limit)"
					stale=$((stale + 1))
					diag "STALE known limit: $id on $backend is blocked now: remove it from conf/known-limits"
				fi
				ok "$col $id: blocked ($detail)"
				;;
			ESCAPED)
				if [ -n "$lim" ]; then
					cell="ESCAPED (known limit, ${lim%%:*})"
					todo "$col $id: escaped ($detail)" "known limit ${lim}"
				else
					cell="ESCAPED"
					not_ok "$col $id: ESCAPED: $detail"
				fi
				;;
			SKIPPED)
				cell="skipped ($detail)"
				skip "$col $id: $detail"
				;;
			*)
				cell="no result"
				not_ok "$col $id: the probe printed no result"
				;;
			esac
			case "$twin" in
			TWIN-OK*) ;;
			TWIN-SKIPPED*) diag "$col $id: twin skipped: ${twin#* "$id" }" ;;
			*)
				not_ok "$col $id: the legitimate twin works"
				diag "${twin:-no twin result}"
				cell="$cell; TWIN FAILED"
				;;
			esac
			printf '%s\t%s\t%s\n' "$col" "$id" "$cell" >>"$T/cells"
		done <"$T/ids"
	done
done

# Nothing the probes did outside is left on the host.
grep -q '^# bashrc$' "$HOME_DIR/.bashrc" && ok "~/.bashrc is intact" ||
	not_ok "~/.bashrc changed"
[ ! -e "$HOSTDIR/d/outside/created" ] && ok "nothing was created outside" ||
	not_ok "a file was created outside"

# The table: probe x backend.
{
	printf 'probe\twhat it tries'
	for profile in $PROFILES; do
		for backend in $BACKENDS; do
			printf '\t%s/%s' "$profile" "$backend"
		done
	done
	printf '\n'
	while IFS="	" read -r id what; do
		printf '%s\t%s' "$id" "$what"
		for profile in $PROFILES; do
			for backend in $BACKENDS; do
				cell=$(awk -F '\t' -v c="$profile/$backend" -v id="$id" \
					'$1 == c && $2 == id { print $3; exit }' "$T/cells")
				printf '\t%s' "${cell:-not run}"
			done
		done
		printf '\n'
	done <"$T/ids"
} >"$TABLE_DIR/table.tsv"
diag "escape table (also in $TABLE_DIR/table.tsv):"
awk -F '\t' '{ printf "# %-24s", $1; for (i = 3; i <= NF; i++) printf " | %.40s", $i; printf "\n" }' \
	"$TABLE_DIR/table.tsv"
[ "$stale" -eq 0 ] || diag "$stale stale known-limit entries (a warning, see conf/known-limits)"

if [ "${LLW_UPDATE_README:-}" = 1 ]; then
	"$LLW_SRCDIR/tests/escape/table-to-md.sh" "$TABLE_DIR/table.tsv" \
		--update "$LLW_SRCDIR/README.md" &&
		diag "README.md's escape table regenerated"
fi

exec 9>&-
wait "$host_pid" 2>/dev/null
done_testing
