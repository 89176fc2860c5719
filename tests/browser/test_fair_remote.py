"""Fair rolls at a distance on the page (docs/FAIR-ROLLS.md): a GM's page (an upright
tablet), a player's page (a phone) and a third party's page (a landscape
tablet), each its own browser context with no network, pass the links only
as a chat would: each link is read from the share dialog (``#share-link``)
and opened on the other page by setting its address's fragment. They play
a Milhamah roll with a reroll, a Mirage roll with a prayer and an ALKEMY
bonus roll with a keep; the third page verifies every final link; a
tampered final link is refused and leaves that page's history as it was.
Screenshots of each page are kept under test-results/screens/."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, show_history, watched_page

from fairrolls import fair
from links import share

pytestmark = pytest.mark.browser

SCREENS = ROOT / "test-results" / "screens"
GM_SIZE, PLAYER_SIZE, VERIFIER_SIZE = (768, 1024), (390, 844), (1024, 768)
SLOW = 60_000


@pytest.fixture(scope="module")
def table(browser, base_url):
    """The three pages, open for the whole module (each checked for
    console errors, page errors and blocked requests at the end)."""
    with watched_page(browser, base_url, viewport=GM_SIZE) as gm, \
            watched_page(browser, base_url, viewport=PLAYER_SIZE) as player, \
            watched_page(browser, base_url, viewport=VERIFIER_SIZE) as third:
        show_history(gm)
        gm.fill("#roller-name", "The GM")
        gm.click("#history-close")
        yield gm, player, third


def shot(page, name):
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"fair-{name}.png"))


def sent(page) -> str:
    """The link the page offers to send (the share dialog opens by itself
    after each move); the dialog is closed again."""
    page.wait_for_selector("#share-dialog[open]", timeout=SLOW)
    url = page.input_value("#share-link")
    page.click("#share-close")
    page.wait_for_selector("#share-dialog:not([open])", state="attached")
    assert "#" in url
    return url.split("#", 1)[1]


def answer(page, system, name="Dana"):
    """The player's Roll on a fair request: a fresh device is asked for a
    name first (docs/FAIR-ROLLS.md), so the field is filled where empty."""
    if not page.input_value("#fair-device-name").strip():
        page.fill("#fair-device-name", name)
    page.click(f"#tray-{system} [data-fair=answer]")


def deliver(page, link):
    """Open a link on a page as a player would by following it."""
    page.evaluate("(f) => { location.hash = f; }", link)


def kind(link):
    return link.split(".")[1]


def stored(page, role):
    """The page's stored request of this role (the newest)."""
    text = page.evaluate("() => localStorage.getItem('dice-table/requests')")
    states, warning = fair.load_requests(text)
    assert warning is None
    return next(st for st in states if st["role"] == role)


def close_history(page):
    """Close the history where it is a drawer (it covers the page)."""
    if page.locator("#history-close").is_visible():
        page.click("#history-close")


def history_texts(page):
    return page.locator("#history-list [data-history-entry]").all_inner_texts()


def panel(page, system, status):
    """The fair panel of a tab, once it reads ``status``."""
    sel = f'#tray-{system} [data-fair-panel][data-fair-status="{status}"]'
    page.wait_for_selector(sel, timeout=SLOW)
    return page.locator(sel)


def dice_labels(page, system):
    """Every die's face in the tray, in its words ("Die 2: red d12 showing
    ayin (ע)"; what a side may do with it, such as "will be rerolled", left
    out: the side that may not step sees the dice read-only)."""
    return [label.split(", ")[0] for label in page.locator(f"#tray-{system} .dice svg.die").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))")]


def ask(gm, system, player, label):
    """The GM asks for the tab's roll as the form says: the request link."""
    gm.click(f"#tabbtn-{system}")
    gm.click("#fair-ask")
    gm.wait_for_selector("#ask-dialog[open]")
    gm.fill("#ask-player", player)
    gm.fill("#ask-label", label)
    gm.click("#ask-make")
    link = sent(gm)
    assert kind(link) == "q"
    return link


