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
#: Light modules round the code: the QR standard's minimum.
QUIET_ZONE = 4

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
    """An inline SVG QR code of ``text``, dark on light. It has a
    ``viewBox`` and no size, so CSS scales the whole code, quiet zone
    included (the four light modules round it that a scanner needs); one
    unit is one module.
    """
    import segno

    code = segno.make(text, error="m")
    drawn = code.svg_inline(dark="#1d1d1d", light="#ffffff", border=QUIET_ZONE, omitsize=True,
                            title="QR code of the share link")
    return drawn.replace("<svg ", '<svg role="img" aria-label="QR code of the share link" ', 1)
