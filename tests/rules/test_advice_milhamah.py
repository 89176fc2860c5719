"""Milhamah's decisions: at every decision the rules allow, the
advice (``rules.advise``: ``advice`` and ``choices``) is best play under
the objectives of docs/RULES-DECISIONS.md, proved by a second route that shares no code with
the engine:

- a walk through the public contract only: every first roll
  (``ScriptedRng``), every allowed action at every reachable decision point
  (every reroll set, accept, stand, each natural reward, the hit location;
  cipher flips are outside the advice), every draw of every
  reroll, through ``rules.roll``/``rules.act``; valued by its own
  expectimax over the results' outcomes under those orders. At each
  point the advice must attain the optimum and each ``choices`` entry must
  equal its enumerated odds;
- a worked case: the reactor plays against the critical;
- a played-sample fit: seeded turns that always take ``advice`` land on
  each outcome as often as ``rules.odds`` says.

The orders (docs/RULES-DECISIONS.md, Milhamah, "Best play" and "Opposed best play"):
the initiator: P(meets), P(success or better), P(natural), P(no botch),
then the fewest dice, then P(critical), P(natural success); between a
natural's rewards of equal odds, the Merit Point. The reactor: the lowest
P(initiator meets), P(succeeds), P(critical), then the fewest dice, then
the initiator's plainer successes.
"""

from __future__ import annotations

import itertools
import json
import random
import sys
from fractions import Fraction

import pytest
from test_odds_match_rolls import _merged

import rules
from rules.dice import ScriptedRng
from rules.milhamah import model as M
from trust import dicecheck

OUT = M.OUTCOMES
MEET = {"success_at_cost", "success", "natural_success", "critical_success"}
SUCC = {"success", "natural_success", "critical_success"}


def _vec(r: dict) -> tuple:
    """The terminal value of a result: P(each outcome), then P(natural)."""
    return tuple(Fraction(int(r["outcome"] == o)) for o in OUT) + (Fraction(int(r["natural"])),)


def _mine(v: tuple, n: int, action: dict) -> tuple:
    """The initiator's order (bigger is better)."""
    p = dict(zip(OUT, v))
    head = (sum(p[o] for o in MEET), sum(p[o] for o in SUCC), v[-1], 1 - p["botch"])
    return head, -n, (p["critical_success"], p["natural_success"]), action.get("reward") == "merit"


def _theirs(v: tuple, n: int, action: dict) -> tuple:
    """The reactor's order: the initiator's worst chances first."""
    p = dict(zip(OUT, v))
    head = (1 - sum(p[o] for o in MEET), 1 - sum(p[o] for o in SUCC), 1 - p["critical_success"])
    return head, -n, (p["success"], p["natural_success"])


def _name(action: dict) -> str:
    return json.dumps(action, sort_keys=True)


