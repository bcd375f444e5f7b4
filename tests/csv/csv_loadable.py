"""Every kind of CSV file rhoflow writes loads in pandas and NumPy, and holds the JSON's numbers.

Usage: /usr/bin/python3 csv_loadable.py RHOFLOW_BINARY SCRATCH_DIR (a ctest, tests/CMakeLists.txt).

It runs compare (table, gap, study), check (points) and an experiment file with one task per job
command (summary.csv of each), then for every CSV written:
  - pandas.read_csv(path, comment="#") and numpy.genfromtxt(path, delimiter=",", names=True) both
    read it, with the same column names (genfromtxt keeps every name as it is); pandas' default
    parser to within 1e-13 relative (it is not correctly rounded), with float_precision="round_trip"
    exactly;
  - every number equals, bit for bit, the value at the column's JSON path (the sidecar
    PATH.meta.json names it for compare/check tables; docs/cli.md lists the summaries' paths),
    so the numbers are printed in a form that reads back exactly;
  - the sidecar carries the provenance (commit, command line) and the caption.
Exits 1 listing every failure."""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pandas as pd

RHOFLOW, SCRATCH = sys.argv[1], sys.argv[2]
failures = []


def fail(msg):
    failures.append(msg)


def run(*args):
    p = subprocess.run([RHOFLOW, *args], capture_output=True, text=True, cwd=SCRATCH)
    if p.returncode != 0:
        sys.exit(f"rhoflow {' '.join(args)} exited {p.returncode}: {p.stderr}")


def at(doc, path):
    """The value at a dotted path ("summary.abs_rho_final.mean"); [-1] for the last element."""
    for part in path.split("."):
        if part == "[-1]":
            doc = doc[-1]
        elif part == "len":
            doc = len(doc)
        else:
            doc = doc[part]
    return doc


def load_both(path):
    # pandas' default float parser is fast but not correctly rounded: on compare's table.csv it
    # was off on 95 of 247 values, by up to 96 ulp (2e-14 relative), and on stationary's
    # chain_q999_err = 0.00015438720064228157 (17 digits after 3 leading zeros) by 5e-13. The
    # default call must read the file (checked to 1e-12 relative below); float_precision=
    # "round_trip" reads it exactly (checked bit for bit against the JSON); numpy.genfromtxt too.
    fast = pd.read_csv(path, comment="#")
    df = pd.read_csv(path, comment="#", float_precision="round_trip")
    if list(fast.columns) != list(df.columns) or len(fast) != len(df):
        fail(f"{path}: the default pandas call reads other columns or rows")
    for c in df.columns:
        if df[c].dtype.kind == "f":
            a, b = fast[c].to_numpy(), df[c].to_numpy()
            ok = np.isclose(a, b, rtol=1e-12, atol=0, equal_nan=True)
            if not ok.all():
                fail(f"{path}: column {c}: the default pandas parser is more than 1e-12 off: {a[~ok]!r} vs {b[~ok]!r}")
    arr = np.genfromtxt(path, delimiter=",", names=True)
    if list(df.columns) != list(arr.dtype.names):
        fail(f"{path}: pandas columns {list(df.columns)} but numpy names {list(arr.dtype.names)}")
    with open(path, encoding="utf-8") as f:
        if f.readline().startswith("#"):
            fail(f"{path}: starts with a comment line")
    arr = np.atleast_1d(arr)
    if len(df) != len(arr):
        fail(f"{path}: pandas has {len(df)} rows, numpy {len(arr)}")
    return df, arr


def same(a, b):
    if isinstance(b, bool):
        b = float(b)
    if b is None:
        return a is None or (isinstance(a, float) and math.isnan(a))
    if isinstance(b, str):
        return a == b
    return float(a) == float(b)


def check_column(path, df, arr, column, expected):
    if column not in df.columns:
        fail(f"{path}: no column {column}")
        return
    for i, want in enumerate(expected):
        got = df[column].iloc[i]
        if isinstance(want, str):
            ok = got == want
        else:
            ok = same(None if (isinstance(got, float) and math.isnan(got)) else got, want) and (
                want is None or float(arr[column][i]) == float(want))
        if not ok:
            fail(f"{path}: row {i} column {column}: {got!r} (numpy {arr[column][i]!r}) but the JSON has {want!r}")


