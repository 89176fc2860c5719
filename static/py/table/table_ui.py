"""The live table's page wiring (docs/LIVE-TABLE.md): the Table dialog, the join codes, the
channels (``static/js/rtc.mjs`` through ``window.diceRtc``) and the table
log. Every decision about a link, a message, a seat or what to send when
is ``livetable``'s (pure); this module only moves text between it, the
DOM, the channels and the clock (it calls ``livetable.pump`` when a
message came, a roll was made, or the time ``pump`` asked for is up).

The page calls four hooks: ``main`` calls ``install(api)`` at start and
``open_fragment`` for a URL fragment (True when it was a join code);
``history`` calls ``on_history`` when an entry goes into the roll history
(``step``: a step of the turn on show), and ``fairpanel`` ``route_fair``
before a fair-roll link is shown to be copied (True when it went over the
channel instead). This device's id and key are ``shell.device``'s.
"""

import asyncio
import traceback

import rules
from shell import device, names
from shell.page import read_kept, write_store
from table import livetable as lt
from table import relay

#: The browser's, set by ``install``: importing this module touches nothing
#: of the browser (the start-up bytecode and the snapshot import it in a
#: Worker or Node, where there is no page).
window = document = create_proxy = create_once = None

TABLE_KEY = "dice-table/table"
STUN_KEY = "dice-table/stun"
#: How long a connection that was turned away or pushed out stays open for
#: its last message to leave.
CLOSE_AFTER_MS = 1500
#: How long a new channel has to sit down (answer the tablet's challenge).
GREETING_MS = 30_000
#: How long an offer passed on through another phone waits for its answer.
RELAY_WAIT_MS = 45_000
#: A channel to another phone is ``rtc.mjs``'s key MESH + that phone's name.
MESH = relay.MESH_KEY

#: The table as ``livetable`` keeps it (None: this device is at no table);
#: the channels that could not open; the seat on offer and each offer's
#: certificate fingerprint; refusals so far; the pump's timer; on a phone,
#: why the tablet ended the channel.
T = {"table": None, "failed": set(), "offer": None, "offer_fp": {}, "refused": 0, "api": {}, "timer": None,
     "wake": None, "bye": "", "save_due": False, "pending_offer": None, "secret": False,
     "mesh": set(), "mesh_offered": set(), "mesh_times": {}, "via": "", "passing": False}
_proxies = []


def q(selector):
    el = document.querySelector(selector)
    return el if el else None


def rtc():
    return window.diceRtc


def rkey(key):
    """The channel's key in rtc.mjs: the seat number, or "host"."""
    return str(key)


def pkey(text):
    """A peer key back from rtc.mjs."""
    return "host" if text == "host" else int(text)


def now():
    return window.Date.now()


def say(message, kind="info"):
    T["api"]["banner"](message, kind)


def entropy(n):
    buf = window.Uint8Array.new(n)
    window.crypto.getRandomValues(buf)
    return bytes(buf.to_py())


def later(fn, ms):
    """``fn()`` after ``ms`` (its proxy freed once called)."""
    return window.setTimeout(create_once(lambda *_: fn()), max(0, int(ms)))


# ---------------------------------------------------------------- storage

#: The stored table as this tab last read or wrote it: each write merges
#: with what another tab of the page stored since (``records.synced``).
KEPT = lt.synced_table()


def stored():
    text = window.localStorage.getItem(TABLE_KEY)
    return str(text) if text else None


def save():
    """Store the table soon (one write for a burst of messages)."""
    if not T["save_due"]:
        T["save_due"] = True
        later(flush, 250)


def flush(*_):
    """The table stored, merged first with what another tab of the page
    stored since (``records.synced``: the log by roll)."""
    if not T["save_due"]:
        return
    T["save_due"] = False
    try:
        T["table"], _ = KEPT.merged(T["table"], stored())
    except Exception:  # unreadable or unreachable: this tab's table is stored as it is
        pass
    if T["table"] is None:
        try:
            window.localStorage.removeItem(TABLE_KEY)
        except Exception:
            pass
        KEPT.remember(None, None)
        return
    out = lt.dump(T["table"])
    if write_store(TABLE_KEY, out,
                   "The browser refused to store the table log (storage full?); it is kept until you close the page."):
        KEPT.remember(out, T["table"])


def on_stored(text):
    """Another tab of the page stored the table: its log merged into this one's."""
    if T["table"] is not None:
        T["table"], _ = KEPT.merged(T["table"], text)
        render()


def load():
    """The stored table; a damaged one (or damaged entries) is set aside
    under a backup key with a banner, like every stored key."""
    table, text, _warning = read_kept(TABLE_KEY, lt.load)
    KEPT.remember(text, table)
    T["table"] = table


def stun():
    el = q("#table-stun")
    text = str(el.value).strip() if el else ""
    return text if text.startswith(("stun:", "stuns:")) else ""


# ---------------------------------------------------------------- drawing

