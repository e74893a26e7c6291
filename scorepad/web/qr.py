"""QR codes for joining a table, drawn on the server (no external service)."""

from __future__ import annotations

import segno


def qr_svg(url: str, scale: int = 6) -> str:
    """An inline SVG QR code of ``url``, with a title for screen readers."""
    code = segno.make(url, error="m", micro=False)
    svg: str = code.svg_inline(scale=scale, dark="#111", light="#fff", title="Join this table")
    return svg
