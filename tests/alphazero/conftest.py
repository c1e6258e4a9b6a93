import sys
from pathlib import Path

from blas_threads import one_blas_thread  # noqa: F401 - an autouse fixture

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "mcts"))    # mcts_testgames: DoubleTake, PerfectTicTacToe