def status_of(x):
    """A connection's state for its row (``failed``: its channel never opened)."""
    if x is not None and x["key"] in T["failed"]:
        return "failed"
    return lt.status(T["table"], x, now())


def render():
    table = T["table"]
    host = table is not None and table["role"] == "host"
    mine = lt.link(table, "host") if table is not None and not host else None
    joining = table is None and T["pending_offer"] is not None
    render_parts(table, host, mine, joining)
    render_secret(host)
    q("#table-title").textContent = title(table, host, mine, joining)
    for el in document.querySelectorAll("[data-table-share]"):
        el.hidden = not hasattr(window.navigator, "share")
    rtc().keepAwake(host)
    render_state(table, host, mine, joining)


def render_state(table, host, mine, joining):
    """Where this device stands: invited (joining), at no table, or at one
    (its seats' rows, its status, its log)."""
    if joining:
        q("#table-status").textContent = (f"{T['pending_offer']['meta']['g']} invites you to the table: type "
                                          "your name, then Join.")
    elif table is None:
        render_no_table()
    else:
        q("#table-peers").innerHTML = peer_rows(table, host)
        q("#table-status").textContent = status_words(table, host, mine)
        render_log()


def render_parts(table, host, mine, joining):
    """Which parts of the dialog show: the GM's while hosting, a phone's
    answer code only until its channel opens, Start and Leave."""
    q("#table-open").classList.toggle("at-table", table is not None)
    document.body.classList.toggle("at-table", table is not None)
    q("#table-host").hidden = not host
    q("#table-player").hidden = table is None or host or (mine is not None and mine["state"] != "new")
    q("#table-start").hidden = table is not None or joining
    q("#table-leave").hidden = table is None


def render_no_table():
    """The dialog and feed of a device at no table: empty, saying so."""
    q("#table-peers").innerHTML = ""
    q("#table-log").innerHTML = ""
    q("#table-feed").hidden = True
    q("#table-count").textContent = ""
    q("#table-status").textContent = "This device is at no table."


def render_secret(host):
    """The GM's "Roll in secret" switch: shown while hosting, pressed while on."""
    T["secret"] = T["secret"] and host
    button = q("#table-secret")
    button.hidden = not host
    button.setAttribute("aria-pressed", "true" if T["secret"] else "false")
    document.body.classList.toggle("rolling-secret", T["secret"])


def toggle_secret(_=None):
    T["secret"] = not T["secret"]
    render_secret(T["table"] is not None and T["table"]["role"] == "host")
    say("Your next rolls are secret: the phones see only that you rolled, until you reveal each one."
        if T["secret"] else "Your rolls show on every phone again.", "info")


def reveal(el):
    """The GM shows a secret roll to every phone (they check it against its commitment)."""
    if T["table"] is None:
        return
    T["table"] = lt.reveal(T["table"], str(el.dataset.tableReveal))
    pump_all()
    render_log()
    say("Revealed to the table: each phone checks it against what was rolled.", "info")


def title(table, host, mine, joining):
    """The dialog's title: on a phone joining, whose table it joins."""
    if joining:
        return f"Join {T['pending_offer']['meta']['g']}'s table"
    if table is not None and not host and (mine is None or mine["state"] != "ok"):
        return f"Join {table['host']}'s table"
    return "The live table"


def status_words(table, host, mine):
    if host:
        return host_status(table)
    state = "the tablet ended the connection. " + T["bye"] if T["bye"] else \
        PHONE_STATE.get(status_of(mine), "not connected.")
    return f"At {table['host']}'s table as {table['name']}: {state}"


#: A phone's connection to the tablet in words.
PHONE_STATE = {"open": "connected.", "joining": "waiting for the tablet to read your answer.",
               "stalled": "not answering: your rolls wait until it does.", "failed": "could not connect."}


def host_status(table):
    """The tablet's status: its phones, how many are connected, and when
    none is, how the others come back."""
    n_open = sum(1 for s in table["seats"] if status_of(lt.seat_link(table, s["device"])) == "open")
    back = (" One player scans this code; the others whose page is still open come back through "
            "that phone." if len(table["seats"]) > 1 and n_open == 0 else "")
    return f"{table['name']}'s table: {len(table['seats'])} phone(s), {n_open} connected.{back}"


def peer_rows(table, host):
    if not host:
        s = table["seats"][0]
        return lt.peer_row(s["name"], "", status_of(lt.link(table, "host")), False, lt.waiting(table, "host"))
    rows = [lt.peer_row(s["name"], s["device"], status_of(lt.seat_link(table, s["device"])), True,
                        lt.waiting(table, s["device"])) for s in table["seats"]]
    rows += [lt.peer_row(x["wanted"], "", status_of(x), True) for x in table["links"]
             if not x["device"] and x["state"] not in ("gone",)]
    return "".join(rows)


