"""Hostile links and storage: each gives a clear banner, runs no script,
injects no element, and loses none of the existing history."""

import base64
import json
import zlib

import pytest
from conftest import open_app, show_history

import rules
from links import share
from records import store
from rules.dice import ScriptedRng

pytestmark = pytest.mark.browser

XSS = '<img src=x id="pwned" onerror="window.__pwned=1">'


def pack(obj) -> str:
    return share.pack(obj)


def raw(text: bytes) -> str:
    return base64.urlsafe_b64encode(zlib.compress(text, 9)).decode().rstrip("=")


HOSTILE_LINKS = {
    "truncated": share.encode_setup("jadeclaw", {"dice": [12, 8]})[:-7],
    "unknown-version": "v9.s." + pack({"y": "jadeclaw", "p": {}}),
    "not-ours": "section-2",
    "enormous": "v1.s." + "A" * 1_000_000,
    "zip-bomb": "v1.s." + raw(b'{"y":"jadeclaw","p":{"x":"' + b"a" * 2_000_000 + b'"}}'),
    "deeply-nested": "v1.s." + raw(b'{"y":"jadeclaw","p":' + b"[" * 5000 + b"]" * 5000 + b"}"),
    "script-in-strings": "v1.s." + pack({"y": "jadeclaw", "p": {"dice": XSS, "kind": XSS, XSS: XSS}}),
    "script-system": "v1.s." + pack({"y": XSS, "p": {}}),
    "script-in-result": "v1.r." + pack({"y": "jadeclaw", "p": {"dice": [12]},
                                         "t": [{"do": "roll", "draws": [5], XSS: XSS}, {"do": XSS, "draws": []}]}),
    "huge-numbers": "v1.s." + pack({"y": "jadeclaw", "p": {"dice": [10 ** 30], "bonuses": 10 ** 30}}),
    "negative-counts": "v1.s." + pack({"y": "mirage", "p": {"helpers": -5, "attribute": -8}}),
    "result-draw-off-die": "v1.r." + pack({"y": "jadeclaw", "p": {"dice": [6]}, "t": [{"do": "roll", "draws": [9]}]}),
    "result-extra-draws": "v1.r." + pack({"y": "jadeclaw", "p": {"dice": [6]}, "t": [{"do": "roll", "draws": [3, 4]}]}),
    "doubled-payload": (lambda link: link + link.rsplit(".", 1)[1])(share.encode_setup("jadeclaw", {"dice": [12, 8]})),
    "doubled-link": (lambda link: link + "#" + link)(share.encode_setup("jadeclaw", {"dice": [12, 8]})),
    # character sheets (docs/PARTY.md): refused by the rules, named, nothing added to the party
    "sheet-huge-level": "v1.c." + pack({"y": "jadeclaw", "p": {"name": "Wu", "skills": [{"name": "x", "level": 10 ** 30}]},
                                        "i": "ab", "w": 1}),
    "sheet-script-fields": "v1.c." + pack({"y": "jadeclaw", "p": {"name": XSS, XSS: XSS}, "i": "ab", "w": 1}),
    "sheet-script-id": "v1.c." + pack({"y": "mirage", "p": {"name": "Scout"}, "i": XSS, "w": 1}),
    "sheet-too-many-rows": "v1.c." + pack({"y": "alkemy", "p": {"name": "P", "characteristics": [
        {"name": str(i), "value": 1} for i in range(300)]}, "i": "ab", "w": 1}),
    "sheet-bidi-name": "v1.c." + pack({"y": "open_tale", "p": {"name": "Ana\u202egnp.exe"}, "i": "ab", "w": 1}),
    "sheet-deeply-nested": "v1.c." + raw(b'{"y":"mirage","i":"ab","w":1,"p":{"name":' + b"[" * 5000 + b"]" * 5000 + b"}}"),
}


@pytest.fixture(scope="module")
def seeded(browser, base_url):
    """A page with two rolls in its history, reused across the links."""
    context, page, watch = open_app(browser, base_url)
    page.click("#tabbtn-jadeclaw")
    for _ in range(2):
        page.click("#form-jadeclaw [data-roll]")
    page.wait_for_function("() => document.querySelectorAll('#history-list [data-history-entry]').length == 2")
    # the store is written just after the paint: wait for it
    page.wait_for_function("() => (JSON.parse(localStorage.getItem('dice-table/history') || '{}').entries || []).length == 2")
    history = page.evaluate("() => localStorage.getItem('dice-table/history')")
    yield context, page, watch, history
    context.close()


@pytest.mark.parametrize("name", list(HOSTILE_LINKS), ids=list(HOSTILE_LINKS))
def test_hostile_link(seeded, base_url, name):
    """The link opens to a clear banner; no script runs, no element is
    injected, no dialog opens, and the history is all still there."""
    context, page, watch, history = seeded
    page.evaluate("() => { document.querySelector('#banner').hidden = true; }")
    page.goto(base_url + "#" + HOSTILE_LINKS[name])  # same document: the hashchange path
    banner = page.locator("#banner")
    banner.wait_for(state="visible")
    text = banner.inner_text()
    assert "link" in text.lower() or "not valid" in text.lower(), text
    assert page.evaluate("() => window.__pwned") is None
    assert page.locator("#pwned").count() == 0
    assert page.locator("img").count() == 0
    assert not watch.dialogs
    assert page.evaluate("() => localStorage.getItem('dice-table/history')") == history
    assert page.locator("#history-list [data-history-entry]").count() == 2
    assert page.evaluate("() => localStorage.getItem('dice-table/party')") is None  # no sheet slipped in
    watch.check(page)


