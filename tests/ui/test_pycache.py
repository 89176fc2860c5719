"""The start-up zip a first visit unpacks (.ci/pycache.py, README "Speed"),
built here by CPython from a copy of the page's files laid out as PyScript
writes them: it holds the sources and bytecode of what main.py imports
before ready and not what the page imports later, every page file reaches
the page once (in the zip or as a [files] entry), and each .pyc is checked
against its source's hash, so a .pyc older than an edit is ignored rather
than run."""

from __future__ import annotations

import importlib.util
import io
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

# Each test builds the zip in a child CPython; Pyodide (tests/pyodide_run.mjs)
# has no processes.
pytestmark = pytest.mark.skipif(sys.platform == "emscripten", reason="needs a subprocess")

ROOT = Path(__file__).resolve().parents[2]

BUILD = """
import sys, runpy
ns = runpy.run_path(sys.argv[1])
sys.stdout.buffer.write(ns["build"](sys.argv[2], sys.argv[3]))
"""


#: Where each folder of page files lands (.ci/pycache.mjs LAYOUT).
LAYOUT = {"rules": "rules", "static/py": "."}


def page_files() -> dict:
    """Every page file (Python and data, not main.py): source -> where it lands."""
    return {f"{src}/{f.relative_to(ROOT / src).as_posix()}": Path(dst, f.relative_to(ROOT / src)).as_posix()
            for src, dst in LAYOUT.items() for f in sorted((ROOT / src).rglob("*"))
            if f.suffix in (".py", ".json") and f.name != "main.py" and "__pycache__" not in f.parts}


def toml_files() -> dict:
    toml = (ROOT / "pyscript.toml").read_text()
    return dict(re.findall(r'^\s*"\./([^"]+)"\s*=\s*"\./([^"*]+)"', toml, re.M))


def lay_out(tmp: Path) -> Path:
    """Every page file written under ``tmp`` as PyScript writes it."""
    for src, dst in page_files().items():
        (tmp / dst).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / src, tmp / dst)
    return tmp


def build(cwd: Path) -> zipfile.ZipFile:
    out = subprocess.run([sys.executable, "-c", BUILD, str(ROOT / ".ci" / "pycache.py"),
                          str(ROOT / "static" / "py" / "main.py"), str(cwd)],
                         capture_output=True, check=True, cwd=cwd)
    return zipfile.ZipFile(io.BytesIO(out.stdout))


def source_of(name: str) -> str:
    """``rules/__pycache__/dice.cpython-3XX.pyc`` -> ``rules/dice.py``."""
    p = Path(name)
    return (p.parent.parent / (p.name.split(".")[0] + ".py")).as_posix()


def test_the_zip_holds_what_main_imports_before_ready(tmp_path):
    sources = {source_of(n) for n in build(lay_out(tmp_path)).namelist() if n.endswith(".pyc")}
    assert {"rules/__init__.py", "rules/dice.py", "rules/milhamah/model.py", "rules/mirage/explain.py", "ui_milhamah.py",
            "ui_jadeclaw.py", "views.py", "draw.py", "store.py", "formstate.py", "page.py", "forms.py",
            "trayview.py", "oddspanel.py", "history.py", "setups.py", "sharing.py", "fairpanel.py",
            "backup.py"} <= sources
    assert not sources & {"fair.py", "fairview.py", "fairness.py", "qr.py", "snapshot.py",
                          "rules/milhamah/probability.py", "main.py"}


def test_every_page_file_reaches_the_page_once(tmp_path):
    """Each page file is in the zip or a [files] entry, not both and not
    neither (a file in neither would be missing on the page; in both,
    fetched twice); the zip's sources are the files themselves."""
    z = build(lay_out(tmp_path))
    zipped = {n for n in z.namelist() if "__pycache__" not in n}
    listed = set(toml_files().values())
    landed = set(page_files().values())
    assert zipped | listed == landed
    assert not zipped & listed
    for src, dst in page_files().items():
        if dst in zipped:
            assert z.read(dst) == (ROOT / src).read_bytes(), dst


def test_each_pyc_is_checked_against_its_source(tmp_path):
    cwd = lay_out(tmp_path)
    z = build(cwd)
    for name in (n for n in z.namelist() if n.endswith(".pyc")):
        data = z.read(name)
        flags = int.from_bytes(data[4:8], "little")
        assert flags == 0b11, name  # hash-based, checked
        src = cwd / source_of(name)
        assert Path(importlib.util.cache_from_source(str(src))).name == Path(name).name
        assert data[8:16] == importlib.util.source_hash(src.read_bytes()), name


def test_the_zip_ends_with_the_mark_a_restored_start_skips(tmp_path):
    """static/js/pyodide-snapshot.mjs skips an archive whose last bytes are
    this comment: the zip must end with it, and the script must name it."""
    z = build(lay_out(tmp_path))
    script = (ROOT / "static" / "js" / "pyodide-snapshot.mjs").read_text()
    assert z.comment == b"dice-table bytecode"
    assert f'encode("{z.comment.decode()}")' in script
