"""ALKEMY (its rules text, machine-translated from French:
"jet" = roll, "figurine" = character).

"Jet characteristic": roll two dice in the colour of the character's health
(white, yellow or red), add the characteristic; the roll succeeds when the
total is equal to or greater than the difficulty. "In opposition" both sides
roll; the higher total wins, equal totals go to the higher characteristic,
and equal characteristics "start again until one of them wins". Bonus and
malus dice: net = bonus - malus, at most four dice thrown and two kept; a
bonus lets the player keep any two, a malus keeps the two lowest.

Decisions where the text is silent: RULES-NOTES ALKEMY 1-3 (faces and
symbols as data, the net clamped to +-2, the reroll cap); hands still tied
at the cap are the outcome ``tie``: the GM decides.

A result is a function of the spec and its recorded stages: ``act`` and the
odds of a ``keep`` rebuild the state by replaying the stages
(``rules.stages``). The prose is ``explain``'s.

>>> from rules.dice import ScriptedRng
>>> r = roll(normalize({"characteristic": 8, "difficulty": 15}), ScriptedRng([3, 4]))
>>> r["value"], r["outcome"], r["margin"]
(15, 'success', 0)
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import Any

from ..dice import Die, SpecError, show_value, check_keys, dist_to_json, get_choice, get_int
from ..stages import rebuild
from ..system import check_action
from . import choices as W
from .explain import explain
from .tables import (DEFAULT_FACES, FACE_SETS, HEALTH, KEPT, MAX_NET, MAX_THROWN, SYMBOLS, default_keep,
                     describe_net, net_dice)

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "STEPS", "HEALTH", "FACE_SETS", "SYMBOLS", "normalize",
           "roll", "act", "odds", "advise", "net_dice", "face_table"]

NAME = "alkemy"
TITLE = "ALKEMY"

#: ``tie``: still tied at the reroll cap, the GM decides (RULES-NOTES ALKEMY 3).
OUTCOMES = ("failure", "tie", "success")

SIDES = ("initiator", "opponent")

#: The steps after a roll: ``keep`` another pair, ``accept`` the pair as it
#: lies (docs/RULES-DECISIONS.md, ALKEMY).
STEPS = {"keep": ("dice", "side"), "accept": ("side",)}
VERBS = tuple(STEPS)

MAX_CHARACTERISTIC = 30
MAX_DIFFICULTY = 99
MAX_BONUS = 10
#: "players start again until one of them wins": bounded (RULES-NOTES ALKEMY 3).
DEFAULT_REROLL_CAP = 20
MAX_REROLL_CAP = 100

SPEC_KEYS = ("characteristic", "difficulty", "opponent", "bonus", "malus", "health",
             "faces", "max_rerolls")
OPPONENT_KEYS = ("characteristic", "bonus", "malus", "health")

DEFAULT_SPEC = {"characteristic": 8, "difficulty": 15, "health": "white",
                "bonus": 0, "malus": 0, "faces": "plain"}


def face_table(faces: str = DEFAULT_FACES) -> dict:
    """The faces of each colour's die in a face set, for the page's reference.

    >>> face_table("by_health")["red"]
    [{'value': 1, 'symbol': 'axe'}, {'value': 2, 'symbol': 'sword'}, {'value': 3, 'symbol': 'mace'}, {'value': 4, 'symbol': 'axe'}]
    """
    entry = FACE_SETS[faces]
    out: dict[str, Any] = {"label": entry["label"]}
    for colour in HEALTH:
        out[colour] = [{"value": v, "symbol": s} for v, s in entry[colour]]
    return out


# --------------------------------------------------------------------------
# The spec.

def _side_spec(spec: dict, prefix: str, defaults: dict) -> dict:
    return {
        "characteristic": get_int(spec, "characteristic", 0, MAX_CHARACTERISTIC,
                                  default=defaults.get("characteristic", ...),
                                  field=prefix + "characteristic"),
        "bonus": get_int(spec, "bonus", 0, MAX_BONUS, default=0, field=prefix + "bonus"),
        "malus": get_int(spec, "malus", 0, MAX_BONUS, default=0, field=prefix + "malus"),
        "health": get_choice(spec, "health", HEALTH, default="white", field=prefix + "health"),
    }


def normalize(spec: Any) -> dict:
    """Validate every field and fill every default.

    ``difficulty`` (a roll against a number) or ``opponent`` (an opposed
    roll: ``{characteristic, bonus, malus, health}``), never both.
    ``faces``: ``plain`` (1-6 for every colour, the default) or
    ``by_health`` (white 1-6, yellow 1-5, red 1-4), RULES-NOTES ALKEMY 1.

    >>> normalize({"characteristic": "2", "health": "Yellow", "opponent": {"characteristic": 5}})["opponent"]
    {'characteristic': 5, 'bonus': 0, 'malus': 0, 'health': 'white'}
    >>> normalize({"bonus": -1})
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: bonus: must be a whole number from 0 to 10 (got -1)
    """
    check_keys(spec, SPEC_KEYS)
    out = _side_spec(spec, "", DEFAULT_SPEC)
    opp = spec.get("opponent")
    if opp is not None:
        check_keys(opp, OPPONENT_KEYS, field="opponent")
        if spec.get("difficulty") is not None:
            raise SpecError("difficulty", "give a difficulty or an opponent, not both")
        out["difficulty"] = None
        out["opponent"] = _side_spec(opp, "opponent.", {})
    else:
        out["difficulty"] = get_int(spec, "difficulty", 0, MAX_DIFFICULTY,
                                    default=DEFAULT_SPEC["difficulty"])
        out["opponent"] = None
    out["faces"] = get_choice(spec, "faces", tuple(FACE_SETS), default=DEFAULT_FACES)
    out["max_rerolls"] = get_int(spec, "max_rerolls", 0, MAX_REROLL_CAP, default=DEFAULT_REROLL_CAP)
    return out


# --------------------------------------------------------------------------
# Rolling.

def _faces(spec: dict, side: dict) -> tuple:
    return FACE_SETS[spec["faces"]][side["health"]]


def _side(spec: dict, who: str) -> dict:
    return spec if who == "initiator" else spec["opponent"]


def _throw(spec: dict, who: str, rng) -> dict:
    """One hand: 2 + |net| dice, each one ``rng.randint(1, len(faces))``."""
    side = _side(spec, who)
    faces = _faces(spec, side)
    n = net_dice(side["bonus"], side["malus"])
    draws = [rng.randint(1, len(faces)) for _ in range(n["thrown"])]
    values = [faces[d - 1][0] for d in draws]
    return {"draws": draws, "kept": default_keep(values, n["net"])}


def _new_round(spec: dict, rng) -> dict:
    rnd = {"initiator": _throw(spec, "initiator", rng)}
    if spec["opponent"] is not None:
        rnd["opponent"] = _throw(spec, "opponent", rng)
    return rnd


def _total(spec: dict, who: str, hand: dict) -> int:
    side = _side(spec, who)
    faces = _faces(spec, side)
    return sum(faces[hand["draws"][i] - 1][0] for i in hand["kept"]) + side["characteristic"]


def _judge(spec: dict, rnd: dict) -> str:
    """"initiator" or "opponent" wins the round, or "reroll"."""
    mine = _total(spec, "initiator", rnd["initiator"])
    if spec["opponent"] is None:
        return "initiator" if mine >= spec["difficulty"] else "opponent"
    theirs = _total(spec, "opponent", rnd["opponent"])
    if mine != theirs:
        return "initiator" if mine > theirs else "opponent"
    c1, c2 = spec["characteristic"], spec["opponent"]["characteristic"]
    if c1 != c2:
        return "initiator" if c1 > c2 else "opponent"
    return "reroll"


def _settle(spec: dict, rounds: list[dict], rng) -> bool:
    """Reroll while the last round is a tie with equal characteristics, at
    most ``max_rerolls`` times (RULES-NOTES ALKEMY 3). True when capped."""
    while _judge(spec, rounds[-1]) == "reroll":
        if len(rounds) - 1 >= spec["max_rerolls"]:
            return True
        rounds.append(_new_round(spec, rng))
    return False


# --------------------------------------------------------------------------
# The state: the rounds' draws and kept pairs, whether the rerolls reached
# the cap, the last ``keep``, and the sides that have accepted their pair of
# the last round. ``act`` rebuilds it from a result's recorded stages
# (``rules.stages``), never from the dice a result carries.

def _start(spec: dict, rng) -> dict:
    rounds = [_new_round(spec, rng)]
    return {"rounds": rounds, "capped": _settle(spec, rounds, rng), "changed": None, "accepted": ()}


def _step(spec: dict, state: dict, action: dict, rng) -> dict:
    if check_action(action, STEPS, TITLE)["do"] == "accept":
        return _accept(spec, state, action)
    return _keep(spec, state, action, rng)


def _state(spec: dict, result: Any) -> dict:
    return rebuild(result, lambda rng: _start(spec, rng),
                   lambda state, action, rng: _step(spec, state, action, rng))


def roll(spec: dict, rng) -> dict:
    """Throw the roller's hand, then the opponent's; tie rerolls after.

    Julien, Spirit 8 against 15, rolls 3 and 4 (ALKEMY, "Jet characteristic"):

    >>> from rules.dice import ScriptedRng
    >>> r = roll(normalize({"characteristic": 8, "difficulty": 15}), ScriptedRng([3, 4]))
    >>> r["explain"][-1]
    '3 + 4 + characteristic 8 = 15, at least the difficulty 15: success (margin 0).'

    Patrick (Reflex 2) rolls 4, 4; Ghulam (Reflex 5) rolls 1, 4 ("in opposition"):

    >>> s = normalize({"characteristic": 2, "opponent": {"characteristic": 5}})
    >>> r = roll(s, ScriptedRng([4, 4, 1, 4]))
    >>> r["value"], r["opponent"]["value"], r["outcome"]
    (10, 10, 'failure')
    """
    return _build(spec, _start(spec, rng))


# --------------------------------------------------------------------------
# The result: a pure function of the spec and the state.

def _pair_name(symbols: list) -> str | None:
    if any(s is None for s in symbols):
        return None
    return "–".join(symbols)


def _die_dict(spec: dict, who: str, hand: dict, i: int, rnd_no: int) -> dict:
    side = _side(spec, who)
    faces = _faces(spec, side)
    value, symbol = faces[hand["draws"][i] - 1]
    role = "rolled" if len(hand["draws"]) == KEPT else ("kept" if i in hand["kept"] else "dropped")
    return Die(face=value, role=role, faces=tuple(v for v, _ in faces),
               extra={"colour": side["health"], "symbol": symbol, "draw": hand["draws"][i],
                      "side": who, "round": rnd_no}).to_dict()


def _hand_view(spec: dict, who: str, hand: dict, rnd_no: int, accepted=()) -> dict:
    side = _side(spec, who)
    n = net_dice(side["bonus"], side["malus"])
    dice = [_die_dict(spec, who, hand, i, rnd_no) for i in range(len(hand["draws"]))]
    kept_values = [dice[i]["face"] for i in hand["kept"]]
    symbols = [dice[i]["symbol"] for i in hand["kept"]]
    return {
        "dice": dice,
        "kept": list(hand["kept"]),
        "kept_values": kept_values,
        "dice_total": sum(kept_values),
        "characteristic": side["characteristic"],
        "value": sum(kept_values) + side["characteristic"],
        "health": side["health"],
        "net": n,
        "choice": n["net"] > 0 and who not in accepted,
        "symbols": symbols,
        "pair": _pair_name(symbols),
    }


_HAND_KEYS = ("dice", "value", "dice_total", "kept", "kept_values", "symbols", "pair", "net",
              "choice", "characteristic", "health")


def _tied_round(spec: dict, k: int, rnd: dict) -> dict:
    me = _hand_view(spec, "initiator", rnd["initiator"], k)
    them = _hand_view(spec, "opponent", rnd["opponent"], k)
    return {"round": k, "dice": me["dice"], "value": me["value"],
            "opponent": {"dice": them["dice"], "value": them["value"]}}


def _opposed_part(spec: dict, state: dict) -> dict:
    """What only an opposed roll has: the opponent's hand, the tied rounds,
    the rerolls, the winner (None when still tied at the cap)."""
    rounds = state["rounds"]
    them = _hand_view(spec, "opponent", rounds[-1]["opponent"], len(rounds), state["accepted"])
    verdict = _judge(spec, rounds[-1])
    return {
        "opponent": {k: them[k] for k in _HAND_KEYS},
        "tied_rounds": [_tied_round(spec, k, r) for k, r in enumerate(rounds[:-1], start=1)],
        "rerolls": len(rounds) - 1,
        "reroll_cap": spec["max_rerolls"],
        "capped": state["capped"],
        "winner": verdict if verdict != "reroll" else None,
    }


_OUTCOME_OF = {"initiator": "success", "opponent": "failure", "reroll": "tie"}


def _build(spec: dict, state: dict) -> dict:
    rounds = state["rounds"]
    me = _hand_view(spec, "initiator", rounds[-1]["initiator"], len(rounds), state["accepted"])
    result: dict[str, Any] = {k: me[k] for k in _HAND_KEYS}
    result.update(mode="difficulty" if spec["opponent"] is None else "opposed",
                  difficulty=spec["difficulty"],
                  outcome=_OUTCOME_OF[_judge(spec, rounds[-1])])
    if spec["opponent"] is None:
        result["margin"] = me["value"] - spec["difficulty"]
    else:
        result.update(_opposed_part(spec, state))
        result["margin"] = me["value"] - result["opponent"]["value"]
    if state["changed"] is not None:
        result["changed"] = state["changed"]
    result["allowed"] = _allowed(spec, state)
    result["explain"] = explain(spec, result)
    return result


def _allowed(spec: dict, state: dict) -> list:
    """The steps open now: each verb for each side that may still choose
    (opposed, the side named)."""
    tag = spec["opponent"] is not None
    return [{"do": verb, **({"side": side} if tag else {})}
            for side in _open_sides(spec, state) for verb in STEPS]


# --------------------------------------------------------------------------
# After the roll: keep another pair.

def _keep_side(spec: dict, action: dict) -> str:
    """The side that keeps: only one with a net bonus chooses."""
    side = action.get("side", "initiator")
    if side is None:
        side = "initiator"
    if side not in SIDES:
        raise SpecError("side", "must be initiator or opponent")
    if side == "opponent" and spec["opponent"] is None:
        raise SpecError("side", "there is no opponent in a roll against a difficulty")
    _refuse_no_choice(spec, side)
    return side


def _refuse_no_choice(spec: dict, side: str) -> None:
    """Only a side with a net bonus chooses its pair: with a net malus or
    none, the pair is fixed."""
    who = _side(spec, side)
    net = net_dice(who["bonus"], who["malus"])["net"]
    if net < 0:
        raise SpecError("action", "a malus roll keeps the two lowest dice; there is no choice")
    if net == 0:
        raise SpecError("action", "without a bonus die both dice count; there is no choice")


def _keep_dice(dice: Any, thrown: int) -> list[int]:
    if not isinstance(dice, list) or len(dice) != KEPT:
        raise SpecError("dice", f"keep exactly {KEPT} dice")
    _check_positions(dice, thrown)
    if dice[0] == dice[1]:
        raise SpecError("dice", "keep two different dice")
    return sorted(dice)


def _check_positions(dice: list, thrown: int) -> None:
    """Each die named by its position in a hand of ``thrown`` dice."""
    for i in dice:
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < thrown:
            raise SpecError("dice", f"name dice 0 to {thrown - 1} (got {show_value(i)})")


def _keep_args(spec: dict, action: dict) -> tuple[str, list[int]]:
    """Check a ``keep`` action: only a side with a net bonus chooses, exactly
    two different dice of its hand."""
    side = _keep_side(spec, action)
    who = _side(spec, side)
    return side, _keep_dice(action.get("dice"), net_dice(who["bonus"], who["malus"])["thrown"])


def _accept_side(spec: dict, action: dict) -> str:
    """Check an ``accept``: a side with a net bonus that has not accepted yet."""
    return _keep_side(spec, action)


def _not_accepted(state: dict, side: str) -> None:
    if side in state["accepted"]:
        raise SpecError("action", f"the {side} has accepted this pair; no further keep this round")


def _kept_rounds(state: dict, side: str, dice: list[int]) -> list[dict]:
    """The rounds with ``side`` keeping ``dice`` of the last one (a copy)."""
    rounds = [dict(r) for r in state["rounds"]]
    rounds[-1][side] = {"draws": rounds[-1][side]["draws"], "kept": dice}
    return rounds


def _keep(spec: dict, state: dict, action: dict, rng) -> dict:
    side, dice = _keep_args(spec, action)
    _not_accepted(state, side)
    rounds = _kept_rounds(state, side, dice)
    changed = {"side": side, "from": state["rounds"][-1][side]["kept"], "to": dice}
    capped = _settle(spec, rounds, rng)
    # a new round (a tie rerolled) is a new choice for both sides
    accepted = state["accepted"] if len(rounds) == len(state["rounds"]) else ()
    return {"rounds": rounds, "capped": capped, "changed": changed, "accepted": accepted}


def _accept(spec: dict, state: dict, action: dict) -> dict:
    """``accept``: the side keeps its pair as it lies and chooses no more
    this round (docs/RULES-DECISIONS.md, ALKEMY); no draws."""
    side = _accept_side(spec, action)
    _not_accepted(state, side)
    return {**state, "accepted": tuple(state["accepted"]) + (side,)}


def act(spec: dict, result: dict, action: dict, rng) -> dict:
    """``accept`` (``{"do": "accept", "side": ...}``): the side with a bonus
    die keeps the pair as it lies and may change it no more this round (a
    keep of the other side that ties and rerolls opens a new choice).
    ``keep``: the player with a bonus die keeps another pair of the last
    round's dice, e.g. for its symbols ("It could also choose 1 and 4 ... a
    more effective combination of symbols (hache-hache)"). In an opposed roll
    the winner is judged again; a new tie between equal characteristics
    rerolls (draws after the dice it follows). The state is rebuilt from
    ``result``'s stages.

    >>> from rules import roll as roll_, act as act_
    >>> from rules.dice import ScriptedRng
    >>> s = normalize({"characteristic": 0, "bonus": 1, "difficulty": 5})
    >>> r = roll_("alkemy", s, ScriptedRng([4, 5, 1]))
    >>> r["kept"], r["value"]
    ([0, 1], 9)
    >>> r2 = act_("alkemy", s, r, {"do": "keep", "dice": [0, 2]}, ScriptedRng([]))
    >>> r2["kept"], r2["value"], r2["pair"], [d["role"] for d in r2["dice"]]
    ([0, 2], 5, 'axe–axe', ['kept', 'dropped', 'kept'])
    """
    return _build(spec, _step(spec, _state(spec, result), action, rng))


# --------------------------------------------------------------------------
# Odds: exact (at most four dice of at most a few faces: enumerate).

@lru_cache(maxsize=128)
def _kept_counts(values: tuple, net: int) -> tuple:
    """Counts of the kept pair's sum over every throw of 2 + |net| dice."""
    n = KEPT + abs(net)
    counts: dict[int, int] = {}
    for combo in product(values, repeat=n):
        s = sorted(combo)
        k = sum(s[-KEPT:]) if net > 0 else sum(s[:KEPT])
        counts[k] = counts.get(k, 0) + 1
    return tuple(sorted(counts.items())), len(values) ** n


