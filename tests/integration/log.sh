#!/bin/sh
# llwrap log: the supervisor's blocked-attempt log, read back grouped and
# counted, newest first, with the change that would allow each; nscd
# probes summarised once; 10,000 attempts in a few lines; --follow.
. "$LLW_SRCDIR/tests/lib/libtest.sh"
need_default_profile

if [ "$("$LLWRAP" --check 2>/dev/null | sed -n 's/^  S  supervisor *//p')" != usable ]; then
	skip_rest "the network supervisor cannot run here"
fi
if bwrap_backend; then
	skip_rest "the bubblewrap backend has no supervisor"
fi
LOGDIR=$HOME_DIR/.local/state/llwrap

# No log yet: a clear error naming the directory.
run as_user "$LLWRAP" log
expect_rc "no log at all is status 1" 1
expect_output "... naming where logs are written" "no blocked-attempt log in $LOGDIR"

# 10,000 refused connects (the supervisor refuses 127.0.0.1, which no
# allow-cidr entry holds), from one process.
cat >"$T/flood.py" <<'PY'
import socket
for i in range(10000):
    s = socket.socket()
    try:
        s.connect(("127.0.0.1", 1))
    except OSError:
        pass
    s.close()
PY
chmod 644 "$T/flood.py"
run llw -p default -n flood --allow-cidr 127.0.0.2/32:1 --ro "$T/flood.py" -- python3 "$T/flood.py"
expect_rc "10,000 refused connects run" 0
run as_user "$LLWRAP" log flood
expect_rc "llwrap log flood exits 0" 0
expect_output "all 10,000 attempts are counted" "^flood: 10000 blocked attempts \\([0-9]+ logged, [0-9]+ more not logged by the rate limit\\), 1 kind"
expect_output "... in one group with its count" "^ +[0-9]+x connect tcp 127\\.0\\.0\\.1:1  \\(python3; rule filtered/local\\)"
expect_output "... and the change that would allow it" "allow: \\[network\\] allow-cidr = 127\\.0\\.0\\.1/32:1"
lines=$(printf '%s\n' "$out" | wc -l)
if [ "$lines" -le 6 ]; then
	ok "10,000 attempts are $lines lines"
else
	not_ok "10,000 attempts are $lines lines"
	diag "$out"
fi
logged=$(grep -c 'connect tcp 127.0.0.1:1 ' "$LOGDIR/flood.log")
if [ "$logged" -lt 200 ]; then
	ok "the supervisor's rate limit kept the file small ($logged lines)"
else
	not_ok "the supervisor wrote $logged lines for 10,000 attempts"
fi

# nscd probes (glibc's, harmless) are summarised once; a real denial is
# listed, newest first.
python3 - "$OUTSIDE/sock" <<'PY' &
import os, socket, sys, time
u = socket.socket(socket.AF_UNIX)
u.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
u.listen(8)
time.sleep(120)
PY
bg_pids="$bg_pids $!"
i=0
while [ ! -S "$OUTSIDE/sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
for i in 1 2 3; do
	llw -p default -n mixed --allow-cidr 127.0.0.2/32:1 -- "$PROBE" unix-connect /var/run/nscd/socket >/dev/null 2>&1
done
llw -p default -n mixed --allow-cidr 127.0.0.2/32:1 -- "$PROBE" unix-connect "$OUTSIDE/sock" >/dev/null 2>&1
run as_user "$LLWRAP" log mixed
expect_output "nscd is summarised once, with its count" "^known-harmless: 3x nscd lookups"
expect_no_output "... and not listed as a denial" "connect unix /var/run/nscd/socket"
expect_output "a unix denial is listed with its suggestion" "allow: \\[network\\] unix = $OUTSIDE/sock"
run as_user "$LLWRAP" log
expect_output "without NAME, the newest log is shown" "^mixed: 4 blocked attempts"

# --follow prints new attempts as they are logged.
spawn_as_user "$LLWRAP" log mixed --follow >"$T/follow.out" 2>&1
follower=$spawned
i=0
while ! grep -q '^-- following' "$T/follow.out" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
llw -p default -n mixed --allow-cidr 127.0.0.2/32:1 -- "$PROBE" tcp-connect 127.0.0.3 4242 >/dev/null 2>&1
i=0
while ! grep -q '127.0.0.3:4242' "$T/follow.out" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
stop "$follower"
out=$(cat "$T/follow.out")
expect_output "--follow shows a new attempt" "^connect tcp 127\\.0\\.0\\.3:4242 \\(probe; rule filtered/local\\)"
expect_output "... with what would allow it" "^  allow: \\[network\\] allow-cidr = 127\\.0\\.0\\.3/32:4242"

run as_user "$LLWRAP" log mixed --bogus
expect_rc "an unknown log flag is an llwrap error" 125

# A FIFO where the log goes (planted by a command that a profile of the
# user's let write the state directory): the run is refused at once,
# saying why, not left waiting in the open for a reader; so is llwrap
# log (review M, F4).
as_user mkfifo "$LOGDIR/fifo.log"
start=$(date +%s)
run as_user timeout -s KILL 20 "$LLWRAP" -p default -n fifo --allow-cidr 127.0.0.2/32:1 -- true
expect_rc "a FIFO at the blocked-attempt log: the run is refused (125)" 125
expect_output "... naming it" "cannot open the blocked-attempt log $LOGDIR/fifo\\.log: not a regular file"
run as_user timeout -s KILL 20 "$LLWRAP" log fifo
expect_rc "... llwrap log refuses it too (1)" 1
expect_output "... saying so" "log: $LOGDIR/fifo\\.log: not a regular file"
[ $(($(date +%s) - start)) -lt 15 ] && ok "... at once, neither waiting for a reader" ||
	not_ok "a FIFO at the log kept llwrap waiting"
rm -f "$LOGDIR/fifo.log"

done_testing
