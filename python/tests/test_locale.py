"""Issue 30, H1: rhoflow's numbers are the same bytes whatever the C locale of the process.

A notebook may call locale.setlocale(LC_ALL, "de_DE.UTF-8") (comma decimal point). Before the fix,
compare(...).save() then wrote z values in (-1, 0) without their minus sign into table.md/.tex,
check(theta="0.5:2") and the claim "hitting-time<=10.5" were refused as "not a number", and run()
wrote a sweep's values as text and dropped its figure. Each case here runs once under "C" and once
under the comma locale and compares every output file byte for byte.

The locale is compiled by localedef into a private LOCPATH (Debian's `locales` has its sources);
glibc reads LOCPATH at each setlocale call."""
import json
import locale
import os
import pathlib
import subprocess

import pytest

import rhoflow


@pytest.fixture(scope="module")
def comma_locale(tmp_path_factory):
    d = tmp_path_factory.mktemp("locale")
    p = subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8", str(d / "de_DE.UTF-8")], capture_output=True)
    assert (d / "de_DE.UTF-8" / "LC_NUMERIC").exists(), p.stderr
    return d


class Comma:
    """locale.setlocale(LC_ALL, "de_DE.UTF-8") for the block, "C" again after it."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        self.old = os.environ.get("LOCPATH")
        os.environ["LOCPATH"] = str(self.path)
        locale.setlocale(locale.LC_ALL, "de_DE.UTF-8")
        assert locale.localeconv()["decimal_point"] == ","

    def __exit__(self, *exc):
        locale.setlocale(locale.LC_ALL, "C")
        if self.old is None:
            del os.environ["LOCPATH"]
        else:
            os.environ["LOCPATH"] = self.old


def tree(d):
    """Every file under d by relative path; run.json without its "execution" (timings)."""
    d = pathlib.Path(d)
    files = {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}
    if "run.json" in files:
        doc = json.loads(files["run.json"])
        del doc["execution"]
        files["run.json"] = json.dumps(doc).encode()
    return files


def both(tmp_path, comma_locale, make):
    """Runs make(folder) under "C" and under the comma locale; the two trees must be equal."""
    os.environ["SOURCE_DATE_EPOCH"] = "1764547200"
    out = tmp_path / "out"  # one path for both: it is recorded in the files
    try:
        make(out)
        out.rename(tmp_path / "c")
        with Comma(comma_locale):
            make(out)
        out.rename(tmp_path / "de")
    finally:
        del os.environ["SOURCE_DATE_EPOCH"]
    c, de = tree(tmp_path / "c"), tree(tmp_path / "de")
    assert sorted(c) == sorted(de)
    for name in c:
        assert c[name] == de[name], name
    return c


def test_compare_tables_keep_their_minus_signs(tmp_path, comma_locale):
    m = rhoflow.Model(d=10, L=100, R=20)
    files = both(tmp_path, comma_locale, lambda out: rhoflow.compare(
        m, trials=4, steps=3000, horizon=2, no_study=True, seed=5).save(out, figures=False))
    assert "\u22120." in files["table.md"].decode()  # a z in (-1, 0): the sign the locale dropped


def test_check_reads_decimals(tmp_path, comma_locale):
    both(tmp_path, comma_locale,
         lambda out: rhoflow.check("hitting-time<=10.5", theta="0.5:2", grid=3).save(out, figures=False))
    c = [len(rhoflow.check("monotone", theta=t, grid=2).points) for t in ("0.5", (0.1, 3))]
    with Comma(comma_locale):  # refused as "not a number" before the fix
        assert [len(rhoflow.check("monotone", theta=t, grid=2).points) for t in ("0.5", (0.1, 3))] == c


def test_run_sweep_keeps_numbers_and_figure(tmp_path, comma_locale):
    (tmp_path / "in").mkdir()
    e = tmp_path / "in" / "e.toml"
    e.write_text('[defaults]\nd = 8\nL = 20\nR = 4\n[[task]]\nname = "s"\ncommand = "sga"\n'
                 'steps = 50\ntrials = 2\nthreads = 1\ntheta = [0.5, 1.5]\n')
    files = both(tmp_path, comma_locale, lambda out: rhoflow.run(str(e), out=str(out)))
    assert "s/fig_final_theta.png" in files
