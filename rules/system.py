"""The shape every game system has: one module per system, checked against
``System`` when ``rules`` is imported.

A sixth game is a module that declares these names and one line in
``rules/__init__.py``'s registry (DESIGN.md, "The rules contract")::

    NAME = "my_game"            # the key in rules.SYSTEMS, share links, history
    TITLE = "My Game"           # shown on its tab
    OUTCOMES = ("failure", "success")   # worst to best
    DEFAULT_SPEC = {...}        # the roll each form opens with

    def normalize(spec) -> dict: ...                  # validate, fill defaults
    def roll(spec, rng) -> dict: ...                  # spec is normalized
    def act(spec, result, action, rng) -> dict: ...   # a step after the roll
    def odds(spec, result=None, action=None) -> dict: ...

and its character sheet, ``rules/<game>/sheet.py`` (``Sheet``, README "The
party"), checked by ``check_sheet``::

    FIELDS = (...)              # the sheet's own fields (rules.sheets)
    SITUATION = (...)           # what a check's roll may change beside Roll
    EXAMPLE_SHEETS = {...}      # the rules text's characters
    OPPOSES = {...}             # optional: checks the text sets against each other
    def normalize_sheet(sheet) -> dict: ...
    def checks(sheet) -> list: ...              # each {"name", "label", "applied", "defaults", ...}
    def check_spec(sheet, check, situation, opponent) -> dict: ...
    def consequences(sheet, result, choice) -> dict: ...
    def pending(sheet, result) -> dict | None: ...

>>> from rules import milhamah
>>> check(milhamah) is milhamah
True
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["System", "Sheet", "check", "check_sheet"]


@runtime_checkable
class System(Protocol):
    """A game system module (see the module docstring)."""

    NAME: str
    TITLE: str
    OUTCOMES: tuple
    DEFAULT_SPEC: dict

    def normalize(self, spec: Any) -> dict: ...

    def roll(self, spec: dict, rng: Any) -> dict: ...

    def act(self, spec: dict, result: dict, action: dict, rng: Any) -> dict: ...

    def odds(self, spec: dict, result: dict | None = None, action: Any = None) -> dict: ...


def check(module: Any) -> Any:
    """The module itself if it has the shape of a ``System``, else a
    TypeError naming what it lacks (a programming error, caught at import).

    >>> import types
    >>> check(types.SimpleNamespace(NAME="x"))
    Traceback (most recent call last):
    ...
    TypeError: system 'x' lacks TITLE, OUTCOMES, DEFAULT_SPEC, normalize, roll, act, odds
    """
    missing = [n for n in ("NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "normalize", "roll", "act", "odds")
               if not hasattr(module, n)]
    if missing or not isinstance(module, System):
        raise TypeError(f"system {getattr(module, 'NAME', module)!r} lacks {', '.join(missing)}")
    if not (isinstance(module.OUTCOMES, tuple) and module.OUTCOMES
            and all(isinstance(o, str) for o in module.OUTCOMES)):
        raise TypeError(f"system {module.NAME!r}: OUTCOMES must be a tuple of names, worst to best")
    return module


#: What a game's sheet module declares (see the module docstring).
SHEET_NAMES = ("FIELDS", "SITUATION", "EXAMPLE_SHEETS", "normalize_sheet", "checks", "check_spec",
               "consequences", "pending")


@runtime_checkable
class Sheet(Protocol):
    """A game's sheet module, ``rules/<game>/sheet.py`` (module docstring)."""

    FIELDS: tuple
    SITUATION: tuple
    EXAMPLE_SHEETS: dict

    def normalize_sheet(self, sheet: Any) -> dict: ...

    def checks(self, sheet: dict) -> list: ...

    def check_spec(self, sheet: dict, check: dict, situation: dict, opponent: Any) -> dict: ...

    def consequences(self, sheet: dict, result: dict, choice: Any) -> dict: ...

    def pending(self, sheet: dict, result: dict) -> Any: ...


def check_sheet(system: Any, module: Any) -> Any:
    """The sheet module of ``system`` if it has the shape of a ``Sheet``
    and its examples are sheets of the game, else a TypeError naming what
    it lacks (a programming error, caught at import).

    >>> import types
    >>> check_sheet(types.SimpleNamespace(NAME="x"), None)
    Traceback (most recent call last):
    ...
    TypeError: system 'x' has no sheet: rules/x/sheet.py declaring FIELDS, SITUATION, EXAMPLE_SHEETS, normalize_sheet, checks, check_spec, consequences, pending
    >>> check_sheet(types.SimpleNamespace(NAME="x"), types.SimpleNamespace(FIELDS=(), EXAMPLE_SHEETS={}))
    Traceback (most recent call last):
    ...
    TypeError: system 'x': its sheet lacks SITUATION, normalize_sheet, checks, check_spec, consequences, pending
    """
    name = getattr(system, "NAME", system)
    if module is None:
        raise TypeError(f"system {name!r} has no sheet: rules/{name}/sheet.py declaring {', '.join(SHEET_NAMES)}")
    missing = [n for n in SHEET_NAMES if not hasattr(module, n)]
    if missing or not isinstance(module, Sheet):
        raise TypeError(f"system {name!r}: its sheet lacks {', '.join(missing)}")
    if not module.EXAMPLE_SHEETS:
        raise TypeError(f"system {name!r}: EXAMPLE_SHEETS must hold at least one sheet")
    for sheet in module.EXAMPLE_SHEETS.values():
        module.normalize_sheet(sheet)  # an example the game refuses is a bug: it raises here
    return module
