"""The 4-piece database against the literature (First Position) and in the players' hands: exact values
in every search, won endings converted against perfect defence, results shown in the analysis."""
from __future__ import annotations

import numpy as np
import pytest

from plyground.analysis import analysis_lines
from plyground.errors import UsageError
from plyground.games.checkers import CheckersGame
from plyground.games.checkers.endgame import index
from plyground.capabilities import endgame_oracle
from plyground.registry import get_registry

from endgame_checks import check_slice
from search_pairs import assert_same_tree, pair

GAME = CheckersGame()
#: "First Position" (e.g. the ACF's standard positions): White's king and man against Black's king and
#: man; White wins only with the move (the ACF's solution starts 15-19).
FIRST_POSITION = "W:W20,K15:B12,K28"


def test_a_sample_of_every_four_piece_slice_agrees_with_its_moves(four):
    db, _ = four
    rng = np.random.default_rng(23)
    for s in index.slices(4):
        if sum(s) == 4:
            entries = rng.integers(0, 2 * db.sizes[s], 3_000)
            assert check_slice(db, s, entries) == 0, s


def test_first_position_is_a_win_with_the_move_and_a_draw_without(four, endgame_dir):
    oracle = endgame_oracle(GAME, "4")
    with_move = GAME.new_state(FIRST_POSITION)
    assert oracle.words(with_move) == "win in 81 plies"
    assert oracle.words(GAME.new_state("B" + FIRST_POSITION[1:])) == "draw"
    assert [with_move.move_to_text(m) for m in oracle.perfect_moves(with_move)] == ["15-19"]


def play_out(state, attacker, defender_oracle, side_of_attacker):
    """Moves until the game ends: ``attacker`` for its side, the database's longest resistance for the
    other; (the final state, plies played)."""
    plies = 0
    while not state.is_terminal():
        if state.current_player() == side_of_attacker:
            move = attacker.choose_move(state)
        else:
            move = defender_oracle.perfect_moves(state)[0]
        state.apply(move)
        plies += 1
    return state, plies


@pytest.mark.parametrize("spec", ["alphabeta:eval=learned,depth=8", "mcts:simulations=300", "alphazero:simulations=50"])
def test_players_with_the_database_win_first_position_against_perfect_defence(spec, endgame_dir):
    oracle = endgame_oracle(GAME, "4")
    player = get_registry().make_player(spec, GAME)       # endgame=auto: the database in endgame_dir
    end, plies = play_out(GAME.new_state(FIRST_POSITION), player, oracle, side_of_attacker=1)
    assert end.returns() == (-1.0, 1.0), end.outcome_reason()
    assert plies == 81            # the shortest win: each move keeps the distance falling


def test_alphabeta_scores_database_positions_exactly_and_says_so(endgame_dir):
    player = get_registry().make_player("alphabeta:eval=learned,depth=6", GAME)
    player.choose_move(GAME.new_state(FIRST_POSITION))
    lines = analysis_lines(player.analysis(), "White")
    assert "win in 81 plies for White" in lines
    assert "database: win in 81 plies for White" in lines
    off = get_registry().make_player("alphabeta:eval=learned,depth=6,endgame=off", GAME)
    off.choose_move(GAME.new_state(FIRST_POSITION))
    assert not any("database" in line or "win in" in line for line in analysis_lines(off.analysis(), "White"))


def test_mcts_proves_database_positions(endgame_dir):
    for spec in ("mcts:simulations=200", "mcts:simulations=200,kernels=false"):
        player = get_registry().make_player(spec, GAME)
        player.choose_move(GAME.new_state("B:W20,K15:B12,K28"))
        assert player.analysis()["proven"] == "draw", spec
        assert "database: draw for Black" in analysis_lines(player.analysis(), "Black")


def test_alphazero_shows_what_its_tree_proved_in_both_loops(endgame_dir):
    """Every move from four pieces leads into the database: the tree proves the root, compiled or not."""
    for spec in ("alphazero:simulations=200", "alphazero:simulations=200,compiled=false"):
        player = get_registry().make_player(spec, GAME)
        player.choose_move(GAME.new_state("B:W20,K15:B12,K28"))
        assert player.analysis()["proven"] == "draw", spec


def test_the_trainer_ends_selfplay_games_at_database_positions(endgame_dir):
    from plyground.plugins.trainers.alphazero.playbook import Playbook
    from plyground.plugins.trainers.alphazero.trainer import AlphaZeroTrainer
    from plyground.options import resolve_options
    config = resolve_options(AlphaZeroTrainer.options, {"endgame": "4"}, "trainer alphazero")
    adjudicate = Playbook(GAME, config).selfplay_adjudicator()
    assert adjudicate(GAME.new_initial_state(), 0) is None
    returns, reason = adjudicate(GAME.new_state(FIRST_POSITION), 90)
    assert returns == (-1.0, 1.0) and reason == "endgame database (win in 81 plies for the side to move)"
    off = resolve_options(AlphaZeroTrainer.options, {}, "trainer alphazero")
    assert Playbook(GAME, off).selfplay_adjudicator() is None        # off unless asked for


def test_bad_endgame_options_are_named(tmp_path, monkeypatch):
    registry = get_registry()
    with pytest.raises(UsageError, match="endgame='nine' is not valid: use 'auto', 'off' or a number"):
        registry.make_player("alphabeta:endgame=nine", GAME)
    monkeypatch.setenv("PLYGROUND_ENDGAME_DIR", str(tmp_path))
    for spec in ("alphabeta:endgame=5", "mcts:endgame=5"):          # refused when made, before any game
        with pytest.raises(UsageError, match="build it with: plyground endgame build --pieces 5"):
            registry.make_player(spec, GAME)
    chess = registry.make_game("tictactoe")
    with pytest.raises(UsageError, match="endgame databases exist for checkers only"):
        endgame_oracle(chess, "4")
    assert endgame_oracle(chess, "auto") is None


def test_auto_passes_over_a_database_it_cannot_read_and_a_number_names_it(four, tmp_path, monkeypatch, capsys):
    import zipfile
    from plyground.errors import ModelFileError
    _, directory = four
    for path in directory.glob("slice-*.npz"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    damaged = tmp_path / "slice-0101.npz"
    with zipfile.ZipFile(damaged, "w") as archive:      # a zip, but not a slice file of this format
        archive.writestr("result.npy", b"")
    monkeypatch.setenv("PLYGROUND_ENDGAME_DIR", str(tmp_path))
    assert endgame_oracle(GAME, "auto") is None
    assert "not using the endgame database" in capsys.readouterr().err
    assert get_registry().make_player("alphabeta", GAME).choose_move(GAME.new_initial_state()) is not None
    with pytest.raises(ModelFileError, match="slice-0101.npz"):
        endgame_oracle(GAME, "4")


def test_the_compiled_alphazero_search_reads_the_database_as_the_state_loop_does(endgame_dir):
    """Five pieces: every capture leads into the 4-piece database, whose positions end the searches with their
    exact result -- in the compiled loop (the oracle's compiled lookup) exactly as in the State-API loop."""
    state = GAME.new_state("W:W20,22,K15:B12,K28")
    a, b = pair(GAME)
    for search in (a, b):
        search.oracle = endgame_oracle(GAME, "4")
        search.set_root(state.clone(), reuse=False)
        search.run(400)
    assert_same_tree(a, b)
    known = [node for node in range(b.size) if b.flag[node] == 2 and b.proof[node] > 0]
    assert known, "no search reached the database"
    assert b.root_proof() is None or b.root_proof()[0] in ("win", "draw", "loss")
