"""The live table (docs/LIVE-TABLE.md) in Chromium: a GM's tablet page and players'
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


def join(tablet, phone, link, name=None):
    """The phone opens the tablet's link (a phone with no name yet is asked
    for ``name`` first), the tablet takes its answer link (pasted, Enter);
    both see the channel open."""
    phone.evaluate("(u) => { location.hash = u.split('#')[1]; }", link)
    if name:
        phone.fill("#table-name", name)
        phone.click("#table-join")
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
        tablet.wait_for_selector('[data-table-entry][data-by="Dana"]', state="attached", timeout=SLOW)
        item = entries(tablet, "Dana").first
        assert "rolled on Dana's phone" in item.inner_text()
        phone_outcome = entries(phone, "Dana").first.get_attribute("data-outcome")
        assert item.get_attribute("data-outcome") == phone_outcome


def test_three_pages_join_and_every_roll_shows_everywhere(rtc_browser, base_url):
    """A tablet and two phones: each phone's roll is in the tablet's log
    (verified by replay, rolled on that phone) and passed on to the other
    phone; the tablet's own roll reaches both phones."""
    with watched_page(rtc_browser, base_url) as tablet, \
            watched_page(rtc_browser, base_url, viewport=(390, 844)) as dana, \
            watched_page(rtc_browser, base_url, viewport=(390, 844)) as eli:
        named(tablet, "The GM")
        named(dana, "Dana")
        link = host(tablet)
        join(tablet, dana, link)
        join(tablet, eli, offer_link(tablet, link), name="Eli")  # Eli's phone had no name yet
        roll(dana)
        roll(eli, "open_tale")
        for name in ("Dana", "Eli"):
            tablet.wait_for_selector(f'[data-table-entry][data-by="{name}"]', state="attached", timeout=SLOW)
        eli.wait_for_selector('[data-table-entry][data-by="Dana"]', state="attached", timeout=SLOW)
        dana.wait_for_selector('[data-table-entry][data-by="Eli"]', state="attached", timeout=SLOW)
        roll(tablet)
        for phone in (dana, eli):
            phone.wait_for_selector('[data-table-entry][data-by="The GM"]', state="attached", timeout=SLOW)
        assert "rolled on the tablet" in entries(dana, "The GM").first.inner_text()
        assert entries(tablet).count() == 3
        tablet.click("[data-table-open]")
        tablet.wait_for_selector('[data-table-peer][data-status="open"] >> nth=1')
        SHOTS.mkdir(parents=True, exist_ok=True)
        tablet.screenshot(path=str(SHOTS / "table-tablet-1024x768.png"))
        dana.click("[data-table-open]")
        dana.screenshot(path=str(SHOTS / "table-phone-390x844.png"))


def test_pushed_setup_fair_roll_and_hostile_messages(rtc_browser, base_url):
    """On one joined pair: the GM pushes a setup and the phone opens it;
    a fair roll runs over the channel with no link shown to copy, verified
    on both; then a hostile phone's malformed, oversized, replayed, forged
    and out-of-order messages are refused and both logs stay as they were."""
    with watched_page(rtc_browser, base_url) as tablet, \
            watched_page(rtc_browser, base_url, viewport=(390, 844)) as phone:
        named(tablet, "The GM")
        named(phone, "Dana")
        join(tablet, phone, host(tablet))
        # push a setup
        tablet.click("#table-close")
        tablet.click("#tabbtn-jadeclaw")
        tablet.fill("#form-jadeclaw [name=dice]", "2d12 & d4")
        tablet.click("[data-table-open]")
        tablet.fill("#table-push-label", "Climb the wall")
        tablet.click('[data-table-push="0"]')
        phone.wait_for_selector("#tab-jadeclaw:not([hidden])", timeout=SLOW)
        assert phone.input_value("#form-jadeclaw [name=dice]") == tablet.input_value("#form-jadeclaw [name=dice]")
        assert "Climb the wall" in phone.inner_text("#banner")
        # a fair roll over the channel
        tablet.click('[data-table-fair="0"]')
        assert tablet.input_value("#ask-player") == "Dana"
        tablet.click("#ask-make")
        phone.wait_for_selector('[data-fair="answer"]', timeout=SLOW)
        phone.click('[data-fair="answer"]')
        for page in (tablet, phone):
            page.wait_for_selector('[data-table-entry][data-how="fair"]', state="attached", timeout=SLOW)
            assert not page.locator("#share-dialog[open]").count()
        assert entries(phone).filter(has_text="fair roll, verified").count() == 1
        # hostile messages from the phone, straight onto the channel
        tablet_before = entries(tablet).count()
        roll(phone, "open_tale")  # (the Jadeclaw tab shows the fair roll)
        tablet.wait_for_function(f"() => document.querySelectorAll('[data-table-entry]').length > {tablet_before}")
        logged = json.loads(tablet.evaluate("() => localStorage.getItem('dice-table/table')"))["log"]
        sent = [e for e in logged if e["by"] == "Dana" and e["how"] == "phone"][0]
        wire = {k: sent[k] for k in ("id", "y", "p", "g", "l", "at")}
        n_next = 2  # the phone sent the fair answer and one roll
        hostile = [
            "{not json",
            "x" * 30_000,
            json.dumps({"t": "roll", "n": n_next, "e": wire}) .replace('"n": 2', '"n": 0'),   # replayed
            json.dumps({"t": "roll", "n": n_next, "e": {**wire, "id": "z-1"}, "by": "The GM"}),  # forged name
            json.dumps({"t": "roll", "n": n_next, "e": {**wire, "id": "z-2", "v": True}}),    # "verified"
            json.dumps({"t": "roll", "n": n_next, "e": {**wire, "id": "z-3", "g": [{"do": "roll", "draws": [99]}]}}),
            json.dumps({"t": "push", "n": n_next, "y": "jadeclaw", "p": {}, "l": ""}),
            json.dumps({"t": "roll", "n": n_next + 5, "e": {**wire, "id": "z-4"}}),          # out of order
            json.dumps({"t": "roll", "n": n_next, "e": {**wire, "l": "<img src=x onerror=alert(1)>"}}),
        ]
        before = entries(tablet).count()
        phone_before = entries(phone).count()
        for text in hostile:
            phone.evaluate("(t) => window.diceRtc.send('host', t)", text)
        tablet.wait_for_selector(f'#table-dialog[data-refused="{len(hostile)}"]', state="attached", timeout=SLOW)
        assert entries(tablet).count() == before and entries(phone).count() == phone_before
        assert tablet.locator("#table-log img").count() == 0
        assert "From Dana: refused" in tablet.inner_text("#banner")


