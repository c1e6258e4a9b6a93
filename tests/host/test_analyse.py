"""``plyground analyse FILE``: real short games with a planted blunder are judged by a depth-limited engine
(deterministic, no wall clock); the annotated files open in python-chess, pydraughts and plyground's own
readers; bad inputs are one line and exit code 2; nothing is overwritten without --force."""
from __future__ import annotations

import json
import re

import chess.pgn
import pytest

from plyground.games.checkers.pdn import read_records as read_pdn_records
from plyground.play.report import BLUNDER, INACCURACY, MISTAKE, MoveVerdict

ENGINE = ("--engine", "alphabeta:depth=4")

# Black's queen walks into a pawn's capture: 8... Qb4?? 9. axb4 (ply 16, counted from 1).
CHESS_GAME = """[Event "planted blunder"]
[White "alice"]
[Black "bob"]
[Result "1-0"]

1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. d4 Nf6 5. Nf3 c6 6. Bc4 Bf5 7. Bd2 e6 8. a3 Qb4 9. axb4 Bxb4
10. O-O 1-0
"""
CHESS_BLUNDER_PLY = 16

# Black gives a man away for nothing: 4. 12-16?? 19x12 (ply 7); 3. 15x22 25x18 are forced exchanges.
CHECKERS_GAME = """[Event "planted blunder"]
[Black "bob"]
[White "alice"]
[Result "*"]
[GameType "21"]

1. 10-15 23-19 2. 7-10 22-18 3. 15x22 25x18 4. 12-16 19x12 5. 11-16 26-23 6. 8-11 *
"""
CHECKERS_BLUNDER_PLY = 7


@pytest.fixture
def chess_file(tmp_path):
    path = tmp_path / "blunder.pgn"
    path.write_text(CHESS_GAME, encoding="utf-8")
    return path


@pytest.fixture
def checkers_file(tmp_path):
    path = tmp_path / "blunder.pdn"
    path.write_text(CHECKERS_GAME, encoding="utf-8")
    return path


