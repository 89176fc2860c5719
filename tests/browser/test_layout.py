"""Tablet first (issue 8, point 5): every tab, after a roll, at 1024×768 (a
tablet held sideways), 768×1024 (upright) and 390×844 (a phone): nothing
sticks out sideways, every control a finger uses is at least 44×44 CSS px,
and the dice in the tray are large. A full-page screenshot of each case is
saved under test-results/screens/ (git-ignored) for a person to look at."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT, open_app  # noqa: E402  (tests/browser/conftest.py)

import rules

pytestmark = pytest.mark.browser

SIZES = [(1024, 768), (768, 1024), (390, 844)]
SCREENS = ROOT / "test-results" / "screens"
SLOW = 60_000  # the machine may be busy (other suites share it)
TOUCH = 44

#: Controls allowed under 44 px, each with the reason. Radio buttons and
#: checkboxes are measured by the label wrapping them (the label is what a
#: finger hits), so they need no entry here.
EXCEPTIONS = {
    # the file input is visually hidden; its <label class="file-button"> is the target
    "#history-import": "hidden behind its 48 px label",
}

# Visible controls whose box (or, for a radio/checkbox, its label's box) is
# under the touch size; each as [description, width, height].
SMALL_TARGETS = """(args) => {
  const [exceptions, touch] = args;
  const hidden = e => !e.getClientRects().length || getComputedStyle(e).visibility === 'hidden';
  const out = [];
  // a die is a target when it is tappable (role=button); a die only shown is not
  const sel = 'button, input, select, textarea, summary, a[href], [role=button], [tabindex="0"]';
  for (const e of document.querySelectorAll(sel)) {
    if (hidden(e) || exceptions.some(x => e.matches(x))) continue;
    if (e.closest('[hidden], dialog:not([open])')) continue;
    let target = e;
    if (e.type === 'radio' || e.type === 'checkbox') target = e.closest('label') || (e.id && document.querySelector(`label[for="${e.id}"]`)) || e;
    const r = target.getBoundingClientRect();
    if (r.width < touch - 0.5 || r.height < touch - 0.5) {
      const name = e.getAttribute('aria-label') || e.name || (e.textContent || '').trim().slice(0, 30);
      out.push([`${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''} ${name}`, Math.round(r.width), Math.round(r.height)]);
    }
  }
  return out;
}"""

# Elements whose box pokes out of the viewport sideways, unless an ancestor
# scrolls or clips them on purpose (a wide table in its scroll box). The
# page's body hides horizontal overflow, so scrollWidth alone would not see
# content cut off at the right edge; this does.
STICKING_OUT = """() => {
  const out = [];
  for (const e of document.querySelectorAll('body *')) {
    if (!e.getClientRects().length) continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 || (r.right <= innerWidth + 0.5 && r.left >= -0.5)) continue;
    let clipped = false;
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible') { clipped = true; break; }
    }
    if (!clipped) out.push(`${e.tagName.toLowerCase()}.${e.getAttribute('class') || ''} ${Math.round(r.left)}..${Math.round(r.right)}`);
  }
  return out.slice(0, 10);
}"""


@pytest.fixture(scope="module")
def pages(browser, base_url):
    """One watched page per screen size, opened on first use."""
    opened = {}

    def get(size):
        if size not in opened:
            opened[size] = open_app(browser, base_url, viewport=size)
        return opened[size][1]

    yield get
    try:
        for _, page, watch in opened.values():
            watch.check(page)
    finally:
        for context, _, _ in opened.values():
            context.close()


def _roll(page, system):
    page.click(f"#tabbtn-{system}")
    page.wait_for_selector(f"#form-{system} [data-roll]:not([disabled])", timeout=SLOW)
    page.evaluate(f"document.querySelector('#tray-{system}').innerHTML = ''")
    page.click(f"#form-{system} [data-roll]")
    page.wait_for_selector(f"#tray-{system} [data-die]", timeout=SLOW)
    # let the landing animation end, so sizes and the screenshot are final
    page.wait_for_function(f"""() => document.querySelector('#tray-{system}').getAnimations({{subtree: true}})
        .every(a => a.playState !== 'running')""", timeout=SLOW)


@pytest.mark.parametrize("system", rules.SYSTEMS)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_tab_fits_the_screen(pages, size, system):
    """After a roll: no sideways scroll, nothing cut off at the edge, every
    control at least 44×44 px, the dice large; a screenshot for a look."""
    page = pages(size)
    _roll(page, system)
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"{system}-{size[0]}x{size[1]}.png"), full_page=True)

    assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate("innerWidth")
    assert page.evaluate(STICKING_OUT) == []
    small = page.evaluate(SMALL_TARGETS, [list(EXCEPTIONS), TOUCH])
    assert small == [], f"targets under {TOUCH} px: {small}"

    # the dice tray is large: it spans the tab's width, and its dice are big
    # (a size up on a tablet, where the tray has the room)
    tray = page.locator(f"#tray-{system}").bounding_box()
    panel = page.locator(f"#tab-{system}").bounding_box()
    assert tray["width"] >= 0.85 * panel["width"]
    sizes = page.evaluate(f"""() => [...document.querySelectorAll('#tray-{system} svg.die')]
        .map(e => e.getBoundingClientRect().width)""")
    assert sizes
    biggest = 64 if size[0] >= 768 else 52
    assert max(sizes) >= biggest, (max(sizes), biggest)


@pytest.mark.parametrize("button", ["#share-setup", "#share-result"])
@pytest.mark.parametrize("size", [SIZES[0], SIZES[2]], ids=["1024x768", "390x844"])
def test_share_dialog_fits(pages, size, button):
    """The share dialog (link, buttons, QR code) fits a phone and a tablet:
    nothing sticks out, every button is a 44 px target; Escape closes it."""
    page = pages(size)
    _roll(page, "open_tale")
    page.click(button)
    page.wait_for_selector("#share-dialog[open]", timeout=SLOW)
    try:
        box = page.locator("#share-dialog").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= size[0]
        assert page.evaluate(STICKING_OUT) == []
        assert page.evaluate(SMALL_TARGETS, [list(EXCEPTIONS), TOUCH]) == []
        name = "result" if button == "#share-result" else "setup"
        page.screenshot(path=str(SCREENS / f"share-{name}-{size[0]}x{size[1]}.png"))
    finally:
        page.keyboard.press("Escape")
    page.wait_for_selector("#share-dialog[open]", state="detached", timeout=SLOW)
