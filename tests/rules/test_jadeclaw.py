"""Jadeclaw rules (its rules text, "Rolling Dice"): every
worked example of the text with its dice forced, the whole "Summary of
Levels and Bonuses" table, the odds against brute-force enumeration, and the
contract (normalize / replay / JSON)."""

from __future__ import annotations

import itertools
import json
import math
import random
from fractions import Fraction

import pytest

import rules
from rules.jadeclaw import model as jc
from rules.dice import ScriptedRng, SpecError, format_pool


def roll(spec, draws):
    return rules.roll("jadeclaw", spec, ScriptedRng(draws))


# --------------------------------------------------------------------------
# Worked examples: Simple Rolls and contests.

SIMPLE_EXAMPLES = [
    # id, spec, draws, value, opponent score, outcome
    ("climbing-the-tree", {"dice": "d10 & d4", "difficulty": "routine"}, [7, 2, 3, 4], 7, 4, "success"),
    ("arm-wrestling-tie", {"dice": "2d12", "opponent": "2d10 & d4"}, [5, 3, 5, 2, 1], 5, 5, "tie"),
    ("wu-and-father-quality-names",
     {"dice": "d12 & d10", "quality": "basic", "opponent": "d12, d8, d4", "opponent_quality": "Expert"},
     [9, 4, 9, 3, 2], 9, 9, "failure"),
    ("wu-and-father-skill-levels",
     {"dice": "d12 & d10", "quality": 5, "opponent": "d12, d8, d4", "opponent_quality": 6},
     [9, 4, 9, 3, 2], 9, 9, "failure"),
    ("father-side-of-wu", {"dice": "d12, d8, d4", "quality": "expert", "opponent": "d12 & d10",
                           "opponent_quality": "basic"}, [9, 3, 2, 9, 4], 9, 9, "success"),
    ("honest-han-overwhelmed", {"dice": "d6", "opponent": "d10"}, [3, 8], 3, 8, "overwhelming_failure"),
    ("in-leng-botch", {"dice": "d10"}, [1], 1, None, "botch"),
    ("mai-li-bonus", {"dice": "d10 & d6", "bonuses": 1, "opponent": "2d10"}, [9, 3, 6, 4], 9, 6, "success"),
    ("jupi-resolve-vs-table", {"dice": "d10 & d6", "opponent": {"faces": [7, 6, 2], "sides": [8, 6, 4]}},
     [9, 2], 9, 7, "success"),
    ("overwhelming-success", {"dice": "d12", "opponent": "d4"}, [12, 3], 12, 3, "overwhelming_success"),
    ("opponent-botches", {"dice": "d6", "opponent": "d4"}, [5, 1], 5, 1, "success"),
    ("double-botch", {"dice": "d4", "opponent": "d4"}, [1, 1], 1, 1, "double_botch"),
    ("double-botch-host-calls-tie", {"dice": "d4", "opponent": "d4", "double_botch": "tie"}, [1, 1], 1, 1, "tie"),
    ("botch-beats-nothing", {"dice": "d8", "difficulty": "trivial"}, [1, 4], 1, 4, "botch"),
    ("tie-without-both-qualities", {"dice": "d8", "quality": "mythic", "difficulty": "trivial"}, [4, 4], 4, 4, "tie"),
]


@pytest.mark.parametrize("spec,draws,value,oscore,outcome",
                         [c[1:] for c in SIMPLE_EXAMPLES], ids=[c[0] for c in SIMPLE_EXAMPLES])
def test_simple_examples(spec, draws, value, oscore, outcome):
    """The text's Simple Roll examples ("Simple Rolls", "... Or is It a
    Tie?", "'5 or more'", "'All ones'"; RULES-NOTES Jadeclaw 1, 4, 5) with
    their dice forced: Score, the opposition's Score and the outcome."""
    r = roll(spec, draws)
    assert (r["value"], r["opponent_score"], r["outcome"]) == (value, oscore, outcome)
    assert r["outcome"] in jc.OUTCOMES


def test_tree_score_is_seven_not_one():
    """RULES-NOTES Jadeclaw 1: the tree example's Score is 7 (OCR "1")."""
    r = roll({"dice": "d10 & d4", "difficulty": "routine"}, [7, 2, 3, 4])
    assert r["value"] == 7 and r["margin"] == 3
    assert [d["face"] for d in r["opponent"]] == [3, 4]


PREP_EXAMPLES = [
    # id, spec, prepared pool (largest first)
    ("mai-li-one-bonus", {"dice": "d10 & d6", "bonuses": 1}, [12, 8]),
    ("shi-xintan-one-bonus", {"dice": "d12 & d6", "bonuses": 1}, [12, 10]),
    ("shi-xintan-two-bonuses", {"dice": "d12 & d6", "bonuses": 2}, [12, 12, 4]),
    ("magnificent-weasel-strike-hard", {"kind": "damage", "dice": "d12 & d8", "bonuses": 1}, [12, 12]),
    ("biaochi-broken-staff", {"kind": "damage", "dice": "2d8 & d4", "penalties": 1}, [8, 8]),
    ("number-21-mouth-attack-twice", {"dice": "2d12, d10, d4", "remove": 1}, [12, 10, 4]),
    ("wei-kuangrui-encumbrance-limit", {"dice": "d12, d10, d4", "limit": "d8"}, [8, 8, 4]),
    ("zhu-retreat-die", {"dice": "d10 & d6", "include": "d8"}, [10, 8, 6]),
    ("bonus-and-penalty-cancel", {"dice": "d10 & d6", "bonuses": 1, "penalties": 1}, [10, 6]),
    ("two-bonuses-one-penalty", {"dice": "d10 & d6", "bonuses": 2, "penalties": 1}, [12, 8]),
    ("damage-penalty-cancelled", {"kind": "damage", "dice": "2d8 & d4", "penalties": 1, "bonuses": 1},
     [8, 8, 4]),
    ("order-include-remove-limit-bonus",
     {"dice": "d12 & d6", "include": "d10", "remove": 1, "limit": "d8", "bonuses": 1}, [10, 8]),
]


