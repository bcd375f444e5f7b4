"""The same job gives the same bits from Python as from the command line.

Each test runs `rhoflow SUB ... --json` and the matching Python call, and checks that the JSON
documents are the same text byte for byte (parameters, provenance and every number, written
by the same hooks) and that the NumPy arrays hold exactly the document's numbers (json parses
the shortest round-trip form back to the same double). A Python layer that passed a parameter
differently (a float rounded through text, a default not the library's, a seed truncated) or
that lost precision on the way into NumPy would fail here."""
import json
import re

import numpy as np
import pytest

import rhoflow

SMALL_FLAGS = ["--d", "20", "--L", "300", "--R", "40", "--theta", "1.5", "--sigma", "2", "--beta", "0.8",
               "--sigma-per-norm"]


# The provenance's command line and date are the only keys that differ between a Python call and
# the command line (docs/cli.md, Provenance): the Python document records the interpreter's argv.
_PER_RUN = re.compile(r'^  "(command_line|date)": ".*",?$', re.M)


def same_document(python_text, cli_text):
    """The same document byte for byte, but for the provenance's command line and date."""
    assert re.search(r'^  "command_line": "rhoflow ', cli_text, re.M), "the CLI's document has no command line"
    assert re.search(r'^  "command_line": "python3 ', python_text, re.M), "the Python document has no command line"
    return _PER_RUN.sub("", python_text) == _PER_RUN.sub("", cli_text)


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def test_field_exact_and_montecarlo_match_the_cli(cli_json, small_model):
    rho = [-1, -0.5, 0, 0.3, 0.7, 1]
    doc, text = cli_json("field", "--rho", "-1,-0.5,0,0.3,0.7,1", *SMALL_FLAGS)
    f = rhoflow.field(small_model, rho)
    assert same_document(f.to_json() + "\n", text)
    for key in ("rho", "j", "dj", "drift", "mass_informative", "j_err", "dj_err", "drift_err", "mass_err"):
        assert same_bits(getattr(f, key), np.array([p[key] for p in doc["points"]], dtype=float)), key
    # Monte Carlo: the seed and the sample count reach the library unchanged.
    doc, text = cli_json("field", "--rho", "0.3", "--method", "montecarlo", "--samples", "20000", "--seed",
                         "18446744073709551615")
    f = rhoflow.field(rhoflow.Model(), 0.3, method="montecarlo", samples=20000, seed=2**64 - 1)
    assert same_document(f.to_json() + "\n", text)
    assert same_bits(np.array([f.j]), [doc["points"][0]["j"]]) and isinstance(f.j, float)


def test_ode_matches_the_cli(cli_json):
    doc, text = cli_json("ode", "--rho0", "0.05", "--t-end", "20", "--points", "11", "--rtol", "1e-9")
    o = rhoflow.ode(rhoflow.Model(), 0.05, 20, points=11, rtol=1e-9)
    assert same_document(o.to_json() + "\n", text)
    for key in ("t", "rho", "rho_err"):
        assert same_bits(getattr(o, key), np.array(doc[key], dtype=float)), key
    assert o.hit_time == doc["hit_time"] and o.hit_time_err == doc["hit_time_err"]


@pytest.mark.parametrize("sampler", ["reduced", "full"])
def test_sga_same_seed_same_bits_as_the_cli(cli_json, small_model, sampler):
    doc, text = cli_json("sga", "--steps", "3000", "--trials", "5", "--seed", "11", "--eta0", "0.1",
                         "--sampler", sampler, "--threads", "2", *SMALL_FLAGS)
    s = rhoflow.sga(small_model, steps=3000, trials=5, seed=11, eta0=0.1, sampler=sampler, threads=2)
    assert same_document(s.to_json() + "\n", text)
    assert same_bits(s.steps, np.array(doc["record_steps"], dtype=np.int64))
    assert same_bits(s.t, np.array(doc["record_times"], dtype=float))
    assert same_bits(s.rho, np.array([t["rho"] for t in doc["trials"]], dtype=float))
    assert same_bits(s.nuisance_mass, np.array([t["nuisance_mass"] for t in doc["trials"]], dtype=float))
    assert same_bits(s.rho_final, np.array([t["rho_final"] for t in doc["trials"]], dtype=float))
    assert s.summary.abs_rho_final.mean == doc["summary"]["abs_rho_final"]["mean"]
    # Another thread count: the same numbers (the document differs only in "threads").
    one = rhoflow.sga(small_model, steps=3000, trials=5, seed=11, eta0=0.1, sampler=sampler, threads=1)
    assert same_bits(one.rho, s.rho)
    # A different seed gives different numbers (the comparison above can fail).
    other = rhoflow.sga(small_model, steps=3000, trials=5, seed=12, eta0=0.1, sampler=sampler)
    assert not same_bits(other.rho, s.rho)


def test_compare_matches_the_cli_document_and_tables(cli, cli_json, tmp_path):
    flags = ["--steps", "3000", "--trials", "6", "--eta0", "0.02", "--k0", "1000", "--study-eta0", "0.04,0.02,0.01",
             "--study-trials", "4", "--effective-samples", "200", "--effective-paths", "200"]
    out = tmp_path / "cmp"
    doc, text = cli_json("compare", *flags, "--out", out, "--no-figures", "--quiet")
    c = rhoflow.compare(rhoflow.Model(), steps=3000, trials=6, eta0=0.02, k0=1000, study_eta0=[0.04, 0.02, 0.01],
                        study_trials=4, effective_samples=200, effective_paths=200)
    assert same_document(c.to_json() + "\n", text)
    assert c.consistent == doc["verdict"]["consistent"]
    # The tables are table.csv, gap.csv and study.csv of the command line's folder, to the bit
    # (the CSV carries 17 significant digits).
    for name, table in (("table", c.table), ("gap", c.gap_table), ("study", c.study_table)):
        loaded = rhoflow._read_table(out / f"{name}.csv")
        assert list(loaded) == list(table), name
        for key in table:
            assert same_bits(loaded[key], table[key]) or loaded[key] == table[key], (name, key)
        assert loaded.caption == table.caption and loaded.meta == table.meta


def test_stationary_and_phase_and_check_match_the_cli(cli_json):
    doc, text = cli_json("stationary", "--eta", "0.04", "--samples", "200", "--nodes", "8", "--bootstrap", "10")
    st = rhoflow.stationary(rhoflow.Model(), 0.04, samples=200, nodes=8, bootstrap=10)
    assert same_document(st.to_json() + "\n", text) and st.mean == doc["mean"]
    doc, text = cli_json("phase", "--d", "100", "--L", "10500", "--R", "500", "--theta", "3")
    p = rhoflow.phase(rhoflow.Model(d=100, L=10500, R=500, theta=3))
    assert same_document(p.to_json() + "\n", text)
    assert same_bits(p.equilibria.rho, np.array([e["rho"] for e in doc["equilibria"]], dtype=float))
    doc, text = cli_json("check", "--claim", "monotone", "--theta", "0.5:2", "--grid", "3")
    ch = rhoflow.check("monotone", theta=(0.5, 2), grid=3)
    mine = json.loads(ch.to_json())
    for key in ("command_line", "date"):  # the provenance's per-run keys (see same_document)
        mine.pop(key), doc.pop(key)
    assert mine == doc and ch.verdict == doc["verdict"]
