"""The toy job of tests/jobs/toy_job.cpp, added in that one file, is a Python function.

Run by ctest with PYTHONPATH at build/python-jobs: the module built with the files of tests/jobs/
(python/CMakeLists.txt). The sums are checked against their closed forms."""
import inspect
import json

import pytest

import rhoflow


def test_the_toy_job_is_a_function_with_the_settings_as_parameters():
    assert "toy" in rhoflow._JOBS
    sig = inspect.signature(rhoflow.toy)
    assert list(sig.parameters)[:5] == ["n", "power", "scale", "alternating", "label"]
    assert sig.parameters["n"].default == 10  # the params struct's default, typed
    assert sig.parameters["scale"].default == 1.0
    assert sig.parameters["alternating"].default is False
    assert "k^p" in rhoflow.toy.__doc__


def test_the_toy_job_runs_and_its_sums_equal_their_closed_forms():
    r = rhoflow.toy(10, power=3)  # n by position, as the row says
    assert r.command == "toy"
    assert r.data.sum == 3025.0  # (n (n + 1) / 2)^2
    assert r.data.error < 1e-9
    assert r.params["n"] == 10 and r.params["power"] == 3
    r = rhoflow.toy(n=7, power=1, alternating=True, scale=-2.0)
    assert r.data.sum == -8.0  # -2 (n + 1) / 2 for odd n
    assert rhoflow.toy(n=1000).data.sum == 333833500.0  # n (n + 1) (2n + 1) / 6


def test_the_toy_jobs_bad_input_names_the_parameter():
    with pytest.raises(rhoflow.InvalidArgument, match=r"n = 0 is out of range \(accepted: 1 \.\.\. 1000000\)"):
        rhoflow.toy(n=0)
    with pytest.raises(rhoflow.InvalidArgument, match="power"):
        rhoflow.toy(power=2.5)
    with pytest.raises(TypeError, match=r"toy\(\) got an unexpected keyword argument 'powr'; did you mean 'power'"):
        rhoflow.toy(powr=2)


def test_the_toy_jobs_result_round_trips_through_its_document():
    r = rhoflow.toy(n=12, power=4)
    back = rhoflow.from_json(r.to_json())
    assert back.command == "toy"
    assert back.data.sum == 60710.0  # n (n + 1) (2n + 1) (3n^2 + 3n - 1) / 30
    assert json.loads(back.to_json())["params"] == json.loads(r.to_json())["params"]


def test_the_toy_job_runs_from_an_experiment_file(tmp_path):
    toml = tmp_path / "toy.toml"
    toml.write_text('[[task]]\nname = "squares"\ncommand = "toy"\nn = [10, 100]\npower = 2\n')
    run = rhoflow.run(toml, tmp_path / "out")
    sums = sorted(c.result.data.sum for c in run.cells)
    assert sums == [385.0, 338350.0]
