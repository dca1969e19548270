#!/usr/bin/env python3
"""Fixture servers for tests/integration/proxy.sh and bench/proxy.sh.

servers.py CERT KEY READY ADDR...: on each ADDR, plain HTTP on port 8080
and HTTPS (CERT, KEY) on port 8443.  Each answers "hello HOST from ADDR
sni=SNI" (HOST the Host header, SNI the TLS server name or -), and GET
/bytes/N answers N bytes.  READY is written once every socket listens.
"""
import http.server
import socketserver
import ssl
import sys
import threading


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def do_GET(self):
        if self.path.startswith("/bytes/"):
            n = int(self.path[len("/bytes/"):])
            self.send_response(200)
            self.send_header("Content-Length", str(n))
            self.end_headers()
            chunk = b"x" * 65536
            while n > 0:
                self.wfile.write(chunk[:min(n, len(chunk))])
                n -= min(n, len(chunk))
            return
        sni = getattr(self.connection, "llw_sni", None) or "-"
        body = ("hello %s from %s sni=%s\n" % (
            self.headers.get("Host", "-"),
            self.connection.getsockname()[0], sni)).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # bench/named.sh connects 500 times in a row: with socketserver's
    # backlog of 5 the kernel drops SYNs, each retried a second later,
    # and the run outlives the 60 s its addresses were learned for.
    request_queue_size = 1024


def main():
    cert, key, ready = sys.argv[1:4]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)

    def remember(sock, name, _ctx):
        sock.llw_sni = name
    ctx.sni_callback = remember
    servers = []
    for addr in sys.argv[4:]:
        servers.append(Server((addr, 8080), Handler))
        s = Server((addr, 8443), Handler)
        s.socket = ctx.wrap_socket(s.socket, server_side=True)
        servers.append(s)
    for s in servers:
        threading.Thread(target=s.serve_forever, daemon=True).start()
    with open(ready, "w") as f:
        f.write("ready\n")
    threading.Event().wait()


main()