#: Where the feed stands beside the tab (app.css says the same).
FEED_MEDIA = "(min-width: 900px) and (orientation: landscape)"
#: Entries in the feed, and in the dialog's log.
FEED_SIZE, LOG_SHOWN = 20, 100
#: How long a phone's notice of another's roll stays.
NOTICE_MS = 4000
#: Each log entry's replayed result, by (roller, id, stages): a burst of
#: messages draws the log many times, and a roll is replayed once.
_REPLAYED = {}


def replayed(e):
    key = (e["by"], e["id"], len(e["g"]))
    if key not in _REPLAYED:
        try:
            _REPLAYED[key] = rules.replay(e["y"], e["p"], e["g"])
        except Exception:
            _REPLAYED[key] = None
        if len(_REPLAYED) > 4 * lt.LOG_CAP:
            _REPLAYED.clear()
    return _REPLAYED[key]


def log_html(entries, open_turns):
    summary = T["api"]["summary"]
    items = []
    for e in entries:
        if e["how"] == "hidden":
            items.append(lt.log_item(e, None, "", ""))
            continue
        result = replayed(e)
        so_far = (e["by"], e["id"]) in open_turns and T["api"]["in_progress"](result)
        items.append(lt.log_item(e, result, rules.TITLES[e["y"]], summary(result) if result else "", so_far))
    return "".join(items)


def render_log():
    """The dialog's log, the feed beside the tab and the count on the Table button."""
    log = T["table"]["log"]
    open_turns = lt.turns_open(log)
    html = log_html(log[:LOG_SHOWN], open_turns)
    q("#table-log").innerHTML = html
    q("#table-log-count").textContent = str(len(log))
    q("#table-count").textContent = str(len(log)) if log else ""
    q("#table-feed-list").innerHTML = log_html(log[:FEED_SIZE], open_turns) if log[:FEED_SIZE] else ""
    q("#table-feed").hidden = not log


def show_notice(entry, result):
    """A brief notice of another's roll where the feed is not in view."""
    if window.matchMedia(FEED_MEDIA).matches or (result is None and entry["how"] != "hidden"):
        return
    toast = q("#table-toast")
    toast.textContent = (lt.notice(entry, "", "") if result is None else
                         lt.notice(entry, T["api"]["outcome_name"](result), rules.TITLES[entry["y"]]))
    toast.hidden = False
    T["notice"] = T.get("notice", 0) + 1
    mine = T["notice"]
    later(lambda: setattr(toast, "hidden", True) if T["notice"] == mine else None, NOTICE_MS)


async def draw_code(box_id, url, marker):
    box = q(box_id)
    box.setAttribute(marker, "")
    box.setAttribute("data-link", url)
    q(box_id + "-link").value = url
    try:
        from links import qr

        await qr.load()
        q(box_id + "-qr").innerHTML = qr.svg(url)
    except Exception:
        q(box_id + "-qr").textContent = "The QR code could not be drawn; send the link instead."
        window.console.warn("dice table: QR: " + traceback.format_exc())


# ---------------------------------------------------------------- joining

def open_dialog(_=None):
    dialog = q("#table-dialog")
    if not dialog.open:
        dialog.showModal()
    render()
    table = T["table"]
    if table is not None and table["role"] == "host" and T["offer"] is None:
        spawn(make_offer())


def start_table(_=None):
    name = T["api"]["roller"]() or "GM"
    T["table"] = lt.new_host(name, entropy)
    T["failed"] = set()
    save()
    render()
    spawn(make_offer())


def leave_table(_=None):
    table = T["table"]
    if table is None or not window.confirm("Leave this table? Its log on this device is deleted."):
        return
    for x in table["links"]:
        rtc().close(rkey(x["key"]))
    for slot in list(T["offer_fp"]):
        rtc().close(rkey(slot))
    close_mesh()
    T.update(table=None, failed=set(), offer=None, offer_fp={}, bye="")
    save()
    render()
    T["api"]["seat_changed"]()


async def make_offer():
    """A fresh seat on offer: its code and link (one RTCPeerConnection each)."""
    table, meta = lt.next_offer_meta(T["table"])
    T["table"], T["offer"] = table, meta["s"]
    save()
    box = q("#table-offer")
    box.removeAttribute("data-link")
    q("#table-offer-qr").textContent = "Preparing the code…"
    sdp = await rtc().offer(rkey(meta["s"]), stun())
    desc = lt.parse_sdp(str(sdp))
    T["offer_fp"][meta["s"]] = desc["f"]
    link = lt.encode_join("o", desc, meta)
    await draw_code("#table-offer", T["api"]["page_url"]() + "#" + link, "data-table-offer")


