/*
 * The container and the inherited seccomp filter (contain.h).  Only
 * contain_read() asks the system; the rest decides on its facts.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cleanup.h"
#include "contain.h"
#include "fdutil.h"
#include "ruleset.h"
#include "xalloc.h"

/* The number after "\nKEY:" in a status text, or -1. */
static int
status_field(const char *status, const char *key)
{
	size_t n = strlen(key);
	const char *p = status;

	while ((p = strstr(p, key)) != NULL) {
		if ((p == status || p[-1] == '\n') && p[n] == ':')
			return atoi(p + n + 1);
		p += n;
	}
	return -1;
}

void
contain_status(struct contain *c, const char *status)
{
	c->seccomp = status_field(status, "Seccomp");
	c->seccomp_filters = status_field(status, "Seccomp_filters");
	c->no_new_privs = status_field(status, "NoNewPrivs") == 1;
}

bool
contain_pidns_nested(const char *link)
{
	/* PROC_PID_INIT_INO (include/linux/proc_ns.h), the same since 3.8. */
	return link != NULL && strncmp(link, "pid:[", 5) == 0 &&
	       strcmp(link, "pid:[4026531836]") != 0;
}

bool
contain_ipcns_nested(const char *link)
{
	/* PROC_IPC_INIT_INO (include/linux/proc_ns.h), the same since 3.8. */
	return link != NULL && strncmp(link, "ipc:[", 5) == 0 &&
	       strcmp(link, "ipc:[4026531839]") != 0;
}

enum contain_runtime
contain_runtime_of(bool dockerenv, bool containerenv, const char *cgroup,
		   const char *mountinfo, const char *container)
{
	if ((cgroup != NULL && strstr(cgroup, "kubepods") != NULL) ||
	    (mountinfo != NULL &&
	     (strstr(mountinfo, "kubepods") != NULL ||
	      strstr(mountinfo, "/kubelet/pods/") != NULL)))
		return CONTAIN_KUBERNETES;
	if (containerenv ||
	    (container != NULL && strcmp(container, "podman") == 0))
		return CONTAIN_PODMAN;
	if (dockerenv ||
	    (cgroup != NULL && strstr(cgroup, "/docker") != NULL) ||
	    (mountinfo != NULL &&
	     strstr(mountinfo, "/docker/containers/") != NULL))
		return CONTAIN_DOCKER;
	if ((cgroup != NULL && strstr(cgroup, "containerd") != NULL) ||
	    (mountinfo != NULL && strstr(mountinfo, "io.containerd") != NULL))
		return CONTAIN_CONTAINERD;
	if (container != NULL && *container != '\0')
		return CONTAIN_OTHER;
	return CONTAIN_NONE;
}

/* The value of container= in a NUL-separated environment, or NULL. */
static const char *
environ_container(const char *env, size_t len)
{
	for (size_t i = 0; i < len; i += strlen(env + i) + 1)
		if (strncmp(env + i, "container=", 10) == 0)
			return env + i + 10;
	return NULL;
}

static char *
file_read(const char *path, size_t max, size_t *len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *text = NULL;

	if (fd < 0 || fd_read_all(fd, max, &text, len) < 0)
		return NULL;
	return text;
}

/* The pid this llwrap started as: its own processes (the guardian's,
 * the monitor's children) are forks of it, never outer ones. */
static pid_t started_as;

__attribute__((constructor)) static void
contain_started(void)
{
	started_as = getpid();
}

bool
contain_outer_in(const pid_t *pids, char *const *comms, size_t n, pid_t self,
		 pid_t started)
{
	/* Below the process llwrap started as, every ancestor up to it is
	 * this run's own. */
	bool own = self != started;

	for (size_t i = 0; i < n; i++) {
		if (own) {
			own = pids[i] != started;
			continue;
		}
		if (comms[i] != NULL && strcmp(comms[i], "llwrap") == 0)
			return true;
	}
	return false;
}

/* Whether an ancestor of this process above this run's own is an llwrap
 * (its comm): one that supervises stays the command's parent; else
 * LLWRAP in the environment (sandbox.c) tells. */
static bool
llwrap_ancestor(void)
{
	char path[64];
	pid_t pid = getppid(), pids[64];
	char *comms[64];
	size_t n = 0;
	bool outer;

	for (; pid > 1 && n < ARRAY_SIZE(pids); n++) {
		_cleanup_free_ char *stat = NULL;
		const char *p;

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		pids[n] = pid;
		comms[n] = file_read_line(path, 64);
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		/* pid (comm) state ppid: comm may hold ") ". */
		if ((stat = file_read(path, 4096, NULL)) == NULL ||
		    (p = strrchr(stat, ')')) == NULL ||
		    sscanf(p + 1, " %*c %d", &pid) != 1) {
			n++;
			break;
		}
	}
	outer = contain_outer_in(pids, comms, n, getpid(), started_as);
	for (size_t i = 0; i < n; i++)
		free(comms[i]);
	return outer;
}

