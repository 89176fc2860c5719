"""ALKEMY best play, proved by a second route: every reachable
decision point of small specs is walked through the public contract only
(``rules.roll`` and ``rules.act`` with scripted dice, every draw, every
allowed action); at each one the test prices every action by its own
enumeration, under ALKEMY's objective (docs/RULES-DECISIONS.md, Decisions
after a roll), and checks
``advice`` and each entry of ``choices`` against it. A played sample of
turns that always take the advice matches the roll's odds.

The objective, as docs/RULES-DECISIONS.md states it: the side to choose (the initiator
while it may, then the opponent) maximises its chance to win, then to stay
tied at the reroll cap rather than lose, then keeps the pair as it lies,
then the higher total, then the lowest dice; the other side, while it may
still choose and the round was not rerolled, answers with its own best
choice by the same objective.
"""

from __future__ import annotations

import random
import sys
from fractions import Fraction
from itertools import combinations

import pytest

import rules
from rules.dice import ScriptedRng, SpecError

SYSTEM = "alkemy"
SIDES = ("initiator", "opponent")
#: Under Pyodide (the same rules, run again in Node) the walks take seeded
#: samples a sixth the size: the whole suite there has one time limit.
SHARE = 6 if sys.platform == "emscripten" else 1


class _Need(Exception):
    """The act asked for a draw past the scripted prefix."""

    def __init__(self, sides: int):
        self.sides = sides


class _Prefix:
    """Dice that follow a prefix of draws and stop at the first die past it."""

    def __init__(self, prefix: list[int]):
        self.prefix, self.pos, self.p = prefix, 0, Fraction(1)

    def randint(self, a, b):
        if self.pos == len(self.prefix):
            raise _Need(b)
        self.pos += 1
        self.p /= b - a + 1
        return self.prefix[self.pos - 1]


def every_draw(fn) -> list[tuple[Fraction, dict]]:
    """(probability, result) of ``fn(rng)`` over every sequence of draws it
    can take, each die enumerated face by face."""
    out, stack = [], [[]]
    while stack:
        prefix = stack.pop()
        rng = _Prefix(prefix)
        try:
            res = fn(rng)
            out.append((rng.p, res))
        except _Need as need:
            stack.extend(prefix + [k] for k in range(1, need.sides + 1))
    assert sum(p for p, _ in out) == 1
    return out


def hand(result: dict, side: str) -> dict:
    return result if side == "initiator" else result["opponent"]


def open_sides(result: dict) -> list[str]:
    """The sides the result says may still choose (its public flags)."""
    sides = SIDES if result["mode"] == "opposed" else SIDES[:1]
    return [s for s in sides if hand(result, s)["choice"]]


def allowed(result: dict, side: str) -> list[dict]:
    """Every action the rules allow this side now: accept, or keep any other pair."""
    h = hand(result, side)
    pairs = [list(p) for p in combinations(range(len(h["dice"])), 2) if list(p) != h["kept"]]
    return [{"do": "accept", "side": side}] + [{"do": "keep", "dice": p, "side": side} for p in pairs]


def outcome_of(result: dict) -> dict:
    return {o: Fraction(int(result["outcome"] == o)) for o in rules.OUTCOMES[SYSTEM]}


def mix(parts: list[tuple[Fraction, dict]]) -> dict:
    out = {o: Fraction(0) for o in rules.OUTCOMES[SYSTEM]}
    for p, dist in parts:
        for o, q in dist.items():
            out[o] += p * q
    return out


def rank(side: str, result: dict, action: dict, dist: dict) -> tuple:
    """The objective for ``side``, best highest."""
    mine = dist["success"] if side == "initiator" else dist["failure"]
    h = hand(result, side)
    pair = h["kept"] if action["do"] == "accept" else action["dice"]
    total = sum(h["dice"][i]["face"] for i in pair)
    return (mine, dist["tie"], action["do"] == "accept", total, [-i for i in pair])


def best_answer(spec: dict, result: dict, side: str) -> dict:
    """The outcome after ``side`` answers with its best choice (no further answer)."""
    scored = []
    for a in allowed(result, side):
        dist = mix([(p, outcome_of(r)) for p, r in
                    every_draw(lambda rng: rules.act(SYSTEM, spec, result, a, rng, advise=False))])
        scored.append((rank(side, result, a, dist), dist))
    return max(scored, key=lambda s: s[0])[1]


def priced(spec: dict, result: dict, action: dict) -> dict:
    """The action's outcome distribution, enumerated: every draw of the act
    (a tie's rerolls), then the other side's best answer while it may
    still choose and the round stands."""
    side = action["side"]
    parts = []
    for p, r in every_draw(lambda rng: rules.act(SYSTEM, spec, result, action, rng, advise=False)):
        other = [s for s in open_sides(r) if s != side]
        same_round = r.get("rerolls", 0) == result.get("rerolls", 0)
        parts.append((p, best_answer(spec, r, other[0]) if other and same_round else outcome_of(r)))
    return mix(parts)