async def take_answer(text, passed=False):
    """The tablet takes a phone's answer link (pasted, scanned, opened, or
    ``passed`` back through another phone): a connection for that seat;
    who sits there is settled on the channel."""
    got = lt.decode_join(text)
    fo = answered_offer(got)
    before = T["table"]
    T["table"], x = lt.add_link(before, got, fo)  # before the channel can open
    try:
        await rtc().accept(rkey(x["key"]), lt.build_sdp(got["desc"], "a"))
    except Exception:
        T["table"] = before
        raise lt.TableError("This answer does not fit the code on show (an old one?): "
                            "ask the player to scan the new code.") from None
    if T["offer"] == x["key"]:
        T["offer"] = None
    render()
    if not passed:
        q("#table-paste").value = ""
        q("#table-paste-error").textContent = ""
    if T["offer"] is None:
        await make_offer()


def answered_offer(got):
    """The certificate fingerprint of the offer on show that a decoded
    answer answers (``offer_shown``); refused first when it is no answer
    or this device hosts no table."""
    if got["kind"] != "a":
        raise lt.TableError("That is a table's own code, not a player's answer.")
    if T["table"] is None or T["table"]["role"] != "host":
        raise lt.TableError("This device hosts no table: open Table and start one first.")
    return offer_shown(got)


def offer_shown(got):
    """The fingerprint of the offer on show for an answer's seat ("" when
    none: ``lt.add_link`` says why); an answer for a seat of this table
    offered before a reload (its offer gone) refused."""
    slot = got["meta"]["s"]
    fo = T["offer_fp"].get(slot)
    if fo is None and got["meta"]["t"] == T["table"]["table"] and slot < T["table"]["next_slot"]:
        raise lt.TableError("This answer is for a code this tablet no longer shows (it was reloaded?): "
                            "ask the player to scan the new code.")
    return fo or ""


async def join(offer, who, via=""):
    """The phone's side: its answer to the tablet's offer, as a code; an
    offer another phone passed on (``via``) is answered back through it."""
    meta = offer["meta"]
    old = T["table"]
    table = seat_for(offer, who)
    rtc().close("host")
    if old is None or old["table"] != meta["t"]:
        close_mesh()
    T["table"], T["bye"], T["via"] = table, "", via
    T["failed"].discard("host")
    save()
    T["api"]["seat_changed"]()
    if via:
        render()
    else:
        open_dialog()
    sdp = await rtc().answer("host", lt.build_sdp(offer["desc"], "o"), stun())
    desc = lt.parse_sdp(str(sdp))
    T["table"] = lt.player_link(T["table"], offer["desc"]["f"], desc["f"])
    link = lt.encode_join("a", desc, {"t": meta["t"], "s": meta["s"], "w": T["table"]["name"]})
    if via:
        rtc().send(MESH + via, relay.answer_text(link))
    q("#table-answer-help").textContent = (f"Show this code to {names.isolate(meta['g'])}'s tablet "
                                           "(Table → Scan an answer), or send the link.")
    render()
    await draw_code("#table-answer", T["api"]["page_url"]() + "#" + link, "data-table-answer")


def seat_for(offer, who):
    """This phone's side of the table ``offer`` is of: the one it sits at
    already (its log, queue and seat kept), or a new one, as ``who``."""
    meta = offer["meta"]
    me = device.this_device(who)
    tk = device.table_key(me, meta["t"])
    old = T["table"]
    if old is not None and old["role"] == "player" and old["table"] == meta["t"]:
        return lt.join_again(old, offer, who, me["id"], tk)
    return lt.new_player(offer, who, me["id"], tk)


def open_fragment(frag):
    """A join code in the URL: an offer joins this phone (asking its name
    first if it has none); an answer is taken by the tablet."""
    if not lt.is_join_link(frag):
        return False
    window.history.replaceState(None, "", T["api"]["page_url"]())
    try:
        got = lt.decode_join(frag)
    except lt.TableError as e:
        say(f"{e} Your own rolls and history are untouched.", "error")
        return True
    if got["kind"] == "a":
        spawn(take_answer(frag), "#table-paste-error")
        open_dialog()
        return True
    if T["table"] is not None and T["table"]["role"] == "host":  # never lose a hosted table's log
        own = got["meta"]["t"] == T["table"]["table"]
        say("That is this table's own join code: show it to the players' phones." if own else
            "This device hosts a table: leave it (Table → Leave this table) before joining another.", "warning")
        return True
    join_offer(got)
    return True


def join_offer(got):
    """A phone opened a table's offer: it joins under the roller's name,
    or asks for a name first."""
    name = T["api"]["roller"]()
    if name:
        spawn(join(got, name))
    else:
        T["pending_offer"] = got
        open_dialog()
        q("#table-name-box").hidden = False
        q("#table-name").focus()


def join_with_name(_=None):
    got = T.get("pending_offer")
    text = names.clean(str(q("#table-name").value))
    if got is None or not text:
        q("#table-name-error").textContent = "Type your name: the table shows your rolls under it."
        return
    T["api"]["set_roller"](text)
    q("#table-name-box").hidden = True
    T["pending_offer"] = None
    spawn(join(got, text))


