#!/usr/bin/env python3
"""Interleaved A/B timing of whole commands on one input, for changes of a few percent.

On a shared or virtual 2-core machine the wall time of one `tk fold` (80-100 ms) moves by
10-20% between identical runs, in phases that last seconds: medians of separate series mislead.
Here the commands run in turn, N rounds (each command once a round, the order fixed), and
each one's median, 25th percentile and minimum of wall time and median CPU time (user + sys of
the child) are printed. Compare the p25 and the median together; a difference smaller than
the spread between two rounds of the same binary is not one.

  bench/ab_pairs.py -n 100 FILE "/tmp/base/tk fold" "build/tk fold"

Each command is split on blanks and gets FILE as its last argument; stdout and stderr go to
/dev/null. Prefix a command with `env` (or `env VAR=1`) to give every command the same exec
cost when some need an environment variable.
"""
import argparse
import resource
import statistics
import subprocess
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", "--rounds", type=int, default=60)
    ap.add_argument("file")
    ap.add_argument("commands", nargs="+")
    a = ap.parse_args()
    wall = {c: [] for c in a.commands}
    cpu = {c: [] for c in a.commands}
    for _ in range(a.rounds):
        for c in a.commands:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            subprocess.run(c.split() + [a.file], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
            wall[c].append((time.perf_counter() - t) * 1000)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[c].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    for c in a.commands:
        w = sorted(wall[c])
        print(f"{statistics.median(w):8.1f} ms wall (p25 {w[len(w) // 4]:6.1f}, min {w[0]:6.1f}), "
              f"CPU {statistics.median(cpu[c]):6.1f} ms  {c}")


if __name__ == "__main__":
    main()
