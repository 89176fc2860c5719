"""Why an ALKEMY roll came out as it did: the sentences of a result's
``explain``, each a small function of the normalized spec and the result
(the ALKEMY rules text; RULES-NOTES ALKEMY 1-3). The model is
``rules.alkemy``; nothing here rolls or decides.

>>> import rules
>>> from rules.dice import ScriptedRng
>>> r = rules.roll("alkemy", {"characteristic": 0, "bonus": 1, "difficulty": 9}, ScriptedRng([4, 5, 1]))
>>> r["explain"]
['1 bonus, 0 malus → 1 bonus die; threw 3 white dice: 4, 5, 1.', 'Kept 4 + 5 (the best two, axe–sword).', '4 + 5 + characteristic 0 = 9, at least the difficulty 9: success (margin 0).']
"""

from __future__ import annotations

from .tables import DEFAULT_FACES, FACE_SETS, default_keep, describe_net

__all__ = ["explain"]

_WHO = {"initiator": "Initiator", "opponent": "Opponent"}


def _sum(hand: dict) -> str:
    return " + ".join(str(v) for v in hand["kept_values"])


def _changed(spec: dict, result: dict) -> list[str]:
    """The last ``keep``: which pair was chosen instead of which."""
    changed = result.get("changed")
    if not changed:
        return []
    if changed["side"] == "opponent":
        who = "The opponent"
    else:
        who = "The initiator" if spec["opponent"] is not None else "The player"
    new, old = changed["to"], changed["from"]
    return [f"{who} chose dice {new[0] + 1} and {new[1] + 1} instead of {old[0] + 1} and {old[1] + 1}."]


def _faces(spec: dict, result: dict) -> list[str]:
    if spec["faces"] == DEFAULT_FACES:
        return []
    return [f"Dice faces: {FACE_SETS[spec['faces']]['label']} (a GM option)."]


def _kept_words(hand: dict, name: str) -> list[str]:
    """Which pair counts: the player's pick with a bonus, the two lowest
    with a malus, both dice without either."""
    net = hand["net"]["net"]
    if net > 0:
        return [_chosen_words(hand, name, net)]
    if net < 0:
        return [f"{name + ': a' if name else 'A'} malus keeps the two lowest: {_sum(hand)}."]
    return []


def _chosen_words(hand: dict, name: str, net: int) -> str:
    """The pair a side with a net bonus kept: the best two, or the
    player's own choice, and its pair's name."""
    faces = [d["face"] for d in hand["dice"]]
    how = "the best two" if hand["kept"] == default_keep(faces, net) else "the player's choice"
    pair = f", {hand['pair']}" if hand["pair"] else ""
    return f"{name + ' keeps' if name else 'Kept'} {_sum(hand)} ({how}{pair})."


def _hand(hand: dict, name: str) -> list[str]:
    """What one side threw, and what it kept and why."""
    n = hand["net"]
    faces = [d["face"] for d in hand["dice"]]
    label = f"{name}: " if name else ""
    if n["net"] == 0 and n["bonus"] == 0:
        return [f"{label}two {hand['health']} dice: {faces[0]} and {faces[1]}."]
    return ([f"{label}{describe_net(n)}; threw {n['thrown']} {hand['health']} dice: "
             + ", ".join(str(f) for f in faces) + "."] + _kept_words(hand, name))


def _against_difficulty(spec: dict, result: dict) -> list[str]:
    ok = result["outcome"] == "success"
    return _hand(result, "") + [
        f"{_sum(result)} + characteristic {result['characteristic']} = {result['value']}, "
        f"{'at least' if ok else 'below'} the difficulty {spec['difficulty']}: "
        f"{result['outcome']} (margin {result['margin']})."]


def _tied_rounds(result: dict) -> list[str]:
    lines = [f"Round {t['round']}: {t['value']} against {t['opponent']['value']} with equal "
             f"characteristics ({result['characteristic']}): both roll again."
             for t in result["tied_rounds"]]
    return lines + ([f"Round {len(lines) + 1}:"] if lines else [])


def _verdict(result: dict) -> str:
    them = result["opponent"]
    c1, c2 = result["characteristic"], them["characteristic"]
    if result["value"] != them["value"]:
        return f"The higher total wins: the {result['winner']}."
    if c1 != c2:
        return (f"Equal totals: the higher characteristic ({max(c1, c2)} against {min(c1, c2)}) "
                f"wins: the {result['winner']}.")
    return (f"Still tied after {result['reroll_cap']} rerolls, the cap (a GM setting): "
            "the GM decides.")


def _opposed(spec: dict, result: dict) -> list[str]:
    them = result["opponent"]
    totals = (f"Initiator {_sum(result)} + {result['characteristic']} = {result['value']}; "
              f"opponent {_sum(them)} + {them['characteristic']} = {them['value']}.")
    return (_tied_rounds(result) + _hand(result, _WHO["initiator"]) + _hand(them, _WHO["opponent"])
            + [totals, _verdict(result)])


def _roll(spec: dict, result: dict) -> list[str]:
    return _against_difficulty(spec, result) if spec["opponent"] is None else _opposed(spec, result)


_EVENTS = (_changed, _faces, _roll)


def explain(spec: dict, result: dict) -> list[str]:
    """The sentences of ``result["explain"]``, event by event."""
    return [line for event in _EVENTS for line in event(spec, result)]
