"""Small pure HTML pieces the tabs share: escaping, percentages, the
outcome banner, the explanation, a distribution chart, a history entry.
Every bit of text that reaches the page goes through ``esc``.

>>> esc('<img src=x onerror="alert(1)">')
'&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
"""

from __future__ import annotations

import re

from drawing import draw
from drawing.draw import escape

__all__ = ["esc", "pct", "outcome_name", "outcome_banner", "explain_list", "bar_chart",
           "history_entry", "error_html", "scroll_box", "bidi_text", "choices_html"]


def esc(text) -> str:
    return escape("" if text is None else str(text))


def pct(p) -> str:
    """A probability as a percentage, with one decimal, never a misleading
    0 % or 100 % for an outcome that can happen or fail.

    >>> pct(0.4213), pct(0.00001), pct(1.0), pct(0.99999)
    ('42.1 %', '< 0.1 %', '100 %', '> 99.9 %')
    """
    try:
        p = float(p)
    except (TypeError, ValueError):
        return "–"
    if p <= 0:
        return "0 %"
    if p >= 1:
        return "100 %"
    if p < 0.0005:
        return "< 0.1 %"
    if p > 0.9995:
        return "> 99.9 %"
    return f"{p * 100:.1f} %"


#: Outcome names that read better with an article (Milhamah's one wording).
_OUTCOME_WORDS = {"success_at_cost": "success at a cost", "success_with_bonus": "success with a bonus"}


def outcome_name(outcome) -> str:
    """'success_at_cost' → 'Success at a cost', 'double_botch' → 'Double botch'.

    >>> outcome_name("success_with_bonus")
    'Success with a bonus'
    """
    s = _OUTCOME_WORDS.get(outcome, str(outcome or "").replace("_", " ").strip())
    return s[:1].upper() + s[1:]


def outcome_banner(system: str, outcome: str, headline: str = "") -> str:
    o = esc(outcome)
    return (f'<p class="outcome outcome-{o}" data-outcome="{o}"><strong class="outcome-name">'
            f'{esc(outcome_name(outcome))}</strong>{" " + esc(headline) if headline else ""}</p>')


def explain_list(lines) -> str:
    if not lines:
        return ""
    items = "".join(f"<li>{esc(line)}</li>" for line in lines)
    return f'<ul class="explain">{items}</ul>'


def _lit(k, highlight) -> bool:
    """Whether value ``k`` is drawn darker: ``highlight`` is a set of values
    or a predicate."""
    if callable(highlight):
        return bool(highlight(k))
    return highlight is not None and k in highlight


def _bar(i: int, k, v: float, *, bw: float, scale: float, height: int, lit: bool, marked: bool,
         tick: bool) -> str:
    """One bar with its tooltip, its tick label and, when marked, a dashed line."""
    pad_l, pad_b, pad_t = CHART_PAD
    h = scale * v
    x = pad_l + i * bw
    cls = "bar" + (" hl" if lit else "") + (" marked" if marked else "")
    out = (f'<rect class="{cls}" x="{x + 1:.1f}" y="{height - pad_b - h:.1f}" width="{max(bw - 2, 1):.1f}" '
           f'height="{max(h, 0.5):.1f}"><title>{esc(k)}: {esc(pct(v))}</title></rect>')
    if tick or marked:
        out += f'<text class="tick" x="{x + bw / 2:.1f}" y="{height - 8}" text-anchor="middle">{esc(k)}</text>'
    if marked:
        out += (f'<line class="mark" x1="{x + bw / 2:.1f}" y1="{pad_t - 4}" x2="{x + bw / 2:.1f}" '
                f'y2="{height - pad_b}" stroke-dasharray="4 3"/>')
    return out


