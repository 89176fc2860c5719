"""Open Tale (its rules text, "3. Roll system"): two dice whose
sizes sum to the attribute's power, an optional Heroic d4, one of four roll
modifiers, then explosions; the score is the sum.

The spec keys (DESIGN.md): ``level`` (1-9), ``dice`` (two sizes summing to the
power; default the most even pair), ``heroic``, ``modifiers`` (names; they
compensate and clamp to -2..2), ``tie_break`` (``best``/``larger``/``smaller``,
chosen before rolling), ``target`` (optional).

Draw order (DESIGN.md): the pair in spec order (largest first), then the
Heroic d4, then the modifier's reroll, then each die's explosions, die by die.

>>> from rules.dice import ScriptedRng
>>> spec = normalize({"level": 5, "dice": "d10 + d6", "modifiers": ["advantage"]})
>>> r = roll(spec, ScriptedRng([7, 2, 5]))
>>> [d["history"] for d in r["dice"]], r["value"], r["outcome"]
([[7], [2, 5]], 12, 'scored')
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

from ..dice import (SIZES, Die, SpecError, check_keys, is_int, get_bool, get_choice,
                   get_int, get_sizes, name_key, roll_die)
from ..system import check_action
from .explain import explain
from .terms import (HEROIC_DIE, LEVELS, MAX_NET, MODIFIERS, NET_NAMES, PICK_HIGH, level_of, modifier_text,
                    net_modifier, pair_text, power)

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "STEPS", "LEVELS", "MAX_NET", "HEROIC_DIE", "MODIFIERS", "TIE_BREAKS", "EXPLOSION_CAP", "SCORE_BOUND",
           "power", "valid_pairs", "even_pair", "net_modifier", "normalize", "roll", "act",
           "odds", "score_dist", "expected_minimum", "expected_table", "TEXT_TABLE",
           "table_comparison"]

NAME = "open_tale"
TITLE = "Open Tale"

OUTCOMES = ("failure", "scored", "success")

#: RULES-NOTES Open Tale 3: on a tie the choice is made before rolling.
#: ``best``: the die whose reroll gives the better expected final score;
#: ``larger`` / ``smaller``: the larger / smaller die among those tied;
#: ``target``: the better chance to reach the target score, then
#: the better expected score (``best`` when no target is set).
TIE_BREAKS = ("best", "larger", "smaller", "target")

#: RULES-NOTES Open Tale 3: explosions are unbounded in principle; a die stops
#: after this many explosions (a d4 gets there once in 4**100 rolls) and the
#: result says so.
EXPLOSION_CAP = 100

#: The odds are exact for every score up to this bound; the mass above it is
#: reported as ``tail`` (under 1e-6 for every spec). Targets go up to it.
SCORE_BOUND = 100

#: The table of 3.4 needs only the 50 % point (never above 25): its odds
#: stop here, the rest of the mass counted as the tail.
TABLE_BOUND = 48

#: Open Tale, 3.2: at most this many modifiers may be named at once.
MAX_MODIFIERS = 8

#: No step after a roll: everything is decided before it (DESIGN.md verbs).
STEPS: dict = {}
DEFAULT_SPEC = {"level": 5, "dice": [8, 8], "heroic": False, "modifiers": [],
                "tie_break": "best", "target": None}

KEYS = ("level", "dice", "heroic", "modifiers", "tie_break", "target")

def _keep(net: int, old: int, new: int) -> int:
    """The face kept after the modifier's reroll (Open Tale, 3.2): Inferiority
    the smaller, Superiority the larger, Advantage and Disadvantage the second.

    >>> _keep(-2, 5, 3), _keep(-2, 3, 5), _keep(-1, 3, 5), _keep(2, 3, 1)
    (3, 3, 5, 3)
    """
    if net == -MAX_NET:
        return min(old, new)
    if net == MAX_NET:
        return max(old, new)
    return new


# --------------------------------------------------------------------------
# Power and pairs.

def valid_pairs(level: int) -> list[tuple[int, int]]:
    """The pairs of d4-d12 summing to the level's power, larger die first,
    the most uneven pair first (the text's own order for level 5).

    >>> valid_pairs(5)
    [(12, 4), (10, 6), (8, 8)]
    >>> valid_pairs(1), valid_pairs(9)
    ([(4, 4)], [(12, 12)])
    """
    p = power(level)
    return [(a, p - a) for a in reversed(SIZES) if p - a in SIZES and a >= p - a]


def even_pair(level: int) -> tuple[int, int]:
    """The most even valid pair: the default dice (DESIGN.md).

    >>> even_pair(5), even_pair(6)
    ((8, 8), (10, 8))
    """
    return valid_pairs(level)[-1]


# --------------------------------------------------------------------------
# The spec.

def _pairs_text(level: int) -> str:
    return ", ".join(pair_text(p) for p in valid_pairs(level))


def normalize(spec: Any) -> dict:
    """Validate every field and fill every default. Without ``level`` but with
    ``dice``, the level is the one whose power the pair makes (every pair of
    d4-d12 makes a power from 8 to 24).

    >>> normalize({})["dice"]
    [8, 8]
    >>> normalize({"dice": "d12, d6"})["level"]
    6
    >>> normalize({"level": 5, "dice": "d12 & d6"})
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: dice: d12 + d6 makes power 18, not level 5's 16; valid pairs: d12 + d4, d10 + d6, 2d8
    """
    check_keys(spec, KEYS)
    dice = _get_dice(spec)
    level = _get_level(spec, dice)
    return {
        "level": level,
        "dice": _check_pair(dice, level),
        "heroic": get_bool(spec, "heroic", False),
        "modifiers": _get_modifiers(spec),
        "tie_break": get_choice(spec, "tie_break", TIE_BREAKS, default="best"),
        "target": _get_target(spec),
    }


def _get_dice(spec: dict) -> list[int] | None:
    """The pair asked for, or None (the level's most even pair)."""
    raw = spec.get("dice")
    if raw is None or raw == "" or raw == []:
        return None
    dice = get_sizes(spec, "dice")
    if len(dice) != 2:
        hint = _pairs_hint(spec.get("level"))
        raise SpecError("dice", f"must be exactly two dice (got {len(dice)}){hint}")
    return dice


def _pairs_hint(lv: Any) -> str:
    """The valid pairs of level ``lv`` for a message, when it is one
    (else nothing: the level's own check names what is wrong with it)."""
    return (f"; valid pairs for level {lv}: {_pairs_text(lv)}"
            if is_int(lv) and lv in LEVELS else "")


def _get_level(spec: dict, dice: list[int] | None) -> int:
    if spec.get("level") is None and dice is not None:
        return level_of(sum(dice))
    return get_int(spec, "level", LEVELS[0], LEVELS[-1], default=DEFAULT_SPEC["level"])


def _check_pair(dice: list[int] | None, level: int) -> list[int]:
    if dice is None:
        return list(even_pair(level))
    if tuple(dice) not in valid_pairs(level):
        raise SpecError("dice", f"{pair_text(dice)} makes power {sum(dice)}, not level {level}'s "
                                f"{power(level)}; valid pairs: {_pairs_text(level)}")
    return dice


def _modifier_names(spec) -> list:
    """The modifiers as given: a list, or a comma-separated string."""
    v = spec.get("modifiers")
    if v is None or v == "":
        return []
    v = _split_names(v)
    if not isinstance(v, (list, tuple)):
        raise SpecError("modifiers", "must be a list of names: " + ", ".join(MODIFIERS))
    if len(v) > MAX_MODIFIERS:
        raise SpecError("modifiers", f"may name at most {MAX_MODIFIERS} modifiers")
    return list(v)


def _split_names(v: Any) -> Any:
    """A comma-separated text as its names (empty parts dropped); any
    other value unchanged."""
    if isinstance(v, str):
        return [p for p in v.split(",") if p.strip()]
    return v


def _modifier(x) -> str:
    k = name_key(x, "modifiers")
    if k not in MODIFIERS:
        raise SpecError("modifiers", f"{str(x)[:30]!r} is not a modifier; allowed: " + ", ".join(MODIFIERS))
    return k


def _get_modifiers(spec) -> list[str]:
    """Names, in any case; a comma-separated string is accepted too. Each
    named modifier counts (two sources of Advantage add to +2, the text's
    integer reading); sorted best first, as the text writes "Superiority and
    Disadvantage"."""
    return sorted((_modifier(x) for x in _modifier_names(spec)), key=lambda k: -MODIFIERS[k])


def _get_target(spec):
    v = spec.get("target")
    if v is None or (isinstance(v, str) and not v.strip()):
        return None
    return get_int(spec, "target", 1, SCORE_BOUND)


# --------------------------------------------------------------------------
# The modifier's choice of die.

def _exploding_mean(s: int) -> Fraction:
    """Expected value of a fresh exploding die: E = (s+1)/2 + E/s."""
    return Fraction(s * (s + 1), 2 * (s - 1))


def _final_mean(s: int, face: int) -> Fraction:
    """Expected final total of a die of ``s`` sides showing ``face`` (it
    explodes on its maximum, Open Tale, 3.3)."""
    return face + (_exploding_mean(s) if face == s else 0)


_GAIN_CACHE: dict = {}


def _reroll_gain(s: int, face: int, net: int) -> Fraction:
    """How much rerolling this die under ``net`` changes the expected score."""
    key = (s, face, net)
    if key not in _GAIN_CACHE:
        after = sum((_final_mean(s, _keep(net, face, n)) for n in range(1, s + 1)), Fraction(0)) / s
        _GAIN_CACHE[key] = after - _final_mean(s, face)
    return _GAIN_CACHE[key]


def _reach(sides, faces, j: int, net: int, target: int) -> float:
    """P(the final score >= target) when the modifier rerolls die ``j``:
    every kept face of its reroll, every die on its maximum exploding."""
    others = sum(faces) - faces[j]
    booms = [s for k, (s, f) in enumerate(zip(sides, faces)) if k != j and f == s]
    p = 0.0
    for kept, c in _kept_counts(sides[j], faces[j], net):
        boom = tuple(sorted(booms + ([sides[j]] if kept == sides[j] else [])))
        short = target - others - kept  # what the explosions must add
        dist = _boom_dist(boom, SCORE_BOUND)
        p += c / sides[j] * (1.0 - math.fsum(dist[:max(0, short)]))
    return p


def pick_die(sides, faces, net: int, tie_break: str, target: int | None = None) -> tuple[int, list[int]]:
    """The index of the die the modifier rerolls, and the indexes tied with it.

    Open Tale, 3.2: nerfs take the die with the highest value, buffs the one
    with the smallest. On a tie the player may choose; RULES-NOTES Open Tale
    3: the choice is fixed before rolling by ``tie_break``; ``best`` takes
    the die whose reroll gives the better expected final score (equal
    expectations: the first in die order); ``target`` the better chance
    to reach ``target``, then as ``best``.

    >>> pick_die([10, 6], [3, 3], 1, "best")      # Advantage: rerolling the d10 gains more
    (0, [0, 1])
    >>> pick_die([10, 6], [3, 3], 1, "smaller")
    (1, [0, 1])
    >>> pick_die([8, 4, 4], [4, 2, 4], -1, "best") # Disadvantage: keep the d4's explosion
    (0, [0, 2])
    >>> pick_die([6, 4], [1, 1], -1, "target", 7)  # 7 needs the d4 to explode: 3/16 against 1/6
    (1, [0, 1])
    """
    want = max(faces) if PICK_HIGH[net] else min(faces)
    if faces.count(want) == 1:
        i = faces.index(want)
        return i, [i]
    tied = [i for i, f in enumerate(faces) if f == want]
    return _tie_choice(sides, faces, tied, net, tie_break, target), tied


def _tie_choice(sides, faces, tied: list, net: int, tie_break: str, target: int | None) -> int:
    """Which of the ``tied`` dice the modifier rerolls, by ``tie_break``
    (``pick_die``)."""
    if tie_break == "larger":
        return max(tied, key=lambda i: (sides[i], -i))
    if tie_break == "smaller":
        return min(tied, key=lambda i: (sides[i], i))
    if tie_break == "target" and target is not None:
        return max(tied, key=lambda i: (round(_reach(sides, faces, i, net, target), 12),
                                        _reroll_gain(sides[i], faces[i], net), -i))
    return max(tied, key=lambda i: (_reroll_gain(sides[i], faces[i], net), -i))


# --------------------------------------------------------------------------
# Rolling.

def _die_name(sides: int, heroic: bool) -> str:
    return f"Heroic d{sides}" if heroic else f"d{sides}"


def _modifier_reroll(spec: dict, sizes: list, faces: list, rng) -> dict | None:
    """Open Tale, 3.2: the net modifier rerolls the die with the highest
    (nerfs) or smallest (buffs) value and keeps one of the two faces."""
    net = net_modifier(spec["modifiers"])
    if not net:
        return None
    i, tied = pick_die(sizes, faces, net, spec["tie_break"], spec["target"])
    new = roll_die(rng, sizes[i])
    return {"die": i, "old": faces[i], "new": new, "kept": _keep(net, faces[i], new), "tied": tied,
            "tie_break": spec["tie_break"]}


def _explode(sides: int, face: int, rng) -> tuple[list[int], bool]:
    """Open Tale, 3.3: a die on its maximum rolls again and adds, "indefinitely"
    (RULES-NOTES Open Tale 3: a die stops after ``EXPLOSION_CAP``). The
    explosions, and whether the cap stopped them."""
    out: list[int] = []
    last = face
    while last == sides:
        if len(out) >= EXPLOSION_CAP:
            return out, True
        last = roll_die(rng, sides)
        out.append(last)
    return out, False


def _reroll_marks(reroll: dict, net: int) -> dict:
    """Inferiority/Superiority may keep the first face; history stays in the
    order rolled, ``dropped`` names the face set aside."""
    first = abs(net) == MAX_NET and reroll["new"] != reroll["old"] and reroll["kept"] == reroll["old"]
    return {"kept_first": first, "dropped": reroll["new"] if first else reroll["old"]}


def _die_dict(sides: int, heroic: bool, history: list, explosions: list, capped: bool,
              reroll: dict | None, net: int) -> dict:
    kept = history[-1] if reroll is None else reroll["kept"]
    role = "rerolled" if reroll is not None else ("exploded" if explosions else "kept")
    extra: dict[str, Any] = {"name": _die_name(sides, heroic), "heroic": heroic,
                             "explosions": explosions, "total": kept + sum(explosions)}
    if reroll is not None:
        extra.update(_reroll_marks(reroll, net))
    if capped:
        extra["capped"] = True
    return Die(face=kept, role=role, sides=sides, history=tuple(history), extra=extra).to_dict()


def _outcome(score: int, target: int | None) -> str:
    if target is None:
        return "scored"
    return "success" if score >= target else "failure"


def _dice(sizes: list, faces: list, reroll: dict | None, net: int, rng) -> list[dict]:
    """The dice after the modifier's reroll, each exploding in die order."""
    at = reroll["die"] if reroll else None
    dice = []
    for i, (s, f) in enumerate(zip(sizes, faces)):
        own = reroll if i == at else None
        history = [f, own["new"]] if own else [f]
        boom, capped = _explode(s, own["kept"] if own else f, rng)
        dice.append(_die_dict(s, i == 2, history, boom, capped, own, net))
    return dice


def roll(spec: dict, rng) -> dict:
    """Roll a normalized spec (Open Tale, 3 to 3.3): the pair, then the
    Heroic d4 (the third die), then the modifier's reroll, then each die's
    explosions, die by die.

    Superiority and Disadvantage cancel to Advantage; the d6 showing the
    smallest value is rolled again and explodes (the worked compensation
    example of 3.2 with forced dice):

    >>> from rules.dice import ScriptedRng
    >>> spec = normalize({"level": 5, "dice": [10, 6], "modifiers": ["superiority", "disadvantage"]})
    >>> r = roll(spec, ScriptedRng([8, 1, 6, 2]))
    >>> r["dice"][1]["history"], r["dice"][1]["explosions"], r["value"]
    ([1, 6], [2], 16)
    """
    sizes = list(spec["dice"]) + ([HEROIC_DIE] if spec["heroic"] else [])
    faces = [roll_die(rng, s) for s in sizes]
    net = net_modifier(spec["modifiers"])
    reroll = _modifier_reroll(spec, sizes, faces, rng)
    dice = _dice(sizes, faces, reroll, net, rng)
    score = sum(d["total"] for d in dice)
    result = {
        "dice": dice,
        "value": score,
        "outcome": _outcome(score, spec["target"]),
        "level": spec["level"],
        "power": power(spec["level"]),
        "modifier": {"net": net, "name": NET_NAMES[net], "from": list(spec["modifiers"])},
        "reroll": reroll,
        "capped": any(d.get("capped") for d in dice),
        "cap": EXPLOSION_CAP,
        "target": spec["target"],
        "allowed": [],  # no step after a roll
    }
    result["explain"] = explain(spec, result)
    return result


def act(spec, result, action, rng):
    """Open Tale allows no step after a roll (DESIGN.md verbs table).

    >>> act({}, {}, {"do": "reroll"}, None)
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: action: Open Tale allows no step after a roll (got 'reroll')
    """
    check_action(action, STEPS, TITLE)


# --------------------------------------------------------------------------
# Exact odds.

_LCM = 120  # of 4, 6, 8, 10, 12: integer weights for the modifier's reroll

_EXPLODE_CACHE: dict = {}


def _exploding_dist(s: int, bound: int) -> list[float]:
    """P(a fresh exploding d``s`` totals n) for n = 0..bound (index n):
    n = q*s + r with 1 <= r < s has probability s**-(q+1)."""
    key = (s, bound)
    if key not in _EXPLODE_CACHE:
        out = [0.0] * (bound + 1)
        for n in range(1, bound + 1):
            q, r = divmod(n, s)
            if r:
                out[n] = float(Fraction(1, s ** (q + 1)))
        _EXPLODE_CACHE[key] = out
    return _EXPLODE_CACHE[key]


def _conv(a: list[float], b: list[float], bound: int) -> list[float]:
    out = [0.0] * (bound + 1)
    for i, pa in enumerate(a):
        if pa:
            for j in range(0, bound + 1 - i):
                pb = b[j]
                if pb:
                    out[i + j] += pa * pb
    return out


_DIST_CACHE: dict = {}
_BOOM_CACHE: dict = {}
_KEPT_CACHE: dict = {}


def _boom_dist(boom: tuple, bound: int) -> list[float]:
    """The added total of fresh exploding dice of these sizes, by index."""
    key = (boom, bound)
    if key not in _BOOM_CACHE:
        dist = [1.0] + [0.0] * bound
        for s in boom:
            dist = _conv(dist, _exploding_dist(s, bound), bound)
        _BOOM_CACHE[key] = dist
    return _BOOM_CACHE[key]


def _kept_counts(s: int, face: int, net: int) -> list[tuple[int, int]]:
    """(kept face, how many of the ``s`` rerolls keep it)."""
    key = (s, face, net)
    if key not in _KEPT_CACHE:
        counts: dict = {}
        for new in range(1, s + 1):
            k = _keep(net, face, new)
            counts[k] = counts.get(k, 0) + 1
        _KEPT_CACHE[key] = sorted(counts.items())
    return _KEPT_CACHE[key]


def score_dist(sizes, net: int, tie_break: str = "best", bound: int = SCORE_BOUND,
               target: int | None = None) -> tuple[dict, float]:
    """The exact distribution of the score for these dice (the pair, then the
    Heroic d4 if any) under a net modifier: ``({score: p} for score <= bound,
    mass above bound)``. Enumerates every face and every modifier reroll with
    integer weights, then adds the exploding dice in closed form
    (a die kept on its maximum adds a fresh exploding die).

    Two d4: 4 is 1+3, 2+2 or 3+1 (a 4 explodes, so it never ends a die);
    5 is 2+3 or 3+2; 6 is 3+3, or 1 + (4 then 1) and its mirror:

    >>> d, tail = score_dist((4, 4), 0)
    >>> d[4] == 3 / 16, d[5] == 2 / 16, d[6] == 1 / 16 + 2 / 64, tail < 1e-12
    (True, True, True, True)
    """
    target = target if tie_break == "target" else None  # only ``target`` reads it
    key = (tuple(sizes), net, tie_break, bound, target)
    if key not in _DIST_CACHE:
        out = _boom_dist(tuple(sorted(sizes)), bound) if net == 0 else _modified_dist(tuple(sizes), net,
                                                                                      tie_break, bound, target)
        res = {v: p for v, p in enumerate(out) if p > 0}
        _DIST_CACHE[key] = (res, max(0.0, 1.0 - math.fsum(res.values())))
    return _DIST_CACHE[key]


def _reroll_cases(sizes: tuple, net: int, tie_break: str, target: int | None = None) -> dict:
    """Every face of every die, gathered by what the modifier's reroll
    needs: (the die it picks, its face, the others' sum, which of the
    others explode) -> how many face combinations."""
    cases: dict = {}
    for faces in itertools.product(*(range(1, s + 1) for s in sizes)):
        i, _ = pick_die(sizes, faces, net, tie_break, target)
        mask = sum(1 << j for j in range(len(sizes)) if j != i and faces[j] == sizes[j])
        k = (i, faces[i], sum(faces) - faces[i], mask)
        cases[k] = cases.get(k, 0) + 1
    return cases


def _kept_groups(sizes: tuple, net: int, tie_break: str, target: int | None = None) -> dict:
    """(sum of the kept faces, mask of the dice that explode) -> integer
    weight over every face and every reroll (``_LCM`` evens the reroll's
    die sizes)."""
    groups: dict = {}
    for (i, face, other, mask), count in _reroll_cases(sizes, net, tie_break, target).items():
        s = sizes[i]
        for kept, c in _kept_counts(s, face, net):
            k = (other + kept, mask | (1 << i) if kept == s else mask)
            groups[k] = groups.get(k, 0) + _LCM // s * count * c
    return groups


def _modified_dist(sizes: tuple, net: int, tie_break: str, bound: int, target: int | None = None) -> list[float]:
    """The score by index under a net modifier: each group's kept sum, plus
    a fresh exploding die for each die kept on its maximum (its maximum is
    already in the sum)."""
    total = _LCM * math.prod(sizes)
    out = [0.0] * (bound + 1)
    booms: dict = {}
    for (base, mask), w in _kept_groups(sizes, net, tie_break, target).items():
        if mask not in booms:
            booms[mask] = _mask_booms(sizes, mask, bound)
        for m, q in booms[mask]:
            if base + m > bound:
                break
            out[base + m] += w / total * q
    return out


def _mask_booms(sizes: tuple, mask: int, bound: int) -> list:
    """What fresh exploding dice add, one for each die in ``mask``: the
    ``(amount, chance)`` pairs that can happen, up to ``bound``."""
    dist = _boom_dist(tuple(sizes[j] for j in range(len(sizes)) if mask >> j & 1), bound)
    return [(m, q) for m, q in enumerate(dist) if q]


def _survival(dist: dict, tail: float, bound: int) -> list[float]:
    """S[x] = P(score >= x) for x = 0..bound+1."""
    s = [0.0] * (bound + 2)
    acc = tail
    s[bound + 1] = acc
    for x in range(bound, -1, -1):
        acc += dist.get(x, 0.0)
        s[x] = acc
    return s


def expected_minimum_point(dist: dict, tail: float, bound: int = SCORE_BOUND) -> float:
    """RULES-NOTES Open Tale 4: the 50 % point of the survival function
    P(score >= x), interpolated linearly between whole scores.

    >>> expected_minimum_point({1: 0.5, 2: 0.5}, 0.0, 10)   # S(1)=1, S(2)=.5
    2.0
    """
    s = _survival(dist, tail, bound)
    for k in range(0, bound + 1):
        if s[k] >= 0.5 > s[k + 1]:
            return k + (s[k] - 0.5) / (s[k] - s[k + 1])
    return float(bound + 1)


def round_half_up(x: float) -> int:
    """Rounding for the table: halves go up (Python's round() goes to even).

    >>> round_half_up(10.5), round_half_up(10.49)
    (11, 10)
    """
    return math.floor(x + 0.5 + 1e-12)


def median(dist: dict, tail: float, bound: int = SCORE_BOUND) -> int:
    """The largest score reached at least half the time: max x with
    P(score >= x) >= 1/2 (the text's "expected minimum score", 3.4, before
    interpolation).

    >>> median({2: 0.25, 3: 0.25, 4: 0.5}, 0.0)
    4
    """
    s = _survival(dist, tail, bound)
    best = 0
    for x in range(0, bound + 2):
        if s[x] >= 0.5 - 1e-12:
            best = x
    return best


def odds(spec: dict, result: dict | None = None, action: Any = None) -> dict:
    """The exact score distribution of a normalized spec: ``value`` holds
    every score up to ``SCORE_BOUND``; ``tail`` the mass above it (never
    dropped). ``at_least`` = P(score >= target) when a target is set.

    >>> o = odds(normalize({"level": 1}))
    >>> o["exact"], o["median"], o["expected_minimum"], round(o["value"][2], 4)
    (True, 6, 6, 0.0625)
    """
    if action is not None:
        check_action(action, STEPS, TITLE)
    sizes = list(spec["dice"]) + ([HEROIC_DIE] if spec["heroic"] else [])
    net = net_modifier(spec["modifiers"])
    target = spec["target"]
    dist, tail = score_dist(sizes, net, spec["tie_break"], target=target)
    out: dict[str, Any] = {
        "value": {v: dist[v] for v in sorted(dist)},
        "tail": {"above": SCORE_BOUND, "p": tail},
        "bound": SCORE_BOUND,
        "exact": True,
        "mean": _mean(sizes, net, spec["tie_break"], target),
        "median": median(dist, tail),
        "expected_minimum": round_half_up(expected_minimum_point(dist, tail)),
        "modifier": {"net": net, "name": NET_NAMES[net], "text": modifier_text(spec["modifiers"])},
    }
    if target is None:
        out["outcome"] = {"scored": 1.0}
    else:
        out.update(_target_odds(dist, tail, target))
    return out


def _target_odds(dist: dict, tail: float, target: int) -> dict:
    """``at_least`` and the ``outcome`` of a roll against ``target``."""
    # target <= SCORE_BOUND, so the tail is all at or above it.
    p = math.fsum(p for v, p in dist.items() if v >= target) + tail
    return {"at_least": min(1.0, p), "outcome": {"failure": max(0.0, 1.0 - p), "success": min(1.0, p)}}


def _mean(sizes, net, tie_break, target=None) -> float:
    """The exact mean score, explosions included (closed form)."""
    base = sum(_exploding_mean(s) for s in sizes)
    if net == 0:
        return float(base)
    gain = Fraction(0)
    for faces in itertools.product(*(range(1, s + 1) for s in sizes)):
        i, _ = pick_die(sizes, faces, net, tie_break, target)
        gain += _reroll_gain(sizes[i], faces[i], net)
    return float(base + gain / math.prod(sizes))


# --------------------------------------------------------------------------
# The expected-scores table (Open Tale, 3.4 Expected scores).

#: Open Tale, 3.4, copied as printed: level -> net modifier -> (without, with Heroism).
TEXT_TABLE = {
    1: {-2: (4, 7), -1: (5, 7), 0: (6, 9), 1: (8, 11), 2: (8, 11)},
    2: {-2: (5, 8), -1: (6, 8), 0: (7, 10), 1: (8, 12), 2: (9, 12)},
    3: {-2: (6, 9), -1: (7, 9), 0: (8, 11), 1: (9, 13), 2: (10, 13)},
    4: {-2: (7, 10), -1: (8, 10), 0: (9, 12), 1: (10, 14), 2: (11, 14)},
    5: {-2: (7, 10), -1: (9, 11), 0: (10, 13), 1: (11, 15), 2: (12, 16)},
    6: {-2: (8, 11), -1: (9, 12), 0: (11, 14), 1: (12, 16), 2: (13, 17)},
    7: {-2: (9, 12), -1: (10, 13), 0: (12, 15), 1: (14, 17), 2: (15, 18)},
    8: {-2: (9, 13), -1: (11, 14), 0: (13, 16), 1: (15, 18), 2: (16, 19)},
    9: {-2: (10, 13), -1: (12, 14), 0: (14, 17), 1: (16, 19), 2: (17, 20)},
}


def expected_minimum(level: int, net: int, heroic: bool, tie_break: str = "best") -> float:
    """RULES-NOTES Open Tale 4: the level's valid pairs mixed in equal parts,
    the 50 % point of P(score >= x) interpolated linearly (not yet rounded).

    >>> round_half_up(expected_minimum(5, 0, False))   # rule of thumb: level + 5
    10
    """
    pairs = valid_pairs(level)
    mix: dict = {}
    tail = 0.0
    for pair in pairs:
        sizes = list(pair) + ([HEROIC_DIE] if heroic else [])
        d, t = score_dist(sizes, net, tie_break, TABLE_BOUND)
        for v, p in d.items():
            mix[v] = mix.get(v, 0.0) + p / len(pairs)
        tail += t / len(pairs)
    return expected_minimum_point(mix, tail, TABLE_BOUND)


_TABLE_CACHE: dict = {}


def expected_table(tie_break: str = "best") -> dict:
    """The computed table, shaped like ``TEXT_TABLE``, with the unrounded
    points alongside: ``{level: {net: {"values": (without, with), "points": (x, y)}}}``.
    Cached: it is computed once per tie break."""
    if tie_break not in _TABLE_CACHE:
        _TABLE_CACHE[tie_break] = {level: _table_row(level, tie_break) for level in LEVELS}
    return _TABLE_CACHE[tie_break]


def _table_row(level: int, tie_break: str) -> dict:
    """One level's row of ``expected_table``: each net modifier's points,
    without and with Heroism, and their rounded values."""
    row = {}
    for net in range(-MAX_NET, MAX_NET + 1):
        pts = (expected_minimum(level, net, False, tie_break),
               expected_minimum(level, net, True, tie_break))
        row[net] = {"values": tuple(round_half_up(x) for x in pts), "points": pts}
    return row


def table_comparison(tie_break: str = "best") -> dict:
    """The computed table beside the text's: every one of the 90 numbers,
    and the ones that differ.

    ``cells``: list of ``{"level", "net", "heroic", "text", "computed",
    "point", "match"}``; ``matches``: how many of the 90 agree."""
    cells = _table_cells(expected_table(tie_break))
    return {"cells": cells, "matches": sum(c["match"] for c in cells), "total": len(cells),
            "differ": [c for c in cells if not c["match"]]}


def _table_cells(table: dict) -> list:
    """Every number of the computed ``table`` beside the text's, level by
    level, net modifier by net modifier, without then with Heroism."""
    cells = []
    for level in LEVELS:
        for net in range(-MAX_NET, MAX_NET + 1):
            for h in (0, 1):
                text = TEXT_TABLE[level][net][h]
                comp = table[level][net]["values"][h]
                cells.append({"level": level, "net": net, "heroic": bool(h), "text": text,
                              "computed": comp, "point": table[level][net]["points"][h],
                              "match": text == comp})
    return cells
