"""What the page shows of a fair roll at a distance (issue 15): the panel
above a tab's dice while a request is on show, a row of the Requests list,
the words beside a link to send, which of the tray's step buttons a side
may use. Pure: every function takes ``fair.view`` (or a verified view) and
returns HTML with every text escaped, or plain words. ``main.py`` puts the
HTML in the page and routes the buttons (``data-fair``) to ``fair``.

>>> v = {"role": "player", "status": "received", "last": "q", "player": "Dana <b>",
...      "label": "", "title": "Jadeclaw", "fingerprint": "3f2a-9c1b", "rid": "0123456789ab",
...      "overdue": False, "updated": 0, "gm_action": None, "player_may_step": False,
...      "gm_may_step": False, "link": None}
>>> "Dana &lt;b&gt;" in panel(v) and 'data-fair="answer"' in panel(v)
True
"""

from __future__ import annotations

import views

__all__ = ["panel", "row", "requests_list", "verified_panel", "keeps_step", "send_text",
           "state_words", "DAY_MS"]

DAY_MS = 24 * 3600 * 1000

#: (role, the transcript's last move) -> where the roll stands, in words.
_WORDS = {
    ("gm", "q"): "Waiting for {player} to open the request and press Roll.",
    ("gm", "s"): "{player}'s answer is in: the dice are being rolled.",
    ("gm", "d"): "{player}'s turn: a step, or Done.",
    ("gm", "e"): "Your turn: the opponent's step, or Reveal.",
    ("gm", "g"): "Waiting for {player}'s page to let your step be rolled.",
    ("player", "q"): "Press Roll: your dice come from your page and the GM's secret together.",
    ("player", "s"): "Sent: waiting for the GM's page to send the dice.",
    ("player", "d"): "Your turn: take a step with the buttons below, or press Done.",
    ("player", "e"): "Done: waiting for the GM's step or the final link.",
    ("player", "g"): "The GM asks to roll its step: press Let the GM roll.",
}


def state_words(v: dict, now=0) -> str:
    """Where the roll stands, in plain words (a sentence)."""
    if v["status"] in ("revealed", "verified"):
        return "Fair roll, verified ✓"
    words = _WORDS[(v["role"], v["last"])].format(player=v["player"])
    if v.get("overdue"):
        days = max(1, int((now - v.get("updated", 0)) // DAY_MS))
        words += (f" Open for {days} day{'s' if days != 1 else ''}: the GM has not revealed this roll yet;"
                  " you can ask for the final link.")
    return words


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


def _player_buttons(v: dict) -> list:
    if v["last"] == "q":
        return [_button("answer", "Roll", v, "fair-main")]
    if v["last"] == "g":
        return [_button("answer", "Let the GM roll", v, "fair-main")]
    if v["last"] == "d":
        return [_button("done", "Done", v, "fair-main")]
    return []


def _gm_buttons(v: dict) -> list:
    if v["last"] == "e":
        return [_button("reveal", "Reveal", v, "fair-main")]
    if v["last"] == "d":
        return [_button("reveal", "Reveal now (ends the roll here)", v)]
    return []


def _buttons(v: dict) -> str:
    out = []
    if v["status"] not in ("revealed", "verified"):
        out = _player_buttons(v) if v["role"] == "player" else _gm_buttons(v)
    if v.get("link"):
        out.append(_button("send", "Send the final link" if v["status"] in ("revealed", "verified")
                           else "Send again", v))
    out.append(_button("leave", "Close", v))
    return "".join(out)


def panel(v: dict, now=0, note: str = "") -> str:
    """The panel above the dice while a request is on show in its tab."""
    done = v["status"] in ("revealed", "verified")
    state = state_words(v, now)
    note = "" if note == state else note  # a note that only repeats the state is said once
    return (f'<div class="fair-panel{" is-verified" if done else ""}" data-fair-panel '
            f'data-fair-status="{views.esc(v["status"])}">'
            f'<p class="fair-title">{views.esc(_heading(v))}</p>'
            f'<p class="fair-state" role="status">{views.esc(state)}</p>'
            f'{f"<p class=fair-note>{views.esc(note)}</p>" if note else ""}'
            f'<p class="fair-print">Request fingerprint <code>{views.esc(v["fingerprint"])}</code>'
            f' (the same on both pages)</p>'
            f'<p class="fair-buttons">{_buttons(v)}</p></div>')


def verified_panel(ver: dict) -> str:
    """The panel over a final link opened by anyone (a third party)."""
    early = (" The GM ended the roll while the player could still take a step."
             if ver.get("ended_early") else "")
    label = f" — {ver['label']}" if ver.get("label") else ""
    steps = ver.get("steps", 0)
    return ('<div class="fair-panel is-verified" data-fair-panel data-fair-status="verified">'
            f'<p class="fair-title">Fair roll, verified ✓ — {views.esc(ver["player"])}{views.esc(label)}</p>'
            '<p class="fair-state">The GM\'s secret matches the commitment in the request; every die '
            f'follows from it and the player\'s seeds ({steps} step{"s" if steps != 1 else ""} after the '
            f'roll), and the outcome is worked out again here.{views.esc(early)}</p>'
            f'<p class="fair-print">Request fingerprint <code>{views.esc(ver["fingerprint"])}</code></p></div>')


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


def send_text(role: str, link: str, player: str) -> str:
    """The words above a fair-roll link in the share dialog.

    >>> send_text("gm", "v1.d.xyz", "Dana")
    'Send the dice to Dana: their page shows them and offers their steps.'
    """
    kind = link.split(".")[1] if link.count(".") >= 2 else ""
    return _SEND.get((role, kind), "Send this link on.").format(player=player)


def _row_buttons(v: dict) -> str:
    out = [_button("open", "Open", v)]
    if v.get("link"):
        out.append(_button("send", "Send again", v))
    if v["role"] == "gm" and v["status"] != "revealed" and v["last"] in ("d", "e"):
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
