"""Mirage's prayer played best (RULES-NOTES Mirage 4; docs/RULES-DECISIONS.md, Mirage).

A prayer rerolls any dice not showing 1, once, on an active roll; the
prayer bonus steps the rerolled base dice; any 1 afterwards costs a
Condition. Which dice to pray with is the player's choice, and this module
says which choice is best, and what the turn is worth played that way:

- ``best_prayer(spec, dice, opp)``: the die positions whose prayer has the
  highest worth: the chance to succeed (opposed: to win against the
  opponent's ``opp`` successes) less the chance of a Condition times what
  a Condition costs (``condition_cost``); then the best chance of 2+
  successes (opposed: a win by 2+), then the most successes expected, then
  the fewest dice. ``[]``: no prayer is worth its risk.
- ``turn_with_prayer(spec)``: the turn before the roll, played best: the
  roll, and on a failure (opposed: a loss or a tie) the best prayer where
  it is worth its risk; no tie-break.
- ``odds(spec, result, action)``: the model's odds (``model.odds``), and
  before the roll the turn played best with a prayer beside them.
- ``advise(spec, result)``: at a result, every action the rules
  allow (accept the dice, a tie-break, the best prayer), each valued with
  every later choice played best (a prayer after a tie-break, tie-breaks
  after a prayer), under best play's objective (docs/RULES-DECISIONS.md,
  Mirage): the worth (the chance to win less a Condition's cost), then 2+.

The turn's figures are exact up to ``WORK_LIMIT`` states (first rolls times
the opponent's numbers of successes, counted before any work) and sampled
past it, with a seed from the spec, the play chosen on one sample and
priced on a fresh one, with its 95 % margin, never above an exact upper
bound (``_oracle_bounds``) (docs/RULES-DECISIONS.md, Mirage: Work limit).

Both price a choice with the prayer's own code in ``model``
(``prayer_plan``, ``rerolled_sizes``: the sizes ``act`` rolls), so the
advice is the prayer ``act`` makes.

>>> from rules import normalize, roll
>>> from rules.dice import ScriptedRng
>>> spec = normalize("mirage", {"attribute": 8, "skill": 6, "skill_name": "might"})
>>> r = roll("mirage", spec, ScriptedRng([3, 1]))     # a 3 and a 1: only the d8 may be rerolled
>>> r["best_prayer"]
[0]
"""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction
from functools import lru_cache
from itertools import combinations, combinations_with_replacement, product
from math import comb, factorial, lcm, prod

from . import choices as W
from . import model as M
from ..dice import poly_mul, spec_seed, step_up

__all__ = ["best_prayer", "turn_with_prayer", "advise", "odds", "REPRESENTATIVE", "WORK_LIMIT", "SAMPLES"]

#: The faces that stand for every face of the same kind (``M.face_counts``):
#: a 1 (cannot be rerolled, costs a Condition), no success, one, two.
REPRESENTATIVE = tuple(M.face_counts(max(M.BASE_SIZES)))


@lru_cache(maxsize=1024)
def _rerolled(sizes: tuple) -> tuple:
    """Freshly rolled dice of these sizes, as whole numbers over ``den`` =
    the product of the sizes: ``(den, tail, mean, no_one)``, ``tail[k]`` =
    P(at least k successes), ``no_one`` = P(no die shows 1)."""
    den = prod(sizes)
    dist = M.side_dist(list(sizes))
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
    plan = M.prayer_plan(dice, list(chosen), bonus)
    rerolled = M.rerolled_sizes(dice, list(chosen), plan)
    den, tail, mean, no_one = _rerolled(tuple(sorted(rerolled)))
    kept_one = any(d["face"] == M.CONDITION_FACE for i, d in enumerate(dice) if i not in chosen)
    return den, fixed, tail, den if kept_one else den - no_one, fixed * den + mean


def _candidates(dice: list) -> list:
    """Every choice worth pricing: any set of the dice not showing 1, where
    gear dice of one size showing the same kind of face are one group (which
    of them is taken changes nothing: the lowest positions are)."""
    members = _alike(dice)
    out = []
    for counts in product(*(range(len(g) + 1) for g in members)):
        out.append(tuple(sorted(i for g, k in zip(members, counts) for i in g[:k])))
    return out


def _alike(dice: list) -> list:
    """The positions of the dice not showing 1 in groups whose members are
    alike for a prayer: gear dice of one size showing the same kind of face
    together, each base die alone (the bonus steps it by position)."""
    groups: dict = {}
    for i, d in enumerate(dice):
        if d["face"] == M.CONDITION_FACE:
            continue
        key = ("gear", d["sides"], d["successes"]) if d["kind"] == "gear" else ("base", i)
        groups.setdefault(key, []).append(i)
    return list(groups.values())


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


