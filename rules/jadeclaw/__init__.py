"""Jadeclaw, in one folder: the system ``rules.MODULES`` registers.

- ``model``: the rules: the spec, the preparation of a side, Simple and
  Damage Rolls, the outcome and the odds.
- ``explain``: why a result came out as it did, in words (it reads the
  model; ``roll`` here adds its lines to each result).
"""

from __future__ import annotations

from . import explain, model
from .model import DEFAULT_SPEC, NAME, OUTCOMES, STEPS, TITLE, act, normalize, odds

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "STEPS", "normalize", "roll", "act", "odds"]


def roll(spec: dict, rng) -> dict:
    """``model.roll``, and why it came out so, in words (``explain``).

    >>> from rules.dice import ScriptedRng
    >>> spec = normalize({"dice": "d10 & d4", "difficulty": "routine"})
    >>> roll(spec, ScriptedRng([7, 2, 3, 4]))["explain"][-1]
    'Score 7 vs 4: ahead by 3, a Success.'
    """
    result = model.roll(spec, rng)
    result["explain"] = explain.explain(spec, result)
    result["allowed"] = []  # no step after a roll
    return result
