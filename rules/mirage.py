"""Mirage (seeds/002_4445b8bd2161667f.txt): base dice d6-d12, successes on
6+ (two on 10+), step modifiers, prayer and Conditions, opposed rolls.

The text's sections, and where each lives here:

- "Roll the Dice": an attribute die and a skill die (no skill: the attribute
  die alone) -> ``_base_pool``; gear dice are added as they are
  (RULES-NOTES Mirage 5).
- "Success" / "Multiple Successes": 6-9 is one success, 10+ two ->
  ``successes_on``; 0 = failure, 1 = success, 2+ = success with a bonus
  effect, each extra success +1 damage in combat (RULES-NOTES Mirage 2).
- "Modifiers", "Difficulty", "Help From Others", "Conditions": one net step
  value, applied by ``step_pool`` (RULES-NOTES Mirage 3).
- "Prayer": the verb ``pray`` (RULES-NOTES Mirage 4) -> ``act``.
- "Opposed Rolls": each opposing success cancels one; a tie fails the active
  side (RULES-NOTES Mirage 6).

The level -> die legend, the twelve core skills, the difficulty table and the
Condition names are data, in ``mirage_tables.json`` beside this file.

>>> from rules.dice import ScriptedRng
>>> spec = normalize({"attribute": "d10", "skill": "d6", "difficulty": "easy"})
>>> r = roll(spec, ScriptedRng([10, 6]))
>>> [(d["sides"], d["face"], d["successes"]) for d in r["dice"]]
[(10, 10, 2), (8, 6, 1)]
>>> r["value"], r["outcome"]
(3, 'success_with_bonus')
"""

from __future__ import annotations

import json
import os
from fractions import Fraction
from typing import Any

from .dice import (SpecError, check_keys, convolve, dist_to_json, format_pool, get_bool,
                   get_choice, get_int, get_size, get_sizes, name_key, roll_die, step_down,
                   step_up)

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "TABLES", "LEGEND", "SKILLS", "ATTRIBUTES",
           "DIFFICULTY", "CONDITION_NAMES", "KIND_COLOURS", "BASE_SIZES",
           "normalize", "roll", "act", "odds", "step_pool", "check_not_broken", "successes_on",
           "condition_type", "success_dist"]

NAME = "mirage"
TITLE = "Mirage"

OUTCOMES = ("failure", "tie", "success", "success_with_bonus")

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "mirage_tables.json"),
          encoding="utf-8") as _f:
    #: The data the text gives (skills, difficulty, Conditions) and the level
    #: legend it does not (RULES-NOTES Mirage 1).
    TABLES = json.load(_f)

#: Level -> die size, the default legend (RULES-NOTES Mirage 1).
LEGEND = {int(k): v for k, v in TABLES["legend"].items()}
ATTRIBUTES = tuple(TABLES["attributes"])
#: Core skill -> its attribute ("Core Skills").
SKILLS = dict(TABLES["skills"])
#: Difficulty name -> step modifier ("Difficulty" table).
DIFFICULTY = dict(TABLES["difficulty"])
#: Condition type -> the three Condition names ("Conditions").
CONDITION_NAMES = {k: tuple(v) for k, v in TABLES["conditions"].items()}

#: Base and gear dice are d6 to d12 (RULES-NOTES Mirage 1).
BASE_SIZES = (6, 8, 10, 12)
#: At most this many gear dice on one roll (bounded work; the text gives none).
MAX_GEAR = 6
MAX_MODIFIER = 12
#: "Dice Names": dice of different colours for attribute, skill and gear.
KIND_COLOURS = {"attribute": "red", "skill": "blue", "gear": "white"}

SPEC_KEYS = ("attribute", "attribute_name", "skill", "skill_name", "gear", "difficulty",
             "helpers", "conditions", "modifier", "passive", "opponent")
OPPONENT_KEYS = tuple(k for k in SPEC_KEYS if k not in ("passive", "opponent"))

DEFAULT_SPEC = {
    "attribute": 10, "attribute_name": "agility", "skill": 8, "skill_name": "shadowcraft",
    "gear": [], "difficulty": "average", "helpers": 0,
    "conditions": {"physical": 0, "mental": 0, "broken": False}, "modifier": 0, "passive": False,
    "opponent": None,
}


def _title(name: str) -> str:
    return name.replace("_", " ").title()


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else ("0" if n == 0 else f"\u2212{-n}")