@pytest.mark.parametrize("spec,pool", [c[1:] for c in PREP_EXAMPLES], ids=[c[0] for c in PREP_EXAMPLES])
def test_preparation_examples(spec, pool):
    """Include, Remove, Limit, Bonuses and damage Penalties, in the text's
    order ("What is the proper sequence of modifiers"): the examples of Mai
    Li, Shi Xintan, Magnificent Weasel, Biaochi, Number 21 Mouth, Wei
    Kuangrui and Cowardly Zhu give the dice the text says."""
    norm = jc.normalize(spec)
    assert jc.prepare(norm)[0] == pool
    r = rules.roll("jadeclaw", spec, random.Random(1))
    assert r["pool"] == pool
    assert sorted((d["sides"] for d in r["dice"]), reverse=True) == pool


def test_du_cheng_fa_penalty():
    """"Du Cheng-fa ... rolls a 2 and a 5, for a Score of 5. The second time
    he rolls an 8 and a 4 ... worst Score ... is a 5": both rolls kept in
    the result, the first marked kept, the other's dice dropped."""
    r = roll({"dice": "d12 & d10", "penalties": 1}, [2, 5, 8, 4])
    assert [[d["face"] for d in x["dice"]] for x in r["rolls"]] == [[2, 5], [8, 4]]
    assert [x["score"] for x in r["rolls"]] == [5, 8]
    assert [x["kept"] for x in r["rolls"]] == [True, False]
    assert r["value"] == 5 and r["kept_roll"] == 0
    assert all(d["role"] == "dropped" for d in r["rolls"][1]["dice"])
    assert r["dice"] == r["rolls"][0]["dice"]


def test_shuang_fa_kuan_two_penalties_botch():
    """Two Penalties = three rolls (RULES-NOTES Jadeclaw 3): Scores 7, 1, 4;
    the worst, 1, is a Botch."""
    r = roll({"dice": "d8 & d6", "penalties": 2}, [7, 3, 1, 1, 4, 2])
    assert [x["score"] for x in r["rolls"]] == [7, 1, 4]
    assert r["kept_roll"] == 1 and r["value"] == 1 and r["outcome"] == "botch"


@pytest.mark.parametrize("penalties", [1, 2, 3, 4], ids=lambda k: f"{k}-penalties")
def test_penalties_roll_k_plus_one_times(penalties):
    """k Penalties on a Simple Roll = k + 1 rolls (RULES-NOTES Jadeclaw 3)."""
    r = rules.roll("jadeclaw", {"dice": "d12", "penalties": penalties}, random.Random(penalties))
    assert len(r["rolls"]) == penalties + 1
    assert r["value"] == min(x["score"] for x in r["rolls"])
    assert len(r["stages"][0]["draws"]) == penalties + 1


def test_favored_reroll_example():
    """"d12, d10, & d8 ... came up 4, 6, and 1, you could re-roll the 1. If
    it came up 7, your Score has improved!\""""
    r = roll({"dice": "d12, d10, d8", "favored": True}, [4, 6, 1, 7])
    assert r["value"] == 7
    d8 = r["dice"][2]
    assert d8["sides"] == 8 and d8["history"] == [1, 7] and d8["role"] == "rerolled"


def test_favored_rerolls_the_largest_die_showing_one():
    """"If you have a choice between multiple 1's to re-roll, you should
    choose the largest die" - and only one."""
    r = roll({"dice": "d12 & d8", "favored": True}, [1, 1, 5])
    assert [d["history"] for d in r["dice"]] == [[1, 5], [1]]
    assert r["value"] == 5


def test_favored_on_each_penalty_roll():
    """RULES-NOTES Jadeclaw 6: the Favored re-roll happens on each Penalty
    roll (draws: roll 1, its re-roll, roll 2, its re-roll)."""
    r = roll({"dice": "d6", "favored": True, "penalties": 1}, [1, 4, 1, 3])
    assert [x["score"] for x in r["rolls"]] == [4, 3] and r["value"] == 3


def test_no_zim_ta_may_skip_the_roll():
    """"d10 & d8, that's more than the 2d8 difficulty" - the rule of thumb
    hint is on, in the result and in the odds; not with a Penalty."""
    spec = {"dice": "d10 & d8", "difficulty": "intermediate"}
    assert roll(spec, [3, 2, 5, 4])["auto_success"] is True
    assert rules.odds("jadeclaw", spec)["auto_success"] is True
    assert rules.odds("jadeclaw", {**spec, "penalties": 1})["auto_success"] is False
    assert rules.odds("jadeclaw", {"dice": "d12", "difficulty": "intermediate"})["auto_success"] is False


@pytest.mark.parametrize("pool,diff,expected", [
    ([10, 8], [8, 8], True), ([8, 8], [8, 8], True), ([12], [8, 8], False),
    ([12, 12, 4], [12, 12], True), ([10, 10], [12], False), ([6, 6, 6], [4, 4], True)],
    ids=["no-zim-ta", "equal", "fewer-dice", "more-dice", "smaller", "bigger-more"])
def test_auto_success_rule_of_thumb(pool, diff, expected):
    """"rolling dice that are the same size (or bigger) in the same quantity
    (or more)\""""
    assert jc.auto_success(pool, diff) is expected


# --------------------------------------------------------------------------
# Damage Rolls.

def test_jupi_two_hits():
    """Jupi: d8, d6 & d4 showing 7, 6, 2 against soak d8 & d6 showing 8, 3:
    7 < 8 (RULES-NOTES Jadeclaw 1), 6 > 3 one hit, 2 > an imaginary 1 one
    hit: 2 hits; the pairs are kept as matched columns."""
    r = roll({"kind": "damage", "dice": "d8, d6, d4", "soak": "d8 & d6"}, [7, 6, 2, 8, 3])
    assert r["value"] == 2 and r["outcome"] == "hits"
    assert [(p["damage"]["face"], p["soak"]["face"], p["hits"]) for p in r["pairs"]] == [
        (7, 8, 0), (6, 3, 1), (2, 1, 1)]
    assert r["pairs"][2]["soak"]["role"] == "imaginary"


