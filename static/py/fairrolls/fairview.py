"""What the page shows of a fair roll at a distance (docs/FAIR-ROLLS.md): the panel
above a tab's dice while a request is on show, a row of the Requests list,
the words beside a link to send, which of the tray's step buttons a side
may use. Pure: every function takes ``fair.view`` (or a verified view) and
returns HTML with every text escaped, or plain words. ``fairpanel`` puts the
HTML in the page and routes the buttons (``data-fair``) to ``fair``.

>>> v = {"role": "player", "status": "received", "last": "q", "player": "Dana <b>",
...      "label": "", "title": "Jadeclaw", "fingerprint": "3f2a-9c1b", "rid": "0123456789ab",
...      "overdue": False, "updated": 0, "gm_action": None, "player_may_step": False,
...      "gm_may_step": False, "link": None}
>>> "Dana &lt;b&gt;" in panel(v) and 'data-fair="answer"' in panel(v)
True

The panel (``panel``) sits above the dice and says where the roll stands;
the rules' own step buttons follow under the dice (the tray), and the
fair roll's secondary buttons (end my turn, reveal, send again, close) come
last (``foot``), so a step is never below a button that forfeits it.
"""

from __future__ import annotations

from drawing import views
from shell.names import NAME_MAX

__all__ = ["panel", "foot", "row", "requests_list", "verified_panel", "keeps_step", "send_text",
           "state_words", "others_dice", "watching", "choices_line", "NAME_FIRST", "DAY_MS", "THEN"]

DAY_MS = 24 * 3600 * 1000

#: (role, the transcript's last move) -> where the roll stands, in words.
_WORDS = {
    ("gm", "q"): "Waiting for {player} to open the request and press Roll.",
    ("gm", "s"): "{player}'s answer is in: the dice are being rolled.",
    ("gm", "d"): "{player}'s turn: a step, or the end of their turn.",
    ("gm", "e"): "Your turn: the opponent's step, or Reveal.",
    ("gm", "g"): "Waiting for {player}'s page to let your step be rolled.",
    ("player", "q"): "Roll: your dice come from your page and the GM's secret together.",
    ("player", "s"): "Sent: waiting for the GM's page to send the dice.",
    ("player", "d"): "Your turn: take a step with the buttons under the dice, or end your turn.",
    ("player", "e"): "Your turn is over: waiting for the GM's step or the final link.",
    ("player", "g"): "The GM asks to roll its step: press Let the GM roll.",
}

#: The choices of play a step may carry (``fair.MODES``): what follows it.
THEN = (("", "send me the dice"), ("none", "then end my turn"),
        ("advice", "then play on by the advice"))

_MODE_WORDS = {"advice": "play the turn by the advice", "none": "take no steps"}


def state_words(v: dict, now=0) -> str:
    """Where the roll stands, in plain words (a sentence)."""
    if v["status"] in ("revealed", "verified"):
        return "Fair roll, verified ✓"
    if v.get("voided"):
        return _VOIDED_WORDS[v["role"]]
    words = _WORDS[(v["role"], v["last"])].format(player=_answerer(v))
    if v["last"] == "s" and v.get("sent") in ("st", "sa"):  # the GM's page finishes the turn
        words = _played_by_gm_page(v)
    if v.get("overdue"):
        words += _overdue_words(v, now)
    return words


#: A voided request's state, by role.
_VOIDED_WORDS = {"gm": "Voided: you asked again with a new request.",
                 "player": "Voided: the GM asked again with a new request; this one's links no longer count."}


def _answerer(v: dict) -> str:
    """Who the state's words name: on the GM's page whoever answered (the
    request's player, or another device), else the request's player."""
    who = (v.get("answered_by") or {}).get("name") if v["role"] == "gm" else None
    return who or v["player"]


def _played_by_gm_page(v: dict) -> str:
    """The player answered with a choice of play: the GM's page plays the turn."""
    how = "by the advice" if v.get("mode") == "advice" or v.get("sent") == "sa" else "with no steps"
    if v["role"] == "player":
        return f"Sent: the GM's page plays your turn {how} and sends the final link."
    return f"{v['player']}'s turn is being played {how}."


