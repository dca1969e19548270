#!/bin/sh
# The container matrix (DESIGN.md §14, "Containers"): build a Debian 12
# image offline (debootstrap from the Debian mirror, then docker import:
# no registry is needed), install this build of llwrap and the host's
# opencode in it (npm install -g opencode-ai; without it the agent case
# is skipped), run the case table (cases.sh) in each container
# configuration as the container's non-root user, and compare every
# result with tests/containers/expected.  A difference fails (exit 1); a
# configuration whose runtime cannot be had is not run (exit 2, as for a
# setup failure).
#
#	tests/containers/run.sh [--quick] [--list] [CONFIG...]
#	tests/containers/run.sh --bench
#
# Run as root from a built tree (./configure && make; the build
# directory is LLW_BUILDDIR, default the source tree): llwrap is
# installed into the image with make install DESTDIR.  The debootstrap
# rootfs is cached in LLW_CONTAINERS_CACHE (default
# tests/containers/cache, ignored by git), with the logs and the last
# results.  Needs debootstrap, docker.io, containerd (ctr), podman and
# uidmap (Debian's; apt-get install them); a daemon that is not running
# (containerd, dockerd) is started and left running.
#
# --quick: only "docker-default", without the --selftest cases (CI:
# LLW_CI_CONTAINERS=1 .ci/run); the agent case stays (about 20 s).
# --bench: no cases; the start-up cost of llwrap -p default and -p
# opencode -- /bin/true in docker-default against the host, same run
# (not a test: a markdown table in the cache's bench.md).
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${LLW_BUILDDIR:-$src}
cache=${LLW_CONTAINERS_CACHE:-$here/cache}
mirror=${LLW_CONTAINERS_MIRROR:-http://deb.debian.org/debian}
suite=${LLW_CONTAINERS_SUITE:-bookworm}
image=llwrap-matrix:latest
# The host user that runs rootless podman (created when missing).
pod_user=${LLW_CONTAINERS_PODUSER:-llwpod}
timeout_s=${LLW_CONTAINERS_TIMEOUT:-1800}

# The configurations: NAME and what each is.
#   docker-default     docker run -u 1000, Docker's default seccomp
#                      profile and capabilities
#   docker-restricted  Kubernetes' "restricted" securityContext under
#                      Docker: no-new-privileges, --cap-drop ALL,
#                      --read-only with tmpfs for HOME and /tmp, uid
#                      1000, the default (RuntimeDefault) seccomp profile
#   ctr-restricted     the same under containerd's ctr run (its default
#                      profile with --seccomp, as a kubelet's
#                      RuntimeDefault)
#   podman-rootless    podman run -u 1000 as a non-root host user
#   docker-privileged  docker run --privileged -u 1000
configs() {
	cat <<'CONFIGS'
docker-default
docker-restricted
ctr-restricted
podman-rootless
docker-privileged
CONFIGS
}

quick=0
list=0
bench=0
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--bench) bench=1 ;;
	--list) list=1 ;;
	-h | --help)
		sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	-*)
		echo "run.sh: unknown option $1" >&2
		exit 2
		;;
	*) break ;;
	esac
	shift
done
if [ $list -eq 1 ]; then
	configs
	exit 0
fi
wanted="$*"
[ $quick -eq 1 ] && [ -z "$wanted" ] && wanted=docker-default
[ -z "$wanted" ] && wanted=$(configs)
for name in $wanted; do
	configs | grep -qx "$name" || { echo "run.sh: unknown configuration $name (--list)" >&2; exit 2; }
done

die() {
	echo "run.sh: $*" >&2
	exit 2
}
[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, chroot, the container runtimes)"
for t in debootstrap chroot tar; do
	command -v $t >/dev/null 2>&1 || die "$t is missing (apt-get install debootstrap)"
done
[ -x "$build/llwrap" ] || die "$build/llwrap is missing: build first (./configure && make)"
mkdir -p "$cache/logs"
# Debian's docker, never a client of another version on the PATH.
docker=/usr/bin/docker