def condition_type(attribute_name: str) -> str:
    """Conditions: physical for Strength and Agility, mental for Wits and
    Empathy ("The Cost of Unanswered Prayer").

    >>> condition_type("agility"), condition_type("wits")
    ('physical', 'mental')
    """
    return "physical" if attribute_name in ("strength", "agility") else "mental"


# --------------------------------------------------------------------------
# The spec.

def normalize(spec: Any) -> dict:
    """Validate every field and fill every default. A Broken character (a
    fourth Condition of one type) is a valid spec, so the form can hold it,
    but the roll attempt is refused (``roll``, RULES-NOTES Mirage 5).

    >>> s = normalize({"skill_name": "Survival Instincts", "attribute": "d8", "skill": 6})
    >>> s["attribute_name"], s["skill_name"], s["difficulty"], s["conditions"]
    ('wits', 'survival_instincts', 'average', {'physical': 0, 'mental': 0, 'broken': False})
    >>> normalize({"conditions": {"physical": 4}})["conditions"]
    {'physical': 3, 'mental': 0, 'broken': True}
    """
    out = _normalize_side(spec, "", SPEC_KEYS)
    out["passive"] = get_bool(spec, "passive")
    opp = spec.get("opponent")
    out["opponent"] = None if opp is None else _normalize_side(opp, "opponent.", OPPONENT_KEYS)
    return out


def _normalize_side(spec: Any, prefix: str, keys: tuple) -> dict:
    check_keys(spec, keys, prefix.rstrip(".") or "spec")
    f = lambda k: prefix + k  # noqa: E731  (the field name shown beside the control)
    out: dict = {}
    out["attribute"] = get_size(spec, "attribute", BASE_SIZES, default=8, field=f("attribute"))
    out["skill"] = get_size(spec, "skill", BASE_SIZES, default=0, allow_zero=True, field=f("skill"))
    skill_name = spec.get("skill_name")
    if skill_name is None or skill_name == "":
        out["skill_name"] = None
    else:
        out["skill_name"] = get_choice(spec, "skill_name", tuple(SKILLS), field=f("skill_name"))
    if spec.get("attribute_name") in (None, ""):
        out["attribute_name"] = SKILLS[out["skill_name"]] if out["skill_name"] else "strength"
    else:
        out["attribute_name"] = get_choice(spec, "attribute_name", ATTRIBUTES, field=f("attribute_name"))
    out["gear"] = get_sizes(spec, "gear", BASE_SIZES, default=[], limit=MAX_GEAR, field=f("gear"))
    diff = spec.get("difficulty")
    if isinstance(diff, int) and not isinstance(diff, bool) and diff in DIFFICULTY.values():
        diff = next(k for k, v in DIFFICULTY.items() if v == diff)
    out["difficulty"] = get_choice({"d": diff}, "d", tuple(DIFFICULTY), default="average",
                                   field=f("difficulty"))
    out["helpers"] = get_int(spec, "helpers", 0, 3, default=0, field=f("helpers"))
    out["conditions"] = _conditions(spec.get("conditions"), f("conditions"))
    out["modifier"] = get_int(spec, "modifier", -MAX_MODIFIER, MAX_MODIFIER, default=0,
                              field=f("modifier"))
    return out


def _conditions(v: Any, field: str) -> dict:
    """``{"physical": 0-3, "mental": 0-3, "broken": bool}``, or a list of
    Condition names (any case); a count of 4, ``"broken": true`` or the name
    "broken" is a Broken character (held as three and ``broken``)."""
    counts = {"physical": 0, "mental": 0}
    broken = None
    if v is None:
        return {**counts, "broken": False}
    if isinstance(v, dict):
        check_keys(v, ("physical", "mental", "broken"), field)
        for kind in counts:
            counts[kind] = get_int(v, kind, 0, 4, default=0, field=field)
            if counts[kind] == 4:
                broken = f"a fourth {kind} Condition"
                counts[kind] = 3
        if get_bool({"b": v.get("broken")}, "b"):
            broken = broken or "marked Broken"
    elif isinstance(v, (list, tuple)):
        if len(v) > 7:
            raise SpecError(field, "lists at most the six Conditions and Broken")
        seen = set()
        for item in v:
            k = name_key(item, field)
            if k in seen:
                raise SpecError(field, f"names {k!r} twice")
            seen.add(k)
            if k == "broken":
                broken = "marked Broken"
                continue
            kind = next((t for t, names in CONDITION_NAMES.items() if k in names), None)
            if kind is None:
                allowed = ", ".join(n for names in CONDITION_NAMES.values() for n in names)
                raise SpecError(field, f"{k!r} is not a Condition; allowed: {allowed}, broken")
            counts[kind] += 1
    else:
        raise SpecError(field, "must be {\"physical\": 0-3, \"mental\": 0-3} or a list of Condition names")
    for kind, n in counts.items():
        if n > 3:
            raise SpecError(field, f"names more than three {kind} Conditions")
    return {**counts, "broken": bool(broken)}


