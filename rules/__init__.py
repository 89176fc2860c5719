"""The rules of five tabletop RPGs' dice, as pure Python.

The contract (DESIGN.md, "The rules contract"): a spec (plain JSON-able dict)
goes in, a result (plain JSON-able dict) comes out.

- ``roll(system, spec, rng=None)``: validate and roll.
- ``act(system, spec, result, action, rng=None)``: a step the rules allow
  after a roll; returns a new result that keeps every earlier stage.
- ``odds(system, spec, result=None, action=None)``: the distribution.
- ``replay(system, spec, stages)``: rebuild a result from its recorded draws
  (how a shared result is checked: its outcome is recomputed from its faces).

Every result records ``stages``: the roll and each action, with the draws
each took, in order, so ``replay`` gives back the same result; and
``allowed``: the actions ``act`` accepts now (``{"do": verb}``, with its
``side`` where the system's steps take one), ``[]`` once the turn is over.

The systems, in tab order (a game added by docs/adding-a-game.md adds its
name here too):

>>> from rules.dice import ScriptedRng
>>> SYSTEMS
('milhamah', 'open_tale', 'mirage', 'alkemy', 'jadeclaw')
"""

from __future__ import annotations

from typing import Any

from . import alkemy, jadeclaw, milhamah, mirage, open_tale
from .dice import RecordingRng, Rng, ScriptedRng, SpecError, system_rng
from .stages import MAX_STAGES, rebuild
from .system import System, check, check_action, check_result

__all__ = ["SYSTEMS", "OUTCOMES", "TITLES", "MODULES", "MAX_STAGES", "roll", "act", "odds", "replay",
           "advise", "default_spec", "normalize", "SpecError", "ScriptedRng", "System"]

#: The game systems in tab order. A sixth game is one more module here
#: (it declares NAME, TITLE, OUTCOMES, DEFAULT_SPEC, STEPS, normalize, roll,
#: act and odds: ``rules.system.System``; docs/adding-a-game.md).
MODULES: dict[str, System] = {m.NAME: check(m) for m in (milhamah, open_tale, mirage, alkemy, jadeclaw)}

#: System keys in tab order.
SYSTEMS = tuple(MODULES)

#: Each system's title, as its tab shows it.
TITLES = {name: m.TITLE for name, m in MODULES.items()}

#: Outcome names per system, worst to best (DESIGN.md).
OUTCOMES = {name: tuple(m.OUTCOMES) for name, m in MODULES.items()}

def _module(system: Any) -> System:
    if not isinstance(system, str) or system not in MODULES:
        raise SpecError("system", "must be one of " + ", ".join(SYSTEMS))
    return MODULES[system]


def normalize(system: str, spec: Any) -> dict:
    """The spec validated, every default filled in."""
    return _module(system).normalize(spec)


def default_spec(system: str) -> dict:
    """A valid spec each form opens with (normalized)."""
    mod = _module(system)
    return mod.normalize(dict(mod.DEFAULT_SPEC))


def roll(system: str, spec: Any, rng: Rng | None = None, *, advise: bool = True) -> dict:
    """Validate ``spec`` and roll it. ``rng`` is anything with
    ``randint(a, b)``; None means a cryptographic source. ``advise=False``
    leaves out best play's advice (see ``advise``): the dice and outcome
    only, fast; the page asks for the advice beside the page."""
    mod = _module(system)
    norm = mod.normalize(spec)
    rec = RecordingRng(rng if rng is not None else system_rng())
    result = mod.roll(norm, rec)
    result["system"] = system
    result["spec"] = norm
    result["stages"] = [{"do": "roll", "draws": rec.draws}]
    check_result(mod, result)
    if advise:
        _attach_advice(mod, norm, result)
    return result


def act(system: str, spec: Any, result: dict, action: Any, rng: Rng | None = None, *,
        advise: bool = True) -> dict:
    """A step the rules allow after a roll (DESIGN.md verbs). A verb the
    rules do not allow at that stage, or a key the verb does not take,
    raises ``SpecError``."""
    mod = _module(system)
    norm = mod.normalize(spec)
    check_action(action, mod.STEPS, mod.TITLE)
    if not isinstance(result, dict) or not isinstance(result.get("stages"), list):
        raise SpecError("result", "is not a result of this page")
    if len(result["stages"]) >= MAX_STAGES:
        raise SpecError("action", f"a roll may take at most {MAX_STAGES - 1} steps")
    rec = RecordingRng(rng if rng is not None else system_rng())
    new = mod.act(norm, result, dict(action), rec)
    new["system"] = system
    new["spec"] = norm
    new["stages"] = list(result["stages"]) + [{**action, "draws": rec.draws}]
    if len(new["stages"]) >= MAX_STAGES:
        new["allowed"] = []  # no step past the cap (above)
    check_result(mod, new)
    if advise:
        _attach_advice(mod, norm, new)
    return new


def advise(system: str, spec: Any, result: dict) -> dict:
    """Best play's advice for ``result`` as it lies (bounded work): a dict
    of the keys ``roll``/``act`` attach to a result, at least ``advice``
    (the action best play takes now, as ``act`` takes it, with its
    ``side`` when opposed; None when no step is open) and ``choices``
    (each allowed action, ``{"action": ..., "outcome": {name: p}, ...}``,
    priced when played best afterwards), and the system's older keys
    (``best_reroll``, ``best_prayer``). A system without decisions gives
    ``{"advice": None, "choices": []}``.

    >>> r = roll("jadeclaw", {"dice": "d8"}, ScriptedRng([5]), advise=False)
    >>> advise("jadeclaw", r["spec"], r)["advice"] is None
    True
    """
    mod = _module(system)
    norm = mod.normalize(spec)
    if not isinstance(result, dict) or not isinstance(result.get("stages"), list):
        raise SpecError("result", "is not a result of this page")
    fn = getattr(mod, "advise", None)
    return dict(fn(norm, result)) if fn is not None else {"advice": None, "choices": []}


def _attach_advice(mod: System, norm: dict, result: dict) -> None:
    fn = getattr(mod, "advise", None)
    if fn is not None:
        result.update(fn(norm, result))


def odds(system: str, spec: Any, result: dict | None = None, action: Any = None) -> dict:
    """The distribution of the roll, or of the next step given a result and
    an action: ``{"value": {v: p}, "outcome": {name: p}, "exact": bool, ...}``."""
    mod = _module(system)
    norm = mod.normalize(spec)
    if action is not None and not (isinstance(action, dict) and isinstance(action.get("do"), str)):
        raise SpecError("action", "must be an object with a 'do' verb")
    return mod.odds(norm, result, action)


def replay(system: str, spec: Any, stages: Any, *, advise: bool = True) -> dict:
    """Rebuild a result from its stages' recorded draws (``stages.rebuild``:
    the roll, then each step, through ``roll`` and ``act``). Every draw must
    be used and lie on its die, so a link cannot claim an outcome its dice
    don't give; at most ``MAX_STAGES`` stages.

    >>> r = roll("jadeclaw", {"dice": "d8"}, ScriptedRng([5]))
    >>> replay("jadeclaw", r["spec"], r["stages"])["value"] == r["value"]
    True
    """
    norm = normalize(system, spec)
    result = rebuild({"stages": stages}, lambda rng: roll(system, norm, rng, advise=False),
                     lambda before, action, rng: act(system, norm, before, action, rng, advise=False))
    if advise:
        _attach_advice(_module(system), norm, result)
    return result
