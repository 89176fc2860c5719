"""The Mirage tab's pure Python (static/py/tabs/ui_mirage.py): the form in
index.html opens with a valid roll, form <-> spec round-trips, errors land on
controls that exist, the tray draws what the rules allow (Pray only when
allowed), Conditions persist through ``fields_after``, and text is escaped."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import rules
from rules.dice import ScriptedRng, SpecError
from rules.mirage import model as mirage
from static_form import static_form
from tab_registry import odds_panel
from tabs import ui_mirage as ui

INDEX = Path(__file__).resolve().parents[2] / "index.html"


def index_html() -> str:
    if not INDEX.exists():  # the Pyodide run copies the Python only
        pytest.skip("index.html is not in this file system")
    return INDEX.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def form():
    return static_form("mirage")


def test_form_opens_with_the_default_roll(form):
    """DESIGN.md: every form opens filled with a valid roll; ours is the
    module's DEFAULT_SPEC (Shadowcraft d8, Agility d10)."""
    spec = rules.normalize("mirage", ui.spec_from_form(form.fields))
    assert spec == rules.default_spec("mirage")


def test_every_spec_field_has_a_control_and_an_error_slot(form):
    """A SpecError names a spec field; the control of that name and its
    [data-error-for] slot exist, so the message shows beside it."""
    for key in ("attribute", "attribute_name", "skill", "skill_name", "gear", "difficulty",
                "helpers", "conditions", "modifier", "passive", "prayer_bonus"):
        assert key in form.names and key in form.slots, key
    for key in ui.OPPONENT_FIELDS:
        assert f"opponent.{key}" in form.names and f"opponent.{key}" in form.slots
    assert "_form" in form.slots and "opponent" in form.slots


def test_form_lists_the_twelve_skills_and_the_difficulty_table():
    """"Core Skills" and "Difficulty": every skill and difficulty is offered."""
    html = index_html()
    block = html[html.index("<!-- tab:mirage -->"):html.index("<!-- /tab:mirage -->")]
    for skill in mirage.SKILLS:
        assert f'value="{skill}"' in block
    for name in mirage.DIFFICULTY:
        assert f'value="{name}"' in block
    for names in mirage.CONDITION_NAMES.values():
        for n in names:
            assert f'name="conditions" value="{n}"' in block
    assert "style=" not in block and not re.search(r"\son[a-z]+=", block)  # no inline style or JS


ROUND_TRIP = [
    {"attribute": 12, "skill": 0, "skill_name": "might", "difficulty": "hard", "helpers": 3},
    {"attribute": 6, "skill": 10, "skill_name": "healing", "attribute_name": "wits",
     "gear": [8, 6], "modifier": -2, "conditions": {"physical": 1, "mental": 3}},
    {"attribute": 8, "skill": 8, "passive": True, "skill_name": None},
    {"attribute": 10, "skill": 6, "opponent": {"attribute": 12, "skill": 0, "gear": [10],
                                               "helpers": 2, "modifier": 1}},
]


@pytest.mark.parametrize("spec", ROUND_TRIP, ids=["no skill, hard, 3 helpers", "other attribute, gear, conditions",
                                                  "passive", "opposed"])
def test_form_values_round_trip(spec):
    """form_values is the inverse of spec_from_form (share links)."""
    norm = rules.normalize("mirage", spec)
    values = ui.form_values(norm)
    fields = {}
    for name, v in values.items():
        if isinstance(v, bool):
            if v:
                fields[name] = ["on"]
        elif isinstance(v, list):
            if v:
                fields[name] = list(v)
        else:
            fields[name] = [v]
    back = rules.normalize("mirage", ui.spec_from_form(fields))
    opp = norm["opponent"]
    if opp is not None:  # the opponent's names are not on the form
        opp = {**opp, "skill_name": None, "attribute_name": "strength"}
    assert back == {**norm, "opponent": opp}


