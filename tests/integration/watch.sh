#!/bin/sh
# inotify watches (issue 17, class 10; DESIGN.md §11, watching): Landlock
# does not check inotify_add_watch, so under the supervisor each watch is
# added by the supervisor on what a judge under the sandbox's Landlock
# ruleset opened.  A watch where the sandbox may not read is refused; a
# file watcher in the project keeps working and its events arrive.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

need_opencode_profile

# llw with a time limit: a run that hangs is a failure, not a stuck
# suite (a judge left unreaped once kept the pid namespace from ending).
llwt() {
	as_user timeout 60 "$LLWRAP" ${LLW_BACKEND:+--backend "$LLW_BACKEND"} \
		--rx "$LLW_HELPERS" "$@"
}

mkdir -p "$PROJ/sub/deep" "$OTHER/tree"
ln -sfn "$HOME_DIR/.ssh" "$PROJ/keys"
ln -sfn "sub" "$PROJ/inner"
chown -R "$TEST_UID:$TEST_GID" "$PROJ" "$OTHER"
# shellcheck disable=SC2086
{
expect_succeeded "opencode: a watch on the project reports its events" \
	llwt -p opencode $BE -q -- "$PROBE" watch "$PROJ" event
expect_succeeded "... and on a directory in it, by a relative path" \
	llwt -p opencode $BE -C "$PROJ" -q -- "$PROBE" watch sub/deep event
expect_succeeded "... and through a symlink that stays in the project" \
	llwt -p opencode $BE -C "$PROJ" -q -- "$PROBE" watch inner onlydir,event
expect_succeeded "... and on a file the sandbox may only read (/etc/passwd)" \
	llwt -p opencode $BE -q -- "$PROBE" watch /etc/passwd -
expect_denied "a watch on ~/.ssh is refused" 'landlock:EACCES|bwrap:ENOENT' \
	llwt -p opencode $BE -q -- "$PROBE" watch "$HOME_DIR/.ssh" -
bwrap_backend || expect_output "... with EACCES" "errno=EACCES"
expect_denied "... and on the key in it" 'landlock:EACCES|bwrap:ENOENT' \
	llwt -p opencode $BE -q -- "$PROBE" watch "$HOME_DIR/.ssh/id_ed25519" -
expect_denied "... and on another project" 'landlock:EACCES|bwrap:ENOENT' \
	llwt -p opencode $BE -q -- "$PROBE" watch "$OTHER" -
expect_denied "... also by a relative path out of the project" 'landlock:EACCES|bwrap:ENOENT' \
	llwt -p opencode $BE -C "$PROJ" -q -- "$PROBE" watch ../other -
expect_denied "... and through a symlink in the project that points to ~/.ssh" 'landlock:EACCES|bwrap:ENOENT' \
	llwt -p opencode $BE -C "$PROJ" -q -- "$PROBE" watch keys -
expect_succeeded "... while a watch on that symlink itself (IN_DONT_FOLLOW) is allowed" \
	llwt -p opencode $BE -C "$PROJ" -q -- "$PROBE" watch keys dont_follow
expect_denied "... and IN_ONLYDIR on a file fails as without the sandbox" ENOTDIR \
	llwt -p opencode $BE -q -- "$PROBE" watch "$PROJ/src/main.c" onlydir
expect_output "... with ENOTDIR" "errno=ENOTDIR"
expect_denied "a watch through a descriptor that is not an inotify instance fails" EINVAL \
	llwt -p opencode $BE -q -- "$PROBE" watch "$PROJ" badfd
expect_output "... with EINVAL, as the kernel says" "errno=EINVAL"
}

# A recursive watcher (chokidar, cargo watch, inotifywait -r) on a tree.
i=0
while [ $i -lt 200 ]; do
	mkdir -p "$PROJ/tree/d$((i % 20))/e$i"
	i=$((i + 1))
