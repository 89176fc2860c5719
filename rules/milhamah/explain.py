"""The words of a Milhamah result: short sentences saying why it came out as
it did. ``rules.milhamah`` decides (counts, bonuses, outcome, whose turn);
this module only words its evaluation, one small function per kind of
event, in the order a player reads them. Players see these lines, so they
name the rules text's sections (docs/SOURCES.md), never our notes.

The botch scale (docs/RULES-DECISIONS.md; Milhamah RPG, The final results:
"For each wild face present, the botch gets more catastrophic"):
``BOTCH_GRADES[min(wilds, 4)]``.

>>> grade(0), grade(2), grade(9)
('a botch', 'a disaster', 'a catastrophe beyond words, grimly hilarious')
"""

from __future__ import annotations

from typing import NamedTuple

from .letters import written

__all__ = ["explain", "grade", "plural", "BOTCH_GRADES", "OUTCOME_WORDS", "COMBAT_TITLES"]

#: The combat modifiers in words ("Combat modifiers").
COMBAT_TITLES = {"engaged": "already fighting someone else",
                 "surprised": "doesn't see you (surprised)",
                 "cover": "partial or complete cover",
                 "ambushed": "has just ambushed you"}

#: A botch made worse by 0, 1, 2, 3, and 4 or more wilds.
BOTCH_GRADES = ("a botch", "a bad botch", "a disaster", "a catastrophe",
                "a catastrophe beyond words, grimly hilarious")

#: One wording of each outcome, everywhere (result, header, history, odds).
OUTCOME_WORDS = {"botch": "botch", "failure": "failure", "success_at_cost": "success at a cost",
                 "success": "success", "natural_success": "natural success",
                 "critical_success": "critical success"}


def grade(wilds: int) -> str:
    """The botch's grade for its number of wilds."""
    return BOTCH_GRADES[max(0, min(int(wilds), len(BOTCH_GRADES) - 1))]


def plural(n: int, word: str) -> str:
    """'1 wild', '2 wilds', '1 success', '3 successes', '2 dice'.

    >>> plural(1, "wild"), plural(2, "success"), plural(2, "die")
    ('1 wild', '2 successes', '2 dice')
    """
    if n == 1:
        return f"{n} {word}"
    return f"{n} " + {"die": "dice", "success": "successes"}.get(word, word + "s")


class _Turn(NamedTuple):
    spec: dict
    ev: dict
    result: dict
    log: list

    @property
    def me(self) -> dict:
        return self.ev["initiator"]

    @property
    def opp(self) -> dict | None:
        return self.spec["opponent"]


def explain(spec: dict, ev: dict, result: dict, log: list) -> list:
    """The lines for one evaluation (``model.evaluate``) of a turn whose
    steps were ``log``; ``result`` is the rest of what the page shows."""
    t = _Turn(spec, ev, result, log)
    lines: list = []
    for part in _PARTS:
        lines += part(t)
    return lines


def _shoresh(t: _Turn) -> list:
    sh = written(t.spec["shoresh"])
    doubled = [ch for ch in dict.fromkeys(t.spec["shoresh"]) if t.spec["shoresh"].count(ch) > 1]
    note = f" ({doubled[0]} is doubled: a natural needs two)" if doubled else ""
    return [f"Shoresh {sh}: successes are dice showing {' '.join(t.spec['shoresh'])}{note}."]


def _pool(t: _Turn) -> list:
    counts: dict = {}
    for d in t.result["dice"]:
        counts[d["colour"]] = counts.get(d["colour"], 0) + 1
    pool = ", ".join(f"{n} {c}" for c, n in counts.items())
    change = f" ({t.spec['dice_change']:+d}D from a status)" if t.spec["dice_change"] else ""
    return [f"Rolled {len(t.result['dice'])}D: {pool}{change}."]


