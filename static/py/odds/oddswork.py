"""The odds panel's work, done beside the page (docs/SPEED.md, "Odds
beside the page").

The page rolls with ``rules.roll(..., advise=False)``, draws the dice and
the outcome at once, and hands this work to a second interpreter in a Web
Worker (``static/js/odds-worker.mjs``): best play's advice for the result
on show (``rules.advise``), then the odds questions the tab asks of the
result with that advice (``tab.answer``). Where the Worker cannot start,
the page calls the same ``work`` itself, so both routes give one answer.
Pure: JSON-able dicts in and out, no browser.

>>> import rules
>>> from rules.dice import ScriptedRng
>>> r = rules.roll("jadeclaw", {"dice": "d8"}, ScriptedRng([5]), advise=False)
>>> got = work("jadeclaw", r["spec"], r, {"selected": []}, advise=True)
>>> got["advice"]["advice"], sorted(got["answers"]) == sorted(ui_of("jadeclaw").questions(r["spec"], r, {}))
(None, True)
>>> unpack(answer(pack({"serial": 7, "system": "nope", "spec": {}})))["error"][:20]
'system: unknown game'

Questions and answers travel between the two interpreters pickled (both
are the same Python): an odds table keyed by numbers, a tuple or a
Fraction arrives as it left, which JSON would not keep.
"""

from __future__ import annotations

import base64
import importlib
import pickle
import traceback

import rules
from rules.dice import SpecError
from tabs import tab

__all__ = ["work", "answer", "ui_of", "needs_advice", "merge_advice", "advised_step", "same_result", "pack", "unpack"]

#: Step verbs (before any ``:side``) that take best play's advice when no
#: die is tapped: pressed before the Worker's advice has come, the page
#: works the advice out itself first (``trayview.do_action``).
ADVISED_VERBS = frozenset({"advice", "reroll"})


def ui_of(system: str):
    """The tab module of ``system`` (``tabs.ui_<system>``), checked as ``page`` checks it."""
    if system not in rules.SYSTEMS:
        raise SpecError("system", f"unknown game {system!r}")
    return tab.check(importlib.import_module(f"tabs.ui_{system}"))


def needs_advice(result: dict | None) -> bool:
    """A result rolled with ``advise=False`` carries no ``advice`` yet.

    >>> needs_advice({"stages": []}), needs_advice({"stages": [], "advice": None}), needs_advice(None)
    (True, False, False)
    """
    return isinstance(result, dict) and "advice" not in result


def advised_step(verb: str, ui: dict) -> bool:
    """Whether the step ``verb`` takes best play's advice (a choice button,
    or an advised verb with no die tapped).

    >>> advised_step("choice-1", {}), advised_step("reroll:opponent", {"selected": []})
    (True, True)
    >>> advised_step("reroll", {"selected": ["2"]}), advised_step("stand", {})
    (False, False)
    """
    name = str(verb).partition(":")[0]
    return name.startswith(tab.CHOICE) or (name in ADVISED_VERBS and not (ui or {}).get("selected"))


def pack(obj) -> str:
    """A question or an answer as text for ``postMessage``.

    >>> unpack(pack({1: (2, 3)}))
    {1: (2, 3)}
    """
    return base64.b64encode(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)).decode("ascii")


def unpack(text: str):
    """The inverse of ``pack`` (only ever given what ``pack`` made, by our own Worker)."""
    return pickle.loads(base64.b64decode(text))


def same_result(a: dict | None, b: dict | None) -> bool:
    """Whether ``a`` and ``b`` are the same roll (the same stages; one may
    have its advice merged in already).

    >>> same_result({"stages": [1]}, {"stages": [1], "advice": None}), same_result(None, {"stages": []})
    (True, False)
    """
    return a is b or (isinstance(a, dict) and isinstance(b, dict) and a.get("stages") == b.get("stages"))


def merge_advice(result: dict, advice: dict) -> dict:
    """``result`` with best play's keys (``rules.advise``) added, as
    ``rules.roll`` attaches them.

    >>> merge_advice({"stages": [1]}, {"advice": None, "choices": []})
    {'stages': [1], 'advice': None, 'choices': []}
    """
    return {**result, **advice}


def work(system: str, spec: dict, result: dict | None, ui: dict, advise: bool) -> dict:
    """``{"advice": dict | None, "answers": dict}``: the advice for
    ``result`` when ``advise`` (None otherwise, or when the rules refuse it),
    and the answers to the questions the tab asks of ``result`` with that
    advice, keyed as ``questions`` names them."""
    ui_mod = ui_of(system)
    advice = None
    if advise and needs_advice(result):
        try:
            advice = rules.advise(system, result["spec"], result)
        except SpecError:
            advice = None
        if advice is not None:
            result = merge_advice(result, advice)
    answers = tab.answer(system, spec, ui_mod.questions(spec, result, ui))
    return {"advice": advice, "answers": answers}


def answer(message: str) -> str:
    """The Worker's entry: a question ``{"serial", "system", "spec",
    "result", "ui", "advise"}`` in (``pack``ed), ``{"serial", "advice",
    "answers"}`` out, or ``{"serial", "error"}`` (the page then works the
    odds out itself)."""
    serial = None
    try:
        m = unpack(message)
        serial = m.get("serial")
        got = work(m["system"], m["spec"], m.get("result"), m.get("ui") or {}, bool(m.get("advise")))
        return pack({"serial": serial, **got})
    except SpecError as e:
        return pack({"serial": serial, "error": str(e)})
    except Exception:  # noqa: BLE001 - a bug: the page answers on its own thread and logs nothing alarming
        return pack({"serial": serial, "error": traceback.format_exc(limit=3)})
