"""The Mirage tab in Chromium: set skill and attribute, two helpers, roll,
pray on the failures until a prayer shows a 1, and see the Condition appear
in the form (it persists for the next roll); passive rolls offer no prayer;
opposed mode shows the opponent; the tab fits 768x1024 and 390x844."""

from __future__ import annotations

import pytest
from conftest import open_app  # noqa: E402  (tests/browser/conftest.py)

pytestmark = pytest.mark.browser

FORM = "#form-mirage"
TRAY = "#tray-mirage"
SLOW = 60_000  # the machine may be busy (other suites share it)
#: The button that rolls the tie-break: among the choices, or its own.
TIEBREAK = f'{TRAY} [data-act="tiebreak"], {TRAY} .choices button:has-text("Tie-break")'
#: A roll's tray once best play has spoken: a step advised, a success
#: (which best play leaves as it is), or a failure no prayer can change
#: (every die without a success shows 1: best play keeps the roll).
#: Outcomes are marked by name in ``data-outcome``; their classes give only
#: their rank's colour band.
SETTLED = (f'{TRAY} [data-advised], {TRAY} [data-advice="keep"], {TRAY} .outcome[data-outcome="success"], '
           f'{TRAY} .outcome[data-outcome="success_with_bonus"]')


def _open(page):
    page.click("#tabbtn-mirage")
    page.wait_for_selector(f"{FORM} [data-roll]:not([disabled])", timeout=SLOW)
    page.wait_for_selector("#odds-mirage svg.chart", timeout=SLOW)


def _roll(page):
    """Roll and wait for this roll's tray (main replaces the tray's HTML)."""
    page.evaluate("document.querySelector('#tray-mirage').innerHTML = ''")
    page.click(f"{FORM} [data-roll]")
    page.wait_for_selector(f"{TRAY} .outcome", timeout=SLOW)


def test_roll_pray_and_gain_a_condition(watched):
    """A walk-through: Might (Strength) with d8 & d6, two helpers;
    roll; tap the dice without a success and pray. Repeat until a prayer
    leaves a 1 (the rng is the page's own), then the tray names the
    physical Condition and the form has Exhausted ticked; the next roll's
    explanation counts it."""
    page = watched
    _open(page)
    page.select_option(f"{FORM} [name=skill_name]", "might")
    page.select_option(f"{FORM} [name=attribute_name]", "strength")
    page.select_option(f"{FORM} [name=attribute]", "8")
    page.select_option(f"{FORM} [name=skill]", "6")
    page.select_option(f"{FORM} [name=helpers]", "2")
    gained = False
    for _ in range(60):
        _roll(page)
        text = page.inner_text(TRAY)
        assert "2 helpers +2" in text
        dice = page.locator(f"{TRAY} svg[data-die]")
        labels = [dice.nth(i).get_attribute("aria-label") for i in range(dice.count())]
        assert labels[0].startswith("Attribute die (Strength)")
        targets = [i for i, l in enumerate(labels) if "success" not in l and "showing 1," not in l
                   and not l.endswith("showing 1")]
        if not targets:
            continue
        for i in targets:  # tap the failures
            dice.nth(i).click()
        page.wait_for_selector(f'{TRAY} svg[data-die="{targets[-1]}"][aria-pressed="true"]')
        assert "If you pray" in page.inner_text("#odds-mirage")
        page.click(f'{TRAY} [data-act="pray"]')
        page.wait_for_selector(f"{TRAY} svg.role-rerolled")
        assert page.locator(f'{TRAY} [data-act="pray"]').count() == 0  # once only
        assert "Before the prayer" in page.inner_text(TRAY)
        if page.locator(f"{TRAY} [data-condition-gained]").count():
            gained = True
            break
    assert gained, "no prayer left a 1 in 60 tries"
    assert page.get_attribute(f"{TRAY} [data-condition-gained]", "data-condition-gained") == "physical"
    assert page.is_checked(f'{FORM} [name=conditions][value=exhausted]')
    _roll(page)
    assert "1 physical Condition \u22121" in page.inner_text(TRAY)
    page.uncheck(f'{FORM} [name=conditions][value=exhausted]')