def check_sidecar(path, command):
    with open(path + ".meta.json", encoding="utf-8") as f:
        side = json.load(f)
    for key in ("version", "commit", "command_line", "date", "caption", "meta", "columns"):
        if key not in side:
            fail(f"{path}.meta.json: no key {key}")
    if not side.get("command_line", "").startswith("rhoflow " + command):
        fail(f"{path}.meta.json: command_line {side.get('command_line')!r}")
    return side


def check_table_against_document(path, doc, command):
    """A table whose sidecar names, per column, its path within the rows array of `doc`."""
    df, arr = load_both(path)
    side = check_sidecar(path, command)
    rows = at(doc, side["rows"])
    if len(rows) != len(df):
        fail(f"{path}: {len(df)} rows, the JSON's {side['rows']} has {len(rows)}")
        return
    for col in side["columns"]:
        if not col["json"]:
            fail(f"{path}: column {col['name']} has no JSON path")
            continue
        check_column(path, df, arr, col["name"], [at(r, col["json"]) for r in rows])


# The JSON paths (within each cell's result.json) of the summary columns: docs/cli.md, "Loading
# the CSV files".
SUMMARY_PATHS = {
    "field": None,  # one row per rho: points[i]
    "ode": {"hit_time": "hit_time", "rho_end": "rho.[-1]", "rho_end_err": "rho_err.[-1]"},
    "phase": {"equilibria": "equilibria.len"},
    "sga": {"mean_abs_rho_final": "summary.abs_rho_final.mean", "ci95_lo": "summary.abs_rho_final.lo",
            "ci95_hi": "summary.abs_rho_final.hi", "time_avg_abs_rho": "summary.abs_rho_last_half.mean",
            "time_avg_se": "summary.abs_rho_last_half.se", "nuisance_mass": "summary.nuisance_mass.mean",
            "hits": "summary.hits"},
    "compare": {"mean_abs_rho_final": "summary.abs_rho_final.mean", "ci95_lo": "summary.abs_rho_final.lo",
                "ci95_hi": "summary.abs_rho_final.hi", "nuisance_mass_sga": "summary.nuisance_mass.mean",
                "nuisance_mass_population": "table.[-1].nuisance_mass_population",
                "hit_time_ode": "hitting_time.ode.mean", "hit_time_sga": "hitting_time.sga.mean",
                "pred_abs_rho_final": "effective.abs_rho_final.mean", "hit_time_pred": "effective.hit_time.mean",
                "max_abs_z": "verdict.max_abs_z"},
    "stationary": {"mean_abs_rho": "mean", "mean_err": "mean_err", "sd": "sd", "sd_err": "sd_err",
                   "rho_star": "attractor", "rho_star_err": "attractor_err", "plain_ode": "plain_ode",
                   "chain_mean_abs_rho": "attractors.[-1].mean_abs.value",
                   "chain_mean_err": "attractors.[-1].mean_abs.err",
                   "chain_q999": "attractors.[-1].quantiles.[-1].value",
                   "chain_q999_err": "attractors.[-1].quantiles.[-1].err",
                   "chain_tail": "attractors.[-1].tail.value", "chain_tail_err": "attractors.[-1].tail.err",
                   "attractors": "attractors.len"},
    "check": {"points": "points.len", "holds": "counts.holds", "fails": "counts.fails",
              "undecided": "counts.undecided", "min_margin": "min_margin", "verdict": "verdict"},
}
FIELD_PATHS = {"at_rho": "rho", "j": "j", "j_err": "j_err", "dj": "dj", "dj_err": "dj_err",
               "mass_informative": "mass_informative"}

# compare and check folders.
SMALL = ["--d", "10", "--L", "40", "--R", "8"]
run("compare", *SMALL, "--steps", "600", "--trials", "4", "--eta0", "0.02", "--k0", "200", "--horizon", "2",
    "--study-eta0", "0.04,0.02,0.01", "--study-trials", "3", "--effective-samples", "200", "--effective-paths", "200",
    "--no-figures", "--quiet", "--out", "cmp")
