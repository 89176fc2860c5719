"""The live table in Chromium: a GM's tablet page and players' phone pages,
each its own browser context (its own storage, as separate devices), join
over WebRTC data channels on the loopback with host candidates only,
offline-locked like every browser test. Besides rolls reaching every
page: a phone's character reaches the tablet's party, an honest burst
arrives whole, a copied device id and a look-alike
name take no seat, a fair roll and a reload keep the seat and the
fingerprint, forged and non-link fair-roll messages are refused naming the
phone, and a damaged stored table gets a banner and a backup.

Only these tests launch Chromium with ``--allow-loopback-in-peer-connection``
and ``--disable-features=WebRtcHideLocalIpsWithMdns``: with Chromium's
defaults the candidates are mDNS names (``….local``) that the tests'
host-resolver rules cannot resolve, and the channel stays ``new`` (on a
real Wi-Fi, browsers resolve ``.local`` names themselves). The fake camera
(``--use-fake-device-for-media-stream`` with a ``.y4m`` made from a QR
code) shows the tablet a player's answer code."""

from __future__ import annotations

import json
import random
import time
from contextlib import contextmanager

import pytest
from playwright.sync_api import expect

from conftest import CHROMIUM, LAUNCH_ARGS, ROOT, show_history, watched_page
from scripted_dice import SCRIPT, forced, form_spec, roll_dice

from fairrolls import fair

pytestmark = pytest.mark.browser

RTC_ARGS = ["--allow-loopback-in-peer-connection", "--disable-features=WebRtcHideLocalIpsWithMdns"]
#: How long a step may take on a loaded 2-core machine (each wait is for a
#: state that either comes or shows a real fault: a channel open, an entry
#: logged); a burst of rolls gets BULK.
SLOW = 90_000
BULK = 180_000
SHOTS = ROOT / "test-results" / "screens"
#: Records every text this page sends over the table.
SPY = """
(() => {
  window.__sent = [];
  window.__sentTo = [];
  window.__got = [];
  const wrap = () => {
    if (!window.diceRtc || window.diceRtc.__wrapped) return;
    const { send, listen } = window.diceRtc;
    window.diceRtc.send = (key, text) => {
      window.__sent.push(text);
      window.__sentTo.push([key, text]);
      return send(key, text);
    };
    window.diceRtc.listen = (fn) => listen((key, kind, data) => {
      if (kind === "message") window.__got.push([key, data]);
      return fn(key, kind, data);
    });
    window.diceRtc.__wrapped = true;
  };
  document.addEventListener("DOMContentLoaded", wrap);
  window.addEventListener("load", wrap);
})();
"""


@contextmanager
def opened(browser, base_url, **kw):
    """A watched page (``watched_page``) whose every action may take SLOW."""
    with watched_page(browser, base_url, **kw) as page:
        page.set_default_timeout(SLOW)
        yield page


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


def answer(phone, link, name=None):
    """The phone opens the tablet's link (a phone with no name yet is asked
    for ``name`` first); its answer link."""
    phone.evaluate("() => { const e = document.querySelector('[data-table-answer]'); if (e) e.removeAttribute('data-link'); }")
    if link:
        phone.evaluate("(u) => { location.hash = u.split('#')[1]; }", link)
    if name:
        phone.fill("#table-name", name)
        phone.click("#table-join")
    phone.wait_for_selector("[data-table-answer][data-link]", timeout=SLOW)
    return phone.get_attribute("[data-table-answer]", "data-link")


def paste(tablet, answer_link):
    if not tablet.locator("#table-dialog[open]").count():
        tablet.click("[data-table-open]")
    tablet.fill("[data-table-paste]", answer_link)
    tablet.press("[data-table-paste]", "Enter")


def say_where(*pages):
    """Where each side stood when a join timed out (printed with the failure)."""
    for page in pages:
        print(page.inner_text("#table-status"), "|", page.inner_text("#table-peers"), "|",
              page.inner_text("#banner"), "|", page.inner_text("#table-paste-error"))


