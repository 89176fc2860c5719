"""Milhamah RPG rules (seeds/000_61bae661fbfac8cf.txt, "Roll Mechanics"),
with RULES-NOTES Milhamah 1-9 where the text is silent."""

from __future__ import annotations

import itertools
import json
import random
import sys
import time

import pytest

import rules
from rules import milhamah as M
from rules import milhamah_odds as MO
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
    """Seed 000, "The final results" example: David rolls אשר for Rachel on
    four red and four green, no successes and no wilds; with BLE 3D he
    rerolls three dice and gets ק, ר, ת: one success, two below the
    Challenging 3 needed."""
    spec = M.normalize(RACHEL)
    r = rules.roll("milhamah", spec, ScriptedRng(RACHEL_FIRST))
    assert r["value"] == 0 and r["wilds"] == 0 and r["outcome"] == "botch"
    assert [d["colour"] for d in r["dice"]] == ["red"] * 4 + ["green"] * 4
    assert r["allowed"] == ["reroll"]
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
    """Seed 000, "Opposed Rolls": Etgar's BLE 3 + wind attack 2 = 5 against
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
    assert all(d["role"] == "dropped" for d in r["opponent"]["dice"])
    # the Toad's wild does not count when reacting
    assert r["opponent"]["successes"] == 2 and r["opponent"]["wilds"] == 1


def test_etgar_climbs_the_cliff():
    """Seed 000, the climbing example: 2D VIG + 2D Athletics lets Dan reroll
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
    assert r["allowed"] == ["cipher"]
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
    assert r["allowed"] == ["reroll"] and r["rounds_left"] == 1
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
    armour, then VIG soak, then wounds (RULES-NOTES Milhamah 8)."""
    spec = M.normalize({"shoresh": "אשר", "pool": {"red": 2, "blue": 2}, "rerolls": 2,
                        "opponent": {"shoresh": "חננ", "pool": {"red": 2}}})
    r = rules.roll("milhamah", spec, ScriptedRng([RA["ר"], RB[W], BA["א"], BB["ש"], RA["ב"], RB[W]]))
    assert r["outcome"] == "natural_success" and "natural" in r["allowed"]
    assert "hit_location" not in r["allowed"]
    c = rules.act("milhamah", spec, r, {"do": "natural", "reward": "critical"}, ScriptedRng([]))
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
    spec, r = _opposed([RA["א"], RB["ז"]], [RA["ב"], RB["ז"]])
    assert r["outcome"] == "success" and r["allowed_opponent"] == ["reroll"]
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
    spec = M.normalize(RACHEL)
    r = rules.roll("milhamah", spec, ScriptedRng(RACHEL_FIRST))
    bad = json.loads(json.dumps(r))
    bad["track"]["sides"]["initiator"]["idx"][0] = 13
    with pytest.raises(SpecError):
        rules.act("milhamah", spec, bad, {"do": "reroll", "dice": [0]}, ScriptedRng([1]))
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

def _brute(spec, rounds=None):
    """Enumerate every face of every die (12^n first rolls and 12^k
    rerolls) under the default policy, independently of the module's DP."""
    spec = M.normalize(spec)
    types = [M.die_faces(c, d) for c, d in M.dice_of(spec)]
    need = {}
    for ch in spec["shoresh"]:
        need[ch] = need.get(ch, 0) + 1
    wc = not spec["reaction"]
    x = spec["rerolls"]
    rounds = spec["rounds"] if rounds is None else rounds
    dist = {o: 0.0 for o in M.OUTCOMES}

    def outcome(fs, rerolled, first_nat):
        matches = sum(1 for f in fs if f in need)
        succ = matches + (sum(1 for f in fs if f == W) if wc else 0)
        nat = all(fs.count(ch) >= n for ch, n in need.items())
        bonus = (len(spec["shoresh"]) if nat else 0) + (spec["first_bonus"] if nat and not rerolled else 0)
        total = succ + bonus
        need_n = spec["difficulty"]
        if matches == 0:
            return "botch"
        if total > need_n:
            return "natural_success" if nat else "success"
        return "success_at_cost" if total == need_n else "failure"

    def go(fs, r, p, rerolled):
        if r == rounds or x == 0:
            dist[outcome(fs, rerolled, None)] += p
            return
        fails = [i for i, f in enumerate(fs) if not (f in need or (wc and f == W))][:x]
        if not fails:
            dist[outcome(fs, rerolled, None)] += p
            return
        for new in itertools.product(*[types[i] for i in fails]):
            fs2 = list(fs)
            for i, f in zip(fails, new):
                fs2[i] = f
            go(fs2, r + 1, p / 12 ** len(fails), True)

    for first in itertools.product(*types):
        go(list(first), 0, 1 / 12 ** len(types), False)
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
    """The category DP equals enumeration of every face on small pools."""
    got = rules.odds("milhamah", spec)
    want = _brute(spec)
    for o in M.OUTCOMES:
        assert got["outcome"][o] == pytest.approx(want[o], abs=1e-9), o
    assert got["exact"] is True


def test_odds_match_sampling_on_the_full_pool():
    """8 dice, X = 3: the exact odds agree with 5 000 seeded plays of the
    default policy through roll / act (4 sigma)."""
    spec = M.normalize({"shoresh": "אשר", "pool": ["red", "green"], "rerolls": 3, "difficulty": 3})
    rng = random.Random(1234)
    counts = {o: 0 for o in M.OUTCOMES}
    n = 5000
    for _ in range(n):
        r = M.roll(spec, rng)
        r["stages"] = []
        fails = [i for i, d in enumerate(r["dice"]) if not d["success"]][:3]
        if fails:
            r = M.act(spec, r, {"do": "reroll", "dice": fails}, rng)
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
    any reward chosen, any stage)."""
    spec, r = _random_session(seed)
    sides = ["initiator", "opponent"] if r.get("opponent") else ["initiator"]
    for side in sides:
        o = rules.odds("milhamah", spec, r, {"do": "reroll", "side": side, "dice": []})
        assert o["outcome"][r["outcome"]] == pytest.approx(1.0), (side, r["outcome"], o["outcome"])


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
    """12 dice, X = 8, 4 rounds is too big to enumerate on a tap: the odds
    say they are sampled (seeded, so the same question gives the same
    answer), state the sample size and margin, and agree with the exact
    enumeration (run here without the size limit) within that margin."""
    spec = M.normalize({"shoresh": "שלום", "pool": ["red", "green", "blue"], "rerolls": 8, "rounds": 4,
                        "difficulty": 5})
    o = rules.odds("milhamah", spec)
    assert o["exact"] is False and o["sampled"] == MO.SAMPLES and "sampled" in o["note"]
    assert rules.odds("milhamah", spec) == o
    types = [M.die_faces(c, d) for c, d in M.dice_of(spec)]
    mine, full = MO._side_dist(types, spec["shoresh"], True, 8, 4)
    exact = MO._combine(spec, mine, full, None)
    for k in M.OUTCOMES:
        assert abs(o["outcome"][k] - exact["outcome"][k]) <= o["margin"], k
