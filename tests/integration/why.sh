#!/bin/sh
# llwrap why: for a table of paths, sockets and ports under the shipped
# profiles, what `why` answers must be what happens when the access is
# tried in the sandbox, as the unprivileged test user.  A case fails when
# why says allow and the sandbox denies, or the reverse, and also when the
# two agree on something other than the decision the table expects (so
# the test cannot pass by both failing the same way).
. "$LLW_SRCDIR/tests/lib/libtest.sh"

if [ "$(landlock_abi)" -lt 4 ]; then
	skip_rest "needs Landlock ABI 4 (TCP port rules); this kernel has $(landlock_abi)"
fi
if bwrap_backend; then
	skip_rest "why is compared with the Landlock backend here"
fi

# A program of the test user's, outside every rule, and one in the project.
cp "$PROBE" "$OUTSIDE/prog"
cp "$PROBE" "$PROJ/prog"
mkdir -p "$PROJ/.git"
echo "[core]" >"$PROJ/.git/config"
echo "SECRET=1" >"$PROJ/.env"
chown -R "$TEST_UID:$TEST_GID" "$OUTSIDE" "$PROJ"

# A TCP listener and a unix listener outside the sandbox.
python3 - "$T/port" "$OUTSIDE/sock" <<'PY' &
import os, socket, sys, time
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("127.0.0.1", 0))
t.listen(64)
u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
u.bind(sys.argv[2])
os.chmod(sys.argv[2], 0o777)
u.listen(64)
open(sys.argv[1], "w").write(str(t.getsockname()[1]))
t.settimeout(0.2)
u.settimeout(0.2)
end = time.time() + 300
while time.time() < end:
    for s in (t, u):
        try:
            c, _ = s.accept()
            c.close()
        except OSError:
            pass
PY
bg_pids="$bg_pids $!"
i=0
while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
P=$(cat "$T/port")

# case EXPECT "LLWRAP ARGS" "WHY ARGS" "PROBE ARGS": EXPECT is allow or
# deny.  why's status is 0 for allow, 1 for deny; the probe's is 0
# (SUCCEEDED, or the program it executed ran) or 1 (DENIED).
case_() {
	want=$1 args=$2 what=$3 probe=$4
	# shellcheck disable=SC2086
	run llw $args why $what
	wrc=$rc wout=$out
	# shellcheck disable=SC2086
	run llw $args -- "$PROBE" $probe
	prc=$rc pout=$out
	# A file masked with an empty file reads as empty: its content is
	# hidden, which is the denial (every file read here has content).
	case "$probe:$pout" in
	read*:*"SUCCEEDED read bytes=0"*) prc=1 ;;
	esac
	case "$want" in allow) w=0 ;; *) w=1 ;; esac
	if [ "$wrc" -eq "$w" ] && [ "$prc" -eq "$w" ]; then
		ok "$args: why $what: $want, and the sandbox agrees"
	else
		not_ok "$args: why $what: want $want"
		diag "why (status $wrc): $wout"
		diag "probe $probe (status $prc): $pout"
	fi
}

# Filesystem, under each shipped profile (offline's masks need user
# namespaces: without them it refuses, below).
profs=default
userns_works && profs="default offline"
for prof in $profs; do
	case_ deny "-p $prof" "$HOME_DIR/.ssh/id_ed25519" "read $HOME_DIR/.ssh/id_ed25519"
	case_ allow "-p $prof" "$PROJ/src/main.c" "read $PROJ/src/main.c"
	case_ allow "-p $prof" "$PROJ/new --write" "write $PROJ/new"
	case_ deny "-p $prof" "$HOME_DIR/.bashrc --write" "append $HOME_DIR/.bashrc"
	case_ deny "-p $prof" "$OUTSIDE/file" "read $OUTSIDE/file"
	case_ allow "-p $prof --ro $OUTSIDE" "$OUTSIDE/file" "read $OUTSIDE/file"
	case_ deny "-p $prof --ro $OUTSIDE" "$OUTSIDE/file --write" "append $OUTSIDE/file"
	case_ allow "-p $prof --rw $OUTSIDE" "$OUTSIDE/file --write" "append $OUTSIDE/file"
	case_ deny "-p $prof --rw $OUTSIDE" "$OUTSIDE/prog --exec" "exec $OUTSIDE/prog help"
	case_ allow "-p $prof --rwx $OUTSIDE" "$OUTSIDE/prog --exec" "exec $OUTSIDE/prog help"
	case_ deny "-p $prof --ro $OUTSIDE --deny $OUTSIDE/file" "$OUTSIDE/file" "read $OUTSIDE/file"
