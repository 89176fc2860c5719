"""Mirage (its rules text): base dice (``DIE_SIZES``), successes on
``SUCCESS_ON`` or more (two on ``GREAT_ON`` or more), step modifiers,
prayer and Conditions, opposed rolls and their tie-breaks. Each of the
rule's numbers is named once, in ``tables``.

The text's sections, and where each lives here:

- "Roll the Dice": an attribute die and a skill die (no skill: the attribute
  die alone) -> ``_base_pool``; gear dice are added as they are
  (RULES-NOTES Mirage 5).
- "Success" / "Multiple Successes": ``SUCCESS_ON`` up to ``GREAT_ON``
  is one success, more two -> ``successes_on``; 0 = failure, 1 = success, 2+ = success with a bonus
  effect, each extra success +1 damage in combat (RULES-NOTES Mirage 2).
- "Modifiers", "Difficulty", "Help From Others", "Conditions": one net step
  value, applied by ``step_pool`` (RULES-NOTES Mirage 3).
- "Prayer": the verb ``pray`` (RULES-NOTES Mirage 4).
- "Opposed Rolls": each opposing success cancels one; a tie fails the active
  side (RULES-NOTES Mirage 6) unless "a tie needs to be broken": the verb
  ``tiebreak`` rolls the opposed roll again (docs/RULES-DECISIONS.md, Mirage).

A result is a function of the spec and its recorded stages: ``act`` and the
odds of a step rebuild the state by replaying the stages (``rules.stages``),
never from the dice a result carries. The prose is ``explain``'s.

The level -> die legend, the twelve core skills, the difficulty table and the
Condition names are data, in ``tables.json`` beside this file.

>>> from rules.dice import ScriptedRng
>>> spec = normalize({"attribute": "d10", "skill": "d6", "difficulty": "easy"})
>>> r = roll(spec, ScriptedRng([10, 6]))
>>> [(d["sides"], d["face"], d["successes"]) for d in r["dice"]]
[(10, 10, 2), (8, 6, 1)]
>>> r["value"], r["outcome"]
(3, 'success_with_bonus')
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..dice import (SpecError, check_keys, is_int, convolve, dist_to_json, get_bool, get_choice, get_int,
                   get_size, get_sizes, name_key, roll_die, step_down, step_up)
from ..stages import rebuild
from ..system import check_action
from .explain import die_label, explain
from .tables import (ATTRIBUTES, CONDITION_FACE, CONDITION_NAMES, DIE_SIZES, DIFFICULTY, GREAT_ON, LEGEND,
                     MAX_CONDITIONS, MAX_HELPERS, MAX_PRAYER_BONUS, MAX_TIEBREAKS, SKILLS, SUCCESS_ON, TABLES,
                     condition_type)

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "STEPS", "TABLES", "LEGEND", "SKILLS", "ATTRIBUTES",
           "DIFFICULTY", "CONDITION_NAMES", "KIND_COLOURS", "BASE_SIZES", "MAX_TIEBREAKS",
           "SUCCESS_ON", "GREAT_ON", "CONDITION_FACE", "MAX_HELPERS", "MAX_PRAYER_BONUS", "MAX_CONDITIONS", "DIE_SIZES",
           "normalize", "roll", "act", "odds", "step_pool", "check_not_broken", "successes_on", "face_counts",
           "condition_type", "success_dist", "state_of", "side_plan", "plan_sizes", "prayer_plan",
           "rerolled_sizes", "side_dist", "tiebreak_side", "can_tiebreak"]

NAME = "mirage"
TITLE = "Mirage"

OUTCOMES = ("failure", "tie", "success", "success_with_bonus")
#: The steps after a roll and the keys each takes (``act``); only the active
#: side steps, so ``side`` is "initiator" when given.
STEPS = {"pray": ("dice", "bonus", "side"), "tiebreak": ("side",), "accept": ("side",)}

#: Base and gear dice (RULES-NOTES Mirage 1).
BASE_SIZES = DIE_SIZES
#: At most this many gear dice on one roll (bounded work; the text gives none).
MAX_GEAR = 6
MAX_MODIFIER = 12
#: "Dice Names": dice of different colours for attribute, skill and gear.
KIND_COLOURS = {"attribute": "red", "skill": "blue", "gear": "white"}

SPEC_KEYS = ("attribute", "attribute_name", "skill", "skill_name", "gear", "difficulty",
             "helpers", "conditions", "modifier", "passive", "prayer_bonus", "opponent")
OPPONENT_KEYS = tuple(k for k in SPEC_KEYS if k not in ("passive", "prayer_bonus", "opponent"))

DEFAULT_SPEC = {
    "attribute": 10, "attribute_name": "agility", "skill": 8, "skill_name": "shadowcraft",
    "gear": [], "difficulty": "average", "helpers": 0,
    "conditions": {"physical": 0, "mental": 0, "broken": False}, "modifier": 0, "passive": False,
    "prayer_bonus": 0, "opponent": None,
}


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
    # The prayer's bonus (preparatory +1, temple +2), known before the roll:
    # the advice and the odds with a prayer use it, and a prayer names it
    # or takes it. Older specs lack it: 0, as the page sent.
    out["prayer_bonus"] = get_int(spec, "prayer_bonus", 0, MAX_PRAYER_BONUS, default=0)
    opp = spec.get("opponent")
    out["opponent"] = None if opp is None else _normalize_side(opp, "opponent.", OPPONENT_KEYS)
    return out


def _normalize_side(spec: Any, prefix: str, keys: tuple) -> dict:
    check_keys(spec, keys, prefix.rstrip(".") or "spec")
    f = lambda k: prefix + k  # noqa: E731  (the field name shown beside the control)
    out: dict = {
        "attribute": get_size(spec, "attribute", BASE_SIZES, default=8, field=f("attribute")),
        "skill": get_size(spec, "skill", BASE_SIZES, default=0, allow_zero=True, field=f("skill")),
    }
    out.update(_names(spec, f))
    out["gear"] = get_sizes(spec, "gear", BASE_SIZES, default=[], limit=MAX_GEAR, field=f("gear"))
    out["difficulty"] = _difficulty(spec.get("difficulty"), f("difficulty"))
    out["helpers"] = get_int(spec, "helpers", 0, MAX_HELPERS, default=0, field=f("helpers"))
    out["conditions"] = _conditions(spec.get("conditions"), f("conditions"))
    out["modifier"] = get_int(spec, "modifier", -MAX_MODIFIER, MAX_MODIFIER, default=0,
                              field=f("modifier"))
    return out


def _names(spec: dict, f) -> dict:
    """The skill's name (none allowed) and the attribute's: the skill's own
    unless another is named ("Core Skills")."""
    skill = None
    if spec.get("skill_name") not in (None, ""):
        skill = get_choice(spec, "skill_name", tuple(SKILLS), field=f("skill_name"))
    if spec.get("attribute_name") in (None, ""):
        attribute = SKILLS[skill] if skill else "strength"
    else:
        attribute = get_choice(spec, "attribute_name", ATTRIBUTES, field=f("attribute_name"))
    return {"skill_name": skill, "attribute_name": attribute}


def _difficulty(value: Any, field: str) -> str:
    """A name from the "Difficulty" table, or its modifier as a number."""
    if is_int(value) and value in DIFFICULTY.values():
        value = next(k for k, v in DIFFICULTY.items() if v == value)
    return get_choice({"d": value}, "d", tuple(DIFFICULTY), default="average", field=field)


def _conditions(v: Any, field: str) -> dict:
    """``{"physical": 0-3, "mental": 0-3, "broken": bool}``, or a list of
    Condition names (any case); a count of 4, ``"broken": true`` or the name
    "broken" is a Broken character (held as three and ``broken``)."""
    if v is None:
        counts, broken = {"physical": 0, "mental": 0}, False
    elif isinstance(v, dict):
        counts, broken = _conditions_counted(v, field)
    elif isinstance(v, (list, tuple)):
        counts, broken = _conditions_named(v, field)
    else:
        raise SpecError(field, f"must be {{\"physical\": 0-{MAX_CONDITIONS}, \"mental\": 0-{MAX_CONDITIONS}}} "
                        "or a list of Condition names")
    return {**counts, "broken": broken}


def _conditions_counted(v: dict, field: str) -> tuple[dict, bool]:
    check_keys(v, ("physical", "mental", "broken"), field)
    counts = {kind: get_int(v, kind, 0, MAX_CONDITIONS + 1, default=0, field=field) for kind in ("physical", "mental")}
    marked = get_bool({field: v.get("broken")}, field)
    return {k: min(n, MAX_CONDITIONS) for k, n in counts.items()}, marked or MAX_CONDITIONS + 1 in counts.values()


def _conditions_named(v: list, field: str) -> tuple[dict, bool]:
    if len(v) > 7:
        raise SpecError(field, "lists at most the six Conditions and Broken")
    counts = {"physical": 0, "mental": 0}
    seen: list = []
    for item in v:
        k = name_key(item, field)
        if k in seen:
            raise SpecError(field, f"names {k!r} twice")
        seen.append(k)
        if k != "broken":
            counts[_condition_kind(k, field)] += 1
    return counts, "broken" in seen


def _condition_kind(name: str, field: str) -> str:
    for kind, names in CONDITION_NAMES.items():
        if name in names:
            return kind
    allowed = ", ".join(n for names in CONDITION_NAMES.values() for n in names)
    raise SpecError(field, f"{name!r} is not a Condition; allowed: {allowed}, broken")


def check_not_broken(spec: dict) -> None:
    """"Conditions": a Broken character may not perform any actions, so a
    roll (or a prayer, or a tie-break) is refused, saying why (RULES-NOTES
    Mirage 5).

    >>> check_not_broken(normalize({"conditions": ["Angry", "Broken"]}))
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: conditions: Broken: "you may not perform any actions, physical or mental" ("Conditions") until a Condition heals
    """
    for side, field in ((spec, "conditions"), (spec.get("opponent"), "opponent.conditions")):
        if side is not None and side["conditions"].get("broken"):
            who = "the opponent is Broken" if side is not spec else "Broken"
            raise SpecError(field, f"{who}: \"you may not perform any actions, physical or mental\" "
                            "(\"Conditions\") until a Condition heals")


# --------------------------------------------------------------------------
# Dice, successes and steps.

def successes_on(face: int) -> int:
    """"Success": ``SUCCESS_ON`` or higher is a success; ``GREAT_ON`` or
    higher on one die counts as two (RULES-NOTES Mirage 2).

    >>> [successes_on(f) for f in (1, SUCCESS_ON - 1, SUCCESS_ON, GREAT_ON - 1, GREAT_ON, 12)]
    [0, 0, 1, 1, 2, 2]
    """
    return 0 if face < SUCCESS_ON else (1 if face < GREAT_ON else 2)


def face_counts(sides: int) -> dict:
    """The faces of a d``sides`` by kind, each kind keyed by the face that
    stands for it: ``CONDITION_FACE`` (it may not be prayed for, and costs a
    Condition after a prayer), the other faces without a success, those
    with one (from ``SUCCESS_ON``) and those with two (from ``GREAT_ON``).

    >>> face_counts(12) == {CONDITION_FACE: 1, CONDITION_FACE + 1: SUCCESS_ON - 2,
    ...                     SUCCESS_ON: GREAT_ON - SUCCESS_ON, GREAT_ON: 13 - GREAT_ON}
    True
    >>> sum(face_counts(6).values()), face_counts(6)[GREAT_ON]
    (6, 0)
    """
    one = max(0, min(sides, GREAT_ON - 1) - SUCCESS_ON + 1)
    return {CONDITION_FACE: 1, CONDITION_FACE + 1: SUCCESS_ON - 1 - CONDITION_FACE,
            SUCCESS_ON: one, GREAT_ON: max(0, sides - GREAT_ON + 1)}


def success_dist(sides: int) -> dict:
    """Successes on one die of ``sides``, exactly.

    >>> d = success_dist(10)
    >>> sum(d.values()), d[2] == Fraction(11 - GREAT_ON, 10), 2 in success_dist(GREAT_ON - 2)
    (Fraction(1, 1), True, False)
    """
    counts = face_counts(sides)
    d = {0: Fraction(counts[CONDITION_FACE] + counts[CONDITION_FACE + 1], sides),
         1: Fraction(counts[SUCCESS_ON], sides)}
    if counts[GREAT_ON]:
        d[2] = Fraction(counts[GREAT_ON], sides)
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
    one_step = _step_up_once if net > 0 else _step_down_once
    events = [one_step(pool, may_add) for _ in range(abs(net))]
    return pool, events.count("lost"), "added" in events


def _step_up_once(pool: list, may_add: bool) -> str:
    if len(pool) == 1 and may_add:
        pool.append(["skill", DIE_SIZES[0]])  # a lone die steps up by adding the smallest
        return "added"
    lowest = min(p[1] for p in pool)
    if lowest >= DIE_SIZES[-1]:
        return "lost"  # never above two of the largest
    target = _last_of_size(pool, lowest)  # between equals the later (skill) die
    target[1] = step_up(target[1])
    return ""


def _step_down_once(pool: list, may_add: bool) -> str:
    if len(pool) >= 2 and all(p[1] <= DIE_SIZES[0] for p in pool):
        pool.pop()  # below two of the smallest: remove a die (the skill die)
        return ""
    highest = max(p[1] for p in pool)
    if highest <= DIE_SIZES[0]:
        return "lost"  # never below one of the smallest
    target = _last_of_size(pool, highest)
    target[1] = step_down(target[1])
    return ""


def _last_of_size(pool: list, size: int) -> list:
    """The last die of ``pool`` of this size: a step moves the later of
    equal dice."""
    return [p for p in pool if p[1] == size][-1]


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


def side_plan(side: dict) -> dict:
    """The dice a side rolls: base dice before and after stepping, and gear."""
    steps = _steps(side)
    base = _base_pool(side)
    stepped, lost, added = step_pool(base, steps["net"])
    return {"steps": {**steps, "lost": lost}, "base": base, "stepped": stepped, "added": added,
            "gear": list(side["gear"])}


def plan_sizes(plan: dict) -> list:
    """The sizes a plan rolls, in draw order."""
    return [s for _, s in plan["stepped"]] + plan["gear"]


def _die(kind: str, sides: int, face: int, side: dict, *, role: str = "rolled",
         history: list | None = None, base_sides: int | None = None, added: bool = False,
         opponent: bool = False) -> dict:
    n = successes_on(face)
    d = {"type": "die", "sides": sides, "face": face, "role": role,
         "history": list(history) if history else [face],
         "kind": kind, "label": die_label(kind, side, added, opponent), "colour": KIND_COLOURS[kind],
         "success": n > 0, "successes": n}
    if base_sides is not None and base_sides != sides:
        d["stepped_from"] = base_sides
    if added:
        d["added"] = True
    return d


def _base_die(kind: str, sides: int, side: dict, plan: dict, rng, opponent: bool) -> dict:
    added = plan["added"] and kind == "skill"
    base_sides = None if added else dict(plan["base"]).get(kind)
    return _die(kind, sides, roll_die(rng, sides), side, base_sides=base_sides, added=added,
                opponent=opponent)


def _roll_side(side: dict, rng, opponent: bool = False) -> dict:
    """One side's dice: the stepped base dice (attribute, then skill), then
    gear in spec order."""
    plan = side_plan(side)
    dice = [_base_die(kind, sides, side, plan, rng, opponent) for kind, sides in plan["stepped"]]
    dice += [_die("gear", sides, roll_die(rng, sides), side, opponent=opponent) for sides in plan["gear"]]
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
# The state: the rolls made (a tie-break adds one) and the prayer, if any.
# ``{"rounds": [{"own": side, "opp": side | None, "before": dice | None}],
#    "prayed": dict | None, "gained": type | None, "broken": bool}``

def _new_round(spec: dict, own_side: dict, rng) -> dict:
    """One opposed (or lone) roll: the roller's dice, then the opponent's."""
    own = _roll_side(own_side, rng)
    opp = _roll_side(spec["opponent"], rng, True) if spec["opponent"] is not None else None
    return {"own": own, "opp": opp, "before": None}


def _start(spec: dict, rng) -> dict:
    return {"rounds": [_new_round(spec, spec, rng)], "prayed": None, "gained": None, "broken": False}


def _round_outcome(rnd: dict) -> str:
    return _outcome(rnd["own"]["successes"], rnd["opp"]["successes"] if rnd["opp"] else None)[1]


def state_of(spec: dict, result: Any) -> dict:
    """The state of ``result``, rebuilt from its stages (``rules.stages``)."""
    return rebuild(result, lambda rng: _start(spec, rng),
                   lambda state, action, rng: _step(spec, state, action, rng))


def _check_step(spec: dict, action: dict) -> str:
    verb = check_action(action, STEPS, TITLE)["do"]
    check_not_broken(spec)
    return verb


def _step(spec: dict, state: dict, action: dict, rng) -> dict:
    verb = _check_step(spec, action)
    if state.get("accepted"):
        raise SpecError("action", "the dice were accepted as they lie: no further step")
    return _STEPS[verb](spec, state, action, rng)


def _side_ok(action: dict) -> None:
    """Only the active side steps (it prays; it asks for the tie-break)."""
    if action.get("side") not in (None, "initiator"):
        raise SpecError("side", "only the active side may pray (\"Opposed Rolls\")")


# --------------------------------------------------------------------------
# Prayer (RULES-NOTES Mirage 4).

def _prayer_args(spec: dict, state: dict, action: dict) -> tuple[list, int]:
    """The dice a prayer rerolls and its bonus, checked against the rules."""
    _side_ok(action)
    if spec["passive"]:
        raise SpecError("action", "no prayer on a passive roll: you can only pray when you "
                        "actively perform an action (\"Passive Rolls\")")
    if state["prayed"]:
        raise SpecError("action", "you can only pray once for each roll, and cannot go back "
                        "(\"Prayer\")")
    chosen = _prayer_dice(action.get("dice"), state["rounds"][-1]["own"]["dice"])
    return chosen, get_int(action, "bonus", 0, MAX_PRAYER_BONUS, default=spec["prayer_bonus"], field="bonus")


def _positions_ok(idx: list, n: int) -> bool:
    ints = all(is_int(i) for i in idx)
    return len(idx) <= n and ints and len(set(idx)) == len(idx) and all(0 <= i < n for i in idx)


def _prayer_dice(idx: Any, dice: list) -> list:
    if not isinstance(idx, list) or not idx:
        raise SpecError("dice", "name the dice to reroll: a list of die numbers, at least one")
    if not _positions_ok(idx, len(dice)):
        raise SpecError("dice", f"must be die positions from 0 to {len(dice) - 1}, each once")
    _refuse_ones(idx, dice)
    return sorted(idx)


def _refuse_ones(idx: list, dice: list) -> None:
    """The first chosen die showing 1 refused: it cannot be rerolled."""
    for i in idx:
        if dice[i]["face"] == CONDITION_FACE:
            raise SpecError("dice", f"die {i + 1} shows a 1: dice showing one cannot be "
                            "rerolled (\"Prayer\")")


def _step_lowest(sizes: dict) -> int:
    """Step up the smallest die below d12 (between equals the later one);
    1 when no die could step (the step is lost), else 0."""
    open_ = [(s, k) for k, s in sizes.items() if s < 12]
    if not open_:
        return 1
    low = min(s for s, _ in open_)
    k = max(k for s, k in open_ if s == low)
    sizes[k] = step_up(sizes[k])
    return 0


def prayer_plan(dice: list, chosen: list, bonus: int) -> dict:
    """The sizes the prayer rerolls: the bonus steps the rerolled base dice
    up (gear is never stepped); a lone base die steps up by adding a d6,
    drawn right after it (RULES-NOTES Mirage 3-4). Pure: no draws."""
    base = [i for i, d in enumerate(dice) if d["kind"] != "gear"]
    sizes = {i: dice[i]["sides"] for i in chosen if i in base}
    extra = len(dice)  # the added d6's key: it sorts last, so it moves first between equals
    lost = sum(_bonus_step(sizes, base, extra) for _ in range(bonus))
    added = sizes.pop(extra, None)
    return {"sizes": sizes, "added_sides": added, "lost": lost,
            "added_at": base[0] + 1 if added is not None else None}


def _bonus_step(sizes: dict, base: list, extra: int) -> int:
    """One step of the prayer bonus: a lone rerolled base die first gains a
    d6 (keyed ``extra``), else the smallest steps up. 1 if the step is lost."""
    if len(base) == 1 and base[0] in sizes and extra not in sizes:
        sizes[extra] = DIE_SIZES[0]
        return 0
    return _step_lowest(sizes)


def _prayed_die(spec: dict, d: dict, sides: int, rng) -> dict:
    face = roll_die(rng, sides)
    nd = _die(d["kind"], sides, face, spec, role="rerolled", history=list(d["history"]) + [face],
              added=bool(d.get("added")))
    if sides != d["sides"]:
        nd["prayer_step"] = [d["sides"], sides]
    if "stepped_from" in d:
        nd["stepped_from"] = d["stepped_from"]
    return nd


def _added_die(spec: dict, sides: int, rng) -> dict:
    return _die("skill", sides, roll_die(rng, sides), spec, role="rerolled", added=True)


def _reroll(spec: dict, dice: list, chosen: list, plan: dict, rng) -> list:
    """The dice after the prayer, drawn in die order (the added d6 right
    after the lone die it joins)."""
    out = []
    for i, d in enumerate(dice):
        if plan["added_at"] == i:
            out.append(_added_die(spec, plan["added_sides"], rng))
        if i in chosen:
            out.append(_prayed_die(spec, d, plan["sizes"].get(i, d["sides"]), rng))
        else:
            out.append({**d, "role": "kept"})
    if plan["added_at"] == len(dice):
        out.append(_added_die(spec, plan["added_sides"], rng))
    return out


def _pray(spec: dict, state: dict, action: dict, rng) -> dict:
    chosen, bonus = _prayer_args(spec, state, action)
    rnd = state["rounds"][-1]
    old = rnd["own"]["dice"]
    plan = prayer_plan(old, chosen, bonus)
    dice = _reroll(spec, old, chosen, plan, rng)
    ctype = condition_type(spec["attribute_name"])
    gained = ctype if any(d["face"] == CONDITION_FACE for d in dice) else None
    own = {**rnd["own"], "dice": dice, "successes": sum(d["successes"] for d in dice)}
    prayed = _prayer_record(old, chosen, bonus, plan, len(state["rounds"]))
    return {"rounds": state["rounds"][:-1] + [{**rnd, "own": own, "before": old}], "prayed": prayed,
            "gained": gained, "broken": bool(gained) and spec["conditions"][ctype] >= MAX_CONDITIONS}


def _prayer_record(old: list, chosen: list, bonus: int, plan: dict, rnd: int) -> dict:
    """What a prayer did, as the state keeps it: the dice, the bonus, the
    steps lost, the d6 added, each size the bonus moved, at roll ``rnd``."""
    return {"dice": chosen, "bonus": bonus, "lost": plan["lost"],
            "added": plan["added_at"] is not None, "added_sides": plan["added_sides"],
            "moved": [[old[i]["sides"], s] for i, s in sorted(plan["sizes"].items()) if s != old[i]["sides"]],
            "round": rnd}


# --------------------------------------------------------------------------
# Tie-break ("Opposed Rolls": "If a tie needs to be broken, re-roll the
# opposed roll to determine the outcome").

def tiebreak_side(spec: dict, state: dict) -> dict:
    """The active side as it rolls a tie-break: a Condition the prayer cost
    counts on it (each Condition "gives you a -1 modifier")."""
    if not state["gained"]:
        return spec
    conditions = dict(spec["conditions"])
    conditions[state["gained"]] += 1
    return {**spec, "conditions": conditions}


def _check_tiebreak(spec: dict, state: dict, action: dict) -> None:
    _side_ok(action)
    if spec["opponent"] is None or _round_outcome(state["rounds"][-1]) != "tie":
        raise SpecError("action", "a tie-break is only for an opposed roll that ended in a tie "
                        "(\"Opposed Rolls\")")
    if len(state["rounds"]) > MAX_TIEBREAKS:
        raise SpecError("action", f"still tied after {MAX_TIEBREAKS} tie-breaks, the most one roll "
                        "takes: the GM decides")
    if state["broken"]:
        raise SpecError("action", "Broken by the prayer: no further roll, so the tie stands and the "
                        "active side fails")


def _tiebreak(spec: dict, state: dict, action: dict, rng) -> dict:
    _check_tiebreak(spec, state, action)
    return {**state, "rounds": state["rounds"] + [_new_round(spec, tiebreak_side(spec, state), rng)]}


def _can_pray(spec: dict, state: dict) -> bool:
    """A prayer is open: an active roll, none made, a die not showing 1."""
    return (not spec["passive"] and not state["prayed"] and not state.get("accepted")
            and any(d["face"] != CONDITION_FACE for d in state["rounds"][-1]["own"]["dice"]))


def can_tiebreak(state: dict) -> bool:
    """A tie-break is open: a tie, fewer than the most, not Broken."""
    return (_round_outcome(state["rounds"][-1]) == "tie" and len(state["rounds"]) <= MAX_TIEBREAKS
            and not state["broken"] and not state.get("accepted"))


def _accept(spec: dict, state: dict, action: dict, rng) -> dict:
    """Take the dice as they lie: no draws, and no step after it;
    only while a step is open (a prayer or a tie-break)."""
    _side_ok(action)
    if not (_can_pray(spec, state) or can_tiebreak(state)):
        raise SpecError("action", "no step is open: the dice already stand as they lie")
    return {**state, "accepted": True}


_STEPS = {"pray": _pray, "tiebreak": _tiebreak, "accept": _accept}


def _open_actions(spec: dict, state: dict) -> list:
    """The result's ``allowed``: a prayer, a tie-break, and accepting the
    dice while either is open."""
    pray, tiebreak = _can_pray(spec, state), can_tiebreak(state)
    return [{"do": "pray"}] * pray + [{"do": "tiebreak"}] * tiebreak + [{"do": "accept"}] * (pray or tiebreak)


# --------------------------------------------------------------------------
# The result: a function of the spec and the state.

def _before_prayer(rnd: dict) -> dict | None:
    if rnd["before"] is None:
        return None
    n = sum(d["successes"] for d in rnd["before"])
    value, outcome = _outcome(n, rnd["opp"]["successes"] if rnd["opp"] else None)
    return {"dice": rnd["before"], "value": value, "successes": n, "outcome": outcome}


def _tied_round(k: int, rnd: dict) -> dict:
    n, m = rnd["own"]["successes"], rnd["opp"]["successes"]
    return {"round": k, "dice": rnd["own"]["dice"], "successes": n, "value": n - m, "outcome": "tie",
            "prayed": rnd["before"] is not None,
            "opponent": {"dice": rnd["opp"]["dice"], "successes": m}}


def _build(spec: dict, state: dict) -> dict:
    rounds = state["rounds"]
    cur = rounds[-1]
    own = cur["own"]
    value, outcome = _outcome(own["successes"], cur["opp"]["successes"] if cur["opp"] else None)
    result = {
        "dice": own["dice"], "value": value, "successes": own["successes"], "outcome": outcome,
        "extra_successes": max(0, value - 1),
        "condition_gained": state["gained"], "broken": state["broken"],
        "steps": own["steps"], "base": own["base"], "stepped": own["stepped"],
        "opponent": cur["opp"],
        "prayed": state["prayed"], "before_prayer": _before_prayer(cur),
        "can_pray": not spec["passive"] and not state["prayed"] and not state.get("accepted"),
        "tied_rounds": [_tied_round(k, r) for k, r in enumerate(rounds[:-1], start=1)],
        "tiebreaks": len(rounds) - 1,
        "can_tiebreak": can_tiebreak(state),
        "accepted": bool(state.get("accepted")),
        "allowed": _open_actions(spec, state),
    }
    result["explain"] = explain(spec, result)
    return result


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
    return _build(spec, _start(spec, rng))


def act(spec: dict, result: dict, action: dict, rng) -> dict:
    """A step after the roll, on the state rebuilt from ``result``'s stages:

    - ``pray`` {"dice": [i...], "bonus": 0/1/2}: once, on an active roll,
      reroll the named dice (none showing 1); the bonus steps them up; if
      any die shows 1 afterwards, one Condition of the attribute's type
      (RULES-NOTES Mirage 4). The roll before the prayer stays in
      ``before_prayer`` and in each die's ``history``.
    - ``tiebreak``: an opposed roll that tied is rolled again, both sides
      (at most ``MAX_TIEBREAKS`` times); the tied rolls stay in
      ``tied_rounds``.
    - ``accept``: take the dice as they lie (no draws); no step after it.

    >>> from rules.dice import ScriptedRng
    >>> from rules import roll as roll_, act as act_
    >>> spec = normalize({"attribute": 8, "attribute_name": "wits", "skill": 6})
    >>> r = roll_("mirage", spec, ScriptedRng([3, 2]))
    >>> p = act_("mirage", spec, r, {"do": "pray", "dice": [0, 1]}, ScriptedRng([7, 1]))
    >>> [d["history"] for d in p["dice"]], p["outcome"], p["condition_gained"]
    ([[3, 7], [2, 1]], 'success', 'mental')
    """
    return _build(spec, _step(spec, state_of(spec, result), action, rng))


# --------------------------------------------------------------------------
# Odds.

def side_dist(sizes: list) -> dict:
    """The distribution of a side's successes rolling dice of ``sizes``."""
    dist = {0: Fraction(1)}
    for s in sizes:
        dist = convolve(dist, success_dist(s))
    return dist


