"""The party in the browser (docs/PARTY.md), dice forced: for each game
a rules-text character rolls a check in two taps and against an NPC in
three, with the same dice, odds and outcome as the form's roll of the same
spec; a Mirage prayer's Condition lands on the sheet and the next Strength
roll shows and applies −1; an ALKEMY figure's health colours its dice; a
sheet by link opens on a second device; the party is kept and merged with
a second tab; the party and the sheet's editor pass axe at tablet and
phone sizes.

The dice are forced (``scripted_dice``: the page's own one-byte
``crypto.getRandomValues`` draws answered from a queue the test arms)."""

from __future__ import annotations

import json

import pytest
from axe_playwright_python.sync_playwright import Axe

from conftest import watched_page  # noqa: E402  (tests/browser/conftest.py)
from scripted_dice import SCRIPT, forced, roll_dice

import cases
import rules
from links import share

pytestmark = pytest.mark.browser

SLOW = 60_000

class _First:
    """Every die on its first face."""

    def randint(self, a, b):
        return a


def first_faces(system: str, spec: dict) -> list:
    """A roll of ``spec`` with every die on its first face."""
    draws = rules.roll(system, spec, _First(), advise=False)["stages"][0]["draws"]
    return roll_dice(system, spec, draws)


def idle(page, system):
    """The odds panel shows the answer to its newest question."""
    page.wait_for_function(
        """(s) => { const p = document.querySelector('#odds-' + s);
                    return p.dataset.oddsAsked && p.dataset.oddsShown === p.dataset.oddsAsked
                      && !p.hasAttribute('aria-busy'); }""", arg=system, timeout=SLOW)


def shown(page, system):
    """What the result on show says: its outcome, each die (as it is read
    out), its choices, and the odds panel's words. (The explanation may
    name more on a sheet's roll: a form has no field for, e.g., a Mirage
    opponent's skill.)"""
    idle(page, system)
    tray = f"#tray-{system}"
    dice = page.eval_on_selector_all(f"{tray} [data-die]", "ds => ds.map(d => d.getAttribute('aria-label') || d.textContent)")
    acts = page.locator(f"{tray} [data-act]").all_inner_texts()
    return page.inner_text(f"{tray} .outcome"), "\n".join(dice), "\n".join(acts), page.inner_text(f"#odds-{system}")


def latest_entry(page):
    """The newest roll history entry's words (the drawer may be closed)."""
    return page.locator("#history-list [data-history-entry]").first.text_content()


def same(got, want):
    """Equal, or the lines that differ."""
    import difflib
    diff = [line for a, b in zip(got, want) for line in difflib.unified_diff(b.splitlines(), a.splitlines(), lineterm="")]
    assert got == want, "\n".join(diff[:40])


def examples(system):
    return {k: rules.normalize_sheet(system, s) for k, s in rules.SHEETS[system].EXAMPLE_SHEETS.items()}


@pytest.fixture(scope="module")
def party(browser, base_url):
    with watched_page(browser, base_url, init_script=SCRIPT) as page:
        yield page


def open_party(page, system):
    page.click(f"#tabbtn-{system}")
    if not page.locator("#party-body .party-chip").count():
        page.click("[data-party-examples]")
    page.wait_for_selector("#party-body [data-character]")


def tap_character(page, name):
    chip = page.locator(f'#party-body [data-character="{name}"]')
    if chip.get_attribute("aria-pressed") != "true":
        chip.click()
    page.wait_for_selector(f'#party-body [data-character="{name}"][aria-pressed="true"]')


