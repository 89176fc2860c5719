"""The Jadeclaw tab: form fields to spec, result to HTML. Pure; no DOM.

The form (index.html, ``#form-jadeclaw``): ``kind`` radios (simple /
damage); the pool as notation in ``dice`` (die-size buttons append to it) or
a ``level``; ``include``, ``remove``, ``limit``; ``bonuses`` and
``penalties`` steppers; ``favored``; the opposition chosen by the
``against`` radios (``none``, ``difficulty``, ``dice`` = ``opponent``
notation, ``table`` = ``opponent_faces`` with optional ``opponent_sides``);
the opponent's modifiers ``opponent_bonuses``, ``opponent_penalties``,
``opponent_limit``, ``opponent_favored`` (for opposing dice or a
Difficulty); ``quality`` / ``opponent_quality`` (a name or a skill level);
``double_botch_tie``; damage: ``soak`` with its modifiers ``soak_bonuses``,
``soak_penalties``, ``soak_limit``, ``soak_favored``, ``slaying``,
``enervated``, and ``table_faces`` / ``table_sides`` for damage dice already
on the table (a spell's Difficulty Dice used as Effect Dice). The control
names are the spec keys where there is one. CSS ``:has()`` shows the
controls of the chosen kind and opposition.

>>> spec = spec_from_form({"kind": ["simple"], "dice": ["d12 & d10"], "penalties": ["1"],
...                        "against": ["difficulty"], "difficulty": ["difficult"]})
>>> n = rules.normalize("jadeclaw", spec)
>>> n["dice"], n["penalties"], n["difficulty"]
([12, 10], 1, 'difficult')
"""

from __future__ import annotations

import re

import rules
from drawing import draw, views
from rules.dice import SIZES, SpecError, format_pool, parse_pool
from rules.jadeclaw import explain as ex, model as jc
from tabs import tab

SYSTEM = "jadeclaw"

#: Colours: the roller's dice, the opposition's, soak.
OWN, OPPOSED = None, "grey"


#: The other side's modifier controls: ``<side>_bonuses`` and so on.
SIDE_MODS = ("bonuses", "penalties", "limit", "favored")


def _one(fields: dict, name: str, default: str = "") -> str:
    v = fields.get(name) or [default]
    return str(v[0]).strip()


def _int_field(fields: dict, name: str, lo: int, hi: int) -> int:
    text = _one(fields, name, "0") or "0"
    if not re.fullmatch(r"[+-]?\d{1,3}", text) or not lo <= int(text) <= hi:
        raise SpecError(name, f"must be a whole number from {lo} to {hi}")
    return int(text)


def _faces(fields: dict, name: str) -> list[int]:
    parts = [p for p in re.split(r"[\s,;&]+", _one(fields, name)) if p]
    if not parts or not all(map(_is_face, parts)):
        raise SpecError(name, "write the faces showing, e.g. '7, 6, 2' (each 1 to 12)")
    if len(parts) > 40:
        raise SpecError(name, "at most 40 dice")
    return [int(p) for p in parts]


def _is_face(text: str) -> bool:
    return bool(re.fullmatch(r"\d{1,2}", text)) and 1 <= int(text) <= 12


def _table(fields: dict, faces_name: str, sides_name: str) -> dict:
    """Dice already on the table: their faces, and their sizes if given
    (matched to the faces largest first)."""
    faces = _faces(fields, faces_name)
    sides_text = _one(fields, sides_name)
    if not sides_text:
        return {"faces": faces}
    sides = _table_sides(sides_text, sides_name, len(faces))
    # faces are given in any order; match them to the sizes largest first
    fs = sorted(faces, reverse=True)
    if any(f > s for f, s in zip(fs, sides)):
        raise SpecError(sides_name, "these dice cannot show those faces")
    return {"faces": fs, "sides": sides}


def _table_sides(text: str, name: str, n: int) -> list[int]:
    """The sizes of ``n`` dice on the table, one per face, errors at ``name``."""
    try:
        sides = parse_pool(text, name)
    except SpecError as e:
        raise SpecError(name, e.detail) from None
    if len(sides) != n:
        raise SpecError(name, f"give one die size per face ({n}), or leave it blank")
    return sides


