"""English wording shared by the engines' messages and the shared results text."""

from __future__ import annotations


def counted(n: int, one: str, many: str) -> str:
    """A count with its noun phrase in the count's form: "1 cube", "0 cubes", "2 cubes"
    (the messages once said "1 cube(s)" and "with 1 points"). The web app translates the
    whole sentence by its English forms (``web/vocab.py``)."""
    return f"{n} {one if n == 1 else many}"
