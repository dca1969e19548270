#!/bin/sh
# The kernel matrix (DESIGN.md §14): boot real Debian kernels under qemu
# with a minimal Debian rootfs, run llwrap --check, the case table
# (cases.sh) and --selftest of the shipped profiles as an unprivileged
# user, then integration suites of make check and the escape corpus
# (suite.sh: their sandboxed commands run as nobody), and compare every
# result with tests/kernels/expected.  A difference fails (exit 1); a
# configuration
# whose kernel cannot be had is not run (exit 2, as for a setup
# failure).
#
#	tests/kernels/run.sh [--quick] [--suites LIST] [--list] [CONFIG...]
#
# --suites LIST: the integration suites to run in each VM, separated by
# commas (tests/integration/NAME.sh; "escape" is tests/escape/run.sh), or
# "none"; default: those that need nothing the rootfs lacks, and the
# escape corpus (LLW_KERNELS_SUITES overrides it too).
#
# Run as root from a built tree (./configure && make; the build
# directory is LLW_BUILDDIR, default the source tree).  Everything
# downloaded or built is cached in one directory, LLW_KERNELS_CACHE
# (default tests/kernels/cache, ignored by git): the debootstrap rootfs,
# the kernel packages (apt-get download from the configured apt sources;
# unstable's from the mirror), their vmlinuz and initrd, disk images and
# the serial logs.
# Needs debootstrap, qemu-system-x86, e2fsprogs, curl and xz-utils.
#
# --quick: only the configuration "bpo612" (a kernel that changes only
# with Debian 12's point releases, unlike unstable's), without the
# --selftest cases and with four suites and the escape corpus (one
# boot).  qemu runs with TCG unless LLW_KERNELS_ACCEL=kvm: the /dev/kvm
# of the machines this was written on cannot boot stock kernels.
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${LLW_BUILDDIR:-$src}
cache=${LLW_KERNELS_CACHE:-$here/cache}
mirror=${LLW_KERNELS_MIRROR:-http://deb.debian.org/debian}
suite=${LLW_KERNELS_SUITE:-bookworm}
unstable=${LLW_KERNELS_UNSTABLE:-sid}
accel=${LLW_KERNELS_ACCEL:-tcg}
# A VM's time limit: every suite and the escape corpus in one emulated
# CPU took over an hour on a loaded 2-core host (2026-11-27).
timeout_s=${LLW_KERNELS_TIMEOUT:-7200}

# The configurations: NAME KERNEL CMDLINE SYSCTLS ("-" for none).
# KERNEL selects a kernel package (the generic amd64 flavour, not rt or
# cloud): deb12 (the newest 6.1 of the configured apt sources, Debian
# 12's own), bpo612 (their newest 6.12: bookworm-backports, or
# bookworm's own linux-image-6.12.*+deb12), newest (the newest Debian
# kernel there is: Debian unstable's, LLW_KERNELS_UNSTABLE on the
# mirror, which no bookworm apt source has).  The variants boot 6.12.
configs() {
	cat <<'EOF'
deb12             deb12   -  -
bpo612            bpo612  -  -
newest            newest  -  -
nolandlock        bpo612  lsm=lockdown,yama,apparmor  -
userns-off        bpo612  -  user.max_user_namespaces=0,kernel.unprivileged_userns_clone=0
yama2             bpo612  -  kernel.yama.ptrace_scope=2
yama3             bpo612  -  kernel.yama.ptrace_scope=3
deb12-nolandlock  deb12   lsm=lockdown,yama,apparmor  -
deb12-userns-off  deb12   -  user.max_user_namespaces=0,kernel.unprivileged_userns_clone=0
deb12-yama2       deb12   -  kernel.yama.ptrace_scope=2
deb12-yama3       deb12   -  kernel.yama.ptrace_scope=3
EOF
}

# The suites that need nothing the rootfs lacks (no npm, cmake, node,
# ssh, man or AppArmor): every layer, the supervisor (and the network
# below and beside it, hostnet), named hosts and the proxy, the
# bubblewrap fallback, the simulated older kernels; and the escape
# corpus.
suites=${LLW_KERNELS_SUITES:-cli,profiles,filesystem,namespaces,network,supervisor,hostnet,dns,named,proxy,seccomp,process,why,log,footer,git,hostside,hostmask,persistence,watch,backend-bwrap,oldkernel,selftest,escape}
quick_suites=filesystem,network,supervisor,hostnet,process,escape
suites_set=0
quick=0
list=0
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--list) list=1 ;;
	--suites)
		[ $# -ge 2 ] || { echo "run.sh: --suites needs a list" >&2; exit 2; }
		suites=$2
		suites_set=1
		shift
		;;
	-h | --help)
		sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'
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
wanted="$*"
[ $quick -eq 1 ] && [ -z "$wanted" ] && wanted=bpo612
[ $quick -eq 1 ] && [ $suites_set -eq 0 ] && suites=$quick_suites
[ "$suites" = none ] && suites=
[ -z "$wanted" ] && wanted=$(configs | awk '{print $1}')
if [ $list -eq 1 ]; then
	configs
	exit 0