def join(tablet, phone, link, name=None, slow_gm_s=0):
    """The phone answers the link, the tablet takes the answer (pasted,
    Enter; ``slow_gm_s`` seconds later: a GM slow to scan); both see the
    channel open and the phone seated."""
    code = answer(phone, link, name)
    time.sleep(slow_gm_s)
    paste(tablet, code)
    name = phone.input_value("#roller-name")
    try:
        tablet.wait_for_selector(f'[data-table-peer="{name}"][data-status="open"]', state="attached", timeout=SLOW)
        phone.wait_for_selector('[data-table-peer][data-status="open"]', state="attached", timeout=SLOW)
    except Exception:  # say where each side stood
        say_where(tablet, phone)
        raise


def roll(page, system="jadeclaw"):
    page.evaluate("() => { const d = document.querySelector('#table-dialog'); if (d.open) d.close(); }")
    page.click(f"#tabbtn-{system}")
    page.click(f"#form-{system} [data-roll]")


def entries(page, by=None):
    sel = "#table-log [data-table-entry]" + (f'[data-by="{by}"]' if by else "")
    return page.locator(sel)


def wait_entries(page, by, n, timeout=SLOW):
    page.wait_for_function(f"() => document.querySelectorAll('#table-log [data-table-entry][data-by=\"{by}\"]').length === {n}",
                           timeout=timeout)


def plain(text):
    """Words without the isolates that wrap names."""
    return text.replace("\u2068", "").replace("\u2069", "")


def banner(page):
    return plain(page.inner_text("#banner"))


def test_two_pages_join_and_a_phone_roll_reaches_the_tablet(rtc_browser, base_url):
    """Join by links; a roll on the phone shows on the tablet with no
    dialog open: in the feed beside the tab at 1024×768 (landscape), in
    view, rebuilt there by the rules and labelled as rolled on Dana's
    phone, counted on the Table button. The tablet's roll reaches the
    phone (390×844, no room for the feed) as a brief notice."""
    with opened(rtc_browser, base_url) as tablet, \
            opened(rtc_browser, base_url, viewport=(390, 844)) as phone:
        named(tablet, "The GM")
        named(phone, "Dana")
        link = host(tablet)
        assert "#t2.o." in link
        join(tablet, phone, link)
        tablet.click("#table-close")
        roll(phone)
        feed = tablet.locator('#table-feed [data-table-entry][data-by="Dana"]')
        feed.first.wait_for(state="visible", timeout=SLOW)
        assert not tablet.locator("#table-dialog[open]").count()
        # wholly in view (asked again until it is: the feed may draw its entries anew meanwhile)
        expect(feed.first).to_be_in_viewport(ratio=1, timeout=SLOW)
        item = entries(tablet, "Dana").first
        assert "rolled on Dana's phone" in item.inner_text()
        phone_outcome = entries(phone, "Dana").first.get_attribute("data-outcome")
        assert item.get_attribute("data-outcome") == phone_outcome
        assert tablet.inner_text("#table-count") == "1"
        assert phone.locator("#table-feed").is_hidden()
        roll(tablet)
        phone.wait_for_selector("#table-toast:not([hidden])", timeout=SLOW)
        assert "The GM rolled Jadeclaw" in phone.inner_text("#table-toast").replace("\u2068", "").replace("\u2069", "")
        SHOTS.mkdir(parents=True, exist_ok=True)
        tablet.screenshot(path=str(SHOTS / "table-feed-1024x768.png"))
        phone.screenshot(path=str(SHOTS / "table-notice-390x844.png"))


