"""The live table (issue 23) in Chromium: a GM's tablet page and players'
phone pages, each its own browser context (its own storage, as separate
devices), join over WebRTC data channels on the loopback with host
candidates only, offline-locked like every browser test.

Only these tests launch Chromium with ``--allow-loopback-in-peer-connection``
and ``--disable-features=WebRtcHideLocalIpsWithMdns``: with Chromium's
defaults the candidates are mDNS names (``….local``) that the tests'
host-resolver rules cannot resolve, and the channel stays ``new`` (on a
real Wi-Fi, browsers resolve ``.local`` names themselves). The fake camera
(``--use-fake-device-for-media-stream`` with a ``.y4m`` made from a QR
code) shows the tablet a player's answer code."""

from __future__ import annotations

import json

import pytest

from conftest import CHROMIUM, LAUNCH_ARGS, ROOT, show_history, watched_page

pytestmark = pytest.mark.browser

RTC_ARGS = ["--allow-loopback-in-peer-connection", "--disable-features=WebRtcHideLocalIpsWithMdns"]
SLOW = 60_000
SHOTS = ROOT / "test-results" / "screens"


@pytest.fixture(scope="module")
def rtc_browser(playwright_instance):
    b = playwright_instance.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS + RTC_ARGS)
    yield b
    b.close()


def named(page, name):
    """The name on this device's rolls (in the history panel)."""
    show_history(page)
    page.fill("#roller-name", name)
    if page.locator("#history-close").is_visible():
        page.click("#history-close")


def host(page):
    """The tablet starts a table; returns its offer link."""
    page.click("[data-table-open]")
    page.click("#table-start")
    return offer_link(page)


def offer_link(page, old=None):
    """The join link on show (a new one once ``old`` is taken)."""
    page.wait_for_function("(old) => { const e = document.querySelector('[data-table-offer][data-link]');"
                           " return e && e.dataset.link !== old; }", arg=old, timeout=SLOW)
    return page.get_attribute("[data-table-offer]", "data-link")


def join(tablet, phone, link):
    """The phone opens the tablet's link, the tablet takes its answer link
    (pasted, Enter); both see the channel open."""
    phone.evaluate("(u) => { location.hash = u.split('#')[1]; }", link)
    phone.wait_for_selector("[data-table-answer][data-link]", timeout=SLOW)
    answer = phone.get_attribute("[data-table-answer]", "data-link")
    tablet.fill("[data-table-paste]", answer)
    tablet.press("[data-table-paste]", "Enter")
    name = phone.input_value("#roller-name")
    tablet.wait_for_selector(f'[data-table-peer="{name}"][data-status="open"]', timeout=SLOW)
    phone.wait_for_selector('[data-table-peer][data-status="open"]', timeout=SLOW)
    return answer


def roll(page, system="jadeclaw"):
    page.evaluate("() => { const d = document.querySelector('#table-dialog'); if (d.open) d.close(); }")
    page.click(f"#tabbtn-{system}")
    page.click(f"#form-{system} [data-roll]")


def entries(page, by=None):
    sel = "[data-table-entry]" + (f'[data-by="{by}"]' if by else "")
    return page.locator(sel)


def test_two_pages_join_and_a_phone_roll_reaches_the_tablet(rtc_browser, base_url):
    """Join by links; a roll on the phone shows in the tablet's log, rebuilt
    there by the rules and labelled as rolled on Dana's phone."""
    with watched_page(rtc_browser, base_url) as tablet, \
            watched_page(rtc_browser, base_url, viewport=(390, 844)) as phone:
        named(tablet, "The GM")
        named(phone, "Dana")
        link = host(tablet)
        assert "#t1.o." in link
        join(tablet, phone, link)
        roll(phone)
        tablet.wait_for_selector('[data-table-entry][data-by="Dana"]', state="attached", timeout=5000)
        item = entries(tablet, "Dana").first
        assert "rolled on Dana's phone" in item.inner_text()
        phone_outcome = entries(phone, "Dana").first.get_attribute("data-outcome")
        assert item.get_attribute("data-outcome") == phone_outcome
