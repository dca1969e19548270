#!/bin/sh
# llwrap-agent (contrib/nixos/agents), without systemd: the agent card
# becomes an llwrap profile llwrap accepts and a unit drop-in; bad cards
# and arguments are refused with the file:line or the way out; spawn,
# list, stop and destroy drive systemctl (a stub here) and the files;
# "exec" runs the agent under its profile for real.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

# llwrap-agent refuses agent directories where a deployed agent could
# not see them or must not write (ProtectHome, system trees): a scratch
# space there (a run from a checkout under /tmp, which libtest moves
# out) cannot hold a test agent's directory.
case "$T/" in
/home/* | /root/* | /run/*)
	skip_rest "the scratch space $T is where llwrap-agent refuses agent directories; run from a build tree outside /tmp" ;;
esac

# A copy the test user can reach (the build tree may be out of its reach).
cp "$LLW_SRCDIR/contrib/nixos/agents/llwrap-agent" "$T/llwrap-agent"
chmod 755 "$T/llwrap-agent"
AGENT="bash $T/llwrap-agent"
CARD=$LLW_SRCDIR/contrib/nixos/agents/card.example.ini
export LLWRAP_AGENT_CONFIG_DIR="$T/etc" LLWRAP_AGENT_STATE_DIR="$T/state" \
	LLWRAP_AGENT_UNIT_DIR="$T/units" LLWRAP_AGENT_SYSTEMCTL="$T/systemctl"

# systemctl stub: records each call; is-active is true when the unit's
# marker file exists (start creates it, stop removes it).
cat >"$T/systemctl" <<'SH'
#!/bin/sh
echo "$*" >>"$LLWRAP_AGENT_UNIT_DIR.calls"
case "$1" in
is-active) [ "$2" = --quiet ] && shift; [ -e "$LLWRAP_AGENT_UNIT_DIR.$2" ] && { echo active; exit 0; }; echo inactive; exit 3 ;;
start) touch "$LLWRAP_AGENT_UNIT_DIR.$2" ;;
stop) rm -f "$LLWRAP_AGENT_UNIT_DIR.$2" ;;
esac
exit 0
SH
chmod 755 "$T/systemctl"
calls() { cat "$T/units.calls" 2>/dev/null; }

# ---- Rendering ----
W=$T/work
mkdir -p "$W/alpha"
run $AGENT render alpha --card "$CARD" --dir "$W/alpha"
expect_rc "render: the example card renders" 0
printf '%s\n' "$out" >"$T/alpha.ini"
expect_output "... the directory from --dir beats the card's, read-write" "^rwx = $W/alpha\$"
expect_output "... HOME and XDG parts of its state, not the state itself" "^rw = $T/state/alpha/home\$"
expect_no_output "... (no rule on the state directory itself)" "= $T/state/alpha\$"
expect_output "... the card's CIDR on every port (supervisor)" '^allow-cidr = 10\.10\.0\.0/16:1-65535$'
expect_output "... and no port rule beside it (no internet on 443)" '^connect-tcp = none$'
expect_output "... its unix socket, DNS server and listen address" '^unix = /run/postgresql/\.s\.PGSQL\.5432$'
expect_output "... listen 127.0.0.1:4097 and that bind port" '^listen = 127\.0\.0\.1:4097$'
expect_output "... the credential directory readable" '^ro = /run/credentials/opencode-agent@alpha\.service$'
expect_output "... the per-agent log prefix" '^log-prefix = opencode-agent-alpha-blocked$'
run "$LLWRAP" --explain --profile "$T/alpha.ini" -C "$W/alpha" -- /bin/true
expect_rc "llwrap accepts the rendered profile (every key exists)" 0

run $AGENT render --unit alpha --card "$CARD" --dir "$W/alpha" --ttl 90min
expect_rc "render --unit: the drop-in renders" 0
expect_output "... ReadWritePaths is the directory" "^ReadWritePaths=$W/alpha\$"
expect_output "... limits from the card" '^MemoryMax=4G$'
expect_output "... TasksMax and CPUQuota" '^TasksMax=64$'
expect_output "... the TTL from --ttl beats the card's" '^RuntimeMaxSec=90min$'
expect_output "... the credential by LoadCredential" '^LoadCredential=api-key:/run/secrets/agents/alpha/api-key$'

run $AGENT render beta --dir "$W/beta"
expect_output "no card: listen defaults to 127.0.0.1:0, no CIDR rule" '^listen = 127\.0\.0\.1:0$'
expect_no_output "... and no allow-cidr" 'allow-cidr'
expect_no_output "... nor a connect-tcp = none (the opencode profile's network)" 'connect-tcp'

# ---- Refusals ----
bad() { # DESC PATTERN CARD-TEXT [ARGS...]
	_d=$1 _p=$2
	printf '%s\n' "$3" >"$T/bad.ini"
	shift 3
	run $AGENT render gamma --card "$T/bad.ini" "$@"
	if [ "$rc" -ne 0 ] && printf '%s\n' "$out" | grep -Eq -- "$_p"; then
		ok "$_d"
	else
		not_ok "$_d"
		diag "status $rc, wanted /$_p/: $out"
	fi
}
bad "allow-host is refused until llwrap has it, naming the way out" 'allow-host.*does not have yet.*allow-cidr' \
	"[agent]
directory = $W/g
[network]
allow-host = api.anthropic.com"
bad "an unknown key is refused with file:line" 'bad\.ini:2: unknown key .color.' "[agent]
color = blue"
bad "an unknown section is refused" 'bad\.ini:1: unknown section \[proxy\]' "[proxy]"
bad "no directory is refused, naming --dir" 'needs a directory: --dir' "[limits]
memory = 1G"
bad "a directory under /home is refused (ProtectHome)" 'under /home' "[agent]
directory = /home/u/p"
bad "a relative directory is refused" 'not a plain absolute path' "[agent]
directory = work/p"
bad "a path with a blank is refused" 'not a plain absolute path' "[agent]
directory = $W/g
[filesystem]
rw = /a\\ b"
bad "a '..' component is refused" "'\\.\\.' component" "[agent]
directory = $W/../etc"
bad "a bad TTL is refused" 'not a time span' "[agent]
directory = $W/g
ttl = soon"
bad "a bad CIDR is refused" 'not an IPv4 or IPv6 CIDR' "[agent]
directory = $W/g
[network]
allow-cidr = example.com"
bad "a bad listen address is refused" 'not ADDR:PORT|not a port|not an IPv4' "[agent]
directory = $W/g
listen = localhost"
bad "two values for a single-value key are refused" 'takes one value' "[agent]
directory = $W/g $W/h"
bad "a unit-file injection in a limit is refused" 'not a size' "[agent]
directory = $W/g
[limits]
memory = 1G
memory = 1G\\nExecStartPre=/bin/sh"
run $AGENT render Bad_Name --dir "$W/g"
expect_output "an agent name outside the safe pattern is refused" "agent name 'Bad_Name' is not valid"
run $AGENT render gamma --dir "$W/g" --bogus
expect_output "an unknown option is refused" "unknown option '--bogus'"
run $AGENT frobnicate
expect_output "an unknown command names the commands" "unknown command 'frobnicate'; the commands are spawn, list"

# ---- spawn, list, stop, destroy (systemctl stubbed) ----
PORT=$(free_port)
run $AGENT spawn alpha --card "$CARD" --dir "$W/alpha" --listen "127.0.0.1:$PORT"
expect_rc "spawn: succeeds" 0
if [ -f "$T/etc/alpha/profile.ini" ] && [ -f "$T/etc/alpha/agent.env" ] &&
	[ -f "$T/etc/alpha/card.ini" ] &&
	[ -f "$T/units/opencode-agent@alpha.service.d/50-llwrap-agent.conf" ]; then
	ok "... writes the profile, the card, agent.env and the unit drop-in"
else
	not_ok "... writes the profile, the card, agent.env and the unit drop-in"
	diag "$(find "$T/etc" "$T/units" 2>&1)"
fi
run calls
expect_output "... reloads systemd and starts opencode-agent@alpha" 'daemon-reload
start opencode-agent@alpha\.service'
run $AGENT spawn alpha --dir "$W/alpha"
expect_output "spawn: a running agent is refused" "agent 'alpha' is running; stop or destroy it first"
run $AGENT list
expect_output "list: the agent, its state, listen address and directory" "^alpha +active +127\.0\.0\.1:$PORT +$W/alpha\$"
run $AGENT stop alpha
expect_rc "stop: succeeds" 0
run calls
expect_output "... through systemctl stop" 'stop opencode-agent@alpha\.service$'
run $AGENT list
expect_output "list: shows it stopped" '^alpha +inactive'
run $AGENT stop nosuch
expect_output "stop: an unknown agent is refused" "no agent 'nosuch'"

# ---- exec: the agent under its profile, for real ----
if userns_works && "$LLWRAP" --check 2>/dev/null | grep -q "S  supervisor   usable"; then
	for d in home config config/opencode data state cache; do
		mkdir -p "$T/state/alpha/$d" "$T/state/other/$d"
	done
	echo secret >"$T/state/other/home/secret"
	# The stub opencode lives in the agent's directory (rwx there).
	cat >"$W/alpha/opencode" <<SH
#!/bin/sh
echo "args: \$*"
echo ok >"\$PWD/ran" && echo "wrote the directory"
echo x >"$OUTSIDE/agent" 2>/dev/null && echo "WROTE OUTSIDE"
cat "$T/state/other/home/secret" 2>/dev/null && echo "READ OTHER STATE"
echo x >"\$HOME/f" && echo "wrote its HOME"
exit 0
SH
	chmod 755 "$W/alpha/opencode"
	chown -R "$TEST_UID:$TEST_GID" "$W" "$T/state"
	chmod 755 "$T/etc" "$T/etc/alpha"
	run as_user env HOME="$T/state/alpha/home" XDG_CONFIG_HOME="$T/state/alpha/config" \
		XDG_DATA_HOME="$T/state/alpha/data" XDG_STATE_HOME="$T/state/alpha/state" \
		XDG_CACHE_HOME="$T/state/alpha/cache" \
		LLWRAP_AGENT_CONFIG_DIR="$T/etc" LLWRAP_AGENT_STATE_DIR="$T/state" \
		LLWRAP_AGENT_LLWRAP="$LLWRAP" LLWRAP_AGENT_OPENCODE="$W/alpha/opencode" \
		bash "$T/llwrap-agent" exec alpha
	expect_output "exec: opencode serve on the agent's listen address" "^args: serve --hostname 127\.0\.0\.1 --port $PORT\$"
	expect_output "... it writes its directory" '^wrote the directory$'
	expect_output "... and its HOME" '^wrote its HOME$'
	expect_no_output "... it cannot write outside" 'WROTE OUTSIDE'
	expect_no_output "... nor read another agent's state" 'READ OTHER STATE'
else
	skip "exec: unprivileged user namespaces or the supervisor are unavailable here"
fi

run $AGENT destroy alpha
expect_rc "destroy: succeeds" 0
if [ ! -e "$T/etc/alpha" ] && [ ! -e "$T/units/opencode-agent@alpha.service.d" ]; then
	ok "... removes its configuration and drop-in"
else
	not_ok "... removes its configuration and drop-in"
fi
run calls
expect_output "... has systemd remove its state (systemctl clean)" 'clean --what=state --what=runtime opencode-agent@alpha\.service'
run $AGENT list
expect_no_output "list: it is gone" '^alpha '

done_testing
