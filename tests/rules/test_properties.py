"""Every spec validated (docs/TRUST.md): property tests over every game
in the registry (``rules.SYSTEMS``). Any JSON value given as a spec either rolls to a result that meets
the invariants, or raises ``rules.SpecError``; nothing else escapes.

The invariants (DESIGN.md, "The rules contract"): every face lies on its die
(``1 <= face <= sides`` or ``face in faces``), every role is a word, the
outcome is one of ``rules.OUTCOMES[system]``, the headline value agrees with
the dice (counted again here, per system), the same seed gives the same
result, the result survives a JSON round trip, and ``rules.replay`` rebuilds
it exactly from its recorded draws. ``rules.odds`` gives probabilities in
[0, 1] that sum to 1 (the ``tail`` included), and an exact distribution
gives the rolled value and outcome a chance above 0. ``rules.act`` with any
JSON action gives a new result meeting the same invariants, or SpecError.

Two kinds of input: any JSON value at all (mostly refused), and specs built
from each system's spec keys with mostly valid values and some junk, so
that real rolls happen. What is particular to a game (its specs, actions,
the action fitting a result, its headline number counted again) is in its
own cases module, ``tests/cases/<game>.py`` (``strategies``). Runs on CPython only (hypothesis is not in
Pyodide; tests/conftest.py skips this file there). ``derandomize=True``: the
same examples on every run, so CI never flakes.
"""

from __future__ import annotations

import json
import math
import random
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import cases
import rules
from rules import dice
from rules.dice import SpecError

SETTINGS = dict(deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                       HealthCheck.data_too_large])

# --------------------------------------------------------------------------
# Any JSON value.

json_scalars = (st.none() | st.booleans()
                | st.integers(min_value=-(10 ** 30), max_value=10 ** 30)
                | st.sampled_from([0, 1, -1, 2, 4, 6, 8, 10, 12, 13, 99, 10 ** 9, 2 ** 63])
                | st.floats(allow_nan=False, allow_infinity=False)
                | st.text(max_size=12)
                | st.sampled_from(["", "d8", "2d12 & d4", "red", "white", "אשר", "advantage",
                                   "<script>alert(1)</script>", "1e309", "NaN", "0x10"]))
json_values = st.recursive(
    json_scalars,
    lambda children: (st.lists(children, max_size=5)
                      | st.dictionaries(st.text(max_size=8), children, max_size=5)),
    max_leaves=12)


#: Values just off the edge of most fields: out of range by one, huge,
#: numbers as text, whole and fractional floats, the wrong type.
edge_values = st.sampled_from([-1, 0, 1, 5, 13, 25, 61, 101, 201, 10 ** 12, -(10 ** 12), "3", " 7 ",
                               "-2", 3.0, 3.5, 1e300, True, False, None, "", [], {}, "d7", "2d99"])


def junk_or(strategy):
    """Mostly the given (valid) values, sometimes a value off the edge or
    any JSON value."""
    return st.one_of(strategy, strategy, strategy, edge_values, json_values)


def spec_of(keys: dict):
    """A dict holding any subset of ``keys`` with valid values (most of the
    time), or with one key given a value off the edge or any JSON value, or
    with an unknown key."""
    valid = st.fixed_dictionaries({}, optional=dict(keys))
    one_bad = st.tuples(valid, st.sampled_from(sorted(keys)), st.one_of(edge_values, json_values)
                        ).map(lambda t: {**t[0], t[1]: t[2]})
    unknown = st.tuples(valid, st.text(max_size=8), json_values).map(lambda t: {**t[0], t[1]: t[2]})
    return st.sampled_from([0] * 6 + [1] * 3 + [2]).flatmap(lambda k: (valid, one_bad, unknown)[k])


def names(choices):
    """A name in snake_case, or as a player would type it."""
    return st.sampled_from(list(choices)).flatmap(
        lambda n: st.sampled_from([n, n.upper(), n.replace("_", " ").title(), f"  {n}  "]))


sizes = st.sampled_from(list(dice.SIZES))
small = st.integers(min_value=-2, max_value=14)


def some(strategy, hi):
    return st.lists(strategy, max_size=hi)


_die_list = st.lists(st.integers(-1, 13), max_size=5)
_named_side = st.sampled_from([None, "initiator", "opponent", "nobody"])
_side = st.one_of(_named_side, json_values)


