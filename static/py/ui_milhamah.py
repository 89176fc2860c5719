"""The Milhamah tab: form fields to spec, result to HTML. Pure; no DOM.

Form controls are named after the spec's fields where they map one to one
(``shoresh``, ``rerolls``, ``rounds``, ``cipher``, ``difficulty``,
``combat``, ``opponent.shoresh``...). Form-only controls: ``pair`` (the two
chosen colours; the spec's ``pool`` is built from it, so a pool error is
shown at ``pair``), ``opposed`` (whether the opponent's fields make an
``opponent`` spec) and ``hit.*`` (the GM's armour, VIG soak and wound boxes
for a critical hit's location).

Taps: ``ui["selected"]`` holds the tapped die keys ("0".."11" yours,
"opponent:0".. the opponent's). A tapped die stays frozen on a reroll, and
a cipher flips the tapped dice. "Reroll" rerolls the unfrozen dice, at most
X of them: when more than X are unfrozen the page takes the unfrozen dice
without a success first, in die order (the odds panel and the tray show
which).

>>> spec = spec_from_form({"shoresh": ["אשר"], "pair": ["red+blue"], "rerolls": ["3"]})
>>> spec["pool"], spec["opponent"]
({'red': 4, 'green': 0, 'blue': 4}, None)
"""

from __future__ import annotations

import re

import draw
import rules
import tab
import views
from rules import milhamah as M
from rules.dice import SpecError

SYSTEM = "milhamah"

PAIRS = ("red+green", "red+blue", "green+blue")
COLOUR_TITLES = {"red": "Red", "green": "Green", "blue": "Blue"}
OUTCOME_WORDS = {"botch": "botch", "failure": "failure", "success_at_cost": "success at a cost",
                 "success": "success", "natural_success": "natural success",
                 "critical_success": "critical success"}
HIT_FIELDS = (("armour", 0), ("vig", 0), ("light", 1), ("serious", 1), ("critical", 1))
BEST = ' class="m-best"'
_MEETS = ("success_at_cost", "success", "natural_success", "critical_success")


_HEBREW_RUN = re.compile(r"[\u0590-\u05ff]+(?: [\u0590-\u05ff]+)*")


def he(text) -> str:
    """Escape ``text`` and isolate each run of Hebrew in a ``<bdi lang="he">``
    (right to left inside English, in the Hebrew font).

    >>> he("Shoresh אשר: <b>")
    'Shoresh <bdi lang="he">אשר</bdi>: &lt;b&gt;'
    """
    return _HEBREW_RUN.sub(lambda m: f'<bdi lang="he">{m.group(0)}</bdi>', views.esc(text))


def explain_html(lines) -> str:
    if not lines:
        return ""
    return '<ul class="explain">' + "".join(f"<li>{he(line)}</li>" for line in lines) + "</ul>"


def _one(fields: dict, name: str, default: str = "") -> str:
    v = fields.get(name) or [default]
    return str(v[0]).strip()


def _num(fields: dict, name: str, default: str) -> str:
    return _one(fields, name, default) or default


# --------------------------------------------------------------------------
# Form <-> spec.

def _pool_for(fields: dict, prefix: str = "") -> dict:
    pair = _one(fields, prefix + "pair", "red+green") or "red+green"
    return M.pool_from_pair(pair, prefix + "pair")