def start(gm, player, system, label):
    """Request → the player's Roll → the GM's dice, opened on the player's
    page: (the dice link, the player's request state)."""
    q = ask(gm, system, "Dana", label)
    deliver(player, q)
    box = panel(player, system, "received")
    assert "requested by the GM for Dana: " in box.inner_text()
    # the form shows the request, read-only; its own Roll is hidden
    assert player.locator(f"#form-{system} input[name]:not([type=hidden])").first.is_disabled()
    assert not player.locator(f"#form-{system} [data-roll]").is_visible()
    answer(player, system)
    a = sent(player)
    assert kind(a) == "a"
    deliver(gm, a)
    d = sent(gm)
    panel(gm, system, "rolled")
    deliver(player, d)
    panel(player, system, "rolled")
    # both pages show the same dice: the ones the GM's secret and the player's seed give
    assert dice_labels(gm, system) == dice_labels(player, system) != []
    gm_st = stored(gm, "gm")
    return d, gm_st


def finish(gm, player, third, system, link, name):
    """From the GM's last link (None: the player's page has opened them
    all) to the final one: the player presses Done while the GM's page
    still sends dice; then the final link is opened on the player's page
    and on the third page, and both say verified."""
    for _ in range(5):
        if link is not None and kind(link) == "v":
            break
        if link is not None:
            deliver(player, link)
            panel(player, system, "rolled")
        player.click(f"#tray-{system} [data-fair=done]")
        deliver(gm, sent(player))
        link = sent(gm)
    assert kind(link) == "v"
    panel(gm, system, "revealed")
    deliver(player, link)
    box = panel(player, system, "verified")
    assert "Fair roll, verified ✓" in box.inner_text()
    deliver(third, link)
    third.wait_for_selector(f'#tray-{system} [data-fair-status="verified"]', timeout=SLOW)
    assert "Fair roll, verified ✓" in third.inner_text(f"#tray-{system}")
    outcome = third.inner_text(f"#tray-{system} .outcome")
    assert player.inner_text(f"#tray-{system} .outcome") == outcome == gm.inner_text(f"#tray-{system} .outcome")
    for page, who in ((gm, "gm"), (player, "player"), (third, "third")):
        shot(page, f"{name}-{who}")
    return link


def test_milhamah_roll_with_a_reroll(table):
    gm, player, third = table
    d, gm_st = start(gm, player, "milhamah", "Climb the wall")
    shot(player, "milhamah-player-rolled")
    # the GM's page shows the fingerprint the player's page shows
    fp = fair.fingerprint(gm_st["msgs"][0]["c"])
    assert fp in player.inner_text("#tray-milhamah [data-fair-panel]")
    assert fp in gm.inner_text("#tray-milhamah [data-fair-panel]")
    # the player freezes every die but the first and rerolls it
    dice = player.locator("#tray-milhamah .dice [data-die]")
    for i in range(1, dice.count()):
        dice.nth(i).click()
    player.click("#tray-milhamah [data-act=reroll]")
    step = sent(player)
    assert kind(step) == "a"
    deliver(gm, step)
    final = finish(gm, player, third, "milhamah", sent(gm), "milhamah")
    ver = fair.verify(share.decode(final)["data"])
    assert [s["do"] for s in ver["result"]["stages"]][:2] == ["roll", "reroll"]
    assert ver["result"]["stages"][1]["draws"] and len(ver["result"]["stages"][1]["draws"]) == 1
    # the history of each page says how the roll came
    for page in (gm, player, third):
        show_history(page)
        assert "fair roll, verified" in history_texts(page)[0]
        assert "by Dana" in history_texts(page)[0]
        close_history(page)


def _prayable(state):
    dice = fair.view(state)["result"]["dice"]
    return [i for i, die in enumerate(dice) if die["face"] != 1 and not die.get("success")] or \
        [i for i, die in enumerate(dice) if die["face"] != 1]


