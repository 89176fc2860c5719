"""The ALKEMY tab's pure Python (static/py/tabs/ui_alkemy.py): form to spec and
back, the tray with tappable dice and the keep button, the odds panel, the
reference (ALKEMY, The dice rolls; RULES-NOTES ALKEMY 1-3)."""

from __future__ import annotations

import re

import pytest

import rules
from rules.dice import ScriptedRng, SpecError
from tab_registry import odds_panel
from tabs import ui_alkemy as ui

SYSTEM = "alkemy"

DEFAULT_FORM = {"mode": ["difficulty"], "characteristic": ["8"], "difficulty": ["15"], "health": ["white"],
                "bonus": ["0"], "malus": ["0"], "faces": ["plain"], "max_rerolls": ["20"],
                "opp_characteristic": ["5"], "opp_health": ["white"], "opp_bonus": ["0"], "opp_malus": ["0"]}


def _fields(values: dict) -> dict:
    return {k: v if isinstance(v, list) else [str(v)] for k, v in values.items()}


def _keys(html: str) -> list[str]:
    """The tappable dice (buttons)."""
    return re.findall(r'data-die="([^"]*)" role="button"', html)


def _marked(html: str) -> list[str]:
    """Every die's ``data-die`` (DESIGN.md: each die in a tray carries one)."""
    return re.findall(r'data-die="([^"]*)"', html)


def _keep_button(html: str) -> str | None:
    m = re.search(r'<button type="button" data-act="keep"[^>]*>[^<]*</button>', html)
    return m.group(0) if m else None


# --------------------------------------------------------------------------
# Form <-> spec.

def test_default_form_is_the_default_spec():
    """The form as index.html opens it rolls the default spec (Julien's roll)."""
    assert ui.spec_from_form(DEFAULT_FORM) == rules.default_spec(SYSTEM)


def test_opposed_form_reads_both_sides():
    """Opposed mode: the opponent's controls become ``opponent``; the
    difficulty is not sent."""
    spec = ui.spec_from_form({**DEFAULT_FORM, "mode": ["opposed"], "characteristic": ["2"],
                              "opp_characteristic": ["5"], "opp_malus": ["1"], "opp_health": ["red"]})
    assert spec["difficulty"] is None
    assert spec["opponent"] == {"characteristic": 5, "bonus": 0, "malus": 1, "health": "red"}


@pytest.mark.parametrize("change, field", [
    ({"characteristic": ["eight"]}, "characteristic"),
    ({"characteristic": [""]}, "characteristic"),
    ({"difficulty": ["500"]}, "difficulty"),
    ({"bonus": ["-1"]}, "bonus"),
    ({"malus": ["11"]}, "malus"),
    ({"health": ["green"]}, "health"),
    ({"faces": ["d8"]}, "faces"),
    ({"max_rerolls": ["1000"]}, "max_rerolls"),
    ({"mode": ["duel"]}, "mode"),
    ({"mode": ["opposed"], "opp_characteristic": ["x"]}, "opp_characteristic"),
    ({"mode": ["opposed"], "opp_bonus": ["99"]}, "opp_bonus"),
    ({"mode": ["opposed"], "opp_malus": ["-2"]}, "opp_malus"),
    ({"mode": ["opposed"], "opp_health": ["blue"]}, "opp_health"),
], ids=lambda v: v if isinstance(v, str) else None)
def test_form_errors_name_the_control(change, field):
    """A bad field's SpecError names the form control, so the message shows
    at ``[data-error-for=<name>]``."""
    with pytest.raises(SpecError) as e:
        ui.spec_from_form({**DEFAULT_FORM, **change})
    assert e.value.field == field


def test_missing_opponent_characteristic():
    """An opposed form without the opponent's characteristic points at it."""
    fields = {k: v for k, v in DEFAULT_FORM.items() if k != "opp_characteristic"}
    with pytest.raises(SpecError) as e:
        ui.spec_from_form({**fields, "mode": ["opposed"]})
    assert e.value.field == "opp_characteristic"


