"""Open Tale's tie break for a target (docs/RULES-DECISIONS.md, Open Tale): with a target score, a
player on a tie picks the die with the better chance to reach it, which is
not always the better expected score. Proved through ``rules.roll`` only:
every draw sequence is enumerated with a prefix rng (explosions cut at a
depth, their mass kept as a bound), never by the module's own arithmetic."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

import rules


class Branch(Exception):
    def __init__(self, sides):
        self.sides = sides


class PrefixRng:
    """Draws the given faces, then asks for a branch on the next die."""

    def __init__(self, prefix):
        self.prefix, self.pos = prefix, 0

    def randint(self, a, b):
        if self.pos >= len(self.prefix):
            raise Branch(b)
        self.pos += 1
        return self.prefix[self.pos - 1]


def chance(spec, prefix=(), depth=9):
    """P(success) of the roll given its first draws ``prefix``, by every
    later draw: (lower, upper) bounds, the cut mass counted as failure or
    success."""
    low = high = Fraction(0)
    stack = [(list(prefix), Fraction(1))]
    while stack:
        faces, p = stack.pop()
        try:
            r = rules.roll("open_tale", spec, PrefixRng(faces))
        except Branch as b:
            if len(faces) >= len(prefix) + depth:
                high += p
                continue
            stack += [(faces + [f], p / b.sides) for f in range(1, b.sides + 1)]
            continue
        low += p * (r["outcome"] == "success")
        high += p * (r["outcome"] == "success")
    return low, high


BASE = {"level": 2, "dice": [6, 4], "modifiers": ["disadvantage"], "target": 7}


def test_the_target_tie_break_differs_from_the_expected_score():
    """Disadvantage rerolls the highest die; a d6 and a d4 both show 1.
    For a score of 7 the d6's reroll reaches it only with its 6 (1/6); the
    d4's needs a 4 and an explosion of 2+ (3/16). ``best`` (the better
    expected score) rerolls the d6; ``target`` the d4."""
    want = {}
    for tie in ("best", "target"):
        r = rules.roll("open_tale", {**BASE, "tie_break": tie}, rules.ScriptedRng([1, 1, 2]))
        want[tie] = r["reroll"]["die"]
        want[tie, "p"] = chance({**BASE, "tie_break": tie}, [1, 1], depth=16)
    assert want["best"] == 0 and want["target"] == 1
    assert want["best", "p"][1] <= Fraction(1, 6) + Fraction(1, 10**6)
    assert want["target", "p"][0] >= Fraction(3, 16) - Fraction(1, 10**6)
    assert "better chance to reach the target of 7" in " ".join(
        rules.roll("open_tale", {**BASE, "tie_break": "target"}, rules.ScriptedRng([1, 1, 2]))["explain"])


CASES = [
    (BASE, [7, 8, 9, 10]),
    ({"level": 5, "dice": [10, 6], "modifiers": ["advantage"]}, [9, 14, 17]),
    ({"level": 3, "dice": [8, 4], "heroic": True, "modifiers": ["inferiority"]}, [8, 12]),
]


@pytest.mark.parametrize("spec,targets", CASES, ids=["d6 d4 disadvantage", "d10 d6 advantage", "d8 d4 + d4 inferiority"])
def test_target_picks_the_best_chance_on_every_tie(spec, targets):
    """On every first roll that ties dice of different sizes, the die
    ``target`` rerolls reaches the target at least as often as either
    other choice (``larger``, ``smaller``), each enumerated through roll."""
    sizes = spec["dice"] + ([4] if spec.get("heroic") else [])
    seen = 0
    for target in targets:
        for first in _ties(spec, sizes, target):
            got = chance({**spec, "target": target, "tie_break": "target"}, first, depth=5)
            for other in ("larger", "smaller"):
                alt = chance({**spec, "target": target, "tie_break": other}, first, depth=5)
                assert got[1] >= alt[0], (target, first, other)
            seen += 1
    assert seen >= 4


def _ties(spec, sizes, target):
    """The first faces whose modifier's choice is a tie between dice of
    different sizes (read from the result's ``reroll``)."""
    rng = random.Random(len(sizes) * 100 + target)
    out = []
    for _ in range(400):
        faces = [rng.randint(1, s) for s in sizes]
        r = rules.roll("open_tale", {**spec, "target": target, "tie_break": "target"},
                       rules.ScriptedRng(faces + [1] * 40))
        tied = r["reroll"]["tied"] if r["reroll"] else []
        if len({sizes[i] for i in tied}) > 1 and faces not in out:
            out.append(faces)
    return out[:4]


@pytest.mark.parametrize("target", [7, 9])
def test_odds_with_the_target_tie_break_equal_the_enumerated_roll(target):
    """``rules.odds`` with ``target``: P(success) within the bounds of
    enumerating every draw sequence through roll."""
    spec = {**BASE, "target": target, "tie_break": "target"}
    low, high = chance(spec, depth=16)
    p = rules.odds("open_tale", spec)["at_least"]
    assert float(low) - 1e-12 <= p <= float(high) + 1e-12 and high - low < Fraction(1, 10**4)
    assert p > rules.odds("open_tale", {**spec, "tie_break": "best"})["at_least"]


def test_played_rolls_fit_the_target_odds():
    spec = {"level": 4, "dice": [10, 4], "heroic": True, "modifiers": ["disadvantage"], "target": 12,
            "tie_break": "target"}
    p = rules.odds("open_tale", spec)["at_least"]
    rng = random.Random(2024)
    n = 8000
    seen = sum(rules.roll("open_tale", spec, rng)["outcome"] == "success" for _ in range(n)) / n
    assert abs(seen - p) <= 4 * (p * (1 - p) / n) ** 0.5


def test_old_specs_keep_their_tie_break():
    """A spec that names ``best`` with a target (an old link) still rolls
    and prices ``best``; no target, ``target`` is ``best``."""
    old = rules.roll("open_tale", {**BASE, "tie_break": "best"}, rules.ScriptedRng([1, 1, 2]))
    assert old["spec"]["tie_break"] == "best" and old["reroll"]["die"] == 0
    free = {"level": 2, "dice": [6, 4], "modifiers": ["disadvantage"]}
    assert (rules.odds("open_tale", {**free, "tie_break": "target"})["value"]
            == rules.odds("open_tale", {**free, "tie_break": "best"})["value"])
