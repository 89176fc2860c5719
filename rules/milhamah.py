"""Milhamah RPG (seeds/000_61bae661fbfac8cf.txt): twelve-sided Hebrew letter
dice rolled against a shoresh (a root of 2-4 letters).

The flow ("Roll Mechanics"): roll 8D of two colours; each die showing a
letter of the shoresh is a success, and wilds are successes when acting but
not when reacting; freeze any dice and reroll up to X of the others (X =
attribute + skill ± modifiers); compare the successes with the difficulty
(or, opposed, the reactor's successes). A natural shoresh (every letter,
no wilds) earns a bonus; zero letter matches is a botch. Where the text is
silent we follow RULES-NOTES Milhamah 1-9 and say which reading we used.

Opposed, the turn is the initiator's first (rerolls, ciphers, the natural
reward; ``stand`` ends it early), then the opponent reacts seeing the
initiator's final dice (rerolls, ciphers, ``stand``). "+1 and cannot be
countered" voids the reaction; a "let them react" critical is final, and
the hit location offered, only once the opponent's dice can no longer
change ("Opposed Rolls", "The Natural Shoresh").

A result carries no state of its own: ``act`` and the odds rebuild the
turn by replaying the result's ``stages`` through ``roll`` and the step
functions (``_load_track``), so a step the rules would refuse, or draws
that don't fit the dice, is a SpecError wherever they come from.

The faces of the dice are data (``milhamah_dice.json``, RULES-NOTES
Milhamah 2): each die of a colour has 12 faces; face i is opposite face
13 - i, so a cipher flips a die to the face at 13 - i. The words of the
explanation are ``explain_milhamah``'s.

>>> from rules.dice import ScriptedRng
>>> spec = normalize({"shoresh": "אשר", "pool": ["red", "green"], "rerolls": 3,
...                   "difficulty": "challenging"})
>>> r = roll(spec, ScriptedRng([2, 1, 2, 1, 2, 1, 2, 1]))
>>> [d["face"] for d in r["dice"]]
['ב', 'ז', 'ב', 'ז', 'ב', 'מ', 'ב', 'מ']
>>> r["value"], r["outcome"]
(0, 'botch')
"""

from __future__ import annotations

import json
import os
import random
import re
import unicodedata
from typing import Any

from . import explain_milhamah
from .dice import (Die, ScriptedRng, SpecError, check_keys, dist_to_json, get_bool, get_int,
                   name_key, spec_seed)

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "LETTERS", "WILD", "COLOURS", "FINALS",
           "DIFFICULTIES", "COMBAT", "HIT_LOCATIONS", "LETTER_NAMES", "ROOTS", "VERBS",
           "normalize", "roll", "act", "odds", "fold_shoresh", "die_faces", "spelled",
           "faces_table", "written", "dice_of", "pool_from_pair", "load_dice", "load_roots",
           "effective_difficulty"]

NAME = "milhamah"
TITLE = "Milhamah RPG"

OUTCOMES = ("botch", "failure", "success_at_cost", "success", "natural_success",
            "critical_success")

HERE = os.path.dirname(os.path.abspath(__file__))
DATA_FILE = os.path.join(HERE, "milhamah_dice.json")
ROOTS_FILE = os.path.join(HERE, "milhamah_roots.json")

#: Sides of a letter die (the index drawn is 1..12).
SIDES = 12


def load_dice(path: str = DATA_FILE) -> dict:
    """Read and check the letter-dice data (RULES-NOTES Milhamah 2). A
    replaced layout must keep 12 faces per design, each a letter or the wild
    token, and name the design of each of a colour's four dice."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    letters = data["letters"]
    if len(letters) != 22 or len(set(letters)) != 22:
        raise ValueError(f"{path}: 'letters' must hold the 22 Hebrew letters")
    for colour, c in data["colours"].items():
        _check_colour(path, colour, c, set(letters) | {data["wild"]})
    return data


def _check_colour(path: str, colour: str, c: dict, faces_allowed: set) -> None:
    for name, faces in c["designs"].items():
        if len(faces) != SIDES or not set(faces) <= faces_allowed:
            raise ValueError(f"{path}: {colour} design {name} must have 12 letter or wild faces")
    if len(c["dice"]) != 4 or not set(c["dice"]) <= set(c["designs"]):
        raise ValueError(f"{path}: {colour} must name the design of each of its 4 dice")


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
#: The difficulty table ("Unopposed Rolls"): name -> successes needed.
DIFFICULTIES = {name: n for name, _title, n in DATA["difficulties"]}
DIFFICULTY_TITLES = {name: title for name, title, _n in DATA["difficulties"]}
#: Combat modifiers ("Combat modifiers", RULES-NOTES Milhamah 9): the sign
#: each moves the difficulty, times ``combat_step``.
COMBAT = {"engaged": -1, "surprised": -1, "cover": 1, "ambushed": 1}
COMBAT_TITLES = {"engaged": "already fighting someone else",
                 "surprised": "doesn't see you (surprised)",
                 "cover": "partial or complete cover",
                 "ambushed": "has just ambushed you"}
#: Critical success hit location ("Critical success"), read as written
#: (RULES-NOTES Milhamah 8: ג and נ are both Nose, ב and ת both Eye).
HIT_LOCATIONS: dict = dict(DATA["hit_locations"])
#: The GM's numbers for a hit location: (name, most, default).
HIT_BOXES = (("armour", 99, 0), ("vig", 99, 0), ("light", 12, 1), ("serious", 12, 1),
             ("critical", 12, 1))

MAX_DICE = 4 * len(COLOURS)
MAX_X = 12
MAX_ROUNDS = 4
#: A result may carry at most this many stages (``rules.MAX_STAGES``).
MAX_STAGES = 24
NATURAL_REWARDS = ("successes", "merit")
OPPOSED_REWARDS = ("uncounterable", "critical")
#: The steps after a roll (DESIGN.md verbs; ``stand`` ends a side's turn in
#: an opposed roll, README "Rules decisions").
VERBS = ("reroll", "cipher", "natural", "stand", "hit_location")

DEFAULT_SPEC = {"shoresh": "אשר", "pool": {"red": 4, "green": 4, "blue": 0},
                "rerolls": 3, "difficulty": "challenging"}

_SPEC_KEYS = ("shoresh", "pool", "dice_change", "forbid", "reaction", "rerolls",
              "bonus_rerolls", "rounds", "cipher", "difficulty", "combat",
              "combat_step", "first_bonus", "pocketed", "modifier_to_x", "opponent")
_OPP_KEYS = ("shoresh", "pool", "dice_change", "forbid", "rerolls", "bonus_rerolls",
             "rounds", "cipher", "shorashim")
# Ignored while reading a shoresh: spaces, hyphens, maqaf, and Hebrew points
# (niqqud and cantillation, U+0591-U+05C7 except the letters).
_IGNORED = re.compile(r"[\s\-\u05be.,]")


def load_roots(path: str = ROOTS_FILE) -> list:
    """The common roots the dice may also spell (``milhamah_roots.json``:
    its ``about``, ``source`` and ``license`` say where they come from), as
    (root, gloss, letters needed), most used first. Each root is three base
    letters."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    rows = [(r["root"], r["gloss"]) for r in data["roots"]]
    bad = [r for r, _g in rows if len(r) != 3 or not set(r) <= set(LETTERS)]
    if bad:
        raise ValueError(f"{path}: roots must be three base letters (not {', '.join(bad[:3])})")
    return [(r, g, _need(r)) for r, g in rows]


# --------------------------------------------------------------------------
# Validation.