# --------------------------------------------------------------------------
# The invariants.

def all_dice(result: dict) -> list:
    """The roller's dice, the opponent's, and every die kept elsewhere in the
    result (earlier rolls, tied rounds, the dice before a prayer)."""
    out = list(result["dice"])
    opp = result.get("opponent")
    if isinstance(opp, list):
        out += opp
    elif isinstance(opp, dict):
        out += opp.get("dice") or []
    for r in result.get("rolls") or []:
        out += r["dice"]
    for r in result.get("tied_rounds") or []:
        out += r["dice"] + r["opponent"]["dice"]
    if result.get("before_prayer"):
        out += result["before_prayer"]["dice"]
    if result.get("hit"):
        out.append(result["hit"]["die"])
    return out


def check_die(d: dict) -> None:
    assert isinstance(d, dict) and isinstance(d.get("role"), str) and d["role"], d
    assert d["role"] in dice.ROLES, d["role"]
    if "sides" in d:
        assert d["sides"] in dice.SIZES, d
        assert isinstance(d["face"], int) and not isinstance(d["face"], bool)
        assert 1 <= d["face"] <= d["sides"], d
        assert all(1 <= h <= d["sides"] for h in d["history"]), d
    else:
        assert isinstance(d.get("faces"), list) and d["faces"], d
        assert d["face"] in d["faces"], d
        assert all(h in d["faces"] for h in d["history"]), d
    assert isinstance(d["history"], list) and d["history"], d


def check_counts(system: str, result: dict) -> None:
    """The headline number counted again from the dice."""
    v = result["value"]
    assert isinstance(v, int) and not isinstance(v, bool)
    PER_GAME[system]["counts"](result, result["spec"], v)


def check_result(system: str, result: dict) -> None:
    assert result["system"] == system
    assert result["outcome"] in rules.OUTCOMES[system], result["outcome"]
    assert isinstance(result["explain"], list) and all(isinstance(x, str) for x in result["explain"])
    assert isinstance(result["dice"], list)
    for d in all_dice(result):
        check_die(d)
    check_counts(system, result)
    assert json.loads(json.dumps(result)) == result
    assert rules.replay(system, result["spec"], result["stages"]) == result
    # the normalized spec is a fixed point: normalizing it again changes nothing
    assert rules.normalize(system, result["spec"]) == result["spec"]


#: Every die is one ``randint(1, n)`` (DESIGN.md): n a die size, 12 for a
#: Milhamah letter die, 22 for its hit location letter, ALKEMY's face counts.
DIE_DRAWS = set(dice.SIZES).union(*(getattr(cases.of(system), "DRAWS", ()) for system in rules.SYSTEMS))


class StrictRng:
    """A seeded source offering nothing but ``randint``, and only as
    ``randint(1, n)`` for a die the systems have: a roll that reached for
    ``random()``, ``choice()`` or an odd range would fail here."""

    def __init__(self, seed: int):
        self.inner = random.Random(seed)

    def randint(self, a: int, b: int) -> int:
        assert a == 1 and b in DIE_DRAWS, (a, b)
        return self.inner.randint(a, b)


def check_refusal(e: SpecError) -> None:
    """A refusal names its field (so the page can show it beside it) and is
    short, whatever the value was."""
    assert isinstance(e.field, str) and e.field, str(e)
    assert str(e) and len(str(e)) < 500


def roll_or_refuse(system: str, spec, seed: int):
    """The roll's result, or None when the spec is refused with SpecError."""
    try:
        result = rules.roll(system, spec, StrictRng(seed))
    except SpecError as e:
        check_refusal(e)
        event("refused")
        return None
    event("rolled")
    check_result(system, result)
    assert rules.roll(system, spec, StrictRng(seed)) == result
    return result