def test_a_phone_sends_a_character_to_the_tablet_party(rtc_browser, base_url):
    """Eli's phone keeps the Jadeclaw rules text's characters; Wu Shousu's
    card has no "Send to the table" until the phone sits at the table.
    Seated, one tap sends her: the tablet's Jadeclaw party holds her,
    played by Eli, with her checks, and the banner says "Eli sent the sheet
    Wu Shousu"; nothing is refused."""
    with opened(rtc_browser, base_url) as tablet, \
            opened(rtc_browser, base_url, viewport=(390, 844)) as phone:
        named(tablet, "The GM")
        named(phone, "Eli")
        phone.click("#tabbtn-jadeclaw")
        phone.click("#party-body [data-party-examples]")
        phone.click('#party-body [data-character="Wu Shousu"]')
        phone.wait_for_selector('#party-body [data-character="Wu Shousu"][aria-pressed="true"]')
        assert phone.locator("#party-body [data-sheet-send]").count() == 0  # at no table
        join(tablet, phone, host(tablet))
        phone.click("#table-close")
        phone.click("#party-body [data-sheet-send]")
        tablet.click("#table-close")
        tablet.click("#tabbtn-jadeclaw")
        chip = tablet.locator('#party-body [data-character="Wu Shousu"]')
        chip.wait_for(state="visible", timeout=SLOW)
        assert "Eli sent the sheet Wu Shousu" in banner(tablet)
        assert "Eli" in chip.inner_text() and tablet.locator("#party-body [data-character]").count() == 1
        chip.click()
        assert tablet.locator('#party-body [data-check="Fast-Talk"]').count() == 1
        assert tablet.locator("#party-body [data-sheet-send]").count() == 0  # the tablet sends none
        assert tablet.get_attribute("#table-dialog", "data-refused") is None
        SHOTS.mkdir(parents=True, exist_ok=True)
        tablet.screenshot(path=str(SHOTS / "table-sheet-1024x768.png"))
        phone.screenshot(path=str(SHOTS / "table-sheet-390x844.png"))


def test_three_pages_every_roll_a_secret_roll_and_a_tablet_reload(rtc_browser, base_url):
    """A tablet and two phones: each phone's roll is in the tablet's log
    (verified by replay, rolled on that phone) and passed on to the other
    phone; the tablet's own roll reaches both phones; one setup goes to
    both. The GM rolls in secret: both phones show only "The GM rolled
    (hidden)", no dice, until the GM taps Reveal; then each shows the roll
    as "revealed, matches what was rolled", with the tablet's outcome. The
    tablet reloads (it asks first): Dana scans its new code (one pairing,
    two scans) and Eli is back with no scan at all, through Dana's phone,
    and his next roll arrives. Last, a tablet that lies (a reveal with
    another label than it committed to) is refused on Eli's phone."""
    with opened(rtc_browser, base_url, init_script=SPY) as tablet, \
            opened(rtc_browser, base_url, viewport=(390, 844)) as dana, \
            opened(rtc_browser, base_url, viewport=(390, 844), init_script=SPY) as eli:
        named(tablet, "The GM")
        named(dana, "Dana")
        link = host(tablet)
        join(tablet, dana, link)
        # Eli's phone has no name yet: the join screen asks it first, and offers no table of its own
        eli.evaluate("(u) => { location.hash = u.split('#')[1]; }", offer_link(tablet, link))
        eli.wait_for_selector("#table-name:visible", timeout=SLOW)
        assert eli.inner_text("#table-title") == "Join The GM's table"
        assert eli.locator("#table-start").is_hidden()
        top = lambda sel: eli.locator(sel).bounding_box()["y"]
        assert top("#table-name") < top("#table-status")
        join(tablet, eli, None, name="Eli")
        assert eli.locator('#table-answer [data-table-copy]').count() == 1
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
        # one setup to everyone at once
        tablet.fill("#form-jadeclaw [name=dice]", "3d10")
        tablet.click("[data-table-open]")
        tablet.fill("#table-push-label", "Everyone: spot the ambush")
        tablet.click("#table-push-all")
        for phone in (dana, eli):
            phone.wait_for_function("() => document.querySelector('#banner').textContent.includes('spot the ambush')",
                                    timeout=SLOW)
            assert phone.input_value("#form-jadeclaw [name=dice]") == tablet.input_value("#form-jadeclaw [name=dice]")
        tablet.wait_for_selector('[data-table-peer][data-status="open"] >> nth=1', state="attached")
        SHOTS.mkdir(parents=True, exist_ok=True)
        tablet.screenshot(path=str(SHOTS / "table-tablet-1024x768.png"))
        secret_roll_and_reveal(tablet, dana, eli)
        # the tablet reloads: Dana's one pairing brings Eli back too, through her phone
        logged = entries(tablet).count()
        tablet.watch.accept_dialogs = 1  # leaving a live table asks first
        tablet.reload()
        tablet.wait_for_selector("body[data-ready]", state="attached", timeout=BULK)
        assert any(d.startswith("beforeunload") for d in tablet.watch.dialogs)
        tablet.click("[data-table-open]")
        tablet.wait_for_selector('[data-table-peer="Eli"][data-status="away"]', state="attached")
        assert entries(tablet).count() == logged
        join(tablet, dana, offer_link(tablet))
        tablet.wait_for_selector('[data-table-peer="Eli"][data-status="open"]', state="attached")
        eli.wait_for_selector('[data-table-peer][data-status="open"]', state="attached")
        eli.wait_for_function("() => document.querySelector('#banner').textContent.includes('came through')")
        assert "Back at The GM's table as Eli (the tablet's code came through Dana's phone)" in banner(eli)
        roll(eli, "mirage")
        wait_entries(tablet, "Eli", 2)
        assert tablet.get_attribute("#table-dialog", "data-refused") is None
        lying_reveal(tablet, eli)