def _score(entry: tuple, need: int, cost: Fraction) -> tuple:
    """The order of choices: the worth (P(success) less P(Condition) times
    its ``cost``), then P(2+), then the successes expected, then the fewest
    dice (all times ``den``, the worth times the cost's denominator too, so
    every comparison is exact). ``need``: the own successes a success takes
    (1, or the opponent's + 1)."""
    c, fixed, tail, cond, mean = entry
    at = lambda k: tail[max(0, k - fixed)] if k - fixed < len(tail) else 0  # noqa: E731
    return at(need) * cost.denominator - cond * cost.numerator, at(need + 1), mean, -len(c)


def _best(priced: tuple, need: int, cost: float) -> tuple:
    """The best choice of ``priced`` for ``need``, and its score."""
    _den, entries = priced
    cost = Fraction(str(cost))
    best = None
    for e in entries:
        s = _score(e, need, cost)
        if best is None or s > best[1]:
            best = (e[0], s)
    return best


def _need(opp: int | None) -> int:
    return 1 if opp is None else opp + 1


def best_prayer(spec: dict, dice: list, opp: int | None) -> list:
    """The positions of the dice best play prays with now (``[]``: no
    prayer is worth its risk of a Condition), for a normalized spec (its
    ``prayer_bonus``), the dice as they lie and the opponent's successes
    (None unopposed); a tie counts as not winning."""
    return list(_best(_priced(dice, spec["prayer_bonus"]), _need(opp), condition_cost(spec))[0])


# --------------------------------------------------------------------------
# The turn before the roll: every first roll, then the best prayer.

def _classes(sides: int) -> list:
    """(representative face, its probability) on one die."""
    return [(f, Fraction(n, sides)) for f, n in M.face_counts(sides).items() if n]


def _slots(spec: dict) -> list:
    """(kind, sides) of the roller's dice, in draw order."""
    plan = M.side_plan(spec)
    return [tuple(p) for p in plan["stepped"]] + [("gear", s) for s in plan["gear"]]


def _multisets(sides: int, n: int) -> list:
    """The faces ``n`` interchangeable dice of ``sides`` can show, as
    (sorted representative faces, probability): the order dropped."""
    out = []
    for combo in combinations_with_replacement(_classes(sides), n):
        p = _orderings(combo, n)
        out.append((tuple(f for f, _ in combo), p * prod(q for _, q in combo)))
    return out


def _orderings(combo: tuple, n: int) -> Fraction:
    """In how many orders ``n`` dice can show the faces of ``combo``
    (``(face, probability)`` pairs): n! over each face's count!."""
    p = Fraction(factorial(n))
    for f in {f for f, _ in combo}:
        p /= factorial(sum(1 for g, _ in combo if g == f))
    return p


def _states(spec: dict) -> list:
    """Every first roll as (representative dice, probability). Gear dice
    of one size are interchangeable, so they are enumerated as multisets;
    the base dice one by one (the prayer bonus steps them by position)."""
    slots = _slots(spec)
    base = [s for s in slots if s[0] != "gear"]
    gear = _gear_counts(slots)
    parts = [_classes(s) for _, s in base] + [_multisets(g, n) for g, n in gear.items()]
    return [(_combo_dice(base, list(gear), combo), prod((q for _, q in combo), start=Fraction(1)))
            for combo in product(*parts)]


def _gear_counts(slots: list) -> dict:
    """How many gear dice of each size the roller has, the smallest size
    first (gear dice of one size are interchangeable)."""
    gear = [s for k, s in slots if k == "gear"]
    return {g: gear.count(g) for g in sorted(set(gear))}


def _combo_dice(base: list, gear_sizes: list, combo: tuple) -> list:
    """The dice of one first roll: a face per base die, then a multiset
    of faces per gear size."""
    dice = [_rep(k, s, f) for (k, s), (f, _) in zip(base, combo)]
    return dice + [_rep("gear", g, f) for g, (faces, _) in zip(gear_sizes, combo[len(base):]) for f in faces]


def _rep(kind: str, sides: int, face: int) -> dict:
    return {"kind": kind, "sides": sides, "face": face, "successes": M.successes_on(face)}


# --------------------------------------------------------------------------
# Best play over every choice: the decision model.
#
# A value is ``(win, condition, two, tie, prays)``: the chances, from here
# played best, that the roll ends won (unopposed: a success), that a
# Condition is gained from here on, that it ends won by 2+ (2+ successes),
# that it ends tied (the GM's tie stands), and that a prayer is made.
# Best play (docs/RULES-DECISIONS.md, "Mirage: what a Condition costs"): the
# highest worth, the chance to win less the chance of a Condition times
# what a Condition costs (``condition_cost``), then the highest chance of
# 2+; between equal plays, accepting before a tie-break before a prayer,
# and fewer dice.