def _total_dist(spec: dict, side: dict, net: int | None = None) -> dict:
    """{total: Fraction} for one side's default play (best two with a bonus)."""
    if net is None:
        net = net_dice(side["bonus"], side["malus"])["net"]
    values = tuple(v for v, _ in _faces(spec, side))
    items, whole = _kept_counts(values, net)
    return {k + side["characteristic"]: Fraction(c, whole) for k, c in items}


def _vs(d1: dict, d2: dict) -> tuple[Fraction, Fraction, Fraction]:
    gt = eq = Fraction(0)
    for a, pa in d1.items():
        for b, pb in d2.items():
            if a > b:
                gt += pa * pb
            elif a == b:
                eq += pa * pb
    return gt, eq, 1 - gt - eq


def _p_win(spec: dict, d1: dict, d2: dict, rerolls_left: int) -> tuple[Fraction, Fraction, Fraction]:
    """P(initiator wins), P(tie on a round), P(still tied at the cap)."""
    gt, eq, _ = _vs(d1, d2)
    c1, c2 = spec["characteristic"], spec["opponent"]["characteristic"]
    if c1 > c2:
        return gt + eq, eq, Fraction(0)
    if c1 < c2:
        return gt, eq, Fraction(0)
    # Reroll until one wins: gt * (1 + eq + ... + eq**cap), the rest fails.
    k = rerolls_left + 1
    series = Fraction(k) if eq == 1 else (1 - eq ** k) / (1 - eq)
    return gt * series, eq, eq ** k


