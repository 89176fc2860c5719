"""The ALKEMY tab: form fields to spec, result to HTML. Pure; no DOM.

Rules: the ALKEMY rules text (machine-translated), RULES-NOTES ALKEMY 1-3. The dice are
drawn in the health colour with their weapon symbol; after a bonus roll the
player taps two dice and presses "Keep these two" (``rules.act`` verb
``keep``); opposed rolls show both sides on one screen.

>>> spec = spec_from_form({"mode": ["difficulty"], "characteristic": ["8"], "difficulty": ["15"]})
>>> spec["characteristic"], spec["difficulty"], spec["opponent"]
(8, 15, None)
"""

from __future__ import annotations

import rules
from drawing import draw, views
from rules.alkemy import model as alkemy
from rules.dice import SpecError
from tabs import tab

SYSTEM = "alkemy"

COLOUR_NAMES = {"white": "White", "yellow": "Yellow", "red": "Red"}
SIDE_NAMES = {"initiator": "Initiator", "opponent": "Opponent"}
SIDES = tuple(SIDE_NAMES)

#: rules field -> the form control that holds it.
FIELD_NAMES = {
    "characteristic": "characteristic", "difficulty": "difficulty", "bonus": "bonus",
    "malus": "malus", "health": "health", "faces": "faces", "max_rerolls": "max_rerolls",
    "opponent": "opp_characteristic",
    "opponent.characteristic": "opp_characteristic", "opponent.bonus": "opp_bonus",
    "opponent.malus": "opp_malus", "opponent.health": "opp_health",
}
MODES = ("difficulty", "opposed")


# --------------------------------------------------------------------------
# Form <-> spec.

def _one(fields: dict, name: str, default=None):
    v = fields.get(name)
    if not v:
        return default
    return v[0]


def _controls(fields: dict, names: tuple, prefix: str = "") -> dict:
    """The spec fields ``names`` from the controls ``prefix + name`` that
    the form sent."""
    values = {name: _one(fields, prefix + name) for name in names}
    return {k: v for k, v in values.items() if v is not None}


def _mode(fields: dict) -> str:
    """Against a difficulty (how the form opens) or opposed."""
    mode = _one(fields, "mode", "difficulty")
    if mode not in MODES:
        raise SpecError("mode", "must be difficulty or opposed")
    return mode


def spec_from_form(fields: dict) -> dict:
    """The form's controls (FormData-like: name -> [values]) to a normalized
    spec; a SpecError names the form control at fault (``FIELD_NAMES``), so
    the page can show it beside that control.

    >>> spec_from_form({"mode": ["opposed"], "characteristic": ["2"], "opp_characteristic": ["5"]})["opponent"]
    {'characteristic': 5, 'bonus': 0, 'malus': 0, 'health': 'white'}
    >>> spec_from_form({"mode": ["opposed"], "opp_characteristic": ["x"]})
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: opp_characteristic: must be a whole number from 0 to 30 (got 'x')
    """
    mode = _mode(fields)
    spec = _controls(fields, ("characteristic", "bonus", "malus", "health", "faces", "max_rerolls"))
    if mode == "opposed":
        spec["opponent"] = _controls(fields, ("characteristic", "bonus", "malus", "health"), "opp_")
    else:
        spec.update(_controls(fields, ("difficulty",)))
    try:
        return rules.normalize(SYSTEM, spec)
    except SpecError as e:
        raise SpecError(FIELD_NAMES.get(e.field, "_form"), e.detail) from None


def form_values(spec: dict) -> dict:
    """The inverse: fill the form from a (normalized) spec.

    >>> form_values(rules.default_spec("alkemy"))["mode"]
    'difficulty'
    """
    spec = rules.normalize(SYSTEM, spec)
    out = {
        "characteristic": str(spec["characteristic"]),
        "bonus": str(spec["bonus"]),
        "malus": str(spec["malus"]),
        "health": spec["health"],
        "faces": spec["faces"],
        "max_rerolls": str(spec["max_rerolls"]),
    }
    opp = spec["opponent"]
    if opp is None:
        return {**out, "mode": "difficulty", "difficulty": str(spec["difficulty"])}
    return {**out, "mode": "opposed", "opp_characteristic": str(opp["characteristic"]),
            "opp_bonus": str(opp["bonus"]), "opp_malus": str(opp["malus"]), "opp_health": opp["health"]}