def check_not_broken(spec: dict) -> None:
    """"Conditions": a Broken character may not perform any actions, so a
    roll (or a prayer) is refused, saying why (RULES-NOTES Mirage 5).

    >>> check_not_broken(normalize({"conditions": ["Angry", "Broken"]}))
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: conditions: Broken: a Broken character may not perform any actions, physical or mental, until a Condition heals (RULES-NOTES Mirage 5)
    """
    for side, field in ((spec, "conditions"), (spec.get("opponent"), "opponent.conditions")):
        if side is not None and side["conditions"].get("broken"):
            who = "the opponent is Broken" if side is not spec else "Broken"
            raise SpecError(field, f"{who}: a Broken character may not perform any actions, "
                            "physical or mental, until a Condition heals (RULES-NOTES Mirage 5)")


# --------------------------------------------------------------------------
# Dice, successes and steps.

def successes_on(face: int) -> int:
    """"Success": 6 or higher is a success; 10 or higher on one die counts
    as two (RULES-NOTES Mirage 2).

    >>> [successes_on(f) for f in (1, 5, 6, 9, 10, 12)]
    [0, 0, 1, 1, 2, 2]
    """
    return 0 if face < 6 else (1 if face < 10 else 2)


def success_dist(sides: int) -> dict:
    """Successes on one die of ``sides``, exactly.

    >>> success_dist(10) == {0: Fraction(1, 2), 1: Fraction(2, 5), 2: Fraction(1, 10)}
    True
    """
    d = {0: Fraction(5, sides), 1: Fraction(min(sides, 9) - 5, sides)}
    if sides >= 10:
        d[2] = Fraction(sides - 9, sides)
    return d


def step_pool(pool: list, net: int, may_add: bool = True) -> tuple[list, int, bool]:
    """Apply ``net`` steps to base dice ``pool`` (a list of
    ``[kind, sides]``, attribute first), following "Modifiers" as read in
    RULES-NOTES Mirage 3: up steps the lower die first, never above 2d12, a
    lone die steps up by adding a d6; down steps the higher die first, below
    2d6 a die is removed, never below one d6. Between equal dice the skill
    die moves (and is the one removed) first. Returns the new pool, the
    steps that could not be taken, and whether a d6 was added.

    >>> step_pool([["attribute", 10], ["skill", 6]], 1)[0]
    [['attribute', 10], ['skill', 8]]
    >>> step_pool([["attribute", 6], ["skill", 6]], -1)[0]
    [['attribute', 6]]
    >>> step_pool([["attribute", 12], ["skill", 10]], 3)[:2]
    ([['attribute', 12], ['skill', 12]], 2)
    >>> step_pool([["attribute", 8]], 1)[0]
    [['attribute', 8], ['skill', 6]]
    """
    pool = [list(p) for p in pool]
    lost = 0
    added = False
    for _ in range(abs(net)):
        if net > 0:
            if len(pool) == 1 and may_add:
                pool.append(["skill", 6])
                added = True
                continue
            lowest = min(p[1] for p in pool)
            if lowest >= 12:
                lost += 1
                continue
            # the lower die; between equals the later (skill) die
            target = [p for p in pool if p[1] == lowest][-1]
            target[1] = step_up(target[1])
        else:
            if len(pool) >= 2 and all(p[1] <= 6 for p in pool):
                pool.pop()  # below 2d6: remove a die (the skill die)
                continue
            highest = max(p[1] for p in pool)
            if highest <= 6:
                lost += 1  # never below one d6
                continue
            target = [p for p in pool if p[1] == highest][-1]
            target[1] = step_down(target[1])
    return pool, lost, added


def _base_pool(side: dict) -> list:
    pool = [["attribute", side["attribute"]]]
    if side["skill"]:
        pool.append(["skill", side["skill"]])
    return pool