def spawn(coro, error_at=None):
    """Run a coroutine; a refusal goes to the field or banner, a bug to the console."""
    async def run():
        try:
            await coro
        except lt.TableError as e:
            if error_at and q(error_at):
                q(error_at).textContent = str(e)
            else:
                say(str(e), "error")
        except Exception as e:
            say(f"The table could not do that: {getattr(e, 'message', None) or e}", "error")
            window.console.warn("dice table: table: " + traceback.format_exc())
    asyncio.ensure_future(run())


def on_paste_key(event):
    if event.key == "Enter":
        event.preventDefault()
        q("#table-paste-error").textContent = ""
        spawn(take_answer(str(q("#table-paste").value)), "#table-paste-error")


# ---------------------------------------------------------------- the channels

def pump_all():
    """Send what each open channel may send now, and come back when the
    protocol asks (the sender's bucket, a due acknowledgement, a resend)."""
    table = T["table"]
    if table is None:
        return
    wake = None
    for x in list(table["links"]):
        due = pump_link(x["key"])
        if due is not None:
            wake = due if wake is None else min(wake, due)
    if wake is not None:
        wake_at(wake)
    save()


def pump_link(key):
    """Send what one open channel may send now; when the protocol wants it
    pumped again (None: never, it is closed or its bye has left)."""
    if not rtc().isOpen(rkey(key)):
        return None
    T["table"], texts, due = lt.pump(T["table"], key, now())
    for text in texts:
        rtc().send(rkey(key), text)
    x = lt.link(T["table"], key)
    if x["state"] == "gone" and not x["ctl"]:  # its bye has left: end it
        later(lambda k=key: end_link(k), CLOSE_AFTER_MS)
        return None
    return due


def wake_at(wake):
    """Pump again at ``wake``, unless the timer set already comes sooner
    (a timer in the past has fired: it is set again)."""
    if T["wake"] is None or wake < T["wake"] or T["wake"] < now():
        if T["timer"] is not None:
            window.clearTimeout(T["timer"])
        T["wake"] = wake
        T["timer"] = later(on_timer, wake - now())


def on_timer():
    T["timer"] = T["wake"] = None
    pump_all()
    if T["table"] is not None:
        render()


def end_link(key):
    if T["table"] is None:
        return
    x = lt.link(T["table"], key)
    if x is not None and x["state"] == "gone":
        rtc().close(rkey(key))
        T["table"] = lt.closed(T["table"], key)
        render()


def on_rtc(key_text, kind, data):
    try:
        text = str(key_text)
        if text.startswith(MESH):
            on_mesh(text[len(MESH):], str(kind), str(data))
            return
        key = pkey(text)
        if T["table"] is None:
            return
        HANDLERS[str(kind)](key, str(data))
    except Exception:
        window.console.warn("dice table: table event: " + traceback.format_exc())


def on_open(key, _data):
    if lt.link(T["table"], key) is None:
        rtc().close(rkey(key))
        return
    T["failed"].discard(key)
    T["table"] = lt.opened(T["table"], key, entropy)
    pump_all()
    render()
    if T["table"]["role"] == "host":
        later(lambda: unseated(key), GREETING_MS)


def unseated(key):
    """A channel that has not sat down after ``GREETING_MS`` (it never
    answered the challenge) is ended: it holds no seat and no slot."""
    x = lt.link(T["table"], key) if T["table"] is not None else None
    if x is not None and x["state"] == "hello":
        rtc().close(rkey(key))
        T["table"] = lt.closed(T["table"], key)
        render()
        say(f"A phone ({names.isolate(x['wanted'])}) opened a channel but did not sit down; it was ended.", "warning")


def on_close(key, _data):
    table = T["table"]
    x = lt.link(table, key)
    was = status_of(x) if x is not None else None
    T["table"] = lt.closed(table, key)
    render()
    if table["role"] == "player" and was in ("open", "stalled") and not T["bye"]:
        say("The channel to the table closed. Your rolls are kept and sent when you rejoin: scan the "
            "table's code again, or wait: once another phone is back at the table, this one comes back "
            "through it.", "warning")


def on_resume(key, _data):
    """The same channel back after a blink of the network (nothing lost)."""
    pump_all()
    render()


def on_failed(key, data):
    x = lt.link(T["table"], key)
    if x is not None and x["state"] == "ok":  # it was connected: lost, not refused
        on_close(key, data)
        return
    T["failed"].add(key)
    T["table"] = lt.closed(T["table"], key)
    render()
    say(f"The table's channel could not open ({data}). The devices may not see each other on this network "
        "(or need a STUN server): use “Ask a player to roll”, the fair roll by links, instead.", "error")


def on_message(key, data):
    T["table"], events = lt.receive(T["table"], key, data, now())
    for ev in events:
        EVENTS[ev[0]](key, *ev[1:])
    pump_all()


def on_refused(_key, words):
    T["refused"] += 1
    q("#table-dialog").setAttribute("data-refused", str(T["refused"]))
    render_log()  # a refused reveal marks its hidden roll
    say(words, "warning")


def on_entry(_key, entry, result, fresh):
    if fresh:
        render_log()
        show_notice(entry, result)


