"""Fate dice: four Fate dice (each shows −, 0 or +) added to a skill,
against a difficulty; the shift (total minus difficulty) is read on the
outcome ladder: below 0 a fail, 0 a tie, 1 or 2 a success, ``STYLE`` or
more a success with style. Once a roll, the player may invoke to reroll
all four dice (``STEPS``: ``invoke``, which takes no arguments).

The example game of docs/adding-a-game.md (tests/test_sixth_game.py adds
it to a copy of the repository): two fields, one step, exact odds with
the step played best.

Skill 2 against 3: + + 0 − is +1, a total of 3, a tie; the invoke rerolls
all four to + + + −, a total of 4, a success.

>>> from rules.dice import ScriptedRng
>>> spec = normalize({"skill": 2, "difficulty": 3})
>>> r = roll(spec, ScriptedRng([6, 5, 3, 1]))
>>> r["value"], r["outcome"], r["allowed"]
(3, 'tie', [{'do': 'invoke'}])
>>> r = act(spec, {**r, "stages": [{"do": "roll"}]}, {"do": "invoke"}, ScriptedRng([6, 6, 6, 2]))
>>> r["value"], r["outcome"], r["allowed"], r["dice"][0]["history"]
(4, 'succeed', [], ['+', '+'])
"""

from __future__ import annotations

from fractions import Fraction

from rules.dice import Die, SpecError, check_keys, convolve, dist_to_json, get_int, roll_face
from rules.system import check_action

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "STEPS", "KEYS", "FACES", "FACE_VALUE", "DICE", "TOP",
           "STYLE", "normalize", "roll", "act", "odds", "advise", "outcome_of"]

NAME = "fate"
TITLE = "Fate dice"
#: The outcome ladder, worst to best (the page colours an outcome by its rank).
OUTCOMES = ("fail", "tie", "succeed", "succeed_with_style")
DEFAULT_SPEC = {"skill": 2, "difficulty": 2}
#: The one step: reroll all four dice, once a roll.
STEPS = {"invoke": ()}
KEYS = ("skill", "difficulty")

#: A Fate die: a d6 with two −, two blank (0) and two + faces.
FACES = ("−", "−", "0", "0", "+", "+")
FACE_VALUE = {"−": -1, "0": 0, "+": 1}
#: Dice a roll, the ladder's top (skill and difficulty from 0 to it), and
#: the shift from which a success has style.
DICE, TOP, STYLE = 4, 8, 3

_RANK = {name: i for i, name in enumerate(OUTCOMES)}


def normalize(spec) -> dict:
    """Both fields checked, their defaults filled in.

    >>> normalize({"skill": "5"})
    {'skill': 5, 'difficulty': 2}
    >>> normalize({"difficulty": 9})
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: difficulty: must be a whole number from 0 to 8 (got 9)
    """
    check_keys(spec, KEYS)
    return {key: get_int(spec, key, 0, TOP, DEFAULT_SPEC[key]) for key in KEYS}


def outcome_of(shift: int) -> str:
    """The rung of the ladder a shift reaches.

    >>> [outcome_of(s) for s in (-1, 0, 2, 3)]
    ['fail', 'tie', 'succeed', 'succeed_with_style']
    """
    if shift == 0:
        return "tie"
    if shift < 0:
        return "fail"
    return "succeed_with_style" if shift >= STYLE else "succeed"


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def _explain(spec: dict, faces: list, total: int, earlier: list | None) -> list[str]:
    lines = [f"Invoked: all four dice rerolled (they showed {' '.join(earlier)})."] if earlier else []
    dice = sum(FACE_VALUE[f] for f in faces)
    shift = total - spec["difficulty"]
    return lines + [f"{' '.join(faces)} is {_signed(dice)}; skill {spec['skill']} makes {total}.",
                    f"Against {spec['difficulty']}: shift {_signed(shift)}, "
                    f"{outcome_of(shift).replace('_', ' ')}."]


def _result(spec: dict, dice: list[Die], earlier: list | None) -> dict:
    faces = [d.face for d in dice]
    total = spec["skill"] + sum(FACE_VALUE[f] for f in faces)
    return {"dice": [d.to_dict() for d in dice], "value": total, "shift": total - spec["difficulty"],
            "outcome": outcome_of(total - spec["difficulty"]), "invoked": earlier is not None,
            "allowed": [] if earlier is not None else [{"do": "invoke"}],
            "explain": _explain(spec, faces, total, earlier)}


def roll(spec: dict, rng) -> dict:
    """Four Fate dice, added to the skill."""
    return _result(spec, [Die(face=roll_face(rng, FACES), faces=FACES) for _ in range(DICE)], None)


def _open(result) -> bool:
    """May the invoke still be taken: the result is the roll alone."""
    return isinstance(result, dict) and isinstance(result.get("stages"), list) and len(result["stages"]) == 1


