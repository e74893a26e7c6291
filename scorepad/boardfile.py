"""Board files (``shared/formats.md``): reading JSON, validating it, naming every problem.

Structure and types are checked by pydantic models that forbid unknown keys; the rules that
need the whole sheet (duplicate cells, illegal rails, unique names) are checked by each game's
parser. Every problem is reported as one sentence naming the player, the cell and the rule.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from scorepad.wording import counted

MAX_BOARD_BYTES = 2_000_000
#: No count or point value on a board comes near this; sums of longer numbers could pass
#: the 4 300 digits Python will print (a traceback where a one-line refusal is due).
MAX_DIGITS = 15


class BoardError(ValueError):
    """An unreadable or invalid board file; ``problems`` lists every sentence found."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems) or ["invalid board file"]
        first = self.problems[0]
        more = len(self.problems) - 1
        said = counted(more, "more problem", "more problems")
        super().__init__(first if not more else f"{first} (and {said})")


class Model(BaseModel):
    """Base of every board-file model: immutable, no unknown keys, no silent coercion."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise BoardError([f"key {key!r} appears twice in one object"])
        result[key] = value
    return result


def _short_int(digits: str) -> int:
    count = len(digits.lstrip("-"))
    if count > MAX_DIGITS:
        raise BoardError([f"a number in the board file has {count} digits (at most {MAX_DIGITS})"])
    return int(digits)


def loads(text: str | bytes) -> Any:
    """Parse JSON text; malformed JSON and duplicate keys raise :class:`BoardError`."""
    if isinstance(text, str):
        text = text.removeprefix("\ufeff")  # a pasted file keeps its byte order mark
    if len(text) > MAX_BOARD_BYTES:
        raise BoardError([f"board file is too large (over {MAX_BOARD_BYTES // 1000} kB)"])
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise BoardError([f"board file is not UTF-8 text (byte {err.start})"]) from None
    try:
        doc = json.loads(text, object_pairs_hook=_reject_duplicate_keys, parse_int=_short_int)
    except json.JSONDecodeError as err:
        if not text.strip():
            raise BoardError(["board file is empty"]) from None
        if not text[: err.pos].strip():  # not JSON from its first character: another file
            raise BoardError([NOT_A_BOARD_FILE]) from None
        raise BoardError(
            [f"malformed JSON at line {err.lineno} column {err.colno}: {err.msg}"]
        ) from None
    except RecursionError:
        raise BoardError(["malformed JSON: nested too deeply"]) from None
    except BoardError:
        raise
    except ValueError as err:  # e.g. an integer with more digits than Python converts
        raise BoardError([f"malformed JSON: {str(err).split(';')[0]}"]) from None
    _check_unicode(doc)
    return doc


def _check_unicode(doc: Any) -> None:
    """Reject lone surrogates (``"\\ud800"``): no output could ever print them."""
    try:
        json.dumps(doc, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as err:
        bad = err.object[err.start : err.end]
        raise BoardError(
            [f"a string in the board file holds an invalid character ({bad!a})"]
        ) from None


def where(doc: Any, loc: Sequence[int | str], root: str = "board file") -> str:
    """Name a location in a board file the way a player would: player, cell, key (``root``
    for the whole document: a layout is not a board file)."""
    parts: list[str] = []
    node: Any = doc
    i = 0
    while i < len(loc):
        key = loc[i]
        child = _child(node, key)
        if key in ("players", "cells") and i + 1 < len(loc) and isinstance(loc[i + 1], int):
            index = int(loc[i + 1])
            item = _child(child, index)
            parts.append(_name_item(str(key), index, item))
            node = item
            i += 2
            continue
        parts.append(f"{key!r}" if isinstance(key, str) else f"item {key + 1}")
        node = child
        i += 1
    return ", ".join(parts) if parts else root


def _child(node: Any, key: int | str) -> Any:
    if isinstance(node, Mapping) and isinstance(key, str):
        return node.get(key)
    if isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
        return node[key]
    return None


def _name_item(kind: str, index: int, item: Any) -> str:
    if kind == "players":
        name = item.get("name") if isinstance(item, Mapping) else None
        return f"player {name!r}" if isinstance(name, str) and name else f"player #{index + 1}"
    if isinstance(item, Mapping) and all(type(item.get(k)) is int for k in ("q", "r")):
        return f"cell ({item['q']}, {item['r']})"
    return f"cell #{index + 1}"


_MESSAGES = {
    "extra_forbidden": "unknown key",
    "missing": "missing required key",
}
#: Messages that name no key; pydantic's would name an internal class ("instance of _Cell").
_WHOLE_MESSAGES = {
    "model_type": "input should be a valid dictionary",
}
#: A file that is not JSON at all (a photo, a text note) chosen on the import screen.
NOT_A_BOARD_FILE = "this is not a board file (a board file is the JSON text Scorepad exports)"

M = TypeVar("M", bound=BaseModel)


def validate(model: type[M], doc: Any, root: str = "board file") -> M:
    """Validate ``doc`` against ``model``; a failure lists every problem with its place
    (``root`` names the whole document)."""
    try:
        return model.model_validate(doc)
    except ValidationError as err:
        problems = []
        errors = err.errors()
        for e in errors:
            if e["type"] == "too_short" and _has_deeper_error(e["loc"], errors):
                continue  # a bad item also empties the validated list: report the item only
            loc = list(e["loc"])
            text = _MESSAGES.get(e["type"]) or _WHOLE_MESSAGES.get(
                e["type"], e["msg"][:1].lower() + e["msg"][1:]
            )
            if e["type"] == "missing" and loc and isinstance(loc[-1], int):
                text = f"missing item {loc[-1] + 1}"  # a short pair ('sides': [1]): no key
                loc = loc[:-1]
            elif e["type"] in _MESSAGES and loc:
                text = f"{text} {loc[-1]!r}"  # the unknown or missing key itself
                loc = loc[:-1]
            loc = _data_path(doc, loc)
            problems.append(f"{where(doc, loc, root)}: {text}")
        raise BoardError(problems) from None


def _has_deeper_error(loc: tuple[int | str, ...], errors: Sequence[Any]) -> bool:
    return any(len(e["loc"]) > len(loc) and e["loc"][: len(loc)] == loc for e in errors)


def _data_path(doc: Any, loc: Sequence[int | str]) -> list[int | str]:
    """The parts of a pydantic location that exist in the document.

    Union and literal branches add type names to a location ("int", "Cell", "literal[...]");
    walking the document keeps only the keys and indices the player actually wrote.
    """
    path: list[int | str] = []
    node = doc
    for part in loc:
        in_object = isinstance(node, Mapping) and isinstance(part, str) and part in node
        in_list = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if in_object or in_list:
            node = node[part]
            path.append(part)
    return path


def game_of(doc: Any) -> str:
    """The ``game`` key of a board file, checked before anything else."""
    if not isinstance(doc, Mapping):
        raise BoardError(["a board file is a JSON object with 'game', 'options' and 'players'"])
    game = doc.get("game")
    if game is None:
        raise BoardError(["board file: missing 'game' (one of the supported game names)"])
    if not isinstance(game, str):
        raise BoardError(
            [
                "board file: 'game' is a game's name in quotes (a text), not a number"
                if isinstance(game, int | float) and not isinstance(game, bool)
                else "board file: 'game' is a game's name in quotes (a text)"
            ]
        )
    return game


def readable_name(name: str) -> bool:
    """A name a player can read back: some visible character and no control character (a
    NUL, a tab, a line break: PostgreSQL text cannot even hold a NUL)."""
    visible = any(ch.isprintable() and not ch.isspace() for ch in name)
    return visible and not any(unicodedata.category(ch) == "Cc" for ch in name)


def unique_names(names: Sequence[str]) -> list[str]:
    """Problems for empty or repeated player names (formats.md: unique, non-empty)."""
    problems = []
    seen: set[str] = set()
    for i, name in enumerate(names):
        if not name.strip():
            problems.append(f"player #{i + 1}: the name is empty")
        elif name in seen:
            problems.append(f"player {name!r}: two players have this name; names must be unique")
        seen.add(name)
    return problems
