"""The Milhamah tab's pure functions (static/py/ui_milhamah.py) under
CPython: form <-> spec, what the tray shows and offers, which dice a step
takes, the odds panel, escaping."""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest

import rules
import ui_milhamah as U
from tabs import odds_panel
from rules import milhamah as M
from rules.dice import ScriptedRng, SpecError
from static_form import static_form

ROOT = Path(__file__).resolve().parents[2]
SLOW = 3.0 if sys.platform == "emscripten" else 1.0
RA = {f: i + 1 for i, f in enumerate(M.die_faces("red", "A"))}
RB = {f: i + 1 for i, f in enumerate(M.die_faces("red", "B"))}
GA = {f: i + 1 for i, f in enumerate(M.die_faces("green", "A"))}
GB = {f: i + 1 for i, f in enumerate(M.die_faces("green", "B"))}
BA = {f: i + 1 for i, f in enumerate(M.die_faces("blue", "A"))}
BB = {f: i + 1 for i, f in enumerate(M.die_faces("blue", "B"))}
RACHEL = {"shoresh": "אשר", "pool": ["red", "green"], "rerolls": 3, "difficulty": 3}
RACHEL_FIRST = [RA["ב"], RB["ז"], RA["ב"], RB["ז"], GA["ב"], GB["מ"], GA["ב"], GB["מ"]]


@pytest.fixture(scope="module")
def form():
    return static_form("milhamah")


def test_static_form_opens_with_a_valid_roll(form):
    """DESIGN.md: every form opens filled with a valid roll."""
    spec = rules.normalize("milhamah", U.spec_from_form(form.fields))
    assert spec["shoresh"] == "אשר" and spec["pool"] == {"red": 4, "green": 4, "blue": 0}
    assert spec["difficulty"] == 3 and spec["opponent"] is None


def test_every_form_value_names_a_real_control(form):
    """form_values fills only controls that exist, and every field that can
    be wrong has a place for its error."""
    values = U.form_values(rules.default_spec("milhamah"))
    assert set(values) <= form.names | {"opposed"}
    for name in ("shoresh", "pair", "difficulty", "rerolls", "opponent.shoresh", "opponent.pair",
                 "dice_change", "rounds", "cipher", "hit.armour", "_form"):
        assert name in form.errors


def test_letter_pad_has_the_22_letters_and_backspace(form):
    main = [ch for ch, t in form.inserts if t == "shoresh"]
    assert "".join(main[:22]) == M.LETTERS and main[22] == "⌫"
    assert {t for _ch, t in form.inserts} == {"shoresh", "opponent.shoresh"}


@pytest.mark.parametrize("spec", [
    RACHEL,
    {"shoresh": "רוח", "pool": ["red", "blue"], "rerolls": 5, "difficulty": "heroic",
     "opponent": {"shoresh": "חנן", "pool": ["green", "blue"], "rerolls": 3, "shorashim": ["גבר", "קום"]}},
    {"shoresh": "שלום", "pool": ["green", "blue"], "dice_change": 2, "forbid": [], "reaction": True,
     "rounds": 2, "cipher": 1, "combat": ["cover", "surprised"], "combat_step": 2, "first_bonus": 0,
     "bonus_rerolls": 2, "pocketed": 1, "modifier_to_x": False},
    {"shoresh": "אב", "pool": ["red", "green"], "dice_change": -2, "forbid": ["blue"], "difficulty": 12},
], ids=["rachel", "etgar-vs-toad", "every-option", "fewer-dice-forbidden"])
def test_form_values_round_trip(spec):
    """A share link or saved roll fills the form back to the same spec."""
    norm = rules.normalize("milhamah", spec)
    values = U.form_values(norm)
    fields = {}
    for k, v in values.items():
        if isinstance(v, bool):
            if v:
                fields[k] = ["on"]
        elif isinstance(v, list):
            fields[k] = list(v)
        else:
            fields[k] = [v]
    assert rules.normalize("milhamah", U.spec_from_form(fields)) == norm


@pytest.mark.parametrize("fields,field", [
    ({"shoresh": ["אבX"]}, "shoresh"),
    ({"shoresh": ["אשר"], "pair": ["red+green"], "forbid": ["red"]}, "pair"),
    ({"shoresh": ["אשר"], "pair": ["red+red"]}, "pair"),
    ({"shoresh": ["אשר"], "rerolls": ["x"]}, "rerolls"),
    ({"shoresh": ["אשר"], "opposed": ["on"], "opponent.shoresh": ["zz"]}, "opponent.shoresh"),
    ({"shoresh": ["אשר"], "opposed": ["on"], "opponent.shoresh": ["חנן"], "opponent.pair": ["blue"]},
     "opponent.pair"),
    ({"shoresh": ["אשר"], "dice_change": ["9"]}, "dice_change"),
], ids=["latin-letter", "forbidden-colour", "same-colour-twice", "x-not-a-number",
        "opponent-shoresh", "opponent-pair", "too-many-dice"])