def secret_roll_and_reveal(tablet, dana, eli):
    """The GM rolls in secret, the phones see only that; the GM reveals it,
    each phone checks it and shows it (screens of both kept)."""
    tablet.click("#table-close")
    tablet.click("#table-secret")
    assert tablet.get_attribute("#table-secret", "aria-pressed") == "true"
    roll(tablet)
    tablet.locator('#table-feed [data-table-entry][data-secret="hidden"]').first.wait_for()
    for phone in (dana, eli):
        phone.wait_for_selector('#table-log [data-table-entry][data-how="hidden"]', state="attached")
        hidden = entries(phone, "The GM").first
        assert "The GM rolled (hidden)" in plain(hidden.inner_text()) and hidden.locator("svg").count() == 0
    eli.wait_for_selector("#table-toast:not([hidden])")
    assert "The GM rolled (hidden)" in plain(eli.inner_text("#table-toast"))
    tablet.screenshot(path=str(SHOTS / "table-secret-1024x768.png"))
    dana.click("[data-table-open]")
    dana.screenshot(path=str(SHOTS / "table-secret-390x844.png"))
    tablet.click("#table-feed [data-table-reveal]")
    outcome = tablet.get_attribute('#table-feed [data-table-entry][data-secret="shown"]', "data-outcome")
    for phone in (dana, eli):
        phone.wait_for_selector('#table-log [data-table-entry][data-how="revealed"]', state="attached")
        shown = entries(phone, "The GM").first
        assert "revealed, matches what was rolled" in shown.inner_text()
        assert shown.get_attribute("data-outcome") == outcome
    tablet.screenshot(path=str(SHOTS / "table-reveal-1024x768.png"))
    dana.screenshot(path=str(SHOTS / "table-reveal-390x844.png"))
    dana.click("#table-close")
    tablet.click("#table-secret")
    assert tablet.get_attribute("#table-secret", "aria-pressed") == "false"


def lying_reveal(tablet, eli):
    """The tablet's page sends Eli, straight onto his channel, the reveal of
    a secret roll with another label than it committed to: refused on his
    phone, naming the GM; the roll stays hidden there, marked so."""
    tablet.click("#table-close")
    tablet.click("#table-secret")
    roll(tablet)
    eli.wait_for_function("() => document.querySelectorAll('#table-log [data-how=\"hidden\"]').length === 1")
    tablet.wait_for_function("() => JSON.parse(localStorage.getItem('dice-table/table')).log"
                             ".some(e => e.shown === false)")
    [secret] = [e for e in json.loads(tablet.evaluate("() => localStorage.getItem('dice-table/table')"))["log"]
                if e.get("shown") is False]
    got = [json.loads(t) for k, t in eli.evaluate("() => window.__got") if k == "host"]
    since = max(i for i, m in enumerate(got) if m["t"] == "welcome")
    numbered = [m for m in got[since:] if "n" in m]
    key = [k for k, t in tablet.evaluate("() => window.__sentTo") if '"t":"welcome","w":"Eli"' in t][-1]
    wire = {k: secret[k] for k in ("id", "y", "p", "g", "l", "at")}
    lie = {"t": "roll", "n": numbered[-1]["n"] + 1, "a": max(m["a"] for m in numbered),
           "r": [{"e": {**wire, "l": "A different label"}, "s": secret["salt"]}]}
    tablet.evaluate("([k, t]) => window.diceRtc.send(k, t)", [key, json.dumps(lie)])
    eli.wait_for_function("() => document.querySelector('#banner').textContent.includes('does not match')")
    assert "From The GM: refused a reveal that does not match what was rolled in secret" in banner(eli)
    hidden = eli.locator('#table-log [data-table-entry][data-how="hidden"]').first
    assert "did not match what was rolled was refused" in hidden.inner_text()


