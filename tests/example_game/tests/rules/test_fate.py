"""Fate dice (rules/fate): the worked example, and the exact odds proven
by a second route: every one of the 81 faces of a roll (and of an invoke)
played through the public contract (``rules.roll``, ``rules.advise``,
``rules.act`` with the dice forced), and best play against the two plain
policies (never invoke, always invoke)."""

from __future__ import annotations

import itertools
import math

import pytest

import rules
from rules.dice import ScriptedRng, SpecError

#: Every roll of four dice, as draws (a d6: 1-2 −, 3-4 0, 5-6 +): one draw
#: per face value, each standing for two faces of the six.
DRAWS = list(itertools.product((1, 3, 5), repeat=4))
SPECS = [{"skill": 2, "difficulty": 2}, {"skill": 0, "difficulty": 4}, {"skill": 7, "difficulty": 3},
         {"skill": 4, "difficulty": 5}]
RANK = {o: i for i, o in enumerate(rules.OUTCOMES["fate"])}


def _turns(spec: dict, policy) -> dict:
    """The outcome of the whole turn, each first roll and each invoke
    enumerated: {outcome: probability}. ``policy(result)`` says whether to invoke."""
    out: dict = {}
    for first in DRAWS:
        r = rules.roll("fate", spec, ScriptedRng(list(first)))
        if not policy(r):
            out[r["outcome"]] = out.get(r["outcome"], 0) + 1 / 81
            continue
        for again in DRAWS:
            r2 = rules.act("fate", spec, r, {"do": "invoke"}, ScriptedRng(list(again)), advise=False)
            out[r2["outcome"]] = out.get(r2["outcome"], 0) + 1 / 81 / 81
    return out


def _rank(dist: dict) -> float:
    return sum(RANK[o] * p for o, p in dist.items())


@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_the_odds_of_a_roll_are_its_81_faces(spec):
    o = rules.odds("fate", spec)
    assert o["exact"]
    plain = _turns(spec, lambda r: False)
    assert all(math.isclose(o["outcome"][k], plain.get(k, 0), abs_tol=1e-12) for k in o["outcome"])


@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_best_play_is_what_the_advice_plays_and_no_plain_policy_beats_it(spec):
    """``odds``' ``best`` is the turn played by ``rules.advise``; and it is
    worth at least as many rungs as never or always invoking."""
    best = rules.odds("fate", spec)["best"]["outcome"]
    advised = _turns(spec, lambda r: r["advice"] is not None)
    assert all(math.isclose(best[k], advised.get(k, 0), abs_tol=1e-12) for k in best)
    assert _rank(advised) >= _rank(_turns(spec, lambda r: False)) - 1e-12
    assert _rank(advised) >= _rank(_turns(spec, lambda r: True)) - 1e-12
    assert _rank(advised) > _rank(_turns(spec, lambda r: False))  # the invoke is worth taking somewhere


def test_the_invoke_is_once_a_roll():
    r = rules.roll("fate", {}, ScriptedRng([1, 1, 1, 1]))
    r = rules.act("fate", r["spec"], r, {"do": "invoke"}, ScriptedRng([6, 6, 6, 6]))
    assert r["value"] == 2 + 4 and r["allowed"] == [] and r["advice"] is None
    with pytest.raises(SpecError, match="spent"):
        rules.act("fate", r["spec"], r, {"do": "invoke"}, ScriptedRng([1, 1, 1, 1]))
    with pytest.raises(SpecError, match="spent"):
        rules.odds("fate", r["spec"], r, {"do": "invoke"})