@pytest.mark.parametrize("system", rules.SYSTEMS)
def test_a_character_rolls_in_two_taps_and_against_an_npc_in_three(party, system):
    """Two taps (a character, a check) roll its check with its defaults and
    log it as "Name: Check"; three (a character, an NPC, a check) roll it
    against the NPC's; the form's roll of the same spec, with the same dice,
    shows the same dice, outcome, explanation and odds."""
    page = party
    case = cases.of(system).PARTY[0]
    sheets = examples(system)
    pc, npc = sheets[case["sheet"]], sheets[case["against"][0]]
    open_party(page, system)
    # two taps: the character, then its check (no one against it)
    tap_character(page, pc["name"])
    if page.get_attribute('#party-body [data-against=""]', "aria-pressed") != "true":
        page.click('#party-body [data-against=""]')
    alone = rules.check_spec(system, pc, case["check"])
    with forced(page, first_faces(system, alone)):
        page.click(f'#party-body [data-check="{case["check"]}"]')
        page.wait_for_selector(f"#tray-{system} [data-die]")
    assert f"{pc['name']}: {case['check']}" in latest_entry(page)
    assert page.inner_text(f"#tray-{system} .tray-label") == f"{pc['name']}: {case['check']}"
    # three taps: the character (already open: tapped again it would close), the NPC, the check
    page.locator("#party-body [data-against][data-npc]", has_text=npc["name"]).click()
    with forced(page, roll_dice(system, case["form"], case["draws"])):
        page.click(f'#party-body [data-check="{case["check"]}"]')
        page.wait_for_selector(f'#tray-{system} .outcome[data-outcome="{case["outcome"]}"]', timeout=SLOW)
    mine = shown(page, system)
    assert f"{pc['name']}: {case['check']} vs {npc['name']}: {case['against'][1]}" in latest_entry(page)
    # the form's roll of the same spec, typed in by hand (cases), same dice
    page.evaluate("document.querySelector('#tray-%s').innerHTML = ''" % system)
    page.evaluate(f"location.hash = {json.dumps(share.encode_setup(system, case['form']))}")
    page.wait_for_selector("#banner:has-text('roll setup')")
    with forced(page, roll_dice(system, case["form"], case["draws"])):
        page.click(f"#form-{system} [data-roll]")
        page.wait_for_selector(f'#tray-{system} .outcome[data-outcome="{case["outcome"]}"]', timeout=SLOW)
    same(shown(page, system), mine)
    page.evaluate("history.replaceState(null, '', location.pathname)")


def _check_item(page, check):
    return page.locator(f'#party-body .party-checks > li:has([data-check="{check}"])')


def test_a_prayers_condition_lands_and_the_next_strength_roll_takes_minus_one(party):
    """Mirage, "The Cost of Unanswered Prayer": a prayer that leaves a 1
    asks which physical Condition (after Strength); left for later, the
    choice waits on the sheet through a reload; the chosen one is on the
    sheet, the next Might (Strength) roll shows "−1: 1 physical Condition
    (Battered)" and rolls one die less; cleared, it is gone."""
    page = party
    open_party(page, "mirage")
    scout = examples("mirage")["scout"]
    tap_character(page, scout["name"])
    page.click('#party-body [data-against=""]')
    spec = rules.check_spec("mirage", scout, "Might")
    with forced(page, roll_dice("mirage", spec, [2, 3])):
        page.click('#party-body [data-check="Might"]')
        page.wait_for_selector("#tray-mirage [data-die]")
    for die in page.locator("#tray-mirage [data-die]").all()[:2]:
        die.click()
    with forced(page, [(1, 6), (4, 6)]):  # d6 showing 1, d6 showing 4
        page.click('#tray-mirage [data-act="pray"]')
        page.wait_for_selector("#consequence-dialog[open]")
    assert "physical Condition" in page.inner_text("#consequence-q")
    choices = page.locator("#consequence-dialog [data-consequence]").all_inner_texts()
    assert choices == ["Exhausted", "Battered", "Wounded"]
    page.click("#consequence-later")  # it waits on the sheet, kept: a reload loses nothing
    page.reload()
    page.wait_for_selector("body[data-ready]", state="attached", timeout=SLOW * 2)
    page.click("#tabbtn-mirage")
    page.wait_for_selector('#party-body [data-character="Scout"] .chip-wait')
    tap_character(page, scout["name"])
    assert "physical Condition" in page.inner_text("#party-body .party-pending")
    page.click('#party-body .party-pending [data-consequence="battered"]')
    page.wait_for_selector("#party-body .party-pending", state="detached")
    assert "Recorded on Scout: Conditions: Battered." in page.inner_text("#banner")
    assert page.is_checked('#party-play input[name="conditions"][value="battered"]')
    assert "−1: 1 physical Condition (Battered)" in _check_item(page, "Might").inner_text()
    assert "Condition" not in _check_item(page, "Observation").inner_text()
    with forced(page, roll_dice("mirage", {**spec, "conditions": {"physical": 1}}, [6])):
        page.click('#party-body [data-check="Might"]')
        page.wait_for_selector("#tray-mirage [data-die]")
    assert page.locator("#tray-mirage .dice [data-die]").count() == 1  # 2d6 stepped down one: d6
    assert "1 physical Condition" in page.inner_text("#tray-mirage") or "Condition" in page.inner_text("#tray-mirage")
    page.uncheck('#party-play input[name="conditions"][value="battered"]')
    page.wait_for_function("() => !document.querySelector('#party-body').innerText.includes('Battered)')")
    with forced(page, roll_dice("mirage", spec, [6, 6])):
        page.click('#party-body [data-check="Might"]')
        page.wait_for_function("() => document.querySelectorAll('#tray-mirage .dice [data-die]').length == 2")


