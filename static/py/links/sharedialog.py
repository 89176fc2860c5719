"""Share links and their QR code: a link to a tab's setup or to the result
on show (``share``), the share dialog that sends it (Web Share, copy, a QR
code for a phone at the table), and a link opened here.

No state of its own: the dialog shows one link at a time, read from it.
"""

import asyncio
import traceback

import rules
from links import share
from records.setups import fill_system_form
from shell.page import CURRENT, banner, document, hook, js_obj, q, ui_for, window
from tabs.forms import fill_fields, read_fields, read_spec
from tabs.trayview import STATE, set_result


def update_share_buttons():
    st = STATE[CURRENT["system"]]
    q("#share-result").disabled = st["result"] is None or bool(st["fair"])


def page_url():
    loc = window.location
    return str(loc.origin) + str(loc.pathname) + str(loc.search)


def share_setup(_=None):
    system = CURRENT["system"]
    spec = read_spec(system)
    if spec is None:
        return
    open_share_dialog(share.encode_setup(system, spec),
                      f"A link to this {rules.TITLES[system]} roll setup: whoever opens it gets the form filled in.")


def share_result(_=None):
    system = CURRENT["system"]
    result = STATE[system]["result"]
    if result is None:
        return
    open_share_dialog(share.encode_result(result),
                      f"A link to this {rules.TITLES[system]} result: whoever opens it sees these dice, "
                      "and the outcome is worked out again from them.")


def open_share_dialog(fragment, what, title="Share", handoff=False):
    """The share dialog: one tap sends the link on a phone (Share…, the Web
    Share API, where the browser has it; Copy link otherwise, then the
    primary button). ``handoff``: a fair roll's link, whose QR code (for a
    phone at the same table) is folded, one tap away."""
    url = page_url() + "#" + fragment
    native = hasattr(window.navigator, "share")
    q("#share-title").textContent = title
    q("#share-what").textContent = what
    q("#share-link").value = url
    q("#share-status").textContent = ""
    q("#share-native").hidden = not native
    q("#share-copy").classList.toggle("share-main", not native)
    q("#share-qr").innerHTML = ""
    q("#share-qr-box").open = not handoff
    dialog = q("#share-dialog")
    dialog.showModal()
    q("#share-link").select()
    q("#share-native" if native else "#share-copy").focus()
    asyncio.ensure_future(draw_qr(url))


async def draw_qr(url):
    try:
        from links import qr
        await qr.load()
        q("#share-qr").innerHTML = qr.svg(url)
    except Exception:
        q("#share-qr").textContent = "The QR code could not be drawn; copy the link instead."
        window.console.warn("dice table: QR: " + traceback.format_exc())


async def copy_link(_=None):
    url = str(q("#share-link").value)
    try:
        await window.navigator.clipboard.writeText(url)
        q("#share-status").textContent = "Link copied."
    except Exception:
        q("#share-link").select()
        ok = document.execCommand("copy")
        q("#share-status").textContent = "Link copied." if ok else "Select the link and copy it."


async def native_share(_=None):
    try:
        await window.navigator.share(js_obj({"title": "The dice table", "url": str(q("#share-link").value)}))
        q("#share-status").textContent = "Shared."
    except Exception:
        pass  # the player closed the share sheet


def close_share(_=None):
    q("#share-dialog").close()


def open_link(frag):
    """A share link: a setup fills its form; a result is replayed from its
    dice and shown read-only."""
    try:
        link = share.open_link(frag)
    except share.ShareError as e:
        banner(str(e) + " Your own rolls and history are untouched.", "error")
        return
    if link["kind"] == "sheet":  # a character: into the party (a feature above this one)
        hook("sheet_link", link)
        return
    system = link["system"]
    form = q(f"#form-{system}")
    own = {n: v for n, v in read_fields(form).items() if n in getattr(ui_for(system), "CHARACTER", ())}
    fill_system_form(system, link["spec"])
    if link["kind"] == "result":
        if own:  # someone else's result: the form keeps the reader's own character (Mirage's Conditions)
            fill_fields(form, own)
            STATE[system]["spec"] = read_spec(system) or STATE[system]["spec"]
        set_result(system, link["result"], readonly=True, source="shared")
        banner("Opened a shared result: the dice are the sender's, the outcome is recomputed here.", "info")
    else:
        banner(f"Opened a shared {rules.TITLES[system]} roll setup: the form is filled in; press Roll.", "info")