# --------------------------------------------------------------------------
# Selection: die keys are "0", "1"... for the initiator, "opponent:0"... for
# the opponent (the last round's dice).

def _parse_key(key) -> tuple[str, int] | None:
    key = str(key)
    side = "initiator"
    if key.startswith("opponent:"):
        side, key = "opponent", key[len("opponent:"):]
    if not key.isdigit() or len(key) > 2:
        return None
    return side, int(key)


def _hand(result: dict, side: str) -> dict | None:
    if side == "initiator":
        return result
    opp = result.get("opponent")
    return opp if isinstance(opp, dict) else None


def _choosers(result: dict) -> list[str]:
    """The sides with a bonus die, who may keep another pair."""
    return [s for s in SIDES if (_hand(result, s) or {}).get("choice")]


_NO_SELECTION = {"side": None, "dice": [], "ok": False, "message": "", "pair": None, "total": None}


def _named(out: dict, dice: list, idx: list[int]) -> dict:
    """Two tapped dice: their symbol pair and their sum."""
    symbols = [dice[i].get("symbol") for i in idx]
    return {**out, "pair": "–".join(symbols) if all(symbols) else None,
            "total": sum(int(dice[i].get("face", 0)) for i in idx)}


def _count_message(n: int) -> str:
    """What to tap when ``n`` dice are tapped, not two."""
    return "Tap exactly two dice to keep." if n > alkemy.KEPT else "Tap one more die."


def _pair(out: dict, hand: dict, idx: list[int]) -> dict:
    """The tapped dice of one side that may choose: two, new, and named."""
    dice = hand.get("dice") or []
    if any(i >= len(dice) for i in idx):
        return out
    out = {**out, "dice": idx}
    if len(idx) != alkemy.KEPT:
        return {**out, "message": _count_message(len(idx))}
    out = _named(out, dice, idx)
    if idx == hand.get("kept"):
        return {**out, "message": "These two are already kept."}
    return {**out, "ok": True}


def _problem(picked: list, side: str | None, choosers: list[str]) -> str:
    """Why the taps are not yet a pair to keep, before counting them."""
    if not picked:
        return "Tap two dice to keep another pair."
    if side is None:
        return "Tap two dice of the same side."
    if side not in choosers:
        return (f"The {SIDE_NAMES[side].lower()} has no bonus die: "
                "with a malus the two lowest dice count, with neither both dice count.")
    return ""


def _picked(ui: dict | None) -> list[tuple[str, int]]:
    """The tapped dice as (side, position), keys that are not a die left out."""
    return [p for p in (_parse_key(k) for k in (ui or {}).get("selected", ()) or ()) if p]


def _one_side(picked: list) -> str | None:
    """The side of the tapped dice when they are all of one side."""
    sides = {s for s, _ in picked}
    return sides.pop() if len(sides) == 1 else None


def selection(result: dict, ui: dict) -> dict:
    """What the taps mean: ``{"side", "dice", "ok", "message", "pair"}``.
    ``ok`` when two dice of one side that may choose are tapped and they are
    not already the kept pair.

    >>> r = rules.roll("alkemy", {"characteristic": 0, "bonus": 1}, rules.ScriptedRng([4, 5, 1]))
    >>> s = selection(r, {"selected": ["2", "0"]})
    >>> s["ok"], s["side"], s["dice"], s["pair"], s["total"]
    (True, 'initiator', [0, 2], 'axe–axe', 5)
    """
    choosers = _choosers(result)
    if not choosers:
        return dict(_NO_SELECTION)
    picked = _picked(ui)
    side = _one_side(picked)
    problem = _problem(picked, side, choosers)
    if problem:
        return {**_NO_SELECTION, "side": side, "message": problem}
    return _pair({**_NO_SELECTION, "side": side}, _hand(result, side), sorted({i for _, i in picked}))


