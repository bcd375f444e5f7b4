"""compare_ensemble: the comparison of an ensemble one already has (compare/compare.hpp's
compare() and add_effective_prediction), against compare() on the same settings."""
import numpy as np
import pytest

import rhoflow

MODEL = rhoflow.Model(d=10, L=400, R=60, theta=1.5)
SGA = dict(trials=12, steps=4000, eta0=0.02, k0=500, rho0=0.1)
COMPARE = dict(horizon=4, anchors=8, rows=8)


@pytest.fixture(scope="module")
def both():
    ensemble = rhoflow.sga(MODEL, **SGA)
    return ensemble, rhoflow.compare_ensemble(ensemble, **COMPARE), rhoflow.compare(MODEL, no_study=True, **SGA, **COMPARE)


def test_the_same_trials_give_the_same_statistics(both):
    ensemble, composed, full = both
    assert composed.every_step is False and full.every_step is True
    assert composed.study is None
    # compare() records the ensemble at its rows; sga at its own record steps: the rows are the
    # records nearest to compare()'s, and where a row is the same step, the same numbers.
    steps = list(ensemble.steps)
    assert all(s in steps for s in composed.table["step"])
    same = [i for i, s in enumerate(composed.table["step"]) if s in list(full.table["step"])]
    assert len(same) >= 4  # step 0, the end and the rows that are powers of ten
    for i in same:
        j = list(full.table["step"]).index(composed.table["step"][i])
        assert composed.table["rho_sga_mean"][i] == full.table["rho_sga_mean"][j]
        assert composed.table["pred_mean"][i] == full.table["pred_mean"][j]
        assert composed.table["rho_ode"][i] == pytest.approx(full.table["rho_ode"][j], abs=1e-7)
    for key in ("mean_abs_rho_final", "hits"):
        assert composed.summary[key] == full.summary[key]
    assert composed.verdict is not None
    # D_T from the record steps is a lower bound of compare()'s, from every step
    assert composed.tracking_error.mean <= full.tracking_error.mean + 1e-9


def test_the_ensembles_settings_are_its_own(both):
    ensemble, composed, _ = both
    assert composed.params["sga"]["steps"] == 4000 and composed.params["sga"]["trials"] == 12
    assert composed.model == MODEL
    with pytest.raises(TypeError, match="trials"):
        rhoflow.compare_ensemble(ensemble, trials=3)
    with pytest.raises(TypeError, match="SgaResult"):
        rhoflow.compare_ensemble(composed)
    with pytest.raises(rhoflow.InvalidArgument) as e:
        rhoflow.compare_ensemble(ensemble, horizon=1000)
    assert e.value.parameter == "horizon"


def test_a_saved_ensemble_compares_as_the_one_in_memory(both, tmp_path):
    ensemble, composed, _ = both
    ensemble.save(tmp_path / "sga")
    again = rhoflow.compare_ensemble(rhoflow.load(tmp_path / "sga"), **COMPARE)
    assert np.array_equal(again.table["rho_sga_mean"], composed.table["rho_sga_mean"])
    for key in ("consistent", "max_abs_z", "min_p_value", "explanation"):
        assert getattr(again.verdict, key) == getattr(composed.verdict, key)
    assert again.to_json() != ""  # a document like compare's: load and save it like one
    back = rhoflow.from_json(again.to_json())
    assert isinstance(back, rhoflow.CompareResult) and back.every_step is False


def test_the_study_is_not_offered_and_a_crafted_file_names_the_ensemble(both, tmp_path):
    import json
    ensemble, composed, _ = both
    with pytest.raises(TypeError, match="no_study"):
        rhoflow.compare_ensemble(ensemble, no_study=True)
    assert composed.params["study_eta0"] == []
    ensemble.save(tmp_path / "sga")
    path = tmp_path / "sga" / "result.json"
    doc = json.loads(path.read_text())
    doc["trials"][2]["rho"][3] = 1.5  # not an alignment
    path.write_text(json.dumps(doc))
    with pytest.raises(rhoflow.InvalidArgument) as e:
        rhoflow.compare_ensemble(rhoflow.load(tmp_path / "sga"), **COMPARE)
    assert e.value.parameter == "ensemble"
    assert "out of its range" in str(e.value)