def _chart_summary(title: str, items: list, mark, darker: list) -> str:
    """The chart in words, for screen readers: each value's chance, the
    marked value, and which bars are darker."""
    summary = f"{title}: " + ", ".join(f"{k} {pct(v)}" for k, v in items[:40])
    if mark is not None:
        summary += f"; marked: {mark}"
    if darker and len(darker) < len(items):
        run = darker[-1][0] - darker[0][0] == len(darker) - 1
        summary += "; drawn darker: " + (f"{darker[0][1]} to {darker[-1][1]}" if run and len(darker) > 3
                                         else ", ".join(str(k) for _, k in darker[:40]))
    return summary


#: Left, bottom and top padding of a chart, in its own units.
CHART_PAD = (8, 26, 24)


def bar_chart(dist: dict, *, title: str, mark=None, highlight=None, width: int = 560,
              height: int = 170, label_every: int | None = None) -> str:
    """An SVG bar chart of ``{value: p}``. ``mark`` is a value to flag (e.g.
    the median, drawn with a dashed line and named in the text);
    ``highlight`` a set of values (or a predicate) drawn darker, e.g. the
    values that meet a target. Each bar has a tooltip and the chart a text
    summary for screen readers.

    >>> svg = bar_chart({1: 0.25, 2: 0.75}, title="Score", mark=2)
    >>> svg.count('class="bar') == 2 and "median" not in svg and "marked: 2" in svg
    True
    >>> "drawn darker: 3 to 6" in bar_chart({v: 1 / 6 for v in range(1, 7)}, title="d6", highlight=lambda v: v >= 3)
    True
    """
    items = [(k, float(v)) for k, v in dist.items() if _is_num(v)]
    if not items:
        return ""
    n = len(items)
    pad_l, pad_b, pad_t = CHART_PAD
    every = label_every or max(1, int(n / 24) + (1 if n > 24 else 0))
    scale = (height - pad_b - pad_t) / (max(v for _, v in items) or 1.0)
    lit = [_lit(k, highlight) for k, _ in items]
    bars = "".join(_bar(i, k, v, bw=(width - pad_l * 2) / n, scale=scale, height=height, lit=lit[i],
                        marked=k == mark, tick=i % every == 0) for i, (k, v) in enumerate(items))
    summary = _chart_summary(title, items, mark, [(i, k) for i, (k, _) in enumerate(items) if lit[i]])
    return (f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{esc(summary)}">'
            f'<text class="chart-title" x="{pad_l}" y="16">{esc(title)}</text>{bars}</svg>')


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_HEBREW_RUN = re.compile(r"[\u0590-\u05FF\uFB1D-\uFB4F]+(?:[ ,]+[\u0590-\u05FF\uFB1D-\uFB4F]+)*")


def bidi_text(text) -> str:
    """Escape ``text`` and isolate each run of Hebrew in ``<bdi lang="he">``,
    so that the numbers and words after it keep their order in an
    English line ("אשר: 2 of 3 needed", not "2 :אשר of 3 needed").

    >>> bidi_text("אשר: 2 of 3 <needed>")
    '<bdi lang="he">אשר</bdi>: 2 of 3 &lt;needed&gt;'
    """
    return _HEBREW_RUN.sub(lambda m: f'<bdi lang="he">{m.group(0)}</bdi>', esc(text))


