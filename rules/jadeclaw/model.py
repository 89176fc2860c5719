"""Jadeclaw (its rules text, "Rolling Dice"): pools of d4-d12,
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

The other side is a roll too. Opposing dice or a Difficulty's dice take
their own Limit, Bonuses, Penalties (they roll again and keep their worst
Score) and Favored (``opponent_*`` keys); soak dice take the Damage Roll's
own modifiers (``soak_*`` keys: a Penalty removes the smallest soak die,
Favored re-rolls the largest soak die showing 1). Dice already on the table
take none.

Draw order (DESIGN.md): the roller's dice, largest first, then a Favored
re-roll; then each Penalty's roll of the whole pool with its own Favored
re-roll; then the opposition's dice (opponent, difficulty or soak) in the
same way. Dice already on the table (``{"faces": [...]}``, a combination
roll) draw nothing.

The prose of a result comes from ``explain``, which the system
(``rules.jadeclaw``) adds to each roll; this module is the model.

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
from itertools import product
from typing import Any, NamedTuple

from ..dice import (MAX_POOL, SIZES, Die, SpecError, check_keys, is_number, format_pool, get_bool,
                   get_choice, get_int, get_size, get_sizes, name_key, roll_die, spec_seed)
from ..system import check_action

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "STEPS", "DIFFICULTIES", "QUALITIES", "DAMAGE_TYPES",
           "normalize", "roll", "act", "odds", "level_pool", "apply_bonuses", "prepare", "prepare_side",
           "side", "Side", "opposition", "quality_name", "contest", "pair_hits", "damage_pairs",
           "auto_success", "levels_table", "score_dist", "hits_dist", "damage_dist", "label_difficulty"]

NAME = "jadeclaw"
TITLE = "Jadeclaw"

#: Every outcome, worst to best (the page colours them by this rank): a
#: Damage Roll's two sit among a Simple Roll's, "no hits" with the
#: neutral ones and "hits" with the successes.
OUTCOMES = ("botch", "double_botch", "overwhelming_failure", "failure", "no_hits", "tie",
            "scored", "success", "hits", "overwhelming_success")

#: The contest outcomes of a Simple Roll against opposition, worst to best.
CONTEST_OUTCOMES = ("botch", "double_botch", "overwhelming_failure", "failure", "tie",
                    "success", "overwhelming_success")

#: No step after a roll: everything is decided before it (DESIGN.md verbs).
STEPS: dict = {}
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
QUALITY_STEP = 5

#: "No Damage is both Slaying and Enervated - the two effects cancel".
DAMAGE_TYPES = ("normal", "slaying", "enervated", "slaying_and_enervated")

#: A Score this far ahead (or behind) Overwhelms ("'5 or more': Overwhelming").
OVERWHELM = 5
#: A damage die that Overwhelms its soak die (or any Slaying hit) scores
#: this many hits; a 1 never hits ("Summary of Die Rolls", Damage).
OVERWHELM_HITS = 2
NEVER_HITS = 1

MAX_LEVEL = 60
MAX_MODS = 20

#: The other side's modifiers: the opposing dice (or a Difficulty's) and the
#: soak dice, each with its own Limit, Bonuses, Penalties and Favored.
OPPONENT_MODS = ("opponent_bonuses", "opponent_penalties", "opponent_favored", "opponent_limit")
SOAK_MODS = ("soak_bonuses", "soak_penalties", "soak_favored", "soak_limit")

KEYS = ("kind", "dice", "level", "include", "remove", "limit", "bonuses", "penalties",
        "favored", "opponent", "difficulty", "quality", "opponent_quality", "soak",
        "damage_type", "double_botch") + OPPONENT_MODS + SOAK_MODS


# --------------------------------------------------------------------------
# Pools: levels and Bonuses (RULES-NOTES Jadeclaw 2).

def level_pool(level: int) -> list[int]:
    """Level L is L size steps (d4 = 1 ... d12 = 5): as many d12 as fit, plus
    one smaller die for the rest (RULES-NOTES Jadeclaw 2; "Summary of Levels
    and Bonuses", column "Dice").

    >>> level_pool(0), level_pool(3), level_pool(6), level_pool(10)
    ([], [8], [12, 4], [12, 12])
    """
    twelves, rest = divmod(level, len(SIZES))
    return [SIZES[-1]] * twelves + ([SIZES[rest - 1]] if rest else [])


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
    return sorted(out + _new_dice(carry, MAX_POOL + 1 - len(out)), reverse=True)


def _new_dice(carry: int, room: int) -> list[int]:
    """Increases left once every die is a d12: each new d4 takes one to
    start, then grows to d12 at most (``room`` bounds the count)."""
    out: list[int] = []
    while carry > 0 and len(out) < room:
        carry -= 1
        up = min(carry, len(SIZES) - 1)
        out.append(SIZES[up])
        carry -= up
    return out


def levels_table(levels=range(0, 21), bonuses=range(0, 7)) -> list[list[str]]:
    """The "Summary of Levels and Bonuses" computed from the rule: one row per
    level, the pool written in the text's notation ("zero" for no dice).

    >>> levels_table(range(5, 7), range(0, 3))
    [['d12', 'd12 & d4', 'd12 & d6'], ['d12 & d4', 'd12 & d8', '2d12']]
    """
    return [[format_pool(apply_bonuses(level_pool(lv), b)) if (lv or b) else "zero"
             for b in bonuses] for lv in levels]


# --------------------------------------------------------------------------
# A side of a roll and its preparation (the text's steps 1-4, and on a
# Damage Roll step 5).

class Side(NamedTuple):
    """One side's dice and modifiers: the roller's, the opposition's (opposing
    dice or a Difficulty's) or the soak dice. ``dice`` is a list of sizes, a
    ``{"faces": ...}`` dict for dice already on the table, or None."""

    dice: Any
    include: list
    remove: int
    limit: int | None
    bonuses: int
    penalties: int
    favored: bool


def opposition(spec: dict) -> tuple[str | None, list[int] | dict | None]:
    """The label and the dice a Simple Roll is against: a Difficulty's dice,
    opposing dice, dice on the table, or ``(None, None)``."""
    if spec["difficulty"]:
        return label_difficulty(spec["difficulty"]), DIFFICULTIES[spec["difficulty"]]
    if spec["opponent"] is not None:
        if isinstance(spec["opponent"], dict):
            return "Dice on the table", spec["opponent"]
        return "Opposing dice", spec["opponent"]
    return None, None


def label_difficulty(key: str) -> str:
    return key.replace("_", " ").title()


def side(spec: dict, who: str) -> Side:
    """The ``roller``'s, ``opponent``'s or ``soak`` side of a normalized spec.

    >>> side(normalize({"dice": "d8", "difficulty": "routine", "opponent_bonuses": 1}), "opponent").dice
    [6, 6]
    """
    if who == "roller":
        return Side(spec["dice"], spec["include"], spec["remove"], spec["limit"], spec["bonuses"],
                    spec["penalties"], spec["favored"])
    dice = opposition(spec)[1] if who == "opponent" else spec["soak"]
    return Side(dice, [], 0, spec[f"{who}_limit"], spec[f"{who}_bonuses"], spec[f"{who}_penalties"],
                spec[f"{who}_favored"])


def prepare_side(sd: Side, damage: bool = False) -> tuple[list[int], list[dict], dict]:
    """The dice one side rolls after the text's steps 1-4 (and, on a Damage
    Roll, step 5: each Penalty removes the smallest die), the steps that
    changed them (data; ``explain.prep_notes`` words them), and the
    figures: ``{"bonuses": net, "penalties": net, "removed_by_penalty": [...]}``.

    >>> pool, steps, info = prepare_side(Side([8, 8, 4], [], 0, None, 0, 1, False), damage=True)
    >>> pool, info["removed_by_penalty"], [s["step"] for s in steps]      # Biaochi
    ([8, 8], [4], ['penalties'])
    """
    pool = list(sd.dice) if isinstance(sd.dice, list) else []
    steps: list[dict] = []
    pool = _include(pool, sd.include, steps)
    pool = _remove(pool, sd.remove, steps)
    pool = _limit(pool, sd.limit, steps)
    bonuses, penalties = _net(sd.bonuses, sd.penalties, steps)
    pool = _bonus(pool, bonuses, steps)
    removed: list[int] = []
    if damage and penalties:
        pool, removed = _penalty_remove(pool, penalties, steps)
    return pool, steps, {"bonuses": bonuses, "penalties": penalties, "removed_by_penalty": removed}


def prepare(spec: dict) -> tuple[list[int], list[dict], dict]:
    """The roller's dice after the text's steps (see ``prepare_side``).

    >>> pool, steps, info = prepare(normalize({"dice": "2d12, d10, d4", "remove": 1}))
    >>> pool, info["penalties"]         # Number 21 Mouth
    ([12, 10, 4], 0)
    """
    return prepare_side(side(spec, "roller"), spec["kind"] == "damage")


def _include(pool: list[int], include: list[int], steps: list) -> list[int]:
    if not include:
        return pool
    pool = sorted(pool + include, reverse=True)
    steps.append({"step": "include", "dice": list(include), "pool": pool})
    return pool


def _remove(pool: list[int], n: int, steps: list) -> list[int]:
    if not n:
        return pool
    steps.append({"step": "remove", "dice": pool[:n], "pool": pool[n:]})
    return pool[n:]


def _limit(pool: list[int], lim: int | None, steps: list) -> list[int]:
    if not lim or all(s <= lim for s in pool):
        return pool
    pool = [min(s, lim) for s in pool]
    steps.append({"step": "limit", "limit": lim, "pool": pool})
    return pool


def _net(bonuses: int, penalties: int, steps: list) -> tuple[int, int]:
    """"Bonuses and Penalties cancel one another out", one for one."""
    if bonuses and penalties:
        steps.append({"step": "cancel", "n": min(bonuses, penalties)})
    net = bonuses - penalties
    return max(net, 0), max(-net, 0)


def _bonus(pool: list[int], bonuses: int, steps: list) -> list[int]:
    if not bonuses:
        return pool
    after = apply_bonuses(pool, bonuses)
    steps.append({"step": "bonuses", "n": bonuses, "before": pool, "pool": after})
    return after


def _penalty_remove(pool: list[int], penalties: int, steps: list) -> tuple[list[int], list[int]]:
    k = min(penalties, len(pool))
    removed = pool[len(pool) - k:] if k else []
    pool = pool[:len(pool) - k]
    steps.append({"step": "penalties", "n": penalties, "dice": removed, "pool": pool})
    return pool, removed


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
    return {"faces": out_faces, "sides": None if sides is None else _table_sides(sides, out_faces, field)}


def _table_sides(sides: Any, faces: list[int], field: str) -> list[int]:
    if not isinstance(sides, list) or len(sides) != len(faces):
        raise SpecError(field, "sides must list one die size per face")
    out = [get_size({"x": s}, "x", field=field) for s in sides]
    for f, s in zip(faces, out):
        if f > s:
            raise SpecError(field, f"a d{s} cannot show {f}")
    return out


def _pool_or_table(spec: dict, key: str) -> Any:
    v = spec.get(key)
    if isinstance(v, dict):
        return _table_dice(v, key)
    return get_sizes({key: v}, key)


def _blank(v: Any, *blanks: Any) -> bool:
    return v is None or any(v == b for b in blanks)


def _quality(value: Any, field: str) -> Any:
    """A Quality name or a skill level (kept as given; see ``quality_name``)."""
    if _blank(value, ""):
        return None
    if _looks_numeric(value):
        return get_int({"x": value}, "x", 0, 200, field=field)
    k = name_key(value, field)
    if k not in QUALITIES:
        raise SpecError(field, "must be a Quality (" + ", ".join(QUALITIES)
                        + f") or a skill level from 0 to 200 (got {str(value)[:30]!r})")
    return k


def _looks_numeric(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().isdigit()
    return is_number(value)


def _limit_field(spec: dict, key: str) -> int | None:
    return None if _blank(spec.get(key), "", 0, "0", "none") else get_size(spec, key)


def _roller_dice(spec: dict) -> tuple[Any, int | None]:
    """The roller's dice (sizes or dice on the table) and level."""
    level = spec.get("level")
    level = None if _blank(level, "") else get_int(spec, "level", 0, MAX_LEVEL)
    raw = spec.get("dice")
    has_dice = not _blank(raw, "", [])
    if level is not None:
        return _level_dice(spec, level, has_dice), level
    if not has_dice:
        return (list(DEFAULT_SPEC["dice"]) if "dice" not in spec else []), None
    return _pool_or_table(spec, "dice"), None


