/*
 * The key table (keys.h).
 */
#include <string.h>

#include "cleanup.h"
#include "keys.h"

static const char *const choices_mode[] = { "none", "filtered", "host", NULL };
static const char *const choices_allow[] = { "allow", "deny", NULL };

#define NO_WRITE "rw and rwx grant write access"
#define NO_NET	 "this key grants network access"
#define NO_LOG	 "logging settings are not restrictions"
#define NO_LIMIT "a limit could be raised; set limits in a profile"
#define NO_MATCH                                                               \
	"it is applied to its own project already and cannot have a "          \
	"[match] section"
#define NO_ENV	   "keep and set pass variables to the command"
#define NONE_PATHS "'none' would remove rules of less specific profiles"

/* Rows by their fields, so a row reads as a sentence. */
#define K(id_, sec, nm, ty, ch, mg, ti, on, wh, fl, hl)                        \
	[id_] = { .id = id_,                                                   \
		  .section = sec,                                              \
		  .name = nm,                                                  \
		  .type = ty,                                                  \
		  .choices = ch,                                               \
		  .merge = mg,                                                 \
		  .tighten = ti,                                               \
		  .only = on,                                                  \
		  .why = wh,                                                   \
		  .flag = fl,                                                  \
		  .help = hl }

const struct key keys_table[KEY_COUNT] = {
	K(KEY_INCLUDE, "profile", "include", KEY_T_INCLUDES, NULL,
	  KEY_MERGE_SOURCE, KEY_TIGHTEN_NEVER, NULL,
	  "it cannot include profiles", NULL,
	  "profiles applied before this one"),
	K(KEY_DESCRIPTION, "profile", "description", KEY_T_TEXT, NULL,
	  KEY_MERGE_JOIN, KEY_TIGHTEN_FREE, NULL, NULL, NULL,
	  "what the profile is for, shown by --explain"),
	K(KEY_BEST_EFFORT, "profile", "best-effort", KEY_T_BOOL, NULL,
	  KEY_MERGE_SCALAR, KEY_TIGHTEN_ONLY, "no",
	  "best-effort = yes drops restrictions", "best-effort",
	  "run even if some restriction cannot be enforced here\n"
	  "(each is reported as NOT ENFORCED)"),
	K(KEY_RO, "filesystem", "ro", KEY_T_PATHS, NULL, KEY_MERGE_PATHS,
	  KEY_TIGHTEN_NARROW, NULL, NONE_PATHS, "ro",
	  "read files, list directories"),
	K(KEY_RX, "filesystem", "rx", KEY_T_PATHS, NULL, KEY_MERGE_PATHS,
	  KEY_TIGHTEN_NARROW, NULL, NONE_PATHS, "rx", "ro + execute"),
	K(KEY_RW, "filesystem", "rw", KEY_T_PATHS, NULL, KEY_MERGE_PATHS,
	  KEY_TIGHTEN_NEVER, NULL, NO_WRITE, "rw",
	  "ro + write, create, remove (no execute)"),
	K(KEY_RWX, "filesystem", "rwx", KEY_T_PATHS, NULL, KEY_MERGE_PATHS,
	  KEY_TIGHTEN_NEVER, NULL, NO_WRITE, "rwx", "rw + execute"),
	K(KEY_DENY, "filesystem", "deny", KEY_T_PATHS, NULL, KEY_MERGE_PATHS,
	  KEY_TIGHTEN_NARROW, NULL, NONE_PATHS, "deny", "nothing"),
	K(KEY_MKDIR, "filesystem", "mkdir", KEY_T_PATHS, NULL, KEY_MERGE_LIST,
	  KEY_TIGHTEN_NEVER, NULL, "mkdir creates directories", NULL,
	  "directories created before the run when missing"),
	K(KEY_GIT_CONFIG, "filesystem", "git-config", KEY_T_PATHS, NULL,
	  KEY_MERGE_LIST, KEY_TIGHTEN_NEVER, NULL,
	  "git-config grants read access", NULL,
	  "git configuration files, and what they include, read-only"),
	K(KEY_TOUCH, "filesystem", "touch", KEY_T_PATHS, NULL, KEY_MERGE_LIST,
	  KEY_TIGHTEN_NEVER, NULL, "touch creates files", NULL,
	  "empty files created before the run when missing"),
	K(KEY_COPY, "filesystem", "copy", KEY_T_PATHS, NULL, KEY_MERGE_LIST,
	  KEY_TIGHTEN_NEVER, NULL, "copy writes files", NULL,
	  "SRC DST: a copy of the user's file, made again when newer"),
	K(KEY_PRIVATE_TMP, "filesystem", "private-tmp", KEY_T_BOOL, NULL,
	  KEY_MERGE_SCALAR, KEY_TIGHTEN_ONLY, "yes",
	  "only private-tmp = yes tightens", NULL,
	  "an empty tmpfs of the sandbox's own on /tmp"),
	K(KEY_PROTECT_GIT, "filesystem", "protect-git", KEY_T_BOOL, NULL,
	  KEY_MERGE_SCALAR, KEY_TIGHTEN_ONLY, "yes", "only yes tightens", NULL,
	  "the repository's files that run commands read-only"),
	K(KEY_PROTECT_LATER_RUN, "filesystem", "protect-later-run", KEY_T_BOOL,
	  NULL, KEY_MERGE_SCALAR, KEY_TIGHTEN_ONLY, "yes", "only yes tightens",
	  NULL, "files other tools run later in the project read-only"),
	K(KEY_MODE, "network", "mode", KEY_T_CHOICE, choices_mode,
	  KEY_MERGE_SCALAR, KEY_TIGHTEN_NARROW, NULL, NULL, "net",
	  "no network, port and host rules, or all of it"),
	K(KEY_CONNECT_TCP, "network", "connect-tcp", KEY_T_PORTS, NULL,
	  KEY_MERGE_PORTS, KEY_TIGHTEN_NARROW, NULL, NULL, "connect-tcp",
	  "e.g. 443,80 or 8000-8100; any host on those ports"),
	K(KEY_BIND_TCP, "network", "bind-tcp", KEY_T_PORTS, NULL,
	  KEY_MERGE_PORTS, KEY_TIGHTEN_NARROW, NULL, NULL, "bind-tcp",
	  "0 means any ephemeral port"),
	K(KEY_CONNECT_UDP, "network", "connect-udp", KEY_T_PORTS, NULL,
	  KEY_MERGE_PORTS, KEY_TIGHTEN_NARROW, NULL, NULL, "connect-udp",
	  "UDP destination ports"),
	K(KEY_BIND_UDP, "network", "bind-udp", KEY_T_PORTS, NULL,
	  KEY_MERGE_PORTS, KEY_TIGHTEN_NARROW, NULL, NULL, "bind-udp",
	  "UDP ports to bind"),
	K(KEY_UNIX_SOCKETS, "network", "unix-sockets", KEY_T_CHOICE,
	  choices_allow, KEY_MERGE_SCALAR, KEY_TIGHTEN_ONLY, "deny",
	  "unix-sockets = allow grants unix sockets", NULL,
	  "whether AF_UNIX sockets may be created"),
	K(KEY_ALLOW_CIDR, "network", "allow-cidr", KEY_T_CIDRS, NULL,
	  KEY_MERGE_LIST, KEY_TIGHTEN_NEVER, NULL, NO_NET, "allow-cidr",
	  "only these destinations: 10.0.0.0/8 ::1/128:8080"),
	K(KEY_ALLOW_HOST, "network", "allow-host", KEY_T_HOSTS, NULL,
	  KEY_MERGE_LIST, KEY_TIGHTEN_NEVER, NULL, NO_NET, "allow-host",
	  "reach this name (*.NAME: one label), no other"),
	K(KEY_UNIX, "network", "unix", KEY_T_PATHS, NULL, KEY_MERGE_LIST,
	  KEY_TIGHTEN_NEVER, NULL, NO_NET, "unix",
	  "allow connecting to this pathname unix socket"),
	K(KEY_LISTEN, "network", "listen", KEY_T_LISTEN, NULL, KEY_MERGE_LIST,
	  KEY_TIGHTEN_NEVER, NULL, NO_NET, "listen",
	  "allow bind/listen only there"),
	K(KEY_DNS, "network", "dns", KEY_T_ADDRS, NULL, KEY_MERGE_LIST,
	  KEY_TIGHTEN_NEVER, NULL, NO_NET, "dns",
	  "the resolver port 53 may reach (else resolv.conf's)"),
	K(KEY_SUPERVISE, "network", "supervise", KEY_T_BOOL, NULL,
	  KEY_MERGE_SCALAR, KEY_TIGHTEN_ONLY, "yes",
	  "only supervise = yes tightens", NULL,
	  "run the supervisor even without its rules"),
	K(KEY_PROXY, "network", "proxy", KEY_T_BOOL, NULL, KEY_MERGE_SCALAR,
	  KEY_TIGHTEN_ONLY, "yes", "only proxy = yes tightens", "proxy",
	  "names only through llwrap's HTTP(S) proxy; no DNS"),
	K(KEY_LOG_BLOCKED, "network", "log-blocked", KEY_T_BOOL, NULL,
	  KEY_MERGE_SCALAR, KEY_TIGHTEN_NEVER, NULL, NO_LOG, NULL,
	  "log blocked attempts"),
	K(KEY_LOG_PREFIX, "network", "log-prefix", KEY_T_TEXT, NULL,
	  KEY_MERGE_SCALAR, KEY_TIGHTEN_NEVER, NULL, NO_LOG, NULL,
	  "the blocked-attempt log's prefix"),
	K(KEY_LOG_STDERR, "network", "log-stderr", KEY_T_BOOL, NULL,
	  KEY_MERGE_SCALAR, KEY_TIGHTEN_NEVER, NULL, NO_LOG, NULL,
	  "note blocked attempts on the command's stderr"),
	K(KEY_ENV_KEEP, "environment", "keep", KEY_T_ENVGLOBS, NULL,
	  KEY_MERGE_ENV, KEY_TIGHTEN_NEVER, NULL, NO_ENV, "env-keep",
	  "keep this environment variable"),
	K(KEY_ENV_SET, "environment", "set", KEY_T_ENVSET, NULL, KEY_MERGE_ENV,
	  KEY_TIGHTEN_NEVER, NULL, NO_ENV, "env-set", "set it"),
	K(KEY_ENV_UNSET, "environment", "unset", KEY_T_ENVGLOBS, NULL,
	  KEY_MERGE_ENV, KEY_TIGHTEN_NARROW, NULL,
	  "'none' would bring back variables that less specific profiles "
	  "unset",
	  "env-unset", "remove it"),
	K(KEY_PTRACE, "process", "ptrace", KEY_T_CHOICE, choices_allow,
	  KEY_MERGE_SCALAR, KEY_TIGHTEN_ONLY, "deny",
	  "ptrace = allow widens process access", NULL,
	  "whether the command may trace its own processes"),
	K(KEY_HIDE_PROCESSES, "process", "hide-processes", KEY_T_BOOL, NULL,
	  KEY_MERGE_SCALAR, KEY_TIGHTEN_ONLY, "yes",
	  "only hide-processes = yes tightens", NULL,
	  "a pid namespace with a /proc of its own"),
	K(KEY_TMPFS_SIZE, "limits", "tmpfs-size", KEY_T_SIZE, NULL,
	  KEY_MERGE_SCALAR, KEY_TIGHTEN_NEVER, NULL, NO_LIMIT, NULL,
	  "the size of each private tmpfs"),
	K(KEY_MEMORY, "limits", "memory", KEY_T_BYTES, NULL, KEY_MERGE_SCALAR,
	  KEY_TIGHTEN_NEVER, NULL, NO_LIMIT, NULL,
	  "RLIMIT_AS: address space per process"),
	K(KEY_FILE_SIZE, "limits", "file-size", KEY_T_BYTES, NULL,
	  KEY_MERGE_SCALAR, KEY_TIGHTEN_NEVER, NULL, NO_LIMIT, NULL,
	  "RLIMIT_FSIZE: the largest file written"),
	K(KEY_PROCESSES, "limits", "processes", KEY_T_COUNT, NULL,
	  KEY_MERGE_SCALAR, KEY_TIGHTEN_NEVER, NULL, NO_LIMIT, NULL,
	  "RLIMIT_NPROC: processes of the user"),
	K(KEY_FILES, "limits", "files", KEY_T_COUNT, NULL, KEY_MERGE_SCALAR,
	  KEY_TIGHTEN_NEVER, NULL, NO_LIMIT, NULL,
	  "RLIMIT_NOFILE: open files per process"),
	K(KEY_CPU, "limits", "cpu", KEY_T_COUNT, NULL, KEY_MERGE_SCALAR,
	  KEY_TIGHTEN_NEVER, NULL, NO_LIMIT, NULL,
	  "RLIMIT_CPU: CPU seconds per process"),
	K(KEY_TIMEOUT, "limits", "timeout", KEY_T_DURATION, NULL,
	  KEY_MERGE_SCALAR, KEY_TIGHTEN_NEVER, NULL, NO_LIMIT, "timeout",
	  "stop the command after this long ([limits] timeout:\n"
	  "seconds, or with s, m, h or d: 90, 30m)"),
	K(KEY_MEMORY_MAX, "limits", "memory-max", KEY_T_BYTES, NULL,
	  KEY_MERGE_SCALAR, KEY_TIGHTEN_NEVER, NULL, NO_LIMIT, NULL,
	  "cgroup memory.max of the command's own cgroup"),
	K(KEY_PIDS_MAX, "limits", "pids-max", KEY_T_COUNT, NULL,
	  KEY_MERGE_SCALAR, KEY_TIGHTEN_NEVER, NULL, NO_LIMIT, NULL,
	  "cgroup pids.max of the command's own cgroup"),
	K(KEY_MATCH_COMMAND, "match", "command", KEY_T_COMMANDS, NULL,
	  KEY_MERGE_SOURCE, KEY_TIGHTEN_NEVER, NULL, NO_MATCH, NULL,
	  "apply the profile to these commands"),
	K(KEY_MATCH_PROFILE, "match", "profile", KEY_T_NAMES, NULL,
	  KEY_MERGE_SOURCE, KEY_TIGHTEN_NEVER, NULL, NO_MATCH, NULL,
	  "apply the profile with these profiles"),
	K(KEY_MATCH_PROJECT, "match", "project", KEY_T_PATHS, NULL,
	  KEY_MERGE_SOURCE, KEY_TIGHTEN_NEVER, NULL, NO_MATCH, NULL,
	  "apply the profile in these projects"),
};