#: Figures closer than this are equal (floats; the dice's odds differ far more).
EPS = 1e-12
#: What a Condition costs, in points of this roll's chance to win: a
#: prayer is worth it only where each Condition it risks buys at least
#: this much more chance (docs/RULES-DECISIONS.md, "Mirage: what a Condition
#: costs": a Condition is a step down on every later roll of its kind until
#: it heals, and a step takes about this much off such a roll).
CONDITION_COST = 0.10
#: A Condition that would be the fourth of its type Breaks the character
#: ("Conditions": no action at all, and a critical injury): it costs as much
#: as the whole roll.
BROKEN_COST = 1.0
#: Two choices are a close call when one wins more often and the other
#: risks fewer Conditions and their worths are this close: both are marked
#: (``best_chance`` and ``safest``), not only the advised one.
CLOSE_CALL = CONDITION_COST
#: A question's work limit, counted in states (the active side's first
#: rolls, gear dice of one size as multisets, times the opponent's numbers
#: of successes), counted before any work: exact up to it, sampled past it.
WORK_LIMIT = 8_000
#: Past the limit: this many first rolls of the active side (each against
#: every opponent roll, exactly) choose the play, and as many fresh ones,
#: drawn with a seed from the spec, price it.
SAMPLES = 120

LOSS = (0.0, 0.0, 0.0, 0.0, 0.0)
TIE = (0.0, 0.0, 0.0, 1.0, 0.0)
WIN = (1.0, 0.0, 0.0, 0.0, 0.0)
WIN2 = (1.0, 0.0, 1.0, 0.0, 0.0)


def condition_cost(spec: dict) -> float:
    """What a Condition the prayer may cost is worth, in points of the
    chance to win (``CONDITION_COST``; ``BROKEN_COST`` when the character
    already has three of the type the roll's attribute takes).

    >>> from rules import normalize
    >>> condition_cost(normalize("mirage", {})), condition_cost(normalize("mirage", {"conditions": {"physical": 3}}))
    (0.1, 1.0)
    """
    kind = M.condition_type(spec["attribute_name"])
    return BROKEN_COST if spec["conditions"][kind] >= 3 else CONDITION_COST


def worth(value: tuple, cost: float) -> float:
    """A value's worth for best play: the chance to win less the chance of
    a Condition times its cost."""
    return value[0] - cost * value[1]


def _better(a: tuple, b: tuple, cost: float) -> bool:
    """Is ``a`` strictly better than ``b`` for best play: a higher worth
    (``worth``), then a higher chance of 2+."""
    wa, wb = worth(a, cost), worth(b, cost)
    if abs(wa - wb) > EPS:
        return wa > wb
    return a[2] > b[2] + EPS


@lru_cache(maxsize=4096)
def _table(sizes: tuple) -> tuple:
    """Freshly rolled dice of ``sizes``: ``(none, one, at_least, p_one)``:
    P(j successes and no 1), P(j successes and some 1), P(at least j), P(a 1)."""
    none, one = [1.0], [0.0]
    for s in sizes:
        p1, p0, pa, pb = (n / s for n in M.face_counts(s).values())
        n2, o2 = [0.0] * (len(none) + 2), [0.0] * (len(none) + 2)
        for j, (a, b) in enumerate(zip(none, one)):
            n2[j] += a * p0
            n2[j + 1] += a * pa
            n2[j + 2] += a * pb
            o2[j] += a * p1 + b * (p1 + p0)
            o2[j + 1] += b * pa
            o2[j + 2] += b * pb
        none, one = n2, o2
    at_least = [0.0] * (len(none) + 1)
    for j in range(len(none) - 1, -1, -1):
        at_least[j] = at_least[j + 1] + none[j] + one[j]
    return tuple(none), tuple(one), tuple(at_least), sum(one)


@lru_cache(maxsize=65536)
def _option(sizes: tuple, fixed: int, kept_one: bool, m: int, opposed: bool) -> tuple:
    """A prayer rerolling ``sizes`` with ``fixed`` successes kept, against
    ``m`` (unopposed 0): ``(win, tie without a Condition, tie with one,
    P(Condition), two)``."""
    none, one, at_least, p_one = _table(sizes)
    d, top = m - fixed, len(at_least) - 1
    win, two = at_least[min(max(d + 1, 0), top)], at_least[min(max(d + 2, 0), top)]
    t0 = t1 = 0.0
    if opposed and 0 <= d < len(none):
        t0, t1 = (0.0, none[d] + one[d]) if kept_one else (none[d], one[d])
    return win, t0, t1, 1.0 if kept_one else p_one, two


def _prayed(opt: tuple, w0: tuple, w1: tuple) -> tuple:
    """The value of a prayer's option when a tie after it is worth ``w0``
    (no Condition gained) or ``w1`` (gained)."""
    x, t0, t1, cond, two = opt
    return (x + t0 * w0[0] + t1 * w1[0], cond, two + t0 * w0[2] + t1 * w1[2], t0 * w0[3] + t1 * w1[3], 1.0)


@lru_cache(maxsize=1024)
def _base_reroll(base: tuple, chosen: tuple, bonus: int) -> tuple:
    """The sizes a prayer rolls for the chosen base dice (the bonus steps
    them; a lone one gains a d6), by the prayer's own plan in ``model``."""
    dice = [{"kind": k, "sides": s} for k, s in base]
    plan = M.prayer_plan(dice, list(chosen), bonus)
    return tuple(M.rerolled_sizes(dice, list(chosen), plan))


