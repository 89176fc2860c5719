"""The Jadeclaw tab: form fields to spec, result to HTML. Pure; no DOM.

The form (index.html, ``#form-jadeclaw``): ``kind`` radios (simple /
damage); the pool as notation in ``dice`` (die-size buttons append to it) or
a ``level``; ``include``, ``remove``, ``limit``; ``bonuses`` and
``penalties`` steppers; ``favored``; the opposition chosen by the
``against`` radios (``none``, ``difficulty``, ``dice`` = ``opponent``
notation, ``table`` = ``opponent_faces`` with optional ``opponent_sides``);
``quality`` / ``opponent_quality`` (a name or a skill level);
``double_botch_tie``; damage: ``soak``, ``slaying``, ``enervated``, and
``table_faces`` / ``table_sides`` for damage dice already on the table (a
spell's Difficulty Dice used as Effect Dice). CSS ``:has()`` shows the
controls of the chosen kind and opposition.

>>> spec = spec_from_form({"kind": ["simple"], "dice": ["d12 & d10"], "penalties": ["1"],
...                        "against": ["difficulty"], "difficulty": ["difficult"]})
>>> n = rules.normalize("jadeclaw", spec)
>>> n["dice"], n["penalties"], n["difficulty"]
([12, 10], 1, 'difficult')
"""

from __future__ import annotations

import re

import draw
import rules
import tab
import views
from rules import jadeclaw as jc
from rules.dice import SpecError, format_pool, parse_pool

SYSTEM = "jadeclaw"

#: Colours: the roller's dice, the opposition's, soak.
OWN, OPPOSED = None, "grey"

AGAINST = ("none", "difficulty", "dice", "table")


def _one(fields: dict, name: str, default: str = "") -> str:
    v = fields.get(name) or [default]
    return str(v[0]).strip()


def _int_field(fields: dict, name: str, lo: int, hi: int) -> int:
    text = _one(fields, name, "0") or "0"
    if not re.fullmatch(r"[+-]?\d{1,3}", text) or not lo <= int(text) <= hi:
        raise SpecError(name, f"must be a whole number from {lo} to {hi}")
    return int(text)


def _faces(fields: dict, name: str) -> list[int]:
    text = _one(fields, name)
    parts = [p for p in re.split(r"[\s,;&]+", text) if p]
    if not parts or not all(re.fullmatch(r"\d{1,2}", p) and 1 <= int(p) <= 12 for p in parts):
        raise SpecError(name, "write the faces showing, e.g. '7, 6, 2' (each 1 to 12)")
    if len(parts) > 40:
        raise SpecError(name, "at most 40 dice")
    return [int(p) for p in parts]


def _table(fields: dict, faces_name: str, sides_name: str) -> dict:
    faces = _faces(fields, faces_name)
    sides_text = _one(fields, sides_name)
    if not sides_text:
        return {"faces": faces}
    try:
        sides = parse_pool(sides_text, sides_name)
    except SpecError as e:
        raise SpecError(sides_name, e.detail) from None
    if len(sides) != len(faces):
        raise SpecError(sides_name, f"give one die size per face ({len(faces)}), or leave it blank")
    # faces are given in any order; match them to the sizes largest first
    fs = sorted(faces, reverse=True)
    if any(f > s for f, s in zip(fs, sides)):
        raise SpecError(sides_name, "these dice cannot show those faces")
    return {"faces": fs, "sides": sides}


def _sizes_text(fields: dict, name: str) -> str:
    """Notation from a text field; stray '&' left by the die buttons is fine."""
    return _one(fields, name)


# --------------------------------------------------------------------------
# Form <-> spec.

