"""Mirage's tables: the data its rules text gives (skills, difficulty,
Conditions) and the level legend it does not (RULES-NOTES Mirage 1), read
from ``tables.json`` beside this file, and the few names both the model and
the explanation read.

>>> SKILLS["shadowcraft"], CONDITION_NAMES["physical"][0] != ""
('agility', True)
"""

from __future__ import annotations

import json
import os

__all__ = ["TABLES", "LEGEND", "ATTRIBUTES", "SKILLS", "DIFFICULTY", "CONDITION_NAMES", "MAX_TIEBREAKS",
           "condition_type"]

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tables.json"),
          encoding="utf-8") as _f:
    #: The data the text gives (skills, difficulty, Conditions) and the level
    #: legend it does not (RULES-NOTES Mirage 1).
    TABLES = json.load(_f)

#: Level -> die size, the default legend (RULES-NOTES Mirage 1).
LEGEND = {int(k): v for k, v in TABLES["legend"].items()}
ATTRIBUTES = tuple(TABLES["attributes"])
#: Core skill -> its attribute ("Core Skills").
SKILLS = dict(TABLES["skills"])
#: Difficulty name -> step modifier ("Difficulty" table).
DIFFICULTY = dict(TABLES["difficulty"])
#: Condition type -> the three Condition names ("Conditions").
CONDITION_NAMES = {k: tuple(v) for k, v in TABLES["conditions"].items()}

#: "If a tie needs to be broken, re-roll the opposed roll": at most this many
#: times on one roll (bounded work, within the 24 stages a result may hold);
#: still tied then, the GM decides.
MAX_TIEBREAKS = 20


def condition_type(attribute_name: str) -> str:
    """Conditions: physical for Strength and Agility, mental for Wits and
    Empathy ("The Cost of Unanswered Prayer").

    >>> condition_type("agility"), condition_type("wits")
    ('physical', 'mental')
    """
    return "physical" if attribute_name in ("strength", "agility") else "mental"