def test_mirage_roll_with_a_prayer(table):
    """The GM asks for a roll with the preparatory prayer bonus (part of
    the requested setup: the player's form shows it read-only); the player
    taps a die and prays; the GM's page rolls the prayer at that bonus and,
    with nothing left to do, sends the final link."""
    gm, player, third = table
    gm.click("#tabbtn-mirage")
    gm.select_option("#form-mirage [name=prayer_bonus]", "1")
    for _attempt in range(3):  # every die showing 1 (about 1 in 80): no prayer, ask again
        d, _ = start(gm, player, "mirage", "Sneak past")
        targets = _prayable(stored(player, "player"))
        if targets:
            break
        finish(gm, player, third, "mirage", None, "mirage-no-prayer")
    else:
        pytest.fail("no die to pray for in three requests")
    player.click(f'#tray-mirage .dice [data-die="{targets[0]}"]')
    assert player.input_value("#form-mirage [name=prayer_bonus]") == "1"
    assert player.locator("#form-mirage [name=prayer_bonus]").is_disabled()
    shot(player, "mirage-player-before-prayer")
    player.click("#tray-mirage [data-act=pray]")
    step = sent(player)
    deliver(gm, step)
    final = finish(gm, player, third, "mirage", sent(gm), "mirage")
    result = fair.verify(share.decode(final)["data"])["result"]
    assert [s["do"] for s in result["stages"]] == ["roll", "pray"]
    assert result["prayed"]["dice"] == [targets[0]] and result["prayed"]["bonus"] == 1


def test_alkemy_bonus_roll_with_a_keep(table):
    """Two bonus dice: the player keeps the other pair; the GM's page sends
    the dice back (a keep draws nothing and may change again); Done; the
    final link."""
    gm, player, third = table
    gm.click("#tabbtn-alkemy")
    gm.fill("#form-alkemy [name=characteristic]", "5")
    gm.fill("#form-alkemy [name=bonus]", "2")
    gm.fill("#form-alkemy [name=difficulty]", "12")
    d, _ = start(gm, player, "alkemy", "Pick the lock")
    kept = fair.view(stored(player, "player"))["result"]["kept"]
    other = [i for i in range(4) if i not in kept]
    for i in other:
        player.click(f'#tray-alkemy .dice [data-die="{i}"]')
    player.click("#tray-alkemy [data-act=keep]")
    deliver(gm, sent(player))
    d2 = sent(gm)
    assert kind(d2) == "d"
    final = finish(gm, player, third, "alkemy", d2, "alkemy")
    result = fair.verify(share.decode(final)["data"])["result"]
    assert [s["do"] for s in result["stages"]] == ["roll", "keep"] and result["kept"] == other


def simple_roll(gm, player, who):
    """A Jadeclaw roll asked of ``who`` (no steps: the GM's page answers the
    Roll with the final link), verified on the player's page: the final
    link."""
    q = ask(gm, "jadeclaw", who, "")
    deliver(player, q)
    panel(player, "jadeclaw", "received")
    answer(player, "jadeclaw")
    deliver(gm, sent(player))
    final = sent(gm)
    assert kind(final) == "v"
    deliver(player, final)
    panel(player, "jadeclaw", "verified")
    for page in (gm, player):  # Close gives each side its own form back
        close_panel(page, "jadeclaw")
    return final


def close_panel(page, system):
    """Close a fair panel on show in ``system``'s tab, if any."""
    leave = page.locator(f"#tray-{system} [data-fair=leave]")
    if leave.count():
        leave.click()
        page.wait_for_selector(f"#tray-{system} [data-fair-panel]", state="detached")


