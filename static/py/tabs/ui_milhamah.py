"""The Milhamah tab: form fields to spec, result to HTML. Pure; no DOM.

Form controls are named after the spec's fields where they map one to one
(``shoresh``, ``rerolls``, ``rounds``, ``cipher``, ``difficulty``,
``combat``, ``opponent.shoresh``...). Form-only controls: ``pair`` (the two
chosen colours; the spec's ``pool`` is built from it, so a pool error is
shown at ``pair``), ``opposed`` (whether the opponent's fields make an
``opponent`` spec) and ``hit.*`` (the GM's armour, VIG soak and wound boxes
for a critical hit's location).

Taps: ``ui["selected"]`` holds the tapped die keys ("0".."11" yours,
"opponent:0".. the opponent's). Until the player taps, "Reroll" takes the
advised dice (``result["best_reroll"]``, marked ↻ in advance). A tap is the
player's own choice: tapped dice stay frozen and "Reroll" takes the
unfrozen dice, at most X, those without a success first; "Reroll the
advised dice" still takes the advice in one tap. A cipher flips the tapped
dice. The odds panel prices both ("your choice: 12 %, best: 31 %").

>>> spec = spec_from_form({"shoresh": ["אשר"], "pair": ["red+blue"], "rerolls": ["3"]})
>>> spec["pool"], spec["opponent"]
({'red': 4, 'green': 0, 'blue': 4}, None)
"""

from __future__ import annotations

import re

import rules
from drawing import draw, views
from rules.dice import SpecError, is_int
from rules.milhamah import explain as E, model as M
from tabs import tab

SYSTEM = "milhamah"

PAIRS = ("red+green", "red+blue", "green+blue")
COLOUR_TITLES = {"red": "Red", "green": "Green", "blue": "Blue"}
#: One wording of each outcome everywhere ("success at a cost").
OUTCOME_WORDS = E.OUTCOME_WORDS
HIT_FIELDS = (("armour", 0), ("vig", 0), ("light", 1), ("serious", 1), ("critical", 1))
BEST = ' class="m-best"'


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


def _opponent_spec(fields: dict) -> dict:
    """The opponent's controls (``opponent.shoresh``...) to their spec."""
    return {
        "shoresh": _one(fields, "opponent.shoresh"),
        "pool": _pool_for(fields, "opponent."),
        "rerolls": _num(fields, "opponent.rerolls", "3"),
        "rounds": _num(fields, "opponent.rounds", "1"),
        "cipher": _num(fields, "opponent.cipher", "0"),
        "shorashim": _one(fields, "opponent.shorashim"),
    }


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
        spec["opponent"] = _opponent_spec(fields)
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


def verbs(result: dict, side: str = "initiator") -> list:
    """The verbs ``side`` may take now, from the result's ``allowed`` (the
    rules contract; an entry without a side is the initiator's).

    >>> verbs({"allowed": [{"do": "reroll"}, {"do": "stand", "side": "opponent"}]}, "opponent")
    ['stand']
    """
    allowed = result.get("allowed")
    return [a.get("do") for a in allowed if isinstance(a, dict) and a.get("side", "initiator") == side] \
        if isinstance(allowed, list) else []


def _prefix(side: str) -> str:
    return "" if side == "initiator" else "opponent:"


def _key_index(key, pre: str, n: int) -> int | None:
    """The die number a tap key names for a side (keys "0".. yours,
    "opponent:0".. the opponent's), or None."""
    k = str(key)
    if (":" in k) != bool(pre) or not k.startswith(pre):
        return None
    tail = k[len(pre):]
    return int(tail) if tail.isdigit() and int(tail) < n else None


def tapped(result: dict, ui: dict, side: str = "initiator") -> list:
    """The die numbers of a side the player has tapped."""
    n = len(_side_of(result, side).get("dice") or [])
    found = (_key_index(k, _prefix(side), n) for k in (ui or {}).get("selected") or ())
    return sorted({i for i in found if i is not None})


def advice(result: dict, side: str = "initiator") -> list | None:
    """The dice best play rerolls now (``best_reroll``; [] = keep the
    roll), or None when the result gives no advice.

    >>> advice({"best_reroll": [2, 0]}), advice({}), advice({"opponent": {"best_reroll": []}}, "opponent")
    ([0, 2], None, [])
    """
    best = _side_of(result, side).get("best_reroll")
    if not isinstance(best, list):
        return None
    return sorted(i for i in best if is_int(i))


def own_choice(result: dict, ui: dict, side: str = "initiator") -> list:
    """The dice the player's taps leave to reroll: the unfrozen (untapped)
    dice, at most X; with more than X unfrozen, those without a success
    first, in die order.

    >>> r = {"x": 2, "dice": [{"success": True}, {}, {}, {}]}
    >>> own_choice(r, {"selected": ["1"]})
    [2, 3]
    >>> own_choice(r, {"selected": ["1", "2", "3"]})
    [0]
    """
    s = _side_of(result, side)
    dice = s.get("dice") or []
    frozen = set(tapped(result, ui, side))
    free = sorted(set(range(len(dice))) - frozen, key=lambda i: (bool(dice[i].get("success")), i))
    return sorted(free[:int(s.get("x") or 0)])


def overridden(result: dict, ui: dict, side: str = "initiator") -> bool:
    """Has the player tapped dice of this side (their own choice over the
    advice)?"""
    return bool(tapped(result, ui, side))


def reroll_targets(result: dict, ui: dict, side: str = "initiator") -> list:
    """The dice "Reroll" takes: the advice (``best_reroll``) until the
    player taps a die, then their own choice (``own_choice``); without
    advice, or when best play keeps the roll, their own choice.

    >>> r = {"x": 2, "dice": [{"success": True}, {}, {}, {}], "best_reroll": [0, 3]}
    >>> reroll_targets(r, {"selected": []}), reroll_targets(r, {"selected": ["0"]})
    ([0, 3], [1, 2])
    """
    best = advice(result, side)
    if best and not overridden(result, ui, side):
        return best
    return own_choice(result, ui, side)


def _dice_action(name: str, side: str, dice: list) -> dict:
    action = {"do": name, "dice": dice}
    if side != "initiator":
        action["side"] = side
    return action


#: A side's dice steps: (verb, the dice it takes, what to say when none).
_DICE_STEPS = {
    "reroll": ("reroll", reroll_targets, "every die is frozen: untap a die to reroll it"),
    "advice": ("reroll", lambda result, ui, side: advice(result, side) or [],
               "best play keeps these dice: there is no advised reroll"),
    "cipher": ("cipher", tapped, "tap the dice to flip with the cipher first"),
}


