"""Milhamah's test cases (see ``cases``)."""

from __future__ import annotations

ALL12 = {"red": 4, "green": 4, "blue": 4}

WORST = [
    {"shoresh": "אבגד", "pool": ALL12, "rerolls": 12, "bonus_rerolls": 12, "rounds": 4,
     "cipher": 12, "difficulty": 24, "pocketed": 12,
     "opponent": {"shoresh": "אבגד", "pool": ALL12, "bonus_rerolls": 12, "rounds": 4,
                  "cipher": 12, "shorashim": ["אבג", "דהו", "זחט", "יכל", "מנס", "עפצ", "קרש", "תאב"]}},
    {"shoresh": "אבג", "pool": {"red": 4, "green": 4}, "rerolls": 6, "rounds": 4},
    {"shoresh": "חנן", "pool": ALL12, "rerolls": 6, "rounds": 4},
    {"shoresh": "ממממ", "pool": ALL12, "rerolls": 12, "bonus_rerolls": 12, "rounds": 4,
     "reaction": True},
]

SPEC_FIELDS = ["shoresh", "pool", "dice_change", "forbid", "reaction", "rerolls", "bonus_rerolls",
               "rounds", "cipher", "difficulty", "combat", "combat_step", "first_bonus",
               "pocketed", "modifier_to_x", "opponent"]

#: Milhamah's hostile action arguments: see test_properties.py.
HOSTILE_ACTION = None

STORE_SPECS = [{"shoresh": "אשר", "rerolls": 3},
               {"shoresh": "אשר", "rerolls": 3, "opponent": {"shoresh": "שלם", "rerolls": 2}}]


def store_step(result: dict):
    """The advised reroll, where there is one."""
    return {"do": "reroll", "dice": result["best_reroll"]} if result.get("best_reroll") else None