def spec_from_form(fields: dict) -> dict:
    """Every named control of ``#form-jadeclaw`` to a spec. Errors name the
    form control.

    >>> spec_from_form({"dice": [" & d12 & d8"], "bonuses": ["x"]})
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: bonuses: must be a whole number from 0 to 20
    >>> spec_from_form({"kind": ["damage"], "dice": ["d8, d6, d4"], "soak": ["d8 & d6"],
    ...                 "slaying": ["on"], "enervated": ["on"]})["damage_type"]
    'slaying_and_enervated'
    """
    kind = _one(fields, "kind", "simple") or "simple"
    if kind not in ("simple", "damage"):
        raise SpecError("kind", "choose a Simple Roll or a Damage Roll")
    spec: dict = {"kind": kind}
    table_dice = kind == "damage" and _one(fields, "table_faces")
    if table_dice:
        spec["dice"] = _table(fields, "table_faces", "table_sides")
    else:
        level = _one(fields, "level")
        if level:
            if not re.fullmatch(r"\d{1,2}", level) or int(level) > jc.MAX_LEVEL:
                raise SpecError("level", f"must be a whole number from 0 to {jc.MAX_LEVEL}, or blank to use the dice")
            spec["level"] = int(level)
        else:
            text = _sizes_text(fields, "dice")
            if not text.strip(" &,+"):
                raise SpecError("dice", "tap die sizes or write dice such as 'd12 & d8' (or give a level)")
            spec["dice"] = text
        include = _sizes_text(fields, "include")
        if include.strip(" &,+"):
            spec["include"] = include
        spec["remove"] = _int_field(fields, "remove", 0, 40)
        limit = _one(fields, "limit")
        if limit:
            spec["limit"] = limit
        spec["bonuses"] = _int_field(fields, "bonuses", 0, 20)
        spec["penalties"] = _int_field(fields, "penalties", 0, 20)
        spec["favored"] = bool(fields.get("favored"))
    if kind == "simple":
        against = _one(fields, "against", "none") or "none"
        if against not in AGAINST:
            raise SpecError("against", "choose what the roll is against")
        if against == "difficulty":
            spec["difficulty"] = _one(fields, "difficulty", "routine") or "routine"
        elif against == "dice":
            text = _sizes_text(fields, "opponent")
            if not text.strip(" &,+"):
                raise SpecError("opponent", "write the opposing dice, e.g. '2d10 & d4'")
            spec["opponent"] = text
        elif against == "table":
            spec["opponent"] = _table(fields, "opponent_faces", "opponent_sides")
        for name in ("quality", "opponent_quality"):
            q = _one(fields, name)
            if q:
                spec[name] = q
        if fields.get("double_botch_tie"):
            spec["double_botch"] = "tie"
    else:
        soak = _sizes_text(fields, "soak")
        if soak.strip(" &,+"):
            spec["soak"] = soak
        slaying, enervated = bool(fields.get("slaying")), bool(fields.get("enervated"))
        spec["damage_type"] = ("slaying_and_enervated" if slaying and enervated else
                               "slaying" if slaying else "enervated" if enervated else "normal")
    return spec


def _notation(value) -> str:
    return format_pool(value) if isinstance(value, list) and value else ""


def form_values(spec: dict) -> dict:
    """The inverse of ``spec_from_form`` (share links, saved rolls).

    >>> v = form_values({"dice": "d10 & d6", "opponent": {"faces": [7, 6, 2]}, "quality": 7})
    >>> v["dice"], v["against"], v["opponent_faces"], v["quality"]
    ('d10 & d6', 'table', '7, 6, 2', '7')
    """
    spec = rules.normalize(SYSTEM, spec)
    dice = spec["dice"]
    on_table = isinstance(dice, dict)
    out = {
        "kind": spec["kind"],
        "dice": "" if on_table or spec["level"] is not None else _notation(dice),
        "level": "" if spec["level"] is None else str(spec["level"]),
        "include": _notation(spec["include"]),
        "remove": str(spec["remove"]),
        "limit": "" if not spec["limit"] else str(spec["limit"]),
        "bonuses": str(spec["bonuses"]),
        "penalties": str(spec["penalties"]),
        "favored": spec["favored"],
        "table_faces": ", ".join(str(f) for f in dice["faces"]) if on_table else "",
        "table_sides": _notation(dice["sides"]) if on_table and dice.get("sides") else "",
        "quality": "" if spec["quality"] is None else str(spec["quality"]),
        "opponent_quality": "" if spec["opponent_quality"] is None else str(spec["opponent_quality"]),
        "double_botch_tie": spec["double_botch"] == "tie",
        "soak": _notation(spec["soak"]) if isinstance(spec["soak"], list) else "",
        "slaying": spec["damage_type"] in ("slaying", "slaying_and_enervated"),
        "enervated": spec["damage_type"] in ("enervated", "slaying_and_enervated"),
        "opponent": "", "opponent_faces": "", "opponent_sides": "",
    }
    if spec["difficulty"]:
        out["against"], out["difficulty"] = "difficulty", spec["difficulty"]
    elif isinstance(spec["opponent"], dict):
        out["against"] = "table"
        out["opponent_faces"] = ", ".join(str(f) for f in spec["opponent"]["faces"])
        out["opponent_sides"] = _notation(spec["opponent"].get("sides"))
    elif spec["opponent"]:
        out["against"], out["opponent"] = "dice", _notation(spec["opponent"])
    else:
        out["against"] = "none"
    return out