def _side_action(name: str, result: dict, ui: dict, side: str) -> dict:
    if name == "stand":
        return {"do": "stand"} if side == "initiator" else {"do": "stand", "side": side}
    verb, which, none = _DICE_STEPS[name]
    dice = which(result, ui, side)
    if not dice:
        raise SpecError("_form", none)
    return _dice_action(verb, side, dice)


def _hit_action(fields: dict) -> dict:
    action = {"do": "hit_location"}
    for k, default in HIT_FIELDS:
        action[k] = _hit_number(fields, k, str(default))
    return action


def _hit_number(fields: dict, k: str, default: str) -> int:
    """One of the GM's numbers for the hit location (``hit.armour``...), 0 to 99."""
    v = _one(fields, f"hit.{k}", default) or default
    if not v.lstrip("-").isdigit() or not 0 <= int(v) <= 99:
        raise SpecError(f"hit.{k}", "must be a whole number from 0 to 99")
    return int(v)


def action_for(verb: str, result: dict, ui: dict, fields: dict) -> dict:
    """The action for a ``data-act`` button. Verbs: ``choice-<i>`` (the
    i-th of ``result["choices"]``, ``tab.choice_action``), ``reroll`` /
    ``reroll:opponent`` (the advised dice, or once dice are tapped the
    unfrozen ones), ``advice`` / ``advice:opponent`` (the advised dice,
    whatever is tapped), ``cipher`` / ``cipher:opponent`` (the tapped
    dice), ``stand`` / ``stand:opponent`` (end that side's turn),
    ``natural:<reward>``, ``hit_location`` (the GM's numbers from the
    form's ``hit.*`` fields).

    >>> r = {"x": 3, "dice": [{}, {"success": True}, {}, {}, {}]}
    >>> action_for("reroll", r, {"selected": ["0"]}, {})
    {'do': 'reroll', 'dice': [2, 3, 4]}
    >>> action_for("natural:merit", r, {}, {})
    {'do': 'natural', 'reward': 'merit'}
    """
    chosen = tab.choice_action(str(verb), result)
    if chosen is not None:
        # a choice side by side (``choices_html``); the hit location takes the GM's numbers
        return {**_hit_action(fields), **chosen} if chosen.get("do") == "hit_location" else chosen
    return _named_step(str(verb), result, ui, fields)


def _named_step(verb: str, result: dict, ui: dict, fields: dict) -> dict:
    """A step button named by its verb (``reroll:opponent``, ``natural:merit``...)."""
    name, _, arg = verb.partition(":")
    if name in ("reroll", "advice", "cipher", "stand"):
        return _side_action(name, result, ui, "opponent" if arg == "opponent" else "initiator")
    if name == "natural":
        return {"do": "natural", "reward": arg or "successes"}
    if name == "hit_location":
        return _hit_action(fields)
    raise SpecError("_form", f"Milhamah has no step called {verb!r}")


# --------------------------------------------------------------------------
# The tray.

#: The marks under a die, and what each means (the legend under the tray).
MARKS = (("✓", "a success"), ("wild ✗", "a wild: it does not count for a side that reacts"),
         ("↻", "the next reroll takes it"), ("frozen", "you tapped it: your reroll leaves it as it is"),
         ("cipher", "flipped to its opposite face"))
#: The badges in a die's corner after a reroll (``draw``'s turning arrow and
#: snowflake), each explained only when a die shows it: (mark, role, words).
BADGES = (("⟲", "rerolled", "rerolled (its earlier face struck through in the corner)"),
          ("✱", "frozen", "left as it lay by the last reroll"))


def _die_label(d: dict, n: int, will: bool, frozen: bool) -> str:
    text = f"Die {n + 1}: " + draw.describe(d)
    extra = ((d.get("ciphered"), ", flipped by a cipher"), (frozen, ", tapped (frozen)"),
             (will, ", will be rerolled"))
    return text + "".join(words for on, words in extra if on)


def _tags(d: dict, frozen: bool, will: bool) -> list:
    """The marks under a letter die (``MARKS``)."""
    tags = ["✓"] if d.get("success") else ["wild ✗"] if d.get("wild") else []
    tags += ["frozen"] if frozen else ["↻"] if will else []
    return tags + (["cipher"] if d.get("ciphered") else [])


def _slot_class(d: dict, fresh: bool, will: bool, frozen: bool) -> str:
    cls = ["m-die", f"m-{d.get('colour', '')}"]
    return " ".join(cls + [c for c, on in (("m-fresh", fresh), ("m-will", will), ("m-frozen", frozen)) if on])


def _die_view(i: int, d: dict, key, sel: set, will, fresh) -> tuple:
    """One die as the tray draws it: (die, key, label, tag, slot class)."""
    frozen = key is not None and key in sel
    return (dict(d, role="frozen") if frozen else d, key, _die_label(d, i, i in will, frozen),
            " ".join(_tags(d, frozen, i in will)), _slot_class(d, i in fresh, i in will, frozen))


def _columns(dice: list, keys: list | None, sel: set, will, fresh) -> list:
    """The tray's columns (dice, keys, labels, tags, classes), the dice
    that are not dicts left out."""
    rows = [_die_view(i, d, k, sel, will, fresh) for i, (d, k) in enumerate(zip(dice, keys or [None] * len(dice)))
            if isinstance(d, dict)]
    return [list(col) for col in zip(*rows)] or [[]] * 5


def dice_row(dice: list, *, keys: list | None, selected=(), will=(), fresh=(), caption: str = "",
             size: int = 64) -> str:
    """A row of letter dice: tapped dice drawn frozen (snowflake, double rim,
    selection ring), dice the next reroll takes tagged "↻", successes
    checked; each with its colour and a text equivalent."""
    sel = set(selected or ())
    shown, ks, labels, tags, classes = _columns(dice, keys, sel, will, fresh)
    return draw.tray(shown, None if keys is None else ks, selected=sel, size=size, caption=caption or None,
                     caption_html=he(caption) or None, labels=labels, tags=tags, classes=classes,
                     row_class="m-row")


