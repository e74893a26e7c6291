"""``python -m scorepad`` is the ``scorepad`` command."""

import sys

from scorepad.cli import main

sys.exit(main())
