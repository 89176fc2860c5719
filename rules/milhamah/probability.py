"""Milhamah's odds and advice: the turn as the best player plays it
(RULES-NOTES Milhamah 6 and 7; ``rules.milhamah.odds`` delegates here).

**Best play.** Each reroll round the player picks the set of at most X dice
(any dice: successes, wilds, duplicates, or none = stop) that gives, in this
order, the highest probability that the final outcome meets the difficulty
(``success_at_cost`` or better), then of ``success`` or better, then of a
natural shoresh, then of no botch, then the fewest dice, then more of the
better outcomes (critical, then natural success), then the better whole
distribution (never the dice's order, so mirror-image rolls play alike);
later rounds are played the same way (a finite-horizon dynamic programme,
not a greedy rule). Stopping keeps
a first-roll natural's bonus, so it is one of the choices. The natural's
reward is taken as the successes (unopposed; the Merit Point gives the same
outcome or a worse one) or, opposed, the better for the initiator of +1 and
uncounterable and "let them react" (the latter where it is as sure to
succeed and may be critical), unless the result already names one. Cipher
flips are not part of the play.

**Opposed** (docs/RULES-DECISIONS.md, Milhamah): the initiator plays first and sees
the opponent's first roll (both are drawn at the roll); then the opponent
reacts, seeing the initiator's final dice, and plays to stop the initiator
(the lowest chance that the initiator meets, then that it succeeds, then
that it is critical, then the fewest dice). Wilds never count for the reactor, and "+1 and
uncounterable" voids the reaction.

**How.** Dice of one design (one face-category count vector) are
interchangeable, and a face matters only as which shoresh letter it shows,
wild, or neither; a state is the count of dice per (type, category), coded
as one integer. Probabilities are integer weights over a power of 12, so
every comparison is exact, and the criteria are packed into one integer
(``score``) whose order is the lexicographic order. Pruning only drops
choices that another choice weakly beats by a coupling argument (see
``_Engine``), and a roll whose outcome is already the best there is is
kept unsearched. A state and its mirror image (letters of equal need
swapped where the dice allow) have the same odds: one is valued for both.
A last-round reroll is valued once per what the outcome reads of the
dice kept (``_Ctx.feature``). Values are found first; the distribution
that breaks exact ties is only computed for the tied choices (packed
narrow), and the whole turn's distribution is carried forward once, round
by round, along the chosen play.

**Bounded.** The first roll's figures are always exact (its letter counts,
a convolution of the designs' faces). The rest is exact while the states
the programme may value (``_Model.states``, counted from the spec) are
within ``STATE_LIMIT``; past it the advice looks fewer rounds ahead (the
blank dice when not one round fits) and the whole turn's odds are that
advice's turns played out on a seeded stream of their own, each chance
held at or under an exact upper bound (``_upper``, a relaxed game). Sample
size and 95 % margin are stated; the work is counted, never timed, so the
same question always gets the same answer on every device.

API
- ``odds(spec, result=None, action=None) -> dict``. Before a roll:
  ``value`` (successes on the final dice), ``outcome``, ``exact``,
  ``meets_first`` (stop after the first roll), ``meets_final``,
  ``success`` (P(success or better)), ``natural_first``, ``natural``,
  ``botch_first``, ``botch``, ``rounds``,
  ``colours`` (the colour pairs ranked, each ``pair``, ``meets``,
  ``natural``, ``botch``, played best over ``colours_rounds`` rounds),
  ``colours_rounds``, ``policy``; when sampled also ``sampled`` (how many
  turns), ``margin``, ``upper`` ({``meets``, ``success``, ``natural``: {``p``,
  ``clamped``}}: the exact bounds and whether the sample was held to one)
  and ``note``. After a roll, ``action`` None (the
  side about to act plays best: the initiator while it may reroll, else
  the opponent), ``{"do": "best", "side": s}``, or
  ``{"do": "reroll", "side": s, "dice": [i...]}`` (that reroll, then best
  play): ``value``, ``outcome``, ``natural``, ``meets``, ``success``
  (P(success or better)), ``now`` (the outcome as the dice lie), ``side``,
  ``dice`` (the reroll priced: the advice, or the dice named), ``why``,
  ``policy``, ``exact`` and, for a named reroll, ``best`` ({``dice``,
  ``meets``, ``success``, ``natural``, ``why``}). For the opponent's side
  ``value`` is the opponent's successes and the rest is the initiator's.
- ``best_reroll(spec, result, side="initiator") -> list``: the advised die
  indices ([] = keep the roll).
- ``advise(spec, result) -> dict``: what ``rules.advise`` attaches:
  ``best_reroll`` and, opposed, the opponent's dict with its
  ``best_reroll`` (the reaction's advice, [] until the initiator's turn is
  over); ``advice`` and ``choices`` (the contract's: every action the
  rules allow the side about to act, priced).

>>> from rules.milhamah import normalize
>>> o = odds(normalize({"shoresh": "טכ", "pool": {"red": 2}, "rerolls": 1, "difficulty": 1}))
>>> round(o["meets_final"], 4), o["exact"]
(0.3056, True)
"""

from __future__ import annotations

import json
import random
import heapq
from bisect import bisect_right
from itertools import combinations, permutations
from math import comb, factorial

from ..dice import SpecError, dist_to_json, poly_mul, spec_seed
from . import choices as W
from . import model as M

__all__ = ["odds", "best_reroll", "advise", "MEETS", "SAMPLES"]

SIDES = M.SIDES
OUTCOMES = M.OUTCOMES
#: Outcomes that meet the difficulty, and those that succeed outright.
MEETS = ("success_at_cost", "success", "natural_success", "critical_success")
_SUCCEEDS = ("success", "natural_success", "critical_success")
_MEET_IDX = frozenset(OUTCOMES.index(o) for o in MEETS)
_SUCC_IDX = frozenset(OUTCOMES.index(o) for o in _SUCCEEDS)
_BOTCH = OUTCOMES.index("botch")
_CRIT = OUTCOMES.index("critical_success")
_NATS = OUTCOMES.index("natural_success")
_PLAIN = OUTCOMES.index("success")

#: States an exact answer may value (``_Model.states``: every dice state
#: per round, the rerolls it weighs, and the distinct rerolls valued by
#: their draws and the states those lead to). Up to it every figure is
#: exact and the advice looks every round ahead; past it the advice looks
#: fewer rounds ahead (the blank dice when not even one round fits) and the
#: whole turn's odds are the advice's turns played out. Counted from the
#: spec, never timed: the same on every device. 260 000 keeps every 3-4
#: dice spec of 2-4 rounds exact (the largest about 29 000), every 8-dice
#: one-round spec (X 1-5, at most 256 320) and 12 dice X 3 one round
#: (179 906); of 336 random 5-12 dice specs the slowest exact one took
#: 0.17 s of CPU (docs/SPEED.md, Milhamah's bounded odds).
STATE_LIMIT = 260_000
#: A dice state's own valuation before the last round (its mirror images,
#: its choice list, its memo entries) counted as this many states: over
#: 300 random specs it costs about as much as weighing that many rerolls.
DEC_STATES = 32
#: Turns played out for a whole-turn answer past the limit: at least
#: ``MIN_PLAYS``, then more while the engines have valued, and the turns
#: have drawn dice into, fewer than ``PLAY_STATES`` states (12 dice, X 3,
#: 2 rounds: 2000 turns; 12 against 12 dice, or X 12 and 4 rounds: 500 to
#: 700); and after a roll when the advice cannot be priced exactly,
#: ``SAMPLES`` turns.
MIN_PLAYS = 500
MAX_PLAYS = 2000
PLAY_STATES = 16_000
SAMPLES = 2000
#: Memo entries an engine keeps before it starts afresh (bounded memory).
MEMO_LIMIT = 200_000


class _TooBig(Exception):
    """The exact enumeration went past its work limit: sample instead."""


# --------------------------------------------------------------------------
# Reading a result: the one place that knows how a result holds its state.

def _state(spec: dict, result=None, track=None) -> dict:
    """Each side's dice and what it may still do: from the result (its
    stages replayed by ``model.load_track``; a hand-made or stale result
    is a SpecError) or from ``track``, a state as ``model.load_track`` gives it.

    Per side: ``faces``, ``left`` (reroll rounds its turn may still take:
    the spec's rounds less those used, none once the side stood or chose
    the natural's reward, nor for a voided reaction), ``first`` (the
    first-roll bonus is still in play: a first-roll natural not rerolled),
    ``reward``, ``now`` (it may reroll now: opposed, the opponent only
    once the initiator's turn is over); and ``outcome`` as the dice lie."""
    if track is None:
        track = M.load_track(spec, result)
    ev = M.evaluate(spec, track)
    allowed = M.allowed_verbs(spec, track, ev)
    sides = {}
    for side, s in track["sides"].items():
        sides[side] = {"faces": list(ev[side]["faces"]),
                       "left": _rounds_left(spec, track, ev, side),
                       "first": bool(s["first_natural"] and not s["rerolled"]),
                       "reward": s["reward"], "now": "reroll" in allowed[side]}
    return {"sides": sides, "outcome": ev["outcome"]}


def _rounds_left(spec: dict, track: dict, ev: dict, side: str) -> int:
    """The reroll rounds a side's turn may still take: none once it stood
    or chose the natural's reward, after a hit, without X, or for a
    voided reaction."""
    s = track["sides"][side]
    open_ = (not s["closed"] and track["hit"] is None and M.x_per_side(spec)[side] > 0
             and not (side == "opponent" and ev["voided"]))
    return max(0, M.side_spec(spec, side)["rounds"] - s["rounds"]) if open_ else 0


# --------------------------------------------------------------------------
# The outcome rule (the same reading as ``model.evaluate``; a test checks
# that the two agree on random tracks).

def _bonus(spec: dict, reward: str, natural: bool, first: bool) -> int:
    """Successes the rules add on top of the dice: pocketed ones, the
    first-roll bonus, the natural's reward."""
    bonus = spec["pocketed"]
    if not natural:
        return bonus
    if first:
        bonus += spec["first_bonus"]
    if spec["opponent"] and reward == "uncounterable":
        bonus += M.UNCOUNTERABLE_BONUS
    elif not spec["opponent"] and reward == "successes":
        bonus += len(spec["shoresh"])
    return bonus


def _outcome(spec: dict, reward, matches: int, successes: int, natural: bool, first: bool,
             opp_matches=None) -> int:
    """Index into OUTCOMES of the initiator's final dice. ``first``: the
    first-roll bonus is kept (a first-roll natural, never rerolled)."""
    opp = spec["opponent"]
    reward = reward or M.rewards(spec)[0]
    if matches == 0:
        return _BOTCH
    settled = _opposed_natural(reward, opp_matches) if opp and natural else None
    if settled is not None:
        return settled
    total = successes + _bonus(spec, reward, natural, first)
    needed = M.needed_successes(spec, opp_matches if opp else spec["difficulty"])[0]
    return _graded(total, needed, natural)


def _opposed_natural(reward: str, opp_matches) -> int | None:
    """The outcome an opposed natural's reward settles without counting:
    "+1 and uncounterable" a natural success, "let them react" a critical
    when the opponent shows no letter (None: the successes decide)."""
    if reward == "uncounterable":
        return _NATS
    if reward == "critical" and opp_matches == 0:
        return _CRIT
    return None


def _graded(total: int, needed: int, natural: bool) -> int:
    """The outcome of ``total`` successes against the ``needed``: over it a
    success (natural when the shoresh is complete), level with it success
    at a cost, under it failure."""
    if total > needed:
        return _NATS if natural else _PLAIN
    return OUTCOMES.index("success_at_cost" if total == needed else "failure")


# --------------------------------------------------------------------------
# One side's dice, reduced by symmetry.

