#!/usr/bin/env python3
"""Builds tiny trace.dat seeds for fuzz/trace_dat_fuzz.cc (a few KB each, where the real
fixtures are ~140 KB of event formats): the 6.18 sched_switch/sched_wakeup formats of
testdata/tep/, and the first ring-buffer page of each CPU of testdata/trace_dat/overrun.v7.dat
(whose event ids they match), written as

  tiny.v6.dat       version 6: tracing-data layout, options, flyrecord table, pages
  tiny.v7none.dat   version 7, compression "none": sections + options sections
  tiny.v7zstd.dat   version 7, zstd sections and CPU chunks (needs the zstd CLI)
  *.cut*.dat        the same cut short, to start the fuzzer near the error paths

Run from anywhere; needs trace-cmd (to convert overrun.v7.dat to v6 and read its pages).
"""
import os, struct, subprocess, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
TEP = os.path.join(ROOT, "testdata", "tep")
PAGE = 4096

def u16(v): return struct.pack("<H", v)
def u32(v): return struct.pack("<I", v)
def u64(v): return struct.pack("<Q", v)
def rd(name): return open(os.path.join(TEP, name), "rb").read()

def pages():
    """First page of each CPU of overrun.v7.dat (via an uncompressed v6 copy)."""
    with tempfile.TemporaryDirectory() as d:
        v6 = os.path.join(d, "o.dat")
        subprocess.run(["trace-cmd", "convert", "-i",
                        os.path.join(ROOT, "testdata", "trace_dat", "overrun.v7.dat"), "-o", v6,
                        "--file-version", "6", "--compression", "none"],
                       check=True, capture_output=True)
        out = subprocess.run(["trace-cmd", "dump", "--flyrecord", v6], check=True,
                             capture_output=True, text=True).stdout
        data = open(v6, "rb").read()
    res = []
    for line in out.splitlines():
        parts = line.split()
        if "[offset," in line and len(parts) >= 2:
            off, size = int(parts[0]), int(parts[1])
            if size >= PAGE:
                res.append(data[off:off + PAGE])
    return res

def zstd(b):
    return subprocess.run(["zstd", "-q", "-c", "-3"], input=b, check=True,
                          capture_output=True).stdout

HP, HE = rd("header_page"), rd("header_event")
FMTS = [rd("sched_switch.format"), rd("sched_wakeup.format")]
CMDLINES = b"0 <idle>\n1 systemd\n4242 bash\n"
CLOCK = b"[local] global counter\0"
MAGIC = b"\x17\x08\x44tracing"

def header_info():
    return b"header_page\0" + u64(len(HP)) + HP + b"header_event\0" + u64(len(HE)) + HE

def event_formats():
    b = u32(1) + b"sched\0" + u32(len(FMTS))
    for f in FMTS:
        b += u64(len(f)) + f
    return b

def v6(pg):
    b = MAGIC + b"6\0" + b"\0\x08" + u32(PAGE) + header_info() + u32(0) + event_formats()
    b += u32(0) + u32(0) + u64(len(CMDLINES)) + CMDLINES + u32(len(pg))
    b += b"options  \0" + u16(4) + u32(len(CLOCK)) + CLOCK + u16(0) + b"flyrecord\0"
    start = (len(b) + 16 * len(pg) + PAGE - 1) // PAGE * PAGE
    for i in range(len(pg)):
        b += u64(start + i * PAGE) + u64(PAGE)
    b += b"\0" * (start - len(b))
    return b + b"".join(pg)

def v7(pg, compress):
    b = bytearray(MAGIC + b"7\0" + b"\0\x08" + u32(PAGE))
    b += (b"zstd\0" + b"1.5.4\0") if compress else b"none\0\0"
    opt_ptr = len(b)
    b += u64(0)
    def section(sid, data):
        off = len(b)
        if compress:
            z = zstd(data)
            body = u32(len(z)) + u32(len(data)) + z
        else:
            body = data
        b.extend(u16(sid) + u16(1 if compress else 0) + u32(0) + u64(len(body)) + body)
        return off
    hi = section(16, header_info())
    ef = section(18, event_formats())
    cl = section(21, u64(len(CMDLINES)) + CMDLINES)
    # Flyrecord section: header, then page-aligned CPU data (raw pages or zstd chunk lists).
    fly = len(b)
    b.extend(u16(3) + u16(1 if compress else 0) + u32(0) + u64(0))
    b.extend(b"\0" * ((-len(b)) % PAGE))
    cpus = []
    for i, p in enumerate(pg):
        off = len(b)
        data = (u32(1) + u32(len(z := zstd(p))) + u32(len(p)) + z) if compress else p
        b.extend(data)
        cpus.append((i, off, len(data)))
        b.extend(b"\0" * ((-len(b)) % PAGE))
    buf = u64(fly) + b"\0" + b"local\0" + u32(PAGE) + u32(len(cpus))
    for c, off, size in cpus:
        buf += u32(c) + u64(off) + u64(size)
    opts = (u16(16) + u32(8) + u64(hi) + u16(18) + u32(8) + u64(ef) + u16(21) + u32(8) + u64(cl)
            + u16(4) + u32(len(CLOCK)) + CLOCK + u16(8) + u32(4) + u32(len(pg))
            + u16(3) + u32(len(buf)) + buf + u16(0) + u32(8) + u64(0))
    b[opt_ptr:opt_ptr + 8] = u64(len(b))
    section(0, opts)
    return bytes(b)

def main():
    pg = pages()
    seeds = {"tiny.v6.dat": v6(pg), "tiny.v7none.dat": v7(pg, False),
             "tiny.v7zstd.dat": v7(pg, True)}
    for name, data in list(seeds.items()):
        seeds[name.replace(".dat", ".cut1.dat")] = data[: len(data) - PAGE // 2]
        seeds[name.replace(".dat", ".cut2.dat")] = data[: len(data) // 3]
    for name, data in seeds.items():
        open(os.path.join(HERE, name), "wb").write(data)
        print(name, len(data))

main()