@pytest.mark.parametrize("spec", [
    {"characteristic": 8, "difficulty": 15},
    {"characteristic": 3, "bonus": 3, "malus": 1, "health": "yellow", "faces": "by_health", "difficulty": 9},
    {"characteristic": 2, "opponent": {"characteristic": 5, "malus": 2, "health": "red"}, "max_rerolls": 5},
], ids=["julien", "bonus-yellow-reduced", "opposed"])
def test_form_values_round_trip(spec):
    """``form_values`` fills the form so that reading it back gives the same
    spec (share links and saved rolls)."""
    norm = rules.normalize(SYSTEM, spec)
    values = ui.form_values(norm)
    assert ui.spec_from_form(_fields({**{k: v[0] for k, v in DEFAULT_FORM.items()}, **values})) == norm


# --------------------------------------------------------------------------
# The tray and the keep step.

MARC = {"characteristic": 0, "bonus": 1, "difficulty": 9}


def test_bonus_roll_dice_tappable_keep_disabled_until_two_picked():
    """ALKEMY, "Bonus / malus die": Marc's bonus die 4, 5, 1: the three dice are tappable, the
    default pair is drawn kept, and "Keep these two" waits for two taps."""
    r = rules.roll(SYSTEM, MARC, ScriptedRng([4, 5, 1]))
    html = ui.render_result(r, {"selected": []})
    assert _keys(html) == ["0", "1", "2"]
    assert html.count("role-kept") == 2 and html.count("role-dropped") == 1
    # beside best play's choices the player's own pair waits for a tap (a hint, not a button)
    assert _keep_button(html) is None and "tap two dice of one side to keep them" in html
    html = ui.render_result(r, {"selected": ["2"]})
    button = _keep_button(html)
    assert button is not None and "disabled" in button and "one more" in html
    plain = ui.render_result({k: v for k, v in r.items() if k not in ("advice", "choices")}, {"selected": []})
    assert "disabled" in _keep_button(plain) and "Tap two dice" in plain  # before the choices come


def test_tapping_another_pair_names_its_symbols():
    """Tapping 4 and 1 offers "Keep these two: 4 + 1 (axe–axe)"; the action is
    the keep verb; after it the tray shows the new pair kept."""
    r = rules.roll(SYSTEM, MARC, ScriptedRng([4, 5, 1]))
    state = {"selected": ["2", "0"]}
    html = ui.render_result(r, state)
    button = _keep_button(html)
    assert "disabled" not in button and "Keep these two: 4 + 1 (axe–axe)" in button
    assert html.count('aria-pressed="true"') == 2
    action = ui.action_for("keep", r, state, {})
    assert action == {"do": "keep", "dice": [0, 2], "side": "initiator"}
    r2 = rules.act(SYSTEM, r["spec"], r, action, ScriptedRng([]))
    html2 = ui.render_result(r2, {"selected": []})
    roles = re.findall(r'class="die d6 role-(\w+)', html2)
    assert roles == ["kept", "dropped", "kept"]
    assert "5 + 0 = 5" not in html2 and "4 + 1 + 0 = 5" in html2


@pytest.mark.parametrize("selected, message", [
    ([], "Tap two dice"),
    (["1"], "one more"),
    (["0", "1"], "already kept"),
    (["0", "1", "2"], "exactly two"),
], ids=["none", "one", "the-kept-pair", "three"])
def test_keep_refused_until_a_new_pair(selected, message):
    """The button stays disabled, the hint says why, and action_for refuses."""
    r = rules.roll(SYSTEM, MARC, ScriptedRng([4, 5, 1]))
    r = {k: v for k, v in r.items() if k not in ("advice", "choices")}  # the button as it stands before the choices
    html = ui.render_result(r, {"selected": selected})
    assert "disabled" in _keep_button(html) and message in html
    with pytest.raises(SpecError):
        ui.action_for("keep", r, {"selected": selected}, {})


@pytest.mark.parametrize("spec, draws", [
    ({"characteristic": 0, "malus": 2}, [5, 1, 3, 4]),
    ({"characteristic": 8}, [3, 4]),
], ids=["marc-malus", "julien-plain"])
def test_no_choice_no_taps_no_button(spec, draws):
    """A malus keeps the two lowest and a plain roll keeps both: nothing to
    tap, no keep button."""
    r = rules.roll(SYSTEM, spec, ScriptedRng(draws))
    html = ui.render_result(r, {"selected": []})
    assert _keys(html) == [] and _keep_button(html) is None
    assert _marked(html) == [str(i) for i in range(len(draws))]
    assert html.count("<svg ") == len(draws)