def check_odds(system: str, spec, result: dict | None = None, action=None) -> dict | None:
    try:
        o = rules.odds(system, spec, result, action)
    except SpecError:
        return None
    assert isinstance(o["exact"], bool)
    outcome = o["outcome"]
    assert outcome and set(outcome) <= set(rules.OUTCOMES[system]), outcome
    assert all(0.0 <= p <= 1.0 for p in outcome.values()), outcome
    assert math.isclose(math.fsum(outcome.values()), 1.0, abs_tol=1e-9), outcome
    value = o["value"]
    assert all(0.0 <= p <= 1.0 for p in value.values()), value
    tail = o.get("tail", {"p": 0.0})["p"] if isinstance(o.get("tail"), dict) else o.get("tail", 0.0)
    assert 0.0 <= tail <= 1.0
    assert math.isclose(math.fsum(value.values()) + tail, 1.0, abs_tol=1e-9)
    if not o["exact"]:
        assert o.get("samples") or o.get("sampled"), "a sampled answer states its sample size"
    json.dumps(o)
    return o


def check_odds_cover(system: str, o: dict, result: dict) -> None:
    """An exact distribution gives what was rolled a chance above 0."""
    value_of = PER_GAME[system]["odds_value"]
    if not o["exact"] or value_of is None:
        return
    assert o["outcome"].get(result["outcome"], 0.0) > 0, (o["outcome"], result["outcome"])
    v = value_of(result)
    if "tail" in o and v > o.get("bound", math.inf):
        assert o["tail"]["p"] > 0
        return
    assert o["value"].get(v, 0.0) > 0, (o["value"], v)


# --------------------------------------------------------------------------
# The properties.

#: Each game's strategies and checks, from its own cases (``cases/<game>.py``,
#: ``strategies``): the specs built from its keys, mostly valid; its
#: actions; spec keys that leave a step to choose; an action fitting a
#: result; its headline number counted again; what its odds' value is of.
PER_GAME = {system: cases.of(system).strategies(SimpleNamespace(
    st=st, spec_of=spec_of, names=names, some=some, sizes=sizes, json_values=json_values,
    die_list=_die_list, side=_side, check_die=check_die)) for system in rules.SYSTEMS}

SYSTEM_IDS = list(rules.SYSTEMS)


@pytest.mark.parametrize("system", SYSTEM_IDS)
@settings(max_examples=150, **SETTINGS)
@given(spec=json_values, seed=st.integers(0, 2 ** 32))
def test_any_json_spec_rolls_or_is_refused(system, spec, seed):
    """Any JSON value at all as a spec: a result meeting the invariants, or
    SpecError (never TypeError, KeyError, RecursionError...)."""
    roll_or_refuse(system, spec, seed)


@pytest.mark.parametrize("system", SYSTEM_IDS)
@settings(max_examples=250, **SETTINGS)
@given(data=st.data(), seed=st.integers(0, 2 ** 32))
def test_built_specs_roll_to_valid_results(system, data, seed):
    """Specs built from the system's keys, mostly valid: real rolls meeting
    every invariant, same seed → same result, JSON round trip, replay."""
    spec = data.draw(PER_GAME[system]["specs"], label="spec")
    roll_or_refuse(system, spec, seed)


@pytest.mark.parametrize("system", SYSTEM_IDS)
@settings(max_examples=100, **SETTINGS)
@given(data=st.data(), seed=st.integers(0, 2 ** 32))
def test_odds_are_distributions(system, data, seed):
    """``rules.odds`` on built specs: probabilities in [0, 1] summing to 1
    (tail included), outcome names from OUTCOMES; an exact answer gives the
    rolled value and outcome a chance above 0."""
    spec = data.draw(PER_GAME[system]["specs"], label="spec")
    o = check_odds(system, spec)
    result = roll_or_refuse(system, spec, seed)
    assert (o is None) == (result is None), "odds and roll agree on validity"
    if o is not None and result is not None:
        check_odds_cover(system, o, result)


