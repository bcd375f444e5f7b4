"""rhoflow from Python: the exact field, the mean-field ODE, SGA ensembles and their comparison,
with every number's error, as NumPy arrays (docs/python.md).

    import rhoflow
    m = rhoflow.Model(d=50, L=1000, R=100, theta=1.0)
    f = rhoflow.field(m, numpy.linspace(-1, 1, 201))      # f.drift, f.drift_err, ...
    s = rhoflow.sga(m, steps=20000, trials=30, seed=1)    # s.rho: trials x records
    c = rhoflow.compare(m)                                 # c.table, c.verdict.consistent

Every function is a job of the command line (`rhoflow SUB`), its keyword arguments the
subcommand's flags with '-' written '_' (the settings table of experiment/settings.hpp: the
same names, defaults and ranges; values cross as typed values, not text, and the library
checks them as it checks a flag's), validated by the library: a bad value raises
rhoflow.InvalidArgument, a ValueError with the library's message. The same seed gives the same
numbers, bit for bit, as `rhoflow SUB --json`. Long runs release the GIL, stop on Ctrl-C
(KeyboardInterrupt, nothing written) and report to an optional progress callback.
"""
from __future__ import annotations

import csv as _csv
import difflib as _difflib
import inspect as _inspect
import json as _json
import numbers as _numbers
import re as _re
import os as _os
import textwrap as _textwrap

try:
    import numpy as _np
except ImportError as _e:  # e.g. a pyenv or conda python3 earlier on PATH than Debian's
    import sys as _sys
    from ._build import PYTHON as _PYTHON
    raise ImportError(f"rhoflow needs NumPy, which {_sys.executable} lacks; the module was built for {_PYTHON} "
                      f"(Debian: apt-get install python3-numpy; another interpreter: cmake -DPython_EXECUTABLE=..., "
                      f"docs/python.md)") from _e

from . import _rhoflow
from ._rhoflow import InvalidArgument, NumericalError

try:
    from . import _docs
except ImportError:  # pragma: no cover - the build generates it
    _docs = None

__version__ = _rhoflow.version
__all__ = [
    "Model", "field", "ode", "phase", "sga", "compare", "compare_ensemble", "stationary", "check", "prove", "run",
    "atlas", "load",
    "from_json",
    "Record", "Table", "Result", "FieldResult", "OdeResult", "PhaseResult", "SgaResult", "CompareResult",
    "StationaryResult", "CheckResult", "ProveResult", "RunResult", "Cell", "InvalidArgument", "NumericalError",
]


# ------------------------------------------------------------------------------ containers

class Record(dict):
    """A dict whose keys are also attributes: ``r.summary.abs_rho_final.mean`` (a key named like a
    dict method, ``values`` or ``items``, is reached as ``r["values"]``)."""

    __slots__ = ()

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __dir__(self):
        return sorted(set(super().__dir__()) | {k for k in self if isinstance(k, str) and k.isidentifier()})


class Table(Record):
    """A table: a Record of columns (NumPy arrays; columns holding texts are lists), so that
    ``pandas.DataFrame(table)`` works. ``caption`` says what it shows, ``meta`` its provenance
    lines (version, model, seed, ...), as in the CSV file rhoflow writes."""

    __slots__ = ("caption", "meta")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.caption = ""
        self.meta = []

    @classmethod
    def _captioned(cls, caption, columns):
        """The table of `columns` with its caption."""
        t = cls(columns)
        t.caption = caption
        return t

    def __repr__(self):
        rows = len(next(iter(self.values()))) if self else 0
        return f"<Table {self.caption!r}: {rows} rows, columns {', '.join(self)}>"


_rhoflow.set_types(Record, Table)


# ------------------------------------------------------------------------------ values

# Settings cross to the library as Python values, typed there (python/src/setting_value.hpp: a
# wrong Python type is a TypeError naming the keyword, a str is parsed as the flag's text); their
# defaults come back typed (bool, int, float, str, list, None).

def _default_of(setting):
    """The Python default of a setting (None for one required unless another is given)."""
    if setting["required"] and setting["unless"]:
        return None
    return setting["default"]


_PY_TYPES = {"": "bool", "INT": "int", "SEED": "int", "NUMBER": "float", "TEXT": "str", "FILE": "str | os.PathLike",
             "INT|LO:HI": "int | tuple[int, int]", "X|LO:HI": "float | tuple[float, float]",
             "NUMBER|uniform": "float | None", "LIST": "list[float]", "NAMES": "list[str]", "VALUE|LO:HI": "float | tuple[float, float]"}


def _annotation(setting):
    return "list[int]" if setting["key"] == "record" else _PY_TYPES[setting["type"]]


_MAX_MEMORY_DOC = ("max_memory : int (bytes) or str ('512M', '8G'), optional",
                   "    refuse (InvalidArgument, before it runs) a job whose estimated memory exceeds it; default: this "
                   "machine's physical memory or its cgroup's limit (as the command line's --max-memory)")


