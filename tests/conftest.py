"""Shared test set-up: the page's pure Python (static/py) is importable
under CPython, as it is in the browser."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "static" / "py"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # shared test helpers (static_form)


try:
    import hypothesis  # noqa: F401
    HAVE_HYPOTHESIS = True
except ImportError:  # under Pyodide (tests/pyodide_run.mjs): property tests stay on CPython
    HAVE_HYPOTHESIS = False


def pytest_ignore_collect(collection_path, config):
    if not HAVE_HYPOTHESIS and collection_path.suffix == ".py" and collection_path.name.startswith("test_"):
        try:
            return "hypothesis" in collection_path.read_text(encoding="utf-8")
        except OSError:
            return None
    return None
