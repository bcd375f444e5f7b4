"""Shapes and dtypes of every array, the identities between a result's arrays, the views that
avoid copies, and to_json/from_json through the library's hooks."""
import json
import pickle

import numpy as np
import pandas as pd
import pytest

import rhoflow


def check_array(a, dtype, shape):
    assert isinstance(a, np.ndarray), type(a)
    assert a.dtype == np.dtype(dtype), a.dtype
    assert a.shape == shape, a.shape


def test_field_arrays():
    rho = np.linspace(-1, 1, 9)
    f = rhoflow.field(rhoflow.Model(), rho)
    for key in ("rho", "j", "dj", "drift", "mass_informative", "j_err", "dj_err", "drift_err", "mass_err"):
        check_array(getattr(f, key), np.float64, (9,))
    assert np.array_equal(f.rho, rho)
    assert np.array_equal(f.drift, (1 - rho**2) * f.dj + 0.0)      # F = (1 - rho^2) j', as the library defines it
    assert f.drift[0] == 0 and f.drift[-1] == 0
    assert len(pd.DataFrame(f.table)) == 9
    assert isinstance(rhoflow.field(rhoflow.Model(), 0.5).j, float)  # one rho, numbers
    check_array(rhoflow.field(rhoflow.Model(), [0.5]).j, np.float64, (1,))
    mc = rhoflow.field(rhoflow.Model(), [0.25, 0.5], method="montecarlo", samples=4000, seed=5)
    check_array(mc.gradient.g_u, np.float64, (2,))
    check_array(mc.j_err, np.float64, (2,))
    exact = f.j[[5, 6]]                                           # rho = 0.25, 0.5 on the grid above
    assert np.all(np.abs(mc.j - exact) < 5 * mc.j_err)           # within 5 standard errors (seed fixed)
    assert repr(f) == "<FieldResult (field): d=50, L=1000, R=100, theta=1; 9 rho (exact)>", repr(f)


def test_ode_arrays_are_read_only_views_of_the_result():
    o = rhoflow.ode(rhoflow.Model(), 0.05, 10, points=21)
    for key in ("t", "rho", "rho_err"):
        a = getattr(o, key)
        check_array(a, np.float64, (21,))
        assert not a.flags.writeable and not a.flags.owndata   # a view of the library's vector
        assert a.base is not None
    assert o.t[0] == 0 and o.t[-1] == 10 and o.rho[0] == 0.05
    assert np.all(np.diff(o.rho) > 0)                            # monotone flow from 0.05 to the attractor
    assert isinstance(o.hit_time, float) and 0 < o.hit_time < 10
    assert rhoflow.ode(rhoflow.Model(), 0.05, 1, points=3).hit_time is None
    assert repr(o) == f"<OdeResult (ode): d=50, L=1000, R=100, theta=1; t to 10, hit at {o.hit_time:.4g}>", repr(o)
    assert repr(rhoflow.ode(rhoflow.Model(), 0.05, 1, points=3)).endswith("; t to 1, no hit>")
    with pytest.raises(ValueError):
        o.rho[0] = 1.0


