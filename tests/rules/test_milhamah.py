"""Milhamah RPG rules (its rules text, "Roll Mechanics"),
with RULES-NOTES Milhamah 1-9 where the text is silent."""

from __future__ import annotations

import itertools
import json
import random
import sys
import time
from fractions import Fraction

import pytest

import rules
from rules.milhamah import model as M
from rules.milhamah import probability as MO
from rules.dice import ScriptedRng, SpecError

# Face indices (1-12) on the default dice, by design (RULES-NOTES Milhamah 2).
RA = {f: i + 1 for i, f in enumerate(M.die_faces("red", "A"))}
RB = {f: i + 1 for i, f in enumerate(M.die_faces("red", "B"))}
GA = {f: i + 1 for i, f in enumerate(M.die_faces("green", "A"))}
GB = {f: i + 1 for i, f in enumerate(M.die_faces("green", "B"))}
BA = {f: i + 1 for i, f in enumerate(M.die_faces("blue", "A"))}
BB = {f: i + 1 for i, f in enumerate(M.die_faces("blue", "B"))}
W = M.WILD
#: Time limits scale under Pyodide (the browser's Python is 2-3x slower).
SLOW = 3.0 if sys.platform == "emscripten" else 1.0


def faces(result):
    return [d["face"] for d in result["dice"]]


# --------------------------------------------------------------------------
# The dice data (RULES-NOTES Milhamah 2).

@pytest.mark.parametrize("colour", M.COLOURS)
def test_each_colour_holds_every_letter_once_per_design_pair(colour):
    """Designs A + B of a colour carry the 22 letters once each plus two
    wilds, so every colour has the same average (RULES-NOTES Milhamah 2)."""
    both = M.die_faces(colour, "A") + M.die_faces(colour, "B")
    assert sorted(both) == sorted(M.LETTERS + W + W)


@pytest.mark.parametrize("colour", M.COLOURS)
def test_cipher_partners_sit_on_opposite_faces(colour):
    """Each letter's cipher partner is at face 13 - i (RULES-NOTES Milhamah 2:
    Atbash red, Akhbi green, Albam blue)."""
    pairs = {frozenset(p) for p in M.DATA["colours"][colour]["pairs"]}
    for design in ("A", "B"):
        f = M.die_faces(colour, design)
        for i in range(6):
            assert frozenset((f[i], f[11 - i])) in pairs


def test_atbash_pairs_are_the_mirror_alphabet():
    """Red is Atbash: letter k pairs with letter 23 - k."""
    for a, b in M.DATA["colours"]["red"]["pairs"][:11]:
        assert M.LETTERS.index(a) + M.LETTERS.index(b) == 21


# --------------------------------------------------------------------------
# Shoresh and spec validation.

@pytest.mark.parametrize("text,folded", [
    ("אשר", "אשר"), ("חנן", "חננ"), ("שלום", "שלומ"), ("ש ל ם", "שלמ"),
    ("רוּחַ", "רוח"), ("ארץ", "ארצ"), ("כף", "כפ"), ("מלך", "מלכ"),
], ids=["plain", "final-nun-doubled", "four-letters-final-mem", "spaces",
        "niqqud-ignored", "final-tsadi", "final-pe", "final-kaf"])
def test_shoresh_folds_final_forms(text, folded):
    """RULES-NOTES Milhamah 3: final forms fold to base letters."""
    assert M.normalize({"shoresh": text})["shoresh"] == folded


@pytest.mark.parametrize("text,bad", [
    ("אבX", "'X'"), ("a", "'a'"), ("א", "2 to 4"), ("אבגדה", "2 to 4"), ("אב7", "'7'"),
    ("αβ", "'α'"), (5, "Hebrew letters"), ("אב׳", "'׳'"),
], ids=["latin", "latin-only", "one-letter", "five-letters", "digit", "greek", "number", "geresh"])
def test_bad_shoresh_names_the_character(text, bad):
    """Anything but Hebrew letters is a SpecError naming the bad character."""
    with pytest.raises(SpecError) as e:
        M.normalize({"shoresh": text})
    assert e.value.field == "shoresh" and bad in str(e.value)


def test_default_spec_is_valid_and_normalize_is_idempotent():
    n = rules.default_spec("milhamah")
    assert n == M.normalize(n)
    assert n["pool"] == {"red": 4, "green": 4, "blue": 0}
    assert M.OUTCOMES == rules.OUTCOMES["milhamah"]


@pytest.mark.parametrize("name,n", [("Beginner", 1), ("untrained", 1), ("Average", 2), ("CHALLENGING", 3),
                                    ("professional", 4), ("Expert", 5), ("heroic", 6), ("Legendary", 7),
                                    ("miraculous", 8), ("6", 6), (11, 11)],
                         ids=lambda v: str(v))
def test_difficulty_table(name, n):
    """"Unopposed Rolls": Beginner/Untrained 1 ... Miraculous 8+."""
    assert M.normalize({"difficulty": name})["difficulty"] == n


@pytest.mark.parametrize("spec,field", [
    ({"pool": {"red": 5}}, "pool"),
    ({"pool": {"purple": 4}}, "pool"),
    ({"pool": ["red", "red"]}, "pool"),
    ({"pool": ["red", "green"], "forbid": "green"}, "pool"),
    ({"dice_change": 5}, "dice_change"),
    ({"dice_change": -8}, "dice_change"),
    ({"pool": ["red", "green"], "forbid": ["blue"], "dice_change": 1}, "dice_change"),
    ({"rerolls": 13}, "rerolls"),
    ({"rounds": -1}, "rounds"),
    ({"difficulty": "impossible"}, "difficulty"),
    ({"combat": ["flanked"]}, "combat"),
    ({"opponent": {"shoresh": "abc"}}, "opponent.shoresh"),
    ({"opponent": {"shorashim": ["אב", "x"]}}, "opponent.shorashim"),
    ({"colour": "red"}, "colour"),
    ([], "spec"),
], ids=["five-of-a-colour", "unknown-colour", "colour-twice", "forbidden-colour", "no-room",
        "no-dice-left", "no-room-forbidden", "x-too-big", "rounds-negative", "unknown-difficulty",
        "unknown-combat", "opponent-shoresh", "opponent-shorashim", "unknown-key", "not-a-dict"])
def test_bad_spec_names_the_field(spec, field):
    with pytest.raises(SpecError) as e:
        M.normalize(spec)
    assert e.value.field == field


@pytest.mark.parametrize("change,counts", [
    (0, {"red": 4, "green": 4}), (1, {"red": 4, "green": 4, "blue": 1}),
    (4, {"red": 4, "green": 4, "blue": 4}), (-1, {"red": 4, "green": 3}),
    (-3, {"red": 3, "green": 2}),
], ids=["8D", "+1D", "+4D", "-1D", "-3D"])
def test_status_changes_the_pool(change, counts):
    """RULES-NOTES Milhamah 1: ±nD, at most 4 per colour, 12 in all."""
    got = {}
    for c, _d in M.dice_of(M.normalize({"pool": ["red", "green"], "dice_change": change})):
        got[c] = got.get(c, 0) + 1
    assert got == counts


# --------------------------------------------------------------------------
# Worked examples of the text, dice forced.

