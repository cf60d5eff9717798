#!/usr/bin/env python3
"""Black-box checks of xcfhub with raw frames (transport/README.md "The xcfhub protocol").

Usage: hub_protocol_test.py [PATH-TO-XCFHUB]   (default: $XCFHUB, else build/hub/apps/xcfhub/xcfhub)
Starts hubs on 127.0.0.1 port 0 (--port-file), speaks the protocol over plain sockets, stops every hub it
started with SIGTERM and checks that it exits 0. Prints one line per check; exit 1 if any failed.
"""
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HUB = (sys.argv[1] if len(sys.argv) > 1 else os.environ.get("XCFHUB")
       or "build/default/apps/xcfhub/xcfhub")

JOIN, LEAVE, QUIESCE, SEND, DELIVER, EVENT, QUERY, SETUSTATE, REMOVE, PING = range(1, 11)
JOIN_RSP, LEAVE_RSP, QUIESCE_RSP, SEND_RSP = 0x81, 0x82, 0x83, 0x84
QUERY_RSP, SETUSTATE_RSP, REMOVE_RSP, PONG, ERROR = 0x87, 0x88, 0x89, 0x8A, 0xFF
ACK, ORDERED, RESUME = 1, 2, 4
EV = {1: "active", 2: "left", 3: "failed", 4: "quiesced", 5: "user_state", 6: "status_missing", 7: "removed"}
STATE = {0: "not-defined", 1: "created", 2: "active", 3: "quiesced", 4: "failed"}

failures = []
passed = 0


def check(cond, what):
    global passed
    if cond:
        passed += 1
        print("ok   " + what)
    else:
        failures.append(what)
        print("FAIL " + what)


def frame(ftype, payload=b"", flags=0, corr=0):
    return struct.pack(">4sBBHII", b"XCFE", 1, ftype, flags, corr, len(payload)) + payload


def ename(text, n):
    return text.ljust(n).encode("cp037")


def dname(raw):
    return raw.decode("cp037").rstrip(" ")


def join_payload(group, member, lasting=False, ustate=b"", memdata=b""):
    return (ename(group, 8) + ename(member, 16) + bytes([0, 1 if lasting else 0]) + struct.pack(">H", 32) +
            ustate.ljust(32, b"\0") + memdata.ljust(8, b"\0"))


def member_info(raw):
    return {"group": dname(raw[0:8]), "name": dname(raw[8:24]), "token": raw[24:32],
            "state": STATE[raw[32]], "ustate": raw[33:65], "memdata": raw[65:73], "system": dname(raw[73:81])}


def members(raw, count):
    return [member_info(raw[i * 81:(i + 1) * 81]) for i in range(count)]


