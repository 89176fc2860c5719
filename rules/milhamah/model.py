"""Milhamah RPG (its rules text): twelve-sided Hebrew letter
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
functions (``load_track``), so a step the rules would refuse, or draws
that don't fit the dice, is a SpecError wherever they come from.

The faces of the dice are data (``dice.json``, RULES-NOTES
Milhamah 2): each die of a colour has 12 faces; face i is opposite face
13 - i, so a cipher flips a die to the face at 13 - i. The words of the
explanation are ``explain``'s.

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
import re
import unicodedata
from typing import Any

from ..dice import Die, SpecError, check_keys, get_bool, get_int, is_int, name_key
from ..stages import rebuild
from ..system import check_action
from . import explain
from .letters import (COLOURS, DATA, DICE_PER_COLOUR, FINALS, LETTER_NAMES, LETTERS, SIDES, UNCOUNTERABLE_BONUS,
                      WILD, load_dice, written)

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "STEPS", "LETTERS", "WILD", "COLOURS", "FINALS", "SIDES",
           "DICE_PER_COLOUR", "COLOURS_ROLLED", "SHORESH_MIN", "SHORESH_MAX", "FIRST_BONUS", "COMBAT_STEP",
           "UNCOUNTERABLE_BONUS",
           "DIFFICULTIES", "COMBAT", "HIT_LOCATIONS", "LETTER_NAMES", "ROOTS", "VERBS",
           "normalize", "roll", "act", "fold_shoresh", "die_faces", "spelled",
           "faces_table", "written", "dice_of", "pool_from_pair", "load_dice", "load_roots",
           "effective_difficulty", "load_track", "evaluate", "allowed_verbs", "open_actions", "whose_turn", "x_per_side",
           "side_spec", "needed_successes", "letters_needed", "is_die_index", "side_named"]

NAME = "milhamah"
TITLE = "Milhamah RPG"

OUTCOMES = ("botch", "failure", "success_at_cost", "success", "natural_success",
            "critical_success")

ROOTS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "roots.json")

#: The difficulty table ("Unopposed Rolls"): name -> successes needed.
DIFFICULTIES = {name: n for name, _title, n in DATA["difficulties"]}
DIFFICULTY_TITLES = {name: title for name, title, _n in DATA["difficulties"]}
#: Combat modifiers ("Combat modifiers", RULES-NOTES Milhamah 9): the sign
#: each moves the difficulty, times ``combat_step``.
COMBAT = {"engaged": -1, "surprised": -1, "cover": 1, "ambushed": 1}
#: Critical success hit location ("Critical success"), read as written
#: (RULES-NOTES Milhamah 8: ג and נ are both Nose, ב and ת both Eye).
HIT_LOCATIONS: dict = dict(DATA["hit_locations"])
#: The GM's numbers for a hit location: (name, most, default).
HIT_BOXES = (("armour", 99, 0), ("vig", 99, 0), ("light", 12, 1), ("serious", 12, 1),
             ("critical", 12, 1))

MAX_DICE = DICE_PER_COLOUR * len(COLOURS)
#: "Roll Mechanics": the normal roll is of this many colours.
COLOURS_ROLLED = 2
#: A shoresh has this many letters, at least and at most.
SHORESH_MIN, SHORESH_MAX = 2, 4
#: The first-roll natural's bonus and the combat modifiers' step, as the
#: spec's defaults (RULES-NOTES Milhamah 4 and 9).
FIRST_BONUS = 1
COMBAT_STEP = 1
MAX_X = 12
MAX_ROUNDS = 4
NATURAL_REWARDS = ("successes", "merit")
OPPOSED_REWARDS = ("uncounterable", "critical")
#: The steps after a roll and the keys each takes (DESIGN.md verbs;
#: ``stand`` ends a side's turn in an opposed roll, ``accept`` ends an
#: unopposed turn with the dice as they lie, docs/RULES-DECISIONS.md,
#: Milhamah).
STEPS = {"reroll": ("dice", "side"), "cipher": ("dice", "side"), "natural": ("reward", "side"),
         "stand": ("side",), "accept": ("side",), "hit_location": ("side",) + tuple(k for k, _hi, _d in HIT_BOXES)}
VERBS = tuple(STEPS)

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
    """The common roots the dice may also spell (``roots.json``:
    its ``about``, ``source`` and ``license`` say where they come from), as
    (root, gloss, its letters, letters needed), most used first. Each root
    is three base letters."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    rows = [(r["root"], r["gloss"]) for r in data["roots"]]
    _check_roots([r for r, _g in rows], path)
    return [(r, g, frozenset(r), letters_needed(r)) for r, g in rows]


