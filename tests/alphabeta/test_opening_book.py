"""alphabeta's opening book (issue #74 point 5): ``plyground book build`` counts the moves of real games in the
positions of the opening, the player draws its moves from the book while the position is in it (seeded, so games
differ but replay), searches everywhere else and whenever it judges positions, and every bad book is one line
naming the option.  The match with and without the book: ``python benchmarks/opening_book.py``."""
from __future__ import annotations

import collections
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import chess
import chess.engine
import numpy as np
import pytest

from plyground.analysis import analysis_lines
from plyground.play.book import BOOK_MODEL, BookMove, MoveCounts, OpeningBook, open_book, select_moves
from plyground.files.bundled_data import records_file
from plyground.capabilities import bundled_model, stable_hash
from plyground.errors import ModelFileError
from plyground.play.match import play_game
from plyground.options import remote_refusal
from plyground.players.alphabeta.player import AlphaBetaPlayer
from plyground.protocols import Budget, GameRecord
from plyground.registry import get_registry

#: A position no book holds: two kings against two.
ENDGAME = "W:WK29,K30:BK1,K5"


@pytest.fixture(scope="module")
def checkers():
    return get_registry().make_game("checkers")


@pytest.fixture(scope="module")
def acf_sample(checkers, tmp_path_factory):
    """The first 400 games of the ACF archive as a PDN file of their own."""
    text = records_file(checkers, "acf", "--from").read_text(encoding="utf-8")
    starts = [m.start() for m in re.finditer(r"^\[Event ", text, flags=re.MULTILINE)]
    path = tmp_path_factory.mktemp("book") / "sample.pdn"
    path.write_text(text[:starts[400]], encoding="utf-8")
    return path


def _player(game, **options) -> AlphaBetaPlayer:
    return AlphaBetaPlayer(game, depth=2, **options)


# ------------------------------------------------------------------ building

def test_the_build_command_counts_the_moves_of_the_games(cli, checkers, acf_sample, tmp_path):
    out = tmp_path / "book.npz"
    code, stdout, err = cli("book", "build", "--from", acf_sample, "--plies", 6, "--min-games", 5, "--margin", 1,
                            "--out", out, "--quiet")
    assert code == 0, err
    assert f"{out}: checkers opening book" in stdout and "from 400 games" in stdout
    book = OpeningBook.load(out, checkers)
    # Counted here another way: positions by their text, points from each record's result.
    seen: dict[str, dict[str, list[int]]] = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0]))
    states = {}
    for record in checkers.read_records(acf_sample.read_text(encoding="utf-8")):
        state = checkers.new_initial_state()
        for text in record.moves[:6]:
            move = state.parse_move(text)
            entry = seen[state.to_text()][state.move_to_text(move)]
            entry[0] += 1
            entry[1] += {1.0: 2, 0.5: 1, 0.0: 0}[record.score(state.current_player())]
            states.setdefault(state.to_text(), state.clone())
            state.apply(move)
    expected = {}
    for position, moves in seen.items():
        if sum(games for games, _ in moves.values()) >= 5:
            kept = {move: tuple(counts) for move, counts in moves.items() if counts[0] >= 5}
            if kept:
                expected[position] = kept
    assert len(book) == len(expected) > 20
    for position, kept in expected.items():
        assert {e.move: (e.games, e.half_points) for e in book.moves(states[position])} == kept, position
    root = book.moves(checkers.new_initial_state())
    assert sum(e.games for e in root) == 400 and root[0].games == max(e.games for e in root)   # most played first


def test_a_move_far_below_the_best_is_left_out_and_rare_moves_too():
    made = MoveCounts({7: {"a": [100, 150], "b": [100, 90], "c": [4, 8], "d": [60, 60]}}, {7: ()}, 1)
    kept = select_moves(made, min_games=5, margin=0.1)[7]
    # a scores (75 + 5) / 110 = 73%, d 50%: more than 0.1 below, so d goes; b 45% too; c has too few games
    assert [e.move for e in kept] == ["a"]
    assert [e.move for e in select_moves(made, min_games=5, margin=0.25)[7]] == ["a", "d"]      # d 50%, b 45%
    assert select_moves(made, min_games=500, margin=1.0) == {}


def test_the_build_judged_by_an_engine_keeps_its_scores(cli, checkers, acf_sample, tmp_path):
    out = tmp_path / "judged.npz"
    code, stdout, err = cli("book", "build", "--from", acf_sample, "--plies", 2, "--min-games", 20,
                            "--verify", "alphabeta:depth=2,eval=material", "--verify-margin", "1", "--out", out)
    assert code == 0, err
    assert "judged by alphabeta:depth=2,eval=material" in stdout
    book = OpeningBook.load(out, checkers)
    assert book.metadata["verify"] == "alphabeta:depth=2,eval=material"
    assert all(e.engine is not None and 0.0 <= e.engine <= 1.0 for e in book.moves(checkers.new_initial_state()))


