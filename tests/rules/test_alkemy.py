"""ALKEMY rules (its rules text, machine-translated; decisions
in RULES-NOTES ALKEMY 1-3): worked examples with forced dice, the bonus and
malus arithmetic, opposed tie-breaks, the ``keep`` step, exact odds against
brute force, replay and JSON round-trips."""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction

import pytest

import rules
from rules.alkemy import model as alkemy
from rules.dice import ScriptedRng, SpecError

SYSTEM = "alkemy"


class CheckingRng:
    """A seeded rng that records every (a, b) asked, to check one
    ``randint(1, n)`` per die."""

    def __init__(self, seed):
        self.inner = random.Random(seed)
        self.calls = []

    def randint(self, a, b):
        self.calls.append((a, b))
        return self.inner.randint(a, b)


# --------------------------------------------------------------------------
# The text's worked examples, dice forced.

EXAMPLES = [
    pytest.param(
        {"characteristic": 8, "difficulty": 15}, [3, 4],
        {"value": 15, "dice_total": 7, "outcome": "success", "margin": 0, "kept": [0, 1]},
        id="julien-spirit-8-rolls-3-4-vs-15-success"),
    pytest.param(
        {"characteristic": 2, "opponent": {"characteristic": 5}}, [4, 4, 1, 4],
        {"value": 10, "outcome": "failure", "margin": 0, "winner": "opponent"},
        id="patrick-10-vs-ghulam-10-ghulam-wins-on-characteristic"),
    pytest.param(
        {"characteristic": 0, "bonus": 1, "difficulty": 9}, [4, 5, 1],
        {"dice_total": 9, "kept": [0, 1], "outcome": "success", "pair": "axe–sword"},
        id="marc-one-bonus-die-4-5-1-keeps-9"),
    pytest.param(
        {"characteristic": 0, "malus": 2, "difficulty": 4}, [5, 1, 3, 4],
        {"dice_total": 4, "kept": [1, 2], "outcome": "success"},
        id="marc-two-malus-dice-5-1-3-4-keeps-4"),
]


@pytest.mark.parametrize("spec, draws, expected", EXAMPLES)
def test_worked_examples(spec, draws, expected):
    """ALKEMY, "Jet characteristic", "in opposition" and "Bonus / malus
    die": each example's dice give the text's total and verdict."""
    rng = ScriptedRng(draws)
    r = rules.roll(SYSTEM, spec, rng)
    assert rng.exhausted
    for key, want in expected.items():
        assert r[key] == want, key


def test_patrick_ghulam_both_sides_shown():
    """ALKEMY, "Jet characteristic in opposition": both totals are 10; the explanation says the
    higher characteristic decided it."""
    r = rules.roll(SYSTEM, {"characteristic": 2, "opponent": {"characteristic": 5}},
                   ScriptedRng([4, 4, 1, 4]))
    assert [d["face"] for d in r["dice"]] == [4, 4]
    assert [d["face"] for d in r["opponent"]["dice"]] == [1, 4]
    assert r["opponent"]["value"] == 10
    assert r["tied_rounds"] == [] and r["rerolls"] == 0
    assert any("higher characteristic" in line for line in r["explain"])


def test_marc_may_keep_one_and_four_for_axe_axe():
    """ALKEMY, "Bonus / malus die", 1 bonus die: Marc "could also choose 1 and 4 ... (hache-
    hache)". The kept pair follows the choice; the 5 stays visible, dropped."""
    spec = {"characteristic": 0, "bonus": 1, "difficulty": 9}
    r = rules.roll(SYSTEM, spec, ScriptedRng([4, 5, 1]))
    r2 = rules.act(SYSTEM, spec, r, {"do": "keep", "dice": [2, 0]}, ScriptedRng([]))
    assert r2["kept"] == [0, 2]
    assert r2["dice_total"] == 5 and r2["outcome"] == "failure"
    assert r2["symbols"] == ["axe", "axe"] and r2["pair"] == "axe–axe"
    assert [d["role"] for d in r2["dice"]] == ["kept", "dropped", "kept"]
    assert r2["changed"] == {"side": "initiator", "from": [0, 1], "to": [0, 2]}
    assert [s["do"] for s in r2["stages"]] == ["roll", "keep"]
    assert rules.replay(SYSTEM, r2["spec"], r2["stages"]) == r2


