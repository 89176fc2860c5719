"""The Milhamah tab in a real browser: the shoresh typed on the
Hebrew letter pad, a roll, two dice frozen by tapping, a reroll that leaves
them as they were, the outcome and its explanation, the opponent's fields,
the faces view, and both tablet and phone widths without sideways scroll.

(Named ``test_milhamah_tab.py``: ``tests/rules/test_milhamah.py`` already
owns the module name ``test_milhamah``.)"""

from __future__ import annotations

import re

import pytest
from conftest import open_app, show_history, watched_page  # noqa: E402  (tests/browser/conftest.py)

pytestmark = pytest.mark.browser

TRAY = "#tray-milhamah"
FORM = "#form-milhamah"


def _faces(page, keys):
    out = []
    for k in keys:
        label = page.get_attribute(f'{TRAY} [data-die="{k}"]', "aria-label")
        out.append(re.search(r"showing (.+?)(,|$)", label).group(1))
    return out


def test_pad_roll_freeze_reroll(watched):
    """Type רוח on the pad, roll 8 dice, tap two to freeze them, reroll:
    the frozen two keep their faces, the outcome and explanation show."""
    page = watched
    page.click("#tabbtn-milhamah")
    page.fill(f"{FORM} [name=shoresh]", "")
    for ch in "רוחח":
        page.click(f'{FORM} [data-insert="{ch}"][data-target="shoresh"]')
    page.click(f'{FORM} [data-insert="⌫"][data-target="shoresh"]')
    assert page.input_value(f"{FORM} [name=shoresh]") == "רוח"
    page.click(f"{FORM} [data-roll]")
    page.wait_for_selector(f'{TRAY} svg[data-die="7"]')
    assert page.locator(f"{TRAY} svg[data-die]").count() == 8
    assert "Shoresh רוח" in page.inner_text(TRAY)
    before = _faces(page, ["1", "6"])
    page.click(f'{TRAY} [data-die="1"]')
    page.click(f'{TRAY} [data-die="6"]')
    assert page.get_attribute(f'{TRAY} [data-die="1"]', "aria-pressed") == "true"
    assert page.locator(f"{TRAY} .m-frozen").count() == 2
    page.wait_for_selector('#odds-milhamah [data-odds="reroll"]')
    assert "If you reroll 3 dice now" in page.inner_text("#odds-milhamah")
    page.click(f'{TRAY} [data-act="reroll"]')
    page.wait_for_function("document.querySelector('#tray-milhamah [data-act]') === null"
                           " || !document.querySelector('#tray-milhamah [data-act=\"reroll\"]')")
    after = [re.search(r"showing (.+?)(,|$)", page.get_attribute(f"{TRAY} svg.die >> nth={i}", "aria-label"))
             .group(1) for i in (1, 6)]
    assert after == before
    roles = [page.get_attribute(f"{TRAY} svg.die >> nth={i}", "class") for i in range(8)]
    assert sum("role-rerolled" in c for c in roles) == 3
    assert "role-frozen" in roles[1] and "role-frozen" in roles[6]
    text = page.inner_text(TRAY)
    assert "Rerolled 3 dice; the others stayed frozen." in text
    assert re.search(r"needed: (failure|success at a cost|success|natural success)\.|botch", text)
    assert page.locator(f"{TRAY} .outcome[data-outcome]").count() == 1


def test_bad_shoresh_is_shown_beside_the_field(watched):
    page = watched
    page.click("#tabbtn-milhamah")
    page.fill(f"{FORM} [name=shoresh]", "abc")
    page.click(f"{FORM} [data-roll]")
    page.wait_for_selector(f'{FORM} [data-error-for="shoresh"]:not(:empty)')
    assert "'a' is not a Hebrew letter" in page.inner_text(f'{FORM} [data-error-for="shoresh"]')
    assert page.get_attribute(f"{FORM} [name=shoresh]", "aria-invalid") == "true"
    page.fill(f"{FORM} [name=shoresh]", "אשר")


def test_opposed_fields_and_odds(watched):
    """The opponent's fields appear only for an opposed roll; the odds
    panel ranks the colour pairs before rolling."""
    page = watched
    page.click("#tabbtn-milhamah")
    assert page.locator(f"{FORM} .m-opponent").is_hidden()
    page.check(f"{FORM} [name=opposed]")
    assert page.locator(f"{FORM} .m-opponent").is_visible()
    page.click(f"{FORM} [data-roll]")
    page.wait_for_selector(f"{TRAY} figure.m-row >> nth=1")
    assert "Opponent's dice" in page.inner_text(TRAY)
    page.uncheck(f"{FORM} [name=opposed]")
    page.wait_for_selector('#odds-milhamah [data-odds="reroll"]')


def test_faces_view(watched):
    page = watched
    page.click("#tabbtn-milhamah")
    page.click("#ref-milhamah summary")
    assert page.locator("#ref-milhamah .m-face").count() == 72
    assert "Atbash" in page.inner_text("#ref-milhamah")