def test_the_queen_left_to_a_pawn_is_the_only_blunder_and_python_chess_reads_the_notes(cli, chess_file):
    code, out, err = cli("analyse", chess_file, *ENGINE, "--quiet")
    assert code == 0, err
    assert "8... Qb4??" in out and "blunder" in out
    out_file = chess_file.with_name("blunder.analysed.pgn")
    game = chess.pgn.read_game(out_file.open(encoding="utf-8"))
    nodes = list(game.mainline())
    assert len(nodes) == 19 and not game.errors
    blunders = [node.ply() for node in nodes if chess.pgn.NAG_BLUNDER in node.nags]
    assert blunders == [CHESS_BLUNDER_PLY]
    blunder = nodes[CHESS_BLUNDER_PLY - 1]
    assert blunder.san() == "Qb4" and "Blunder" in blunder.comment and "Best:" in blunder.comment
    assert blunder.eval().white().score() > 300          # [%eval]: White is a queen up for a pawn
    assert all(node.eval() is not None for node in nodes)
    assert chess_file.with_name("blunder.analysed.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_man_given_away_is_the_only_blunder_and_the_pdn_reads_back_everywhere(cli, checkers_file):
    code, out, err = cli("analyse", checkers_file, *ENGINE, "--no-graph")
    assert code == 0, err
    assert "4. 12-16??" in out
    assert "analysing position 12/12" in err                  # progress on stderr
    out_file = checkers_file.with_name("blunder.analysed.pdn")
    text = " ".join(out_file.read_text(encoding="utf-8").split())
    assert "12-16 $4 {" in text and text.count("$4") == 1
    original = read_pdn_records(checkers_file)[0]
    annotated = read_pdn_records(out_file)[0]
    assert annotated.moves == original.moves and annotated.players == original.players
    from draughts.PDN import PDNReader
    theirs = PDNReader(filename=str(out_file)).games[0]
    assert theirs.moves == original.moves and theirs.variant == "english"
    assert not checkers_file.with_name("blunder.analysed.png").exists()


def test_the_report_counts_each_sides_judgements(cli, checkers_file):
    from plyground.registry import get_registry
    from plyground.protocols import Budget
    from plyground.play.report import analyse, open_game
    registry = get_registry()
    game = registry.make_game("checkers")
    engine = registry.make_player("alphabeta:depth=4", game)
    report = analyse(open_game(game, checkers_file), engine, Budget())
    judged = [(m.ply + 1, m.judgement) for m in report.moves if m.judgement == "blunder"]
    assert judged == [(CHECKERS_BLUNDER_PLY, "blunder")]
    assert report.count(0, "blunder") == 1 and report.count(1, "blunder") == 0
    assert report.accuracy(1) > report.accuracy(0)
    forced = [m for m in report.moves if m.forced]
    assert forced and all(m.loss == 0 and m.judgement is None for m in forced)
    assert len(report.curve()) == len(report.moves) + 1


def test_thresholds_and_accuracy_follow_lichess():
    def move(before, after, best="b"):
        return MoveVerdict(ply=0, mover=0, move="a", best=best, before=before, after=after, words_after="")
    assert move(0.6, 0.6 - INACCURACY).judgement == "inaccuracy"
    assert move(0.6, 0.6 - MISTAKE).judgement == "mistake"
    assert move(0.6, 0.6 - BLUNDER).judgement == "blunder"
    assert move(0.6, 0.58).judgement is None
    assert move(0.6, 0.1, best="a").judgement is None          # the engine's own move loses nothing
    assert move(0.5, 0.5).accuracy == pytest.approx(100.0, abs=0.01)
    assert move(0.9, 0.4).accuracy == pytest.approx(103.1668 * 2.718281828 ** (-0.04354 * 50) - 3.1669)


def test_an_existing_out_is_kept_without_force_and_replaced_with_it(cli, checkers_file):
    out_file = checkers_file.with_name("mine.pdn")
    out_file.write_text("keep me", encoding="utf-8")
    code, out, err = cli("analyse", checkers_file, *ENGINE, "--out", out_file, "--no-graph", "--quiet")
    assert code == 2 and "exists" in err and "--force" in err and "Traceback" not in err
    assert out_file.read_text(encoding="utf-8") == "keep me"
    code, _, err = cli("analyse", checkers_file, *ENGINE, "--out", out_file, "--no-graph", "--quiet", "--force")
    assert code == 0, err
    assert read_pdn_records(out_file)[0].moves == read_pdn_records(checkers_file)[0].moves
    code, _, err = cli("analyse", checkers_file, *ENGINE, "--out", checkers_file, "--force", "--quiet")
    assert code == 2 and "being analysed" in err


@pytest.mark.parametrize("case", ["missing", "not a game", "binary", "bad suffix", "game number", "bad move",
                                  "human engine", "graph suffix", "no moves"])
def test_bad_inputs_are_one_line_and_exit_code_2(cli, tmp_path, checkers_file, case):
    args = {
        "missing": [tmp_path / "nowhere.pdn"],
        "not a game": [_write(tmp_path / "notes.pgn", "this is not chess\n")],
        "binary": [_write(tmp_path / "zero.pdn", "\x00\x01\x02")],
        "bad suffix": [_write(tmp_path / "game.txt", "my notes on the game\n")],
        "game number": [checkers_file, "--game-number", "3"],
        "bad move": [_write(tmp_path / "bad.pdn", CHECKERS_GAME.replace("12-16", "12-17"))],
        "human engine": [checkers_file, "--engine", "human"],
        "graph suffix": [checkers_file, "--graph", tmp_path / "graph.svg"],
        "no moves": [_write(tmp_path / "empty.jsonl", json.dumps(
            {"game": "tictactoe", "players": ["a", "b"], "start": "", "moves": [], "returns": [0, 0],
             "finished": False}) + "\n")],
    }[case]
    code, out, err = cli("analyse", *args, "--quiet")
    lines = [line for line in err.splitlines() if line.startswith("plyground: error:")]
    assert code == 2, (out, err)
    assert len(lines) == 1 and "Traceback" not in err, err
    named = {"game number": "1 to 1", "bad move": "12-17", "bad suffix": "--game", "graph suffix": ".png",
             "human engine": "alphabeta"}
    assert named.get(case, str(args[0].name)) in lines[0]


def test_a_game_in_json_lines_is_written_back_with_its_notes(cli, tmp_path):
    record = {"game": "tictactoe", "players": ["a", "b"], "start": "", "moves": ["a1", "b2", "a2", "a3"],
              "returns": [0, 0], "finished": False}
    path = _write(tmp_path / "ttt.jsonl", json.dumps(record) + "\n")
    code, out, err = cli("analyse", path, "--engine", "alphabeta:depth=9", "--no-graph", "--quiet")
    assert code == 0, err
    written = json.loads(tmp_path.joinpath("ttt.analysed.jsonl").read_text(encoding="utf-8"))
    assert written["moves"] == record["moves"] and len(written["notes"]) == 4


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_a_long_games_report_takes_the_memory_of_a_short_ones(tmp_path):
    """Issue #72: every position of the game was kept, each with the game's history, so memory grew with the
    square of the plies (king shuffles at depth 2: 2,500 plies 246 MB, 10,000 plies 1 GB, 40,000 out of
    memory).  The peak is the child process's own, as the kernel counted it."""
    from processes import run_plyground_peak
    from plyground.protocols import GameRecord
    from plyground.files.recordio import write_records
    from plyground.registry import get_registry
    rules = "checkers:repetitions=0,no_progress_plies=0"        # two kings may walk to and fro for ever
    game, cycle = get_registry().make_game(rules), ["32-27", "1-5", "27-32", "5-1"]
    peaks = {}
    for plies in (100, 4_000):
        path = tmp_path / f"shuffle-{plies}.pdn"
        write_records(game, [GameRecord(game="checkers", players=("a", "b"), start="W:WK32:BK1",
                                        moves=(cycle * plies)[:plies], finished=False)], path)
        result, peaks[plies] = run_plyground_peak("analyse", path, "--game", rules, "--engine", "alphabeta:depth=1",
                                                  "--no-graph", "--quiet")
        assert result.returncode == 0, result.stderr
        assert f"{plies} plies judged" in result.stdout
    # Keeping every position cost about 120 MiB more for the long game here; walking through it, under 10.
    assert peaks[4_000] - peaks[100] < 40 * 2**20, {plies: f"{peak / 2**20:.0f} MiB" for plies, peak in peaks.items()}


def test_one_file_for_both_the_annotated_game_and_the_graph_is_refused(tmp_path, checkers_file):
    """Issue #72: --out w.png --graph w.png wrote the annotated game, then the picture over it."""
    from processes import one_error_line, run_plyground
    both = tmp_path / "w.png"
    for args in (["--out", both, "--graph", both], ["--out", both]):     # the graph's default: --out's .png
        line = one_error_line(run_plyground("analyse", checkers_file, *ENGINE, "--quiet", *args))
        assert line == f"plyground: error: --graph {both} is the annotated game's file (--out); give another file"
        assert not both.exists()


def test_the_summary_says_how_long_a_short_analysis_took(cli, checkers_file):
    """Issue #73: a quick analysis said `in 0s`, a duration rounded to nothing."""
    from plyground.util.durations import format_duration
    code, out, err = cli("analyse", checkers_file, "--engine", "alphabeta:depth=1", "--no-graph", "--quiet")
    assert code == 0, err
    took = out.splitlines()[0].rsplit(" in ", 1)[1]
    assert took != "0s" and re.fullmatch(r"under 0\.1s|\d\.\ds|\d+s|\d+m\d\ds", took), out
    assert [format_duration(s) for s in (0.04, 0.4, 7.25, 42)] == ["under 0.1s", "0.4s", "7.2s", "42s"]


def test_the_graphs_ticks_fall_on_whole_plies(chess_file):
    """Issue #73: a 19-ply game's graph was ticked at 0, 2.5, 5, ... plies."""
    import matplotlib.pyplot as plt
    from plyground.protocols import Budget
    from plyground.registry import get_registry
    from plyground.play.report import analyse, open_game
    registry = get_registry()
    game = registry.make_game("chess")
    report = analyse(open_game(game, chess_file), registry.make_player("alphabeta:depth=1", game), Budget())
    fig = report.graph_figure()
    try:
        ticks = [t for t in fig.axes[0].get_xticks() if 0 <= t <= len(report.curve()) - 1]
    finally:
        plt.close(fig)
    assert len(ticks) >= 3 and all(t == int(t) for t in ticks), ticks
