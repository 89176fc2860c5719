"""ALKEMY's decision in words (``rules.advise``): each choice's label, the
marks and the why line that names what separates the advised pair from
the next best pair of the same side (docs/RULES-DECISIONS.md, ALKEMY:
the side's chance to win, then to stay tied at the cap, then the pair as
it lies, then the higher total, then the lowest dice).

Pure functions of the priced choices ``model.advise`` lists.

>>> cs = [{"action": {"do": "accept", "side": "initiator"}, "win": 1.0, "tie": 0.0, "faces": [4, 5],
...        "total": 9, "pair": "axe–sword", "dice": [0, 1]},
...       {"action": {"do": "keep", "dice": [0, 2], "side": "initiator"}, "win": 0.0, "tie": 0.0,
...        "faces": [4, 1], "total": 5, "pair": "axe–axe", "dice": [0, 2]}]
>>> worded(cs, cs[0]["action"], opposed=False)["why"]
'“Keep 4 + 5 as they are (axe–sword)” over “Keep 4 + 1 instead (axe–axe)”: success 100 % against 0 %.'
"""

from __future__ import annotations

from ..dice import mark_choices, percent, why_line

__all__ = ["label", "worded"]

_SIDE_NAMES = {"initiator": "Initiator", "opponent": "Opponent"}


def label(c: dict, opposed: bool) -> str:
    """A choice's words: "Keep 4 + 5 as they are (axe–sword)", "Keep 4 + 1
    instead"; opposed, whose.

    >>> label({"action": {"do": "keep", "side": "opponent"}, "faces": [6, 2], "pair": None}, True)
    'Opponent: keep 6 + 2 instead'
    """
    a = c["action"]
    text = "Keep " + " + ".join(str(f) for f in c.get("faces") or ())
    text += " as they are" if a.get("do") == "accept" else " instead"
    if c.get("pair"):
        text += f" ({c['pair']})"
    side = _side(a)
    return f"{_SIDE_NAMES[side]}: {text[0].lower()}{text[1:]}" if opposed else text


def _side(action: dict) -> str:
    """Whose choice an action is: the initiator's unless it names the opponent."""
    return action.get("side") or "initiator"


def _total(c: dict) -> int:
    """A choice's total (none given: 0)."""
    return c.get("total") or 0


def _chances(c: dict, side: str) -> tuple:
    """(the side's chance to win, to stay tied at the cap)."""
    win, tie = float(c.get("win") or 0.0), float(c.get("tie") or 0.0)
    return (win, tie) if side == "initiator" else (max(0.0, 1.0 - win - tie), tie)


def _rank(c: dict, side: str) -> tuple:
    a = c["action"]
    return tuple(round(x, 12) for x in _chances(c, side)) + (
        a.get("do") == "accept", _total(c), [-i for i in a.get("dice") or c.get("dice") or ()])


def _reason(a: dict, b: dict, side: str, opposed: bool) -> str:
    who = ("the initiator wins" if side == "initiator" else "the opponent wins") if opposed else "success"
    (wa, ta), (wb, tb) = _chances(a, side), _chances(b, side)
    if abs(wa - wb) > 1e-12:
        return f"{who} {percent(wa)} against {percent(wb)}"
    if abs(ta - tb) > 1e-12:
        return f"{who} {percent(wa)} either way; still tied at the cap (the GM decides) {percent(ta)} " \
               f"against {percent(tb)}"
    if a["action"].get("do") == "accept":
        return "the same chances: the pair as it lies is yours to keep (the text gives its symbols no effect)"
    if _total(a) != _total(b):
        return f"the same chances, and the higher total ({a.get('total')} against {b.get('total')})"
    return "the same chances"


def worded(choices: list, advice: dict | None, opposed: bool) -> dict:
    """``choices`` with their ``label`` and ``marks`` (``best_play`` on
    the advised one), and the decision's ``why``: the advised pair over the
    next best pair of the side that chooses now."""
    adv = mark_choices(choices, advice, lambda c: label(c, opposed))
    side = _side(advice or {})
    others = [c for c in choices if c is not adv and _side(c["action"]) == side]
    _runner, why = why_line(adv, others, lambda c: _rank(c, side), lambda a, b: _reason(a, b, side, opposed))
    return {"choices": choices, "why": why}
