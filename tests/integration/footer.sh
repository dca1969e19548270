#!/bin/sh
# The footer (DESIGN.md §12): after a command under which the supervisor
# blocked something, one line on stderr once the command is gone,
# whatever its status; none with -q, and, on a terminal, never while the
# command runs nor over another job's screen.  The agent note: each kind of
# blocked attempt once on the blocked process's stderr when that is a
# pipe or a file, never on a terminal, and not with log-stderr = no.
. "$LLW_SRCDIR/tests/lib/libtest.sh"
need_default_profile

if [ "$("$LLWRAP" --check 2>/dev/null | sed -n 's/^  S  supervisor *//p')" != usable ]; then
	skip_rest "the network supervisor cannot run here"
fi
if bwrap_backend; then
	skip_rest "the bubblewrap backend has no supervisor"
fi

# Three refused connects, one to another place, then the status given.
attempt() {
	echo "$PROBE tcp-connect 127.0.0.1 1 >/dev/null; $PROBE tcp-connect 127.0.0.1 1 >/dev/null; $PROBE tcp-connect 127.0.0.3 2 >/dev/null; exit $1"
}

run llw -p default -n foot --allow-cidr 127.0.0.2/32:1 -- /bin/sh -c "$(attempt 3)"
expect_rc "the command's status is kept" 3
expect_output "a failing run with blocked attempts ends with the footer" \
	"^llwrap: the sandbox blocked 3 attempts during this run: connect tcp 127\\.0\\.0\\.1:1 \\(2x\\), connect tcp 127\\.0\\.0\\.3:2; see 'llwrap log foot'"
n=$(printf '%s\n' "$out" | grep -c '^llwrap: the sandbox blocked')
if [ "$n" -eq 1 ]; then ok "... once"; else not_ok "... $n times"; diag "$out"; fi

run llw -p default -n foot --allow-cidr 127.0.0.2/32:1 -- /bin/sh -c "$(attempt 0)"
expect_rc "a successful run" 0
expect_output "... ends with the footer too" \
	"^llwrap: the sandbox blocked 3 attempts during this run: connect tcp 127\.0\.0\.1:1 \(2x\), connect tcp 127\.0\.0\.3:2; see 'llwrap log foot'"

run llw -p default -n foot --allow-cidr 127.0.0.2/32:1 -- /bin/sh -c "exit 0"
expect_no_output "a successful run that blocked nothing has no footer" "sandbox blocked"

run llw -q -p default -n foot --allow-cidr 127.0.0.2/32:1 -- /bin/sh -c "$(attempt 1)"
expect_rc "a failing run with -q" 1
expect_no_output "... has no footer" "sandbox blocked"

run llw -p default -n foot --allow-cidr 127.0.0.2/32:1 -- /bin/sh -c "exit 2"
expect_no_output "a failing run that blocked nothing has no footer" "sandbox blocked"

run llw -p opencode -n foot --allow-cidr 127.0.0.2/32:1 -- /bin/sh -c "$(attempt 4)"
if userns_works; then
	n=$(printf '%s\n' "$out" | grep -c '^llwrap: the sandbox blocked 3 attempts')
	if [ "$n" -eq 1 ]; then
		ok "under a pid namespace the footer comes once, from the outer llwrap"
	else
		not_ok "under a pid namespace: $n footers"
		diag "$out"
	fi
else
	skip "no user namespaces: the pid namespace case"
fi

# On a terminal: the command marks its start and end; the footer comes
# after the end, never in between.
if command -v script >/dev/null 2>&1; then
	run as_user script -qec "$LLWRAP_B --rx $LLW_HELPERS -p default -n foot --allow-cidr 127.0.0.2/32:1 -- /bin/sh -c 'echo TUI-START; $(attempt 5 | sed 's/; exit 5$//'); echo TUI-END; exit 5'" /dev/null
	between=$(printf '%s\n' "$out" | sed -n '/TUI-START/,/TUI-END/p' | grep -c -e 'sandbox blocked' -e 'blocked by the sandbox')
	after=$(printf '%s\n' "$out" | sed -n '/TUI-END/,$p' | grep -c 'sandbox blocked 3 attempts')
	if [ "$between" -eq 0 ] && [ "$after" -eq 1 ]; then
		ok "on a terminal the footer comes after the command, not during it"
	else
		not_ok "on a terminal: $between footer lines during the run, $after after"
		diag "$out"
	fi
	# An interactive session whose last command succeeded: the footer
	# still comes, after the session.
	run as_user script -qec "$LLWRAP_B --rx $LLW_HELPERS -p default -n foot --allow-cidr 127.0.0.2/32:1 -- /bin/sh -c 'echo TUI-START; $(attempt 0 | sed 's/; exit 0$//'); echo TUI-END; exit 0'" /dev/null
	after=$(printf '%s\n' "$out" | sed -n '/TUI-END/,$p' | grep -c 'sandbox blocked 3 attempts')
	if [ "$after" -eq 1 ]; then
		ok "on a terminal, after a successful session, the footer comes once"
	else
		not_ok "on a terminal, after a successful session: $after footers"
		diag "$out"
	fi
	# llwrap as a background job (job control: its own process group)
	# while the shell holds the terminal: no footer over the screen of
	# whatever runs in the foreground; the log has the attempts.
	run as_user script -qec "/bin/sh -mc '$LLWRAP_B --rx $LLW_HELPERS -p default -n bgfoot --allow-cidr 127.0.0.2/32:1 -- /bin/sh -c \"$(attempt 0 | sed 's/; exit 0$//'); echo BG-RAN\" & wait; echo FG-END'" /dev/null
	if printf '%s\n' "$out" | grep -q BG-RAN && printf '%s\n' "$out" | grep -q FG-END &&
		! printf '%s\n' "$out" | grep -q 'sandbox blocked'; then
		ok "a background job's footer is not printed over the foreground"
	else
		not_ok "a background job's footer is not printed over the foreground"
		diag "$out"
	fi
	run as_user "$LLWRAP" log bgfoot
	expect_output "... and the log has its attempts" "connect tcp 127\.0\.0\.1:1"