def _check_roots(roots: list, path: str) -> None:
    """Every root is three base letters (a ValueError naming the first few
    that are not)."""
    bad = [r for r in roots if len(r) != 3 or not set(r) <= set(LETTERS)]
    if bad:
        raise ValueError(f"{path}: roots must be three base letters (not {', '.join(bad[:3])})")


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
    _check_text(text, field)
    out = [_letter(ch, field) for ch in text if not _ignored(ch)]
    if not SHORESH_MIN <= len(out) <= SHORESH_MAX:
        raise SpecError(field, f"must have {SHORESH_MIN} to {SHORESH_MAX} letters (got {len(out)})")
    return "".join(out)


def _check_text(text: Any, field: str) -> None:
    """A shoresh is text, and not a long one (before any letter is read)."""
    if not isinstance(text, str):
        raise SpecError(field, f"must be {SHORESH_MIN} to {SHORESH_MAX} Hebrew letters (got {type(text).__name__})")
    if len(text) > 60:
        raise SpecError(field, f"is too long: a shoresh has {SHORESH_MIN} to {SHORESH_MAX} letters")


def _ignored(ch: str) -> bool:
    return bool(_IGNORED.match(ch)) or ("\u0591" <= ch <= "\u05c7" and unicodedata.category(ch) == "Mn")


def _letter(ch: str, field: str) -> str:
    ch = FINALS.get(ch, ch)
    if ch not in LETTERS:
        raise SpecError(field, f"{ch!r} is not a Hebrew letter; use 2 to 4 of א-ת "
                               f"(final forms {' '.join(FINALS)} fold)")
    return ch


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
        counts[c] = DICE_PER_COLOUR
    return counts


def _pool_of_counts(v: dict, field: str) -> dict:
    if len(v) > 8:
        raise SpecError(field, "must map colours to counts")
    counts = {c: 0 for c in COLOURS}
    for c, n in v.items():
        counts[_colour(c, field)] = get_int({"n": n}, "n", 0, DICE_PER_COLOUR, default=0, field=field)
    return counts


def _forbid(spec: dict, pre: str, pool: dict) -> list:
    """The colours a status forbids; a forbidden colour in the pool is an
    error at the pool."""
    named = _names(spec.get("forbid"), pre + "forbid", len(COLOURS), "must list colours a status forbids")
    forbid = {_colour(x, pre + "forbid") for x in named}
    _check_allowed(pool, forbid, pre)
    return [c for c in COLOURS if c in forbid]


def _check_allowed(pool: dict, forbid: set, pre: str) -> None:
    """No colour of the pool is one a status forbids (an error at the pool)."""
    for c in COLOURS:
        if c in forbid and pool[c]:
            raise SpecError(pre + "pool", f"{c} is forbidden by a status; choose other colours")


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
    out["combat_step"] = get_int(spec, "combat_step", 0, 3, COMBAT_STEP)
    out["first_bonus"] = get_int(spec, "first_bonus", 0, 4, FIRST_BONUS)
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
    chosen = {_colour(p, field) for p in _pair_names(pair, field)}
    if len(chosen) != COLOURS_ROLLED:
        raise SpecError(field, "must be two different colours")
    return {c: DICE_PER_COLOUR * (c in chosen) for c in COLOURS}


