"""A long evening loses nothing (docs/TRUST.md, "What the page keeps"): two
tabs of the page rolling in turn each keep every roll, setup and fair-roll
request of the other; a reload in the middle of a turn brings the turn back
ready for its next step; a full storage never claims a copy it did not
write, offers the export, and drops the oldest rolls only when the player
says so. (A doubled link is refused in ``test_hostile.py``; 600 rolls in
one page are measured by ``tests/benchmark.py --evening``.)"""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, open_app, show_history, watched_page
from scripted_dice import SCRIPT, forced, form_spec, roll_dice

import rules
from records import store
from rules.dice import ScriptedRng

pytestmark = pytest.mark.browser

SLOW = 120_000
ITEMS = "#history-list [data-history-entry]"
SCREENS = ROOT / "test-results" / "screens"
HISTORY = "dice-table/history"

#: The browser's storage quota as a number of characters (keys and values),
#: set on ``window.__quota``; past it ``setItem`` throws as a full browser does.
QUOTA = """(() => {
  const set = Storage.prototype.setItem;
  window.__used = () => { let n = 0; for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i); n += k.length + localStorage.getItem(k).length; } return n; };
  Storage.prototype.setItem = function (k, v) {
    if (this === window.localStorage && window.__quota !== undefined) {
      const old = this.getItem(k);
      const after = window.__used() - (old === null ? 0 : k.length + old.length) + k.length + String(v).length;
      if (after > window.__quota) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    }
    return set.call(this, k, v);
  };
  window.__setItem = (k, v) => set.call(localStorage, k, v);
})();
"""


def stored(page, key=HISTORY):
    return page.evaluate("(k) => localStorage.getItem(k)", key)


def stored_count(page):
    return len(json.loads(stored(page) or '{"entries": []}')["entries"])


def drawn(page):
    return page.locator(ITEMS).count()


def total(page):
    """The history's count in its toggle (every entry, drawn or not)."""
    return int(page.inner_text("#history-count") or 0)


def roll(page, system="jadeclaw"):
    before = total(page)
    page.click(f"#tabbtn-{system}")
    page.click(f"#form-{system} [data-roll]")
    page.wait_for_function(f"() => +document.querySelector('#history-count').textContent > {before}")


def reload(page):
    page.reload()
    page.wait_for_selector("body[data-ready]", state="attached", timeout=SLOW)


def shot(page, name):
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"{name}.png"))


# ---------------------------------------------------------------- two tabs

#: Tab B never hears the ``storage`` event: only its own read-merge-write
#: at each save can keep tab A's rolls.
DEAF = "window.addEventListener('storage', (e) => e.stopImmediatePropagation(), true);"


def ask(page, player):
    page.click("#tabbtn-jadeclaw")
    page.click("#fair-ask")
    page.wait_for_selector("#ask-dialog[open]")
    page.fill("#ask-player", player)
    page.click("#ask-make")
    page.wait_for_selector("#share-dialog[open]", timeout=SLOW)
    page.click("#share-close")


def test_two_tabs_rolling_in_turn_keep_every_roll(browser, base_url):
    """Tab A (which hears the other tab's writes) and tab B (which does not)
    of one browser roll in turn, three rolls each, save a setup and ask a
    fair roll each: the store holds all of it whichever tab saved last, A's
    panel follows B's rolls as they are stored, and after a reload both
    tabs show all six rolls, both setups and both requests."""
    context, a, watch = open_app(browser, base_url)
    b = context.new_page()
    b.add_init_script(DEAF)
    watch.attach(context, b, route=False)
    try:
        b.goto(base_url)
        b.wait_for_selector("body[data-ready]", state="attached", timeout=SLOW)
        for n in range(1, 7):
            page = a if n % 2 else b
            roll(page)
            page.wait_for_function(f"() => (JSON.parse(localStorage.getItem('{HISTORY}') || '{{}}').entries || [])"
                                   f".length == {n}")
        a.wait_for_function("() => +document.querySelector('#history-count').textContent == 6")
        assert total(b) == 6  # B merged A's rolls at each of its own writes
        for page, name in ((a, "A's climb"), (b, "B's climb")):
            page.fill("#setup-name", name)
            page.click("#save-form button[type=submit]")
        a.wait_for_function("() => document.querySelectorAll('#saved-list .setup-name').length == 2")
        ask(a, "Dana")
        ask(b, "Eli")
        a.wait_for_function("() => document.querySelectorAll('#requests-list [data-request]').length == 2")
        for page in (a, b):
            reload(page)
            page.click("#tabbtn-jadeclaw")
            show_history(page)
            assert total(page) == 6 and drawn(page) == 6
            assert sorted(page.locator("#saved-list .setup-name").all_inner_texts()) == ["A's climb", "B's climb"]
            assert page.locator("#requests-list [data-request]").count() == 2
        assert stored_count(a) == 6
        assert not watch.dialogs
        watch.check(a)
        watch.check(b)
    finally:
        context.close()


# ---------------------------------------------------------------- a reload mid-turn

#: Milhamah's first roll, forced: no shoresh letter (a botch), its rerolls open.
BOTCH = [2, 3, 4, 5, 6, 7, 8, 9]