def _choices(dice: list, bonus: int) -> list:
    """Every prayer worth pricing, fewest dice first, then the lowest
    positions: ``(positions, successes kept, sorted sizes rerolled)``. Of
    gear dice of one size, those with the fewest successes are rerolled
    first (another of them would keep fewer successes for the same dice)."""
    nb = sum(1 for d in dice if d["kind"] != "gear")
    base = tuple((d["kind"], d["sides"]) for d in dice[:nb])
    free = [i for i in range(nb) if dice[i]["face"] != M.CONDITION_FACE]
    prefixes = _gear_prefixes(dice, nb)
    total = sum(d["successes"] for d in dice)
    out = []
    for r in range(len(free) + 1):
        for bsub in combinations(free, r):
            out += _with_gear(dice, bsub, _base_reroll(base, bsub, bonus), prefixes, total)
    out.sort(key=lambda c: (len(c[0]), c[0]))
    return out


def _with_gear(dice: list, bsub: tuple, bsizes: tuple, prefixes: list, total: int) -> list:
    """The prayers of base dice ``bsub`` (rolling ``bsizes``) with each
    choice of gear dice (one prefix per size), as ``_choices`` lists them."""
    out = []
    for combo in product(*prefixes):
        gear = [i for part in combo for i in part]
        chosen = tuple(sorted(bsub + tuple(gear)))
        if chosen:
            sizes = tuple(sorted(bsizes + tuple(dice[i]["sides"] for i in gear)))
            out.append((chosen, total - sum(dice[i]["successes"] for i in chosen), sizes))
    return out


def _gear_prefixes(dice: list, nb: int) -> list:
    """Per size of the gear dice (from ``nb`` on) that may be rerolled (not
    showing 1): the sets worth rerolling, the fewest successes first."""
    groups: dict = {}
    for i in range(nb, len(dice)):
        if dice[i]["face"] != M.CONDITION_FACE:
            groups.setdefault(dice[i]["sides"], []).append(i)
    prefixes = []
    for g in groups.values():
        g = sorted(g, key=lambda i: (dice[i]["successes"], i))
        prefixes.append([tuple(g[:k]) for k in range(len(g) + 1)])
    return prefixes


@lru_cache(maxsize=256)
def _succ(sizes: tuple) -> tuple:
    d = M.side_dist(list(sizes))
    return tuple(float(d.get(k, 0)) for k in range(max(d) + 1))


def _opp(spec: dict) -> list:
    """The opponent's successes, ``[(m, probability)]``; unopposed [(0, 1)]."""
    if spec["opponent"] is None:
        return [(0, 1.0)]
    return [(m, q) for m, q in enumerate(_succ(tuple(M.plan_sizes(M.side_plan(spec["opponent"]))))) if q]


def _fresh(spec: dict, side: dict) -> tuple:
    """A roll of ``side`` against the spec's opponent, no prayer: (win, two, tie)."""
    opposed = spec["opponent"] is not None
    win = two = tie = 0.0
    for n, p in enumerate(_succ(tuple(M.plan_sizes(M.side_plan(side))))):
        for m, q in _opp(spec):
            if n > m:
                win += p * q
                two += p * q if n - m >= 2 else 0.0
            elif n == m and opposed:
                tie += p * q
    return win, two, tie


def _tie_values(spec: dict, gained: bool) -> list:
    """``W[k]``: a tie after the prayer, the roll having had ``k`` rolls,
    played best (a tie-break while the rules allow one and it can win):
    the side rolls again with the Condition the prayer cost; Broken, the tie
    stands."""
    ctype = M.condition_type(spec["attribute_name"])
    tb = _tiebreak_chain(spec, gained)
    if gained and spec["conditions"][ctype] >= 3:
        return [TIE] * (M.MAX_TIEBREAKS + 2)
    cost = condition_cost(spec)
    return [v if _better(v, TIE, cost) else TIE for v in tb]


def _tiebreak_chain(spec: dict, gained: bool) -> list:
    """``[k]``: the tie-break after the prayer, rolled as the ``k + 1``-th
    roll, then ties broken while it is worth it; ``[MAX + 1]``: none."""
    side = M.tiebreak_side(spec, {"gained": M.condition_type(spec["attribute_name"]) if gained else None})
    win, two, tie = _fresh(spec, side)
    chain, best = [TIE] * (M.MAX_TIEBREAKS + 2), TIE
    cost = condition_cost(spec)
    for k in range(M.MAX_TIEBREAKS, 0, -1):
        chain[k] = (win + tie * best[0], 0.0, two + tie * best[2], tie * best[3], 0.0)
        best = chain[k] if _better(chain[k], TIE, cost) else TIE
    return chain


def _accepted(n: int, m: int, opposed: bool) -> tuple:
    if n > m:
        return WIN2 if n - m >= 2 else WIN
    return TIE if n == m and opposed else LOSS