def test_errors_name_the_form_control(fields, field):
    """A SpecError lands beside the control that caused it."""
    with pytest.raises(SpecError) as e:
        U.spec_from_form(fields)
    assert e.value.field == field


# --------------------------------------------------------------------------
# The tray.

def _rachel():
    spec = rules.normalize("milhamah", RACHEL)
    return spec, rules.roll("milhamah", spec, ScriptedRng(RACHEL_FIRST))


def test_tray_shows_dice_and_reroll_only_while_allowed():
    spec, r = _rachel()
    html = U.render_result(r, {"selected": []})
    assert len(re.findall(r'data-die="\d+"', html)) == 8
    assert 'data-act="reroll"' in html and "Reroll 3" in html
    assert 'data-act="cipher"' not in html and 'data-act="natural' not in html
    assert 'data-outcome="botch"' in html
    r2 = rules.act("milhamah", spec, r, U.action_for("reroll", r, {"selected": []}, {}),
                   ScriptedRng([RA["ק"], RB["ז"], RA["ר"]]))
    html2 = U.render_result(r2, {"selected": []})
    assert "data-act" not in html2 and "data-die" not in html2
    assert "1 of 3 needed" in html2


def test_tapped_dice_are_frozen_and_marked_without_colour():
    """A tap freezes a die: drawn with the frozen snowflake and double rim,
    a selection ring, the word "frozen", and aria-pressed."""
    spec, r = _rachel()
    html = U.render_result(r, {"selected": ["0", "3"]})
    assert html.count('aria-pressed="true"') == 2
    assert html.count("badge-frozen") == 2
    assert html.count(">frozen</span>") == 2
    assert U.reroll_targets(r, {"selected": ["0", "3"]}) == [1, 2, 4]
    assert U.action_for("reroll", r, {"selected": ["0", "3"]}, {}) == {"do": "reroll", "dice": [1, 2, 4]}


def test_reroll_prefers_dice_without_a_success():
    """With more unfrozen dice than X, those without a success go first."""
    spec = rules.normalize("milhamah", {**RACHEL, "pool": {"red": 4}, "rerolls": 2})
    r = rules.roll("milhamah", spec, ScriptedRng([RA["א"], RB["ז"], RA["ש"], RB["ח"]]))
    assert U.reroll_targets(r, {"selected": []}) == [1, 3]
    assert U.reroll_targets(r, {"selected": ["1"]}) == [0, 3]  # ח first, then the first success
    with pytest.raises(SpecError):
        U.action_for("reroll", r, {"selected": ["0", "1", "2", "3"]}, {})


def test_frozen_dice_unchanged_after_a_reroll():
    spec, r = _rachel()
    ui = {"selected": ["0", "1", "2", "3", "4"]}
    action = U.action_for("reroll", r, ui, {})
    r2 = rules.act("milhamah", spec, r, action, ScriptedRng([GB["ר"], GA["ת"], GB["ק"]]))
    assert [d["face"] for d in r2["dice"][:5]] == [d["face"] for d in r["dice"][:5]]
    assert [d["role"] for d in r2["dice"]] == ["frozen"] * 5 + ["rerolled"] * 3


def test_cipher_and_natural_buttons():
    spec = rules.normalize("milhamah", {"shoresh": "אשר", "pool": {"red": 2, "blue": 2}, "cipher": 1,
                                        "difficulty": 2})
    r = rules.roll("milhamah", spec, ScriptedRng([RA["ר"], RB["ז"], BA["א"], BB["ש"]]))
    html = U.render_result(r, {"selected": ["1"]})
    assert 'data-act="cipher"' in html and "flip 1 tapped (1 left)" in html
    assert 'data-act="natural:successes"' in html and 'data-act="natural:merit"' in html
    assert "forfeits the first-roll bonus" in html
    action = U.action_for("cipher", r, {"selected": ["1"]}, {})
    assert action == {"do": "cipher", "dice": [1]}
    r2 = rules.act("milhamah", spec, r, U.action_for("natural:merit", r, {}, {}), ScriptedRng([]))
    assert r2["merit_point"] and "data-act" not in U.render_result(r2, {"selected": []})