class Raw:
    """One connection speaking raw frames. Unless auto_pong is False it answers PINGs it reads and, like a
    client's I/O thread, sends a PONG every 50 ms from a thread, so it stays alive while the check does
    not read it."""

    def __init__(self, port, auto_pong=True):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.buf = b""
        self.backlog = []
        self.auto_pong = auto_pong
        self.corr = 100
        self.closed = False
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        if auto_pong:
            threading.Thread(target=self._keepalive, daemon=True).start()

    def _keepalive(self):
        while not self.stopping.wait(0.05):
            try:
                self.sendall(frame(PONG, b"\0" * 8))
            except OSError:
                return

    def sendall(self, data):
        with self.lock:
            self.sock.sendall(data)

    def send(self, ftype, payload=b"", flags=0, corr=None):
        if corr is None:
            self.corr += 1
            corr = self.corr
        self.sendall(frame(ftype, payload, flags, corr))
        return corr

    def _read_frame(self, deadline):
        while True:
            if len(self.buf) >= 16:
                magic, ver, ftype, flags, corr, length = struct.unpack(">4sBBHII", self.buf[:16])
                if len(self.buf) >= 16 + length:
                    payload = self.buf[16:16 + length]
                    self.buf = self.buf[16 + length:]
                    return (ftype, flags, corr, payload)
            remaining = deadline - time.time()
            if remaining <= 0:
                return None
            self.sock.settimeout(remaining)
            try:
                data = self.sock.recv(1 << 20)
            except socket.timeout:
                return None
            except ConnectionResetError:
                data = b""
            if not data:
                self.closed = True
                return None
            self.buf += data

    def wait(self, pred, timeout=3.0):
        """The first frame (backlog first) for which pred(frame) holds; others stay in the backlog."""
        for i, f in enumerate(self.backlog):
            if pred(f):
                return self.backlog.pop(i)
        deadline = time.time() + timeout
        while True:
            f = self._read_frame(deadline)
            if f is None:
                return None
            if f[0] == PING and self.auto_pong:
                self.sendall(frame(PONG, f[3], 0, f[2]))
                continue
            if pred(f):
                return f
            self.backlog.append(f)

    def request(self, ftype, payload=b"", flags=0, rsp=None, timeout=3.0):
        corr = self.send(ftype, payload, flags)
        return self.wait(lambda f: f[0] == rsp and f[2] == corr, timeout)

    def event(self, kind, name, timeout=3.0):
        def is_it(f):
            return f[0] == EVENT and EV[f[3][0]] == kind and member_info(f[3][1:])["name"] == name
        f = self.wait(is_it, timeout)
        return member_info(f[3][1:]) if f else None

    def rc(self, f):
        return struct.unpack(">II", f[3][:8]) if f else None

    def join(self, group, member, lasting=False, ustate=b""):
        f = self.request(JOIN, join_payload(group, member, lasting, ustate), rsp=JOIN_RSP)
        if f is None:
            return None
        rc, rsn = struct.unpack(">II", f[3][:8])
        token = f[3][8:16]
        maxp, hb, count = struct.unpack(">III", f[3][16:28])
        return {"rc": (rc, rsn), "token": token, "max": maxp, "hb": hb, "members": members(f[3][28:], count)}

    def send_msg(self, target, data, stream=0, flags=ORDERED | ACK, token=b"\0" * 8, control=b"C" * 32, wait=True):
        payload = token + ename(target, 16) + struct.pack(">H", stream) + control + data
        corr = self.send(SEND, payload, flags)
        if not wait:
            return corr
        f = self.wait(lambda f: f[0] == SEND_RSP and f[2] == corr)
        return self.rc(f)

    def deliveries(self, n, timeout=5.0):
        out = []
        for _ in range(n):
            f = self.wait(lambda f: f[0] == DELIVER, timeout)
            if f is None:
                break
            p = f[3]
            out.append({"token": p[0:8], "source": dname(p[8:24]), "stream": struct.unpack(">H", p[24:26])[0],
                        "control": p[26:58], "data": p[58:], "flags": f[1]})
        return out

    def error(self, timeout=3.0):
        f = self.wait(lambda f: f[0] == ERROR, timeout)
        if f is None:
            return None
        rc, rsn, tlen = struct.unpack(">IIH", f[3][:10])
        return (rc, rsn, f[3][10:10 + tlen].decode(errors="replace"))

    def eof(self, timeout=3.0):
        """True when the hub closes the connection within timeout (frames before EOF are skipped)."""
        deadline = time.time() + timeout
        while not self.closed and time.time() < deadline:
            if self._read_frame(deadline) is None and not self.closed:
                return False
        return self.closed

    def close(self):
        self.stopping.set()
        with self.lock:
            self.sock.close()


running_hubs = []


class Hub:
    def __init__(self, *args):
        self.dir = tempfile.mkdtemp(prefix="hubcheck")
        self.port_file = os.path.join(self.dir, "port")
        self.log = open(os.path.join(self.dir, "log"), "w+")
        self.proc = subprocess.Popen([HUB, "--listen", "127.0.0.1:0", "--port-file", self.port_file,
                                      "--log-level", "debug", *args], stderr=self.log)
        deadline = time.time() + 10
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("hub did not start: " + self.text())
            time.sleep(0.02)
        self.port = int(open(self.port_file).read())
        running_hubs.append(self)

    def text(self):
        self.log.flush()
        return open(self.log.name).read()

    def stop(self):
        running_hubs.remove(self)
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(10)
        check(rc == 0 and "IMB3002I" in self.text(), "hub stops on SIGTERM with exit 0 and IMB3002I")

    def status(self, *extra):
        r = subprocess.run([HUB, "status", "--connect", "127.0.0.1:%d" % self.port, *extra],
                           capture_output=True, text=True, timeout=10)
        return r.returncode, r.stdout, r.stderr


