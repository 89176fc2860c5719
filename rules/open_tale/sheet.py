"""An Open Tale character: its attributes (each a level, and the pair of
dice the player likes to roll) and the Heroic Badge (docs/PARTY.md).

"3. Roll system": an attribute's power is 6 + 2 × its level, and a roll is
two dice summing to it (the player's choice each time: the sheet's pair,
or the most even one). "3.1. Heroism": "Characters cannot carry more than
one Heroic Badge at a time"; spent "in the beginning of the player's
turns", it adds a d4 to every roll of that turn.

Open Tale has no opposed roll. Against an NPC's attribute the roll aims at
the score that attribute is expected to reach half of the time: its
"expected minimum score", neutral and without Heroism, which the text's
rule of thumb gives as level + 5 and its table confirms ("3.4. Expected
scores": "useful to design appropriate challenges as a GM").

A consequence carried here: the first roll that uses the Heroic d4 spends
the badge the sheet holds; later rolls of that turn take the d4 from the
roll's own ``heroic`` with no badge left to spend (docs/RULES-DECISIONS.md,
"Character sheets").

>>> hero = normalize_sheet(EXAMPLE_SHEETS["swordsman"])
>>> [c["label"] for c in checks(hero)]
['Strength (level 5: 2d8)', 'Agility (level 3: d8 + d4)']
"""

from __future__ import annotations

from typing import Any

from ..dice import SpecError
from ..sheets import applied, normalize
from .model import SCORE_BOUND, even_pair, valid_pairs
from .terms import MODIFIERS, NET_NAMES, pair_text, power

__all__ = ["FIELDS", "SITUATION", "EXAMPLE_SHEETS", "RULE_OF_THUMB", "normalize_sheet", "checks", "check_spec",
           "consequences", "pending", "npc_target"]

#: "As a rule of thumb, for an attribute level X, the expected minimum
#: score is X + 5" ("3.4. Expected scores").
RULE_OF_THUMB = 5

FIELDS = (
    {"name": "attributes", "kind": "entries", "label": "Attributes", "most": 20, "fields": (
        {"name": "name", "kind": "text", "label": "Attribute", "required": True},
        {"name": "level", "kind": "int", "label": "Level", "min": 1, "max": 9, "default": 1},
        {"name": "dice", "kind": "dice", "label": "Pair rolled (blank: the most even)", "most": 2},
    )},
    {"name": "heroic_badge", "kind": "bool", "label": "Heroic Badge", "play": True},
)

SITUATION = (
    {"name": "modifier", "kind": "choice", "label": "Modifier", "default": "neutral",
     "choices": tuple((NET_NAMES[n], f"{NET_NAMES[n].capitalize()} ({n:+d})" if n else "Neutral")
                      for n in (-2, -1, 0, 1, 2))},
    {"name": "heroic", "kind": "bool", "label": "Heroic d4 this turn"},
    {"name": "target", "kind": "int", "label": "Target (0: none)", "min": 0, "max": SCORE_BOUND, "default": 0},
)

#: "A character is going perform an attack with a long sword and his
#: strength is at level 5" ("3. Roll system"); the text names no other, so
#: a plain bandit to face him.
EXAMPLE_SHEETS = {
    "swordsman": {"name": "Swordsman", "heroic_badge": True,
                  "attributes": [{"name": "Strength", "level": 5}, {"name": "Agility", "level": 3, "dice": "d8, d4"}]},
    "bandit": {"name": "Bandit", "npc": True, "attributes": [{"name": "Strength", "level": 4}]},
}


def normalize_sheet(sheet: Any) -> dict:
    """The sheet read through ``FIELDS``; a pair must sum to its level's
    power (blank: the most even pair)."""
    out = normalize(FIELDS, sheet)
    for i, a in enumerate(out["attributes"]):
        pairs = valid_pairs(a["level"])
        if not a["dice"]:
            a["dice"] = list(even_pair(a["level"]))
        elif tuple(a["dice"]) not in pairs:
            raise SpecError(f"attributes.{i}.dice", f"level {a['level']} has power {power(a['level'])}: "
                            + ", ".join(pair_text(p) for p in pairs))
    return out


def npc_target(level: int) -> int:
    """The score an NPC's attribute sets against a roll (module docstring).

    >>> npc_target(4), npc_target(9)
    (9, 14)
    """
    return level + RULE_OF_THUMB


def checks(sheet: dict) -> list:
    """Every attribute, with its pair."""
    out = []
    for a in sheet["attributes"]:
        parts = [applied(pair_text(a["dice"]), f"level {a['level']}, power {power(a['level'])}")]
        if sheet["heroic_badge"]:
            parts.append(applied("Heroic Badge", "held: spend it for a d4 on every roll this turn"))
        out.append({"name": a["name"], "label": f"{a['name']} (level {a['level']}: {pair_text(a['dice'])})",
                    "level": a["level"], "dice": list(a["dice"]), "target": npc_target(a["level"]),
                    "applied": parts, "defaults": {}})
    return out


def check_spec(sheet: dict, check: dict, situation: dict, opponent: tuple | None) -> dict:
    """The roll of ``check`` (DESIGN.md's spec keys); against an NPC, its
    attribute's expected minimum score is the target."""
    target = opponent[1]["target"] if opponent is not None else (situation["target"] or None)
    net = situation["modifier"]
    return {"level": check["level"], "dice": list(check["dice"]), "heroic": situation["heroic"],
            "modifiers": [net] if net in MODIFIERS else [], "target": target,
            "tie_break": "target" if target else "best"}


def consequences(sheet: dict, result: dict, choice: Any) -> dict:
    """A roll with the Heroic d4 spends the badge the sheet holds."""
    if sheet["heroic_badge"] and (result.get("spec") or {}).get("heroic"):
        return {**sheet, "heroic_badge": False}
    return sheet


def pending(sheet: dict, result: dict) -> None:
    return None
