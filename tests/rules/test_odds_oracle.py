"""Every distribution that needs no decision, checked against icepool (the
field's exact dice-probability library, test-only: see docs/SPEED.md, "The
odds kernel") on seeded random specs: total variation at most 1e-12.

Each game's roll is written here as an icepool expression over the dice the
roll draws (the sizes found through the public contract, by a probe rng),
the faces from the game's data and the rule's named numbers; icepool does
the arithmetic, never our convolutions:

- Mirage: each die's successes, summed, less the opponent's (``value``);
- Jadeclaw: a Simple Roll's Score (the highest die; each Penalty another
  roll, the worst kept) and its contest against opposing or Difficulty
  Dice;
- ALKEMY: the two kept dice (the highest with a bonus, the lowest with a
  malus) plus the characteristic, against a difficulty;
- Open Tale: the exploding dice summed (and the Heroic d4), with a net
  modifier whose die is picked by the larger/smaller rule (no choice);
- Milhamah: the first roll (no reroll, no cipher): successes, a natural
  shoresh (each needed letter on its own die), a botch (no letter).

A spec whose roll takes a decision (Open Tale's best or target die, a
reroll, a prayer, a kept pair other than the default, a tie rerolled)
is left to the advice suites; Jadeclaw's Favored and Damage Rolls are
left out here (their own enumerations are in test_jadeclaw.py).
"""

from __future__ import annotations

import functools
import random
from fractions import Fraction

import pytest

icepool = pytest.importorskip("icepool")

import rules  # noqa: E402
from rules.alkemy import model as alkemy  # noqa: E402
from rules.jadeclaw import model as jadeclaw  # noqa: E402
from rules.milhamah import model as milhamah  # noqa: E402
from rules.mirage import model as mirage  # noqa: E402
from rules.open_tale import model as open_tale  # noqa: E402

TV = 1e-12
#: Random specs per game (seeded: the same every run).
N = 12


def tv(ours: dict, theirs: dict) -> float:
    """Total variation between two distributions {outcome: p}."""
    keys = set(ours) | set(theirs)
    return 0.5 * sum(abs(float(ours.get(k, 0)) - float(theirs.get(k, 0))) for k in keys)


def dist(die) -> dict:
    """An icepool die as {outcome: Fraction}."""
    return {k: die.probability(k) for k in die.outcomes()}


class Probe:
    """An rng that shows 1 and notes the size of each die asked for."""

    def __init__(self):
        self.sizes = []

    def randint(self, a, b):
        self.sizes.append(b)
        return 1


def drawn(system: str, spec: dict) -> tuple[list, dict]:
    """The sizes of the dice a roll draws, in order, and the result."""
    probe = Probe()
    result = rules.roll(system, spec, probe, advise=False)
    return probe.sizes, result


# ---------------------------------------------------------------- Mirage

def mirage_die(sides: int):
    return icepool.Die([(f >= mirage.SUCCESS_ON) + (f >= mirage.GREAT_ON) for f in range(1, sides + 1)])


def mirage_specs():
    rng = random.Random(2901)
    for _ in range(N):
        side = lambda: {"attribute": rng.choice(mirage.DIE_SIZES),  # noqa: E731
                        "skill": rng.choice((0,) + mirage.DIE_SIZES),
                        "gear": [rng.choice(mirage.DIE_SIZES) for _ in range(rng.randint(0, 3))],
                        "modifier": rng.randint(-4, 4)}
        spec = side()
        if rng.random() < 0.5:
            spec["opponent"] = side()
        yield spec


@pytest.mark.parametrize("spec", list(mirage_specs()), ids=lambda s: str(s))
def test_mirage_successes(spec):
    sizes, result = drawn("mirage", spec)
    mine = len(result["dice"])
    own = sum((mirage_die(s) for s in sizes[:mine]), icepool.Die([0]))
    opp = sum((mirage_die(s) for s in sizes[mine:]), icepool.Die([0]))
    want = dist(own - opp) if "opponent" in spec else dist(own)
    assert tv(rules.odds("mirage", spec)["value"], want) <= TV


