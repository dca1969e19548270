#!/bin/sh
# A project that lives under /tmp, run with a private /tmp (-p opencode,
# private-tmp = yes), under both backends (backend-bwrap.sh reruns this
# suite under bubblewrap): the project is bound into the new tmpfs as
# the host has it, its files there and the command's writes reaching
# the host, with its masks on top (.git/config read-only, .env hidden);
# nothing else of the host's /tmp is there, not even what a rule names;
# a project that is /tmp itself is refused, not run in an empty tmpfs.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

need_opencode_profile

# The project and a neighbour in the host's /tmp, the test user's.
TPROJ=$(mktemp -d /tmp/llw-tproj.XXXXXX)
TOTHER=$(mktemp -d /tmp/llw-tother.XXXXXX)
RPROJ=
trap 'rm -rf "$TPROJ" "$TOTHER" ${RPROJ:+"$RPROJ"}; cleanup' EXIT
chmod 755 "$TPROJ" "$TOTHER"
echo "llw-tproj-file" >"$TPROJ/a.txt"
echo "SECRET=llw-tproj-dotenv" >"$TPROJ/.env"
echo "llw-tother-file" >"$TOTHER/file"
git init -q "$TPROJ"
chown -R "$TEST_UID:$TEST_GID" "$TPROJ" "$TOTHER"
config_before=$(cat "$TPROJ/.git/config")

# The neighbour is the test user's to read outside the sandbox: a denial
# inside is the sandbox's.
run as_user cat "$TOTHER/file"
expect_output "outside the sandbox the test user reads the neighbour in /tmp" "llw-tother-file"

# --- The project's files are there, its writes reach the host ----------
run llw -p opencode $BE -C "$TPROJ" -- cat a.txt
expect_output "a file of a project in /tmp is there inside (private /tmp)" "^llw-tproj-file$"
expect_succeeded "... and readable by its full path" \
	llw -p opencode $BE -C "$TPROJ" -- "$PROBE" read "$TPROJ/a.txt"
rm -f "$TPROJ/new.txt"
expect_succeeded "a write in the project succeeds" \
	llw -p opencode $BE -C "$TPROJ" -- "$PROBE" write "$TPROJ/new.txt"
if [ "$(cat "$TPROJ/new.txt" 2>/dev/null)" = x ]; then
	ok "... and lands on the host"
else
	not_ok "... and lands on the host"; diag "$(ls -la "$TPROJ")"
fi
run llw -p opencode $BE -C "$TPROJ" -- /bin/sh -c 'echo edited >>a.txt; mkdir -p sub && echo deep >sub/f'
if [ "$rc" -eq 0 ] && [ "$(tail -n 1 "$TPROJ/a.txt")" = edited ] &&
	[ "$(cat "$TPROJ/sub/f" 2>/dev/null)" = deep ]; then
	ok "an edit and a new directory in the project reach the host"
else
	not_ok "an edit and a new directory in the project reach the host"; diag "status $rc: $out"
fi

# --- The masks land on top of the project ---------------------------------
expect_denied ".git/config stays read-only in a project in /tmp" EROFS \
	llw -p opencode $BE -C "$TPROJ" -- "$PROBE" append "$TPROJ/.git/config"
if [ "$(cat "$TPROJ/.git/config")" = "$config_before" ]; then
	ok "... and the host's .git/config is unchanged"
else
	not_ok "... and the host's .git/config is unchanged"; diag "$(cat "$TPROJ/.git/config")"
fi
expect_denied "a masked .env stays hidden in a project in /tmp" EACCES \
	llw -p opencode $BE -C "$TPROJ" -- "$PROBE" read "$TPROJ/.env"
run llw -p opencode $BE -C "$TPROJ" -- /bin/sh -c 'cat .env; echo status=$?'
expect_no_output "... its secret is not read" "llw-tproj-dotenv"

# --- Nothing else of the host's /tmp is there -------------------------
expect_denied "another directory in /tmp is not there" ENOENT \
	llw -p opencode $BE -C "$TPROJ" -- "$PROBE" read "$TOTHER/file"