def spec_from_form(fields: dict) -> dict:
    """Every named control of ``#form-milhamah`` to a spec, checked by
    ``rules`` so that an error lands at the control that caused it.

    >>> s = spec_from_form({"shoresh": ["חנן"], "opposed": ["on"], "opponent.shoresh": ["רוח"],
    ...                     "opponent.shorashim": ["גד, זט"]})
    >>> s["opponent"]["shoresh"], s["opponent"]["shorashim"]
    ('רוח', 'גד, זט')
    >>> spec_from_form({"shoresh": ["אשר"], "pair": ["red+green"], "forbid": ["green"]})
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: pair: green is forbidden by a status; choose other colours
    """
    spec: dict = {
        "shoresh": _one(fields, "shoresh"),
        "pool": _pool_for(fields),
        "dice_change": _num(fields, "dice_change", "0"),
        "forbid": [str(v) for v in fields.get("forbid", [])],
        "reaction": bool(fields.get("reaction")),
        "rerolls": _num(fields, "rerolls", "3"),
        "bonus_rerolls": _num(fields, "bonus_rerolls", "0"),
        "rounds": _num(fields, "rounds", "1"),
        "cipher": _num(fields, "cipher", "0"),
        "difficulty": _num(fields, "difficulty", "3"),
        "combat": [str(v) for v in fields.get("combat", [])],
        "combat_step": _num(fields, "combat_step", "1"),
        "first_bonus": _num(fields, "first_bonus", "1"),
        "pocketed": _num(fields, "pocketed", "0"),
        "modifier_to_x": bool(fields.get("modifier_to_x")),
        "opponent": None,
    }
    if fields.get("opposed"):
        spec["opponent"] = {
            "shoresh": _one(fields, "opponent.shoresh"),
            "pool": _pool_for(fields, "opponent."),
            "rerolls": _num(fields, "opponent.rerolls", "3"),
            "rounds": _num(fields, "opponent.rounds", "1"),
            "cipher": _num(fields, "opponent.cipher", "0"),
            "shorashim": _one(fields, "opponent.shorashim"),
        }
    try:
        M.normalize(spec)
    except SpecError as e:
        field = {"pool": "pair", "opponent.pool": "opponent.pair", "spec": "_form"}.get(e.field, e.field)
        raise SpecError(field, e.detail) from None
    return spec


def _pair_of(pool: dict) -> str:
    """The form's pair for a pool: the two colours with the most dice."""
    order = sorted(M.COLOURS, key=lambda c: (-pool.get(c, 0), M.COLOURS.index(c)))
    a, b = sorted(order[:2], key=M.COLOURS.index)
    return f"{a}+{b}"


def form_values(spec: dict) -> dict:
    """The inverse of ``spec_from_form`` (share links, saved rolls). A pool
    that is not two colours × 4 shows as the nearest pair with the
    difference as ±nD.

    >>> v = form_values(rules.normalize("milhamah", {"shoresh": "רוח", "pool": ["red", "blue"],
    ...                                               "difficulty": "heroic"}))
    >>> v["shoresh"], v["pair"], v["difficulty"], v["opposed"]
    ('רוח', 'red+blue', '6', False)
    """
    spec = rules.normalize(SYSTEM, spec)
    extra = sum(spec["pool"].values()) - 8
    out: dict = {
        "shoresh": M.written(spec["shoresh"]),
        "pair": _pair_of(spec["pool"]),
        "dice_change": str(spec["dice_change"] + extra),
        "forbid": list(spec["forbid"]),
        "reaction": spec["reaction"],
        "rerolls": str(spec["rerolls"]),
        "bonus_rerolls": str(spec["bonus_rerolls"]),
        "rounds": str(spec["rounds"]),
        "cipher": str(spec["cipher"]),
        "difficulty": str(spec["difficulty"]),
        "combat": list(spec["combat"]),
        "combat_step": str(spec["combat_step"]),
        "first_bonus": str(spec["first_bonus"]),
        "pocketed": str(spec["pocketed"]),
        "modifier_to_x": spec["modifier_to_x"],
        "opposed": spec["opponent"] is not None,
    }
    opp = spec["opponent"] or {"shoresh": "חננ", "pool": M.pool_from_pair("red+green"), "rerolls": 3,
                               "rounds": 1, "cipher": 0, "shorashim": []}
    out.update({"opponent.shoresh": M.written(opp["shoresh"]), "opponent.pair": _pair_of(opp["pool"]),
                "opponent.rerolls": str(opp["rerolls"]), "opponent.rounds": str(opp["rounds"]),
                "opponent.cipher": str(opp["cipher"]),
                "opponent.shorashim": ", ".join(M.written(x) for x in opp["shorashim"])})
    return out


# --------------------------------------------------------------------------
# Which dice a step takes.

def _side_of(result: dict, side: str) -> dict:
    return result if side == "initiator" else (result.get("opponent") or {})


def _prefix(side: str) -> str:
    return "" if side == "initiator" else "opponent:"


