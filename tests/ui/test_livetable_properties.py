"""Property tests of the live table's checks (static/py/livetable.py):
any JSON a hostile peer may send, as a message or inside a join code, or
that a damaged store holds, is refused in words or gives a sound event,
never an exception; a message
accepted from a phone is always logged under that phone's name and never
as verified. CPython only (hypothesis); derandomized."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table import livetable as lt
from test_livetable import GOOD, Table, jadeclaw_result

SETTINGS = dict(deadline=None, derandomize=True, database=None, max_examples=300,
                suppress_health_check=[HealthCheck.too_slow])

scalars = (st.none() | st.booleans() | st.integers(-(10 ** 20), 10 ** 20) | st.floats(allow_nan=False)
           | st.text(max_size=30) | st.sampled_from(["roll", "ack", "push", "fair", "by", "Dana", "The GM",
                                                     "jadeclaw", "v1.q.x", "h-1", "<script>"]))
values = st.recursive(scalars, lambda c: st.lists(c, max_size=4)
                      | st.dictionaries(st.sampled_from(["t", "n", "e", "by", "id", "y", "p", "g", "l", "at",
                                                         "f", "v", "how", "dice"]) | st.text(max_size=3),
                                        c, max_size=6), max_leaves=20)


def _seated():
    """A tablet with Dana seated (her channel greeted), and a roll of hers."""
    t = Table()
    t.join("Dana")
    e = lt.wire(t.roll("Dana"))
    return t.host, t.key["Dana"], e


HOST, KEY, ENTRY = _seated()
# messages near the valid ones: a valid roll with one field replaced
near = st.builds(lambda k, v: {"t": "roll", "n": 0, "a": 0, "r": [{"e": {**ENTRY, k: v}}]},
                 st.sampled_from(sorted(ENTRY)), values)


@settings(**SETTINGS)
@given(st.one_of(values, near, st.builds(lambda d: {"t": "roll", "n": 0, "a": 0, **d}, st.dictionaries(
    st.sampled_from(["r", "e", "by", "how", "v"]), values, max_size=3)),
    st.builds(lambda d: {"t": "fair", "n": 0, "a": 0, "f": d}, values)))
def test_any_message_from_a_phone_is_refused_or_logged_under_its_name(msg):
    after, events = lt.receive(HOST, KEY, json.dumps(msg), 0)
    for ev in events:
        if ev[0] == "refused":
            assert "Dana" in ev[1]
            continue
        if ev[0] == "entry":
            assert ev[1]["by"] == "Dana" and ev[1]["how"] == "phone"
            assert lt.provenance(ev[1]) != "fair roll, verified"
    assert all(e["how"] != "fair" for e in after["log"])


@settings(**SETTINGS)
@given(st.integers(0, 4), values)
def test_any_field_of_a_join_code_is_refused_or_sound(i, v):
    data = json.loads(json.dumps(GOOD))
    data[i] = v
    try:
        got = lt.decode_join("t2.o." + lt.pack(data))
    except lt.TableError:
        return
    assert got["desc"] == lt.parse_sdp(lt.build_sdp(got["desc"], "o"))


@settings(**SETTINGS)
@given(st.text(max_size=400))
def test_any_text_as_a_join_code_or_a_message_is_refused_or_sound(text):
    try:
        lt.decode_join(text)
    except lt.TableError:
        pass
    _after, events = lt.receive(HOST, KEY, text, 0)
    assert all(ev[0] in ("refused", "entry") for ev in events)
    table, warning = lt.load(text)
    assert table is None or isinstance(table["log"], list)


@settings(**SETTINGS)
@given(st.sampled_from(["role", "table", "name", "next_slot", "seats", "log", "fair"]), values)
def test_any_field_of_a_stored_table_is_read_or_refused_in_words(field, v):
    """A stored table with one field replaced by any JSON: read (every
    field of its kind) or refused with a warning in words."""
    data = json.loads(lt.dump(HOST))
    data[field] = v
    table, warning = lt.load(json.dumps(data))
    if table is None:
        assert warning.startswith("The live table kept on this device could not be read")
    else:
        assert lt.dump(table)