def _notation_field(fields: dict, name: str) -> str | None:
    """Notation from a text field, or None when blank (a stray '&' left by
    the die buttons is blank too)."""
    text = _one(fields, name)
    return text if text.strip(" &,+") else None


# --------------------------------------------------------------------------
# Form <-> spec.

def _kind(fields: dict) -> str:
    """The kind of roll: a Simple Roll (how the form opens) or a Damage Roll."""
    kind = _one(fields, "kind", "simple") or "simple"
    if kind not in ("simple", "damage"):
        raise SpecError("kind", "choose a Simple Roll or a Damage Roll")
    return kind


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
    kind = _kind(fields)
    spec: dict = {"kind": kind}
    if kind == "damage" and _one(fields, "table_faces"):
        spec["dice"] = _table(fields, "table_faces", "table_sides")
    else:
        spec.update(_own_dice(fields))
        spec.update(_own_mods(fields))
    spec.update(_against(fields) if kind == "simple" else _soak(fields))
    return spec


def _level(text: str) -> int:
    """The Level control's number, 0 to ``jc.MAX_LEVEL``."""
    if not re.fullmatch(r"\d{1,2}", text) or int(text) > jc.MAX_LEVEL:
        raise SpecError("level", f"must be a whole number from 0 to {jc.MAX_LEVEL}, or blank to use the dice")
    return int(text)


def _own_dice(fields: dict) -> dict:
    """The roller's dice: a Level, or else the dice as written."""
    level = _one(fields, "level")
    if level:
        return {"level": _level(level)}
    dice = _notation_field(fields, "dice")
    if dice is None:
        raise SpecError("dice", "tap die sizes or write dice such as 'd12 & d8' (or give a level)")
    return {"dice": dice}


def _own_mods(fields: dict) -> dict:
    out: dict = {}
    include = _notation_field(fields, "include")
    if include is not None:
        out["include"] = include
    out["remove"] = _int_field(fields, "remove", 0, 40)
    if _one(fields, "limit"):
        out["limit"] = _one(fields, "limit")
    out["bonuses"] = _int_field(fields, "bonuses", 0, 20)
    out["penalties"] = _int_field(fields, "penalties", 0, 20)
    out["favored"] = bool(fields.get("favored"))
    return out


def _side_mods(fields: dict, who: str) -> dict:
    """The other side's Bonuses, Penalties, Limit and Favored controls."""
    out: dict = {f"{who}_{m}": _int_field(fields, f"{who}_{m}", 0, 20) for m in ("bonuses", "penalties")}
    if _one(fields, f"{who}_limit"):
        out[f"{who}_limit"] = _one(fields, f"{who}_limit")
    out[f"{who}_favored"] = bool(fields.get(f"{who}_favored"))
    return out


def _opposing_dice(fields: dict) -> dict:
    text = _notation_field(fields, "opponent")
    if text is None:
        raise SpecError("opponent", "write the opposing dice, e.g. '2d10 & d4'")
    return {"opponent": text, **_side_mods(fields, "opponent")}


#: What the roll is against -> the spec keys it brings. Opposing dice and a
#: Difficulty's dice are rolled, and take the opponent's modifiers.
_AGAINST = {
    "none": lambda fields: {},
    "difficulty": lambda fields: {"difficulty": _one(fields, "difficulty", "routine") or "routine",
                                  **_side_mods(fields, "opponent")},
    "dice": _opposing_dice,
    "table": lambda fields: {"opponent": _table(fields, "opponent_faces", "opponent_sides")},
}


def _against(fields: dict) -> dict:
    against = _one(fields, "against", "none") or "none"
    if against not in _AGAINST:
        raise SpecError("against", "choose what the roll is against")
    out = _AGAINST[against](fields)
    out.update(_qualities(fields))
    if fields.get("double_botch_tie"):
        out["double_botch"] = "tie"
    return out