def _multinomials(count: int, weights: list) -> list:
    """(per-category counts, integer weight) of ``count`` dice with these
    face weights (out of 12 each): every composition, weight = multinomial
    coefficient times the product of the face counts."""
    out = []
    m = len(weights)

    def rec(i: int, left: int, comp: list, coef: int):
        if i == m - 1:
            comp.append(left)
            out.append((tuple(comp), coef // factorial(left) * weights[i] ** left))
            comp.pop()
            return
        for e in range(left, -1, -1):
            comp.append(e)
            rec(i + 1, left - e, comp, coef // factorial(e) * weights[i] ** e)
            comp.pop()

    rec(0, count, [], factorial(count))
    return out


def _categories(letters: list, wild: bool) -> dict:
    """{face: category}: j for a face of the j-th letter group, k = the
    number of groups for the wild (when wilds count)."""
    cat_of = {ch: j for j, group in enumerate(letters) for ch in group}
    if wild:
        cat_of[M.WILD] = len(letters)
    return cat_of


def _dominates(u: tuple, w: tuple, k: int) -> bool:
    """Type u shows each counting category (the first k + 1) at least as
    often as type w."""
    return all(u[c] >= w[c] for c in range(k + 1))


def _dominators_first(types: dict, k: int) -> list:
    """The types (face counts per category), dominators first (a
    dominator has strictly fewer dominators), then in order of first
    appearance."""
    dom_n = {w: sum(1 for u in types if u != w and _dominates(u, w, k)) for w in types}
    return sorted(types, key=lambda w: (dom_n[w], types[w]))


class _Model:
    """A side's dice as types and categories. Category j < k is a letter
    of the shoresh (for the reactor, k = 1: any letter of its shoresh, since
    only the count matters), k the wild (when wilds count), k + 1 neither.
    Dice whose faces are all "neither" are dead and left out: no reroll can
    change them. A state counts the live dice per slot (type, category) in
    base ``B``; ``agg`` counts letters and wilds in base ``B`` (additive)."""

    def __init__(self, designs: list, letters: list, wild: bool, x: int):
        self.k = k = len(letters)
        self.other = k + 1
        self.cat_of = _categories(letters, wild)
        types = self._type_dice(designs)
        ranked = _dominators_first(types, k)
        renum = {types[w]: i for i, w in enumerate(ranked)}
        self.die_type = [None if t is None else renum[t] for t in self.die_type]
        self.weights = ranked
        self.type_cats = self._type_cats()
        self.designs = list(designs)
        self.ntypes = len(types)
        self.count = [self.die_type.count(t) for t in range(self.ntypes)]
        self.live = sum(self.count)
        self.xe = min(x, self.live)
        #: the base of a state: a power of two above the live dice
        self.B = 1 << self.live.bit_length()
        self._slots()
        self._units()
        self._dominance()
        self._draws: dict = {}
        #: the letters' needs (``_model``; None for the reactor, which
        #: counts any letter of its shoresh)
        self.need = None
        #: slot permutations that mirror the dice (``set_mirrors``, by the
        #: context, which knows the letters' needs)
        self.set_mirrors([])

    def _type_dice(self, designs: list) -> dict:
        """Each die's category per face (``face_cat``) and type (``die_type``:
        its face counts per category; None when dead); returns the types
        numbered by first appearance."""
        k = self.k
        types: dict = {}
        self.face_cat = []
        self.die_type = []
        for colour, design in designs:
            cats = [self.cat_of.get(f, k + 1) for f in M.die_faces(colour, design)]
            self.face_cat.append(cats)
            w = tuple(cats.count(c) for c in range(k + 2))
            # a die whose every face is "neither" is dead: no type
            self.die_type.append(None if w[k + 1] == SIDES else types.setdefault(w, len(types)))
        return types

    def _type_cats(self) -> dict:
        """Each live type's category per face, read off its first die:
        what a fresh die of that type shows."""
        out: dict = {}
        for die, t in enumerate(self.die_type):
            if t is not None:
                out.setdefault(t, self.face_cat[die])
        return out

    def _slots(self):
        """Each type's slots (type, category) where its faces show, the
        slot of its blanks and its rerollable success slots."""
        k = self.k
        self.slots = []
        self.tslots = []
        self.oslot = []
        self.succ = []
        for t, w in enumerate(self.weights):
            ids = self._add_slots(t, w)
            self.tslots.append(ids)
            self.oslot.append(ids[-1] if w[k + 1] else None)
            self.succ.append(self._rerollable(ids))
        #: each type's slots are consecutive: [a, b)
        self.tspan = [(ids[0], ids[-1] + 1) if ids else (0, 0) for ids in self.tslots]

    def _add_slots(self, t: int, w: tuple) -> list:
        """Type t's slots (face counts ``w``), one per category its faces
        show, appended to ``slots``; returns their numbers."""
        ids = []
        for c in range(self.k + 2):
            if w[c]:
                ids.append(len(self.slots))
                self.slots.append((t, c))
        return ids

    def _rerollable(self, ids: list) -> list:
        """A type's success slots (among its slots ``ids``) worth rerolling:
        only if its type can show something else that counts (else keeping
        the success is never worse)."""
        live = [i for i in ids if self.slots[i][1] <= self.k]
        return live if len(live) > 1 else []

    def _units(self):
        """The place values that pack states, aggs and choices into
        integers (digits in base B), and the empty memos."""
        k, B = self.k, self.B
        self.sunit = [B ** i for i in range(len(self.slots))]
        self._choice_units()
        #: bits of a state or an agg (the memo of a reroll keys the dice
        #: kept and the dice rerolled as one integer)
        self.kw = (B.bit_length() - 1) * max(len(self.slots), k + 1)
        self.shifts = [u.bit_length() - 1 for u in self.sunit]
        self.aunit = [B ** c if c <= k else 0 for _t, c in self.slots]
        self.slot_of = {ts: i for i, ts in enumerate(self.slots)}
        self.prof_types = list(zip(self.oslot, self.succ))
        self._choice_memo: dict = {}
        self._opt_memo: dict = {}
        self._prefix_memo: dict = {}
        #: no type has more dice than X: no count needs capping in a key
        self.capless = max(self.count, default=0) <= self.xe
        self.cat_unit = [B ** c for c in range(k + 1)]

    def _choice_units(self):
        """A choice counts its dice (and blanks) per type as one integer, a
        digit in base B per type: the place values, their shifts, and the
        choice of every live die (the first roll)."""
        self.tunit = [self.B ** t for t in range(self.ntypes)]
        self.tshifts = [u.bit_length() - 1 for u in self.tunit]
        self.every = sum(n * u for n, u in zip(self.count, self.tunit))

    def _dominance(self):
        """``dom[t]``: the types whose every counting face count is at least
        t's (in the last round a reroll of one of them is at least as good
        as one of t); types are numbered so that dominators come first."""
        self.dom = [self._dominators(t) for t in range(self.ntypes)]
        self.dommask = [sum(1 << u for u in d) for d in self.dom]

    def _dominators(self, t: int) -> list:
        """The other types whose every counting face count is at least t's."""
        w = self.weights
        return [u for u in range(self.ntypes) if u != t and _dominates(w[u], w[t], self.k)]

    def type_draws(self, t: int, n: int) -> list:
        """(state add, agg add, weight) for ``n`` fresh dice of type t."""
        key = ("type", t, n)
        if key not in self._draws:
            ids = self.tslots[t]
            w = [self.weights[t][self.slots[i][1]] for i in ids]
            self._draws[key] = [self._packed(comp, ids) + (p,) for comp, p in _multinomials(n, w)]
        return self._draws[key]

    def _packed(self, comp: tuple, ids: list) -> tuple:
        """(state add, agg add) of dice counted per slot (``comp`` over the
        slots ``ids``)."""
        return (sum(e * self.sunit[i] for e, i in zip(comp, ids)),
                sum(e * self.aunit[i] for e, i in zip(comp, ids)))

    def draws(self, m: int, full: bool) -> list:
        """The merged outcomes of rerolling the dice m counts per type (one
        digit in base ``B`` per type, ``per_type``), as (state add, agg add,
        weight): by (state, agg) (rounds still to come) or by agg alone
        (the last round: the agg stands for the state)."""
        key = (m, full)
        if key not in self._draws:
            acc = {(0, 0): 1}
            for t, n in enumerate(self.per_type(m)):
                if n:
                    acc = self._with_draws(acc, t, n, full)
            self._draws[key] = [(s if full else a, a, p) for (s, a), p in acc.items()]
        return self._draws[key]

    def _with_draws(self, acc: dict, t: int, n: int, full: bool) -> dict:
        """{(state, agg): weight} of ``acc`` with ``n`` fresh dice of type t
        added (by agg alone, the state left 0, unless ``full``)."""
        new: dict = {}
        for sa, aa, p in self.type_draws(t, n):
            for (s0, a0), p0 in acc.items():
                kk = (s0 + sa, a0 + aa) if full else (0, a0 + aa)
                new[kk] = new.get(kk, 0) + p0 * p
        return new

    def first_roll(self) -> dict:
        """{(state, agg): weight} of the first roll; weights sum to 12^live."""
        return {(s, a): p for s, a, p in self.draws(self.every, True)}

    def per_type(self, m: int) -> list:
        """The dice per type of a choice's ``m`` (or blanks per type)."""
        mask = self.B - 1
        return [m >> sh & mask for sh in self.tshifts]

    def decode(self, state: int) -> list:
        mask = self.B - 1
        return [state >> sh & mask for sh in self.shifts]

    def set_mirrors(self, perms: list):
        """The slot permutations that mirror these dice (``_mirrors``), and
        each as the moves it makes: (unit of a slot, unit of its image
        less it)."""
        self.mirrors = perms
        #: the first rolls, mirror images merged (``_canonical_first_rolls``)
        self.first_canon = None
        self._moves = [[(sh, self.sunit[j] - u) for sh, u, j in zip(self.shifts, self.sunit, q)
                        if self.sunit[j] != u] for q in perms]

    def image(self, state: int, i: int) -> int:
        """The state under mirror i."""
        mask = self.B - 1
        t = state
        for sh, d in self._moves[i]:
            t += (state >> sh & mask) * d
        return t

    def canon(self, state: int) -> int:
        """The smallest of the state and its mirror images (one stands for
        all: they have the same odds)."""
        mask = self.B - 1
        best = state
        for moves in self._moves:
            t = state
            for sh, d in moves:
                t += (state >> sh & mask) * d
            if t < best:
                best = t
        return best

    def agg_of(self, state: int) -> int:
        return sum(n * u for n, u in zip(self.decode(state), self.aunit))

    def unmirrored(self, state: int, cands: list) -> list:
        """``cands`` less those that a mirror image of these dice (one that
        maps them onto themselves) makes of an earlier one; a choice is
        known by the state it removes."""
        fix = self._fixing(state)
        if not fix:
            return cands
        seen: set = set()
        out = []
        for c in cands:
            if c[1] not in seen:
                out.append(c)
                seen.update(self.image(c[1], i) for i in fix)
        return out

    def _fixing(self, state: int) -> list:
        """The mirrors that map these dice onto themselves."""
        return [i for i in range(len(self.mirrors)) if self.image(state, i) == state]

    def split(self, agg: int) -> tuple:
        """(letter counts, wilds) of an agg."""
        cnt = []
        for _ in range(self.k):
            agg, r = divmod(agg, self.B)
            cnt.append(r)
        return cnt, agg

    def of_faces(self, faces: list) -> tuple:
        """(state, agg, slot of each die or None) of the dice as they lie."""
        state = agg = 0
        where = []
        for die, face in enumerate(faces):
            t = self.die_type[die]
            if t is None:
                where.append(None)
                continue
            slot = self.slot_of[(t, self.cat_of.get(face, self.other))]
            where.append(slot)
            state += self.sunit[slot]
            agg += self.aunit[slot]
        return state, agg, where

    def _type_opts(self, t: int, sub: tuple) -> list:
        """(dice, state removed, agg removed, blanks, all blanks?, dice and
        blanks as type digits) for each way to reroll dice of type t (its
        slot counts ``sub``) within X: some of its blank dice, or all of
        them and some of its rerollable successes; fewest dice first."""
        key = (t, sub)
        hit = self._opt_memo.get(key)
        if hit is None:
            hit = self._opt_memo[key] = self._options(t, sub)
        return hit

    def _options(self, t: int, sub: tuple) -> list:
        """The options ``_type_opts`` keeps, worked out."""
        xe = self.xe
        ids = self.tslots[t]
        cnt = dict(zip(ids, sub))
        o_slot = self.oslot[t]
        o = cnt[o_slot] if o_slot is not None else 0
        u = self.tunit[t]
        out = []
        for nb in range(min(o, xe) + 1):
            s0 = nb * self.sunit[o_slot] if nb else 0
            if nb < o:
                out.append((nb, s0, 0, nb, False, nb * u, nb * u))
                continue
            subsets = self._success_subsets(t, cnt, xe - nb)
            out += [(nb + n, s0 + s, a, nb, True, (nb + n) * u, nb * u) for n, s, a in subsets]
        out.sort(key=lambda x: x[0])
        return out

    def _success_subsets(self, t: int, cnt: dict, room: int) -> list:
        """(dice, state removed, agg removed) of each way to reroll at most
        ``room`` of type t's rerollable successes (``cnt``: dice per slot)."""
        subsets = [(0, 0, 0)]
        for i in self.succ[t]:
            subsets = [(n + e, s + e * self.sunit[i], a + e * self.aunit[i])
                       for n, s, a in subsets for e in range(min(cnt[i], room - n) + 1)]
        return subsets

    def choices(self, counts: list, last: bool) -> list:
        """The non-empty choices that cannot take one more blank die
        (``_Engine`` says why the others need not be looked at), as
        (size, state removed, agg removed, dice and blanks per type as
        type digits); kept per profile (the counts that matter, capped at X)."""
        key = self.profile(counts, last)
        hit = self._choice_memo.get(key)
        if hit is None:
            if len(self._choice_memo) > MEMO_LIMIT:
                self._choice_memo.clear()
                self._opt_memo.clear()
                self._prefix_memo.clear()
            hit = self._choice_memo[key] = self._maximal(counts, last)
        return hit

    def profile(self, counts: list, head, cap: bool = True) -> tuple:
        """``head`` and what of the counts the choices depend on: per type
        its blank dice up to X and, only when fewer than X, its rerollable
        successes (``cap``: up to the room the blanks leave; a success is
        rerolled only after every blank of its type)."""
        xe = self.xe
        key = [head]
        for o_slot, succ in self.prof_types:
            o = counts[o_slot] if o_slot is not None else 0
            if o >= xe:
                key.append(-1)
                continue
            key.append(o)
            room = xe - o if cap else xe + self.live
            key += [c if c < room else room for c in map(counts.__getitem__, succ)]
        return tuple(key)

    def _maximal(self, counts: list, last: bool) -> list:
        """The choices (``choices``) of these counts: the partial choices
        over all types but the last (``_prefix``), each filled with the last
        type's options, or standing alone where pruning 3 skips that type."""
        xe = self.xe
        subs = tuple(tuple(counts[a:b]) for a, b in self.tspan)
        t = len(subs) - 1
        exact, upto, none_left = self._by_room(t, subs[t])
        dm = self.dommask[t] if last else 0
        out = []
        for size, rs, ra, m, oth, left, fm in self._prefix(t, subs, last):
            if dm & ~fm:
                if size and (size == xe or not (left or not none_left)):
                    out.append((size, rs, ra, m, oth))
                continue
            room = xe - size
            for k, s, a, _nb, _f, km, om in exact[room] if left else upto[room]:
                if size + k:
                    out.append((size + k, rs + s, ra + a, m + km, oth + om))
        return out

    def _by_room(self, t: int, sub: tuple) -> tuple:
        """Type t's options (``_type_opts``) by the room they fill: those of
        exactly that many dice, those of at most that many that keep no
        blank, and whether keeping none leaves no blank."""
        key = ("split", t, sub)
        split = self._opt_memo.get(key)
        if split is None:
            topts = self._type_opts(t, sub)
            split = self._opt_memo[key] = self._rooms(topts) + (topts[0][4],)
        return split

    def _rooms(self, topts: list) -> tuple:
        """(exact, upto): per room 0 to X, the options (``topts``) of exactly
        that many dice, and those plus the ones of fewer that keep no blank."""
        xe = self.xe
        exact = [[] for _ in range(xe + 1)]
        upto = [[] for _ in range(xe + 1)]
        for opt in topts:
            exact[opt[0]].append(opt)
            if opt[4]:
                for room in range(opt[0] + 1, xe + 1):
                    upto[room].append(opt)
        return exact, [e + f for e, f in zip(exact, upto)]

    def _prefix(self, n: int, subs: tuple, last: bool) -> list:
        """The partial choices over the first n types (shared by every state
        that agrees on them): (size, state removed, agg removed, dice per
        type, blanks per type, a blank kept?, types with every blank in)."""
        if n == 0:
            return [(0, 0, 0, 0, 0, False, 0)]
        key = (last, subs[:n])
        hit = self._prefix_memo.get(key)
        if hit is not None:
            return hit
        t = n - 1
        new = self._extend(self._prefix(t, subs, last), t, self._type_opts(t, subs[t]), last)
        self._prefix_memo[key] = new
        return new

    def _extend(self, prefix: list, t: int, topts: list, last: bool) -> list:
        """The partial choices over types 0 to t: each over the types before
        t (``prefix``) with each of type t's options (``topts``) that fits
        within X; in the last round no die of type t while a type that
        dominates it keeps a blank (pruning 3 of ``_Engine``)."""
        dm = self.dommask[t] if last else 0
        none_left = topts[0][4]
        xe = self.xe
        new = []
        for size, rs, ra, m, oth, left, fm in prefix:
            if dm & ~fm:
                new.append((size, rs, ra, m, oth, left or not none_left, fm | (none_left << t)))
                continue
            room = xe - size
            for k, s, a, _nb, full, km, om in topts:
                if k > room:
                    break
                new.append((size + k, rs + s, ra + a, m + km, oth + om, left or not full, fm | (full << t)))
        return new

    def states(self, rounds: int) -> int:
        """How many states the exact programme may value over ``rounds``
        rounds (an upper bound, from the dice alone: the same on every
        device, whatever earlier questions left in a cache). Per round,
        every dice state (live dice per slot) and every reroll it weighs
        (the state after the choice, before the draw: dice kept, dice
        rerolled per type, at most X); the distinct ones of those are
        valued by their draws once each: before the last round every
        (dice kept, dice rerolled) and every state its draws lead to, in
        the last round every (reading of the dice kept, dice rerolled), at
        most the readings (letters up to their need, a letter shown,
        successes) times the rerolls. A dice
        state before the last round also counts ``DEC_STATES`` for its own
        valuation (in the last round, states that agree on what the choice
        depends on share it)."""
        if rounds <= 0 or not self.xe:
            return 0
        dec, chance, draws, moves = self._census()
        last = dec * (1 + moves) + min(chance, self._reading_count() * moves)
        return last + (rounds - 1) * (dec * (DEC_STATES + moves) + draws)

    def _reading_count(self) -> int:
        """At most how many readings the outcome takes of the dice: letters
        up to their need, a letter shown, successes."""
        reads = (self.live + 1) * 2
        for n in self.need or []:
            reads *= min(n, self.live) + 1
        return reads

    def _census(self) -> tuple:
        """(dice states, chance states, the states their draws lead to,
        rerolls): counted type by type, a polynomial in the dice rerolled
        (a type with n dice over s slots keeping j of them has
        C(j + s - 1, s - 1) kept states, and n - j fresh dice
        C(n - j + s - 1, s - 1) outcomes)."""
        dec = 1
        chance = draws = moves = [1]
        for n, ids in zip(self.count, self.tslots):
            s = len(ids)
            dec *= comb(n + s - 1, s - 1)
            chance = poly_mul(chance, [comb(n - d + s - 1, s - 1) for d in range(n + 1)])
            draws = poly_mul(draws, [comb(n - d + s - 1, s - 1) * comb(d + s - 1, s - 1) for d in range(n + 1)])
            moves = poly_mul(moves, [1] * (n + 1))
        x = self.xe + 1
        return dec, sum(chance[1:x]), sum(draws[1:x]), sum(moves[1:x])

    def horizon(self, rounds: int) -> int:
        """Rounds the advice looks ahead: all of them while their states
        (``states``) are within ``STATE_LIMIT``, else fewer; 0 when even
        the round at hand is past it (then the advice is ``heuristic``)."""
        h = max(0, rounds)
        while h > 0 and self.states(h) > STATE_LIMIT:
            h -= 1
        return h

    def heuristic(self, counts: list):
        """The advice when searching every choice would take too long: the
        blank dice, those whose design shows the most counting faces first,
        as many as X allows; every success kept (None: nothing blank)."""
        left = self.xe
        m = rs = 0
        for t in self._blank_types():
            n = min(left, counts[self.oslot[t]])
            m += n * self.tunit[t]
            rs += n * self.sunit[self.oslot[t]]
            left -= n
        size = self.xe - left
        return (size, rs, 0, m, m) if size else None

    def _blank_types(self) -> list:
        """The types that can show a blank, those whose design shows the
        most counting faces first (the heuristic's order)."""
        return sorted((t for t in range(self.ntypes) if self.oslot[t] is not None),
                      key=lambda t: -(SIDES - self.weights[t][self.other]))


# --------------------------------------------------------------------------
# The dynamic programme.

def _fewest_best(tied: list, values: list) -> tuple:
    """(score, winners): among the choices ``tied`` (their scores
    ``values``) of the fewest dice, those of the best score."""
    n = min(c[0] for c in tied)
    top = max(v for v, c in zip(values, tied) if c[0] == n)
    return top, [c for v, c in zip(values, tied) if c[0] == n and v == top]


class _Engine:
    """Best play for one side against one terminal (the side's final agg
    → (score, dist), integer weights over ``self.dt``).

    Values with r rounds left are integers over 12^(xe·r)·dt. Choices are
    enumerated with three prunings, each a coupling: (1) within a type, a
    success is rerolled only once every "neither" die of that type is
    (keeping the success instead is never worse), and only if the type can
    show another counting face; (2) only choices that cannot take one more
    "neither" die (a fresh die is never worse than a blank one), then
    fewer dice only where the chance stays the same (every smaller choice
    that ties lies under a tied maximal one); (3) in the last round, a die
    of a type is rerolled only once every "neither" die of each type whose
    counting faces dominate it is. The first choice in enumeration order
    wins among exact ties of chance and size."""

    def __init__(self, model: _Model, terminal, dt: int, F: int, budget, top: int, rounds: int,
                 feature=None):
        self.md = model
        self.terminal = terminal
        #: what a final score reads of an agg, capped so that adding dice
        #: commutes with it (None: the agg itself): a last-round reroll is
        #: valued once per (feature of the dice kept, dice rerolled)
        self.feature = feature
        #: the packing's field width; a score's bits below ``low`` break
        #: ties only after the dice count
        self.F = F
        self.low = 2 * F
        #: the narrow packing's field width (``tie_dist``)
        self.tf = (SIDES ** (model.xe * rounds) * dt).bit_length() + 1
        #: the best main part (score >> low) a terminal can have: a roll that
        #: has it is kept (no reroll's weighted sum can exceed it)
        self.top = top
        self.budget = budget
        self.dt = dt
        self.work = 0
        self.pows = [SIDES ** (model.xe - n) for n in range(model.xe + 1)]
        self._clear()

    def _clear(self):
        self.t: dict = {}
        #: per rounds to come: {state: score} of best play (r = 0: {agg:
        #: score} of the dice as they lie), {kept state | m << kw: score} of a reroll
        self.vm: dict = {}
        self.em: dict = {}
        self.fm: dict = {}
        self.feat: dict = {}
        self.best: dict = {}
        self.key1: dict = {}
        self.chosen: dict = {}
        self.dist_memo: dict = {}
        self.gd: dict = {}
        self.pd: dict = {}

    @staticmethod
    def _memo(memos: dict, r: int) -> dict:
        m = memos.get(r)
        if m is None:
            m = memos[r] = {}
        return m

    def _spend(self, n: int):
        self.work += n
        b = self.budget
        if b.left is not None:
            b.left -= n
            if b.left < 0 and b.hard:
                raise _TooBig

    def term(self, agg: int, first: bool) -> tuple:
        key = (agg, first)
        v = self.t.get(key)
        if v is None:
            if len(self.t) > MEMO_LIMIT:
                self._clear()
            v = self.t[key] = self.terminal(agg, first)
        return v

    # -- values --------------------------------------------------------
    def stop_score(self, r: int, agg: int, first: bool) -> int:
        return self.term(agg, first)[0] * SIDES ** (self.md.xe * r)

    def _play(self, r: int, state: int, agg: int, first: bool) -> tuple:
        """(score, the best rerolls, all of equal score, or None = stop)
        with r rounds left."""
        stop = self.stop_score(r, agg, first)
        if r <= 0 or not self.md.xe or self.term(agg, first)[0] >> self.low >= self.top:
            return stop, None
        score, winners = self.reroll_best(r, state, agg)
        if winners is None or stop >> self.low >= score >> self.low:
            return stop, None
        return score, winners

    def choose(self, r: int, state: int, agg: int, first: bool) -> tuple:
        """(score, choice or None = stop) with r rounds left."""
        score, winners = self._play(r, state, agg, first)
        return score, None if winners is None else self._resolve(r, state, agg, winners)

    def decide(self, r: int, state: int, agg: int, first: bool, h: int):
        """The advised choice with r rounds left, looking h rounds ahead
        (h = 0: the heuristic)."""
        if r <= 0:
            return None
        if h <= 0:
            return self.md.heuristic(self.md.decode(state))
        return self.choose(min(h, r), state, agg, first)[1]

    def value(self, r: int, state: int, agg: int) -> int:
        """Score of best play with r rounds left, no first-roll bonus in
        play (r = 0: of the dice as they lie; ``state`` is the agg then)."""
        memo = self._memo(self.vm, r)
        if r <= 0:
            v = self.term(agg, False)[0]
        else:
            # the dice's smallest mirror image stands for them
            c = self.md.canon(state)
            v = memo.get(c)
            if v is None:
                v = memo[c] = self._play(r, c, agg if c == state else self.md.agg_of(c), False)[0]
        memo[state] = v
        return v

    def cand_value(self, r: int, state: int, agg: int, cand: tuple) -> int:
        size, rs, ra, m = cand[:4]
        ka = agg - ra
        return self.expect(r - 1, ka if r == 1 else state - rs, ka, m) * self.pows[size]

    def expect(self, r: int, kstate: int, kagg: int, m: tuple) -> int:
        """Score of rerolling m (the dice kept: ``kstate``, ``kagg``) with r
        rounds to come after it, best play in them; r = 0: the last round,
        where only the agg counts (``kstate`` is the kept agg)."""
        memo = self._memo(self.em, r)
        key = kstate | m << self.md.kw
        v = memo.get(key)
        if v is None:
            last = r == 0 and self.feature is not None
            v = memo[key] = self._last(kagg, m) if last else self._expect(r, kstate, kagg, m)
        return v

    def _last(self, kagg: int, m: tuple) -> int:
        """A last-round reroll, valued once per (feature of the dice kept, m)."""
        f = self.feat.get(kagg)
        if f is None:
            f = self.feat[kagg] = self.feature(kagg)
        v = self.fm.get((f, m))
        if v is None:
            v = self.fm[(f, m)] = self._expect(0, kagg, kagg, m)
        return v

    def _expect(self, r: int, kstate: int, kagg: int, m: tuple) -> int:
        draws = self.md.draws(m, r > 0)
        self._spend(len(draws))
        values = self._memo(self.vm, r)
        value = self.value
        v = 0
        for s, a, p in draws:
            x = values.get(kstate + s)
            v += p * (value(r, kstate + s, kagg + a) if x is None else x)
        return v

    # -- choices -------------------------------------------------------
    def reroll_best(self, r: int, state: int, agg: int) -> tuple:
        """(score, winners) of the best non-empty rerolls: the choices of
        equal best score (None: no choice); a choice is (size, state
        removed, agg removed, m = dice per type, blanks per type, as type digits)."""
        key = (r, state)
        hit = self.best.get(key)
        if hit is not None:
            return hit
        counts = self.md.decode(state)
        k1 = self._key1(counts, agg) if r == 1 and not self.md.capless else None
        if k1 is not None and k1 in self.key1:
            hit = self.best[key] = self.key1[k1]
            return hit
        cands = self.md.choices(counts, r == 1)
        self._spend(len(cands) + 1)
        hit = self._pick(r, state, agg, cands, self.stop_score(r, agg, False))
        self.best[key] = hit
        if k1 is not None:
            self.key1[k1] = hit
        return hit

    def _key1(self, counts: list, agg: int):
        """In the last round a type with at least X blank dice never has a
        success rerolled, and more than X blanks are alike: states that agree
        on the rest share their choice."""
        return self.md.profile(counts, agg, cap=False)

    def _pick(self, r: int, state: int, agg: int, cands: list, floor: int) -> tuple:
        """(score, winners) of ``cands`` by the score's main part; among
        equals the fewest dice (found under the tied maximal choices); then
        the rest of the score (more of the better outcomes). What is still
        tied is broken by the whole distribution (``_resolve``), never by
        the order of the dice. Fewer dice are not looked for when keeping
        the roll is at least as good: keeping wins then."""
        best_p, tied, values = self._top(r, state, agg, cands)
        if not tied:
            return -1, None
        if floor >> self.low >= best_p:
            return values[0], [tied[0]]
        for c in self._fewer(r, state, agg, tied, best_p):
            tied.append(c)
            values.append(self.cand_value(r, state, agg, c))
        return _fewest_best(tied, values)

    def _top(self, r: int, state: int, agg: int, cands: list) -> tuple:
        """(main part, choices, their scores) of the candidates whose
        score's main part is the highest."""
        low = self.low
        best_p = -1
        tied: list = []
        values: list = []
        pows = self.pows
        memo = self._memo(self.em, r - 1)
        last = r == 1
        kw = self.md.kw
        for c in cands:
            ka = agg - c[2]
            ks = ka if last else state - c[1]
            v = memo.get(ks | c[3] << kw)
            if v is None:
                v = self.expect(r - 1, ks, ka, c[3])
            v *= pows[c[0]]
            p = v >> low
            if p > best_p:
                best_p, tied, values = p, [c], [v]
            elif p == best_p:
                tied.append(c)
                values.append(v)
        return best_p, tied, values

    def _resolve(self, r: int, state: int, agg: int, winners: list) -> tuple:
        """The one of the equal best choices played: the better whole
        distribution (it names no letter, so dice that mirror each other
        choose alike), then the first. Choices that are mirror images of
        each other on these dice have the same distribution: only the
        first of each is looked at."""
        if len(winners) == 1:
            return winners[0]
        key = (r, state)
        hit = self.chosen.get(key)
        if hit is None:
            reps = self.md.unmirrored(state, winners)
            dists = [self._dist_of(r, state, agg, c) for c in reps]  # narrow
            hit = self.chosen[key] = reps[max(range(len(reps)), key=lambda i: (dists[i], -i))]
        return hit

    def _fewer(self, r: int, state: int, agg: int, tied: list, best_p: int) -> list:
        """The choices one blank die at a time smaller than the tied ones
        whose score keeps the same main part."""
        seen = set()
        found = []
        frontier = tied
        while frontier:
            nxt = []
            for c in frontier:
                for c2 in self._smaller(c, seen):
                    if self.cand_value(r, state, agg, c2) >> self.low == best_p:
                        nxt.append(c2)
            found += nxt
            frontier = nxt
        return found

    def _smaller(self, c: tuple, seen: set) -> list:
        """The choices one blank die smaller than c not seen yet (and now
        seen: the dice removed name the choice)."""
        if not c[4] or c[0] == 1:
            return []  # no blank die to keep, or none would be left
        out = []
        for t, o in enumerate(self.md.per_type(c[4])):
            if not o:
                continue
            c2 = self._less(c, t)
            if c2[1] not in seen:
                seen.add(c2[1])
                out.append(c2)
        return out

    def _less(self, c: tuple, t: int) -> tuple:
        """The choice c with one blank die of type t kept instead."""
        size, rs, ra, m, oth = c
        md = self.md
        u = md.tunit[t]
        return size - 1, rs - md.sunit[md.oslot[t]], ra, m - u, oth - u

    # -- distributions along the best play ------------------------------
    def spread(self, r: int, items) -> int:
        """Σ weight × the packed distribution of the final outcome, over
        ``items`` (weight, state, agg, first, choice) with r rounds left:
        ``choice`` played now (False: the best) and best play afterwards.
        The weights are carried forward round by round to the final dice
        (the same integer sums as valuing each state's distribution)."""
        ends: dict = {}
        last: dict = {}
        nxt: dict = {}
        for w, state, agg, first, choice in items:
            if choice is False:
                choice = self.choose(r, state, agg, first)[1]
            self._push(r, w, state, agg, first, choice, (ends, last, nxt))
        while nxt and r > 1:
            r -= 1
            nxt = self._play_round(r, nxt, ends, last)
        self._draw_last(last, ends)
        term = self.term
        return sum(w * term(agg, first)[1] for (agg, first), w in ends.items())

    def _play_round(self, r: int, level: dict, ends: dict, last: dict) -> dict:
        """The weights at the states of ``level`` (r rounds left) carried
        one round on by best play: onto the final dice (``ends``), the last
        round's rerolls (``last``) or the next round's states (returned)."""
        nxt: dict = {}
        for state, (agg, w) in self._canonical(level).items():
            self._push(r, w, state, agg, False, self.choose(r, state, agg, False)[1], (ends, last, nxt))
        return nxt

    def _draw_last(self, last: dict, ends: dict):
        """The last round's rerolls (``last``: {(kept agg, m): weight})
        drawn onto the final dice (``ends``: {(agg, first): weight})."""
        for (ka, m), w in last.items():
            for _s, a, p in self.md.draws(m, False):
                key = (ka + a, False)
                ends[key] = ends.get(key, 0) + w * p

    def _canonical(self, level: dict) -> dict:
        """{state: [agg, weight]} with each state's weight moved to its
        smallest mirror image (the same odds)."""
        md = self.md
        if not md.mirrors:
            return level
        out: dict = {}
        for state, (agg, w) in level.items():
            c = md.canon(state)
            hit = out.get(c)
            if hit is not None:
                hit[1] += w
            else:
                out[c] = [agg if c == state else md.agg_of(c), w]
        return out

    def _push(self, r: int, w: int, state: int, agg: int, first: bool, choice, to: tuple):
        """Weight w at a state with r rounds left, playing ``choice``: onto
        the final dice (``ends``: {(agg, first): weight}), the last round's
        rerolls (``last``: {(kept agg, m): weight}) or the states of the
        next round (``nxt``: {state: [agg, weight]})."""
        ends, last, nxt = to
        if choice is None:
            key = (agg, first)
            ends[key] = ends.get(key, 0) + w * SIDES ** (self.md.xe * r)
            return
        w *= self.pows[choice[0]]
        ka = agg - choice[2]
        if r == 1:
            key = (ka, choice[3])
            last[key] = last.get(key, 0) + w
            return
        self._draw_next(nxt, w, state - choice[1], ka, choice[3])

    def _draw_next(self, nxt: dict, w: int, ks: int, ka: int, m: int):
        """Weight w of the dice kept (state ``ks``, agg ``ka``) with the dice
        ``m`` rerolled, drawn onto the next round's states (``nxt``)."""
        for s, a, p in self.md.draws(m, True):
            hit = nxt.get(ks + s)
            if hit is None:
                nxt[ks + s] = [ka + a, w * p]
            else:
                hit[1] += w * p

    def dist(self, r: int, state: int, agg: int, first: bool, choice=False) -> int:
        """The packed distribution of the final outcome with r rounds left,
        playing ``choice`` now (False: the best) and best afterwards."""
        return self.spread(r, [(1, state, agg, first, choice)])

    def policy_dist(self, r: int, state: int, agg: int, first: bool, h: int) -> int:
        """The packed distribution of following the advice that looks h
        rounds ahead (``decide``) for the r rounds left: the best play's when
        h >= r, else that play's, evaluated exactly state by state."""
        if h >= r:
            return self.dist(r, state, agg, first)
        key = (r, state, h)
        hit = None if first else self.pd.get(key)
        if hit is not None:
            return hit
        choice = self.decide(r, state, agg, first, h)
        if choice is None:
            d = self.term(agg, first)[1] * SIDES ** (self.md.xe * r)
        else:
            d = self.then_advice(r, state, agg, choice, h)
            self._spend(len(self.md.draws(choice[3], True)))
        if not first:
            self.pd[key] = d
        return d

    def then_advice(self, r: int, state: int, agg: int, choice: tuple, h: int) -> int:
        """The packed distribution of playing ``choice`` with r rounds left
        and then the advice that looks h rounds ahead (``policy_dist``)."""
        d = 0
        for s, a, p in self.md.draws(choice[3], True):
            d += p * self.policy_dist(r - 1, state - choice[1] + s, agg - choice[2] + a, False, h)
        return d * self.pows[choice[0]]

    # -- the tie-break: whole distributions, packed narrow ---------------
    def tie_dist(self, r: int, state: int, agg: int) -> int:
        """The distribution of the final outcome with r rounds left, best
        play, no first-roll bonus; packed in fields of ``tf`` bits (room for
        one state's weights: the order is that of the wide packing)
        (r = 0: of the dice as they lie; ``state`` is the agg then)."""
        key = (r, state)
        d = self.dist_memo.get(key)
        if d is not None:
            return d
        c = self.md.canon(state) if r > 0 else state
        if c != state:
            d = self.tie_dist(r, c, self.md.agg_of(c))
        else:
            d = self._tie_dist_played(r, state, agg)
        self.dist_memo[key] = d
        return d

    def _tie_dist_played(self, r: int, state: int, agg: int) -> int:
        """``tie_dist`` of dice that are their own smallest mirror image:
        best play's choice played, or the dice kept as they lie."""
        choice = self.choose(r, state, agg, False)[1] if r > 0 else None
        if choice is None:
            return self._narrow(self.term(agg, False)[1]) * SIDES ** (self.md.xe * r)
        return self._dist_of(r, state, agg, choice)

    def _dist_of(self, r: int, state: int, agg: int, choice: tuple) -> int:
        size, rs, ra, m = choice[:4]
        ka = agg - ra
        ks = ka if r == 1 else state - rs
        key = (r - 1, ks, m)
        d = self.gd.get(key)
        if d is None:
            d = 0
            for s, a, p in self.md.draws(m, r > 1):
                d += p * self.tie_dist(r - 1, ks + s, ka + a)
            self.gd[key] = d
        return d * self.pows[size]

    def _narrow(self, packed: int) -> int:
        """A packed distribution re-packed in fields of ``tf`` bits."""
        F, tf = self.F, self.tf
        out = 0
        while packed:  # field by field from the top, skipping empty ones
            i = (packed.bit_length() - 1) // F
            w = packed >> (i * F)
            packed -= w << (i * F)
            out |= w << (i * tf)
        return out


# --------------------------------------------------------------------------
# A spec's models, terminals and engines.

def _field(value: int, outcome: int, natural: bool) -> int:
    """Index of (successes on the dice, outcome, natural) in a packed
    distribution."""
    return (value * len(OUTCOMES) + outcome) * 2 + int(natural)


class _Budget:
    """Work an answer may still take (None: no limit), shared by a spec's
    engines; ``hard``: past it the exact answer gives up (``_TooBig``)."""

    def __init__(self, left=None, hard=True):
        self.left = left
        self.hard = hard


class _Ctx:
    """Everything the odds of one normalized spec reuse: both sides'
    models, the packing width, the reward assumed, and the engines (one for
    the initiator per class of the opponent's dice, one for the reactor per
    reading of the initiator's final dice)."""

    def __init__(self, spec: dict):
        self.spec = spec
        self.xs = M.x_per_side(spec)
        need = M.letters_needed(spec["shoresh"])
        self.letters = list(need)
        self.need = [need[ch] for ch in self.letters]
        self.wc = not spec["reaction"]
        self.md = _model(M.dice_of(spec), self.letters, self.wc, self.xs["initiator"], self.need)
        self.R = spec["rounds"] if self.md.xe else 0
        self.mo, self.Ro = self._reactor_model(spec["opponent"])
        span = self.md.live + self.md.xe * self.R
        if self.mo is not None:
            span += self.mo.live + self.mo.xe * self.Ro
        # room for every weight of a whole turn, times a sample count
        self.F = (SIDES ** span).bit_length() + 14
        self.engines: dict = {}
        self.budget = _Budget()

    def _reactor_model(self, opp) -> tuple:
        """(model, reroll rounds) of the opponent's dice, where any letter
        of its shoresh counts alike and wilds never do ((None, 0)
        unopposed)."""
        if not opp:
            return None, 0
        mo = _model(M.dice_of(opp), ["".join(M.letters_needed(opp["shoresh"]))], False, self.xs["opponent"])
        return mo, opp["rounds"] if mo.xe else 0

    def reward(self, chosen=None) -> str:
        return chosen or M.rewards(self.spec)[0]

    def score(self, outcome: int, natural: bool) -> int:
        """The initiator's packed score: P(meet), P(success or better),
        P(natural), P(no botch) (the main part), then P(critical), P(natural
        success) (ties after the dice count)."""
        F = self.F
        return ((int(outcome in _MEET_IDX) << 5 * F) | (int(outcome in _SUCC_IDX) << 4 * F)
                | (int(natural) << 3 * F) | (int(outcome != _BOTCH) << 2 * F)
                | (int(outcome == _CRIT) << F) | int(outcome == _NATS))

    def top_main(self) -> int:
        """The main part of the best score: meets, succeeds, natural, no botch."""
        return self.score(_CRIT, True) >> 2 * self.F

    def feature(self, opposed: bool):
        """What the initiator's score reads of an agg: each letter up to its
        need (the natural), whether any letter shows (the botch), and the
        successes up to one past the most the bar can need (the bonuses are
        never negative); each is a count capped, so adding dice to an agg
        and then reading it is reading it and then adding them."""
        md, need, wc = self.md, self.need, self.wc
        bars = range(self.mo.live + 1) if opposed else [self.spec["difficulty"]]
        cap = max(M.needed_successes(self.spec, b)[0] for b in bars) + 1

        def read(agg: int) -> tuple:
            cnt, wilds = md.split(agg)
            m = sum(cnt)
            return tuple(min(c, n) for c, n in zip(cnt, need)) + (min(m, 1), min(m + wilds * wc, cap))

        return read

    def read(self, agg: int) -> tuple:
        """(matches, successes, natural) of the initiator's agg."""
        cnt, wilds = self.md.split(agg)
        matches = sum(cnt)
        natural = all(c >= n for c, n in zip(cnt, self.need))
        return matches, matches + (wilds if self.wc else 0), natural

    def responses(self, reward, matches: int, successes: int, natural: bool, first: bool) -> tuple:
        """The initiator's outcome (``_outcome``) against each count of the
        opponent's successes, none to all its live dice."""
        return tuple(_outcome(self.spec, reward, matches, successes, natural, first, mo)
                     for mo in range(self.mo.live + 1))

    # -- engines ---------------------------------------------------------
    def engine(self, key, make) -> _Engine:
        eng = self.engines.get(key)
        if eng is None:
            eng = make()
            if len(self.engines) > 256:
                self.engines.clear()
            self.engines[key] = eng
        return eng

    def solo(self, reward=None) -> _Engine:
        reward = self.reward(reward)
        spec = self.spec

        def terminal(agg: int, first: bool) -> tuple:
            matches, succ, natural = self.read(agg)
            o = _outcome(spec, reward, matches, succ, natural, first and natural)
            return self.score(o, natural), 1 << (self.F * _field(succ, o, natural))

        return self.engine(("solo", reward), lambda: _Engine(self.md, terminal, 1, self.F, self.budget,
                                                                 self.top_main(), self.R, self.feature(False)))

    def reactor(self, resp: tuple) -> _Engine:
        """The opponent's engine when the initiator's final dice give
        outcome ``resp[m]`` against m opposing successes: it plays to make
        the initiator miss, then fail to succeed, then fall short of a
        critical (a "let them react" natural is critical, with its hit
        location, while the reactor has no success: docs/RULES-DECISIONS.md)."""
        F = self.F

        def terminal(agg: int, first: bool) -> tuple:
            o = resp[agg]
            # the initiator missing, not succeeding, no critical (main part);
            # then its plainer successes: a success rather than a natural one
            score = ((int(o not in _MEET_IDX) << 5 * F) | (int(o not in _SUCC_IDX) << 4 * F)
                     | (int(o != _CRIT) << 3 * F) | (int(o == _PLAIN) << F) | int(o == _NATS))
            return score, 1 << (F * agg)

        top = (1 << 3 * F) | (1 << 2 * F) | (1 << F)
        return self.engine(("react", resp), lambda: _Engine(self.mo, terminal, 1, F, self.budget, top, self.Ro))

    def opp_class(self, state: int, agg: int, left: int) -> tuple:
        """What of the opponent's dice its reaction depends on: its
        successes (never rerolled) and its blank dice per type, capped at
        what its rounds left can reroll."""
        mo = self.mo
        counts = mo.decode(state)
        cap = mo.xe * left
        blanks = tuple(min(cap, counts[mo.oslot[t]]) if mo.oslot[t] is not None else 0
                       for t in range(mo.ntypes))
        return left, agg, blanks

    def versus(self, opp_state: int, opp_agg: int, left: int, reward=None) -> _Engine:
        """The initiator's engine against the opponent's dice as they lie:
        each of its final readings is answered by the opponent's best
        reaction, exactly. A natural whose reward is not chosen (``reward``
        None) takes the better of "+1 and uncounterable" and "let them
        react" for the initiator (docs/RULES-DECISIONS.md: "let them react" where it is as
        sure to succeed and may be critical)."""
        chosen = reward
        reward = self.reward(reward)
        F = self.F
        dt = SIDES ** (self.mo.xe * left)
        n_o = self.mo.live
        h_o = self.mo.horizon(left)

        def answer(rw: str, matches: int, succ: int, natural: bool, first: bool) -> tuple:
            resp = self.responses(rw, matches, succ, natural, first and natural)
            if len(set(resp)) == 1:
                return self.score(resp[0], natural) * dt, (1 << (F * _field(succ, resp[0], natural))) * dt
            d = self.reactor(resp).policy_dist(left, opp_state, opp_agg, False, h_o)
            score = dist = 0
            mask = (1 << F) - 1
            for mo in range(n_o + 1):
                w = (d >> (F * mo)) & mask
                if w:
                    score += w * self.score(resp[mo], natural)
                    dist += w << (F * _field(succ, resp[mo], natural))
            return score, dist

        def terminal(agg: int, first: bool) -> tuple:
            matches, succ, natural = self.read(agg)
            out = answer(reward, matches, succ, natural, first)
            if natural and chosen is None:
                alt = answer("critical", matches, succ, natural, first)
                if alt[0] > out[0]:
                    out = alt
            return out

        key = ("vs", chosen or "best", self.opp_class(opp_state, opp_agg, left))
        return self.engine(key, lambda: _Engine(self.md, terminal, dt, F, self.budget,
                                                                 self.top_main() * dt, self.R, self.feature(True)))


_CTX_CACHE: dict = {}
#: The dice models (``_model``), shared by every spec with the same dice,
#: letters, wild rule and X: their draw tables, choice lists and first rolls
#: do not depend on the difficulty, the rounds or the bonuses.
_MODEL_CACHE: dict = {}


def _model(designs: list, letters: list, wild: bool, x: int, need=None) -> _Model:
    """The model of these dice (``need``: the letters' needs, for the
    mirror images; None: none), kept for the next spec with the same dice.
    Everything it keeps is a pure function of its key, so an answer never
    depends on which questions came before."""
    key = json.dumps([designs, letters, wild, x, need], ensure_ascii=False)
    md = _MODEL_CACHE.get(key)
    if md is None:
        md = _keep(_MODEL_CACHE, 8, key, _Model(designs, letters, wild, x))
        if need is not None:
            md.need = list(need)
            md.set_mirrors(_mirrors(md, need))
    return md


def _ctx(spec: dict) -> _Ctx:
    key = json.dumps(spec, sort_keys=True, ensure_ascii=False)
    ctx = _CTX_CACHE.get(key)
    if ctx is None:
        ctx = _keep(_CTX_CACHE, 16, key, _Ctx(spec))
    return ctx


def _keep(cache: dict, limit: int, key, value):
    """``value`` stored under ``key`` in a cache that is emptied whenever
    it holds ``limit`` entries (bounded memory); returns the value."""
    if len(cache) >= limit:
        cache.clear()
    cache[key] = value
    return value


# --------------------------------------------------------------------------
# The whole turn before the roll: exact, else sampled.

def _picker(dist: dict):
    """Draw a key of ``dist`` ({key: integer weight}) with an rng."""
    keys = list(dist)
    cum = []
    acc = 0
    for k in keys:
        acc += dist[k]
        cum.append(acc)
    return lambda rng: keys[min(len(keys) - 1, bisect_right(cum, rng.random() * acc))]


def _opp_groups(ctx: _Ctx) -> list:
    """The opponent's first rolls grouped by what its reaction depends on:
    [(weight, state, agg)], one representative per class."""
    if ctx.mo is None:
        return [(1, 0, 0)]
    groups: dict = {}
    for (s, a), w in ctx.mo.first_roll().items():
        # the first roll of a class stands for it; the weights add up
        groups.setdefault(ctx.opp_class(s, a, ctx.Ro), [0, s, a])[0] += w
    return [tuple(g) for g in groups.values()]


def _engine_for(ctx: _Ctx, opp) -> _Engine:
    if ctx.mo is None:
        return ctx.solo()
    return ctx.versus(opp[0], opp[1], ctx.Ro)


class _Batches:
    """First rolls valued one by one (the work counted in their order),
    their distributions summed at the end, one forward pass per engine."""

    def __init__(self, ctx: _Ctx):
        self.ctx = ctx
        self.items: dict = {}

    def add(self, w: int, si: tuple, so) -> _Engine:
        eng = _engine_for(self.ctx, so)
        eng.choose(self.ctx.R, si[0], si[1], True)
        self.items.setdefault(id(eng), (eng, []))[1].append((w, si[0], si[1], True, False))
        return eng

    def spread(self) -> int:
        return sum(eng.spread(self.ctx.R, items) for eng, items in self.items.values())


def _prior(ctx: _Ctx, limit=None) -> dict:
    """Packed distributions of the final outcome (``dist`` over ``den``) and
    of stopping after the first roll (``dist0`` over ``den0``, always
    exact): the whole turn played best, every first roll valued exactly,
    while its states (``_states``) are within ``STATE_LIMIT``; past it, the
    advice's turns played out on a seeded stream (``_prior_played``)."""
    if _states(ctx) <= (STATE_LIMIT if limit is None else limit):
        return _prior_exact(ctx)
    pr = _prior_played(ctx, MAX_PLAYS if limit is None else MIN_PLAYS)
    pr["dist0"], pr["den0"] = _first_exact(ctx)
    return pr


def _states(ctx: _Ctx) -> int:
    """The states an exact answer for the whole turn may value
    (``_Model.states``): the initiator's once per class of the opponent's
    first roll (one engine each), and the reactor's once per reading of
    the initiator's final dice (one engine each)."""
    n = ctx.md.states(ctx.R)
    if ctx.mo is None:
        return n
    resps = {resp for resp, _s, _n in _readings(ctx)}
    return n * len(_opp_groups(ctx)) + ctx.mo.states(ctx.Ro) * len(resps)


def _readings(ctx: _Ctx) -> dict:
    """Opposed: {(outcome against each count of opposing successes,
    successes, natural): weight} of the initiator's first roll, with the
    first-roll bonus (every agg a final roll can have is among them)."""
    hit = getattr(ctx, "_reads", None)
    if hit is not None:
        return hit
    md, reward = ctx.md, ctx.reward()
    every = md.every
    reads: dict = {}
    for _s, a, p in md.draws(every, False):
        matches, succ, natural = ctx.read(a)
        resp = ctx.responses(reward, matches, succ, natural, natural)
        key = (resp, succ, natural)
        reads[key] = reads.get(key, 0) + p
    ctx._reads = reads
    return reads


def _first_exact(ctx: _Ctx) -> tuple:
    """(packed distribution, denominator) of the initiator stopping after
    its first roll, exact whatever the spec: the first roll needs no play,
    so its letter counts (``draws`` by agg, a convolution of the dice
    designs' face counts) are read by the outcome rule; opposed, each
    reading meets the opponent's first roll, class by class, and its best
    reaction (the same reactor as the whole turn's)."""
    md = ctx.md
    every = md.every
    mine = md.draws(every, False)
    total = SIDES ** md.live
    if ctx.mo is None:
        eng = ctx.solo()
        return sum(p * eng.term(a, True)[1] for _s, a, p in mine), total
    out, den_o = _first_exact_opposed(ctx)
    return out, total * den_o


def _first_exact_opposed(ctx: _Ctx) -> tuple:
    """(packed distribution, denominator of the opponent's part) of the
    initiator's first-roll readings against each class of the opponent's
    first roll and its best reaction."""
    F = ctx.F
    n_o = ctx.mo.live
    reads = _readings(ctx)
    dt = SIDES ** (ctx.mo.xe * ctx.Ro)
    h_o = ctx.mo.horizon(ctx.Ro)
    out = 0
    for w, so, ao in _opp_groups(ctx):
        for (resp, succ, natural), p in reads.items():
            if len(set(resp)) == 1:
                out += w * p * dt << (F * _field(succ, resp[0], natural))
                continue
            d = ctx.reactor(resp).policy_dist(ctx.Ro, so, ao, False, h_o)
            for mo, x in _fields(d, F):
                out += w * p * x << (F * _field(succ, resp[mo], natural))
    return out, SIDES ** n_o * dt


def _upper(ctx: _Ctx, aggs=None, rounds=None, opp=None) -> dict:
    """Exact upper bounds of P(meet), P(success or better) and P(natural)
    under ANY play of the turn, from a relaxed game that every real play
    can copy: a rerolled die keeps its old face too (the new face is added:
    every count the outcome reads only grows), the first-roll bonus counts
    for any final natural, the X·rounds fresh dice come one at a time, each
    of any live design (undominated ones suffice) chosen after seeing the
    last, and, opposed, the opponent stands on its first roll (its reaction
    only rerolls blank dice: its successes never fall). Each count is
    capped where the outcome stops reading it, so the relaxed game is a
    small exact programme over (letters up to their need, a letter shown,
    successes up to the bar + 1). After a roll: from the dice as they lie
    (``aggs`` {agg: 1}), ``rounds`` left, the opponent's successes now
    (``opp`` {m: 1})."""
    md, spec = ctx.md, ctx.spec
    reward = ctx.reward()
    opp = opp or _opp_successes(ctx)
    cap = _success_cap(spec, opp)
    game = _relaxed_game(ctx, cap, rounds)
    aggs = aggs or {a: p for _s, a, p in md.draws(md.every, False)}
    start = _start_features(md, aggs, ctx.need, cap, ctx.wc)
    den = sum(aggs.values()) * sum(opp.values())
    out = {}
    for name, test in (("meets", _MEET_IDX), ("success", _SUCC_IDX), ("natural", None)):
        tot = _relaxed_chance(spec, reward, ctx.need, test, opp, start, game)
        out[name] = min(1.0, tot / den * (1 + 1e-12))
    return out


def _relaxed_game(ctx: _Ctx, cap: int, rounds) -> tuple:
    """The relaxed game of the initiator's dice, successes counted up to
    ``cap``: its readings, their index, the reading each die leads to, the
    designs a fresh die may be, and the fresh dice to come (X for each of
    ``rounds``, None: the turn's)."""
    md = ctx.md
    feats, index, nxt = _relaxed_moves(ctx.need, cap, md.k, ctx.wc)
    # a design whose every counting face count is at least another's is never worse to add
    ws = [w for t, w in enumerate(md.weights) if not md.dom[t]]
    steps = md.xe * (ctx.R if rounds is None else rounds)
    return feats, index, nxt, ws, steps


def _relaxed_chance(spec: dict, reward: str, need: list, test, opp: dict, start: dict, game: tuple) -> float:
    """The relaxed game's weighted chance, best play, of ``test`` (outcome
    indices; None: a natural) from the ``start`` readings against each of
    the opponent's successes (``opp``); ``game``: its readings, their
    index, their moves, the designs' face counts and the dice to come.
    Opponent rolls that read alike share one table of values."""
    feats, index, nxt, ws, steps = game
    tot = 0
    tables: dict = {}
    for m, pm in opp.items():
        term = tuple(_relaxed_terminal(spec, reward, f, need, test, m) for f in feats)
        if term not in tables:
            tables[term] = _relaxed_value(list(term), nxt, ws, steps)
        v = tables[term]
        tot += pm * sum(p * v[index[f]] for f, p in start.items())
    return tot


def _relaxed_moves(need: list, cap: int, k: int, wc: bool) -> tuple:
    """The relaxed game's readings, their index, and for each the reading
    one more die of each category (letter, wild, neither) leads to."""
    feats = list(_feature_space(need, cap))
    index = {f: i for i, f in enumerate(feats)}
    nxt = [[index[_feature_add(f, c, k, need, cap, wc)] for c in range(k + 2)] for f in feats]
    return feats, index, nxt


def _success_cap(spec: dict, opp: dict) -> int:
    """One past the most successes any of the opponent's rolls (or the
    difficulty, unopposed) asks for: the relaxed game counts no further."""
    return max(M.needed_successes(spec, spec["difficulty"] if m is None else m)[0] for m in opp) + 1


def _start_features(md: _Model, aggs: dict, need: list, cap: int, wc: bool) -> dict:
    """{capped reading: weight} of the dice as they lie (``aggs``)."""
    start: dict = {}
    for a, p in aggs.items():
        cnt, wilds = md.split(a)
        f = _feature_of(cnt, wilds, need, cap, wc)
        start[f] = start.get(f, 0) + p
    return start


def _opp_successes(ctx: _Ctx) -> dict:
    """{the opponent's successes: weight} of its first roll ({None: 1} unopposed)."""
    if ctx.mo is None:
        return {None: 1}
    mo = ctx.mo
    out: dict = {}
    for _s, a, p in mo.draws(mo.every, False):
        m = mo.split(a)[0][0]
        out[m] = out.get(m, 0) + p
    return out


def _feature_space(need: list, cap: int):
    """Every capped reading: letters up to their need, a letter shown, successes up to ``cap``."""
    ranges = [range(n + 1) for n in need] + [range(2), range(cap + 1)]
    out = [()]
    for r in ranges:
        out = [f + (x,) for f in out for x in r]
    return out


def _feature_of(cnt: list, wilds: int, need: list, cap: int, wc: bool) -> tuple:
    m = sum(cnt)
    return tuple(min(c, n) for c, n in zip(cnt, need)) + (min(m, 1), min(m + wilds * wc, cap))


def _feature_add(f: tuple, c: int, k: int, need: list, cap: int, wc: bool) -> tuple:
    """A capped reading with one more die of category c (a letter, the wild or neither)."""
    if c < k:
        f = f[:c] + (min(f[c] + 1, need[c]),) + f[c + 1:k] + (1, min(f[k + 1] + 1, cap))
    elif c == k and wc:
        f = f[:k + 1] + (min(f[k + 1] + 1, cap),)
    return f


def _relaxed_terminal(spec: dict, reward: str, f: tuple, need: list, test, m) -> int:
    k = len(need)
    natural = all(x >= n for x, n in zip(f[:k], need))
    if test is None:
        return int(natural)
    return int(_outcome(spec, reward, f[k], f[k + 1], natural, True, m) in test)


def _relaxed_value(v: list, nxt: list, ws: list, steps: int) -> list:
    """The relaxed game's best value from every reading with ``steps``
    fresh dice to come (floats, each step rounded up by a relative 1e-12
    so that the bound stays a bound)."""
    rows = _relaxed_rows(nxt, ws)
    v = [float(x) for x in v]
    up = 1 + 1e-12
    for _ in range(steps):
        v = [min(1.0, max(sum(p * v[j] for j, p in law) for law in row) * up) for row in rows]
    return v


def _relaxed_rows(nxt: list, ws: list) -> list:
    """Per reading, per design (its face counts ``ws``): the readings one
    more die of that design leads to (``nxt``), each with its chance."""
    laws = _laws(ws)
    return [[[(row[c], p) for c, p in law] for law in laws] for row in nxt]


def _laws(ws: list) -> list:
    """Per design (its face counts ``ws``): (category, chance) of each
    category it shows."""
    return [[(c, w / SIDES) for c, w in enumerate(wt) if w] for wt in ws]


def _prior_exact(ctx: _Ctx) -> dict:
    """Every first roll valued exactly (the likeliest first, mirror images
    merged), whatever the work; their distributions summed at the end."""
    den1 = _turn_den(ctx)
    items, total = _first_rolls(ctx)
    tot0 = 0
    batches = _Batches(ctx)
    for w, si, so in items:
        eng = batches.add(w, si, so)
        tot0 += w * eng.term(si[1], True)[1]
    scale0 = SIDES ** (ctx.md.xe * ctx.R)
    return {"dist": batches.spread(), "den": total * den1, "dist0": tot0, "den0": total * den1 // scale0,
            "sampled": 0}


def _turn_den(ctx: _Ctx) -> int:
    """Denominator of one first roll's values: the initiator's rerolls and,
    opposed, the opponent's reaction."""
    den = SIDES ** (ctx.md.xe * ctx.R)
    if ctx.mo is not None:
        den *= SIDES ** (ctx.mo.xe * ctx.Ro)
    return den


def _mirrors(md: _Model, need: list) -> list:
    """The slot permutations that relabel letters (of equal need) and map
    the dice onto themselves: a first roll and its mirror image have the
    same odds, so only one of them is valued."""
    k = md.k
    out = []
    for q in _relabellings(need):
        if q == tuple(range(k)):
            continue
        cat = list(q) + [k, k + 1]
        tmap = _type_map(md, cat)
        if tmap is not None:
            out.append([md.slot_of[(tmap[t], cat[c])] for t, c in md.slots])
    return out


def _relabellings(need: list) -> list:
    """The permutations of the letters that send each letter to one of
    equal need (the identity among them): relabellings that leave the odds
    as they are."""
    k = len(need)
    return [q for q in permutations(range(k)) if all(need[q[j]] == need[j] for j in range(k))]


def _type_map(md: _Model, cat: list) -> list:
    """The type each type becomes when its categories are relabelled by
    ``cat``, or None when some image is not a type with as many dice."""
    index = {w: t for t, w in enumerate(md.weights)}
    tmap = []
    for t, w in enumerate(md.weights):
        u = index.get(_relabelled(w, cat))
        if u is None or md.count[u] != md.count[t]:
            return None
        tmap.append(u)
    return tmap


def _relabelled(w: tuple, cat: list) -> tuple:
    """A type's face counts with category c moved to ``cat[c]``."""
    w2 = [0] * len(cat)
    for c, image in enumerate(cat):
        w2[image] = w[c]
    return tuple(w2)


def _canonical_first_rolls(ctx: _Ctx) -> dict:
    """The first rolls with mirror images merged: {(state, agg): weight},
    each under its smallest state (built type by type: each type's draws
    carry their images under every mirror, all packed in one integer, a
    field (state, agg) per image, so that adding dice is adding integers)."""
    md = ctx.md
    if md.first_canon is not None:
        return md.first_canon
    perms = md.mirrors
    if not perms:
        md.first_canon = md.first_roll()
        return md.first_canon
    sh = md.B.bit_length() - 1
    fa = sh * (md.k + 1)
    fw = fa + sh * len(md.slots)
    acc = {0: 1}
    for t, n in enumerate(md.count):
        acc = _with_images(acc, md, t, n, fa, fw)
    md.first_canon = _smallest_images(acc, len(perms) + 1, fa, fw)
    return md.first_canon


def _with_images(acc: dict, md: _Model, t: int, n: int, fa: int, fw: int) -> dict:
    """{packed roll and images: weight} of ``acc`` with the n dice of type
    t added (adding their packed images adds them under every mirror)."""
    new: dict = {}
    for sa, aa, p in md.type_draws(t, n):
        key = _images(md, t, sa, aa, fa, fw)
        for k0, w0 in acc.items():
            k = k0 + key
            new[k] = new.get(k, 0) + w0 * p
    return new


def _smallest_images(acc: dict, n: int, fa: int, fw: int) -> dict:
    """{(state, agg): weight} from rolls packed as ``n`` fields (one per
    image, ``fw`` bits, the agg in the low ``fa``): each under its smallest
    image, weights of images merged."""
    out: dict = {}
    fmask, amask = (1 << fw) - 1, (1 << fa) - 1
    shifts = [j * fw for j in range(n)]
    for k, w in acc.items():
        best = min(k >> f & fmask for f in shifts)
        key = (best >> fa, best & amask)
        out[key] = out.get(key, 0) + w
    return out


def _images(md: _Model, t: int, sa: int, aa: int, fa: int, fw: int) -> int:
    """Dice of type t (state ``sa``, agg ``aa``) and their mirror images,
    packed: field j (``fw`` bits) holds image j's state above its agg."""
    counts = md.decode(sa)
    ids = md.tslots[t]
    key = aa | sa << fa
    for j, perm in enumerate(md.mirrors, 1):
        s2 = sum(counts[i] * md.sunit[perm[i]] for i in ids)
        a2 = sum(counts[i] * md.aunit[perm[i]] for i in ids)
        key |= (a2 | s2 << fa) << (j * fw)
    return key


def _first_rolls(ctx: _Ctx) -> tuple:
    """The first rolls, likeliest first (mirror images merged): an iterator
    of (weight, initiator (state, agg), opponent (state, agg) or None), and
    the total weight. Opposed, the pairs come from a heap over both sides'
    sorted lists."""
    mine = sorted(_canonical_first_rolls(ctx).items(), key=lambda kv: -kv[1])
    total = SIDES ** ctx.md.live
    if ctx.mo is None:
        return ((w, si, None) for si, w in mine), total
    theirs = sorted(((w, (s, a)) for w, s, a in _opp_groups(ctx)), key=lambda x: -x[0])
    total *= SIDES ** ctx.mo.live

    def pairs():
        heap = [(-mine[0][1] * theirs[0][0], 0, 0)]
        seen = {(0, 0)}
        while heap:
            w, i, j = heapq.heappop(heap)
            yield -w, mine[i][0], theirs[j][1]
            for i2, j2 in ((i + 1, j), (i, j + 1)):
                if i2 < len(mine) and j2 < len(theirs) and (i2, j2) not in seen:
                    seen.add((i2, j2))
                    heapq.heappush(heap, (-mine[i2][1] * theirs[j2][0], i2, j2))

    return pairs(), total


def _prior_played(ctx: _Ctx, most: int = MAX_PLAYS) -> dict:
    """Past ``STATE_LIMIT``: the odds of the advice as the page gives it
    (looking ``horizon`` rounds ahead, or the blank dice), priced on turns
    played out on a seeded stream of their own (nothing chose the play on
    them: the advice is the engine's, draw by draw); the reaction to each
    is valued exactly. ``MIN_PLAYS`` turns, then on by hundreds to
    ``most`` while the engines have valued, and the turns have drawn
    dice into, fewer than ``PLAY_STATES`` states (counted, never timed).
    The margin is that of a proportion (95 %)."""
    rng = random.Random(spec_seed("milhamah", ctx.spec, ["priced", ctx.R]))
    pick_o = _picker({(s, a): w for w, s, a in _opp_groups(ctx)}) if ctx.mo is not None else None
    h = ctx.md.horizon(ctx.R)
    tot = n = drawn = 0
    while n < MIN_PLAYS or (n < most and _valued(ctx) + drawn < PLAY_STATES):
        dist, k = _hundred_turns(ctx, rng, pick_o, h)
        tot += dist
        drawn += k
        n += 100
    dt = _turn_den(ctx) // SIDES ** (ctx.md.xe * ctx.R)
    return {"dist": tot, "den": n * dt, "sampled": n,
            "margin": _margin(n), "played": True, "h": h}


def _margin(n: int) -> float:
    """The 95 % margin of a proportion sampled ``n`` times (at its widest, p = 1/2)."""
    return round(1.96 * (0.25 / n) ** 0.5, 4)


def _hundred_turns(ctx: _Ctx, rng, pick_o, h: int) -> tuple:
    """A hundred turns played out by the advice (looking ``h`` rounds
    ahead), each from a first roll drawn die by die and, opposed, an
    opponent's first roll drawn by ``pick_o``: (their summed distributions,
    the dice drawn)."""
    md = ctx.md
    every = (md.live, 0, 0, md.every)
    tot = drawn = 0
    for _ in range(100):
        si = _reroll(md, 0, 0, every, rng)
        eng = _engine_for(ctx, pick_o(rng) if pick_o else None)
        _score, dist, k = _play(eng, ctx.R, si[0], si[1], True, h, rng)
        tot += dist
        drawn += k
    return tot, drawn


def _valued(ctx: _Ctx) -> int:
    """States the context's engines hold so far (values, rerolls, outcomes)."""
    return sum(len(e.t) + len(e.fm) + len(e.pd) + sum(map(len, e.vm.values())) + sum(map(len, e.em.values()))
               for e in ctx.engines.values())


def _play(eng: _Engine, r: int, state: int, agg: int, first: bool, h: int, rng) -> tuple:
    """One turn played out by the advice (looking ``h`` rounds ahead):
    the terminal's (score, dist) of the final dice, and the dice drawn."""
    md = eng.md
    drawn = 0
    while r > 0:
        choice = eng.decide(r, state, agg, first, h)
        if choice is None:
            break
        state, agg = _reroll(md, state, agg, choice, rng)
        drawn += choice[0]
        first = False
        r -= 1
    return eng.term(agg, first) + (drawn,)


def _reroll(md: _Model, state: int, agg: int, choice: tuple, rng) -> tuple:
    state -= choice[1]
    agg -= choice[2]
    for t, n in enumerate(md.per_type(choice[3])):
        cats = md.type_cats.get(t)
        for _ in range(n):
            slot = md.slot_of[(t, cats[rng.randrange(SIDES)])]
            state += md.sunit[slot]
            agg += md.aunit[slot]
    return state, agg


def _decode(ctx: _Ctx, packed: int, den: int) -> dict:
    """{value: p}, {outcome: p}, P(natural) of a packed distribution."""
    value: dict = {}
    weight = {o: 0 for o in OUTCOMES}
    natural = 0
    for idx, w in _fields(packed, ctx.F):
        v, o, nat = _unfield(idx)
        value[v] = value.get(v, 0) + w
        weight[OUTCOMES[o]] += w
        natural += w * nat
    # each figure is one division of exact integer weights (no float sums)
    figures = _figures(weight, den)
    return {"value": {v: w / den for v, w in value.items()}, "outcome": figures["outcome"],
            "natural": natural / den, "meets": figures["meets"], "success": figures["success"]}


def _fields(packed: int, F: int) -> list:
    """(index, weight) of each non-zero ``F``-bit field of a packed
    distribution, the lowest first."""
    mask = (1 << F) - 1
    out = []
    idx = 0
    while packed:
        w = packed & mask
        if w:
            out.append((idx, w))
        packed >>= F
        idx += 1
    return out


def _unfield(idx: int) -> tuple:
    """(successes on the dice, outcome, natural) of a field's index: the
    inverse of ``_field``."""
    v, rest = divmod(idx, 2 * len(OUTCOMES))
    return v, rest // 2, rest % 2


def _figures(weight: dict, den: int) -> dict:
    """The outcomes' chances, the chance to meet and the chance of success
    or better, of integer weights per outcome over ``den``."""
    return {"outcome": {o: w / den for o, w in weight.items()}, "meets": sum(weight[o] for o in MEETS) / den,
            "success": sum(weight[o] for o in _SUCCEEDS) / den}


# --------------------------------------------------------------------------
# Words: what the odds assume, and why the advice.

def _policy(spec: dict, ahead=None) -> str:
    """What the odds assume, in words. ``ahead``: the rounds the advice
    looks ahead when fewer than the turn has (0: the blank dice, unsearched)."""
    opp = spec["opponent"]
    text = ("Best play: each round the at most X dice, any dice or none, "
            "whose reroll gives the highest chance to meet the " + ("opponent" if opp else "difficulty")
            + ", then of success, then of a natural, then of no botch, then the fewest dice; later "
            "rounds played the same way; stopping keeps a first-roll natural's bonus. The natural's "
            "reward is taken as " + ("+1 and uncounterable (the best for meeting the bar), or \"let them "
                                     "react\" where that is as sure to succeed and may be critical"
                                     if opp else "the success bonus (the best for meeting the bar)")
            + " unless already chosen; cipher flips are not used.")
    if opp:
        text += (" Opposed: the initiator plays first, seeing the opponent's first roll; the opponent "
                 "then reacts to the initiator's final dice and plays to stop it: the lowest chance that "
                 "it meets, then succeeds, then is critical (wilds never count for the reactor).")
    return text + _policy_ahead(ahead)


def _policy_ahead(ahead) -> str:
    """What the odds assume past the work limit: the advice looks ``ahead``
    rounds ahead (0: it rerolls the blank dice; None: exact play, "")."""
    if ahead == 0:
        return (" With this many dice and this X, searching every choice would take too long: the "
                "advice rerolls the blank dice, those with the most useful faces first, and the odds "
                "are of that play.")
    if ahead is None:
        return ""
    return (f" With this many dice, rounds and X the advice looks {ahead} round"
            f"{'' if ahead == 1 else 's'} ahead (exact play would take too long), and the odds are "
            "of that play.")


def _design_name(design: tuple) -> str:
    return f"{design[0]} {design[1]}"


def _listing(items: list) -> str:
    items = list(dict.fromkeys(items))
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _missing(ctx: _Ctx, faces: list) -> list:
    """The shoresh letters a natural still lacks (a doubled one as often
    as it is short)."""
    out = []
    for ch, n in zip(ctx.letters, ctx.need):
        out += [ch] * max(0, n - faces.count(ch))
    return out


def _why(ctx: _Ctx, faces: list, dice: list, first: bool, left: int, stop_meets: float) -> str:
    """A short reason for the initiator's advice, from what the dice show."""
    if left <= 0:
        return "No reroll is left: the dice stand."
    natural_now = not _missing(ctx, faces)
    if not dice:
        return _why_keep(ctx, first and natural_now, stop_meets)
    parts = _why_parts(ctx, faces, dice)
    if first and natural_now:
        parts.append("this forfeits the first-roll bonus but gives the better chance")
    return _sentence(parts)


def _sentence(parts: list) -> str:
    """The reasons (empty ones left out) as one sentence."""
    text = "; ".join(p for p in parts if p)
    return text[:1].upper() + text[1:] + "."


def _why_keep(ctx: _Ctx, first_natural: bool, stop_meets: float) -> str:
    """Why no reroll is advised: a first-roll natural's bonus, the bar
    already met, or no reroll that helps."""
    if first_natural and ctx.spec["first_bonus"]:
        return (f"Keep the first-roll natural's bonus (+{ctx.spec['first_bonus']}): "
                "rerolling would forfeit it.")
    if stop_meets >= 1:
        return "The dice already meet the bar: no reroll raises the chance of success or a natural."
    return "No reroll of up to X dice raises the chance: keep the roll."


def _why_parts(ctx: _Ctx, faces: list, dice: list) -> list:
    """A reason per kind of die advised: blank, wild, spare or needed letter."""
    missing = _missing(ctx, faces)
    wilds, letters, blanks = _advised_kinds(ctx, faces, dice)
    parts = [_why_blanks(ctx, faces, blanks, missing, dice)] if blanks else []
    if wilds:
        parts.append(_why_wilds(len(wilds), missing))
    return parts + [_why_letter(ctx, faces, faces[i], missing) for i in letters]


def _advised_kinds(ctx: _Ctx, faces: list, dice: list) -> tuple:
    """The advised dice by what they show: (wilds that count, letters of
    the shoresh, the rest: blanks)."""
    wild = M.WILD if ctx.wc else None
    wilds = [i for i in dice if faces[i] == wild]
    letters = [i for i in dice if faces[i] in ctx.letters]
    blanks = [i for i in dice if i not in wilds and i not in letters]
    return wilds, letters, blanks


def _why_wilds(n: int, missing: list) -> str:
    return (("rerolling the wild" if n == 1 else "rerolling the wilds")
            + " may complete the natural" + (f" (missing {_listing(missing)})" if missing else ""))


def _why_letter(ctx: _Ctx, faces: list, ch: str, missing: list) -> str:
    """Why a die showing letter ``ch`` is advised: a spare, or given up."""
    if faces.count(ch) > ctx.need[ctx.letters.index(ch)]:
        return (f"a spare {ch} counts only as one success; rerolling it may show "
                + (_listing(missing) if missing else "another letter"))
    return f"giving up the {ch} is worth the chance at {_listing(missing) or 'more'}"


def _why_blanks(ctx: _Ctx, faces: list, blanks: list, missing: list, dice: list) -> str:
    """Why these blank dice and not the other blank dice: every blank die
    ("these dice show no letter", and where the missing letters sit only on
    their designs, say so: "ט and כ are only on red B"); else what the
    advised designs can show against those kept, and whether X or the
    chance left the others out (docs/RULES-DECISIONS.md: the why names what separates the
    advised dice)."""
    md = ctx.md
    n = len(blanks)
    kept = _blanks_kept(ctx, faces, dice)
    lead = "this die shows no letter of the shoresh" if n == 1 else f"these {n} dice show no letter of the shoresh"
    only = _only_on(ctx, faces, blanks, missing)
    if kept:
        return _why_some_blanks(ctx, blanks, kept, missing, len(dice) >= md.xe) + only
    return lead + only


def _blanks_kept(ctx: _Ctx, faces: list, dice: list) -> list:
    """The blank dice (no letter of the shoresh, no wild that counts) not
    among the advised ``dice``."""
    wild = M.WILD if ctx.wc else None
    return [i for i in range(len(faces)) if i not in dice and faces[i] not in ctx.letters and faces[i] != wild]


def _only_on(ctx: _Ctx, faces: list, blanks: list, missing: list) -> str:
    """", and ט and כ are only on red B" where the missing letters sit only
    on the designs of these dice (else "")."""
    md = ctx.md
    on = [set(M.die_faces(*design)) for design in md.designs]
    only = _only_letters(on, len(faces), blanks, missing)
    if not only:
        return ""
    where = _listing(list(dict.fromkeys(_design_name(md.designs[i]) for i in blanks if set(only) & on[i])))
    return f", and {_listing(only)} {'is' if len(only) == 1 else 'are'} only on {where}"


def _only_letters(on: list, n: int, blanks: list, missing: list) -> list:
    """The missing letters (each once) that some of the ``blanks`` can
    show and none of the other of the ``n`` dice can (``on``: each die's
    faces as a set)."""
    rest = set().union(*(on[i] for i in range(n) if i not in blanks))
    return [ch for ch in dict.fromkeys(missing) if ch not in rest and any(ch in on[i] for i in blanks)]


def _shows(ctx: _Ctx, design: tuple) -> str:
    """What of the shoresh a design can show: its letters, its wilds."""
    faces = M.die_faces(*design)
    parts = [" ".join(ch for ch in ctx.letters if ch in faces), _wilds_shown(ctx, faces)]
    text = ", ".join(p for p in parts if p)
    return text or "nothing that counts"


def _wilds_shown(ctx: _Ctx, faces: list) -> str:
    """"2 wilds": the wild faces of a design, when wilds count ("" else)."""
    w = faces.count(M.WILD) if ctx.wc else 0
    return f"{w} wild{'s' * (w != 1)}" if w else ""


def _designs_shown(ctx: _Ctx, dice: list) -> str:
    names = dict.fromkeys(ctx.md.designs[i] for i in dice)
    return _listing([f"{_design_name(d)} ({_shows(ctx, d)})" for d in names])


def _why_some_blanks(ctx: _Ctx, blanks: list, kept: list, missing: list, full: bool) -> str:
    """Some blank dice advised, others kept: the faces that separate them."""
    md = ctx.md
    advised = _designs_shown(ctx, blanks)
    others = _designs_shown(ctx, kept)
    alike = set(md.designs[i] for i in blanks) & set(md.designs[i] for i in kept)
    lack = f"; missing {_listing(missing)}" if missing else ""
    if full:
        text = (f"X = {md.xe} takes {len(blanks)} of the {len(blanks) + len(kept)} blank dice: those whose faces "
                f"count for the most, {advised}, over the blank {others}{lack}")
    else:
        text = (f"reroll the blank {advised}; rerolling the blank {others} as well would not raise the "
                f"chance{lack}")
    if alike:
        text += " (dice of one design are alike: which of them is rerolled does not matter)"
    return text


def _why_reactor(dice: list, left: int, now: int, kept_blank: bool) -> str:
    """Why the reaction: ``now`` is the initiator's outcome as the dice lie."""
    if left <= 0:
        return "No reroll is left for the opponent."
    if not dice:
        return _why_reactor_keeps(now)
    which = "the die" if len(dice) == 1 else f"the {len(dice)} dice"
    first = ", those most likely to show one first" if kept_blank else ""
    if now == _CRIT:
        return (f"Reroll {which} without a letter of the opponent's shoresh{first}: a success of the "
                "opponent's is the one chance to stop the critical and its hit location.")
    return (f"Reroll {which} without a letter of the opponent's shoresh{first}: only its successes stop "
            "the initiator.")


def _why_reactor_keeps(now: int) -> str:
    """Why the opponent keeps its roll: the initiator misses already, or
    no reroll can stop it."""
    if now not in _MEET_IDX:
        return "The initiator already misses: the opponent keeps the roll."
    return "No reroll can stop the initiator: the opponent keeps the roll."


# --------------------------------------------------------------------------
# After a roll: the advice and the odds of a choice, from the dice as they lie.

def _choice_of(md: _Model, where: list, dice: list):
    """The engine's choice for rerolling these dice (None: keep the roll;
    a dead die changes nothing but still spends the round)."""
    if not dice:
        return None
    size = rs = ra = m = oth = 0
    for i in dice:
        slot = where[i]
        if slot is None:
            continue
        t, c = md.slots[slot]
        size += 1
        rs += md.sunit[slot]
        ra += md.aunit[slot]
        m += md.tunit[t]
        oth += md.tunit[t] * (c == md.other)
    return size, rs, ra, m, oth


def _dice_of(md: _Model, where: list, choice) -> list:
    """The die indices of a choice: the first dice of each type and face."""
    if choice is None:
        return []
    out = []
    for slot, n in enumerate(md.decode(choice[1])):
        if n:
            out += _dice_in(where, slot)[:n]
    return sorted(out)


def _dice_in(where: list, slot: int) -> list:
    """The dice (in order) whose slot is ``slot`` (``where``: each die's)."""
    return [i for i, w in enumerate(where) if w == slot]


def _priced(eng: _Engine, r: int, state: int, agg: int, first: bool, choice, h: int, seed) -> tuple:
    """(packed distribution, denominator, samples) of playing ``choice`` now
    and the advice afterwards: exact when the advice sees every round left
    (or all but this one: then the advised play is evaluated state by
    state), else played out ``SAMPLES`` times with a seed from the question."""
    den = SIDES ** (eng.md.xe * r) * eng.dt
    if h >= r:
        return eng.dist(r, state, agg, first, choice), den, 0
    if h >= 1 and r <= h + 1:
        return _priced_then_advice(eng, r, state, agg, first, choice, h), den, 0
    return _priced_played(eng, r, state, agg, first, choice, h, seed), SAMPLES * eng.dt, SAMPLES


def _priced_then_advice(eng: _Engine, r: int, state: int, agg: int, first: bool, choice, h: int) -> int:
    """The packed distribution of ``choice`` now and then the advised play
    (which sees every round after this one), evaluated state by state."""
    if choice is None:
        return eng.term(agg, first)[1] * SIDES ** (eng.md.xe * r)
    return eng.then_advice(r, state, agg, choice, h)


def _priced_played(eng: _Engine, r: int, state: int, agg: int, first: bool, choice, h: int, seed) -> int:
    """The summed distributions of ``SAMPLES`` turns that play ``choice``
    now and then the advice, on a stream seeded by the question."""
    rng = random.Random(seed)
    tot = 0
    for _ in range(SAMPLES):
        s, a, f, left = state, agg, first, r
        if choice is not None:
            s, a = _reroll(eng.md, s, a, choice, rng)
            f, left = False, r - 1
        tot += _play(eng, left, s, a, f, h, rng)[1]
    return tot


def _who(st: dict, action) -> tuple:
    """(side, verb, dice) of an odds question after a roll."""
    sides = st["sides"]
    if action is None:
        return _side_to_play(sides), "best", None
    side = M.side_named(action, sides)
    verb = action.get("do")
    if verb not in ("reroll", "best"):
        raise SpecError("action", "odds are given for a reroll or the best play ('best')")
    if verb == "best":
        return side, verb, None
    return side, verb, _dice_listed(action.get("dice"), len(sides[side]["faces"]))


def _dice_listed(dice, n: int) -> list:
    """The distinct die numbers (0 to n - 1) a reroll names, sorted."""
    if not isinstance(dice, list) or not all(M.is_die_index(i, n) for i in dice) or len(set(dice)) != len(dice):
        raise SpecError("dice", f"must list die numbers from 0 to {n - 1}")
    return sorted(dice)


def _side_to_play(sides: dict) -> str:
    """The side a question without an action is about: the initiator, or
    the opponent once the initiator has no reroll left and it has one."""
    opponent = sides.get("opponent")
    if not sides["initiator"]["left"] and opponent and opponent["left"]:
        return "opponent"
    return "initiator"


def _check_reroll(spec: dict, st: dict, side: str, dice: list):
    x = M.x_per_side(spec)[side]
    if len(dice) > x:
        raise SpecError("dice", f"at most X = {x} dice may be rerolled")
    if dice and not st["sides"][side]["left"]:
        raise SpecError("action", f"reroll is not allowed now for the {side}")


def _summary_of(ctx: _Ctx, packed: int, den: int) -> dict:
    res = _decode(ctx, packed, den)
    return {"value": dist_to_json(res["value"]), "outcome": res["outcome"], "natural": res["natural"],
            "meets": res["meets"], "success": res["success"]}


def _initiator_engine(ctx: _Ctx, st: dict) -> tuple:
    si = st["sides"]["initiator"]
    md = ctx.md
    s, a, where = md.of_faces(si["faces"])
    if ctx.mo is None:
        eng = ctx.solo(si["reward"])
    else:
        so_ = st["sides"]["opponent"]
        so, ao, _w = ctx.mo.of_faces(so_["faces"])
        eng = ctx.versus(so, ao, so_["left"], si["reward"])
    return eng, s, a, where


def _advise_initiator(ctx: _Ctx, st: dict) -> dict:
    si = st["sides"]["initiator"]
    eng, s, a, where = _initiator_engine(ctx, st)
    r = si["left"]
    h = ctx.md.horizon(r)
    choice = eng.decide(r, s, a, si["first"], h)
    stop_meets = (eng.term(a, si["first"])[0] >> 5 * ctx.F) / eng.dt
    dice = _dice_of(ctx.md, where, choice)
    return {"eng": eng, "state": (s, a, where), "r": r, "h": h, "choice": choice, "dice": dice,
            "why": _why(ctx, si["faces"], dice, si["first"], r, stop_meets)}


def _reactor_engine(ctx: _Ctx, st: dict) -> tuple:
    si = st["sides"]["initiator"]
    matches, succ, natural = ctx.read(ctx.md.of_faces(si["faces"])[1])
    resp = ctx.responses(si["reward"], matches, succ, natural, si["first"] and natural)
    so, ao, where = ctx.mo.of_faces(st["sides"]["opponent"]["faces"])
    return ctx.reactor(resp), resp, so, ao, where


def _advise_opponent(ctx: _Ctx, st: dict) -> dict:
    eng, resp, so, ao, where = _reactor_engine(ctx, st)
    r = st["sides"]["opponent"]["left"]
    h = ctx.mo.horizon(r)
    choice = eng.decide(r, so, ao, False, h)
    dice = _dice_of(ctx.mo, where, choice)
    now = resp[min(ao, len(resp) - 1)]
    return {"eng": eng, "resp": resp, "state": (so, ao, where), "r": r, "h": h, "choice": choice,
            "dice": dice, "why": _why_reactor(dice, r, now, _blank_kept(ctx.mo, where, dice))}


def _blank_kept(md: _Model, where: list, dice: list) -> bool:
    """Some live die that shows no letter (``where``: each die's slot) is
    kept, not among the ``dice`` rerolled."""
    return any(w is not None and i not in dice and md.slots[w][1] == md.other for i, w in enumerate(where))


def _odds_initiator(ctx: _Ctx, st: dict, dice) -> dict:
    adv = _advise_initiator(ctx, st)
    eng, (s, a, where), r, h = adv["eng"], adv["state"], adv["r"], adv["h"]
    first = st["sides"]["initiator"]["first"]
    seed = spec_seed("milhamah", ctx.spec, [st["sides"]["initiator"]["faces"], dice])
    choice = adv["choice"] if dice is None else _choice_of(ctx.md, where, dice)
    d, den, n = _priced(eng, r, s, a, first, choice, h, seed)
    out = _summary_of(ctx, d, den)
    out.update(_priced_how(adv, dice, n))
    if n:
        upper = _upper_now(ctx, st, a, r)
        out.update({"sampled": n, "margin": _margin(n), "upper": _clamp(out, upper, "meets")})
    if dice is not None:
        out["best"] = _initiator_best(ctx, st, adv, seed)
    return out


def _initiator_best(ctx: _Ctx, st: dict, adv: dict, seed) -> dict:
    """Best play's figures, shown beside those of the reroll a question
    names (a sample held under its exact bounds, as the named one is)."""
    eng, (s, a, _where), r, h = adv["eng"], adv["state"], adv["r"], adv["h"]
    bd, bden, n = _priced(eng, r, s, a, st["sides"]["initiator"]["first"], adv["choice"], h, seed)
    best = _summary_of(ctx, bd, bden)
    if n:
        _clamp(best, _upper_now(ctx, st, a, r), "meets")
    return {"dice": adv["dice"], "meets": best["meets"], "success": best["success"],
            "natural": best["natural"], "why": adv["why"]}


def _upper_now(ctx: _Ctx, st: dict, agg: int, r: int) -> dict:
    """The exact bounds (``_upper``) from the initiator's dice as they lie,
    ``r`` rounds left, against the opponent's successes as they lie."""
    opp = None
    if ctx.mo is not None:
        opp = {ctx.mo.split(ctx.mo.of_faces(st["sides"]["opponent"]["faces"])[1])[0][0]: 1}
    return _upper(ctx, {agg: 1}, r, opp)


def _odds_opponent(ctx: _Ctx, st: dict, dice) -> dict:
    adv = _advise_opponent(ctx, st)
    eng, (so, ao, where), r, h, resp = adv["eng"], adv["state"], adv["r"], adv["h"], adv["resp"]
    seed = spec_seed("milhamah", ctx.spec, [st["sides"]["opponent"]["faces"], dice, "opponent"])
    choice = adv["choice"] if dice is None else _choice_of(ctx.mo, where, dice)
    d, den, n = _priced(eng, r, so, ao, False, choice, h, seed)
    out = _reaction_summary(ctx, d, den, resp)
    out.update(_priced_how(adv, dice, n))
    if n:
        out.update({"sampled": n, "margin": _margin(n)})
    if dice is not None:
        out["best"] = _opponent_best(ctx, adv, seed)
    return out


def _priced_how(adv: dict, dice, n: int) -> dict:
    """What the odds after a roll price (the dice named, else the advice's),
    whether exactly (``n`` samples), the advice's why, and the rounds the
    advice looks ahead when fewer than are left (``_ahead``, else None)."""
    r, h = adv["r"], adv["h"]
    return {"dice": adv["dice"] if dice is None else dice, "exact": not n, "why": adv["why"],
            "_ahead": h if h < r else None}


def _opponent_best(ctx: _Ctx, adv: dict, seed) -> dict:
    """The reaction best play makes, beside a named reroll's figures."""
    eng, (so, ao, _where), r, h = adv["eng"], adv["state"], adv["r"], adv["h"]
    best = _reaction_summary(ctx, *_priced(eng, r, so, ao, False, adv["choice"], h, seed)[:2], adv["resp"])
    return {"dice": adv["dice"], "meets": best["meets"], "success": best["success"], "why": adv["why"]}


def _reaction_summary(ctx: _Ctx, packed: int, den: int, resp: tuple) -> dict:
    """The opponent's successes (``value``) and the initiator's outcome."""
    value = {}
    weight = {o: 0 for o in OUTCOMES}
    for mo, w in _fields(packed, ctx.F):
        value[mo] = w / den
        weight[OUTCOMES[resp[mo]]] += w
    return {"value": dist_to_json(value), **_figures(weight, den)}


def _odds_after(spec: dict, result, action) -> dict:
    track = M.load_track(spec, result)
    st = _state(spec, track=track)
    side, _verb, dice = _who(st, action)
    if dice is not None:
        _check_reroll(spec, st, side, dice)
    ctx = _ctx(spec)
    out = _odds_initiator(ctx, st, dice) if side == "initiator" else _odds_opponent(ctx, st, dice)
    ahead = out.pop("_ahead")
    out.update({"side": side, "now": st["outcome"], "policy": _policy(spec, ahead)})
    _why_of_decision(_decided(ctx, st, track, result), side, out)
    return out


def _why_of_decision(decision: dict, side: str, out: dict) -> None:
    """Best play's ``why`` in these odds is the decision's own line
    (``rules.advise``'s ``why``) when ``side`` is the side about to act, and
    for an advised reroll why those dice: it matches the advised action (a
    natural's reward, a stand, a reroll), not only the reroll."""
    adv = decision["advice"]
    if adv is None or adv.get("side", "initiator") != side or not decision.get("why"):
        return
    why = " ".join(w for w in (decision["why"], decision.get("dice_why")) if w)
    if "best" in out:
        out["best"]["why"] = why
    else:
        out["why"] = why


def best_reroll(spec: dict, result, side: str = "initiator") -> list:
    """The advised die indices for ``side`` ([] = keep the roll, also when
    no reroll is allowed).

    >>> from rules.milhamah import normalize
    >>> from rules.dice import ScriptedRng
    >>> import rules
    >>> spec = normalize({"shoresh": "טכ", "pool": {"red": 2}, "rerolls": 1, "difficulty": 1})
    >>> r = rules.roll("milhamah", spec, ScriptedRng([1, 12]))   # א on red A, ע on red B
    >>> best_reroll(spec, r)
    [1]
    """
    st = _state(spec, result)
    if side not in st["sides"]:
        raise SpecError("side", "must be initiator" + (" or opponent" if spec["opponent"] else ""))
    return _advice(_ctx(spec), st, side)


def _advice(ctx: _Ctx, st: dict, side: str) -> list:
    if not st["sides"][side]["left"]:
        return []
    adv = _advise_initiator(ctx, st) if side == "initiator" else _advise_opponent(ctx, st)
    return adv["dice"]


# --------------------------------------------------------------------------
# The decision at hand (``rules.advise``): every action the rules allow the
# side about to act, priced when played best afterwards, and best play's.

def advise(spec: dict, result: dict) -> dict:
    """``best_reroll`` (and, opposed, the opponent's: [] until its reaction
    is due), ``advice`` (the action best play takes now, as ``rules.act``
    takes it; None when no step is open) and ``choices`` (each allowed
    action worth a tap, priced when played best afterwards). The state is
    rebuilt from the result's ``stages``; no advice key of the result is
    read. Cipher flips are never advised nor listed (docs/RULES-DECISIONS.md).

    >>> import rules
    >>> from rules.dice import ScriptedRng
    >>> spec = rules.normalize("milhamah", {"shoresh": "אר", "pool": {"green": 2}, "rerolls": 1,
    ...                                     "difficulty": 5})
    >>> r = rules.roll("milhamah", spec, ScriptedRng([1, 11]), advise=False)  # א, ר: a natural
    >>> a = advise(spec, r)
    >>> a["advice"], [(c["action"].get("reward"), c["meets"]) for c in a["choices"][1:]]
    ({'do': 'natural', 'reward': 'successes'}, [('successes', 1.0), ('merit', 0.0)])
    """
    track = M.load_track(spec, result)
    st = _state(spec, track=track)
    ctx = _ctx(spec)
    out: dict = {"best_reroll": _advice(ctx, st, "initiator")}
    opp = result.get("opponent")
    if "opponent" in st["sides"] and isinstance(opp, dict):
        due = st["sides"]["opponent"]["now"]
        out["opponent"] = {**opp, "best_reroll": _advice(ctx, st, "opponent") if due else []}
    decided = _decided(ctx, st, track, result)
    decided.pop("dice_why", None)
    out.update(decided)
    return out


_DECISION_CACHE: dict = {}


def _decided(ctx: _Ctx, st: dict, track: dict, result: dict) -> dict:
    """``_decision``, kept per spec and stages: the page asks for the
    advice and then for the odds of the same result, whose why is the
    decision's (the choices are priced once). A copy: callers may add to it."""
    key = json.dumps([ctx.spec, result.get("stages")], sort_keys=True, ensure_ascii=False, default=str)
    hit = _DECISION_CACHE.get(key)
    if hit is None:
        hit = _keep(_DECISION_CACHE, 16, key, _decision(ctx, st, track))
    return json.loads(json.dumps(hit))


def _decision(ctx: _Ctx, st: dict, track: dict) -> dict:
    """``advice``, ``choices`` (each with its ``label`` and ``marks``) and
    ``why`` (``choices.worded``) for the side about to act."""
    spec = ctx.spec
    ev = M.evaluate(spec, track)
    allowed = M.allowed_verbs(spec, track, ev)
    turn = M.whose_turn(spec, track, ev, allowed)
    if turn == "initiator":
        out = _initiator_choices(ctx, st, allowed["initiator"])
    elif turn == "opponent":
        out = _opponent_choices(ctx, st)
    elif "hit_location" in allowed["initiator"]:
        out = _hit_location_choice(spec, st)
    else:
        return {"advice": None, "choices": []}
    reason = out.pop("dice_why", "") if (out["advice"] or {}).get("do") == "reroll" else ""
    return {"advice": out["advice"], **W.worded(out["choices"], out["advice"], spec), "dice_why": reason}


def _hit_location_choice(spec: dict, st: dict) -> dict:
    """The one step left after a final critical: rolling the hit location
    (advised; the outcome is already sure)."""
    act = _act(spec, {"do": "hit_location"}, "initiator")
    return {"advice": act, "choices": [_entry(act, _certain(OUTCOMES.index(st["outcome"])), 0)]}


def _act(spec: dict, action: dict, side: str) -> dict:
    """An action as ``rules.act`` takes it: with its side when opposed."""
    return {**action, "side": side} if spec["opponent"] else action


def _certain(o: int) -> dict:
    """The odds of an outcome already settled (index ``o``): it is sure."""
    return {"outcome": {x: float(i == o) for i, x in enumerate(OUTCOMES)}, "meets": float(o in _MEET_IDX),
            "success": float(o in _SUCC_IDX)}


def _entry(action: dict, summ: dict, n: int, **extra) -> dict:
    """A choice: the action and its odds (the initiator's outcome)."""
    out = {"action": action, "outcome": summ["outcome"], "exact": not n, "meets": summ["meets"],
           "success": summ["success"], "critical": summ["outcome"]["critical_success"],
           "botch": summ["outcome"]["botch"]}
    if "natural" in summ:
        out["natural"] = summ["natural"]
    if n:
        out.update(sampled=n, margin=_margin(n))
    out.update(extra)
    return out


def _reroll_listed(adv: dict, md: _Model) -> list:
    """The dice of the reroll a side's choices list: the advised ones, or
    when the advice keeps the roll the best reroll all the same."""
    return adv["dice"] if adv["choice"] is not None else _listed_reroll(adv["eng"], md, adv)


def _listed_reroll(eng: _Engine, md: _Model, adv: dict) -> list:
    """The reroll listed beside advice that keeps the roll: the best of
    every reroll of at most X dice by the side's own order (its chances,
    then the fewest dice, then the rest of the order). The engine's
    choices leave out rerolls that another choice or keeping the roll
    weakly beats; those that only keeping beats reduce, a die at a time, to
    a single die, or to rerolling nothing at all but spending the round,
    which a dead die (one that can show nothing that counts) does; so the
    candidates are the engine's choices and the fewer dice tied with them,
    every single die, and one dead die. Past the work limit (no round
    searched) the advice's own reroll of the blank dice stands for them."""
    r, h, (s, a, where) = adv["r"], adv["h"], adv["state"]
    if r <= 0:
        return []
    counts = md.decode(s)
    choice = md.heuristic(counts) if h <= 0 and md.xe else None
    if choice is not None:
        return _dice_of(md, where, choice)
    dead = [i for i, w in enumerate(where) if w is None]
    scored = _scored_rerolls(eng, md, max(1, min(h, r)), s, a, h > 0)
    if dead:
        scored.append((eng.cand_value(max(1, min(h, r)), s, a, (0, 0, 0, 0, 0)), -1, None))
    return _best_scored(eng, md, where, scored, dead)


def _best_scored(eng: _Engine, md: _Model, where: list, scored: list, dead: list) -> list:
    """The dice of the best of the ``scored`` rerolls by the side's order
    (its chances, then the fewest dice, then the rest of the order); the
    reroll of nothing is that of the first ``dead`` die ([] when none)."""
    if not scored:
        return []
    _v, _n, best = max(scored, key=lambda e: (e[0] >> eng.low, e[1], e[0]))
    return dead[:1] if best is None else _dice_of(md, where, best)


def _scored_rerolls(eng: _Engine, md: _Model, r: int, s: int, a: int, search: bool) -> list:
    """(score, -dice, choice) of every single die and, when ``search``,
    the engine's choices with r rounds left and the fewer dice tied with
    the best of them."""
    cands = list(md.choices(md.decode(s), r == 1)) if search and md.xe else []
    cands += _single_dice(md, md.decode(s))
    scored = [(eng.cand_value(r, s, a, c), -c[0], c) for c in cands]
    if scored and search:
        scored += _fewer_tied(eng, r, s, a, scored)
    return scored


def _fewer_tied(eng: _Engine, r: int, s: int, a: int, scored: list) -> list:
    """(score, -dice, choice) of the rerolls of fewer dice that tie with
    the best of the ``scored`` ones (the engine's ``_fewer``)."""
    top = max(v >> eng.low for v, _n, _c in scored)
    tied = [c for v, _n, c in scored if v >> eng.low == top]
    return [(eng.cand_value(r, s, a, c), -c[0], c) for c in eng._fewer(r, s, a, tied, top)]


def _single_dice(md: _Model, counts: list) -> list:
    """The reroll of each one live die, one per slot (type and face kind)."""
    out = []
    for slot, n in enumerate(counts):
        if n:
            t, c = md.slots[slot]
            u = md.tunit[t]
            out.append((1, md.sunit[slot], md.aunit[slot], u, u if c == md.other else 0))
    return out


def _initiator_choices(ctx: _Ctx, st: dict, verbs: list) -> dict:
    """The initiator's choices: its best reroll, keeping the dice (accept,
    or stand opposed), each reward of a natural on the table."""
    adv = _advise_initiator(ctx, st) if "reroll" in verbs else None
    out = _initiator_reroll(ctx, st, adv) if adv is not None else []
    out += [_initiator_keep(ctx, st, verb) for verb in ("accept", "stand") if verb in verbs]
    rewards = [_reward_choice(ctx, st, rw) for rw in M.rewards(ctx.spec)] if "natural" in verbs else []
    out += rewards
    return {"advice": _initiator_advice(adv, out, rewards), "choices": out, "dice_why": adv["why"] if adv else ""}


def _initiator_advice(adv, out: list, rewards: list):
    """The initiator's advised action: the reroll best play makes (first of
    ``out``), else the best reward of a natural, else keeping the dice."""
    if adv is not None and adv["choice"] is not None:
        return out[0]["action"]
    if rewards:
        return max(rewards, key=_reward_rank)["action"]
    return next((c["action"] for c in out if c["action"]["do"] in ("accept", "stand")), None)


def _reward_rank(c: dict) -> tuple:
    """The initiator's order of a natural's rewards: meets, succeeds, a
    natural, no botch, then a critical, a natural success; on equal odds
    the Merit Point (a bonus the success bonus adds nothing to)."""
    key = tuple(round(c[k], 12) for k in ("meets", "success", "natural", "critical"))
    return key + (round(c["outcome"]["natural_success"], 12), c["action"].get("reward") == "merit")


def _initiator_reroll(ctx: _Ctx, st: dict, adv: dict) -> list:
    """The initiator's reroll choice, priced: that of the advice, or the
    best reroll when the advice keeps the roll ([] when none is listed)."""
    dice = _reroll_listed(adv, ctx.md)
    if not dice:
        return []
    si = st["sides"]["initiator"]
    eng, (s, a, where), r, h = adv["eng"], adv["state"], adv["r"], adv["h"]
    seed = spec_seed("milhamah", ctx.spec, [si["faces"], dice])
    d, den, n = _priced(eng, r, s, a, si["first"], _choice_of(ctx.md, where, dice), h, seed)
    return [_entry(_act(ctx.spec, {"do": "reroll", "dice": dice}, "initiator"), _summary_of(ctx, d, den), n)]


def _initiator_keep(ctx: _Ctx, st: dict, verb: str) -> dict:
    """Accept (unopposed) or stand (opposed: the opponent's best reaction
    follows): the dice as they lie."""
    si = st["sides"]["initiator"]
    eng, _s, a, _w = _initiator_engine(ctx, st)
    summ = _summary_of(ctx, eng.term(a, si["first"])[1], eng.dt)
    extra = {"void_reaction": 0.0} if ctx.spec["opponent"] else {}
    return _entry(_act(ctx.spec, {"do": verb}, "initiator"), summ, 0, **extra)


def _reward_choice(ctx: _Ctx, st: dict, reward: str) -> dict:
    """A natural's reward, which ends the initiator's turn: the outcome it
    gives; "let them react" against the opponent's best reaction, which
    plays to stop the critical too ("The Natural Shoresh")."""
    spec = ctx.spec
    si = st["sides"]["initiator"]
    matches, succ, natural = ctx.read(ctx.md.of_faces(si["faces"])[1])
    first = si["first"] and natural
    act = _act(spec, {"do": "natural", "reward": reward}, "initiator")
    if reward != "critical":
        summ = {**_certain(_outcome(spec, reward, matches, succ, natural, first, 0)), "natural": float(natural)}
        extra = {"void_reaction": 1.0} if reward == "uncounterable" else {}
        return _entry(act, summ, 0, **extra)
    resp = ctx.responses(reward, matches, succ, natural, first)
    summ, n = _reaction_to_critical(ctx, st, resp)
    return _entry(act, summ, n, void_reaction=0.0)


def _reaction_to_critical(ctx: _Ctx, st: dict, resp: tuple) -> tuple:
    """(odds, samples) of "let them react" (``resp``: the initiator's
    outcome per opponent successes): the opponent's best reaction, played
    to stop the critical, priced from its dice as they lie."""
    spec = ctx.spec
    si = st["sides"]["initiator"]
    so_ = st["sides"]["opponent"]
    so, ao, _where = ctx.mo.of_faces(so_["faces"])
    eng = ctx.reactor(resp)
    r = so_["left"]
    h = ctx.mo.horizon(r)
    seed = spec_seed("milhamah", spec, [si["faces"], so_["faces"], "critical"])
    d, den, n = _priced(eng, r, so, ao, False, eng.decide(r, so, ao, False, h), h, seed)
    summ = _reaction_summary(ctx, d, den, resp)
    summ["natural"] = 1.0
    return summ, n


def _opponent_choices(ctx: _Ctx, st: dict) -> dict:
    """The reactor's choices: its best reroll and standing."""
    adv = _advise_opponent(ctx, st)
    eng, resp, (so, ao, where), r, h = adv["eng"], adv["resp"], adv["state"], adv["r"], adv["h"]
    out = []
    dice = _reroll_listed(adv, ctx.mo)
    if dice:
        seed = spec_seed("milhamah", ctx.spec, [st["sides"]["opponent"]["faces"], dice, "opponent"])
        d, den, n = _priced(eng, r, so, ao, False, _choice_of(ctx.mo, where, dice), h, seed)
        out.append(_entry(_act(ctx.spec, {"do": "reroll", "dice": dice}, "opponent"),
                          _reaction_summary(ctx, d, den, resp), n))
    stand = _act(ctx.spec, {"do": "stand"}, "opponent")
    out.append(_entry(stand, _reaction_summary(ctx, eng.term(ao, False)[1], 1, resp), 0))
    return {"advice": out[0]["action"] if adv["choice"] is not None else stand, "choices": out, "dice_why": adv["why"]}


# --------------------------------------------------------------------------
# Before a roll.

_ODDS_CACHE: dict = {}
_RANKING_CACHE: dict = {}


def _whole(spec: dict, limit=None) -> dict:
    """The prior of one spec on a fresh context (so the same question gets
    the same answer), then kept for the advice after a roll. An exact
    prior is shared by every spec with the same ``_signature`` (e.g. two
    colour pairs whose dice look alike to this shoresh). ``limit``: the
    states it may value exactly (None: ``STATE_LIMIT``)."""
    ctx = _keep(_CTX_CACHE, 16, json.dumps(spec, sort_keys=True, ensure_ascii=False), _Ctx(spec))
    sig = _signature(ctx)
    hit = _PRIOR_CACHE.get(sig)
    if hit is not None:
        return dict(hit)
    pr = _prior(ctx, limit)
    if pr["sampled"]:
        pr["upper"] = _upper(ctx)
    pr["final"] = _decode(ctx, pr["dist"], pr["den"])
    pr["first"] = _decode(ctx, pr["dist0"], pr["den0"])
    pr["R"] = ctx.R
    if not pr["sampled"]:
        _keep(_PRIOR_CACHE, 64, sig, pr)
    return dict(pr)


_PRIOR_CACHE: dict = {}


def _signature(ctx: _Ctx) -> str:
    """What the exact prior depends on: each side's dice types (face
    counts per category, with the letters relabelled to the smallest
    form: the odds do not depend on which letter is which) and their
    numbers, X, the rounds, and the spec's fields the outcome reads."""
    md = ctx.md
    spec = ctx.spec
    parts = [_relabelled_types(md, ctx.need), ctx.need, ctx.wc, md.xe, ctx.R, M.needed_successes(spec, 0)[1],
             spec["difficulty"], spec["pocketed"], spec["first_bonus"], len(spec["shoresh"])]
    if ctx.mo is not None:
        parts += [sorted(zip(ctx.mo.weights, ctx.mo.count)), ctx.mo.xe, ctx.Ro]
    return json.dumps(parts)


def _relabelled_types(md: _Model, need: list) -> tuple:
    """The dice types and their numbers, sorted, with the letters
    relabelled (among letters of equal need) to the smallest form."""
    k = md.k
    return min(tuple(sorted((tuple(w[q[j]] for j in range(k)) + w[k:], n)
                            for w, n in zip(md.weights, md.count))) for q in _relabellings(need))


def odds(spec: dict, result=None, action=None) -> dict:
    """Before a roll (``result`` None): the whole turn played best (module
    docstring). After a roll: the odds of the side about to act playing
    best, or of the reroll ``action`` names followed by best play.

    >>> from rules.milhamah import normalize
    >>> o = odds(normalize({"shoresh": "אשר", "pool": ["red", "green"], "rerolls": 3}))
    >>> round(sum(o["outcome"].values()), 9), o["exact"]
    (1.0, True)
    """
    if result is not None:
        return _odds_after(spec, result, action)
    key = json.dumps(spec, sort_keys=True, ensure_ascii=False)
    if key not in _ODDS_CACHE:
        _keep(_ODDS_CACHE, 32, key, json.dumps(_odds_before(spec)))
    out = json.loads(_ODDS_CACHE[key])
    out["value"] = {int(k): v for k, v in out["value"].items()}
    return out


def _odds_before(spec: dict) -> dict:
    pr = _whole(spec)
    final, first = pr["final"], pr["first"]
    out = {
        "value": dist_to_json(final["value"]),
        "outcome": final["outcome"],
        "exact": "margin" not in pr,
        "meets_first": first["meets"],
        "meets_final": final["meets"],
        "success": final["success"],
        "natural_first": first["natural"],
        "natural": final["natural"],
        "botch_first": first["outcome"]["botch"],
        "botch": final["outcome"]["botch"],
        "policy": _policy(spec, pr["h"] if pr.get("played") and pr["h"] < pr["R"] else None),
        "rounds": spec["rounds"],
    }
    if "margin" in pr:
        _add_sampled(out, pr)
    out["colours_rounds"] = min(spec["rounds"], 1)
    out["colours"] = _colours(spec, pr if spec["rounds"] <= 1 else None)
    return out


def _add_sampled(out: dict, pr: dict) -> None:
    """A sampled prior's figures (in place): its turns, its margin, the
    exact bounds it is held under, and the note that says so."""
    out["sampled"] = pr["sampled"]
    out["margin"] = pr["margin"]
    out["upper"] = _clamp(out, pr["upper"])
    out["note"] = _sampled_note(pr, out["upper"])


def _clamp(out: dict, upper: dict, meets: str = "meets_final") -> dict:
    """Hold sampled figures at or below their exact upper bounds
    (``_upper``): a chance to meet above its bound moves the excess of the
    outcomes that meet to failure, one to succeed above its bound moves it
    to success at a cost. Returns each bound and whether it bit."""
    bit = {}
    for name, kept, to in (("meets", MEETS, "failure"), ("success", _SUCCEEDS, "success_at_cost")):
        bit[name] = _hold(out["outcome"], kept, to, upper[name])
    out[meets] = sum(out["outcome"][o] for o in MEETS)
    out["success"] = sum(out["outcome"][o] for o in _SUCCEEDS)
    bit["natural"] = out["natural"] > upper["natural"]
    out["natural"] = min(out["natural"], upper["natural"])
    return {name: {"p": upper[name], "clamped": bit[name]} for name in ("meets", "success", "natural")}


def _hold(outcome: dict, kept: tuple, to: str, bound: float) -> bool:
    """Hold the chance of the ``kept`` outcomes at ``bound``, each scaled
    alike and the excess moved to outcome ``to``; True when it bit."""
    have = sum(outcome[o] for o in kept)
    if have <= bound:
        return False
    f = bound / have
    for o in kept:
        outcome[to] += outcome[o] * (1 - f)
        outcome[o] *= f
    return True


def _sampled_note(pr: dict, upper: dict) -> str:
    margin = f"95 % margin ±{pr['margin'] * 100:.1f} points"
    bound = ("at most {:.1f} % to meet under any play (exact bound: rerolled dice keep their old face too)"
             .format(upper["meets"]["p"] * 100))
    clamped = [name for name, u in upper.items() if u["clamped"]]
    if clamped:
        bound += "; the sample's " + " and ".join(clamped) + " held to " + ("it" if clamped == ["meets"] else "their bounds")
    return (f"sampled: {pr['sampled']} seeded turns played by the advice ({margin}; {bound}); "
            "the first-roll figures are exact; exact enumeration of every play is too big for this many "
            "dice, rounds and X")


def _colours(spec: dict, own=None) -> list:
    """The colour pairs for this shoresh, best first (ties keep colour
    order), each played best over at most one reroll round; pairs a status
    forbids are left out. Cached by the spec without its pool, so switching
    pairs on the tab reuses it."""
    if not _two_colours(spec):
        return []  # not a choice of two colours (e.g. all three, 12 dice): nothing to rank
    key = _ranking_key(spec)
    if key not in _RANKING_CACHE:
        _keep(_RANKING_CACHE, 64, key, _rank_pairs(spec, own))
    return [dict(row) for row in _RANKING_CACHE[key]]


def _two_colours(spec: dict) -> bool:
    """The pool is of exactly two colours (a choice of a pair)."""
    return sum(1 for c in M.COLOURS if spec["pool"].get(c)) == 2


def _ranking_key(spec: dict) -> str:
    """The ranking cache's key: the spec without its pool (every pair of
    colours is ranked alike whichever pair is chosen)."""
    return json.dumps({k: v for k, v in spec.items() if k != "pool"}, sort_keys=True, ensure_ascii=False)


def _pair_specs(spec: dict) -> list:
    """The spec with each allowed pair of colours as its pool (one reroll
    round at most), and each one's dice; [] when the roll is not a choice
    of two colours, or when every pair gives the same dice (a +4D status
    fills all three colours): then no pair is better than another and
    nothing is ranked. A single pair left by a forbidden colour is listed."""
    out = _allowed_pairs(spec)
    if len(out) > 1 and len({json.dumps(d) for *_x, d in out}) == 1:
        return []
    return [(a, b, s2) for a, b, s2, _d in out]


def _allowed_pairs(spec: dict) -> list:
    """(a, b, spec, dice) of each pair of colours no status forbids whose
    dice can be rolled (a pair that cannot is left out)."""
    out = []
    for a, b in combinations([c for c in M.COLOURS if c not in spec["forbid"]], 2):
        s2 = _pair_spec(spec, a, b)
        try:
            out.append((a, b, s2, sorted(M.dice_of(s2))))
        except SpecError:
            continue
    return out


def _pair_spec(spec: dict, a: str, b: str) -> dict:
    """The spec with colours a and b as its pool (every die of each) and at
    most one reroll round: the roll a colour pair's row is ranked on."""
    return {**spec, "pool": {c: M.DICE_PER_COLOUR if c in (a, b) else 0 for c in M.COLOURS},
            "rounds": min(spec["rounds"], 1)}


#: States each colour pair's prior may value exactly in the ranking (three
#: pairs share ``STATE_LIMIT``); past it the pair is sampled like a whole
#: turn (``MIN_PLAYS`` turns), its row says so (``exact``, ``margin``) and
#: is held under its bound.
PAIR_LIMIT = STATE_LIMIT // 3


def _rank_pairs(spec: dict, own) -> list:
    rows = []
    for a, b, s2 in _pair_specs(spec):
        pr = own if own is not None and s2 == spec else _whole(s2, PAIR_LIMIT)
        rows.append(_pair_row(a, b, pr))
    rows.sort(key=lambda r: -round(r["meets"], 12))
    return rows


def _pair_row(a: str, b: str, pr: dict) -> dict:
    """A colour pair's row of the ranking from its prior; a sampled prior's
    figures held under their exact bounds, with its margin."""
    f = pr["final"]
    row = {"pair": [a, b], "meets": f["meets"], "natural": f["natural"], "botch": f["outcome"]["botch"],
           "exact": "margin" not in pr}
    if "margin" in pr:
        row.update({"meets": min(f["meets"], pr["upper"]["meets"]),
                    "natural": min(f["natural"], pr["upper"]["natural"]), "margin": pr["margin"]})
    return row