def fold_shoresh(text: Any, field: str = "shoresh") -> str:
    """The shoresh as base letters: final forms fold (RULES-NOTES Milhamah
    3), spaces, hyphens and vowel points are ignored; anything else is a
    ``SpecError`` naming the bad character.

    >>> fold_shoresh("חנן")
    'חננ'
    >>> fold_shoresh("ש-ל-ם")
    'שלמ'
    >>> fold_shoresh("אבX")
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: shoresh: 'X' is not a Hebrew letter; use 2 to 4 of א-ת (final forms ך ם ן ף ץ fold)
    """
    if not isinstance(text, str):
        raise SpecError(field, f"must be 2 to 4 Hebrew letters (got {type(text).__name__})")
    if len(text) > 60:
        raise SpecError(field, "is too long: a shoresh has 2 to 4 letters")
    out = [_letter(ch, field) for ch in text if not _ignored(ch)]
    if not 2 <= len(out) <= 4:
        raise SpecError(field, f"must have 2 to 4 letters (got {len(out)})")
    return "".join(out)


def _ignored(ch: str) -> bool:
    return bool(_IGNORED.match(ch)) or ("\u0591" <= ch <= "\u05c7" and unicodedata.category(ch) == "Mn")


def _letter(ch: str, field: str) -> str:
    ch = FINALS.get(ch, ch)
    if ch not in LETTERS:
        raise SpecError(field, f"{ch!r} is not a Hebrew letter; use 2 to 4 of א-ת "
                               f"(final forms {' '.join(FINALS)} fold)")
    return ch


_FINAL_OF = {base: final for final, base in FINALS.items()}


def written(shoresh: Any) -> str:
    """A folded shoresh as it is written: a last letter that has a final
    form takes it (display only; the spec keeps base letters).

    >>> written("חננ"), written("אשר")
    ('חנן', 'אשר')
    """
    s = str(shoresh or "")
    return s[:-1] + _FINAL_OF.get(s[-1], s[-1]) if s else s


def _colour(value: Any, field: str) -> str:
    k = name_key(value, field)
    if k not in COLOURS:
        raise SpecError(field, f"must be one of {', '.join(COLOURS)} (got {str(value)[:20]!r})")
    return k


def _names(value: Any, field: str, most: int, what: str) -> list:
    """A list of up to ``most`` names (one name alone is a list of one)."""
    value = value or []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or len(value) > most:
        raise SpecError(field, what)
    return list(value)


def _pool(spec: dict, field: str) -> dict:
    """``pool``: {colour: count 0-4}, or a list of colours (4 dice each)."""
    v = spec.get("pool")
    if v is None:
        return dict(DEFAULT_SPEC["pool"])
    if isinstance(v, (list, tuple)):
        return _pool_of_colours(v, field)
    if isinstance(v, dict):
        return _pool_of_counts(v, field)
    raise SpecError(field, "must be {colour: count} or a list of colours")


def _pool_of_colours(v: Any, field: str) -> dict:
    if not 1 <= len(v) <= len(COLOURS):
        raise SpecError(field, "must list 1 to 3 colours, e.g. ['red', 'green']")
    counts = {c: 0 for c in COLOURS}
    for c in (_colour(c, field) for c in v):
        if counts[c]:
            raise SpecError(field, f"names {c} twice")
        counts[c] = 4
    return counts


def _pool_of_counts(v: dict, field: str) -> dict:
    if len(v) > 8:
        raise SpecError(field, "must map colours to counts")
    counts = {c: 0 for c in COLOURS}
    for c, n in v.items():
        counts[_colour(c, field)] = get_int({"n": n}, "n", 0, 4, default=0, field=field)
    return counts


def _forbid(spec: dict, pre: str, pool: dict) -> list:
    """The colours a status forbids; a forbidden colour in the pool is an
    error at the pool."""
    named = _names(spec.get("forbid"), pre + "forbid", len(COLOURS), "must list colours a status forbids")
    forbid = {_colour(x, pre + "forbid") for x in named}
    for c in COLOURS:
        if c in forbid and pool[c]:
            raise SpecError(pre + "pool", f"{c} is forbidden by a status; choose other colours")
    return [c for c in COLOURS if c in forbid]


def _side(spec: Any, field: str, keys: tuple) -> dict:
    """The roll settings one side shares with the other (shoresh, dice, X)."""
    pre = f"{field}." if field else ""
    check_keys(spec, keys, field or "spec")
    s: dict = {"shoresh": fold_shoresh(spec.get("shoresh", DEFAULT_SPEC["shoresh"]), pre + "shoresh"),
               "pool": _pool(spec, pre + "pool"),
               "dice_change": get_int(spec, "dice_change", -MAX_DICE, MAX_DICE, 0, field=pre + "dice_change")}
    s["forbid"] = _forbid(spec, pre, s["pool"])
    for key, hi, default in (("rerolls", MAX_X, 3), ("bonus_rerolls", MAX_X, 0), ("rounds", MAX_ROUNDS, 1),
                             ("cipher", MAX_DICE, 0)):
        s[key] = get_int(spec, key, 0, hi, default, field=pre + key)
    dice_of(s, pre)  # the pool must be buildable
    return s


def normalize(spec: Any) -> dict:
    """Validate every field and fill every default.

    >>> n = normalize({"shoresh": "רוח", "pool": ["red", "blue"], "difficulty": "Heroic"})
    >>> n["pool"], n["difficulty"], n["opponent"]
    ({'red': 4, 'green': 0, 'blue': 4}, 6, None)
    """
    check_keys(spec, _SPEC_KEYS)
    out = _side({k: v for k, v in spec.items() if k in _OPP_KEYS}, "", _OPP_KEYS)
    out["reaction"] = get_bool(spec, "reaction", False)
    out["difficulty"] = _difficulty(spec)
    out["combat"] = _combat(spec.get("combat"))
    out["combat_step"] = get_int(spec, "combat_step", 0, 3, 1)
    out["first_bonus"] = get_int(spec, "first_bonus", 0, 4, 1)
    out["pocketed"] = get_int(spec, "pocketed", 0, MAX_DICE, 0)
    out["modifier_to_x"] = get_bool(spec, "modifier_to_x", True)
    out["opponent"] = _opponent(spec.get("opponent"))
    # canonical key order
    return {k: out[k] for k in _SPEC_KEYS}


_DIFFICULTY_ALIASES = {"untrained": "beginner", "beginner_untrained": "beginner",
                       "beginner/untrained": "beginner"}


def _difficulty(spec: dict) -> int:
    """A number of successes, or a name from the table ("Unopposed Rolls")."""
    d = spec.get("difficulty", DEFAULT_SPEC["difficulty"])
    if not isinstance(d, str) or re.fullmatch(r"\s*\d+\s*", d):
        return get_int(spec, "difficulty", 1, 24, 3)
    k = name_key(d, "difficulty")
    k = _DIFFICULTY_ALIASES.get(k, k)
    if k not in DIFFICULTIES:
        raise SpecError("difficulty", "must be a number of successes (1-24) or one of " + ", ".join(DIFFICULTIES))
    return DIFFICULTIES[k]


def _combat(value: Any) -> list:
    named = _names(value, "combat", 8, "must list combat modifiers: " + ", ".join(COMBAT))
    keys = {name_key(c, "combat") for c in named}
    unknown = [c for c in named if name_key(c, "combat") not in COMBAT]
    if unknown:
        raise SpecError("combat", f"must be among {', '.join(COMBAT)} (got {str(unknown[0])[:20]!r})")
    return [k for k in COMBAT if k in keys]


def _opponent(opp: Any) -> dict | None:
    if opp is None or opp is False:
        return None
    o = _side(opp, "opponent", _OPP_KEYS)
    o["shorashim"] = _shorashim(opp.get("shorashim"))
    return o