RACHEL = {"shoresh": "אשר", "pool": ["red", "green"], "rerolls": 3, "difficulty": "challenging"}
# red A, red B, red A, red B, green A, green B, green A, green B
RACHEL_FIRST = [RA["ב"], RB["ז"], RA["ב"], RB["ז"], GA["ב"], GB["מ"], GA["ב"], GB["מ"]]


def test_rachel_prays_for_yonah():
    """Milhamah RPG, "The final results" example: David rolls אשר for Rachel on
    four red and four green, no successes and no wilds; with BLE 3D he
    rerolls three dice and gets ק, ר, ת: one success, two below the
    Challenging 3 needed."""
    spec = M.normalize(RACHEL)
    r = rules.roll("milhamah", spec, ScriptedRng(RACHEL_FIRST))
    assert r["value"] == 0 and r["wilds"] == 0 and r["outcome"] == "botch"
    assert [d["colour"] for d in r["dice"]] == ["red"] * 4 + ["green"] * 4
    assert r["allowed"] == ["reroll", "accept"]
    r2 = rules.act("milhamah", spec, r, {"do": "reroll", "dice": [0, 2, 4]},
                   ScriptedRng([RA["ק"], RA["ר"], GA["ת"]]))
    assert [faces(r2)[i] for i in (0, 2, 4)] == ["ק", "ר", "ת"]
    assert r2["value"] == 1 and r2["needed"] == 3
    assert r2["outcome"] == "failure"
    assert [d["role"] for d in r2["dice"]] == ["rerolled", "frozen", "rerolled", "frozen",
                                              "rerolled", "frozen", "frozen", "frozen"]
    assert r2["dice"][2]["success"] is True and r2["dice"][2]["history"] == ["ב", "ר"]
    assert "1 of 3 needed: failure." in r2["explain"]
    assert r2["allowed"] == []  # one round, spent


def test_rachel_cannot_reroll_four():
    """X = BLE 3D: at most three dice."""
    spec = M.normalize(RACHEL)
    r = rules.roll("milhamah", spec, ScriptedRng(RACHEL_FIRST))
    with pytest.raises(SpecError, match="at most X = 3"):
        rules.act("milhamah", spec, r, {"do": "reroll", "dice": [0, 1, 2, 3]}, ScriptedRng([1] * 4))


ETGAR = {"shoresh": "רוח", "pool": ["red", "blue"], "rerolls": 5,
         "opponent": {"shoresh": "חננ", "rerolls": 3}}


def test_etgar_vs_the_toad_modifier():
    """Milhamah RPG, "Opposed Rolls": Etgar's BLE 3 + wind attack 2 = 5 against
    the Toad's GRA 2 + jump 1 = 3 gives Etgar a +2 modifier (added to his X
    by default, RULES-NOTES Milhamah 7). The Toad reacts with חננ."""
    spec = M.normalize(ETGAR)
    assert spec["opponent"]["shoresh"] == "חננ"
    etgar = [RA["ר"], RB["ח"], RA["ו"], RB["ז"], BA["א"], BB["ז"], BA["א"], BB["ז"]]
    toad = [RA["א"], RB[W], RA["א"], RB["נ"], GA["א"], GB["נ"], GA["א"], GB["מ"]]
    r = rules.roll("milhamah", spec, ScriptedRng(etgar + toad))
    assert r["modifier"] == 2 and r["x"] == 7 and r["opponent"]["x"] == 3
    assert any("+2 modifier" in line for line in r["explain"])
    # Etgar rolled a natural רוח on the first roll: +1 and uncounterable,
    # plus the first-roll bonus.
    assert r["natural"] and r["first_natural"]
    assert r["outcome"] == "natural_success"
    assert r["bonus"] == 1 + 1
    # the Toad's wild does not count when reacting
    assert r["opponent"]["successes"] == 2 and r["opponent"]["wilds"] == 1
    # Etgar's turn comes first: until he chooses the natural's reward the
    # Toad's reaction is neither void nor open.
    assert r["allowed_opponent"] == [] and r["turn"] == "initiator"
    assert not any(d["role"] == "dropped" for d in r["opponent"]["dice"])
    assert not any("void" in line for line in r["explain"])
    u = rules.act("milhamah", spec, r, {"do": "natural", "reward": "uncounterable"}, ScriptedRng([]))
    assert u["outcome"] == "natural_success" and u["bonus"] == 1 + 1
    assert all(d["role"] == "dropped" for d in u["opponent"]["dice"])
    assert "The opponent's reaction is void." in u["explain"] and u["allowed_opponent"] == []


def test_etgar_climbs_the_cliff():
    """Milhamah RPG, the climbing example (closing "Critical failure"): 2D VIG + 2D Athletics lets Dan reroll
    4 dice after the first roll, against difficulty 6 (shoresh טפס, climb,
    chosen for the test)."""
    spec = M.normalize({"shoresh": "טפס", "pool": ["red", "blue"], "rerolls": 2 + 2, "difficulty": 6})
    first = [RA["פ"], RB["ט"], RA["פ"], RB[W], BA["א"], BB["ז"], BA["ב"], BB["ח"]]
    r = rules.roll("milhamah", spec, ScriptedRng(first))
    assert r["value"] == 4 and r["natural"] is False and r["x"] == 4
    with pytest.raises(SpecError):
        rules.act("milhamah", spec, r, {"do": "reroll", "dice": [4, 5, 6, 7, 3]}, ScriptedRng([1] * 5))
    r2 = rules.act("milhamah", spec, r, {"do": "reroll", "dice": [4, 5, 6, 7]},
                   ScriptedRng([BA["ס"], BB["ט"], BA["ג"], BB[W]]))
    assert r2["value"] == 7 and r2["natural"] is True
    # 7 on the dice + 3 for the natural (one per letter); the first-roll
    # bonus is not due (the natural came on the reroll)
    assert r2["bonus"] == 3 and r2["total"] == 10
    assert r2["outcome"] == "natural_success"
    assert [d["face"] for d in r2["dice"][:4]] == ["פ", "ט", "פ", W]  # frozen dice unchanged


# --------------------------------------------------------------------------
# Every outcome reached by forced dice.

SMALL = {"shoresh": "אשר", "pool": {"red": 4}, "rerolls": 2, "difficulty": 2}


@pytest.mark.parametrize("draws,extra,outcome,value", [
    ([RA["ב"], RB[W], RA["ג"], RB[W]], {}, "botch", 2),
    ([RA["א"], RB["ז"], RA["ג"], RB["ח"]], {}, "failure", 1),
    ([RA["א"], RB[W], RA["ג"], RB["ח"]], {}, "success_at_cost", 2),
    ([RA["א"], RB[W], RA["א"], RB[W]], {}, "success", 4),
    ([RA["א"], RB["ז"], RA["ש"], RB["ח"]], {"difficulty": 7}, "failure", 2),
    ([RA["א"], RB[W], RA["א"], RB[W]], {"reaction": True}, "success_at_cost", 2),
], ids=["botch-wilds-dont-rescue", "failure", "success-at-cost-with-wild",
        "success", "failure-vs-7", "reacting-wilds-dont-count"])
