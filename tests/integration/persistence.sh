#!/bin/sh
# Shared state and secrets under the opencode profile (issue 17;
# DESIGN.md §11): secrets denied by name whatever else is granted, and
# private /tmp, /var/tmp and /dev/shm with a size limit.  Each denial
# beside the legitimate action next to it.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

need_opencode_profile

# Secrets (class 5): a wide grant (--ro ~) still leaves them out.
mkdir -p "$HOME_DIR/.config/git" "$HOME_DIR/.config/gh" "$HOME_DIR/.kube"
echo "[user] name = t" >"$HOME_DIR/.config/git/config"
echo "https://u:tok@example.invalid" >"$HOME_DIR/.config/git/credentials"
echo "oauth_token: llw-secret" >"$HOME_DIR/.config/gh/hosts.yml"
echo "token: llw-secret" >"$HOME_DIR/.kube/config"
echo "machine x password llw-secret" >"$HOME_DIR/.netrc"
chown -R "$TEST_UID:$TEST_GID" "$HOME_DIR"
for s in .ssh/id_ed25519 .aws/credentials .config/git/credentials \
	.config/gh/hosts.yml .kube/config .netrc; do
	expect_denied "opencode --ro ~: ~/$s stays denied" 'landlock:EACCES|bwrap:ENOENT' \
		llw -p opencode $BE --ro "$HOME_DIR" -q -- "$PROBE" read "$HOME_DIR/$s"
done
expect_succeeded "... while ~/.bashrc is readable through that grant" \
	llw -p opencode $BE --ro "$HOME_DIR" -q -- "$PROBE" read "$HOME_DIR/.bashrc"
expect_succeeded "opencode: ~/.config/git/config is readable" \
	llw -p opencode $BE -q -- "$PROBE" read "$HOME_DIR/.config/git/config"
expect_denied "... but not the rest of ~/.config/git" 'landlock:EACCES|bwrap:ENOENT' \
	llw -p opencode $BE -q -- "$PROBE" read "$HOME_DIR/.config/git/credentials"

# Later-run files (class 2): direnv's .envrc, what it loads, the
# editors' and agents' directories, read-only where they exist; missing
# ones are not made (issue 25: nothing the user did not make appears in
# the project), a new one is moved aside below.
LR=$HOME_DIR/work/later
mkdir -p "$LR/sub"
printf 'source_env_if_exists .envrc.private\ndotenv\nsource_env sub/env.sh\n' >"$LR/.envrc"
for f in .envrc.local .envrc.private sub/env.sh .mcp.json opencode.json mise.toml .tool-versions; do
	echo "# $f" >"$LR/$f"
done
echo "KEY=1" >"$LR/.env"
echo "src" >"$LR/main.c"
chown -R "$TEST_UID:$TEST_GID" "$LR"
for f in .envrc .envrc.local .envrc.private sub/env.sh .mcp.json opencode.json mise.toml .tool-versions; do
	expect_denied "opencode: $f (run later by direnv, mise or an agent) is read-only" EROFS \
		llw -p opencode $BE -C "$LR" -q -- "$PROBE" append "$LR/$f"
done
# A load through $PWD/ (direnv runs .envrc in its directory) is the file
# beside it; one whose file the scan cannot tell is said NOT ENFORCED
# (review V: both were dropped unsaid, the first left writable).
LP=$HOME_DIR/work/later-pwd
mkdir -p "$LP/scripts"
printf 'source_env "$PWD/scripts/dev.sh"\ndotenv_if_exists "${ENVDIR:-.}/.env.dev"\n' >"$LP/.envrc"
echo "# dev" >"$LP/scripts/dev.sh"
chown -R "$TEST_UID:$TEST_GID" "$LP"
expect_denied "opencode: a file .envrc loads as \"\$PWD/scripts/dev.sh\" is read-only" EROFS \
	llw -p opencode $BE -C "$LP" -q -- "$PROBE" append "$LP/scripts/dev.sh"