def _shorashim(value: Any) -> list:
    """The opponent's other shorashim (for a counter): a list, or text
    separated by commas, semicolons or slashes."""
    if isinstance(value, str):
        value = [x for x in re.split(r"[,;/]", value) if x.strip()]
    named = _names(value, "opponent.shorashim", 8, "must list up to 8 shorashim")
    return list(dict.fromkeys(fold_shoresh(x, "opponent.shorashim") for x in named))


# --------------------------------------------------------------------------
# The dice.

def die_faces(colour: str, design: str) -> list:
    """The 12 faces of one die design, face i opposite face 13 - i.

    >>> "".join(die_faces("red", "A"))
    'אבגדהופצקרשת'
    """
    return list(DATA["colours"][colour]["designs"][design])


def pool_from_pair(pair: Any, field: str = "pair") -> dict:
    """Two chosen colours × 4, the normal roll (RULES-NOTES Milhamah 1).

    >>> pool_from_pair("red+blue")
    {'red': 4, 'green': 0, 'blue': 4}
    """
    names = re.findall(r"[^+,&\s]+", pair) if isinstance(pair, str) else pair
    if not isinstance(names, (list, tuple)) or len(names) != 2:
        raise SpecError(field, "must be two colours, e.g. red+green")
    chosen = {_colour(p, field) for p in names}
    if len(chosen) != 2:
        raise SpecError(field, "must be two different colours")
    return {c: 4 * (c in chosen) for c in COLOURS}


def _apply_change(side: dict, pre: str = "") -> dict:
    """The pool after ±nD status changes: added dice go to a chosen colour
    with room, then to an unchosen allowed colour; removed dice come off the
    colour with the most dice (the later colour on a tie). At most 4 per
    colour, 1 to 12 in all."""
    counts = dict(side["pool"])
    n = side["dice_change"]
    chosen = [c for c in COLOURS if counts[c]]
    for _ in range(max(0, n)):
        counts[_colour_with_room(counts, chosen, side["forbid"], pre)] += 1
    for _ in range(max(0, -n)):
        counts[_fullest(counts)] -= 1
    if sum(counts.values()) < 1:
        raise SpecError(pre + "dice_change" if n < 0 else pre + "pool", "the roll needs at least one die")
    return counts


def _fullest(counts: dict) -> str:
    """The colour with the most dice (the later colour on a tie)."""
    return max(reversed(COLOURS), key=lambda c: counts[c])


def _colour_with_room(counts: dict, chosen: list, forbid: list, pre: str) -> str:
    room = [c for c in COLOURS if c not in forbid and counts[c] < 4]
    if not room:
        raise SpecError(pre + "dice_change", "no room for more dice: at most 4 of each allowed colour")
    return next((c for c in room if c in chosen), room[0])


def dice_of(side: dict, pre: str = "") -> list:
    """The dice a side rolls, in draw order: colours in the order red, green,
    blue; within a colour the designs its data lists (A, B, A, B).

    >>> [c + d for c, d in dice_of({"pool": {"red": 2, "green": 0, "blue": 1},
    ...                              "dice_change": 0, "forbid": []})]
    ['redA', 'redB', 'blueA']
    """
    counts = _apply_change(side, pre)
    return [(c, DATA["colours"][c]["dice"][i]) for c in COLOURS for i in range(counts[c])]


def faces_table() -> list:
    """Each colour's designs and cipher pairs, for the page's faces view."""
    return [{"colour": c, "cipher": DATA["colours"][c]["cipher_title"],
             "pairs": [list(p) for p in DATA["colours"][c]["pairs"]],
             "designs": {k: list(v) for k, v in DATA["colours"][c]["designs"].items()},
             "dice": list(DATA["colours"][c]["dice"])} for c in COLOURS]


# --------------------------------------------------------------------------
# Counting (RULES-NOTES Milhamah 3-5).

def _need(shoresh: str) -> dict:
    """Each distinct letter and how many dice it needs for a natural (a
    doubled letter, as in חננ, needs two)."""
    need: dict = {}
    for ch in shoresh:
        need[ch] = need.get(ch, 0) + 1
    return need


def _covers(need: dict, faces: list) -> bool:
    """Do the faces show every needed letter, each on its own die?"""
    return all(faces.count(ch) >= n for ch, n in need.items())


def _count(shoresh: str, faces: list, wilds_count: bool) -> dict:
    need = _need(shoresh)
    matches = [i for i, f in enumerate(faces) if f in need]
    wilds = [i for i, f in enumerate(faces) if f == WILD]
    return {"matches": matches, "wilds": wilds,
            "successes": len(matches) + (len(wilds) if wilds_count else 0),
            "natural": _covers(need, faces)}


def _found(shoresh: str, faces: list) -> bool:
    """Does a set of final dice contain this shoresh (letters, no wilds)?"""
    return _covers(_need(shoresh), faces)


ROOTS = load_roots()
#: How many of the roots the dice also spell a result lists.
SPELLED_SHOWN = 6


def spelled(faces: list, exclude: tuple = ()) -> list:
    """The common roots (``ROOTS``) the faces spell, each letter on its own
    die and wilds not counted, most used first, ``exclude`` left out
    (seed 000: the Narrator may "interpret and allude to other shorashim
    that appear in the final roll").

    >>> [r for r, _g in spelled(["ש", "ל", "מ", "*"])]
    ['שלמ', 'משל']
    """
    return [(r, g) for r, g, need in ROOTS if r not in exclude and _covers(need, faces)]


def _needed(spec: dict, base: int) -> tuple:
    adj = sum(COMBAT[c] for c in spec["combat"]) * spec["combat_step"]
    return max(0, base + adj), adj


def effective_difficulty(spec: dict, base: int | None = None) -> tuple:
    """(successes needed, combat adjustment): the difficulty (or ``base``,
    e.g. the opponent's successes) moved by the combat modifiers
    (RULES-NOTES Milhamah 9), never below 0.

    >>> effective_difficulty(normalize({"difficulty": 3, "combat": ["surprised", "engaged"]}))
    (1, -2)
    """
    return _needed(spec, spec["difficulty"] if base is None else base)


def _xs(spec: dict) -> dict:
    """X per side: rerolls + bonus rerolls (+XR), and in an opposed roll the
    difference of the totals added to the side that has it (RULES-NOTES
    Milhamah 7)."""
    x = {"initiator": spec["rerolls"] + spec["bonus_rerolls"]}
    opp = spec["opponent"]
    if opp:
        x["opponent"] = opp["rerolls"] + opp["bonus_rerolls"]
        diff = spec["rerolls"] - opp["rerolls"]
        if spec["modifier_to_x"]:
            x["initiator" if diff > 0 else "opponent"] += abs(diff)
    return {k: min(v, MAX_X * 2) for k, v in x.items()}


def _side_spec(spec: dict, side: str) -> dict:
    return spec if side == "initiator" else spec["opponent"]


# --------------------------------------------------------------------------
# The track: a turn's state, never stored in a result but rebuilt from its
# stages (the roll, then each step with its draws).

def _new_side(idx: list) -> dict:
    return {"idx": idx, "hist": [[i] for i in idx], "how": [["rolled"] for _ in idx],
            "rounds": 0, "ciphers": 0, "rerolled": False, "reward": None, "closed": False,
            "first_natural": None}


def _faces(spec: dict, side: str, idx: list) -> list:
    dice = dice_of(_side_spec(spec, side))
    return [die_faces(c, d)[i - 1] for (c, d), i in zip(dice, idx)]


