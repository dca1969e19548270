#!/bin/sh
# quickstart.sh: set up, build and try llwrap on a fresh Debian or Ubuntu.
#
#   ./quickstart.sh          install what is missing (apt), build, and run
#                            a command under llwrap
#
# The test suite is then `make check`.  Nothing here needs root except the
# package installation, which uses sudo when you are not root (without
# sudo, it prints the apt-get line to ask root for).
set -eu
cd "$(dirname "$0")"

pkgs="build-essential autoconf automake pkg-config libseccomp-dev \
libinih-dev libnl-3-dev libnl-route-3-dev libcap-ng-dev libcmocka-dev \
bubblewrap python3 util-linux bsdutils"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	sudo=
	if [ "$(id -u)" -ne 0 ]; then
		if ! command -v sudo >/dev/null 2>&1; then
			echo "quickstart: these packages are missing, and installing them needs root (there is no sudo here); ask root to run:" >&2
			echo "  apt-get update && apt-get install -y$missing" >&2
			echo "then run ./quickstart.sh again." >&2
			exit 1
		fi
		sudo=sudo
	fi
	echo "quickstart: installing:$missing"
	$sudo apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi

[ -x configure ] || ./autogen.sh
[ -f Makefile ] || ./configure --enable-werror
make -j"$(nproc)"

echo
echo "quickstart: llwrap --check"
./llwrap --check || true
echo
# The built-in default profile: a profile read from conf/ would sit
# inside this writable project, which only L3 masks could protect.
echo "quickstart: a shell under the default profile, in this directory:"
# The built-in default profile (the same text as conf/default.ini).  Not
# LLWRAP_PROFILE_PATH=$PWD/conf: profile directories are write-protected
# inside the sandbox, and this directory is the writable project.
./llwrap -p default -- /bin/sh -c '
	echo "  sandboxed shell running as $(id -un) in $PWD"
	if cat ~/.ssh/id_* >/dev/null 2>&1 || ls ~ >/dev/null 2>&1; then
		echo "  the home directory is readable: NOT sandboxed"; exit 1
	fi
	echo "  ~ and ~/.ssh: not readable"
	if touch ~/.llwrap-quickstart 2>/dev/null; then
		echo "  wrote into ~: NOT sandboxed"; exit 1
	fi
	echo "  writing outside the project: refused"
	echo "  writing inside the project: $(touch .llwrap-quickstart && rm .llwrap-quickstart && echo allowed)"
'
echo
echo "quickstart: done.  Run the test suite with: make check"