def test_malus_keeps_two_lowest_marked():
    """ALKEMY, "Bonus / malus die", 1 malus die: "retains the two lowest values"; the others
    stay visible as dropped."""
    r = rules.roll(SYSTEM, {"characteristic": 0, "malus": 2}, ScriptedRng([5, 1, 3, 4]))
    assert [d["role"] for d in r["dice"]] == ["dropped", "kept", "kept", "dropped"]


# --------------------------------------------------------------------------
# Net dice (RULES-NOTES ALKEMY 2).

@pytest.mark.parametrize("bonus, malus, net, thrown, left_out", [
    pytest.param(2, 1, 1, 3, 0, id="text-2-bonus-1-malus-gives-1-bonus"),
    pytest.param(3, 1, 2, 4, 0, id="text-3-bonus-1-malus-gives-2-bonus"),
    pytest.param(1, 1, 0, 2, 0, id="text-1-bonus-1-malus-gives-none"),
    pytest.param(0, 0, 0, 2, 0, id="plain-roll"),
    pytest.param(5, 0, 2, 4, 3, id="limit-4-thrown-bonus"),
    pytest.param(1, 6, -2, 4, 3, id="limit-4-thrown-malus"),
])
def test_net_dice(bonus, malus, net, thrown, left_out):
    """ALKEMY, "Calculating the number of bonus / malus dice" and "Limit
    launched and kept dice": net = bonus - malus, at most 4 thrown."""
    n = alkemy.net_dice(bonus, malus)
    assert (n["net"], n["thrown"], n["left_out"]) == (net, thrown, left_out)


@pytest.mark.parametrize("bonus, malus", [(5, 0), (0, 7), (10, 1)], ids=["bonus5", "malus7", "bonus10-malus1"])
def test_never_more_than_four_dice(bonus, malus):
    """"a player can not pitch more than four": exactly four draws, and the
    explanation says dice were left out."""
    rng = ScriptedRng([2, 6, 3, 5])
    r = rules.roll(SYSTEM, {"characteristic": 1, "bonus": bonus, "malus": malus}, rng)
    assert rng.exhausted and len(r["dice"]) == 4
    assert sum(d["role"] == "kept" for d in r["dice"]) == 2
    assert any("left out" in line for line in r["explain"])


def test_describe_net_words():
    """The tab's line "2 bonus, 1 malus → 1 bonus die" comes from the rules."""
    assert alkemy.describe_net(alkemy.net_dice(2, 1)) == "2 bonus, 1 malus → 1 bonus die"
    assert alkemy.describe_net(alkemy.net_dice(1, 3)) == "1 bonus, 3 malus → 2 malus dice"


# --------------------------------------------------------------------------
# Opposed tie-breaks (RULES-NOTES ALKEMY 3).

def test_equal_characteristics_reroll_until_one_wins():
    """"If the characteristics are identical, players start again until one
    of them wins": the tied round stays in the result; draws go initiator
    then opponent, round by round."""
    spec = {"characteristic": 3, "opponent": {"characteristic": 3}}
    rng = ScriptedRng([2, 5, 4, 3, 6, 6, 1, 1])
    r = rules.roll(SYSTEM, spec, rng)
    assert rng.exhausted
    assert r["rerolls"] == 1 and len(r["tied_rounds"]) == 1
    tied = r["tied_rounds"][0]
    assert [d["face"] for d in tied["dice"]] == [2, 5]
    assert [d["face"] for d in tied["opponent"]["dice"]] == [4, 3]
    assert tied["value"] == tied["opponent"]["value"] == 10
    assert r["value"] == 15 and r["opponent"]["value"] == 5
    assert r["outcome"] == "success" and r["winner"] == "initiator" and not r["capped"]


def test_reroll_cap_stated():
    """The reroll loop is bounded: at the cap the result says so, nobody
    has won, and the outcome is its own, ``tie``: "still tied after N
    rerolls: the GM decides", never a silent failure."""
    spec = {"characteristic": 3, "opponent": {"characteristic": 3}, "max_rerolls": 2}
    rng = ScriptedRng([3, 3, 3, 3] * 3)
    r = rules.roll(SYSTEM, spec, rng)
    assert rng.exhausted
    assert r["capped"] and r["rerolls"] == 2 and r["reroll_cap"] == 2
    assert r["outcome"] == "tie" and r["winner"] is None
    assert r["explain"][-1] == "Still tied after 2 rerolls, the cap (a GM setting): the GM decides."


def test_tie_sits_between_failure_and_success():
    """DESIGN.md's outcome order, worst to best."""
    assert rules.OUTCOMES[SYSTEM] == ("failure", "tie", "success")


