#!/usr/bin/env python3
"""The Python module's cost over the C++ API, and what releasing the GIL buys (docs/benchmarks.md,
"Python module").

    PYTHONPATH=build/python /usr/bin/python3 python/tools/bench.py [--rounds 5] [--bench build/rhoflow-bench]

Each round runs, one after the other: `rhoflow-bench --quick jobs` (through the C++ API,
experiment/jobs.hpp: the exact field at 1000 rho and the default sga, one timing each; the field
at one rho and a one-step sga, best of 50), the same calls from Python, one sga(threads=1) and
two sga(threads=1) in two Python threads at once. Best and
median over the rounds; the ratios are of the best times (the machine's noise is one-sided). On a
shared machine the two-thread ratio is bounded by the CPU share the process gets (printed as
cores in use); how far the later call had got when the first returned does not depend on it.
"""
import argparse
import os
import re
import resource
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
    """Two calls of job(progress) in two threads: the wall time, and how far (fraction of its
    steps) the later call had got when the first one returned: about 1 when they ran side by
    side, 0 when one waited for the other (the GIL held through a call)."""
    state = [[0, 1], [0, 1]]
    ended = []

    def work(i):
        job(lambda done, total: state[i].__setitem__(slice(None), [done, total]))
        if not ended:
            ended.append([s[0] / s[1] for s in state])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - t0, min(ended[0])


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bench", default=os.path.join(here, "..", "..", "build", "rhoflow-bench"))
    args = parser.parse_args()

    rho = np.linspace(-1, 1, 1000)
    one_thread = dict(steps=10000, trials=30, threads=1)
    times = {k: [] for k in ("cpp field", "py field", "cpp sga", "py sga", "cpp field 1 rho", "py field 1 rho",
                             "cpp sga 1 step", "py sga 1 step", "sga 1 thread", "2 x sga 1 thread")}
    m = rhoflow.Model()
    cores_one, cores_two, others = [], [], []
    for r in range(args.rounds):
        out = subprocess.run([args.bench, "--quick", "jobs"], capture_output=True, text=True, check=True).stdout
        for key, name in (("cpp field", "field_1000"), ("cpp sga", "sga_default"), ("cpp field 1 rho", "field_1"),
                          ("cpp sga 1 step", "sga_1")):
            times[key].append(float(re.search(rf"jobs {name}: best ([0-9.]+)", out).group(1)))
        times["py field"].append(timed(lambda: rhoflow.field(m, rho)))
        times["py sga"].append(timed(lambda: rhoflow.sga(m)))
        times["py field 1 rho"].append(min(timed(lambda: rhoflow.field(m, 0.3)) for _ in range(50)))
        times["py sga 1 step"].append(min(timed(lambda: rhoflow.sga(m, steps=1, trials=1)) for _ in range(50)))
        c0 = cpu_seconds()
        times["sga 1 thread"].append(timed(lambda: rhoflow.sga(**one_thread)))
        cores_one.append((cpu_seconds() - c0) / times["sga 1 thread"][-1])
        c0 = cpu_seconds()
        wall, other = two_at_once(lambda progress: rhoflow.sga(**one_thread, progress=progress))
        times["2 x sga 1 thread"].append(wall)
        cores_two.append((cpu_seconds() - c0) / wall)
        others.append(other)
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.4g} s" for k, v in times.items()) +
              f"; cores in use {cores_one[-1]:.2f} (one call), {cores_two[-1]:.2f} (two); the later call "
              f"{100 * other:.0f}% done when the first returned", flush=True)

    best = {k: min(v) for k, v in times.items()}
    print("\n| measurement | best | median |")
    print("|---|---:|---:|")
    for k, v in times.items():
        print(f"| {k} | {best[k]:.4g} s | {statistics.median(v):.4g} s |")
    print(f"\nper call beyond the work: field {1e3 * (best['py field 1 rho'] - best['cpp field 1 rho']):.3f} ms, "
          f"sga {1e3 * (best['py sga 1 step'] - best['cpp sga 1 step']):.3f} ms")
    print(f"\nPython / C++: field {best['py field'] / best['cpp field']:.3f}, sga {best['py sga'] / best['cpp sga']:.3f}; "
          f"two concurrent calls / one call (threads=1 each): {best['2 x sga 1 thread'] / best['sga 1 thread']:.2f} "
          f"(2 = serialised by the GIL, 1 = two cores); cores in use (CPU s / wall s) {statistics.median(cores_one):.2f} "
          f"for one call, {statistics.median(cores_two):.2f} for two (the share of the machine this process got); "
          f"the later of the two calls was {100 * statistics.median(others):.0f}% done when the first returned "
          f"(median; 0% if they had run one after the other)")


if __name__ == "__main__":
    main()