def fresh_dice(result: dict, ui: dict, side: str = "initiator") -> set:
    """The dice the last step drew or flipped (its recorded stage), which
    land with a little motion; none while the player is tapping (a tap
    redraws the tray and must not replay the throw).

    >>> fresh_dice({"dice": [{}, {}], "stages": [{"do": "roll"}]}, {"selected": []})
    {0, 1}
    >>> fresh_dice({"dice": [{}, {}], "stages": [{"do": "roll"}, {"do": "reroll", "dice": [1]}]}, {"selected": []})
    {1}
    >>> fresh_dice({"dice": [{}, {}], "stages": [{"do": "roll"}]}, {"selected": ["0"]})
    set()
    """
    last = _last_stage(result)
    if (ui or {}).get("selected") or not last:
        return set()
    if last.get("do") == "roll":
        return set(range(len(_side_of(result, side).get("dice") or [])))
    return _moved(last, side)


def _last_stage(result: dict) -> dict:
    stages = result.get("stages")
    last = stages[-1] if isinstance(stages, list) and stages else None
    return last if isinstance(last, dict) else {}


def _moved(stage: dict, side: str) -> set:
    """The dice a reroll or cipher stage of this side drew or flipped."""
    if stage.get("do") not in ("reroll", "cipher") or stage.get("side", "initiator") != side:
        return set()
    return {i for i in stage.get("dice") or () if isinstance(i, int)}


def _open(result: dict) -> bool:
    """May either side still change the dice (the outcome is "so far")?"""
    return bool(result.get("turn")) or any(v in verbs(result) for v in ("reroll", "cipher", "natural"))


def in_progress(result: dict) -> bool:
    """The turn goes on (the history reads "so far"): ``tab.in_progress``."""
    return _open(result)


def banner(result: dict) -> str:
    """The outcome line, in the one wording of each outcome ("success at a
    cost"); "So far" while the roller may still change the dice (a botch
    then reads "So far: a botch", and why: no shoresh letter yet).

    >>> banner({"outcome": "botch", "allowed": [{"do": "reroll"}], "wilds": 1})
    '<p class="outcome outcome-band-0" data-outcome="botch"><strong class="outcome-name">So far: a botch</strong> no shoresh letter yet, 1 wild</p>'
    """
    outcome = str(result.get("outcome", ""))
    name = E.OUTCOME_WORDS.get(outcome, outcome)
    if _open(result):
        name = "so far: a botch" if outcome == "botch" else "so far: " + name
    return views.outcome_banner(SYSTEM, outcome, _headline(result), name[:1].upper() + name[1:])


def _headline(result: dict) -> str:
    if result.get("outcome") == "botch":
        return _botch_headline(result)
    opp = result.get("opponent")
    if isinstance(opp, dict):
        text = f"{result.get('total')} against the opponent's {opp.get('successes')}"
    else:
        text = f"{result.get('total')} of {result.get('needed')} needed"
    return text + _bonus_words(result)


def _bonus_words(result: dict) -> str:
    """A success bonus (a natural's): " (3 on the dice + 2)"."""
    bonus = result.get("bonus") or 0
    return f" ({result.get('value')} on the dice + {bonus})" if bonus else ""


def _botch_headline(result: dict) -> str:
    w = result.get("wilds") or 0
    if _open(result):
        return "no shoresh letter yet" + (f", {E.plural(w, 'wild')}" if w else "")
    words = f"no shoresh letter, {E.plural(w, 'wild')}" if w else "no shoresh letter"
    return f"{words}: {E.grade(w)}"


def _button(act: str, label: str, cls: str = "", disabled: bool = False) -> str:
    return (f'<button type="button" data-act="{views.esc(act)}" class="m-act{" " + cls if cls else ""}"'
            f'{" disabled" if disabled else ""}>{views.esc(label)}</button>')


def _keeps(result: dict, ui: dict, side: str) -> bool:
    """Does best play keep the roll, and has the player not overridden it?"""
    return advice(result, side) == [] and not overridden(result, ui, side)


def dice_words(dice: list) -> str:
    """"die 3", "dice 1, 3 and 4" (counted from 1).

    >>> dice_words([0, 2, 3]), dice_words([4])
    ('dice 1, 3 and 4', 'die 5')
    """
    n = [str(i + 1) for i in dice]
    return f"die {n[0]}" if len(n) == 1 else "dice " + ", ".join(n[:-1]) + " and " + n[-1] if n else "no die"


_WHOSE = {"initiator": ("", ""), "opponent": (":opponent", "Opponent: ")}


def _cipher_button(result: dict, ui: dict, side: str) -> str:
    """Flip the tapped dice (only once some are tapped, within the flips left)."""
    n, left = len(tapped(result, ui, side)), _side_of(result, side).get("ciphers_left", 0)
    who, whose = _WHOSE[side]
    return _button(f"cipher{who}", f"{whose}Cipher: flip {n} tapped ({left} left)", "m-cipher", n > left)


def _plain_side(result: dict, ui: dict, side: str) -> list:
    """A side's step buttons before best play's choices have come (no
    advice to contradict): Reroll (with no die tapped it takes best play's
    dice, worked out at once), Cipher on tapped dice, Stand."""
    allowed = verbs(result, side)
    who, whose = _WHOSE[side]
    out = [_reroll_button(result, ui, side)] if "reroll" in allowed else []
    if "cipher" in allowed and tapped(result, ui, side):
        out.append(_cipher_button(result, ui, side))
    return out + ([_button(f"stand{who}", _STAND_WORDS[side], "m-stand")] if "stand" in allowed else [])


def _reroll_button(result: dict, ui: dict, side: str) -> str:
    """Reroll: best play's dice until the player taps, then their own
    choice, named (disabled when every die is frozen)."""
    who, whose = _WHOSE[side]
    mine = overridden(result, ui, side)
    words = f"Reroll {dice_words(own_choice(result, ui, side))} (your choice)" if mine else "Reroll"
    return _button(f"reroll{who}", whose + words, "m-reroll", mine and not own_choice(result, ui, side))


_STAND_WORDS = {"initiator": "Stand: end my turn (the opponent reacts)",
                "opponent": "Opponent: stand (keep their dice)"}


def _natural_buttons(result: dict) -> list:
    if "natural" not in verbs(result):
        return []
    if isinstance(result.get("opponent"), dict):
        return [_button("natural:uncounterable",
                        f"Natural: take +{M.UNCOUNTERABLE_BONUS}, cannot be countered (ends your turn)"),
                _button("natural:critical", "Natural: let them react, critical if they get 0 (ends your turn)")]
    n = len(str((result.get("spec") or {}).get("shoresh") or "אשר"))
    return [_button("natural:successes", f"Natural: take +{n} successes (ends your turn)"),
            _button("natural:merit", "Natural: take a Merit Point instead (ends your turn)")]


