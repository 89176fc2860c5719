"""Mirage's best play over every choice, proved by a second
route: through the public contract only (``rules.roll``, ``rules.act``
with ``ScriptedRng``, ``rules.advise``), every reachable decision point of
small specs is walked, every action the rules accept there is tried, every
draw enumerated, and the optimum under best play's objective (the highest
chance to win, unopposed to succeed; then the lowest chance of a
Condition; then the highest chance of 2+) found by this file's own
expectimax. ``advice`` must attain it and each ``choices`` entry must give
its enumerated odds.

Faces are enumerated by kind (1, 2-5, 6-9, 10+, each weighted by how many
faces of the die show it: "Success" and "Prayer" treat the faces of a kind
alike), and a decision point is known by what the rules show of it (the
dice's kinds, sizes and faces' kinds, the opponent's successes, the
tie-breaks so far, the prayer, the Condition, Broken, accepted)."""

from __future__ import annotations

import itertools
import json
import math
import random
from fractions import Fraction

import pytest

import rules
from rules.mirage import model as mirage
from rules.mirage import prayer as mirage_prayer
from rules.dice import ScriptedRng, SpecError

WINS = ("success", "success_with_bonus")


class Probe:
    """An rng that shows 1 and notes the size of each die asked for."""

    def __init__(self):
        self.sizes = []

    def randint(self, a, b):
        self.sizes.append(b)
        return 1


def kinds(sides):
    """(face, weight) standing for every face of a die: 1, 2-5, 6-9, 10+."""
    return [(f, Fraction(w, sides)) for f, w in ((1, 1), (2, 4), (6, min(sides, 9) - 5), (10, sides - 9)) if w > 0]


def face_kind(face):
    return 0 if face == 1 else 1 if face < 6 else 2 if face < 10 else 3


def draws(sizes):
    """Every draw of dice of ``sizes``, by kind: (faces, probability)."""
    for combo in itertools.product(*(kinds(s) for s in sizes)):
        yield [f for f, _ in combo], math.prod((p for _, p in combo), start=Fraction(1))


def key(r):
    return (r["tiebreaks"], bool(r["prayed"]), r["condition_gained"], r["broken"], r.get("accepted"),
            tuple((d["kind"], d["sides"], face_kind(d["face"])) for d in r["dice"]),
            (r["opponent"] or {}).get("successes"))


def better(a, b):
    """Best play's order (docs/RULES-DECISIONS.md, Mirage): win, then no Condition, then 2+."""
    return (a[0], -a[1], a[2]) > (b[0], -b[1], b[2])


class Walker:
    """Expectimax through the public contract, memoised by decision point."""

    def __init__(self, spec):
        self.spec = rules.normalize("mirage", spec)
        self.values, self.qs, self.points = {}, {}, {}

    def actions(self, r):
        """Every action the rules accept now (tried with a probe: the rules
        check a step before any draw): accept, tiebreak, every set of dice."""
        n = len(r["dice"])
        tries = [{"do": "accept"}, {"do": "tiebreak"}] + [
            {"do": "pray", "dice": list(c)} for k in range(1, n + 1) for c in itertools.combinations(range(n), k)]
        out = []
        for a in tries:
            try:
                rules.act("mirage", self.spec, r, a, Probe(), advise=False)
            except SpecError:
                continue
            out.append(a)
        return out

    def value(self, r):
        """(win, Condition, 2+, tie) of the turn from ``r`` played best."""
        k = key(r)
        if k not in self.values:
            acts = self.actions(r)
            self.points[k] = (r, acts)
            if not acts:
                self.values[k] = (Fraction(r["outcome"] in WINS), Fraction(r["condition_gained"] is not None),
                                  Fraction(r["outcome"] == "success_with_bonus"), Fraction(r["outcome"] == "tie"))
            else:
                best = None
                for a in acts:
                    q = self.q(r, a)
                    if best is None or better(q, best):
                        best = q
                self.values[k] = best
        return self.values[k]

    def q(self, r, action):
        """The action's value, every draw enumerated, played best afterwards."""
        k = (key(r), action["do"], tuple(action.get("dice", ())), action.get("bonus"))
        if k not in self.qs:
            probe = Probe()
            rules.act("mirage", self.spec, r, action, probe, advise=False)
            total = [Fraction(0)] * 4
            for faces, p in draws(probe.sizes):
                child = rules.act("mirage", self.spec, r, action, ScriptedRng(faces), advise=False)
                total = [t + p * v for t, v in zip(total, self.value(child))]
            self.qs[k] = tuple(total)
        return self.qs[k]

    def first_rolls(self):
        probe = Probe()
        rules.roll("mirage", self.spec, probe, advise=False)
        for faces, _ in draws(probe.sizes):
            yield rules.roll("mirage", self.spec, ScriptedRng(faces), advise=False)


