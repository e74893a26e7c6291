"""Harmonies cards: the 32 animal cards (package data) and the 10 spirit cards (33–42).

The animal catalogue is ``scorepad/data/harmonies-animal-cards.csv``, converted from
``shared/rules/harmonies-animal-cards.csv`` with the compass names of its ``pattern_walk``
replaced by our direction indices (flat-top SE, NE, N, NW, SW, S = 0..5, see
:data:`scorepad.hexgrid.FLAT_NAMES`). A pattern is written as a walk: the first stack code,
then ``CODE@d`` for each next stack, ``d`` being the side of the previous hex it lies across;
``*`` marks the hex that takes the cube. Stack codes (rules digest, "Animal cards"):

* ``T1``–``T3``: a tree of that height (green on 0–2 brown);
* ``M1``–``M3``: a mountain of that height (1–3 grey);
* ``B``: a building (red on any one token);
* ``W``: water (blue); ``F``: a field (yellow).

A pattern may be matched in any of its 6 rotations (not mirrored): :attr:`AnimalCard.rotations`
holds each distinct rotation as offsets from the cube hex.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import cast

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

from scorepad.hexgrid import ORIGIN, Hex, neighbor, rotate

STACK_CODES = ("T1", "T2", "T3", "M1", "M2", "M3", "B", "W", "F")

_STEP = re.compile(r"(?P<code>[A-Z]\d?)(?:@(?P<side>[0-5]))?(?P<cube>\*?)")


@dataclass(frozen=True)
class PatternHex:
    """One hex of an animal pattern: its stack code and where it lies from the cube hex."""

    offset: Hex
    code: str


@dataclass(frozen=True)
class AnimalCard:
    """An animal card: the points for 1, 2, ... cubes and the habitat that takes a cube."""

    id: int
    names: tuple[str, ...]
    track: tuple[int, ...]
    shape: str
    #: The walk as printed in the package data (our direction indices).
    walk: str
    #: Stack code of the hex that takes the cube.
    cube_code: str
    #: Every distinct rotation of the other hexes, as offsets from the cube hex.
    rotations: tuple[tuple[PatternHex, ...], ...]

    def points(self, cubes: int) -> int:
        """Rules digest: with k cubes placed, the k-th value of the track (0 if none)."""
        return self.track[cubes - 1] if cubes > 0 else 0


def parse_walk(walk: str) -> tuple[str, tuple[PatternHex, ...]]:
    """Read ``"T3 → W@0 → W@0*"`` into the cube's code and the other hexes (unrotated).

    Raises ValueError for a walk that is not exactly one cube hex on distinct hexes.
    """
    position = ORIGIN
    cells: list[tuple[Hex, str]] = []
    cube: tuple[Hex, str] | None = None
    for n, part in enumerate(p.strip() for p in walk.split("→")):
        m = _STEP.fullmatch(part)
        if not m or m["code"] not in STACK_CODES or (m["side"] is None) != (n == 0):
            raise ValueError(f"bad pattern step {part!r} in {walk!r}")
        if m["side"] is not None:
            position = neighbor(position, int(m["side"]))
        if any(position == h for h, _ in cells) or (cube and cube[0] == position):
            raise ValueError(f"pattern {walk!r} visits a hex twice")
        if m["cube"]:
            if cube is not None:
                raise ValueError(f"pattern {walk!r} marks two cube hexes")
            cube = (position, m["code"])
        else:
            cells.append((position, m["code"]))
    if cube is None:
        raise ValueError(f"pattern {walk!r} marks no cube hex")
    origin = cube[0]
    others = tuple(PatternHex(Hex(h.q - origin.q, h.r - origin.r), c) for h, c in cells)
    return cube[1], others


def rotations_of(others: tuple[PatternHex, ...]) -> tuple[tuple[PatternHex, ...], ...]:
    """The 6 rotations about the cube hex, without repeats (a symmetric pattern has fewer)."""
    seen: set[frozenset[PatternHex]] = set()
    result = []
    for k in range(6):
        turned = tuple(PatternHex(rotate(p.offset, k), p.code) for p in others)
        if frozenset(turned) not in seen:
            seen.add(frozenset(turned))
            result.append(turned)
    return tuple(result)


def read_catalogue(text: str) -> dict[int, AnimalCard]:
    """Parse the package CSV (``id,names_seen,track,shape,pattern``) into cards by id."""
    cards: dict[int, AnimalCard] = {}
    for row in csv.DictReader(io.StringIO(text)):
        cube_code, others = parse_walk(row["pattern"])
        card = AnimalCard(
            id=int(row["id"]),
            names=tuple(n.strip() for n in row["names_seen"].split(";")),
            track=tuple(int(v) for v in row["track"].split()),
            shape=row["shape"],
            walk=row["pattern"],
            cube_code=cube_code,
            rotations=rotations_of(others),
        )
        cards[card.id] = card
    return cards


def _load() -> dict[int, AnimalCard]:
    path = resources.files("scorepad").joinpath("data", "harmonies-animal-cards.csv")
    return read_catalogue(path.read_text(encoding="utf-8"))


#: The 32 animal cards by id (rules digest: the id and the point track identify a card).
ANIMAL_CARDS: dict[int, AnimalCard] = _load()

#: Spirit cards 33–42, as the rules digest reads them (effects as on Board Game Arena).
SPIRIT_CARDS: dict[int, str] = {
    33: "10 per field group (yellow) of 3 or more hexes, else 2 per group",
    34: "5 per field group (yellow), single hexes included",
    35: "4 per tree of height 2 or 3",
    36: "3 per tree of height 1 or 2, 1 per tree of height 3",
    37: "4 per connected group of buildings",
    38: "6 per group of 2 or more connected buildings",
    39: "4 per mountain of height 2 or 3, alone or not",
    40: "3 per mountain of height 1 or 2, 1 per mountain of height 3, alone or not",
    41: "7 per water group (blue) of 2 or more hexes",
    42: "2 per water hex (blue)",
}


# --- stacks as pattern codes -----------------------------------------------------------------

#: The pattern code of every stack that has one; trunks, a lone red and empty hexes have none.
STACK_CODE: dict[tuple[str, ...], str] = {
    ("green",): "T1",
    ("brown", "green"): "T2",
    ("brown", "brown", "green"): "T3",
    ("grey",): "M1",
    ("grey", "grey"): "M2",
    ("grey", "grey", "grey"): "M3",
    ("brown", "red"): "B",
    ("grey", "red"): "B",
    ("red", "red"): "B",
    ("blue",): "W",
    ("yellow",): "F",
}


def matching_hexes(
    codes: Mapping[Hex, str | None],
    card: AnimalCard,
    candidates: Iterable[Hex] | None = None,
    had: Mapping[Hex, frozenset[str]] | None = None,
) -> list[Hex]:
    """Hexes where ``card``'s pattern is matched, in some rotation, with its cube hex there.

    ``codes`` gives the pattern code of each board hex (see :data:`STACK_CODE`);
    ``candidates``, if given, are the hexes whose code is the card's cube code. The other
    hexes of a pattern may carry cubes of their own: only the cube hex itself is the card's.
    With ``had`` (:func:`codes_on_the_way`), the pattern's other hexes match any code their
    stack had on its way up: the pattern had to be there when the cube was placed, and
    only the cube's own hex takes no token after that (rulebook: "Заборонено класти
    жетон на місця, зайняті фішками тварин"), so a mountain of the pattern may have grown
    or become a building since.
    """
    if candidates is None:
        candidates = [h for h, c in codes.items() if c == card.cube_code]
    exact = cast(Mapping[tuple[int, int], str | None], codes)
    earlier = cast(Mapping[tuple[int, int], frozenset[str]], had) if had is not None else None
    found = []
    for h in candidates:
        q, r = h
        for rotation in _FLAT[card.id]:
            for dq, dr, code in rotation:
                # Plain (q, r) tuples find the same entries as Hex keys (Hex is a NamedTuple).
                if earlier is None:
                    if exact.get((q + dq, r + dr)) != code:
                        break
                elif code not in earlier.get((q + dq, r + dr), _NOTHING):
                    break
            else:
                found.append(h)
                break
    return sorted(found)


_NOTHING: frozenset[str] = frozenset()


@cache  # a few legal stacks, asked for every hex of every board with animal cards
def codes_on_the_way(stack: tuple[str, ...]) -> frozenset[str]:
    """The pattern codes a stack had as it was built, bottom token first: every code of a
    prefix of it (a grey-grey-grey mountain was M1 and M2 before M3; a grey-red building
    was M1)."""
    return frozenset(
        code for n in range(1, len(stack) + 1) if (code := STACK_CODE.get(stack[:n])) is not None
    )


#: Each card's rotations as plain (dq, dr, code) triples: the inner loop of the pattern check.
_FLAT: dict[int, tuple[tuple[tuple[int, int, str], ...], ...]] = {
    card.id: tuple(tuple((p.offset.q, p.offset.r, p.code) for p in rot) for rot in card.rotations)
    for card in ANIMAL_CARDS.values()
}


# --- claimed cubes against the board ---------------------------------------------------------


@dataclass(frozen=True)
class Shortfall:
    """Cards whose claims together need more cube hexes than match their patterns."""

    cards: tuple[int, ...]
    claimed: int
    hexes: tuple[Hex, ...]


@dataclass(frozen=True)
class CubeAssignment:
    """One largest assignment of claimed cubes to cube hexes, and what it could not place."""

    assigned: dict[int, list[Hex]]
    shortfalls: tuple[Shortfall, ...]


def assign_cubes(
    claims: Sequence[tuple[int, int]],
    matching: Mapping[int, Sequence[Hex]],
    cubes: Iterable[Hex],
) -> CubeAssignment:
    """Give every claimed cube its own cube hex where its card's pattern matches.

    ``claims`` are ``(card, cubes)`` pairs, ``matching`` each card's matching hexes. This is a
    bipartite matching (claimed cubes × cube hexes), solved with scipy's maximum matching so
    that the answer does not depend on the order of the cards. Cubes left over are explained
    by a Hall witness: the cards reachable from an unplaced cube along alternating paths claim
    more cubes than the cube hexes their patterns reach (the same cards for every maximum
    matching), reported as :class:`Shortfall` groups.

    When no cube hex matches two different cards, the cards do not compete and each simply
    takes its own hexes: the same answer, without building a sparse matrix.
    """
    slots = [card for card, n in claims for _ in range(n)]
    hexes = sorted(cubes)
    column = {h: j for j, h in enumerate(hexes)}
    wanted = {card: [column[h] for h in matching[card] if h in column] for card, _ in claims}
    edges = [wanted[card] for card in slots]
    match = _maximum_matching(edges, len(hexes)) if _compete(wanted) else _own_hexes(slots, wanted)
    assigned: dict[int, list[Hex]] = {card: [] for card, _ in claims}
    for card, j in zip(slots, match, strict=True):
        if j >= 0:
            assigned[card].append(hexes[j])
    for placed in assigned.values():
        placed.sort()
    shortfalls = _shortfalls(slots, edges, match, hexes)
    return CubeAssignment(assigned, shortfalls)


def _compete(wanted: Mapping[int, list[int]]) -> bool:
    """Whether some cube hex matches the patterns of two different cards."""
    seen: set[int] = set()
    for cols in wanted.values():
        if not seen.isdisjoint(cols):
            return True
        seen.update(cols)
    return False


def _own_hexes(slots: list[int], wanted: Mapping[int, list[int]]) -> list[int]:
    """Cards that share no cube hex: each claimed cube takes the card's next matching hex."""
    used = Counter[int]()
    match = []
    for card in slots:
        cols = wanted[card]
        match.append(cols[used[card]] if used[card] < len(cols) else -1)
        used[card] += 1
    return match


