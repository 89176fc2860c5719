"""Fair rolls at a distance (static/py/fairrolls/fair.py, docs/FAIR-ROLLS.md): whole protocol
runs passed between a GM's page and a player's page as link strings only,
every tampering refused with its message, the rng's known answers and its
fairness, link sizes, the stored state and the history labels.

Each "device" below is what fairpanel.py keeps: a list of request states
(both roles), a history, and the links it sends. Entropy is fixed
(``random.Random(seed).randbytes``) so every run is the same; the page uses
``secrets.token_bytes``.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import importlib.util
import json
import random
from pathlib import Path

import pytest

import rules
from fairrolls import fair
from links import share
from rules.alkemy import model as alkemy
from rules.dice import SpecError
from rules.milhamah import model as milhamah


def _helpers():
    """tests/rules/test_fairness.py's chi-square helpers, reused as they are."""
    path = Path(__file__).resolve().parents[1] / "rules" / "test_fairness.py"
    spec = importlib.util.spec_from_file_location("_fairness_helpers", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


FH = _helpers()


class Device:
    """One page: its stored requests (GM's and player's), its history."""

    def __init__(self, seed: int):
        self.requests: list = []
        self.history: list = []
        self.entropy = random.Random(seed).randbytes
        self.now = 1_000_000

    def put(self, st):
        self.requests = [st] + [s for s in self.requests
                                if (s["role"], s["rid"]) != (st["role"], st["rid"])]

    def get(self, rid, role):
        return next(s for s in self.requests if s["rid"] == rid and s["role"] == role)

    def open(self, link):
        """Open a link as the page will: store the new state, add a verified
        roll to the history, hand back what the page shows."""
        got = fair.open_link(link, self.requests, now=self.now)
        json.dumps(got["state"])  # plain JSON, storable as it is
        if got["state"] is not None:
            self.put(got["state"])
        if got["entry"] is not None:
            self.history.append(got["entry"])
        return got

    def ask(self, system, spec, player, label=""):
        st = fair.new_request(system, spec, player, label, existing=self.requests, now=self.now,
                              entropy=self.entropy)
        self.put(st)
        return st["rid"], fair.request_link(st)

    def _do(self, fn, rid, *args, **kw):
        st, link = fn(self.get(rid, kw.pop("role", "player")), *args, now=self.now, **kw)
        self.put(st)
        return link

    def answer(self, rid):
        return self._do(fair.answer, rid, entropy=self.entropy)

    def step(self, rid, action):
        return self._do(fair.step, rid, action, entropy=self.entropy)

    def pass_turn(self, rid):
        return self._do(fair.pass_turn, rid)

    def gm_step(self, rid, action):
        return self._do(fair.gm_step, rid, action, role="gm")

    def reveal(self, rid):
        return self._do(fair.reveal, rid, role="gm")


def kind(link: str) -> str:
    return link.split(".")[1]


def start(system, spec, gm_seed=1, pl_seed=2):
    """GM asks, player opens and rolls, GM's page answers: (gm, player, rid,
    the GM's reply)."""
    gm, pl = Device(gm_seed), Device(pl_seed)
    rid, q = gm.ask(system, spec, "Dana", "test")
    assert pl.open(q)["state"]["rid"] == rid
    reply = gm.open(pl.answer(rid))["reply"]
    return gm, pl, rid, reply


def finish_verified(gm, pl, rid, reveal):
    """The player's page and a third party both verify the final link, and
    the outcome is rules.replay's of the recorded stages."""
    assert kind(reveal) == "v"
    mine = pl.open(reveal)
    assert mine["note"] == "Fair roll, verified ✓"
    assert fair.status(mine["state"]) == "verified" and fair.status(gm.get(rid, "gm")) == "revealed"
    third = Device(99).open(reveal)
    assert third["state"] is None and third["note"] == "Fair roll, verified ✓"
    result = third["verified"]["result"]
    q = gm.get(rid, "gm")["msgs"][0]
    again = rules.replay(q["y"], q["p"], result["stages"])
    assert again["outcome"] == result["outcome"] and again["value"] == result["value"]
    assert mine["verified"]["result"] == result == fair.view(gm.get(rid, "gm"))["result"]
    assert pl.history[-1]["result"] == result and fair.provenance(pl.history[-1]) == "fair roll, verified"
    return result


# --------------------------------------------------------------------------
# The rng: known answers, computed apart from fair.py.

KEY = bytes(range(32)).hex()
SEED = "00112233445566778899aabbccddeeff"
RID = "0123456789ab"

#: HMAC-SHA256 digests printed by OpenSSL 3.0 (``printf '<msg>' | openssl
#: dgst -sha256 -mac HMAC -macopt hexkey:000102…1f``), an implementation that
#: shares no code with Python's hmac module.
OPENSSL = {
    (0, 0): "9a7ce48e80a1fca80c349bfc3f10122365959218abecbdefda10d469248184cb",
    (0, 1): "d3b51a1f20283adb5b79830fc63b0edf7a06b3614be9c2a8c9cfae634d7808ff",
    (1, 0): "4535b908872b53c9e2f151e7bfc81027b07913b4bfc0ff5484a75f014a872fb8",
}


@pytest.mark.parametrize("stage, block", list(OPENSSL), ids=[f"stage{s}-block{b}" for s, b in OPENSSL])
def test_stream_blocks_match_openssl(stage, block):
    """Block ``b`` of stage ``j`` is HMAC-SHA256(key = GM secret, msg =
    "<seed>:<request id>:<j>:<b>"), as documented."""
    assert fair.FairRng(KEY, SEED, RID, stage).block(block).hex() == OPENSSL[(stage, block)]


def test_d6_and_d12_faces_from_the_openssl_bytes():
    """The first bytes of block 0 are 9a 7c e4 8e 80 a1 fc a8 0c 34 (154,
    124, 228, 142, 128, 161, 252, 168, 12, 52). One byte per die; values of
    252 or more (the largest multiple of 6 and of 12 below 256) are
    rejected; a face is value % sides + 1. Worked by hand: d6 → 5 5 1 5 3 6
    (252 rejected) 1 1 5; d12 → 11 5 1 11 9 6 (252 rejected) 1 1 5."""
    rng = fair.FairRng(KEY, SEED, RID, 0)
    assert [rng.randint(1, 6) for _ in range(9)] == [5, 5, 1, 5, 3, 6, 1, 1, 5]
    rng = fair.FairRng(KEY, SEED, RID, 0)
    assert [rng.randint(1, 12) for _ in range(9)] == [11, 5, 1, 11, 9, 6, 1, 1, 5]


def reference_faces(secret, seed, rid, stage, sizes):
    """The documented formula written out again here: the stage's stream is
    block 0 ‖ block 1 ‖ …; each die takes the fewest whole bytes covering
    its range, big-endian, rejecting values at or above the largest
    multiple of the range."""
    stream = b"".join(hmac.new(bytes.fromhex(secret), f"{seed}:{rid}:{stage}:{b}".encode(),
                               hashlib.sha256).digest() for b in range(64))
    pos, out = 0, []
    for n in sizes:
        if n == 1:
            out.append(1)
            continue
        k = 1
        while 256 ** k < n:
            k += 1
        while True:
            v = int.from_bytes(stream[pos:pos + k], "big")
            pos += k
            if v < (256 ** k // n) * n:
                out.append(v % n + 1)
                break
    return out


SIZES = [6, 12, 4, 22, 5, 300, 256, 257, 65536, 65537, 1, 10, 8, 2] * 6


@pytest.mark.parametrize("stage", [0, 1, 7])
def test_faces_match_the_documented_formula(stage):
    """Mixed ranges (one, two and three bytes a die; values across block
    boundaries; randint(1, 1) reading nothing) give the formula's faces."""
    rng = fair.FairRng(KEY, SEED, RID, stage)
    assert [rng.randint(1, n) for n in SIZES] == reference_faces(KEY, SEED, RID, stage, SIZES)


def test_commitment_and_transcript_hash_known_answers():
    """Computed with coreutils' sha256sum from the documented bytes:
    commit = SHA-256("dice-table/fair/v1/commit" 0x00 canonical-JSON(i, p, w,
    y) 0x00 secret); H1 = SHA-256(SHA-256("dice-table/fair/v1/transcript") ‖
    canonical-JSON(request))."""
    q = {"k": "q", "i": RID, "y": "jadeclaw", "p": {"dice": [8]}, "w": "Dana"}
    q["c"] = fair.commitment(q, KEY)
    assert q["c"] == "8bca9a801a3a54fb09d132a32595a4310afa2131b570d0a5563f0301fa981f25"
    assert fair.transcript_hash([]) == "78a13f085601f68eaf415671d643bd73"
    assert fair.transcript_hash([q]) == "ad90c77f879bc6da804920c77ee176ca"


def test_each_stage_has_its_own_stream():
    """A fresh counter range per stage: the same seed at another stage, or
    another seed at the same stage, gives other dice."""
    def faces(stage, seed):
        rng = fair.FairRng(KEY, seed, RID, stage)
        return tuple(rng.randint(1, 12) for _ in range(16))

    runs = {faces(stage, seed) for stage in (0, 1, 2) for seed in (SEED, "ff" * 16)}
    assert len(runs) == 6


# --------------------------------------------------------------------------
# Fairness: the same chi-square as every other die.

class StagedFairRng:
    """FairRng as play uses it: a fresh player seed and stage every few
    draws (a roll of up to 12 dice), under one GM secret."""

    def __init__(self, seed: int, per_stage: int = 12, cls=fair.FairRng):
        self.r = random.Random(seed)
        self.secret = self.r.randbytes(32).hex()
        self.per, self.cls, self.left, self.stage, self.rng = per_stage, cls, 0, 0, None

    def randint(self, a, b):
        if self.left == 0:
            self.rng = self.cls(self.secret, self.r.randbytes(16).hex(), RID, self.stage % 24)
            self.stage += 1
            self.left = self.per
        self.left -= 1
        return self.rng.randint(a, b)


class ModuloFairRng(fair.FairRng):
    """The deliberate mistake: one byte of the same stream taken modulo the
    range, no rejection."""

    def randint(self, a, b):
        return a + self._take(1)[0] % (b - a + 1)


@pytest.mark.parametrize("sides", [4, 6, 8, 10, 12], ids=lambda s: f"d{s}")
def test_numbered_dice_are_fair(sides):
    counts = FH.count_numbered(StagedFairRng(3000 + sides), sides)
    assert FH.verdict(counts, [FH.N / sides] * sides) >= FH.ALPHA


@pytest.mark.parametrize("colour, design", FH.LETTER_DICE, ids=[f"{c}-{d}" for c, d in FH.LETTER_DICE])
def test_milhamah_letter_dice_are_fair(colour, design):
    faces = milhamah.die_faces(colour, design)
    counts, expected = FH.count_faces(StagedFairRng(400 + FH.LETTER_DICE.index((colour, design))), faces)
    assert FH.verdict(counts, expected) >= FH.ALPHA


def test_milhamah_hit_location_letters_are_fair():
    """The 22 letters of a hit location: one randint(1, 22)."""
    counts = FH.count_numbered(StagedFairRng(22), 22)
    assert FH.verdict(counts, [FH.N / 22] * 22) >= FH.ALPHA


@pytest.mark.parametrize("face_set, colour", FH.SYMBOL_DICE, ids=[f"{s}-{c}" for s, c in FH.SYMBOL_DICE])
def test_alkemy_symbol_dice_are_fair(face_set, colour):
    faces = list(alkemy.FACE_SETS[face_set][colour])
    counts, expected = FH.count_faces(StagedFairRng(500 + len(faces) * 7 + len(colour)), faces)
    assert FH.verdict(counts, expected) >= FH.ALPHA


BIASED = [(10, "d10"), (12, "d12"), (22, "hit-location-letters")]


@pytest.mark.parametrize("sides", [b[0] for b in BIASED], ids=[b[1] for b in BIASED])
def test_a_modulo_biased_variant_fails_the_same_check(sides):
    """The same stream taken modulo (no rejection) is flagged by the same
    count and threshold; the rejecting rng on the same seeds passes."""
    biased = FH.count_numbered(StagedFairRng(7, cls=ModuloFairRng), sides)
    fair_counts = FH.count_numbered(StagedFairRng(7), sides)
    assert FH.verdict(biased, [FH.N / sides] * sides) < FH.ALPHA
    assert FH.verdict(fair_counts, [FH.N / sides] * sides) >= FH.ALPHA


def test_a_modulo_biased_letter_die_fails():
    faces = milhamah.die_faces("red", "A")
    counts, expected = FH.count_faces(StagedFairRng(8, cls=ModuloFairRng), faces)
    assert FH.verdict(counts, expected) < FH.ALPHA


def test_whole_rolls_through_the_rules_are_fair():
    """rules.roll with the fair rng, one stage per roll: a Jadeclaw d12 & d4
    pool's faces are as even as chance allows."""
    r = random.Random(5)
    secret = r.randbytes(32).hex()
    d12, d4 = [0] * 12, [0] * 4
    for _ in range(6000):
        res = rules.roll("jadeclaw", {"dice": "d12 & d4"}, fair.FairRng(secret, r.randbytes(16).hex(), RID, 0))
        d12[res["dice"][0]["face"] - 1] += 1
        d4[res["dice"][1]["face"] - 1] += 1
    assert FH.verdict(d12, [500] * 12) >= FH.ALPHA and FH.verdict(d4, [1500] * 4) >= FH.ALPHA


def test_rejection_happens_and_reads_the_next_bytes():
    """Over a long stream some bytes are rejected for a d12 (252..255), and
    the faces are exactly the accepted bytes: none is folded onto a face."""
    rng = fair.FairRng(KEY, SEED, RID, 3)
    stream = b"".join(rng.block(b) for b in range(40))
    faces = [rng.randint(1, 12) for _ in range(1200)]
    accepted = [v for v in stream if v < 252][:1200]
    assert [f - 1 for f in faces] == [v % 12 for v in accepted]
    assert any(v >= 252 for v in stream[:1250])


# --------------------------------------------------------------------------
# Whole runs, link strings only.

MILHAMAH = {"shoresh": "אשר", "rerolls": 3, "rounds": 1, "difficulty": 3}


def test_milhamah_roll_with_a_reroll():
    """Request → Roll → dice → the player rerolls the dice that missed
    (choice and fresh seed in one link) → the GM's page rolls them and,
    with no step left, reveals at once → verified on both pages and by a
    third party."""
    gm, pl, rid, d = start("milhamah", MILHAMAH)
    assert kind(d) == "d"
    got = pl.open(d)
    assert got["note"] == "The dice as the GM's page reports them." and fair.status(got["state"]) == "rolled"
    shown = fair.view(got["state"])["result"]
    misses = [i for i, die in enumerate(shown["dice"]) if not die.get("success")][:3] or [0]
    assert fair.view(got["state"])["player_may_step"]
    reveal = gm.open(pl.step(rid, {"do": "reroll", "dice": misses}))["reply"]
    result = finish_verified(gm, pl, rid, reveal)
    assert [s["do"] for s in result["stages"]] == ["roll", "reroll"]
    assert result["stages"][0]["draws"] == shown["stages"][0]["draws"]
    assert len(result["stages"][1]["draws"]) == len(misses)
    for i, die in enumerate(result["dice"]):
        assert die["role"] == ("rerolled" if i in misses else "frozen")


def test_milhamah_first_draws_are_the_documented_formula():
    """The GM's page rolled the eight dice of the request with
    FairRng(secret, the player's seed, id, stage 0): recomputed apart."""
    gm, pl, rid, d = start("milhamah", MILHAMAH)
    st = gm.get(rid, "gm")
    seed = st["msgs"][1]["s"]
    assert st["msgs"][2]["d"] == reference_faces(st["secret"], seed, rid, 0, [12] * 8)


MIRAGE = {"attribute": 10, "attribute_name": "wits", "skill": 8, "difficulty": "average"}


def test_mirage_roll_with_a_prayer():
    gm, pl, rid, d = start("mirage", MIRAGE, 5, 6)
    st = pl.open(d)["state"]
    dice = fair.view(st)["result"]["dice"]
    pray = [i for i, die in enumerate(dice) if die["face"] != 1][:2]
    reveal = gm.open(pl.step(rid, {"do": "pray", "dice": pray, "bonus": 1}))["reply"]
    result = finish_verified(gm, pl, rid, reveal)
    assert [s["do"] for s in result["stages"]] == ["roll", "pray"]
    assert result["prayed"]["dice"] == sorted(pray) and result["prayed"]["bonus"] == 1


ALKEMY = {"characteristic": 5, "bonus": 2, "difficulty": 12}


def test_alkemy_bonus_roll_with_a_keep_then_done():
    """A keep draws nothing and may be changed again, so the GM's page
    sends the dice back; the player says done, and the GM (no step of its
    own) reveals at once."""
    gm, pl, rid, d = start("alkemy", ALKEMY, 5, 6)
    st = pl.open(d)["state"]
    best = fair.view(st)["result"]["kept"]
    other = [i for i in range(4) if i not in best]
    d2 = gm.open(pl.step(rid, {"do": "keep", "dice": other}))["reply"]
    assert kind(d2) == "d"
    assert fair.view(pl.open(d2)["state"])["result"]["kept"] == other
    reveal = gm.open(pl.pass_turn(rid))["reply"]
    result = finish_verified(gm, pl, rid, reveal)
    assert [s["do"] for s in result["stages"]] == ["roll", "keep"] and result["kept"] == other
    assert result["stages"][1]["draws"] == []


@pytest.mark.parametrize("system, spec", [
    ("open_tale", {"level": 4, "heroic": True, "target": 9}),
    ("jadeclaw", {"dice": "2d12 & d4", "difficulty": "routine"}),
    ("milhamah", {"shoresh": "אשר", "rounds": 0}),
    ("mirage", {"attribute": 8, "passive": True}),
    ("alkemy", {"characteristic": 3, "difficulty": 10}),
], ids=["open_tale", "jadeclaw", "milhamah-no-rerolls", "mirage-passive", "alkemy-no-bonus"])
def test_a_simple_roll_is_revealed_with_its_dice(system, spec):
    """With no step possible, the GM's page answers the player's Roll with
    the final link itself: three links in all."""
    gm, pl, rid, reveal = start(system, spec, 7, 8)
    result = finish_verified(gm, pl, rid, reveal)
    assert len(result["stages"]) == 1


def test_milhamah_opposed_gm_steps_for_the_opponent():
    """The player passes, which in an opposed Milhamah roll is the
    initiator's ``stand`` (the opponent reacts only after the initiator's
    turn); the GM rerolls the opponent's dice. The GM's choice travels first
    (no seed in it); the player's page then sends the seed those dice come
    from. The reaction ends the roll: the initiator may not act again, and
    the GM's page reveals by itself."""
    spec = {"shoresh": "אשר", "rerolls": 2, "opponent": {"shoresh": "שלם", "rerolls": 2}}
    gm, pl, rid, d = start("milhamah", spec, 9, 10)
    pl.open(d)
    passed = gm.open(pl.pass_turn(rid))
    assert passed["reply"] is None and passed["note"] == "The player's turn is over: take the GM's step or reveal."
    assert fair.view(gm.get(rid, "gm"))["gm_may_step"]
    g = gm.gm_step(rid, {"do": "reroll", "side": "opponent", "dice": [0, 1]})
    got = pl.open(g)
    assert got["note"] == "The GM asks to roll its step." and share.decode(g)["data"]["m"] == [{
        "k": "g", "x": {"do": "reroll", "side": "opponent", "dice": [0, 1]}}]
    assert fair.view(got["state"])["gm_action"]["side"] == "opponent"
    reveal = gm.open(pl.answer(rid))["reply"]
    assert share.decode(reveal)["fair"] == "v"  # the final link
    result = finish_verified(gm, pl, rid, reveal)
    assert [(s["do"], s.get("side")) for s in result["stages"]] == [
        ("roll", None), ("stand", None), ("reroll", "opponent")]
    assert "reroll" not in result["allowed"]
    seeds = [m["s"] for m in gm.get(rid, "gm")["msgs"] if m["k"] == "s"]
    assert result["stages"][2]["draws"] == reference_faces(gm.get(rid, "gm")["secret"], seeds[1], rid, 1, [12, 12])


def test_the_gm_may_reveal_early_and_the_player_is_told():
    """The GM reveals while the player could still reroll: it verifies, and
    says the roll ended early."""
    gm, pl, rid, d = start("milhamah", MILHAMAH, 11, 12)
    pl.open(d)
    got = pl.open(gm.reveal(rid))
    assert got["verified"]["ended_early"] and fair.status(got["state"]) == "verified"


def test_a_step_crossing_an_early_reveal():
    """The player's reroll and the GM's early reveal cross: the GM's page
    refuses the late step; the player's page verifies the reveal and says
    the last move was not rolled."""
    gm, pl, rid, d = start("milhamah", MILHAMAH, 13, 14)
    pl.open(d)
    late = pl.step(rid, {"do": "reroll", "dice": [0]})
    reveal = gm.reveal(rid)
    with pytest.raises(fair.OutOfOrder, match="already revealed"):
        gm.open(late)
    got = pl.open(reveal)
    assert got["note"].startswith("The GM revealed the roll before your last move")
    assert fair.status(got["state"]) == "verified"


# --------------------------------------------------------------------------
# What each side can know, and when.

def decoded_text(link: str) -> str:
    return json.dumps(share.decode(link), ensure_ascii=False)


def test_the_secret_reaches_the_player_only_in_the_reveal():
    """No link to the player before the reveal holds the GM's secret (nor
    any part of it of 16 hex digits), and the player's stored state has no
    secret until it is verified."""
    gm, pl, rid, d = start("milhamah", MILHAMAH, 15, 16)
    secret = gm.get(rid, "gm")["secret"]
    to_player = [fair.request_link(gm.get(rid, "gm")), d]
    assert "secret" not in fair.public(gm.get(rid, "gm"))
    pl.open(d)
    d2 = gm.open(pl.step(rid, {"do": "reroll", "dice": [0, 1]}))["reply"]
    assert kind(d2) == "v"
    for link in to_player:
        text = decoded_text(link)
        assert not any(secret[i:i + 16] in text for i in range(0, 49))
    assert "secret" not in pl.get(rid, "player")
    assert secret in decoded_text(d2)


def test_a_steps_dice_come_from_the_seed_sent_with_the_choice():
    """The reroll's dice depend on the seed that travels in the same link
    as the choice: the same choice with another seed gives other dice, so
    the GM's page could not know them before that link arrived."""
    faces = set()
    for seed in range(6):
        gm, pl, rid, d = start("milhamah", MILHAMAH, 17, 18)
        pl.open(d)
        pl.entropy = random.Random(1000 + seed).randbytes
        reveal = gm.open(pl.step(rid, {"do": "reroll", "dice": [0, 1, 2]}))["reply"]
        faces.add(tuple(pl.open(reveal)["verified"]["result"]["stages"][1]["draws"]))
    assert len(faces) == 6


def test_the_commitment_is_sent_before_any_seed_exists():
    """The request link carries the commitment and the player's answer
    carries the transcript hash over it: the answer is bound to the
    commitment it was made after."""
    gm = Device(19)
    rid, q = gm.ask("jadeclaw", {"dice": [8]}, "Dana")
    c = share.decode(q)["data"]["c"]
    assert c == gm.get(rid, "gm")["msgs"][0]["c"]
    pl = Device(20)
    pl.open(q)
    a = share.decode(pl.answer(rid))["data"]
    assert a["h"] == fair.transcript_hash(gm.get(rid, "gm")["msgs"][:1])


# --------------------------------------------------------------------------
# Tampering, each refused with its message; the stores untouched.

def repack(link: str, change) -> str:
    """The link with its data changed by ``change(data)`` and packed again
    (a tamperer who knows the format)."""
    d = share.decode(link)
    data = copy.deepcopy(d["data"])
    change(data)
    return share.encode_fair(d["fair"], data)


def refused(device: Device, link: str, error, match: str):
    """The link is refused with ``error`` and a message, and the device's
    requests and history are exactly as before."""
    before = copy.deepcopy((device.requests, device.history))
    with pytest.raises(error, match=match) as e:
        device.open(link)
    assert isinstance(e.value, fair.FairError) and isinstance(e.value, ValueError)
    assert str(e.value)[0].isupper() and str(e.value).endswith(".")
    assert (device.requests, device.history) == before
    return str(e.value)


def test_a_changed_request_is_caught_at_the_answer():
    """The difficulty is changed in the request on its way to the player:
    the player's answer does not follow from the GM's request."""
    gm = Device(21)
    rid, q = gm.ask("milhamah", MILHAMAH, "Dana")
    pl = Device(22)
    pl.open(repack(q, lambda d: d["p"].update(difficulty=1)))
    refused(gm, pl.answer(rid), fair.Tampered, "does not follow from the roll as your page has it")


def test_a_changed_seed_is_caught_at_the_dice():
    """The player's seed is changed on its way to the GM: the GM's page
    cannot tell, but its dice link is bound to the changed seed, and the
    player's page refuses it."""
    gm, pl = Device(23), Device(24)
    rid, q = gm.ask("milhamah", MILHAMAH, "Dana")
    pl.open(q)
    a = repack(pl.answer(rid), lambda d: d["m"].update(s="ab" * 16))
    d = gm.open(a)["reply"]
    refused(pl, d, fair.Tampered, "a field was changed on the way")


def test_changed_dice_are_caught_at_the_next_step_and_at_the_reveal():
    """The dice are changed on their way to the player: the player's next
    link is refused by the GM's page, and the reveal shows the dice did not
    come from the secret."""
    gm, pl, rid, d = start("milhamah", MILHAMAH, 25, 26)
    pl.open(repack(d, lambda x: x["m"][0].update(d=[1] * 8)))
    refused(gm, pl.step(rid, {"do": "reroll", "dice": [0]}), fair.Tampered, "changed on the way")
    msg = refused(pl, gm.reveal(rid), fair.WrongDice, "are not the dice its secret gives")
    assert "the roll" in msg


def test_dice_that_do_not_fit_the_roll_are_refused_at_once():
    gm, pl, rid, d = start("milhamah", MILHAMAH, 27, 28)
    refused(pl, repack(d, lambda x: x["m"][0].update(d=[13] * 8)), fair.WrongDice, "from 1 to 12 \\(got 13\\)")
    refused(pl, repack(d, lambda x: x["m"][0].update(d=[0] * 8)), fair.DamagedLink, "dice is not in the expected form")
    refused(pl, repack(d, lambda x: x["m"][0].update(d=[3] * 7)), fair.WrongDice, "do not fit the roll")


def test_a_wrong_secret_is_refused():
    """A reveal whose secret is not the committed one: the player's page
    and a third party refuse it."""
    gm, pl, rid, d = start("jadeclaw", {"dice": [12, 8]}, 29, 30)
    bad = repack(d, lambda x: x.update(z="00" * 32))
    refused(pl, bad, fair.WrongSecret, "does not match the commitment")
    refused(Device(31), bad, fair.WrongSecret, "does not match the commitment")


def grind(st, want):
    """A dishonest GM after seeing the player's seed: secrets tried until
    the roll shows ``want``."""
    q, seed = st["msgs"][0], st["msgs"][1]["s"]
    for i in range(2000):
        secret = hashlib.sha256(f"grind{i}".encode()).hexdigest()
        r = rules.roll(q["y"], q["p"], fair.FairRng(secret, seed, q["i"], 0))
        if r["outcome"] == want:
            return secret
    raise AssertionError("no secret found")


def forged_reveal(st, secret):
    """A complete, self-consistent reveal under another secret: commitment
    and transcript hash recomputed, dice derived from the new secret."""
    q = {**st["msgs"][0]}
    q["c"] = fair.commitment(q, secret)
    msgs = fair._derive(q, secret, [m for m in st["msgs"][1:] if m["k"] != "d"])[0]
    return {**st, "msgs": msgs, "secret": secret, "revealed": True}


def test_a_secret_changed_after_the_commitment_cannot_force_a_face():
    """After seeing the player's seed, the GM finds a secret that botches
    the roll. Revealing it is refused by the player's page whether the old
    commitment is kept (secret does not match) or a new one is made
    (not the commitment sent with the request); had the GM's page shown the
    botched dice, the true secret would not give them either."""
    gm, pl, rid, d = start("jadeclaw", {"dice": "d12 & d8", "difficulty": "routine"}, 32, 33)
    honest = pl.open(d)["verified"]["result"]["outcome"]
    pl2 = Device(33)
    gm2 = Device(32)
    rid2, q = gm2.ask("jadeclaw", {"dice": "d12 & d8", "difficulty": "routine"}, "Dana", "test")
    pl2.open(q)
    gm2.open(pl2.answer(rid2))
    st = gm2.get(rid2, "gm")
    want = "botch" if honest != "botch" else "success"
    forged = forged_reveal(st, grind(st, want))
    keep_c = repack(fair.reveal_link(forged), lambda x: x.update(c=st["msgs"][0]["c"]))
    refused(pl2, keep_c, fair.WrongSecret, "does not match the commitment made before")
    refused(pl2, fair.reveal_link(forged), fair.WrongSecret, "commitment it sent with the request")
    third = Device(34).open(fair.reveal_link(forged))
    assert third["verified"]["fingerprint"] != fair.fingerprint(st["msgs"][0]["c"])


def test_a_reused_request_id_is_refused():
    """A second request under an id the player already holds: refused,
    naming the first. The same request opened again changes nothing."""
    gm, pl = Device(35), Device(36)
    rid, q = gm.ask("jadeclaw", {"dice": [8]}, "Dana", "first")
    pl.open(q)
    assert pl.open(q)["note"] == "You already have this request; nothing changed."
    other = fair.new_request("jadeclaw", {"dice": [12]}, "Dana", entropy=random.Random(35).randbytes)
    assert other["rid"] == rid and other["msgs"][0] != gm.get(rid, "gm")["msgs"][0]
    refused(pl, fair.request_link(other), fair.ReusedRequest, "reuses the id of another request.*Dana's Jadeclaw")


def test_the_gm_page_never_makes_a_request_id_twice():
    gm = Device(37)
    first = gm.ask("jadeclaw", {"dice": [8]}, "Dana")[0]
    gm.entropy = random.Random(37).randbytes  # the same bytes again
    assert gm.ask("jadeclaw", {"dice": [8]}, "Dana")[0] != first


def test_a_second_answer_is_refused():
    """The player answers again with a new seed (to roll again): refused;
    the first answer opened again changes nothing and gives the GM's dice
    link back."""
    gm, pl = Device(38), Device(39)
    rid, q = gm.ask("milhamah", MILHAMAH, "Dana")
    pl.open(q)
    a = pl.answer(rid)
    d = gm.open(a)["reply"]
    again = gm.open(a)
    assert again["note"] == "This link was already opened; nothing changed." and again["reply"] == d
    other = Device(40)
    other.open(q)
    refused(gm, other.answer(rid), fair.AlreadyAnswered, "Another device already answered this request")


def test_steps_out_of_order_are_refused():
    gm, pl = Device(41), Device(42)
    rid, q = gm.ask("milhamah", MILHAMAH, "Dana")
    pl.open(q)
    with pytest.raises(fair.OutOfOrder, match="waiting for the player's answer"):
        pl.step(rid, {"do": "reroll", "dice": [0]})
    a = pl.answer(rid)
    crafted = repack(a, lambda x: x["m"].update(x={"do": "reroll", "dice": [0]}))
    refused(gm, crafted, fair.OutOfOrder, "out of order: the roll is waiting for the player's answer")
    passed = repack(a, lambda x: x.update(m={"k": "e"}))
    refused(gm, passed, fair.OutOfOrder, "ends the player's turn")
    d = gm.open(a)["reply"]
    with pytest.raises(fair.OutOfOrder, match="waiting for the GM's dice"):
        pl.pass_turn(rid)
    pl.open(d)
    step = pl.step(rid, {"do": "reroll", "dice": [0]})
    skipped = repack(step, lambda x: x.update(n=5))
    refused(gm, skipped, fair.OutOfOrder, "A link is missing")
    gm_step = repack(d, lambda x: x.update(m={"k": "g", "x": {"do": "reroll", "side": "opponent", "dice": [0]}}))
    refused(pl, gm_step, fair.OutOfOrder, "A link is missing|older")


def test_an_old_link_that_differs_is_refused():
    """A dice link from earlier in the roll, altered: refused as old."""
    gm, pl, rid, d = start("alkemy", ALKEMY, 43, 44)
    pl.open(d)
    d2 = gm.open(pl.step(rid, {"do": "keep", "dice": [0, 2]}))["reply"]
    pl.open(d2)
    assert pl.open(d)["note"] == "This link was already opened; nothing changed."
    refused(pl, repack(d, lambda x: x["m"][0].update(d=[1, 1, 1, 1])), fair.OutOfOrder, "older than the roll")


def test_links_from_another_request_are_refused():
    """A player holding two requests from the same GM: a dice link moved
    onto the other request (its id rewritten) is refused, naming the
    request it belongs to; a link for a request never opened, too."""
    gm, pl = Device(45), Device(46)
    rid_a, qa = gm.ask("milhamah", MILHAMAH, "Dana")
    rid_b, qb = gm.ask("milhamah", MILHAMAH, "Eli")
    pl.open(qa)
    pl.open(qb)
    da = gm.open(pl.answer(rid_a))["reply"]
    gm.open(pl.answer(rid_b))
    # move A's dice onto B: B's transcript has its own answer at that place
    refused(pl, repack(da, lambda x: x.update(i=rid_b)), fair.Tampered, "does not follow|belongs to another")
    # A's first answer moved onto B: it follows A's transcript, not B's
    a_first = fair.last_link({**pl.get(rid_a, "player"), "msgs": pl.get(rid_a, "player")["msgs"][:2]})
    refused(gm, repack(a_first, lambda x: x.update(i=rid_b)), fair.OtherRequest,
            "belongs to another request \\(Dana's Milhamah RPG roll\\)")
    fresh = Device(47)
    fresh_rid, fq = gm.ask("milhamah", MILHAMAH, "Fay")
    fresh.open(fq)
    fresh_a = fresh.answer(fresh_rid)
    refused(gm, repack(fresh_a, lambda x: x.update(i=rid_a)), fair.OtherRequest, "belongs to another request \\(Fay's")
    refused(Device(48), da, fair.UnknownRequest, "open the GM's request link first")
    refused(Device(48), fresh_a, fair.UnknownRequest, "did not make")


def test_a_changed_reveal_is_refused():
    """The final link with a field changed: the spec (the commitment covers
    it), a seed or a step (the transcript hash covers it), the hash itself."""
    gm, pl, rid, reveal = start("jadeclaw", {"dice": [12, 8], "difficulty": "routine"}, 49, 50)
    third = Device(51)
    refused(third, repack(reveal, lambda x: x["q"]["p"].update(difficulty="trivial")),
            fair.WrongSecret, "setup was changed")
    refused(third, repack(reveal, lambda x: x["q"].update(w="Eve")), fair.WrongSecret, "setup was changed")
    refused(third, repack(reveal, lambda x: x["m"][0].update(s="cd" * 16)), fair.Tampered,
            "changed after it was made")
    refused(third, repack(reveal, lambda x: x.update(h="0" * 32)), fair.Tampered, "changed after it was made")
    refused(third, repack(reveal, lambda x: x["m"].append({"k": "e"})), fair.Tampered, "changed after")
    refused(third, repack(reveal, lambda x: x["m"].append({"k": "g", "x": {"do": "keep"}})), fair.OutOfOrder,
            "out of order: the roll is waiting for the player's next step")
    refused(third, repack(reveal, lambda x: x["m"].insert(0, {"k": "e"})), fair.OutOfOrder, "out of order")


def test_two_players_press_roll_on_one_request():
    """The request link went to the whole table and two players pressed
    Roll: the GM's page rolls the first answer and refuses the second; the
    second player's page refuses the reveal, saying someone else's answer
    was rolled."""
    gm, first, second = Device(84), Device(85), Device(86)
    rid, q = gm.ask("jadeclaw", {"dice": [12]}, "Dana")
    first.open(q)
    second.open(q)
    reveal = gm.open(first.answer(rid))["reply"]
    late = second.answer(rid)
    refused(gm, late, fair.AlreadyAnswered, "Another device already answered this request")
    refused(second, reveal, fair.AlreadyAnswered, "someone else pressed Roll first")
    assert fair.status(first.open(reveal)["state"]) == "verified"


def test_a_reveal_with_steps_the_player_never_sent_is_refused():
    """A GM who adds a reroll the player never asked for (recomputing every
    hash with its own secret) is caught by the player's page."""
    gm, pl, rid, d = start("milhamah", MILHAMAH, 52, 53)
    pl.open(d)
    st = gm.get(rid, "gm")
    extra = {"k": "s", "s": "ee" * 16, "x": {"do": "reroll", "dice": [0]}}
    moves = [m for m in st["msgs"][1:] if m["k"] != "d"] + [extra]
    forged = {**st, "msgs": fair._derive(st["msgs"][0], st["secret"], moves)[0], "revealed": True}
    refused(pl, fair.reveal_link(forged), fair.Tampered, "never sent or saw")


def test_steps_the_rules_refuse():
    """A reroll of more dice than X, a prayer on a die showing 1, a step
    for the opponent's side by the player, the GM choosing the player's
    dice: refused with the rules' reason, on the page that makes the step
    and on the page that receives a crafted one."""
    gm, pl, rid, d = start("milhamah", MILHAMAH, 54, 55)
    pl.open(d)
    with pytest.raises(fair.StepRefused, match="at most X = 3"):
        pl.step(rid, {"do": "reroll", "dice": [0, 1, 2, 3]})
    with pytest.raises(fair.StepRefused, match="side 'initiator'"):
        pl.step(rid, {"do": "reroll", "side": "opponent", "dice": [0]})
    ok = pl.step(rid, {"do": "reroll", "dice": [0]})
    refused(gm, repack(ok, lambda x: x["m"]["x"].update(dice=[0, 1, 2, 3, 4])), fair.StepRefused, "at most X")
    opposed = {**MILHAMAH, "opponent": {"shoresh": "שלם", "rerolls": 2}}
    gm2, pl2, rid2, d2 = start("milhamah", opposed, 56, 57)
    pl2.open(d2)
    gm2.open(pl2.pass_turn(rid2))
    with pytest.raises(fair.StepRefused, match="player's own dice are the player's"):
        gm2.gm_step(rid2, {"do": "reroll", "dice": [0]})


HOSTILE = {
    "truncated-request": lambda q: q[:-7],
    "truncated-answer": lambda q: "v1.a." + share._pack({"i": "x"})[:-3],
    "too-long": lambda q: "v1.q." + "A" * (share.MAX_FRAGMENT + 1),
    "zip-bomb": lambda q: "v1.a." + share.base64.urlsafe_b64encode(
        share.zlib.compress(b'"' + b"a" * (share.MAX_JSON * 4) + b'"', 9)).decode().rstrip("="),
    "dice-not-numbers": lambda q: "v1.d." + share._pack({"i": RID, "n": 1, "h": "0" * 32, "m": {"k": "d", "d": [[[[1]]]]}}),
    "nested-bomb": lambda q: "v1.v." + share.base64.urlsafe_b64encode(
        share.zlib.compress(b"[" * 1000 + b"]" * 1000, 9)).decode().rstrip("="),
    "list-payload": lambda q: "v1.q." + share._pack([1, 2]),
    "not-base64": lambda q: "v1.v.<script>",
    "script-name": lambda q: repack(q, lambda d: d.update(w="<script>alert(1)</script>" * 3)),
    "unknown-system": lambda q: repack(q, lambda d: d.update(y="dnd")),
    "bad-spec": lambda q: repack(q, lambda d: d.update(p={"dice": "2d7"})),
    "short-commitment": lambda q: repack(q, lambda d: d.update(c="abc")),
    "upper-hex-id": lambda q: repack(q, lambda d: d.update(i=d["i"].upper())),
    "extra-field": lambda q: repack(q, lambda d: d.update(z="00" * 32)),
    "kind-inside": lambda q: repack(q, lambda d: d.update(k="q")),
    "number-as-bool": lambda q: "v1.a." + share._pack({"i": RID, "n": True, "h": "0" * 32, "m": {"k": "e"}}),
    "huge-number": lambda q: "v1.a." + share._pack({"i": RID, "n": 10 ** 400, "h": "0" * 32, "m": {"k": "e"}}),
    "draws-in-step": lambda q: "v1.a." + share._pack({"i": RID, "n": 3, "h": "0" * 32,
                                                      "m": {"k": "s", "s": SEED, "x": {"do": "reroll", "draws": [1]}}}),
    "roll-as-step": lambda q: "v1.a." + share._pack({"i": RID, "n": 3, "h": "0" * 32,
                                                     "m": {"k": "s", "s": SEED, "x": {"do": "roll"}}}),
    "gm-move-in-answer": lambda q: "v1.a." + share._pack({"i": RID, "n": 2, "h": "0" * 32, "m": {"k": "d", "d": [1]}}),
    "setup-link": lambda q: share.encode_setup("jadeclaw", {"dice": [8]}),
    "reveal-no-moves": lambda q: "v1.v." + share._pack({"i": RID, "h": "0" * 32, "c": "0" * 64, "z": KEY,
                                                        "q": {"y": "jadeclaw", "p": {"dice": [8]}, "w": "D"}, "m": []}),
    "not-a-string": lambda q: 12345,
}


@pytest.mark.parametrize("name", list(HOSTILE), ids=list(HOSTILE))
def test_damaged_and_hostile_links_are_refused(name):
    """share.py's limits (length, inflation, nesting) and every field's
    form: a FairError with a banner message, nothing stored."""
    gm = Device(58)
    rid, q = gm.ask("jadeclaw", {"dice": [8]}, "Dana")
    link = HOSTILE[name](q)
    for device in (Device(59), gm):
        refused(device, link, fair.FairError, "link|request|roll")


def test_share_open_link_leaves_fair_links_to_fair():
    """The setup/result opener refuses a fair-roll link with a message
    (until the page routes it to fair.open_link) and old kinds still open."""
    gm = Device(60)
    _rid, q = gm.ask("jadeclaw", {"dice": [8]}, "Dana")
    with pytest.raises(share.ShareError, match="fair roll at a distance"):
        share.open_link(q)
    assert share.open_link(share.encode_setup("jadeclaw", {"dice": [8]}))["kind"] == "setup"
    with pytest.raises(ValueError):
        share.encode_fair("s", {})


def test_open_link_changes_none_of_the_states_given():
    """Pure: the stored states passed in are never modified; the new state
    comes back."""
    gm, pl, rid, d = start("milhamah", MILHAMAH, 61, 62)
    before = copy.deepcopy(pl.requests)
    got = fair.open_link(d, pl.requests)
    assert pl.requests == before and got["state"] != before[0]


# --------------------------------------------------------------------------
# State: statuses, storage, the open-too-long warning.

def test_statuses_through_a_turn():
    gm, pl = Device(63), Device(64)
    rid, q = gm.ask("alkemy", ALKEMY, "Dana")
    seen = [(fair.status(gm.get(rid, "gm")), None)]
    pl.open(q)
    seen.append((fair.status(gm.get(rid, "gm")), fair.status(pl.get(rid, "player"))))
    a = pl.answer(rid)
    seen.append((fair.status(gm.get(rid, "gm")), fair.status(pl.get(rid, "player"))))
    d = gm.open(a)["reply"]
    pl.open(d)
    seen.append((fair.status(gm.get(rid, "gm")), fair.status(pl.get(rid, "player"))))
    v = gm.open(pl.pass_turn(rid))["reply"]
    seen.append((fair.status(gm.get(rid, "gm")), fair.status(pl.get(rid, "player"))))
    pl.open(v)
    seen.append((fair.status(gm.get(rid, "gm")), fair.status(pl.get(rid, "player"))))
    assert seen == [("waiting", None), ("waiting", "received"), ("waiting", "answered"),
                    ("rolled", "rolled"), ("revealed", "answered"), ("revealed", "verified")]
    assert fair.turn(gm.get(rid, "gm")) is None


def test_a_request_open_too_long_is_flagged_on_the_players_page():
    gm, pl = Device(65), Device(66)
    rid, q = gm.ask("milhamah", MILHAMAH, "Dana")
    pl.open(q)
    pl.answer(rid)
    st = pl.get(rid, "player")
    assert not fair.view(st, now=pl.now + fair.OPEN_TOO_LONG_MS)["overdue"]
    assert fair.view(st, now=pl.now + fair.OPEN_TOO_LONG_MS + 1)["overdue"]
    assert not fair.view(gm.get(rid, "gm"), now=gm.now + 10 * fair.OPEN_TOO_LONG_MS)["overdue"]


def test_stored_requests_survive_a_reload_and_go_on():
    """The requests list dumped and loaded (as localStorage will hold it)
    mid-turn on both pages; the roll then finishes as before."""
    gm, pl, rid, d = start("mirage", MIRAGE, 67, 68)
    gm.requests, warn_gm = fair.load_requests(fair.dump_requests(gm.requests))
    pl.open(d)
    pl.requests, warn_pl = fair.load_requests(fair.dump_requests(pl.requests))
    assert warn_gm is None and warn_pl is None
    reveal = gm.open(pl.step(rid, {"do": "pray", "dice": [0]}))["reply"]
    finish_verified(gm, pl, rid, reveal)
    loaded, warn = fair.load_requests(fair.dump_requests(pl.requests + gm.requests))
    assert len(loaded) == 2 and warn is None


def test_damaged_stored_requests_are_dropped_with_a_warning():
    gm, pl, rid, d = start("milhamah", MILHAMAH, 69, 70)
    good = gm.get(rid, "gm")
    changed_dice = copy.deepcopy(good)
    changed_dice["msgs"][2]["d"][0] = good["msgs"][2]["d"][0] % 12 + 1
    wrong_secret = {**good, "secret": "00" * 32}
    no_secret = fair.public(good)
    out_of_turn = {**good, "msgs": good["msgs"] + [{"k": "d", "d": [1]}]}
    bad_time = {**good, "updated": "yesterday"}
    text = fair.dump_requests([good, changed_dice, wrong_secret, no_secret, out_of_turn, "junk", {},
                               bad_time, good])
    loaded, warn = fair.load_requests(text)
    assert loaded == [good] and warn.startswith("8 stored fair-roll request(s) could not be read")
    for bad in ("{", "[]", '{"v": 2, "requests": []}', "[" * 5000, 7):
        assert fair.load_requests(bad)[0] == [] and fair.load_requests(bad)[1]
    assert fair.load_requests("") == ([], None)


def test_resending_the_last_link():
    """Each side can send its last link again; the other side takes it as
    already opened."""
    gm, pl, rid, d = start("milhamah", MILHAMAH, 71, 72)
    assert fair.last_link(gm.get(rid, "gm")) == d
    pl.open(d)
    assert pl.open(fair.last_link(gm.get(rid, "gm")))["note"].startswith("This link was already opened")
    a = pl.step(rid, {"do": "reroll", "dice": [0]})
    assert fair.last_link(pl.get(rid, "player")) == a


def test_a_new_request_checks_its_fields():
    with pytest.raises(SpecError, match="player"):
        fair.new_request("jadeclaw", {"dice": [8]}, "   ")
    with pytest.raises(SpecError, match="label"):
        fair.new_request("jadeclaw", {"dice": [8]}, "Dana", "x" * 81)
    with pytest.raises(SpecError, match="dice"):
        fair.new_request("jadeclaw", {"dice": "2d7"}, "Dana")
    st = fair.new_request("jadeclaw", {"dice": [8]}, "  Dana   Levi ")
    assert st["msgs"][0]["w"] == "Dana Levi" and len(st["secret"]) == 64 and len(st["rid"]) == 12


# --------------------------------------------------------------------------
# History labels.

def test_provenance_labels():
    gm, pl, rid, reveal = start("jadeclaw", {"dice": [12]}, 73, 74)
    pl.open(reveal)
    fair_entry = pl.history[-1]
    here = {"system": "jadeclaw", "result": rules.roll("jadeclaw", {"dice": [8]}), "label": ""}
    named = {**here, "label": "Wu — climb"}
    shared = {**here, "label": "Shared link"}
    assert fair.provenance(here) == fair.provenance(named) == "rolled here"
    assert fair.provenance(shared) == fair.provenance({**here, "source": "shared"}) == \
        "shared result, faces as reported"
    assert fair.provenance(fair_entry) == "fair roll, verified"
    assert fair.provenance(gm.history[-1]) == "fair roll, verified"


def test_a_fair_label_that_does_not_check_out_is_downgraded():
    """A history entry claiming to be fair whose dice were changed, whose
    link is damaged or missing, or whose link belongs to another roll is
    shown as a shared result."""
    gm, pl, rid, reveal = start("jadeclaw", {"dice": [12]}, 75, 76)
    pl.open(reveal)
    e = pl.history[-1]
    other = start("jadeclaw", {"dice": [12]}, 77, 78)[3]
    changed = copy.deepcopy(e)
    changed["result"]["stages"][0]["draws"] = [e["result"]["stages"][0]["draws"][0] % 12 + 1]
    for bad in (changed, {**e, "fair": e["fair"][:-9]}, {**e, "fair": None}, {**e, "fair": other},
                {**e, "system": "open_tale"}, "junk"):
        assert fair.provenance(bad) == "shared result, faces as reported"


# --------------------------------------------------------------------------
# Link sizes.

#: What each kind of link may measure in a typical Milhamah turn with a
#: reroll (the default 8 dice of two colours; measured: request 400, answer
#: 143, dice 133, step 177, reveal 603 characters): the QR code of the
#: whole URL (with a 60-character page address) stays at version 25 or
#: below at error correction M, which a phone reads comfortably (measured:
#: versions 10 to 20).
TYPICAL = {"q": 500, "a": 200, "d": 200, "v": 800}
QR_MAX_VERSION = 25
URL = "https://dice-table.example.org/our-groups/tables/index.html#"  # 60 characters


def milhamah_turn_links():
    gm, pl = Device(79), Device(80)
    rid, q = gm.ask("milhamah", rules.default_spec("milhamah"), "Dana Levi", "Climb the wall")
    pl.open(q)
    a = pl._do(fair.answer, rid, entropy=pl.entropy, device={"name": "Dana's phone", "key": "3c" * 16})
    d = gm.open(a)["reply"]
    pl.open(d)
    step_link = pl.step(rid, {"do": "reroll", "dice": [0, 1, 2]})
    v = gm.open(step_link)["reply"]
    return {"q": q, "a": a, "d": d, "a-step": step_link, "v": v}


def test_typical_links_are_short():
    links = milhamah_turn_links()
    assert len(URL) == 60
    for name, link in links.items():
        assert len(link) <= TYPICAL[name[0]], (name, len(link))
        assert len(link) <= share.MAX_FRAGMENT


def test_typical_links_make_small_qr_codes():
    segno = pytest.importorskip("segno")  # a test tool; the page loads its own copy
    for name, link in milhamah_turn_links().items():
        assert segno.make(URL + link, error="m").version <= QR_MAX_VERSION, name


def test_the_longest_turn_stays_within_the_link_limits():
    """An ALKEMY turn of the most steps a result may hold (23 keeps, each
    with its seed): every link, the reveal included, within share.py's
    limits and still a QR code of version 40 or less."""
    gm, pl, rid, d = start("alkemy", {"characteristic": 5, "bonus": 2, "difficulty": 12}, 81, 82)
    pl.open(d)
    for i in range(rules.MAX_STAGES - 1):
        d = gm.open(pl.step(rid, {"do": "keep", "dice": [i % 4, (i + 1) % 4]}))["reply"]
        pl.open(d)
    with pytest.raises(fair.StepRefused, match="at most 23 steps"):
        pl.step(rid, {"do": "keep", "dice": [0, 1]})
    reveal = gm.open(pl.pass_turn(rid))["reply"]
    assert len(reveal) < share.MAX_FRAGMENT / 4
    result = finish_verified(gm, pl, rid, reveal)
    assert len(result["stages"]) == rules.MAX_STAGES


# --------------------------------------------------------------------------
# Whether anyone may still act.

def test_open_steps_follow_the_rules():
    """open_steps says "no step" only when the rules refuse every verb."""
    verbs = {"milhamah": [{"do": "reroll", "dice": [0]}, {"do": "cipher", "dice": [0]},
                         {"do": "natural", "reward": "merit"}],
             "mirage": [{"do": "pray", "dice": [0]}], "alkemy": [{"do": "keep", "dice": [0, 1]}]}
    r = random.Random(83)
    cases = [("milhamah", {"shoresh": "אשר", "rounds": 0}), ("milhamah", MILHAMAH),
             ("mirage", MIRAGE), ("mirage", {"attribute": 8, "passive": True}),
             ("alkemy", ALKEMY), ("alkemy", {"characteristic": 3, "difficulty": 10})]
    for system, spec in cases:
        for _ in range(20):
            res = rules.roll(system, spec, r)
            player_may, _gm = fair.open_steps(res)
            allowed = []
            for v in verbs[system]:
                try:
                    rules.act(system, spec, res, v, random.Random(0))
                    allowed.append(v["do"])
                except SpecError:
                    pass
            if not player_may:
                assert not allowed, (system, spec, allowed)
    assert fair.open_steps(rules.roll("open_tale", {"level": 3})) == (False, False)
    assert fair.open_steps(None) == (False, False)
