# helper-of.sh: sourced by the inner scripts of named.sh and proxy.sh.
#
# helper_of JOB NAME: the pid of the llwrap helper NAME of the run the
# background job JOB started (other suites' runs go on beside this
# one), once it has confined itself (no_new_privs comes last); waits up
# to 30 s (a slow machine takes more than a second to get there).  A
# child of llwrap's, or of its resolver's (llwrap-relay).
helper_of() {
	_i=0
	while [ $_i -lt 300 ]; do
		_sup=$(pgrep -x llwrap -P "$1" | head -1)
		_dns=${_sup:+$(pgrep -x -P "$_sup" llwrap-dns | head -1)}
		_h=${_sup:+$(pgrep -x -P "$_sup${_dns:+,$_dns}" "$2" | head -1)}
		if [ -n "$_h" ] && grep -q '^NoNewPrivs:[[:space:]]*1$' "/proc/$_h/status"; then
			echo "$_h"
			return 0
		fi
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}
