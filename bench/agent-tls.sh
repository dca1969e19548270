#!/bin/bash
# bench/agent-tls.sh [BUILD-DIR]: `opencode run` against a TLS mock
# provider by name, through the name check on learned addresses
# (llwrap-relay, DESIGN.md §6.1) and without it.  Issue 27's target: no
# measurable difference in wall time.
#
# As bench/relay.sh, everything runs in network namespaces of this
# script's own (lib.sh's net_fixture): the fixture resolver
# (llm.llw.test is 198.51.100.7), and behind a veth pair the scripted
# OpenAI-compatible mock (tests/integration/mock-llm.py) served over
# TLS on 198.51.100.7 (a certificate for llm.llw.test that
# opencode trusts through NODE_EXTRA_CA_CERTS).  opencode's project
# names the mock as https://llm.llw.test:PORT/v1; each run is one
# `opencode run --auto` of STEPS tool calls (bash: echo), STEPS + 1
# streamed completions and a title request over HTTPS.  Rows, alternating
# each round (ROUNDS, default 5), the median and the spread of each:
#   bare   no sandbox
#   cidr   llwrap -p opencode, --allow-host llm.llw.test:PORT and
#          --allow-cidr 198.51.100.7/32:PORT: the name resolves through
#          llwrap's resolver, the connections are decided by address
#          (an allow-cidr entry holds the address: nothing relayed)
#   relay  llwrap -p opencode, --allow-host llm.llw.test:PORT: every
#          connection through llwrap-relay, its server name checked
# Without opencode (npm install -g opencode-ai) it says so and measures
# a Node client making the same requests (STEPS + 2 streamed POSTs over
# one keep-alive agent) instead (BENCH_NODE=1: that client even where
# opencode is installed).  Prints a Markdown table.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
ROUNDS=${ROUNDS:-5}
STEPS=${STEPS:-3}

command -v node >/dev/null || { echo "bench/agent-tls.sh: needs node"; exit 1; }
setup() {
	cp "$top/tests/integration/mock-llm.py" "$work/"
	net_cert ec llm.llw.test san
	net_resolver
	python3 -c 'import json, sys; print(json.dumps(["echo step%d" % i for i in range(int(sys.argv[1]))]))' \
		"$STEPS" >"$work/script.json"
	# The mock over TLS: mock-llm.py as it is, its server's socket
	# wrapped (the handshake in the request's thread).
	cat >"$work/tls-mock.py" <<'PY'
import http.server, runpy, ssl, sys
here, cert, key = sys.argv[1:4]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
class TLS(http.server.ThreadingHTTPServer):
    def server_bind(self):
        super().server_bind()
        self.socket = ctx.wrap_socket(self.socket, server_side=True,
                                      do_handshake_on_connect=False)
http.server.ThreadingHTTPServer = TLS
sys.argv = [here + "/mock-llm.py"] + sys.argv[4:]
runpy.run_path(sys.argv[0], run_name="__main__")
PY
	mkdir -p "$work/home/proj"
	chmod -R a+rwX "$work"
}
net_bench agent-tls setup pid
net_fixture <<'SH'
exec python3 "$1/tls-mock.py" "$1" "$1/cert.pem" "$1/key.pem" \
	"$1/script.json" /dev/null "$1/port" 198.51.100.7 >/dev/null 2>"$1/mock.err"
SH
while [ ! -s "$work/port" ]; do sleep 0.05; done
port=$(cat "$work/port")

# The certificate in the project, which the sandbox reads.
cp "$work/cert.pem" "$work/home/proj/llm-ca.pem"
export HOME=$work/home NODE_EXTRA_CA_CERTS=$work/home/proj/llm-ca.pem
# The project is the mock's directory, not the checkout around it.
export GIT_CEILING_DIRECTORIES=$work
export OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1
unset XDG_CONFIG_HOME XDG_DATA_HOME XDG_STATE_HOME XDG_CACHE_HOME
cd "$HOME/proj" || exit 1
OPENCODE=$(command -v opencode || true)
why="opencode is not installed"
if [ "${BENCH_NODE:-0}" = 1 ]; then
	OPENCODE=
	why=BENCH_NODE=1
