#!/usr/bin/env python3
"""Where a run's threads were on the CPUs, window by window, from `perf sched timehist`.

  perf sched record -o s.data -- build/tk fold perf.data > /dev/null
  perf sched timehist -i s.data | bench/sched_timeline.py [--window MS] [--comm tk]

Prints, for each window from the first to the last switch of a COMM thread, the milliseconds
each of them ran (one column a thread, by tid), what else ran, and how long the two CPUs were
idle. Session 12 found a third busy thread on two cores this way (docs/performance.md).
perf sched's tracepoints slow the run itself (a ~90 ms tk fold takes ~120 ms): the shape, not
the figures.
"""
import argparse
import collections
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--window", type=float, default=5.0, help="milliseconds (default 5)")
    ap.add_argument("--comm", default="tk")
    ap.add_argument("--cpus", type=int, default=2)
    a = ap.parse_args()
    spans = []  # (start s, end s, task)
    for line in sys.stdin:
        f = line.split()
        # time [cpu] task wait sch-delay run-time
        if len(f) < 6 or not f[1].startswith("["):
            continue
        try:
            end, run = float(f[0]), float(f[5])
        except ValueError:
            continue
        spans.append((end - run / 1000, end, f[2]))
    mine = [s for s in spans if s[2].startswith(a.comm + "[")]
    if not mine:
        sys.exit(f"no {a.comm} thread in the input")
    t0, t1 = min(s[0] for s in mine), max(s[1] for s in mine)

    def tid(task):
        return int(task[len(a.comm) + 1:].rstrip("]").split("/")[0])

    threads = sorted({s[2] for s in mine}, key=tid)
    busy = collections.defaultdict(float)
    w = a.window / 1000
    for start, end, task in spans:
        if task.startswith("<idle>") or task.startswith("swapper"):
            continue
        col = task if task in threads else "other"
        k = int(max(start - t0, 0) // w)
        while t0 + k * w < end and t0 + k * w <= t1:
            lo, hi = max(start, t0 + k * w), min(end, t0 + (k + 1) * w)
            if hi > lo:
                busy[(k, col)] += (hi - lo) * 1000
            k += 1
    cols = threads + ["other"]
    print("   ms " + " ".join(f"{c[-10:]:>10}" for c in cols) + "       idle")
    for k in range(int((t1 - t0) // w) + 1):
        v = [busy[(k, c)] for c in cols]
        print(f"{k * a.window:5.0f} " + " ".join(f"{x:10.2f}" for x in v) +
              f" {a.cpus * a.window - sum(v):10.2f}")
    tot = [sum(busy[(k, c)] for k in range(int((t1 - t0) // w) + 1)) for c in cols]
    print("  sum " + " ".join(f"{x:10.2f}" for x in tot) + f"   wall {(t1 - t0) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
