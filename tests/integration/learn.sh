#!/bin/sh
# --learn (DESIGN.md §12): a workflow that the policy breaks runs in the
# learning sandbox; the fragment it proposes, saved and used with the
# policy, makes the workflow pass; it proposes nothing for a secret (and
# the learning run could not read one), never the home or /, and no grant
# higher than the directory of an observed path.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

if [ "$("$LLWRAP" --check 2>/dev/null | sed -n 's/^  S  supervisor *//p')" != usable ]; then
	skip_rest "the supervisor, which observes the learning run, cannot run here"
fi
if bwrap_backend; then
	skip_rest "the bubblewrap backend has no supervisor"
fi

# The workflow: read data outside the project, list it, run a program
# from there, create a file in a directory there, write in the project,
# and try a secret.  Each step says when it fails.
mkdir -p "$OUTSIDE/data" "$OUTSIDE/bin" "$OUTSIDE/w" "$OUTSIDE/unrelated"
echo A >"$OUTSIDE/data/a"
echo B >"$OUTSIDE/data/b"
echo U >"$OUTSIDE/unrelated/u"
cp "$PROBE" "$OUTSIDE/bin/prog"
cat >"$OUTSIDE/tool.sh" <<EOF2
failed=
cat "$OUTSIDE/data/a" "$OUTSIDE/data/b" >/dev/null || failed="\$failed read"
ls "$OUTSIDE/data" >/dev/null || failed="\$failed list"
"$OUTSIDE/bin/prog" help >/dev/null || failed="\$failed exec"
echo x 2>/dev/null >"$OUTSIDE/w/new" || failed="\$failed create"
echo y 2>/dev/null >"$PROJ/out" || failed="\$failed project"
cat "$HOME_DIR/.ssh/id_ed25519" >"$PROJ/leak" 2>/dev/null
[ -z "\$failed" ] || { echo "STEPS failed:\$failed" >&2; exit 1; }
echo "STEPS all done" >&2
EOF2
chown -R "$TEST_UID:$TEST_GID" "$OUTSIDE"

# The policy alone breaks it.
run llw -p empty -- /bin/sh "$OUTSIDE/tool.sh"
if [ "$rc" -ne 0 ]; then
	ok "under -p empty the workflow fails (status $rc)"
else
	not_ok "under -p empty the workflow passed: nothing to learn"
	diag "$out"
fi