def test_alkemy_health_sets_the_dice_colour(party):
    """ALKEMY, "Jet characteristic": the figure's health changed on its card
    colours the dice of its next roll."""
    page = party
    open_party(page, "alkemy")
    patrick = examples("alkemy")["patrick"]
    tap_character(page, patrick["name"])
    page.click('#party-body [data-against=""]')
    for colour in ("yellow", "red"):
        page.select_option('#party-play select[name="health"]', colour)
        page.wait_for_selector(f'#party-body .applied:has-text("{colour} dice")')
        page.click('#party-body [data-check="Reflex"]')
        page.wait_for_function("(c) => document.querySelector('#tray-alkemy').innerHTML.includes(c + ' die showing')",
                               arg=colour)
        assert "white die showing" not in page.inner_html("#tray-alkemy")


def test_a_sheet_by_link_opens_on_a_second_device(party, browser, base_url):
    """Share sheet gives a link; opened on another device it puts the same
    character, its checks and all, in that device's party."""
    page = party
    open_party(page, "jadeclaw")
    tap_character(page, "Wu Shousu")
    page.click("#party-body [data-sheet-share]")
    link = page.input_value("#share-link")
    page.click("#share-close")
    assert "#v1.c." in link
    with watched_page(browser, link) as other:
        other.wait_for_selector('#party-body [data-character="Wu Shousu"][aria-pressed="true"]')
        assert "Added Wu Shousu" in other.inner_text("#banner")
        assert other.locator('#party-body [data-check="Fast-Talk"]').count() == 1
        assert other.get_attribute("#tabbtn-jadeclaw", "aria-selected") == "true"


def close_card(page):
    pressed = page.locator('#party-body [data-character][aria-pressed="true"]')
    if pressed.count():
        pressed.click()
    page.wait_for_selector("#party-body [data-party-new]")


def new_character(page, name, attribute, level):
    close_card(page)
    page.click("[data-party-new]")
    page.fill('#sheet-form [name="name"]', name)
    page.click("#sheet-form [data-sheet-add]")
    page.fill('#sheet-form [name="attributes.0.name"]', attribute)
    page.fill('#sheet-form [name="attributes.0.level"]', str(level))
    page.click("#sheet-save")


def test_the_party_is_kept_and_merged_with_a_second_tab(party, base_url):
    """A sheet made in the editor (its errors shown at their fields) in one
    tab, another made in a second tab of the same browser that never saw
    the first: both tabs end with both, and so does a reload."""
    one = party
    two = one.context.new_page()
    one.watch.attach(one.context, two, route=False)
    try:
        two.goto(base_url)
        two.wait_for_selector("body[data-ready]", state="attached", timeout=SLOW * 2)
        for page in (one, two):
            page.click("#tabbtn-open_tale")
        new_character(one, "Ana", "Wits", 12)
        assert "from 1 to 9" in one.inner_text('#sheet-form [data-error-for="attributes.0.level"]')
        one.fill('#sheet-form [name="attributes.0.level"]', "4")
        one.click("#sheet-save")
        one.wait_for_selector('#party-body [data-character="Ana"]')
        new_character(two, "Bo", "Heart", 3)  # this tab never drew Ana: it merges, it does not overwrite
        two.wait_for_selector('#party-body [data-character="Bo"]')
        one.wait_for_selector('#party-body [data-character="Bo"]')  # the other tab's store, merged in
        two.reload()
        two.wait_for_selector("body[data-ready]", state="attached", timeout=SLOW * 2)
        two.click("#tabbtn-open_tale")
        for name in ("Ana", "Bo"):
            two.wait_for_selector(f'#party-body [data-character="{name}"]')
        one.watch.check(two)
    finally:
        two.close()


def _axe(page, where):
    violations = Axe().run(page).response["violations"]
    return [f"[{where}] {v['impact']} {v['id']}: {[n['target'] for n in v['nodes'][:4]]}" for v in violations]


def _audit_party(page):
    open_party(page, "jadeclaw")
    tap_character(page, "Wu Shousu")
    rival = page.locator("#party-body [data-against][data-npc]").first
    if rival.get_attribute("aria-pressed") != "true":
        rival.click()
    found = _axe(page, "card")
    page.click("#party-body [data-sheet-edit]")
    page.wait_for_selector("#sheet-dialog[open]")
    found += _axe(page, "editor")
    page.click("#sheet-cancel")
    open_party(page, "mirage")
    tap_character(page, "Scout")
    return found + _axe(page, "mirage card")


def test_axe_finds_nothing_in_the_party_and_the_editor(party, browser, base_url):
    """A character's card open (an NPC against it) and its sheet's editor
    open: no violation at all, at tablet size and at phone size."""
    found = _audit_party(party)
    with watched_page(browser, base_url, viewport=(390, 844)) as phone:
        found += _audit_party(phone)
    assert found == []
