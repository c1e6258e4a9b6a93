"""Where Stockfish is, and the skip mark for tests that need it (a uniquely named module:
``from conftest import ...`` would pick whichever test folder's conftest was imported first)."""
import shutil

import pytest

STOCKFISH = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")
needs_stockfish = pytest.mark.skipif(STOCKFISH is None, reason="Stockfish is not installed (apt-get install stockfish)")
