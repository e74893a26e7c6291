"""Sunflower Valley sheets drawn as text, for tests and examples.

A sheet is written as rows of an odd-q grid (flat-top columns, odd columns half a hex lower),
one token per hex: ``.`` empty, ``^`` mountain, ``H`` house, ``S`` sheep, ``F`` sunflower,
``X`` super sunflower, ``R<a><b>`` rail joining sides a and b, ``-`` no hex at all. An area
letter may follow a token after a slash (``H/b``); without it the hex is in area ``a``.
"""

from __future__ import annotations

from typing import Any

from scorepad.hexgrid import oddq_to_axial

ITEMS = {"H": "house", "S": "sheep", "F": "sunflower", "X": "super-sunflower"}


def sheet_cells(text: str) -> list[dict[str, Any]]:
    cells = []
    for row, line in enumerate(text.strip().splitlines()):
        for col, token in enumerate(line.split()):
            if token == "-":
                continue
            token, _, area = token.partition("/")
            h = oddq_to_axial(col, row)
            cell: dict[str, Any] = {"q": h.q, "r": h.r}
            if token == "^":
                cell["mountain"] = True
                cells.append(cell)
                continue
            cell["area"] = area or "a"
            if token in ITEMS:
                cell["item"] = ITEMS[token]
            elif token.startswith("R"):
                cell["item"] = "rail"
                cell["sides"] = [int(token[1]), int(token[2])]
            elif token != ".":
                raise ValueError(f"unknown token {token!r}")
            cells.append(cell)
    return cells


def table(*sheets: str, **options: Any) -> dict[str, Any]:
    names = ["Anna", "Boris", "Vera", "Grisha", "Dasha", "Egor"]
    return {
        "game": "sunflower-valley",
        "options": options,
        "players": [{"name": names[i], "cells": sheet_cells(s)} for i, s in enumerate(sheets)],
    }


def axial_cells(spec: dict[tuple[int, int], str]) -> list[dict[str, Any]]:
    """Cells from ``{(q, r): token}`` in axial coordinates (tokens as in :func:`sheet_cells`)."""
    cells = []
    for (q, r), token in sorted(spec.items()):
        token, _, area = token.partition("/")
        cell: dict[str, Any] = {"q": q, "r": r}
        if token == "^":
            cell["mountain"] = True
        else:
            cell["area"] = area or "a"
            if token in ITEMS:
                cell["item"] = ITEMS[token]
            elif token.startswith("R"):
                cell.update(item="rail", sides=[int(token[1]), int(token[2])])
            elif token != ".":
                raise ValueError(f"unknown token {token!r}")
        cells.append(cell)
    return cells


def line(*tokens: str, r: int = 0) -> dict[tuple[int, int], str]:
    """Tokens on consecutive hexes along side 0 (q grows), starting at (0, r)."""
    return {(q, r): t for q, t in enumerate(tokens)}


def axial_table(*specs: dict[tuple[int, int], str], **options: Any) -> dict[str, Any]:
    names = ["Anna", "Boris", "Vera", "Grisha", "Dasha", "Egor"]
    return {
        "game": "sunflower-valley",
        "options": options,
        "players": [{"name": names[i], "cells": axial_cells(s)} for i, s in enumerate(specs)],
    }
