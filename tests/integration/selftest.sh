#!/bin/sh
# llwrap --selftest: the escape corpus under the user's policy, as an
# unprivileged user, with its decoys removed afterwards.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

need_opencode_profile
# The twins' loopback listener is an allow-cidr entry: the supervisor's.
if why=$(supervisor_refused); then
	skip_rest "--selftest adds an allow-cidr entry for its twins: $why"
fi
git init -q "$PROJ" && chown -R "$TEST_UID:$TEST_GID" "$PROJ"

STATE=$HOME_DIR/.local/share/llwrap/opencode
state_before=$(ls -a "$STATE" 2>/dev/null)

# Through the suite's backend: bubblewrap where backend-bwrap.sh runs
# this file, or where the kernel has no Landlock.
run as_user $LLWRAP_B -p opencode --selftest
expect_rc "-p opencode --selftest: every escape outside the known limits is blocked" 0
# Litter (issue 25): the per-project state directories the profile makes
# for the project and the decoy repository are removed again, and
# nothing is made in the project to mount on.
state_after=$(ls -a "$STATE" 2>/dev/null)
if [ "$state_before" = "$state_after" ]; then
	ok "... it leaves no per-project state directory behind"
else
	not_ok "... it leaves no per-project state directory behind"
	diag "before: $state_before"
	diag "after: $state_after"
fi
[ ! -e "$PROJ/.vscode" ] && [ ! -e "$PROJ/.idea" ] &&
	ok "... and makes no .vscode or .idea in the project" ||
	not_ok "... and makes no .vscode or .idea in the project"
expect_output "... it says so, and how many known limits work" \
	"^(Every probe is blocked\\.|[0-9]+ known limits? works? under this policy \\(the KNOWN lines above: what it leaves open\\); every other probe is blocked\\.)$"
expect_output "... it ran the whole corpus (fs.ssh-read)" "^  blocked +fs.ssh-read "
if bwrap_backend; then
	expect_output "... the real ~/.ssh key is not even visible (bubblewrap mounts only what is allowed)" "^  blocked +real.ssh-open .*not even visible"
	expect_output "... nor stat() of a secret: the limit Landlock leaves is closed" "^  blocked +fs.secret-stat "
else
	expect_output "... the real ~/.ssh key is only opened, and refused" "^  blocked +real.ssh-open "
	expect_output "... nor stat() of a secret: L3's sealed view closes the limit Landlock leaves" "^  blocked +fs.secret-stat "
fi
expect_output "... with L3 (pid namespace), host processes' cmdline is blocked" "^  blocked +proc.cmdline "
expect_output "... no legitimate twin failed" " 0 legitimate twins failed"
expect_output "... the project's git metadata and files run later are probed in a decoy repository" \
	"^In a decoy git repository, $HOME_DIR/\\.llwrap-selftest\\.[A-Za-z0-9]+/d/repo "
expect_output "... its .git/hooks is read-only" "^  blocked +git.hooks .*EROFS"
expect_output "... its .git cannot be renamed" "^  blocked +git.rename .*EBUSY"
expect_output "... a gitlink's .git is moved aside" "^  blocked +git.gitlink .*moved aside"
expect_output "... a new .mcp.json is moved aside" "^  blocked +proj.later-file .*moved aside"

run as_user $LLWRAP_B -p default --selftest
expect_rc "-p default --selftest (no L3): everything outside the known limits is blocked" 0
if bwrap_backend; then
	expect_output "... bubblewrap's pid namespace blocks host processes' cmdline" "^  blocked +proc.cmdline "
elif why=$(l3_stands_in); then
	expect_output "... L3 standing in (a pid namespace) blocks host processes' cmdline" "^  blocked +proc.cmdline "
else
	expect_output "... the limits L3 would close are named with their layer" "^  KNOWN +proc.cmdline .*closed by L3"
fi
expect_output "... the decoy repository's limits too (no protect-git)" "^  KNOWN +git.hooks .*closed by L3-git"
# The verdict does not hide them: it counts the KNOWN lines, and those
# the agent profiles' layers close.
known=$(printf '%s\n' "$out" | grep -c '^  KNOWN ')
agent=$(printf '%s\n' "$out" | grep -Ec '^  KNOWN .*closed by (L3[a-z-]*|S)\]')
expect_output "... the verdict names the $known known limits that work" \
	"^$known known limits? works? under this policy \\(the KNOWN lines above: what it leaves open\\); every other probe is blocked\\.$"
