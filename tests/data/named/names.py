#!/usr/bin/env python3
"""Fixture resolver for tests/integration/named.sh and bench/named.sh.

names.py ADDR LOG READY: a DNS server on ADDR port 53, UDP and TCP, for
the names below; each query it receives is appended to LOG as
"NAME TYPE PROTO ARCOUNT" (so a test can tell that a query never
arrived, or arrived without the client's additional records).  An
answer over 512 bytes is truncated over UDP (TC, no records) and whole
over TCP; an unknown name is NXDOMAIN.  READY is written once both
sockets listen.  Exits after 600 s.
"""
import socket
import struct
import sys
import threading
import time

addr, log, ready = sys.argv[1:4]
A = {
    "api.llw.test": ["198.51.100.7"],
    "llm.llw.test": ["198.51.100.7"],
    "other.llw.test": ["198.51.100.8"],
    "two.llw.test": ["198.51.100.8", "198.51.100.7"],
    "x.wild.llw.test": ["198.51.100.7"],
    "a.b.wild.llw.test": ["198.51.100.7"],
    "evil.llw.test": ["203.0.113.9"],
    "rebind.llw.test": ["127.0.0.9"],
    # This host's own address and its on-link neighbour (a router's
    # end of the link), global documentation addresses both: local.
    "self.llw.test": ["192.0.2.1"],
    "link.llw.test": ["192.0.2.2"],
    "ttl.llw.test": ["198.51.100.7"],
    "big.llw.test": ["198.51.100.7"] + ["198.51.100.%d" % i for i in range(100, 140)],
}
AAAA = {"v6.llw.test": ["2001:db8::7"],
        # The NAT64 form of the on-link neighbour 192.0.2.2.
        "nat64.llw.test": ["64:ff9b::c000:202"]}
CNAME = {"alias.llw.test": "api.llw.test"}
TTL = {"ttl.llw.test": 1}
lock = threading.Lock()


def name_rr(name):
    return b"".join(bytes([len(l)]) + l.encode() for l in name.split(".")) + b"\0"


def answer(q, proto):
    qid, flags = struct.unpack("!HH", q[:4])
    arcount = struct.unpack("!H", q[10:12])[0]
    i, labels = 12, []
    while q[i]:
        labels.append(q[i + 1:i + 1 + q[i]].decode())
        i += q[i] + 1
    qtype = struct.unpack("!H", q[i + 1:i + 3])[0]
    question = q[12:i + 5]
    name = ".".join(labels).lower()
    with lock:
        with open(log, "a") as f:
            f.write("%s %d %s %d\n" % (name, qtype, proto, arcount))
    rrs = []
    target = name
    if name in CNAME:
        target = CNAME[name]
        rrs.append(struct.pack("!HHHIH", 0xC00C, 5, 1, 60, len(name_rr(target))) + name_rr(target))
    known = target in A or target in AAAA
    ttl = TTL.get(target, 60)
    if target.startswith("many") and target.endswith(".llw.test") and target[4:-9].isdigit():
        # many<N>.llw.test: 24 addresses of their own in 198.18.0.0/15
        # (the benchmarking range: not local), for bench/named.sh.
        known = True
        base = int(target[4:-9]) * 24
        A[target] = ["198.%d.%d.%d" % (18 + (base + i) // 65536, (base + i) // 256 % 256, (base + i) % 256) for i in range(24)]
    if qtype == 1:
        for a in A.get(target, []):
            rrs.append(struct.pack("!HHHIH", 0xC00C, 1, 1, ttl, 4) + socket.inet_aton(a))
    elif qtype == 28:
        for a in AAAA.get(target, []):
            rrs.append(struct.pack("!HHHIH", 0xC00C, 28, 1, ttl, 16) +
                       socket.inet_pton(socket.AF_INET6, a))
    if rrs and name in CNAME:
        # Records of the target are owned by it, not by the question.
        rrs = [rrs[0]] + [name_rr(target) + r[2:] for r in rrs[1:]]
    rflags = 0x8180 | (0 if known or name in CNAME else 3)
    msg = struct.pack("!HHHHHH", qid, rflags, 1, len(rrs), 0, 0) + question + b"".join(rrs)
    if proto == "udp" and len(msg) > 512:
        msg = struct.pack("!HHHHHH", qid, rflags | 0x0200, 1, 0, 0, 0) + question
    return msg


def serve_udp(s):
    while True:
        q, peer = s.recvfrom(4096)
        try:
            s.sendto(answer(q, "udp"), peer)
        except Exception:
            pass


def serve_tcp(s):
    while True:
        c, _ = s.accept()
        try:
            n = struct.unpack("!H", c.recv(2))[0]
            q = b""
            while len(q) < n:
                q += c.recv(n - len(q))
            a = answer(q, "tcp")
            c.sendall(struct.pack("!H", len(a)) + a)
        except Exception:
            pass
        c.close()


u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind((addr, 53))
t = socket.socket()
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind((addr, 53))
t.listen(16)
threading.Thread(target=serve_udp, args=(u,), daemon=True).start()
threading.Thread(target=serve_tcp, args=(t,), daemon=True).start()
open(ready, "w").write("ready")
time.sleep(600)
