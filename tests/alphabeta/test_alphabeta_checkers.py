"""The compiled alpha-beta on checkers: shots and forced wins, agreement with a plain minimax,
and values that do not depend on the transposition table or the move order."""
import random

import numpy as np
import pytest

from plyground.games.checkers import CheckersGame, kernels
from plyground.games.checkers.alphabeta import compiled, features
from plyground.games.checkers.alphabeta.engine import CompiledEngine
from plyground.negamax.core import P_PVS, P_REDUCTIONS, P_TT_SAME_DEPTH
from plyground.errors import UsageError
from plyground.play.match import play_game
from plyground.players.alphabeta import AlphaBetaPlayer
from plyground.protocols import Budget

from move_helpers import random_play

MATE = compiled.MATE


@pytest.fixture(scope="module")
def game():
    return CheckersGame()


def engine(game, weights=None, use_tt=True, ordering=True, repetition=False):
    e = CompiledEngine(game, game.kernels(), features.material_weights() if weights is None else weights,
                       tt_mb=1, use_tt=use_tt, ordering=ordering, quiescence=True)
    e.ws.P[compiled.P_REPETITION] = int(repetition)
    return e


def search_value(e, pos, depth):
    e.ws.keys[0] = compiled.hash_position(pos)
    e.ws.P[compiled.P_KEY_BASE] = 0
    return e.search(pos, depth)


def minimax(pos, depth, w, ply=0):
    """Plain negamax, no pruning: the same rules (40-move rule, no stand pat in the capture search)."""
    moves = kernels.legal_codes(pos)
    result = kernels.outcome_with(pos, len(moves), 80, 0)
    if result >= 0:
        return 0.0 if result == 2 else -MATE + ply
    if depth <= 0 and (moves[0] >> 10) == 0:
        return features.evaluate(pos, w)
    best = -np.inf
    for code in moves:
        child = pos.copy()
        kernels.apply_move(child, code)
        best = max(best, -minimax(child, depth - 1, w, ply + 1))
    return best


