#!/usr/bin/env python3
"""Program test of mqdump: runs the real binary.

  - every .hex vector under tests/vectors/samples and tests/vectors/otma: the listing and the JSON
    equal tests/vectors/expected/<dir>_<name>.txt / .json (naming: tests/vectors/README.md), the
    JSON is valid, and the exit code is 0 (1 for the vectors that do not decode or fail the bridge's
    validation on purpose);
  - every code in tests/vectors/expected/explain.list, the same way, and each --explain example of
    docs/programs/mqdump.md;
  - usage errors exit 2, an unreadable file and bad hex exit 1;
  - a 20 MB input decodes and exits 0;
  - 2,000 random byte strings and truncations of every vector exit 0 or 1, never crash, and their
    --json output is valid JSON.

Usage: mqdump_test.py MQDUMP VECTORS_DIR
       mqdump_test.py --list VECTORS_DIR   prints the expected files and the mqdump arguments that
                                           make them, one per line: NAME<TAB>ARG<TAB>ARG...
                                           (scripts/update-mqdump-expected reads it: the naming
                                           rule lives here only)
"""
import json
import os
import random
import subprocess
import sys

MQDUMP, VECTORS = sys.argv[1], sys.argv[2]
EXPECTED = os.path.join(VECTORS, "expected")
FAILURES = []
# Vectors that exit 1 on purpose, and the diagnostic each ends with.
EXIT_1_VECTORS = {
    "samples/iih_bad_struclength.hex": b"IMB4002E",  # a header that does not decode
    "samples/dead_letter.hex": b"IMB4006W",  # a message the bridge refuses (its first LL is too big)
}


def fail(what):
    FAILURES.append(what)
    print("FAIL: " + what, file=sys.stderr)


