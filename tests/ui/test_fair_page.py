"""What the page shows of a fair roll (static/py/fairrolls/fairview.py) and the
page-facing parts of fair.py (merge_requests, view's ``last``): the panel's
buttons at each point of real exchanges made through fair.py, which tray
steps each side keeps, the Requests list, every name escaped, the
open-too-long warning, imported requests merged by role and id."""

from __future__ import annotations

import copy
import random
import re

import rules
from fairrolls import fair, fairview

XSS = '<img src=x onerror="alert(1)">'


class Page:
    """One device's requests, as fairpanel.py keeps them."""

    def __init__(self, seed):
        self.requests = []
        self.entropy = random.Random(seed).randbytes

    def put(self, st):
        self.requests = [st] + [s for s in self.requests if (s["role"], s["rid"]) != (st["role"], st["rid"])]
        return st

    def open(self, link):
        got = fair.open_link(link, self.requests, now=1000)
        if got["state"] is not None:
            self.put(got["state"])
        return got

    def only(self, role):
        return next(s for s in self.requests if s["role"] == role)

    def move(self, fn, role, *args, **kw):
        st, link = fn(self.only(role), *args, now=1000, **kw)
        self.put(st)
        return link


def verbs(html):
    return re.findall(r'data-fair="([a-z-]+)"', html)


def both(v):
    """The panel above the dice and the buttons under them, in page order."""
    return fairview.panel(v) + fairview.foot(v)


def exchange(system, spec, player="Dana", label="Climb"):
    gm, pl = Page(1), Page(2)
    st = gm.put(fair.new_request(system, spec, player, label, now=1000, entropy=gm.entropy))
    pl.open(fair.request_link(st))
    return gm, pl


def test_the_panel_offers_each_side_its_move_through_a_milhamah_reroll():
    gm, pl = exchange("milhamah", {"shoresh": "אשר", "rerolls": 3})
    v = lambda page, role: fair.view(page.only(role), 1000)  # noqa: E731
    assert verbs(both(v(gm, "gm"))) == ["send", "leave"]  # waiting for Roll: nobody to void yet
    # press Roll: choosing each step, or the whole turn fixed now (fewer links)
    assert verbs(both(v(pl, "player"))) == ["answer", "answer-advice", "answer-none", "leave"]
    assert ">Roll, then I choose my steps<" in fairview.panel(v(pl, "player"))
    a = pl.move(fair.answer, "player", entropy=pl.entropy)
    assert verbs(both(v(pl, "player"))) == ["send", "leave"]       # sent, waiting
    d = gm.open(a)["reply"]
    assert verbs(both(v(gm, "gm"))) == ["reveal", "reissue", "send", "leave"]  # may reveal early
    assert "ends the roll here" in fairview.foot(v(gm, "gm"))
    pl.open(d)
    pv = v(pl, "player")
    # the steps are the tray's, above; ending the turn is under them, secondary
    assert verbs(fairview.panel(pv)) == [] and verbs(fairview.foot(pv)) == ["advice", "done", "send", "leave"]
    assert "fair-main" not in fairview.foot(pv) and "data-fair-then" in fairview.panel(pv)
    assert pv["last"] == "d" and fairview.keeps_step(pv, "reroll") and fairview.keeps_step(pv, "advice")
    assert not fairview.keeps_step(pv, "reroll:opponent") and not fairview.keeps_step(pv, "hit_location")
    assert not fairview.keeps_step(v(gm, "gm"), "reroll")  # the player's turn: no step on the GM's page
    step = pl.move(fair.step, "player", {"do": "reroll", "dice": [0]}, entropy=pl.entropy)
    assert not fairview.keeps_step(v(pl, "player"), "reroll")  # sent: no second step before the dice
    final = gm.open(step)["reply"]
    assert fair.view(gm.only("gm"))["status"] == "revealed"
    assert verbs(both(v(gm, "gm"))) == ["reissue", "send", "leave"]  # voiding stays possible, in the open
    assert "Send the final link" in fairview.foot(v(gm, "gm"))
    got = pl.open(final)
    html = fairview.panel(v(pl, "player"), 1000, got["note"])  # as the page shows the opened link
    assert html.count("Fair roll, verified ✓") == 1 and 'data-fair-status="verified"' in html


def test_the_gm_steps_for_the_opponent_after_the_player_is_done():
    """Opposed Milhamah: after the player's Done, the GM's page keeps the
    opponent's buttons and offers Reveal; the player's page then asks to
    let the GM's step be rolled."""
    spec = {"shoresh": "אשר", "rerolls": 2, "opponent": {"shoresh": "שלם", "rerolls": 2}}
    gm, pl = exchange("milhamah", spec)
    pl.open(gm.open(pl.move(fair.answer, "player", entropy=pl.entropy))["reply"])
    gm.open(pl.move(fair.pass_turn, "player"))
    gv = fair.view(gm.only("gm"))
    assert gv["gm_may_step"] and fairview.keeps_step(gv, "reroll:opponent")
    assert verbs(both(gv)) == ["reveal", "reissue", "send", "leave"]
    assert fairview.state_words(gv) == "Your turn: the opponent's step, or Reveal."
    g = gm.move(fair.gm_step, "gm", {"do": "reroll", "side": "opponent", "dice": [0]})
    pl.open(g)
    pv = fair.view(pl.only("player"))
    assert verbs(both(pv)) == ["answer", "send", "leave"]
    assert "Let the GM roll" in fairview.panel(pv)
    assert not fairview.keeps_step(pv, "reroll")


