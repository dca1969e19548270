/*
 * refusal: the refusals' one table.  See refusal.h.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "refusal.h"

static const struct {
	const char *name, *reason;
	int error;
} table[REFUSAL_COUNT] = {
	[REFUSAL_NONE] = { NULL, "allowed", 0 },
	[REFUSAL_ABSTRACT] = { "filtered/abstract",
			       "no rule allows the host's abstract sockets",
			       EACCES },
	[REFUSAL_UNIX] = { "filtered/unix", "not in the unix list", EACCES },
	[REFUSAL_UNIX_BIND] = { "filtered/unix-bind",
				"the socket's directory is not writable",
				EACCES },
	[REFUSAL_HOST] = { "filtered/host", "not in allow-host", EACCES },
	[REFUSAL_HOST_PORT] = { "filtered/host-port",
				"allow-host does not allow this port", EACCES },
	[REFUSAL_NO_CIDR] = { "filtered/no-cidr",
			      "an address no allow-cidr entry holds", EACCES },
	[REFUSAL_REBIND] = { "filtered/rebind",
			     "the name resolves to a local address or one of "
			     "this host's or its links', which no allow-cidr "
			     "entry holds (rebinding)",
			     EACCES },
	[REFUSAL_SNI] = { "filtered/sni",
			  "the TLS server name differs from the CONNECT host "
			  "(domain fronting)",
			  EACCES },
	[REFUSAL_DNS_TYPE] = { "filtered/dns-type",
			       "only A, AAAA and CNAME queries are forwarded",
			       EACCES },
	[REFUSAL_DNS_MALFORMED] = { "filtered/dns-malformed",
				    "a malformed query", EACCES },
	[REFUSAL_PROXY] = { "filtered/proxy",
			    "names are reached through llwrap's proxy only",
			    EACCES },
	[REFUSAL_DNS] = { "filtered/dns", "not a configured resolver", EACCES },
	[REFUSAL_PORT] = { "filtered/port",
			   "the allow-cidr entry holding the address does "
			   "not allow this port",
			   EACCES },
	[REFUSAL_LOCAL] = { "filtered/local",
			    "port rules do not reach this host or its "
			    "networks",
			    EACCES },
	[REFUSAL_UNNAMED] = { "filtered/unnamed",
			      "no allowed name resolves to the address",
			      EACCES },
	[REFUSAL_NET_PORT] = { "filtered/net-port",
			       "no connect port rule allows this port",
			       EACCES },
	[REFUSAL_LANDLOCK_PORT] = { "filtered/landlock-port",
				    "no connect port rule allows this port",
				    EACCES },
	[REFUSAL_BIND_PORT] = { "filtered/bind-port",
				"no bind port rule allows this port", EACCES },
	[REFUSAL_LISTEN] = { "filtered/listen", "not a listen address",
			     EACCES },
	[REFUSAL_SHARED_PORT] = { "filtered/shared-port",
				  "a socket of another program holds the port",
				  EADDRINUSE },
	[REFUSAL_UNPUBLISHED] = { "filtered/unpublished",
				  "a server for the sandbox alone: no rule "
				  "publishes its port",
				  0 },
	[REFUSAL_SOURCE_ROUTE] = { "filtered/source-route",
				   "the socket carries a routing header or a "
				   "source route",
				   EPERM },
	[REFUSAL_SERVER_NAME] = { "filtered/server-name",
				  "the server name is not one of the names "
				  "that resolved to the address",
				  ECONNRESET },
	[REFUSAL_ECH] = { "filtered/ech",
			  "an encrypted ClientHello hides the server name",
			  ECONNRESET },
	[REFUSAL_NO_NAME] = { "filtered/no-name",
			      "the connection names no server (no TLS server "
			      "name or HTTP Host) to check against the names "
			      "that resolved to the address",
			      ECONNRESET },
	[REFUSAL_DNS_BUDGET] = { "filtered/dns-budget",
				 "a wildcard's budget of new names a minute "
				 "is spent (the label channel)",
				 EACCES },
	[REFUSAL_QUIC] = { "filtered/quic",
			   "QUIC to a named host: its server name is not "
			   "checked (HTTP/3 clients fall back to TCP, where "
			   "it is)",
			   EACCES },
	[REFUSAL_NO_GETFD] = { "filtered/no-getfd",
			       "a seccomp filter (a container runtime's) "
			       "refuses pidfd_getfd, and the supervisor has "
			       "no substitute for this call: it connects, "
			       "binds and sends on sockets it makes itself, "
			       "not on unix datagram sockets, nor sendmsg on "
			       "a stream socket",
			       EACCES },
	[REFUSAL_RELAY] = { "filtered/relay",
			    "llwrap-relay, which checks the server name of "
			    "connections to addresses learned from names, "
			    "could not start or has ended (the log says why)",
			    EACCES },
	[REFUSAL_UNKNOWN] = { "filtered/unknown", "refused", EACCES },
};

const char *
refusal_name(enum refusal r)
{
	return (unsigned)r < REFUSAL_COUNT ? table[r].name
					   : table[REFUSAL_UNKNOWN].name;
}

const char *
refusal_reason(enum refusal r)
{
	return (unsigned)r < REFUSAL_COUNT ? table[r].reason
					   : table[REFUSAL_UNKNOWN].reason;
}

int
refusal_errno(enum refusal r)
{
	return (unsigned)r < REFUSAL_COUNT ? table[r].error
					   : table[REFUSAL_UNKNOWN].error;
}

enum refusal
refusal_parse(const char *name)
{
	if (name == NULL)
		return REFUSAL_NONE;
	for (size_t i = 1; i < REFUSAL_UNKNOWN; i++)
		if (strcmp(name, table[i].name) == 0)
			return (enum refusal)i;
	return REFUSAL_UNKNOWN;
}