def check_point(w, r, acts):
    """``advice`` attains the optimum; each choice gives its enumerated odds."""
    got = rules.advise("mirage", w.spec, r)
    if not acts:
        assert got["advice"] is None and got["choices"] == []
        return 0
    best = w.value(r)
    assert got["advice"] is not None
    q = w.q(r, got["advice"])
    assert [float(x) for x in q[:3]] == pytest.approx([float(x) for x in best[:3]], abs=1e-9), (r["dice"], got)
    verbs = {a["do"] for a in acts}
    assert {c["action"]["do"] for c in got["choices"]} == verbs
    assert sum(c["action"] == got["advice"] for c in got["choices"]) == 1
    had = 1 if r["condition_gained"] else 0
    for c in got["choices"]:
        q = w.q(r, c["action"])
        win = c["win"] if "win" in c else c["success"]
        assert (win, c["condition"], c["bonus"]) == pytest.approx(
            (float(q[0]), float(q[1]) - had, float(q[2])), abs=1e-9), (r["dice"], c)
        if "tie" in c:
            assert c["tie"] == pytest.approx(float(q[3]), abs=1e-9)
        assert c["exact"] is True
        assert sum(c["outcome"].values()) == pytest.approx(1.0)
    return 1


SPECS = [
    {"attribute": 6, "skill": 0, "prayer_bonus": 0},
    {"attribute": 6, "skill": 0, "prayer_bonus": 2},
    {"attribute": 6, "skill": 6, "prayer_bonus": 1},
    {"attribute": 8, "skill": 0, "gear": [6], "prayer_bonus": 1},
    {"attribute": 6, "skill": 0, "prayer_bonus": 0, "opponent": {"attribute": 6}},
    {"attribute": 6, "skill": 0, "prayer_bonus": 1, "opponent": {"attribute": 6}},
    {"attribute": 6, "skill": 0, "prayer_bonus": 2, "opponent": {"attribute": 8}},
    {"attribute": 8, "skill": 6, "prayer_bonus": 1, "opponent": {"attribute": 8}},
    {"attribute": 6, "skill": 6, "prayer_bonus": 2, "conditions": {"physical": 3},
     "opponent": {"attribute": 6, "skill": 6}},
    {"attribute": 10, "skill": 0, "gear": [6], "prayer_bonus": 2, "opponent": {"attribute": 8}},
    {"attribute": 6, "skill": 6, "passive": True, "opponent": {"attribute": 6}},
]


@pytest.fixture
def short_cap(monkeypatch):
    """At most 2 tie-breaks (the enumeration stays small; the engine and
    the rules read the same cap)."""
    monkeypatch.setattr(mirage, "MAX_TIEBREAKS", 2)
    mirage_prayer._TURNS.clear()
    yield
    mirage_prayer._TURNS.clear()


@pytest.mark.parametrize("spec", SPECS, ids=[json.dumps(s) for s in SPECS])
def test_every_decision_point_is_played_best(spec, short_cap):
    w = Walker(spec)
    for r in w.first_rolls():
        w.value(r)
    checked = sum(check_point(w, r, acts) for r, acts in list(w.points.values()))
    assert checked >= 1
    verbs = {a["do"] for _, acts in w.points.values() for a in acts}
    assert "accept" in verbs and ("pray" in verbs or spec.get("passive"))
    if spec.get("opponent"):
        assert "tiebreak" in verbs


# --------------------------------------------------------------------------
# A worked case: opposed, prayer bonus +1, tied with one of your dice on a 1.

CASE = {"attribute": 8, "skill": 6, "prayer_bonus": 1, "opponent": {"attribute": 8}}


def test_a_tie_with_a_one_is_broken_not_prayed_for():
    """d8:7 and d6:1 against d8:6, tied 1-1. A prayer (the d8, stepped to a
    d10) keeps the 1 and so costs a Condition for sure; the tie-break wins
    more often and risks a Condition only if a later prayer is made. Best
    play takes the tie-break."""
    r = rules.roll("mirage", CASE, ScriptedRng([7, 1, 6]))
    assert r["outcome"] == "tie" and r["advice"] == {"do": "tiebreak", "side": "initiator"}
    by = {c["action"]["do"]: c for c in r["choices"]}
    assert by["tiebreak"]["win"] > 0.7 > 0.3 > by["pray"]["win"] and by["pray"]["condition"] == 1.0


def test_the_tie_case_figures_are_the_enumerated_ones(short_cap):
    """The same tie, every draw enumerated (at most 2 tie-breaks): the
    advice is the optimum and each choice's figures are the enumerated ones."""
    w = Walker(CASE)
    r = rules.roll("mirage", CASE, ScriptedRng([7, 1, 6]))
    assert r["outcome"] == "tie" and r["dice"][1]["face"] == 1
    assert r["advice"] == {"do": "tiebreak", "side": "initiator"}
    by = {c["action"]["do"]: c for c in r["choices"]}
    assert set(by) == {"accept", "tiebreak", "pray"}
    assert by["pray"]["action"]["dice"] == [0] and by["pray"]["condition"] == 1.0
    tb, pr = w.q(r, {"do": "tiebreak"}), w.q(r, by["pray"]["action"])
    assert by["tiebreak"]["win"] == pytest.approx(float(tb[0]), abs=1e-9)
    assert by["pray"]["win"] == pytest.approx(float(pr[0]), abs=1e-9)
    assert tb[0] > pr[0] and by["accept"]["win"] == 0 and by["accept"]["tie"] == 1
    assert r["best_prayer"] == [0]  # the prayer's own best dice, as before


