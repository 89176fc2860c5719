"""A fair-roll request link posted in a group chat (docs/FAIR-ROLLS.md, "Who answered"): a second
device answers first. The GM's page (a landscape tablet), Dana's phone
and Eve's phone are each their own browser context with no network; links
pass only as a chat would (read from the share dialog, opened by setting
the address's fragment).

Eve's phone answers first; Dana's answer comes second. Both pages say so in
plain words, never as tampering; the GM voids the request and asks again in
one tap; Dana's phone answers the new request with "play my turn by the
advice", which takes three hand-offs; her page and Eve's (now a third
device) verify the final link, and Dana's form is hers again. Dana's phone
has the Web Share API: one tap on Share… hands the link on. Screenshots at
390x844 and 1024x768 go to /work/shots-fair/ (when that folder can be
made) and test-results/screens/.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT, watched_page

from fairrolls import fair
from links import share

pytestmark = pytest.mark.browser

PHONE, TABLET = (390, 844), (1024, 768)
SLOW = 60_000
#: The Web Share API, as a phone has it: records what it was given.
SHARE_STUB = """
Object.defineProperty(navigator, 'share', {configurable: true, value: async (data) => {
  window.__shared = (window.__shared || []).concat([data.url]);
}});
"""


def shot_dirs():
    out = [ROOT / "test-results" / "screens"]
    extra = Path("/work/shots-fair")
    try:
        extra.mkdir(parents=True, exist_ok=True)
        out.append(extra)
    except OSError:
        pass
    return out


def shot(page, name):
    """The screen as this page's user sees it, at a phone's and a landscape
    tablet's size (the page's own size restored after)."""
    own = page.viewport_size
    for w, h in (PHONE, TABLET):
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(150)
        for d in shot_dirs():
            page.screenshot(path=str(d / f"{name}-{w}x{h}.png"))
    page.set_viewport_size(own)


@pytest.fixture(scope="module")
def pages(browser, base_url):
    with watched_page(browser, base_url, viewport=TABLET) as gm, \
            watched_page(browser, base_url, viewport=PHONE, init_script=SHARE_STUB) as dana, \
            watched_page(browser, base_url, viewport=PHONE) as eve:
        yield gm, dana, eve


def sent(page, shot_as=None) -> str:
    page.wait_for_selector("#share-dialog[open]", timeout=SLOW)
    if shot_as:
        shot(page, shot_as)
    url = page.input_value("#share-link")
    page.click("#share-close")
    page.wait_for_selector("#share-dialog:not([open])", state="attached")
    return url.split("#", 1)[1]


def deliver(page, link):
    page.evaluate("(f) => { location.hash = f; }", link)


def kind(link):
    return link.split(".")[1]


def panel(page, status):
    sel = f'#tray-milhamah [data-fair-panel][data-fair-status="{status}"]'
    page.wait_for_selector(sel, timeout=SLOW)
    return page.locator(sel)


def banner_text(page):
    page.locator("#banner").wait_for(state="visible", timeout=SLOW)
    return page.inner_text("#banner")


def hide_banner(page):
    page.evaluate("() => { document.querySelector('#banner').hidden = true; }")


def stored_key(page):
    """The device key this page keeps (it never leaves the device)."""
    import json
    return json.loads(page.evaluate("() => localStorage.getItem('dice-table/device')"))["key"]


def name_device(page, name):
    page.fill("#fair-device-name", name)


def test_a_second_device_answers_first_and_the_gm_asks_again(pages):
    gm, dana, eve = pages
    gm.click("#tabbtn-milhamah")
    gm.evaluate("""() => { const el = document.querySelector('#form-milhamah [name=rounds]');
        el.value = '2'; el.dispatchEvent(new Event('input', {bubbles: true})); }""")  # two reroll rounds
    gm.click("#fair-ask")
    gm.wait_for_selector("#ask-dialog[open]")
    gm.fill("#ask-player", "Dana")
    gm.fill("#ask-label", "Climb the wall")
    gm.click("#ask-make")
    q = sent(gm)
    # the QR code is one tap away for a hand-off at the same table
    assert kind(q) == "q"

    # Eve opens the link first and rolls, choosing her steps herself
    deliver(eve, q)
    panel(eve, "received")
    name_device(eve, "Eve's phone")
    shot(eve, "fair-player-received")
    eve.click("#tray-milhamah [data-fair=answer]")
    eve_answer = sent(eve)
    deliver(gm, eve_answer)
    gm.wait_for_selector("#share-dialog[open]", timeout=SLOW)
    words = gm.inner_text("#share-what")
    eve_fp = share.decode(eve_answer)["data"]["m"]["f"]
    assert eve_fp == fair.device_fingerprint(stored_key(eve))
    assert words.startswith(f"Answered by Eve's phone ({eve_fp})"), words
    dice_for_eve = sent(gm, "fair-gm-answered")
    assert kind(dice_for_eve) == "d"
    who = gm.inner_text("#tray-milhamah [data-fair-panel]")
    assert "Answered by Eve's phone" in who and eve_fp in who
    assert "share-main" in gm.get_attribute("#share-copy", "class")  # no Web Share here: Copy is the one tap

    # Eve's page shows her dice: the rules' steps first, ending the turn under them, secondary
    deliver(eve, dice_for_eve)
    panel(eve, "rolled")
    order = eve.evaluate("""() => [...document.querySelectorAll('#tray-milhamah [data-act], #tray-milhamah [data-fair]')]
        .map(b => b.dataset.act ? 'step' : b.dataset.fair)""")
    assert order.index("step") < order.index("done") and order.index("step") < order.index("advice"), order
    assert "fair-main" not in (eve.get_attribute("#tray-milhamah [data-fair=done]", "class") or "")
    assert eve.inner_text("#tray-milhamah [data-fair=done]") == "End my turn (no more steps)"
    shot(eve, "fair-player-rolled")

    # Dana answers too, later: the GM's page names both devices in plain words
    deliver(dana, q)
    panel(dana, "received")
    name_device(dana, "Dana's phone")
    dana.click("#tray-milhamah [data-fair=answer-advice]")
    dana_answer = sent(dana)
    hide_banner(gm)
    deliver(gm, dana_answer)
    text = banner_text(gm)
    assert f"Another device already answered this request: Eve's phone ({eve_fp})." in text, text
    assert "This answer came from Dana's phone" in text and "changed" not in text
    panel(gm, "rolled")  # the request it came for is on show, with its Void and ask again
    shot(gm, "fair-gm-second-answer")

    # Dana's phone opens the dice the GM's page rolled for Eve: the same plain words
    hide_banner(dana)
    deliver(dana, dice_for_eve)
    text = banner_text(dana)
    assert f"Another device already answered this request: Eve's phone ({eve_fp}). Ask the GM for a new one." \
        in text, text
    assert "changed on the way" not in text and "tamper" not in text.replace("Nothing was tampered with", "")
    shot(dana, "fair-player-second-answer")

    # one tap: void and ask again
    gm.click("#tray-milhamah [data-fair=reissue]")
    q2 = sent(gm, "fair-gm-reissue")
    assert kind(q2) == "q" and share.decode(q2)["data"]["r"] == share.decode(q)["data"]["i"]
    assert "voided" in gm.inner_text("#requests-list").lower()

    # Dana answers the new request by the advice: the GM's page sends the final link at once
    hide_banner(dana)
    deliver(dana, q2)
    box = panel(dana, "received")
    assert "asks again for a request the GM voided" in box.inner_text()
    dana.click("#tray-milhamah [data-fair=answer-advice]")
    dana.wait_for_selector("#share-dialog[open]", timeout=SLOW)
    assert dana.locator("#share-native").is_visible()
    assert not dana.locator("#share-qr-box").evaluate("el => el.open")  # folded, one tap away
    assert "plays your turn by the advice" in dana.inner_text("#share-what")
    shot(dana, "fair-player-share")
    dana.click("#share-native")  # one tap hands the link to the chat app
    dana.wait_for_function("() => (window.__shared || []).length === 1")
    answer2 = dana.evaluate("() => window.__shared[0]").split("#", 1)[1]
    dana.click("#share-close")
    deliver(gm, answer2)
    final = sent(gm, "fair-gm-final")
    assert kind(final) == "v"
    panel(gm, "revealed")

    deliver(dana, final)
    panel(dana, "verified")
    # a finished roll gives the form back: Dana's own, open, with its Roll
    assert dana.locator("#form-milhamah [name=rounds]").is_enabled()
    assert dana.locator("#form-milhamah [data-roll]").is_visible()
    shot(dana, "fair-player-verified")

    # Eve's phone, now a third device, verifies it and calls the dice Dana's
    hide_banner(eve)
    deliver(eve, final)
    eve.wait_for_selector('#tray-milhamah [data-fair-status="verified"]', timeout=SLOW)
    tray = eve.inner_text("#tray-milhamah")
    assert "Fair roll, verified ✓ — Dana's roll" in tray and "Answered by Dana's phone" in tray
    assert "Your dice" not in tray and "Dana's dice" in tray
    shot(eve, "fair-third-verified")
    outcome = eve.inner_text("#tray-milhamah .outcome")
    assert dana.inner_text("#tray-milhamah .outcome") == outcome == gm.inner_text("#tray-milhamah .outcome")