done
chown -R "$TEST_UID:$TEST_GID" "$PROJ/tree"
# shellcheck disable=SC2086
run llwt -p opencode $BE -q -- "$PROBE" watch-tree "$PROJ/tree"
expect_output "a recursive watch of 221 directories in the project works" \
	"SUCCEEDED watch-tree watches=221"

# A path the supervisor has a directory opened ahead for (the watch on
# tree/d0 opens its siblings), replaced meanwhile by a symlink to ~/.ssh:
# the watch goes where the path leads now, and is refused.  Under
# bubblewrap no directory is opened ahead (the kernel adds the watch),
# and ~/.ssh is not in the view.
# shellcheck disable=SC2086
run llwt -p opencode $BE -C "$PROJ" -q -- /bin/sh -c \
	"'$PROBE' watch tree/d0 - && mv tree/d1 tree/d1.moved &&
	ln -s '$HOME_DIR/.ssh' tree/d1 && '$PROBE' watch tree/d1 -"
if bwrap_backend; then want=ENOENT; else want=EACCES; fi
case "$out" in
*"SUCCEEDED watch"*"DENIED watch errno=$want"*) ok "a watch on a path renamed away and replaced by a symlink to ~/.ssh is refused ($want)" ;;
*) not_ok "a watch on a path renamed away and replaced by a symlink to ~/.ssh"; diag "status $rc: $out" ;;
esac
if [ -d "$PROJ/tree/d1.moved" ]; then
	rm -f "$PROJ/tree/d1"
	mv "$PROJ/tree/d1.moved" "$PROJ/tree/d1"
fi

# A watch in a process the sandbox forked, after the first one's judge
# was started (the judge serves every process of the sandbox).
# shellcheck disable=SC2086
run llwt -p opencode $BE -q -- /bin/sh -c \
	"'$PROBE' watch '$PROJ' event && '$PROBE' watch '$HOME_DIR/.ssh' -; \
	'$PROBE' watch '$PROJ/sub' event"
case "$rc:$out" in
0:*"SUCCEEDED watch"*"DENIED watch"*"SUCCEEDED watch"*) ok "watches from several processes of one run are each judged" ;;
*) not_ok "watches from several processes of one run"; diag "status $rc: $out" ;;
esac

# The project's .env, which the profile denies.
echo 'TOKEN=secret' >"$PROJ/.env"
chown "$TEST_UID:$TEST_GID" "$PROJ/.env"
# shellcheck disable=SC2086
if bwrap_backend; then
	# bubblewrap's view shows nothing the sandbox may not read (of
	# --dev's standard nodes only those granted: below): the kernel
	# adds each watch, and the supervisor beside it is not asked.
	run llw -p opencode $BE --explain -- /bin/true
	expect_output "bwrap: --explain says the view decides, not the supervisor" \
		"watching +inotify only where the view shows .*the supervisor is not asked"
	# The kernel decides on what the view shows there, the mask: an
	# empty read-only file of mode 0000, which neither opens nor takes
	# a watch (EACCES), as the judge would refuse; a readable file
	# beside it takes one.
	expect_denied "bwrap: the masked .env does not open" EACCES \
		llwt -p opencode $BE -q -- "$PROBE" read "$PROJ/.env"
	expect_no_output "... its content stays out" secret
	expect_denied "bwrap: a watch on the masked .env is refused (the mask's mode 0000)" EACCES \
		llwt -p opencode $BE -q -- "$PROBE" watch "$PROJ/.env" -
	expect_succeeded "... while one on a readable file beside it works" \
		llwt -p opencode $BE -q -- "$PROBE" watch "$PROJ/src/main.c" -
	expect_denied "... and the command, the mask's owner, cannot chmod it open" EROFS \
		llwt -p opencode $BE -q -- "$PROBE" chmod "$PROJ/.env" 0644
	if grep -q secret "$PROJ/.env"; then
		ok "... and the file is unchanged"
	else
		not_ok "the masked .env changed"
	fi
