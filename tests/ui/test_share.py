"""Share links (static/py/links/share.py): round trips, old links keep opening,
and every kind of damaged or hostile link is refused with a message."""

import base64
import zlib

import pytest

import rules
from links import share
from rules.dice import ScriptedRng

#: Links made by version 1 of the page; they must keep opening as they did.
GOLDEN_V1_RESULT = ("v1.r.eNpdj81OxDAMhN_F5xxgEQL1VaqqchMXzDo_NElXq6rvjtOyHDg5_masmWxwhw6-0JEVvIGBBN0GVw5OcWafhBQ6tgRd_3wx74M"
                    "BoZUEulBFDHCwUl1TVVnIx1XfT2piz-VhmmKomfIhJAoohX-3Gde4kIbNKJkMxJRioPB36Xie2VYpreYSa-HQCn1XFG7sdD2uxn88R7yezRx6_KCx3JPW"
                    "gxAXj9I-FuskNE6x2E_l59wNaH6_qXqEyuFc8KaV-zfzYi7mddiH_QfiBGmE")


def test_setup_round_trip_for_every_system():
    """Each system's default spec survives encode → open_link unchanged."""
    for system in rules.SYSTEMS:
        spec = rules.default_spec(system)
        link = share.open_link("#" + share.encode_setup(system, spec))
        assert link["kind"] == "setup" and link["system"] == system
        assert link["spec"] == spec


@pytest.mark.parametrize("system", rules.SYSTEMS)
def test_result_round_trip_replays_the_same_result(system):
    """A result link rebuilds exactly the result it was made from (its
    dice and outcome; best play's advice is asked for beside the page)."""
    result = rules.roll(system, rules.default_spec(system), __import__("random").Random(7), advise=False)
    link = share.open_link(share.encode_result(result))
    assert link["result"] == result


def test_golden_v1_result_link_still_opens():
    """A version-1 link (Jadeclaw d12 & d8 vs Routine, dice 7, 3 against 2, 5)."""
    link = share.open_link(GOLDEN_V1_RESULT)
    r = link["result"]
    assert link["system"] == "jadeclaw"
    assert r["value"] == 7 and r["outcome"] == "success"


def test_result_link_carries_no_outcome():
    """Only spec and draws travel: the outcome is recomputed on opening."""
    result = rules.roll("jadeclaw", {"dice": [8]}, ScriptedRng([6]))
    data = share.decode(share.encode_result(result))
    assert set(data) == {"kind", "system", "spec", "stages"}


def _raw(b: bytes) -> str:
    return base64.urlsafe_b64encode(zlib.compress(b, 9)).decode().rstrip("=")


BAD = {
    "empty": "",
    "no-dots": "v1",
    "unknown-version": "v7.s." + share._pack({"y": "jadeclaw", "p": {}}),
    "unknown-kind": "v1.x." + share._pack({"y": "jadeclaw", "p": {}}),
    "not-base64": "v1.s.<script>",
    "truncated": share.encode_setup("jadeclaw", {"dice": [12, 8]})[:-6],
    "too-long": "v1.s." + "A" * (share.MAX_FRAGMENT + 1),
    "zip-bomb": "v1.s." + _raw(b'"' + b"a" * (share.MAX_JSON * 4) + b'"'),
    "deep": "v1.s." + _raw(b"[" * 1000 + b"]" * 1000),
    "not-json": "v1.s." + _raw(b"{nope"),
    "not-a-dict": "v1.s." + share._pack([1, 2]),
    "unknown-system": "v1.s." + share._pack({"y": "dnd", "p": {}}),
    "bad-spec": "v1.s." + share._pack({"y": "jadeclaw", "p": {"dice": "2d7"}}),
    "result-without-stages": "v1.r." + share._pack({"y": "jadeclaw", "p": {}}),
    "result-draw-off-die": "v1.r." + share._pack({"y": "jadeclaw", "p": {"dice": [6]}, "t": [{"do": "roll", "draws": [7]}]}),
    "result-too-few-draws": "v1.r." + share._pack({"y": "jadeclaw", "p": {"dice": [6, 6]}, "t": [{"do": "roll", "draws": [3]}]}),
    "result-forged-verb": "v1.r." + share._pack({"y": "jadeclaw", "p": {"dice": [6]},
                                                 "t": [{"do": "roll", "draws": [3]}, {"do": "<b>", "draws": []}]}),
    "not-a-string": 12345,
}


@pytest.mark.parametrize("name", list(BAD), ids=list(BAD))
def test_bad_links_are_refused_with_a_message(name):
    """Never another exception: a ShareError whose message suits a banner."""
    with pytest.raises(share.ShareError) as e:
        share.open_link(BAD[name])
    assert "link" in str(e.value).lower()