def _qualities(fields: dict) -> dict:
    """The Quality controls that are filled in (each side's)."""
    return {name: _one(fields, name) for name in ("quality", "opponent_quality") if _one(fields, name)}


def _soak(fields: dict) -> dict:
    out: dict = {}
    soak = _notation_field(fields, "soak")
    if soak is not None:
        out["soak"] = soak
    out.update(_side_mods(fields, "soak"))
    slaying, enervated = bool(fields.get("slaying")), bool(fields.get("enervated"))
    out["damage_type"] = {(True, True): "slaying_and_enervated", (True, False): "slaying",
                          (False, True): "enervated", (False, False): "normal"}[slaying, enervated]
    return out


def _notation(value) -> str:
    return format_pool(value) if isinstance(value, list) and value else ""


def _text(value) -> str:
    return "" if value is None else str(value)


def _faces_text(dice: dict | None) -> str:
    return ", ".join(str(f) for f in dice["faces"]) if isinstance(dice, dict) else ""


def form_values(spec: dict) -> dict:
    """The inverse of ``spec_from_form`` (share links, saved rolls).

    >>> v = form_values({"dice": "d10 & d6", "opponent": {"faces": [7, 6, 2]}, "quality": 7})
    >>> v["dice"], v["against"], v["opponent_faces"], v["quality"]
    ('d10 & d6', 'table', '7, 6, 2', '7')
    """
    spec = rules.normalize(SYSTEM, spec)
    return {**_own_values(spec), **_against_values(spec), **_damage_values(spec),
            **{f"{who}_{m}": _mod_value(spec[f"{who}_{m}"]) for who in ("opponent", "soak") for m in SIDE_MODS}}


def _mod_value(v):
    return v if isinstance(v, bool) else _text(v)


def _own_values(spec: dict) -> dict:
    dice = spec["dice"]
    on_table = isinstance(dice, dict)
    return {
        **{k: _mod_value(spec[k]) for k in ("kind", "level", "remove", "limit", "bonuses", "penalties", "favored")},
        "dice": "" if on_table or spec["level"] is not None else _notation(dice),
        "include": _notation(spec["include"]),
        "table_faces": _faces_text(dice),
        "table_sides": _notation(dice.get("sides")) if on_table else "",
    }


def _against_values(spec: dict) -> dict:
    opp = spec["opponent"]
    out = {"quality": _text(spec["quality"]), "opponent_quality": _text(spec["opponent_quality"]),
           "double_botch_tie": spec["double_botch"] == "tie",
           "opponent": "", "opponent_faces": _faces_text(opp),
           "opponent_sides": _notation(opp.get("sides")) if isinstance(opp, dict) else ""}
    return {**out, **_against_choice(spec, opp)}


def _against_choice(spec: dict, opp) -> dict:
    """What the roll is against (a Difficulty, dice on the table, opposing
    dice, nothing) and the control that holds it."""
    if spec["difficulty"]:
        return {"against": "difficulty", "difficulty": spec["difficulty"]}
    if isinstance(opp, dict):
        return {"against": "table"}
    if opp:
        return {"against": "dice", "opponent": _notation(opp)}
    return {"against": "none"}


def _damage_values(spec: dict) -> dict:
    return {
        "soak": _notation(spec["soak"]),
        "slaying": spec["damage_type"] in ("slaying", "slaying_and_enervated"),
        "enervated": spec["damage_type"] in ("enervated", "slaying_and_enervated"),
    }


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
    fill = _FLOWS[verb](result) if verb in _FLOWS else None
    if fill is None:
        raise SpecError("_form", "Jadeclaw allows no step after a roll")
    return {"fill": fill}


def _faces_and_sides(dice: list[dict]) -> tuple[str, str]:
    dice = sorted(dice, key=lambda d: -d["face"])
    return ", ".join(str(d["face"]) for d in dice), format_pool([d["sides"] for d in dice])