else
	expect_denied "a watch on the denied .env in the project is refused" EACCES \
		llwt -p opencode -q -- "$PROBE" watch "$PROJ/.env" -
	# L3's view is sealed (DESIGN.md, watching): what the sandbox may
	# not read is absent or a placeholder of mode 000, so the kernel
	# refuses the watch itself and the supervisor is not asked: no judge
	# is started.
	run llw -p opencode --explain -- /bin/true
	expect_output "opencode: --explain says the sealed view decides, not the supervisor" \
		"watching +inotify only where the sandbox may read \(L3: the view is sealed.*the supervisor is not asked"
	# shellcheck disable=SC2016
	run llwt -p opencode -q -- /bin/sh -c '
		"$0" watch "$1" - >/dev/null || exit 3
		"$0" watch "$2" - >/dev/null && exit 4
		for d in /proc/[0-9]*; do
			[ "$(cat "$d/comm" 2>/dev/null)" = llwrap-judge ] && echo JUDGE
		done; echo END' "$PROBE" "$PROJ" "$HOME_DIR/.ssh"
	case "$rc:$out" in
	*JUDGE*) not_ok "sealed: no watch judge is started"; diag "$out" ;;
	0:*END*) ok "sealed: no watch judge is started (the kernel refused ~/.ssh)" ;;
	*) not_ok "sealed: no watch judge is started"; diag "status $rc: $out" ;;
	esac
	# The placeholders: a skeleton directory (~, ~/.config: rules
	# beneath, not readable), a file denied in a readable tree
	# (~/.npm-global/etc/npmrc in rx ~/.npm-global), a denied file in a
	# skeleton (~/.config/git/credentials), a symbolic link in ~ to
	# ~/.ssh, and what lies outside every rule (/root, /srv, another
	# project): each watch and open refused with EACCES, the readable
	# neighbour watched.
	mkdir -p "$HOME_DIR/.npm-global/etc" "$HOME_DIR/.config/git" \
		"$HOME_DIR/.config/opencode"
	echo '//registry/:_authToken=llw-secret' >"$HOME_DIR/.npm-global/etc/npmrc"
	echo 'prefix=/x' >"$HOME_DIR/.npm-global/etc/other"
	echo 'https://u:llw-secret@host' >"$HOME_DIR/.config/git/credentials"
	echo '{}' >"$HOME_DIR/.config/opencode/opencode.json"
	ln -sfn .ssh "$HOME_DIR/keys-link"
	chown -R -h "$TEST_UID:$TEST_GID" "$HOME_DIR/.npm-global" \
		"$HOME_DIR/.config" "$HOME_DIR/keys-link"
	for p in "$HOME_DIR" "$HOME_DIR/.config" "$HOME_DIR/.npm-global/etc/npmrc" \
		"$HOME_DIR/.config/git/credentials" "$HOME_DIR/keys-link" \
		/root /srv "$OTHER/notes.txt"; do
		[ -e "$p" ] || { skip "sealed: $p is missing here"; continue; }
		expect_denied "sealed: a watch on $p is refused" EACCES \
			llwt -p opencode -q -- "$PROBE" watch "$p" -
		expect_output "... with EACCES" "errno=EACCES"
		expect_denied "... and so is an open of it" EACCES \
			llwt -p opencode -q -- "$PROBE" read "$p"
	done
	expect_succeeded "sealed: a watch on the readable file beside the denied npmrc works" \
		llwt -p opencode -q -- "$PROBE" watch "$HOME_DIR/.npm-global/etc/other" -
	expect_succeeded "... and on the readable ~/.config/opencode in the skeleton ~/.config" \
		llwt -p opencode -q -- "$PROBE" watch "$HOME_DIR/.config/opencode" -
	expect_succeeded "... and on a file in it" \
		llwt -p opencode -q -- "$PROBE" watch "$HOME_DIR/.config/opencode/opencode.json" -
	# The sealed /dev is as minimal as bubblewrap's --dev: the host's
	# nodes no rule grants are not in it at all, neither a watch nor an
	# open finds one (ENOENT; a placeholder would tell that the host has
	# it), while the granted /dev/null beside them works.
	hostnode=
	for n in /dev/kmsg /dev/tty0 /dev/loop-control /dev/vda /dev/sda /dev/nvme0; do
		if [ -e "$n" ]; then
			hostnode=$n
			break
		fi
	done
	if [ -n "$hostnode" ]; then
		expect_denied "sealed: the host's $hostnode is absent: no watch" ENOENT \
			llwt -p opencode -q -- "$PROBE" watch "$hostnode" -
		expect_denied "... nor an open" ENOENT \
			llwt -p opencode -q -- "$PROBE" read "$hostnode"
	else
		skip "sealed: no device node of the host's to look for (kmsg, tty0, loop-control, a disk)"
		skip "sealed: no device node of the host's to look for (kmsg, tty0, loop-control, a disk)"
	fi
	expect_succeeded "... while /dev/null takes a watch" \
		llwt -p opencode -q -- "$PROBE" watch /dev/null -
	# A view whose only placeholder is a file (/ readable, one file of
	# the project denied): the placeholders' tmpfs is attached on a
	# directory of the view only while the file's clone is taken from
	# it (every kernel clones an attached mount; before 6.15 not a
	# detached one), then unmounted: the placeholder is the one mount
	# of mode 000 left.
	FILEONLY="-p empty --net none --rx / --rw $PROJ --deny $PROJ/.env"
	run llwt $FILEONLY --explain -- /bin/true
	expect_output "file placeholders only: the view is sealed" \
		"watching +inotify only where the sandbox may read \(L3: the view is sealed"
	expect_denied "... a watch on the denied .env is refused" EACCES \
		llwt $FILEONLY -q -- "$PROBE" watch "$PROJ/.env" -
	expect_output "... with EACCES" "errno=EACCES"
	expect_succeeded "... while one on the readable file beside it works" \
		llwt $FILEONLY -q -- "$PROBE" watch "$PROJ/src/main.c" -
	run llwt $FILEONLY -q -- /bin/cat /proc/self/mountinfo
	n=$(printf '%s\n' "$out" | grep -c ' - tmpfs .*mode=000')
	if [ "$rc" -eq 0 ] && [ "$n" -eq 1 ] &&
		printf '%s\n' "$out" | grep -q " $PROJ/.env .* - tmpfs .*mode=000"; then
		ok "... and the placeholder on .env is the only mount of mode 000"
	else
		not_ok "... and the placeholder on .env is the only mount of mode 000"
		diag "status $rc, $n of mode 000: $out"
	fi
	# As root: -p opencode denies root's secrets, /etc/sudoers.d among
	# them, so /etc is hole punched and may not be listed; sealing it
	# would be a mount for each of its entries, so the view is not
	# sealed and the judge decides (viewplan_unsealable).  A policy that
	# does not grant /etc is sealed as root too, and a placeholder of
	# mode 000 refuses root as well: the command holds no capability.
	if [ "$(id -u)" -eq 0 ]; then
		llw_root() { _as_root=1 as_user timeout 60 "$LLWRAP" \
			--rx "$LLW_HELPERS" "$@"; }
		run llw_root -p opencode --explain -- /bin/true
		expect_output "as root, -p opencode: not sealed (/etc punched), the judge decides" \
			"watching +inotify only where the sandbox may read .*L3.s view is not sealed: more than 64 rules"
		run llw_root -p opencode -q -- /bin/sh -c \
			"'$PROBE' watch '$HOME_DIR/.ssh' -; '$PROBE' watch /root -;
			'$PROBE' watch '$PROJ' -"
		case "$out" in
		*"DENIED watch errno=EACCES"*"DENIED watch errno=EACCES"*"SUCCEEDED watch"*)
			ok "... watches on ~/.ssh and /root refused (EACCES), the project's works" ;;
		*) not_ok "... watches on ~/.ssh and /root refused"; diag "status $rc: $out" ;;
		esac
		# shellcheck disable=SC2016
		printf '[profile]\ninclude = empty\n[filesystem]\nrwx = ${PROJECT}\nro = /proc\nrw = /dev/null\nprivate-tmp = yes\n' >"$T/rootseal.ini"
		chmod 644 "$T/rootseal.ini"
		run llw_root -p "$T/rootseal.ini" --explain -- /bin/true
		expect_output "as root, a policy without /etc: the view is sealed" \
			"watching +inotify only where the sandbox may read \\(L3: the view is sealed"
		run llw_root -p "$T/rootseal.ini" -q -- /bin/sh -c \
			"'$PROBE' watch '$HOME_DIR/.ssh' -; '$PROBE' read '$HOME_DIR/.ssh/id_ed25519';
			'$PROBE' watch /root -; '$PROBE' read /etc/hostname; '$PROBE' watch '$PROJ' -"
		case "$out" in
		*"DENIED watch errno=EACCES"*"DENIED read errno=EACCES"*"DENIED watch errno=EACCES"*"DENIED read errno=EACCES"*"SUCCEEDED watch"*)
			ok "... a placeholder refuses root: watches on ~/.ssh and /root, reads of the key and /etc/hostname (EACCES), the project's watch works" ;;
		*) not_ok "... a placeholder refuses root"; diag "status $rc: $out" ;;
		esac
	fi

	# Without the supervisor nothing checks a watch: --explain says so,
	# and the default profile with supervise = yes is judged as well.
	run llw -p default --explain -- /bin/true
	if why=$(l3_stands_in); then
		# There the default profile takes L3 too, and its view is
		# sealed: the kernel refuses the watch.
		expect_output "default profile: --explain says the sealed view decides ($why)" \
			"watching +inotify only where the sandbox may read \(L3: the view is sealed"
		expect_denied "... and a watch on ~/.ssh is refused" EACCES \
			llwt -p default -q -- "$PROBE" watch "$HOME_DIR/.ssh" -
		expect_output "... with EACCES" "errno=EACCES"
	else
		expect_output "default profile: --explain says watching is NOT ENFORCED without the supervisor" \
			"watching +NOT ENFORCED:.*supervise = yes"
	fi
	printf '[network]\nsupervise = yes\n' >"$T/sv.ini"
	chmod 644 "$T/sv.ini"
	expect_denied "default with supervise = yes: a watch on ~/.ssh is refused" EACCES \
		llwt -p default -p "$T/sv.ini" -q -- "$PROBE" watch "$HOME_DIR/.ssh" -
	expect_succeeded "... and one in the project works" \
		llwt -p default -p "$T/sv.ini" -q -- "$PROBE" watch "$PROJ" event
