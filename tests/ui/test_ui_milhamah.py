"""The Milhamah tab's pure functions (static/py/tabs/ui_milhamah.py) under
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
from rules.dice import ScriptedRng, SpecError
from rules.milhamah import model as M
from static_form import static_form
from tab_registry import odds_panel
from tabs import ui_milhamah as U

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
    # untapped, Reroll takes the advice: red A and the two green B dice (the
    # best play, rules.milhamah.probability); they show the text's ק and ר and a dud ק
    assert U.action_for("reroll", r, {"selected": []}, {})["dice"] == r["best_reroll"] == [0, 5, 7]
    r2 = rules.act("milhamah", spec, r, U.action_for("reroll", r, {"selected": []}, {}),
                   ScriptedRng([RA["ק"], GB["ר"], GB["ק"]]))
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
    # the rewards are choices side by side (the old natural buttons give way to them)
    assert 'data-act="natural:' not in html and "Natural: +3 successes" in html and "Natural: a Merit Point" in html
    labels = [U.choice_label(c["action"], r) for c in r["choices"]]
    i = labels.index("Natural: a Merit Point")
    assert U.action_for(f"choice-{i}", r, {}, {}) == {"do": "natural", "reward": "merit"}
    assert "forfeits the first-roll bonus" in html
    action = U.action_for("cipher", r, {"selected": ["1"]}, {})
    assert action == {"do": "cipher", "dice": [1]}
    r2 = rules.act("milhamah", spec, r, U.action_for("natural:merit", r, {}, {}), ScriptedRng([]))
    assert r2["merit_point"] and "data-act" not in U.render_result(r2, {"selected": []})


def test_opposed_critical_and_hit_location_from_form_fields():
    """Opposed, "let them react": your turn first (no opponent step, no
    hit location), then the opponent's reaction (their tray tappable,
    their reroll and stand buttons, their odds), and the hit location only
    once they have stood."""
    spec = rules.normalize("milhamah", {"shoresh": "אשר", "pool": {"red": 2, "blue": 2},
                                        "opponent": {"shoresh": "חנן", "pool": {"red": 2}}})
    r = rules.roll("milhamah", spec, ScriptedRng([RA["ר"], RB["*"], BA["א"], BB["ש"], RA["ב"], RB["*"]]))
    html = U.render_result(r, {"selected": []})
    assert "Natural: let them react" in html and "Natural: +1, cannot be countered" in html
    assert 'data-die="opponent:0"' not in html and ":opponent" not in html
    assert 'data-act="hit_location"' not in html and "void" not in html
    r = rules.act("milhamah", spec, r, U.action_for("natural:critical", r, {}, {}), ScriptedRng([]))
    html = U.render_result(r, {"selected": ["opponent:0"]})
    assert 'data-die="opponent:0"' in html and 'data-act="reroll:opponent"' in html
    assert "Opponent: stand (keep their dice)" in html and 'data-act="hit_location"' not in html
    odds = odds_panel(U, spec, r, {"selected": ["opponent:0"]})
    assert 'data-odds="opponent"' in odds and "If the opponent rerolls 1 die" in odds
    assert U.action_for("reroll:opponent", r, {"selected": []}, {})["side"] == "opponent"
    r = rules.act("milhamah", spec, r, U.action_for("stand:opponent", r, {}, {}), ScriptedRng([]))
    assert 'data-act="hit_location"' in U.render_result(r, {})
    fields = {"hit.armour": ["2"], "hit.vig": ["1"], "hit.light": ["1"], "hit.serious": ["0"], "hit.critical": ["0"]}
    action = U.action_for("hit_location", r, {}, fields)
    assert action == {"do": "hit_location", "armour": 2, "vig": 1, "light": 1, "serious": 0, "critical": 0}
    # the hit location as the result's one choice takes the GM's numbers too
    assert U.action_for("choice-0", r, {}, fields) == {**action, "side": "initiator"}
    h = rules.act("milhamah", spec, r, action, ScriptedRng([1]))
    assert 'data-odds="opponent"' not in odds_panel(U, spec, h, {})
    html = U.render_result(h, {})
    assert "Chest" in html and "m-hitbox" in html and "beyond the wound track" in html
    assert 'width="128"' in html  # the letter drawn large
    with pytest.raises(SpecError) as e:
        U.action_for("hit_location", r, {}, {"hit.vig": ["-3"]})
    assert e.value.field == "hit.vig"


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
    # players have no RULES-NOTES: the rule is named in words
    assert "RULES-NOTES" not in html and "reconstructed from the game's public material" in html
    assert "Head" in html
    assert html.count('class="m-opp"') == 3 * 2 * 6


def test_summary_lines():
    """While a step may still change the dice the history
    line says "so far"; the final line does not."""
    spec, r = _rachel()
    assert U.summary(r) == "אשר: no letter yet → so far a botch"
    r2 = rules.act("milhamah", spec, r, {"do": "reroll", "dice": [0, 2, 4]},
                   ScriptedRng([RA["ק"], RA["ר"], GA["ת"]]))
    assert U.summary(r2) == "אשר: 1 of 3 needed → failure"


def test_hebrew_runs_are_isolated():
    assert U.he("a חנן b") == 'a <bdi lang="he">חנן</bdi> b'
    assert U.he("<") == "&lt;"


def test_a_list_of_shorashim_keeps_its_order():
    """Comma-separated Hebrew words stay in reading order (one isolate each)."""
    assert U.he("גד, זט") == '<bdi lang="he">גד</bdi>, <bdi lang="he">זט</bdi>'


# --------------------------------------------------------------------------
# Best play on the page, with canned advice and odds: the
# advised dice marked ↻ in advance, one tap takes the advice, a tap on the
# dice overrides it, and the odds panel prices both.

def _advised(best=(0, 2)):
    spec, r = _rachel()
    return spec, {**r, "best_reroll": list(best)}


def _canned(dice, meets, why=None, natural=0.05):
    o = {"value": {"0": 1 - meets, "3": meets}, "outcome": {"botch": 0.2, "failure": 0.8 - meets,
                                                          "success_at_cost": meets},
         "exact": True, "dice": list(dice), "meets": meets, "natural": natural, "now": "botch",
         "side": "initiator"}
    if why:
        o["why"] = why
    return o


def test_the_advised_dice_are_marked_and_rerolled_in_one_tap():
    spec, r = _advised()
    html = U.render_result(r, {"selected": []})
    marks = re.findall(r'data-die="(\d)".*?<span class="die-tag" aria-hidden="true">([^<]*)</span>', html)
    assert [k for k, tag in marks if "↻" in tag] == ["0", "2"]
    assert "Reroll 2 of X = 3 (advised)" in html and 'data-act="advice"' not in html
    assert U.action_for("reroll", r, {"selected": []}, {}) == {"do": "reroll", "dice": [0, 2]}


def test_tapping_dice_overrides_the_advice_and_the_advice_stays_one_tap_away():
    spec, r = _advised()
    ui = {"selected": ["0", "1", "2", "3", "4"]}
    html = U.render_result(r, ui)
    assert "Reroll 3 (your choice)" in html and 'data-act="advice"' in html
    assert "Reroll the advised 2" in html
    assert U.action_for("reroll", r, ui, {}) == {"do": "reroll", "dice": [5, 6, 7]}
    assert U.action_for("advice", r, ui, {}) == {"do": "reroll", "dice": [0, 2]}
    with pytest.raises(SpecError):
        U.action_for("advice", {**r, "best_reroll": []}, ui, {})


def test_odds_questions_ask_best_play_and_the_players_choice():
    """Best play is asked as the action None; the player's own choice only
    once they tap, as the reroll of exactly the dice Reroll would take."""
    spec, r = _advised()
    q = U.questions(spec, r, {"selected": []})
    assert set(q) == {"best"} and q["best"]["action"] is None and q["best"]["result"] is r
    q = U.questions(spec, r, {"selected": ["0", "1", "2", "3", "4"]})
    assert set(q) == {"best", "choice"}
    assert q["choice"]["action"] == {"do": "reroll", "dice": [5, 6, 7]}


def test_odds_panel_shows_your_choice_beside_best_and_why():
    spec, r = _advised()
    answers = {"best": _canned([0, 2], 0.31, why="ט and כ are only on design B"),
               "choice": _canned([5, 6, 7], 0.12)}
    html = U.render_odds(spec, answers, r)
    assert "Your choice: <strong>12.0 %</strong>, best: <strong>31.0 %</strong>" in html
    assert 'data-odds="reroll"' in html and 'data-odds="best"' in html
    assert 'Why these dice: <bdi lang="he">ט</bdi> and <bdi lang="he">כ</bdi> are only on design B' in html
    assert "If you reroll 3 dice now" in html
    html = U.render_odds(spec, {"best": answers["best"]}, r)
    assert "If you reroll 2 dice now" in html and "Best play (↻): rerolling" in html and "31.0 %" in html
    assert "Why these dice" in html and 'data-odds="best"' not in html
    keep = U.render_odds(spec, {"best": {**_canned([], 0.5), "why": "the first-roll bonus is worth more"}}, r)
    assert "Best play now: keep the roll" in keep and "the first-roll bonus is worth more" in keep


def test_a_refused_odds_question_does_not_hide_the_others():
    spec, r = _advised()
    html = U.render_odds(spec, {"best": {"error": "action: odds are given for a reroll"},
                                "choice": _canned([5, 6, 7], 0.12)}, r)
    assert "12.0 %" in html and "error" not in html.lower()
    assert "odds are given" in U.render_odds(spec, {"best": {"error": "action: odds are given for a reroll"}}, r)


def test_the_opponents_turn_asks_their_best_play():
    spec = rules.normalize("milhamah", {"shoresh": "אשר", "pool": {"red": 2}, "rerolls": 2,
                                        "opponent": {"shoresh": "חנן", "pool": {"red": 2}, "rerolls": 2}})
    r = rules.roll("milhamah", spec, ScriptedRng([RA["א"], RB["ז"], RA["ב"], RB["ז"]]))
    r = rules.act("milhamah", spec, r, {"do": "stand"}, ScriptedRng([]))
    q = U.questions(spec, r, {"selected": []})
    assert set(q) == {"opponent_best"} and q["opponent_best"]["action"] == {"do": "best", "side": "opponent"}
    q = U.questions(spec, r, {"selected": ["opponent:1"]})
    assert q["opponent_choice"]["action"] == {"do": "reroll", "side": "opponent", "dice": [0]}


# --------------------------------------------------------------------------
# Words and marks.

def test_a_botch_that_can_still_be_rerolled_reads_so_far_a_botch():
    """What a player would say, "So far: a botch", and
    why (no shoresh letter yet), not "So far: no letter"."""
    spec, r = _rachel()
    html = U.render_result(r, {"selected": []})
    assert '<strong class="outcome-name">So far: a botch</strong> no shoresh letter yet' in html
    assert ">Botch<" not in html and "So far: no letter" not in html


def test_a_final_botch_says_how_catastrophic():
    spec = {"shoresh": "אב", "pool": {"red": 4}, "rounds": 0, "difficulty": 1}
    r = rules.roll("milhamah", spec, ScriptedRng([RA["ג"], RB["*"], RA["ג"], RB["*"]]))
    html = U.render_result(r, {"selected": []})
    assert '<strong class="outcome-name">Botch</strong> no shoresh letter, 2 wilds: a disaster' in html
    assert U.summary(r) == "אב: no letter, 2 wilds → botch (a disaster)"
    r = rules.roll("milhamah", spec, ScriptedRng([RA["ג"], RB["*"], RA["ג"], RB["ז"]]))
    assert "1 wild: a bad botch" in U.render_result(r, {}) and "1 wilds" not in U.render_result(r, {})
    assert U.summary(r) == "אב: no letter, 1 wild → botch (a bad botch)"


def test_success_at_a_cost_is_worded_one_way():
    r = rules.roll("milhamah", {"shoresh": "אשר", "pool": ["red"], "difficulty": 1, "rounds": 0},
                   ScriptedRng([1, 2, 3, 4]))
    html = U.render_result(r, {})
    assert '<strong class="outcome-name">Success at a cost</strong>' in html
    assert "at cost" not in html.replace("at a cost", "")
    odds = U.render_odds(rules.normalize("milhamah", RACHEL), {"roll": rules.odds("milhamah", RACHEL)}, None)
    assert "Success at a cost" in odds and "Success at cost" not in odds


def test_the_legend_explains_the_marks_while_the_dice_may_change():
    """Each mark that can show is explained; "wild ✗" only when a reacting
    side shows a wild that does not count (not while you
    act and your wilds count)."""
    spec, r = _rachel()
    html = U.render_result(r, {"selected": []})
    for mark, words in U.MARKS:
        line = f'<b class="m-mark" aria-hidden="true">{mark}</b> {words}'
        assert (line in html) == (mark != "wild ✗"), mark
    acting = rules.roll("milhamah", RACHEL, ScriptedRng([RA["א"], RB["*"]] + RACHEL_FIRST[2:]))
    assert "wild ✗" not in U.render_result(acting, {"selected": []})
    reacting = rules.roll("milhamah", {**RACHEL, "reaction": True}, ScriptedRng([RA["א"], RB["*"]] + RACHEL_FIRST[2:]))
    html = U.render_result(reacting, {"selected": []})
    assert f'<b class="m-mark" aria-hidden="true">wild ✗</b> {dict(U.MARKS)["wild ✗"]}' in html
    r2 = rules.act("milhamah", spec, r, {"do": "reroll", "dice": [0]}, ScriptedRng([1]))
    assert "m-legend" not in U.render_result(r2, {})


def test_the_dice_also_spell():
    """"The dice also spell: שלם (be whole, at peace; repay), …": written
    with final forms, glossed, bounded, "and N more"."""
    spec = {"shoresh": "אב", "pool": {"red": 4, "green": 4}, "rounds": 0, "difficulty": 1}
    draws = [RA["א"], RB["ל"], RA["ש"], RB["מ"], GA["כ"], GB["ר"], GA["ב"], GB["*"]]
    r = rules.roll("milhamah", spec, ScriptedRng(draws))
    html = U.render_result(r, {})
    assert 'The dice also spell: <bdi lang="he">' in html
    assert '<bdi lang="he">שלם</bdi> (be whole, at peace; repay)' in html
    more = r["also_spell_count"] - len(r["also_spell"])
    assert more > 0 and f", and {more} more." in html
    assert U.spelled_html({"also_spell": []}) == ""


def test_fresh_dice_follow_the_last_stage():
    spec, r = _rachel()
    assert U.fresh_dice(r, {"selected": []}) == set(range(8))
    r2 = rules.act("milhamah", spec, r, {"do": "reroll", "dice": [4, 1]}, ScriptedRng([1, 1]))
    assert U.fresh_dice(r2, {"selected": []}) == {1, 4}


@pytest.mark.parametrize("seed", range(12))
def test_players_never_see_our_notes_on_the_tab(seed):
    """No "RULES-NOTES" and no "1 wilds" in anything the tab draws."""
    import random
    rng = random.Random(seed)
    spec = {"shoresh": rng.choice(["אשר", "רוח", "שלום"]), "rerolls": rng.randint(0, 4),
            "difficulty": rng.randint(1, 6), "reaction": rng.random() < 0.3}
    if rng.random() < 0.5:
        spec["opponent"] = {"shoresh": "חנן"}
    r = rules.roll("milhamah", spec, rng)
    spec = rules.normalize("milhamah", spec)
    for html in (U.render_result(r, {"selected": []}), odds_panel(U, spec, r, {"selected": []}),
                 odds_panel(U, spec, None, {"selected": []}), U.render_reference(), U.summary(r)):
        assert "RULES-NOTES" not in html and "1 wilds" not in html


def test_when_best_play_keeps_the_roll_no_die_is_marked():
    spec, r = _advised(best=())
    html = U.render_result(r, {"selected": []})
    assert "↻</span>" not in html and "(best play keeps the roll)" in html
    assert "↻</span>" in U.render_result(r, {"selected": ["0"]})


def test_the_history_entry_says_success_at_a_cost():
    """The roll history words the outcome as the tab does."""
    r = rules.roll("milhamah", {"shoresh": "אשר", "pool": ["red"], "difficulty": 1, "rounds": 0},
                   ScriptedRng([1, 2, 3, 4]))
    html = U.views.history_entry({"system": "milhamah", "result": r}, 1, "Milhamah RPG", U.summary(r))
    assert ">Success at a cost<" in html


# --------------------------------------------------------------------------
# The choices side by side, from canned advice.

def _canned_choices(turn="initiator"):
    side = {"side": turn}
    return {"turn": turn, "spec": {"shoresh": "שר"}, "allowed": ["reroll", "natural"], "dice": [],
            "advice": {"do": "natural", "reward": "critical", **side} if turn == "initiator"
            else {"do": "reroll", "dice": [1, 2], **side},
            "choices": [
                {"action": {"do": "reroll", "dice": [1, 2], **side}, "outcome": {}, "meets": 0.9, "success": 0.8,
                 "critical": 0.05, "botch": 0.01, "exact": False, "sampled": 2000, "margin": 0.0219},
                {"action": {"do": "natural", "reward": "uncounterable", **side}, "outcome": {}, "meets": 1.0,
                 "success": 1.0, "critical": 0.0, "botch": 0.0, "void_reaction": 1.0, "exact": True},
                {"action": {"do": "natural", "reward": "critical", **side} if turn == "initiator"
                 else {"do": "stand", **side}, "outcome": {}, "meets": 1.0, "success": 1.0, "critical": 0.75,
                 "botch": 0.0, "void_reaction": 0.0, "exact": True}]}


def test_choices_stand_side_by_side_with_their_odds():
    """Each allowed action is a button with its chance and risk under it;
    best play's is marked; one tap takes it (``choice-<i>``); a sampled
    figure says so with its margin; the rewards replace the old natural
    buttons."""
    r = _canned_choices()
    html = U.choices_html(r)
    assert html.count('data-act="choice-') == 3
    assert 'data-advised data-act="choice-2"' in html and html.count("data-advised") == 1
    assert "Reroll dice 2 and 3" in html and "meets 90.0 % · success 80.0 % · critical 5.0 %" in html
    assert "sampled, ±2.2 %" in html
    assert "Natural: +1, cannot be countered" in html and "no reaction" in html
    assert "Natural: let them react (critical if they get 0)" in html and "critical 75.0 %" in html
    assert "Your choices" in html
    assert U.action_for("choice-2", r, {}, {}) == {"do": "natural", "reward": "critical", "side": "initiator"}
    assert U.action_for("choice-0", r, {}, {}) == {"do": "reroll", "dice": [1, 2], "side": "initiator"}
    with pytest.raises(SpecError, match="no longer on offer"):
        U.action_for("choice-7", r, {}, {})
    tray = U.render_result(r, {"selected": []})
    assert 'data-act="natural:' not in tray and tray.count('data-act="choice-') == 3


def test_the_reactors_choices_give_the_initiators_chances():
    """On the opponent's turn the figures are the initiator's chances the
    reaction leaves, and the title says so."""
    html = U.choices_html(_canned_choices("opponent"))
    assert "The opponent&#x27;s choices" in html and "initiator meets 100 % · critical 75.0 %" in html
    assert "Opponent: reroll dice 2 and 3" in html and "Opponent: stand (keep their dice)" in html
    assert 'data-advised data-act="choice-0"' in html and html.count("data-advised") == 1


def test_one_choice_is_no_comparison():
    """A single choice (the hit location) draws no panel: its own button
    stays, and the old buttons come back without choices."""
    r = {"turn": None, "allowed": ["hit_location"], "dice": [], "advice": {"do": "hit_location"},
         "choices": [{"action": {"do": "hit_location"}, "outcome": {}, "meets": 1, "success": 1, "critical": 1,
                      "botch": 0, "exact": True}]}
    assert U.choices_html(r) == ""
    assert 'data-act="hit_location"' in U.render_result(r, {})
    assert 'data-act="natural:merit"' in U.render_result({"allowed": ["natural"], "dice": []}, {})


def test_choices_from_a_real_roll_take_one_tap():
    """The page's taps on a real opposed natural (dice forced): each choice
    is an action the rules take, and the advised one is marked."""
    spec = rules.normalize("milhamah", {"shoresh": "אשר", "pool": {"red": 2, "blue": 2},
                                        "opponent": {"shoresh": "חנן", "pool": {"red": 2}}})
    r = rules.roll("milhamah", spec, ScriptedRng([RA["ר"], RB["*"], BA["א"], BB["ש"], RA["ב"], RB["*"]]))
    html = U.render_result(r, {"selected": []})
    assert html.count('data-act="choice-') == len(r["choices"]) >= 3
    for i in range(len(r["choices"])):
        action = U.action_for(f"choice-{i}", r, {}, {})
        rules.act("milhamah", spec, r, action, ScriptedRng([1] * 4), advise=False)
    i = next(i for i, c in enumerate(r["choices"]) if c["action"] == r["advice"])
    assert f'data-advised data-act="choice-{i}"' in html


def test_a_read_only_result_mid_turn_offers_nothing_and_says_whose_turn():
    """A shared result opened mid-turn is read-only: no
    "tap dice to freeze them", no ↻ marks, no tappable die, no step
    button, no legend; it says whose turn it was."""
    spec, r = _rachel()
    live = U.render_result(r, {"selected": []})
    assert "tap dice to freeze them" in live and "↻" in live  # the same roll, on the roller's page
    html = U.render_result(r, {"selected": [], "readonly": True})
    assert "tap dice to freeze" not in html and "↻" not in html
    assert "data-die=" not in html and "data-act=" not in html and "m-legend" not in html
    assert "Shared mid-turn: it was the roller's turn (they could still reroll)" in html
