"""ALKEMY (seeds/003_f948d93b92fcaada.txt, machine-translated from French:
"jet" = roll, "figurine" = character).

"Jet characteristic": roll two dice in the colour of the character's health
(white, yellow or red), add the characteristic; the roll succeeds when the
total is equal to or greater than the difficulty. "In opposition" both sides
roll; the higher total wins, equal totals go to the higher characteristic,
and equal characteristics "start again until one of them wins". Bonus and
malus dice: net = bonus - malus, at most four dice thrown and two kept; a
bonus lets the player keep any two, a malus keeps the two lowest.

Decisions where the text is silent: RULES-NOTES ALKEMY 1-3 (faces and
symbols as data, the net clamped to +-2, the reroll cap).

>>> from rules.dice import ScriptedRng
>>> r = roll(normalize({"characteristic": 8, "difficulty": 15}), ScriptedRng([3, 4]))
>>> r["value"], r["outcome"], r["margin"]
(15, 'success', 0)
"""

from __future__ import annotations

import json
import os
from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import Any

from .dice import Die, SpecError, _show, check_keys, dist_to_json, get_choice, get_int

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "HEALTH", "FACE_SETS", "SYMBOLS", "normalize",
           "roll", "act", "odds", "net_dice", "face_table"]

NAME = "alkemy"
TITLE = "ALKEMY"

OUTCOMES = ("failure", "success")

#: Health colours, best health first ("color indicated by the figure of the
#: state of health (white, yellow or red)").
HEALTH = ("white", "yellow", "red")

SIDES = ("initiator", "opponent")

#: "a player can not pitch more than four and can not add ... that two".
MAX_THROWN = 4
KEPT = 2
MAX_NET = MAX_THROWN - KEPT

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


# --------------------------------------------------------------------------
# The faces: data, not code (RULES-NOTES ALKEMY 1).

def _load_faces() -> tuple[dict, dict, str]:
    """Read ``alkemy_faces.json`` beside this file: per face set and colour,
    the faces of one die as (value, symbol) pairs in draw order."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "alkemy_faces.json")
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    symbols = dict(data["symbols"])
    sets: dict[str, dict] = {}
    for name, colours in data["sets"].items():
        entry: dict[str, Any] = {"label": str(colours.get("label", name))}
        for colour in HEALTH:
            faces = tuple((int(f["value"]), f.get("symbol")) for f in colours[colour])
            if not 1 <= len(faces) <= 20:
                raise ValueError(f"alkemy_faces.json: {name}/{colour} needs 1 to 20 faces")
            for _, sym in faces:
                if sym is not None and sym not in symbols:
                    raise ValueError(f"alkemy_faces.json: unknown symbol {sym!r}")
            entry[colour] = faces
        sets[name] = entry
    default = data.get("default", "plain")
    if default not in sets:
        raise ValueError("alkemy_faces.json: default must name a set")
    return sets, symbols, default


FACE_SETS, SYMBOLS, DEFAULT_FACES = _load_faces()


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


def net_dice(bonus: int, malus: int) -> dict:
    """The text's "small operation": bonus dice minus malus dice, clamped so
    that at most four dice are thrown (RULES-NOTES ALKEMY 2).

    >>> net_dice(2, 1)["net"], net_dice(3, 1)["net"], net_dice(1, 1)["net"]
    (1, 2, 0)
    >>> net_dice(5, 0)
    {'bonus': 5, 'malus': 0, 'raw': 5, 'net': 2, 'thrown': 4, 'left_out': 3}
    """
    raw = bonus - malus
    net = max(-MAX_NET, min(MAX_NET, raw))
    return {"bonus": bonus, "malus": malus, "raw": raw, "net": net,
            "thrown": KEPT + abs(net), "left_out": abs(raw) - abs(net)}


def describe_net(n: dict) -> str:
    """The net in words, e.g. "2 bonus, 1 malus → 1 bonus die".

    >>> describe_net(net_dice(1, 1))
    '1 bonus, 1 malus → no bonus or malus die'
    >>> describe_net(net_dice(0, 3))
    '0 bonus, 3 malus → 2 malus dice (1 left out: at most 4 dice are thrown)'
    """
    net = n["net"]
    if net == 0:
        what = "no bonus or malus die"
    else:
        kind = "bonus" if net > 0 else "malus"
        what = f"{abs(net)} {kind} {'die' if abs(net) == 1 else 'dice'}"
    text = f"{n['bonus']} bonus, {n['malus']} malus → {what}"
    if n["left_out"]:
        text += f" ({n['left_out']} left out: at most {MAX_THROWN} dice are thrown)"
    return text


# --------------------------------------------------------------------------
# Rolling.

def _faces(spec: dict, side: dict) -> tuple:
    return FACE_SETS[spec["faces"]][side["health"]]


def _side(spec: dict, who: str) -> dict:
    return spec if who == "initiator" else spec["opponent"]


def _default_keep(values: list[int], net: int) -> list[int]:
    """Bonus: the best two by default (the player may choose another pair).
    Malus: "the two lowest values", no choice. Ties go to the earlier die."""
    if net >= 0:
        order = sorted(range(len(values)), key=lambda i: (-values[i], i))
    else:
        order = sorted(range(len(values)), key=lambda i: (values[i], i))
    return sorted(order[:KEPT])


def _throw(spec: dict, who: str, rng) -> dict:
    """One hand: 2 + |net| dice, each one ``rng.randint(1, len(faces))``."""
    side = _side(spec, who)
    faces = _faces(spec, side)
    n = net_dice(side["bonus"], side["malus"])
    draws = [rng.randint(1, len(faces)) for _ in range(n["thrown"])]
    values = [faces[d - 1][0] for d in draws]
    return {"draws": draws, "kept": _default_keep(values, n["net"])}


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


def roll(spec: dict, rng) -> dict:
    """Throw the roller's hand, then the opponent's; tie rerolls after.

    Julien, Spirit 8 against 15, rolls 3 and 4 (seed 003, "Jet characteristic"):

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
    rounds = [_new_round(spec, rng)]
    capped = _settle(spec, rounds, rng)
    return _build(spec, rounds, capped)