@pytest.mark.parametrize("fields,name", [
    ({"attribute": ["d7"]}, "attribute"),
    ({"gear": ["d8, banana"]}, "gear"),
    ({"helpers": ["4"]}, "helpers"),
    ({"modifier": ["lots"]}, "modifier"),
    ({"opposed": ["on"], "opponent.helpers": ["9"]}, "opponent.helpers"),
    ({"opposed": ["on"], "opponent.gear": ["d3"]}, "opponent.gear"),
], ids=["bad die", "bad gear", "four helpers", "modifier text", "opponent helpers", "opponent gear"])
def test_errors_name_the_form_control(fields, name):
    """The error's field is the control's name (main shows it there)."""
    with pytest.raises(SpecError) as e:
        rules.normalize("mirage", ui.spec_from_form(fields))
    assert e.value.field == name


def test_broken_is_held_by_the_form_and_refused_by_the_roll():
    """RULES-NOTES Mirage 5: the form may hold Broken (the odds say so),
    and the roll attempt is refused with the message at the Conditions."""
    spec = rules.normalize("mirage", ui.spec_from_form({"conditions": ["exhausted", "broken"]}))
    assert ui.form_values(spec)["conditions"] == ["exhausted", "broken"]
    assert "Broken" in odds_panel(ui, spec, None, {"selected": []})
    with pytest.raises(SpecError) as e:
        rules.roll("mirage", spec, ScriptedRng([6, 6]))
    assert e.value.field == "conditions"


def _roll(spec, draws):
    return rules.roll("mirage", spec, ScriptedRng(draws))


def test_tray_draws_dice_by_kind_and_offers_prayer():
    """Dice drawn by role with a kind each and distinct colours, each
    tappable (data-die) while a prayer is allowed; the Pray button shown."""
    r = _roll({"attribute": 10, "skill": 8, "gear": [6], "skill_name": "grace"}, [10, 3, 2])
    html = ui.render_result(r, {"selected": []})
    assert html.count("data-die=") == 3
    assert r["best_prayer"] == [] and 'data-act="pray"' in html  # best play keeps it; the player may pray
    assert "Pray: reroll 2 dice" in html and 'data-act="advice"' not in html

    for kind in ("kind-attribute", "kind-skill", "kind-gear"):
        assert kind in html
    assert "Attribute die (Agility)" in html and "Skill die (Grace)" in html
    assert "is-success" in html  # the 10 is marked a success


def test_one_pray_button_when_the_advice_is_the_default():
    """Untapped, a failure whose advice prays with every die without a
    success shows one button (the advice), not two alike; a tap brings the
    player's own prayer beside it."""
    r = _roll({"attribute": 10, "skill": 8, "gear": [6], "skill_name": "grace"}, [5, 3, 2])
    html = ui.render_result(r, {"selected": []})
    assert r["best_prayer"] == [0, 1, 2] and 'data-act="advice"' in html and 'data-act="pray"' not in html
    html = ui.render_result(r, {"selected": ["1"]})
    assert 'data-act="advice"' in html and "Pray: reroll 1 die" in html


def test_no_pray_button_on_a_passive_roll_or_after_praying():
    """"Passive Rolls" and "only once": no Pray button, no tappable dice."""
    passive = _roll({"attribute": 8, "skill": 6, "passive": True}, [2, 3])
    html = ui.render_result(passive, {"selected": []})
    assert 'data-act="pray"' not in html and "data-die=" not in html
    r = _roll({"attribute": 8, "skill": 6}, [2, 3])
    p = rules.act("mirage", r["spec"], r, ui.action_for("pray", r, {"selected": []}, {}), ScriptedRng([7, 1]))
    html = ui.render_result(p, {"selected": []})
    assert 'data-act="pray"' not in html
    assert 'data-condition-gained="physical"' in html
    assert "Before the prayer" in html


@pytest.mark.parametrize("selected,bonus,want", [
    ([], "0", [0, 1]),           # none tapped: every die without a success
    (["1"], "1", [1]),
    (["2", "0"], "2", [0]),      # die 2 shows 1: ignored
], ids=["default: the failures", "tapped die, +1", "a 1 is ignored, temple"])
def test_action_for_pray(selected, bonus, want):
    """The action for rules.act: the tapped dice and the form's bonus."""
    r = _roll({"attribute": 8, "skill": 6, "gear": [8]}, [2, 3, 1])
    a = ui.action_for("pray", r, {"selected": selected}, {"prayer_bonus": [bonus]})
    assert a == {"do": "pray", "dice": want, "bonus": int(bonus)}