# ---- The image: contrib/oci/mkimage.sh's (a debootstrap rootfs made
# once, this build installed under /usr/local, the host's opencode, the
# user agent, uid 1000).  Without opencode on this host the image has
# none and the agent case is skipped, said here and in its result.  The
# case table and the mock provider are mounted read-only at /llw.
withoc=
if ! command -v opencode >/dev/null 2>&1 && [ -z "${LLW_OPENCODE:-}" ]; then
	echo "# skip opencode-agent: opencode is not installed on this host (npm install -g opencode-ai)"
	withoc=--without-opencode
fi
echo "# making the image (contrib/oci/mkimage.sh${withoc:+ $withoc})"
LLW_MIRROR=$mirror LLW_BUILDDIR=$build "$src/contrib/oci/mkimage.sh" $withoc \
	--cache "$cache/oci" --import none >"$cache/logs/mkimage.log" 2>&1 ||
	die "contrib/oci/mkimage.sh failed: $cache/logs/mkimage.log"
tar=$cache/oci/image.tar
cases=$here/cases.sh
mock=$src/tests/integration/mock-llm.py
mounts="-v $cases:/llw/cases.sh:ro -v $mock:/llw/mock-llm.py:ro"
home=/home/agent

ensure_docker() {
	[ -x $docker ] || return 1
	if ! $docker info >/dev/null 2>&1; then
		pgrep -x containerd >/dev/null || {
			setsid containerd >"$cache/logs/containerd.log" 2>&1 &
			sleep 2
		}
		setsid dockerd --containerd=/run/containerd/containerd.sock \
			>"$cache/logs/dockerd.log" 2>&1 &
		i=0
		while ! $docker info >/dev/null 2>&1 && [ $i -lt 30 ]; do
			sleep 1
			i=$((i + 1))
		done
	fi
	$docker info >/dev/null 2>&1 || return 1
	[ -n "${docker_imported:-}" ] && return 0
	old=$($docker images -q "$image")
	$docker import -c 'USER 1000:1000' -c "ENV HOME=$home" \
		-c 'ENV PATH=/usr/local/bin:/usr/bin:/bin' -c "WORKDIR $home" \
		"$tar" "$image" \
		>"$cache/logs/import-docker.log" 2>&1 || return 1
	docker_imported=1
	# The previous run's image, untagged now.
	[ -z "$old" ] || [ "$old" = "$($docker images -q "$image")" ] ||
		$docker rmi "$old" >/dev/null 2>&1
	return 0
}

ensure_ctr() {
	command -v ctr >/dev/null 2>&1 && ensure_docker || return 1
	[ -n "${ctr_imported:-}" ] && return 0
	ctr -n llwrap-matrix images rm "docker.io/library/$image" >/dev/null 2>&1
	$docker save "$image" | ctr -n llwrap-matrix images import - \
		>"$cache/logs/import-ctr.log" 2>&1 || return 1
	ctr_imported=1
}

# Rootless podman as $pod_user: its own storage, no systemd (cgroupfs,
# events in a file), the image imported from the same tar.
pod_uid=
ensure_podman() {
	command -v podman >/dev/null 2>&1 && command -v newuidmap >/dev/null 2>&1 ||
		return 1
	id "$pod_user" >/dev/null 2>&1 ||
		useradd -m -s /bin/sh "$pod_user" >/dev/null 2>&1 || return 1
	grep -q "^$pod_user:" /etc/subuid ||
		usermod --add-subuids 200000-265535 --add-subgids 200000-265535 "$pod_user" || return 1
	pod_uid=$(id -u "$pod_user")
	mkdir -p "/run/user/$pod_uid"
	chown "$pod_user:" "/run/user/$pod_uid"
	chmod 700 "/run/user/$pod_uid"
	[ -n "${pod_imported:-}" ] && return 0
	as_pod podman import -c 'USER 1000:1000' -c "ENV HOME=$home" \
		-c 'ENV PATH=/usr/local/bin:/usr/bin:/bin' -c "WORKDIR $home" \
		- "$image" <"$tar" \
		>"$cache/logs/import-podman.log" 2>&1 || return 1
	pod_imported=1
	# The previous run's image, untagged now ($pod_user's storage holds
	# the matrix's images alone).
	as_pod podman image prune -f >/dev/null 2>&1
	return 0
}
as_pod() {
	(cd / && runuser -u "$pod_user" -- env -i PATH=/usr/bin:/bin \
		HOME="$(getent passwd "$pod_user" | cut -d: -f6)" \
		XDG_RUNTIME_DIR="/run/user/$pod_uid" "$@")
}
podman_flags="--cgroup-manager=cgroupfs --events-backend=file"

