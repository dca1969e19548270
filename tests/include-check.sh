#!/bin/sh
# The include graph's two rules (DESIGN.md §8), checked on the sources:
#
# 1. No cycle.  A module is a pair src/NAME.c + src/NAME.h, with the
#    files of its private parts, src/NAME-PART.[ch] (policy-merge.c is the
#    policy's merge, included by policy.c alone); a file of NAME
#    including "OTHER.h" is an arrow NAME -> OTHER.  A cycle of
#    modules (profile -> netpolicy -> proxy -> hostrule -> profile, as
#    there was) means none of them can be understood, tested or moved
#    alone.
# 2. No arrow runs upward: every module has a layer below, and a module
#    includes only modules of its own layer or of a layer beneath it.
#    The pure core must not include the kernel layer.
# 3. struct policy is read by the planner alone: only the files listed
#    in $planner below include policy.h; the others read the plan
#    (planner.h's struct sandbox, its conf: planconf.h) and pass a
#    policy on as an opaque pointer.  A header that included policy.h
#    would hand it to every file including that header, so only the
#    policy's and the planner's private headers may.
# 4. The check of rule 3 fails on a violation: it is run on a copy of
#    src/ where a file outside the planner includes policy.h.
#
# The layer list is here, in one place: a module missing from it is an
# error too, so a new file is placed on purpose.
#
# Usage: include-check.sh [SRCDIR]; TAP output.
set -eu

srcdir=${1:-${LLW_SRCDIR:-$(dirname "$0")/..}}

# Lowest first.  Arrows may run within a layer or down, never up.
layers='
value:    value httpreq
core:     vars profile keys options access planconf policy hostrule
          netpolicy proxy dns hostaddrs hostdns profilematch pathtree
          gitconfig known project layers suggest blocked viewplan sha
          tlshello learnpropose testhook msgcopy refusal relaycheck
kernel:   ruleset filter ns sockdiag caps cmsg monitor resources bwrap
          copyin gitguard watchlater channel helper contain runtmp
          maskwatch
helpers:  supervise svcall svlog svaddr svunix svnames svsend
          svlearn dnsstub dnsserve proxyserve watchjudge relay probe
cli:      planner sandbox why explain selftest cmd llwrap completion
'

# Arrows known to run upward, each with who removes it; the list only
# shrinks.  None is left: monitor's poll loop serves the supervisor's
# engine as a guest (monitor.h's struct monitor_guest) that the runner
# wires in.
exceptions=''

# The planner (DESIGN.md §8): the files that may include policy.h.  The
# policy's own (its resolution and merge), the planner's (policy x facts
# -> the plan), the network compile (netpolicy.c: netpolicy_plan and the
# policy-level answers the planner asks, needs-supervisor, proxy,
# names closed, the rules), and cmd.c, which turns the command line into
# the policy (struct policy_request) and hands it to the planner.
planner='policy.c policy-merge.c policy-merge.h planner.c planner-rules.c
	planner-conf.c planner-int.h netpolicy.c cmd.c'

# The files of src/ directory $1 that include policy.h outside
# $planner, one a line.
policy_readers() {
	for f in "$1"/*.c "$1"/*.h; do
		b=${f##*/}
		allowed=false
		for p in policy.h $planner; do
			[ "$b" = "$p" ] && allowed=true
		done
		$allowed && continue
		if grep -q '^#[[:space:]]*include[[:space:]]*"policy\.h"' "$f"; then
			echo "$b"
		fi
	done
}

echo "1..4"

printf '%s\n' "$layers" | awk -v srcdir="$srcdir" -v exceptions="$exceptions" '
function module(path, b) {
	b = path
	sub(/.*\//, "", b)
	sub(/\.[ch]$/, "", b)
	sub(/-.*/, "", b)
	return b
}
# Depth-first search for a cycle; stack[] holds the current path.
function visit(m,    k, t, i, s) {
	state[m] = 1
	stack[++depth] = m
	for (k = 1; k <= nout[m]; k++) {
		t = out[m, k]
		if (state[t] == 1) {
			s = t
			for (i = depth; i >= 1 && stack[i] != t; i--)
				;
			for (i = i + 1; i <= depth; i++)
				s = s " -> " stack[i]
			cycles = cycles "# cycle: " s " -> " t "\n"
		} else if (state[t] == 0) {
			visit(t)
		}
	}
	depth--
	state[m] = 2
}
BEGIN { rank = 0 }
# The layer table, from stdin.
NF > 0 {
	start = 1
	if ($1 ~ /:$/) {
		rank++
		layer_name[rank] = substr($1, 1, length($1) - 1)
		start = 2
	}
	for (i = start; i <= NF; i++)
		layer[$i] = rank
}
END {
	cmd = "ls " srcdir "/src/*.c " srcdir "/src/*.h"
	while ((cmd | getline f) > 0) {
		m = module(f)
		if (f ~ /\/(builtin-profiles|known-limits|filter-programs)\.[ch]$/)
			continue
		mods[m] = 1
		while ((getline line < f) > 0) {
			if (line !~ /^#[ \t]*include[ \t]+"/)
				continue
			h = line
			sub(/^#[ \t]*include[ \t]+"/, "", h)
			sub(/".*/, "", h)
			if (h ~ /\//)
				continue	# compat/: lib
			t = module(h)
			if (system("test -f " srcdir "/src/" h) != 0)
				continue	# lib/ or generated
			if (t == m || seen[m, t]++)
				continue
			out[m, ++nout[m]] = t
		}
		close(f)
	}
	close(cmd)
	bad = ""
	for (m in mods)
		if (!(m in layer))
			bad = bad "# " m ": in no layer (add it to " \
			    "tests/include-check.sh)\n"
	for (m in mods)
		for (k = 1; k <= nout[m]; k++) {
			t = out[m, k]
			if (index(" " exceptions " ", " " m ">" t " "))
				continue
			if ((m in layer) && (t in layer) && layer[t] > layer[m])
				bad = bad "# upward: " m " (" \
				    layer_name[layer[m]] ") includes " t \
				    " (" layer_name[layer[t]] ")\n"
		}
	for (m in mods)
		if (state[m] == 0)
			visit(m)
	if (cycles == "")
		print "ok 1 - no include cycle among src/ modules"
	else
		printf "not ok 1 - include cycles\n%s", cycles
	if (bad == "")
		print "ok 2 - every module in a layer, no arrow upward"
	else
		printf "not ok 2 - layers\n%s", bad
}'

bad=$(policy_readers "$srcdir/src")
if [ -z "$bad" ]; then
	echo "ok 3 - struct policy: only the planner includes policy.h"
else
	echo "not ok 3 - struct policy: included outside the planner"
	printf '%s\n' "$bad" | sed 's/^/# /; s/$/ includes policy.h (read the plan: planner.h, planconf.h)/'
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$srcdir"/src/*.c "$srcdir"/src/*.h "$tmp"/
printf '#include "policy.h"\n' >>"$tmp/explain.c"
if policy_readers "$tmp" | grep -qx explain.c; then
	echo "ok 4 - the check of rule 3 fails on explain.c including policy.h"
else
	echo "not ok 4 - the check of rule 3 missed explain.c including policy.h"
fi