def tapped(result: dict, ui: dict, side: str = "initiator") -> list:
    """The die numbers of a side the player has tapped."""
    n = len(_side_of(result, side).get("dice") or [])
    out = []
    pre = _prefix(side)
    for k in (ui or {}).get("selected") or ():
        k = str(k)
        if pre and not k.startswith(pre):
            continue
        if not pre and ":" in k:
            continue
        tail = k[len(pre):]
        if tail.isdigit() and int(tail) < n and int(tail) not in out:
            out.append(int(tail))
    return sorted(out)


def reroll_targets(result: dict, ui: dict, side: str = "initiator") -> list:
    """The dice "Reroll" takes: the unfrozen (untapped) dice, at most X;
    with more than X unfrozen, those without a success first, in die order.

    >>> r = {"x": 2, "dice": [{"success": True}, {}, {}, {}]}
    >>> reroll_targets(r, {"selected": ["1"]})
    [2, 3]
    >>> reroll_targets(r, {"selected": ["1", "2", "3"]})
    [0]
    """
    s = _side_of(result, side)
    dice = s.get("dice") or []
    frozen = set(tapped(result, ui, side))
    free = [i for i in range(len(dice)) if i not in frozen]
    x = int(s.get("x") or 0)
    if len(free) <= x:
        return free
    plain = [i for i in free if not dice[i].get("success")]
    return sorted((plain + [i for i in free if i not in plain])[:x])


def action_for(verb: str, result: dict, ui: dict, fields: dict) -> dict:
    """The action for a ``data-act`` button. Verbs: ``reroll`` /
    ``reroll:opponent`` (the unfrozen dice), ``cipher`` / ``cipher:opponent``
    (the tapped dice), ``natural:<reward>``, ``hit_location`` (the GM's
    numbers from the form's ``hit.*`` fields).

    >>> r = {"x": 3, "dice": [{}, {"success": True}, {}, {}, {}]}
    >>> action_for("reroll", r, {"selected": ["0"]}, {})
    {'do': 'reroll', 'dice': [2, 3, 4]}
    >>> action_for("natural:merit", r, {}, {})
    {'do': 'natural', 'reward': 'merit'}
    """
    name, _, arg = str(verb).partition(":")
    if name in ("reroll", "cipher"):
        side = "opponent" if arg == "opponent" else "initiator"
        if name == "reroll":
            dice = reroll_targets(result, ui, side)
            if not dice:
                raise SpecError("_form", "every die is frozen: untap a die to reroll it")
        else:
            dice = tapped(result, ui, side)
            if not dice:
                raise SpecError("_form", "tap the dice to flip with the cipher first")
        action = {"do": name, "dice": dice}
        if side != "initiator":
            action["side"] = side
        return action
    if name == "natural":
        return {"do": "natural", "reward": arg or "successes"}
    if name == "hit_location":
        action = {"do": "hit_location"}
        for k, default in HIT_FIELDS:
            v = _one(fields, f"hit.{k}", str(default)) or str(default)
            if not v.lstrip("-").isdigit() or not 0 <= int(v) <= 99:
                raise SpecError(f"hit.{k}", "must be a whole number from 0 to 99")
            action[k] = int(v)
        return action
    raise SpecError("_form", f"Milhamah has no step called {verb!r}")


# --------------------------------------------------------------------------
# The tray.

def _die_label(d: dict, n: int, will: bool, frozen: bool) -> str:
    text = f"Die {n + 1}: " + draw.describe(d)
    if d.get("ciphered"):
        text += ", flipped by a cipher"
    if frozen:
        text += ", tapped (frozen)"
    if will:
        text += ", will be rerolled"
    return text


def dice_row(dice: list, *, keys: list | None, selected=(), will=(), fresh=(), caption: str = "",
             size: int = 64) -> str:
    """A row of letter dice: tapped dice drawn frozen (snowflake, double rim,
    selection ring), dice the next reroll takes tagged "↻", successes
    checked; each with its colour and a text equivalent."""
    sel = set(selected or ())
    shown, labels, tags, classes = [], [], [], []
    for i, d in enumerate(dice):
        k = keys[i] if keys is not None and isinstance(d, dict) else None
        frozen = k is not None and k in sel
        shown.append(dict(d, role="frozen") if frozen else d)
        if not isinstance(d, dict):
            continue
        labels.append(_die_label(d, i, i in will, frozen))
        tags.append(" ".join(_tags(d, frozen, i in will)))
        cls = ["m-die", f"m-{d.get('colour', '')}"]
        cls += [c for c, on in (("m-fresh", i in fresh), ("m-will", i in will), ("m-frozen", frozen)) if on]
        classes.append(" ".join(cls))
    keys = [k for k, d in zip(keys, dice) if isinstance(d, dict)] if keys is not None else None
    shown = [d for d in shown if isinstance(d, dict)]
    return draw.tray(shown, keys, selected=sel, size=size, caption=caption or None,
                     caption_html=he(caption) if caption else None, labels=labels, tags=tags,
                     classes=classes, row_class="m-row")