fi

rm -f "$PROJ/.env"

# A denied directory in the project, with a readable one beneath it:
# under bubblewrap its mask is an empty tmpfs of mode 0111, which
# neither lists nor takes a watch (EACCES), and leads to the mask
# beneath it; a denied file's is an empty file of mode 0000.  The same
# as root, whose capabilities bwrap drops.
mkdir -p "$PROJ/secrets/pub"
echo key >"$PROJ/secrets/key"
echo pub >"$PROJ/secrets/pub/readme"
echo secret >"$PROJ/.env"
chown -R "$TEST_UID:$TEST_GID" "$PROJ/secrets" "$PROJ/.env"
printf '[profile]\ninclude = empty\n[filesystem]\nrw = %s\ndeny = %s/secrets %s/.env\nro = %s/secrets/pub\n' \
	"$PROJ" "$PROJ" "$PROJ" "$PROJ" >"$T/denied.ini"
chmod 644 "$T/denied.ini"
if bwrap_backend; then
	expect_denied "bwrap: a denied directory takes no watch" EACCES \
		llwt -p "$T/denied.ini" -q -- "$PROBE" watch "$PROJ/secrets" -
	expect_denied "... nor lists" EACCES \
		llwt -p "$T/denied.ini" -q -- "$PROBE" ls "$PROJ/secrets"
	expect_denied "... nor shows what is in it" ENOENT \
		llwt -p "$T/denied.ini" -q -- "$PROBE" read "$PROJ/secrets/key"
	expect_denied "... nor can the command chmod it open" EROFS \
		llwt -p "$T/denied.ini" -q -- "$PROBE" chmod "$PROJ/secrets" 0755
	expect_succeeded "... while the readable directory beneath it takes a watch" \
		llwt -p "$T/denied.ini" -q -- "$PROBE" watch "$PROJ/secrets/pub" -
	expect_succeeded "... and reads" \
		llwt -p "$T/denied.ini" -q -- "$PROBE" read "$PROJ/secrets/pub/readme"
	expect_succeeded "... as the project beside it takes a watch" \
		llwt -p "$T/denied.ini" -q -- "$PROBE" watch "$PROJ/src" -
	if [ "$(id -u)" -eq 0 ]; then
		run /bin/sh -c "cd '$PROJ' && timeout 60 $LLWRAP_B -p '$T/denied.ini' \
			--rx '$LLW_HELPERS' -q -- /bin/sh -c \"'$PROBE' watch secrets -;
			'$PROBE' ls secrets; '$PROBE' watch .env -; '$PROBE' read .env;
			'$PROBE' watch secrets/pub -; '$PROBE' watch src -\""
		case "$out" in
		*"DENIED watch errno=EACCES"*"DENIED ls errno=EACCES"*"DENIED watch errno=EACCES"*"DENIED read errno=EACCES"*"SUCCEEDED watch"*"SUCCEEDED watch"*)
			ok "bwrap, as root: the denied directory and file take no watch and do not open (EACCES), their readable neighbours take one" ;;
		*) not_ok "bwrap, as root: the denied directory and file"; diag "status $rc: $out" ;;
		esac
	else
		skip "the root case needs root"
	fi