def _p_success(spec: dict, net: int) -> Fraction:
    d1 = _total_dist(spec, spec, net)
    if spec["opponent"] is None:
        return sum((p for t, p in d1.items() if t >= spec["difficulty"]), Fraction(0))
    return _p_win(spec, d1, _total_dist(spec, spec["opponent"]), spec["max_rerolls"])[0]


def _outcome_odds(win: Fraction, tie: Fraction) -> dict:
    """Worst to best: the initiator loses, is still tied at the cap (the GM
    decides), wins."""
    return {"failure": float(1 - win - tie), "tie": float(tie), "success": float(win)}


def _opposed_odds(spec: dict, d1: dict) -> dict:
    d2 = _total_dist(spec, spec["opponent"])
    win, tie, cap = _p_win(spec, d1, d2, spec["max_rerolls"])
    gt, eq, lt = _vs(d1, d2)
    return {"opponent_value": dist_to_json(d2),
            "first_round": {"higher": float(gt), "equal": float(eq), "lower": float(lt)},
            "tie": float(tie), "capped": float(cap),
            "opponent_net": net_dice(spec["opponent"]["bonus"], spec["opponent"]["malus"]),
            "outcome": _outcome_odds(win, cap)}


def odds(spec: dict, result: dict | None = None, action: dict | None = None) -> dict:
    """Exact odds of the roll (default play: best two with a bonus), or, given
    a result and a ``keep`` action, of keeping that pair.

    ``by_net``: P(success) for each net from 2 malus to 2 bonus dice;
    ``extra``: P(success) with one more bonus or one more malus die.
    Opposed: win/lose including the tie-breaks; equal characteristics reroll
    until one wins (a geometric series, cut at the cap); the mass still tied
    at the cap is the outcome ``tie`` (and ``capped``).

    >>> o = odds(normalize({"characteristic": 8, "difficulty": 15}))
    >>> round(o["outcome"]["success"], 4), o["value"][15]
    (0.5833, 0.16666666666666666)
    >>> s = normalize({"characteristic": 3, "opponent": {"characteristic": 3}, "max_rerolls": 0})
    >>> {k: round(p, 4) for k, p in odds(s)["outcome"].items()}
    {'failure': 0.4437, 'tie': 0.1127, 'success': 0.4437}
    """
    if result is not None and action is not None:
        return _odds_after(spec, result, action)
    mine = net_dice(spec["bonus"], spec["malus"])
    by_net = {k: _p_success(spec, k) for k in range(-MAX_NET, MAX_NET + 1)}
    d1 = _total_dist(spec, spec)
    out: dict[str, Any] = {"value": dist_to_json(d1), "exact": True, "net": mine,
                           "by_net": {k: float(p) for k, p in by_net.items()}}
    if spec["opponent"] is None:
        out.update(difficulty=spec["difficulty"], outcome=_outcome_odds(by_net[mine["net"]], Fraction(0)))
    else:
        out.update(_opposed_odds(spec, d1))
    plus = net_dice(spec["bonus"] + 1, spec["malus"])["net"]
    minus = net_dice(spec["bonus"], spec["malus"] + 1)["net"]
    out["extra"] = {"bonus": out["by_net"][plus], "malus": out["by_net"][minus]}
    return out


