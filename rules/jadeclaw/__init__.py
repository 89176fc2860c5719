"""Jadeclaw, in one folder: the system ``rules.MODULES`` registers.

- ``model``: the rules: the spec, the preparation of a side, Simple and
  Damage Rolls, the outcome and the odds.
- ``explain``: why a result came out as it did, in words.
"""

from __future__ import annotations

from .model import DEFAULT_SPEC, NAME, OUTCOMES, TITLE, act, normalize, odds, roll

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "normalize", "roll", "act", "odds"]