done
case_ allow "-p empty" "/bin/true --exec" "exec /bin/true"
case_ deny "-p empty" "$PROJ/src/main.c" "read $PROJ/src/main.c"

if userns_works && why=$(supervisor_refused); then
	skip "opencode cases: $why"
	case_ deny "-p offline --connect-tcp $P" "127.0.0.1:$P" "tcp-connect 127.0.0.1 $P"
elif userns_works; then
	case_ deny "-p opencode" "$PROJ/.env" "read $PROJ/.env"
	# What why says of the mask is what the command sees: under L3's
	# sealed view an empty file of mode 000 that fails every open.
	run llw -p opencode why "$PROJ/.env"
	expect_output "why .env: an empty file of mode 000 that fails every open" \
		"^$PROJ/.env: denied: $PROJ/.env is masked by an empty file of mode 000 that fails every open \\(EACCES\\)"
	run llw -p opencode -q -- /bin/sh -c "stat -c 'MASK %F %a %s' $PROJ/.env; cat $PROJ/.env"
	expect_output "... as the command sees it: an empty file of mode 000" "^MASK regular empty file 0 0$"
	expect_output "... whose open fails" "Permission denied"
	case_ allow "-p opencode" "$PROJ/.git/config" "read $PROJ/.git/config"
	case_ deny "-p opencode" "$PROJ/.git/config --write" "append $PROJ/.git/config"
	case_ allow "-p opencode" "$PROJ/src/main.c --write" "append $PROJ/src/main.c"
	case_ deny "-p opencode" "$HOME_DIR/.aws/credentials" "read $HOME_DIR/.aws/credentials"
	case_ deny "-p opencode" "127.0.0.1:$P" "tcp-connect 127.0.0.1 $P"
	case_ deny "-p opencode --connect-tcp $P" "127.0.0.1:$P" "tcp-connect 127.0.0.1 $P"
	case_ allow "-p opencode --allow-cidr 127.0.0.1/32:$P" "127.0.0.1:$P" "tcp-connect 127.0.0.1 $P"
	case_ deny "-p offline --connect-tcp $P" "127.0.0.1:$P" "tcp-connect 127.0.0.1 $P"
else
	skip "unprivileged user namespaces unavailable: opencode and offline cases"
fi

# Network.
case_ deny "-p default" "127.0.0.1:$P" "tcp-connect 127.0.0.1 $P"
case_ allow "-p default --connect-tcp $P" "127.0.0.1:$P" "tcp-connect 127.0.0.1 $P"
case_ deny "-p default" "127.0.0.1:$P --udp" "udp-send 127.0.0.1 $P"
case_ deny "-p default --bind-tcp 0" "127.0.0.1:$P --bind" "tcp-bind 127.0.0.1 $P"
case_ allow "-p default --bind-tcp 0" "127.0.0.1:0 --bind" "tcp-bind 127.0.0.1 0"

# Unix sockets and the supervisor's rules.
case_ deny "-p default" "$OUTSIDE/sock --connect" "unix-connect $OUTSIDE/sock"
if [ "$(as_user "$LLWRAP" --check 2>/dev/null | sed -n 's/^  S  supervisor *//p')" = usable ]; then
	case_ allow "-p default --unix $OUTSIDE/sock" "$OUTSIDE/sock --connect" "unix-connect $OUTSIDE/sock"
	case_ allow "-p default --allow-cidr 127.0.0.1/32:$P" "127.0.0.1:$P" "tcp-connect 127.0.0.1 $P"
	case_ deny "-p default --allow-cidr 127.0.0.2/32:$P" "127.0.0.1:$P" "tcp-connect 127.0.0.1 $P"
	case_ deny "-p default --allow-cidr 127.0.0.1/32:1" "127.0.0.1:$P" "tcp-connect 127.0.0.1 $P"
	case_ deny "-p default --unix $OUTSIDE/other" "$OUTSIDE/sock --connect" "unix-connect $OUTSIDE/sock"
else
	skip "the network supervisor cannot run here: its cases"
fi

# The host's abstract sockets: no rule opens them, whatever layer.
python3 - "llw-why-$$" <<'PY' &
import socket, sys, time
u = socket.socket(socket.AF_UNIX)
u.bind("\0" + sys.argv[1])
u.listen(8)
u.settimeout(0.2)
end = time.time() + 300
while time.time() < end:
    try:
        c, _ = u.accept()
        c.close()
    except OSError:
        pass
