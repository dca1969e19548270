#!/bin/sh
# A mask the host removes (review F1, DESIGN.md §5 and §15): every mask
# (L3's, bubblewrap's) is a mount on a host directory entry, and the
# kernel detaches it in the sandbox when the host renames over that entry
# (an editor's save, git's config.lock).  The sandbox must not gain from
# it: the process that waits for the command (or, under bubblewrap, the
# monitor above bwrap) sees the sandbox's mount table change, stops the
# whole sandbox, says what happened, the run fails (125), and a git
# config the command could write meanwhile is moved aside if it sets what
# runs.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

need_opencode_profile
HOOKED=$LLW_HELPERS/llwrap-hooked
# The backend's flags (word-split on purpose: none, or two words).
B=${LLW_BACKEND:+--backend $LLW_BACKEND}
git_fixture
run as_user "$LLWRAP" $B -p default $BE --deny "$PROJ/src/main.c" -q -- true
[ "$rc" -ne 125 ] || skip_rest "llwrap refuses a mask in the project here (no L3): $out"
as_user git init -q . || exit 1
echo "API_KEY=llw-secret-env" >"$PROJ/.env"
echo "outside" >"$OUTSIDE/notes"
chown -R "$TEST_UID:$TEST_GID" "$PROJ" "$OUTSIDE"
# A file the sandbox must not read, and one the host may replace.
cp "$PROJ/.git/config" "$T/config.start"