void
contain_read(struct contain *c)
{
	_cleanup_free_ char *status = NULL, *cgroup = NULL, *mountinfo = NULL;
	_cleanup_free_ char *env = NULL;
	const char *container = NULL;
	struct ruleset_kernel k;
	size_t len = 0;

	memset(c, 0, sizeof(*c));
	c->seccomp = c->seccomp_filters = -1;
	if ((status = file_read("/proc/self/status", 64 * 1024, NULL)) != NULL)
		contain_status(c, status);
	cgroup = file_read("/proc/1/cgroup", 64 * 1024, NULL);
	mountinfo = file_read("/proc/self/mountinfo", 1024 * 1024, NULL);
	if ((env = file_read("/proc/1/environ", 64 * 1024, &len)) != NULL)
		container = environ_container(env, len);
	c->runtime = contain_runtime_of(access("/.dockerenv", F_OK) == 0,
					access("/run/.containerenv", F_OK) == 0,
					cgroup, mountinfo, container);
	if (c->runtime == CONTAIN_OTHER)
		snprintf(c->other, sizeof(c->other), "%s", container);
	c->outer_llwrap = getenv("LLWRAP") != NULL || llwrap_ancestor();
	c->dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1;
	ruleset_probe(&k);
	c->default_needs_l3 = k.abi < 3;
}

const char *
contain_runtime_name(const struct contain *c)
{
	switch (c->runtime) {
	case CONTAIN_NONE:
		return NULL;
	case CONTAIN_DOCKER:
		return "Docker";
	case CONTAIN_PODMAN:
		return "podman";
	case CONTAIN_CONTAINERD:
		return "containerd";
	case CONTAIN_KUBERNETES:
		return "Kubernetes";
	case CONTAIN_OTHER:
		return c->other;
	}
	return NULL;
}

/* What -p default still gives where the container cannot change: where
 * Landlock lacks truncate it needs L3 as well, and nothing runs. */
#define CONTAIN_DEFAULT(c)                                                     \
	((c)->default_needs_l3 ? ""                                            \
			       : "; if the container cannot change, -p "       \
				 "default (Landlock and seccomp alone) runs "  \
				 "here")

char *
contain_filter_cause(const struct contain *c, const char *what,
		     const char *syscalls)
{
	if (c->seccomp != 2)
		return NULL;
	if (c->outer_llwrap)
		return xasprintf(
			"an outer llwrap's seccomp filter refuses %s (an "
			"llwrap inside llwrap can only add Landlock and "
			"seccomp, and so only tighten: give the inner one a "
			"policy without masks, private-tmp, hide-processes, "
			"net = none or the network supervisor's rules "
			"(allow-host, port rules), such as -p default)",
			what);
	switch (c->runtime) {
	case CONTAIN_DOCKER:
	case CONTAIN_PODMAN:
		return xasprintf("%s's default seccomp profile refuses %s "
				 "(%s: EPERM): run the container with "
				 "--security-opt seccomp=unconfined, or a "
				 "profile that allows %s%s",
				 contain_runtime_name(c), what, syscalls,
				 syscalls, CONTAIN_DEFAULT(c));
	case CONTAIN_CONTAINERD:
		return xasprintf("containerd's seccomp profile refuses %s "
				 "(%s: EPERM): run the container without "
				 "ctr's --seccomp, or with --seccomp-profile "
				 "naming a profile that allows %s%s",
				 what, syscalls, syscalls, CONTAIN_DEFAULT(c));
	case CONTAIN_KUBERNETES:
		return xasprintf("the pod's seccomp profile (RuntimeDefault) "
				 "refuses %s (%s: EPERM): set the container's "
				 "securityContext.seccompProfile to {type: "
				 "Unconfined}, or to a Localhost profile that "
				 "allows %s%s",
				 what, syscalls, syscalls, CONTAIN_DEFAULT(c));
	case CONTAIN_OTHER:
		return xasprintf("the seccomp filter of this container "
				 "(container=%s) refuses %s (%s: EPERM): "
				 "start it without that filter, or with one "
				 "that allows %s%s",
				 c->other, what, syscalls, syscalls,
				 CONTAIN_DEFAULT(c));
	case CONTAIN_NONE:
		break;
	}
	return xasprintf("a seccomp filter this process inherited (%d "
			 "filter%s, no llwrap among its ancestors: a service "
			 "manager's, a container's or another sandbox's) "
			 "refuses %s (%s: EPERM): start it without that "
			 "filter, or with one that allows %s%s",
			 c->seccomp_filters, c->seccomp_filters == 1 ? "" : "s",
			 what, syscalls, syscalls, CONTAIN_DEFAULT(c));
}

char *
contain_ptrace_cause(const struct contain *c, const char *what,
		     const char *syscalls)
{
	char *cause;

	if (!c->dumpable)
		return xasprintf("%s: EPERM (ptrace access is refused: llwrap "
				 "is not dumpable, as when it is executed "
				 "without read permission; make it readable)",
				 syscalls);
	if ((cause = contain_filter_cause(c, what, syscalls)) != NULL)
		return cause;
	return xasprintf("%s: EPERM (ptrace access to a child of llwrap's "
			 "own is refused by a security module: Yama's "
			 "kernel.yama.ptrace_scope above 1, or another)",
			 syscalls);
}

char *
contain_proc_fix(const struct contain *c, bool held)
{
	const char *how = "run the container without masked /proc paths "
			  "(Docker: --security-opt systempaths=unconfined, "
			  "podman: --security-opt unmask=ALL, Kubernetes: "
			  "securityContext.procMount: Unmasked)";

	switch (c->runtime) {
	case CONTAIN_DOCKER:
		how = "run the container with --security-opt "
		      "systempaths=unconfined";
		break;
	case CONTAIN_PODMAN:
		how = "run the container with --security-opt unmask=ALL";
		break;
	case CONTAIN_KUBERNETES:
		how = "set the container's securityContext.procMount to "
		      "Unmasked (with hostUsers: false)";
		break;
	case CONTAIN_CONTAINERD:
	case CONTAIN_OTHER:
	case CONTAIN_NONE:
		break;
	}
	return xasprintf("%s%s", how,
			 held ? "" : ", or set hide-processes = no");
}