def test_the_show_command_lists_a_positions_moves(cli):
    code, stdout, err = cli("book", "show", "--moves", "11-15")
    assert code == 0, err
    assert "checkers book:" in stdout and "games" in stdout and "23-18" in stdout
    code, stdout, err = cli("book", "show", "--fen", ENDGAME)
    assert code == 0 and "not in the book" in stdout


def test_checkers_ships_its_book_and_chess_has_none(checkers):
    book = open_book(checkers, "auto")
    assert book is not None and len(book) > 1000 and book.metadata["source"] == "acf"
    assert bundled_model(checkers, BOOK_MODEL).stat().st_size < 100_000
    assert {e.move for e in book.moves(checkers.new_initial_state())} <= {"9-13", "9-14", "10-14", "10-15",
                                                                           "11-15", "11-16", "12-16"}
    assert open_book(get_registry().make_game("chess"), "auto") is None
    assert open_book(checkers, "none") is None


# ------------------------------------------------------------------ playing

def _game_moves(game, seed: int, max_plies: int = 20) -> list[str]:
    players = [_player(game), _player(game)]
    try:
        return play_game(game, players, seed=seed, max_plies=max_plies, move_limit_seconds=None).moves
    finally:
        for player in players:
            player.close()


def test_book_moves_from_the_initial_position_differ_by_seed_and_replay_with_one(checkers):
    book = open_book(checkers, "auto")
    games = {seed: _game_moves(checkers, seed) for seed in (1, 2, 3, 4)}
    for moves in games.values():
        state, in_book = checkers.new_initial_state(), 0
        for text in moves:
            entries = book.moves(state)
            if entries:
                assert text in {e.move for e in entries}, (moves, text)
                in_book += 1
            state.apply(state.parse_move(text))
        assert in_book >= 2
    assert len({tuple(moves[:8]) for moves in games.values()}) > 1          # games differ...
    assert _game_moves(checkers, 3) == games[3]                             # ...and replay with their seed


def test_the_analysis_says_book(checkers):
    player = _player(checkers)
    try:
        player.reset(5)
        move = player.choose_move(checkers.new_initial_state(), Budget())
        analysis = player.analysis()
    finally:
        player.close()
    assert analysis["engine"] == "book" and analysis["move"] == checkers.new_initial_state().move_to_text(move)
    assert analysis["book"][0]["games"] > 0 and len(analysis["book"]) == 7        # the seven first moves
    lines = analysis_lines(analysis, "Black")
    assert lines[0] == f"book move {analysis['move']}" and lines[1].startswith("book: 11-15 (")


def test_without_the_book_out_of_it_and_judging_it_searches(checkers):
    def searched(player, state) -> bool:
        try:
            player.choose_move(state, Budget())
            return player.analysis()["engine"] != "book" and player.analysis()["depth"] >= 1
        finally:
            player.close()
    initial = checkers.new_initial_state()
    assert searched(_player(checkers, book="none"), initial)
    assert searched(_player(checkers), checkers.new_state(ENDGAME))
    judge = _player(checkers)
    judge.analysing = True                    # a report's judge, a hint, an infinite analysis
    assert searched(judge, initial)


def test_the_warm_up_compiles_the_search_though_the_book_holds_the_position(checkers):
    player = _player(checkers)
    try:
        player.warm_up()
        assert player._engine is not None and player.analysis() is None
    finally:
        player.close()


def test_a_game_report_searches_the_positions_of_the_book(checkers, tmp_path):
    from plyground.play.report import analyse, open_game
    path = tmp_path / "short.pdn"
    path.write_text(checkers.format_records([GameRecord("checkers", ("a", "b"), checkers.new_initial_state().to_text(),
                                                        ["11-15", "23-19", "8-11"],
                                                        finished=False)]), encoding="utf-8")
    judge = _player(checkers)
    try:
        report = analyse(open_game(checkers, path), judge, Budget())
    finally:
        judge.close()
    assert judge.analysing and all(verdict.first is not None for verdict in report.positions[:3])


def test_a_bootstrap_teacher_labels_positions_of_the_book_with_a_search(checkers, tmp_path):
    from plyground.plugins.trainers.alphazero import bootstrap
    settings = bootstrap.BootstrapSettings(games=tmp_path, teacher="alphabeta:eval=learned,depth=2", positions=1,
                                           epochs=1, seed=1)
    labeller = bootstrap.Labeller(checkers, tmp_path, settings, lambda line: None)
    try:
        row = labeller._label(bootstrap.Position(checkers.new_initial_state(), None, float("nan")))
    finally:
        labeller.teacher.close()
    assert isinstance(row[3], float)                       # a search value (a book move has none)