def _buttons(result: dict, ui: dict) -> str:
    """The step buttons while best play's choices have not come (or a
    result without them): one plain button per step the rules allow."""
    if _has_choices(result):
        return ""
    hit = "hit_location" in verbs(result)
    buttons = (_plain_side(result, ui, "initiator") + _natural_buttons(result)
               + ([_button("hit_location", "Roll hit location", "m-hit")] if hit else [])
               + (_plain_side(result, ui, "opponent") if isinstance(result.get("opponent"), dict) else []))
    return f'<div class="m-actions">{"".join(buttons)}</div>' if buttons else ""


# --------------------------------------------------------------------------
# The decision on one screen (``result["choices"]``, priced by the rules):
# best play's choice the main button, the why, every other choice beside it.

def _has_choices(result: dict) -> bool:
    """Has best play's decision come (``advice`` and its ``choices``)? It
    then stands in for every step button."""
    choices = result.get("choices")
    return isinstance(choices, list) and bool(choices) and result.get("advice") is not None


def tray_prices(result, ui: dict) -> bool:
    """Does the tray show an odds answer (the player's own reroll, priced
    once dice are tapped)? Then the page draws it again when odds come.

    >>> tray_prices(None, {}), tray_prices({"advice": None, "choices": []}, {"selected": ["0"]})
    (False, False)
    """
    return (isinstance(result, dict) and _has_choices(result)
            and any(overridden(result, ui or {}, s) for s in ("initiator", "opponent")))


def _own_odds(ui: dict, side: str) -> dict:
    """The odds answer on show for a side's own choice, if any has come."""
    return ((ui or {}).get("odds") or {}).get("choice" if side == "initiator" else "opponent_choice") or {}


def _own_price(ui: dict, side: str, dice: list) -> str:
    """" · meets 40.0 %" once the odds of the player's own reroll (the
    tab's ``choice`` question) have come for these very dice."""
    got = _own_odds(ui, side)
    if got.get("dice") != dice or "meets" not in got:
        return ""
    return (" · initiator meets " if side == "opponent" else " · meets ") + views.pct(got["meets"])


def own_part(result: dict, ui: dict, side: str) -> str:
    """The player's own choice beside best play's: tap dice to freeze them,
    then reroll the rest (priced once the dice are picked and the odds
    come) or flip the tapped ones with a cipher."""
    allowed = verbs(result, side)
    if not ({"reroll", "cipher"} & set(allowed)):
        return ""
    if not overridden(result, ui, side):
        return _own_hint(allowed)
    out = [_own_reroll_button(result, ui, side)] if "reroll" in allowed else []
    if "cipher" in allowed:
        out.append(_cipher_button(result, ui, side))
    return f'<div class="m-own m-actions" data-own>{"".join(out)}</div>'


def _own_hint(allowed: list) -> str:
    """Before any tap: how to make one's own choice (a cipher too if allowed)."""
    what = "reroll the rest" + (" or flip them with a cipher" if "cipher" in allowed else "")
    return f'<p class="hint m-own" data-own>Your own choice: tap dice to freeze them, then {what}.</p>'


def _own_reroll_button(result: dict, ui: dict, side: str) -> str:
    """The player's own reroll of the unfrozen dice, priced once its odds come."""
    who, whose = _WHOSE[side]
    dice = own_choice(result, ui, side)
    return _button(f"reroll{who}", f"{whose}Your choice: reroll {dice_words(dice)}{_own_price(ui, side, dice)}",
                   "m-reroll", not dice)


def choice_figures(c: dict, reactor: bool = False) -> str:
    """A choice's odds in words: the initiator's chance to meet the bar,
    of a success, of a critical, of a botch, whether the reaction is void;
    for the reactor's choices, the initiator's chances they leave.

    >>> choice_figures({"meets": 0.5, "success": 0.25, "critical": 0.0, "botch": 0.125})
    'meets 50.0 % · success 25.0 % · botch 12.5 %'
    >>> choice_figures({"meets": 1, "success": 1, "critical": 0.75, "botch": 0}, reactor=True)
    'initiator meets 100 % · critical 75.0 %'
    """
    pct = views.pct
    parts = [("initiator meets " if reactor else "meets ") + pct(c.get("meets"))]
    if c.get("success") != c.get("meets"):
        parts.append("success " + pct(c.get("success")))
    if c.get("critical"):
        parts.append("critical " + pct(c.get("critical")))
    if c.get("void_reaction") == 1:
        parts.append("no reaction")
    if c.get("botch"):
        parts.append("botch " + pct(c.get("botch")))
    if c.get("sampled"):
        parts.append(f"sampled, ±{pct(c.get('margin'))}")
    return " · ".join(parts)


def choices_html(result: dict, ui: dict | None = None) -> str:
    """The decision at hand on one screen: best play's choice as the main
    button, why, every other choice beside it with its odds when played
    best afterwards (the rules' labels and marks), and the player's own
    choice (``own_part``)."""
    if not _has_choices(result):
        return ""
    reactor = (result.get("advice") or {}).get("side") == "opponent"
    title = ("The opponent's choice · the roller's chances it leaves" if reactor
             else "Your choice · odds played best afterwards")
    extra = _own_extra(result, ui or {}, reactor)
    return views.choices_html(result, None, lambda c: choice_figures(c, reactor), title, extra=extra)


def _own_extra(result: dict, ui: dict, reactor: bool) -> str:
    """The own choice of the side choosing now (none on a shared result)."""
    return "" if ui.get("readonly") else own_part(result, ui, "opponent" if reactor else "initiator")


def readonly_note(result: dict) -> str:
    """A read-only result shared mid-turn (docs/RULES-DECISIONS.md, The page): whose turn it
    was and what they could still do, since nobody can do it here.

    >>> print(readonly_note({"turn": "opponent", "allowed": [{"do": "reroll", "side": "opponent"},
    ...                                                      {"do": "stand", "side": "opponent"}]}))
    <p class="hint m-readonly">Shared mid-turn: it was the opponent's turn (they could still reroll or stand). Nothing can be changed here.</p>
    >>> readonly_note({"turn": None, "allowed": []})
    ''
    """
    whose = result.get("turn")
    if whose not in ("initiator", "opponent"):
        return ""
    could = _could_still(result, whose)
    who = "the roller's turn" if whose == "initiator" else "the opponent's turn"
    return (f'<p class="hint m-readonly">Shared mid-turn: it was {who}'
            f'{f" (they could still {could})" if could else ""}. Nothing can be changed here.</p>')