def test_an_honest_burst_of_35_each_way_arrives_whole_and_a_roll_12_s_later_too(rtc_browser, base_url):
    """35 rolls on the phone and 35 on the tablet, as fast as the pages
    take the taps: every roll reaches the other side (the old flow refused
    every message after its rate limit and lost rolls both ways), nothing
    is refused, both show "connected"; a roll 12 s later arrives too. The
    phone's dice are forced (``scripted_dice``), every die on its first
    face, so its 35 rolls are 35 rolls with the same dice: 35 entries, not
    one."""
    with opened(rtc_browser, base_url, init_script=SPY) as tablet, \
            opened(rtc_browser, base_url, viewport=(390, 844), init_script=SPY + SCRIPT) as phone:
        named(tablet, "The GM")
        named(phone, "Dana")
        join(tablet, phone, host(tablet))
        phone.click("#table-close")
        tablet.click("#table-close")
        for page in (phone, tablet):
            page.click("#tabbtn-jadeclaw")
            page.fill("#form-jadeclaw [name=dice]", "d4")
        spec = form_spec("jadeclaw", {"dice": "d4"})
        same = roll_dice("jadeclaw", spec, [1, 1, 1])  # the d4, and the difficulty's 2d6
        with forced(phone, same * 35):
            for _ in range(35):
                phone.click("#form-jadeclaw [data-roll]")
                tablet.click("#form-jadeclaw [data-roll]")
            wait_entries(tablet, "Dana", 35)
            wait_entries(phone, "The GM", 35)
        faces = set(entries(tablet, "Dana").evaluate_all("els => els.map(e => e.dataset.outcome)"))
        assert len(faces) == 1  # the same dice every time, and still 35 entries
        time.sleep(12)
        roll(phone)
        roll(tablet)
        wait_entries(tablet, "Dana", 36)
        wait_entries(phone, "The GM", 36)
        assert tablet.get_attribute("#table-dialog", "data-refused") is None
        assert phone.get_attribute("#table-dialog", "data-refused") is None
        tablet.click("[data-table-open]")
        phone.click("[data-table-open]")
        tablet.wait_for_selector('[data-table-peer="Dana"][data-status="open"]', state="attached")
        phone.wait_for_selector('[data-table-peer][data-status="open"]', state="attached")


def forged_final_link(player="Eli"):
    """Fay's forgery: a whole fair exchange made on her own machine, as the
    GM and as the player, naming ``player``; its final link."""
    gm = fair.new_request("alkemy", {}, player, existing=(), now=0, entropy=random.Random(5).randbytes)
    pl = fair.open_link(fair.request_link(gm))["state"]
    pl, ans = fair.answer(pl, entropy=random.Random(6).randbytes)
    return fair.reveal_link(fair.open_link(ans, [gm])["state"]), ans


def next_numbers(phone):
    """The number and acknowledgement the phone's next message would carry
    (read from what it sent), so a raw message is not refused for its place."""
    sent = [json.loads(t) for t in phone.evaluate("() => window.__sent")]
    numbered = [m for m in sent if "n" in m]
    return (numbered[-1]["n"] + 1 if numbered else 0), max([m["a"] for m in sent if "a" in m] or [0])