def _pair_names(pair: Any, field: str) -> list:
    """The two names of a pair: "red+green" (or with a comma, & or
    spaces), or a list of two."""
    names = re.findall(r"[^+,&\s]+", pair) if isinstance(pair, str) else pair
    if not isinstance(names, (list, tuple)) or len(names) != COLOURS_ROLLED:
        raise SpecError(field, "must be two colours, e.g. red+green")
    return names


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
    room = [c for c in COLOURS if c not in forbid and counts[c] < DICE_PER_COLOUR]
    if not room:
        raise SpecError(pre + "dice_change",
                        f"no room for more dice: at most {DICE_PER_COLOUR} of each allowed colour")
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

def letters_needed(shoresh: str) -> dict:
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
    need = letters_needed(shoresh)
    matches = [i for i, f in enumerate(faces) if f in need]
    wilds = [i for i, f in enumerate(faces) if f == WILD]
    return {"matches": matches, "wilds": wilds,
            "successes": len(matches) + (len(wilds) if wilds_count else 0),
            "natural": _covers(need, faces)}


def _found(shoresh: str, faces: list) -> bool:
    """Does a set of final dice contain this shoresh (letters, no wilds)?"""
    return _covers(letters_needed(shoresh), faces)


ROOTS = load_roots()
#: How many of the roots the dice also spell a result lists.
SPELLED_SHOWN = 6


def spelled(faces: list, exclude: tuple = ()) -> list:
    """The common roots (``ROOTS``) the faces spell, each letter on its own
    die and wilds not counted, most used first, ``exclude`` left out
    (Milhamah RPG, Critical failure, its closing paragraphs: the Narrator
    may "interpret and allude to other shorashim that appear in the final
    roll").

    >>> [r for r, _g in spelled(["ש", "ל", "מ", "*"])]
    ['שלמ', 'משל']
    """
    shown = frozenset(faces)
    return [(r, g) for r, g, letters, need in ROOTS
            if letters <= shown and r not in exclude and (len(letters) == len(r) or _covers(need, faces))]


def needed_successes(spec: dict, base: int) -> tuple:
    """(successes needed, combat adjustment) against ``base``."""
    adj = sum(COMBAT[c] for c in spec["combat"]) * spec["combat_step"]
    return max(0, base + adj), adj


def effective_difficulty(spec: dict, base: int | None = None) -> tuple:
    """(successes needed, combat adjustment): the difficulty (or ``base``,
    e.g. the opponent's successes) moved by the combat modifiers
    (RULES-NOTES Milhamah 9), never below 0.

    >>> effective_difficulty(normalize({"difficulty": 3, "combat": ["surprised", "engaged"]}))
    (1, -2)
    """
    return needed_successes(spec, spec["difficulty"] if base is None else base)


def x_per_side(spec: dict) -> dict:
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


def side_spec(spec: dict, side: str) -> dict:
    """The spec of one side: the roller's own, or the opponent's."""
    return spec if side == "initiator" else spec["opponent"]


# --------------------------------------------------------------------------
# The track: a turn's state, never stored in a result but rebuilt from its
# stages (the roll, then each step with its draws).

def _new_side(idx: list) -> dict:
    return {"idx": idx, "hist": [[i] for i in idx], "how": [["rolled"] for _ in idx],
            "rounds": 0, "ciphers": 0, "rerolled": False, "reward": None, "closed": False,
            "first_natural": None}


def _faces(spec: dict, side: str, idx: list) -> list:
    dice = dice_of(side_spec(spec, side))
    return [die_faces(c, d)[i - 1] for (c, d), i in zip(dice, idx)]


def _roll_track(spec: dict, rng) -> dict:
    """The first roll: the roller's dice in order, then the opponent's; each
    one ``rng.randint(1, 12)`` indexing its faces ("The basic roll
    mechanic")."""
    track: dict = {"sides": {}, "hit": None, "log": ["roll"]}
    for side in ["initiator"] + (["opponent"] if spec["opponent"] else []):
        n = len(dice_of(side_spec(spec, side)))
        track["sides"][side] = _new_side([rng.randint(1, SIDES) for _ in range(n)])
    for side, s in track["sides"].items():
        s["first_natural"] = _found(side_spec(spec, side)["shoresh"], _faces(spec, side, s["idx"]))
    return track