def test_opposed_both_sides_one_screen():
    """Patrick against Ghulam (ALKEMY, "Jet characteristic in opposition"): both hands, the headline says the
    characteristic decided it."""
    r = rules.roll(SYSTEM, {"characteristic": 2, "opponent": {"characteristic": 5}}, ScriptedRng([4, 4, 1, 4]))
    html = ui.render_result(r, {"selected": []})
    assert "Initiator" in html and "Opponent" in html
    assert "10 against 10, the opponent wins on characteristic" in html
    assert 'data-outcome="failure"' in html


def test_opposed_opponent_bonus_keys_and_mixed_taps():
    """Only a side with a bonus die is tappable; taps across sides are refused."""
    spec = {"characteristic": 2, "opponent": {"characteristic": 2, "bonus": 1}}
    r = rules.roll(SYSTEM, spec, ScriptedRng([4, 5, 6, 5, 4]))
    html = ui.render_result(r, {"selected": []})
    assert _keys(html) == ["opponent:0", "opponent:1", "opponent:2"]
    assert _marked(html) == ["0", "1", "opponent:0", "opponent:1", "opponent:2"]
    state = {"selected": ["opponent:1", "opponent:2"]}
    assert ui.action_for("keep", r, state, {}) == {"do": "keep", "dice": [1, 2], "side": "opponent"}
    assert "Same side" in ui.render_result(r, {"selected": ["0", "opponent:1"]}).replace("same side", "Same side")


def test_tied_rounds_shown():
    """Equal characteristics, equal totals: the tied round stays on the tray."""
    spec = {"characteristic": 3, "opponent": {"characteristic": 3}}
    r = rules.roll(SYSTEM, spec, ScriptedRng([2, 5, 4, 3, 6, 6, 1, 1]))
    html = ui.render_result(r, {"selected": []})
    assert "Round 1: 10 against 10, a tie" in html
    assert _marked(html) == ["round1:0", "round1:1", "round1:opponent:0", "round1:opponent:1",
                             "0", "1", "opponent:0", "opponent:1"]
    assert _keys(html) == []
    assert "after 1 reroll" in html


def test_text_is_escaped():
    """Text in a (hostile) result never reaches the page unescaped."""
    r = rules.roll(SYSTEM, MARC, ScriptedRng([4, 5, 1]))
    r["explain"] = ['<img src=x onerror="alert(1)">']
    r["dice"][0]["colour"] = '"><script>alert(1)</script>'
    html = ui.render_result(r, {"selected": ["0", "2"]})
    assert "<script>" not in html and "<img" not in html


def test_summary_lines():
    """The history line: the sums on both sides."""
    r = rules.roll(SYSTEM, {"characteristic": 2, "opponent": {"characteristic": 5}}, ScriptedRng([4, 4, 1, 4]))
    assert ui.summary(r) == "4 + 4 + 2 = 10 vs 1 + 4 + 5 = 10"


def test_summary_leaves_out_a_kept_position_off_the_hand():
    """A kept position that is not one of the hand's dice (negative, or
    past its end: a stored result tampered with) adds no face to the sum's
    line, as it adds no die to the tray."""
    r = rules.roll(SYSTEM, {"characteristic": 2}, ScriptedRng([4, 5, 1]))
    faces = [d["face"] for d in r["dice"]]
    r["kept"] = [-1, 0, 7]
    assert ui.summary(r).startswith(f"{faces[0]} + 2 = ")


# --------------------------------------------------------------------------
# Odds and reference.

def test_odds_panel_net_words_and_chance():
    """The net in words ("2 bonus, 1 malus → 1 bonus die"), P(success), the
    chart, the table of nets with the current one marked, the extra dice."""
    spec = ui.spec_from_form({**DEFAULT_FORM, "bonus": ["2"], "malus": ["1"]})
    html = odds_panel(ui, spec, None, {"selected": []})
    assert "2 bonus, 1 malus → 1 bonus die" in html
    p = rules.odds(SYSTEM, spec)["outcome"]["success"]
    assert f"<strong>{ui.views.pct(p)}</strong>" in html
    assert '<svg class="chart"' in html
    assert html.count("<tr") == 6 and html.count('aria-current="true"') == 1
    assert "One more bonus die" in html and "one more malus die" in html


def test_odds_panel_opposed():
    """Opposed: who wins, how ties break."""
    spec = ui.spec_from_form({**DEFAULT_FORM, "mode": ["opposed"], "characteristic": ["5"],
                              "opp_characteristic": ["5"]})
    html = odds_panel(ui, spec, None, {"selected": []})
    assert "Initiator wins" in html and "rerolls until one wins" in html