def _tags(d: dict, frozen: bool, will: bool) -> list:
    """The marks under a letter die: ✓ a success, "wild ✗" a wild that
    does not count, frozen or ↻ (the next reroll takes it), cipher."""
    tags = ["✓"] if d.get("success") else ["wild ✗"] if d.get("wild") else []
    tags += ["frozen"] if frozen else ["↻"] if will else []
    return tags + (["cipher"] if d.get("ciphered") else [])


def fresh_dice(result: dict, ui: dict, side: str = "initiator") -> set:
    """The dice the last step drew or flipped, which land with a little
    motion; none while the player is tapping (a tap redraws the tray and
    must not replay the throw).

    >>> fresh_dice({"dice": [{}, {}], "log": ["roll"]}, {"selected": []})
    {0, 1}
    >>> fresh_dice({"dice": [{}, {}], "log": ["roll", {"do": "reroll", "dice": [1]}]}, {"selected": []})
    {1}
    >>> fresh_dice({"dice": [{}, {}], "log": ["roll"]}, {"selected": ["0"]})
    set()
    """
    if (ui or {}).get("selected"):
        return set()
    n = len(_side_of(result, side).get("dice") or [])
    log = result.get("log") or []
    last = log[-1] if log else "roll"
    if last == "roll":
        return set(range(n))
    if isinstance(last, dict) and last.get("do") in ("reroll", "cipher") \
            and last.get("side", "initiator") == side and isinstance(last.get("dice"), list):
        return {i for i in last["dice"] if isinstance(i, int)}
    return set()


def _headline(result: dict) -> str:
    if result.get("outcome") == "botch":
        w = result.get("wilds", 0)
        return f"no shoresh letter{f', {w} wild' + ('s' if w != 1 else '') if w else ''}"
    total, needed = result.get("total"), result.get("needed")
    bonus = result.get("bonus") or 0
    opp = result.get("opponent")
    if isinstance(opp, dict):
        text = f"{total} against the opponent's {opp.get('successes')}"
    else:
        text = f"{total} of {needed} needed"
    if bonus:
        text += f" ({result.get('value')} on the dice + {bonus})"
    return text


def _side_buttons(result: dict, ui: dict, side: str) -> list:
    s = _side_of(result, side)
    allowed = s.get("allowed") or []
    who = "" if side == "initiator" else ":opponent"
    whose = "" if side == "initiator" else "Opponent: "
    out = []
    if "reroll" in allowed:
        targets = reroll_targets(result, ui, side)
        forfeit = side == "initiator" and result.get("first_bonus_kept") and result.get("allowed") \
            and "reroll" in result.get("allowed")
        label = f"{whose}Reroll {len(targets)}" + (f" of X = {s.get('x')}" if len(targets) < (s.get('x') or 0) else "")
        if forfeit:
            label += " (forfeits the first-roll bonus)"
        out.append(f'<button type="button" data-act="reroll{who}" class="m-act m-reroll"'
                   f'{" disabled" if not targets else ""}>{views.esc(label)}</button>')
    if "cipher" in allowed:
        n = len(tapped(result, ui, side))
        left = s.get("ciphers_left", 0)
        out.append(f'<button type="button" data-act="cipher{who}" class="m-act m-cipher"'
                   f'{" disabled" if not n or n > left else ""}>'
                   f'{views.esc(f"{whose}Cipher: flip {n} tapped ({left} left)")}</button>')
    return out


