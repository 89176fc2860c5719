"""The shape every tab's module has, and the one place the page asks the
rules for odds.

A tab module (``ui_<system>.py``) only turns a form into a spec and data
into HTML; it never calls ``rules.odds`` itself. It says which odds it
needs (``questions``); ``main.py`` asks them through ``answer`` and hands
the answers back to ``render_odds``. So a tab can be tested with canned
odds, and a sixth game is a tab module plus one line in ``page.TABS``
(docs/adding-a-game.md).

A question is a dict: ``{}`` for the odds of the roll in the form,
``{"result": r, "action": a}`` for the odds of a step after a roll, or
``{"spec": s}`` for the odds of another spec (a what-if). ``answer`` gives
each question its odds, or ``{"error": message}`` when the rules refuse it
(e.g. a stale result), so one bad question never hides the others.

>>> import rules
>>> spec = rules.normalize("jadeclaw", {"dice": "d8"})
>>> answers = answer("jadeclaw", spec, {"now": before(), "bad": after({"stages": []}, {"do": "x"})})
>>> round(sum(answers["now"]["outcome"].values()), 9), sorted(answers["bad"])
(1.0, ['error'])
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol, runtime_checkable

import rules
from rules.dice import SpecError

__all__ = ["Tab", "before", "after", "what_if", "answer", "check", "Reading", "read_form", "NOT_A_NUMBER",
           "CHOICE", "choice_action", "in_progress", "empty_numbers"]

#: What a number box says when it holds text that is not a number (the
#: browser then reports its value as "", which would read as the default).
NOT_A_NUMBER = "must be a number: what is typed there is not one"


@runtime_checkable
class Tab(Protocol):
    """A tab's module. Every function is pure (no DOM): dicts in, HTML text
    (every text escaped) or dicts out."""

    SYSTEM: str

    def spec_from_form(self, fields: dict) -> dict:
        """The form's fields (name -> [values], as FormData gives them) as a
        spec; ``main`` normalizes it. A SpecError names the field."""

    def form_values(self, spec: dict) -> dict:
        """Control name -> value, to fill the form from a spec."""

    def questions(self, spec: dict, result: dict | None, ui: dict) -> dict:
        """The odds this tab shows now, by name (see the module docstring)."""

    def render_odds(self, spec: dict, answers: dict, result: dict | None) -> str:
        """The odds panel from the answers to ``questions``."""

    def render_result(self, result: dict, ui: dict) -> str:
        """The dice tray, outcome, explanation and step buttons."""

    def action_for(self, verb: str, result: dict, ui: dict, fields: dict) -> dict:
        """The ``rules.act`` action for a step button (``data-act``)."""

    def fields_after(self, result: dict, fields: dict) -> dict | None:
        """Form changes a roll brings (e.g. a Condition gained), or None."""

    def render_reference(self) -> str:
        """The tab's reference tables (HTML), drawn once after start-up."""

    def summary(self, result: dict) -> str:
        """One line for the roll history."""


def check(module: Any) -> Any:
    """The module if it has every function of ``Tab``, else a TypeError
    naming what it lacks (caught when the page starts, and in the tests)."""
    names = ("SYSTEM", "spec_from_form", "form_values", "questions", "render_odds", "render_result",
             "action_for", "fields_after", "render_reference", "summary")
    missing = [n for n in names if not hasattr(module, n)]
    if missing:
        raise TypeError(f"tab {getattr(module, '__name__', module)!r} lacks {', '.join(missing)}")
    return module


def before() -> dict:
    """The odds of the roll in the form."""
    return {}


def after(result: dict, action: dict | None) -> dict:
    """The odds of a step after ``result`` (``action`` None: the system's
    default next step, e.g. Milhamah's advised reroll)."""
    return {"result": result, "action": action}


def what_if(spec: dict) -> dict:
    """The odds of another spec (e.g. one more bonus die)."""
    return {"spec": spec}


def answer(system: str, spec: dict, questions: dict) -> dict:
    """Ask ``rules.odds`` each question; a refused one answers
    ``{"error": message}``."""
    out = {}
    for name, q in questions.items():
        try:
            out[name] = rules.odds(system, q.get("spec", spec), q.get("result"), q.get("action"))
        except SpecError as e:
            out[name] = {"error": str(e)}
    return out


#: A choice button's ``data-act`` prefix: ``choice-<i>`` takes
#: ``result["choices"][i]["action"]`` (``views.choices_html`` draws them).
CHOICE = "choice-"


