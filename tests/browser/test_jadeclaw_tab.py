"""The Jadeclaw tab in the browser (Jadeclaw, Rolling Dice; RULES-NOTES Jadeclaw 1-7): the
pool built by tapping die sizes, a Penalty against Difficult with both rolls
shown and the worse kept, a Damage Roll drawn as pairs and reused as the
opposing Score of a Resolve Test, a bad field's message, and the layout at
tablet and phone widths.

Named test_jadeclaw_tab.py: a second test_jadeclaw.py beside tests/rules'
one breaks collection in pytest's default import mode."""

from __future__ import annotations

import re

import pytest

from conftest import open_app  # noqa: E402  (tests/browser/conftest.py)

pytestmark = pytest.mark.browser

FORM = "#form-jadeclaw"
TRAY = "#tray-jadeclaw"
ODDS = "#odds-jadeclaw"


def _open(page):
    page.click("#tabbtn-jadeclaw")
    page.wait_for_selector(f"{FORM}:visible")
    page.wait_for_selector(f"{ODDS} .chart")


def _scores(page):
    caps = page.locator(f"{TRAY} .jc-rolls figcaption").all_inner_texts()
    return [int(re.search(r"Score (\d+)", c).group(1)) for c in caps]


def test_default_form_rolls(watched):
    """The tab opens on a valid roll (d12 & d8 against Routine) with its
    odds; Roll draws the dice, an outcome and a history entry."""
    page = watched
    _open(page)
    assert page.locator(f'{ODDS} .jc-outcomes tr[data-outcome="success"]').count() == 1
    before = page.locator("#history-list [data-history-entry]").count()
    page.click(f"{FORM} [data-roll]")
    page.wait_for_selector(f"{TRAY} svg[data-die]")
    assert page.locator(f"{TRAY} .jc-rolls svg[data-die]").count() == 2
    assert page.locator(f"{TRAY} .jc-opposition svg[data-die]").count() == 2
    assert page.get_attribute(f"{TRAY} .outcome", "data-outcome") in (
        "botch", "overwhelming_failure", "failure", "tie", "success", "overwhelming_success")
    assert page.locator("#history-list [data-history-entry]").count() == before + 1


def test_penalty_against_difficult_keeps_the_worse_roll(watched):
    """Build "d12 & d10" by tapping sizes, add a Penalty, roll
    against Difficult: both rolls are shown side by side and the worse one
    is kept (RULES-NOTES Jadeclaw 3)."""
    page = watched
    _open(page)
    page.fill(f"{FORM} [name=dice]", "")
    page.click(f'{FORM} [data-insert=" & d12"][data-target=dice]')
    page.click(f'{FORM} [data-insert=" & d10"][data-target=dice]')
    page.fill(f"{FORM} [name=penalties]", "1")
    page.check(f'{FORM} input[name=against][value=difficulty]')
    page.select_option(f"{FORM} [name=difficulty]", "difficult")
    page.wait_for_function(
        "document.querySelector('#odds-jadeclaw').innerText.includes('You roll d12 & d10 × 2 rolls')")
    page.click(f"{FORM} [data-roll]")
    page.wait_for_selector(f"{TRAY} .jc-roll[data-kept]")
    figs = page.locator(f"{TRAY} .jc-rolls .jc-roll")
    assert figs.count() == 2
    assert page.locator(f"{TRAY} .jc-rolls .jc-roll.is-kept").count() == 1
    scores = _scores(page)
    kept = int(page.get_attribute(f"{TRAY} .jc-roll[data-kept]", "data-roll-index"))
    assert scores[kept] == min(scores)
    assert f"Score {min(scores)}" in page.inner_text(f"{TRAY} .outcome")
    assert "Difficult" in page.inner_text(f"{TRAY} .jc-opposition figcaption")
    boxes = [figs.nth(i).bounding_box() for i in range(2)]
    assert abs(boxes[0]["y"] - boxes[1]["y"]) < 2  # side by side at this width
    assert page.locator(f"{TRAY} .jc-rolls svg[data-die]").count() == 4
    page.fill(f"{FORM} [name=penalties]", "0")