@pytest.mark.parametrize("size", [(768, 1024), (390, 844)], ids=["tablet", "phone"])
def test_no_sideways_scroll_and_big_targets(browser, base_url, size):
    """Tablet first: both widths fit, pad keys and tray buttons are ≥ 44 px."""
    context, page, watch = open_app(browser, base_url, viewport=size)
    try:
        page.click(f"{FORM} [data-roll]")
        page.wait_for_selector(f'{TRAY} [data-act="reroll"]')
        assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
        for sel in (f'{FORM} .m-key >> nth=0', f'{TRAY} [data-act="reroll"]', f'{TRAY} svg[data-die="0"]'):
            box = page.locator(sel).bounding_box()
            assert box["width"] >= 44 and box["height"] >= 44, sel
        page.screenshot(path=f"/tmp/milhamah-{size[0]}.png", full_page=True)
        watch.check(page)
    finally:
        context.close()


def _history_script(results) -> str:
    """An init script that stores these Milhamah results as the roll
    history (as the page itself stores them), so a test opens a roll whose
    dice it chose."""
    import json

    from records import store
    entries = [store.new_entry(r, label="forced") for r in results]
    return f"localStorage.setItem('dice-table/history', {json.dumps(store.dump(entries))});"


def _forced_natural_vs_opponent():
    """A first-roll natural אשר against a reacting חנן at zero letters."""
    import rules
    from rules.dice import ScriptedRng
    from rules.milhamah import model as M
    ra = {f: i + 1 for i, f in enumerate(M.die_faces("red", "A"))}
    rb = {f: i + 1 for i, f in enumerate(M.die_faces("red", "B"))}
    ba = {f: i + 1 for i, f in enumerate(M.die_faces("blue", "A"))}
    bb = {f: i + 1 for i, f in enumerate(M.die_faces("blue", "B"))}
    spec = {"shoresh": "אשר", "pool": {"red": 2, "blue": 2}, "rerolls": 2,
            "opponent": {"shoresh": "חנן", "pool": {"red": 2}, "rerolls": 2}}
    return rules.roll("milhamah", spec, ScriptedRng([ra["ר"], rb["*"], ba["א"], bb["ש"], ra["ב"], rb["*"]]))


@pytest.mark.parametrize("size", [(1024, 768), (768, 1024), (390, 844)], ids=["landscape", "tablet", "phone"])
def test_let_them_react_order(browser, base_url, size):
    """Opposed, a natural: the rewards side
    by side with their chances ("let them react" advised: as sure to
    succeed, and critical unless the opponent finds a letter), one tap
    each; the opponent reacts first (their choices, no hit location), its
    advised reroll marked as the one chance to stop the critical; Roll hit
    location appears only once they stand; the letter is drawn large."""
    with watched_page(browser, base_url, viewport=size,
                      init_script=_history_script([_forced_natural_vs_opponent()])) as page:
        page.click("#tabbtn-milhamah")
        show_history(page)
        page.click("#history-list [data-history-open]")
        react = f'{TRAY} .choice-btn:has-text("let them react")'
        page.wait_for_selector(react)
        choices = page.inner_text(f"{TRAY} .choices")
        assert "Natural: +1, cannot be countered" in choices and "no reaction" in choices
        assert "critical 83.3 %" in choices
        assert page.locator(react).get_attribute("data-advised") is not None
        assert page.locator(f'{TRAY} [data-act="hit_location"]').count() == 0
        assert page.locator(f'{TRAY} [data-act$=":opponent"]').count() == 0
        assert "void" not in page.inner_text(TRAY)
        page.click(react)
        stand = f'{TRAY} .choice-btn:has-text("Opponent: stand")'
        page.wait_for_selector(stand)
        assert page.locator(f'{TRAY} [data-act="reroll:opponent"]').count() == 1
        assert page.locator(f'{TRAY} [data-act="hit_location"]').count() == 0
        advised = page.locator(f"{TRAY} .choice-btn[data-advised]")
        assert advised.count() == 1 and "Opponent: reroll" in advised.inner_text()
        assert "So far: critical success" in page.inner_text(f"{TRAY} .outcome")
        assert "after their reaction" in page.inner_text(TRAY)
        page.screenshot(path=f"test-results/milhamah-react-{size[0]}x{size[1]}.png", full_page=True)
        page.click(stand)
        page.wait_for_selector(f'{TRAY} [data-act="hit_location"]')
        assert page.locator(f'{TRAY} [data-act$=":opponent"]').count() == 0
        assert page.inner_text(f"{TRAY} .outcome-name") == "Critical success"
        page.click(f'{TRAY} [data-act="hit_location"]')
        page.wait_for_selector(f"{TRAY} .m-hitbox svg")
        box = page.locator(f"{TRAY} .m-hitbox svg").bounding_box()
        assert box["width"] >= 100 and box["height"] >= 100
        assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
        page.screenshot(path=f"test-results/milhamah-hit-{size[0]}x{size[1]}.png", full_page=True)


def test_legend_and_words_on_a_first_roll(watched):
    """The legend of the marks shows while the dice may change; a botch
    that can still be rerolled reads "So far: no letter"."""
    page = watched
    page.click("#tabbtn-milhamah")
    page.fill(f"{FORM} [name=shoresh]", "אשר")
    page.click(f"{FORM} [data-roll]")
    page.wait_for_selector(f"{TRAY} .m-legend")
    legend = page.inner_text(f"{TRAY} .m-legend")
    for words in ("a success", "the next reroll takes it", "tapped: it stays as it is"):
        assert words in legend
    name = page.inner_text(f"{TRAY} .outcome-name")
    assert name.startswith("So far") and name != "Botch"
