#!/usr/bin/env python3
"""Black-box checks of xcfhub with raw frames (transport/README.md "The xcfhub protocol").

Usage: hub_protocol_test.py [PATH-TO-XCFHUB]   (default: $XCFHUB, else build/default/apps/xcfhub/xcfhub)
Starts hubs on 127.0.0.1 port 0 (--port-file), speaks the protocol over plain sockets (and TLS), stops every
hub it started with SIGTERM and checks that it exits 0. Prints one line per check; exit 1 if any failed.
Temporary files live in directories that are removed at the end.
"""
import collections
import json
import os
import re
import select
import signal
import socket
import ssl
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
# Freed memory goes back to the system soon enough for the RSS bounds below, with or without ASan.
HUB_ENV = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=16")

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


def send_payload(target, data, stream=0, token=b"\0" * 8, control=b"C" * 32):
    return token + ename(target, 16) + struct.pack(">H", stream) + control + data


def member_info(raw):
    return {"group": dname(raw[0:8]), "name": dname(raw[8:24]), "token": raw[24:32],
            "state": STATE[raw[32]], "ustate": raw[33:65], "memdata": raw[65:73], "system": dname(raw[73:81])}


def members(raw, count):
    return [member_info(raw[i * 81:(i + 1) * 81]) for i in range(count)]


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return -1


class Raw:
    """One connection speaking raw frames, like a client backend: a thread reads every frame as it comes
    and answers each PING it reads at once with a PONG echoing nonce and corr (unless auto_pong is False);
    nothing else is sent unasked. pause() stops reading (the socket buffers then fill, as with a stuck
    reader), resume() reads on. PINGs are recorded in .pings (time, nonce, corr), not queued."""

    def __init__(self, port, auto_pong=True, rcvbuf=None):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.connect(("127.0.0.1", port))
        self.sock.settimeout(10)  # sends: a hub that stops reading us fails the check, not hangs it
        self.auto_pong = auto_pong
        self.corr = 100
        self.frames = collections.deque()
        self.pings = []
        self.closed = False
        self.cond = threading.Condition()
        self.lock = threading.Lock()  # one sender at a time: the checks and the PONGs
        self.reading = threading.Event()
        self.reading.set()
        self.stopping = False
        self.thread = threading.Thread(target=self._reader, daemon=True)
        self.thread.start()

    def _reader(self):
        buf = bytearray()
        while not self.stopping:
            if not self.reading.wait(0.05):
                continue
            try:
                if not select.select([self.sock], [], [], 0.05)[0]:
                    continue
                data = self.sock.recv(1 << 16)
            except (OSError, ValueError):
                data = b""
            if not data:
                with self.cond:
                    self.closed = True
                    self.cond.notify_all()
                return
            buf += data
            got = []
            at = 0
            while len(buf) - at >= 16:
                _, _, ftype, flags, corr, length = struct.unpack_from(">4sBBHII", buf, at)
                if len(buf) - at < 16 + length:
                    break
                payload = bytes(buf[at + 16:at + 16 + length])
                at += 16 + length
                if ftype == PING:
                    self.pings.append((time.time(), payload, corr))
                    if self.auto_pong:
                        try:
                            self.sendall(frame(PONG, payload, 0, corr))
                        except OSError:
                            pass
                else:
                    got.append((ftype, flags, corr, payload))
            del buf[:at]
            if got:
                with self.cond:
                    self.frames.extend(got)
                    self.cond.notify_all()

    def pause(self):
        self.reading.clear()
        time.sleep(0.1)  # a recv in progress ends

    def resume(self):
        self.reading.set()

    def sendall(self, data):
        with self.lock:
            self.sock.sendall(data)

    def send(self, ftype, payload=b"", flags=0, corr=None):
        if corr is None:
            self.corr += 1
            corr = self.corr
        self.sendall(frame(ftype, payload, flags, corr))
        return corr

    def wait(self, pred, timeout=3.0):
        """The first frame received for which pred(frame) holds (taken out); None after timeout or EOF."""
        deadline = time.time() + timeout
        with self.cond:
            while True:
                for i, f in enumerate(self.frames):
                    if pred(f):
                        del self.frames[i]
                        return f
                remaining = deadline - time.time()
                if self.closed or remaining <= 0:
                    return None
                self.cond.wait(remaining)

    def any_of(self, types):
        with self.cond:
            return [f for f in self.frames if f[0] in types]

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
        corr = self.send(SEND, send_payload(target, data, stream, token, control), flags)
        if not wait:
            return corr
        return self.rc(self.wait(lambda f: f[0] == SEND_RSP and f[2] == corr))

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
        """True when the hub closes the connection within timeout."""
        deadline = time.time() + timeout
        with self.cond:
            while not self.closed and time.time() < deadline:
                self.cond.wait(deadline - time.time())
            return self.closed

    def close(self, reset=False):
        self.stopping = True
        if reset:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()


temp_root = tempfile.TemporaryDirectory(prefix="hubcheck")
running_hubs = []


def temp_dir(prefix):
    return tempfile.mkdtemp(prefix=prefix, dir=temp_root.name)


