"""A PNG results card, drawn with Pillow: standings, every category, and each board with the
explanations a player checks on the table (pairs, mountains, the longest river, full rows).

``results_card(result, doc)`` takes a scored :class:`~scorepad.scoring.Result` and the board
file it came from; hex positions come from :mod:`scorepad.hexgrid`, nothing else.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from scorepad import games, share
from scorepad.games import sunflower_valley as sv
from scorepad.hexgrid import Hex, Layout, Orientation, bounding_box
from scorepad.render import palette
from scorepad.scoring import PlayerResult, Result

WIDTH = 1080
MARGIN = 40
TIEBREAK_LINE = 30
INK = (34, 34, 34)
MUTED = (110, 110, 110)
PAPER = (252, 250, 244)
ACCENT = (196, 120, 20)
BOARD_BOX = (490, 360)

FONT_FILES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
)
BOLD_FILES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
)

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@cache
def font(size: int, bold: bool = False) -> Font:
    """A system font with Cyrillic (players' names), else Pillow's own."""
    for path in BOLD_FILES if bold else FONT_FILES:
        try:
            return ImageFont.truetype(path, size)
        except OSError:
            continue
    return ImageFont.load_default(size)


def results_card(
    result: Result,
    doc: Mapping[str, Any],
    names: Mapping[str, str] | None = None,
    headline: str | None = None,
    tiebreaks: Sequence[str] | None = None,
) -> bytes:
    """The whole card as PNG bytes.

    ``names`` (labels as in :func:`scorepad.share.labels`), ``headline`` and ``tiebreaks``
    (the lines under the standings: the variant played, then the tie-breaks) replace the
    English texts: the web app passes them in the player's language.
    """
    game = games.get(result.game)
    label = {**share.labels(result), **(names or {})}
    drawer = BOARD_DRAWERS.get(result.game)
    players = {p["name"]: p for p in doc.get("players", [])}
    rows = len(game.categories_of(result)) + 3 + bool(share.pins_of(result))  # a Pins row
    table_h = 44 * rows + 20
    boards_h = 0
    if drawer:
        boards_h = ((len(result.players) + 1) // 2) * (BOARD_BOX[1] + 60)
    if tiebreaks is None:  # in English
        tiebreaks = share.closing_lines(result)
    lines = tiebreak_lines(tiebreaks)
    height = MARGIN * 2 + 120 + table_h + boards_h + TIEBREAK_LINE * len(lines)
    height += 10 * len(tiebreaks)
    img = Image.new("RGB", (WIDTH, height), PAPER)
    draw = ImageDraw.Draw(img)
    y = _header(draw, headline or share.headline(result))
    y = _standings(draw, result, label, y)
    for line in lines:
        draw.text((MARGIN, y), line, fill=MUTED, font=font(20))
        y += TIEBREAK_LINE
    y += 10 * len(tiebreaks)
    if drawer:
        for i, p in enumerate(result.players):
            x = MARGIN + (i % 2) * (BOARD_BOX[0] + 20)
            top = y + (i // 2) * (BOARD_BOX[1] + 60)
            draw.text((x, top), f"{p.name}: {p.total}", fill=INK, font=font(24, bold=True))
            box = (x, top + 40, x + BOARD_BOX[0], top + 40 + BOARD_BOX[1])
            drawer(draw, box, players.get(p.name, {}), p, doc)
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=True)
    return out.getvalue()


def tiebreak_lines(tiebreaks: Sequence[str]) -> list[str]:
    """The tie-breaks wrapped, whole, to the card's width as drawn (a cut one hid who won
    it; Cyrillic letters are wider than Latin ones, so the width is measured)."""
    face, room = font(20), WIDTH - 2 * MARGIN
    lines: list[str] = []
    for text in tiebreaks:
        line = ""
        for word in text.split():
            wider = f"{line} {word}" if line else word
            if line and face.getlength(wider) > room:
                lines.append(line)
                wider = word
            line = wider
        lines.append(line)
    return lines


def headline_parts(headline: str) -> tuple[str, str]:
    """The game's name and who won, said as a line of its own: "Солнечная долина: лидирует
    Аня" gives "Лидирует Аня", capitalised once it stands alone."""
    game, _, who = headline.partition(": ")
    if not who:
        return "", headline
    return game, who[:1].upper() + who[1:]