run llw -p opencode $BE -C "$LP" --explain -- true
expect_output "... and a load it cannot tell is named in --explain" \
	"dotenv_if_exists .*env.dev.' loads or runs what the project holds"
rm -rf "$LP"
run llw -p opencode $BE -C "$LR" -q -- "$PROBE" read "$LR/.env"
case "$rc:$out" in
1:*DENIED* | 0:*bytes=0*) ok "... and .env's content (direnv's dotenv) is hidden" ;;
*) not_ok ".env's content is hidden"; diag "status $rc: $out" ;;
esac
mkdir "$LR/.vscode" "$LR/.opencode"
chown "$TEST_UID:$TEST_GID" "$LR/.vscode" "$LR/.opencode"
for d in .vscode .opencode; do
	expect_denied "opencode: nothing can be created in an existing $d" EROFS \
		llw -p opencode $BE -C "$LR" -q -- "$PROBE" write "$LR/$d/settings.json"
done
[ -d "$LR/.vscode" ] && [ -z "$(ls -A "$LR/.vscode")" ] &&
	ok "... .vscode stays empty on the host" || not_ok ".vscode is not empty"
[ ! -e "$LR/.idea" ] && ok "... a missing .idea is not made" ||
	not_ok "a missing .idea was made in the project"
run llw -p opencode $BE -C "$LR" -q -- /bin/sh -c \
	'mkdir .idea && echo "<project/>" >.idea/workspace.xml'
expect_output "... one made inside is moved aside and named" \
	"the command created $LR/\\.idea, which .* reads later, outside the sandbox: moved aside"
# (The write into it races the move: whatever it got is kept.)
[ ! -e "$LR/.idea" ] && [ -d "$LR"/.idea.llwrap-blocked-* ] &&
	ok "... kept beside it, gone from its name" || not_ok ".idea not moved aside"
rm -rf "$LR"/.idea.llwrap-blocked-*
expect_succeeded "... while the project's own files stay writable" \
	llw -p opencode $BE -C "$LR" -q -- "$PROBE" append "$LR/main.c"
expect_succeeded "... and sub/ beside the protected file too" \
	llw -p opencode $BE -C "$LR" -q -- "$PROBE" write "$LR/sub/new.c"

# A later-run file that did not exist has nothing to mount on: the
# monitor moves it aside as soon as it is made (never deleting it) and
# names it.  A new .envrc stays, named: direnv refuses it until the user
# runs `direnv allow`.
rm -f "$PROJ/.envrc" "$PROJ/.mcp.json" "$PROJ/opencode.json"
run llw -p opencode $BE -q -- /bin/sh -c \
	'echo "echo hi" >.envrc && echo "{\"mcpServers\": {}}" >.mcp.json && echo "{}" >opencode.json'
expect_output "an .mcp.json created inside is moved aside and named, with who reads it" \
	"the command created $PROJ/\\.mcp\\.json, which an agent or editor that starts its MCP servers reads later, outside the sandbox: moved aside"
expect_output "... an opencode.json: opencode reads it" \
	"the command created $PROJ/opencode\\.json, which opencode reads later, outside the sandbox: moved aside"
expect_no_output "... nobody is called 'direnv or an editor' for them" "direnv or an editor"
[ ! -e "$PROJ/.mcp.json" ] && grep -q mcpServers "$PROJ"/.mcp.json.llwrap-blocked-* &&
	ok "... its content kept beside it" || not_ok ".mcp.json not moved aside intact"
expect_output "an .envrc created inside is named (direnv asks before loading it)" \
	"the command created $PROJ/\\.envrc; direnv refuses to load it until you review it and run .direnv allow."