# --------------------------------------------------------------------------
# The combination-roll flow ("Combination Rolls").

def action_for(verb: str, result: dict, ui: dict, fields: dict) -> dict:
    """Jadeclaw has no step after a roll; the two combination flows fill the
    form instead: ``reuse`` (a Damage Roll's dice become the opposing Score
    of a Resolve Test) and ``effect`` (a roll's Difficulty Dice become Effect
    Dice against the target's Resistance).

    >>> r = rules.roll("jadeclaw", {"kind": "damage", "dice": "d8, d6, d4", "soak": "d8 & d6"},
    ...                rules.ScriptedRng([7, 6, 2, 8, 3]))
    >>> f = action_for("reuse", r, {}, {})["fill"]
    >>> f["kind"], f["against"], f["opponent_faces"], f["opponent_sides"]
    ('simple', 'table', '7, 6, 2', 'd8 & d6 & d4')
    """
    if not isinstance(result, dict):
        raise SpecError("_form", "roll first")
    if verb == "reuse" and result.get("kind") == "damage" and result.get("dice"):
        dice = sorted(result["dice"], key=lambda d: -d["face"])
        return {"fill": {
            "kind": "simple", "against": "table",
            "opponent_faces": ", ".join(str(d["face"]) for d in dice),
            "opponent_sides": format_pool([d["sides"] for d in dice]),
            "opponent": "", "level": "", "include": "", "remove": "0", "limit": "",
            "bonuses": "0", "penalties": "0", "favored": False, "quality": "", "opponent_quality": "",
        }}
    if verb == "effect" and result.get("kind") == "simple" and result.get("opponent"):
        dice = sorted(result["opponent"], key=lambda d: -d["face"])
        return {"fill": {
            "kind": "damage",
            "table_faces": ", ".join(str(d["face"]) for d in dice),
            "table_sides": format_pool([d["sides"] for d in dice]),
            "soak": "", "slaying": False, "enervated": False,
        }}
    raise SpecError("_form", "Jadeclaw allows no step after a roll")


# --------------------------------------------------------------------------
# The result.

def _sorted_dice(dice: list) -> list:
    return sorted(dice, key=lambda d: (-(d.get("face") or 0), -(d.get("sides") or 0)))


def _roll_figure(roll: dict, index: int, count: int, selected) -> str:
    dice = _sorted_dice(roll["dice"])
    keys = [f"r{index}.{i}" for i in range(len(dice))]
    kept = roll.get("kept")
    head = (f"Roll {index + 1} of {count}" if count > 1 else "Your dice") + f" · Score {roll['score']}"
    mark = ' <strong class="jc-kept-mark">kept (the worst)</strong>' if kept and count > 1 else ""
    cls = "jc-roll is-kept" if kept else "jc-roll"
    if count > 1 and not kept:
        cls += " is-dropped"
    rows = "".join(draw.die_svg(d, k, size=64, selected=k in selected) for d, k in zip(dice, keys))
    return (f'<figure class="{cls}" data-roll-index="{index}"{" data-kept" if kept else ""}>'
            f'<figcaption>{views.esc(head)}{mark}</figcaption><div class="dice">{rows}</div></figure>')


def _pair_column(pair: dict, index: int, selected) -> str:
    d, s = pair.get("damage"), pair.get("soak")
    parts = []
    if d is not None:
        k = f"p{index}.d"
        parts.append(draw.die_svg(d, k, size=64, selected=k in selected))
    else:
        parts.append('<span class="jc-empty" aria-hidden="true">–</span>')
    parts.append('<span class="jc-vs" aria-hidden="true">vs</span>')
    if s is not None:
        k = f"p{index}.s"
        label = "an imaginary 1 (the soak dice ran out)" if s.get("role") == "imaginary" else None
        parts.append(draw.die_svg(s, k, size=64, colour=OPPOSED if s.get("role") != "imaginary" else None,
                                  selected=k in selected, label=label))
    h = pair.get("hits", 0)
    words = "unused soak die" if d is None else f"{h} hit{'' if h == 1 else 's'}"
    return (f'<li class="jc-pair hits-{int(h)}" data-pair="{index}">{"".join(parts)}'
            f'<span class="jc-hits">{views.esc(words)}</span></li>')