def test_outcomes_unopposed(draws, extra, outcome, value):
    """"The final results" and RULES-NOTES Milhamah 3, 5."""
    r = rules.roll("milhamah", {**SMALL, **extra}, ScriptedRng(draws))
    assert (r["outcome"], r["value"]) == (outcome, value)
    if outcome == "botch":
        assert r["wilds"] == 2 and "made worse by 2 wilds" in r["explain"][-1]


def test_natural_first_roll_bonus_and_reward():
    """RULES-NOTES Milhamah 4: a natural on the first roll earns +1 (first
    roll) + 3 (one per letter); choosing the Merit Point drops the letter
    bonus; rerolling forfeits the first-roll bonus."""
    spec = M.normalize({**SMALL, "pool": {"red": 2, "blue": 2}, "difficulty": 5})
    r = rules.roll("milhamah", spec, ScriptedRng([RA["א"], RB["ז"], BA["ב"], BB["ש"]]))
    assert r["outcome"] == "failure" and not r["natural"]
    r = rules.roll("milhamah", spec, ScriptedRng([RA["ר"], RB["ז"], BA["א"], BB["ש"]]))
    assert r["natural"] and r["bonus"] == 4 and r["total"] == 7 and r["outcome"] == "natural_success"
    assert set(r["allowed"]) == {"reroll", "natural"}
    assert any("forfeit" in line for line in r["explain"])
    merit = rules.act("milhamah", spec, r, {"do": "natural", "reward": "merit"}, ScriptedRng([]))
    assert merit["merit_point"] and merit["bonus"] == 1 and merit["outcome"] == "failure"
    assert merit["allowed"] == []
    rr = rules.act("milhamah", spec, r, {"do": "reroll", "dice": [1]}, ScriptedRng([RB["ח"]]))
    assert rr["bonus"] == 3 and rr["outcome"] == "natural_success"
    with pytest.raises(SpecError):
        rules.act("milhamah", spec, rr, {"do": "natural", "reward": "bonus"}, ScriptedRng([]))


def test_doubled_letter_needs_two_dice():
    """RULES-NOTES Milhamah 3-4: חננ counts each נ die once; a natural needs two נ."""
    spec = {"shoresh": "חנן", "pool": {"red": 4}, "difficulty": 1}
    r = rules.roll("milhamah", spec, ScriptedRng([RA["א"], RB["ח"], RA["ב"], RB["נ"]]))
    assert r["value"] == 2 and not r["natural"]
    r = rules.roll("milhamah", spec, ScriptedRng([RA["א"], RB["ח"], RB["נ"], RB["נ"]][:2] + [RA["ב"], RB["נ"]]))
    assert not r["natural"]
    r = rules.roll("milhamah", {**spec, "pool": {"red": 4, "blue": 2}},
                   ScriptedRng([RA["א"], RB["ח"], RA["ב"], RB["נ"], BA["נ"], BB["ז"]]))
    assert r["value"] == 3 and r["natural"]


def test_cipher_flips_to_the_opposite_face():
    """RULES-NOTES Milhamah 2: a cipher flips a die to its opposite face
    (red is Atbash: ב ↔ ש); at most ``cipher`` flips in the turn, logged."""
    spec = M.normalize({**SMALL, "cipher": 1, "rounds": 0})
    r = rules.roll("milhamah", spec, ScriptedRng([RA["ב"], RB["ז"], RA["ג"], RB["ח"]]))
    assert r["allowed"] == ["cipher", "accept"]
    r2 = rules.act("milhamah", spec, r, {"do": "cipher", "dice": [0]}, ScriptedRng([]))
    assert faces(r2)[0] == "ש" and r2["dice"][0]["ciphered"] and r2["dice"][0]["history"] == ["ב", "ש"]
    assert r2["value"] == 1 and any("Cipher" in line for line in r2["explain"])
    assert r2["allowed"] == []
    with pytest.raises(SpecError):
        rules.act("milhamah", spec, r2, {"do": "cipher", "dice": [2]}, ScriptedRng([]))


def test_rounds_zero_forbids_reroll_and_extra_rounds_allow_more():
    """"Some status effects may prevent a Player from rerolling, or even
    allow additional rolls" (``rounds``)."""
    draws = [RA["ב"], RB["ז"], RA["ג"], RB["ח"]]
    r = rules.roll("milhamah", {**SMALL, "rounds": 0}, ScriptedRng(draws))
    assert r["allowed"] == []
    with pytest.raises(SpecError, match="forbids"):
        rules.act("milhamah", {**SMALL, "rounds": 0}, r, {"do": "reroll", "dice": [0]}, ScriptedRng([1]))
    spec = {**SMALL, "rounds": 2}
    r = rules.roll("milhamah", spec, ScriptedRng(draws))
    r = rules.act("milhamah", spec, r, {"do": "reroll", "dice": [0]}, ScriptedRng([RA["ג"]]))
    assert r["allowed"] == ["reroll", "accept"] and r["rounds_left"] == 1
    r = rules.act("milhamah", spec, r, {"do": "reroll", "dice": [0, 1]}, ScriptedRng([RA["א"], RB[W]]))
    assert r["dice"][0]["history"] == ["ב", "ג", "א"] and r["allowed"] == []


def _opposed(me, them, **extra):
    spec = {"shoresh": "אשר", "pool": {"red": 2}, "rerolls": 2,
            "opponent": {"shoresh": "חננ", "pool": {"red": 2}, "rerolls": 2, "shorashim": ["גד"]}, **extra}
    return M.normalize(spec), rules.roll("milhamah", spec, ScriptedRng(me + them))


def test_opposed_compare_counter_and_botch():
    """RULES-NOTES Milhamah 7 and "Critical failure": the reactor's
    successes are the bar; a failed initiator's dice are offered to the
    opponent with any of its shorashim in them; an attacker's botch lets the
    defender pocket its successes and gives it +XR."""
    spec, r = _opposed([RA["א"], RB["ח"]], [RA["ג"], RB["ח"]])
    assert r["opponent"]["successes"] == 1 and r["outcome"] == "success_at_cost"
    spec, r = _opposed([RA["א"], RB["ז"]], [RA["ג"], RB["ז"]])
    assert r["outcome"] == "success"
    spec, r = _opposed([RA["ג"], RB["ח"]], [RA["ב"], RB["ח"]])  # no match, opp has ח
    assert r["outcome"] == "botch" and r["pocket"] == 1 and r["plus_xr"] == 1
    spec, r = _opposed([RA["א"], RB["ז"]], [RA["ב"], RB["ח"]], pocketed=0)
    assert r["outcome"] == "success_at_cost"
    spec, r = _opposed([RA["א"], RB[W]], [RA["ב"], RB["ח"]], reaction=True)
    assert r["outcome"] == "success_at_cost"
    # failed, and the dice hold ג and ד for the opponent's listed גד? only ג here
    spec, r = _opposed([RA["ג"], RA["ג"]][:1] + [RB["ח"]], [RA["א"], RB["ח"]])
    assert r["outcome"] == "botch" and r["counter"] == []


def test_counter_points_out_opponent_shorashim():
    spec = M.normalize({"shoresh": "אשר", "pool": {"red": 3, "blue": 1}, "rerolls": 1,
                        "opponent": {"shoresh": "חננ", "pool": {"blue": 2}, "shorashim": ["גד", "זט"]}})
    r = rules.roll("milhamah", spec, ScriptedRng([RA["ג"], RB["ט"], RA["ד"], BA["א"], BA["נ"], BB["ח"]]))
    assert r["outcome"] == "failure" and r["counter"] == ["גד"]
    assert any("may counter" in line for line in r["explain"])


