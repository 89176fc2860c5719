"""What goes into a memory snapshot of the page's Python, and what runs
after one is restored (docs/SPEED.md, "Returning visits").

A snapshot is a copy of the interpreter's memory, made on the device in a
throw-away Worker (static/js/snapshot-worker.mjs) and restored by
static/js/pyodide-snapshot.mjs instead of starting Python. It can hold only
pure Python state: no JavaScript object the page made (a snapshot refuses
them), so the DOM module ``main`` and PyScript's own modules are left out
and imported after the restore as on any start. The file system is not in
it: PyScript writes ``[files]`` again, and the stdlib zip is read again.

Three steps, each a function here so that CPython's tests can check them:

- ``plan()`` runs on the page after a normal start: which modules to import
  into the snapshot (the standard library modules the start imported, and
  every module of ours) and which files the Worker must write first.
- ``prepare()`` runs in the Worker: import them, and label the state.
- ``after_restore()`` runs on the page right after a restore, before
  PyScript: what a snapshot freezes and a start must not share.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import sys
from pathlib import Path

__all__ = ["plan", "prepare", "after_restore", "ours", "MADE_FOR", "LEFT_OUT"]

#: The page's Python folder (static/py), as [files] lays it out.
_PAGE = Path(__file__).resolve().parents[1]

#: Modules (and their submodules) never imported into a snapshot: the page's
#: DOM module, PyScript's and Pyodide's JavaScript bridges (they hold JS
#: objects), and the package installer.
LEFT_OUT = frozenset({
    "__main__", "main", "js", "pyodide_js", "pyscript", "_pyscript", "polyscript",
    "pyodide", "_pyodide", "micropip", "_pyodide_core",
    # imported when the page is idle or at first use, from their [files]
    # copies: left out, the heap stays under the 30 MiB a restore allows
    "fairrolls.fair", "fairrolls.fairview", "links.qr", "trust",
})

#: The key a snapshot was made for, set by ``prepare`` in the Worker; the
#: page compares it after a restore. Empty in an interpreter that was started.
MADE_FOR = ""


def _left_out(name: str) -> bool:
    """Whether ``name`` or a package it is in is ``LEFT_OUT``.

    >>> _left_out("pyodide.ffi"), _left_out("fairrolls.fair"), _left_out("fairrolls.fairpanel")
    (True, True, False)
    """
    parts = name.split(".")
    return any(".".join(parts[:i]) in LEFT_OUT for i in range(1, len(parts) + 1))


def ours(cwd: str, skip_files=("__pycache__",)) -> tuple[list[str], list[str]]:
    """The module names and the file paths of the page's own Python under
    ``cwd`` (what ``[files]`` wrote there), leaving out ``LEFT_OUT``. The
    names come largest source first: compiling a module takes room for its
    syntax tree, freed after, so the largest are compiled while the heap
    is emptiest and the rest fit in what they leave (the heap must not
    grow, see ``LEFT_OUT``).

    >>> names, files = ours(str(_PAGE))
    >>> "main" in names, "tabs.ui_milhamah" in names, str(_PAGE / "drawing" / "draw.py") in files
    (False, True, True)
    >>> names.index("tabs.ui_milhamah") < names.index("tabs.ui_open_tale") < names.index("tabs.tab")
    True
    >>> "fairrolls.fairpanel" in names, "fairrolls.fair" in names
    (True, False)
    """
    names: list[tuple[int, str]] = []
    files: list[str] = []
    for folder, dirs, found in os.walk(cwd):
        rel = os.path.relpath(folder, cwd)
        parts = [] if rel == "." else rel.split(os.sep)
        dirs[:] = sorted(d for d in dirs if d not in skip_files and not _left_out(".".join(parts + [d])))
        for f in sorted(found):
            files.append(os.path.join(folder, f))
            name = _module_name(parts, f)
            if name:
                names.append((-os.path.getsize(files[-1]), name))
    return [name for _, name in sorted(names)], files


def _module_name(parts: list[str], filename: str) -> str | None:
    """The dotted name a file in folder ``parts`` is imported by, if any.

    >>> _module_name(["rules"], "__init__.py"), _module_name(["rules"], "dice.py"), _module_name([], "a-b.py")
    ('rules', 'rules.dice', None)
    """
    stem, ext = os.path.splitext(filename)
    dotted = parts if stem == "__init__" else parts + [stem]
    if ext != ".py" or not dotted or _left_out(".".join(dotted)):
        return None
    return ".".join(dotted) if all(p.isidentifier() for p in dotted) else None


def _stdlib_roots() -> tuple[str, ...]:
    """Where the standard library lives: Pyodide's stdlib zip on sys.path
    (``/lib/python314.zip``), or CPython's ``lib/python3.x`` folder. Its
    ``site-packages`` (wheels, PyScript) is not the standard library."""
    zips = tuple(p + os.sep for p in sys.path if p.endswith(".zip") and os.path.isfile(p))
    return zips or (os.path.dirname(os.__file__) + os.sep,)


def _stdlib_modules(modules, roots) -> list[str]:
    names = []
    for name, module in list(modules.items()):
        if _left_out(name) or module is None:
            continue
        where = getattr(module, "__file__", None)
        if where is None:
            if name in sys.builtin_module_names:
                names.append(name)
        elif where.startswith(roots) and "site-packages" not in where:
            names.append(name)
    return names


def plan(cwd: str | None = None, modules=None, skip_files=("__pycache__",)) -> str:
    """JSON ``{"cwd", "modules", "files"}``: run on the page after a normal
    start. The standard library modules the start imported come first, in
    import order; then every module of ours (each tab's, not only the
    first, largest first), so a restored page imports nothing of ours at all.

    >>> p = json.loads(plan(cwd=str(_PAGE), modules={"json": json, "main": None}))
    >>> p["modules"][0], "main" in p["modules"], p["modules"][1]
    ('json', False, 'table.livetable')
    """
    cwd = cwd or os.getcwd()
    names, files = ours(cwd, skip_files)
    std = _stdlib_modules(sys.modules if modules is None else modules, _stdlib_roots())
    mine = set(names)
    return json.dumps({"cwd": cwd, "modules": [n for n in std if n not in mine] + names,
                       "files": files})


def prepare(modules_json: str, key: str) -> str:
    """In the Worker, after the files are written: import every module of
    the plan and label the state with ``key``; returns the JSON list of the
    names that could not be imported (left for the page to import).

    >>> prepare(json.dumps(["json", "no_such_module_here"]), "test-key")
    '["no_such_module_here"]'
    >>> after_restore()  # what a restore of this state would report
    'test-key'
    """
    global MADE_FOR
    failed = []
    for name in json.loads(modules_json):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 — a module that needs the page is imported there
            failed.append(name)
    MADE_FOR = key
    gc.collect()  # garbage left by the imports need not be copied on every start
    return json.dumps(failed)


def after_restore() -> str:
    """On the page, right after a restore and before PyScript: give this
    start its own state where the snapshot froze the one it was made with,
    and return the key the snapshot was made for.

    - ``random``'s module-level generator is seeded afresh (the snapshot
      froze its state, so every restore would draw the same numbers; the
      rolls themselves use ``random.SystemRandom``, which is unaffected).
    - ``time.tzset()``: the device's time zone now, not when it was made.
    - Each path finder's caches are invalidated: the file system is new;
      forget the directory listings cached in the snapshot. (This is
      ``importlib.invalidate_caches()`` without its last step, which imports
      ``importlib.metadata`` for the metadata finder of installed
      distributions: the page installs none, and its standard library
      leaves that package out.)
    - The start put ``""`` on ``sys.path`` a second time; one is enough.

    ``hash()``'s seed cannot be changed after Python starts: every restore
    of one snapshot shares it (it is still random per device and per
    snapshot, and nothing here depends on it).

    >>> import random
    >>> random.seed(1); a = random.random(); random.seed(1)
    >>> _ = after_restore(); random.random() != a
    True
    """
    import random
    import time

    random.seed()
    if hasattr(time, "tzset"):
        time.tzset()
    for finder in list(sys.path_importer_cache.values()):
        if hasattr(finder, "invalidate_caches"):
            finder.invalidate_caches()
    while sys.path.count("") > 1:
        sys.path.remove("")
    return MADE_FOR
