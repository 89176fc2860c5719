"""A result's state, rebuilt from its recorded stages: the one replay.

Every result records ``stages``: the roll and each step after it, with the
draws each took (DESIGN.md, "The rules contract"). A step after the roll
(``act``) and the odds of one do not read the dice, totals or flags a result
carries: those are copies a link or stored history could alter. They replay
the stages through the system's own functions instead, each stage's draws
fed through a ``ScriptedRng``, so the only way into the rules is the way a
roll takes. ``rules.replay`` rebuilds a whole result the same way, through
``rules.roll`` and ``rules.act``; every system's steps (Milhamah's turn,
Mirage's and ALKEMY's states) come through ``rebuild`` too, so a recorded
history is checked in one place, with one wording.

>>> from rules.dice import ScriptedRng
>>> start = lambda rng: [rng.randint(1, 6)]
>>> step = lambda state, action, rng: state + [rng.randint(1, 6)]
>>> rebuild({"stages": [{"do": "roll", "draws": [3]}, {"do": "again", "draws": [5]}]}, start, step)
[3, 5]
>>> rebuild({"stages": [{"do": "roll", "draws": [3, 4]}]}, start, step)
Traceback (most recent call last):
...
rules.dice.SpecError: stages: step 1 has more draws than its dice use
"""

from __future__ import annotations

from typing import Any, Callable

from .dice import ScriptedRng, SpecError

__all__ = ["MAX_STAGES", "MAX_DRAWS", "rebuild"]

#: A result carries at most this many stages (``rules.MAX_STAGES``: ``act``
#: refuses a step past it, and ``rebuild`` a longer history).
MAX_STAGES = 24
#: A stage records at most this many draws.
MAX_DRAWS = 10_000


def rebuild(result: Any, start: Callable, step: Callable) -> Any:
    """The state after every stage of ``result``: ``start(rng)`` for the
    roll, then ``step(state, action, rng)`` for each later stage. Every
    draw must lie on its die and be used; anything else is a SpecError."""
    stages = result.get("stages") if isinstance(result, dict) else None
    if not isinstance(stages, list) or not 1 <= len(stages) <= MAX_STAGES:
        raise SpecError("stages", f"must be a list of 1 to {MAX_STAGES} recorded steps")
    state = None
    for i, stage in enumerate(stages):
        state = _replay_stage(i, stage, state, start, step)
    return state


def _action(i: int, stage: Any) -> dict:
    """A recorded stage's action, checked: a dict of draws, the roll first
    and only first."""
    _check_draws(i, stage)
    action = {k: v for k, v in stage.items() if k != "draws"}
    if (i == 0) != (action.get("do") == "roll"):
        raise SpecError("stages", "the first step, and only the first, must be the roll")
    return action


def _check_draws(i: int, stage: Any) -> None:
    """A recorded stage is a dict with its list of draws, bounded."""
    if not isinstance(stage, dict) or not isinstance(stage.get("draws"), list):
        raise SpecError("stages", f"step {i + 1} is not a recorded step")
    if len(stage["draws"]) > MAX_DRAWS:
        raise SpecError("stages", f"step {i + 1} has too many draws")


def _replay_stage(i: int, stage: Any, state: Any, start: Callable, step: Callable) -> Any:
    action = _action(i, stage)
    rng = ScriptedRng(stage["draws"])
    state = start(rng) if i == 0 else step(state, action, rng)
    if not rng.exhausted:
        raise SpecError("stages", f"step {i + 1} has more draws than its dice use")
    return state
