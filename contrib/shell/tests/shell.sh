#!/bin/sh
# contrib/shell: every file parses in its shell (bash -n, zsh -n, fish
# -n, where installed); the opencode functions run llwrap -p opencode --
# opencode and "command opencode" bypasses them; the completions, made
# from llwrap's option table at build time, offer exactly the options
# --help lists; make install puts them where each shell looks (asked of
# the shells installed here), and there, driven in a real terminal
# (tmux), each shell completes options, their values, profile names,
# subcommands, log names and the command.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

S=$LLW_SRCDIR/contrib/shell
G=$LLW_BUILDDIR/contrib/shell

syntax() { # SHELL FILE...
	_sh=$1
	shift
	if ! command -v "$_sh" >/dev/null 2>&1; then
		skip "$_sh is not installed: $* not checked"
		return
	fi
	for _f in "$@"; do
		run "$_sh" -n "$_f"
		if [ "$rc" -eq 0 ]; then ok "$_sh -n ${_f##*/contrib/shell/}"; else not_ok "$_sh -n ${_f##*/contrib/shell/}"; diag "$out"; fi
	done
}
syntax bash "$S/opencode.bash" "$G/bash/llwrap"
syntax zsh "$S/opencode.zsh" "$G/zsh/_llwrap"
syntax fish "$S/opencode.fish" "$G/fish/llwrap.fish"

# Stubs: llwrap and opencode that print how they were called (in a
# directory of their own: $T/bin may hold the real llwrap, which libtest
# moves there when the build tree is under /tmp).
mkdir -p "$T/stubs"
printf '#!/bin/sh\necho "llwrap $*"\n' >"$T/stubs/llwrap"
printf '#!/bin/sh\necho "opencode $*"\n' >"$T/stubs/opencode"
chmod 755 "$T/stubs/llwrap" "$T/stubs/opencode"
P=$T/stubs:/usr/bin:/bin

func() { # SHELL SOURCE-COMMAND
	if ! command -v "$1" >/dev/null 2>&1; then
		skip "$1 is not installed: its opencode function not run"
		skip "$1 is not installed: command opencode not run"
		return
	fi
	run env PATH="$P" "$1" -c "$2; opencode run 'a b'"
	expect_output "$1: opencode runs llwrap -p opencode -- opencode with its arguments" '^llwrap -p opencode -- opencode run a b$'
	run env PATH="$P" "$1" -c "$2; command opencode run"
	expect_output "$1: command opencode bypasses the function" '^opencode run$'
}
func bash ". '$S/opencode.bash'"
func zsh "source '$S/opencode.zsh'"
func fish "source '$S/opencode.fish'"

# The options --help lists, one a line, and each completion's.
help_opts=$("$LLWRAP" --help | grep -oE -- '^  (-[A-Za-z], )?--[a-z-]+' |
	sed -E 's/^  (-[A-Za-z], )?//' | sort -u)
same_opts() { # DESC LIST
	if [ -n "$help_opts" ] && [ "$2" = "$help_opts" ]; then
		ok "$1"
	else
		not_ok "$1"
		diag "--help: $(echo $help_opts)"
		diag "completion: $(echo $2)"
	fi
}
same_opts "bash: every option of --help, and no other" \
	"$(sed -n "s/^_llwrap_options='\(.*\)'$/\1/p" "$G/bash/llwrap" | tr ' ' '\n' | grep -- '^--' | sort -u)"
same_opts "zsh: every option of --help, and no other" \
	"$(grep -oE -- "(,|'\*)--[a-z-]+" "$G/zsh/_llwrap" | sed -E "s/^(,|'\*)//" | sort -u)"
same_opts "fish: every option of --help, and no other" \
	"$(sed -n 's/^complete -c llwrap -n __llwrap_no_command .*-l \([a-z-]*\) .*/--\1/p' "$G/fish/llwrap.fish" | sort -u)"