def test_passive_roll_offers_no_prayer(watched):
    """"Passive Rolls": no Pray button and no tappable dice."""
    page = watched
    _open(page)
    page.check(f"{FORM} [name=passive]")
    _roll(page)
    assert page.locator(f'{TRAY} [data-act="pray"]').count() == 0
    assert page.locator(f"{TRAY} svg[data-die]").count() == 0
    assert "passive roll" in page.inner_text(TRAY).lower()
    page.uncheck(f"{FORM} [name=passive]")


def test_broken_blocks_the_roll(watched):
    """A Broken character may not act: the message shows at the Conditions."""
    page = watched
    _open(page)
    page.check(f'{FORM} [name=conditions][value=broken]')
    page.click(f"{FORM} [data-roll]")
    err = page.locator(f'{FORM} [data-error-for="conditions"]')
    err.wait_for()
    assert "Broken" in err.inner_text()
    page.uncheck(f'{FORM} [name=conditions][value=broken]')


def test_opposed_mode_shows_the_opponent(watched):
    """Opposed mode shows the opponent's fields (CSS :has) and rolls both
    sides; the odds say win / tie / lose."""
    page = watched
    _open(page)
    assert page.locator(f"{FORM} .mirage-opponent").is_hidden()
    page.check(f"{FORM} [name=opposed]")
    assert page.locator(f"{FORM} .mirage-opponent").is_visible()
    page.select_option(f"{FORM} [name='opponent.attribute']", "10")
    _roll(page)
    assert "Opponent's dice" in page.inner_text(TRAY)
    page.wait_for_function("() => document.querySelector('#odds-mirage').textContent.includes('Win')")
    page.uncheck(f"{FORM} [name=opposed]")


@pytest.mark.parametrize("size", [(768, 1024), (390, 844)], ids=["tablet", "phone"])
def test_fits_without_horizontal_scroll(browser, base_url, size):
    """The tab works at 768x1024 and 390x844: no horizontal scroll, touch
    targets at least 44 px; a screenshot for a look."""
    context, page, watch = open_app(browser, base_url, viewport=size)
    try:
        _open(page)
        page.check(f"{FORM} [name=opposed]")
        _roll(page)
        page.wait_for_selector("#odds-mirage svg.chart", timeout=SLOW)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= size[0], width
        small = page.evaluate("""() => [...document.querySelectorAll(
            '#tab-mirage select, #tab-mirage input[type=text], #tab-mirage input[type=number], '
            + '#tab-mirage label.mirage-check, #tab-mirage button')]
            .filter(e => e.offsetParent !== null)
            .map(e => e.getBoundingClientRect()).filter(r => r.height < 44).length""")
        assert small == 0
        page.screenshot(path=f"/tmp/mirage-{size[0]}.png", full_page=True)
        watch.check(page)
    finally:
        context.close()


def test_a_fourth_condition_breaks_the_character(watched):
    """Three physical Conditions held; a prayer that leaves a 1 gives a
    fourth: the tray says Broken, the form ticks Broken, the odds say no
    roll, and the next roll is refused at the Conditions (no page error)."""
    page = watched
    _open(page)
    page.select_option(f"{FORM} [name=skill_name]", "might")
    for n in ("exhausted", "battered", "wounded"):
        page.check(f"{FORM} [name=conditions][value={n}]")
    broke = False
    for _ in range(80):
        _roll(page)
        assert "3 physical Conditions \u22123" in page.inner_text(TRAY)
        page.wait_for_selector(SETTLED, timeout=SLOW)
        pray = page.locator(f'{TRAY} .choice-btn:has-text("Pray with")')  # best play's prayer, a choice
        if pray.count() == 0:
            continue
        pray.first.click()
        page.wait_for_selector(f"{TRAY} figure[aria-label^='Before the prayer']", timeout=SLOW)
        if page.locator(f"{TRAY} [data-condition-gained]").count():
            broke = True
            break
    assert broke, "no prayer left a 1 in 80 tries"
    assert "Broken" in page.inner_text(f"{TRAY} .mirage-condition")
    assert page.is_checked(f"{FORM} [name=conditions][value=broken]")
    page.wait_for_selector("#odds-mirage .mirage-broken-note", timeout=SLOW)
    page.click(f"{FORM} [data-roll]")
    err = page.locator(f'{FORM} [data-error-for="conditions"]')
    err.wait_for(timeout=SLOW)
    assert "Broken" in err.inner_text()
    for n in ("exhausted", "battered", "wounded", "broken"):
        page.uncheck(f"{FORM} [name=conditions][value={n}]")


