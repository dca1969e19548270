#!/bin/sh
# mkimage.sh: the agent's OCI image without a registry: a Debian 12
# rootfs made with debootstrap from the Debian archive, Debian's
# packages, llwrap from this source tree (make install DESTDIR of a
# built tree), opencode from this host's npm install (npm install -g
# opencode-ai: its self-contained binary, no node), the user agent (uid
# 1000) working in /workspace (llwrap's project: never the home
# directory); then a tar for docker import or podman import.  The same
# image as the Containerfile beside it builds where a registry is
# reachable.
#
#	contrib/oci/mkimage.sh [--without-opencode] [--cache DIR]
#	    [--import docker|podman|none] [--tag TAG]
#
# Run as root (debootstrap, chroot) from a built tree (./configure &&
# make; LLW_BUILDDIR names another build directory).  The rootfs is made
# once and kept in the cache directory (default contrib/oci/cache,
# ignored by git), with the image's tar, image.tar, made anew each run
# from it, the build and opencode.  opencode is the binary the host's
# `opencode` runs (LLW_OPENCODE names another), installed as
# /usr/local/bin/opencode; nothing is downloaded for it.
# --without-opencode: no opencode.  --import (default docker): load the
# tar as TAG (default llwrap-opencode:latest) into that runtime, as the
# user running this script.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${LLW_BUILDDIR:-$src}
mirror=${LLW_MIRROR:-http://deb.debian.org/debian}
cache=$here/cache
opencode=1
import=docker
tag=llwrap-opencode:latest
while [ $# -gt 0 ]; do
	case $1 in
	--without-opencode) opencode=0 ;;
	--cache | --import | --tag)
		[ $# -ge 2 ] || { echo "mkimage.sh: $1 needs a value" >&2; exit 2; }
		case $1 in
		--cache) cache=$2 ;;
		--import) import=$2 ;;
		--tag) tag=$2 ;;
		esac
		shift
		;;
	-h | --help)
		sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "mkimage.sh: unknown argument $1 (--help)" >&2
		exit 2
		;;
	esac
	shift
done
case $import in
docker | podman | none) ;;
*) echo "mkimage.sh: --import takes docker, podman or none, not $import" >&2; exit 2 ;;
esac

die() {
	echo "mkimage.sh: $*" >&2
	exit 1
}
[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap and chroot need it)"
command -v debootstrap >/dev/null 2>&1 || die "debootstrap is missing (apt-get install debootstrap)"
[ -x "$build/llwrap" ] || die "$build/llwrap is missing: build first (./configure && make)"
mkdir -p "$cache"

# opencode: npm's opencode-ai installs a self-contained executable
# (bin/opencode.exe, which its postinstall links from the platform's
# package); the host's, never a download.
ocbin=
if [ $opencode -eq 1 ]; then
	ocbin=${LLW_OPENCODE:-$(command -v opencode || true)}
	[ -n "$ocbin" ] && ocbin=$(readlink -f "$ocbin")
	[ -n "$ocbin" ] && [ -f "$ocbin" ] ||
		die "opencode is not installed on this host: npm install -g opencode-ai (or LLW_OPENCODE=/path/to/its binary, or --without-opencode)"
	head -c 4 "$ocbin" | grep -q ELF ||
		die "$ocbin is not opencode's executable (a launcher script?): name the binary with LLW_OPENCODE"
fi

# The runtime's packages: what the agent and its shell work use (git,
# python3, a terminal's script(1)), bubblewrap (llwrap's fallback) and
# CA certificates.
pkgs=bubblewrap,git,python3,util-linux,procps,ca-certificates
rootfs=$cache/rootfs-base
if [ ! -e "$rootfs/.llw-ready" ]; then
	echo "mkimage.sh: debootstrap bookworm into $rootfs" >&2
	rm -rf "$rootfs"
	debootstrap --variant=minbase --include="$pkgs" bookworm "$rootfs" \
		"$mirror" >"$cache/debootstrap.log" 2>&1 ||
		die "debootstrap failed: $cache/debootstrap.log"
	chroot "$rootfs" useradd -m -u 1000 -s /bin/sh agent
	rm -rf "$rootfs/var/cache/apt/archives/"*.deb "$rootfs/var/lib/apt/lists/"*
	touch "$rootfs/.llw-ready"
fi

# llwrap as make install puts it under /usr/local (its fish completions
# in /etc are left out: the image has no fish).
stage=$cache/stage
rm -rf "$stage"
make -s -C "$build" install DESTDIR="$stage" >"$cache/install.log" 2>&1 ||
	die "make install DESTDIR=$stage failed: $cache/install.log"

# The rootfs with the stage over it (hard links: no copy of the rootfs,
# whose files are replaced, never written through), in one tar.
tree=$cache/tree
tar=$cache/image.tar
rm -rf "$tree"
cp -al "$rootfs" "$tree" &&
	cp -a --remove-destination "$stage/usr/local/." "$tree/usr/local/" &&
	{ [ -z "$ocbin" ] || install -m 755 "$ocbin" "$tree/usr/local/bin/opencode"; } &&
	mkdir -p "$tree/workspace" && chown 1000:1000 "$tree/workspace" &&
	tar -C "$tree" --exclude=./.llw-ready -cf "$tar" . ||
	die "cannot write $tar"
rm -rf "$tree"
chmod 644 "$tar"

# What the Containerfile says in its last lines.
set -- -c 'USER 1000:1000' -c 'ENV HOME=/home/agent' -c 'WORKDIR /workspace' \
	-c 'ENV PATH=/usr/local/bin:/usr/bin:/bin'
if [ $opencode -eq 1 ]; then
	set -- "$@" -c 'ENTRYPOINT ["llwrap", "-p", "opencode", "--"]' \
		-c 'CMD ["opencode", "serve", "--hostname", "127.0.0.1", "--port", "4096"]'
fi
case $import in
docker) docker import "$@" "$tar" "$tag" >/dev/null || die "docker import failed" ;;
podman) podman import "$@" "$tar" "$tag" >/dev/null || die "podman import failed" ;;
none) ;;
esac
if [ "$import" = none ]; then
	echo "$tar"
else
	echo "$tar: imported into $import as $tag"
fi
