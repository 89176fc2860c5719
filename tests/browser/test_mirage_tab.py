"""The Mirage tab in Chromium: set skill and attribute, two helpers, roll,
pray on the failures, a prayer shows a 1, and see the Condition appear in
the form (it persists for the next roll); passive rolls offer no prayer;
opposed mode shows the opponent, and a tie its tie-break; the tab fits
768x1024 and 390x844. The dice of a roll, a prayer or a tie-break are
forced (``scripted_dice``), each chosen so the rule under test applies."""

from __future__ import annotations

import pytest
from conftest import open_app, watched_page  # noqa: E402  (tests/browser/conftest.py)
from scripted_dice import SCRIPT, forced, form_spec, roll_dice, step_dice

pytestmark = pytest.mark.browser

FORM = "#form-mirage"
TRAY = "#tray-mirage"
SLOW = 60_000  # the machine may be busy (other suites share it)
#: The button that rolls the tie-break: among the choices, or its own.
TIEBREAK = f'{TRAY} [data-act="tiebreak"], {TRAY} .choices button:has-text("Tie-break")'

#: Might (Strength) with d8 & d6, two helpers (the form's fields).
MIGHT = {"skill_name": "might", "attribute_name": "strength", "attribute": "8", "skill": "6", "helpers": "2"}
#: Opposed, against the form's opponent (attribute d8, skill d6).
OPPOSED = form_spec("mirage", {"opposed": "on"})
#: A tie, one success each: you d10:6 & d8:2, the opponent d8:7 & d6:3.
TIED = [6, 2, 7, 3]


@pytest.fixture(scope="module")
def app(browser, base_url):
    """The module's page, its dice scriptable from the tests."""
    with watched_page(browser, base_url, init_script=SCRIPT) as page:
        yield page


def _open(page):
    """The tab, its form as the page opens it."""
    page.click("#tabbtn-mirage")
    page.wait_for_selector(f"{FORM} [data-roll]:not([disabled])", timeout=SLOW)
    page.click("#tab-mirage [data-reset-form]")
    page.wait_for_selector("#odds-mirage svg.chart", timeout=SLOW)


def _gained(page):
    """The Condition the tray says the prayer cost, if any (read at once:
    the tray is drawn whole)."""
    return page.eval_on_selector_all(f"{TRAY} [data-condition-gained]", "es => es.map(e => e.dataset.conditionGained)")


def _dice(page, where=TRAY):
    """Each die's label up to its first comma ("Attribute die (Strength): red
    d8 showing 3")."""
    labels = page.eval_on_selector_all(f"{where} svg.die", "ds => ds.map(d => d.getAttribute('aria-label'))")
    return [label.split(",")[0] for label in labels]


def _roll(page):
    """Roll and wait for this roll's tray (main replaces the tray's HTML)."""
    page.evaluate("document.querySelector('#tray-mirage').innerHTML = ''")
    page.click(f"{FORM} [data-roll]")
    page.wait_for_selector(f"{TRAY} .outcome", timeout=SLOW)