@pytest.mark.parametrize("system", SYSTEM_IDS)
@settings(max_examples=150, **SETTINGS)
@given(data=st.data(), seed=st.integers(0, 2 ** 32))
def test_any_action_acts_or_is_refused(system, data, seed):
    """``rules.act`` on a real result with any JSON action (or a mostly
    valid one): a new result meeting the invariants, keeping the earlier
    stages, or SpecError. The odds of that action likewise."""
    spec = data.draw(PER_GAME[system]["specs"], label="spec")
    if isinstance(spec, dict) and data.draw(st.booleans()):
        spec = {**spec, **data.draw(PER_GAME[system]["with_a_choice"], label="choice")}
    result = roll_or_refuse(system, spec, seed)
    if result is None:
        return
    for _ in range(data.draw(st.integers(1, 4), label="steps")):
        action = data.draw(st.one_of(PER_GAME[system]["actions"], json_values), label="action")
        if data.draw(st.booleans(), label="fitting"):
            action = PER_GAME[system]["fitting"](result, data) or action
        check_odds(system, result["spec"], result, action)
        try:
            new = rules.act(system, result["spec"], result, action, StrictRng(seed))
        except SpecError as e:
            check_refusal(e)
            event("action refused")
            continue
        event("acted")
        check_result(system, new)
        assert new["stages"][:len(result["stages"])] == result["stages"]
        # the page keeps results as JSON (history, links): the same step from
        # the stored copy gives the same result
        stored = json.loads(json.dumps(result))
        assert rules.act(system, result["spec"], stored, action, StrictRng(seed)) == new
        result = new


@pytest.mark.parametrize("system", SYSTEM_IDS)
@settings(max_examples=100, **SETTINGS)
@given(data=st.data(), seed=st.integers(0, 2 ** 32))
def test_hostile_results_and_stages_are_refused(system, data, seed):
    """A result or stages altered by hand (as a hostile link could) never
    crash ``act``, ``odds`` or ``replay``: a result or SpecError."""
    spec = data.draw(PER_GAME[system]["specs"], label="spec")
    result = roll_or_refuse(system, spec, seed)
    if result is None:
        return
    junk = data.draw(json_values, label="junk")
    keys = sorted(result)
    where = data.draw(st.sampled_from(["result", "draws"] + keys), label="where")
    bad = json.loads(json.dumps(result))
    if where == "result":
        bad = junk
    elif where == "draws":
        bad["stages"][0]["draws"] = junk
    else:
        bad[where] = junk
    action = data.draw(PER_GAME[system]["actions"], label="action")
    check_odds(system, result["spec"], bad, action)
    for call in (lambda: rules.act(system, result["spec"], bad, action, random.Random(seed)),
                 lambda: rules.replay(system, result["spec"],
                                      bad.get("stages") if isinstance(bad, dict) else bad)):
        try:
            out = call()
        except SpecError:
            continue
        # What a step makes of a hand-altered result is not checked against
        # its stages here (the page replays a link's stages before acting);
        # it must still be a well-formed result.
        assert isinstance(out, dict)
        assert out["outcome"] in rules.OUTCOMES[system]
        json.dumps(out)
        if where not in ("stages", "draws"):
            for d in all_dice(out):
                check_die(d)


# --------------------------------------------------------------------------
# Regressions: found by these properties in Milhamah (a side that is not a
# name, a log that is not a list: TypeError), fixed in rules/milhamah.py.

def _milhamah_result():
    return rules.roll("milhamah", {"opponent": {"shoresh": "שלם"}}, random.Random(1))


@pytest.mark.parametrize("call", ["act", "odds"])
def test_milhamah_side_that_is_not_a_name_is_refused(call):
    r = _milhamah_result()
    action = {"do": "reroll", "dice": [0], "side": []}
    with pytest.raises(SpecError):
        if call == "act":
            rules.act("milhamah", r["spec"], r, action, random.Random(1))
        else:
            rules.odds("milhamah", r["spec"], r, action)


def test_milhamah_result_log_that_is_not_a_list_is_refused_or_ignored():
    """A result's state is rebuilt from its stages: a junk "log"
    or "track" beside them is ignored, the step comes out as from the
    clean result, and results no longer carry either."""
    r = _milhamah_result()
    action = {"do": "stand"}
    want = rules.act("milhamah", r["spec"], r, action, random.Random(1))
    for junk in ({**r, "log": True}, {**r, "track": {"sides": []}}):
        assert rules.act("milhamah", r["spec"], junk, action, random.Random(1)) == want
    assert "log" not in want and "track" not in want


@pytest.mark.parametrize("system", SYSTEM_IDS)
def test_an_empty_setting_name_is_refused_naming_the_spec(system):
    """Regression (found by the field check above): an unknown setting
    named "" was refused with an empty field, which the page could not
    place; it names the spec as a whole."""
    with pytest.raises(SpecError) as e:
        rules.roll(system, {"": 1})
    assert e.value.field == "spec"
