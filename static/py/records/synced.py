"""A stored key that every open tab of the page writes: the roll history,
the saved setups, the fair-roll requests, the live table. Players do open
the page twice (a link from a chat opens a second tab); each write merges
with what another tab stored since, so nothing is lost whichever tab saves
last (docs/TRUST.md, "What the page keeps"). Pure; no DOM.

A ``Synced`` remembers, for its key, the text as this tab last read or
wrote it and what that text held (the *base*). Before a write the page
reads the stored text again: if it is still the base, no other tab wrote
and this tab's value is stored as it is; else the three are merged
(``merge``): what either tab added is kept, what one tab changed since the
base is taken from that tab, what one tab deleted (and the other left as
it was) goes. The browser's ``storage`` event brings another tab's write
the same way, so this tab's view follows it.

A feature keeps a stored key so (``records.history``, ``records.setups``,
``fairrolls.fairpanel``; the pure module that owns the format makes the
``Synced``, e.g. ``store.synced_history``)::

    KEPT = store.synced_setups()
    items = read_kept(KEY, KEPT.read)[0]                          # at start (shell.page)
    items = save_synced(KEY, KEPT, items, "your saved setups")    # each write: merged, then stored
    def on_stored(text):                                          # page.SYNCED[KEY] (main.wire)
        items = merge_synced(KEY, KEPT, items, text)              # ...then drawn again

>>> kept = Synced(load=lambda t: (json.loads(t or "[]"), None), dump=json.dumps, ident=lambda x: x["n"])
>>> kept.read('[{"n": 1}]')
([{'n': 1}], None)
>>> mine = [{"n": 2}, {"n": 1}]                       # this tab rolled n=2
>>> theirs = '[{"n": 3}, {"n": 1}]'                   # meanwhile another tab stored n=3
>>> kept.merged(mine, theirs)[0]
[{'n': 3}, {'n': 2}, {'n': 1}]
"""

from __future__ import annotations

import json
from typing import Any, Callable

__all__ = ["Synced", "merge", "merge_ahead", "as_json"]


def as_json(value) -> str:
    """A value's stored form, to compare two copies of an item (a tuple
    and a list, or dicts in another key order, are the same item)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _mine(mine, _theirs):
    return mine


def merge(base: dict, mine: list, theirs: list, ident: Callable, form: Callable = as_json,
          pick: Callable = _mine) -> list:
    """Three-way merge of two tabs' lists by item identity (``ident``),
    against ``base`` (identity -> ``form`` of the item when this tab last
    read or wrote the key). Nothing either tab added is lost:

    - in both: the one that changed since the base (both changed, and
      differently: ``pick(mine, theirs)``, by default this tab's);
    - only in the other tab's: kept, unless it was in the base as it is
      (this tab deleted it, or the cap dropped it);
    - only in this tab's: kept, unless it was in the base as it is (the
      other tab deleted it).

    Order: what only the other tab has comes first (it is newer than the
    base), then this tab's list in its order.

    >>> ident = lambda x: x[0]
    >>> base = {"a": as_json(["a", 1]), "b": as_json(["b", 1])}
    >>> merge(base, [["a", 2], ["c", 1]], [["a", 1], ["b", 1], ["d", 1]], ident)
    [['d', 1], ['a', 2], ['c', 1]]
    """
    return merge_ahead(base, mine, theirs, ident, form, pick)[0]


def merge_ahead(base: dict, mine: list, theirs: list, ident: Callable, form: Callable = as_json,
                pick: Callable = _mine) -> tuple[list, bool]:
    """``merge``, and whether the merge holds anything the other tab's list
    does not (an item of this tab's, a change, a deletion): only then has
    this tab something to store back (never for a mere difference of
    order, so two tabs never answer each other's writes for ever)."""
    theirs_by = {ident(x): x for x in theirs}
    out, ahead = _only_theirs(base, theirs_by, {ident(x) for x in mine}, form)
    for x in mine:
        k = ident(x)
        if k in theirs_by:
            chosen = _one(base.get(k), x, theirs_by[k], form, pick)
            ahead = ahead or (chosen is not theirs_by[k] and form(chosen) != form(theirs_by[k]))
            out.append(chosen)
        elif base.get(k) != form(x):  # new here, or changed here since the other tab deleted it
            out.append(x)
            ahead = True
    return out, ahead


def _only_theirs(base: dict, theirs_by: dict, mine_ids: set, form: Callable) -> tuple[list, bool]:
    """What only the other tab holds and the merge keeps (not in the base
    as it is), and whether this tab deleted any of it."""
    out = [x for k, x in theirs_by.items() if k not in mine_ids and base.get(k) != form(x)]
    return out, len(out) < len(theirs_by) - len(mine_ids & theirs_by.keys())


def _one(was, mine, theirs, form, pick):
    """One item both tabs hold: the one that changed since the base."""
    mine_form, theirs_form = form(mine), form(theirs)
    if mine_form == theirs_form or theirs_form == was:
        return mine
    if mine_form == was:
        return theirs
    return pick(mine, theirs)


class Synced:
    """One stored key as this tab last read or wrote it, and how its text
    is read (``load(text) -> (value, warning)``), written (``dump``) and
    merged. The value is a list of items by default; ``merge_with``
    (``(synced, mine, theirs) -> merged``) merges another shape, e.g. a
    document holding a list (``merge_list`` does the list's part).

    ``ident``: an item's identity (the same roll in both tabs); ``form``: its
    stored form for comparisons; ``pick``: which of two different changes
    to keep; ``order``: the merged list put in order (and capped)."""

    def __init__(self, load: Callable, dump: Callable, ident: Callable = None, *, form: Callable = as_json,
                 pick: Callable = _mine, order: Callable = None, merge_with: Callable = None):
        self.load, self.dump, self.ident = load, dump, ident
        self.form, self.pick, self.order = form, pick, order
        self.merge_with = merge_with
        self.text: Any = None  #: the stored text as this tab last read or wrote it
        self.value: Any = None  #: what it held
        #: After a merge: whether this tab holds anything the stored text does not.
        self.ahead = False

    def read(self, text) -> tuple[Any, str | None]:
        """The stored value (and the loader's warning), remembered as the base."""
        value, warning = self.load(text)
        self.remember(text, value)
        return value, warning

    def remember(self, text, value) -> None:
        """``text`` (holding ``value``) is what is stored now. (The page
        replaces its values, never changes one in place; a list is copied.)"""
        self.text, self.value = text, list(value) if isinstance(value, list) else value

    def merged(self, mine, text) -> tuple[Any, str | None]:
        """``mine`` merged with what is stored now (``text``), if another
        tab wrote it since; the stored text becomes the base. Returns the
        merged value and the loader's warning about that text (a warning:
        the text is not all readable here, and the page keeps a copy
        before writing over it)."""
        self.ahead = False
        if text == self.text:
            return mine, None
        theirs, warning = self.load(text)
        out = (self.merge_with or Synced.merge_list)(self, mine, theirs)
        self.remember(text, theirs)
        return out, warning

    def merge_list(self, mine: list, theirs: list, base: list | None = None) -> list:
        """Two lists of items merged against the base's list (by default
        the base itself; a document's ``merge_with`` names its list)."""
        base = {self.ident(x): self.form(x) for x in (self.value if base is None else base) or ()}
        out, ahead = merge_ahead(base, list(mine or ()), list(theirs or ()), self.ident, self.form, self.pick)
        self.ahead = self.ahead or ahead
        return self.order(out) if self.order else out