else
	skip "a denied directory's mask of mode 0111 is bubblewrap's (backend-bwrap.sh)"
fi
rm -rf "$PROJ/secrets" "$PROJ/.env"

# bubblewrap's --dev makes null, zero, full, random, urandom, tty, pts
# and shm whatever the rules say (a rule under /dev, here /dev/null
# alone, is what makes its /dev): the view shows only those a rule
# grants, the others covered with mode 0000, so that a watch on the
# host's /dev/random is refused as an open of it is (EACCES), as under
# Landlock with the supervisor's judge.
printf '[profile]\ninclude = empty\n[filesystem]\nrw = /dev/null\n[network]\nsupervise = yes\n' >"$T/devnull.ini"
chmod 644 "$T/devnull.ini"
expect_succeeded "only /dev/null granted: it reads" \
	llwt -p "$T/devnull.ini" -q -- "$PROBE" read /dev/null
expect_succeeded "... and takes a watch" \
	llwt -p "$T/devnull.ini" -q -- "$PROBE" watch /dev/null -
expect_denied "... while /dev/random takes none" EACCES \
	llwt -p "$T/devnull.ini" -q -- "$PROBE" watch /dev/random -
expect_denied "... nor opens" EACCES \
	llwt -p "$T/devnull.ini" -q -- "$PROBE" read /dev/random
