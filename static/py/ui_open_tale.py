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

import draw
import rules
import tab
import views
from rules import open_tale as ot
from rules.dice import SpecError

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
    text = _one(fields, "level", "5")
    if not re.fullmatch(r"[1-9]", text):
        raise SpecError("level", "choose a level from 1 to 9")
    level = int(text)
    name = f"pair_{level}"
    pair = _one(fields, name)
    valid = ot.valid_pairs(level)
    if not pair:
        dice = list(ot.even_pair(level))
    else:
        m = re.fullmatch(r"(\d{1,2})-(\d{1,2})", pair)
        dice = [int(m.group(1)), int(m.group(2))] if m else None
        if dice is None or tuple(dice) not in valid:
            raise SpecError(name, "choose one of " + ", ".join(ot.pair_text(p) for p in valid))
    target = _one(fields, "target")
    return {
        "level": level,
        "dice": dice,
        "heroic": bool(fields.get("heroic")),
        "modifiers": [str(v) for v in fields.get("modifiers", [])],
        "tie_break": _one(fields, "tie_break", "best") or "best",
        "target": target or None,
    }


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
    expl = die.get("explosions") or []
    if expl:
        parts.append("exploded: " + ", then ".join(str(x) for x in expl) + f"; total {die.get('total')}")
    if die.get("capped"):
        parts.append("stopped at the safety cap")
    return ", ".join(parts)


def _chain(die: dict, key: str, selected) -> str:
    """One die with its history and its explosion chain:
    [die] → [6] → [2] = 14, the rerolled die's old face struck through."""
    sides = die.get("sides")
    parts = [draw.die_svg(_display_die(die), key, size=64, selected=key in selected,
                          label=_die_label(die))]
    expl = die.get("explosions") or []
    for j, f in enumerate(expl):
        sub = {"sides": sides, "face": f, "role": "exploded" if f == sides else "rolled", "history": [f]}
        if die.get("heroic"):
            sub["colour"] = HEROIC_COLOUR
        k = f"{key}.{j + 1}"
        parts.append('<span class="ot-arrow" aria-hidden="true">→</span>')
        parts.append(draw.die_svg(sub, k, size=44, selected=k in selected,
                                  label=f"explosion {j + 1} of the {die.get('name')}: {f}"))
    words = []
    hist = die.get("history") or []
    if die.get("role") == "rerolled" and len(hist) > 1:
        first, second = views.esc(hist[0]), views.esc(hist[1])
        gone = '<span class="visually-hidden"> (set aside)</span>'
        if die.get("kept_first"):
            words.append(f"<ins>{first}</ins> ⟲ <del>{second}</del>{gone}")
        else:
            words.append(f"<del>{first}</del>{gone} ⟲ <ins>{second}</ins>")
    if expl:
        words.append("→ " + " → ".join(views.esc(x) for x in expl))
    total = die.get("total", die.get("face"))
    caption = (f'<figcaption><span class="ot-name">{views.esc(die.get("name"))}</span> '
               f'{" ".join(words)}{" " if words else ""}<strong>= {views.esc(total)}</strong>'
               f'{" <em>(cap reached)</em>" if die.get("capped") else ""}</figcaption>')
    cls = "ot-die" + (" ot-heroic-die" if die.get("heroic") else "") + (" ot-exploding" if expl else "")
    return f'<figure class="{cls}"><div class="ot-chain">{"".join(parts)}</div>{caption}</figure>'


def render_result(result: dict, ui: dict) -> str:
    """The tray: each die as a chain, the outcome and why. No action buttons
    (Open Tale has no step after a roll)."""
    sel = set((ui or {}).get("selected") or ())
    dice = [d for d in result.get("dice", []) if isinstance(d, dict)]
    target = result.get("target")
    headline = f"Score {result.get('value')}" + (f" vs target {target}" if target is not None else "")
    chains = "".join(_chain(d, str(i), sel) for i, d in enumerate(dice))
    mod = result.get("modifier") or {}
    net = mod.get("net", 0)
    net_line = ""
    if mod.get("from"):
        net_line = (f'<p class="ot-net">{views.esc(ot.modifier_text(mod["from"]))}'
                    f'{" → " + views.esc(NET_TEXT.get(net, "")) if len(mod["from"]) == 1 else ""}</p>')
    cap = ""
    if result.get("capped"):
        cap = (f'<p class="ot-cap" role="note">Safety cap reached: a die stops after '
               f'{views.esc(result.get("cap"))} explosions.</p>')
    return (views.outcome_banner(SYSTEM, result.get("outcome", ""), headline)
            + net_line
            + f'<div class="ot-tray" role="group" aria-label="Your dice">{chains}</div>'
            + cap
            + views.explain_list(result.get("explain")))


def summary(result: dict) -> str:
    """One line for the roll history.

    >>> r = rules.roll("open_tale", {"level": 5, "dice": [10, 6], "heroic": True,
    ...                              "modifiers": ["advantage"], "target": 12},
    ...                rules.ScriptedRng([7, 3, 2, 3]))
    >>> summary(r)
    'Level 5, d10 + d6 + Heroic d4, Advantage: score 13 vs 12'
    """
    spec = result.get("spec") or {}
    dice = spec.get("dice") or []
    text = f"Level {spec.get('level')}, {ot.pair_text(dice) if len(dice) == 2 else ''}"
    if spec.get("heroic"):
        text += " + Heroic d4"
    net = (result.get("modifier") or {}).get("net", 0)
    if net:
        text += f", {NET_TEXT[net]}"
    text += f": score {result.get('value')}"
    if result.get("target") is not None:
        text += f" vs {result['target']}"
    return text


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