class Walk:
    """Every reachable decision point of a small spec, valued by
    expectimax through ``rules.act``. A state's key is what the rules read
    of the table: each side's face indices, whether it has rerolled, its
    rounds left, and the steps other than rerolls taken so far (stand,
    accept, a reward): a reroll's successor key is known before acting, so
    each state is acted into once."""

    def __init__(self, spec: dict):
        self.spec = rules.normalize("milhamah", spec)
        self.opposed = self.spec["opponent"] is not None
        self.memo: dict = {}
        self.acts = 0

    def act(self, r: dict, action: dict, draws=()) -> dict:
        self.acts += 1
        return rules.act("milhamah", self.spec, r, action, ScriptedRng(list(draws)), advise=False)

    def key(self, r: dict, phase: tuple) -> tuple:
        def side(s: dict) -> tuple:
            return (tuple(d["index"] for d in s["dice"]), any(d["role"] in ("rerolled", "frozen") for d in s["dice"]),
                    s["rounds_left"])
        return phase, side(r), side(r["opponent"]) if self.opposed else None

    @staticmethod
    def after_reroll(key: tuple, side: str, dice: list, draws: tuple) -> tuple:
        phase, me, them = key
        s = me if side == "initiator" else them
        idx = list(s[0])
        for i, d in zip(dice, draws):
            idx[i] = d
        s2 = (tuple(idx), True, s[2] - 1)
        return (phase, s2, them) if side == "initiator" else (phase, me, s2)

    def turn(self, r: dict):
        if r["turn"]:
            return r["turn"]
        return "hit" if "hit_location" in r["allowed"] else None

    def actions(self, r: dict, side: str) -> list:
        """Every allowed action but a cipher flip, as (action, dice)."""
        if side == "hit":
            out = [({"do": "hit_location"}, 0)]
            side = "initiator"
        else:
            s = r if side == "initiator" else r["opponent"]
            verbs = s["allowed"]
            out = []
            if "reroll" in verbs:
                n = len(s["dice"])
                out += [({"do": "reroll", "dice": list(c)}, k) for k in range(1, min(n, s["x"]) + 1)
                        for c in itertools.combinations(range(n), k)]
            out += [({"do": v}, 0) for v in ("accept", "stand") if v in verbs]
            if "natural" in verbs:
                rewards = M.OPPOSED_REWARDS if self.opposed else M.NATURAL_REWARDS
                out += [({"do": "natural", "reward": w}, 0) for w in rewards]
        return [({**a, "side": side} if self.opposed else a, n) for a, n in out]

    def value(self, r: dict, key: tuple) -> tuple:
        hit = self.memo.get(key)
        if hit is not None:
            return hit[0]
        side = self.turn(r)
        if side is None:
            self.memo[key] = (_vec(r), {}, r, None)
            return _vec(r)
        options = {}
        for action, n in self.actions(r, side):
            if action["do"] == "reroll":
                v = self.reroll(r, key, action)
            else:
                # the hit location draws a letter; it changes no outcome
                r2 = self.act(r, action, [1] if action["do"] == "hit_location" else [])
                v = self.value(r2, self.key(r2, key[0] + (_name(action),)))
            options[_name(action)] = (v, n, action)
        order = _theirs if side == "opponent" else _mine
        best = max(options.values(), key=lambda o: order(*o))
        self.memo[key] = (best[0], options, r, side)
        return best[0]

    def reroll(self, r: dict, key: tuple, action: dict) -> tuple:
        side = action.get("side", "initiator")
        dice = action["dice"]
        tot = [Fraction(0)] * (len(OUT) + 1)
        for draws in itertools.product(range(1, 13), repeat=len(dice)):
            k2 = self.after_reroll(key, side, dice, draws)
            hit = self.memo.get(k2)
            if hit is None:
                r2 = self.act(r, action, draws)
                assert self.key(r2, key[0]) == k2
                v = self.value(r2, k2)
            else:
                v = hit[0]
            tot = [a + b for a, b in zip(tot, v)]
        return tuple(x / 12 ** len(dice) for x in tot)

    def walk(self) -> None:
        n = len(M.dice_of(self.spec)) + (len(M.dice_of(self.spec["opponent"])) if self.opposed else 0)
        for seq in itertools.product(range(1, 13), repeat=n):
            r = rules.roll("milhamah", self.spec, ScriptedRng(list(seq)), advise=False)
            self.value(r, self.key(r, ()))

    def points(self) -> list:
        """Every decision point met: (result, side, options)."""
        return [(r, side, options) for _v, options, r, side in self.memo.values() if side is not None]


def _same(entry: dict, v: tuple, where):
    p = dict(zip(OUT, v))
    for o in OUT:
        assert entry["outcome"][o] == pytest.approx(float(p[o]), abs=1e-12), (where, o)
    assert entry["meets"] == pytest.approx(float(sum(p[o] for o in MEET)), abs=1e-12), where
    assert entry["success"] == pytest.approx(float(sum(p[o] for o in SUCC)), abs=1e-12), where
    assert entry["critical"] == pytest.approx(float(p["critical_success"]), abs=1e-12), where
    if "natural" in entry:
        assert entry["natural"] == pytest.approx(float(v[-1]), abs=1e-12), where