def action_for(verb: str, result: dict, ui: dict, fields: dict) -> dict:
    """The ``keep`` action from the tapped dice, or a choice button's action.

    >>> r = rules.roll("alkemy", {"characteristic": 0, "bonus": 1}, rules.ScriptedRng([4, 5, 1]))
    >>> action_for("keep", r, {"selected": ["0", "2"]}, {})
    {'do': 'keep', 'dice': [0, 2], 'side': 'initiator'}
    >>> action_for("choice-0", r, {}, {})
    {'do': 'accept', 'side': 'initiator'}
    """
    chosen = tab.choice_action(verb, result)
    if chosen is not None:
        return chosen
    if verb != "keep":
        raise SpecError("_form", "the only step after an ALKEMY roll is keeping another pair")
    return _keep_action(result, ui)


def _keep_action(result: dict, ui: dict) -> dict:
    """Keep the tapped pair, or what the taps still need."""
    sel = selection(result, ui)
    if not sel["ok"]:
        raise SpecError("_form", sel["message"] or "Tap two dice to keep.")
    return {"do": "keep", "dice": sel["dice"], "side": sel["side"]}


# --------------------------------------------------------------------------
# Drawing.

def _die_label(d: dict) -> str:
    text = f"{d.get('colour') or ''} die showing {d.get('face')}"
    if d.get("symbol"):
        text += f" with {d['symbol']}"
    return text + (f", {d['role']}" if d.get("role") in ("kept", "dropped") else "")


def _shown(d: dict, choice: bool) -> dict:
    """A die as drawn: a d6 shape in its health colour; with no die dropped,
    'kept' tells nothing, so no badge and no word for it."""
    out = {**{k: v for k, v in d.items() if k != "faces"}, "sides": 6}
    if not choice and d.get("role") == "kept":
        out["role"] = "rolled"
    return out


def _row(dice: list, keys: list | None, selected, caption: str, size: int = 64,
         tappable: bool = True) -> str:
    """A row of dice with their symbols, each with a spoken label. Every die
    in the tray carries ``data-die`` (DESIGN.md markers); only a side that
    may choose its pair gets buttons."""
    keys = draw.drawn_keys(keys, dice)
    dice = [d for d in dice if isinstance(d, dict)]
    choice = any(d.get("role") == "dropped" for d in dice)
    return draw.tray([_shown(d, choice) for d in dice], keys or None, selected=selected, size=size,
                     caption=caption, labels=[_die_label(d) for d in dice], tappable=tappable)


def _sum_text(hand: dict) -> str:
    kept = hand.get("kept") or []
    dice = hand.get("dice") or []
    faces = [str(d.get("face")) for d in _kept_dice(dice, kept)]
    return f"{' + '.join(faces)} + {hand.get('characteristic')} = {hand.get('value')}"


def _caption(side: str, hand: dict, opposed: bool) -> str:
    who = SIDE_NAMES[side] if opposed else "Your dice"
    colour = COLOUR_NAMES.get(hand.get("health"), "")
    text = f"{who} ({colour.lower()} dice): {_sum_text(hand)}"
    if hand.get("pair") and hand.get("choice"):
        text += f", kept {hand['pair']}"
    return text


def _rerolls(n: int) -> str:
    return f"{n} reroll{'' if n == 1 else 's'}"


def _opposed_headline(result: dict) -> str:
    opp = result.get("opponent") or {}
    text = f"{result.get('value')} against {opp.get('value')}"
    rerolls = result.get("rerolls") or 0
    if result.get("outcome") == "tie":
        return text + f": still tied after {_rerolls(rerolls)}, the GM decides"
    return text + _decided_words(result, opp, rerolls)


def _decided_words(result: dict, opp: dict, rerolls: int) -> str:
    """How a won opposed roll was decided: on characteristic at equal
    totals, and after how many rerolls of a tie."""
    words = f", the {result.get('winner')} wins on characteristic" if result.get("value") == opp.get("value") else ""
    return words + (f" after {_rerolls(rerolls)}" if rerolls else "")