def _outcome_dist(own: dict, opp: dict | None) -> tuple[dict, dict]:
    value = own if opp is None else convolve(own, opp, lambda x, y: x - y)
    outcomes: dict = {}
    for v, p in value.items():
        o = _outcome(v, None if opp is None else 0)[1]
        outcomes[o] = outcomes.get(o, 0) + p
    names = ("failure", "success", "success_with_bonus") if opp is None else OUTCOMES
    return value, {n: outcomes.get(n, Fraction(0)) for n in names}


def _figures(value: dict, outcome: dict, opposed: bool) -> dict:
    p_success = outcome.get("success", 0) + outcome.get("success_with_bonus", 0)
    out = {"value": dist_to_json(value), "outcome": {k: float(p) for k, p in outcome.items()},
           "exact": True, "p_success": float(p_success),
           "p_bonus": float(outcome.get("success_with_bonus", 0))}
    if opposed:
        out.update({"win": out["p_success"], "tie": float(outcome["tie"]),
                    "lose": float(outcome["failure"])})
    return out


def _with_tiebreaks(outcome: dict, left: int) -> dict:
    """Win or lose with up to ``left`` tie-breaks of the same dice (each tie
    rolled again), still tied after the last; and ``if_ties_repeat``:
    win / (win + lose), the chance when ties are rolled again until broken."""
    win = outcome["success"] + outcome["success_with_bonus"]
    tie, lose = outcome["tie"], outcome["failure"]
    series = sum((tie ** i for i in range(left + 1)), Fraction(0))
    return {"win": float(win * series), "lose": float(lose * series), "tie": float(tie ** (left + 1)),
            "tiebreaks": left, "if_ties_repeat": float(win / (win + lose)) if win + lose else 0.0}


