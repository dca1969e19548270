#!/bin/sh
# Landlock filesystem rules (L1), as an unprivileged user: each denial
# next to the legitimate access beside it.
. "$LLW_SRCDIR/tests/lib/libtest.sh"
need_default_profile

if [ "$(landlock_abi)" -eq 0 ]; then
	skip_rest "Landlock is not available on this kernel"
fi

# Reading.
expect_succeeded "default: a project file is readable" \
	llw -p default -- "$PROBE" read "$PROJ/src/main.c"
expect_denied "default: ~/.ssh/id_ed25519 is not" 'landlock:EACCES|bwrap:ENOENT' \
	llw -p default -- "$PROBE" read "$HOME_DIR/.ssh/id_ed25519"
expect_denied "default: ~/.aws/credentials is not" 'landlock:EACCES|bwrap:ENOENT' \
	llw -p default -- "$PROBE" read "$HOME_DIR/.aws/credentials"
expect_denied "default: another project is not" 'landlock:EACCES|bwrap:ENOENT' \
	llw -p default -- "$PROBE" read "$OTHER/notes.txt"
expect_succeeded "default: /etc/hostname-like system files are" \
	llw -p default -- "$PROBE" read /etc/passwd

# Writing.
expect_succeeded "a file in the project can be created" \
	llw -p default -- "$PROBE" write "$PROJ/new.txt"
expect_succeeded "a directory in the project can be made" \
	llw -p default -- "$PROBE" mkdir "$PROJ/newdir"
expect_denied "~/.bashrc cannot be written" 'landlock:EACCES|bwrap:EROFS' \
	llw -p default -- "$PROBE" append "$HOME_DIR/.bashrc"
expect_denied "a file outside cannot be created" 'landlock:EACCES|bwrap:ENOENT' \
	llw -p default -- "$PROBE" write "$OUTSIDE/new.txt"
expect_denied "a file outside cannot be truncated" 'landlock:EACCES|bwrap:EROFS' \
	llw -p default --ro "$OUTSIDE" -- "$PROBE" truncate "$OUTSIDE/file"
expect_succeeded "... while a project file can" \
	llw -p default -- "$PROBE" truncate "$PROJ/new.txt"
expect_denied "a file outside cannot be removed" 'landlock:EACCES|bwrap:EROFS' \
	llw -p default --ro "$OUTSIDE" -- "$PROBE" unlink "$OUTSIDE/file"
expect_denied "a project file cannot be renamed out of the project" 'landlock:EACCES|bwrap:EXDEV' \
	llw -p default --ro "$OUTSIDE" -- "$PROBE" rename "$PROJ/new.txt" "$OUTSIDE/stolen"
[ -e "$OUTSIDE/file" ] && [ ! -e "$OUTSIDE/new.txt" ] && [ ! -e "$OUTSIDE/stolen" ] &&
	ok "nothing outside changed on the host" || not_ok "something outside changed"
grep -q '^# bashrc$' "$HOME_DIR/.bashrc" && ok "~/.bashrc is intact" || not_ok "~/.bashrc changed"

# Executing.
expect_status "rx: /usr/bin programs run" 0 \
	llw -p default -- "$PROBE" exec /bin/true
cp /bin/true "$PROJ/tool"
chown "$TEST_UID:$TEST_GID" "$PROJ/tool"
# The default project is rwx (DESIGN.md §10): what a build makes runs.
expect_status "default: a project binary runs (the project is rwx)" 0 \
	llw -p default -- "$PROBE" exec "$PROJ/tool"
expect_status "default: llwrap starts it as the command" 0 \
	llw -p default -- "$PROJ/tool"
# An explicit rw still means no execute.
if bwrap_backend; then
	skip "bwrap cannot mount noexec: a binary in the project runs from inside (not a hole: ld.so runs it anyway)"
else
	expect_denied "--rw PROJECT (without x): a project binary does not run" EACCES \
		llw -p default --rw "$PROJ" -- "$PROBE" exec "$PROJ/tool"
fi
expect_status "--rw PROJECT: nor does llwrap start it as the command" 126 \
	llw -p default --rw "$PROJ" -- "$PROJ/tool"

# deny inside read-only: hole punching, exact.
expect_succeeded "ro ~ + deny ~/.ssh: ~/.bashrc is readable" \
	llw -p default --ro "$HOME_DIR" --deny "$HOME_DIR/.ssh" -- "$PROBE" read "$HOME_DIR/.bashrc"
expect_denied "ro ~ + deny ~/.ssh: the key is not" 'landlock:EACCES|bwrap:ENOENT' \
	llw -p default --ro "$HOME_DIR" --deny "$HOME_DIR/.ssh" -- "$PROBE" read "$HOME_DIR/.ssh/id_ed25519"
