"""At the table, second pass: what a GM met in a whole game.
A refused roll is not the result on show and its error is in view; one
turn is one history entry; an empty number box means its default on every
tab and shows it; a shared result never changes the reader's character
and offers no step; a field's error opens its closed group."""

from __future__ import annotations

import json

import pytest
from conftest import open_app, watched_page  # noqa: E402  (tests/browser/conftest.py)

import rules
from links import share
from rules.dice import ScriptedRng

pytestmark = pytest.mark.browser

SLOW = 60_000
PHONE = (390, 844)


def _in_view(page, selector):
    """The element's box lies inside the screen, and nothing fixed (the
    Roll button) lies over its middle."""
    return page.evaluate("""(sel) => { const e = document.querySelector(sel); const r = e.getBoundingClientRect();
        if (r.top < 0 || r.bottom > innerHeight || r.width === 0) return false;
        const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !!top && (e.contains(top) || top.contains(e)); }""", selector)


@pytest.mark.parametrize("size", [(1024, 768), PHONE], ids=["1024x768", "390x844"])
def test_a_refused_roll_is_not_the_result_on_show(browser, base_url, size):
    """Item 3: Open Tale, roll, then target −5 and Roll: the old result is
    marked as the previous roll (not this one), and the error beside the
    target is on screen, not under the fixed Roll button."""
    with watched_page(browser, base_url, viewport=size) as page:
        page.click("#tabbtn-open_tale")
        page.click("#form-open_tale [data-roll]")
        page.wait_for_selector("#tray-open_tale .outcome", timeout=SLOW)
        assert page.locator("#tray-open_tale [data-stale]").count() == 0
        page.fill("#form-open_tale [name=target]", "-5")
        page.click("#form-open_tale [data-roll]")
        page.wait_for_selector("#tray-open_tale [data-stale]", timeout=SLOW)
        assert "not this one" in page.inner_text("#tray-open_tale [data-stale]")
        assert "is-stale" in page.get_attribute("#tray-open_tale", "class")
        page.wait_for_timeout(700)  # a smooth scroll to the error ends
        assert page.inner_text('#form-open_tale [data-error-for="target"]').strip()
        assert _in_view(page, '#form-open_tale [data-error-for="target"]')
        assert _in_view(page, "#form-open_tale [name=target]")
        page.screenshot(path=f"test-results/refused-{size[0]}x{size[1]}.png")
        page.fill("#form-open_tale [name=target]", "")
        page.click("#form-open_tale [data-roll]")
        page.wait_for_selector("#tray-open_tale:not(.is-stale) .outcome", timeout=SLOW)
        assert page.locator("#tray-open_tale [data-stale]").count() == 0


def _entries(page):
    return page.evaluate("JSON.parse(localStorage.getItem('dice-table/history') || '{\"entries\":[]}').entries")


def test_one_turn_is_one_history_entry(watched):
    """Item 6: a Milhamah roll and its reroll are one entry, which reads
    "so far" while a step is possible and the final outcome at the end
    (stored with every stage, so it replays to the whole turn)."""
    page = watched
    page.click("#tabbtn-milhamah")
    before = page.locator("[data-history-entry]").count()
    page.click("#form-milhamah [data-roll]")
    page.wait_for_selector(f"#history-list [data-history-entry] >> nth={before}", state="attached", timeout=SLOW)
    first = page.text_content("#history-list .history-item >> nth=0")
    assert "So far" in first, first
    page.click('#tray-milhamah [data-die="0"]')
    page.click('#tray-milhamah [data-act="reroll"]')
    page.wait_for_selector("#tray-milhamah svg.role-rerolled", timeout=SLOW)
    page.wait_for_function("() => !/So far/.test(document.querySelector('#history-list .history-item').textContent)",
                           timeout=SLOW)
    assert page.locator("[data-history-entry]").count() == before + 1
    page.wait_for_timeout(300)  # the store is written after the paint
    stored = _entries(page)
    assert len(stored) == before + 1 and [s["do"] for s in stored[0]["stages"]] == ["roll", "reroll"]


#: Every tab's number boxes emptied at once (as a player deletes a value).
EMPTY_ALL = """(system) => { const out = {};
  for (const e of document.querySelectorAll(`#form-${system} input[type=number]`)) {
    out[e.name] = e.defaultValue; e.value = ''; e.dispatchEvent(new Event('input', {bubbles: true})); }
  return out; }"""


@pytest.mark.parametrize("system", rules.SYSTEMS)
def test_an_empty_number_box_means_its_default_and_shows_it(watched, system):
    """docs/RULES-DECISIONS.md, "The page": every number box of every tab, left
    empty, rolls with the value the form opens with and then shows it; a
    box that opens empty (Open Tale's target) stays empty, meaning none.
    No error, on any tab."""
    page = watched
    page.click(f"#tabbtn-{system}")
    page.click(f"#tab-{system} [data-reset-form]")
    defaults = page.evaluate(EMPTY_ALL, system)
    assert defaults, "each tab has number boxes"
    page.evaluate(f"document.querySelector('#tray-{system}').innerHTML = ''")
    page.click(f"#form-{system} [data-roll]")
    page.wait_for_selector(f"#tray-{system} .outcome", timeout=SLOW)
    shown = page.evaluate(f"""() => Object.fromEntries([...document.querySelectorAll('#form-{system} input[type=number]')]
        .map(e => [e.name, e.value]))""")
    assert shown == defaults
    errors = page.locator(f"#form-{system} .field-error").all_inner_texts()
    assert not any(t.strip() for t in errors), errors
    page.click(f"#tab-{system} [data-reset-form]")