def test_the_tie_case_played_by_the_advice_fits_its_figures():
    """From the tie, 2000 seeded turns that always take ``advice`` (the
    tie-break, then a prayer or a tie-break wherever the advice says) win
    and gain a Condition as often as the advised choice says."""
    spec = rules.normalize("mirage", CASE)
    r0 = rules.roll("mirage", spec, ScriptedRng([7, 1, 6]))
    fig = next(c for c in r0["choices"] if c["action"] == r0["advice"])
    rng, n, wins, conds = random.Random(2113), 2000, 0, 0
    for _ in range(n):
        r = r0
        while r["advice"] is not None:
            r = rules.act("mirage", spec, r, r["advice"], rng)
        wins += r["outcome"] in WINS
        conds += r["condition_gained"] is not None
    for seen, p in ((wins / n, fig["win"]), (conds / n, fig["condition"])):
        assert abs(seen - p) <= 4 * math.sqrt(p * (1 - p) / n) + 1e-9


def test_accept_ends_the_turn():
    r = rules.roll("mirage", CASE, ScriptedRng([7, 1, 6]))
    a = rules.act("mirage", CASE, r, {"do": "accept", "side": "initiator"}, ScriptedRng([]))
    assert a["stages"][-1]["draws"] == [] and a["outcome"] == "tie" and a["accepted"]
    assert a["advice"] is None and a["choices"] == [] and not a["can_pray"] and not a["can_tiebreak"]
    for step in ({"do": "tiebreak"}, {"do": "pray", "dice": [0]}, {"do": "accept"}):
        with pytest.raises(SpecError):
            rules.act("mirage", CASE, a, step, ScriptedRng([5, 5, 5]))
    assert rules.replay("mirage", CASE, a["stages"])["accepted"]


def test_no_advice_without_a_step():
    """Roll without advice is the dice only; advise() adds it after."""
    r = rules.roll("mirage", {"attribute": 8, "skill": 6, "passive": True}, ScriptedRng([2, 2]), advise=False)
    assert "advice" not in r and "best_prayer" not in r
    assert rules.advise("mirage", r["spec"], r) == {"advice": None, "choices": []}


# --------------------------------------------------------------------------
# Sampled answers: within their margin of a long played sample, never above
# the exact bound.

SAMPLED = [
    {"attribute": 10, "skill": 8, "gear": [8, 6], "prayer_bonus": 1, "opponent": {"attribute": 10, "skill": 8}},
    {"attribute": 12, "skill": 6, "gear": [10], "prayer_bonus": 2},
]


@pytest.mark.parametrize("spec", SAMPLED, ids=["opposed", "unopposed"])
def test_sampled_odds_with_a_prayer_fit_a_played_sample(spec, monkeypatch):
    """With the work limit lowered, the turn "with a prayer on a failure"
    is sampled: it says so, stays within its margin (and four standard
    errors of the played sample) of 8 000 seeded turns played by
    ``best_prayer``, and below the exact bound; and that bound is at least
    the exact figure."""
    spec = rules.normalize("mirage", spec)
    mirage_prayer._TURNS.clear()
    exact = rules.odds("mirage", spec)
    monkeypatch.setattr(mirage_prayer, "WORK_LIMIT", 10)
    mirage_prayer._TURNS.clear()
    o = rules.odds("mirage", spec)
    mirage_prayer._TURNS.clear()
    assert exact["prayer_exact"] and not o["prayer_exact"]
    assert o["prayer_sampled"] == mirage_prayer.SAMPLES and o["prayer_margin"] > 0
    rng, n, wins = random.Random(77), 8000, 0
    for _ in range(n):
        r = rules.roll("mirage", spec, rng, advise=False)
        best = rules.advise("mirage", spec, r)["best_prayer"] if r["outcome"] not in WINS else []
        if best:
            r = rules.act("mirage", spec, r, {"do": "pray", "dice": best}, rng, advise=False)
        wins += r["outcome"] in WINS
    p = wins / n
    assert abs(o["success_with_prayer"] - p) <= o["prayer_margin"] + 4 * math.sqrt(p * (1 - p) / n)
    bound = mirage_prayer._oracle_bounds(spec)[1]
    assert exact["success_with_prayer"] <= bound + 1e-12 and o["success_with_prayer"] <= bound + 1e-12
