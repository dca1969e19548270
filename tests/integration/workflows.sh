#!/bin/sh
# The legitimate-work bar (DESIGN.md §10): ordinary development workflows
# on small fixture projects (tests/data/workflows), each run bare and
# under -p opencode as the unprivileged test user, in a realistic home
# (~/.gitconfig with an include, ~/.npmrc, ~/.cargo, ~/.cache/pip,
# ~/.m2, ~/go, ~/.local/bin).  A workflow that passes bare and fails
# sandboxed fails the test; one that fails bare too is skipped, naming
# why, as is one whose toolchain is missing.  No network: dependencies
# are vendored.  Then the planted-code test: the user's own caches and
# tool directories refuse every write from the sandbox.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

if bwrap_backend; then
	skip_rest "the workflows run through the default backend only"
fi
if ! userns_works; then
	skip_rest "-p opencode needs user namespaces (L3) here"
fi
need_opencode_profile

FIX=$LLW_DATA/workflows
# as_user's PATH: the toolchains the test user finds.
USER_PATH=/usr/local/bin:/usr/bin:/bin
W=$HOME_DIR/work

# The realistic home.
mkdir -p "$HOME_DIR/.config/git" "$HOME_DIR/.npm/_cacache" \
	"$HOME_DIR/.cache/pip" "$HOME_DIR/.cargo/bin" \
	"$HOME_DIR/.cargo/registry" "$HOME_DIR/.m2/repository" \
	"$HOME_DIR/go/pkg/mod" "$HOME_DIR/.local/bin"
cat >"$HOME_DIR/.gitconfig" <<'EOF'
[user]
	name = LLW Test
	email = llw@example.invalid
[include]
	path = .gitconfig-work
[init]
	defaultBranch = main
EOF
cat >"$HOME_DIR/.gitconfig-work" <<'EOF'
[alias]
	st = status --short
[core]
	excludesFile = ~/.gitignore-global
EOF
echo '*.llwignored' >"$HOME_DIR/.gitignore-global"
echo '*.dat binary' >"$HOME_DIR/.config/git/attributes"
printf 'fund=false\n//registry.invalid/:_authToken=llw-secret-npm\n' >"$HOME_DIR/.npmrc"
printf '[net]\noffline = true\n' >"$HOME_DIR/.cargo/config.toml"
printf '#!/bin/sh\necho user-tool\n' >"$HOME_DIR/.local/bin/llw-user-tool"
chmod 755 "$HOME_DIR/.local/bin/llw-user-tool"
chown -R "$TEST_UID:$TEST_GID" "$HOME_DIR"

# user_caches_newer MARKER: files in the user's own caches and tool
# directories newer than MARKER.
user_caches_newer() {
	find "$HOME_DIR/.npm" "$HOME_DIR/.cache/pip" "$HOME_DIR/.cargo" \
		"$HOME_DIR/go" "$HOME_DIR/.m2" "$HOME_DIR/.local/bin" \
		-newer "$1" 2>/dev/null
}
planted=

# workflow NAME TOOL CMD: copy the fixture NAME twice, run CMD (sh -c)
# in one under -p opencode and in the other bare; TOOL is a command the
# workflow needs.  Whatever the sandboxed run left in the user's caches
# is collected in $planted.
workflow() {
	name=$1 tool=$2 cmd=$3
	if ! PATH=$USER_PATH command -v "$tool" >/dev/null 2>&1; then
		skip "$name: $tool is not installed"
		return
	fi
	for side in bare sandboxed; do
		rm -rf "$W/$name-$side"
		cp -R "$FIX/$name" "$W/$name-$side"
		# The fixture may be read-only (make distcheck's source tree).
		chmod -R u+w "$W/$name-$side"
		chown -R "$TEST_UID:$TEST_GID" "$W/$name-$side"
	done
	touch "$T/before"
	run as_user timeout 600 "$LLWRAP" -q -C "$W/$name-sandboxed" \
		-p opencode -- sh -c "$cmd"
	sb_rc=$rc sb_out=$out
	planted="$planted$(user_caches_newer "$T/before")"
	run as_user env -C "$W/$name-bare" timeout 600 sh -c "$cmd"
	if [ "$rc" -ne 0 ]; then
		skip "$name: fails without the sandbox too (status $rc): $(printf '%s' "$out" | tail -3 | tr '\n' ' ')"
	elif [ "$sb_rc" -eq 0 ]; then
		ok "$name: $cmd (as bare)"
	else
		not_ok "$name: $cmd passes bare, fails under -p opencode"
		diag "status $sb_rc: $(printf '%s' "$sb_out" | tail -15)"
	fi
}

