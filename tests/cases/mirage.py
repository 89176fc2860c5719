"""Mirage's test cases (see ``cases``)."""

from __future__ import annotations

from rules.mirage import model as mirage

WORST = [
    {"attribute": 12, "skill": 12, "gear": [12] * 6, "modifier": 12, "helpers": 3,
     "difficulty": "trivial",
     "opponent": {"attribute": 12, "skill": 12, "gear": [12] * 6, "modifier": 12, "helpers": 3}},
    {"attribute": 6, "modifier": -12, "difficulty": "formidable",
     "conditions": {"physical": 3, "mental": 3}, "gear": [6] * 6},
]

SPEC_FIELDS = list(mirage.SPEC_KEYS)

HOSTILE_ACTION = ({"attribute": 8, "skill": 6}, "pray")

STORE_SPECS = [{"attribute": 10, "attribute_name": "wits", "skill": 8, "gear": [6], "difficulty": "average"}]


def store_step(result: dict):
    """A prayer on up to two dice that are not 1, where the rules offer one."""
    if not result.get("can_pray"):
        return None
    ok = [i for i, d in enumerate(result["dice"]) if d["face"] != 1][:2]
    return {"do": "pray", "dice": ok, "bonus": 1} if ok else None


#: Specs whose exact odds are checked against 3000 seeded rolls
#: (tests/rules/test_odds_match_rolls.py).
ODDS_SPECS = [
    {"attribute": 10, "skill": 8, "gear": [6]},
    {"attribute": 8, "skill": 6, "opponent": {"attribute": 10, "skill": 6}},
    {"attribute": 6, "modifier": -3, "helpers": 1},
]


def rolled_value(result: dict) -> int:
    """What the odds' value is of: the net successes when opposed."""
    if result["spec"]["opponent"] is not None:
        return result["successes"] - result["opponent"]["successes"]
    return result["value"]


#: Results drawn on the tray, their dice forced (tests/ui/test_draw_tray.py).
TRAY_ROLLS = [({"attribute": 8, "skill": 6, "prayer_bonus": 1, "opponent": {"attribute": 8}}, [7, 1, 6])]

#: The form's fields as a player edits them (tests/ui/test_formstate.py).
EDITED_FORM = {"conditions": ["exhausted", "angry"], "skill": ["10"], "gear": ["d8"]}


def strategies(h):
    """The property suite's strategies and checks for this game
    (tests/rules/test_properties.py builds ``h``: hypothesis's ``st`` and
    the suite's helpers)."""
    st, spec_of, names, some, sizes, json_values = h.st, h.spec_of, h.names, h.some, h.sizes, h.json_values
    _die_list, _side, check_die = h.die_list, h.side, h.check_die

    _MIRAGE_SIDE = {
        "attribute": st.sampled_from([6, 8, 10, 12, "d8"]),
        "attribute_name": names(mirage.ATTRIBUTES),
        "skill": st.sampled_from([0, 6, 8, 10, 12, "d10"]),
        "skill_name": names(mirage.SKILLS),
        "gear": some(st.sampled_from([6, 8, 10, 12]), 6),
        "difficulty": st.one_of(names(mirage.DIFFICULTY), st.integers(-3, 3)),
        "helpers": st.integers(0, 3),
        "conditions": st.one_of(
            st.fixed_dictionaries({}, optional={"physical": st.integers(0, 4),
                                                "mental": st.integers(0, 4),
                                                "broken": st.booleans()}),
            st.lists(st.sampled_from([n for ns in mirage.CONDITION_NAMES.values() for n in ns]),
                     max_size=4, unique=True)),
        "modifier": st.integers(-12, 12),
    }
    MIRAGE_SPECS = spec_of({**_MIRAGE_SIDE, "passive": st.booleans(),
                            "opponent": spec_of(_MIRAGE_SIDE)})

    def _fit_mirage(result: dict, data):
        if result["can_tiebreak"] and data.draw(st.booleans(), label="tiebreak"):
            return {"do": "tiebreak"}
        free = [i for i, d in enumerate(result["dice"]) if d["face"] != 1]
        if not free:
            return None
        return {"do": "pray", "bonus": data.draw(st.integers(0, 2), label="bonus"),
                "dice": data.draw(st.lists(st.sampled_from(free), min_size=1, unique=True),
                                  label="dice")}

    def _counts_mirage(result: dict, spec: dict, v: int) -> None:
        own = sum(mirage.successes_on(d["face"]) for d in result["dice"])
        assert result["successes"] == own
        assert all(d["successes"] == mirage.successes_on(d["face"]) for d in result["dice"])
        if spec["opponent"] is not None:
            theirs = sum(mirage.successes_on(d["face"]) for d in result["opponent"]["dice"])
            assert result["opponent"]["successes"] == theirs
            assert v == own - theirs and (result["outcome"] == "tie") == (v == 0)
        for t in result["tied_rounds"]:  # each roll a tie-break replaced was a tie
            assert sum(mirage.successes_on(d["face"]) for d in t["dice"]) == sum(
                mirage.successes_on(d["face"]) for d in t["opponent"]["dice"])
        assert len(result["tied_rounds"]) == result["tiebreaks"] <= mirage.MAX_TIEBREAKS

    return {
        "specs": MIRAGE_SPECS,
        # mostly valid actions (the game's verbs)
        "actions": st.one_of(
            st.fixed_dictionaries({"do": st.just("pray"), "dice": _die_list},
                                  optional={"bonus": st.integers(-1, 3), "side": _side}),
            st.fixed_dictionaries({"do": st.just("tiebreak")}, optional={"side": _side})),
        # spec keys that leave the roller a step to choose, mixed into some specs
        "with_a_choice": st.just({}),
        # an action chosen to fit a result, so that real steps happen; None: no step
        "fitting": _fit_mirage,
        # the headline number counted again from the dice
        "counts": _counts_mirage,
        # what the odds' "value" is of, read off a result; None: of more than this roll
        "odds_value": lambda r: (r["successes"] - r["opponent"]["successes"]
                                 if r["spec"]["opponent"] is not None else r["value"]),
    }


#: A prayer among best play's choices (the main button or beside it).
PRAY = '#tray-mirage .choice-btn:has-text("Pray with")'


def _layout_step(page, h):
    """Pray, with the prayer best play lists, wherever it stands on screen."""
    page.click(PRAY, timeout=h.slow)
    page.wait_for_selector("#tray-mirage svg.role-rerolled", timeout=h.slow)


LAYOUT_STEP = ({}, _layout_step)
#: d10:3 and d8:4, a failure: best play prays with both.
LAYOUT_FACES = [3, 4]


#: Rolls from the party (docs/PARTY.md): the text names "Shadowcraft
#: versus Observation to move undetected past a vigilant guard" and no
#: numbers: a scout's Agility d10 and Shadowcraft d8 against a guard's Wits
#: d8 and Observation d8, one success each, a tie ("Opposed Rolls").
#: tests/rules/test_sheets.py, tests/browser/test_party_flow.py.
PARTY = [{"sheet": "scout", "check": "Shadowcraft", "against": ("guard", "Observation"),
          "form": {"attribute": "d10", "skill": "d8", "skill_name": "shadowcraft",
                   "opponent": {"attribute": "d8", "skill": "d8", "skill_name": "observation"}},
          "draws": [6, 2, 7, 5], "outcome": "tie"}]