def test_action_for_refuses_what_it_cannot_do():
    r = _roll({"attribute": 8, "skill": 6}, [1, 6])
    with pytest.raises(SpecError):
        ui.action_for("pray", r, {"selected": []}, {})  # the 1 cannot, the 6 is a success
    with pytest.raises(SpecError) as e:
        ui.action_for("pray", r, {"selected": ["1"]}, {"prayer_bonus": ["5"]})
    assert e.value.field == "prayer_bonus"
    with pytest.raises(SpecError):
        ui.action_for("push", r, {"selected": ["1"]}, {})


@pytest.mark.parametrize("held,gained,want", [
    ([], "physical", ["exhausted"]),
    (["exhausted", "angry"], "physical", ["exhausted", "angry", "battered"]),
    (["angry", "frightened", "hopeless"], "mental", ["angry", "frightened", "hopeless", "broken"]),
    (["battered"], "mental", ["battered", "angry"]),
], ids=["first physical", "next physical box", "fourth mental: Broken", "mental"])
def test_fields_after_ticks_the_condition(held, gained, want):
    """Conditions persist for the character: after a prayer that gained one,
    the next box of that type is ticked (Broken after three)."""
    assert ui.fields_after({"condition_gained": gained, "prayed": {"dice": [0]}},
                           {"conditions": held}) == {"conditions": want}


def test_fields_after_leaves_the_form_alone_otherwise():
    r = _roll({"attribute": 8}, [7])
    assert ui.fields_after(r, {"conditions": []}) is None


def test_the_ticked_condition_steps_the_next_roll():
    """End to end without a browser: pray, gain a physical Condition, the
    form's next spec carries it, and an Agility roll steps down."""
    r = _roll({"attribute": 8, "skill": 8, "skill_name": "grace"}, [2, 3])
    p = rules.act("mirage", r["spec"], r, {"do": "pray", "dice": [0, 1]}, ScriptedRng([1, 4]))
    fields = {"attribute": ["8"], "skill": ["8"], "skill_name": ["grace"]}
    fields.update(ui.fields_after(p, fields))
    spec = rules.normalize("mirage", ui.spec_from_form(fields))
    assert spec["conditions"] == {"physical": 1, "mental": 0, "broken": False}
    assert [d["sides"] for d in _roll(spec, [2, 2])["dice"]] == [8, 6]


def test_text_is_escaped():
    """No text from a result reaches the page unescaped (share links)."""
    r = _roll({"attribute": 8}, [7])
    r["explain"] = ["<script>alert(1)</script>"]
    r["dice"][0]["label"] = '"><img src=x>'
    html = ui.render_result(r, {"selected": []})
    assert "<script>" not in html and "<img" not in html


def test_odds_before_and_after_a_roll():
    """Odds: the chart of successes before rolling; after a roll, the
    prayer's odds for the tapped dice at each bonus, with P(Condition)."""
    spec = rules.normalize("mirage", {"attribute": 8, "skill": 6})
    html = odds_panel(ui, spec, None, {"selected": []})
    assert 'class="chart"' in html and "Success" in html
    r = _roll(spec, [2, 3])
    html = odds_panel(ui, spec, r, {"selected": ["0"]})
    assert "If you pray, rerolling 1 die" in html and html.count("<tr>") == 4
    assert "Condition" in html and "Temple +2" in html
    opp = rules.normalize("mirage", {"attribute": 8, "opponent": {"attribute": 8}})
    assert "Win" in odds_panel(ui, opp, None, {"selected": []})


def test_reference_and_summary():
    ref = ui.render_reference()
    assert ref.startswith("<summary>") and "Formidable" in ref and "Survival Instincts" in ref
    r = rules.roll("mirage", {"attribute": 8, "skill": 6, "skill_name": "might",
                              "opponent": {"attribute": 6}}, random.Random(4))
    s = ui.summary(r)
    assert s.startswith("Might: d8 & d6") and " vs " in s