def roll(spec: dict, rng) -> dict:
    """The first roll (``_roll_track``), presented.

    >>> from rules.dice import ScriptedRng
    >>> r = roll(normalize({"shoresh": "אשר", "pool": ["red"]}), ScriptedRng([1, 6, 11, 12]))
    >>> [d["face"] for d in r["dice"]], r["value"], r["natural"]
    (['א', '*', 'ש', 'ע'], 3, False)
    """
    return _present(spec, _roll_track(spec, rng))


def load_track(spec: dict, result: Any) -> dict:
    """The turn's state, rebuilt by replaying the result's ``stages``
    through ``_roll_track`` and ``_step`` (``stages.rebuild``: each stage's
    draws through a ScriptedRng): a step the rules would refuse, or draws
    that don't fit the dice, is a SpecError, whatever else the result
    claims."""
    return rebuild(result, lambda rng: _roll_track(spec, rng),
                   lambda track, action, rng: _step(spec, track, action, rng))


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
    - ``accept`` (unopposed): end the turn with the dice as they lie; no
      step is left after it (a natural's reward is chosen instead).
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
    return _present(spec, _step(spec, load_track(spec, result), action, rng))


# --------------------------------------------------------------------------
# The steps: each checks its own arguments, changes the track, and says what
# it did (for the explanation).

def _step(spec: dict, track: dict, action: dict, rng) -> dict:
    verb = check_action(action, STEPS, TITLE)["do"]
    side = side_named(action, track["sides"])
    if verb not in allowed_verbs(spec, track)[side]:
        raise SpecError("action", f"{verb} is not allowed now for the {side}: " + _why_not(spec, track, side, verb))
    done = _STEPS[verb](spec, track, side, action, rng)
    track["log"].append({"do": verb, "side": side, **done})
    return track


def side_named(action: dict, sides: dict) -> str:
    """The side an action names (the initiator unless it says), checked
    against the sides of this roll (the opponent's only when opposed)."""
    side = action.get("side", "initiator")
    if not isinstance(side, str) or side not in sides:
        raise SpecError("side", "must be initiator" + (" or opponent" if "opponent" in sides else ""))
    return side


def _dice_named(action: dict, n: int, what: str) -> list:
    chosen = action.get("dice")
    if not isinstance(chosen, list) or len(chosen) > n or not all(is_die_index(i, n) for i in chosen):
        raise SpecError("dice", f"must list die numbers from 0 to {n - 1}")
    if len(set(chosen)) != len(chosen):
        raise SpecError("dice", "names a die twice")
    if not chosen:
        raise SpecError("dice", f"name at least one die to {what}")
    return sorted(chosen)


def is_die_index(i: Any, n: int) -> bool:
    """``i`` names one of ``n`` dice (a whole number 0 to n - 1, not a bool)."""
    return is_int(i) and 0 <= i < n


def _show(s: dict, i: int, idx: int, how: str) -> None:
    s["idx"][i] = idx
    s["hist"][i].append(idx)
    s["how"][i].append(how)


def _reroll(spec: dict, track: dict, side: str, action: dict, rng) -> dict:
    s = track["sides"][side]
    chosen = _dice_named(action, len(s["idx"]), "reroll")
    x = x_per_side(spec)[side]
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
    left = side_spec(spec, side)["cipher"] - s["ciphers"]
    if len(chosen) > left:
        raise SpecError("dice", f"at most {left} more dice may be flipped by a cipher")
    for i in chosen:
        _show(s, i, SIDES + 1 - s["idx"][i], "cipher")
    s["ciphers"] += len(chosen)
    return {"dice": chosen}


def rewards(spec: dict) -> tuple:
    """A natural's rewards, the default first (``spec`` normalized)."""
    return OPPOSED_REWARDS if spec["opponent"] else NATURAL_REWARDS


def _natural(spec: dict, track: dict, side: str, action: dict, rng) -> dict:
    choices = rewards(spec)
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
          "accept": _stand, "hit_location": _hit_location}