def sample_positions(game, count, seed, min_plies=6, max_plies=70):
    """Positions from seeded random games (men and kings, captures pending or not)."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = random_play(game.new_initial_state(), rng.randint(min_plies, max_plies), rng)
        if not state.is_terminal():
            found.append(kernels.state_to_pos(state))
    return found


def random_weights(seed):
    rng = np.random.default_rng(seed)
    w = features.material_weights() + rng.normal(0, 15, features.NUM_FEATURES)
    w[features.MAN_VALUE] = 100.0
    return w


# ------------------------------------------------------------ shots and forced wins

@pytest.mark.parametrize("fen, depth, shallow, deep", [
    # A two-for-one: 18-23 gives a man, 27x18 is forced, 14x23x30 takes two and crowns.
    ("B:W9,15,19,24,26,27:B5,12,13,14,18,20", 6, None, "18-23"),
    # Crowning at once (26-30) looks best to a 1-ply search; 26-31 wins a man.
    ("B:W24,27:B7,10,26", 8, "26-30", "26-31"),
])
def test_finds_the_shot(game, fen, depth, shallow, deep):
    state = game.new_state(fen)
    player = AlphaBetaPlayer(game, depth=depth, eval="material")
    assert state.move_to_text(player.choose_move(state.clone())) == deep
    info = player.analysis()
    assert info["engine"] == "compiled" and info["depth"] == depth and info["pv"][0] == deep
    if shallow is not None:
        one_ply = AlphaBetaPlayer(game, depth=1, eval="material")
        assert state.move_to_text(one_ply.choose_move(state.clone())) == shallow
    # The shot's gain is real: a plain minimax sees the same value at a depth it can afford.
    pos = kernels.state_to_pos(state)
    w = features.material_weights()
    assert search_value(engine(game), pos, 4) == minimax(pos, 4, w)


@pytest.mark.parametrize("fen, plies, move", [
    ("B:W26:B15,16", 3, "15-18"),
    ("B:W17:B6,9", 5, "9-13"),
    ("B:W15,26:B3,18,28", 5, "3-7"),
    ("B:W18,27:B2,20,K30", 7, "30-26"),
])
def test_finds_the_forced_win(game, fen, plies, move):
    state = game.new_state(fen)
    player = AlphaBetaPlayer(game, depth=12)
    assert state.move_to_text(player.choose_move(state.clone())) == move
    assert player.analysis()["value"] == MATE - plies
    # Played out against the same search, Black wins in exactly that many plies.
    record = play_game(game, [AlphaBetaPlayer(game, depth=12), AlphaBetaPlayer(game, depth=12)], start=state)
    assert record.result_text == "1-0" and len(record.moves) == plies and record.reason == "no legal moves"
    if plies <= 5:
        pos = kernels.state_to_pos(state)
        assert minimax(pos, plies, features.material_weights()) == MATE - plies


def test_a_lost_side_takes_the_repetition_draw(game):
    state = game.new_state("W:WK1,K2:BK30")
    for text in "1-6 30-26 6-1 26-30 1-6 30-26 6-1".split():
        state.apply(state.parse_move(text))
    player = AlphaBetaPlayer(game, depth=8)
    move = player.choose_move(state.clone())
    # The draw is worth minus checkers' contempt (0.15 man) to the side that takes it: still more than a loss.
    assert state.move_to_text(move) == "26-30" and player.analysis()["value"] == pytest.approx(-15.0)


@pytest.mark.parametrize("contempt", [0.0, 0.25, -0.4])
def test_contempt_is_what_a_draw_by_the_rules_costs_the_searching_side(game, contempt):
    """One move from the no-progress rule, every move draws: the root's value is minus the contempt, however
    deep the search; a lost side still takes the repetition draw, at that price."""
    pos = kernels.state_to_pos(game.new_state("W:WK1,K3:BK30,K32"))
    pos[kernels.NO_PROGRESS] = game.kernels().no_progress_limit - 1
    e = engine(game)
    e.set_contempt(contempt)
    for depth in (1, 2, 4):
        assert search_value(e, pos, depth) == pytest.approx(-100 * contempt)
    state = game.new_state("W:WK1,K2:BK30")
    for text in "1-6 30-26 6-1 26-30 1-6 30-26 6-1".split():
        state.apply(state.parse_move(text))
    player = AlphaBetaPlayer(game, depth=8, eval="material", contempt=contempt, endgame="off")
    move = player.choose_move(state.clone())
    assert state.move_to_text(move) == "26-30" and player.analysis()["value"] == pytest.approx(-100 * contempt)


def test_with_contempt_a_level_side_plays_on_rather_than_repeat(game):
    """King against king, Black to move can repeat the position (26-30): without contempt that is as good as
    any move; with contempt, it plays another."""
    state = game.new_state("W:WK1:BK30")
    for text in "1-6 30-26 6-1".split():
        state.apply(state.parse_move(text))
    repeats = [state.move_to_text(m) for m in state.legal_moves()]
    assert "26-30" in repeats
    for contempt in (0.1, 0.5):
        player = AlphaBetaPlayer(game, depth=8, eval="material", contempt=contempt, endgame="off")
        assert state.move_to_text(player.choose_move(state.clone())) != "26-30"
        assert player.analysis()["value"] > -100 * contempt


def test_with_contempt_the_table_is_forgotten_when_the_side_to_move_changes(game):
    """Its values priced the draws for the other side; without contempt they hold for both and stay."""
    white = game.new_initial_state()
    white.apply(white.legal_moves()[0])
    black = white.clone()
    black.apply(black.legal_moves()[0])
    for contempt, kept in ((0.0, True), (0.15, False)):
        e = engine(game)
        e.set_contempt(contempt)
        e.think(white, 8, None, None)
        filled = np.count_nonzero(e.ws.ttk)
        e.think(black, 1, None, None)              # a one-ply search stores at most the root
        after = np.count_nonzero(e.ws.ttk)
        assert (after >= filled) == kept and after >= 1
        e.think(black, 3, None, None)              # the same side again: nothing to forget
        assert np.count_nonzero(e.ws.ttk) >= after


def test_contempt_needs_the_compiled_search(game):
    with pytest.raises(UsageError, match="contempt=0.2 needs a compiled search that prices draws"):
        AlphaBetaPlayer(game, contempt=0.2, kernels=False)


# ------------------------------------------------------------ agreement with minimax

@pytest.mark.parametrize("weights_seed", [None, 1])
def test_alphabeta_agrees_with_plain_minimax(game, weights_seed):
    w = features.material_weights() if weights_seed is None else random_weights(weights_seed)
    e = engine(game, w)
    for pos in sample_positions(game, 8, seed=11):
        for depth in (1, 2, 3):
            assert search_value(e, pos, depth) == minimax(pos, depth, w), (pos, depth)


def test_the_table_and_the_move_order_do_not_change_the_value(game):
    w = random_weights(2)
    engines = [engine(game, w, use_tt=t, ordering=o) for t in (False, True) for o in (False, True)]
    for pos in sample_positions(game, 10, seed=5, min_plies=20, max_plies=90):
        for depth in range(1, 7):
            values = {search_value(e, pos, depth) for e in engines}
            assert len(values) == 1, (pos, depth, values)
    # ... and pruning and the table save work.
    pos = sample_positions(game, 1, seed=3, min_plies=10, max_plies=10)[0]
    nodes = []
    for e in (engines[0], engines[3]):
        search_value(e, pos, 7)
        nodes.append(int(e.ws.C[compiled.C_NODES]))
    assert nodes[1] < nodes[0] / 2


def test_the_principal_variation_ends_in_the_leaf_that_gives_the_value(game):
    w = random_weights(3)
    e = engine(game, w)
    for pos in sample_positions(game, 6, seed=8):
        value = search_value(e, pos, 3)
        leaf = pos.copy()
        for code in e.ws.pv[0, :e.ws.pvlen[0]]:
            assert code in kernels.legal_codes(leaf)
            kernels.apply_move(leaf, code)
        if abs(value) < compiled.MATE_BOUND and len(kernels.legal_codes(leaf)):
            assert features.evaluate_boards(*leaf[:4], pos[4], w) == pytest.approx(value, abs=1e-9)


def test_the_compiled_evaluation_matches_the_feature_vector(game):
    w = random_weights(4)
    for pos in sample_positions(game, 20, seed=9):
        phi = features.dense_features(pos)
        assert features.evaluate(pos, w) == pytest.approx(float(w @ phi), abs=1e-9)
        other = features.dense_features(pos, 1 - int(pos[4]))
        assert np.allclose(other, -phi)          # zero-sum: one side's gain is the other's loss


# ------------------------------------------------------------ limits

def test_depth_time_and_node_limits(game):
    state = game.new_initial_state()      # in the opening book: book=none, so that every player here searches it
    player = AlphaBetaPlayer(game, depth=5, book="none")
    player.choose_move(state.clone())
    assert player.analysis()["depth"] == 5
    by_nodes = AlphaBetaPlayer(game, depth=40, nodes=5000, book="none")
    move = by_nodes.choose_move(state.clone())
    info = by_nodes.analysis()
    assert move in state.legal_moves() and info["depth"] < 40 and info["nodes"] <= 5000 + 1
    timed = AlphaBetaPlayer(game, depth=64, book="none")
    move = timed.choose_move(state.clone(), Budget(seconds=0.05))
    assert move in state.legal_moves() and timed.analysis()["depth"] < 64
    # The match's simulation budget is a node limit for this player.
    budgeted = AlphaBetaPlayer(game, depth=40, book="none")
    budgeted.choose_move(state.clone(), Budget(simulations=2000))
    assert budgeted.analysis()["nodes"] <= 2001


def test_a_forced_move_is_played_without_search(game):
    state = game.new_state("B:W14:B9,K32")     # 9x18 is the only legal move
    player = AlphaBetaPlayer(game)
    assert state.move_to_text(player.choose_move(state.clone())) == "9x18"
    assert player.analysis()["forced"]


def test_alphabeta_beats_random(game):
    from plyground.players.random_player import RandomPlayer
    for seed in range(2):
        ab, rnd = AlphaBetaPlayer(game, depth=4), RandomPlayer(game)
        players = [ab, rnd] if seed == 0 else [rnd, ab]
        record = play_game(game, players, seed=seed)
        assert record.score(0 if seed == 0 else 1) == 1.0, (record.moves, record.reason)


# ------------------------------------------------------------ windows and search modes

def test_a_window_gives_the_value_inside_it_and_a_bound_outside(game):
    w = random_weights(6)
    e = engine(game, w)
    for pos in sample_positions(game, 8, seed=21, min_plies=10, max_plies=60):
        for depth in (3, 5):
            v = search_value(e, pos, depth)
            if abs(v) > compiled.MATE_BOUND:
                continue
            e.ws.keys[0] = compiled.hash_position(pos)
            assert e.search(pos, depth, window=(v - 30.0, v + 30.0)) == v
            low = e.search(pos, depth, window=(v + 10.0, v + 60.0))        # fails low: an upper bound
            assert v <= low <= v + 10.0
            high = e.search(pos, depth, window=(v - 60.0, v - 10.0))       # fails high: a lower bound
            assert v - 10.0 <= high <= v


def test_principal_variation_search_with_aspiration_windows_keeps_the_exact_value(game):
    """search=pvs without a table: null windows and aspiration windows (re-searched where they fail) change the
    work, not the value: the exact search's at every depth."""
    w = random_weights(7)
    exact = engine(game, w)
    pvs = CompiledEngine(game, game.kernels(), w, tt_mb=1, use_tt=False, ordering=True, quiescence=True,
                         search="pvs")
    assert pvs.ws.P[P_TT_SAME_DEPTH] == 0 and pvs.ws.P[P_REDUCTIONS] == 0
    checked = 0
    rng = random.Random(23)
    states = []
    while len(states) < 10:
        state = random_play(game.new_initial_state(), rng.randint(10, 60), rng)
        if not state.is_terminal() and len(state.legal_moves()) > 1:
            states.append(state)
    for state in states:
        pos = kernels.state_to_pos(state)
        for depth in (4, 6):
            found = []
            result = pvs.think(state, depth, None, None, on_depth=found.append)
            assert [f["depth"] for f in found] == list(range(1, len(found) + 1))
            if result["depth"] == depth:
                assert result["value"] == search_value(exact, pos, depth), (state.to_text(), depth)
                checked += 1
    assert checked >= 10


def test_the_search_option_sets_the_compiled_search(game):
    from plyground.errors import OptionError
    modes = {}
    for mode in ("exact", "pvs", "reduced"):
        player = AlphaBetaPlayer(game, depth=6, search=mode)
        player.choose_move(game.new_initial_state())
        P = player._get_engine().ws.P
        modes[mode] = (int(P[P_PVS]), int(P[P_REDUCTIONS]), int(P[P_TT_SAME_DEPTH]))
    assert modes == {"exact": (0, 0, 1), "pvs": (1, 0, 0), "reduced": (1, 1, 0)}
    auto = AlphaBetaPlayer(game, depth=6)
    auto.choose_move(game.new_initial_state())
    assert int(auto._get_engine().ws.P[P_REDUCTIONS]) == 1          # checkers chooses reduced
    with pytest.raises(OptionError, match="search.*exact, pvs, reduced"):
        AlphaBetaPlayer(game, search="fast")
