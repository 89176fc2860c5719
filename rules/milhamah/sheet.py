"""A Milhamah character: its attributes and abilities, each with its
shoresh root, X, and the colours it may roll (docs/PARTY.md).

"The basic roll mechanic": a roll picks "an ability that your character
possesses ... based on its target shoresh root"; "you can reroll X dice,
where X equals your relevant attribute/skill rating plus any positive or
negative modifiers" ("2D VIG + 2D Athletics" is X 4, RULES-NOTES Milhamah
6). So an ability names its shoresh, the attribute it uses and its skill
rating (X = attribute + skill), and the colours it may roll ("Players may
normally choose which colors at the Narrator's discretion"); an attribute
with its typical shoresh is a check by itself (Rachel rolls "the typical
BLE shoresh root, אשר, with no skill bonus"). Opposed, the NPC's check is
the reaction: its shoresh, its X and its colours ("Opposed Rolls").

A consequence the rules give, carried here: a natural shoresh on an
unopposed roll whose player takes the Merit Point ("You gain a Merit
Point") adds one to the sheet's Merit Points. A botch's "+XR" for the
opponent's next turn and pocketed successes are the GM's to enter on that
roll (docs/RULES-DECISIONS.md, "Character sheets").

>>> etgar = normalize_sheet(EXAMPLE_SHEETS["etgar"])
>>> [(c["label"], c["x"]) for c in checks(etgar)]
[('Spirit Gust (BLE 3 + 2)', 5), ('BLE', 3)]
"""

from __future__ import annotations

from typing import Any

from ..dice import SpecError
from ..sheets import applied, find_entry, key_of, normalize, signed
from .letters import COLOURS
from .model import DIFFICULTIES, DIFFICULTY_TITLES, MAX_X, fold_shoresh, pool_from_pair, written

__all__ = ["FIELDS", "SITUATION", "EXAMPLE_SHEETS", "PAIRS", "normalize_sheet", "checks", "check_spec",
           "consequences", "pending"]

#: Two colours × 4 dice, the normal roll (RULES-NOTES Milhamah 1).
PAIRS = tuple(f"{a}+{b}" for i, a in enumerate(COLOURS) for b in COLOURS[i + 1:])
MAX_MERIT = 99
_COLOURS = tuple((c, c) for c in COLOURS)

FIELDS = (
    {"name": "attributes", "kind": "entries", "label": "Attributes", "most": 12, "fields": (
        {"name": "name", "kind": "text", "label": "Attribute", "required": True, "most": 12},
        {"name": "rating", "kind": "int", "label": "Rating (D)", "min": 0, "max": MAX_X, "default": 0},
        {"name": "shoresh", "kind": "text", "label": "Typical shoresh", "most": 12},
    )},
    {"name": "abilities", "kind": "entries", "label": "Abilities", "fields": (
        {"name": "name", "kind": "text", "label": "Ability", "required": True},
        {"name": "shoresh", "kind": "text", "label": "Shoresh", "required": True, "most": 12},
        {"name": "attribute", "kind": "text", "label": "Attribute", "required": True, "most": 12},
        {"name": "skill", "kind": "int", "label": "Skill (D)", "min": 0, "max": MAX_X, "default": 0},
        {"name": "colours", "kind": "picks", "label": "Colours allowed", "least": 2, "choices": _COLOURS},
    )},
    {"name": "merit", "kind": "int", "label": "Merit Points", "min": 0, "max": MAX_MERIT, "default": 0, "play": True},
)

SITUATION = (
    {"name": "difficulty", "kind": "choice", "label": "Difficulty", "default": "challenging",
     "choices": tuple((k, f"{DIFFICULTY_TITLES[k]} ({n})") for k, n in DIFFICULTIES.items())},
    {"name": "pair", "kind": "choice", "label": "Colours", "default": PAIRS[0],
     "choices": tuple((p, p.replace("+", " + ")) for p in PAIRS)},
    {"name": "modifier", "kind": "int", "label": "X modifier", "min": -MAX_X, "max": MAX_X, "default": 0},
)

#: The rules text's own characters: Rachel ("Unopposed Rolls"), Etgar and
#: the Midwife Toad ("Opposed Rolls").
EXAMPLE_SHEETS = {
    "rachel": {"name": "Rachel", "player": "David", "attributes": [{"name": "BLE", "rating": 3, "shoresh": "אשר"}]},
    "etgar": {"name": "Etgar", "player": "Amos",
              "attributes": [{"name": "BLE", "rating": 3, "shoresh": "אשר"}, {"name": "VIG", "rating": 2}],
              "abilities": [{"name": "Spirit Gust", "shoresh": "רוח", "attribute": "BLE", "skill": 2,
                             "colours": ["red", "blue"]}]},
    "toad": {"name": "Midwife Toad", "npc": True, "attributes": [{"name": "GRA", "rating": 2, "shoresh": "חננ"}],
             "abilities": [{"name": "Jump", "shoresh": "חננ", "attribute": "GRA", "skill": 1}]},
}