def main_hub_checks():
    hub = Hub("--heartbeat-ms", "200", "--system", "SYSA")
    check(hub.port > 0, "port file holds the bound port")
    check("IMB3001I listening on 127.0.0.1:%d" % hub.port in hub.text(), "IMB3001I names host:port")

    a = Raw(hub.port)
    ja = a.join("OTMAGRP", "IMS1", ustate=b"\x01")
    check(ja and ja["rc"] == (4, 4), "first member joins 4/4")
    check(ja and ja["hb"] == 200 and ja["max"] == 1024 * 1024, "JOIN_RSP carries heartbeat and max payload")
    check(ja and [m["name"] for m in ja["members"]] == ["IMS1"] and ja["members"][0]["system"] == "SYSA",
          "JOIN_RSP lists the group with the new member and the system name")
    b = Raw(hub.port)
    jb = b.join("OTMAGRP", "MQ01")
    check(jb and jb["rc"] == (0, 0) and len(jb["members"]) == 2, "second member joins 0/0 and sees both")
    check(jb and jb["token"] != ja["token"], "tokens differ")
    ev = a.event("active", "MQ01")
    check(ev is not None and ev["token"] == jb["token"], "A gets EVENT active for MQ01 with its token")

    c = Raw(hub.port)
    jc = c.join("OTMAGRP", "IMS1")
    check(jc and jc["rc"] == (8, 8), "duplicate active name refused 8/8")
    q = c.request(QUERY, ename("", 8) + ename("", 16), rsp=QUERY_RSP)
    check(q and c.rc(q) == (0, 0), "a refused connection stays open and may QUERY")

    # messages by name and by token, FIFO per stream
    check(a.send_msg("MQ01", b"hello", stream=3) == (0, 0), "SEND with ack answered 0/0")
    d = b.deliveries(1)
    check(d and d[0]["data"] == b"hello" and d[0]["source"] == "IMS1" and d[0]["token"] == ja["token"]
          and d[0]["stream"] == 3 and d[0]["control"] == b"C" * 32 and d[0]["flags"] == ORDERED,
          "DELIVER carries source, token, stream, control, data, ordered flag")
    check(a.send_msg("", b"bytoken", token=jb["token"]) == (0, 0), "SEND by token accepted")
    d = b.deliveries(1)
    check(d and d[0]["data"] == b"bytoken", "SEND by token delivered")
    check(a.send_msg("NOSUCH", b"x") == (8, 4), "SEND to a member that is not there: 8/4")
    corr = a.send_msg("NOSUCH", b"x", flags=0, wait=False)
    f = a.wait(lambda f: f[0] == SEND_RSP and f[2] == corr)
    check(f and a.rc(f) == (8, 4), "refusal answered even without ack")
    for i in range(200):
        a.send_msg("MQ01", b"%05d" % i, stream=7, flags=ORDERED, wait=False)
    d = b.deliveries(200)
    check([x["data"] for x in d] == [b"%05d" % i for i in range(200)], "200 messages arrive in order")
    f = a.wait(lambda f: f[0] == SEND_RSP, 0.3)
    check(f is None, "no SEND_RSP for accepted SENDs without ack")

    # user state, status
    r = b.request(SETUSTATE, b"\xAB" * 32, rsp=SETUSTATE_RSP)
    check(b.rc(r) == (0, 0), "SETUSTATE 0/0")
    ev = a.event("user_state", "MQ01")
    check(ev and ev["ustate"] == b"\xAB" * 32, "A gets EVENT user_state with the new state")
    rc, out, err = hub.status()
    check(rc == 0 and "group OTMAGRP (2 members)" in out and "IMS1" in out and "MQ01" in out and
          ("AB" * 32) in out and ja["token"].hex().upper() in out and "SYSA" in out,
          "xcfhub status lists group, members, token, system, user state")
    ims1 = [l for l in out.splitlines() if "IMS1" in l]
    check(ims1 and "user state 01" + "00" * 31 in ims1[0] and "active" in ims1[0], "status line of IMS1")
    rc, out, err = hub.status("--json")
    try:
        js = json.loads(out)
        names = [m["name"] for g in js["groups"] for m in g["members"]]
    except ValueError:
        names = []
    check(rc == 0 and names == ["IMS1", "MQ01"], "xcfhub status --json parses")

    # leave, lasting failure, re-join, quiesce, remove
    l = Raw(hub.port)
    jl = l.join("OTMAGRP", "LAST1", lasting=True)
    check(jl and jl["rc"] == (0, 0), "lasting member joins")
    a.event("active", "LAST1")
    b.event("active", "LAST1")
    l.close()
    ev = a.event("failed", "LAST1")
    check(ev and ev["state"] == "failed", "closing without LEAVE: EVENT failed, state failed (lasting)")
    check(a.send_msg("LAST1", b"x") == (8, 4), "SEND to a failed member: 8/4")
    l = Raw(hub.port)
    jl2 = l.join("OTMAGRP", "LAST1", lasting=True)
    check(jl2 and jl2["rc"] == (4, 8) and jl2["token"] != jl["token"], "re-join of failed member: 4/8, new token")
    r = l.request(QUIESCE, rsp=QUIESCE_RSP)
    check(l.rc(r) == (0, 0), "QUIESCE 0/0")
    ev = a.event("quiesced", "LAST1")
    check(ev and ev["state"] == "quiesced", "EVENT quiesced")
    check(a.send_msg("LAST1", b"x") == (8, 4), "SEND to a quiesced member: 8/4")
    r = l.request(LEAVE, rsp=LEAVE_RSP)
    check(l.rc(r) == (0, 0), "LEAVE after QUIESCE 0/0")
    l2 = Raw(hub.port)
    jl3 = l2.join("OTMAGRP", "LAST1", lasting=True)
    check(jl3 and jl3["rc"] == (4, 0x0C), "re-join of quiesced member: 4/0C")
    l2.close()
    a.event("failed", "LAST1")
    r = a.request(REMOVE, ename("LAST1", 16), rsp=REMOVE_RSP)
    check(a.rc(r) == (0, 0), "REMOVE of a failed member 0/0")
    ev = b.event("removed", "LAST1")
    check(ev and ev["state"] == "not-defined", "EVENT removed")
    r = a.request(REMOVE, ename("LAST1", 16), rsp=REMOVE_RSP)
    check(a.rc(r) == (8, 0x20), "REMOVE of an unknown member 8/20")
    r = a.request(REMOVE, ename("MQ01", 16), rsp=REMOVE_RSP)
    check(a.rc(r) == (8, 8), "REMOVE of an active member refused")

    n = Raw(hub.port)
    n.join("OTMAGRP", "TEMP")
    a.event("active", "TEMP")
    r = n.request(LEAVE, rsp=LEAVE_RSP)
    check(n.rc(r) == (0, 0), "LEAVE 0/0")
    ev = a.event("left", "TEMP")
    check(ev and ev["state"] == "not-defined", "EVENT left")
    jn = n.join("OTMAGRP", "TEMP")
    check(jn and jn["rc"] == (0, 0), "a connection may JOIN again after LEAVE")
    n.close()
    ev = a.event("failed", "TEMP")
    check(ev and ev["state"] == "not-defined", "non-lasting member closing: EVENT failed, not-defined")

    # heartbeat: a member that stops answering
    s = Raw(hub.port, auto_pong=False)
    s.join("OTMAGRP", "SILENT")
    a.event("active", "SILENT")
    t0 = time.time()
    ev1 = a.event("status_missing", "SILENT", timeout=3)
    ev2 = a.event("failed", "SILENT", timeout=1)
    took = time.time() - t0
    check(ev1 is not None and ev2 is not None, "silent member: EVENT status_missing then failed")
    check(0.5 <= took <= 1.5, "heartbeat failure after 3-4 intervals of 200 ms (took %.2fs)" % took)
    check(s.eof(), "silent connection closed by the hub")
    check("IMB3008W" in hub.text() and "IMB3007W" in hub.text(), "IMB3008W and IMB3007W logged")

    # protocol errors: other members unaffected
    g = Raw(hub.port)
    g.join("OTMAGRP", "GARBAGE")
    a.event("active", "GARBAGE")
    g.sendall(b"GET / HTTP/1.1\r\n\r\n")
    e = g.error()
    check(e and (e[0], e[1]) == (8, 0x1C) and "magic" in e[2], "garbage: ERROR 8/1C naming the magic")
    check(g.eof(), "garbage: connection closed")
    ev = a.event("failed", "GARBAGE")
    check(ev is not None, "garbage from a member: EVENT failed to the others")
    big = Raw(hub.port)
    big.sendall(struct.pack(">4sBBHII", b"XCFE", 1, SEND, 0, 9, 100 * 1024 * 1024))
    e = big.error()
    check(e and (e[0], e[1]) == (8, 0x10), "payload over --max-message: ERROR 8/10 at the header")
    check(big.eof(), "oversized: connection closed")
    pre = Raw(hub.port)
    pre.send(SEND, b"\0" * 8 + ename("IMS1", 16) + b"\0" * 34)
    e = pre.error()
    check(e and (e[0], e[1]) == (8, 0x1C) and pre.eof(), "SEND before JOIN: ERROR and close")
    dj = Raw(hub.port)
    dj.join("OTMAGRP", "TWICE")
    a.event("active", "TWICE")
    dj.send(JOIN, join_payload("OTMAGRP", "OTHER"))
    e = dj.error()
    check(e and dj.eof(), "JOIN on a joined connection: ERROR and close")
    bn = Raw(hub.port)
    bn.send(JOIN, ename("grp", 8) + join_payload("X", "Y")[8:])
    e = bn.error()
    check(e and (e[0], e[1]) == (8, 0x14), "JOIN with a lowercase group name: 8/14")
    hubonly = Raw(hub.port)
    hubonly.send(PONG, b"\0" * 8)
    hubonly.send(EVENT, b"\0" * 82)
    e = hubonly.error()
    check(e and hubonly.eof(), "a frame only the hub sends: ERROR and close")
    check(a.send_msg("MQ01", b"still") == (0, 0) and b.deliveries(1)[0]["data"] == b"still",
          "after all that, A and B still exchange messages")
    p = a.request(PING, b"12345678", rsp=PONG)
    check(p and p[3] == b"12345678", "PING answered with PONG echoing the nonce")
    check("IMB3012E" in hub.text(), "IMB3012E logged")

    # events on close go to active members only; a quiesced one hears nothing
    b.close()
    ev = a.event("failed", "MQ01")
    check(ev is not None, "B closes: A gets EVENT failed")
    for x in (a, c):
        x.close()
    hub.stop()


