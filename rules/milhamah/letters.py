"""Milhamah's letters: the dice's data (``dice.json`` beside this file: the
22 letters, their names, the final forms, the wild, each colour's dice),
checked as it is read, and a shoresh as it is written: the names both the
model and the explanation read.

>>> len(LETTERS), COLOURS, written("חננ")
(22, ('red', 'green', 'blue'), 'חנן')
"""

from __future__ import annotations

import json
import os
from typing import Any

__all__ = ["DATA", "LETTERS", "LETTER_NAMES", "FINALS", "WILD", "COLOURS", "SIDES", "DICE_PER_COLOUR",
           "UNCOUNTERABLE_BONUS", "load_dice", "written"]

HERE = os.path.dirname(os.path.abspath(__file__))
DATA_FILE = os.path.join(HERE, "dice.json")

#: Sides of a letter die (the index drawn is 1..SIDES); face i is opposite
#: face SIDES + 1 - i (RULES-NOTES Milhamah 2).
SIDES = 12
#: Dice of each colour (RULES-NOTES Milhamah 1): the normal roll is two
#: colours of this many.
DICE_PER_COLOUR = 4
#: "The Natural Shoresh", opposed: "+1 and cannot be countered".
UNCOUNTERABLE_BONUS = 1


def load_dice(path: str = DATA_FILE) -> dict:
    """Read and check the letter-dice data (RULES-NOTES Milhamah 2). A
    replaced layout must keep 12 faces per design, each a letter or the wild
    token, and name the design of each of a colour's four dice."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    letters = data["letters"]
    _check_letters(path, letters)
    for colour, c in data["colours"].items():
        _check_colour(path, colour, c, set(letters) | {data["wild"]})
    return data


def _check_letters(path: str, letters: str) -> None:
    """The data names the 22 letters, each once."""
    if len(letters) != 22 or len(set(letters)) != 22:
        raise ValueError(f"{path}: 'letters' must hold the 22 Hebrew letters")


def _check_colour(path: str, colour: str, c: dict, faces_allowed: set) -> None:
    _check_designs(path, colour, c["designs"], faces_allowed)
    if len(c["dice"]) != DICE_PER_COLOUR or not set(c["dice"]) <= set(c["designs"]):
        raise ValueError(f"{path}: {colour} must name the design of each of its {DICE_PER_COLOUR} dice")


def _check_designs(path: str, colour: str, designs: dict, faces_allowed: set) -> None:
    """Each design of a colour has 12 faces, each a letter or the wild."""
    for name, faces in designs.items():
        if len(faces) != SIDES or not set(faces) <= faces_allowed:
            raise ValueError(f"{path}: {colour} design {name} must have {SIDES} letter or wild faces")


DATA = load_dice()
#: The 22 letters in alphabet order (final forms fold to these).
LETTERS: str = DATA["letters"]
LETTER_NAMES = dict(zip(LETTERS, DATA["names"]))
#: Final forms fold to their base letter (RULES-NOTES Milhamah 3).
FINALS: dict = dict(DATA["finals"])
#: The face token of a wild; the page draws it as a star.
WILD: str = DATA["wild"]
#: The three dice colours, in roll order (RULES-NOTES Milhamah 1).
COLOURS = tuple(DATA["colours"])

_FINAL_OF = {base: final for final, base in FINALS.items()}


def written(shoresh: Any) -> str:
    """A folded shoresh as it is written: a last letter that has a final
    form takes it (display only; the spec keeps base letters).

    >>> written("חננ"), written("אשר")
    ('חנן', 'אשר')
    """
    s = str(shoresh or "")
    return s[:-1] + _FINAL_OF.get(s[-1], s[-1]) if s else s
