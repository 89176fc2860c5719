"""The page's own standard library (static/stdlib.zip, built by
.ci/stdlib.py at set-up; docs/SPEED.md, "The page's standard library"):
every module the page's Python, PyScript's own package and the wheels the
page ships can reach through their imports is in it, compiled; what nothing
reaches is not. (What is imported only at run time is checked by running:
the Pyodide suite on this zip, the browser suites.)"""

from __future__ import annotations

import ast
import re
import sys
import zipfile
from pathlib import Path

import pytest

if sys.platform == "emscripten":  # tests/pyodide_run.mjs copies no .ci/ nor static/vendor/
    pytest.skip("reads the vendored files", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
WHOLE = ROOT / "static" / "vendor" / "pyodide" / "python_stdlib.zip"
TRIMMED = ROOT / "static" / "stdlib.zip"
sys.path.insert(0, str(ROOT / ".ci"))
import stdlib  # noqa: E402  (.ci/stdlib.py: its RUNTIME list and its readers of sources)

#: An import statement at the start of a line (``indent``, ``from`` part,
#: its names, or ``import``'s names): for the few standard library files
#: this Python cannot parse (newer syntax), their unindented imports.
IMPORT_LINE = re.compile(r"^(?:from[ \t]+([\w.]+)[ \t]+import[ \t]+\(?([\w, \t]+)|import[ \t]+([\w., \t]+))", re.M)


@pytest.fixture(scope="module")
def zips():
    if not TRIMMED.exists():
        pytest.fail("static/stdlib.zip is missing: run `node .ci/precache.mjs` (bash .ci/dev does)")
    whole = zipfile.ZipFile(WHOLE)
    held = {n[:-4].replace("/", ".").removesuffix(".__init__") for n in zipfile.ZipFile(TRIMMED).namelist()}
    return whole, stdlib.stdlib_modules(whole), held


def top_level_imports(source: bytes, package: str) -> set:
    try:
        return stdlib.imports(source, package, anywhere=False)
    except SyntaxError:
        found = set()
        for frm, names, plain in IMPORT_LINE.findall(source.decode("utf-8")):
            if frm:
                found |= {frm} | {f"{frm}.{n.strip().split()[0]}" for n in names.split(",") if n.strip()}
            else:
                found |= {n.strip().split()[0] for n in plain.split(",") if n.strip()}
        return found


def closure(roots, whole, modules) -> dict:
    """Each standard library module ``roots`` reach -> the root it was reached from."""
    seen, todo = {}, [(r, r) for r in roots]
    while todo:
        name, root = todo.pop()
        parts = name.split(".")
        for parent in (".".join(parts[:i]) for i in range(1, len(parts) + 1)):
            if parent in modules and parent not in seen:
                seen[parent] = root
                member = modules[parent]
                package = parent if member.endswith("__init__.py") else parent.rpartition(".")[0]
                todo += [(m, root) for m in top_level_imports(whole.read(member), package)]
    return seen


def page_imports() -> dict:
    """Every import of the page's Python (static/py, rules), anywhere in a
    file -> where (file:line)."""
    found = {}
    for top in ("static/py", "rules"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if "__pycache__" not in path.parts:
                for name, line in stdlib.imports_at(ast.parse(path.read_bytes())):
                    found.setdefault(name, f"{path.relative_to(ROOT)}:{line}")
    return found


def missing(roots: dict, whole, modules, held) -> list:
    reached = closure(roots, whole, modules)
    return sorted(f"{name} (reached from {roots[root]})" for name, root in reached.items() if name not in held)


def test_every_import_of_the_page_is_in_its_standard_library(zips):
    """Each module the page's Python imports (in a function too, or by
    ``import_module("name")``), and all they import when imported, is in
    the zip. A new import fails here until the zip is built again (it is
    at set-up; a module only a function of the standard library imports
    goes into ``RUNTIME``)."""
    whole, modules, held = zips
    roots = page_imports()
    assert {"fractions", "json", "hashlib", "secrets", "base64", "pickle", "ipaddress"} <= set(roots)
    assert not missing(roots, whole, modules, held)


def test_pyscript_and_the_page_wheels_find_their_modules(zips):
    """PyScript's own package (read from its vendored chunk, as the build
    reads it) and the QR wheel's modules: what they import is in the zip."""
    whole, modules, held = zips
    chunk = next((ROOT / "static/vendor/pyscript").glob("core-*.js")).read_text(encoding="utf-8")
    sources = stdlib.pyscript_sources(chunk)  # pycache.py's, imported there
    assert {"__init__.py", "display.py", "events.py", "web.py"} <= set(sources)
    roots = {}
    for name, source in sources.items():
        roots.update({m: f"PyScript's {name}" for m in stdlib.imports(source)})
    for wheel in (ROOT / "static/vendor/wheels").glob("*.whl"):
        roots.update({m: wheel.name for m in stdlib.wheel_roots(str(wheel))})
    assert {"json", "base64", "xml.sax.saxutils"} <= set(roots)
    assert not missing(roots, whole, modules, held)


def test_the_runtime_list_names_modules_the_zip_holds(zips):
    """Each module only running the page showed is a real one, and in."""
    whole, modules, held = zips
    assert stdlib.RUNTIME and all(name in modules and name in held for name in stdlib.RUNTIME)


def test_what_nothing_reaches_is_left_out(zips):
    """The zip holds what is reached, not what a function or a
    ``__main__`` block might import: no test or debugging tools, no
    editors, no servers; about a third of the library's modules."""
    whole, modules, held = zips
    assert not held & {"pdb", "doctest", "unittest", "pydoc", "tkinter", "idlelib", "http.server", "sqlite3",
                       "turtle", "_pyrepl", "argparse", "difflib", "tarfile", "statistics", "decimal"}
    assert held <= set(modules)
    assert len(held) < len(modules) / 2


def test_the_zip_is_bytecode_with_no_sources(zips):
    """Each member is a module's ``.pyc`` (unchecked hash-based: there is
    no source beside it to check), stored where the zip importer looks."""
    whole, modules, held = zips
    trimmed = zipfile.ZipFile(TRIMMED)
    members = trimmed.namelist()
    assert all(n.endswith(".pyc") for n in members)
    assert {n[:-1] for n in members} <= set(modules.values())
    for name in ("typing.pyc", "asyncio/__init__.pyc", "pyodide/__init__.pyc"):
        data = trimmed.read(name)
        assert int.from_bytes(data[4:8], "little") == 0b01, name