def _fresh_odds(own_side: dict, spec: dict, left: int) -> dict:
    """The odds of a fresh roll of ``own_side`` against the spec's opponent."""
    own = plan_sizes(side_plan(own_side))
    opp_d = side_dist(plan_sizes(side_plan(spec["opponent"]))) if spec["opponent"] is not None else None
    value, outcome = _outcome_dist(side_dist(own), opp_d)
    out = _figures(value, outcome, opp_d is not None)
    if opp_d is not None:
        out["with_tiebreaks"] = _with_tiebreaks(outcome, left)
    out["dice"] = own
    return out


def rerolled_sizes(dice: list, chosen: list, plan: dict) -> list:
    """The sizes a prayer rolls, in the order ``act`` draws them (an added
    d6 right after the lone die it joins)."""
    sizes = [plan["sizes"].get(i, dice[i]["sides"]) for i in chosen]
    if plan["added_sides"] is not None:
        sizes.insert(sum(1 for i in chosen if i < plan["added_at"]), plan["added_sides"])
    return sizes


def _condition_chance(dice: list, chosen: list, rerolled: list) -> float:
    """P(any die shows 1 after the prayer): certain when a kept die does."""
    if any(d["face"] == CONDITION_FACE for i, d in enumerate(dice) if i not in chosen):
        return 1.0
    no_one = Fraction(1)
    for s in rerolled:
        no_one *= Fraction(s - 1, s)
    return float(1 - no_one)