def on_joined(key, who, back):
    if T["offer"] == key:
        T["offer"] = None
        spawn(make_offer())
    render()
    say(f"{names.isolate(who)} {'is back at' if back else 'joined'} the table.", "info")
    quietly(pass_offers())


def on_turned_away(_key, words):
    T["refused"] += 1
    q("#table-dialog").setAttribute("data-refused", str(T["refused"]))
    render()
    say(words, "warning")


def on_welcome(_key, who, back):
    T["bye"] = ""
    via = f" (the tablet's code came through {names.isolate(T['via'])}'s phone)" if T["via"] else ""
    T["via"] = ""
    render()
    say(f"{'Back at' if back else 'Joined'} {names.isolate(T['table']['host'])}'s table as {names.isolate(who)}"
        f"{via}: your rolls show on the tablet.", "info")
    T["api"]["seat_changed"]()


def on_bye(_key, words):
    T["bye"] = words
    render()
    say(f"The tablet ended this phone's connection: {words}", "error")


def on_push(_key, system, spec, label):
    T["api"]["open_setup"](system, spec)
    what = f" ({label})" if label else ""
    say(f"{names.isolate(T['table']['host'])} sent a {rules.TITLES[system]} roll{what}: the form is filled in; "
        "press Roll.", "info")
    q("#table-dialog").close()


def on_sheet(key, entry, who):
    """A phone's character, checked at the channel: into the tablet's party
    (``take_sheet`` refuses one that would take the place of a sheet that
    is not that seat's)."""
    refused = T["api"]["take_sheet"](entry, who)
    if refused:
        on_refused(key, refused)


def seated():
    """Whether this device is a phone seated at a table (it can send its
    character there; while away it waits in the queue)."""
    table = T["table"]
    return table is not None and table["role"] == "player" and table["seated"]


def send_sheet(entry):
    """A character from this phone's party, queued for the tablet's; the
    words for the banner (a TableError says why not)."""
    T["table"] = lt.share_sheet(T["table"], entry)
    pump_all()
    gm = names.isolate(T["table"]["host"])
    if lt.seat_link(T["table"], "host") is None:
        return f"{names.isolate(entry['sheet']['name'])} waits to go to {gm}'s table: it is sent when you rejoin."
    return f"Sent {names.isolate(entry['sheet']['name'])} to {gm}'s table, for the tablet's party."


def on_fair(_key, link):
    q("#table-dialog").close()
    T["api"]["open_fair_link"](link)


# ---------------------------------------------------------------- phones linked to each other

def quietly(coro):
    """Run a coroutine whose failure only costs a faster rejoin (a channel
    between phones, an offer passed on): a note in the console, no banner."""
    async def run():
        try:
            await coro
        except Exception:
            window.console.warn("dice table: between phones: " + traceback.format_exc())
    asyncio.ensure_future(run())


def close_mesh():
    for name in T["mesh"]:
        rtc().close(MESH + name)
    T.update(mesh=set(), mesh_offered=set(), mesh_times={})


def on_peers(_key, others):
    """Just seated: a channel to each connected phone this one has none with."""
    for name in others:
        if not rtc().isOpen(MESH + name):
            quietly(mesh_offer(name))


async def mesh_offer(name):
    T["mesh"].add(name)
    T["mesh_offered"].add(name)
    sdp = await rtc().offer(MESH + name, stun())
    send_peer(name, "o", sdp)


def send_peer(name, kind, sdp):
    if T["table"] is not None:
        T["table"] = lt.post(T["table"], "host", "peer", w=name, k=kind, d=lt.parse_sdp(str(sdp)))
        pump_all()


def on_peer(_key, name, kind, desc):
    """Another phone's offer or answer, passed on by the tablet (which
    names it). When both offered at once, the offer of the name that sorts
    first stands."""
    if kind == "a":
        quietly(rtc().accept(MESH + name, lt.build_sdp(desc, "a")))
    elif name not in T["mesh_offered"] or name < T["table"]["name"]:
        T["mesh_offered"].discard(name)
        quietly(mesh_answer(name, desc))


async def mesh_answer(name, desc):
    T["mesh"].add(name)
    sdp = await rtc().answer(MESH + name, lt.build_sdp(desc, "o"), stun())
    send_peer(name, "a", sdp)


def on_mesh(name, kind, data):
    """A channel to another phone: it carries only codes passed on."""
    if T["table"] is None or T["table"]["role"] != "player":
        rtc().close(MESH + name)
        return
    if kind == "open":
        T["mesh_offered"].discard(name)
    elif kind == "message":
        on_mesh_message(name, data)


def on_mesh_message(name, data):
    times, ok = relay.rate_ok(T["mesh_times"].get(name, []), now())
    T["mesh_times"][name] = times
    if not ok:
        return  # a flood from another phone: dropped without a word
    try:
        take_passed(name, relay.parse(data))
    except (relay.RelayError, lt.TableError) as e:
        T["refused"] += 1
        q("#table-dialog").setAttribute("data-refused", str(T["refused"]))
        say(f"From {names.isolate(name)}'s phone: refused {e}; nothing was changed.", "warning")


