"""Honest dice (docs/TRUST.md): every kind of die is fair through the real
code path, the same check catches a biased die, and the default source is
the operating system's cryptographic one, which picks a face by rejection,
never by a modulo.

The check: Pearson's chi-square goodness of fit against a fair die, flagged
below p = 0.001 (``dicecheck.p_value``, the regularized upper incomplete
gamma function; cross-checked here against printed tables and against the
Wilson–Hilferty approximation, which shares no code with it). Every run is
seeded (``random.Random(seed)``), so the verdicts are the same on every run
and CI never flakes. Runs under CPython and under Pyodide.
"""

from __future__ import annotations

import random

import pytest

import rules
from rules import dice
from rules.alkemy import model as alkemy
from rules.dice import roll_die, roll_face
from rules.milhamah import model as milhamah
from trust import dicecheck

#: Draws per die: enough that each biased die below fails (each failed on
#: 20 seeds of 20 tried), few enough to run in seconds under Pyodide.
N = 120000
ALPHA = dicecheck.ALPHA


def verdict(counts: list, expected: list) -> float:
    """The p-value of the counts against the expected ones."""
    stat = dicecheck.chi_square(counts, expected)
    return dicecheck.p_value(stat, len(counts) - 1)


def count_numbered(rng, sides: int, n: int = N) -> list:
    tally = [0] * sides
    for _ in range(n):
        tally[roll_die(rng, sides) - 1] += 1
    return tally


def count_faces(rng, faces: list, n: int = N) -> tuple[list, list]:
    """Counts per distinct face and what a fair die gives (a face printed
    twice, such as Milhamah's wild, twice as often)."""
    distinct = list(dict.fromkeys(faces))
    tally = dict.fromkeys(distinct, 0)
    for _ in range(n):
        tally[roll_face(rng, faces)] += 1
    return [tally[f] for f in distinct], [n * faces.count(f) / len(faces) for f in distinct]


# --------------------------------------------------------------------------
# The statistics themselves.

# (statistic, df, p) from printed chi-square tables.
TABLE = [(3.841, 1, 0.05), (6.635, 1, 0.01), (7.815, 3, 0.05), (16.266, 3, 0.001),
         (11.070, 5, 0.05), (20.515, 5, 0.001), (24.322, 7, 0.001), (27.877, 9, 0.001),
         (31.264, 11, 0.001), (18.307, 10, 0.05), (46.797, 21, 0.001), (2.342, 5, 0.8)]


@pytest.mark.parametrize("stat, df, p", TABLE, ids=[f"chi2={t[0]}-df={t[1]}" for t in TABLE])
def test_p_value_matches_printed_tables(stat, df, p):
    """The p-value function gives the tables' figures (3 significant digits)."""
    assert dicecheck.p_value(stat, df) == pytest.approx(p, rel=2e-3)


@pytest.mark.parametrize("df", range(3, 22))
def test_p_value_agrees_with_wilson_hilferty(df):
    """At the Wilson–Hilferty 0.001 point (df 3..21: every die here), the
    p-value is 0.001 within the approximation's error."""
    crit = dicecheck.critical_value(df, ALPHA)
    assert dicecheck.p_value(crit, df) == pytest.approx(ALPHA, rel=0.15)
    assert dicecheck.p_value(crit * 0.9, df) > ALPHA > dicecheck.p_value(crit * 1.1, df)


def test_p_value_extremes():
    """A perfect fit has p = 1; an absurd one p near 0; p falls as the
    statistic grows."""
    assert dicecheck.p_value(0.0, 5) == 1.0
    assert dicecheck.p_value(500.0, 5) < 1e-100
    ps = [dicecheck.p_value(x, 11) for x in range(0, 80, 4)]
    assert ps == sorted(ps, reverse=True)


# --------------------------------------------------------------------------
# Fair dice pass.

@pytest.mark.parametrize("sides", dice.SIZES, ids=[f"d{s}" for s in dice.SIZES])
def test_numbered_dice_are_fair(sides):
    """``roll_die`` (every numbered die of every system) on a seeded source:
    every face comes up as often as chance allows."""
    counts = count_numbered(random.Random(1000 + sides), sides)
    assert sum(counts) == N
    assert verdict(counts, [N / sides] * sides) >= ALPHA