def check_point(walk: Walk, r: dict, side: str, options: dict) -> str:
    """The advice at one decision point attains the walk's optimum, each
    choice equals its enumerated odds, and the older keys agree."""
    a = rules.advise("milhamah", walk.spec, r)
    order = _theirs if side == "opponent" else _mine
    top = max(order(*o) for o in options.values())
    advised = [c for c in a["choices"] if c["action"] == a["advice"]]
    assert len(advised) == 1, (a["advice"], a["choices"])
    v, n, action = options[_name(a["advice"])]
    assert order(v, n, action) == top, (side, a["advice"], [d["face"] for d in r["dice"]])
    for c in a["choices"]:
        assert c["exact"] is True
        _same(c, options[_name(c["action"])][0], c["action"])
    names = {_name(c["action"]) for c in a["choices"]}
    assert len(names) == len(a["choices"])
    # every allowed verb but a reroll the advice keeps out is on offer
    assert {json.loads(k)["do"] for k in options} - {"reroll"} <= {c["action"]["do"] for c in a["choices"]}
    s = a if side != "opponent" else a["opponent"]
    dice = a["advice"].get("dice", []) if a["advice"]["do"] == "reroll" else []
    if side != "hit":
        assert s["best_reroll"] == dice
    return a["advice"]["do"]


#: Under Pyodide (2-3x slower) the heavy walks and the played samples are
#: left to CPython, which runs the same code.
HEAVY = pytest.mark.skipif(sys.platform == "emscripten", reason="thousands of states or turns: CPython proves it")

I_REROLL, ACCEPT, NATURAL = ("initiator", "reroll"), ("initiator", "accept"), ("initiator", "natural")
STAND, O_REROLL, O_STAND, HIT = ("initiator", "stand"), ("opponent", "reroll"), ("opponent", "stand"), \
    ("hit", "hit_location")

#: Each small spec and the (side, verb) its walk must meet (so that a walk
#: that never reaches a decision fails): between them every verb of the
#: advice, both sides' rerolls and the hit location.
WALKED = [
    pytest.param({"shoresh": "אר", "pool": {"green": 2}, "rerolls": 1, "difficulty": 5},
                 {I_REROLL, ACCEPT, NATURAL}, id="first-bonus-natural"),
    pytest.param({"shoresh": "אר", "pool": {"green": 2}, "rerolls": 1, "difficulty": 1},
                 {I_REROLL, ACCEPT, NATURAL}, id="merit-costs-nothing"),
    pytest.param({"shoresh": "אב", "pool": {"red": 1}, "rerolls": 1, "rounds": 2, "difficulty": 1},
                 {I_REROLL, ACCEPT}, id="one-die-botch-likely"),
    pytest.param({"shoresh": "אשר", "pool": {"red": 2}, "rerolls": 1, "rounds": 2, "difficulty": 2},
                 {I_REROLL, ACCEPT}, id="two-rounds"),
    pytest.param({"shoresh": "אר", "pool": {"green": 2}, "rerolls": 2, "rounds": 2, "difficulty": 3},
                 {I_REROLL, ACCEPT, NATURAL}, id="x2-two-rounds", marks=HEAVY),
    pytest.param({"shoresh": "חנן", "pool": {"blue": 1, "green": 2}, "rerolls": 1, "difficulty": 2},
                 {I_REROLL, ACCEPT, NATURAL}, id="three-dice", marks=HEAVY),
    pytest.param({"shoresh": "אר", "pool": {"green": 2}, "rerolls": 1, "difficulty": 1,
                  "opponent": {"shoresh": "אב", "pool": {"red": 1}, "rerolls": 1}},
                 {I_REROLL, STAND, NATURAL, O_REROLL, O_STAND, HIT}, id="opposed-natural", marks=HEAVY),
    pytest.param({"shoresh": "אב", "pool": {"red": 1}, "rerolls": 2, "rounds": 2, "difficulty": 1,
                  "opponent": {"shoresh": "גד", "pool": {"red": 1}, "rerolls": 1, "rounds": 2}},
                 {I_REROLL, STAND, O_REROLL, O_STAND}, id="opposed-two-rounds", marks=HEAVY),
]


@pytest.mark.parametrize("spec, verbs", WALKED)
def test_advice_is_best_play_at_every_decision_point(spec, verbs):
    """Every reachable decision point of the spec: the advice attains the
    optimum of the walk, and each choice's odds are its enumerated odds;
    the walk meets every verb it should."""
    walk = Walk(spec)
    walk.walk()
    points = walk.points()
    met = set()
    for r, side, options in points:
        check_point(walk, r, side, options)
        met |= {(side, json.loads(k)["do"]) for k in options}
    assert verbs <= met, met


