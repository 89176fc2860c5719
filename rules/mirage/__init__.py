"""Mirage, in one folder: the system ``rules.MODULES`` registers.

- ``model``: the rules: the spec, the roll, prayer, tie-breaks and
  accepting the dice, the outcome, and the odds of a roll or a step.
- ``explain``: why a result came out as it did, in words.
- ``prayer``: the prayer played best: the odds of the turn with a prayer
  and best play's advice.
- ``tables.json``: the skills, the difficulties and the Conditions.
"""

from __future__ import annotations

from .model import DEFAULT_SPEC, NAME, OUTCOMES, STEPS, TITLE, act, normalize, roll
from .prayer import advise, odds

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "STEPS", "normalize", "roll", "act", "odds", "advise"]
