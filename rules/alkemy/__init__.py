"""ALKEMY, in one folder: the system ``rules.MODULES`` registers.

- ``model``: the rules: the spec, the roll (bonus and malus dice, the two
  kept), the steps after it, the outcome, the odds and best play's advice.
- ``explain``: why a result came out as it did, in words.
- ``faces.json``: the faces of each face set's dice.
"""

from __future__ import annotations

from .model import DEFAULT_SPEC, NAME, OUTCOMES, STEPS, TITLE, act, advise, normalize, odds, roll

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "STEPS", "normalize", "roll", "act", "odds", "advise"]
