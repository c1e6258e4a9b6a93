"""``plyground play --review FILE``: stepping through recorded games in the console, hints and 'play' from the
position shown, and every bad input refused in one line -- all through real processes with real stdin."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from plyground.registry import get_registry
from plyground.capabilities import record_reader

HINTER = "human:hint=alphabeta,hint_seconds=0.3"


def _plyground(*args, stdin: str = "", cwd) -> subprocess.CompletedProcess:
    """``plyground ARGS`` run in ``cwd`` with ``stdin`` typed, an empty saved-games folder of its own."""
    env = dict(os.environ, PLYGROUND_GAMES=str(Path(cwd) / "games"))
    return subprocess.run([sys.executable, "-m", "plyground", *args], input=stdin, capture_output=True, text=True,
                          cwd=cwd, timeout=120, env=env)


@pytest.fixture(scope="module")
def checkers_games(tmp_path_factory) -> tuple[Path, list]:
    """A PDN file of two finished random games written by ``plyground match --save``, and its records."""
    folder = tmp_path_factory.mktemp("review")
    saved = _plyground("match", "--game", "checkers", "--black", "random", "--white", "random", "-n", "2",
                       "--seed", "1", "--save", "two.pdn", cwd=folder)
    assert saved.returncode == 0, saved.stderr
    path = folder / "two.pdn"
    records = record_reader(get_registry().make_game("checkers"))(path.read_text())
    assert len(records) == 2 and all(r.finished for r in records) and len(records[0].moves) > 12
    return path, records


def _position_after(game_name: str, record, plies: int) -> str:
    """The position after the first ``plies`` moves of ``record``, replayed here move by move."""
    game = get_registry().make_game(game_name)
    state = game.new_state(record.start)
    for text in record.moves[:plies]:
        state.apply(state.parse_move(text))
    return state.to_text()


def _prompts(out: str) -> list[str]:
    """What was printed after each review prompt: the answer to each line typed, in order."""
    return [part.split("\nreview, ply")[0] for part in out.split(" (or 'help'): ")[1:]]


def _review_first_game(checkers_games, stdin: str):
    """``plyground play --review`` of the first game, answering ``stdin``: (its moves, its plies, the output)."""
    path, records = checkers_games
    out = _plyground("play", "--review", path.name, "--game-number", "1", cwd=path.parent, stdin=stdin)
    assert out.returncode == 0, out.stderr
    return records[0].moves, len(records[0].moves), out


def test_back_forward_goto_start_and_end_show_each_ply_with_its_move_marked(checkers_games):
    path, records = checkers_games
    moves, plies, out = _review_first_game(checkers_games,
                                           "forward\nforward 3\nback\ngoto 10\nfen\nend\nforward\nstart\nback\nquit\n")
    black, white = records[0].players                  # "random (A)", "random (B)": one spec on both sides
    a, b = records[0].returns
    winner = "drawn" if a == b else f"{'Black' if a > b else 'White'} won"
    assert f"Reviewing game 1 of 2 in {path.name}: checkers — Black: {black}, White: {white}; {plies} plies, " \
           f"result {records[0].result_text} ({winner}" in out.stdout
    assert "ply 0 of " in out.stdout.split("review, ply 0/")[0]            # it opens on the start position
    answers = _prompts(out.stdout)
    assert f"Last move: {moves[0]}\nply 1 of {plies}: after {moves[0]} by Black ({black})" in answers[0]
    assert f"Last move: {moves[3]}\nply 4 of {plies}: after {moves[3]} by White ({white})" in answers[1]
    assert f"Last move: {moves[2]}\nply 3 of {plies}: after {moves[2]} by Black ({black})" in answers[2]
    assert f"ply 10 of {plies}: after {moves[9]} " in answers[3]
    assert answers[4].strip() == _position_after("checkers", records[0], 10)    # fen: the position shown
    assert f"ply {plies} of {plies}: after {moves[-1]} " in answers[5] and f"the game ended {records[0].result_text}" in answers[5]
    assert answers[6].strip() == "already at the end of the game"
    assert f"ply 0 of {plies}: the start position" in answers[7]
    assert answers[8].strip() == "already at the start"


def test_a_bare_enter_steps_forward(checkers_games):
    moves, plies, out = _review_first_game(checkers_games, "\n\nend\n\nquit\n")
    answers = _prompts(out.stdout)
    assert f"ply 1 of {plies}: after {moves[0]} " in answers[0]
    assert f"ply 2 of {plies}: after {moves[1]} " in answers[1]
    assert answers[3].strip() == "already at the end of the game"


def test_goto_out_of_range_and_unknown_words_are_answered_and_the_review_goes_on(checkers_games):
    path, records = checkers_games
    plies = len(records[1].moves)
    out = _plyground("play", "--review", path.name, cwd=path.parent,          # no --game-number: the last game
                     stdin=f"goto {plies + 5}\ngoto x\ngoto\nback two\n9-13\nfoo\nend\nplay\nhint\nquit\n")
    assert out.returncode == 0, out.stderr
    assert "Reviewing game 2 of 2" in out.stdout
    answers = _prompts(out.stdout)
    assert answers[0].strip() == f"no ply {plies + 5} in this game: give 0 (the start) to {plies} (the end)"
    assert answers[1].strip() == "goto takes a number of plies, e.g. goto 12 (0: the start position); not 'x'"
    assert answers[2].strip() == "goto takes a number of plies, e.g. goto 12 (0: the start position)"
    assert answers[3].strip() == "back takes a number of plies, e.g. back 5; not 'two'"
    assert answers[4].strip() == "9-13 is a move here: type 'play' to start a new game from this position, then play it"
    assert answers[5].startswith("not a review command: 'foo'. Type back, forward (or just Enter), goto N,")
    assert answers[7].startswith("the game is over here (") and "step back (back, goto N)" in answers[7]
    assert answers[8].startswith("no hint: the game is over here (")
    assert "New game" not in out.stdout


def test_hint_and_analysis_work_on_the_position_shown(checkers_games):
    path, records = checkers_games
    out = _plyground("play", "--review", path.name, "--game-number", "1", "--black", HINTER, cwd=path.parent,
                     stdin="goto 10\nanalysis\nhint\nanalysis\nforward\nanalysis\nquit\n")
    assert out.returncode == 0, out.stderr
    answers = _prompts(out.stdout)
    assert answers[1].strip() == "no analysis of this position yet: type hint (or 'analysis on')"
    assert answers[2].startswith("hint from alphabeta:\n  best move ")
    best = answers[2].split("best move ")[1].split()[0]
    game = get_registry().make_game("checkers")
    shown = game.new_state(_position_after("checkers", records[0], 10))
    assert shown.parse_move(best) in shown.legal_moves()                   # a move of the position shown
    assert answers[3] == answers[2]                                        # analysis: that hint again
    assert answers[5].strip() == "no analysis of this position yet: type hint (or 'analysis on')"


def test_play_from_a_shown_position_starts_a_new_game_there_against_random(checkers_games, tmp_path):
    path, records = checkers_games
    shown = _position_after("checkers", records[0], 10)
    assert shown.endswith(":F6")                           # ten plies in: Black plays move 6 (lidraughts' counters)
    game = get_registry().make_game("checkers")
    state = game.new_state(shown)
    move = state.move_to_text(state.legal_moves()[0])
    out = _plyground("play", "--review", str(path), "--game-number", "1", "--white", "random:seed=3",
                     "--save", "new.pdn", cwd=tmp_path, stdin=f"goto 10\nplay\nfen\nmoves\n{move}\nquit\n")
    assert out.returncode == 0, out.stderr
    after_play = out.stdout.split("review, ply 10/")[-1]
    assert "New game of checkers — Black: human, White: random:seed=3" in after_play
    assert f"Black move (or 'help'): {shown}\n" in after_play                  # fen at the new game's prompt
    saved = (tmp_path / "new.pdn").read_text()
    assert f"\n6. {move} " in saved                        # the new game goes on with the review's move numbers
    new = record_reader(game)(saved)
    assert len(new) == 1 and new[0].start == shown and new[0].players == ("human", "random:seed=3")
    assert new[0].moves[0] == move


def test_a_chess_pgn_game_is_reviewed_in_san_and_its_end_cannot_be_played_on(tmp_path):
    pgn = tmp_path / "mate.pgn"
    pgn.write_text('[Event "casual"]\n[White "Anna"]\n[Black "Ben"]\n[Result "1-0"]\n\n'
                   '1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n')
    out = _plyground("play", "--review", str(pgn), cwd=tmp_path,
                     stdin="end\nplay\nback 2\nfen\npgn\ngoto 4\nforward\nquit\n")
    assert out.returncode == 0, out.stderr
    assert "Reviewing game 1 of 1 in " in out.stdout and "chess — White: Anna, Black: Ben; 7 plies" in out.stdout
    answers = _prompts(out.stdout)
    assert "ply 7 of 7: after Qxf7# by White (Anna); the game ended 1-0 (White won" in answers[0]
    assert answers[1].startswith("the game is over here (checkmate")
    assert "ply 5 of 7: after Qh5 by White (Anna)" in answers[2]
    record = record_reader(get_registry().make_game("chess"))(pgn.read_text())[0]
    assert answers[3].strip() == _position_after("chess", record, 5)
    assert "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0" in answers[4]
    assert "ply 5 of 7: after Qh5 by White (Anna)" in answers[6]


def test_a_json_lines_game_is_reviewed(tmp_path):
    saved = _plyground("match", "--game", "tictactoe", "--black", "random", "--white", "random", "-n", "3",
                       "--save", "t.jsonl", cwd=tmp_path)
    assert saved.returncode == 0, saved.stderr
    out = _plyground("play", "--review", "t.jsonl", "--game-number", "2", cwd=tmp_path, stdin="forward 2\nquit\n")
    assert out.returncode == 0, out.stderr
    assert "Reviewing game 2 of 3 in t.jsonl: tictactoe — X: random (B), O: random (A);" in out.stdout
    assert "ply 2 of " in _prompts(out.stdout)[0]


# --------------------------------------------------------------------------- bad input: one line, exit code 2

def _refused(out: subprocess.CompletedProcess) -> str:
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "Traceback" not in out.stderr and out.stdout == ""
    line = out.stderr.strip()
    assert "\n" not in line and line.startswith("plyground: error: "), out.stderr
    return line


def test_a_missing_file_a_file_of_another_game_and_a_game_number_out_of_range(checkers_games, tmp_path):
    path, _ = checkers_games
    missing = _refused(_plyground("play", "--review", "nothing.pdn", cwd=tmp_path))
    assert f"cannot review nothing.pdn: no such file in the current folder ({tmp_path}) or the saved-games " \
           f"folder" in missing
    other = _refused(_plyground("play", "--review", str(path), "--game", "chess", cwd=tmp_path))
    assert other.endswith(f"--review {path} holds a checkers game, not chess (--game chess); leave out --game to "
                          f"review it as checkers, or give --game checkers")
    beyond = _refused(_plyground("play", "--review", str(path), "--game-number", "3", cwd=tmp_path))
    assert beyond.endswith(f"--game-number 3: {path} holds 2 games; give a number from 1 to 2")


def test_damaged_records_name_the_game_and_the_move(tmp_path):
    (tmp_path / "bad.pdn").write_text('[Event "x"]\n[Result "*"]\n\n1. 9-13 22-18 2. 9-14 *\n')  # 9 is empty
    bad = _refused(_plyground("play", "--review", "bad.pdn", cwd=tmp_path))
    assert "cannot review bad.pdn: game 1, line 4: move 2. 9-14 (Black): 9-14 is not a legal move" in bad
    (tmp_path / "torn.jsonl").write_text('{"game": "tictactoe", "moves": [\n')
    torn = _refused(_plyground("play", "--review", "torn.jsonl", "--game", "tictactoe", cwd=tmp_path))
    assert "cannot review torn.jsonl: line 1 is not a game record" in torn
    (tmp_path / "wrong.jsonl").write_text('{"game": "tictactoe", "players": ["a", "b"], "start": "", '
                                          '"moves": ["b2", "b2"], "returns": [0, 0]}\n')
    wrong = _refused(_plyground("play", "--review", "wrong.jsonl", cwd=tmp_path))
    assert "cannot review wrong.jsonl, game 1: move 2 (b2) cannot be played" in wrong


def test_a_record_played_past_an_automatic_draw_names_the_rules_that_show_it(tmp_path):
    (tmp_path / "rep.pdn").write_text('[Event "x"]\n[FEN "B:WK30:BK1"]\n[Result "*"]\n\n'
                                      '1. 1-5 30-26 2. 5-1 26-30 3. 1-5 30-26 4. 5-1 26-30 5. 1-5 30-26 '
                                      '6. 5-1 26-30 7. 1-5 *\n')
    line = _refused(_plyground("play", "--review", "rep.pdn", cwd=tmp_path))
    assert line.endswith("move 9 (1-5) comes after the end of the game (threefold repetition); recorded players "
                         "may play on past a draw nobody claimed: review it without automatic draws, "
                         "--game checkers:repetitions=0,no_progress_plies=0")
    shown = _plyground("play", "--review", "rep.pdn", "--game", "checkers:repetitions=0,no_progress_plies=0",
                       cwd=tmp_path, stdin="end\nquit\n")
    assert shown.returncode == 0, shown.stderr
    assert "ply 13 of 13: after 1-5 by Black (?); the record ends here, unfinished (*)" in shown.stdout


def test_review_with_resume_with_fen_or_a_stray_game_number_is_refused(checkers_games):
    path, _ = checkers_games
    folder = path.parent
    both = _refused(_plyground("play", "--review", path.name, "--resume", path.name, cwd=folder))
    assert "--review and --resume both name the game to open" in both and "give one of them" in both
    fen = _refused(_plyground("play", "--review", path.name, "--fen", "B:W21:B1", cwd=folder))
    assert fen.endswith("--fen and --review both give the start: 'play' in a review starts from the position shown")
    stray = _refused(_plyground("play", "--game-number", "2", cwd=folder))
    assert stray.endswith("--game-number 2 picks a game of the file given to --review; add --review FILE")


def test_an_analysed_game_is_reviewed_with_its_marks_evaluations_and_best_moves(checkers_games, tmp_path):
    """Issue #73, point 4: reviewing what ``plyground analyse`` wrote shows each move's mark (??), the engine's
    evaluation and its best move, as the report gave them."""
    path, _ = checkers_games
    (tmp_path / path.name).write_text(path.read_text())
    judged = _plyground("analyse", path.name, "--engine", "alphabeta:depth=3,eval=material", "--no-graph", "--quiet",
                        cwd=tmp_path)
    assert judged.returncode == 0, judged.stderr
    said = judged.stdout + judged.stderr
    number, dots, move, mark, best = re.search(r"^(\d+)(\.{1,3}) (\S+?)(\?\?|\?!|\?) +\w+ +.* best (\S+)$", said,
                                               re.M).groups()
    ply = 2 * int(number) - (1 if dots == "." else 0)          # Black moves first in checkers
    out = _plyground("play", "--review", f"{path.stem}.analysed.pdn", cwd=tmp_path, stdin=f"goto {ply}\nquit\n")
    assert out.returncode == 0, out.stderr
    shown = _prompts(out.stdout)[0]
    assert f"ply {ply} of " in shown and f": after {move}{mark} by " in shown, shown
    said = rf" \u2014 evaluation [+-]\d+\.\d\d for White; \w+ \(-\d+%\)\. Best: {re.escape(best)}\."
    assert re.search(said, shown), shown