def test_sga_arrays_and_their_identities():
    s = rhoflow.sga(steps=5000, trials=7, seed=3, eta0=0.02, k0=1000, records_per_decade=5, record=[1500])
    n = len(s.steps)
    check_array(s.steps, np.int64, (n,))
    check_array(s.t, np.float64, (n,))
    check_array(s.rho, np.float64, (7, n))
    check_array(s.nuisance_mass, np.float64, (7, n))
    check_array(s.rho_final, np.float64, (7,))
    check_array(s.rho0, np.float64, (7,))
    # The repr shows the key numbers: the model, the ensemble and its mean |rho_final| with its CI.
    a = s.summary.abs_rho_final
    assert repr(s) == (f"<SgaResult (sga): d=50, L=1000, R=100, theta=1; 7 trials of 5000 steps; "
                       f"mean |rho_final| {a.mean:.4g} (95% CI [{a.lo:.4g}, {a.hi:.4g}])>"), repr(s)
    check_array(s.hit_step, np.int64, (7,))
    assert not s.steps.flags.writeable and not s.t.flags.writeable
    assert s.steps[0] == 0 and s.steps[-1] == 5000 and np.all(np.diff(s.steps) > 0)
    assert np.array_equal(s.rho[:, 0], s.rho0) and np.array_equal(s.rho[:, -1], s.rho_final)
    assert s.t[0] == 0 and np.all(np.diff(s.t) > 0)
    # hit_step: the first step with |rho| >= 0.99 (-1: never), so every record before it is below
    # the level; with these settings some trials hit before step 1500 and some after.
    assert s.summary.hits == np.count_nonzero(s.hit_step >= 0)
    assert np.any((s.hit_step >= 0) & (s.hit_step <= 1500)) and np.any(s.hit_step > 1500)
    for i in range(7):
        before = s.steps < s.hit_step[i] if s.hit_step[i] >= 0 else np.ones(n, bool)
        assert np.all(np.abs(s.rho[i, before]) < 0.99)
        assert s.hit_step[i] < 0 or np.abs(s.rho[i, s.steps >= s.hit_step[i]][0]) >= 0.99 or \
            s.steps[s.steps >= s.hit_step[i]][0] != s.hit_step[i]
    assert s.trials.trial.tolist() == list(range(7))
    check_array(s.trials.seed, np.int64, (7,))
    assert len(pd.DataFrame(s.table)) == 7
    assert s.summary.abs_rho_final.lo <= s.summary.abs_rho_final.mean <= s.summary.abs_rho_final.hi


def small_compare(**kw):
    return rhoflow.compare(steps=3000, trials=6, eta0=0.02, k0=1000, study_eta0=[0.04, 0.02, 0.01], study_trials=4,
                           effective_samples=200, effective_paths=200, **kw)


def test_compare_tables_and_verdict():
    c = small_compare()
    rows = len(c.table["step"])
    for key, column in c.table.items():
        check_array(column, np.int64 if key == "step" else np.float64, (rows,))
    df = pd.DataFrame(c.table)
    assert list(df.columns) == list(c.table) and len(df) == rows
    assert c.table.caption and c.table.meta[0].startswith("rhoflow ")
    assert len(pd.DataFrame(c.gap_table)) > 0 and len(c.study_table["eta0"]) == 3
    assert c.verdict.consistent in (True, False) and c.consistent == c.verdict.consistent
    assert c.verdict.rows_tested > 0 and c.verdict.alpha == 0.05
    # The ODE's part, which the verdict does not test: counted from the rows' own residuals.
    z = c.table["ode_z"]
    inside = (c.table["rho_sga_ci95_lo"] <= c.table["rho_ode"]) & (c.table["rho_ode"] <= c.table["rho_sga_ci95_hi"])
    assert c.ode.rows == np.count_nonzero(~np.isnan(z)) and c.ode.outside == np.count_nonzero(~inside[~np.isnan(z)])
    assert c.ode.explanation.startswith("The mean-field ODE lies")
    assert f"at {c.ode.outside} of {c.ode.rows} rows" in repr(c)
    assert repr(c).startswith("<CompareResult: " + ("consistent;" if c.consistent else "inconsistent;"))
    # The raw document rows: a table whose MeanCI columns are nested tables.
    check_array(c.data.table.rho_sga.mean, np.float64, (len(c.data.table.step),))
    assert small_compare(no_effective=True).verdict is None