def _step_line(entry: dict) -> str:
    who = "" if entry["side"] == "initiator" else "The opponent: "
    if entry["do"] == "reroll":
        return f"{who}Rerolled {plural(len(entry['dice']), 'die')}; the others stayed frozen."
    if entry["do"] == "cipher":
        return f"{who}Cipher: flipped {plural(len(entry['dice']), 'die')} to the opposite face."
    if entry["do"] == "natural":
        return f"Natural shoresh reward chosen: {_REWARD_WORDS[entry['reward']]}."
    if entry["do"] == "stand":
        return "The opponent stood on their dice." if who else "You stood: your turn ends with the dice as they lie."
    if entry["do"] == "accept":
        return "You accepted the dice as they lie: the turn ends."
    return ""


_REWARD_WORDS = {"successes": "a success bonus", "merit": "a Merit Point",
                 "uncounterable": "+1 and cannot be countered",
                 "critical": "let the opponent react (a critical if they get no success)"}


def _steps(t: _Turn) -> list:
    lines = [_step_line(e) for e in t.log if isinstance(e, dict)]
    if t.result["first_natural"] and _rerolled(t):
        lines.append("The first roll was a natural shoresh; rerolling forfeited its first-roll bonus.")
    return [line for line in lines if line]


def _rerolled(t: _Turn) -> bool:
    return any(isinstance(e, dict) and e["do"] == "reroll" and e["side"] == "initiator" for e in t.log)


def _counts(t: _Turn) -> list:
    me = t.me
    parts = [_matches_phrase(me)]
    if me["wilds"]:
        parts.append(_wilds_phrase(len(me["wilds"]), me["wilds_count"], "because you are"))
    text = "; ".join(parts)
    return [text[0].upper() + text[1:] + f": {plural(me['successes'], 'success')}."]


def _matches_phrase(me: dict) -> str:
    """The shoresh letters the dice show, and on how many dice."""
    if not me["matches"]:
        return "no die shows a shoresh letter"
    shown = list(dict.fromkeys(me["faces"][i] for i in me["matches"]))
    return " ".join(shown) + (" match" if len(shown) > 1 else " matches") + f" ({plural(len(me['matches']), 'die')})"


def _wilds_phrase(n: int, count: bool, why: str) -> str:
    if count:
        return f"{plural(n, 'wild')} count{'s' if n == 1 else ''} {why} acting"
    return f"{plural(n, 'wild')} {'doesn' if n == 1 else 'don'}'t count {why} reacting"


def _natural(t: _Turn) -> list:
    if not t.me["natural"]:
        return []
    lines = ["Natural shoresh: every letter shows without wilds."]
    if t.ev["pending"] and t.opp:
        lines.append("Choose how to use it to end your turn: +1 and the roll cannot be countered, "
                     "or let the opponent react (a critical success if they end with no non-wild success).")
    return lines


def _bonus_line(t: _Turn, kind: str, n: int) -> str:
    if kind == "first":
        return f"+{n} for a natural shoresh on the first roll (\"a bonus for getting it on the first roll\")."
    if kind == "pocketed":
        return f"+{n} pocketed from the opponent's botch."
    if not t.opp:
        return f"+{n} success bonus for the natural shoresh (one per letter)."
    if t.ev["pending"]:
        return f"+{n} if you take \"+1 and cannot be countered\" for the natural shoresh."
    return f"+{n} for the natural shoresh, and the opponent cannot react or counter."


def _bonuses(t: _Turn) -> list:
    lines = [_bonus_line(t, kind, n) for kind, n in t.ev["bonus_parts"]]
    if t.result.get("merit_point"):
        lines.append("Natural shoresh reward: a Merit Point instead of the success bonus.")
    return lines


def _opposed(t: _Turn) -> list:
    if not t.opp:
        return []
    lines = [_modifier_line(t)]
    if t.ev["voided"]:
        return lines + ["The opponent's reaction is void."]
    o = t.ev["opponent"]
    wilds = f"; {_wilds_phrase(len(o['wilds']), False, 'when')}" if o["wilds"] else ""
    lines.append(f"The opponent ({written(t.opp['shoresh'])}) has {plural(len(o['matches']), 'success')}{wilds}.")
    return lines + _whose_turn(t)


def _modifier_line(t: _Turn) -> str:
    """The opposed modifier: the difference of the rerolls, and where it goes."""
    mod = t.result["modifier"]
    return (f"Opposed: {t.spec['rerolls']} vs {t.opp['rerolls']} gives the initiator a {mod:+d} modifier"
            + (" (added to X of the side that has it)." if t.spec["modifier_to_x"] and mod else "."))


