"""The code stays small, measured with radon (pinned as a test-only
tool): no function, method or class in ``rules/`` (each game's folder
included) or ``static/py/`` above 15 in cyclomatic complexity, and the
average of each folder under 3.5 — ``rules/`` and the page's Python held
to it apart, so that neither hides behind the other."""
from pathlib import Path

import pytest

radon_complexity = pytest.importorskip("radon.complexity")

ROOT = Path(__file__).resolve().parent.parent
LIMIT, AVERAGE = 15, 3.5
FOLDERS = {"rules": ("rules/**/*.py",), "the page": ("static/py/**/*.py",)}


def _blocks(globs):
    """Every function, method and class radon scores, with where it is."""
    for path in sorted(p for g in globs for p in ROOT.glob(g)):
        for block in radon_complexity.cc_visit(path.read_text(encoding="utf-8")):
            yield f"{path.relative_to(ROOT)}:{block.lineno} {block.fullname}", block.complexity


@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_no_block_above_the_limit(folder):
    over = {where: cc for where, cc in _blocks(FOLDERS[folder]) if cc > LIMIT}
    assert over == {}


@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_the_average_stays_low(folder):
    blocks = dict(_blocks(FOLDERS[folder]))
    assert len(blocks) > 500  # the folder was read, its subfolders too
    assert any("/" in where.split(":")[0].removeprefix("static/py/").removeprefix("rules/") for where in blocks)
    average = sum(blocks.values()) / len(blocks)
    assert average < AVERAGE, f"{folder}: radon's average {average:.3f}"
