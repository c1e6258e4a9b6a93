"""The endgame positions a network's value and a player's moves are scored on (the SolvedPositions ability).

``positions.txt`` beside this module holds 1,000 positions with at most five
pieces, not finished and with more than one legal move: 500 sampled from the
distinct ones of the ACF archive's games and 500 from ``alphabeta`` depth-4
self-play from the 216 three-move ballots (the positions of
``benchmarks/endgame_oracle.py --pieces 5 --positions 500``, docs/endgame.md
"The oracle benchmark").  Their labels are not stored: the endgame database
gives them when a set is asked for, so a set needs the database of its size.

Sets: ``endgame`` (every position; the 5-piece database) and ``endgame-N`` for
N from 2 to 5 (the positions with at most N pieces; the N-piece database, built
on first use up to 4 pieces).  Classes are the exact result for the side to
move: ``won``, ``drawn``, ``lost``; a move is a mistake when it throws the result
away (a lost position has none).

Make the file again (about two minutes) with::

    python -m plyground.games.checkers.endgame.positions
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from plyground.capabilities import SolvedPosition, endgame_oracle
from plyground.errors import ModelFileError, UsageError
from plyground.files.storage import write_bytes

from ..game import CheckersGame
from ..kernels import state_to_pos
from ..notation import format_fen

POSITIONS_FILE = Path(__file__).with_name("positions.txt")
#: The largest positions of the file, in pieces.
MOST_PIECES = 5
#: The set names, as the game declares them (``endgame``, then ``endgame-N``; its SolvedPositions ability).
SETS = CheckersGame.solved_position_sets
_CLASS_OF = {"win": "won", "draw": "drawn", "loss": "lost"}
_VALUE_OF = {"win": 1.0, "draw": 0.0, "loss": -1.0}


def _position_text(state) -> str:
    """The position alone, as PDN FEN (no move counters): one entry however many moves led to it."""
    return format_fen(state_to_pos(state))


def worth_asking(state, pieces: int) -> bool:
    """Not finished, more than one legal move, at most ``pieces`` pieces."""
    from .oracle import pieces_on_board
    return not state.is_terminal() and len(state.legal_moves()) > 1 and pieces_on_board(state) <= pieces


def acf_positions(game, path: Path, pieces: int, games: int) -> list[str]:
    """Distinct positions (FEN) with at most ``pieces`` pieces reached in the first ``games`` archive games."""
    from plyground.games.checkers.pdn import read_pdn
    seen = {}
    for n, record_game in enumerate(read_pdn(path, strict=False)):
        if n >= games:
            break
        record = record_game.to_record()
        state = game.new_state(record.start) if record.start else game.new_initial_state()
        for text in record.moves:
            try:
                state.apply(state.parse_move(text))
            except Exception:  # noqa: BLE001 - a record our rules refuse: its later positions are not used
                break
            if worth_asking(state, pieces):
                seen.setdefault(_position_text(state), None)
    return list(seen)


def selfplay_positions(game, pieces: int, seed: int, games: int) -> list[str]:
    """Distinct positions (FEN) with at most ``pieces`` pieces in alphabeta-4 self-play from the ballots."""
    from plyground.registry import get_registry
    from plyground.tournament.openings import all_openings, start_state
    player = get_registry().make_player("alphabeta:eval=learned,depth=4,endgame=off,contempt=0", game)
    openings = all_openings(game, 3)
    rng = np.random.default_rng(seed)
    seen = {}
    for k in rng.permutation(len(openings))[:games]:
        state = start_state(game, openings[k])
        player.reset()
        while not state.is_terminal():
            state.apply(player.choose_move(state))
            if worth_asking(state, pieces):
                seen.setdefault(_position_text(state), None)
    return list(seen)


def sample_positions(game, pieces: int = MOST_PIECES, per_source: int = 500, seed: int = 0,
                     acf: str = "acf", acf_games: int = 9377, selfplay_games: int = 216,
                     log=lambda line: None, rng: np.random.Generator | None = None) -> dict[str, list[str]]:
    """``per_source`` positions (FEN) of each source (``acf``, ``selfplay``), each source's sample in the order
    its positions were first reached; the same seed gives the same sample (``rng``: draw it from this
    generator instead of a new one of ``seed``)."""
    from plyground.files.bundled_data import records_file
    rng = np.random.default_rng(seed) if rng is None else rng
    sources = {"acf": acf_positions(game, records_file(game, acf, "--acf"), pieces, acf_games),
               "selfplay": selfplay_positions(game, pieces, seed, selfplay_games)}
    for name, found in sources.items():
        chosen = rng.permutation(len(found))[:per_source]
        sources[name] = [found[i] for i in sorted(chosen)]
        log(f"{name}: {len(found):,} distinct positions with <= {pieces} pieces, {len(sources[name])} sampled")
    return sources


def read_positions(path: Path = POSITIONS_FILE) -> list[tuple[str, str]]:
    """(source, FEN) of every position in the file, in order."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ModelFileError(f"{path} is unreadable ({exc}); make it again with "
                             "python -m plyground.games.checkers.endgame.positions") from None
    rows = []
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        source, _, fen = line.partition("\t")
        if not fen:
            raise ModelFileError(f"{path}, line {number}: expected 'source<TAB>FEN', found {line!r}")
        rows.append((source, fen))
    return rows


def pieces_of_set(name: str) -> int:
    """The most pieces of set ``name``'s positions (UsageError naming the sets for an unknown name)."""
    if name not in SETS:
        raise UsageError(f"unknown set of checkers endgame positions {name!r}; valid sets: {', '.join(SETS)}")
    return MOST_PIECES if name == "endgame" else int(name.rsplit("-", 1)[1])


def solved(game, name: str) -> list[SolvedPosition]:
    """Set ``name``'s positions, labelled by the endgame database of its size: class and value are the exact
    result for the side to move, ``best`` the moves that keep it."""
    from .oracle import pieces_on_board
    pieces = pieces_of_set(name)
    oracle = endgame_oracle(game, pieces)
    out = []
    for source, fen in read_positions():
        state = game.new_state(fen)
        if pieces_on_board(state) > pieces:
            continue
        truth, _ = oracle.result(state)
        best = frozenset(m for m in state.legal_moves() if oracle.move_result(state, m)[0] == truth)
        out.append(SolvedPosition(_CLASS_OF[truth], state, best, f"{source} {fen}", _VALUE_OF[truth]))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Sample the endgame positions file again (" + str(POSITIONS_FILE) + ").")
    parser.add_argument("--per-source", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=POSITIONS_FILE)
    args = parser.parse_args(argv)
    from plyground.games.checkers import CheckersGame
    sources = sample_positions(CheckersGame(), MOST_PIECES, args.per_source, args.seed,
                               log=lambda line: print(line, file=sys.stderr))
    head = (f"# checkers positions with at most {MOST_PIECES} pieces: {args.per_source} of the ACF archive's, "
            f"{args.per_source} of alphabeta depth-4 self-play (seed {args.seed});\n"
            "# made by python -m plyground.games.checkers.endgame.positions; labelled by the endgame database\n")
    write_bytes(args.out, (head + "".join(f"{name}\t{fen}\n" for name, fens in sources.items() for fen in fens)).encode("utf-8"))
    print(f"{sum(map(len, sources.values()))} positions written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
