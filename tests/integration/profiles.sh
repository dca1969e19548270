#!/bin/sh
# Profiles end to end: every bad input is exit 125 with file:line and
# nothing run; precedence as DESIGN.md §4 describes it.
. "$LLW_SRCDIR/tests/lib/libtest.sh"
need_default_profile

P=$T/profiles
mkdir -p "$P"
marker=$PROJ/ran

# bad NAME LINE CONTENT DESC: the profile is refused with NAME.ini:LINE in
# the message, exit 125, and the command never runs.
bad() {
	name=$1 line=$2 content=$3 desc=$4
	printf '%b' "$content" >"$P/$name.ini"
	expect_refused "$desc: 125, $name.ini:$line named, nothing run" \
		"$name\\.ini:$line" llw -p "$P/$name.ini" -- /bin/sh -c "touch $marker"
}

bad unknown-key 2 '[filesystem]\nread = /etc\n' "an unknown key"
bad unknown-section 3 '[filesystem]\nro = /etc\n[nonsense]\n' "an unknown section"
bad unknown-var 2 '[filesystem]\nro = ${NOPE}/x\n' "an unknown variable"
bad relative 2 '[filesystem]\nrw = src\n' "a relative path"
bad bad-port 2 '[network]\nconnect-tcp = 443 70000\n' "a port out of range"
bad bad-range 2 '[network]\nconnect-tcp = 90-80\n' "a reversed port range"
bad bad-mode 2 '[network]\nmode = open\n' "an unknown network mode"
bad bad-bool 2 '[profile]\nbest-effort = maybe\n' "a bad boolean"
bad bad-cidr 2 '[network]\nallow-cidr = 10.0.0.0/33\n' "a malformed CIDR"
bad wrong-section 2 '[filesystem]\nconnect-tcp = 443\n' "a key in the wrong section"
expect_output "... which names the section it belongs in" "belongs in section \\[network\\], not \\[filesystem\\]"
long=$(printf '%0250d' 0 | tr 0 a)
bad long-line 2 "[filesystem]\nro = /$long\n" "an over-long line"
longsec=$(printf '%060d' 0 | tr 0 s)
bad long-section 1 "[$longsec]\n" "an over-long section name"
printf '[profile]\ninclude = %s/cycle-b.ini\n' "$P" >"$P/cycle-a.ini"
printf '[profile]\ninclude = %s/cycle-a.ini\n' "$P" >"$P/cycle-b.ini"
expect_refused "an include cycle is refused and named" cycle \
	llw -p "$P/cycle-a.ini" -- /bin/sh -c "touch $marker"
printf '[filesystem]\nro = /etc\n' >"$P/unreadable.ini"
chmod 000 "$P/unreadable.ini"
expect_refused "an unreadable profile is refused and named" 'unreadable\.ini' \
	llw -p "$P/unreadable.ini" -- /bin/sh -c "touch $marker"
expect_status "an unknown profile name is 125" 125 llw -p no-such-profile -- /bin/true
expect_output "... and the search path is shown" "no-such-profile"
expect_output "... and the profiles found on it are listed" \
	"profiles there are: .*opencode.* \(built in: empty default\)"

# .llwrap.ini may only tighten.
printf '[filesystem]\nrw = %s\n' "$HOME_DIR" >"$PROJ/.llwrap.ini"
chown "$TEST_UID:$TEST_GID" "$PROJ/.llwrap.ini"
expect_refused ".llwrap.ini that widens (rw ~) is refused with file:line" '\.llwrap\.ini:2' \
	llw -p default -- /bin/sh -c "touch $marker"
printf '[network]\nmode = host\n' >"$PROJ/.llwrap.ini"
expect_status ".llwrap.ini that opens the network is refused" 125 llw -p default -- /bin/true
printf '[filesystem]\nro = %s/src\n' "$PROJ" >"$PROJ/.llwrap.ini"
echo "readme" >"$PROJ/README"
chown "$TEST_UID:$TEST_GID" "$PROJ/README"
run llw -p default --best-effort -q -- "$PROBE" write "$PROJ/src/new.c"
expect_rc ".llwrap.ini that tightens (ro src) applies" 1
expect_succeeded "... while the rest of the project stays writable" \
	llw -p default --best-effort -q -- "$PROBE" append "$PROJ/README"
# ... compared on resolved paths (issue 17, class 12): a rule on a link
# in the project that leads to the denied ~/.ssh widens, whatever its
# spelling.
ln -s "$HOME_DIR/.ssh" "$PROJ/keys"
printf '[filesystem]\nro = %s/keys\n' "$PROJ" >"$PROJ/.llwrap.ini"
expect_refused ".llwrap.ini widening through a symlink in the project is refused" \
	'\.llwrap\.ini:2' llw -p default -- /bin/sh -c "touch $marker"
printf '[filesystem]\ndeny = %s/keys\n' "$PROJ" >"$PROJ/.llwrap.ini"
if ! userns_works && ! bwrap_backend; then
	# A deny inside the writable project is a mount mask (L3).
	expect_refused "... while a deny on it (tightening) needs L3, refused without user namespaces" \
		'needs the namespace layer \(L3\)' llw -p default -- /bin/sh -c "touch $marker"
else
	expect_ran "... while a deny on it (tightening) applies" \
		llw -p default -- /bin/sh -c "touch $marker"
