# dns.py MODE READYFILE: a DNS server on 127.0.0.1:53 for the names under
# llw.test (A 127.0.0.7), counting the queries it gets in READYFILE.  MODE udp: UDP only, no TCP listener.  MODE tc:
# every UDP answer is truncated (TC, no records), the full answer only
# over TCP, as resolvers that answer UDP with TC do.  Exits after 60 s.
import os, socket, struct, sys, threading, time

mode, ready = sys.argv[1], sys.argv[2]
asked = 0
lock = threading.Lock()

def count():
    global asked
    with lock:
        asked += 1
        open(ready + ".tmp", "w").write(str(asked))
        os.replace(ready + ".tmp", ready)

def answer(q, truncate):
    qid, flags = struct.unpack("!HH", q[:4])
    i, labels = 12, []
    while q[i]:
        labels.append(q[i + 1:i + 1 + q[i]].decode())
        i += q[i] + 1
    qtype = struct.unpack("!H", q[i + 1:i + 3])[0]
    question = q[12:i + 5]
    name = ".".join(labels).lower()
    ok = name.endswith(".llw.test") and qtype == 1
    rflags = 0x8180 | (0x0200 if truncate else 0) | (0 if ok else 3)
    n = 1 if ok and not truncate else 0
    hdr = struct.pack("!HHHHHH", qid, rflags, 1, n, 0, 0)
    rr = struct.pack("!HHHIH", 0xC00C, 1, 1, 60, 4) + bytes([127, 0, 0, 7])
    return hdr + question + (rr if n else b"")

def serve_udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 53))
    while True:
        q, peer = s.recvfrom(512)
        count()
        s.sendto(answer(q, mode == "tc"), peer)

def serve_tcp():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 53))
    s.listen(8)
    while True:
        c, _ = s.accept()
        count()
        n = struct.unpack("!H", c.recv(2))[0]
        q = b""
        while len(q) < n:
            q += c.recv(n - len(q))
        a = answer(q, False)
        c.sendall(struct.pack("!H", len(a)) + a)
        c.close()

threading.Thread(target=serve_udp, daemon=True).start()
if mode == "tc":
    threading.Thread(target=serve_tcp, daemon=True).start()
open(ready, "w").write("0")
time.sleep(60)