def test_a_doubled_link_says_it_was_pasted_twice(seeded, base_url):
    """A result link whose payload was pasted twice (the data after the
    deflate stream used to be ignored and the roll shown): refused, the
    banner says why, the history and the tray are as they were."""
    context, page, watch, history = seeded
    link = share.encode_result(rules.roll("jadeclaw", {"dice": [12]}, ScriptedRng([5])))
    tray = page.inner_html("#tray-jadeclaw")
    page.evaluate("() => { document.querySelector('#banner').hidden = true; }")
    page.goto(base_url + "#" + link + link.rsplit(".", 1)[1])
    page.locator("#banner").wait_for(state="visible")
    assert "pasted twice" in page.inner_text("#banner")
    assert page.inner_html("#tray-jadeclaw") == tray
    assert page.evaluate("() => localStorage.getItem('dice-table/history')") == history
    watch.check(page)


@pytest.mark.parametrize("name", ["script-in-result", "truncated"])
def test_hostile_link_on_first_load(browser, base_url, name):
    """The same on a fresh load: the page still starts, rolls, and says why."""
    context, page, watch = open_app(browser, base_url + "#" + HOSTILE_LINKS[name])
    try:
        assert "link" in page.inner_text("#banner").lower()
        assert page.locator("#pwned").count() == 0
        page.click("#tabbtn-jadeclaw")
        page.click("#form-jadeclaw [data-roll]")
        page.wait_for_selector("#tray-jadeclaw [data-die]")
        watch.check(page)
    finally:
        context.close()


def test_corrupt_history_store_is_kept_and_reported(browser, base_url):
    """An unreadable store: banner, a fresh history, and the old text kept
    under a backup key (nothing lost)."""
    context, page, watch = open_app(browser, base_url)
    try:
        page.evaluate("() => localStorage.setItem('dice-table/history', '{broken json')")
        page.reload()
        page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
        assert "could not be read" in page.inner_text("#banner")
        assert page.evaluate("() => localStorage.getItem('dice-table/history/unreadable-backup')") == "{broken json"
        watch.check(page)
    finally:
        context.close()


def test_hostile_entries_in_store_are_skipped_and_escaped(browser, base_url):
    """A store from an older version with a bad entry and script in a
    label: the good entries show, escaped; the bad one is reported."""
    good = {"system": "jadeclaw", "label": XSS, "time": 1,
            "result": {"spec": {"dice": [8]}, "stages": [{"do": "roll", "draws": [4]}],
                       "dice": [{"sides": 8, "face": XSS, "role": XSS, "colour": XSS}], "outcome": XSS}}
    text = json.dumps({"v": 0, "entries": [good, {"system": "nope"}, 42]})
    context, page, watch = open_app(browser, base_url)
    try:
        page.evaluate("(t) => localStorage.setItem('dice-table/history', t)", text)
        page.reload()
        page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
        assert "2 stored roll(s) could not be read" in page.inner_text("#banner")
        assert page.locator("#history-list [data-history-entry]").count() == 1
        assert page.locator("#pwned").count() == 0 and page.evaluate("() => window.__pwned") is None
        # Opening it replays the recorded draws: the stored outcome is not believed.
        show_history(page)
        page.click("#history-list li:first-child [data-history-open]")
        page.wait_for_selector("#tray-jadeclaw [data-die]")
        assert "Score 4" in page.inner_text("#tray-jadeclaw")
        watch.check(page)
    finally:
        context.close()


def test_newer_store_version_is_not_overwritten(browser, base_url):
    """A store written by a newer page is reported and backed up."""
    text = json.dumps({"v": store.VERSION + 1, "entries": []})
    context, page, watch = open_app(browser, base_url)
    try:
        page.evaluate("(t) => localStorage.setItem('dice-table/history', t)", text)
        page.reload()
        page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
        assert "newer version" in page.inner_text("#banner")
        assert page.evaluate("() => localStorage.getItem('dice-table/history/unreadable-backup')") == text
        watch.check(page)
    finally:
        context.close()


def test_full_storage_says_so_and_keeps_rolling(browser, base_url):
    """When the browser refuses to store (quota), the roll still shows and
    the storage banner says the history could not be stored
    (``test_long_evening.py`` plays the way out)."""
    context, page, watch = open_app(browser, base_url)
    try:
        page.evaluate("""() => { Storage.prototype.setItem = function () {
            throw new DOMException('full', 'QuotaExceededError'); }; }""")
        page.click("#tabbtn-jadeclaw")
        page.click("#form-jadeclaw [data-roll]")
        page.wait_for_selector("#tray-jadeclaw [data-die]")
        page.wait_for_function("() => document.querySelector('#storage-says').textContent.includes('the roll history')")
        assert "Storage is full" in page.inner_text("#storage-says")
        assert page.locator("#history-list [data-history-entry]").count() == 1
        watch.check(page)
    finally:
        context.close()
