"""Why a Mirage roll came out as it did: the sentences of a result's
``explain``, each a small function of the normalized spec and the result
(the Mirage rules text; RULES-NOTES Mirage 1-6). The model is
``rules.mirage``; nothing here rolls or decides.

>>> import rules
>>> from rules.dice import ScriptedRng
>>> r = rules.roll("mirage", {"attribute": 8, "skill": 6, "helpers": 2}, ScriptedRng([6, 3]))
>>> r["explain"][:3]  # doctest: +ELLIPSIS
['Your base dice: Strength d8 & skill d6.', 'Steps: 2 helpers +2: net +2, d8 & d6 → d10 & d8.', 'Your dice: d8:6, d10:3 → 1 success (...).']
"""

from __future__ import annotations

from ..dice import format_pool
from .tables import (CONDITION_FACE, DIE_SIZES, GREAT_ON, MAX_CONDITIONS, MAX_PRAYER_BONUS, MAX_TIEBREAKS, SKILLS,
                     SUCCESS_ON, condition_type)

__all__ = ["explain", "die_label", "title", "signed", "plural"]


def title(name) -> str:
    """'survival_instincts' → 'Survival Instincts'."""
    return str(name or "").replace("_", " ").title()


def signed(n: int) -> str:
    """+2, 0, −1 (a true minus sign).

    >>> signed(2), signed(0), signed(-1)
    ('+2', '0', '−1')
    """
    return f"+{n}" if n > 0 else ("0" if n == 0 else f"\u2212{-n}")


def plural(n: int, word: str, many: str | None = None) -> str:
    """'1 success', '2 successes'.

    >>> plural(1, "helper"), plural(3, "success", "successes")
    ('1 helper', '3 successes')
    """
    return f"{n} {word if n == 1 else (many or word + 's')}"


def _successes(n: int) -> str:
    return plural(n, "success", "successes")


# --------------------------------------------------------------------------
# A die's name (stored on each die for the page and screen readers).

_KIND_TEXT = {"attribute": "attribute die", "skill": "skill die", "gear": "gear die"}


def _die_name(kind: str, side: dict, added: bool, opponent: bool) -> str:
    if kind == "skill" and added:
        return "added die (step up)"
    name = side["attribute_name"] if kind == "attribute" else side["skill_name"]
    hidden = kind == "gear" or (opponent and not side["skill_name"])
    return _KIND_TEXT[kind] + ("" if hidden or not name else f" ({title(name)})")


def die_label(kind: str, side: dict, added: bool = False, opponent: bool = False) -> str:
    """'Attribute die (Agility)', 'Skill die (Grace)', "Opponent's gear die"."""
    text = _die_name(kind, side, added, opponent)
    return f"Opponent's {text}" if opponent else text[0].upper() + text[1:]


# --------------------------------------------------------------------------
# One side's dice: base dice, steps, gear ("Roll the Dice", "Modifiers").

def _base_name(side: dict, kind: str, sides: int, named: bool) -> str:
    if kind == "attribute":
        name = title(side["attribute_name"]) if named else "attribute"
    else:
        name = title(side["skill_name"]) if side["skill_name"] else "skill"
    return f"{name} d{sides}"


def _base_line(side: dict, part: dict, who: str) -> list[str]:
    named = who == "You" or bool(side["skill_name"])
    names = " & ".join(_base_name(side, k, s, named) for k, s in part["base"])
    if len(part["base"]) == 1:
        return [f"{who}: no skill, so the attribute die alone: {names}."]
    return [f"{'Your' if who == 'You' else who + chr(39) + 's'} base dice: {names}."]


def _skill_note(side: dict) -> list[str]:
    skill = side["skill_name"]
    if not skill or SKILLS[skill] == side["attribute_name"]:
        return []
    return [f"{title(skill)} is a {title(SKILLS[skill])} skill; rolled with "
            f"{title(side['attribute_name'])} as asked."]