def allow_checks():
    with tempfile.NamedTemporaryFile("w", suffix=".allow", delete=False) as f:
        f.write("# OTMA groups\nGRPB = IMSB , MQB  # the bridge\n\n")
    hub = Hub("--allow", "GRPA=IMS1,MQ01", "--allow-file", f.name)
    a = Raw(hub.port)
    check(a.join("GRPA", "IMS1")["rc"] == (4, 4), "allow-list: listed member joins")
    x = Raw(hub.port)
    check(x.join("GRPA", "MQ02")["rc"] == (8, 0x18), "allow-list: unlisted member refused 8/18")
    check(x.join("GRPB", "MQB")["rc"] == (4, 4), "allow-file entry admits its member")
    y = Raw(hub.port)
    check(y.join("GRPB", "MQC")["rc"] == (8, 0x18), "allow-file entry refuses others")
    check(y.join("OPEN", "ANY")["rc"] == (4, 4), "a group without an entry admits anyone")
    check("IMB3011W" in hub.text(), "IMB3011W logged for refusals")
    for z in (a, x, y):
        z.close()
    hub.stop()
    os.unlink(f.name)


def backpressure_checks():
    hub = Hub("--max-message", "4096", "--target-buffer", "16384", "--heartbeat-ms", "1000")
    a = Raw(hub.port)
    a.join("BPG", "SRC")
    b = Raw(hub.port)
    b.join("BPG", "DST")
    a.event("active", "DST")
    # B reads nothing now: the kernel buffers fill, then the hub's queue, then 12/0.
    sent, refused_at = 0, None
    for i in range(20000):
        rc = a.send_msg("DST", b"%06d" % i + b"x" * 4000, stream=1, flags=ORDERED | ACK)
        if rc == (12, 0):
            refused_at = i
            break
        if rc != (0, 0):
            check(False, "SEND %d answered %s" % (i, rc))
            break
        sent += 1
    check(refused_at is not None, "SEND refused 12/0 once the target buffer is full (after %d)" % sent)
    check(a.send_msg("DST", b"later", stream=1) == (12, 0), "same stream stays refused without resume")
    s2 = a.send_msg("DST", b"s2", stream=2)
    check(s2 in ((0, 0), (12, 0)), "other stream judged on its own")
    check("IMB3014W" in hub.text(), "IMB3014W logged")
    d = b.deliveries(sent + (1 if s2 == (0, 0) else 0), timeout=10)
    got = [x["data"][:6] for x in d if x["stream"] == 1]
    check(got == [b"%06d" % i for i in range(sent)], "the target drains every accepted message, in order (%d of %d, first %s last %s)" % (len(got), sent, got[:1], got[-1:]))
    check(a.send_msg("DST", b"%06d" % refused_at, stream=1, flags=ORDERED | ACK | RESUME) == (0, 0),
          "SEND with resume accepted once drained")
    d = b.deliveries(1)
    check(d and d[0]["data"] == b"%06d" % refused_at, "resumed message delivered")
    a.close()
    b.close()
    hub.stop()