def test_no_rerolls_allowed_a_tie_is_the_gms():
    """``max_rerolls: 0``: equal totals and equal characteristics are a tie
    at once, with no further draw; unequal totals still decide."""
    spec = {"characteristic": 4, "opponent": {"characteristic": 4}, "max_rerolls": 0}
    rng = ScriptedRng([2, 5, 3, 4])
    r = rules.roll(SYSTEM, spec, rng)
    assert rng.exhausted and r["outcome"] == "tie" and r["capped"] and r["rerolls"] == 0
    assert rules.roll(SYSTEM, spec, ScriptedRng([2, 6, 3, 4]))["outcome"] == "success"


def test_tie_odds_with_no_rerolls_match_enumeration():
    """With ``max_rerolls: 0`` the tie is a real share of the rolls: the odds
    give it the mass that enumerating every draw through ``rules.roll``
    finds tied (a white 1-6 hand against a yellow 1-5 one)."""
    spec = {"characteristic": 2, "faces": "by_health", "max_rerolls": 0,
            "opponent": {"characteristic": 2, "health": "yellow"}}
    counts: dict = {}
    draws = list(itertools.product(range(1, 7), range(1, 7), range(1, 6), range(1, 6)))
    for d in draws:
        o = rules.roll(SYSTEM, spec, ScriptedRng(d))["outcome"]
        counts[o] = counts.get(o, 0) + 1
    o = rules.odds(SYSTEM, spec)
    assert counts["tie"] > 0
    for name in ("failure", "tie", "success"):
        assert o["outcome"][name] == pytest.approx(counts[name] / len(draws), abs=1e-12)
    assert o["capped"] == pytest.approx(counts["tie"] / len(draws), abs=1e-12)


def test_higher_characteristic_wins_without_reroll():
    """Equal totals, different characteristics: no reroll, no further draw."""
    rng = ScriptedRng([6, 6, 4, 5])
    r = rules.roll(SYSTEM, {"characteristic": 4, "opponent": {"characteristic": 7}}, rng)
    assert rng.exhausted and r["outcome"] == "failure" and r["rerolls"] == 0


def test_opponent_keep_in_opposed_roll_can_cause_reroll():
    """Keeping another pair re-judges the round; a new tie between equal
    characteristics rerolls (the draws come with the keep step) and replays."""
    spec = {"characteristic": 2, "opponent": {"characteristic": 2, "bonus": 1}}
    r = rules.roll(SYSTEM, spec, ScriptedRng([4, 5, 6, 5, 4]))
    assert r["opponent"]["kept"] == [0, 1] and r["outcome"] == "failure"
    r2 = rules.act(SYSTEM, spec, r, {"do": "keep", "dice": [2, 1], "side": "opponent"},
                   ScriptedRng([6, 6, 1, 1, 2]))
    assert len(r2["tied_rounds"]) == 1
    assert r2["tied_rounds"][0]["opponent"]["value"] == 11
    assert r2["outcome"] == "success" and r2["value"] == 14
    assert r2["stages"][-1]["draws"] == [6, 6, 1, 1, 2]
    assert rules.replay(SYSTEM, r2["spec"], r2["stages"]) == r2


# --------------------------------------------------------------------------
# Steps that are not allowed.

BAD_KEEPS = [
    pytest.param({"malus": 1}, [1, 2, 3], {"do": "keep", "dice": [0, 2]}, "action", id="keep-on-malus"),
    pytest.param({}, [1, 2], {"do": "keep", "dice": [0, 1]}, "action", id="keep-without-bonus"),
    pytest.param({"bonus": 1}, [1, 2, 3], {"do": "keep", "dice": [0]}, "dice", id="one-die"),
    pytest.param({"bonus": 1}, [1, 2, 3], {"do": "keep", "dice": [0, 1, 2]}, "dice", id="three-dice"),
    pytest.param({"bonus": 1}, [1, 2, 3], {"do": "keep", "dice": [1, 1]}, "dice", id="same-die-twice"),
    pytest.param({"bonus": 1}, [1, 2, 3], {"do": "keep", "dice": [0, 3]}, "dice", id="no-such-die"),
    pytest.param({"bonus": 1}, [1, 2, 3], {"do": "keep", "dice": [0, True]}, "dice", id="bool-index"),
    pytest.param({"bonus": 1}, [1, 2, 3], {"do": "keep", "dice": "0,1"}, "dice", id="dice-not-a-list"),
    pytest.param({"bonus": 1}, [1, 2, 3], {"do": "keep", "dice": [0, 1], "side": "opponent"}, "side",
                 id="opponent-side-without-opponent"),
    pytest.param({"bonus": 1}, [1, 2, 3], {"do": "keep", "dice": [0, 1], "side": "gm"}, "side", id="bad-side"),
    pytest.param({"bonus": 1}, [1, 2, 3], {"do": "reroll", "dice": [0]}, "action", id="unknown-verb"),
    pytest.param({"bonus": 1}, [1, 2, 3], {"do": "keep", "dice": [0, 1], "x": 1}, "action", id="unknown-argument"),
]


