"""``plyground analyse`` on chess judges with Stockfish where it is installed (as ``play``'s default opponent
plays it) and says so, in the summary and the annotated PGN; with Stockfish hidden it falls back to our own
alpha-beta and says why.  Real ``plyground`` processes on short games the tests write; Stockfish's scores
(centipawns, mates) come out from White's side in ``[%eval]``.  Skipped with one line without Stockfish."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import chess.pgn
import pytest

from chess_helpers import STOCKFISH, needs_stockfish
from plyground.players.uci.engine import EXTRA_DIRS

pytestmark = needs_stockfish

# 3... Nf6?? lets 4. Qxf7# mate at once: a blunder whatever judges it, at any depth.
MATE_IN_ONE = """[Event "scholar's mate"]
[White "alice"]
[Black "bob"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0
"""
# 2... Qh4?? leaves the queen to the knight: White is a queen up (centipawns, not a mate).
QUEEN_LEFT = """[Event "queen left"]
[White "alice"]
[Black "bob"]
[Result "1-0"]

1. e4 e5 2. Nf3 Qh4 3. Nxh4 d6 4. f3 Be7 1-0
"""
# 2. g4?? lets Black mate at once: the mate is Black's, so White's [%eval] is #-1.
FOOLS_MATE = """[Event "fool's mate"]
[White "alice"]
[Black "bob"]
[Result "0-1"]

1. f3 e5 2. g4 Qh4# 0-1
"""


def _analyse(path: Path, *args: str, hide_stockfish: bool = False) -> subprocess.CompletedProcess:
    """``plyground analyse PATH ARGS`` in a child process; with ``hide_stockfish``, in a private mount
    namespace where every Stockfish that ``stockfish_path()`` could find (on PATH, in /usr/games) is
    /dev/null, which is no program: Stockfish is not installed there."""
    command = [sys.executable, "-m", "plyground", "analyse", str(path), "--quiet", *args]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLYGROUND_")}
    if hide_stockfish:
        if shutil.which("unshare") is None or subprocess.run(["unshare", "-rm", "true"]).returncode != 0:
            pytest.skip("needs unshare and user namespaces to hide Stockfish from one process")
        folders = os.environ.get("PATH", "").split(os.pathsep) + list(EXTRA_DIRS)
        found = {str(Path(f, "stockfish").resolve()) for f in folders if f and Path(f, "stockfish").is_file()}
        masks = " && ".join(f"mount --bind /dev/null '{program}'" for program in sorted(found))
        command = ["unshare", "-rm", "sh", "-c", f'{masks} && exec "$0" "$@"', *command]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _annotated(path: Path) -> chess.pgn.Game:
    with path.with_name(f"{path.stem}.analysed.pgn").open(encoding="utf-8") as handle:
        return chess.pgn.read_game(handle)


def test_stockfish_judges_chess_by_default_and_the_report_says_so(tmp_path):
    assert STOCKFISH is not None
    path = _write(tmp_path, "mate.pgn", MATE_IN_ONE)
    result = _analyse(path, "--no-graph")
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert "7 plies judged by stockfish (Stockfish" in first, first
    assert "not judged by" not in result.stdout
    assert "3... Nf6??" in result.stdout
    game = _annotated(path)
    assert game.headers["Annotator"].startswith("plyground analyse, stockfish (Stockfish")
    nodes = list(game.mainline())
    assert [node.san() for node in nodes if chess.pgn.NAG_BLUNDER in node.nags] == ["Nf6"]
    assert nodes[5].eval().white().mate() == 1                   # after 3... Nf6: White mates in one


def test_stockfishs_centipawns_and_mates_are_told_from_whites_side(tmp_path):
    queen = _write(tmp_path, "queen.pgn", QUEEN_LEFT)
    fool = _write(tmp_path, "fool.pgn", FOOLS_MATE)
    for path in (queen, fool):
        result = _analyse(path, "--no-graph")
        assert result.returncode == 0, result.stderr
        assert "judged by stockfish (Stockfish" in result.stdout
    nodes = list(_annotated(queen).mainline())
    assert [node.san() for node in nodes if chess.pgn.NAG_BLUNDER in node.nags] == ["Qh4"]
    assert nodes[3].eval().white().score() > 400                 # White is a queen up for nothing
    assert nodes[4].eval().white().score() > 400                 # and still is after taking it
    assert abs(nodes[0].eval().white().score()) < 100            # 1. e4: about even
    nodes = list(_annotated(fool).mainline())
    assert [node.san() for node in nodes if chess.pgn.NAG_BLUNDER in node.nags] == ["g4"]
    assert nodes[2].eval().white().mate() == -1                  # after 2. g4: Black mates in one


def test_without_stockfish_our_alphabeta_judges_and_the_report_says_why(tmp_path):
    path = _write(tmp_path, "mate.pgn", MATE_IN_ONE)
    result = _analyse(path, hide_stockfish=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "7 plies judged by alphabeta:contempt=0 (" in lines[0], lines[0]
    assert lines[1].startswith("not judged by stockfish: Stockfish is not installed"), lines[1]
    assert "3... Nf6??" in result.stdout
    game = _annotated(path)
    assert game.headers["Annotator"] == "plyground analyse, alphabeta:contempt=0"
    assert [node.san() for node in game.mainline() if chess.pgn.NAG_BLUNDER in node.nags] == ["Nf6"]
    assert path.with_name("mate.analysed.png").is_file()


def test_engine_still_chooses_the_judge_and_the_pgn_names_it(tmp_path):
    path = _write(tmp_path, "mate.pgn", MATE_IN_ONE)
    result = _analyse(path, "--engine", "alphabeta:depth=3", "--no-graph")
    assert result.returncode == 0, result.stderr
    assert "7 plies judged by alphabeta:depth=3 (its own limit a position)" in result.stdout
    assert "not judged by" not in result.stdout and "3... Nf6??" in result.stdout
    assert _annotated(path).headers["Annotator"] == "plyground analyse, alphabeta:depth=3"
