"""Deep Pepper's pretraining positions come from a record file read game by game through the game's
record-streams capability (the trainer imports no game: issue #75 point 4)."""
from __future__ import annotations

import pytest

from plyground.errors import UsageError
from plyground.plugins.trainers.expert_iteration.pretrain import record_positions
from plyground.registry import get_registry


def test_every_position_before_each_games_end_and_unreadable_games_skipped_with_a_line(tmp_path):
    path = tmp_path / "games.pgn"
    path.write_text('[Event "a"]\n\n1. e4 e5 2. Nf3 *\n\n[Event "b"]\n\n1. e4 e5 2. Ke3 *\n\n'
                    '[Event "c"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n')
    game = get_registry().make_game("chess:encoding=deep_pepper")
    lines = []
    positions = [state.to_text().split()[0] for state in record_positions(game, path, lines.append)]
    assert len(positions) == 3 + 4 and positions[0] == positions[3] == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    assert lines == [f"pretraining: skipped an unreadable game: {path}: game 2, line 7: move 2. Ke3 (White) is not "
                     f"legal in rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"]


def test_a_game_that_cannot_stream_its_records_is_refused_in_one_line(tmp_path):
    path = tmp_path / "games.txt"
    path.write_text("x\n")
    with pytest.raises(UsageError, match=r"^pretrain_pgn .*games.txt: tictactoe cannot read its record files game by "
                                         r"game; give no pretrain_pgn to pretrain on Stockfish self-play$"):
        next(record_positions(get_registry().make_game("tictactoe"), path))
