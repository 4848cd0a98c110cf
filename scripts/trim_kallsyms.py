#!/usr/bin/env python3
"""Trims a kallsyms file for a committed fixture: keeps the symbols at every address whose
symbol a recorded stack uses (their aliases too), the symbols at the next address (which set
where a used symbol ends), and _text (the relocation reference).

  scripts/trim_kallsyms.py FULL_KALLSYMS USED_NAMES > kallsyms
"""
import sys

lines = [l.rstrip("\n") for l in open(sys.argv[1]) if "[" not in l]
used = set(l.strip() for l in open(sys.argv[2]))
lines.sort(key=lambda l: int(l.split()[0], 16))
addrs = sorted(set(int(l.split()[0], 16) for l in lines))
by_addr = {}
for l in lines:
    by_addr.setdefault(int(l.split()[0], 16), []).append(l)
keep = set()
for i, a in enumerate(addrs):
    names = [l.split()[2] for l in by_addr[a]]
    if any(n in used for n in names) or "_text" in names:
        keep.add(a)
        if i + 1 < len(addrs):
            keep.add(addrs[i + 1])
for a in sorted(keep):
    for l in by_addr[a]:
        print(l)
