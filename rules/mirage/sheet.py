"""A Mirage character: its four attributes, the twelve core skills, gear,
Conditions and a session's prayer, and the roll each skill makes (README,
"The party").

"Roll the Dice": a skill roll is the skill's die and the die of the
attribute the skill is tied to ("Core Skills"); without the skill, the
attribute's die alone ("No Skill?"). Dice are given as sizes (RULES-NOTES
Mirage 1). "Gear can give positive modifiers or even additional dice": a
piece of gear names the skills it serves, its gear dice and its step
modifier. "Conditions": each physical Condition is −1 to rolls using
Strength or Agility, each mental one −1 to Wits or Empathy; a fourth of a
type is Broken. "Preparatory Prayer and Chapels": +1 (a temple +2) on the
re-rolls of any prayer for the rest of the session, so it is the sheet's.

A consequence the rules give, carried here: "The Cost of Unanswered
Prayer". After a prayer that leaves a 1, the character gains a Condition of
the rolled attribute's type, "of your choice": ``consequences`` records the
one the player names (``pending`` lists those left), or Broken when all
three of that type are held already. Conditions gained by failing a test
("for example, during combat") are the GM's to add on the sheet.

>>> s = normalize_sheet(EXAMPLE_SHEETS["scout"])
>>> [c["label"] for c in checks(s)][:3]
['Might (Strength)', 'Shadowcraft (Agility)', 'Observation (Wits)']
>>> battered = normalize_sheet({**EXAMPLE_SHEETS["scout"], "conditions": ["battered"]})
>>> [a for c in checks(battered) if c["name"] == "Might" for a in c["applied"]]
[{'what': '2d6', 'why': 'Strength d6, Might d6'}, {'what': '−1', 'why': '1 physical Condition (Battered)'}]
"""

from __future__ import annotations

from typing import Any

from ..dice import SpecError, format_pool
from ..sheets import applied, normalize, signed
from .model import BASE_SIZES, MAX_GEAR, MAX_MODIFIER
from .tables import ATTRIBUTES, CONDITION_NAMES, DIFFICULTY, SKILLS, condition_type

__all__ = ["FIELDS", "SITUATION", "EXAMPLE_SHEETS", "OPPOSES", "normalize_sheet", "checks", "check_spec", "consequences",
           "pending", "title"]

PRAYER_BONUSES = ((0, "none"), (1, "+1: a preparatory prayer"), (2, "+2: prayed in a temple"))
ALL_CONDITIONS = tuple(n for kind in ("physical", "mental") for n in CONDITION_NAMES[kind])


def title(key: str) -> str:
    """A table's key as the text writes it: ``survival_instincts`` ->
    "Survival Instincts"."""
    return key.replace("_", " ").title()


FIELDS = (
    {"name": "attributes", "kind": "group", "label": "Attributes", "fields": tuple(
        {"name": a, "kind": "size", "label": title(a), "sizes": BASE_SIZES, "default": 6} for a in ATTRIBUTES)},
    {"name": "skills", "kind": "group", "label": "Core skills (0: none)", "fields": tuple(
        {"name": s, "kind": "size", "label": f"{title(s)} ({title(a)})", "sizes": BASE_SIZES, "zero": True,
         "default": 0} for s, a in SKILLS.items())},
    {"name": "gear", "kind": "entries", "label": "Gear", "most": 12, "fields": (
        {"name": "name", "kind": "text", "label": "Gear", "required": True},
        {"name": "dice", "kind": "dice", "label": "Gear dice", "sizes": BASE_SIZES, "most": MAX_GEAR},
        {"name": "modifier", "kind": "int", "label": "Modifier (steps)", "min": -3, "max": 3, "default": 0},
        {"name": "skills", "kind": "picks", "label": "For the skills", "default": (),
         "choices": tuple((s, title(s)) for s in SKILLS)},
    )},
    {"name": "conditions", "kind": "picks", "label": "Conditions", "default": (), "play": True,
     "choices": tuple((n, title(n)) for n in ALL_CONDITIONS)},
    {"name": "broken", "kind": "bool", "label": "Broken", "play": True},
    {"name": "prayer_bonus", "kind": "choice", "label": "Prayer this session", "default": 0, "play": True,
     "choices": PRAYER_BONUSES},
)