def _rerolls_odds(spec: dict, left: int) -> tuple[Fraction, Fraction]:
    """P(the initiator wins) and P(still tied at the cap) over ``left``
    rerolls of both whole hands."""
    if left <= 0:
        return Fraction(0), Fraction(1)
    sides = tuple(tuple(_side(spec, s)[k] for k in OPPONENT_KEYS) for s in SIDES)
    return _rerolls_cached(spec["faces"], sides, left)


@lru_cache(maxsize=256)
def _rerolls_cached(faces: str, sides: tuple, left: int) -> tuple[Fraction, Fraction]:
    spec = {"faces": faces, **dict(zip(OPPONENT_KEYS, sides[0])), "opponent": dict(zip(OPPONENT_KEYS, sides[1]))}
    d1, d2 = _total_dist(spec, spec), _total_dist(spec, spec["opponent"])
    win, _, cap = _p_win(spec, d1, d2, left - 1)
    return win, cap


def _after_action(spec: dict, state: dict, action: dict) -> tuple[str, list]:
    """The side a ``keep`` or ``accept`` is for and the rounds with it
    applied (a keep's new pair; an accept changes nothing), checked as
    ``act`` checks them."""
    if check_action(action, STEPS, TITLE)["do"] == "accept":
        side = _accept_side(spec, action)
        _not_accepted(state, side)
        return side, state["rounds"]
    side, dice = _keep_args(spec, action)
    _not_accepted(state, side)
    return side, _kept_rounds(state, side, dice)