expect_denied "... not even with a rule on it (the tmpfs starts empty)" ENOENT \
	llw -p opencode $BE -C "$TPROJ" --ro "$TOTHER" -- "$PROBE" read "$TOTHER/file"
run llw -p opencode $BE -C "$TPROJ" --ro "$TOTHER" --explain -- /bin/true
expect_output "... which --explain says" "^  not there \(in a private tmp, .*\): ro $TOTHER"
expect_output "--explain says the project is bound into the private /tmp" \
	"the project $TPROJ lies in /tmp: bound into its tmpfs"
run llw -p default -C "$TPROJ" --explain -- /bin/true
expect_output "without private-tmp, --explain says /tmp is the host's" \
	"^  shared scratch    no: the host's /tmp"
expect_no_output "... and nothing else about it" \
	"^  shared scratch    NOT ENFORCED|lies in /tmp: bound into its tmpfs|^  not there"
rm -f "$TOTHER.inside"
expect_succeeded "/tmp beside the project stays writable" \
	llw -p opencode $BE -C "$TPROJ" -- "$PROBE" write "$TOTHER.inside"
[ ! -e "$TOTHER.inside" ] && ok "... and what is written there stays inside" ||
	{ not_ok "a write beside the project reached the host's /tmp"; rm -f "$TOTHER.inside"; }

# --- A project that is a private tmp itself --------------------------------
for dir in /tmp /var/tmp; do
	run llw -p opencode $BE -C "$dir" -- /bin/true
	expect_rc "the project $dir, which private-tmp replaces, is refused" 125
	expect_output "... saying why and what to do" \
		"the project directory $dir is a scratch directory that private-tmp .* replaces with a new, empty tmpfs.*run from a directory of the project's own beneath it"
done

# --- Root ------------------------------------------------------------------
if [ "$(id -u)" -eq 0 ]; then
	RPROJ=$(mktemp -d /tmp/llw-rproj.XXXXXX)
	echo "llw-rproj-file" >"$RPROJ/a.txt"
	# A home of root's own: bubblewrap's user namespace cannot enter
	# the test user's (mode 0700) as root.
	mkdir -p "$T/roothome"
	run env HOME="$T/roothome" $LLWRAP_B -p opencode $BE --rx "$LLW_HELPERS" \
		-C "$RPROJ" -- /bin/sh -c "cat a.txt && $PROBE write $RPROJ/root-new"
	if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q '^llw-rproj-file$' &&
		[ "$(cat "$RPROJ/root-new" 2>/dev/null)" = x ]; then
		ok "as root: a project in /tmp is there, and its writes reach the host"
	else
		not_ok "as root: a project in /tmp is there, and its writes reach the host"; diag "status $rc: $out"
	fi
	expect_denied "as root: another directory in /tmp is not there" ENOENT \
		env HOME="$T/roothome" $LLWRAP_B -p opencode $BE --rx "$LLW_HELPERS" \
		-C "$RPROJ" -- "$PROBE" read "$TOTHER/file"
	# A project of the test user's inside a directory of mode 0700:
	# root in bubblewrap's user namespace cannot enter it, and is told
	# so before anything runs; no backend runs it without its files.
	mkdir -p "$TOTHER/private/proj"
	echo "llw-private-file" >"$TOTHER/private/proj/a.txt"
	chown -R "$TEST_UID:$TEST_GID" "$TOTHER/private"
	chmod 700 "$TOTHER/private"
	run env HOME="$T/roothome" $LLWRAP_B -p opencode $BE \
		-C "$TOTHER/private/proj" -- cat a.txt
	if bwrap_backend; then
		expect_rc "as root: a project in /tmp that bubblewrap cannot enter is refused" 125
		expect_output "... naming the directory and the way out" \
			"the project $TOTHER/private/proj lies inside $TOTHER/private \(owner uid $TEST_UID, mode 0700\), which root cannot enter.*run llwrap as uid $TEST_UID"
	elif [ "$rc" -eq 0 ] && [ "$out" = llw-private-file ]; then
		ok "as root: a project in a directory of another user's runs with its files"
	else
		expect_rc "as root: a project in a directory root cannot enter in the namespace is refused, not run empty" 125
	fi
else
	skip "the root case needs root"
fi

done_testing
