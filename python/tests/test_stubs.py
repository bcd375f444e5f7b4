"""The type stubs (python/rhoflow/__init__.pyi) are what the built module says: the job
functions' signatures, defaults and docstrings as generated from it, and every public name of
the package and of its classes present."""
import ast
import inspect
import os
import subprocess
import sys

import rhoflow

HERE = os.path.dirname(os.path.abspath(__file__))
STUB = os.path.join(HERE, "..", "rhoflow", "__init__.pyi")
TOOL = os.path.join(HERE, "..", "tools", "make_stub.py")


def test_the_checked_in_stub_is_what_the_module_generates():
    p = subprocess.run([sys.executable, TOOL, "--check", STUB], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_every_public_name_and_member_is_in_the_stub():
    tree = ast.parse(open(STUB, encoding="utf-8").read())
    top = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    assert set(rhoflow.__all__) <= set(top), set(rhoflow.__all__) - set(top)
    for name in rhoflow.__all__:
        obj = getattr(rhoflow, name)
        if not inspect.isclass(obj) or issubclass(obj, BaseException):
            continue
        stubbed = set()
        for node in ast.walk(top[name]):
            if isinstance(node, ast.FunctionDef):
                stubbed.add(node.name)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                stubbed.add(node.target.id)
        for cls in inspect.getmro(obj):
            if cls in (object, dict) or cls.__name__ not in top:
                continue
            for n in top[cls.__name__].body:
                if isinstance(n, ast.FunctionDef):
                    stubbed.add(n.name)
                elif isinstance(n, ast.AnnAssign):
                    stubbed.add(n.target.id)
        public = {m for m, _ in inspect.getmembers(obj) if not m.startswith("_")}
        public -= set(dir(dict)) if issubclass(obj, dict) else set()
        assert public <= stubbed, (name, public - stubbed)
    # The stub's job functions take exactly the runtime's parameters, with the same defaults.
    for command in rhoflow._rhoflow.commands():
        f = top[command]
        args = [a.arg for a in f.args.args + f.args.kwonlyargs]
        assert args == list(inspect.signature(getattr(rhoflow, command)).parameters), command