workflow autotools autoreconf \
	'autoreconf -fi >/dev/null 2>&1 && ./configure -q && make -s && make -s check && ./calc'
workflow cmake cmake \
	'cmake -S . -B build >/dev/null && cmake --build build && ctest --test-dir build'
workflow cargo cargo \
	'cargo build -q --offline && cargo test -q --offline && cargo run -q --offline'
workflow go go \
	'export GOFLAGS=-buildvcs=false GOPROXY=off GOTOOLCHAIN=local && go build ./... && go test ./... && go run .'
workflow npm npm \
	'npm install --offline --no-audit --no-fund >/dev/null && npm test && npx --offline llw-hello && node_modules/.bin/llw-hello'
# A dev server on a fixed port and a client in the same sandbox.
if PATH=$USER_PATH command -v curl >/dev/null 2>&1; then
	workflow devserver node "PORT=$(free_port) ./check.sh"
else
	skip "devserver: curl is not installed"
fi
if PATH=$USER_PATH python3 -c 'import pytest, venv' 2>/dev/null; then
	workflow python python3 \
		'python3 -m venv --system-site-packages .venv && .venv/bin/pip install -q --no-index --no-build-isolation -e . && .venv/bin/python -m pytest -q tests'
else
	skip "python: pytest or venv is not installed"
fi

# git with the user's configuration: the include (an alias, the global
# ignore), attributes, and the repository's own pre-commit hook, which
# runs (read-only and executable) and cannot be changed.
for side in bare sandboxed; do
	rm -rf "$W/git-$side"
	mkdir -p "$W/git-$side"
	chown "$TEST_UID:$TEST_GID" "$W/git-$side"