def render_result(result: dict, ui: dict) -> str:
    """The outcome, the dice (sorted; Penalty rolls side by side with the
    kept one marked; damage pairs as matched columns with their hits), the
    explanation, and the combination-roll buttons."""
    selected = set(ui.get("selected") or ())
    out = []
    if result.get("kind") == "damage":
        head = f"{result['value']} hit{'' if result['value'] == 1 else 's'}"
        out.append(views.outcome_banner(SYSTEM, result["outcome"], head))
        pairs = result.get("pairs") or []
        if pairs:
            out.append('<div class="jc-pairs-wrap"><p class="jc-legend">Damage (top) against soak (below), '
                       'highest with highest:</p><ol class="jc-pairs">'
                       + "".join(_pair_column(p, i, selected) for i, p in enumerate(pairs)) + "</ol></div>")
        if result.get("soak_botch"):
            out.append('<p class="jc-note">The soak dice all show 1: one extra hit.</p>')
        if result.get("removed"):
            out.append(f'<p class="jc-note">Removed before rolling: {views.esc(format_pool(result["removed"]))}.</p>')
    else:
        opp = result.get("opponent_score")
        head = f"Score {result['value']}" + (f" vs {opp}" if opp is not None else "")
        out.append(views.outcome_banner(SYSTEM, result["outcome"], head))
        rolls = result.get("rolls") or []
        out.append('<div class="jc-rolls">' + "".join(
            _roll_figure(r, i, len(rolls), selected) for i, r in enumerate(rolls)) + "</div>")
        if result.get("opponent"):
            odice = _sorted_dice(result["opponent"])
            keys = [f"o.{i}" for i in range(len(odice))]
            label = result.get("opponent_label") or "Opposition"
            out.append('<figure class="jc-roll jc-opposition"><figcaption>'
                       + views.esc(f"{label} · Score {opp}") + '</figcaption><div class="dice">'
                       + "".join(draw.die_svg(d, k, size=64, colour=OPPOSED, selected=k in selected)
                                 for d, k in zip(odice, keys)) + "</div></figure>")
        if result.get("auto_success"):
            out.append('<p class="jc-hint">Rule of thumb: these dice are as many and as big as the '
                       'difficulty\'s — if the task is neither dire nor contested, it may simply succeed.</p>')
    out.append(views.explain_list(result.get("explain")))
    buttons = []
    if result.get("kind") == "damage" and result.get("dice"):
        buttons.append('<button type="button" data-act="reuse">Use these damage dice as the opposing '
                       'Score (Resolve Test)</button>')
    if result.get("kind") == "simple" and result.get("opponent"):
        buttons.append('<button type="button" data-act="effect">Use the opposing dice as Effect Dice '
                       '(Damage Roll)</button>')
    if buttons:
        out.append('<div class="jc-combo" role="group" aria-label="Combination rolls">' + "".join(buttons) + "</div>")
    return "".join(out)


# --------------------------------------------------------------------------
# Odds.

SIMPLE_ORDER = ("botch", "double_botch", "overwhelming_failure", "failure", "tie", "success",
                "overwhelming_success")


def _dice_preview(spec: dict) -> str:
    """The dice the roll will use, after Include / Remove / Limit / Bonuses
    (and a Damage Roll's Penalties), drawn before rolling."""
    if isinstance(spec["dice"], dict):
        faces = spec["dice"]["faces"]
        dice = [{"sides": s, "face": f, "role": "rolled"} for f, s in
                zip(faces, spec["dice"].get("sides") or [next(x for x in (4, 6, 8, 10, 12) if x >= f) for f in faces])]
        return draw.tray(dice, size=44, caption="Damage dice already on the table (modifiers do not apply)")
    pool, notes, info = jc.prepare(spec)
    dice = [{"sides": s, "face": f"d{s}", "role": "rolled"} for s in pool]
    cap = f"You roll {format_pool(pool)}" if pool else "No dice left to roll"
    if spec["kind"] == "simple" and info["penalties"]:
        cap += f" × {info['penalties'] + 1} rolls (worst kept)"
    if spec["favored"]:
        cap += ", Favored"
    html = draw.tray(dice, size=44, caption=cap) if pool else f'<p class="jc-preview-empty">{views.esc(cap)}</p>'
    if notes:
        html += '<ul class="jc-steps">' + "".join(f"<li>{views.esc(n)}</li>" for n in notes) + "</ul>"
    return f'<div class="jc-preview">{html}</div>'


def questions(spec: dict, result, ui: dict) -> dict:
    """The odds the panel shows: the roll in the form."""
    return {"roll": tab.before()}


