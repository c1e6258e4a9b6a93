"""The layered game contract: playable, searchable, learnable, each checked completely; one outcome()."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from plyground.errors import MoveError, UsageError
from plyground.play.match import play_game
from plyground.players.alphabeta.player import AlphaBetaPlayer
from plyground.players.mcts.player import MCTSPlayer
from plyground.protocols import (LEARNABLE, PLAYABLE, SEARCH_STATE_API, SEARCHABLE, Game, Outcome, State,
                                 missing_state_api, unsupported_reason)
from plyground.registry import get_registry

REPO = Path(__file__).resolve().parents[2]


class TakeState(State):
    """Take 1 or 2 tokens; whoever takes the last one wins.  The result comes from outcome() alone."""

    def __init__(self, game, pile=5):
        self.game, self.pile, self.history = game, pile, []

    def current_player(self):
        return len(self.history) % 2

    def legal_moves(self):
        return [t for t in (1, 2) if t <= self.pile]

    def apply(self, move):
        if move not in self.legal_moves():
            raise MoveError(f"cannot take {move!r} from {self.pile}")
        self.history.append(move)
        self.pile -= move

    def undo(self):
        self.pile += self.history.pop()

    def clone(self):
        copy = type(self)(self.game, self.pile)
        copy.history = list(self.history)
        return copy

    def outcome(self):
        if self.pile:
            return None
        return Outcome.win(1 - self.current_player(), "took the last token")   # the side that just moved

    def move_to_text(self, move):
        return str(move)

    def parse_move(self, text):
        try:
            move = int(text)
        except ValueError:
            raise MoveError(f"{text!r} is not a number of tokens") from None
        if move not in self.legal_moves():
            raise MoveError(f"cannot take {move} from {self.pile}")
        return move

    def to_text(self):
        return f"{self.pile}/{self.current_player()}"


class SearchableTakeState(TakeState):
    @property
    def ply(self):
        return len(self.history)


class TakeAway(Game):
    """Implements outcome() and the searchable layer, but declares no learner encodings."""

    name = "takeaway"
    description = "take 1 or 2; the last token wins"

    def new_initial_state(self):
        return SearchableTakeState(self)


class NoPlyTakeAway(TakeAway):
    """Playable, but its states have no ply: search must refuse it rather than crash in tree reuse."""

    def new_initial_state(self):
        return TakeState(self)


def test_the_result_follows_from_outcome_alone():
    game = TakeAway()
    state = game.new_initial_state()
    assert state.outcome() is None and not state.is_terminal()
    assert state.returns() == (0.0, 0.0) and state.outcome_reason() == ""
    for move in (2, 2, 1):
        state.apply(move)
    assert state.is_terminal()
    assert state.returns() == (1.0, -1.0)
    assert state.outcome_reason() == "took the last token"
    assert state.outcome() == Outcome((1.0, -1.0), "took the last token")


def test_games_that_implement_the_three_get_outcome_from_them():
    game = get_registry().make_game("tictactoe")
    state = game.new_initial_state()
    assert state.outcome() is None
    for text in ("a1", "b1", "a2", "b2", "a3"):
        state.apply(state.parse_move(text))
    assert state.outcome() == Outcome(tuple(state.returns()), state.outcome_reason())
    assert state.outcome().returns == (1.0, -1.0)


def test_a_state_with_half_of_the_result_says_what_is_missing_instead_of_recursing():
    class Half(TakeState):
        outcome = State.outcome

        def is_terminal(self):
            return self.pile == 0

    state = Half(TakeAway())
    with pytest.raises(NotImplementedError, match="implements outcome"):
        state.returns()
    assert unsupported_reason(type("HalfGame", (TakeAway,), {"new_initial_state": lambda self: Half(self)})(),
                              PLAYABLE) == "its states do not implement returns (the State API that a match needs)"


def test_each_layer_includes_the_one_below_and_search_needs_ply():
    assert set(PLAYABLE.state_api) < set(SEARCHABLE.state_api) < set(LEARNABLE.state_api)
    assert SEARCH_STATE_API == SEARCHABLE.state_api
    assert {"ply", "undo", "clone"} <= set(SEARCH_STATE_API)


def test_layers_name_what_is_missing():
    assert unsupported_reason(TakeAway(), PLAYABLE) is None
    assert unsupported_reason(TakeAway(), SEARCHABLE) is None
    assert unsupported_reason(TakeAway(), LEARNABLE) == \
        "the game has no learner encodings (observation_shape and num_actions)"
    assert unsupported_reason(NoPlyTakeAway(), PLAYABLE) is None
    reason = unsupported_reason(NoPlyTakeAway(), SEARCHABLE)
    assert reason == "its states do not implement ply (the State API that tree search needs)"
    assert missing_state_api(NoPlyTakeAway()) == reason
    for game_name in ("tictactoe", "checkers", "chess"):
        game = get_registry().make_game(game_name)
        assert [unsupported_reason(game, layer) for layer in (PLAYABLE, SEARCHABLE, LEARNABLE)] == [None] * 3


def test_search_players_refuse_a_game_without_ply_up_front():
    game = NoPlyTakeAway()
    assert "ply" in MCTSPlayer.unsupported_reason(game)
    assert "ply" in AlphaBetaPlayer.unsupported_reason(game)
    with pytest.raises(UsageError, match="cannot play takeaway: its states do not implement ply"):
        AlphaBetaPlayer(game)


def test_a_game_with_only_outcome_is_played_and_searched():
    game = TakeAway()
    assert AlphaBetaPlayer(game, depth=8).choose_move(game.new_initial_state()) == 2   # leave a multiple of 3
    record = play_game(game, [MCTSPlayer(game, simulations=200, seed=1), AlphaBetaPlayer(game, depth=8)])
    assert record.finished and record.reason == "took the last token"
    assert record.returns == (1.0, -1.0)    # the first mover wins from 5 with perfect play


def test_the_registry_refuses_an_unplayable_game_for_every_player():
    class Silent(TakeState):
        parse_move = State.parse_move

    class Mute(TakeAway):
        name = "mute"

        def new_initial_state(self):
            return Silent(self)

    registry = get_registry()
    with pytest.raises(UsageError, match=r"player 'random' cannot play mute: its states do not implement "
                                         r"parse_move \(the State API that a match needs\)"):
        registry.make_player("random", Mute())
    assert registry.players_for(Mute()) == []


@pytest.mark.parametrize("files, layer", [
    (("players/search/uct.py", "players/search/uct_compiled.py", "players/search/alphabeta.py"), SEARCHABLE),
    (("players/search/loop.py", "players/search/puct.py", "players/search/gumbel.py",
      "players/search/evaluators.py", "players/alphazero/player.py"), LEARNABLE),
])
def test_every_state_method_the_searches_call_is_in_their_layer(files, layer):
    """The gap that let a game pass unsupported_reason and crash mid-search (ply) cannot reopen."""
    api = {name for name in dir(State) if not name.startswith("_")}
    optional = {"key", "outcome_reason", "outcome", "legal_mask"}   # key: searches fall back to to_text
    called = set()
    for name in files:
        source = (REPO / name).read_text(encoding="utf-8")
        called |= set(re.findall(r"\b(?:state|root|child|s)\.([a-z_]+)\b", source)) & api
    assert called, files
    assert called - optional <= set(layer.state_api), called - optional - set(layer.state_api)