def test_a_tampered_final_link_is_refused(table):
    """A final link with one seed changed (re-encoded, so it is a
    well-formed link): the third page refuses it with a message, shows no
    verified roll, and its history and stored history are unchanged; the
    link as sent verifies."""
    gm, player, third = table
    final = simple_roll(gm, player, "Wu")
    data = share.decode(final)["data"]
    seed = data["m"][0]["s"]
    data["m"][0]["s"] = ("0" if seed[0] != "0" else "1") + seed[1:]
    forged = share.encode_fair("v", data)
    third.click("#tabbtn-milhamah")
    third.evaluate("() => { document.querySelector('#banner').hidden = true; }")
    before = third.evaluate("() => localStorage.getItem('dice-table/history')")
    count = third.locator("#history-list [data-history-entry]").count()
    deliver(third, forged)
    banner = third.locator("#banner")
    banner.wait_for(state="visible")
    text = banner.inner_text()
    assert "Your own rolls and history are untouched." in text and "changed" in text, text
    assert third.locator("#tray-jadeclaw [data-fair-panel]").count() == 0
    assert third.locator("#history-list [data-history-entry]").count() == count
    third.wait_for_timeout(100)  # past the history's delayed write
    assert third.evaluate("() => localStorage.getItem('dice-table/history')") == before
    shot(third, "tampered-third")
    deliver(third, final)
    third.wait_for_selector('#tray-jadeclaw [data-fair-status="verified"]', timeout=SLOW)
    assert third.locator("#history-list [data-history-entry]").count() == count + 1


def test_the_requests_list_survives_a_reload(table):
    """The GM's Requests list: one row a request, still there after a
    reload, a waiting request's secret with it (its link can be sent again,
    and the player's answer still opens)."""
    gm, player, _third = table
    q = ask(gm, "open_tale", "Dana", "Jump the gap")
    show_history(gm)
    rows = gm.locator('#requests-list [data-request^="gm:"]')
    n = rows.count()
    assert "waiting" in rows.first.inner_text().lower() and "Jump the gap" in rows.first.inner_text()
    shot(gm, "gm-requests")
    close_history(gm)
    gm.reload()
    gm.wait_for_selector("body[data-ready]", state="attached", timeout=SLOW)
    assert gm.locator('#requests-list [data-request^="gm:"]').count() == n
    assert "secret" in stored(gm, "gm")
    deliver(player, q)
    panel(player, "open_tale", "received")
    answer(player, "open_tale")
    deliver(gm, sent(player))
    assert kind(sent(gm)) == "v"


def test_the_pages_pass_an_accessibility_audit(table):
    """axe finds nothing serious on the ask dialog, the player's panel
    before the Roll, and the GM's Requests list; a nameless request is
    refused in the dialog; Close gives the player's own form back."""
    from test_a11y import audit

    gm, player, third = table
    player.click("#tabbtn-jadeclaw")
    player.fill("#form-jadeclaw [name=dice]", "3d6")  # the player's own form
    gm.click("#tabbtn-jadeclaw")
    gm.fill("#form-jadeclaw [name=dice]", "2d10")
    gm.click("#fair-ask")
    gm.wait_for_selector("#ask-dialog[open]")
    assert audit(gm, "ask dialog") == []
    gm.fill("#ask-player", "")
    gm.click("#ask-make")  # no name: said in the dialog, nothing made
    assert "player's name" in gm.inner_text("#ask-error")
    gm.fill("#ask-player", "Wu")
    gm.click("#ask-make")
    deliver(player, sent(gm))
    panel(player, "jadeclaw", "received")
    assert player.input_value("#form-jadeclaw [name=dice]") == "2d10"  # the request's, read-only
    assert player.locator("#form-jadeclaw [name=dice]").is_disabled()
    assert audit(player, "player's panel") == []
    shot(player, "jadeclaw-player-received")
    player.wait_for_timeout(400)  # past the kept forms' delayed write
    player.click("#tray-jadeclaw [data-fair=leave]")
    player.wait_for_selector("#tray-jadeclaw [data-fair-panel]", state="detached")
    assert player.locator("#form-jadeclaw [name=dice]").is_enabled()
    assert player.input_value("#form-jadeclaw [name=dice]") == "3d6"
    player.reload()
    player.wait_for_selector("body[data-ready]", state="attached", timeout=SLOW)
    assert player.input_value("#form-jadeclaw [name=dice]") == "3d6"  # the request never became the kept form
    show_history(gm)
    assert gm.locator('#requests-list [data-request^="gm:"]').count() >= 1
    assert audit(gm, "requests list") == []
    close_history(gm)