def render_odds(spec: dict, answers: dict, result) -> str:
    """The score's exact distribution with the median marked, the net
    modifier, and P(score >= target)."""
    o = answers["roll"]
    if "error" in o:
        return views.error_html(o["error"])
    dist = o["value"]
    tail = o["tail"]["p"]
    shown, last, rest = _shown(dist, tail)
    target = spec["target"]
    dice = ot.pair_text(spec["dice"]) + (" + Heroic d4" if spec["heroic"] else "")
    net = o["modifier"]["net"]
    title = f"Score with {dice}, {NET_TEXT[net].lower() if net else 'no modifier'}"
    chart = views.bar_chart(shown, title=title, mark=o["median"],
                            highlight=(lambda v: v >= target) if target is not None else None)
    lines = [
        f'<p class="ot-net"><span class="ot-net-label">Modifier:</span> {views.esc(o["modifier"]["text"])}'
        + (f' → {views.esc(NET_TEXT[net])}' if len(spec["modifiers"]) == 1 else "") + "</p>",
        f'<p class="ot-median">Median (marked): <strong>{views.esc(o["median"])}</strong> '
        f'— the score reached at least half the time; mean {o["mean"]:.2f}.</p>',
    ]
    if target is not None:
        lines.append(f'<p class="ot-target">P(score ≥ {views.esc(target)}) = '
                     f'<strong>{views.esc(views.pct(o["at_least"]))}</strong> (darker bars).</p>')
    if rest > 0:
        lines.append(f'<p class="ot-rest">Scores above {views.esc(last)}: {views.esc(views.pct(rest))} '
                     f'(explosions have no ceiling).</p>')
    lines.append(f'<p class="ot-exact">Exact for every score up to {views.esc(o["bound"])}; '
                 f'above it: {tail:.1e}.</p>')
    if result and isinstance(result.get("value"), int) and result.get("spec") == spec:
        v = result["value"]
        p = sum(pv for sv, pv in dist.items() if sv >= v) + tail
        lines.append(f'<p class="ot-this">This roll, {views.esc(v)}: a score at least this high '
                     f'comes {views.esc(views.pct(p))} of the time.</p>')
    return f'<h3 class="ot-odds-title">Odds</h3>{chart}{"".join(lines)}'


# --------------------------------------------------------------------------
# The expected-scores table.

def fields_after(result: dict, fields: dict) -> None:
    """A roll changes nothing on this form."""
    return None


def render_reference() -> str:
    """Seed 001, 3.4's table beside ours (RULES-NOTES Open Tale 4): each cell
    shows the text's numbers and the computed ones; a number that differs is
    marked by a sign and words, not by colour alone."""
    comp = ot.table_comparison()
    by = {(c["level"], c["net"], c["heroic"]): c for c in comp["cells"]}
    head = "".join(f'<th scope="col">{views.esc(NET_TEXT[n] if n else "Neutral")}</th>' for n in range(-2, 3))
    rows = []
    for lv in range(1, 10):
        cells = []
        for n in range(-2, 3):
            text_pair, comp_pair = [], []
            differ = False
            for h in (False, True):
                c = by[(lv, n, h)]
                text_pair.append(views.esc(c["text"]))
                if c["match"]:
                    comp_pair.append(views.esc(c["computed"]))
                else:
                    differ = True
                    comp_pair.append(f'<mark class="ot-differs" title="text: {views.esc(c["text"])}, '
                                     f'computed {c["point"]:.2f}">{views.esc(c["computed"])}*'
                                     f'<span class="visually-hidden"> (differs from the text)</span></mark>')
            cls = ' class="ot-cell-differs"' if differ else ""
            cells.append(f'<td{cls}><span class="ot-text">{" ⇒ ".join(text_pair)}</span>'
                         f'<span class="ot-comp">{" ⇒ ".join(comp_pair)}</span></td>')
        rows.append(f'<tr><th scope="row">{lv}</th>{"".join(cells)}</tr>')
    differ = "".join(
        f'<li>Level {c["level"]}, {views.esc(NET_TEXT[c["net"]] if c["net"] else "neutral")}, '
        f'{"with" if c["heroic"] else "without"} Heroism: text {c["text"]}, computed '
        f'{c["point"]:.2f} → {c["computed"]}</li>' for c in comp["differ"])
    return (
        '<summary>Expected scores: the text\'s table beside the computed one</summary>'
        '<div class="ot-ref">'
        '<p>Each cell: the expected minimum score <em>without ⇒ with</em> Heroism; upper line the '
        'text\'s own numbers (3.4), lower line computed from the exact odds: the level\'s valid pairs '
        'mixed in equal parts, the score reached with 50 % chance (P(score ≥ x) interpolated between '
        'whole scores), rounded (RULES-NOTES Open Tale 4). Ties are broken for the better expected '
        'score.</p>'
        + views.scroll_box("Expected minimum score by level and modifier")
        + f'<table class="ot-table"><caption>Expected minimum score by level '
        f'and modifier</caption><thead><tr><th scope="col">Level</th>{head}</tr></thead>'
        f'<tbody>{"".join(rows)}</tbody></table></div>'
        f'<p class="ot-match"><strong>{comp["matches"]} of {comp["total"]}</strong> numbers match; '
        f'the {len(comp["differ"])} marked * differ. Each sits within a few hundredths of a '
        'half-point, where a table estimated by simulation rounds either way:</p>'
        f'<ul class="ot-differ-list">{differ}</ul>'
        '<p>Rule of thumb (3.4): the expected minimum score of level <em>X</em> is <em>X</em> + 5 '
        '— the computed neutral column without Heroism gives exactly that.</p>'
        '</div>')
