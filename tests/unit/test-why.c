/*
 * Unit tests of src/why.c: decisions for a table of accesses under the
 * shipped profiles (conf/), compiled against a fake file system for a
 * given Landlock ABI, with or without namespaces and the supervisor; and
 * the target parser.  No system call decides anything here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cleanup.h"
#include "compat/landlock.h"
#include "cliprofile.h"
#include "fakefs.h"
#include "planner.h"
#include "policy.h"
#include "profile.h"
#include "strv.h"
#include "why.h"
#include "xalloc.h"

static char *const test_env[] = {
	"HOME=/home/u",
	"USER=u",
	"PATH=/usr/bin:/bin",
	NULL,
};

static const char *const tree[] = {
	"f:/usr/bin/cc",
	"d:/bin",
	"d:/lib",
	"f:/etc/passwd",
	"f:/etc/ld.so.cache",
	"f:/home/u/.ssh/id_ed25519",
	"f:/home/u/.gitconfig",
	"f:/home/u/.profile",
	"f:/home/u/todo.txt",
	"d:/home/u/.config/opencode",
	"d:/home/u/.local/share/opencode",
	"d:/home/u/.local/state/opencode",
	"d:/home/u/.cache/opencode",
	"f:/home/u/other/notes",
	"l:/home/u/notes-link:/home/u/other",
	"f:/home/u/proj/src/main.c",
	"f:/home/u/proj/prog",
	"f:/home/u/proj/.env",
	"f:/home/u/proj/.git/config",
	"d:/home/u/proj/.git/hooks",
	"d:/tmp",
	"d:/var/tmp",
	"f:/dev/null",
	"f:/run/docker.sock",
	"f:/run/other.sock",
	NULL,
};

static struct fakefs fake = { tree };
static const struct pathtree_fs fakefs = {
	.resolve = fake_resolve,
	.stat = fake_stat,
	.list = fake_list,
	.ctx = &fake,
	.resolve_at = fake_resolve_at,
};

static char *conf_dir;

enum want { DENY, ALLOW, DEPENDS };

struct why_case {
	const char *profile;
	const char *flags; /* "section key value; ..." for the command line */
	int abi;
	bool ns, supervise;
	enum why_access access;
	const char *what;
	enum want want;
	const char *says; /* a substring of the formatted verdict; CONF is
			   * the profile directory */
};

