"""The share dialog's QR code scans: the screen as a
player's phone camera would see it, at tablet and at phone width, is
decoded by a real decoder (zxing-cpp) and gives back exactly the link in
the dialog. The screenshots are kept under test-results/screens/."""

from __future__ import annotations

import io

import pytest
import zxingcpp
from PIL import Image

from conftest import ROOT, watched_page  # noqa: E402  (tests/browser/conftest.py)

pytestmark = pytest.mark.browser

SCREENS = ROOT / "test-results" / "screens"
SLOW = 60_000
SIZES = [(1024, 768), (390, 844)]


def decoded(png: bytes) -> list[str]:
    """Every QR code zxing-cpp finds in the picture."""
    image = Image.open(io.BytesIO(png)).convert("L")
    return [code.text for code in zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)]


def test_the_decoder_reads_a_code_and_not_a_cropped_one():
    """The check can fail: segno's own PNG decodes, the same code with a
    corner cut off (as the dialog used to crop it) does not."""
    import segno

    buf = io.BytesIO()
    segno.make("https://example.org/#v1.s.abc", error="m").save(buf, kind="png", scale=4, border=4)
    assert decoded(buf.getvalue()) == ["https://example.org/#v1.s.abc"]
    image = Image.open(io.BytesIO(buf.getvalue()))
    w, h = image.size
    cropped = io.BytesIO()
    image.crop((0, 0, int(w * 0.8), int(h * 0.8))).save(cropped, format="PNG")
    assert decoded(cropped.getvalue()) == []


@pytest.mark.parametrize("what", ["result", "setup"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_shown_code_scans_back_to_the_link(browser, base_url, size, what):
    """Roll Milhamah (its links are among the longest), open the share
    dialog, screenshot the screen, decode it."""
    with watched_page(browser, base_url, viewport=size) as page:
        page.click("#form-milhamah [data-roll]")
        page.wait_for_selector("#tray-milhamah [data-die]", timeout=SLOW)
        page.click(f"#share-{what}")
        page.wait_for_selector("#share-qr svg", timeout=SLOW)
        link = page.input_value("#share-link")
        assert f"#v1.{what[0]}." in link
        png = page.screenshot()
        SCREENS.mkdir(parents=True, exist_ok=True)
        (SCREENS / f"qr-{what}-{size[0]}x{size[1]}.png").write_bytes(png)
        # the whole code, quiet zone included, lies inside the screen
        box = page.locator("#share-qr svg").bounding_box()
        assert box["x"] >= 0 and box["y"] >= 0
        assert box["x"] + box["width"] <= size[0] and box["y"] + box["height"] <= size[1]
        assert decoded(png) == [link]
        page.keyboard.press("Escape")