def test_a_tie_is_broken_by_rolling_again(watched):
    """An opposed roll that ties offers Tie-break (and only then);
    pressing it rolls both sides again, the tied roll stays in view, the
    odds panel gives the tie-break's chances, and the history gets the step."""
    page = watched
    _open(page)
    page.check(f"{FORM} [name=opposed]")
    page.select_option(f"{FORM} [name='opponent.attribute']", "8")
    page.select_option(f"{FORM} [name='opponent.skill']", "6")
    tied = False
    for _ in range(40):
        _roll(page)
        button = page.locator(TIEBREAK)
        outcome = page.get_attribute(f"{TRAY} [data-outcome]", "data-outcome")
        assert (button.count() == 1) == (outcome == "tie")
        if outcome == "tie":
            tied = True
            break
    assert tied, "no tie in 40 opposed rolls"
    page.wait_for_function("() => document.querySelector('#odds-mirage').textContent"
                           ".includes('If the GM breaks the tie')")
    entries = page.locator("#history-list [data-history-entry]").count()
    button.click()
    page.wait_for_selector(f"{TRAY} .mirage-tied figure", timeout=SLOW)
    assert "Roll 1" in page.inner_text(f"{TRAY} .mirage-tied")
    assert "tie-break 1" in page.inner_text(f"{TRAY} .outcome")
    outcome = page.get_attribute(f"{TRAY} [data-outcome]", "data-outcome")
    assert (page.locator(TIEBREAK).count() == 1) == (outcome == "tie")
    # the roll and its tie-break are one history entry, updated in place
    assert page.locator("#history-list [data-history-entry]").count() == entries
    page.uncheck(f"{FORM} [name=opposed]")


def _roll_until_advice(page, tries=60):
    """Roll until best play advises a prayer (a failure with dice to pray):
    the main button prays."""
    for _ in range(tries):
        _roll(page)
        page.wait_for_selector(SETTLED, timeout=SLOW)
        if page.locator(f'{TRAY} .choice-btn[data-advised]:has-text("Pray with")').count():
            return True
    return False