fi

die() {
	echo "run.sh: $*" >&2
	exit 2
}
[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, chroot)"
for t in debootstrap qemu-system-x86_64 mkfs.ext4 apt-get chroot curl xz dpkg-deb; do
	command -v $t >/dev/null 2>&1 || die "$t is missing (apt-get install debootstrap qemu-system-x86 e2fsprogs curl xz-utils)"
done
for f in llwrap llwrap-escape tests/helpers/probe tests/helpers/netprobe \
	tests/helpers/llwrap-hooked; do
	[ -x "$build/$f" ] || die "$build/$f is missing: build first (make && make check TESTS=)"
done
mkdir -p "$cache/debs" "$cache/kernels" "$cache/logs"

# ---- The rootfs: minbase with what the cases use, and the user llw.
rootfs=$cache/rootfs
if [ ! -e "$rootfs/.llw-ready" ]; then
	echo "# debootstrap $suite into $rootfs"
	rm -rf "$rootfs"
	debootstrap --variant=minbase \
		--include=bubblewrap,git,iproute2,procps,kmod,initramfs-tools,udev,util-linux,python3,curl,openssl \
		"$suite" "$rootfs" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
		die "debootstrap failed: $cache/debootstrap.log"
	chroot "$rootfs" useradd -m -u 1000 llw || die "useradd failed"
	# MODULES=most: virtio_blk and ext4 for root=/dev/vda.
	touch "$rootfs/.llw-ready"
fi
# in_rootfs CMD...: CMD chrooted into the rootfs, with the host's /proc.
in_rootfs() {
	mount --bind /proc "$rootfs/proc"
	chroot "$rootfs" "$@"
	st=$?
	umount "$rootfs/proc"
	return $st
}

# The suites' test servers are python3, and named.sh's fixtures need
# curl and openssl (a rootfs made before they ran there lacks them).
need=
for t in python3 curl openssl; do
	[ -x "$rootfs/usr/bin/$t" ] || need="$need $t"
done
if [ -n "$suites" ] && [ -n "$need" ]; then
	echo "# installing$need into $rootfs"
	cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
	in_rootfs sh -c "apt-get update &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y \
		--no-install-recommends$need" >"$cache/packages.log" 2>&1 || die "installing$need failed: $cache/packages.log"
fi

# Fixtures bind-mount their own /etc/hosts over it: minbase has none.
[ -e "$rootfs/etc/hosts" ] || printf '127.0.0.1 localhost\n' >"$rootfs/etc/hosts"

# ---- Kernels: resolve a selector to a package (of the configured apt
# sources, or unstable's), download it, install it in the rootfs (its
# initrd), and keep vmlinuz and initrd.  Prints the kernel release, or
# nothing when there is none.
image_pat='^linux-image-[0-9]+\.[0-9]+\.[0-9]+(\+[a-z0-9.~]+)?(-[0-9]+)?-amd64$'
resolve() {
	case $1 in
	deb12) pat='^linux-image-6\.1\.[0-9]+-[0-9]+-amd64$' ;;
	bpo612) pat='^linux-image-6\.12\.[0-9]+(\+[a-z0-9.~]+)?(-[0-9]+)?-amd64$' ;;
	newest)
		unstable_index &&
			sed -n 's/^Package: //p' "$index" | grep -E "$image_pat" | sort -V | tail -1
		return 0
		;;
	esac
	apt-cache pkgnames linux-image- 2>/dev/null | grep -E "$pat" | sort -V | tail -1
}