def test_merit_is_advised_where_it_costs_nothing():
    """אר on two green dice, difficulty 1: a natural (א, ר) is 2 successes
    and beats 1 without a bonus, so both rewards are a natural success
    and the Merit Point is advised; at difficulty 3 only the success bonus
    (2 + 2) gets there, and it is advised."""
    cheap = {"shoresh": "אר", "pool": {"green": 2}, "rerolls": 1, "difficulty": 1}
    r = rules.roll("milhamah", cheap, ScriptedRng([1, 11]))
    assert r["natural"] and r["advice"] == {"do": "natural", "reward": "merit"}
    dear = {**cheap, "difficulty": 4}
    r = rules.roll("milhamah", dear, ScriptedRng([1, 11]))
    assert r["advice"] == {"do": "natural", "reward": "successes"}
    merit = next(c for c in r["choices"] if c["action"].get("reward") == "merit")
    assert merit["outcome"]["failure"] == 1 and merit["meets"] == 0


# --------------------------------------------------------------------------
# A worked case: the reactor plays against the critical.

#: שר against גדל with X 1; the initiator's first roll is a natural, the
#: opponent shows no letter of גדל.
CRITICAL_SPEC = {"shoresh": "שר", "opponent": {"shoresh": "גדל", "rerolls": 1}}
CRITICAL_DRAWS = [10, 1, 12, 8, 5, 12, 4, 10, 2, 6, 1, 1, 1, 11, 9, 1]


def test_the_reactor_rerolls_its_one_chance_to_stop_the_critical():
    """After "let them react" the critical stands while
    the opponent has no success. Keeping the roll leaves it standing for
    sure; the opponent's one reroll (X 1) is its only chance. Enumerated
    through ``act``: standing is critical with certainty, and the best
    one-die reroll stops it as often as its die shows a letter of גדל; the
    advice is that reroll, and the choices say both."""
    spec = rules.normalize("milhamah", CRITICAL_SPEC)
    r = rules.roll("milhamah", spec, ScriptedRng(CRITICAL_DRAWS))
    assert r["natural"] and r["opponent"]["matches"] == 0 and "natural" in r["allowed"]
    c = rules.act("milhamah", spec, r, {"do": "natural", "reward": "critical", "side": "initiator"},
                  ScriptedRng([]))
    assert c["outcome"] == "critical_success" and c["allowed_opponent"] == ["reroll", "stand"]
    stand = rules.act("milhamah", spec, c, {"do": "stand", "side": "opponent"}, ScriptedRng([]), advise=False)
    assert stand["outcome"] == "critical_success"
    crit = {}
    for i in range(len(c["opponent"]["dice"])):
        ends = [rules.act("milhamah", spec, c, {"do": "reroll", "side": "opponent", "dice": [i]},
                          ScriptedRng([f]), advise=False)["outcome"] for f in range(1, 13)]
        crit[i] = Fraction(ends.count("critical_success"), 12)
    best = min(crit.values())
    assert best < 1
    assert c["advice"]["do"] == "reroll" and c["advice"]["side"] == "opponent"
    assert crit[c["advice"]["dice"][0]] == best
    assert c["opponent"]["best_reroll"] == c["advice"]["dice"]
    by = {x["action"]["do"]: x for x in c["choices"]}
    assert by["stand"]["critical"] == 1 and by["reroll"]["critical"] == pytest.approx(float(best), abs=1e-12)
    why = rules.odds("milhamah", spec, c)["why"]
    assert "critical" in why and "hit location" in why


def test_the_natural_reward_choice_is_priced():
    """At the natural the page can show each reward's
    chance of a critical, of a success and of a void reaction: "+1 and
    uncounterable" succeeds for sure and voids the reaction; "let them
    react" is critical unless the opponent's best reaction finds a letter
    (the figure above), and succeeds either way (2 successes beat what
    one opposing success needs)."""
    spec = rules.normalize("milhamah", CRITICAL_SPEC)
    r = rules.roll("milhamah", spec, ScriptedRng(CRITICAL_DRAWS))
    by = {x["action"].get("reward"): x for x in r["choices"] if x["action"]["do"] == "natural"}
    assert by["uncounterable"]["void_reaction"] == 1 and by["uncounterable"]["outcome"]["natural_success"] == 1
    assert by["critical"]["void_reaction"] == 0
    c = rules.act("milhamah", spec, r, {"do": "natural", "reward": "critical", "side": "initiator"},
                  ScriptedRng([]))
    assert by["critical"]["critical"] == pytest.approx(rules.odds("milhamah", spec, c)["outcome"]["critical_success"])
    assert 0 < by["critical"]["critical"] < 1
    # as sure to succeed and possibly critical: "let them react" is advised
    assert by["critical"]["success"] == 1 and r["advice"] == by["critical"]["action"]


