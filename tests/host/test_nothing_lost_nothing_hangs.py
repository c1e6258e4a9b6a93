"""A user's saved games survive Ctrl-C and full disks; misbehaving players cost only their own games.

Real subprocesses and real signals: ``plyground`` runs as a user runs it, the
misbehaving players are a real installed plugin package
(tests/external_plugins/misbehaving), read-only and full filesystems are real
tmpfs mounts inside a private mount namespace (``unshare``).
"""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from plugin_venv import environment, external, pip_install, plyground
from process_table import ctrl_c_as_at_a_terminal
from processes import in_namespace, one_error_line, run_plyground
from plyground.games.checkers.game import CheckersGame
from plyground.games.chess.game import ChessGame


# --------------------------------------------------------------------------- --save

@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_during_match_save_keeps_every_finished_game(tmp_path, workers):
    save = tmp_path / "games.pdn"
    process = subprocess.Popen([sys.executable, "-m", "plyground", "match", "--game", "checkers",
                                "--black", "mcts:simulations=300", "--white", "random", "-n", "400",
                                "--workers", str(workers), "--save", str(save), "--quiet"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment(),
                               preexec_fn=ctrl_c_as_at_a_terminal)
    game = CheckersGame()
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if len(game.read_records(save.read_text())) >= 3:
                break
        except FileNotFoundError:
            pass            # not written yet (the start-up check that the path is writable creates and removes it)
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    records = game.read_records(save.read_text())         # a valid PDN file, whatever the moment of Ctrl-C
    assert len(records) >= 3 and all(r.finished for r in records)
    assert f"{len(records)} games saved to {save}" in out
    # the summary of the finished games is printed all the same; a game Ctrl-C caught between being
    # saved and being counted is in the file, never the other way round
    summarised = int(out.split("mcts:simulations=300 vs random: ")[1].split(" games")[0])
    assert len(records) - 1 <= summarised <= len(records)
    assert "interrupted after" in err and "Traceback" not in err


def test_save_appends_to_a_file_of_the_same_format_and_refuses_any_other(tmp_path):
    save = tmp_path / "games.pdn"
    for _ in range(2):
        result = run_plyground("match", "--game", "checkers", "--black", "random", "--white", "random",
                               "-n", "2", "--save", save, "--quiet")
        assert result.returncode == 0, result.stderr
    assert len(CheckersGame().read_records(save.read_text())) == 4

    chess_games = tmp_path / "chess.pgn"
    result = run_plyground("match", "--game", "chess", "--white", "random", "--black", "random", "-n", "1",
                           "--max-plies", "6", "--save", chess_games, "--quiet")
    assert result.returncode == 0, result.stderr
    before = chess_games.read_text()
    refused = run_plyground("match", "--game", "checkers", "--black", "random", "--white", "random",
                            "--save", chess_games)
    line = one_error_line(refused)
    assert f"--save {chess_games} exists and is not a PDN file of checkers games" in line
    assert "game 1/" not in refused.stderr and chess_games.read_text() == before   # refused before any game

    notes = tmp_path / "notes.txt"
    notes.write_text("my own notes\n")
    line = one_error_line(run_plyground("play", "--game", "tictactoe", "--black", "random", "--white", "random",
                                        "--save", notes))
    assert "exists and is not a JSON lines file of tictactoe games" in line
    assert notes.read_text() == "my own notes\n"


def test_out_never_overwrites_a_folder_it_did_not_write(tmp_path):
    folder = tmp_path / "documents"
    folder.mkdir()
    (folder / "games.jsonl").write_text("precious\n")
    line = one_error_line(run_plyground("match", "--game", "tictactoe", "--black", "random", "--white", "random",
                                        "--out", folder))
    assert f"--out {folder} holds files plyground did not write" in line
    assert (folder / "games.jsonl").read_text() == "precious\n"
    line = one_error_line(run_plyground("screenshots", "--out", folder))
    assert f"--out {folder} holds files plyground did not write" in line
    assert sorted(p.name for p in folder.iterdir()) == ["games.jsonl"]


# --------------------------------------------------------------------------- read-only and full filesystems

def test_read_only_save_and_out_are_refused_before_any_game(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    mount = f"mount -t tmpfs -o ro tmpfs {ro}"
    result = in_namespace(mount, "match", "--game", "tictactoe", "--black", "random", "--white", "random",
                          "--save", ro / "games.jsonl")
    assert one_error_line(result) == f"plyground: error: --save {ro / 'games.jsonl'}: cannot write there " \
                                     f"(read-only file system)"
    result = in_namespace(mount, "tournament", "--game", "tictactoe", "random", "random#2=random",
                          "--out", ro / "ladder")
    assert f"--out {ro / 'ladder'}: cannot write there (read-only file system)" in one_error_line(result)
    result = in_namespace(mount, "match", "--game", "tictactoe", "--black", "random", "--white", "random",
                          "--save", tmp_path / "no-such-folder" / "games.jsonl")
    assert "the folder" in one_error_line(result) and "does not exist" in result.stderr


def test_a_full_disk_keeps_the_games_written_before_it(tmp_path):
    full = tmp_path / "full"
    full.mkdir()
    save = full / "games.jsonl"
    result = in_namespace(f"mount -t tmpfs -o size=4k tmpfs {full} && cat > /dev/null",
                          "match", "--game", "tictactoe", "--black", "random", "--white", "random", "-n", "60",
                          "--save", save, "--quiet")
    line = one_error_line(result)
    assert f"to {save}: no space left on device" in line
    # The tmpfs is gone with the namespace; what the error said was kept is a whole number of games.
    kept = int(line.split("; the ")[1].split(" ")[0])
    assert 1 <= kept < 60

    out = full / "ladder"
    result = in_namespace(f"mount -t tmpfs -o size=12k tmpfs {full}", "tournament", "--game", "tictactoe",
                          "random", "r2=random", "-n", "200", "--out", out, "--workers", "1", "--quiet")
    assert f"cannot store a finished game in {out / 'results.jsonl'}: no space left on device" in one_error_line(result)


# --------------------------------------------------------------------------- misbehaving players

def test_a_sleeping_player_forfeits_within_its_move_limit(env, tmp_path_factory):
    pip_install(env, external("misbehaving", tmp_path_factory))
    result = plyground(env, "match", "--game", "tictactoe", "--black", "sleeper", "--white", "random",
                       "-n", "2", "--move-limit", "1", timeout=120)   # two hours of sleep: only the limit ends it
    assert result.returncode == 0, result.stderr
    assert "sleeper: 0 wins, 0 draws, 2 losses" in result.stdout
    assert "exceeded its 1 s move limit and forfeits" in result.stderr


def test_system_exit_in_a_player_on_two_workers_finishes_the_tournament(env, tmp_path_factory, tmp_path):
    pip_install(env, external("misbehaving", tmp_path_factory))
    result = plyground(env, "tournament", "--game", "tictactoe", "quitter", "interrupter", "random",
                       "random#2=random", "-n", "4", "--workers", "2", "--out", tmp_path / "t", timeout=240)
    assert result.returncode == 0, result.stderr
    # 6 pairings x 4 games; only random vs random#2 can finish
    assert "tictactoe: 24 of 24 games (20 unfinished, not counted)" in result.stdout
    assert "failed: SystemExit: quitter gives up" in result.stderr
    assert "failed: KeyboardInterrupt" in result.stderr


def test_a_worker_that_dies_stops_the_run_with_one_line(env, tmp_path_factory, tmp_path):
    pip_install(env, external("misbehaving", tmp_path_factory))
    result = plyground(env, "tournament", "--game", "tictactoe", "dier", "random", "-n", "4", "--workers", "2",
                       "--out", tmp_path / "t", timeout=240)
    assert result.returncode == 2, result.stderr
    assert "a worker process died while playing dier vs random" in result.stderr
    assert "Traceback" not in result.stderr


# --------------------------------------------------------------------------- no silent nonsense

@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_nonsense_seconds_are_refused(cli, value):
    code, _, err = cli("match", "--game", "tictactoe", "--black", "random", "--white", "random", "--seconds", value)
    assert code == 2 and f"Invalid value for '--seconds': '{value}'" in err


def test_an_empty_fen_is_refused(cli):
    code, _, err = cli("play", "--game", "checkers", "--black", "random", "--white", "random", "--fen", "")
    assert code == 2 and "--fen is empty; give a checkers position" in err


# --------------------------------------------------------------------------- openings from real archives

def test_the_acf_archive_works_as_openings(cli, acf_pdn):
    code, out, err = cli("match", "--game", "checkers", "--black", "random", "--white", "random", "-n", "4",
                         "--openings", acf_pdn, "--quiet")
    assert code == 0, err
    assert "random (A) vs random (B): 4 games" in out
    assert "end within their opening" in err          # games past an automatic draw are left out, with a note
    # (--openings acf --opening-plies 8, the archive the package ships cut to 8 plies: README's command)


def test_a_saved_chess_pgn_works_as_openings(cli, tmp_path):
    saved = tmp_path / "saved.pgn"
    code, _, err = cli("match", "--game", "chess", "--white", "random", "--black", "random", "-n", "2",
                       "--max-plies", "12", "--save", saved, "--quiet")
    assert code == 0, err
    out_dir = tmp_path / "from-openings"
    code, out, err = cli("match", "--game", "chess", "--white", "random", "--black", "random", "-n", "2",
                         "--openings", saved, "--opening-plies", "4", "--max-plies", "10", "--out", out_dir,
                         "--quiet")
    assert code == 0, err
    first_moves = {tuple(r.moves[:4]) for r in ChessGame().read_records(saved.read_text())}
    played = [json.loads(line)["record"]["moves"][:4] for line in (out_dir / "results.jsonl").read_text().splitlines()]
    assert played and all(tuple(moves) in first_moves for moves in played)


@pytest.mark.parametrize("game, name, text", [
    ("chess", "tags.pgn", '[Event "x"]\n[White "a"]\n[Black "b"]\n\n'),
    ("chess", "results.pgn", "1-0\n"),
    ("checkers", "tags.pdn", '[Event "x"]\n[Black "a"]\n\n'),
    ("checkers", "results.pdn", "1-0\n\n0-1\n"),
])
def test_a_record_file_with_no_moves_is_no_openings(cli, tmp_path, game, name, text):
    path = tmp_path / name
    path.write_text(text)
    code, _, err = cli("match", "--game", game, "--white", "random", "--black", "random", "-n", "2",
                       "--openings", path)
    assert code == 2 and f"opening file {path} holds no playable openings" in err