def _reuse(result: dict) -> dict | None:
    """A Damage Roll's dice as the opposing Score of the next Simple Roll."""
    if result.get("kind") != "damage" or not result.get("dice"):
        return None
    faces, sides = _faces_and_sides(result["dice"])
    return {"kind": "simple", "against": "table", "opponent_faces": faces, "opponent_sides": sides,
            "opponent": "", "level": "", "include": "", "remove": "0", "limit": "",
            "bonuses": "0", "penalties": "0", "favored": False, "quality": "", "opponent_quality": ""}


def _effect(result: dict) -> dict | None:
    """A Simple Roll's opposing dice as the damage dice of a Damage Roll."""
    if result.get("kind") != "simple" or not result.get("opponent"):
        return None
    faces, sides = _faces_and_sides(result["opponent"])
    return {"kind": "damage", "table_faces": faces, "table_sides": sides,
            "soak": "", "slaying": False, "enervated": False}


_FLOWS = {"reuse": _reuse, "effect": _effect}


# --------------------------------------------------------------------------
# The result.

def _sorted_dice(dice: list) -> list:
    return sorted(dice, key=lambda d: (-(d.get("face") or 0), -(d.get("sides") or 0)))


def _roll_row(dice: list, prefix: str, selected, cls: str, attrs: dict, head: str, mark: str,
              colour=None) -> str:
    """One roll's dice, sorted, as a ``draw.tray`` row: its Score in the
    caption, the kept roll's mark beside it."""
    cap = views.esc(head) + (f' <strong class="jc-kept-mark">{mark}</strong>' if mark else "")
    return draw.tray(dice, [f"{prefix}.{i}" for i in range(len(dice))], selected=selected, caption_html=cap,
                     colours=[colour] * len(dice), row_class=cls, attrs=attrs)


def _roll_classes(kept: bool, count: int) -> str:
    """" is-kept" on the kept roll, " is-dropped" on a Penalty roll not kept."""
    return " is-kept" if kept else (" is-dropped" if count > 1 else "")


def _roll_figure(roll: dict, index: int, count: int, selected) -> str:
    dice = _sorted_dice(roll["dice"])
    kept = bool(roll.get("kept"))
    head = (f"Roll {index + 1} of {count}" if count > 1 else "Your dice") + f" · Score {roll['score']}"
    return _roll_row(dice, f"r{index}", selected, "jc-roll" + _roll_classes(kept, count),
                     {"data-roll-index": index, "data-kept": kept}, head,
                     "kept (the worst)" if kept and count > 1 else "")


def _opposing_figure(roll: dict, index: int, count: int, label: str, selected) -> str:
    """One roll of the opposition (their Penalty rolls side by side, their
    worst marked kept)."""
    dice = _sorted_dice(roll["dice"])
    kept = bool(roll.get("kept", True))
    where = f"roll {index + 1} of {count} · " if count > 1 else ""
    return _roll_row(dice, "o" if count == 1 else f"o{index}", selected,
                     "jc-roll jc-opposition" + _roll_classes(kept and count > 1, count),
                     {"data-opponent-roll": index, "data-kept": kept},
                     f"{label} · {where}Score {roll['score']}", "kept (their worst)" if kept and count > 1 else "",
                     OPPOSED)


def _hits(n) -> str:
    """"1 hit", "2 hits"."""
    return f"{n} hit{'' if n == 1 else 's'}"


def _pair_column(i: int, p: dict) -> tuple:
    """One damage pair's column: its two dice, their keys, labels and
    colours (an imaginary soak 1 named and hollow), and its hits."""
    d, s = p.get("damage"), p.get("soak")
    imaginary = s is not None and s.get("role") == "imaginary"
    h = p.get("hits", 0)
    return ([d, s], [None if d is None else f"p{i}.d", f"p{i}.s"],
            [None, "an imaginary 1 (the soak dice ran out)" if imaginary else None],
            [None, None if imaginary else OPPOSED],
            "unused soak die" if d is None else _hits(h))


