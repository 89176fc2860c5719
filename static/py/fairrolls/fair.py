"""Fair rolls at a distance (docs/FAIR-ROLLS.md): dice that neither the GM nor the
player can steer, decided by both sides' secrets, passed in links with no
server, and checkable by anyone offline. Pure: no DOM, no clock (the page
passes ``now``), stdlib only (``hashlib``, ``hmac``, ``secrets``).

**The rng.** The provably-fair construction of the online dice sites
(server seed committed by its hash, client seed, nonce, HMAC-SHA256): the
GM's committed secret is the HMAC key and the player's seed is in the
message, so no one can compute a draw before the secret is revealed, and
the GM, bound by its commitment before the seed existed, cannot pick one.
Stage ``j`` (0 the roll, then each step) reads the byte stream::

    HMAC-SHA256(key = GM secret, msg = "<player seed>:<request id>:<j>:<block>")

for block = 0, 1, 2 ... (each 32 bytes, concatenated). ``randint(a, b)``
with ``n = b - a + 1`` takes the fewest whole bytes ``k`` with
``256**k >= n``, reads them big-endian as ``v``, rejects ``v`` at or above
the largest multiple of ``n`` below ``256**k`` and reads the next ``k``
bytes; otherwise the face is ``a + v % n`` (no modulo bias: every face has
the same number of accepted values). ``n == 1`` reads nothing.

**The protocol.** A request is a transcript of messages, each a small dict;
each side keeps its copy. Every link after the request carries ``n`` (its
place in the transcript) and ``h``, the transcript hash of everything
before it (``H0 = SHA-256(TAG + "/transcript")``, ``H(i+1) = SHA-256(Hi ||
canonical JSON of message i)``, first 32 hex digits), so a link that does
not follow from the receiver's own copy is refused.

====  ======  =====================================================
kind  from    fields
====  ======  =====================================================
q     GM      request: ``i`` id, ``y`` system, ``p`` spec, ``w`` player,
              ``l`` label (optional), ``c`` commitment =
              SHA-256(TAG/commit, canonical JSON of i y p w l, secret)
s     player  a fresh seed ``s`` for the next stage; ``x`` the player's
              step (absent: the roll, or the GM's step just asked)
d     GM      ``d``: the draws of the stage just seeded
e     player  done: the turn passes to the GM
g     GM      ``x``: the GM's own step (the opponent's side, hit location)
====  ======  =====================================================

The turn order: q, s, d, then after each d the player takes a step (s with
x, then d) or passes (e); after e the GM takes a step (g, s, d) or reveals.
The reveal link carries the secret, the request and every s, e and g: its
verifier checks the secret against the commitment, derives every draw,
rebuilds the transcript, checks its hash and replays the stages through
``rules.replay``. Each stage's seed arrives with (or after) that stage's
choice, so no one knows a step's dice before the step is chosen: the player
never holds the secret before the end, and the GM gets the seed only with
the choice.

**Use from the page.** The page keeps one list of states (both roles,
plain JSON: ``dump_requests``/``load_requests``), opens a fragment with
``open_link(fragment, states, now=...)`` when ``is_link`` says it is one
(storing the returned state, offering ``reply`` to send, adding ``entry``
to the history), and calls ``new_request``, ``answer``, ``step``,
``pass_turn``, ``gm_step`` and ``reveal`` from its buttons; each returns
the new state and the link to send. ``view`` gives a row of the Requests
list; ``provenance`` the label of a history entry.

>>> import random                                   # (a fixed entropy source, for the example)
>>> gm = new_request("jadeclaw", {"dice": [8]}, "Dana", entropy=random.Random(1).randbytes)
>>> pl = open_link(request_link(gm), [])["state"]     # on the player's phone
>>> pl, answer_link = answer(pl, entropy=random.Random(2).randbytes)
>>> got = open_link(answer_link, [gm])            # no steps in Jadeclaw: revealed at once
>>> got["state"]["revealed"], got["reply"][:5]
(True, 'v1.v.')
>>> done = open_link(got["reply"], [pl])
>>> status(done["state"]), done["entry"]["source"]
('verified', 'fair')
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import secrets

import rules
from links import share
from records.synced import Synced
from rules.dice import SpecError, is_number
from shell.names import NAME_MAX

__all__ = [
    "FairRng", "FairError", "DamagedLink", "UnknownRequest", "ReusedRequest", "AlreadyAnswered",
    "OutOfOrder", "Tampered", "OtherRequest", "WrongSecret", "WrongDice", "StepRefused", "Voided",
    "commitment", "transcript_hash", "new_request", "request_link", "answer", "step",
    "pass_turn", "gm_step", "reveal", "reveal_link", "last_link", "is_link", "open_link", "verify",
    "status", "turn", "view", "open_steps", "history_entry", "provenance", "provenance_key",
    "PROVENANCE", "dump_requests", "load_requests", "merge_requests", "further", "synced_requests", "public",
    "device_key", "device_fingerprint", "player_advice", "reissue", "MODES", "answered_by",
]

TAG = "dice-table/fair/v1"
SECRET_BYTES = 32
SEED_BYTES = 16
RID_BYTES = 6
#: The transcript hash in links: 128 bits (a collision costs 2**64 work).
H_CHARS = 32
#: No transcript holds more messages (24 stages of at most four each).
MAX_MSGS = 100
LABEL_MAX = 80
#: A draw rejected this many times in a row (chance below 2**-500 for any
#: die here, at most 22 faces) stops the roll rather than loop for ever.
MAX_TRIES = 128
#: The player's page says a request is still open after this long (ms).
OPEN_TOO_LONG_MS = 24 * 3600 * 1000
MAX_REQUESTS = 200
#: What a player's answer or step may fix for the rest of their turn, before
#: any of its dice is known: play on by best play's advice, or take no
#: further step. Absent: the player chooses each step on their own page.
MODES = ("advice", "none")
DEVICE_KEY_BYTES = 16
#: The words of a device fingerprint (``device_fingerprint``): two of them
#: and a number, easy to read aloud and compare by eye.
WORDS = ("amber", "anchor", "apple", "arrow", "badger", "bell", "birch", "bison", "candle", "cedar",
         "cliff", "clover", "comet", "copper", "coral", "crane", "delta", "dune", "eagle", "ember",
         "fern", "flint", "fox", "garnet", "glade", "harbor", "hazel", "heron", "iris", "ivory",
         "jade", "juniper", "kestrel", "lantern", "lark", "lemon", "lotus", "maple", "meadow", "moss",
         "nutmeg", "oak", "olive", "onyx", "otter", "pebble", "pine", "plum", "quartz", "raven",
         "reed", "river", "saffron", "sage", "slate", "sparrow", "thistle", "tiger", "tulip", "umber",
         "violet", "walnut", "willow", "zephyr")

PROVENANCE = {
    "here": "rolled here",
    "fair": "fair roll, verified",
    "shared": "shared result, faces as reported",
}


# --------------------------------------------------------------------------
# Errors: one family, each message for the banner.

class FairError(ValueError):
    """A fair-roll link or step refused; ``str(e)`` is for the banner.
    Nothing was changed."""


class DamagedLink(FairError):
    """Truncated, hostile or not in the expected form."""


class UnknownRequest(FairError):
    """For a request this page does not hold."""


class ReusedRequest(FairError):
    """A request whose id this page already holds for another request."""


class AlreadyAnswered(FairError):
    """A second, different answer to a request: it would be a second roll."""


class OutOfOrder(FairError):
    """Not the move the transcript waits for: a step before the roll, a
    missing link, an old link that differs from what happened."""


class Tampered(FairError):
    """The link does not follow from the transcript as this page has it."""


class OtherRequest(Tampered):
    """The link follows from another request's transcript."""


class WrongSecret(FairError):
    """The revealed secret does not match the commitment."""


class WrongDice(FairError):
    """Dice that were shown are not the dice the secret gives."""


class StepRefused(FairError):
    """The rules do not allow that step now."""


class Voided(FairError):
    """The GM voided this request and asked again."""


_VOIDED = ("The GM voided this request (it went to the wrong device) and asked again with a new "
           "one; its links no longer count.")


# --------------------------------------------------------------------------
# The rng.