def _headline(result: dict) -> str:
    if result.get("mode") == "opposed":
        return _opposed_headline(result)
    return f"{result.get('value')} against {result.get('difficulty')} (margin {result.get('margin')})"


def _banner(result: dict, ui: dict) -> str:
    return views.outcome_banner(SYSTEM, result.get("outcome", ""), _headline(result))


def _tied_round(t: dict) -> str:
    n = t.get("round")
    opp = t.get("opponent") if isinstance(t.get("opponent"), dict) else {}
    mine, theirs = t.get("dice") or [], opp.get("dice") or []
    return ('<div class="alk-tied">'
            + _round_row(mine, f"round{n}:",
                         f"Round {n}: {t.get('value')} against {opp.get('value')}, a tie: both rolled again")
            + _round_row(theirs, f"round{n}:opponent:", "Opponent, same round")
            + "</div>")


def _round_row(dice: list, prefix: str, caption: str) -> str:
    """One side's dice of an earlier tied round: small, not tappable, each
    keyed by its round (``prefix``)."""
    return _row(dice, [f"{prefix}{i}" for i in range(len(dice))], (), caption, size=40, tappable=False)


def _tied_rounds(result: dict, ui: dict) -> str:
    return "".join(_tied_round(t) for t in result.get("tied_rounds") or [] if isinstance(t, dict))


def _sides(result: dict) -> list[str]:
    return list(SIDES) if result.get("mode") == "opposed" else ["initiator"]


def _hand_row(result: dict, ui: dict, side: str, opposed: bool) -> str:
    """One side's dice, keyed by side ("0", "opponent:0"...) and tappable
    when that side may choose its pair."""
    hand = _hand(result, side) or {}
    dice = hand.get("dice") or []
    prefix = "" if side == "initiator" else "opponent:"
    return (f'<div class="alk-hand alk-hand-{side}">'
            + _row(dice, [f"{prefix}{i}" for i in range(len(dice))], ui.get("selected", ()) or (),
                   _caption(side, hand, opposed), tappable=bool(hand.get("choice"))) + "</div>")


def _hands(result: dict, ui: dict) -> str:
    opposed = result.get("mode") == "opposed"
    rows = [_hand_row(result, ui, side, opposed) for side in _sides(result)]
    return f'<div class="alk-hands{" alk-opposed" if opposed else ""}">{"".join(rows)}</div>'


def _keep_label(result: dict, sel: dict) -> str:
    """"Keep these two", with the tapped faces and their symbols once two are tapped."""
    if len(sel["dice"]) != alkemy.KEPT:
        return "Keep these two"
    hand = _hand(result, sel["side"]) or {}
    shown = " + ".join(str(hand["dice"][i].get("face")) for i in sel["dice"])
    return f"Keep these two: {shown}" + (f" ({sel['pair']})" if sel["pair"] else "")


def _any_chooses(result: dict) -> bool:
    """May a side of this roll choose its pair (it has a bonus die)?"""
    return any((_hand(result, s) or {}).get("choice") for s in _sides(result))


def _keep_part(result: dict, ui: dict) -> str:
    """"Keep these two" for the tapped dice: the player's own pair. Beside
    best play's choices it shows once a die is tapped (a hint before)."""
    if ui.get("readonly") or not _any_chooses(result):
        return ""  # a shared result offers no step (docs/RULES-DECISIONS.md, The page)
    sel = selection(result, ui)
    if _has_choices(result) and not (ui.get("selected") or ()):
        return '<p class="hint alk-hint" data-own>Your own choice: tap two dice of one side to keep them.</p>'
    return _keep_button(result, sel)


def _keep_button(result: dict, sel: dict) -> str:
    """"Keep these two", pressable once the taps make a pair, and what the taps still need."""
    disabled = "" if sel["ok"] else " disabled"
    return (f'<div class="alk-keep" data-own><button type="button" data-act="keep"{disabled}>'
            f'{views.esc(_keep_label(result, sel))}</button><p class="alk-hint" role="status">'
            f'{views.esc(sel["message"])}</p></div>')


