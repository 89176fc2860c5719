"""The tabs as tests see them: each game's tab module, taken from the
registry (``tab_modules``), and the odds panel of a tab as the page builds
it: the spec normalized once, the tab's questions answered by ``tab.answer``
(the one place that calls ``rules.odds``), the answers rendered. Tests that
want canned odds call ``render_odds`` directly instead."""

from __future__ import annotations

import importlib

import rules
from tabs import tab


def tab_modules() -> tuple:
    """Each game's tab module (``static/py/tabs/ui_<game>.py``), in the
    registry's order (``rules.SYSTEMS``): a game added to the registry is
    in every suite that reads this, with no list to copy."""
    return tuple(importlib.import_module(f"tabs.ui_{system}") for system in rules.SYSTEMS)


def odds_panel(ui, spec: dict, result: dict | None = None, state: dict | None = None) -> str:
    spec = rules.normalize(ui.SYSTEM, spec)
    state = state if state is not None else {"selected": []}
    answers = tab.answer(ui.SYSTEM, spec, ui.questions(spec, result, state))
    return ui.render_odds(spec, answers, result)