class FairRng:
    """``randint(a, b)`` from the stage's HMAC-SHA256 byte stream, by
    rejection (see the module docstring for the exact formula).

    >>> rng = FairRng(bytes(range(32)).hex(), "00112233445566778899aabbccddeeff", "0123456789ab", 0)
    >>> rng.block(0).hex()[:14]             # bytes 9a 7c e4 8e 80 a1 fc ...
    '9a7ce48e80a1fc'
    >>> [rng.randint(1, 6) for _ in range(7)]  # 154 % 6 + 1 = 5, ...; 0xfc = 252 is rejected
    [5, 5, 1, 5, 3, 6, 1]
    """

    def __init__(self, secret: str, seed: str, rid: str, stage: int):
        self._key = bytes.fromhex(secret)
        self._prefix = f"{seed}:{rid}:{stage}:"
        self._next_block = 0
        self._buf = b""

    def block(self, i: int) -> bytes:
        """Block ``i`` of this stage's stream."""
        msg = f"{self._prefix}{i}".encode("ascii")
        return hmac.new(self._key, msg, hashlib.sha256).digest()

    def _take(self, k: int) -> bytes:
        while len(self._buf) < k:
            self._buf += self.block(self._next_block)
            self._next_block += 1
        out, self._buf = self._buf[:k], self._buf[k:]
        return out

    def randint(self, a: int, b: int) -> int:
        n = b - a + 1
        if n < 1 or n > 2 ** 32:
            raise ValueError(f"randint({a}, {b}) is not a die")
        if n == 1:
            return a
        k = ((n - 1).bit_length() + 7) // 8
        span = 1 << (8 * k)
        limit = span - span % n
        for _ in range(MAX_TRIES):
            v = int.from_bytes(self._take(k), "big")
            if v < limit:
                return a + v % n
        raise RuntimeError("the fair-roll stream rejected every draw")  # pragma: no cover


# --------------------------------------------------------------------------
# Hashes.

def canonical(obj) -> bytes:
    """The bytes a message is hashed as: sorted keys, no spaces, UTF-8."""
    try:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False).encode("utf-8")
    except (ValueError, TypeError, RecursionError):
        raise DamagedLink("This link is damaged: its data cannot be read as a roll.") from None


_REQUEST_FIELDS = ("i", "y", "p", "w", "l", "r")


def commitment(q: dict, secret: str) -> str:
    """SHA-256 over the domain tag, the request (id, system, spec, player,
    label) and the secret: binds the GM to its secret, and the secret to
    this request, before any seed exists."""
    body = canonical({k: q[k] for k in _REQUEST_FIELDS if k in q})
    data = f"{TAG}/commit".encode() + b"\x00" + body + b"\x00" + bytes.fromhex(secret)
    return hashlib.sha256(data).hexdigest()


def _chain(msgs: list) -> bytes:
    h = hashlib.sha256(f"{TAG}/transcript".encode()).digest()
    for m in msgs:
        h = hashlib.sha256(h + canonical(m)).digest()
    return h


def transcript_hash(msgs: list) -> str:
    """The hash of a transcript (what ``h`` in a link must equal)."""
    return _chain(msgs).hex()[:H_CHARS]


def fingerprint(hex_text: str) -> str:
    """A short form to read aloud or compare by eye: ``3f2a-9c1b``."""
    return f"{hex_text[:4]}-{hex_text[4:8]}"


def device_key(entropy=secrets.token_bytes) -> str:
    """A new random key for this device (the page keeps it in localStorage;
    only its fingerprint ever leaves the device)."""
    return entropy(DEVICE_KEY_BYTES).hex()


def device_fingerprint(key: str) -> str:
    """The fingerprint a device's answers carry: two words and a number
    from SHA-256 of its key, e.g. ``otter-maple-42``. It names a device, it
    does not prove one (anyone who saw it could copy it).

    >>> device_fingerprint("00" * 16)
    'oak-lantern-69'
    """
    d = hashlib.sha256(f"{TAG}/device".encode() + b"\x00" + bytes.fromhex(key)).digest()
    return f"{WORDS[d[0] % len(WORDS)]}-{WORDS[d[1] % len(WORDS)]}-{int.from_bytes(d[2:4], 'big') % 100:02d}"


def _check_device_fp(v) -> str:
    parts = v.split("-") if isinstance(v, str) and len(v) <= 40 else []
    if len(parts) != 3 or parts[0] not in WORDS or parts[1] not in WORDS or not _two_digits(parts[2]):
        raise _damaged("device fingerprint")
    return v


def _two_digits(text: str) -> bool:
    """Two ASCII digits (``str.isdigit`` alone takes other scripts' digits
    too)."""
    return len(text) == 2 and text.isdigit() and text.isascii()


def answered_by(msgs: list):
    """``{"name", "fingerprint"}`` of the device whose answer the request is
    bound to (the first answer), or None (not answered, or an answer made
    before answers named their device)."""
    if len(msgs) < 2 or msgs[1].get("k") != "s" or "f" not in msgs[1]:
        return None
    return {"name": msgs[1].get("a", ""), "fingerprint": msgs[1]["f"]}


# --------------------------------------------------------------------------
# Checking what arrives in a link (every field, with a message).

_HEX = frozenset("0123456789abcdef")


def _damaged(what: str) -> DamagedLink:
    return DamagedLink(f"This link is damaged: its {what} is not in the expected form.")


def _hex(v, chars: int, what: str) -> str:
    if not isinstance(v, str) or len(v) != chars or not set(v) <= _HEX:
        raise _damaged(what)
    return v