const struct key *
keys_find(const char *section, const char *name)
{
	for (size_t i = 0; i < KEY_COUNT; i++)
		if (strcmp(keys_table[i].section, section) == 0 &&
		    strcmp(keys_table[i].name, name) == 0)
			return &keys_table[i];
	return NULL;
}

const char *
keys_section_of(const char *name)
{
	const char *found = NULL;

	for (size_t i = 0; i < KEY_COUNT; i++) {
		if (strcmp(keys_table[i].name, name) != 0)
			continue;
		if (found != NULL)
			return NULL;
		found = keys_table[i].section;
	}
	return found;
}

bool
keys_section_known(const char *section)
{
	for (size_t i = 0; i < KEY_COUNT; i++)
		if (strcmp(keys_table[i].section, section) == 0)
			return true;
	return false;
}

const struct key *
keys_by_flag(const char *flag)
{
	for (size_t i = 0; i < KEY_COUNT; i++)
		if (keys_table[i].flag != NULL &&
		    strcmp(keys_table[i].flag, flag) == 0)
			return &keys_table[i];
	return NULL;
}

bool
keys_single(const struct key *k)
{
	switch (k->type) {
	case KEY_T_BOOL:
	case KEY_T_CHOICE:
	case KEY_T_SIZE:
	case KEY_T_BYTES:
	case KEY_T_COUNT:
	case KEY_T_DURATION:
		return true;
	default:
		return false;
	}
}
