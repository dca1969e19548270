#!/bin/bash
# bench/agent.sh: what the network supervisor costs the agent profile.
# -p opencode as shipped (supervise = yes) against the same profile with
# the supervisor turned off (a profile that includes opencode and sets
# supervise = no, run with --allow-host none: allow-host alone keeps the
# supervisor, so supervise = no without it measured the supervisor
# against itself), and against no sandbox, in interleaved rounds
# (bench/ab.c: one run of each per round, so a busy machine slows all of
# them alike).  Not a test: it prints a Markdown section.
#
#   bench/agent.sh [BUILDDIR]          (default: the source tree)
#
# Workloads: /bin/true (start-up), make -j$(nproc) of a generated C
# project of CFILES files (a clean build each round), npm test of a
# fixture project (node --test, six test files writing and hashing files
# in the project), and git status over a 2,000-file repository.
#
# Target (issue 16): the build and npm test within 3% of the same run
# without the supervisor; start-up within 0.3 ms of it.
#
# Environment: ROUNDS (start-up rounds, default 200), BUILD_ROUNDS
# (default 6), NPM_ROUNDS (default 10), CFILES (default 96), BASE
# (another llwrap binary, e.g. a build of an older commit: its -p opencode
# joins every round), BENCH_KEEP=1 (keep the work directory).  As root,
# the sandboxes run as nobody (setpriv), as bench/run --quick does.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
command -v cc >/dev/null || { echo "bench/agent.sh: needs a C compiler"; exit 1; }

bench_home
mkdir -p "$work/start"

cc -O2 -o "$work/ab" "$here/ab.c" || exit 1
nosup_profile "$work/nosup.ini"

# A C project: CFILES units of 12 functions each, one header, a Makefile.
cfiles=${CFILES:-96}
mkdir -p "$work/cproj"
python3 - "$work/cproj" "$cfiles" <<'PY'
import sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    with open("%s/u%03d.c" % (root, i), "w") as f:
        f.write('#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include "common.h"\n')
        for j in range(12):
            f.write("""
struct s%d_%d { int a[16]; double d; char name[32]; };
static int cmp%d_%d(const void *x, const void *y) { return *(const int *)x - *(const int *)y; }
int fn%d_%d(int n)
{
	struct s%d_%d s = { 0 };
	int v[64];
	for (int k = 0; k < 64; k++)
		v[k] = (k * %d + n) %% 101;
	qsort(v, 64, sizeof(int), cmp%d_%d);
	for (int k = 0; k < 16; k++)
		s.a[k] = v[k * 4] + common_mix(k, n);
	snprintf(s.name, sizeof(s.name), "u%d-%%d", n);
	s.d = n * 0.5;
	return s.a[n & 15] + (int)strlen(s.name) + (int)s.d;
}
""" % (i, j, i, j, i, j, i, j, j + i, i, j, i))
with open("%s/common.h" % root, "w") as f:
    f.write("static inline int common_mix(int a, int b) { return (a * 31) ^ b; }\n")
objs = " ".join("u%03d.o" % i for i in range(n))
with open("%s/main.c" % root, "w") as f:
    f.write("int main(void) { return 0; }\n")
with open("%s/Makefile" % root, "w") as f:
    f.write("CFLAGS = -O2\nOBJS = main.o %s\napp: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n" % objs)
PY

# An npm project whose tests write, read and hash files.
mkdir -p "$work/npmproj/test"
cat >"$work/npmproj/package.json" <<'EOF'
{ "name": "llwb-fixture", "version": "1.0.0", "private": true,
  "scripts": { "test": "node --test test/" } }
EOF
for i in 1 2 3 4 5 6; do
	cat >"$work/npmproj/test/t$i.test.js" <<EOF
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
test('files and hashes $i', () => {
	const d = fs.mkdtempSync(path.join(__dirname, '..', 'tmp-'));
	for (let k = 0; k < 200; k++)
		fs.writeFileSync(path.join(d, 'f' + k), crypto.randomBytes(256));
	let h = crypto.createHash('sha256');
	for (const f of fs.readdirSync(d)) h.update(fs.readFileSync(path.join(d, f)));
	assert.strictEqual(h.digest('hex').length, 64);
	fs.rmSync(d, { recursive: true });
});
EOF
done