def test_damage_pairs_then_resolve_test(watched):
    """A Damage Roll is drawn as matched columns with hits; "use these
    damage dice as the opposing Score" turns the form into a Simple Roll
    against those faces ("Combination Rolls", Jupi)."""
    page = watched
    _open(page)
    page.check(f'{FORM} input[name=kind][value=damage]')
    assert page.locator(f"{FORM} [name=soak]").is_visible()
    assert page.locator(f"{FORM} [name=difficulty]").is_hidden()
    page.fill(f"{FORM} [name=dice]", "d8, d6, d4")
    page.fill(f"{FORM} [name=soak]", "d8 & d6")
    page.wait_for_function("document.querySelector('#odds-jadeclaw').innerText.includes('at least one hit')")
    page.click(f"{FORM} [data-roll]")
    page.wait_for_selector(f"{TRAY} .jc-pair")
    assert page.locator(f"{TRAY} .jc-pair").count() == 3
    hits = sum(int(re.match(r"(\d+)", t).group(1)) for t in page.locator(f"{TRAY} .jc-hits").all_inner_texts())
    banner = page.inner_text(f"{TRAY} .outcome")
    total = int(re.search(r"(\d+) hits?", banner).group(1))
    assert total >= hits
    faces = sorted((int(re.search(r"showing (\d+)", page.get_attribute(f'{TRAY} [data-die="p{i}.d"]', "aria-label"))
                        .group(1)) for i in range(3)), reverse=True)
    page.click(f'{TRAY} [data-act="reuse"]')
    page.wait_for_function("document.querySelector('#form-jadeclaw input[name=kind][value=simple]').checked")
    assert page.input_value(f"{FORM} [name=opponent_faces]") == ", ".join(str(f) for f in faces)
    assert page.locator(f"{FORM} [name=opponent_faces]").is_visible()
    page.fill(f"{FORM} [name=dice]", "d10 & d6")
    page.click(f"{FORM} [data-roll]")
    page.wait_for_selector(f"{TRAY} .jc-opposition")
    assert f"Score {faces[0]}" in page.inner_text(f"{TRAY} .jc-opposition figcaption")
    page.check(f'{FORM} input[name=against][value=difficulty]')


def test_bad_dice_show_their_message(watched):
    """A die the game does not use gets its message beside the field."""
    page = watched
    _open(page)
    page.fill(f"{FORM} [name=dice]", "d7")
    page.click(f"{FORM} [data-roll]")
    err = page.locator(f'{FORM} [data-error-for="dice"]')
    err.wait_for()
    assert "d4, d6, d8, d10, d12" in err.inner_text()
    page.fill(f"{FORM} [name=dice]", "d12 & d8")


@pytest.mark.parametrize("size", [(768, 1024), (390, 844)], ids=["tablet", "phone"])
def test_layout_fits(browser, base_url, size):
    """At tablet and phone widths the tab has no horizontal scroll and its
    touch targets are at least 44 px; screenshots are kept for review."""
    context, page, watch = open_app(browser, base_url, viewport=size)
    try:
        _open(page)
        page.fill(f"{FORM} [name=penalties]", "2")
        page.click(f"{FORM} [data-roll]")
        page.wait_for_selector(f"{TRAY} .jc-roll[data-kept]")
        page.wait_for_selector(f"{ODDS} .chart")
        page.evaluate("document.querySelector('#ref-jadeclaw').open = true")
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        small = page.evaluate("""() => [...document.querySelectorAll(
            '#tab-jadeclaw label.jc-chip, #tab-jadeclaw label.jc-check, #tab-jadeclaw input:not([type=checkbox]):not([type=radio]),'
            + ' #tab-jadeclaw select, #tab-jadeclaw button, #tab-jadeclaw summary')]
            .filter(e => e.offsetParent !== null)
            .map(e => e.getBoundingClientRect()).filter(r => r.width > 0 && (r.height < 44 || r.width < 44)).length""")
        assert small == 0
        page.wait_for_timeout(600)  # let the dice land before the screenshot
        page.screenshot(path=f"/tmp/jadeclaw-{size[0]}.png", full_page=True)
        page.check(f'{FORM} input[name=kind][value=damage]')
        page.click(f"{FORM} [data-roll]")
        page.wait_for_selector(f"{TRAY} .jc-pair")
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        page.wait_for_timeout(600)
        page.screenshot(path=f"/tmp/jadeclaw-damage-{size[0]}.png", full_page=True)
        watch.check(page)
    finally:
        context.close()


