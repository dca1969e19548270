#!/usr/bin/env python3
"""Clients for tests/integration/proxy.sh, run inside the sandbox.

client.py tunnel HOST:PORT SNI CAFILE: CONNECT through $HTTPS_PROXY to
  HOST:PORT, then TLS naming SNI; prints the proxy's status line, then
  the body or the error.
client.py direct ADDR PORT: a plain connect, ignoring the proxy; prints
  "connected" or the error.
client.py flood N: N connections to the proxy that send nothing; prints
  how many it closed at once ("closed K of N"), then closes them all.
"""
import os
import select
import socket
import ssl
import sys
import urllib.parse


def tunnel(target, sni, cafile):
    proxy = urllib.parse.urlsplit(os.environ["HTTPS_PROXY"])
    s = socket.create_connection((proxy.hostname, proxy.port), timeout=10)
    s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" %
              (target.encode(), target.encode()))
    head = b""
    while b"\r\n\r\n" not in head:
        d = s.recv(1)
        if not d:
            break
        head += d
    print("proxy:", head.split(b"\r\n")[0].decode())
    if b" 200 " not in head.split(b"\r\n")[0]:
        return
    ctx = ssl.create_default_context(cafile=cafile)
    ctx.check_hostname = False
    try:
        t = ctx.wrap_socket(s, server_hostname=sni)
        t.sendall(b"GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n"
                  % sni.encode())
        data = b""
        while True:
            d = t.recv(4096)
            if not d:
                break
            data += d
        print("body:", data.split(b"\r\n\r\n", 1)[-1].decode().strip())
    except (OSError, ssl.SSLError) as e:
        print("tls failed:", e.__class__.__name__, e)


def direct(addr, port):
    try:
        socket.create_connection((addr, int(port)), timeout=10)
        print("connected")
    except OSError as e:
        print("failed:", e.errno, e.strerror)


def flood(n):
    proxy = urllib.parse.urlsplit(os.environ["HTTPS_PROXY"])
    socks = [socket.create_connection((proxy.hostname, proxy.port))
             for _ in range(int(n))]
    closed = set()
    # Until 2 s pass with nothing closed (at most 30 s): on a loaded
    # machine the proxy may close the last ones late.
    quiet, total = 2.0, 30.0
    while quiet > 0 and total > 0:
        ready, _, _ = select.select([s for s in socks if s not in closed],
                                    [], [], 0.5)
        quiet -= 0.5
        total -= 0.5
        for s in ready:
            if s.recv(1) == b"":
                closed.add(s)
                quiet = 2.0
    closed = len(closed)
    print("closed %d of %s" % (closed, n))
    for s in socks:
        s.close()


if sys.argv[1] == "tunnel":
    tunnel(*sys.argv[2:5])
elif sys.argv[1] == "flood":
    flood(sys.argv[2])
else:
    direct(*sys.argv[2:4])