# The restricted securityContext's filesystem: a read-only root, HOME and
# /tmp on tmpfs (emptyDirs in a pod), executable as an emptyDir is.
restricted_docker="--security-opt no-new-privileges --cap-drop ALL --read-only
	--tmpfs /tmp:rw,exec,nosuid,nodev,mode=1777
	--tmpfs $home:rw,exec,nosuid,nodev,mode=700,uid=1000,gid=1000"

# run_cell NAME: the case table in that configuration, as the image's
# user (uid 1000); its output on stdout.
run_cell() {
	env=
	[ $quick -eq 1 ] && env="-e LLW_QUICK=1"
	case $1 in
	docker-default)
		ensure_docker || return 2
		timeout "$timeout_s" $docker run --rm $env \
			$mounts "$image" sh /llw/cases.sh
		;;
	docker-restricted)
		ensure_docker || return 2
		timeout "$timeout_s" $docker run --rm $env $restricted_docker \
			$mounts "$image" sh /llw/cases.sh
		;;
	ctr-restricted)
		# ctr 1.6 takes no "ALL" for --cap-drop: each capability of
		# its default set is dropped by name.  Its default spec has
		# no_new_privs; --seccomp adds its default profile.
		ensure_ctr || return 2
		drop=$(ctr oci spec | python3 -c 'import json, sys
print(" ".join("--cap-drop " + c for c in json.load(sys.stdin)["process"]["capabilities"]["bounding"]))') ||
			return 2
		ctr -n llwrap-matrix containers rm llwrap-cell >/dev/null 2>&1
		timeout "$timeout_s" ctr -n llwrap-matrix run --rm --seccomp $drop \
			--read-only ${env:+--env LLW_QUICK=1} \
			--mount "type=bind,src=$cases,dst=/llw/cases.sh,options=rbind:ro" \
			--mount "type=bind,src=$mock,dst=/llw/mock-llm.py,options=rbind:ro" \
			--mount type=tmpfs,src=tmpfs,dst=/tmp,options=rw:nosuid:nodev:mode=1777 \
			--mount "type=tmpfs,src=tmpfs,dst=$home,options=rw:nosuid:nodev:mode=700:uid=1000:gid=1000" \
			"docker.io/library/$image" llwrap-cell sh /llw/cases.sh
		;;
	podman-rootless)
		ensure_podman || return 2
		as_pod timeout "$timeout_s" podman $podman_flags run --rm $env \
			$mounts "$image" sh /llw/cases.sh
		;;
	docker-privileged)
		ensure_docker || return 2
		timeout "$timeout_s" $docker run --rm $env --privileged \
			$mounts "$image" sh /llw/cases.sh
		;;
	esac
}

# ---- --bench: llwrap's start-up in docker-default against the host,
# in the same run.  Each side times RUNS (default 30) runs of
# llwrap -q -p PROFILE -- /bin/true in a git project, and of bare
# /bin/true, from one Python process (time.perf_counter around
# subprocess.run: docker exec's own cost is outside the loop), as an
# unprivileged user: the container's agent (uid 1000) with the image's
# llwrap, the host's $pod_user with this build's and its conf/; the
# sides alternate for ROUNDS (default 5) rounds, which a loaded machine
# disturbs less than two long runs.  Printed: the median of the round
# medians, less bare /bin/true, in ms.  The same build on both sides
# (the image's is make install of it); what differs is the layers: the
# host runs L3 and the supervisor as usual, docker-default the
# substitutes (M, C) where its profile refuses user namespaces.
TIMER='import statistics, subprocess, sys, time
n = int(sys.argv[1])
ts = []
for i in range(n):
    t = time.perf_counter()
    r = subprocess.run(sys.argv[2:], stdin=subprocess.DEVNULL)
    ts.append(time.perf_counter() - t)
    if r.returncode != 0:
        sys.exit("bench: %s exited %d" % (" ".join(sys.argv[2:]), r.returncode))
