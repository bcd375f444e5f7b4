"""Settings cross from Python as typed values (issue 31; python/src/setting_value.hpp), not as
text parsed twice: integers arrive exactly (past 2^53 and 2^63), reals bit for bit, names whole,
and the defaults the functions show are typed values, the library's own. The library's
_rhoflow.params(command, settings) is the job a call would run, validated, as its JSON params."""
import inspect
import struct

import numpy as np
import pytest

import rhoflow
from rhoflow import _rhoflow

REQUIRED = {"check": [("claim", "monotone")], "prove": [("claim", "monotone")]}


def params(command, *settings):
    return _rhoflow.params(command, REQUIRED.get(command, []) + list(settings))


def bits(x):
    return struct.pack("<d", x)


def same(a, b):
    """Equal documents: the same keys, values and array dtypes."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def at(doc, field):
    for part in field.split("."):
        doc = doc[part]
    return doc


def test_integers_arrive_exactly_past_2_to_the_53_and_range_refusals_name_the_exact_number():
    assert params("sga", ("first-trial", 2**53 + 1)).sga.first_trial == 2**53 + 1
    assert params("sga", ("seed", 2**64 - 1)).sga.seed == 2**64 - 1
    assert params("sga", ("seed", np.uint64(2**63 + 5))).sga.seed == 2**63 + 5
    with pytest.raises(rhoflow.InvalidArgument, match=r"^sga\.threads = 9007199254740993 is out of range") as e:
        rhoflow.sga(threads=2**53 + 1)
    assert e.value.parameter == "threads"
    with pytest.raises(rhoflow.InvalidArgument, match=r"^L = '9223372036854775808' is out of range"):
        rhoflow.Model(L=2**63)
    with pytest.raises(rhoflow.InvalidArgument, match=r"^L = '1180591620717411303424' is out of range"):
        rhoflow.Model(L=2**70)   # beyond 64 bits: its digits, as the command line's --L gets them
    with pytest.raises(rhoflow.InvalidArgument, match=r"^seed = '18446744073709551616' is not a seed"):
        rhoflow.sga(seed=2**64)
    # An integer setting takes an exact float (1e6, as --L 1e6) and refuses another with the CLI's words.
    assert rhoflow.Model(L=1e6).L == 1000000 and isinstance(rhoflow.Model(L=1e6).L, int)
    with pytest.raises(rhoflow.InvalidArgument, match=r"^steps = '1e\+17' is out of range"):
        rhoflow.sga(steps=1e17)


@pytest.mark.parametrize("x", [0.1, np.nextafter(0.1, 1), 5e-324, -0.0, 1 / 3, np.float32(0.1), np.float32(1 / 3),
                               np.float16(0.1), np.longdouble(1) / 3])
def test_reals_arrive_bit_for_bit(x):
    assert bits(params("ode", ("t-end", 1), ("rho0", [x])).rho0[0]) == bits(float(x))
    assert bits(params("sga", ("eta0", 2 * x + 1)).sga.schedule.eta0) == bits(float(2 * x + 1))
    got = params("field", ("rho", np.array([x, 0.5], dtype=np.asarray(x).dtype))).rho
    assert bits(got[0]) == bits(float(x))


def test_a_float32_array_and_an_int_list_are_taken_as_their_values():
    a = np.array([0.1, 0.7], dtype=np.float32)
    assert [bits(v) for v in params("ode", ("rho0", a)).rho0] == [bits(float(v)) for v in a]
    assert list(params("sga", ("record", [5, 17])).sga.record_steps) == [5, 17]
    assert list(params("sga", ("record", np.arange(3, 6))).sga.record_steps) == [3, 4, 5]
    assert list(params("ode", ("rho0", np.array(0.25))).rho0) == [0.25]   # a 0-d array: its element
    assert list(params("ode", ("rho0", np.linspace(0, 0.5, 6)[::2])).rho0) == [0, 0.2, 0.4]  # strided


def test_names_arrive_whole_and_a_range_as_a_pair():
    # A comma inside a name is no separator (the text path made 't,sga' two columns).
    with pytest.raises(rhoflow.InvalidArgument, match=r"table_columns = 't,sga' is not a column"):
        params("compare", ("table-columns", ["t,sga"]))
    assert list(params("compare", ("table-columns", ("z", "t"))).table_columns) == ["z", "t"]
    assert list(params("compare", ("table-columns", "z,t")).table_columns) == ["z", "t"]  # a str is the flag's text
    box = params("check", ("theta", (0.5, 2)), ("d", np.array([10, 20]))).check.box
    assert (box.theta.lo, box.theta.hi, box.d.lo, box.d.hi) == (0.5, 2, 10, 20)
    assert params("check", ("theta", "0.5:2")).check.box.theta == box.theta
    with pytest.raises(rhoflow.InvalidArgument, match=r"theta = '1,2,3' is not a number or a range"):
        params("check", ("theta", [1, 2, 3]))


def test_defaults_are_typed_values_equal_to_the_default_jobs_params():
    compared = 0
    for command in _rhoflow.commands():
        default_job = params(command)
        for s in _rhoflow.settings(command):
            value = s["default"]
            kind = s["type"]
            if kind == "":
                assert value is False or value is True, (command, s["key"])
                continue
            if kind in ("INT", "SEED"):
                assert type(value) is int, (command, s["key"], value)
            if kind == "NUMBER":
                assert type(value) is float, (command, s["key"], value)
            if kind == "LIST":
                assert type(value) is list and all(type(v) is float for v in value), (command, s["key"], value)
            if kind in ("TEXT", "FILE"):
                assert type(value) is str
            if kind == "INT|LO:HI":
                assert type(value) is int
            if s["required"]:
                continue
            try:
                expected = at(default_job, s["field"])
            except KeyError:
                continue
            if isinstance(expected, dict) and "lo" in expected:  # a box's point
                expected = expected["lo"]
            if isinstance(expected, np.ndarray):
                expected = expected.tolist()
            if kind == "NAMES" and not expected:
                expected = []
            assert value == expected, (command, s["key"], value, expected)
            assert type(value) is type(expected) or kind.endswith("LO:HI"), (command, s["key"], value, expected)
            compared += 1
    assert compared >= 150
    # The signatures show them: floats where the library has reals, None for a uniform start.
    assert inspect.signature(rhoflow.field).parameters["rho"].default == [0.0]
    assert type(inspect.signature(rhoflow.field).parameters["rho"].default[0]) is float
    assert type(inspect.signature(rhoflow.check).parameters["theta"].default) is float
    assert inspect.signature(rhoflow.prove).parameters["d"].default == 50
    assert inspect.signature(rhoflow.sga).parameters["rho0"].default is None


def test_every_default_given_back_explicitly_gives_the_default_job():
    for command in _rhoflow.commands():
        # all but the required ones, a certificate to re-check and those that need another given
        given = [(s["key"], s["default"]) for s in _rhoflow.settings(command)
                 if not s["required"] and s["key"] != "verify" and not s["needs"]]
        assert len(given) >= 10
        assert same(params(command, *given), params(command)), command


def test_a_bool_is_not_a_number_and_wrong_types_name_the_keyword():
    with pytest.raises(TypeError, match=r"^steps must be a number, not bool$"):
        rhoflow.sga(steps=True)
    with pytest.raises(TypeError, match=r"^eta0 must be a number, not bool_?$"):
        rhoflow.sga(eta0=np.bool_(True))
    with pytest.raises(TypeError, match=r"^record\[1\] must be a number, not bool$"):
        rhoflow.sga(record=[5, True])
    with pytest.raises(TypeError, match=r"^no_error_estimate must be True or False, not int$"):
        rhoflow.ode(no_error_estimate=1)
    with pytest.raises(TypeError, match=r"^sampler must be a string, not float$"):
        rhoflow.sga(sampler=1.0)
    with pytest.raises(TypeError, match=r"^table_columns must be a string or a sequence of strings, not list$"):
        rhoflow.compare(table_columns=[1, 2])
    with pytest.raises(TypeError, match=r"^eta0 must be a number, not list$"):
        rhoflow.sga(eta0=[0.5])
    assert params("ode", ("no-error-estimate", np.bool_(True))).ode.error_estimate is False
