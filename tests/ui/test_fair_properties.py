"""Property tests of the fair-roll protocol (static/py/fairrolls/fair.py): no secret
but the committed one passes, no changed field of any link goes unnoticed,
and any JSON in a link gives a FairError or a sound open, never another
exception. CPython only (hypothesis is not in Pyodide; tests/conftest.py
skips this file there). ``derandomize=True``: the same examples every run.
"""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, assume, event, given, settings, strategies as st
from test_fair import MILHAMAH, Device, forged_reveal, reference_faces, repack, start

from fairrolls import fair
from links import share

SETTINGS = dict(deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

json_scalars = (st.none() | st.booleans() | st.integers(-(10 ** 20), 10 ** 20)
                | st.sampled_from([0, 1, 2, 3, 12, 13, 1000, 1001, True, False, 1.0, 2.5, ""])
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=70)
                | st.sampled_from(["0" * 32, "0" * 64, "ab" * 6, "s", "e", "d", "g", "q", "roll",
                                   "reroll", "opponent", "initiator", "<script>"]))
json_values = st.recursive(json_scalars, lambda c: st.lists(c, max_size=4)
                           | st.dictionaries(st.text(max_size=4), c, max_size=4), max_leaves=10)


# --------------------------------------------------------------------------
# No secret but the committed one.

@pytest.fixture(scope="module")
def rolled():
    """A Milhamah roll on both pages, the player to move."""
    gm, pl, rid, d = start("milhamah", MILHAMAH, 201, 202)
    pl.open(d)
    return gm, pl, rid


@settings(max_examples=60, **SETTINGS)
@given(secret=st.binary(min_size=32, max_size=32))
def test_no_other_secret_passes(rolled, secret):
    """Whatever secret a GM picks after the player's seed, revealing it is
    refused: keeping the commitment (it does not match) or making a new,
    self-consistent one (not the one the player holds)."""
    gm, pl, rid = rolled
    st_gm = gm.get(rid, "gm")
    assume(secret.hex() != st_gm["secret"])
    forged = forged_reveal(st_gm, secret.hex())
    with pytest.raises(fair.WrongSecret):
        fair.open_link(fair.reveal_link(forged), pl.requests)
    kept = repack(fair.reveal_link(forged), lambda x: x.update(c=st_gm["msgs"][0]["c"]))
    with pytest.raises(fair.WrongSecret):
        fair.open_link(kept, pl.requests)
    with pytest.raises(fair.WrongSecret):
        fair.open_link(kept, [])


@settings(max_examples=100, **SETTINGS)
@given(secret=st.binary(min_size=32, max_size=32), seed=st.binary(min_size=16, max_size=16),
       stage=st.integers(0, 23), sizes=st.lists(st.integers(1, 70000), min_size=1, max_size=30))
def test_the_rng_is_the_documented_formula(secret, seed, stage, sizes):
    """Any secret, seed, stage and dice: every face on its die, the same
    faces every time, and the faces of the formula written out apart."""
    rng = fair.FairRng(secret.hex(), seed.hex(), "0123456789ab", stage)
    faces = [rng.randint(1, n) for n in sizes]
    assert all(1 <= f <= n for f, n in zip(faces, sizes))
    assert faces == reference_faces(secret.hex(), seed.hex(), "0123456789ab", stage, sizes)


# --------------------------------------------------------------------------
# Any changed field of any link is noticed.