def _pray_odds(spec: dict, state: dict, action: dict) -> dict:
    chosen, bonus = _prayer_args(spec, state, action)
    rnd = state["rounds"][-1]
    dice = rnd["own"]["dice"]
    plan = prayer_plan(dice, chosen, bonus)
    rerolled = rerolled_sizes(dice, chosen, plan)
    fixed = sum(d["successes"] for i, d in enumerate(dice) if i not in chosen)
    dist = {v + fixed: p for v, p in side_dist(rerolled).items()}
    opp_d = None if rnd["opp"] is None else {rnd["opp"]["successes"]: Fraction(1)}
    out = _figures(*_outcome_dist(dist, opp_d), opp_d is not None)
    out.update({"condition": _condition_chance(dice, chosen, rerolled),
                "condition_type": condition_type(spec["attribute_name"]), "dice": rerolled,
                "lost": plan["lost"]})
    return out


def _tiebreak_odds(spec: dict, state: dict, action: dict) -> dict:
    _check_tiebreak(spec, state, action)
    return _fresh_odds(tiebreak_side(spec, state), spec, MAX_TIEBREAKS - len(state["rounds"]))


def _accept_odds(spec: dict, state: dict, action: dict) -> dict:
    _accept(spec, state, action, None)
    rnd = state["rounds"][-1]
    own = {rnd["own"]["successes"]: Fraction(1)}
    opp_d = None if rnd["opp"] is None else {rnd["opp"]["successes"]: Fraction(1)}
    return {**_figures(*_outcome_dist(own, opp_d), opp_d is not None), "condition": 0.0}


