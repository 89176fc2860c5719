"""The live table's page wiring (docs/LIVE-TABLE.md): the Table dialog, the join
codes, the channels (``static/js/rtc.mjs`` through ``window.diceRtc``) and
the table log. Every decision about a link or a message is ``livetable``'s
(pure); this module only moves text between it, the DOM and the channels.

The page calls four hooks: ``main`` calls ``install(api)`` at start and
``open_fragment`` for a URL fragment (True when it was a join code);
``history`` calls ``on_history`` when an entry goes into the roll history,
and ``fairpanel`` ``route_fair`` before a fair-roll link is shown to be
copied (True when it went over the channel instead).
"""

import asyncio
import traceback

import rules
from table import livetable as lt

#: The browser's, set by ``install``: importing this module touches nothing
#: of the browser (the start-up bytecode and the snapshot import it in a
#: Worker or Node, where there is no page).
window = document = create_proxy = None

TABLE_KEY = "dice-table/table"
DEVICE_KEY = "dice-table/device"
STUN_KEY = "dice-table/stun"

#: The table as ``livetable`` keeps it (None: this device is at no table);
#: each channel's status by peer key; the seat on offer; the roll id each
#: tab's last roll went under (so its steps keep it).
T = {"table": None, "status": {}, "offer": None, "last": {}, "refused": 0, "api": {}}
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


# ---------------------------------------------------------------- storage

def save():
    try:
        if T["table"] is None:
            window.localStorage.removeItem(TABLE_KEY)
        else:
            window.localStorage.setItem(TABLE_KEY, lt.dump(T["table"]))
    except Exception:
        say("The browser refused to store the table log (storage full?); it is kept until you close the page.",
            "warning")


def load():
    try:
        text = window.localStorage.getItem(TABLE_KEY)
    except Exception:
        return
    table, bad = lt.load(str(text) if text else "")
    T["table"] = table
    if table is not None:
        T["status"] = {p["key"]: "away" for p in table["peers"]}
    if bad:
        say(f"{bad} table-log entr{'y' if bad == 1 else 'ies'} could not be read again and were left out.",
            "warning")


def device_id():
    text = window.localStorage.getItem(DEVICE_KEY)
    if text and lt.ID_RE.match(str(text)):
        return str(text)
    dev = lt.token(entropy, 9)
    window.localStorage.setItem(DEVICE_KEY, dev)
    return dev


def stun():
    el = q("#table-stun")
    text = str(el.value).strip() if el else ""
    return text if text.startswith(("stun:", "stuns:")) else ""


# ---------------------------------------------------------------- drawing

def render():
    table = T["table"]
    q("#table-open").classList.toggle("at-table", table is not None)
    host = table is not None and table["role"] == "host"
    q("#table-host").hidden = not host
    # a phone's answer code is needed only until its channel opens
    q("#table-player").hidden = table is None or host or T["status"].get("host") == "open"
    q("#table-start").hidden = table is not None
    q("#table-leave").hidden = table is None
    if table is None:
        q("#table-peers").innerHTML = ""
        q("#table-log").innerHTML = ""
        q("#table-status").textContent = "This device is at no table."
        return
    q("#table-peers").innerHTML = "".join(lt.peer_row(p, T["status"].get(p["key"], "away"), host)
                                          for p in table["peers"])
    n_open = sum(1 for s in T["status"].values() if s == "open")
    q("#table-status").textContent = (
        f"{table['name']}'s table: {len(table['peers'])} phone(s), {n_open} connected." if host
        else f"At {table['host']}'s table as {table['name']}: "
             + {"open": "connected.", "joining": "waiting for the tablet to read your answer."}.get(
                 T["status"].get("host"), "not connected."))
    render_log()


def render_log():
    summary = T["api"]["summary"]
    items = []
    for e in T["table"]["log"][:100]:
        try:
            result = rules.replay(e["y"], e["p"], e["g"])
        except Exception:
            result = None
        items.append(lt.log_item(e, result, rules.TITLES[e["y"]], summary(result) if result else ""))
    q("#table-log").innerHTML = "".join(items)
    q("#table-log-count").textContent = str(len(T["table"]["log"]))


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
    T["status"] = {}
    save()
    render()
    spawn(make_offer())


def leave_table(_=None):
    table = T["table"]
    if table is None or not window.confirm("Leave this table? Its log on this device is deleted."):
        return
    for p in table["peers"]:
        rtc().close(rkey(p["key"]))
    if T["offer"] is not None:
        rtc().close(rkey(T["offer"]))
    T.update(table=None, status={}, offer=None)
    save()
    render()