def _roll_track(spec: dict, rng) -> dict:
    """The first roll: the roller's dice in order, then the opponent's; each
    one ``rng.randint(1, 12)`` indexing its faces ("The basic roll
    mechanic")."""
    track: dict = {"sides": {}, "hit": None, "log": ["roll"]}
    for side in ["initiator"] + (["opponent"] if spec["opponent"] else []):
        n = len(dice_of(_side_spec(spec, side)))
        track["sides"][side] = _new_side([rng.randint(1, SIDES) for _ in range(n)])
    for side, s in track["sides"].items():
        s["first_natural"] = _found(_side_spec(spec, side)["shoresh"], _faces(spec, side, s["idx"]))
    return track


def roll(spec: dict, rng) -> dict:
    """The first roll (``_roll_track``), presented.

    >>> from rules.dice import ScriptedRng
    >>> r = roll(normalize({"shoresh": "אשר", "pool": ["red"]}), ScriptedRng([1, 6, 11, 12]))
    >>> [d["face"] for d in r["dice"]], r["value"], r["natural"]
    (['א', '*', 'ש', 'ע'], 3, False)
    """
    return _present(spec, _roll_track(spec, rng))


def _load_track(spec: dict, result: Any) -> dict:
    """The turn's state, rebuilt by replaying the result's ``stages``
    through ``_roll_track`` and ``_step`` (each stage's draws through a
    ScriptedRng): a step the rules would refuse, or draws that don't fit
    the dice, is a SpecError, whatever else the result claims."""
    stages = result.get("stages") if isinstance(result, dict) else None
    if not isinstance(stages, list) or not 1 <= len(stages) <= MAX_STAGES:
        raise SpecError("result", "is not a Milhamah result of this spec (no recorded stages to rebuild it from)")
    track: dict = {}
    for n, stage in enumerate(stages, 1):
        rng, action = _recorded(stage, n)
        track = _roll_track(spec, rng) if n == 1 else _step(spec, track, action, rng)
        if not rng.exhausted:
            raise SpecError("stages", f"step {n} has more draws than its dice use")
    return track


def _recorded(stage: Any, n: int) -> tuple:
    """Stage ``n`` as (a ScriptedRng over its draws, its action)."""
    if not isinstance(stage, dict) or not isinstance(stage.get("draws"), list):
        raise SpecError("stages", f"step {n} is not a recorded step")
    action = {k: v for k, v in stage.items() if k != "draws"}
    if (n == 1) != (action.get("do") == "roll"):
        raise SpecError("stages", "the roll must be the first step, and only the first")
    return ScriptedRng(stage["draws"]), action


def act(spec: dict, result: dict, action: dict, rng) -> dict:
    """A step after the first roll (DESIGN.md verbs):

    - ``reroll`` {"dice": [i...]}: reroll up to X of the dice; the rest stay
      frozen ("Reroll chance"); one round of the side's ``rounds``.
    - ``cipher`` {"dice": [i...]}: flip up to ``cipher`` dice (over the
      turn) to the opposite face (RULES-NOTES Milhamah 2).
    - ``natural`` {"reward": "successes"/"merit"} unopposed, or
      "uncounterable"/"critical" opposed ("The Natural Shoresh"); ends the
      side's turn.
    - ``stand`` (opposed): end the side's turn with the dice as they lie
      (the initiator hands over to the opponent's reaction; the opponent
      declines to change its dice).
    - ``hit_location`` {"armour", "vig", "light", "serious", "critical"}: on
      a final critical success, draw one of the 22 letters (RULES-NOTES
      Milhamah 8).

    ``side`` ("initiator"/"opponent") says who acts in an opposed roll.

    >>> from rules.dice import ScriptedRng
    >>> spec = normalize({"shoresh": "אשר", "pool": ["red"], "rerolls": 2})
    >>> r = roll(spec, ScriptedRng([2, 1, 2, 1]))
    >>> r2 = act(spec, {**r, "stages": [{"do": "roll", "draws": [2, 1, 2, 1]}]},
    ...          {"do": "reroll", "dice": [0, 2]}, ScriptedRng([1, 11]))
    >>> [d["face"] for d in r2["dice"]], [d["role"] for d in r2["dice"]], r2["value"]
    (['א', 'ז', 'ש', 'ז'], ['rerolled', 'frozen', 'rerolled', 'frozen'], 2)
    """
    return _present(spec, _step(spec, _load_track(spec, result), action, rng))


# --------------------------------------------------------------------------
# The steps: each checks its own arguments, changes the track, and says what
# it did (for the explanation).

def _step(spec: dict, track: dict, action: dict, rng) -> dict:
    verb = action.get("do")
    side = action.get("side", "initiator")
    if not isinstance(side, str) or side not in track["sides"]:
        raise SpecError("side", "must be initiator" + (" or opponent" if spec["opponent"] else ""))
    if verb not in _STEPS:
        raise SpecError("action", "Milhamah steps are " + ", ".join(VERBS[:-1]) + " and " + VERBS[-1])
    if verb not in _allowed(spec, track)[side]:
        raise SpecError("action", f"{verb} is not allowed now for the {side}: " + _why_not(spec, track, side, verb))
    done = _STEPS[verb](spec, track, side, action, rng)
    track["log"].append({"do": verb, "side": side, **done})
    return track


def _dice_named(action: dict, n: int, what: str) -> list:
    chosen = action.get("dice")
    if not isinstance(chosen, list) or len(chosen) > n or not all(_is_die(i, n) for i in chosen):
        raise SpecError("dice", f"must list die numbers from 0 to {n - 1}")
    if len(set(chosen)) != len(chosen):
        raise SpecError("dice", "names a die twice")
    if not chosen:
        raise SpecError("dice", f"name at least one die to {what}")
    return sorted(chosen)


def _is_die(i: Any, n: int) -> bool:
    return isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n


def _show(s: dict, i: int, idx: int, how: str) -> None:
    s["idx"][i] = idx
    s["hist"][i].append(idx)
    s["how"][i].append(how)


def _reroll(spec: dict, track: dict, side: str, action: dict, rng) -> dict:
    s = track["sides"][side]
    chosen = _dice_named(action, len(s["idx"]), "reroll")
    x = _xs(spec)[side]
    if len(chosen) > x:
        raise SpecError("dice", f"at most X = {x} dice may be rerolled (got {len(chosen)})")
    for i in chosen:
        _show(s, i, rng.randint(1, SIDES), "rerolled")
    s["rounds"] += 1
    s["rerolled"] = True
    return {"dice": chosen}


def _cipher(spec: dict, track: dict, side: str, action: dict, rng) -> dict:
    s = track["sides"][side]
    chosen = _dice_named(action, len(s["idx"]), "flip")
    left = _side_spec(spec, side)["cipher"] - s["ciphers"]
    if len(chosen) > left:
        raise SpecError("dice", f"at most {left} more dice may be flipped by a cipher")
    for i in chosen:
        _show(s, i, SIDES + 1 - s["idx"][i], "cipher")
    s["ciphers"] += len(chosen)
    return {"dice": chosen}


def _natural(spec: dict, track: dict, side: str, action: dict, rng) -> dict:
    choices = OPPOSED_REWARDS if spec["opponent"] else NATURAL_REWARDS
    reward = action.get("reward", choices[0])
    if not isinstance(reward, str) or reward not in choices:
        raise SpecError("reward", "must be " + " or ".join(choices))
    track["sides"][side].update(reward=reward, closed=True)
    return {"reward": reward}


def _stand(spec: dict, track: dict, side: str, action: dict, rng) -> dict:
    track["sides"][side]["closed"] = True
    return {}


def _hit_location(spec: dict, track: dict, side: str, action: dict, rng) -> dict:
    gm = {k: get_int(action, k, 0, hi, default) for k, hi, default in HIT_BOXES}
    track["hit"] = {"letter": LETTERS[rng.randint(1, len(LETTERS)) - 1], **gm}
    return {}


_STEPS = {"reroll": _reroll, "cipher": _cipher, "natural": _natural, "stand": _stand,
          "hit_location": _hit_location}


