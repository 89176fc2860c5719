"""The house rules of ``rules/`` and of the page (``static/py``): their
modules talk through named public functions and the result dict, and their
imports run one way.

- No module of ours uses another's private name: no
  ``from rules.x import _name`` (relative or absolute) and no ``x._name`` on
  a module it imported.
- No import circle among our modules, counting imports inside
  functions too (an import moved into a function still makes a circle).

Read from the source (``ast``), so a new module is checked as soon as it
exists.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rules"
#: The page's Python: its folder is the interpreter's working directory, so
#: ``static/py/shell/page.py`` is the module ``shell.page``.
PAGE = ROOT / "static" / "py"


def module_name(path: Path) -> str:
    """``rules/milhamah/model.py`` -> ``rules.milhamah.model``;
    ``static/py/shell/page.py`` -> ``shell.page``."""
    base = PAGE if PAGE in path.parents else ROOT
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    found = sorted(RULES.rglob("*.py")) + sorted(PAGE.rglob("*.py"))
    return {module_name(p): p for p in found if "__pycache__" not in p.parts}


MODULES = modules()


def package_of(name: str) -> str:
    return name if MODULES[name].name == "__init__.py" else name.rsplit(".", 1)[0]


def resolve(importer: str, node: ast.ImportFrom) -> str:
    """The absolute module an ``ImportFrom`` names (``from ..dice`` in
    ``rules.milhamah.model`` -> ``rules.dice``)."""
    if not node.level:
        return node.module or ""
    base = package_of(importer).split(".")
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(name: str) -> list[tuple[str, str | None, str | None]]:
    """Each import of module ``name``, anywhere in it: (the module
    imported, the name taken from it or None, the local name bound)."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, None, a.asname or a.name.split(".")[0]) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = resolve(name, node)
            for a in node.names:
                sub = f"{source}.{a.name}"
                if sub in MODULES:  # ``from . import model``: the submodule itself
                    out.append((sub, None, a.asname or a.name))
                else:
                    out.append((source, a.name, a.asname or a.name))
    return out


def private(name: str | None) -> bool:
    return bool(name) and name.startswith("_") and not name.startswith("__")


def private_uses(name: str) -> list[str]:
    """The private names of other modules of ours that module ``name`` uses."""
    found = []
    aliases = {}
    for source, taken, local in imports(name):
        if source not in MODULES or source == name:
            continue
        if taken is None:
            aliases[local] = source
        elif private(taken):
            found.append(f"from {source} import {taken}")
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in aliases and private(node.attr)):
            found.append(f"{aliases[node.value.id]}.{node.attr} (as {node.value.id}.{node.attr})")
    return found


def graph() -> dict[str, set[str]]:
    """Module -> the modules of ours it imports (a name taken from a
    package counts as importing the package)."""
    return {name: {source for source, _t, _l in imports(name) if source in MODULES and source != name}
            for name in MODULES}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One circle through each module that lies on one (depth-first)."""
    found, state = [], {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                found.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for start in sorted(edges):
        if start not in state:
            visit(start, [start])
    return found


def test_the_checks_see_every_game_folder():
    """The checks read the game packages too, not only rules/'s top level,
    and the page's folders."""
    assert {"rules", "rules.dice", "rules.milhamah", "rules.milhamah.model", "rules.mirage.prayer"} <= set(MODULES)
    assert "rules.dice" in graph()["rules.milhamah.model"]
    assert {"main", "shell.page", "tabs.ui_mirage", "fairrolls.fair", "table.livetable"} <= set(MODULES)
    assert "shell.page" in graph()["tabs.forms"]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_uses_another_modules_private_names(name):
    assert private_uses(name) == []


def test_no_import_circle_among_our_modules():
    assert cycles(graph()) == []


def test_the_checks_catch_what_they_look_for():
    """The cycle finder and the private-name reader find what they must."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    assert private("_x") and not private("__all__") and not private("x")