DAMAGE_EXAMPLES = [
    # id, spec, draws, hits
    ("two-hits-by-five", {"kind": "damage", "dice": "d12", "soak": "d6"}, [9, 4], 2),
    ("one-never-hits", {"kind": "damage", "dice": "d12", "soak": []}, [1], 0),
    ("imaginary-one-six-is-two", {"kind": "damage", "dice": "d12"}, [6], 2),
    ("all-one-soak-extra-hit", {"kind": "damage", "dice": "d6", "soak": "2d4"}, [3, 1, 1], 2),
    ("all-one-soak-even-if-damage-misses", {"kind": "damage", "dice": "d6", "soak": "d4"}, [1, 1], 1),
    ("slaying-two-per-winning-die", {"kind": "damage", "dice": "d8, d6", "soak": "d8, d4",
                                     "damage_type": "slaying"}, [5, 4, 6, 3], 2),
    ("enervated-only-overwhelm", {"kind": "damage", "dice": "d12, d8", "soak": "d6, d4",
                                  "damage_type": "enervated"}, [11, 5, 6, 1], 1),
    ("slaying-and-enervated-cancel", {"kind": "damage", "dice": "d12, d8", "soak": "d6, d4",
                                      "damage_type": "Slaying and Enervated"}, [11, 5, 6, 1], 3),
    ("tie-no-hit", {"kind": "damage", "dice": "d8", "soak": "d8"}, [5, 5], 0),
    ("extra-soak-unused", {"kind": "damage", "dice": "d8", "soak": "d8, d6, d4"}, [8, 2, 3, 4], 1),
    ("favored-damage", {"kind": "damage", "dice": "d10, d8", "soak": "d4", "favored": True}, [1, 3, 9, 2], 3),
    ("penalties-take-every-die", {"kind": "damage", "dice": "d8", "penalties": 2, "soak": "d6"}, [4], 0),
    ("spell-difficulty-dice-as-effect-dice", {"kind": "damage", "dice": {"faces": [9, 3], "sides": [10, 10]},
                                              "soak": "d6"}, [2], 3),
]


@pytest.mark.parametrize("spec,draws,hits", [c[1:] for c in DAMAGE_EXAMPLES], ids=[c[0] for c in DAMAGE_EXAMPLES])
def test_damage_examples(spec, draws, hits):
    """"Damage Rolls", "Out of Soak Dice? The imaginary 1", "Botching on the
    Soak Dice", "Slaying Damage", "Enervated Damage" (RULES-NOTES Jadeclaw 7)."""
    r = roll(spec, draws)
    assert r["value"] == hits
    assert r["outcome"] == ("hits" if hits else "no_hits")
    assert sum(p["hits"] for p in r["pairs"]) + (1 if r["soak_botch"] else 0) == hits


@pytest.mark.parametrize("d,s,kind,hits", [
    (2, 1, "normal", 1), (6, 1, "normal", 2), (5, 1, "normal", 1), (1, 1, "normal", 0),
    (7, 6, "normal", 1), (11, 6, "normal", 2), (6, 6, "normal", 0), (3, 9, "normal", 0),
    (7, 6, "slaying", 2), (12, 1, "slaying", 2), (6, 6, "slaying", 0),
    (7, 6, "enervated", 0), (11, 6, "enervated", 1), (12, 1, "enervated", 1),
    (7, 6, "slaying_and_enervated", 1)],
    ids=lambda v: str(v))
def test_pair_hits_table(d, s, kind, hits):
    """The damage half of "Summary of Die Rolls", with its footnotes."""
    assert jc.pair_hits(d, s, jc._effective_type(kind)) == hits


# --------------------------------------------------------------------------
# The whole "Summary of Levels and Bonuses" table, copied from the text
# (OCR "412" read as d12, RULES-NOTES Jadeclaw 1).

TEXT_TABLE = """\
none	zero	d4	d6	d8	d10	d12	d12 & d4
1	d4	d6	d8	d10	412	412 & d4	412 & d6
2	d6	d8	d10	412	412 & d4	412 & d6	412 & d8
3	d8	d10	412	412 & d4	412 & d6	412 & d8	412 & d10
4	d10	412	412 & d4	412 & d6	412 & d8	412 & d10	2d12
5	412	412 & d4	412 & d6	412 & d8	412 & d10	2d12	2d12 & d4
6	412 & d4	412 & d8	2d12	2d12 & d6	2d12 & d10	3d12 & d4	3d12 & d8
7	412 & d6	412 & d10	2d12 & d4	2d12 & d8	3d12	3d12 & d6	3d12 & d10
8	412 & d8	2d12	2d12 & d6	2d12 & d10	3d12 & d4	3d12 & d8	4d12
9	412 & d10	2d12 & d4	2d12 & d8	3d12	3d12 & d6	3d12 & d10	4d12 & d4
10	2d12	2d12 & d6	2d12 & d10	3d12 & d4	3d12 & d8	4d12	4d12 & d6
11	2d12 & d4	2d12 & d10	3d12 & d6	4d12	4d12 & d8	5d12 & d4	5d12 & d10
12	2d12 & d6	3d12	3d12 & d8	4d12 & d4	4d12 & d10	5d12 & d6	6d12
13	2d12 & d8	3d12 & d4	3d12 & d10	4d12 & d6	5d12	5d12 & d8	6d12 & d4
14	2d12 & d10	3d12 & d6	4d12	4d12 & d8	5d12 & d4	5d12 & d10	6d12 & d6
15	3d12	3d12 & d8	4d12 & d4	4d12 & d10	5d12 & d6	6d12	6d12 & d8
16	3d12 & d4	4d12	4d12 & d10	5d12 & d8	6d12 & d6	7d12 & d4	8d12
17	3d12 & d6	4d12 & d4	5d12	5d12 & d10	6d12 & d8	7d12 & d6	8d12 & d4
18	3d12 & d8	4d12 & d6	5d12 & d4	6d12	6d12 & d10	7d12 & d8	8d12 & d6
19	3d12 & d10	4d12 & d8	5d12 & d6	6d12 & d4	7d12	7d12 & d10	8d12 & d8
20	4d12	4d12 & d10	5d12 & d8	6d12 & d6	7d12 & d4	8d12	8d12 & d10"""

TABLE_CELLS = []
for _line in TEXT_TABLE.splitlines():
    _row = _line.split("\t")
    _level = 0 if _row[0] == "none" else int(_row[0])
    for _b, _cell in enumerate(_row[1:]):
        _cell = _cell.replace("412", "d12")
        TABLE_CELLS.append(pytest.param(_level, _b, _cell, id=f"{_row[0]}-{_b}-bonus"))