done
# The repository (and its hook) exists before the sandbox starts, as in
# a real project: the first half runs bare in both.
run as_user env -C "$W/git-sandboxed" sh -c 'git init -q . && printf "#!/bin/sh\necho hook >hook-ran\n" >.git/hooks/pre-commit && chmod +x .git/hooks/pre-commit'
git_work='echo a >file && echo x >skip.llwignored && git add file &&
git commit -qm first && test -e hook-ran && test "$(git st)" = "?? hook-ran" &&
git check-attr binary x.dat | grep -q "binary: set" &&
git log --oneline | grep -q first'
run as_user env -C "$W/git-bare" sh -c "git init -q . && printf '#!/bin/sh\necho hook >hook-ran\n' >.git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && $git_work"
bare_rc=$rc
for p in opencode default; do
	rm -f "$W/git-sandboxed/hook-ran"
	rm -rf "$W/git-sandboxed/.git/refs/heads"/* "$W/git-sandboxed/.git/index"
	run as_user "$LLWRAP" -q -C "$W/git-sandboxed" -p "$p" -- sh -c "$git_work"
	if [ "$bare_rc" -ne 0 ]; then
		skip "git -p $p: fails without the sandbox too"
	elif [ "$rc" -eq 0 ]; then
		ok "git -p $p: include, alias, ignore, attributes, commit with the repository's hook"
	else
		not_ok "git -p $p: passes bare, fails sandboxed"
		diag "status $rc: $out"
	fi
done
expect_denied "git: the hook cannot be changed from the sandbox" EROFS \
	as_user "$LLWRAP" -q -C "$W/git-sandboxed" -p opencode --rx "$LLW_HELPERS" -- \
	"$PROBE" append "$W/git-sandboxed/.git/hooks/pre-commit"

# An executable made in the private /tmp runs.
run as_user "$LLWRAP" -q -p opencode -- sh -c 'cp /bin/true /tmp/llw-t && /tmp/llw-t'
expect_rc "an executable in the private /tmp runs" 0
# opencode's own helpers (the rg it downloads into its cache) run.
run as_user "$LLWRAP" -q -p opencode -- sh -c 'mkdir -p "$XDG_CACHE_HOME/opencode/bin" && cp /bin/true "$XDG_CACHE_HOME/opencode/bin/rg" && "$XDG_CACHE_HOME/opencode/bin/rg"'
expect_rc "a helper opencode downloaded into its cache runs" 0
# The user's own tools run, read-only.
run as_user "$LLWRAP" -q -p opencode -- "$HOME_DIR/.local/bin/llw-user-tool"
expect_output "~/.local/bin tools run under -p opencode" "user-tool"

# llwrap inside llwrap: the inner policy can only tighten; one that needs
# user namespaces fails naming the true cause (the outer seccomp filter).
mkdir -p "$T/llwbin"
cp "$LLWRAP" "$T/llwbin/llwrap"
chmod -R a+rX "$T/llwbin"
nest="--rx $T/llwbin --env-keep LLWRAP_PROFILE_PATH --ro $LLWRAP_PROFILE_PATH"
run as_user "$LLWRAP" -q -C "$W/git-sandboxed" -p opencode $nest -- "$T/llwbin/llwrap" -q -p default -- git st
expect_rc "llwrap -p default inside llwrap -p opencode runs (git status)" 0
expect_denied "... and only tightens: the inner --deny of a file the outer grants holds" EACCES \
	as_user "$LLWRAP" -q -p opencode $nest --rx "$LLW_HELPERS" -- "$T/llwbin/llwrap" -q -p default --rx "$LLW_HELPERS" --deny "$HOME_DIR/.gitconfig-work" -- "$PROBE" read "$HOME_DIR/.gitconfig-work"
run as_user "$LLWRAP" -q -p opencode $nest -- "$T/llwbin/llwrap" -p opencode -- /bin/true
expect_rc "llwrap -p opencode inside llwrap -p opencode fails before running (125)" 125
expect_output "... naming the outer seccomp filter as the cause" "an outer llwrap.s seccomp filter refuses (new user namespaces|the network supervisor)"

# Planted code: from the sandbox, the user's real caches and tool
# directories refuse every write; the sandbox's own cache takes them.
# The caches the sandbox may not read are L3's sealed placeholders
# (EACCES); the tool directories it may run from are read-only (EROFS).
for d in .npm/_cacache .cache/pip .cargo/registry go/pkg/mod \
	.m2/repository; do
	expect_denied "planted code: ~/$d is not writable from the sandbox" 'landlock:EACCES|bwrap:EROFS' \
		llw -p opencode -q -- "$PROBE" write "$HOME_DIR/$d/llw-planted"
done
for d in .cargo/bin .local/bin; do
	expect_denied "planted code: ~/$d is not writable from the sandbox" EROFS \
		llw -p opencode -q -- "$PROBE" write "$HOME_DIR/$d/llw-planted"
done
expect_denied "planted code: ~/.npmrc (a token) is not readable" EACCES \
	llw -p opencode -q -- "$PROBE" read "$HOME_DIR/.npmrc"
expect_succeeded "... the sandbox's own cache is writable" \
	llw -p opencode -q -- "$PROBE" write "$HOME_DIR/.cache/llwrap/opencode/llw-own"
run llw -p opencode -q -- /bin/sh -c 'echo "$npm_config_cache $PIP_CACHE_DIR $CARGO_HOME $GOMODCACHE $MAVEN_OPTS"'
expect_output "... and the tools are pointed at it" \
	"^$HOME_DIR/.cache/llwrap/opencode/npm $HOME_DIR/.cache/llwrap/opencode/pip $HOME_DIR/.cache/llwrap/opencode/cargo $HOME_DIR/.cache/llwrap/opencode/go/pkg/mod -Dmaven.repo.local=$HOME_DIR/.cache/llwrap/opencode/m2$"
if command -v npm >/dev/null 2>&1; then
	run llw -p opencode -q -- npm --version
	expect_no_output "... and npm says nothing about the profile's settings" "npm warn|Unknown env config"
fi
[ -z "$planted" ] && ok "the sandboxed builds left nothing in the user's caches" ||
	{ not_ok "a sandboxed build wrote into the user's caches"; diag "$planted"; }

done_testing
