# opencode under llwrap, for bash: source this file from ~/.bashrc, e.g.
#   . @pkgdatadir@/shell/opencode.bash
# Then "opencode ..." runs inside llwrap's opencode profile, and
# "command opencode ..." runs opencode itself, outside the sandbox.
opencode() {
	llwrap -p opencode -- opencode "$@"
}