@pytest.mark.parametrize("level,bonuses,cell", TABLE_CELLS)
def test_levels_and_bonuses_table(level, bonuses, cell):
    """Every cell of the text's "Summary of Levels and Bonuses" comes out of
    the rule (RULES-NOTES Jadeclaw 2): level L = L size steps, each Bonus one
    increase per die, d12 carry-over, a new d4; the "none" row too."""
    pool = jc.apply_bonuses(jc.level_pool(level), bonuses)
    assert (format_pool(pool) if pool else "zero") == cell
    assert jc.levels_table()[level][bonuses] == cell


def test_table_has_every_cell():
    """The copied table is complete: 21 rows of 7 cells."""
    assert len(TABLE_CELLS) == 21 * 7


@pytest.mark.parametrize("level,bonuses", [(0, 1), (6, 2), (20, 6)], ids=["none+1", "6+2", "20+6"])
def test_level_spec_rolls_the_table_pool(level, bonuses):
    """A spec by ``level`` rolls the table's pool."""
    r = rules.roll("jadeclaw", {"level": level, "bonuses": bonuses}, random.Random(0))
    assert r["pool"] == jc.apply_bonuses(jc.level_pool(level), bonuses)


@pytest.mark.parametrize("q,name", [(0, "none"), (1, "basic"), (5, "basic"), (6, "expert"), (10, "expert"),
                                    (11, "heroic"), (16, "legendary"), (20, "legendary"), (21, "mythic"),
                                    (90, "mythic"), ("Heroic", "heroic")], ids=lambda v: str(v))
def test_quality_from_skill_level(q, name):
    """RULES-NOTES Jadeclaw 5: every 5 levels of Skill improves Quality."""
    assert jc.quality_name(jc.normalize({"quality": q})["quality"]) == name


# --------------------------------------------------------------------------
# Odds against brute force.

def brute_simple(spec):
    """Enumerate every draw sequence (Favored re-rolls and Penalty rolls
    included) through ``roll`` itself."""
    norm = jc.normalize(spec)
    pool = jc.prepare(norm)[0]
    label, opp = jc.opposition(norm)
    out_v, out_o = {}, {}

    def rolls_of(pool, favored):
        for faces in itertools.product(*[range(1, s + 1) for s in pool]):
            w = Fraction(1, 1)
            for s in pool:
                w /= s
            if favored and 1 in faces:
                j = faces.index(1)
                for g in range(1, pool[j] + 1):
                    yield list(faces) + [g], w / pool[j]
            else:
                yield list(faces), w

    single = list(rolls_of(pool, norm["favored"]))
    k = norm["penalties"]
    opp_rolls = [([], Fraction(1))] if not isinstance(opp, list) else [
        (list(f), Fraction(1, len(list(itertools.product(*[range(1, s + 1) for s in opp])))))
        for f in itertools.product(*[range(1, s + 1) for s in opp])]
    for seq in itertools.product(single, repeat=k + 1):
        w = Fraction(1)
        draws = []
        for d, p in seq:
            draws += d
            w *= p
        for od, op in opp_rolls:
            r = jc.roll(norm, ScriptedRng(draws + od))
            out_v[r["value"]] = out_v.get(r["value"], 0) + w * op
            out_o[r["outcome"]] = out_o.get(r["outcome"], 0) + w * op
    return out_v, out_o


ODDS_CASES = [
    ("single-d6", {"dice": "d6"}),
    ("tree", {"dice": "d10 & d4", "difficulty": "routine"}),
    ("favored-penalty", {"dice": "d6 & d4", "favored": True, "penalties": 1, "opponent": "d8"}),
    ("two-penalties", {"dice": "d8", "penalties": 2, "opponent": "d6 & d4"}),
    ("qualities", {"dice": "d6 & d4", "quality": "expert", "opponent": "d6", "opponent_quality": 3}),
    ("double-botch-tie", {"dice": "d4", "opponent": "d4", "double_botch": "tie", "favored": True}),
    ("vs-table", {"dice": "d8 & d6", "opponent": {"faces": [5, 2]}}),
]


@pytest.mark.parametrize("spec", [c[1] for c in ODDS_CASES], ids=[c[0] for c in ODDS_CASES])
def test_simple_odds_match_brute_force(spec):
    """The Score distribution (Favored and Penalties included) and every
    contest outcome equal a full enumeration of the draws through ``roll``."""
    norm = jc.normalize(spec)
    pool = jc.prepare(norm)[0]
    exact = jc.score_dist(pool, norm["favored"], norm["penalties"])
    bv, bo = brute_simple(spec)
    assert exact == bv
    o = rules.odds("jadeclaw", spec)
    assert o["exact"] is True
    for name, p in bo.items():
        assert o["outcome"][name] == pytest.approx(float(p), abs=1e-12)
    assert sum(o["outcome"].values()) == pytest.approx(1.0)
    if norm["opponent"] is not None or norm["difficulty"]:
        assert set(o["outcome"]) == set(jc.CONTEST_OUTCOMES)


def brute_damage(dmg, soak, kind, favored):
    out = {}
    for d in itertools.product(*[range(1, s + 1) for s in dmg]):
        w = Fraction(1)
        for s in dmg:
            w /= s
        outs = [(list(d), w)]
        if favored and 1 in d:
            j = d.index(1)  # dice largest first
            outs = [(list(d[:j]) + [g] + list(d[j + 1:]), w / dmg[j]) for g in range(1, dmg[j] + 1)]
        for dd, wd in outs:
            for s in itertools.product(*[range(1, x + 1) for x in soak]):
                ws = Fraction(1)
                for x in soak:
                    ws /= x
                pairs, botch = jc.damage_pairs(dd, list(s), kind)
                h = botch + sum(p[2] for p in pairs)
                out[h] = out.get(h, 0) + wd * ws
    return out


DAMAGE_ODDS = [
    ("jupi", [8, 6, 4], [8, 6], "normal", False),
    ("favored", [10, 6], [8, 4], "normal", True),
    ("slaying", [12, 8], [10], "slaying", True),
    ("enervated", [12, 12], [6, 4], "enervated", False),
    ("cancel", [10], [4, 4], "slaying_and_enervated", False),
    ("no-soak", [8, 4], [], "normal", True),
    ("more-soak", [6], [8, 6, 4], "normal", False),
]