def _step_names(side: dict, st: dict) -> list[str]:
    ctype = condition_type(side["attribute_name"])
    parts = [
        (st["difficulty"], f"{title(side['difficulty'])} {signed(st['difficulty'])}"),
        (st["helpers"], f"{plural(st['helpers'], 'helper')} {signed(st['helpers'])}"),
        (st["conditions"], f"{plural(-st['conditions'], ctype + ' Condition')} {signed(st['conditions'])}"),
        (st["modifier"], f"modifier {signed(st['modifier'])}"),
    ]
    return [text for value, text in parts if value]


def _pool(pool: list) -> str:
    return format_pool([s for _, s in pool])


def _steps_line(side: dict, part: dict) -> list[str]:
    st = part["steps"]
    names = ", ".join(_step_names(side, st))
    if not names:
        return []
    if not st["net"]:
        return [f"Steps: {names}: net 0, the dice stay {_pool(part['base'])}."]
    return [f"Steps: {names}: net {signed(st['net'])}, {_pool(part['base'])} \u2192 {_pool(part['stepped'])}."]


def _lost_line(part: dict) -> list[str]:
    st = part["steps"]
    if not st["lost"]:
        return []
    up = st["net"] > 0
    why = f"never above 2d{DIE_SIZES[-1]}" if up else f"never below one d{DIE_SIZES[0]}"
    return [f"{plural(st['lost'], 'step')} {'up' if up else 'down'} lost: {why} (\"Modifiers\")."]


def _gear_line(side: dict) -> list[str]:
    if not side["gear"]:
        return []
    return [f"Gear dice {format_pool(side['gear'])} are added as they are "
            "(modifiers step the base dice only)."]


def _side(side: dict, part: dict, who: str) -> list[str]:
    return (_base_line(side, part, who) + _skill_note(side) + _steps_line(side, part)
            + _lost_line(part) + _gear_line(side))


def _dice_text(dice: list, n: int) -> str:
    shown = ", ".join(f"d{d['sides']}:{d['face']}" for d in dice)
    return f"{shown} \u2192 {_successes(n)} ({SUCCESS_ON}\u2013{GREAT_ON - 1} is one, {GREAT_ON}+ is two)."


# --------------------------------------------------------------------------
# The events of a result, in the order they happened.

def _earlier_rolls(spec: dict, result: dict) -> list[str]:
    """Tie-breaks: each tied roll, then which roll this is."""
    lines = []
    for t in result["tied_rounds"]:
        after = " after the prayer" if t["prayed"] else ""
        lines.append(f"Roll {t['round']}: {_successes(t['successes'])} against "
                     f"{t['opponent']['successes']}{after}: a tie, rolled again (tie-break).")
    if lines:
        lines.append(f"Tie-break {len(lines)}: both sides roll the opposed roll again.")
    return lines


def _gained_earlier(spec: dict, result: dict) -> list[str]:
    prayed = result["prayed"]
    if not (prayed and result["condition_gained"]) or prayed["round"] > len(result["tied_rounds"]):
        return []
    return [f"The {result['condition_gained']} Condition the prayer cost on roll {prayed['round']} "
            "counts on this roll."]


def _own_dice(spec: dict, result: dict) -> list[str]:
    lines = _side(spec, result, "You")
    before = result["before_prayer"]
    if before is None:
        return lines + ["Your dice: " + _dice_text(result["dice"], result["successes"])]
    return lines + ["Before the prayer: " + _dice_text(before["dice"], before["successes"])[:-1]
                    + f": {before['outcome'].replace('_', ' ')}."]


def _opponent(spec: dict, result: dict) -> list[str]:
    opp = result["opponent"]
    if opp is None:
        return []
    return (_side(spec["opponent"], opp, "Opponent")
            + ["Opponent's dice: " + _dice_text(opp["dice"], opp["successes"])])


