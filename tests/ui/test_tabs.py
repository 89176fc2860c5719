"""Every tab module has the shape of ``tab.Tab`` and draws only what it is
given: its odds come from the answers it is handed, never from calling the
rules itself."""

from __future__ import annotations

import pytest

import rules
from rules.system import check
from tab_registry import tab_modules
from tabs import tab

TABS = tab_modules()


def test_the_tabs_and_the_systems_are_the_same_list():
    """One tab module per system, in tab order (page.TABS relies on it)."""
    assert tuple(ui.SYSTEM for ui in TABS) == rules.SYSTEMS


@pytest.mark.parametrize("ui", TABS, ids=lambda u: u.SYSTEM)
def test_each_tab_has_the_tab_shape(ui):
    assert tab.check(ui) is ui
    assert isinstance(ui, tab.Tab)


def test_a_module_without_the_shape_is_refused():
    """A tab missing a function is caught at start-up, naming what it lacks."""
    import types
    with pytest.raises(TypeError, match="questions"):
        tab.check(types.SimpleNamespace(SYSTEM="x", spec_from_form=None))


@pytest.mark.parametrize("system", rules.SYSTEMS)
def test_each_system_module_is_declared(system):
    """rules builds SYSTEMS, TITLES and OUTCOMES from the modules' own names."""
    mod = rules.MODULES[system]
    assert check(mod) is mod
    assert mod.NAME == system
    assert rules.TITLES[system] == mod.TITLE
    assert rules.OUTCOMES[system] == mod.OUTCOMES
    assert rules.default_spec(system) == mod.normalize(dict(mod.DEFAULT_SPEC))


@pytest.mark.parametrize("ui", TABS, ids=lambda u: u.SYSTEM)
def test_the_odds_panel_shows_a_refused_question_and_no_traceback(ui):
    """Every question answered with the rules' refusal: the panel says so
    (escaped), drawing nothing from elsewhere."""
    spec = rules.default_spec(ui.SYSTEM)
    result = rules.roll(ui.SYSTEM, spec, rules.ScriptedRng([1] * 64))
    for res in (None, result):
        qs = ui.questions(spec, res, {"selected": []})
        assert qs, "a tab always asks at least one question"
        html = ui.render_odds(spec, {name: {"error": "odds: <refused>"} for name in qs}, res)
        assert "&lt;refused&gt;" in html and "<refused>" not in html


@pytest.mark.parametrize("ui", TABS, ids=lambda u: u.SYSTEM)
def test_the_odds_panel_draws_the_figures_it_is_given(ui):
    """Canned answers with a marked probability reach the panel: the tab
    draws the answers, not odds of its own."""
    spec = rules.default_spec(ui.SYSTEM)
    qs = ui.questions(spec, None, {"selected": []})
    real = tab.answer(ui.SYSTEM, spec, qs)
    assert all("error" not in a for a in real.values())
    canned = {}
    for name, a in real.items():
        a = dict(a)
        a["outcome"] = {k: (0.4321 if i == len(a["outcome"]) - 1 else 0.0) for i, k in enumerate(a["outcome"])}
        a["value"] = {k: (1.0 if i == 0 else 0.0) for i, k in enumerate(a["value"])}
        canned[name] = a
    assert ui.render_odds(spec, real, None) != ui.render_odds(spec, canned, None)
