"""A Jadeclaw character: its Trait Dice and its Skills, and the Simple Roll
each of its checks makes (docs/PARTY.md).

"Kinds of Dice": Trait Dice are the Basic Traits (Body, Speed, Mind,
Will), the Race Trait and the Career Trait; Skill Dice come from the
Skill's Level ("Summary of Levels and Bonuses", ``model.level_pool``), and
its Quality from the same Level ("Every 5 Levels of Skill improves
Quality", RULES-NOTES Jadeclaw 5). "When are Trait Dice included with Skill
Dice?": a Race or Career Trait written to be included with a Skill always
is (the Skill's ``includes``); a Basic Trait depends on circumstance, so the
Skill names the one it usually takes (``trait``) and the roll may name
another (the situation's ``trait``). Favored Uses are listed with the Skill;
whether this roll is one is the situation's ``favored`` ("Favored Rolls").

A check is a Skill (its Trait, the Traits it includes, its Skill Dice, its
Quality) or a Trait alone. Against an NPC's check, the NPC's dice and
Quality are the opposing dice ("Quality Makes a Difference"); otherwise the
situation's Difficulty ("How big should Difficulty Dice be?").

No roll here changes a Jadeclaw sheet: Wounds and Reeling follow the
Combat chapter's rules, which the rules text does not give (docs/RULES-DECISIONS.md,
"Character sheets": the GM keeps them).

>>> wu, father = EXAMPLE_SHEETS["wu"], EXAMPLE_SHEETS["father"]
>>> [c["label"] for c in checks(normalize_sheet(wu))]
['Fast-Talk (Will)', 'Will']
>>> [c["dice"] for c in checks(normalize_sheet(father))][0], checks(normalize_sheet(father))[0]["quality"]
([12, 8, 4], 'expert')
"""

from __future__ import annotations

from typing import Any

from ..dice import MAX_POOL, SpecError, format_pool
from ..sheets import applied, key_of, normalize
from .model import DIFFICULTIES, MAX_LEVEL, MAX_MODS, level_pool, quality_name

__all__ = ["FIELDS", "SITUATION", "EXAMPLE_SHEETS", "OPPOSES", "BASIC_TRAITS", "normalize_sheet", "checks", "check_spec",
           "consequences", "pending"]

#: "You have your Basic Trait Dice of Body, Speed, Mind, and Will".
BASIC_TRAITS = ("body", "speed", "mind", "will")
#: The Race and Career Traits ("Kinds of Dice").
OTHER_TRAITS = ("race", "career")
TRAIT_TITLES = {"body": "Body", "speed": "Speed", "mind": "Mind", "will": "Will", "race": "Race",
                "career": "Career"}
#: A Trait is a few dice at most (the text's are one die).
MOST_TRAIT_DICE = 4

FIELDS = (
    {"name": "traits", "kind": "group", "label": "Trait Dice", "fields": tuple(
        {"name": t, "kind": "dice", "label": TRAIT_TITLES[t], "most": MOST_TRAIT_DICE}
        for t in BASIC_TRAITS + OTHER_TRAITS)},
    {"name": "race", "kind": "text", "label": "Race (names the Race Trait)"},
    {"name": "career", "kind": "text", "label": "Career (names the Career Trait)"},
    {"name": "skills", "kind": "entries", "label": "Skills", "fields": (
        {"name": "name", "kind": "text", "label": "Skill", "required": True},
        {"name": "level", "kind": "int", "label": "Level", "min": 1, "max": MAX_LEVEL, "default": 1},
        {"name": "trait", "kind": "choice", "label": "Basic Trait it takes", "default": "none",
         "choices": (("none", "none"),) + tuple((t, TRAIT_TITLES[t]) for t in BASIC_TRAITS)},
        {"name": "includes", "kind": "picks", "label": "Always includes", "default": (),
         "choices": tuple((t, TRAIT_TITLES[t]) for t in OTHER_TRAITS)},
        {"name": "favored_uses", "kind": "texts", "label": "Favored Uses"},
    )},
)

#: What a roll of a check may change, beside Roll (defaults: the form's).
SITUATION = (
    {"name": "trait", "kind": "choice", "label": "Basic Trait", "default": "none",
     "choices": (("none", "none"),) + tuple((t, TRAIT_TITLES[t]) for t in BASIC_TRAITS)},
    {"name": "difficulty", "kind": "choice", "label": "Difficulty", "default": "routine",
     "choices": (("none", "none (a Score)"),) + tuple(
         (k, f"{k.replace('_', ' ').capitalize()} ({format_pool(v)})") for k, v in DIFFICULTIES.items())},
    {"name": "bonuses", "kind": "int", "label": "Bonuses", "min": 0, "max": MAX_MODS, "default": 0},
    {"name": "penalties", "kind": "int", "label": "Penalties", "min": 0, "max": MAX_MODS, "default": 0},
    {"name": "favored", "kind": "bool", "label": "Favored (a Favored Use)"},
)

#: Checks the rules text sets against each other ("a contest of Fast-Talk
#: Dice vs. Psychology Dice"): against an NPC, the check of theirs the
#: party picks for one of these (else the one of the same name, as
#: "Oratory Dice vs. another's Oratory Dice").
OPPOSES = {"fast-talk": ("psychology",)}