static const struct why_case cases[] = {
	/* A rule on a symlink holds its target, and is named as written. */
	{ "default", "filesystem ro /home/u/notes-link", 7, false, false,
	  WHY_READ, "/home/u/other/notes", ALLOW,
	  "rule:   ro = /home/u/notes-link   (command line)" },
	{ "default", "filesystem ro /home/u/notes-link", 7, true, false,
	  WHY_WRITE, "/home/u/other/notes", DENY,
	  "denied: the rule ro = /home/u/notes-link does not allow it" },
	/* ... and a deny rule on one bounds the suggestions at its
	 * target too. */
	{ "default", "filesystem deny /home/u/notes-link", 7, false, false,
	  WHY_READ, "/home/u/other/notes", DENY,
	  "which the policy denies by name" },
	{ "default", NULL, 7, false, false, WHY_READ, "/home/u/.ssh/id_ed25519",
	  DENY,
	  "no rule grants /home/u/.ssh/id_ed25519 (the filesystem is an "
	  "allow-list)" },
	/* No suggestion reaches a secret, the home or "/" (suggest.h). */
	{ "opencode", NULL, 7, true, false, WHY_READ, "/home/u/.ssh/id_ed25519",
	  DENY,
	  "allow:  no safe grant: llwrap suggests no rule that exposes a "
	  "secret, and it is under ~/.ssh, which holds keys or credentials" },
	{ "default", NULL, 7, false, false, WHY_READ, "/home/u/.ssh/id_ed25519",
	  DENY, "allow:  no safe grant: llwrap suggests no rule that exposes" },
	{ "opencode", NULL, 7, true, false, WHY_READ, "/home/u/proj/.env", DENY,
	  "allow:  no safe grant: llwrap suggests no rule that exposes a "
	  "secret, and it is ~/proj/.env, which the policy denies by name" },
	{ "default", NULL, 7, false, false, WHY_WRITE, "/home/u/new.txt", DENY,
	  "allow:  create /home/u/new.txt outside the sandbox first (touch "
	  "/home/u/new.txt), then [filesystem] rw = /home/u/new.txt in a "
	  "profile of yours (or the flag --rw /home/u/new.txt): the file "
	  "alone\n"
	  "  note:   no grant on /home/u is safe to suggest: it is your home "
	  "directory, with ~/.ssh and every other secret in it" },
	{ "default", NULL, 7, false, false, WHY_READ, "/home/u", DENY,
	  "allow:  no safe grant: a rule on /home/u would reach more than "
	  "this access, as it is your home directory, with ~/.ssh and every "
	  "other secret in it\n"
	  "  note:   grant only the entries in it the command needs, each by "
	  "its own path (llwrap why /home/u/ENTRY)" },
	{ "default", NULL, 7, false, false, WHY_READ, "/home", DENY,
	  "allow:  no safe grant: a rule on /home would reach more than this "
	  "access, as it holds your home directory" },
	{ "default", NULL, 7, false, false, WHY_READ, "/home/u/.config", DENY,
	  "as it holds ~/.config/gh, which holds keys or credentials" },
	{ "default", NULL, 7, false, false, WHY_WRITE, "/new", DENY,
	  "note:   no grant on / is safe to suggest: it is the whole "
	  "filesystem" },
	{ "default", NULL, 7, false, false, WHY_CONNECT_UNIX,
	  "/home/u/.gnupg/S.gpg-agent", DENY,
	  "allow:  no safe grant: llwrap suggests no rule that exposes a "
	  "secret, and it is under ~/.gnupg" },
	{ "default", NULL, 7, false, false, WHY_CONNECT_UNIX,
	  "/run/postgresql/.s.PGSQL.5432", DENY,
	  "allow:  [network] unix = /run/postgresql/.s.PGSQL.5432" },
	{ "opencode", NULL, 7, true, false, WHY_EXEC, "/usr/bin/cc", ALLOW,
	  "rule:   rx = /usr   (CONF/empty.ini:" },
	{ "opencode", NULL, 7, true, false, WHY_WRITE, "/etc/passwd", DENY,
	  "rule:   ro = /etc   (CONF/default.ini:" },
	{ "opencode", NULL, 7, true, false, WHY_WRITE, "/etc/passwd", DENY,
	  "allow:  [filesystem] rw = /etc/passwd" },
	{ "opencode", NULL, 7, true, false, WHY_READ, "/home/u/proj/.env", DENY,
	  "layer:  L3 mount namespace (mask)" },
	{ "opencode", NULL, 7, true, false, WHY_READ, "/home/u/proj/.env", DENY,
	  "is masked by a character device that fails every open (EACCES) "
	  "(deny)" },
	{ "opencode", NULL, 7, true, false, WHY_READ, "/home/u/proj/.env", DENY,
	  "rule:   deny = /home/u/proj/.env   (CONF/opencode.ini:" },
	{ "opencode", NULL, 7, true, false, WHY_WRITE,
	  "/home/u/proj/.git/config", DENY, "is mounted read-only (ro)" },
	{ "opencode", NULL, 7, true, false, WHY_READ,
	  "/home/u/proj/.git/config", ALLOW,
	  "inside the mount mask of /home/u/proj/.git/config (ro)" },
	{ "opencode", NULL, 7, true, false, WHY_WRITE, "/home/u/proj/new.c",
	  ALLOW, " = /home/u/proj   (CONF/default.ini:" },
	{ "default", NULL, 7, false, false, WHY_WRITE, "/home/u/nothing/new.c",
	  DENY, "the flag --rw /home/u/nothing" },
	{ "default", "filesystem rw /home/u/other", 7, false, false, WHY_EXEC,
	  "/home/u/other/notes", DENY,
	  "allow:  [filesystem] rwx = /home/u/other/notes" },
	{ "default", "filesystem rw /home/u/other", 7, false, false, WHY_EXEC,
	  "/home/u/other/notes", DENY, "rw does not include execute" },
	{ "default", "filesystem ro /home/u/other", 7, false, false, WHY_READ,
	  "/home/u/other/notes", ALLOW,
	  "rule:   ro = /home/u/other   (command line)" },
	{ "default", "filesystem ro /home/u; filesystem deny /home/u/other", 7,
	  false, false, WHY_READ, "/home/u/other/notes", DENY,
	  "denied: the rule deny = /home/u/other hides it" },
	{ "default", "filesystem ro /home/u; filesystem deny /home/u/other", 7,
	  false, false, WHY_READ, "/home/u/todo.txt", ALLOW,
	  "rule:   ro = /home/u   (command line)" },
	/* The shell start-up files are read-only in default. */
	{ "default", NULL, 7, false, false, WHY_READ, "/home/u/.profile", ALLOW,
	  "rule:   ro = /home/u/.profile" },
	{ "opencode", NULL, 7, true, false, WHY_READ, "/tmp/x", ALLOW,
	  "note:   /tmp is private in the sandbox" },
	{ "default", NULL, 7, false, false, WHY_READ, "/home/u/proj/missing",
	  ALLOW, "note:   /home/u/proj/missing does not exist (now)" },
	/* Landlock ABI 1 handles reading: nothing is left unhandled. */
	{ "default", NULL, 1, false, false, WHY_READ, "/home/u/other/notes",
	  DENY, "L1 Landlock (ABI 1)" },

	/* TCP under Landlock's port rules. */
	{ "default", NULL, 7, false, false, WHY_CONNECT_TCP, "10.0.0.5:5432",
	  DENY,
	  "allow:  [network] connect-tcp = 5432 (or --connect-tcp "
	  "5432)" },
	{ "default", NULL, 7, false, false, WHY_CONNECT_TCP, "10.0.0.5:5432",
	  DENY, "allow-cidr = 10.0.0.5/32:5432, which starts the supervisor" },
	{ "opencode", NULL, 7, true, false, WHY_CONNECT_TCP,
	  "api.openai.com:443", ALLOW,
	  "rule:   connect-tcp = 443   (CONF/opencode.ini:" },
	{ "opencode", NULL, 7, true, false, WHY_CONNECT_TCP,
	  "api.openai.com:443", ALLOW, "a port rule reaches every host" },
	{ "default", NULL, 3, false, false, WHY_CONNECT_TCP, "10.0.0.5:5432",
	  ALLOW, "does not restrict TCP ports (NOT ENFORCED)" },
	/* A name where no name resolves (DNS closed): the port rule is
	 * never reached; allow-host opens the name. */
	{ "default", "network connect-tcp 443", 7, false, false,
	  WHY_CONNECT_TCP, "api.example.com:443", DENY,
	  "denied: api.example.com does not resolve here: DNS is closed" },
	{ "default", "network connect-tcp 443", 7, false, false,
	  WHY_CONNECT_TCP, "api.example.com:443", DENY,
	  "allow:  [network] allow-host = api.example.com:443 (or "
	  "--allow-host api.example.com:443)" },
	{ "default", "network connect-tcp 443; network connect-udp 53", 7,
	  false, false, WHY_CONNECT_TCP, "api.example.com:443", ALLOW,
	  "rule:   connect-tcp = 443   (command line)" },
	{ "default", "network bind-tcp 0", 7, false, false, WHY_BIND_TCP,
	  "127.0.0.1:0", ALLOW, "rule:   bind-tcp = 0   (command line)" },
	{ "default", NULL, 7, false, false, WHY_SEND_UDP, "127.0.0.1:53", DENY,
	  "L2 seccomp (no UDP sockets)" },
	{ "offline", NULL, 7, true, false, WHY_CONNECT_TCP, "127.0.0.1:8080",
	  DENY, "layer:  L3 network namespace (only lo)" },
	{ "offline", NULL, 7, true, false, WHY_BIND_TCP, "127.0.0.1:8080",
	  ALLOW, "network namespace" },
	/* Without L3 offline's masks need best effort (they would fail
	 * closed); its network then falls back to seccomp. */
	{ "offline", "profile best-effort yes", 7, false, false,
	  WHY_CONNECT_TCP, "127.0.0.1:8080", DENY,
	  "L2 seccomp (no inet sockets)" },

	/* Unix sockets. */
	{ "default", NULL, 7, false, false, WHY_CONNECT_UNIX,
	  "/run/docker.sock", DENY,
	  "rule:   unix-sockets = deny   "
	  "(CONF/default.ini:" },
	{ "default", NULL, 7, false, false, WHY_CONNECT_UNIX,
	  "/run/docker.sock", DENY,
	  "allow:  [network] unix = /run/docker.sock in a profile" },
	{ "default", "network unix /run/docker.sock", 7, false, true,
	  WHY_CONNECT_UNIX, "/run/docker.sock", ALLOW,
	  "rule:   unix = /run/docker.sock   (command line)" },
	{ "default", "network unix /run/docker.sock", 7, false, true,
	  WHY_CONNECT_UNIX, "/run/other.sock", DENY, "layer:  S supervisor" },
	{ "default", "network unix /run/docker.sock", 9, false, false,
	  WHY_CONNECT_UNIX, "/run/docker.sock", ALLOW,
	  "layer:  L1 Landlock (ABI 9)" },
	{ "default", "network unix /run/docker.sock", 9, false, false,
	  WHY_CONNECT_UNIX, "/run/other.sock", DENY, "no unix rule grants" },

	/* The host's abstract sockets. */
	{ "default", NULL, 7, false, false, WHY_CONNECT_ABSTRACT,
	  "@/tmp/.X11-unix/X0", DENY, "layer:  L2 seccomp" },
	{ "default", "network unix /run/docker.sock", 7, false, true,
	  WHY_CONNECT_ABSTRACT, "@/tmp/.X11-unix/X0", DENY,
	  "rule:   filtered/abstract" },
	{ "default", "network unix /run/docker.sock", 9, false, false,
	  WHY_CONNECT_ABSTRACT, "@/tmp/.X11-unix/X0", DENY,
	  "layer:  L1 Landlock (ABI 9, abstract unix scope)" },
	{ "default", "network unix-sockets allow", 5, false, false,
	  WHY_CONNECT_ABSTRACT, "@x", ALLOW, "NOT ENFORCED" },
	{ "default", "network unix-sockets allow", 7, false, false,
	  WHY_CONNECT_ABSTRACT, "@x", DENY, "abstract unix scope" },

	/* The supervisor's address rules. */
	{ "default", "network allow-cidr 10.0.0.0/8:443", 7, false, true,
	  WHY_CONNECT_TCP, "10.1.2.3:443", ALLOW,
	  "rule:   allow-cidr = 10.0.0.0/8:443   (command line)" },
	{ "default", "network allow-cidr 10.0.0.0/8:443", 7, false, true,
	  WHY_CONNECT_TCP, "1.1.1.1:443", DENY,
	  "allow:  [network] allow-cidr = 1.1.1.1/32:443" },
	{ "default", "network allow-cidr 10.0.0.0/8:443", 7, false, true,
	  WHY_CONNECT_TCP, "10.1.2.3:22", DENY,
	  "allow:  [network] allow-cidr = 10.1.2.3/32:22" },
	{ "default", "network allow-cidr 10.0.0.0/8:443", 7, false, true,
	  WHY_CONNECT_TCP, "example.com:443", DEPENDS,
	  "depends on the address example.com resolves to" },
	{ "default", "network allow-cidr 10.0.0.0/8:443", 7, false, true,
	  WHY_CONNECT_TCP, "[::1]:53", DENY,
	  "port 53 reaches only the "
	  "resolvers" },
	{ "default", "network allow-cidr 10.0.0.0/8:443", 7, false, true,
	  WHY_CONNECT_TCP, "127.0.0.53:53", ALLOW, "dns (the resolvers)" },
	/* supervise = yes: a port rule is not a host rule. */
	{ "default", "network supervise yes; network connect-tcp 443", 7, false,
	  true, WHY_CONNECT_TCP, "203.0.113.7:443", ALLOW,
	  "reaches port 443 of internet hosts" },
	{ "default", "network supervise yes; network connect-tcp 443", 7, false,
	  true, WHY_CONNECT_TCP, "127.0.0.1:443", DENY,
	  "allow:  [network] allow-cidr = 127.0.0.1/32:443" },
	{ "default", "network supervise yes; network connect-tcp 443", 7, false,
	  true, WHY_CONNECT_TCP, "0.0.0.0:443", DENY,
	  "is on this host or its networks" },
	{ "default", "network supervise yes; network connect-tcp 443", 7, false,
	  true, WHY_CONNECT_TCP, "192.168.1.10:443", DENY, "filtered/local" },
/* allow-host: names decide, with the entry that did. */
#define HOSTS                                                                  \
	"network connect-tcp 443; network allow-host api.openai.com; "         \
	"network allow-host *.githubusercontent.com:443,22"
	{ "default", HOSTS, 7, false, true, WHY_CONNECT_TCP,
	  "api.openai.com:443", ALLOW,
	  "rule:   allow-host = api.openai.com   (command line)" },
	{ "default", HOSTS, 7, false, true, WHY_CONNECT_TCP,
	  "API.OpenAI.com.:443", ALLOW, "allowed: connect api.openai.com:443" },
	{ "default", HOSTS, 7, false, true, WHY_CONNECT_TCP,
	  "api.openai.com:80", DENY, "not on port 80 (filtered/host-port)" },
	{ "default", HOSTS, 7, false, true, WHY_CONNECT_TCP,
	  "api.openai.com:80", DENY,
	  "allow:  [network] allow-host = api.openai.com:80" },
	{ "default", HOSTS, 7, false, true, WHY_CONNECT_TCP,
	  "raw.githubusercontent.com:22", ALLOW,
	  "rule:   allow-host = *.githubusercontent.com:443,22" },
	{ "default", HOSTS, 7, false, true, WHY_CONNECT_TCP,
	  "githubusercontent.com:443", DENY, "is not in allow-host" },
	{ "default", HOSTS, 7, false, true, WHY_CONNECT_TCP,
	  "a.b.githubusercontent.com:443", DENY, "is not in allow-host" },
	{ "default", HOSTS, 7, false, true, WHY_CONNECT_TCP, "evil.example:443",
	  DENY, "allow:  [network] allow-host = evil.example:443" },
	/* The refusals with texts of their own (why-net.c's table), each
	 * whole. */
	{ "default", HOSTS, 7, false, true, WHY_CONNECT_TCP, "198.51.100.9:53",
	  DEPENDS,
	  "198.51.100.9:53: depends: a query to a resolver of /etc/resolv.conf "
	  "(or the dns key) is answered by llwrap's resolver, which resolves "
	  "only the names in allow-host and answers any other REFUSED without "
	  "asking anyone; port 53 reaches nothing else\n"
	  "  rule:   filtered/dns   (command line)\n"
	  "  layer:  S supervisor\n" },
	{ "default", HOSTS, 7, false, true, WHY_CONNECT_TCP, "203.0.113.7:443",
	  DEPENDS,
	  "203.0.113.7:443: depends: outside allow-cidr, an address is reached "
	  "only after a name in allow-host resolved to it (for the answer's "
	  "TTL, on that entry's ports); by itself, denied\n"
	  "  rule:   filtered/unnamed   (command line)\n"
	  "  layer:  S supervisor\n"
	  "  allow:  [network] allow-cidr = 203.0.113.7/32:443 (or "
	  "--allow-cidr 203.0.113.7/32:443)" },
	{ "default", HOSTS "; network proxy yes", 7, false, true,
	  WHY_CONNECT_TCP, "203.0.113.7:53", DENY,
	  "203.0.113.7:53: denied: names are resolved by llwrap's proxy "
	  "(allow-host, proxy = yes), not by the command: no DNS\n"
	  "  rule:   filtered/proxy   (command line)\n"
	  "  layer:  S supervisor\n" },
	{ "default", HOSTS "; network proxy yes", 7, false, true,
	  WHY_CONNECT_TCP, "203.0.113.7:443", DENY,
	  "203.0.113.7:443: denied: with llwrap's proxy (allow-host, proxy = "
	  "yes) only allow-cidr entries are reached directly; port rules name "
	  "the hosts' ports, and names go through the proxy (HTTPS_PROXY)\n"
	  "  rule:   filtered/proxy   (command line)\n"
	  "  layer:  S supervisor\n"
	  "  allow:  [network] allow-cidr = 203.0.113.7/32:443 (or "
	  "--allow-cidr 203.0.113.7/32:443)" },
	{ "default", "network allow-cidr 10.0.0.0/8:443", 7, false, true,
	  WHY_CONNECT_TCP, "[::1]:53", DENY,
	  "[::1]:53: denied: port 53 reaches only the resolvers (the dns key, "
	  "else /etc/resolv.conf)\n"
	  "  rule:   filtered/dns   (CONF/default.ini:" },
	{ "default", "network allow-cidr 10.0.0.0/8:443", 7, false, true,
	  WHY_CONNECT_TCP, "[::1]:53", DENY,
	  "  layer:  S supervisor\n"
	  "  allow:  [network] dns = [::1]:53 (or --dns [::1]:53)" },
	{ "default", "network supervise yes; network connect-tcp 443", 7, false,
	  true, WHY_CONNECT_TCP, "0.0.0.0:443", DENY,
	  "0.0.0.0:443: denied: 0.0.0.0:443 is on this host or its networks "
	  "(loopback, private, link-local), which a port rule does not reach; "
	  "the sandbox's own listeners there are reachable\n"
	  "  rule:   filtered/local   (CONF/default.ini:" },
	{ "default", "network supervise yes; network connect-tcp 443", 7, false,
	  true, WHY_CONNECT_TCP, "0.0.0.0:443", DENY,
	  "  layer:  S supervisor\n"
	  "  allow:  [network] allow-cidr = 0.0.0.0/32:443 (or --allow-cidr "
	  "0.0.0.0/32:443)" },
};

