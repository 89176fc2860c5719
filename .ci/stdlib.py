"""Run inside the vendored Pyodide by .ci/pycache.mjs: the page's own
standard library, ``static/stdlib.zip`` (docs/SPEED.md, "The page's
standard library").

Pyodide ships all of CPython's library as sources (``python_stdlib.zip``,
2.5 MB) and every start compiles, from source, each module it imports:
about 150 for Pyodide's own start alone. The page reaches about 200 of the
600. This zip holds those, and only those, compiled to bytecode: a first
visit downloads less, and no start (the page's, the odds Worker's, the
snapshot Worker's) compiles the standard library. ``loadPyodide`` takes it
as ``stdLibURL`` (static/js/pyodide-config.mjs, generated beside it).

What the page can reach (``reach``), from these roots:

- what Pyodide's own start imported (``sys.modules`` right after
  ``loadPyodide``, given by the caller); the rest of Pyodide's ``pyodide``
  package (its console, its Node socket transport, the FFI wrappers) only
  where something imports it: the page imports none of them;
- every import of the page's Python (``static/py``, ``rules``) and of
  PyScript's own package (read from its vendored chunk), at any depth, a
  literal ``importlib.import_module("name")`` too;
- the wheels the page ships (segno), from their top package: their
  modules' top-level imports, their own relative ones followed;
- ``RUNTIME``: what only running the page showed (an import made by name
  or by C code);
- and through the standard library, each module's top-level imports (an
  ``if __name__ == "__main__":`` block left out) and the packages it is in.
  An import inside a function of the standard library is followed only
  where ``RUNTIME`` names it: following them all would keep half the
  library (``urllib.request`` for a web browser, ``pdb`` for a doctest).

A module the page reaches that is missing here fails tests/ui/test_stdlib.py
(the page's own imports), the Pyodide suite (tests/pyodide_run.mjs runs the
rules and page tests on this zip) and the browser suites (the page and both
Workers start from it).

Each module is compiled by this Python (Pyodide's, the page's), as an
unchecked hash-based ``.pyc`` with no source beside it (a traceback through
the standard library names the file and line, without the line's text).
Docstrings are left out, as in the page's own bytecode (.ci/pycache.py),
except in Pyodide's packages, which read theirs (``_pyodide.docstring``).
"""

import ast
import importlib.util
import io
import os
import re
import zipfile

from pycache import pyscript_sources, strip_docstrings

#: Where loadPyodide writes the standard library zip it is given.
STDLIB = "/lib/python314.zip"

#: Modules the page imports only at run time, found by running it on this
#: zip (the Pyodide suite's import record and the browser suites): each
#: with who imports it.
RUNTIME = {
    # zipfile decodes a member name without the UTF-8 flag as cp437
    # (PyScript's [files] archives are unpacked by zipfile).
    "encodings.cp437": "zipfile, unpacking the page's [files] zips",
}

#: Packages whose docstrings are read at run time: compiled with them.
KEEP_DOCSTRINGS = ("pyodide", "_pyodide")


def stdlib_modules(archive: zipfile.ZipFile) -> dict:
    """Every module of the standard library zip: dotted name -> member."""
    out = {}
    for name in archive.namelist():
        if name.endswith(".py") and "site-packages/" not in name:
            dotted = name[:-3].replace("/", ".")
            out[dotted.removesuffix(".__init__")] = name
    return out


def _is_main_guard(node) -> bool:
    test = getattr(node, "test", None)
    return (isinstance(node, ast.If) and isinstance(test, ast.Compare)
            and isinstance(test.left, ast.Name) and test.left.id == "__name__")