#: The rules text's own characters ("Quality Makes a Difference", Mai Li's
#: Bonus, the Combination Rolls example's Resolve Test).
EXAMPLE_SHEETS = {
    "wu": {"name": "Wu Shousu", "traits": {"will": "d10"},
           "skills": [{"name": "Fast-Talk", "level": 5, "trait": "will"}]},
    "father": {"name": "Wu's father", "npc": True, "traits": {"mind": "d8"},
               "skills": [{"name": "Psychology", "level": 6, "trait": "mind"}]},
    "mai_li": {"name": "Mai Li", "traits": {"mind": "d10"},
               "skills": [{"name": "Fast-Talk", "level": 2, "trait": "mind"}]},
    "jupi": {"name": "Jupi", "traits": {"will": "d10"},
             "skills": [{"name": "Resolve", "level": 2, "trait": "will"}]},
}


def normalize_sheet(sheet: Any) -> dict:
    """The sheet read through ``FIELDS``; no Skill may share a Trait's name
    (each check is found by its name).

    >>> normalize_sheet({"name": "Wu", "skills": [{"name": "Will"}]})
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: skills.0.name: 'Will' is a Trait's name; call the Skill something else
    """
    out = normalize(FIELDS, sheet)
    traits = {key_of(n) for n in _trait_names(out).values()}
    for i, skill in enumerate(out["skills"]):
        if key_of(skill["name"]) in traits:
            raise SpecError(f"skills.{i}.name", f"{skill['name']!r} is a Trait's name; call the Skill something else")
        if len(_skill_dice(out, skill, skill["trait"])) > MAX_POOL:
            raise SpecError(f"skills.{i}.level", f"with its Traits makes more than {MAX_POOL} dice")
    return out


def _trait_names(sheet: dict) -> dict:
    """Trait -> the name its check goes by (a Race or Career by its name)."""
    return {t: (sheet.get(t) if t in OTHER_TRAITS and sheet.get(t) else TRAIT_TITLES[t])
            for t in BASIC_TRAITS + OTHER_TRAITS}


def _skill_dice(sheet: dict, skill: dict, trait: str) -> list:
    """The dice a Skill rolls: its Basic Trait's, the Traits it always
    includes, and its Skill Dice (largest first)."""
    dice = list(sheet["traits"].get(trait, [])) if trait != "none" else []
    for t in skill["includes"]:
        dice += sheet["traits"][t]
    return sorted(dice + level_pool(skill["level"]), reverse=True)


def _skill_check(sheet: dict, skill: dict) -> dict:
    trait = skill["trait"]
    names = _trait_names(sheet)
    parts = [applied(format_pool(sheet["traits"][t]), f"{names[t]} Trait")
             for t in ((trait,) if trait != "none" else ()) + tuple(skill["includes"]) if sheet["traits"][t]]
    quality = quality_name(skill["level"])
    parts.append(applied(format_pool(level_pool(skill["level"])), f"{skill['name']} Skill, level {skill['level']}"))
    parts.append(applied(quality.capitalize(), f"Quality of level {skill['level']}"))
    label = f"{skill['name']} ({TRAIT_TITLES[trait]})" if trait != "none" else skill["name"]
    return {"name": skill["name"], "label": label, "dice": _skill_dice(sheet, skill, trait), "quality": quality,
            "applied": parts, "favored_uses": list(skill["favored_uses"]), "defaults": {"trait": trait}}


def _trait_check(sheet: dict, trait: str, name: str) -> dict:
    dice = list(sheet["traits"][trait])
    return {"name": name, "label": name, "dice": dice, "quality": None,
            "applied": [applied(format_pool(dice), f"{name} Trait")], "favored_uses": [], "defaults": {}}


def checks(sheet: dict) -> list:
    """Every Skill (with its Trait), then every Trait that has dice, alone."""
    names = _trait_names(sheet)
    return ([_skill_check(sheet, s) for s in sheet["skills"]]
            + [_trait_check(sheet, t, names[t]) for t in BASIC_TRAITS + OTHER_TRAITS if sheet["traits"][t]])


def _dice_of(sheet: dict, check: dict, situation: dict) -> list:
    """A Skill's dice with the situation's Basic Trait (a Trait check's own)."""
    for skill in sheet["skills"]:
        if skill["name"] == check["name"]:
            return _skill_dice(sheet, skill, situation["trait"])
    return list(check["dice"])


def check_spec(sheet: dict, check: dict, situation: dict, opponent: tuple | None) -> dict:
    """The Simple Roll of ``check`` (DESIGN.md's spec keys)."""
    spec = {"kind": "simple", "dice": _dice_of(sheet, check, situation), "quality": check["quality"],
            "bonuses": situation["bonuses"], "penalties": situation["penalties"], "favored": situation["favored"]}
    if opponent is not None:
        spec["opponent"] = list(opponent[1]["dice"])
        spec["opponent_quality"] = opponent[1]["quality"]
    elif situation["difficulty"] != "none":
        spec["difficulty"] = situation["difficulty"]
    return spec


def consequences(sheet: dict, result: dict, choice: Any) -> dict:
    """Nothing a Jadeclaw roll here carries onto the sheet (module docstring)."""
    return sheet


def pending(sheet: dict, result: dict) -> None:
    """No choice after a roll."""
    return None