async def make_offer():
    """A fresh seat on offer: its code and link (one RTCPeerConnection each)."""
    table, meta = lt.next_offer_meta(T["table"])
    T["table"], T["offer"] = table, meta["s"]
    save()
    box = q("#table-offer")
    box.removeAttribute("data-link")
    q("#table-offer-qr").textContent = "Preparing the code…"
    sdp = await rtc().offer(rkey(meta["s"]), stun())
    link = lt.encode_join("o", lt.parse_sdp(str(sdp)), meta)
    await draw_code("#table-offer", T["api"]["page_url"]() + "#" + link, "data-table-offer")


async def take_answer(text):
    """The tablet takes a phone's answer link (pasted, scanned or opened)."""
    got = lt.decode_join(text)
    if got["kind"] != "a":
        raise lt.TableError("That is a table's own code, not a player's answer.")
    if T["table"] is None or T["table"]["role"] != "host":
        raise lt.TableError("This device hosts no table: open Table and start one first.")
    before = T["table"]
    T["table"], p = lt.add_peer(before, got)  # before the channel can open
    T["status"][p["key"]] = "joining"
    try:
        await rtc().accept(rkey(p["key"]), lt.build_sdp(got["desc"], "a"))
    except Exception:
        T["table"] = before
        T["status"].pop(p["key"], None)
        raise lt.TableError("This answer does not fit the code on show (an old one?): "
                            "ask the player to scan the new code.") from None
    if T["offer"] == p["key"]:
        T["offer"] = None
    save()
    render()
    q("#table-paste").value = ""
    q("#table-paste-error").textContent = ""
    if T["offer"] is None:
        await make_offer()


async def join(offer, name):
    """The phone's side: its answer to the tablet's offer, as a code."""
    meta = offer["meta"]
    old = T["table"]
    dev = device_id()
    if old is not None and old["role"] == "player" and old["table"] == meta["t"]:
        table = {**old, "slot": meta["s"], "name": lt.name(name, "player's name"), "host": meta["g"],
                 "peers": [lt.link_state("host", meta["g"], "")]}
    else:
        table = lt.new_player(offer, name, dev)
    T["table"], T["status"] = table, {"host": "joining"}
    save()
    open_dialog()
    sdp = await rtc().answer("host", lt.build_sdp(offer["desc"], "o"), stun())
    link = lt.encode_join("a", lt.parse_sdp(str(sdp)), {"t": meta["t"], "s": meta["s"], "w": table["name"], "d": dev})
    q("#table-answer-help").textContent = (f"Show this code to {meta['g']}'s tablet (Table → Scan an answer), "
                                           "or send the link.")
    await draw_code("#table-answer", T["api"]["page_url"]() + "#" + link, "data-table-answer")


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
    name = T["api"]["roller"]()
    if name:
        spawn(join(got, name))
    else:
        T["pending_offer"] = got
        open_dialog()
        q("#table-name-box").hidden = False
        q("#table-name").focus()
    return True


def join_with_name(_=None):
    got = T.get("pending_offer")
    text = " ".join(str(q("#table-name").value).split())
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

def on_rtc(key_text, kind, data):
    try:
        key = pkey(str(key_text))
        if T["table"] is None:
            return
        HANDLERS[str(kind)](key, str(data))
    except Exception:
        window.console.warn("dice table: table event: " + traceback.format_exc())


def on_open(key, _data):
    if lt.peer(T["table"], key) is None:
        rtc().close(rkey(key))
        return
    T["table"] = lt.reconnected(T["table"], key)
    T["status"][key] = "open"
    if T["table"]["role"] == "player":
        for e in lt.outbox_entries(T["table"]):  # rolls made while away
            post(key, "roll", e=lt.wire(e))
        say(f"Joined {T['table']['host']}'s table: your rolls show on the tablet.", "info")
    else:
        p = lt.peer(T["table"], key)
        say(f"{p['name']} joined the table.", "info")
    save()
    render()


def on_close(key, _data):
    was = T["status"].get(key)
    T["status"][key] = "away"
    render()
    if T["table"]["role"] == "player" and was == "open":
        say("The channel to the table closed. Your rolls are kept and sent when you rejoin: "
            "scan the table's code again.", "warning")


def on_resume(key, _data):
    """The same channel back after a blink of the network (nothing lost)."""
    T["status"][key] = "open"
    if T["table"]["role"] == "player":
        for e in lt.outbox_entries(T["table"]):  # rolls made during the blink
            post(key, "roll", e=lt.wire(e))
        save()
    render()


