#!/bin/sh
# The other integration suites again, through the bubblewrap fallback
# (LLW_BACKEND=bwrap makes llw pass --backend bwrap), but for those a
# rerun would only repeat (listed below).  Their TAP is
# re-emitted here with the suite's name in front; what the fallback
# cannot do, the suites skip with the reason, and the skips are counted.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

if ! "$LLWRAP" --check | grep -q '^  F  bubblewrap   usable'; then
	skip_rest "bubblewrap cannot run here: $("$LLWRAP" --check | grep '^  F ')"
fi

LLW_BACKEND=bwrap
export LLW_BACKEND
# Not rerun, as a second run would only repeat the first:
# - agent.sh, manual.sh, apparmor.sh, container.sh run llwrap with its
#   default backend or not at all (neither llw nor $LLWRAP_B);
# - oldkernel.sh simulates older kernels for the Landlock backend, and
#   skips itself under this one;
# - leftovers.sh is make check's last test, after this one.
rerun_not="agent manual apparmor container oldkernel leftovers"
# The suites run side by side, as make check runs them; each has its own
# scratch directory.
names=
for suite in "$LLW_SRCDIR"/tests/integration/*.sh; do
	name=$(basename "$suite" .sh)
	case " backend-bwrap $rerun_not " in
	*" $name "*) continue ;;
	esac
	names="$names $name"
	(t0=$(date +%s); sh "$suite" >"$T/$name.tap" 2>&1
		echo $? >"$T/$name.status"; echo $(($(date +%s) - t0)) >"$T/$name.secs") &
done
wait

bwrap_skips=0
for name in $names; do
	status=$(cat "$T/$name.status")
	plan=
	seen=0
	while IFS= read -r line; do
		case "$line" in
		"ok "*" # SKIP "*)
			seen=$((seen + 1))
			bwrap_skips=$((bwrap_skips + 1))
			skip "$name: ${line#* # SKIP }"
			;;
		"ok "*)
			seen=$((seen + 1))
			rest=${line#ok }
			ok "$name: ${rest#* - }"
			;;
		"not ok "*)
			seen=$((seen + 1))
			rest=${line#not ok }
			not_ok "$name: ${rest#* - }"
			;;
		1..*)
			plan=${line#1..}
			;;
		"#"*)
			echo "# $name: ${line#\# }"
			;;
		*)
			echo "# $name: $line"
			;;
		esac
	done <"$T/$name.tap"
	diag "$name: $seen tests in $(cat "$T/$name.secs") s"
	if [ -z "$plan" ] || [ "$plan" -ne "$seen" ]; then
		not_ok "$name: its plan matches the tests it ran ($seen of ${plan:-none})"
	elif [ "$status" -ne 0 ] && ! grep -q '^not ok ' "$T/$name.tap"; then
		not_ok "$name: exited with status $status without a failed test"
	fi
done
diag "$bwrap_skips tests skipped under --backend=bwrap (each says why)"
done_testing
