#!/bin/sh
# contrib/shell: every file parses in its shell (bash -n, zsh -n, fish
# -n, where installed); the opencode functions run llwrap -p opencode --
# opencode and "command opencode" bypasses them; bash completion offers
# options, modes, profile names from the profile path, commands, and
# why/log only when this llwrap has them.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

S=$LLW_SRCDIR/contrib/shell

syntax() { # SHELL FILE...
	_sh=$1
	shift
	if ! command -v "$_sh" >/dev/null 2>&1; then
		skip "$_sh is not installed: $* not checked"
		return
	fi
	for _f in "$@"; do
		run "$_sh" -n "$_f"
		if [ "$rc" -eq 0 ]; then ok "$_sh -n ${_f#"$S"/}"; else not_ok "$_sh -n ${_f#"$S"/}"; diag "$out"; fi
	done
}
syntax bash "$S/opencode.bash" "$S/bash/llwrap"
syntax zsh "$S/opencode.zsh" "$S/zsh/_llwrap"
syntax fish "$S/opencode.fish" "$S/fish/llwrap.fish"

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

# Bash completion with the real llwrap (its --help) and a profile path.
mkdir -p "$T/real" "$T/profiles"
ln -s "$LLWRAP" "$T/real/llwrap"
printf '[profile]\n' >"$T/profiles/mytool.ini"
complete_bash() { # WORDS... (the last one is being completed)
	env PATH="$T/real:/usr/bin:/bin" LLWRAP_PROFILE_PATH="$T/profiles" HOME="$T" \
		bash --norc -c '
		. "$0"
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_llwrap
		printf "%s\n" "${COMPREPLY[@]}"' "$S/bash/llwrap" "$@"
}
run complete_bash llwrap --ne
expect_output "bash: options come from llwrap --help (--ne -> --net)" '^--net$'
run complete_bash llwrap --exp
expect_output "bash: ... --explain" '^--explain$'
run complete_bash llwrap --net f
expect_output "bash: --net modes" '^filtered$'
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
if "$LLWRAP" --help 2>/dev/null | grep -Eq '^ +why( |$)'; then
	run complete_bash llwrap wh
	expect_output "bash: why, which this llwrap has" '^why$'
else
	run complete_bash llwrap wh
	expect_no_output "bash: no why offered (this llwrap does not have it yet)" '^why$'
fi
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
		printf "%s\n" "${COMPREPLY[@]}"' "$S/bash/llwrap" "$BC"
	expect_output "bash with bash-completion: the command after -- (_command_offset)" '^echo$'
else
	skip "bash-completion is not installed: _command_offset not exercised"
fi
if command -v fish >/dev/null 2>&1; then
	run env PATH="$T/real:/usr/bin:/bin" LLWRAP_PROFILE_PATH="$T/profiles" HOME="$T" \
		fish -c "source '$S/fish/llwrap.fish'; complete -C 'llwrap -p my'; complete -C 'llwrap --net '"
	expect_output "fish: profile names from the profile path" '^mytool'
	expect_output "fish: --net modes" '^filtered'
else
	skip "fish is not installed: its completion not run"
fi

done_testing