def _steps(side: dict) -> dict:
    """The step modifiers of one side, each named, and their net."""
    ctype = condition_type(side["attribute_name"])
    parts = {
        "difficulty": DIFFICULTY[side["difficulty"]],
        "helpers": side["helpers"],
        "conditions": -side["conditions"][ctype],
        "modifier": side["modifier"],
    }
    parts["net"] = sum(parts.values())
    return parts


def _plan(side: dict) -> dict:
    """The dice a side rolls: base dice before and after stepping, and gear."""
    steps = _steps(side)
    base = _base_pool(side)
    stepped, lost, added = step_pool(base, steps["net"])
    return {"steps": {**steps, "lost": lost}, "base": base, "stepped": stepped, "added": added,
            "gear": list(side["gear"])}


def _label(kind: str, side: dict, added: bool = False, opponent: bool = False) -> str:
    if kind == "attribute":
        name = "" if opponent and not side["skill_name"] else f" ({_title(side['attribute_name'])})"
        text = f"attribute die{name}"
    elif kind == "skill":
        name = f" ({_title(side['skill_name'])})" if side["skill_name"] else ""
        text = "added die (step up)" if added else f"skill die{name}"
    else:
        text = "gear die"
    return f"Opponent's {text}" if opponent else text[0].upper() + text[1:]


def _die(kind: str, sides: int, face: int, side: dict, *, role: str = "rolled",
         history: list | None = None, base_sides: int | None = None, added: bool = False,
         opponent: bool = False) -> dict:
    n = successes_on(face)
    d = {"type": "die", "sides": sides, "face": face, "role": role,
         "history": list(history) if history else [face],
         "kind": kind, "label": _label(kind, side, added, opponent), "colour": KIND_COLOURS[kind],
         "success": n > 0, "successes": n}
    if base_sides is not None and base_sides != sides:
        d["stepped_from"] = base_sides
    if added:
        d["added"] = True
    return d


def _roll_side(side: dict, rng, opponent: bool = False) -> dict:
    plan = _plan(side)
    base_sizes = {k: s for k, s in plan["base"]}
    dice = []
    for kind, sides in plan["stepped"]:
        added = plan["added"] and kind == "skill"
        dice.append(_die(kind, sides, roll_die(rng, sides), side,
                         base_sides=None if added else base_sizes.get(kind), added=added,
                         opponent=opponent))
    for sides in plan["gear"]:
        dice.append(_die("gear", sides, roll_die(rng, sides), side, opponent=opponent))
    return {"dice": dice, "successes": sum(d["successes"] for d in dice),
            "steps": plan["steps"], "base": [list(p) for p in plan["base"]],
            "stepped": [list(p) for p in plan["stepped"]]}


def _outcome(own: int, opp: int | None) -> tuple[int, str]:
    """Value and outcome: unopposed the successes; opposed the successes
    left after each opposing success cancels one (RULES-NOTES Mirage 6)."""
    value = own if opp is None else own - opp
    if opp is not None and value == 0:
        return value, "tie"
    if value <= 0:
        return value, "failure"
    return value, "success" if value == 1 else "success_with_bonus"


# --------------------------------------------------------------------------
# Explanations (a function of the result, not of the rolling).

def _pool_text(pool: list) -> str:
    return format_pool([s for _, s in pool])


def _explain_side(side: dict, part: dict, who: str) -> list[str]:
    lines = []
    base = part["base"]
    named = who == "You" or side["skill_name"]
    names = " & ".join(
        f"{(_title(side['attribute_name']) if named else 'attribute') if k == 'attribute' else (_title(side['skill_name']) if side['skill_name'] else 'skill')} d{s}"
        for k, s in base)
    if len(base) == 1:
        lines.append(f"{who}: no skill, so the attribute die alone: {names}.")
    else:
        lines.append(f"{'Your' if who == 'You' else who + chr(39) + 's'} base dice: {names}.")
    if side["skill_name"] and SKILLS[side["skill_name"]] != side["attribute_name"]:
        lines.append(f"{_title(side['skill_name'])} is a {_title(SKILLS[side['skill_name']])} skill; "
                     f"rolled with {_title(side['attribute_name'])} as asked.")
    st = part["steps"]
    named = []
    if st["difficulty"]:
        named.append(f"{_title(side['difficulty'])} {_signed(st['difficulty'])}")
    if st["helpers"]:
        named.append(f"{st['helpers']} helper{'s' if st['helpers'] > 1 else ''} {_signed(st['helpers'])}")
    if st["conditions"]:
        ctype = condition_type(side["attribute_name"])
        named.append(f"{-st['conditions']} {ctype} Condition{'s' if st['conditions'] < -1 else ''} "
                     f"{_signed(st['conditions'])}")
    if st["modifier"]:
        named.append(f"modifier {_signed(st['modifier'])}")
    if named:
        if st["net"]:
            lines.append(f"Steps: {', '.join(named)}: net {_signed(st['net'])}, "
                         f"{_pool_text(base)} \u2192 {_pool_text(part['stepped'])}.")
        else:
            lines.append(f"Steps: {', '.join(named)}: net 0, the dice stay {_pool_text(base)}.")
    if st["lost"]:
        why = "never above 2d12" if st["net"] > 0 else "never below one d6"
        lines.append(f"{st['lost']} step{'s' if st['lost'] > 1 else ''} "
                     f"{'up' if st['net'] > 0 else 'down'} lost: {why} (RULES-NOTES Mirage 3).")
    if side["gear"]:
        lines.append(f"Gear dice {format_pool(side['gear'])} are added as they are "
                     "(not stepped, RULES-NOTES Mirage 5).")
    return lines