def test_integer_columns_of_tables_are_int64_and_the_others_float64(tmp_path):
    c = small_compare()
    declared = {"table": {"step"}, "gap_table": {"step"}, "study_table": {"steps"}}
    for name, keys in declared.items():
        for key, column in getattr(c, name).items():
            assert column.dtype == (np.int64 if key in keys else np.float64), (name, key)
    assert np.array_equal(c.table["step"], c.data.table.step)  # the document's integers, unchanged
    # Doubles that happen to be whole stay float: the study's k0 (eta0 k0 fixed) is not declared.
    k0 = c.study_table["k0"]
    assert k0.dtype == np.float64 and np.all(k0 == np.round(k0))
    ch = rhoflow.check("attractors=2", theta=(0.5, 2), grid=3)
    for key in ("d", "L", "R", "level", "table_points"):
        assert ch.table[key].dtype == np.int64, key
    assert ch.table["theta"].dtype == np.float64 and ch.table["margin"].dtype == np.float64
    # A missing cell (a point whose count is not certified: -1 in the document) keeps it float (NaN).
    certified = np.array([p["attractors"] >= 0 for p in ch.data.points])
    assert ch.table["attractors"].dtype == (np.int64 if certified.all() else np.float64)
    # A sweep's summary: swept integer settings and counts int64, live and loaded from summary.csv.
    path = tmp_path / "e.toml"
    path.write_text('[[task]]\nname = "s"\ncommand = "sga"\nd = 8\nL = 20\nR = 4\ntrials = 3\n'
                    'steps = [200, 300]\ntheta = [1.0, 1.5]\n')
    live = rhoflow.run(path, out=tmp_path / "o")
    loaded = rhoflow.load(tmp_path / "o")
    for s in (live.summaries["s"], loaded.summaries["s"]):
        assert s["steps"].dtype == np.int64 and s["hits"].dtype == np.int64
        assert s["theta"].dtype == np.float64 and s["mean_abs_rho_final"].dtype == np.float64
        assert list(s["steps"]) == [200, 300, 200, 300]


def test_a_csv_read_back_takes_integer_columns_from_its_sidecar_not_from_its_values(tmp_path):
    def table(rows):
        path = tmp_path / "t.csv"
        path.write_text("k,x\n" + rows)
        side = {"caption": "c", "meta": [], "rows": "", "columns": [
            {"name": "k", "header": "k", "json": "k", "description": "a step", "unit": "steps", "integer": True},
            {"name": "x", "header": "x", "json": "x", "description": "a number", "unit": "1", "integer": False}]}
        (tmp_path / "t.csv.meta.json").write_text(json.dumps(side))
        return rhoflow._read_table(path)
    t = table("1,2\n3,4\n")
    assert t["k"].dtype == np.int64 and list(t["k"]) == [1, 3]
    assert t["x"].dtype == np.float64 and list(t["x"]) == [2.0, 4.0]  # whole, but not declared integer
    t = table("1,2\n,4\n")  # a missing step: NaN, so float64
    assert t["k"].dtype == np.float64 and np.isnan(t["k"][1]) and t["k"][0] == 1


def test_phase_stationary_check_fields():
    p = rhoflow.phase(rhoflow.Model(d=100, L=10500, R=500, theta=3))
    check_array(p.equilibria.rho, np.float64, (len(p.equilibria.kind),))
    check_array(p.equilibria.stable, np.bool_, (len(p.equilibria.kind),))
    assert p.equilibria.kind.count("attractor") == int(p.equilibria.stable.sum()) == 2 and not p.monotone
    st = rhoflow.stationary(rhoflow.Model(), 0.04, samples=200, nodes=8, bootstrap=10)
    assert isinstance(st.mean, float) and st.mean_err > 0
    ch = rhoflow.check("monotone", theta=(0.5, 2), grid=3)
    assert ch.verdict in ("holds", "fails", "undecided") and ch.model is None
    assert len(pd.DataFrame(ch.table)) == ch.counts.total