def _state_pairs(dice: list, spec: dict) -> tuple:
    """One first roll against every opponent roll: its value when accepted
    (wins: a prayer only adds a risk) and, for the ties and losses a prayer
    might change, ``(q, tie, options)``: the prayers' options that can be
    best (one that cannot even tie, or cannot reach the best one's least
    worth, is left out)."""
    opposed = spec["opponent"] is not None
    n = sum(d["successes"] for d in dice)
    kept_one = any(d["face"] == M.CONDITION_FACE for d in dice)
    const, pairs = [0.0] * 5, []
    cands = None
    for m, q in _opp(spec):
        if n > m:
            const = [c + q * v for c, v in zip(const, _accepted(n, m, opposed))]
            continue
        if cands is None:
            cands = _choices(dice, spec["prayer_bonus"]) if not spec["passive"] else []
        opts = _worth_options(cands, kept_one, m, opposed, condition_cost(spec))
        tie = opposed and n == m
        if opts or tie:
            pairs.append((q, tie, opts))
    return const, pairs


def _worth_options(cands: list, kept_one: bool, m: int, opposed: bool, cost: float) -> list:
    """The options of the prayers ``cands`` against ``m`` that can be best:
    not those that cannot even tie, or whose worth with every tie after
    them won cannot reach the best one's with every tie lost (a tie after a
    prayer costs no further Condition), nor those dominated
    (``_undominated``)."""
    opts = [_option(sizes, fixed, kept_one, m, opposed) for _, fixed, sizes in cands]
    floor = max((o[0] - cost * o[3] for o in opts), default=0.0)
    return _undominated([o for o in opts
                         if o[0] + o[1] + o[2] > EPS and o[0] + o[1] + o[2] - cost * o[3] >= floor - EPS])


def _undominated(opts: list) -> list:
    """The options that can be best whatever a tie after the prayer is
    worth (each of its chances between 0 and 1): an option is left out when
    an earlier kept one wins at least as often at every extreme of those
    worths, risks no more, and reaches 2+ at least as often."""
    def ends(x, t0, t1):
        return (x, x + t0, x + t1, x + t0 + t1)

    kept: list = []
    for o in sorted(opts, key=lambda o: -(o[0] + o[1] + o[2])):
        entry = (o, ends(o[0], o[1], o[2]), ends(o[4], o[1], o[2]))
        if not any(_dominates(k, entry) for k in kept):
            kept.append(entry)
    return [k[0] for k in kept]


def _dominates(k: tuple, o: tuple) -> bool:
    """Does kept option ``k`` make ``o`` never the best: each is ``(option,
    win at each extreme, 2+ at each extreme)``, and ``k`` wins at least as
    often at every extreme, risks no more, and reaches 2+ at least as often."""
    (ko, kw, kt), (oo, w, t) = k, o
    return all(a >= b for a, b in zip(kw, w)) and ko[3] <= oo[3] and all(a >= b for a, b in zip(kt, t))


def _evaluate(states: list, w0: tuple, w1: tuple, t_dec, t_val, cost: float) -> tuple:
    """The turn's value over ``states`` (``(p, const, pairs)``), each tie
    or loss played best: accept, a tie-break (chosen by ``t_dec``, worth
    ``t_val``: a fresh roll's value), or the best prayer (a tie after it
    worth ``w0`` / ``w1``), a Condition costing ``cost``. Returns the total
    and each state's value (``_state_value``)."""
    total, each = [0.0] * 5, []
    for p, const, pairs in states:
        v = _state_value(const, pairs, w0, w1, t_dec, t_val, cost)
        each.append(v)
        for i in range(5):
            total[i] += p * v[i]
    return tuple(total), each


def _state_value(const: list, pairs: list, w0: tuple, w1: tuple, t_dec, t_val, cost: float) -> list:
    """One first roll's value (``_evaluate``'s terms): its wins accepted,
    and each opponent roll it ties or loses against played best. (The
    order of ``_better`` and the value of ``_prayed``, written out in
    ``_best_prayed``: this is the inner loop.)"""
    v = list(const)
    for q, tie, opts in pairs:
        best = val = TIE if tie else LOSS
        if tie and t_dec is not None and _better(t_dec, best, cost):
            best, val = t_dec, t_val
        val = _best_prayed(opts, best, w0, w1, cost) or val
        for i in range(5):
            v[i] += q * val[i]
    return v


def _best_prayed(opts: list, best: tuple, w0: tuple, w1: tuple, cost: float) -> tuple | None:
    """The value of the best of the prayers' ``opts`` when it beats
    ``best`` (else None), a tie after it worth ``w0`` / ``w1`` (no further
    Condition), a Condition costing ``cost``."""
    a0, a2, a3, b0, b2, b3 = w0[0], w0[2], w0[3], w1[0], w1[2], w1[3]
    bw, bc, bt, found = best[0], best[1], best[2], None
    bv = bw - cost * bc
    for x, t0, t1, c, tw in opts:
        w = x + t0 * a0 + t1 * b0
        v = w - cost * c
        if v < bv - EPS:
            continue
        t = tw + t0 * a2 + t1 * b2
        if v > bv + EPS or t > bt + EPS:
            bw, bc, bt, bv, found = w, c, t, v, (t0, t1)
    if found is None:
        return None
    return bw, bc, bt, found[0] * a3 + found[1] * b3, 1.0