def take_passed(name, msg):
    """A code another phone (``name``) passed on: the tablet's offer for
    this phone (it joins through that phone), or a phone's answer to pass
    on to the tablet while connected to it."""
    if msg["t"] == "offer":
        got = lt.passed_offer(T["table"], msg["f"], msg["m"])
        if got is not None:
            spawn(join(got, T["table"]["name"], via=name))
    elif lt.link(T["table"], "host") is not None and lt.seat_link(T["table"], "host") is not None:
        T["table"] = lt.post(T["table"], "host", "relay", f=lt.passed_answer(T["table"], msg["f"]))
        pump_all()


def on_relay(_key, to, fragment, tag):
    """The tablet's offer for another seat: passed on to that phone, if this
    one has a channel to it."""
    if rtc().isOpen(MESH + to):
        rtc().send(MESH + to, relay.offer_text(fragment, tag))


def on_relay_answer(_key, fragment):
    spawn(take_answer(fragment, passed=True))


async def pass_offers():
    """On the tablet, once a phone sits down: a fresh offer for each away
    seat, passed on through every connected phone (one at a time)."""
    if T["passing"]:
        return
    T["passing"] = True
    try:
        while T["table"] is not None:
            away, _via = lt.relay_wanted(T["table"])
            if not away:
                break
            await pass_offer(away[0])
    finally:
        T["passing"] = False


async def pass_offer(dev):
    table, meta = lt.next_offer_meta(T["table"])
    T["table"] = table
    sdp = await rtc().offer(rkey(meta["s"]), stun())
    desc = lt.parse_sdp(str(sdp))
    T["offer_fp"][meta["s"]] = desc["f"]
    T["table"] = lt.relay_offer(T["table"], dev, lt.encode_join("o", desc, meta))
    later(lambda: relay_timeout(meta["s"]), RELAY_WAIT_MS)
    pump_all()


def relay_timeout(slot):
    """An offer passed on that no answer came back for: withdrawn (the
    next phone to sit down passes on a new one)."""
    if T["table"] is not None and slot in T["table"]["relay"]:
        T["table"] = lt.relay_over(T["table"], slot)
        T["offer_fp"].pop(slot, None)
        rtc().close(rkey(slot))


HANDLERS = {"open": on_open, "close": on_close, "failed": on_failed, "message": on_message, "resume": on_resume}
EVENTS = {"entry": on_entry, "push": on_push, "fair": on_fair, "sheet": on_sheet, "refused": on_refused, "joined": on_joined,
          "pushed": lambda *_: render(), "turned-away": on_turned_away, "welcome": on_welcome, "bye": on_bye,
          "peers": on_peers, "peer": on_peer, "relay": on_relay, "relay-answer": on_relay_answer}


# ---------------------------------------------------------------- hooks from main

def on_history(entry, result, step=False):
    """A roll made or verified here: into the table log, and queued for
    the others (a player's to the tablet, the tablet's to every phone).
    ``step``: a step of the turn on show (it keeps that roll's id)."""
    table = T["table"]
    if table is None or result is None:
        return
    if entry.get("source") == "fair":
        T["table"], _ = lt.fair_entry(table, {**entry, "result": result})
    elif entry.get("source") == "here":
        T["table"], _ = lt.own_entry(table, result, entry.get("label", ""), entry.get("time", 0), entropy, step,
                                     T["secret"])
    else:
        return
    pump_all()
    render_log()


def route_fair(st, link):
    """A fair-roll link to send: over the channel when the other side sits
    at this table and is connected (True), else the page shows it to copy."""
    table = T["table"]
    if table is None:
        return False
    T["table"], dev = lt.route_fair(table, st["rid"], link.split(".")[1], st["msgs"][0]["w"])
    if dev is None:
        return False
    T["table"] = lt.post(T["table"], dev, "fair", f=link)
    pump_all()
    to = T["table"]["host"] if dev == "host" else lt.seat(T["table"], dev)["name"]
    say(f"Sent over the table to {names.isolate(to)}.", "info")
    return True


def push_setup(el):
    dev = str(el.dataset.tablePush)
    got = T["api"]["current_spec"]()
    s = lt.seat(T["table"], dev)
    if got is None or s is None:
        return
    system, spec = got
    if lt.seat_link(T["table"], dev) is None:
        say(f"{names.isolate(s['name'])} is not connected: nothing was sent.", "warning")
        return
    T["table"] = lt.post(T["table"], dev, "push", y=system, p=spec, l=str(q("#table-push-label").value)[:lt.LABEL_MAX])
    pump_all()
    say(f"Sent the {rules.TITLES[system]} roll on show to {names.isolate(s['name'])}.", "info")