# ------------------------------------------------------------------ bad books

def test_bad_books_are_one_line_naming_the_option(checkers, tmp_path, cli):
    missing = tmp_path / "missing.npz"
    with pytest.raises(ModelFileError, match=re.escape(f"book={missing} does not exist")):
        _player(checkers, book=str(missing))
    text = tmp_path / "notes.npz"
    text.write_text("not a book")
    with pytest.raises(ModelFileError, match=re.escape(f"book={text} is corrupt or not an .npz archive")):
        _player(checkers, book=str(text))
    network = bundled_model(checkers, "alphabeta-nnue")
    with pytest.raises(ModelFileError, match=re.escape(f"book={network} is not a plyground opening book")):
        _player(checkers, book=str(network))
    chess = get_registry().make_game("chess")
    chess_book = tmp_path / "chess.npz"
    OpeningBook("chess", {stable_hash(chess.new_initial_state()): [BookMove("e4", 3, 4)]},
                {"initial_hash": stable_hash(chess.new_initial_state())}).save(chess_book)
    with pytest.raises(ModelFileError, match=re.escape(f"book={chess_book} is an opening book for 'chess', not "
                                                       f"checkers")):
        _player(checkers, book=str(chess_book))
    stale = tmp_path / "stale.npz"
    OpeningBook("checkers", {12345: [BookMove("11-15", 3, 4)]}, {"initial_hash": 1}).save(stale)
    with pytest.raises(ModelFileError, match="built with other position hashes.*rebuild it"):
        _player(checkers, book=str(stale))
    with pytest.raises(ModelFileError, match="book=.*tictactoe has no opening books"):
        AlphaBetaPlayer(get_registry().make_game("tictactoe"), book=str(stale))
    code, _, err = cli("match", "--game", "checkers", "--black", f"alphabeta:book={missing}", "--white", "random",
                       "-n", "1")
    assert code == 2 and err.strip().splitlines() == [f"plyground: error: book={missing} does not exist"]


def test_a_web_page_may_turn_the_book_off_but_not_name_a_file():
    options = AlphaBetaPlayer.options
    assert remote_refusal(options, {"book": "none"}, "alphabeta") is None
    assert remote_refusal(options, {"book": "auto"}, "alphabeta") is None
    assert "book" in remote_refusal(options, {"book": "/etc/passwd"}, "alphabeta")


def test_a_book_made_by_hand_round_trips(checkers, tmp_path):
    state = checkers.new_initial_state()
    book = OpeningBook("checkers", {stable_hash(state): [BookMove("11-15", 9, 10, 0.5), BookMove("9-14", 1, 2)]},
                       {"initial_hash": stable_hash(state)})
    book.save(tmp_path / "b.npz")
    again = OpeningBook.load(tmp_path / "b.npz", checkers)
    assert again.moves(state) == book.moves(state)
    draws = collections.Counter(again.choose(state, np.random.default_rng(seed))[1].move for seed in range(200))
    assert draws["11-15"] > 150 and draws["9-14"] > 5       # as likely as the games that played them: 90% and 10%


# ------------------------------------------------------------------ any game with stable hashes: chess over UCI

def test_a_chess_book_plays_over_uci_and_infinite_analysis_searches(cli, tmp_path):
    games = tmp_path / "games.pgn"
    games.write_text("".join(f'[Event "{n}"]\n[Result "{result}"]\n\n1. e4 e5 2. Nf3 Nc6 {result}\n\n'
                             for n, result in enumerate(["1-0", "1/2-1/2", "0-1"])), encoding="utf-8")
    book = tmp_path / "chess-book.npz"
    code, stdout, err = cli("book", "build", "--game", "chess", "--from", games, "--plies", 2, "--min-games", 2,
                            "--out", book, "--quiet")
    assert code == 0 and "chess opening book, 2 positions, 2 moves" in stdout, err
    plyground = str(Path(sys.executable).parent / "plyground")
    with chess.engine.SimpleEngine.popen_uci([plyground, "uci", f"alphabeta:depth=2,book={book}"], timeout=60) as ours:
        played = ours.play(chess.Board(), chess.engine.Limit(time=2), info=chess.engine.INFO_ALL)
        assert played.move == chess.Move.from_uci("e2e4")             # the book's one move, with an info line
        assert played.info["pv"] == [chess.Move.from_uci("e2e4")] and "score" not in played.info
        with ours.analysis(chess.Board()) as analysis:                # infinite: a search, not the book
            waiting = ThreadPoolExecutor(1)
            try:
                first = waiting.submit(analysis.get).result(timeout=30)
                analysis.stop()
                waiting.submit(analysis.wait).result(timeout=30)
            finally:
                waiting.shutdown(wait=False)
        assert first["nodes"] > 0
