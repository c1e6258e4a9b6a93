"""Deep Pepper pretraining labels in chunks and resumes: a killed run relabels nothing it had finished.

* A real `plyground train expert-iteration` process is killed (SIGKILL) as
  soon as its first label chunk exists; the rerun continues after the chunks
  it kept (their files untouched), ends with exactly the positions asked
  for, and shows the progress line with an ETA.
* Labelling to a smaller target and then a larger one in the same folder
  keeps the first chunks and continues the same stream: the same self-play
  game (moves and random generator restored), the same PGN positions.
* Label settings cannot change under existing chunks.
* A PGN without a single game with moves stops the trainer through the
  command, before Stockfish starts (so these run without Stockfish too).
"""
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from stockfish_marks import STOCKFISH, needs_stockfish

from plyground.errors import UsageError
from plyground.games.chess.game import ChessGame
from plyground.players.alphazero.networks import load_model
from plyground.files.storage import load_npz
from plyground.plugins.trainers.expert_iteration.pretrain import make_dataset
from plyground.plugins.trainers.expert_iteration.stockfish import StockfishEvaluator

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "configs" / "expert-iteration-chess.toml"
MASTERS = REPO.parent / "shared" / "data" / "chess-masters.pgn"
TINY = {"network": "deep-pepper-parts:h1a=8,h1b=16,h1c=16,h2p=32,h2e=8", "selfplay_games": 1, "simulations": 2,
        "leaf_batch": 2, "parallel_games": 1, "max_plies": 4, "comparison_games": 0, "epochs": 1,
        "batch_size": 64, "adjudicate": False, "pretrain_depth": 1, "pretrain_epochs": 1, "plots": False,
        "workers": 1}


def train_args(run_dir, **extra) -> list[str]:
    args = ["train", "expert-iteration", "--game", "chess", "--run", str(run_dir), "--config", str(CONFIG)]
    for key, value in {**TINY, **extra}.items():
        args += ["--set", f"{key}={value}"]
    return args


def chunk_state(folder: Path) -> dict[str, tuple[int, bytes]]:
    return {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in sorted(folder.glob("labels-*.npz"))}


def chunk_cursor(path: Path) -> dict:
    return json.loads(load_npz(path)["cursor_json"].tobytes().decode("utf-8"))


# ------------------------------------------------------------------ killed and resumed through the command

@needs_stockfish
def test_a_killed_run_resumes_labelling_after_its_last_chunk(cli, tmp_path):
    run = tmp_path / "dp"
    args = train_args(run, pretrain_positions=3000, pretrain_chunk=100, iterations=1, stockfish=STOCKFISH)
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    first_chunk = run / "pretrain" / "labels-00000.npz"
    with open(tmp_path / "first.log", "w") as log:
        process = subprocess.Popen([sys.executable, "-m", "plyground", *args], stdout=log, stderr=log, env=env)
        try:
            deadline = time.monotonic() + 120
            while not first_chunk.exists():
                assert process.poll() is None, (tmp_path / "first.log").read_text()
                assert time.monotonic() < deadline, "no label chunk within 120 s"
                time.sleep(0.005)
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
    kept = chunk_state(run / "pretrain")
    assert 1 <= len(kept) < 30, "the kill came after labelling had finished: nothing left to resume"
    done = 100 * len(kept)
    assert chunk_cursor(run / "pretrain" / max(kept))["positions"] == done

    code, out, err = cli(*train_args(run, pretrain_positions=3000, pretrain_chunk=100, iterations=1,
                                     stockfish=STOCKFISH))
    assert code == 0, err
    assert f"pretraining: labelling resumes after {done} positions ({len(kept)} chunks in {run / 'pretrain'})" in err
    assert "pretraining: 3000/3000 positions labelled" in err and "positions/s; ETA " in err
    assert all(chunk_state(run / "pretrain")[name] == kept[name] for name in kept), "a kept chunk was rewritten"
    chunks = sorted((run / "pretrain").glob("labels-*.npz"))
    assert len(chunks) == 30 and sum(len(load_npz(p)["values"]) for p in chunks) == 3000
    assert chunk_cursor(chunks[-1])["positions"] == 3000
    assert "pretraining epoch 1/1 on 3000 positions" in err
    state = json.loads((run / "state.json").read_text())
    initial = load_model(run / "checkpoints" / "iter-0000.npz", ChessGame(encoding="deep_pepper"))
    assert state["pretrained"] is True and initial.metadata["role"] == "pretrained"


# ------------------------------------------------------------------ the stream continues where it stood

