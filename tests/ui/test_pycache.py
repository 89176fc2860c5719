"""The start-up zip a first visit unpacks (.ci/pycache.py, docs/SPEED.md),
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
sys.stdout.buffer.write(ns[sys.argv[4]](sys.argv[2], sys.argv[3]))
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


def build(cwd: Path, which: str = "build") -> zipfile.ZipFile:
    """The start-up zip (``build``) or the later one (``build_later``)."""
    out = subprocess.run([sys.executable, "-c", BUILD, str(ROOT / ".ci" / "pycache.py"),
                          str(ROOT / "static" / "py" / "main.py"), str(cwd), which],
                         capture_output=True, check=True, cwd=cwd)
    return zipfile.ZipFile(io.BytesIO(out.stdout))


def source_of(name: str) -> str:
    """``rules/__pycache__/dice.cpython-3XX.pyc`` -> ``rules/dice.py``."""
    p = Path(name)
    return (p.parent.parent / (p.name.split(".")[0] + ".py")).as_posix()


def test_the_zip_holds_what_main_imports_before_ready(tmp_path):
    sources = {source_of(n) for n in build(lay_out(tmp_path)).namelist() if n.endswith(".pyc")}
    assert {"rules/__init__.py", "rules/dice.py", "rules/milhamah/model.py", "rules/mirage/explain.py",
            "tabs/ui_milhamah.py", "tabs/ui_jadeclaw.py", "drawing/views.py", "drawing/draw.py", "records/store.py",
            "tabs/formstate.py", "shell/page.py", "tabs/forms.py", "tabs/trayview.py", "odds/oddspanel.py",
            "records/history.py", "records/setups.py", "links/sharedialog.py", "fairrolls/fairpanel.py",
            "records/backup.py", "tabs/__init__.py"} <= sources
    assert not sources & {"fairrolls/fair.py", "fairrolls/fairview.py", "trust/dicecheck.py", "links/qr.py",
                          "shell/snapshot.py", "rules/milhamah/probability.py", "main.py"}


def test_every_page_file_reaches_the_page_once(tmp_path):
    """Each page file is in the start-up zip, the later zip or a [files]
    entry, in exactly one of them (a file in none would be missing on the
    page; in two, fetched twice); the zips' sources are the files
    themselves; pyscript.toml unpacks both zips."""
    cwd = lay_out(tmp_path)
    z, later = build(cwd), build(cwd, "build_later")
    zipped = {n for n in z.namelist() if "__pycache__" not in n}
    late = set(later.namelist())
    listed = set(toml_files().values())
    landed = set(page_files().values())
    assert zipped | late | listed == landed
    assert not zipped & listed and not zipped & late and not late & listed
    assert {"fairrolls/fair.py", "rules/milhamah/probability.py", "rules/milhamah/dice.json"} <= late
    assert later.comment == b""  # a restored start unpacks it: nothing of it is in the snapshot
    for src, dst in page_files().items():
        for archive in (z, later):
            if dst in archive.namelist():
                assert archive.read(dst) == (ROOT / src).read_bytes(), dst
    toml = (ROOT / "pyscript.toml").read_text()
    assert '"./static/pycache.zip" = "./*"' in toml and '"./static/later.zip" = "./*"' in toml


def test_the_bytecode_leaves_out_docstrings_and_keeps_lines(tmp_path):
    """The .pyc a first visit downloads has no docstrings, and each of its
    functions still starts at its line in the shipped source."""
    import marshal
    cwd = lay_out(tmp_path)
    z = build(cwd)
    name = next(n for n in z.namelist() if n.startswith("drawing/__pycache__/draw.") and n.endswith(".pyc"))
    code = marshal.loads(z.read(name)[16:])
    source = (cwd / "drawing" / "draw.py").read_text()
    assert '"""' in source and code.co_consts[0] != ast_doc(source)
    funcs = {c.co_name: c.co_firstlineno for c in code.co_consts if hasattr(c, "co_name")}
    assert funcs["die_svg"] == next(i + 1 for i, line in enumerate(source.splitlines()) if line.startswith("def die_svg("))
    die_svg = next(c for c in code.co_consts if getattr(c, "co_name", "") == "die_svg")
    doc = ast_doc(source, "die_svg")
    assert doc and doc not in die_svg.co_consts


def ast_doc(source: str, func: str | None = None):
    import ast
    tree = ast.parse(source)
    if func:
        tree = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == func)
    return ast.get_docstring(tree, clean=False)


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


def test_pyscript_own_package_ships_compiled_against_what_it_writes():
    """The built start-up zip carries PyScript's own package compiled
    (``pyscript/__pycache__/``), each ``.pyc`` checked against the hash of
    the source PyScript writes beside it at every start (read from its
    vendored chunk, as PyScript carries it): Python imports it instead of
    compiling 30 kB, and a PyScript that writes other sources has them
    compiled as before. Nothing else of PyScript's is in the zip."""
    import _imp

    sys.path.insert(0, str(ROOT / ".ci"))
    from pycache import pyscript_sources

    built = ROOT / "static" / "pycache.zip"
    if not built.exists():
        pytest.fail("static/pycache.zip is missing: run `node .ci/precache.mjs`")
    z = zipfile.ZipFile(built)
    chunk = next((ROOT / "static/vendor/pyscript").glob("core-*.js")).read_text(encoding="utf-8")
    sources = pyscript_sources(chunk)
    ours = {n for n in z.namelist() if n.startswith("pyscript/")}
    assert len(sources) > 10 and len(ours) == len(sources)
    for name, text in sources.items():
        entry = next(n for n in ours if n.startswith(f"pyscript/__pycache__/{name[:-3]}.") and n.endswith(".pyc"))
        data = z.read(entry)
        assert int.from_bytes(data[4:8], "little") == 0b11, entry  # hash-based, checked
        assert data[8:16] == _imp.source_hash(int.from_bytes(data[:4], "little"), text.encode("utf-8")), entry