def test_odds_panel_with_pending_keep():
    """With two new dice tapped, the panel gives the odds of keeping them."""
    r = rules.roll(SYSTEM, MARC, ScriptedRng([4, 5, 1]))
    html = odds_panel(ui, r["spec"], r, {"selected": ["0", "2"]})
    assert "Keeping the tapped pair: success 0 %" in html


def test_odds_panel_renders_the_heaviest_case():
    """The heaviest panel (opposed, four dice a side): each figure is the
    rules' own, the opponent's share is what is left when neither the
    initiator wins nor the hands stay tied, and the net table marks the
    initiator's clamped net (+2)."""
    rules.alkemy.model._kept_counts.cache_clear()
    spec = ui.spec_from_form({**DEFAULT_FORM, "mode": ["opposed"], "bonus": ["3"], "opp_malus": ["4"]})
    o = rules.odds(SYSTEM, spec)
    html = odds_panel(ui, spec, None, {"selected": []})
    win, lose = o["outcome"]["success"], o["outcome"]["failure"]
    assert f"Initiator wins: <strong>{ui.views.pct(win)}</strong>" in html
    assert f"opponent wins: <strong>{ui.views.pct(lose)}</strong>" in html
    assert lose == pytest.approx(1 - win - o["outcome"]["tie"])
    assert re.search(r'<tr class="alk-current" aria-current="true"><th scope="row">2 bonus</th>', html)
    assert f"One more bonus die: {ui.views.pct(o['extra']['bonus'])}" in html


def test_odds_panel_names_the_tie_share():
    """Equal characteristics: the share still tied at the reroll cap is
    named (the GM decides), with no rerolls allowed a real share."""
    spec = ui.spec_from_form({**DEFAULT_FORM, "mode": ["opposed"], "characteristic": ["5"],
                              "opp_characteristic": ["5"], "max_rerolls": ["0"]})
    o = rules.odds(SYSTEM, spec)
    assert o["outcome"]["tie"] > 0.1
    html = odds_panel(ui, spec, None, {"selected": []})
    assert f"at most 0 rerolls; still tied then, the GM decides: {ui.views.pct(o['outcome']['tie'])}" in html


def test_still_tied_at_the_cap_is_a_tie_the_gm_decides():
    """Hands still tied at the reroll cap are not a failure: the
    banner says tie, and that the GM decides."""
    spec = {"characteristic": 3, "opponent": {"characteristic": 3}, "max_rerolls": 1}
    r = rules.roll(SYSTEM, spec, ScriptedRng([3, 3, 3, 3] * 2))
    html = ui.render_result(r, {"selected": []})
    assert 'data-outcome="tie"' in html
    assert "9 against 9: still tied after 1 reroll, the GM decides" in html
    assert "Still tied after 1 rerolls, the cap (a GM setting): the GM decides." in html


def test_every_bad_control_can_be_found():
    """The form shows every error, not only the first.
    Each SpecError names its own control, so putting the control the error
    names back to the form's default and reading again finds the next:
    characteristic -5 and bonus 50 name both."""
    fields = {**DEFAULT_FORM, "characteristic": ["-5"], "bonus": ["50"], "max_rerolls": ["x"]}
    found = []
    for _ in range(len(fields)):
        try:
            ui.spec_from_form(fields)
            break
        except SpecError as e:
            assert e.field in DEFAULT_FORM and e.field not in found
            found.append(e.field)
            fields = {**fields, e.field: DEFAULT_FORM[e.field]}
    assert sorted(found) == ["bonus", "characteristic", "max_rerolls"]


def test_reference_lists_faces_per_colour():
    """The reference (inside a <details>) opens with a summary and shows each
    colour's faces with their symbols for both face sets."""
    html = ui.render_reference()
    assert html.startswith("<summary>")
    for colour in ("White", "Yellow", "Red"):
        assert html.count(f"<figcaption>{colour}: 1 axe") == 2
    assert "Red: 1 axe, 2 sword, 3 mace, 4 axe" in html


# --------------------------------------------------------------------------
# The choices after a bonus roll: every pair side by side with
# its chance, best play's marked, one tap each. The odds are canned here
# (the rules' own are proved in tests/rules/test_advice_alkemy.py).