# --------------------------------------------------------------------------
# The result: a pure function of the spec and the rounds' draws.

def _pair_name(symbols: list) -> str | None:
    if any(s is None for s in symbols):
        return None
    return "–".join(symbols)


def _hand_view(spec: dict, who: str, hand: dict, rnd_no: int) -> dict:
    side = _side(spec, who)
    faces = _faces(spec, side)
    n = net_dice(side["bonus"], side["malus"])
    dice = []
    for i, d in enumerate(hand["draws"]):
        value, symbol = faces[d - 1]
        if n["thrown"] == KEPT:
            role = "rolled"
        else:
            role = "kept" if i in hand["kept"] else "dropped"
        dice.append(Die(face=value, role=role, faces=tuple(v for v, _ in faces),
                        extra={"colour": side["health"], "symbol": symbol, "draw": d,
                               "side": who, "round": rnd_no}).to_dict())
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
        "choice": n["net"] > 0,
        "symbols": symbols,
        "pair": _pair_name(symbols),
    }


def _hand_words(view: dict, who: str, spec: dict) -> list[str]:
    """Sentences on one hand: what was thrown, what was kept and why."""
    n = view["net"]
    faces = [d["face"] for d in view["dice"]]
    colour = view["health"]
    opposed = spec["opponent"] is not None
    name = ("Initiator" if who == "initiator" else "Opponent") if opposed else ""
    label = f"{name}: " if name else ""
    kept = " + ".join(str(v) for v in view["kept_values"])
    if n["net"] == 0 and n["bonus"] == 0:
        return [f"{label}two {colour} dice: {faces[0]} and {faces[1]}."]
    lines = [f"{label}{describe_net(n)}; threw {n['thrown']} {colour} dice: "
             + ", ".join(str(f) for f in faces) + "."]
    if n["net"] > 0:
        default = _default_keep(faces, n["net"])
        how = "the best two" if view["kept"] == default else "the player's choice"
        pair = f", {view['pair']}" if view["pair"] else ""
        lines.append(f"{name + ' keeps' if name else 'Kept'} {kept} ({how}{pair}).")
    elif n["net"] < 0:
        lines.append(f"{label}a malus keeps the two lowest: {kept}." if name
                     else f"A malus keeps the two lowest: {kept}.")
    return lines


