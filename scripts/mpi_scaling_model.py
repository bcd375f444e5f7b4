#!/usr/bin/env python3
"""Models how `mpirun -n N rhoflow run FILE.toml` scales, from one measured run (docs/benchmarks.md).

    python3 scripts/mpi_scaling_model.py RUN_JSON [--latency-ms 1.0] [--bytes-per-trial 3000]
                                          [--bandwidth-gbs 1.0] [--ranks 1,2,4,...]

RUN_JSON is the run.json of a run on several ranks with one thread per rank: its "execution"
field has, per cell, the seconds of each unit (trial blocks first, then the effective-dynamics
moment-table node blocks of a comparison) and rank 0's finish time. The model re-cuts each cell
as rhoflow does for N ranks (trial blocks of about 1/8 of total work / N, at least one trial
each; the moment tables into node blocks about a trial block's size, at least one node each, a
block serving every step size since the tables share their draws),
then simulates rhoflow's scheduler: N ranks, units handed out largest
first to whichever rank is free, each unit paying one round trip (latency, plus its result's
bytes over the bandwidth); once a comparison's units are all back its finish is one more unit,
taken before any other by the first free rank; rank 0 then writes the cell (rank 0 writes before
taking anything else). Standard library only.
"""
import argparse
import heapq
import json
import math


def cells_from(run):
    ex = run["execution"]
    params = {r["dir"]: r for r in run["runs"]}
    cells = []
    for c in ex["cells"]:
        if "unit_seconds" not in c:
            raise SystemExit(f"{c['name']}: no unit_seconds (taken from an earlier run?); measure a fresh run")
        p = params[c["name"]]["params"]
        units = c["unit_seconds"]
        tables = 0
        trials = 1  # field, ode, phase: one uncut unit
        if "effective" in p:  # a comparison (CompareParams): main trials, study trials, then tables
            trials = p["sga"]["trials"] + p["study_trials"] * len(p["study_eta0"])
            tables = c.get("table_units", 0)
        elif "sga" in p:  # an ensemble
            trials = p["sga"]["trials"]
        split = len(units) - tables
        levels, nodes = 0, 1
        if tables:
            levels = 1  # one group of tables: a node block measures every step size
            nodes = p["effective"]["moments"]["nodes"] + 1
        cells.append({
            "name": c["name"],
            "trial_work": sum(units[:split]),  # seconds, cut into blocks of whole trials below
            "trials": trials,
            "table_work": sum(units[split:]),  # seconds, cut into blocks of whole nodes below
            "levels": levels,
            "nodes": nodes,
            "finish": c.get("finish_seconds", 0.0),  # a comparison's finish: one unit, any rank
            "write": c.get("write_seconds", 0.0),    # rank 0 only
        })
    return cells


def simulate(cells, n, latency, bytes_per_trial, bandwidth):
    """Makespan and busy seconds per rank of rhoflow's scheduler on n ranks (see the module doc)."""
    total_trial = sum(c["trial_work"] for c in cells)
    target = total_trial / (8.0 * n) if total_trial > 0 else 1.0
    units = []  # heap of (-seconds, seq, cell, seconds, result bytes)
    seq = 0

    def add(i, secs, nbytes):
        nonlocal seq
        heapq.heappush(units, (-secs, seq, i, secs, nbytes))
        seq += 1

    remaining = [0] * len(cells)
    for i, c in enumerate(cells):
        blocks = 1
        if c["trial_work"] > 0:
            blocks = max(1, min(c["trials"], math.ceil(c["trial_work"] / target)))
            for _ in range(blocks):
                add(i, c["trial_work"] / blocks, bytes_per_trial * c["trials"] / blocks)
        if c["levels"]:
            per_level = c["table_work"] / c["levels"]
            node_blocks = max(1, min(c["nodes"], math.ceil(per_level / max(c["trial_work"] / blocks, 1e-9))))
            for _ in range(c["levels"] * node_blocks):
                add(i, per_level / node_blocks, 100.0 * c["nodes"] / node_blocks)
        remaining[i] = seq - sum(remaining)
    finishes, writes = [], []  # ready: a comparison's finish (any rank), a cell's files (rank 0)
    events = []  # (time, kind, cell): a unit ("u") or a finish ("f") is back at rank 0
    free = [(0.0, r) for r in range(n)]
    heapq.heapify(free)
    busy = [0.0] * n
    makespan = 0.0
    while units or events or finishes or writes:
        t, r = heapq.heappop(free)
        while events and events[0][0] <= t:
            _, kind, ci = heapq.heappop(events)
            if kind == "f" or cells[ci]["finish"] == 0:
                if kind == "f" or remaining[ci] == 1:
                    writes.append(ci)
                if kind == "u":
                    remaining[ci] -= 1
            else:
                remaining[ci] -= 1
                if remaining[ci] == 0:
                    finishes.append(ci)
        comm = 0.0 if r == 0 else latency
        if r == 0 and writes:
            ci = writes.pop(0)
            secs, end, kind = cells[ci]["write"], t + cells[ci]["write"], None
        elif finishes:
            ci = finishes.pop(0)
            secs = cells[ci]["finish"]
            end, kind = t + secs + comm + (0 if r == 0 else bytes_per_trial * cells[ci]["trials"] / bandwidth), "f"
        elif units:
            _, _, ci, secs, nbytes = heapq.heappop(units)
            end, kind = t + secs + comm + (0 if r == 0 else nbytes / bandwidth), "u"
        else:
            if events:  # wait for the next result (it may make a finish or a write ready)
                heapq.heappush(free, (max(events[0][0], t), r))
            elif r == 0 and (finishes or writes):
                heapq.heappush(free, (t, r))
            continue
        busy[r] += secs
        if kind:
            heapq.heappush(events, (end, kind, ci))
        makespan = max(makespan, end)
        heapq.heappush(free, (end, r))
    return makespan, busy


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_json")
    ap.add_argument("--latency-ms", type=float, default=1.0, help="per-unit round trip, polling included (ms)")
    ap.add_argument("--bytes-per-trial", type=float, default=3000.0, help="result bytes per trial (CBOR)")
    ap.add_argument("--bandwidth-gbs", type=float, default=1.0, help="link bandwidth (GB/s)")
    ap.add_argument("--ranks", default="1,2,4,8,16,32,64,128")
    a = ap.parse_args()
    run = json.load(open(a.run_json))
    cells = cells_from(run)
    one = sum(c["trial_work"] + c["table_work"] + c["finish"] + c["write"] for c in cells)
    serial = sum(c["write"] for c in cells)
    trial = max(c["trial_work"] / c["trials"] for c in cells)
    node = max((c["table_work"] / (c["levels"] * c["nodes"]) for c in cells if c["levels"]), default=0.0)
    finish = max(c["finish"] for c in cells)
    print(f"work on one rank: {one:.1f} s, of which rank 0's writes {serial:.1f} s; largest finish {finish:.2f} s; "
          f"smallest possible units: one trial {trial:.2f} s, one table node {node:.3f} s")
    print("| ranks | modelled wall (s) | speed-up | efficiency | load imbalance (max/mean busy) |")
    print("|---:|---:|---:|---:|---:|")
    for n in [int(x) for x in a.ranks.split(",")]:
        wall, busy = simulate(cells, n, a.latency_ms / 1e3, a.bytes_per_trial, a.bandwidth_gbs * 1e9)
        mean = sum(busy) / n
        print(f"| {n} | {wall:.2f} | {one / wall:.2f} | {one / wall / n:.0%} | {max(busy) / mean:.2f} |")


if __name__ == "__main__":
    main()