def test_critical_success_and_hit_location():
    """"The Natural Shoresh" (opposed) and "Critical success": letting the
    opponent react with a natural; zero non-wild successes → critical; the
    hit location letter is drawn from the 22 letters and the margin goes to
    armour, then VIG soak, then wounds (RULES-NOTES Milhamah 8). The
    critical is final, and the hit location offered, only once the
    opponent has reacted (here: stood on its dice)."""
    spec = M.normalize({"shoresh": "אשר", "pool": {"red": 2, "blue": 2}, "rerolls": 2,
                        "opponent": {"shoresh": "חננ", "pool": {"red": 2}}})
    r = rules.roll("milhamah", spec, ScriptedRng([RA["ר"], RB[W], BA["א"], BB["ש"], RA["ב"], RB[W]]))
    assert r["outcome"] == "natural_success" and "natural" in r["allowed"]
    assert "hit_location" not in r["allowed"]
    c = rules.act("milhamah", spec, r, {"do": "natural", "reward": "critical"}, ScriptedRng([]))
    assert c["outcome"] == "critical_success" and c["allowed"] == []
    assert c["allowed_opponent"] == ["reroll", "stand"] and c["turn"] == "opponent"
    c = rules.act("milhamah", spec, c, {"do": "stand", "side": "opponent"}, ScriptedRng([]))
    assert c["outcome"] == "critical_success" and c["allowed"] == ["hit_location"]
    assert c["margin"] == 5  # 3 letters + wild + first-roll bonus, opponent 0
    h = rules.act("milhamah", spec, c, {"do": "hit_location", "armour": 2, "vig": 1, "light": 1,
                                        "serious": 0, "critical": 0}, ScriptedRng([21]))
    assert h["hit"]["letter"] == "ש" and h["hit"]["location"] == "Head"
    assert (h["hit"]["armour"], h["hit"]["vig"], h["hit"]["wounds"]["light"], h["hit"]["beyond"]) == (2, 1, 1, 1)
    assert h["allowed"] == [] and "Head" in h["explain"][-1]
    with pytest.raises(SpecError):
        rules.act("milhamah", spec, h, {"do": "hit_location"}, ScriptedRng([1]))


def test_critical_needs_opponent_zero():
    spec = M.normalize({"shoresh": "אשר", "pool": {"red": 2, "blue": 2}, "rerolls": 2,
                        "opponent": {"shoresh": "חננ", "pool": {"red": 2}}})
    r = rules.roll("milhamah", spec, ScriptedRng([RA["ר"], RB[W], BA["א"], BB["ש"], RA["ב"], RB["ח"]]))
    c = rules.act("milhamah", spec, r, {"do": "natural", "reward": "critical"}, ScriptedRng([]))
    assert c["outcome"] == "natural_success" and "hit_location" not in c["allowed"]


def test_combat_modifiers_move_the_difficulty():
    """RULES-NOTES Milhamah 9: −1 surprised, +1 cover (GM step)."""
    draws = [RA["א"], RB["ז"], RA["ג"], RB["ח"]]
    assert rules.roll("milhamah", {**SMALL, "combat": ["Surprised"]}, ScriptedRng(draws))["outcome"] == "success_at_cost"
    r = rules.roll("milhamah", {**SMALL, "combat": ["cover", "ambushed"]}, ScriptedRng(draws))
    assert r["needed"] == 4 and r["outcome"] == "failure"
    r = rules.roll("milhamah", {**SMALL, "combat": ["cover"], "combat_step": 2}, ScriptedRng(draws))
    assert r["needed"] == 4


def test_opposed_opponent_rerolls():
    """The opponent reacts after the initiator's turn (the initiator stands
    here), seeing the initiator's final dice."""
    spec, r = _opposed([RA["א"], RB["ז"]], [RA["ב"], RB["ז"]])
    assert r["outcome"] == "success" and r["allowed_opponent"] == []
    assert r["allowed"] == ["reroll", "stand"]
    r = rules.act("milhamah", spec, r, {"do": "stand"}, ScriptedRng([]))
    assert r["allowed"] == [] and r["allowed_opponent"] == ["reroll", "stand"]
    r2 = rules.act("milhamah", spec, r, {"do": "reroll", "side": "opponent", "dice": [1]}, ScriptedRng([RB["ח"]]))
    assert r2["opponent"]["successes"] == 1 and r2["outcome"] == "success_at_cost"
    assert r2["dice"] == r["dice"]


# --------------------------------------------------------------------------
# Contract: replay, JSON, draws, fuzz.

def _random_session(seed):
    rng = random.Random(seed)
    spec = {"shoresh": rng.choice(["אשר", "רוח", "חנן", "שלום", "טפס"]),
            "pool": rng.sample(list(M.COLOURS), 2), "rerolls": rng.randint(0, 6),
            "rounds": rng.randint(0, 2), "cipher": rng.randint(0, 2), "difficulty": rng.randint(1, 8),
            "reaction": rng.random() < 0.3}
    if rng.random() < 0.4:
        spec["opponent"] = {"shoresh": "חנן", "rerolls": rng.randint(0, 5), "cipher": 1}
    r = rules.roll("milhamah", spec, rng)
    for _ in range(4):
        side = rng.choice(["initiator", "opponent"] if spec.get("opponent") else ["initiator"])
        verbs = r["allowed"] if side == "initiator" else r["allowed_opponent"]
        if not verbs:
            continue
        verb = rng.choice(verbs)
        n = len(r["dice"] if side == "initiator" else r["opponent"]["dice"])
        if verb == "reroll":
            x = r["x"] if side == "initiator" else r["opponent"]["x"]
            action = {"do": "reroll", "side": side, "dice": rng.sample(range(n), min(n, x, rng.randint(1, 4)))}
        elif verb == "cipher":
            action = {"do": "cipher", "side": side, "dice": [rng.randrange(n)]}
        elif verb == "natural":
            action = {"do": "natural", "reward": rng.choice(["critical", "uncounterable"] if spec.get("opponent")
                                                            else ["merit", "successes"])}
        elif verb in ("stand", "accept"):
            action = {"do": verb, "side": side}
        else:
            action = {"do": "hit_location", "armour": 1}
        r = rules.act("milhamah", spec, r, action, rng)
    return spec, r


@pytest.mark.parametrize("seed", range(40))
def test_replay_rebuilds_and_json_round_trips(seed):
    """A result is a pure function of spec, actions and draws."""
    spec, r = _random_session(seed)
    assert json.loads(json.dumps(r)) == r
    assert rules.replay("milhamah", spec, r["stages"]) == r
    assert r["outcome"] in M.OUTCOMES
    for d in r["dice"]:
        assert d["face"] in d["faces"] and len(d["faces"]) == 12
    n_draws = sum(len(s["draws"]) for s in r["stages"])
    assert n_draws >= len(r["dice"])


def test_each_die_is_one_draw_from_1_to_12():
    class Spy:
        def __init__(self):
            self.calls = []

        def randint(self, a, b):
            self.calls.append((a, b))
            return 1
    spy = Spy()
    rules.roll("milhamah", {"pool": ["red", "green", "blue"], "opponent": {}}, spy)
    assert spy.calls == [(1, 12)] * 20


