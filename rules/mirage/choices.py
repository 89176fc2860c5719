"""Mirage's decision in words (``rules.advise``): each choice's label, the
marks (best play; on a close call between a better chance and a smaller
risk of a Condition, both "best chance" and "safest"), and the why line
that names what separates the advised choice from the next best
(docs/RULES-DECISIONS.md, "Mirage: what a Condition costs").

Pure functions of the priced choices ``prayer.advise`` lists.

>>> cs = [{"action": {"do": "accept"}, "win": 0.0, "condition": 0.0, "bonus": 0.0},
...       {"action": {"do": "pray", "dice": [1]}, "win": 0.028, "condition": 1.0, "bonus": 0.003}]
>>> w = worded(cs, {"do": "accept"}, "failure", 0.1, opposed=True)
>>> [c["marks"] for c in cs]
[['best_play', 'safest'], ['best_chance']]
>>> print(w["why"])
“Accept the failure” over “Pray with die 2”: win 0 % against 2.8 %, Condition 0 % against 100 %: 2.8 points more chance to win is not worth 100 points more risk of a Condition (one is worth 10).
"""

from __future__ import annotations

from ..dice import mark_choices, percent, why_line

__all__ = ["label", "worded"]

#: Between plays of equal worth and 2+: accepting, then a tie-break, then a prayer.
_ORDER = {"accept": 0, "tiebreak": 1, "pray": 2}
EPS = 1e-12


def label(action: dict, outcome: str | None = None) -> str:
    """A choice's words, as its button shows them.

    >>> label({"do": "pray", "dice": [0, 2]}), label({"do": "accept"}, "tie"), label({"do": "tiebreak"})
    ('Pray with dice 1 and 3', 'Accept the tie', 'Tie-break: roll again')
    """
    verb = action.get("do")
    if verb == "pray":
        return _pray_label(action)
    if verb == "tiebreak":
        return "Tie-break: roll again"
    return {"tie": "Accept the tie", "failure": "Accept the failure"}.get(outcome, "Accept the roll")


def _pray_label(action: dict) -> str:
    """A prayer's words: its dice by their place, counted from 1."""
    n = [str(i + 1) for i in action.get("dice") or ()]
    return "Pray with " + (f"die {n[0]}" if len(n) == 1 else "dice " + ", ".join(n[:-1]) + " and " + n[-1])


def _win(c: dict) -> float:
    return float(c.get("win", c.get("success", 0.0)) or 0.0)


def _condition(c: dict) -> float:
    """A choice's chance of a Condition (none given: 0)."""
    return float(c.get("condition") or 0.0)


def _bonus(c: dict) -> float:
    """A choice's chance of 2+ (none given: 0)."""
    return float(c.get("bonus") or 0.0)


def _worth(c: dict, cost: float) -> float:
    return _win(c) - cost * _condition(c)


def _rank(c: dict, cost: float) -> tuple:
    """Best play's order: the worth, then 2+, then accepting before a
    tie-break before a prayer, then fewer dice (bigger is better)."""
    a = c["action"]
    return (round(_worth(c, cost), 12), round(_bonus(c), 12), -_ORDER.get(a.get("do"), 3),
            -len(a.get("dice") or ()))


def _trades(a: dict, b: dict) -> bool:
    """Does one of ``a``, ``b`` win more often and the other risk fewer
    Conditions (a trade a player may weigh their own way)?"""
    dw = _win(a) - _win(b)
    dc = _condition(a) - _condition(b)
    return (dw > EPS and dc > EPS) or (dw < -EPS and dc < -EPS)


def _points(a: float, b: float = 0.0) -> str:
    """``a - b`` in points, as the difference of the two percentages shown."""
    text = f"{abs(round(a * 1000) - round(b * 1000)) / 10:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _reason(a: dict, b: dict, cost: float, opposed: bool) -> str:
    """What separates ``a`` (advised) from ``b`` (next best)."""
    if _trades(a, b):
        return _trade(a, b, cost, opposed)
    word = "win" if opposed else "success"
    wa, wb = _win(a), _win(b)
    ca, cb = _condition(a), _condition(b)
    risks = f"Condition {percent(ca)} against {percent(cb)}"
    if abs(wa - wb) > EPS:
        return f"{word} {percent(wa)} against {percent(wb)}" + (f", and {risks}" if abs(ca - cb) > EPS else "")
    if abs(ca - cb) > EPS:
        return f"{word} {percent(wa)} either way; {risks}"
    return _same_chances(a, b)


def _same_chances(a: dict, b: dict) -> str:
    """What separates ``a`` from ``b`` when they win and risk a Condition
    equally: the chance of 2+, else that ``a`` risks nothing now."""
    ba, bb = _bonus(a), _bonus(b)
    if abs(ba - bb) > EPS:
        return f"the same chances, and 2+ successes {percent(ba)} against {percent(bb)}"
    return "the same chances" + (", risking nothing now" if a["action"].get("do") != "pray" else "")


def _trade(a: dict, b: dict, cost: float, opposed: bool) -> str:
    """One wins more often, the other risks fewer Conditions: the figures,
    and whether the extra chance is worth the extra risk at ``cost``."""
    wa, wb = _win(a), _win(b)
    ca, cb = _condition(a), _condition(b)
    word, to = ("win", "to win") if opposed else ("success", "to succeed")
    price = f"(one is worth {_points(cost)}" + (", since a fourth Breaks the character)" if cost >= 1 else ")")
    worth = "is worth" if wa > wb else "is not worth"
    return (f"{word} {percent(wa)} against {percent(wb)}, Condition {percent(ca)} against {percent(cb)}: "
            f"{_points(wa, wb)} points more chance {to} {worth} {_points(ca, cb)} points more risk of a "
            f"Condition {price}")


def worded(choices: list, advice: dict | None, outcome: str | None, cost: float, opposed: bool,
           close: float = 0.1) -> dict:
    """``choices`` with their ``label`` and ``marks``, and the decision's
    ``why``. ``best_play`` marks the advised choice; when the next best
    trades with it (one wins more often, the other risks fewer Conditions)
    and their worths are within ``close``, the one that wins more often is
    also marked ``best_chance`` and the other ``safest``: a close call the
    player may weigh their own way."""
    adv = mark_choices(choices, advice, lambda c: label(c["action"], outcome))
    others = [c for c in choices if c is not adv]
    runner, why = why_line(adv, others, lambda c: _rank(c, cost), lambda a, b: _reason(a, b, cost, opposed))
    _mark_close_call(adv, runner, cost, close)
    return {"choices": choices, "why": why}


def _mark_close_call(adv: dict, runner: dict | None, cost: float, close: float) -> None:
    """On a close call (``worded``), the one of ``adv`` and ``runner``
    that wins more often marked ``best_chance``, the other ``safest``."""
    if runner is not None and _trades(adv, runner) and _worth(adv, cost) - _worth(runner, cost) < close:
        chance, safe = (adv, runner) if _win(adv) > _win(runner) else (runner, adv)
        chance["marks"].append("best_chance")
        safe["marks"].append("safest")