_STEP_ODDS = {"pray": _pray_odds, "tiebreak": _tiebreak_odds, "accept": _accept_odds}


def odds(spec: dict, result: dict | None = None, action: dict | None = None) -> dict:
    """Exact odds: the distribution of successes (net of the opponent's when
    opposed), P(success), P(2+); opposed, win / tie / lose and
    ``with_tiebreaks`` (each tie rolled again, at most ``MAX_TIEBREAKS``
    times). Given a result and a ``pray`` action, the odds after that prayer
    and P(gaining a Condition); given ``tiebreak``, the odds of that roll.

    Two d6: a success unless both miss, two successes if both hit.

    >>> o = odds(normalize({"attribute": 6, "skill": 6}))
    >>> hit = Fraction(7 - SUCCESS_ON, 6)
    >>> o["p_success"] == float(1 - (1 - hit) ** 2), o["p_bonus"] == float(hit ** 2)
    (True, True)

    Praying the d6 beside a 1 (the 1 held costs the Condition):

    >>> from rules import roll as roll_
    >>> from rules.dice import ScriptedRng
    >>> s = normalize({"attribute": 6, "skill": 6})
    >>> r = roll_("mirage", s, ScriptedRng([1, 4]))
    >>> p = odds(s, r, {"do": "pray", "dice": [1]})
    >>> p["condition"], p["p_success"] == float(hit)
    (1.0, True)
    """
    if action is None:
        check_not_broken(spec)
        return _fresh_odds(spec, spec, MAX_TIEBREAKS)
    state = state_of(spec, result)
    verb = _check_step(spec, action)
    if state.get("accepted"):
        raise SpecError("action", "the dice were accepted as they lie: no further step")
    return _STEP_ODDS[verb](spec, state, action)

