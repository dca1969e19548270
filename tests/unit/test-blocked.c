/*
 * Unit tests of src/blocked.c: parsing the supervisor's log lines,
 * grouping and counting, the suggestions, the known-harmless summary,
 * and 10,000 attempts (as the rate limit leaves them) in a few lines.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocked.h"
#include "cleanup.h"
#include "strv.h"
#include "supervise.h"
#include "xalloc.h"

#define HOME "/home/u"

/* The bounds of the suggestions (suggest.h): home /home/u, and a path
 * the policy denies by name. */
static struct suggest_bounds bounds;

static int
bounds_setup(void **state)
{
	(void)state;
	suggest_bounds_init(&bounds, HOME, NULL);
	strv_push(&bounds.denied, "/srv/app/secret");
	return 0;
}

static int
bounds_teardown(void **state)
{
	(void)state;
	suggest_bounds_clear(&bounds);
	return 0;
}

static void
test_parse(void **state)
{
	static const struct {
		const char *line;
		int r;
		const char *op, *proto, *target, *comm, *rule;
		unsigned long suppressed;
	} t[] = {
		{ "llwrap-x-blocked: connect tcp 203.0.113.7:443 pid=42 "
		  "comm=curl rule=filtered/no-cidr",
		  0, "connect", "tcp", "203.0.113.7:443", "curl",
		  "filtered/no-cidr", 0 },
		{ "opencode-a-blocked: sendto udp [::1]:53 pid=1 comm=node "
		  "rule=filtered/dns",
		  0, "sendto", "udp", "[::1]:53", "node", "filtered/dns", 0 },
		{ "p: connect unix /run/docker.sock pid=7 comm=sh "
		  "rule=filtered/unix",
		  0, "connect", "unix", "/run/docker.sock", "sh",
		  "filtered/unix", 0 },
		{ "p: dns-query udp evil.example pid=9 comm=curl "
		  "rule=filtered/host",
		  0, "dns-query", "udp", "evil.example", "curl",
		  "filtered/host", 0 },
		{ "p: suppressed 9980", 0, NULL, NULL, NULL, NULL, NULL, 9980 },
		{ "p: suppressed x", -EINVAL, NULL, NULL, NULL, NULL, NULL, 0 },
		{ "p: connect sctp 1.2.3.4:1 pid=1 comm=a rule=b", -EINVAL,
		  NULL, NULL, NULL, NULL, NULL, 0 },
		{ "p: connect tcp 1.2.3.4:1 pid=1 comm=a", -EINVAL, NULL, NULL,
		  NULL, NULL, NULL, 0 },
		{ "two words: connect tcp 1.2.3.4:1 pid=1 comm=a rule=b",
		  -EINVAL, NULL, NULL, NULL, NULL, NULL, 0 },
		{ "p: connect unix /a\033[2J pid=1 comm=a rule=filtered/unix",
		  -EINVAL, NULL, NULL, NULL, NULL, NULL, 0 },
		{ "no prefix at all", -EINVAL, NULL, NULL, NULL, NULL, NULL,
		  0 },
		{ "", -EINVAL, NULL, NULL, NULL, NULL, NULL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct blocked_record r;
		int got = blocked_parse_line(t[i].line, &r);

		if (got != t[i].r)
			fail_msg("'%s': %d, want %d", t[i].line, got, t[i].r);
		if (got == 0 && t[i].op != NULL) {
			assert_string_equal(r.op, t[i].op);
			assert_string_equal(r.proto, t[i].proto);
			assert_string_equal(r.target, t[i].target);
			assert_string_equal(r.comm, t[i].comm);
			assert_string_equal(r.rule, t[i].rule);
		}
		if (got == 0)
			assert_int_equal(r.suppressed, t[i].suppressed);
		blocked_record_clear(&r);
	}
}

static void
test_suggest(void **state)
{
	static const struct {
		const char *op, *proto, *target, *rule, *want;
	} t[] = {
		{ "connect", "tcp", "203.0.113.7:443", "filtered/no-cidr",
		  "[network] allow-cidr = 203.0.113.7/32:443 (or --allow-cidr "
		  "203.0.113.7/32:443)" },
		{ "connect", "tcp", "[2001:db8::1]:22", "filtered/no-cidr",
		  "[network] allow-cidr = 2001:db8::1/128:22 (or --allow-cidr "
		  "2001:db8::1/128:22)" },
		{ "connect", "tcp", "192.168.1.2:5432", "filtered/local",
		  "[network] allow-cidr = 192.168.1.2/32:5432 (or "
		  "--allow-cidr 192.168.1.2/32:5432): port rules do not reach "
		  "this host or its networks" },
		/* Each port rule's hint says what it reaches where it
		 * refused (DESIGN.md §16: every hint true for its rule). */
		{ "connect", "tcp", "10.0.0.5:5432", "filtered/port",
		  "[network] allow-cidr = 10.0.0.5/32:5432 (or --allow-cidr "
		  "10.0.0.5/32:5432): the allow-cidr entry that holds "
		  "10.0.0.5 does not allow port 5432" },
		{ "connect", "tcp", "203.0.113.7:8080", "filtered/net-port",
		  "[network] connect-tcp = 8080 (or --connect-tcp 8080): port "
		  "8080 of internet hosts, never of this host or its "
		  "networks (allow-cidr reaches those)" },
		{ "sendto", "udp", "203.0.113.7:9000", "filtered/landlock-port",
		  "[network] connect-udp = 9000 (or --connect-udp 9000; it "
		  "reaches every host on that port), or allow-cidr = "
		  "203.0.113.7/32:9000, with which the supervisor decides by "
		  "address" },
		/* glibc's sorting connects to port 0: nothing to allow. */
		{ "connect", "udp", "203.0.113.7:0", "filtered/host-port",
		  "nothing: port 0 is no service's port" },
		{ "connect", "tcp", "[2001:db8::7]:0", "filtered/no-cidr",
		  "nothing: port 0 is no service's port" },
		/* llwrap's resolver: the target is an address, which
		 * allow-host cannot name; the proxy's is the name. */
		{ "connect", "tcp", "198.51.100.8:8080", "filtered/host-port",
		  "[network] allow-host = NAME:8080 for the allowed name that "
		  "resolved to 198.51.100.8 (its entry does not allow port "
		  "8080)" },
		{ "connect", "tcp", "other.example:8080", "filtered/host-port",
		  "[network] allow-host = other.example:8080 (or --allow-host "
		  "other.example:8080)" },
		{ "bind", "tcp", "127.0.0.1:3000", "filtered/shared-port",
		  "nothing: a socket of another program holds port 3000 (at "
		  "some address, in either family), and the sandbox never "
		  "shares a port with one: use another port" },
		{ "bind", "tcp", "127.0.0.1:3000", "filtered/unpublished",
		  "[network] bind-tcp = 3000 (or --bind-tcp 3000): publishes "
		  "it, reachable from the host (a browser)" },
		{ "connect", "udp", "[::1]:9000", "filtered/source-route",
		  "nothing: the socket carries a routing header or an IPv4 "
		  "source route, which would send its packets elsewhere than "
		  "their destination" },
		{ "sendto", "udp", "9.9.9.9:53", "filtered/dns",
		  "[network] dns = 9.9.9.9 (or --dns 9.9.9.9)" },
		{ "bind", "tcp", "0.0.0.0:8080", "filtered/listen",
		  "[network] listen = 0.0.0.0:8080 (or --listen "
		  "0.0.0.0:8080)" },
		{ "bind", "udp", "127.0.0.1:5353", "filtered/bind-port",
		  "[network] bind-udp = 5353 (or --bind-udp 5353)" },
		{ "connect", "unix", "/run/docker.sock", "filtered/unix",
		  "[network] unix = /run/docker.sock (or --unix "
		  "/run/docker.sock)" },
		{ "bind", "unix", "/srv/app/sock", "filtered/unix-bind",
		  "no safe grant: a rule on the socket's directory /srv/app "
		  "would reach more, as it holds /srv/app/secret, which the "
		  "policy denies by name; bind the socket in the project or "
		  "in /tmp" },
		{ "bind", "unix", "/srv/run/sock", "filtered/unix-bind",
		  "[filesystem] rw = /srv/run (or --rw /srv/run): the socket's "
		  "directory" },
		/* Never the home, an ancestor of it, "/", nor a secret. */
		{ "bind", "unix", HOME "/app.sock", "filtered/unix-bind",
		  "no safe grant: a rule on the socket's directory /home/u "
		  "would reach more, as it is your home directory, with "
		  "~/.ssh and every other secret in it; bind the socket in "
		  "the project or in /tmp" },
		{ "bind", "unix", "/home/app.sock", "filtered/unix-bind",
		  "no safe grant: a rule on the socket's directory /home "
		  "would reach more, as it holds your home directory; bind "
		  "the socket in the project or in /tmp" },
		{ "bind", "unix", "/app.sock", "filtered/unix-bind",
		  "no safe grant: a rule on the socket's directory / would "
		  "reach more, as it is the whole filesystem, your home and "
		  "its secrets with it; bind the socket in the project or in "
		  "/tmp" },
		{ "connect", "unix", HOME "/.gnupg/S.gpg-agent",
		  "filtered/unix",
		  "no safe grant: llwrap suggests no rule that exposes a "
		  "secret, and it is under ~/.gnupg, which holds keys or "
		  "credentials" },
		{ "connect", "unix", "@/tmp/.X11-unix/X0", "filtered/abstract",
		  NULL },
		{ "dns-query", "udp", "evil.example", "filtered/host",
		  "[network] allow-host = evil.example (or --allow-host "
		  "evil.example)" },
		{ "dns-query", "tcp", "api.example.com", "filtered/dns-type",
		  "nothing: only A, AAAA and CNAME queries of names in "
		  "allow-host are forwarded" },
		{ "connect", "tcp", "203.0.113.9:443", "filtered/unnamed",
		  "reach it by a name in allow-host (no allowed name resolves "
		  "to 203.0.113.9), or [network] allow-cidr = "
		  "203.0.113.9/32:443 (or --allow-cidr 203.0.113.9/32:443)" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		_cleanup_free_ char *s = blocked_suggest(
			t[i].op, t[i].proto, t[i].target, t[i].rule, &bounds);

		if (t[i].want == NULL)
			assert_null(s);
		else if (s == NULL || strcmp(s, t[i].want) != 0)
			fail_msg("%s %s: '%s', want '%s'", t[i].target,
				 t[i].rule, s ? s : "(null)", t[i].want);
	}
}

/* A log as the supervisor writes it, from netpolicy_log_line(). */
static char *
line(const char *op, const char *proto, const char *target, const char *comm,
     const char *rule)
{
	enum netpolicy_op o = strcmp(op, "connect") == 0  ? NETPOLICY_CONNECT
			      : strcmp(op, "sendto") == 0 ? NETPOLICY_SEND
							  : NETPOLICY_BIND;
	enum netpolicy_proto p = strcmp(proto, "tcp") == 0   ? NETPOLICY_TCP
				 : strcmp(proto, "udp") == 0 ? NETPOLICY_UDP
							     : NETPOLICY_UNIX;
	_cleanup_free_ char *prefix = netpolicy_log_prefix(NULL, "agent");
	_cleanup_free_ char *l = netpolicy_log_line(prefix, o, p, target, 42,
						    comm, refusal_parse(rule));

	assert_int_not_equal(refusal_parse(rule), REFUSAL_UNKNOWN);

	return xasprintf("%s\n", l);
}

static void
test_group(void **state)
{
	struct blocked_log log = { 0 };
	_cleanup_free_ char *text = NULL, *out = NULL;
	char *l;
	FILE *f;
	size_t len = 0;
	const char *first, *second;

	(void)state;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	for (int i = 0; i < 3; i++) {
		l = line("connect", "unix", "/var/run/nscd/socket", "git",
			 "filtered/unix");
		fputs(l, f);
		free(l);
	}
	for (int i = 0; i < 5; i++) {
		l = line("connect", "tcp", "203.0.113.7:443",
			 i % 2 ? "curl" : "node", "filtered/no-cidr");
		fputs(l, f);
		free(l);
	}
	l = line("connect", "unix", "/run/docker.sock", "docker",
		 "filtered/unix");
	fputs(l, f);
	free(l);
	fputs("garbage\n", f);
	assert_int_equal(fclose(f), 0);

	blocked_add_text(&log, text);
	assert_int_equal(log.n, 3);
	assert_int_equal(log.logged, 9);
	assert_int_equal(log.unparsed, 1);
	out = blocked_format(&log, "agent", 0, &bounds);
	/* Newest first: docker.sock, then the 5 connects; nscd once, below. */
	first = strstr(out, "1x connect unix /run/docker.sock");
	second = strstr(out, "5x connect tcp 203.0.113.7:443  (node,curl; "
			     "rule filtered/no-cidr)");
	if (first == NULL || second == NULL || first > second)
		fail_msg("order or counts wrong:\n%s", out);
	assert_non_null(strstr(out, "allow: [network] allow-cidr = "
				    "203.0.113.7/32:443"));
	assert_non_null(strstr(out, "why:   llwrap [your -p and flags] why "
				    "/run/docker.sock --connect"));
	assert_non_null(strstr(out, "known-harmless: 3x nscd lookups"));
	assert_null(strstr(out, "connect unix /var/run/nscd/socket"));
	assert_non_null(strstr(out, "agent: 9 blocked attempts, 2 kinds"));
	blocked_log_clear(&log);
}

/*
 * 10,000 attempts at one destination: the supervisor's rate limit logs a
 * burst and counts the rest, and the report is a few lines that add up
 * to 10,000.
 */
static void
test_ten_thousand(void **state)
{
	struct netpolicy_ratelimit rl;
	struct blocked_log log = { 0 };
	_cleanup_free_ char *text = NULL, *out = NULL;
	size_t len = 0, lines = 0;
	unsigned long rep;
	uint64_t now = 1000000000ULL;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	netpolicy_ratelimit_init(&rl, 20, 5, now);
	for (int i = 0; i < 10000; i++) {
		now += 100000; /* 10,000 a second */
		if (!netpolicy_ratelimit_take(&rl, now, &rep))
			continue;
		if (rep > 0)
			fprintf(f, "llwrap-agent-blocked: suppressed %lu\n",
				rep);
		{
			_cleanup_free_ char *l =
				line("connect", "tcp", "10.9.9.9:80", "python3",
				     "filtered/port");

			fputs(l, f);
		}
	}
	if (netpolicy_ratelimit_flush(&rl, now, true, &rep))
		fprintf(f, "llwrap-agent-blocked: suppressed %lu\n", rep);
	assert_int_equal(fclose(f), 0);

	blocked_add_text(&log, text);
	assert_int_equal(log.logged + log.suppressed, 10000);
	assert_true(log.logged < 100);
	out = blocked_format(&log, "agent", 0, &bounds);
	assert_non_null(strstr(out, "agent: 10000 blocked attempts ("));
	for (const char *s = out; *s; s++)
		lines += *s == '\n';
	assert_true(lines <= 4);
	blocked_log_clear(&log);
}

static void
test_record(void **state)
{
	struct blocked_record r;
	_cleanup_free_ char *a = NULL, *b = NULL;

	(void)state;
	assert_int_equal(blocked_parse_line("p: connect tcp 1.2.3.4:22 pid=1 "
					    "comm=ssh rule=filtered/port",
					    &r),
			 0);
	a = blocked_format_record(&r, &bounds);
	blocked_record_clear(&r);
	assert_string_equal(a, "connect tcp 1.2.3.4:22 (ssh; rule "
			       "filtered/port)\n  allow: [network] "
			       "allow-cidr = 1.2.3.4/32:22 (or --allow-cidr "
			       "1.2.3.4/32:22): the allow-cidr entry that "
			       "holds 1.2.3.4 does not allow port 22");
	assert_int_equal(blocked_parse_line("p: suppressed 5", &r), 0);
	b = blocked_format_record(&r, &bounds);
	blocked_record_clear(&r);
	assert_string_equal(b, "5 more attempts not logged (rate limit)");
}

static void
test_footer(void **state)
{
	struct blocked_log log = { 0 };
	_cleanup_free_ char *none = NULL, *one = NULL, *many = NULL;

	(void)state;
	/* Only harmless probes: no footer. */
	blocked_add_text(&log, "p: connect unix /var/run/nscd/socket pid=1 "
			       "comm=id rule=filtered/unix\n");
	none = blocked_footer(&log, "agent");
	assert_null(none);
	blocked_add_text(&log, "p: connect tcp 1.2.3.4:443 pid=1 comm=curl "
			       "rule=filtered/no-cidr\n");
	one = blocked_footer(&log, "agent");
	assert_string_equal(one, "llwrap: the sandbox blocked 1 attempt "
				 "during this run: connect tcp 1.2.3.4:443; "
				 "see 'llwrap log agent', and 'llwrap why' for "
				 "the rule");
	/* The most frequent first (then the newest), three at most;
	 * suppressed ones count. */
	for (int i = 0; i < 3; i++)
		blocked_add_text(&log, "p: sendto udp 9.9.9.9:53 pid=1 "
				       "comm=dig rule=filtered/dns\n");
	blocked_add_text(&log, "p: bind tcp 0.0.0.0:80 pid=1 comm=srv "
			       "rule=filtered/listen\n"
			       "p: connect unix /run/docker.sock pid=1 "
			       "comm=docker rule=filtered/unix\n"
			       "p: suppressed 10\n");
	many = blocked_footer(&log, "agent");
	assert_string_equal(many,
			    "llwrap: the sandbox blocked 16 attempts "
			    "during this run: sendto udp 9.9.9.9:53 "
			    "(3x), connect unix /run/docker.sock, bind "
			    "tcp 0.0.0.0:80, ...; see 'llwrap log agent', "
			    "and 'llwrap why' for the rule");
	blocked_log_clear(&log);

	/* A server for the sandbox alone is named apart, with its flag,
	 * and is no blocked attempt. */
	{
		_cleanup_free_ char *own = NULL, *both = NULL;

		blocked_add_text(&log, "p: bind tcp 127.0.0.1:3000 pid=1 "
				       "comm=node rule=filtered/unpublished\n");
		own = blocked_footer(&log, "agent");
		assert_string_equal(own,
				    "llwrap: the sandbox listened for itself "
				    "alone on 127.0.0.1:3000 (--bind-tcp "
				    "3000): to reach a server from the host, "
				    "publish its port");
		blocked_add_text(&log, "p: connect tcp 1.2.3.4:443 pid=1 "
				       "comm=curl rule=filtered/no-cidr\n");
		both = blocked_footer(&log, "agent");
		assert_string_equal(both,
				    "llwrap: the sandbox blocked 1 attempt "
				    "during this run: connect tcp "
				    "1.2.3.4:443; see 'llwrap log agent', and "
				    "'llwrap why' for the rule; the sandbox "
				    "listened for itself alone on "
				    "127.0.0.1:3000 (--bind-tcp 3000): to "
				    "reach a server from the host, publish "
				    "its port");
		blocked_log_clear(&log);
	}
}

static void
test_note(void **state)
{
	_cleanup_free_ char *a = NULL, *b = NULL;

	(void)state;
	a = blocked_note("connect", "tcp", "1.2.3.4:443", REFUSAL_NO_CIDR,
			 &bounds);
	assert_string_equal(a, "llwrap: blocked by the sandbox's policy: "
			       "connect tcp 1.2.3.4:443 (rule "
			       "filtered/no-cidr); to allow: [network] "
			       "allow-cidr = 1.2.3.4/32:443 (or --allow-cidr "
			       "1.2.3.4/32:443); not a network failure: ask "
			       "the user to allow it rather than retrying\n");
	b = blocked_note("connect", "unix", "@/tmp/.X11-unix/X0",
			 REFUSAL_ABSTRACT, &bounds);
	assert_string_equal(b, "llwrap: blocked by the sandbox's policy: "
			       "connect unix @/tmp/.X11-unix/X0 (rule "
			       "filtered/abstract); not a network failure: "
			       "ask the user to allow it rather than "
			       "retrying\n");
	assert_null(strchr(a, '\n') == a + strlen(a) - 1 ? NULL : a);
	{
		_cleanup_free_ char *c =
			blocked_note("connect", "unix", "/x\ny z\033",
				     REFUSAL_UNIX, &bounds);

		assert_string_equal(c, "llwrap: blocked by the sandbox's "
				       "policy: connect unix /x?y?z? (rule "
				       "filtered/unix); to allow: [network] "
				       "unix = /x?y?z? (or --unix /x?y?z?); "
				       "not a network failure: ask the user "
				       "to allow it rather than retrying\n");
	}
	/* A server for the sandbox alone: told how to publish it, not
	 * that something was blocked. */
	{
		_cleanup_free_ char *d =
			blocked_note("bind", "tcp", "127.0.0.1:3000",
				     REFUSAL_UNPUBLISHED, &bounds);

		assert_string_equal(d, "llwrap: 127.0.0.1:3000 listens for "
				       "the sandbox only: a program outside "
				       "it (a browser) cannot connect; to "
				       "open it from the host: [network] "
				       "bind-tcp = 3000 (or --bind-tcp "
				       "3000): publishes it, reachable from "
				       "the host (a browser)\n");
	}
	/* The relay's name check: the note names the name, the address
	 * and what was checked (IPv6 addresses without brackets). */
	{
		_cleanup_free_ char *e = blocked_note(
			"connect", "tcp", "evil.test@198.51.100.7:443",
			REFUSAL_SERVER_NAME, &bounds);
		_cleanup_free_ char *f =
			blocked_note("connect", "tcp", "[2001:db8::7]:443",
				     REFUSAL_NO_NAME, &bounds);
		_cleanup_free_ char *g = blocked_note(
			"connect", "tcp", "public.example@198.51.100.7:443",
			REFUSAL_ECH, &bounds);

		assert_string_equal(e, "llwrap: blocked by the sandbox's "
				       "policy: connect tcp 198.51.100.7:443: "
				       "server name evil.test is not one of "
				       "the names that resolved to "
				       "198.51.100.7 (rule "
				       "filtered/server-name); not a network "
				       "failure: ask the user to allow it "
				       "rather than retrying\n");
		assert_non_null(strstr(f,
				       "connect tcp [2001:db8::7]:443: the "
				       "connection names no server (no TLS "
				       "server name or HTTP Host) to check "
				       "against the names that resolved to "
				       "2001:db8::7 (rule filtered/no-name)"));
		assert_non_null(strstr(g,
				       "an encrypted ClientHello (outer "
				       "name public.example) hides the name "
				       "checked against those that resolved "
				       "to 198.51.100.7 (rule filtered/ech)"));
	}
	/* Known-harmless probes: no note. */
	assert_null(blocked_note("connect", "unix", "/var/run/nscd/socket",
				 REFUSAL_UNIX, &bounds));
	assert_null(blocked_note("connect", "unix",
				 "/run/systemd/userdb/io.systemd.Multiplexer",
				 REFUSAL_UNIX, &bounds));
	/* A bind in the home: the note names no grant on it. */
	{
		_cleanup_free_ char *d =
			blocked_note("bind", "unix", HOME "/x.sock",
				     REFUSAL_UNIX_BIND, &bounds);

		assert_null(strstr(d, "rw = /home/u "));
		assert_non_null(strstr(d, "to allow: no safe grant"));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_group),
		cmocka_unit_test(test_ten_thousand),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_footer),
		cmocka_unit_test(test_note),
	};

	return cmocka_run_group_tests_name("blocked", tests, bounds_setup,
					   bounds_teardown);
}
