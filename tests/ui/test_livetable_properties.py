"""Property tests of the live table's checks (static/py/table/livetable.py):
any JSON a hostile peer may send, as a message or inside a join code,
gives a TableError or a sound event, never another exception; a message
accepted from a phone is always logged under that phone's name and never
as verified. CPython only (hypothesis); derandomized."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings, strategies as st
from test_livetable import GOOD, jadeclaw_result, tables

from table import livetable as lt

SETTINGS = dict(deadline=None, derandomize=True, database=None, max_examples=300,
                suppress_health_check=[HealthCheck.too_slow])

scalars = (st.none() | st.booleans() | st.integers(-(10 ** 20), 10 ** 20) | st.floats(allow_nan=False)
           | st.text(max_size=30) | st.sampled_from(["roll", "ack", "push", "fair", "by", "Dana", "The GM",
                                                     "jadeclaw", "v1.q.x", "h-1", "<script>"]))
values = st.recursive(scalars, lambda c: st.lists(c, max_size=4)
                      | st.dictionaries(st.sampled_from(["t", "n", "e", "by", "id", "y", "p", "g", "l", "at",
                                                         "f", "v", "how", "dice"]) | st.text(max_size=3),
                                        c, max_size=6), max_leaves=20)


def _entry():
    host, phone, key = tables()
    return lt.wire(lt.own_entry(phone, jadeclaw_result(), "", 5)[1])


ENTRY = _entry()
# messages near the valid ones: a valid roll with one field replaced
near = st.builds(lambda k, v: {"t": "roll", "n": 0, "e": {**ENTRY, k: v}},
                 st.sampled_from(sorted(ENTRY)), values)


@settings(**SETTINGS)
@given(st.one_of(values, near, st.builds(lambda d: {"t": "roll", "n": 0, **d}, st.dictionaries(
    st.sampled_from(["e", "by", "how", "v"]), values, max_size=3))))
def test_any_message_from_a_phone_is_refused_or_logged_under_its_name(msg):
    host, _phone, key = tables()
    try:
        after, events = lt.receive(host, key, json.dumps(msg), 0)
    except lt.TableError as e:
        assert str(e)
        return
    for ev in events:
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
        got = lt.decode_join("t1.o." + lt.pack(data))
    except lt.TableError:
        return
    assert got["desc"] == lt.parse_sdp(lt.build_sdp(got["desc"], "o"))


@settings(**SETTINGS)
@given(st.text(max_size=400))
def test_any_text_as_a_join_code_or_a_message_is_refused_or_sound(text):
    for fn in (lambda: lt.decode_join(text), lambda: lt.receive(tables()[0], 0, text, 0),
               lambda: lt.load(text)):
        try:
            fn()
        except lt.TableError:
            pass
