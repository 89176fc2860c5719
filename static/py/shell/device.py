"""This device's identity, in one place: its id, its name and its secret
key, kept in ``localStorage`` under ``dice-table/device``. The live table
names the device by its id and proves its seat with a key derived from
the secret (``table_key``); a fair roll's answer carries the device's name
and the fingerprint of the same secret (``fair.device_fingerprint``). The
secret itself never leaves the device: no link, no code, no message
carries it.

Stored as ``{"v": 1, "id": …, "key": …, "name": …}``. Two older forms are
read and rewritten in this one, losing nothing either held: the live
table's (the id alone, as a bare string) and fair rolls' (``{"key",
"name"}``: the key, so the fingerprint a player's friends know, is kept).

>>> me, warning, changed = parse('{"key": "' + "ab" * 16 + '", "name": "Dana"}', entropy=bytes)
>>> me["key"] == "ab" * 16, me["id"], me["name"], warning, changed
(True, 'AAAAAAAAAAAA', 'Dana', '', True)
"""

from __future__ import annotations

import base64
import json
import os
import re

from shell import names

__all__ = ["KEY", "parse", "dump", "new", "table_key", "this_device", "set_name", "save_again"]

KEY = "dice-table/device"
VERSION = 1
ID_BYTES = 9
#: The secret's bytes (``fair.DEVICE_KEY_BYTES``: fair rolls' fingerprint is made from it).
KEY_BYTES = 16
ID_RE = re.compile(r"[A-Za-z0-9_-]{12}\Z")
KEY_RE = re.compile(r"[0-9a-f]{32}\Z")
#: What a table key is derived with (``table_key``).
TABLE_TAG = b"dice-table/table/v2/seat-key"

#: This page's identity once read (``this_device``).
DEVICE = {}


def _id(entropy) -> str:
    return base64.urlsafe_b64encode(entropy(ID_BYTES)).decode()


def new(entropy=os.urandom, name: str = "") -> dict:
    """A fresh identity: a public id, a secret key, a name."""
    return {"id": _id(entropy), "key": entropy(KEY_BYTES).hex(), "name": names.clean(name)[:names.NAME_MAX]}


def dump(me: dict) -> str:
    return json.dumps({"v": VERSION, "id": me["id"], "key": me["key"], "name": me["name"]},
                      ensure_ascii=False, separators=(",", ":"))


def _read(text):
    """The stored identity's fields (None where absent) and which form it is in."""
    if ID_RE.match(text):  # the live table's old form: the id alone
        return {"id": text, "key": None, "name": None}, "old"
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("not an object")
    key = data.get("key")
    if not (isinstance(key, str) and KEY_RE.match(key)):
        raise ValueError("no key")
    name = data.get("name", "")
    if not isinstance(name, str):
        raise ValueError("no name")
    if data.get("v") == VERSION:
        if set(data) != {"v", "id", "key", "name"} or not (isinstance(data["id"], str) and ID_RE.match(data["id"])):
            raise ValueError("damaged")
        return {"id": data["id"], "key": key, "name": name}, "now"
    return {"id": None, "key": key, "name": name}, "old"  # fair rolls' old form


def parse(text, entropy=os.urandom, name: str = "") -> tuple[dict, str, bool]:
    """The identity stored as ``text``: ``(identity, warning, changed)``.
    Nothing stored: a new one (``name`` as its name). An older form: read,
    completed, ``changed`` (store it again). Unreadable: a new one and a
    warning (the caller keeps the old text aside)."""
    if not isinstance(text, str) or not text:
        return new(entropy, name), "", True
    try:
        got, form = _read(text)
    except (ValueError, TypeError, RecursionError):
        return new(entropy, name), ("This device's stored name and key could not be read; it has a new key "
                                    "now (fair rolls show a new fingerprint, a live table sees a new phone)."), True
    fresh = new(entropy, name)
    me = {k: got[k] if got[k] is not None else fresh[k] for k in ("id", "key", "name")}
    me["name"] = names.clean(me["name"])[:names.NAME_MAX]
    return me, "", form != "now" or me["name"] != got["name"]


def table_key(me: dict, table_id: str) -> str:
    """The key this device proves its seat at table ``table_id`` with:
    HMAC-SHA256 of the table's id under the device's secret. It is given to
    that table's tablet once, over the open (encrypted) channel, when the
    device first sits down; another table gets another key, and the secret
    cannot be worked back from it.

    >>> table_key({"key": "00" * 16}, "AbCdEf12")[:16]
    '51f276aee991bfdf'
    """
    import hashlib
    import hmac

    return hmac.new(bytes.fromhex(me["key"]), TABLE_TAG + b"\x00" + table_id.encode(), hashlib.sha256).hexdigest()


# ---------------------------------------------------------------- on the page

def this_device(default_name: str = "") -> dict:
    """This device's identity (read once, made on first use and named
    ``default_name``); a stored older form is rewritten in the new one, an
    unreadable one kept aside with a banner."""
    if not DEVICE:
        from shell.page import banner, keep_backup, read_store

        text = read_store(KEY)
        me, warning, changed = parse(text, name=default_name)
        if warning:
            keep_backup(KEY, text)
            banner(warning, "warning")
        DEVICE.update(me)
        if changed:
            _save()
    return dict(DEVICE)


def set_name(name: str) -> dict:
    """This device's name, as a fair-roll answer gives it."""
    this_device()
    DEVICE["name"] = names.clean(name)[:names.NAME_MAX]
    _save()
    return dict(DEVICE)


def save_again():
    """Store this device's identity again, if this page has read it (the
    storage banner's "store again" after room was made)."""
    if DEVICE:
        _save()


def _save():
    from shell.page import write_store

    write_store(KEY, dump(DEVICE), "The browser refused to store this device's name and key (storage full?).")