def render_odds(spec: dict, answers: dict, result) -> str:
    """The resulting dice before rolling, then the odds: the six contest
    categories (and the double Botch), the Score distribution, the
    rule-of-thumb hint; or a Damage Roll's hits distribution."""
    parts = [_dice_preview(spec)]
    o = answers["roll"]
    if "error" in o:
        return parts[0] + views.error_html(o["error"])
    if spec["kind"] == "damage":
        note = "exact" if o["exact"] else (f"sampled: {o['samples']} rolls, ±{o['margin'] * 100:.1f} points "
                                           "(95 %)")
        parts.append(f'<p class="jc-odds-head">Chance of at least one hit: <strong>'
                     f'{views.esc(views.pct(o["outcome"]["hits"]))}</strong>; average '
                     f'{o["mean"]:.2f} hits ({views.esc(note)}).</p>')
        parts.append(views.bar_chart(o["value"], title="Hits"))
        return "".join(parts)
    if "double_botch" in o["outcome"] or "success" in o["outcome"]:
        rows = "".join(
            f'<tr data-outcome="{k}"><th scope="row">{views.esc(views.outcome_name(k))}</th>'
            f'<td>{views.esc(views.pct(o["outcome"].get(k, 0)))}</td></tr>'
            for k in SIMPLE_ORDER if k in o["outcome"] and (k != "double_botch" or o["outcome"][k] > 0))
        parts.append(f'<table class="jc-outcomes"><caption>Outcome against '
                     f'{views.esc(o.get("opponent_label") or "the opposition")}</caption>{rows}</table>')
    else:
        parts.append(f'<p class="jc-odds-head">Chance to Botch: <strong>'
                     f'{views.esc(views.pct(o["outcome"]["botch"]))}</strong></p>')
    parts.append(views.bar_chart(o["value"], title="Your Score"
                                 + (" (worst of %d rolls)" % o["rolls"] if o["rolls"] > 1 else "")))
    if o.get("auto_success"):
        parts.append('<p class="jc-hint" data-auto-success>Rule of thumb: these dice are as many and as big as '
                     'the difficulty\'s; if the task is neither dire nor contested, declare a Success without '
                     'rolling.</p>')
    return "".join(parts)


# --------------------------------------------------------------------------
# Reference.

def fields_after(result: dict, fields: dict) -> None:
    """A roll changes nothing on this form."""
    return None


def render_reference() -> str:
    """The levels-and-bonuses table computed from the rule (RULES-NOTES
    Jadeclaw 2) and the difficulty table, for ``#ref-jadeclaw``."""
    table = jc.levels_table()
    head = "".join(f"<th scope=\"col\">{views.esc(h)}</th>" for h in
                   ["Level", "Dice", "One Bonus", "Two Bonuses", "Three Bonuses", "Four Bonuses",
                    "Five Bonuses", "Six Bonuses"])
    body = "".join(
        f'<tr><th scope="row">{"none" if lv == 0 else lv}</th>'
        + "".join(f"<td>{views.esc(c)}</td>" for c in row) + "</tr>"
        for lv, row in enumerate(table))
    diff = "".join(f'<tr><th scope="row">{views.esc(jc._label_difficulty(k))}</th><td>{views.esc(format_pool(v))}</td></tr>'
                   for k, v in jc.DIFFICULTIES.items())
    return ('<summary>Levels and Bonuses, difficulties</summary>'
            '<p>Computed from the rule: level L is L size steps (d4 = 1 … d12 = 5); each Bonus gives each die '
            'one size increase, a d12 passes its increase on, a new d4 starts when all are d12.</p>'
            + views.scroll_box("Summary of Levels and Bonuses")
            + f'<table class="jc-levels"><caption>Summary of Levels and Bonuses'
            f'</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
            + views.scroll_box("Difficulty Dice")
            + '<table class="jc-difficulties"><caption>Difficulty Dice</caption>'
            f'<tbody>{diff}</tbody></table></div>')


def summary(result: dict) -> str:
    """One line for the roll history.

    >>> r = rules.roll("jadeclaw", {"dice": "d10 & d4", "difficulty": "routine"}, rules.ScriptedRng([7, 2, 3, 4]))
    >>> summary(r)
    'd10 & d4 vs Routine: Score 7 vs 4'
    """
    spec = result.get("spec") or {}
    dice = spec.get("dice")
    pool = result.get("pool")
    text = format_pool(pool) if pool else ("dice on the table" if isinstance(dice, dict) else "")
    if result.get("kind") == "damage":
        v = result.get("value", 0)
        return f"{text} damage: {v} hit{'' if v == 1 else 's'}"
    label = result.get("opponent_label")
    line = f"{text}{' vs ' + label if label else ''}: Score {result.get('value')}"
    if result.get("opponent_score") is not None:
        line += f" vs {result['opponent_score']}"
    return line
