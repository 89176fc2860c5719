"""An ALKEMY figure: its characteristics and its state of health, and the
roll each characteristic makes (docs/PARTY.md).

"Jet characteristic": two dice "color indicated by the figure of the state
of health (white, yellow or red)", plus the characteristic, against a
difficulty; "in opposition" the opponent's total is the difficulty. The
health state is the sheet's: every check rolls dice of its colour, and
changing the health on the sheet changes the dice of every later roll
(with the GM's faces by health, their faces too, RULES-NOTES ALKEMY 1).

No roll in the rules text changes a figure's health (the damage that would
is not in it): the GM sets it on the sheet (docs/RULES-DECISIONS.md, "Character sheets").

>>> patrick, ghulam = normalize_sheet(EXAMPLE_SHEETS["patrick"]), normalize_sheet(EXAMPLE_SHEETS["ghulam"])
>>> [c["label"] for c in checks(patrick)], checks(ghulam)[0]["value"]
(['Reflex (2)'], 5)
>>> checks(normalize_sheet({**EXAMPLE_SHEETS["patrick"], "health": "yellow"}))[0]["applied"][1]
{'what': 'yellow dice', 'why': 'health: yellow'}
"""

from __future__ import annotations

from typing import Any

from ..sheets import applied, normalize
from .model import DEFAULT_SPEC, MAX_BONUS, MAX_CHARACTERISTIC, MAX_DIFFICULTY
from .tables import HEALTH

__all__ = ["FIELDS", "SITUATION", "EXAMPLE_SHEETS", "normalize_sheet", "checks", "check_spec", "consequences",
           "pending"]

FIELDS = (
    {"name": "characteristics", "kind": "entries", "label": "Characteristics", "most": 20, "fields": (
        {"name": "name", "kind": "text", "label": "Characteristic", "required": True},
        {"name": "value", "kind": "int", "label": "Value", "min": 0, "max": MAX_CHARACTERISTIC, "default": 0},
    )},
    {"name": "health", "kind": "choice", "label": "Health (the dice's colour)", "default": "white", "play": True,
     "choices": tuple((h, h.capitalize()) for h in HEALTH)},
)

SITUATION = (
    {"name": "difficulty", "kind": "int", "label": "Difficulty", "min": 0, "max": MAX_DIFFICULTY,
     "default": DEFAULT_SPEC["difficulty"]},
    {"name": "bonus", "kind": "int", "label": "Bonus dice", "min": 0, "max": MAX_BONUS, "default": 0},
    {"name": "malus", "kind": "int", "label": "Malus dice", "min": 0, "max": MAX_BONUS, "default": 0},
)

#: The rules text's own figures ("Jet characteristic" and "in opposition").
EXAMPLE_SHEETS = {
    "tecumseh": {"name": "Tecum'Seh", "player": "Julien", "characteristics": [{"name": "Spirit", "value": 8}]},
    "patrick": {"name": "Patrick", "characteristics": [{"name": "Reflex", "value": 2}]},
    "ghulam": {"name": "Ghulam Suleman", "player": "Nicolas", "npc": True,
               "characteristics": [{"name": "Reflex", "value": 5}]},
}


def normalize_sheet(sheet: Any) -> dict:
    """The sheet read through ``FIELDS``."""
    return normalize(FIELDS, sheet)


def checks(sheet: dict) -> list:
    """Every characteristic, with the health's dice."""
    colour = sheet["health"]
    return [{"name": c["name"], "label": f"{c['name']} ({c['value']})", "value": c["value"], "health": colour,
             "applied": [applied(f"+{c['value']}", f"{c['name']}, added to the two dice"),
                         applied(f"{colour} dice", f"health: {colour}")], "defaults": {}}
            for c in sheet["characteristics"]]


def check_spec(sheet: dict, check: dict, situation: dict, opponent: tuple | None) -> dict:
    """The roll of ``check`` (DESIGN.md's spec keys)."""
    spec = {"characteristic": check["value"], "health": sheet["health"],
            "bonus": situation["bonus"], "malus": situation["malus"]}
    if opponent is None:
        spec["difficulty"] = situation["difficulty"]
    else:
        spec["opponent"] = {"characteristic": opponent[1]["value"], "health": opponent[0]["health"]}
    return spec


def consequences(sheet: dict, result: dict, choice: Any) -> dict:
    """Nothing a roll carries onto the sheet (module docstring)."""
    return sheet


def pending(sheet: dict, result: dict) -> None:
    return None