def check_point(spec: dict, result: dict) -> None:
    """At one decision point: the choices are exactly the allowed actions,
    each priced as enumerated, and the advice is the advised side's best."""
    got = rules.advise(SYSTEM, spec, result)
    sides = open_sides(result)
    if not sides:
        assert got["advice"] is None and got["choices"] == []
        return
    want = [a for s in sides for a in allowed(result, s)]
    assert [c["action"] for c in got["choices"]] == want
    ranks = {}
    for c in got["choices"]:
        dist = priced(spec, result, c["action"])
        assert c["exact"] is True
        for o, q in dist.items():
            assert c["outcome"][o] == pytest.approx(float(q), abs=1e-12), (c["action"], o)
        ranks[repr(c["action"])] = rank(c["action"]["side"], result, c["action"], dist)
    first = [repr(a) for a in allowed(result, sides[0])]
    assert got["advice"] in want and got["advice"]["side"] == sides[0]
    assert ranks[repr(got["advice"])] == max(ranks[k] for k in first)
    assert sum(c["action"] == got["advice"] for c in got["choices"]) == 1


def rolls(spec: dict) -> list[tuple[Fraction, dict]]:
    return every_draw(lambda rng: rules.roll(SYSTEM, spec, rng, advise=False))


RED = {"faces": "by_health", "health": "red"}

#: Small specs whose every first roll is walked (red dice: 4 faces).
WHOLE = {
    "one-bonus-vs-7": {"characteristic": 1, "bonus": 1, "difficulty": 7, **RED},
    "two-bonus-vs-8": {"characteristic": 0, "bonus": 2, "difficulty": 8, **RED},
    "opposed-bonus-vs-plain-higher-char": {"characteristic": 2, "bonus": 1,
                                           "opponent": {"characteristic": 1, "health": "red"}, **RED},
    "opposed-both-bonus-equal-char-cap-0": {"characteristic": 1, "bonus": 1, "max_rerolls": 0,
                                            "opponent": {"characteristic": 1, "bonus": 1, "health": "red"},
                                            **RED},
}


#: First rolls walked per spec: all of them, but a seeded 600 of the
#: opposed spec's 4 096 (each point prices 6 actions and the answers to them).
WALKED = {"opposed-both-bonus-equal-char-cap-0": 600}