def test_roll_pray_and_gain_a_condition(watched):
    """A walk-through: Might (Strength) with d8 & d6, two helpers (+2: d8
    & d10); the dice d8:3 and d10:2, a failure; tap both and pray: the
    prayer shows d8:1 and d10:4, so ("The Cost of Unanswered Prayer") the
    tray names a physical Condition and the form has Exhausted ticked; the
    next roll's explanation counts it and its dice are a step lower (d8 &
    d8)."""
    page = watched
    _open(page)
    page.select_option(f"{FORM} [name=skill_name]", "might")
    page.select_option(f"{FORM} [name=attribute_name]", "strength")
    page.select_option(f"{FORM} [name=attribute]", "8")
    page.select_option(f"{FORM} [name=skill]", "6")
    page.select_option(f"{FORM} [name=helpers]", "2")
    spec = form_spec("mirage", MIGHT)
    with forced(page, roll_dice("mirage", spec, [3, 2])):
        _roll(page)
    assert "2 helpers +2" in page.inner_text(TRAY)
    assert _dice(page) == ["Attribute die (Strength): red d8 showing 3", "Skill die (Might): blue d10 showing 2"]
    assert page.get_attribute(f"{TRAY} .outcome", "data-outcome") == "failure"
    for i in (0, 1):  # tap the failures
        page.click(f'{TRAY} svg[data-die="{i}"]')
        page.wait_for_selector(f'{TRAY} svg[data-die="{i}"][aria-pressed="true"]')
    assert "If you pray" in page.inner_text("#odds-mirage")
    with forced(page, step_dice("mirage", spec, [3, 2], {"do": "pray", "dice": [0, 1]}, [1, 4])):
        page.click(f'{TRAY} [data-act="pray"]')
        page.wait_for_selector(f"{TRAY} svg.role-rerolled")
    assert page.locator(f'{TRAY} [data-act="pray"]').count() == 0  # once only
    assert "Before the prayer" in page.inner_text(TRAY)
    after = f"{TRAY} figure:not([aria-label^='Before'])"
    assert _dice(page, after) == ["Attribute die (Strength): red d8 showing 1", "Skill die (Might): blue d10 showing 4"]
    assert _gained(page) == ["physical"]
    assert page.is_checked(f'{FORM} [name=conditions][value=exhausted]')
    assert not page.is_checked(f'{FORM} [name=conditions][value=battered]')
    with forced(page, roll_dice("mirage", form_spec("mirage", {**MIGHT, "conditions": "exhausted"}), [6, 7])):
        _roll(page)
    assert "1 physical Condition \u22121" in page.inner_text(TRAY)
    assert _dice(page) == ["Attribute die (Strength): red d8 showing 6", "Skill die (Might): blue d8 showing 7"]


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
    """A Broken character may not act: the message shows at the Conditions
    and stays. Roll is tapped at once after Broken is ticked, while the
    form's odds still wait for their moment: they are worked out before the
    roll (the Broken note in the odds), so they never read the form after
    it and clear its message."""
    page = watched
    _open(page)
    page.check(f'{FORM} [name=conditions][value=broken]')
    page.click(f"{FORM} [data-roll]")
    page.wait_for_selector("#odds-mirage .mirage-broken-note", timeout=SLOW)
    page.wait_for_timeout(300)  # past the odds' 120 ms wait after the tick
    err = page.locator(f'{FORM} [data-error-for="conditions"]')
    assert "Broken" in err.inner_text()
    # refused as a form error refuses a roll: "Not rolled" in the Roll bar, which stays on screen
    assert page.locator(f"{FORM} .roll-bar [data-refused]").is_visible()
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
    targets at least 44 px, with an opposed roll that ties (the tray at its
    fullest: both sides and the three choices); a screenshot for a look."""
    context, page, watch = open_app(browser, base_url, viewport=size, init_script=SCRIPT)
    try:
        _open(page)
        page.check(f"{FORM} [name=opposed]")
        with forced(page, roll_dice("mirage", OPPOSED, TIED)):
            _roll(page)
        assert page.locator(f"{TRAY} .choices [data-act^='choice-']").count() == 3
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
    """Three physical Conditions held (Might, Strength: d10 & d8 three
    steps down, 2d6); the dice d6:2 and d6:3 fail, best play prays with
    both, and the prayer shows d6:1 and d6:4: a fourth Condition
    ("Conditions": Broken). The tray says Broken, the form ticks Broken,
    the odds say no roll, and the next roll is refused at the Conditions (no
    page error)."""
    page = watched
    _open(page)
    page.select_option(f"{FORM} [name=skill_name]", "might")
    page.select_option(f"{FORM} [name=attribute_name]", "strength")
    for n in ("exhausted", "battered", "wounded"):
        page.check(f"{FORM} [name=conditions][value={n}]")
    spec = form_spec("mirage", {"skill_name": "might", "attribute_name": "strength",
                                "conditions": ["exhausted", "battered", "wounded"]})
    with forced(page, roll_dice("mirage", spec, [2, 3])):
        _roll(page)
    assert "3 physical Conditions \u22123" in page.inner_text(TRAY)
    assert _dice(page) == ["Attribute die (Strength): red d6 showing 2", "Skill die (Might): blue d6 showing 3"]
    page.wait_for_selector(f"{TRAY} [data-advised]", timeout=SLOW)  # best play's prayer, a choice
    assert page.inner_text(f"{TRAY} [data-advised] .choice-label") == "Pray with dice 1 and 2"
    with forced(page, step_dice("mirage", spec, [2, 3], {"do": "pray", "dice": [0, 1]}, [1, 4])):
        page.click(f"{TRAY} [data-advised]")
        page.wait_for_selector(f"{TRAY} figure[aria-label^='Before the prayer']", timeout=SLOW)
    assert _gained(page) == ["physical"]
    assert "Broken" in page.inner_text(f"{TRAY} .mirage-condition")
    assert page.is_checked(f"{FORM} [name=conditions][value=broken]")
    page.wait_for_selector("#odds-mirage .mirage-broken-note", timeout=SLOW)
    page.click(f"{FORM} [data-roll]")
    err = page.locator(f'{FORM} [data-error-for="conditions"]')
    err.wait_for(timeout=SLOW)
    assert "Broken" in err.inner_text()


def test_a_tie_is_broken_by_rolling_again(watched):
    """An opposed roll that ties, one success each, offers Tie-break (and
    only then); pressing it rolls both sides again ("Opposed Rolls", ties):
    your d10:10 & d8:1 against d8:2 & d6:3, two successes to none, a
    success with a bonus effect. The tied roll stays in view, the odds panel
    gives the tie-break's chances, no tie-break is offered after a win, and
    the history gets the step."""
    page = watched
    _open(page)
    page.check(f"{FORM} [name=opposed]")
    page.select_option(f"{FORM} [name='opponent.attribute']", "8")
    page.select_option(f"{FORM} [name='opponent.skill']", "6")
    with forced(page, roll_dice("mirage", OPPOSED, TIED)):
        _roll(page)
    assert page.get_attribute(f"{TRAY} [data-outcome]", "data-outcome") == "tie"
    assert page.locator(TIEBREAK).count() == 1
    page.wait_for_function("() => document.querySelector('#odds-mirage').textContent"
                           ".includes('If the GM breaks the tie')")
    entries = page.locator("#history-list [data-history-entry]").count()
    with forced(page, step_dice("mirage", OPPOSED, TIED, {"do": "tiebreak"}, [10, 1, 2, 3])):
        page.locator(TIEBREAK).click()
        page.wait_for_selector(f"{TRAY} .mirage-tied figure", timeout=SLOW)
    assert "Roll 1" in page.inner_text(f"{TRAY} .mirage-tied")
    assert "tie-break 1" in page.inner_text(f"{TRAY} .outcome")
    assert page.get_attribute(f"{TRAY} [data-outcome]", "data-outcome") == "success_with_bonus"
    assert page.locator(TIEBREAK).count() == 0
    # the roll and its tie-break are one history entry, updated in place
    assert page.locator("#history-list [data-history-entry]").count() == entries


@pytest.mark.parametrize("size", [(1024, 768), (768, 1024), (390, 844)], ids=["desktop", "tablet", "phone"])
def test_pray_the_advised_dice(browser, base_url, size):
    """Before the roll the odds give the turn with a prayer on a
    failure; after a failed roll (d10:3, d8:4) the advised dice are marked
    ↻, the odds say best play's chance and why; the main button prays with
    exactly those dice at the roll's prayer bonus, in one tap: with
    preparatory prayer +1 the d8 is prayed as a d10 ("Preparatory Prayer
    and Chapels"), d10:7 and d10:10, a success with a bonus and no
    Condition. A tap on a die shows your choice beside best. Screenshots
    for a look."""
    spec = form_spec("mirage", {"prayer_bonus": "1"})
    context, page, watch = open_app(browser, base_url, viewport=size, init_script=SCRIPT)
    try:
        _open(page)
        page.select_option(f"{FORM} [name=prayer_bonus]", "1")
        page.wait_for_function("() => document.querySelector('#odds-mirage').textContent"
                               ".includes('with a prayer on a failure')", timeout=SLOW)
        with forced(page, roll_dice("mirage", spec, [3, 4])):
            _roll(page)
        page.wait_for_selector(f"{TRAY} [data-advised]", timeout=SLOW)
        dice = page.locator(f"{TRAY} svg[data-die]")
        labels = [dice.nth(i).get_attribute("aria-label") for i in range(dice.count())]
        advised = [i for i, label in enumerate(labels) if "advised for the prayer" in label]
        assert advised == [0, 1] and "\u21bb" in page.inner_text(TRAY)
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
        with forced(page, step_dice("mirage", spec, [3, 4], {"do": "pray", "dice": advised, "bonus": 1}, [7, 10])):
            page.click(f"{TRAY} [data-advised]")
            page.wait_for_selector(f"{TRAY} figure[aria-label^='Before the prayer']", timeout=SLOW)
        after = page.locator(f"{TRAY} figure:not([aria-label^='Before']) svg.role-rerolled")
        assert after.count() == len(advised)
        assert _dice(page, f"{TRAY} figure:not([aria-label^='Before'])") == [
            "Attribute die (Agility): red d10 showing 7", "Skill die (Shadowcraft): blue d10 showing 10"]
        assert page.get_attribute(f"{TRAY} .outcome", "data-outcome") == "success_with_bonus"
        assert _gained(page) == []
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