for o in --allow-host --proxy --timeout --learn --why --allow-broad-project; do
	if printf '%s\n' "$help_opts" | grep -qx -- "$o"; then
		ok "--help lists $o (so every completion has it)"
	else
		not_ok "--help lists $o"
	fi
done

# Bash completion, called directly, with the real llwrap and a profile
# path.
mkdir -p "$T/real" "$T/profiles" "$T/state/llwrap"
ln -s "$LLWRAP" "$T/real/llwrap"
printf '[profile]\n' >"$T/profiles/mytool.ini"
touch "$T/state/llwrap/mylog.log"
complete_bash() { # WORDS... (the last one is being completed)
	env PATH="$T/real:/usr/bin:/bin" LLWRAP_PROFILE_PATH="$T/profiles" HOME="$T" \
		XDG_STATE_HOME="$T/state" bash --norc -c '
		. "$0"
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_llwrap
		printf "%s\n" "${COMPREPLY[@]}"' "$G/bash/llwrap" "$@"
}
run complete_bash llwrap --ne
expect_output "bash: --ne -> --net" '^--net$'
run complete_bash llwrap --allow-h
expect_output "bash: --allow-h -> --allow-host" '^--allow-host$'
run complete_bash llwrap --net f
expect_output "bash: --net modes" '^filtered$'
run complete_bash llwrap --net = f
expect_output "bash: --net=modes" '^filtered$'
run complete_bash llwrap --backend ''
expect_output "bash: --backend choices" '^landlock$'
run complete_bash llwrap -p my
expect_output "bash: profile names from the profile path" '^mytool$'
run complete_bash llwrap --profile ''
expect_output "bash: ... and the built-in ones" '^default$'
run complete_bash llwrap -p default bas
expect_output "bash: the command after the options" '^bash$'
run complete_bash llwrap -p default -- ls --
expect_no_output "bash: after the command, llwrap's options are not offered" '^--net$'
run complete_bash llwrap wh
expect_output "bash: the subcommand why" '^why$'
run complete_bash llwrap log my
expect_output "bash: log names" '^mylog$'
run complete_bash llwrap log --f
expect_output "bash: log's flags" '^--follow$'
run complete_bash llwrap -p default why /etc --wr
expect_output "bash: why's flags" '^--write$'
# With bash-completion loaded, the command's own completion takes over
# after it (_command_offset).
BC=/usr/share/bash-completion/bash_completion
if [ -r "$BC" ]; then
	run env PATH="$T/real:/usr/bin:/bin" HOME="$T" bash --norc -c '
		. "$1"
		. "$0"
		COMP_WORDS=(llwrap -p default -- ech)
		COMP_CWORD=4
		COMP_LINE="llwrap -p default -- ech"
		COMP_POINT=${#COMP_LINE}
		_llwrap
		printf "%s\n" "${COMPREPLY[@]}"' "$G/bash/llwrap" "$BC"
	expect_output "bash with bash-completion: the command after -- (_command_offset)" '^echo$'
else
	skip "bash-completion is not installed: _command_offset not exercised"
fi
if command -v fish >/dev/null 2>&1; then
	run env PATH="$T/real:/usr/bin:/bin" LLWRAP_PROFILE_PATH="$T/profiles" HOME="$T" \
		fish -c "source '$G/fish/llwrap.fish'; complete -C 'llwrap -p my'; complete -C 'llwrap --net '"
	expect_output "fish: profile names from the profile path" '^mytool'
	expect_output "fish: --net modes" '^filtered'
else
	skip "fish is not installed: its completion not run"
fi

# make install, into a directory of the test's own (DESTDIR).
DEST=$T/dest
dirs=$(cd "$LLW_BUILDDIR" && MAKEFLAGS= make -s print-completiondirs)
dir_of() { printf '%s\n' "$dirs" | sed -n "s/^$1 //p"; }
if (cd "$LLW_BUILDDIR" && MAKEFLAGS= make -s install DESTDIR="$DEST" >"$T/install.log" 2>&1); then
	ok "make install DESTDIR=..."
else
	not_ok "make install DESTDIR=..."
	diag "$(tail -20 "$T/install.log")"
	done_testing
	exit
fi
for sh in bash zsh fish; do
	case $sh in bash) f=llwrap ;; zsh) f=_llwrap ;; fish) f=llwrap.fish ;; esac
	if [ -f "$DEST$(dir_of $sh)/$f" ] && cmp -s "$DEST$(dir_of $sh)/$f" "$G/$sh/$f"; then
		ok "$sh: the completion is installed in $(dir_of $sh)"
	else
		not_ok "$sh: the completion is installed in $(dir_of $sh)"
	fi