expect_denied "... nor does /dev/urandom" EACCES \
	llwt -p "$T/devnull.ini" -q -- "$PROBE" read /dev/urandom
expect_denied "... nor /dev/tty take a watch" EACCES \
	llwt -p "$T/devnull.ini" -q -- "$PROBE" watch /dev/tty -
expect_denied "... nor /dev/pts" EACCES \
	llwt -p "$T/devnull.ini" -q -- "$PROBE" watch /dev/pts -
expect_denied "... nor /dev/shm list" EACCES \
	llwt -p "$T/devnull.ini" -q -- "$PROBE" ls /dev/shm
if bwrap_backend; then
	# The command owns the covers (bwrap made them as its uid): they
	# are read-only mounts, so it cannot chmod them open.
	expect_denied "bwrap: the cover of /dev/random cannot be made readable" EROFS \
		llwt -p "$T/devnull.ini" -q -- "$PROBE" chmod /dev/random 0444
	expect_denied "bwrap: ... nor that of /dev/shm" EROFS \
		llwt -p "$T/devnull.ini" -q -- "$PROBE" chmod /dev/shm 0755
	# Root's, whose capabilities bwrap drops: mode 0000 holds.
	if [ "$(id -u)" -eq 0 ]; then
		expect_denied "bwrap, as root: /dev/random takes no watch either" EACCES \
			timeout 60 $LLWRAP_B -p "$T/devnull.ini" --rx "$LLW_HELPERS" -q -- \
			"$PROBE" watch /dev/random -
	else
		skip "the root case needs root"
	fi
