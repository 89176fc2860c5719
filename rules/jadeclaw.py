"""Jadeclaw (seeds/004_4eaa9d3ff8d4a59c.txt, "Rolling Dice"): pools of d4-d12,
Simple Rolls (the highest face is the Score) and Damage Rolls (sorted damage
dice against sorted soak dice), with the text's modifiers in its order.

Simple Roll ("What is the proper sequence of modifiers for Simple Rolls?"):
include dice, remove dice, limit die size, Bonuses (size increases), roll,
Favored (re-roll one 1), note the Score, and for each Penalty roll again;
the worst Score is kept (RULES-NOTES Jadeclaw 3). The Score is compared with
the opposition's: Botch (a Score of 1, RULES-NOTES Jadeclaw 4), Overwhelming
Failure (behind by 5+), Failure, Tie (a better Quality turns it into a
Success, a worse one into a Failure), Success, Overwhelming Success (ahead
by 5+).

Damage Roll: the same preparation, then each Penalty removes the smallest
die; the sorted damage dice are paired with the sorted soak dice; 1 hit when
higher, 2 when higher by 5+; imaginary 1s when the soak runs out; an all-1
soak adds one hit (RULES-NOTES Jadeclaw 7).

Draw order (DESIGN.md): the roller's dice, largest first, then a Favored
re-roll; then each Penalty's roll of the whole pool with its own Favored
re-roll; then the opposition's dice (opponent, difficulty or soak), largest
first. Dice already on the table (``{"faces": [...]}``, a combination roll)
draw nothing.

>>> from rules.dice import ScriptedRng
>>> r = roll(normalize({"dice": "d10, d6"}), ScriptedRng([7, 3]))
>>> r["value"], r["outcome"]
(7, 'scored')
>>> tree = normalize({"dice": "d10 & d4", "difficulty": "routine"})
>>> r = roll(tree, ScriptedRng([7, 2, 3, 4]))
>>> r["value"], r["opponent_score"], r["outcome"]
(7, 4, 'success')
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from itertools import zip_longest
from typing import Any

from .dice import (MAX_POOL, SIZES, Die, SpecError, check_keys, format_pool, get_bool,
                   get_choice, get_int, get_size, get_sizes, name_key, roll_die, spec_seed,
                   step_down)

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "DIFFICULTIES", "QUALITIES", "DAMAGE_TYPES",
           "normalize", "roll", "act", "odds", "level_pool", "apply_bonuses", "prepare",
           "quality_name", "contest", "pair_hits", "damage_pairs", "auto_success",
           "levels_table"]

NAME = "jadeclaw"
TITLE = "Jadeclaw"

OUTCOMES = ("botch", "double_botch", "overwhelming_failure", "failure", "tie",
            "scored", "success", "overwhelming_success", "no_hits", "hits")

#: The contest outcomes of a Simple Roll against opposition, worst to best.
CONTEST_OUTCOMES = ("botch", "double_botch", "overwhelming_failure", "failure", "tie",
                    "success", "overwhelming_success")

DEFAULT_SPEC = {"kind": "simple", "dice": [12, 8], "difficulty": "routine"}

#: "How big should Difficulty Dice be?" (the text's table).
DIFFICULTIES = {
    "trivial": [4],
    "simple": [4, 4],
    "routine": [6, 6],
    "intermediate": [8, 8],
    "difficult": [10, 10],
    "for_experts_only": [12, 12],
    "for_heroes_only": [12, 12, 12],
    "for_legends_only": [12, 12, 12, 12],
}

#: Qualities worst to best; "none" is an untrained character (skill level 0).
#: "Every 5 Levels of Skill improves Quality" (RULES-NOTES Jadeclaw 5).
QUALITIES = ("none", "basic", "expert", "heroic", "legendary", "mythic")

#: "No Damage is both Slaying and Enervated - the two effects cancel".
DAMAGE_TYPES = ("normal", "slaying", "enervated", "slaying_and_enervated")

#: A Score this far ahead (or behind) Overwhelms ("'5 or more': Overwhelming").
OVERWHELM = 5

MAX_LEVEL = 60
MAX_MODS = 20

KEYS = ("kind", "dice", "level", "include", "remove", "limit", "bonuses", "penalties",
        "favored", "opponent", "difficulty", "quality", "opponent_quality", "soak",
        "damage_type", "double_botch")


# --------------------------------------------------------------------------
# Pools: levels and Bonuses (RULES-NOTES Jadeclaw 2).

def level_pool(level: int) -> list[int]:
    """Level L is L size steps (d4 = 1 ... d12 = 5): as many d12 as fit, plus
    one smaller die for the rest (RULES-NOTES Jadeclaw 2; "Summary of Levels
    and Bonuses", column "Dice").

    >>> level_pool(0), level_pool(3), level_pool(6), level_pool(10)
    ([], [8], [12, 4], [12, 12])
    """
    twelves, rest = divmod(level, 5)
    return [12] * twelves + ([SIZES[rest - 1]] if rest else [])


def apply_bonuses(sizes: list[int], bonuses: int) -> list[int]:
    """Each Bonus gives each die one size increase, counting the dice before
    any Bonus; an increase a d12 cannot take carries over to the next smaller
    die; when every die is a d12, a new d4 starts (that costs one increase)
    and grows; an empty pool gets one increase per Bonus ("On Simple Rolls,
    Bonuses Increase Dice Size"; RULES-NOTES Jadeclaw 2).

    >>> apply_bonuses([10, 6], 1)          # Mai Li
    [12, 8]
    >>> apply_bonuses([12, 6], 1), apply_bonuses([12, 6], 2)   # Shi Xintan
    ([12, 10], [12, 12, 4])
    >>> apply_bonuses([], 6)               # the table's "none" row
    [12, 4]
    """
    if bonuses <= 0:
        return sorted(sizes, reverse=True)
    out = []
    carry = 0
    for s in sorted(sizes, reverse=True):
        steps = bonuses + carry
        i = SIZES.index(s)
        up = min(steps, len(SIZES) - 1 - i)
        out.append(SIZES[i + up])
        carry = steps - up
    if not sizes:
        carry = bonuses
    while carry > 0:
        # a new d4 takes one increase to start, then grows to d12 at most
        carry -= 1
        up = min(carry, len(SIZES) - 1)
        out.append(SIZES[up])
        carry -= up
        if len(out) > MAX_POOL:
            break
    return sorted(out, reverse=True)


def levels_table(levels=range(0, 21), bonuses=range(0, 7)) -> list[list[str]]:
    """The "Summary of Levels and Bonuses" computed from the rule: one row per
    level, the pool written in the text's notation ("zero" for no dice).

    >>> levels_table(range(5, 7), range(0, 3))
    [['d12', 'd12 & d4', 'd12 & d6'], ['d12 & d4', 'd12 & d8', '2d12']]
    """
    return [[format_pool(apply_bonuses(level_pool(lv), b)) if (lv or b) else "zero"
             for b in bonuses] for lv in levels]


def prepare(spec: dict) -> tuple[list[int], list[str], dict]:
    """The dice to roll after the text's steps 1-4 (and, on a Damage Roll,
    step 5), with a sentence for each step that changed them, and the
    figures: ``{"bonuses": net, "penalties": net, "removed_by_penalty": [...]}``.

    >>> pool, notes, info = prepare(normalize({"dice": "2d12, d10, d4", "remove": 1}))
    >>> pool, info["penalties"]         # Number 21 Mouth
    ([12, 10, 4], 0)
    """
    pool = list(spec["dice"]) if isinstance(spec["dice"], list) else []
    notes: list[str] = []
    if spec["include"]:
        pool = sorted(pool + spec["include"], reverse=True)
        notes.append(f"Included {format_pool(spec['include'])}: {format_pool(pool)}.")
    if spec["remove"]:
        gone = pool[:spec["remove"]]
        pool = pool[spec["remove"]:]
        notes.append(f"Removed the {_plural(len(gone), 'biggest die', 'biggest dice')} "
                     f"({format_pool(gone)}) before rolling: {format_pool(pool)}.")
    if spec["limit"]:
        lim = spec["limit"]
        if any(s > lim for s in pool):
            pool = [min(s, lim) for s in pool]
            notes.append(f"Limit d{lim}: dice bigger than d{lim} drop to d{lim}: {format_pool(pool)}.")
    net = spec["bonuses"] - spec["penalties"]
    if spec["bonuses"] and spec["penalties"]:
        cancel = min(spec["bonuses"], spec["penalties"])
        notes.append(f"{_plural(cancel, 'Bonus', 'Bonuses')} and {_plural(cancel, 'Penalty', 'Penalties')} "
                     "cancel one for one (\"Bonuses and Penalties cancel one another out\").")
    bonuses, penalties = max(net, 0), max(-net, 0)
    if bonuses:
        before = pool
        pool = apply_bonuses(pool, bonuses)
        notes.append(f"{_plural(bonuses, 'Bonus', 'Bonuses')}: {format_pool(before)} becomes "
                     f"{format_pool(pool)} (each die one size up per Bonus; a d12 passes its increase "
                     "to the next smaller die; a new d4 starts when all are d12).")
    removed: list[int] = []
    if spec["kind"] == "damage" and penalties:
        k = min(penalties, len(pool))
        removed = pool[len(pool) - k:] if k else []
        pool = pool[:len(pool) - k]
        which = "the smallest die" if k == 1 else f"the {k} smallest dice"
        notes.append(f"{_plural(penalties, 'Penalty', 'Penalties')} on a Damage Roll: removed {which} "
                     f"({format_pool(removed)}) before rolling: {format_pool(pool)}.")
    return pool, notes, {"bonuses": bonuses, "penalties": penalties, "removed_by_penalty": removed}


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


# --------------------------------------------------------------------------
# Validation.

def _table_dice(value: Any, field: str) -> dict:
    """Dice already on the table: ``{"faces": [7, 6, 2], "sides": [8, 6, 4]}``
    (``sides`` optional; without it each face is drawn on the smallest die
    that can show it)."""
    check_keys(value, ["faces", "sides"], field)
    faces = value.get("faces")
    if not isinstance(faces, list) or not 1 <= len(faces) <= MAX_POOL:
        raise SpecError(field, f"faces must be a list of 1 to {MAX_POOL} numbers from 1 to 12")
    out_faces = [get_int({"x": f}, "x", 1, 12, default=..., field=field) for f in faces]
    sides = value.get("sides")
    if sides is None:
        return {"faces": out_faces, "sides": None}
    if not isinstance(sides, list) or len(sides) != len(faces):
        raise SpecError(field, "sides must list one die size per face")
    out_sides = [get_size({"x": s}, "x", field=field) for s in sides]
    for f, s in zip(out_faces, out_sides):
        if f > s:
            raise SpecError(field, f"a d{s} cannot show {f}")
    return {"faces": out_faces, "sides": out_sides}


def _pool_or_table(spec: dict, key: str, default: Any) -> Any:
    v = spec.get(key, default)
    if v is None:
        v = default
    if isinstance(v, dict):
        return _table_dice(v, key)
    return get_sizes({key: v}, key)


def _quality(value: Any, field: str) -> Any:
    """A Quality name or a skill level (kept as given; see ``quality_name``)."""
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = value.strip()
    if isinstance(value, (int, float)) and not isinstance(value, bool) or (
            isinstance(value, str) and value.isdigit()):
        return get_int({"x": value}, "x", 0, 200, field=field)
    k = name_key(value, field)
    if k not in QUALITIES:
        raise SpecError(field, "must be a Quality (" + ", ".join(QUALITIES)
                        + f") or a skill level from 0 to 200 (got {str(value)[:30]!r})")
    return k


def normalize(spec: Any) -> dict:
    """Validate every field and fill every default (DESIGN.md spec keys).

    >>> s = normalize({"dice": "d8"})
    >>> s["dice"], s["kind"], s["bonuses"], s["difficulty"], s["opponent"]
    ([8], 'simple', 0, None, None)
    >>> normalize({"level": 7})["dice"]
    [12, 6]
    >>> normalize({"difficulty": "Far Too Hard"})
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: difficulty: must be one of trivial, simple, routine, intermediate, difficult, for_experts_only, for_heroes_only, for_legends_only (got 'Far Too Hard')
    """
    check_keys(spec, KEYS)
    kind = get_choice(spec, "kind", ("simple", "damage"), default="simple")
    level = spec.get("level")
    if level is not None and level != "":
        level = get_int(spec, "level", 0, MAX_LEVEL)
    else:
        level = None
    raw_dice = spec.get("dice")
    if raw_dice is None or raw_dice == "" or raw_dice == []:
        raw_dice = None
    if level is not None:
        dice: Any = level_pool(level)
        if raw_dice is not None and _pool_or_table(spec, "dice", None) != dice:
            raise SpecError("dice", f"give either dice or a level, not both (level {level} is "
                                    f"{format_pool(dice) if dice else 'no dice'})")
    elif raw_dice is None:
        dice = list(DEFAULT_SPEC["dice"]) if "dice" not in spec else []
    else:
        dice = _pool_or_table(spec, "dice", None)
    include = get_sizes(spec, "include", default=[])
    remove = get_int(spec, "remove", 0, MAX_POOL, default=0)
    limit = spec.get("limit")
    limit = None if limit in (None, "", 0, "0", "none") else get_size(spec, "limit")
    bonuses = get_int(spec, "bonuses", 0, MAX_MODS, default=0)
    penalties = get_int(spec, "penalties", 0, MAX_MODS, default=0)
    favored = get_bool(spec, "favored", False)
    if isinstance(dice, dict):
        for key, val in (("include", include), ("remove", remove), ("limit", limit),
                         ("bonuses", bonuses), ("penalties", penalties), ("favored", favored)):
            if val:
                raise SpecError(key, "does not apply to dice already on the table")

    opponent = spec.get("opponent")
    opponent = None if opponent in (None, "", []) else _pool_or_table(spec, "opponent", None)
    difficulty = spec.get("difficulty")
    difficulty = None if difficulty in (None, "", "none") else get_choice(
        spec, "difficulty", tuple(DIFFICULTIES))
    if opponent is not None and difficulty is not None:
        raise SpecError("difficulty", "give either opposing dice or a difficulty, not both")
    soak = spec.get("soak")
    soak = [] if soak in (None, "", []) else _pool_or_table(spec, "soak", None)
    out = {
        "kind": kind, "dice": dice, "level": level, "include": include, "remove": remove,
        "limit": limit, "bonuses": bonuses, "penalties": penalties, "favored": favored,
        "opponent": opponent, "difficulty": difficulty,
        "quality": _quality(spec.get("quality"), "quality"),
        "opponent_quality": _quality(spec.get("opponent_quality"), "opponent_quality"),
        "soak": soak,
        "damage_type": get_choice(spec, "damage_type", DAMAGE_TYPES, default="normal"),
        "double_botch": get_choice(spec, "double_botch", ("botch", "tie"), default="botch"),
    }
    if not isinstance(dice, dict):
        before = len(dice) + len(include)
        if remove > before:
            raise SpecError("remove", f"cannot remove {remove} dice from {_plural(before, 'die', 'dice')}")
        pool, _, info = prepare(out)
        if len(pool) > MAX_POOL:
            raise SpecError("bonuses", f"would make more than {MAX_POOL} dice")
        if not pool and not info["removed_by_penalty"]:
            field = "remove" if remove else ("level" if level is not None else "dice")
            raise SpecError(field, "leaves no dice to roll; a roll needs at least one die "
                                   "(or a Bonus: an empty pool gets a d4 per Bonus)")
    return out


# --------------------------------------------------------------------------
# Comparing.

def quality_name(q: Any) -> str | None:
    """A Quality name, from a name or a skill level (RULES-NOTES Jadeclaw 5).

    >>> quality_name(5), quality_name(6), quality_name(21), quality_name("heroic"), quality_name(None)
    ('basic', 'expert', 'mythic', 'heroic', None)
    """
    if q is None:
        return None
    if isinstance(q, int):
        return QUALITIES[min((q + 4) // 5, len(QUALITIES) - 1)]
    return q


def contest(score: int, other: int, quality: Any = None, opponent_quality: Any = None,
            double_botch: str = "botch") -> str:
    """The Simple Roll comparison ("Summary of Die Rolls"). A Score of 1 is a
    Botch whatever the other side shows; both 1 is a double Botch, or a Tie
    if the Host so rules (RULES-NOTES Jadeclaw 4). A Tie goes to the better
    Quality when both sides state one ("Quality Makes a Difference").

    >>> contest(7, 4), contest(3, 8), contest(1, 1), contest(9, 9, "basic", "expert")
    ('success', 'overwhelming_failure', 'double_botch', 'failure')
    """
    if score == 1:
        if other == 1:
            return "tie" if double_botch == "tie" else "double_botch"
        return "botch"
    d = score - other
    if d >= OVERWHELM:
        return "overwhelming_success"
    if d > 0:
        return "success"
    if d <= -OVERWHELM:
        return "overwhelming_failure"
    if d < 0:
        return "failure"
    a, b = quality_name(quality), quality_name(opponent_quality)
    if a is not None and b is not None and a != b:
        return "success" if QUALITIES.index(a) > QUALITIES.index(b) else "failure"
    return "tie"


def pair_hits(damage: int, soak: int, damage_type: str = "normal") -> int:
    """Hits of one damage die against one soak die ("Summary of Die Rolls",
    Damage; "Slaying Damage", "Enervated Damage"; a 1 never hits).

    >>> pair_hits(6, 3), pair_hits(7, 2), pair_hits(7, 8), pair_hits(2, 1)
    (1, 2, 0, 1)
    >>> pair_hits(4, 3, "slaying"), pair_hits(7, 3, "enervated"), pair_hits(8, 3, "enervated")
    (2, 0, 1)
    """
    if damage <= 1 or damage <= soak:
        return 0
    over = damage - soak >= OVERWHELM
    if damage_type == "slaying":
        return 2
    if damage_type == "enervated":
        return 1 if over else 0
    return 2 if over else 1


def _effective_type(damage_type: str) -> str:
    return "normal" if damage_type == "slaying_and_enervated" else damage_type


def damage_pairs(damage: list[int], soak: list[int], damage_type: str = "normal"
                 ) -> tuple[list[tuple[int, int | None, int]], int]:
    """Pair the faces, both sorted highest first; an unmatched damage die
    faces an imaginary 1 (soak None); returns the pairs (damage, soak, hits)
    and the extra hit of an all-1 soak (RULES-NOTES Jadeclaw 7).

    >>> damage_pairs([7, 6, 2], [8, 3])     # Jupi
    ([(7, 8, 0), (6, 3, 1), (2, None, 1)], 0)
    """
    kind = _effective_type(damage_type)
    d = sorted(damage, reverse=True)
    s = sorted(soak, reverse=True)
    pairs = [(x, s[i] if i < len(s) else None, pair_hits(x, s[i] if i < len(s) else 1, kind))
             for i, x in enumerate(d)]
    botch = 1 if s and s[0] == 1 else 0
    return pairs, botch


def auto_success(pool: list[int], difficulty: list[int]) -> bool:
    """The text's rule of thumb ("Frequently Asked Questions"): dice the same
    size or bigger, in the same quantity or more, may declare Success
    without rolling (if the task is neither dire nor contested).

    >>> auto_success([10, 8], [8, 8]), auto_success([12], [8, 8])   # No Zim Ta
    (True, False)
    """
    p = sorted(pool, reverse=True)
    d = sorted(difficulty, reverse=True)
    return len(p) >= len(d) and all(a >= b for a, b in zip(p, d))


def _hint(spec: dict, pool: list[int] | None, penalties: int) -> bool:
    """The rule-of-thumb hint applies against a difficulty (not a contest),
    to rolled dice, and only with no Penalty left: the text's "nice and
    quiet (no rush jobs, no improvised materials)" is a roll without
    Penalties."""
    return bool(spec["difficulty"] and pool and not penalties
                and auto_success(pool, DIFFICULTIES[spec["difficulty"]]))


# --------------------------------------------------------------------------
# Rolling.

def _roll_pool(pool: list[int], favored: bool, rng) -> tuple[list[dict], list[int], str | None]:
    """One roll of the pool (largest die first), then the Favored re-roll of
    one 1 on the largest die showing it (RULES-NOTES Jadeclaw 6)."""
    faces = [roll_die(rng, s) for s in pool]
    history = [[f] for f in faces]
    note = None
    if favored and 1 in faces:
        j = faces.index(1)  # pool is largest first, so this is the largest die showing 1
        faces[j] = roll_die(rng, pool[j])
        history[j].append(faces[j])
        note = f"Favored: re-rolled the d{pool[j]}'s 1, which now shows {faces[j]}."
    dice = [Die(face=f, sides=s, role="rerolled" if len(h) > 1 else "rolled",
                history=tuple(h)).to_dict() for s, f, h in zip(pool, faces, history)]
    return dice, faces, note


def _table_die_dicts(table: dict) -> list[dict]:
    faces = table["faces"]
    sides = table["sides"] or [next(s for s in SIZES if s >= f) for f in faces]
    return [Die(face=f, sides=s, role="rolled", extra={"on_table": True}).to_dict()
            for f, s in zip(faces, sides)]


def _opposition(spec: dict) -> tuple[str | None, list[int] | dict | None]:
    if spec["difficulty"]:
        return _label_difficulty(spec["difficulty"]), DIFFICULTIES[spec["difficulty"]]
    if spec["opponent"] is not None:
        if isinstance(spec["opponent"], dict):
            return "Dice on the table", spec["opponent"]
        return "Opposing dice", spec["opponent"]
    return None, None


def _label_difficulty(key: str) -> str:
    return key.replace("_", " ").title().replace(" Only", " Only")


def _mark_score(dice: list[dict]) -> int:
    score = max(d["face"] for d in dice)
    for d in dice:
        if d["face"] == score:
            d["score"] = True
            if d["role"] == "rolled":
                d["role"] = "kept"
            break
    return score


def roll(spec: dict, rng) -> dict:
    """Roll a normalized spec (see the module docstring for the order).

    >>> from rules.dice import ScriptedRng
    >>> du = normalize({"dice": "d12 & d10", "penalties": 1})      # Du Cheng-fa
    >>> r = roll(du, ScriptedRng([2, 5, 8, 4]))
    >>> [x["score"] for x in r["rolls"]], r["kept_roll"], r["value"]
    ([5, 8], 0, 5)
    """
    if spec["kind"] == "damage":
        return _roll_damage(spec, rng)
    return _roll_simple(spec, rng)


def _roll_simple(spec: dict, rng) -> dict:
    explain: list[str] = []
    if isinstance(spec["dice"], dict):
        pool_sizes = None
        dice = _table_die_dicts(spec["dice"])
        score = _mark_score(dice)
        rolls = [{"dice": dice, "score": score, "kept": True}]
        kept = 0
        explain.append(f"Dice already on the table show {_faces_text(d['face'] for d in dice)}: "
                       f"the highest, {score}, is the Score.")
        info = {"bonuses": 0, "penalties": 0}
    else:
        pool, notes, info = prepare(spec)
        pool_sizes = pool
        explain.append(f"Dice: {_start_text(spec)}.")
        explain += notes
        rolls = []
        for i in range(info["penalties"] + 1):
            dice, faces, note = _roll_pool(pool, spec["favored"], rng)
            score = _mark_score(dice)
            rolls.append({"dice": dice, "score": score, "kept": False})
            label = f"Roll {i + 1}" if info["penalties"] else "Rolled"
            explain.append(f"{label}: {format_pool(pool)} showed {_faces_text(faces)}"
                           + (f" ({note})" if note else "") + f": Score {score}.")
        kept = min(range(len(rolls)), key=lambda i: rolls[i]["score"])
        rolls[kept]["kept"] = True
        for i, r in enumerate(rolls):
            if i != kept:
                for d in r["dice"]:
                    d["role"] = "dropped"
        score = rolls[kept]["score"]
        if info["penalties"]:
            explain.append(f"{_plural(info['penalties'], 'Penalty', 'Penalties')}: "
                           f"{len(rolls)} rolls, the worst Score counts: {score} (roll {kept + 1}) "
                           "(RULES-NOTES Jadeclaw 3).")
    result: dict[str, Any] = {
        "kind": "simple",
        "pool": pool_sizes,
        "rolls": rolls,
        "kept_roll": kept,
        "dice": rolls[kept]["dice"],
        "value": score,
        "bonuses": info["bonuses"],
        "penalties": info["penalties"],
    }
    label, opp = _opposition(spec)
    if opp is None:
        result["outcome"] = "botch" if score == 1 else "scored"
        result["opponent"] = None
        result["opponent_score"] = None
        result["auto_success"] = False
        explain.append("A Score of 1 is a Botch (\"'All ones': Botching\")." if score == 1
                       else f"No opposition given: the Score is {score}.")
        result["explain"] = explain
        return result
    if isinstance(opp, dict):
        odice = _table_die_dicts(opp)
        ofaces = [d["face"] for d in odice]
        explain.append(f"{label}: {_faces_text(ofaces)} (already rolled; a combination roll).")
    else:
        ofaces = [roll_die(rng, s) for s in opp]
        odice = [Die(face=f, sides=s).to_dict() for f, s in zip(ofaces, opp)]
        explain.append(f"{label}: {format_pool(opp)} showed {_faces_text(ofaces)}.")
    oscore = _mark_score(odice)
    outcome = contest(score, oscore, spec["quality"], spec["opponent_quality"], spec["double_botch"])
    explain.append(_contest_text(score, oscore, outcome, spec))
    result.update({
        "opponent": odice,
        "opponent_score": oscore,
        "opponent_label": label,
        "margin": score - oscore,
        "outcome": outcome,
        "auto_success": _hint(spec, pool_sizes, info["penalties"]),
    })
    if result["auto_success"]:
        explain.append("Rule of thumb: these dice are as many and as big as the difficulty's, so if "
                       "the task is neither dire nor contested the roll may be skipped as a Success.")
    result["explain"] = explain
    return result


def _start_text(spec: dict) -> str:
    base = format_pool(spec["dice"]) if spec["dice"] else "no dice"
    if spec["level"] is not None:
        base += f" (level {spec['level']})"
    return base


def _faces_text(faces) -> str:
    return ", ".join(str(f) for f in faces)


def _contest_text(score: int, oscore: int, outcome: str, spec: dict) -> str:
    vs = f"Score {score} vs {oscore}"
    if outcome == "double_botch":
        return (f"{vs}: both sides Botched - a double Botch; the Host may call it a Tie "
                "(RULES-NOTES Jadeclaw 4).")
    if score == 1 and oscore == 1:
        return f"{vs}: both sides Botched; the Host rules it a Tie (RULES-NOTES Jadeclaw 4)."
    if outcome == "botch":
        return f"{vs}: a Score of 1 is a Botch whatever the other side shows (RULES-NOTES Jadeclaw 4)."
    d = score - oscore
    if d == 0:
        a, b = quality_name(spec["quality"]), quality_name(spec["opponent_quality"])
        if outcome == "tie":
            why = ("neither side has the better Quality" if a is not None and b is not None
                   else "a Quality on both sides is needed to break it")
            return f"{vs}: a Tie ({why})."
        return (f"{vs}: equal Scores, and {a.title()} Quality against {b.title()} breaks the Tie: "
                f"{outcome.title()} (\"Quality Makes a Difference\").")
    word = {"overwhelming_success": "an Overwhelming Success", "success": "a Success",
            "failure": "a Failure", "overwhelming_failure": "an Overwhelming Failure"}[outcome]
    extra = " (the opposition Botched)" if oscore == 1 else ""
    how = f"ahead by {d}" if d > 0 else f"behind by {-d}"
    return f"{vs}: {how}, {word}{extra}" + (" (5 or more Overwhelms)." if abs(d) >= OVERWHELM else ".")


def _roll_damage(spec: dict, rng) -> dict:
    explain: list[str] = []
    kind = _effective_type(spec["damage_type"])
    if isinstance(spec["dice"], dict):
        pool = None
        dmg = _table_die_dicts(spec["dice"])
        explain.append(f"Damage dice already on the table: {_faces_text(d['face'] for d in dmg)} "
                       "(a combination roll).")
        info = {"bonuses": 0, "penalties": 0, "removed_by_penalty": []}
    else:
        pool, notes, info = prepare(spec)
        explain.append(f"Damage dice: {_start_text(spec)}.")
        explain += notes
        if pool:
            dmg, faces, note = _roll_pool(pool, spec["favored"], rng)
            explain.append(f"Rolled {format_pool(pool)}: {_faces_text(faces)}" + (f" ({note})" if note else "") + ".")
        else:
            dmg = []
            explain.append("No damage dice are left to roll: no hits.")
    if isinstance(spec["soak"], dict):
        soak = _table_die_dicts(spec["soak"])
        explain.append(f"Soak dice already on the table: {_faces_text(d['face'] for d in soak)}.")
    elif spec["soak"]:
        sfaces = [roll_die(rng, s) for s in spec["soak"]]
        soak = [Die(face=f, sides=s).to_dict() for f, s in zip(sfaces, spec["soak"])]
        explain.append(f"Soak {format_pool(spec['soak'])} showed {_faces_text(sfaces)}.")
    else:
        soak = []
        explain.append("No soak dice: every damage die faces an imaginary 1.")
    if spec["damage_type"] == "slaying_and_enervated":
        explain.append("Slaying and Enervated cancel out: normal damage (\"No Damage is both Slaying "
                       "and Enervated\").")
    elif kind == "slaying":
        explain.append("Slaying Damage: every damage die that beats its soak die scores 2 hits.")
    elif kind == "enervated":
        explain.append("Enervated Damage: a damage die scores 1 hit only when it beats its soak die by 5 or more.")
    ds = sorted(dmg, key=lambda d: -d["face"])
    ss = sorted(soak, key=lambda d: -d["face"])
    pairs = []
    total = 0
    for i in range(max(len(ds), len(ss))):
        d = ds[i] if i < len(ds) else None
        s = ss[i] if i < len(ss) else None
        if d is None:
            pairs.append({"damage": None, "soak": s, "hits": 0, "margin": None})
            continue
        if s is None:
            s = Die(face=1, role="imaginary").to_dict()
        h = pair_hits(d["face"], s["face"], kind)
        total += h
        d["hits"] = h
        pairs.append({"damage": d, "soak": s, "hits": h, "margin": d["face"] - s["face"]})
        if h:
            d["success"] = True
    explain.append("Pairs, highest with highest: " + "; ".join(
        f"{p['damage']['face']} vs {p['soak']['face']}{' (imaginary)' if p['soak']['role'] == 'imaginary' else ''}"
        f" → {_plural(p['hits'], 'hit', 'hits')}" for p in pairs if p["damage"] is not None) + "."
        if ds else "No damage dice: no pairs.")
    soak_botch = bool(ss) and all(s["face"] == 1 for s in ss)
    if soak_botch:
        total += 1
        explain.append("The soak dice all show 1 (a Botch): one extra hit.")
    explain.append(f"Total: {_plural(total, 'hit', 'hits')}.")
    return {
        "kind": "damage",
        "pool": pool,
        "rolls": [{"dice": dmg, "score": max((d["face"] for d in dmg), default=None), "kept": True}],
        "kept_roll": 0,
        "dice": dmg,
        "opponent": soak,
        "pairs": pairs,
        "soak_botch": soak_botch,
        "removed": info["removed_by_penalty"],
        "bonuses": info["bonuses"],
        "penalties": info["penalties"],
        "value": total,
        "outcome": "hits" if total else "no_hits",
        "explain": explain,
    }


def act(spec, result, action, rng):
    raise SpecError("action", "Jadeclaw allows no step after a roll")


# --------------------------------------------------------------------------
# Odds.

def _roll_cdf(pool: list[int], favored: bool, v: int, one: Any = Fraction(1)) -> Any:
    """P(one roll's Score <= v), Favored included: the largest die showing 1
    is re-rolled, so condition on which die that is (dice largest first):
    the dice before it show 2..v, it shows 1 and re-rolls to at most v, the
    dice after it show at most v."""
    if v < 1:
        return one * 0
    at_most = [one * min(v, s) / s for s in pool]
    if not favored:
        p = one
        for x in at_most:
            p *= x
        return p
    suffix = [one] * (len(pool) + 1)
    for j in range(len(pool) - 1, -1, -1):
        suffix[j] = suffix[j + 1] * at_most[j]
    total = one * 0
    prefix = one
    for j, s in enumerate(pool):
        total += prefix * (one / s) * at_most[j] * suffix[j + 1]
        prefix *= one * max(min(v, s) - 1, 0) / s
    return total + prefix


def score_dist(pool: list[int], favored: bool = False, penalties: int = 0,
               one: Any = Fraction(1)) -> dict[int, Any]:
    """The distribution of the kept Score (Fractions by default; pass
    ``one=1.0`` for floats): one roll's P(Score <= v) from products over the
    dice, and with k Penalties the worst of k + 1 rolls,
    P(worst > v) = P(Score > v) ** (k + 1) (RULES-NOTES Jadeclaw 3).

    >>> d = score_dist([6])
    >>> d[1], d[6]
    (Fraction(1, 6), Fraction(1, 6))
    >>> score_dist([4], penalties=1)[4]
    Fraction(1, 16)
    """
    top = max(pool)
    out = {}
    prev = one * 0
    for v in range(1, top + 1):
        c = 1 - (1 - _roll_cdf(pool, favored, v, one)) ** (penalties + 1)
        if c != prev:
            out[v] = c - prev
        prev = c
    return out


def _binom_row(n: int, p: Fraction, one: Any) -> list:
    """P(c of n independent events of chance p), c = 0..n."""
    q = one - p
    return [math.comb(n, c) * p ** c * q ** (n - c) for c in range(n + 1)]


class _TooBig(Exception):
    pass


def _hits_dp(dmg_lo1: list[int], dmg_lo2: list[int], soak: list[int], kind: str, one: Any,
             budget: list, dmg_fixed: bool = False, soak_fixed: bool = False) -> dict[int, Any]:
    """Exact hits distribution of damage dice (``dmg_lo1`` uniform on 1..s,
    ``dmg_lo2`` uniform on 2..s: the dice before a Favored re-roll, which did
    not show 1) against soak dice, scanning the faces from 12 down to 1.

    A die of size >= v known to show <= v shows v with chance 1/v (1/(v-1)
    for a 2..s die) whatever its size, so the state needs only how many dice
    of each side are placed, the damage dice still waiting for a lower soak
    partner (their faces, clamped once they are sure to win by 5), and the
    hits so far. Pairing is by position in the sorted order (RULES-NOTES
    Jadeclaw 7). With ``dmg_fixed`` / ``soak_fixed`` that side's list holds
    faces already on the table (a combination roll), placed with certainty.
    ``budget`` is a one-item list of work left; past it, ``_TooBig``."""
    hit = [[pair_hits(u, w, kind) for w in range(13)] for u in range(13)]
    clamp = 1 if kind == "slaying" else OVERWHELM
    # state (placed 1..s dice, placed 2..s dice, placed soak, waiting faces)
    # -> [P(hits so far = h) for h = 0, 1, ...]
    states: dict[tuple, list] = {(0, 0, 0, ()): [one]}
    m = len(soak)
    for v in range(12, 0, -1):
        n1 = sum(1 for s in dmg_lo1 if s >= v)
        n2 = sum(1 for s in dmg_lo2 if s >= v)
        ns = sum(1 for s in soak if s >= v)
        p1 = one / v
        p2 = one / (v - 1) if v > 1 else one
        fix1 = sum(1 for s in dmg_lo1 if s == v)
        fixs = sum(1 for s in soak if s == v)
        nxt: dict[tuple, list] = {}
        rows: dict[tuple, list] = {}
        for (pa, pb, b, pend), poly in states.items():
            e1, e2, es = n1 - pa, n2 - pb, ns - b
            if dmg_fixed:
                r1 = [0] * fix1 + [one]
            elif v == 1:
                r1 = [0] * e1 + [one]
            else:
                r1 = rows.get((1, e1)) or rows.setdefault((1, e1), _binom_row(e1, p1, one))
            r2 = rows.get((2, e2)) or rows.setdefault((2, e2), _binom_row(e2, p2, one))
            if soak_fixed:
                rs = [0] * fixs + [one]
            elif v == 1:
                rs = [0] * es + [one]
            else:
                rs = rows.get((3, es)) or rows.setdefault((3, es), _binom_row(es, p1, one))
            a = pa + pb
            budget[0] -= len(r1) * len(r2) * len(rs) * (4 + len(pend) + len(poly))
            if budget[0] < 0:
                raise _TooBig
            for c1 in range(len(r1)):
                q1 = r1[c1]
                if not q1:
                    continue
                for c2 in range(len(r2)):
                    q2 = q1 * r2[c2]
                    if not q2:
                        continue
                    cd = c1 + c2
                    for cs in range(len(rs)):
                        q = q2 * rs[cs]
                        if not q:
                            continue
                        h = 0
                        if a >= b:
                            k = min(cs, a - b)
                            for u in pend[:k]:
                                h += hit[u][v]
                            rest = pend[k:]
                            rem = cs - k
                            if rem >= cd:
                                new_pend = rest
                            else:
                                new_pend = rest + (v,) * (cd - rem)
                        else:
                            ahead = b - a
                            r = cd - min(cd, ahead)
                            new_pend = (v,) * (r - cs) if r > cs else ()
                        nb = b + cs
                        na = a + cd
                        if v == 1:
                            if m and b == 0:
                                h += 1  # an all-1 soak: one extra hit
                            if na > nb:
                                for u in new_pend[len(new_pend) - (na - nb):]:
                                    h += hit[u][1]
                            new_pend = ()
                        else:
                            top = v - 1 + clamp
                            new_pend = tuple(min(u, top) for u in new_pend)
                        key = (pa + c1, pb + c2, nb, new_pend)
                        shifted = [0] * h + [x * q for x in poly]
                        got = nxt.get(key)
                        if got is None:
                            nxt[key] = [shifted]
                        else:
                            got.append(shifted)
        states = {k: [sum(col) for col in zip_longest(*ls, fillvalue=0)] if len(ls) > 1 else ls[0]
                  for k, ls in nxt.items()}
    out: dict[int, Any] = {}
    for poly in states.values():
        for h, pr in enumerate(poly):
            if pr:
                out[h] = out.get(h, 0) + pr
    return out


def hits_dist(damage: list[int], soak: list[int], damage_type: str = "normal",
              favored: bool = False, exact: bool = True, budget: int = 10 ** 9,
              soak_fixed: bool = False) -> dict[int, Any]:
    """The exact hits distribution of a Damage Roll (Fractions when
    ``exact``, else floats). Favored (RULES-NOTES Jadeclaw 6) is a mixture
    over which die, largest first, first showed a 1 and was re-rolled: the
    dice before it show 2..s, it and the dice after it 1..s. With
    ``soak_fixed`` the soak list holds faces already on the table. Raises
    ``_TooBig`` once the scan passes ``budget`` steps of work.

    >>> d = hits_dist([4], [4])
    >>> d[0], d[1], d[2]
    (Fraction(9, 16), Fraction(1, 4), Fraction(3, 16))
    """
    kind = _effective_type(damage_type)
    one: Any = Fraction(1) if exact else 1.0
    dmg = sorted(damage, reverse=True)
    soak = sorted(soak, reverse=True)
    left = [budget]
    if not favored:
        return _hits_dp(dmg, [], soak, kind, one, left, soak_fixed=soak_fixed)
    out: dict[int, Any] = {}
    before = one  # the chance that the dice before j showed no 1
    for j in range(len(dmg) + 1):
        w = before * (one / dmg[j]) if j < len(dmg) else before
        if w:
            for h, p in _hits_dp(dmg[j:], dmg[:j], soak, kind, one, left, soak_fixed=soak_fixed).items():
                out[h] = out.get(h, 0) + w * p
        if j < len(dmg):
            before = before * (one - one / dmg[j])
    return out


#: Damage odds are exact while the scan stays under this much work (about
#: 15 ms under CPython); past it they are sampled with a seed derived from
#: the spec, with about this many random numbers, so the page never freezes.
EXACT_DAMAGE_WORK = 40000
DAMAGE_SAMPLE_DRAWS = 24000


def damage_dist(spec: dict, exact: bool = False, budget: int = EXACT_DAMAGE_WORK) -> dict:
    """The hits distribution of a normalized Damage Roll spec: exact by the
    scan of ``hits_dist`` while that is small (Fractions when ``exact``,
    else floats), else sampled with a seed derived from the spec (sample
    size and 95 % margin stated).

    >>> d = damage_dist(normalize({"kind": "damage", "dice": "d4", "soak": "d4"}), exact=True)
    >>> d["exact"], d["dist"][0], d["dist"][1]
    (True, Fraction(9, 16), Fraction(1, 4))
    """
    kind = _effective_type(spec["damage_type"])
    dmg_table = _table_faces(spec["dice"])
    soak_table = _table_faces(spec["soak"])
    pool = prepare(spec)[0] if dmg_table is None else None
    one: Any = Fraction(1) if exact else 1.0
    try:
        if dmg_table is not None:
            if soak_table is not None:
                pairs, botch = damage_pairs(dmg_table, soak_table, kind)
                return {"dist": {botch + sum(p[2] for p in pairs): one}, "exact": True}
            dist = _hits_dp(sorted(dmg_table, reverse=True), [], sorted(spec["soak"], reverse=True),
                            kind, one, [budget], dmg_fixed=True)
        else:
            dist = hits_dist(pool, soak_table if soak_table is not None else list(spec["soak"]),
                             kind, spec["favored"], exact, budget,
                             soak_fixed=soak_table is not None)
        return {"dist": dist, "exact": True}
    except _TooBig:
        pass
    rnd = random.Random(spec_seed("jadeclaw", spec, "damage-odds")).random
    dmg_sizes = [] if pool is None else pool
    soak_sizes = [] if soak_table is not None else list(spec["soak"])
    n = max(500, min(3000, DAMAGE_SAMPLE_DRAWS // max(1, len(dmg_sizes) + len(soak_sizes))))
    hit = [[pair_hits(u, w, kind) for w in range(13)] for u in range(13)]
    tally: dict[int, int] = {}
    for _ in range(n):
        if dmg_table is not None:
            d = sorted(dmg_table, reverse=True)
        else:
            d = [int(rnd() * s) + 1 for s in dmg_sizes]
            if spec["favored"] and 1 in d:
                j = d.index(1)
                d[j] = int(rnd() * dmg_sizes[j]) + 1
            d.sort(reverse=True)
        s = soak_table if soak_table is not None else [int(rnd() * x) + 1 for x in soak_sizes]
        s = sorted(s, reverse=True)
        h = 1 if s and s[0] == 1 else 0
        ls = len(s)
        for i, x in enumerate(d):
            h += hit[x][s[i] if i < ls else 1]
        tally[h] = tally.get(h, 0) + 1
    margin = 1.96 * (0.25 / n) ** 0.5
    return {"dist": {h: c / n for h, c in tally.items()}, "exact": False,
            "samples": n, "margin": margin}


def _table_faces(side: Any) -> list[int] | None:
    return list(side["faces"]) if isinstance(side, dict) else None


def odds(spec: dict, result: dict | None = None, action: Any = None) -> dict:
    """The distribution of the roll: the kept Score (Penalties and Favored
    included) and every contest outcome, exact; or a Damage Roll's hits.

    >>> o = odds(normalize({"dice": "d10 & d8", "difficulty": "intermediate"}))
    >>> o["exact"], o["auto_success"], round(sum(o["outcome"].values()), 9)
    (True, True, 1.0)
    """
    if action is not None:
        raise SpecError("action", "Jadeclaw allows no step after a roll")
    if spec["kind"] == "damage":
        res = damage_dist(spec)
        dist = dict(sorted(res["dist"].items()))
        p0 = dist.get(0, 0)
        out = {"value": {k: float(v) for k, v in dist.items()},
               "outcome": {"no_hits": float(p0), "hits": float(1 - p0)},
               "exact": res["exact"],
               "mean": float(sum(k * v for k, v in dist.items()))}
        if not res["exact"]:
            out["samples"] = res["samples"]
            out["margin"] = res["margin"]
        out["pool"] = None if isinstance(spec["dice"], dict) else prepare(spec)[0]
        return out
    if isinstance(spec["dice"], dict):
        score = max(spec["dice"]["faces"])
        mine = {score: 1.0}
        pool = None
        rolls = 1
    else:
        pool, _, info = prepare(spec)
        mine = score_dist(pool, spec["favored"], info["penalties"], 1.0)
        rolls = info["penalties"] + 1
    label, opp = _opposition(spec)
    out: dict[str, Any] = {"value": {k: float(v) for k, v in sorted(mine.items())}, "exact": True,
                           "pool": pool, "rolls": rolls, "auto_success": False}
    if opp is None:
        p1 = mine.get(1, 0.0)
        out["outcome"] = {"botch": float(p1), "scored": float(1 - p1)}
        return out
    theirs = {max(opp["faces"]): 1.0} if isinstance(opp, dict) else score_dist(opp, one=1.0)
    cats = {k: 0.0 for k in CONTEST_OUTCOMES}
    for a, pa in mine.items():
        for b, pb in theirs.items():
            o = contest(a, b, spec["quality"], spec["opponent_quality"], spec["double_botch"])
            cats[o] += pa * pb
    out["outcome"] = {k: float(v) for k, v in cats.items()}
    out["opponent_value"] = {k: float(v) for k, v in sorted(theirs.items())}
    out["opponent_label"] = label
    out["auto_success"] = _hint(spec, pool, rolls - 1)
    return out