print("%.3f" % (statistics.median(ts) * 1000))'
run_bench() {
	runs=${RUNS:-30}
	rounds=${ROUNDS:-5}
	ensure_docker || die "docker is not available"
	id "$pod_user" >/dev/null 2>&1 || useradd -m -s /bin/sh "$pod_user" ||
		die "cannot make the host user $pod_user"
	phome=$(getent passwd "$pod_user" | cut -d: -f6)
	hproj=$phome/bench-proj
	rm -rf "$hproj"
	runuser -u "$pod_user" -- git init -q "$hproj" || die "git init $hproj failed"
	ctr=llwrap-bench-$$
	$docker run -d --rm --name "$ctr" "$image" sleep 3600 >/dev/null ||
		die "cannot start the bench container"
	$docker exec "$ctr" sh -c 'mkdir -p ~/proj && git init -q ~/proj' ||
		{ $docker rm -f "$ctr" >/dev/null; die "git init in the container failed"; }
	host() {
		(cd "$hproj" && runuser -u "$pod_user" -- env -i PATH=/usr/bin:/bin \
			HOME="$phome" LANG=C.UTF-8 LLWRAP_PROFILE_PATH="$src/conf" \
			/usr/bin/python3 -c "$TIMER" "$runs" "$@")
	}
	cont() {
		$docker exec -w /home/agent/proj "$ctr" python3 -c "$TIMER" "$runs" "$@"
	}
	out=$cache/bench.tsv
	: >"$out"
	r=1
	while [ $r -le "$rounds" ]; do
		for side in host cont; do
			if [ $side = host ]; then l=$build/llwrap; else l=llwrap; fi
			t=$($side /bin/true) || break 2
			d=$($side $l -q -p default -- /bin/true) || break 2
			o=$($side $l -q -p opencode -- /bin/true) || break 2
			printf '%s\t%s\t%s\t%s\t%s\n' $side $r "$t" "$d" "$o" >>"$out"
			echo "# round $r $side: true $t ms, -p default $d ms, -p opencode $o ms"
		done
		r=$((r + 1))
	done
	$docker rm -f "$ctr" >/dev/null 2>&1
	rm -rf "$hproj"
	[ "$(wc -l <"$out")" -eq $((2 * rounds)) ] || die "a run failed (above)"
	{
		echo "### $(date -u '+%Y-%m-%d %H:%M UTC'), --bench ($rounds rounds of $runs runs, load average $(cut -d' ' -f1-3 /proc/loadavg))"
		echo
		echo "| where | \`/bin/true\` | \`-p default\` | \`-p opencode\` |"
		echo "|---|---|---|---|"
		for side in host cont; do
			awk -F'\t' -v s=$side '
			function med(a, n,   i, j, t) {
				for (i = 1; i <= n; i++)
					for (j = i + 1; j <= n; j++)
						if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
				return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
			}
			$1 == s { n++; t[n] = $3; d[n] = $4 - $3; o[n] = $5 - $3 }
			END {
				printf "| %s | %.2f ms | +%.2f ms | +%.2f ms |\n",
				    s == "host" ? "host" : "docker-default", med(t, n), med(d, n), med(o, n)
			}' "$out"
		done
	} >"$cache/bench.md"
	cat "$cache/bench.md"
}
if [ $bench -eq 1 ]; then
	run_bench
	exit 0
fi