@pytest.mark.parametrize("make", [
    lambda: rhoflow.field(rhoflow.Model(), [0.1, 0.5]),
    lambda: rhoflow.ode(rhoflow.Model(), 0.05, 5, points=5),
    lambda: rhoflow.phase(rhoflow.Model()),
    lambda: rhoflow.sga(steps=300, trials=3),
    lambda: rhoflow.stationary(rhoflow.Model(), 0.04, samples=200, nodes=8, bootstrap=10),
    lambda: rhoflow.check("monotone", theta=(0.5, 2), grid=3),
], ids=["field", "ode", "phase", "sga", "stationary", "check"])
def test_to_json_from_json_round_trip(make):
    r = make()
    back = type(r).from_json(r.to_json())
    assert type(back) is type(r) and back.to_json() == r.to_json()
    assert rhoflow.from_json(r.to_json(indent=-1)).to_json() == r.to_json()
    for key, value in r.data.items():
        if isinstance(value, np.ndarray):
            assert back.data[key].tobytes() == value.tobytes(), key
    unpickled = pickle.loads(pickle.dumps(r))
    assert type(unpickled) is type(r) and unpickled.to_json() == r.to_json()
    other = rhoflow.OdeResult if not isinstance(r, rhoflow.OdeResult) else rhoflow.SgaResult
    with pytest.raises(ValueError):
        other.from_json(r.to_json())


def test_model_of_a_result_is_the_model_given():
    m = rhoflow.Model(d=20, L=300, R=40, theta=1.5, sigma=2.0, sigma_per_norm=True)
    assert rhoflow.phase(m).model == m


ODE_MODEL = rhoflow.Model(d=10, L=100, R=20)  # the dense solution, o.sol(t): solve_ivp's ``sol``


def test_sol_between_the_samples_is_what_a_run_asking_for_those_times_gives():
    # The solver's steps depend on the start and t_end only, so a run asked for other times
    # takes the same steps: its samples are the dense solution's values there.
    o = rhoflow.ode(ODE_MODEL, 0.2, t_end=5, t=[0, 1, 5])
    between = np.array([0.013, 0.5, 1.7, 2.25, 4.999])
    p = rhoflow.ode(ODE_MODEL, 0.2, t_end=5, t=list(between) + [5])
    rho, err = o.sol(between)
    assert rho.shape == err.shape == (5,)
    assert np.max(np.abs(rho - p.rho[:-1])) <= 2e-15
    assert np.all(err > 0) and np.all(err < 1e-6)        # an estimate, at the default tolerances
    at_samples, _ = o.sol(o.t)
    assert np.max(np.abs(at_samples - o.rho)) <= 2e-15


def test_sol_shapes_follow_t_and_the_starts():
    o = rhoflow.ode(ODE_MODEL, 0.2, t_end=5, t=[0, 5])
    r, e = o.sol(2.5)
    assert isinstance(r, float) and isinstance(e, float)
    r2, e2 = o.sol([[1.0, 2.0], [2.5, 3.0]])
    assert r2.shape == e2.shape == (2, 2) and r2[1, 0] == r
    starts = [0.1, 0.3, -0.5]
    several = rhoflow.ode(ODE_MODEL, starts, t_end=5, t=[0, 2, 5])
    assert several.rho.shape == (3, 3)                       # one row per start, like solve_ivp's y
    rows, errs = several.sol([0.5, 4.0])
    assert rows.shape == errs.shape == (3, 2)
    for i, r0 in enumerate(starts):                          # each row is that start's own dense solution
        assert np.array_equal(rows[i], rhoflow.ode(ODE_MODEL, r0, t_end=5, t=[0, 2, 5]).sol([0.5, 4.0])[0])
    assert several.sol(1.0)[0].shape == (3,)


def test_sol_refuses_times_outside_the_solution_and_a_result_read_back():
    o = rhoflow.ode(ODE_MODEL, 0.2, t_end=5, t=[0, 5])
    with pytest.raises(rhoflow.InvalidArgument, match="t_end = 5"):
        o.sol(5.5)
    with pytest.raises(ValueError):
        o.sol(-0.1)
    back = rhoflow.OdeResult.from_json(o.to_json())
    assert np.array_equal(back.rho, o.rho)
    with pytest.raises(ValueError, match="does not keep the dense solution"):
        back.sol(1.0)
