"""Open Tale, in one folder: the system ``rules.MODULES`` registers.

- ``model``: the rules: the spec, the roll (the pair, the Heroic d4, the
  modifier's reroll, explosions), the score and its odds.
- ``explain``: why a result came out as it did, in words.
"""

from __future__ import annotations

from .model import DEFAULT_SPEC, NAME, OUTCOMES, STEPS, TITLE, act, normalize, odds, roll

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "STEPS", "normalize", "roll", "act", "odds"]
