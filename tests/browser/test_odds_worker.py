"""Odds beside the page (docs/SPEED.md): a second Python in a Web Worker answers
the odds questions and best play's advice, so the dice, the outcome and the
buttons never wait for them.

The page's side of the Worker is watched through an init script that can
hold the Worker's answers on the page (``HOLD``): with the answers held, a
roll must still draw its dice and outcome, the panel must say it is working
at its height, and an answer overtaken by a newer question must never be
drawn. The fallback is forced twice: ``?odds=page``, and a Worker script
that throws (served by routing). A first visit in a profile on disk, counted
at the server, must fetch nothing twice for the Worker, and a returning
visit's Worker restores from the page's memory snapshot."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from conftest import READY, show_history, watched_page
from test_offline import persistent, site  # noqa: F401 (fixtures)
from test_snapshot import first_visit, table, visit  # noqa: F401 (fixture)

import rules

pytestmark = pytest.mark.browser

START_MS = 120_000

#: Hold the Worker's answers (text messages) on the page until released.
HOLD = """(() => {
  const d = Object.getOwnPropertyDescriptor(Worker.prototype, "onmessage");
  window.__hold = false;
  window.__held = [];
  Object.defineProperty(Worker.prototype, "onmessage", {
    configurable: true,
    get() { return d.get.call(this); },
    set(fn) {
      d.set.call(this, (e) => {
        if (typeof e.data === "string" && window.__hold) window.__held.push(() => fn(e));
        else fn(e);
      });
    },
  });
  window.__release = () => {
    const held = window.__held;
    window.__held = [];
    held.forEach((f) => f());
    return held.length;
  };
})();"""

#: Every text the panel shows from now on.
RECORD = """(sel) => {
  window.__shown = [];
  new MutationObserver(() => window.__shown.push(document.querySelector(sel).innerText))
    .observe(document.querySelector(sel), {childList: true, subtree: true, characterData: true});
}"""


# The tests that need no held page come first in this file: the module's
# held page (a second Python in its Worker) is opened only after them.
@pytest.fixture(scope="module")
def held(browser, base_url):
    with watched_page(browser, base_url, init_script=HOLD) as page:
        page.wait_for_selector('body[data-odds="worker-fresh"]', state="attached", timeout=START_MS)
        yield page


def idle_panel(page, system):
    """Wait until the panel shows the answer to its newest question."""
    page.wait_for_function(
        """(s) => { const p = document.querySelector('#odds-' + s);
                    return p.dataset.oddsAsked && p.dataset.oddsShown === p.dataset.oddsAsked
                      && !p.hasAttribute('aria-busy'); }""", arg=system, timeout=START_MS)


def asked(page, system):
    return int(page.get_attribute(f"#odds-{system}", "data-odds-asked") or 0)


def set_field(page, system, name, value):
    """Type ``value`` into a field; returns once the page asked its odds."""
    before = asked(page, system)
    page.fill(f'#form-{system} [name="{name}"]', str(value))
    page.wait_for_function("([s, n]) => +document.querySelector('#odds-' + s).dataset.oddsAsked > n",
                           arg=[system, before])


@pytest.mark.parametrize("how", ["query", "broken-worker"])
def test_the_page_answers_itself_without_a_worker(browser, base_url, how):
    """``?odds=page``, or a Worker script that throws as it loads: the page
    works the odds out on its own thread, with nothing in the console, and
    they are drawn for the form and after a roll."""
    url = base_url + ("?odds=page" if how == "query" else "")
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    try:
        page = context.new_page()
        from conftest import Watch

        watch = Watch()
        watch.attach(context, page)
        if how == "broken-worker":
            context.route(re.compile(r".*/odds-worker\.mjs$"), lambda r: r.fulfill(
                status=200, content_type="text/javascript", body='throw new Error("no odds here");'))
        page.goto(url)
        page.wait_for_selector(READY, state="attached", timeout=START_MS)
        want = "page" if how == "query" else "page-error"
        page.wait_for_selector(f'body[data-odds="{want}"]', state="attached", timeout=START_MS)
        page.click("#tabbtn-jadeclaw")
        page.click("#form-jadeclaw [data-roll]")
        page.wait_for_selector("#tray-jadeclaw .outcome")
        page.wait_for_selector('#odds-jadeclaw[data-odds-shown="here"]:not([aria-busy])', state="attached")
        assert "%" in page.inner_text("#odds-jadeclaw")
        watch.check(page)
    finally:
        context.close()


def test_the_worker_fetches_nothing_twice_and_restores_from_the_snapshot(table):
    """A first visit (a profile on disk, counted at the server): the Worker
    starts from the files the page wrote and Pyodide from the HTTP cache, so
    no file is sent twice. The returning visit's Worker restores from the
    page's memory snapshot and answers."""
    page = table.page
    first_visit(page, table.url)
    page.wait_for_selector('body[data-odds="worker-fresh"]', state="attached", timeout=START_MS)
    idle_panel(page, "jadeclaw")
    sent = Counter(path for path, code in table.httpd.log if code == 200)
    twice = {p: n for p, n in sent.items() if n > 1}
    assert not twice, f"sent more than once: {twice}"
    assert not any("odds" in p and p.endswith(".py") for p in sent if sent[p] > 1)

    assert visit(page) == ("snapshot", "restored")
    page.wait_for_selector('body[data-odds="worker-snapshot"]', state="attached", timeout=START_MS)
    page.click("#tabbtn-milhamah")
    page.click("#form-milhamah [data-roll]")
    page.wait_for_selector("#tray-milhamah .outcome")
    idle_panel(page, "milhamah")
    assert page.get_attribute("#odds-milhamah", "data-odds-shown") != "here"


