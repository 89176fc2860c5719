"""QR codes of share links, drawn by segno (a maintained pure-Python QR
library). Its wheel ships with the page (static/vendor/wheels/) and is
unpacked only the first time a QR code is asked for, so it costs nothing at
start-up."""

from __future__ import annotations

import io
import sys
import zipfile

WHEEL = "./static/vendor/wheels/segno-1.6.6-py3-none-any.whl"
TARGET = "/tmp/page-wheels"

__all__ = ["load", "svg"]


async def load() -> None:
    """Fetch and unpack segno once (the service worker serves it offline)."""
    if "segno" in sys.modules:
        return
    from pyodide.http import pyfetch

    resp = await pyfetch(WHEEL)
    if not resp.ok:
        raise RuntimeError(f"the QR library could not be loaded (HTTP {resp.status})")
    data = await resp.bytes()
    unpack(data)


def unpack(data: bytes) -> None:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        z.extractall(TARGET)
    if TARGET not in sys.path:
        sys.path.append(TARGET)


def svg(text: str) -> str:
    """An inline SVG QR code of ``text`` (dark on light, quiet zone kept)."""
    import segno

    code = segno.make(text, error="m")
    return code.svg_inline(scale=4, dark="#1d1d1d", light="#ffffff", title="QR code of the share link")