# start NAME CMD...: CMD as the test user in the background, its output
# in $T/NAME and its status in $T/NAME.rc; waits (10 s at most) until
# the command printed "up".
start() {
	name=$1
	shift
	rm -f "$T/$name" "$T/$name.rc"
	( (as_user_exec timeout 60 "$@") >"$T/$name" 2>&1
		echo $? >"$T/$name.rc") &
	bg_pids="$bg_pids $!"
	i=0
	while ! grep -q '^up$' "$T/$name" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# ended NAME SECS: the run ended within SECS seconds; $out and $rc are
# its output and status.
ended() {
	i=0
	while [ ! -s "$T/$1.rc" ] && [ $i -lt $(($2 * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	out=$(cat "$T/$1")
	rc=$(cat "$T/$1.rc" 2>/dev/null || echo running)
	[ "$rc" != running ]
}

# replace PATH TEXT: as the host does (an editor's save): a new file
# renamed over PATH, by the test user.
replace() {
	as_user sh -c 'printf "%s\n" "$2" >"$1.new" && mv "$1.new" "$1"' sh "$1" "$2"
}

stopped_msg="$PROJ/\.env was replaced on the host while the sandbox ran, which removed its mask; the sandbox was stopped"
reader='echo up; while :; do cat .env 2>&1; sleep 0.2; done'

# The shapes: a monitor made for the watch (no pid namespace), a guardian
# above the supervisor that watches (no pid namespace), pid 1.
for shape in default supervised opencode; do
	case $shape in
	default)
		set -- -p default
		what="without a pid namespace (the monitor watches)"
		who="the monitor"
		;;
	supervised)
		set -- -p default --allow-host example.invalid --timeout 60
		what="below a guardian, without a pid namespace (the supervisor watches)"
		who="the supervisor"
		;;
	opencode)
		set -- -p opencode
		what="in a pid namespace (pid 1 watches)"
		who="pid 1"
		;;
	esac
	# Where L3 stands in for Landlock's signal scope (ABI < 6) every
	# policy has a pid namespace, and its pid 1 watches.
	if [ "$shape" != opencode ] && ! bwrap_backend && own_pid_ns "$@"; then
		what="in L3's pid namespace (pid 1 watches)"
		who="pid 1"
	fi
	# Under bubblewrap the monitor above bwrap watches its sandbox.
	if bwrap_backend; then
		set -- "$@" $BE
		[ "$shape" = opencode ] && who="the supervisor"
		what="under bubblewrap ($who watches from outside)"
	fi
	run as_user "$LLWRAP" $B "$@" --deny "$PROJ/.env" --explain -- true
	expect_output "$shape: --explain names who watches the masks" \
		"^masks: watched by $who"
	echo "API_KEY=llw-secret-env" >"$PROJ/.env"
	start "read-$shape" "$LLWRAP" $B "$@" --rx "$LLW_HELPERS" \
		--deny "$PROJ/.env" -- sh -c "$reader"
	# (Its first cat follows "up": under load, a moment later.)
	i=0
	while ! grep -q 'Permission denied' "$T/read-$shape" && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if grep -q 'Permission denied' "$T/read-$shape"; then
		ok "$shape: the sandbox cannot read the denied .env (EACCES: the mask)"
	else
		not_ok "$shape: the sandbox cannot read the denied .env"
		diag "$(cat "$T/read-$shape")"
	fi
	replace "$PROJ/.env" "API_KEY=llw-new-secret"
	if ended "read-$shape" 10; then
		ok "$shape: a host rename over the masked .env stops the sandbox $what"
	else
		not_ok "$shape: a host rename over the masked .env stops the sandbox $what"
		diag "still running after 10 s: $out"
	fi
	expect_rc "... and the run fails (125)" 125
	expect_output "... saying which path and what to do" "$stopped_msg.*run it again"
	# The window between the rename and the stop (milliseconds, known
	# limit fs.host-rename) is not asserted: a read in it is the limit.
	printf '%s\n' "$out" | grep -q llw-new-secret &&
		diag "the sandbox read the new .env in the window before its stop"
	run pgrep -u "$TEST_UID" -f 'while :; do cat .env'
	if [ -z "$out" ]; then
		ok "... and no process of the sandbox's is left"
	else
		not_ok "... and no process of the sandbox's is left"
		diag "left: $out"
	fi

	# The neighbour: a mount that is no mask (a writable file of the
	# policy's, outside the project) replaced by the host is a change of
	# the table too, and the run goes on.
	start "rw-$shape" "$LLWRAP" $B "$@" --rx "$LLW_HELPERS" \
		--deny "$PROJ/.env" --rw "$OUTSIDE/notes" \
		-- sh -c 'echo up; sleep 2; cat src/main.c >/dev/null && echo finished'
	replace "$OUTSIDE/notes" "changed on the host"
	replace "$PROJ/src/main.c" "int main(void) { return 1; }"
	ended "rw-$shape" 30
	expect_rc "$shape: the host replacing an unmasked file (the project's, a writable one's) does not stop the run" 0
	expect_output "... which finishes" "^finished$"
	expect_no_output "... with no word of a mask" "removed its mask"

	# No host change: the view's building and the teardown are not the
	# host's.
	run as_user "$LLWRAP" $B "$@" --rx "$LLW_HELPERS" \
		--deny "$PROJ/.env" --ro "$PROJ/.git/config" -- sh -c 'true'
	expect_rc "$shape: a run with masks and no host change ends as its command does" 0
	expect_no_output "... with no word of a mask" "removed its mask"
done

# Root's run (its rules held before the user namespace) is watched the
# same way.
if bwrap_backend; then
	skip "root's run under bubblewrap: root cannot enter the test user's home in bwrap's user namespace"
elif [ "$(id -u)" -eq 0 ]; then
	echo "API_KEY=llw-secret-env" >"$PROJ/.env"
	_as_root=1
	start read-root "$LLWRAP" $B -p opencode $BE --rx "$LLW_HELPERS" \
		--deny "$PROJ/.env" -- sh -c "$reader"
	unset _as_root
	replace "$PROJ/.env" "API_KEY=llw-new-secret"
	ended read-root 10
	expect_rc "root: a host rename over the masked .env stops the sandbox (125)" 125
	expect_output "... saying which path and what to do" "$stopped_msg.*run it again"
else
	skip "root's run: not root"
fi

# A denied path that does not exist at the start (review35 H6: `cp
# .env.example .env`, `vercel env pull` while the agent runs): no mount
# can cover a name that does not exist, and a descriptor opened at its
# creation outlives any later mask, so the watch on its directory stops
# the sandbox when the name appears, whoever made it (the command can
# make it: the project is writable, and a file of that name is where the
# user's tools put the secret).
appeared_msg="$PROJ/\.env, which is denied and did not exist at the start \(so it was not masked\), appeared while the sandbox ran.*the sandbox was stopped at once, but the command may have read it in that moment; run it again: at the next start it is masked"
# shellcheck disable=SC2016
twice='echo up; cat .env 2>&1; sleep 15; cat .env 2>&1; echo finished'
for shape in default opencode; do
	rm -f "$PROJ/.env" "$PROJ/.env.example"
	run as_user "$LLWRAP" $B -p "$shape" $BE --deny "$PROJ/.env" --explain -- true
	expect_output "$shape: --explain says a missing denied .env is not masked, and the run stops if it appears" \
		"deny $PROJ/\.env \(command line\): does not exist at the start; nothing to mask, not created: the run is stopped if it appears where the sandbox's view shows it"
	expect_no_output "... and does not call it hidden" "deny $PROJ/\.env \(command line\): does not exist; nothing to hide"
	# The PoC (p6): the host writes .env between the command's reads.
	start "appear-$shape" "$LLWRAP" $B -p "$shape" $BE --deny "$PROJ/.env" \
		-- sh -c "$twice"
	as_user sh -c 'echo API_KEY=llw-appeared-secret >.env'
	if ended "appear-$shape" 10; then
		ok "$shape: a denied .env the host makes during the run stops the sandbox"
	else
		not_ok "$shape: a denied .env the host makes during the run stops the sandbox"
		diag "still running after 10 s: $out"
	fi
	expect_rc "... and the run fails (125)" 125
	expect_output "... saying which file appeared, that it may have been read, and what to do" "$appeared_msg"
	expect_no_output "... and the command's second read never ran" "llw-appeared-secret|^finished"
	# The next run masks it.
	run as_user "$LLWRAP" $B -p "$shape" $BE --deny "$PROJ/.env" -- cat .env
	expect_output "... and at the next start it is masked (EACCES)" "Permission denied"
	expect_no_output "... its content unread" "llw-appeared-secret"

	# The neighbour: a name not denied, made by the host, stops nothing.
	rm -f "$PROJ/.env"
	start "neighbour-$shape" "$LLWRAP" $B -p "$shape" $BE --deny "$PROJ/.env" \
		-- sh -c 'echo up; sleep 2; cat .env.example; echo finished'
	as_user sh -c 'echo API_KEY=example >.env.example'
	ended "neighbour-$shape" 30
	expect_rc "$shape: a name not denied, made by the host during the run, stops nothing" 0
	expect_output "... the command reads it and finishes" "^finished$"
	expect_no_output "... with no word of a denied path" "appeared"

	# The command's own .env stops the run too: it cannot be told from
	# the host's, and the user's tools write the secret into it.
	start "own-$shape" "$LLWRAP" $B -p "$shape" $BE --deny "$PROJ/.env" \
		-- sh -c 'echo up; echo DEBUG=1 >.env; sleep 5; echo finished'
	ended "own-$shape" 10
	expect_rc "$shape: a denied .env the command makes stops the run too (125)" 125
	expect_output "... saying so" "$appeared_msg"
	expect_no_output "... at once" "^finished$"
	rm -f "$PROJ/.env" "$PROJ/.env.example"
done

# Root's run is watched the same way.
if ! bwrap_backend && [ "$(id -u)" -eq 0 ]; then
	rm -f "$PROJ/.env"
	_as_root=1
	start appear-root "$LLWRAP" $B -p opencode $BE --deny "$PROJ/.env" \
		-- sh -c "$twice"
	unset _as_root
	as_user sh -c 'echo API_KEY=llw-appeared-secret >.env'
	ended appear-root 10
	expect_rc "root: a denied .env the host makes during the run stops the sandbox (125)" 125
	expect_output "... saying so" "$appeared_msg"
	expect_no_output "... unread" "llw-appeared-secret"
	rm -f "$PROJ/.env"
fi

# A hard link to a secret file is a name made there too.
echo "API_KEY=llw-linked-secret" >"$OUTSIDE/secret"
chown "$TEST_UID:$TEST_GID" "$OUTSIDE/secret"
start appear-link "$LLWRAP" $B -p opencode $BE --deny "$PROJ/.env" \
	-- sh -c "$twice"
as_user ln "$OUTSIDE/secret" "$PROJ/.env"
ended appear-link 10
expect_rc "a hard link the host makes at a missing denied name stops the sandbox (125)" 125
expect_output "... saying so" "$appeared_msg"
expect_no_output "... unread" "llw-linked-secret"
rm -f "$PROJ/.env" "$OUTSIDE/secret"

# A missing directory: the nearest one that exists is watched for the
# name on the way.
rm -rf "$PROJ/sub"
start appear-dir "$LLWRAP" $B -p opencode $BE --deny "$PROJ/sub/.env.local" \
	-- sh -c 'echo up; sleep 2; cat sub/.env.local; echo finished'
as_user sh -c 'mkdir sub && echo API_KEY=llw-sub-secret >sub/.env.local'
ended appear-dir 10
expect_rc "a directory made on the way to a missing denied path stops the sandbox (125)" 125
expect_output "... saying so" "a directory on the way to $PROJ/sub/\.env\.local, which is denied and did not exist at the start \(so it was not masked\), appeared while the sandbox ran"
expect_no_output "... unread" "llw-sub-secret|^finished$"

# M4 of the third review (p7): a denied path missing at the start below
# directories that exist (x/y/secret, x/y there, y watched): the host
# renames x, which takes y with it, and makes x/y/secret anew, unwatched.
# Every directory above y is watched for its own move: the rename stops
# the sandbox, before the new secret is there.  A rename beside them
# stops nothing.
rm -rf "$PROJ/x" "$PROJ/x.old" "$PROJ/z" "$PROJ/z2"
as_user mkdir -p "$PROJ/x/y" "$PROJ/z"
start way-away "$LLWRAP" $B -p opencode $BE --deny "$PROJ/x/y/secret" \
	-- sh -c 'echo up; while :; do cat x/y/secret 2>&1; sleep 0.2; done'
as_user sh -c 'mv x x.old && sleep 1 && mkdir -p x/y && echo API_KEY=llw-way-secret >x/y/secret'
if ended way-away 10; then
	ok "a host rename of a directory above a missing denied path's stops the sandbox"
else
	not_ok "a host rename of a directory above a missing denied path's stops the sandbox"
	diag "still running after 10 s: $out"
fi
expect_rc "... and the run fails (125)" 125
expect_output "... saying so" "a directory on the way to $PROJ/x/y/secret, which is denied and did not exist at the start, was moved or removed while the sandbox ran"
expect_no_output "... the new secret unread" "llw-way-secret"
rm -rf "$PROJ/x" "$PROJ/x.old"
as_user mkdir -p "$PROJ/x/y"
start way-beside "$LLWRAP" $B -p opencode $BE --deny "$PROJ/x/y/secret" \
	-- sh -c 'echo up; sleep 2; echo finished'
as_user sh -c 'mv z z2'
ended way-beside 30
expect_rc "... a host rename beside them stops nothing" 0
expect_output "... the command finishes" "^finished$"
rm -rf "$PROJ/x" "$PROJ/z" "$PROJ/z2"

# Low (review35): the host renames away a mask's directory that is not
# pinned (sub/, holding sub/.env.local): the mask moves with it, and a
# new sub/.env.local would show.  The directory's own move is watched.
start dir-away "$LLWRAP" $B -p opencode $BE --deny "$PROJ/sub/.env.local" \
	-- sh -c 'echo up; while :; do cat sub/.env.local 2>&1; sleep 0.2; done'
as_user sh -c 'mv sub sub.old && mkdir sub && echo API_KEY=llw-moved-secret >sub/.env.local'
if ended dir-away 10; then
	ok "a host rename of a masked file's directory stops the sandbox"
else
	not_ok "a host rename of a masked file's directory stops the sandbox"
	diag "still running after 10 s: $out"
fi
expect_rc "... and the run fails (125)" 125
expect_output "... naming the masked path" "$PROJ/sub/\.env\.local was replaced on the host while the sandbox ran, which removed its mask; the sandbox was stopped at once"
rm -rf "$PROJ/sub" "$PROJ/sub.old"

# Where the view does not show the host's directory (a private /tmp), a
# name the host makes there is not the command's to read: no stop.
TMPNAME=/tmp/llw-hostmask-absent-$$
rm -f "$TMPNAME"
start tmp-absent "$LLWRAP" $B -p opencode $BE --deny "$TMPNAME" \
	-- sh -c "echo up; sleep 2; cat $TMPNAME 2>&1; echo finished"
as_user sh -c "echo llw-tmp-secret >$TMPNAME"
ended tmp-absent 30
expect_rc "a missing denied path in the private /tmp the host makes: the run goes on" 0
expect_output "... the command does not see it" "No such file or directory"
expect_no_output "... unread" "llw-tmp-secret"
rm -f "$TMPNAME"

# PoC 2: a read-only .git/config the user's own git rewrites (git config
# renames config.lock over config) during the run; the command appends
# to what is now the real file.  The hooked llwrap waits 1.5 s before the
# stop, so that the append lands and the final check must find it.
if [ ! -x "$HOOKED" ]; then
	skip_rest "no $HOOKED (configure --disable-tests?)"
fi
# shellcheck disable=SC2016
planter='echo up; while :; do printf "[core]\n\tfsmonitor = touch %s/fsmonitor-ran\n" "$1" >>.git/config 2>/dev/null; sleep 0.2; done'
for shape in default opencode; do
	rm -f "$PROJ"/.git/config.llwrap-blocked-*
	cp "$T/config.start" "$PROJ/.git/config"
	chown "$TEST_UID:$TEST_GID" "$PROJ/.git/config"
	start "git-$shape" env LLW_HOOK_MASKWATCH_DELAY_MS=1500 "$HOOKED" \
		$B -p "$shape" $BE --rx "$LLW_HELPERS" --ro "$PROJ/.git/config" \
		-- sh -c "$planter" sh "$MARKS"
	sleep 0.5
	if grep -q fsmonitor "$PROJ/.git/config"; then
		not_ok "$shape: the read-only .git/config takes no write while its mask holds"
	else
		ok "$shape: the read-only .git/config takes no write while its mask holds"
	fi
	as_user git config user.name "host user"
	if ended "git-$shape" 15; then
		ok "$shape: the user's git config during the run stops the sandbox"
	else
		not_ok "$shape: the user's git config during the run stops the sandbox"
		diag "still running after 15 s: $out"
	fi
	expect_rc "... and the run fails (125)" 125
	expect_output "... naming .git/config" "$PROJ/\.git/config was replaced on the host"
	expect_output "... and the config the command wrote is moved aside" \
		"$PROJ/\.git/config changed and sets core\.fsmonitor while its mask was gone: moved aside to config\.llwrap-blocked-"
	set -- "$PROJ"/.git/config.llwrap-blocked-*
	if [ ! -e "$PROJ/.git/config" ] && [ -f "$1" ] &&
		grep -q 'name = host user' "$1" && grep -q fsmonitor "$1"; then
		ok "... kept beside it, the user's change and the command's both in it"
	else
		not_ok "... kept beside it, the user's change and the command's both in it"
		diag "$(ls -la "$PROJ/.git")"
	fi
	cp "$T/config.start" "$PROJ/.git/config"
	chown "$TEST_UID:$TEST_GID" "$PROJ/.git/config"
	run as_user git status --short
	if [ ! -e "$MARKS/fsmonitor-ran" ]; then
		ok "... and the user's next git runs nothing of the command's"
	else
		not_ok "... and the user's next git runs nothing of the command's"
	fi
done

# A mask the host removes before the watch's first look at the view:
# L3 checks each mask's mount as the view's builder attached it and
# refuses to start; under bubblewrap the command may run meanwhile (bwrap
# builds its view), and the first look stops it as above.  The hooked
# llwrap waits 3 s before that look.
# Under L3 that look asks the kernel about each mask's mount (statmount,
# Linux 6.8), and reads the mount table on older kernels: both, the
# second through the hook; the host replaces the file (git's rename over
# it: the mount goes), or renames it away first (an editor's backup: the
# mount goes with it, to another path).
for pass in "0 replace" "0 rename" "1 replace"; do
	table=${pass% *} act=${pass#* } how=
	# (bubblewrap's view has its own look, maskwatch_arm_bwrap.)
	[ "${LLW_BACKEND:-}" = bwrap ] && [ "$pass" != "0 replace" ] && break
	[ $table = 1 ] && how=" (the mount table read, as before Linux 6.8)"
	[ $act = rename ] && how=" (renamed away first)"
	rm -f "$PROJ"/.git/config.llwrap-blocked-* "$PROJ/ran-early" \
		"$PROJ/.git/config~"
	cp "$T/config.start" "$PROJ/.git/config"
	chown "$TEST_UID:$TEST_GID" "$PROJ/.git/config"
	rm -f "$T/early" "$T/early.rc"
	( (as_user_exec env LLW_HOOK_MASKWATCH_ARM_DELAY_MS=3000 \
		LLW_HOOK_NO_STATMOUNT=$table timeout 60 \
		"$HOOKED" $B -p opencode $BE --rx "$LLW_HELPERS" \
		--ro "$PROJ/.git/config" -- sh -c "touch ran-early; $planter" sh \
		"$MARKS") >"$T/early" 2>&1
		echo $? >"$T/early.rc") &
	bg_pids="$bg_pids $!"
	# (Under bubblewrap once the command runs: bwrap's view is built then.)
	i=0
	while [ "${LLW_BACKEND:-}" = bwrap ] && ! grep -q '^up$' "$T/early" 2>/dev/null &&
		[ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "${LLW_BACKEND:-}" = bwrap ] || sleep 1
	[ $act = rename ] && as_user sh -c 'mv .git/config .git/config~ &&
		cp .git/config~ .git/config'
	as_user git config user.name "host user"
	ended early 20
	expect_rc "a mask the host removed before the watch's first look$how: the run fails (125)" 125
	if [ "${LLW_BACKEND:-}" = bwrap ]; then
		expect_output "... naming .git/config" "$PROJ/\.git/config was replaced on the host while the sandbox ran"
		expect_output "... and the config the command wrote is moved aside" \
			"$PROJ/\.git/config changed and sets core\.fsmonitor while its mask was gone: moved aside"
	else
		expect_output "... before anything ran, saying so" \
			"$PROJ/\.git/config was replaced on the host while the sandbox's view was being built, which removed its mask; nothing was run; run it again"
		[ ! -e "$PROJ/ran-early" ] && ok "... and the command did not run" ||
			not_ok "... and the command did not run"
		set -- "$PROJ"/.git/config.llwrap-blocked-*
		if [ ! -e "$1" ] && grep -q 'name = host user' "$PROJ/.git/config" &&
			! grep -q fsmonitor "$PROJ/.git/config"; then
			ok "... and the user's config stays as the user wrote it"
		else
			not_ok "... and the user's config stays as the user wrote it"
			diag "$(ls -la "$PROJ/.git")"
		fi
	fi
done
rm -f "$PROJ/ran-early" "$PROJ/.git/config~"

# reset_config: .git/config as at the start, nothing moved aside.
reset_config() {
	rm -rf "$PROJ"/.git/config.llwrap-blocked-* "$PROJ/.git/config~"
	cp "$T/config.start" "$PROJ/.git/config"
	chown "$TEST_UID:$TEST_GID" "$PROJ/.git/config"
}

# The host renames a masked entry away (an editor's backup by rename:
# Emacs, `mv f f~`) and puts a new one at its name: the mount moves with
# the old entry, its id the same, and the path shows the new file.
reset_config
start git-away env LLW_HOOK_MASKWATCH_DELAY_MS=1500 "$HOOKED" $B -p opencode \
	$BE --rx "$LLW_HELPERS" --ro "$PROJ/.git/config" \
	-- sh -c "$planter" sh "$MARKS"
# (The new file appears whole, as an editor's does: a cp writing in
# place raced the command's appends under load and garbled the text.)
as_user sh -c 'mv .git/config .git/config~ && cp .git/config~ .git/config.new &&
	mv .git/config.new .git/config'
if ended git-away 15; then
	ok "a masked .git/config the host renames away stops the sandbox"
else
	not_ok "a masked .git/config the host renames away stops the sandbox"
	diag "still running after 15 s: $out"
fi
expect_rc "... and the run fails (125)" 125
expect_output "... naming it" "$PROJ/\.git/config was replaced on the host while the sandbox ran"
expect_output "... and the config the command wrote is moved aside" \
	"$PROJ/\.git/config changed and sets core\.fsmonitor while its mask was gone: moved aside to config\.llwrap-blocked-"
if ! grep -qs fsmonitor "$PROJ/.git/config"; then
	ok "... and .git/config holds nothing of the command's"
else
	not_ok "... and .git/config holds nothing of the command's"
fi
echo "API_KEY=llw-secret-env" >"$PROJ/.env"
rm -f "$PROJ/.env~"
start env-away "$LLWRAP" $B -p opencode $BE --rx "$LLW_HELPERS" \
	--deny "$PROJ/.env" -- sh -c "$reader"
as_user sh -c 'mv .env .env~ && echo API_KEY=llw-new-secret >.env'
ended env-away 10
expect_rc "a denied .env the host renames away stops the sandbox (125)" 125
expect_output "... saying the command may have read the new one" \
	"$PROJ/\.env was replaced on the host while the sandbox ran, which removed its mask; the sandbox was stopped at once, but the command may have read the new file in that moment"
rm -f "$PROJ/.env~"

# A start config that sets something the check calls unsafe (gh's
# remote.origin.gh-resolved) does not make the command's core.fsmonitor
# pass: what changed and runs something is moved aside, whoever wrote it.
reset_config
as_user git config remote.origin.url "$PROJ"
as_user git config remote.origin.gh-resolved base
cp "$PROJ/.git/config" "$T/config.gh"
start git-gh env LLW_HOOK_MASKWATCH_DELAY_MS=1500 "$HOOKED" $B -p opencode \
	$BE --rx "$LLW_HELPERS" --ro "$PROJ/.git/config" \
	-- sh -c "$planter" sh "$MARKS"
as_user git config user.name "host user"
ended git-gh 15
expect_rc "a start config with gh's key, the user's git config during the run: stopped (125)" 125
expect_output "... and the command's core.fsmonitor is moved aside all the same" \
	"$PROJ/\.git/config changed and sets .* while its mask was gone: moved aside to config\.llwrap-blocked-"
if ! grep -qs fsmonitor "$PROJ/.git/config"; then
	ok "... and .git/config holds nothing of the command's"
else
	not_ok "... and .git/config holds nothing of the command's"
fi
reset_config

# A later-run file the host's editor saves through a temporary file of
# the project's (JetBrains' "safe write": .envrc___jb_tmp___, then a
# rename over .envrc), which the command can write before the rename:
# every read-only mask's entry is looked at once a mask went, and a
# replaced one is moved aside.
echo 'export LLW_START=1' >"$PROJ/.envrc"
chown "$TEST_UID:$TEST_GID" "$PROJ/.envrc"
rm -f "$PROJ"/.envrc.llwrap-blocked-* "$PROJ/.envrc___jb_tmp___"
# shellcheck disable=SC2016
tamper='echo up; while :; do [ -f .envrc___jb_tmp___ ] && echo "touch $1/envrc-ran" >>.envrc___jb_tmp___; sleep 0.1; done'
start envrc "$LLWRAP" $B -p opencode $BE --rx "$LLW_HELPERS" \
	-- sh -c "$tamper" sh "$MARKS"
as_user sh -c 'echo "export LLW_HOST=1" >.envrc___jb_tmp___'
sleep 0.5
as_user mv .envrc___jb_tmp___ .envrc
ended envrc 10
expect_rc "an .envrc the host saves through a temporary file: stopped (125)" 125
expect_output "... and the new .envrc is moved aside" \
	"$PROJ/\.envrc was replaced while its mask was gone \(the command could write into the new one until the stop\): moved aside to \.envrc\.llwrap-blocked-"
if [ ! -e "$PROJ/.envrc" ] && grep -qs 'LLW_HOST' "$PROJ"/.envrc.llwrap-blocked-*; then
	ok "... kept beside it with the user's text"
else
	not_ok "... kept beside it with the user's text"
	diag "$(ls -la "$PROJ")"
fi
rm -f "$PROJ"/.envrc.llwrap-blocked-* "$PROJ/.envrc"

# A hard link: a read-only mask covers one name of a file; another name
# in the project (an earlier run's, or one made to git's config.lock
# while the user's git ran) would let the command write it.
as_user ln .git/config notes.txt
run as_user "$LLWRAP" $B -p opencode $BE -- true
expect_rc "a masked .git/config with another name (a hard link): refused (125)" 125
expect_output "... saying how to find and break the link" \
	"$PROJ/\.git/config has 2 names \(hard links\), and its read-only mask covers this one only.*find $PROJ/\.git -xdev -samefile"
as_user rm notes.txt
run as_user "$LLWRAP" $B -p opencode $BE -- true
expect_rc "... and runs once the other name is gone" 0
NEW=$OUTSIDE/newrepo
mkdir -p "$NEW"
chown "$TEST_UID:$TEST_GID" "$NEW"
run as_user env -C "$NEW" "$LLWRAP" $B -p opencode $BE -- \
	sh -c 'git init -q . && ln .git/config notes.txt'
expect_output "a repository the command made, its config given a second name: moved aside" \
	"the command .*$NEW/\.git/config, which git \(the command gave it another name, a hard link it could write it through\) reads later.*moved aside"
[ ! -e "$NEW/.git/config" ] && ok "... gone from its name" ||
	not_ok "... gone from its name"

# The host's own change, running nothing, is left alone.
rm -f "$PROJ"/.git/config.llwrap-blocked-*
cp "$T/config.start" "$PROJ/.git/config"
chown "$TEST_UID:$TEST_GID" "$PROJ/.git/config"
start git-quiet "$LLWRAP" $B -p opencode $BE --rx "$LLW_HELPERS" \
	--ro "$PROJ/.git/config" -- sh -c 'echo up; sleep 30'
as_user git config user.name "host user"
ended git-quiet 10
expect_rc "a git config of the user's while a sandbox that writes nothing runs: stopped (125)" 125
set -- "$PROJ"/.git/config.llwrap-blocked-*
if [ ! -e "$1" ] && grep -q 'name = host user' "$PROJ/.git/config"; then
	ok "... and the user's config, which runs nothing, stays where it is"
else
	not_ok "... and the user's config, which runs nothing, stays where it is"
	diag "$(ls -la "$PROJ/.git"): $out"
fi

done_testing
