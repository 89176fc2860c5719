"""The roll history on the page (docs/RULES-DECISIONS.md, The page): the name set once on
this device goes on each roll and survives a reload; the filter by game and
by roller or character; a long history is drawn a page at a time, each
entry replayed from its stored draws; a first-version store opens; an entry
whose dice do not fit shows what it can; re-importing one's own export says
the rolls were already there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT, show_history, watched_page

import rules
from records import store

pytestmark = pytest.mark.browser

DATA = Path(__file__).resolve().parents[1] / "ui" / "data"
SCREENS = ROOT / "test-results" / "screens"
SLOW = 120_000
ITEMS = "#history-list [data-history-entry]"


def roll(page, system):
    before = page.locator(ITEMS).count()
    page.click(f"#tabbtn-{system}")
    page.click(f"#form-{system} [data-roll]")
    page.wait_for_function(f"() => document.querySelectorAll('{ITEMS}').length > {before}")


def stored_history(page):
    page.wait_for_function("() => !!localStorage.getItem('dice-table/history')")
    return json.loads(page.evaluate("() => localStorage.getItem('dice-table/history')"))


def reload(page):
    page.reload()
    page.wait_for_selector("body[data-ready]", state="attached", timeout=SLOW)


def test_the_roller_is_named_on_each_roll_and_kept(browser, base_url, tmp_path):
    with watched_page(browser, base_url, viewport=(390, 844), accept_downloads=True) as page:
        show_history(page)
        page.fill("#roller-name", "  Dana   Levi ")
        page.click("#history-close")
        roll(page, "jadeclaw")
        show_history(page)
        first = page.locator(ITEMS).first.inner_text()
        assert "by Dana Levi" in first and "rolled here" in first
        page.wait_for_function("() => (JSON.parse(localStorage.getItem('dice-table/history') || '{}')"
                               ".entries || []).length == 1")
        assert stored_history(page)["entries"][0]["roller"] == "Dana Levi"
        SCREENS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENS / "history-roller-390x844.png"))
        reload(page)
        show_history(page)
        assert page.input_value("#roller-name") == "Dana Levi"
        assert "by Dana Levi" in page.locator(ITEMS).first.inner_text()
        # carried in the export
        with page.expect_download() as dl:
            page.click("#history-export")
        path = tmp_path / "export.json"
        dl.value.save_as(path)
        assert json.loads(path.read_text())["entries"][0]["roller"] == "Dana Levi"
        # a roll made with no name carries none
        page.fill("#roller-name", "")
        page.click("#history-close")
        roll(page, "open_tale")
        show_history(page)
        assert "by " not in page.locator(ITEMS).first.inner_text()


def test_the_filter_by_game_and_by_name(browser, base_url):
    with watched_page(browser, base_url, viewport=(1280, 800)) as page:
        page.fill("#roller-name", "Wu")
        roll(page, "jadeclaw")
        roll(page, "mirage")
        page.fill("#roller-name", "Dana")
        page.click("#tabbtn-mirage")
        page.fill("#setup-name", "Etgar — Spirit Gust")
        page.click("#save-form button[type=submit]")
        page.click("[data-setup-roll]")
        page.wait_for_function(f"() => document.querySelectorAll('{ITEMS}').length == 3")
        page.select_option("#history-game", "mirage")
        page.wait_for_function(f"() => document.querySelectorAll('{ITEMS}').length == 2")
        assert all("Mirage" in t for t in page.locator(ITEMS).all_inner_texts())
        assert page.inner_text("#history-shown") == "2 of 3 rolls match."
        page.fill("#history-search", "etgar")
        page.wait_for_function(f"() => document.querySelectorAll('{ITEMS}').length == 1")
        assert "Etgar — Spirit Gust" in page.locator(ITEMS).first.inner_text()
        page.fill("#history-search", "WU")
        page.wait_for_function(f"() => document.querySelectorAll('{ITEMS}').length == 1")
        assert "by Wu" in page.locator(ITEMS).first.inner_text()
        page.select_option("#history-game", "")
        page.wait_for_function(f"() => document.querySelectorAll('{ITEMS}').length == 2")
        # a new roll that does not match the filter is kept but not shown
        roll_count = len(stored_history(page)["entries"])
        page.click("#tabbtn-alkemy")
        page.click("#form-alkemy [data-roll]")
        page.wait_for_selector("#tray-alkemy [data-die]")
        page.wait_for_function(f"() => JSON.parse(localStorage.getItem('dice-table/history')).entries.length == {roll_count + 1}")
        assert page.locator(ITEMS).count() == 2 and page.inner_text("#history-shown") == "2 of 4 rolls match."
        SCREENS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENS / "history-filter-1280x800.png"))
        page.fill("#history-search", "")
        page.wait_for_function(f"() => document.querySelectorAll('{ITEMS}').length == 4")
        assert page.inner_text("#history-shown") == ""


def _entries(n):
    out = []
    for i in range(n):
        result = rules.roll("jadeclaw", {"dice": [12, 8]}, rules.ScriptedRng([i % 12 + 1, i % 8 + 1]))
        out.append(store.new_entry(result, time=1_760_000_000_000 + i * 1000, label=f"roll {i}"))
    return out[::-1]


def test_a_long_history_is_drawn_a_page_at_a_time(browser, base_url):
    """45 stored rolls: 20 drawn at start, the rest on "Show older rolls";
    each drawn entry is its replay (the Score its stored draws give); an
    entry whose dice do not fit its roll shows its label and says so."""
    entries = _entries(45)
    entries[14]["stages"] = [{"do": "roll", "draws": [13, 1]}]  # "roll 30", off a d12
    text = store.dump(entries)
    with watched_page(browser, base_url, viewport=(1280, 800)) as page:
        page.evaluate("(t) => localStorage.setItem('dice-table/history', t)", text)
        reload(page)
        assert page.locator(ITEMS).count() == 20
        assert page.inner_text("#history-more") == "Show older rolls (25 more)"
        assert page.inner_text("#history-count") == "45"
        newest = page.locator(ITEMS).first.inner_text()
        assert "roll 44" in newest and "Score 9" in newest  # draws 44 % 12 + 1 = 9, 44 % 8 + 1 = 5
        page.click("#history-more")
        page.wait_for_function(f"() => document.querySelectorAll('{ITEMS}').length == 40")
        page.click("#history-more")
        page.wait_for_function(f"() => document.querySelectorAll('{ITEMS}').length == 45")
        assert page.locator("#history-more").is_hidden()
        broken = page.locator(ITEMS).nth(14).inner_text()
        assert "roll 30" in broken and "do not fit" in broken
        page.locator(ITEMS).nth(14).locator("[data-history-open]").click()
        assert "cannot be shown" in page.inner_text("#banner")
        # nothing was lost by drawing: the store still holds all 45 as they were
        assert page.evaluate("() => localStorage.getItem('dice-table/history')") == text


def test_a_first_version_store_opens_and_is_rewritten_compact(browser, base_url):
    text = (DATA / "history-v1-store.json").read_text()
    with watched_page(browser, base_url, viewport=(1280, 800)) as page:
        page.evaluate("(t) => localStorage.setItem('dice-table/history', t)", text)
        reload(page)
        assert page.locator(ITEMS).count() == 5
        assert page.locator("#banner").is_hidden()
        texts = page.locator(ITEMS).all_inner_texts()
        assert "shared result, faces as reported" in texts[2] and "Wu — climb" in texts[4]
        # written back in the compact form at once, nothing lost
        page.wait_for_function("() => JSON.parse(localStorage.getItem('dice-table/history')).v == 2")
        data = stored_history(page)
        assert data["v"] == store.VERSION and len(data["entries"]) == 5
        assert all("result" not in e for e in data["entries"])
        assert len(json.dumps(data)) < len(text) / 4
        assert page.locator("#history-list [data-history-entry]").all_inner_texts() == texts


def test_reimporting_ones_own_export_says_nothing_was_new(browser, base_url, tmp_path):
    with watched_page(browser, base_url, viewport=(1280, 800), accept_downloads=True) as page:
        roll(page, "jadeclaw")
        roll(page, "open_tale")
        with page.expect_download() as dl:
            page.click("#history-export")
        path = tmp_path / "export.json"
        dl.value.save_as(path)
        page.set_input_files("#history-import", str(path))
        page.wait_for_function("() => document.querySelector('#banner').textContent.includes('Nothing new')")
        assert page.inner_text("#banner") == "Nothing new: the 2 roll(s) in that file are already in your history."
        assert page.locator(ITEMS).count() == 2