def test_every_name_and_label_is_escaped():
    gm, pl = exchange("jadeclaw", {"dice": [8]}, player=XSS[:40], label=XSS)
    for page, role in ((gm, "gm"), (pl, "player")):
        v = fair.view(page.only(role))
        for html in (fairview.panel(v, note=XSS), fairview.row(v), fairview.requests_list([v])):
            assert "<img" not in html and "&lt;img" in html
    ver = {"player": XSS, "label": XSS, "fingerprint": XSS, "steps": 0}
    assert "<img" not in fairview.verified_panel(ver)
    who = {**ver, "answered_by": {"name": XSS, "fingerprint": XSS}, "mode": "advice"}
    assert "<img" not in fairview.verified_panel(who) and "&lt;img" in fairview.verified_panel(who)
    v = fair.view(pl.only("player"))
    assert "<img" not in fairview.panel(v, device={"name": XSS, "fingerprint": XSS})


def test_a_request_open_too_long_says_for_how_many_days():
    gm, pl = exchange("jadeclaw", {"dice": [8]})
    pl.move(fair.answer, "player", entropy=pl.entropy)
    st = pl.only("player")
    later = st["updated"] + 3 * fairview.DAY_MS + 5
    v = fair.view(st, later)
    assert v["overdue"]
    text = fairview.state_words(v, later)
    assert "Open for 3 days: the GM has not revealed this roll yet" in text
    assert 'class="request is-overdue"' in fairview.row(v, later)
    assert "Open for" not in fairview.state_words(fair.view(st, st["updated"] + 5), st["updated"] + 5)


def test_the_requests_list_has_a_row_each_newest_first_with_its_buttons():
    gm = Page(3)
    older = gm.put(fair.new_request("mirage", {"attribute": 8}, "Wu", now=10, entropy=gm.entropy))
    newer = gm.put(fair.new_request("alkemy", {"characteristic": 4}, "Dana", now=20, entropy=gm.entropy))
    html = fairview.requests_list([fair.view(s) for s in gm.requests])
    assert html.index(newer["rid"]) < html.index(older["rid"])
    assert html.count('<li class="request') == 2
    assert verbs(fairview.row(fair.view(older))) == ["open", "send", "delete"]  # no Reveal before the dice
    assert "You asked" in html and fair.view(newer)["fingerprint"] in html
    assert fairview.requests_list([]) == ""


def test_the_words_beside_each_link():
    gm, pl = exchange("jadeclaw", {"dice": [8]})
    q = fair.request_link(gm.only("gm"))
    a = pl.move(fair.answer, "player", entropy=pl.entropy)
    v = gm.open(a)["reply"]
    assert fairview.send_text("gm", q, "Dana").startswith("Send this request to Dana")
    assert fairview.send_text("player", a, "Dana").startswith("Send this back to the GM")
    assert fairview.send_text("gm", v, "Dana").startswith("The final link: send it to Dana")
    assert fairview.send_text("gm", "nonsense", "Dana") == "Send this link on."


# ---------------------------------------------------------------- imported requests

def test_merge_requests_adds_brings_forward_and_keeps_its_own():
    gm, pl = exchange("milhamah", {"shoresh": "אשר", "rerolls": 3})
    early = copy.deepcopy(gm.only("gm"))
    pl.open(gm.open(pl.move(fair.answer, "player", entropy=pl.entropy))["reply"])
    later = gm.only("gm")
    # a backup made earlier does not undo the later state; a later one brings an old page forward
    merged, changed, warning = fair.merge_requests([later], [early])
    assert merged == [later] and changed == 0 and warning is None
    merged, changed, warning = fair.merge_requests([early], [later])
    assert merged == [later] and changed == 1
    # a request this page lacks is added; the player's copy of the same id is another request
    merged, changed, _ = fair.merge_requests([later], [pl.only("player")])
    assert len(merged) == 2 and changed == 1
    # a copy that went another way (another seed) leaves this page's as it is
    other = copy.deepcopy(later)
    other["msgs"] = other["msgs"][:1]
    other_gm = Page(9)
    other_pl = Page(10)
    other_gm.put(other)
    other_pl.open(fair.request_link(other))
    other_gm.open(other_pl.move(fair.answer, "player", entropy=other_pl.entropy))
    merged, changed, _ = fair.merge_requests([later], [other_gm.only("gm")])
    assert merged == [later] and changed == 0


