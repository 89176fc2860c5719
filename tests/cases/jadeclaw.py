"""Jadeclaw's test cases (see ``cases``)."""

from __future__ import annotations

from rules.jadeclaw import model as jadeclaw

WORST = [
    {"dice": "40d12", "penalties": 20, "favored": True, "opponent": "40d12",
     "quality": 200, "opponent_quality": "mythic"},
    {"level": 60, "include": "8d12", "limit": 12, "bonuses": 20, "remove": 16},
    {"kind": "damage", "dice": "40d12", "soak": "40d12", "favored": True},
    {"kind": "damage", "dice": "5d12 & 5d4", "damage_type": "normal"},
    {"kind": "damage", "dice": "10d12 & 10d10 & 10d8 & 10d6", "damage_type": "slaying"},
    {"kind": "damage", "dice": "3d12 & 3d10", "soak": "2d12", "favored": True,
     "damage_type": "enervated"},
    {"kind": "damage", "dice": "40d12", "soak": {"faces": [12] * 40}, "favored": True},
    {"kind": "damage", "dice": "40d12", "soak": "40d12", "penalties": 20},
    {"dice": "40d12", "penalties": 20, "favored": True, "opponent": "40d12", "opponent_penalties": 20,
     "opponent_favored": True, "opponent_limit": 12},
    {"dice": "d4", "difficulty": "for_legends_only", "opponent_bonuses": 20, "opponent_penalties": 0,
     "opponent_favored": True},
    {"kind": "damage", "dice": "40d12", "favored": True, "soak": "30d12", "soak_favored": True,
     "soak_bonuses": 1, "soak_limit": 12},
    {"kind": "damage", "dice": "3d12 & 3d10", "favored": True, "soak": "3d12 & 3d10", "soak_favored": True,
     "soak_penalties": 1},
]

SPEC_FIELDS = list(jadeclaw.KEYS)

HOSTILE_ACTION = ({}, "reroll")

STORE_SPECS = [{"dice": "2d12 & d4", "difficulty": "routine", "penalties": 1},
               {"kind": "damage", "dice": [12, 10, 8], "soak": [8, 6]}]


def store_step(result: dict):
    """No step taken in the stored history."""
    return None
