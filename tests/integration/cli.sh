#!/bin/sh
# The command line: help, version, exit statuses, inspection, and the
# options that must fail closed until their layer exists (bwrap).
. "$LLW_SRCDIR/tests/lib/libtest.sh"
need_default_profile

expect_status "--help exits 0" 0 "$LLWRAP" --help
expect_output "--help lists --explain" "--explain"
expect_status "--version exits 0" 0 "$LLWRAP" --version
expect_output "--version names llwrap" "^llwrap [0-9]"
expect_status "an unknown option is exit 125" 125 "$LLWRAP" --no-such-option -- true

expect_status "the command's status is passed on" 7 \
	llw -p default -- /bin/sh -c 'exit 7'
expect_status "a command killed by SIGTERM gives 143" 143 \
	llw -p default -- /bin/sh -c 'kill -TERM $$'
expect_status "a missing command is 127" 127 \
	llw -p default -- /nonexistent/command
expect_output "a missing command is named" "/nonexistent/command"
expect_status "a command not on PATH is 127" 127 \
	llw -p default -- llw-no-such-command
printf 'echo hi\n' >"$PROJ/notexec.sh"
chown "$TEST_UID:$TEST_GID" "$PROJ/notexec.sh"
chmod 644 "$PROJ/notexec.sh"
expect_status "a non-executable file is 126" 126 \
	llw -p default -- "$PROJ/notexec.sh"
mkdir -p "$OUTSIDE/bin"
cp /bin/true "$OUTSIDE/bin/mytrue"
expect_status "a command the policy does not let run is 126" 126 \
	llw -p default -- "$OUTSIDE/bin/mytrue"
expect_output "the message says why" "rx"
# A profile of one's own that includes no base profile: nothing can
# execute, and llwrap says so before trying, naming the include.
printf '[network]\nconnect-tcp = 443\n' >"$T/nobase.ini"
printf '[profile]\ninclude = default\n[network]\nconnect-tcp = 443\n' >"$T/withbase.ini"
chmod 644 "$T/nobase.ini" "$T/withbase.ini"
run as_user $LLWRAP_B -p "$T/nobase.ini" -- /bin/true
expect_rc "a profile without a base: refused before exec (125)" 125
expect_output "... naming the include it lacks" \
	"the policy lets nothing execute .*: the profiles given \\($T/nobase.ini\\) include no base profile; add 'include = default' under \\[profile\\]"
run as_user $LLWRAP_B -q -p "$T/withbase.ini" -- /bin/true
expect_rc "... with include = default it runs" 0

# quickstart.sh as a user without sudo, a package missing: the apt-get
# line to ask root for, not "sudo: not found".  Its PATH has no sudo:
# dirname, grep, id and a dpkg-query that knows only one package.
mkdir -p "$T/qs/bin"
cp "$LLW_SRCDIR/quickstart.sh" "$T/qs/"
for t in dirname grep id; do ln -s "$(command -v $t)" "$T/qs/bin/$t"; done
printf '#!/bin/sh\n[ "$3" = bubblewrap ] || echo "install ok installed"\n' >"$T/qs/bin/dpkg-query"
chmod 755 "$T/qs/bin/dpkg-query" "$T/qs/quickstart.sh"
run as_user env PATH="$T/qs/bin" /bin/sh "$T/qs/quickstart.sh"
expect_rc "quickstart without sudo, a package missing: it stops" 1
expect_output "... with the line to ask root for" "^  apt-get update && apt-get install -y bubblewrap$"
expect_no_output "... not sudo's absence" "sudo: not found"

run llw -p default -- /bin/sh -c 'echo "$0 runs"'
expect_output "no command runs the given one" "sh runs"
run llw -p default
if [ "$rc" -eq 0 ]; then ok "no command runs \$SHELL"; else not_ok "no command runs \$SHELL"; diag "$out"; fi

run llw -p default --explain -- /bin/true
expect_rc "--explain exits 0" 0
expect_output "--explain gives file:line provenance" "conf/default.ini:[0-9]+"
if bwrap_backend; then
	expect_output "--explain shows the bwrap mounts" "--ro-bind-try /usr /usr"
else
	expect_output "--explain shows the compiled Landlock rules" "Landlock rules"
fi
expect_output "--explain shows the seccomp summary" "seccomp"
expect_output "--explain says what is enforced" "Every restriction|NOT ENFORCED"
run llw -p default --explain --rw "$OUTSIDE" -- /bin/true
expect_output "--explain shows a flag with its source" "$OUTSIDE.*command line"

expect_status "--check exits 0 where Landlock works" 0 "$LLWRAP" --check
expect_output "--check reports Landlock" "Landlock: +(Landlock )?ABI [0-9]+|Landlock: .*"
expect_output "--check reports user namespaces" "user namespaces"
expect_output "--check says how llwrap is linked" "^llwrap: +[0-9.]+, linked: (static PIE|dynamic)"
expect_output "--check reports bwrap and whether it is setuid" "bwrap: +(not found|/.*setuid)"