LETTER_DICE = [(c, d) for c in milhamah.COLOURS for d in ("A", "B")]


@pytest.mark.parametrize("colour, design", LETTER_DICE, ids=[f"{c}-{d}" for c, d in LETTER_DICE])
def test_milhamah_letter_dice_are_fair(colour, design):
    """``roll_face`` on each Milhamah die design (the rules' own face data,
    read through ``milhamah.die_faces``): 12 faces, each as often as chance
    allows; a wild printed twice comes up twice as often."""
    faces = milhamah.die_faces(colour, design)
    assert len(faces) == 12
    counts, expected = count_faces(random.Random(100 + LETTER_DICE.index((colour, design))), faces)
    assert verdict(counts, expected) >= ALPHA


SYMBOL_DICE = [(s, c) for s in alkemy.FACE_SETS for c in alkemy.HEALTH]


@pytest.mark.parametrize("face_set, colour", SYMBOL_DICE, ids=[f"{s}-{c}" for s, c in SYMBOL_DICE])
def test_alkemy_symbol_dice_are_fair(face_set, colour):
    """ALKEMY's dice of every face set and health colour, drawn as the
    rules draw them (one ``randint(1, len(faces))`` indexing the faces)."""
    faces = list(alkemy.FACE_SETS[face_set][colour])
    counts, expected = count_faces(random.Random(len(faces) * 7 + len(colour)), faces)
    assert verdict(counts, expected) >= ALPHA


def test_the_rolls_themselves_are_fair():
    """Through ``rules.roll`` itself: Jadeclaw's d12 + d4 pool, many seeded
    rolls, each die's faces as often as chance allows (the pool's own
    ordering, largest first, does not bias a face)."""
    rng = random.Random(5)
    d12, d4 = [0] * 12, [0] * 4
    for _ in range(6000):
        r = rules.roll("jadeclaw", {"dice": "d12 & d4"}, rng)
        d12[r["dice"][0]["face"] - 1] += 1
        d4[r["dice"][1]["face"] - 1] += 1
    assert verdict(d12, [500] * 12) >= ALPHA
    assert verdict(d4, [1500] * 4) >= ALPHA


# --------------------------------------------------------------------------
# A biased die fails the same check.

class ModuloRng:
    """A classic mistake: a face from ``bits`` random bits taken modulo the
    sides. Unless the sides divide 2**bits, the low faces come up more."""

    def __init__(self, seed: int, bits: int):
        self.inner = random.Random(seed)
        self.bits = bits

    def randint(self, a: int, b: int) -> int:
        return a + self.inner.getrandbits(self.bits) % (b - a + 1)


class LoadedRng:
    """A die loaded on its top face: ``extra`` more likely than the others."""

    def __init__(self, seed: int, extra: float):
        self.inner = random.Random(seed)
        self.extra = extra

    def randint(self, a: int, b: int) -> int:
        n = b - a + 1
        weights = [1.0] * (n - 1) + [1.0 + self.extra]
        return a + self.inner.choices(range(n), weights)[0]


BIASED = [
    pytest.param(lambda: ModuloRng(1, 8), 12, id="d12-from-8-bits-modulo"),
    pytest.param(lambda: ModuloRng(2, 8), 10, id="d10-from-8-bits-modulo"),
    pytest.param(lambda: ModuloRng(3, 6), 6, id="d6-from-6-bits-modulo"),
    pytest.param(lambda: LoadedRng(4, 0.05), 6, id="d6-top-face-5-percent-heavy"),
    pytest.param(lambda: LoadedRng(5, 0.10), 12, id="d12-top-face-10-percent-heavy"),
]


@pytest.mark.parametrize("make_rng, sides", BIASED)
def test_a_biased_die_fails_the_check(make_rng, sides):
    """The same count, the same size and the same threshold as the fair
    dice above flag each biased die: the check would catch a bias as small
    as 8-bit modulo on a d12 (the faces 1-4 about 3 % more often)."""
    counts = count_numbered(make_rng(), sides)
    assert verdict(counts, [N / sides] * sides) < ALPHA


