"""Jadeclaw (seeds/004_4eaa9d3ff8d4a59c.txt): dice pools d4-d12, the highest
face is the Score.

This first cut wires the page shell end to end (a simple roll with no
opposition); the Jadeclaw issue builds the rest on it.

>>> from rules.dice import ScriptedRng
>>> r = roll(normalize({"dice": "d10, d6"}), ScriptedRng([7, 3]))
>>> r["value"], r["outcome"]
(7, 'scored')
"""

from __future__ import annotations

from .dice import Die, SpecError, check_keys, format_pool, get_sizes, roll_die

OUTCOMES = ("botch", "double_botch", "overwhelming_failure", "failure", "tie",
            "scored", "success", "overwhelming_success", "no_hits", "hits")

DEFAULT_SPEC = {"kind": "simple", "dice": [12, 8]}


def normalize(spec) -> dict:
    check_keys(spec, ["kind", "dice"])
    if spec.get("kind", "simple") != "simple":
        raise SpecError("kind", "must be simple")
    return {"kind": "simple", "dice": get_sizes(spec, "dice", default=DEFAULT_SPEC["dice"])}


def roll(spec: dict, rng) -> dict:
    faces = [roll_die(rng, s) for s in spec["dice"]]
    score = max(faces)
    best = faces.index(score)
    dice = [Die(face=f, sides=s, role="kept" if i == best else "rolled").to_dict()
            for i, (s, f) in enumerate(zip(spec["dice"], faces))]
    return {
        "dice": dice,
        "value": score,
        "outcome": "scored",
        "explain": [f"Rolled {format_pool(spec['dice'])}; the highest face, {score}, is the Score."],
    }


def act(spec, result, action, rng):
    raise SpecError("action", "Jadeclaw allows no step after a roll")


def odds(spec, result=None, action=None) -> dict:
    from .dice import dist_to_json
    sizes = spec["dice"]
    top = max(sizes)
    dist = {}
    for v in range(1, top + 1):
        below = 1.0
        at_most = 1.0
        for s in sizes:
            below *= min(v - 1, s) / s
            at_most *= min(v, s) / s
        dist[v] = at_most - below
    return {"value": dist_to_json(dist), "outcome": {"scored": 1.0}, "exact": True}