def _level_dice(spec: dict, level: int, has_dice: bool) -> list[int]:
    """The level's dice; dice given beside it must be the same dice."""
    dice = level_pool(level)
    if has_dice and _pool_or_table(spec, "dice") != dice:
        raise SpecError("dice", f"give either dice or a level, not both (level {level} is "
                                f"{format_pool(dice) if dice else 'no dice'})")
    return dice


def _roller_mods(spec: dict) -> dict:
    return {
        "include": get_sizes(spec, "include", default=[]),
        "remove": get_int(spec, "remove", 0, MAX_POOL, default=0),
        "limit": _limit_field(spec, "limit"),
        "bonuses": get_int(spec, "bonuses", 0, MAX_MODS, default=0),
        "penalties": get_int(spec, "penalties", 0, MAX_MODS, default=0),
        "favored": get_bool(spec, "favored", False),
    }


def _side_mods(spec: dict, who: str) -> dict:
    """``<who>_bonuses``, ``_penalties``, ``_favored``, ``_limit``."""
    return {
        f"{who}_bonuses": get_int(spec, f"{who}_bonuses", 0, MAX_MODS, default=0),
        f"{who}_penalties": get_int(spec, f"{who}_penalties", 0, MAX_MODS, default=0),
        f"{who}_favored": get_bool(spec, f"{who}_favored", False),
        f"{who}_limit": _limit_field(spec, f"{who}_limit"),
    }


