"""Open Tale's test cases (see ``cases``)."""

from __future__ import annotations

from rules.open_tale import model as open_tale

WORST = [
    {"level": 9, "heroic": True, "modifiers": ["superiority"], "tie_break": "best", "target": 100},
    {"level": 8, "dice": [12, 10], "heroic": True, "modifiers": ["disadvantage"] * 8},
    {"level": 5, "dice": "d12 + d4", "heroic": True, "modifiers": ["inferiority", "advantage"],
     "tie_break": "smaller"},
]

SPEC_FIELDS = list(open_tale.KEYS)

HOSTILE_ACTION = ({}, "reroll")

STORE_SPECS = [{"level": 4, "heroic": True, "target": 9}, {"level": 9, "modifiers": ["advantage"]}]


def store_step(result: dict):
    """Open Tale has no step after a roll."""
    return None