def _success_text(dice: list, n: int) -> str:
    shown = ", ".join(f"d{d['sides']}:{d['face']}" for d in dice)
    return (f"{shown} \u2192 {n} success{'es' if n != 1 else ''} "
            "(6\u20139 is one, 10+ is two).")


def _verdict(result: dict) -> list[str]:
    lines = []
    opp = result.get("opponent")
    if opp is not None:
        lines.append(f"Opponent's {opp['successes']} success{'es' if opp['successes'] != 1 else ''} "
                     f"cancel{'s' if opp['successes'] == 1 else ''} as many of yours: "
                     f"net {_signed(result['value'])}.")
    outcome = result["outcome"]
    if outcome == "tie":
        lines.append("A tie: the active side fails, unless the GM asks for the opposed roll "
                     "to be rolled again (RULES-NOTES Mirage 6).")
    elif outcome == "failure":
        lines.append("Failure: something goes wrong; the GM says what.")
    elif outcome == "success":
        lines.append("Success: you reach your goal.")
    else:
        extra = result["extra_successes"]
        lines.append(f"Success with a bonus effect: {extra} extra success{'es' if extra > 1 else ''} "
                     f"(in combat, +{extra} damage).")
    return lines


# --------------------------------------------------------------------------
# Roll.

def roll(spec: dict, rng) -> dict:
    """Roll a normalized spec: the roller's stepped base dice (attribute,
    then skill), then gear in spec order, then the opponent's dice.

    >>> from rules.dice import ScriptedRng
    >>> r = roll(normalize({"attribute": 8, "skill": 0, "helpers": 1}), ScriptedRng([3, 6]))
    >>> [(d["kind"], d["sides"], d["face"]) for d in r["dice"]]
    [('attribute', 8, 3), ('skill', 6, 6)]
    >>> r["outcome"], r["can_pray"], r["condition_gained"]
    ('success', True, None)
    """
    check_not_broken(spec)
    own = _roll_side(spec, rng)
    opp = _roll_side(spec["opponent"], rng, True) if spec["opponent"] is not None else None
    value, outcome = _outcome(own["successes"], opp["successes"] if opp else None)
    result = {
        "dice": own["dice"],
        "value": value,
        "successes": own["successes"],
        "outcome": outcome,
        "extra_successes": max(0, value - 1),
        "condition_gained": None,
        "broken": False,
        "steps": own["steps"],
        "base": own["base"],
        "stepped": own["stepped"],
        "opponent": opp,
        "prayed": None,
        "before_prayer": None,
        "can_pray": not spec["passive"],
    }
    explain = _explain_side(spec, own, "You")
    explain.append("Your dice: " + _success_text(own["dice"], own["successes"]))
    if opp is not None:
        explain += _explain_side(spec["opponent"], opp, "Opponent")
        explain.append("Opponent's dice: " + _success_text(opp["dice"], opp["successes"]))
    explain += _verdict(result)
    if spec["passive"]:
        explain.append("A passive roll: no prayer (\"Passive Rolls\").")
    else:
        explain.append("You may pray once: reroll any dice not showing 1; a 1 afterwards "
                       f"costs a {condition_type(spec['attribute_name'])} Condition.")
    result["explain"] = explain
    return result


# --------------------------------------------------------------------------
# Prayer.