expect_denied "ro ~ + deny ~/.ssh: ~/.ssh cannot be listed" 'landlock:EACCES|bwrap:ENOENT' \
	llw -p default --ro "$HOME_DIR" --deny "$HOME_DIR/.ssh" -- "$PROBE" ls "$HOME_DIR/.ssh"
expect_succeeded "ro ~ + deny ~/.ssh: the project stays writable" \
	llw -p default --ro "$HOME_DIR" --deny "$HOME_DIR/.ssh" -- "$PROBE" write "$PROJ/x"
mkdir -p "$HOME_DIR/.ssh/agent-dir"
chown "$TEST_UID:$TEST_GID" "$HOME_DIR/.ssh/agent-dir"
expect_succeeded "rw ~/.ssh/agent-dir inside the deny is writable" \
	llw -p default --ro "$HOME_DIR" --deny "$HOME_DIR/.ssh" --rw "$HOME_DIR/.ssh/agent-dir" -- \
	"$PROBE" write "$HOME_DIR/.ssh/agent-dir/sock"
expect_denied "... while the key beside it stays hidden" 'landlock:EACCES|bwrap:ENOENT' \
	llw -p default --ro "$HOME_DIR" --deny "$HOME_DIR/.ssh" --rw "$HOME_DIR/.ssh/agent-dir" -- \
	"$PROBE" read "$HOME_DIR/.ssh/id_ed25519"

# Symlinks do not lead around a rule: the rule applies to the target.
ln -sf "$HOME_DIR/.ssh/id_ed25519" "$PROJ/key-link"
expect_denied "a symlink in the project to the key does not open it" 'landlock:EACCES|bwrap:ENOENT' \
	llw -p default -- "$PROBE" read "$PROJ/key-link"
ln -sfn "$HOME_DIR/.ssh" "$T/ssh-link"
expect_denied "a rule given through a symlink applies to its target" 'landlock:EACCES|bwrap:ENOENT' \
	llw -p default --ro "$HOME_DIR" --deny "$T/ssh-link" -- "$PROBE" read "$HOME_DIR/.ssh/id_ed25519"

# deny inside writable: not expressible without mount masks (L3, or the
# bubblewrap fallback, whose mounts are masks).  An L3 mask on a file is
# /dev/null; where user namespaces are refused it fails closed or, with
# best effort, is hole punched (namespaces.sh refuses them to test that).
echo "SECRET=1" >"$PROJ/.env"
chown "$TEST_UID:$TEST_GID" "$PROJ/.env"
marker=$PROJ/ran-mask
if bwrap_backend; then
	expect_denied "bwrap: deny inside a writable directory is masked" EACCES \
		llw -p default --deny "$PROJ/.env" -- "$PROBE" read "$PROJ/.env"
	# Never into /dev/null: the mask is an empty read-only file.
	expect_denied "... a write to it fails (not swallowed)" EACCES \
		llw -p default --deny "$PROJ/.env" -- "$PROBE" append "$PROJ/.env"
	expect_succeeded "... while the project beside it stays writable" \
		llw -p default --deny "$PROJ/.env" -- "$PROBE" write "$PROJ/beside-env"
	mkdir -p "$PROJ/secrets"
	echo "s" >"$PROJ/secrets/key"
	chown -R "$TEST_UID:$TEST_GID" "$PROJ/secrets"
	expect_denied "bwrap: a denied directory inside a writable one shows nothing" ENOENT \
		llw -p default --deny "$PROJ/secrets" -- "$PROBE" read "$PROJ/secrets/key"
	expect_denied "... and does not list (mode 0111)" EACCES \
		llw -p default --deny "$PROJ/secrets" -- "$PROBE" ls "$PROJ/secrets"
	expect_succeeded "... while the project beside it lists" \
		llw -p default --deny "$PROJ/secrets" -- "$PROBE" ls "$PROJ"
	expect_denied "... and cannot be written" EROFS \
		llw -p default --deny "$PROJ/secrets" -- "$PROBE" write "$PROJ/secrets/new"
	[ ! -e "$PROJ/secrets/new" ] && [ -e "$PROJ/secrets/key" ] &&
		ok "... and nothing changed on the host" || not_ok "the denied directory changed"
elif userns_works; then
	expect_denied "deny inside a writable directory hides the file (L3 mask)" EACCES \
		llw -p default --deny "$PROJ/.env" -- "$PROBE" read "$PROJ/.env"
	expect_no_output "... its content stays out" "SECRET"
	# Never into /dev/null: a write to the masked file fails.
	expect_denied "... a write to it fails (not swallowed)" EACCES \
		llw -p default --deny "$PROJ/.env" -- "$PROBE" append "$PROJ/.env"
	expect_output "... with EACCES" "errno=EACCES"
	grep -q SECRET "$PROJ/.env" && ok "... and the file is unchanged" ||
		not_ok "the masked file changed"
