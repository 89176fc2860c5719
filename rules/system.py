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

>>> from rules import milhamah
>>> check(milhamah) is milhamah
True
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["System", "check"]


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
