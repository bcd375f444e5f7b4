"""Fixtures of the Python tests (run by ctest: python/CMakeLists.txt sets the environment).

RHOFLOW_CLI is the command line built beside the module (absent: the tests that compare with it
are skipped), RHOFLOW_SOURCE_DIR the source tree, RHOFLOW_BUILD_DIR the build tree."""
import json
import os
import subprocess

import pytest

import rhoflow


@pytest.fixture
def cli():
    """Runs `rhoflow ARGS...`; returns (exit code, stdout, stderr)."""
    path = os.environ.get("RHOFLOW_CLI")
    if not path:
        pytest.skip("RHOFLOW_CLI is not set (built without the command line)")

    def run(*args, cwd=None):
        p = subprocess.run([path, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=600)
        return p.returncode, p.stdout, p.stderr
    return run


@pytest.fixture
def cli_json(cli):
    """Runs `rhoflow ARGS... --json` and returns (parsed document, stdout)."""
    def run(*args, cwd=None):
        code, out, err = cli(*args, "--json", cwd=cwd)
        assert code == 0, err
        return json.loads(out), out
    return run


@pytest.fixture
def source_dir():
    return os.environ.get("RHOFLOW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture
def small_model():
    return rhoflow.Model(d=20, L=300, R=40, theta=1.5, sigma=2.0, beta=0.8, sigma_per_norm=True)