def test_a_pushed_setup_a_fair_roll_a_reload_and_hostile_messages(rtc_browser, base_url):
    """On one joined pair: the GM pushes a setup and the phone opens it; a
    fair roll runs over the channel with no link to copy, verified on
    both; the phone reloads and rejoins: the same seat ("Dana", not
    "Dana (2)") and the same device fingerprint. Then a hostile phone's
    messages, straight onto the channel, are each refused naming it with
    both logs unchanged: malformed, oversized, forged names, a "verified"
    mark, a push, out of order, a share link and a request link as fair
    messages, and a fair roll Fay made up on her own machine naming Eli."""
    with opened(rtc_browser, base_url) as tablet, \
            opened(rtc_browser, base_url, viewport=(390, 844), init_script=SPY) as phone:
        named(tablet, "The GM")
        named(phone, "Dana")
        link = host(tablet)
        join(tablet, phone, link)
        # push a setup
        tablet.click("#table-close")
        tablet.click("#tabbtn-jadeclaw")
        tablet.fill("#form-jadeclaw [name=dice]", "2d12 & d4")
        tablet.click("[data-table-open]")
        tablet.fill("#table-push-label", "Climb the wall")
        tablet.click('[data-table-peer="Dana"] [data-table-push]')
        phone.wait_for_selector("#tab-jadeclaw:not([hidden])", timeout=SLOW)
        assert phone.input_value("#form-jadeclaw [name=dice]") == tablet.input_value("#form-jadeclaw [name=dice]")
        assert "Climb the wall" in banner(phone)
        # a fair roll over the channel
        tablet.click('[data-table-peer="Dana"] [data-table-fair]')
        assert tablet.input_value("#ask-player") == "Dana"
        tablet.click("#ask-make")
        phone.wait_for_selector('[data-fair="answer"]', timeout=SLOW)
        fingerprint = phone.inner_text(".fair-device code")
        phone.click('[data-fair="answer"]')
        for page in (tablet, phone):
            page.wait_for_selector('[data-table-entry][data-how="fair"]', state="attached", timeout=SLOW)
            assert not page.locator("#share-dialog[open]").count()
        assert entries(phone).filter(has_text="fair roll, verified").count() == 1
        # the phone reloads and takes its seat back
        phone.reload()
        phone.wait_for_selector("body[data-ready]", state="attached", timeout=SLOW)
        join(tablet, phone, offer_link(tablet))
        assert tablet.locator("[data-table-peer]").all_inner_texts()[0].startswith("Dana")
        assert tablet.locator("[data-table-peer]").count() == 1
        stored = json.loads(phone.evaluate("() => localStorage.getItem('dice-table/device')"))
        assert fair.device_fingerprint(stored["key"]) == fingerprint
        # hostile messages from the phone, straight onto the channel
        tablet_before = entries(tablet).count()
        roll(phone, "open_tale")  # (the Jadeclaw tab shows the fair roll)
        tablet.wait_for_function(f"() => document.querySelectorAll('#table-log [data-table-entry]').length > {tablet_before}")
        phone.wait_for_function("() => { const t = JSON.parse(localStorage.getItem('dice-table/table'));"
                                " return t.seats[0].out.length === 0; }")  # its acknowledgement has come back
        tablet.wait_for_function("() => JSON.parse(localStorage.getItem('dice-table/table')).log"
                                 ".some(e => e.by === 'Dana' && e.how === 'phone')")  # stored (a write waits 250 ms)
        logged = json.loads(tablet.evaluate("() => localStorage.getItem('dice-table/table')"))["log"]
        sent = [e for e in logged if e["by"] == "Dana" and e["how"] == "phone"][0]
        wire = {k: sent[k] for k in ("id", "y", "p", "g", "l", "at")}
        forged, forged_answer = forged_final_link()
        share_link = "v1.s.eJyrVqpUsjLQUcpMSc0rySypBAAgPQRL"
        n, a = next_numbers(phone)
        # (message, whether it uses up its number: refused for what it says, not for its form or place)
        hostile = [
            ("{not json", False),
            ("x" * 30_000, False),
            ({"t": "roll", "n": n, "a": a, "r": [{"e": {**wire, "id": "z-1"}, "by": "The GM"}]}, True),
            ({"t": "roll", "n": n + 1, "a": a, "r": [{"e": {**wire, "id": "z-2", "v": True}}]}, True),
            ({"t": "roll", "n": n + 2, "a": a, "r": [{"e": {**wire, "id": "z-3", "g": [{"do": "roll", "draws": [99]}]}}]}, True),
            ({"t": "push", "n": n + 3, "a": a, "y": "jadeclaw", "p": {}, "l": ""}, False),
            ({"t": "roll", "n": n + 9, "a": a, "r": [{"e": {**wire, "id": "z-4"}}]}, False),
            ({"t": "fair", "n": n + 3, "a": a, "f": share_link}, True),
            ({"t": "fair", "n": n + 4, "a": a, "f": "v1.q.eJyrVg"}, True),
            ({"t": "fair", "n": n + 5, "a": a, "f": forged}, True),
            ({"t": "fair", "n": n + 6, "a": a, "f": forged_answer}, True),
            ({"t": "roll", "n": n + 7, "a": a, "r": [{"e": {**wire, "id": "z-5", "l": "<img src=x onerror=alert(1)>"}}]}, True),
        ]
        before = entries(tablet).count()
        phone_before = entries(phone).count()
        for msg, _uses in hostile:
            text = msg if isinstance(msg, str) else json.dumps(msg)
            phone.evaluate("(t) => window.diceRtc.send('host', t)", text)
        tablet.wait_for_selector(f'#table-dialog[data-refused="{len(hostile) - 1}"]', state="attached", timeout=SLOW)
        tablet.wait_for_function(f"() => document.querySelectorAll('#table-log [data-table-entry]').length === {before + 1}")
        assert entries(tablet).count() == before + 1 and entries(phone).count() == phone_before  # the label is cleaned, escaped
        assert tablet.locator("#table-log img, #table-feed img").count() == 0
        assert entries(tablet).filter(has_text="ALKEMY").filter(has_text="fair roll, verified").count() == 0
        assert "From Dana: refused" in banner(tablet)