class _Turn:
    """One spec's turn model: the first rolls (every one, or two seeded
    samples), the tie values after a prayer, the fresh roll's value at each
    roll number, kept per spec."""

    def __init__(self, spec: dict):
        self.spec = spec
        self.opposed = spec["opponent"] is not None
        self.work = _work(spec)
        self.cost = condition_cost(spec)
        self.exact = self.work <= WORK_LIMIT
        self.w = [_tie_values(spec, False), _tie_values(spec, True)] if self.opposed else [[TIE] * 22] * 2
        self.choose, self.price = _first_rolls(spec, self.exact)
        self._levels = None
        self._bounds = None

    def _figure(self, value: tuple, each: list, which: int) -> dict:
        """A value as a figure; sampled, with its sample size and 95 %
        margin, and never above the exact upper bound ``which``."""
        out = {"value": value, "exact": self.exact}
        if not self.exact:
            bound = self.bounds()[which]
            wins = [v[0] for v in each]
            mean = sum(wins) / len(wins)
            var = sum((x - mean) ** 2 for x in wins) / max(1, len(wins) - 1)
            out.update(sampled=len(wins), margin=1.96 * math.sqrt(var / len(wins)))
            if value[0] > bound:
                out["value"] = (bound, *value[1:])
        return out

    def no_tiebreak(self) -> dict:
        """The turn with a prayer on a failure (opposed: a loss or a tie),
        no tie-break (``turn_with_prayer``)."""
        t, _ = _evaluate(self.choose, TIE, TIE, None, None, self.cost)
        if self.exact:
            return {"value": t, "exact": True}
        # the same decisions, priced on the fresh first rolls
        val, each = _evaluate(self.price, TIE, TIE, None, None, self.cost)
        return self._figure(val, each, 1)

    def levels(self) -> list:
        """``[k]``: a fresh roll that will be the roll's ``k``-th, a prayer
        still to make, played best (ties broken while the rules allow);
        each with its figure (``value``, ``exact``, ``sampled``, ``margin``)."""
        if self._levels is None:
            top = M.MAX_TIEBREAKS + 1
            dec, val = [None] * (top + 2), [None] * (top + 2)
            figs = [None] * (top + 2)
            for k in range(top, 0, -1):
                nd, nv = (dec[k + 1], val[k + 1]) if k <= M.MAX_TIEBREAKS else (None, None)
                dec[k], each = _evaluate(self.choose, self.w[0][k], self.w[1][k], nd, nd, self.cost)
                if self.exact:
                    val[k] = dec[k]
                else:
                    val[k], each = _evaluate(self.price, self.w[0][k], self.w[1][k], nd, nv, self.cost)
                figs[k] = self._figure(val[k], each, 0)
            self._levels = figs
        return self._levels

    def bounds(self) -> tuple:
        if self._bounds is None:
            self._bounds = _oracle_bounds(self.spec)
        return self._bounds


def _first_rolls(spec: dict, exact: bool) -> tuple:
    """The first rolls the turn is valued over, ``(p, const, pairs)``
    each: every one with its chance (``exact``), or two sets of seeded
    samples, one to choose the play and one to price it (the same list
    twice when exact)."""
    if exact:
        every = [(float(p), *_state_pairs(d, spec)) for d, p in _states(spec)]
        return every, every
    rng = random.Random(spec_seed("mirage", spec, "best play"))
    choose = [(1 / SAMPLES, *_state_pairs(d, spec)) for d in _sampled(spec, rng, SAMPLES)]
    price = [(1 / SAMPLES, *_state_pairs(d, spec)) for d in _sampled(spec, rng, SAMPLES)]
    return choose, price


def _work(spec: dict) -> int:
    """The work of valuing every first roll, counted before doing it: the
    active side's first rolls (gear dice of one size as multisets) times
    the opponent's numbers of successes."""
    slots = _slots(spec)
    states = prod(len(_classes(s)) for k, s in slots if k != "gear")
    for g, n in _gear_counts(slots).items():
        states *= comb(len(_classes(g)) + n - 1, n)
    return states * len(_opp(spec))


def _sampled(spec: dict, rng, n: int) -> list:
    """``n`` first rolls of the active side, drawn from ``rng``."""
    slots = _slots(spec)
    return [[_rep(k, s, rng.randint(1, s)) for k, s in slots] for _ in range(n)]


def _oracle_bounds(spec: dict) -> tuple:
    """Cheap exact upper bounds on the chance to win, (with tie-breaks,
    without): as if each die not showing 1 could keep the better of its face
    and a reroll stepped by the whole bonus (a lone base die's added d6 too),
    so no play of the first roll ends with more; with tie-breaks the first
    roll must at least tie."""
    bonus = spec["prayer_bonus"] if not spec["passive"] else 0
    slots = _slots(spec)
    dist = _best_of_face_or_reroll(slots, bonus, spec["passive"])
    if bonus and sum(1 for k, _ in slots if k != "gear") == 1:
        dist = poly_mul(dist, list(_succ((step_up(M.BASE_SIZES[0], bonus - 1),))))
    return _reach_bounds(spec, dist)


