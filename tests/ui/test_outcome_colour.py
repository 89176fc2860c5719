"""An outcome's colour comes from its rank in its game's ``rules.OUTCOMES``
(worst to best), never from its name: the stylesheet names no outcome, so
a game added to the registry is coloured with no line of CSS."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import rules
from drawing import views
from tab_registry import tab_modules

STYLESHEET = Path(__file__).resolve().parents[2] / "static" / "css" / "app.css"
BAND = re.compile(r"outcome-band-(\d+)")
#: The stylesheet is not copied where the suite runs under Pyodide.
needs_css = pytest.mark.skipif(not STYLESHEET.exists(), reason="the stylesheet is not here (Pyodide's copy)")


def css() -> str:
    return STYLESHEET.read_text(encoding="utf-8")


def band(system: str, outcome: str) -> int:
    return int(BAND.fullmatch(views.outcome_band(system, outcome)).group(1))


@needs_css
def test_the_stylesheet_names_no_outcome():
    """No rule of app.css is keyed on an outcome's name (a sixth game's
    "fail" would be left grey): every outcome class there is a band."""
    named = {o for names in rules.OUTCOMES.values() for o in names}
    classes = set(re.findall(r"\.outcome-([a-z0-9_-]+)", css()))
    assert classes and not classes & named, classes & named
    assert classes <= {"name"} | {f"band-{b}" for b in range(views.BANDS)}, classes


@needs_css
@pytest.mark.parametrize("system", rules.SYSTEMS)
def test_bands_follow_the_rank_worst_to_best(system):
    """The worst outcome is in the lowest band and the best in the highest;
    a better outcome is never in a lower band; every band but the neutral
    middle one has its colour in the stylesheet."""
    bands = [band(system, o) for o in rules.OUTCOMES[system]]
    assert bands[0] == 0 and bands[-1] == views.BANDS - 1, bands
    assert bands == sorted(bands), bands
    for b in set(bands) - {views.BANDS // 2}:
        assert f".outcome-band-{b} " in css(), b


def test_a_game_the_page_has_never_seen_is_coloured(monkeypatch):
    """A game registered with outcomes of its own names gets the bands from
    their order alone; a name it does not declare gets none."""
    monkeypatch.setitem(rules.OUTCOMES, "fate", ("fail", "tie", "succeed", "succeed_with_style"))
    assert [band("fate", o) for o in rules.OUTCOMES["fate"]] == [0, 1, 3, 4]
    assert 'class="outcome outcome-band-0"' in views.outcome_banner("fate", "fail")
    assert views.outcome_band("fate", "success") == ""


@pytest.mark.parametrize("ui", tab_modules(), ids=lambda u: u.SYSTEM)
def test_every_tab_colours_its_outcome_by_rank(ui):
    """Each tab's outcome line, for rolls of its default spec, carries the
    band of the outcome it names."""
    seen = set()
    for seed in range(12):
        result = rules.roll(ui.SYSTEM, rules.default_spec(ui.SYSTEM), random.Random(seed), advise=False)
        html = ui.render_result(result, {})
        m = re.search(r'<p class="outcome (outcome-band-\d)" data-outcome="([a-z_]+)"', html)
        assert m, html[:300]
        assert m.group(2) == result["outcome"] and m.group(1) == views.outcome_band(ui.SYSTEM, result["outcome"])
        seen.add(result["outcome"])
    assert seen