def _priced(spec: dict, rounds: list, rerolled: int) -> tuple[Fraction, Fraction]:
    """P(the initiator wins) and P(still tied at the cap) with the last
    round's pairs as ``rounds`` holds them: decided, or a tie between equal
    characteristics that goes to the rerolls left (both sides keeping
    their best two, best play: a higher total never hurts the side that
    holds it)."""
    verdict = _judge(spec, rounds[-1])
    if verdict == "reroll":
        return _rerolls_odds(spec, spec["max_rerolls"] - rerolled)
    return Fraction(int(verdict == "initiator")), Fraction(0)


def _odds_after(spec: dict, result: dict, action: dict) -> dict:
    """Keeping a pair (or accepting the pair as it lies) decides the roll
    unless it makes a tie between equal characteristics, which then goes to
    rerolls; the other side's pair as it lies. The state is rebuilt from
    ``result``'s stages."""
    state = _state(spec, result)
    _, rounds = _after_action(spec, state, action)
    out: dict[str, Any] = {"value": {_total(spec, "initiator", rounds[-1]["initiator"]): 1.0},
                           "exact": True}
    if _judge(spec, rounds[-1]) == "reroll":
        out["tie"] = True
    win, cap = _priced(spec, rounds, len(rounds) - 1)
    out["outcome"] = _outcome_odds(win, cap)
    return out