else
	skip "the covers of bubblewrap's /dev nodes are bubblewrap's (backend-bwrap.sh)"
	skip "the covers of bubblewrap's /dev nodes are bubblewrap's (backend-bwrap.sh)"
	skip "the covers of bubblewrap's /dev nodes are bubblewrap's (backend-bwrap.sh)"
fi

# Without user namespaces (no L3: no view hides anything) the judge
# decides as well: llwrap as the test user in a user namespace where
# user.max_user_namespaces = 0 (namespaces.sh).
if ! bwrap_backend && [ "$(id -u)" -eq 0 ]; then
	llw_refused() {
		(cd "$PROJ" && userns_refused setpriv --reuid="$TEST_UID" \
			--regid="$TEST_GID" --clear-groups --inh-caps=-all \
			--bounding-set=-all -- env -i HOME="$HOME_DIR" \
			PATH=/usr/bin:/bin LLWRAP_PROFILE_PATH="$LLWRAP_PROFILE_PATH" \
			timeout 60 "$LLWRAP" -C "$PROJ" --rx "$LLW_HELPERS" "$@")
	}
	run llw_refused -p opencode --best-effort --explain -- /bin/true
	expect_output "userns refused: --explain names the judge (no view hides the host's tree)" \
		"watching +inotify only where the sandbox may read.*no view hides"
	expect_succeeded "userns refused: a watch on the project reports its events" \
		llw_refused -p opencode --best-effort -q -- "$PROBE" watch "$PROJ" event
	expect_denied "... a watch on ~/.ssh is refused" EACCES \
		llw_refused -p opencode --best-effort -q -- "$PROBE" watch "$HOME_DIR/.ssh" -
	expect_denied "... and through a symlink in the project that points to it" EACCES \
		llw_refused -p opencode --best-effort -q -- "$PROBE" watch "$PROJ/keys" -
	run llw_refused -p opencode --best-effort -q -- /bin/sh -c \
		"'$PROBE' watch tree/d0 - && mv tree/d1 tree/d1.moved &&
		ln -s '$HOME_DIR/.ssh' tree/d1 && '$PROBE' watch tree/d1 -"
	case "$out" in
	*"SUCCEEDED watch"*"DENIED watch errno=EACCES"*) ok "... and on a path opened ahead, renamed away and replaced by a symlink to ~/.ssh (EACCES)" ;;
	*) not_ok "... and on a path opened ahead, renamed away and replaced by a symlink to ~/.ssh"; diag "status $rc: $out" ;;
	esac
	if [ -d "$PROJ/tree/d1.moved" ]; then
		rm -f "$PROJ/tree/d1"
		mv "$PROJ/tree/d1.moved" "$PROJ/tree/d1"
	fi
	# The sandbox cannot reach the judge: it is out of its signal scope
	# (Landlock ABI 6) and of its ptrace reach (a sibling domain).
	if [ "$(llwrap_abi)" -ge 6 ]; then
		# shellcheck disable=SC2016
		run llw_refused -p opencode --best-effort -q -- /bin/sh -c '
			"$0" watch "$1" - >/dev/null || exit 3
			for d in /proc/[0-9]*; do
				case $(cat "$d/comm" 2>/dev/null) in llwrap-judge) ;; *) continue ;; esac
				"$0" kill "${d#/proc/}" 9
				"$0" ptrace-pid "${d#/proc/}"
			done' "$PROBE" "$PROJ"
		case "$out" in
		*SUCCEEDED*) not_ok "the sandbox cannot signal or ptrace the watch judge (userns refused)"; diag "$out" ;;
		*"DENIED kill"*"DENIED ptrace-pid"*) ok "the sandbox cannot signal or ptrace the watch judge (userns refused)" ;;
		*) not_ok "the sandbox cannot signal or ptrace the watch judge (userns refused; none found)"; diag "status $rc: $out" ;;
		esac
		# Nor list its descriptors or read its environment: it is not
		# dumpable (review of 2026-11-27, F4: /proc/PID/fd of the
		# judge was listed from inside).
		# shellcheck disable=SC2016
		run llw_refused -p opencode --best-effort -q -- /bin/sh -c '
			"$0" watch "$1" - >/dev/null || exit 3
			for d in /proc/[0-9]*; do
				[ "$(cat "$d/comm" 2>/dev/null)" = llwrap-judge ] || continue
				"$0" ls "$d/fd"
				"$0" read "$d/environ"
			done' "$PROBE" "$PROJ"
		case "$out" in
		*SUCCEEDED*) not_ok "the sandbox cannot list the judge's descriptors or read its environment"; diag "$out" ;;
		*"DENIED ls errno=EACCES"*"DENIED read errno=EACCES"*) ok "the sandbox cannot list the judge's descriptors or read its environment (not dumpable: EACCES)" ;;
		*) not_ok "the sandbox cannot list the judge's descriptors or read its environment (no judge found, or another errno)"; diag "status $rc: $out" ;;
		esac
	else
		skip "the judge's signal scope needs Landlock ABI 6 (llwrap uses $(llwrap_abi) here)"
	fi