def _no_mods_on(dice: Any, mods: dict, why: str) -> None:
    """Modifiers on dice that take none: the first one set is an error."""
    for key, val in mods.items():
        if val and (dice is None or isinstance(dice, dict)):
            raise SpecError(key, why if dice is not None else
                            "applies to opposing dice or a Difficulty; this roll has neither")


def _opposition_fields(spec: dict) -> tuple[Any, str | None]:
    opponent = spec.get("opponent")
    opponent = None if _blank(opponent, "", []) else _pool_or_table(spec, "opponent")
    difficulty = spec.get("difficulty")
    difficulty = None if _blank(difficulty, "", "none") else get_choice(spec, "difficulty", tuple(DIFFICULTIES))
    if opponent is not None and difficulty is not None:
        raise SpecError("difficulty", "give either opposing dice or a difficulty, not both")
    return opponent, difficulty


def _check_pools(out: dict) -> None:
    """Every side's prepared pool within MAX_POOL; the roller's not empty."""
    if not isinstance(out["dice"], dict):
        _check_roller_pool(out)
    for who in ("opponent", "soak"):
        sd = side(out, who)
        if isinstance(sd.dice, list) and len(prepare_side(sd)[0]) > MAX_POOL:
            raise SpecError(f"{who}_bonuses", f"would make more than {MAX_POOL} dice")


def _check_roller_pool(out: dict) -> None:
    before = len(out["dice"]) + len(out["include"])
    if out["remove"] > before:
        raise SpecError("remove", f"cannot remove {out['remove']} dice from {_plural(before, 'die', 'dice')}")
    pool, _, info = prepare(out)
    if len(pool) > MAX_POOL:
        raise SpecError("bonuses", f"would make more than {MAX_POOL} dice")
    if not pool and not info["removed_by_penalty"]:
        raise SpecError(_emptied_by(out), "leaves no dice to roll; a roll needs at least one die "
                               "(or a Bonus: an empty pool gets a d4 per Bonus)")


