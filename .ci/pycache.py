"""Run inside the vendored Pyodide by .ci/pycache.mjs: the Python the page
imports before it is ready, as one zip of sources and their bytecode
(docs/SPEED.md).

Every page file is written into ``CWD`` first, where PyScript would write
it (so each code object names the file a traceback will show). The start
set is what ``main.py``'s top-level imports pull in of ours: their sources
ship in this zip, not as separate ``[files]`` entries (one fetch instead of
about 25, and deflated), each beside its compiled ``.pyc`` (docstrings left
out). What is imported or read later (fair rolls, the Milhamah best play,
the snapshot, the rules' data) ships as sources in a second zip
(``build_later``) and compiles at first use. Each ``.pyc``
is checked-hash: Python compares it with its source's hash and compiles the
source instead when they differ, so a stale ``.pyc`` costs time, never a
wrong module.
"""

import ast
import importlib
import importlib.util
import io
import json
import os
import re
import sys
import zipfile

CWD = "/home/pyodide"
#: The zip's comment: a restored interpreter, which has every module imported
#: already, skips an archive that ends with it (static/js/pyodide-snapshot.mjs).
COMMENT = b"dice-table bytecode"


def top_level_imports(path):
    """The module names ``path`` imports at its top level (``from pkg
    import mod`` names both ``pkg`` and, if it is a module, ``pkg.mod``)."""
    tree = ast.parse(open(path, "rb").read())
    for node in tree.body:
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
            yield from (f"{node.module}.{a.name}" for a in node.names)


def ours(name, cwd=CWD):
    """Whether ``name`` is a module of ours under ``cwd`` (a package's
    attribute, as in ``from pkg import NAME``, is not a module)."""
    path = f"{cwd}/{name.replace('.', '/')}"
    return os.path.exists(f"{path}.py") or os.path.exists(f"{path}/__init__.py")


def start_set(main_py, cwd=CWD):
    """The files of ours that importing ``main.py``'s imports loads."""
    sys.path.insert(0, cwd)
    for name in top_level_imports(main_py):
        if ours(name, cwd):
            importlib.import_module(name)
    files = (getattr(m, "__file__", None) or "" for m in list(sys.modules.values()))
    return sorted(f for f in files if f.startswith(cwd + os.sep) and f.endswith(".py"))


def strip_docstrings(tree):
    """``tree`` without its docstrings (a body that was only one keeps a
    ``pass``): the page never reads ``__doc__``, and they are a sixth of
    the bytecode a first visit downloads. Every other node keeps its line,
    so a traceback still points at the shipped source."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or not body:
            continue
        first = body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            body[0:1] = [] if len(body) > 1 else [ast.copy_location(ast.Pass(), first)]
    return tree


def compile_pyc(src, pyc):
    """``src``'s checked-hash ``.pyc`` at ``pyc``, compiled without docstrings,
    against the hash of the source as shipped."""
    data = open(src, "rb").read()
    code = compile(strip_docstrings(ast.parse(data, src)), src, "exec", dont_inherit=True)
    os.makedirs(os.path.dirname(pyc), exist_ok=True)
    with open(pyc, "wb") as f:
        f.write(importlib._bootstrap_external._code_to_hash_pyc(code, importlib.util.source_hash(data), True))


def page_files(cwd=CWD):
    """Every page file written under ``cwd`` (Python and data)."""
    for here, dirs, names in os.walk(cwd):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        yield from (os.path.join(here, n) for n in sorted(names) if n.endswith((".py", ".json")))


def _entry(z, path, cwd):
    info = zipfile.ZipInfo(os.path.relpath(path, cwd).replace(os.sep, "/"), date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    with open(path, "rb") as f:
        z.writestr(info, f.read())


def build_later(main_py, cwd=CWD):
    """The second zip's bytes: every page file the start does not import
    (fair rolls, the Milhamah best play, the snapshot's plan, the rules'
    data), sources only, deflated: one fetch instead of ten, about a third
    of their bytes. No mark: a restored start unpacks it too."""
    start = set(start_set(main_py, cwd))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for path in page_files(cwd):
            if path not in start:
                _entry(z, path, cwd)
    return buf.getvalue()


def pyscript_sources(chunk):
    """PyScript's own Python package, as its vendored chunk carries it
    (``"name.py": "<source>"`` string literals): file name -> source. PyScript
    writes it into the working directory (``pyscript/``) at every start."""
    return {m.group(1): json.loads('"' + m.group(2) + '"')
            for m in re.finditer(r'"(\w+\.py)":"((?:[^"\\]|\\.)*)"', chunk)}


def pyscript_bytecode(chunk, cwd=CWD):
    """``{zip path: .pyc bytes}`` of PyScript's own package, each checked
    against the hash of the source PyScript writes beside it: its start
    imports them compiled instead of compiling 30 kB of Python (a restored
    start too, which skips the rest of the zip). Another PyScript writes
    other sources, and they are compiled as before."""
    out = {}
    for name, text in sorted(pyscript_sources(chunk).items()):
        data = text.encode("utf-8")
        src = f"{cwd}/pyscript/{name}"
        code = compile(strip_docstrings(ast.parse(data, src)), src, "exec", dont_inherit=True)
        pyc = os.path.relpath(importlib.util.cache_from_source(src), cwd)
        out[pyc] = importlib._bootstrap_external._code_to_hash_pyc(code, importlib.util.source_hash(data), True)
    return out


def build(main_py, cwd=CWD, pyscript_chunk=None):
    """The zip's bytes: each start-set source at its place under ``cwd``,
    and ``__pycache__/<name>.cpython-3XX.pyc`` beside it, as PyScript
    unpacks it into ``cwd``; with ``pyscript_chunk`` (PyScript's vendored
    core chunk), its own package's bytecode too (``pyscript_bytecode``)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.comment = COMMENT
        for src in start_set(main_py, cwd):
            pyc = importlib.util.cache_from_source(src)
            compile_pyc(src, pyc)
            for path in (src, pyc):
                _entry(z, path, cwd)
        for path, data in (pyscript_bytecode(pyscript_chunk, cwd) if pyscript_chunk else {}).items():
            info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return buf.getvalue()