def _could_still(result: dict, whose: str) -> str:
    """The steps left to the side whose turn it was, in words ("reroll or stand")."""
    open_verbs = [v for v in verbs(result, whose) if v not in ("hit_location", "accept")]
    return " or ".join(v.replace("natural", "choose the natural's reward") for v in open_verbs)


def _live(result: dict, side: str) -> bool:
    return any(v in verbs(result, side) for v in ("reroll", "cipher"))


def _keys(side: str, n: int) -> list[str]:
    """The tap keys of a side's ``n`` dice ("0".. yours, "opponent:0".. theirs)."""
    return [f"{_prefix(side)}{i}" for i in range(n)]


def _tray_of(result: dict, ui: dict, side: str, caption: str, size: int) -> str:
    s = _side_of(result, side)
    dice = s.get("dice") or []
    live = _live(result, side) and not ui.get("readonly")
    keys = _keys(side, len(dice)) if live else None
    return dice_row(dice, keys=keys, selected=[str(k) for k in ui.get("selected") or ()], size=size,
                    will=_will(result, ui, side), fresh=fresh_dice(result, ui, side),
                    caption=caption + " · tap dice to freeze them" * live)


def _will(result: dict, ui: dict, side: str) -> set:
    """The dice marked ↻: those the next Reroll takes (none when best play
    keeps the roll and the player has not tapped)."""
    if "reroll" not in verbs(result, side) or _keeps(result, ui, side) \
            or ui.get("readonly"):
        return set()
    return set(reroll_targets(result, ui, side))


def _trays(result: dict, ui: dict) -> str:
    spec = result.get("spec") or {}
    out = _tray_of(result, ui, "initiator",
                   f"Your dice · shoresh {M.written(spec.get('shoresh', ''))} · X = {result.get('x')}", 64)
    opp = result.get("opponent")
    if isinstance(opp, dict):
        out += _tray_of(result, ui, "opponent", _opponent_caption(opp), 52)
    return out


def _opponent_caption(opp: dict) -> str:
    """The opponent's tray: their shoresh and successes (their wilds do not count)."""
    n = opp.get("successes")
    return (f"Opponent's dice · shoresh {M.written(opp.get('shoresh', ''))} · "
            f"{E.plural(n, 'success') if isinstance(n, int) else n} (wilds don't count when reacting)")


def legend_html(result: dict, taps: bool = True) -> str:
    """What the marks under the dice mean while the dice may still change
    (``taps``: on this page), and the badges a reroll left (rerolled, left
    as it lay) whenever a die shows one."""
    live = taps and (_live(result, "initiator") or _live(result, "opponent"))
    marks = _marks(result, live)
    if not marks:
        return ""
    items = _marks_items(marks)
    how = ("↻ marks best play's reroll until you tap; tapped dice stay frozen and your own reroll takes the "
           "unfrozen ones, at most X, those without a success first. A cipher flips the tapped dice to "
           "their opposite faces.")
    hint = f'<p class="hint m-hint">{views.esc(how)}</p>' if live else ""
    return f'<div class="m-legend"><ul class="m-marks" aria-label="Marks on the dice">{items}</ul>{hint}</div>'


def _marks_items(marks: list) -> str:
    """Each mark and its meaning, as list items."""
    return "".join(f'<li><b class="m-mark" aria-hidden="true">{views.esc(m)}</b> {views.esc(t)}</li>'
                   for m, t in marks)


def _marks(result: dict, live: bool) -> list:
    """The (mark, meaning) pairs to explain: the marks while the dice may
    change ("wild ✗" only when a die shows one), then each badge a die shows."""
    marks = [(m, t) for m, t in MARKS if m != "wild ✗" or _uncounted_wild(result)] if live else []
    return marks + [(m, t) for m, role, t in BADGES if _shows_role(result, role)]


def _shows_role(result: dict, role: str) -> bool:
    """Does a die of either side show this role's badge (``draw``)?

    >>> _shows_role({"dice": [{"role": "frozen"}], "opponent": {"dice": [{"role": "rerolled"}]}}, "rerolled")
    True
    """
    return any(isinstance(d, dict) and d.get("role") == role for d in _both_sides_dice(result))


def _both_sides_dice(result: dict) -> list:
    """The dice on the table: the roller's, then the opponent's."""
    return list(result.get("dice") or []) + list((result.get("opponent") or {}).get("dice") or [])


def _uncounted_wild(result: dict) -> bool:
    """Does a die on the table show "wild ✗" (a reacting side's wild)? Only
    then does the legend explain it: an acting side's wilds count.

    >>> _uncounted_wild({"dice": [{"wild": True, "success": True}]}), _uncounted_wild({"dice": [{"wild": True}]})
    (False, True)
    """
    return any(isinstance(d, dict) and d.get("wild") and not d.get("success") for d in _both_sides_dice(result))


def _roots_words(found: list) -> str:
    """Each root as written and its gloss: "שלם (be whole, at peace)"."""
    return ", ".join(f"{M.written(x.get('root', ''))} ({x.get('gloss', '')})" for x in found)


def spelled_html(result: dict) -> str:
    """"The dice also spell: שלם (be whole, at peace), …" (the common roots
    in the final dice, most used first; Milhamah RPG, Critical failure, lets the Narrator allude
    to them)."""
    found = [x for x in result.get("also_spell") or () if isinstance(x, dict)]
    if not found:
        return ""
    words = _roots_words(found)
    more = max(0, int(result.get("also_spell_count") or 0) - len(found))
    return f'<p class="m-spell">The dice also spell: {he(words)}{f", and {more} more" * bool(more)}.</p>'


def render_result(result: dict, ui: dict) -> str:
    """The tray: outcome, your dice (tappable while a step may use them),
    the opponent's, the step buttons the rules allow now, the legend of
    the marks, the hit location, what else the dice spell, and the
    explanation."""
    ui = ui or {}
    if ui.get("readonly"):  # a shared or verified result: no step, no marks, whose turn it was
        parts = [banner(result), readonly_note(result), _trays(result, ui), legend_html(result, taps=False)]
    else:
        hit = "hit_location" in verbs(result)
        parts = [banner(result), _trays(result, ui), _buttons(result, ui), choices_html(result, ui), _HIT_HINT * hit,
                 legend_html(result)]
    parts += [_hit_html(result["hit"]) if isinstance(result.get("hit"), dict) else "", counter_html(result),
              spelled_html(result), explain_html(result.get("explain"))]
    return "".join(parts)


