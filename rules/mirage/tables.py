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
           "SUCCESS_ON", "GREAT_ON", "CONDITION_FACE", "MAX_HELPERS", "MAX_PRAYER_BONUS", "MAX_CONDITIONS",
           "DIE_SIZES", "condition_type"]

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

# The rule's numbers, each named once: the model, the odds, the advice, the
# explanation and the page read them from here.

#: "Success": a die showing this or more is a success ...
SUCCESS_ON = 6
#: ... and one showing this or more counts as two ("Multiple Successes").
GREAT_ON = 10
#: "Prayer": a die showing this may not be prayed for, and a prayed die that
#: shows it costs a Condition.
CONDITION_FACE = 1
#: "Help From Others": one step per helper, at most this many.
MAX_HELPERS = 3
#: The prayer's bonus in steps: preparatory 1, temple 2 ("Prayer").
MAX_PRAYER_BONUS = 2
#: "Conditions": at most this many of one type; one more is Broken.
MAX_CONDITIONS = 3
#: The dice, smallest to largest (RULES-NOTES Mirage 1): a lone die steps up
#: by gaining the smallest, none steps above the largest or below the smallest.
DIE_SIZES = (6, 8, 10, 12)

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