def _has_choices(result: dict) -> bool:
    """Has best play's decision come (``advice`` and its ``choices``)?"""
    return bool(result.get("choices")) and result.get("advice") is not None


def _short_label(result: dict, choice: dict) -> str:
    """A pair in its side's column: "4 + 5 as they are (axe–sword)",
    "4 + 1 (axe–axe)" (the column says whose and what a tap does)."""
    text = " + ".join(str(f) for f in choice.get("faces") or ())
    if (choice.get("action") or {}).get("do") == "accept":
        text += " as they are"
    return text + (f" ({choice['pair']})" if choice.get("pair") else "")


def _choices(result: dict, ui: dict) -> str:
    """The decision on one screen: best play's pair as the main button, why,
    and every other pair each side may keep, side by side in a column per
    side, the side choosing now first (``result["choices"]``,
    docs/RULES-DECISIONS.md, ALKEMY); then the player's own pair. A shared
    result offers none (docs/RULES-DECISIONS.md, The page)."""
    if ui.get("readonly") or not _has_choices(result):
        return ""
    opposed = result.get("mode") == "opposed"
    title = "Keep which pair?" + (" (either side)" if opposed else "")
    html = views.choices_html(result, lambda c: _choice_label(result, c),
                              lambda c: _choice_figures(result, c), title=title, same=lambda c: _looks(result, c),
                              groups=_side_groups(result, opposed), extra=_keep_part(result, ui))
    return f'<div class="alk-choices">{html}</div>' if html else ""


def _choice_side(choice: dict) -> str:
    """The side a choice keeps a pair for (the initiator unless it says)."""
    return (choice.get("action") or {}).get("side", "initiator")


def _side_groups(result: dict, opposed: bool) -> list[tuple]:
    """A column of choices per side, the side choosing now (best play's) first."""
    return [(f"{SIDE_NAMES[side]} keeps" if opposed else "Or keep",
             lambda c, side=side: _choice_side(c) == side) for side in _side_order(result)]


def _side_order(result: dict) -> list[str]:
    """The sides, the one best play chooses for first."""
    first = (result.get("advice") or {}).get("side") or "initiator"
    return [first] + [s for s in _sides(result) if s != first]


def _choice_label(result: dict, choice: dict) -> str:
    """Best play's pair by the rules' own label; every other pair short."""
    if choice.get("action") != result.get("advice"):
        return _short_label(result, choice)
    return choice.get("label") or _short_label(result, choice)


def _choice_figures(result: dict, choice: dict) -> str:
    """A choice's odds: its side's own chance to succeed (opposed: to win,
    and to stay tied at the cap, the GM deciding: "tied"), and the total.

    >>> o = {"success": 0.25, "tie": 0.05, "failure": 0.7}
    >>> _choice_figures({"mode": "opposed"}, {"action": {"side": "opponent"}, "outcome": o, "total": 9})
    'wins 70.0 % (tied 5.0 %) · total 9'
    """
    out = choice.get("outcome") or {}
    win, tie = float(out.get("success") or 0.0), float(out.get("tie") or 0.0)
    if result.get("mode") == "opposed":
        text = _wins_text(choice, out, win, tie)
    else:
        text = f"success {views.pct(win)}"
    return text + f" · total {choice.get('total')}"


def _wins_text(choice: dict, out: dict, win: float, tie: float) -> str:
    """Opposed: the choosing side's chance to win (the opponent wins on the
    initiator's failure), and to stay tied at the cap."""
    own = win if _choice_side(choice) == "initiator" else out.get("failure", 0.0)
    return f"wins {views.pct(max(0.0, own))}" + (f" (tied {views.pct(tie)})" if tie else "")


