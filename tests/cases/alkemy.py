"""ALKEMY's test cases (see ``cases``)."""

from __future__ import annotations

from rules.alkemy import model as alkemy

WORST = [
    {"characteristic": 30, "bonus": 10, "max_rerolls": 100,
     "opponent": {"characteristic": 30, "bonus": 10}},
    {"characteristic": 0, "malus": 10, "health": "red", "faces": "by_health", "max_rerolls": 100,
     "opponent": {"characteristic": 0, "malus": 10, "health": "red"}},
    {"characteristic": 30, "bonus": 10, "malus": 10, "difficulty": 99},
]

SPEC_FIELDS = list(alkemy.SPEC_KEYS)

HOSTILE_ACTION = ({"bonus": 2}, "keep")

STORE_SPECS = [{"characteristic": 5, "bonus": 2, "difficulty": 12},
               {"characteristic": 5, "opponent": {"characteristic": 5}}]


def store_step(result: dict):
    """Keep the first two dice, where the rules offer a choice."""
    return {"do": "keep", "dice": [0, 1]} if result.get("choice") else None