def _whose_turn(t: _Turn) -> list:
    turn = t.result.get("turn")
    if turn == "initiator":
        return ["Your turn first; the opponent reacts after it, seeing your final dice."]
    if turn == "opponent":
        return ["The opponent's reaction: they may reroll, or stand on their dice."]
    return []


def _combat(t: _Turn) -> list:
    if not t.ev["adj"]:
        return []
    base = "the opponent's successes" if t.opp else f"difficulty {t.spec['difficulty']}"
    names = ", ".join(COMBAT_TITLES[c] for c in t.spec["combat"])
    return [f"Combat modifiers ({names}) move {base} by {t.ev['adj']:+d}."]


def _verdict(t: _Turn) -> list:
    ev = t.ev
    outcome = ev["outcome"]
    if outcome == "botch":
        return [_botch_line(len(t.me["wilds"]))]
    if ev["voided"]:
        return [f"{ev['total']} successes, cannot be countered: natural success."]
    if outcome == "critical_success":
        return [_critical_line(t)]
    words = OUTCOME_WORDS[outcome]
    if t.opp:
        return [f"{ev['total']} against {_opposed_bar(ev)}: {words}."]
    return [f"{ev['total']} of {ev['needed']} needed: {words}."]


def _opposed_bar(ev: dict) -> str:
    """The opponent's successes as the bar, moved by combat when it is."""
    bar = f"the opponent's {ev['opponent']['successes']}"
    if ev["adj"]:
        bar = f"{ev['needed']} ({bar}, {ev['adj']:+d} combat)"
    return bar


def _botch_line(wilds: int) -> str:
    if not wilds:
        return "Zero successes not counting wilds: a botch, the agent fails miserably and at a great cost."
    return f"Zero successes not counting wilds: a botch, made worse by {plural(wilds, 'wild')}: {grade(wilds)}."


def _critical_line(t: _Turn) -> str:
    if t.result.get("turn") == "opponent":
        return "The opponent has no non-wild success so far: a critical success if it stays so after their reaction."
    return "The opponent reacted with zero non-wild successes: critical success."


def _after(t: _Turn) -> list:
    """What the outcome gives the other side, or the GM."""
    r = t.result
    lines = []
    if r.get("counter"):
        lines.append("The opponent may counter: the final dice contain "
                     + ", ".join(written(c) for c in r["counter"]) + ".")
    return lines + (_botch_gifts(r) if t.opp and t.ev["outcome"] == "botch" else [])


def _botch_gifts(r: dict) -> list:
    """"Critical failure": what an attacker's botch gives the defender."""
    lines = [f"The defender may pocket {plural(r['pocket'], 'success')} for the next turn."] if r["pocket"] else []
    return lines + ([f"The opponent gets +{r['plus_xr']}R on the next roll."] if r["plus_xr"] else [])


def _hit(t: _Turn) -> list:
    h = t.result.get("hit")
    if not h:
        return []
    beyond = f", {h['beyond']} beyond the wound track." if h["beyond"] else "."
    return [f"Hit location {h['letter']}: {h['location']}. Margin {h['margin']}: "
            f"{h['armour']} to armour, {h['vig']} to VIG soak, {_wounds(h)}{beyond}"]


def _wounds(h: dict) -> str:
    """The wounds a hit deals, in words ("1 light, 2 serious")."""
    return ", ".join(f"{n} {k}" for k, n in h["wounds"].items() if n) or "no wounds"


def _first_left(t: _Turn) -> list:
    if t.ev["first_bonus_kept"] and _may_reroll(t):
        return ["You may stop and keep the first-roll bonus, or reroll and forfeit it."]
    return []


def _may_reroll(t: _Turn) -> bool:
    """The initiator may still reroll (a reroll is among the allowed steps)."""
    return any(a["do"] == "reroll" and a.get("side", "initiator") == "initiator" for a in t.result["allowed"])


_PARTS = (_shoresh, _pool, _steps, _counts, _natural, _bonuses, _opposed, _combat, _verdict, _after,
          _hit, _first_left)