# The supervisor's options run the command (tests/integration/supervisor.sh
# checks what they enforce).
for opt in "--allow-cidr 10.0.0.0/8" "--unix /run/x.sock" "--listen 127.0.0.1:8080" "--dns 127.0.0.53"; do
	marker=$PROJ/ran-$(echo "$opt" | tr -c 'a-z' _)
	# (Under bwrap too: llwrap stays outside as the supervisor.)
	# shellcheck disable=SC2086
	if supervisor_refused >/dev/null; then
		expect_refused "$opt is refused where the supervisor cannot run, naming the cause" \
			"need the network supervisor, but Yama" \
			llw -p default $opt -- /bin/sh -c "touch $marker"
	else
		expect_ran "$opt runs the command under the supervisor" \
			llw -p default $opt -- /bin/sh -c "touch $marker"
	fi
done
if [ -x /usr/bin/bwrap ] || command -v bwrap >/dev/null 2>&1; then
	run llw -p default --backend bwrap --explain -- /bin/true
	expect_output "--backend bwrap: --explain names the backend and why" "^backend: bwrap .*--backend=bwrap"
	if "$LLWRAP" --check | grep -q '^  F  bubblewrap   usable'; then
		expect_status "--backend bwrap runs the command" 7 \
			llw -p default --backend bwrap -- /bin/sh -c 'exit 7'
	else
		expect_refused "--backend bwrap where bwrap cannot run: refused, saying why" \
			'--backend=bwrap was asked for, but .*cannot create a user namespace' \
			llw -p default --backend bwrap -- /bin/sh -c 'exit 7'
	fi
	if [ "$(landlock_abi)" -gt 0 ]; then
		expect_status "--backend landlock runs the command" 7 \
			llw -p default --backend landlock -- /bin/sh -c 'exit 7'
	else
		marker=$PROJ/ran
		expect_refused "--backend landlock without Landlock: refused, saying why" \
			'--backend=landlock was asked for, but Landlock' \
			llw -p default --backend landlock -- /bin/sh -c "touch $marker"
	fi
else
	expect_status "--backend bwrap without bwrap fails closed" 125 llw -p default --backend bwrap -- /bin/true
fi
# --backend auto on a kernel without Landlock (hidden by a seccomp filter
# that makes landlock_create_ruleset fail with ENOSYS).
if "$LLWRAP" --check | grep -q '^  F  bubblewrap   usable'; then
	nolandlock() {
		as_user "$PROBE" without-syscall 444 "$LLWRAP" --rx "$LLW_HELPERS" "$@"
	}
	run nolandlock -p default --explain -- /bin/true
	expect_output "no Landlock: --backend auto falls back to bwrap, saying why" \
		"^backend: bwrap .*--backend=auto: Landlock is not built into this kernel"
	expect_denied "no Landlock, auto: ~/.ssh is not there" ENOENT \
		nolandlock -p default -q -- "$PROBE" read "$HOME_DIR/.ssh/id_ed25519"
	expect_succeeded "... while the project is readable" \
		nolandlock -p default -q -- "$PROBE" read "$PROJ/src/main.c"
	expect_status "no Landlock, --backend landlock fails closed" 125 \
		nolandlock -p default --backend landlock -- /bin/true
	expect_output "... naming what is missing" "Landlock is not built"
else
	skip "bwrap is not usable here: no test of the automatic fallback"
fi
expect_status "a bad --backend is 125" 125 llw --backend nonsense -- /bin/true
expect_status "a bad --keep-fd is 125" 125 llw --keep-fd abc -- /bin/true

# The project is the home, an ancestor of it, or / (issue 17, class 5):
# refused with the reason and the way out; a symlinked project is named
# as it resolves.
marker=$PROJ/ran
for dir in "$HOME_DIR" "$T" /; do
	expect_refused "-C $dir as the project is refused, saying why and how" \
		"allow-broad-project" llw -p default -C "$dir" -- /bin/sh -c "touch $marker"
done
run as_user /bin/sh -c "cd '$HOME_DIR' && exec $LLWRAP_B -p default -- /bin/true"
expect_rc "starting in ~ is refused too" 125
expect_output "... naming the home" "is the home directory"
ln -s "$HOME_DIR" "$PROJ/home-link"
expect_refused "... and reaching ~ through a symlink" "is the home directory" \
	llw -p default -C "$PROJ/home-link" -- /bin/sh -c "touch $marker"
rm "$PROJ/home-link"
expect_ran "--allow-broad-project runs it anyway" \
	llw -p default -C "$HOME_DIR" --allow-broad-project -- /bin/sh -c "touch $marker"
expect_output "... with a warning" "warning: the project directory is the home"
ln -s "$PROJ" "$HOME_DIR/proj-link"
run llw -p default -C "$HOME_DIR/proj-link" -- /bin/true
expect_rc "a project reached through a symlink runs" 0
expect_output "... and is named as it resolves" "reached through a symbolic link; the sandbox grants $PROJ"
rm "$HOME_DIR/proj-link"

done_testing