@pytest.mark.parametrize("dmg,soak,kind,favored", [c[1:] for c in DAMAGE_ODDS], ids=[c[0] for c in DAMAGE_ODDS])
def test_damage_odds_match_brute_force(dmg, soak, kind, favored):
    """The exact hits scan equals enumerating every face of both sides."""
    got = {h: p for h, p in jc.hits_dist(dmg, soak, kind, favored, exact=True).items() if p}
    assert got == brute_damage(sorted(dmg, reverse=True), soak, kind, favored)


def test_damage_odds_with_soak_on_table():
    """Soak faces already on the table: the scan places them with certainty."""
    got = {h: p for h, p in jc.hits_dist([8, 6], [5, 2], "normal", True, soak_fixed=True).items() if p}
    want = {}
    for h, p in brute_damage([8, 6], [5], "normal", True).items():
        pass
    # brute force with the soak fixed: enumerate the damage side only
    for d in itertools.product(range(1, 9), range(1, 7)):
        w = Fraction(1, 48)
        outs = [(list(d), w)]
        if 1 in d:
            j = d.index(1)
            s = [8, 6][j]
            outs = [(list(d[:j]) + [g] + list(d[j + 1:]), w / s) for g in range(1, s + 1)]
        for dd, wd in outs:
            pairs, botch = jc.damage_pairs(dd, [5, 2])
            h = botch + sum(x[2] for x in pairs)
            want[h] = want.get(h, 0) + wd
    assert got == want


def test_damage_odds_in_odds_and_jupi_mean():
    """``rules.odds`` for a Damage Roll: exact, sums to 1, and no_hits is the
    chance of 0 hits."""
    o = rules.odds("jadeclaw", {"kind": "damage", "dice": "d8, d6, d4", "soak": "d8 & d6"})
    assert o["exact"] is True
    assert sum(o["value"].values()) == pytest.approx(1.0)
    assert o["outcome"]["no_hits"] == pytest.approx(o["value"][0])
    exact = brute_damage([8, 6, 4], [8, 6], "normal", False)
    for h, p in exact.items():
        assert o["value"][h] == pytest.approx(float(p), abs=1e-12)


def test_big_damage_odds_are_sampled_and_seeded():
    """Past the exact bound the hits are sampled with a seed from the spec:
    the same question gives the same answer, and the margin is stated."""
    spec = {"kind": "damage", "level": 40, "bonuses": 6, "soak": "6d12", "favored": True}
    a = rules.odds("jadeclaw", spec)
    b = rules.odds("jadeclaw", spec)
    assert a == b
    assert a["exact"] is False and a["samples"] >= 500 and 0 < a["margin"] < 0.05
    assert sum(a["value"].values()) == pytest.approx(1.0)


@pytest.mark.parametrize("spec", [
    {"kind": "damage", "dice": "3d12", "soak": "3d12", "favored": True},
    {"kind": "damage", "dice": "4d12", "soak": "4d12"},
    {"dice": "40d12", "penalties": 20, "favored": True, "opponent": "4d12"},
], ids=["3v3-favored", "4v4", "huge-simple"])
def test_heavy_odds_are_whole(spec):
    """The heaviest questions still give a whole distribution."""
    o = rules.odds("jadeclaw", spec)
    assert sum(o["value"].values()) == pytest.approx(1.0)


def test_odds_refuses_actions():
    with pytest.raises(SpecError):
        rules.odds("jadeclaw", {"dice": "d8"}, action={"do": "reroll"})


# --------------------------------------------------------------------------
# The contract.

@pytest.mark.parametrize("spec,field", [
    ({"dice": "d7"}, "dice"), ({"dice": 5}, "dice"), ({"level": 99}, "level"), ({"level": 3, "dice": "d12"}, "dice"),
    ({"kind": "attack"}, "kind"), ({"remove": 3, "dice": "d8"}, "remove"), ({"limit": "d5"}, "limit"),
    ({"bonuses": -1}, "bonuses"), ({"penalties": 21}, "penalties"), ({"favored": "maybe"}, "favored"),
    ({"difficulty": "impossible"}, "difficulty"), ({"opponent": "d8", "difficulty": "routine"}, "difficulty"),
    ({"opponent": {"faces": [13]}}, "opponent"), ({"opponent": {"faces": [7], "sides": [6]}}, "opponent"),
    ({"quality": "grand"}, "quality"), ({"opponent_quality": -2}, "opponent_quality"),
    ({"soak": "d3"}, "soak"), ({"damage_type": "fire"}, "damage_type"), ({"double_botch": "x"}, "double_botch"),
    ({"colour": "red"}, "colour"), ({"dice": {"faces": [5]}, "bonuses": 1}, "bonuses"),
    ({"level": 0}, "level"), ({"dice": "d8", "remove": 1}, "remove"), ({"kind": "damage", "dice": []}, "dice"), ({"dice": "40d12", "bonuses": 5}, "bonuses"),
], ids=lambda v: str(v)[:40])
def test_spec_errors_name_the_field(spec, field):
    """A bad spec raises SpecError naming the field (what the page shows
    beside that control)."""
    with pytest.raises(SpecError) as e:
        jc.normalize(spec)
    assert e.value.field == field


def test_names_in_any_case_and_defaults():
    s = jc.normalize({"difficulty": "For Experts Only", "kind": "Damage", "damage_type": "SLAYING"})
    assert (s["difficulty"], s["kind"], s["damage_type"]) == ("for_experts_only", "damage", "slaying")
    assert jc.normalize({"dice": "d8"})["dice"] == [8]
    assert rules.default_spec("jadeclaw")["dice"] == [12, 8]


SPECS = [c[1] for c in SIMPLE_EXAMPLES] + [c[1] for c in PREP_EXAMPLES] + [c[1] for c in DAMAGE_EXAMPLES] + [
    {"level": 12, "bonuses": 3, "penalties": 1, "favored": True, "difficulty": "for_heroes_only"},
    {"kind": "damage", "dice": "d12, d10", "soak": {"faces": [4, 1]}, "favored": True},
]


@pytest.mark.parametrize("spec", SPECS, ids=[f"spec{i}" for i in range(len(SPECS))])
def test_normalize_idempotent_replay_and_json(spec):
    """normalize(normalize(x)) == normalize(x); a result round-trips through
    JSON and replays from its recorded draws."""
    n = jc.normalize(spec)
    assert jc.normalize(n) == n
    for seed in range(3):
        r = rules.roll("jadeclaw", spec, random.Random(seed))
        assert json.loads(json.dumps(r)) == r
        assert rules.replay("jadeclaw", r["spec"], r["stages"]) == r


