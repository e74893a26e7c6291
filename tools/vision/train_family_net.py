"""Train the family network of the sunflower / super sunflower split (issue 7).

    nice -n 10 python tools/vision/train_family_net.py [--train 8000] [--epochs 8]

Needs the ``train`` extra (JAX, CPU only), as ``train_inknet.py``. The split's hardest
sheets are those of players who mark a super sunflower by a star drawn over the flower:
in a blurred photo the star hides among looped petals, and the hand-made features of the
second stage (ink by ring, stroke direction, the star fit) separate such hexes poorly. A
convolutional network of the ink-map network's shape reads each sunflower-like hex's ink
map beside its sheet's typical one (``cells.family_maps``: the median map, the player's
plain sunflower), with ``cells.family_features`` as side inputs, and learns super or not
on the TRAIN sheets' sunflower-like hexes. Its P(super) becomes the split's third opinion
(``recognize.split_features``); the split, trust and flag threshold are then fitted again
on VALIDATION photos with it in place, as ``train.py --calibrate-only`` does.
The TEST range is never touched.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import train as base
import train_inknet as inknet

from scorepad.vision import model as symbols


def train_family_net(
    tr: dict[str, np.ndarray], va: dict[str, np.ndarray], epochs: int, seed: int
) -> symbols.InkNet:
    """The network on the TRAIN sheets' sunflower-like hexes (grouped by the truth), scored
    each epoch on the VALIDATION ones."""
    x_va, y_va, maps_va = base.family_rows(va, with_maps=True)

    def accuracy(net: symbols.InkNet) -> float:
        return float((net.forward(maps_va, x_va).argmax(axis=1) == y_va).mean())

    x_tr, y_tr, maps_tr = base.family_rows(tr, with_maps=True)
    assert maps_tr is not None
    print(f"family rows: {len(y_tr)} train ({int(y_tr.sum())} super), {len(y_va)} validation")
    return inknet.fit_net(maps_tr, x_tr, y_tr.astype(np.int32), 2, epochs, seed, accuracy)


def main() -> None:
    # 8000 TRAIN photos: the network alone split the sunflower-like hexes of VALIDATION
    # photos 0-199 91.7 / 93.8 / 94.6 / 94.7 % right when trained on 500 / 1500 / 4000 /
    # 8000 (the second stage's perceptron: 93.3 %); with it, the whole symbol step read
    # 99.01 -> 99.06 (4000) -> 99.14 % (8000) of the hexes of photos 200-599 right.
    model, va, args = inknet.train_part(__doc__, 8000, train_family_net, "family_net")
    base.calibrate_and_save(model, va, args.validation, args.megapixels)


if __name__ == "__main__":
    main()