done
pkgdatadir=$(dir_of pkgdatadir)
for sh in bash zsh fish; do
	f=$DEST$pkgdatadir/shell/opencode.$sh
	if [ -f "$f" ] && sed -n 1,4p "$f" | grep -Fq "$pkgdatadir/shell/opencode.$sh" &&
		! grep -q '@pkgdatadir@' "$f"; then
		ok "opencode.$sh names where it is installed ($pkgdatadir/shell)"
	else
		not_ok "opencode.$sh names where it is installed ($pkgdatadir/shell)"
		diag "$(sed -n 1,4p "$f" 2>&1)"
	fi
done

# Where each shell looks, asked of it with a clean environment (no
# XDG_DATA_DIRS, no startup files), for the prefixes users install to;
# make distcheck's own prefix is read by no shell.
case $(dir_of prefix) in
/usr | /usr/local)
	if command -v zsh >/dev/null 2>&1; then
		if env -i zsh -fc 'print -rl -- $fpath' | grep -Fqx "$(dir_of zsh)"; then
			ok "zsh reads $(dir_of zsh) (its \$fpath)"
		else
			not_ok "zsh reads $(dir_of zsh) (its \$fpath)"
			diag "$(env -i zsh -fc 'print -rl -- $fpath' | head -5)"
		fi
	else
		skip "zsh is not installed: where it looks not checked"
	fi
	if command -v fish >/dev/null 2>&1; then
		fpaths=$(env -i HOME="$T/nohome" fish -c 'string join \n -- $fish_complete_path')
		if printf '%s\n' "$fpaths" | grep -Fqx "$(dir_of fish)"; then
			ok "fish reads $(dir_of fish) (its \$fish_complete_path)"
		else
			not_ok "fish reads $(dir_of fish) (its \$fish_complete_path)"
			diag "$fpaths"
		fi
	else
		skip "fish is not installed: where it looks not checked"
	fi
	# bash-completion: $XDG_DATA_DIRS (default /usr/local/share:/usr/share)
	# each with bash-completion/completions.
	case $(dir_of bash) in
	/usr/local/share/bash-completion/completions | /usr/share/bash-completion/completions)
		ok "bash-completion reads $(dir_of bash)" ;;
	*) not_ok "bash-completion reads $(dir_of bash)" ;;
	esac
	;;
*)
	skip "prefix $(dir_of prefix): no shell reads it without being told"
	;;
esac

# Each shell in a terminal (tmux), as its user sets it up, with the
# installed files where it looks for them: bash with bash-completion
# (what Debian's ~/.bashrc loads) and XDG_DATA_DIRS, zsh with the
# README's compinit line, fish with fish_complete_path.
if ! command -v tmux >/dev/null 2>&1; then
	skip_rest "tmux is not installed: the shells are not driven"
