"""The Fate dice tab: form fields to spec, result to HTML. Pure; no DOM.

The form (index.html, ``#form-fate``): ``skill`` and ``difficulty``,
number boxes from 0 to 8.

>>> spec_from_form({"skill": ["4"], "difficulty": ["3"]})
{'skill': '4', 'difficulty': '3'}
"""

from __future__ import annotations

from drawing import draw, views
from rules.dice import SpecError
from rules.fate import model as fate
from tabs import tab

SYSTEM = "fate"


def _one(fields: dict, name: str) -> str:
    return str((fields.get(name) or [""])[0]).strip()


def spec_from_form(fields: dict) -> dict:
    """The two number boxes as they are (the rules check them)."""
    return {name: _one(fields, name) for name in fate.KEYS}


def form_values(spec: dict) -> dict:
    """
    >>> form_values({"skill": 4, "difficulty": 3})
    {'skill': '4', 'difficulty': '3'}
    """
    return {name: str(spec[name]) for name in fate.KEYS}


def _invoke_open(result) -> bool:
    return isinstance(result, dict) and any(isinstance(a, dict) and a.get("do") == "invoke"
                                            for a in result.get("allowed") or [])


def in_progress(result: dict) -> bool:
    """The invoke is still open (the history reads "so far")."""
    return _invoke_open(result)


def questions(spec: dict, result, ui: dict) -> dict:
    """The odds of the roll; and of the invoke while it is open."""
    asked = {"roll": tab.before()}
    if _invoke_open(result):
        asked["invoke"] = tab.after(result, {"do": "invoke"})
    return asked


def _ladder_rows(o: dict) -> str:
    """One row a rung, in the ladder's order (the odds come keyed by name).

    >>> import re
    >>> re.findall(r'data-outcome="([a-z_]+)"', _ladder_rows({"outcome": {"tie": 0.25, "fail": 0.75}}))
    ['fail', 'tie', 'succeed', 'succeed_with_style']
    """
    best = (o.get("best") or {}).get("outcome") or {}
    return "".join(f'<tr data-outcome="{views.esc(k)}"><th scope="row">{views.esc(views.outcome_name(k))}</th>'
                   f'<td>{views.esc(views.pct(o["outcome"].get(k, 0)))}</td>'
                   f'<td>{views.esc(views.pct(best.get(k)))}</td></tr>' for k in fate.OUTCOMES)


def render_odds(spec: dict, answers: dict, result) -> str:
    """The ladder's odds, rolled plainly and with the invoke played best,
    and the chart of the total; what an open invoke would give."""
    o = answers["roll"]
    if "error" in o:
        return views.error_html(o["error"])
    table = ('<table class="fate-odds"><caption>Outcome</caption><tr><th scope="col">Rung</th>'
             '<th scope="col">One roll</th><th scope="col">Invoke played best</th></tr>'
             f'{_ladder_rows(o)}</table>')
    chart = views.bar_chart(o["value"], title=f"Total with skill {spec['skill']}",
                            highlight=lambda t: t >= spec["difficulty"])
    return f"<h3>Odds</h3>{table}{chart}{_invoke_odds(answers.get('invoke'))}"


def _invoke_odds(o) -> str:
    if not o:
        return ""
    if "error" in o:
        return views.error_html(o["error"])
    succeed = o["outcome"].get("succeed", 0) + o["outcome"].get("succeed_with_style", 0)
    return f'<p class="fate-invoke-odds">If you invoke: a success {views.esc(views.pct(succeed))}.</p>'


def _advice(result: dict) -> str:
    """The invoke's figures and best play, once the advice has come."""
    choices = result.get("choices") or []
    if not choices:
        return ""
    c = choices[0]
    best = "invoke" if result.get("advice") else "keep these dice"
    return (f'<p class="fate-advice">Rerolled, the dice are worth {c["rank"]:.2f} rungs on average; '
            f'this roll is worth {views.esc(result.get("rank_now"))}. Best play: {best}.</p>')


def render_result(result: dict, ui: dict) -> str:
    """The outcome, the four dice, the invoke while it is open, and why."""
    dice = [d for d in result.get("dice", []) if isinstance(d, dict)]
    labels = [f"Fate die showing {d.get('face')}" for d in dice]
    # Each die carries its ``data-die`` marker (its place); the dice take no tap.
    row = draw.tray(dice, [str(i) for i in range(len(dice))], caption="Your dice", labels=labels, tappable=False)
    step = ""
    if _invoke_open(result):
        step = ('<div class="fate-actions"><button type="button" data-act="invoke">Invoke: reroll all four'
                f'</button></div>{_advice(result)}')
    headline = f"{result.get('value')} against {(result.get('spec') or {}).get('difficulty')}"
    return (views.outcome_banner(SYSTEM, result.get("outcome", ""), headline) + row + step
            + views.explain_list(result.get("explain")))


def action_for(verb: str, result: dict, ui: dict, fields: dict) -> dict:
    """The invoke (a choice button takes its choice's action).

    >>> action_for("invoke", {}, {}, {})
    {'do': 'invoke'}
    """
    choice = tab.choice_action(verb, result)
    if choice is not None:
        return choice
    if verb != "invoke":
        raise SpecError("action", f"{fate.TITLE} has no step {verb[:20]!r}")
    return {"do": "invoke"}


def fields_after(result: dict, fields: dict) -> None:
    return None


def render_reference() -> str:
    rungs = "".join(f"<li>{views.esc(views.outcome_name(o))}</li>" for o in fate.OUTCOMES)
    return (f"<summary>{views.esc(fate.TITLE)}: the ladder</summary>"
            f"<p>Four Fate dice (−, 0, +) and the skill, against the difficulty: below it a fail, on it a "
            f"tie, above it a success, {fate.STYLE} or more above a success with style. Once a roll you may "
            f"invoke to reroll all four.</p><ol>{rungs}</ol>")


def summary(result: dict) -> str:
    """One line for the roll history.

    >>> import rules
    >>> summary(rules.roll("fate", {"skill": 2, "difficulty": 3}, rules.ScriptedRng([6, 5, 3, 1])))
    'Skill 2 + 4dF: 3 against 3'
    """
    spec = result.get("spec") or {}
    return f"Skill {spec.get('skill')} + {fate.DICE}dF: {result.get('value')} against {spec.get('difficulty')}"