def _faces(result: dict) -> list:
    """The four faces on show, checked (a result altered by hand is refused)."""
    dice = result.get("dice")
    faces = [d.get("face") for d in dice if isinstance(d, dict)] if isinstance(dice, list) else []
    if len(faces) != DICE or not all(isinstance(f, str) and f in FACE_VALUE for f in faces):
        raise SpecError("result", "is not a Fate dice result of this page")
    return faces


def act(spec: dict, result: dict, action: dict, rng) -> dict:
    """The invoke: all four dice rerolled, each keeping the face it showed
    in its history; then no step is left."""
    check_action(action, STEPS, TITLE)
    if not _open(result):
        raise SpecError("action", "the invoke is spent: one a roll")
    earlier = _faces(result)
    dice = [Die(face=roll_face(rng, FACES), faces=FACES, role="rerolled") for _ in earlier]
    return _result(spec, [Die(face=d.face, faces=FACES, role=d.role, history=(old, d.face))
                          for old, d in zip(earlier, dice)], earlier)


def _totals(spec: dict) -> dict:
    """The exact distribution of the total: the skill plus four dice."""
    one = {v: Fraction(FACES.count(f), len(FACES)) for f, v in FACE_VALUE.items()}
    dist = {spec["skill"]: Fraction(1)}
    for _ in range(DICE):
        dist = convolve(dist, one)
    return dist


def _ladder(spec: dict, totals: dict) -> dict:
    out = dict.fromkeys(OUTCOMES, Fraction(0))
    for total, p in totals.items():
        out[outcome_of(total - spec["difficulty"])] += p
    return out


def _expected_rank(spec: dict) -> Fraction:
    """What a reroll is worth, in rungs of the ladder (fail 0 … style 3)."""
    return sum(_RANK[o] * p for o, p in _ladder(spec, _totals(spec)).items())


def _invokes(spec: dict, total: int) -> bool:
    """Best play: invoke when a reroll is worth more rungs, on average,
    than the outcome on show (docs/adding-a-game.md, "The example game")."""
    return _RANK[outcome_of(total - spec["difficulty"])] < _expected_rank(spec)


def _best(spec: dict, totals: dict) -> dict:
    """The whole turn, the invoke played best: a total kept, or rerolled."""
    rerolled = sum(p for t, p in totals.items() if _invokes(spec, t))
    final = {t: (Fraction(0) if _invokes(spec, t) else p) + rerolled * p for t, p in totals.items()}
    return {"value": dist_to_json(final), "outcome": dist_to_json(_ladder(spec, final)),
            "invokes": float(rerolled)}


def odds(spec: dict, result=None, action=None) -> dict:
    """The exact distribution of the total and of the outcome; for the roll
    (``action`` None) also ``best``, the turn with the invoke played best
    (``invokes``: how often best play invokes). An invoke's odds are a
    fresh roll's, while the invoke is open.

    Skill 3 against 3: a tie is 19 in 81; best play rerolls a fail or a
    tie (50 in 81), which then fails 31 in 81 times.

    >>> o = odds(normalize({"skill": 3, "difficulty": 3}))
    >>> o["outcome"]["tie"] == 19 / 81, round(o["best"]["outcome"]["fail"] * 81 * 81), o["best"]["invokes"] == 50 / 81
    (True, 1550, True)
    """
    if action is not None:
        check_action(action, STEPS, TITLE)
        if not _open(result):
            raise SpecError("action", "the invoke is spent: one a roll")
    totals = _totals(spec)
    out = {"value": dist_to_json(totals), "outcome": dist_to_json(_ladder(spec, totals)), "exact": True}
    if action is None:
        out["best"] = _best(spec, totals)
    return out


def advise(spec: dict, result: dict) -> dict:
    """Best play's ``advice`` (``{"do": "invoke"}``, or None to keep the dice
    as they lie) and the one ``choice``, the invoke, priced exactly:
    ``outcome`` and ``rank`` (the rungs it is worth on average), beside
    ``rank_now``. Nothing to advise once the invoke is spent.

    >>> from rules.dice import ScriptedRng
    >>> spec = normalize({"skill": 2, "difficulty": 2})
    >>> a = advise(spec, {**roll(spec, ScriptedRng([1, 1, 3, 5])), "stages": [{"do": "roll"}]})
    >>> a["advice"], a["choices"][0]["action"], a["rank_now"]
    ({'do': 'invoke'}, {'do': 'invoke'}, 0)
    """
    if not _open(result):
        return {"advice": None, "choices": []}
    total = spec["skill"] + sum(FACE_VALUE[f] for f in _faces(result))
    ladder = _ladder(spec, _totals(spec))
    choice = {"action": {"do": "invoke"}, "outcome": dist_to_json(ladder), "exact": True,
              "rank": float(_expected_rank(spec))}
    return {"advice": {"do": "invoke"} if _invokes(spec, total) else None, "choices": [choice],
            "rank_now": _RANK[outcome_of(total - spec["difficulty"])]}
