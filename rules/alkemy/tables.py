"""ALKEMY's tables: the health colours, the faces of each face set's dice
(data, read from ``faces.json`` beside this file), and the bonus and malus
dice ("small operation"): the names both the model and the explanation
read.

>>> net_dice(3, 1)["net"], default_keep([2, 6, 4], 1)
(2, [1, 2])
"""

from __future__ import annotations

import json
import os
from typing import Any

__all__ = ["HEALTH", "MAX_THROWN", "KEPT", "MAX_NET", "FACE_SETS", "SYMBOLS", "DEFAULT_FACES", "net_dice",
           "describe_net", "default_keep"]

#: Health colours, best health first ("color indicated by the figure of the
#: state of health (white, yellow or red)").
HEALTH = ("white", "yellow", "red")

#: "a player can not pitch more than four and can not add ... that two".
MAX_THROWN = 4
KEPT = 2
MAX_NET = MAX_THROWN - KEPT


# --------------------------------------------------------------------------
# The faces: data, not code (RULES-NOTES ALKEMY 1).

def _load_faces() -> tuple[dict, dict, str]:
    """Read ``faces.json`` beside this file: per face set and colour,
    the faces of one die as (value, symbol) pairs in draw order."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "faces.json")
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    symbols = dict(data["symbols"])
    sets: dict[str, dict] = {}
    for name, colours in data["sets"].items():
        entry: dict[str, Any] = {"label": str(colours.get("label", name))}
        for colour in HEALTH:
            entry[colour] = _die_faces(colours[colour], f"{name}/{colour}", symbols)
        sets[name] = entry
    default = data.get("default", "plain")
    if default not in sets:
        raise ValueError("faces.json: default must name a set")
    return sets, symbols, default


def _die_faces(raw: list, where: str, symbols: dict) -> tuple:
    """One die's faces from ``faces.json`` (at ``where``, a set and a
    colour), as (value, symbol) pairs, checked: 1 to 20 faces, each symbol
    a known one."""
    faces = tuple((int(f["value"]), f.get("symbol")) for f in raw)
    if not 1 <= len(faces) <= 20:
        raise ValueError(f"faces.json: {where} needs 1 to 20 faces")
    for _, sym in faces:
        if sym is not None and sym not in symbols:
            raise ValueError(f"faces.json: unknown symbol {sym!r}")
    return faces


FACE_SETS, SYMBOLS, DEFAULT_FACES = _load_faces()


def net_dice(bonus: int, malus: int) -> dict:
    """The text's "small operation": bonus dice minus malus dice, clamped so
    that at most four dice are thrown (RULES-NOTES ALKEMY 2).

    >>> net_dice(2, 1)["net"], net_dice(3, 1)["net"], net_dice(1, 1)["net"]
    (1, 2, 0)
    >>> net_dice(5, 0)
    {'bonus': 5, 'malus': 0, 'raw': 5, 'net': 2, 'thrown': 4, 'left_out': 3}
    """
    raw = bonus - malus
    net = max(-MAX_NET, min(MAX_NET, raw))
    return {"bonus": bonus, "malus": malus, "raw": raw, "net": net,
            "thrown": KEPT + abs(net), "left_out": abs(raw) - abs(net)}


def describe_net(n: dict) -> str:
    """The net in words, e.g. "2 bonus, 1 malus → 1 bonus die".

    >>> describe_net(net_dice(1, 1))
    '1 bonus, 1 malus → no bonus or malus die'
    >>> describe_net(net_dice(0, 3))
    '0 bonus, 3 malus → 2 malus dice (1 left out: at most 4 dice are thrown)'
    """
    net = n["net"]
    if net == 0:
        what = "no bonus or malus die"
    else:
        kind = "bonus" if net > 0 else "malus"
        what = f"{abs(net)} {kind} {'die' if abs(net) == 1 else 'dice'}"
    text = f"{n['bonus']} bonus, {n['malus']} malus → {what}"
    if n["left_out"]:
        text += f" ({n['left_out']} left out: at most {MAX_THROWN} dice are thrown)"
    return text


def default_keep(values: list[int], net: int) -> list[int]:
    """The dice kept unless the player chooses (positions in ``values``).
    Bonus: the best two by default (the player may choose another pair).
    Malus: "the two lowest values", no choice. Ties go to the earlier die."""
    if net >= 0:
        order = sorted(range(len(values)), key=lambda i: (-values[i], i))
    else:
        order = sorted(range(len(values)), key=lambda i: (values[i], i))
    return sorted(order[:KEPT])
