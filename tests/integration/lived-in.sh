#!/bin/sh
# The real opencode as its users install and set it up (issue 25), as an
# unprivileged user with a lived-in home: a ~/.bashrc from /etc/skel with
# the lines each installer adds and the shipped shell function sourced,
# opencode's own configuration naming a provider (the mock of
# tests/integration/mock-llm.py on loopback, allowed by a profile of the
# user's own), its credentials in auth.json (no key in the environment),
# a repository with a subdirectory.  Checked:
# - every official install location (npm's prefix in ~/.npm-global, nvm,
#   pnpm, bun, opencode's installer; as root also Homebrew on Linux and
#   Nix profiles, emulated in a private mount namespace) runs through the
#   function: the real binary, hard-linked where that installer puts it;
# - opencode auth list inside shows the user's credentials, and a run
#   from a subdirectory sends the key from auth.json, works in the
#   repository's top level (git commit), and cannot read or change the
#   user's own auth.json;
# - a login inside is kept for the project's next run, not seen by
#   another project, never written to the user's file, and gives way,
#   named, to the user's newer file;
# - interactive shells (bash, zsh, fish when installed) read their
#   start-up files without "Permission denied", and cannot change them.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

OPENCODE=$(command -v opencode || true)
[ -n "$OPENCODE" ] ||
	skip_rest "opencode is not installed (npm install -g opencode-ai)"
BIN=$(readlink -f "$OPENCODE")
[ "$(head -c 4 "$BIN" | od -An -c | tr -d ' ')" = '177ELF' ] ||
	skip_rest "$BIN is not opencode's single binary (an older opencode-ai?)"
need_opencode_profile
VERSION=$("$BIN" --version 2>/dev/null)

# The binary once in the scratch directory; every layout hard-links it
# (each 180 MB copy would cost as much).
mkdir -p "$T/pkg"
ln "$BIN" "$T/pkg/opencode" 2>/dev/null || cp "$BIN" "$T/pkg/opencode"
chmod 755 "$T/pkg/opencode"
# place PATH: the binary at PATH, as its installer leaves it.
place() {
	mkdir -p "$(dirname "$1")"
	ln "$T/pkg/opencode" "$1" 2>/dev/null || cp "$T/pkg/opencode" "$1"
}

# llwrap as installed (/usr/local/bin), for the function to find; with
# the suite's backend.
mkdir -p "$T/llwbin" "$T/shell"
printf '#!/bin/sh\nexec %s %s "$@"\n' "$LLWRAP_B" "$BE" >"$T/llwbin/llwrap"
cp "$LLW_SRCDIR/contrib/shell/opencode.bash" "$LLW_SRCDIR/contrib/shell/opencode.zsh" \
	"$LLW_SRCDIR/contrib/shell/opencode.fish" "$T/shell/"
chmod 755 "$T/llwbin/llwrap"
chmod -R a+rX "$T/llwbin" "$T/shell" "$T/pkg"

# The home: start-up files as Debian makes them, rustup's env, git,
# opencode's configuration and credentials, a repository.
H=$HOME_DIR
APP=$H/work/myapp
cp /etc/skel/.bashrc /etc/skel/.profile "$H/" 2>/dev/null ||
	printf '[ -f ~/.bash_aliases ] && . ~/.bash_aliases\n' >"$H/.bashrc"
echo "alias llw_alias='echo ALIAS-FROM-BASH-ALIASES'" >"$H/.bash_aliases"
mkdir -p "$H/.cargo/bin"
echo 'export PATH="$HOME/.cargo/bin:$PATH"' >"$H/.cargo/env"
cat >"$H/.gitconfig" <<EOF
[user]
	name = lived-in user
	email = user@llwrap.invalid
[init]
	defaultBranch = main
EOF
mkdir -p "$APP/sub" "$H/.local/share/opencode" "$H/.config/opencode" \
	"$H/.config/llwrap/profiles"