_HIT_HINT = ('<p class="hint">Critical success: enter the target\'s armour at the location, VIG soak '
             "and free wound boxes in the Opponent fields, then roll the hit location letter.</p>")


def counter_html(result: dict) -> str:
    """A failed initiator's final dice offered to the opponent, with their
    shorashim found in them (RULES-NOTES Milhamah 7)."""
    if not result.get("counter"):
        return ""
    return ('<p class="m-counter">The opponent may counter with '
            + he(", ".join(M.written(c) for c in result["counter"])) + " (in your final dice).</p>")


def _hit_html(hit: dict) -> str:
    """The hit location letter drawn large (a die of 128 px, the letter as
    big as a tray die's face), its place and where the margin went."""
    die = draw.die_svg(hit.get("die") or {"face": hit.get("letter"), "faces": list(M.LETTERS)},
                       size=128, colour="white", label=f"Hit location letter {hit.get('letter')}")
    return (f'<div class="m-hitbox">{die}<p><strong class="m-hitplace">{views.esc(hit.get("location"))}</strong> '
            f'({he(hit.get("letter"))}) · margin {views.esc(hit.get("margin"))}: '
            f'{views.esc(hit.get("armour"))} to armour, {views.esc(hit.get("vig"))} to VIG soak, '
            f'{_wounds_text(hit)}.</p></div>')


def _wounds_text(hit: dict) -> str:
    w = hit.get("wounds") or {}
    text = views.esc(", ".join(f"{n} {k}" for k, n in w.items() if n) or "no wounds")
    if hit.get("beyond"):
        text += (f', {views.esc(hit.get("beyond"))} beyond the wound track (the Narrator may kill the '
                 'character or destroy the body part)')
    return text


# --------------------------------------------------------------------------
# Odds.

def _pair_title(pair) -> str:
    return " + ".join(COLOUR_TITLES.get(c, c).lower() for c in pair)


def _step_questions(result: dict, ui: dict, side: str) -> dict:
    """Best play for the side whose turn it is, and, once the player has
    tapped dice, their own choice (each asked of the roll's spec)."""
    if "reroll" not in verbs(result, side):
        return {}
    name, best = _BEST_QUESTION[side]
    out = {f"{name}best": _asked(result, best)}
    if overridden(result, ui, side):
        out[f"{name}choice"] = _asked(result, _dice_action("reroll", side, reroll_targets(result, ui, side)))
    return out


#: Per side: the answers' name prefix and the action that asks for best play.
_BEST_QUESTION = {"initiator": ("", None), "opponent": ("opponent_", {"do": "best", "side": "opponent"})}


def _asked(result: dict, action: dict | None) -> dict:
    """A question about a step, asked of the spec the roll was made with."""
    return {"spec": result.get("spec") or {}, **tab.after(result, action)}


def questions(spec: dict, result, ui: dict) -> dict:
    """After a roll that may still be rerolled: best play, and the
    player's own choice once they tap (the opponent's likewise on their
    turn); otherwise the roll in the form. Answers are rendered by
    ``render_odds``."""
    out: dict = {}
    if isinstance(result, dict):
        out.update(_step_questions(result, ui or {}, "initiator"))
        if isinstance(result.get("opponent"), dict):
            out.update(_step_questions(result, ui or {}, "opponent"))
    return out or {"roll": tab.before()}


def _faces_of(result: dict, side: str, dice: list) -> str:
    faces = _side_of(result, side).get("dice") or []
    shown = [str(faces[i].get("face")).replace(M.WILD, "★") for i in dice if 0 <= i < len(faces)]
    return ", ".join(f'<bdi lang="he">{views.esc(f)}</bdi>' for f in shown) or "nothing"


def _n_dice(n: int) -> str:
    return f"{n} {'die' if n == 1 else 'dice'}"


def _odds_line(kind: str, o: dict, what: str) -> str:
    return (f'<p class="m-odds-line" data-odds="{kind}"><strong>{views.esc(views.pct(o["meets"]))}</strong> '
            f'to meet {views.esc(what)} · natural {views.esc(views.pct(o.get("natural", 0)))} · '
            f'botch {views.esc(views.pct(o["outcome"].get("botch", 0)))}')


def _why(o: dict) -> str:
    why = o.get("why")
    return f'<br><span class="hint m-why">Why these dice: {he(why)}</span>' if why else ""


def _initiator_odds(answers: dict, result: dict) -> list:
    best, choice = answers.get("best"), answers.get("choice")
    shown = choice or best
    if not shown:
        return []
    out = _shown_odds(shown, bool(choice), result)
    if choice and best:
        out.append(_compare_line(choice, best, result, "initiator"))
    return out + [_outcome_table(shown["outcome"])]


def _meet_what(result: dict) -> str:
    """What a reroll must meet: the opponent as their dice lie, or the successes needed."""
    return "the opponent as the dice lie" if (result.get("spec") or {}).get("opponent") else f"{result.get('needed')}"


def _shown_odds(o: dict, mine: bool, result: dict) -> list:
    """The title and line of the reroll the page would make now: the
    player's choice (``mine``) or best play's."""
    what = _meet_what(result)
    now = E.OUTCOME_WORDS.get(o.get("now"), o.get("now"))
    doing = f"rerolling {_faces_of(result, 'initiator', o['dice'])}" if o["dice"] else "keeping the roll"
    title = f"If you reroll {_n_dice(len(o['dice']))} now" if o["dice"] else "Best play now: keep the roll"
    whose = "Your choice" if mine else "Best play (↻)"
    return [f'<h3 class="odds-title">{views.esc(title)}</h3>',
            _odds_line("reroll", o, what) + f' (now: {views.esc(now)})<br><span class="hint">'
            f'{views.esc(whose)}: {doing}; tap dice to freeze them.</span>' + ("" if mine else _why(o)) + "</p>"]


def _compare_line(choice: dict, best: dict, result: dict, side: str) -> str:
    keep = "keep the roll" if not best["dice"] else f"reroll {_faces_of(result, side, best['dice'])}"
    return (f'<p class="m-odds-line m-compare" data-odds="best">Your choice: '
            f'<strong>{views.esc(views.pct(choice["meets"]))}</strong>, best: '
            f'<strong>{views.esc(views.pct(best["meets"]))}</strong> (best play: {keep}){_why(best)}</p>')