PY
bg_pids="$bg_pids $!"
sleep 0.3
printf '[network]\nunix-sockets = allow\n' >"$T/unix-allow.ini"
chmod 644 "$T/unix-allow.ini"
case_ deny "-p default" "@llw-why-$$" "abstract-connect llw-why-$$"
if [ "$(landlock_abi)" -ge 6 ]; then
	case_ deny "-p default -p $T/unix-allow.ini --best-effort" "@llw-why-$$" "abstract-connect llw-why-$$"
else
	skip "Landlock ABI $(landlock_abi) has no abstract unix scope (needs 6)"
fi
if [ "$(as_user "$LLWRAP" --check 2>/dev/null | sed -n 's/^  S  supervisor *//p')" = usable ]; then
	case_ deny "-p default --unix $OUTSIDE/sock" "@llw-why-$$" "abstract-connect llw-why-$$"
fi

# What why says, beyond the decision: the rule's source, the layer, the
# change that would allow it (its lines joined, for one pattern).
why_says() {
	run llw "$@"
	out=$(printf '%s' "$out" | tr '\n' ' ')
}
why_says -p default why "$OUTSIDE/file"
expect_output "a hidden path names the allow-list and the grant" \
	"no rule grants.*allow:  \[filesystem\] ro = $OUTSIDE/file"

# The change why suggests is safe to follow: no grant on a secret, the
# home, an ancestor of it or /.  For each denial, the flag it names
# allows the access (after the step it names first) and leaves the keys
# hidden; where no grant is safe it says so and names no flag.
KEY=$HOME_DIR/.ssh/id_ed25519
# suggested WHY-ARGS...: $flag is the flag of why's suggestion under -p
# default ("--rw PATH"), or empty; $out what why said.
suggested() {
	run llw -p default why "$@"
	flag=$(printf '%s\n' "$out" | sed -n 's/^  allow: .*(or the flag \(--[a-z]*\) \([^)]*\)).*/\1 \2/p')
}
rm -f "$HOME_DIR/new-notes"
suggested "$HOME_DIR/new-notes" --write
if [ "$flag" = "--rw $HOME_DIR/new-notes" ] &&
	printf '%s\n' "$out" | grep -Fq "create $HOME_DIR/new-notes outside the sandbox first (touch $HOME_DIR/new-notes)"; then
	ok "a new file in the home: why suggests the file alone, created first, never --rw ~"
else
	not_ok "a new file in the home: why suggests the file alone, created first, never --rw ~"
	diag "flag '$flag': $out"
fi
expect_output "... and says why no grant on the home is safe" \
	"no grant on $HOME_DIR is safe to suggest: it is your home directory"
as_user touch "$HOME_DIR/new-notes"
# shellcheck disable=SC2086
expect_succeeded "... following it, the command writes the file" \
	llw -p default ${flag:---rw /nonexistent} -- "$PROBE" append "$HOME_DIR/new-notes"
# shellcheck disable=SC2086
expect_denied "... and the keys beside it stay hidden" EACCES \
	llw -p default ${flag:---rw /nonexistent} -- "$PROBE" read "$KEY"
for what in "$HOME_DIR" "$(dirname "$HOME_DIR")" /; do
	suggested "$what" --read
	if [ -z "$flag" ] && printf '%s\n' "$out" | grep -q "^  allow:  no safe grant: a rule on $what would reach more"; then
		ok "why $what: no safe grant, and it says so"
	else
		not_ok "why $what: no safe grant, and it says so"
		diag "flag '$flag': $out"
	fi
done
for prof in default opencode; do
	[ $prof = opencode ] && ! userns_works && continue
	run llw -p $prof why "$KEY"
	if printf '%s\n' "$out" | grep -q "^  allow:  no safe grant: llwrap suggests no rule that exposes a secret, and it is under ~/.ssh" &&
		! printf '%s\n' "$out" | grep -q -- "--ro"; then
		ok "-p $prof: why the key is hidden suggests no grant on it"
	else
		not_ok "-p $prof: why the key is hidden suggests no grant on it"
		diag "$out"
	fi
done
why_says -p default --ro "$OUTSIDE" --deny "$OUTSIDE/file" why "$OUTSIDE/file"
expect_output "a deny names its rule and source" \
	"rule:   deny = $OUTSIDE/file   \(command line\)"
why_says -p default --rw "$OUTSIDE" why "$OUTSIDE/prog" --exec
expect_output "rw does not include execute, and why says so" \
	"allow:  \[filesystem\] rwx = $OUTSIDE/prog.*rw does not include execute"