with open(os.path.join(SCRATCH, "cmp", "compare.json"), encoding="utf-8") as f:
    cmp = json.load(f)
for name in ("table", "gap", "study"):
    check_table_against_document(os.path.join(SCRATCH, "cmp", name + ".csv"), cmp, "compare")
run("check", "--claim", "attractors=1", "--theta", "0.5:2", "--grid", "3", "--no-figures", "--quiet", "--out", "chk")
with open(os.path.join(SCRATCH, "chk", "check.json"), encoding="utf-8") as f:
    chk = json.load(f)
check_table_against_document(os.path.join(SCRATCH, "chk", "points.csv"), chk, "check")

# One task per job command, each sweeping one value (t-end: a flag with a dash; eta0 = 0.0025:
# written 0.0025, not 0.0025000000000000001).
EXPERIMENT = """[defaults]
d = 8
L = 20
R = 4
[[task]]
name = "field"
command = "field"
rho = [[0.0, 0.5], [0.25]]
[[task]]
name = "ode"
command = "ode"
t-end = [5, 10]
points = 3
[[task]]
name = "phase"
command = "phase"
theta = [1.0, 2.0]
[[task]]
name = "sga"
command = "sga"
steps = 100
trials = 2
threads = 1
eta0 = [0.0025, 0.01]
[[task]]
name = "compare"
command = "compare"
steps = 400
trials = 3
eta0 = 0.02
k0 = 100
horizon = 2
no-study = true
effective-samples = 200
effective-paths = 200
theta = [1.5]
[[task]]
name = "stationary"
command = "stationary"
L = 200
R = 40
theta = 2
eta = [0.04]
samples = 200
nodes = 8
bootstrap = 10
chain-steps = 5000
[[task]]
name = "check"
command = "check"
claim = "monotone"
theta = ["0.5:2", "1:3"]
grid = 3
"""
with open(os.path.join(SCRATCH, "e.toml"), "w", encoding="utf-8") as f:
    f.write(EXPERIMENT)
run("run", "e.toml", "--out", "runout", "--no-figures")
with open(os.path.join(SCRATCH, "runout", "run.json"), encoding="utf-8") as f:
    index = json.load(f)
for task, paths in SUMMARY_PATHS.items():
    path = os.path.join(SCRATCH, "runout", task, "summary.csv")
    df, arr = load_both(path)
    check_sidecar(path, "run")
    docs = []
    for r in index["runs"]:
        if r["task"] == task:
            with open(os.path.join(SCRATCH, "runout", r["dir"],
                                   "check.json" if task == "check" else
                                   "compare.json" if task == "compare" else "result.json"), encoding="utf-8") as f:
                docs.append((r, json.load(f)))
    if task == "field":  # one row per rho of each cell
        points = [p for _, d in docs for p in d["points"]]
        for col, p in FIELD_PATHS.items():
            check_column(path, df, arr, col, [q[p] for q in points])
        continue
    if len(df) != len(docs):
        fail(f"{path}: {len(df)} rows for {len(docs)} cells")
        continue
    for col, p in paths.items():
        check_column(path, df, arr, col, [at(d, p) for _, d in docs])
    # The swept values: named as the params field (t-end as t_end), numbers as given.
    for k in docs[0][0]["swept"]:
        name = k.replace("-", "_")
        values = [r["swept"][k] for r, _ in docs]
        if name not in df.columns:
            fail(f"{path}: no column {name} for the swept key {k}")
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for i, v in enumerate(values):
            try:
                float(v)
                if float(df[name].iloc[i]) != float(v) or v + "," not in text and "," + v not in text:
                    fail(f"{path}: the swept value {v} is not written as given")
            except ValueError:  # a list or a range: as given, ',' as ';'
                if df[name].iloc[i] != v.replace(",", ";"):
                    fail(f"{path}: row {i}: swept {k} = {df[name].iloc[i]!r}, given {v!r}")
with open(os.path.join(SCRATCH, "runout", "sga", "summary.csv"), encoding="utf-8") as f:
    if "0.0025000000000000001" in f.read():
        fail("sga/summary.csv: eta0 printed with 17 digits")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("every CSV loads in pandas and numpy and matches its JSON")