rm -f "$PROJ/.envrc" "$PROJ"/.mcp.json* "$PROJ"/opencode.json*
# Review L, L3: mise's project configuration runs its env and hooks when
# the user's shell enters the project, trusted by its path: a new one
# is moved aside as made.
run llw -p opencode $BE -q -- /bin/sh -c 'printf "[env]\n_.source = \"./x.sh\"\n" >.mise.local.toml'
expect_output "a .mise.local.toml created inside is moved aside, mise named" \
	"the command created $PROJ/\\.mise\\.local\\.toml, which mise .* reads later, outside the sandbox: moved aside"
[ ! -e "$PROJ/.mise.local.toml" ] && ok "... gone from its name" || not_ok ".mise.local.toml not moved aside"
rm -f "$PROJ"/.mise.local.toml*
# ... and its other places (mise's LOCAL_CONFIG_FILENAMES: mise/,
# .config/mise.toml, .config/mise/config.toml and conf.d/*.toml) and its
# environments' files (mise.ENV.toml, .mise.ENV.local.toml, in .config/
# too), trusted by path alike: read-only where they exist, moved aside
# when made, each reached component by component (a .config made a
# symbolic link is moved aside, never followed).
MI=$HOME_DIR/work/misemore
mkdir -p "$MI/mise" "$MI/.config/mise/conf.d"
for f in mise/config.toml .config/mise.toml .config/mise/config.toml .config/mise/conf.d/a.toml \
	mise.dev.toml .mise.ci.local.toml .config/mise.dev.toml; do
	echo "[tools]" >"$MI/$f"
done
chown -R "$TEST_UID:$TEST_GID" "$MI"
for f in mise/config.toml .config/mise.toml .config/mise/config.toml .config/mise/conf.d/a.toml \
	mise.dev.toml .mise.ci.local.toml .config/mise.dev.toml; do
	expect_denied "opencode: mise's $f is read-only" EROFS \
		llw -p opencode $BE -C "$MI" -q -- "$PROBE" append "$MI/$f"
done
expect_denied "... nothing new in an existing .config/mise/conf.d" EROFS \
	llw -p opencode $BE -C "$MI" -q -- "$PROBE" write "$MI/.config/mise/conf.d/b.toml"
expect_succeeded "... while a file beside them in .config stays writable" \
	llw -p opencode $BE -C "$MI" -q -- "$PROBE" write "$MI/.config/other.toml"
rm -rf "$MI"
mkdir -p "$MI"
chown "$TEST_UID:$TEST_GID" "$MI"
run llw -p opencode $BE -C "$MI" -q -- /bin/sh -c 'mkdir -p .config/mise/conf.d mise &&
	for f in .config/mise.toml .config/mise/config.toml .config/mise/conf.d/a.toml mise/config.toml \
		mise.dev.toml .mise.ci.local.toml .config/mise.dev.toml; do
		printf "[env]\n_.source = \"./x.sh\"\n" >"$f"; done; echo MADE'
for f in '\.config/mise\.toml' '\.config/mise/config\.toml' '\.config/mise/conf\.d' 'mise/config\.toml' \
	'mise\.dev\.toml' '\.mise\.ci\.local\.toml' '\.config/mise\.dev\.toml'; do
	expect_output "mise's $f created inside: moved aside, mise named" \
		"the command created $MI/$f, which mise \\(its env and hooks, at the shell's cd\\) reads later, outside the sandbox: moved aside"
done
if [ ! -e "$MI/.config/mise.toml" ] && [ ! -e "$MI/.config/mise/config.toml" ] &&
	[ ! -e "$MI/.config/mise/conf.d" ] && [ ! -e "$MI/mise/config.toml" ] && [ ! -e "$MI/mise.dev.toml" ]; then
	ok "... gone from their names"
else
	not_ok "mise's other places created inside: moved aside"
	diag "$(cd "$MI" && find . | sort)"
fi
rm -rf "$MI"
mkdir -p "$MI/.config"
chown -R "$TEST_UID:$TEST_GID" "$MI"
run llw -p opencode $BE -C "$MI" -q -- /bin/sh -c 'mkdir evil && printf "[env]\n_.source = \"./x.sh\"\n" >evil/mise.toml &&
	mv .config .config.old && ln -s evil .config && sleep 1 && echo NOT-STOPPED'
