"""prove, prove(verify=...) and field(rigorous=True) from Python: the job table's rows, the same
bytes as the command line, errors naming the keyword, experiment cells."""
import json
import os
import re

import pytest

import rhoflow

BOX = dict(d=5, L=100, R=50)


def test_prove_returns_the_certificate_with_its_verdict_and_checks(tmp_path):
    p = rhoflow.prove("monotone", theta=(0.99, 1), cells=4, threads=1, **BOX)
    assert isinstance(p, rhoflow.ProveResult)
    assert p.verdict == "proved" and p.proved
    assert p.params.box.theta.lo == 0.99 and p.params.box.theta.hi == 1.0
    assert set(p.cells["role"]) == {"dj>0"}  # every cell decided by j' > 0
    assert p.summary.cells == len(p.cells["role"])
    # The certificate checks, through Python, and tampered it does not (the error names verify).
    path = tmp_path / "c.json"
    path.write_text(p.certificate)
    v = rhoflow.prove(verify=path, verify_fast=True, threads=1)
    assert v.valid and v.verdict == "proved" and v.cells == p.summary.cells
    path.write_text(p.certificate.replace('"role": "dj>0"', '"role": "dj<0"', 1))
    with pytest.raises(rhoflow.InvalidArgument) as e:
        rhoflow.prove(verify=path, verify_fast=True, threads=1)
    assert e.value.parameter == "verify" and "does not check" in str(e.value)


def test_a_disproved_claim_has_its_counterexample():
    # attractors=2 fails where the field is monotone (+1 is the only attractor).
    p = rhoflow.prove("attractors=2", threads=1, **BOX)
    assert p.verdict == "disproved" and not p.proved


def test_prove_is_the_command_line_to_the_byte(cli, tmp_path):
    args = ["--claim", "monotone", "--d", "5", "--L", "100", "--R", "50", "--threads", "1"]
    code, out, err = cli("prove", *args, "--out", tmp_path / "cli")
    assert code == 0, err
    p = rhoflow.prove("monotone", threads=1, **BOX)
    p.save(tmp_path / "py")
    a = json.loads((tmp_path / "cli" / "certificate.json").read_text())
    b = json.loads((tmp_path / "py" / "certificate.json").read_text())
    for c in (a, b):
        c.pop("provenance")  # the command line and date: the interpreter's, the shell's
        c.pop("rhoflow_commit")  # the module and the command line may be builds of two commits
    assert a == b
    commit = re.compile(r"[0-9a-f]{40}( \(with uncommitted changes\))?")  # the two builds' commits may differ
    assert commit.sub("C", (tmp_path / "cli" / "summary.md").read_text()) == \
        commit.sub("C", (tmp_path / "py" / "summary.md").read_text())
    back = rhoflow.load(tmp_path / "cli")
    assert isinstance(back, rhoflow.ProveResult) and back.verdict == "proved"
    assert len(back.cells["role"]) == len(p.cells["role"])
    # Read back as untrusted data: counts and verdict must agree with the cells (load does not
    # verify the enclosures; prove(verify=...) does).
    for tamper in (lambda c: c.update(cells=c["cells"][:1]),
                   lambda c: c["summary"].update(enclosures=-5),
                   lambda c: c.update(verdict="disproved")):
        c = json.loads(p.certificate)
        tamper(c)
        with pytest.raises(ValueError):
            rhoflow.from_json(json.dumps(c))


def test_bad_input_names_the_keyword():
    with pytest.raises(rhoflow.InvalidArgument) as e:
        rhoflow.prove(**BOX)
    assert e.value.parameter == "claim" and "or give verify" in str(e.value)
    with pytest.raises(rhoflow.InvalidArgument) as e:
        rhoflow.prove("filtering", **BOX)
    assert e.value.parameter == "claim"
    with pytest.raises(rhoflow.InvalidArgument) as e:
        rhoflow.prove(verify="c.json", cells=16)  # at its default too
    assert e.value.parameter == "cells" and "cannot be combined with verify" in str(e.value)
    with pytest.raises(rhoflow.InvalidArgument) as e:
        rhoflow.prove("monotone", verify_fast=True, **BOX)
    assert e.value.parameter == "verify_fast"
    with pytest.raises(rhoflow.InvalidArgument) as e:
        rhoflow.prove(verify=os.devnull)  # a device is no certificate (read as untrusted)
    assert e.value.parameter == "verify"


def test_rigorous_field_encloses_the_estimate():
    m = rhoflow.Model(**BOX)
    rho = [-1.0, 0.3]
    g = rhoflow.field(m, rho, rigorous=True)
    f = rhoflow.field(m, rho)
    enc = g.enclosures
    for i in range(2):
        assert enc["j"]["lo"][i] <= f.j[i] <= enc["j"]["hi"][i]
        assert enc["dj"]["lo"][i] <= f.dj[i] <= enc["dj"]["hi"][i]
    with pytest.raises(AttributeError, match="enclosures"):
        g.j
    back = rhoflow.from_json(g.to_json())  # read back, its enclosures checked against its rho
    assert list(back.enclosures["dj"]["lo"]) == list(enc["dj"]["lo"])
    doc = json.loads(g.to_json())
    doc["enclosures"] = doc["enclosures"][:1]
    with pytest.raises(ValueError, match="enclosures"):
        rhoflow.from_json(json.dumps(doc))
    with pytest.raises(rhoflow.InvalidArgument) as e:
        rhoflow.field(m, rho, rigorous=True, method="meanfield")
    assert e.value.parameter == "rigorous"
    with pytest.raises(rhoflow.InvalidArgument) as e:
        rhoflow.field(m, rho, precision=256)  # the balls' precision without the balls
    assert e.value.parameter == "precision"


def test_prove_cells_in_an_experiment_file(tmp_path):
    (tmp_path / "e.toml").write_text(
        '[[task]]\nname = "proofs"\ncommand = "prove"\nclaim = ["monotone", "attractors=1"]\n'
        'd = 5\nL = 100\nR = 50\nthreads = 1\n')
    r = rhoflow.run(tmp_path / "e.toml", tmp_path / "out", figures=False)
    assert [c.result.verdict for c in r.cells] == ["proved", "proved"]
    assert list(r.summaries["proofs"]["verdict"]) == ["proved", "proved"]
    assert (tmp_path / "out" / "proofs" / "claim=monotone" / "certificate.json").is_file()
    # A re-check task beside them; the run folder reads back whole.
    cert = tmp_path / "out" / "proofs" / "claim=monotone" / "certificate.json"
    (tmp_path / "f.toml").write_text(
        f'[[task]]\nname = "recheck"\ncommand = "prove"\nverify = "{cert}"\nverify-fast = true\nthreads = 1\n')
    rhoflow.run(tmp_path / "f.toml", tmp_path / "out2", figures=False)
    back = rhoflow.load(tmp_path / "out2")
    assert back.cells[0].result.valid and back.cells[0].result.verdict == "proved"


def test_every_job_of_the_library_table_is_a_function():
    for name in rhoflow._rhoflow.commands():
        f = getattr(rhoflow, name)
        assert callable(f) and f.__name__ == name
        assert f.__doc__.startswith(rhoflow._JOBS[name]["summary"][:40])
