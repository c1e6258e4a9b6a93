"""The ``connect-four-perfect`` player: the solver's best move (:mod:`.solver`).

With no options it plays perfectly: the move with the best exact score (the
quickest win, the longest defence).  ``weak`` plays a move that keeps the best
win/draw/loss only; ``depth`` makes it a graded opponent that looks that many
plies ahead.  Early in a game an exact solve can take minutes: past ``nodes``
nodes the player settles for the deepest depth-limited search that fits, and
its analysis says so.
"""
from __future__ import annotations

import random
import time

from plyground.hookspecs import hookimpl
from plyground.options import Option
from plyground.protocols import Player

from .game import COLUMNS, ConnectFour

#: Columns from the centre out: how ties between equally good moves are broken by default.
CENTRE_FIRST = sorted(range(COLUMNS), key=lambda column: (abs(column - COLUMNS // 2), column))


class PerfectPlayer(Player):
    name = "connect-four-perfect"
    description = ("Connect Four solved (Pons's method: alpha-beta over bitboards, compiled): the best move "
                   "by exact score; weak or depth-limited for a graded opponent.")
    options = (
        Option("weak", bool, False, "keep the best win/draw/loss only, not the fastest win (faster)"),
        Option("depth", int, None, "look this many plies ahead and count positions beyond as draws "
               "(a graded opponent; none: solve to the end)", min=1, max=42, optional=True),
        Option("nodes", int, 20_000_000, "the most positions one move may visit, all its searches together "
               "(about 10 s): the solve may use half; when it does not fit, the player plays the deepest "
               "depth-limited search that fits the rest (none: no limit)",
               min=1000, optional=True),
        Option("ties", str, "centre", "among equally good moves: the centre-most, or a random one (seeded)",
               choices=("centre", "random")),
        Option("seed", int, None, "random seed for ties=random (default: the match's seed)", optional=True),
    )

    def __init__(self, game, **options):
        super().__init__(game, **options)
        self.rng = random.Random(options.get("seed"))
        self._analysis = None

    @classmethod
    def unsupported_reason(cls, game):
        if isinstance(game, ConnectFour):
            return None
        return f"it solves Connect Four only, not {game.name}"

    def reset(self, seed=None):
        fixed = self.config.get("seed")
        if fixed is not None or seed is not None:
            self.rng.seed(fixed if fixed is not None else seed)
        self._analysis = None

    def analysis(self):
        return self._analysis

    def choose_move(self, state, budget):
        from .solver import CELLS, shared_solver, winning_moves   # numba loads on the first move, not with plugins

        solver = shared_solver()
        started, visited = time.perf_counter(), solver.visited
        weak, depth, limit = self.config["weak"], self.config["depth"], self.config["nodes"]
        winning = winning_moves(state)
        if winning:                             # no move scores more than a four made now
            discs = sum(cell >= 0 for cell in state.cells)
            scores, reached = {move: 1 if weak else (CELLS + 1 - discs) // 2 for move in winning}, None
        else:
            # The move's node limit holds for all its searches: the solve asked for may use half of it,
            # the depth-limited ones after it (when it does not fit) the rest.
            scores, reached = solver.move_scores(state, weak, depth, None if limit is None else limit // 2), depth
        if scores is None:                      # too deep to solve now: deepen until the limit
            scores, reached = {}, 0
            for tried in range(1, depth if depth else 43):     # shallower than asked, never deeper
                left = None if limit is None else limit - (solver.visited - visited)
                if left is not None and left <= 0:
                    break
                found = solver.move_scores(state, weak, tried, left)
                if found is None:
                    break
                scores, reached = found, tried
            if not scores:                      # not even one ply fits: any move
                scores = {move: 0 for move in state.legal_moves()}
        best = max(scores.values())
        choices = [move for move in CENTRE_FIRST if scores.get(move) == best]
        move = self.rng.choice(choices) if self.config["ties"] == "random" else choices[0]
        self._analysis = {
            "move": state.move_to_text(move),
            "score": _describe(best, weak, reached),
            "why": ["the moves score " + ", ".join(f"{state.move_to_text(m)} {s:+d}" for m, s in
                                                   sorted(scores.items(), key=lambda i: -i[1]))],
            "nodes": solver.visited - visited,
            "seconds": time.perf_counter() - started,
            "depth": reached,
        }
        return move


def _describe(score: int, weak: bool, depth: int | None) -> str:
    if depth is not None:
        return f"{score:+d} at depth {depth} (not proven beyond it)"
    if score == 0:
        return "proven draw"
    result = "win" if score > 0 else "loss"
    return f"proven {result}" if weak else f"proven {result} with disc {22 - abs(score)} (score {score:+d})"


@hookimpl
def register_players():
    return [PerfectPlayer]