class Hub:
    def __init__(self, *args, port_file=None, wait=True):
        self.dir = temp_dir("hub")
        self.port_file = port_file or os.path.join(self.dir, "port")
        self.log = open(os.path.join(self.dir, "log"), "w+")
        self.proc = subprocess.Popen([HUB, "--listen", "127.0.0.1:0", "--port-file", self.port_file,
                                      "--log-level", "debug", *args], stderr=self.log, env=HUB_ENV)
        running_hubs.append(self)
        if wait:
            deadline = time.time() + 10
            while not os.path.exists(self.port_file):
                if self.proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError("hub did not start: " + self.text())
                time.sleep(0.02)
            self.port = int(open(self.port_file).read())

    def text(self):
        self.log.flush()
        return open(self.log.name).read()

    def lines(self, msg_id):
        return [l for l in self.text().splitlines() if l.startswith(msg_id)]

    def stop(self):
        running_hubs.remove(self)
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(20)
        text = self.text()
        check(rc == 0 and "IMB3002I" in text and "AddressSanitizer" not in text and "runtime error" not in text,
              "hub stops on SIGTERM with exit 0 and IMB3002I, no sanitizer report")
        check(not os.path.exists(self.port_file), "clean exit removes the port file")

    def status(self, *extra, port=None):
        r = subprocess.run([HUB, "status", "--connect", "127.0.0.1:%d" % (port or self.port), *extra],
                           capture_output=True, text=True, timeout=20, env=HUB_ENV)
        return r.returncode, r.stdout, r.stderr


