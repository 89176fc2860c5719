"""The ALKEMY tab in the browser (ALKEMY, The dice rolls; RULES-NOTES ALKEMY 1-3): a roll
against a difficulty, a bonus roll where the player taps another pair and
the total follows, opposed mode with both sides on one screen, and the
layout at tablet and phone widths.

Named test_alkemy_tab.py: a second test_alkemy.py beside tests/rules' one
breaks collection in pytest's default import mode."""

from __future__ import annotations

import re

import pytest
from conftest import open_app, watched_page  # noqa: E402  (tests/browser/conftest.py)
from scripted_dice import SCRIPT, forced, form_spec, roll_dice

pytestmark = pytest.mark.browser

FORM = "#form-alkemy"
TRAY = "#tray-alkemy"


@pytest.fixture(scope="module")
def app(browser, base_url):
    """The module's page, its dice scriptable from the tests."""
    with watched_page(browser, base_url, init_script=SCRIPT) as page:
        yield page


def _open(page):
    page.click("#tabbtn-alkemy")
    page.wait_for_selector(f"{FORM}:visible")


def _faces(page, selector=f"{TRAY} .alk-hand-initiator svg.die"):
    dice = page.locator(selector)
    out = []
    for i in range(dice.count()):
        label = dice.nth(i).get_attribute("aria-label")
        m = re.search(r"showing (\d+)", label)
        out.append((int(m.group(1)), label))
    return out


def test_default_roll_against_difficulty(watched):
    """The form opens on Julien's roll (Spirit 8 against 15): two white dice,
    a verdict that follows the total, an odds panel with the chance."""
    page = watched
    _open(page)
    page.wait_for_selector("#odds-alkemy .alk-chance")
    assert "0 bonus, 0 malus → no bonus or malus die" in page.inner_text("#odds-alkemy")
    page.click(f"{FORM} [data-roll]")
    page.wait_for_selector(f"{TRAY} svg.die")
    faces = _faces(page)
    assert len(faces) == 2 and all("white die" in label for _, label in faces)
    total = sum(f for f, _ in faces) + 8
    outcome = page.get_attribute(f"{TRAY} .outcome", "data-outcome")
    assert outcome == ("success" if total >= 15 else "failure")
    assert f"{total} against 15" in page.inner_text(TRAY)
    assert page.locator(f"{TRAY} [data-act=keep]").count() == 0


def test_bonus_roll_player_picks_another_pair(watched):
    """ALKEMY, "Bonus / malus die", 1 bonus die: three dice, the best two kept by default; the
    player taps another pair, presses Keep, and the total follows."""
    page = watched
    _open(page)
    page.fill(f"{FORM} [name=bonus]", "1")
    page.fill(f"{FORM} [name=characteristic]", "3")
    page.wait_for_function("document.querySelector('#odds-alkemy').innerText.includes('1 bonus, 0 malus → 1 bonus die')")
    page.click(f"{FORM} [data-roll]")
    page.wait_for_selector(f"{TRAY} svg[data-die]")
    faces = _faces(page)
    assert len(faces) == 3
    kept = [i for i, (_, label) in enumerate(faces) if label.endswith("kept")]
    dropped = [i for i, (_, label) in enumerate(faces) if label.endswith("dropped")]
    assert len(kept) == 2 and len(dropped) == 1
    pick = sorted([dropped[0], kept[0]])
    page.click(f'{TRAY} [data-die="{pick[0]}"]')  # one tap: "Keep these two" waits for the second
    assert page.locator(f"{TRAY} [data-act=keep]").is_disabled()
    page.click(f'{TRAY} [data-die="{pick[1]}"]')
    button = page.locator(f"{TRAY} [data-act=keep]")
    assert button.is_enabled()
    want = faces[pick[0]][0] + faces[pick[1]][0]
    assert f"Keep these two: {faces[pick[0]][0]} + {faces[pick[1]][0]}" in button.inner_text()
    entries = page.locator("#history-list [data-history-entry]").count()
    button.click()
    page.wait_for_function(
        f"document.querySelectorAll('{TRAY} svg.die.role-kept').length === 2 && "
        f"document.querySelector('{TRAY} svg[data-die=\"{pick[0]}\"]').classList.contains('role-kept') && "
        f"document.querySelector('{TRAY} svg[data-die=\"{pick[1]}\"]').classList.contains('role-kept')")
    caption = page.inner_text(f"{TRAY} .alk-hand-initiator figcaption")
    assert f"= {want + 3}" in caption
    assert "chose dice" in page.inner_text(f"{TRAY} .explain")
    # one roll and its keep are one history entry, updated in place
    assert page.locator("#history-list [data-history-entry]").count() == entries
    page.fill(f"{FORM} [name=bonus]", "0")
    page.fill(f"{FORM} [name=characteristic]", "8")


