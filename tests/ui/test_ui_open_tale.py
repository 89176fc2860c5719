"""The Open Tale tab's pure Python (static/py/tabs/ui_open_tale.py): the form in
index.html opens with a valid roll (level 5, the most even pair), every
level's pair group has its most even pair checked, form <-> spec round-trips,
errors land on controls that exist, the tray draws the reroll (old face
struck through) and explosion chains, the odds mark the median, the
reference shows both tables with differing cells marked, and text is
escaped (the Open Tale rules text, 3)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rules
from rules.dice import ScriptedRng, SpecError
from rules.open_tale import model as ot
from static_form import static_form
from tab_registry import odds_panel
from tabs import ui_open_tale as ui

INDEX = Path(__file__).resolve().parents[2] / "index.html"


def block() -> str:
    if not INDEX.exists():  # the Pyodide run copies the Python only
        pytest.skip("index.html is not in this file system")
    html = INDEX.read_text(encoding="utf-8")
    return html[html.index("<!-- tab:open_tale -->"):html.index("<!-- /tab:open_tale -->")]


@pytest.fixture(scope="module")
def form():
    return static_form("open_tale")


def test_form_opens_with_the_default_roll(form):
    """DESIGN.md: the form opens filled with a valid roll: level 5, 2d8."""
    spec = rules.normalize("open_tale", ui.spec_from_form(form.fields))
    assert spec == rules.default_spec("open_tale")
    assert spec["level"] == 5 and spec["dice"] == [8, 8]


def test_every_level_offers_its_valid_pairs_most_even_checked(form):
    """Open Tale, 3: the pairs summing to the power, one group per level, the
    most even checked so switching level keeps a valid pair."""
    for lv in range(1, 10):
        name = f"pair_{lv}"
        assert form.radios[name] == [f"{a}-{b}" for a, b in ot.valid_pairs(lv)]
        a, b = ot.even_pair(lv)
        assert form.fields[name] == [f"{a}-{b}"]
        assert name in form.slots
        fields = {**form.fields, "level": [str(lv)]}
        assert rules.normalize("open_tale", ui.spec_from_form(fields))["dice"] == [a, b]
    assert form.radios["level"] == [str(i) for i in range(1, 10)]


def test_every_control_has_an_error_slot(form):
    """Each control's name has its [data-error-for] slot; the spec's
    ``dice`` and the form-wide ``_form`` too."""
    for name in form.names:
        assert name in form.slots, name
    assert {"dice", "_form", "level", "modifiers", "heroic", "tie_break", "target"} <= form.slots


def test_markup_is_csp_clean_and_chips_cover_the_modifiers():
    """No inline style or event attributes (strict CSP); the four modifiers
    are combinable checkboxes."""
    b = block()
    assert "style=" not in b and not re.search(r"\son[a-z]+=", b)
    for name in ot.MODIFIERS:
        assert f'type="checkbox" name="modifiers" value="{name}"' in b


ROUND_TRIP = [
    {"level": 5, "dice": [12, 4], "modifiers": ["superiority", "disadvantage"], "target": 14},
    {"level": 1, "heroic": True, "tie_break": "smaller"},
    {"level": 7, "dice": [10, 10], "modifiers": ["inferiority"]},
    {"level": 9, "heroic": True, "modifiers": ["advantage", "advantage"], "tie_break": "larger", "target": 30},
]


@pytest.mark.parametrize("spec", ROUND_TRIP, ids=["compensating, target", "heroic level 1",
                                                  "2d10 inferiority", "two advantages"])
def test_form_values_round_trip(spec, form):
    """form_values is the inverse of spec_from_form (share links). The
    form's checkboxes cannot hold a modifier twice, so duplicates fold."""
    norm = rules.normalize("open_tale", spec)
    fields = {k: list(v) for k, v in form.fields.items() if k not in ("heroic", "modifiers")}
    for name, v in ui.form_values(norm).items():
        if isinstance(v, bool):
            fields.pop(name, None)
            if v:
                fields[name] = ["on"]
        elif isinstance(v, list):
            fields[name] = sorted(set(v), key=v.index)
        else:
            fields[name] = [v]
    back = rules.normalize("open_tale", ui.spec_from_form(fields))
    want = dict(norm, modifiers=sorted(set(norm["modifiers"]), key=norm["modifiers"].index))
    assert back == want


@pytest.mark.parametrize("fields,name", [
    ({"level": ["10"]}, "level"),
    ({"level": ["x"]}, "level"),
    ({"level": ["5"], "pair_5": ["12-6"]}, "pair_5"),
    ({"level": ["5"], "pair_5": ["junk"]}, "pair_5"),
    ({"modifiers": ["luck"]}, "modifiers"),
    ({"target": ["0"]}, "target"),
    ({"target": ["lots"]}, "target"),
    ({"tie_break": ["coin"]}, "tie_break"),
], ids=["level 10", "level text", "pair of another level", "pair text", "unknown modifier",
        "target 0", "target text", "tie break"])