def test_an_empty_box_shows_its_default_when_left(watched):
    """Item 7: leaving an emptied box (its change event) fills it in."""
    page = watched
    page.click("#tabbtn-alkemy")
    page.fill("#form-alkemy [name=characteristic]", "")
    page.locator("#form-alkemy [name=characteristic]").blur()
    page.wait_for_function("() => document.querySelector('#form-alkemy [name=characteristic]').value !== ''")
    assert page.input_value("#form-alkemy [name=characteristic]") == page.evaluate(
        "document.querySelector('#form-alkemy [name=characteristic]').defaultValue")
    assert not page.inner_text('#form-alkemy [data-error-for="characteristic"]').strip()


def test_an_error_in_a_closed_group_opens_it(watched):
    """Item 11: ALKEMY's tie reroll cap at fault while the GM options are
    closed: the group opens and the error is on screen after Roll."""
    page = watched
    page.click("#tabbtn-alkemy")
    page.evaluate("document.querySelector('#form-alkemy details.alk-gm').open = true")
    page.fill("#form-alkemy [name=max_rerolls]", "999")
    page.evaluate("document.querySelector('#form-alkemy details.alk-gm').open = false")
    page.click("#form-alkemy [data-roll]")
    page.wait_for_function("() => document.querySelector('#form-alkemy [data-error-for=max_rerolls]').textContent.trim()",
                           timeout=SLOW)
    assert page.evaluate("document.querySelector('#form-alkemy details.alk-gm').open")
    page.wait_for_timeout(700)
    assert page.locator('#form-alkemy [data-error-for="max_rerolls"]').is_visible()
    assert _in_view(page, '#form-alkemy [data-error-for="max_rerolls"]')
    page.click("#tab-alkemy [data-reset-form]")


def _prayer_with_a_condition():
    """A Mirage roll that failed and a prayer that showed a 1 (a physical
    Condition gained), by someone with no Condition."""
    spec = rules.normalize("mirage", {"attribute": 6, "attribute_name": "strength", "skill": 6, "difficulty": "average"})
    r = rules.roll("mirage", spec, ScriptedRng([3, 4]))
    p = rules.act("mirage", spec, r, {"do": "pray", "dice": [0, 1]}, ScriptedRng([1, 2]))
    assert p["condition_gained"] == "physical"
    return p


def test_a_shared_result_never_changes_the_readers_conditions(browser, base_url):
    """Item 10: the reader has Angry ticked; they open someone else's
    Mirage result whose prayer gained a Condition: their Conditions are
    exactly as before, on the form and in the stored form."""
    link = base_url + "#" + share.encode_result(_prayer_with_a_condition())
    stored = json.dumps({"v": 1, "tab": "mirage", "forms": {"mirage": {"conditions": ["angry"]}}})
    script = f"localStorage.setItem('dice-table/forms', {json.dumps(stored)});"
    context, page, watch = open_app(browser, base_url, init_script=script)
    try:
        page.click("#tabbtn-mirage")
        ticked = "() => [...document.querySelectorAll('#form-mirage [name=conditions]:checked')].map(e => e.value)"
        assert page.evaluate(ticked) == ["angry"]
        page.goto(link)
        page.wait_for_selector("#tray-mirage .outcome", timeout=SLOW)
        page.wait_for_timeout(500)  # the forms are stored a moment later
        assert page.evaluate(ticked) == ["angry"]
        kept = json.loads(page.evaluate("localStorage.getItem('dice-table/forms')"))
        assert kept["forms"]["mirage"]["conditions"] == ["angry"]
        watch.check(page)
    finally:
        context.close()


def test_a_shared_milhamah_result_mid_turn_offers_nothing(browser, base_url):
    """Item 8: a Milhamah result shared before its reroll is read-only: no
    step button, no tappable die, no "tap dice to freeze them", no ↻; it
    says whose turn it was."""
    r = rules.roll("milhamah", {"shoresh": "אשר", "rerolls": 3}, ScriptedRng([2, 3, 4, 5, 6, 7, 8, 9]))
    assert "reroll" in r["allowed"]
    with watched_page(browser, base_url + "#" + share.encode_result(r), viewport=PHONE) as page:
        page.wait_for_selector("#tray-milhamah .outcome", timeout=SLOW)
        text = page.inner_text("#tray-milhamah")
        assert "tap dice to freeze" not in text and "↻" not in text
        assert "Shared mid-turn: it was the roller's turn" in text
        assert page.locator("#tray-milhamah [data-act], #tray-milhamah [role=button]").count() == 0