def test_form_values_keep_the_skills_own_attribute_automatic():
    """"Core Skills": the attribute follows the skill unless another was
    chosen, so a share link does not pin it needlessly."""
    assert ui.form_values(rules.default_spec("mirage"))["attribute_name"] == ""
    spec = rules.normalize("mirage", {"skill_name": "healing", "attribute_name": "wits"})
    assert ui.form_values(spec)["attribute_name"] == "wits"


# --------------------------------------------------------------------------
# Tie-breaks: a button only on a tie, the earlier rolls kept in
# view, the odds including the tie-break.

OPPOSED = {"attribute": 8, "skill": 6, "skill_name": "might", "opponent": {"attribute": 8}}


def _tiebreak_button(html: str) -> bool:
    """A button that rolls the tie-break: its own, or the choice that does."""
    return 'data-act="tiebreak"' in html or ">Tie-break: roll again</button>" in html


@pytest.mark.parametrize("draws,tie", [([6, 2, 7], True), ([7, 2, 3], False), ([2, 2, 7], False)],
                         ids=["tie", "won", "lost"])
def test_tiebreak_button_only_on_a_tie(draws, tie):
    r = _roll(OPPOSED, draws)
    assert _tiebreak_button(ui.render_result(r, {"selected": []})) is tie
    assert ("tiebreak" in ui.questions(r["spec"], r, {"selected": []})) is tie


def test_tiebreak_keeps_the_tied_roll_in_view():
    """After the tie-break the tray shows the new dice and, smaller, the
    tied roll of both sides; the button goes when the tie is broken."""
    r = _roll(OPPOSED, [6, 2, 7])
    action = ui.action_for("tiebreak", r, {"selected": []}, {})
    t = rules.act("mirage", r["spec"], r, action, ScriptedRng([8, 6, 3]))
    html = ui.render_result(t, {"selected": []})
    assert not _tiebreak_button(html) and "tie-break 1" in html
    assert "Roll 1: 1 success, a tie" in html and "Opponent, roll 1: 1 success" in html
    tied = html[html.index('class="mirage-tied"'):]
    assert tied.count("<svg ") == 3  # your two dice and the opponent's one, as they tied
    assert ui.summary(t).endswith("vs 0, 1 tie-break")


def test_no_tiebreak_button_past_the_cap():
    r = _roll(OPPOSED, [1, 1, 1])
    for _ in range(mirage.MAX_TIEBREAKS):
        r = rules.act("mirage", r["spec"], r, {"do": "tiebreak"}, ScriptedRng([1, 1, 1]))
    assert r["outcome"] == "tie" and not _tiebreak_button(ui.render_result(r, {"selected": []}))


def test_tiebreak_after_a_prayer_ticks_no_second_condition():
    """The Condition a prayer cost is ticked once: a tie-break after the
    prayer leaves the form alone and does not announce it again."""
    r = _roll(OPPOSED, [2, 3, 7])
    p = rules.act("mirage", r["spec"], r, {"do": "pray", "dice": [0, 1]}, ScriptedRng([6, 1]))
    assert ui.fields_after(p, {"conditions": []}) == {"conditions": ["exhausted"]}
    t = rules.act("mirage", p["spec"], p, {"do": "tiebreak"}, ScriptedRng([2, 3, 4]))
    assert ui.fields_after(t, {"conditions": ["exhausted"]}) is None
    assert "data-condition-gained" not in ui.render_result(t, {"selected": []})


def test_odds_include_the_tiebreak():
    """Before rolling: win including tie-breaks; on a tie: the tie-break's
    own odds, each figure as the rules give it."""
    spec = rules.normalize("mirage", OPPOSED)
    o = rules.odds("mirage", spec)
    html = odds_panel(ui, spec, None, {"selected": []})
    assert "If the GM breaks ties by rolling again: win " + ui.views.pct(o["with_tiebreaks"]["win"]) in html
    r = _roll(OPPOSED, [6, 2, 7])
    html = odds_panel(ui, spec, r, {"selected": []})
    t = rules.odds("mirage", spec, r, {"do": "tiebreak"})
    assert "If the GM breaks the tie" in html
    assert f"win {ui.views.pct(t['win'])} · tie again {ui.views.pct(t['tie'])}" in html


