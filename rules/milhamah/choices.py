"""Milhamah's decision in words (``rules.advise``): each choice's label,
the marks, and the why line that names what separates the advised choice
from the next best (docs/RULES-DECISIONS.md, Milhamah: the initiator's order and
the reactor's).

Pure functions of the priced choices ``probability.advise`` lists; nothing
here prices anything.

>>> cs = [{"action": {"do": "reroll", "dice": [1, 4]}, "meets": 0.62, "success": 0.3, "natural": 0.1,
...        "botch": 0.0, "critical": 0.0, "outcome": {"natural_success": 0.0}},
...       {"action": {"do": "accept"}, "meets": 0.4, "success": 0.3, "natural": 0.1, "botch": 0.0,
...        "critical": 0.0, "outcome": {"natural_success": 0.0}}]
>>> worded(cs, cs[0]["action"], {"shoresh": "אשר"})["why"]
'“Reroll dice 2 and 5” over “Accept the dice”: meets the bar 62.0 % against 40.0 %.'
"""

from __future__ import annotations

from ..dice import mark_choices, percent, why_line
from .letters import UNCOUNTERABLE_BONUS

__all__ = ["label", "rank", "worded"]

#: The initiator's order (docs/RULES-DECISIONS.md, Milhamah, "Best play"), as (key, better when
#: higher?, words): the main part, then the fewest dice, then the rest.
MAIN = (("meets", True, "meets the bar"), ("success", True, "success"), ("natural", True, "natural"),
        ("botch", False, "botch"))
REST = (("critical", True, "critical (the hit location follows)"), ("natural_success", True, "natural success"))
#: The reactor's order ("Opposed best play"): the roller's chances, lowest first.
REACTOR = (("meets", False, "the roller meets the bar"), ("success", False, "the roller's success"),
           ("critical", False, "the roller's critical"))

_REWARDS = {"merit": "Natural: a Merit Point", "uncounterable": f"Natural: +{UNCOUNTERABLE_BONUS}, cannot be countered",
            "critical": "Natural: let them react"}


def _dice_words(dice: list) -> str:
    n = [str(i + 1) for i in dice]
    return f"die {n[0]}" if len(n) == 1 else "dice " + ", ".join(n[:-1]) + " and " + n[-1]


def label(action: dict, spec: dict) -> str:
    """A choice's words, as its button shows them.

    >>> label({"do": "reroll", "dice": [0, 3], "side": "opponent"}, {})
    'Opponent: reroll dice 1 and 4'
    >>> label({"do": "natural", "reward": "successes"}, {"shoresh": "אשר"}), label({"do": "stand"}, {})
    ('Natural: +3 successes', 'Stand: end my turn')
    """
    opp = action.get("side") == "opponent"
    do = action.get("do")
    if do == "reroll":
        return ("Opponent: reroll " if opp else "Reroll ") + _dice_words(list(action.get("dice") or ()))
    if do == "natural":
        return _REWARDS.get(action.get("reward"), f"Natural: +{len(spec.get('shoresh') or '')} successes")
    if do == "stand":
        return "Opponent: stand" if opp else "Stand: end my turn"
    return {"accept": "Accept the dice", "hit_location": "Roll the hit location"}.get(do, str(do))


def _figure(c: dict, key: str) -> float:
    v = c["outcome"].get(key, 0.0) if key == "natural_success" else c.get(key, 0.0)
    return round(float(v or 0.0), 12)


def _dice(c: dict) -> int:
    return len(c["action"].get("dice") or ()) if c["action"].get("do") == "reroll" else 0


def rank(c: dict, reactor: bool) -> tuple:
    """A choice's place in its side's order (bigger is better): the
    initiator's chances, then the fewest dice, then a critical and a
    natural success, then the Merit Point; the reactor's, the roller's
    chances lowest first, then the fewest dice."""
    def part(crit):
        return tuple(_figure(c, k) if up else -_figure(c, k) for k, up, _w in crit)
    if reactor:
        return part(REACTOR) + (-_dice(c),)
    return part(MAIN) + (-_dice(c),) + part(REST) + (c["action"].get("reward") == "merit",)


def _reason(a: dict, b: dict, reactor: bool) -> str:
    """What separates ``a`` from ``b``: the first of the order's figures
    that differs (with the first figure, when it is the same, said once)."""
    order = REACTOR if reactor else MAIN + REST
    first = order[0]
    for key, _up, words in order:
        pa, pb = _figure(a, key), _figure(b, key)
        if pa != pb:
            lead = "" if key == first[0] else f"{first[2]} {percent(_figure(a, first[0]))} either way; "
            return f"{lead}{words} {percent(pa)} against {percent(pb)}"
    return _same_chances(a, b)


def _same_chances(a: dict, b: dict) -> str:
    """What separates ``a`` from ``b`` when their chances are the same:
    fewer dice (or none), the Merit Point, or nothing."""
    if _dice(a) < _dice(b):
        return "the same chances, with " + ("no reroll spent" if not _dice(a) else "fewer dice")
    if a["action"].get("reward") == "merit":
        return "the same chances, and the Merit Point besides"
    return "the same chances"


def worded(choices: list, advice: dict | None, spec: dict) -> dict:
    """``choices`` with their ``label`` and ``marks`` (``best_play`` on the
    advised one), and the decision's ``why``: the advised choice over the
    next best in its side's order (why those dice, for an advised reroll,
    is the odds' longer ``why``)."""
    adv = mark_choices(choices, advice, lambda c: label(c["action"], spec))
    reactor = (advice or {}).get("side") == "opponent"
    _runner, why = why_line(adv, [c for c in choices if c is not adv], lambda c: rank(c, reactor),
                            lambda a, b: _reason(a, b, reactor))
    return {"choices": choices, "why": why}