def _pairs(pairs: list, selected) -> str:
    """Damage pairs as matched columns (``draw.tray``'s ``pairs`` layout):
    the damage die over its soak die, the hits under them; a soak die
    left over has a dash above it, an imaginary 1 is drawn hollow."""
    columns = [_pair_column(i, p) for i, p in enumerate(pairs)]
    dice, keys, labels, colours, tags = ([c[k] for c in columns] for k in range(5))
    return draw.tray(dice, keys, layout="pairs", selected=selected,
                     caption="Damage (top) against soak (below), highest with highest:", labels=labels,
                     colours=colours, tags=tags, tag_class="jc-hits",
                     classes=[f"jc-pair hits-{int(p.get('hits', 0))}" for p in pairs],
                     row_class="jc-pairs-wrap", dice_class="jc-pairs")


def _hits_banner(result: dict) -> str:
    """The outcome line of a Damage Roll: the number of hits is its name
    ("2 hits", "0 hits"), so the line never says "hits" twice."""
    n = result["value"]
    return views.outcome_banner(SYSTEM, result["outcome"], name=_hits(n))


def _simple_headline(result: dict) -> str:
    """Beside the outcome's name: "Success — Score 7 vs 4"; with nothing to
    beat, "Scored 5" (not "Scored Score 5")."""
    opp = result.get("opponent_score")
    if opp is not None:
        return f"— Score {result['value']} vs {opp}"
    return str(result["value"]) if result["outcome"] == "scored" else f"— Score {result['value']}"


def _damage_html(result: dict, selected) -> list[str]:
    out = [_hits_banner(result)]
    pairs = result.get("pairs") or []
    if pairs:
        out.append(_pairs(pairs, selected))
    if result.get("soak_botch"):
        out.append('<p class="jc-note">The soak dice all show 1: one extra hit.</p>')
    return out + _removed_notes(result)


#: The result's lists of dice Remove took, and how the page names each.
REMOVED = (("removed", "Removed before rolling"), ("soak_removed", "Soak dice removed before rolling"))


def _removed_notes(result: dict) -> list[str]:
    """The dice Remove took from either side before rolling."""
    return [f'<p class="jc-note">{whose}: {views.esc(format_pool(result[key]))}.</p>'
            for key, whose in REMOVED if result.get(key)]


def _simple_html(result: dict, selected) -> list[str]:
    out = [views.outcome_banner(SYSTEM, result["outcome"], _simple_headline(result)), _rolls_html(result, selected)]
    if result.get("opponent"):
        out.append(_opposition_html(result, selected))
    if result.get("auto_success"):
        out.append('<p class="jc-hint">Rule of thumb: these dice are as many and as big as the '
                   'difficulty\'s — if the task is neither dire nor contested, it may simply succeed.</p>')
    return out


def _rolls_html(result: dict, selected) -> str:
    """The roller's rolls (Penalty rolls side by side, the kept one marked)."""
    rolls = result.get("rolls") or []
    return ('<div class="jc-rolls">' + "".join(
        _roll_figure(r, i, len(rolls), selected) for i, r in enumerate(rolls)) + "</div>")


def _opposition_html(result: dict, selected) -> str:
    rolls = result.get("opponent_rolls") or [{"dice": result["opponent"], "score": result.get("opponent_score"),
                                              "kept": True}]
    label = result.get("opponent_label") or "Opposition"
    return ('<div class="jc-opp-rolls">' + "".join(
        _opposing_figure(r, i, len(rolls), label, selected) for i, r in enumerate(rolls)) + "</div>")


def _combo_buttons(result: dict) -> str:
    buttons = []
    if result.get("kind") == "damage" and result.get("dice"):
        buttons.append('<button type="button" data-act="reuse">Use these damage dice as the opposing '
                       'Score (Resolve Test)</button>')
    if result.get("kind") == "simple" and result.get("opponent"):
        buttons.append('<button type="button" data-act="effect">Use the opposing dice as Effect Dice '
                       '(Damage Roll)</button>')
    if not buttons:
        return ""
    return '<div class="jc-combo" role="group" aria-label="Combination rolls">' + "".join(buttons) + "</div>"


def render_result(result: dict, ui: dict) -> str:
    """The outcome, the dice (sorted; Penalty rolls side by side with the
    kept one marked, the opposition's too; damage pairs as matched columns
    with their hits), the explanation, and the combination-roll buttons."""
    selected = set(ui.get("selected") or ())
    body = _damage_html(result, selected) if result.get("kind") == "damage" else _simple_html(result, selected)
    return "".join(body) + views.explain_list(result.get("explain")) + _combo_buttons(result)


