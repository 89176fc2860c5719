"""Run inside the vendored Pyodide by .ci/pycache.mjs: the Python the page
imports before it is ready, as one zip of sources and their bytecode
(README "Speed").

Every page file is written into ``CWD`` first, where PyScript would write
it (so each code object names the file a traceback will show). The start
set is what ``main.py``'s top-level imports pull in of ours: their sources
ship in this zip, not as separate ``[files]`` entries (one fetch instead of
about 25, and deflated), each beside its compiled ``.pyc``. A module
imported later (fair rolls, the Milhamah best play, the snapshot) and the
data files stay ``[files]`` entries and compile at first use. Each ``.pyc``
is checked-hash: Python compares it with its source's hash and compiles the
source instead when they differ, so a stale ``.pyc`` costs time, never a
wrong module.
"""

import ast
import importlib
import importlib.util
import io
import os
import py_compile
import sys
import zipfile

CWD = "/home/pyodide"
#: The zip's comment: a restored interpreter, which has every module imported
#: already, skips an archive that ends with it (static/js/pyodide-snapshot.mjs).
COMMENT = b"dice-table bytecode"


def top_level_imports(path):
    """The module names ``path`` imports at its top level."""
    tree = ast.parse(open(path, "rb").read())
    for node in tree.body:
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module


def ours(name, cwd=CWD):
    top = name.split(".", 1)[0]
    return os.path.exists(f"{cwd}/{top}.py") or os.path.exists(f"{cwd}/{top}/__init__.py")


def start_set(main_py, cwd=CWD):
    """The files of ours that importing ``main.py``'s imports loads."""
    sys.path.insert(0, cwd)
    for name in top_level_imports(main_py):
        if ours(name, cwd):
            importlib.import_module(name)
    files = (getattr(m, "__file__", None) or "" for m in list(sys.modules.values()))
    return sorted(f for f in files if f.startswith(cwd + os.sep) and f.endswith(".py"))


def build(main_py, cwd=CWD):
    """The zip's bytes: each start-set source at its place under ``cwd``,
    and ``__pycache__/<name>.cpython-3XX.pyc`` beside it, as PyScript
    unpacks it into ``cwd``."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.comment = COMMENT
        for src in start_set(main_py, cwd):
            pyc = importlib.util.cache_from_source(src)
            py_compile.compile(src, cfile=pyc, dfile=src, doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
            for path in (src, pyc):
                info = zipfile.ZipInfo(os.path.relpath(path, cwd).replace(os.sep, "/"), date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                with open(path, "rb") as f:
                    z.writestr(info, f.read())
    return buf.getvalue()