# ---------------------------------------------------------------- Jadeclaw

def jade_score(pool: list, penalties: int):
    dice = [icepool.d(s) for s in pool]
    score = icepool.Pool(dice).highest(1).sum() if len(dice) > 1 else dice[0]
    return icepool.Pool([score] * (penalties + 1)).lowest(1).sum() if penalties else score


def jade_specs():
    rng = random.Random(2902)
    for _ in range(N):
        dice = [rng.choice((4, 6, 8, 10, 12)) for _ in range(rng.randint(1, 4))]
        spec = {"dice": dice, "bonuses": rng.randint(0, 2), "penalties": rng.randint(0, 2)}
        if rng.random() < 0.5:
            spec["difficulty"] = rng.choice(sorted(jadeclaw.DIFFICULTIES))
        else:
            spec["opponent"] = [rng.choice((4, 6, 8, 10, 12)) for _ in range(rng.randint(1, 3))]
            spec["opponent_penalties"] = rng.randint(0, 1)
        yield spec


@pytest.mark.parametrize("spec", list(jade_specs()), ids=lambda s: str(s))
def test_jadeclaw_score_and_contest(spec):
    norm = rules.normalize("jadeclaw", spec)
    pool, _, info = jadeclaw.prepare(norm)
    mine = jade_score(pool, info["penalties"])
    o = rules.odds("jadeclaw", spec)
    assert tv(o["value"], dist(mine)) <= TV
    opool, _, oinfo = jadeclaw.prepare_side(jadeclaw.side(norm, "opponent"))
    theirs = jade_score(opool, oinfo["penalties"])
    contest = icepool.map(lambda a, b: jadeclaw.contest(a, b, norm["quality"], norm["opponent_quality"],
                                                        norm["double_botch"]), mine, theirs)
    assert tv(o["outcome"], dist(contest)) <= TV


# ---------------------------------------------------------------- ALKEMY

def alkemy_specs():
    rng = random.Random(2903)
    for _ in range(N):
        n = rng.randint(0, 2)
        yield {"characteristic": rng.randint(0, 10), "difficulty": rng.randint(4, 22),
               ("bonus" if rng.random() < 0.5 else "malus"): n,
               "health": rng.choice(alkemy.HEALTH), "faces": rng.choice(sorted(alkemy.FACE_SETS))}


@pytest.mark.parametrize("spec", list(alkemy_specs()), ids=lambda s: str(s))
def test_alkemy_total_against_a_difficulty(spec):
    norm = rules.normalize("alkemy", spec)
    die = icepool.Die([v for v, _sym in alkemy.FACE_SETS[norm["faces"]][norm["health"]]])
    net = norm["bonus"] - norm["malus"]
    pool = icepool.Pool([die] * (alkemy.KEPT + abs(net)))
    kept = (pool.highest(alkemy.KEPT) if net > 0 else pool.lowest(alkemy.KEPT)).sum() + norm["characteristic"]
    o = rules.odds("alkemy", spec)
    assert tv(o["value"], dist(kept)) <= TV
    win = dist(kept.map(lambda t: "success" if t >= norm["difficulty"] else "failure"))
    assert tv({k: v for k, v in o["outcome"].items() if v}, win) <= TV


# ---------------------------------------------------------------- Open Tale

