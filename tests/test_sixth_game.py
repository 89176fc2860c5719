"""Prove it: a game with steps, added by docs/adding-a-game.md alone,
touches at most three existing files and is carried by everything CI runs.

The example game is Fate dice (``tests/example_game/``, laid out as it
would lie in the repository): four Fate dice and a skill (0-8) against a
difficulty (0-8), an outcome ladder of four rungs, one step (``invoke``:
reroll all four), exact odds with the invoke played best and
``rules.advise``'s advice and choice for it. Its files are copied into a
temporary copy of the repository where the recipe says (its rules folder,
its tab module, its test cases, its own tests), and the recipe's three
edits are made (``rules/__init__.py``'s registry and its doctest's list,
``static/py/shell/page.py``'s ``TABS`` line, ``index.html``'s tab button,
section and history option). Then, in the copy:

- the count: exactly those three existing files changed (by their bytes);
- the unit suites CI runs that read the registry (the tabs, forms, kept
  forms, trays, store, share links, odds client, outcome colours, page
  floors, the bounds, the house and complexity checks), every doctest of
  ``rules/`` and ``static/py`` (``rules/__init__.py``'s included), the
  game's own tests, the property suite and the odds against seeded rolls
  for it, and the proof's own probe (``tests/example_game/probes``, no
  part of the recipe): a fair roll at a distance with its step through
  ``fairrolls.fair``'s public functions, and its outcomes' colours
  (a few minutes: marked ``browser``, so it runs once, with the slow
  suites, and not in the quick loop);
- the same rules, tab and probe under Pyodide (``tests/pyodide_run.mjs``
  given paths), marked ``pyodide``;
- ``node .ci/precache.mjs``, then in one browser session the shell and
  history suites (six tabs) and the new tab's layout (it rolls, fits three
  screens, its step keeps the outcome in view, its Roll bar covers
  nothing), accessibility (axe, reduced motion) and empty number boxes,
  marked ``browser``.

The recipe check and the count run in every loop. Each run must pass
and must have run the new game (its tests counted by
name in the JUnit reports). The copy holds the tracked files (``git
ls-files``) as they are in the work tree; ``static/vendor`` and
``node_modules`` are symlinks to the originals; the suites run with this
interpreter.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "tests" / "example_game"
RECIPE = ROOT / "docs" / "adding-a-game.md"
GAME, TITLE = "fate", "Fate dice"

#: The most existing files a new game may touch.
MOST_TOUCHED = 3

#: The game's new files, where the recipe puts them (``tests/example_game``
#: holds them at the same paths), and the proof's probe.
NEW_FILES = ["rules/fate/__init__.py", "rules/fate/model.py", "rules/fate/sheet.py", "static/py/tabs/ui_fate.py", "tests/cases/fate.py",
             "tests/rules/test_fate.py"]
PROBE = ("probes/test_fate_at_a_distance.py", "tests/ui/test_fate_at_a_distance.py")

# ---------------------------------------------------------------- the recipe's edits


def _sub(text: str, pattern: str, repl, path: str) -> str:
    """``text`` with ``pattern``'s last match replaced; a pattern that no
    longer matches means the recipe's anchor moved: say where."""
    matches = list(re.finditer(pattern, text, flags=re.M | re.S))
    assert matches, f"{path}: the recipe's anchor {pattern!r} is gone; update docs/adding-a-game.md and this test"
    m = matches[-1]
    return text[:m.start()] + (repl(m) if callable(repl) else m.expand(repl)) + text[m.end():]


def _registry(path: str, text: str) -> str:
    """One more module in the registry's import and tuple (``rules.MODULES``),
    and its name in the docstring's list of the systems."""
    text = _sub(text, r"^(>>> SYSTEMS\n\('[\w', ]+)\)$", rf"\1, '{GAME}')", path)
    text = _sub(text, r"^(from \. import [\w, ]+)$", rf"\1, {GAME}", path)
    return _sub(text, r"(MODULES: dict\[str, System\] = \{[^\n]* for m in \([\w, ]+)\)", rf"\1, {GAME})", path)


def _tabs(path: str, text: str) -> str:
    """One more tab module in ``page.TABS``."""
    text = _sub(text, r"^(from tabs import [\w, ]+)$", rf"\1, ui_{GAME}", path)
    return _sub(text, r"(TABS = \{[^\n]* for ui in \([\w, ]+)\)", rf"\1, ui_{GAME})", path)