def test_merge_requests_refuses_damaged_imports_with_a_warning():
    gm, _ = exchange("jadeclaw", {"dice": [8]})
    st = gm.only("gm")
    forged = {**st, "secret": "00" * 32}
    merged, changed, warning = fair.merge_requests([], [st, forged, "junk"])
    assert merged == [st] and changed == 1 and warning.startswith("2 stored fair-roll request(s)")
    assert fair.merge_requests([st], None) == ([st], 0, None)


def test_open_steps_is_read_from_each_systems_flags():
    """The table covers the systems with steps; the others have none."""
    assert set(fair._STEP_FLAGS) == {"milhamah", "mirage", "alkemy"} < set(rules.SYSTEMS)
    # the hit location is the GM's to roll: the player has no step left
    assert fair.open_steps({"system": "milhamah", "allowed": ["hit_location"]}) == (False, True)
    assert fair.open_steps({"system": "alkemy", "choice": True, "opponent": None}) == (True, False)
    assert fair.open_steps({"system": "mirage", "can_pray": False}) == (False, False)
    assert fair.open_steps({"system": "alkemy", "opponent": "junk"}) == (False, False)


# ---------------------------------------------------------------- who answered: words and states

DEV = {"name": "Dana's phone", "key": "7e" * 16}


def test_the_words_after_each_of_the_players_links():
    """'Nobody knows the dice yet' only where nobody does: after the answer
    and a step; ending the turn, or letting the GM's page play it, says
    what happens next instead."""
    gm, pl = exchange("milhamah", {"shoresh": "אשר", "rerolls": 3, "rounds": 3})
    a = pl.move(fair.answer, "player", entropy=pl.entropy, device=DEV)
    words = lambda link: fairview.send_text("player", link, "Dana", fair.view(pl.only("player")))  # noqa: E731
    assert "Nobody knows the dice yet" in words(a)
    pl.open(gm.open(a)["reply"])
    step = pl.move(fair.step, "player", {"do": "reroll", "dice": [0]}, entropy=pl.entropy)
    assert "Nobody knows this step's dice yet" in words(step)
    pl.open(gm.open(step)["reply"])
    done = pl.move(fair.pass_turn, "player")
    assert "Nobody knows" not in words(done) and words(done).startswith("Send this to the GM: your turn is over")
    gm2, pl2 = exchange("milhamah", {"shoresh": "אשר", "rerolls": 3, "rounds": 2})
    fast = pl2.move(fair.answer, "player", entropy=pl2.entropy, device=DEV, mode="advice")
    v = fair.view(pl2.only("player"))
    assert "plays your turn by the advice and sends the final link" in fairview.send_text("player", fast, "Dana", v)
    assert fairview.state_words(v) == "Sent: the GM's page plays your turn by the advice and sends the final link."
    assert "You answered from <strong>Dana&#x27;s phone</strong>" in fairview.panel(v) or \
        "You answered from <strong>Dana's phone</strong>" in fairview.panel(v)


def test_the_gms_page_shows_who_answered_before_sending_dice():
    """The GM's panel and the words over the dice link name the answering
    device and point at Void and ask again."""
    gm, pl = exchange("milhamah", {"shoresh": "אשר", "rerolls": 3})
    got = gm.open(pl.move(fair.answer, "player", entropy=pl.entropy, device=DEV))
    v = fair.view(gm.only("gm"))
    fp = fair.device_fingerprint(DEV["key"])
    assert f"(device <code>{fp}</code>)" in fairview.panel(v, note=got["note"])
    assert fairview.panel(v, note=got["note"]).count(fp) == 1  # the note's "Answered by" is not said twice
    text = fairview.send_text("gm", got["reply"], "Dana", v)
    assert text.startswith(f"Answered by Dana's phone ({fp}): not them?") and "Void and ask again" in text
    assert "reissue" in verbs(fairview.foot(v))


def test_a_third_device_does_not_call_the_dice_its_own():
    """A final link opened by anyone else names the player's roll and the
    answering device, says a device is not a person, and the tray's "Your
    dice" becomes the player's."""
    ver = {"player": "Dana", "label": "", "fingerprint": "abcd-ef01", "steps": 1,
           "answered_by": {"name": "Dana's phone", "fingerprint": "oak-fern-12"}, "mode": "advice"}
    html = fairview.verified_panel(ver)
    assert "Dana&#x27;s roll" in html or "Dana's roll" in html
    assert "it does not prove who held it" in html and "oak-fern-12" in html
    assert fairview.others_dice("<p>Your dice · X = 3</p>", "Dana") == "<p>Dana's dice · X = 3</p>"


def test_a_voided_request_says_so_and_offers_no_moves():
    gm, pl = exchange("milhamah", {"shoresh": "אשר", "rerolls": 3})
    old, new, _link = fair.reissue(gm.only("gm"), existing=gm.requests, entropy=gm.entropy)
    v = fair.view(old)
    assert v["status"] == "voided" and fairview.state_words(v).startswith("Voided:")
    assert verbs(fairview.panel(v) + fairview.foot(v)) == ["leave"]
    assert "asks again for a request the GM voided" in fairview.panel(fair.view(new))
