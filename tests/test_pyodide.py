"""The rules (and the page's pure Python) under the browser's Python:
Pyodide's CPython 3.14, run in Node from the vendored runtime, on the
page's own standard library (static/stdlib.zip)."""

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.pyodide
def test_rules_suite_passes_under_pyodide():
    """Every rules and ui test (doctests included) passes under Pyodide too,
    on the page's standard library: no module our code imports is missing
    from it (tests/pyodide_run.mjs lists any it had to take elsewhere)."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to run Pyodide (the setup installs it with npm)")
    site = sysconfig.get_paths()["purelib"]
    proc = subprocess.run([node, str(ROOT / "tests" / "pyodide_run.mjs"), site],
                          cwd=ROOT, capture_output=True, text=True, timeout=1500)
    out = proc.stdout + proc.stderr
    print(out[-6000:])
    assert "Python 3.14" in out, out[-3000:]
    assert proc.returncode == 0, out[-6000:]
    assert " passed" in out and " failed" not in out
    assert "with the page's standard library" in out and "not in static/stdlib.zip" not in out
