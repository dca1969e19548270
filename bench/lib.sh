# bench/lib.sh: shared by the benchmark scripts (sourced, not run, after
# they set here to bench/).

# The source tree, the build directory ($1, default the source tree) and
# its llwrap, which must be built; the shipped profiles are the profile
# path.  A bench of the network fixture runs itself again inside its
# namespaces as `BENCH --inner WORK BUILD-DIR` (net_bench): there $inner
# is WORK (empty otherwise) and the build directory the third argument.
top=$(cd "$here/.." && pwd)
inner=
if [ "${1:-}" = --inner ]; then
	inner=$2
	build=$(cd "$3" && pwd)
else
	build=$(cd "${1:-$top}" && pwd)
fi
LLWRAP=$build/llwrap
export LLWRAP_PROFILE_PATH=$top/conf
[ -x "$LLWRAP" ] || { echo "no $LLWRAP: build first"; exit 1; }

# The prefix the sandboxed commands run under: as nobody when this runs
# as root (llwrap's users are not root, and root's policy has more
# rules), as the caller otherwise.
as=
if [ "$(id -u)" -eq 0 ]; then
	as="setpriv --reuid=$(id -u nobody) --regid=$(id -g nobody) --clear-groups --"
fi

# bench_home: $work, a directory under bench/ removed at exit (kept with
# BENCH_KEEP=1), and $HOME, a fake home in it, with the XDG variables
# unset.  Profiles are configuration llwrap reads: they must not lie in a
# tree the profiles make writable (see startup.sh), hence bench/.
bench_home() {
	work=$(mktemp -d "$here/run.XXXXXX") || exit 1
	chmod 755 "$work"
	# Not the checkout's work tree as the project (see bench/run).
	GIT_CEILING_DIRECTORIES=$work
	export GIT_CEILING_DIRECTORIES
	trap 'if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi' EXIT
	trap 'exit 130' INT TERM
	export HOME="$work/home"
	unset XDG_CONFIG_HOME XDG_DATA_HOME XDG_STATE_HOME XDG_CACHE_HOME
	mkdir -p "$HOME"
}

# rules_profile FILE TREE N: write FILE, a profile of N ro rules on
# existing directories TREE/d0 ... d(N-1), on top of default.
rules_profile() {
	awk -v t="$2" -v n="$3" 'BEGIN { for (i = 0; i < n; i++) print t "/d" i }' >"$1.dirs"
	xargs mkdir -p <"$1.dirs"
	{
		echo "[profile]"
		echo "include = default"
		echo "[filesystem]"
		sed 's/^/ro = /' "$1.dirs"
	} >"$1"
	rm -f "$1.dirs"
}

# thousand_rules DIR: write DIR/thousand.ini, a profile of 1,000 ro rules
# on existing directories DIR/tree/d0 ... d999, on top of default.
thousand_rules() {
	rules_profile "$1/thousand.ini" "$1/tree" 1000
}

# md_table FILE HEADER ROW: prints, as a Markdown table, FILE's lines
# "NAME KEY VALUE", a row a NAME in the order they first come: HEADER,
# the table's first line, then its separator line, then for each NAME
# awk's printf of ROW (its format and arguments, awk text), in which r
# is the NAME and v[NAME, KEY] each VALUE.
md_table() {
	awk -v head="$2" '
{ v[$1, $2] = $3; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
END {
	print head
	for (c = gsub(/\|/, "|", head) - 1; c > 0; c--)
		printf "|---"
	print "|"
	for (i = 1; i <= n; i++) {
		r = order[i]
		printf '"$3"'
	}
}' "$1"
}

# nosup_profile FILE: write FILE, a profile of -p opencode with the
# supervisor turned off (supervise = no).  Run it with --allow-host none:
# allow-host alone keeps the supervisor.
nosup_profile() {
	cat >"$1" <<'EOF'
[profile]
include = opencode
[network]
supervise = no
EOF
}

# floor_args PROFILE ns|plain: the arguments of bench/floor.c for a run of
# PROFILE in the current directory, as $as (the user the sandboxes run
# as: root's policy has more rules) would run it: the Landlock paths
# (llwrap --explain lists them) and, with ns, the mounts of L3: a clone of
# each writable root (rw or rwx), a read-only clone of each mask, and for
# the agent profiles (private-tmp, their own devpts, the supervisor) a
# tmpfs on /var/tmp and /dev/shm, a devpts instance and the notification
# filter, whose fresh instances replace those roots.
floor_args() {
	# One run first: it makes what the profile's mkdir and touch name
	# (--explain makes nothing), which the floor then opens.
	# shellcheck disable=SC2086
	$as "$LLWRAP" -p "$1" -q -- /bin/true >/dev/null 2>&1
	# shellcheck disable=SC2086
	$as "$LLWRAP" -p "$1" --explain -- /bin/true 2>/dev/null | awk -v ns="$2" '
	/^Landlock rules/ { on = 1; next }
	on && /^$/ { exit }
	on && $1 == "mask" { split($0, a, "\t"); sub(/^ *mask [a-z]+ /, "", a[1]); masks = masks " --mask " a[1]; next }
	on && $1 != "note:" && $2 ~ /^\// { split($0, a, "\t"); p = a[1]; sub(/^ *[^ ]+ +/, "", p); paths = paths " " p
		if (($1 == "rw" || $1 == "rwx") && p !~ /^(\/tmp|\/var\/tmp|\/dev\/shm|\/dev\/pts)$/) rws = rws " --rw " p }
	END { if (ns == "ns") printf "--ns --devpts --notify --tmpfs /var/tmp --tmpfs /dev/shm%s%s", rws, masks; printf "%s", paths }'
}

