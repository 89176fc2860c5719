"""The Jadeclaw tab: form fields to spec, result to HTML. Pure; no DOM.

A first cut that wires the page end to end; the Jadeclaw issue builds on it.
"""

from __future__ import annotations

import draw
import rules
import views
from rules.dice import SpecError, format_pool

SYSTEM = "jadeclaw"


def _one(fields: dict, name: str, default: str = "") -> str:
    v = fields.get(name) or [default]
    return v[0]


def spec_from_form(fields: dict) -> dict:
    return {"kind": "simple", "dice": _one(fields, "dice", "d12 & d8")}


def form_values(spec: dict) -> dict:
    return {"dice": format_pool(spec.get("dice", []))}


def render_result(result: dict, ui: dict) -> str:
    dice = result["dice"]
    keys = [str(i) for i in range(len(dice))]
    return (views.outcome_banner(SYSTEM, result["outcome"], f"Score {result['value']}")
            + draw.tray(dice, keys, selected=ui.get("selected", ()), caption="Your dice")
            + views.explain_list(result.get("explain")))


def action_for(verb: str, result: dict, ui: dict, fields: dict) -> dict:
    raise SpecError("action", "Jadeclaw allows no step after a roll")


def render_odds(spec: dict, result, ui: dict) -> str:
    o = rules.odds(SYSTEM, spec)
    return views.bar_chart(o["value"], title=f"Score with {format_pool(spec['dice'])}")


def summary(result: dict) -> str:
    return f"{format_pool(result['spec']['dice'])}: Score {result['value']}"