# --------------------------------------------------------------------------
# Best play after a bonus roll (docs/RULES-DECISIONS.md, Decisions after a roll): every
# ``accept`` and ``keep`` a side may take now, priced exactly, the other
# side answering with its own best choice while it may still choose.

def _open_sides(spec: dict, state: dict) -> list[str]:
    """The sides that may still choose their pair: a net bonus, not accepted."""
    sides = SIDES if spec["opponent"] is not None else SIDES[:1]
    return [s for s in sides if net_dice(_side(spec, s)["bonus"], _side(spec, s)["malus"])["net"] > 0
            and s not in state["accepted"]]


def _side_actions(spec: dict, state: dict, side: str) -> list[dict]:
    """``accept`` first, then a ``keep`` of every other pair, lowest dice first."""
    tag = {"side": side}
    kept = state["rounds"][-1][side]["kept"]
    n = len(state["rounds"][-1][side]["draws"])
    pairs = [[i, j] for i in range(n) for j in range(i + 1, n) if [i, j] != kept]
    return [{"do": "accept", **tag}] + [{"do": "keep", "dice": p, **tag} for p in pairs]


def _score(side: str, win: Fraction, cap: Fraction) -> tuple:
    """A side's objective: its chance to win, then to stay tied at the cap
    (the GM decides) rather than lose."""
    return (win, cap) if side == "initiator" else (1 - win - cap, cap)


