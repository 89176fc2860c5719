"""The shape every game system has: one module per system, checked against
``System`` when ``rules`` is imported, and every result it gives checked
by ``check_result``.

A sixth game is a module that declares these names and one line in
``rules/__init__.py``'s registry (DESIGN.md, "The rules contract";
docs/adding-a-game.md, the whole recipe)::

    NAME = "my_game"            # the key in rules.SYSTEMS, share links, history
    TITLE = "My Game"           # shown on its tab
    OUTCOMES = ("failure", "success")   # worst to best: the page colours by rank
    DEFAULT_SPEC = {...}        # the roll each form opens with
    STEPS = {"reroll": ("dice",)}       # each verb `act` takes, and its keys
                                        # besides "do"; {} for a game without steps

    def normalize(spec) -> dict: ...                  # validate, fill defaults
    def roll(spec, rng) -> dict: ...                  # spec is normalized
    def act(spec, result, action, rng) -> dict: ...   # a step after the roll
    def odds(spec, result=None, action=None) -> dict: ...

Every result that ``roll`` and ``act`` give carries ``allowed``: the
actions open now, each ``{"do": verb}`` with its ``"side"`` where the
system's steps take one (an opposed roll in which either side steps),
exactly those ``act`` accepts (with their arguments); ``[]`` once the turn
is over. ``rules.act`` refuses a verb outside ``STEPS`` and a key outside
its list (``check_action``, which each system's step calls too).

A game has its character sheet too, ``rules/<game>/sheet.py`` (``Sheet``,
docs/PARTY.md), checked by ``check_sheet``::

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

from .dice import SpecError

__all__ = ["System", "Sheet", "check", "check_action", "check_result", "check_sheet"]

#: What a system module declares (see the module docstring).
NAMES = ("NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "STEPS", "normalize", "roll", "act", "odds")


@runtime_checkable
class System(Protocol):
    """A game system module (see the module docstring)."""

    NAME: str
    TITLE: str
    OUTCOMES: tuple
    DEFAULT_SPEC: dict
    STEPS: dict

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
    TypeError: system 'x' lacks TITLE, OUTCOMES, DEFAULT_SPEC, STEPS, normalize, roll, act, odds
    """
    missing = _lacking(module, NAMES)
    if missing or not isinstance(module, System):
        raise TypeError(f"system {getattr(module, 'NAME', module)!r} lacks {', '.join(missing)}")
    if not (_names(module.OUTCOMES) and module.OUTCOMES):
        raise TypeError(f"system {module.NAME!r}: OUTCOMES must be a tuple of names, worst to best")
    if not _steps(module.STEPS):
        raise TypeError(f"system {module.NAME!r}: STEPS must map each verb (not 'roll') to a tuple of its keys")
    return module


def _lacking(module: Any, names: tuple) -> list:
    """The ones of ``names`` that ``module`` does not define, in order."""
    return [n for n in names if not hasattr(module, n)]


def _steps(steps: Any) -> bool:
    """A dict of verbs (not "roll"), each to a tuple of its keys."""
    return (isinstance(steps, dict) and _names(tuple(steps)) and "roll" not in steps
            and all(_names(keys) for keys in steps.values()))


def _names(value: Any) -> bool:
    """A tuple of strings."""
    return isinstance(value, tuple) and all(isinstance(v, str) for v in value)


def check_action(action: Any, steps: dict, title: str) -> dict:
    """``action`` if it names one of ``steps``' verbs (a system's ``STEPS``)
    with only that verb's keys, else a SpecError saying what the game
    takes: the one check of a step's shape, made by ``rules.act`` and by
    each system's own step, so a recorded stage is checked the same way
    when a result is rebuilt (the odds of a step may take more: Milhamah's
    ``{"do": "best"}`` asks for best play).

    >>> from rules import jadeclaw, mirage
    >>> check_action({"do": "pray", "dice": [0], "bonnus": 1}, mirage.STEPS, mirage.TITLE)
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: action: 'bonnus' is not part of 'pray', which takes dice, bonus, side
    >>> check_action({"do": "reroll"}, jadeclaw.STEPS, jadeclaw.TITLE)
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: action: Jadeclaw allows no step after a roll (got 'reroll')
    """
    if not isinstance(action, dict) or not isinstance(action.get("do"), str):
        raise SpecError("action", "must be an object with a 'do' verb")
    verb = action["do"]
    if verb not in steps:
        raise SpecError("action", f"{title} allows {_listed(steps, 'no step')} after a roll (got {verb[:30]!r})")
    _refuse_foreign_keys(action, verb, steps[verb])
    return action


def _refuse_foreign_keys(action: dict, verb: str, keys: tuple) -> None:
    """The first key of ``action`` that its verb does not take refused,
    naming those it does."""
    unknown = [k for k in action if k != "do" and k not in keys]
    if unknown:
        raise SpecError("action", f"{str(unknown[0])[:30]!r} is not part of {verb!r}, "
                        f"which takes {_listed(keys, 'nothing more')}")


def _listed(names, none: str) -> str:
    return ", ".join(names) or none


def check_result(module: Any, result: dict) -> dict:
    """``result`` if its ``allowed`` is a list of ``{"do": verb}`` (with a
    ``side`` string where one is given) naming the module's verbs, else a
    TypeError (a programming error of the system, not of the player).

    >>> from rules import alkemy
    >>> check_result(alkemy, {"allowed": [{"do": "keep", "side": "initiator"}]})["allowed"]
    [{'do': 'keep', 'side': 'initiator'}]
    >>> check_result(alkemy, {"allowed": ["keep"]})
    Traceback (most recent call last):
    ...
    TypeError: system 'alkemy': a result's allowed must list {"do": verb, "side"?} of its STEPS (got ['keep'])
    """
    allowed = result.get("allowed")
    if not (isinstance(allowed, list) and all(_open_action(module, a) for a in allowed)):
        raise TypeError(f"system {module.NAME!r}: a result's allowed must list "
                        f'{{"do": verb, "side"?}} of its STEPS (got {allowed!r:.60})')
    return result


def _open_action(module: Any, a: Any) -> bool:
    return (isinstance(a, dict) and a.get("do") in module.STEPS and set(a) <= {"do", "side"}
            and isinstance(a.get("side", ""), str))


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
    missing = _lacking(module, SHEET_NAMES)
    if missing or not isinstance(module, Sheet):
        raise TypeError(f"system {name!r}: its sheet lacks {', '.join(missing)}")
    if not module.EXAMPLE_SHEETS:
        raise TypeError(f"system {name!r}: EXAMPLE_SHEETS must hold at least one sheet")
    for sheet in module.EXAMPLE_SHEETS.values():
        module.normalize_sheet(sheet)  # an example the game refuses is a bug: it raises here
    return module