@pytest.mark.parametrize("extra, draws, action, field", BAD_KEEPS)
def test_keep_not_allowed(extra, draws, action, field):
    """A step the rules do not allow raises SpecError naming the field."""
    spec = {"characteristic": 3, **extra}
    r = rules.roll(SYSTEM, spec, ScriptedRng(draws))
    with pytest.raises(SpecError) as e:
        rules.act(SYSTEM, spec, r, action, ScriptedRng([]))
    assert e.value.field == field


@pytest.mark.parametrize("tamper", [
    lambda r: r["dice"].pop(),
    lambda r: r["dice"][0].update(draw=9),
    lambda r: r["dice"][0].update(draw="1"),
    lambda r: r["dice"][0].update(role="kept"),
    lambda r: r.update(dice="x"),
    lambda r: r.update(kept=[1, 2], outcome="success"),
], ids=["missing-die", "draw-off-die", "draw-not-int", "three-kept", "dice-not-list", "kept-and-outcome"])
def test_keep_ignores_a_tampered_copy(tamper):
    """``keep`` rebuilds the hands from the recorded stages, so a
    result's dice altered beside them never reach the rules: the step gives
    what it gives on the true result, and so do its odds."""
    spec = {"characteristic": 3, "bonus": 1}
    r = rules.roll(SYSTEM, spec, ScriptedRng([1, 2, 3]))
    action = {"do": "keep", "dice": [0, 1]}
    good = rules.act(SYSTEM, spec, r, action, ScriptedRng([]))
    odds = rules.odds(SYSTEM, spec, r, action)
    tamper(r)
    assert rules.act(SYSTEM, spec, r, action, ScriptedRng([])) == good
    assert rules.odds(SYSTEM, spec, r, action) == odds


@pytest.mark.parametrize("stages", [
    [{"do": "roll", "draws": [1, 2]}],
    [{"do": "roll", "draws": [1, 2, 7]}],
    [{"do": "roll", "draws": [1, 2, "3"]}],
    [{"do": "roll", "draws": [1, 2, 3, 4]}],
    [{"do": "keep", "dice": [0, 1], "draws": [1, 2, 3]}],
    [{"do": "roll", "draws": [1, 2, 3]}, {"do": "keep", "dice": [0, 0], "draws": []}],
    [{"do": "roll", "draws": [1, 2, 3]}, {"do": "keep", "dice": [0, 1], "draws": [4]}],
    "x",
], ids=["missing-draw", "draw-off-die", "draw-not-int", "extra-draw", "no-roll-first", "forged-keep",
        "keep-with-draws", "stages-not-list"])
def test_keep_on_tampered_stages(stages):
    """Stages the rules did not record give SpecError, not a crash."""
    spec = {"characteristic": 3, "bonus": 1}
    r = {**rules.roll(SYSTEM, spec, ScriptedRng([1, 2, 3])), "stages": stages}
    with pytest.raises(SpecError):
        rules.act(SYSTEM, spec, r, {"do": "keep", "dice": [0, 1]}, ScriptedRng([]))
    with pytest.raises(SpecError):
        rules.odds(SYSTEM, spec, r, {"do": "keep", "dice": [0, 1]})


# --------------------------------------------------------------------------
# The spec.