def test_dice_appear_before_the_odds(held):
    """With the Worker's answers held, a roll draws its dice and outcome and
    enables its buttons; the panel says it is working, at the height it had
    (no layout jump); the answer, released, is drawn."""
    page = held
    page.click("#tabbtn-milhamah")
    idle_panel(page, "milhamah")
    before = page.evaluate("document.querySelector('#odds-milhamah').getBoundingClientRect().height")
    page.evaluate("window.__hold = true")
    page.click("#form-milhamah [data-roll]")
    page.wait_for_selector("#tray-milhamah .outcome")
    assert page.locator("#tray-milhamah [data-die]").count() >= 8
    page.wait_for_selector("#odds-milhamah[aria-busy=true]", state="attached")
    page.wait_for_function("window.__held.length === 1")
    assert page.evaluate("document.querySelector('#odds-milhamah').getBoundingClientRect().height") == before
    assert page.locator("#tray-milhamah [data-roll-again]").is_enabled()
    page.evaluate("window.__hold = false")
    assert page.evaluate("window.__release()") == 1
    idle_panel(page, "milhamah")
    assert "%" in page.inner_text("#odds-milhamah")


def test_a_stale_answer_never_overwrites_a_newer_one(held):
    """The answer for difficulty 3, held until the question for 5 was asked,
    is thrown away when it comes; only 5's answer is ever drawn."""
    page = held
    page.click("#tabbtn-alkemy")
    idle_panel(page, "alkemy")
    set_field(page, "alkemy", "difficulty", 30)
    idle_panel(page, "alkemy")
    text_30 = page.inner_text("#odds-alkemy")
    set_field(page, "alkemy", "difficulty", 10)
    idle_panel(page, "alkemy")
    text_10 = page.inner_text("#odds-alkemy")
    assert text_10 != text_30

    page.evaluate("window.__hold = true")
    set_field(page, "alkemy", "difficulty", 30)
    page.wait_for_function("window.__held.length === 1")  # 30's answer, held
    set_field(page, "alkemy", "difficulty", 20)
    newest = page.get_attribute("#odds-alkemy", "data-odds-asked")
    page.evaluate(RECORD, "#odds-alkemy")
    page.evaluate("window.__hold = false")
    assert page.evaluate("window.__release()") == 1
    idle_panel(page, "alkemy")
    assert page.get_attribute("#odds-alkemy", "data-odds-shown") == newest
    shown = page.evaluate("window.__shown")
    final = page.inner_text("#odds-alkemy")
    assert final not in (text_30, text_10)
    assert text_30 not in shown, "the stale answer (difficulty 30) was drawn"
    assert shown and all(t == final for t in shown if t.strip() and "Working" not in t)


def _forced_milhamah_failure():
    """אשר with four dice that show no letter of it (no wild): a failure
    with rerolls left (Milhamah RPG, rerolls)."""
    from rules.dice import ScriptedRng
    from rules.milhamah import model as M

    def blank(colour, side):
        faces = M.die_faces(colour, side)
        return next(i + 1 for i, f in enumerate(faces) if f not in ("א", "ש", "ר", "*"))
    spec = {"shoresh": "אשר", "pool": {"red": 2, "blue": 2}, "rerolls": 2}
    return rules.roll("milhamah", spec, ScriptedRng([blank("red", "A"), blank("red", "B"),
                                                     blank("blue", "A"), blank("blue", "B")]), advise=False)


def test_a_step_needing_advice_works_before_it_comes(browser, base_url):
    """Milhamah's Reroll with no die tapped takes the advised dice: pressed
    while the Worker's advice is held, the page works the advice out itself
    and rerolls at once (a forced failure with rerolls left, opened from
    the history)."""
    import json

    from records import store
    history = store.dump([store.new_entry(_forced_milhamah_failure(), label="forced")])
    script = HOLD + f"localStorage.setItem('dice-table/history', {json.dumps(history)});"
    with watched_page(browser, base_url, init_script=script) as page:
        page.wait_for_selector('body[data-odds="worker-fresh"]', state="attached", timeout=START_MS)
        page.click("#tabbtn-milhamah")
        idle_panel(page, "milhamah")
        page.evaluate("window.__hold = true")
        show_history(page)
        page.click("#history-list [data-history-open]")
        page.wait_for_selector('#tray-milhamah [data-act="reroll"]')
        page.wait_for_function("window.__held.length === 1")
        assert page.get_attribute("#odds-milhamah", "aria-busy") == "true"
        before = page.locator("#history-list [data-history-entry]").count()
        page.click('#tray-milhamah [data-act="reroll"]')
        page.wait_for_selector("#tray-milhamah svg.role-rerolled")  # rerolled at once
        # the roll and its reroll are one history entry
        assert page.locator("#history-list [data-history-entry]").count() == before
        assert page.locator("#tray-milhamah svg.die").count() >= 4
        page.evaluate("window.__hold = false")
        page.evaluate("window.__release()")
        idle_panel(page, "milhamah")
