"""`cmake --install` puts a working package where the interpreter finds it under the prefix."""
import os
import subprocess
import sys

import pytest


def test_installed_package_imports_and_runs(tmp_path):
    build = os.environ.get("RHOFLOW_BUILD_DIR")
    rel = os.environ.get("RHOFLOW_PYTHON_INSTALL_DIR")
    if not build or not rel:
        pytest.skip("run by ctest (RHOFLOW_BUILD_DIR, RHOFLOW_PYTHON_INSTALL_DIR)")
    prefix = tmp_path / "prefix"
    # The python folder's install rules only (what `cmake --install` runs for it), so that this
    # test and the C++ package's install test do not write the build tree's manifest at once.
    script = os.path.join(build, "python", "cmake_install.cmake")
    p = subprocess.run(["cmake", f"-DCMAKE_INSTALL_PREFIX={prefix}", "-P", script], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    site = prefix / rel if not os.path.isabs(rel) else rel
    assert (site / "rhoflow" / "__init__.py").is_file() and (site / "rhoflow" / "__init__.pyi").is_file()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    code = "import rhoflow; print(rhoflow.__file__); print(rhoflow.field(rhoflow.Model(), 0.5).drift)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    path, drift = p.stdout.split()
    assert path.startswith(str(site)) and float(drift) > 0


def test_an_interpreter_without_numpy_is_told_which_one_the_module_was_built_for():
    # numpy made unimportable, as in a pyenv or conda python3 that comes first on PATH
    code = "import sys; sys.modules['numpy'] = None; import rhoflow"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode != 0
    assert "rhoflow needs NumPy" in p.stderr and "the module was built for /" in p.stderr