def test_opponents_modifiers_roll_their_worst(watched):
    """The opposing side's own Penalties ("the NPC rolls twice
    and takes the worse") and Favored: set in the "Opponent's modifiers"
    group, previewed in the odds, rolled and drawn side by side with their
    worst kept; hidden when the roll is against nothing."""
    page = watched
    _open(page)
    group = page.locator(f"{FORM} fieldset.jc-if-rolled")
    assert group.is_visible()  # against the default Difficulty
    page.check(f'{FORM} input[name=against][value=dice]')
    page.fill(f"{FORM} [name=opponent]", "d12 & d8")
    page.fill(f"{FORM} [name=opponent_penalties]", "2")
    page.check(f"{FORM} [name=opponent_favored]")
    page.wait_for_function(
        "document.querySelector('#odds-jadeclaw').innerText.includes('d12 & d8 × 3 rolls (worst kept), Favored')")
    page.click(f"{FORM} [data-roll]")
    page.wait_for_selector(f"{TRAY} .jc-opp-rolls")
    figs = page.locator(f"{TRAY} .jc-opp-rolls .jc-opposition")
    assert figs.count() == 3
    caps = page.locator(f"{TRAY} .jc-opp-rolls figcaption").all_inner_texts()
    scores = [int(re.search(r"Score (\d+)", c).group(1)) for c in caps]
    kept = int(page.get_attribute(f"{TRAY} .jc-opp-rolls [data-kept]", "data-opponent-roll"))
    assert scores[kept] == min(scores)
    assert f"vs {min(scores)}" in page.inner_text(f"{TRAY} .outcome")
    assert "Their 2 Penalties: 3 rolls" in page.inner_text(f"{TRAY} .explain")
    page.check(f'{FORM} input[name=against][value=none]')
    assert group.is_hidden()
    page.check(f'{FORM} input[name=against][value=difficulty]')
    page.fill(f"{FORM} [name=opponent_penalties]", "0")
    page.uncheck(f"{FORM} [name=opponent_favored]")


def test_soak_modifiers_remove_the_smallest_soak_die(watched):
    """A Penalty on the soak dice removes the smallest before rolling (our
    reading of "On Damage Rolls, Penalties Remove the Smallest Dice")."""
    page = watched
    _open(page)
    page.check(f'{FORM} input[name=kind][value=damage]')
    page.fill(f"{FORM} [name=dice]", "d12 & d8")
    page.fill(f"{FORM} [name=soak]", "d8 & d6")
    page.fill(f"{FORM} [name=soak_penalties]", "1")
    page.wait_for_function("document.querySelector('#odds-jadeclaw').innerText.includes('Soak d8')")
    page.click(f"{FORM} [data-roll]")
    page.wait_for_selector(f"{TRAY} .jc-pair")
    assert "Soak dice removed before rolling: d6." in page.inner_text(TRAY)
    assert page.locator(f'{TRAY} [data-die="p1.s"]').count() == 1  # the second damage die faces an imaginary 1
    assert "imaginary 1" in page.get_attribute(f'{TRAY} [data-die="p1.s"]', "aria-label")
    page.fill(f"{FORM} [name=soak_penalties]", "0")
    page.check(f'{FORM} input[name=kind][value=simple]')


@pytest.mark.parametrize("size", [(390, 844), (768, 1024)], ids=["phone", "tablet"])
def test_checkboxes_are_whole_label_touch_targets(browser, base_url, size):
    """Favored, Slaying, Enervated (and the other sides'
    Favored) are tapped on their whole label, at least 44 px each way; a
    tap on the label's far end, away from the box, toggles it."""
    context, page, watch = open_app(browser, base_url, viewport=size)
    try:
        _open(page)
        for kind, names in (("simple", ["favored", "opponent_favored", "double_botch_tie"]),
                            ("damage", ["favored", "soak_favored", "slaying", "enervated"])):
            page.check(f'{FORM} input[name=kind][value={kind}]')
            for name in names:
                box = page.locator(f"{FORM} input[name={name}]")
                label = page.locator(f"{FORM} label.jc-check:has(input[name={name}])")
                label.scroll_into_view_if_needed()
                r = label.bounding_box()
                assert r["height"] >= 44 and r["width"] >= 44, (name, r)
                assert box.bounding_box()["height"] >= 24, name
                before = box.is_checked()
                page.mouse.click(r["x"] + r["width"] - 6, r["y"] + r["height"] / 2)
                assert box.is_checked() is not before, name
                label.click()
                assert box.is_checked() is before, name
        page.check(f'{FORM} input[name=kind][value=simple]')
        watch.check(page)
    finally:
        context.close()