def choice_action(verb: str, result: dict | None) -> dict | None:
    """The action of a choice button (``choice-<i>``), or None when ``verb``
    is not one. An index the result has no choice for is a SpecError (a
    stale page); the action itself is checked by ``rules.act`` as any other.

    >>> r = {"choices": [{"action": {"do": "tiebreak"}}]}
    >>> choice_action("choice-0", r), choice_action("reroll", r)
    ({'do': 'tiebreak'}, None)
    >>> choice_action("choice-3", r)
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: action: that choice is no longer on offer; roll again
    """
    if not verb.startswith(CHOICE):
        return None
    choices = (result or {}).get("choices") or []
    i = verb[len(CHOICE):]
    if not _on_offer(i, choices):
        raise SpecError("action", "that choice is no longer on offer; roll again")
    return dict(choices[int(i)]["action"])


def _on_offer(i: str, choices: list) -> bool:
    """Does the index ``i`` (as the button's text gives it) name a choice of the result?"""
    return i.isdigit() and int(i) < len(choices) and isinstance(choices[int(i)], dict)


def in_progress(ui: Any, result: dict | None) -> bool:
    """May a step still change this result's outcome (the history then reads
    "so far")? A tab says so with an optional ``in_progress(result)``; a tab
    without steps has none.

    >>> from tabs import ui_jadeclaw; from tabs import ui_milhamah
    >>> in_progress(ui_milhamah, {"allowed": [{"do": "reroll"}]}), in_progress(ui_milhamah, {"allowed": []})
    (True, False)
    >>> in_progress(ui_jadeclaw, {"outcome": "success"}), in_progress(ui_milhamah, None)
    (False, False)
    """
    fn = getattr(ui, "in_progress", None)
    return bool(fn(result)) if callable(fn) and isinstance(result, dict) else False


class Reading(NamedTuple):
    """A form read through its tab and the rules."""

    spec: dict | None  #: the normalized spec of ``fields``, None if no fallback made it valid
    errors: list  #: every field's SpecError, in the order found
    fields: dict  #: the fields, each one at fault set back to its default
    filled: dict = {}  #: empty number boxes read as their default (name -> [value]), for the page to show


def empty_numbers(fields: dict, defaults: dict, numbers=()) -> dict:
    """docs/RULES-DECISIONS.md, "The page": an empty number box means the value the form opens
    with (every tab alike), and the box then shows it. A box that opens
    empty (Open Tale's target) stays empty: there, empty means "none".

    >>> empty_numbers({"x": [""], "target": [""], "y": ["2"]}, {"x": ["3"], "target": [""], "y": ["1"]},
    ...               ["x", "target", "y"])
    {'x': ['3']}
    """
    return {name: list(defaults[name]) for name in numbers
            if not "".join(fields.get(name, [])).strip() and "".join(defaults.get(name, [])).strip()}


def _boxes_defaulted(fields: dict, defaults: dict, filled: dict, bad) -> dict:
    """The fields with each empty number box read as its default
    (``filled``) and each box holding a non-number set back to its default."""
    return {**fields, **filled, **{name: list(defaults.get(name, [])) for name in bad}}


def read_form(ui: Any, fields: dict, defaults: dict, bad=(), numbers=()) -> Reading:
    """Read ``fields`` (name -> [values]) through ``ui.spec_from_form`` and
    ``rules.normalize``, finding *every* field at fault, not only the first:
    on a SpecError the error is noted and that field set back to its value
    in ``defaults`` (the form as it opens), and the form is read again. It
    stops when the spec is valid, or when the field at fault already holds
    its default (an error no single field explains), or after one try per
    field. ``bad`` names number boxes holding text that is not a number
    (the browser's ``validity.badInput``): each is an error too. ``numbers``
    names every number box: one left empty reads as its default
    (``empty_numbers``), named in ``Reading.filled``.

    >>> from tabs import ui_alkemy
    >>> defaults = {"mode": ["difficulty"], "characteristic": ["8"], "bonus": ["0"], "difficulty": ["15"]}
    >>> r = read_form(ui_alkemy, {**defaults, "characteristic": ["-5"], "bonus": ["50"]}, defaults)
    >>> [e.field for e in r.errors], r.fields["characteristic"], r.fields["bonus"], r.spec["bonus"]
    (['characteristic', 'bonus'], ['8'], ['0'], 0)
    >>> [str(e) for e in read_form(ui_alkemy, {**defaults, "bonus": [""]}, defaults, bad=["bonus"]).errors]
    ['bonus: must be a number: what is typed there is not one']
    """
    errors = [SpecError(name, NOT_A_NUMBER) for name in bad]
    filled = empty_numbers(fields, defaults, [n for n in numbers if n not in bad])
    fields = _boxes_defaulted(fields, defaults, filled, bad)
    for _ in range(len(set(fields) | set(defaults)) + 1):
        try:
            return Reading(rules.normalize(ui.SYSTEM, ui.spec_from_form(fields)), errors, fields, filled)
        except SpecError as e:
            errors.append(e)
            default = list(defaults.get(e.field, []))
            if fields.get(e.field, []) == default:
                break
            fields = {**fields, e.field: default}
    return Reading(None, errors, fields, filled)