# --------------------------------------------------------------------------
# Whose turn it is and what it may do ("Opposed Rolls": the initiator's
# turn, then the opponent's reaction; docs/RULES-DECISIONS.md, Milhamah).

def _open_steps(spec: dict, track: dict, ev: dict, side: str) -> list:
    """The dice-changing steps a side has left while its turn is open."""
    s = track["sides"][side]
    if s["closed"] or track["hit"] is not None:
        return []
    sp = side_spec(spec, side)
    can = (("reroll", s["rounds"] < sp["rounds"] and x_per_side(spec)[side] > 0),
           ("cipher", s["ciphers"] < sp["cipher"]), ("natural", side == "initiator" and _may_choose(ev, s)))
    return [verb for verb, ok in can if ok]


def _may_choose(ev: dict, s: dict) -> bool:
    """A natural shoresh on the table whose reward is not chosen yet."""
    return ev["initiator"]["natural"] and s["reward"] is None


def allowed_verbs(spec: dict, track: dict, ev: dict | None = None) -> dict:
    """The verbs each side may use now. Unopposed: the roller's steps.
    Opposed: the initiator's turn first (``stand`` hands over, except that
    a natural shoresh on the table must have its reward chosen); then the
    opponent's, unless the natural voided it; the hit location once a
    critical can no longer change."""
    ev = ev or evaluate(spec, track)
    mine = _open_steps(spec, track, ev, "initiator")
    if not spec["opponent"]:
        return {"initiator": mine + ["accept"] * bool(mine and "natural" not in mine)}
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
    ev = evaluate(spec, track)
    if verb == "hit_location":
        return ("only a critical success rolls for hit location" if ev["outcome"] != "critical_success"
                else "the critical is final only once the opponent has reacted (rerolled or stood)")
    return _turn_over(spec, track, ev, side) or _spent(spec, track, side, verb)


def _turn_over(spec: dict, track: dict, ev: dict, side: str) -> str:
    s = track["sides"][side]
    if s["closed"]:
        return _closed(spec, s)
    if side == "opponent" and ev["voided"]:
        return "the reaction is void: the initiator took +1 and cannot be countered"
    if side == "opponent" and _open_steps(spec, track, ev, "initiator"):
        return "the initiator's turn comes first; the opponent reacts once the initiator stands or has no step left"
    return ""


def _closed(spec: dict, s: dict) -> str:
    """How a side's closed turn ended: with the natural's reward, or stood
    (opposed) or accepted (unopposed)."""
    if s["reward"]:
        return "the turn ended with the natural shoresh reward"
    return "the turn is over (stood)" if spec["opponent"] else "the turn is over (accepted)"


def _spent(spec: dict, track: dict, side: str, verb: str) -> str:
    return _SPENT[verb](spec, track, side)


def _no_reroll(spec: dict, track: dict, side: str) -> str:
    sp = side_spec(spec, side)
    if sp["rounds"] == 0:
        return "a status forbids rerolling (rounds 0)"
    return "X is 0" if x_per_side(spec)[side] == 0 else f"all {sp['rounds']} reroll round(s) are used"


def _no_cipher(spec: dict, track: dict, side: str) -> str:
    return f"{side_spec(spec, side)['cipher']} cipher flip(s) allowed and {track['sides'][side]['ciphers']} used"


def _no_natural(spec: dict, track: dict, side: str) -> str:
    return "the dice are not a natural shoresh" if side == "initiator" else "only the initiator chooses"


def _no_stand(spec: dict, track: dict, side: str) -> str:
    if not spec["opponent"]:
        return "stand ends a side's turn in an opposed roll; here the roll simply stops when you do"
    if "natural" in allowed_verbs(spec, track)[side]:
        return "with a natural shoresh on the table, choose its reward to end the turn"
    return "no step is left to stand from"


