#!/usr/bin/env python3
"""tls.py MODE NAME: after a lookup of api.llw.test (its address is
learned), a TLS client to that address, port 8443, as MODE says; prints
"MODE: ok BODY" or "MODE: errno N" (the errno the client sees).

  sni NAME     a handshake with server name NAME, then a GET
  nosni -      a handshake with no server name
  resume NAME  a session with api.llw.test, then one resumed under NAME
  raw NAME     a ClientHello written by hand naming NAME: the first
               bytes of the answer (a TLS record) or the errno
  ech NAME     the same hello with an encrypted_client_hello extension
  proxy-raw NAME, proxy-ech NAME
               raw and ech through llwrap's proxy (HTTPS_PROXY): a
               CONNECT to api.llw.test:8443, then the hello
"""
import os, socket, ssl, struct, sys

mode, name = sys.argv[1], sys.argv[2]
if mode.startswith("proxy-"):
    addr = None
else:
    addr = socket.getaddrinfo("api.llw.test", 8443, socket.AF_INET, socket.SOCK_STREAM)[0][4]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
# TLS 1.2 hands its session out at once (1.3's ticket comes later).
ctx.maximum_version = ssl.TLSVersion.TLSv1_2


def get(host, session=None):
    s = socket.create_connection(addr, timeout=10)
    t = ctx.wrap_socket(s, server_hostname=host, session=session)
    t.sendall(b"GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (host or "api.llw.test").encode())
    body = b""
    while True:
        b = t.recv(4096)
        if not b:
            break
        body += b
    sess = t.session
    t.close()
    return body.split(b"\r\n\r\n", 1)[-1].decode().strip(), sess


def hello(host, ech):
    exts = b""
    n = host.encode()
    exts += struct.pack("!HHHBH", 0, len(n) + 5, len(n) + 3, 0, len(n)) + n
    exts += struct.pack("!HHH", 10, 4, 2) + struct.pack("!H", 23)  # groups
    exts += struct.pack("!HHH", 13, 4, 2) + struct.pack("!H", 0x0401)  # sigalgs
    if ech:
        exts += struct.pack("!HH", 0xfe0d, 8) + os.urandom(8)
    body = struct.pack("!H", 0x0303) + os.urandom(32) + b"\0"
    body += struct.pack("!HHH", 4, 0xc02f, 0x009c) + b"\x01\x00"
    body += struct.pack("!H", len(exts)) + exts
    hs = b"\x01" + struct.pack("!I", len(body))[1:] + body
    return b"\x16\x03\x01" + struct.pack("!H", len(hs)) + hs


try:
    if mode in ("proxy-raw", "proxy-ech"):
        host, port = os.environ["HTTPS_PROXY"].split("//")[1].rstrip("/").split(":")
        s = socket.create_connection((host, int(port)), timeout=10)
        s.sendall(b"CONNECT api.llw.test:8443 HTTP/1.1\r\nHost: api.llw.test:8443\r\n\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            b = s.recv(1)
            if not b:
                break
            head += b
        s.sendall(hello(name, mode == "proxy-ech"))
        got = s.recv(5)
        print("%s: %s" % (mode, "record " + got[:1].hex() if got else "closed"))
    elif mode in ("raw", "ech"):
        s = socket.create_connection(addr, timeout=10)
        s.sendall(hello(name, mode == "ech"))
        got = s.recv(5)
        print("%s: ok record %s" % (mode, got[:1].hex() if got else "none"))
    elif mode == "resume":
        _, sess = get("api.llw.test")
        body, _ = get(name, sess)
        print("resume: ok", body)
    else:
        body, _ = get(None if mode == "nosni" else name)
        print("%s: ok %s" % (mode, body))
except OSError as e:
    print("%s: errno %s" % (mode, e.errno))