def _overdue_words(v: dict, now) -> str:
    days = max(1, int((now - v.get("updated", 0)) // DAY_MS))
    return (f" Open for {days} day{'s' if days != 1 else ''}: the GM has not revealed this roll yet;"
            " you can ask for the final link.")


def _what(v: dict) -> str:
    label = f" — {v['label']}" if v.get("label") else ""
    return f"{v['title']}{label}"


def _heading(v: dict) -> str:
    if v["role"] == "gm":
        return f"Your fair-roll request to {v['player']}: {_what(v)}"
    return f"Fair roll requested by the GM for {v['player']}: {_what(v)}"


def _button(verb: str, text: str, v: dict, cls: str = "") -> str:
    cls_attr = f' class="{cls}"' if cls else ""
    return (f'<button type="button" data-fair="{views.esc(verb)}" data-role="{views.esc(v["role"])}" '
            f'data-rid="{views.esc(v["rid"])}"{cls_attr}>{views.esc(text)}</button>')


def _answer_buttons(v: dict) -> list:
    if not v.get("may_have_steps", True):
        return [_button("answer", "Roll", v, "fair-main")]
    return [_button("answer", "Roll, then I choose my steps", v, "fair-main"),
            _button("answer-advice", "Roll and play my turn by the advice", v),
            _button("answer-none", "Roll — I take no steps", v)]


def _player_buttons(v: dict) -> list:
    """The player's buttons above the dice: the answer (before any dice)."""
    if v["last"] == "q":
        return _answer_buttons(v)
    if v["last"] == "g":
        return [_button("answer", "Let the GM roll", v, "fair-main")]
    return []


def _gm_buttons(v: dict) -> list:
    if v["last"] == "e":
        return [_button("reveal", "Reveal", v, "fair-main")]
    return []


def _live(v: dict) -> bool:
    return v["status"] not in ("revealed", "verified", "voided")


def _top_buttons(v: dict) -> str:
    if not _live(v):
        return ""
    return "".join(_player_buttons(v) if v["role"] == "player" else _gm_buttons(v))


def foot(v: dict, alert: str = "", elsewhere: str = "") -> str:
    """The fair roll's buttons under the dice and the rules' steps: the
    player's end of turn (secondary: it forfeits the steps above it), the
    GM's early reveal and void (in the panel instead while a second answer
    is on show: ``alert``), send again (not once another device answered:
    ``elsewhere``), close."""
    out = [] if elsewhere else _after_dice_buttons(v)
    if _may_reissue(v) and not alert:  # answered: by the right person?
        out.append(_button("reissue", "Wrong person? Void and ask again", v))
    if v.get("link") and not elsewhere:
        out.append(_send_button(v))
    out.append(_button("leave", "Close", v))
    return f'<p class="fair-buttons fair-foot">{"".join(out)}</p>'


def _send_button(v: dict) -> str:
    """Send the link again: the final link once the roll is done."""
    done = v["status"] in ("revealed", "verified")
    return _button("send", "Send the final link" if done else "Send again", v)


def _after_dice_buttons(v: dict) -> list:
    """After dice, while the roll goes on: the player's end of turn, or the
    GM's early reveal."""
    if not _live(v) or v["last"] != "d":
        return []
    if v["role"] == "player":
        return [_button("advice", "Play the rest of my turn by the advice", v),
                _button("done", "End my turn (no more steps)", v)]
    return [_button("reveal", "Reveal now (ends the roll here)", v)]


def _may_reissue(v: dict) -> bool:
    return v["role"] == "gm" and v["status"] != "voided" and v["last"] != "q"


def _who(v: dict) -> str:
    who = v.get("answered_by")
    if not who:
        return ""
    name = who.get("name") or "a device with no name"
    mine = v["role"] == "player"
    chose = _chose(mine, v.get("mode"))
    lead = "You answered from" if mine else "Answered by"
    return (f'<p class="fair-who">{lead} <strong>{views.esc(name)}</strong> '
            f'(device <code>{views.esc(who["fingerprint"])}</code>){views.esc(chose)}.</p>')


def _chose(mine: bool, mode) -> str:
    """How the player chose to play the turn, after who answered ("; you
    chose to play the turn by the advice"); none for step by step."""
    words = _MODE_WORDS.get(mode or "")
    return f"; {'you' if mine else 'they'} chose to {words}" if words else ""


def _player_at(v: dict, last: str) -> bool:
    """The player's page, the roll going on, at move ``last`` (the request:
    before the answer; dice: the player's turn)."""
    return v["role"] == "player" and v["last"] == last and _live(v)


def _device_field(v: dict, device) -> str:
    """Before the player's answer: the device name it will carry (kept on
    this device) and the fingerprint of this device's key."""
    if not _player_at(v, "q") or not device:
        return ""
    return ('<p class="fair-device"><label for="fair-device-name">Your name (the GM sees it with your '
            'answer)</label> '
            f'<input id="fair-device-name" data-fair-device value="{views.esc(device.get("name", ""))}" '
            f'maxlength="{NAME_MAX}" autocomplete="name" placeholder="e.g. Dana" required '
            'aria-describedby="fair-device-error"> '
            f'<span>this device <code>{views.esc(device.get("fingerprint", ""))}</code></span></p>'
            '<p class="field-error" id="fair-device-error" data-fair-device-error role="alert"></p>')


#: Said at the name field when Roll is pressed with no name: a fresh device
#: must not answer as "a device with no name".
NAME_FIRST = "Your name first: the GM's page shows it with your answer, so the GM knows who rolled."


def _then_field(v: dict) -> str:
    """The player's turn: what follows a step, chosen before tapping it."""
    if not _player_at(v, "d") or not v.get("player_may_step"):
        return ""
    options = "".join(f'<option value="{views.esc(val)}">{views.esc(text)}</option>' for val, text in THEN)
    return ('<p class="fair-then"><label for="fair-then">After my step</label> '
            f'<select id="fair-then" data-fair-then>{options}</select></p>')


def _alert(v: dict, alert: str) -> str:
    """A second answer, on the GM's page: said in the panel (in view, with
    the dice), its one tap beside it."""
    if not alert:
        return ""
    button = _button("reissue", "Wrong person? Void and ask again", v, "fair-main") if _may_reissue(v) else ""
    return (f'<p class="fair-alert" role="alert" data-fair-alert>{views.esc(alert)}</p>'
            f'{f"<p class=fair-buttons>{button}</p>" if button else ""}')


def _elsewhere_words(elsewhere: str) -> str:
    return f"{elsewhere} Your answer was not used: nothing more goes from this page."


def panel(v: dict, now=0, note: str = "", device=None, alert: str = "", elsewhere: str = "") -> str:
    """The panel above the dice while a request is on show in its tab.
    ``device``: this page's ``{"name", "fingerprint"}`` (the player's
    answer carries them). ``alert``: a second answer that reached the GM's
    page (said here, with "Wrong person? Void and ask again"). ``elsewhere``:
    on the player's page, another device answered this request first (the
    panel says so, and offers nothing to send)."""
    state = _elsewhere_words(elsewhere) if elsewhere else state_words(v, now)
    note = _new_note(v, note, state)
    buttons = "" if elsewhere else _top_buttons(v)
    return (f'{_panel_tag(v, elsewhere)}<p class="fair-title">{views.esc(_heading(v))}</p>'
            f'<p class="fair-state" role="status">{views.esc(state)}</p>{_alert(v, alert)}'
            f'{f"<p class=fair-note>{views.esc(note)}</p>" if note and not alert else ""}'
            f'{_replaces(v)}{_who(v)}{_device_field(v, device)}'
            f'<p class="fair-print">Request fingerprint <code>{views.esc(v["fingerprint"])}</code>'
            f' (the same on both pages)</p>'
            f'{f"<p class=fair-buttons>{buttons}</p>" if buttons else ""}{_then_field(v)}</div>')


def _panel_tag(v: dict, elsewhere: str) -> str:
    """The panel's opening tag: where the roll stands, marked verified once
    done, or answered elsewhere."""
    done = v["status"] in ("revealed", "verified")
    return (f'<div class="fair-panel{" is-verified" if done else ""}" data-fair-panel '
            f'data-fair-status="{views.esc(v["status"])}"{" data-fair-elsewhere" if elsewhere else ""}>')


def _new_note(v: dict, note: str, state: str) -> str:
    """The note less what the panel says already: a note that only repeats
    the state is said once, and who answered has its own line."""
    note = "" if note == state else note
    who = v.get("answered_by")
    if who and note.startswith("Answered by ") and f"({who['fingerprint']}). " in note:
        note = note.split(f"({who['fingerprint']}). ", 1)[1]
    return note


def _replaces(v: dict) -> str:
    if not v.get("replaces"):
        return ""
    return ('<p class="fair-note">This request asks again for a request the GM voided '
            '(it had been answered by the wrong device).</p>')


def others_dice(html: str, player: str) -> str:
    """A tray drawn for someone else than its roller (the GM's page, a
    third device): "Your dice" becomes "<player>'s dice".

    >>> others_dice('<p>Your dice · X = 3</p>', "Dana <b>")
    "<p>Dana &lt;b&gt;'s dice · X = 3</p>"
    """
    return html.replace("Your dice", f"{views.esc(player)}'s dice")


def watching(html: str, who: str) -> str:
    """A tray drawn read-only on the GM's page while the player (``who``:
    the answering device's name) may still step: a shared result's words
    ("Shared mid-turn…", "shared before any prayer") said as what it is.

    >>> watching('<p>Shared mid-turn: it was the roller&#x27;s turn (they could still reroll). '
    ...          'Nothing can be changed here.</p>', "Eve")
    "<p>It is Eve's turn (they could still reroll): their page takes the step. Nothing can be changed here.</p>"
    """
    name = views.esc(who)
    html = html.replace("&#x27;s turn", "'s turn")
    for old, new in (("Shared mid-turn: it was the roller's turn", f"It is {name}'s turn"),
                     ("Shared mid-turn: it was the opponent's turn", "It is the opponent's turn"),
                     ("). Nothing can be changed here.", "): their page takes the step. Nothing can be changed here."),
                     ("shared before any prayer: the roller could still pray", f"{name} may still pray")):
        html = html.replace(old, new)
    return html


def choices_line(result, who: str) -> str:
    """The choices the player's page offers now, named, read-only (the GM's
    page takes none of them): best play's first.

    >>> r = {"advice": {"do": "accept"}, "choices": [{"action": {"do": "reroll"}, "label": "Reroll die 2"},
    ...                                             {"action": {"do": "accept"}, "label": "Accept the dice"}]}
    >>> choices_line(r, "Eve")
    '<p class="fair-choices" data-fair-choices>Eve&#x27;s choices now (on their page): Accept the dice (best play) · Reroll die 2</p>'
    """
    result = result or {}
    choices = [c for c in result.get("choices") or () if isinstance(c, dict)]
    if not choices:
        return ""
    advice = result.get("advice")
    ordered = sorted(choices, key=lambda c: c.get("action") != advice)
    words = " · ".join(_choice_words(c, advice) for c in ordered)
    whose = views.esc(f"{who}'s")
    return (f'<p class="fair-choices" data-fair-choices>{whose} choices now (on their page): '
            f'{views.esc(words)}</p>')


def _choice_words(c: dict, advice) -> str:
    """A choice named (its label, else its action), best play's said so."""
    name = str(c.get("label") or c.get("action", {}).get("do", ""))
    return name + (" (best play)" if c.get("action") == advice else "")


def verified_panel(ver: dict) -> str:
    """The panel over a final link opened by anyone (a third party): whose
    roll, which device answered, what was checked; the form stays theirs."""
    early = (" The GM ended the roll while the player could still take a step."
             if ver.get("ended_early") else "")
    label = f" — {ver['label']}" if ver.get("label") else ""
    steps = ver.get("steps", 0)
    answered = _answered_line(ver.get("answered_by"), _MODE_WORDS.get(ver.get("mode") or ""))
    return ('<div class="fair-panel is-verified" data-fair-panel data-fair-status="verified">'
            f'<p class="fair-title">Fair roll, verified ✓ — {views.esc(ver["player"])}\'s roll{views.esc(label)}</p>'
            '<p class="fair-state">The GM\'s secret matches the commitment in the request; every die '
            f'follows from it and the player\'s seeds ({steps} step{"s" if steps != 1 else ""} after the '
            f'roll), and the outcome is worked out again here.{views.esc(early)}</p>{answered}'
            f'<p class="fair-print">Request fingerprint <code>{views.esc(ver["fingerprint"])}</code></p></div>')


def _answered_line(who, mode) -> str:
    """Which device answered a verified roll, and how it chose to play
    (``mode``, in words); it names a device, it proves no one."""
    if not who:
        return ""
    return (f'<p class="fair-who">Answered by <strong>{views.esc(who.get("name") or "a device with no name")}'
            f'</strong> (device <code>{views.esc(who.get("fingerprint", ""))}</code>)'
            f'{views.esc(f"; chose to {mode}" if mode else "")}. This names a device; '
            'it does not prove who held it.</p>')


def _gm_verb(verb: str) -> bool:
    """A tray button that acts for the GM's side: the opponent's, or the
    hit location the GM rolls (Milhamah's ``…:opponent`` verbs)."""
    return verb.endswith(":opponent") or verb == "hit_location"


def keeps_step(v: dict, verb: str) -> bool:
    """Whether a tray step button stays on this side's page now: the
    player's own steps on the player's turn, the GM's (the opponent's
    side) on the GM's. Any other button is taken away.

    >>> v = {"role": "player", "player_may_step": True, "gm_may_step": False}
    >>> keeps_step(v, "reroll"), keeps_step(v, "reroll:opponent")
    (True, False)
    >>> keeps_step({**v, "role": "gm", "gm_may_step": True}, "reroll:opponent")
    True
    """
    if v["role"] == "player":
        return bool(v.get("player_may_step")) and not _gm_verb(verb)
    return bool(v.get("gm_may_step"))


#: The link's kind (``share.FAIR_KINDS``) -> what to do with it.
_SEND = {
    ("gm", "q"): "Send this request to {player} (by chat, mail, or let them scan the code). "
                 "Your page keeps the secret it commits to.",
    ("gm", "d"): "Send the dice to {player}: their page shows them and offers their steps.",
    ("player", "a"): "Send this back to the GM. Nobody knows the dice yet: they come from this "
                     "link and the GM's secret together.",
    ("gm", "v"): "The final link: send it to {player} and the table. Whoever opens it sees the "
                 "roll verified.",
    ("player", "v"): "The final link: anyone who opens it sees the roll verified.",
}

#: The player's links after the answer, by the move they carry (``fair.view``'s ``sent``).
_PLAYER_SENT = {
    "st": "Send this back to the GM. Nobody knows the dice yet: the GM's page plays your turn "
          "{how} and sends the final link.",
    "sx": "Send this back to the GM. Nobody knows this step's dice yet: they come from this link "
          "and the GM's secret together.",
    "sa": "Send this back to the GM: its page plays the rest of your turn by the advice, from "
          "dice nobody knows yet.",
    "e": "Send this to the GM: your turn is over, and the GM's page takes its own step or "
         "reveals the roll.",
    "s0": "Send this back to the GM: the GM's step is rolled from it; nobody knows those dice yet.",
}


def send_text(role: str, link: str, player: str, v=None) -> str:
    """The words above a fair-roll link in the share dialog; ``v`` (the
    request's view) says which move the link carries and who answered.

    >>> send_text("gm", "v1.d.xyz", "Dana")
    'Send the dice to Dana: their page shows them and offers their steps.'
    """
    v = v or {}
    kind = link.split(".")[1] if link.count(".") >= 2 else ""
    text = _link_words(role, kind, player, v)
    who = v.get("answered_by")
    if role == "gm" and kind in ("d", "v") and who:
        text = _not_them(who) + text
    return text


def _link_words(role: str, kind: str, player: str, v: dict) -> str:
    """What to do with a link of ``kind``: a player's link after the answer
    by the move it carries (``_PLAYER_SENT``), any other by its kind."""
    sent = v.get("sent", "")
    if role == "player" and kind == "a" and sent in _PLAYER_SENT:
        how = "by the advice" if v.get("mode") == "advice" else "with no steps"
        return _PLAYER_SENT[sent].format(how=how)
    return _SEND.get((role, kind), "Send this link on.").format(player=player)


def _not_them(who: dict) -> str:
    """The GM's warning before sending dice: who answered, and what to do
    if that is the wrong person."""
    return (f"Answered by {who.get('name') or 'a device with no name'} ({who['fingerprint']}): "
            f"not them? Do not send this: close it and tap “Void and ask again”. ")


def _row_buttons(v: dict) -> str:
    out = [_button("open", "Open", v)]
    if v.get("link"):
        out.append(_button("send", "Send again", v))
    if v["role"] == "gm" and v["status"] not in ("revealed", "voided") and v["last"] in ("d", "e"):
        out.append(_button("reveal", "Reveal", v))
    out.append(_button("delete", "Delete", v))
    return "".join(out)


def row(v: dict, now=0) -> str:
    """One row of the Requests list: who, what, where it stands, the
    fingerprint, and its buttons."""
    who = "You asked" if v["role"] == "gm" else "Asked of you"
    return (f'<li class="request{" is-overdue" if v.get("overdue") else ""}" '
            f'data-request="{views.esc(v["role"])}:{views.esc(v["rid"])}">'
            f'<span class="r-head"><strong>{views.esc(v["player"])}</strong> · {views.esc(_what(v))}</span>'
            f'<span class="r-status" data-status="{views.esc(v["status"])}"><b class="r-badge">'
            f'{views.esc(v["status"])}</b> {views.esc(state_words(v, now))}</span>'
            f'<span class="r-meta">{who} · fingerprint <code>{views.esc(v["fingerprint"])}</code></span>'
            f'<span class="r-buttons">{_row_buttons(v)}</span></li>')


def requests_list(views_: list, now=0) -> str:
    """The Requests list, newest first (empty: nothing)."""
    ordered = sorted(views_, key=lambda v: -float(v.get("updated") or 0))
    return "".join(row(v, now) for v in ordered)
