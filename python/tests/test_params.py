"""Keyword arguments: the library's defaults, its validation and its messages.

The functions' signatures come from the settings table (experiment/settings.hpp), so their
defaults are the C++ defaults by construction; what is tested here is what could still go
wrong: the table reaching Python intact, a bad value raising ValueError naming the parameter
and the accepted range with the library's own message (the same text the command line prints
after "invalid --FLAG: "), wrong Python types refused before the library sees them, and the
documentation that help() shows."""
import inspect
import re

import numpy as np
import pytest

import rhoflow


def test_defaults_are_the_library_defaults_and_reach_it_unchanged():
    sig = inspect.signature(rhoflow.sga)
    assert sig.parameters["steps"].default == 10000
    assert sig.parameters["eta0"].default == 0.5
    assert sig.parameters["rho0"].default is None            # uniform on the sphere
    assert sig.parameters["sampler"].default == "reduced"
    assert inspect.signature(rhoflow.compare).parameters["steps"].default == 20000   # the embedded default
    assert inspect.signature(rhoflow.compare).parameters["eta0"].default == 0.01
    assert inspect.signature(rhoflow.ode).parameters["t_end"].default == 50.0
    # A call with no keyword gives the job that the command line runs with no flag.
    s = rhoflow.sga(steps=10, trials=2)
    assert s.params.sga.schedule.eta0 == 0.5 and s.params.sga.hit_eps == 0.01 and s.params.sga.rho0 is None
    # The model's defaults are the library's (every job table has the same model settings).
    table = {s["key"]: s["default"] for s in rhoflow._rhoflow.settings("sga")}
    m = rhoflow.Model()
    assert (m.d, m.L, m.R, m.theta, m.sigma, m.beta) == (int(table["d"]), int(table["L"]), int(table["R"]),
                                                        float(table["theta"]), float(table["sigma"]),
                                                        float(table["beta"]))


def test_every_setting_is_a_keyword_and_every_keyword_a_setting():
    for command in rhoflow._rhoflow.commands():
        keys = {s["key"].replace("-", "_") for s in rhoflow._rhoflow.settings(command)}
        if rhoflow._JOBS[command]["has_model"]:
            keys -= {"d", "L", "R", "theta", "sigma", "beta", "sigma_per_norm"}
            keys.add("model")
        params = set(inspect.signature(getattr(rhoflow, command)).parameters) - {"progress", "max_memory"}  # not settings of the job
        assert params == keys, command


BAD = [
    # (call, parameter, the flag the command line names, its flags)
    (lambda: rhoflow.sga(eta0=-1), "eta0", ["sga", "--eta0", "-1"]),
    (lambda: rhoflow.sga(hit=2), "hit", ["sga", "--hit", "2"]),
    (lambda: rhoflow.sga(steps=0), "steps", ["sga", "--steps", "0"]),
    (lambda: rhoflow.sga(steps=1.5), "steps", ["sga", "--steps", "1.5"]),
    (lambda: rhoflow.sga(sampler="fast"), "sampler", ["sga", "--sampler", "fast"]),
    (lambda: rhoflow.sga(rho0=1.5), "rho0", ["sga", "--rho0", "1.5"]),
    (lambda: rhoflow.sga(gamma=float("nan")), "gamma", ["sga", "--gamma", "nan"]),
    (lambda: rhoflow.field(rhoflow.Model(), [0.1, 2]), "rho", ["field", "--rho", "0.1,2"]),
    (lambda: rhoflow.field(rhoflow.Model(), 0.1, samples=1, method="montecarlo"), "samples",
     ["field", "--rho", "0.1", "--samples", "1", "--method", "montecarlo"]),
    (lambda: rhoflow.ode(rhoflow.Model(), 0.05, -1), "t_end", ["ode", "--t-end", "-1"]),
    (lambda: rhoflow.ode(rhoflow.Model(), rtol=1), "rtol", ["ode", "--rtol", "1"]),
    (lambda: rhoflow.ode(rhoflow.Model(), table_tol=1), "table_tol", ["ode", "--table-tol", "1"]),
    (lambda: rhoflow.compare(rows=2), "rows", ["compare", "--rows", "2"]),
    (lambda: rhoflow.compare(trials=1), "trials", ["compare", "--trials", "1"]),   # 2 ... 1e7 (issue 17)
    (lambda: rhoflow.compare(study_eta0=[0.1, 0.2]), "study_eta0", ["compare", "--study-eta0", "0.1,0.2"]),
    (lambda: rhoflow.compare(alpha=0.9), "alpha", ["compare", "--alpha", "0.9"]),
    (lambda: rhoflow.stationary(rhoflow.Model(), 0), "eta", ["stationary", "--eta", "0"]),
    (lambda: rhoflow.check("nonsense"), "claim", ["check", "--claim", "nonsense"]),
    (lambda: rhoflow.check("monotone", theta=(2, 1)), "theta", ["check", "--claim", "monotone", "--theta", "2:1"]),
    (lambda: rhoflow.check("monotone", grid=1), "grid", ["check", "--claim", "monotone", "--grid", "1"]),
]