def join_failed(port, count):
    """Members that join and close at once: failed (lasting) records, ten to a group (a JOIN_RSP lists
    the group). Pipelined, 200 at a time."""
    for i in range(0, count, 200):
        socks = []
        for k in range(i, min(count, i + 200)):
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(frame(JOIN, join_payload("G%d" % (k // 10), "M%d" % k, True), 0, 1))
            socks.append(s)
        for s in socks:
            read_frame_of(s, JOIN_RSP)
            s.close()


def read_frame_of(s, ftype):
    """Reads frames from a plain socket until one of type ftype; its payload, or None at EOF."""
    buf = b""
    while True:
        while len(buf) >= 16:
            _, _, t, _, _, length = struct.unpack(">4sBBHII", buf[:16])
            if len(buf) < 16 + length:
                break
            payload, buf = buf[16:16 + length], buf[16 + length:]
            if t == ftype:
                return payload
        data = s.recv(1 << 16)
        if not data:
            return None
        buf += data


def startup_checks():
    r = subprocess.run([HUB, "--max-message", "999999999"], capture_output=True, text=True)
    check(r.returncode == 2 and r.stderr.startswith("IMB3016E"), "usage error: exit 2, IMB3016E")
    for bad in (["--max-connections", "0"], ["--max-members", "70000"]):
        r = subprocess.run([HUB, *bad], capture_output=True, text=True)
        check(r.returncode == 2 and r.stderr.startswith("IMB3016E"), "%s %s: exit 2, IMB3016E" % tuple(bad))
    r = subprocess.run([HUB, "status", "--connect", "127.0.0.1:1"], capture_output=True, text=True)
    check(r.returncode == 8 and "IMB3021E" in r.stderr, "status cannot connect: exit 8, IMB3021E")
    r = subprocess.run([HUB, "--help"], capture_output=True, text=True)
    opts = ["--listen", "--port-file", "--system", "--max-message", "--target-buffer", "--heartbeat-ms",
            "--max-connections", "--max-members", "--allow", "--allow-file", "--log-level", "--tls-cert",
            "--tls-key", "--tls-ca", "Exit codes"]
    check(r.returncode == 0 and all(o in r.stdout for o in opts), "--help documents options and exit codes")
    usage_line = [l for l in r.stdout.splitlines() if l.startswith("  2 ")]
    bad_allow = subprocess.run([HUB, "--allow", "lower=M1"], capture_output=True, text=True)
    check(bad_allow.returncode == 2 and bad_allow.stderr.startswith("IMB3019E") and usage_line and
          "--allow" in usage_line[0] and "IMB3019E" in usage_line[0],
          "a bad --allow is a usage error: exit 2, as --help says (%s)" % (usage_line or ["-"])[0].strip())

    busy = Hub()
    stale = os.path.join(temp_dir("stale"), "port")
    with open(stale, "w") as f:
        f.write("1\n")
    r = subprocess.run([HUB, "--listen", "127.0.0.1:%d" % busy.port, "--port-file", stale], capture_output=True,
                       text=True, timeout=10, env=HUB_ENV)
    check(r.returncode == 8 and "IMB3017E" in r.stderr, "port in use: exit 8, IMB3017E")
    check(not os.path.exists(stale), "a stale port file is removed before listening")
    busy.stop()

    # SIGTERM as soon as the port file is there: the signal_set is armed before the hub listens.
    bad = 0
    runs = 40
    d = temp_dir("sig")
    for i in range(runs):
        pf = os.path.join(d, "port%d" % i)
        p = subprocess.Popen([HUB, "--listen", "127.0.0.1:0", "--port-file", pf], stderr=subprocess.DEVNULL,
                             env=HUB_ENV)
        deadline = time.time() + 10
        while not os.path.exists(pf) and time.time() < deadline:
            pass
        p.send_signal(signal.SIGTERM)
        bad += p.wait(10) != 0
    check(bad == 0, "SIGTERM right after the port file appears: exit 0 (%d of %d runs did not)" % (bad, runs))


def fake_hub_error_checks():
    # xcfhub status prints the hub's ERROR text escaped: control and non-ASCII bytes become \xNN.
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]
    text = b"bad \x1b[2J\nFAKED line\x07\xff"

    def serve():
        c, _ = srv.accept()
        c.recv(1024)
        c.sendall(frame(ERROR, struct.pack(">IIH", 8, 0x1C, len(text)) + text))
        time.sleep(0.2)
        c.close()
    t = threading.Thread(target=serve, daemon=True)
    t.start()
    r = subprocess.run([HUB, "status", "--connect", "127.0.0.1:%d" % port], capture_output=True, timeout=10,
                       env=HUB_ENV)
    err = r.stderr
    check(r.returncode == 8 and err.startswith(b"IMB3022E") and b"\\x1B[2J\\x0AFAKED line\\x07\\xFF" in err
          and b"\x1b" not in err and err.count(b"\n") == 1,
          "status escapes the hub's ERROR text: %r" % err[:120])
    t.join(2)
    srv.close()


def trickle(sock, stop, every=0.1):
    """Sends a SEND header that promises 1000 bytes, then one byte every `every` seconds: bytes, but
    never a whole frame."""
    try:
        sock.sendall(struct.pack(">4sBBHII", b"XCFE", 1, SEND, 0, 1, 1000))
        while not stop.wait(every):
            sock.sendall(b"\0")
    except OSError:
        pass


def main_hub_checks():
    hb = 0.2
    hub = Hub("--heartbeat-ms", "200", "--system", "SYSA")
    check(hub.port > 0, "port file holds the bound port")
    check("IMB3001I listening on 127.0.0.1:%d" % hub.port in hub.text(), "IMB3001I names host:port")

    # A member that answers only the PINGs it gets: counted at the end, over the whole run.
    pinged = Raw(hub.port)
    check(pinged.join("PINGGRP", "PINGED")["rc"] == (4, 4), "a member that only answers PINGs joins")
    pinged_since = time.time()

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

    # QUERY (README "Details"): a blank group lists every group and ignores the member.
    q = c.request(QUERY, ename("", 8) + ename("IMS1", 16), rsp=QUERY_RSP)
    listed = sorted(m["name"] for m in members(q[3][12:], struct.unpack(">I", q[3][8:12])[0])) if q else []
    check(q and c.rc(q) == (0, 0) and listed == ["IMS1", "MQ01", "PINGED"],
          "QUERY with a blank group ignores the member: every group listed (%s)" % listed)
    q = c.request(QUERY, ename("OTMAGRP", 8) + ename("MQ01", 16), rsp=QUERY_RSP)
    listed = [m["name"] for m in members(q[3][12:], struct.unpack(">I", q[3][8:12])[0])] if q else []
    check(q and c.rc(q) == (0, 0) and listed == ["MQ01"], "QUERY of one member of a group lists it")
    q = c.request(QUERY, ename("OTMAGRP", 8) + ename("NOSUCH", 16), rsp=QUERY_RSP)
    check(q and c.rc(q) == (8, 0x20), "QUERY of an unknown member: 8/20")

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
    check(a.send_msg("NOSUCH", b"x", flags=0) == (8, 4), "refusal answered even without ack")
    bs = Raw(hub.port)
    bs.join("OTMAGRP", "BADSEND")
    check(bs.send_msg("lower", b"x", flags=0) == (8, 0x14) and bs.send_msg("IMS1", b"ok") == (0, 0),
          "SEND to a name that breaks the rules: SEND_RSP 8/14, and the connection goes on")
    a.deliveries(1)
    bs.request(LEAVE, rsp=LEAVE_RSP)
    bs.close()
    for i in range(200):
        a.send_msg("MQ01", b"%05d" % i, stream=7, flags=ORDERED, wait=False)
    d = b.deliveries(200)
    check([x["data"] for x in d] == [b"%05d" % i for i in range(200)], "200 messages arrive in order")
    check(a.wait(lambda f: f[0] == SEND_RSP, 0.3) is None, "no SEND_RSP for accepted SENDs without ack")

    # FIFO per (source, target, stream) with several sources and streams interleaved
    s1, s2 = Raw(hub.port), Raw(hub.port)
    s1.join("OTMAGRP", "SRC1")
    s2.join("OTMAGRP", "SRC2")
    for i in range(100):
        for src in (s1, s2):
            for stream in (1, 2, 3):
                src.send_msg("MQ01", b"%d:%05d" % (stream, i), stream=stream, flags=ORDERED, wait=False)
    got = collections.defaultdict(list)
    for x in b.deliveries(600):
        got[(x["source"], x["stream"])].append(x["data"])
    check(sorted(got) == [(s, t) for s in ("SRC1", "SRC2") for t in (1, 2, 3)] and
          all(v == [b"%d:%05d" % (k[1], i) for i in range(100)] for k, v in got.items()),
          "two sources on three streams each, interleaved: every (source, stream) in order and complete")
    for x in (s1, s2):
        x.request(LEAVE, rsp=LEAVE_RSP)
        x.close()

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
        names = [m["name"] for g in js["groups"] if g["group"] == "OTMAGRP" for m in g["members"]]
    except ValueError:
        names = []
    check(rc == 0 and names == ["IMS1", "MQ01"], "xcfhub status --json parses")

    # JOIN with names that break the rules: JOIN_RSP 8/14, the connection stays usable (README "Join")
    bn = Raw(hub.port)
    r = bn.request(JOIN, ename("grp", 8) + join_payload("X", "Y")[8:], rsp=JOIN_RSP)
    check(r and bn.rc(r) == (8, 0x14), "JOIN with a lowercase group name: JOIN_RSP 8/14")
    r = bn.request(JOIN, join_payload("OTMAGRP", "bad name"), rsp=JOIN_RSP)
    check(r and bn.rc(r) == (8, 0x14), "JOIN with a member name with a blank inside: JOIN_RSP 8/14")
    jbn = bn.join("OTMAGRP", "RENAMED")
    check(jbn and jbn["rc"] == (0, 0), "after 8/14 the same connection joins with good names")
    a.event("active", "RENAMED")
    bn.request(LEAVE, rsp=LEAVE_RSP)
    a.event("left", "RENAMED")
    odd = Raw(hub.port)
    odd.send(JOIN, join_payload("OTMAGRP", "ODD")[:25] + b"\x02" + join_payload("OTMAGRP", "ODD")[26:])
    e = odd.error()
    check(e and (e[0], e[1]) == (8, 0x1C) and "lasting" in e[2] and odd.eof(),
          "JOIN with lasting 2 (not a name): ERROR 8/1C and close")

    # rate limit (IMB3011W): a client that retries a refused JOIN in a loop is one line a second
    rl = Raw(hub.port)
    for _ in range(30):
        rl.send(JOIN, join_payload("OTMAGRP", "IMS1"))
    answers = [rl.wait(lambda f: f[0] == JOIN_RSP) for _ in range(30)]
    check(all(x and rl.rc(x) == (8, 8) for x in answers), "30 refused JOINs answered 8/8")
    rl_peer = "127.0.0.1:%d" % rl.sock.getsockname()[1]
    rl.close()
    time.sleep(0.3)
    mine = [l for l in hub.lines("IMB3011W") if rl_peer in l]
    held = sum(int(n) for l in mine for n in re.findall(r"\((\d+) earlier refusals not shown\)", l))
    more = sum(int(n) for l in mine for n in re.findall(r": (\d+) more join refusals not shown", l))
    shown = len([l for l in mine if "more join refusals not shown" not in l])
    check(shown <= 3 and shown + held + more == 30,
          "IMB3011W rate-limited: %d lines for 30 refusals, the rest counted (%d + %d)" % (shown, held, more))

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
    a.event("active", "LAST1")
    r = l.request(QUIESCE, rsp=QUIESCE_RSP)
    check(l.rc(r) == (0, 0), "QUIESCE 0/0")
    ev = a.event("quiesced", "LAST1")
    check(ev and ev["state"] == "quiesced", "EVENT quiesced")
    # README "Quiesce": it receives no more messages and hears no events; its requests get 8/4.
    check(a.send_msg("LAST1", b"x") == (8, 4), "SEND to a quiesced member: 8/4")
    check(l.send_msg("IMS1", b"x", flags=0) == (8, 4), "SEND from a quiesced member: 8/4")
    r = l.request(SETUSTATE, b"\x01" * 32, rsp=SETUSTATE_RSP)
    check(l.rc(r) == (8, 4), "SETUSTATE from a quiesced member: 8/4")
    r = l.request(QUIESCE, rsp=QUIESCE_RSP)
    check(l.rc(r) == (8, 0x0C), "QUIESCE again: 8/0C")
    newcomer = Raw(hub.port)
    newcomer.join("OTMAGRP", "NEWCOMER")
    newcomer.request(SETUSTATE, b"\x02" * 32, rsp=SETUSTATE_RSP)
    a.event("user_state", "NEWCOMER")  # A heard it, so the hub has sent what it was going to send
    time.sleep(0.2)
    heard = l.any_of((EVENT, DELIVER))
    check(heard == [], "a quiesced member hears nothing: no EVENT, no DELIVER (%d frames)" % len(heard))
    newcomer.request(LEAVE, rsp=LEAVE_RSP)
    newcomer.close()
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

    # heartbeat: members that stop answering, one that trickles a frame it never finishes, and a
    # connection that never joins and says nothing — all closed after 3 intervals (+ 1/4).
    silent = []
    for i in range(3):
        s = Raw(hub.port, auto_pong=False)
        s.join("OTMAGRP", "SILENT%d" % i)
        silent.append(s)
        time.sleep(0.07)  # different phases of the hub's heartbeat
    mute = Raw(hub.port, auto_pong=False)
    mute_peer = "127.0.0.1:%d" % mute.sock.getsockname()[1]
    tr = Raw(hub.port)
    tr.join("OTMAGRP", "TRICKLE")
    tr.auto_pong = False
    stop_trickle = threading.Event()
    threading.Thread(target=trickle, args=(tr.sock, stop_trickle), daemon=True).start()
    t0 = time.time()
    ev1 = a.event("status_missing", "SILENT0", timeout=3)
    ev2 = a.event("failed", "SILENT0", timeout=1)
    check(ev1 is not None and ev2 is not None, "silent member: EVENT status_missing then failed")
    for i in (1, 2):
        a.event("failed", "SILENT%d" % i, timeout=2)
    check(all(s.eof() for s in silent), "silent connections closed by the hub")
    ev1 = a.event("status_missing", "TRICKLE", timeout=3)
    ev2 = a.event("failed", "TRICKLE", timeout=1)
    took = time.time() - t0
    stop_trickle.set()
    check(ev1 is not None and ev2 is not None and took < 1.2 and tr.eof(),
          "a member trickling a frame it never finishes: status_missing, failed, closed (%.2fs)" % took)
    check(mute.eof(1), "a connection that never joins and says nothing is closed too")
    silences = [int(m) for l in hub.lines("IMB3008W") if "SILENT" in l
                for m in re.findall(r"nothing heard for (\d+) ms", l)]
    check(len(silences) == 3 and all(600 <= ms <= 650 + 40 for ms in silences),
          "failure declared after 3 intervals + at most 1/4 (silent for %s ms, heartbeat 200)" % silences)
    check(any(mute_peer in l for l in hub.lines("IMB3008W")), "IMB3008W for the connection that never joined")
    check(any("TRICKLE" in l for l in hub.lines("IMB3028W")), "IMB3028W for the frame never finished")
    check(hub.lines("IMB3007W"), "IMB3007W logged")

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
    hubonly = Raw(hub.port)
    hubonly.send(PONG, b"\0" * 8)
    hubonly.send(EVENT, b"\0" * 82)
    e = hubonly.error()
    check(e and hubonly.eof(), "a frame only the hub sends: ERROR and close")
    check(a.send_msg("MQ01", b"still") == (0, 0) and b.deliveries(1)[0]["data"] == b"still",
          "after all that, A and B still exchange messages")
    p = a.request(PING, b"12345678", rsp=PONG)
    check(p and p[3] == b"12345678", "PING answered with PONG echoing the nonce")
    check(hub.lines("IMB3012E"), "IMB3012E logged")

    # The hub PINGs once an interval; a member that answers only those stays (README "Heartbeat").
    elapsed = time.time() - pinged_since
    times = [t for t, _, _ in pinged.pings]
    nonces = [struct.unpack(">Q", n)[0] for _, n, _ in pinged.pings]
    gaps = [y - x for x, y in zip(times, times[1:])]
    expected = elapsed / hb
    check(expected * 0.8 - 1 <= len(times) <= expected + 2,
          "one PING an interval: %d in %.1fs at 200 ms" % (len(times), elapsed))
    check(gaps and 0.15 <= sum(gaps) / len(gaps) <= 0.25 and max(gaps) < 0.45,
          "PING spacing %.3fs on average, %.3fs at most" % (sum(gaps) / max(len(gaps), 1), max(gaps or [0])))
    check(len(set(nonces)) == len(nonces) and nonces == sorted(nonces), "PING nonces differ and increase")
    r = pinged.request(QUERY, ename("PINGGRP", 8) + ename("PINGED", 16), rsp=QUERY_RSP)
    check(r and pinged.rc(r) == (0, 0) and not pinged.closed and
          member_info(r[3][12:93])["state"] == "active",
          "a member that answers only the PINGs it gets (echoing nonce and corr) stays active")

    b.close()
    ev = a.event("failed", "MQ01")
    check(ev is not None, "B closes: A gets EVENT failed")
    for x in (a, c, pinged):
        x.close()
    hub.stop()


def allow_checks():
    path = os.path.join(temp_dir("allow"), "groups.allow")
    with open(path, "w") as f:
        f.write("# OTMA groups\nGRPB = IMSB , MQB  # the bridge\n\n")
    hub = Hub("--allow", "GRPA=IMS1,MQ01", "--allow-file", path)
    a = Raw(hub.port)
    check(a.join("GRPA", "IMS1")["rc"] == (4, 4), "allow-list: listed member joins")
    x = Raw(hub.port)
    check(x.join("GRPA", "MQ02")["rc"] == (8, 0x18), "allow-list: unlisted member refused 8/18")
    check(x.join("GRPB", "MQB")["rc"] == (4, 4), "allow-file entry admits its member")
    y = Raw(hub.port)
    check(y.join("GRPB", "MQC")["rc"] == (8, 0x18), "allow-file entry refuses others")
    check(y.join("OPEN", "ANY")["rc"] == (4, 4), "a group without an entry admits anyone")
    check(hub.lines("IMB3011W"), "IMB3011W logged for refusals")
    for z in (a, x, y):
        z.close()
    hub.stop()


def fill(src, target, stream, data=b"x" * 4000, limit=20000):
    """SENDs with ack until the hub refuses one 12/0: (accepted, index of the refused one or None)."""
    for i in range(limit):
        rc = src.send_msg(target, b"%06d" % i + data, stream=stream, flags=ORDERED | ACK)
        if rc == (12, 0):
            return i, i
        if rc != (0, 0):
            check(False, "SEND %d to %s answered %s" % (i, target, rc))
            return i, None
    return limit, None


def discarded(lines, who):
    """"N undelivered messages to it discarded" from the line about `who`; -1 when there is none."""
    for line in lines:
        found = re.findall(r"(\d+) undelivered messages to it discarded", line)
        if who in line and found:
            return int(found[0])
    return -1


def backpressure_checks():
    hub = Hub("--max-message", "4096", "--target-buffer", "16384", "--heartbeat-ms", "1000",
              "--max-members", "64")
    a = Raw(hub.port)
    a.join("BPG", "SRC")
    b = Raw(hub.port, rcvbuf=8192)
    b.join("BPG", "DST")
    a.event("active", "DST")
    # B reads nothing now: the kernel buffers fill, then the hub's queue, then 12/0.
    b.pause()
    sent, refused_at = fill(a, "DST", 1)
    check(refused_at is not None, "SEND refused 12/0 once the target buffer is full (after %d)" % sent)
    check(a.send_msg("DST", b"later1", stream=1) == (12, 0), "same stream stays refused without resume")
    check(hub.lines("IMB3014W"), "IMB3014W logged")
    b.resume()
    d = b.deliveries(sent, timeout=10)
    got = [x["data"][:6] for x in d]
    check(got == [b"%06d" % i for i in range(sent)],
          "the target drains every accepted message, in order (%d of %d)" % (len(got), sent))
    check(b.wait(lambda f: f[0] == DELIVER, 0.3) is None, "nothing refused was delivered")
    # Drained: stream 1 is still refused until RESUME, stream 2 (never refused) is accepted.
    check(a.send_msg("DST", b"later2", stream=1) == (12, 0), "drained, stream 1 without resume: still 12/0")
    check(a.send_msg("DST", b"s2", stream=2) == (0, 0), "drained, stream 2 (never refused): exactly 0/0")
    check(a.send_msg("DST", b"%06d" % refused_at, stream=1, flags=ORDERED | ACK | RESUME) == (0, 0),
          "SEND with resume accepted once drained")
    check(a.send_msg("DST", b"after", stream=1) == (0, 0), "and the stream goes on without resume")
    d = b.deliveries(3)
    check([(x["stream"], x["data"]) for x in d] == [(2, b"s2"), (1, b"%06d" % refused_at), (1, b"after")],
          "the resumed message comes next on its stream; the refused ones never came")

    # LEAVE: what was queued to the member is discarded, what it sent is still delivered.
    lv = Raw(hub.port, rcvbuf=8192)
    lv.join("BPG", "LEAVER")
    a.event("active", "LEAVER")
    lv.pause()
    accepted, _ = fill(a, "LEAVER", 5)
    for i in range(5):
        lv.send_msg("SRC", b"from leaver %d" % i, stream=9, flags=ORDERED, wait=False)
    leave_corr = lv.send(LEAVE)
    lv.resume()
    r = lv.wait(lambda f: f[0] == LEAVE_RSP and f[2] == leave_corr, 5)
    delivered = len(lv.any_of((DELIVER,)))
    dropped = discarded(hub.lines("IMB3006I"), "BPG/LEAVER")
    check(r and lv.rc(r) == (0, 0) and dropped > 0 and delivered + dropped == accepted,
          "LEAVE discards the DELIVERs queued to it (%d delivered + %d discarded = %d accepted)"
          % (delivered, dropped, accepted))
    d = a.deliveries(5)
    check([x["data"] for x in d] == [b"from leaver %d" % i for i in range(5)],
          "what the leaving member sent before LEAVE is still delivered")
    lv.close()

    # Failure: the same, for a member that closes without LEAVE.
    fl = Raw(hub.port, rcvbuf=8192)
    fl.join("BPG", "FAILER")
    a.event("active", "FAILER")
    fl.pause()
    fill(a, "FAILER", 6)
    for i in range(3):
        fl.send_msg("SRC", b"from failer %d" % i, stream=9, flags=ORDERED, wait=False)
    time.sleep(0.2)
    fl.close(reset=True)
    check(a.event("failed", "FAILER") is not None, "a member that closes: EVENT failed")
    dropped = discarded(hub.lines("IMB3007W"), "BPG/FAILER")
    check(dropped > 0, "its queued DELIVERs are discarded (%d)" % dropped)
    d = a.deliveries(3)
    check([x["data"] for x in d] == [b"from failer %d" % i for i in range(3)],
          "what the failed member sent is still delivered")

    # A sender that never resumes cannot grow the hub's record of refused streams without bound, and
    # its refusals are a few IMB3014W lines, not thousands.
    full = Raw(hub.port, rcvbuf=8192)
    full.join("BPG", "FULL")
    a.event("active", "FULL")
    full.pause()
    fill(a, "FULL", 0)
    sp = Raw(hub.port)
    sp.join("BPG", "SPAMMER")
    sp_peer = "127.0.0.1:%d" % sp.sock.getsockname()[1]
    before = len(hub.lines("IMB3014W"))
    batch = b"".join(frame(SEND, send_payload("FULL", b"y" * 4000, stream), 0, stream) for stream in range(4097))
    sp.sendall(batch)
    e = sp.error(5)
    answers = [sp.rc(f) for f in sp.any_of((SEND_RSP,))]  # those still queued at the ERROR are dropped
    check(e and (e[0], e[1]) == (12, 0) and "4096 streams" in e[2] and sp.eof() and
          set(answers) == {(12, 0)},
          "4096 streams refused and none resumed: the next SEND gets ERROR 12/0 and close (%s)" % (e and e[2]))
    lines = [l for l in hub.lines("IMB3014W")[before:] if "SPAMMER" in l]
    check(1 <= len(lines) <= 3, "IMB3014W rate-limited: %d lines for 4096 refusals" % len(lines))
    check(any(sp_peer in l and "more send refusals not shown" in l for l in hub.lines("IMB3014W")),
          "the refusals not shown are counted when the connection ends")

    for z in (full, a, b):
        z.close()

    # EVENTs are not refused like DELIVERs: a member that reads nothing while its group is busy is
    # failed as a slow consumer once its queue passes the cap, and memory stays bounded.
    reader = Raw(hub.port)
    reader.join("BPG", "READER")
    victims = []
    for i in range(3):
        v = Raw(hub.port, rcvbuf=4096)
        v.join("BPG", "VICTIM%d" % i)
        v.pause()
        victims.append(v)
    x = Raw(hub.port)
    x.join("BPG", "CHATTY")
    t0 = time.time()
    for chunk in range(30):  # 6000 EVENTs to each member, 200 at a time: a reader keeps up with that
        x.sendall(b"".join(frame(SETUSTATE, b"\x01" * 32, 0, 10000 + chunk * 200 + i) for i in range(200)))
        x.wait(lambda f: f[0] == SETUSTATE_RSP and f[2] == 10000 + chunk * 200 + 199, 5)
        with x.cond:
            x.frames = collections.deque(f for f in x.frames if f[0] != SETUSTATE_RSP)
    failed = [x.event("failed", "VICTIM%d" % i, timeout=5) for i in range(3)]
    took = time.time() - t0
    slow = [l for l in hub.lines("IMB3025W") if "VICTIM" in l]
    check(all(failed) and len(slow) == 3 and took < 2.5,
          "members that do not read a flood of EVENTs fail as slow consumers (IMB3025W) in %.1fs" % took)
    check(not reader.closed and not [l for l in hub.lines("IMB3025W") if "READER" in l],
          "a member that reads the same flood is not failed")
    for v in victims:
        v.close()
    for z in (reader, x):
        z.close()
    hub.stop()


def vm(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) // 1024
    return -1


def memory_checks():
    hub = Hub("--heartbeat-ms", "300")
    # QUERY flood: 4000 members make each QUERY_RSP 324 KB; 3276 QUERYs not read would be 1 GB.
    join_failed(hub.port, 4000)
    base = max(vm(hub.proc.pid, "VmHWM"), vm(hub.proc.pid, "VmRSS"))
    flood = socket.create_connection(("127.0.0.1", hub.port))
    q = frame(QUERY, ename("", 8) + ename("", 16), 0, 7)
    flood.sendall(q * (65536 // len(q)))
    flood.sendall(q * (65536 // len(q)))
    time.sleep(2.0)
    peak = vm(hub.proc.pid, "VmHWM")
    check(peak - base < 60, "a QUERY flood that is not read keeps the hub's peak RSS bounded: %d MB -> %d MB"
          % (base, peak))
    flood.close()

    # After a 1 MB frame the reader gives its storage back: 60 connections that each sent one do not
    # hold 60 MB between them.
    reader = Raw(hub.port)
    reader.join("SHRINK", "READER")
    senders = []
    data = b"z" * 1000000
    before = vm(hub.proc.pid, "VmRSS")
    for i in range(60):
        s = Raw(hub.port)
        s.join("SHRINK", "S%d" % i)
        s.send_msg("READER", data, flags=0, wait=False)
        check_it = reader.deliveries(1, timeout=5)
        if not check_it or check_it[0]["data"] != data:
            check(False, "1 MB message %d delivered" % i)
            break
        senders.append(s)
    after = vm(hub.proc.pid, "VmRSS")
    check(len(senders) == 60 and after - before < 40,
          "60 connections after one 1 MB frame each: RSS %d MB -> %d MB" % (before, after))
    for s in senders:
        s.close()

    # A reader that is alive but slow (2 MB/s) behind 3 MB of DELIVERs: the PINGs go first, so it is
    # not failed; write progress alone would not have kept it (README "Heartbeat").
    src = Raw(hub.port)
    src.join("SLOWG", "SRC")
    dst = socket.socket()
    dst.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    dst.connect(("127.0.0.1", hub.port))
    dst.sendall(frame(JOIN, join_payload("SLOWG", "DST"), 0, 1))
    read_frame_of(dst, JOIN_RSP)
    payload = send_payload("DST", b"x" * 60000, 1)
    src.sendall(b"".join(frame(SEND, payload, ORDERED, i) for i in range(50)))
    got, pings, end, t0 = 0, 0, None, time.time()
    buf = b""
    dst.settimeout(5)
    while got < 50 and time.time() - t0 < 10:
        try:
            data = dst.recv(1 << 16)
        except OSError:
            data = b""
        if not data:
            end = "EOF"
            break
        buf += data
        while len(buf) >= 16:
            _, _, t, _, corr, length = struct.unpack(">4sBBHII", buf[:16])
            if len(buf) < 16 + length:
                break
            body, buf = buf[16:16 + length], buf[16 + length:]
            if t == PING:
                pings += 1
                try:
                    dst.sendall(frame(PONG, body, 0, corr))
                except OSError:
                    end = "closed"
            elif t == DELIVER:
                got += 1
                time.sleep(0.03)
            elif t == ERROR:
                end = "ERROR"
    took = time.time() - t0
    check(got == 50 and end is None and pings >= 3 and
          not [l for l in hub.lines("IMB3008W") + hub.lines("IMB3025W") if "SLOWG/DST" in l],
          "a slow but live reader (%.1fs for 3 MB, heartbeat 300 ms, %d PINGs answered) is not failed: %d of 50, %s"
          % (took, pings, got, end or "open"))
    dst.close()
    for z in (src, reader):
        z.close()
    hub.stop()


def limits_checks():
    hub = Hub("--max-connections", "5", "--max-members", "3")
    conns = [Raw(hub.port) for _ in range(5)]
    for c in conns:
        c.request(PING, b"\0" * 8, rsp=PONG)  # each accepted and served
    extra = [Raw(hub.port) for _ in range(3)]
    check(all(x.eof(2) for x in extra), "connections over --max-connections are closed at once")
    refusals = hub.lines("IMB3026W")
    check(len(refusals) == 1 and "--max-connections 5" in refusals[0],
          "IMB3026W once a second, not once a connection (%d lines)" % len(refusals))
    conns.pop().close()
    time.sleep(0.2)
    again = Raw(hub.port)
    r = again.request(PING, b"\0" * 8, rsp=PONG)
    check(r is not None, "below the limit again, a new connection is served")
    conns.append(again)

    # --max-members counts every record, failed lasting ones too (README "Join").
    for i in range(3):
        check(conns[i].join("LIMG", "M%d" % i, lasting=True)["rc"][0] in (0, 4), "member M%d joins" % i)
    for i in range(1, 3):
        conns[i].close()
    time.sleep(0.2)
    x, y = Raw(hub.port), Raw(hub.port)
    jx = x.join("LIMG", "M3")
    check(jx and jx["rc"] == (12, 0), "a JOIN past --max-members (failed members included): 12/0")
    check(hub.lines("IMB3029W"), "IMB3029W logged")
    jx = x.join("LIMG", "M1", lasting=True)
    check(jx and jx["rc"] == (4, 8), "a failed member may still re-join (4/8): it has its record")
    r = x.request(REMOVE, ename("M2", 16), rsp=REMOVE_RSP)
    check(x.rc(r) == (0, 0), "REMOVE frees a record")
    jy = y.join("OTHER", "M3")
    check(jy and jy["rc"] == (4, 4), "then a new member joins")
    for z in conns + [x, y]:
        z.close()
    hub.stop()


def make_certs(d):
    """CA a signs the hub (subjectAltName IP:127.0.0.1), a hub certificate without subjectAltName and a
    client; CA b signs another client."""
    def run(*cmd):
        subprocess.run(cmd, cwd=d, check=True, capture_output=True)
    with open(os.path.join(d, "san.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    for ca in ("ca_a", "ca_b"):
        run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", ca + ".key", "-out", ca + ".pem", "-days", "1", "-subj", "/CN=hubcheck " + ca)
    for who, ca, ext in (("hub", "ca_a", ["-extfile", "san.ext"]), ("nosan", "ca_a", []),
                         ("client", "ca_a", []), ("other", "ca_b", [])):
        run("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", who + ".key", "-out", who + ".csr", "-subj", "/CN=" + who)
        run("openssl", "x509", "-req", "-in", who + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key",
            "-CAcreateserial", "-out", who + ".pem", "-days", "1", *ext)
    return lambda n: os.path.join(d, n)


def tls_checks():
    p = make_certs(temp_dir("tls"))
    hub = Hub("--tls-cert", p("hub.pem"), "--tls-key", p("hub.key"), "--tls-ca", p("ca_a.pem"))
    # Connects and never starts the handshake: closed after max(3 intervals, 5 s) with IMB3027E.
    stall = socket.create_connection(("127.0.0.1", hub.port))
    stall_at = time.time()
    mine = ("--tls-ca", p("ca_a.pem"), "--tls-cert", p("client.pem"), "--tls-key", p("client.key"))
    rc, out, err = hub.status(*mine)
    check(rc == 0 and "no groups" in out, "status over mutual TLS, the hub's name checked: " + (err or "ok"))
    rc, out, err = hub.status("--tls-ca", p("ca_a.pem"))
    check(rc == 8 and "IMB3021E" in err, "status without a client certificate: exit 8, IMB3021E")
    rc, out, err = hub.status("--tls-ca", p("ca_a.pem"), "--tls-cert", p("other.pem"), "--tls-key", p("other.key"))
    check(rc == 8 and "IMB3021E" in err, "a client certificate from another CA is refused: exit 8")
    plain = Raw(hub.port)
    plain.send(QUERY, b"\x40" * 24)
    check(plain.eof(), "plain TCP to a TLS hub is closed")
    time.sleep(0.2)
    failed = hub.lines("IMB3013E")
    check(len(failed) >= 3 and any("certificate" in l for l in failed),
          "failed handshakes logged IMB3013E with OpenSSL's reason: " + (failed or ["-"])[0])

    # The hub's certificate must name the address status connects to (subjectAltName).
    nosan = Hub("--tls-cert", p("nosan.pem"), "--tls-key", p("nosan.key"))
    rc, out, err = nosan.status("--tls-ca", p("ca_a.pem"))
    check(rc == 8 and "IMB3021E" in err, "status refuses a hub certificate that does not name 127.0.0.1")
    nosan.stop()

    # Without --tls-ca the hub asks no client certificate.
    open_hub = Hub("--tls-cert", p("hub.pem"), "--tls-key", p("hub.key"), "--max-message", "4194304",
                   "--target-buffer", "33554432")
    rc, out, err = open_hub.status("--tls-ca", p("ca_a.pem"))
    check(rc == 0, "a TLS hub without --tls-ca serves a client without certificate")

    # Members that reset their TLS connection while the hub writes megabytes to them: the frame being
    # written stays alive until its write ends (a sanitizer build reports a use after free otherwise).
    ctx = ssl.create_default_context(cafile=p("ca_a.pem"))

    def tls_join(name):
        s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", open_hub.port)), server_hostname="127.0.0.1")
        s.sendall(frame(JOIN, join_payload("TLSG", name), 0, 1))
        return s if read_frame_of(s, JOIN_RSP) is not None else None
    src = tls_join("SRC")
    for i in range(12):
        dsts = [tls_join("DST%d" % k) for k in range(3)]
        for k in range(3):
            src.sendall(frame(SEND, send_payload("DST%d" % k, b"x" * (3 << 20), 1)) * 2)
        time.sleep(0.03)
        for s in dsts:
            try:
                s.recv(65536)
            except OSError:
                pass
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()
    rc, out, err = open_hub.status("--tls-ca", p("ca_a.pem"))
    check(rc == 0 and open_hub.proc.poll() is None and "AddressSanitizer" not in open_hub.text(),
          "36 TLS members reset while the hub writes to them: the hub serves on")
    src.close()
    open_hub.stop()

    closed = False
    stall.settimeout(max(0.1, stall_at + 7 - time.time()))
    try:
        closed = stall.recv(1) == b""
    except OSError:
        closed = True
    took = time.time() - stall_at
    check(closed and 4.8 <= took <= 7 and hub.lines("IMB3027E"),
          "a TLS handshake that never starts is cut after 5 s with IMB3027E (%.1fs)" % took)
    rc, out, err = hub.status(*mine)
    check(rc == 0, "hub still serves after failed handshakes")
    hub.stop()


if __name__ == "__main__":
    started = time.time()
    try:
        startup_checks()
        fake_hub_error_checks()
        main_hub_checks()
        allow_checks()
        backpressure_checks()
        memory_checks()
        limits_checks()
        tls_checks()
    finally:
        for h in running_hubs:  # a check that raised: stop what it started
            h.proc.kill()
            h.proc.wait()
        temp_root.cleanup()
    print("%d passed, %d failed in %.1fs" % (passed, len(failures), time.time() - started))
    for f in failures:
        print("  failed: " + f)
    sys.exit(1 if failures else 0)
