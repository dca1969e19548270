#!/usr/bin/env python3
# srv.py PROTO ADDR PORT COUNTFILE...: serve each (tcp: accept and close;
# udp: receive), writing the number of connections or datagrams to
# COUNTFILE after each (before a connection is closed); unix-stream and unix-dgram take a PATH as ADDR
# and no PORT ("-").  The PORT 0 asks for a free port, written to
# COUNTFILE.port.
import os, select, socket, sys, time
a = sys.argv[1:]
socks = {}
for i in range(0, len(a), 4):
    proto, addr, port, cf = a[i:i + 4]
    if proto.startswith("unix"):
        t = socket.SOCK_STREAM if proto == "unix-stream" else socket.SOCK_DGRAM
        s = socket.socket(socket.AF_UNIX, t)
        if addr.startswith("@"):
            s.bind("\0" + addr[1:])
        else:
            if os.path.exists(addr):
                os.unlink(addr)
            s.bind(addr)
            os.chmod(addr, 0o777)
    else:
        fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
        t = socket.SOCK_STREAM if proto == "tcp" else socket.SOCK_DGRAM
        s = socket.socket(fam, t)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((addr, int(port)))
        open(cf + ".port", "w").write(str(s.getsockname()[1]))
    if t == socket.SOCK_STREAM:
        s.listen(512)
    socks[s] = [cf, 0, t]
    open(cf, "w").write("0")
# A safety net for a test that died without stopping its servers: long
# enough for a suite in the kernel matrix's emulated VM, beside every
# other suite (supervisor.sh under backend-bwrap took over 600 s there).
end = time.time() + 1800
while time.time() < end:
    r, _, _ = select.select(list(socks), [], [], 1)
    for s in r:
        st = socks[s]
        c = None
        try:
            if st[2] == socket.SOCK_STREAM:
                c, _ = s.accept()
            else:
                s.recv(65536)
        except OSError:
            continue
        # Counted before the connection is closed: a client that has
        # seen it closed finds itself counted, whatever the scheduler.
        st[1] += 1
        open(st[0] + ".tmp", "w").write(str(st[1]))
        os.rename(st[0] + ".tmp", st[0])
        if c is not None:
            c.close()