if [ ! -L "$MI/.config" ] && [ "$rc" -eq 125 ] && ! printf '%s\n' "$out" | grep -q NOT-STOPPED &&
	printf '%s\n' "$out" | grep -q "replaced $MI/\\.config, .*moved aside"; then
	ok "a .config replaced by a symbolic link (to a mise.toml): moved aside, the sandbox stopped (125)"
else
	not_ok "a .config replaced by a symbolic link: moved aside, the sandbox stopped"
	diag "status $rc: $out"; diag "$(ls -la "$MI")"
fi
rm -rf "$MI"
mkdir -p "$MI"
chown -R "$TEST_UID:$TEST_GID" "$MI"
run llw -p opencode $BE -C "$MI" -q -- /bin/sh -c 'mkdir evil && printf "[env]\n_.source = \"./x.sh\"\n" >evil/mise.toml &&
	ln -s evil .config && sleep 1 && echo NOT-STOPPED'
if [ ! -L "$MI/.config" ] && [ "$rc" -eq 125 ] && ! printf '%s\n' "$out" | grep -q NOT-STOPPED; then
	ok "... and one made a symbolic link where there was none: moved aside, the sandbox stopped (125)"
else
	not_ok "a .config made a symbolic link: moved aside, the sandbox stopped"
	diag "status $rc: $out"; diag "$(ls -la "$MI")"
