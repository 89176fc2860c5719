"""Stored text nested absurdly deep (a hostile or corrupt store,
an imported file) is refused before it is parsed: in Pyodide, parsing or
freeing JSON nested ~8000 deep kills Python for good, so a RecursionError
handler is no defence (measured in Chromium: a 10 000-deep history kept the
page from ever becoming ready)."""

from __future__ import annotations

import json

import pytest

from records import store

DEEP = "[" * 10_000 + "]" * 10_000
DEEP_OBJ = '{"a":' * 10_000 + "1" + "}" * 10_000


@pytest.mark.parametrize("text", [DEEP, DEEP_OBJ, '{"v":1,"entries":' + DEEP + "}"],
                         ids=["array", "object", "inside-entries"])
def test_deep_history_is_refused_with_a_message(text):
    entries, warning = store.load(text)
    assert entries == [] and warning and "could not be read" in warning


def test_deep_setups_are_refused_with_a_message():
    setups, warning = store.load_setups(DEEP)
    assert setups == [] and warning


def test_deep_import_changes_nothing():
    kept = [{"system": "jadeclaw", "result": {"spec": {}, "stages": []}, "time": 2}]
    entries, setups, msg = store.import_text(DEEP, kept, [])
    assert entries == kept and setups == [] and "nothing was changed" in msg


def test_brackets_inside_strings_do_not_count():
    """A label full of brackets and escaped quotes is text, not nesting."""
    label = '\\"' + "[{" * 200 + '"\\'
    entry = {"system": "jadeclaw", "result": {"spec": {}, "stages": []}, "time": 1, "label": label}
    text = store.dump([entry])
    assert store._parse(text) == json.loads(text)


def test_nesting_up_to_the_limit_parses():
    ok = "[" * store.MAX_DEPTH + "]" * store.MAX_DEPTH
    assert store._parse(ok) == json.loads(ok)
    with pytest.raises(ValueError):
        store._parse("[" + ok + "]")