def _choice_items(html: str) -> list[tuple[str, str, bool]]:
    """(button text, odds text, advised) of each choice, in the order of
    the result's choices (the page draws best play's first)."""
    items = re.findall(r'<button type="button" class="choice-btn"( data-advised)? data-act="choice-(\d+)">'
                       r'<span class="choice-label">([^<]*)</span><span class="choice-odds">([^<]*)', html)
    items = sorted(items, key=lambda x: int(x[1]))
    assert [int(i) for _, i, _, _ in items] == list(range(len(items)))
    return [(text, odds.strip(), bool(adv)) for adv, _, text, odds in items]


def _canned(result: dict, advice: dict, outcomes: list[dict], totals: list[int]) -> dict:
    """The result with its choices' odds replaced by canned figures."""
    choices = [{**c, "outcome": o, "total": t} for c, o, t in zip(result["choices"], outcomes, totals)]
    return {**result, "advice": advice, "choices": choices}


def test_choices_show_every_pair_with_its_chance_and_the_advised_one():
    """Marc's 4, 5, 1 against 9: three choices (keep 4 + 5 as they are,
    4 + 1 instead, 5 + 1 instead), each with its canned chance and total,
    symbols named; the advised one marked; each button's action is the
    choice's own."""
    spec = {"characteristic": 0, "bonus": 1, "difficulty": 9}
    r = rules.roll(SYSTEM, spec, ScriptedRng([4, 5, 1]))
    canned = [{"failure": 0.25, "tie": 0.0, "success": 0.75}, {"failure": 0.875, "tie": 0.0, "success": 0.125},
              {"failure": 1.0, "tie": 0.0, "success": 0.0}]
    r = _canned(r, r["choices"][1]["action"], canned, [9, 5, 6])
    items = _choice_items(ui.render_result(r, {}))
    # best play's pair the main button in the rules' words; the others in their column, short
    assert items == [("4 + 5 as they are (axe–sword)", "success 75.0 % · total 9", False),
                     ("Keep 4 + 1 instead (axe–axe)", "success 12.5 % · total 5", True),
                     ("5 + 1 (sword–axe)", "success 0 % · total 6", False)]
    assert [ui.action_for(f"choice-{i}", r, {}, {}) for i in range(3)] == [c["action"] for c in r["choices"]]


def test_opposed_choices_name_the_side_and_the_tie_at_the_cap():
    """Opposed, both sides with a bonus die: each choice names whose pair
    it is, gives the initiator's chance to win and, when there is one, the
    share still tied at the cap (canned)."""
    spec = {"characteristic": 2, "bonus": 1, "max_rerolls": 3,
            "opponent": {"characteristic": 2, "bonus": 1}}
    r = rules.roll(SYSTEM, spec, ScriptedRng([6, 2, 1, 5, 2, 1]))
    n = len(r["choices"])
    canned = [{"failure": 0.5, "tie": 0.0625, "success": 0.4375}] + [{"failure": 1.0, "tie": 0.0, "success": 0.0}] * (n - 1)
    r = _canned(r, r["choices"][0]["action"], canned, [10] * n)
    items = _choice_items(ui.render_result(r, {}))
    assert len(items) == n == 6
    assert items[0] == ("Initiator: keep 6 + 2 as they are (mace–sword)", "wins 43.8 % (tied 6.2 %) · total 10", True)
    # the opponent's pairs in their own column, each with the opponent's own chance
    assert items[3][0] == "5 + 2 as they are (sword–sword)" and items[4][1] == "wins 100 % · total 10"
    html = ui.render_result(r, {})
    assert html.index("Initiator keeps") < html.index("Opponent keeps")


def test_no_choices_without_a_bonus_die_or_after_accepting():
    """Nothing to choose: no choice buttons (no bonus die; or the pair
    accepted, which also leaves the dice untappable)."""
    plain = rules.roll(SYSTEM, {"characteristic": 3}, ScriptedRng([3, 4]))
    assert 'data-act="choice-' not in ui.render_result(plain, {})
    spec = {"characteristic": 0, "bonus": 1, "difficulty": 9}
    r = rules.roll(SYSTEM, spec, ScriptedRng([4, 5, 1]))
    done = rules.act(SYSTEM, spec, r, ui.action_for("choice-0", r, {}, {}), ScriptedRng([]))
    html = ui.render_result(done, {})
    assert 'data-act="choice-' not in html and _keys(html) == [] and _keep_button(html) is None
