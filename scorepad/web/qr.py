"""QR codes for joining a table, drawn on the server (no external service)."""

from __future__ import annotations

import segno
from flask_babel import gettext  # type: ignore[import-untyped]


def qr_svg(url: str, scale: int = 6) -> str:
    """An inline SVG QR code of ``url``, with a title for screen readers (in the page's
    language: it is what they announce)."""
    code = segno.make(url, error="m", micro=False)
    title = gettext("Join this table")
    # A viewBox instead of a fixed size: the page draws it at its own width (a fixed
    # 246 px drawing in a 220 px box was cut off, and no phone could read it).
    svg: str = code.svg_inline(scale=scale, dark="#111", light="#fff", title=title, omitsize=True)
    return svg