def test_a_biased_letter_die_fails_the_check():
    """A Milhamah letter die rolled through a modulo source fails too."""
    faces = milhamah.die_faces("red", "A")
    counts, expected = count_faces(ModuloRng(6, 8), faces)
    assert verdict(counts, expected) < ALPHA


def test_modulo_of_a_power_of_two_is_not_flagged():
    """A control: 8 bits modulo 8 is exactly fair, and the check says so (it
    flags bias, not the modulo as such)."""
    counts = count_numbered(ModuloRng(7, 8), 8)
    assert verdict(counts, [N / 8] * 8) >= ALPHA


# --------------------------------------------------------------------------
# The default source: cryptographic, by rejection.

class BitSource(random.SystemRandom):
    """``SystemRandom`` with its bit source wrapped: records each
    ``getrandbits(k)`` and can replay a script instead of the OS bits."""

    def __init__(self, script=None):
        super().__init__()
        self.script = list(script or [])
        self.calls: list[tuple[int, int]] = []

    def getrandbits(self, k):
        r = self.script.pop(0) if self.script else super().getrandbits(k)
        assert 0 <= r < 2 ** k
        self.calls.append((k, r))
        return r


def test_default_source_is_system_random():
    """``rules.roll(..., rng=None)`` draws from ``random.SystemRandom``
    (os.urandom; in the browser crypto.getRandomValues), and every die of
    the roll came from it."""
    made = []
    real = rules.system_rng

    def spy():
        rng = BitSource()
        made.append(rng)
        return rng

    assert isinstance(dice.system_rng(), random.SystemRandom)
    try:
        rules.system_rng = spy
        r = rules.roll("jadeclaw", {"dice": "d12 & d8 & d6"})
    finally:
        rules.system_rng = real
    assert len(made) == 1
    assert len(made[0].calls) >= 3  # one draw per die, more after a rejection
    assert [d["face"] for d in r["dice"]] == r["stages"][0]["draws"]


def test_system_random_reads_os_urandom(monkeypatch):
    """SystemRandom's bits are the operating system's: it calls
    ``os.urandom`` (patched here to count), never a seeded generator."""
    asked = []
    real = random._urandom

    def counting(n):
        asked.append(n)
        return real(n)

    monkeypatch.setattr(random, "_urandom", counting)
    rules.roll("open_tale", {"level": 3})
    assert asked, "no bytes were read from os.urandom"


def test_system_random_rejects_instead_of_modulo():
    """A d6 from SystemRandom takes whole bits and throws away values of 6
    or more (rejection): scripted bits 7, 6, 2 give the face 3, where a
    modulo would have given 7 % 6 + 1 = 2. Through ``rules.roll``."""
    real = rules.system_rng
    k = (6).bit_length()
    src = BitSource([7, 6, 2])
    try:
        rules.system_rng = lambda: src
        r = rules.roll("jadeclaw", {"dice": "d6"})
    finally:
        rules.system_rng = real
    assert [c[1] for c in src.calls[:3]] == [7, 6, 2]
    assert all(c[0] == k for c in src.calls[:3])
    assert r["dice"][0]["history"][0] == 3


@pytest.mark.parametrize("sides", [4, 6, 10, 12, 22], ids=lambda s: f"{s}-faces")
def test_rejection_happens_and_every_face_is_an_accepted_draw(sides):
    """Over many draws SystemRandom rejects sometimes (a die that is not a
    power of two cannot be cut from whole bits otherwise), and each face is
    exactly the accepted draw + 1: no draw is folded onto a face."""
    src = BitSource()
    faces = [src.randint(1, sides) for _ in range(400)]
    assert len(src.calls) > len(faces), "no draw was ever rejected"
    accepted = [r for _k, r in src.calls if r < sides]
    assert [f - 1 for f in faces] == accepted
    rejected = [r for _k, r in src.calls if r >= sides]
    assert rejected and len(rejected) + len(accepted) == len(src.calls)