def _maximum_matching(edges: list[list[int]], columns: int) -> list[int]:
    """For each row, the column it is matched to (or -1), via scipy's Hopcroft–Karp."""
    if not columns or not any(edges):
        return [-1] * len(edges)
    indptr = np.zeros(len(edges) + 1, dtype=np.int32)
    np.cumsum([len(cols) for cols in edges], out=indptr[1:])
    indices = np.fromiter((j for cols in edges for j in cols), dtype=np.int32)
    graph = csr_matrix(
        (np.ones(len(indices), dtype=np.int8), indices, indptr), shape=(len(edges), columns)
    )
    result: list[int] = maximum_bipartite_matching(graph, perm_type="column").tolist()
    return result


def _shortfalls(
    slots: list[int], edges: list[list[int]], match: list[int], hexes: list[Hex]
) -> tuple[Shortfall, ...]:
    """Group the unplaced cubes by the cards and cube hexes they compete for."""
    owner = {j: i for i, j in enumerate(match) if j >= 0}
    groups: list[tuple[set[int], set[int]]] = []
    for start in (i for i, j in enumerate(match) if j < 0):
        rows, cols, frontier = {start}, set(), [start]
        while frontier:
            i = frontier.pop()
            for j in edges[i]:
                if j not in cols:
                    cols.add(j)
                    if j in owner and owner[j] not in rows:
                        rows.add(owner[j])
                        frontier.append(owner[j])
        cards = {slots[i] for i in rows}
        for other in [g for g in groups if g[0] & cards or g[1] & cols]:
            groups.remove(other)
            cards |= other[0]
            cols |= other[1]
        groups.append((cards, cols))
    claimed = Counter(slots)
    return tuple(
        Shortfall(
            cards=tuple(sorted(cards)),
            claimed=sum(claimed[c] for c in cards),
            hexes=tuple(sorted(hexes[j] for j in cols)),
        )
        for cards, cols in sorted(groups, key=lambda g: min(g[0]))
    )
