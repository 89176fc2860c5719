"""At the table: the roll history survives a reload and round-trips through
export and import; saved setups roll in one tap; share links open the
right state in a fresh context, and a result link is replayed from its
dice, not believed."""

import json
import re

import pytest
from conftest import open_app, show_history

from links import share

pytestmark = pytest.mark.browser


def roll_jadeclaw(page, dice="d12 & d8"):
    page.click("#tabbtn-jadeclaw")
    page.fill("#form-jadeclaw [name=dice]", dice)
    before = page.locator("#history-list [data-history-entry]").count()
    page.click("#form-jadeclaw [data-roll]")
    page.wait_for_function(
        f"() => document.querySelectorAll('#history-list [data-history-entry]').length > {before}")


def test_history_survives_reload(browser, base_url):
    """Rolls stay in the history after the page is reloaded (localStorage)."""
    context, page, watch = open_app(browser, base_url)
    try:
        roll_jadeclaw(page)
        roll_jadeclaw(page, "2d12 & d4")
        first = page.inner_text("#history-list li:first-child")
        page.reload()
        page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
        assert page.locator("#history-list [data-history-entry]").count() == 2
        assert page.inner_text("#history-list li:first-child") == first
        # tapping an entry shows the full result again, replayed from its dice
        show_history(page)
        page.click("#history-list li:first-child [data-history-open]")
        page.wait_for_selector("#tray-jadeclaw [data-die]")
        assert "2d12 & d4" in page.inner_text("#tray-jadeclaw")
        watch.check(page)
    finally:
        context.close()


def test_export_clear_import_restores(browser, base_url, tmp_path):
    """Export → clear (confirmed) → import gives back the same history."""
    context, page, watch = open_app(browser, base_url, accept_downloads=True)
    try:
        roll_jadeclaw(page)
        roll_jadeclaw(page, "d10, d6")
        show_history(page)
        entries = page.locator("#history-list [data-history-entry]").all_inner_texts()
        with page.expect_download() as dl:
            page.click("#history-export")
        path = tmp_path / "export.json"
        dl.value.save_as(path)
        data = json.loads(path.read_text())
        assert data["app"] == "dice-table" and len(data["entries"]) == 2
        watch.accept_dialogs = 1
        page.click("#history-clear")
        page.wait_for_function("() => !document.querySelector('#history-list [data-history-entry]')")
        page.set_input_files("#history-import", str(path))
        page.wait_for_function("() => document.querySelectorAll('#history-list [data-history-entry]').length == 2")
        assert page.locator("#history-list [data-history-entry]").all_inner_texts() == entries
        assert "Imported 2 roll(s)" in page.inner_text("#banner")
        watch.dialogs.clear()
        watch.check(page)
    finally:
        context.close()


def test_saved_setup_rolls_in_one_tap(watched):
    """Name a setup, then one tap rolls it with its name in the history."""
    page = watched
    page.click("#tabbtn-jadeclaw")
    page.fill("#form-jadeclaw [name=dice]", "3d8")
    page.fill("#setup-name", "Wu <b>climbs</b>")
    page.click("#save-form button[type=submit]")
    page.wait_for_selector("[data-setup-roll]")
    assert page.locator(".setup-name").first.inner_text() == "Wu <b>climbs</b>"  # escaped, not markup
    page.fill("#form-jadeclaw [name=dice]", "d4")
    page.click("[data-setup-roll]")
    page.wait_for_selector("#tray-jadeclaw [data-die]")
    assert page.input_value("#form-jadeclaw [name=dice]") == "3d8"
    assert "Wu <b>climbs</b>" in page.inner_text("#history-list li:first-child")


def test_setup_link_fills_the_form(browser, base_url):
    """A setup link opens the right tab with the form filled in."""
    link = share.encode_setup("jadeclaw", {"dice": [10, 10, 6], "kind": "simple"})
    context, page, watch = open_app(browser, base_url + "#" + link)
    try:
        assert page.locator("#tab-jadeclaw").is_visible()
        assert page.input_value("#form-jadeclaw [name=dice]") == "2d10 & d6"
        assert "roll setup" in page.inner_text("#banner")
        watch.check(page)
    finally:
        context.close()


def test_result_link_is_replayed_from_its_dice(watched, browser, base_url):
    """The link made by "Share this result" opens, in a fresh context, the
    same dice and outcome, read-only and labelled as shared; editing the
    faces in the link changes the outcome to what those faces give."""
    page = watched
    page.click("#tabbtn-jadeclaw")
    page.fill("#form-jadeclaw [name=dice]", "d12 & d8")
    page.click("#form-jadeclaw [data-roll]")
    page.wait_for_selector("#tray-jadeclaw [data-die]")
    page.click("#share-result")
    url = page.input_value("#share-link")
    page.wait_for_selector("#share-qr svg", timeout=30_000)
    page.click("#share-close")
    mine = page.inner_text("#tray-jadeclaw .outcome")

    context, other, watch = open_app(browser, url)
    try:
        assert other.inner_text("#tray-jadeclaw .outcome") == mine
        assert "shared by someone else" in other.inner_text("#tray-jadeclaw")
        assert other.locator("#tray-jadeclaw [data-act]").count() == 0
        # a shared result's dice are drawn, not tappable: a tap changes nothing
        assert other.locator('#tray-jadeclaw [data-die][role="button"]').count() == 0
        before = other.inner_html("#tray-jadeclaw")
        other.locator("#tray-jadeclaw [data-die]").first.click()
        other.wait_for_timeout(300)
        assert other.inner_html("#tray-jadeclaw") == before
        assert other.locator("#tray-jadeclaw [data-act]").count() == 0
        assert "shared by someone else" in other.inner_text("#tray-jadeclaw")
        watch.check(other)
    finally:
        context.close()

    # Edit the faces: the roller's two dice become 1s.
    frag = url.split("#", 1)[1]
    link = share.decode(frag)
    stages = link["stages"]
    stages[0]["draws"][0] = 1
    stages[0]["draws"][1] = 1
    forged = share.pack({"y": "jadeclaw", "p": link["spec"], "t": stages})
    context, other, watch = open_app(browser, base_url + "#v1.r." + forged)
    try:
        text = other.inner_text("#tray-jadeclaw")
        assert re.search(r"botch", text, re.IGNORECASE), text
        watch.check(other)
    finally:
        context.close()
