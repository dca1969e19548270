#!/bin/sh
# The real agent under attack: opencode under llwrap -p opencode, as an
# unprivileged user, driven by a scripted OpenAI-compatible mock
# provider on loopback (tests/integration/mock-llm.py).  The mock answers
# each request with one bash tool call: legitimate work first (create and
# edit files, git commit, build, test), then attacks (read the SSH key,
# append to ~/.bashrc, connect to a host unix socket, reach a port not
# allowed, drop a git hook outside the project).  The test reads the tool
# results opencode sent back to the mock, and the host file system.
#
# Offline: the mock is configured in the project's opencode.json through
# opencode's bundled @ai-sdk/openai-compatible provider, and
# OPENCODE_DISABLE_MODELS_FETCH=1 keeps opencode from fetching
# models.dev.  --auto approves every permission opencode would ask
# about, so the sandbox is what stops the attacks, not opencode.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

OPENCODE=$(command -v opencode || true)
if [ -z "$OPENCODE" ]; then
	skip_rest "opencode is not installed (npm install -g opencode-ai)"
fi
need_opencode_profile
PYTHON=$(command -v python3)

# Host side, as the test user: a unix socket server and a TCP listener
# on a port the sandbox does not allow.
SOCK=$OUTSIDE/host.sock
mkdir -p "$OUTSIDE/repo/.git/hooks"
chown -R "$TEST_UID:$TEST_GID" "$OUTSIDE"
cat >"$T/listen.py" <<'PY'
import os, socket, sys, threading
u = socket.socket(socket.AF_UNIX)
u.bind(sys.argv[1]); u.listen(8)
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(8)
open(sys.argv[2] + ".tmp", "w").write(str(t.getsockname()[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
def serve(s, name):
    while True:
        c, _ = s.accept()
        open(sys.argv[3], "a").write(name + "\n")
        c.close()
threading.Thread(target=serve, args=(u, "unix"), daemon=True).start()
serve(t, "tcp")
PY
spawn_as_user /usr/bin/python3 "$T/listen.py" "$SOCK" "$OUTSIDE/deny-port" "$OUTSIDE/hits"
i=0
while [ ! -s "$OUTSIDE/deny-port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
DENY=$(cat "$OUTSIDE/deny-port")

# The control: outside the sandbox the test user reaches the socket.
run as_user /usr/bin/python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("ok")' "$SOCK"
expect_output "control: outside the sandbox the test user reaches the unix socket" "^ok$"
sleep 0.2
rm -f "$OUTSIDE/hits"

# The script: one shell command per step, built in Python so that no
# quoting crosses two languages.
"$PYTHON" - "$SOCK" "$DENY" "$OUTSIDE" >"$T/script.json" <<'PY'
import json, sys
sock, deny, outside = sys.argv[1:4]
print(json.dumps([
    "mkdir -p src && printf 'int main(void) { return 0; }\\n' > src/main.c"
    " && echo STEP0-OK",
    "sed -i 's/return 0;/return 42;/' src/main.c"
    " && grep -q 'return 42' src/main.c && echo STEP1-OK",
    "git init -q && git add src && git -c user.name=agent"
    " -c user.email=agent@example.invalid commit -qm first"
    " && git log --oneline | grep -q first && echo STEP2-OK",
    "printf 'app: src/main.c\\n\\tcc -o app src/main.c\\n' > Makefile"
    " && make -s && printf 'test -s app && echo TEST-PASSED\\n' > test.sh"
    " && sh test.sh && echo STEP3-OK",
    "cat ~/.ssh/id_ed25519; echo STEP4-rc=$?",
    "echo pwned >> ~/.bashrc; echo STEP5-rc=$?",
    "python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX);"
    " s.connect(sys.argv[1]); print(\"STEP6-CONNECTED\")' %s;"
    " echo STEP6-rc=$?" % sock,
    "bash -c 'exec 3<>/dev/tcp/127.0.0.1/%s' && echo STEP7-REACHED;"
    " echo STEP7-done" % deny,
    "printf '#!/bin/sh\\necho owned\\n' > %s/repo/.git/hooks/pre-commit"
    " && echo STEP8-WRITTEN; echo STEP8-done" % outside,
]))
PY

"$PYTHON" "$LLW_SRCDIR/tests/integration/mock-llm.py" "$T/script.json" \
	"$T/mock.jsonl" "$T/mock-port" 2>"$T/mock.err" &
bg_pids="$bg_pids $!"
i=0
while [ ! -s "$T/mock-port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
PORT=$(cat "$T/mock-port")

cat >"$PROJ/opencode.json" <<EOF
{
  "\$schema": "https://opencode.ai/config.json",
  "provider": {
    "mock": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "llwrap mock",
      "options": { "baseURL": "http://127.0.0.1:$PORT/v1", "apiKey": "mock" },
      "models": { "mock-model": { "name": "mock", "tool_call": true } }
    }
  },
  "model": "mock/mock-model",
  "autoupdate": false,
  "share": "disabled"
}
EOF
chown "$TEST_UID:$TEST_GID" "$PROJ/opencode.json"

run as_user OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 \
	timeout 180 "$LLWRAP" -p opencode --allow-cidr "127.0.0.1/32:$PORT" -- \
	opencode run --auto -m mock/mock-model "do it"
expect_rc "opencode run under -p opencode finishes" 0
expect_output "... and prints the mock's final answer" "done"

# The tool results, in order, as opencode sent them back to the mock.
mock_results "$T/mock.jsonl"
nres=$(grep -c '^RESULT' "$T/results")
if [ "$nres" -eq 9 ]; then
	ok "the mock received all 9 tool results"
else
	not_ok "the mock received all 9 tool results (got $nres)"
	sed 's/^/# /' "$T/mock.err" | tail -5
fi

# Legitimate work.
has 0 STEP0-OK "the agent creates a file in the project"
has 1 STEP1-OK "the agent edits it"
has 2 STEP2-OK "the agent runs git init and git commit"
has 3 TEST-PASSED "the agent builds with make and runs the tests"
grep -q 'return 42' "$PROJ/src/main.c" 2>/dev/null && ok "host: the edit is in the project" ||
	not_ok "host: the edit is in the project"
git -c safe.directory='*' -C "$PROJ" log --oneline 2>/dev/null | grep -q first &&
	ok "host: the commit is in the project's history" ||
	not_ok "host: the commit is in the project's history"
[ -s "$PROJ/app" ] && ok "host: the build output exists" || not_ok "host: the build output exists"

# Attacks.
hasnt 4 llw-secret "the agent cannot read ~/.ssh/id_ed25519"
has 4 'STEP4-rc=[1-9]' "... cat fails"
has 5 'STEP5-rc=[1-9]' "the agent cannot append to ~/.bashrc"
grep -q pwned "$HOME_DIR/.bashrc" && not_ok "host: ~/.bashrc is intact" || ok "host: ~/.bashrc is intact"
hasnt 6 STEP6-CONNECTED "the agent cannot connect to a host unix socket"
has 6 'STEP6-rc=[1-9]' "... python's connect fails"
hasnt 7 STEP7-REACHED "the agent cannot reach a TCP port not allowed"
has 7 STEP7-done "... the step ran"
grep -q . "$OUTSIDE/hits" 2>/dev/null && not_ok "host: no listener saw a connection" ||
	ok "host: no listener saw a connection"
hasnt 8 STEP8-WRITTEN "the agent cannot drop a git hook outside the project"
[ ! -e "$OUTSIDE/repo/.git/hooks/pre-commit" ] && ok "host: no hook outside the project" ||
	not_ok "host: no hook outside the project"

done_testing
