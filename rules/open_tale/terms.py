"""Open Tale's terms: the roll modifiers and how they add up, the
attribute's power, and a pair of dice in the text's notation ("3. Roll
system"): the names both the model and the explanation read.

>>> power(5), pair_text((12, 4)), modifier_text(["superiority", "disadvantage"])
(16, 'd12 + d4', 'Superiority (+2) + Disadvantage (−1) = Advantage (+1)')
"""

from __future__ import annotations

__all__ = ["MODIFIERS", "NET_NAMES", "PICK_HIGH", "power", "pair_text", "net_modifier", "modifier_text"]

#: Open Tale, 3.2 "Compensating modifiers": the modifiers as integers.
MODIFIERS = {"inferiority": -2, "disadvantage": -1, "advantage": 1, "superiority": 2}

#: The net modifier's name; 0 is the text's "Neural" (neutral) column.
NET_NAMES = {-2: "inferiority", -1: "disadvantage", 0: "neutral", 1: "advantage", 2: "superiority"}

#: Which die a net modifier picks (Open Tale, 3.2): the highest (True) or
#: the smallest.
PICK_HIGH = {-2: True, -1: True, 1: False, 2: False}


def power(level: int) -> int:
    """Open Tale, 3: Attribute Power = 6 + 2 * Attribute Level.

    >>> power(5)
    16
    """
    return 6 + 2 * level


def pair_text(pair) -> str:
    """A pair in the text's notation.

    >>> pair_text((12, 4)), pair_text((8, 8))
    ('d12 + d4', '2d8')
    """
    a, b = pair
    return f"2d{a}" if a == b else f"d{a} + d{b}"


def net_modifier(names) -> int:
    """Open Tale, 3.2 "Compensating modifiers": the modifiers add up as
    integers; RULES-NOTES Open Tale 3: the sum clamps to -2..+2.

    >>> net_modifier(["advantage", "disadvantage"]), net_modifier(["superiority", "disadvantage"])
    (0, 1)
    >>> net_modifier(["superiority", "advantage"])
    2
    """
    return max(-2, min(2, sum(MODIFIERS[n] for n in names)))


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
    raw = sum(MODIFIERS[n] for n in names)
    result = "no modifier (0)" if net == 0 else f"{NET_NAMES[net].title()} ({_signed(net)})"
    if raw != net:
        result += f", clamped from {_signed(raw)}"
    if len(names) == 1:
        return parts
    return f"{parts} = {result}"


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else ("−" + str(-n) if n < 0 else "0")
