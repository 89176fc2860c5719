"""The page split by what it does: each feature module imports
only those before it in ``page``'s order (no import circle, not even one
inside a function), none touches the browser when imported (the start-up
bytecode and the memory snapshot import them where there is no page), and
``main.py`` stays the wiring."""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PY = ROOT / "static" / "py"
#: page's docstring order; main, the wiring, last.
ORDER = ["page", "forms", "trayview", "oddspanel", "history", "setups", "sharing", "fairpanel", "backup", "main"]


def imported(name: str) -> set:
    """The top-level names a module imports, anywhere in it."""
    names = set()
    for node in ast.walk(ast.parse((PY / f"{name}.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("i", range(len(ORDER)), ids=ORDER)
def test_each_module_imports_only_those_before_it(i):
    assert not imported(ORDER[i]) & set(ORDER[i:])


def test_every_module_built_on_page_is_in_the_order():
    """A new feature module takes its place in the order (and page's docstring)."""
    users = {p.stem for p in PY.glob("*.py") if "page" in imported(p.stem)}
    assert users <= set(ORDER)


def page_docstring_names():
    text = ast.get_docstring(ast.parse((PY / "page.py").read_text(encoding="utf-8")))
    return {name for name in ORDER if f"``{name}``" in text} | {"page"}


def test_page_docstring_names_every_feature():
    assert page_docstring_names() == set(ORDER)


@pytest.mark.skipif(sys.platform == "emscripten", reason="needs a subprocess")
def test_importing_the_features_touches_no_browser():
    """Imported in a fresh CPython (no pyscript, no pyodide): nothing of
    the browser is imported, and the browser's window answers Python's own
    probes (doctest's, inspect's) without looking for it."""
    code = ("import sys, inspect; import " + ", ".join(ORDER[:-1]) + "; "
            "print(sorted(m for m in ('pyscript', 'pyodide', 'js') if m in sys.modules), "
            "hasattr(page.window, '__wrapped__'), inspect.unwrap(page.document) is page.document)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(PY)])}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] False True"


def test_main_is_the_wiring():
    """Start-up and event routing, a few hundred lines; the features' state
    is theirs (main keeps only its routing tables)."""
    source = (PY / "main.py").read_text(encoding="utf-8")
    assert len(source.splitlines()) < 400
    state = [t.id for node in ast.parse(source).body if isinstance(node, ast.Assign)
             for t in node.targets if isinstance(t, ast.Name)]
    assert set(state) <= {"TAB_CLICKS", "CLICKS", "INPUTS", "FORMS_SUBMIT"}
