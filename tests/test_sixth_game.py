"""Prove it: a sixth game touches at most three existing files.

A throw-away game, Sixth ("roll N d6, each die on 5 or more is a hit; so
many hits succeed"), is added to a temporary copy of the repository as
README's recipe ("A sixth system") says: new files (its rules folder
``rules/sixth/``, its tab module ``static/py/tabs/ui_sixth.py``, its test cases
``tests/cases/sixth.py``, its character sheet ``rules/sixth/sheet.py``)
and a line or a block in existing ones. The test
counts the existing files whose bytes changed (at most three:
``rules/__init__.py``'s ``MODULES``, ``static/py/shell/page.py``'s ``TABS`` and
``index.html``'s tab, section with its form, and history option), then runs
in the copy what would catch a game the house does not carry:

- ``node .ci/precache.mjs`` (the start-up zip, the later zip and the
  service worker's list are built from the files);
- the unit suites that read the registry (the tabs, forms, kept forms,
  trays, store, odds client, the bounds, the complexity guard and the
  house checks), the new game's doctests, and for the new game the
  property suite and the odds against seeded rolls;
- a browser subset: the shell, the history, and the layout tests of the
  new tab (it rolls, fits the screen at three sizes, and its Roll bar
  covers nothing, its "Reset form" included).

Each run must pass and must have run the new game (its tests are counted
by name in the runs' JUnit reports). The copy holds the tracked files
(``git ls-files``) as they are in the work tree; ``static/vendor`` and
``node_modules`` are symlinks to the originals, and the suites run with
this interpreter (the repository's ``.venv``).

The count test is quick and runs in every loop; the runs are marked
``browser`` (they drive Chromium, a few minutes in all).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The most existing files a new game may touch.
MOST_TOUCHED = 3

# ---------------------------------------------------------------- the game's new files

RULES = '''"""Sixth: a throw-away game for tests/test_sixth_game.py. Roll ``dice``
d6; each die showing ``hit_on`` or more is a hit; ``needed`` hits or more
succeed.

>>> from rules.dice import ScriptedRng
>>> spec = normalize({"dice": 3})
>>> r = roll(spec, ScriptedRng([6, 2, 5]))
>>> r["value"], r["outcome"]
(2, 'success')
"""

from __future__ import annotations

from math import comb

from rules.dice import Die, SpecError, check_keys, get_int, roll_die

NAME = "sixth"
TITLE = "Sixth"
OUTCOMES = ("failure", "success")
DEFAULT_SPEC = {"dice": 3, "hit_on": 5, "needed": 1}
STEPS = {}
KEYS = ("dice", "hit_on", "needed")
MAX_DICE = 20

__all__ = ["NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "STEPS", "normalize", "roll", "act", "odds"]


def normalize(spec) -> dict:
    """Validate every field, fill every default."""
    check_keys(spec, KEYS)
    return {"dice": get_int(spec, "dice", 1, MAX_DICE, 3), "hit_on": get_int(spec, "hit_on", 2, 6, 5),
            "needed": get_int(spec, "needed", 1, MAX_DICE, 1)}


def roll(spec: dict, rng) -> dict:
    """Roll the dice; count the hits."""
    faces = [roll_die(rng, 6) for _ in range(spec["dice"])]
    hits = sum(1 for f in faces if f >= spec["hit_on"])
    dice = [Die(face=f, sides=6, role="success" if f >= spec["hit_on"] else "rolled").to_dict() for f in faces]
    outcome = "success" if hits >= spec["needed"] else "failure"
    return {"dice": dice, "value": hits, "outcome": outcome, "allowed": [],
            "explain": [f"{spec['dice']}d6, a hit on {spec['hit_on']} or more: {hits} hits.",
                        f"{spec['needed']} needed: a {outcome}."]}


def act(spec: dict, result: dict, action: dict, rng) -> dict:
    """No step after a roll."""
    raise SpecError("action", "Sixth allows no step after a roll")


def odds(spec: dict, result=None, action=None) -> dict:
    """The exact distribution of the hits (binomial)."""
    if action is not None:
        raise SpecError("action", "Sixth allows no step after a roll")
    n, p = spec["dice"], (7 - spec["hit_on"]) / 6
    value = {k: comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)}
    win = sum(q for k, q in value.items() if k >= spec["needed"])
    return {"value": value, "outcome": {"failure": 1 - win, "success": win}, "exact": True}
'''

SHEET = '''"""A Sixth character: a few named pools of d6 (a throw-away game,
tests/test_sixth_game.py).