else
	expect_refused "deny inside a writable directory fails closed, naming the path" \
		"$PROJ/\\.env" llw -p default --deny "$PROJ/.env" -- /bin/sh -c "touch $marker"
fi
run llw -p default --best-effort --deny "$PROJ/.env" -- "$PROBE" read "$PROJ/.env"
if bwrap_backend; then
	expect_rc "with --best-effort it runs, masked" 1
	expect_no_output "... and nothing about it is lost" "NOT ENFORCED.*\.env"
elif userns_works; then
	expect_denied "with --best-effort it runs, masked (L3: unopenable)" EACCES \
		llw -p default --best-effort --deny "$PROJ/.env" -- "$PROBE" read "$PROJ/.env"
	expect_no_output "... and nothing about it is lost" "NOT ENFORCED.*\.env"
else
	expect_rc "with --best-effort it runs, hole punched" 1
	expect_output "... and reports what is not enforced" "NOT ENFORCED"
fi
expect_succeeded "... and the rest of the project stays readable" \
	llw -p default --best-effort --deny "$PROJ/.env" -q -- "$PROBE" read "$PROJ/src/main.c"

# The policy's own files cannot be edited from inside.
cp "$LLW_SRCDIR/conf/default.ini" "$PROJ/mine.ini"
chown "$TEST_UID:$TEST_GID" "$PROJ/mine.ini"
mkdir -p "$HOME_DIR/.config/llwrap/profiles"
printf '[profile]\ninclude = default\n' >"$HOME_DIR/.config/llwrap/profiles/mine.ini"
echo "other" >"$HOME_DIR/.config/other.txt"
chown -R "$TEST_UID:$TEST_GID" "$HOME_DIR/.config"
expect_denied "a profile under a writable directory is write-protected" EROFS \
	llw -p mine --best-effort --rw "$HOME_DIR/.config" -q -- \
	"$PROBE" append "$HOME_DIR/.config/llwrap/profiles/mine.ini"
expect_succeeded "... while the file beside it stays writable" \
	llw -p mine --best-effort --rw "$HOME_DIR/.config" -q -- \
	"$PROBE" append "$HOME_DIR/.config/other.txt"
if bwrap_backend; then
	expect_denied "bwrap: without best effort the protection is a mount" EROFS \
		llw -p mine --rw "$HOME_DIR/.config" -q -- \
		"$PROBE" append "$HOME_DIR/.config/llwrap/profiles/mine.ini"
elif userns_works; then
	expect_denied "without best effort that protection holds too (L3 mask)" EROFS \
		llw -p mine --rw "$HOME_DIR/.config" -q -- \
		"$PROBE" append "$HOME_DIR/.config/llwrap/profiles/mine.ini"
else
	run llw -p mine --rw "$HOME_DIR/.config" -- /bin/true
	expect_rc "without best effort that protection fails closed (needs L3)" 125
fi

# The same through symlinks (issue 17, class 12): the protection is
# decided on resolved paths, as the rules are enforced.  T/L -> a.
S=$HOME_DIR/sym
mkdir -p "$S/a"
ln -s a "$S/L"
printf '[profile]\ninclude = default\n' >"$S/a/p1.ini"
echo "beside" >"$S/a/other.txt"
chown -R "$TEST_UID:$TEST_GID" "$S"
for how in "-p $S/a/p1.ini --rw $S/L" "-p $S/L/p1.ini --rw $S/a"; do
	# shellcheck disable=SC2086
	expect_denied "profile write-protected through a symlink ($how)" EROFS \
		llw $how --best-effort -q -- "$PROBE" append "$S/a/p1.ini"
	# shellcheck disable=SC2086
	expect_succeeded "... while the file beside it stays writable" \
		llw $how --best-effort -q -- "$PROBE" append "$S/a/other.txt"
done
grep -q '^\[profile\]' "$S/a/p1.ini" && ! grep -q x "$S/a/p1.ini" &&
	ok "... and the profile is unchanged" || not_ok "the profile changed"

# Hole punching in /dev with stdin a pipe: /dev/stdin, /dev/stdout and
# /dev/stderr are magic links to the pipe ("pipe:[N]"), which is no path
# and on which Landlock refuses a rule.  They need none: they are skipped
# like any symlink.  (The pipe is read from fd 0: the test's pipe belongs
# to root, so the test user could not reopen it through /dev/stdin.)
llw_piped() { echo piped | llw "$@"; }
run llw_piped -p empty --rx / --rw /dev/pts -- \
	sh -c 'read x && echo "got:$x"'