why_says -p default why 10.0.0.5:5432
expect_output "a port denial suggests the port rule and warns of its reach" \
	"connect-tcp = 5432.*every host on that port"
if why=$(supervisor_refused); then
	skip "the opencode profile's host groups: $why"
else
	why_says -p opencode why api.openai.com:443
	expect_output "a name of the opencode profile's host groups: its entry decides, with its source" \
		"allowed.*allow-host = api.openai.com:443   \(.*hosts-providers.ini:[0-9]+\)"
fi
why_says -p default --connect-tcp 443 --connect-udp 53 why api.openai.com:443
expect_output "a name under a port rule, DNS open: the port decides, with its source" \
	"allowed.*connect-tcp = 443   \(command line\)"
why_says -p default --connect-tcp 443 why api.openai.com:443
expect_output "... DNS closed: the name does not resolve, and allow-host opens it" \
	"denied: api.openai.com does not resolve here.*--allow-host api.openai.com:443"
printf '[network]\nconnect-tcp = 443\nallow-host = api.openai.com\nallow-host = *.example.org:22\n' >"$T/hosts.ini"
chmod 644 "$T/hosts.ini"
if why=$(supervisor_refused); then
	skip "names under allow-host: $why"
else
	why_says -p default -p "$T/hosts.ini" why API.openai.com.:443
	expect_output "a name under allow-host: the entry decides, with file:line" \
		"allowed: connect api.openai.com:443.*allow-host = api.openai.com   \(.*hosts.ini:3\)"
	expect_rc "... exit 0" 0
	why_says -p default -p "$T/hosts.ini" why git.example.org:443
	expect_output "a wildcard entry names it, not on this port" \
		"filtered/host-port.*allow-host = \*.example.org:22   \(.*hosts.ini:4\).*allow-host = git.example.org:443"
	expect_rc "... exit 1" 1
	why_says -p default -p "$T/hosts.ini" why evil.example:443
	expect_output "a name no entry names is denied, with the line to add" \
		"not in allow-host.*--allow-host evil.example:443"
	why_says -p default -p "$T/hosts.ini" why a.b.example.org:22
	expect_output "a wildcard is one label" "not in allow-host"
fi
# The shipped host groups: each loads, and names its hosts by file:line.
for g in providers npm pypi crates go github; do
	run llw -p default -p "hosts-$g" --explain true
	expect_rc "host group hosts-$g loads" 0
done
if why=$(supervisor_refused); then
	skip "the host groups' names: $why"
else
	why_says -p default -p hosts-github why github.com:22
	expect_output "hosts-github: ssh to github.com" \
		"allowed: connect github.com:22.*\(.*/hosts-github.ini:[0-9]+\)"
	why_says -p default -p hosts-github why api.github.com:22
	expect_output "... and port 22 for github.com alone" "filtered/host-port"
	why_says -p default -p hosts-providers -p hosts-npm why api.anthropic.com:443
	expect_output "hosts-providers: a provider by name" \
		"allowed: connect api.anthropic.com:443.*hosts-providers.ini:[0-9]+"
	why_says -p default -p hosts-npm why registry.npmjs.org:443
	expect_output "hosts-npm: the registry" "allowed.*hosts-npm.ini:[0-9]+"
	why_says -p default -p hosts-npm why registry.npmjs.org:80
	expect_output "... on 443 alone" "filtered/host-port"
fi
why_says -p default why "$OUTSIDE/sock" --connect
if [ "$(landlock_abi)" -ge 9 ]; then
	# Landlock ABI 9 checks the connect itself (RESOLVE_UNIX, per socket).
	expect_output "a unix socket: Landlock (ABI 9 and later), and the unix line to add" \
		"layer: +L1 Landlock \(ABI [0-9]+\).*unix = $OUTSIDE/sock"
else
	expect_output "a unix socket: seccomp, and the unix line to add" \
		"L2 seccomp.*unix = $OUTSIDE/sock"
fi
why_says -p default --why "$PROJ/src/main.c" --write
expect_output "--why WHAT takes why's own flags" "allowed: write"
run llw -p opencode --explain
expect_output "--explain opens with a one-screen summary" "^In short:"
expect_output "... which says what the project may do" "^  project $PROJ: "
run llw -p default why
expect_rc "why without WHAT is an llwrap error" 125
run llw -p default why "$PROJ" --bogus
expect_rc "why with an unknown flag is an llwrap error" 125

done_testing