def test_a_copied_device_id_and_a_look_alike_name_take_no_seat(rtc_browser, base_url):
    """Mallory writes Dana's device id into his phone's storage, names
    himself Dana and answers the next code: the tablet turns him away in
    words naming Dana's seat, his phone is told, Dana stays connected and
    her next roll is hers. Then he tries "Dаna" (a Cyrillic а): turned
    away as looking the same as Dana."""
    with opened(rtc_browser, base_url) as tablet, \
            opened(rtc_browser, base_url, viewport=(390, 844)) as dana, \
            opened(rtc_browser, base_url, viewport=(390, 844)) as mallory:
        named(tablet, "The GM")
        named(dana, "Dana")
        link = host(tablet)
        join(tablet, dana, link)
        dana_id = json.loads(dana.evaluate("() => localStorage.getItem('dice-table/device')"))["id"]
        mallory.evaluate("(id) => localStorage.setItem('dice-table/device', JSON.stringify("
                         "{v: 1, id, key: '00'.repeat(16), name: 'Dana'}))", dana_id)
        mallory.reload()
        mallory.wait_for_selector("body[data-ready]", state="attached", timeout=SLOW)
        named(mallory, "Dana")
        link = offer_link(tablet, link)
        paste(tablet, answer(mallory, link))
        mallory.wait_for_function("() => document.querySelector('#table-status').textContent.includes('could not prove')",
                                  timeout=SLOW)
        assert "the tablet ended the connection" in mallory.inner_text("#table-status")
        tablet.wait_for_function("() => document.querySelector('#banner').textContent.includes('could not prove')",
                                 timeout=SLOW)
        assert "claimed Dana's seat but could not prove it" in banner(tablet)
        tablet.wait_for_selector('[data-table-peer="Dana"][data-status="open"]', state="attached")
        assert tablet.locator("[data-table-peer]").count() == 1
        roll(dana)
        tablet.wait_for_selector('[data-table-entry][data-by="Dana"]', state="attached", timeout=SLOW)
        # a name that looks the same
        mallory.watch.accept_dialogs = 1
        mallory.click("#table-leave")
        mallory.evaluate("() => localStorage.removeItem('dice-table/device')")  # a device of his own now
        mallory.reload()
        mallory.wait_for_selector("body[data-ready]", state="attached", timeout=SLOW)
        named(mallory, "D\u0430na")
        paste(tablet, answer(mallory, offer_link(tablet, link)))
        mallory.wait_for_function("() => document.querySelector('#table-status').textContent.includes('looks the same')",
                                  timeout=SLOW)
        tablet.wait_for_function("() => document.querySelector('#banner').textContent.includes('looks the same')",
                                 timeout=SLOW)
        assert tablet.locator("[data-table-peer]").count() == 1