def _count(v, lo: int, hi: int, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise _damaged(what)
    return v


def _text(v, hi: int, what: str, empty: bool = False) -> str:
    if not isinstance(v, str) or len(v) > hi or (not v and not empty):
        raise _damaged(what)
    canonical(v)  # encodable (no lone surrogates)
    return v


def _keys(d, required: set, optional: set = frozenset(), what: str = "data") -> dict:
    if not isinstance(d, dict) or not required <= set(d) or not set(d) <= required | optional:
        raise _damaged(what)
    return d


def _check_request(q: dict) -> dict:
    _keys(q, {"k", "i", "y", "p", "w", "c"}, {"l", "r"}, "request")
    _hex(q["i"], 2 * RID_BYTES, "request id")
    if "r" in q:
        _hex(q["r"], 2 * RID_BYTES, "request id it replaces")
    _hex(q["c"], 64, "commitment")
    if q["y"] not in rules.SYSTEMS:
        raise DamagedLink("This request is for a game this page does not know.")
    _text(q["w"], NAME_MAX, "player's name")
    if "l" in q:
        _text(q["l"], LABEL_MAX, "label")
    try:
        rules.normalize(q["y"], q["p"])
    except SpecError as e:
        raise DamagedLink(f"This request's roll is not valid here ({e}).") from None
    return q


def _check_action(x) -> dict:
    if not isinstance(x, dict) or not 1 <= len(x) <= 12 or not isinstance(x.get("do"), str):
        raise _damaged("step")
    if x["do"] in ("roll", "") or len(x["do"]) > 20 or "draws" in x or len(canonical(x)) > 2000:
        raise _damaged("step")
    return x


_MOVE_KEYS = {"s": ({"k", "s"}, {"x", "t", "a", "f"}), "e": ({"k"}, set()), "d": ({"k", "d"}, set()),
              "g": ({"k", "x"}, set()), "u": ({"k"}, {"x"})}


def _check_move(m, kinds: str) -> dict:
    """One message after the request, of one of ``kinds`` (``u``, a move
    each page derives for itself, never travels in a link)."""
    if not isinstance(m, dict) or not isinstance(m.get("k"), str) or m["k"] not in _MOVE_KEYS \
            or m["k"] not in kinds:
        raise _damaged("message")
    _keys(m, *_MOVE_KEYS[m["k"]], what="message")
    if m["k"] == "s":
        _check_seed_move(m)
    if "x" in m:
        _check_action(m["x"])
    if m["k"] == "d":
        _check_draws(m["d"])
    return m


def _check_seed_move(m: dict) -> None:
    """A seed move's seed, choice of play and answering device."""
    _hex(m["s"], 2 * SEED_BYTES, "seed")
    if "t" in m and m["t"] not in MODES:
        raise _damaged("choice of play")
    if ("a" in m) != ("f" in m):
        raise _damaged("answering device")
    if "a" in m:
        _text(m["a"], NAME_MAX, "device name", empty=True)
        _check_device_fp(m["f"])


def _check_draws(d) -> None:
    """A dice move's draws: a list of face values."""
    if not isinstance(d, list) or len(d) > 10_000:
        raise _damaged("dice")
    for v in d:
        _count(v, 1, 1000, "dice")


# --------------------------------------------------------------------------
# The transcript: whose move, which stage, the result so far.

def _move(m: dict) -> str:
    """A message's move: ``s0`` a seed alone, ``sx`` a seed with a step,
    ``st`` a seed with a choice of play for the rest of the turn, ``u0``/
    ``ux`` a derived end of turn / advised step, or the kind itself."""
    k = m["k"]
    if k == "s":
        return "sx" if "x" in m else ("st" if "t" in m else "s0")
    if k == "u":
        return "ux" if "x" in m else "u0"
    return k


#: last move -> the moves that may follow.
_NEXT = {"q": ("s0", "st"), "s0": ("d",), "sx": ("d",), "st": ("d",), "ux": ("d",),
         "d": ("sx", "st", "e"), "e": ("g",), "u0": ("g",), "g": ("s0",)}
_WAITING = {
    "q": "the player's answer (Roll)",
    "s0": "the GM's dice", "sx": "the GM's dice", "st": "the GM's dice", "ux": "the GM's dice",
    "d": "the player's next step or 'done'",
    "e": "the GM's step or reveal", "u0": "the GM's step or reveal",
    "g": "the player to let the GM's step be rolled",
}
_THIS = {
    "s0": "answers without a step", "sx": "takes a step", "st": "fixes how the player's turn goes on",
    "e": "ends the player's turn", "d": "brings dice", "g": "takes a step for the GM",
    "u0": "ends the player's turn", "ux": "takes an advised step",
}


def _turn(msgs: list, m: dict) -> None:
    last = _move(msgs[-1])
    if _move(m) not in _NEXT[last]:
        raise OutOfOrder(f"This link is out of order: the roll is waiting for {_WAITING[last]}, "
                         f"but this link {_THIS[_move(m)]}.")
    if m["k"] == "s":
        _check_seed_place(msgs[-1]["k"], m)


def _check_seed_place(prev: str, m: dict) -> None:
    """A seed's fields that only some places allow: only the first answer
    names its device, and a choice of play belongs to the player's turn
    (``prev``: the kind of the move before it)."""
    if "f" in m and prev != "q":
        raise _damaged("answering device")  # only the first answer names its device
    if "t" in m and prev not in ("q", "d"):
        raise _damaged("choice of play")  # the GM's step is the GM's, not the player's turn


def _opens_stage(msgs: list) -> bool:
    """Whether the last message opens a stage (the GM's page rolls it): a
    seed for the roll, a step or the GM's step; an advised step. A choice
    of play sent with no step opens none (the advice decides)."""
    last = msgs[-1]
    if last["k"] == "u":
        return "x" in last
    return last["k"] == "s" and ("x" in last or msgs[-2]["k"] in ("q", "g"))


def _stage_action(msgs: list) -> dict:
    """The action the last message (a seed, or an advised step) rolls."""
    s, prev = msgs[-1], msgs[-2]
    if "x" in s:
        return s["x"]
    return prev["x"] if prev["k"] == "g" else {"do": "roll"}


def _stage_seed(msgs: list) -> str:
    """The seed a stage's dice come from: its own seed, or for an advised
    step the seed of the choice that asked for the advice (the stage number
    in the stream keeps every stage's dice apart)."""
    return next(m["s"] for m in reversed(msgs) if m["k"] == "s")


#: A player's "done" (``e``) where the rules have a verb for ending a turn
#: (Milhamah's opposed ``stand``: the opponent reacts only after it) is
#: that step, with no dice, recorded in the result's stages.
END_TURN = {"do": "stand"}


def _end_turn(q: dict, stages: list) -> list:
    """The stage a player's "done" adds: ``END_TURN`` when the rules allow
    it now, else none."""
    if not stages:
        return []
    result = rules.replay(q["y"], q["p"], stages, advise=False)
    mine = _open(result, lambda a: a.get("do") == END_TURN["do"] and not _gms(a))
    return [{**END_TURN, "draws": []}] if mine else []


def _stages(msgs: list) -> list:
    """The ``stages`` a result records, rebuilt from the transcript."""
    out, action = [], None
    for i, m in enumerate(msgs):
        if m["k"] in ("s", "u") and _opens_stage(msgs[:i + 1]):
            action = _stage_action(msgs[:i + 1])
        elif m["k"] == "d":
            out.append({**action, "draws": list(m["d"])})
        elif _move(m) in ("e", "u0"):  # the player's turn ends, sent or derived
            out += _end_turn(msgs[0], out)
    return out


def _result(msgs: list):
    stages = _stages(msgs)
    if not stages:
        return None
    q = msgs[0]
    return rules.replay(q["y"], q["p"], stages)


def _roll_stage(msgs: list, secret: str, result):
    """Roll the stage the last message opens: (new result, its draws)."""
    q = msgs[0]
    j = sum(1 for m in msgs if m["k"] == "d")
    rng = FairRng(secret, _stage_seed(msgs), q["i"], j)
    try:
        if j == 0:
            new = rules.roll(q["y"], q["p"], rng)
        else:
            new = rules.act(q["y"], q["p"], result, _stage_action(msgs), rng)
    except SpecError as e:
        raise StepRefused(f"This step is not allowed here: {e}.") from None
    return new, new["stages"][-1]["draws"]


# --------------------------------------------------------------------------
# Play fixed in advance: best play's advice, or no step.

#: Actions that end a side's turn rather than step (best play keeping the
#: dice as they lie, or standing).
_ENDS = ("stand", "accept")


def player_advice(system: str, spec: dict, result: dict):
    """The step best play takes now for the player's side, or None (no step
    open, or best play ends the turn here): ``rules.advise``'s ``advice``.
    Both pages and the verifier compute it from the dice alone, so it is
    the same everywhere the same rules run."""
    if not isinstance(result, dict) or not open_steps(result)[0]:
        return None
    action = rules.advise(system, spec, result).get("advice")
    if not isinstance(action, dict) or action.get("do") in _ENDS or action.get("do") == "hit_location" \
            or action.get("side", "initiator") != "initiator":
        return None
    return dict(action)


def _mode(msgs: list):
    """The choice of play in force: the ``t`` of the player's last seed,
    until the turn passes."""
    for m in reversed(msgs):
        if m["k"] == "s":
            return m.get("t")
        if _move(m) in ("e", "u0", "g", "q"):  # the turn passed (or none was chosen)
            return None
    return None  # pragma: no cover - a transcript starts with its request


def _auto_next(msgs: list):
    """The move every page derives after the last message, or None: after
    dice, the player's turn ends by itself when the rules leave the player
    no step but the GM one (no "your turn" message), and under a choice of
    play the advised step (``ux``) or the end of the turn (``u0``). Only
    for answers that name their device (older transcripts go on as they
    were made)."""
    if answered_by(msgs) is None:
        return None
    if not _derives_after(msgs):
        return None
    result = _result(msgs)
    player_may, gm_may = open_steps(result)
    if not player_may:
        return {"k": "u"} if gm_may else None
    return _by_mode(msgs, result)


def _derives_after(msgs: list) -> bool:
    """Whether a move may follow by itself after the last message: after
    dice, or after a choice of play sent with no step."""
    last = msgs[-1]
    return last["k"] == "d" or (_move(last) == "st" and not _opens_stage(msgs))


def _by_mode(msgs: list, result: dict):
    """The move the choice of play in force makes for the player now: the
    advised step (``ux``), or the end of the turn (``u0``, also when the
    advice cannot be played); None with no choice in force."""
    mode = _mode(msgs)
    if mode is None:
        return None
    action = _playable_advice(msgs, result) if mode == "advice" else None
    return {"k": "u", "x": action} if action is not None else {"k": "u"}


def _playable_advice(msgs: list, result: dict):
    """The player's advised step when the rules take it now, else None."""
    q = msgs[0]
    action = player_advice(q["y"], q["p"], result)
    if action is None:
        return None
    try:
        _try_step(msgs, action, "player")
    except StepRefused:
        return None
    return action


def _settle(msgs: list, secret=None) -> list:
    """The transcript with every derived move appended; with the GM's
    secret, the advised steps rolled too (without it, the page stops at an
    advised step and waits for its dice)."""
    msgs = list(msgs)
    for _ in range(MAX_MSGS):
        nxt = _auto_next(msgs)
        if nxt is None:
            return msgs
        msgs.append(nxt)
        if "x" in nxt:
            if secret is None:
                return msgs
            _, draws = _roll_stage(msgs, secret, _result(msgs[:-1]))
            msgs.append({"k": "d", "d": draws})
        if len(msgs) > MAX_MSGS:
            break
    raise _damaged("list of moves")


def _gms(action: dict) -> bool:
    """The GM takes the opponent's steps and draws the hit location; the
    player takes the initiator's (``_check_side``)."""
    return action.get("side") == "opponent" or action.get("do") == "hit_location"


def _open(result, which) -> bool:
    """Does ``result``'s ``allowed`` (the actions the rules take now) hold
    one that ``which`` picks? A result of another shape holds none."""
    allowed = result.get("allowed") if isinstance(result, dict) else None
    return isinstance(allowed, list) and any(isinstance(a, dict) and which(a) for a in allowed)


def open_steps(result) -> tuple[bool, bool]:
    """(may the player still take a step, may the GM) after ``result``:
    read from the result's ``allowed`` (the rules contract)."""
    return _open(result, lambda a: not _gms(a)), _open(result, _gms)


def _check_side(x: dict, role: str) -> None:
    side = x.get("side")
    if role == "player" and side not in (None, "initiator"):
        raise StepRefused("A player's step acts on their own dice (side 'initiator').")
    if role == "gm" and side != "opponent" and x.get("do") != "hit_location":
        raise StepRefused("The GM's steps act for the opponent's side or draw the hit location; "
                          "the player's own dice are the player's to choose.")


def _try_step(msgs: list, x: dict, role: str) -> None:
    """The step is allowed by the rules now (tried with throwaway dice: the
    rules check a step before drawing)."""
    _check_side(x, role)
    q = msgs[0]
    try:
        rules.act(q["y"], q["p"], _result(msgs), x, random.Random(0))
    except SpecError as e:
        raise StepRefused(f"This step is not allowed here: {e}.") from None


# --------------------------------------------------------------------------
# Links out of a state.

_PLAYER_KINDS = ("s", "e")


def _device_claim(msgs: list):
    who = answered_by(msgs)
    return None if who is None else {"a": who["name"], "f": who["fingerprint"]}


def _pack_msg_link(st: dict, n: int) -> str:
    msgs = st["msgs"]
    m = msgs[n]
    if m["k"] == "q":
        return share.encode_fair("q", {k: v for k, v in m.items() if k != "k"})
    return share.encode_fair("a", {"i": st["rid"], "n": n, "h": transcript_hash(msgs[:n]), "m": m})


def _gm_link(st: dict, start: int, end: int) -> str:
    """The GM's messages from ``start`` to ``end`` in one link (dice, and
    the GM's step after them): the moves each page derives (``u``) are left
    out. ``b`` names the device the request is bound to, so a page that
    answered second can say so in plain words."""
    msgs = st["msgs"]
    idx = [i for i in range(start, end) if msgs[i]["k"] != "u"]
    data = {"i": st["rid"], "n": idx[0], "h": transcript_hash(msgs[:idx[0]]), "m": [msgs[i] for i in idx]}
    claim = _device_claim(msgs)
    if claim is not None:
        data["b"] = claim
    return share.encode_fair("d", data)


def request_link(st: dict) -> str:
    """The request link (``v1.q.``): the setup, the player, the commitment."""
    return _pack_msg_link(st, 0)


def reveal_link(st: dict) -> str:
    """The final link (``v1.v.``): the secret, the request and every move
    the two sides sent; the draws and the derived moves are left out (the
    verifier works them out)."""
    if not st.get("revealed") or not st.get("secret"):
        raise OutOfOrder("This roll is not revealed yet.")
    msgs = st["msgs"]
    q = msgs[0]
    return share.encode_fair("v", {
        "i": st["rid"], "h": transcript_hash(msgs), "c": q["c"], "z": st["secret"],
        "q": {k: q[k] for k in _REQUEST_FIELDS if k in q and k != "i"}, "m": _sent_moves(msgs),
    })


def _sent_moves(msgs: list) -> list:
    """The moves the two sides sent after the request (every s, e and g):
    what a reveal carries, and what a secret and the request rebuild the
    rest of the transcript from."""
    return [m for m in msgs[1:] if m["k"] in ("s", "e", "g")]


def _gm_runs(msgs: list):
    """The GM's runs of messages (dice, steps, derived moves) between the
    player's, newest first: ``(start, end)``."""
    end = len(msgs)
    while end > 1:
        start = end
        while start > 1 and msgs[start - 1]["k"] not in _PLAYER_KINDS:
            start -= 1
        if any(msgs[i]["k"] in ("d", "g") for i in range(start, end)):
            yield start, end
        end = start - 1


def _last_sent(msgs: list):
    """The place of the player's last message (a seed or "done") in the
    transcript, or None before the player answered."""
    return next((n for n in range(len(msgs) - 1, 0, -1) if msgs[n]["k"] in _PLAYER_KINDS), None)


def last_link(st: dict):
    """The link this side sent last (to send again if it was lost), or None."""
    if st.get("revealed"):
        return reveal_link(st)
    msgs = st["msgs"]
    if st["role"] == "player":
        n = _last_sent(msgs)
        return None if n is None else _pack_msg_link(st, n)
    run = next(_gm_runs(msgs), None)
    return request_link(st) if run is None else _gm_link(st, *run)


# --------------------------------------------------------------------------
# The GM's side.

def _name(v, hi: int, field: str, empty: bool = False) -> str:
    if not isinstance(v, str):
        raise SpecError(field, "must be text")
    v = " ".join(v.split())
    if len(v) > hi or (not v and not empty):
        raise SpecError(field, f"must be {'up to' if empty else '1 to'} {hi} characters")
    return v


def _fresh_rid(existing, entropy) -> str:
    """A new random request id, never one of ``existing``'s (the states
    this page holds)."""
    taken = {s.get("rid") for s in existing if isinstance(s, dict)}
    rid = entropy(RID_BYTES).hex()
    for _ in range(8):
        if rid not in taken:
            return rid
        rid = entropy(RID_BYTES).hex()
    raise RuntimeError("no fresh request id")  # pragma: no cover - 48 random bits colliding eight times


def new_request(system: str, spec, player: str, label: str = "", *, existing=(), now=0,
                entropy=secrets.token_bytes, replaces: str = "") -> dict:
    """A GM's new request (state ``waiting``): a fresh secret and request id
    (never one of ``existing``'s), the spec normalized. A bad spec or name
    raises ``SpecError`` naming the field. ``replaces``: the id of a
    voided request this one asks again (the player's page says so)."""
    spec = rules.normalize(system, spec)
    player = _name(player, NAME_MAX, "player")
    label = _name(label, LABEL_MAX, "label", empty=True)
    rid = _fresh_rid(existing, entropy)
    secret = entropy(SECRET_BYTES).hex()
    q = {"k": "q", "i": rid, "y": system, "p": spec, "w": player}
    if label:
        q["l"] = label
    if replaces:
        q["r"] = _hex(replaces, 2 * RID_BYTES, "request id")
    q["c"] = commitment(q, secret)
    return {"v": 1, "role": "gm", "rid": rid, "secret": secret, "msgs": [q], "revealed": False,
            "created": now, "updated": now}


def reissue(st: dict, *, existing=(), now=0, entropy=secrets.token_bytes) -> tuple[dict, dict, str]:
    """Void a request (say, answered by the wrong person) and ask the same
    roll again in one move: (the voided state, the new request, its link).
    The new request names the one it replaces, in its commitment too. A
    revealed roll may be voided as well (the GM saw who answered only with
    its final link); its final link still verifies, and the player's page
    shows the new request replacing it."""
    if not isinstance(st, dict) or st.get("role") != "gm":
        raise OutOfOrder("Only the GM of this request can void it and ask again.")
    if st.get("voided"):
        raise Voided(_VOIDED)
    q = st["msgs"][0]
    new = new_request(q["y"], q["p"], q["w"], q.get("l", ""), existing=existing, now=now,
                      entropy=entropy, replaces=st["rid"])
    return {**st, "voided": True, "updated": now}, new, request_link(new)


def _append(st: dict, m: dict, now, secret=None) -> dict:
    return {**st, "msgs": _settle(st["msgs"] + [m], secret), "updated": now}


def _require(st: dict, role: str, lasts: tuple, doing: str) -> None:
    if not isinstance(st, dict) or st.get("role") != role:
        raise OutOfOrder(f"Only the {'GM' if role == 'gm' else 'player'} of this request can {doing}.")
    if st.get("voided"):
        raise Voided(_VOIDED)
    if st.get("revealed"):
        raise OutOfOrder("This roll is finished: its secret is revealed.")
    last = _move(st["msgs"][-1])
    if last not in lasts:
        raise OutOfOrder(f"Not now: the roll is waiting for {_WAITING[last]}.")


def gm_step(st: dict, action: dict, *, now=0) -> tuple[dict, str]:
    """The GM's own step, once the player's turn is over: fixed in a link
    (with the dice the player has not seen yet) before the player's seed
    for it exists."""
    _require(st, "gm", ("e", "u0"), "take the GM's step")
    _check_action(action)
    _try_step(st["msgs"], action, "gm")
    st = _append(st, {"k": "g", "x": action}, now)
    return st, last_link(st)


def reveal(st: dict, *, now=0) -> tuple[dict, str]:
    """End the roll and reveal the secret (after dice, or once the player's
    turn is over)."""
    _require(st, "gm", ("d", "e", "u0"), "reveal the roll")
    st = {**st, "revealed": True, "updated": now}
    return st, reveal_link(st)


def _gm_after(st: dict, now) -> tuple[dict, str | None]:
    """After a player's move: reveal at once when no one can act; after
    dice, the dice link to send; once the player's turn is over with a GM
    step still possible, nothing yet (the GM steps or reveals)."""
    player_may, gm_may = open_steps(_result(st["msgs"]))
    last = _move(st["msgs"][-1])
    if _nothing_left(last, player_may, gm_may):
        return reveal(st, now=now)
    return st, (last_link(st) if last == "d" else None)


def _nothing_left(last: str, player_may: bool, gm_may: bool) -> bool:
    """Whether no one can act any more after move ``last``: after dice,
    neither side may step; once the player's turn is over, the GM may not."""
    return (last == "d" and not player_may and not gm_may) or (last in ("e", "u0") and not gm_may)


def _gm_receive(st: dict, m: dict, now) -> tuple[dict, str]:
    _turn(st["msgs"], m)
    if "x" in m:
        _check_side(m["x"], "player")
    msgs = st["msgs"] + [m]
    if _opens_stage(msgs):
        _, draws = _roll_stage(msgs, st["secret"], _result(st["msgs"]))
        msgs.append({"k": "d", "d": draws})
    st = {**st, "msgs": _settle(msgs, st["secret"]), "updated": now}
    return _gm_after(st, now)


# --------------------------------------------------------------------------
# The player's side.

def _new_seed(entropy) -> str:
    return entropy(SEED_BYTES).hex()


def _mode_of(mode):
    if mode not in (None,) + MODES:
        raise StepRefused(f"A choice of play is one of {', '.join(MODES)}.")
    return {} if mode is None else {"t": mode}


def answer(st: dict, *, device=None, mode=None, now=0, entropy=secrets.token_bytes) -> tuple[dict, str]:
    """The player's Roll (or "let the GM roll its step"): a fresh seed. The
    first answer names this device (``device``: ``{"name", "key"}``; the
    key stays here, its fingerprint goes) and may fix how the rest of the
    turn goes (``mode``: ``"advice"`` or ``"none"``), before any die is
    known."""
    _require(st, "player", ("q", "g"), "answer")
    m = {"k": "s", "s": _new_seed(entropy)}
    if st["msgs"][-1]["k"] == "q":
        m.update(_mode_of(mode))
        if device is not None:
            m["a"] = _name(device.get("name", ""), NAME_MAX, "device name", empty=True)
            m["f"] = device_fingerprint(_hex(device.get("key"), 2 * DEVICE_KEY_BYTES, "device key"))
    st = _append(st, m, now)
    return st, last_link(st)


def step(st: dict, action, *, mode=None, now=0, entropy=secrets.token_bytes) -> tuple[dict, str]:
    """The player's step (a reroll, a prayer, a keep), sent with the fresh
    seed its dice will come from; ``mode`` fixes what follows it (play on
    by the advice, or end the turn) so no "your turn" link is needed.
    ``action`` None with ``mode="advice"``: play the rest of the turn by
    the advice from here."""
    _require(st, "player", ("d",), "take a step")
    m = {"k": "s", "s": _new_seed(entropy), **_mode_of(mode)}
    if action is not None:
        _check_action(action)
        _try_step(st["msgs"], action, "player")
        m["x"] = action
    elif mode is None:
        raise StepRefused("Choose a step, or how the rest of your turn is played.")
    st = _append(st, m, now)
    return st, last_link(st)


def pass_turn(st: dict, *, now=0) -> tuple[dict, str]:
    """The player is done: the turn goes to the GM (who reveals)."""
    _require(st, "player", ("d",), "end the turn")
    st = _append(st, {"k": "e"}, now)
    return st, last_link(st)


def _player_receive(st: dict, ms: list, now) -> dict:
    msgs = list(st["msgs"])
    for m in ms:
        _turn(msgs, m)
        if m["k"] == "g":
            _try_step(msgs, m["x"], "gm")
        else:
            try:
                rules.replay(msgs[0]["y"], msgs[0]["p"], _stages(msgs + [m]), advise=False)
            except SpecError as e:
                raise WrongDice(f"The dice in this link do not fit the roll ({e}).") from None
        msgs = _settle(msgs + [m])
    return {**st, "msgs": msgs, "updated": now}


# --------------------------------------------------------------------------
# Opening a link.

def _of_role(requests, role: str):
    """The states in ``requests`` (a list as stored: it may hold anything)
    that are ``role``'s."""
    return (st for st in requests or () if isinstance(st, dict) and st.get("role") == role)


def _find(requests, role: str, rid: str):
    return next((st for st in _of_role(requests, role) if st.get("rid") == rid), None)


def _decode(fragment) -> tuple[str, dict]:
    try:
        link = share.decode(fragment)
    except share.ShareError as e:
        raise DamagedLink(str(e)) from None
    if link["kind"] != "fair":
        raise DamagedLink("This is a roll setup or result link, not part of a fair roll.")
    return link["fair"], link["data"]


def _opened(kind, st=None, reply=None, note="", verified=None, entry=None, also=()) -> dict:
    rid = st["rid"] if st else (verified or {}).get("rid")
    return {"kind": share.FAIR_KINDS[kind], "rid": rid,
            "role": st["role"] if st else None, "state": st, "reply": reply, "note": note,
            "verified": verified, "entry": entry, "also": list(also)}


def _open_request(data: dict, requests, now) -> dict:
    if "k" in data:
        raise _damaged("request")
    q = _check_request({"k": "q", **data})
    old = _find(requests, "player", q["i"])
    if old is not None:
        if old["msgs"][0] == q:
            return _opened("q", old, note="You already have this request; nothing changed.")
        raise ReusedRequest("This request reuses the id of another request you hold "
                            f"({old['msgs'][0]['w']}'s {rules.TITLES[old['msgs'][0]['y']]} roll); "
                            "it was not opened.")
    st = {"v": 1, "role": "player", "rid": q["i"], "msgs": [q], "revealed": False,
          "created": now, "updated": now}
    note = f"A {rules.TITLES[q['y']]} roll requested by the GM for {q['w']}."
    if "r" not in q:
        return _opened("q", st, note=note, also=[])
    more, also = _replacing(q["r"], requests, now)
    return _opened("q", st, note=note + more, also=also)


def _replacing(rid: str, requests, now) -> tuple[str, list]:
    """A request that asks again for request ``rid``, voided by the GM:
    what the note adds, and that request marked voided when this page
    holds it still open."""
    replaced = _find(requests, "player", rid)
    note = " It asks again for a request the GM voided."
    if replaced is None or replaced.get("revealed") or replaced.get("voided"):
        return note, []
    note += f" Your page marks that one ({fingerprint(replaced['msgs'][0]['c'])}) as voided."
    return note, [{**replaced, "voided": True, "updated": now}]


def _owner(requests, role: str, n: int, h: str):
    """The state of ``role`` whose first ``n`` moves hash to ``h``, or None."""
    return next((st for st in _of_role(requests, role)
                 if len(st.get("msgs", ())) >= n and transcript_hash(st["msgs"][:n]) == h), None)


def _who(d) -> str:
    if not d:
        return "another device"
    name = d.get("name", d.get("a", "")) or "a device with no name"
    return f"{name} ({d.get('fingerprint', d.get('f', ''))})"


def _another_device(first, late=None, rid=None) -> "AlreadyAnswered":
    """A second answer, in plain words. On the GM's page (``late``: the
    second answer's device) it says how to ask again; ``rid`` rides on the
    error so the page can show that request."""
    first_words = f": {_who(first)}" if first else ""
    if rid is not None:
        late_words = f" This answer came from {_who(late)}." if late else ""
        err = AlreadyAnswered(f"Another device already answered this request{first_words}."
                              f"{late_words} If that was the wrong person, tap “Wrong person? Void "
                              "and ask again” under the request's dice. Nothing was tampered with: a "
                              "request rolls the first answer that reaches the GM.")
        err.rid = rid
        return err
    return AlreadyAnswered(f"Another device already answered this request{first_words}. Ask the GM "
                           "for a new one. Nothing was tampered with: a request rolls the first "
                           "answer that reaches the GM.")


def _check_claim(msgs: list, claim) -> None:
    """A GM link names the device its request is bound to: it must be this
    page's own (else someone else answered first)."""
    mine = _device_claim(msgs)
    if claim is None and mine is None:
        return
    if not isinstance(claim, dict) or mine is None:
        raise Tampered("This link does not follow from the roll as your page has it: a field "
                       "was changed on the way.")
    if claim != mine:
        raise _claim_error(claim)


def _claim_error(claim: dict) -> FairError:
    """A link bound to another device than this page's: that device's
    answer came first, or (no fingerprint to name it by) the field is
    damaged."""
    if isinstance(claim.get("f"), str):
        return _another_device({"name": claim.get("a"), "fingerprint": claim.get("f")})
    return _damaged("answering device")


def _position(st: dict, n: int, h: str, ms: list, requests, claim=False) -> bool:
    """Where the link falls in this transcript: True if it was already
    opened (identical), False if it is the next move; otherwise refused.
    ``claim``: a GM link's bound device (False: a player's link)."""
    msgs = st["msgs"]
    if n <= len(msgs) and transcript_hash(msgs[:n]) != h:
        _refuse_diverged(st, n, h, requests, claim)
    if claim is not False and n <= len(msgs):
        _check_claim(msgs, claim)
    if n < len(msgs):
        return _already_opened(st, n, ms)
    if n > len(msgs):
        raise OutOfOrder(f"A link is missing: this is move {n + 1} of the roll but your page "
                         f"has {len(msgs)}. Open the links in the order they were sent.")
    if st.get("revealed"):
        raise OutOfOrder("This roll is finished: its secret is already revealed.")
    return False


def _refuse_diverged(st: dict, n: int, h: str, requests, claim) -> None:
    """The link's first ``n`` moves are not this transcript's: refused, as
    another request's link when one matches, else as changed."""
    if claim is not False:
        _check_claim(st["msgs"], claim)
    other = _owner(requests, st["role"], n, h)
    if other is not None and other is not st:
        q = other["msgs"][0]
        raise OtherRequest(f"This link belongs to another request ({q['w']}'s "
                           f"{rules.TITLES[q['y']]} roll), not to this one.")
    raise Tampered("This link does not follow from the roll as your page has it: a field "
                   "was changed on the way, or it belongs to another request.")


def _already_opened(st: dict, n: int, ms: list) -> bool:
    """A link older than the transcript: True when its moves are those
    that followed move ``n``; otherwise refused."""
    msgs = st["msgs"]
    sent = [m for m in msgs[n:] if m["k"] != "u"][:len(ms)]
    if sent == ms:
        return True
    if n == 1 and ms[0]["k"] == "s":
        raise _another_device(answered_by(msgs), _claim_of(ms[0]), st["rid"])
    raise OutOfOrder("This link is older than the roll as your page has it, and differs "
                     "from what happened then; it was not used.")


def _claim_of(m: dict):
    return {"name": m.get("a", ""), "fingerprint": m["f"]} if "f" in m else None


def _gm_moves(data: dict) -> list:
    ms = data["m"] if isinstance(data["m"], list) else [data["m"]]
    if not 1 <= len(ms) <= MAX_MSGS:
        raise _damaged("link")
    return [_check_move(m, "dg") for m in ms]


#: A link's kind -> why it is refused when this page holds no such request.
_UNKNOWN = {"a": "This answer is for a request this page did not make (or that was deleted from its list).",
            "d": "This link is for a request you have not opened on this page: open the GM's request link first."}


def _move_fields(kind: str, data: dict) -> tuple[str, int, str, list]:
    """A move link's fields, each checked: the request id, the link's place
    in the roll, the transcript hash before it, its moves."""
    _keys(data, {"i", "n", "h", "m"}, {"b"} if kind == "d" else set(), what="link")
    rid = _hex(data["i"], 2 * RID_BYTES, "request id")
    n = _count(data["n"], 1, MAX_MSGS - 1, "place in the roll")
    h = _hex(data["h"], H_CHARS, "fingerprint")
    ms = [_check_move(data["m"], "se")] if kind == "a" else _gm_moves(data)
    return rid, n, h, ms


def _held(kind: str, requests, rid: str) -> dict:
    """The state a move link is for: the GM's request for an answer, the
    player's for the GM's dice and steps; refused when this page holds
    none, or it is voided."""
    st = _find(requests, "gm" if kind == "a" else "player", rid)
    if st is None:
        raise UnknownRequest(_UNKNOWN[kind])
    if st.get("voided"):
        raise Voided(_VOIDED)
    return st


def _open_move(kind: str, data: dict, requests, now) -> dict:
    rid, n, h, ms = _move_fields(kind, data)
    st = _held(kind, requests, rid)
    try:
        opened = _position(st, n, h, ms, requests, False if kind == "a" else data.get("b"))
    except AlreadyAnswered as e:
        e.request = (st["role"], st["rid"])  # the page shows that request, saying so
        raise
    if opened:
        return _opened(kind, st, reply=last_link(st), note="This link was already opened; nothing changed.")
    if kind == "a":
        return _gm_opened(st, ms[0], now)
    new = _player_receive(st, ms, now)
    note = "The GM asks to roll its step." if ms[-1]["k"] == "g" else "The dice as the GM's page reports them."
    return _opened(kind, new, note=note)


def _gm_opened(st: dict, move: dict, now) -> dict:
    """The GM's page takes a player's answer or move: its reply, and the
    history entry once the roll is revealed."""
    new, reply = _gm_receive(st, move, now)
    return _opened("a", new, reply=reply, note=_gm_note(new, reply),
                   entry=history_entry(new) if new["revealed"] else None)


def _gm_note(st: dict, reply) -> str:
    who = answered_by(st["msgs"])
    by = f"Answered by {_who(who)}. " if who else ""
    if st["revealed"]:
        return by + "The roll is revealed: send the final link."
    return by + ("Send the dice back." if reply else "The player's turn is over: take the GM's step or reveal.")


def is_link(fragment) -> bool:
    """Whether a URL fragment is a fair-roll link (so the page sends it
    here rather than to ``share.open_link``).

    >>> is_link("#v1.q.abc"), is_link("v1.v.x"), is_link("#v1.s.abc"), is_link(None)
    (True, True, False, False)
    """
    if not isinstance(fragment, str):
        return False
    parts = (fragment[1:] if fragment.startswith("#") else fragment).split(".", 2)
    return len(parts) == 3 and parts[0] == "v1" and parts[1] in share.FAIR_KINDS


def open_link(fragment, requests=(), *, now=0) -> dict:
    """Open a fair-roll link against the requests this page holds (GM's
    and player's states). Returns ``{"kind", "rid", "role", "state" (the
    new state, to replace the stored one; None for a third party), "reply"
    (the link to send back, or None), "note", "verified" (a reveal's view),
    "entry" (a history entry when a roll was verified), "also" (other
    states to store: a request voided by this one)}``. A refused link
    raises a ``FairError``; nothing changed."""
    kind, data = _decode(fragment)
    if kind == "q":
        return _open_request(data, requests, now)
    if kind in ("a", "d"):
        return _open_move(kind, data, requests, now)
    return _open_reveal(data, requests, now)


# --------------------------------------------------------------------------
# The reveal: anyone can check it.

def _derive(q: dict, secret: str, moves) -> tuple[list, dict]:
    """The whole transcript from the request, the secret and the moves
    (every s, e, g): every draw derived, every derived move worked out,
    every move checked in turn."""
    if not isinstance(moves, list) or len(moves) > MAX_MSGS:
        raise _damaged("list of moves")
    msgs = [q]
    for m in moves:
        _check_move(m, "seg")
        _turn(msgs, m)
        msgs.append(m)
        if _opens_stage(msgs):
            _, draws = _roll_stage(msgs, secret, _result(msgs[:-1]))
            msgs.append({"k": "d", "d": draws})
        msgs = _settle(msgs, secret)
        if len(msgs) > MAX_MSGS:
            raise _damaged("list of moves")
    return msgs, _result(msgs)


def _rebuild(q: dict, secret: str, moves) -> tuple[list, dict]:
    """A revealed transcript: at least the roll, ending after dice or once
    the player's turn is over (the only points where the GM reveals)."""
    msgs, result = _derive(q, secret, moves)
    if _move(msgs[-1]) not in ("d", "e", "u0") or result is None:
        raise OutOfOrder("This final link ends in the middle of a step.")
    return msgs, result


def verify(data: dict) -> dict:
    """Check a reveal link's data on its own (what a third party can do):
    the secret matches the commitment, every draw follows from it, the
    transcript hash matches, the outcome is ``rules.replay``'s. Returns
    ``{"msgs", "result", "secret", "commit", "player", "label", "rid",
    "fingerprint", "transcript", "answered_by", "mode"}``."""
    _keys(data, {"i", "h", "c", "z", "q", "m"}, what="final link")
    _keys(data["q"], {"y", "p", "w"}, {"l", "r"}, "request")
    q = _check_request({"k": "q", "i": data["i"], **data["q"], "c": data["c"]})
    secret = _hex(data["z"], 2 * SECRET_BYTES, "secret")
    h = _hex(data["h"], H_CHARS, "fingerprint")
    if commitment(q, secret) != q["c"]:
        raise WrongSecret("The GM's secret in this link does not match the commitment made before "
                          "the roll: the secret or the roll's setup was changed afterwards, so "
                          "these dice cannot be trusted.")
    msgs, result = _rebuild(q, secret, data["m"])
    if transcript_hash(msgs) != h:
        raise Tampered("This final link was changed after it was made: its fingerprint does not "
                       "match its steps.")
    result = rules.replay(q["y"], q["p"], _stages(msgs))
    return {"msgs": msgs, "result": result, "secret": secret, "commit": q["c"], "player": q["w"],
            "label": q.get("l", ""), "rid": q["i"], "fingerprint": fingerprint(q["c"]),
            "transcript": fingerprint(h), "answered_by": answered_by(msgs), "mode": _first_mode(msgs)}


def _first_mode(msgs: list):
    """The choice of play the player's answer fixed, or None (not answered,
    or the player chooses each step)."""
    return msgs[1].get("t") if len(msgs) > 1 else None


def _step_name(msgs: list, i: int) -> str:
    stage = sum(1 for m in msgs[:i + 1] if m["k"] == "d")
    return "the roll" if stage <= 1 else f"step {stage - 1}"


def _mismatch(mine: list, theirs: list, i: int) -> FairError:
    if i == 0:
        return _request_mismatch(mine[0], theirs[0])
    if i == 1 and mine[1]["k"] == theirs[1]["k"] == "s":
        err = _answer_mismatch(mine, theirs)
        if err is not None:
            return err
    return _move_mismatch(mine, theirs, i)


def _move_mismatch(mine: list, theirs: list, i: int) -> FairError:
    """Move ``i`` differs: dice the secret does not give, another advised
    step, or seeds or steps changed."""
    if mine[i]["k"] == "d" and theirs[i]["k"] == "d":
        return WrongDice(f"The dice the GM's page sent for {_step_name(mine, i)} are not the dice "
                         "its secret gives: they were changed.")
    if mine[i]["k"] == "u" or theirs[i]["k"] == "u":
        return Tampered("This reveal plays another advised step than your page works out from the "
                        "same dice (are both pages the same version?).")
    return Tampered(f"This reveal differs from the roll as your page has it (move {i + 1}): "
                    "seeds or steps you sent were changed.")


def _request_mismatch(mine: dict, theirs: dict) -> FairError:
    """The requests differ: only in the commitment (the secret does not
    match it), or in the setup (another request)."""
    a = {k: v for k, v in mine.items() if k != "c"}
    b = {k: v for k, v in theirs.items() if k != "c"}
    if a == b:
        return WrongSecret("The GM's revealed secret does not match the commitment it sent "
                           "with the request: these dice cannot be trusted.")
    return OtherRequest("This reveal is for another request than the one you hold "
                        "(its setup differs).")


def _answer_mismatch(mine: list, theirs: list) -> FairError | None:
    """The answers differ: another device answered first, or the GM's page
    rolled an answer no device sent (None: neither)."""
    first, me = answered_by(theirs), answered_by(mine)
    if first is not None and first != me:
        return _another_device(first)
    if first is None and me is None:
        return AlreadyAnswered("The GM's page rolled another answer than yours for this request: "
                               "someone else pressed Roll first, or your answer was changed on the way.")
    return None


def _compare(mine: list, theirs: list) -> str:
    """The reveal's transcript against this page's own copy: equal, or more
    dice and derived moves (the GM's page rolled them and revealed), or
    missing this side's own last move (the GM revealed before it arrived).
    Anything else is refused."""
    for i, (a, b) in enumerate(zip(mine, theirs)):
        if a != b:
            raise _mismatch(mine, theirs, i)
    return _tail(theirs[len(mine):], mine[len(theirs):])


def _tail(extra: list, lost: list) -> str:
    """After the moves both copies share: the reveal's ``extra`` moves (only
    dice and derived moves may be), or this page's ``lost`` ones (only its
    own last move and what it derived); a note, or refused."""
    if all(m["k"] in ("d", "u") for m in extra) and not lost:
        return ""
    if not extra and _own_last_move(lost):
        return "The GM revealed the roll before your last move reached it; that move was not rolled."
    if extra:
        raise Tampered("This reveal contains moves your page never sent or saw.")
    raise Tampered("This reveal leaves out moves your page holds.")


def _own_last_move(lost: list) -> bool:
    """Whether the moves a reveal lacks are this side's own last move (a
    seed or "done") and the moves derived after it: the GM revealed before
    that move arrived."""
    return lost[0]["k"] in _PLAYER_KINDS and all(m["k"] == "u" for m in lost[1:])


def _open_reveal(data: dict, requests, now) -> dict:
    ver = verify(data)
    st = _find(requests, "player", ver["rid"]) or _find(requests, "gm", ver["rid"])
    if st is None:
        entry = _entry(ver["result"], ver["player"], ver["label"], data)
        return _opened("v", None, note="Fair roll, verified ✓", verified=_verified_view(ver),
                       entry=entry)
    try:
        note = _compare(st["msgs"], ver["msgs"])
    except AlreadyAnswered as e:
        e.request = (st["role"], st["rid"])  # the page shows that request, saying so
        raise
    if st.get("revealed"):
        return _opened("v", st, note="This roll was already verified; nothing changed.",
                       verified=_verified_view(ver))
    new = {**st, "msgs": ver["msgs"], "secret": ver["secret"], "revealed": True, "updated": now}
    return _opened("v", new, note=note or "Fair roll, verified ✓", verified=_verified_view(ver),
                   entry=history_entry(new))


def _verified_view(ver: dict) -> dict:
    player_may, _gm = open_steps(ver["result"])
    early = ver["msgs"][-1]["k"] == "d" and player_may
    return {"result": ver["result"], "player": ver["player"], "label": ver["label"],
            "rid": ver["rid"], "fingerprint": ver["fingerprint"], "transcript": ver["transcript"],
            "steps": len(ver["result"]["stages"]) - 1, "ended_early": early,
            "answered_by": ver["answered_by"], "mode": ver["mode"]}


# --------------------------------------------------------------------------
# Views for the page.

def _last(msgs: list) -> str:
    """The last move as the page words it: a derived end of turn reads as
    the player's "done", a derived step as a step sent."""
    return {"u0": "e", "ux": "s"}.get(_move(msgs[-1]), msgs[-1]["k"])


#: A revealed request's status, by role.
_DONE = {"gm": "revealed", "player": "verified"}
#: An open request's status by role and last move (any other: "rolled").
_STATUS = {"gm": {"q": "waiting"}, "player": {"q": "received", "s": "answered", "e": "answered"}}


def status(st: dict) -> str:
    """GM: waiting → rolled → revealed. Player: received → answered →
    rolled → … → verified. Either: voided."""
    if st.get("voided"):
        return "voided"
    if st.get("revealed"):
        return _DONE[st["role"]]
    return _STATUS[st["role"]].get(_last(st["msgs"]), "rolled")


def turn(st: dict):
    """Whose move: "player", "gm", or None once revealed (or voided)."""
    if st.get("revealed") or st.get("voided"):
        return None
    return "gm" if _last(st["msgs"]) in ("s", "e") else "player"


def view(st: dict, now=0) -> dict:
    """What the Requests list and the tray show for one request."""
    q = st["msgs"][0]
    result = _result(st["msgs"])
    player_may, gm_may = open_steps(result)
    last = _last(st["msgs"])
    msgs = st["msgs"]
    return {
        "rid": st["rid"], "role": st["role"], "status": status(st), "turn": turn(st),
        "system": q["y"], "title": rules.TITLES[q["y"]], "spec": q["p"], "player": q["w"],
        "label": q.get("l", ""), "fingerprint": fingerprint(q["c"]), "result": result,
        "player_may_step": player_may and last == "d", "gm_may_step": gm_may and last == "e",
        "gm_action": msgs[-1]["x"] if msgs[-1]["k"] == "g" else None, "last": last,
        "created": st.get("created", 0), "updated": st.get("updated", 0),
        "overdue": _overdue(st, now), "link": None if st.get("voided") else last_link(st),
        "answered_by": answered_by(msgs), "mode": _first_mode(msgs),
        "voided": bool(st.get("voided")), "replaces": q.get("r", ""),
        "may_have_steps": bool(rules.MODULES[q["y"]].STEPS), "sent": _sent(msgs),
    }


def _overdue(st: dict, now) -> bool:
    """A player's request still open ``OPEN_TOO_LONG_MS`` after its last
    move (the page offers to ask for the final link)."""
    return (st["role"] == "player" and not st.get("revealed") and not st.get("voided")
            and now - st.get("updated", 0) > OPEN_TOO_LONG_MS)


def _sent(msgs: list) -> str:
    """What the player's last link carried: ``first`` (the answer), ``st``
    (the answer with a choice of play), ``sx`` (a step), ``sa`` (play on by
    the advice), ``e`` (end of turn), ``s0`` (the seed for the GM's step)."""
    n = _last_sent(msgs)
    if n is None:
        return ""
    m = msgs[n]
    if m["k"] == "e":
        return "e"
    if n == 1:
        return "st" if "t" in m else "first"
    return _later_seed(m)


def _later_seed(m: dict) -> str:
    """A seed after the answer: a step (``sx``), play on by the advice
    (``sa``), or the seed for the GM's step (``s0``)."""
    return "sx" if "x" in m else ("sa" if "t" in m else "s0")


def public(st: dict) -> dict:
    """The state without the GM's secret while it is still secret."""
    if st.get("revealed") or "secret" not in st:
        return dict(st)
    return {k: v for k, v in st.items() if k != "secret"}


# --------------------------------------------------------------------------
# History: where a result came from.

def _entry(result: dict, player: str, label: str, reveal_data: dict) -> dict:
    name = f"Fair roll: {player}" + (f" — {label}" if label else "")
    return {"system": result["system"], "result": result, "label": name, "roller": player,
            "source": "fair", "fair": share.encode_fair("v", reveal_data)}


def history_entry(st: dict) -> dict:
    """A history entry for a revealed request: the result, a label, and the
    reveal link itself, so the label can be checked again later."""
    q = st["msgs"][0]
    link = reveal_link(st)
    return {"system": q["y"], "result": _result(st["msgs"]),
            "label": f"Fair roll: {q['w']}" + (f" — {q['l']}" if q.get("l") else ""),
            "roller": q["w"], "source": "fair", "fair": link}


def provenance_key(entry) -> str:
    """"fair" only if the entry carries a reveal link that verifies and
    gives this very result; "shared" for a result opened from a link (or a
    fair claim that does not verify); otherwise "here"."""
    if not isinstance(entry, dict):
        return "shared"
    if entry.get("source") == "fair":
        return "fair" if _entry_verifies(entry) else "shared"
    if entry.get("source") == "shared" or entry.get("label") == "Shared link":
        return "shared"
    return "here"


def provenance(entry) -> str:
    """"rolled here", "fair roll, verified" or "shared result, faces as
    reported"."""
    return PROVENANCE[provenance_key(entry)]


def _entry_verifies(entry: dict) -> bool:
    try:
        kind, data = _decode(entry.get("fair"))
        if kind != "v":
            return False
        ver = verify(data)
    except (FairError, SpecError):
        return False
    return entry.get("system") == ver["result"]["system"] and _entry_stages(entry) == ver["result"]["stages"]


def _entry_stages(entry: dict):
    """The stages a history entry records: its own, else its result's."""
    result = entry.get("result")
    return entry["stages"] if "stages" in entry else result.get("stages") if isinstance(result, dict) else None


# --------------------------------------------------------------------------
# Storage: the page keeps every request (both roles) in one list.

def _check_state_form(st) -> None:
    _keys(st, {"v", "role", "rid", "msgs", "revealed", "created", "updated"}, {"secret", "voided"}, "request")
    _check_state_kind(st)
    if not all(_is_time(t) for t in (st["created"], st["updated"])):
        raise _damaged("time")


def _check_state_kind(st: dict) -> None:
    """A stored state's version, role, flags and transcript length."""
    if st["v"] != 1 or st["role"] not in ("gm", "player") or not isinstance(st["revealed"], bool) \
            or not isinstance(st.get("voided", False), bool):
        raise _damaged("request")
    if not isinstance(st["msgs"], list) or not 1 <= len(st["msgs"]) <= MAX_MSGS:
        raise _damaged("request")


def _is_time(t) -> bool:
    """A stored time: a number (ms), never a boolean."""
    return is_number(t)


def _check_state(st) -> dict:
    """A stored state, every part checked again (a corrupt or hostile store
    loses only the entries that fail)."""
    _check_state_form(st)
    q = _check_request(st["msgs"][0])
    if q["i"] != st["rid"]:
        raise _damaged("request id")
    msgs = _checked_msgs(q, st["msgs"][1:])
    if "secret" in st:
        _check_secret(q, st["secret"], msgs)
    elif st["role"] == "gm" or st["revealed"]:
        raise _damaged("secret")
    _result(msgs)
    return st


def _checked_msgs(q: dict, rest: list) -> list:
    """The stored transcript after request ``q``, each move checked and
    each derived move equal to the one this page derives."""
    msgs = [q]
    for m in rest:
        _check_stored_move(msgs, m)
        msgs.append(m)
    if _auto_next(msgs) is not None:
        raise _damaged("request")
    return msgs


def _check_stored_move(msgs: list, m) -> None:
    """One stored move after ``msgs``: where a move is derived (or ``m``
    claims to be one) it is the move this page derives; any other is
    checked as one that came in a link."""
    derived = _auto_next(msgs)
    if derived is not None or (isinstance(m, dict) and m.get("k") == "u"):
        if m != derived:
            raise _damaged("request")
    else:
        _check_move(m, "sedg")
        _turn(msgs, m)


def _check_secret(q: dict, secret, msgs: list) -> None:
    """A stored secret matches the request's commitment and gives its dice."""
    secret = _hex(secret, 2 * SECRET_BYTES, "secret")
    if commitment(q, secret) != q["c"]:
        raise WrongSecret("A stored request's secret does not match its commitment.")
    if _derive(q, secret, _sent_moves(msgs))[0] != msgs:
        raise WrongDice("A stored request's dice are not the dice its secret gives.")


def dump_requests(states: list) -> str:
    """The requests list as stored text (and as exported with the history:
    it holds the GM's open secrets, so the export stays the GM's)."""
    return json.dumps({"v": 1, "requests": list(states)[:MAX_REQUESTS]}, ensure_ascii=False,
                      separators=(",", ":"))


_UNREADABLE = "The stored fair-roll requests could not be read; a fresh list was started."


def _requests_doc(text) -> list:
    """The stored list, or a ``DamagedLink`` saying why there is none."""
    data = _stored_json(text)
    if not isinstance(data, dict) or data.get("v") != 1 or not isinstance(data.get("requests"), list):
        raise DamagedLink("The stored fair-roll requests have an unknown shape; a fresh list was started.")
    return data["requests"][:MAX_REQUESTS]


def _stored_json(text):
    """The stored text read as JSON; refused (``_UNREADABLE``) when it is
    not text, too long, nested too deep, or not JSON."""
    if not isinstance(text, str) or len(text) > 4_000_000 or share.nesting_depth(text) > 40:
        raise DamagedLink(_UNREADABLE)
    try:
        return json.loads(text)
    except ValueError:
        raise DamagedLink(_UNREADABLE) from None


def _sound_state(st) -> bool:
    try:
        _check_state(st)
    except (FairError, SpecError, KeyError, TypeError):
        return False
    return True


def _first_copies(states) -> list:
    """Each request (role and id) once: a later copy of one already read
    is left out (and counts as unusable)."""
    good, seen = [], set()
    for st in states:
        if (st["role"], st["rid"]) not in seen:
            seen.add((st["role"], st["rid"]))
            good.append(st)
    return good


def load_requests(text) -> tuple[list, str | None]:
    """Requests from stored text, and a warning to show if any were unusable."""
    if not text:
        return [], None
    try:
        items = _requests_doc(text)
    except DamagedLink as e:
        return [], str(e)
    good = _first_copies(filter(_sound_state, items))
    bad = len(items) - len(good)
    warning = f"{bad} stored fair-roll request(s) could not be read and are not shown." if bad else None
    return good, warning


def further(mine: dict, theirs: dict) -> bool:
    """Whether ``theirs`` is ``mine`` gone further (the same exchange, more
    of it, or revealed since)."""
    n = len(mine["msgs"])
    return (theirs["msgs"][:n] == mine["msgs"]
            and (len(theirs["msgs"]) > n or (theirs["revealed"] and not mine["revealed"])))


def synced_requests() -> Synced:
    """The requests as every tab of the page shares them (``records.synced``):
    one per role and request id; of two copies that both moved, the one
    that went further (``further``), else this tab's."""
    return Synced(load_requests, dump_requests, lambda st: (st["role"], st["rid"]),
                  pick=lambda mine, theirs: theirs if further(mine, theirs) else mine)


def _index(states: list, st: dict):
    """Where ``states`` holds a copy of ``st`` (the same role and request
    id), or None."""
    return next((j for j, m in enumerate(states) if (m["role"], m["rid"]) == (st["role"], st["rid"])), None)


def _put(states: list, i, st: dict) -> list:
    """``states`` with ``st`` first (a request it lacked, ``i`` None) or in
    place of its copy at ``i``."""
    return [st] + states if i is None else states[:i] + [st] + states[i + 1:]


def merge_requests(mine: list, theirs) -> tuple[list, int, str | None]:
    """Requests from an imported file merged into this page's, by role and
    request id: a request this page lacks is added, one that went further
    in the file replaces this page's copy, any other copy is left as it is.
    Every imported request is checked as a stored one. Returns the list,
    how many were added or brought forward, and a warning (or None)."""
    if not theirs:
        return list(mine), 0, None
    got, warning = load_requests(json.dumps({"v": 1, "requests": theirs if isinstance(theirs, list) else [theirs]}))
    out, changed = list(mine), 0
    for st in got:
        i = _index(out, st)
        if i is None or further(out[i], st):
            out = _put(out, i, st)
            changed += 1
    return out[:MAX_REQUESTS], changed, warning