fi
rm -rf "$MI"
# Review L, L6: a Mercurial repository's .hg/hgrc ([hooks] pre-status runs
# at the shell prompt's hg status) is read-only, hg still works inside;
# one made where there was none, and a .hg/sharedpath, are moved aside.
if command -v hg >/dev/null 2>&1; then
	HG=$HOME_DIR/work/hgrepo
	as_user /bin/sh -c 'hg init "$1" && cd "$1" && echo a >a && hg add -q a && hg commit -q -u t -m a &&
		printf "[paths]\ndefault = https://example.invalid/r\n" >.hg/hgrc' sh "$HG"
	expect_denied "opencode: .hg/hgrc (Mercurial's hooks) is read-only" EROFS \
		llw -p opencode $BE -C "$HG" -q -- "$PROBE" append "$HG/.hg/hgrc"
	run llw -p opencode $BE -C "$HG" -q -- /bin/sh -c 'echo b >b && hg add -q b && hg commit -q -u t -m b && echo COMMITTED'
	expect_output "... hg commits inside" "^COMMITTED$"
	run llw -p opencode $BE -C "$HG" -q -- /bin/sh -c 'echo /tmp/x >.hg/sharedpath'
	expect_output "... a .hg/sharedpath made inside is moved aside, Mercurial named" \
		"the command created $HG/\\.hg/sharedpath, which Mercurial .* moved aside"
	HG2=$HOME_DIR/work/hgnew
	as_user hg init "$HG2"
	run llw -p opencode $BE -C "$HG2" -q -- /bin/sh -c 'printf "[hooks]\npre-status = touch x\n" >.hg/hgrc'
	expect_output "... a .hg/hgrc made where there was none is moved aside" \
		"the command created $HG2/\\.hg/hgrc, which Mercurial \\(its hooks and extensions\\) reads later"
	[ ! -e "$HG2/.hg/hgrc" ] && ok "... gone from its name" || not_ok ".hg/hgrc not moved aside"
	# Review R: hg reads .hg/hgrc-not-shared after .hg/hgrc, in every
	# repository; one the command made ran its pre-status hook at the
	# user's hg status.
	HGM=$OUTSIDE/hgmarks
	mkdir -p "$HGM" && chown "$TEST_UID:$TEST_GID" "$HGM"
	run llw -p opencode $BE -C "$HG" -q -- /bin/sh -c \
		'printf "[hooks]\npre-status = touch %s/hg-not-shared\n" "$1" >.hg/hgrc-not-shared' sh "$HGM"
	as_user /bin/sh -c 'cd "$1" && hg status' sh "$HG" >/dev/null 2>&1
	if [ ! -e "$HGM/hg-not-shared" ] && [ ! -e "$HG/.hg/hgrc-not-shared" ] &&
		printf '%s\n' "$out" | grep -q "the command created $HG/\\.hg/hgrc-not-shared, which Mercurial (its hooks and extensions) reads later.*moved aside"; then
		ok "... a .hg/hgrc-not-shared made inside is moved aside; the user's hg status runs nothing"
	else
		not_ok "a .hg/hgrc-not-shared made inside is moved aside"
		diag "status $rc: $out"; diag "$(ls "$HGM")"
	fi
	rm -f "$HGM"/* "$HG"/.hg/hgrc-not-shared*
	# ... and in a project with no .hg, as it is made, not at the end.
	HG3=$HOME_DIR/work/hgnone
	as_user mkdir -p "$HG3"
	run llw -p opencode $BE -C "$HG3" -q -- /bin/sh -c 'hg init . &&
		printf "[hooks]\npre-status = touch x\n" >.hg/hgrc && sleep 1 && [ ! -e .hg/hgrc ] && echo GONE-DURING-RUN'
	expect_output "... a .hg/hgrc in a repository the command made is moved aside while the command runs" "^GONE-DURING-RUN$"
	# Review Y: what the user's .hg/hgrc %includes from the project is
	# Mercurial's configuration too ([hooks] pre-status ran at the
	# user's hg status): read-only where it exists, one created where
	# it does not is moved aside, one llwrap cannot tell is named.
	HGI=$HOME_DIR/work/hginc
	as_user /bin/sh -c 'hg init "$1" && cd "$1" && mkdir conf && echo a >a &&
		printf "[ui]\nusername = u\n" >conf/shared.rc &&
		printf "%%include ../conf/shared.rc\n%%include ../conf/local.rc\n%%include \$LLWY_UNSET/x.rc\n" >.hg/hgrc' sh "$HGI"
	expect_denied "opencode: a file .hg/hgrc %includes is read-only" EROFS \
		llw -p opencode $BE -C "$HGI" -q -- "$PROBE" append "$HGI/conf/shared.rc"
	expect_succeeded "... while its neighbour is writable" \
		llw -p opencode $BE -C "$HGI" -q -- "$PROBE" write "$HGI/conf/other.rc"
	# (What the probe appended where it is not denied: hg would refuse.)
	as_user /bin/sh -c 'printf "[ui]\nusername = u\n" >"$1/conf/shared.rc"' sh "$HGI"
	run llw -p opencode $BE -C "$HGI" -q -- /bin/sh -c \
		'printf "[hooks]\npre-status = touch %s/hg-include\n" "$1" >conf/local.rc' sh "$HGM"
	as_user /bin/sh -c 'cd "$1" && hg status' sh "$HGI" >/dev/null 2>&1
	if [ ! -e "$HGM/hg-include" ] && [ ! -e "$HGI/conf/local.rc" ] &&
		printf '%s\n' "$out" | grep -q "the command created $HGI/conf/local\\.rc, which Mercurial (an .hg/hgrc includes it.*moved aside"; then
		ok "... one it %includes that is missing, made inside, is moved aside; the user's hg status runs nothing"
	else
		not_ok "a missing %include made inside is moved aside"
		diag "status $rc: $out"; diag "$(ls "$HGM")"
	fi
	run llw -p opencode $BE -C "$HGI" --explain -- true
	expect_output "... and an %include it cannot tell is named in --explain" \
		"'%include \\\$LLWY_UNSET/x.rc' names a file llwrap does not tell"
	rm -rf "$HGI" "$HGM"/*
else
	skip "Mercurial's .hg/hgrc: hg is not installed"
fi

# Shared scratch (class 6): /tmp, /var/tmp and /dev/shm are private
# tmpfs mounts with a size limit; what the host keeps there stays out.
for d in /tmp /var/tmp /dev/shm; do
	[ -d "$d" ] || continue
	host=$(mktemp "$d/llwrap-host.XXXXXX")
	echo "host file" >"$host"
	chmod 644 "$host"
	expect_denied "opencode: the host's $d is not visible" ENOENT \
		llw -p opencode $BE -q -- "$PROBE" read "$host"
	expect_succeeded "... while $d is writable" \
		llw -p opencode $BE -q -- "$PROBE" write "$d/llwrap-sandbox-file"
	[ ! -e "$d/llwrap-sandbox-file" ] &&
		ok "... and what the sandbox wrote there stays in it" ||
		not_ok "the sandbox's file in $d reached the host"
	rm -f "$host"
done
printf '[limits]\ntmpfs-size = 4M\n' >"$T/small.ini"
chmod 644 "$T/small.ini"
run llw -p opencode -p "$T/small.ini" $BE -q -- /bin/sh -c \
	'dd if=/dev/zero of=/tmp/big bs=1M count=8 2>&1; echo status=$?'
expect_output "[limits] tmpfs-size = 4M: writing 8 MiB to /tmp fails" "status=1"
expect_output "... with ENOSPC" "No space left"
run llw -p opencode -p "$T/small.ini" $BE -q -- /bin/sh -c \
	'dd if=/dev/zero of=/dev/shm/big bs=1M count=2 2>&1; echo status=$?'
expect_output "... while 2 MiB in /dev/shm fit" "status=0"
printf '[limits]\ntmpfs-size = 150%%\n' >"$T/bad.ini"
chmod 644 "$T/bad.ini"
marker=$PROJ/ran
expect_refused "a bad tmpfs-size is refused with file:line" 'bad\.ini:2' \
	llw -p opencode -p "$T/bad.ini" $BE -- /bin/sh -c "touch $marker"

# Resources (class 11): rlimits the command cannot raise, and the limit
# named when the kernel kills for it.
printf '[limits]\ncpu = 1\nfile-size = 1M\nfiles = 64\nprocesses = 20\n' >"$T/lim.ini"
chmod 644 "$T/lim.ini"
run llw -p opencode -p "$T/lim.ini" $BE -q -- /bin/sh -c 'while :; do :; done'
expect_rc "[limits] cpu = 1: a busy loop is stopped (SIGXCPU)" 152
if bwrap_backend; then
	skip "the limit's name needs llwrap's own monitor, which bubblewrap replaces"
else
	expect_output "... and llwrap names the limit" "exceeded \\[limits\\] cpu = 1"
fi
run llw -p opencode -p "$T/lim.ini" $BE -q -- /bin/sh -c \
	'dd if=/dev/zero of=/tmp/f bs=1M count=2 2>/dev/null'
expect_rc "[limits] file-size = 1M: a 2 MiB file is stopped (SIGXFSZ)" 153
run llw -p opencode -p "$T/lim.ini" $BE -q -- /usr/bin/python3 -c '
import os, resource
print("hard", resource.getrlimit(resource.RLIMIT_NOFILE)[1])
try:
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
    print("raised")
except ValueError as e:
    print("not raised")
n = 0
try:
    for i in range(200):
        os.fork() or os._exit(0)
        n += 1
except OSError as e:
    print("fork stopped", e.errno)
'
expect_output "[limits] files = 64 is the hard limit" "^hard 64$"
expect_output "... which the command cannot raise" "^not raised$"
if bwrap_backend; then
	skip "[limits] processes: not under bubblewrap (reported NOT ENFORCED)"
else
	expect_output "[limits] processes = 20 stops a fork loop (EAGAIN)" "^fork stopped 11$"
fi
hard=$(as_user /bin/sh -c 'ulimit -Hn')
want=65536
[ "$hard" != unlimited ] && [ "$hard" -lt $want ] && want=$hard
run llw -p opencode $BE -q -- /bin/sh -c 'ulimit -Hn; ls /usr >/dev/null && echo works'
expect_output "the opencode profile's files = 65536 applies (never above the hard limit, $hard)" "^$want$"
expect_output "... and ordinary work goes on" "^works$"

# Terminals (class 3): under L3 the sandbox has a devpts instance of its
# own; the user's other terminal (a host pseudo-terminal, held here by
# the test user) is not reachable by name, and receives nothing.
cat >"$T/holder.py" <<'PY'
import os, select, sys, time
m = os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)
os.unlockpt(m) if hasattr(os, "unlockpt") else None
name = os.ptsname(m) if hasattr(os, "ptsname") else None
if name is None:
    import ctypes
    libc = ctypes.CDLL(None)
    libc.unlockpt(m)
    libc.ptsname.restype = ctypes.c_char_p
    name = libc.ptsname(m).decode()
open(sys.argv[1] + ".tmp", "w").write(name)
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s = os.open(name, os.O_RDWR | os.O_NOCTTY)  # keep the terminal open
end = time.time() + 60
while time.time() < end:
    r, _, _ = select.select([m], [], [], 0.2)
    if r:
        open(sys.argv[2], "ab").write(os.read(m, 4096))
PY
spawn_as_user /usr/bin/python3 "$T/holder.py" "$OUTSIDE/pts-name" "$OUTSIDE/pts-got"
holder=$spawned
i=0
while [ ! -s "$OUTSIDE/pts-name" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
PTS=$(cat "$OUTSIDE/pts-name" 2>/dev/null)
if [ -z "$PTS" ]; then
	skip "no host pseudo-terminal could be made for the test"
else
	run as_user "$PROBE" append "$PTS"
	expect_output "control: outside, the test user writes to its terminal $PTS" "SUCCEEDED"
	# The control's bytes reach pts-got when the holder next reads
	# (a busy machine can take a while): only then is it emptied, so
	# that what arrives later comes from the sandbox.
	i=0
	while [ ! -s "$OUTSIDE/pts-got" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	rm -f "$OUTSIDE/pts-got"
	expect_denied "opencode: the user's other terminal $PTS cannot be opened" ENOENT \
		llw -p opencode $BE -q -- "$PROBE" append "$PTS"
	sleep 0.3
	[ ! -s "$OUTSIDE/pts-got" ] && ok "... and received nothing" ||
		not_ok "the user's other terminal received data"
fi
stop "$holder"
if command -v script >/dev/null 2>&1; then
	run llw -p opencode $BE -q -- script -qc 'tty; echo in-script' /dev/null
	expect_output "script (a new pseudo-terminal) works inside" "^in-script"
	expect_output "... on the sandbox's own /dev/pts" "^/dev/pts/[0-9]+"
	# The inherited terminal keeps its name (ttyname(3): tty, ssh,
	# GPG_TTY=$(tty)), here a host pseudo-terminal that script made.
	run as_user script -qc "tty; $LLWRAP ${LLW_BACKEND:+--backend $LLW_BACKEND} $BE -q -p opencode -- tty" /dev/null
	outer=$(printf '%s\n' "$out" | sed -n 1p | tr -d '\r')
	inner=$(printf '%s\n' "$out" | sed -n 2p | tr -d '\r')
	if bwrap_backend; then
		skip "bubblewrap's own devpts does not carry the inherited terminal's name"
	elif [ -n "$outer" ] && [ "$outer" = "$inner" ]; then
		ok "the inherited terminal keeps its name inside ($outer)"
	else
		not_ok "the inherited terminal keeps its name inside"
		diag "outside '$outer', inside '$inner': $out"
	fi
else
	skip "script is not installed"
fi

# A TUI on the user's terminal: it resizes, and gets Ctrl-C and Ctrl-Z,
# as without the sandbox (a pseudo-terminal drives it).
cat >"$T/tui.py" <<'PY'
import os, pty, sys, time, struct, fcntl, termios, select
inner = r"""
import signal, os, time
def say(text): os.write(1, text.encode() + b"\n")
def w(s, f): say("WINCH %d" % os.get_terminal_size().columns)
def i(s, f): say("INT")
def t(s, f): say("TSTP")
signal.signal(signal.SIGWINCH, w)
signal.signal(signal.SIGINT, i)
signal.signal(signal.SIGTSTP, t)
say("READY %s" % os.isatty(0))
for _ in range(100): time.sleep(0.05)
"""
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:] + ["--", "/usr/bin/python3", "-c", inner])
buf = b""
def until(word):
    global buf
    end = time.time() + 15
    while word.encode() not in buf and time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                buf += os.read(fd, 1024)
            except OSError:
                break
    return word.encode() in buf
print("ready", until("READY True"))
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 123, 0, 0))
print("resize", until("WINCH 123"))
os.write(fd, b"\x03")
print("ctrl-c", until("INT"))
os.write(fd, b"\x1a")
print("ctrl-z", until("TSTP"))
os.waitpid(pid, 0)
print("int-count", buf.decode(errors="replace").count("INT"))
print("output", repr(buf[-400:]))
PY
run as_user /usr/bin/python3 "$T/tui.py" "$LLWRAP" ${LLW_BACKEND:+--backend "$LLW_BACKEND"} \
	-q -p opencode $BE
expect_output "a TUI in the sandbox sees its terminal" "^ready True"
expect_output "... resizes (SIGWINCH, new size)" "^resize True"
if bwrap_backend; then
	# Measured: under bwrap (0.8) a terminal's SIGINT and SIGTSTP reach
	# the command only sometimes, with or without llwrap's options.
	skip "Ctrl-C and Ctrl-Z through bubblewrap: its own process tree delivers them unreliably"
else
	expect_output "... gets Ctrl-C" "^ctrl-c True"
	expect_output "... gets Ctrl-Z" "^ctrl-z True"
	expect_output "... once each" "^int-count 1"
fi

# Without L3 (simulated: llwrap inside llwrap, whose seccomp refuses new
# namespaces), private /tmp and the terminals fail closed, and best effort
# says what is lost; git's files are held by the monitor (container.sh
# tries to break that).
if ! bwrap_backend; then
	git init -q "$PROJ" 2>/dev/null && chown -R "$TEST_UID:$TEST_GID" "$PROJ/.git"
	nested() {
		as_user "$LLWRAP" -q -p default --env-keep LLWRAP_PROFILE_PATH \
			--ro "$LLWRAP_PROFILE_PATH" --rx "$(dirname "$LLWRAP")" \
			--rx "$LLW_HELPERS" -- "$LLWRAP" "$@"
	}
	# Where the outer -p default has a pid namespace of its own (L3
	# standing in for Landlock's signal scope, ABI < 6) it holds the
	# inner's hide-processes (C), and the first cause named is the
	# network supervisor, which the outer's filter refuses too.
	why="namespace layer \\(L3\\)"
	own_pid_ns -p default &&
		why="$why|outer llwrap's seccomp filter refuses the network supervisor"
	expect_refused "without L3 -p opencode fails closed" "$why" \
		nested -p opencode -- /bin/sh -c "touch $marker"
	run nested -p opencode --best-effort --explain -- /bin/true
	expect_output "... with best effort, git's files are the monitor's to hold (M), not punched holes" \
		"^  git metadata +[0-9]+ held by the monitor \\(M: "
	if printf '%s\n' "$out" | grep -q "^NOT ENFORCED: $PROJ/\\.git"; then
		not_ok "... and nothing of .git is reported lost"
		diag "$out"
	else
		ok "... and nothing of .git is reported lost"
	fi
	expect_output "... and /dev/pts is denied instead of a private instance" \
		"^NOT ENFORCED: a devpts instance of the sandbox's own: /dev/pts and /dev/ptmx are denied"
fi

done_testing
