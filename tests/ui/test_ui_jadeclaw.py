"""The Jadeclaw tab's pure Python (static/py/tabs/ui_jadeclaw.py): form fields to
spec and back, the tray HTML (Penalty rolls side by side with the kept one
marked, damage pairs as columns with hits), the combination-roll flow, the
odds panel and the levels reference computed from the rule."""

from __future__ import annotations

import re

import pytest

import rules
from rules.dice import ScriptedRng, SpecError
from rules.jadeclaw import model as jc
from tab_registry import odds_panel
from tabs import ui_jadeclaw as ui

DEFAULT_FIELDS = {"kind": ["simple"], "dice": ["d12 & d8"], "level": [""], "table_faces": [""],
                  "table_sides": [""], "include": [""], "remove": ["0"], "limit": [""], "bonuses": ["0"],
                  "penalties": ["0"], "against": ["difficulty"], "difficulty": ["routine"],
                  "opponent": ["2d10"], "opponent_faces": [""], "opponent_sides": [""], "quality": [""],
                  "opponent_quality": [""], "soak": ["d8 & d6"], "opponent_bonuses": ["0"],
                  "opponent_penalties": ["0"], "opponent_limit": [""], "soak_bonuses": ["0"], "soak_penalties": ["0"],
                  "soak_limit": [""]}


def fields(**over):
    f = {k: list(v) for k, v in DEFAULT_FIELDS.items()}
    for k, v in over.items():
        if v is None:
            f.pop(k, None)
        else:
            f[k] = v if isinstance(v, list) else [v]
    return f


def test_default_form_is_the_default_spec():
    """The form as the page opens (index.html) is the rules' default spec."""
    assert rules.normalize("jadeclaw", ui.spec_from_form(fields())) == rules.default_spec("jadeclaw")


FORM_CASES = [
    ("builder-trailing-ampersands", fields(dice=" & d12 & d10 & "), {"dice": [12, 10]}),
    ("level-wins-over-dice", fields(level="7"), {"dice": [12, 6], "level": 7}),
    ("modifiers", fields(include="d8", remove="1", limit="10", bonuses="2", penalties="1", favored="on"),
     {"include": [8], "remove": 1, "limit": 10, "bonuses": 2, "penalties": 1, "favored": True}),
    ("against-nothing", fields(against="none"), {"difficulty": None, "opponent": None}),
    ("against-dice", fields(against="dice", opponent="2d10 & d4"), {"opponent": [10, 10, 4]}),
    ("against-table", fields(against="table", opponent_faces="2 7 6", opponent_sides="d8, d6, d4"),
     {"opponent": {"faces": [7, 6, 2], "sides": [8, 6, 4]}}),
    ("qualities", fields(quality="Expert", opponent_quality="12"), {"quality": "expert", "opponent_quality": 12}),
    ("double-botch-tie", fields(double_botch_tie="on"), {"double_botch": "tie"}),
    ("damage", fields(kind="damage", soak="d8 & d6", slaying="on"),
     {"kind": "damage", "soak": [8, 6], "damage_type": "slaying"}),
    ("damage-table-dice", fields(kind="damage", table_faces="9, 3", table_sides="2d10", bonuses="3"),
     {"dice": {"faces": [9, 3], "sides": [10, 10]}, "bonuses": 0}),
    ("damage-no-soak", fields(kind="damage", soak=""), {"soak": []}),
    ("opponent-modifiers", fields(against="dice", opponent="d12 & d8", opponent_bonuses="1", opponent_penalties="2",
                                  opponent_limit="10", opponent_favored="on"),
     {"opponent": [12, 8], "opponent_bonuses": 1, "opponent_penalties": 2, "opponent_limit": 10,
      "opponent_favored": True}),
    ("difficulty-modifiers", fields(opponent_penalties="1", opponent_favored="on"),
     {"difficulty": "routine", "opponent_penalties": 1, "opponent_favored": True}),
    ("table-ignores-hidden-opponent-modifiers",
     fields(against="table", opponent_faces="7, 6", opponent_penalties="3", opponent_favored="on"),
     {"opponent": {"faces": [7, 6], "sides": None}, "opponent_penalties": 0, "opponent_favored": False}),
    ("nothing-ignores-hidden-opponent-modifiers", fields(against="none", opponent_bonuses="2"),
     {"difficulty": None, "opponent_bonuses": 0}),
    ("soak-modifiers", fields(kind="damage", soak="d10 & d6", soak_bonuses="1", soak_penalties="1",
                              soak_limit="8", soak_favored="on"),
     {"soak": [10, 6], "soak_bonuses": 1, "soak_penalties": 1, "soak_limit": 8, "soak_favored": True}),
    ("damage-ignores-hidden-opponent-modifiers", fields(kind="damage", opponent_penalties="4"),
     {"opponent_penalties": 0}),
]