def run(args, stdin=b""):
    p = subprocess.run([MQDUMP] + args, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return p.returncode, p.stdout, p.stderr


def strict_json(text, what):
    """Valid JSON, one object, no duplicate keys, pure ASCII (mqdump escapes the rest)."""
    def no_duplicates(pairs):
        keys = [k for k, _ in pairs]
        if len(keys) != len(set(keys)):
            raise ValueError("duplicate key")
        return dict(pairs)

    def no_constants(name):
        raise ValueError("not JSON: " + name)

    try:
        if any(b >= 0x80 for b in text):
            raise ValueError("non-ASCII byte")
        value = json.loads(text.decode("ascii"), object_pairs_hook=no_duplicates, parse_constant=no_constants)
        if not isinstance(value, dict):
            raise ValueError("not an object")
        return True
    except ValueError as e:
        fail(f"{what}: --json output is not valid JSON ({e})")
        return False


def read(path):
    with open(path, "rb") as f:
        return f.read()


def slug(code):
    """The expected-file name of an --explain code (tests/vectors/README.md): lower case, every run of
    other characters than letters and digits one '_', none at the ends."""
    out, gap = "", False
    for c in code.lower():
        if c.isascii() and c.isalnum():
            out += ("_" if gap and out else "") + c
            gap = False
        else:
            gap = True
    return out


def compare(got, path, what):
    if not os.path.exists(path):
        fail(f"{what}: no expected output {os.path.relpath(path, VECTORS)} (run scripts/update-mqdump-expected)")
        return
    want = read(path)
    if got != want:
        g, w = got.decode("utf-8", "replace").splitlines(), want.decode("utf-8", "replace").splitlines()
        for i, (a, b) in enumerate(zip(g, w)):
            if a != b:
                fail(f"{what}: differs from {os.path.basename(path)} at line {i + 1}:\n  got:  {a}\n  want: {b}")
                return
        fail(f"{what}: differs from {os.path.basename(path)} in length ({len(g)} lines, want {len(w)})")


def vectors(vectors_dir):
    out = []
    for d in ("samples", "otma"):
        for name in sorted(os.listdir(os.path.join(vectors_dir, d))):
            if name.endswith(".hex"):
                out.append(f"{d}/{name}")
    return out


def explain_codes(vectors_dir):
    with open(os.path.join(vectors_dir, "expected", "explain.list")) as f:
        return [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]


def expectations(vectors_dir):
    """Every expected output as (file name without .txt/.json, what it shows, mqdump's arguments for
    the listing); the JSON file is the output of --json with the same arguments."""
    out = []
    for v in vectors(vectors_dir):
        out.append((v.replace("/", "_")[: -len(".hex")], v, [os.path.join(vectors_dir, v)]))
    for code in explain_codes(vectors_dir):
        out.append(("explain_" + slug(code), code, ["--explain"] + code.split()))
    return out


def check_vectors():
    found = vectors(VECTORS)
    if len(found) < 15:
        fail(f"only {len(found)} vectors found under {VECTORS}")
    for base, v, args in expectations(VECTORS):
        if v not in found:
            continue
        path = args[0]
        want_rc = 1 if v in EXIT_1_VECTORS else 0
        rc, out, err = run(args)
        if rc != want_rc:
            fail(f"{v}: exit code {rc}, want {want_rc}; stderr {err!r}")
        compare(out, os.path.join(EXPECTED, base + ".txt"), v)
        if want_rc == 1 and b"\n" + EXIT_1_VECTORS[v] + b" " not in out:
            fail(f"{v}: the listing has no {EXIT_1_VECTORS[v].decode()} line")
        rc, out, err = run(["--json"] + args)
        if rc != want_rc:
            fail(f"{v} --json: exit code {rc}, want {want_rc}")
        strict_json(out, v)
        compare(out, os.path.join(EXPECTED, base + ".json"), v + " --json")
        if want_rc == 1 and not err.startswith(EXIT_1_VECTORS[v] + b" "):
            fail(f"{v} --json: stderr should start with {EXIT_1_VECTORS[v].decode()}, is {err!r}")
        # The same bytes on standard input, as binary, decode to the same listing.
        rc, out_stdin, _ = run(["--json", "-"], stdin=hex_to_bytes(read(path)))
        if out_stdin != out:
            fail(f"{v}: the binary form on standard input decodes differently")
    return found


def hex_to_bytes(text):
    digits = []
    for line in text.decode("utf-8").splitlines():
        digits.append("".join(c for c in line.split("#", 1)[0] if c not in " \t|"))
    return bytes.fromhex("".join(digits))


def check_explain():
    for base, code, args in expectations(VECTORS):
        if args[0] != "--explain":
            continue
        rc, out, _ = run(args)
        compare(out, os.path.join(EXPECTED, base + ".txt"), f"--explain {code}")
        rc_json, out, _ = run(["--json"] + args)
        strict_json(out, f"--explain {code}")
        compare(out, os.path.join(EXPECTED, base + ".json"), f"--json --explain {code}")
        if rc != rc_json:
            fail(f"--explain {code}: exit code {rc} but {rc_json} with --json")
    # The --explain examples of docs/programs/mqdump.md, and what each must say.
    examples = {
        "294": [b"MQFB_BUFFER_OVERFLOW"],
        "MQFB_BUFFER_OVERFLOW": [b"294"],
        "2087": [b"MQRC_UNKNOWN_REMOTE_Q_MGR"],
        "sense 0x1A reason 0x27": [b"OTMA_SENSE_REJECTED_SEE_REASON", b"639"],
        "sense X'30'": [b"OTMA_SENSE_FLOOD", b"348"],
    }
    for code, needles in examples.items():
        rc, out, err = run(["--explain"] + code.split())
        if rc != 0:
            fail(f"--explain {code}: exit code {rc}, want 0 ({err!r})")
        for n in needles:
            if n not in out:
                fail(f"--explain {code}: output lacks {n.decode()}")
    rc, out, _ = run(["--explain", "NOT_A_CODE"])
    if rc != 1 or b"IMB4005E" not in out:
        fail(f"--explain NOT_A_CODE: exit code {rc}, want 1 with IMB4005E")
    # The code ends at the next option: --json after it gives the explanation as JSON.
    rc, out, err = run(["--explain", "294", "--json"])
    if rc != 0 or b"MQFB_BUFFER_OVERFLOW" not in out:
        fail(f"--explain 294 --json: exit code {rc}, want 0 with MQFB_BUFFER_OVERFLOW; stderr {err!r}")
    strict_json(out, "--explain 294 --json")


def check_usage():
    for args in (["--bogus"], ["--encoding"], ["--encoding", "x"], ["--format", "WAYTOOLONG"], ["a", "b"]):
        rc, out, err = run(args)
        if rc != 2 or not err.startswith(b"IMB4001E"):
            fail(f"mqdump {' '.join(args)}: exit code {rc}, want 2 with IMB4001E; stderr {err!r}")
    rc, out, _ = run(["--help"])
    if rc != 0 or b"Exit codes:" not in out:
        fail(f"--help: exit code {rc}, or no exit codes in it")
    rc, _, err = run([os.path.join(VECTORS, "no-such-file.bin")])
    if rc != 1 or not err.startswith(b"IMB4003E"):
        fail(f"missing file: exit code {rc}, want 1 with IMB4003E")
    rc, _, err = run([VECTORS])  # a directory: reading it fails (libstdc++ throws), never a crash
    if rc != 1 or not err.startswith(b"IMB4003E"):
        fail(f"directory as FILE: exit code {rc}, want 1 with IMB4003E")
    rc, _, err = run(["--hex", "-"], stdin=b"01 0z")
    if rc != 1 or not err.startswith(b"IMB4004E"):
        fail(f"bad hex: exit code {rc}, want 1 with IMB4004E")
    rc, out, _ = run(["-"], stdin=b"")
    if rc != 1 or b"IMB4007E" not in out:
        fail(f"empty input: exit code {rc}, want 1 with IMB4007E")


def check_not_otma():
    """Bytes that start with X'01' are OTMA only when they decode as OTMA: a little-endian PCF body
    and plain text are shown as bytes, exit 0."""
    pcf = b"".join(v.to_bytes(4, "little") for v in (1, 36, 1, 1, 1, 1, 0, 0, 0))
    for what, data in (("little-endian PCF", pcf), ("text after X'01'", b"\x01" + b"plain text, not OTMA at all" * 2)):
        rc, out, err = run(["-"], stdin=data)
        if rc != 0 or not out.startswith(b"data "):
            fail(f"{what}: exit code {rc}, want 0 with the bytes shown; stdout {out[:200]!r} stderr {err!r}")


def check_large_input():
    """A 20 MB input decodes, exit 0 (never a crash; the listing is built line by line)."""
    size = 20 * 1024 * 1024
    data = bytes(range(256)) * (size // 256)
    p = subprocess.run([MQDUMP, "-"], input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    if p.returncode != 0:
        fail(f"20 MB input: exit code {p.returncode}, want 0; stderr {p.stderr[-300:]!r}")
        return
    lines = p.stdout.count(b"\n")
    if lines != 2 + size // 16:
        fail(f"20 MB input: {lines} lines, want {2 + size // 16}")
    last = f"{size - 16}   F0F1F2F3 F4F5F6F7 F8F9FAFB FCFDFEFF  |".encode()
    if last not in p.stdout[-200:]:
        fail(f"20 MB input: the last line is {p.stdout[-100:]!r}")


def survives(data, args, what):
    rc, out, err = run(args + ["-"], stdin=data)
    if rc not in (0, 1):
        fail(f"{what}: exit code {rc} (a crash?) on {data[:64].hex()}..., stderr {err[-300:]!r}")
        return False
    if "--json" in args:
        return strict_json(out, what)
    return True


def check_robustness(found):
    rng = random.Random(2024)
    prefixes = [b"", b"MD  ", b"\xd4\xc4\x40\x40", b"IIH ", b"DLH ", b"XQH ", b"\x01"]
    for i in range(2000):
        data = prefixes[i % len(prefixes)] + bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 700)))
        args = []
        if i % 2:
            args.append("--json")
        if i % 11 == 0:
            args += ["--format", "MQIMS"]
        if i % 13 == 0:
            args.append("--otma")
        if not survives(data, args, f"random input {i}"):
            if len(FAILURES) > 20:
                return
    for v in found:
        data = hex_to_bytes(read(os.path.join(VECTORS, v)))
        lengths = sorted(set(list(range(0, min(len(data), 40))) + list(range(0, len(data), max(1, len(data) // 40)))))
        for n in lengths:
            if not survives(data[:n], ["--json"] if n % 2 else [], f"{v} truncated to {n} bytes"):
                break


def main():
    found = check_vectors()
    check_explain()
    check_usage()
    check_not_otma()
    check_large_input()
    check_robustness(found)
    if FAILURES:
        print(f"mqdump_test: {len(FAILURES)} failure(s)", file=sys.stderr)
        return 1
    print(f"mqdump_test: {len(found)} vectors, explain, usage and robustness checks passed")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--list":
        for base, _, args in expectations(sys.argv[2]):
            print("\t".join([base] + args))
        sys.exit(0)
    sys.exit(main())
