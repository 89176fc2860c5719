"""Export and import, from the history drawer: the history, the saved
setups, the fair-roll requests and the party in one file (``store``), and a file
merged back into them; and the storage banner, when the browser's storage
is full (docs/TRUST.md, "What the page keeps"): it offers the export, and
makes room by dropping the oldest rolls only when the player says so. No
state of its own: it reads and writes theirs (and ``page.STORAGE``).
"""

import traceback

from fairrolls.fairpanel import FAIR, REQUESTS_KEY, save_requests
from records import store
from records.history import (
    HISTORY,
    HISTORY_KEY,
    ROLLER_KEY,
    drop_oldest,
    render_history,
    save_history,
    save_roller,
    set_entries,
)
from records.setups import SETUPS, SETUPS_KEY, render_setups, save_setups
from shell import device
from shell.page import CURRENT, STORAGE, banner, create_once, document, fair, js_obj, kept_proxy, party, q, window
from table import table_ui
from tabs import formstate
from tabs.forms import save_forms
from tabs.trayview import reveal


def export_history(_=None):
    text = store.export_text(HISTORY["entries"], SETUPS["list"], FAIR["requests"], party=party.export_items())
    download(text, "dice-table-" + str(window.Date.new().toISOString())[:10] + ".json", "application/json")


def download(text, name, kind):
    """Hand ``text`` to the browser as a file to save."""
    blob = window.Blob.new([text], js_obj({"type": kind}))
    url = window.URL.createObjectURL(blob)
    a = document.createElement("a")
    a.href = url
    a.download = name
    document.body.append(a)
    a.click()
    a.remove()
    window.setTimeout(create_once(lambda *_: window.URL.revokeObjectURL(url)), 1000)


# ---------------------------------------------------------------- storage full

#: Each stored key the page writes, and how its feature stores it again.
SAVERS = {HISTORY_KEY: save_history, SETUPS_KEY: save_setups, REQUESTS_KEY: save_requests,
          formstate.KEY: save_forms, ROLLER_KEY: save_roller, device.KEY: device.save_again,
          table_ui.TABLE_KEY: table_ui.save,
          "dice-table/party": lambda: party.save_party()}  # the party's module loads later (party.panel.PARTY_KEY)


def to_drop():
    """How many of the oldest rolls "Drop" offers to let go: a quarter of
    the history, at least 10 (or all there are)."""
    n = len(HISTORY["entries"])
    return min(n, max(10, n // 4))


def storage_banner():
    """The storage banner as ``page.STORAGE`` stands: what could not be
    stored, what is held unread, and the player's ways out."""
    refused, held = STORAGE["refused"], STORAGE["held"]
    el = q("#storage-banner")
    was = not el.hidden
    el.hidden = not (refused or held)
    q("#storage-says").textContent = storage_words(refused, held)
    drop = q("#storage-drop")
    drop.hidden = not (refused and to_drop())
    drop.textContent = f"Drop the oldest {to_drop()} rolls"
    q("#storage-export").hidden = not refused
    q("#storage-download").hidden = q("#storage-overwrite").hidden = not held
    if not el.hidden and not was:  # it came over the page: the tray goes below it, its outcome in view
        banner_came(el)
    elif el.hidden:
        banner_height()


def storage_words(refused, held) -> str:
    """The storage banner's words: the unreadable record held, what could
    not be stored and the ways out."""
    says = []
    if held:
        says.append("No room to keep a copy of the unreadable record: it is left as it is and nothing is "
                    "stored over it. Download it, then let the page store over it.")
    if refused:
        what = ", ".join(dict.fromkeys(refused.values()))
        says.append(f"Storage is full: {what} could not be stored (kept on this page only until you reload). "
                    "Export the history to keep it" + (", or make room by dropping the oldest rolls." if to_drop() else "."))
    return " ".join(says)


def banner_came(el):
    """The storage banner came over the page: its height is watched (once),
    the tray goes below it with its outcome in view."""
    if not BANNER["watched"]:
        BANNER["watched"] = True
        window.ResizeObserver.new(kept_proxy(lambda *_: banner_height())).observe(el)
    banner_height()
    reveal(CURRENT["system"])


#: Whether the storage banner's height is watched (it changes with the
#: screen's width and its text).
BANNER = {"watched": False}


def banner_height():
    """The storage banner stays in view over the page; the result column and
    a tray brought into view go below it (app.css, ``--storage-banner``)."""
    el = q("#storage-banner")
    document.documentElement.style.setProperty("--storage-banner", f"{0 if el.hidden else el.offsetHeight}px")


def retry(keys):
    """Store again each of ``keys`` its feature holds."""
    for key in list(keys):
        STORAGE["refused"].pop(key, None)  # said again if the browser refuses again
        if key in SAVERS:
            SAVERS[key]()
    storage_banner()


def make_room(_el=None):
    """The player's consent, given on the banner: the oldest rolls go, then
    everything the browser refused is stored again."""
    n = to_drop()
    if not n:
        return
    drop_oldest(n)
    retry([HISTORY_KEY] + [k for k in STORAGE["refused"] if k != HISTORY_KEY])
    if STORAGE["refused"]:
        banner(f"The oldest {n} rolls were dropped, but storage is still full.", "warning")
    else:
        banner(f"The oldest {n} rolls were dropped to make room; everything is stored again.", "info")


def download_held(_el=None):
    """Each unreadable store no copy could be kept of, as a file."""
    for key, text in STORAGE["held"].items():
        download(text, key.replace("/", "-") + "-unreadable.txt", "text/plain")


def store_over_held(_el=None):
    """The player's consent: the unreadable stores held are written over."""
    keys = list(STORAGE["held"])
    STORAGE["held"].clear()
    retry(keys)


def import_file(text):
    """An exported file merged into the history, the setups and the
    requests; the message says what was new."""
    try:
        data = store.read_export(text)
    except store.Unreadable as e:
        banner(f"{e}; nothing was changed.", "info")
        return
    entries, SETUPS["list"], message = store.merge(data, HISTORY["entries"], SETUPS["list"])
    FAIR["requests"], added, warning = fair.merge_requests(FAIR["requests"], data.get("requests"))
    set_entries(entries)
    save_history()
    save_setups()
    save_requests()
    render_history()
    render_setups()
    if added or warning:
        message += f" {added} fair-roll request(s) added or brought up to date." + (f" {warning}" if warning else "")
    message += party.import_items(data.get("party"))
    banner(message, "info")


async def import_history(event):
    try:
        files = event.target.files
        if not files or files.length == 0:
            return
        text = await files.item(0).text()
        event.target.value = ""
        import_file(str(text))
    except Exception:
        banner("That file could not be imported; nothing was changed.")
        window.console.error("dice table: " + traceback.format_exc())