# Debian unstable's package index, fetched again once a day.
index=$cache/Packages-$unstable
unstable_index() {
	if [ ! -s "$index" ] || [ -n "$(find "$index" -mmin +1440 2>/dev/null)" ]; then
		if curl -fsS --max-time 300 "$mirror/dists/$unstable/main/binary-amd64/Packages.xz" |
			xz -dc >"$index.tmp" 2>/dev/null && [ -s "$index.tmp" ]; then
			mv "$index.tmp" "$index"
		else
			rm -f "$index.tmp"
			echo "run.sh: cannot fetch $mirror/dists/$unstable's package index" >&2
		fi
	fi
	[ -s "$index" ]
}

# field PKG NAME: a field of PKG in unstable's index.
field() {
	awk -v p="$1" -v f="$2:" '$1 == "Package:" { cur = ($2 == p) }
		cur && $1 == f { sub(/^[^ ]+ /, ""); print; exit }' "$index"
}

# unstable_kernel PKG REL: download PKG and the packages of its release it
# depends on (since 7.x the image is split: linux-binary-REL holds
# vmlinuz, linux-modules-REL the modules), each checked against the
# index's SHA256, and unpack /boot and the modules into the rootfs; its
# dependencies are unstable's, so dpkg does not install it there.
unstable_kernel() {
	stage=$cache/stage-$2
	rm -rf "$stage"
	mkdir -p "$stage"
	for p in $1 $(field "$1" Depends | tr ',|' '\n\n' | sed 's/(.*//; s/ //g' |
		grep -E -- "^linux-[a-z]+-$(printf '%s' "$2" | sed 's/[.+]/\\&/g')\$"); do
		f=$(field "$p" Filename)
		sum=$(field "$p" SHA256)
		[ -n "$f" ] && [ -n "$sum" ] || { echo "run.sh: $p is not in $index" >&2; return 1; }
		deb=$cache/debs/${f##*/}
		if ! echo "$sum  $deb" | sha256sum -c --status 2>/dev/null; then
			curl -fsS --max-time 1800 -o "$deb" "$mirror/$f" ||
				{ echo "run.sh: downloading $mirror/$f failed" >&2; return 1; }
			echo "$sum  $deb" | sha256sum -c --status ||
				{ echo "run.sh: $deb does not match the index's SHA256" >&2; return 1; }
		fi
		dpkg-deb -x "$deb" "$stage" || return 1
	done
	mods=$stage/usr/lib/modules/$2
	[ -d "$mods" ] || mods=$stage/lib/modules/$2
	[ -d "$mods" ] || { echo "run.sh: no modules for $2 in $1" >&2; return 1; }
	# vmlinuz: in the modules' directory since 7.x, in /boot before.
	vmlinuz=$mods/vmlinuz
	[ -e "$vmlinuz" ] || vmlinuz=$stage/boot/vmlinuz-$2
	[ -e "$vmlinuz" ] || { echo "run.sh: no vmlinuz for $2 in $1" >&2; return 1; }
	# The previous unstable kernel goes: the rootfs must fit its 2 GB
	# disk as unstable moves on.
	prev=$(cat "$cache/unstable-release" 2>/dev/null)
	if [ -n "$prev" ] && [ "$prev" != "$2" ]; then
		rm -rf "$rootfs/usr/lib/modules/$prev" "$cache/kernels/$prev"
		rm -f "$cache/debs/"*"-${prev}_"*.deb
		rm -f "$rootfs/boot/vmlinuz-$prev" "$rootfs/boot/config-$prev" \
			"$rootfs/boot/initrd.img-$prev"
	fi
	cp "$vmlinuz" "$rootfs/boot/vmlinuz-$2"
	# mkinitramfs reads the kernel's config for its compressors.
	[ -e "$mods/config" ] && cp "$mods/config" "$rootfs/boot/config-$2"
	rm -rf "$rootfs/usr/lib/modules/$2"
	cp -a "$mods" "$rootfs/usr/lib/modules/"
	rm -rf "$stage"
	in_rootfs sh -c "depmod $2 && mkinitramfs -o /boot/initrd.img-$2 $2" || return 1
	echo "$2" >"$cache/unstable-release"
}

# apt_kernel PKG: download PKG from the configured apt sources and
# install it in the rootfs (dpkg builds its initrd).
apt_kernel() {
	(cd "$cache/debs" && apt-get download "$1") || return 1
	cp "$(ls "$cache/debs/${1}_"*.deb | tail -1)" "$rootfs/tmp/k.deb"
	in_rootfs dpkg -i /tmp/k.deb
	st=$?
	rm -f "$rootfs/tmp/k.deb"
	return $st
}

kernel_for() {
	pkg=$(resolve "$1")
	[ -n "$pkg" ] || return 0
	rel=${pkg#linux-image-}
	if [ ! -e "$cache/kernels/$rel/initrd" ]; then
		log=$cache/logs/kernel-$rel.log
		if [ "$1" = newest ]; then
			echo "# kernel $pkg ($unstable)" >&2
			unstable_kernel "$pkg" "$rel" >"$log" 2>&1
		else
			echo "# kernel $pkg" >&2
			apt_kernel "$pkg" >"$log" 2>&1
		fi || { echo "run.sh: installing $pkg failed: $log" >&2; return 0; }
		mkdir -p "$cache/kernels/$rel"
		cp "$rootfs/boot/vmlinuz-$rel" "$cache/kernels/$rel/vmlinuz"
		cp "$rootfs/boot/initrd.img-$rel" "$cache/kernels/$rel/initrd"
	fi
	echo "$rel"
}

# ---- The disk: the rootfs plus llwrap, its corpus, the probe, the
# shipped profiles and the VM scripts, in a fresh ext4 image per boot.
make_disk() {
	rm -rf "$rootfs/llw"
	mkdir -p "$rootfs/llw/bin" "$rootfs/llw/profiles"
	cp "$build/llwrap" "$build/llwrap-escape" "$build/tests/helpers/probe" "$rootfs/llw/bin/"
	cp "$src"/conf/*.ini "$rootfs/llw/profiles/"
	cp "$here/init.sh" "$here/cases.sh" "$here/suite.sh" "$rootfs/llw/"
	# The suites' tree: what make check gives them (AM_TESTS_ENVIRONMENT).
	t=$rootfs/llw/tree
	mkdir -p "$t/tests/lib" "$t/tests/integration" "$t/tests/helpers" \
		"$t/tests/escape"
	cp "$build/llwrap" "$build/llwrap-escape" "$t/"
	cp "$build/tests/helpers/probe" "$build/tests/helpers/netprobe" \
		"$build/tests/helpers/llwrap-hooked" "$t/tests/helpers/"
	cp "$src/tests/lib/libtest.sh" "$t/tests/lib/"
	cp "$src"/tests/integration/*.sh "$src"/tests/integration/*.py \
		"$t/tests/integration/" 2>/dev/null
	cp "$src/tests/escape/run.sh" "$src/tests/escape/table-to-md.sh" \
		"$t/tests/escape/"
	cp -R "$src/tests/data" "$t/tests/data"
	cp -R "$src/conf" "$t/conf"
	# apparmor.sh reads the generated profile and configure's bindir.
	mkdir -p "$t/contrib/apparmor"
	cp "$build/contrib/apparmor/llwrap" "$t/contrib/apparmor/"
	grep -E '^(prefix|exec_prefix|bindir) = ' "$build/Makefile" >"$t/Makefile"
	chmod -R a+rX "$rootfs/llw"
	chmod 755 "$rootfs/llw" "$rootfs/llw/bin" "$rootfs/llw/profiles" "$rootfs/llw/init.sh"
	rm -f "$1"
	mkfs.ext4 -q -F -L llwroot -d "$rootfs" "$1" 2G >/dev/null 2>&1
}

boot() { # NAME RELEASE CMDLINE SYSCTLS
	disk=$cache/disk-$1.img
	make_disk "$disk" || return 1
	append="console=ttyS0 root=/dev/vda rw init=/llw/init.sh panic=-1"
	[ "$3" != - ] && append="$append $3"
	[ "$4" != - ] && append="$append llw.sysctl=$4"
	[ $quick -eq 1 ] && append="$append llw.quick=1"
	[ -n "$suites" ] && append="$append llw.suites=$suites"
	timeout "$timeout_s" qemu-system-x86_64 -accel "$accel" -m 1024 -smp 1 \
		-display none -no-reboot -serial "file:$cache/logs/$1.log" \
		-kernel "$cache/kernels/$2/vmlinuz" -initrd "$cache/kernels/$2/initrd" \
		-append "$append" \
		-drive "file=$disk,format=raw,if=virtio" >"$cache/logs/$1.qemu" 2>&1
	rm -f "$disk"
}

# ---- Run and compare.
expected=$here/expected
table=$cache/results.tsv
: >"$table"
rm -f "$cache/failed" # an interrupted run's
fail=0
notrun=0
for name in $wanted; do
	line=$(configs | awk -v n="$name" '$1 == n')
	[ -n "$line" ] || die "unknown configuration $name (--list)"
	set -- $line
	rel=$(kernel_for "$2")
	if [ -z "$rel" ]; then
		echo "# $name: not run: no $2 kernel (see above)"
		printf '%s\t-\t(not run)\tno %s kernel\n' "$name" "$2" >>"$table"
		notrun=1
		continue
	fi
	echo "# $name: booting $rel ($accel)"
	start=$(date +%s)
	boot "$name" "$rel" "$3" "$4"
	secs=$(($(date +%s) - start))
	log=$cache/logs/$name.log
	if ! grep -q '^LLWDONE' "$log" 2>/dev/null; then
		echo "not ok $name: the VM did not finish ($secs s; $log)"
		printf '%s\t%s\t(boot)\tdid not finish\n' "$name" "$rel" >>"$table"
		fail=1
		continue
	fi
	abi=$(tr -d '\r' <"$log" | sed -n 's/^LLWABI //p' | head -1)
	echo "# $name: $rel, Landlock ABI ${abi:-?}, $secs s"
	tr -d '\r' <"$log" | sed -n 's/^LLWCASE //p' | while read -r case got; do
		want=$(awk -v c="$name@$abi" -v k="$case" '$1 == c && $2 == k {print $3}' "$expected")
		[ -n "$want" ] ||
			want=$(awk -v c="$name" -v k="$case" '$1 == c && $2 == k {print $3}' "$expected")
		[ -n "$want" ] ||
			want=$(awk -v k="$case" '$1 == "*" && $2 == k {print $3}' "$expected")
		[ $quick -eq 1 ] && [ -z "$want" ] && continue
		if [ "$got" = "$want" ]; then
			echo "ok $name $case: $got"
			printf '%s\t%s\t%s\t%s\n' "$name" "$rel ABI ${abi:-?}" "$case" "$got" >>"$table"
		else
			echo "not ok $name $case: got $got, expected ${want:-nothing written down}"
			printf '%s\t%s\t%s\t%s (expected %s)\n' "$name" "$rel ABI ${abi:-?}" "$case" "$got" "${want:-?}" >>"$table"
			echo fail >>"$cache/failed"
		fi
	done
done
[ -e "$cache/failed" ] && fail=1 && rm -f "$cache/failed"
echo "# table: $table"

# The configuration x case table, as markdown, for RESULTS.md.
md=$cache/results.md
{
	echo "### $(date -u '+%Y-%m-%d %H:%M UTC')$([ $quick -eq 1 ] && echo ', --quick')"
	echo
	cases=$(cut -f3 "$table" | grep -v '^(' | awk '!seen[$0]++')
	printf '| configuration | kernel |'
	for c in $cases; do printf ' %s |' "$c"; done
	echo
	printf '|---|---|'
	for c in $cases; do printf '%s' '---|'; done
	echo
	for n in $(cut -f1 "$table" | awk '!seen[$0]++'); do
		k=$(awk -F'\t' -v n="$n" '$1 == n {print $2; exit}' "$table")
		printf '| %s | %s |' "$n" "$k"
		if awk -F'\t' -v n="$n" '$1 == n && $3 ~ /^\(/ {f=1} END {exit !f}' "$table"; then
			awk -F'\t' -v n="$n" '$1 == n {printf " %s %s |", $3, $4; exit}' "$table"
			echo
			continue
		fi
		for c in $cases; do
			v=$(awk -F'\t' -v n="$n" -v c="$c" '$1 == n && $3 == c {print $4}' "$table")
			printf ' %s |' "${v:--}"
		done
		echo
	done
} >"$md"
echo "# markdown: $md"
# A configuration that could not boot is a setup failure (exit 2), unless
# another one failed.
[ $fail -eq 0 ] && [ $notrun -eq 1 ] && exit 2
exit $fail
