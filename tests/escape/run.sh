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
