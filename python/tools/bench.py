#!/usr/bin/env python3
"""The Python module's cost over the C++ API, and what releasing the GIL buys (docs/benchmarks.md,
"Python module").

    PYTHONPATH=build/python /usr/bin/python3 python/tools/bench.py [--rounds 5] [--bench build/rhoflow-bench]

Each round runs, one after the other: `rhoflow-bench --quick jobs` (the exact field at 1000 rho and
the default sga through the C++ API, experiment/jobs.hpp: one timing each), the same two calls
from Python, one sga(threads=1) and two sga(threads=1) in two Python threads at once. Best and
median over the rounds; the ratios are of the best times (the machine's noise is one-sided).
"""
import argparse
import os
import re
import statistics
import subprocess
import threading
import time

import numpy as np

import rhoflow


def timed(f):
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


def two_at_once(job):
    threads = [threading.Thread(target=job) for _ in range(2)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - t0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bench", default=os.path.join(here, "..", "..", "build", "rhoflow-bench"))
    args = parser.parse_args()

    rho = np.linspace(-1, 1, 1000)
    one_thread = dict(steps=10000, trials=30, threads=1)
    times = {k: [] for k in ("cpp field", "py field", "cpp sga", "py sga", "sga 1 thread", "2 x sga 1 thread")}
    for r in range(args.rounds):
        out = subprocess.run([args.bench, "--quick", "jobs"], capture_output=True, text=True, check=True).stdout
        times["cpp field"].append(float(re.search(r"jobs field_1000: best ([0-9.]+)", out).group(1)))
        times["cpp sga"].append(float(re.search(r"jobs sga_default: best ([0-9.]+)", out).group(1)))
        times["py field"].append(timed(lambda: rhoflow.field(rhoflow.Model(), rho)))
        times["py sga"].append(timed(lambda: rhoflow.sga(rhoflow.Model())))
        times["sga 1 thread"].append(timed(lambda: rhoflow.sga(**one_thread)))
        times["2 x sga 1 thread"].append(two_at_once(lambda: rhoflow.sga(**one_thread)))
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.3f} s" for k, v in times.items()), flush=True)

    best = {k: min(v) for k, v in times.items()}
    print("\n| measurement | best | median |")
    print("|---|---:|---:|")
    for k, v in times.items():
        print(f"| {k} | {best[k]:.3f} s | {statistics.median(v):.3f} s |")
    print(f"\nPython / C++: field {best['py field'] / best['cpp field']:.3f}, sga {best['py sga'] / best['cpp sga']:.3f}; "
          f"two concurrent calls / one call (threads=1 each): {best['2 x sga 1 thread'] / best['sga 1 thread']:.2f} "
          f"(2 = serialised by the GIL, 1 = two cores)")


if __name__ == "__main__":
    main()