else
	skip "script(1) is not installed: the terminal case"
fi

# The agent note.  An agent's pipe is its own (the test user's); a pipe
# of another user's, which the supervisor may not reopen, is written to
# while it has room.
NOTE="llwrap: blocked by the sandbox's policy: connect tcp 127\\.0\\.0\\.1:1 \\(rule filtered/local\\); to allow: \\[network\\] allow-cidr = 127\\.0\\.0\\.1/32:1"
run llw -p default -n note --allow-cidr 127.0.0.2/32:1 -- /bin/sh -c "$(attempt 0)"
expect_output "stderr a pipe: the note names the access, the rule and the change" "^$NOTE"
n=$(printf '%s\n' "$out" | grep -c "^llwrap: blocked by the sandbox's policy: connect tcp 127.0.0.1:1 ")
if [ "$n" -eq 1 ]; then ok "... once for two attempts"; else not_ok "... $n times"; diag "$out"; fi
expect_output "... and once for the other destination" "^llwrap: blocked by the sandbox's policy: connect tcp 127\\.0\\.0\\.3:2 "
run as_user /bin/sh -c "$LLWRAP_B --rx $LLW_HELPERS -p default -n note --allow-cidr 127.0.0.2/32:1 -- /bin/sh -c '$(attempt 0)' 2>&1 | cat"
expect_output "stderr the user's own pipe: the note" "^$NOTE"
# A known-harmless probe (nscd: glibc falls back to /etc files) gets no
# note: nobody should be asked to allow it.  The log still has it.
run llw -p default -n note --allow-cidr 127.0.0.2/32:1 -- /bin/sh -c "$PROBE unix-connect /var/run/nscd/socket; $(attempt 0)"
expect_no_output "nscd's probe: no note" "blocked by the sandbox's policy: connect unix /var/run/nscd/socket"
expect_output "... while the next attempt's note comes" "^$NOTE"

# A unix socket bound in the home: the note suggests no grant on the
# home (DESIGN.md §12), and says where the socket can go instead.
run llw -p default -n note --unix "$OUTSIDE/none.sock" -- "$PROBE" unix-serve "$HOME_DIR/app.sock"
expect_output "a socket bound in the home is refused, and noted" \
	"^llwrap: blocked by the sandbox's policy: bind unix $HOME_DIR/app.sock \\(rule filtered/unix-bind\\); to allow: no safe grant: a rule on the socket's directory $HOME_DIR would reach more, as it is your home directory.*bind the socket in the project or in /tmp"
expect_no_output "... with no grant on the home" "rw = $HOME_DIR[ )]"
run llw -p default -n note --unix "$OUTSIDE/none.sock" -- "$PROBE" unix-serve "$OUTSIDE/app.sock"
expect_output "a socket bound elsewhere: the note names its directory" \
	"bind unix $OUTSIDE/app.sock \\(rule filtered/unix-bind\\); to allow: \\[filesystem\\] rw = $OUTSIDE \\(or --rw $OUTSIDE\\): the socket's directory"

# A stderr the command holds only for reading (here the read end of its
# stdin pipe) gets nothing: the supervisor writes only where the command
# could.
run as_user /bin/sh -c "printf 'input\\n' | $LLWRAP_B --rx $LLW_HELPERS -p default -n note --allow-cidr 127.0.0.2/32:1 -- /bin/sh -c '$PROBE tcp-connect 127.0.0.1 1 >/dev/null 2<&0; cat'"
expect_output "stderr read-only: the command ran and read its input" "^input"
expect_no_output "... and no note came through the read end" "blocked by the sandbox"

touch "$T/err"
chown "$TEST_UID:$TEST_GID" "$T/err"
llw -p default -n note --allow-cidr 127.0.0.2/32:1 -- /bin/sh -c "$(attempt 0)" 2>>"$T/err" >/dev/null
out=$(cat "$T/err")
expect_output "stderr a file: the note is appended to it" "^$NOTE"

printf '[network]\nlog-stderr = no\n' >"$T/quiet.ini"
chmod 644 "$T/quiet.ini"
run llw -p default -p "$T/quiet.ini" -n note --allow-cidr 127.0.0.2/32:1 -- /bin/sh -c "$(attempt 0)"
expect_no_output "log-stderr = no: no note" "blocked by the sandbox"
run as_user "$LLWRAP" log note
expect_output "... while the log still has the attempts" "connect tcp 127\\.0\\.0\\.1:1"

if command -v script >/dev/null 2>&1; then
	run as_user script -qec "$LLWRAP_B --rx $LLW_HELPERS -p default -n note --allow-cidr 127.0.0.2/32:1 -- /bin/sh -c '$(attempt 0 | sed 's/; exit 0$//'); echo NOTE-END'" /dev/null
	expect_output "on a terminal the command ran" "NOTE-END"
	expect_no_output "... and no note was written into the terminal" "blocked by the sandbox"
else
	skip "script(1) is not installed: the terminal case"
fi

done_testing
