"""The page in folders by feature, in floors: every module of ``static/py``
imports only those before it in ``ORDER`` (no import circle, not even one
inside a function), none touches the browser when imported (the start-up
bytecode and the memory snapshot import them where there is no page), and
``main.py`` stays the wiring. README's layout draws the same floors."""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rules

ROOT = Path(__file__).resolve().parents[2]
PY = ROOT / "static" / "py"

#: The floors, bottom up. Pure modules first (no DOM: drawing, each tab's
#: form and result, the stored records and links, the fair-roll and the
#: live-table protocols, the odds work), then the page itself, a module per
#: feature, each owning its state and its part of the DOM (``shell.page``'s
#: docstring names them in this order), and ``main``, the wiring, last.
#: A game's tab module (``tabs.ui_<game>``) comes from the registry.
PURE = [
    "shell.names",  # the longest a name may be: the history, fair rolls and the live table keep to it
    "drawing.draw", "drawing.views",
    "tabs.tab", "tabs.formstate",
    *(f"tabs.ui_{system}" for system in rules.SYSTEMS),  # each game's tab, in the registry's order
    "records.synced", "records.store", "party.roster", "party.view", "links.share", "links.qr",
    "fairrolls.fair", "fairrolls.fairview",
    "table.secret", "table.relay", "table.livetable",
    "odds.oddswork", "odds.oddsclient",
    "trust.dicecheck", "shell.snapshot",
]
FEATURES = ["shell.page", "shell.device", "table.table_ui", "tabs.forms", "tabs.trayview", "odds.oddspanel", "records.history", "records.setups",
            "links.sharedialog", "party.panel", "fairrolls.fairpanel", "records.backup"]
ORDER = PURE + FEATURES + ["main"]


def path_of(name: str) -> Path:
    return PY / (name.replace(".", "/") + ".py")


def page_modules() -> set:
    """Every module file under static/py, by dotted name (packages' own
    ``__init__`` files hold only their docstring)."""
    return {".".join(p.relative_to(PY).with_suffix("").parts) for p in PY.rglob("*.py")
            if p.name != "__init__.py" and "__pycache__" not in p.parts}


def imported(name: str) -> set:
    """The page modules ``name`` imports, anywhere in it (``from pkg import
    mod`` counts ``pkg.mod``)."""
    names = set()
    for node in ast.walk(ast.parse(path_of(name).read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return names & set(ORDER)


@pytest.mark.parametrize("i", range(len(ORDER)), ids=ORDER)
def test_each_module_imports_only_those_before_it(i):
    assert not imported(ORDER[i]) & set(ORDER[i:])


def test_every_module_has_its_floor():
    """A new module takes its place in the order (and, if it is a feature of
    the page, in ``shell.page``'s docstring); none is listed that is gone."""
    assert page_modules() == set(ORDER)


def test_the_packages_say_what_they_hold():
    """Each folder's ``__init__`` names its modules."""
    for init in PY.glob("*/__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        held = {p.stem for p in init.parent.glob("*.py") if p.name != "__init__.py"}
        assert all(f"``{m}``" in doc or m.startswith("ui_") for m in held), init


def test_the_pure_modules_touch_no_page_module():
    """Below ``shell.page`` nothing reads the DOM helpers."""
    for name in PURE:
        assert not imported(name) & set(FEATURES + ["main"]), name


def page_docstring_names():
    text = ast.get_docstring(ast.parse(path_of("shell.page").read_text(encoding="utf-8")))
    return {name for name in FEATURES if f"``{name}``" in text} | {"shell.page"}


def test_page_docstring_names_every_feature():
    assert page_docstring_names() == set(FEATURES)


@pytest.mark.skipif(sys.platform == "emscripten", reason="needs a subprocess")
def test_importing_the_features_touches_no_browser():
    """Imported in a fresh CPython (no pyscript, no pyodide): nothing of
    the browser is imported, and the browser's window answers Python's own
    probes (doctest's, inspect's) without looking for it."""
    code = ("import sys, inspect; import " + ", ".join(ORDER[:-1]) + "; "
            "print(sorted(m for m in ('pyscript', 'pyodide', 'js') if m in sys.modules), "
            "hasattr(shell.page.window, '__wrapped__'), inspect.unwrap(shell.page.document) is shell.page.document)")
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
