/*
 * tlshello: the server name (SNI, RFC 6066) a TLS client asks for, read
 * from the first bytes it sends through llwrap's proxy tunnel.
 *
 * The proxy compares it with the name the client gave CONNECT: a tunnel
 * opened to an allowed name whose ClientHello asks the server for
 * another (domain fronting through a CDN that serves both) is refused.
 *
 * The ClientHello is read through the record layer (RFC 8446 §5.1): the
 * handshake message may span several records, and the records may
 * arrive in pieces across reads; the caller passes everything the client
 * sent so far.  Pure: no system calls.
 */
#ifndef LLW_TLSHELLO_H
#define LLW_TLSHELLO_H

#include <stddef.h>
#include <stdint.h>

/* The largest ClientHello read (handshake body): a hello with a large
 * post-quantum key share is under 2 KiB, the record layer's limit for
 * one record is 16 KiB. */
#define LLW_TLSHELLO_MAX 65536

/*
 * Read the ClientHello at the start of buf[0..len).  Returns:
 *  - 0 and *sni, a new lower-case string, or NULL when the hello names
 *    no server (a client connecting to an address sends none);
 *  - -EPERM and *sni as above (or NULL): a well-formed hello that
 *    carries encrypted_client_hello (or its draft, encrypted_server_name):
 *    the name it shows is only the outer, public one, the server reads
 *    another from the encrypted inner hello;
 *  - -EAGAIN: the hello is not complete yet (call again with more);
 *  - -EPROTO: the data does not start with a TLS handshake record (the
 *    tunnel carries another protocol);
 *  - -EINVAL: a malformed record or hello (lengths that disagree, a
 *    handshake other than ClientHello, two server_name extensions, a
 *    name that is not a host name), or one longer than LLW_TLSHELLO_MAX.
 */
int tlshello_sni(const uint8_t *buf, size_t len, char **sni);

#endif /* LLW_TLSHELLO_H */