def test_errors_name_the_form_control(fields, name):
    """The error's field is a control's name (main shows it there)."""
    with pytest.raises(SpecError) as e:
        rules.normalize("open_tale", ui.spec_from_form(fields))
    assert e.value.field == name


def _roll(spec, draws):
    return rules.roll("open_tale", spec, ScriptedRng(draws))


def test_tray_strikes_the_old_face_and_draws_the_chain():
    """Open Tale, 3.2-3.3: Advantage rerolls the d6 (3 struck through, 6
    kept), which explodes 6 → 2: three dice in its chain, each a data-die."""
    r = _roll({"level": 5, "dice": [10, 6], "modifiers": ["advantage"]}, [7, 3, 6, 6, 2])
    html = ui.render_result(r, {"selected": []})
    assert html.count("data-die=") == 4  # d10, d6, and the d6's two explosions
    assert 'data-die="1.1"' in html and 'data-die="1.2"' in html
    assert "<del>3</del>" in html and "<ins>6</ins>" in html
    assert 'class="old-face"' in html  # draw.py's struck-through old face
    assert "→ 6 → 2" in html and "= 14" in html
    assert "Score 21" in html and 'data-act' not in html
    # an explosion that explodes again says so in its name (its outline draws it)
    assert 'aria-label="explosion 1 of the d6: 6, exploded again"' in html
    assert 'aria-label="explosion 2 of the d6: 2"' in html


def test_kept_first_strikes_the_new_face():
    """Inferiority keeping the first face: the new one is struck through,
    in the caption and in the drawing."""
    r = _roll({"level": 5, "dice": [10, 6], "modifiers": ["inferiority"]}, [7, 3, 9])
    html = ui.render_result(r, {"selected": []})
    assert "<ins>7</ins> ⟲ <del>9</del>" in html
    assert re.search(r'class="old-face"><text[^>]*>9<', html)


def test_cap_is_shown():
    """RULES-NOTES Open Tale 3: a capped roll says so in the tray."""
    r = _roll({"level": 1}, [4, 1] + [4] * ot.EXPLOSION_CAP)
    assert "Safety cap reached" in ui.render_result(r, {"selected": []})


def test_net_modifier_shown():
    """The net modifier in words: "Superiority + Disadvantage = Advantage"."""
    spec = rules.normalize("open_tale", {"modifiers": ["superiority", "disadvantage"]})
    html = odds_panel(ui, spec, None, {})
    assert "Superiority (+2) + Disadvantage (−1) = Advantage (+1)" in html


def test_odds_mark_the_median_and_the_target():
    """The chart marks the median; P(score >= target) is stated and equals
    the rules' figure."""
    spec = rules.normalize("open_tale", {"level": 5, "target": 12})
    o = rules.odds("open_tale", spec)
    html = odds_panel(ui, spec, None, {})
    assert f"marked: {o['median']}" in html
    assert f"P(score ≥ 12) = <strong>{ui.views.pct(o['at_least'])}</strong>" in html
    assert 'class="bar hl' in html


def test_reference_shows_both_tables_and_marks_differences():
    """Open Tale, 3.4 beside the computed table (RULES-NOTES Open Tale 4): 45
    cells, the differing numbers marked by a sign and words."""
    html = ui.render_reference()
    assert html.startswith("<summary>")
    assert html.count("<td") == 45
    comp = ot.table_comparison()
    assert html.count('class="ot-differs"') == len(comp["differ"])
    assert html.count("(differs from the text)") == len(comp["differ"])
    assert f"{comp['matches']} of 90" in html


def test_summary_line():
    """One line for the history."""
    r = _roll({"level": 5, "dice": [12, 4], "modifiers": ["disadvantage"], "target": 9}, [9, 2, 3])
    assert ui.summary(r) == "Level 5, d12 + d4, Disadvantage: score 5 vs 9"


def test_no_action():
    """Open Tale has no verbs."""
    with pytest.raises(SpecError):
        ui.action_for("reroll", {}, {"selected": []}, {})


def test_text_is_escaped():
    """A hostile result (e.g. from a link) cannot inject markup."""
    r = _roll({}, [3, 4])
    r["explain"] = ['<img src=x onerror="alert(1)">']
    r["dice"][0]["name"] = "<script>"
    html = ui.render_result(r, {"selected": []})
    assert "<img" not in html and "<script>" not in html


def test_a_new_form_breaks_ties_for_the_target_once_one_is_set():
    """The form opens on "the best die"; with a target typed that
    is the ``target`` tie break, without one ``best``; a spec from a link
    fills in its own value and keeps it."""
    fields = dict(static_form("open_tale").fields)
    assert fields["tie_break"] == ["auto"]
    assert rules.normalize("open_tale", ui.spec_from_form({**fields, "target": ["12"]}))["tie_break"] == "target"
    assert rules.normalize("open_tale", ui.spec_from_form(fields))["tie_break"] == "best"
    old = rules.normalize("open_tale", {"level": 5, "target": 12, "tie_break": "best"})
    assert ui.form_values(old)["tie_break"] == "best"