expect_rc "stdin a pipe, a rule inside /dev: the command runs" 0
expect_output "... and reads the pipe" "^got:piped$"
if bwrap_backend; then
	skip "bubblewrap's /dev is its own, with a writable /dev/shm"
else
	expect_denied "... while the rest of /dev stays read-only" EACCES \
		llw -p empty --rx / --rw /dev/pts -- "$PROBE" write /dev/shm/llw-x </dev/null
fi

# [filesystem] copy: the tree that holds the destination is the
# configured rule at the resolved path (an rw tree named through a
# symlink holds its target); a link in the tree that leads out of every
# writable one gets nothing; a source a rule denies is not copied.
C=$T/copyin
mkdir -p "$C/real/sub" "$C/src" "$C/hidden"
ln -s "$C/real" "$C/link"
ln -s "$C/hidden" "$C/real/out"
printf 'token\n' >"$C/src/auth.json"
chown -R "$TEST_UID:$TEST_GID" "$C"
printf '[profile]\ninclude = default\n[filesystem]\nrw = %s\nro = %s\ncopy = %s %s\ncopy = %s %s\n' \
	"$C/link" "$C/src" "$C/src/auth.json" "$C/real/sub/auth.json" \
	"$C/src/auth.json" "$C/real/out/auth.json" >"$C/copy.ini"
run llw -p "$C/copy.ini" -- "$PROBE" read "$C/real/sub/auth.json"
expect_output "copy: made in an rw tree named through a symlink, by its real name" "SUCCEEDED read"
expect_output "... not through a link in it that leads out of every writable tree" \
	"$C/real/out/auth.json is in no tree the policy makes writable; not copied"
[ ! -e "$C/hidden/auth.json" ] && ok "... and nothing was written there" ||
	not_ok "a copy was written through the link, to $C/hidden"
rm -f "$C/real/sub/auth.json"
printf '[profile]\ninclude = default\n[filesystem]\nrw = %s\ndeny = %s\ncopy = %s %s\n' \
	"$C/link" "$C/src" "$C/src/auth.json" "$C/real/sub/auth.json" >"$C/deny.ini"
run llw -p "$C/deny.ini" -- /bin/true
expect_output "copy: a source a rule denies is not copied" "$C/src/auth.json is denied .*; not copied"
[ ! -e "$C/real/sub/auth.json" ] && ok "... and no copy is made" || not_ok "the denied source was copied"
# A missing ?SRC is skipped quietly, before anything else is said of it
# (and when every copy is one, no rule is resolved for copy-in at all).
printf '[profile]\ninclude = default\n[filesystem]\nrw = %s\ndeny = %s\ncopy = ?%s %s\n' \
	"$C/link" "$C/src" "$C/src/gone.json" "$C/real/sub/gone.json" >"$C/gone.ini"
run llw -p "$C/gone.ini" -- /bin/true
expect_rc "copy: a missing ?SOURCE runs" 0
expect_no_output "... and is skipped quietly, even under a deny rule" "gone.json"

# --- Many rules -----------------------------------------------------------
# 4,200 path rules (a stretch of 64 descriptors closed at a time, the
# rules' directory opened once): the first and the last grant what they
# grant, and a directory beside them without a rule stays denied.
if bwrap_backend; then
	# bubblewrap refuses more than 9,000 arguments (two a rule).
	skip "4,200 rules: the Landlock backend's ruleset (bubblewrap takes at most 9,000 arguments)"
else
	M=$OUTSIDE/many
	awk -v p="$M" 'BEGIN { for (i = 0; i < 4200; i++) print p "/d" i }' >"$T/many.dirs"
	xargs mkdir -p <"$T/many.dirs"
	mkdir -p "$M/none"
	for d in d0 d4199 none; do echo "$d" >"$M/$d/file"; done
	chown -R "$TEST_UID:$TEST_GID" "$M"
	{
		printf '[profile]\ninclude = default\n[filesystem]\n'
		sed 's/^/ro = /' "$T/many.dirs"
	} >"$T/many.ini"
	expect_succeeded "4,200 rules: a file under the first rule's directory is readable" \
		llw -p "$T/many.ini" -- "$PROBE" read "$M/d0/file"
	expect_succeeded "... and under the last's" \
		llw -p "$T/many.ini" -- "$PROBE" read "$M/d4199/file"
	expect_denied "... a directory beside them with no rule stays denied" EACCES \
		llw -p "$T/many.ini" -- "$PROBE" read "$M/none/file"
	expect_denied "... and the last rule grants no write (ro)" EACCES \
		llw -p "$T/many.ini" -- "$PROBE" write "$M/d4199/new"
fi

done_testing