static char *
replace_conf(const char *s)
{
	const char *at = strstr(s, "CONF");

	if (at == NULL)
		return xstrdup(s);
	return xasprintf("%.*s%s%s", (int)(at - s), s, conf_dir, at + 4);
}

/* A sandbox as sandbox_prepare() would make it, without the kernel. */
struct fixture {
	struct policy *p;
	struct sandbox sb;
	struct netpolicy_rules *rules;
};

/* Returns 0, or -1 when the compiler refuses the policy (refuse set:
 * a policy that cannot be enforced without masks; the sandbox would not
 * start), else fails. */
static int
fixture_try(struct fixture *fx, const char *profile, const char *flags, int abi,
	    bool ns, bool supervise, bool refuse)
{
	struct netpolicy_addr resolver;
	struct ruleset_inputs in;
	_cleanup_free_ char *cause = NULL;
	struct sandbox *sb = &fx->sb;
	struct pathtree_input paths;

	memset(fx, 0, sizeof(*fx));
	if (cli_policy(test_env, conf_dir, "/home/u/proj", profile, flags,
		       &fx->p, &cause) < 0)
		fail_msg("%s", cause);
	sb->backend = SANDBOX_BACKEND_LANDLOCK;
	sb->policy = fx->p;
	planner_pathtree_input(fx->p, &paths);
	if (pathtree_compile(&paths, &fakefs, ns, &sb->fs, &cause) < 0) {
		if (refuse) {
			policy_free(fx->p);
			return -1;
		}
		fail_msg("%s", cause);
	}
	planner_ruleset_inputs(fx->p, &in);
	sb->landlock = ruleset_plan_new(&in, sb->fs, abi);
	sb->use_ns = ns;
	sb->ns.net = ns && fx->p->net == LLW_NET_NONE;
	sb->ns.pid = ns && fx->p->hide_processes;
	sb->supervise = supervise;
	planner_conf(fx->p, supervise, &sb->conf);
	filter_opts_init(&sb->filter);
	sb->filter.allow_unix =
		fx->p->unix_sockets ||
		(sb->landlock->handled_fs & LLW_FS_RESOLVE_UNIX);
	sb->filter.deny_inet = fx->p->net == LLW_NET_NONE && !sb->ns.net;
	sb->filter.deny_udp = fx->p->net == LLW_NET_FILTERED &&
			      fx->p->connect_udp.n == 0 &&
			      fx->p->bind_udp.n == 0;
	if (supervise) {
		sb->filter.allow_unix = true;
		sb->filter.deny_udp = false;
		assert_int_equal(value_addr("127.0.0.53", &resolver, NULL), 0);
		fx->rules = netpolicy_rules_new(fx->p, &resolver, 1);
		/* allow-host through llwrap's resolver, as llwrap why
		 * decides it where user namespaces are not known refused */
		if (sandbox_hosts_stub(sb))
			netpolicy_rules_use_stub(fx->rules);
	}
	return 0;
}