BAD_SPECS = [
    pytest.param([], "spec", id="not-a-dict"),
    pytest.param({"characteristic": -1}, "characteristic", id="negative-characteristic"),
    pytest.param({"characteristic": "eight"}, "characteristic", id="text-characteristic"),
    pytest.param({"characteristic": 2.5}, "characteristic", id="fraction"),
    pytest.param({"difficulty": 1000}, "difficulty", id="huge-difficulty"),
    pytest.param({"bonus": 11}, "bonus", id="too-many-bonus"),
    pytest.param({"malus": True}, "malus", id="bool-malus"),
    pytest.param({"health": "green"}, "health", id="bad-colour"),
    pytest.param({"health": ["white"]}, "health", id="colour-list"),
    pytest.param({"faces": "d8"}, "faces", id="bad-faces"),
    pytest.param({"opponent": 5}, "opponent", id="opponent-not-dict"),
    pytest.param({"opponent": {}}, "opponent.characteristic", id="opponent-needs-characteristic"),
    pytest.param({"opponent": {"characteristic": 3, "skill": 1}}, "opponent", id="opponent-unknown-key"),
    pytest.param({"opponent": {"characteristic": 3, "health": "blue"}}, "opponent.health", id="opponent-colour"),
    pytest.param({"opponent": {"characteristic": 3}, "difficulty": 12}, "difficulty", id="both-difficulty-and-opponent"),
    pytest.param({"max_rerolls": 101}, "max_rerolls", id="cap-too-high"),
    pytest.param({"colour": "white"}, "colour", id="unknown-key"),
]


@pytest.mark.parametrize("spec, field", BAD_SPECS)
def test_bad_spec_names_the_field(spec, field):
    """Every invalid field raises SpecError naming it (the page shows it there)."""
    with pytest.raises(SpecError) as e:
        rules.normalize(SYSTEM, spec)
    assert e.value.field == field


def test_defaults_and_names_any_case():
    """Every default is filled; names are accepted in any case with spaces."""
    s = rules.normalize(SYSTEM, {"health": " RED ", "faces": "By Health"})
    assert s == {"characteristic": 8, "bonus": 0, "malus": 0, "health": "red",
                 "difficulty": 15, "opponent": None, "faces": "by_health", "max_rerolls": 20}
    assert rules.default_spec(SYSTEM) == rules.normalize(SYSTEM, {})
    assert alkemy.OUTCOMES == rules.OUTCOMES[SYSTEM]


def _json_value(rnd: random.Random, depth: int = 0):
    """A random JSON value, biased toward what a spec field might hold."""
    kind = rnd.randrange(10 if depth < 2 else 7)
    if kind == 0:
        return None
    if kind == 1:
        return rnd.choice([True, False])
    if kind == 2:
        return rnd.choice([0, 1, 2, 5, 15, 30, 31, 99, 100, -1, 10**12, rnd.randint(-50, 150)])
    if kind == 3:
        return rnd.choice([0.0, 2.5, 8.0, -0.0, float("inf"), float("nan"), 1e300, rnd.uniform(-5, 40)])
    if kind in (4, 5, 6):
        return rnd.choice(["", "8", " 12 ", "-3", "x", "White", "RED", " yellow ", "by health", "plain",
                           "d6", "1e3", "٣", "white\n", "0x10", "𝟙"])
    if kind == 7:
        return [_json_value(rnd, depth + 1) for _ in range(rnd.randrange(4))]
    keys = list(alkemy.SPEC_KEYS) + ["", "opponent", "extra"]
    return {rnd.choice(keys): _json_value(rnd, depth + 1) for _ in range(rnd.randrange(5))}


@pytest.mark.parametrize("seed", range(4))
def test_fuzzed_specs_normalize_or_raise_specerror(seed):
    """Any JSON value either normalizes, rolls and round-trips, or raises
    SpecError, never another exception (a seeded fuzz, so it also runs
    under Pyodide; d20's test_any_valid_roll)."""
    rnd = random.Random(seed)
    valid = 0
    for _ in range(150):
        spec = _json_value(rnd)
        if isinstance(spec, dict) and rnd.random() < 0.5:
            spec["opponent"] = {k: _json_value(rnd, 2) for k in rnd.sample(alkemy.OPPONENT_KEYS, 2)}
        try:
            norm = rules.normalize(SYSTEM, spec)
        except SpecError:
            continue
        valid += 1
        r = rules.roll(SYSTEM, norm, random.Random(rnd.random()))
        assert json.loads(json.dumps(r)) == r
        assert r["outcome"] in alkemy.OUTCOMES
        assert rules.replay(SYSTEM, norm, r["stages"]) == r
    assert valid > 0


# --------------------------------------------------------------------------
# Dice: one draw each, right faces, replay, JSON.

