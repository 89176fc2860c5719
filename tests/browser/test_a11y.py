"""Accessible: an axe-core audit of every tab after a roll
(its folded sections opened) and of the filled roll history finds nothing
serious or critical; the whole roll flow works by keyboard alone, and its
result lands in the tray's aria-live region; with reduced motion asked
for, no die moves.

axe-core comes bundled with axe-playwright-python and is injected into the
page from that local file; the page's watcher would fail the test on any
request that leaves 127.0.0.1."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe

from conftest import open_app, show_history  # noqa: E402  (tests/browser/conftest.py)

import rules

pytestmark = pytest.mark.browser

SLOW = 60_000  # the machine may be busy (other suites share it)
BLOCKING = ("serious", "critical")


def _roll(page, system):
    page.click(f"#tabbtn-{system}")
    page.wait_for_selector(f"#form-{system} [data-roll]:not([disabled])", timeout=SLOW)
    page.evaluate(f"document.querySelector('#tray-{system}').innerHTML = ''")
    page.click(f"#form-{system} [data-roll]")
    page.wait_for_selector(f"#tray-{system} [data-die]", timeout=SLOW)


def audit(page, where: str) -> list:
    """Run axe on the page; print every violation, return the blocking ones."""
    violations = Axe().run(page).response["violations"]
    for v in violations:
        nodes = "; ".join(" ".join(n["target"]) for n in v["nodes"][:5])
        print(f"[{where}] {v['impact']}: {v['id']} ({v['help']}) at {nodes}")
    return [f"{v['impact']} {v['id']}: {v['help']} at {[n['target'] for n in v['nodes'][:5]]}"
            for v in violations if v["impact"] in BLOCKING]


@pytest.mark.parametrize("system", rules.SYSTEMS)
def test_axe_on_each_tab_after_a_roll(watched, system):
    """Every tab, rolled, with its folded sections (options, reference)
    opened so that their content is audited too."""
    page = watched
    _roll(page, system)
    page.evaluate(f"document.querySelectorAll('#tab-{system} details').forEach(d => d.open = true)")
    blocking = audit(page, system)
    page.evaluate(f"document.querySelectorAll('#tab-{system} details').forEach(d => d.open = false)")
    assert blocking == []


@pytest.fixture(scope="module")
def phone(browser, base_url):
    """A second watched page, 390×844 wide."""
    context, page, watch = open_app(browser, base_url, viewport=(390, 844))
    yield page
    try:
        watch.check(page)
    finally:
        context.close()


@pytest.mark.parametrize("system", rules.SYSTEMS)
def test_axe_at_phone_width(phone, system):
    """At 390×844 wide tables scroll inside their boxes: every tab again,
    rolled, folded sections open."""
    _roll(phone, system)
    phone.evaluate(f"document.querySelectorAll('#tab-{system} details').forEach(d => d.open = true)")
    blocking = audit(phone, f"{system} 390")
    phone.evaluate(f"document.querySelectorAll('#tab-{system} details').forEach(d => d.open = false)")
    assert blocking == []


def test_axe_with_the_history_filled(watched):
    """A roll on every tab fills the history; one entry opened again."""
    page = watched
    for system in rules.SYSTEMS:
        _roll(page, system)
    assert page.locator("#history-list [data-history-entry]").count() >= len(rules.SYSTEMS)
    show_history(page)
    assert audit(page, "history drawer") == []
    page.click("#history-list [data-history-entry] >> nth=2")
    assert audit(page, "history") == []


ROLE_WORDS = ("kept", "dropped", "frozen", "rerolled", "exploded", "wild", "imaginary")


def test_every_die_has_a_text_equivalent(watched):
    """After a roll on each tab (and an Open Tale roll of 2d4, which
    explodes often), every die drawn in a tray has a name that says what it
    shows and the role its outline and badge draw."""
    page = watched
    seen = set()
    for system in rules.SYSTEMS:
        _roll(page, system)
        dice = page.evaluate(f"""() => [...document.querySelectorAll('#tray-{system} svg.die')]
            .map(e => [e.getAttribute('class'), e.getAttribute('aria-label') || '',
                       e.querySelector('title') ? e.querySelector('title').textContent : ''])""")
        assert dice, system
        for cls, label, title in dice:
            assert label.strip(), (system, cls)
            assert re.search(r"showing|\\d|explosion", label), (system, label)
            role = re.search(r"role-([a-z_]+)", cls).group(1)
            if role in ROLE_WORDS:
                seen.add(role)
                assert role in label.lower(), (system, role, label)
    assert {"kept"} <= seen  # ALKEMY or Jadeclaw keep dice on every roll


def test_the_audit_can_fail(watched):
    """A control with no name is caught: the audit is not a blank check."""
    page = watched
    page.evaluate("""() => { const b = document.createElement('button'); b.id = 'a11y-probe';
                       document.querySelector('#tab-milhamah').prepend(b); }""")
    page.click("#tabbtn-milhamah")
    try:
        assert any("button-name" in v for v in audit(page, "probe"))
    finally:
        page.evaluate("document.querySelector('#a11y-probe').remove()")


# ---------------------------------------------------------------- keyboard

def _focused(page, selector: str) -> bool:
    return page.evaluate("s => !!document.activeElement && document.activeElement.matches(s)", selector)


def tab_to(page, selector: str, limit: int = 120) -> None:
    """Press Tab until the focus is on ``selector`` (fails after ``limit``)."""
    for _ in range(limit):
        if _focused(page, selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def _open_tab_by_keyboard(page, system):
    """From the first tab, arrow keys move along the tab list."""
    page.focus("#tabbtn-milhamah")
    page.keyboard.press("Enter")
    for _ in range(len(rules.SYSTEMS)):
        if page.get_attribute(f"#tabbtn-{system}", "aria-selected") == "true":
            break
        page.keyboard.press("ArrowRight")
    assert _focused(page, f"#tabbtn-{system}")
    assert page.locator(f"#tab-{system}").is_visible()


def _live_outcome(page, system) -> str:
    """The outcome as it stands in the tray, which is an aria-live region."""
    tray = page.locator(f"#tray-{system}")
    assert tray.get_attribute("aria-live") == "polite"
    return page.inner_text(f"#tray-{system} .outcome")


def test_milhamah_by_keyboard(watched):
    """Milhamah: Tab to X, raise it with the arrow key, Tab to Roll, Enter;
    Tab to a die, Space freezes it; Tab to Reroll, Enter: the frozen die
    keeps its face and the others are rerolled. The outcome lands in the
    live region each time."""
    page = watched
    _open_tab_by_keyboard(page, "milhamah")
    tray = "#tray-milhamah"
    tab_to(page, "#form-milhamah [name=rerolls]")
    page.keyboard.press("ArrowUp")
    assert page.input_value("#form-milhamah [name=rerolls]") == "4"
    page.evaluate(f"document.querySelector('{tray}').innerHTML = ''")
    tab_to(page, "#form-milhamah [data-roll]")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{tray} [data-die]", timeout=SLOW)
    assert "X = 4" in page.inner_text(tray)
    assert _live_outcome(page, "milhamah").strip()

    tab_to(page, f'{tray} [data-die="1"]')
    face = page.get_attribute(f'{tray} [data-die="1"]', "aria-label").split("showing ")[1].split(",")[0]
    page.keyboard.press(" ")
    page.wait_for_selector(f'{tray} [data-die="1"][aria-pressed="true"]')
    assert _focused(page, f'{tray} [data-die="1"]')  # focus stays on the die after the redraw
    page.keyboard.press(" ")
    page.wait_for_selector(f'{tray} [data-die="1"][aria-pressed="false"]')
    page.keyboard.press(" ")
    page.wait_for_selector(f'{tray} [data-die="1"][aria-pressed="true"]')

    tab_to(page, f'{tray} [data-act="reroll"]')
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{tray} svg.role-rerolled", timeout=SLOW)
    label = page.get_attribute(f"{tray} svg.die >> nth=1", "aria-label")
    assert f"showing {face}" in label and "frozen" in label
    assert "Rerolled" in page.inner_text(f"{tray} .explain")
    assert _live_outcome(page, "milhamah").strip()
    page.fill("#form-milhamah [name=rerolls]", "3")


def test_alkemy_by_keyboard(watched):
    """ALKEMY: Tab to Bonus dice, raise it to 1 with the arrow key, Tab to
    Roll, Enter: three dice, the best two kept. Tab to the dropped die and
    to a kept one, Space on each; Tab to Keep, Enter: the chosen pair is kept
    and the new total is announced in the live region."""
    page = watched
    _open_tab_by_keyboard(page, "alkemy")
    tray = "#tray-alkemy"
    tab_to(page, "#form-alkemy [name=bonus]")
    page.keyboard.press("ArrowUp")
    assert page.input_value("#form-alkemy [name=bonus]") == "1"
    page.evaluate(f"document.querySelector('{tray}').innerHTML = ''")
    tab_to(page, "#form-alkemy [data-roll]")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{tray} [data-die][role=button]", timeout=SLOW)
    dice = page.locator(f"{tray} .alk-hand-initiator svg[data-die]")
    labels = [dice.nth(i).get_attribute("aria-label") for i in range(dice.count())]
    assert len(labels) == 3
    dropped = next(i for i, l in enumerate(labels) if l.endswith("dropped"))
    kept = next(i for i, l in enumerate(labels) if l.endswith("kept"))
    face = [int(l.split("showing ")[1].split(" ")[0]) for l in labels]
    characteristic = int(page.input_value("#form-alkemy [name=characteristic]"))

    for i in sorted((dropped, kept)):
        key = dice.nth(i).get_attribute("data-die")
        tab_to(page, f'{tray} [data-die="{key}"]')
        page.keyboard.press(" ")
        page.wait_for_selector(f'{tray} [data-die="{key}"][aria-pressed="true"]')
    tab_to(page, f"{tray} [data-act=keep]")
    page.keyboard.press("Enter")
    key = dice.nth(dropped).get_attribute("data-die")
    page.wait_for_selector(f'{tray} svg[data-die="{key}"].role-kept', timeout=SLOW)
    assert "chose dice" in page.inner_text(f"{tray} .explain")
    total = face[dropped] + face[kept] + characteristic
    assert _live_outcome(page, "alkemy").split()[1] == str(total)  # e.g. "Success 16 against 15"
    page.fill("#form-alkemy [name=bonus]", "0")


# ---------------------------------------------------------------- motion

def _animations(page, system) -> list:
    return page.evaluate(f"""() => [...document.querySelectorAll('#tray-{system} svg.die')]
        .map(e => getComputedStyle(e).animationName)""")


@pytest.mark.parametrize("system", rules.SYSTEMS)
def test_reduced_motion_stills_the_dice(watched, system):
    """With reduced motion asked for, no die in the tray animates; without
    it the dice land with a short animation (so the check can fail)."""
    page = watched
    try:
        page.emulate_media(reduced_motion="no-preference")
        _roll(page, system)
        moving = _animations(page, system)
        assert any(name != "none" for name in moving), moving
        durations = page.evaluate(f"""() => [...document.querySelectorAll('#tray-{system} svg.die')]
            .map(e => parseFloat(getComputedStyle(e).animationDuration))""")
        assert max(durations) <= 0.5  # short
        page.emulate_media(reduced_motion="reduce")
        _roll(page, system)
        assert set(_animations(page, system)) == {"none"}
    finally:
        page.emulate_media(reduced_motion="no-preference")
