#!/bin/sh
# The real agent: opencode (npm opencode-ai) under -p opencode, as an
# unprivileged user: --version, and `opencode serve` answering over HTTP
# while the secrets beside the project stay out of reach.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

OPENCODE=$(command -v opencode || true)
if [ -z "$OPENCODE" ]; then
	skip_rest "opencode is not installed (npm install -g opencode-ai)"
fi
# Through the bubblewrap fallback, the supervisor enforces the network
# rules beside bwrap: the profile runs as it is.
BE=

run llw -p opencode $BE -- opencode --version
expect_rc "opencode --version runs under -p opencode" 0
expect_output "... and prints its version" "^[0-9]+\.[0-9]+\.[0-9]+"

run llw -p opencode --explain -- opencode
expect_output "the opencode profile applies with file:line provenance" "opencode.ini:[0-9]+"

port=$(free_port)
spawn_as_user $LLWRAP_B -p opencode $BE --bind-tcp "$port" -- \
	opencode serve --hostname 127.0.0.1 --port "$port" >"$T/serve.log" 2>&1
serve_pid=$spawned
code=
i=0
while [ $i -lt 120 ]; do
	code=$(curl -s -m 5 -o "$T/doc" -w '%{http_code}' "http://127.0.0.1:$port/doc" 2>/dev/null || true)
	case "$code" in [1-5]??) break ;; esac
	kill -0 "$serve_pid" 2>/dev/null || break
	sleep 0.5
	i=$((i + 1))
done
case "$code" in
2??) ok "opencode serve answers over HTTP on 127.0.0.1:$port (status $code)" ;;
*) not_ok "opencode serve answers over HTTP"; diag "last status '$code'"; sed 's/^/# /' "$T/serve.log" | tail -20 ;;
esac
# The first /config loads opencode's configuration and providers, which
# on a loaded CI machine has taken more than 10 s: up to three tries.
for i in 1 2 3; do
	run curl -s -m 20 "http://127.0.0.1:$port/config"
	case "$out" in *"{"*) break ;; esac
done
expect_output "its API works (GET /config)" "\{"

# The server runs as the sandboxed user; what can it reach?  Ask the
# sandbox's own shell the same way the agent's bash tool would run.
expect_denied "under -p opencode, ~/.ssh is unreadable" 'landlock:EACCES|bwrap:ENOENT' \
	llw -p opencode $BE -q -- "$PROBE" read "$HOME_DIR/.ssh/id_ed25519"
expect_denied "... ~/.bashrc cannot be written" EROFS \
	llw -p opencode $BE -q -- "$PROBE" append "$HOME_DIR/.bashrc"
expect_succeeded "... the project can be written" \
	llw -p opencode $BE -q -- "$PROBE" write "$PROJ/agent-output.txt"
run llw -p opencode $BE -q -- /bin/sh -c 'echo "$XDG_DATA_HOME"'
DATA=$out
case "$DATA" in
"$HOME_DIR"/.local/share/llwrap/opencode/proj-*/data) ok "its data directory is per project ($DATA)" ;;
*) not_ok "its data directory is per project"; diag "XDG_DATA_HOME=$DATA" ;;
esac
expect_succeeded "... and can be written" \
	llw -p opencode $BE -q -- "$PROBE" write "$DATA/llw-test"

# Agent state (issue 17, class 4): the configuration is read-only, and
# two projects' data stay apart.
mkdir -p "$HOME_DIR/.config/opencode"
chown -R "$TEST_UID:$TEST_GID" "$HOME_DIR/.config"
expect_denied "opencode's configuration is read-only (no MCP server or plugin planted for later)" EROFS \
	llw -p opencode $BE -q -- "$PROBE" write "$HOME_DIR/.config/opencode/opencode.json"
# (ENOENT: L3's sealed view, where project A's directory is absent.)
expect_denied "... project B cannot read project A's opencode data" 'landlock:EACCES|ENOENT' \
	llw -p opencode $BE -C "$OTHER" -q -- "$PROBE" read "$DATA/llw-test"
run llw -p opencode $BE -C "$OTHER" -q -- /bin/sh -c 'echo "$XDG_DATA_HOME"'
[ -n "$out" ] && [ "$out" != "$DATA" ] &&
	ok "... which has a data directory of its own" ||
	not_ok "project B has its own data directory (got '$out')"
# The other projects' directories are absent from the sealed view, not a
# placeholder each: their names are the user's projects', and there is
# one for each project an agent ran in (each a mount of pid 1's view).
OTHER_DIR=${out%/data}
run llw -p opencode $BE --explain -- /bin/true
case $out in *"; sealed (what may not be read is absent"*) sealed=yes ;; *) sealed= ;; esac
run llw -p opencode $BE -q -- /bin/sh -c '[ -e "$1" ] && echo "present: $(stat -c %A "$1")" || echo absent' sh "$OTHER_DIR"
if [ -n "$sealed" ]; then
	expect_output "... and project A does not see project B's directory at all" "^absent$"
else
	expect_no_output "... and project A does not see project B's directory" "^present: d[rwx]"
fi
python3 -c 'import os, socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777)
s.listen(); time.sleep(120)' "$OUTSIDE/host.sock" &
bg_pids="$bg_pids $!"
i=0
while [ ! -S "$OUTSIDE/host.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
expect_denied "... a host unix socket cannot be reached" EACCES \
	llw -p opencode $BE -q -- "$PROBE" unix-connect "$OUTSIDE/host.sock"

stop "$serve_pid"
done_testing