# A git repository of 2,000 files.
mkdir -p "$work/tree"
python3 - "$work/tree" 2000 <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "src", "m%03d" % (i // 100))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%05d.c" % i), "w") as f:
        f.write("int f%d(int x) { return x * %d; }\n" % (i, i % 97))
PY
(cd "$work/tree" && git init -q && git config gc.auto 0 && git add -A &&
	git -c user.name=bench -c user.email=bench@invalid commit -qm tree && git gc -q) ||
	{ echo "bench/agent.sh: cannot build the git fixture"; exit 1; }

[ -n "$as" ] && chown -R nobody: "$work/home" "$work/start" "$work/cproj" "$work/npmproj" "$work/tree"
chmod -R a+rX "$work"

res=$work/results.tsv
: >"$res"
# run WORKLOAD N WARMUP ARGV...: nosup, sup (and BASE's sup), bare.
run() {
	local wl=$1 n=$2 warm=$3 names=(nosup sup bare) args i=0
	shift 3
	args=("$LLWRAP" -p "$work/nosup.ini" --allow-host none -- "$@" ::: "$LLWRAP" -p opencode -- "$@" ::: "$@")
	if [ -n "${BASE:-}" ]; then
		args+=(::: "$BASE" -p opencode -- "$@")
		names+=(base)
	fi
	if [ -n "${floor:-}" ]; then
		# shellcheck disable=SC2206
		args+=(::: "$work/floor" $floor -- "$@")
		names+=(floor)
	fi
	# Every command must succeed before it is timed.
	if ! AB_WARMUP=0 $as "$work/ab" 1 "${args[@]}" >/dev/null 2>"$work/err"; then
		echo "bench/agent.sh: $wl failed: $(cat "$work/err")" >&2
		return
	fi
	echo "bench/agent.sh: $wl, $n rounds" >&2
	AB_CPU=1 AB_WARMUP=$warm $as "$work/ab" "$n" "${args[@]}" >"$work/ab.out" || return
	while read -r med p10 diff p90 cpu cdiff _; do
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$wl" "${names[$i]}" "$med" "$p10" "$diff" "$p90" "$cpu" "$cdiff" >>"$res"
		i=$((i + 1))
	done <"$work/ab.out"
}

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
cd "$work/start" || exit 1
# The kernel floor of -p opencode's start-up (bench/floor.c): its
# namespaces, mounts, Landlock rules, seccomp programs and the
# supervisor's listener, and none of llwrap's own work.
floor=
if cc -O2 -static -I"$top/lib" -I"$top/src" -I"$build/src" -o "$work/floor" \
	"$here/floor.c" "$build/src/filter-programs.c" 2>/dev/null; then
	floor=$(floor_args opencode ns)
fi
run "/bin/true (start-up)" "${ROUNDS:-200}" 20 /bin/true
floor=
cd "$work/tree" && run "git status (2,000 files)" "${ROUNDS:-200}" 5 "$(command -v git)" status --porcelain
cd "$work/cproj" && run "make -j$(nproc) ($cfiles C files, clean build)" "${BUILD_ROUNDS:-6}" 1 \
	"$(command -v make)" -s -B -j"$(nproc)"
if command -v npm >/dev/null; then
	cd "$work/npmproj" && run "npm test (node --test, 6 files)" "${NPM_ROUNDS:-10}" 1 "$(command -v npm)" test --silent
fi
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# Peak RSS and PSS of the supervisor (the llwrap process outside the
# sandbox) and of pid 1, sampled while the command sleeps.
cd "$work/start"
$as "$LLWRAP" -p opencode -- /bin/sleep 2 &
sup=$! # setpriv execs llwrap: the same process
sleep 1
mem=
for p in $sup $(pgrep -P "$sup" -x llwrap); do
	mem="$mem $(awk '/^VmHWM/ { h = $2 } /^VmRSS/ { r = $2 } END { printf "%s/%s", h, r }' "/proc/$p/status")/$(awk '/^Pss:/ { print $2 }' "/proc/$p/smaps_rollup")"
done
wait

cat <<EOF
### The supervisor's cost to -p opencode (bench/agent.sh)

$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs, kernel $(uname -r); $(date -u '+%Y-%m-%d %H:%M UTC'); load average $load_start at the start, $load_end at the end; sandboxes run as $(if [ -n "$as" ]; then echo nobody; else id -un; fi); llwrap $(git -C "$top" describe --always --dirty 2>/dev/null).

Medians of interleaved rounds (p10 .. p90); "paired" is the median of each
round's difference from the run without the supervisor.  Wall time, then
CPU time (user and system, of llwrap and every process it waited for):
on a machine other work keeps busy, wall time also measures the others.

| wall time | no sandbox | -p opencode, supervise = no, --allow-host none | -p opencode (supervisor) | supervisor vs without: paired | ratio |$([ -n "${BASE:-}" ] && echo " BASE -p opencode |")
|---|---:|---:|---:|---:|---:|$([ -n "${BASE:-}" ] && echo "---:|")
EOF
table() { # table wall|cpu
	awk -F'\t' -v base="${BASE:-}" -v what="$1" '
	function ms(x) { return x >= 100000 ? sprintf("%.0f", x / 1000) : sprintf("%.2f", x / 1000) }
	{
		if (what == "cpu") { $3 = $7; $5 = $8 }
		m[$1, $2] = $3; lo[$1, $2] = $4; d[$1, $2] = $5; hi[$1, $2] = $6
		if (!($1 in ord)) { ord[$1] = ++n; name[n] = $1 }
	}
	END {
		for (i = 1; i <= n; i++) {
			k = name[i]
			cell = base != "" ? sprintf(" %s ms |", ms(m[k, "base"])) : ""
			if (what == "cpu")
				printf "| %s | %s ms | %s ms | %s ms | %+.2f ms | %.3f |%s\n", k,
				    ms(m[k, "bare"]), ms(m[k, "nosup"]), ms(m[k, "sup"]),
				    d[k, "sup"] / 1000, m[k, "sup"] / m[k, "nosup"], cell
			else
				printf "| %s | %s ms (%s .. %s) | %s ms (%s .. %s) | %s ms (%s .. %s) | %+.2f ms | %.3f |%s\n", k,
				    ms(m[k, "bare"]), ms(lo[k, "bare"]), ms(hi[k, "bare"]),
				    ms(m[k, "nosup"]), ms(lo[k, "nosup"]), ms(hi[k, "nosup"]),
				    ms(m[k, "sup"]), ms(lo[k, "sup"]), ms(hi[k, "sup"]),
				    d[k, "sup"] / 1000, m[k, "sup"] / m[k, "nosup"], cell
		}
	}' "$res"
}
table wall
echo
echo "| CPU time | no sandbox | -p opencode, supervise = no, --allow-host none | -p opencode (supervisor) | supervisor vs without: paired | ratio |$([ -n "${BASE:-}" ] && echo " BASE -p opencode |")"
echo "|---|---:|---:|---:|---:|---:|$([ -n "${BASE:-}" ] && echo "---:|")"
table cpu
awk -F'\t' '$2 == "floor" { f = $3 } $2 == "sup" && $1 ~ /start-up/ { a = $3 }
	END { if (f != "" && a != "") printf "\nKernel floor of -p opencode'"'"'s start-up (bench/floor.c --ns --devpts --notify, its mounts and rules): %.2f ms; -p opencode is %+.2f ms over it.\n", f / 1000, (a - f) / 1000 }' "$res"
echo
echo "Memory of llwrap's own processes under -p opencode (VmHWM/VmRSS/Pss, KiB; the supervisor first, then pid 1):$mem."