def on_failed(key, data):
    if T["status"].get(key) in ("open", "away"):  # it was connected: lost, not refused
        on_close(key, data)
        return
    T["status"][key] = "failed"
    render()
    say(f"The table's channel could not open ({data}). The devices may not see each other on this network "
        "(or need a STUN server): use “Ask a player to roll”, the fair roll by links, instead.", "error")


def on_message(key, data):
    try:
        T["table"], events = lt.receive(T["table"], key, data, now())
    except lt.TableError as e:
        T["refused"] += 1
        q("#table-dialog").setAttribute("data-refused", str(T["refused"]))
        say(str(e), "warning")
        return
    for ev in events:
        EVENTS[ev[0]](key, *ev[1:])
    save()


def on_entry(key, entry, result, fresh):
    table = T["table"]
    if table["role"] == "host":
        post(key, "ack", id=entry["id"])
        if fresh:
            for p in table["peers"]:
                if p["key"] != key and T["status"].get(p["key"]) == "open":
                    post(p["key"], "roll", e=lt.wire(entry), by=entry["by"])
    render_log()


def on_push(_key, system, spec, label):
    T["api"]["open_setup"](system, spec)
    what = f" ({label})" if label else ""
    say(f"{T['table']['host']} sent a {rules.TITLES[system]} roll{what}: the form is filled in; press Roll.", "info")
    q("#table-dialog").close()


def on_fair(_key, link):
    q("#table-dialog").close()
    T["api"]["open_fair_link"](link)


HANDLERS = {"open": on_open, "close": on_close, "failed": on_failed, "message": on_message, "resume": on_resume}
EVENTS = {"entry": on_entry, "ack": lambda *_: None, "push": on_push, "fair": on_fair}


def post(key, kind, **fields):
    """Send one message; False if that channel is not open."""
    if T["status"].get(key) != "open":
        return False
    table, text = lt.send(T["table"], key, kind, **fields)
    if not rtc().send(rkey(key), text):
        return False
    T["table"] = table
    return True


# ---------------------------------------------------------------- hooks from main

def on_history(entry, result):
    """A roll made or verified here: into the table log, and over the
    channels (a player's to the tablet, the tablet's to every phone)."""
    table = T["table"]
    if table is None or result is None:
        return
    if entry.get("source") == "fair":
        T["table"], _ = lt.fair_entry(table, {**entry, "result": result})
    elif entry.get("source") == "here":
        system = result["system"]
        T["table"], e = lt.own_entry(table, result, entry.get("label", ""), entry.get("time", 0),
                                     T["last"].get(system))
        T["last"][system] = e["id"]
        for p in T["table"]["peers"]:
            post(p["key"], "roll", e=lt.wire(e))
    else:
        return
    save()
    render_log()


def route_fair(st, link):
    """A fair-roll link to send: over the channel when the other side is
    at this table and connected (True), else the page shows it to copy."""
    table = T["table"]
    if table is None:
        return False
    if table["role"] == "player":
        key = "host" if st["role"] == "player" else None
    else:
        who = st["msgs"][0]["w"]
        key = next((p["key"] for p in table["peers"] if p["name"] == who and st["role"] == "gm"), None)
    if key is None or not post(key, "fair", f=link):
        return False
    save()
    say(f"Sent over the table to {table['host'] if key == 'host' else st['msgs'][0]['w']}.", "info")
    return True


def push_setup(el):
    key = int(str(el.dataset.tablePush))
    got = T["api"]["current_spec"]()
    if got is None:
        return
    system, spec = got
    p = lt.peer(T["table"], key)
    if post(key, "push", y=system, p=spec, l=str(q("#table-push-label").value)[:lt.LABEL_MAX]):
        save()
        say(f"Sent the {rules.TITLES[system]} roll on show to {p['name']}.", "info")
    else:
        say(f"{p['name']} is not connected: nothing was sent.", "warning")


def ask_fair(el):
    p = lt.peer(T["table"], int(str(el.dataset.tableFair)))
    q("#table-dialog").close()
    T["api"]["ask_player"](p["name"])


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
    ("[data-table-push]", push_setup),
    ("[data-table-fair]", ask_fair),
    ("#table-start", start_table),
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
    global window, document, create_proxy
    from pyodide.ffi import create_proxy
    from pyscript import document, window

    T["api"] = api
    for target, name, fn in ((q("#table-dialog"), "click", on_click), (q("#table-paste"), "keydown", on_paste_key),
                             (q("#table-open"), "click", open_dialog)):
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

