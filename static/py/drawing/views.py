"""Small pure HTML pieces the tabs share: escaping, percentages, the
outcome banner, the explanation, a distribution chart, a history entry.
Every bit of text that reaches the page goes through ``esc``.

>>> esc('<img src=x onerror="alert(1)">')
'&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
"""

from __future__ import annotations

import re

import rules
from drawing import draw
from drawing.draw import escape
from rules.dice import is_number, percent

__all__ = ["esc", "pct", "outcome_name", "outcome_band", "outcome_banner", "explain_list", "bar_chart",
           "history_entry", "error_html", "scroll_box", "bidi_text", "choices_html"]


def esc(text) -> str:
    return escape("" if text is None else str(text))


def pct(p) -> str:
    """A probability as a percentage, with one decimal, never a misleading
    0 % or 100 % for an outcome that can happen or fail: the rules' own
    words for a chance (``rules.dice.percent``), so the page and the why
    lines agree.

    >>> pct(0.4213), pct(0.00001), pct(1.0), pct(0.99999)
    ('42.1 %', '< 0.1 %', '100 %', '> 99.9 %')
    """
    return percent(p)


#: Outcome names that read better with an article (Milhamah's one wording).
_OUTCOME_WORDS = {"success_at_cost": "success at a cost", "success_with_bonus": "success with a bonus"}


def outcome_name(outcome) -> str:
    """'success_at_cost' → 'Success at a cost', 'double_botch' → 'Double botch'.

    >>> outcome_name("success_with_bonus")
    'Success with a bonus'
    """
    s = _OUTCOME_WORDS.get(outcome, str(outcome or "").replace("_", " ").strip())
    return s[:1].upper() + s[1:]


#: Outcomes are coloured in this many bands, worst (0) to best.
BANDS = 5


def outcome_band(system, outcome) -> str:
    """The class that colours ``outcome``: its rank in the game's
    ``rules.OUTCOMES`` (worst to best) scaled to ``BANDS`` bands, so any
    game's outcomes get colours from its own order, never from their
    names; none for an outcome the game does not name.

    >>> [outcome_band("milhamah", o) for o in rules.OUTCOMES["milhamah"]]
    ['outcome-band-0', 'outcome-band-1', 'outcome-band-2', 'outcome-band-3', 'outcome-band-4', 'outcome-band-4']
    >>> outcome_band("alkemy", "tie"), outcome_band("alkemy", "nonsense"), outcome_band(None, "tie")
    ('outcome-band-2', '', '')
    """
    names = rules.OUTCOMES.get(system, ()) if isinstance(system, str) else ()
    if outcome not in names:
        return ""
    rank, last = names.index(outcome), len(names) - 1
    return f"outcome-band-{min(BANDS - 1, BANDS * rank // last) if last else BANDS // 2}"


def outcome_banner(system: str, outcome: str, headline: str = "", name: str = "") -> str:
    """The outcome line: its name (or ``name``), coloured by its rank, and
    the headline beside it."""
    o = esc(outcome)
    return (f'<p class="outcome {outcome_band(system, outcome)}" data-outcome="{o}"><strong class="outcome-name">'
            f'{esc(name or outcome_name(outcome))}</strong>{" " + esc(headline) if headline else ""}</p>')


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


def _bars(items: list, lit: list, mark, every: int, *, bw: float, scale: float, height: int) -> str:
    """Every bar of the chart: darker where ``lit``, the ``mark`` dashed,
    a tick label every ``every`` bars."""
    return "".join(_bar(i, k, v, bw=bw, scale=scale, height=height, lit=lit[i], marked=k == mark,
                        tick=i % every == 0) for i, (k, v) in enumerate(items))


def _chart_summary(title: str, items: list, mark, darker: list) -> str:
    """The chart in words, for screen readers: each value's chance, the
    marked value, and which bars are darker."""
    summary = f"{title}: " + ", ".join(f"{k} {pct(v)}" for k, v in items[:40])
    if mark is not None:
        summary += f"; marked: {mark}"
    if darker and len(darker) < len(items):
        summary += "; drawn darker: " + _darker_words(darker)
    return summary


