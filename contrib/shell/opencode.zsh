# opencode under llwrap, for zsh: source this file from ~/.zshrc, e.g.
#   source @pkgdatadir@/shell/opencode.zsh
# Then "opencode ..." runs inside llwrap's opencode profile, and
# "command opencode ..." runs opencode itself, outside the sandbox.
opencode() {
	llwrap -p opencode -- opencode "$@"
}
