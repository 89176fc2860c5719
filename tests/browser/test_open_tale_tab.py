"""The Open Tale tab in a real browser (its rules text, 3):
pick level 5, d10 + d6 and Advantage, roll, see the dice (the rerolled one
marked, explosions as chains) and the score; the pairs follow the level; the
odds and the expected-scores table render; tablet and phone fit."""

import re

import pytest

from conftest import open_app  # noqa: E402  (tests/browser/conftest.py)

pytestmark = pytest.mark.browser

FORM = "#form-open_tale"
TRAY = "#tray-open_tale"
ODDS = "#odds-open_tale"


def _open(page):
    page.click("#tabbtn-open_tale")
    page.wait_for_selector("#ref-open_tale summary", state="attached")
    page.wait_for_selector(f"{ODDS} svg.chart")


def _chip(page, name, value):
    page.click(f'{FORM} label:has(input[name="{name}"][value="{value}"])')


def _roll(page):
    page.evaluate("document.querySelector('#tray-open_tale').innerHTML = ''")
    page.click(f"{FORM} [data-roll]")
    page.wait_for_selector(f"{TRAY} [data-die]")


def test_level_5_d10_d6_advantage(watched):
    """A walk-through: level 5, d10 + d6, Advantage, roll; two dice
    (plus any explosions), one rerolled, and the score is their sum."""
    page = watched
    _open(page)
    _chip(page, "level", "5")
    _chip(page, "pair_5", "10-6")
    _chip(page, "modifiers", "advantage")
    assert page.is_checked(f'{FORM} input[name="modifiers"][value="advantage"]')
    _roll(page)
    main = page.locator(f"{TRAY} .ot-die > .ot-chain > svg:first-child")
    assert main.count() == 2
    labels = [main.nth(i).get_attribute("aria-label") for i in range(2)]
    assert labels[0].startswith("d10 showing") and labels[1].startswith("d6 showing")
    assert page.locator(f"{TRAY} svg.role-rerolled").count() == 1
    assert page.locator(f"{TRAY} .old-face").count() == 1  # the old face, struck through
    totals = [int(re.search(r"= (\d+)", t).group(1))
              for t in page.locator(f"{TRAY} .ot-die figcaption").all_inner_texts()]
    text = page.inner_text(TRAY)
    assert f"Score {sum(totals)}" in text
    assert "Advantage" in text
    assert page.locator("#history-list [data-history-entry]").count() >= 1
    page.wait_for_function("() => document.querySelector('#odds-open_tale').textContent.includes('Advantage')")


def test_pairs_follow_the_level(watched):
    """Only the chosen level's pairs show; level 9 rolls 2d12."""
    page = watched
    _open(page)
    _chip(page, "level", "9")
    assert page.locator(f'{FORM} .ot-pairset[data-level="9"]').is_visible()
    assert page.locator(f'{FORM} .ot-pairset[data-level="5"]').is_hidden()
    page.wait_for_function("() => document.querySelector('#odds-open_tale').textContent.includes('2d12')")
    _roll(page)
    main = page.locator(f"{TRAY} .ot-die > .ot-chain > svg:first-child")
    assert [main.nth(i).get_attribute("aria-label")[:4] for i in range(main.count())] == ["d12 ", "d12 "]
    _chip(page, "level", "5")


def test_target_and_heroic(watched):
    """A target gives success or failure; the Heroic Badge adds a d4; the
    odds state P(score >= target)."""
    page = watched
    _open(page)
    _chip(page, "heroic", "on")
    page.fill(f"{FORM} [name=target]", "12")
    page.wait_for_function("() => document.querySelector('#odds-open_tale').textContent.includes('P(score ≥ 12)')")
    _roll(page)
    outcome = page.get_attribute(f"{TRAY} [data-outcome]", "data-outcome")
    assert outcome in ("success", "failure")
    assert page.locator(f"{TRAY} .ot-heroic-die").count() == 1
    page.fill(f"{FORM} [name=target]", "0")
    page.click(f"{FORM} [data-roll]")
    err = page.locator(f'{FORM} [data-error-for="target"]')
    err.wait_for()
    assert "1 to 100" in err.inner_text()
    page.fill(f"{FORM} [name=target]", "")
    _chip(page, "heroic", "on")


def test_reference_table(watched):
    """The expected-scores table: 45 cells, both numbers, differences marked."""
    page = watched
    _open(page)
    page.click("#ref-open_tale summary")
    assert page.locator("#ref-open_tale td").count() == 45
    assert "of 90" in page.inner_text("#ref-open_tale")
    assert page.locator("#ref-open_tale mark.ot-differs").count() >= 1


@pytest.mark.parametrize("size", [(768, 1024), (390, 844)], ids=["tablet", "phone"])
def test_fits_without_horizontal_scroll(browser, base_url, size):
    """The tab works at 768x1024 and 390x844: no horizontal scroll, touch
    targets at least 44 px; a screenshot for a look."""
    context, page, watch = open_app(browser, base_url, viewport=size)
    try:
        _open(page)
        _chip(page, "modifiers", "superiority")
        _chip(page, "modifiers", "disadvantage")
        _chip(page, "heroic", "on")
        _roll(page)
        page.click("#ref-open_tale summary")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= size[0], width
        small = page.evaluate("""() => [...document.querySelectorAll(
            '#tab-open_tale label.ot-chip span, #tab-open_tale select, #tab-open_tale input[type=number], '
            + '#tab-open_tale button, #tab-open_tale summary')]
            .filter(e => e.offsetParent !== null)
            .map(e => e.getBoundingClientRect()).filter(r => r.height < 44 || r.width < 44).length""")
        assert small == 0
        page.screenshot(path=f"/tmp/open_tale-{size[0]}.png", full_page=True)
        watch.check(page)
    finally:
        context.close()
