"""ALKEMY's test cases (see ``cases``)."""

from __future__ import annotations

from rules.alkemy import model as alkemy

#: Dice other than the sizes a draw may be: each face set's count.
DRAWS = {len(alkemy.FACE_SETS[s][c]) for s in alkemy.FACE_SETS for c in alkemy.HEALTH}

WORST = [
    {"characteristic": 30, "bonus": 10, "max_rerolls": 100,
     "opponent": {"characteristic": 30, "bonus": 10}},
    {"characteristic": 0, "malus": 10, "health": "red", "faces": "by_health", "max_rerolls": 100,
     "opponent": {"characteristic": 0, "malus": 10, "health": "red"}},
    {"characteristic": 30, "bonus": 10, "malus": 10, "difficulty": 99},
]

SPEC_FIELDS = list(alkemy.SPEC_KEYS)

HOSTILE_ACTION = ({"bonus": 2}, "keep")

STORE_SPECS = [{"characteristic": 5, "bonus": 2, "difficulty": 12},
               {"characteristic": 5, "opponent": {"characteristic": 5}}]


def store_step(result: dict):
    """Keep the first two dice, where the rules offer a choice."""
    return {"do": "keep", "dice": [0, 1]} if result.get("choice") else None


#: Specs whose exact odds are checked against 3000 seeded rolls
#: (tests/rules/test_odds_match_rolls.py).
ODDS_SPECS = [
    {"characteristic": 8, "difficulty": 15, "bonus": 1},
    {"characteristic": 4, "malus": 2, "difficulty": 9, "health": "red", "faces": "by_health"},
    {"characteristic": 5, "opponent": {"characteristic": 5, "bonus": 1}, "max_rerolls": 3},
]


def rolled_value(result: dict) -> int:
    """What the odds' value is of: the first round's total (a tie between
    equal characteristics rerolls, and the odds' values are of one round)."""
    return result["tied_rounds"][0]["value"] if result.get("tied_rounds") else result["value"]


#: Results drawn on the tray, their dice forced (tests/ui/test_draw_tray.py).
TRAY_ROLLS = [({"characteristic": 3, "bonus": 1, "difficulty": 15}, [2, 5, 4])]

#: The form's fields as a player edits them (tests/ui/test_formstate.py).
EDITED_FORM = {"mode": ["opposed"], "characteristic": ["11"], "opp_characteristic": ["9"]}


def strategies(h):
    """The property suite's strategies and checks for this game
    (tests/rules/test_properties.py builds ``h``: hypothesis's ``st`` and
    the suite's helpers)."""
    st, spec_of, names, some, sizes, json_values = h.st, h.spec_of, h.names, h.some, h.sizes, h.json_values
    _die_list, _side, check_die = h.die_list, h.side, h.check_die

    _ALKEMY_SIDE = {
        "characteristic": st.integers(0, 30),
        "bonus": st.integers(0, 10),
        "malus": st.integers(0, 10),
        "health": names(alkemy.HEALTH),
    }
    _ALKEMY_KEYS = {
        **_ALKEMY_SIDE,
        "difficulty": st.integers(0, 99),
        "opponent": spec_of(_ALKEMY_SIDE),
        "faces": names(alkemy.FACE_SETS),
        "max_rerolls": st.integers(0, 100),
    }
    # a difficulty or an opponent, rarely both (refused)
    ALKEMY_SPECS = st.one_of(spec_of({k: v for k, v in _ALKEMY_KEYS.items() if k != "opponent"}),
                             spec_of({k: v for k, v in _ALKEMY_KEYS.items() if k != "difficulty"}),
                             spec_of(_ALKEMY_KEYS))

    def _fit_alkemy(result: dict, data):
        n = len(result["dice"])
        return {"do": "keep", "dice": data.draw(st.lists(st.integers(0, n - 1), min_size=2,
                                                         max_size=2, unique=True), label="dice")}

    def _counts_alkemy(result: dict, spec: dict, v: int) -> None:
        kept = [d["face"] for d in result["dice"] if d["role"] in ("kept", "rolled")]
        assert len(kept) == alkemy.KEPT
        assert v == sum(kept) + spec["characteristic"]
        if spec["opponent"] is None:
            assert result["outcome"] == ("success" if v >= spec["difficulty"] else "failure")
        else:
            # still tied at the reroll cap: its own outcome, the GM decides
            assert (result["outcome"] == "tie") == result["capped"]
            if result["capped"]:
                assert result["rerolls"] == spec["max_rerolls"] and result["winner"] is None

    return {
        "specs": ALKEMY_SPECS,
        # mostly valid actions (the game's verbs)
        "actions": st.fixed_dictionaries({"do": st.just("keep"),
                                          "dice": st.lists(st.integers(-1, 4), max_size=3)},
                                         optional={"side": _side}),
        # spec keys that leave the roller a step to choose, mixed into some specs
        "with_a_choice": st.fixed_dictionaries({"bonus": st.integers(1, 4), "malus": st.just(0)}),
        # an action chosen to fit a result, so that real steps happen; None: no step
        "fitting": _fit_alkemy,
        # the headline number counted again from the dice
        "counts": _counts_alkemy,
        # what the odds' "value" is of, read off a result; None: of more than this roll
        "odds_value": lambda r: r["value"],
    }


def _layout_step(page, h):
    """Keep the dropped die with a kept one (the pair already kept would
    change nothing)."""
    dice = page.locator("#tray-alkemy .alk-hand-initiator svg[data-die]")
    labels = [dice.nth(i).get_attribute("aria-label") for i in range(dice.count())]
    picked = [next(i for i, l in enumerate(labels) if l.endswith(word)) for word in ("dropped", "kept")]
    keys = [dice.nth(i).get_attribute("data-die") for i in picked]
    for key in keys:
        page.click(f'#tray-alkemy [data-die="{key}"]')
        page.wait_for_selector(f'#tray-alkemy [data-die="{key}"][aria-pressed="true"]', timeout=h.slow)
    page.click('#tray-alkemy [data-act="keep"]')
    page.wait_for_function("() => /chose dice/.test(document.querySelector('#tray-alkemy .explain').textContent)",
                           timeout=h.slow)


LAYOUT_STEP = ({"bonus": "1"}, _layout_step)
#: 2, 5 and 4: 5 + 4 kept, the 2 dropped.
LAYOUT_FACES = [2, 5, 4]


#: Rolls from the party (docs/PARTY.md): Patrick's Reflex 2 against
#: Ghulam's 5, 10 each, Ghulam's higher characteristic wins ("in
#: opposition"). tests/rules/test_sheets.py, tests/browser/test_party_flow.py.
PARTY = [{"sheet": "patrick", "check": "Reflex", "against": ("ghulam", "Reflex"),
          "form": {"characteristic": 2, "opponent": {"characteristic": 5}}, "draws": [4, 4, 1, 4], "outcome": "failure"}]