def _read_dice(result: Any) -> list:
    """The prior result's own dice, checked (a result may come from a link)."""
    if not isinstance(result, dict) or not isinstance(result.get("dice"), list) or not result["dice"]:
        raise SpecError("result", "is not a Mirage result")
    for d in result["dice"]:
        if (not isinstance(d, dict) or d.get("kind") not in KIND_COLOURS
                or d.get("sides") not in BASE_SIZES or isinstance(d.get("face"), bool)
                or not isinstance(d.get("face"), int) or not 1 <= d["face"] <= d["sides"]
                or not isinstance(d.get("history"), list)):
            raise SpecError("result", "is not a Mirage result (a die is malformed)")
    return result["dice"]


def _opp_successes(result: dict, spec: dict) -> int | None:
    if spec["opponent"] is None:
        return None
    opp = result.get("opponent")
    n = opp.get("successes") if isinstance(opp, dict) else None
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise SpecError("result", "is not a Mirage opposed result")
    return n


def _prayer_plan(spec: dict, result: Any, action: dict) -> dict:
    """Check a prayer and work out the dice it rerolls (with the prayer
    bonus applied as steps up, RULES-NOTES Mirage 4). Pure: no draws."""
    if action.get("do") != "pray":
        raise SpecError("action", "Mirage allows one step after a roll: 'pray'")
    check_not_broken(spec)
    check_keys(action, ("do", "dice", "bonus", "side"), "action")
    if action.get("side") not in (None, "initiator"):
        raise SpecError("side", "only the active side may pray (\"Opposed Rolls\")")
    if spec["passive"]:
        raise SpecError("action", "no prayer on a passive roll: you can only pray when you "
                        "actively perform an action (\"Passive Rolls\")")
    dice = _read_dice(result)
    if result.get("prayed"):
        raise SpecError("action", "you can only pray once for each roll, and cannot go back "
                        "(\"Prayer\")")
    idx = action.get("dice")
    if not isinstance(idx, list) or not idx:
        raise SpecError("dice", "name the dice to reroll: a list of die numbers, at least one")
    if len(idx) > len(dice) or any(isinstance(i, bool) or not isinstance(i, int) for i in idx):
        raise SpecError("dice", f"must be die positions from 0 to {len(dice) - 1}, each once")
    if len(set(idx)) != len(idx) or not all(0 <= i < len(dice) for i in idx):
        raise SpecError("dice", f"must be die positions from 0 to {len(dice) - 1}, each once")
    for i in idx:
        if dice[i]["face"] == 1:
            raise SpecError("dice", f"die {i + 1} shows a 1: dice showing one cannot be "
                            "rerolled (\"Prayer\")")
    bonus = get_int(action, "bonus", 0, 2, default=0, field="bonus")
    chosen = set(idx)
    # The bonus steps the rerolled base dice up (gear is never stepped).
    base_pos = [i for i, d in enumerate(dice) if d["kind"] != "gear"]
    sides = [d["sides"] for d in dice]
    added = None  # the size of a d6 added by the bonus to a lone rerolled die
    lost = 0
    for _ in range(bonus):
        if len(base_pos) == 1 and base_pos[0] in chosen and added is None:
            added = 6  # a lone die steps up by adding a d6 (RULES-NOTES Mirage 3)
            continue
        pool = [(sides[i], i) for i in base_pos if i in chosen and sides[i] < 12]
        if added is not None and added < 12:
            pool.append((added, len(dice)))  # sorts last: moves first between equals
        if not pool:
            lost += 1
            continue
        low = min(p[0] for p in pool)
        target = [p for p in pool if p[0] == low][-1][1]
        if target == len(dice):
            added = step_up(added)
        else:
            sides[target] = step_up(sides[target])
    return {"dice": dice, "chosen": sorted(chosen), "bonus": bonus, "sides": sides,
            "added_at": base_pos[0] + 1 if added is not None else None,
            "added_sides": added, "lost": lost}