@functools.lru_cache(maxsize=None)
def exploding(sides: int):
    """A die that explodes on its maximum, deep enough that the mass it
    leaves out is below 1e-14 (the odds are exact up to ``SCORE_BOUND``)."""
    return icepool.d(sides).explode(depth=open_tale.SCORE_BOUND // sides + 5)


def final(sides: int, kept):
    """A die whose face before its explosions is ``kept`` (an int or a die)."""
    kept = kept if isinstance(kept, icepool.Die) else icepool.Die([kept])
    return kept.map(lambda k: k + exploding(sides) if k == sides else k)


def open_tale_score(sizes: list, net: int, tie_break: str):
    if net == 0:
        return sum((exploding(s) for s in sizes), icepool.Die([0]))
    high = open_tale.PICK_HIGH[net]

    def after(*faces):
        best = max(faces) if high else min(faces)
        tied = [i for i, f in enumerate(faces) if f == best]
        pick = (max if tie_break == "larger" else min)(tied, key=lambda i: (sizes[i], i))
        new = icepool.d(sizes[pick])
        kept = {-2: lambda k: min(k, faces[pick]), 2: lambda k: max(k, faces[pick])}.get(net, lambda k: k)
        total = icepool.Die([0])
        for i, s in enumerate(sizes):
            total = total + (final(s, new.map(kept)) if i == pick else final(s, faces[i]))
        return total

    return icepool.map(after, *[icepool.d(s) for s in sizes])


def open_tale_specs():
    rng = random.Random(2904)
    for _ in range(N):
        level = rng.choice(list(open_tale.LEVELS))
        pair = rng.choice(open_tale.valid_pairs(level))
        mods = rng.choice([[], ["advantage"], ["disadvantage"], ["superiority"], ["inferiority"]])
        yield {"level": level, "dice": list(pair), "heroic": rng.random() < 0.4, "modifiers": mods,
               "tie_break": rng.choice(["larger", "smaller"])}


@pytest.mark.parametrize("spec", list(open_tale_specs()), ids=lambda s: str(s))
def test_open_tale_score(spec):
    norm = rules.normalize("open_tale", spec)
    sizes = list(norm["dice"]) + ([open_tale.HEROIC_DIE] if norm["heroic"] else [])
    want = dist(open_tale_score(sizes, open_tale.net_modifier(norm["modifiers"]), norm["tie_break"]))
    o = rules.odds("open_tale", spec)
    bound = o["bound"]
    ours = dict(o["value"])
    ours["above"] = o["tail"]["p"]
    theirs = {k: p for k, p in want.items() if k <= bound}
    theirs["above"] = sum((p for k, p in want.items() if k > bound), Fraction(0))
    assert tv(ours, theirs) <= TV


# ---------------------------------------------------------------- Milhamah

def milhamah_specs():
    rng = random.Random(2905)
    roots = ["אשר", "שלם", "חנן", "טכ", "ברכה", "אב"]
    for _ in range(N):
        pool = {c: rng.randint(0, milhamah.DICE_PER_COLOUR) for c in milhamah.COLOURS}
        if not any(pool.values()):
            pool["red"] = 1
        yield {"shoresh": rng.choice(roots), "pool": pool, "rounds": 0, "reaction": rng.random() < 0.3,
               "difficulty": rng.randint(1, 5)}


@pytest.mark.parametrize("spec", list(milhamah_specs()), ids=lambda s: str(s))
def test_milhamah_first_roll(spec):
    norm = rules.normalize("milhamah", spec)
    need = milhamah.letters_needed(norm["shoresh"])
    dice = [icepool.Die(list(milhamah.die_faces(c, d))) for c, d in milhamah.dice_of(norm)]
    counts = not norm["reaction"]
    hits = sum((d.map(lambda f: int(f in need or (counts and f == milhamah.WILD))) for d in dice),
               icepool.Die([0]))
    o = rules.odds("milhamah", spec)
    assert tv(o["value"], dist(hits)) <= TV
    target = [ch for ch, n in need.items() for _ in range(n)]
    natural = icepool.Pool(dice).issuperset(target)
    assert abs(o["natural_first"] - float(natural.probability(True))) <= TV
    letters = sum((d.map(lambda f: int(f in need)) for d in dice), icepool.Die([0]))
    assert abs(o["botch_first"] - float(letters.probability(0))) <= TV


def test_the_oracle_would_catch_a_wrong_distribution():
    """The check has teeth: a distribution off by one face is far over the
    bound."""
    sizes, _ = drawn("mirage", {"attribute": 8, "skill": 6})
    right = dist(sum((mirage_die(s) for s in sizes), icepool.Die([0])))
    wrong = dict(right)
    wrong[0] -= Fraction(1, 48)
    wrong[1] += Fraction(1, 48)
    assert tv(right, dist(sum((mirage_die(s) for s in sizes), icepool.Die([0])))) == 0
    assert tv(wrong, right) > 1e-3