def _header(draw: ImageDraw.ImageDraw, headline: str) -> int:
    """The game's name, then who won with how many points, in large type."""
    game, who = headline_parts(headline)
    draw.text((MARGIN, MARGIN), game, fill=MUTED, font=font(26))
    draw.text((MARGIN, MARGIN + 40), _fit(who, 40), fill=INK, font=font(40, True))
    return MARGIN + 120


def _standings(draw: ImageDraw.ImageDraw, result: Result, label: Mapping[str, str], y: int) -> int:
    categories = {k: label[k] for k in games.get(result.game).categories_of(result)}
    names = [p.name for p in result.players]
    col_w = min(170, (WIDTH - 2 * MARGIN - 360) // max(1, len(names)))
    x0 = WIDTH - MARGIN - col_w * len(names)
    header = font(22, bold=True)
    for i, name in enumerate(names):
        draw.text(
            (x0 + i * col_w + col_w - 10, y), _fit(name, 12), fill=INK, font=header, anchor="ra"
        )
    y += 44
    rows = [(text, [p.categories[k] for p in result.players]) for k, text in categories.items()]
    if pins := share.pins_of(result):  # a game won on pins: the ranks below go by them
        rows.append((label["pins"], [pins[p.name] for p in result.players]))
    rows += [
        (label["total"], [p.total for p in result.players]),
        (label["rank"], [p.rank for p in result.players]),
    ]
    for n, (text, values) in enumerate(rows):
        bold = n >= len(rows) - 2
        if n == len(rows) - 2:
            draw.line((MARGIN, y - 6, WIDTH - MARGIN, y - 6), fill=MUTED, width=2)
        draw.text((MARGIN, y), _fit(text, 30), fill=INK, font=font(22, bold))
        for i, v in enumerate(values):
            colour = ACCENT if bold and result.players[i].rank == 1 else INK
            cell = (x0 + i * col_w + col_w - 10, y)
            draw.text(cell, str(v), fill=colour, font=font(22, bold), anchor="ra")
        y += 44
    return y + 20


def _fit(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- hex boards -------------------------------------------------------------------------------


def _hex_layout(hexes: Sequence[Hex], box: tuple[int, int, int, int]) -> Layout:
    """A flat-top layout that fits ``hexes`` centred in ``box``."""
    unit = Layout(Orientation.FLAT, 1.0)
    x0, y0, x1, y1 = bounding_box(unit, hexes)
    size = min((box[2] - box[0]) / max(x1 - x0, 1e-9), (box[3] - box[1]) / max(y1 - y0, 1e-9))
    ox = box[0] + ((box[2] - box[0]) - (x1 - x0) * size) / 2 - x0 * size
    oy = box[1] + ((box[3] - box[1]) - (y1 - y0) * size) / 2 - y0 * size
    return Layout(Orientation.FLAT, size, (ox, oy))


SV_SYMBOLS = {"house": "⌂", "sheep": "S", "sunflower": "✿", "super-sunflower": "✸"}


def _draw_sunflower_valley(
    draw: ImageDraw.ImageDraw,
    box: tuple[int, int, int, int],
    sheet: Mapping[str, Any],
    player: PlayerResult,
    doc: Mapping[str, Any],
) -> None:
    cells = {Hex(c["q"], c["r"]): c for c in sheet.get("cells", [])}
    if not cells:
        return
    fills = palette.area_fills(doc)  # over the whole file, as the editor colours them
    layout = _hex_layout(list(cells), box)
    symbol_font = font(max(10, int(layout.size * 0.9)), bold=True)
    for h, c in cells.items():
        fill = palette.MOUNTAIN_FILL if c.get("mountain") else fills.get(c.get("area"), "#dddddd")
        draw.polygon(layout.corners(h), fill=fill, outline=(80, 80, 80))
        centre = layout.to_pixel(h)
        item = c.get("item")
        if item == "rail" and c.get("sides"):
            a, b = (layout.side_midpoint(h, s) for s in c["sides"])
            draw.line([a, centre, b], fill=INK, width=max(2, int(layout.size / 8)))
        elif item in SV_SYMBOLS:
            draw.text(centre, SV_SYMBOLS[item], fill=INK, font=symbol_font, anchor="mm")
    for m in player.details.get("mountains", []):
        x, y = layout.to_pixel(Hex(*m["hex"]))
        draw.text((x, y), str(m["points"]), fill=(255, 255, 255), font=symbol_font, anchor="mm")
    for pair in player.details.get("pairs", []):
        route = [layout.to_pixel(Hex(*h)) for h in sv.pair_route(pair)]
        draw.line(route, fill=(30, 120, 60), width=max(2, int(layout.size / 10)), joint="curve")
    for q, r in player.details.get("unpaired_houses", []):
        x, y = layout.to_pixel(Hex(q, r))
        s = layout.size * 0.55
        red = (200, 30, 30)
        width = max(2, int(layout.size / 9))
        draw.line([(x - s, y - s), (x + s, y + s)], fill=red, width=width)
        draw.line([(x - s, y + s), (x + s, y - s)], fill=red, width=width)


HARMONIES_COLOURS = {
    "blue": (70, 130, 200), "grey": (150, 150, 150), "brown": (140, 95, 55),
    "green": (70, 150, 70), "yellow": (230, 200, 60), "red": (200, 60, 50),
}  # fmt: skip


def _draw_harmonies(
    draw: ImageDraw.ImageDraw,
    box: tuple[int, int, int, int],
    board: Mapping[str, Any],
    player: PlayerResult,
    doc: Mapping[str, Any],
) -> None:
    cells = {Hex(c["q"], c["r"]): c for c in board.get("cells", [])}
    if not cells:
        return
    layout = _hex_layout(list(cells), box)
    label = font(max(10, int(layout.size * 0.6)), bold=True)
    for h, c in cells.items():
        stack = c.get("stack") or []
        fill = HARMONIES_COLOURS.get(stack[-1], PAPER) if stack else (235, 230, 215)
        draw.polygon(layout.corners(h), fill=fill, outline=(80, 80, 80))
        x, y = layout.to_pixel(h)
        if len(stack) > 1:
            draw.text((x, y), str(len(stack)), fill=(255, 255, 255), font=label, anchor="mm")
        if c.get("cube"):
            s = layout.size * 0.22
            draw.rectangle((x - s, y + s, x + s, y + 3 * s), fill=(250, 250, 250), outline=INK)
    river = (player.details.get("longest_river") or {}).get("path") or []
    if len(river) > 1:
        points = [layout.to_pixel(Hex(q, r)) for q, r in river]
        draw.line(points, fill=(255, 255, 255), width=max(3, int(layout.size / 6)))


def _draw_spring_meadow(
    draw: ImageDraw.ImageDraw,
    box: tuple[int, int, int, int],
    board: Mapping[str, Any],
    player: PlayerResult,
    doc: Mapping[str, Any],
) -> None:
    rows = board.get("rows") or []
    if not rows:
        return
    n_rows, n_cols = len(rows), max(len(r) for r in rows)
    cell = min((box[2] - box[0]) / n_cols, (box[3] - box[1]) / n_rows)
    x0 = box[0] + ((box[2] - box[0]) - cell * n_cols) / 2
    colours = {".": (245, 248, 252), "#": (120, 170, 90), "o": (120, 90, 60),
               "c": (200, 160, 90), "m": (90, 60, 30)}  # fmt: skip
    for r, line in enumerate(rows):
        for c, code in enumerate(line):
            rect = (x0 + c * cell, box[1] + r * cell, x0 + (c + 1) * cell, box[1] + (r + 1) * cell)
            draw.rectangle(rect, fill=colours.get(code, PAPER), outline=(200, 200, 200))
    # No caption: the score table above names the full lines in the player's language (one
    # in English here printed the engine's raw list, "full []").


#: A board's drawer: the image, the board's box, the player's part of the board file, the
#: player's result and the whole board file (what is shared between players).
Drawer = Callable[
    [ImageDraw.ImageDraw, tuple[int, int, int, int], Mapping[str, Any], PlayerResult,
     Mapping[str, Any]],
    None,
]  # fmt: skip

BOARD_DRAWERS: dict[str, Drawer] = {
    "sunflower-valley": _draw_sunflower_valley,
    "harmonies": _draw_harmonies,
    "spring-meadow": _draw_spring_meadow,
}