def _darker_words(darker: list) -> str:
    """The darker bars' values (``(index, value)`` pairs) in words: a run
    of more than three neighbours as "3 to 6", else each one."""
    run = darker[-1][0] - darker[0][0] == len(darker) - 1
    if run and len(darker) > 3:
        return f"{darker[0][1]} to {darker[-1][1]}"
    return ", ".join(str(k) for _, k in darker[:40])


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
    items = _numbers(dist)
    if not items:
        return ""
    n = len(items)
    pad_l, pad_b, pad_t = CHART_PAD
    every = label_every or _tick_every(n)
    scale = _scale(items, height)
    lit = [_lit(k, highlight) for k, _ in items]
    bars = _bars(items, lit, mark, every, bw=(width - pad_l * 2) / n, scale=scale, height=height)
    summary = _chart_summary(title, items, mark, [(i, k) for i, (k, _) in enumerate(items) if lit[i]])
    return (f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{esc(summary)}">'
            f'<text class="chart-title" x="{pad_l}" y="16">{esc(title)}</text>{bars}</svg>')


def _scale(items: list, height: int) -> float:
    """Chart units per unit of chance: the highest bar fills the room
    between the bottom and top paddings."""
    _, pad_b, pad_t = CHART_PAD
    return (height - pad_b - pad_t) / (max(v for _, v in items) or 1.0)


def _tick_every(n: int) -> int:
    """Which bars of ``n`` get a tick label: every one up to 24 bars, then
    every second, third… so that no more than 24 labels sit under the chart."""
    return max(1, int(n / 24) + (1 if n > 24 else 0))


def _numbers(dist: dict) -> list:
    """The chart's ``(value, chance)`` pairs, chances as floats; a value
    whose chance is not a number is left out."""
    return [(k, float(v)) for k, v in dist.items() if _is_num(v)]


def _is_num(v) -> bool:
    return is_number(v)


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
    return (f'<li class="history-item" data-history-entry="{index}">'
            f'<button type="button" class="history-open" data-history-open="{index}">'
            f'<span class="h-head"><span class="h-system">{esc(title)}</span>'
            f'<time>{esc(when)}</time></span>'
            f'{_outcome_span(result, so_far)}'
            f'<span class="h-summary">{bidi_text(summary)}</span>'
            f'{f"<span class=h-label>{esc(label)}</span>" if label else ""}'
            f'{draw.thumbnails(dice)}{_by_how(roller, how)}</button></li>')


def _outcome_span(result: dict, so_far: bool) -> str:
    """A history entry's outcome, coloured by its rank; "So far: …" while
    a step may still change it."""
    outcome = result.get("outcome", "")
    name = outcome_name(outcome)
    return (f'<span class="h-outcome {outcome_band(result.get("system"), outcome)}">{"So far: " * so_far}'
            f'{esc(name.lower() if so_far else name)}</span>')


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


#: The marks a choice may carry (``rules.dice.MARKS``), in words.
MARK_WORDS = {"best_play": "best play", "best_chance": "best chance", "safest": "safest"}


def _mark_names(c: dict, advised: bool) -> list:
    """The marks of a choice that have words; the advised one is best
    play's when it names none."""
    return [m for m in (c.get("marks") or (["best_play"] if advised else [])) if m in MARK_WORDS]


def _marks(c: dict, advised: bool) -> str:
    marks = _mark_names(c, advised)
    if not marks:
        return ""
    return (f' <span class="choice-marks" data-marks="{esc(" ".join(marks))}">'
            f'{esc(" · ".join(MARK_WORDS[m] for m in marks))}</span>')


def _card(i: int, c: dict, label, figures, advised: bool) -> str:
    """One choice: a button holding its words, and under them (in the same
    button, so a card is one tap target of one height) its odds and marks."""
    cls = "choice-main is-advised" if advised else "choice"
    tag = "div" if advised else "li"
    return (f'<{tag} class="{cls}"><button type="button" class="choice-btn"{" data-advised" if advised else ""} '
            f'data-act="choice-{i}"><span class="choice-label">{esc(label(c))}</span>'
            f'<span class="choice-odds">{esc(figures(c))}{_marks(c, advised)}</span></button></{tag}>')