def _looks(result: dict, choice: dict) -> tuple:
    """What a keep looks like at the table: its side and its dice's faces
    with their symbols (two pairs of the same faces and symbols are one
    choice to a player; the first, which best play would take, is drawn).

    >>> r = {"dice": [{"face": 4, "symbol": "axe"}, {"face": 6, "symbol": "mace"}, {"face": 4, "symbol": "axe"}]}
    >>> _looks(r, {"action": {"do": "keep"}, "dice": [1, 0]}) == _looks(r, {"action": {"do": "keep"}, "dice": [2, 1]})
    True
    """
    side = (choice.get("action") or {}).get("side") or "initiator"
    shown = _kept_dice((_hand(result, side) or {}).get("dice") or [], choice.get("dice") or [])
    return side, sorted((str(d.get("face")), str(d.get("symbol"))) for d in shown)


def _kept_dice(dice: list, idx: list) -> list:
    """The dice at the positions ``idx``, a position off the hand left out."""
    return [dice[i] for i in idx if isinstance(i, int) and 0 <= i < len(dice)]


def _keep_alone(result: dict, ui: dict) -> str:
    """"Keep these two" before best play's choices have come (they hold it
    once they have)."""
    return "" if _has_choices(result) else _keep_part(result, ui)


def _explain(result: dict, ui: dict) -> str:
    return views.explain_list(result.get("explain"))


_RESULT_PARTS = (_banner, _tied_rounds, _hands, _choices, _keep_alone, _explain)


def render_result(result: dict, ui: dict) -> str:
    """The tray: banner, earlier tied rounds, both sides' dice (tappable when
    that side may choose), every pair that may be kept with its chance, the
    keep button for tapped dice, the explanation."""
    ui = ui or {}
    return "".join(part(result, ui) for part in _RESULT_PARTS)


# --------------------------------------------------------------------------
# Odds.

def _net_words(side: dict) -> str:
    return alkemy.describe_net(alkemy.net_dice(side["bonus"], side["malus"]))


def questions(spec: dict, result, ui: dict) -> dict:
    """The roll in the form; after a roll of this spec with two dice
    tapped, the odds of keeping them."""
    out = {"roll": tab.before()}
    if result is not None and result.get("spec") == spec:
        sel = selection(result, ui or {})
        if sel["ok"]:
            out["keep"] = tab.after(result, {"do": "keep", "dice": sel["dice"], "side": sel["side"]})
    return out


def _tie_note(spec: dict, o: dict) -> str:
    c1, c2 = spec["characteristic"], spec["opponent"]["characteristic"]
    if c1 != c2:
        return f"A tie goes to the {'initiator' if c1 > c2 else 'opponent'} (higher characteristic)."
    return (f"Equal characteristics: a tie rerolls until one wins (at most {spec['max_rerolls']} "
            f"rerolls; still tied then, the GM decides: {views.pct(o['outcome']['tie'])}).")


def _opposed_odds(spec: dict, o: dict) -> list[str]:
    fr = o["first_round"]
    note = (f"First round: higher total {views.pct(fr['higher'])}, equal {views.pct(fr['equal'])}, "
            f"lower {views.pct(fr['lower'])}. " + _tie_note(spec, o))
    return [f'<p class="alk-net">Initiator: {views.esc(_net_words(spec))}. '
            f'Opponent: {views.esc(_net_words(spec["opponent"]))}.</p>',
            f'<p class="alk-chance">Initiator wins: <strong>{views.pct(o["outcome"]["success"])}</strong>; '
            f'opponent wins: <strong>{views.pct(o["outcome"]["failure"])}</strong>.</p>',
            f'<p class="alk-note">{views.esc(note)}</p>',
            views.bar_chart(o["value"], title="Initiator's total (first round)")]


def _difficulty_odds(spec: dict, o: dict) -> list[str]:
    diff = spec["difficulty"]
    return [f'<p class="alk-net">{views.esc(_net_words(spec))}.</p>',
            f'<p class="alk-chance">Chance of success (total ≥ {diff}): '
            f'<strong>{views.pct(o["outcome"]["success"])}</strong></p>',
            views.bar_chart(o["value"], title=f"Total ({alkemy.KEPT} kept dice + {spec['characteristic']})",
                            highlight=lambda v: v >= diff)]