@needs_stockfish
def test_self_play_labelling_continues_the_same_game_after_a_smaller_target(tmp_path):
    game = ChessGame(encoding="deep_pepper")
    options = {"random_opponent": 0.5, "seed": 4, "chunk_positions": 16}
    with StockfishEvaluator(STOCKFISH, 1, all_moves=True) as judge:
        whole = make_dataset(game, judge, 100, folder=tmp_path / "whole", **options)
    with StockfishEvaluator(STOCKFISH, 1, all_moves=True) as judge:
        first = make_dataset(game, judge, 40, folder=tmp_path / "resumed", **options)
    kept = chunk_state(tmp_path / "resumed")
    assert list(kept) == ["labels-00000.npz", "labels-00001.npz", "labels-00002.npz"]   # 16 + 16 + 8
    with StockfishEvaluator(STOCKFISH, 1, all_moves=True) as judge:
        lines = []
        resumed = make_dataset(game, judge, 100, folder=tmp_path / "resumed", log=lines.append, **options)
    assert all(chunk_state(tmp_path / "resumed")[name] == kept[name] for name in kept)
    assert lines[0] == f"pretraining: labelling resumes after 40 positions (3 chunks in {tmp_path / 'resumed'})"
    assert [len(a) for a in resumed] == [100, 100, 100]
    for before, after in zip(first, resumed):
        assert np.array_equal(before, after[:40])
    # Position 40 follows from the move drawn after position 39, before the first run stopped: the restored
    # game and generator give the same position an uninterrupted run reached.  (Later labels may differ a
    # little: the restarted Stockfish has an empty hash table.)
    assert np.array_equal(resumed[0][:41], whole[0][:41])
    assert np.allclose(resumed[1].sum(axis=1), 1.0, atol=1e-5)


@needs_stockfish
def test_pgn_labelling_resumes_with_the_next_position_of_the_file(tmp_path):
    if not MASTERS.exists():
        pytest.skip(f"the master games are not at {MASTERS} (tests read ../shared/data beside the repository)")
    with open(MASTERS, encoding="utf-8", errors="replace") as handle:
        head = "".join(handle.readline() for _ in range(60))       # the first few games
    pgn = tmp_path / "masters-head.pgn"
    pgn.write_text(head[:head.rindex("\n[Event ")], encoding="utf-8")
    game = ChessGame(encoding="deep_pepper")
    options = {"pgn": str(pgn), "chunk_positions": 25}
    with StockfishEvaluator(STOCKFISH, 1, all_moves=True) as judge:
        whole = make_dataset(game, judge, 60, folder=tmp_path / "whole", **options)
        make_dataset(game, judge, 30, folder=tmp_path / "resumed", **options)
        resumed = make_dataset(game, judge, 60, folder=tmp_path / "resumed", **options)
    assert len(resumed[0]) == 60 and np.array_equal(resumed[0], whole[0])
    assert [len(load_npz(p)["values"]) for p in sorted((tmp_path / "resumed").glob("labels-*.npz"))] == [25, 5, 25, 5]


@needs_stockfish
def test_chunks_made_with_other_label_settings_are_refused(tmp_path):
    game = ChessGame(encoding="deep_pepper")
    with StockfishEvaluator(STOCKFISH, 1, all_moves=True) as judge:
        make_dataset(game, judge, 10, folder=tmp_path, chunk_positions=5)
        with pytest.raises(UsageError, match=r"the pretraining labels in .* were made with temperature_cp=100\.0, "
                                             r"not 50\.0: set it back to resume them, or delete .* to label again"):
            make_dataset(game, judge, 20, folder=tmp_path, temperature_cp=50.0)


# ------------------------------------------------------------------ a PGN with nothing to pretrain on

GARBAGE = b"\xff\xfe\x00\xc3\x28" + bytes(random.Random(0).randrange(256) for _ in range(195))


@pytest.mark.parametrize("content, message", [
    ('[Event "x"]\n[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n', "holds no games with moves (1 without moves, "
                                                                    "0 unreadable)"),
    ("1-0\n", "holds no games with moves (1 without moves, 0 unreadable)"),
    ("", "holds no games with moves (it holds no games)"),
    ("h6)!", "holds no games with moves (0 without moves, 1 unreadable; the first: {path}: game 1, line 1: "
             "move 1. h6 (White) is not legal"),
    (GARBAGE, "{path} is not a PGN file: it holds binary data"),
], ids=["tags-only", "result-only", "empty", "python-chess-crash", "binary"])
def test_a_pgn_without_moves_stops_pretraining_with_one_line(cli, tmp_path, content, message):
    path = tmp_path / "games.pgn"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    run = tmp_path / "run"
    code, out, err = cli(*train_args(run, pretrain_positions=50, pretrain_pgn=path, iterations=1), "--quiet")
    assert code == 2 and "trained:" not in out
    assert err.startswith("plyground: error: ") and err.count("\n") == 1, err
    assert message.format(path=path) in err
    if "binary" not in message:
        assert f"pretrain_pgn {path} holds no games with moves" in err
    assert not list(run.glob("pretrain/labels-*.npz"))
    assert not json.loads((run / "state.json").read_text()).get("pretrained")
