import sys
from pathlib import Path

# Test helpers (tests/sheets.py) import as plain modules.
sys.path.insert(0, str(Path(__file__).parent))