def _net_row(net: int, o: dict) -> str:
    """One net bonus/malus and its chance, marked if it is the roll's."""
    name = "none" if net == 0 else f"{abs(net)} {'bonus' if net > 0 else 'malus'}"
    mark = ' class="alk-current" aria-current="true"' if net == o["net"]["net"] else ""
    return f"<tr{mark}><th scope=\"row\">{views.esc(name)}</th><td>{views.pct(o['by_net'][net])}</td></tr>"


def _by_net(spec: dict, o: dict) -> str:
    """The chance for each net bonus/malus, the current one marked."""
    rows = [_net_row(net, o) for net in range(-alkemy.MAX_NET, alkemy.MAX_NET + 1)]
    caption = f"Chance by {'the initiator' + chr(39) + 's ' if spec['opponent'] else ''}net bonus/malus dice"
    return (views.scroll_box(caption) + f'<table class="alk-bynet"><caption>{views.esc(caption)}</caption>'
            '<thead><tr><th scope="col">Net dice</th><th scope="col">Success</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _after_keep(after: dict | None) -> str:
    if not after or "error" in after:
        return ""
    tie = after["outcome"].get("tie", 0)
    still = f"; still tied at the cap {views.pct(tie)}" if tie else ""
    return (f'<p class="alk-after">Keeping the tapped pair: success '
            f'{views.pct(after["outcome"]["success"])}{views.esc(still)}.</p>')


def render_odds(spec: dict, answers: dict, result) -> str:
    """P(success), the totals chart, the net in words and how each extra
    bonus or malus die changes the chance; with a pending keep, its odds."""
    o = answers["roll"]
    if "error" in o:
        return views.error_html(o["error"])
    parts = _opposed_odds(spec, o) if spec["opponent"] is not None else _difficulty_odds(spec, o)
    return ('<div class="alk-odds">' + "".join(parts) + _by_net(spec, o)
            + f'<p class="alk-extra">One more bonus die: {views.pct(o["extra"]["bonus"])}; '
            f'one more malus die: {views.pct(o["extra"]["malus"])}.</p>'
            + _after_keep(answers.get("keep")) + "</div>")


# --------------------------------------------------------------------------
# Reference and history.

def fields_after(result: dict, fields: dict) -> None:
    """A roll changes nothing on this form."""
    return None


def _faces_row(colour: str, faces: list) -> str:
    """One colour's die of a face set: each face drawn, and in words."""
    dice = [{"face": f["value"], "symbol": f["symbol"], "colour": colour, "role": "rolled"} for f in faces]
    return _row(dice, None, (), f"{COLOUR_NAMES[colour]}: "
                + ", ".join(f"{f['value']} {f['symbol'] or ''}".strip() for f in faces), size=36)


def render_reference() -> str:
    """The faces and symbols of each colour's die, per face set."""
    parts = ["<summary>Dice faces and symbols</summary>",
             '<div class="alk-ref"><p>The dice take the colour of the character\'s health. The rules '
             'text shows only that a white 1 and 4 make axe–axe ("hache-hache"); the rest of the '
             'layout is our default until the real faces are known. The GM picks the face set under '
             'GM options.</p>']
    for name in alkemy.FACE_SETS:
        table = alkemy.face_table(name)
        parts.append(f'<h3>{views.esc(table["label"])}</h3>')
        parts += [_faces_row(colour, table[colour]) for colour in alkemy.HEALTH]
    parts.append("</div>")
    return "".join(parts)


def summary(result: dict) -> str:
    """One line for the history.

    >>> r = rules.roll("alkemy", {"characteristic": 8, "difficulty": 15}, rules.ScriptedRng([3, 4]))
    >>> summary(r)
    '3 + 4 + 8 = 15 vs 15'
    """
    if result.get("mode") == "opposed":
        opp = result.get("opponent") or {}
        return f"{_sum_text(result)} vs {_sum_text(opp)}"
    return f"{_sum_text(result)} vs {result.get('difficulty')}"