def _best_of_face_or_reroll(slots: list, bonus: int, passive: bool) -> list:
    """P(j successes) of the dice in ``slots`` when each keeps the better
    of its face and a reroll, base dice stepped up by ``bonus`` (passive:
    no reroll)."""
    dist = [1.0]
    for kind, s in slots:
        up = step_up(s, bonus) if kind != "gear" else s
        fresh = _succ((up,)) if not passive else (1.0,)
        dist = poly_mul(dist, _face_or_reroll(s, fresh))
    return dist


def _reach_bounds(spec: dict, dist: list) -> tuple:
    """(P(at least tie), P(win)) of successes ``dist`` against the spec's
    opponent (unopposed: P(a success), twice)."""
    at_least = [sum(dist[j:]) for j in range(len(dist))] + [0.0]
    reach = lambda j: at_least[min(max(j, 0), len(dist))]  # noqa: E731
    if spec["opponent"] is None:
        return reach(1), reach(1)
    return (sum(q * reach(m) for m, q in _opp(spec)), sum(q * reach(m + 1) for m, q in _opp(spec)))


def _face_or_reroll(s: int, fresh: tuple) -> list:
    """P(0, 1, 2 successes) of a d``s`` that keeps the better of its face
    and a reroll with successes ``fresh`` (a 1 keeps nothing)."""
    y = [1 / s, 0.0, 0.0]
    for face, w in list(M.face_counts(s).items())[1:]:
        c = M.successes_on(face)
        for f, p in enumerate(fresh):
            y[max(c, f)] += w / s * p
    return y


_TURNS: dict = {}


def _turn(spec: dict) -> _Turn:
    """The spec's turn model, kept for the dice and steps it depends on (the
    page asks again after each roll and tap)."""
    key = json.dumps({k: v for k, v in spec.items() if k not in ("skill_name",)}, sort_keys=True)
    if key not in _TURNS:
        if len(_TURNS) >= 32:
            _TURNS.clear()
        _TURNS[key] = _Turn(spec)
    return _TURNS[key]


# --------------------------------------------------------------------------
# The advice at a result: every allowed action, played best afterwards.

def _choice_entry(action: dict, fig: dict, opposed: bool) -> dict:
    win, cond, two, tie = (min(1.0, max(0.0, x)) for x in fig["value"][:4])
    lose = max(0.0, 1.0 - win - tie)
    if opposed:
        out = {"action": action, "outcome": {"failure": lose, "tie": tie, "success": win - two,
                                             "success_with_bonus": two},
               "win": win, "tie": tie, "lose": lose}
    else:
        out = {"action": action, "outcome": {"failure": 1.0 - win, "success": win - two,
                                             "success_with_bonus": two},
               "success": win}
    out.update(bonus=two, condition=cond, exact=fig["exact"])
    if not fig["exact"]:
        out.update(sampled=fig["sampled"], margin=fig["margin"])
    return out


def _best_pray(spec: dict, dice: list, m: int, opposed: bool, w0: tuple, w1: tuple) -> tuple | None:
    """The prayer best play would make now, and its value (None: no die may
    be rerolled)."""
    kept_one = any(d["face"] == M.CONDITION_FACE for d in dice)
    best = None
    for chosen, fixed, sizes in _choices(dice, spec["prayer_bonus"]):
        v = _prayed(_option(sizes, fixed, kept_one, m, opposed), w0, w1)
        if best is None or _better(v, best[1], condition_cost(spec)):
            best = (chosen, v)
    return best


def _pray_entry(spec: dict, dice: list, m: int, opposed: bool, k: int) -> tuple:
    """(action, figure) of the best prayer after ``k`` rolls."""
    turn = _turn(spec)
    chosen, v = _best_pray(spec, dice, m, opposed, turn.w[0][k], turn.w[1][k])
    action = {"do": "pray", "dice": list(chosen), "bonus": spec["prayer_bonus"]}
    if opposed:
        action["side"] = "initiator"
    return action, {"exact": True, "value": v}


def _best_entry(entries: list, cost: float) -> tuple:
    """The (action, figure) best play takes: the first of the best values."""
    best = entries[0]
    for e in entries[1:]:
        if _better(e[1]["value"], best[1]["value"], cost):
            best = e
    return best


def _tiebreak_figure(spec: dict, state: dict, k: int) -> dict:
    """A tie-break now, after ``k`` rolls, played best afterwards: after a
    prayer exactly (the Condition it cost is known), else from the turn
    model."""
    if state["prayed"]:
        return {"exact": True, "value": _tiebreak_chain(spec, bool(state["gained"]))[k]}
    return _turn(spec).levels()[k + 1]


