"""Milhamah RPG (seeds/000_61bae661fbfac8cf.txt): twelve-sided Hebrew letter
dice rolled against a shoresh (a root of 2-4 letters).

The flow ("Roll Mechanics"): roll 8D of two colours; each die showing a
letter of the shoresh is a success, and wilds are successes when acting but
not when reacting; freeze any dice and reroll up to X of the others (X =
attribute + skill ± modifiers); compare the successes with the difficulty
(or, opposed, the reactor's successes). A natural shoresh (every letter,
no wilds) earns a bonus; zero letter matches is a botch. Where the text is
silent we follow RULES-NOTES Milhamah 1-9 and say which reading we used.

The faces of the dice are data (``milhamah_dice.json``, RULES-NOTES
Milhamah 2): each die of a colour has 12 faces; face i is opposite face
13 - i, so a cipher flips a die to the face at 13 - i.

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

from .dice import Die, SpecError, check_keys, get_bool, get_int, name_key

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "LETTERS", "WILD", "COLOURS", "FINALS",
           "DIFFICULTIES", "COMBAT", "HIT_LOCATIONS", "LETTER_NAMES",
           "normalize", "roll", "act", "odds", "fold_shoresh", "die_faces",
           "faces_table", "written", "dice_of", "pool_from_pair", "load_dice", "effective_difficulty"]

NAME = "milhamah"
TITLE = "Milhamah RPG"

OUTCOMES = ("botch", "failure", "success_at_cost", "success", "natural_success",
            "critical_success")

DATA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "milhamah_dice.json")

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
        for name, faces in c["designs"].items():
            if len(faces) != SIDES or any(x not in letters and x != data["wild"] for x in faces):
                raise ValueError(f"{path}: {colour} design {name} must have 12 letter or wild faces")
        if len(c["dice"]) != 4 or any(d not in c["designs"] for d in c["dice"]):
            raise ValueError(f"{path}: {colour} must name the design of each of its 4 dice")
    return data


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

MAX_DICE = 4 * len(COLOURS)
MAX_X = 12
MAX_ROUNDS = 4
NATURAL_REWARDS = ("successes", "merit")
OPPOSED_REWARDS = ("uncounterable", "critical")

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
    out = []
    for ch in text:
        if _IGNORED.match(ch) or ("\u0591" <= ch <= "\u05c7" and unicodedata.category(ch) == "Mn"):
            continue
        ch = FINALS.get(ch, ch)
        if ch not in LETTERS:
            raise SpecError(field, f"{ch!r} is not a Hebrew letter; use 2 to 4 of א-ת "
                                   f"(final forms {' '.join(FINALS)} fold)")
        out.append(ch)
    if not 2 <= len(out) <= 4:
        raise SpecError(field, f"must have 2 to 4 letters (got {len(out)})")
    return "".join(out)


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


def _pool(spec: dict, field: str) -> dict:
    """``pool``: {colour: count 0-4}, or a list of colours (4 dice each)."""
    v = spec.get("pool")
    if v is None:
        return dict(DEFAULT_SPEC["pool"])
    counts = {c: 0 for c in COLOURS}
    if isinstance(v, (list, tuple)):
        if not 1 <= len(v) <= len(COLOURS):
            raise SpecError(field, "must list 1 to 3 colours, e.g. ['red', 'green']")
        for c in v:
            c = _colour(c, field)
            if counts[c]:
                raise SpecError(field, f"names {c} twice")
            counts[c] = 4
    elif isinstance(v, dict):
        if len(v) > 8:
            raise SpecError(field, "must map colours to counts")
        for c, n in v.items():
            counts[_colour(c, field)] = get_int({"n": n}, "n", 0, 4, default=0, field=field)
    else:
        raise SpecError(field, "must be {colour: count} or a list of colours")
    return counts


def _side(spec: Any, field: str, keys: tuple) -> dict:
    """The roll settings one side shares with the other (shoresh, dice, X)."""
    pre = f"{field}." if field else ""
    check_keys(spec, keys, field or "spec")
    s: dict = {}
    s["shoresh"] = fold_shoresh(spec.get("shoresh", DEFAULT_SPEC["shoresh"]), pre + "shoresh")
    s["pool"] = _pool(spec, pre + "pool")
    s["dice_change"] = get_int(spec, "dice_change", -MAX_DICE, MAX_DICE, 0, field=pre + "dice_change")
    forbid = spec.get("forbid") or []
    if isinstance(forbid, str):
        forbid = [forbid]
    if not isinstance(forbid, (list, tuple)) or len(forbid) > len(COLOURS):
        raise SpecError(pre + "forbid", "must list colours a status forbids")
    s["forbid"] = [c for c in COLOURS if c in {_colour(x, pre + "forbid") for x in forbid}]
    for c in s["forbid"]:
        if s["pool"][c]:
            raise SpecError(pre + "pool", f"{c} is forbidden by a status; choose other colours")
    s["rerolls"] = get_int(spec, "rerolls", 0, MAX_X, 3, field=pre + "rerolls")
    s["bonus_rerolls"] = get_int(spec, "bonus_rerolls", 0, MAX_X, 0, field=pre + "bonus_rerolls")
    s["rounds"] = get_int(spec, "rounds", 0, MAX_ROUNDS, 1, field=pre + "rounds")
    s["cipher"] = get_int(spec, "cipher", 0, MAX_DICE, 0, field=pre + "cipher")
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
    d = spec.get("difficulty", DEFAULT_SPEC["difficulty"])
    if isinstance(d, str) and not re.fullmatch(r"\s*\d+\s*", d):
        k = name_key(d, "difficulty")
        k = {"untrained": "beginner", "beginner_untrained": "beginner",
             "beginner/untrained": "beginner"}.get(k, k)
        if k not in DIFFICULTIES:
            raise SpecError("difficulty", "must be a number of successes (1-24) or one of "
                            + ", ".join(DIFFICULTIES))
        out["difficulty"] = DIFFICULTIES[k]
    else:
        out["difficulty"] = get_int(spec, "difficulty", 1, 24, 3)
    combat = spec.get("combat") or []
    if isinstance(combat, str):
        combat = [combat]
    if not isinstance(combat, (list, tuple)) or len(combat) > 8:
        raise SpecError("combat", "must list combat modifiers: " + ", ".join(COMBAT))
    names = set()
    for c in combat:
        k = name_key(c, "combat")
        if k not in COMBAT:
            raise SpecError("combat", f"must be among {', '.join(COMBAT)} (got {str(c)[:20]!r})")
        names.add(k)
    out["combat"] = [k for k in COMBAT if k in names]
    out["combat_step"] = get_int(spec, "combat_step", 0, 3, 1)
    out["first_bonus"] = get_int(spec, "first_bonus", 0, 4, 1)
    out["pocketed"] = get_int(spec, "pocketed", 0, MAX_DICE, 0)
    out["modifier_to_x"] = get_bool(spec, "modifier_to_x", True)
    opp = spec.get("opponent")
    if opp is None or opp is False:
        out["opponent"] = None
    else:
        o = _side(opp, "opponent", _OPP_KEYS)
        sh = opp.get("shorashim") or []
        if isinstance(sh, str):
            sh = [x for x in re.split(r"[,;/]", sh) if x.strip()]
        if not isinstance(sh, (list, tuple)) or len(sh) > 8:
            raise SpecError("opponent.shorashim", "must list up to 8 shorashim")
        o["shorashim"] = []
        for x in sh:
            f = fold_shoresh(x, "opponent.shorashim")
            if f not in o["shorashim"]:
                o["shorashim"].append(f)
        out["opponent"] = o
    # canonical key order
    return {k: out[k] for k in _SPEC_KEYS}


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
    if isinstance(pair, str):
        pair = [p for p in re.split(r"[+,&\s]+", pair) if p]
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise SpecError(field, "must be two colours, e.g. red+green")
    a, b = (_colour(p, field) for p in pair)
    if a == b:
        raise SpecError(field, "must be two different colours")
    return {c: 4 if c in (a, b) else 0 for c in COLOURS}


def _apply_change(side: dict, pre: str = "") -> tuple:
    """The pool after ±nD status changes: added dice go to a chosen colour
    with room, then to an unchosen allowed colour; removed dice come off the
    colour with the most dice (the later colour on a tie). At most 4 per
    colour, 1 to 12 in all."""
    counts = dict(side["pool"])
    chosen = [c for c in COLOURS if counts[c]]
    n = side["dice_change"]
    for _ in range(max(0, n)):
        room = [c for c in COLOURS if c not in side["forbid"] and counts[c] < 4]
        if not room:
            raise SpecError(pre + "dice_change", "no room for more dice: at most 4 of each allowed colour")
        pick = next((c for c in room if c in chosen), room[0])
        counts[pick] += 1
    for _ in range(max(0, -n)):
        top = max(counts.values())
        pick = [c for c in COLOURS if counts[c] == top][-1]
        counts[pick] -= 1
    if sum(counts.values()) < 1:
        raise SpecError(pre + "dice_change" if n < 0 else pre + "pool", "the roll needs at least one die")
    return counts


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


def _count(shoresh: str, faces: list, wilds_count: bool) -> dict:
    need = _need(shoresh)
    matches = [i for i, f in enumerate(faces) if f in need]
    wilds = [i for i, f in enumerate(faces) if f == WILD]
    natural = all(sum(1 for f in faces if f == ch) >= n for ch, n in need.items())
    return {"matches": matches, "wilds": wilds,
            "successes": len(matches) + (len(wilds) if wilds_count else 0),
            "natural": natural}


def _found(shoresh: str, faces: list) -> bool:
    """Does a set of final dice contain this shoresh (letters, no wilds)?"""
    return _count(shoresh, faces, False)["natural"]


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
            if diff > 0:
                x["initiator"] += diff
            else:
                x["opponent"] += -diff
    return {k: min(v, MAX_X * 2) for k, v in x.items()}


def _side_spec(spec: dict, side: str) -> dict:
    return spec if side == "initiator" else spec["opponent"]


# --------------------------------------------------------------------------
# Track: the JSON-able state a result carries, from which act rebuilds.

def _new_side(spec: dict, side: str, idx: list) -> dict:
    return {"idx": idx, "hist": [[i] for i in idx], "how": [["rolled"] for _ in idx],
            "rounds": 0, "ciphers": 0, "rerolled": False, "reward": None, "closed": False,
            "first_natural": None}


def _faces(spec: dict, side: str, idx: list) -> list:
    dice = dice_of(_side_spec(spec, side))
    return [die_faces(c, d)[i - 1] for (c, d), i in zip(dice, idx)]


def roll(spec: dict, rng) -> dict:
    """The first roll: the roller's dice in order, then the opponent's; each
    one ``rng.randint(1, 12)`` indexing its faces ("The basic roll
    mechanic").

    >>> from rules.dice import ScriptedRng
    >>> r = roll(normalize({"shoresh": "אשר", "pool": ["red"]}), ScriptedRng([1, 6, 11, 12]))
    >>> [d["face"] for d in r["dice"]], r["value"], r["natural"]
    (['א', '*', 'ש', 'ע'], 3, False)
    """
    track: dict = {"sides": {}, "hit": None}
    sides = ["initiator"] + (["opponent"] if spec["opponent"] else [])
    for side in sides:
        n = len(dice_of(_side_spec(spec, side)))
        track["sides"][side] = _new_side(spec, side, [rng.randint(1, SIDES) for _ in range(n)])
    for side in sides:
        s = track["sides"][side]
        wc = side == "initiator" and not spec["reaction"]
        s["first_natural"] = _count(_side_spec(spec, side)["shoresh"],
                                    _faces(spec, side, s["idx"]), wc)["natural"]
    return _present(spec, track, ["roll"])


def _load_track(spec: dict, result: Any) -> dict:
    """The result's track, checked against the spec (a hand-made or stale
    result is a SpecError, never a crash)."""
    try:
        track = json.loads(json.dumps(result["track"]))
        sides = ["initiator"] + (["opponent"] if spec["opponent"] else [])
        if sorted(track["sides"]) != sorted(sides):
            raise ValueError
        for side in sides:
            s = track["sides"][side]
            n = len(dice_of(_side_spec(spec, side)))
            if (len(s["idx"]) != n or len(s["hist"]) != n or len(s["how"]) != n
                    or any(not isinstance(i, int) or isinstance(i, bool) or not 1 <= i <= SIDES
                           for i in s["idx"])
                    or any(not isinstance(h, list) or not h or h[-1] != i
                           for h, i in zip(s["hist"], s["idx"]))
                    or not isinstance(s["rounds"], int) or not isinstance(s["ciphers"], int)):
                raise ValueError
        return track
    except SpecError:
        raise
    except Exception:
        raise SpecError("result", "is not a Milhamah result of this spec") from None


def act(spec: dict, result: dict, action: dict, rng) -> dict:
    """A step after the first roll (DESIGN.md verbs):

    - ``reroll`` {"dice": [i...]}: reroll up to X of the dice; the rest stay
      frozen ("Reroll chance"); one round of the side's ``rounds``.
    - ``cipher`` {"dice": [i...]}: flip up to ``cipher`` dice (over the
      turn) to the opposite face (RULES-NOTES Milhamah 2).
    - ``natural`` {"reward": "successes"/"merit"} unopposed, or
      "uncounterable"/"critical" opposed ("The Natural Shoresh"); ends the
      side's turn.
    - ``hit_location`` {"armour", "vig", "light", "serious", "critical"}: on
      a critical success, draw one of the 22 letters (RULES-NOTES Milhamah 8).

    ``side`` ("initiator"/"opponent") says who acts in an opposed roll.

    >>> from rules.dice import ScriptedRng
    >>> spec = normalize({"shoresh": "אשר", "pool": ["red"], "rerolls": 2})
    >>> r = roll(spec, ScriptedRng([2, 1, 2, 1]))
    >>> r2 = act(spec, r, {"do": "reroll", "dice": [0, 2]}, ScriptedRng([1, 11]))
    >>> [d["face"] for d in r2["dice"]], [d["role"] for d in r2["dice"]], r2["value"]
    (['א', 'ז', 'ש', 'ז'], ['rerolled', 'frozen', 'rerolled', 'frozen'], 2)
    """
    track = _load_track(spec, result)
    verb = action.get("do")
    side = action.get("side", "initiator")
    if not isinstance(side, str) or side not in track["sides"]:
        raise SpecError("side", "must be initiator" + (" or opponent" if spec["opponent"] else ""))
    allowed = _allowed(spec, track)
    if verb not in ("reroll", "cipher", "natural", "hit_location"):
        raise SpecError("action", "Milhamah steps are reroll, cipher, natural and hit_location")
    if verb not in allowed[side]:
        raise SpecError("action", f"{verb} is not allowed now for the {side}: " + _why_not(spec, track, side, verb))
    s = track["sides"][side]
    sp = _side_spec(spec, side)
    n = len(s["idx"])
    log = result.get("log")
    log = list(log)[-40:] if isinstance(log, list) else []  # a result from a link may carry anything
    if verb in ("reroll", "cipher"):
        chosen = action.get("dice")
        if not isinstance(chosen, list) or len(chosen) > n or any(
                isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < n for i in chosen):
            raise SpecError("dice", f"must list die numbers from 0 to {n - 1}")
        if len(set(chosen)) != len(chosen):
            raise SpecError("dice", "names a die twice")
        chosen = sorted(chosen)
    if verb == "reroll":
        x = _xs(spec)[side]
        if not chosen:
            raise SpecError("dice", "name at least one die to reroll")
        if len(chosen) > x:
            raise SpecError("dice", f"at most X = {x} dice may be rerolled (got {len(chosen)})")
        for i in range(n):
            if i in chosen:
                s["idx"][i] = rng.randint(1, SIDES)
                s["hist"][i].append(s["idx"][i])
                s["how"][i].append("rerolled")
        s["rounds"] += 1
        s["rerolled"] = True
        log.append({"do": "reroll", "side": side, "dice": chosen})
    elif verb == "cipher":
        left = sp["cipher"] - s["ciphers"]
        if not chosen:
            raise SpecError("dice", "name at least one die to flip")
        if len(chosen) > left:
            raise SpecError("dice", f"at most {left} more dice may be flipped by a cipher")
        for i in chosen:
            s["idx"][i] = SIDES + 1 - s["idx"][i]
            s["hist"][i].append(s["idx"][i])
            s["how"][i].append("cipher")
        s["ciphers"] += len(chosen)
        log.append({"do": "cipher", "side": side, "dice": chosen})
    elif verb == "natural":
        choices = OPPOSED_REWARDS if spec["opponent"] else NATURAL_REWARDS
        reward = action.get("reward", choices[0])
        if reward not in choices:
            raise SpecError("reward", "must be " + " or ".join(choices))
        s["reward"] = reward
        s["closed"] = True
        log.append({"do": "natural", "side": side, "reward": reward})
    else:
        gm = {}
        for k, hi in (("armour", 99), ("vig", 99), ("light", 12), ("serious", 12), ("critical", 12)):
            gm[k] = get_int(action, k, 0, hi, 1 if k in ("light", "serious", "critical") else 0)
        letter = LETTERS[rng.randint(1, len(LETTERS)) - 1]
        track["hit"] = {"letter": letter, **gm}
        log.append({"do": "hit_location"})
    return _present(spec, track, log)


# --------------------------------------------------------------------------
# Reading a track: counts, outcome, what may happen next, the explanation.

def _allowed(spec: dict, track: dict, ev: dict | None = None) -> dict:
    ev = ev or _evaluate(spec, track)
    out = {}
    for side, s in track["sides"].items():
        sp = _side_spec(spec, side)
        verbs = []
        if not s["closed"] and track["hit"] is None:
            if s["rounds"] < sp["rounds"] and _xs(spec)[side] > 0:
                verbs.append("reroll")
            if s["ciphers"] < sp["cipher"]:
                verbs.append("cipher")
            if side == "initiator" and ev["initiator"]["natural"] and s["reward"] is None:
                verbs.append("natural")
        if side == "initiator" and ev["outcome"] == "critical_success" and track["hit"] is None:
            verbs.append("hit_location")
        out[side] = verbs
    return out


def _why_not(spec: dict, track: dict, side: str, verb: str) -> str:
    s = track["sides"][side]
    sp = _side_spec(spec, side)
    if track["hit"] is not None:
        return "the hit location is drawn; the roll is over"
    if verb == "hit_location":
        return "only a critical success rolls for hit location"
    if s["closed"]:
        return "the turn ended with the natural shoresh reward"
    if verb == "reroll":
        if sp["rounds"] == 0:
            return "a status forbids rerolling (rounds 0)"
        if _xs(spec)[side] == 0:
            return "X is 0"
        return f"all {sp['rounds']} reroll round(s) are used"
    if verb == "cipher":
        return f"{sp['cipher']} cipher flip(s) allowed and {s['ciphers']} used"
    if verb == "natural":
        return "the dice are not a natural shoresh" if side == "initiator" else "only the initiator chooses"
    return "not a step of this roll"


def _evaluate(spec: dict, track: dict) -> dict:
    """Counts per side and the outcome (RULES-NOTES Milhamah 3-5, 7)."""
    ev: dict = {}
    for side, s in track["sides"].items():
        sp = _side_spec(spec, side)
        faces = _faces(spec, side, s["idx"])
        wc = side == "initiator" and not spec["reaction"]
        c = _count(sp["shoresh"], faces, wc)
        c["faces"] = faces
        c["wilds_count"] = wc
        ev[side] = c
    me = ev["initiator"]
    s = track["sides"]["initiator"]
    opp = spec["opponent"]
    reward = s["reward"] or (OPPOSED_REWARDS[0] if opp else NATURAL_REWARDS[0])
    bonus = 0
    parts = []
    first = bool(s["first_natural"] and not s["rerolled"] and me["natural"])
    if first and spec["first_bonus"]:
        bonus += spec["first_bonus"]
        parts.append(("first", spec["first_bonus"]))
    if me["natural"]:
        if opp and reward == "uncounterable":
            bonus += 1
            parts.append(("natural", 1))
        elif not opp and reward == "successes":
            bonus += len(spec["shoresh"])
            parts.append(("natural", len(spec["shoresh"])))
    if spec["pocketed"]:
        bonus += spec["pocketed"]
        parts.append(("pocketed", spec["pocketed"]))
    total = me["successes"] + bonus
    base = ev["opponent"]["successes"] if opp else spec["difficulty"]
    needed, adj = _needed(spec, base)
    voided = bool(opp and me["natural"] and reward == "uncounterable")
    if not me["matches"]:
        outcome = "botch"
    elif voided:
        outcome = "natural_success"
    elif opp and me["natural"] and reward == "critical" and ev["opponent"]["successes"] == 0:
        outcome = "critical_success"
    elif total > needed:
        outcome = "natural_success" if me["natural"] else "success"
    elif total == needed:
        outcome = "success_at_cost"
    else:
        outcome = "failure"
    ev.update({"reward": reward, "bonus": bonus, "bonus_parts": parts, "total": total,
               "needed": needed, "adj": adj, "outcome": outcome, "voided": voided,
               "first_bonus_kept": first})
    return ev


def _name(ch: str) -> str:
    return "wild" if ch == WILD else f"{ch} ({LETTER_NAMES.get(ch, '?')})"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else ("es" if word.endswith("s") else "s"))


def _present(spec: dict, track: dict, log: list) -> dict:
    """The result dict the page draws: dice with roles and flags, the
    headline numbers, the outcome, what may happen next, and why."""
    ev = _evaluate(spec, track)
    allowed = _allowed(spec, track, ev)
    xs = _xs(spec)
    sides_out: dict = {}
    for side, s in track["sides"].items():
        sp = _side_spec(spec, side)
        c = ev[side]
        dice = []
        for i, ((colour, design), idx) in enumerate(zip(dice_of(sp), s["idx"])):
            faces = die_faces(colour, design)
            if "rerolled" in s["how"][i]:
                role = "rerolled"
            elif s["rerolled"]:
                role = "frozen"
            else:
                role = "rolled"
            if side == "opponent" and ev["voided"]:
                role = "dropped"
            extra = {"colour": colour, "design": design, "index": idx,
                     "success": i in c["matches"] or (c["wilds_count"] and i in c["wilds"]),
                     "wild": i in c["wilds"], "match": i in c["matches"],
                     "events": list(s["how"][i])}
            if "cipher" in s["how"][i]:
                extra["ciphered"] = True
            dice.append(Die(face=faces[idx - 1], role=role, faces=tuple(faces),
                            history=tuple(faces[h - 1] for h in s["hist"][i]), extra=extra).to_dict())
        sides_out[side] = {
            "dice": dice, "shoresh": sp["shoresh"], "successes": c["successes"],
            "matches": len(c["matches"]), "wilds": len(c["wilds"]),
            "wilds_count": c["wilds_count"], "natural": c["natural"],
            "first_natural": bool(s["first_natural"]), "x": xs[side],
            "rounds_left": max(0, sp["rounds"] - s["rounds"]),
            "ciphers_left": max(0, sp["cipher"] - s["ciphers"]),
            "allowed": allowed[side], "closed": s["closed"], "reward": s["reward"],
        }
    me = sides_out["initiator"]
    result: dict = {
        "dice": me["dice"],
        "value": me["successes"],
        "bonus": ev["bonus"],
        "total": ev["total"],
        "needed": ev["needed"],
        "outcome": ev["outcome"],
        "successes": me["successes"], "matches": me["matches"], "wilds": me["wilds"],
        "natural": me["natural"], "first_natural": me["first_natural"],
        "first_bonus_kept": ev["first_bonus_kept"],
        "x": me["x"], "rounds_left": me["rounds_left"], "ciphers_left": me["ciphers_left"],
        "allowed": me["allowed"], "reward": ev["reward"] if me["natural"] else None,
        "merit_point": bool(me["natural"] and ev["reward"] == "merit"),
        "track": track, "log": log,
    }
    if spec["opponent"]:
        o = sides_out["opponent"]
        result["opponent"] = o
        result["modifier"] = spec["rerolls"] - spec["opponent"]["rerolls"]
        result["allowed_opponent"] = o["allowed"]
        if ev["outcome"] in ("failure", "botch"):
            names = list(spec["opponent"]["shorashim"])
            if spec["opponent"]["shoresh"] not in names:
                names.append(spec["opponent"]["shoresh"])
            result["counter"] = [n for n in names if _found(n, ev["initiator"]["faces"])]
        if ev["outcome"] == "botch":
            result["pocket"] = o["successes"]
            result["plus_xr"] = max(0, ev["needed"] - ev["total"])
        if ev["outcome"] == "critical_success" or track["hit"]:
            result["margin"] = ev["total"] - o["successes"]
    if track["hit"]:
        result["hit"] = _hit(track["hit"], result.get("margin", ev["total"]))
    result["explain"] = _explain(spec, track, ev, result)
    return result


def _hit(h: dict, margin: int) -> dict:
    """Margin to armour, then VIG soak, then wounds light → serious →
    critical ("Critical success"; RULES-NOTES Milhamah 8)."""
    left = max(0, margin)
    armour = min(left, h["armour"])
    left -= armour
    vig = min(left, h["vig"])
    left -= vig
    wounds = {}
    for k in ("light", "serious", "critical"):
        wounds[k] = min(left, h[k])
        left -= wounds[k]
    die = Die(face=h["letter"], role="rolled", faces=tuple(LETTERS)).to_dict()
    return {"letter": h["letter"], "location": HIT_LOCATIONS[h["letter"]], "margin": margin,
            "armour": armour, "vig": vig, "wounds": wounds, "beyond": left,
            "gm": {k: h[k] for k in ("armour", "vig", "light", "serious", "critical")},
            "die": die}


def _letters_text(faces: list, which: list) -> str:
    return ", ".join(faces[i] for i in which)


def _explain(spec: dict, track: dict, ev: dict, result: dict) -> list:
    lines = []
    me = ev["initiator"]
    s = track["sides"]["initiator"]
    sh = written(spec["shoresh"])
    letters = " ".join(spec["shoresh"])
    doubled = [ch for ch, n in _need(sh).items() if n > 1]
    lines.append(f"Shoresh {sh}: successes are dice showing {letters}"
                 + (f" ({doubled[0]} is doubled: a natural needs two)" if doubled else "") + ".")
    counts = {}
    for c, _d in dice_of(spec):
        counts[c] = counts.get(c, 0) + 1
    pool = ", ".join(f"{n} {c}" for c, n in counts.items())
    line = f"Rolled {len(me['faces'])}D: {pool}"
    if spec["dice_change"]:
        line += f" ({spec['dice_change']:+d}D from a status)"
    lines.append(line + ".")
    for entry in result["log"]:
        if not isinstance(entry, dict):
            continue
        who = "" if entry.get("side", "initiator") == "initiator" else "The opponent: "
        if entry.get("do") == "reroll":
            lines.append(f"{who}Rerolled {len(entry['dice'])} dice; the others stayed frozen.")
        elif entry.get("do") == "cipher":
            lines.append(f"{who}Cipher: flipped {len(entry['dice'])} dice to the opposite face.")
        elif entry.get("do") == "natural":
            lines.append(f"Natural shoresh reward chosen: {entry['reward']}.")
    if s["first_natural"] and s["rerolled"]:
        lines.append("The first roll was a natural shoresh; rerolling forfeited its first-roll bonus.")
    parts = []
    if me["matches"]:
        m = [me["faces"][i] for i in me["matches"]]
        parts.append(" ".join(dict.fromkeys(m)) + (" match" if len(set(m)) > 1 else " matches")
                     + f" ({_plural(len(m), 'die')})".replace("dies", "dice"))
    else:
        parts.append("no die shows a shoresh letter")
    if me["wilds"]:
        if me["wilds_count"]:
            one = len(me["wilds"]) == 1
            parts.append(f"{_plural(len(me['wilds']), 'wild')} count{'s' if one else ''} because you are acting")
        else:
            one = len(me["wilds"]) == 1
            parts.append(f"{_plural(len(me['wilds']), 'wild')} {'doesn' if one else 'don'}'t count because you are reacting")
    lines.append("; ".join(parts)[0].upper() + "; ".join(parts)[1:] + f": {_plural(me['successes'], 'success')}.")
    if me["natural"]:
        lines.append("Natural shoresh: every letter shows without wilds.")
    for kind, n in ev["bonus_parts"]:
        if kind == "first":
            lines.append(f"+{n} for a natural shoresh on the first roll (RULES-NOTES Milhamah 4).")
        elif kind == "natural" and spec["opponent"]:
            lines.append("+1 for the natural shoresh, and the opponent cannot react or counter.")
        elif kind == "natural":
            lines.append(f"+{n} success bonus for the natural shoresh (one per letter).")
        elif kind == "pocketed":
            lines.append(f"+{n} pocketed from the opponent's botch.")
    if result.get("merit_point"):
        lines.append("Natural shoresh reward: a Merit Point instead of the success bonus.")
    opp = spec["opponent"]
    if opp:
        o = ev["opponent"]
        mod = result["modifier"]
        lines.append(f"Opposed: {spec['rerolls']} vs {opp['rerolls']} gives the initiator a {mod:+d} modifier"
                     + (" (added to X of the side that has it)." if spec["modifier_to_x"] and mod else "."))
        if ev["voided"]:
            lines.append("The opponent's reaction is void.")
        else:
            om = len(o["matches"])
            lines.append(f"The opponent ({written(opp['shoresh'])}) has {_plural(om, 'success')}"
                         + (f"; {_plural(len(o['wilds']), 'wild')} "
                            f"{'doesn' if len(o['wilds']) == 1 else 'don'}'t count when reacting" if o["wilds"] else "")
                         + ".")
    base = "the opponent's successes" if opp else f"difficulty {spec['difficulty']}"
    if ev["adj"]:
        names = ", ".join(COMBAT_TITLES[c] for c in spec["combat"])
        lines.append(f"Combat modifiers ({names}) move {base} by {ev['adj']:+d}.")
    names = {"botch": "botch", "failure": "failure", "success_at_cost": "success at a cost",
             "success": "success", "natural_success": "natural success",
             "critical_success": "critical success"}
    if ev["outcome"] == "botch":
        w = len(me["wilds"])
        lines.append("Zero successes not counting wilds: botch"
                     + (f", made worse by {_plural(w, 'wild')}." if w else "."))
    elif ev["voided"]:
        lines.append(f"{ev['total']} successes, uncounterable: natural success.")
    elif ev["outcome"] == "critical_success":
        lines.append("The opponent reacted with zero non-wild successes: critical success.")
    elif opp:
        bar = f"the opponent's {ev['opponent']['successes']}"
        if ev["adj"]:
            bar = f"{ev['needed']} ({bar}, {ev['adj']:+d} combat)"
        lines.append(f"{ev['total']} against {bar}: {names[ev['outcome']]}.")
    else:
        lines.append(f"{ev['total']} of {ev['needed']} needed: {names[ev['outcome']]}.")
    if opp and result.get("counter"):
        lines.append("The opponent may counter: the final dice contain "
                     + ", ".join(written(c) for c in result["counter"]) + ".")
    if opp and ev["outcome"] == "botch":
        if result["pocket"]:
            lines.append(f"The defender may pocket {result['pocket']} successes for the next turn.")
        if result["plus_xr"]:
            lines.append(f"The opponent gets +{result['plus_xr']}R on the next roll.")
    if result.get("hit"):
        h = result["hit"]
        w = ", ".join(f"{n} {k}" for k, n in h["wounds"].items() if n) or "no wounds"
        lines.append(f"Hit location {h['letter']}: {h['location']}. Margin {h['margin']}: "
                     f"{h['armour']} to armour, {h['vig']} to VIG soak, {w}"
                     + (f", {h['beyond']} beyond the wound track." if h["beyond"] else "."))
    first_left = s["first_natural"] and not s["rerolled"] and me["natural"]
    if first_left and "reroll" in result["allowed"]:
        lines.append("You may stop and keep the first-roll bonus, or reroll and forfeit it.")
    return lines


# --------------------------------------------------------------------------
# Odds live in milhamah_odds (imported here lazily: it imports this module).

def odds(spec: dict, result: dict | None = None, action: dict | None = None) -> dict:
    """The odds of the roll, or of a step after it (``milhamah_odds.odds``).

    >>> o = odds(normalize({"shoresh": "אשר", "pool": ["red", "green"], "rerolls": 3}))
    >>> round(sum(o["outcome"].values()), 9), o["exact"]
    (1.0, True)
    """
    from . import milhamah_odds
    return milhamah_odds.odds(spec, result, action)
