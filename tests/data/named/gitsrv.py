# gitsrv.py CERT KEY ROOT READY: the fixture's HTTPS server of a dumb-HTTP
# git repository (ROOT) on 198.51.100.7:8444, api.llw.test's address in
# the named and sni fixtures; READY is made once it listens.
import functools, http.server, ssl, sys
cert, key, root, ready = sys.argv[1:5]
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=root)
srv = http.server.ThreadingHTTPServer(("198.51.100.7", 8444), h)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
open(ready, "w").close()
srv.serve_forever()
