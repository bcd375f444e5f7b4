"""load(dir) reads what rhoflow wrote (the command line or Result.save) back into the same objects;
the files are untrusted, so a malformed or hostile one raises ValueError instead."""
import json
import os
import shutil

import numpy as np
import pytest

import rhoflow

COMPARE_FLAGS = ["--steps", "3000", "--trials", "6", "--eta0", "0.02", "--k0", "1000", "--study-eta0",
                 "0.04,0.02,0.01", "--study-trials", "4", "--effective-samples", "200", "--effective-paths", "200"]
COMPARE_KW = dict(steps=3000, trials=6, eta0=0.02, k0=1000, study_eta0=[0.04, 0.02, 0.01], study_trials=4,
                  effective_samples=200, effective_paths=200)


def without_run_keys(text):
    """The document without the provenance's command line and date (a Python call and the command
    line record different ones: docs/cli.md, Provenance)."""
    doc = json.loads(text)
    for key in ("command_line", "date"):
        doc.pop(key, None)
    return doc


def same_result(a, b):
    assert type(a) is type(b)
    assert without_run_keys(a.to_json()) == without_run_keys(b.to_json())
    tables = getattr(a, "_tables", {})
    for name in tables:
        for key in tables[name]:
            x, y = tables[name][key], b._tables[name][key]
            assert (x.tobytes() == y.tobytes()) if isinstance(x, np.ndarray) else x == y, (name, key)


def test_compare_folder_of_the_cli_loads_into_the_same_result(cli, tmp_path):
    out = tmp_path / "cmp"
    code, stdout, err = cli("compare", *COMPARE_FLAGS, "--out", out, "--no-figures", "--quiet", "--json")
    assert code == 0, err
    loaded = rhoflow.load(out)
    live = rhoflow.compare(**COMPARE_KW)
    same_result(loaded, live)
    assert loaded.to_json() + "\n" == stdout
    assert isinstance(loaded, rhoflow.CompareResult) and loaded.consistent == live.consistent
    # Result.save writes the same folder, which loads back the same.
    live.save(tmp_path / "saved", figures=False)
    same_result(rhoflow.load(tmp_path / "saved"), live)
    assert sorted(os.listdir(tmp_path / "saved")) == sorted(os.listdir(out))


def test_sga_document_file_and_saved_folder(cli, tmp_path):
    code, _, err = cli("sga", "--steps", "2000", "--trials", "4", "--seed", "9", "--output", tmp_path / "s.json")
    assert code == 0, err
    loaded = rhoflow.load(tmp_path / "s.json")
    live = rhoflow.sga(steps=2000, trials=4, seed=9)
    same_result(loaded, live)
    assert loaded.rho.tobytes() == live.rho.tobytes() and loaded.hit_step.tolist() == live.hit_step.tolist()
    live.save(tmp_path / "sga")
    assert sorted(os.listdir(tmp_path / "sga")) in (["CITATION.bib", "result.json"],
                                                   [".rhoflow-output", "CITATION.bib", "result.json"])
    same_result(rhoflow.load(tmp_path / "sga"), live)


def test_check_folder(cli, tmp_path):
    code, _, err = cli("check", "--claim", "monotone", "--theta", "0.5:2", "--grid", "3", "--out", tmp_path / "ck",
                       "--no-figures", "--quiet")
    assert code == 0, err
    loaded = rhoflow.load(tmp_path / "ck")
    live = rhoflow.check("monotone", theta=(0.5, 2), grid=3)
    same_result(loaded, live)
    assert loaded.verdict == live.verdict and list(loaded.table) == list(live.table)


EXPERIMENT = """title = "tiny"
[[task]]
name = "s"
command = "sga"
steps = 300
trials = 2
eta0 = [0.1, 0.2]
[[task]]
name = "f"
command = "field"
rho = [[0.1, 0.2]]
"""


def test_run_output_loads_into_the_same_run(cli, tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(EXPERIMENT)
    code, _, err = cli("run", path, "--out", tmp_path / "cli-out")
    assert code == 0, err
    loaded = rhoflow.load(tmp_path / "cli-out")
    live = rhoflow.run(path, out=tmp_path / "py-out")
    assert isinstance(loaded, rhoflow.RunResult) and isinstance(live, rhoflow.RunResult)
    assert [(c.task, c.dir, c.swept) for c in loaded.cells] == [(c.task, c.dir, c.swept) for c in live.cells]
    assert [c.dir for c in live.cells] == ["s/eta0=0.1", "s/eta0=0.2", "f/run"]
    for a, b in zip(loaded.results, live.results):
        same_result(a, b)
    assert set(loaded.summaries) == set(live.summaries) == {"s", "f"}
    for task in live.summaries:
        x, y = loaded.summaries[task], live.summaries[task]
        assert list(x) == list(y) and x.caption == y.caption
        for key in y:
            assert (x[key].tobytes() == y[key].tobytes()) if isinstance(y[key], np.ndarray) else x[key] == y[key]
    assert live.cells[0].resumed is False
    # Each cell records the one command line that reruns it alone, live and loaded.
    assert live.cells[1].result.data.cell_command_line == "rhoflow sga --eta0 0.2 --steps 300 --trials 2"
    assert live.cells[2].result.data.cell_command_line == "rhoflow field --rho 0.1,0.2"
    assert [c.result.data.cell_command_line for c in loaded.cells] == [c.result.data.cell_command_line for c in live.cells]
    # A second run of the same file resumes every cell from the finished folder.
    again = rhoflow.run(path, out=tmp_path / "py-out")
    assert all(c.resumed for c in again.cells)
    for a, b in zip(again.results, live.results):
        same_result(a, b)


def test_untrusted_files_raise_value_error(tmp_path):
    s = rhoflow.sga(steps=100, trials=2)
    doc = json.loads(s.to_json())
    cases = {
        "not json": "{",
        "no command": json.dumps({k: v for k, v in doc.items() if k != "command"}),
        "unknown command": json.dumps({**doc, "command": "rm"}),
        "bad params": json.dumps({**doc, "params": {**doc["params"], "sga": {**doc["params"]["sga"], "steps": 0}}}),
        "wrong type": json.dumps({**doc, "record_steps": "many"}),
        "ragged trials": json.dumps({**doc, "trials": [{**doc["trials"][0], "rho": [0.1]}, doc["trials"][1]]}),
    }
    for name, text in cases.items():
        (tmp_path / f"{name}.json").write_text(text)
        with pytest.raises(ValueError):
            rhoflow.load(tmp_path / f"{name}.json")
    with pytest.raises(ValueError, match="steps = 0"):
        rhoflow.from_json(cases["bad params"])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="holds no rhoflow output"):
        rhoflow.load(empty)
    # A run index pointing outside its folder is refused, not followed.
    run = tmp_path / "run"
    run.mkdir()
    s.save(tmp_path / "elsewhere")
    (run / "run.json").write_text(json.dumps({"program": "rhoflow", "command": "run", "runs": [
        {"task": "s", "dir": "../elsewhere", "swept": {}}]}))
    with pytest.raises(ValueError, match="not a folder inside the run"):
        rhoflow.load(run)
    shutil.rmtree(run)
