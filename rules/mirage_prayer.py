"""Mirage's prayer played best (issue 13; RULES-NOTES Mirage 4).

A prayer rerolls any dice not showing 1, once, on an active roll; the
prayer bonus steps the rerolled base dice; any 1 afterwards costs a
Condition. Which dice to pray with is the player's choice, and this module
says which choice is best, and what the turn is worth played that way:

- ``best_prayer(spec, dice, opp)``: the die positions whose prayer gives
  the highest chance to succeed (opposed: to win against the opponent's
  ``opp`` successes), then the lowest chance of a Condition, then the best
  chance of 2+ successes (opposed: a win by 2+), then the most successes
  expected, then the fewest dice. ``[]``: praying gains nothing.
- ``turn_with_prayer(spec)``: the turn before the roll, played best: the
  roll, and on a failure (opposed: a loss or a tie) the best prayer. Every
  first roll is enumerated, exactly.

Both price a choice with the prayer's own code in ``mirage``
(``_prayer_plan``, ``_rerolled_sizes``: the sizes ``act`` rolls), so the
advice is the prayer ``act`` makes.

>>> from rules import normalize, roll
>>> from rules.dice import ScriptedRng
>>> spec = normalize("mirage", {"attribute": 8, "skill": 6, "skill_name": "might"})
>>> r = roll("mirage", spec, ScriptedRng([3, 1]))     # a 3 and a 1: only the d8 may be rerolled
>>> r["best_prayer"]
[0]
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement, product
from math import factorial, lcm, prod

from . import mirage as M

__all__ = ["best_prayer", "turn_with_prayer", "REPRESENTATIVE"]

#: The faces that stand for every face of the same kind: a 1 (cannot be
#: rerolled, costs a Condition), 2-5 (no success), 6-9 (one), 10+ (two).
REPRESENTATIVE = (1, 2, 6, 10)


@lru_cache(maxsize=1024)
def _rerolled(sizes: tuple) -> tuple:
    """Freshly rolled dice of these sizes, as whole numbers over ``den`` =
    the product of the sizes: ``(den, tail, mean, no_one)``, ``tail[k]`` =
    P(at least k successes), ``no_one`` = P(no die shows 1)."""
    den = prod(sizes)
    dist = M._side_dist(list(sizes))
    tail = tuple(int(sum((p for x, p in dist.items() if x >= k), Fraction(0)) * den)
                 for k in range(max(dist) + 1))
    mean = int(sum((x * p for x, p in dist.items()), Fraction(0)) * den)
    return den, tail, mean, prod(s - 1 for s in sizes)


def _choice(dice: list, chosen: tuple, bonus: int) -> tuple:
    """Praying with ``chosen`` (positions), as whole numbers over ``den``:
    ``(den, fixed, tail, condition, mean)``: the successes kept, P(at
    least k more from the rerolled dice), P(Condition), the successes
    expected in all."""
    fixed = sum(d["successes"] for i, d in enumerate(dice) if i not in chosen)
    if not chosen:
        return 1, fixed, (1,), 0, fixed  # no prayer, no Condition
    plan = M._prayer_plan(dice, list(chosen), bonus)
    rerolled = M._rerolled_sizes(dice, list(chosen), plan)
    den, tail, mean, no_one = _rerolled(tuple(sorted(rerolled)))
    kept_one = any(d["face"] == 1 for i, d in enumerate(dice) if i not in chosen)
    return den, fixed, tail, den if kept_one else den - no_one, fixed * den + mean


def _candidates(dice: list) -> list:
    """Every choice worth pricing: any set of the dice not showing 1, where
    gear dice of one size showing the same kind of face are one group (which
    of them is taken changes nothing: the lowest positions are)."""
    groups: dict = {}
    for i, d in enumerate(dice):
        if d["face"] == 1:
            continue
        key = ("gear", d["sides"], d["successes"]) if d["kind"] == "gear" else ("base", i)
        groups.setdefault(key, []).append(i)
    members = list(groups.values())
    out = []
    for counts in product(*(range(len(g) + 1) for g in members)):
        out.append(tuple(sorted(i for g, k in zip(members, counts) for i in g[:k])))
    return out


def _priced(dice: list, bonus: int) -> tuple:
    """Every candidate priced over one denominator (so choices compare fast
    and exactly): ``(den, [(choice, fixed, tail, condition, mean)])``,
    fewest dice first, then the lowest positions (so among equal choices
    the first is taken)."""
    raw = [(c, _choice(dice, c, bonus)) for c in sorted(_candidates(dice), key=lambda c: (len(c), c))]
    den = lcm(*(fig[0] for _, fig in raw))
    out = []
    for c, (d, fixed, tail, cond, mean) in raw:
        f = den // d
        out.append((c, fixed, tuple(t * f for t in tail), cond * f, mean * f))
    return den, out


def _score(entry: tuple, need: int, den: int) -> tuple:
    """The order of choices: P(success), then no Condition, then P(2+),
    then the successes expected, then the fewest dice (times ``den``).
    ``need``: the own successes a success takes (1, or the opponent's + 1)."""
    c, fixed, tail, cond, mean = entry
    at = lambda k: tail[max(0, k - fixed)] if k - fixed < len(tail) else 0  # noqa: E731
    return at(need), -cond, at(need + 1), mean, -len(c)


def _best(priced: tuple, need: int) -> tuple:
    """The best choice of ``priced`` for ``need``, and its score."""
    den, entries = priced
    best = None
    for e in entries:
        s = _score(e, need, den)
        if best is None or s > best[1]:
            best = (e[0], s)
    return best


def _need(opp: int | None) -> int:
    return 1 if opp is None else opp + 1


def best_prayer(spec: dict, dice: list, opp: int | None) -> list:
    """The positions of the dice best play prays with now (``[]``: praying
    gains nothing), for a normalized spec (its ``prayer_bonus``), the dice
    as they lie and the opponent's successes (None unopposed)."""
    return list(_best(_priced(dice, spec["prayer_bonus"]), _need(opp))[0])


# --------------------------------------------------------------------------
# The turn before the roll: every first roll, then the best prayer.

def _classes(sides: int) -> list:
    """(representative face, its probability) on one die."""
    counts = {1: 1, 2: 4, 6: min(sides, 9) - 5, 10: max(0, sides - 9)}
    return [(f, Fraction(n, sides)) for f, n in counts.items() if n]


def _slots(spec: dict) -> list:
    """(kind, sides) of the roller's dice, in draw order."""
    plan = M._plan(spec)
    return [tuple(p) for p in plan["stepped"]] + [("gear", s) for s in plan["gear"]]


def _multisets(sides: int, n: int) -> list:
    """The faces ``n`` interchangeable dice of ``sides`` can show, as
    (sorted representative faces, probability): the order dropped."""
    out = []
    for combo in combinations_with_replacement(_classes(sides), n):
        p = Fraction(factorial(n))
        for f in {f for f, _ in combo}:
            p /= factorial(sum(1 for g, _ in combo if g == f))
        for _, q in combo:
            p *= q
        out.append((tuple(f for f, _ in combo), p))
    return out


def _states(spec: dict) -> list:
    """Every first roll as (representative dice, probability). Gear dice
    of one size are interchangeable, so they are enumerated as multisets;
    the base dice one by one (the prayer bonus steps them by position)."""
    slots = _slots(spec)
    base = [s for s in slots if s[0] != "gear"]
    gear_sizes = sorted({s for k, s in slots if k == "gear"})
    counts = [sum(1 for k, s in slots if k == "gear" and s == g) for g in gear_sizes]
    parts = [_classes(s) for _, s in base] + [_multisets(g, n) for g, n in zip(gear_sizes, counts)]
    out = []
    for combo in product(*parts):
        dice = [_rep(k, s, f) for (k, s), (f, _) in zip(base, combo)]
        dice += [_rep("gear", g, f) for g, (faces, _) in zip(gear_sizes, combo[len(base):]) for f in faces]
        p = Fraction(1)
        for _, q in combo:
            p *= q
        out.append((dice, p))
    return out


def _rep(kind: str, sides: int, face: int) -> dict:
    return {"kind": kind, "sides": sides, "face": face, "successes": M.successes_on(face)}


def _opp_dist(spec: dict) -> tuple:
    """The opponent's successes as whole-number weights over a
    denominator: ``(den, {m: weight})``; unopposed ``{None: 1}``."""
    if spec["opponent"] is None:
        return 1, {None: 1}
    sizes = M._sizes(M._plan(spec["opponent"]))
    den = prod(sizes)
    return den, {m: int(q * den) for m, q in M._side_dist(sizes).items()}


def _state_value(dice: list, opp: dict, bonus: int) -> tuple:
    """One first roll against each opponent's roll, as whole-number sums
    over ``den`` (the prayer's choices') times the opponent's denominator:
    ``(den, success, two, condition, prays)``. A success stands; a failure
    (opposed: a loss or a tie) takes the best prayer. Past what any prayer
    can reach, best play does not pray (any prayer risks a Condition)."""
    own = sum(d["successes"] for d in dice)
    reach = own + 2 * sum(1 for d in dice if d["face"] != 1) + 2 * bonus
    priced = _priced(dice, bonus) if any(own < _need(m) <= reach for m in opp) else (1, [])
    den = priced[0]
    acc = [0, 0, 0, 0]
    for m, q in opp.items():
        need = _need(m)
        if own >= need:
            acc[0] += q * den
            acc[1] += q * den if own >= need + 1 else 0
        elif need <= reach:
            c, (win, cond, two, _, _) = _best(priced, need)
            acc[0] += q * win
            acc[1] += q * two
            acc[2] -= q * cond
            acc[3] += q * den if c else 0
    return (den, *acc)


def _tally(spec: dict) -> list:
    """P(success), P(2+), P(Condition), P(praying) of the turn, exactly."""
    opp_den, opp = _opp_dist(spec)
    out = [Fraction(0)] * 4
    for dice, p in _states(spec):
        den, *sums = _state_value(dice, opp, spec["prayer_bonus"])
        w = p / (den * opp_den)
        out = [t + w * x for t, x in zip(out, sums)]
    return out


_TALLIES: dict = {}


def _cached_tally(spec: dict) -> list:
    """``_tally``, kept for the dice it depends on (the page asks the same
    question again after each roll and tap)."""
    opp = spec["opponent"]
    key = (tuple(_slots(spec)), tuple(M._sizes(M._plan(opp))) if opp is not None else None,
           spec["prayer_bonus"])
    if key not in _TALLIES:
        if len(_TALLIES) >= 64:
            _TALLIES.clear()
        _TALLIES[key] = _tally(spec)
    return _TALLIES[key]


def turn_with_prayer(spec: dict) -> dict:
    """The odds of the turn played best with a prayer: roll; on a failure
    (opposed: a loss or a tie, which fails the active side), pray with the
    best dice (``best_prayer``), at the spec's ``prayer_bonus``; no
    tie-break. Exact: every first roll is enumerated.

    >>> from rules import normalize
    >>> o = turn_with_prayer(normalize("mirage", {"attribute": 6, "skill": 6}))
    >>> round(o["success_with_prayer"], 4), round(o["condition_with_prayer"], 4)
    (0.4784, 0.358)
    """
    success, two, cond, prays = _cached_tally(spec) if not spec["passive"] else [Fraction(0)] * 4
    return {"success_with_prayer": float(success), "bonus_with_prayer": float(two),
            "condition_with_prayer": float(cond), "prays": float(prays),
            "prayer_bonus": spec["prayer_bonus"], "prayer_allowed": not spec["passive"]}
