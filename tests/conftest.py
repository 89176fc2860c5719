"""Shared test set-up: the page's pure Python (static/py) is importable
under CPython, as it is in the browser."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "static" / "py"))
sys.path.insert(0, str(ROOT))