fi
if [ -n "$OPENCODE" ]; then
	what="opencode $("$OPENCODE" --version 2>/dev/null) run --auto, $STEPS tool calls"
	cat >opencode.json <<EOF
{
  "\$schema": "https://opencode.ai/config.json",
  "provider": {
    "mock": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "llwrap mock",
      "options": { "baseURL": "https://llm.llw.test:$port/v1", "apiKey": "mock" },
      "models": { "mock-model": { "name": "mock", "tool_call": true } }
    }
  },
  "model": "mock/mock-model",
  "autoupdate": false,
  "share": "disabled"
}
EOF
	client=(opencode run --auto -m mock/mock-model "do it")
else
	what="$why: a Node client, $((STEPS + 2)) streamed POSTs"
	cat >client.js <<EOF
const https = require("https");
const agent = new https.Agent({ keepAlive: true });
function post(body) {
  return new Promise((ok, no) => {
    const r = https.request("https://llm.llw.test:$port/v1/chat/completions",
      { method: "POST", agent, headers: { "content-type": "application/json" } },
      (res) => { res.on("data", () => {}); res.on("end", ok); });
    r.on("error", no);
    r.end(JSON.stringify(body));
  });
}
(async () => {
  const tools = [{ type: "function", function: { name: "bash", parameters: {} } }];
  const messages = [{ role: "user", content: "do it" }];
  await post({ model: "mock-model", stream: true, messages });
  for (let i = 0; i <= $STEPS; i++) {
    await post({ model: "mock-model", stream: true, tools, messages });
    messages.push({ role: "tool", tool_call_id: "c" + i, content: "step" + i });
  }
  agent.destroy();
})().catch((e) => { console.error(e); process.exit(1); });
EOF
	client=(node client.js)
fi

row() {
	local name=$1 t0 t1
	shift
	t0=$(date +%s%N)
	if ! "$@" "${client[@]}" >"$work/out.$name" 2>&1; then
		echo "# $name failed: $(tail -3 "$work/out.$name" | tr '\n' ' ')" >>"$work/errors"
	fi
	t1=$(date +%s%N)
	echo "$name $(((t1 - t0) / 1000000))"
}
rows() {
	row bare env
	row cidr "$LLWRAP" -p opencode --env-keep NODE_EXTRA_CA_CERTS \
		--allow-host "llm.llw.test:$port" \
		--allow-cidr "198.51.100.7/32:$port" --
	row relay "$LLWRAP" -p opencode --env-keep NODE_EXTRA_CA_CERTS \
		--allow-host "llm.llw.test:$port" --
}
# One round first, not counted: opencode's first run in a data directory
# sets it up (the sandboxed rows have one of their own), and the page
# cache.
rows >/dev/null
for _ in $(seq "$ROUNDS"); do
	rows
done >"$work/rounds"
[ -s "$work/errors" ] && sort -u "$work/errors" | head -5
[ -n "${BENCH_KEEP:-}" ] && cp -r "$work" "$BENCH_KEEP"
echo "$what; $ROUNDS rounds"
echo
awk '
{ v[$1] = v[$1] " " $2; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
END {
	print "| | wall time p50 | min - max | over cidr (p50) |"
	print "|---|---|---|---|"
	for (i = 1; i <= n; i++) {
		r = order[i]
		m = split(v[r], a, " ")
		for (x = 1; x <= m; x++) for (y = x + 1; y <= m; y++)
			if (a[y] + 0 < a[x] + 0) { t = a[x]; a[x] = a[y]; a[y] = t }
		med[r] = a[int((m + 1) / 2)]; lo[r] = a[1]; hi[r] = a[m]
	}
	for (i = 1; i <= n; i++) {
		r = order[i]
		printf "| %s | %d ms | %d - %d ms | %+d ms |\n", r, med[r], lo[r], hi[r], med[r] - med["cidr"]
	}
}' "$work/rounds"