def history_entry(entry: dict, index: int, title: str, summary: str, roller: str = "", how: str = "",
                  so_far: bool = False) -> str:
    """One roll-history item: small dice, outcome, system, label, time, and
    who rolled it and how it came ("rolled here", "fair roll, verified"…).
    ``so_far``: a step may still change the outcome (the turn goes on).

    >>> item = history_entry({"result": {"outcome": "failure"}}, 1, "Milhamah", "", so_far=True)
    >>> re.search(r'class="h-outcome[^>]*>([^<]*)<', item).group(1)
    'So far: failure'
    """
    result = entry.get("result") or {}
    dice = result.get("dice") if isinstance(result.get("dice"), list) else []
    label = entry.get("label") or ""
    when = entry.get("time") or ""
    outcome = result.get("outcome", "")
    return (f'<li class="history-item" data-history-entry="{index}">'
            f'<button type="button" class="history-open" data-history-open="{index}">'
            f'<span class="h-head"><span class="h-system">{esc(title)}</span>'
            f'<time>{esc(when)}</time></span>'
            f'<span class="h-outcome outcome-{esc(outcome)}">{"So far: " * so_far}'
            f'{esc(outcome_name(outcome).lower() if so_far else outcome_name(outcome))}</span>'
            f'<span class="h-summary">{bidi_text(summary)}</span>'
            f'{f"<span class=h-label>{esc(label)}</span>" if label else ""}'
            f'{draw.thumbnails(dice)}{_by_how(roller, how)}</button></li>')


def _by_how(roller: str, how: str) -> str:
    """Who rolled it, how it came: "by Dana · fair roll, verified"."""
    parts = ([f'<span class="h-by">by {esc(roller)}</span>'] if roller else []) + \
        ([f'<span class="h-how">{esc(how)}</span>'] if how else [])
    return f'<span class="h-foot">{" · ".join(parts)}</span>' if parts else ""


def scroll_box(label: str) -> str:
    """The opening tag of a box that scrolls a wide table sideways. It is a
    named region in the tab order, so a keyboard can scroll it too (axe:
    scrollable-region-focusable).

    >>> scroll_box("Odds <by> level")
    '<div class="table-scroll" role="region" tabindex="0" aria-label="Odds &lt;by&gt; level">'
    """
    return f'<div class="table-scroll" role="region" tabindex="0" aria-label="{esc(label)}">'


def error_html(message: str) -> str:
    return f'<p class="error" role="alert">{esc(message)}</p>'


def choices_html(result: dict, label, figures, title: str = "Your choices", same=None) -> str:
    """Every action the rules allow now, side by side (``result["choices"]``),
    each a button that takes it (``data-act="choice-<i>"``, see
    ``tab.choice_action``) with its odds when played best afterwards; best
    play's (``result["advice"]``) is marked. ``label(action)`` names an
    action, ``figures(choice)`` words its odds (plain text; both escaped
    here). ``same(choice)``, if given, names what a choice looks like to
    the player: a choice that looks like an earlier one is not drawn twice
    (e.g. two pairs of the same faces). Nothing when there is no choice to
    make.

    >>> r = {"advice": {"do": "tiebreak"}, "choices": [{"action": {"do": "tiebreak"}, "outcome": {}},
    ...      {"action": {"do": "accept"}, "outcome": {}}]}
    >>> html = choices_html(r, lambda a: a["do"].title(), lambda c: "win 63.5 %")
    >>> html.count("data-act="), 'data-advised data-act="choice-0"' in html, "best play" in html
    (2, True, True)
    >>> choices_html({"choices": []}, str, str)
    ''
    >>> choices_html(r, lambda a: "Keep", str, same=lambda c: 1).count("data-act=")
    1
    """
    choices = (result or {}).get("choices") or []
    if not choices:
        return ""
    advice = (result or {}).get("advice")
    items, seen = [], []
    for i, c in enumerate(choices):
        if same is not None:
            if same(c) in seen:
                continue
            seen.append(same(c))
        best = advice is not None and c.get("action") == advice
        mark = ' <span class="choice-best">best play</span>' if best else ""
        items.append(f'<li class="choice{" is-advised" if best else ""}">'
                     f'<button type="button" class="choice-btn"{" data-advised" if best else ""} '
                     f'data-act="choice-{i}">{esc(label(c["action"]))}</button>'
                     f'<span class="choice-odds">{esc(figures(c))}</span>{mark}</li>')
    return (f'<div class="choices" role="group" aria-label="{esc(title)}"><p class="choices-title">{esc(title)}</p>'
            f'<ul class="choice-list">{"".join(items)}</ul></div>')