def _rank(side: str, action: dict, win: Fraction, cap: Fraction, total: int) -> tuple:
    """Best first under ALKEMY's objective (docs/RULES-DECISIONS.md): the side's chance to win,
    then to stay tied rather than lose, then the pair as it lies (a pair
    that changes no chance is the player's to pick, e.g. for its symbols),
    then the higher total, then the lowest dice."""
    dice = action.get("dice") or []
    return _score(side, win, cap) + (action["do"] == "accept", total, [-i for i in dice])


def _value(spec: dict, state: dict, action: dict, respond: bool) -> tuple[Fraction, Fraction, list]:
    """P(win), P(tie at the cap) after ``action``, the other side (if it
    may still choose and the round was not rerolled) answering with its
    best choice when ``respond``; and the rounds after the action."""
    side, rounds = _after_action(spec, state, action)
    other = [s for s in _open_sides(spec, state) if s != side]
    rerolled = _judge(spec, rounds[-1]) == "reroll" and len(rounds) - 1 < spec["max_rerolls"]
    if respond and other and not rerolled:  # a tie still at the cap stands: the other side may answer
        best = _best_answer(spec, state, action, side, rounds, other[0])
        return best[1], best[2], rounds
    win, cap = _priced(spec, rounds, len(rounds) - 1)
    return win, cap, rounds