# --------------------------------------------------------------------------
# Whose turn it is and what it may do ("Opposed Rolls": the initiator's
# turn, then the opponent's reaction; README "Rules decisions").

def _open_steps(spec: dict, track: dict, ev: dict, side: str) -> list:
    """The dice-changing steps a side has left while its turn is open."""
    s = track["sides"][side]
    sp = _side_spec(spec, side)
    if s["closed"] or track["hit"] is not None:
        return []
    verbs = []
    if s["rounds"] < sp["rounds"] and _xs(spec)[side] > 0:
        verbs.append("reroll")
    if s["ciphers"] < sp["cipher"]:
        verbs.append("cipher")
    if side == "initiator" and ev["initiator"]["natural"] and s["reward"] is None:
        verbs.append("natural")
    return verbs


def _allowed(spec: dict, track: dict, ev: dict | None = None) -> dict:
    """The verbs each side may use now. Unopposed: the roller's steps.
    Opposed: the initiator's turn first (``stand`` hands over, except that
    a natural shoresh on the table must have its reward chosen); then the
    opponent's, unless the natural voided it; the hit location once a
    critical can no longer change."""
    ev = ev or _evaluate(spec, track)
    mine = _open_steps(spec, track, ev, "initiator")
    if not spec["opponent"]:
        return {"initiator": mine}
    theirs = [] if mine or ev["voided"] else _open_steps(spec, track, ev, "opponent")
    return {"initiator": mine + _after_mine(mine, theirs, ev, track), "opponent": theirs + ["stand"] * bool(theirs)}


def _after_mine(mine: list, theirs: list, ev: dict, track: dict) -> list:
    """``stand`` while the initiator's turn is open (a natural's reward must
    be chosen instead); ``hit_location`` once a critical is final."""
    if mine:
        return [] if "natural" in mine else ["stand"]
    final = ev["outcome"] == "critical_success" and not theirs and track["hit"] is None
    return ["hit_location"] if final else []


def _why_not(spec: dict, track: dict, side: str, verb: str) -> str:
    if track["hit"] is not None:
        return "the hit location is drawn; the roll is over"
    ev = _evaluate(spec, track)
    if verb == "hit_location":
        return ("only a critical success rolls for hit location" if ev["outcome"] != "critical_success"
                else "the critical is final only once the opponent has reacted (rerolled or stood)")
    return _turn_over(spec, track, ev, side) or _spent(spec, track, side, verb)


def _turn_over(spec: dict, track: dict, ev: dict, side: str) -> str:
    s = track["sides"][side]
    if s["closed"]:
        return "the turn ended with the natural shoresh reward" if s["reward"] else "the turn is over (stood)"
    if side == "opponent" and ev["voided"]:
        return "the reaction is void: the initiator took +1 and cannot be countered"
    if side == "opponent" and _open_steps(spec, track, ev, "initiator"):
        return "the initiator's turn comes first; the opponent reacts once the initiator stands or has no step left"
    return ""


def _spent(spec: dict, track: dict, side: str, verb: str) -> str:
    return _SPENT[verb](spec, track, side)


def _no_reroll(spec: dict, track: dict, side: str) -> str:
    sp = _side_spec(spec, side)
    if sp["rounds"] == 0:
        return "a status forbids rerolling (rounds 0)"
    return "X is 0" if _xs(spec)[side] == 0 else f"all {sp['rounds']} reroll round(s) are used"


def _no_cipher(spec: dict, track: dict, side: str) -> str:
    return f"{_side_spec(spec, side)['cipher']} cipher flip(s) allowed and {track['sides'][side]['ciphers']} used"


def _no_natural(spec: dict, track: dict, side: str) -> str:
    return "the dice are not a natural shoresh" if side == "initiator" else "only the initiator chooses"


def _no_stand(spec: dict, track: dict, side: str) -> str:
    if not spec["opponent"]:
        return "stand ends a side's turn in an opposed roll; here the roll simply stops when you do"
    if "natural" in _allowed(spec, track)[side]:
        return "with a natural shoresh on the table, choose its reward to end the turn"
    return "no step is left to stand from"


_SPENT = {"reroll": _no_reroll, "cipher": _no_cipher, "natural": _no_natural, "stand": _no_stand}


# --------------------------------------------------------------------------
# Reading a track: counts and the outcome (RULES-NOTES Milhamah 3-5, 7).

def _evaluate(spec: dict, track: dict) -> dict:
    """Counts per side and the outcome."""
    ev: dict = {side: _side_counts(spec, side, s) for side, s in track["sides"].items()}
    ev.update(_score(spec, track["sides"]["initiator"], ev))
    return ev


def _side_counts(spec: dict, side: str, s: dict) -> dict:
    faces = _faces(spec, side, s["idx"])
    wc = side == "initiator" and not spec["reaction"]
    c = _count(_side_spec(spec, side)["shoresh"], faces, wc)
    c.update(faces=faces, wilds_count=wc)
    return c


def _bonus_parts(spec: dict, s: dict, me: dict, reward: str) -> list:
    """The bonuses on top of the dice, as (kind, n): the first-roll natural
    (RULES-NOTES Milhamah 4), the natural's reward, successes pocketed from
    an opponent's botch."""
    reward_bonus = {"uncounterable": 1, "successes": len(spec["shoresh"])}.get(reward, 0)
    parts = [("first", spec["first_bonus"] if _first_kept(s, me) else 0),
             ("natural", reward_bonus if me["natural"] else 0), ("pocketed", spec["pocketed"])]
    return [(kind, n) for kind, n in parts if n]


def _first_kept(s: dict, me: dict) -> bool:
    """A natural on the first roll, still shown and never rerolled."""
    return bool(s["first_natural"] and not s["rerolled"] and me["natural"])


def _score(spec: dict, s: dict, ev: dict) -> dict:
    """The initiator's total against the difficulty or the opponent. Before
    a natural's reward is chosen it is read as the default (the success
    bonus; opposed, +1 and uncounterable), which ``pending`` says."""
    me = ev["initiator"]
    opp = spec["opponent"]
    reward = s["reward"] or (OPPOSED_REWARDS[0] if opp else NATURAL_REWARDS[0])
    parts = _bonus_parts(spec, s, me, reward)
    bonus = sum(n for _k, n in parts)
    total = me["successes"] + bonus
    needed, adj = _needed(spec, ev["opponent"]["successes"] if opp else spec["difficulty"])
    return {"reward": reward, "bonus": bonus, "bonus_parts": parts, "total": total,
            "needed": needed, "adj": adj, "outcome": _outcome(me, reward, total, needed, ev.get("opponent")),
            "voided": me["natural"] and s["reward"] == "uncounterable",
            "pending": me["natural"] and not s["reward"],
            "first_bonus_kept": _first_kept(s, me)}


def _outcome(me: dict, reward: str, total: int, needed: int, them: dict | None) -> str:
    """"The final results": no letter is a botch (wilds do not rescue it);
    opposed, a natural taken as "+1 and cannot be countered" succeeds, and
    "let them react" is critical while the opponent has no success."""
    if not me["matches"]:
        return "botch"
    verdict = _opposed_natural(reward, them) if me["natural"] else None
    if verdict:
        return verdict
    if total > needed:
        return "natural_success" if me["natural"] else "success"
    return "success_at_cost" if total == needed else "failure"


def _opposed_natural(reward: str, them: dict | None) -> str | None:
    if them is None:
        return None
    if reward == "uncounterable":
        return "natural_success"
    return "critical_success" if them["successes"] == 0 else None


# --------------------------------------------------------------------------
# The result the page draws.

def _role(s: dict, i: int, dropped: bool) -> str:
    if dropped:
        return "dropped"
    if "rerolled" in s["how"][i]:
        return "rerolled"
    return "frozen" if s["rerolled"] else "rolled"


