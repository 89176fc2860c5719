"""Milhamah, in one folder: the system ``rules.MODULES`` registers.

- ``model``: the rules: the spec, the roll, the steps after it (rerolls,
  ciphers, the natural, stand, accept, the hit location) and the outcome.
- ``explain``: why a result came out as it did, in words.
- ``probability``: the odds and best play's advice; imported at its first
  use, not at start (docs/SPEED.md).
- ``dice.json``, ``roots.json``: the dice's faces and the common roots.
"""

from __future__ import annotations

from .model import DEFAULT_SPEC, NAME, OUTCOMES, TITLE, act, normalize, roll

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "normalize", "roll", "act", "odds", "advise"]


def advise(spec: dict, result: dict) -> dict:
    """Best play's advice for ``result`` (``rules.advise``): ``best_reroll``
    (and the opponent's), ``advice`` and ``choices`` (``probability.advise``;
    the state is rebuilt from the result's ``stages``).

    >>> from rules.dice import ScriptedRng
    >>> import rules
    >>> spec = normalize({"shoresh": "טכ", "pool": {"red": 2}, "rerolls": 1, "difficulty": 1})
    >>> r = rules.roll("milhamah", spec, ScriptedRng([1, 12]), advise=False)
    >>> a = advise(spec, r)
    >>> a["advice"], [c["action"]["do"] for c in a["choices"]]
    ({'do': 'reroll', 'dice': [1]}, ['reroll', 'accept'])
    """
    from . import probability
    return probability.advise(spec, result)


def odds(spec: dict, result: dict | None = None, action: dict | None = None) -> dict:
    """The odds of the roll, or of a step after it (``probability.odds``).

    >>> o = odds(normalize({"shoresh": "אשר", "pool": ["red", "green"], "rerolls": 3}))
    >>> round(sum(o["outcome"].values()), 9), o["exact"]
    (1.0, True)
    """
    from . import probability
    return probability.odds(spec, result, action)
