"""Placeholder for the milhamah tab (replace it): the tab says it is coming."""

from rules.dice import SpecError

SYSTEM = "milhamah"
PLACEHOLDER = True


def spec_from_form(fields):
    raise SpecError("_form", "this system is coming soon")


def form_values(spec):
    return {}


def render_result(result, ui):
    return ""


def action_for(verb, result, ui, fields):
    raise SpecError("_form", "this system is coming soon")


def render_odds(spec, result, ui):
    return ""


def summary(result):
    return ""
