import random

import pytest

from plyground.games.checkers import CheckersGame
from plyground.learning.movekeys import GameSample

@pytest.fixture(scope="session")
def checkers():
    return CheckersGame(repetitions=0, no_progress_plies=0)


@pytest.fixture(scope="session")
def random_games(checkers):
    """Ten random games (captures, multi-jumps, crownings, king moves), as expert games."""
    rng = random.Random(11)
    games = []
    for g in range(10):
        state = checkers.new_initial_state()
        start, moves = state.clone(), []
        while not state.is_terminal() and len(moves) < 160:
            move = rng.choice(state.legal_moves())
            moves.append(move)
            state.apply(move)
        games.append(GameSample(start, moves, f"random {g}"))
    return games


@pytest.fixture(scope="session")
def acf_slice(acf_pdn):
    """The first 400 games of the ACF archive as PDN text (../shared/data's copy, else the one checkers ships)."""
    text = acf_pdn.read_text(encoding="utf-8", errors="replace")
    blocks = text.split("[Event ")
    return "".join("[Event " + b for b in blocks[1:401])