printf 'int main(void) { return 0; }\n' >"$APP/hello.c"
echo notes >"$APP/sub/notes.txt"
# The project ships opencode configuration of its own, as cloned: an
# agent in .opencode/, without the .gitignore opencode writes there
# (which ignores itself).
mkdir -p "$APP/.opencode/agent"
printf -- '---\ndescription: reviews\n---\nReview the code.\n' >"$APP/.opencode/agent/reviewer.md"
# The TUI's state, as a user's opencode leaves it.
mkdir -p "$H/.local/state/opencode"
echo '{"theme": "llw-theme"}' >"$H/.local/state/opencode/kv.json"
AUTH=$H/.local/share/opencode/auth.json
printf '{\n  "mock": {\n    "type": "api",\n    "key": "llw-key-from-auth-json"\n  }\n}\n' >"$AUTH"
chmod 600 "$AUTH"
chown -R "$TEST_UID:$TEST_GID" "$H"
as_user /bin/sh -ec 'cd "$1" && git init -q && git add . && git commit -qm init' sh "$APP"

# The mock provider and a provider that logs in by a well-known URL
# (opencode auth login URL fetches URL/.well-known/opencode and runs the
# command it names), both on loopback.
cat >"$T/script.json" <<'EOF'
["pwd && cd \"$(git rev-parse --show-toplevel)/sub\" && cat ../hello.c && echo '/* agent */' >>../hello.c && git add ../hello.c && git commit -qm from-agent && echo STEP0-OK",
 "cat ~/.local/share/opencode/auth.json; echo STEP1-rc=$?",
 "echo planted >>~/.local/share/opencode/auth.json; echo STEP2-rc=$?",
 "cat ~/.ssh/id_ed25519; echo STEP3-rc=$?",
 "cd \"$(git rev-parse --show-toplevel)\" && mkdir -p .opencode/plugin && echo 'export default {}' >.opencode/plugin/evil.js; echo STEP4-rc=$?"]
EOF
mkdir -p "$T/wk/.well-known"
echo '{"auth":{"command":["echo","llw-token-inside"],"env":"LLW_WK_TOKEN"}}' \
	>"$T/wk/.well-known/opencode"
chmod -R a+rX "$T/script.json" "$T/wk"
python3 "$LLW_SRCDIR/tests/integration/mock-llm.py" "$T/script.json" \
	"$T/mock.jsonl" "$T/mock-port" 2>"$T/mock.err" &
bg_pids="$bg_pids $!"
WKPORT=$(free_port)
spawn_as_user python3 -m http.server "$WKPORT" --bind 127.0.0.1 \
	--directory "$T/wk"
i=0
while [ ! -s "$T/mock-port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
PORT=$(cat "$T/mock-port")
cat >"$H/.config/opencode/opencode.json" <<EOF
{
  "\$schema": "https://opencode.ai/config.json",
  "provider": {
    "mock": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "llwrap mock",
      "options": { "baseURL": "http://127.0.0.1:$PORT/v1" },
      "models": { "mock-model": { "name": "mock", "tool_call": true } }
    }
  },
  "model": "mock/mock-model",
  "autoupdate": false,
  "share": "disabled"
}
EOF
# A local model server needs an entry naming it (opencode.ini says so):
# the user's own profile, applied to opencode by its [match].
printf '[network]\nallow-cidr = 127.0.0.1/32:%s 127.0.0.1/32:%s\n[match]\ncommand = opencode\n' \
	"$PORT" "$WKPORT" >"$H/.config/llwrap/profiles/local-models.ini"
chown -R "$TEST_UID:$TEST_GID" "$H/.config"

# bashrc LINES...: the home's ~/.bashrc, Debian's, then the installer's
# LINES, then the function sourced, as the README says.
bashrc() {
	{
		cat /etc/skel/.bashrc 2>/dev/null
		echo '. "$HOME/.cargo/env"'
		echo "export PATH=\"$T/llwbin:\$PATH\""
		for l in "$@"; do printf '%s\n' "$l"; done
		echo ". $T/shell/opencode.bash"
	} >"$H/.bashrc"
	chown "$TEST_UID:$TEST_GID" "$H/.bashrc"
}