def test_tampered_result_is_a_spec_error():
    """State is rebuilt from the stages: what a result claims
    beside them never reaches the rules, and stages the rules would refuse,
    or draws that don't fit the dice, are a SpecError."""
    spec = M.normalize(RACHEL)
    r = rules.roll("milhamah", spec, ScriptedRng(RACHEL_FIRST))
    assert "track" not in r and "log" not in r
    step = {"do": "reroll", "dice": [0, 2, 4]}
    want = rules.act("milhamah", spec, r, step, ScriptedRng([RA["ק"], RA["ר"], GA["ת"]]))
    claims = {**json.loads(json.dumps(r)), "dice": [], "outcome": "success", "allowed": [],
              "track": {"sides": "x"}, "log": True, "x": 12}
    assert rules.act("milhamah", spec, claims, step, ScriptedRng([RA["ק"], RA["ר"], GA["ת"]])) == want
    bad_stages = [
        [{"do": "roll", "draws": [13] + RACHEL_FIRST[1:]}],  # not a face
        [{"do": "roll", "draws": RACHEL_FIRST[:-1]}],  # a die short
        [{"do": "roll", "draws": RACHEL_FIRST + [1]}],  # a draw too many
        [{"do": "roll", "draws": RACHEL_FIRST}, {"do": "reroll", "dice": [0, 1, 2, 3], "draws": [1] * 4}],  # > X
        [{"do": "roll", "draws": RACHEL_FIRST}, {"do": "hit_location", "draws": [1]}],  # no critical
        [{"do": "roll", "draws": RACHEL_FIRST}, {"do": "roll", "draws": RACHEL_FIRST}],
        [{"do": "reroll", "dice": [0], "draws": [1]}],
        [],
        "x",
    ]
    for stages in bad_stages:
        with pytest.raises(SpecError):
            rules.act("milhamah", spec, {**r, "stages": stages}, step, ScriptedRng([1, 1, 1]))
        with pytest.raises(SpecError):
            rules.odds("milhamah", spec, {**r, "stages": stages}, step)
    with pytest.raises(SpecError):
        rules.act("milhamah", spec, {"stages": [], "track": "x"}, {"do": "reroll", "dice": [0]}, ScriptedRng([1]))


