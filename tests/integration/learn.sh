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
echo | as_user "$LLWRAP" --rx "$LLW_HELPERS" --learn -p empty -- /bin/sh "$OUTSIDE/tool.sh" >"$T/frag.ini" 2>"$T/learn.err"
rc=$?
out=$(cat "$T/frag.ini"); diag "$(cat "$T/learn.err")"
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

done_testing
