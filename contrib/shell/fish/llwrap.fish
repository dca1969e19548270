# fish completion for llwrap(1).  Installed as llwrap.fish in fish's
# vendor_completions.d.  Profile names come from the profile path
# (llwrap.ini(5)); the subcommands why and log are offered when this
# llwrap's --help lists them.

function __llwrap_profiles
    set -l dirs (string split -n : -- "$LLWRAP_PROFILE_PATH")
    set -l cfg $XDG_CONFIG_HOME
    test -n "$cfg"; or set cfg $HOME/.config
    set -a dirs $cfg/llwrap/profiles /etc/llwrap/profiles
    set -l bin (command -s llwrap)
    if test -n "$bin"
        set -l prefix (path resolve $bin 2>/dev/null; or echo $bin)
        set prefix (string replace -r '/bin/llwrap$' '' -- $prefix)
        set -a dirs $prefix/etc/llwrap/profiles $prefix/share/llwrap/profiles
    end
    printf '%s\tbuilt-in profile\n' empty default
    for dir in $dirs
        test -d $dir; or continue
        for f in $dir/*.ini
            printf '%s\t%s\n' (string replace -r '\.ini$' '' -- (basename $f)) $dir
        end
    end
end

function __llwrap_subcommands
    command llwrap --help 2>/dev/null | string replace -rf '^ +(why|log)( .*)?$' '$1'
end

# The first non-option word is the command: complete it like a command.
function __llwrap_no_command
    set -l words (commandline -opc)
    set -e words[1]
    set -l skip 0
    for w in $words
        if test $skip -eq 1
            set skip 0
            continue
        end
        switch $w
            case -- -p --profile -C --directory -n --name --ro --rx --rw --rwx --deny --net --connect-tcp --bind-tcp --connect-udp --bind-udp --allow-cidr --unix --listen --dns --allow-host --env-keep --env-set --env-unset --keep-fd --backend
                set skip 1
            case '-*'
            case '*'
                return 1
        end
    end
    return 0
end

complete -c llwrap -f
complete -c llwrap -s p -l profile -x -a '(__llwrap_profiles)' -d 'Add a profile'
complete -c llwrap -s C -l directory -x -a '(__fish_complete_directories)' -d 'Project directory'
complete -c llwrap -s n -l name -x -d 'Instance name for logs'
complete -c llwrap -l ro -r -F -d 'Read-only path'
complete -c llwrap -l rx -r -F -d 'Read and execute path'
complete -c llwrap -l rw -r -F -d 'Read-write path'
complete -c llwrap -l rwx -r -F -d 'Read-write-execute path'
complete -c llwrap -l deny -r -F -d 'Hidden path'
complete -c llwrap -l net -x -a 'none filtered host' -d 'Network mode'
complete -c llwrap -l connect-tcp -x -d 'TCP ports to connect to'
complete -c llwrap -l bind-tcp -x -d 'TCP ports to bind'
complete -c llwrap -l connect-udp -x -d 'UDP ports to send to'
complete -c llwrap -l bind-udp -x -d 'UDP ports to bind'
complete -c llwrap -l allow-cidr -x -d 'Allowed destination CIDR[:PORTS]'
complete -c llwrap -l unix -r -F -d 'Allowed unix socket'
complete -c llwrap -l listen -x -d 'Allowed listen ADDR:PORT'
complete -c llwrap -l dns -x -d 'Allowed resolver'
complete -c llwrap -l env-keep -x -a '(set -n)' -d 'Keep an environment variable'
complete -c llwrap -l env-set -x -d 'Set NAME=VALUE'
complete -c llwrap -l env-unset -x -a '(set -n)' -d 'Remove an environment variable'
complete -c llwrap -l keep-fd -x -d 'Do not close this fd'
complete -c llwrap -l best-effort -d 'Run even if a restriction cannot be enforced'
complete -c llwrap -l backend -x -a 'auto landlock bwrap' -d 'Sandbox backend'
complete -c llwrap -l explain -d 'Print the resolved policy and exit'
complete -c llwrap -l check -d 'Print the kernel capabilities and exit'
complete -c llwrap -l selftest -d 'Run the escape probes under this policy'
complete -c llwrap -s v -l verbose -d 'More output'
complete -c llwrap -s q -l quiet -d 'Less output'
complete -c llwrap -s V -l version -d 'Print the version'
complete -c llwrap -s h -l help -d 'Print the help'
complete -c llwrap -n '__fish_is_first_arg' -x -a '(__llwrap_subcommands)'
complete -c llwrap -n '__llwrap_no_command' -x -a '(__fish_complete_command)'
complete -c llwrap -n 'not __llwrap_no_command' -x -a '(__fish_complete_subcommand)'