@pytest.mark.parametrize("form,want", [c[1:] for c in FORM_CASES], ids=[c[0] for c in FORM_CASES])
def test_spec_from_form_and_back(form, want):
    """Form -> spec gives the expected keys, and form_values(spec) -> spec
    again gives the same normalized spec (share links)."""
    spec = rules.normalize("jadeclaw", ui.spec_from_form(form))
    for k, v in want.items():
        assert spec[k] == v, k
    again = ui.form_values(spec)
    back = {k: ([v] if isinstance(v, str) else (["on"] if v is True else None)) for k, v in again.items()}
    back = {k: v for k, v in back.items() if v is not None}
    assert rules.normalize("jadeclaw", ui.spec_from_form(back)) == spec


@pytest.mark.parametrize("form,name", [
    (fields(dice=""), "dice"), (fields(dice="d7"), "dice"), (fields(bonuses="-1"), "bonuses"),
    (fields(penalties="lots"), "penalties"), (fields(level="x"), "level"), (fields(remove="9"), "remove"),
    (fields(against="table", opponent_faces="13"), "opponent_faces"),
    (fields(against="table", opponent_faces="7, 6", opponent_sides="d8"), "opponent_sides"),
    (fields(against="table", opponent_faces="9", opponent_sides="d6"), "opponent_sides"),
    (fields(against="dice", opponent=""), "opponent"), (fields(quality="grand"), "quality"),
    (fields(kind="damage", soak="d5"), "soak"), (fields(kind="both"), "kind"),
    (fields(opponent_penalties="x"), "opponent_penalties"), (fields(opponent_bonuses="21"), "opponent_bonuses"),
    (fields(against="dice", opponent="40d12", opponent_bonuses="1"), "opponent_bonuses"),
    (fields(kind="damage", soak_penalties="-1"), "soak_penalties"), (fields(kind="damage", soak_limit="d7"), "soak_limit"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_errors_name_the_form_control(form, name):
    """A bad field raises SpecError naming the control, so the page shows it
    at [data-error-for=name]."""
    with pytest.raises(SpecError) as e:
        rules.normalize("jadeclaw", ui.spec_from_form(form))
    assert e.value.field == name


def test_every_error_field_has_a_slot_in_the_form():
    """Every control name spec_from_form can blame has its error slot in
    index.html's Jadeclaw block."""
    from pathlib import Path
    page = Path(__file__).resolve().parents[2].joinpath("index.html")
    if not page.exists():
        pytest.skip("index.html is not copied into the Pyodide run")
    html = page.read_text(encoding="utf-8")
    block = html[html.index("<!-- tab:jadeclaw -->"):html.index("<!-- /tab:jadeclaw -->")]
    names = set(re.findall(r'name="([a-z_]+)"', block))
    slots = set(re.findall(r'data-error-for="([a-z_]+)"', block))
    assert {"dice", "level", "bonuses", "penalties", "include", "remove", "limit", "difficulty", "opponent",
            "opponent_faces", "opponent_sides", "quality", "opponent_quality", "soak", "table_faces",
            "table_sides", "kind", "against", "_form", "opponent_bonuses", "opponent_penalties", "opponent_limit",
            "opponent_favored", "soak_bonuses", "soak_penalties", "soak_limit", "soak_favored"} <= slots
    assert {"opponent_favored", "soak_favored", "favored", "slaying", "enervated"} <= names
    assert set(DEFAULT_FIELDS) <= names
    assert "style=" not in block and not re.search(r"\son[a-z]+=", block)


def test_penalty_rolls_side_by_side_kept_marked():
    """Du Cheng-fa's two rolls are both drawn, in order, the first marked
    kept, the second dropped; every die carries data-die; dice sorted."""
    r = rules.roll("jadeclaw", {"dice": "d12 & d10", "penalties": 1, "difficulty": "routine"},
                   ScriptedRng([2, 5, 8, 4, 3, 3]))
    html = ui.render_result(r, {"selected": []})
    figs = re.findall(r'<figure class="dice-row (jc-roll[^"]*)" role="group" data-roll-index="(\d)"', html)
    assert figs == [("jc-roll is-kept", "0"), ("jc-roll is-dropped", "1")]
    assert "kept (the worst)" in html
    assert html.count("data-die=") == 4 + 2
    first = html[html.index('data-roll-index="0"'):html.index('data-roll-index="1"')]
    assert re.findall(r"showing (\d+)", first)[::2] == ["5", "2"]  # sorted, highest first
    assert 'data-outcome="success"' in html


def test_damage_pairs_as_columns_with_hits():
    """Jupi: three columns 7|8 (0 hits), 6|3 (1 hit), 2|imaginary 1 (1 hit)."""
    r = rules.roll("jadeclaw", {"kind": "damage", "dice": "d8, d6, d4", "soak": "d8 & d6"},
                   ScriptedRng([7, 6, 2, 8, 3]))
    html = ui.render_result(r, {"selected": []})
    cols = re.findall(r'<li class="die-slot jc-pair hits-(\d)" data-pair="(\d)">', html)
    assert cols == [("0", "0"), ("1", "1"), ("1", "2")]
    assert "imaginary 1" in html and "2 hits" in html
    assert 'data-act="reuse"' in html


def test_combination_flow_reuse_damage_as_opposing_score():
    """"Jupi will roll his d10 & d6 vs. the 7, 6, and 2 already sitting on
    the table": the reuse button fills the form; the form's spec then rolls
    Jupi's 9 and 2 to a Success."""
    r = rules.roll("jadeclaw", {"kind": "damage", "dice": "d8, d6, d4", "soak": "d8 & d6"},
                   ScriptedRng([7, 6, 2, 8, 3]))
    fill = ui.action_for("reuse", r, {}, fields())["fill"]
    form = fields()
    for k, v in fill.items():
        if v is True:
            form[k] = ["on"]
        elif v is False:
            form.pop(k, None)
        else:
            form[k] = [v]
    form["dice"] = ["d10 & d6"]
    spec = rules.normalize("jadeclaw", ui.spec_from_form(form))
    assert spec["opponent"] == {"faces": [7, 6, 2], "sides": [8, 6, 4]}
    res = rules.roll("jadeclaw", spec, ScriptedRng([9, 2]))
    assert res["outcome"] == "success" and res["opponent_score"] == 7


def test_combination_flow_difficulty_dice_as_effect_dice():
    """"A Simple Roll to Cast a magic spell vs. Difficulty Dice may turn
    those dice into Damage Dice": the effect button fills a Damage Roll
    with those faces on the table."""
    r = rules.roll("jadeclaw", {"dice": "d12 & d8", "difficulty": "difficult"}, ScriptedRng([11, 2, 9, 3]))
    assert 'data-act="effect"' in ui.render_result(r, {})
    fill = ui.action_for("effect", r, {}, fields())["fill"]
    form = fields(**{k: v for k, v in fill.items() if isinstance(v, str)})
    spec = rules.normalize("jadeclaw", ui.spec_from_form(form))
    assert spec["kind"] == "damage" and spec["dice"] == {"faces": [9, 3], "sides": [10, 10]}
    res = rules.roll("jadeclaw", {**spec, "soak": [6]}, ScriptedRng([2]))
    assert res["value"] == 3


def test_other_verbs_refused():
    r = rules.roll("jadeclaw", {"dice": "d8"}, ScriptedRng([4]))
    with pytest.raises(SpecError):
        ui.action_for("reroll", r, {}, fields())
    with pytest.raises(SpecError):
        ui.action_for("reuse", r, {}, fields())  # not a Damage Roll


def test_render_escapes_text():
    """Text from a (possibly hostile) result is escaped."""
    r = rules.roll("jadeclaw", {"dice": "d8"}, ScriptedRng([4]))
    r["explain"] = ['<img src=x onerror="alert(1)">']
    html = ui.render_result(r, {})
    assert "<img" not in html and "&lt;img" in html


def test_odds_panel_simple():
    """Contest categories, the dice preview after modifiers, the Score chart
    and the rule-of-thumb hint (No Zim Ta)."""
    spec = rules.normalize("jadeclaw", {"dice": "d10 & d8", "difficulty": "intermediate", "bonuses": 1,
                                        "penalties": 1})
    html = odds_panel(ui, spec, None, {})
    for k in ("overwhelming_failure", "failure", "tie", "success", "overwhelming_success", "botch"):
        assert f'data-outcome="{k}"' in html
    assert "You roll d10 &amp; d8" in html and "cancel" in html
    assert 'class="chart"' in html
    assert "data-auto-success" in html
    html2 = odds_panel(ui, rules.normalize("jadeclaw", {"dice": "d10 & d8", "difficulty": "intermediate",
                                                        "penalties": 1}), None, {})
    assert "× 2 rolls" in html2 and "data-auto-success" not in html2


def test_odds_panel_damage():
    """Damage odds: chance of a hit, mean, exact or sampled stated."""
    spec = rules.normalize("jadeclaw", {"kind": "damage", "dice": "3d12", "soak": "2d12", "favored": True})
    html = odds_panel(ui, spec, None, {})
    assert "Chance of at least one hit" in html and ("exact" in html or "sampled" in html)


def test_reference_table_from_the_rule():
    """The reference shows the levels-and-bonuses table cell for cell (the
    rule's table) and the difficulties."""
    html = ui.render_reference()
    assert html.startswith("<summary>")
    assert html.count("<tr>") >= 21 + 1
    for row in jc.levels_table():
        for cell in row:
            assert f"<td>{cell.replace('&', '&amp;')}</td>" in html
    assert "For Legends Only" in html and "4d12" in html


def test_summary_lines():
    r = rules.roll("jadeclaw", {"kind": "damage", "dice": "d8, d6, d4", "soak": "d8 & d6"},
                   ScriptedRng([7, 6, 2, 8, 3]))
    assert ui.summary(r) == "d8 & d6 & d4 damage: 2 hits"
    r = rules.roll("jadeclaw", {"dice": "d10"}, ScriptedRng([1]))
    assert ui.summary(r) == "d10: Score 1"


def test_opposing_penalty_rolls_side_by_side_their_worst_kept():
    """The opposition's Penalty rolls are drawn like the roller's: each roll
    a figure, their worst marked kept, the others dropped; every die keyed."""
    r = rules.roll("jadeclaw", {"dice": "d8", "opponent": "d12 & d10", "opponent_penalties": 1},
                   ScriptedRng([6, 2, 5, 8, 4]))
    html = ui.render_result(r, {"selected": []})
    figs = re.findall(r'<figure class="dice-row (jc-roll jc-opposition[^"]*)" role="group" data-opponent-roll="(\d)"', html)
    assert figs == [("jc-roll jc-opposition is-kept", "0"), ("jc-roll jc-opposition is-dropped", "1")]
    assert "kept (their worst)" in html
    assert re.findall(r'data-die="(o\d\.\d)"', html) == ["o0.0", "o0.1", "o1.0", "o1.1"]
    # the roller's figures are told apart from the opposition's
    assert re.findall(r'<figure class="dice-row (jc-roll[^"]*)" role="group" data-roll-index="(\d)"', html) == [("jc-roll is-kept", "0")]
    assert "roll 1 of 2 · Score 5" in html and "roll 2 of 2 · Score 8" in html


def test_outcome_lines_never_say_the_same_word_twice():
    """Plain words: "Scored 5", not "Scored Score 5"; "2 hits", not
    "Hits 2 hits"; opposed, the name then the two Scores."""
    banner = re.compile(r'<p class="outcome[^>]*>(.*?)</p>')
    strip = re.compile(r"<[^>]+>")

    def line(spec, draws):
        html = ui.render_result(rules.roll("jadeclaw", spec, ScriptedRng(draws)), {})
        return strip.sub("", banner.search(html).group(1))
    assert line({"dice": "d10"}, [5]) == "Scored 5"
    assert line({"dice": "d10"}, [1]) == "Botch — Score 1"
    assert line({"dice": "d10 & d4", "difficulty": "routine"}, [7, 2, 3, 4]) == "Success — Score 7 vs 4"
    assert line({"kind": "damage", "dice": "d8, d6, d4", "soak": "d8 & d6"}, [7, 6, 2, 8, 3]) == "2 hits"
    assert line({"kind": "damage", "dice": "d4", "soak": "d8"}, [1, 5]) == "0 hits"
    assert line({"kind": "damage", "dice": "d4", "soak": "d4"}, [3, 2]) == "1 hit"


@pytest.mark.parametrize("spec,draws", [
    ({"dice": "d8 & d6", "penalties": 2, "opponent": "d6"}, [7, 3, 1, 1, 4, 2, 5]),
    ({"dice": "d4", "opponent": "d4"}, [1, 1]),
    ({"dice": "d4", "opponent": "d4", "double_botch": "tie"}, [1, 1]),
    ({"dice": "d6", "difficulty": "trivial"}, [1, 3]),
    ({"dice": "d6", "opponent": "d4", "opponent_penalties": 1}, [4, 2, 3]),
    ({"kind": "damage", "dice": "d8", "penalties": 1, "bonuses": 2, "soak": "d6 & d4", "soak_penalties": 1}, [5, 2]),
], ids=["penalties", "double-botch", "double-botch-tie", "botch", "their-penalty", "damage"])
def test_no_note_numbers_shown_to_players(spec, draws):
    """Players have no RULES-NOTES: the result and the odds name rules in
    words or by the text's headings."""
    r = rules.roll("jadeclaw", spec, ScriptedRng(draws))
    html = ui.render_result(r, {}) + odds_panel(ui, spec, r, {}) + ui.render_reference()
    assert "RULES-NOTES" not in html and "Jadeclaw 3" not in html


def test_odds_panel_shows_the_other_sides_dice():
    """Before rolling, the opposing dice after their own modifiers (and how
    many times they roll), and the soak dice after theirs."""
    spec = {"dice": "d10", "opponent": "d12, d10, d4", "opponent_limit": 8, "opponent_penalties": 2,
            "opponent_favored": True}
    html = odds_panel(ui, spec, None, {})
    assert "They (Opposing dice) roll 2d8 &amp; d4 × 3 rolls (worst kept), Favored" in html
    assert "Limit d8: dice bigger than d8 drop to d8" in html
    plain = odds_panel(ui, {"dice": "d10", "opponent": "d12"}, None, {})
    assert "They (" not in plain  # nothing to show when their dice are as written
    soak = odds_panel(ui, {"kind": "damage", "dice": "d10", "soak": "d8 & d6", "soak_penalties": 1,
                           "soak_favored": True}, None, {})
    assert "Soak d8, Favored" in soak and "removed the smallest die (d6)" in soak


def test_odds_panel_draws_their_worst_score():
    """The outcome table under their Penalty: a canned answer's figures are
    the ones drawn (the tab asks, main answers)."""
    spec = rules.normalize("jadeclaw", {"dice": "d10", "opponent": "d6", "opponent_penalties": 1})
    answers = {"roll": {"outcome": {k: 0.0 for k in jc.CONTEST_OUTCOMES} | {"success": 0.7531},
                        "value": {1: 1.0}, "rolls": 1, "exact": True, "opponent_label": "Opposing dice"}}
    html = ui.render_odds(spec, answers, None)
    assert "75.3 %" in html and "They (Opposing dice) roll d6 × 2 rolls (worst kept)" in html