def test_tiebreak_odds_render_canned_answers():
    """The tab only renders: canned answers in, their figures out."""
    spec = rules.normalize("mirage", OPPOSED)
    roll_o = {"value": {0: 1.0}, "outcome": {"failure": 0.2, "tie": 0.3, "success": 0.4,
                                             "success_with_bonus": 0.1},
              "p_success": 0.5, "p_bonus": 0.1, "win": 0.5, "tie": 0.3, "lose": 0.2, "dice": [8, 6],
              "with_tiebreaks": {"win": 0.712, "lose": 0.288, "tie": 0.0, "tiebreaks": 20,
                                 "if_ties_repeat": 0.7143}}
    tb = {**roll_o, "win": 0.25, "tie": 0.5, "lose": 0.25, "dice": [6, 6],
          "with_tiebreaks": {"win": 0.5, "lose": 0.5, "tie": 0.0, "tiebreaks": 19, "if_ties_repeat": 0.5}}
    html = ui.render_odds(spec, {"roll": roll_o, "tiebreak": tb}, None)
    assert "win 71.2 %, lose 28.8 % (win / (win + lose) = 71.4 %)" in html
    assert "The tie-break with 2d6: win 25.0 % · tie again 50.0 % · lose 25.0 %" in html
    html = ui.render_odds(spec, {"roll": roll_o, "tiebreak": {"error": "result: <b>stale</b>"}}, None)
    assert "&lt;b&gt;stale" in html and "<b>" not in html


def test_action_for_names_both_verbs():
    r = _roll(OPPOSED, [6, 2, 7])
    assert ui.action_for("tiebreak", r, {"selected": []}, {}) == {"do": "tiebreak"}
    with pytest.raises(SpecError, match="Tie-break"):
        ui.action_for("reroll", r, {"selected": []}, {})


# --------------------------------------------------------------------------
# The advised prayer: ↻ marks, one tap, your choice beside best.

TIED = {"attribute": 10, "skill": 6, "prayer_bonus": 2, "opponent": {"attribute": 6}}
#: The opponent's 2d6 both show 6: d10:6 and d6:3 lose 1-2 (no tie-break).
LOST = {"attribute": 10, "skill": 6, "prayer_bonus": 2, "opponent": {"attribute": 6, "skill": 6}}


def _tags(html: str) -> list:
    return re.findall(r'<span class="die-tag" aria-hidden="true">([^<]*)</span>', html)


def test_advised_dice_are_marked_until_a_tap():
    """Lost 1-2 with d10:6 and d6:3: best play prays with the d6 only. It
    is marked ↻ (and said so to screen readers) until the player taps."""
    r = _roll(LOST, [6, 3, 6, 6])
    html = ui.render_result(r, {"selected": []})
    own = html[:html.index("Opponent")]
    assert _tags(own) == ["Attribute", "Skill \u21bb"]
    assert "advised for the prayer" in own and 'data-act="advice"' in html
    assert "Pray the advised 1 die (\u21bb best, temple +2)" in html
    tapped = ui.render_result(r, {"selected": ["0"]})
    assert "\u21bb" not in "".join(_tags(tapped)) and 'data-act="advice"' in tapped


def test_pray_the_advised_dice_takes_the_advice_at_the_rolls_bonus():
    r = _roll(LOST, [6, 3, 6, 6])
    a = ui.action_for("advice", r, {"selected": ["0"]}, {"prayer_bonus": ["0"]})
    assert a == {"do": "pray", "dice": [1], "bonus": 2}
    p = rules.act("mirage", r["spec"], r, a, ScriptedRng([10]))
    assert [d["sides"] for d in p["dice"]] == [10, 10] and p["outcome"] == "success"
    assert 'data-act="advice"' not in ui.render_result(p, {"selected": []})