# ibash DIR CMD: CMD in an interactive bash (start-up files read, the
# function defined) as the test user, started in DIR, with only the
# environment a login gives, for 5 minutes at most; through the private
# system view when $SYSVIEW is set.
ibash() {
	set -- "$1" "$2" timeout 300 env -i HOME="$H" USER=llwtest LOGNAME=llwtest \
		PATH=/usr/local/bin:/usr/bin:/bin SHELL=/bin/bash TERM=dumb \
		LANG=C.UTF-8 LLWRAP_PROFILE_PATH="${LLWRAP_PROFILE_PATH:-}" \
		GIT_CEILING_DIRECTORIES="$T" OPENCODE_DISABLE_MODELS_FETCH=1 \
		bash -i -c "$2"
	_dir=$1
	shift 2
	if [ "$(id -u)" -eq 0 ]; then
		set -- setpriv --reuid="$TEST_UID" --regid="$TEST_GID" \
			--clear-groups --inh-caps=-all --bounding-set=-all -- "$@"
	fi
	if [ -n "${SYSVIEW:-}" ]; then
		(cd "$_dir" && unshare -m --propagation private -- /bin/sh -ec \
			"$SYSVIEW"'
			exec "$@"' sh "$@") </dev/null
	else
		(cd "$_dir" && exec "$@") </dev/null
	fi
}

# try_layout NAME PATH LINES...: opencode installed at PATH, with the
# installer's LINES in ~/.bashrc: through the function from the
# project's subdirectory, opencode runs (that binary: llwrap finds it on
# the PATH the lines make, and it may execute there), and the same as
# without the sandbox.  One start of opencode a layout (each costs
# seconds): the function's `opencode auth list` is the user's own way in
# and shows the real binary at work (the credential it lists); the PATH
# inside is read by a shell.
try_layout() {
	_name=$1 _path=$2
	shift 2
	bashrc "$@"
	run ibash "$APP/sub" 'type -P opencode'
	if [ "$(printf '%s\n' "$out" | tail -1)" != "$_path" ]; then
		not_ok "$_name: the installer's PATH finds $_path"
		diag "$out"
		return
	fi
	# Under bubblewrap opencode itself starts in the first layout only:
	# what differs between layouts is the path bound, which the PATH
	# check inside shows, and each start costs seconds of CPU.
	_start='&& opencode auth list'
	if bwrap_backend && [ -n "${started_once:-}" ]; then
		_start=
	fi
	started_once=1
	run ibash "$APP/sub" \
		'llwrap -p opencode -- sh -c '\''echo "inside: $(command -v opencode)"'\'' '"$_start"
	if printf '%s\n' "$out" | grep -qxF "inside: $_path"; then
		ok "$_name: inside, the PATH finds $_path"
	else
		not_ok "$_name: inside, the PATH finds $_path"
		diag "status $rc: $out"
	fi
	if [ -z "$_start" ]; then
		skip "$_name: opencode's own start under bubblewrap (the first layout's shows it; the PATH check above shows this layout's bind)"
		return
	fi
	if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q '1 credentials'; then
		ok "$_name: 'opencode auth list' through the function runs it and lists the user's credential"
	else
		not_ok "$_name: 'opencode auth list' through the function runs it and lists the user's credential"
		diag "status $rc: $out"
	fi
}

# User-local layouts: npm's prefix set to ~/.npm-global (npm's docs),
# nvm, pnpm, bun, and opencode's installer (curl -fsSL
# https://opencode.ai/install | bash).
place "$H/.npm-global/lib/node_modules/opencode-ai/bin/opencode.exe"
mkdir -p "$H/.npm-global/bin"
ln -s ../lib/node_modules/opencode-ai/bin/opencode.exe "$H/.npm-global/bin/opencode"
NVMV=$H/.nvm/versions/node/v22.12.0
place "$NVMV/lib/node_modules/opencode-ai/bin/opencode.exe"
mkdir -p "$NVMV/bin"
ln -s ../lib/node_modules/opencode-ai/bin/opencode.exe "$NVMV/bin/opencode"
# (nvm.sh puts the default version's bin first on PATH.)
echo 'export PATH="$NVM_DIR/versions/node/v22.12.0/bin:$PATH"' >"$H/.nvm/nvm.sh"
PNPM=$H/.local/share/pnpm
place "$PNPM/global/5/.pnpm/opencode-ai@$VERSION/node_modules/opencode-ai/bin/opencode.exe"
mkdir -p "$PNPM/global/5/node_modules"
ln -s "../.pnpm/opencode-ai@$VERSION/node_modules/opencode-ai" \
	"$PNPM/global/5/node_modules/opencode-ai"
cat >"$PNPM/opencode" <<'EOF'
#!/bin/sh
basedir=$(dirname "$(echo "$0" | sed -e 's,\\,/,g')")
exec "$basedir/global/5/node_modules/opencode-ai/bin/opencode.exe" "$@"
EOF
chmod 755 "$PNPM/opencode"
place "$H/.bun/install/global/node_modules/opencode-ai/bin/opencode.exe"
mkdir -p "$H/.bun/bin"
ln -s ../install/global/node_modules/opencode-ai/bin/opencode.exe "$H/.bun/bin/opencode"
place "$H/.opencode/bin/opencode"
chown -R "$TEST_UID:$TEST_GID" "$H"

try_layout "npm (prefix ~/.npm-global)" "$H/.npm-global/bin/opencode" \
	'export PATH=~/.npm-global/bin:$PATH'
try_layout "nvm" "$NVMV/bin/opencode" \
	'export NVM_DIR="$HOME/.nvm"' \
	'[ -s "$NVM_DIR/nvm.sh" ] && \. "$NVM_DIR/nvm.sh"  # This loads nvm'
try_layout "pnpm" "$PNPM/opencode" \
	'# pnpm' "export PNPM_HOME=\"$PNPM\"" \
	'case ":$PATH:" in *":$PNPM_HOME:"*) ;; *) export PATH="$PNPM_HOME:$PATH" ;; esac' \
	'# pnpm end'
try_layout "bun" "$H/.bun/bin/opencode" \
	'# bun' 'export BUN_INSTALL="$HOME/.bun"' 'export PATH="$BUN_INSTALL/bin:$PATH"'
try_layout "opencode's installer (~/.opencode/bin)" "$H/.opencode/bin/opencode" \
	'# opencode' "export PATH=$H/.opencode/bin:\$PATH"

# Homebrew on Linux and Nix live outside the home: as root, emulated in
# a private mount namespace (bind mounts of the scratch directory on
# /home/linuxbrew and /nix, an overlay on /etc), which nothing outside
# this test sees.  The mount points are made when missing and removed
# again, under a lock on this file: backend-bwrap.sh runs this suite
# beside make check's own run of it.
made_mp=
drop_mp() {
	for d in $made_mp; do rmdir "$d"; done
	made_mp=
}
trap 'drop_mp; cleanup' EXIT
if [ "$(id -u)" -ne 0 ]; then
	skip "Homebrew and Nix layouts: emulating /home/linuxbrew, /nix and /etc/profiles needs root"
else
	exec 8<"$0"
	flock 8
	for d in /nix /home/linuxbrew; do
		[ -e "$d" ] && continue
		mkdir "$d" && made_mp="$d $made_mp"
	done
	S=$T/sys
	mkdir -p "$S/nix" "$S/brew" "$S/etc-upper" "$S/etc-work"
	SYSVIEW="mount --bind $S/nix /nix; mount --bind $S/brew /home/linuxbrew;
		mount -t overlay overlay -o lowerdir=/etc,upperdir=$S/etc-upper,workdir=$S/etc-work /etc"
	BREW=$S/brew/.linuxbrew
	place "$BREW/Cellar/opencode/$VERSION/bin/opencode"
	mkdir -p "$BREW/bin"
	ln -s "../Cellar/opencode/$VERSION/bin/opencode" "$BREW/bin/opencode"
	cat >"$BREW/bin/brew" <<'EOF'
#!/bin/sh
# brew shellenv, as Homebrew prints it.
[ "$1" = shellenv ] || exit 1
echo 'export HOMEBREW_PREFIX="/home/linuxbrew/.linuxbrew";'
echo 'export HOMEBREW_CELLAR="/home/linuxbrew/.linuxbrew/Cellar";'
echo 'export PATH="/home/linuxbrew/.linuxbrew/bin:/home/linuxbrew/.linuxbrew/sbin${PATH+:$PATH}";'
EOF
	chmod 755 "$BREW/bin/brew"
	PKG=/nix/store/0a1b2c3d4e5f6g7h8i9j0k1l2m3n4p5q-opencode-$VERSION
	ENV=/nix/store/9z8y7x6w5v4s3r2q1p0n9m8l7k6j5i4h-user-environment
	place "$S$PKG/bin/opencode"
	mkdir -p "$S$ENV/bin" "$S$ENV/etc/profile.d" \
		"$S/nix/var/nix/profiles/per-user/llwtest"
	ln -s "$PKG/bin/opencode" "$S$ENV/bin/opencode"
	echo 'export PATH="$HOME/.nix-profile/bin:$PATH"' >"$S$ENV/etc/profile.d/nix.sh"
	ln -s "$ENV" "$S/nix/var/nix/profiles/per-user/llwtest/profile-1-link"
	ln -s profile-1-link "$S/nix/var/nix/profiles/per-user/llwtest/profile"
	mkdir -p "$S/etc-upper/profiles/per-user/llwtest/bin"
	ln -s "$PKG/bin/opencode" "$S/etc-upper/profiles/per-user/llwtest/bin/opencode"
	chmod -R a+rX "$S"

	try_layout "Homebrew on Linux" /home/linuxbrew/.linuxbrew/bin/opencode \
		'eval "$(/home/linuxbrew/.linuxbrew/bin/brew shellenv)"'
	ln -s /nix/var/nix/profiles/per-user/llwtest/profile "$H/.nix-profile"
	chown -h "$TEST_UID:$TEST_GID" "$H/.nix-profile"
	try_layout "Nix (~/.nix-profile, per-user profile)" "$H/.nix-profile/bin/opencode" \
		'. ~/.nix-profile/etc/profile.d/nix.sh'
	rm "$H/.nix-profile"
	mkdir -p "$H/.local/state/nix/profiles"
	ln -s "$ENV" "$H/.local/state/nix/profiles/profile-1-link"
	ln -s profile-1-link "$H/.local/state/nix/profiles/profile"
	ln -s "$H/.local/state/nix/profiles/profile" "$H/.nix-profile"
	chown -R -h "$TEST_UID:$TEST_GID" "$H/.local/state" "$H/.nix-profile"
	try_layout "Nix (~/.nix-profile in ~/.local/state/nix/profiles)" \
		"$H/.nix-profile/bin/opencode" '. ~/.nix-profile/etc/profile.d/nix.sh'
	rm -rf "$H/.nix-profile" "$H/.local/state/nix"
	try_layout "NixOS (/etc/profiles/per-user)" /etc/profiles/per-user/llwtest/bin/opencode \
		'export PATH="/etc/profiles/per-user/$USER/bin:$PATH"'
	SYSVIEW=
	drop_mp
	flock -u 8
	exec 8<&-
fi

# The credentials (item 1), through the function, opencode installed by
# its installer.
bashrc '# opencode' "export PATH=$H/.opencode/bin:\$PATH"
sum_before=$(sha256sum <"$AUTH")
run ibash "$APP/sub" 'command opencode auth list'
expect_output "control: without the sandbox opencode auth list shows the user's credential" "mock.*api"
run ibash "$APP/sub" 'opencode auth list'
expect_output "inside, opencode auth list shows the user's credential" "mock.*api"
expect_output "... as one credential, in the project's copy" \
	"Credentials .*llwrap/opencode/myapp-[0-9a-f]+/data/opencode/auth\\.json"
rm -f "$T/mock.jsonl"
run ibash "$APP/sub" 'opencode run --auto "do it"'
expect_rc "opencode run through the function from a subdirectory finishes" 0
expect_output "... with the mock's final answer" "done"
if grep -q '"authorization": "Bearer llw-key-from-auth-json"' "$T/mock.jsonl" 2>/dev/null &&
	! grep '"authorization"' "$T/mock.jsonl" | grep -qv 'llw-key-from-auth-json'; then
	ok "... every request carries the key from auth.json (none is in the environment)"
else
	not_ok "... every request carries the key from auth.json"
	diag "$(grep -o '"authorization": [^,}]*' "$T/mock.jsonl" 2>/dev/null | sort | uniq -c)"
fi
mock_results "$T/mock.jsonl"
has 0 "^RESULT $APP/sub " "opencode runs its tools where it was started, as without the sandbox"
has 0 STEP0-OK "the agent works in the repository's top level and commits from its subdirectory"
as_user git -C "$APP" log -1 --format=%s | grep -qx from-agent &&
	ok "... host: the commit is the user's repository's" ||
	not_ok "... host: the commit is the user's repository's"
hasnt 1 llw-key-from-auth-json "the agent cannot read the user's own auth.json"
has 1 'STEP1-rc=[1-9]' "... cat fails"
has 2 'STEP2-rc=[1-9]' "the agent cannot write the user's own auth.json"
hasnt 3 llw-secret "the agent cannot read ~/.ssh/id_ed25519"
has 4 'STEP4-rc=[1-9]' "the agent cannot plant a plugin in the project's .opencode/"
[ ! -e "$APP/.opencode/plugin" ] && ok "... host: none is there" ||
	not_ok "... host: none is there"
if [ "$(cat "$APP/.opencode/.gitignore" 2>/dev/null)" = "$(printf 'node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore')" ] &&
	[ -z "$(as_user git -C "$APP" status --porcelain --untracked-files=all)" ]; then
	ok "the project's .opencode/ got opencode's own .gitignore, so opencode ran; git status stays clean"
else
	not_ok "the project's .opencode/ got opencode's own .gitignore; git status stays clean"
	diag "$(ls -la "$APP/.opencode"; as_user git -C "$APP" status --porcelain --untracked-files=all)"
fi
KV=$(ls "$H"/.local/share/llwrap/opencode/myapp-*/state/opencode/kv.json 2>/dev/null)
grep -q llw-theme "$KV" 2>/dev/null &&
	ok "the TUI's state (kv.json) is the user's copy inside" ||
	not_ok "the TUI's state (kv.json) is the user's copy inside"
[ "$(sha256sum <"$AUTH")" = "$sum_before" ] &&
	ok "host: the user's auth.json is unchanged" ||
	not_ok "host: the user's auth.json is unchanged"

# A login inside goes to the project's copy: the next run there finds
# it, another project does not, the user's file never changes; the
# user's newer file replaces the copy, and says so.
run ibash "$APP/sub" "opencode auth login http://127.0.0.1:$WKPORT"
expect_output "opencode auth login inside logs in" "Logged into http://127.0.0.1:$WKPORT"
[ "$(sha256sum <"$AUTH")" = "$sum_before" ] &&
	ok "... not in the user's auth.json" || not_ok "... not in the user's auth.json"
run ibash "$APP/sub" 'opencode auth list'
expect_output "... the project's next run finds it" "127\\.0\\.0\\.1:$WKPORT.*wellknown"
expect_output "... beside the user's" "2 credentials"
mkdir -p "$H/work/other"
chown "$TEST_UID:$TEST_GID" "$H/work/other"
run ibash "$H/work/other" 'opencode auth list'
expect_no_output "... another project does not see it" "wellknown"
expect_output "... but has the user's" "mock.*api"
sleep 1
printf '{\n  "mock": {\n    "type": "api",\n    "key": "llw-key-2"\n  }\n}\n' >"$AUTH"
run ibash "$APP/sub" 'opencode auth list'
expect_output "the user's newer auth.json replaces the copy changed inside, named" \
	"auth\\.json is newer than the copy in .*myapp-[0-9a-f]+/data/opencode/auth\\.json, which was changed inside the sandbox"
expect_no_output "... and the login made inside is gone" "wellknown"
run ibash "$APP/sub" 'opencode auth list'
expect_no_output "... said once" "is newer than the copy"

# The zsh and fish functions, with the installer's lines as it writes
# them for each shell.
if command -v zsh >/dev/null 2>&1; then
	printf '# opencode\nexport PATH=%s/.opencode/bin:$PATH\nexport PATH=%s:$PATH\nsource %s/shell/opencode.zsh\n' \
		"$H" "$T/llwbin" "$T" >"$H/.zshrc"
	chown "$TEST_UID:$TEST_GID" "$H/.zshrc"
	run ibash "$APP/sub" 'zsh -i -c "whence -w opencode; opencode auth list"'
	expect_output "zsh: opencode is the shipped function" "opencode: function"
	expect_output "... which runs opencode, installed by its installer, with the user's credentials" "mock.*api"
else
	skip "zsh is not installed"
fi
if command -v fish >/dev/null 2>&1; then
	mkdir -p "$H/.config/fish"
	printf '# opencode\nfish_add_path %s/.opencode/bin\nfish_add_path %s\nsource %s/shell/opencode.fish\n' \
		"$H" "$T/llwbin" "$T" >"$H/.config/fish/config.fish"
	chown -R "$TEST_UID:$TEST_GID" "$H/.config/fish"
	run ibash "$APP/sub" 'fish -i -c "type -t opencode; opencode auth list"'
	expect_output "fish: opencode is the shipped function" "^function$"
	expect_output "... which runs opencode, installed by its installer, with the user's credentials" "mock.*api"
else
	skip "fish is not installed"
fi

# Shells read their start-up files, read-only (item 9).
run ibash "$APP" 'llwrap -p opencode -- bash -i -c "llw_alias; echo x >>~/.bashrc && echo BASHRC-WRITTEN; exit 0"'
expect_no_output "bash inside starts without 'Permission denied'" "Permission denied.*(bashrc|profile|aliases|cargo)|bashrc: Permission"
expect_output "... with the user's aliases" "ALIAS-FROM-BASH-ALIASES"
expect_no_output "... and cannot change ~/.bashrc" "BASHRC-WRITTEN"
run ibash "$APP" 'llwrap -p default -- bash -l -c "echo LOGIN-SHELL"'
expect_no_output "a login shell under -p default reads ~/.profile" "Permission denied"
expect_output "... and runs" "LOGIN-SHELL"
if command -v zsh >/dev/null 2>&1; then
	echo "alias llw_zalias='echo ALIAS-FROM-ZSHRC'" >"$H/.zshrc"
	chown "$TEST_UID:$TEST_GID" "$H/.zshrc"
	run ibash "$APP" 'llwrap -p opencode -- zsh -i -c "llw_zalias"'
	expect_output "zsh inside reads ~/.zshrc" "ALIAS-FROM-ZSHRC"
	expect_no_output "... without 'permission denied'" "[Pp]ermission denied"
else
	skip "zsh is not installed"
fi
if command -v fish >/dev/null 2>&1; then
	mkdir -p "$H/.config/fish"
	echo 'function llw_ffn; echo FUNCTION-FROM-CONFIG-FISH; end' >"$H/.config/fish/config.fish"
	chown -R "$TEST_UID:$TEST_GID" "$H/.config/fish"
	run ibash "$APP" 'llwrap -p opencode -- fish -i -c "llw_ffn"'
	expect_output "fish inside reads ~/.config/fish/config.fish" "FUNCTION-FROM-CONFIG-FISH"
	expect_no_output "... without an error" "Permission denied|Error"
else
	skip "fish is not installed"
fi

done_testing