def test_a_dropped_phone_rejoins_and_both_logs_stay_whole(rtc_browser, base_url):
    """The phone's channel drops; it rolls while away (kept to send); it
    scans the tablet's next code and its rolls arrive, none twice; the
    tablet reloaded keeps its log and players (away until they rejoin)."""
    with watched_page(rtc_browser, base_url) as tablet, \
            watched_page(rtc_browser, base_url, viewport=(390, 844)) as phone:
        named(tablet, "The GM")
        named(phone, "Dana")
        first = host(tablet)
        join(tablet, phone, first)
        roll(phone)
        tablet.wait_for_selector('[data-table-entry][data-by="Dana"]', state="attached", timeout=SLOW)
        phone.evaluate("() => window.diceRtc.close('host')")
        tablet.wait_for_selector('[data-table-peer="Dana"][data-status="away"]', state="attached", timeout=SLOW)
        roll(phone, "open_tale")
        roll(phone, "mirage")
        assert entries(tablet, "Dana").count() == 1
        join(tablet, phone, offer_link(tablet, first))
        tablet.wait_for_function("() => document.querySelectorAll('[data-table-entry][data-by=\"Dana\"]').length === 3",
                                 timeout=SLOW)
        assert entries(phone, "Dana").count() == 3
        assert tablet.locator("[data-table-peer]").count() == 1
        tablet.reload()
        tablet.wait_for_selector("body[data-ready]", state="attached", timeout=SLOW)
        tablet.click("[data-table-open]")
        assert entries(tablet, "Dana").count() == 3
        tablet.wait_for_selector('[data-table-peer="Dana"][data-status="away"]', state="attached")
        offer_link(tablet)


def write_y4m(path, text=None, size=(640, 480), frames=3):
    """A short video for Chromium's fake camera: the QR code of ``text``
    (error correction M, four modules of quiet zone) centred on white, or
    a blank picture. Y4M, 4:2:0, grey only."""
    import segno

    w, h = size
    luma = bytearray([235]) * (w * h)
    if text:
        code = segno.make(text, error="m", micro=False)
        rows = [list(r) for r in code.matrix_iter(scale=1, border=4)]
        scale = min(w, h) * 9 // 10 // len(rows)
        top, left = (h - len(rows) * scale) // 2, (w - len(rows) * scale) // 2
        for y, row in enumerate(rows):
            line = bytearray()
            for dark in row:
                line += bytearray([16 if dark else 235]) * scale
            for dy in range(scale):
                start = (top + y * scale + dy) * w + left
                luma[start:start + len(line)] = line
    chroma = bytes([128]) * (w * h // 2)
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F10:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            f.write(b"FRAME\n" + bytes(luma) + chroma)


def test_the_tablet_scans_the_answer_from_the_camera(playwright_instance, base_url, tmp_path):
    """The phone joins by the tablet's link; the tablet reads the phone's
    answer with its camera (Chromium's fake camera playing a video of the
    code, decoded by the vendored jsQR: this Chromium has no
    BarcodeDetector) and the channel opens: no typing, no pasting."""
    video = tmp_path / "answer.y4m"
    write_y4m(video)  # blank until the answer exists; Chromium opens the file when the camera starts
    b = playwright_instance.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS + RTC_ARGS + [
        "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
        f"--use-file-for-fake-video-capture={video}"])
    try:
        with watched_page(b, base_url, permissions=["camera"]) as tablet, \
                watched_page(b, base_url, viewport=(390, 844)) as phone:
            named(tablet, "The GM")
            named(phone, "Dana")
            link = host(tablet)
            phone.evaluate("(u) => { location.hash = u.split('#')[1]; }", link)
            phone.wait_for_selector("[data-table-answer][data-link]", timeout=SLOW)
            write_y4m(video, phone.get_attribute("[data-table-answer]", "data-link"))
            tablet.click("#table-scan")
            tablet.wait_for_selector('[data-table-peer="Dana"][data-status="open"]', timeout=SLOW)
            assert tablet.input_value("[data-table-paste]") == ""
            assert tablet.evaluate("() => typeof window.jsQR") == "function"
            assert tablet.locator("#table-video").is_hidden()
    finally:
        b.close()