fi
rm -f "$PROJ/.llwrap.ini" "$PROJ/keys"

# Precedence: the command line beats profiles; later -p beats earlier.
printf '[filesystem]\nro = %s\n' "$OUTSIDE" >"$P/ro-outside.ini"
printf '[filesystem]\nrw = %s\n' "$OUTSIDE" >"$P/rw-outside.ini"
expect_succeeded "-p ro then -p rw: rw wins" \
	llw -p default -p "$P/ro-outside.ini" -p "$P/rw-outside.ini" -- "$PROBE" write "$OUTSIDE/a"
expect_denied "-p rw then -p ro: ro wins" 'landlock:EACCES|bwrap:EROFS' \
	llw -p default -p "$P/rw-outside.ini" -p "$P/ro-outside.ini" -- "$PROBE" write "$OUTSIDE/b"
expect_denied "--deny on the command line beats a profile's rw" 'landlock:EACCES|bwrap:ENOENT' \
	llw -p default -p "$P/rw-outside.ini" --deny "$OUTSIDE" -- "$PROBE" read "$OUTSIDE/file"
expect_succeeded "ro OUTSIDE from a profile: readable" \
	llw -p default -p "$P/ro-outside.ini" -- "$PROBE" read "$OUTSIDE/file"
expect_denied "'ro = none' in a later profile clears it" 'landlock:EACCES|bwrap:ENOENT' \
	llw -p default -p "$P/ro-outside.ini" -p "$LLW_DATA/profiles/clear-ro.ini" -- "$PROBE" read "$OUTSIDE/file"

# Paths with blanks: one flag is one path; a profile quotes them.
mkdir -p "$OUTSIDE/c d"
echo blank >"$OUTSIDE/c d/f"
chown -R "$TEST_UID:$TEST_GID" "$OUTSIDE/c d"
expect_succeeded "--ro '/x/c d': one flag is one path" \
	llw -p default --ro "$OUTSIDE/c d" -- "$PROBE" read "$OUTSIDE/c d/f"
expect_denied "--deny '/a /b' is one rule, not two" 'landlock:EACCES|bwrap:ENOENT' \
	llw -p default --ro "$OUTSIDE" --deny "$OUTSIDE/c d" -- "$PROBE" read "$OUTSIDE/c d/f"
expect_succeeded "... and $OUTSIDE/file beside it stays readable" \
	llw -p default --ro "$OUTSIDE" --deny "$OUTSIDE/c d" -- "$PROBE" read "$OUTSIDE/file"
printf '[filesystem]\nro = "%s/c d"\n' "$OUTSIDE" >"$P/quoted.ini"
expect_succeeded "a quoted path with a blank in a profile" \
	llw -p default -p "$P/quoted.ini" -- "$PROBE" read "$OUTSIDE/c d/f"

# A grant on a missing path is reported once; "?PATH" is quiet.
run llw -p default --rx "$HOME_DIR/bni" -- /bin/true
expect_rc "a grant on a missing path still runs" 0
expect_output "... and is reported on stderr, naming the rule" \
	"^llwrap: rx $HOME_DIR/bni \(command line\): does not exist; rule dropped\.$"
[ "$(printf '%s\n' "$out" | grep -c 'bni')" -eq 1 ] && ok "... once" ||
	{ not_ok "reported once"; diag "$out"; }
printf '[filesystem]\nrx = ?%s/bni\n' "$HOME_DIR" >"$P/optional.ini"
run llw -p default -p "$P/optional.ini" -- /bin/true
expect_rc "'?PATH' on a missing path runs" 0
expect_no_output "... quietly" "bni"
run llw -p default -p "$P/optional.ini" --explain -- /bin/true
expect_output "... --explain still notes it" "note: rx $HOME_DIR/bni .*does not exist"
run llw -p default --explain --rx "$HOME_DIR/bni" -- /bin/true
expect_output "--explain notes the missing grant" "note: rx $HOME_DIR/bni \(command line\): does not exist"
run llw -p default -- /bin/true
expect_no_output "the shipped profiles report nothing missing" "does not exist"

# inih's "key: value" is a mistake, not a grant.
marker=$PROJ/ran-colon
printf '[filesystem]\nrwx: ~/bin\n' >"$P/colon.ini"
expect_refused "'rwx: ~/bin' is a file:line error, exit 125" \
	"colon\.ini:2: expected 'key = value'" \
	llw -p "$P/colon.ini" -- /bin/sh -c "touch $marker"

# [match]: a profile on the path applies by itself to a matching command.
mkdir -p "$T/ppath"
printf '[filesystem]\nro = %s\n[match]\ncommand = probe\n' "$OUTSIDE" >"$T/ppath/auto.ini"
run as_user env LLWRAP_PROFILE_PATH="$T/ppath:$LLWRAP_PROFILE_PATH" $LLWRAP_B --rx "$LLW_HELPERS" -p default -- "$PROBE" read "$OUTSIDE/file"
expect_rc "a [match] profile applies to its command" 0
run as_user env LLWRAP_PROFILE_PATH="$T/ppath:$LLWRAP_PROFILE_PATH" $LLWRAP_B --rx "$LLW_HELPERS" -p default -- /bin/cat "$OUTSIDE/file"
expect_rc "... and not to another command" 1

done_testing