@pytest.mark.parametrize("name", list(WHOLE))
def test_every_first_roll_advice_attains_the_enumerated_optimum(name):
    """Every first roll of a small spec: each allowed action priced by
    enumeration equals its ``choices`` entry, and ``advice`` attains the
    best under the objective."""
    spec = rules.normalize(SYSTEM, WHOLE[name])
    points = rolls(spec)
    if name in WALKED:
        points = random.Random(21).sample(points, WALKED[name] // SHARE)
    for _, r in points:
        check_point(spec, r)


def test_second_decisions_after_each_action():
    """The decision points one step in: after each allowed action (a keep,
    an accept) of a seeded sample of opposed first rolls, the advice and
    choices are checked again, until no side may choose."""
    spec = rules.normalize(SYSTEM, WHOLE["opposed-both-bonus-equal-char-cap-0"])
    sample = random.Random(21).sample(rolls(spec), 40 // SHARE)
    for _, r in sample:
        for side in open_sides(r):
            for a in allowed(r, side):
                r2 = rules.act(SYSTEM, spec, r, a, ScriptedRng([]), advise=False)
                check_point(spec, r2)
                for a2 in allowed(r2, open_sides(r2)[0]) if open_sides(r2) else []:
                    check_point(spec, rules.act(SYSTEM, spec, r2, a2, ScriptedRng([]), advise=False))


def test_keeps_that_tie_are_priced_over_every_reroll():
    """Equal characteristics with one reroll left: a keep that makes a tie
    rerolls both whole hands at once; its entry is the enumeration over
    every reroll (1 024 of them), on seeded first rolls where some keep
    ties (the first rolls found with the cap at 0, which rerolls nothing)."""
    base = {"characteristic": 1, "bonus": 1, "opponent": {"characteristic": 1, "health": "red"}, **RED}
    spec = rules.normalize(SYSTEM, {**base, "max_rerolls": 1})
    tying = []
    for _, r in rolls(rules.normalize(SYSTEM, {**base, "max_rerolls": 0})):
        mine = [sum(r["dice"][i]["face"] for i in a["dice"]) + 1 for a in allowed(r, "initiator")[1:]]
        if r["outcome"] != "tie" and r["opponent"]["value"] in mine:
            tying.append(r["stages"][0]["draws"])
    for draws in random.Random(26).sample(tying, 3 if SHARE == 1 else 1):
        check_point(spec, rules.roll(SYSTEM, spec, ScriptedRng(draws), advise=False))


def test_worked_a_lower_pair_that_forces_a_reroll_beats_a_total_that_will_lose():
    """Worked case (forced dice): equal characteristics, one reroll left.
    The initiator throws 4, 2, 1; the opponent 4, 4, 1 and keeps 4 + 1 (5)
    without accepting. Accepting 4 + 2 (6) wins for now, but the opponent
    then answers with 4 + 4 (8) and wins; keeping 4 + 1 ties at once and
    rerolls both hands, a real chance. Best play keeps 4 + 1."""
    spec = rules.normalize(SYSTEM, {"characteristic": 0, "bonus": 1, "max_rerolls": 1,
                                    "opponent": {"characteristic": 0, "bonus": 1, "health": "red"}, **RED})
    r = rules.roll(SYSTEM, spec, ScriptedRng([4, 2, 1, 4, 4, 1]), advise=False)
    r = rules.act(SYSTEM, spec, r, {"do": "keep", "dice": [0, 2], "side": "opponent"}, ScriptedRng([]))
    assert r["outcome"] == "success" and r["value"] == 6 and r["opponent"]["value"] == 5
    tie_pair = {"do": "keep", "dice": [0, 2], "side": "initiator"}
    assert r["advice"] == tie_pair
    by = {repr(c["action"]): c for c in r["choices"]}
    assert by[repr({"do": "accept", "side": "initiator"})]["outcome"]["failure"] == 1.0
    assert 0.3 < by[repr(tie_pair)]["outcome"]["success"] < 0.5
    if SHARE == 1:
        check_point(spec, r)


def test_accept_closes_the_choice_and_replays():
    """``accept`` records a stage with no draws; afterwards that side may not
    keep, the result says it may not choose, and the advice moves on."""
    spec = rules.normalize(SYSTEM, {"characteristic": 0, "bonus": 1, "difficulty": 9})
    r = rules.roll(SYSTEM, spec, ScriptedRng([4, 5, 1]))
    assert r["advice"] == {"do": "accept", "side": "initiator"} and r["choice"] is True
    r2 = rules.act(SYSTEM, spec, r, r["advice"], ScriptedRng([]))
    assert r2["stages"][-1] == {"do": "accept", "side": "initiator", "draws": []}
    assert r2["choice"] is False and r2["advice"] is None and r2["choices"] == []
    assert r2["outcome"] == r["outcome"] and r2["value"] == r["value"]
    with pytest.raises(SpecError, match="accepted"):
        rules.act(SYSTEM, spec, r2, {"do": "keep", "dice": [0, 2]}, ScriptedRng([]))
    with pytest.raises(SpecError, match="accepted"):
        rules.act(SYSTEM, spec, r2, {"do": "accept", "side": "initiator"}, ScriptedRng([]))
    assert rules.replay(SYSTEM, spec, r2["stages"]) == r2


@pytest.mark.parametrize("extra, draws, action, field", [
    pytest.param({"malus": 1}, [1, 2, 3], {"do": "accept"}, "action", id="accept-on-malus"),
    pytest.param({}, [1, 2], {"do": "accept"}, "action", id="accept-without-bonus"),
    pytest.param({"bonus": 1}, [1, 2, 3], {"do": "accept", "dice": [0, 1]}, "action", id="accept-with-dice"),
    pytest.param({"bonus": 1}, [1, 2, 3], {"do": "accept", "side": "opponent"}, "side", id="accept-no-opponent"),
])
def test_accept_not_allowed(extra, draws, action, field):
    spec = rules.normalize(SYSTEM, {"characteristic": 3, **extra})
    r = rules.roll(SYSTEM, spec, ScriptedRng(draws))
    with pytest.raises(SpecError) as e:
        rules.act(SYSTEM, spec, r, action, ScriptedRng([]))
    assert e.value.field == field


def test_no_bonus_no_advice():
    """Without a bonus die there is nothing to choose."""
    for extra, draws in (({}, [3, 4]), ({"malus": 2}, [1, 2, 3, 4])):
        r = rules.roll(SYSTEM, {"characteristic": 3, **extra}, ScriptedRng(draws))
        assert r["advice"] is None and r["choices"] == []


@pytest.mark.parametrize("spec", [
    {"characteristic": 4, "bonus": 2, "difficulty": 12},
    {"characteristic": 3, "bonus": 1, "opponent": {"characteristic": 3, "bonus": 2}},
], ids=["two-bonus-vs-12", "opposed-equal-char"])
def test_played_turns_taking_the_advice_match_the_odds(spec):
    """A played sample (seed 21, 2 000 turns): roll, then take ``advice``
    until there is none; the outcomes' frequencies match ``rules.odds`` of
    the roll (best two each side) within 4 standard errors."""
    rng, n = random.Random(21), 2000 // SHARE
    counts = dict.fromkeys(rules.OUTCOMES[SYSTEM], 0)
    for _ in range(n):
        r = rules.roll(SYSTEM, spec, rng)
        while r["advice"] is not None:
            r = rules.act(SYSTEM, spec, r, r["advice"], rng)
        counts[r["outcome"]] += 1
    want = rules.odds(SYSTEM, spec)["outcome"]
    for o, p in want.items():
        assert abs(counts[o] / n - p) <= 4 * (p * (1 - p) / n) ** 0.5 + 1e-9, (o, counts[o] / n, p)