def _best_answer(spec: dict, state: dict, action: dict, side: str, rounds: list, other: str) -> tuple:
    """The ``other`` side's best choice (``_priced_choice``) once ``side``
    has taken ``action``, leaving ``rounds``."""
    after = {**state, "rounds": rounds}
    if action["do"] == "accept":
        after["accepted"] = tuple(state["accepted"]) + (side,)
    return max((_priced_choice(spec, after, a, False) for a in _side_actions(spec, after, other)),
               key=lambda c: c[0])


def _priced_choice(spec: dict, state: dict, action: dict, respond: bool) -> tuple:
    """(rank, P(win), P(tie at the cap), action, the side's kept pair) of one choice."""
    win, cap, rounds = _value(spec, state, action, respond)
    side = action["side"]
    hand = rounds[-1][side]
    total = _total(spec, side, hand) - _side(spec, side)["characteristic"]
    return _rank(side, action, win, cap, total), win, cap, action, hand


def _choice_entry(spec: dict, side: str, priced: tuple) -> dict:
    _, win, cap, action, hand = priced
    faces = _faces(spec, _side(spec, side))
    shown = [faces[hand["draws"][i] - 1] for i in hand["kept"]]
    return {"action": action, "outcome": _outcome_odds(win, cap), "exact": True,
            "win": float(win), "tie": float(cap), "dice": list(hand["kept"]),
            "faces": [v for v, _ in shown], "total": sum(v for v, _ in shown) + _side(spec, side)["characteristic"],
            "pair": _pair_name([sym for _, sym in shown])}


def advise(spec: dict, result: dict) -> dict:
    """Best play's ``advice`` and every ``choice`` after a bonus roll
    (docs/RULES-DECISIONS.md, Decisions after a roll): each side that may still choose can
    ``accept`` its pair or ``keep`` another; each is priced exactly, the
    other side answering with its best choice. The advice is the
    initiator's best while it may choose, then the opponent's; None when
    no side may choose. The state is rebuilt from ``result``'s stages.

    Marc throws 4, 5, 1 with one bonus die against 9: keeping 4 + 5 is the
    only pair that succeeds; 1 + 4 (axe–axe) fails.

    >>> from rules import roll as roll_
    >>> from rules.dice import ScriptedRng
    >>> s = normalize({"characteristic": 0, "bonus": 1, "difficulty": 9})
    >>> a = advise(s, roll_("alkemy", s, ScriptedRng([4, 5, 1]), advise=False))
    >>> a["advice"], [(c["faces"], c["outcome"]["success"]) for c in a["choices"]]
    ({'do': 'accept', 'side': 'initiator'}, [([4, 5], 1.0), ([4, 1], 0.0), ([5, 1], 0.0)])
    """
    state = _state(spec, result)
    sides = _open_sides(spec, state)
    choices, best = [], None
    for side in sides:
        priced = [_priced_choice(spec, state, a, True) for a in _side_actions(spec, state, side)]
        choices += [_choice_entry(spec, side, p) for p in priced]
        if best is None:
            best = max(priced, key=lambda p: p[0])[3]
    if best is None:
        return {"advice": None, "choices": []}
    return {"advice": best, **W.worded(choices, best, spec["opponent"] is not None)}