def _bonus_words(prayed: dict) -> str:
    kind = "temple" if prayed["bonus"] == MAX_PRAYER_BONUS else "preparatory prayer"
    moved = [f"d{a} \u2192 d{b}" for a, b in prayed["moved"]]
    if prayed["added"]:
        moved.append(f"a d{prayed['added_sides']} added (a lone die steps up by adding one)")
    text = f" with {kind} {signed(prayed['bonus'])}" + (f" ({', '.join(moved)})" if moved else "")
    if prayed["lost"]:
        text += f"; {plural(prayed['lost'], 'step')} lost (no rerolled base die could step up)"
    return text


def _prayer(spec: dict, result: dict) -> list[str]:
    before = result["before_prayer"]
    if before is None:
        return []
    prayed = result["prayed"]
    old = before["dice"]
    names = ", ".join(f"d{old[i]['sides']}:{old[i]['face']}" for i in prayed["dice"])
    bonus = _bonus_words(prayed) if prayed["bonus"] else ""
    return [f"Prayer: rerolled {names}{bonus}. All dice count now; there is no going back.",
            "After the prayer: " + _dice_text(result["dice"], result["successes"])]


_VERDICTS = {
    "failure": "Failure: something goes wrong; the GM says what.",
    "success": "Success: you reach your goal.",
}


def _tie_words(result: dict) -> str:
    line = ("A tie: the active side fails, unless the GM asks for a tie-break: the opposed roll "
            "rolled again (\"Opposed Rolls\").")
    if result["broken"]:
        return line[:-1] + "; Broken, you cannot roll again."
    if not result["can_tiebreak"]:
        return line[:-1] + f"; after {MAX_TIEBREAKS} tie-breaks the GM decides."
    return line


def _verdict(spec: dict, result: dict) -> list[str]:
    lines = []
    opp = result["opponent"]
    if opp is not None:
        m = opp["successes"]
        lines.append(f"Opponent's {_successes(m)} cancel{'s' if m == 1 else ''} as many of yours: "
                     f"net {signed(result['value'])}.")
    outcome = result["outcome"]
    if outcome == "tie":
        return lines + [_tie_words(result)]
    if outcome == "success_with_bonus":
        extra = result["extra_successes"]
        return lines + [f"Success with a bonus effect: {plural(extra, 'extra success', 'extra successes')} "
                        f"(in combat, +{extra} damage)."]
    return lines + [_VERDICTS[outcome]]


def _condition_words(spec: dict, result: dict) -> str:
    ctype = result["condition_gained"]
    held = spec["conditions"][ctype]
    msg = (f"A die shows {CONDITION_FACE} after praying: you gain one {ctype} Condition of your choice "
           f"(one, however many {CONDITION_FACE}s; {title(spec['attribute_name'])} is {ctype}).")
    if result["broken"]:
        return msg + f" You already had {MAX_CONDITIONS} {ctype} Conditions: you are Broken."
    return msg + f" You now have {plural(held + 1, ctype + ' Condition')}."


def _closing(spec: dict, result: dict) -> list[str]:
    """What the prayer cost, or whether one may still be made."""
    if result["before_prayer"] is not None:
        if result["condition_gained"]:
            return [_condition_words(spec, result)]
        return [f"No die shows {CONDITION_FACE}: the prayer costs no Condition."]
    if spec["passive"]:
        return ["A passive roll: no prayer (\"Passive Rolls\")."]
    if result["can_pray"]:
        return ["You may pray once: reroll any dice not showing 1; a 1 afterwards costs a "
                f"{condition_type(spec['attribute_name'])} Condition."]
    return []


def _accepted(spec: dict, result: dict) -> list[str]:
    if not result.get("accepted"):
        return []
    return ["Accepted as the dice lie: no further step on this roll."]


_EVENTS = (_earlier_rolls, _gained_earlier, _own_dice, _opponent, _prayer, _verdict, _closing, _accepted)


def explain(spec: dict, result: dict) -> list[str]:
    """The sentences of ``result["explain"]``, event by event."""
    return [line for event in _EVENTS for line in event(spec, result)]