def _top_level(tree):
    """The statements run when a module is imported: its body, and the
    bodies of its top-level ``if``/``try``/``with`` blocks and classes (an
    import in a class body runs at import: ``email.message`` imports
    ``email.iterators`` so); not a ``__main__`` block, not a function's."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        yield node
        if _is_main_guard(node):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            if (isinstance(node, (ast.If, ast.Try, ast.With, ast.ExceptHandler, ast.ClassDef))
                    or type(node).__name__ == "TryStar"):
                todo.extend(getattr(node, field, None) or [])


def imports_at(tree, package: str = "", anywhere: bool = True):
    """``(name, line)`` for each module ``tree`` imports (``from a import
    b`` names ``a`` and ``a.b``; a relative import is resolved against
    ``package``; ``import_module("x")`` with a literal name counts).
    ``anywhere``: in functions too, not only at import time."""
    for node in ast.walk(tree) if anywhere else _top_level(tree):
        if isinstance(node, ast.Import):
            yield from ((a.name, node.lineno) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(p for p in parts + [base] if p)
            if base:
                yield base, node.lineno
                yield from ((f"{base}.{a.name}", node.lineno) for a in node.names if a.name != "*")
        elif (anywhere and isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and getattr(node.func, "attr", getattr(node.func, "id", "")) in ("import_module", "__import__")):
            yield node.args[0].value, node.lineno


def imports(source, package: str = "", anywhere: bool = True) -> set:
    """The module names ``source`` imports (``imports_at``)."""
    return {name for name, _ in imports_at(ast.parse(source), package, anywhere)}


def _parents(name: str):
    parts = name.split(".")
    return (".".join(parts[:i]) for i in range(1, len(parts) + 1))


def reach(roots, archive: zipfile.ZipFile) -> set:
    """The standard library modules ``roots`` reach: the roots that are in
    it, the packages they are in, and what each imports at its top level."""
    modules = stdlib_modules(archive)
    seen, todo = set(), list(roots)
    while todo:
        for name in _parents(todo.pop()):
            if name in modules and name not in seen:
                seen.add(name)
                member = modules[name]
                package = name if member.endswith("__init__.py") else name.rpartition(".")[0]
                todo.extend(imports(archive.read(member), package, anywhere=False))
    return seen


def page_roots(folders) -> set:
    """Every import, anywhere, of the Python files under ``folders``."""
    found = set()
    for top in folders:
        for here, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for f in files:
                if f.endswith(".py"):
                    with open(os.path.join(here, f), "rb") as fh:
                        found |= imports(fh.read())
    return found


def wheel_roots(path: str) -> set:
    """What a pure-Python wheel's package imports when it is imported:
    its top-level imports, its own modules' followed."""
    with zipfile.ZipFile(path) as wheel:
        sources = {n[:-3].replace("/", ".").removesuffix(".__init__"): n
                   for n in wheel.namelist() if n.endswith(".py") and ".dist-info/" not in n}
        tops = {n.split(".")[0] for n in sources}
        found, seen, todo = set(), set(), sorted(tops)
        while todo:
            name = todo.pop()
            if name in seen or name not in sources:
                continue
            seen.add(name)
            package = name if sources[name].endswith("__init__.py") else name.rpartition(".")[0]
            for imported in imports(wheel.read(sources[name]), package, anywhere=False):
                if imported.split(".")[0] in tops:
                    todo.append(imported)
                else:
                    found.add(imported)
        return found


def keep(boot, folders, wheels, chunks, archive: zipfile.ZipFile) -> set:
    """The modules the page's standard library holds (see the docstring)."""
    modules = stdlib_modules(archive)
    roots = set(boot) | set(RUNTIME) | page_roots(folders)
    for path in wheels:
        roots |= wheel_roots(path)
    for chunk in chunks:
        for source in pyscript_sources(chunk).values():
            roots |= imports(source)
    return reach(roots, archive)


def compiled(name: str, member: str, source: bytes) -> bytes:
    """``source`` as an unchecked hash-based ``.pyc``, its code objects
    naming the file where the zip importer finds it."""
    tree = ast.parse(source, member)
    if name.split(".")[0] not in KEEP_DOCSTRINGS:
        tree = strip_docstrings(tree)
    code = compile(tree, f"{STDLIB}/{member}", "exec", dont_inherit=True)
    return importlib._bootstrap_external._code_to_hash_pyc(code, importlib.util.source_hash(source), False)


def build_stdlib(boot, folders, wheels, chunks, full=STDLIB) -> bytes:
    """The zip's bytes: each module ``keep`` names, compiled, at its place
    (``pkg/__init__.pyc``, ``mod.pyc``), deflated, in a fixed order with a
    fixed date, so the same inputs give the same bytes."""
    with zipfile.ZipFile(full) as archive:
        modules = stdlib_modules(archive)
        names = keep(boot, folders, wheels, chunks, archive)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as out:
            for name in sorted(names, key=modules.get):
                member = modules[name]
                info = zipfile.ZipInfo(member + "c", date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                out.writestr(info, compiled(name, member, archive.read(member)))
        return buf.getvalue()
