"""The odds a player reads are the odds the dice give (docs/TRUST.md, "The
odds are the dice's odds"): for specs of every system, many seeded rolls through ``rules.roll``
land on each value and outcome as often as ``rules.odds`` says, by the same
chi-square check as the fairness tests (``dicecheck.p_value``, flagged below
0.001; bins a fair sample would fill with fewer than 5 are merged). Seeded,
so the verdicts never change between runs. Milhamah's odds are of the whole
turn under its default reroll policy, so they are checked with no reroll
round (``rounds`` 0), where the first roll is the whole turn.
"""

from __future__ import annotations

import random

import pytest

import cases
import rules
from trust import dicecheck

ROLLS = 3000

#: Each game's specs (``cases.ODDS_SPECS``), in the registry's order.
CASES = [(system, spec) for system, specs in cases.every("ODDS_SPECS").items() for spec in specs]


def _merged(observed: dict, expected: dict) -> tuple[list, list]:
    """Bins in key order, neighbours merged until each expects >= 5."""
    obs, exp = [], []
    o_acc = e_acc = 0.0
    for k in sorted(expected, key=lambda x: (str(type(x)), x)):
        o_acc += observed.get(k, 0)
        e_acc += expected[k]
        if e_acc >= 5:
            obs.append(o_acc)
            exp.append(e_acc)
            o_acc = e_acc = 0.0
    if e_acc or o_acc:
        if exp:
            obs[-1] += o_acc
            exp[-1] += e_acc
        else:
            obs.append(o_acc)
            exp.append(e_acc)
    return obs, exp


def _p(observed: dict, probs: dict) -> float:
    expected = {k: p * ROLLS for k, p in probs.items() if p > 0}
    stray = [k for k in observed if k not in expected]
    assert not stray, f"rolled {stray}, which the odds give no chance"
    obs, exp = _merged(observed, expected)
    if len(obs) < 2:
        return 1.0
    return dicecheck.p_value(dicecheck.chi_square(obs, exp), len(obs) - 1)


def _plain(result: dict):
    return result["value"]


#: The number ``odds["value"]`` is about, read off a result
#: (``cases.rolled_value``; the result's value where a game has none).
VALUE_OF = cases.every("rolled_value", _plain)


@pytest.mark.parametrize("system, spec", CASES, ids=[f"{s}-{i}" for i, (s, _) in enumerate(CASES)])
def test_rolled_outcomes_and_values_follow_the_odds(system, spec):
    """3000 seeded rolls: outcomes and values as often as the odds say."""
    odds = rules.odds(system, spec)
    assert odds["exact"]
    rng = random.Random(sum(map(ord, system)) + len(str(spec)))
    outcomes: dict = {}
    values: dict = {}
    for _ in range(ROLLS):
        r = rules.roll(system, spec, rng)
        outcomes[r["outcome"]] = outcomes.get(r["outcome"], 0) + 1
        v = VALUE_OF[system](r)
        values[v] = values.get(v, 0) + 1
    assert _p(outcomes, odds["outcome"]) >= dicecheck.ALPHA, (outcomes, odds["outcome"])
    probs = dict(odds["value"])
    if isinstance(odds.get("tail"), dict) and odds["tail"]["p"] > 0:
        # Open Tale: scores past the bound are the tail's
        bound = odds["tail"]["above"]
        capped: dict = {}
        for v, c in values.items():
            capped[min(v, bound + 1)] = capped.get(min(v, bound + 1), 0) + c
        values = capped
        probs[bound + 1] = odds["tail"]["p"]
    assert _p(values, probs) >= dicecheck.ALPHA


def test_the_check_would_catch_wrong_odds():
    """A control: the same rolls against odds that are slightly off (a
    Jadeclaw d12's Botch at 1/10 instead of 1/12) fail the check."""
    rng = random.Random(3)
    outcomes: dict = {}
    for _ in range(ROLLS * 4):
        r = rules.roll("jadeclaw", {"dice": "d12"}, rng)
        outcomes[r["outcome"]] = outcomes.get(r["outcome"], 0) + 1
    wrong = {"botch": 1 / 10, "scored": 9 / 10}
    expected = {k: p * ROLLS * 4 for k, p in wrong.items()}
    obs, exp = _merged(outcomes, expected)
    assert dicecheck.p_value(dicecheck.chi_square(obs, exp), 1) < dicecheck.ALPHA