def choices_html(result: dict, label, figures, title: str = "Your choices", same=None, groups=None,
                 extra: str = "") -> str:
    """The decision at hand on one screen (``result["choices"]``): best
    play's choice (``result["advice"]``) as the one main button
    (``data-advised``), the why line beside it (``result["why"]``), and
    every other allowed action beside them, each a button that takes it
    (``data-act="choice-<i>"``, see ``tab.choice_action``) with its odds
    when played best afterwards and its marks (best play, and on a close
    call best chance and safest: ``choice["marks"]``). ``label(choice)``
    names a choice (None: the rules' ``label``), ``figures(choice)`` words
    its odds (plain text; both escaped here). ``same(choice)``, if given,
    names what a choice looks like to the player: a choice that looks like
    an earlier one is not drawn twice (e.g. two pairs of the same faces).
    ``groups``, if given, lays the other choices out in columns: a list of
    (heading, predicate). ``extra`` (HTML) follows the other choices (the
    player's own choice). Nothing when there is no choice to make.

    >>> r = {"advice": {"do": "tiebreak"}, "why": "“Tie-break” over “Accept”: win 63.5 % against 0 %.",
    ...      "choices": [{"action": {"do": "accept"}, "label": "Accept", "marks": []},
    ...                  {"action": {"do": "tiebreak"}, "label": "Tie-break", "marks": ["best_play"]}]}
    >>> html = choices_html(r, None, lambda c: "win 63.5 %")
    >>> html.count("data-act="), 'data-advised data-act="choice-1"' in html, "best play" in html, "data-why" in html
    (2, True, True, True)
    >>> html.index("choice-1") < html.index("choice-0")  # the advised one first, the main button
    True
    >>> choices_html({"choices": []}, str, str)
    ''
    >>> choices_html(r, lambda c: "Keep", str, same=lambda c: 1).count("data-act=")
    1
    """
    result = result or {}
    choices = result.get("choices") or []
    if not choices:
        return ""
    label = label or _rules_label
    main, rest = _main_and_rest(choices, result.get("advice"), same, label, figures)
    return (f'<div class="choices" role="group" aria-label="{esc(title)}" data-choices>'
            f'<p class="choices-title">{esc(title)}</p>{main}{_why_html(result.get("why"), main)}'
            f'{_others(rest, label, figures, groups)}{extra}</div>')


def _why_html(why, main: str) -> str:
    """Best play's reason, beside its card; none without both."""
    return f'<p class="choice-why" data-why>Why: {esc(why)}</p>' if why and main else ""


def _rules_label(c: dict) -> str:
    """A choice's name as the rules give it: its label, else its action."""
    return c.get("label") or c["action"].get("do", "")


def _main_and_rest(choices: list, advice, same, label, figures) -> tuple[str, list]:
    """Best play's card (none without advice), and the other choices as
    ``(index, choice)``, each drawn once (``_distinct``)."""
    main, rest = "", []
    for i in _distinct(choices, advice, same):
        if advice is not None and choices[i].get("action") == advice:
            main = _card(i, choices[i], label, figures, True)
        else:
            rest.append((i, choices[i]))
    return main, rest


def _distinct(choices: list, advice, same) -> list[int]:
    """The choices' indices, best play's first, leaving out a choice that
    looks (``same``) like one before it."""
    order = sorted(range(len(choices)), key=lambda i: choices[i].get("action") != advice)
    if same is None:
        return order
    kept, seen = [], []
    for i in order:
        if same(choices[i]) not in seen:
            seen.append(same(choices[i]))
            kept.append(i)
    return kept


def _others(rest: list, label, figures, groups) -> str:
    """The choices other than best play's, in one list or in columns."""
    if not groups:
        items = "".join(_card(i, c, label, figures, False) for i, c in rest)
        return f'<ul class="choice-list">{items}</ul>' if items else ""
    return _columns(rest, label, figures, groups)


def _columns(rest: list, label, figures, groups) -> str:
    """The other choices in columns, one per group that holds any."""
    cols = [_column(heading, [(i, c) for i, c in rest if belongs(c)], label, figures) for heading, belongs in groups]
    return f'<div class="choice-cols">{"".join(cols)}</div>' if any(cols) else ""


def _column(heading: str, rest: list, label, figures) -> str:
    """One column of other choices under its heading; none when empty."""
    items = "".join(_card(i, c, label, figures, False) for i, c in rest)
    if not items:
        return ""
    return (f'<div class="choice-col"><p class="choice-col-title">{esc(heading)}</p>'
            f'<ul class="choice-list">{items}</ul></div>')