# ---- Run and compare.
expected=$here/expected
table=$cache/results.tsv
: >"$table"
rm -f "$cache/failed"
fail=0
notrun=0
for name in $wanted; do
	log=$cache/logs/$name.log
	echo "# $name"
	start=$(date +%s)
	run_cell "$name" >"$log" 2>&1
	st=$?
	secs=$(($(date +%s) - start))
	if [ $st -eq 2 ] && ! grep -q '^LLWCASE' "$log"; then
		echo "# $name: not run: its runtime cannot be had ($log)"
		printf '%s\t(not run)\t%s\n' "$name" "runtime unavailable" >>"$table"
		notrun=1
		continue
	fi
	if ! grep -q '^LLWDONE' "$log"; then
		echo "not ok $name: the cases did not finish (status $st, $secs s; $log)"
		printf '%s\t(cases)\tdid not finish\n' "$name" >>"$table"
		fail=1
		continue
	fi
	echo "# $name: $secs s"
	sed -n 's/^LLWCASE //p' "$log" | while read -r case got; do
		want=$(awk -v c="$name" -v k="$case" '$1 == c && $2 == k {print $3}' "$expected")
		[ -n "$want" ] ||
			want=$(awk -v k="$case" '$1 == "*" && $2 == k {print $3}' "$expected")
		msg=$(sed -n "s/^LLWMSG $case //p" "$log" | head -1)
		# The agent case without opencode in the image (said above).
		if [ "$case:$got" = opencode-agent:skipped ] && [ -n "$withoc" ]; then
			echo "ok $name $case: # skip no opencode on this host"
			printf '%s\t%s\t%s\t%s\n' "$name" "$case" skipped "" >>"$table"
		elif [ "$got" = "$want" ]; then
			echo "ok $name $case: $got"
			printf '%s\t%s\t%s\t%s\n' "$name" "$case" "$got" "$msg" >>"$table"
		else
			echo "not ok $name $case: got $got, expected ${want:-nothing written down}${msg:+ ($msg)}"
			printf '%s\t%s\t%s (expected %s)\t%s\n' "$name" "$case" "$got" "${want:-?}" "$msg" >>"$table"
			echo fail >>"$cache/failed"
		fi
	done
	# Every case written down for the configuration ran (--quick
	# leaves out the selftest cases).
	for case in $(awk -v c="$name" '$1 == c || $1 == "*" {print $2}' "$expected" | sort -u); do
		[ $quick -eq 1 ] && case $case in selftest-*) continue ;; esac
		if ! grep -q "^LLWCASE $case " "$log"; then
			echo "not ok $name $case: did not run"
			printf '%s\t%s\t(did not run)\t\n' "$name" "$case" >>"$table"
			echo fail >>"$cache/failed"
		fi
	done
done
[ -e "$cache/failed" ] && fail=1 && rm -f "$cache/failed"
echo "# table: $table"

# The configuration x case table, and the refusals' causes, as markdown
# for RESULTS.md.
md=$cache/results.md
{
	echo "### $(date -u '+%Y-%m-%d %H:%M UTC')$([ $quick -eq 1 ] && echo ', --quick')"
	echo
	cases=$(awk -F'\t' '$2 !~ /^\(/ {print $2}' "$table" | awk '!seen[$0]++')
	printf '| configuration |'
	for c in $cases; do printf ' %s |' "$c"; done
	echo
	printf '|---|'
	for c in $cases; do printf '%s' '---|'; done
	echo
	for n in $(cut -f1 "$table" | awk '!seen[$0]++'); do
		printf '| %s |' "$n"
		if awk -F'\t' -v n="$n" '$1 == n && $2 ~ /^\(/ {f=1} END {exit !f}' "$table"; then
			awk -F'\t' -v n="$n" '$1 == n {printf " %s %s |", $2, $3; exit}' "$table"
			echo
			continue
		fi
		for c in $cases; do
			v=$(awk -F'\t' -v n="$n" -v c="$c" '$1 == n && $2 == c {print $3}' "$table")
			printf ' %s |' "${v:--}"
		done
		echo
	done
	echo
	echo "Refusals (exit 125), each cause once, with where it was met:"
	echo
	awk -F'\t' '$4 != "" {
		m = $4
		gsub(/pid [0-9]+/, "pid N", m)
		if (!(m in who))
			order[++n] = m
		who[m] = who[m] (who[m] == "" ? "" : ", ") $1 " " $2
	}
	END {
		for (i = 1; i <= n; i++)
			printf "- %s:\n  `%s`\n", who[order[i]], order[i]
	}' "$table"
} >"$md"
echo "# markdown: $md"
[ $fail -eq 0 ] && [ $notrun -eq 1 ] && exit 2
exit $fail
