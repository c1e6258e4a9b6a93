"""The console at play, through real stdin: one line per turn naming who is to move, `moves` listed
as the errors list them, and the `fen` and `pgn` commands."""
from __future__ import annotations

import re

import pytest

from console_helpers import answers, play_in_console
from plugin_helpers import registered
from plyground.board_text import sorted_moves_line
from plyground.errors import MoveError
from plyground.games.tictactoe import TicTacToe
from plyground.hookspecs import hookimpl
from plyground.registry import get_registry
from record_dates import dates_of_a_game_just_played

BOT = "random:seed=1"


class PlainTicTacToe(TicTacToe):
    """Tic-tac-toe drawn as a third-party game may draw it: its position text, naming nobody."""

    name = "plain-tictactoe"

    def render_text(self, state, last_move=None, color: bool = False) -> str:
        return state.to_text()


class TestGames:
    @hookimpl
    def register_games(self):
        return [PlainTicTacToe]


@pytest.mark.parametrize("game, move, after", [       # the person's first move, the line shown after it
    ("chess", "e4", f"Black ({BOT}) to move   Last move: 1.e4"),
    ("checkers", "11-15", f"White ({BOT}, wW) to move   Last move: 11-15"),
    ("tictactoe", "b2", f"O ({BOT}) to move   Last move: b2"),
])
def test_each_turn_has_one_line_naming_the_player_to_move(game, move, after):
    record, out = play_in_console(game, ("human", BOT), [move, "quit"])
    lines = out.splitlines()
    turns = [line for line in lines if " to move" in line]
    assert len(turns) == 3, out                      # the start, after the move, after the bot's reply
    assert after in lines
    assert all("(human" in line or f"({BOT}" in line for line in turns)
    assert not any(line.startswith("after ") for line in lines)
    assert record.moves[0] == move and len(record.moves) == 2


def test_a_picture_without_a_status_line_gets_the_consoles_own_turn_line():
    """A game whose picture does not name the players is told apart by
    ``capabilities.pictures_name_players``: the console adds one turn line of its own."""
    with registered(TestGames(), "console-test-games"):
        record, out = play_in_console("plain-tictactoe", ("human", BOT), ["b2", "quit"])
    lines = out.splitlines()
    assert "X (human) to move" in lines and f"after b2, O ({BOT}) to move" in lines
    assert sum(" to move" in line for line in lines) == 3
    assert record.moves[0] == "b2"


@pytest.mark.parametrize("game, typed, listing, error", [
    ("chess", ["Nd4"], "Legal moves (20): ", "Legal moves: "),
    ("checkers", ["11-17"], "Legal moves (7): ", "Legal moves: "),
    ("tictactoe", ["b2", "b2"], "Legal moves (7): ", "legal: "),   # b2 again: the cell is taken
])
def test_moves_lists_the_moves_as_an_illegal_move_is_answered(game, typed, listing, error):
    _, out = play_in_console(game, ("human", BOT), [*typed, "moves", "quit"])
    replies = answers(out, get_registry().make_game(game).side_names[0])
    refusal, moves = replies[len(typed) - 1], replies[len(typed)]
    assert moves.startswith(listing)
    assert refusal.rstrip("\n").split(error)[1] == moves.rstrip("\n")[len(listing):], (refusal, moves)


def test_moves_of_a_game_without_its_own_listing_are_sorted():
    chess = get_registry().make_game("chess")
    state = chess.new_initial_state()
    generated = [state.move_to_text(m) for m in state.legal_moves()]
    assert generated != sorted(generated)            # python-chess generates knights' moves first
    assert sorted_moves_line(state) == f"Legal moves (20): {' '.join(sorted(generated))}"


@pytest.mark.parametrize("game, typed", [("chess", ["e4", "Nf3"]), ("checkers", ["11-15", "9-13"]),
                                         ("tictactoe", ["b2"])])
def test_fen_prints_the_position_as_the_fen_option_takes_it(game, typed):
    record, out = play_in_console(game, ("human", BOT), [*typed, "fen", "quit"])
    printed = answers(out, get_registry().make_game(game).side_names[0])[len(typed)].rstrip("\n")
    rules = get_registry().make_game(game)
    state = rules.new_state(record.start)
    for text in record.moves:
        state.apply(state.parse_move(text))
    assert printed == state.to_text() and rules.new_state(printed).to_text() == printed


def test_pgn_prints_the_game_so_far_and_follows_a_take_back():
    typed = ["e4", "Nf3", "pgn", "undo", "record", "quit"]
    record, out = play_in_console("chess", ("human", BOT), typed)
    chess = get_registry().make_game("chess")
    replies = answers(out, "White")
    before, after = chess.read_records(replies[2]), chess.read_records(replies[4])
    assert len(before) == len(after) == 1
    assert before[0].moves[:3] == ["e4", record.moves[1], "Nf3"] and len(before[0].moves) == 4
    assert after[0].moves == record.moves and len(after[0].moves) == 2          # taken back: Nf3 and the reply
    assert before[0].result_text == "*" and before[0].players == ("human", BOT)
    assert before[0].tags["Date"] in dates_of_a_game_just_played()
    assert '[Date "????.??.??"]' not in replies[2]