SITUATION = (
    {"name": "attribute", "kind": "choice", "label": "Attribute", "default": "strength",
     "choices": tuple((a, title(a)) for a in ATTRIBUTES)},
    {"name": "difficulty", "kind": "choice", "label": "Difficulty", "default": "average",
     "choices": tuple((k, f"{title(k)} ({signed(v)})") for k, v in DIFFICULTY.items())},
    {"name": "helpers", "kind": "int", "label": "Helpers", "min": 0, "max": 3, "default": 0},
    {"name": "modifier", "kind": "int", "label": "Other modifier", "min": -MAX_MODIFIER, "max": MAX_MODIFIER,
     "default": 0},
    {"name": "gear", "kind": "bool", "label": "With gear", "default": True},
    {"name": "passive", "kind": "bool", "label": "Passive (no prayer)"},
)

#: Skills the rules text sets against each other ("Opposed Rolls":
#: "Inspiration versus Intuition", "Shadowcraft versus Observation"):
#: against an NPC, the skill of theirs the party picks for one of these
#: (else the same skill).
OPPOSES = {"shadowcraft": ("observation",), "inspiration": ("intuition",)}

#: The rules text gives no character with numbers ("Opposed Rolls" names
#: "Shadowcraft versus Observation to move undetected past a vigilant
#: guard"): a plain scout and her guard, the form's own default roll.
EXAMPLE_SHEETS = {
    "scout": {"name": "Scout", "attributes": {"strength": "d6", "agility": "d10", "wits": "d8", "empathy": "d6"},
              "skills": {"shadowcraft": "d8", "might": "d6", "observation": "d6"}},
    "guard": {"name": "Vigilant guard", "npc": True,
              "attributes": {"strength": "d8", "agility": "d6", "wits": "d8", "empathy": "d6"},
              "skills": {"observation": "d8", "bladework": "d8"}},
}


def normalize_sheet(sheet: Any) -> dict:
    """The sheet read through ``FIELDS``; at most three Conditions of a
    type ("Conditions" names three of each)."""
    return normalize(FIELDS, sheet)


def _held(sheet: dict, kind: str) -> list:
    return [n for n in CONDITION_NAMES[kind] if n in sheet["conditions"]]


def _gear(sheet: dict, skill: str) -> list:
    return [g for g in sheet["gear"] if skill in g["skills"]]


def _base(sheet: dict, skill: str, attribute: str) -> dict:
    """The base dice ("Roll the Dice"): the attribute's and the skill's."""
    a, s = sheet["attributes"][attribute], sheet["skills"][skill]
    why = f"{title(attribute)} d{a}, " + (f"{title(skill)} d{s}" if s else f"no {title(skill)} (\"No Skill?\")")
    return applied(format_pool([a] + ([s] if s else [])), why)


def _applied(sheet: dict, skill: str, attribute: str) -> list:
    kind = condition_type(attribute)
    held = _held(sheet, kind)
    out = [_base(sheet, skill, attribute)]
    if held:
        out.append(applied(signed(-len(held)), f"{len(held)} {kind} Condition{'s' * (len(held) > 1)} "
                                                f"({', '.join(title(n) for n in held)})"))
    if sheet["broken"]:
        out.append(applied("no roll", "Broken: no actions until a Condition heals"))
    out += _gear_applied(sheet, skill)
    if sheet["prayer_bonus"]:
        out.append(applied(f"+{sheet['prayer_bonus']} on a prayer", dict(PRAYER_BONUSES)[sheet["prayer_bonus"]][4:]))
    return out