SPECS = [
    pytest.param({"characteristic": 4, "difficulty": 10}, id="plain"),
    pytest.param({"characteristic": 4, "bonus": 2, "health": "yellow"}, id="two-bonus-yellow"),
    pytest.param({"characteristic": 4, "malus": 1, "health": "red", "faces": "by_health"}, id="malus-red-reduced"),
    pytest.param({"characteristic": 4, "bonus": 1, "opponent": {"characteristic": 4, "malus": 3,
                                                                "health": "yellow"}, "faces": "by_health"},
                 id="opposed-reduced"),
    pytest.param({"characteristic": 0, "opponent": {"characteristic": 0}, "faces": "by_health",
                  "health": "red"}, id="opposed-equal-many-ties"),
]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("seed", [1, 7, 2024])
def test_roll_invariants(spec, seed):
    """One ``randint(1, n)`` per die, n the colour's face count; faces on the
    die; same seed, same result; replay and JSON round-trip give it back."""
    rng = CheckingRng(seed)
    r = rules.roll(SYSTEM, spec, rng)
    norm = r["spec"]
    all_dice = list(r["dice"]) + list(r.get("opponent", {}).get("dice", []))
    for t in r.get("tied_rounds", []):
        all_dice += t["dice"] + t["opponent"]["dice"]
    assert len(rng.calls) == len(all_dice)
    for d in all_dice:
        health = d["colour"]
        faces = alkemy.FACE_SETS[norm["faces"]][health]
        assert d["face"] in d["faces"] and len(d["faces"]) == len(faces)
        assert (d["face"], d["symbol"]) == faces[d["draw"] - 1]
    assert all(a == 1 for a, _ in rng.calls)
    assert rules.roll(SYSTEM, spec, random.Random(seed)) == rules.roll(SYSTEM, spec, random.Random(seed))
    assert json.loads(json.dumps(r)) == r
    assert rules.replay(SYSTEM, norm, r["stages"]) == r


def test_reduced_faces_by_health():
    """RULES-NOTES ALKEMY 1, the GM's alternative: white 1-6, yellow 1-5, red 1-4."""
    sizes = {c: len(alkemy.FACE_SETS["by_health"][c]) for c in alkemy.HEALTH}
    assert sizes == {"white": 6, "yellow": 5, "red": 4}
    assert all(len(alkemy.FACE_SETS["plain"][c]) == 6 for c in alkemy.HEALTH)
    with pytest.raises(SpecError):
        rules.roll(SYSTEM, {"health": "red", "faces": "by_health"}, ScriptedRng([5, 1]))
    r = rules.roll(SYSTEM, {"health": "red", "faces": "by_health"}, ScriptedRng([4, 1]))
    assert r["explain"][0].startswith("Dice faces: Reduced by health")


def test_marc_symbol_pair_in_data():
    """ALKEMY, "Bonus / malus die": a white 1 and 4 are "hache-hache" (axe-axe) in every face set."""
    for name in alkemy.FACE_SETS:
        white = dict(alkemy.FACE_SETS[name]["white"])
        assert white[1] == white[4] == "axe"


# --------------------------------------------------------------------------
# Odds against brute force.

def _sizes(norm):
    def hand(side):
        n = alkemy.net_dice(side["bonus"], side["malus"])["thrown"]
        return [len(alkemy.FACE_SETS[norm["faces"]][side["health"]])] * n
    return hand(norm) + (hand(norm["opponent"]) if norm["opponent"] else [])


def _enumerate(spec):
    """Brute force over one round: every draw of every die through
    ``rules.roll`` with no rerolls allowed, giving the value distribution,
    P(win outright) and P(tied, needing a reroll). Then the rerolls by plain
    recursion: P(win with k rerolls left) = win + tie * P(win with k - 1)."""
    norm = rules.normalize(SYSTEM, spec)
    sizes = _sizes(norm)
    per_round = list(itertools.product(*[range(1, s + 1) for s in sizes]))
    w = Fraction(1, len(per_round))
    values: dict[int, Fraction] = {}
    win = tie = Fraction(0)
    for draws in per_round:
        r = rules.roll(SYSTEM, {**norm, "max_rerolls": 0}, ScriptedRng(draws))
        values[r["value"]] = values.get(r["value"], 0) + w
        if r.get("capped"):
            tie += w
        elif r["outcome"] == "success":
            win += w
    success, still = Fraction(0), Fraction(1)
    for _ in range(norm["max_rerolls"] + 1):
        success = win + tie * success
        still = tie * still
    return values, success, still