def test_a_damaged_stored_table_gets_a_banner_and_a_backup(rtc_browser, base_url):
    """A stored table whose next seat is "x": a banner in words (no Python
    error), the text kept under the backup key, the device at no table."""
    damaged = json.dumps({"v": 2, "role": "host", "table": "AbCdEf12", "name": "The GM", "next_slot": "x",
                          "seats": [], "log": [], "fair": {}})
    seed = f"if (!sessionStorage.getItem('seeded')) {{ sessionStorage.setItem('seeded', '1'); " \
           f"localStorage.setItem('dice-table/table', {json.dumps(damaged)}); }}"
    with opened(rtc_browser, base_url, init_script=seed) as page:
        words = banner(page)
        assert "live table kept on this device could not be read" in words and "next seat is not a number" in words
        assert "Error" not in words and "concatenate" not in words
        assert page.evaluate("() => localStorage.getItem('dice-table/table/unreadable-backup')") == damaged
        page.click("[data-table-open]")
        assert page.inner_text("#table-status") == "This device is at no table."


def test_a_dropped_phone_rejoins_and_both_logs_stay_whole(rtc_browser, base_url):
    """The phone's channel drops; it rolls while away (kept to send), and
    the tablet rolls too; it scans the tablet's next code, takes its seat
    back (the GM reads its answer 15 s after it showed: the channel opens
    all the same), and every roll arrives both ways, none twice. While it
    hosts, the tablet holds a screen wake lock (the phone does not);
    leaving the table lets it go."""
    with opened(rtc_browser, base_url, permissions=["screen-wake-lock"]) as tablet, \
            opened(rtc_browser, base_url, viewport=(390, 844)) as phone:
        named(tablet, "The GM")
        named(phone, "Dana")
        assert not tablet.evaluate("() => window.diceRtc.isAwake()")
        first = host(tablet)
        tablet.wait_for_function("() => window.diceRtc.isAwake()")
        join(tablet, phone, first)
        assert not phone.evaluate("() => window.diceRtc.isAwake()")
        roll(phone)
        tablet.wait_for_selector('[data-table-entry][data-by="Dana"]', state="attached", timeout=SLOW)
        phone.evaluate("() => window.diceRtc.close('host')")
        tablet.wait_for_selector('[data-table-peer="Dana"][data-status="away"]', state="attached", timeout=SLOW)
        roll(phone, "open_tale")
        roll(phone, "mirage")
        roll(tablet)
        assert entries(tablet, "Dana").count() == 1
        join(tablet, phone, offer_link(tablet, first), slow_gm_s=15)  # (the phone once gave up after 12 s)
        wait_entries(tablet, "Dana", 3)
        wait_entries(phone, "The GM", 1)
        assert entries(phone, "Dana").count() == 3
        assert tablet.locator("[data-table-peer]").count() == 1
        tablet.watch.accept_dialogs = 1  # "Leave this table?"
        tablet.click("#table-leave")
        tablet.wait_for_function("() => !window.diceRtc.isAwake()")
        assert any("Leave this table?" in d for d in tablet.watch.dialogs)


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
        with opened(b, base_url, permissions=["camera"]) as tablet, \
                opened(b, base_url, viewport=(390, 844)) as phone:
            named(tablet, "The GM")
            named(phone, "Dana")
            link = host(tablet)
            phone.evaluate("(u) => { location.hash = u.split('#')[1]; }", link)
            phone.wait_for_selector("[data-table-answer][data-link]", timeout=SLOW)
            write_y4m(video, phone.get_attribute("[data-table-answer]", "data-link"))
            tablet.click("#table-scan")
            try:
                tablet.wait_for_selector('[data-table-peer="Dana"][data-status="open"]', state="attached", timeout=SLOW)
            except Exception:  # say where each side stood
                say_where(tablet, phone)
                raise
            assert tablet.input_value("[data-table-paste]") == ""
            assert tablet.evaluate("() => typeof window.jsQR") == "function"
            assert tablet.locator("#table-video").is_hidden()
    finally:
        b.close()
