"""Milhamah's odds (RULES-NOTES Milhamah 6): exact, by die type and face
category, never by 12^n outcomes; sampled, seeded by the spec, when the
enumeration is too big. ``rules.milhamah.odds`` delegates here.
"""

from __future__ import annotations

import json
import random

from .dice import SpecError, dist_to_json, spec_seed
from .milhamah import (COLOURS, NATURAL_REWARDS, OPPOSED_REWARDS, OUTCOMES, SIDES, WILD,
                       _allowed, _evaluate, _load_track, _need, _needed, _side_spec, _xs,
                       dice_of, die_faces)

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

    >>> from rules.milhamah import normalize
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
