"""Mirage's test cases (see ``cases``)."""

from __future__ import annotations

from rules.mirage import model as mirage

WORST = [
    {"attribute": 12, "skill": 12, "gear": [12] * 6, "modifier": 12, "helpers": 3,
     "difficulty": "trivial",
     "opponent": {"attribute": 12, "skill": 12, "gear": [12] * 6, "modifier": 12, "helpers": 3}},
    {"attribute": 6, "modifier": -12, "difficulty": "formidable",
     "conditions": {"physical": 3, "mental": 3}, "gear": [6] * 6},
]

SPEC_FIELDS = list(mirage.SPEC_KEYS)

HOSTILE_ACTION = ({"attribute": 8, "skill": 6}, "pray")

STORE_SPECS = [{"attribute": 10, "attribute_name": "wits", "skill": 8, "gear": [6], "difficulty": "average"}]


def store_step(result: dict):
    """A prayer on up to two dice that are not 1, where the rules offer one."""
    if not result.get("can_pray"):
        return None
    ok = [i for i, d in enumerate(result["dice"]) if d["face"] != 1][:2]
    return {"do": "pray", "dice": ok, "bonus": 1} if ok else None
