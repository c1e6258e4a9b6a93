"""The compiled MCTS loop (a closure over the game's kernels) is loaded from numba's disk cache in a new
process instead of being compiled again before the bot's first move."""
import json
import subprocess
import sys

FIRST_MOVE = """
import json
from plyground.registry import get_registry
from plyground.protocols import Budget
from plyground.players.search.uct_compiled import compiled_search
game = get_registry().make_game("checkers")
get_registry().make_player("mcts:simulations=50", game).choose_move(game.new_initial_state(), Budget())
loop = compiled_search(game.kernels())
print(json.dumps({"hits": len(loop.stats.cache_hits), "misses": len(loop.stats.cache_misses)}))
"""


def _first_move_in_a_new_process() -> dict:
    done = subprocess.run([sys.executable, "-c", FIRST_MOVE], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_second_process_loads_the_loop_instead_of_compiling_it():
    _first_move_in_a_new_process()              # compiles (and caches) the loop if no earlier run did
    second = _first_move_in_a_new_process()
    assert second == {"hits": 1, "misses": 0}