def _json_value(rng, depth=0):
    kinds = ["none", "bool", "int", "float", "text"] + (["list", "dict"] if depth < 2 else [])
    k = rng.choice(kinds)
    if k == "none":
        return None
    if k == "bool":
        return rng.random() < 0.5
    if k == "int":
        return rng.randint(-20, 20)
    if k == "float":
        return rng.choice([0.5, 3.0, -1e300, 1e300])
    if k == "text":
        return "".join(rng.choice("אבגדהוזחטיכלמנסעפצקרשתךםןףץ xred,1") for _ in range(rng.randint(0, 6)))
    if k == "list":
        return [_json_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    keys = list(M._SPEC_KEYS) + list(M._OPP_KEYS) + ["x"]
    return {rng.choice(keys): _json_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


@pytest.mark.parametrize("seed", range(8))
def test_any_spec_normalizes_or_raises_spec_error(seed):
    """d20's test_any_valid_roll, seeded (runs under Pyodide too): any JSON
    spec rolls to a valid, JSON-able result or is a SpecError; nothing else."""
    rng = random.Random(seed)
    keys = list(M._SPEC_KEYS) + list(M._OPP_KEYS)
    for _ in range(150):
        spec = {rng.choice(keys): _json_value(rng) for _ in range(rng.randint(0, 5))}
        if rng.random() < 0.05:
            spec = _json_value(rng)
        try:
            n = M.normalize(spec)
        except SpecError:
            continue
        assert M.normalize(n) == n
        r = rules.roll("milhamah", n, random.Random(1))
        assert r["outcome"] in M.OUTCOMES
        assert json.loads(json.dumps(r)) == r


# --------------------------------------------------------------------------
# Odds: exact by face category, checked against brute force and sampling.

def _brute(spec):
    """The turn played best (RULES-NOTES Milhamah 6) by brute force over
    every face of every die: 12^n first rolls, and in each round every set
    of at most X dice (or none, which ends the turn) with every face of
    the rerolled dice; the best choice is the one with the highest
    (P(meet), P(success or better), P(natural), P(no botch)), then the
    fewest dice, then more of the better outcomes. Independent of the
    module's symmetry-reduced programme."""
    spec = M.normalize(spec)
    types = [M.die_faces(c, d) for c, d in M.dice_of(spec)]
    need = {}
    for ch in spec["shoresh"]:
        need[ch] = need.get(ch, 0) + 1
    wc = not spec["reaction"]
    x = spec["rerolls"] + spec["bonus_rerolls"]
    outs = M.OUTCOMES

    def outcome(fs, rerolled):
        matches = sum(1 for f in fs if f in need)
        succ = matches + (sum(1 for f in fs if f == W) if wc else 0)
        nat = all(fs.count(ch) >= n for ch, n in need.items())
        bonus = (len(spec["shoresh"]) if nat else 0) + (spec["first_bonus"] if nat and not rerolled else 0)
        total = succ + bonus
        if matches == 0:
            o = "botch"
        elif total > spec["difficulty"]:
            o = "natural_success" if nat else "success"
        else:
            o = "success_at_cost" if total == spec["difficulty"] else "failure"
        return tuple(Fraction(int(o == k)) for k in outs) + (Fraction(int(nat)),)

    def order(v, size):
        p = dict(zip(outs, v))
        meet = p["success_at_cost"] + p["success"] + p["natural_success"] + p["critical_success"]
        head = (meet, meet - p["success_at_cost"], v[-1], 1 - p["botch"])
        return head, -size, tuple(p[k] for k in reversed(outs[1:]))

    memo = {}

    def best(fs, left, rerolled):
        key = (fs, left, rerolled)
        if key not in memo:
            options = [(0, outcome(list(fs), rerolled))]
            if left and x:
                for k in range(1, min(x, len(fs)) + 1):
                    for dice in itertools.combinations(range(len(fs)), k):
                        tot = [Fraction(0)] * (len(outs) + 1)
                        for new in itertools.product(*[types[i] for i in dice]):
                            fs2 = list(fs)
                            for i, f in zip(dice, new):
                                fs2[i] = f
                            for j, p in enumerate(best(tuple(fs2), left - 1, True)):
                                tot[j] += p
                        options.append((k, tuple(t / 12 ** k for t in tot)))
            memo[key] = max(options, key=lambda o: order(o[1], o[0]))[1]
        return memo[key]

    dist = {o: Fraction(0) for o in outs}
    for first in itertools.product(*types):
        for o, p in zip(outs, best(first, spec["rounds"], False)):
            dist[o] += p / 12 ** len(types)
    return dist


@pytest.mark.parametrize("spec", [
    {"shoresh": "אשר", "pool": {"red": 2}, "rerolls": 1, "difficulty": 2},
    {"shoresh": "חנן", "pool": {"green": 2}, "rerolls": 2, "difficulty": 1},
    {"shoresh": "רוח", "pool": {"red": 1, "blue": 2}, "rerolls": 1, "difficulty": 3},
    {"shoresh": "אב", "pool": {"green": 3}, "rerolls": 0, "difficulty": 2, "reaction": True},
    {"shoresh": "שלום", "pool": {"blue": 2}, "rerolls": 2, "rounds": 2, "difficulty": 1},
    {"shoresh": "שלום", "pool": {"blue": 2, "red": 1}, "rerolls": 1, "rounds": 2, "difficulty": 1},
    {"shoresh": "אשר", "pool": {"red": 1, "blue": 1}, "rerolls": 1, "rounds": 3, "difficulty": 1},
], ids=["red2-x1", "green2-doubled", "mixed3", "reacting-no-reroll", "two-rounds",
        "two-rounds-x-short", "three-rounds-x1"])
def test_odds_match_brute_force(spec):
    """The odds of the best play equal the best play found by enumerating
    every face on small pools (every outcome, exactly)."""
    got = rules.odds("milhamah", spec)
    want = _brute(spec)
    for o in M.OUTCOMES:
        assert got["outcome"][o] == pytest.approx(float(want[o]), abs=1e-12), o
    assert got["exact"] is True


def test_odds_match_sampling_on_the_full_pool():
    """8 dice, X = 3: the exact odds agree with 5 000 seeded turns played
    by the advice (``best_reroll``) through roll / act (4 sigma)."""
    spec = M.normalize({"shoresh": "אשר", "pool": ["red", "green"], "rerolls": 3, "difficulty": 3})
    rng = random.Random(1234)
    counts = {o: 0 for o in M.OUTCOMES}
    n = 5000
    for _ in range(n):
        r = rules.roll("milhamah", spec, rng)
        if r["best_reroll"]:
            r = rules.act("milhamah", spec, r, {"do": "reroll", "dice": r["best_reroll"]}, rng)
        counts[r["outcome"]] += 1
    got = rules.odds("milhamah", spec)["outcome"]
    for o in M.OUTCOMES:
        p = got[o]
        sigma = (p * (1 - p) / n) ** 0.5
        assert abs(counts[o] / n - p) <= 4 * sigma + 1e-9, o


def test_odds_after_roll_for_a_freeze_set_match_brute_force():
    """After Rachel's first roll, rerolling dice 0, 2, 4: brute force over 12^3."""
    spec = M.normalize(RACHEL)
    r = rules.roll("milhamah", spec, ScriptedRng(RACHEL_FIRST))
    got = rules.odds("milhamah", spec, r, {"do": "reroll", "dice": [0, 2, 4]})
    want = {o: 0 for o in M.OUTCOMES}
    types = [M.die_faces(c, d) for c, d in M.dice_of(spec)]
    for new in itertools.product(types[0], types[2], types[4]):
        fs = faces(r)
        fs[0], fs[2], fs[4] = new
        m = sum(1 for f in fs if f in "אשר")
        s = m + fs.count(W)
        nat = all(ch in fs for ch in "אשר")
        total = s + (3 if nat else 0)
        o = "botch" if m == 0 else ("natural_success" if nat and total > 3 else "success" if total > 3
                                    else "success_at_cost" if total == 3 else "failure")
        want[o] += 1 / 12 ** 3
    for o in M.OUTCOMES:
        assert got["outcome"][o] == pytest.approx(want[o], abs=1e-12)
    assert got["dice"] == [0, 2, 4] and got["now"] == "botch"


def test_colour_pairs_ranked_and_forbidden_left_out():
    o = rules.odds("milhamah", {"shoresh": "אשר"})
    pairs = [tuple(r["pair"]) for r in o["colours"]]
    assert sorted(pairs) == sorted([("red", "green"), ("red", "blue"), ("green", "blue")])
    meets = [r["meets"] for r in o["colours"]]
    assert meets == sorted(meets, reverse=True)
    o = rules.odds("milhamah", {"shoresh": "אשר", "pool": ["red", "green"], "forbid": ["blue"]})
    assert [r["pair"] for r in o["colours"]] == [["red", "green"]]


def test_same_average_different_spread():
    """RULES-NOTES Milhamah 2: the colours change the chance of a natural,
    not the average number of letter matches."""
    means = []
    for pair in (["red", "green"], ["red", "blue"], ["green", "blue"]):
        o = rules.odds("milhamah", {"shoresh": "אשר", "pool": pair, "rerolls": 0, "reaction": True})
        means.append(sum(int(v) * p for v, p in o["value"].items()))
    assert max(means) - min(means) < 1e-9


@pytest.mark.parametrize("spec", [
    {"shoresh": "שלום", "pool": ["red", "green", "blue"], "rerolls": 12, "rounds": 4},
    {"shoresh": "חנן", "pool": ["red", "blue"], "rerolls": 8, "rounds": 3,
     "opponent": {"shoresh": "אבגד", "pool": ["red", "green", "blue"], "rerolls": 12, "rounds": 4}},
    {"shoresh": "אשר", "rerolls": 3},
], ids=["12D-x12-4-rounds", "opposed-worst", "default"])
def test_odds_of_heavy_specs_are_whole(spec):
    """The heaviest questions still give a whole distribution (speed is the benchmark's to measure (tests/benchmark.py), not a test's)."""
    o = rules.odds("milhamah", spec)
    assert abs(sum(o["outcome"].values()) - 1) < 1e-9


@pytest.mark.parametrize("seed", range(40))
def test_odds_of_an_empty_reroll_is_the_outcome_on_the_table(seed):
    """The odds' outcome table reads a state exactly as the result does:
    rerolling no die gives the current outcome with certainty (both sides,
    any reward chosen, any stage) whenever nothing can follow. When the
    initiator keeps its dice and the opponent may still react, what follows
    is the opponent's best reaction (docs/RULES-DECISIONS.md, Milhamah): the same
    odds as the opponent's best play from the table."""
    spec, r = _random_session(seed)
    sides = ["initiator", "opponent"] if r.get("opponent") else ["initiator"]
    for side in sides:
        o = rules.odds("milhamah", spec, r, {"do": "reroll", "side": side, "dice": []})
        done = r
        if side == "initiator" and r.get("opponent"):
            # the initiator keeps its dice: it stands (or takes a natural's
            # default reward) and the opponent's reaction is due
            for verb, extra in (("stand", {}), ("natural", {"reward": "uncounterable"})):
                if verb in done["allowed"]:
                    done = rules.act("milhamah", spec, done, {"do": verb, **extra}, random.Random(1))
                    break
        if "reroll" in done.get("allowed_opponent", []) and side == "initiator":
            then = rules.odds("milhamah", spec, done, {"do": "best", "side": "opponent"})
            for k in M.OUTCOMES:
                assert o["outcome"][k] == pytest.approx(then["outcome"][k], abs=1e-12), k
        else:
            assert o["outcome"][done["outcome"]] == pytest.approx(1.0), (side, done["outcome"], o["outcome"])


def test_opponent_reroll_odds_match_brute_force():
    """Opposed, after the roll: the opponent rerolling two dice, enumerated."""
    spec = M.normalize({"shoresh": "אשר", "pool": {"red": 2}, "rerolls": 2,
                        "opponent": {"shoresh": "חנן", "pool": {"red": 2}, "rerolls": 2}})
    r = rules.roll("milhamah", spec, ScriptedRng([RA["א"], RB["ז"], RA["ב"], RB["ז"]]))
    got = rules.odds("milhamah", spec, r, {"do": "reroll", "side": "opponent", "dice": [0, 1]})
    want = {o: 0.0 for o in M.OUTCOMES}
    for a in M.die_faces("red", "A"):
        for b in M.die_faces("red", "B"):
            opp = sum(1 for f in (a, b) if f in "חנ")
            o = "success" if 1 > opp else "success_at_cost" if opp == 1 else "failure"
            want[o] += 1 / 144
    for o in M.OUTCOMES:
        assert got["outcome"][o] == pytest.approx(want[o], abs=1e-12)


def test_large_multi_round_odds_are_sampled_and_honest():
    """12 dice, X = 3, two rounds is past the state limit: the odds say they
    are sampled (seeded, so the same question gives the same answer),
    state the sample size and margin, give the first roll exactly, and
    claim no more than the exact optimum (run here without the limit) can
    reach, within their margin, nor more than their exact upper bound
    (which the optimum respects)."""
    spec = M.normalize({"shoresh": "אשר", "pool": ["red", "green", "blue"], "rerolls": 3, "rounds": 2,
                        "difficulty": 5})
    o = rules.odds("milhamah", spec)
    assert o["exact"] is False and o["sampled"] >= 500 and "sampled" in o["note"]
    MO._ODDS_CACHE.clear()
    assert rules.odds("milhamah", spec) == o
    exact = MO._prior_exact(MO._Ctx(spec))
    want = MO._decode(MO._Ctx(spec), exact["dist"], exact["den"])
    first = MO._decode(MO._Ctx(spec), exact["dist0"], exact["den0"])
    assert o["meets_first"] == first["meets"] and o["botch_first"] == first["outcome"]["botch"]
    assert o["natural_first"] == first["natural"]
    for key, name in (("meets_final", "meets"), ("success", "success"), ("natural", "natural")):
        assert want[name] <= o["upper"][name]["p"] + 1e-12, name
        assert o[key] <= o["upper"][name]["p"] + 1e-12, name
        assert o[key] <= want[name] + o["margin"], name


# --------------------------------------------------------------------------
# Opposed turn order (Milhamah RPG, "Opposed Rolls", "The Natural Shoresh";
# docs/RULES-DECISIONS.md, Milhamah): the initiator's turn, then the opponent's reaction; a
# "let them react" critical is final only once the opponent can no longer
# change its dice.

NATURAL_VS = {"shoresh": "אשר", "pool": {"red": 2, "blue": 2}, "rerolls": 2,
              "opponent": {"shoresh": "חננ", "pool": {"red": 2}, "rerolls": 2}}
#: Etgar-like: a first-roll natural אשר, the opponent at zero letters.
NATURAL_VS_DRAWS = [RA["ר"], RB[W], BA["א"], BB["ש"], RA["ב"], RB[W]]


def _natural_vs():
    spec = M.normalize(NATURAL_VS)
    return spec, rules.roll("milhamah", spec, ScriptedRng(NATURAL_VS_DRAWS))


def test_the_opponent_waits_for_the_initiators_turn():
    """Before the initiator's turn ends, the opponent has no step, the
    explanation claims no void reaction, and the initiator with a natural
    on the table cannot stand without choosing its reward."""
    spec, r = _natural_vs()
    assert r["allowed"] == ["reroll", "natural"] and r["allowed_opponent"] == []
    assert r["natural_pending"] and r["turn"] == "initiator"
    assert not any("void" in line or "cannot react" in line for line in r["explain"])
    for action in ({"do": "reroll", "side": "opponent", "dice": [0]}, {"do": "stand", "side": "opponent"}):
        with pytest.raises(SpecError, match="initiator's turn comes first"):
            rules.act("milhamah", spec, r, action, ScriptedRng([1]))
    with pytest.raises(SpecError, match="choose its reward"):
        rules.act("milhamah", spec, r, {"do": "stand"}, ScriptedRng([]))


def test_let_them_react_then_the_opponent_rerolls_to_a_success():
    """The opponent's reaction can still undo the critical: a reroll that
    shows ח takes it away, and no hit location is ever offered."""
    spec, r = _natural_vs()
    c = rules.act("milhamah", spec, r, {"do": "natural", "reward": "critical"}, ScriptedRng([]))
    assert c["outcome"] == "critical_success" and "hit_location" not in c["allowed"]
    assert any("so far" in line for line in c["explain"])
    with pytest.raises(SpecError, match="final only once the opponent has reacted"):
        rules.act("milhamah", spec, c, {"do": "hit_location"}, ScriptedRng([1]))
    d = rules.act("milhamah", spec, c, {"do": "reroll", "side": "opponent", "dice": [1]}, ScriptedRng([RB["ח"]]))
    assert d["opponent"]["successes"] == 1 and d["outcome"] != "critical_success"
    # the natural's reward was "let them react": no +1, 4 on the dice + 1 first-roll bonus vs 1
    assert d["total"] == 5 and d["outcome"] == "natural_success"
    assert d["allowed"] == [] and d["allowed_opponent"] == [] and d["turn"] is None


def test_let_them_react_critical_is_final_when_the_opponents_rounds_are_spent():
    """A reaction that leaves the opponent at zero non-wild successes (a
    wild does not count when reacting) makes the critical final: the hit
    location is offered at once."""
    spec, r = _natural_vs()
    c = rules.act("milhamah", spec, r, {"do": "natural", "reward": "critical"}, ScriptedRng([]))
    d = rules.act("milhamah", spec, c, {"do": "reroll", "side": "opponent", "dice": [0]}, ScriptedRng([RA["ג"]]))
    assert d["opponent"]["successes"] == 0 and d["outcome"] == "critical_success"
    assert d["allowed"] == ["hit_location"] and d["allowed_opponent"] == []
    assert "The opponent reacted with zero non-wild successes: critical success." in d["explain"]


def test_the_initiator_stands_to_hand_over():
    """Without a natural, ``stand`` ends the initiator's turn early; the
    opponent then rerolls or stands; a stood side takes no more steps."""
    spec = M.normalize(NATURAL_VS)
    r = rules.roll("milhamah", spec, ScriptedRng([RA["א"], RB["ז"], BA["ג"], BB["ז"], RA["ב"], RB["ח"]]))
    assert r["allowed"] == ["reroll", "stand"] and r["allowed_opponent"] == []
    s = rules.act("milhamah", spec, r, {"do": "stand"}, ScriptedRng([]))
    assert s["allowed"] == [] and s["allowed_opponent"] == ["reroll", "stand"] and s["turn"] == "opponent"
    assert "You stood: your turn ends with the dice as they lie." in s["explain"]
    with pytest.raises(SpecError, match="stood"):
        rules.act("milhamah", spec, s, {"do": "reroll", "dice": [1]}, ScriptedRng([1]))
    o = rules.act("milhamah", spec, s, {"do": "stand", "side": "opponent"}, ScriptedRng([]))
    assert o["allowed"] == [] and o["allowed_opponent"] == [] and o["turn"] is None
    assert o["dice"] == r["dice"] and o["outcome"] == r["outcome"] == "success_at_cost"


def test_stand_is_only_for_an_opposed_roll():
    """Unopposed, the turn ends with ``accept`` (the dice as they lie): no
    ``stand``; opposed, no ``accept``."""
    spec = M.normalize(RACHEL)
    r = rules.roll("milhamah", spec, ScriptedRng(RACHEL_FIRST))
    assert r["allowed"] == ["reroll", "accept"]
    with pytest.raises(SpecError, match="opposed"):
        rules.act("milhamah", spec, r, {"do": "stand"}, ScriptedRng([]))
    opp = {**RACHEL, "opponent": {"shoresh": "חנן"}}
    o = rules.roll("milhamah", opp, ScriptedRng(RACHEL_FIRST + [1] * 8))
    with pytest.raises(SpecError, match="stand"):
        rules.act("milhamah", opp, o, {"do": "accept"}, ScriptedRng([]))


def test_accept_ends_the_turn_as_the_dice_lie():
    """``accept`` records a stage with no draws; the dice and outcome stay,
    no step is left, the explanation says so, and replay rebuilds it. With
    a natural on the table its reward is chosen instead."""
    spec = M.normalize(RACHEL)
    r = rules.roll("milhamah", spec, ScriptedRng(RACHEL_FIRST))
    a = rules.act("milhamah", spec, r, {"do": "accept"}, ScriptedRng([]))
    assert a["stages"][-1] == {"do": "accept", "draws": []}
    assert a["dice"] == r["dice"] and a["outcome"] == r["outcome"] and a["allowed"] == []
    assert a["advice"] is None and a["choices"] == []
    assert "You accepted the dice as they lie: the turn ends." in a["explain"]
    assert rules.replay("milhamah", spec, a["stages"]) == a
    with pytest.raises(SpecError, match="accepted"):
        rules.act("milhamah", spec, a, {"do": "reroll", "dice": [0]}, ScriptedRng([1]))
    nat = {"shoresh": "אר", "pool": {"green": 2}, "rerolls": 1, "difficulty": 5}
    n = rules.roll("milhamah", nat, ScriptedRng([1, 11]))
    assert n["natural"] and n["allowed"] == ["reroll", "natural"]
    with pytest.raises(SpecError, match="reward"):
        rules.act("milhamah", nat, n, {"do": "accept"}, ScriptedRng([]))


# --------------------------------------------------------------------------
# The botch's grade (docs/RULES-DECISIONS.md, Milhamah).

@pytest.mark.parametrize("wilds,words", [
    (0, "a botch, the agent fails miserably and at a great cost."),
    (1, "a botch, made worse by 1 wild: a bad botch."),
    (2, "a botch, made worse by 2 wilds: a disaster."),
    (3, "a botch, made worse by 3 wilds: a catastrophe."),
    (4, "a botch, made worse by 4 wilds: a catastrophe beyond words, grimly hilarious."),
])
def test_botch_says_how_catastrophic(wilds, words):
    """"For each wild face present, the botch gets more catastrophic": four
    red and four green dice, no letter of אב, 0-4 wilds (design B of each
    colour carries the wild faces)."""
    b_faces = [RB["ז"], RB["ז"], GB["מ"], GB["מ"]]
    b_dice = [RB[W], RB[W], GB[W], GB[W]][:wilds] + b_faces[wilds:]
    draws = [RA["ג"], b_dice[0], RA["ג"], b_dice[1], GA["ג"], b_dice[2], GA["ג"], b_dice[3]]
    spec = {"shoresh": "אב", "pool": {"red": 4, "green": 4}, "rounds": 0, "difficulty": 1}
    r = rules.roll("milhamah", spec, ScriptedRng(draws))
    assert r["outcome"] == "botch" and r["botch_wilds"] == wilds == r["wilds"]
    assert r["explain"][-1] == "Zero successes not counting wilds: " + words


# --------------------------------------------------------------------------
# "The dice also spell" (docs/RULES-DECISIONS.md, Milhamah): the roots data file and what a
# result lists.

ROOTS_DATA = json.loads((M.ROOTS_FILE and open(M.ROOTS_FILE, encoding="utf-8").read()))


def test_roots_file_names_its_source_and_licence():
    assert "Strong" in ROOTS_DATA["source"] and "public domain" in ROOTS_DATA["source"].lower()
    assert "MIT" in ROOTS_DATA["license"] and "compiled by the project" in ROOTS_DATA["about"]
    roots = [r["root"] for r in ROOTS_DATA["roots"]]
    assert 300 <= len(roots) <= 500 and len(set(roots)) == len(roots)
    for r in ROOTS_DATA["roots"]:
        assert len(r["root"]) == 3 and set(r["root"]) <= set(M.LETTERS), r
        assert 2 <= len(r["gloss"]) <= 48 and r["strongs"].startswith("H"), r
    assert {"שלמ", "אמר", "שמר", "כתב", "מלכ"} <= set(roots)


def _spells(faces, exclude):
    """Which listed roots the faces spell, counted letter by letter
    (collections.Counter), in the file's order."""
    from collections import Counter
    have = Counter(faces)
    return [r["root"] for r in ROOTS_DATA["roots"]
            if r["root"] not in exclude and not Counter(r["root"]) - have]


def test_the_dice_also_spell_shalom_and_more():
    """Dice showing ש ל מ and others spell שלם (whole, at peace) among
    other roots, most used first; the roll's own shoresh is not repeated;
    wilds spell nothing; at most six are listed, with the full count."""
    spec = {"shoresh": "אב", "pool": {"red": 4, "green": 4}, "rounds": 0, "difficulty": 1}
    draws = [RA["א"], RB["ל"], RA["ש"], RB["מ"], GA["כ"], GB["ר"], GA["ב"], GB[W]]
    r = rules.roll("milhamah", spec, ScriptedRng(draws))
    fs = faces(r)
    want = _spells(fs, {"אב"})
    assert [x["root"] for x in r["also_spell"]] == want[:6] and r["also_spell_count"] == len(want)
    assert len(want) > 6  # the bound is exercised
    assert "שלמ" in want and "שמר" in want and "מלכ" in want
    gloss = {x["root"]: x["gloss"] for x in ROOTS_DATA["roots"]}
    assert all(x["gloss"] == gloss[x["root"]] for x in r["also_spell"])
    r = rules.roll("milhamah", {**spec, "pool": {"red": 2}}, ScriptedRng([RA["ג"], RB[W]]))
    assert r["also_spell"] == [] and r["also_spell_count"] == 0


@pytest.mark.parametrize("seed", range(40))
def test_spelled_roots_match_a_letter_count(seed):
    """Every random session lists exactly the roots a letter count finds."""
    spec, r = _random_session(seed)
    want = _spells(faces(r), {M.normalize(spec)["shoresh"]})
    assert [x["root"] for x in r["also_spell"]] == want[:6] and r["also_spell_count"] == len(want)


@pytest.mark.parametrize("seed", range(40))
def test_players_never_see_our_notes(seed):
    """Explanations name the rules text or the rule in words, never
    "RULES-NOTES" (a document players don't have), and
    never "1 wilds"."""
    _spec, r = _random_session(seed)
    for line in r["explain"]:
        assert "RULES-NOTES" not in line and "1 wilds" not in line and "1 successes" not in line
