"""Whole turns: a Harmonies board holds a multiple of 3 tokens (the rulebook's compulsory
action takes a set of 3 tokens and places each of them).

The hexes are read one by one, each with a probability for every legal stack
(``harmonies_stacks.stack_probabilities``). Where heights hardly show (a photo from
straight above) the most probable stack of each hex can add up to a count no number of
turns gives; the board as a whole then says that one of the unsure heights is off. Taking
the hexes as independent, the count's remainder modulo 3 is a three-state chain along the
hexes, and each hex's probability of each stack given a whole number of turns comes from
one pass forward and one back along them.

Each hex then takes its most probable stack given that, rather than the hexes of the single
most probable whole board, which read fewer hexes right on VALIDATION photos
(docs/vision-boards.md, Harmonies step 8).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scorepad.games.harmonies import TOKENS_PER_TURN

Stack = tuple[str, ...]
#: Remainders of the token count modulo a turn's tokens.
_R = TOKENS_PER_TURN


def _by_remainder(options: Sequence[dict[Stack, float]]) -> np.ndarray:
    """(hexes, remainders): each hex's probability of adding that many tokens mod 3."""
    out = np.zeros((len(options), _R))
    for i, probs in enumerate(options):
        for stack, p in probs.items():
            out[i, len(stack) % _R] += p
    return out


def _shift(v: np.ndarray, k: int) -> np.ndarray:
    """``v`` moved up by ``k`` remainders: entry ``r`` of the result is ``v[(r - k) % 3]``."""
    return np.roll(v, k % _R)


def marginals(options: Sequence[dict[Stack, float]]) -> list[dict[Stack, float]] | None:
    """Each hex's probability of each of its stacks given that the board's token count is
    a multiple of 3 (``options``: each hex's probabilities of its stacks, summing to 1);
    ``None`` when no whole board has any probability."""
    n = len(options)
    mass = _by_remainder(options)
    forward = np.zeros((n + 1, _R))  # P(the hexes before i add up to remainder r), scaled
    forward[0, 0] = 1.0
    for i in range(n):
        row = sum(_shift(forward[i], k) * mass[i, k] for k in range(_R))
        forward[i + 1] = row / (row.sum() or 1.0)
    if forward[n, 0] <= 0:
        return None
    backward = np.zeros((n + 1, _R))  # P(the hexes from i on make remainder r whole)
    backward[n, 0] = 1.0
    for i in range(n - 1, -1, -1):
        row = sum(_shift(backward[i + 1], -k) * mass[i, k] for k in range(_R))
        backward[i] = row / (row.sum() or 1.0)
    out = []
    for i, probs in enumerate(options):
        joint = {
            s: q * float(forward[i] @ _shift(backward[i + 1], -len(s))) for s, q in probs.items()
        }
        total = sum(joint.values()) or 1.0
        out.append({s: v / total for s, v in joint.items()})
    return out


def most_probable(options: Sequence[dict[Stack, float]]) -> tuple[list[Stack], list[float]]:
    """Each hex's most probable stack, and its probability."""
    stacks = [max(probs, key=lambda s: probs[s]) for probs in options]
    return stacks, [probs[s] for probs, s in zip(options, stacks, strict=True)]


def whole_turns(options: Sequence[dict[Stack, float]]) -> tuple[list[Stack], list[float]]:
    """Each hex's most probable stack given that the board holds a multiple of 3 tokens,
    with that probability (``marginals``): the answer that gets the most hexes right, which
    may itself add up to a count no number of turns gives (the engine then warns). Boards
    the readings cannot make whole come back as read."""
    return most_probable(marginals(options) or options)