# net_bench NAME SETUP [pid]: the two halves of a bench on net_fixture.
# Run as the bench itself ($inner empty): makes $work, a directory
# $build/bench-NAME.XXXXXX removed at exit, runs SETUP, the bench's own
# function that fills it (net_cert, net_resolver, its files), makes it
# readable to all (the sandboxes read it), and runs the bench again as
# `$0 --inner $work $build` in user, network and mount namespaces of its
# own (with pid, a pid namespace too: every fixture process ends with
# the bench), then exits with that run's status.  Run again inside: sets
# $work to $inner and returns, for the bench to go on with net_fixture.
net_bench() {
	if [ -n "$inner" ]; then
		work=$inner
		return
	fi
	work=$(mktemp -d "$build/bench-$1.XXXXXX") || exit 1
	trap 'rm -rf "$work"' EXIT
	"$2"
	chmod -R a+rX "$work"
	if [ "${3:-}" = pid ]; then
		unshare -r -n -m -p --fork --mount-proc "$0" --inner "$work" "$build"
	else
		unshare -r -n -m "$0" --inner "$work" "$build"
	fi
	exit
}

# net_cert rsa|ec NAME [san]: $work/key.pem and $work/cert.pem, a
# self-signed certificate for NAME valid two days, of an RSA (2048) or
# P-256 key; with san, NAME also its subjectAltName (curl and Node look
# there, not at the common name).
net_cert() {
	local name=$2 san=${3:-}
	if [ "$1" = rsa ]; then
		set -- -newkey rsa:2048
	else
		set -- -newkey ec -pkeyopt ec_paramgen_curve:prime256v1
	fi
	[ "$san" = san ] && set -- "$@" -addext "subjectAltName=DNS:$name"
	openssl req -x509 "$@" -nodes -days 2 -subj "/CN=$name" \
		-keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
}

# net_resolver: the fixture resolver in $work for net_fixture to start:
# its script (tests/data/named/names.py) and $work/resolv.conf, which
# names it.
net_resolver() {
	cp "$top/tests/data/named/names.py" "$work/"
	echo "nameserver 192.0.2.53" >"$work/resolv.conf"
}

# net_fixture READY... <SERVERS: the network fixture of the benches
# that reach hosts by name (relay.sh, relay-cpu.sh, relay-trace.sh,
# relay-flow.sh, agent-tls.sh, named.sh, proxy.sh), run in $work where
# net_bench (or relay-trace.sh, which traces around its runs) made the
# bench's own namespaces (unshare -r -n -m, -p to end every fixture
# process with it): lo up, a veth pair, and behind it a network
# namespace of the servers' own, where 198.51.100.7 is routed to as an internet host is
# (192.0.2.0/30 the link; an address of one of this host's own links
# would be a local one to llwrap and srt).  There SERVERS, a shell script
# read from the standard input (kept as $work/servers.sh), runs with
# $work as $1; each READY is a file it makes under $work when it serves,
# or tcp:PORT, a port of 198.51.100.7 that accepts connections once it
# serves.  With $work/resolv.conf (net_resolver), also the fixture
# resolver ($work/names.py: api.llw.test and llm.llw.test are
# 198.51.100.7) on 192.0.2.53, which that file names for
# /etc/resolv.conf; with $work/hosts, that file is /etc/hosts.  Returns
# once all is ready; an EXIT trap ends the servers and the resolver
# ($net_fixture_pids: a bench that sets its own trap ends them).
net_fixture() {
	local f
	cat >"$work/servers.sh"
	[ -e "$work/hosts" ] && mount --bind "$work/hosts" /etc/hosts
	ip link set lo up
	ip link add v0 type veth peer name v1
	unshare -n sh -c 'ip link set lo up
		while ! ip link show v1 >/dev/null 2>&1; do sleep 0.05; done
		ip addr add 192.0.2.2/30 dev v1 && ip addr add 198.51.100.7/32 dev v1 &&
		ip link set v1 up && ip route add default via 192.0.2.1 &&
		exec sh "$1" "$2"' sh "$work/servers.sh" "$work" &
	net_fixture_pids=$!
	sleep 0.2
	ip link set v1 netns "$net_fixture_pids"
	ip addr add 192.0.2.1/30 dev v0
	ip link set v0 up
	ip route add 198.51.100.0/24 via 192.0.2.2
	if [ -e "$work/resolv.conf" ]; then
		mount --bind "$work/resolv.conf" /etc/resolv.conf
		ip addr add 192.0.2.53/32 dev lo
		python3 "$work/names.py" 192.0.2.53 /dev/null "$work/ready.dns" >/dev/null 2>&1 &
		net_fixture_pids="$net_fixture_pids $!"
		set -- "$@" ready.dns
	fi
	# shellcheck disable=SC2064
	trap "kill $net_fixture_pids 2>/dev/null" EXIT
	for f in "$@"; do
		case $f in
		tcp:*)
			# Bash's /dev/tcp: the benches that wait so are bash.
			# shellcheck disable=SC3025
			while ! (exec 3<>"/dev/tcp/198.51.100.7/${f#tcp:}") 2>/dev/null; do
				sleep 0.05
			done
			;;
		*) while [ ! -e "$work/$f" ]; do sleep 0.05; done ;;
		esac
	done
}