fi
TH=$T/thome
mkdir -p "$TH/.local/state/llwrap" "$TH/zdot" "$TH/.config/fish" "$T/tmux"
touch "$TH/.local/state/llwrap/mytool.log"
cat >"$TH/zdot/.zshrc" <<EOF
fpath=($DEST$(dir_of zsh) \$fpath)
autoload -Uz compinit && compinit -u
PS1='%% '
EOF
cat >"$TH/.config/fish/config.fish" <<EOF
set -g fish_greeting
set -p fish_complete_path $DEST$(dir_of fish)
function fish_prompt; echo '> '; end
EOF
chown -R "$TEST_UID:$TEST_GID" "$TH" "$T/tmux"
TMUX_SOCK=$T/tmux/sock
tm() { as_user tmux -S "$TMUX_SOCK" "$@"; }
# The environment of a login with the installed llwrap first on PATH.
TENV="env -i HOME=$TH TERM=xterm LANG=C.UTF-8 PATH=$DEST$(dir_of bin):/usr/bin:/bin"
# keys SESSION PATTERN KEYS...: type KEYS, then wait (at most 30 s, a
# loaded machine is slow, not wrong) until the screen matches the grep
# -E PATTERN; $screen is the screen.  Then abandon the line (C-c) and
# clear the screen.
keys() {
	_s=$1 _p=$2
	shift 2
	tm send-keys -t "$_s" "$@"
	_i=0
	while :; do
		screen=$(tm capture-pane -p -t "$_s")
		printf '%s\n' "$screen" | grep -Eq -- "$_p" && _r=0 && break
		[ $_i -ge 300 ] && _r=1 && break
		sleep 0.1
		_i=$((_i + 1))
	done
	tm send-keys -t "$_s" C-c
	sleep 0.2
	tm send-keys -t "$_s" C-l
	return $_r
}
# drive SHELL SESSION PROMPT: each completion in the running session.
drive() {
	_sh=$1 _s=$2 _pr=$3
	for c in "--allow-h|--allow-host" "--time|--timeout" "--lea|--learn" \
		"--allow-b|--allow-broad-project" "--net=fi|--net=filtered" \
		"-p openc|-p opencode" "log myt|log mytool" \
		"why /etc --wr|why /etc --write" \
		"-p default -- ech|-p default -- echo"; do
		typed=${c%%|*} want=${c#*|}
		if keys "$_s" "^$_pr ?llwrap $want( |=|\$)" "llwrap $typed" Tab; then
			ok "$_sh in a terminal: llwrap $typed<Tab> -> llwrap $want"
		else
			not_ok "$_sh in a terminal: llwrap $typed<Tab> -> llwrap $want"
			diag "$(printf '%s\n' "$screen" | grep -v '^$' | tail -5)"
		fi
	done
}
start() { # SESSION CMD READY-PATTERN
	tm new-session -d -s "$1" -x 200 -y 40 "$2"
	# The server goes when the test does, whatever happens.
	_pid=$(tm display-message -p '#{pid}' 2>/dev/null)
	[ -n "$_pid" ] && bg_pids="$bg_pids $_pid"
	_i=0
	until tm capture-pane -p -t "$1" 2>/dev/null | grep -Eq -- "$3"; do
		if [ $_i -ge 300 ]; then
			not_ok "$1: the shell starts in tmux"
			diag "$(tm capture-pane -p -t "$1" 2>&1 | grep -v '^$' | tail -5)"
			return 1
		fi
		sleep 0.1
		_i=$((_i + 1))
	done
}
if command -v bash >/dev/null 2>&1; then
	if [ -r "$BC" ]; then
		bashinit=". $BC"
	else
		bashinit=". $DEST$(dir_of bash)/llwrap"
	fi
	printf '%s\nPS1="$ "\n' "$bashinit" >"$TH/.bashrc"
	chown "$TEST_UID:$TEST_GID" "$TH/.bashrc"
	if start b "$TENV XDG_DATA_DIRS=$DEST$(dirname "$(dirname "$(dir_of bash)")"):/usr/share bash --noprofile --rcfile $TH/.bashrc -i" '^\$'; then
		drive bash b '\$'
	fi
fi
if command -v zsh >/dev/null 2>&1; then
	if start z "$TENV ZDOTDIR=$TH/zdot zsh" '^%'; then
		drive zsh z '%'
	fi
fi
if command -v fish >/dev/null 2>&1; then
	if start f "$TENV XDG_CONFIG_HOME=$TH/.config fish" '^>'; then
		drive fish f '>'
	fi
fi
tm kill-server 2>/dev/null

done_testing
