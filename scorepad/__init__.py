"""Scorepad: exact end-of-game scoring for paper and board games, with the evidence.

The package root and ``scorepad.games`` form the pure rules core: no web framework, no
vision library. ``scorepad.web`` and ``scorepad.vision`` build on it, never the reverse.
"""

__version__ = "0.1.0"
