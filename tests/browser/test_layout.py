"""Tablet first (docs/RULES-DECISIONS.md, The page): every tab, after a roll, at
1024×768 (a tablet held sideways), 768×1024 (upright) and 390×844 (a
phone): nothing sticks out sideways, every control a finger uses is at
least 44×44 CSS px, the dice in the tray are large, and the outcome and
the dice lie inside the screen without the player scrolling, after the roll
and after a step. Sideways, the form and the result stand side by side
and a whole Milhamah turn (roll, tap, reroll) needs no scroll at all.
Screenshots of the screen (``<tab>-<size>.png``) and of the whole page
(``…-full.png``) are saved under test-results/screens/ (git-ignored) for a
person to look at."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from conftest import ROOT, pages_by_size, show_history, watched_page  # noqa: E402  (tests/browser/conftest.py)
from scripted_dice import SCRIPT, forced, form_spec, roll_dice

import cases
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
    # a wide table's scroll box is in the tab order for the keyboard (axe:
    # scrollable-region-focusable); it is read and swiped, never tapped
    ".table-scroll": "a keyboard stop for scrolling, not a tap target",
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
    """One watched page per screen size, opened on first use, its dice
    scriptable."""
    yield from pages_by_size(browser, base_url, init_script=SCRIPT)


def _roll(page, system):
    page.click(f"#tabbtn-{system}")
    page.wait_for_selector(f"#form-{system} [data-roll]:not([disabled])", timeout=SLOW)
    page.evaluate(f"document.querySelector('#tray-{system}').innerHTML = ''")
    # after a roll the page keeps the result at the top of the screen: a player scrolls
    # back up to the form's Roll bar (a phone's one column puts it above the result)
    page.evaluate(f"""() => {{ const b = document.querySelector('#form-{system} [data-roll]').getBoundingClientRect();
        if (b.top < 0 || b.bottom > innerHeight) document.querySelector('#form-{system} .roll-bar')
            .scrollIntoView({{block: 'end'}}); }}""")
    # a finger's tap where Roll is (Playwright's click, finding it briefly covered
    # by the tab being drawn, would scroll the page to try again elsewhere)
    _tap(page, f"#form-{system} [data-roll]")
    page.wait_for_selector(f"#tray-{system} [data-die]", timeout=SLOW)
    _settle(page, system)


def _settle(page, system):
    """Let the landing animation and any smooth scroll end, so sizes and
    the screenshot are final."""
    page.wait_for_function(f"""() => document.querySelector('#tray-{system}').getAnimations({{subtree: true}})
        .every(a => a.playState !== 'running')""", timeout=SLOW)
    # still for a few frames: a smooth scroll may start a frame or two late, and the page
    # checks half a second after a step that the result came into view
    page.wait_for_timeout(600)
    page.wait_for_function("""() => new Promise(done => {
        const pane = document.querySelector('#tab-' + CSS.escape(document.querySelector('[aria-selected=true][data-tab]').dataset.tab) + ' .result-pane');
        const at = () => scrollY + ',' + (pane ? pane.scrollTop : 0);
        const y = at(); let n = 0;
        const tick = () => { if (at() !== y) return done(false); if (++n >= 8) return done(true); requestAnimationFrame(tick); };
        requestAnimationFrame(tick); })""", timeout=SLOW)


#: The outcome line, the first row of dice and the first rules step (Reroll,
#: Pray, Keep: not the buttons that fill the form), and whether each lies
#: inside the screen.
IN_VIEW = """(system) => {
  const tray = document.querySelector('#tray-' + system);
  const outcome = tray.querySelector('.outcome');
  const first = tray.querySelector('svg.die');
  if (!outcome || !first) return {missing: true};
  const top = first.getBoundingClientRect().top;
  const row = [...tray.querySelectorAll('svg.die')].filter(d => Math.abs(d.getBoundingClientRect().top - top) < 2);
  const inside = e => { const r = e.getBoundingClientRect();
    // a column that scrolls on its own hides what is scrolled out of it, though on screen
    const pane = e.closest('.result-pane'), p = pane && getComputedStyle(pane).overflowY !== 'visible'
      ? pane.getBoundingClientRect() : {top: 0, bottom: innerHeight};
    return r.top >= Math.max(0, p.top) - 0.5 && r.left >= -0.5 && r.bottom <= Math.min(innerHeight, p.bottom) + 0.5
      && r.right <= innerWidth + 0.5; };
  const step = tray.querySelector('[data-act]:not([data-act=reuse]):not([data-act=effect])');
  return {outcome: inside(outcome), dice: row.every(inside), n: row.length, step: !step || inside(step),
          box: [outcome.getBoundingClientRect().top, row.map(d => d.getBoundingClientRect().bottom)]};
}"""


def assert_in_view(page, system, when):
    seen = page.evaluate(IN_VIEW, system)
    assert seen.get("outcome") and seen.get("dice") and seen.get("step"), (when, seen, page.evaluate("[scrollY, innerHeight]"))


def _shoot(page, name):
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"{name}.png"))
    page.screenshot(path=str(SCREENS / f"{name}-full.png"), full_page=True)


@pytest.mark.parametrize("system", rules.SYSTEMS)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_tab_fits_the_screen(pages, size, system):
    """After a roll: the outcome and the dice inside the screen, no
    sideways scroll, nothing cut off at the edge, every control at least
    44×44 px, the dice large; a screenshot for a look."""
    page = pages(size)
    _roll(page, system)
    assert_in_view(page, system, "after the roll")
    _shoot(page, f"{system}-{size[0]}x{size[1]}")

    assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate("innerWidth")
    assert page.evaluate(STICKING_OUT) == []
    small = page.evaluate(SMALL_TARGETS, [list(EXCEPTIONS), TOUCH])
    assert small == [], f"targets under {TOUCH} px: {small}"

    # sideways the result stands beside the form; upright and on a phone
    # it spans the tab below it
    tray = page.locator(f"#tray-{system}").bounding_box()
    form = page.locator(f"#form-{system}").bounding_box()
    panel = page.locator(f"#tab-{system}").bounding_box()
    if size[0] >= 900:
        assert tray["x"] >= form["x"] + form["width"] and tray["width"] >= 0.4 * panel["width"]
    else:
        assert tray["width"] >= 0.85 * panel["width"]
    sizes = page.evaluate(f"""() => [...document.querySelectorAll('#tray-{system} svg.die')]
        .map(e => e.getBoundingClientRect().width)""")
    assert sizes
    biggest = 76 if size[0] >= 768 else 52  # a tablet draws its dice a size up
    assert max(sizes) >= biggest, (max(sizes), biggest)


def _tap(page, selector):
    """A finger's tap where the element is on screen now: it must be inside
    the screen already (Playwright's click would scroll it there)."""
    el = page.locator(selector).first
    box = None
    for _ in range(20):  # the advice from the odds Worker may redraw the tray under the finger
        el.wait_for(timeout=SLOW)
        box = el.bounding_box()
        if box:
            break
        page.wait_for_timeout(100)
    w, h = page.viewport_size["width"], page.viewport_size["height"]
    assert box and box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= w \
        and box["y"] + box["height"] <= h, (selector, box)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def test_a_milhamah_turn_without_a_scroll(browser, base_url):
    """On a tablet held sideways: Roll, tap a die to freeze it, Reroll,
    then Roll again: every button is on screen when it is tapped, the
    outcome and the dice are on screen after each step, and the page
    never scrolls."""
    with watched_page(browser, base_url, viewport=SIZES[0]) as page:
        tray = "#tray-milhamah"
        _tap(page, "#form-milhamah [data-roll]")
        page.wait_for_selector(f"{tray} [data-die]", timeout=SLOW)
        _settle(page, "milhamah")
        assert_in_view(page, "milhamah", "after the roll")
        _tap(page, f'{tray} [data-die="0"]')
        page.wait_for_selector(f'{tray} [data-die="0"][aria-pressed="true"]', timeout=SLOW)
        _tap(page, f'{tray} [data-act="reroll"]')
        page.wait_for_selector(f"{tray} svg.role-rerolled", timeout=SLOW)
        _settle(page, "milhamah")
        assert_in_view(page, "milhamah", "after the reroll")
        assert "frozen" in page.get_attribute(f"{tray} svg.die >> nth=0", "aria-label")
        _shoot(page, "turn-milhamah-1024x768")
        entries = page.locator("[data-history-entry]").count()
        _tap(page, f"{tray} [data-roll-again]")
        page.wait_for_function(f"() => document.querySelectorAll('[data-history-entry]').length > {entries}")
        _settle(page, "milhamah")
        assert_in_view(page, "milhamah", "after Roll again")
        assert page.evaluate("scrollY") == 0


#: A step after a roll per game, filled fields first (``cases.LAYOUT_STEP``;
#: a game without one has none).
STEPS = {system: step for system, step in cases.every("LAYOUT_STEP", None).items() if step is not None}
#: The faces of the roll before the step, forced (``cases.LAYOUT_FACES``).
STEP_FACES = cases.every("LAYOUT_FACES", None)


@pytest.mark.parametrize("system", list(STEPS))
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_after_a_step_the_outcome_is_in_view(pages, size, system):
    """Milhamah's reroll, Mirage's prayer, ALKEMY's keep: wherever the
    step's button was, the new outcome and the dice are on screen after it."""
    page = pages(size)
    fill, step = STEPS[system]
    page.click(f"#tabbtn-{system}")
    for name, value in fill.items():
        page.fill(f"#form-{system} [name={name}]", value)
    try:
        if STEP_FACES[system] is None:
            _roll(page, system)
        else:
            with forced(page, roll_dice(system, form_spec(system, fill), STEP_FACES[system])):
                _roll(page, system)
        step(page, SimpleNamespace(roll=_roll, slow=SLOW))
        _settle(page, system)
        assert_in_view(page, system, f"after the {system} step")
        _shoot(page, f"step-{system}-{size[0]}x{size[1]}")
    finally:
        page.click(f"#tab-{system} [data-reset-form]")


def test_a_shared_result_is_shown_first(browser, base_url):
    """A result link opened on a phone: the shared dice and outcome are on
    the screen as the page opens, above the form."""
    with watched_page(browser, base_url, viewport=SIZES[0]) as page:
        _roll(page, "jadeclaw")
        page.click("#share-result")
        link = page.input_value("#share-link")
    with watched_page(browser, link, viewport=SIZES[2]) as page:
        page.wait_for_selector("#tray-jadeclaw [data-die]", timeout=SLOW)
        _settle(page, "jadeclaw")
        assert_in_view(page, "jadeclaw", "a shared result")
        tray = page.locator("#tray-jadeclaw").bounding_box()
        assert tray["y"] < page.locator("#form-jadeclaw").bounding_box()["y"]
        assert page.evaluate("scrollY") == 0
        _shoot(page, "shared-result-390x844")


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


# ---------------------------------------------------------------- at the table, second pass

#: The form's controls and labels (visible, not in a closed group) that lie
#: under the Roll button: each brought into view as focus and a tap do
#: (scrollIntoView "nearest", which honours scroll-padding), then compared
#: with the Roll button's box; and whether the Roll button is a full-width
#: opaque bar, so that nothing shows beside it half-covered.
UNDER_ROLL = """(system) => {
  const form = document.querySelector('#form-' + system);
  const roll = form.querySelector('[data-roll]');
  const bar = roll.closest('.roll-bar') || roll;
  const seen = e => e.getClientRects().length && !e.closest('[hidden], details:not([open]) > :not(summary)');
  const out = [];
  const items = [...form.querySelectorAll('label, legend, summary, input, select, button, .field-error:not(:empty)')]
    .filter(e => seen(e) && !bar.contains(e));
  for (const e of items) {
    e.scrollIntoView({block: 'nearest'});
    const r = e.getBoundingClientRect(), b = bar.getBoundingClientRect();
    if (r.bottom > b.top + 0.5 && r.top < b.bottom - 0.5 && r.right > b.left && r.left < b.right)
      out.push(`${e.tagName.toLowerCase()} ${(e.name || e.textContent || '').trim().slice(0, 30)}`);
  }
  window.scrollTo(0, 0);
  const reset = document.querySelector(`#tab-${system} [data-reset-form]`);
  const fr = form.getBoundingClientRect(), br = bar.getBoundingClientRect();
  const opaque = getComputedStyle(bar).backgroundColor !== 'rgba(0, 0, 0, 0)';
  return {under: out.slice(0, 8), resetInBar: bar.contains(reset), bar: opaque && br.width >= fr.width - 1};
}"""


@pytest.mark.parametrize("system", rules.SYSTEMS)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_roll_button_covers_nothing(pages, size, system):
    """The fixed Roll button covers no control or label at
    any size: it is a full-width bar (nothing shows half-covered beside
    it) holding Reset form, and every field, label and title brought into
    view (as a tap or the keyboard's focus does) lies above it."""
    page = pages(size)
    page.click(f"#tabbtn-{system}")
    page.wait_for_selector(f"#form-{system} [data-roll]:not([disabled])", timeout=SLOW)
    seen = page.evaluate(UNDER_ROLL, system)
    assert seen["under"] == [] and seen["resetInBar"] and seen["bar"], seen


#: Section titles (a fieldset's legend) that cross their box's border: a
#: legend must lie inside its fieldset, below its top border.
CROSSING = """() => [...document.querySelectorAll('.rollform fieldset > legend')].filter(l => l.getClientRects().length)
  .filter(l => { const f = l.parentElement.getBoundingClientRect(), r = l.getBoundingClientRect();
    const top = f.top + parseFloat(getComputedStyle(l.parentElement).borderTopWidth);
    return r.top < top - 0.5 || r.left < f.left || r.right > f.right; })
  .map(l => l.textContent.trim().slice(0, 40))"""


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_section_titles_stay_inside_their_boxes_and_the_header_is_small(pages, size):
    """No section title (one line or two, e.g. "Attribute
    level power = 6 + 2 × level" on a phone) crosses its box's border, on
    any tab; the page header takes at most 56 px of a phone's screen."""
    page = pages(size)
    for system in rules.SYSTEMS:
        page.click(f"#tabbtn-{system}")
        assert page.evaluate(CROSSING) == [], system
    if size[0] < 600:
        assert page.evaluate("document.querySelector('header.top').getBoundingClientRect().height") <= 56


def _history_with(results) -> str:
    import json

    from records import store
    entries = [store.new_entry(r, label="forced") for r in results]
    return f"localStorage.setItem('dice-table/history', {json.dumps(store.dump(entries))});"


def _opposed(draws):
    """An opposed Milhamah roll with the page's default pools (8 dice a side),
    its dice forced: the heaviest tray a turn shows."""
    from rules.dice import ScriptedRng
    spec = {"shoresh": "אשר", "rerolls": 3, "opponent": {"shoresh": "חנן", "rerolls": 3}}
    return rules.roll("milhamah", spec, ScriptedRng(draws))


def _natural_draws():
    """Your first roll: א, ש, ר each on its own die and blanks; the
    opponent's: no letter of theirs, no wild."""
    from rules.milhamah import model as M
    designs = [(c, d) for c in ("red", "green") for d in "ABAB"]
    faces = [M.die_faces(c, d) for c, d in designs]
    mine, need = [], list("אשר")
    for f in faces:
        letter = next((x for x in need if x in f), None)
        if letter:
            need.remove(letter)
        mine.append(f.index(letter) + 1 if letter else next(i + 1 for i, x in enumerate(f) if x not in "אשרחנן*"))
    assert not need, need
    theirs = [next(i + 1 for i, x in enumerate(f) if x not in "חנן*") for f in faces]
    return mine + theirs


#: Everything that must be on screen after a step: the outcome, every die
#: of both sides and every step button.
TURN_IN_VIEW = """() => {
  const tray = document.querySelector('#tray-milhamah');
  const inside = e => { const r = e.getBoundingClientRect();
    const pane = e.closest('.result-pane'), p = pane && getComputedStyle(pane).overflowY !== 'visible'
      ? pane.getBoundingClientRect() : {top: 0, bottom: innerHeight};
    return r.top >= Math.max(0, p.top) - 0.5 && r.bottom <= Math.min(innerHeight, p.bottom) + 0.5
      && r.left >= -0.5 && r.right <= innerWidth + 0.5; };
  const want = [tray.querySelector('.outcome'), ...tray.querySelectorAll('svg.die'), ...tray.querySelectorAll('[data-act]')];
  return want.filter(e => !inside(e)).map(e => `${e.tagName.toLowerCase()} ${(e.getAttribute('aria-label') || e.textContent).trim().slice(0, 40)} ${Math.round(e.getBoundingClientRect().bottom)}`);
}"""


def _step_on_screen(page, act, name):
    """Tap a step where it is (it must be on screen), then everything the
    next step needs is on screen too."""
    before = page.inner_html("#tray-milhamah")
    _tap(page, f'#tray-milhamah [data-act="{act}"]')
    page.wait_for_function("(html) => document.querySelector('#tray-milhamah').innerHTML !== html", arg=before,
                           timeout=SLOW)
    _settle(page, "milhamah")
    missing = page.evaluate(TURN_IN_VIEW)
    _shoot(page, name)
    assert missing == [], (name, missing)


TURNS = {
    "natural": (_natural_draws, ["natural:critical", "stand:opponent", "hit_location"]),
    "rerolls": (lambda: [2, 3, 4, 5, 6, 7, 8, 9] * 2, ["reroll", "stand", "reroll:opponent", "stand:opponent"]),
}


@pytest.mark.parametrize("turn", list(TURNS))
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_step_of_an_opposed_turn_is_on_screen(browser, base_url, size, turn):
    """An opposed Milhamah roll (8 dice a side) on every
    screen, played by best play's main button to the end of the turn (from
    rerolls: your reroll, Stand, the opponent's; from a natural: its reward,
    the opponent standing, the hit location): after the roll and after each
    step the outcome, both sides' dice and the next step's buttons are all
    on screen, and each button is tapped where it is."""
    draws, steps = TURNS[turn]
    first = _opposed(draws())
    script = _history_with([first]) + "Crypto.prototype.getRandomValues = function (a) { a.fill(7); return a; };"
    with watched_page(browser, base_url, viewport=size, init_script=script) as page:
        show_history(page)
        page.click("#history-list [data-history-open]")
        page.wait_for_selector("#tray-milhamah .outcome", timeout=SLOW)
        _settle(page, "milhamah")
        _shoot(page, f"turn-{turn}-0-{size[0]}x{size[1]}")
        missing = page.evaluate(TURN_IN_VIEW)
        assert missing == [], ("after the roll", missing)
        taken = 0
        for i in range(len(steps)):
            # the step buttons are best play's choices once the odds Worker has answered (a busy
            # machine answers late): each step taps the main button, the advised choice, where it is
            page.wait_for_selector("#odds-milhamah[data-odds-shown]:not([aria-busy])", state="attached", timeout=SLOW)
            _settle(page, "milhamah")
            advised = page.locator("#tray-milhamah [data-advised]:not([disabled])")
            if advised.count() == 0:
                break  # the turn is over
            _step_on_screen(page, advised.first.get_attribute("data-act"), f"turn-{turn}-{i + 1}-{size[0]}x{size[1]}")
            taken += 1
        assert taken >= 1, "no step was taken"


def test_the_outcome_comes_back_after_a_step_from_the_odds(browser, base_url):
    """On a tablet held sideways, tap a die, scroll the
    result column down to the odds, press the advised reroll there: the
    new outcome and its dice are on screen."""
    with watched_page(browser, base_url, viewport=SIZES[0], init_script=SCRIPT) as page:
        # a roll best play rerolls (no shoresh letter), so that the advice button shows once a die is tapped
        with forced(page, roll_dice("milhamah", form_spec("milhamah"), cases.of("milhamah").LAYOUT_FACES)):
            page.click("#form-milhamah [data-roll]")
            page.wait_for_selector("#tray-milhamah [data-die]", timeout=SLOW)
        page.wait_for_selector("#tray-milhamah .m-will", timeout=SLOW)
        page.click('#tray-milhamah [data-die="0"]')
        page.wait_for_selector('#tray-milhamah [data-die="0"][aria-pressed="true"]', timeout=SLOW)
        page.wait_for_selector("#odds-milhamah .m-odds-line", timeout=SLOW)
        # the page at its top, the column scrolled part way: the outcome is hidden above the
        # column's top edge, yet still inside the screen
        page.evaluate("""() => { window.scrollTo(0, 0); const pane = document.querySelector('#tab-milhamah .result-pane');
            pane.scrollTop = 120; }""")
        assert page.evaluate("document.querySelector('#tab-milhamah .result-pane').scrollTop") > 60
        button = '#tray-milhamah [data-act="advice"], #tray-milhamah [data-act="reroll"]'
        page.evaluate(f"document.querySelector('{button}'.split(', ')[0]) ? "
                      f"document.querySelector('{button}'.split(', ')[0]).click() : "
                      f"document.querySelector('{button}'.split(', ')[1]).click()")
        page.wait_for_selector("#tray-milhamah svg.role-rerolled", timeout=SLOW)
        _settle(page, "milhamah")
        assert_in_view(page, "milhamah", "after a reroll pressed from the odds")