def push_all(_el=None):
    """The roll on show in the tablet's form, to every connected player at once."""
    got = T["api"]["current_spec"]()
    table = T["table"]
    if got is None or table is None:
        return
    system, spec = got
    label = str(q("#table-push-label").value)[:lt.LABEL_MAX]
    sent = [s for s in table["seats"] if lt.seat_link(table, s["device"]) is not None]
    for s in sent:
        T["table"] = lt.post(T["table"], s["device"], "push", y=system, p=spec, l=label)
    pump_all()
    away = len(table["seats"]) - len(sent)
    say(pushed_words(system, len(sent), away), "info" if sent else "warning")


def pushed_words(system, sent, away):
    """What the GM is told of a roll sent to every connected player."""
    return (f"Sent the {rules.TITLES[system]} roll on show to {sent} player(s)"
            + (f"; {away} not connected got nothing." if away else "."))


async def copy_code(el):
    field = q(str(el.dataset.tableCopy))
    note = el.parentElement.querySelector(".table-copied")
    try:
        await window.navigator.clipboard.writeText(str(field.value))
        note.textContent = "Copied."
    except Exception:
        field.select()
        note.textContent = "Copied." if document.execCommand("copy") else "Select the link and copy it."


async def share_code(el):
    from pyodide.ffi import to_js

    field = q(str(el.dataset.tableShare))
    try:
        await window.navigator.share(to_js({"title": "The dice table", "url": str(field.value)},
                                           dict_converter=window.Object.fromEntries))
    except Exception:
        pass  # the share sheet was closed


def on_leave_page(event):
    """Leaving the page while hosting asks first: the phones would each have
    to scan again."""
    table = T["table"]
    if table is not None and table["role"] == "host" and any(
            lt.seat_link(table, s["device"]) for s in table["seats"]):
        flush()
        event.preventDefault()
        event.returnValue = ""


def ask_fair(el):
    s = lt.seat(T["table"], str(el.dataset.tableFair))
    q("#table-dialog").close()
    T["api"]["ask_player"](s["name"])


# ---------------------------------------------------------------- the camera

def scan_answer(_=None):
    video = q("#table-video")
    video.hidden = False
    q("#table-scan-stop").hidden = False

    def got(text):
        text = str(text)
        if not lt.is_join_link(text.split("#", 1)[-1]):
            return False
        stop_scan()
        spawn(take_answer(text), "#table-paste-error")
        return True

    p = create_proxy(got)
    _proxies.append(p)

    async def run():
        try:
            await rtc().scan(video, p)
        except Exception as e:
            stop_scan()
            q("#table-paste-error").textContent = (f"The camera could not be used ({getattr(e, 'message', e)}); "
                                                   "paste the player's link instead.")
    asyncio.ensure_future(run())


def stop_scan(_=None):
    rtc().stopScan()
    q("#table-video").hidden = True
    q("#table-scan-stop").hidden = True


CLICKS = (
    ("[data-table-reveal]", reveal),
    ("[data-table-push]", push_setup),
    ("[data-table-fair]", ask_fair),
    ("#table-start", start_table),
    ("#table-push-all", push_all),
    ("[data-table-copy]", lambda el: spawn(copy_code(el))),
    ("[data-table-share]", lambda el: spawn(share_code(el))),
    ("#table-leave", leave_table),
    ("#table-scan", scan_answer),
    ("#table-scan-stop", stop_scan),
    ("#table-join", join_with_name),
    ("#table-close", lambda _: (stop_scan(), q("#table-dialog").close())),
)


def on_click(event):
    t = event.target
    if not hasattr(t, "closest"):
        return
    for selector, fn in CLICKS:
        el = t.closest(selector)
        if el:
            fn(el)
            return


def install(api):
    """At start: the stored table, the listeners; the channels are gone
    after a reload, so every peer shows as away until it rejoins."""
    global window, document, create_proxy, create_once
    from pyodide.ffi import create_once_callable as create_once
    from pyodide.ffi import create_proxy
    from pyscript import document, window

    T["api"] = api
    for target, name, fn in ((q("#table-dialog"), "click", on_click), (q("#table-paste"), "keydown", on_paste_key),
                             (q("#table-feed"), "click", on_click), (q("#table-open"), "click", open_dialog),
                             (q("#table-secret"), "click", toggle_secret), (window, "pagehide", flush),
                             (window, "beforeunload", on_leave_page)):
        p = create_proxy(fn)
        _proxies.append(p)
        target.addEventListener(name, p)
    keep = create_proxy(lambda _e: window.localStorage.setItem(STUN_KEY, stun()))
    _proxies.append(keep)
    q("#table-stun").addEventListener("change", keep)
    p = create_proxy(on_rtc)
    _proxies.append(p)
    rtc().listen(p)
    try:
        stored = window.localStorage.getItem(STUN_KEY)
        q("#table-stun").value = str(stored) if stored else ""
    except Exception:
        pass
    load()
    render()
    q("#table-open").disabled = False