def render_result(result: dict, ui: dict) -> str:
    """The tray: outcome, your dice (tappable while a step may use them),
    the opponent's, the step buttons the rules allow now, the hit location,
    and the explanation."""
    ui = ui or {}
    parts = [views.outcome_banner(SYSTEM, result.get("outcome", ""), _headline(result))]
    sel = [str(k) for k in ui.get("selected") or ()]
    dice = result.get("dice") or []
    allowed = result.get("allowed") or []
    live = any(v in allowed for v in ("reroll", "cipher"))
    will = set(reroll_targets(result, ui)) if "reroll" in allowed else set()
    keys = [str(i) for i in range(len(dice))] if live else None
    spec = result.get("spec") or {}
    cap = f"Your dice · shoresh {M.written(spec.get('shoresh', ''))} · X = {result.get('x')}"
    if live:
        cap += " · tap dice to freeze them"
    parts.append(dice_row(dice, keys=keys, selected=sel, will=will, fresh=fresh_dice(result, ui), caption=cap))
    opp = result.get("opponent")
    if isinstance(opp, dict):
        o_allowed = opp.get("allowed") or []
        o_live = any(v in o_allowed for v in ("reroll", "cipher"))
        o_will = set(reroll_targets(result, ui, "opponent")) if "reroll" in o_allowed else set()
        o_keys = [f"opponent:{i}" for i in range(len(opp.get("dice") or []))] if o_live else None
        parts.append(dice_row(opp.get("dice") or [], keys=o_keys, selected=sel, will=o_will, size=52,
                              fresh=fresh_dice(result, ui, "opponent"),
                              caption=f"Opponent's dice · shoresh {M.written(opp.get('shoresh', ''))} · "
                                      f"{opp.get('successes')} success{'' if opp.get('successes') == 1 else 'es'}"
                                      " (wilds don't count when reacting)"))
    buttons = _side_buttons(result, ui, "initiator")
    if "natural" in allowed:
        if isinstance(opp, dict):
            buttons.append('<button type="button" data-act="natural:uncounterable" class="m-act">'
                           "Natural: take +1, uncounterable (ends your turn)</button>")
            buttons.append('<button type="button" data-act="natural:critical" class="m-act">'
                           "Natural: let them react, critical if they get 0 (ends your turn)</button>")
        else:
            n = len(str(spec.get("shoresh") or "")) or 3
            buttons.append('<button type="button" data-act="natural:successes" class="m-act">'
                           f"Natural: take +{n} successes (ends your turn)</button>")
            buttons.append('<button type="button" data-act="natural:merit" class="m-act">'
                           "Natural: take a Merit Point instead (ends your turn)</button>")
    if "hit_location" in allowed:
        buttons.append('<button type="button" data-act="hit_location" class="m-act m-hit">'
                       "Roll hit location</button>")
    if isinstance(opp, dict):
        buttons += _side_buttons(result, ui, "opponent")
    if buttons:
        parts.append(f'<div class="m-actions">{"".join(buttons)}</div>')
    if "hit_location" in allowed:
        parts.append('<p class="hint">Critical success: enter the target\'s armour at the location, VIG soak '
                     "and free wound boxes in the Opponent fields, then roll the hit location letter.</p>")
    if live:
        parts.append('<p class="hint m-hint">Tapped dice stay frozen; Reroll takes the unfrozen ones, '
                     "at most X, those without a success first (marked ↻). A cipher flips the tapped dice "
                     "to their opposite faces.</p>")
    hit = result.get("hit")
    if isinstance(hit, dict):
        parts.append(_hit_html(hit))
    if result.get("counter"):
        parts.append('<p class="m-counter">The opponent may counter with '
                     + he(", ".join(M.written(c) for c in result["counter"])) + " (in your final dice).</p>")
    parts.append(explain_html(result.get("explain")))
    return "".join(parts)


def _hit_html(hit: dict) -> str:
    die = draw.die_svg(hit.get("die") or {"face": hit.get("letter"), "faces": list(M.LETTERS)},
                       size=56, colour="white", label=f"Hit location letter {hit.get('letter')}")
    w = hit.get("wounds") or {}
    wounds = ", ".join(f"{n} {k}" for k, n in w.items() if n) or "no wounds"
    return (f'<div class="m-hitbox">{die}<p><strong>{views.esc(hit.get("location"))}</strong> '
            f'({views.esc(hit.get("letter"))}) · margin {views.esc(hit.get("margin"))}: '
            f'{views.esc(hit.get("armour"))} to armour, {views.esc(hit.get("vig"))} to VIG soak, '
            f'{views.esc(wounds)}'
            + (f', {views.esc(hit.get("beyond"))} beyond the wound track (the Narrator may kill the '
               'character or destroy the body part)' if hit.get("beyond") else "")
            + ".</p></div>")


