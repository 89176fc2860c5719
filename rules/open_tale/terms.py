"""Open Tale's terms: the roll modifiers and how they add up, the
attribute's power, and a pair of dice in the text's notation ("3. Roll
system"): the names both the model and the explanation read.

>>> power(5), pair_text((12, 4)), modifier_text(["superiority", "disadvantage"])
(16, 'd12 + d4', 'Superiority (+2) + Disadvantage (−1) = Advantage (+1)')
"""

from __future__ import annotations

__all__ = ["MODIFIERS", "NET_NAMES", "PICK_HIGH", "POWER_BASE", "POWER_PER_LEVEL", "LEVELS", "MAX_NET",
           "HEROIC_DIE", "power", "level_of", "pair_text", "net_modifier", "modifier_text"]

# The rule's numbers, each named once: the model, the odds, the explanation
# and the page read them from here.

#: Open Tale, 3: Attribute Power = POWER_BASE + POWER_PER_LEVEL * Attribute Level.
POWER_BASE = 6
POWER_PER_LEVEL = 2
#: The attribute levels, lowest to highest.
LEVELS = range(1, 10)
#: RULES-NOTES Open Tale 3: the net modifier clamps to -MAX_NET..+MAX_NET.
MAX_NET = 2
#: Open Tale, 3: the Heroic Badge adds a die of this size.
HEROIC_DIE = 4

#: Open Tale, 3.2 "Compensating modifiers": the modifiers as integers.
MODIFIERS = {"inferiority": -2, "disadvantage": -1, "advantage": 1, "superiority": 2}

#: The net modifier's name (-MAX_NET..MAX_NET); 0 is the text's "Neural"
#: (neutral) column.
NET_NAMES = {-2: "inferiority", -1: "disadvantage", 0: "neutral", 1: "advantage", 2: "superiority"}

#: Which die a net modifier picks (Open Tale, 3.2): the highest (True) or
#: the smallest.
PICK_HIGH = {-2: True, -1: True, 1: False, 2: False}


def power(level: int) -> int:
    """Open Tale, 3: Attribute Power = ``POWER_BASE`` + ``POWER_PER_LEVEL``
    * Attribute Level.

    >>> power(5) == POWER_BASE + 5 * POWER_PER_LEVEL, level_of(power(5))
    (True, 5)
    """
    return POWER_BASE + POWER_PER_LEVEL * level


def level_of(power_: int) -> int:
    """The level whose power is ``power_`` (``power`` turned round)."""
    return (power_ - POWER_BASE) // POWER_PER_LEVEL


def pair_text(pair) -> str:
    """A pair in the text's notation.

    >>> pair_text((12, 4)), pair_text((8, 8))
    ('d12 + d4', '2d8')
    """
    a, b = pair
    return f"2d{a}" if a == b else f"d{a} + d{b}"


def net_modifier(names) -> int:
    """Open Tale, 3.2 "Compensating modifiers": the modifiers add up as
    integers; RULES-NOTES Open Tale 3: the sum clamps to -MAX_NET..+MAX_NET.

    >>> net_modifier(["advantage", "disadvantage"]), net_modifier(["superiority", "disadvantage"])
    (0, 1)
    >>> net_modifier(["superiority", "advantage"])
    2
    """
    return max(-MAX_NET, min(MAX_NET, sum(MODIFIERS[n] for n in names)))


def modifier_text(names) -> str:
    """How the named modifiers combine, in words.

    >>> modifier_text(["superiority", "disadvantage"])
    'Superiority (+2) + Disadvantage (−1) = Advantage (+1)'
    >>> modifier_text([])
    'no modifier'
    """
    if not names:
        return "no modifier"
    net = net_modifier(names)
    parts = " + ".join(f"{n.title()} ({_signed(MODIFIERS[n])})" for n in names)
    if len(names) == 1:
        return parts
    return f"{parts} = {_net_text(names, net)}"


def _net_text(names, net: int) -> str:
    """What the named modifiers come to: the net modifier ``net`` by its
    name, and the raw sum where the net is clamped."""
    raw = sum(MODIFIERS[n] for n in names)
    result = "no modifier (0)" if net == 0 else f"{NET_NAMES[net].title()} ({_signed(net)})"
    if raw != net:
        result += f", clamped from {_signed(raw)}"
    return result


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else ("−" + str(-n) if n < 0 else "0")
