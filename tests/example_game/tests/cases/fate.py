"""Fate dice's test cases (see ``cases``)."""

from __future__ import annotations

from rules.fate import model as fate

WORST = [{"skill": fate.TOP, "difficulty": 0}, {"skill": 0, "difficulty": fate.TOP}]

SPEC_FIELDS = list(fate.KEYS)

HOSTILE_ACTION = ({}, "invoke")

STORE_SPECS = [{"skill": 3, "difficulty": 4}, {"skill": 0, "difficulty": 2}]


def store_step(result: dict):
    """Invoke while it is open."""
    return {"do": "invoke"} if result["allowed"] else None


#: Specs whose exact odds are checked against 3000 seeded rolls
#: (tests/rules/test_odds_match_rolls.py).
ODDS_SPECS = [{"skill": 2, "difficulty": 2}, {"skill": 6, "difficulty": 1}, {"skill": 0, "difficulty": 5}]

#: Results drawn on the tray, their dice forced (tests/ui/test_draw_tray.py).
TRAY_ROLLS = [({"skill": 2, "difficulty": 3}, [6, 5, 3, 1])]

#: The form's fields as a player edits them (tests/ui/test_formstate.py).
EDITED_FORM = {"skill": ["5"], "difficulty": ["4"]}

#: The ladder written out again: a shift below 0 fails, 0 ties, 1 or 2
#: succeeds, 3 or more succeeds with style.
LADDER = {-1: "fail", 0: "tie", 1: "succeed", 2: "succeed", 3: "succeed_with_style"}


def strategies(h):
    """The property suite's strategies and checks for this game
    (tests/rules/test_properties.py builds ``h``)."""
    st = h.st

    def counts(result: dict, spec: dict, v: int) -> None:
        assert len(result["dice"]) == 4
        assert v == spec["skill"] + sum({"−": -1, "0": 0, "+": 1}[d["face"]] for d in result["dice"])
        assert result["outcome"] == LADDER[max(-1, min(3, v - spec["difficulty"]))]
        assert (result["allowed"] == []) == (len(result["stages"]) == 2)

    return {"specs": h.spec_of({"skill": st.integers(0, 8), "difficulty": st.integers(0, 8)}),
            "actions": st.fixed_dictionaries({"do": st.just("invoke")}, optional={"side": h.side}),
            "with_a_choice": st.just({}),
            "fitting": lambda result, data: {"do": "invoke"},
            "counts": counts, "odds_value": lambda r: r["value"]}


def _layout_step(page, h):
    """Invoke: all four dice rerolled."""
    page.click('#tray-fate [data-act="invoke"]')
    page.wait_for_selector("#tray-fate svg.role-rerolled", timeout=h.slow)


LAYOUT_STEP = ({"skill": "1", "difficulty": "5"}, _layout_step)
