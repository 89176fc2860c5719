"""static/py/shell/snapshot.py under CPython: the plan names what a snapshot may
hold (the standard library the start imported and every module of ours,
never the DOM module or a JavaScript bridge), ``prepare`` imports it and
reports what it could not, ``after_restore`` undoes what a snapshot
freezes."""

import json
import random
import sys
import types

import pytest

from shell import snapshot


@pytest.fixture
def page_dir(tmp_path):
    """A working directory laid out as PyScript's [files] lay out the page's."""
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "__init__.py").write_text("")
    (tmp_path / "rules" / "dice.py").write_text("X = 1\n")
    (tmp_path / "rules" / "faces.json").write_text("{}")
    (tmp_path / "rules" / "__pycache__").mkdir()
    (tmp_path / "rules" / "__pycache__" / "dice.cpython-311.pyc").write_bytes(b"\0")
    (tmp_path / "views.py").write_text("")
    (tmp_path / "main.py").write_text("from pyscript import document\n")
    (tmp_path / "pyscript").mkdir()
    (tmp_path / "pyscript" / "__init__.py").write_text("")
    (tmp_path / "not-a-module.py").write_text("")
    return tmp_path


def test_plan_names_our_modules_and_files_but_not_the_dom_module(page_dir):
    """Every module of ours is planned, dotted as Python imports it, the
    largest source first (then by name); main and PyScript's package are
    not; the data files are copied too, the bytecode caches not."""
    plan = json.loads(snapshot.plan(cwd=str(page_dir), modules={}))
    assert plan["cwd"] == str(page_dir)
    assert plan["modules"] == ["rules.dice", "rules", "views"]
    files = {p.removeprefix(str(page_dir) + "/") for p in plan["files"]}
    assert {"rules/faces.json", "rules/dice.py", "views.py"} <= files
    assert not any("__pycache__" in f or f.startswith("pyscript/") for f in files)


def test_plan_takes_the_standard_library_the_start_imported_first(page_dir):
    """Standard-library modules in sys.modules come before ours, in import
    order; a wheel's module (site-packages), a JavaScript bridge and the
    page's own main are left out."""
    wheel = types.ModuleType("segno")
    wheel.__file__ = "/lib/python3.14/site-packages/segno/__init__.py"
    bridge = types.ModuleType("pyodide.ffi")
    bridge.__file__ = json.__file__  # even from the stdlib folder: a bridge stays out
    mods = {"json": json, "segno": wheel, "pyodide.ffi": bridge, "main": types.ModuleType("main"),
            "random": random, "sys": sys}
    plan = json.loads(snapshot.plan(cwd=str(page_dir), modules=mods))
    assert plan["modules"][:3] == ["json", "random", "sys"]
    assert not {"segno", "pyodide.ffi", "main"} & set(plan["modules"])


def test_prepare_imports_the_plan_and_reports_what_failed(page_dir, monkeypatch):
    """Modules that import in the Worker end in sys.modules; one that needs
    the page (here: imports pyscript, absent) is reported, not fatal; the
    state is labelled with the key."""
    monkeypatch.syspath_prepend(str(page_dir))
    (page_dir / "needs_page.py").write_text("import pyscript_is_not_here\n")
    for name in ("rules", "rules.dice", "needs_page"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(snapshot, "MADE_FOR", "")
    failed = json.loads(snapshot.prepare(json.dumps(["rules.dice", "needs_page"]), "v1 314.0.7"))
    assert failed == ["needs_page"]
    assert sys.modules["rules.dice"].X == 1
    assert snapshot.after_restore() == "v1 314.0.7"
    for name in ("rules", "rules.dice"):
        sys.modules.pop(name, None)


def test_after_restore_reseeds_random_and_keeps_one_empty_path(monkeypatch):
    """Two restores of one frozen state draw different numbers from the
    module-level generator; the doubled "" on sys.path is removed."""
    frozen = random.getstate()
    random.setstate(frozen)
    snapshot.after_restore()
    first = [random.random() for _ in range(4)]
    random.setstate(frozen)
    snapshot.after_restore()
    second = [random.random() for _ in range(4)]
    assert first != second
    monkeypatch.setattr(sys, "path", ["", "", "/lib/python314.zip", ""])
    snapshot.after_restore()
    assert sys.path.count("") == 1 and "/lib/python314.zip" in sys.path
