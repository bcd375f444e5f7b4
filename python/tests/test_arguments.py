"""Arguments are checked as the command line checks them (issue 30, H5, H12): a job whose
estimated memory exceeds the machine's (or max_memory) is refused before it runs, with the command
line's message; an array argument must be a flat sequence of numbers, never a mapping's keys or a
flattened matrix."""
import numpy as np
import pytest

import rhoflow

M = rhoflow.Model(d=10, L=100, R=20)


# ------------------------------------------------------------------------------ H5: memory

def test_a_job_the_machine_cannot_hold_is_refused_up_front_naming_the_keyword(cli):
    with pytest.raises(rhoflow.InvalidArgument) as e:
        rhoflow.sga(M, steps=10, trials=10**7)
    assert e.value.parameter == "trials" and e.value.field == "sga.trials"
    message = str(e.value)
    assert message.startswith("the job needs about 56.1 GiB of memory, mostly the JSON document's per-trial records")
    assert message.endswith("(accepted: a job whose estimate fits; max_memory=SIZE sets the limit)")
    # The command line refuses the same job with the same estimate (its own way to set the limit).
    code, _, err = cli("sga", "--d", 10, "--L", 100, "--R", 20, "--steps", 10, "--trials", 10**7, "--json")
    assert code == 2 and message.split(", more than")[0] in err


def test_max_memory_sets_the_limit_for_every_job():
    with pytest.raises(rhoflow.InvalidArgument, match=r"more than the 1 MiB of max_memory") as e:
        rhoflow.sga(M, steps=10, trials=100, max_memory="1M")
    assert e.value.parameter == "trials"
    with pytest.raises(rhoflow.InvalidArgument, match="more than the 1 MiB of max_memory") as e:
        rhoflow.ode(M, 0.1, 5.0, points=100000, max_memory=2**20)
    assert e.value.parameter == "points"
    with pytest.raises(rhoflow.InvalidArgument, match="max_memory = '1X' is not a size") as e:
        rhoflow.field(M, 0.5, max_memory="1X")
    assert e.value.parameter == "max_memory"
    with pytest.raises(TypeError, match="max_memory must be a number"):
        rhoflow.field(M, 0.5, max_memory=True)
    assert rhoflow.sga(M, steps=10, trials=2, max_memory="1G").rho.shape == (2, len(rhoflow.sga(M, steps=10, trials=2).record_steps))


def test_an_experiment_is_refused_before_any_cell_runs(tmp_path):
    exp = tmp_path / "e.toml"
    exp.write_text('[[task]]\nname = "s"\ncommand = "sga"\nsteps = 10\ntrials = 10000000\n')
    with pytest.raises(rhoflow.InvalidArgument, match=r"e\.toml: task 's', cell s/run: key 'trials': the job needs about"):
        rhoflow.run(exp, out=tmp_path / "o")
    assert not (tmp_path / "o").exists() and not (tmp_path / ".o.partial").exists()


# ------------------------------------------------------------------------------ H12: arrays

def test_a_mapping_or_a_set_is_no_sequence_of_values():
    with pytest.raises(TypeError, match="rho must be a number or a sequence of numbers .* not dict"):
        rhoflow.field(M, {0.5: 1})
    with pytest.raises(TypeError, match="rho must be .* not set"):
        rhoflow.field(M, {0.5, 0.1})
    with pytest.raises(TypeError, match="study_eta0 must be .* not dict"):
        rhoflow.compare(M, study_eta0={0.01: 1})


def test_a_matrix_is_not_flattened():
    with pytest.raises(ValueError, match=r"rho must be one-dimensional, not an array of shape \(2, 2\)"):
        rhoflow.field(M, np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"rho0 must be one-dimensional, not an array of shape \(1, 2\)"):
        rhoflow.ode(M, np.array([[0.1, 0.2]]), 1.0)
    with pytest.raises(TypeError, match=r"rho\[0\] must be a number, not list"):
        rhoflow.field(M, [[0.1, 0.2]])


def test_flat_sequences_and_arrays_are_taken_in_order():
    a = rhoflow.field(M, np.array([0.5, 0.1]))
    b = rhoflow.field(M, (0.5, 0.1))
    assert list(a.rho) == [0.5, 0.1] and a.to_json() != "" and list(b.rho) == [0.5, 0.1]
    assert rhoflow.field(M, np.float64(0.25)).rho == 0.25  # one number in, numbers out
    assert list(rhoflow.field(M, np.array(0.25)).rho) == [0.25]  # an array, even 0-d, gives arrays
    assert list(rhoflow.field(M, range(0, 1)).rho) == [0.0]


def test_a_misspelt_keyword_names_the_function_and_the_nearest_parameter():
    with pytest.raises(TypeError, match=r"^compare\(\) got an unexpected keyword argument 'eta'; did you mean 'eta0'\?$"):
        rhoflow.compare(eta=0.1)
    with pytest.raises(TypeError, match=r"^sga\(\) got an unexpected keyword argument 'qqq' \(its parameters: model, "):
        rhoflow.sga(qqq=1)
    # A model setting passed to the job says where it goes.
    with pytest.raises(TypeError, match=r"sga\(\) has no parameter 'd': the model's d goes in a Model"):
        rhoflow.sga(d=-3)


def test_one_line_json_with_indent_none_as_json_dumps():
    o = rhoflow.ode(rhoflow.Model(d=10, L=100, R=20), 0.2, t_end=1, t=[0, 1])
    assert o.to_json(indent=None) == o.to_json(-1) and "\n" not in o.to_json(indent=None)


def test_several_starts_give_rho_of_shape_starts_by_times_and_one_number_gives_numbers():
    m = rhoflow.Model(d=10, L=100, R=20)
    starts, times = [0.1, 0.3, -0.5], [0, 0.5, 2]
    o = rhoflow.ode(m, starts, t_end=2, t=times)
    assert o.rho.shape == (3, 3) and o.rho_err.shape == (3, 3) and not o.rho.flags.writeable
    for i, r0 in enumerate(starts):  # each row is that start's own solution
        assert np.array_equal(o.rho[i], rhoflow.ode(m, r0, t_end=2, t=times).rho)
    assert rhoflow.ode(m, 0.1, t_end=2, t=times).rho.shape == (3,)
    f = rhoflow.field(m, 0.3)
    assert isinstance(f.j, float) and isinstance(f.dj_err, float)
    assert f.j == rhoflow.field(m, [0.3]).j[0]
    assert rhoflow.field(m, [0.3]).j.shape == (1,)