def _build(spec: dict, rounds: list[dict], capped: bool, note: list[str] | None = None) -> dict:
    views = []
    for k, rnd in enumerate(rounds, start=1):
        v = {"initiator": _hand_view(spec, "initiator", rnd["initiator"], k)}
        if spec["opponent"] is not None:
            v["opponent"] = _hand_view(spec, "opponent", rnd["opponent"], k)
        views.append(v)
    final = views[-1]
    me = final["initiator"]
    explain: list[str] = list(note or [])
    if spec["faces"] != DEFAULT_FACES:
        explain.append(f"Dice faces: {FACE_SETS[spec['faces']]['label']} (GM option, RULES-NOTES ALKEMY 1).")
    result: dict[str, Any] = {
        "dice": me["dice"],
        "value": me["value"],
        "dice_total": me["dice_total"],
        "kept": me["kept"],
        "symbols": me["symbols"],
        "pair": me["pair"],
        "net": me["net"],
        "choice": me["choice"],
        "characteristic": me["characteristic"],
        "health": me["health"],
        "mode": "difficulty" if spec["opponent"] is None else "opposed",
        "difficulty": spec["difficulty"],
    }
    if spec["opponent"] is None:
        explain += _hand_words(me, "initiator", spec)
        ok = me["value"] >= spec["difficulty"]
        margin = me["value"] - spec["difficulty"]
        explain.append(
            f"{' + '.join(str(v) for v in me['kept_values'])} + characteristic {me['characteristic']}"
            f" = {me['value']}, {'at least' if ok else 'below'} the difficulty {spec['difficulty']}:"
            f" {'success' if ok else 'failure'} (margin {margin}).")
        result.update(outcome="success" if ok else "failure", margin=margin)
        result["explain"] = explain
        return result

    them = final["opponent"]
    result["opponent"] = {k: them[k] for k in ("dice", "value", "dice_total", "kept", "symbols",
                                               "pair", "net", "choice", "characteristic", "health")}
    result["tied_rounds"] = [
        {"round": k, "dice": v["initiator"]["dice"], "value": v["initiator"]["value"],
         "opponent": {"dice": v["opponent"]["dice"], "value": v["opponent"]["value"]}}
        for k, v in enumerate(views[:-1], start=1)]
    result["rerolls"] = len(rounds) - 1
    result["reroll_cap"] = spec["max_rerolls"]
    result["capped"] = capped
    for k, v in enumerate(views[:-1], start=1):
        explain.append(f"Round {k}: {v['initiator']['value']} against {v['opponent']['value']} "
                       f"with equal characteristics ({me['characteristic']}): both roll again.")
    if len(views) > 1:
        explain.append(f"Round {len(views)}:")
    explain += _hand_words(me, "initiator", spec)
    explain += _hand_words(them, "opponent", spec)
    mine, theirs = me["value"], them["value"]
    c1, c2 = me["characteristic"], them["characteristic"]
    explain.append(f"Initiator {' + '.join(str(v) for v in me['kept_values'])} + {c1} = {mine}; "
                   f"opponent {' + '.join(str(v) for v in them['kept_values'])} + {c2} = {theirs}.")
    verdict = _judge(spec, rounds[-1])
    if mine != theirs:
        explain.append(f"The higher total wins: the {verdict}.")
    elif c1 != c2:
        explain.append(f"Equal totals: the higher characteristic ({max(c1, c2)} against "
                       f"{min(c1, c2)}) wins: the {verdict}.")
    else:
        explain.append(f"Still equal after {spec['max_rerolls']} rerolls, the cap "
                       f"(RULES-NOTES ALKEMY 3): no winner; the GM decides. "
                       f"Counted as a failure for the initiator.")
    ok = verdict == "initiator"
    result.update(outcome="success" if ok else "failure", margin=mine - theirs)
    result["winner"] = verdict if verdict != "reroll" else None
    result["explain"] = explain
    return result


# --------------------------------------------------------------------------
# After the roll: keep another pair.

def _bad_result() -> SpecError:
    return SpecError("result", "is not an ALKEMY result of this spec")