def advise(spec: dict, result: dict) -> dict:
    """Best play's advice for ``result`` (rebuilt from its stages): every
    action the rules allow now (accept the dice, tie-break, the best
    prayer), each with its odds when played best afterwards; ``advice``
    the best of them (docs/RULES-DECISIONS.md, Mirage), each choice's ``label`` and
    ``marks``, and ``why``; ``best_prayer`` as before (the dice of the best
    prayer by the prayer's own order)."""
    state = M.state_of(spec, result)
    dice, opposed, n, m = _last_round(state)
    may_pray = not spec["passive"] and not state["prayed"] and not state.get("accepted")
    out: dict = {}
    if may_pray:
        out["best_prayer"] = best_prayer(spec, dice, m if opposed else None)
    may_pray = may_pray and any(d["face"] != M.CONDITION_FACE for d in dice)
    may_tb = M.can_tiebreak(state)
    if not (may_pray or may_tb):
        return {**out, "advice": None, "choices": []}
    entries = _allowed(spec, state, may_pray, may_tb)
    return {**out, **_decided(spec, entries, bool(state["gained"]), n, m, opposed)}


def _last_round(state: dict) -> tuple:
    """The roll as it lies: (the roller's dice, opposed, their successes,
    the opponent's (0 unopposed))."""
    rnd = state["rounds"][-1]
    opposed = rnd["opp"] is not None
    return rnd["own"]["dice"], opposed, rnd["own"]["successes"], rnd["opp"]["successes"] if opposed else 0


def _allowed(spec: dict, state: dict, may_pray: bool, may_tb: bool) -> list:
    """(action, figure) of each action allowed now, played best afterwards:
    accepting the dice, a tie-break (``may_tb``), the best prayer
    (``may_pray``)."""
    dice, opposed, n, m = _last_round(state)
    k = len(state["rounds"])
    side = {"side": "initiator"} if opposed else {}
    entries = [({"do": "accept", **side}, {"exact": True, "value": _accepted(n, m, opposed)})]
    if may_tb:
        entries.append(({"do": "tiebreak", **side}, _tiebreak_figure(spec, state, k)))
    if may_pray:
        entries.append(_pray_entry(spec, dice, m, opposed, k))
    return entries


def _decided(spec: dict, entries: list, paid: bool, n: int, m: int, opposed: bool) -> dict:
    """``advice``, ``choices`` (each with ``condition_paid``: this roll's
    prayer already cost a Condition, so ``condition`` counts further ones)
    and ``why`` of the priced ``entries``."""
    cost = condition_cost(spec)
    best = _best_entry(entries, cost)
    choices = [{**_choice_entry(a, fig, opposed), "condition_paid": paid} for a, fig in entries]
    outcome = "tie" if opposed and n == m else "failure" if n <= m else "success"
    return {"advice": dict(best[0]), **W.worded(choices, best[0], outcome, cost, opposed, CLOSE_CALL)}


def turn_with_prayer(spec: dict) -> dict:
    """The odds of the turn played best with a prayer: roll; on a failure
    (opposed: a loss or a tie, which fails the active side), pray with the
    best dice (``best_prayer``) where a prayer is worth its risk, at the
    spec's ``prayer_bonus``; no tie-break. Exact: every first roll is
    enumerated.

    Two d6: on a failure both dice are blank (pray both), or one is blank
    and one shows 1 (pray the blank; the 1 held costs the Condition), or
    both show 1 (no prayer):

    >>> from rules import normalize
    >>> o = turn_with_prayer(normalize("mirage", {"attribute": 6, "skill": 6}))
    >>> hit, blank, one = Fraction(7 - M.SUCCESS_ON, 6), Fraction(M.SUCCESS_ON - 2, 6), Fraction(1, 6)
    >>> either = 1 - (1 - hit) ** 2
    >>> abs(o["success_with_prayer"] - float(either + blank ** 2 * either + 2 * blank * one * hit)) < 1e-12
    True
    >>> abs(o["condition_with_prayer"] - float(blank ** 2 * (1 - (1 - one) ** 2) + 2 * blank * one)) < 1e-12
    True
    """
    allowed = not spec["passive"]
    fig = _turn(spec).no_tiebreak() if allowed else {"value": LOSS, "exact": True}
    success, cond, two, _, prays = fig["value"]
    out = {"success_with_prayer": success, "bonus_with_prayer": two,
           "condition_with_prayer": cond, "prays": prays,
           "prayer_bonus": spec["prayer_bonus"], "prayer_allowed": allowed, "prayer_exact": fig["exact"]}
    if not fig["exact"]:
        out.update(prayer_sampled=fig["sampled"], prayer_margin=fig["margin"])
    return out


def odds(spec: dict, result: dict | None = None, action: dict | None = None) -> dict:
    """The odds ``model.odds`` gives; before the roll (no action), plus the
    turn played best with a prayer on a failure (``turn_with_prayer``); a
    passive roll may not pray, so its figures are the roll's.

    >>> from rules import normalize
    >>> spec = normalize("mirage", {"attribute": 6, "skill": 6})
    >>> o = odds(spec)
    >>> o["success_with_prayer"] == turn_with_prayer(spec)["success_with_prayer"] > o["p_success"]
    True
    """
    out = M.odds(spec, result, action)
    if action is not None:
        return out
    turn = turn_with_prayer(spec)
    if not turn["prayer_allowed"]:
        turn.update(success_with_prayer=out["p_success"], bonus_with_prayer=out["p_bonus"])
    return {**out, **turn}