static void
fixture_build(struct fixture *fx, const char *profile, const char *flags,
	      int abi, bool ns, bool supervise)
{
	(void)fixture_try(fx, profile, flags, abi, ns, supervise, false);
}

static void
fixture_free(struct fixture *fx)
{
	netpolicy_rules_free(fx->rules);
	ruleset_plan_free(fx->sb.landlock);
	plan_free(fx->sb.fs);
	policy_free(fx->p);
}

static void
run_case(const struct why_case *c)
{
	_cleanup_free_ char *text = NULL, *says = NULL;
	_cleanup_free_ char *resolved = NULL, *host = NULL;
	_cleanup_strv_ char **unix_paths = NULL;
	struct fixture fx;
	struct why_query q = { .access = c->access, .home = "/home/u" };
	struct why_verdict verdict;
	enum want got;

	fixture_build(&fx, c->profile, c->flags, c->abi, c->ns, c->supervise);
	for (size_t i = 0; i < fx.p->unix_paths.n; i++)
		strv_push(&unix_paths, fx.p->unix_paths.v[i].value);

	if (c->what[0] == '@') {
		q.path = c->what + 1;
	} else if (c->what[0] == '/') {
		assert_int_equal(fake_resolve(&fake, c->what, &resolved), 0);
		q.exists = fake_stat(&fake, resolved, &q.is_dir) == 1;
		q.path = resolved;
		if (c->access == WHY_CONNECT_UNIX)
			q.is_dir = false;
	} else {
		assert_int_equal(why_parse_target(c->what, &q, &host), 0);
	}
	why_decide(&fx.sb, fx.rules, unix_paths, &q, &verdict);
	text = why_format(c->what, &verdict);
	got = verdict.depends ? DEPENDS : verdict.allowed ? ALLOW : DENY;
	says = replace_conf(c->says);
	if (got != c->want || strstr(text, says) == NULL)
		fail_msg("%s %s under %s%s%s (ABI %d%s%s): want %s and "
			 "\"%s\", got:\n%s",
			 c->what,
			 c->access == WHY_WRITE	 ? "--write"
			 : c->access == WHY_EXEC ? "--exec"
						 : "",
			 c->profile, c->flags ? " + " : "",
			 c->flags ? c->flags : "", c->abi, c->ns ? ", ns" : "",
			 c->supervise ? ", supervisor" : "",
			 c->want == ALLOW  ? "allow"
			 : c->want == DENY ? "deny"
					   : "depends",
			 says, text);
	why_verdict_clear(&verdict);
	fixture_free(&fx);
}

