"""``rules.stages``: a result's state rebuilt from its recorded stages
(docs/CONTRACT.md), the one way a step after the roll reaches Mirage's and ALKEMY's
rules."""

from __future__ import annotations

import pytest

import rules
from rules import stages
from rules.dice import ScriptedRng, SpecError


def _start(rng):
    return [rng.randint(1, 6)]


def _step(state, action, rng):
    if action.get("do") != "again":
        raise SpecError("action", "only 'again'")
    return state + [rng.randint(1, 6)]


def test_the_stage_cap_is_the_contracts():
    assert stages.MAX_STAGES == rules.MAX_STAGES


def test_rebuild_replays_each_stage_in_order():
    result = {"stages": [{"do": "roll", "draws": [3]}, {"do": "again", "draws": [5]},
                         {"do": "again", "draws": [1]}]}
    assert stages.rebuild(result, _start, _step) == [3, 5, 1]


@pytest.mark.parametrize("result", [
    None, [], {"stages": []}, {"stages": "roll"},
    {"stages": [{"do": "roll", "draws": [3]}] + [{"do": "again", "draws": [1]}] * stages.MAX_STAGES},
    {"stages": [{"do": "again", "draws": [3]}]},
    {"stages": [{"do": "roll", "draws": [3]}, {"do": "roll", "draws": [3]}]},
    {"stages": [{"do": "roll", "draws": 3}]},
    {"stages": [{"do": "roll", "draws": [7]}]},
    {"stages": [{"do": "roll", "draws": []}]},
    {"stages": [{"do": "roll", "draws": [3, 3]}]},
    {"stages": [{"do": "roll", "draws": [3]}, {"do": "other", "draws": [3]}]},
    {"stages": [{"do": "roll", "draws": [1] * (stages.MAX_DRAWS + 1)}]},
    {"stages": ["roll"]},
], ids=["none", "list", "no-stages", "stages-text", "too-many", "no-roll-first", "two-rolls",
        "draws-not-list", "draw-off-die", "draw-missing", "draw-extra", "forged-step", "too-many-draws",
        "stage-not-dict"])
def test_rebuild_refuses_what_the_rules_did_not_record(result):
    with pytest.raises(SpecError):
        stages.rebuild(result, _start, _step)


@pytest.mark.parametrize("system, spec, action", [
    ("mirage", {"attribute": 8, "skill": 6}, {"do": "pray", "dice": [0]}),
    ("alkemy", {"bonus": 1}, {"do": "keep", "dice": [0, 2]}),
])
def test_a_step_reads_the_stages_not_the_copies(system, spec, action):
    """A result whose every copy was swapped for another roll's still steps
    as its own stages say (the copies never reach the rules)."""
    r = rules.roll(system, spec, ScriptedRng([2, 3, 4]))
    other = rules.roll(system, spec, ScriptedRng([5, 5, 5]))
    swapped = {**other, "stages": r["stages"]}
    assert rules.act(system, spec, swapped, action, ScriptedRng([4])) == \
        rules.act(system, spec, r, action, ScriptedRng([4]))