def test_best_play_keeps_a_success():
    """A success stands: no ↻, no advice button, the reason in words."""
    r = _roll({"attribute": 10, "skill": 6}, [6, 3])
    html = ui.render_result(r, {"selected": []})
    assert 'data-advice="keep"' in html and "already succeed" in html
    assert 'data-act="advice"' not in html and "\u21bb" not in "".join(_tags(html))
    with pytest.raises(SpecError):
        ui.action_for("advice", r, {"selected": []}, {})


def test_questions_ask_best_and_your_choice_once_tapped():
    r = _roll(LOST, [6, 3, 6, 6])
    q = ui.questions(r["spec"], r, {"selected": []})
    assert q["best"]["action"] == {"do": "pray", "dice": [1], "bonus": 2} and "choice" not in q
    q = ui.questions(r["spec"], r, {"selected": ["0", "1"]})
    assert q["choice"]["action"] == {"do": "pray", "dice": [0, 1], "bonus": 2}


CANNED_ROLL = {"value": {0: 0.5, 1: 0.5}, "outcome": {"failure": 0.5, "success": 0.5}, "p_success": 0.5,
               "p_bonus": 0.1, "dice": [10, 6], "success_with_prayer": 0.725, "condition_with_prayer": 0.2,
               "prayer_allowed": True, "prayer_bonus": 0}


def _canned_pray(p, cond):
    return {"outcome": {"failure": 1 - p, "success": p}, "p_success": p, "p_bonus": 0.05,
            "condition": cond, "dice": [6]}


def test_odds_show_your_choice_beside_best_and_why():
    """Canned answers: "Your choice: 12.0 %, best: 31.0 %", the Condition
    risks, and why (the d10's 6 stays)."""
    r = _roll({"attribute": 10, "skill": 6, "gear": [6]}, [6, 3, 4])
    answers = {"roll": CANNED_ROLL, "best": _canned_pray(0.31, 0.17), "choice": _canned_pray(0.12, 0.3),
               **{f"pray{b}": _canned_pray(0.12, 0.3) for b in (0, 1, 2)}}
    html = ui.render_odds(r["spec"], answers, r)
    assert "Your choice: <strong>12.0 %</strong> (Condition 30.0 %), best: <strong>31.0 %</strong>" in html
    assert "Why: the d10&#x27;s 6 already counts, so it stays" in html
    without = ui.render_odds(r["spec"], {k: v for k, v in answers.items() if k != "choice"}, r)
    assert "Your choice" not in without and 'data-odds="best"' in without


def test_odds_before_the_roll_show_the_turn_with_a_prayer():
    spec = rules.normalize("mirage", {"attribute": 10, "skill": 6})
    html = ui.render_odds(spec, {"roll": CANNED_ROLL}, None)
    assert "With a prayer on a failure (the advised dice): success <strong>72.5 %</strong> (Condition 20.0 %)" in html
    passive = rules.normalize("mirage", {"attribute": 10, "skill": 6, "passive": True})
    assert "With a prayer" not in ui.render_odds(passive, {"roll": {**CANNED_ROLL, "prayer_allowed": False}}, None)
    opposed = rules.normalize("mirage", TIED)
    assert "on a loss or a tie" in odds_panel(ui, opposed, None)


# --------------------------------------------------------------------------
# Every choice side by side, canned odds.

def _tie_result(choices, advice):
    r = _roll({"attribute": 8, "skill": 6, "prayer_bonus": 1, "opponent": {"attribute": 8}}, [7, 1, 6])
    return {**r, "choices": choices, "advice": advice}


CANNED = [
    {"action": {"do": "accept", "side": "initiator"}, "win": 0.0, "tie": 1.0, "lose": 0.0, "bonus": 0.0,
     "condition": 0.0, "exact": True, "outcome": {}},
    {"action": {"do": "tiebreak", "side": "initiator"}, "win": 0.635, "tie": 0.0, "lose": 0.365, "bonus": 0.1,
     "condition": 0.0, "exact": False, "sampled": 120, "margin": 0.031, "outcome": {}},
    {"action": {"do": "pray", "dice": [0], "bonus": 1, "side": "initiator"}, "win": 0.41, "tie": 0.0,
     "lose": 0.59, "bonus": 0.0, "condition": 1.0, "exact": True, "outcome": {}},
]