# --------------------------------------------------------------------------
# Odds.

SIMPLE_ORDER = ("botch", "double_botch", "overwhelming_failure", "failure", "tie", "success",
                "overwhelming_success")


def _steps_html(notes: list[str]) -> str:
    return '<ul class="jc-steps">' + "".join(f"<li>{views.esc(n)}</li>" for n in notes) + "</ul>" if notes else ""


def _smallest_sizes(faces: list[int]) -> list[int]:
    """For dice on the table given without sizes: the smallest die that shows each face."""
    return [next(x for x in SIZES if x >= f) for f in faces]


def _table_preview(table: dict, caption: str) -> str:
    faces = table["faces"]
    sides = table.get("sides") or _smallest_sizes(faces)
    dice = [{"sides": s, "face": f, "role": "rolled"} for f, s in zip(faces, sides)]
    return draw.tray(dice, size=44, caption=caption)


def _pool_caption(who: str, pool: list[int], rolls: int, favored: bool) -> str:
    cap = f"{who} {format_pool(pool)}" if pool else "No dice left to roll"
    if rolls > 1:
        cap += f" × {rolls} rolls (worst kept)"
    return cap + (", Favored" if favored else "")


def _pool_preview(who: str, pool: list[int], steps: list[dict], rolls: int, favored: bool) -> str:
    cap = _pool_caption(who, pool, rolls, favored)
    dice = [{"sides": s, "face": f"d{s}", "role": "rolled"} for s in pool]
    html = draw.tray(dice, size=44, caption=cap) if pool else f'<p class="jc-preview-empty">{views.esc(cap)}</p>'
    return html + _steps_html(ex.prep_notes(steps))


def _other_side_preview(spec: dict) -> str:
    """The opposing (or soak) dice after their own modifiers, shown only
    when a modifier changes them."""
    who = "soak" if spec["kind"] == "damage" else "opponent"
    sd = jc.side(spec, who)
    if not isinstance(sd.dice, list) or not any((sd.bonuses, sd.penalties, sd.favored, sd.limit)):
        return ""
    pool, steps, info = jc.prepare_side(sd, damage=who == "soak")
    rolls = info["penalties"] + 1 if who == "opponent" else 1
    label = "Soak" if who == "soak" else f"They ({jc.opposition(spec)[0]}) roll"
    return _pool_preview(label, pool, steps, rolls, sd.favored)


def _dice_preview(spec: dict) -> str:
    """The dice the roll will use, after Include / Remove / Limit / Bonuses
    (and a Damage Roll's Penalties), drawn before rolling; and the other
    side's when its own modifiers change them."""
    if isinstance(spec["dice"], dict):
        return _table_preview(spec["dice"], "Damage dice already on the table (modifiers do not apply)")
    pool, steps, info = jc.prepare(spec)
    rolls = info["penalties"] + 1 if spec["kind"] == "simple" else 1
    html = _pool_preview("You roll", pool, steps, rolls, spec["favored"])
    return f'<div class="jc-preview">{html}{_other_side_preview(spec)}</div>'


def questions(spec: dict, result, ui: dict) -> dict:
    """The odds the panel shows: the roll in the form."""
    return {"roll": tab.before()}


def _damage_odds_html(o: dict) -> str:
    note = "exact" if o["exact"] else f"sampled: {o['samples']} rolls, ±{o['margin'] * 100:.1f} points (95 %)"
    return (f'<p class="jc-odds-head">Chance of at least one hit: <strong>'
            f'{views.esc(views.pct(o["outcome"]["hits"]))}</strong>; average '
            f'{o["mean"]:.2f} hits ({views.esc(note)}).</p>' + views.bar_chart(o["value"], title="Hits"))