def _hand_from(spec: dict, who: str, dice: Any) -> dict:
    side = _side(spec, who)
    faces = _faces(spec, side)
    n = net_dice(side["bonus"], side["malus"])
    if not isinstance(dice, list) or len(dice) != n["thrown"]:
        raise _bad_result()
    draws, kept = [], []
    for i, d in enumerate(dice):
        if not isinstance(d, dict):
            raise _bad_result()
        draw = d.get("draw")
        if isinstance(draw, bool) or not isinstance(draw, int) or not 1 <= draw <= len(faces):
            raise _bad_result()
        draws.append(draw)
        if d.get("role") in ("kept", "rolled"):
            kept.append(i)
    if len(kept) != KEPT:
        raise _bad_result()
    return {"draws": draws, "kept": kept}


def _rounds_from(spec: dict, result: Any) -> list[dict]:
    """The rounds' draws and kept pairs, read back from a result."""
    if not isinstance(result, dict):
        raise _bad_result()
    opposed = spec["opponent"] is not None
    earlier = result.get("tied_rounds", []) if opposed else []
    if not isinstance(earlier, list) or len(earlier) > spec["max_rerolls"]:
        raise _bad_result()
    rounds = []
    for r in earlier + [result]:
        if not isinstance(r, dict):
            raise _bad_result()
        rnd = {"initiator": _hand_from(spec, "initiator", r.get("dice"))}
        if opposed:
            opp = r.get("opponent")
            if not isinstance(opp, dict):
                raise _bad_result()
            rnd["opponent"] = _hand_from(spec, "opponent", opp.get("dice"))
        rounds.append(rnd)
    return rounds


def _keep_args(spec: dict, rounds: list[dict], action: dict) -> tuple[str, list[int]]:
    """Check a ``keep`` action against the last round: only a side with a net
    bonus chooses, exactly two different dice of its hand."""
    if action.get("do") != "keep":
        raise SpecError("action", f"ALKEMY's only step after a roll is 'keep' (got {str(action.get('do'))[:30]!r})")
    unknown = [k for k in action if k not in ("do", "dice", "side")]
    if unknown:
        raise SpecError("action", f"{str(unknown[0])[:30]!r} is not part of 'keep'; give dice and side")
    side = action.get("side", "initiator")
    if side is None:
        side = "initiator"
    if side not in SIDES:
        raise SpecError("side", "must be initiator or opponent")
    if side == "opponent" and spec["opponent"] is None:
        raise SpecError("side", "there is no opponent in a roll against a difficulty")
    who = _side(spec, side)
    n = net_dice(who["bonus"], who["malus"])
    if n["net"] < 0:
        raise SpecError("action", "a malus roll keeps the two lowest dice; there is no choice")
    if n["net"] == 0:
        raise SpecError("action", "without a bonus die both dice count; there is no choice")
    dice = action.get("dice")
    if not isinstance(dice, list) or len(dice) != KEPT:
        raise SpecError("dice", f"keep exactly {KEPT} dice")
    for i in dice:
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < n["thrown"]:
            raise SpecError("dice", f"name dice 0 to {n['thrown'] - 1} (got {_show(i)})")
    if dice[0] == dice[1]:
        raise SpecError("dice", "keep two different dice")
    return side, sorted(dice)


def act(spec: dict, result: dict, action: dict, rng) -> dict:
    """``keep``: the player with a bonus die keeps another pair of the last
    round's dice, e.g. for its symbols ("It could also choose 1 and 4 ... a
    more effective combination of symbols (hache-hache)"). In an opposed roll
    the winner is judged again; a new tie between equal characteristics
    rerolls (draws after the dice it follows).

    >>> from rules.dice import ScriptedRng
    >>> s = normalize({"characteristic": 0, "bonus": 1, "difficulty": 5})
    >>> r = roll(s, ScriptedRng([4, 5, 1]))
    >>> r["kept"], r["value"]
    ([0, 1], 9)
    >>> r2 = act(s, r, {"do": "keep", "dice": [0, 2]}, ScriptedRng([]))
    >>> r2["kept"], r2["value"], r2["pair"], [d["role"] for d in r2["dice"]]
    ([0, 2], 5, 'axe–axe', ['kept', 'dropped', 'kept'])
    """
    rounds = _rounds_from(spec, result)
    side, dice = _keep_args(spec, rounds, action)
    before = rounds[-1][side]["kept"]
    rounds[-1][side] = {"draws": rounds[-1][side]["draws"], "kept": dice}
    capped = _settle(spec, rounds, rng)
    who = "The initiator" if spec["opponent"] is not None and side == "initiator" else (
        "The opponent" if side == "opponent" else "The player")
    note = [f"{who} chose dice {dice[0] + 1} and {dice[1] + 1} "
            f"instead of {before[0] + 1} and {before[1] + 1}."]
    new = _build(spec, rounds, capped, note)
    new["changed"] = {"side": side, "from": before, "to": dice}
    return new


