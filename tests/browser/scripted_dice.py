"""The page's own dice, scripted from a test, with no hook in the page.

How the page draws a die (read in CPython's ``random`` and Pyodide's
runtime, and seen in the page): ``rules.dice.system_rng()`` is
``random.SystemRandom()``; ``randint(1, n)`` is ``1 + _randbelow(n)``, which
calls ``getrandbits(k)``, ``k = n.bit_length()``, until it gives a number
below ``n``; ``getrandbits(k)`` reads ``os.urandom((k + 7) // 8)`` (one byte
for any die of up to 255 faces) and keeps its top ``k`` bits. In Pyodide
``os.urandom`` is Emscripten's ``random_get``, which fills a view of the
wasm memory with ``crypto.getRandomValues``. So every die the page draws is
a ``getRandomValues`` call of exactly one byte, and a rejected draw one more.

``SCRIPT``, an init script (it runs before the page's own scripts), wraps
``Crypto.prototype.getRandomValues``. While a test has armed it
(``forced``), each request of exactly **one byte** takes the next byte of
the queue; a request of any other size (Python's hash seed and ``random``'s
seeding at start-up, history and table ids, device keys, fair-roll secrets
and seeds: 6 bytes or more) gets real randomness, untouched, and the queue
lives in the page's window only (the odds Worker has a crypto of its own and
draws no dice). When the ``forced`` block ends, the queue must be drained
exactly: every byte taken, and no one-byte request met an empty queue (a
draw the test did not script, e.g. a die more than it meant, or a byte the
page rejected). A change in how the page draws its dice therefore fails the
test loudly instead of quietly leaving the dice to chance. Unarmed, the
wrapper only passes the call on.

The page cannot be asked for these dice by anything but a test: a link,
the storage and the live table reach no hook (there is none); only a script
run in the page before its own, as a browser's automation does, can wrap
``getRandomValues``.

The byte for face ``f`` of an ``n``-sided die is ``(f - 1) << (8 -
n.bit_length())``: its top ``k`` bits are ``f - 1 < n``, so the draw is
never rejected, on a d6, d10 or d12 (where a random byte may be) too.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable
from contextlib import contextmanager

from static_form import static_form

import rules
from rules.dice import ScriptedRng

SCRIPT = """
(() => {
  const real = Crypto.prototype.getRandomValues;
  const dice = window.__scriptedDice = { queue: [], served: 0, over: 0, armed: false };
  Crypto.prototype.getRandomValues = function (view) {
    const out = real.call(this, view);
    if (dice.armed && view.byteLength === 1) {
      if (dice.queue.length) {
        new Uint8Array(view.buffer, view.byteOffset, 1)[0] = dice.queue.shift();
        dice.served += 1;
      } else {
        dice.over += 1;
      }
    }
    return out;
  };
})();
"""

_ARM = """(bytes) => {
  const dice = window.__scriptedDice;
  if (!dice) return false;
  Object.assign(dice, { queue: bytes.slice(), served: 0, over: 0, armed: true });
  return true;
}"""

_DISARM = """() => {
  const dice = window.__scriptedDice;
  const seen = { left: dice.queue.length, served: dice.served, over: dice.over };
  Object.assign(dice, { queue: [], armed: false });
  return seen;
}"""


def byte_of(face: int, sides: int) -> int:
    """The byte that makes ``SystemRandom().randint(1, sides)`` give ``face``
    at the first draw.

    >>> [byte_of(f, 6) for f in range(1, 7)]
    [0, 32, 64, 96, 128, 160]
    >>> byte_of(12, 12), byte_of(4, 4), byte_of(1, 1)
    (176, 96, 0)
    >>> byte_of(7, 6)
    Traceback (most recent call last):
    ...
    ValueError: no face 7 on a d6
    """
    if not 1 <= sides <= 255:
        raise ValueError(f"a d{sides} takes more than one byte")
    if not 1 <= face <= sides:
        raise ValueError(f"no face {face} on a d{sides}")
    return (face - 1) << (8 - sides.bit_length())


def bytes_of(dice: Iterable[tuple[int, int]]) -> list[int]:
    """The queue for ``(face, sides)`` dice in the order the page draws them."""
    return [byte_of(face, sides) for face, sides in dice]


class _Sizes:
    """An rng that replays ``faces`` and notes the die each one is on."""

    def __init__(self, faces):
        self.faces, self.dice = list(faces), []

    def randint(self, a, b):
        assert a == 1, f"a draw from randint({a}, {b}): not a die"
        if len(self.dice) == len(self.faces):
            raise AssertionError(f"the rules draw more dice than the {len(self.faces)} faces given")
        self.dice.append((self.faces[len(self.dice)], b))
        return self.dice[-1][0]


def _all_used(sizes: _Sizes) -> list[tuple[int, int]]:
    if len(sizes.dice) != len(sizes.faces):
        raise AssertionError(f"{len(sizes.faces)} faces given, the rules draw {len(sizes.dice)} dice")
    return sizes.dice


def form_spec(system: str, changes: dict | None = None) -> dict:
    """The spec the page rolls from its form as it opens (and as Reset form
    leaves it) with ``changes`` (a field's name: its value, or its values
    for boxes ticked), read by the tab's own ``spec_from_form``."""
    fields = dict(static_form(system).fields)
    for name, value in (changes or {}).items():
        fields[name] = [value] if isinstance(value, str) else list(value)
    ui = importlib.import_module(f"tabs.ui_{system}")
    return rules.normalize(system, ui.spec_from_form(fields))


def roll_dice(system: str, spec, faces) -> list[tuple[int, int]]:
    """``(face, sides)`` of each die a roll of ``spec`` draws, the faces
    ``faces`` (the rules say which die each is on; exactly as many)."""
    sizes = _Sizes(faces)
    rules.roll(system, spec, sizes, advise=False)
    return _all_used(sizes)


def step_dice(system: str, spec, first: list, action: dict, faces) -> list[tuple[int, int]]:
    """``(face, sides)`` of each die ``action`` draws after a roll of ``spec``
    whose dice were ``first`` (e.g. a prayer's or a tie-break's)."""
    result = rules.roll(system, spec, ScriptedRng(first), advise=False)
    sizes = _Sizes(faces)
    rules.act(system, spec, result, action, sizes, advise=False)
    return _all_used(sizes)


@contextmanager
def forced(page, dice: Iterable[tuple[int, int]]):
    """The page's next one-byte draws are these ``(face, sides)`` dice: arm
    the queue, run the block (the click that rolls, and the wait for its
    result), then check the queue was drained exactly."""
    queue = bytes_of(dice)
    if not page.evaluate(_ARM, queue):
        raise AssertionError("the page has no scripted dice: open it with init_script=scripted_dice.SCRIPT")
    try:
        yield
    except BaseException:
        if not page.is_closed():
            page.evaluate(_DISARM)
        raise
    seen = page.evaluate(_DISARM)
    assert seen == {"left": 0, "served": len(queue), "over": 0}, (
        f"scripted dice not drawn as scripted ({len(queue)} queued): {json.dumps(seen)}")