def test_act_is_refused():
    """Jadeclaw has no verbs after a roll."""
    r = rules.roll("jadeclaw", {"dice": "d8"}, random.Random(0))
    with pytest.raises(SpecError):
        rules.act("jadeclaw", {"dice": "d8"}, r, {"do": "reroll"})


def test_faces_within_sides_and_draw_count():
    """Every die drawn with one randint: the draws are the faces (and
    histories) in order, and each face lies on its die."""
    spec = {"level": 9, "penalties": 2, "favored": True, "opponent": "d12, d6"}
    for seed in range(20):
        r = rules.roll("jadeclaw", spec, random.Random(seed))
        dice = [d for x in r["rolls"] for d in x["dice"]] + r["opponent"]
        assert all(1 <= h <= d["sides"] for d in dice for h in d["history"])
        assert len(r["stages"][0]["draws"]) == sum(len(d["history"]) for d in dice)


def _json_value(rng, depth=0):
    """A random JSON value, biased towards the shapes a Jadeclaw spec uses."""
    pick = rng.randrange(12 if depth < 2 else 8)
    if pick == 0:
        return None
    if pick == 1:
        return rng.choice([True, False])
    if pick == 2:
        return rng.randint(-50, 50)
    if pick == 3:
        return rng.choice([0.5, -1.0, 3.0, 1e12, float("inf")])
    if pick == 4:
        return "".join(rng.choice("d12&, 4xX-_ ") for _ in range(rng.randrange(8)))
    if pick in (5, 6, 7):
        return rng.choice(["d8", "2d12 & d4", "routine", "damage", "expert", "Slaying", "", "tie",
                           3, 12, [12, 4], {"faces": [3, 1]}, {"faces": [9], "sides": [4]}, "none"])
    if pick in (8, 9):
        return [_json_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = list(jc.KEYS) + ["x", ""]
    return {rng.choice(keys): _json_value(rng, depth + 1) for _ in range(rng.randrange(6))}


@pytest.mark.parametrize("seed", range(4), ids=lambda s: f"seed{s}")
def test_any_json_normalizes_or_raises_spec_error(seed):
    """Any JSON value either normalizes (and then rolls, with a JSON-able
    result) or raises SpecError - never another exception. Seeded fuzz
    (no property-testing library) so this also runs under Pyodide."""
    rng = random.Random(seed)
    for _ in range(150):
        spec = _json_value(rng)
        if rng.random() < 0.7:
            spec = {k: _json_value(rng, 1) for k in rng.sample(jc.KEYS, rng.randrange(1, 5))}
        try:
            n = jc.normalize(spec)
        except SpecError:
            continue
        r = rules.roll("jadeclaw", n, random.Random(0))
        assert r["outcome"] in jc.OUTCOMES
        assert json.loads(json.dumps(r)) == r


# --------------------------------------------------------------------------
# The other side's own modifiers: the opposing dice (or a Difficulty's) and
# the soak dice take their own Bonuses, Penalties, Favored and Limit.

OPPOSING_EXAMPLES = [
    # id, spec, draws (the roller's, then the opposition's), the opposition's Scores per roll,
    # the kept one, the outcome
    ("du-cheng-fa-as-the-npc", {"dice": "d8", "opponent": "d12 & d10", "opponent_penalties": 1},
     [6, 2, 5, 8, 4], [5, 8], 0, "success"),
    ("shuang-fa-kuan-as-the-npc-botches", {"dice": "d6", "opponent": "d8 & d6", "opponent_penalties": 2},
     [3, 7, 3, 1, 1, 4, 2], [7, 1, 4], 1, "success"),
    ("the-npc-is-favored", {"dice": "d10", "opponent": "d12, d10, d8", "opponent_favored": True},
     [6, 4, 6, 1, 7], [7], 0, "failure"),
    ("wei-kuangrui-dodges-with-a-limit", {"dice": "d12 & d10", "opponent": "d12, d10, d4", "opponent_limit": "d8"},
     [9, 3, 8, 2, 4], [8], 0, "success"),
    ("the-bartender-gets-a-bonus", {"dice": "d10 & d6", "opponent": "2d10", "opponent_bonuses": 1},
     [9, 3, 11, 4], [11], 0, "failure"),
    ("their-bonus-and-penalty-cancel", {"dice": "d6", "opponent": "d8", "opponent_bonuses": 1,
                                        "opponent_penalties": 1}, [5, 4], [4], 0, "success"),
    ("a-difficulty-under-a-penalty", {"dice": "d8 & d6", "difficulty": "routine", "opponent_penalties": 1},
     [5, 1, 6, 2, 3, 4], [6, 4], 1, "success"),
    ("favored-on-each-of-their-penalty-rolls", {"dice": "d4", "opponent": "d6", "opponent_favored": True,
                                                "opponent_penalties": 1}, [4, 1, 5, 1, 2], [5, 2], 1, "success"),
]


@pytest.mark.parametrize("spec,draws,scores,kept,outcome", [c[1:] for c in OPPOSING_EXAMPLES],
                         ids=[c[0] for c in OPPOSING_EXAMPLES])
def test_the_opposing_side_takes_its_own_modifiers(spec, draws, scores, kept, outcome):
    """The text's examples with the other side in the role: an NPC under a
    Penalty "rolls twice and takes the worse" (Du Cheng-fa; two Penalties,
    three rolls, Shuang Fa-kuan's Botch), a Favored NPC re-rolls one 1, a
    Limit caps their dice (Wei Kuangrui's Dodge), a Bonus grows them (Mai
    Li's bartender). Every draw is used, in order: the roller's first."""
    r = roll(spec, draws)
    assert [x["score"] for x in r["opponent_rolls"]] == scores
    assert r["opponent_kept_roll"] == kept and r["opponent_score"] == scores[kept]
    assert r["opponent"] == r["opponent_rolls"][kept]["dice"]
    assert r["outcome"] == outcome
    assert r["stages"][0]["draws"] == draws
    for i, x in enumerate(r["opponent_rolls"]):
        assert x["kept"] is (i == kept)
        assert all(d["role"] == "dropped" for d in x["dice"]) is (i != kept)


def test_a_limited_opponent_rolls_the_limited_dice():
    """Wei Kuangrui: "his Dodge Dice drop to 2d8 and d4"."""
    r = roll({"dice": "d12 & d10", "opponent": "d12, d10, d4", "opponent_limit": 8}, [9, 3, 8, 2, 4])
    assert r["opponent_pool"] == [8, 8, 4]
    assert [d["sides"] for d in r["opponent"]] == [8, 8, 4]


def test_draw_order_both_sides_penalized_and_favored():
    """DESIGN's order: the roller's rolls (each with its Favored re-roll),
    then the opponent's rolls in the same way."""
    r = roll({"dice": "d6", "penalties": 1, "favored": True,
              "opponent": "d4", "opponent_penalties": 1, "opponent_favored": True}, [1, 3, 5, 1, 2, 4])
    assert [x["dice"][0]["history"] for x in r["rolls"]] == [[1, 3], [5]]
    assert [x["dice"][0]["history"] for x in r["opponent_rolls"]] == [[1, 2], [4]]
    assert (r["value"], r["opponent_score"], r["outcome"]) == (3, 2, "success")


def test_their_penalties_are_explained_in_words():
    """The result says what the other side's modifiers did, without a
    reference to notes a player has never seen."""
    r = roll({"dice": "d8", "difficulty": "routine", "opponent_bonuses": 1, "opponent_penalties": 2}, [5, 3, 4, 6, 2])
    text = " ".join(r["explain"])
    assert "Routine: 1 Bonus:" not in text  # net: one Penalty left, no size increase
    assert "Routine: 1 Bonus and 1 Penalty cancel one for one" in text
    assert "Their 1 Penalty: 2 rolls, the worst Score counts: 4 (roll 1)." in text
    assert "RULES-NOTES" not in text


SOAK_EXAMPLES = [
    # id, spec, draws (damage, then soak), hits, the soak dice rolled, the soak dice removed
    ("jupi-soak-under-a-penalty", {"kind": "damage", "dice": "d8, d6, d4", "soak": "d8 & d6", "soak_penalties": 1},
     [7, 6, 2, 8], 3, [8], [6]),
    ("jupi-soak-with-a-bonus", {"kind": "damage", "dice": "d8, d6, d4", "soak": "d8 & d6", "soak_bonuses": 1},
     [7, 6, 2, 9, 3], 2, [10, 8], []),
    ("soak-limited", {"kind": "damage", "dice": "d12", "soak": "d12 & d10", "soak_limit": 8},
     [9, 8, 2], 1, [8, 8], []),
    ("favored-soak-saves-a-botch", {"kind": "damage", "dice": "d8", "soak": "d6 & d4", "soak_favored": True},
     [5, 1, 1, 3], 1, [6, 4], []),
    ("favored-soak-rerolls-a-one-again", {"kind": "damage", "dice": "d8", "soak": "d4", "soak_favored": True},
     [5, 1, 1], 2, [4], []),
    ("soak-penalties-take-every-die", {"kind": "damage", "dice": "d6", "soak": "d4", "soak_penalties": 2},
     [3], 1, [], [4]),
    ("both-sides-favored", {"kind": "damage", "dice": "d10, d8", "favored": True, "soak": "d6", "soak_favored": True},
     [1, 3, 9, 1, 2], 3, [6], []),
]


@pytest.mark.parametrize("spec,draws,hits,rolled,removed", [c[1:] for c in SOAK_EXAMPLES],
                         ids=[c[0] for c in SOAK_EXAMPLES])
def test_the_soak_dice_take_their_own_modifiers(spec, draws, hits, rolled, removed):
    """Soak dice are rolled in a Damage Roll, so the Damage Roll's sequence
    is theirs: Bonuses, Limit, each Penalty removes the smallest soak die,
    Favored re-rolls the largest soak die showing 1 (the all-1 Botch is
    judged after it). Damage dice draw first, then soak dice."""
    r = roll(spec, draws)
    assert r["value"] == hits
    assert r["soak_pool"] == rolled and r["soak_removed"] == removed
    assert sorted((d["sides"] for d in r["opponent"]), reverse=True) == rolled
    assert sum(p["hits"] for p in r["pairs"]) + (1 if r["soak_botch"] else 0) == hits


def test_favored_soak_rerolls_the_largest_soak_die_showing_one():
    r = roll({"kind": "damage", "dice": "d8", "soak": "d6 & d4", "soak_favored": True}, [5, 1, 1, 3])
    assert [d["history"] for d in r["opponent"]] == [[1, 3], [1]]
    assert r["soak_botch"] is False
    assert "Favored: re-rolled the d6's 1, which now shows 3" in " ".join(r["explain"])


@pytest.mark.parametrize("spec,field", [
    ({"dice": "d8", "opponent_penalties": 1}, "opponent_penalties"),
    ({"dice": "d8", "opponent_favored": True}, "opponent_favored"),
    ({"dice": "d8", "opponent": {"faces": [5]}, "opponent_bonuses": 1}, "opponent_bonuses"),
    ({"dice": "d8", "opponent": "d6", "opponent_limit": "d5"}, "opponent_limit"),
    ({"dice": "d8", "opponent": "d6", "opponent_penalties": 21}, "opponent_penalties"),
    ({"dice": "d8", "opponent": "40d12", "opponent_bonuses": 1}, "opponent_bonuses"),
    ({"dice": "d8", "opponent": "d6", "opponent_favored": "perhaps"}, "opponent_favored"),
    ({"kind": "damage", "dice": "d8", "soak": {"faces": [3]}, "soak_favored": True}, "soak_favored"),
    ({"kind": "damage", "dice": "d8", "soak": "40d12", "soak_bonuses": 1}, "soak_bonuses"),
    ({"kind": "damage", "dice": "d8", "soak": "d6", "soak_limit": 7}, "soak_limit"),
], ids=lambda v: str(v)[:50])
def test_other_side_modifier_errors_name_the_field(spec, field):
    with pytest.raises(SpecError) as e:
        jc.normalize(spec)
    assert e.value.field == field


def test_old_specs_mean_what_they_meant():
    """A spec without the new keys normalizes to the same roll as one that
    gives them at their defaults, and rolls the same dice from the same
    draws (share links and stored rolls keep working)."""
    old = {"dice": "d12 & d8", "difficulty": "routine", "penalties": 1}
    new = {**old, "opponent_bonuses": 0, "opponent_penalties": 0, "opponent_favored": False, "opponent_limit": None,
           "soak_bonuses": 0, "soak_penalties": 0, "soak_favored": False, "soak_limit": None}
    assert jc.normalize(old) == jc.normalize(new)
    assert roll(old, [2, 5, 8, 4, 3, 3]) == roll(new, [2, 5, 8, 4, 3, 3])
    assert len(roll(old, [2, 5, 8, 4, 3, 3])["stages"][0]["draws"]) == 6


# --------------------------------------------------------------------------
# Exact odds with the other side's modifiers, against every face sequence
# enumerated through ``rules.roll`` itself.

class _Branch(Exception):
    def __init__(self, sides):
        self.sides = sides


class _Probe:
    """Answers a roll's draws from ``prefix``; past it, asks to branch."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.sides = []

    def randint(self, a, b):
        if len(self.sides) == len(self.prefix):
            raise _Branch(b)
        self.sides.append(b)
        return self.prefix[len(self.sides) - 1]


def every_roll(spec):
    """Every draw sequence ``rules.roll`` asks for with this spec, with its
    probability (each draw uniform on its die), found by running the roll
    and branching wherever it asks for one more die."""
    todo = [[]]
    while todo:
        prefix = todo.pop()
        probe = _Probe(prefix)
        try:
            r = rules.roll("jadeclaw", spec, probe)
        except _Branch as b:
            todo.extend(prefix + [f] for f in range(1, b.sides + 1))
            continue
        yield r, math.prod((Fraction(1, s) for s in probe.sides), start=Fraction(1))


def tally(spec, read):
    out = {}
    for r, p in every_roll(spec):
        k = read(r)
        out[k] = out.get(k, 0) + p
    return out


OPPOSING_ODDS = [
    ("npc-penalty-favored", {"dice": "d4", "opponent": "d6", "opponent_penalties": 1, "opponent_favored": True}),
    ("difficulty-net-penalty", {"dice": "d6 & d4", "favored": True, "difficulty": "trivial",
                                "opponent_penalties": 2, "opponent_bonuses": 1}),
    ("limit-favored-qualities", {"dice": "d4", "penalties": 1, "opponent": "d6 & d4", "opponent_limit": 4,
                                 "opponent_favored": True, "quality": "expert", "opponent_quality": "basic"}),
    ("their-bonus", {"dice": "d6", "opponent": "d4", "opponent_bonuses": 1}),
    ("double-botch-tie", {"dice": "d4", "opponent": "d4", "opponent_penalties": 2, "double_botch": "tie"}),
]


@pytest.mark.parametrize("spec", [c[1] for c in OPPOSING_ODDS], ids=[c[0] for c in OPPOSING_ODDS])
def test_opposing_modifier_odds_match_every_roll(spec):
    """The opposing side's Score (their worst of k + 1 rolls, Favored on
    each) and every contest outcome equal the enumeration of every draw."""
    norm = jc.normalize(spec)
    theirs = tally(spec, lambda r: r["opponent_score"])
    pool, _, info = jc.prepare_side(jc.side(norm, "opponent"))
    assert jc.score_dist(pool, norm["opponent_favored"], info["penalties"]) == theirs
    outcomes = tally(spec, lambda r: r["outcome"])
    o = rules.odds("jadeclaw", spec)
    assert o["exact"] is True and o["opponent_rolls"] == info["penalties"] + 1
    assert set(k for k, p in o["outcome"].items() if p) == set(outcomes)
    for name, p in outcomes.items():
        assert o["outcome"][name] == pytest.approx(float(p), abs=1e-12)
    for v, p in tally(spec, lambda r: r["value"]).items():
        assert o["value"][v] == pytest.approx(float(p), abs=1e-12)


SOAK_ODDS = [
    ("favored-soak", {"kind": "damage", "dice": "d6 & d4", "soak": "d6 & d4", "soak_favored": True}),
    ("both-favored-soak-penalty", {"kind": "damage", "dice": "d8", "favored": True, "soak": "d6 & d4 & d4",
                                   "soak_penalties": 1, "soak_favored": True}),
    ("slaying-soak-bonus", {"kind": "damage", "dice": "d6 & d6", "soak": "d4", "soak_bonuses": 1,
                            "damage_type": "slaying"}),
    ("enervated-soak-limit-favored", {"kind": "damage", "dice": "d10 & d4", "soak": "d8 & d6", "soak_limit": 4,
                                      "soak_favored": True, "damage_type": "enervated"}),
    ("table-damage-favored-soak", {"kind": "damage", "dice": {"faces": [6, 2]}, "soak": "d6 & d4",
                                   "soak_favored": True}),
    ("soak-all-removed", {"kind": "damage", "dice": "d4", "soak": "d4", "soak_penalties": 3}),
]


@pytest.mark.parametrize("spec", [c[1] for c in SOAK_ODDS], ids=[c[0] for c in SOAK_ODDS])
def test_soak_modifier_odds_match_every_roll(spec):
    """The exact hits (Fractions) equal the enumeration of every draw of
    both sides through ``rules.roll``; ``rules.odds`` gives them as floats."""
    want = tally(spec, lambda r: r["value"])
    got = jc.damage_dist(jc.normalize(spec), exact=True)
    assert got["exact"] is True
    assert {h: p for h, p in got["dist"].items() if p} == want
    o = rules.odds("jadeclaw", spec)
    assert o["exact"] is True and set(o["value"]) >= set(want)
    for h, p in want.items():
        assert o["value"][h] == pytest.approx(float(p), abs=1e-12)


def test_the_enumeration_would_catch_a_wrong_soak_rule():
    """A control: the soak Penalty read as "roll twice, keep the worse"
    (the Simple Roll's rule) gives other odds than the ones enumerated, so
    the tests above tell the two readings apart."""
    spec = {"kind": "damage", "dice": "d6", "soak": "d6 & d4", "soak_penalties": 1}
    enumerated = tally(spec, lambda r: r["value"])
    both = {}
    for dmg in range(1, 7):
        for s1 in itertools.product(range(1, 7), range(1, 5)):
            for s2 in itertools.product(range(1, 7), range(1, 5)):
                worse = min(s1, s2, key=max)
                pairs, botch = jc.damage_pairs([dmg], list(worse))
                h = botch + sum(p[2] for p in pairs)
                both[h] = both.get(h, 0) + Fraction(1, 6 * 24 * 24)
    assert both != enumerated