>>> [c["label"] for c in checks(normalize_sheet(EXAMPLE_SHEETS["hero"]))]
['Strength (4d6)']
"""

from __future__ import annotations

from rules.sheets import applied, normalize

FIELDS = ({"name": "pools", "kind": "entries", "label": "Pools", "fields": (
    {"name": "name", "kind": "text", "label": "Pool", "required": True},
    {"name": "dice", "kind": "int", "label": "Dice (d6)", "min": 1, "max": 20, "default": 3})},)
SITUATION = ({"name": "needed", "kind": "int", "label": "Hits needed", "min": 1, "max": 20, "default": 1},)
EXAMPLE_SHEETS = {"hero": {"name": "Hero", "pools": [{"name": "Strength", "dice": 4}]}}


def normalize_sheet(sheet) -> dict:
    return normalize(FIELDS, sheet)


def checks(sheet: dict) -> list:
    return [{"name": p["name"], "label": f"{p['name']} ({p['dice']}d6)", "dice": p["dice"],
             "applied": [applied(f"{p['dice']}d6", p["name"])], "defaults": {}} for p in sheet["pools"]]


def check_spec(sheet: dict, check: dict, situation: dict, opponent) -> dict:
    return {"dice": check["dice"], "needed": situation["needed"]}


def consequences(sheet: dict, result: dict, choice) -> dict:
    return sheet


def pending(sheet: dict, result: dict):
    return None
'''

TAB = '''"""The Sixth tab (a throw-away game, tests/test_sixth_game.py). Pure; no DOM.

>>> spec_from_form({"dice": ["4"], "hit_on": ["5"], "needed": ["2"]})
{'dice': '4', 'hit_on': '5', 'needed': '2'}
"""

from __future__ import annotations

from drawing import draw
from tabs import tab
from drawing import views
from rules.dice import SpecError

SYSTEM = "sixth"
FIELDS = ("dice", "hit_on", "needed")


def spec_from_form(fields: dict) -> dict:
    return {name: (fields.get(name) or [""])[0] for name in FIELDS}


def form_values(spec: dict) -> dict:
    return {name: str(spec[name]) for name in FIELDS}


def questions(spec: dict, result, ui: dict) -> dict:
    return {"roll": tab.before()}


def render_odds(spec: dict, answers: dict, result) -> str:
    o = answers["roll"]
    if "error" in o:
        return views.error_html(o["error"])
    chart = views.bar_chart(o["value"], title=f"Hits with {spec['dice']}d6", highlight=lambda k: k >= spec["needed"])
    return (f'<h3>Odds</h3>{chart}<p>{views.esc(spec["needed"])} hits or more: '
            f'<strong>{views.esc(views.pct(o["outcome"]["success"]))}</strong></p>')


def render_result(result: dict, ui: dict) -> str:
    dice = [d for d in result.get("dice", []) if isinstance(d, dict)]
    row = draw.tray(dice, [str(i) for i in range(len(dice))], tappable=False, caption="Your dice")
    return (views.outcome_banner(SYSTEM, result.get("outcome", ""), f"{result.get('value')} hits")
            + row + views.explain_list(result.get("explain")))


def action_for(verb: str, result: dict, ui: dict, fields: dict) -> dict:
    raise SpecError("action", "Sixth allows no step after a roll")


def fields_after(result: dict, fields: dict) -> None:
    return None


def render_reference() -> str:
    return "<summary>Sixth</summary><p>Each die showing the hit number or more is a hit.</p>"


def summary(result: dict) -> str:
    spec = result.get("spec") or {}
    return f"{spec.get('dice')}d6: {result.get('value')} hits"
'''

CASES = '''"""Sixth's test cases (see ``cases``)."""

from __future__ import annotations

WORST = [{"dice": 20, "hit_on": 2, "needed": 20}, {"dice": 20, "hit_on": 6, "needed": 1}]
SPEC_FIELDS = ["dice", "hit_on", "needed"]
HOSTILE_ACTION = ({}, "reroll")
STORE_SPECS = [{"dice": 4}, {"dice": 6, "hit_on": 4, "needed": 3}]
ODDS_SPECS = [{"dice": 4}, {"dice": 6, "hit_on": 4, "needed": 3}]
TRAY_ROLLS = [({"dice": 3}, [6, 2, 5])]
EDITED_FORM = {"dice": ["5"], "needed": ["2"]}


def store_step(result: dict):
    return None