def _opponent_odds(answers: dict, result: dict) -> list:
    best, choice = answers.get("opponent_best"), answers.get("opponent_choice")
    shown = choice or best
    if not shown:
        return []
    who = "your choice for them" if choice else "their best play"
    out = [f'<p class="m-odds-line" data-odds="opponent">If the opponent rerolls {_n_dice(len(shown["dice"]))} '
           f'({views.esc(who)}): you still meet them <strong>{views.esc(views.pct(shown["meets"]))}</strong> '
           "(your dice as they lie).</p>"]
    return out + ([_their_best_line(best)] if choice and best else [])


def _their_best_line(best: dict) -> str:
    """Beside the player's choice for the opponent: what their best play leaves, and why."""
    return (f'<p class="m-odds-line" data-odds="opponent_best">Their best play leaves you '
            f'<strong>{views.esc(views.pct(best["meets"]))}</strong>.{_why(best)}</p>')


def _errors(answers: dict) -> str:
    bad = [o["error"] for o in answers.values() if "error" in o]
    return views.error_html(bad[0]) if bad and len(bad) == len(answers) else ""


def render_odds(spec: dict, answers: dict, result) -> str:
    """Before a roll: P(meeting the difficulty) after the first roll and
    after the rerolls as best play takes them, P(natural), P(botch), the
    successes chart and the three colour pairs ranked. After a roll: the
    odds of the reroll the advice or the player's taps make, beside best
    play's ("your choice: 12 %, best: 31 %") and why those dice."""
    error = _errors(answers)
    if error:
        return error
    answers = {k: o for k, o in answers.items() if "error" not in o}
    if not isinstance(result, dict):
        return _before_odds(spec, answers.get("roll") or {})
    return _step_odds(spec, answers, result)


def _step_odds(spec: dict, answers: dict, result: dict) -> str:
    """After a roll: the odds of each side's reroll; with none left, the
    next roll's in the form, said so."""
    steps = _initiator_odds(answers, result) + _opponent_odds(answers, result)
    return "".join(steps) or (_NO_REROLL + _before_odds(spec, answers.get("roll") or {}))


_NO_REROLL = '<p class="hint">No reroll left for this roll. The odds below are for the next roll in the form.</p>'


def _before_odds(spec: dict, o: dict) -> str:
    if not o:
        return ""
    rounds = spec.get("rounds", 1)
    bar, after = _bar(spec), _after_words(rounds)
    out = ['<h3 class="odds-title">Odds of the roll in the form</h3>',
           f'<p class="m-odds-line" data-odds="before">Meet {views.esc(bar)}: '
           f'<strong>{views.esc(views.pct(o["meets_first"]))}</strong> on the first roll, '
           f'<strong>{views.esc(views.pct(o["meets_final"]))}</strong> {views.esc(after)}, rerolling as best '
           f'play does. Natural shoresh {views.esc(views.pct(o["natural_first"]))} first roll / '
           f'{views.esc(views.pct(o["natural"]))} final. Botch {views.esc(views.pct(o["botch"]))}.</p>']
    if o.get("note"):
        out.append(f'<p class="hint">{views.esc(o["note"])}.</p>')
    out.append(_pairs_html(spec, o.get("colours") or []))
    out.append(_successes_chart(spec, o, rounds))
    out.append(_outcome_table(o["outcome"]))
    return "".join(out)


def _successes_chart(spec: dict, o: dict, rounds: int) -> str:
    """The final dice's successes, those that meet the difficulty marked
    (every bar against an opponent)."""
    needed_now = M.effective_difficulty(spec)[0]
    return views.bar_chart(o["value"], title="Successes on the final dice " + ("(best play)" if rounds else "(no reroll)"),
                           highlight=(lambda v: spec.get("opponent") is not None or int(v) >= needed_now))


def _bar(spec: dict) -> str:
    if spec.get("opponent"):
        return "the opponent"
    needed, adj = M.effective_difficulty(spec)
    return f"{needed} successes" + (f" ({adj:+d} combat)" if adj else "")


def _after_words(rounds: int) -> str:
    if not rounds:
        return "(no reroll)"
    return "after the reroll" if rounds == 1 else f"after {rounds} reroll rounds"


def _pair_row(r: dict, best: bool) -> str:
    return (f'<tr{BEST * best}><th scope="row">{views.esc(_pair_title(r["pair"]))}</th>'
            f'<td>{views.esc(views.pct(r["meets"]))}</td><td>{views.esc(views.pct(r["natural"]))}</td>'
            f'<td>{views.esc(views.pct(r["botch"]))}</td></tr>')


def _best_pairs_words(tied: list) -> str:
    """The pair with the best chance, or the pairs tied for it."""
    return " and ".join(_pair_title(r["pair"]) for r in tied).capitalize() + (
        " tie for the best chance" if len(tied) > 1 else " gives the best chance")


def _pairs_html(spec: dict, cols: list) -> str:
    if not cols:
        return ""
    tied = [r for r in cols if abs(r["meets"] - cols[0]["meets"]) < 5e-4]
    rows = "".join(_pair_row(r, r in tied) for r in cols)
    lead = _best_pairs_words(tied)
    return (f'<p class="m-best-line">{views.esc(lead)} for {he(M.written(spec.get("shoresh")))}.</p>'
            + views.scroll_box("Chances by colour pair")
            + '<table class="m-pairs"><thead><tr><th>Colours</th><th>Meet</th>'
            f"<th>Natural</th><th>Botch</th></tr></thead><tbody>{rows}</tbody></table></div>")


def _outcome_table(outcome: dict) -> str:
    cells = "".join(f"<tr><th scope=\"row\">{views.esc(E.OUTCOME_WORDS[k].capitalize())}</th>"
                    f"<td>{views.esc(views.pct(outcome.get(k, 0)))}</td></tr>"
                    for k in reversed(M.OUTCOMES) if outcome.get(k, 0) > 0)
    return views.scroll_box("Chance of each outcome") + f'<table class="m-outcomes"><tbody>{cells}</tbody></table></div>'


# --------------------------------------------------------------------------
# Reference and history.

def fields_after(result: dict, fields: dict) -> None:
    """A roll changes nothing on this form."""
    return None


def _face_html(colour: str, faces: list, i: int) -> str:
    f = faces[i]
    svg = draw.die_svg({"faces": faces, "face": f, "colour": colour}, size=36,
                       label=f"face {i + 1}: {'wild' if f == M.WILD else f}")
    return f'<span class="m-face">{svg}<span class="m-face-n" aria-hidden="true">{i + 1}</span></span>'