def _no_accept(spec: dict, track: dict, side: str) -> str:
    if spec["opponent"]:
        return "an opposed turn ends with stand"
    if "natural" in allowed_verbs(spec, track)[side]:
        return "with a natural shoresh on the table, choose its reward to end the turn"
    return "the turn is over: no step is left"


_SPENT = {"reroll": _no_reroll, "cipher": _no_cipher, "natural": _no_natural, "stand": _no_stand,
          "accept": _no_accept}


# --------------------------------------------------------------------------
# Reading a track: counts and the outcome (RULES-NOTES Milhamah 3-5, 7).

def evaluate(spec: dict, track: dict) -> dict:
    """Counts per side and the outcome."""
    ev: dict = {side: _side_counts(spec, side, s) for side, s in track["sides"].items()}
    ev.update(_score(spec, track["sides"]["initiator"], ev))
    return ev


def _side_counts(spec: dict, side: str, s: dict) -> dict:
    faces = _faces(spec, side, s["idx"])
    wc = side == "initiator" and not spec["reaction"]
    c = _count(side_spec(spec, side)["shoresh"], faces, wc)
    c.update(faces=faces, wilds_count=wc)
    return c


def _bonus_parts(spec: dict, s: dict, me: dict, reward: str) -> list:
    """The bonuses on top of the dice, as (kind, n): the first-roll natural
    (RULES-NOTES Milhamah 4), the natural's reward, successes pocketed from
    an opponent's botch."""
    reward_bonus = {"uncounterable": UNCOUNTERABLE_BONUS, "successes": len(spec["shoresh"])}.get(reward, 0)
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
    reward = s["reward"] or rewards(spec)[0]
    parts = _bonus_parts(spec, s, me, reward)
    bonus = sum(n for _k, n in parts)
    total = me["successes"] + bonus
    needed, adj = needed_successes(spec, ev["opponent"]["successes"] if opp else spec["difficulty"])
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
    return verdict or _against_bar(total, needed, me["natural"])


def _against_bar(total: int, needed: int, natural: bool) -> str:
    """Over the bar a success (a natural one with the shoresh complete),
    level with it a success at a cost, under it a failure."""
    if total > needed:
        return "natural_success" if natural else "success"
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
    for i, ((colour, design), idx) in enumerate(zip(dice_of(side_spec(spec, side)), s["idx"])):
        faces = die_faces(colour, design)
        extra = {"colour": colour, "design": design, "index": idx, **_die_flags(s, c, i)}
        out.append(Die(face=faces[idx - 1], role=_role(s, i, dropped), faces=tuple(faces),
                       history=tuple(faces[h - 1] for h in s["hist"][i]), extra=extra).to_dict())
    return out


def _die_flags(s: dict, c: dict, i: int) -> dict:
    """What the page marks on die i of a side (its track ``s``, its counts
    ``c``): a success, a wild, a match, its events, a cipher flip."""
    flags = {"success": i in c["matches"] or (c["wilds_count"] and i in c["wilds"]),
             "wild": i in c["wilds"], "match": i in c["matches"], "events": list(s["how"][i])}
    if "cipher" in s["how"][i]:
        flags["ciphered"] = True
    return flags


def _side_out(spec: dict, track: dict, ev: dict, side: str) -> dict:
    s = track["sides"][side]
    sp = side_spec(spec, side)
    c = ev[side]
    return {"dice": _dice_out(spec, side, s, c, side == "opponent" and ev["voided"]),
            "shoresh": sp["shoresh"], "successes": c["successes"], "matches": len(c["matches"]),
            "wilds": len(c["wilds"]), "wilds_count": c["wilds_count"], "natural": c["natural"],
            "first_natural": bool(s["first_natural"]), "x": x_per_side(spec)[side],
            "rounds_left": max(0, sp["rounds"] - s["rounds"]),
            "ciphers_left": max(0, sp["cipher"] - s["ciphers"]),
            "closed": s["closed"], "reward": s["reward"]}


