"""Export and import, from the history drawer: the history, the saved
setups, the fair-roll requests and the party in one file (``store``), and a
file merged back into them. No state of its own: it reads and writes theirs.
"""

import traceback

from fairrolls.fairpanel import FAIR, save_requests
from records import store
from records.history import HISTORY, render_history, save_history, set_entries
from records.setups import SETUPS, render_setups, save_setups
from shell.page import banner, create_once, document, fair, js_obj, party, window


def export_history(_=None):
    text = store.export_text(HISTORY["entries"], SETUPS["list"], FAIR["requests"], party=party.export_items())
    blob = window.Blob.new([text], js_obj({"type": "application/json"}))
    url = window.URL.createObjectURL(blob)
    a = document.createElement("a")
    a.href = url
    a.download = "dice-table-" + str(window.Date.new().toISOString())[:10] + ".json"
    document.body.append(a)
    a.click()
    a.remove()
    window.setTimeout(create_once(lambda *_: window.URL.revokeObjectURL(url)), 1000)


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