def act(spec: dict, result: dict, action: dict, rng) -> dict:
    """``pray`` {"dice": [i...], "bonus": 0/1/2}: once, on an active roll,
    reroll the named dice (none showing 1); the bonus steps them up; if any
    die shows 1 afterwards, one Condition of the attribute's type
    (RULES-NOTES Mirage 4). The roll before the prayer stays in
    ``before_prayer`` and in each die's ``history``.

    >>> from rules.dice import ScriptedRng
    >>> spec = normalize({"attribute": 8, "attribute_name": "wits", "skill": 6})
    >>> r = roll(spec, ScriptedRng([3, 2]))
    >>> p = act(spec, r, {"do": "pray", "dice": [0, 1]}, ScriptedRng([7, 1]))
    >>> [d["history"] for d in p["dice"]], p["outcome"], p["condition_gained"]
    ([[3, 7], [2, 1]], 'success', 'mental')
    """
    plan = _prayer_plan(spec, result, action)
    opp_n = _opp_successes(result, spec)
    old = plan["dice"]
    new_dice: list = []
    for i, d in enumerate(old):
        if plan["added_at"] == i:
            sides = plan["added_sides"]
            new_dice.append(_die("skill", sides, roll_die(rng, sides), spec, role="rerolled",
                                 added=True))
        if i in plan["chosen"]:
            sides = plan["sides"][i]
            face = roll_die(rng, sides)
            nd = _die(d["kind"], sides, face, spec, role="rerolled",
                      history=list(d["history"]) + [face], added=bool(d.get("added")))
            if sides != d["sides"]:
                nd["prayer_step"] = [d["sides"], sides]
            if "stepped_from" in d:
                nd["stepped_from"] = d["stepped_from"]
        else:
            nd = dict(d)
            nd["role"] = "kept"
            nd["successes"] = successes_on(d["face"])  # counted again, not taken on trust
            nd["success"] = nd["successes"] > 0
        new_dice.append(nd)
    if plan["added_at"] is not None and plan["added_at"] >= len(old):
        sides = plan["added_sides"]
        new_dice.append(_die("skill", sides, roll_die(rng, sides), spec, role="rerolled",
                             added=True))
    own = sum(d["successes"] for d in new_dice)
    value, outcome = _outcome(own, opp_n)
    before_n = sum(successes_on(d["face"]) for d in old)
    before_v, before_o = _outcome(before_n, opp_n)
    ctype = condition_type(spec["attribute_name"])
    ones = [i for i, d in enumerate(new_dice) if d["face"] == 1]
    gained = ctype if ones else None
    broken = bool(gained) and spec["conditions"][ctype] >= 3
    new = {k: v for k, v in result.items() if k not in ("system", "spec", "stages")}
    # What the spec decides is rebuilt from it, never taken from the result
    # (a link may alter it): the steps, and the opponent's dice, which an
    # unopposed spec does not have.
    mine = _plan(spec)
    new.update({"steps": mine["steps"], "base": [list(p) for p in mine["base"]],
                "stepped": [list(p) for p in mine["stepped"]]})
    if opp_n is None:
        new["opponent"] = None
    new.update({
        "dice": new_dice, "value": value, "successes": own, "outcome": outcome,
        "extra_successes": max(0, value - 1), "condition_gained": gained, "broken": broken,
        "can_pray": False,
        "prayed": {"dice": plan["chosen"], "bonus": plan["bonus"], "lost": plan["lost"],
                   "added": plan["added_at"] is not None},
        "before_prayer": {"dice": [dict(d) for d in old], "value": before_v,
                          "successes": before_n, "outcome": before_o},
    })
    explain = _explain_side(spec, _plan(spec), "You")
    if opp_n is not None:
        explain += _explain_side(spec["opponent"], _plan(spec["opponent"]), "Opponent")
        explain.append(f"Opponent's dice: {opp_n} success{'es' if opp_n != 1 else ''}.")
    explain.append("Before the prayer: " + _success_text(old, before_n)[:-1]
                   + f": {before_o.replace('_', ' ')}.")
    names = ", ".join(f"d{old[i]['sides']}:{old[i]['face']}" for i in plan["chosen"])
    line = f"Prayer: rerolled {names}"
    if plan["bonus"]:
        kind = "temple" if plan["bonus"] == 2 else "preparatory prayer"
        line += f" with {kind} {_signed(plan['bonus'])}"
        moved = [f"d{old[i]['sides']} \u2192 d{plan['sides'][i]}" for i in plan["chosen"]
                 if plan["sides"][i] != old[i]["sides"]]
        if plan["added_at"] is not None:
            moved.append(f"a d{plan['added_sides']} added (a lone die steps up by adding a d6)")
        if moved:
            line += " (" + ", ".join(moved) + ")"
        if plan["lost"]:
            line += f"; {plan['lost']} step{'s' if plan['lost'] > 1 else ''} lost (no rerolled base die could step up)"
    explain.append(line + ". All dice count now; there is no going back.")
    explain.append("After the prayer: " + _success_text(new_dice, own))
    explain += _verdict(new)
    if gained:
        held = spec["conditions"][ctype]
        msg = (f"A die shows 1 after praying: you gain one {ctype} Condition of your choice "
               f"(one, however many 1s; {_title(spec['attribute_name'])} is "
               f"{'physical' if ctype == 'physical' else 'mental'}).")
        if broken:
            msg += f" You already had three {ctype} Conditions: you are Broken."
        elif held < 3:
            msg += f" You now have {held + 1} {ctype} Condition{'s' if held else ''}."
        explain.append(msg)
    else:
        explain.append("No die shows 1: the prayer costs no Condition.")
    new["explain"] = explain
    return new


