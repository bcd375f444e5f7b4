#!/usr/bin/python3
"""The calibration table of docs/verification.md from `rhoflow run experiments/calibration.toml`.

Usage: /usr/bin/python3 scripts/calibration_table.py calibration-out

Reads OUT/<task>/seed=*/compare.json and prints, per task, how many seeds the verdict called
inconsistent and in which parts; then the right theory's pooled false-alarm rate with its 95%
Wilson interval (tasks without "_" in their name are the right theory).
"""
import glob
import json
import math
import os
import sys

PARTS = ["mean", "spread", "hit_fraction", "hit_times", "basins"]


def wilson(k, n, z=1.959963984540054):
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, c - h), min(1.0, c + h))


def main(out):
    rows, pooled_k, pooled_n = [], 0, 0
    tasks = sorted(d for d in os.listdir(out) if os.path.isdir(os.path.join(out, d)))
    for task in tasks:
        docs = sorted(glob.glob(os.path.join(out, task, "seed=*", "compare.json")))
        if not docs:
            continue
        alarms, by_part, tested = 0, {p: 0 for p in PARTS}, {p: 0 for p in PARTS}
        for path in docs:
            with open(path) as f:
                v = json.load(f)["verdict"]
            alarms += not v["consistent"]
            for part in v.get("parts", []):
                tested[part["name"]] += 1
                by_part[part["name"]] += part["rejected"] > 0
        if "_" not in task:
            pooled_k, pooled_n = pooled_k + alarms, pooled_n + len(docs)
        cells = " | ".join(f"{by_part[p]}/{tested[p]}" if tested[p] else "-" for p in PARTS)
        rows.append(f"| {task} | {len(docs)} | {alarms} | {cells} |")
    print("| task | seeds | inconsistent | " + " | ".join(PARTS) + " |")
    print("|---|---|---|" + "---|" * len(PARTS))
    print("\n".join(rows))
    lo, hi = wilson(pooled_k, pooled_n)
    print(f"\nright theory: {pooled_k} false alarms in {pooled_n} runs, rate {pooled_k / max(1, pooled_n):.3f} "
          f"(95% Wilson [{lo:.3f}, {hi:.3f}]); nominal family-wise level 0.05")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