def test_the_why_names_what_separates_the_advised_dice():
    """The default roll (אשר on red and green, X 3) with
    seven blank dice: the advice rerolls three of them. The why does not say
    only "these dice show no letter" (the four kept show none either); it
    names the designs and what each can show, and that X took three."""
    spec = rules.default_spec("milhamah")
    # red A ד, red B נ, red A ק, red B ט, green A ל, green B ק, green A ז, green B ר
    faces = {("red", "A"): "דק", ("red", "B"): "נט", ("green", "A"): "לז", ("green", "B"): "קר"}
    draws = []
    for colour, design, k in (("red", "A", 0), ("red", "B", 0), ("red", "A", 1), ("red", "B", 1),
                              ("green", "A", 0), ("green", "B", 0), ("green", "A", 1), ("green", "B", 1)):
        draws.append(M.die_faces(colour, design).index(faces[colour, design][k]) + 1)
    r = rules.roll("milhamah", spec, ScriptedRng(draws))
    blanks = [i for i, d in enumerate(r["dice"]) if not d["success"]]
    assert len(blanks) == 7 and len(r["best_reroll"]) == 3
    why = rules.odds("milhamah", spec, r)["why"]
    assert "show no letter" not in why
    assert "X = 3" in why and "red A (א ש ר)" in why and "green A (א)" in why
    kept = [i for i in blanks if i not in r["best_reroll"]]
    # a control: swapping an advised die for a kept one costs chance
    swap = sorted(r["best_reroll"][1:] + [kept[0]])
    assert rules.odds("milhamah", spec, r, {"do": "reroll", "dice": swap})["meets"] < \
        rules.odds("milhamah", spec, r)["meets"]


# --------------------------------------------------------------------------
# Played samples: always take the advice.

def _play(spec: dict, rng) -> dict:
    r = rules.roll("milhamah", spec, rng)
    while r["advice"] is not None:
        r = rules.act("milhamah", spec, r, r["advice"], rng)
    return r


PLAYED = [
    pytest.param({"shoresh": "אר", "pool": {"green": 2, "blue": 2}, "rerolls": 2, "rounds": 2, "difficulty": 4},
                 id="naturals-and-merit", marks=HEAVY),
    pytest.param({"shoresh": "שר", "pool": {"red": 2, "green": 2}, "rerolls": 2, "difficulty": 2,
                  "opponent": {"shoresh": "גדל", "pool": {"red": 2}, "rerolls": 1}}, id="opposed-let-them-react",
                 marks=HEAVY),
]


@pytest.mark.parametrize("spec", PLAYED)
def test_turns_that_take_the_advice_follow_the_odds(spec):
    """1500 seeded turns that take every ``advice`` (rerolls, accept or
    stand, the natural's reward, the reaction, the hit location): each
    outcome comes up as often as ``rules.odds`` says (chi-square, p >=
    0.001), critical successes included where "let them react" is advised."""
    spec = rules.normalize("milhamah", spec)
    o = rules.odds("milhamah", spec)
    assert o["exact"]
    rng = random.Random(sum(map(ord, str(spec))) + 21)
    n = 1500
    seen: dict = {}
    for _ in range(n):
        out = _play(spec, rng)
        assert out["advice"] is None and not out["choices"]
        seen[out["outcome"]] = seen.get(out["outcome"], 0) + 1
    expected = {k: p * n for k, p in o["outcome"].items() if p > 0}
    assert not set(seen) - set(expected), (seen, o["outcome"])
    obs, exp = _merged(seen, expected)
    assert dicecheck.p_value(dicecheck.chi_square(obs, exp), len(obs) - 1) >= dicecheck.ALPHA, (seen, expected)