# --------------------------------------------------------------------------
# Odds.

def _side_dist(sizes: list) -> dict:
    dist = {0: Fraction(1)}
    for s in sizes:
        dist = convolve(dist, success_dist(s))
    return dist


def _outcome_dist(own: dict, opp: dict | None) -> tuple[dict, dict]:
    value = own if opp is None else convolve(own, opp, lambda x, y: x - y)
    outcomes: dict = {}
    for v, p in value.items():
        o = _outcome(v, None)[1] if opp is None else _outcome(v, 0)[1]
        outcomes[o] = outcomes.get(o, 0) + p
    names = ("failure", "success", "success_with_bonus") if opp is None else OUTCOMES
    return value, {n: float(outcomes.get(n, 0)) for n in names}


def _figures(value: dict, outcome: dict, opposed: bool) -> dict:
    out = {"value": dist_to_json(value), "outcome": outcome, "exact": True,
           "p_success": outcome.get("success", 0.0) + outcome.get("success_with_bonus", 0.0),
           "p_bonus": outcome.get("success_with_bonus", 0.0)}
    if opposed:
        out.update({"win": out["p_success"], "tie": outcome["tie"], "lose": outcome["failure"]})
    return out


def odds(spec: dict, result: dict | None = None, action: dict | None = None) -> dict:
    """Exact odds: the distribution of successes (net of the opponent's when
    opposed), P(success), P(2+); given a result and a ``pray`` action, the
    odds after that prayer and P(gaining a Condition).

    >>> o = odds(normalize({"attribute": 6, "skill": 6}))
    >>> round(o["p_success"], 4), round(o["p_bonus"], 4)
    (0.3056, 0.0278)
    >>> from rules.dice import ScriptedRng
    >>> s = normalize({"attribute": 6, "skill": 6})
    >>> r = roll(s, ScriptedRng([1, 4]))
    >>> p = odds(s, r, {"do": "pray", "dice": [1]})
    >>> p["condition"], round(p["p_success"], 4)
    (1.0, 0.1667)
    """
    if action is None:
        check_not_broken(spec)
        own = _plan(spec)
        own_d = _side_dist([s for _, s in own["stepped"]] + own["gear"])
        opp_d = None
        if spec["opponent"] is not None:
            op = _plan(spec["opponent"])
            opp_d = _side_dist([s for _, s in op["stepped"]] + op["gear"])
        value, outcome = _outcome_dist(own_d, opp_d)
        out = _figures(value, outcome, opp_d is not None)
        out["dice"] = [s for _, s in own["stepped"]] + own["gear"]
        return out
    plan = _prayer_plan(spec, result, action)
    opp_n = _opp_successes(result, spec)
    dice = plan["dice"]
    fixed = sum(successes_on(d["face"]) for i, d in enumerate(dice) if i not in plan["chosen"])
    rerolled = [plan["sides"][i] for i in plan["chosen"]]
    if plan["added_sides"] is not None:  # drawn where act draws it: after the lone die
        rerolled.insert(sum(1 for i in plan["chosen"] if i < plan["added_at"]), plan["added_sides"])
    dist = {v + fixed: p for v, p in _side_dist(rerolled).items()}
    opp_d = None if opp_n is None else {opp_n: Fraction(1)}
    value, outcome = _outcome_dist(dist, opp_d)
    out = _figures(value, outcome, opp_d is not None)
    held_one = any(d["face"] == 1 for i, d in enumerate(dice) if i not in plan["chosen"])
    no_one = Fraction(1)
    for s in rerolled:
        no_one *= Fraction(s - 1, s)
    out["condition"] = 1.0 if held_one else float(1 - no_one)
    out["condition_type"] = condition_type(spec["attribute_name"])
    out["dice"] = rerolled
    out["lost"] = plan["lost"]
    return out
