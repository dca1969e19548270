# opencode under llwrap, for fish: source this file from
# ~/.config/fish/config.fish, e.g.
#   source @pkgdatadir@/shell/opencode.fish
# Then "opencode ..." runs inside llwrap's opencode profile, and
# "command opencode ..." runs opencode itself, outside the sandbox.
function opencode --wraps opencode --description 'opencode inside llwrap -p opencode'
    llwrap -p opencode -- opencode $argv
end
