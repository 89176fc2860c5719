"""Fate dice, in one folder: the system ``rules.MODULES`` registers.

- ``model``: the rules: the spec, the roll, the invoke after it, the
  outcome ladder, the odds and best play's advice.
"""

from __future__ import annotations

from .model import DEFAULT_SPEC, NAME, OUTCOMES, STEPS, TITLE, act, advise, normalize, odds, roll

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "STEPS", "normalize", "roll", "act", "odds", "advise"]