if [ "$agent" -gt 0 ]; then
	expect_output "... and the $agent of them L3 or the supervisor close" \
		"^$agent of them close with L3 \\(user namespaces\\) or the network supervisor, which -p opencode uses"
fi
expect_no_output "... not 'every probe outside the known limits is blocked' alone" "^Every probe outside"

if userns_works; then
	run as_user $LLWRAP_B -p offline --selftest
	expect_rc "-p offline --selftest: every escape outside the known limits is blocked" 0
	expect_output "... .git/hooks is read-only (a mask, as in the agent profiles)" "^  blocked +git.hooks .*EROFS"
	expect_output "... .git/config too" "^  blocked +git.config .*EROFS"
	expect_output "... UDP to loopback stays in its own network namespace" "^  blocked +net.udp +a network namespace of its own"
	expect_output "... the host's /tmp is a named known limit (no private-tmp)" "^  KNOWN +fs.host-tmp .*closed by L3-tmp"
else
	skip "-p offline needs unprivileged user namespaces (net = none)"
fi

# These two name their backend: once, not again in backend-bwrap.sh's
# rerun (where the second is the -p default run above).
if ! bwrap_backend; then
	run as_user "$LLWRAP" -p default --net host --selftest
	expect_rc "--net host --selftest: exit 1, an escape outside the known limits works" 1
	expect_output "... the TCP probe is reported ESCAPED" "^  ESCAPED +net.tcp-deny "
	expect_output "... and the verdict says so" "^NOT PROTECTED"

	run as_user "$LLWRAP" -p default --backend=bwrap --selftest
	expect_rc "--backend=bwrap --selftest: the supervisor enforces the twins' port beside bwrap, every escape outside the known limits blocked" 0
	expect_output "... the TCP probe is blocked by the supervisor" "^  blocked +net.tcp-deny "
fi

run as_user $LLWRAP_B -p default --explain
expect_output "--explain lists the known limits of the backend" "^Known limits on this backend \(${LLW_BACKEND:-landlock}"
if bwrap_backend; then
	expect_no_output "... not proc.cmdline, which bubblewrap's pid namespace closes" "^  proc.cmdline:"
elif why=$(l3_stands_in); then
	skip "--explain's proc.cmdline limit: $why, with a pid namespace, which closes it"
else
	expect_output "... each with its closing layer" "^  proc.cmdline: .*\(closed by L3-pid\)$"
fi
run as_user $LLWRAP_B -p opencode --explain
if printf '%s\n' "$out" | grep -q "^  proc.cmdline:"; then
	not_ok "--explain with L3 in use does not list what L3 closes"
else
	ok "--explain with L3 in use does not list what L3 closes"
fi

left=$(ls -a "$HOME_DIR" "$PROJ" | grep -c 'llwrap-selftest\|llwrap-escape')
[ "$left" -eq 0 ] && ok "no scratch directory is left in the home or the project" ||
	not_ok "scratch directories left behind: $(ls -a "$HOME_DIR" "$PROJ")"
ls "$PROJ/.git/hooks" | grep -q llwrap && not_ok "a probe file is left in .git/hooks" ||
	ok "nothing is left in .git/hooks"
grep -q '^# bashrc$' "$HOME_DIR/.bashrc" && ok "~/.bashrc is intact" || not_ok "~/.bashrc changed"
# The probes of a repository never ran in the user's own project.
if ls -a "$PROJ" | grep -q 'mcp\|llwrap-escape-nest\|tasks\|vscode' ||
	ls -a "$PROJ/.git" | grep -q 'llwrap\|commondir' ||
	as_user git -C "$PROJ" ls-files --stage | grep -q llwrap; then
	not_ok "the user's project and its repository are untouched"
	diag "$(ls -a "$PROJ" "$PROJ/.git")"
else
	ok "the user's project and its repository are untouched"
fi

done_testing
