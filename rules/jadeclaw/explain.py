"""Why a Jadeclaw roll came out as it did, in words: functions of a spec and
its result. ``model`` is the model; the system (``rules.jadeclaw``) calls
``explain`` once the dice are down. Rules are named in words or by the
text's own headings, never by our notes' numbers.

>>> import rules
>>> r = rules.roll("jadeclaw", {"dice": "d10 & d4", "difficulty": "routine"}, rules.ScriptedRng([7, 2, 3, 4]))
>>> explain(r["spec"], r)[-1]
'Score 7 vs 4: ahead by 3, a Success.'
"""

from __future__ import annotations

from ..dice import format_pool
from . import model as jc

__all__ = ["explain", "prep_notes", "contest_text"]


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _faces_text(faces) -> str:
    return ", ".join(str(f) for f in faces)


def _faces(dice: list[dict]) -> str:
    return _faces_text(d["face"] for d in dice)


def _smallest(k: int) -> str:
    return "the smallest die" if k == 1 else f"the {k} smallest dice"


# --------------------------------------------------------------------------
# The preparation of a side (the text's steps 1-4, and a Damage Roll's 5).

_STEP_WORDS = {
    "include": lambda s: f"Included {format_pool(s['dice'])}: {format_pool(s['pool'])}.",
    "remove": lambda s: (f"Removed the {_plural(len(s['dice']), 'biggest die', 'biggest dice')} "
                         f"({format_pool(s['dice'])}) before rolling: {format_pool(s['pool'])}."),
    "limit": lambda s: (f"Limit d{s['limit']}: dice bigger than d{s['limit']} drop to d{s['limit']}: "
                        f"{format_pool(s['pool'])}."),
    "cancel": lambda s: (f"{_plural(s['n'], 'Bonus', 'Bonuses')} and {_plural(s['n'], 'Penalty', 'Penalties')} "
                         "cancel one for one (\"Bonuses and Penalties cancel one another out\")."),
    "bonuses": lambda s: (f"{_plural(s['n'], 'Bonus', 'Bonuses')}: {format_pool(s['before'])} becomes "
                          f"{format_pool(s['pool'])} (each die one size up per Bonus; a d12 passes its increase "
                          "to the next smaller die; a new d4 starts when all are d12)."),
    "penalties": lambda s: (f"{_plural(s['n'], 'Penalty', 'Penalties')} on a Damage Roll: removed "
                            f"{_smallest(len(s['dice']))} ({format_pool(s['dice'])}) before rolling: "
                            f"{format_pool(s['pool'])}."),
}


def prep_notes(steps: list[dict]) -> list[str]:
    """A sentence for each step of ``model.prepare_side`` that changed
    the dice.

    >>> prep_notes(jc.prepare(jc.normalize({"dice": "d10 & d6", "bonuses": 1}))[1])
    ['1 Bonus: d10 & d6 becomes d12 & d8 (each die one size up per Bonus; a d12 passes its increase to the next smaller die; a new d4 starts when all are d12).']
    """
    return [_STEP_WORDS[s["step"]](s) for s in steps]


def _favored_note(dice: list[dict]) -> str:
    """" (Favored: ...)" when a die of this roll was re-rolled."""
    again = [d for d in dice if len(d.get("history") or ()) > 1]
    return "".join(f" (Favored: re-rolled the d{d['sides']}'s 1, which now shows {d['face']})" for d in again)


def _start_text(spec: dict) -> str:
    base = format_pool(spec["dice"]) if spec["dice"] else "no dice"
    if spec["level"] is not None:
        base += f" (level {spec['level']})"
    return base


# --------------------------------------------------------------------------
# Simple Rolls.

def explain(spec: dict, result: dict) -> list[str]:
    """Short sentences saying why: the dice and each modifier, every roll,
    the opposition's, and the comparison (or a Damage Roll's pairs)."""
    if result["kind"] == "damage":
        return _damage_lines(spec, result)
    return _own_lines(spec, result) + _against_lines(spec, result)


def _own_lines(spec: dict, result: dict) -> list[str]:
    if isinstance(spec["dice"], dict):
        return [f"Dice already on the table show {_faces(result['dice'])}: the highest, "
                f"{result['value']}, is the Score."]
    lines = [f"Dice: {_start_text(spec)}."] + prep_notes(jc.prepare(spec)[1])
    return lines + _rolls_lines(result["rolls"], result["kept_roll"], result["pool"], "", "")


def _rolls_lines(rolls: list[dict], kept: int, pool: list[int], who: str, their: str) -> list[str]:
    """A line per roll and, with Penalties, which one counts. ``who`` is
    the opposing side's label ("" for the roller), ``their`` its pronoun."""
    many = len(rolls) > 1
    lines = [_roll_line(i, r, pool, who, many) for i, r in enumerate(rolls)]
    if many:
        k = len(rolls) - 1
        lines.append(f"{their}{_plural(k, 'Penalty', 'Penalties')}: {len(rolls)} rolls, the worst Score counts: "
                     f"{rolls[kept]['score']} (roll {kept + 1}).")
    return lines


def _roll_line(i: int, r: dict, pool: list[int], who: str, many: bool) -> str:
    """The line of roll ``i``: numbered when there are ``many``, its Score
    shown unless it is the opposing side's one roll."""
    label = (f"{who}, roll {i + 1}" if who else f"Roll {i + 1}") if many else (who or "Rolled")
    score = f": Score {r['score']}" if many or not who else ""
    return f"{label}: {format_pool(pool)} showed {_faces(r['dice'])}{_favored_note(r['dice'])}{score}."