def _outcome_rows(outcome: dict) -> str:
    """A row per outcome the odds give, in ``SIMPLE_ORDER`` (the double
    Botch only when it can happen)."""
    return "".join(
        f'<tr data-outcome="{k}"><th scope="row">{views.esc(views.outcome_name(k))}</th>'
        f'<td>{views.esc(views.pct(outcome.get(k, 0)))}</td></tr>'
        for k in SIMPLE_ORDER if k in outcome and (k != "double_botch" or outcome[k] > 0))


def _outcomes_html(o: dict) -> str:
    if "double_botch" not in o["outcome"] and "success" not in o["outcome"]:
        return (f'<p class="jc-odds-head">Chance to Botch: <strong>'
                f'{views.esc(views.pct(o["outcome"]["botch"]))}</strong></p>')
    rows = _outcome_rows(o["outcome"])
    return (f'<table class="jc-outcomes"><caption>Outcome against '
            f'{views.esc(o.get("opponent_label") or "the opposition")}</caption>{rows}</table>')


def _simple_odds_html(o: dict) -> str:
    title = "Your Score" + (" (worst of %d rolls)" % o["rolls"] if o["rolls"] > 1 else "")
    html = _outcomes_html(o) + views.bar_chart(o["value"], title=title)
    if o.get("auto_success"):
        html += ('<p class="jc-hint" data-auto-success>Rule of thumb: these dice are as many and as big as '
                 'the difficulty\'s; if the task is neither dire nor contested, declare a Success without '
                 'rolling.</p>')
    return html


def render_odds(spec: dict, answers: dict, result) -> str:
    """The resulting dice before rolling, then the odds: the six contest
    categories (and the double Botch), the Score distribution, the
    rule-of-thumb hint; or a Damage Roll's hits distribution."""
    preview = _dice_preview(spec)
    o = answers["roll"]
    if "error" in o:
        return preview + views.error_html(o["error"])
    return preview + (_damage_odds_html(o) if spec["kind"] == "damage" else _simple_odds_html(o))


# --------------------------------------------------------------------------
# Reference.

def fields_after(result: dict, fields: dict) -> None:
    """A roll changes nothing on this form."""
    return None


def _level_row(lv: int, row: list) -> str:
    """One level's dice and its dice with one to six Bonuses."""
    return (f'<tr><th scope="row">{"none" if lv == 0 else lv}</th>'
            + "".join(f"<td>{views.esc(c)}</td>" for c in row) + "</tr>")


def render_reference() -> str:
    """The levels-and-bonuses table computed from the rule (RULES-NOTES
    Jadeclaw 2) and the difficulty table, for ``#ref-jadeclaw``."""
    head = "".join(f"<th scope=\"col\">{views.esc(h)}</th>" for h in
                   ["Level", "Dice", "One Bonus", "Two Bonuses", "Three Bonuses", "Four Bonuses",
                    "Five Bonuses", "Six Bonuses"])
    body = "".join(_level_row(lv, row) for lv, row in enumerate(jc.levels_table()))
    diff = "".join(f'<tr><th scope="row">{views.esc(jc.label_difficulty(k))}</th><td>{views.esc(format_pool(v))}</td></tr>'
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


def _pool_words(result: dict) -> str:
    """The pool rolled, or "dice on the table" for a Damage Roll of dice
    already there."""
    spec = result.get("spec") or {}
    pool = result.get("pool")
    return format_pool(pool) if pool else ("dice on the table" if isinstance(spec.get("dice"), dict) else "")


def summary(result: dict) -> str:
    """One line for the roll history.

    >>> r = rules.roll("jadeclaw", {"dice": "d10 & d4", "difficulty": "routine"}, rules.ScriptedRng([7, 2, 3, 4]))
    >>> summary(r)
    'd10 & d4 vs Routine: Score 7 vs 4'
    """
    text = _pool_words(result)
    if result.get("kind") == "damage":
        v = result.get("value", 0)
        return f"{text} damage: {_hits(v)}"
    label = result.get("opponent_label")
    against = f" vs {label}" if label else ""
    theirs = f" vs {result['opponent_score']}" if result.get("opponent_score") is not None else ""
    return f"{text}{against}: Score {result.get('value')}{theirs}"