def test_opposed_mode_both_sides(watched):
    """Opposed: the opponent's side appears and the difficulty goes (CSS
    :has()); a roll shows both hands and a winner."""
    page = watched
    _open(page)
    assert page.locator(f"{FORM} .alk-side-opponent").is_hidden()
    page.check(f'{FORM} input[name=mode][value=opposed]')
    assert page.locator(f"{FORM} .alk-side-opponent").is_visible()
    assert page.locator(f"{FORM} [name=difficulty]").is_hidden()
    page.check(f'{FORM} input[name=opp_health][value=red]')
    page.click(f"{FORM} [data-roll]")
    page.wait_for_selector(f"{TRAY} .alk-hand-opponent svg.die")
    opp = _faces(page, f"{TRAY} .alk-hand-opponent svg.die")
    assert len(opp) == 2 and all("red die" in label for _, label in opp)
    assert page.get_attribute(f"{TRAY} .outcome", "data-outcome") in ("success", "failure")
    assert "Initiator wins" in page.inner_text("#odds-alkemy")
    page.check(f'{FORM} input[name=mode][value=difficulty]')


def test_bad_field_shows_its_message(watched):
    """A characteristic out of range gets its message beside the field."""
    page = watched
    _open(page)
    page.fill(f"{FORM} [name=characteristic]", "99")
    page.click(f"{FORM} [data-roll]")
    err = page.locator(f'{FORM} [data-error-for="characteristic"]')
    err.wait_for()
    assert "0 to 30" in err.inner_text()
    assert page.get_attribute(f"{FORM} [name=characteristic]", "aria-invalid") == "true"
    page.fill(f"{FORM} [name=characteristic]", "8")


@pytest.mark.parametrize("size", [(768, 1024), (390, 844)], ids=["tablet", "phone"])
def test_layout_fits(browser, base_url, size):
    """At tablet and phone widths the tab has no horizontal scroll and its
    touch targets are at least 44 px; a screenshot is kept for review."""
    context, page, watch = open_app(browser, base_url, viewport=size)
    try:
        _open(page)
        page.fill(f"{FORM} [name=bonus]", "2")
        page.check(f'{FORM} input[name=mode][value=opposed]')
        page.fill(f"{FORM} [name=opp_malus]", "1")
        page.click(f"{FORM} [data-roll]")
        page.wait_for_selector(f"{TRAY} svg[data-die]")
        page.click(f'{TRAY} [data-die="0"]')
        page.wait_for_selector("#odds-alkemy .alk-chance")
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        small = page.evaluate("""() => [...document.querySelectorAll(
            '#tab-alkemy label.alk-chip, #tab-alkemy input[type=number], #tab-alkemy button, #tab-alkemy svg[data-die]')]
            .filter(e => e.offsetParent !== null || e.getBoundingClientRect().width > 0)
            .map(e => e.getBoundingClientRect()).filter(r => r.width > 0 && r.height < 44).length""")
        assert small == 0
        page.wait_for_timeout(600)  # let the dice land before the screenshot
        page.screenshot(path=f"/tmp/alkemy-{size[0]}.png", full_page=True)
        watch.check(page)
    finally:
        context.close()