@pytest.mark.parametrize("size", [(1024, 768), (768, 1024), (390, 844)], ids=["desktop", "tablet", "phone"])
def test_pray_the_advised_dice(browser, base_url, size):
    """Before the roll the odds give the turn with a prayer on a
    failure; after a failed roll the advised dice are marked ↻, the odds
    say best play's chance and why; the main button prays with exactly
    those dice at the roll's prayer bonus, in one tap. A tap on a die shows
    your choice beside best. Screenshots for a look."""
    context, page, watch = open_app(browser, base_url, viewport=size)
    try:
        _open(page)
        page.select_option(f"{FORM} [name=prayer_bonus]", "1")
        page.wait_for_function("() => document.querySelector('#odds-mirage').textContent"
                               ".includes('with a prayer on a failure')", timeout=SLOW)
        assert _roll_until_advice(page), "no failure to pray for in 60 rolls"
        dice = page.locator(f"{TRAY} svg[data-die]")
        labels = [dice.nth(i).get_attribute("aria-label") for i in range(dice.count())]
        advised = [i for i, label in enumerate(labels) if "advised for the prayer" in label]
        assert advised and "\u21bb" in page.inner_text(TRAY)
        words = [str(i + 1) for i in advised]
        assert page.inner_text(f"{TRAY} [data-advised] .choice-label").endswith(" and ".join(
            [", ".join(words[:-1]), words[-1]] if len(words) > 1 else words))
        assert page.inner_text(f"{TRAY} [data-why]").startswith("Why: “Pray with")
        page.wait_for_selector('#odds-mirage [data-odds="best"]', timeout=SLOW)
        page.screenshot(path=f"/tmp/mirage-advice-{size[0]}.png", full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
        dice.nth(advised[0]).click()  # your own choice: that die alone
        page.wait_for_selector('#odds-mirage [data-odds="choice"]', timeout=SLOW)
        assert "Your choice" in page.inner_text("#odds-mirage")
        assert page.locator(f'{TRAY} [data-act="pray"]').count() == 1  # your own prayer, beside best play's
        page.click(f"{TRAY} [data-advised]")
        page.wait_for_selector(f"{TRAY} figure[aria-label^='Before the prayer']", timeout=SLOW)
        after = page.locator(f"{TRAY} figure:not([aria-label^='Before']) svg.role-rerolled")
        assert after.count() == len(advised)
        assert page.locator(f"{TRAY} [data-advised]").count() == 0  # one prayer a roll: no step left
        watch.check(page)
    finally:
        context.close()


def _history_script(results) -> str:
    """An init script that stores these results as the roll history (as the
    page stores them), so a test opens a roll whose dice it chose."""
    import json

    from records import store
    entries = [store.new_entry(r, label="forced") for r in results]
    return f"localStorage.setItem('dice-table/history', {json.dumps(store.dump(entries))});"


def _forced_tie_with_a_one():
    """A worked case: opposed, preparatory +1, d8:7 and d6:1 against d8:6."""
    import rules
    from rules.dice import ScriptedRng
    spec = {"attribute": 8, "skill": 6, "prayer_bonus": 1, "opponent": {"attribute": 8}}
    return rules.roll("mirage", spec, ScriptedRng([7, 1, 6]))


@pytest.mark.parametrize("size", [(1024, 768), (768, 1024), (390, 844)], ids=["desktop", "tablet", "phone"])
def test_a_tie_shows_every_choice_and_takes_the_advised_one(browser, base_url, size):
    """Tied 1-1 with a die on a 1, the tray shows the three
    choices side by side with their odds (the prayer's Condition 100 %),
    the tie-break marked as best play with why; no die is marked ↻ (best
    play does not pray now); one tap on the advised choice rolls the
    tie-break."""
    from conftest import show_history, watched_page
    with watched_page(browser, base_url, viewport=size, init_script=_history_script([_forced_tie_with_a_one()])) as page:
        page.click("#tabbtn-mirage")
        show_history(page)
        page.click("#history-list [data-history-open]")
        page.wait_for_selector(f"{TRAY} .choices [data-act^='choice-']", timeout=SLOW)
        buttons = page.locator(f"{TRAY} .choices [data-act^='choice-']")
        assert buttons.count() == 3
        texts = page.locator(f"{TRAY} .choices .choice-main, {TRAY} .choices .choice").all_inner_texts()
        assert any("Tie-break" in t and "best play" in t for t in texts)
        assert any("Pray with die 1" in t and "Condition 100 %" in t for t in texts)
        assert any("Accept the tie" in t for t in texts)
        assert page.inner_text(f"{TRAY} [data-advised]").startswith("Tie-break")
        assert page.inner_text(f"{TRAY} [data-why]").startswith("Why: “Tie-break: roll again” over “Pray with die 1”")
        assert "\u21bb" not in "".join(page.locator(f"{TRAY} .die-tag").all_inner_texts())
        for i in range(3):
            box = buttons.nth(i).bounding_box()
            assert box["height"] >= 44
        assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
        page.screenshot(path=f"/tmp/mirage-choices-{size[0]}.png", full_page=True)
        page.click(f"{TRAY} [data-advised]")
        page.wait_for_selector(f"{TRAY} .mirage-tied figure", timeout=SLOW)
        assert "tie-break 1" in page.inner_text(f"{TRAY} .outcome")