def _dice_out(spec: dict, side: str, s: dict, c: dict, dropped: bool) -> list:
    out = []
    for i, ((colour, design), idx) in enumerate(zip(dice_of(_side_spec(spec, side)), s["idx"])):
        faces = die_faces(colour, design)
        extra = {"colour": colour, "design": design, "index": idx,
                 "success": i in c["matches"] or (c["wilds_count"] and i in c["wilds"]),
                 "wild": i in c["wilds"], "match": i in c["matches"], "events": list(s["how"][i])}
        if "cipher" in s["how"][i]:
            extra["ciphered"] = True
        out.append(Die(face=faces[idx - 1], role=_role(s, i, dropped), faces=tuple(faces),
                       history=tuple(faces[h - 1] for h in s["hist"][i]), extra=extra).to_dict())
    return out


def _side_out(spec: dict, track: dict, ev: dict, side: str, allowed: list) -> dict:
    s = track["sides"][side]
    sp = _side_spec(spec, side)
    c = ev[side]
    return {"dice": _dice_out(spec, side, s, c, side == "opponent" and ev["voided"]),
            "shoresh": sp["shoresh"], "successes": c["successes"], "matches": len(c["matches"]),
            "wilds": len(c["wilds"]), "wilds_count": c["wilds_count"], "natural": c["natural"],
            "first_natural": bool(s["first_natural"]), "x": _xs(spec)[side],
            "rounds_left": max(0, sp["rounds"] - s["rounds"]),
            "ciphers_left": max(0, sp["cipher"] - s["ciphers"]),
            "allowed": allowed, "closed": s["closed"], "reward": s["reward"]}


def _turn(spec: dict, track: dict, ev: dict, allowed: dict) -> str | None:
    """Whose dice may still change: "initiator", "opponent", or None."""
    mine = [v for v in allowed["initiator"] if v != "hit_location"]
    if mine:
        return "initiator"
    return "opponent" if allowed.get("opponent") else None


def _present(spec: dict, track: dict) -> dict:
    """The result dict the page draws: dice with roles and flags, the
    headline numbers, the outcome, what may happen next, what else the dice
    spell, and why (``explain_milhamah``)."""
    ev = _evaluate(spec, track)
    allowed = _allowed(spec, track, ev)
    me = _side_out(spec, track, ev, "initiator", allowed["initiator"])
    result: dict = {
        "dice": me["dice"], "value": me["successes"], "bonus": ev["bonus"], "total": ev["total"],
        "needed": ev["needed"], "outcome": ev["outcome"],
        "successes": me["successes"], "matches": me["matches"], "wilds": me["wilds"],
        "natural": me["natural"], "first_natural": me["first_natural"],
        "first_bonus_kept": ev["first_bonus_kept"], "natural_pending": ev["pending"],
        "x": me["x"], "rounds_left": me["rounds_left"], "ciphers_left": me["ciphers_left"],
        "allowed": me["allowed"], "reward": ev["reward"] if me["natural"] else None,
        "merit_point": bool(me["natural"] and ev["reward"] == "merit"),
        "turn": _turn(spec, track, ev, allowed),
    }
    if ev["outcome"] == "botch":
        result["botch_wilds"] = me["wilds"]
    if spec["opponent"]:
        result.update(_opposed_out(spec, track, ev, _side_out(spec, track, ev, "opponent", allowed["opponent"])))
    if track["hit"]:
        result["hit"] = _hit(track["hit"], result.get("margin", ev["total"]))
    found = spelled(ev["initiator"]["faces"], (spec["shoresh"],))
    result["also_spell"] = [{"root": r, "gloss": g} for r, g in found[:SPELLED_SHOWN]]
    result["also_spell_count"] = len(found)
    result["explain"] = explain_milhamah.explain(spec, ev, result, track["log"])
    return result


def _opposed_out(spec: dict, track: dict, ev: dict, o: dict) -> dict:
    """The opponent's side, the modifier, and what a failed or botched
    initiator gives the opponent (RULES-NOTES Milhamah 7, "Critical
    failure")."""
    out = {"opponent": o, "modifier": spec["rerolls"] - spec["opponent"]["rerolls"],
           "allowed_opponent": o["allowed"]}
    if ev["outcome"] in ("failure", "botch"):
        names = list(dict.fromkeys(spec["opponent"]["shorashim"] + [spec["opponent"]["shoresh"]]))
        out["counter"] = [n for n in names if _found(n, ev["initiator"]["faces"])]
    if ev["outcome"] == "botch":
        out["pocket"] = o["successes"]
        out["plus_xr"] = max(0, ev["needed"] - ev["total"])
    if ev["outcome"] == "critical_success" or track["hit"]:
        out["margin"] = ev["total"] - o["successes"]
    return out


def _hit(h: dict, margin: int) -> dict:
    """Margin to armour, then VIG soak, then wounds light → serious →
    critical ("Critical success"; RULES-NOTES Milhamah 8)."""
    left = max(0, margin)
    taken = {}
    for k in ("armour", "vig", "light", "serious", "critical"):
        taken[k] = min(left, h[k])
        left -= taken[k]
    die = Die(face=h["letter"], role="rolled", faces=tuple(LETTERS)).to_dict()
    return {"letter": h["letter"], "location": HIT_LOCATIONS[h["letter"]], "margin": margin,
            "armour": taken["armour"], "vig": taken["vig"],
            "wounds": {k: taken[k] for k in ("light", "serious", "critical")}, "beyond": left,
            "gm": {k: h[k] for k, _hi, _d in HIT_BOXES}, "die": die}


# Odds: exact, by die type and face category, never by 12^n outcomes.

def _categories(faces: list, letters: list, wilds_count: bool) -> list:
    """A die's faces as (category, count): category j < k is letter j of
    the shoresh, k is wild, k + 1 other."""
    k = len(letters)
    counts = [0] * (k + 2)
    for f in faces:
        if f in letters:
            counts[letters.index(f)] += 1
        elif f == WILD:
            counts[k] += 1
        else:
            counts[k + 1] += 1
    return [(c, n) for c, n in enumerate(counts) if n]


def _chains(cats: list, k: int, wilds_count: bool, x: int, rounds: int) -> dict:
    """For one die and each budget state ``used`` (rerolls taken so far in
    each round), the final category and the new ``used``, with integer
    weights out of 12 ** (rounds + 1). The default policy (RULES-NOTES
    Milhamah 6): a success stays frozen; a non-success is rerolled while the
    round's X is not spent (the first X non-successes in die order)."""
    memo: dict = {}

    def go(used: tuple, r: int) -> list:
        """Draw the die at round r (0 = the first roll), then carry on."""
        key = (used, r)
        if key not in memo:
            out: dict = {}
            for c, w in cats:
                for kk, w2 in after(c, used, r):
                    out[kk] = out.get(kk, 0) + w * w2
            memo[key] = list(out.items())
        return memo[key]

    def after(c: int, used: tuple, r: int) -> list:
        """The die shows category c after round r: a success stays frozen;
        a non-success is rerolled in the next round while that round's X
        lasts, else it waits for the round after (a face not drawn counts
        12 ways, so every path has the same denominator)."""
        success = c < k or (c == k and wilds_count)
        if success or r == rounds:
            return [((c, used), SIDES ** (rounds - r))]
        if used[r] < x:
            return go(used[:r] + (used[r] + 1,) + used[r + 1:], r + 1)
        return [(kk, w * SIDES) for kk, w in after(c, used, r + 1)]

    return go


class _TooBig(Exception):
    """The exact enumeration would take too long for a tap; sample instead."""