# --------------------------------------------------------------------------
# Odds: exact (at most four dice of at most a few faces: enumerate).

@lru_cache(maxsize=128)
def _kept_counts(values: tuple, net: int) -> tuple:
    """Counts of the kept pair's sum over every throw of 2 + |net| dice."""
    n = KEPT + abs(net)
    counts: dict[int, int] = {}
    for combo in product(values, repeat=n):
        s = sorted(combo)
        k = s[-1] + s[-2] if net > 0 else s[0] + s[1]
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


def odds(spec: dict, result: dict | None = None, action: dict | None = None) -> dict:
    """Exact odds of the roll (default play: best two with a bonus), or, given
    a result and a ``keep`` action, of keeping that pair.

    ``by_net``: P(success) for each net from 2 malus to 2 bonus dice;
    ``extra``: P(success) with one more bonus or one more malus die.
    Opposed: win/lose including the tie-breaks; equal characteristics reroll
    until one wins (a geometric series, cut at the cap).

    >>> o = odds(normalize({"characteristic": 8, "difficulty": 15}))
    >>> round(o["outcome"]["success"], 4), o["value"][15]
    (0.5833, 0.16666666666666666)
    >>> s = normalize({"characteristic": 3, "opponent": {"characteristic": 3}})
    >>> round(odds(s)["outcome"]["success"], 6)
    0.5
    """
    if result is not None and action is not None:
        return _odds_after(spec, result, action)
    mine = net_dice(spec["bonus"], spec["malus"])
    d1 = _total_dist(spec, spec)
    out: dict[str, Any] = {"value": dist_to_json(d1), "exact": True, "net": mine}
    by_net = {k: float(_p_success(spec, k)) for k in range(-MAX_NET, MAX_NET + 1)}
    if spec["opponent"] is None:
        p = by_net[mine["net"]]
        out["difficulty"] = spec["difficulty"]
    else:
        d2 = _total_dist(spec, spec["opponent"])
        win, tie, cap = _p_win(spec, d1, d2, spec["max_rerolls"])
        p = float(win)
        gt, eq, lt = _vs(d1, d2)
        out["opponent_value"] = dist_to_json(d2)
        out["first_round"] = {"higher": float(gt), "equal": float(eq), "lower": float(lt)}
        out["tie"] = float(tie)
        out["capped"] = float(cap)
        out["opponent_net"] = net_dice(spec["opponent"]["bonus"], spec["opponent"]["malus"])
    out["outcome"] = {"failure": 1.0 - p, "success": p}
    out["by_net"] = by_net
    plus = net_dice(spec["bonus"] + 1, spec["malus"])["net"]
    minus = net_dice(spec["bonus"], spec["malus"] + 1)["net"]
    out["extra"] = {"bonus": by_net[plus], "malus": by_net[minus]}
    return out


def _odds_after(spec: dict, result: dict, action: dict) -> dict:
    """Keeping a pair decides the roll unless it makes a tie between equal
    characteristics, which then goes to rerolls."""
    rounds = _rounds_from(spec, result)
    side, dice = _keep_args(spec, rounds, action)
    rounds[-1][side] = {"draws": rounds[-1][side]["draws"], "kept": dice}
    total = _total(spec, "initiator", rounds[-1]["initiator"])
    verdict = _judge(spec, rounds[-1])
    out: dict[str, Any] = {"value": {total: 1.0}, "exact": True}
    if verdict != "reroll":
        p = 1.0 if verdict == "initiator" else 0.0
    else:
        left = spec["max_rerolls"] - (len(rounds) - 1)
        if left <= 0:
            p = 0.0
        else:
            d1 = _total_dist(spec, spec)
            d2 = _total_dist(spec, spec["opponent"])
            p = float(_p_win(spec, d1, d2, left - 1)[0])
        out["tie"] = True
    out["outcome"] = {"failure": 1.0 - p, "success": p}
    return out
