"""The registry of games: each game module describes itself with a :class:`Game`.

A game module is pure rules code: a plain data model, ``parse`` (board-file document →
validated table), ``dump`` (table → document, round-tripping) and ``score`` (table →
:class:`~scorepad.scoring.Result`). Like python-chess's variants, games are looked up by name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import import_module
from types import ModuleType
from typing import Any, cast

from scorepad.boardfile import BoardError, game_of, loads
from scorepad.scoring import Result


@dataclass(frozen=True)
class Game:
    name: str
    title: str
    #: Category keys in scoring-sheet order, with a short human label each.
    categories: Mapping[str, str]
    parse: Callable[[Any], Any]
    dump: Callable[[Any], dict[str, Any]]
    score: Callable[[Any], Result]
    #: Extra lines for the text report (table-wide evidence such as area winners).
    notes: Callable[[Result], list[str]] | None = None
    #: The categories a result shows when they are not ``categories`` (Spring Meadow's solo
    #: game: the values written down, no picnic), for the score table's rows.
    shown: Callable[[Result], Mapping[str, str]] | None = None

    def categories_of(self, result: Result) -> Mapping[str, str]:
        """The category rows of ``result``'s score table, keys with labels."""
        return self.shown(result) if self.shown else self.categories


_MODULES = {
    "sunflower-valley": "scorepad.games.sunflower_valley",
    "harmonies": "scorepad.games.harmonies",
    "spring-meadow": "scorepad.games.spring_meadow",
    "seasons": "scorepad.games.seasons",
}


def optional_import(module: str) -> ModuleType | None:
    """``module``, or None when it is not installed (a module it imports in turn that is
    missing is still an error)."""
    try:
        return import_module(module)
    except ModuleNotFoundError as err:
        if err.name != module:
            raise
        return None


def _engine(name: str) -> Game | None:
    module = _MODULES.get(name)
    found = optional_import(module) if module is not None else None
    return None if found is None else cast(Game, found.GAME)


def available() -> dict[str, Game]:
    """Every game whose engine is installed, by board-file name."""
    return {name: game for name in _MODULES if (game := _engine(name)) is not None}


def get(name: str) -> Game:
    """The game called ``name``, importing only its engine."""
    game = _engine(name)
    if game is None:
        raise BoardError([f"unknown game {name!r}; supported: {', '.join(sorted(_MODULES))}"])
    return game


def parse(doc: Any) -> tuple[Game, Any]:
    """Validate a board-file document of any game."""
    game = get(game_of(doc))
    return game, game.parse(doc)


def score_text(text: str | bytes) -> Result:
    """Read, validate and score a board file."""
    game, table = parse(loads(text))
    return game.score(table)