def test_pdn_prints_a_checkers_game_from_its_start_position():
    start = "W:W18,22,25:B5,9,K14"
    game = get_registry().make_game("checkers")
    record, out = play_in_console("checkers", (BOT, "human"), ["22-17", "pdn", "quit"], start=start)
    written = game.read_records(answers(out, "White")[1])[0]
    assert written.start == record.start == game.new_state(start).to_text()
    assert written.moves == record.moves and written.moves[0] == "22-17"
    assert written.tags["Date"] in dates_of_a_game_just_played()


def test_help_and_hint_name_the_new_commands():
    _, chess_out = play_in_console("chess", ("human", BOT), ["help", "quit"])
    _, checkers_out = play_in_console("checkers", ("human", BOT), ["help", "quit"])
    assert "Type a move, or: moves, board, fen, pgn, save, hint, analysis, help, undo, resign, quit." in chess_out
    assert "Type a move, or: moves, board, fen, pdn, save, hint, analysis, help, undo, resign, quit." in checkers_out
    assert re.search(r"^  save \[F\] save the game so far to file F \(default checkers-saved.pdn in ", checkers_out, re.M)
    assert re.search(r"^  hint +what a bot would play here", chess_out, re.M)
    assert re.search(r"^  fen +the position as text, as --fen takes it", chess_out, re.M)
    assert re.search(r"^  pgn +the game so far in the game's record format \(also: pdn, record\)", chess_out, re.M)
    assert re.search(r"^  pdn +the game so far in the game's record format \(also: pgn, record\)", checkers_out, re.M)


#: Every word the move prompt takes as a command (save and analysis also take a word after them).
PROMPT_COMMANDS = ("moves", "?", "legal", "board", "fen", "position", "pgn", "pdn", "record", "save", "hint",
                   "analysis", "a", "analysis on", "analysis off", "help", "h", "undo", "takeback", "take back",
                   "resign", "quit", "q", "exit")


def test_help_lists_every_command_the_prompt_takes(tmp_path, monkeypatch):
    monkeypatch.setenv("PLYGROUND_GAMES", str(tmp_path))      # where 'save' writes
    _, out = play_in_console("chess", ("human", BOT), ["help", "quit"])
    listed = out.split("Commands at the move prompt:")[1].split("Rules:")[0]
    words = set(re.findall(r"^  (\S+)", listed, re.M))                       # each command's name
    for also in re.findall(r"\(also: ([^)]*)\)", " ".join(listed.split())):  # and its other words
        words.update(word.strip() for word in also.split(","))
    words.update(re.findall(r"'(\w+ \w+)'", listed))                         # 'analysis on', quoted
    assert set(PROMPT_COMMANDS) <= words, set(PROMPT_COMMANDS) - words
    chess = get_registry().make_game("chess")
    for word in PROMPT_COMMANDS:               # and each is a command there, not taken for a move
        _, out = play_in_console("chess", ("human", BOT), [word, "quit"])
        answer = answers(out, "White")[0]
        try:
            chess.new_initial_state().parse_move(word)
        except MoveError as exc:
            assert str(exc) not in answer, word


def test_promotion_typos_re_prompt_and_the_game_goes_on():
    # White to move with a pawn on b7: e7=Q (no pawn there), b8=K (not to a king) and bxa8=K are refused,
    # each with its reason, and the person is asked again until b8=Q.
    record, out = play_in_console("chess", ("human", "random:seed=1"), ["e7=Q", "b8=K", "bxa8=K", "b8=Q", "quit"],
                                  start="n6k/1P6/8/8/8/8/8/K7 w - - 0 1")
    replies = answers(out, "White")
    assert "e7=Q is not legal here" in replies[0] and "Traceback" not in out
    assert "not to a king" in replies[1] and "not to a king" in replies[2]
    assert record.moves[0] == "b8=Q+"                 # check, in SAN


def test_chess_san_typed_in_lower_case_is_played_and_an_unreadable_move_lists_the_legal_ones():
    """Issue #73, point 6: ``nf3`` (the knight's letter in lower case) is Nf3, the one move it can mean; a move
    that cannot be read at all is answered, as any bad move is, with the legal moves."""
    record, out = play_in_console("chess", ("human", BOT), ["nf3", "zz9", "quit"])
    assert record.moves[0] == "Nf3"
    refused = answers(out, "White")[1]
    assert "cannot read 'zz9' as a chess move" in refused and "Legal moves: " in refused