fi

# A real file watcher: Node's fs.watch in the project, and refused on
# ~/.ssh.
if command -v node >/dev/null 2>&1; then
	NODE=$(command -v node)
	cat >"$PROJ/watch.js" <<'EOF'
const fs = require("fs");
const [dir, secret] = process.argv.slice(2);
try { fs.watch(secret); console.log("SECRET WATCHED"); process.exit(1); }
catch (e) { console.log("secret: " + e.code); }
const w = fs.watch(dir, (ev, name) => {
	if (name === "node-probe") { console.log("EVENT " + ev); process.exit(0); }
});
setTimeout(() => fs.writeFileSync(dir + "/node-probe", "x"), 100);
setTimeout(() => { console.log("NO EVENT"); process.exit(1); }, 5000);
EOF
	chown "$TEST_UID:$TEST_GID" "$PROJ/watch.js"
	# shellcheck disable=SC2086
	run llwt -p opencode $BE --rx "$(dirname "$(readlink -f "$NODE")")" -q -- \
		"$NODE" "$PROJ/watch.js" "$PROJ/sub" "$HOME_DIR/.ssh"
	case "$rc:$out" in
	0:*"secret: E"*"EVENT "*) ok "node fs.watch: the project's events arrive, ~/.ssh is refused" ;;
	*) not_ok "node fs.watch in the project"; diag "status $rc: $out" ;;
	esac
else
	skip "node is not installed"
fi

done_testing