def test_choices_side_by_side_with_their_odds():
    """The choices' line: "Tie-break: win 63.5 % · Pray 1 die: win 41 %,
    Condition 100 % · Accept the tie", the advised one marked, why."""
    r = _tie_result(CANNED, CANNED[1]["action"])
    html = ui.render_result(r, {"selected": []})
    assert html.count('data-act="choice-') == 3
    assert 'data-advised data-act="choice-1"' in html
    assert ">Accept the tie</button>" in html and ">Pray 1 die</button>" in html
    assert "win 63.5 % \u00b13.1 %" in html and "win 41.0 %, Condition 100 %" in html
    assert "Why: Tie-break: roll again: the best chance to win, 63.5 % against 41.0 % for Pray 1 die" in html
    assert 'data-act="tiebreak"' not in html  # offered once, among the choices
    assert 'data-act="advice"' not in html and "\u21bb" not in "".join(_tags(html))
    assert ui.action_for("choice-2", r, {"selected": []}, {}) == CANNED[2]["action"]


def test_why_names_the_condition_when_the_chances_are_equal():
    same = [dict(CANNED[0], win=0.5, tie=0.0), dict(CANNED[2], win=0.5)]
    r = _tie_result(same, same[0]["action"])
    assert "the same chance as Pray 1 die, with less risk of a Condition (0 % against 100 %)" in \
        ui.render_result(r, {"selected": []})


def test_sampled_prayer_odds_say_so():
    spec = rules.normalize("mirage", {"attribute": 8, "skill": 6})
    o = dict(rules.odds("mirage", spec), prayer_sampled=120, prayer_margin=0.028)
    assert "\u00b12.8 %, from 120 sampled rolls each way" in ui.render_odds(spec, {"roll": o}, None)


def test_the_outcome_line_reads_as_a_player_says_it():
    """Words a player would say: "Success with a bonus — 2 successes", not "Success
    with bonus 2 successes"."""
    r = _roll({"attribute": 10, "skill": 10, "difficulty": "average"}, [10, 10])
    assert r["outcome"] == "success_with_bonus"
    text = re.sub(r"<[^>]+>", "", ui.render_result(r, {"selected": []}))
    assert "Success with a bonus — 4 successes" in text
    assert "Success with bonus" not in text


def test_a_prayer_still_open_reads_so_far():
    """A failure that may still be prayed for is "in
    progress" (the history says "so far"); after the prayer it is final."""
    from tabs import tab
    r = _roll({"attribute": 6, "skill": 6, "difficulty": "average"}, [3, 4])
    assert r["outcome"] == "failure" and tab.in_progress(ui, r)
    p = rules.act("mirage", r["spec"], r, {"do": "pray", "dice": [0]}, ScriptedRng([5]))
    assert not tab.in_progress(ui, p)


def test_a_read_only_result_offers_no_prayer():
    """A shared Mirage result that could still be prayed
    for shows no Pray button, no ↻ advice, no tappable die, and says the
    roller could still pray."""
    r = _roll({"attribute": 6, "skill": 6, "difficulty": "average"}, [3, 4])
    assert "data-act=" in ui.render_result(r, {"selected": []})
    html = ui.render_result(r, {"selected": [], "readonly": True})
    assert "data-act=" not in html and "data-die=" not in html and "\u21bb" not in html
    assert "tap the dice" not in html and "the roller could still pray" in html


def test_the_no_target_hint_says_what_the_dice_show():
    """With no die to reroll by default the hint says why: every blank die
    shows 1, or every die already shows a success (it never claims blank
    dice that are not there)."""
    both = _roll({"attribute": 10, "skill": 8, "difficulty": "average"}, [8, 7])
    assert both["can_pray"]
    text = ui.render_result(both, {"selected": []})
    assert "Every die shows a success" in text and "without a success shows 1" not in text
    ones = _roll({"attribute": 10, "skill": 8, "difficulty": "average"}, [1, 1])
    if ones.get("can_pray"):
        assert "Every die without a success shows 1" in ui.render_result(ones, {"selected": []})