def test_a_reload_mid_turn_brings_the_turn_back_ready(browser, base_url):
    """A Milhamah roll with its rerolls open, one die tapped; the tab is
    reloaded: the same dice are in the tray, the tapped one still tapped,
    the Reroll step and the odds of rerolling there; the reroll then goes
    on in the same history entry (one turn, one entry)."""
    with watched_page(browser, base_url, init_script=SCRIPT) as page:
        tray = "#tray-milhamah"
        page.click("#tabbtn-milhamah")
        with forced(page, roll_dice("milhamah", form_spec("milhamah"), BOTCH)):
            page.click("#form-milhamah [data-roll]")
            page.wait_for_selector(f'{tray} [data-act="reroll"]')
        page.click(f'{tray} [data-die="1"]')
        page.wait_for_selector('#odds-milhamah [data-odds="reroll"]')
        dice = page.locator(f"{tray} svg.die").evaluate_all("ds => ds.map(d => d.getAttribute('aria-label'))")
        page.wait_for_function(f"() => localStorage.getItem('{HISTORY}')")
        reload(page)
        page.wait_for_selector(f'{tray} [data-act="reroll"]')
        assert page.locator(f"{tray} svg.die").evaluate_all("ds => ds.map(d => d.getAttribute('aria-label'))") == dice
        assert page.get_attribute(f'{tray} [data-die="1"]', "aria-pressed") == "true"
        page.wait_for_selector('#odds-milhamah [data-odds="reroll"]')
        assert "If you reroll" in page.inner_text("#odds-milhamah")
        assert total(page) == 1
        page.click(f'{tray} [data-act="reroll"]')
        page.wait_for_function(f"() => document.querySelector('{tray} .explain')"
                               ".textContent.includes('Rerolled')")
        page.wait_for_function(f"() => JSON.parse(localStorage.getItem('{HISTORY}')).entries[0].stages.length == 2")
        assert stored_count(page) == 1 and total(page) == 1


# ---------------------------------------------------------------- storage full

def _history_of(n):
    rng = ScriptedRng([3] * n)
    return store.dump([store.new_entry(rules.roll("jadeclaw", {"dice": [8]}, rng), time=1_000 + i)
                       for i in range(n)][::-1])


def test_full_storage_offers_the_export_and_drops_only_with_consent(browser, base_url, tmp_path):
    """40 rolls stored, then storage full: a roll still shows, nothing
    claims it was stored (the store keeps its 40), and the banner names the
    roll history, offers the export (which holds all 41) and the drop;
    nothing is dropped until "Drop the oldest 10 rolls" is tapped, then
    everything is stored again and the banner goes."""
    with watched_page(browser, base_url, viewport=(390, 844), init_script=QUOTA, accept_downloads=True) as page:
        page.evaluate("(t) => localStorage.setItem('dice-table/history', t)", _history_of(40))
        reload(page)
        assert total(page) == 40
        page.evaluate("() => { window.__quota = window.__used(); }")
        roll(page)
        banner = page.locator("#storage-banner")
        banner.wait_for(state="visible")
        text = banner.inner_text()
        assert "Storage is full" in text and "the roll history" in text, text
        assert stored_count(page) == 40 and total(page) == 41
        assert page.inner_text("#storage-drop") == "Drop the oldest 10 rolls"
        page.wait_for_timeout(300)  # nothing goes without the player's word
        assert total(page) == 41 and stored_count(page) == 40
        page.wait_for_timeout(600)  # the tray's smooth scroll below the banner
        shot(page, "storage-full-390x844")
        page.set_viewport_size({"width": 1024, "height": 768})
        page.evaluate("() => window.scrollTo(0, 0)")
        page.wait_for_timeout(300)
        shot(page, "storage-full-1024x768")
        with page.expect_download() as dl:
            page.click("#storage-export")
        path = tmp_path / "export.json"
        dl.value.save_as(path)
        assert len(json.loads(path.read_text())["entries"]) == 41
        page.click("#storage-drop")
        banner.wait_for(state="hidden")
        assert total(page) == 31 and stored_count(page) == 31
        assert "oldest 10 rolls were dropped" in page.inner_text("#banner")
        assert json.loads(stored(page))["entries"][0]["time"] > 1_040  # the roll just made is kept


def test_a_store_no_copy_fits_is_never_claimed_kept_nor_written_over(browser, base_url, tmp_path):
    """A 3 MB unreadable history and no room for its copy: the banner does
    not claim a backup (none was written) and says it is left where it is;
    a roll does not overwrite it; "Download" hands it over whole, and only
    "Store over it" lets the page write the history there."""
    broken = "{broken" + "x" * 3_000_000
    seed = (f"if (!sessionStorage.getItem('seeded')) {{ localStorage.setItem('{HISTORY}', "
            f"'{{broken' + 'x'.repeat(3000000)); sessionStorage.setItem('seeded', '1'); }}")
    with watched_page(browser, base_url, init_script=QUOTA + seed + "window.__quota = 4000000;",
                      accept_downloads=True) as page:
        said = page.inner_text("#banner")
        assert "could not be read" in said and "backup key" not in said and "untouched" not in said, said
        assert "no room" in said
        assert page.evaluate("() => localStorage.getItem('dice-table/history/unreadable-backup')") is None
        page.locator("#storage-banner").wait_for(state="visible")
        roll(page)
        page.wait_for_timeout(300)
        assert stored(page) == broken
        shot(page, "storage-held-1024x768")
        page.set_viewport_size({"width": 390, "height": 844})
        page.evaluate("() => window.scrollTo(0, 0)")
        page.wait_for_timeout(300)
        shot(page, "storage-held-390x844")
        with page.expect_download() as dl:
            page.click("#storage-download")
        path = tmp_path / "held.txt"
        dl.value.save_as(path)
        assert path.read_text() == broken
        page.click("#storage-overwrite")
        page.locator("#storage-banner").wait_for(state="hidden")
        assert stored_count(page) == 1