def strategies(h):
    st = h.st

    def counts(result: dict, spec: dict, v: int) -> None:
        assert v == sum(1 for d in result["dice"] if d["face"] >= spec["hit_on"])
        assert result["outcome"] == ("success" if v >= spec["needed"] else "failure")

    return {"specs": h.spec_of({"dice": st.integers(1, 20), "hit_on": st.integers(2, 6),
                                "needed": st.integers(1, 20)}),
            "actions": st.fixed_dictionaries({"do": st.just("reroll")}),
            "with_a_choice": st.just({}), "fitting": lambda result, data: None,
            "counts": counts, "odds_value": lambda r: r["value"]}
'''

FORM = '''      <!-- tab:sixth -->
      <section id="tab-sixth" class="tabpanel" role="tabpanel" aria-labelledby="tabbtn-sixth" data-system="sixth" hidden>
        <h2 class="visually-hidden">Sixth</h2>
        <div class="form-pane">
        <form id="form-sixth" class="rollform" data-system="sixth" novalidate>
          <fieldset>
            <legend>The roll</legend>
            <label>Dice (d6) <input name="dice" type="number" inputmode="numeric" min="1" max="20" step="1" value="3"></label>
            <p class="field-error" data-error-for="dice"></p>
            <label>A hit on <input name="hit_on" type="number" inputmode="numeric" min="2" max="6" step="1" value="5"></label>
            <p class="field-error" data-error-for="hit_on"></p>
            <label>Hits needed <input name="needed" type="number" inputmode="numeric" min="1" max="20" step="1" value="1"></label>
            <p class="field-error" data-error-for="needed"></p>
          </fieldset>
          <p class="field-error" data-error-for="_form"></p>
          <div class="roll-bar"><button type="submit" class="roll" data-roll disabled>Roll</button><button type="button" class="reset-form" data-reset-form>Reset form</button></div>
        </form>
        </div>
        <div class="result-pane">
        <div id="tray-sixth" class="tray" aria-live="polite"></div>
        <div id="odds-sixth" class="odds"></div>
        <details id="ref-sixth" class="ref"></details>
        </div>
      </section>
      <!-- /tab:sixth -->