def test_full_tree_enumeration_with_a_reroll():
    """Every sequence of draws, rerolls included, through ``rules.roll``: a
    round that needs more draws extends the sequence (red reduced dice,
    one reroll allowed, so the tree stays small)."""
    spec = {"characteristic": 1, "faces": "by_health", "health": "red", "max_rerolls": 1,
            "opponent": {"characteristic": 1, "health": "red"}}
    norm = rules.normalize(SYSTEM, spec)
    per_round = list(itertools.product(range(1, 5), repeat=4))
    w = Fraction(1, len(per_round))
    success = capped = Fraction(0)
    for first in per_round:
        try:
            r = rules.roll(SYSTEM, norm, ScriptedRng(first))
            success += w if r["outcome"] == "success" else 0
        except SpecError:  # tied: the second round's draws are needed
            for second in per_round:
                r = rules.roll(SYSTEM, norm, ScriptedRng(first + second))
                success += w * w if r["outcome"] == "success" else 0
                capped += w * w if r["capped"] else 0
    o = rules.odds(SYSTEM, spec)
    assert o["outcome"]["success"] == pytest.approx(float(success), abs=1e-12)
    assert o["capped"] == pytest.approx(float(capped), abs=1e-12)


BRUTE = [
    pytest.param({"characteristic": 8, "difficulty": 15}, id="julien-plain"),
    pytest.param({"characteristic": 2, "bonus": 2, "difficulty": 12}, id="two-bonus"),
    pytest.param({"characteristic": 2, "malus": 3, "difficulty": 6}, id="two-malus-clamped"),
    pytest.param({"characteristic": 1, "bonus": 1, "faces": "by_health", "health": "yellow",
                  "difficulty": 8}, id="yellow-reduced-bonus"),
    pytest.param({"characteristic": 2, "bonus": 1, "opponent": {"characteristic": 5}}, id="opposed-char-differs"),
    pytest.param({"characteristic": 1, "faces": "by_health", "health": "red", "max_rerolls": 3, "bonus": 1,
                  "opponent": {"characteristic": 1, "health": "yellow"}}, id="opposed-equal-bonus-rerolls"),
    pytest.param({"characteristic": 4, "malus": 1, "health": "yellow", "faces": "by_health",
                  "opponent": {"characteristic": 4, "bonus": 1, "health": "red"}},
                 id="opposed-equal-malus-vs-bonus-default-cap"),
]


@pytest.mark.parametrize("spec", BRUTE)
def test_odds_match_brute_force(spec):
    """``rules.odds`` (exact, closed form with the geometric tie series) equals
    enumerating every draw through ``rules.roll``, rerolls by recursion; the
    mass still tied at the cap is the outcome ``tie``."""
    values, success, still = _enumerate(spec)
    o = rules.odds(SYSTEM, spec)
    assert o["exact"] is True
    assert o["value"] == pytest.approx({k: float(v) for k, v in values.items()}, abs=1e-12)
    assert o["outcome"]["success"] == pytest.approx(float(success), abs=1e-12)
    assert o["outcome"]["tie"] == pytest.approx(float(still), abs=1e-12)
    assert sum(o["outcome"].values()) == pytest.approx(1.0)


def test_odds_by_net_and_extra_dice():
    """``by_net`` gives P(success) for each net -2..+2 (each equals the odds of
    that net's own spec); ``extra`` shows one more bonus or malus die."""
    base = {"characteristic": 6, "difficulty": 14, "bonus": 1, "malus": 1}
    o = rules.odds(SYSTEM, base)
    for net in range(-2, 3):
        spec = {**base, "bonus": max(net, 0), "malus": max(-net, 0)}
        assert o["by_net"][net] == pytest.approx(rules.odds(SYSTEM, spec)["outcome"]["success"])
    ps = [o["by_net"][k] for k in range(-2, 3)]
    assert ps == sorted(ps) and ps[0] < ps[-1]
    assert o["extra"] == {"bonus": o["by_net"][1], "malus": o["by_net"][-1]}


def test_geometric_series_symmetry():
    """Equal sides with equal characteristics: each wins half, less the tiny
    mass still tied at the cap (stated as ``capped``)."""
    o = rules.odds(SYSTEM, {"characteristic": 3, "opponent": {"characteristic": 3}})
    tie = Fraction(146, 1296)
    assert o["tie"] == pytest.approx(float(tie))
    assert o["capped"] == pytest.approx(float(tie ** 21))
    assert o["outcome"]["success"] == pytest.approx(float((1 - tie ** 21) / 2))
    assert o["outcome"]["tie"] == pytest.approx(float(tie ** 21))