def _gear_applied(sheet: dict, skill: str) -> list:
    """What the gear that serves ``skill`` adds: its dice, its modifier."""
    out = []
    for g in _gear(sheet, skill):
        if g["dice"]:
            out.append(applied(f"+{format_pool(g['dice'])}", f"{g['name']} (gear dice)"))
        if g["modifier"]:
            out.append(applied(signed(g["modifier"]), f"{g['name']} (gear)"))
    return out


def checks(sheet: dict) -> list:
    """Every core skill, with its attribute: those the character has
    first, then the rest (a skill at 0 rolls the attribute's die alone,
    "No Skill?")."""
    order = sorted(SKILLS.items(), key=lambda sa: not sheet["skills"][sa[0]])
    return [{"name": title(s), "label": f"{title(s)} ({title(a)})", "skill": s,
             "dice": [sheet["attributes"][a]] + ([sheet["skills"][s]] if sheet["skills"][s] else []),
             "applied": _applied(sheet, s, a), "defaults": {"attribute": a}} for s, a in order]


def _side(sheet: dict, check: dict, situation: dict) -> dict:
    """One side's spec keys for ``check`` (the roller's or the opponent's)."""
    a, skill = situation["attribute"], check["skill"]
    gear = _gear(sheet, skill) if situation["gear"] else []
    return {"attribute": sheet["attributes"][a], "attribute_name": a, "skill": sheet["skills"][skill],
            "skill_name": skill, "gear": sorted((s for g in gear for s in g["dice"]), reverse=True),
            "conditions": {kind: len(_held(sheet, kind)) for kind in ("physical", "mental")}
            | {"broken": sheet["broken"]},
            "modifier": max(-MAX_MODIFIER, min(MAX_MODIFIER, situation["modifier"] + sum(g["modifier"] for g in gear)))}


def check_spec(sheet: dict, check: dict, situation: dict, opponent: tuple | None) -> dict:
    """The skill roll of ``check`` (DESIGN.md's spec keys)."""
    spec = {**_side(sheet, check, situation), "difficulty": situation["difficulty"],
            "helpers": situation["helpers"], "passive": situation["passive"],
            "prayer_bonus": sheet["prayer_bonus"]}
    if len(spec["gear"]) > MAX_GEAR:
        raise SpecError("gear", f"at most {MAX_GEAR} gear dice on one roll")
    if opponent is not None:
        npc, npc_check = opponent
        spec["opponent"] = _side(npc, npc_check, {"attribute": npc_check["defaults"]["attribute"],
                                                  "gear": True, "modifier": 0})
    return spec


def pending(sheet: dict, result: dict) -> dict | None:
    """The choice a roll leaves: after a prayer that left a 1, which
    Condition of its type ("a physical condition of your choice"); None
    when there is none, or none is left to choose (then Broken)."""
    kind = result.get("condition_gained")
    if kind not in ("physical", "mental"):
        return None
    free = [n for n in CONDITION_NAMES[kind] if n not in sheet["conditions"]]
    if not free:
        return None
    return {"prompt": f"The prayer left a 1: {sheet['name']} gains a {kind} Condition. Which?",
            "choices": [[n, title(n)] for n in free]}


def consequences(sheet: dict, result: dict, choice: Any) -> dict:
    """The sheet after ``result``: the Condition a prayer cost, named by
    ``choice``, or Broken when the type's three are held already."""
    ask = pending(sheet, result)
    if result.get("condition_gained") in ("physical", "mental") and ask is None:
        return {**sheet, "broken": True}
    if ask is None:
        return sheet
    chosen = _chosen(ask, result, choice)
    return {**sheet, "conditions": [n for n in ALL_CONDITIONS if n in sheet["conditions"] or n == chosen]}


def _chosen(ask: dict, result: dict, choice: Any) -> str:
    """The Condition ``choice`` names among those ``ask`` offers (case and
    spacing at either end aside), or a SpecError listing them."""
    names = [c[0] for c in ask["choices"]]
    if not isinstance(choice, str) or choice.strip().casefold() not in names:
        raise SpecError("choice", f"name the {result['condition_gained']} Condition: "
                        + ", ".join(title(n) for n in names))
    return choice.strip().casefold()