def leaves(obj, path=()):
    """Every path to a value inside the link's data."""
    yield path
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from leaves(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from leaves(v, path + (i,))


def mutate(data, path, how, value):
    data = copy.deepcopy(data)
    if not path:
        return value
    parent = data
    for p in path[:-1]:
        parent = parent[p]
    if how == "drop":
        del parent[path[-1]]
    elif how == "add" and isinstance(parent, dict):
        parent["x" + str(path[-1])] = value
    else:
        parent[path[-1]] = value
    return data


def like(old):
    """A value of the same kind and form as ``old`` (so it passes the form
    checks and reaches the hashes, the commitment and the rules)."""
    if isinstance(old, bool):
        return st.just(not old)
    if isinstance(old, int):
        return st.integers(0, 25)
    if isinstance(old, str) and old and set(old) <= set("0123456789abcdef"):
        return st.text(alphabet="0123456789abcdef", min_size=len(old), max_size=len(old))
    if isinstance(old, str):
        return st.text(alphabet="abcdefghDanלמש ", min_size=1, max_size=len(old) + 2)
    if isinstance(old, list) and old:
        return st.sampled_from([old[1:], old + old[:1], old[::-1]])
    return json_values


def get(obj, path):
    for p in path:
        obj = obj[p]
    return obj


DEVICE = {"name": "Dana's phone", "key": "5a" * 16}


def run(tamper):
    """A Milhamah reroll turn, every link passing through ``tamper(i,
    link)`` on its way: the answer names its device, the reroll says "then
    end my turn". Returns the outcome each page and a third party saw."""
    gm, pl = Device(203), Device(204)
    rid, q = gm.ask("milhamah", {**MILHAMAH, "rounds": 2}, "Dana", "climb")
    rid = pl.open(tamper(0, q))["rid"]  # the id as the player's page got it
    d = gm.open(tamper(1, pl._do(fair.answer, rid, entropy=pl.entropy, device=DEVICE)))["reply"]
    pl.open(tamper(2, d))
    step = pl._do(fair.step, rid, {"do": "reroll", "dice": [0, 1]}, entropy=pl.entropy, mode="none")
    v = tamper(4, gm.open(tamper(3, step))["reply"])
    mine = pl.open(v)["verified"]["result"]
    third = Device(205).open(v)["verified"]["result"]
    return mine, third


def run_by_the_advice(tamper):
    """A Milhamah turn played by the advice, fixed in the answer (three
    links: request, answer, final link), through ``tamper``."""
    gm, pl = Device(206), Device(207)
    rid, q = gm.ask("milhamah", {**MILHAMAH, "rounds": 2}, "Dana", "climb")
    rid = pl.open(tamper(0, q))["rid"]
    a = pl._do(fair.answer, rid, entropy=pl.entropy, device=DEVICE, mode="advice")
    v = tamper(2, gm.open(tamper(1, a))["reply"])
    mine = pl.open(v)["verified"]["result"]
    third = Device(208).open(v)["verified"]["result"]
    return mine, third


HONEST = run(lambda i, link: link)
HONEST_ADVICE = run_by_the_advice(lambda i, link: link)


def _tamperer(data, which, how, value, seen):
    def tamper(i, link):
        if i != which:
            return link
        decoded = share.decode(link)
        paths = list(leaves(decoded["data"]))
        path = data.draw(st.sampled_from(paths))
        new = data.draw(like(get(decoded["data"], path))) if how == "like" else value
        changed = mutate(decoded["data"], path, how, new)
        seen["same"] = json.dumps(changed, sort_keys=True) == json.dumps(decoded["data"], sort_keys=True)
        return f"v1.{decoded['fair']}.{share._pack(changed)}"
    return tamper


def _refused_or_same(play, honest, tamper, which, seen):
    try:
        outcome = play(tamper)
    except fair.FairError as e:
        event(f"link {which} refused: {type(e).__name__}")
        return
    event(f"link {which} unchanged")
    assert seen.get("same"), "a changed link led to a verified roll"
    assert outcome == honest


@settings(max_examples=400, **SETTINGS)
@given(data=st.data(), which=st.integers(0, 4), how=st.sampled_from(["like", "like", "set", "drop", "add"]),
       value=json_values)
def test_any_changed_field_is_refused(data, which, how, value):
    """One field of one link changed (often to a value of the same form:
    another seed, another die, another name, another device or choice of
    play), dropped or added, the link packed again as a tamperer who knows
    the format would: the turn ends in a FairError on some page (the last
    link also at a third party's), never in a verified roll, and never in
    another exception."""
    seen = {}
    _refused_or_same(run, HONEST, _tamperer(data, which, how, value, seen), which, seen)


@settings(max_examples=200, **SETTINGS)
@given(data=st.data(), which=st.integers(0, 2), how=st.sampled_from(["like", "like", "set", "drop", "add"]),
       value=json_values | st.sampled_from(["advice", "none", "otter-maple-42", "oak-lantern-69"]))
def test_any_changed_field_of_a_turn_by_the_advice_is_refused(data, which, how, value):
    """The same for a turn played by the advice: the device's name and
    fingerprint, the choice of play ("advice" turned into "none", dropped,
    or added where it was not) are all covered."""
    seen = {}
    _refused_or_same(run_by_the_advice, HONEST_ADVICE, _tamperer(data, which, how, value, seen), which, seen)


# --------------------------------------------------------------------------
# Any JSON in a link.

@pytest.fixture(scope="module")
def stores():
    """Pages at each point of a turn, so hostile links reach deep code."""
    gm, pl, rid, d = start("alkemy", {"characteristic": 5, "bonus": 2, "difficulty": 12}, 206, 207)
    st_pl = fair.open_link(d, pl.requests)["state"]
    return rid, gm.requests, [st_pl], fair.transcript_hash(st_pl["msgs"]), fair.transcript_hash(
        gm.get(rid, "gm")["msgs"])


@settings(max_examples=300, **SETTINGS)
@given(kind=st.sampled_from(["q", "a", "d", "v"]), payload=json_values, data=st.data())
def test_any_json_in_a_link_is_refused_or_sound(stores, kind, payload, data):
    """Any JSON as a link's data, alone or in a link that names the real
    request, its place and its hash: a FairError, or an open whose new
    state is plain JSON and stores again."""
    rid, gm_requests, pl_requests, h_pl, h_gm = stores
    framed = {"i": rid, "n": data.draw(st.sampled_from([1, 2, 3, 4])),
              "h": data.draw(st.sampled_from([h_pl, h_gm])), "m": payload}
    for body in (payload, framed):
        link = share.encode_fair(kind, body) if isinstance(body, dict) else f"v1.{kind}.{share._pack(body)}"
        for requests in (gm_requests, pl_requests, []):
            try:
                got = fair.open_link(link, requests)
            except fair.FairError as e:
                assert str(e)
                continue
            if got["state"] is not None:
                fair.load_requests(fair.dump_requests([got["state"]]))
                json.dumps(got["state"])