def test_opposed_critical_and_hit_location_from_form_fields():
    spec = rules.normalize("milhamah", {"shoresh": "אשר", "pool": {"red": 2, "blue": 2},
                                        "opponent": {"shoresh": "חנן", "pool": {"red": 2}}})
    r = rules.roll("milhamah", spec, ScriptedRng([RA["ר"], RB["*"], BA["א"], BB["ש"], RA["ב"], RB["*"]]))
    html = U.render_result(r, {"selected": ["opponent:0"]})
    assert 'data-die="opponent:0"' in html and 'data-act="reroll:opponent"' in html
    odds = odds_panel(U, spec, r, {"selected": ["opponent:0"]})
    assert 'data-odds="opponent"' in odds and "If the opponent rerolls 1 die" in odds
    assert 'data-act="natural:critical"' in html
    r = rules.act("milhamah", spec, r, U.action_for("natural:critical", r, {}, {}), ScriptedRng([]))
    assert 'data-act="hit_location"' in U.render_result(r, {})
    fields = {"hit.armour": ["2"], "hit.vig": ["1"], "hit.light": ["1"], "hit.serious": ["0"], "hit.critical": ["0"]}
    action = U.action_for("hit_location", r, {}, fields)
    assert action == {"do": "hit_location", "armour": 2, "vig": 1, "light": 1, "serious": 0, "critical": 0}
    h = rules.act("milhamah", spec, r, action, ScriptedRng([1]))
    assert 'data-odds="opponent"' not in odds_panel(U, spec, h, {})
    html = U.render_result(h, {})
    assert "Chest" in html and "m-hitbox" in html and "beyond the wound track" in html
    with pytest.raises(SpecError) as e:
        U.action_for("hit_location", r, {}, {"hit.vig": ["-3"]})
    assert e.value.field == "hit.vig"
    assert U.action_for("reroll:opponent", r, {"selected": []}, {})["side"] == "opponent"


def test_everything_from_a_result_is_escaped():
    """No text from a link or storage reaches the DOM unescaped."""
    spec, r = _rachel()
    bad = json.loads(json.dumps(r))
    bad["explain"] = ['<img src=x onerror="alert(1)">']
    bad["spec"]["shoresh"] = "<script>x</script>"
    bad["dice"][0]["colour"] = '"><script>'
    bad["counter"] = ["<b>"]
    html = U.render_result(bad, {"selected": ['"><x>']})
    assert "<img" not in html and "<script" not in html and "<b>" not in html
    assert "&lt;img" in html


# --------------------------------------------------------------------------
# Odds panel, reference, summary.

def test_odds_before_roll_rank_the_colour_pairs():
    spec = rules.normalize("milhamah", RACHEL)
    html = odds_panel(U, spec, None, {"selected": []})
    assert 'data-odds="before"' in html and "on the first roll" in html and "after the reroll" in html
    assert "best chance" in html and html.count("<tr class=\"m-best\">") >= 1
    assert "Natural shoresh" in html and "Botch" in html


def test_odds_after_roll_follow_the_taps():
    """The reroll odds change as dice are frozen, and match rules.odds."""
    spec, r = _rachel()
    a = odds_panel(U, spec, r, {"selected": []})
    b = odds_panel(U, spec, r, {"selected": ["0", "1", "2", "3", "4", "5", "6"]})
    assert 'data-odds="reroll"' in a and a != b
    o = rules.odds("milhamah", spec, r, {"do": "reroll", "dice": [7]})
    assert "If you reroll 1 die now" in b
    assert U.views.pct(o["meets"]) in b


def test_odds_panel_renders_for_every_tap():
    """Each freeze set gets its own reroll odds (speed is the benchmark's to measure (tests/benchmark.py), not a test's)."""
    spec, r = _rachel()
    panels = [odds_panel(U, spec, r, {"selected": sel}) for sel in ([], ["0"], ["0", "1"], ["0", "1", "2"])]
    assert len(set(panels)) > 1
    assert odds_panel(U, spec, None, {"selected": []})


def test_reference_shows_every_face_and_the_cipher_pairs():
    html = U.render_reference()
    assert html.startswith("<summary>")
    assert html.count('class="m-face"') == 3 * 24
    for colour in ("Atbash", "Akhbi", "Albam"):
        assert colour in html
    assert '<bdi lang="he">א</bdi> ⇄ <bdi lang="he">ת</bdi>' in html
    assert "RULES-NOTES Milhamah 2" in html and "Head" in html
    assert html.count('class="m-opp"') == 3 * 2 * 6


def test_summary_lines():
    spec, r = _rachel()
    assert U.summary(r) == "אשר: no letter → botch"
    r2 = rules.act("milhamah", spec, r, {"do": "reroll", "dice": [0, 2, 4]},
                   ScriptedRng([RA["ק"], RA["ר"], GA["ת"]]))
    assert U.summary(r2) == "אשר: 1 of 3 needed → failure"


def test_hebrew_runs_are_isolated():
    assert U.he("a חנן b") == 'a <bdi lang="he">חנן</bdi> b'
    assert U.he("<") == "&lt;"


def test_a_list_of_shorashim_keeps_its_order():
    """Comma-separated Hebrew words stay in reading order (one isolate each)."""
    assert U.he("גד, זט") == '<bdi lang="he">גד</bdi>, <bdi lang="he">זט</bdi>'