def _against_lines(spec: dict, result: dict) -> list[str]:
    score = result["value"]
    if result["opponent"] is None:
        return ["A Score of 1 is a Botch (\"'All ones': Botching\")." if score == 1
                else f"No opposition given: the Score is {score}."]
    lines = _opposition_lines(spec, result)
    lines.append(contest_text(score, result["opponent_score"], result["outcome"], spec))
    if result["auto_success"]:
        lines.append("Rule of thumb: these dice are as many and as big as the difficulty's, so if the task is "
                     "neither dire nor contested the roll may be skipped as a Success.")
    return lines


def _opposition_lines(spec: dict, result: dict) -> list[str]:
    label = result["opponent_label"]
    if result.get("opponent_pool") is None:
        return [f"{label}: {_faces(result['opponent'])} (already rolled; a combination roll)."]
    steps = jc.prepare_side(jc.side(spec, "opponent"))[1]
    return ([f"{label}: {note}" for note in prep_notes(steps)]
            + _rolls_lines(result["opponent_rolls"], result["opponent_kept_roll"], result["opponent_pool"],
                           label, "Their "))


def contest_text(score: int, oscore: int, outcome: str, spec: dict) -> str:
    """The comparison of the two Scores, in words.

    >>> print(contest_text(1, 4, "botch", {}))
    Score 1 vs 4: a Score of 1 is a Botch whatever the other side shows ("'All ones': Botching").
    """
    vs = f"Score {score} vs {oscore}"
    if score == 1:
        return f"{vs}: {_botch_words(oscore, outcome)}"
    if score == oscore:
        return f"{vs}: {_tie_words(outcome, spec)}"
    return f"{vs}: {_margin_words(score - oscore, outcome, oscore == 1)}"


def _botch_words(oscore: int, outcome: str) -> str:
    if outcome == "double_botch":
        return ("both sides Botched - a double Botch; the Host may call it a Tie (\"if both parties Botch "
                "... the Game Host may rule that the result is a Tie\").")
    if oscore == 1:
        return "both sides Botched; the Host rules it a Tie."
    return "a Score of 1 is a Botch whatever the other side shows (\"'All ones': Botching\")."


def _tie_words(outcome: str, spec: dict) -> str:
    a, b = jc.quality_name(spec["quality"]), jc.quality_name(spec["opponent_quality"])
    if outcome == "tie":
        why = ("neither side has the better Quality" if a is not None and b is not None
               else "a Quality on both sides is needed to break it")
        return f"a Tie ({why})."
    return (f"equal Scores, and {a.title()} Quality against {b.title()} breaks the Tie: "
            f"{outcome.title()} (\"Quality Makes a Difference\").")


_OUTCOME_WORDS = {"overwhelming_success": "an Overwhelming Success", "success": "a Success",
                  "failure": "a Failure", "overwhelming_failure": "an Overwhelming Failure"}


def _margin_words(d: int, outcome: str, they_botched: bool) -> str:
    extra = " (the opposition Botched)" if they_botched else ""
    how = f"ahead by {d}" if d > 0 else f"behind by {-d}"
    tail = " (5 or more Overwhelms)." if abs(d) >= jc.OVERWHELM else "."
    return f"{how}, {_OUTCOME_WORDS[outcome]}{extra}{tail}"


# --------------------------------------------------------------------------
# Damage Rolls.

_TYPE_WORDS = {
    "slaying_and_enervated": "Slaying and Enervated cancel out: normal damage (\"No Damage is both Slaying "
                             "and Enervated\").",
    "slaying": "Slaying Damage: every damage die that beats its soak die scores 2 hits.",
    "enervated": "Enervated Damage: a damage die scores 1 hit only when it beats its soak die by 5 or more.",
}


def _damage_lines(spec: dict, result: dict) -> list[str]:
    lines = _damage_dice_lines(spec, result) + _soak_lines(spec, result)
    if spec["damage_type"] in _TYPE_WORDS:
        lines.append(_TYPE_WORDS[spec["damage_type"]])
    lines.append(_pairs_text(result["pairs"]))
    if result["soak_botch"]:
        lines.append("The soak dice all show 1 (a Botch): one extra hit.")
    lines.append(f"Total: {_plural(result['value'], 'hit', 'hits')}.")
    return lines


def _damage_dice_lines(spec: dict, result: dict) -> list[str]:
    dmg = result["dice"]
    if isinstance(spec["dice"], dict):
        return [f"Damage dice already on the table: {_faces(dmg)} (a combination roll)."]
    lines = [f"Damage dice: {_start_text(spec)}."] + prep_notes(jc.prepare(spec)[1])
    pool = result["pool"]
    lines.append(f"Rolled {format_pool(pool)}: {_faces(dmg)}{_favored_note(dmg)}." if pool
                 else "No damage dice are left to roll: no hits.")
    return lines


def _soak_lines(spec: dict, result: dict) -> list[str]:
    soak = result["opponent"]
    if isinstance(spec["soak"], dict):
        return [f"Soak dice already on the table: {_faces(soak)}."]
    steps = jc.prepare_side(jc.side(spec, "soak"), damage=True)[1]
    lines = [f"Soak dice: {note}" for note in prep_notes(steps)]
    spool = result.get("soak_pool") or [d["sides"] for d in soak]
    lines.append(f"Soak {format_pool(spool)} showed {_faces(soak)}{_favored_note(soak)}." if soak
                 else "No soak dice: every damage die faces an imaginary 1.")
    return lines


def _pairs_text(pairs: list[dict]) -> str:
    shown = [p for p in pairs if p["damage"] is not None]
    if not shown:
        return "No damage dice: no pairs."
    return "Pairs, highest with highest: " + "; ".join(
        f"{p['damage']['face']} vs {p['soak']['face']}{' (imaginary)' if p['soak']['role'] == 'imaginary' else ''}"
        f" → {_plural(p['hits'], 'hit', 'hits')}" for p in shown) + "."