# --------------------------------------------------------------------------
# Odds.

def _meets(o: dict) -> float:
    return sum(o["outcome"].get(k, 0) for k in _MEETS)


def _pair_title(pair) -> str:
    return " + ".join(COLOUR_TITLES.get(c, c).lower() for c in pair)


def questions(spec: dict, result, ui: dict) -> dict:
    """After a roll that may still be rerolled: the reroll of the dice not
    frozen (and the opponent's); otherwise the roll in the form. A step is
    asked of the spec the roll was made with."""
    out = {}
    if isinstance(result, dict):
        rspec = result.get("spec") or spec
        if "reroll" in (result.get("allowed") or []):
            out["reroll"] = {"spec": rspec, **tab.after(result, {"do": "reroll",
                                                                  "dice": reroll_targets(result, ui or {})})}
        opp = result.get("opponent")
        if isinstance(opp, dict) and "reroll" in (opp.get("allowed") or []):
            out["opponent"] = {"spec": rspec, **tab.after(result, {
                "do": "reroll", "side": "opponent", "dice": reroll_targets(result, ui or {}, "opponent")})}
    if not out:
        out["roll"] = tab.before()
    return out


def render_odds(spec: dict, answers: dict, result) -> str:
    """Before a roll: P(meeting the difficulty) after the first roll and
    after the reroll (freeze every success), P(natural), P(botch), the
    successes chart and the three colour pairs ranked. After a roll: the
    odds of the reroll for the dice now frozen, updated on every tap."""
    out = []
    for o in answers.values():
        if "error" in o:
            return views.error_html(o["error"])
    if "reroll" in answers:
        o = answers["reroll"]
        targets = o["dice"]
        rspec = result.get("spec") or spec
        shown = ", ".join(f'<bdi lang="he">{views.esc(str(result["dice"][i].get("face")).replace(M.WILD, "★"))}</bdi>'
                          for i in targets)
        now = OUTCOME_WORDS.get(o["now"], o["now"])
        needed = result.get("needed")
        what = "the opponent's successes as they lie" if rspec.get("opponent") else f"{needed}"
        out.append(f'<h3 class="odds-title">If you reroll {len(targets)} '
                   f'{"die" if len(targets) == 1 else "dice"} now</h3>')
        out.append(f'<p class="m-odds-line" data-odds="reroll"><strong>{views.esc(views.pct(o["meets"]))}</strong> '
                   f'to meet {views.esc(what)} (now: {views.esc(now)}) · natural '
                   f'{views.esc(views.pct(o.get("natural", 0)))} · botch {views.esc(views.pct(o["outcome"]["botch"]))}'
                   f'<br><span class="hint">Rerolling {shown or "nothing"} (in die order); '
                   "tap dice to change what stays frozen.</span></p>")
        out.append(_outcome_table(o["outcome"]))
    if "opponent" in answers:
        o = answers["opponent"]
        targets = o["dice"]
        out.append(f'<p class="m-odds-line" data-odds="opponent">If the opponent rerolls {len(targets)} '
                   f'{"die" if len(targets) == 1 else "dice"}: you still meet them '
                   f'<strong>{views.esc(views.pct(o["meets"]))}</strong> (your dice as they lie).</p>')
    if out:
        return "".join(out)
    if isinstance(result, dict):
        out.append('<p class="hint">No reroll left for this roll. The odds below are for the next roll '
                   "in the form.</p>")
    o = answers["roll"]
    opposed = spec.get("opponent") is not None
    needed_now, adj = M.effective_difficulty(spec)
    bar = "the opponent" if opposed else f"{needed_now} successes" + (f" ({adj:+d} combat)" if adj else "")
    out.append('<h3 class="odds-title">Odds of the roll in the form</h3>')
    rounds = spec.get("rounds", 1)
    after = f"after {'the reroll' if rounds == 1 else f'{rounds} reroll rounds'}" if rounds else "(no reroll)"
    out.append(f'<p class="m-odds-line" data-odds="before">Meet {views.esc(bar)}: '
               f'<strong>{views.esc(views.pct(o["meets_first"]))}</strong> on the first roll, '
               f'<strong>{views.esc(views.pct(o["meets_final"]))}</strong> {views.esc(after)}. '
               f'Natural shoresh {views.esc(views.pct(o["natural_first"]))} first roll / '
               f'{views.esc(views.pct(o["natural"]))} final. Botch {views.esc(views.pct(o["botch"]))}.</p>')
    if o.get("note"):
        out.append(f'<p class="hint">{views.esc(o["note"])}.</p>')
    cols = o.get("colours") or []
    if cols:
        best = cols[0]
        tied = [r for r in cols if abs(r["meets"] - best["meets"]) < 5e-4]
        rows = "".join(
            f'<tr{BEST if r in tied else ""}><th scope="row">{views.esc(_pair_title(r["pair"]))}</th>'
            f'<td>{views.esc(views.pct(r["meets"]))}</td><td>{views.esc(views.pct(r["natural"]))}</td>'
            f'<td>{views.esc(views.pct(r["botch"]))}</td></tr>' for r in cols)
        if len(tied) > 1:
            lead = " and ".join(_pair_title(r["pair"]) for r in tied).capitalize() + " tie for the best chance"
        else:
            lead = _pair_title(best["pair"]).capitalize() + " gives the best chance"
        out.append(f'<p class="m-best-line">{views.esc(lead)} for {he(M.written(spec.get("shoresh")))}.</p>'
                   + views.scroll_box("Chances by colour pair")
                   + '<table class="m-pairs"><thead><tr><th>Colours</th><th>Meet</th>'
                   f"<th>Natural</th><th>Botch</th></tr></thead><tbody>{rows}</tbody></table></div>")
    needed = M.effective_difficulty(spec)[0]
    out.append(views.bar_chart(o["value"], title="Successes on the dice "
                               + ("after the reroll (freeze every success)" if rounds else "(no reroll)"),
                               highlight=(lambda v: opposed or int(v) >= needed)))
    out.append(_outcome_table(o["outcome"]))
    return "".join(out)


