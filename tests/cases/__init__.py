"""Each game's own test cases, one module a game (``cases/<game>.py``, by
its registry name), which the shared suites read for every game in
``rules.SYSTEMS``: a game added to the registry brings its cases here, and
no suite holds a list of games to copy (docs/adding-a-game.md).

A cases module is plain data and functions: it imports neither pytest nor
hypothesis (the bound and store suites also run under Pyodide, which has
no hypothesis), so its property strategies are built by ``strategies(h)``
from the helpers ``h`` the property suite hands it. What a module gives:

- ``WORST``: the worst specs, every numeric field at or near its cap
  (tests/rules/test_bounds.py: roll, replay and odds within the limit);
- ``SPEC_FIELDS``: every spec field, each given hostile values
  (test_bounds.py);
- ``HOSTILE_ACTION``: ``(spec, verb)`` of a step whose arguments are made
  hostile, or None for a game without steps (test_bounds.py);
- ``STORE_SPECS`` and ``store_step(result)``: realistic rolls and the step
  a player would take, or None (tests/ui/test_store.py's history);
- ``LAYOUT_STEP`` (optional): ``(fields, step(page, h))``, a step after a
  roll in the browser, filled fields first (tests/browser/test_layout.py:
  the outcome is in view after it; ``h.roll(page, system)``, ``h.slow``);
  ``LAYOUT_FACES`` (optional, beside it): the faces of that roll, forced in
  the page (tests/browser/scripted_dice.py), chosen so the step is open;
- ``DRAWS`` (optional): dice other than ``rules.dice.SIZES`` a draw may
  be (``randint(1, n)``), for the property suite's strict source;
- ``ODDS_SPECS`` and optionally ``rolled_value(result)``: specs whose
  exact odds are checked against seeded rolls, and what the odds' value is
  of (default: the result's ``value``; tests/rules/test_odds_match_rolls.py);
- ``TRAY_ROLLS``: ``(spec, draws)`` results drawn on the tray, the draws a
  list of faces or a seed (tests/ui/test_draw_tray.py);
- ``EDITED_FORM``: the form's fields as a player edits them
  (tests/ui/test_formstate.py);
- ``PARTY`` (optional): rolls from the party: ``sheet`` (a key of the game's
  ``EXAMPLE_SHEETS``), its ``check``, ``against`` (an example NPC's key and
  check), the ``form``'s spec for the same roll, forced ``draws`` and the
  ``outcome`` they give (tests/rules/test_sheets.py,
  tests/browser/test_party_flow.py);
- ``strategies(h)``: the property suite's per-game strategies and checks
  (tests/rules/test_properties.py: ``specs``, ``actions``,
  ``with_a_choice``, ``fitting``, ``counts``, ``odds_value``).
"""

from __future__ import annotations

import importlib

import rules


def of(system: str):
    """The cases module of ``system`` (``cases/<system>.py``)."""
    return importlib.import_module(f"cases.{system}")


def every(name: str, *default) -> dict:
    """``name`` of every game's cases, in the registry's order (``default``,
    if given, for a game whose module leaves it out)."""
    return {system: getattr(of(system), name, *default) for system in rules.SYSTEMS}


def verbs(result: dict, side: str = "initiator") -> list:
    """The verbs ``side`` may take now, read from the result's ``allowed``
    (an entry without a side is the initiator's)."""
    return [a["do"] for a in result["allowed"] if a.get("side", "initiator") == side]
