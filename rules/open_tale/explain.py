"""Why an Open Tale roll came out as it did: the sentences of a result's
``explain``, each a small function of the normalized spec and the result
(the Open Tale rules text, "3. Roll system"; RULES-NOTES Open Tale
1-3). The model is ``rules.open_tale``; nothing here rolls or decides.

>>> import rules
>>> from rules.dice import ScriptedRng
>>> r = rules.roll("open_tale", {"level": 5, "dice": [10, 6], "modifiers": ["advantage"], "target": 12},
...                ScriptedRng([7, 2, 6, 3]))
>>> r["explain"]
['Level 5: power 6 + 2 × 5 = 16; rolled d10 + d6.', 'Advantage: the d6 showed the smallest value, 2; rolled again: 6, keeping the second: 6.', 'The d6 hit its maximum and exploded: 6 → 3 = 9.', 'Score 16: 7 + 9, reaching the target 12: success.']
"""

from __future__ import annotations

from .terms import (HEROIC_DIE, MAX_NET, NET_NAMES, PICK_HIGH, POWER_BASE, POWER_PER_LEVEL, modifier_text,
                    pair_text, power)

__all__ = ["explain"]

#: Open Tale, 3.2: which face each modifier keeps after its reroll.
_KEEPS = {-MAX_NET: "keeping the smaller", -1: "keeping the second", 1: "keeping the second",
          MAX_NET: "keeping the higher"}

#: RULES-NOTES Open Tale 3: how a tie between dice is broken, chosen before rolling.
_TIE_BREAKS = {"best": "the better expected score", "larger": "the larger die",
               "smaller": "the smaller die", "target": "the better chance to reach the target"}


def _power(spec: dict, result: dict) -> list[str]:
    level = spec["level"]
    badge = f" and the Heroic d{HEROIC_DIE} (its badge spent)." if spec["heroic"] else "."
    return [f"Level {level}: power {POWER_BASE} + {POWER_PER_LEVEL} × {level} = {power(level)}; "
            f"rolled {pair_text(spec['dice'])}{badge}"]


def _compensation(spec: dict, result: dict) -> list[str]:
    mods = spec["modifiers"]
    return ["Modifiers compensate: " + modifier_text(mods) + "."] if len(mods) > 1 else []


def _tie_note(result: dict) -> str:
    """Which dice the modifier's choice was tied between, and how it was broken."""
    reroll = result["reroll"]
    if len(reroll["tied"]) < 2:
        return ""
    others = ", ".join(result["dice"][j]["name"] for j in reroll["tied"] if j != reroll["die"])
    how = _tie_break_words(reroll, result)
    return f" (tied with {others}; tie break '{reroll['tie_break']}': {how}, chosen before rolling)"


def _tie_break_words(reroll: dict, result: dict) -> str:
    """How the tie was broken; ``target``, with the target it reached for
    (none set: as ``best``)."""
    how = _TIE_BREAKS[reroll["tie_break"]]
    if reroll["tie_break"] == "target":
        how += f" of {result['target']}" if result.get("target") is not None else " (none set: " \
            "the better expected score)"
    return how


def _modifier(spec: dict, result: dict) -> list[str]:
    reroll = result["reroll"]
    net = result["modifier"]["net"]
    if reroll is None:
        return ["No modifier applies."] if spec["modifiers"] else []
    which = "highest" if PICK_HIGH[net] else "smallest"
    name = result["dice"][reroll["die"]]["name"]
    return [f"{NET_NAMES[net].title()}: the {name} showed the {which} value, {reroll['old']}"
            f"{_tie_note(result)}; rolled again: {reroll['new']}, {_KEEPS[net]}: {reroll['kept']}."]


def _explosions(spec: dict, result: dict) -> list[str]:
    lines = [f"The {d['name']} hit its maximum and exploded: "
             + " → ".join(str(x) for x in [d["face"]] + d["explosions"]) + f" = {d['total']}."
             for d in result["dice"] if d["explosions"]]
    if result["capped"]:
        lines.append(f"Safety cap reached: a die stops after {result['cap']} explosions "
                     "(a limit far beyond any real roll).")
    return lines


def _score(spec: dict, result: dict) -> list[str]:
    text = f"Score {result['value']}: " + " + ".join(str(d["total"]) for d in result["dice"])
    target = result["target"]
    if target is None:
        return [text + "."]
    if result["outcome"] == "success":
        return [text + f", reaching the target {target}: success."]
    return [text + f", below the target {target}: failure."]


_EVENTS = (_power, _compensation, _modifier, _explosions, _score)


def explain(spec: dict, result: dict) -> list[str]:
    """The sentences of ``result["explain"]``, event by event."""
    return [line for event in _EVENTS for line in event(spec, result)]