def _outcome_table(outcome: dict) -> str:
    cells = "".join(f"<tr><th scope=\"row\">{views.esc(OUTCOME_WORDS[k].capitalize())}</th>"
                    f"<td>{views.esc(views.pct(outcome.get(k, 0)))}</td></tr>"
                    for k in reversed(M.OUTCOMES) if outcome.get(k, 0) > 0)
    return views.scroll_box("Chance of each outcome") + f'<table class="m-outcomes"><tbody>{cells}</tbody></table></div>'


# --------------------------------------------------------------------------
# Reference and history.

def fields_after(result: dict, fields: dict) -> None:
    """A roll changes nothing on this form."""
    return None


def render_reference() -> str:
    """The faces view (each colour's twelve faces per design and its cipher
    pairs, RULES-NOTES Milhamah 2), the difficulty table, the hit location
    table and the rules as the page plays them."""
    blocks = []
    for c in M.faces_table():
        designs = []
        for name, faces in c["designs"].items():
            count = c["dice"].count(name)

            def face(i):
                f = faces[i]
                svg = draw.die_svg({"faces": faces, "face": f, "colour": c["colour"]}, size=36,
                                   label=f"face {i + 1}: {'wild' if f == M.WILD else f}")
                return (f'<span class="m-face">{svg}<span class="m-face-n" aria-hidden="true">{i + 1}</span>'
                        "</span>")
            # face i above face 13 - i: each column is an opposite pair
            cols = "".join(f'<span class="m-opp" role="group" aria-label="opposite faces {i + 1} and {12 - i}">'
                           f"{face(i)}{face(11 - i)}</span>" for i in range(6))
            designs.append(f'<div class="m-design"><p class="m-design-title">Design {views.esc(name)} '
                           f'({count} of the 4 {views.esc(c["colour"])} dice): each column is a pair of '
                           f'opposite faces</p><div class="m-faces">{cols}</div></div>')
        chips = "".join(
            f'<span class="m-chip"><bdi lang="he">{views.esc(a.replace(M.WILD, "★"))}</bdi> ⇄ '
            f'<bdi lang="he">{views.esc(b.replace(M.WILD, "★"))}</bdi></span>' for a, b in c["pairs"])
        blocks.append(f'<section class="m-colour m-{views.esc(c["colour"])}">'
                      f'<h4>{views.esc(COLOUR_TITLES[c["colour"]])}: {views.esc(c["cipher"])} cipher pairs</h4>'
                      f'<p class="m-chips">{chips}</p><div class="m-designs">{"".join(designs)}</div></section>')
    diff = "".join(f"<tr><td>{views.esc(M.DIFFICULTY_TITLES[k])}</td><td>{n}{'+' if k == 'miraculous' else ''}</td></tr>"
                   for k, n in M.DIFFICULTIES.items())
    items = list(M.HIT_LOCATIONS.items())
    half = (len(items) + 1) // 2
    hits = "".join(
        "<tr>" + "".join(f'<td lang="he">{views.esc(k)}</td><td>{views.esc(v)}</td>'
                         for k, v in items[r::half]) + "</tr>" for r in range(half))
    return (
        "<summary>Milhamah reference: the letter dice, cipher pairs, difficulty, hit location</summary>"
        '<div class="m-ref">'
        '<p class="hint">The rules text does not give the faces. This layout is reconstructed from the '
        "game's public material (RULES-NOTES Milhamah 2): red is Atbash, green Akhbi, blue Albam, each "
        "letter's cipher partner on the opposite face, and a cipher flips a die to its opposite face "
        "(the text only says dice may not be swapped \"unless they announce that they are performing a "
        "cipher\"). The layout is data (rules/milhamah_dice.json) and can be replaced.</p>"
        + "".join(blocks)
        + '<div class="m-tables">' + views.scroll_box("Difficulty")
        + '<table><caption>Difficulty</caption><thead><tr>'
        f"<th>Difficulty</th><th>Successes</th></tr></thead><tbody>{diff}</tbody></table></div>"
        + views.scroll_box("Hit location (critical success)")
        + '<table><caption>Hit location (critical success)</caption><thead><tr>'
        f"<th>Letter</th><th>Location</th><th>Letter</th><th>Location</th></tr></thead><tbody>{hits}</tbody>"
        "</table></div></div>"
        '<ul class="m-rules">'
        "<li>Roll 8D of two colours (status effects add or remove dice, or forbid a colour). Each die "
        "showing a letter of the shoresh is a success (a doubled letter counts once per die); wilds count "
        "when acting, not when reacting. Final forms fold to their base letters.</li>"
        "<li>Freeze any dice and reroll up to X of the others (X = attribute + skill ± modifiers); a status "
        "may add rounds or forbid rerolling. A cipher flips chosen dice to their opposite faces.</li>"
        "<li>More successes than needed: success; equal: success at a cost; fewer: failure; no shoresh "
        "letter at all: botch, worse for each wild.</li>"
        "<li>Natural shoresh (every letter, no wilds): a success bonus of one per letter or a Merit Point; "
        "on the first roll +1 more (lost if you reroll). Opposed: +1 and uncounterable, or let the "
        "opponent react for a critical if they get no success.</li>"
        "<li>Combat: difficulty −1 if the enemy is already fighting someone else or surprised, +1 for "
        "cover or if they just ambushed you.</li>"
        "</ul></div>")


def summary(result: dict) -> str:
    """One line for the roll history.

    >>> r = rules.roll("milhamah", {"shoresh": "אשר", "pool": ["red"], "difficulty": 1},
    ...                rules.ScriptedRng([1, 2, 3, 4]))
    >>> summary(r)
    'אשר: 1 of 1 needed → success at a cost'
    """
    spec = result.get("spec") or {}
    sh = M.written(spec.get("shoresh", ""))
    outcome = OUTCOME_WORDS.get(result.get("outcome"), str(result.get("outcome")))
    if result.get("outcome") == "botch":
        w = result.get("wilds", 0)
        text = f"{sh}: no letter{f', {w} wilds' if w else ''} → botch"
    else:
        opp = result.get("opponent")
        if isinstance(opp, dict):
            text = (f"{sh}: {result.get('total')} vs {opp.get('successes')} "
                    f"({M.written(opp.get('shoresh', ''))}) → {outcome}")
        else:
            text = f"{sh}: {result.get('total')} of {result.get('needed')} needed → {outcome}"
    if result.get("hit"):
        text += f", hit {result['hit'].get('location')}"
    return text
