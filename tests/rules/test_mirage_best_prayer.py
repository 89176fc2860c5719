"""Mirage's prayer played best (docs/RULES-DECISIONS.md, Mirage): ``best_prayer`` in a result and
the odds of the turn "with a prayer on a failure", proved through the
public contract only. Every choice of dice is priced by enumerating every
face the prayer draws through ``rules.act`` with ``ScriptedRng`` (the sizes
found by probing what ``act`` asks of its rng), never by the module's own
arithmetic; the turn's odds by enumerating every first roll through
``rules.roll`` as well; and by seeded played turns."""

from __future__ import annotations

import itertools
import json
import math
import random
from fractions import Fraction

import pytest

import rules
from rules.dice import ScriptedRng


class Probe:
    """An rng that shows 1 and notes the size of each die asked for."""

    def __init__(self):
        self.sizes = []

    def randint(self, a, b):
        self.sizes.append(b)
        return 1


def roll_sizes(spec):
    p = Probe()
    rules.roll("mirage", spec, p)
    return p.sizes


def pray_sizes(spec, result, action):
    p = Probe()
    rules.act("mirage", spec, result, action, p)
    return p.sizes


def every_roll(spec, faces_of=None):
    """Every first roll (or, with ``faces_of``, every roll on those faces):
    (result, its probability among every roll)."""
    sizes = roll_sizes(spec)
    ranges = [faces_of(s) if faces_of else range(1, s + 1) for s in sizes]
    for faces in itertools.product(*ranges):
        yield rules.roll("mirage", spec, ScriptedRng(list(faces))), Fraction(1, math.prod(sizes))


WINS = ("success", "success_with_bonus")


def prayer_score(spec, result, dice):
    """The criteria of a prayer with ``dice`` (``[]``: no prayer), by
    enumerating every face it draws: (P(success), -P(Condition), P(2+),
    expected value, -number of dice). The page's order of choices."""
    if not dice:
        return (Fraction(int(result["outcome"] in WINS)), 0,
                Fraction(int(result["outcome"] == "success_with_bonus")), Fraction(result["value"]), 0)
    action = {"do": "pray", "dice": list(dice)}
    sizes = pray_sizes(spec, result, action)
    n = math.prod(sizes)
    win = cond = two = value = 0
    for faces in itertools.product(*(range(1, s + 1) for s in sizes)):
        p = rules.act("mirage", spec, result, action, ScriptedRng(list(faces)))
        win += p["outcome"] in WINS
        two += p["outcome"] == "success_with_bonus"
        cond += p["condition_gained"] is not None
        value += p["value"]
    return Fraction(win, n), -Fraction(cond, n), Fraction(two, n), Fraction(value, n), -len(dice)


def every_choice(result):
    free = [i for i, d in enumerate(result["dice"]) if d["face"] != 1]
    return [list(c) for k in range(len(free) + 1) for c in itertools.combinations(free, k)]


OPTIMUM_CASES = [
    ({"attribute": 6, "skill": 6}, None),
    ({"attribute": 6, "skill": 6, "prayer_bonus": 1}, None),
    ({"attribute": 8, "skill": 6, "prayer_bonus": 2}, None),
    ({"attribute": 10, "skill": 0, "prayer_bonus": 2}, None),  # a lone die gains a d6
    ({"attribute": 6, "skill": 6, "prayer_bonus": 1, "opponent": {"attribute": 6}}, None),
    ({"attribute": 6, "skill": 6, "gear": [6], "prayer_bonus": 1}, (1, 2, 6)),
    ({"attribute": 10, "skill": 0, "gear": [8], "prayer_bonus": 2,
      "opponent": {"attribute": 6}}, (1, 2, 6, 10)),
]


@pytest.mark.parametrize("spec,faces", OPTIMUM_CASES, ids=[json.dumps(s) for s, _ in OPTIMUM_CASES])
def test_best_prayer_reaches_the_true_optimum(spec, faces):
    """For every first roll (on three dice, every roll on a few faces), the
    advised dice score exactly as well as the best of every set of dice not
    showing 1, none included, each priced by enumerating its prayer."""
    spec = rules.normalize("mirage", spec)
    faces_of = (lambda s: [f for f in faces if f <= s]) if faces else None
    seen = 0
    for r, _ in every_roll(spec, faces_of):
        scores = {tuple(c): prayer_score(spec, r, c) for c in every_choice(r)}
        assert prayer_score(spec, r, r["best_prayer"]) == max(scores.values()), r["dice"]
        seen += 1
    assert seen >= 9


TURN_SPECS = [
    {"attribute": 6, "skill": 6},
    {"attribute": 8, "skill": 6, "prayer_bonus": 2},
    {"attribute": 10, "skill": 0, "prayer_bonus": 1},
    {"attribute": 6, "skill": 0, "gear": [6], "prayer_bonus": 1, "conditions": {"physical": 3}},
    {"attribute": 6, "skill": 6, "opponent": {"attribute": 6}},
    {"attribute": 8, "skill": 0, "prayer_bonus": 2, "opponent": {"attribute": 8}},
]


def enumerated_turn(spec):
    """Every first roll; on a failure, or opposed a loss or a tie, the
    advised prayer with every face it draws: P(success), P(Condition)."""
    win = cond = Fraction(0)
    for r, p in every_roll(spec):
        if r["outcome"] in WINS:
            assert r["best_prayer"] == []  # a success stands: never pray on it
            win += p
            continue
        if not r["best_prayer"]:
            continue
        action = {"do": "pray", "dice": r["best_prayer"]}
        sizes = pray_sizes(spec, r, action)
        for faces in itertools.product(*(range(1, s + 1) for s in sizes)):
            t = rules.act("mirage", spec, r, action, ScriptedRng(list(faces)))
            q = p / math.prod(sizes)
            win += q * (t["outcome"] in WINS)
            cond += q * (t["condition_gained"] is not None)
    return win, cond