#: Past this many states the exact enumeration is too slow for a tap in
#: the browser (about 1000 states ≈ 70 ms CPython); only extra reroll
#: rounds with a large X on 12 dice get there.
STATE_LIMIT = 500
#: Plays per side when sampling (95 % margin ≤ 1.96 * sqrt(0.25 / n)).
SAMPLES = 2000


def _side_dist(types: list, shoresh: str, wilds_count: bool, x: int, rounds: int,
               start: tuple | None = None, limit: int = 10 ** 9) -> tuple:
    """Distribution of (letter-cover code, successes, rerolled?) after the
    first roll and ``rounds`` reroll rounds of the default policy, as
    integer weights over a common denominator. ``types`` lists each die's
    faces. ``start`` is a fixed part already on the table (cover, successes).
    """
    need = _need(shoresh)
    letters = list(need)
    k = len(letters)
    caps = [need[ch] for ch in letters]
    # cover code: mixed radix, digit j = min(count of letter j, need j)
    radix = []
    m = 1
    for cap in caps:
        radix.append(m)
        m *= cap + 1
    full = sum(cap * r for cap, r in zip(caps, radix))
    add = []
    for j in range(k):
        add.append(radix[j])
    rounds = rounds if x > 0 else 0
    chains = {}
    for faces in types:
        key = tuple(faces)
        if key not in chains:
            chains[key] = _chains(_categories(faces, letters, wilds_count), k, wilds_count, x, rounds)
    states: dict = {(start or (0, 0)) + ((0,) * rounds,): 1}
    n = len(types)
    for pos, faces in enumerate(types):
        go = chains[tuple(faces)]
        new: dict = {}
        # A round's count matters only while the dice still to come could
        # exhaust X; below that every count behaves alike, so fold it to 0.
        floor = x - (n - pos - 1)
        for (code, succ, used), w in states.items():
            for (c, u2), w2 in go(used, 0):
                if c < k:
                    digit = (code // radix[c]) % (caps[c] + 1)
                    code2 = code + add[c] if digit < caps[c] else code
                    s2 = succ + 1
                elif c == k and wilds_count:
                    code2, s2 = code, succ + 1
                else:
                    code2, s2 = code, succ
                key = (code2, s2, u2)
                new[key] = new.get(key, 0) + w * w2
        if floor >= 0 and rounds:
            folded: dict = {}
            for (code, succ, used), w in new.items():
                key = (code, succ, tuple(0 if u <= floor else u for u in used))
                folded[key] = folded.get(key, 0) + w
            new = folded
        states = new
        if len(states) > limit:
            raise _TooBig
    out: dict = {}
    for (code, succ, used), w in states.items():
        key = (code, succ, sum(used) > 0)
        out[key] = out.get(key, 0) + w
    return out, full


def _sample_side(types: list, shoresh: str, wilds_count: bool, x: int, rounds: int, rng) -> tuple:
    """The same distribution as ``_side_dist``, by ``SAMPLES`` seeded plays
    of the default policy (counts as weights)."""
    need = _need(shoresh)
    letters = list(need)
    k = len(letters)
    cat_of = {ch: j for j, ch in enumerate(letters)}
    cat_of[WILD] = k
    cats = [[cat_of.get(f, k + 1) for f in faces] for faces in types]
    caps = [need[ch] for ch in letters]
    radix, m = [], 1
    for cap in caps:
        radix.append(m)
        m *= cap + 1
    full = sum(cap * r for cap, r in zip(caps, radix))
    rounds = rounds if x > 0 else 0
    rnd = rng.random
    out: dict = {}
    for _ in range(SAMPLES):
        now = [c[int(rnd() * SIDES)] for c in cats]
        rerolled = False
        for _r in range(rounds):
            left = x
            for i, c in enumerate(now):
                if left and not (c < k or (c == k and wilds_count)):
                    now[i] = cats[i][int(rnd() * SIDES)]
                    left -= 1
                    rerolled = True
        counts = [0] * (k + 2)
        for c in now:
            counts[c] += 1
        code = sum(min(counts[j], caps[j]) * radix[j] for j in range(k))
        succ = sum(counts[:k]) + (counts[k] if wilds_count else 0)
        key = (code, succ, rerolled)
        out[key] = out.get(key, 0) + 1
    return out, full


def _side_types(spec: dict, side: str) -> list:
    return [die_faces(c, d) for c, d in dice_of(_side_spec(spec, side))]


def _outcome_of(spec: dict, covered: int, full: int, succ: int, rerolled: bool, opp_succ: int | None,
                first_possible: bool = True, reward: str | None = None) -> str:
    """The outcome of one combined state, the same reading as
    ``_evaluate``; ``reward`` is the natural reward chosen (None: the
    default, a success bonus unopposed, +1 and uncounterable opposed)."""
    natural = covered == full
    opp = spec["opponent"]
    reward = reward or (OPPOSED_REWARDS[0] if opp else NATURAL_REWARDS[0])
    bonus = spec["pocketed"]
    if natural and not rerolled and first_possible:
        bonus += spec["first_bonus"]
    if natural and reward == "uncounterable" and opp:
        bonus += 1
    elif natural and reward == "successes" and not opp:
        bonus += len(spec["shoresh"])
    total = succ + bonus
    if covered == 0:
        return "botch"
    if opp and natural and reward == "uncounterable":
        return "natural_success"
    if opp and natural and reward == "critical" and opp_succ == 0:
        return "critical_success"
    needed, _ = _needed(spec, opp_succ if opp else spec["difficulty"])
    if total > needed:
        return "natural_success" if natural else "success"
    if total == needed:
        return "success_at_cost"
    return "failure"


def _combine(spec: dict, mine: dict, full: int, theirs: dict | None, first_possible: bool = True,
             reward: str | None = None) -> dict:
    """Outcome, value and natural odds from the roller's states
    {(cover, successes, rerolled?): weight} and the opponent's
    {successes: weight}."""
    outcome = {o: 0 for o in OUTCOMES}
    value: dict = {}
    natural = 0
    denom_m = sum(mine.values())
    if theirs is None:
        theirs = {None: 1}
        denom_t = 1
    else:
        denom_t = sum(theirs.values())
    for (code, succ, rr), w in mine.items():
        value[succ] = value.get(succ, 0) + w
        if code == full:
            natural += w
        for t, wt in theirs.items():
            outcome[_outcome_of(spec, code, full, succ, rr, t, first_possible, reward)] += w * wt
    total = denom_m * denom_t
    return {"value": {v: w / denom_m for v, w in value.items()},
            "outcome": {o: w / total for o, w in outcome.items()},
            "natural": natural / denom_m}


_MEETS = ("success_at_cost", "success", "natural_success", "critical_success")


def _summary(spec: dict, rounds: int) -> dict:
    """Outcome odds after ``rounds`` reroll rounds of the default policy;
    exact unless the enumeration is too big (then sampled, seeded by the
    spec, and ``sampled`` says how many plays)."""
    xs = _xs(spec)
    wc = not spec["reaction"]
    types = _side_types(spec, "initiator")
    sampled = 0
    rng = None
    try:
        mine, full = _side_dist(types, spec["shoresh"], wc, xs["initiator"], rounds, limit=STATE_LIMIT)
    except _TooBig:
        rng = random.Random(spec_seed("milhamah", spec, rounds))
        mine, full = _sample_side(types, spec["shoresh"], wc, xs["initiator"], rounds, rng)
        sampled = SAMPLES
    theirs = None
    if spec["opponent"]:
        o = spec["opponent"]
        try:
            dist, _f = _side_dist(_side_types(spec, "opponent"), o["shoresh"], False, xs["opponent"],
                                  o["rounds"], limit=STATE_LIMIT)
        except _TooBig:
            rng = rng or random.Random(spec_seed("milhamah", spec, rounds))
            dist, _f = _sample_side(_side_types(spec, "opponent"), o["shoresh"], False, xs["opponent"],
                                    o["rounds"], rng)
            sampled = SAMPLES
        theirs = {}
        for (_c, v, _r), w in dist.items():
            theirs[v] = theirs.get(v, 0) + w
    out = _combine(spec, mine, full, theirs)
    out["sampled"] = sampled
    return out


def odds(spec: dict, result: dict | None = None, action: dict | None = None) -> dict:
    """Exact odds by enumerating each die's face categories (a letter of the
    shoresh, wild, other), never the 12^n outcomes.

    Before a roll: the outcome after the first roll and the reroll rounds of the
    default policy (RULES-NOTES Milhamah 6: freeze every success, reroll
    the first X of the others), P(meeting the difficulty) after the first
    roll and after the rerolls, P(natural shoresh), P(botch), and the three
    colour pairs ranked. With a result and a ``reroll`` action: the odds of
    that reroll, the other dice frozen as they lie.

    >>> o = odds(normalize({"shoresh": "אשר", "pool": ["red", "green"], "rerolls": 3}))
    >>> round(sum(o["outcome"].values()), 9), o["exact"]
    (1.0, True)
    """
    if result is not None:
        return _odds_after(spec, result, action)
    final = _summary(spec, spec["rounds"])
    first = _summary(spec, 0)
    meets = lambda o: sum(o["outcome"][k] for k in _MEETS)
    out = {
        "value": dist_to_json(final["value"]),
        "outcome": final["outcome"],
        "exact": not final["sampled"],
        "meets_first": meets(first),
        "meets_final": meets(final),
        "natural_first": first["natural"],
        "natural": final["natural"],
        "botch_first": first["outcome"]["botch"],
        "botch": final["outcome"]["botch"],
        "policy": "freeze every success, reroll the first X of the others (RULES-NOTES Milhamah 6)",
        "rounds": spec["rounds"],
    }
    if final["sampled"] or first["sampled"]:
        n = final["sampled"] or first["sampled"]
        out["sampled"] = n
        out["margin"] = round(1.96 * (0.25 / n) ** 0.5, 4)
        out["note"] = (f"sampled: {n} seeded plays per side (95 % margin ±{out['margin'] * 100:.1f} points); "
                       "exact enumeration is too slow for this many dice, rounds and X")
    out["colours"] = _colour_ranking(spec)
    out["colours_rounds"] = min(spec["rounds"], 1)
    return out


_RANKING_CACHE: dict = {}


def _colour_ranking(spec: dict) -> list:
    """The three colour pairs for this shoresh, best first (ties keep
    colour order); pairs a status forbids are left out. The ranking does
    not depend on the pair chosen, so switching pairs on the tab reuses it
    (a small cache keyed by the rest of the spec)."""
    key = json.dumps({k: v for k, v in spec.items() if k != "pool"}, sort_keys=True, ensure_ascii=False)
    if key not in _RANKING_CACHE:
        if len(_RANKING_CACHE) >= 64:
            _RANKING_CACHE.clear()
        _RANKING_CACHE[key] = _rank_pairs(spec)
    return [dict(row) for row in _RANKING_CACHE[key]]


def _rank_pairs(spec: dict) -> list:
    rows = []
    for i, a in enumerate(COLOURS):
        for b in COLOURS[i + 1:]:
            if a in spec["forbid"] or b in spec["forbid"]:
                continue
            s2 = dict(spec)
            s2["pool"] = {c: 4 if c in (a, b) else 0 for c in COLOURS}
            try:
                dice_of(s2)
            except SpecError:
                continue
            r = _summary(s2, min(spec["rounds"], 1))
            rows.append({"pair": [a, b],
                         "meets": sum(r["outcome"][k] for k in _MEETS),
                         "natural": r["natural"], "botch": r["outcome"]["botch"]})
    rows.sort(key=lambda r: -round(r["meets"], 12))
    return rows


def _odds_after(spec: dict, result: dict, action: dict | None) -> dict:
    """Odds of one reroll from the dice on the table: the named dice are
    rerolled, all others stay (frozen)."""
    track = _load_track(spec, result)
    side = (action or {}).get("side", "initiator")
    if not isinstance(side, str) or side not in track["sides"]:
        raise SpecError("side", "must be initiator" + (" or opponent" if spec["opponent"] else ""))
    ev = _evaluate(spec, track)
    s = track["sides"][side]
    n = len(s["idx"])
    if action is None:
        c = ev[side]
        succ = set(c["matches"]) | (set(c["wilds"]) if c["wilds_count"] else set())
        chosen = [i for i in range(n) if i not in succ][: _xs(spec)[side]]
        if "reroll" not in _allowed(spec, track, ev)[side]:
            chosen = []
    else:
        if action.get("do") != "reroll":
            raise SpecError("action", "odds are given for a reroll")
        chosen = action.get("dice")
        if not isinstance(chosen, list) or any(isinstance(i, bool) or not isinstance(i, int)
                                               or not 0 <= i < n for i in chosen) \
                or len(set(chosen)) != len(chosen):
            raise SpecError("dice", f"must list die numbers from 0 to {n - 1}")
        if len(chosen) > _xs(spec)[side]:
            raise SpecError("dice", f"at most X = {_xs(spec)[side]} dice may be rerolled")
    types = _side_types(spec, side)
    rer = [types[i] for i in sorted(chosen)]
    sp = _side_spec(spec, side)
    wc = side == "initiator" and not spec["reaction"]
    kept_faces = [ev[side]["faces"][i] for i in range(n) if i not in chosen]
    need = _need(sp["shoresh"])
    letters = list(need)
    radix, m = [], 1
    for ch in letters:
        radix.append(m)
        m *= need[ch] + 1
    code = sum(min(need[ch], kept_faces.count(ch)) * r for ch, r in zip(letters, radix))
    succ = sum(1 for f in kept_faces if f in need or (wc and f == WILD))
    dist, full = _side_dist(rer, sp["shoresh"], wc, 0, 0, (code, succ))
    if side == "initiator":
        rerolled = bool(chosen) or s["rerolled"]
        mine = {(c, v, rerolled): w for (c, v, _r), w in dist.items()}
        theirs = None
        if spec["opponent"]:
            theirs = {ev["opponent"]["successes"]: 1}
        comb = _combine(spec, mine, full, theirs, bool(s["first_natural"]), s["reward"])
        out = {"value": dist_to_json(comb["value"]), "outcome": comb["outcome"],
               "natural": comb["natural"]}
    else:
        # the opponent's reroll against the initiator as the dice lie
        opp_succ = {}
        for (_c, v, _r), w in dist.items():
            opp_succ[v] = opp_succ.get(v, 0) + w
        me = ev["initiator"]
        mine = {(_code_of(spec["shoresh"], me["faces"]), me["successes"],
                 bool(track["sides"]["initiator"]["rerolled"])): 1}
        comb = _combine(spec, mine, _code_of(spec["shoresh"], list(spec["shoresh"])), opp_succ,
                        bool(track["sides"]["initiator"]["first_natural"]), track["sides"]["initiator"]["reward"])
        tot = sum(opp_succ.values())
        out = {"value": dist_to_json({v: w / tot for v, w in opp_succ.items()}),
               "outcome": comb["outcome"]}
    out.update({"exact": True, "side": side, "dice": sorted(chosen),
                "meets": sum(out["outcome"][k] for k in _MEETS),
                "now": ev["outcome"]})
    return out


def _code_of(shoresh: str, faces: list) -> int:
    need = _need(shoresh)
    code, m = 0, 1
    for ch in need:
        code += min(need[ch], faces.count(ch)) * m
        m *= need[ch] + 1
    return code