def test_still_tied_at_the_cap_is_the_gms(watched):
    """With no rerolls allowed, equal characteristics (5) and equal totals
    (2 + 5 against 3 + 4, forced: the totals tie, not the dice) end as a tie
    the GM decides, named as such, never a failure; the odds give that
    share."""
    page = watched
    _open(page)
    page.check(f'{FORM} input[name=mode][value=opposed]')
    page.fill(f"{FORM} [name=characteristic]", "5")
    page.fill(f"{FORM} [name=opp_characteristic]", "5")
    page.click(f"{FORM} .alk-gm summary")
    page.fill(f"{FORM} [name=max_rerolls]", "0")
    page.wait_for_function("document.querySelector('#odds-alkemy').innerText.includes('at most 0 rerolls')")
    assert "still tied then, the GM decides" in page.inner_text("#odds-alkemy")
    spec = form_spec("alkemy", {"mode": "opposed", "characteristic": "5", "opp_characteristic": "5", "max_rerolls": "0"})
    page.evaluate("document.querySelector('#tray-alkemy').innerHTML = ''")
    with forced(page, roll_dice("alkemy", spec, [2, 5, 3, 4])):
        page.click(f"{FORM} [data-roll]")
        page.wait_for_selector(f"{TRAY} .outcome")
    assert [f for f, _ in _faces(page)] == [2, 5]
    assert [f for f, _ in _faces(page, f"{TRAY} .alk-hand-opponent svg.die")] == [3, 4]
    assert page.get_attribute(f"{TRAY} .outcome", "data-outcome") == "tie"
    assert "still tied after 0 rerolls, the GM decides" in page.inner_text(f"{TRAY} .outcome")
    page.fill(f"{FORM} [name=max_rerolls]", "20")
    page.fill(f"{FORM} [name=characteristic]", "8")
    page.check(f'{FORM} input[name=mode][value=difficulty]')


def _forced_bonus_roll():
    """Characteristic 3, one bonus die, the dice 2, 5, 4 (forced): best
    play keeps 5 + 4; 2 + 5 and 2 + 4 are the other pairs."""
    import rules
    from rules.dice import ScriptedRng
    return rules.roll("alkemy", {"characteristic": 3, "bonus": 1, "difficulty": 15}, ScriptedRng([2, 5, 4]))


def test_bonus_roll_choices_side_by_side_one_tap_each(browser, base_url):
    """After a bonus roll every pair is a button beside its chance
    (keep as they are, or each other pair), best play's marked; one tap on
    another pair keeps it, and a tap on "as they are" accepts the pair: no
    further choice, the dice no longer tappable. The roll and its steps
    stay one history entry. The dice are forced (a roll from
    the stored history)."""
    import json

    from conftest import show_history, watched_page

    from records import store
    script = ("localStorage.setItem('dice-table/history', "
              f"{json.dumps(store.dump([store.new_entry(_forced_bonus_roll(), label='forced')]))});")
    with watched_page(browser, base_url, init_script=script) as page:
        _open(page)
        show_history(page)
        page.click("#history-list [data-history-open]")
        page.wait_for_selector(f"{TRAY} .alk-choices [data-act=choice-2]", timeout=60_000)
        buttons = page.locator(f"{TRAY} .alk-choices .choice-btn")
        assert buttons.count() == 3 and page.locator(f"{TRAY} .alk-choices [data-advised]").count() == 1
        assert "Keep 5 + 4 as they are" in page.inner_text(f"{TRAY} .alk-choices [data-advised]")
        assert all("success" in t and "total" in t for t in page.locator(f"{TRAY} .choice-odds").all_inner_texts())
        other = page.locator(f'{TRAY} .alk-choices .choice-btn:has-text("2 + 5")')  # beside best play's
        assert other.inner_text().startswith("2 + 5 (")
        entries = page.locator("#history-list [data-history-entry]").count()
        other.click()
        page.wait_for_function(f"document.querySelector('{TRAY} .alk-hand-initiator figcaption').innerText.includes('= 10')")
        assert page.locator("#history-list [data-history-entry]").count() == entries
        page.wait_for_selector(f"{TRAY} .alk-choices [data-act=choice-0]", timeout=60_000)
        assert "2 + 5 as they are" in page.inner_text(f"{TRAY} [data-act=choice-0]")
        page.click(f"{TRAY} [data-act=choice-0]")
        page.wait_for_function(f"!document.querySelector('{TRAY} .alk-choices')")
        assert page.locator(f'{TRAY} [data-die][role="button"]').count() == 0
        assert "= 10" in page.inner_text(f"{TRAY} .alk-hand-initiator figcaption")