def open_actions(spec: dict, allowed: dict) -> list:
    """``allowed_verbs`` as the result's ``allowed`` (the contract): each
    verb as an action, with its side when the roll is opposed.

    >>> open_actions({"opponent": None}, {"initiator": ["reroll", "accept"]})
    [{'do': 'reroll'}, {'do': 'accept'}]
    >>> open_actions({"opponent": {"shoresh": "שר"}}, {"initiator": [], "opponent": ["stand"]})
    [{'do': 'stand', 'side': 'opponent'}]
    """
    if not spec["opponent"]:
        return [{"do": v} for v in allowed["initiator"]]
    return [{"do": v, "side": side} for side in ("initiator", "opponent") for v in allowed[side]]


def whose_turn(spec: dict, track: dict, ev: dict, allowed: dict) -> str | None:
    """Whose dice may still change: "initiator", "opponent", or None."""
    mine = [v for v in allowed["initiator"] if v != "hit_location"]
    if mine:
        return "initiator"
    return "opponent" if allowed.get("opponent") else None


def _present(spec: dict, track: dict) -> dict:
    """The result dict the page draws: dice with roles and flags, the
    headline numbers, the outcome, what may happen next, what else the dice
    spell, and why (``explain``)."""
    ev = evaluate(spec, track)
    allowed = allowed_verbs(spec, track, ev)
    me = _side_out(spec, track, ev, "initiator")
    result: dict = {
        "dice": me["dice"], "value": me["successes"], "bonus": ev["bonus"], "total": ev["total"],
        "needed": ev["needed"], "outcome": ev["outcome"],
        "successes": me["successes"], "matches": me["matches"], "wilds": me["wilds"],
        "natural": me["natural"], "first_natural": me["first_natural"],
        "first_bonus_kept": ev["first_bonus_kept"], "natural_pending": ev["pending"],
        "x": me["x"], "rounds_left": me["rounds_left"], "ciphers_left": me["ciphers_left"],
        "allowed": open_actions(spec, allowed), "reward": ev["reward"] if me["natural"] else None,
        "merit_point": bool(me["natural"] and ev["reward"] == "merit"),
        "turn": whose_turn(spec, track, ev, allowed),
    }
    if spec["opponent"]:
        result.update(_opposed_out(spec, track, ev, _side_out(spec, track, ev, "opponent")))
    if track["hit"]:
        result["hit"] = _hit(track["hit"], result.get("margin", ev["total"]))
    result.update(_for_the_narrator(spec, ev))
    result["explain"] = explain.explain(spec, ev, result, track["log"])
    return result


def _for_the_narrator(spec: dict, ev: dict) -> dict:
    """A botch's wilds (they make it worse, RULES-NOTES Milhamah 5) and the
    other roots the final dice spell."""
    found = spelled(ev["initiator"]["faces"], (spec["shoresh"],))
    out = {"also_spell": [{"root": r, "gloss": g} for r, g in found[:SPELLED_SHOWN]], "also_spell_count": len(found)}
    if ev["outcome"] == "botch":
        out["botch_wilds"] = len(ev["initiator"]["wilds"])
    return out


def _opposed_out(spec: dict, track: dict, ev: dict, o: dict) -> dict:
    """The opponent's side, the modifier, and what a failed or botched
    initiator gives the opponent (RULES-NOTES Milhamah 7, "Critical
    failure")."""
    out = {"opponent": o, "modifier": spec["rerolls"] - spec["opponent"]["rerolls"]}
    if ev["outcome"] in ("failure", "botch"):
        out["counter"] = _counters(spec["opponent"], ev["initiator"]["faces"])
    if ev["outcome"] == "botch":
        out["pocket"] = o["successes"]
        out["plus_xr"] = max(0, ev["needed"] - ev["total"])
    if ev["outcome"] == "critical_success" or track["hit"]:
        out["margin"] = ev["total"] - o["successes"]
    return out


def _counters(opp: dict, faces: list) -> list:
    """The opponent's shorashim a failed initiator's final dice contain."""
    names = dict.fromkeys(opp["shorashim"] + [opp["shoresh"]])
    return [n for n in names if _found(n, faces)]


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
