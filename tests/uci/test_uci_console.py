"""A person against Stockfish in the console: `plyground play` with the moves typed through stdin."""
from __future__ import annotations

import random

import pytest

from chess_helpers import needs_stockfish
from plyground.cli import main
from plyground.games.chess.pgn import read_records
from plyground.plugins.console.renderer import ConsoleRenderer

OPPONENT = "stockfish:skill=0,depth=1,threads=1,hash=16"


class ScriptedPerson:
    """Stands in for sys.stdin: types the script, then a random legal move (SAN or UCI) each turn."""

    def __init__(self, script, seed=0, then="play"):
        self.script, self.rng, self.then = list(script), random.Random(seed), then
        self.state = None
        self.typed = []

    def readline(self):
        if self.script:
            line = self.script.pop(0)
        elif self.then == "play" and self.state is not None:
            move = self.rng.choice(self.state.legal_moves())
            line = self.state.move_to_text(move) if self.rng.random() < 0.7 else move.uci()
        else:
            line = ""                    # end of input: the console quits
        self.typed.append(line)
        return line + "\n" if line else ""


@pytest.fixture
def person(monkeypatch, registry):
    made = {}

    def make(script, seed=0, then="play"):
        made["person"] = ScriptedPerson(script, seed, then)
        monkeypatch.setattr("sys.stdin", made["person"])
        return made["person"]

    original = ConsoleRenderer.ask_move

    def ask_move(self, state):
        made["person"].state = state     # the person sees the board
        return original(self, state)

    monkeypatch.setattr(ConsoleRenderer, "ask_move", ask_move)
    return make


def run(argv):
    try:
        main(argv)
    except SystemExit as exc:
        assert exc.code in (0, None), exc.code


@needs_stockfish
def test_a_full_console_game_against_stockfish(person, capsys, tmp_path):
    person(["help", "moves", "e5", "e2e5", "e4", "board"], seed=7)
    save = tmp_path / "me-vs-stockfish.pgn"
    # --black names the first player: in chess that is White.
    run(["play", "--game", "chess", "--white", "human", "--black", OPPONENT, "--seed", "1", "--save", str(save)])
    out = capsys.readouterr().out
    assert "New game of chess — White: human, Black: " + OPPONENT in out
    assert "Rules:\nChess under FIDE rules." in out
    assert "Legal moves (20): " in out
    assert "e5 is not legal here: a pawn moves one square forward" in out
    assert "e2e5 is not legal here: a pawn moves one square forward" in out
    assert "    a  b  c  d  e  f  g  h" in out and " 8  r  n  b  q  k  b  n  r  8" in out
    assert "Last move: 1.e4" in out and f"{OPPONENT} is thinking..." in out
    assert "Game over: " in out
    record = read_records(save)[0]
    assert record.finished and record.players == ("human", OPPONENT)
    assert record.moves[0] == "e4" and len(record.moves) > 4
    assert record.reason in ("checkmate", "stalemate", "threefold repetition", "insufficient material",
                             "50-move rule")
    if record.reason == "checkmate":
        assert "Game over: Black (" + OPPONENT + ") wins — checkmate" in out or "White (human) wins" in out


@needs_stockfish
def test_resigning_and_quitting_against_stockfish(person, capsys, tmp_path):
    person(["e4", "Nf3", "resign"], then="stop")
    save = tmp_path / "resigned.pgn"
    run(["play", "--game", "chess", "--white", "human", "--black", OPPONENT, "--save", str(save)])
    out = capsys.readouterr().out
    assert "Game over: Black (" + OPPONENT + ") wins — White resigned (0-1, 4 plies)" in out
    record = read_records(save)[0]
    assert record.result_text == "0-1" and record.reason == "White resigned" and record.moves[::2] == ["e4", "Nf3"]

    person(["undo", "e4", "undo", "d4", "quit"], then="stop")
    run(["play", "--game", "chess", "--white", "human", "--black", OPPONENT])
    out = capsys.readouterr().out
    assert "nothing to take back yet" in out
    assert "Game not finished: White quit" in out and "Last move: 1.d4" in out
