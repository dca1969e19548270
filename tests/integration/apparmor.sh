#!/bin/sh
# The AppArmor profile (contrib/apparmor/llwrap.in): generated for the
# configured bindir, and accepted by apparmor_parser where it is
# installed (Debian: the apparmor package).  AppArmor before 4.0 has no
# userns rule (nor the restriction it lifts): there the rest of the
# profile is parsed and the userns rule is skipped, saying so.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

prof=$LLW_BUILDDIR/contrib/apparmor/llwrap
bindir=$(sed -n 's/^bindir = //p' "$LLW_BUILDDIR/Makefile")
prefix=$(sed -n 's/^prefix = //p' "$LLW_BUILDDIR/Makefile")
bindir=$(printf '%s\n' "$bindir" | sed "s|\${exec_prefix}|$prefix|")

if [ -f "$prof" ]; then
	ok "the profile is generated in the build tree"
else
	not_ok "the profile is generated in the build tree"
	diag "no $prof"
fi
if grep -Eq "^profile llwrap $bindir/llwrap flags=\(unconfined\) \{\$" "$prof"; then
	ok "it attaches to the installed llwrap ($bindir/llwrap)"
else
	not_ok "it attaches to the installed llwrap ($bindir/llwrap)"
	diag "$(grep '^profile' "$prof")"
fi
# Exactly one rule: userns.  Comments, the abi, the include and the
# local include aside.
rules=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e '/^abi /d' -e '/^include /d' \
	-e '/^profile /d' -e '/^}$/d' -e '/include if exists/d' "$prof")
if [ "$(printf '%s\n' "$rules" | tr -d ' \t')" = "userns," ]; then
	ok "it grants user namespaces and nothing else"
else
	not_ok "it grants user namespaces and nothing else"
	diag "rules: $rules"
fi

if ! command -v apparmor_parser >/dev/null 2>&1; then
	skip "apparmor_parser is not installed (Debian: apt-get install apparmor): the profile's syntax is not checked"
	skip "(the userns rule needs AppArmor 4.0)"
	done_testing
	exit 0
fi
version=$(apparmor_parser --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p' | head -1)
if [ "${version:-0}" -ge 4 ] && [ -f /etc/apparmor.d/abi/4.0 ]; then
	run apparmor_parser -Q -K "$prof"
	expect_rc "apparmor_parser -Q accepts the profile" 0
	# A broken copy is refused: the check can fail.
	sed 's/userns,/userns/' "$prof" >"$T/broken"
	run apparmor_parser -Q -K "$T/broken"
	if [ "$rc" -ne 0 ]; then ok "... and refuses a broken copy"; else not_ok "... and refuses a broken copy"; fi
else
	abi=$(ls /etc/apparmor.d/abi 2>/dev/null | grep -E '^[0-9]+\.[0-9]+$' | sort -n | tail -1)
	sed -e "s|abi <abi/4.0>|abi <abi/${abi:-3.0}>|" -e '/^  userns,$/d' "$prof" >"$T/old"
	run apparmor_parser -Q -K "$T/old"
	expect_rc "apparmor_parser $version -Q accepts the profile without its userns rule" 0
	skip "AppArmor $version has no userns rule (4.0 added it with the restriction it lifts): that rule is not parsed here"
fi
done_testing