@pytest.mark.parametrize("pair, success", [([0, 1], 1.0), ([0, 2], 0.0)], ids=["best-pair", "axe-axe"])
def test_odds_after_keep(pair, success):
    """Given a result and a ``keep``, the odds are of keeping that pair."""
    spec = {"characteristic": 0, "bonus": 1, "difficulty": 9}
    r = rules.roll(SYSTEM, spec, ScriptedRng([4, 5, 1]))
    o = rules.odds(SYSTEM, spec, r, {"do": "keep", "dice": pair})
    assert o["outcome"]["success"] == success


def test_odds_after_keep_that_ties():
    """A keep that makes a tie between equal characteristics: the odds are of
    the rerolls to come."""
    spec = {"characteristic": 2, "opponent": {"characteristic": 2, "bonus": 1}}
    r = rules.roll(SYSTEM, spec, ScriptedRng([4, 5, 6, 5, 4]))
    o = rules.odds(SYSTEM, spec, r, {"do": "keep", "dice": [1, 2], "side": "opponent"})
    assert o["tie"] is True and 0.2 < o["outcome"]["success"] < 0.5


def test_heaviest_odds_are_whole():
    """The heaviest question (both sides four dice, opposed, equal
    characteristics) gives a whole distribution."""
    alkemy._kept_counts.cache_clear()
    spec = {"characteristic": 3, "bonus": 4, "opponent": {"characteristic": 3, "malus": 2}}
    o = rules.odds(SYSTEM, spec)
    assert sum(o["outcome"].values()) == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(3))
def test_fuzzed_keep_actions(seed):
    """Any action on a bonus roll either keeps a pair (and replays) or raises
    SpecError, never another exception."""
    rnd = random.Random(seed)
    spec = {"characteristic": 2, "bonus": 2, "opponent": {"characteristic": 2, "bonus": 1}}
    r = rules.roll(SYSTEM, spec, random.Random(seed))
    for _ in range(100):
        action = {"do": rnd.choice(["keep", "keep", "reroll", ""])}
        if rnd.random() < 0.9:
            action["dice"] = [_json_value(rnd, 2) if rnd.random() < 0.2 else rnd.randint(-1, 4)
                              for _ in range(rnd.choice([1, 2, 2, 2, 3]))]
        if rnd.random() < 0.7:
            action["side"] = rnd.choice(["initiator", "opponent", "gm", None, 3])
        try:
            r2 = rules.act(SYSTEM, spec, r, action, random.Random(rnd.random()))
        except SpecError:
            continue
        assert sorted(r2["changed"]["to"]) == r2["changed"]["to"]
        assert rules.replay(SYSTEM, r2["spec"], r2["stages"]) == r2


def test_keep_with_a_deeply_nested_die_number_is_refused():
    """Regression (hostile input): a die number nested thousands deep, or a huge
    one, is a SpecError with a short message (the message once printed the
    bad value whole, which recursed through it)."""
    deep: list = []
    cur = deep
    for _ in range(3000):  # past the recursion limit; far deeper kills Pyodide
        cur.append([])
        cur = cur[0]
    r = rules.roll(SYSTEM, {"bonus": 2}, random.Random(1))
    for bad in (deep, 10 ** 5000, list(range(10 ** 5))):
        with pytest.raises(SpecError) as e:
            rules.act(SYSTEM, r["spec"], r, {"do": "keep", "dice": [bad, 1]})
        assert len(str(e.value)) < 200


def test_keep_that_ties_at_the_cap_is_the_gms():
    """With no rerolls left, a keep that makes equal totals between equal
    characteristics ends tied: the act says ``tie`` and its odds put all
    their mass there."""
    spec = {"characteristic": 2, "opponent": {"characteristic": 2, "bonus": 1}, "max_rerolls": 0}
    r = rules.roll(SYSTEM, spec, ScriptedRng([4, 5, 6, 5, 4]))
    assert r["outcome"] == "failure"
    action = {"do": "keep", "dice": [1, 2], "side": "opponent"}
    o = rules.odds(SYSTEM, spec, r, action)
    assert o["outcome"] == {"failure": 0.0, "tie": 1.0, "success": 0.0} and o["tie"] is True
    r2 = rules.act(SYSTEM, spec, r, action, ScriptedRng([]))
    assert r2["outcome"] == "tie" and r2["capped"] and r2["winner"] is None