/* The bubblewrap backend: its mounts decide paths; it has no port rules,
 * so the network is either its own namespace or the host's whole. */
static void
test_bwrap(void **state)
{
	static const struct {
		const char *flags;
		enum why_access access;
		const char *what;
		bool allowed;
		const char *says;
	} t[] = {
		{ NULL, WHY_READ, "/home/u/.ssh/id_ed25519", false,
		  "layer:  F bubblewrap (mounts)" },
		{ NULL, WHY_EXEC, "/usr/bin/cc", true,
		  "layer:  F bubblewrap (mounts)" },
		{ NULL, WHY_CONNECT_TCP, "10.0.0.5:5432", false,
		  "layer:  F bubblewrap (a network namespace with only lo)" },
		{ "network connect-tcp 443", WHY_CONNECT_TCP, "10.0.0.5:5432",
		  true, "every port is reachable once any is (NOT ENFORCED)" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct fixture fx;
		struct why_query q = { .access = t[i].access };
		struct why_verdict v;
		_cleanup_free_ char *resolved = NULL, *host = NULL;
		_cleanup_free_ char *text = NULL;

		fixture_build(&fx, "default", t[i].flags, 7, false, false);
		ruleset_plan_free(fx.sb.landlock);
		fx.sb.landlock = xcalloc(1, sizeof(*fx.sb.landlock));
		fx.sb.backend = SANDBOX_BACKEND_BWRAP;
		fx.sb.bwrap = planner_bwrap_plan(fx.p, fx.sb.fs, NULL, 0);
		if (t[i].what[0] == '/') {
			assert_int_equal(
				fake_resolve(&fake, t[i].what, &resolved), 0);
			q.exists = fake_stat(&fake, resolved, &q.is_dir) == 1;
			q.path = resolved;
		} else {
			assert_int_equal(why_parse_target(t[i].what, &q, &host),
					 0);
		}
		why_decide(&fx.sb, NULL, NULL, &q, &v);
		text = why_format(t[i].what, &v);
		if (v.allowed != t[i].allowed || !strstr(text, t[i].says))
			fail_msg("bwrap %s: want %s and \"%s\", got:\n%s",
				 t[i].what, t[i].allowed ? "allow" : "deny",
				 t[i].says, text);
		why_verdict_clear(&v);
		bwrap_plan_free(fx.sb.bwrap);
		fixture_free(&fx);
	}
}

/* --explain's summary names the project, home, masks, network, unix. */
static void
test_summary(void **state)
{
	static const struct {
		const char *profile, *flags;
		bool ns;
		const char *line; /* a line starting so must be there */
	} t[] = {
		{ "opencode", NULL, true, "home: hidden except " },
		{ "opencode", NULL, true, "masked (L3): deny ~/proj/.env" },
		{ "opencode", NULL, true, "network: filtered: tcp ports " },
		{ "opencode", NULL, true, "unix: none (no unix sockets)" },
		{ "opencode", NULL, true, "processes: host processes hidden" },
		{ "default", "filesystem rw /home/u/proj", false,
		  "project /home/u/proj: rw (rw does not include execute)" },
		{ "default", "filesystem ro /home/u", false, "home: ro" },
		{ "default", "network unix /run/docker.sock", false,
		  "unix: /run/docker.sock, and the sandbox's own" },
		{ "offline", NULL, true, "network: none" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct fixture fx;
		_cleanup_strv_ char **lines = NULL;
		_cleanup_free_ char *all = NULL;
		bool found = false;

		fixture_build(&fx, t[i].profile, t[i].flags, 7, t[i].ns, false);
		lines = why_summary(&fx.sb, "/home/u");
		for (char **l = lines; l && *l; l++)
			if (strncmp(*l, t[i].line, strlen(t[i].line)) == 0)
				found = true;
		all = strv_join(lines, "\n");
		if (!found)
			fail_msg("%s: no line \"%s\" in:\n%s", t[i].profile,
				 t[i].line, all);
		fixture_free(&fx);
	}
}

static void
test_decisions(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		run_case(&cases[i]);
}

static void
test_parse_target(void **state)
{
	static const struct {
		const char *s;
		int r;
		const char *host; /* NULL: an address */
		int family;
		uint16_t port;
	} t[] = {
		{ "api.openai.com:443", 0, "api.openai.com", 0, 443 },
		{ "10.0.0.5:5432", 0, NULL, AF_INET, 5432 },
		{ "[::1]:80", 0, NULL, AF_INET6, 80 },
		{ "[::ffff:10.0.0.1]:80", 0, NULL, AF_INET, 80 },
		{ "localhost:0", 0, "localhost", 0, 0 },
		{ "::1:80", -EINVAL, NULL, 0, 0 },
		{ "api.openai.com", -EINVAL, NULL, 0, 0 },
		{ "host:65536", -EINVAL, NULL, 0, 0 },
		{ "host:80-90", -EINVAL, NULL, 0, 0 },
		{ "a b:1", -EINVAL, NULL, 0, 0 },
		{ ":443", -EINVAL, NULL, 0, 0 },
		{ "[nope]:443", -EINVAL, NULL, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct why_query q = { .access = WHY_CONNECT_TCP };
		_cleanup_free_ char *host = NULL;
		int r = why_parse_target(t[i].s, &q, &host);

		if (r != t[i].r)
			fail_msg("%s: %d, want %d", t[i].s, r, t[i].r);
		if (r < 0)
			continue;
		if (t[i].host != NULL) {
			assert_non_null(host);
			assert_string_equal(host, t[i].host);
			assert_ptr_equal(q.host, host);
		} else {
			assert_null(host);
			assert_int_equal(q.addr.family, t[i].family);
		}
		assert_int_equal(q.addr.port, t[i].port);
	}
}

/*
 * The differential test (issue 26 step 2): why's answer for a path
 * against enforcement's decision, on random policies.  Enforcement here
 * is the compiled plan Landlock and the L3 masks are built from, decided
 * by plan_decide (pathtree.h), the matcher the supervisor uses: not a
 * Landlock run per case (a child per case as the test user would take
 * minutes).  N_DIFF cases from a fixed seed, or LLW_SEED's; a policy the
 * compiler refuses (the sandbox would not start) is skipped, and at
 * least 300 are compared.
 */
enum { N_DIFF = 480 };

/* A small deterministic generator (xorshift64*): the seed is printed so
 * a failure can be replayed with LLW_SEED. */
static uint64_t
next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static void
test_differential(void **state)
{
	static const char *const rule_paths[] = {
		"/home/u",
		"/home/u/other",
		"/home/u/proj",
		"/home/u/proj/src",
		"/home/u/proj/.git",
		"/home/u/.ssh",
		"/home/u/.config",
		"/home/u/proj/.env",
		"/tmp",
		"/usr",
		"/usr/bin/cc",
		"/run",
		"/home/u/todo.txt",
		"/home/u/.local/share",
		"/etc",
	};
	static const char *const levels[] = { "deny", "ro", "rx", "rw", "rwx" };
	static const char *const paths[] = {
		"/home/u/todo.txt",
		"/home/u/other/notes",
		"/home/u/proj/src/main.c",
		"/home/u/proj/prog",
		"/home/u/proj/.env",
		"/home/u/proj/.git/config",
		"/home/u/proj/.git/hooks",
		"/home/u/.ssh/id_ed25519",
		"/home/u/.gitconfig",
		"/home/u/.config/opencode",
		"/usr/bin/cc",
		"/etc/passwd",
		"/tmp",
		"/run/docker.sock",
		"/home/u/proj/new.txt",
		"/home/u/other/new",
		"/home/u",
		"/home/u/proj",
	};
	static const enum why_access accesses[] = { WHY_READ, WHY_WRITE,
						    WHY_EXEC };
	static const int abis[] = { 1, 3, 5, 7 };
	const char *env = getenv("LLW_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : 0x26e26e26eULL;
	uint64_t s = seed ? seed : 1;
	size_t allowed = 0, denied = 0, refused = 0;

	(void)state;
	print_message("# differential: seed %#llx, %d cases\n",
		      (unsigned long long)seed, N_DIFF);
	for (int i = 0; i < N_DIFF; i++) {
		_cleanup_free_ char *flags = xstrdup("");
		_cleanup_free_ char *resolved = NULL;
		size_t n_rules = next_random(&s) % 5;
		int abi = abis[next_random(&s) % ARRAY_SIZE(abis)];
		bool ns = next_random(&s) % 2;
		const char *what = paths[next_random(&s) % ARRAY_SIZE(paths)];
		enum why_access access =
			accesses[next_random(&s) % ARRAY_SIZE(accesses)];
		struct why_query q = { .access = access, .home = "/home/u" };
		struct why_verdict v;
		struct plan_verdict e;
		struct fixture fx;
		uint64_t need;

		for (size_t k = 0; k < n_rules; k++) {
			char *f = xasprintf(
				"%s%sfilesystem %s %s", flags, k ? "; " : "",
				levels[next_random(&s) % ARRAY_SIZE(levels)],
				rule_paths[next_random(&s) %
					   ARRAY_SIZE(rule_paths)]);

			free(flags);
			flags = f;
		}
		if (fixture_try(&fx, "default", n_rules ? flags : NULL, abi, ns,
				false, true) < 0) {
			refused++;
			continue;
		}
		assert_int_equal(fake_resolve(&fake, what, &resolved), 0);
		q.exists = fake_stat(&fake, resolved, &q.is_dir) == 1;
		q.path = resolved;
		why_decide(&fx.sb, NULL, NULL, &q, &v);
		/* What the kernel is asked for (every right here is in
		 * every ABI: no ABI leaves it unhandled). */
		need = access == WHY_EXEC ? LLW_FS_EXECUTE
		       : access == WHY_WRITE && q.exists && !q.is_dir
			       ? LLW_FS_WRITE_FILE
		       : access == WHY_WRITE  ? LLW_FS_MAKE_REG
		       : q.exists && q.is_dir ? LLW_FS_READ_DIR
					      : LLW_FS_READ_FILE;
		assert_int_equal(fx.sb.landlock->handled_fs & need, need);
		e = plan_decide(fx.sb.fs, resolved, need);
		if (v.allowed != e.allowed || v.depends) {
			_cleanup_free_ char *text = why_format(what, &v);

			fail_msg("case %d (seed %#llx): %s %s under default "
				 "+ %s (ABI %d%s): why says %s, enforcement "
				 "%s (%s):\n%s",
				 i, (unsigned long long)seed,
				 access == WHY_EXEC    ? "exec"
				 : access == WHY_WRITE ? "write"
						       : "read",
				 what, flags, abi, ns ? ", ns" : "",
				 v.allowed ? "allowed" : "denied",
				 e.allowed ? "allows" : "denies",
				 e.rule ? e.rule : "no rule", text);
		}
		if (e.allowed)
			allowed++;
		else
			denied++;
		why_verdict_clear(&v);
		fixture_free(&fx);
	}
	/* Both answers occur often enough for the comparison to mean
	 * something. */
	print_message("# differential: %zu allowed, %zu denied, %zu policies "
		      "refused (not compared)\n",
		      allowed, denied, refused);
	assert_true(allowed + denied >= 300);
	assert_true(allowed >= N_DIFF / 10 && denied >= N_DIFF / 10);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decisions),
		cmocka_unit_test(test_parse_target),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_bwrap),
		cmocka_unit_test(test_differential),
	};
	const char *src = getenv("LLW_SRCDIR");
	_cleanup_free_ char *raw = xasprintf("%s/conf", src ? src : ".");
	int r;

	/* The policy records files normalised; LLW_SRCDIR holds ".." in a
	 * distcheck build (_build/sub/..). */
	conf_dir = realpath(raw, NULL);
	if (conf_dir == NULL)
		conf_dir = steal_pointer(&raw);
	r = cmocka_run_group_tests_name("why", tests, NULL, NULL);
	free(conf_dir);
	return r;
}
