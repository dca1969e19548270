#!/bin/sh
# Generate ./configure from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
autoreconf --install --force --warnings=all
# automake installs its TAP driver only on request.
cp -f "$(automake --print-libdir)/tap-driver.sh" build-aux/
echo "Now run ./configure"
