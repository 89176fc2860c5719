"""The odds panel of a tab as the page builds it: the spec normalized once,
the tab's questions answered by ``tab.answer`` (the one place that calls
``rules.odds``), the answers rendered. Tests that want canned odds call
``render_odds`` directly instead."""

from __future__ import annotations

import rules
import tab


def odds_panel(ui, spec: dict, result: dict | None = None, state: dict | None = None) -> str:
    spec = rules.normalize(ui.SYSTEM, spec)
    state = state if state is not None else {"selected": []}
    answers = tab.answer(ui.SYSTEM, spec, ui.questions(spec, result, state))
    return ui.render_odds(spec, answers, result)