def _memory_text(value):
    """The text of a max_memory argument ("" for the machine's limit; not a setting: the
    command line's --max-memory SIZE)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, _numbers.Real):
        raise TypeError(f"max_memory must be a number of bytes or a size such as '8G', not {type(value).__name__}")
    return str(int(value)) if isinstance(value, _numbers.Integral) else float.__repr__(float(value))


def _progress_function(progress):
    """A callable(done, total) from a callable or a tqdm-like bar (total, update(n))."""
    if progress is None or callable(progress):
        return progress
    if hasattr(progress, "update"):
        seen = [0]

        def report(done, total, bar=progress):
            if getattr(bar, "total", None) != total:
                bar.total = total
            bar.update(done - seen[0])
            seen[0] = done
        return report
    raise TypeError("progress must be a callable(done, total) or a progress bar with update(), e.g. tqdm()")


# ------------------------------------------------------------------------------ documentation

# The library's job table (experiment/job_table.hpp), one row per job: the functions below are
# made from it, so a job added there is a function here.
_JOBS = {j["name"]: j for j in _rhoflow.jobs()}


def _bare(type_):
    t = type_.replace("std::optional<", "").replace(">", "").strip()
    return t.split("::")[-1]


def _member_doc(command, field):
    """The `///<` comment of the params field at path `field` of a job, from the headers."""
    if _docs is None:
        return ""
    struct, doc = _JOBS[command]["params_type"], ""
    for part in field.split("."):
        entry = _docs.MEMBERS.get(struct, {}).get(part)
        if entry is None:
            return ""
        struct, doc = _bare(entry[0]), entry[1]
    return doc


def _struct_doc(*structs):
    """Attribute lines of result structs (their members' `///<` comments)."""
    if _docs is None:
        return ""
    lines = []
    for s in structs:
        for name, (type_, doc) in _docs.MEMBERS.get(s, {}).items():
            lines.append(f"    {name}: {doc}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ the model

_MODEL_KEYS = ("d", "L", "R", "theta", "sigma", "beta", "sigma-per-norm")


class Model:
    """The data model (docs/theory.md section 1): L tokens in R^d, R of which carry the hidden
    direction xi with strength theta, N(0, sigma^2 I_d) noise, softmax attention at inverse
    temperature beta. Validated by the library on construction (rhoflow.InvalidArgument).

    d: ambient dimension, integer >= 2
    L: number of tokens, integer >= 1
    R: informative tokens, integer 0 <= R <= L
    theta: signal strength, 0 <= theta <= 1e100
    sigma: noise standard deviation per coordinate (per norm with sigma_per_norm), > 0
    beta: inverse temperature of the softmax, > 0
    sigma_per_norm: read sigma as the noise norm: per-coordinate deviation sigma/sqrt(d)
    """

    __slots__ = ("d", "L", "R", "theta", "sigma", "beta", "sigma_per_norm", "sigma_per_coordinate")

    def __init__(self, d=50, L=1000, R=100, theta=1.0, sigma=1.0, beta=1.0, sigma_per_norm=False):
        settings = [("d", d), ("L", L), ("R", R), ("theta", theta), ("sigma", sigma), ("beta", beta)]
        if sigma_per_norm:
            settings.append(("sigma-per-norm", sigma_per_norm))
        j = _rhoflow.check_model(settings)
        for k in ("d", "L", "R", "theta", "beta"):
            object.__setattr__(self, k, j[k])
        object.__setattr__(self, "sigma", j["sigma_input"])
        object.__setattr__(self, "sigma_per_norm", j["noise_convention"] == "per_norm")
        object.__setattr__(self, "sigma_per_coordinate", j["sigma"])

    def __setattr__(self, name, value):
        raise AttributeError("Model is immutable: make a new one, e.g. Model(**{**m.asdict(), 'theta': 2.0})")

    def asdict(self):
        """The constructor's arguments."""
        return {k: getattr(self, k) for k in ("d", "L", "R", "theta", "sigma", "beta", "sigma_per_norm")}

    def _settings(self):
        s = [(k, getattr(self, k)) for k in ("d", "L", "R", "theta", "sigma", "beta")]
        if self.sigma_per_norm:
            s.append(("sigma-per-norm", True))
        return s

    @classmethod
    def from_json(cls, j):
        """The model of a document's "model" object (a dict)."""
        return cls(d=j["d"], L=j["L"], R=j["R"], theta=j["theta"], sigma=j.get("sigma_input", j["sigma"]),
                   beta=j["beta"], sigma_per_norm=j.get("noise_convention") == "per_norm")

    def __eq__(self, other):
        return isinstance(other, Model) and self.asdict() == other.asdict()

    def __hash__(self):
        return hash(tuple(self.asdict().values()))

    def __repr__(self):
        a = self.asdict()
        s = ", ".join(f"{k}={a[k]!r}" for k in ("d", "L", "R", "theta", "sigma", "beta"))
        return f"Model({s}{', sigma_per_norm=True' if a['sigma_per_norm'] else ''})"

    def __reduce__(self):
        return (Model, (self.d, self.L, self.R, self.theta, self.sigma, self.beta, self.sigma_per_norm))


# ------------------------------------------------------------------------------ results

class Result:
    """A finished job: its data as the JSON document has it (``data``, a Record; every key is also
    an attribute), typed views of the main arrays, ``to_json()`` (the document ``rhoflow SUB
    --json`` prints) and ``save(dir)`` (the files the command line writes)."""

    _struct_docs = ()

    def __init__(self, triple):
        self._result, self._data, self._tables = triple

    @property
    def command(self):
        """The subcommand: field, ode, phase, sga, compare, stationary or check."""
        return self._result.command

    @property
    def data(self):
        """Every key of the result's JSON document, converted (objects: Records, numeric arrays:
        NumPy arrays, arrays of records: tables)."""
        return self._data

    @property
    def params(self):
        """The whole job as run (every parameter, the seed), as in the document's "params"."""
        return self._data["params"]

    @property
    def model(self):
        """The model (None for a check, which ranges over a box of models)."""
        return Model.from_json(self._data["model"]) if "model" in self._data else None

    def to_json(self, indent=2):
        """The JSON document, as ``rhoflow SUB --json`` prints it (indent=None or -1: one line, as
        json.dumps)."""
        return self._result.document(-1 if indent is None else indent)

    @classmethod
    def from_json(cls, text):
        """A result from its JSON document (what to_json gives, or a file rhoflow wrote)."""
        r = _wrap(_rhoflow.from_document(text, "the document"))
        if cls is not Result and not isinstance(r, cls):
            raise ValueError(f"the document holds a {r.command} result, not a {cls.__name__}")
        return r

    def save(self, dir, figures=True):
        """Writes what the command line writes into the folder `dir`, complete or absent: a
        comparison's or a check's tables, figures (gnuplot, when `figures`) and JSON, or the
        result.json of any other job. ``rhoflow.load(dir)`` reads it back. Returns the lines the
        command line prints about the files."""
        return self._result.save(_os.fspath(dir), figures)

    def __reduce__(self):  # pickle (multiprocessing, joblib) through the JSON document
        return (from_json, (self.to_json(-1),))

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._data[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no attribute {name!r}") from None

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._data))

    def __repr__(self):
        bits = []
        m = self._data.get("model") if isinstance(self._data.get("model"), dict) else None
        if m:
            bits.append(f"d={m['d']}, L={m['L']}, R={m['R']}, theta={m['theta']:g}")
        params = self._data.get("params")
        sga_params = params.get("sga", params) if isinstance(params, dict) else None
        if isinstance(sga_params, dict) and "trials" in sga_params and "steps" in sga_params:
            bits.append(f"{sga_params['trials']} trials of {sga_params['steps']} steps")
        summary = self._data.get("summary")
        if isinstance(summary, dict) and isinstance(summary.get("abs_rho_final"), dict):
            a = summary["abs_rho_final"]
            bits.append(f"mean |rho_final| {a['mean']:.4g} (95% CI [{a['lo']:.4g}, {a['hi']:.4g}])")
        if isinstance(self._data.get("verdict"), str):
            bits.append(f"verdict {self._data['verdict']}")
        if self.command == "field" and "points" in self._data:  # a field: how many rho, and which method
            bits.append(f"{len(self._data['points']['rho'])} rho ({self._data.get('method', '?')})")
        t = self._data.get("t")
        if self.command == "ode" and t is not None and len(t):  # an ODE: its span and hitting time
            hit = self._data.get("hit_time")
            bits.append(f"t to {float(t[-1]):.4g}" + (f", hit at {hit:.4g}" if isinstance(hit, float) else ", no hit"))
        return f"<{type(self).__name__} ({self.command}){': ' + '; '.join(bits) if bits else ''}>"


_FIELD_COLUMNS = ("rho", "j", "dj", "drift", "mass_informative", "j_err", "dj_err", "drift_err", "mass_err")


class FieldResult(Result):
    """The field at each rho: arrays rho, j, dj, drift, mass_informative and their errors
    j_err, dj_err, drift_err, mass_err (floats when field() was given one number for rho);
    ``table`` has them all as columns."""

    _struct_docs = ("FieldPoint",)
    _scalar = False  # set by field() when rho was one number

    def _column(name):
        doc = _docs.MEMBERS.get("FieldPoint", {}).get(name, ("", None))[1] if _docs else None

        def get(self):
            if "points" not in self._data:  # reported by __getattr__, where Python sends this
                raise AttributeError(name)
            a = self._data["points"][name]
            return float(a[0]) if self._scalar and len(a) == 1 else a
        return property(get, doc=doc)

    rho = _column("rho")
    j = _column("j")
    dj = _column("dj")
    drift = _column("drift")
    mass_informative = _column("mass_informative")
    j_err = _column("j_err")
    dj_err = _column("dj_err")
    drift_err = _column("drift_err")
    mass_err = _column("mass_err")
    del _column

    def __getattr__(self, name):
        if name in _FIELD_COLUMNS and "points" not in self._data:
            raise AttributeError(f"a rigorous field has no {name}: its `enclosures` hold [lo, hi] per rho")
        return super().__getattr__(name)

    @property
    def table(self):
        """Every column of the field, one row per rho."""
        return Table._captioned(f"the field by the {self._data['method']} method", self._data["points"])


class OdeResult(Result):
    """The mean-field ODE's solution: t, rho, rho_err (read-only views of the library's arrays),
    hit_time (None if |rho| never reaches 1 - hit), hit_time_err and sol(t), the dense solution."""

    _struct_docs = ("OdeSolution",)

    t = property(lambda self: self._data["t"], doc="requested times")

    def _by_start(self, key):
        # Several starts: one row per start, like solve_ivp's y (the first start's own arrays
        # and those of the others, which the document keeps apart).
        others = self._data.get("others")
        if not others or len(others.get(key, ())) == 0:
            return self._data[key]
        a = _np.vstack([self._data[key][_np.newaxis, ...], others[key]])
        a.flags.writeable = False
        return a

    rho = property(lambda self: self._by_start("rho"),
                   doc="rho(t): shape (times,) for one start, (starts, times) for several")
    rho_err = property(lambda self: self._by_start("rho_err"), doc="error estimate of rho(t), shaped as rho")

    def sol(self, t):
        """The dense solution, like solve_ivp's ``sol``: ``(rho, err)`` at any t in [0, t_end], rho(t)
        from the Dormand-Prince interpolant of the step holding t and err its error estimate (0 with
        error_estimate off; the method: lib/rhoflow/ode/ode.hpp). Floats for a number t and one start;
        otherwise arrays shaped as t, with a leading axis of starts for several (as ``rho``). Not kept
        in the JSON document: a result read back has none (ValueError)."""
        ts = _np.asarray(t, dtype=float)
        rho, err = self._result.ode_sol(ts.ravel())
        shape = ts.shape if rho.shape[0] == 1 else (rho.shape[0],) + ts.shape
        rho, err = rho.reshape(shape), err.reshape(shape)
        return (float(rho), float(err)) if rho.ndim == 0 else (rho, err)

    @property
    def table(self):
        """t, rho, rho_err as columns (the first start's)."""
        return Table._captioned("the mean-field ODE", dict(t=self.t, rho=self._data["rho"], rho_err=self._data["rho_err"]))


class PhaseResult(Result):
    """The phase portrait: ``equilibria`` (a table: rho, rho_err, kind, stable, dfdrho, ...),
    ``basins`` (a table), ``monotone``."""

    _struct_docs = ("PhasePortrait",)

    @property
    def table(self):
        """The equilibria."""
        return Table._captioned("equilibria of the ODE", self._data["equilibria"])


class SgaResult(Result):
    """An SGA ensemble: ``steps`` (the record steps), ``t`` (their ODE times), ``rho`` and
    ``nuisance_mass`` (trials x records arrays), ``rho_final``, ``rho0``, ``hit_step`` (per trial,
    -1 for a trial that never hit), ``summary`` (means with 95% CIs, quantiles, hits),
    ``outcomes`` (the trials per ODE basin of their final rho: ``outcomes.basins.count``,
    ``fraction`` with its Wilson interval ``fraction_lo``, ``fraction_hi``, ``uniform_probability``
    for a uniform start, ``contains_rho0`` for a fixed one; docs/cli.md) and ``trials`` (every
    per-trial number as a table)."""

    _struct_docs = ("EnsembleResult", "TrialResult")

    steps = property(lambda self: self._data["record_steps"], doc="the steps at which rho was recorded")
    t = property(lambda self: self._data["record_times"], doc="their ODE times t_k = sum of eta_j, j < k")
    rho = property(lambda self: self._data["rho"], doc="rho at the record steps: trials x records")
    nuisance_mass = property(lambda self: self._data["nuisance_mass"],
                             doc="sample attention mass on nuisance tokens at the record steps: trials x records")
    rho_final = property(lambda self: self._data["trials"]["rho_final"], doc="rho after the last step, per trial")
    rho0 = property(lambda self: self._data["trials"]["rho0"], doc="initial alignment, per trial")
    hit_step = property(lambda self: self._data["trials"]["hit_step"],
                        doc="first step with |rho| >= 1 - hit, per trial (-1: never)")

    @property
    def table(self):
        """The per-trial numbers, one row per trial."""
        return Table._captioned("SGA trials", self._data["trials"])


class CompareResult(Result):
    """A comparison of the SGA ensemble with the ODE: ``table`` (the ODE-vs-SGA table of
    table.csv), ``gap_table``, ``study_table``, ``verdict`` (consistent, max_abs_z, ...; None when
    the effective dynamics were off) and every other key of compare.json."""

    _struct_docs = ("CompareResult",)

    table = property(lambda self: self._tables["table"], doc="the ODE-vs-SGA table (table.csv)")
    gap_table = property(lambda self: self._tables["gap"], doc="D_T across the run (gap.csv)")
    study_table = property(lambda self: self._tables["study"], doc="the step-size study (study.csv)")

    @property
    def consistent(self):
        """The verdict: is the ensemble consistent with the theory (None without a verdict)."""
        v = self._data.get("verdict")
        return None if v is None else v["consistent"]

    @property
    def ode(self):
        """The SGA mean against the mean-field ODE, which the verdict does not test: ``rows``,
        ``outside`` (rows where the ODE lies outside the SGA mean's 95% CI), ``first_outside_t``,
        ``max_abs_z`` and ``explanation``; per row, ``table["ode_z"]``."""
        return self._data["ode"]

    def __repr__(self):
        v = self._data.get("verdict")
        o = self._data["ode"]
        m = self._data["params"]["model"]
        verdict = "no verdict" if v is None else ("consistent" if v["consistent"] else "inconsistent")
        return (f"<CompareResult: {verdict}; the ODE outside the SGA's 95% CI at {o['outside']} of {o['rows']} rows; "
                f"{self._data['params']['sga']['trials']} trials; d={m['d']}, L={m['L']}, R={m['R']}>")


class StationaryResult(Result):
    """The stationary law of the constant-step chain: ``attractors`` (each effective attractor's law
    from the resampled chain beside the diffusion approximation's), and mean, mean_err, sd, sd_err,
    attractor, attractor_err (the diffusion approximation near +1), equilibria, ..."""

    _struct_docs = ("StationaryLaw",)


class CheckResult(Result):
    """A claim over a box: ``verdict`` (holds, fails or undecided), ``table`` (one row per point,
    points.csv), ``witness``, ``min_margin``, ``counts`` and the rest of check.json."""

    _struct_docs = ("CheckResult",)

    table = property(lambda self: self._tables["points"], doc="one row per point evaluated (points.csv)")


class ProveResult(Result):
    """A claim decided rigorously over a box of models: the certificate as data. ``verdict``
    (proved, disproved or not proved), ``cells`` (a table: each cell's parameter cell, rho interval,
    enclosures and role), ``param_cells``, ``undecided``, ``counterexample``, ``summary`` and
    ``params``; ``proved`` is True for a proof. Re-checked certificates (``prove(verify=...)``) give
    ``valid``, ``verdict`` and ``cells`` (the count recomputed). ``certificate`` is the JSON text the
    checker reads (``rhoflow prove --verify``)."""

    _struct_docs = ("ProveResult",)

    @property
    def proved(self):
        """Whether the claim is proved (for a re-checked certificate: whether it certifies a proof)."""
        return self._data["verdict"] == "proved"

    @property
    def certificate(self):
        """The certificate's JSON text (as certificate.json holds it)."""
        return self._result.document(1)

    def __repr__(self):
        if "valid" in self._data:
            return f"<ProveResult: certificate valid, verdict {self._data['verdict']!r}, {self._data['cells']} cells>"
        return (f"<ProveResult: {self._data['params']['claim']} {self._data['verdict']} "
                f"({self._data['summary']['cells']} cells, {self._data['summary']['enclosures']} enclosures)>")


def _result_class(command):
    """The Result class of a job: FieldResult for field, ..., Result for a job without its own."""
    return globals().get(command.capitalize() + "Result", Result)


def _wrap(triple):
    return _result_class(triple[0].command)(triple)


class Cell:
    """One cell of an experiment: its task, folder (relative to the run's), swept values and result."""

    __slots__ = ("task", "dir", "swept", "resumed", "result")

    def __init__(self, task, dir, swept, resumed, result):
        self.task, self.dir, self.swept, self.resumed, self.result = task, dir, swept, resumed, result

    def __repr__(self):
        return f"<Cell {self.task}/{self.dir.split('/', 1)[-1]} {self.result!r}>"


class RunResult:
    """An experiment run: ``cells`` (each with task, dir, swept, resumed and result), ``results``
    (the cells' results in order), ``summaries`` (a Table per task, summary.csv) and ``out``."""

    def __init__(self, title, file, out, cells, summaries):
        self.title, self.file, self.out, self.cells, self.summaries = title, file, out, cells, summaries

    @property
    def results(self):
        """The cells' results, in cell order."""
        return [c.result for c in self.cells]

    def __repr__(self):
        return f"<RunResult {self.title or self.file!r}: {len(self.cells)} cells in {self.out}>"


for _cls in (FieldResult, OdeResult, PhaseResult, SgaResult, CompareResult, StationaryResult, CheckResult, ProveResult):
    _extra = _struct_doc(*_cls._struct_docs)
    if _extra:
        _cls.__doc__ += "\n\n    Fields of the library's result (docs/cli.md, JSON):\n" + _extra


# ------------------------------------------------------------------------------ the jobs

def _signature(command):
    """The parameters of a job function, from the settings table: [(name, setting)], Signature."""
    has_model = _JOBS[command]["has_model"]
    specs = [s for s in _rhoflow.settings(command) if not (has_model and s["key"] in _MODEL_KEYS)]
    names = [(s["key"].replace("-", "_"), s) for s in specs]
    P = _inspect.Parameter
    params = []
    if has_model:
        params.append(P("model", P.POSITIONAL_OR_KEYWORD, default=Model(), annotation="Model"))
    positional = [k.replace("-", "_") for k in _JOBS[command]["positional"]]
    by_name = dict(names)
    for name in positional:
        s = by_name[name]
        default = P.empty if s["required"] and not s["unless"] else _default_of(s)
        params.append(P(name, P.POSITIONAL_OR_KEYWORD, default=default, annotation=_annotation(s)))
    for name, s in names:
        if name in positional:
            continue
        params.append(P(name, P.KEYWORD_ONLY, default=_default_of(s), annotation=_annotation(s)))
    if _JOBS[command]["progress"]:
        params.append(P("progress", P.KEYWORD_ONLY, default=None, annotation="Callable[[int, int], None] | None"))
    params.append(P("max_memory", P.KEYWORD_ONLY, default=None, annotation="int | str | None"))
    return names, _inspect.Signature(params, return_annotation=_result_class(command).__name__)


def _python_words(text):
    """A setting's description in Python's words: keywords for flags ("--t-end" -> "t_end"), a list
    for "comma-separated" (each parameter is described once, from the library's own doc)."""
    keys = {s["key"] for c in _JOBS for s in _rhoflow.settings(c) if "-" in s["key"]}
    text = _re.sub(r"(?<![\w-])--([a-z][a-z0-9-]*)", lambda m: m.group(1).replace("-", "_"), text)
    text = _re.sub(r"(?<![\w-])([a-z][a-z0-9]*(?:-[a-z0-9]+)+)(?![\w-])",
                   lambda m: m.group(1).replace("-", "_") if m.group(1) in keys else m.group(1), text)
    return text.replace(", comma-separated", ", a list").replace("comma-separated ", "a list of ")


def _docstring(command, names):
    lines = _textwrap.wrap(_JOBS[command]["summary"], 92) + ["", "Parameters", "----------"]
    if _JOBS[command]["has_model"]:
        lines += ["model : Model", "    the model (d, L, R, theta, sigma, beta)"]
    for name, s in names:
        kind = _annotation(s)
        default = ("required" if not s["unless"] else f"required unless {s['unless'].replace('-', '_')} is given"
                   ) if s["required"] else f"default {_default_of(s)!r}"
        lines.append(f"{name} : {kind}, {default}")
        lines.append(f"    {_python_words(_member_doc(command, s['field']) or s['help'])}")
    if _JOBS[command]["progress"]:
        lines += ["progress : callable(done, total) or a tqdm-like bar, optional",
                  "    called from the calling thread about every 50 ms with the SGA steps done and their total"]
    lines += [_MAX_MEMORY_DOC[0], _MAX_MEMORY_DOC[1]]
    lines += ["", "Returns", "-------", _result_class(command).__name__,
              "", "Raises", "------",
              "InvalidArgument (a ValueError) naming the parameter and its accepted range",
              "NumericalError (a RuntimeError) when a result cannot be delivered to its accuracy",
              "KeyboardInterrupt on Ctrl-C (the run stops within about 1000 SGA steps; nothing is written)"]
    return "\n".join(lines)


def _bind(command, sig, args, kwargs):
    """sig.bind, with a TypeError that names the function and what was meant."""
    try:
        return sig.bind(*args, **kwargs)
    except TypeError as e:
        names = list(sig.parameters)
        for k in kwargs:
            if k in sig.parameters:
                continue
            if "model" in sig.parameters and k.replace("_", "-") in _MODEL_KEYS:
                raise TypeError(f"{command}() has no parameter {k!r}: the model's {k} goes in a Model, "
                                f"{command}(rhoflow.Model({k}=...), ...)") from None
            close = _difflib.get_close_matches(k, names, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else f" (its parameters: {', '.join(names)})"
            raise TypeError(f"{command}() got an unexpected keyword argument {k!r}{hint}") from None
        raise TypeError(f"{command}(): {e}") from None


def _job_function(command):
    names, sig = _signature(command)
    kinds = {name: s for name, s in names}

    def job(*args, **kwargs):
        bound = _bind(command, sig, args, kwargs)
        settings = []
        progress = None
        max_memory = ""
        for name, value in bound.arguments.items():
            if name == "model":
                if not isinstance(value, Model):
                    raise TypeError(f"model must be a rhoflow.Model, not {type(value).__name__}")
                settings += value._settings()
            elif name == "progress":
                progress = _progress_function(value)
            elif name == "max_memory":
                max_memory = _memory_text(value)
            elif value is None and kinds[name]["unless"]:
                continue  # a required setting left out because the one it needs not is given
            else:
                settings.append((kinds[name]["key"], value))
        if _JOBS[command]["has_model"] and "model" not in bound.arguments:
            settings = Model()._settings() + settings
        result = _wrap(_rhoflow.run(command, settings, progress, max_memory))
        rho = bound.arguments.get("rho")
        if command == "field" and isinstance(rho, _numbers.Real) and not isinstance(rho, bool):
            result._scalar = True  # one number in, numbers out
        return result

    job.__name__ = job.__qualname__ = command
    job.__module__ = __name__
    job.__signature__ = sig
    job.__doc__ = _docstring(command, names)
    return job


field = _job_function("field")
ode = _job_function("ode")
phase = _job_function("phase")
sga = _job_function("sga")
compare = _job_function("compare")
stationary = _job_function("stationary")
check = _job_function("check")
prove = _job_function("prove")
# A job of the table without a line above (one added to the library) is a function all the same.
for _name in _JOBS:
    if _name not in globals():
        globals()[_name] = _job_function(_name)


def _compare_ensemble_function():
    names, sig = _signature("compare")
    # the ensemble's own settings, and the step-size study (it needs ensembles of its own)
    kept = [(name, s) for name, s in names if not s["field"].startswith(("sga.", "model.", "study"))]
    kinds = dict(kept)
    P = _inspect.Parameter
    params = [P("ensemble", P.POSITIONAL_OR_KEYWORD, annotation="SgaResult")]
    params += [p for p in sig.parameters.values() if p.name in kinds]
    signature = _inspect.Signature(params, return_annotation="CompareResult")

    def compare_ensemble(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        ensemble = bound.arguments.pop("ensemble")
        if not isinstance(ensemble, SgaResult):
            raise TypeError(f"ensemble must be a rhoflow.SgaResult (rhoflow.sga or rhoflow.load), not "
                            f"{type(ensemble).__name__}")
        settings = [(kinds[name]["key"], value) for name, value in bound.arguments.items()]
        return _wrap(_rhoflow.compare_ensemble(ensemble._result, settings))

    lines = _textwrap.wrap(
        "The comparison of an ensemble one already has (an SgaResult, e.g. from rhoflow.sga or rhoflow.load) "
        "with the ODE and the effective dynamics, without running it again: compare()'s table, gap D_T, "
        "hitting times, outcomes, prediction and verdict, with the ensemble's model and SGA settings. The "
        "table's rows are the ensemble's record steps nearest to compare()'s; D_T and the tracking error are "
        "taken at the record steps only (every_step is False: lower bounds of compare()'s, which watches every "
        "step), and there is no step-size study (it needs ensembles of its own).", 92)
    lines += ["", "Parameters", "----------", "ensemble : SgaResult", "    the ensemble (every trial kept, as rhoflow.sga keeps them)"]
    for name, s in kept:
        default = "required" if s["required"] else f"default {_default_of(s)!r}"
        lines += [f"{name} : {_annotation(s)}, {default}", f"    {s['help']}"]
    lines += ["", "Returns", "-------", "CompareResult", "", "Raises", "------",
              "InvalidArgument (a ValueError) naming the parameter and its accepted range",
              "NumericalError (a RuntimeError) when a result cannot be delivered to its accuracy"]
    compare_ensemble.__module__ = __name__
    compare_ensemble.__signature__ = signature
    compare_ensemble.__doc__ = "\n".join(lines)
    return compare_ensemble


compare_ensemble = _compare_ensemble_function()


# ------------------------------------------------------------------------------ files

def run(path, out=None, *, figures=True, progress=None, log=None, max_memory=None):
    """Runs an experiment file (TOML; docs/cli.md, Experiment files) like ``rhoflow run``: every
    cell validated first, the run built in .OUT.partial and resumed from there after an
    interruption (KeyboardInterrupt) or a failure; OUT complete or absent.

    path: the experiment file; out: the output folder (default: the file's `out`, else
    <file stem>-out); figures: render the compare cells' figures with gnuplot; progress: a
    callable(done, total) (the SGA steps of the cell running) or a tqdm-like bar; log: a
    callable(line) receiving the runner's progress lines; max_memory: refuse the run, before any
    cell runs, if a cell's estimated memory exceeds it (bytes, or a text such as '8G'; default: the
    machine's), as ``rhoflow run --max-memory``.

    Returns a RunResult."""
    d = _rhoflow.run_file(_os.fspath(path), "" if out is None else _os.fspath(out), figures,
                          _progress_function(progress), log, _memory_text(max_memory))
    cells = [Cell(c["task"], c["dir"], c["swept"], c["resumed"], _wrap(c["result"])) for c in d["cells"]]
    return RunResult(d["title"], d["file"], d["out"], cells, d["summaries"])


def atlas(out=None, *, figures=True, progress=None, log=None, max_memory=None, dry_run=False, **settings):
    """Decides a claim of prove over a map of models and brackets its threshold on every row,
    rigorously, like ``rhoflow atlas`` (docs/cli.md, rhoflow atlas): theta boxes covering
    [theta_lo, theta_hi] against rows of d, L and R = alpha * L, then theta* per row.

    settings (each optional, the command's defaults otherwise): claim ('monotone'), theta_lo
    (0.25), theta_hi (1.5), theta_cells (5), L ([100, 1000, 10000]), alpha ([0.1]), d ([50]),
    sigma (1), beta (1), threshold_width (1e-4; 0: no threshold task), max_cells (20000),
    box_depth (4), threads (0: all cores). out: the output folder (default 'atlas-out');
    figures, progress, log and max_memory as for run(). dry_run: return the experiment file's
    text instead of running it (save it to rerun with run()).

    Returns a RunResult: its summaries hold the map's cells; OUT/map/atlas.md is the map."""
    for key in ("L", "alpha", "d"):
        if key in settings and not isinstance(settings[key], (list, tuple)):
            settings[key] = [settings[key]]
    text = _rhoflow.atlas_experiment(_json.dumps({k: (list(v) if isinstance(v, tuple) else v)
                                                  for k, v in settings.items()}))
    if dry_run:
        return text
    d = _rhoflow.run_file("atlas.toml", "" if out is None else _os.fspath(out), figures,
                          _progress_function(progress), log, _memory_text(max_memory), text)
    cells = [Cell(c["task"], c["dir"], c["swept"], c["resumed"], _wrap(c["result"])) for c in d["cells"]]
    return RunResult(d["title"], d["file"], d["out"], cells, d["summaries"])


def from_json(text):
    """A result from its JSON document (Result.to_json(), `rhoflow SUB --json`, a result file)."""
    return Result.from_json(text)


def load(path):
    """Reads what rhoflow wrote back into the objects the functions return: an output folder of
    `rhoflow compare --out` / `check --out` / Result.save (its compare.json, check.json or
    result.json), a result document file (`--output FILE`), or an experiment's output folder
    (run.json: a RunResult). Files are untrusted: a malformed one raises ValueError."""
    path = _os.fspath(path)
    if isinstance(path, bytes):
        path = _os.fsdecode(path)
    if "\0" in path:
        raise ValueError(f"load: the path {path!r} holds a NUL character (no file name can)")
    if _os.path.isdir(path) and _os.path.isfile(_os.path.join(path, "run.json")):
        return _load_run(path)
    return _wrap(_rhoflow.load(path))


def _safe_relative(p, what):
    if not isinstance(p, str) or not p or _os.path.isabs(p) or ".." in p.split("/") or "\\" in p or "\0" in p:
        raise ValueError(f"{what} {p!r} is not a folder inside the run")
    return p


def _load_run(path):
    index = _os.path.join(path, "run.json")
    try:
        doc = _json.loads(_rhoflow.read_text(index, True))  # bounded, nesting checked (io/read_back.hpp)
        if doc.get("program") != "rhoflow" or doc.get("command") != "run" or not isinstance(doc.get("runs"), list):
            raise ValueError("not the index of a rhoflow run")
        cells, tasks = [], []
        for r in doc["runs"]:
            task = _safe_relative(r["task"], "task")
            sub = _safe_relative(r["dir"], "cell folder")
            swept = {str(k): str(v) for k, v in dict(r.get("swept", {})).items()}
            report = _os.path.join(path, sub, "verification.json")
            if _os.path.isfile(report):  # a re-check's report: its job is the one run.json records
                result = _rhoflow.from_report(_json.dumps(r["params"]), _rhoflow.read_text(report, True), report)
            else:
                result = _rhoflow.load(_os.path.join(path, sub))
            cells.append(Cell(task, sub, swept, None, _wrap(result)))
            if task not in tasks:
                tasks.append(task)
    except (KeyError, TypeError, AttributeError, _json.JSONDecodeError) as e:
        raise ValueError(f"{index} is not the index of a rhoflow run: {e}") from None
    summaries = {t: _read_table(_os.path.join(path, t, "summary.csv")) for t in tasks}
    return RunResult(doc.get("title", ""), doc.get("file", ""), path, cells, summaries)


def _read_table(path):
    """A table from a CSV file rhoflow wrote (io/table.hpp: a header of keys, numbers in their
    shortest round-trip form, empty fields for missing values; caption and provenance in the
    sidecar PATH.meta.json). Files from before the sidecar, with '#' caption and provenance lines
    at the top, read the same."""
    lines = _rhoflow.read_text(_os.fspath(path), False).splitlines()
    comments = [l[2:] if l.startswith("# ") else l[1:] for l in lines if l.startswith("#")]
    sidecar = _os.fspath(path) + ".meta.json"
    integer = set()  # the columns the sidecar declares integer (steps, counts): int64 when complete
    if _os.path.isfile(sidecar):
        try:
            side = _json.loads(_rhoflow.read_text(sidecar, True))
            comments = [str(side["caption"])] + [str(m) for m in side["meta"]]
            integer = {str(c["name"]) for c in side.get("columns", []) if c.get("integer") is True}
        except (KeyError, TypeError, AttributeError, _json.JSONDecodeError) as e:
            raise ValueError(f"{sidecar} is not the sidecar of a rhoflow table: {e}") from None
    rows = list(_csv.reader([l for l in lines if not l.startswith("#")]))
    if not rows:
        raise ValueError(f"{path} has no header")
    header, body = rows[0], rows[1:]
    t = Table()
    for c, key in enumerate(header):
        cells = [r[c] if c < len(r) else "" for r in body]
        values = []
        numeric = True
        for v in cells:
            if v == "":
                values.append(None)
                continue
            try:
                values.append(float(v))
            except ValueError:
                values.append(v)
                numeric = False
        whole = numeric and key in integer and all(v is not None and v.is_integer() and abs(v) <= 2**53 for v in values)
        if whole:
            t[key] = _np.array(values, dtype=_np.int64)
        else:
            t[key] = _np.array([float("nan") if v is None else v for v in values]) if numeric else values
    t.caption = comments[0] if comments else ""
    t.meta = comments[1:]
    return t