@pytest.mark.parametrize("spec", TURN_SPECS, ids=[json.dumps(s) for s in TURN_SPECS])
def test_odds_with_a_prayer_equal_the_enumerated_turn(spec):
    spec = rules.normalize("mirage", spec)
    o = rules.odds("mirage", spec)
    win, cond = enumerated_turn(spec)
    assert o["success_with_prayer"] == pytest.approx(float(win), abs=1e-12)
    assert o["condition_with_prayer"] == pytest.approx(float(cond), abs=1e-12)
    assert o["success_with_prayer"] > o["p_success"]  # the prayer is worth something here


def played(spec, n, seed):
    """Turns played by the advice with a seeded rng: successes, Conditions."""
    rng = random.Random(seed)
    wins = conds = 0
    for _ in range(n):
        r = rules.roll("mirage", spec, rng)
        if r["outcome"] not in WINS and r["best_prayer"]:
            r = rules.act("mirage", spec, r, {"do": "pray", "dice": r["best_prayer"]}, rng)
        wins += r["outcome"] in WINS
        conds += r["condition_gained"] is not None
    return wins / n, conds / n


@pytest.mark.parametrize("spec", [
    {"attribute": 10, "skill": 8, "gear": [6], "prayer_bonus": 1, "difficulty": "hard"},
    {"attribute": 12, "skill": 6, "gear": [8, 8], "prayer_bonus": 2,
     "opponent": {"attribute": 10, "skill": 10, "gear": [6]}},
], ids=["unopposed, gear, +1", "opposed, gear, +2"])
def test_played_turns_fit_the_odds_with_a_prayer(spec):
    """Seeded turns played by ``best_prayer`` (pray on a failure or a tie)
    land within four standard errors of the odds."""
    o = rules.odds("mirage", spec)
    n = 6000
    win, cond = played(rules.normalize("mirage", spec), n, seed=1313)
    for seen, p in ((win, o["success_with_prayer"]), (cond, o["condition_with_prayer"])):
        assert abs(seen - p) <= 4 * math.sqrt(p * (1 - p) / n) + 1e-9


def test_a_passive_roll_has_no_prayer_odds():
    o = rules.odds("mirage", {"attribute": 8, "skill": 6, "passive": True})
    assert o["success_with_prayer"] == o["p_success"] and o["condition_with_prayer"] == 0
    r = rules.roll("mirage", {"attribute": 8, "skill": 6, "passive": True}, ScriptedRng([2, 2]))
    assert "best_prayer" not in r


# --------------------------------------------------------------------------
# Worked cases.

def test_best_prayer_leaves_a_success_alone():
    """Opposed, tied 1-1, temple +2: the d10's 6 already counts. Rerolling
    the d6 alone (stepped twice, to a d10) wins half the time; rerolling
    both (d10 stepped to d12, the d6 to d8) wins less."""
    spec = rules.normalize("mirage", {"attribute": 10, "skill": 6, "prayer_bonus": 2,
                                      "opponent": {"attribute": 6}})
    r = rules.roll("mirage", spec, ScriptedRng([6, 3, 6]))
    assert r["outcome"] == "tie" and r["best_prayer"] == [1]
    assert prayer_score(spec, r, [1])[0] == Fraction(1, 2)
    assert prayer_score(spec, r, [0, 1])[0] < Fraction(1, 2)


def test_best_prayer_rerolls_a_success_when_only_two_win():
    """Opposed, tied 1-1, the d6 shows 1 and cannot be rerolled: only the
    d10 showing 6 can change the outcome. Stepped +2 it is a d12, whose
    10-12 gives two successes: a win one time in four, where keeping the
    roll never wins. Best play rerolls the success (the kept 1 costs a
    Condition either way)."""
    spec = rules.normalize("mirage", {"attribute": 10, "skill": 6, "prayer_bonus": 2,
                                      "opponent": {"attribute": 6}})
    r = rules.roll("mirage", spec, ScriptedRng([6, 1, 6]))
    assert r["outcome"] == "tie" and r["best_prayer"] == [0]
    assert pray_sizes(spec, r, {"do": "pray", "dice": [0]}) == [12]
    assert prayer_score(spec, r, [0])[:2] == (Fraction(1, 4), -1)


def test_unopposed_a_success_is_never_prayed_for():
    """Unopposed, a success stands at 100 % and risks no Condition: even
    where a reroll could reach 2+ successes, best play keeps the roll."""
    r = rules.roll("mirage", {"attribute": 10, "skill": 6, "prayer_bonus": 2}, ScriptedRng([6, 3]))
    assert r["outcome"] == "success" and r["best_prayer"] == []


def test_a_prayer_bonus_in_the_spec_is_the_prayers_default():
    """A pray action without a bonus takes the spec's ``prayer_bonus``;
    an older spec without one still means no bonus."""
    spec = {"attribute": 8, "skill": 6, "prayer_bonus": 2}
    r = rules.roll("mirage", spec, ScriptedRng([2, 3]))
    assert pray_sizes(spec, r, {"do": "pray", "dice": [0, 1]}) == [8, 10]
    old = rules.roll("mirage", {"attribute": 8, "skill": 6}, ScriptedRng([2, 3]))
    assert pray_sizes({"attribute": 8, "skill": 6}, old, {"do": "pray", "dice": [0, 1]}) == [8, 6]
