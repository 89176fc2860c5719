"""Open Tale has no decision after a roll (docs/RULES-DECISIONS.md,
"Decisions after a roll"): the tie break is chosen before rolling, the
Heroic Badge is spent before it, explosions are always taken. Through the
public contract: no step is allowed, ``rules.advise`` gives no advice and
no choices, and an explosion (the text's "The player can roll it again")
never lowers a score: every roll of a small spec, with the exploding die's
chain cut short, scores no more than the roll that takes it.
(That the ``target`` tie break is best play at a tie is proved in
tests/rules/test_open_tale_target.py.)
"""

from __future__ import annotations

from itertools import product

import pytest

import rules
from rules.dice import ScriptedRng, SpecError

SYSTEM = "open_tale"


@pytest.mark.parametrize("spec, draws", [
    ({"level": 1}, [3, 2]),
    ({"level": 1, "heroic": True, "modifiers": ["advantage"], "target": 9}, [4, 1, 2, 3, 1]),
], ids=["plain", "heroic-advantage-target"])
def test_no_step_no_advice(spec, draws):
    """Every verb is refused after a roll; the advice is None, the choices empty."""
    r = rules.roll(SYSTEM, spec, ScriptedRng(draws))
    assert r.get("advice") is None and not r.get("choices")
    assert rules.advise(SYSTEM, r["spec"], r) == {"advice": None, "choices": []}
    for verb in ("reroll", "accept", "explode", "tie_break"):
        with pytest.raises(SpecError):
            rules.act(SYSTEM, spec, r, {"do": verb}, ScriptedRng([]))


def test_an_explosion_only_adds():
    """Level 1 (d4 + d4) with the Heroic d4: every first roll; where a die
    shows its maximum, the score with the explosion (every next face) is
    the first faces' sum plus at least 1: taking the explosion is never
    worse than stopping."""
    for faces in product(range(1, 5), repeat=3):
        if 4 not in faces:
            r = rules.roll(SYSTEM, {"level": 1, "heroic": True}, ScriptedRng(list(faces)))
            assert r["value"] == sum(faces)
            continue
        draws, n = list(faces), sum(1 for f in faces if f == 4)
        for extra in product(range(1, 4), repeat=n):  # each exploding die's next face, below 4: it stops
            r = rules.roll(SYSTEM, {"level": 1, "heroic": True}, ScriptedRng(draws + list(extra)))
            assert r["value"] == sum(faces) + sum(extra) > sum(faces)