def _emptied_by(out: dict) -> str:
    """The field an empty pool is laid to: the dice removed, else the
    level, else the dice given."""
    return "remove" if out["remove"] else ("level" if out["level"] is not None else "dice")


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def normalize(spec: Any) -> dict:
    """Validate every field and fill every default (DESIGN.md spec keys).

    >>> s = normalize({"dice": "d8"})
    >>> s["dice"], s["kind"], s["bonuses"], s["difficulty"], s["opponent"], s["opponent_penalties"]
    ([8], 'simple', 0, None, None, 0)
    >>> normalize({"level": 7})["dice"]
    [12, 6]
    >>> normalize({"difficulty": "Far Too Hard"})
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: difficulty: must be one of trivial, simple, routine, intermediate, difficult, for_experts_only, for_heroes_only, for_legends_only (got 'Far Too Hard')
    >>> normalize({"dice": "d8", "opponent_penalties": 1})
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: opponent_penalties: applies to opposing dice or a Difficulty; this roll has neither
    """
    check_keys(spec, KEYS)
    kind = get_choice(spec, "kind", ("simple", "damage"), default="simple")
    dice, level = _roller_dice(spec)
    mods = _roller_mods(spec)
    _no_mods_on(dice, mods, "does not apply to dice already on the table")
    opponent, difficulty = _opposition_fields(spec)
    soak = spec.get("soak")
    soak = [] if _blank(soak, "", []) else _pool_or_table(spec, "soak")
    out = {
        "kind": kind, "dice": dice, "level": level, **mods,
        "opponent": opponent, "difficulty": difficulty,
        "quality": _quality(spec.get("quality"), "quality"),
        "opponent_quality": _quality(spec.get("opponent_quality"), "opponent_quality"),
        "soak": soak,
        "damage_type": get_choice(spec, "damage_type", DAMAGE_TYPES, default="normal"),
        "double_botch": get_choice(spec, "double_botch", ("botch", "tie"), default="botch"),
        **_side_mods(spec, "opponent"), **_side_mods(spec, "soak"),
    }
    _no_mods_on(opposition(out)[1], _side_mods(out, "opponent"),
                "does not apply to dice already on the table")
    _no_mods_on(out["soak"] if isinstance(out["soak"], dict) else [], _side_mods(out, "soak"),
                "does not apply to soak dice already on the table")
    _check_pools(out)
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
        return QUALITIES[min((q + QUALITY_STEP - 1) // QUALITY_STEP, len(QUALITIES) - 1)]
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
    return _by_margin(d) if d else _tie_break(quality_name(quality), quality_name(opponent_quality))


def _tie_break(a: str | None, b: str | None) -> str:
    """Equal Scores: the better Quality Succeeds, when both sides have one."""
    if a is None or b is None or a == b:
        return "tie"
    return "success" if QUALITIES.index(a) > QUALITIES.index(b) else "failure"


def _by_margin(d: int) -> str:
    if d >= OVERWHELM:
        return "overwhelming_success"
    if d <= -OVERWHELM:
        return "overwhelming_failure"
    return "success" if d > 0 else "failure"


def pair_hits(damage: int, soak: int, damage_type: str = "normal") -> int:
    """Hits of one damage die against one soak die ("Summary of Die Rolls",
    Damage; "Slaying Damage", "Enervated Damage"; a 1 never hits).

    >>> pair_hits(6, 3), pair_hits(7, 2), pair_hits(7, 8), pair_hits(2, 1)
    (1, 2, 0, 1)
    >>> pair_hits(4, 3, "slaying"), pair_hits(7, 3, "enervated"), pair_hits(8, 3, "enervated")
    (2, 0, 1)
    """
    if damage <= NEVER_HITS or damage <= soak:
        return 0
    over = damage - soak >= OVERWHELM
    if damage_type == "slaying":
        return OVERWHELM_HITS
    if damage_type == "enervated":
        return 1 if over else 0
    return OVERWHELM_HITS if over else 1


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
    Penalties. The difficulty's dice are taken after their own Limit and
    Bonuses."""
    return bool(spec["difficulty"] and pool and not penalties
                and auto_success(pool, prepare_side(side(spec, "opponent"))[0]))


# --------------------------------------------------------------------------
# Rolling.

def _roll_pool(pool: list[int], favored: bool, rng) -> list[dict]:
    """One roll of the pool (largest die first), then the Favored re-roll of
    one 1 on the largest die showing it (RULES-NOTES Jadeclaw 6)."""
    faces = [roll_die(rng, s) for s in pool]
    history = [[f] for f in faces]
    if favored:
        _favored_reroll(pool, faces, history, rng)
    return [Die(face=f, sides=s, role="rerolled" if len(h) > 1 else "rolled",
                history=tuple(h)).to_dict() for s, f, h in zip(pool, faces, history)]


def _favored_reroll(pool: list[int], faces: list[int], history: list[list[int]], rng) -> None:
    """Favored: the largest die showing 1, if any, rolls again; its new
    face replaces the 1 and joins its history."""
    if 1 in faces:
        j = faces.index(1)  # pool is largest first, so this is the largest die showing 1
        faces[j] = roll_die(rng, pool[j])
        history[j].append(faces[j])


def _roll_rolls(pool: list[int], favored: bool, penalties: int, rng) -> tuple[list[dict], int]:
    """A Simple Roll's rolls: one, and one more per Penalty, each with its
    own Favored re-roll; the first with the worst Score is kept, the others'
    dice are dropped."""
    rolls = []
    for _ in range(penalties + 1):
        dice = _roll_pool(pool, favored, rng)
        rolls.append({"dice": dice, "score": _mark_score(dice), "kept": False})
    kept = min(range(len(rolls)), key=lambda i: rolls[i]["score"])
    rolls[kept]["kept"] = True
    for r in rolls[:kept] + rolls[kept + 1:]:
        for d in r["dice"]:
            d["role"] = "dropped"
    return rolls, kept


def _table_die_dicts(table: dict) -> list[dict]:
    faces = table["faces"]
    sides = table["sides"] or [next(s for s in SIZES if s >= f) for f in faces]
    return [Die(face=f, sides=s, role="rolled", extra={"on_table": True}).to_dict()
            for f, s in zip(faces, sides)]


def _table_roll(table: dict) -> list[dict]:
    dice = _table_die_dicts(table)
    return [{"dice": dice, "score": _mark_score(dice), "kept": True}]


def _mark_score(dice: list[dict]) -> int:
    score = max(d["face"] for d in dice)
    top = next(d for d in dice if d["face"] == score)
    top["score"] = True
    if top["role"] == "rolled":
        top["role"] = "kept"
    return score


def roll(spec: dict, rng) -> dict:
    """Roll a normalized spec (see the module docstring for the order).

    >>> from rules.dice import ScriptedRng
    >>> du = normalize({"dice": "d12 & d10", "penalties": 1})      # Du Cheng-fa
    >>> r = roll(du, ScriptedRng([2, 5, 8, 4]))
    >>> [x["score"] for x in r["rolls"]], r["kept_roll"], r["value"]
    ([5, 8], 0, 5)
    """
    return _roll_damage(spec, rng) if spec["kind"] == "damage" else _roll_simple(spec, rng)


def _roll_simple(spec: dict, rng) -> dict:
    if isinstance(spec["dice"], dict):
        pool, info = None, {"bonuses": 0, "penalties": 0}
        rolls, kept = _table_roll(spec["dice"]), 0
    else:
        pool, _, info = prepare(spec)
        rolls, kept = _roll_rolls(pool, spec["favored"], info["penalties"], rng)
    score = rolls[kept]["score"]
    result: dict[str, Any] = {
        "kind": "simple",
        "pool": pool,
        "rolls": rolls,
        "kept_roll": kept,
        "dice": rolls[kept]["dice"],
        "value": score,
        "bonuses": info["bonuses"],
        "penalties": info["penalties"],
    }
    result.update(_against(spec, score, pool, info["penalties"], rng))
    return result


def _against(spec: dict, score: int, pool: list[int] | None, penalties: int, rng) -> dict:
    """The opposition's roll and the comparison (or the Score alone)."""
    label, opp = opposition(spec)
    if opp is None:
        return {"outcome": "botch" if score == 1 else "scored", "opponent": None,
                "opponent_score": None, "auto_success": False}
    rolls, kept, opool = _roll_opposition(spec, opp, rng)
    oscore = rolls[kept]["score"]
    return {
        "opponent": rolls[kept]["dice"],
        "opponent_score": oscore,
        "opponent_label": label,
        "margin": score - oscore,
        "outcome": contest(score, oscore, spec["quality"], spec["opponent_quality"], spec["double_botch"]),
        "auto_success": _hint(spec, pool, penalties),
        "opponent_rolls": rolls,
        "opponent_kept_roll": kept,
        "opponent_pool": opool,
    }


def _roll_opposition(spec: dict, opp: Any, rng) -> tuple[list[dict], int, list[int] | None]:
    """The opposing side's rolls: dice on the table as they lie, or its
    prepared dice rolled once and once more per Penalty (their worst kept)."""
    if isinstance(opp, dict):
        return _table_roll(opp), 0, None
    opool, _, oinfo = prepare_side(side(spec, "opponent"))
    rolls, kept = _roll_rolls(opool, spec["opponent_favored"], oinfo["penalties"], rng)
    return rolls, kept, opool


def _roll_damage(spec: dict, rng) -> dict:
    kind = _effective_type(spec["damage_type"])
    pool, info, dmg = _roll_damage_dice(spec, rng)
    soak, spool, sinfo = _roll_soak(spec, rng)
    pairs = _pair_dice(dmg, soak, kind)
    soak_botch = bool(soak) and all(s["face"] == 1 for s in soak)
    total = sum(p["hits"] for p in pairs) + (1 if soak_botch else 0)
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
        "soak_pool": spool,
        "soak_removed": sinfo["removed_by_penalty"],
    }


def _roll_damage_dice(spec: dict, rng) -> tuple[list[int] | None, dict, list[dict]]:
    """The damage dice: on the table as they lie (no pool, no modifiers),
    or prepared and rolled, Favored re-rolling the largest showing 1."""
    if isinstance(spec["dice"], dict):
        return None, {"bonuses": 0, "penalties": 0, "removed_by_penalty": []}, _table_die_dicts(spec["dice"])
    pool, _, info = prepare(spec)
    return pool, info, _roll_pool(pool, spec["favored"], rng)


def _roll_soak(spec: dict, rng) -> tuple[list[dict], list[int] | None, dict]:
    """The soak dice: on the table as they lie, or prepared as a Damage
    Roll's dice (a Penalty removes the smallest) and rolled, Favored
    re-rolling the largest showing 1."""
    if isinstance(spec["soak"], dict):
        return _table_die_dicts(spec["soak"]), None, {"removed_by_penalty": []}
    spool, _, sinfo = prepare_side(side(spec, "soak"), damage=True)
    return _roll_pool(spool, spec["soak_favored"], rng), spool, sinfo


def _pair_dice(dmg: list[dict], soak: list[dict], kind: str) -> list[dict]:
    """Damage and soak dice sorted highest first and paired by position; a
    damage die past the soak dice faces an imaginary 1; a soak die past the
    damage dice is unused. Each damage die gets its ``hits``."""
    ds = sorted(dmg, key=lambda d: -d["face"])
    ss = sorted(soak, key=lambda d: -d["face"])
    pairs = []
    for i in range(max(len(ds), len(ss))):
        d = ds[i] if i < len(ds) else None
        s = ss[i] if i < len(ss) else Die(face=1, role="imaginary").to_dict()
        pairs.append(_pair(d, s, kind))
    return pairs


def _pair(d: dict | None, s: dict, kind: str) -> dict:
    if d is None:
        return {"damage": None, "soak": s, "hits": 0, "margin": None}
    h = pair_hits(d["face"], s["face"], kind)
    d["hits"] = h
    if h:
        d["success"] = True
    return {"damage": d, "soak": s, "hits": h, "margin": d["face"] - s["face"]}


def act(spec, result, action, rng):
    """Jadeclaw allows no step after a roll (``STEPS`` is empty)."""
    check_action(action, STEPS, TITLE)


# --------------------------------------------------------------------------
# Odds: the Score of a Simple Roll.

def _roll_cdf(pool: list[int], favored: bool, v: int, one: Any = Fraction(1)) -> Any:
    """P(one roll's Score <= v), Favored included: the largest die showing 1
    is re-rolled, so condition on which die that is (dice largest first):
    the dice before it show 2..v, it shows 1 and re-rolls to at most v, the
    dice after it show at most v."""
    if v < 1:
        return one * 0
    at_most = [one * min(v, s) / s for s in pool]
    if not favored:
        return math.prod(at_most, start=one)
    return _favored_cdf(pool, v, at_most, one)


def _favored_cdf(pool: list[int], v: int, at_most: list, one: Any) -> Any:
    """``_roll_cdf`` of a Favored roll, ``at_most[j]`` = P(die j <= v):
    summed over which die first showed a 1, and the case that none did."""
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
    P(worst > v) = P(Score > v) ** (k + 1) (RULES-NOTES Jadeclaw 3). The
    same for the opposing side with its own Penalties and Favored.

    >>> d = score_dist([6])
    >>> d[1], d[6]
    (Fraction(1, 6), Fraction(1, 6))
    >>> score_dist([4], penalties=1)[4]
    Fraction(1, 16)
    """
    out = {}
    prev = one * 0
    for v in range(1, max(pool) + 1):
        c = 1 - (1 - _roll_cdf(pool, favored, v, one)) ** (penalties + 1)
        if c != prev:
            out[v] = c - prev
        prev = c
    return out


def _side_scores(sd: Side) -> tuple[dict[int, float], list[int] | None, int]:
    """A side's Score distribution (floats), its prepared pool and how many
    rolls it makes; dice on the table show their Score for certain."""
    if isinstance(sd.dice, dict):
        return {max(sd.dice["faces"]): 1.0}, None, 1
    pool, _, info = prepare_side(sd)
    return score_dist(pool, sd.favored, info["penalties"], 1.0), pool, info["penalties"] + 1


def _contest_dist(mine: dict, theirs: dict, spec: dict) -> dict[str, float]:
    cats = {k: 0.0 for k in CONTEST_OUTCOMES}
    for a, pa in mine.items():
        for b, pb in theirs.items():
            cats[contest(a, b, spec["quality"], spec["opponent_quality"], spec["double_botch"])] += pa * pb
    return cats


def _simple_odds(spec: dict) -> dict:
    mine, pool, rolls = _side_scores(side(spec, "roller"))
    out: dict[str, Any] = {"value": {k: float(v) for k, v in sorted(mine.items())}, "exact": True,
                           "pool": pool, "rolls": rolls, "auto_success": False}
    label, opp = opposition(spec)
    if opp is None:
        p1 = mine.get(1, 0.0)
        out["outcome"] = {"botch": float(p1), "scored": float(1 - p1)}
        return out
    theirs, opool, orolls = _side_scores(side(spec, "opponent"))
    out["outcome"] = _contest_dist(mine, theirs, spec)
    out["opponent_value"] = {k: float(v) for k, v in sorted(theirs.items())}
    out["opponent_label"] = label
    out["auto_success"] = _hint(spec, pool, rolls - 1)
    out["opponent_pool"] = opool
    out["opponent_rolls"] = orolls
    return out


# --------------------------------------------------------------------------
# Odds: the hits of a Damage Roll, by an exact scan of the faces from 12
# down to 1.

class _TooBig(Exception):
    pass


class _Group(NamedTuple):
    """Dice of one side that share a law: ``u1`` uniform on 1..s, ``u2``
    uniform on 2..s (the dice before a Favored re-roll, which did not show
    1), ``fixed`` faces already on the table (``sizes`` holds the faces)."""

    law: str
    sizes: tuple


def _binom_row(n: int, p: Any, one: Any) -> list:
    """P(c of n independent events of chance p), c = 0..n."""
    q = one - p
    return [math.comb(n, c) * p ** c * q ** (n - c) for c in range(n + 1)]


def _one_hot(k: int, one: Any) -> list:
    return [0] * k + [one]


def _row(g: _Group, v: int, placed: int, one: Any) -> list:
    """P(c of the group's dice not yet placed show v), c = 0.., given they
    show at most v. A die of size >= v known to show <= v shows v with
    chance 1/v (1/(v-1) on 2..s) whatever its size."""
    if g.law == "fixed":
        return _one_hot(sum(1 for f in g.sizes if f == v), one)
    left = sum(1 for s in g.sizes if s >= v) - placed
    if v == 1:
        return _one_hot(left, one)
    return _binom_row(left, one / (v if g.law == "u1" else v - 1), one)


def _favored_mixture(pool: list[int], favored: bool, one: Any) -> list[tuple[Any, list[_Group]]]:
    """A pool's law as a mixture: without Favored, every die uniform; with
    it (RULES-NOTES Jadeclaw 6), over which die, largest first, first showed
    a 1 and was re-rolled: the dice before it show 2..s, it and the dice
    after it 1..s (and the case that no die showed 1)."""
    if not favored:
        return [(one, _groups(u1=pool))]
    out = []
    before = one  # the chance that the dice before j showed no 1
    for j, s in enumerate(pool):
        out.append((before / s, _groups(u2=pool[:j], u1=pool[j:])))
        before = before * (one - one / s)
    return out + [(before, _groups(u2=pool))]


def _groups(**laws: list[int]) -> list[_Group]:
    """The groups with dice, e.g. ``_groups(u2=[12], u1=[8, 6])``."""
    return [_Group(law, tuple(sizes)) for law, sizes in laws.items() if sizes]


def _summed(polys: Any) -> dict[int, Any]:
    """P(hits = h) over the scan's final states: their polynomials added,
    the hits that cannot happen left out."""
    out: dict[int, Any] = {}
    for poly in polys:
        for h, p in enumerate(poly):
            if p:
                out[h] = out.get(h, 0) + p
    return out


class _Scan:
    """One exact scan: damage groups against soak groups. The state is how
    many dice of each group are placed, and the damage dice still waiting
    for a lower soak partner (their faces, clamped once they are sure to win
    by 5); each state carries P(hits so far = h) for h = 0, 1, ... Pairing
    is by position in the sorted order (RULES-NOTES Jadeclaw 7)."""

    def __init__(self, dmg: list[_Group], soak: list[_Group], kind: str, one: Any, budget: list):
        self.groups = dmg + soak
        self.n_dmg = len(dmg)
        self.n_soak = sum(len(g.sizes) for g in soak)
        self.one = one
        self.budget = budget
        self.hit = [[pair_hits(u, w, kind) for w in range(SIZES[-1] + 1)] for u in range(SIZES[-1] + 1)]
        self.clamp = 1 if kind == "slaying" else OVERWHELM

    def run(self) -> dict[int, Any]:
        states: dict[tuple, list] = {((0,) * len(self.groups), ()): [self.one]}
        for v in range(12, 0, -1):
            states = self.step(states, v)
        return _summed(states.values())

    def step(self, states: dict, v: int) -> dict:
        """Place the dice showing v, from every state."""
        moves: dict = {}
        pairing: dict = {}
        nxt: dict = {}
        for (placed, pend), poly in states.items():
            if placed not in moves:
                moves[placed] = self._moves(v, placed)
            ahead, last, options = moves[placed]
            self.budget[0] -= len(options) * (4 + len(pend) + len(poly))
            if self.budget[0] < 0:
                raise _TooBig
            for new_placed, cd, cs, q in options:
                key = (ahead, pend, cd, cs)
                got = pairing.get(key)
                if got is None:
                    got = pairing[key] = self._pair(v, ahead, pend, cd, cs, last)
                h, new_pend = got
                state = (new_placed, new_pend)
                acc = nxt.get(state)
                if acc is None:
                    nxt[state] = [0] * h + [x * q for x in poly]
                else:
                    _add_shifted(acc, h, q, poly)
        return nxt

    def _moves(self, v: int, placed: tuple) -> tuple[int, bool, list]:
        """From ``placed``: how many more soak than damage dice are placed,
        whether this is the last face with no soak die above 1, and each way
        the unplaced dice can show v: (placed after, damage dice showing v,
        soak dice showing v, its chance)."""
        rows = self._rows(v, placed)
        nd = self.n_dmg
        options = []
        for combo in product(*rows):
            counts = [c for c, _ in combo]
            cd = sum(counts[:nd])
            options.append((tuple(x + c for x, c in zip(placed, counts)), cd, sum(counts) - cd,
                            math.prod((p for _, p in combo), start=self.one)))
        a, b = sum(placed[:nd]), sum(placed[nd:])
        return b - a, v == 1 and b == 0, options

    def _rows(self, v: int, placed: tuple) -> list:
        """Per group, the ``(count, chance)`` of its unplaced dice showing
        v that can happen (``_row``)."""
        return [[(c, p) for c, p in enumerate(_row(g, v, placed[i], self.one)) if p]
                for i, g in enumerate(self.groups)]

    def _pair(self, v: int, ahead: int, pend: tuple, cd: int, cs: int, no_soak_yet: bool) -> tuple[int, tuple]:
        """Place ``cd`` damage and ``cs`` soak dice showing v: the hits they
        settle and the damage faces left waiting. ``ahead`` is how many more
        soak dice than damage dice are placed."""
        h, new_pend = _settle(self.hit, v, ahead, pend, cd, cs)
        if v == 1:
            return h + self._last(new_pend, no_soak_yet), ()
        top = v - 1 + self.clamp
        return h, (tuple([u if u < top else top for u in new_pend])
                   if new_pend and new_pend[0] > top else new_pend)

    def _last(self, pend: tuple, no_soak_yet: bool) -> int:
        """Hits settled once every die is placed: the damage dice still
        waiting face an imaginary 1; soak dice that all show 1 (a Botch)
        add one hit."""
        botch = 1 if self.n_soak and no_soak_yet else 0
        return botch + sum(self.hit[u][1] for u in pend)


def _settle(hit: list, v: int, ahead: int, pend: tuple, cd: int, cs: int) -> tuple[int, tuple]:
    """The pairing at face v: waiting damage dice meet the new soak dice
    first (in order); equal faces pair for no hits; what is left waits."""
    if ahead > 0:  # soak dice already placed higher take the first new damage dice (no hits)
        r = max(cd - ahead, 0)
        return 0, (v,) * (r - cs) if r > cs else ()
    k = min(cs, len(pend))
    h = sum(hit[u][v] for u in pend[:k])
    rem = cs - k
    return h, pend[k:] + (v,) * (cd - rem) if rem < cd else pend[k:]


def _add_shifted(acc: list, h: int, q: Any, poly: list) -> None:
    """acc += q * poly shifted up by h hits."""
    need = h + len(poly) - len(acc)
    if need > 0:
        acc.extend([0] * need)
    for i, x in enumerate(poly):
        acc[h + i] += x * q


def _mixed_hits(dmg_mix: list, soak_mix: list, kind: str, one: Any, budget: int) -> dict[int, Any]:
    """The hits distribution over both sides' mixtures (Favored). Gives up
    (``_TooBig``) as soon as the scans so far say the rest will not fit in
    ``budget``, so little work is thrown away before sampling."""
    left = [budget]
    out: dict[int, Any] = {}
    parts = [(wd * ws, gd, gs) for wd, gd in dmg_mix for ws, gs in soak_mix]
    for i, (w, gd, gs) in enumerate(parts, 1):
        for h, p in _Scan(gd, gs, kind, one, left).run().items():
            out[h] = out.get(h, 0) + w * p
        if (budget - left[0]) / i * (len(parts) - i) > left[0]:  # the average scan so far, for each one left
            raise _TooBig
    return out


def hits_dist(damage: list[int], soak: list[int], damage_type: str = "normal",
              favored: bool = False, exact: bool = True, budget: int = 10 ** 9,
              soak_fixed: bool = False, soak_favored: bool = False) -> dict[int, Any]:
    """The exact hits distribution of a Damage Roll (Fractions when
    ``exact``, else floats), either side Favored. With ``soak_fixed`` the
    soak list holds faces already on the table. Raises ``_TooBig`` once the
    scan passes ``budget`` steps of work.

    >>> d = hits_dist([4], [4])
    >>> d[0], d[1], d[2]
    (Fraction(9, 16), Fraction(1, 4), Fraction(3, 16))
    """
    one: Any = Fraction(1) if exact else 1.0
    soak = sorted(soak, reverse=True)
    soak_mix = ([(one, [_Group("fixed", tuple(soak))])] if soak_fixed
                else _favored_mixture(soak, soak_favored, one))
    return _mixed_hits(_favored_mixture(sorted(damage, reverse=True), favored, one), soak_mix,
                       _effective_type(damage_type), one, budget)


#: Damage odds are exact while the scan stays under this much work (its
#: states, weighted by their size: about 70 ms under CPython); past it they
#: are sampled with a seed derived from the spec, with about this many
#: random numbers, so the page never freezes. A limit of 40 000 sent small
#: pools (5d12 & 5d4 against nothing) to sampling; at 200 000 the heaviest
#: pools give up after about 0.2 s and sample in about 0.03 s.
EXACT_DAMAGE_WORK = 200_000
DAMAGE_SAMPLE_DRAWS = 24000


def _damage_sides(spec: dict) -> tuple[tuple, tuple]:
    """Each side of a Damage Roll as (dice on the table or None, prepared
    pool, Favored)."""
    def one_side(dice: Any, sd: Side) -> tuple:
        if isinstance(dice, dict):
            return sorted(dice["faces"], reverse=True), [], False
        return None, prepare_side(sd, damage=True)[0], sd.favored
    return one_side(spec["dice"], side(spec, "roller")), one_side(spec["soak"], side(spec, "soak"))


def damage_dist(spec: dict, exact: bool = False, budget: int = EXACT_DAMAGE_WORK) -> dict:
    """The hits distribution of a normalized Damage Roll spec: exact by the
    scan while that is small (Fractions when ``exact``, else floats), else
    sampled with a seed derived from the spec (sample size and 95 % margin
    stated).

    >>> d = damage_dist(normalize({"kind": "damage", "dice": "d4", "soak": "d4"}), exact=True)
    >>> d["exact"], d["dist"][0], d["dist"][1]
    (True, Fraction(9, 16), Fraction(1, 4))
    """
    one: Any = Fraction(1) if exact else 1.0
    sides = _damage_sides(spec)
    kind = _effective_type(spec["damage_type"])
    mixes = [[(one, [_Group("fixed", tuple(table))])] if table is not None
             else _favored_mixture(pool, favored, one) for table, pool, favored in sides]
    try:
        return {"dist": _mixed_hits(mixes[0], mixes[1], kind, one, budget), "exact": True}
    except _TooBig:
        return _sampled_hits(spec, sides, kind)


def _sample_faces(rnd, table: list[int] | None, pool: list[int], favored: bool) -> list[int]:
    if table is not None:
        return table
    faces = [int(rnd() * s) + 1 for s in pool]
    if favored and 1 in faces:
        j = faces.index(1)
        faces[j] = int(rnd() * pool[j]) + 1
    return sorted(faces, reverse=True)


def _faces_hits(d: list[int], s: list[int], hit: list) -> int:
    """Hits of sorted damage faces against sorted soak faces."""
    return (1 if s and s[0] == 1 else 0) + sum(hit[x][s[i] if i < len(s) else 1] for i, x in enumerate(d))


def _sampled_hits(spec: dict, sides: tuple, kind: str) -> dict:
    rnd = random.Random(spec_seed("jadeclaw", spec, "damage-odds")).random
    n = max(500, min(3000, DAMAGE_SAMPLE_DRAWS // max(1, len(sides[0][1]) + len(sides[1][1]))))
    hit = [[pair_hits(u, w, kind) for w in range(SIZES[-1] + 1)] for u in range(SIZES[-1] + 1)]
    tally: dict[int, int] = {}
    for _ in range(n):
        h = _faces_hits(_sample_faces(rnd, *sides[0]), _sample_faces(rnd, *sides[1]), hit)
        tally[h] = tally.get(h, 0) + 1
    margin = 1.96 * (0.25 / n) ** 0.5
    return {"dist": {h: c / n for h, c in tally.items()}, "exact": False, "samples": n, "sampled": n,
            "margin": margin}


def _damage_odds(spec: dict) -> dict:
    res = damage_dist(spec)
    dist = dict(sorted(res["dist"].items()))
    p0 = dist.get(0, 0)
    out = {"value": {k: float(v) for k, v in dist.items()},
           "outcome": {"no_hits": float(p0), "hits": float(1 - p0)},
           "exact": res["exact"],
           "mean": float(sum(k * v for k, v in dist.items()))}
    out.update({k: res[k] for k in ("samples", "sampled", "margin") if k in res})
    out.update(_damage_pools(spec))
    return out


def _damage_pools(spec: dict) -> dict:
    """Each side's prepared pool (``pool``, ``soak_pool``); None for dice
    on the table."""
    (_, pool, _), (table, spool, _) = _damage_sides(spec)
    return {"pool": None if isinstance(spec["dice"], dict) else pool,
            "soak_pool": None if table is not None else spool}


def odds(spec: dict, result: dict | None = None, action: Any = None) -> dict:
    """The distribution of the roll: the kept Score (Penalties and Favored
    included, on either side) and every contest outcome, exact; or a Damage
    Roll's hits (either side's modifiers included).

    >>> o = odds(normalize({"dice": "d10 & d8", "difficulty": "intermediate"}))
    >>> o["exact"], o["auto_success"], round(sum(o["outcome"].values()), 9)
    (True, True, 1.0)
    """
    if action is not None:
        check_action(action, STEPS, TITLE)
    return _damage_odds(spec) if spec["kind"] == "damage" else _simple_odds(spec)