def tls_checks():
    d = tempfile.mkdtemp(prefix="hubtls")
    def run(*cmd):
        subprocess.run(cmd, cwd=d, check=True, capture_output=True)
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
        "-days", "1", "-subj", "/CN=hubcheck CA")
    for who in ("hub", "client"):
        run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", who + ".key", "-out", who + ".csr",
            "-subj", "/CN=" + who)
        run("openssl", "x509", "-req", "-in", who + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", who + ".pem", "-days", "1")
    p = lambda n: os.path.join(d, n)
    hub = Hub("--tls-cert", p("hub.pem"), "--tls-key", p("hub.key"), "--tls-ca", p("ca.pem"))
    rc, out, err = hub.status("--tls-ca", p("ca.pem"), "--tls-cert", p("client.pem"), "--tls-key", p("client.key"))
    check(rc == 0 and "no groups" in out, "status over mutual TLS")
    rc, out, err = hub.status("--tls-ca", p("ca.pem"))
    check(rc == 8 and "IMB3021E" in err, "status without a client certificate: exit 8, IMB3021E")
    plain = Raw(hub.port)
    plain.send(QUERY, b"\x40" * 24)
    check(plain.eof(), "plain TCP to a TLS hub is closed")
    time.sleep(0.2)
    check("IMB3013E" in hub.text(), "failed handshake logged IMB3013E: " +
          ([l for l in hub.text().splitlines() if "IMB3013E" in l] or ["-"])[0])
    rc, out, err = hub.status("--tls-ca", p("ca.pem"), "--tls-cert", p("client.pem"), "--tls-key", p("client.key"))
    check(rc == 0, "hub still serves after failed handshakes")
    hub.stop()


def startup_checks():
    r = subprocess.run([HUB, "--max-message", "999999999"], capture_output=True, text=True)
    check(r.returncode == 2 and r.stderr.startswith("IMB3016E"), "usage error: exit 2, IMB3016E")
    r = subprocess.run([HUB, "status", "--connect", "127.0.0.1:1"], capture_output=True, text=True)
    check(r.returncode == 8 and "IMB3021E" in r.stderr, "status cannot connect: exit 8, IMB3021E")
    r = subprocess.run([HUB, "--help"], capture_output=True, text=True)
    opts = ["--listen", "--port-file", "--system", "--max-message", "--target-buffer", "--heartbeat-ms", "--allow",
            "--allow-file", "--log-level", "--tls-cert", "--tls-key", "--tls-ca", "Exit codes"]
    check(r.returncode == 0 and all(o in r.stdout for o in opts), "--help documents options and exit codes")
    busy = Hub()
    r = subprocess.run([HUB, "--listen", "127.0.0.1:%d" % busy.port], capture_output=True, text=True, timeout=5)
    check(r.returncode == 8 and "IMB3017E" in r.stderr, "port in use: exit 8, IMB3017E")
    busy.stop()


if __name__ == "__main__":
    try:
        startup_checks()
        main_hub_checks()
        allow_checks()
        backpressure_checks()
        tls_checks()
    finally:
        for h in running_hubs:  # a check that raised: stop what it started
            h.proc.kill()
            h.proc.wait()
    print("%d passed, %d failed" % (passed, len(failures)))
    for f in failures:
        print("  failed: " + f)
    sys.exit(1 if failures else 0)
