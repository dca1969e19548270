#!/bin/sh
# Shared state and secrets under the opencode profile (issue 17;
# DESIGN.md §11): secrets denied by name whatever else is granted, and
# private /tmp, /var/tmp and /dev/shm with a size limit.  Each denial
# beside the legitimate action next to it.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

if ! bwrap_backend && [ "$(landlock_abi)" -lt 4 ]; then
	skip_rest "the opencode profile needs Landlock ABI 4 (TCP port rules)"
fi
if ! bwrap_backend && ! userns_works; then
	skip_rest "the opencode profile needs unprivileged user namespaces (L3)"
fi
# bubblewrap has no port rules: best effort drops only those.
BE=
bwrap_backend && BE=--best-effort

# Secrets (class 5): a wide grant (--ro ~) still leaves them out.
mkdir -p "$HOME_DIR/.config/git" "$HOME_DIR/.config/gh" "$HOME_DIR/.kube"
echo "[user] name = t" >"$HOME_DIR/.config/git/config"
echo "https://u:tok@example.invalid" >"$HOME_DIR/.config/git/credentials"
echo "oauth_token: llw-secret" >"$HOME_DIR/.config/gh/hosts.yml"
echo "token: llw-secret" >"$HOME_DIR/.kube/config"
echo "machine x password llw-secret" >"$HOME_DIR/.netrc"
chown -R "$TEST_UID:$TEST_GID" "$HOME_DIR"
for s in .ssh/id_ed25519 .aws/credentials .config/git/credentials \
	.config/gh/hosts.yml .kube/config .netrc; do
	expect_denied "opencode --ro ~: ~/$s stays denied" \
		llw -p opencode $BE --ro "$HOME_DIR" -q -- "$PROBE" read "$HOME_DIR/$s"
done
expect_succeeded "... while ~/.bashrc is readable through that grant" \
	llw -p opencode $BE --ro "$HOME_DIR" -q -- "$PROBE" read "$HOME_DIR/.bashrc"
expect_succeeded "opencode: ~/.config/git/config is readable" \
	llw -p opencode $BE -q -- "$PROBE" read "$HOME_DIR/.config/git/config"
expect_denied "... but not the rest of ~/.config/git" \
	llw -p opencode $BE -q -- "$PROBE" read "$HOME_DIR/.config/git/credentials"

# Shared scratch (class 6): /tmp, /var/tmp and /dev/shm are private
# tmpfs mounts with a size limit; what the host keeps there stays out.
for d in /tmp /var/tmp /dev/shm; do
	[ -d "$d" ] || continue
	host=$(mktemp "$d/llwrap-host.XXXXXX")
	echo "host file" >"$host"
	chmod 644 "$host"
	expect_denied "opencode: the host's $d is not visible" \
		llw -p opencode $BE -q -- "$PROBE" read "$host"
	expect_succeeded "... while $d is writable" \
		llw -p opencode $BE -q -- "$PROBE" write "$d/llwrap-sandbox-file"
	[ ! -e "$d/llwrap-sandbox-file" ] &&
		ok "... and what the sandbox wrote there stays in it" ||
		not_ok "the sandbox's file in $d reached the host"
	rm -f "$host"
done
printf '[limits]\ntmpfs-size = 4M\n' >"$T/small.ini"
chmod 644 "$T/small.ini"
run llw -p opencode -p "$T/small.ini" $BE -q -- /bin/sh -c \
	'dd if=/dev/zero of=/tmp/big bs=1M count=8 2>&1; echo status=$?'
expect_output "[limits] tmpfs-size = 4M: writing 8 MiB to /tmp fails" "status=1"
expect_output "... with ENOSPC" "No space left"
run llw -p opencode -p "$T/small.ini" $BE -q -- /bin/sh -c \
	'dd if=/dev/zero of=/dev/shm/big bs=1M count=2 2>&1; echo status=$?'
expect_output "... while 2 MiB in /dev/shm fit" "status=0"
printf '[limits]\ntmpfs-size = 150%%\n' >"$T/bad.ini"
chmod 644 "$T/bad.ini"
marker=$PROJ/ran
expect_refused "a bad tmpfs-size is refused with file:line" 'bad\.ini:2' \
	llw -p opencode -p "$T/bad.ini" $BE -- /bin/sh -c "touch $marker"

done_testing
