"""The Open Tale tab: form fields to spec, result to HTML. Pure; no DOM.

The form (index.html, ``#form-open_tale``): ``level`` radios 1-9; one radio
group of dice pairs per level, ``pair_<level>`` (values ``"10-6"``), each
with its most even pair checked, so switching the level (CSS ``:has()``
shows only that level's group) always leaves a valid pair chosen;
``heroic``; ``modifiers`` checkboxes (they combine); ``tie_break``;
``target`` (blank = none).

>>> spec = spec_from_form({"level": ["5"], "pair_5": ["10-6"], "modifiers": ["advantage"]})
>>> rules.normalize("open_tale", spec)["dice"], spec["modifiers"]
([10, 6], ['advantage'])
"""

from __future__ import annotations

import re

import rules
from drawing import draw, views
from rules.dice import SpecError
from rules.open_tale import model as ot
from tabs import tab

SYSTEM = "open_tale"

NET_TEXT = {-2: "Inferiority", -1: "Disadvantage", 0: "No modifier", 1: "Advantage", 2: "Superiority"}
HEROIC_COLOUR = "yellow"


def _one(fields: dict, name: str, default: str = "") -> str:
    v = fields.get(name) or [default]
    return str(v[0]).strip()


# --------------------------------------------------------------------------
# Form <-> spec.

def spec_from_form(fields: dict) -> dict:
    """Every named control of ``#form-open_tale`` to a spec. The pair comes
    from the chosen level's own group (``pair_5`` for level 5).

    >>> spec_from_form({"level": ["9"]})["dice"]
    [12, 12]
    >>> spec_from_form({"level": ["5"], "pair_5": ["12-6"]})
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: pair_5: choose one of d12 + d4, d10 + d6, 2d8
    """
    level = _level(fields)
    return {
        "level": level,
        "dice": _pair(fields, level),
        "heroic": bool(fields.get("heroic")),
        "modifiers": [str(v) for v in fields.get("modifiers", [])],
        "tie_break": _tie_break(fields),
        "target": _one(fields, "target") or None,
    }


def _level(fields: dict) -> int:
    """The chosen level, one of ``ot.LEVELS`` (5 when the form sends none)."""
    text = _one(fields, "level", "5")
    if not (re.fullmatch(r"\d{1,2}", text) and int(text) in ot.LEVELS):
        raise SpecError("level", f"choose a level from {ot.LEVELS[0]} to {ot.LEVELS[-1]}")
    return int(text)


def _tie_break(fields: dict) -> str:
    """The form's tie break; ``auto`` (how a new form opens) is the best
    play: ``target`` when a target is set, else ``best``. A spec filled in
    from a link or a saved roll names its own, so it replays as it was.

    >>> _tie_break({"target": ["14"]}), _tie_break({"target": [""]}), _tie_break({"tie_break": ["best"], "target": ["9"]})
    ('target', 'best', 'best')
    """
    tie = _one(fields, "tie_break", "auto") or "auto"
    if tie != "auto":
        return tie
    return "target" if _one(fields, "target") else "best"