@pytest.mark.parametrize("call,parameter,args", BAD, ids=[b[1] + ":" + " ".join(b[2][1:]) for b in BAD])
def test_bad_values_raise_value_error_with_the_library_message(cli, call, parameter, args):
    with pytest.raises(ValueError) as info:
        call()
    e = info.value
    assert isinstance(e, rhoflow.InvalidArgument)
    assert e.parameter == parameter
    text = str(e)
    # The command line prints "rhoflow: error: invalid --FLAG: <the library's message>".
    code, _, err = cli(*args)
    assert code == 2
    library_message = err.strip().split(": ", 3)[-1]
    assert text.endswith(library_message), (text, err)
    # The message names the parameter: the keyword first, or the library's field (its path for
    # the parsers' messages, "sga.sampler = 'fast' is not a sampler ...") when they agree.
    leaf = e.field.rsplit(".", 1)[-1]
    assert text.startswith(parameter + ": ") or (leaf == parameter and (parameter + " = " in text.split("(")[0] or
                                                                       text.startswith(parameter + " has ")))
    assert "accepted" in text or "is not" in text


def test_model_is_validated_with_the_library_message_and_is_immutable(cli):
    with pytest.raises(ValueError) as info:
        rhoflow.Model(L=500, R=600)
    assert info.value.parameter == "R"
    code, _, err = cli("sga", "--L", "500", "--R", "600")
    assert code == 2 and str(info.value) in err
    with pytest.raises(ValueError, match="^d = 1 is out of range"):
        rhoflow.Model(d=1)
    m = rhoflow.Model(d=20, sigma=2.0, sigma_per_norm=True)
    assert m.sigma == 2.0 and m.sigma_per_coordinate == 2.0 / np.sqrt(20)
    with pytest.raises(AttributeError):
        m.theta = 3
    assert rhoflow.Model(L=1e6, R=1e5).L == 1000000   # integers in scientific notation, as the CLI takes them
    with pytest.raises(ValueError, match="not an integer"):
        rhoflow.Model(L=1000.5)


def test_wrong_python_types_are_type_errors():
    with pytest.raises(TypeError):
        rhoflow.sga(steps=True)
    with pytest.raises(TypeError):
        rhoflow.sga(sampler=3)
    with pytest.raises(TypeError):
        rhoflow.sga(rhoflow.Model(), 5)              # keyword-only
    with pytest.raises(TypeError):
        rhoflow.sga(stepz=10)
    with pytest.raises(TypeError):
        rhoflow.sga(model={"d": 50})
    with pytest.raises(TypeError):
        rhoflow.ode(no_error_estimate=1)


def test_numpy_values_and_arrays_are_accepted_exactly():
    rho = np.linspace(-1, 1, 7)
    f = rhoflow.field(rhoflow.Model(d=np.int64(30)), rho)
    assert f.rho.tobytes() == rho.tobytes()
    s = rhoflow.sga(steps=np.int32(50), trials=2, eta0=np.float32(0.25), record=np.array([7, 13]))
    assert s.params.sga.schedule.eta0 == 0.25 and 7 in s.steps and 13 in s.steps


def test_help_shows_every_parameter_with_default_range_and_field_documentation():
    doc = rhoflow.sga.__doc__
    # Each parameter once, from the header's ///< comment, in Python's words.
    assert "eta0 : float, default 0.5\n    initial step, 0 < eta0 <= 1e100\n" in doc
    assert "initial step size" not in doc  # the command line's help is not repeated
    assert "hit : float, default 0.01" in doc and "[sga." not in doc
    for command in rhoflow._rhoflow.commands():
        f = getattr(rhoflow, command)
        for name, p in inspect.signature(f).parameters.items():
            assert f"\n{name} : " in "\n" + f.__doc__, (command, name)
        assert "comma-separated" not in f.__doc__ and "t-end" not in f.__doc__, command
        settings_doc = f.__doc__.split("\nmax_memory : ")[0]  # the settings' lines: keywords, not flags
        assert not re.search(r"--[a-z]", settings_doc), (command, re.findall(r".*--[a-z].*", settings_doc))
    assert str(inspect.signature(rhoflow.sga)).startswith("(model: 'Model' = Model(d=50, L=1000, R=100,")
    # The result classes list the library's result fields with their documentation.
    assert "rho_final: alignment after the last step" in rhoflow.SgaResult.__doc__
    assert "rho_err: error estimate of rho(t)" in rhoflow.OdeResult.__doc__


def test_documents_record_the_python_command_line_commit_and_date():
    """A result made from Python records the interpreter's command line, the build's commit and
    the date (docs/cli.md, Provenance); one read back keeps the provenance it was written with."""
    import json
    o = rhoflow.ode(rhoflow.Model(), 0.05, 5, points=3)
    doc = json.loads(o.to_json())
    assert doc["command_line"].startswith("python3 ")
    assert len(doc["commit"]) in (7, 40) or doc["commit"] == "unknown"
    assert len(doc["date"]) == 20 and doc["date"].endswith("Z")
    old = dict(doc, command_line="rhoflow ode --rho0 0.05", date="2020-01-01T00:00:00Z")
    again = json.loads(rhoflow.from_json(json.dumps(old)).to_json())
    assert again["command_line"] == "rhoflow ode --rho0 0.05" and again["date"] == "2020-01-01T00:00:00Z"
    # A document from before the provenance (program, version, command only) still loads.
    for key in ("commit", "commit_modified", "command_line", "date", "experiment_file", "experiment_sha256"):
        del old[key]
    assert list(rhoflow.from_json(json.dumps(old)).t) == list(o.t)


def test_ode_takes_several_rho0_and_given_times():
    import json
    o = rhoflow.ode(rhoflow.Model(), [0.05, 0.3], t=[0, 1, 10])
    assert list(o.t) == [0, 1, 10]
    single = rhoflow.ode(rhoflow.Model(), 0.3, t=[0, 1, 10])
    others = json.loads(o.to_json())["others"]
    assert len(others) == 1 and others[0]["rho"] == list(single.rho)
