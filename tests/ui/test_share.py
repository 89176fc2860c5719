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
    "unknown-version": "v7.s." + share.pack({"y": "jadeclaw", "p": {}}),
    "unknown-kind": "v1.x." + share.pack({"y": "jadeclaw", "p": {}}),
    "not-base64": "v1.s.<script>",
    "truncated": share.encode_setup("jadeclaw", {"dice": [12, 8]})[:-6],
    "too-long": "v1.s." + "A" * (share.MAX_FRAGMENT + 1),
    "zip-bomb": "v1.s." + _raw(b'"' + b"a" * (share.MAX_JSON * 4) + b'"'),
    "deep": "v1.s." + _raw(b"[" * 1000 + b"]" * 1000),
    "not-json": "v1.s." + _raw(b"{nope"),
    "not-a-dict": "v1.s." + share.pack([1, 2]),
    "unknown-system": "v1.s." + share.pack({"y": "dnd", "p": {}}),
    "bad-spec": "v1.s." + share.pack({"y": "jadeclaw", "p": {"dice": "2d7"}}),
    "result-without-stages": "v1.r." + share.pack({"y": "jadeclaw", "p": {}}),
    "result-draw-off-die": "v1.r." + share.pack({"y": "jadeclaw", "p": {"dice": [6]}, "t": [{"do": "roll", "draws": [7]}]}),
    "result-too-few-draws": "v1.r." + share.pack({"y": "jadeclaw", "p": {"dice": [6, 6]}, "t": [{"do": "roll", "draws": [3]}]}),
    "result-forged-verb": "v1.r." + share.pack({"y": "jadeclaw", "p": {"dice": [6]},
                                                 "t": [{"do": "roll", "draws": [3]}, {"do": "<b>", "draws": []}]}),
    "not-a-string": 12345,
}


@pytest.mark.parametrize("name", list(BAD), ids=list(BAD))
def test_bad_links_are_refused_with_a_message(name):
    """Never another exception: a ShareError whose message suits a banner."""
    with pytest.raises(share.ShareError) as e:
        share.open_link(BAD[name])
    assert "link" in str(e.value).lower()


# ---------------------------------------------------------------- trailing data

def _links():
    """One link of each kind the page opens: a setup, a result, a fair
    roll's request, a live table's join code."""
    from fairrolls import fair
    from table import livetable as lt

    st = fair.new_request("jadeclaw", {"dice": [8]}, "Dana", "", existing=[], now=1)
    result = rules.roll("jadeclaw", {"dice": [12, 8]}, ScriptedRng([7, 3]))
    join = lt.encode_join("o", {"u": "GAYV", "p": "wnAB/c5xbofAVSBOgH1BvFaf", "f": "33" * 32,
                                "c": [["h", "192.0.2.2", 35534]]}, {"t": "AbCdEf12", "s": 0, "g": "GM"})
    return {"setup": share.encode_setup("jadeclaw", {"dice": [12, 8]}), "result": share.encode_result(result),
            "fair": fair.request_link(st), "join": join}


def _open(kind, link):
    """Open a link as the page does for its kind; its refusal's message."""
    from fairrolls import fair
    from table import livetable as lt

    try:
        if kind == "fair":
            fair.open_link(link, [], now=2)
        elif kind == "join":
            lt.decode_join(link)
        else:
            share.open_link(link)
    except (share.ShareError, fair.FairError, lt.TableError) as e:
        return str(e)
    return None


def _after_stream(link):
    """The same link with bytes after its deflate stream, in base64 exactly
    as ``pack`` writes it (so only the stream's end tells)."""
    head, payload = link.rsplit(".", 1)
    packed = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)) + b"\x00junk"
    return f"{head}.{base64.urlsafe_b64encode(packed).decode().rstrip('=')}"


TRAILING = {
    "payload-twice": lambda link: link + link.rsplit(".", 1)[1],
    "link-twice": lambda link: link + link,
    "link-twice-with-hash": lambda link: link + "#" + link,
    "bytes-after-the-stream": _after_stream,
    "one-base64-character-more": lambda link: link + "A",
    "four-base64-characters-more": lambda link: link + "AAAA",
}


@pytest.mark.parametrize("kind", ["setup", "result", "fair", "join"])
@pytest.mark.parametrize("how", list(TRAILING), ids=list(TRAILING))
def test_a_link_with_data_after_its_payload_is_refused(kind, how):
    """Every kind of link is read by the one codec, which refuses anything
    after the payload (a doubled paste, extra base64, bytes after the
    deflate stream's end) with a message, while the link itself opens."""
    link = _links()[kind]
    assert _open(kind, link) is None
    said = _open(kind, TRAILING[how](link))
    assert said is not None and ("link" in said.lower() or "join code" in said.lower()), said


def test_a_doubled_paste_says_so():
    """The message names the likely cause."""
    link = share.encode_setup("mirage", {})
    with pytest.raises(share.ShareError, match="after its end"):
        share.open_link(link + link.rsplit(".", 1)[1])
