"""A Fate character: its skills on the ladder (0 to 8), each a check of
four Fate dice plus the skill against the difficulty the GM sets beside
Roll (docs/PARTY.md; docs/adding-a-game.md, "The character sheet").

>>> hero = normalize_sheet(EXAMPLE_SHEETS["hero"])
>>> [c["label"] for c in checks(hero)]
['Athletics (+2)', 'Will (+3)']
>>> check_spec(hero, checks(hero)[1], {"difficulty": 4}, None)
{'skill': 3, 'difficulty': 4}
"""

from __future__ import annotations

from typing import Any

from ..sheets import applied, normalize
from .model import DEFAULT_SPEC, TOP

__all__ = ["FIELDS", "SITUATION", "EXAMPLE_SHEETS", "normalize_sheet", "checks", "check_spec", "consequences",
           "pending"]

FIELDS = (
    {"name": "skills", "kind": "entries", "label": "Skills", "most": 20, "fields": (
        {"name": "name", "kind": "text", "label": "Skill", "required": True},
        {"name": "rating", "kind": "int", "label": "Rating", "min": 0, "max": TOP, "default": 0},
    )},
)

SITUATION = (
    {"name": "difficulty", "kind": "int", "label": "Difficulty", "min": 0, "max": TOP,
     "default": DEFAULT_SPEC["difficulty"]},
)

#: An example character (the example game has no rules text of its own).
EXAMPLE_SHEETS = {
    "hero": {"name": "Hero", "skills": [{"name": "Athletics", "rating": 2}, {"name": "Will", "rating": 3}]},
}


def normalize_sheet(sheet: Any) -> dict:
    """The sheet read through ``FIELDS``."""
    return normalize(FIELDS, sheet)


def checks(sheet: dict) -> list:
    """Every skill, its rating added to the dice."""
    return [{"name": s["name"], "label": f"{s['name']} (+{s['rating']})", "rating": s["rating"],
             "applied": [applied(f"+{s['rating']}", f"{s['name']}, added to the four dice")], "defaults": {}}
            for s in sheet["skills"]]


def check_spec(sheet: dict, check: dict, situation: dict, opponent: Any) -> dict:
    """The roll of ``check``: against an NPC, their rating is the difficulty."""
    difficulty = opponent[1]["rating"] if opponent is not None else situation["difficulty"]
    return {"skill": check["rating"], "difficulty": difficulty}


def consequences(sheet: dict, result: dict, choice: Any) -> dict:
    """Nothing a roll carries onto the sheet."""
    return sheet


def pending(sheet: dict, result: dict) -> None:
    return None
