"""Jadeclaw has no decision after a roll (docs/RULES-DECISIONS.md,
"Decisions after a roll"), proved through the public contract: no step is
allowed, ``rules.advise`` gives no advice and no choices, and the one
"may" the text gives after the dice are down, the Favored re-roll of a 1,
is never worse for the side that takes it, so the rules always take it.
The proof enumerates every draw of small specs through ``rules.roll`` with
scripted dice, with and without Favored, and compares the same first faces.
"""

from __future__ import annotations

from itertools import product

import pytest

import rules
from rules.dice import ScriptedRng, SpecError

SYSTEM = "jadeclaw"
RANK = {o: i for i, o in enumerate(rules.OUTCOMES[SYSTEM])}


@pytest.mark.parametrize("spec, draws", [
    ({"dice": "d8 & d6", "opponent": "d10"}, [3, 1, 7]),
    ({"kind": "damage", "dice": "d8 & d6", "soak": "d6"}, [8, 2, 1]),
    ({"dice": "d6", "difficulty": "trivial", "favored": True}, [1, 4, 2]),
], ids=["contest", "damage", "favored-vs-difficulty"])
def test_no_step_no_advice(spec, draws):
    """Every verb is refused after a roll; the advice is None, the choices empty."""
    r = rules.roll(SYSTEM, spec, ScriptedRng(draws))
    assert r.get("advice") is None and not r.get("choices")
    assert rules.advise(SYSTEM, r["spec"], r) == {"advice": None, "choices": []}
    for verb in ("reroll", "accept", "favored", "keep"):
        with pytest.raises(SpecError):
            rules.act(SYSTEM, spec, r, {"do": verb}, ScriptedRng([]))


def _with_and_without(spec: dict, favored_key: str, mine: int, theirs: int, sides: list[int]):
    """For every first face of every die (the roller's ``mine`` dice, then
    ``theirs``) and every re-roll of the Favored 1: the result without
    Favored and with it, from the same first faces."""
    for faces in product(*(range(1, s + 1) for s in sides)):
        plain = rules.roll(SYSTEM, spec, ScriptedRng(list(faces)))
        group = faces[:mine] if favored_key in ("favored",) else faces[mine:mine + theirs]
        ones = [i for i, f in enumerate(group) if f == 1]
        if not ones:
            continue
        j = max(ones, key=lambda i: (sides[i if favored_key == "favored" else mine + i], -i))
        size = sides[j if favored_key == "favored" else mine + j]
        for again in range(1, size + 1):
            if favored_key == "favored":
                draws = list(faces[:mine]) + [again] + list(faces[mine:])
            else:
                draws = list(faces[:mine + theirs]) + [again] + list(faces[mine + theirs:])
            yield plain, rules.roll(SYSTEM, {**spec, favored_key: True}, ScriptedRng(draws))


def test_favored_reroll_never_worsens_a_simple_roll():
    """d8 & d4 against d6 & d4: whatever the dice, re-rolling the roller's
    1 never gives a worse outcome (botch ... overwhelming success) than
    keeping it; and sometimes a better one."""
    spec = {"dice": "d8 & d4", "opponent": "d6 & d4"}
    better = 0
    for plain, fav in _with_and_without(spec, "favored", 2, 2, [8, 4, 6, 4]):
        assert RANK[fav["outcome"]] >= RANK[plain["outcome"]], (plain["stages"], fav["stages"])
        better += RANK[fav["outcome"]] > RANK[plain["outcome"]]
    assert better > 0


def test_favored_reroll_never_lowers_damage_and_favored_soak_never_raises_it():
    """Damage d8 & d6 against soak d6 & d4: a Favored damage die's re-rolled
    1 never scores fewer hits; a Favored soak die's never lets more
    through (the all-1 Botch included)."""
    spec = {"kind": "damage", "dice": "d8 & d6", "soak": "d6 & d4"}
    sides = [8, 6, 6, 4]
    for plain, fav in _with_and_without(spec, "favored", 2, 2, sides):
        assert fav["value"] >= plain["value"]
    for plain, fav in _with_and_without(spec, "soak_favored", 2, 2, sides):
        assert fav["value"] <= plain["value"]
