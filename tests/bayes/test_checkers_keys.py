"""The checkers adapter: move keys, board features, and the compiled encoder against the generic one."""
import numpy as np
import pytest

from plyground.errors import UsageError
from plyground.learning.movekeys import BayesAdapter
from plyground.plugins.bayes.adapter import get_adapter
from plyground.games.checkers.bayes_keys import PP_SIZE, CheckersAdapter


@pytest.fixture(scope="module")
def adapter():
    return CheckersAdapter()


def test_keys_are_seen_from_the_mover(adapter, checkers):
    state = checkers.new_initial_state()
    black = state.parse_move("11-15")
    [key] = adapter.move_keys(state, [black], "hybrid")
    assert adapter.describe_key("hybrid", key) == "man 11-15 (quiet)"
    state.apply(black)
    white = state.parse_move("22-18")            # White's 22-18 is Black's 11-15 turned half a turn
    assert adapter.move_keys(state, [white], "hybrid") == [key]
    # ... but it offers a capture (15x22), which the default key set tells apart
    [reply_key] = adapter.move_keys(state, [white], "hybrid-reply")
    assert adapter.describe_key("hybrid-reply", reply_key) == "man 11-15 (quiet, allows a capture)"


def test_move_types(adapter, checkers):
    def types(fen):
        state = checkers.new_state(fen)
        return {state.move_to_text(m): adapter.move_type_names[adapter.move_type(state, m)]
                for m in state.legal_moves()}
    assert types("B:W18:B14") == {"14x23": "capture"}
    assert types("B:W18,K27:B14,24") == {"14x32": "capture-promotion", "24x31": "capture-promotion"}
    names = types("B:W20:B25,K10")
    assert names["25-29"] == "promotion" and names["25-30"] == "promotion" and names["10-14"] == "quiet"


def test_board_features_after_a_move(adapter, checkers):
    state = checkers.new_initial_state()
    move = state.parse_move("11-15")
    child = state.clone()
    child.apply(move)
    pp = adapter.board_features(child, 0, "pp")
    words = {adapter.describe_feature("pp", f) for f in pp}
    assert len(pp) == 24 and "own man on 15" in words and "own man on 11" not in words
    assert "opponent man on 22" in words
    ms = adapter.board_features(child, 0, "ms")
    assert all(f >= PP_SIZE for f in ms) and len(ms) == len(child.legal_moves())
    assert sorted(adapter.board_features(child, 0, "hybrid")) == sorted(pp + ms)


def test_compiled_encoder_equals_the_generic_one(adapter, random_games):
    for key_set in ("hybrid-reply", "piece", "fromto"):
        fast = adapter.encode_games(random_games, key_set, "hybrid")
        slow = BayesAdapter.encode_games(adapter, random_games, key_set, "hybrid")
        for name in ("pos_start", "key", "move_type", "feat_start", "feat_id", "game", "ply", "n_legal"):
            assert np.array_equal(getattr(fast, name), getattr(slow, name)), (key_set, name)
    assert set(fast.move_type.tolist()) == {0, 1, 2, 3}         # the games crown, capture and both
    assert fast.n_positions == sum(len(g.moves) for g in random_games)


def test_expert_move_comes_first(adapter, random_games):
    encoded = adapter.encode_games(random_games[:1], "fromto", None)
    game = random_games[0]
    state = game.start.clone()
    for p, move in enumerate(game.moves[:20]):
        assert encoded.key[encoded.pos_start[p]] == adapter.move_keys(state, [move], "fromto")[0]
        state.apply(move)


def test_unknown_sets_and_games_are_named(adapter, checkers):
    with pytest.raises(UsageError, match="unknown key set 'nope'.*hybrid-reply"):
        adapter.key_space("nope")
    with pytest.raises(UsageError, match="unknown feature set 'xx'.*pp"):
        adapter.feature_space("xx")
    with pytest.raises(UsageError, match="no adapter for shogi.*checkers, chess"):
        get_adapter("shogi")