def _design_html(c: dict, name: str, faces: list) -> str:
    # face i above face SIDES + 1 - i: each column is an opposite pair
    n = M.SIDES
    cols = "".join(f'<span class="m-opp" role="group" aria-label="opposite faces {i + 1} and {n - i}">'
                   f"{_face_html(c['colour'], faces, i)}{_face_html(c['colour'], faces, n - 1 - i)}</span>"
                   for i in range(n // 2))
    return (f'<div class="m-design"><p class="m-design-title">Design {views.esc(name)} '
            f'({c["dice"].count(name)} of the {M.DICE_PER_COLOUR} {views.esc(c["colour"])} dice): each column is a pair of '
            f'opposite faces</p><div class="m-faces">{cols}</div></div>')


def _colour_block(c: dict) -> str:
    """One colour's cipher pairs and its two die designs."""
    chips = "".join(
        f'<span class="m-chip"><bdi lang="he">{views.esc(a.replace(M.WILD, "★"))}</bdi> ⇄ '
        f'<bdi lang="he">{views.esc(b.replace(M.WILD, "★"))}</bdi></span>' for a, b in c["pairs"])
    designs = "".join(_design_html(c, name, faces) for name, faces in c["designs"].items())
    return (f'<section class="m-colour m-{views.esc(c["colour"])}">'
            f'<h4>{views.esc(COLOUR_TITLES[c["colour"]])}: {views.esc(c["cipher"])} cipher pairs</h4>'
            f'<p class="m-chips">{chips}</p><div class="m-designs">{designs}</div></section>')


def render_reference() -> str:
    """The faces view (each colour's twelve faces per design and its cipher
    pairs, RULES-NOTES Milhamah 2), the difficulty table, the hit location
    table and the rules as the page plays them."""
    blocks = [_colour_block(c) for c in M.faces_table()]
    diff = "".join(f"<tr><td>{views.esc(M.DIFFICULTY_TITLES[k])}</td><td>{n}{'+' * (k == 'miraculous')}</td></tr>"
                   for k, n in M.DIFFICULTIES.items())
    items = list(M.HIT_LOCATIONS.items())
    half = (len(items) + 1) // 2
    hits = "".join("<tr>" + "".join(f'<td lang="he">{views.esc(k)}</td><td>{views.esc(v)}</td>'
                                    for k, v in items[r::half]) + "</tr>" for r in range(half))
    return (
        "<summary>Milhamah reference: the letter dice, cipher pairs, difficulty, hit location</summary>"
        '<div class="m-ref">'
        '<p class="hint">The rules text does not give the faces. This layout is reconstructed from the '
        "game's public material: red is Atbash, green Akhbi, blue Albam, each "
        "letter's cipher partner on the opposite face, and a cipher flips a die to its opposite face "
        "(the text only says dice may not be swapped \"unless they announce that they are performing a "
        "cipher\"). The layout is data (rules/milhamah/dice.json) and can be replaced.</p>"
        + "".join(blocks)
        + '<div class="m-tables">' + views.scroll_box("Difficulty")
        + '<table><caption>Difficulty</caption><thead><tr>'
        f"<th>Difficulty</th><th>Successes</th></tr></thead><tbody>{diff}</tbody></table></div>"
        + views.scroll_box("Hit location (critical success)")
        + '<table><caption>Hit location (critical success)</caption><thead><tr>'
        f"<th>Letter</th><th>Location</th><th>Letter</th><th>Location</th></tr></thead><tbody>{hits}</tbody>"
        "</table></div></div>"
        '<ul class="m-rules">'
        f"<li>Roll {M.COLOURS_ROLLED * M.DICE_PER_COLOUR}D of two colours (status effects add or remove dice, "
        "or forbid a colour). Each die "
        "showing a letter of the shoresh is a success (a doubled letter counts once per die); wilds count "
        "when acting, not when reacting. Final forms fold to their base letters.</li>"
        "<li>Freeze any dice and reroll up to X of the others (X = attribute + skill ± modifiers); a status "
        "may add rounds or forbid rerolling. A cipher flips chosen dice to their opposite faces.</li>"
        "<li>More successes than needed: success; equal: success at a cost; fewer: failure; no shoresh "
        "letter at all: botch, worse for each wild.</li>"
        "<li>Natural shoresh (every letter, no wilds): a success bonus of one per letter or a Merit Point; "
        f"on the first roll +{M.FIRST_BONUS} more (lost if you reroll). Opposed: +{M.UNCOUNTERABLE_BONUS} and "
        "uncounterable, or let the "
        "opponent react for a critical if they get no success.</li>"
        "<li>Combat: difficulty −1 if the enemy is already fighting someone else or surprised, +1 for "
        "cover or if they just ambushed you.</li>"
        "</ul></div>")


def summary(result: dict) -> str:
    """One line for the roll history.

    >>> r = rules.roll("milhamah", {"shoresh": "אשר", "pool": ["red"], "difficulty": 1},
    ...                rules.ScriptedRng([1, 2, 3, 4]))
    >>> summary(r)
    'אשר: 1 of 1 needed → so far success at a cost'
    >>> summary(rules.act("milhamah", r["spec"], r, {"do": "reroll", "dice": [0]}, rules.ScriptedRng([1])))
    'אשר: 1 of 1 needed → success at a cost'
    """
    spec = result.get("spec") or {}
    sh = M.written(spec.get("shoresh", ""))
    hit = result.get("hit")
    return f"{sh}: {_summary_body(result)}" + (f", hit {hit.get('location')}" if isinstance(hit, dict) else "")


def _summary_body(result: dict) -> str:
    """'no letter, 1 wild → botch (a bad botch)', '3 vs 1 (חנן) → success',
    '2 of 3 needed → failure'."""
    outcome = OUTCOME_WORDS.get(result.get("outcome"), str(result.get("outcome")))
    if result.get("outcome") == "botch":
        return _botch_summary(result)
    return f"{_tally(result)} → {'so far ' * _open(result)}{outcome}"


def _botch_summary(result: dict) -> str:
    """A botch: "so far" while the turn goes on, else its wilds and grade."""
    w = result.get("wilds") or 0
    if _open(result):
        return "no letter yet → so far a botch"
    return f"no letter, {E.plural(w, 'wild')} → botch ({E.grade(w)})" if w else "no letter → botch"


def _tally(result: dict) -> str:
    """The successes against the opponent's (and their shoresh), or of those needed."""
    opp = result.get("opponent")
    if isinstance(opp, dict):
        return f"{result.get('total')} vs {opp.get('successes')} ({M.written(opp.get('shoresh', ''))})"
    return f"{result.get('total')} of {result.get('needed')} needed"