def _markup(path: str, text: str) -> str:
    """index.html: the tab button after the last, the section after the
    last, the history filter's option."""
    text = _sub(text, r'^(\s*)(<button type="button" role="tab" [^\n]*</button>)$',
                rf'\1\2\n\1<button type="button" role="tab" id="tabbtn-{GAME}" aria-controls="tab-{GAME}" '
                rf'aria-selected="false" data-tab="{GAME}">{TITLE}</button>', path)
    section = (EXAMPLE / "section.html").read_text(encoding="utf-8")
    text = _sub(text, r"^[ \t]*<!-- /tab:\w+ -->\n", lambda m: m.group(0) + section, path)
    return _sub(text, r'(<select id="history-game">[^\n]*?)(</select>)',
                rf'\1<option value="{GAME}">{TITLE}</option>\2', path)


EDITS = {"rules/__init__.py": _registry, "static/py/shell/page.py": _tabs, "index.html": _markup}

# ---------------------------------------------------------------- the copy


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [p for p in out.decode().split("\0") if p and (ROOT / p).is_file()]


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    """The copy with the game added by the recipe: (its root, the existing
    files whose bytes changed)."""
    site = tmp_path_factory.mktemp("sixth") / "repo"
    tracked = _tracked()
    for rel in tracked:
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, site / rel)
    for rel in ("node_modules", "static/vendor"):
        if (ROOT / rel).exists():
            os.symlink(ROOT / rel, site / rel)
    before = {rel: _digest(site / rel) for rel in tracked}
    for rel, src in [(rel, rel) for rel in NEW_FILES] + [(PROBE[1], PROBE[0])]:
        assert not (site / rel).exists(), f"{rel} is not a new file"
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(EXAMPLE / src, site / rel)
    for rel, edit in EDITS.items():
        (site / rel).write_text(edit(rel, (site / rel).read_text(encoding="utf-8")), encoding="utf-8")
    touched = sorted(rel for rel, digest in before.items() if _digest(site / rel) != digest)
    return site, touched


def test_the_recipe_says_what_the_proof_does():
    """docs/adding-a-game.md names every file the proof adds or edits, and
    every name a game module declares; the example game declares each."""
    recipe = RECIPE.read_text(encoding="utf-8")
    for path in {re.sub(r"(?<![a-z])fate\b", "<game>", p) for p in NEW_FILES if not p.endswith("model.py")} | set(EDITS):
        assert f"`{path}`" in recipe or f"`{path.rsplit('/', 1)[0]}/`" in recipe, path
    model = (EXAMPLE / "rules/fate/model.py").read_text(encoding="utf-8")
    for name in ("NAME", "TITLE", "OUTCOMES", "DEFAULT_SPEC", "STEPS", "normalize", "roll", "act", "odds", "advise",
                 "allowed", "check_action"):
        assert f"`{name}`" in recipe, name
        assert re.search(rf"\b{name}\b", model), name
    assert (EXAMPLE / "section.html").read_text(encoding="utf-8").count(f'data-error-for="') == 3  # two fields, _form


def test_a_sixth_game_touches_at_most_three_existing_files(copy):
    """The recipe's edits change at most three existing files, and each
    edit took (the registry lines and the markup are there)."""
    site, touched = copy
    assert len(touched) <= MOST_TOUCHED, touched
    assert set(touched) == set(EDITS), touched
    html = (site / "index.html").read_text(encoding="utf-8")
    assert html.count(f'data-tab="{GAME}"') == 1 and html.count(f'id="form-{GAME}"') == 1
    assert f'<option value="{GAME}">{TITLE}</option></select>' in html
    assert f", {GAME})" in (site / "rules/__init__.py").read_text(encoding="utf-8")
    assert f", ui_{GAME})" in (site / "static/py/shell/page.py").read_text(encoding="utf-8")


def _run(site: Path, args: list[str], report: Path, timeout: int = 1200) -> tuple[subprocess.CompletedProcess, dict]:
    """pytest in the copy; (the process, test id -> passed? (None: skipped)) from its JUnit report."""
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


def _game_passed(outcome: dict) -> list[str]:
    return [name for name, ok in outcome.items() if GAME in name and ok]


def _says(proc: subprocess.CompletedProcess) -> str:
    return proc.stdout[-5000:] + proc.stderr[-2000:]


#: The unit suites that read the registry, and the proof's probe.
UNIT = ["tests/ui/test_tabs.py", "tests/ui/test_read_form.py", "tests/ui/test_formstate.py",
        "tests/ui/test_draw_tray.py", "tests/ui/test_store.py", "tests/ui/test_share.py",
        "tests/ui/test_oddsclient.py", "tests/ui/test_outcome_colour.py", "tests/ui/test_page_modules.py",
        PROBE[1], "tests/rules/test_bounds.py",
        "tests/rules/test_sheets.py::test_every_example_sheet_is_a_fixed_point_and_every_check_rolls", "tests/rules/test_fate.py", "tests/test_house.py",
        "tests/test_complexity.py"]