def _parse_pair(text: str) -> tuple[int, int] | None:
    """A pair control's value ("12-6") as two die sizes, or None."""
    m = re.fullmatch(r"(\d{1,2})-(\d{1,2})", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _pair(fields: dict, level: int) -> list[int]:
    """The pair ticked in the level's own group (``pair_5`` for level 5);
    none ticked: the most even."""
    name = f"pair_{level}"
    pair = _one(fields, name)
    if not pair:
        return list(ot.even_pair(level))
    dice = _parse_pair(pair)
    valid = ot.valid_pairs(level)
    if dice not in valid:
        raise SpecError(name, "choose one of " + ", ".join(ot.pair_text(p) for p in valid))
    return list(dice)


def form_values(spec: dict) -> dict:
    """The inverse of ``spec_from_form`` (share links, saved rolls).

    >>> v = form_values({"level": 6, "dice": [12, 6], "modifiers": ["Advantage"], "target": 14})
    >>> v["level"], v["pair_6"], v["modifiers"], v["target"], v["heroic"]
    ('6', '12-6', ['advantage'], '14', False)
    """
    spec = rules.normalize(SYSTEM, spec)
    a, b = spec["dice"]
    return {
        "level": str(spec["level"]),
        f"pair_{spec['level']}": f"{a}-{b}",
        "heroic": spec["heroic"],
        "modifiers": list(spec["modifiers"]),
        "tie_break": spec["tie_break"],
        "target": "" if spec["target"] is None else str(spec["target"]),
    }


def action_for(verb: str, result: dict, ui: dict, fields: dict) -> dict:
    """Open Tale allows no step after a roll."""
    raise SpecError("_form", "Open Tale allows no step after a roll")


# --------------------------------------------------------------------------
# The result.

def _display_die(die: dict) -> dict:
    """The die as drawn: draw.py strikes through the next-to-last history
    face of a rerolled die, so put the face set aside there (Inferiority and
    Superiority may keep the first face)."""
    d = dict(die)
    if d.get("role") == "kept":  # every Open Tale die counts: no 'kept' badge to tell apart
        d["role"] = "rolled"
    if die.get("role") == "rerolled" and "dropped" in die:
        d["history"] = [die["dropped"], die["face"]]
    if die.get("heroic"):
        d["colour"] = HEROIC_COLOUR
    return d


def _die_label(die: dict) -> str:
    name = die.get("name") or f"d{die.get('sides')}"
    parts = [f"{name} showing {die.get('face')}"]
    if die.get("role") == "rerolled":
        parts.append(f"rerolled, {die.get('dropped')} set aside")
    if die.get("explosions"):
        parts.append(_exploded_words(die))
    if die.get("capped"):
        parts.append("stopped at the safety cap")
    return ", ".join(parts)


def _exploded_words(die: dict) -> str:
    """"exploded: 6, then 2; total 14"."""
    return "exploded: " + ", then ".join(str(x) for x in die["explosions"]) + f"; total {die.get('total')}"


def _explosion(die: dict, f: int) -> dict:
    """An explosion of ``die``, showing ``f``, as a die of its own."""
    sub = {"sides": die.get("sides"), "face": f, "role": "exploded" if f == die.get("sides") else "rolled",
           "history": [f]}
    if die.get("heroic"):
        sub["colour"] = HEROIC_COLOUR
    return sub


def _explosion_label(die: dict, j: int, f: int) -> str:
    return (f"explosion {j + 1} of the {die.get('name')}: {f}"
            + (", exploded again" if f == die.get("sides") else ""))


def _reroll_words(die: dict) -> list[str]:
    """The modifier's reroll: the face set aside struck through."""
    hist = die.get("history") or []
    if die.get("role") != "rerolled" or len(hist) < 2:
        return []
    first, second = views.esc(hist[0]), views.esc(hist[1])
    gone = '<span class="visually-hidden"> (set aside)</span>'
    if die.get("kept_first"):
        return [f"<ins>{first}</ins> ⟲ <del>{second}</del>{gone}"]
    return [f"<del>{first}</del>{gone} ⟲ <ins>{second}</ins>"]


def _chain_caption(die: dict) -> str:
    words = _reroll_words(die)
    expl = die.get("explosions") or []
    if expl:
        words.append("→ " + " → ".join(views.esc(x) for x in expl))
    return (f'<span class="ot-name">{views.esc(die.get("name"))}</span> '
            f'{" ".join(words)}{" " if words else ""}{_total_html(die)}')


def _total_html(die: dict) -> str:
    """A die's total after its explosions, and whether the safety cap stopped it."""
    total = die.get("total", die.get("face"))
    return f'<strong>= {views.esc(total)}</strong>{" <em>(cap reached)</em>" if die.get("capped") else ""}'


def _chain(die: dict, key: str, selected) -> str:
    """One die with its history and its explosion chain (``draw.tray``'s
    ``chain`` layout): [die] → [6] → [2] = 14, each explosion a smaller
    die, the rerolled die's old face struck through."""
    expl = list(enumerate(die.get("explosions") or []))
    return draw.tray([[_display_die(die)] + [_explosion(die, f) for _, f in expl]],
                     [[key] + [f"{key}.{j + 1}" for j, _ in expl]], layout="chain", selected=selected,
                     labels=[[_die_label(die)] + [_explosion_label(die, j, f) for j, f in expl]],
                     caption_html=_chain_caption(die), row_class=_chain_class(die), dice_class="ot-chain")


def _chain_class(die: dict) -> str:
    """A chain's classes: a Heroic die, a die that exploded."""
    return ("ot-die" + (" ot-heroic-die" if die.get("heroic") else "")
            + (" ot-exploding" if die.get("explosions") else ""))


def _headline(result: dict) -> str:
    """After the outcome's name: "Scored 21", "Success 14 against the
    target 12" (the name is not repeated)."""
    target = result.get("target")
    return f"{result.get('value')}" + (f" against the target {target}" if target is not None else "")


def _net_line(result: dict) -> str:
    mod = result.get("modifier") or {}
    names = mod.get("from")
    if not names:
        return ""
    single = " → " + views.esc(NET_TEXT.get(mod.get("net", 0), "")) if len(names) == 1 else ""
    return f'<p class="ot-net">{views.esc(ot.modifier_text(names))}{single}</p>'


def render_result(result: dict, ui: dict) -> str:
    """The tray: each die as a chain, the outcome and why. No action buttons
    (Open Tale has no step after a roll)."""
    chains = _chains(result, set((ui or {}).get("selected") or ()))
    return (views.outcome_banner(SYSTEM, result.get("outcome", ""), _headline(result))
            + _net_line(result)
            + f'<div class="ot-tray" role="group" aria-label="Your dice">{chains}</div>'
            + _cap_note(result)
            + views.explain_list(result.get("explain")))


def _chains(result: dict, sel: set) -> str:
    """Each die of the roll as its chain, keyed by its place."""
    dice = [d for d in result.get("dice", []) if isinstance(d, dict)]
    return "".join(_chain(d, str(i), sel) for i, d in enumerate(dice))


def _cap_note(result: dict) -> str:
    """Said when a die stopped exploding at the safety cap."""
    if not result.get("capped"):
        return ""
    return (f'<p class="ot-cap" role="note">Safety cap reached: a die stops after '
            f'{views.esc(result.get("cap"))} explosions.</p>')


def _rolled_words(spec: dict) -> str:
    """"Level 5, d10 + d6 + Heroic d4": the level and the dice rolled."""
    dice = spec.get("dice") or []
    return (f"Level {spec.get('level')}, {ot.pair_text(dice) if len(dice) == 2 else ''}"
            + (f" + Heroic d{ot.HEROIC_DIE}" if spec.get("heroic") else ""))


def summary(result: dict) -> str:
    """One line for the roll history.

    >>> r = rules.roll("open_tale", {"level": 5, "dice": [10, 6], "heroic": True,
    ...                              "modifiers": ["advantage"], "target": 12},
    ...                rules.ScriptedRng([7, 3, 2, 3]))
    >>> summary(r)
    'Level 5, d10 + d6 + Heroic d4, Advantage: score 13 vs 12'
    """
    spec = result.get("spec") or {}
    net = (result.get("modifier") or {}).get("net", 0)
    parts = [_rolled_words(spec),
             f", {NET_TEXT[net]}" if net else "",
             f": score {result.get('value')}",
             f" vs {result['target']}" if result.get("target") is not None else ""]
    return "".join(parts)


# --------------------------------------------------------------------------
# Odds.

def _shown(dist: dict, tail: float) -> tuple[dict, int, float]:
    """The scores worth a bar: up to the 99.9th percentile (at least 15
    past the smallest); the rest is summed and named in words."""
    acc = 0.0
    out = {}
    lo = min(dist) if dist else 0
    last = lo
    for v in sorted(dist):
        if acc >= 0.999 and v > lo + 14:
            break
        out[v] = dist[v]
        acc += dist[v]
        last = v
    rest = max(0.0, 1.0 - acc)
    return out, last, rest


def questions(spec: dict, result, ui: dict) -> dict:
    """The odds the panel shows: the roll in the form."""
    return {"roll": tab.before()}


def _odds_lines(spec: dict, o: dict, last: int, rest: float) -> list[str]:
    net = o["modifier"]["net"]
    single = f' → {views.esc(NET_TEXT[net])}' if len(spec["modifiers"]) == 1 else ""
    lines = [
        f'<p class="ot-net"><span class="ot-net-label">Modifier:</span> {views.esc(o["modifier"]["text"])}'
        f"{single}</p>",
        f'<p class="ot-median">Median (marked): <strong>{views.esc(o["median"])}</strong> '
        f'— the score reached at least half the time; mean {o["mean"]:.2f}.</p>',
    ]
    if spec["target"] is not None:
        lines.append(f'<p class="ot-target">P(score ≥ {views.esc(spec["target"])}) = '
                     f'<strong>{views.esc(views.pct(o["at_least"]))}</strong> (darker bars).</p>')
    if rest > 0:
        lines.append(f'<p class="ot-rest">Scores above {views.esc(last)}: {views.esc(views.pct(rest))} '
                     f'(explosions have no ceiling).</p>')
    lines.append(f'<p class="ot-exact">Exact for every score up to {views.esc(o["bound"])}; '
                 f'above it: {o["tail"]["p"]:.1e}.</p>')
    return lines


def _at_least(o: dict, v: int) -> float:
    """P(score >= v), the tail past the exact bound included."""
    return sum(pv for sv, pv in o["value"].items() if sv >= v) + o["tail"]["p"]


def _this_roll(spec: dict, o: dict, result) -> list[str]:
    """Where the roll on the tray sits: how often a score this high comes."""
    if not (result and isinstance(result.get("value"), int) and result.get("spec") == spec):
        return []
    v = result["value"]
    p = _at_least(o, v)
    return [f'<p class="ot-this">This roll, {views.esc(v)}: a score at least this high '
            f'comes {views.esc(views.pct(p))} of the time.</p>']


def _chart_title(spec: dict, o: dict) -> str:
    """"Score with d10 + d6 + Heroic d4, advantage"."""
    dice = ot.pair_text(spec["dice"]) + (f" + Heroic d{ot.HEROIC_DIE}" if spec["heroic"] else "")
    net = o["modifier"]["net"]
    return f"Score with {dice}, {NET_TEXT[net].lower() if net else 'no modifier'}"


def render_odds(spec: dict, answers: dict, result) -> str:
    """The score's exact distribution with the median marked, the net
    modifier, and P(score >= target)."""
    o = answers["roll"]
    if "error" in o:
        return views.error_html(o["error"])
    shown, last, rest = _shown(o["value"], o["tail"]["p"])
    target = spec["target"]
    chart = views.bar_chart(shown, title=_chart_title(spec, o), mark=o["median"],
                            highlight=(lambda v: v >= target) if target is not None else None)
    lines = _odds_lines(spec, o, last, rest) + _this_roll(spec, o, result)
    return f'<h3 class="ot-odds-title">Odds</h3>{chart}{"".join(lines)}'


# --------------------------------------------------------------------------
# The expected-scores table.

def fields_after(result: dict, fields: dict) -> None:
    """A roll changes nothing on this form."""
    return None


def _computed(c: dict) -> str:
    """A computed number; one that differs from the text's is marked by a
    sign and words, not by colour alone."""
    if c["match"]:
        return views.esc(c["computed"])
    return (f'<mark class="ot-differs" title="text: {views.esc(c["text"])}, '
            f'computed {c["point"]:.2f}">{views.esc(c["computed"])}*'
            f'<span class="visually-hidden"> (differs from the text)</span></mark>')


def _cell(by: dict, lv: int, n: int) -> str:
    pair = [by[(lv, n, h)] for h in (False, True)]
    cls = ' class="ot-cell-differs"' if not all(c["match"] for c in pair) else ""
    return (f'<td{cls}><span class="ot-text">{" ⇒ ".join(views.esc(c["text"]) for c in pair)}</span>'
            f'<span class="ot-comp">{" ⇒ ".join(_computed(c) for c in pair)}</span></td>')


def _level_row(by: dict, lv: int, nets) -> str:
    """One level's cells, a cell per net modifier."""
    return f'<tr><th scope="row">{lv}</th>{"".join(_cell(by, lv, n) for n in nets)}</tr>'


def _differ_item(c: dict) -> str:
    return (f'<li>Level {c["level"]}, {views.esc(NET_TEXT[c["net"]] if c["net"] else "neutral")}, '
            f'{"with" if c["heroic"] else "without"} Heroism: text {c["text"]}, computed '
            f'{c["point"]:.2f} → {c["computed"]}</li>')


def render_reference() -> str:
    """Open Tale, 3.4's table beside ours (RULES-NOTES Open Tale 4): each cell
    shows the text's numbers and the computed ones; a number that differs is
    marked by a sign and words, not by colour alone."""
    comp = ot.table_comparison()
    by = {(c["level"], c["net"], c["heroic"]): c for c in comp["cells"]}
    nets = range(-ot.MAX_NET, ot.MAX_NET + 1)
    head = "".join(f'<th scope="col">{views.esc(NET_TEXT[n] if n else "Neutral")}</th>' for n in nets)
    rows = "".join(_level_row(by, lv, nets) for lv in ot.LEVELS)
    return (
        '<summary>Expected scores: the text\'s table beside the computed one</summary>'
        '<div class="ot-ref">'
        '<p>Each cell: the expected minimum score <em>without ⇒ with</em> Heroism; upper line the '
        'text\'s own numbers (3.4), lower line computed from the exact odds: the level\'s valid pairs '
        'mixed in equal parts, the score reached with 50 % chance (P(score ≥ x) interpolated between '
        'whole scores), rounded. That reading gives the rule of thumb "level + 5" exactly; no reading '
        'gives all 90 numbers. Ties are broken for the better expected score.</p>'
        + views.scroll_box("Expected minimum score by level and modifier")
        + f'<table class="ot-table"><caption>Expected minimum score by level '
        f'and modifier</caption><thead><tr><th scope="col">Level</th>{head}</tr></thead>'
        f'<tbody>{rows}</tbody></table></div>'
        f'<p class="ot-match"><strong>{comp["matches"]} of {comp["total"]}</strong> numbers match; '
        f'the {len(comp["differ"])} marked * differ. Each sits within a few hundredths of a '
        'half-point, where a table estimated by simulation rounds either way:</p>'
        f'<ul class="ot-differ-list">{"".join(_differ_item(c) for c in comp["differ"])}</ul>'
        '<p>Rule of thumb (3.4): the expected minimum score of level <em>X</em> is <em>X</em> + 5 '
        '— the computed neutral column without Heroism gives exactly that.</p>'
        '</div>')