'''

NEW_FILES = {"rules/sixth/__init__.py": RULES, "rules/sixth/sheet.py": SHEET, "static/py/tabs/ui_sixth.py": TAB,
             "tests/cases/sixth.py": CASES}

# ---------------------------------------------------------------- the edits to existing files


def _sub(text: str, pattern: str, repl, path: str) -> str:
    """``text`` with ``pattern``'s last match replaced; a pattern that no
    longer matches means README's recipe changed: say where."""
    matches = list(re.finditer(pattern, text, flags=re.M))
    assert matches, f"{path}: the recipe's anchor {pattern!r} is gone; update README's recipe and this test"
    m = matches[-1]
    return text[:m.start()] + (repl(m) if callable(repl) else m.expand(repl)) + text[m.end():]


def _registry_line(path: str, text: str) -> str:
    """One more module in the registry's import and tuple (``rules.MODULES``, ``page.TABS``)."""
    if path == "rules/__init__.py":
        text = _sub(text, r"^(from \. import [\w, ]+)$", r"\1, sixth", path)
        return _sub(text, r"(MODULES: dict\[str, System\] = \{.* for m in \([\w, ]+)\)", r"\1, sixth)", path)
    text = _sub(text, r"^(from tabs import [\w, ]+)$", r"\1, ui_sixth", path)
    return _sub(text, r"(TABS = \{.* for ui in \([\w, ]+)\)", r"\1, ui_sixth)", path)


def _markup(path: str, text: str) -> str:
    """index.html: the tab button, the section with its form, the history filter's option."""
    text = _sub(text, r'^(\s*)(<button type="button" role="tab" [^\n]*</button>)$',
                r'\1\2\n\1<button type="button" role="tab" id="tabbtn-sixth" aria-controls="tab-sixth" '
                r'aria-selected="false" data-tab="sixth">Sixth</button>', path)
    text = _sub(text, r"^\s*<!-- /tab:\w+ -->\n", lambda m: m.group(0) + FORM, path)
    return _sub(text, r'(<select id="history-game">.*?)(</select>)', r'\1<option value="sixth">Sixth</option>\2',
                path)


EDITS = {"rules/__init__.py": _registry_line, "static/py/shell/page.py": _registry_line, "index.html": _markup}

# ---------------------------------------------------------------- the copy


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [p for p in out.decode().split("\0") if p and (ROOT / p).is_file()]


@pytest.fixture(scope="module")
def sixth(tmp_path_factory):
    """The copy with the sixth game added: (its root, the existing files
    whose bytes changed)."""
    site = tmp_path_factory.mktemp("sixth") / "repo"
    tracked = _tracked()
    for rel in tracked:
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, site / rel)
    for rel in ("node_modules", "static/vendor"):
        if (ROOT / rel).exists():
            os.symlink(ROOT / rel, site / rel)
    before = {rel: _digest(site / rel) for rel in tracked}
    for rel, text in NEW_FILES.items():
        assert not (site / rel).exists(), f"{rel} is not a new file"
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text, encoding="utf-8")
    for rel, edit in EDITS.items():
        (site / rel).write_text(edit(rel, (site / rel).read_text(encoding="utf-8")), encoding="utf-8")
    touched = sorted(rel for rel, digest in before.items() if _digest(site / rel) != digest)
    return site, touched


def test_a_sixth_game_touches_at_most_three_existing_files(sixth):
    """The recipe's edits change at most three existing files, and each
    edit took (the registry lines and the markup are there)."""
    site, touched = sixth
    assert len(touched) <= MOST_TOUCHED, touched
    assert set(touched) == set(EDITS), touched
    html = (site / "index.html").read_text(encoding="utf-8")
    assert html.count('data-tab="sixth"') == 1 and html.count('id="form-sixth"') == 1
    assert '<option value="sixth">Sixth</option></select>' in html
    assert ", sixth)" in (site / "rules/__init__.py").read_text(encoding="utf-8")
    assert ", ui_sixth)" in (site / "static/py/shell/page.py").read_text(encoding="utf-8")


def _run(site: Path, args: list[str], report: Path, timeout: int = 900) -> tuple[subprocess.CompletedProcess, dict]:
    """pytest in the copy; (the process, test id -> passed?) from its JUnit report."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           f"--junitxml={report}", *args],
                          cwd=site, capture_output=True, text=True, timeout=timeout)
    outcome = {}
    if report.exists():
        for case in ET.parse(report).getroot().iter("testcase"):
            failed = any(child.tag in ("failure", "error") for child in case)
            skipped = any(child.tag == "skipped" for child in case)
            outcome[f"{case.get('classname')}::{case.get('name')}"] = None if skipped else not failed
    return proc, outcome


def _sixth_passed(outcome: dict) -> list[str]:
    return [name for name, ok in outcome.items() if "sixth" in name and ok]


UNIT = ["rules/sixth", "static/py/tabs/ui_sixth.py", "tests/ui", "tests/rules/test_bounds.py",
        "tests/rules/test_sheets.py::test_every_example_sheet_is_a_fixed_point_and_every_check_rolls",
        "tests/test_complexity.py", "tests/test_house.py"]


@pytest.mark.browser
def test_the_unit_suites_carry_the_sixth_game(sixth, tmp_path):
    """The unit suites that read the registry pass in the copy, and run the
    new game: its doctests, its tab in the tab, form, store and odds
    suites, its cases in the bound and property suites."""
    site, _ = sixth
    proc, outcome = _run(site, ["-m", "not browser and not pyodide", *UNIT], tmp_path / "unit.xml")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    ran = _sixth_passed(outcome)
    assert len(ran) >= 20, ran
    proc, outcome = _run(site, ["tests/rules/test_properties.py", "tests/rules/test_odds_match_rolls.py",
                                "tests/rules/test_sheet_properties.py", "-k", "sixth"],
                         tmp_path / "properties.xml")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert len(_sixth_passed(outcome)) >= 7, outcome


@pytest.mark.browser
def test_the_browser_suites_carry_the_sixth_game(sixth, tmp_path):
    """Built (precache) and served, the copy passes the shell and history
    tests with six tabs, and the new tab rolls, fits the screen at three
    sizes and its Roll bar covers nothing, its "Reset form" included."""
    site, _ = sixth
    build = subprocess.run(["node", ".ci/precache.mjs"], cwd=site, capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-2000:]
    proc, outcome = _run(site, ["-m", "browser", "tests/browser/test_shell.py", "tests/browser/test_history.py",
                                "tests/browser/test_layout.py", "-k", "sixth or not test_layout"],
                         tmp_path / "browser.xml")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    ran = _sixth_passed(outcome)
    assert any("test_tab_fits_the_screen" in n for n in ran), ran  # the new tab rolled, at each size
    assert sum("test_the_roll_button_covers_nothing" in n for n in ran) == 3, ran
    assert all(ok for ok in outcome.values() if ok is not None) and len(outcome) >= 10, outcome