# Learn.
rm -f "$PROJ/leak"
# stdin a pipe, as under an agent or CI.
echo | as_user "$LLWRAP" --rx "$LLW_HELPERS" --learn -p empty -- /bin/sh "$OUTSIDE/tool.sh" >"$T/learn.out" 2>"$T/learn.err"
rc=$?
diag "$(cat "$T/learn.err")"
# saved FILE: the fragment a learning run saved, by its message in FILE.
saved() {
	sed -n 's/^llwrap: the fragment is saved as //p' "$1"
}
f=$(saved "$T/learn.err")
case "$f" in
"$HOME_DIR"/.local/state/llwrap/learned/*-learned*.ini)
	ok "the fragment is saved in the state directory ($f)" ;;
*)	not_ok "the fragment is saved in the state directory: '$f'" ;;
esac
cp "$f" "$T/frag.ini" 2>/dev/null
out=$(cat "$T/frag.ini" 2>/dev/null)
if grep -q "^\[filesystem\]" "$T/learn.err" && ! grep -q "^\[" "$T/learn.out"; then
	ok "... and shown on stderr, not mixed with the command's output"
else
	not_ok "... and shown on stderr, not mixed with the command's output"
fi
expect_output "--learn prints a fragment with [filesystem]" "^\\[filesystem\\]"
expect_output "... keyed by [match] on the command" "^command = sh$"
expect_output "... and the project" "^project = $PROJ$"
expect_output "... reading the data directory" "^ro = $OUTSIDE/data$"
expect_output "... running the program" "^rx = $OUTSIDE/bin/prog$"
expect_output "... writing the directory where a file was created" "^rw = $OUTSIDE/w$"
expect_output "... reading the script, alone" "^ro = $OUTSIDE/tool.sh$"
expect_no_output "... nothing for the secret" "\\.ssh"
expect_no_output "... nothing for the unrelated directory" "unrelated"
if [ ! -s "$PROJ/leak" ]; then
	ok "the learning run could not read the secret"
else
	not_ok "the learning run read the secret"
fi

# No grant on the home, /, or over a secret or the unrelated directory;
# under the fixture, only the paths the workflow touched or their
# directory.
touched="$OUTSIDE/tool.sh $OUTSIDE/data $OUTSIDE/bin $OUTSIDE/bin/prog $OUTSIDE/w $PROJ $PROJ/out $PROJ/leak"
bad=
for p in $(sed -n 's/^r[owx]* = //p' "$T/frag.ini"); do
	case "$p" in
	"$OUTSIDE"*)
		case " $touched " in
		*" $p "*) ;;
		*) bad="$bad $p" ;;
		esac
		;;
	"$HOME_DIR/work"*) ;;
	"$HOME_DIR"* | "$T" | "$T/"*) bad="$bad $p" ;;
	esac
	case "$HOME_DIR/.ssh/id_ed25519 $OUTSIDE/unrelated/u" in
	"$p" | "$p/"* | *" $p/"* | *" $p") bad="$bad $p(covers)" ;;
	esac
	[ "$p" = / ] && bad="$bad /"
done
if [ -z "$bad" ]; then
	ok "no grant covers the home, /, a secret or what was not touched"
else
	not_ok "grants wider than observed:$bad"
	diag "$out"
fi

# Saved and used with the policy, the workflow passes.
chmod 644 "$T/frag.ini"
rm -f "$PROJ/out" "$OUTSIDE/w/new"
run llw -p empty -p "$T/frag.ini" -- /bin/sh "$OUTSIDE/tool.sh"
expect_rc "-p empty plus the fragment: the workflow passes" 0
expect_output "... every step" "STEPS all done"
run llw -p empty -p "$T/frag.ini" -- "$PROBE" read "$HOME_DIR/.ssh/id_ed25519"
expect_output "... and the secret stays unreadable" "DENIED"
run llw -p empty -p "$T/frag.ini" -- "$PROBE" read "$OUTSIDE/unrelated/u"
expect_output "... as does what the workflow did not touch" "DENIED"

# Saved where it says, on the profile path, it applies by its [match] to
# later runs under the profile it was learned under (-p empty), and not
# to runs of the same command in the same project under another profile
# (issue 25: a grant learned under one profile is not one the next
# profile asked for).
out=$(cat "$T/frag.ini")
expect_output "the fragment names the profile it was learned under" "^profile = empty$"
LP=$HOME_DIR/.config/llwrap/profiles
mkdir -p "$LP"
cp "$T/frag.ini" "$LP/sh-learned.ini"
chown -R "$TEST_UID:$TEST_GID" "$HOME_DIR/.config"
rm -f "$PROJ/out" "$OUTSIDE/w/new"
run llw -p empty -- /bin/sh "$OUTSIDE/tool.sh"
expect_output "saved on the profile path, it applies under -p empty" "STEPS all done"
run llw -p empty --explain -- /bin/sh
expect_output "... --explain lists its rules" "\\($LP/sh-learned\\.ini:[0-9]+\\)"
run llw -p default --explain -- /bin/sh
expect_no_output "... and not under -p default" "sh-learned\\.ini:[0-9]"
run llw -p default -- /bin/sh "$OUTSIDE/tool.sh"
expect_output "... where the workflow stays refused" "tool\\.sh: Permission denied"
rm -f "$LP/sh-learned.ini"

# The workflows of the legitimate-work bar (tests/data/workflows, as in
# workflows.sh): learning under -p empty, each run with the fragments of
# the runs before (a write outside the project is refused in the learning
# run too, so each place the workflow writes outside costs one more run),
# until the fragments together let the workflow pass on a fresh copy of
# the project.  No fragment names a secret, the home, or the user's
# caches.
USER_PATH=/usr/local/bin:/usr/bin:/bin
printf '//registry.invalid/:_authToken=llw-secret-npm\n' >"$HOME_DIR/.npmrc"
mkdir -p "$HOME_DIR/work"
chown -R "$TEST_UID:$TEST_GID" "$HOME_DIR"
learn_workflow() {
	name=$1 tool=$2 cmd=$3
	if ! PATH=$USER_PATH command -v "$tool" >/dev/null 2>&1; then
		skip "learning $name: $tool is not installed"
		return
	fi
	dir=$HOME_DIR/work/learn-$name
	frags= round=0 passed=
	while [ "$round" -lt 5 ] && [ -z "$passed" ]; do
		round=$((round + 1))
		rm -rf "$dir"
		cp -R "$LLW_DATA/workflows/$name" "$dir"
		# The fixture may be read-only (make distcheck's source tree).
		chmod -R u+w "$dir"
		chown -R "$TEST_UID:$TEST_GID" "$dir"
		# shellcheck disable=SC2086
		if as_user env -C "$dir" PATH=$USER_PATH timeout 600 "$LLWRAP" -q \
			-p empty $frags -- sh -c "$cmd" >/dev/null 2>&1; then
			passed=$round
			break
		fi
		echo | as_user env -C "$dir" PATH=$USER_PATH timeout 600 \
			"$LLWRAP" --learn -p empty $frags -- sh -c "$cmd" \
			>/dev/null 2>"$T/$name-$round.err"
		cp "$(saved "$T/$name-$round.err")" "$T/$name-$round.ini"
		chmod 644 "$T/$name-$round.ini"
		frags="$frags -p $T/$name-$round.ini"
	done
	if [ -n "$passed" ] && [ "$passed" -gt 1 ]; then
		ok "learning $name: -p empty plus $((passed - 1)) learned fragment(s) runs it"
	else
		not_ok "learning $name: the workflow does not pass after $((round - 1)) learning runs"
		diag "$(cat "$T/$name"-*.err 2>/dev/null | tail -8)"
		diag "$(cat "$T/$name"-*.ini 2>/dev/null | grep -v '^[;#]' | tail -20)"
	fi
	bad=$(cat "$T/$name"-*.ini 2>/dev/null | sed -n 's/^r[owx]* = //p' | while read -r p; do
		case "$p" in
		"$HOME_DIR" | "$HOME_DIR/.ssh"* | "$HOME_DIR/.npmrc" | "$HOME_DIR/.cache"* | / | "$HOME_DIR/work")
			echo "$p" ;;
		esac
	done)
	if [ -z "$bad" ]; then
		ok "learning $name: no grant on the home, a secret or the user's caches"
	else
		not_ok "learning $name: fragments grant $bad"
	fi
}
learn_workflow autotools autoreconf \
	'autoreconf -fi >/dev/null 2>&1 && ./configure -q && make -s && make -s check && ./calc'
learn_workflow cmake cmake \
	'cmake -S . -B build >/dev/null && cmake --build build && ctest --test-dir build'

# npm writes its cache in ~/.npm, the user's own, which the user's npm
# runs later outside the sandbox: learning never proposes it, and says
# what to do instead.
if PATH=$USER_PATH command -v npm >/dev/null 2>&1; then
	dir=$HOME_DIR/work/learn-npm
	rm -rf "$dir"
	cp -R "$LLW_DATA/workflows/npm" "$dir"
	chmod -R u+w "$dir"
	chown -R "$TEST_UID:$TEST_GID" "$dir"
	echo | as_user env -C "$dir" PATH=$USER_PATH timeout 600 \
		"$LLWRAP" --learn -p empty -- sh -c 'npm install --offline --no-audit --no-fund' \
		>/dev/null 2>"$T/npm.err"
	out=$(cat "$T/npm.err")
	expect_output "learning npm: writes in ~/.npm are not proposed, saying why" \
		"writes in $HOME_DIR/.npm are not proposed: it is your own tool cache"
	expect_no_output "... and no grant names it" "^rw[x]* = $HOME_DIR/.npm"
else
	skip "learning npm: npm is not installed"
fi

done_testing