@pytest.mark.browser  # a few minutes in a copy: it runs once, in the browser pass, not in every quick loop
def test_the_unit_suites_carry_the_sixth_game(copy, tmp_path):
    """Every doctest of ``rules/`` and ``static/py`` (the registry's among
    them) and the registry's unit suites pass in the copy and ran the new
    game: its doctests, its tab in each tab suite, its cases in the bound
    suite, its own tests, the fair roll with its step and its colours;
    then the property suite and the odds against seeded rolls for it."""
    site, _ = copy
    proc, outcome = _run(site, ["-m", "not browser and not pyodide", "rules", "static/py", *UNIT],
                         tmp_path / "unit.xml")
    assert proc.returncode == 0, _says(proc)
    ran = _game_passed(outcome)
    assert len(ran) >= 60, ran
    assert outcome.get("rules.__init__::rules") is True, "the registry's doctest ran"
    for name in ("test_a_fair_roll_with_the_invoke_is_verified", "test_hostile_action_arguments_are_refused",
                 "test_every_wrong_field_is_named_at_once", "test_every_tab_colours_its_outcome_by_rank",
                 "test_best_play_is_what_the_advice_plays"):
        assert any(name in n for n in ran), name
    proc, outcome = _run(site, ["tests/rules/test_properties.py", "tests/rules/test_odds_match_rolls.py",
                                "-k", GAME], tmp_path / "properties.xml")
    assert proc.returncode == 0, _says(proc)
    assert len(_game_passed(outcome)) >= 9, outcome


def _build(site: Path) -> None:
    """``node .ci/precache.mjs`` in the copy, once: the start-up zips and the
    page's own standard library, built from the copy (the new game in it)."""
    if (site / "static" / "stdlib.zip").exists():
        return
    build = subprocess.run(["node", ".ci/precache.mjs"], cwd=site, capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-2000:]


@pytest.mark.pyodide
def test_pyodide_carries_the_sixth_game(copy):
    """Under Pyodide's CPython 3.14 in Node: the registry's doctest, the
    game's rules and tab with their doctests, its own tests, its bounds and
    the probe (the fair roll with its step)."""
    site, _ = copy
    node = shutil.which("node")
    assert node is not None, "node is needed to run Pyodide (the setup installs it with npm)"
    _build(site)  # the page's standard library, which the Pyodide run loads
    # -vv: one line a test (the runner passes -q)
    paths = ["rules/__init__.py", "rules/fate", "static/py/tabs/ui_fate.py", "tests/rules/test_fate.py",
             "tests/rules/test_bounds.py", PROBE[1], "-k", f"{GAME} or __init__", "-vv"]
    proc = subprocess.run([node, "tests/pyodide_run.mjs", sysconfig.get_paths()["purelib"], *paths],
                          cwd=site, capture_output=True, text=True, timeout=1200)
    out = proc.stdout + proc.stderr
    assert "Python 3.14" in out and proc.returncode == 0, out[-5000:]
    passed = [line for line in out.splitlines() if line.endswith("PASSED") or " PASSED " in line]
    assert sum(GAME in line for line in passed) >= 20 and any("rules/__init__.py::rules" in line for line in passed), \
        out[-5000:]


@pytest.mark.browser
def test_the_browser_suites_carry_the_sixth_game(copy, tmp_path):
    """Built (precache) and served, the copy passes the shell and history
    suites with six tabs (every form opens with a valid roll whose dice
    carry ``data-die``), and the new tab rolls, fits the screen at three
    sizes, keeps the outcome in view after its step, its Roll bar covers
    nothing, axe finds nothing serious, reduced motion stills its dice and
    its empty number boxes mean their defaults: one browser session."""
    site, _ = copy
    _build(site)
    proc, outcome = _run(site, ["-m", "browser", "tests/browser/test_shell.py", "tests/browser/test_history.py",
                                "tests/browser/test_layout.py", "tests/browser/test_a11y.py",
                                "tests/browser/test_at_the_table.py",
                                "-k", f"{GAME} or test_shell or test_history"], tmp_path / "browser.xml")
    assert proc.returncode == 0, _says(proc)
    ran = _game_passed(outcome)
    for name, times in (("test_tab_fits_the_screen", 3), ("test_the_roll_button_covers_nothing", 3),
                        ("test_after_a_step_the_outcome_is_in_view", 3), ("test_axe_on_each_tab_after_a_roll", 1),
                        ("test_reduced_motion_stills_the_dice", 1),
                        ("test_an_empty_number_box_means_its_default_and_shows_it", 1)):
        assert sum(name in n for n in ran) == times, (name, ran)
    assert any("test_every_form_opens_with_a_valid_roll" in n and ok for n, ok in outcome.items()), outcome
    assert all(ok for ok in outcome.values() if ok is not None) and len(outcome) >= 20, outcome
