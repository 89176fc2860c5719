"""Every decision on one screen (docs/RULES-DECISIONS.md, The page): the
dice forced to each kind of decision the games have — Milhamah's reroll,
its natural, the reactor's turn, both sides with eight dice a side;
Mirage's tie and a loss with a prayer open (both close calls); ALKEMY's
opposed keep — each opened from the history at 1024×768 (a tablet held
sideways) and 390×844 (a phone). For each:

- the main button is best play's choice: the largest step button in the
  tray, the one carrying ``data-advised``, its words the rules' label of
  ``rules.advise``'s advice;
- every choice card, the main button and the why line lie inside the
  screen (below the game tabs, which stay at the top, and inside the
  result column where it scrolls on its own), without a scroll by the
  player;
- no control contradicts the advice: no other step button is filled like
  the main one, none claims to be advised or best, and a choice marked
  "best chance" or "safest" is one of the rules' marks.

One page per screen size; every case is a history entry of that page.
Screenshots ``decision-<case>-<size>.png`` go to test-results/screens/."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT, pages_by_size, show_history  # noqa: E402  (tests/browser/conftest.py)
from test_layout import _settle  # the landing animation and any smooth scroll ended, still for a few frames

import rules
from records import store

pytestmark = pytest.mark.browser

SIZES = [(1024, 768), (390, 844)]
SCREENS = ROOT / "test-results" / "screens"
SLOW = 90_000  # the odds Worker answers the advice; the machine may be busy

#: Eight dice a side, no natural on either side (Milhamah's default pools).
OPPOSED8 = {"shoresh": "אשר", "rerolls": 3, "opponent": {"shoresh": "חנן", "rerolls": 3}}
OPPOSED8_DRAWS = [2, 3, 4, 5, 6, 7, 8, 9] * 2

#: (case, system, spec, stages): each a decision of its kind.
CASES = [
    ("milhamah-reroll", "milhamah", {"shoresh": "אשר", "rerolls": 3},
     [{"do": "roll", "draws": [10, 5, 12, 6, 12, 12, 11, 9]}]),
    ("milhamah-natural-8v8", "milhamah", {"shoresh": "שר", "opponent": {"shoresh": "גדל", "rerolls": 1}},
     [{"do": "roll", "draws": [10, 1, 12, 8, 5, 12, 4, 10, 2, 6, 1, 1, 1, 11, 9, 1]}]),
    ("milhamah-roller-8v8", "milhamah", OPPOSED8, [{"do": "roll", "draws": OPPOSED8_DRAWS}]),
    ("milhamah-reactor-8v8", "milhamah", OPPOSED8,
     [{"do": "roll", "draws": OPPOSED8_DRAWS}, {"do": "stand", "side": "initiator", "draws": []}]),
    ("mirage-tie", "mirage", {"attribute": 6, "skill": 6, "prayer_bonus": 0, "opponent": {"attribute": 12, "skill": 8}},
     [{"do": "roll", "draws": [1, 3, 5, 5]}]),
    ("mirage-loss-prayer", "mirage",
     {"attribute": 8, "skill": 8, "prayer_bonus": 1, "opponent": {"attribute": 10, "skill": 8}},
     [{"do": "roll", "draws": [1, 2, 8, 6]}]),
    ("alkemy-opposed-keep", "alkemy", {"characteristic": 3, "bonus": 2, "opponent": {"characteristic": 3, "bonus": 2}},
     [{"do": "roll", "draws": [4, 4, 1, 3, 5, 4, 4, 3]}]),
]


def _results():
    return [rules.replay(system, spec, stages) for _name, system, spec, stages in CASES]


@pytest.fixture(scope="module")
def pages(browser, base_url):
    """One page per screen size, its history holding every case, in order."""
    entries = [store.new_entry(r, time=i + 1, label=name) for i, (r, (name, *_)) in enumerate(zip(_results(), CASES))]
    script = f"localStorage.setItem('dice-table/history', {json.dumps(store.dump(entries))});"
    yield from pages_by_size(browser, base_url, init_script=script)


#: What the test measures of the tray on show: the step buttons (box and
#: whether advised, filled, claiming best play), the choice cards, the why
#: line, and which of them lie outside the screen.
MEASURE = """(system) => {
  const tray = document.querySelector('#tray-' + system);
  const tabs = document.querySelector('.tabs').getBoundingClientRect();
  const view = e => { const r = e.getBoundingClientRect();
    const pane = e.closest('.result-pane'), p = pane && getComputedStyle(pane).overflowY !== 'visible'
      ? pane.getBoundingClientRect() : {top: 0, bottom: innerHeight};
    const top = Math.max(0, tabs.bottom, p.top), bottom = Math.min(innerHeight, p.bottom);
    return r.top >= top - 0.5 && r.bottom <= bottom + 0.5 && r.left >= -0.5 && r.right <= innerWidth + 0.5; };
  const shown = e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden';
  const accent = getComputedStyle(document.documentElement).getPropertyValue('--accent').trim();
  const buttons = [...tray.querySelectorAll('button[data-act]')].filter(shown).map(b => {
    const r = b.getBoundingClientRect();
    return {act: b.dataset.act, area: r.width * r.height, advised: b.hasAttribute('data-advised'),
            bg: getComputedStyle(b).backgroundColor, text: b.innerText.replace(/\\s+/g, ' ').trim()};
  });
  const probe = document.createElement('span'); probe.style.color = accent; document.body.append(probe);
  const filled = getComputedStyle(probe).color; probe.remove();
  const parts = [...tray.querySelectorAll('.choice-main, .choice, [data-why]')];
  return {buttons, filled, why: (tray.querySelector('[data-why]') || {}).innerText || null,
          cards: tray.querySelectorAll('.choice-main, .choice').length,
          outside: parts.filter(e => !view(e)).map(e => `${e.className} ${e.innerText.slice(0, 40)} `
                   + `${Math.round(e.getBoundingClientRect().top)}..${Math.round(e.getBoundingClientRect().bottom)}`)};
}"""


def _open(page, name, system):
    show_history(page)
    page.locator("#history-list [data-history-open]").nth([c[0] for c in CASES].index(name)).click()
    page.wait_for_selector(f"#tray-{system} [data-advised]", timeout=SLOW)
    _settle(page, system)


@pytest.mark.parametrize("case", [c[0] for c in CASES])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_decision_is_on_one_screen(pages, size, case):
    page = pages(size)
    name, system, spec, stages = next(c for c in CASES if c[0] == case)
    _open(page, name, system)
    seen = page.evaluate(MEASURE, system)
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"decision-{case}-{size[0]}x{size[1]}.png"))

    want = rules.advise(system, spec, rules.replay(system, spec, stages, advise=False))
    label = next(c["label"] for c in want["choices"] if c["action"] == want["advice"])
    steps = seen["buttons"]
    advised = [b for b in steps if b["advised"]]
    largest = max(steps, key=lambda b: b["area"])
    assert len(advised) == 1 and largest["advised"], steps
    assert advised[0]["text"].startswith(label), (advised[0]["text"], label)
    assert seen["cards"] == len({json.dumps(c["action"]) for c in want["choices"]}) or system == "alkemy"
    assert seen["why"] and label in seen["why"] and seen["why"].startswith("Why: “")
    assert seen["outside"] == [], seen["outside"]
    # nothing else looks or reads like best play's step
    others = [b for b in steps if not b["advised"]]
    assert not [b for b in others if b["bg"] == seen["filled"]], others
    assert not [b for b in others if any(w in b["text"] for w in ("best play", "(advised)", "↻ best"))], others
    marks = {m for c in want["choices"] for m in c["marks"]}
    for word, mark in (("best chance", "best_chance"), ("safest", "safest")):
        assert (word in page.inner_text(f"#tray-{system}")) == (mark in marks), (word, marks)


#: Where a box lies on screen: below the game tabs (which stay at the top)
#: and above the screen's bottom.
ON_SCREEN = """(sel) => { const e = document.querySelector(sel); if (!e) return null;
  const r = e.getBoundingClientRect(), t = document.querySelector('.tabs').getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, tabs: [t.top, t.bottom], inside: r.top >= t.bottom - 0.5 && r.bottom <= innerHeight + 0.5}; }"""


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_after_a_roll_low_on_the_form_the_outcome_and_the_tabs_stay_on_screen(pages, size):
    """A GM fills Open Tale's form down to its last field and rolls: the
    outcome is on screen (it once ended at y −110 on a tablet), under the
    game tabs, which stayed at the top of the screen (switching game takes
    no scroll back)."""
    page = pages(size)
    page.click("#tabbtn-open_tale")
    page.wait_for_selector("#form-open_tale [data-roll]:not([disabled])", timeout=SLOW)
    page.locator("#form-open_tale [name=target]").scroll_into_view_if_needed()
    page.fill("#form-open_tale [name=target]", "9")
    page.click("#form-open_tale [data-roll]")
    page.wait_for_selector("#tray-open_tale .outcome", timeout=SLOW)
    _settle(page, "open_tale")
    seen = page.evaluate(ON_SCREEN, "#tray-open_tale .outcome")
    assert seen["inside"], seen
    assert seen["tabs"][0] >= -0.5 and page.locator("#tabbtn-mirage").is_visible()
    page.screenshot(path=str(SCREENS / f"open-tale-roll-{size[0]}x{size[1]}.png"))
    page.fill("#form-open_tale [name=target]", "")


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_a_refused_roll_says_not_rolled_where_the_roll_button_is(pages, size):
    """X = 99 (a field low on Milhamah's form): Roll is refused, the field's
    error is brought to the middle of the screen, and "Not rolled" is said
    in the Roll bar, which stays on screen (the tray's note may scroll off
    above); the next roll takes it away."""
    page = pages(size)
    page.click("#tabbtn-milhamah")
    page.wait_for_selector("#form-milhamah [data-roll]:not([disabled])", timeout=SLOW)
    page.fill("#form-milhamah [name=rerolls]", "99")
    page.click("#form-milhamah [data-roll]")
    note = "#form-milhamah .roll-bar [data-refused]"
    page.wait_for_selector(note, timeout=SLOW)
    page.wait_for_timeout(600)  # the smooth scroll to the field
    seen = page.evaluate(ON_SCREEN, note)
    assert seen["inside"] and "Not rolled" in page.inner_text(note), seen
    page.screenshot(path=str(SCREENS / f"not-rolled-{size[0]}x{size[1]}.png"))
    page.fill("#form-milhamah [name=rerolls]", "3")
    page.click("#form-milhamah [data-roll]")
    page.wait_for_selector(f"{note}", state="hidden", timeout=SLOW)