def normalize_sheet(sheet: Any) -> dict:
    """The sheet read through ``FIELDS``; each shoresh folded (final forms,
    RULES-NOTES Milhamah 3); an ability's attribute is one on the sheet and
    its X at most ``MAX_X``; no ability shares an attribute's name."""
    out = normalize(FIELDS, sheet)
    for i, a in enumerate(out["attributes"]):
        if a["shoresh"]:
            a["shoresh"] = fold_shoresh(a["shoresh"], f"attributes.{i}.shoresh")
    names = {key_of(a["name"]) for a in out["attributes"]}
    for i, ab in enumerate(out["abilities"]):
        _normalize_ability(i, ab, out["attributes"], names)
    return out


def _normalize_ability(i: int, ab: dict, attributes: list, names: set) -> None:
    """Ability i (in place): its shoresh folded, its attribute one on the
    sheet (by its own name), X at most ``MAX_X``, a name no attribute has
    (``names``: theirs, as keys)."""
    ab["shoresh"] = fold_shoresh(ab["shoresh"], f"abilities.{i}.shoresh")
    attr = find_entry(attributes, ab["attribute"], f"abilities.{i}.attribute")
    ab["attribute"] = attr["name"]
    if attr["rating"] + ab["skill"] > MAX_X:
        raise SpecError(f"abilities.{i}.skill", f"makes X {attr['rating'] + ab['skill']}; X is at most {MAX_X}")
    if key_of(ab["name"]) in names:
        raise SpecError(f"abilities.{i}.name", f"{ab['name']!r} is an attribute's name; call it something else")


def _check(name: str, label: str, shoresh: str, x: int, colours: list, parts: list) -> dict:
    pairs = [p for p in PAIRS if set(p.split("+")) <= set(colours)]
    return {"name": name, "label": label, "shoresh": shoresh, "x": x, "pairs": pairs, "applied": parts,
            "defaults": {"pair": pairs[0]}}


def checks(sheet: dict) -> list:
    """Every ability, then every attribute that has a typical shoresh."""
    out = [_ability_check(sheet, ab) for ab in sheet["abilities"]]
    return out + [_attribute_check(attr) for attr in sheet["attributes"] if attr["shoresh"]]


def _ability_check(sheet: dict, ab: dict) -> dict:
    """An ability's check: X is its attribute's rating plus its skill, on
    the ability's own shoresh and colours."""
    attr = find_entry(sheet["attributes"], ab["attribute"], "attribute")
    x = attr["rating"] + ab["skill"]
    parts = [applied(f"X {x}", f"{attr['name']} {attr['rating']} + {ab['name']} {ab['skill']}"),
             applied(written(ab["shoresh"]), "shoresh")]
    return _check(ab["name"], f"{ab['name']} ({attr['name']} {attr['rating']} + {ab['skill']})",
                  ab["shoresh"], x, ab["colours"], parts)


def _attribute_check(attr: dict) -> dict:
    """An attribute's check on its typical shoresh: X is its rating (no
    skill), any colours."""
    parts = [applied(f"X {attr['rating']}", f"{attr['name']} {attr['rating']}, no skill"),
             applied(written(attr["shoresh"]), "its typical shoresh")]
    return _check(attr["name"], attr["name"], attr["shoresh"], attr["rating"], list(COLOURS), parts)


def _x(check: dict, modifier: int) -> int:
    x = check["x"] + modifier
    if not 0 <= x <= MAX_X:
        raise SpecError("modifier", f"makes X {x} ({check['x']} {signed(modifier)}); X is 0 to {MAX_X}")
    return x


def _pair(check: dict, pair: str) -> dict:
    if pair not in check["pairs"]:
        raise SpecError("pair", f"{check['name']} rolls " + " or ".join(p.replace("+", " + ") for p in check["pairs"]))
    return pool_from_pair(pair)


def check_spec(sheet: dict, check: dict, situation: dict, opponent: tuple | None) -> dict:
    """The roll of ``check`` (DESIGN.md's spec keys); opposed, the NPC's
    check is the reaction (its shoresh, X and first allowed colours)."""
    spec = {"shoresh": check["shoresh"], "pool": _pair(check, situation["pair"]),
            "rerolls": _x(check, situation["modifier"]), "difficulty": situation["difficulty"]}
    if opponent is not None:
        npc = opponent[1]
        spec["opponent"] = {"shoresh": npc["shoresh"], "rerolls": npc["x"], "pool": pool_from_pair(npc["pairs"][0])}
    return spec


def consequences(sheet: dict, result: dict, choice: Any) -> dict:
    """A Merit Point taken for a natural shoresh is added (module docstring)."""
    if result.get("merit_point"):
        return {**sheet, "merit": min(MAX_MERIT, sheet["merit"] + 1)}
    return sheet


def pending(sheet: dict, result: dict) -> None:
    """The natural's reward is chosen on the roll itself (its step)."""
    return None
