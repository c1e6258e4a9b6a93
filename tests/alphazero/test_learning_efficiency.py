"""Playout cap randomization and value-target mixing in self-play (SelfPlaySettings), in both drivers."""
import numpy as np
import pytest

from plyground.games.tictactoe import TicTacToe
from plyground.plugins.trainers.alphazero.batched import GameSpec, play_selfplay_games
from plyground.players.search.puct import PUCTSearch
from plyground.players.search.settings import SearchSettings
from plyground.plugins.trainers.alphazero.selfplay import SelfPlaySettings, play_selfplay_game

from aztestgames import UniformEvaluator


class RecordingSearch(PUCTSearch):
    """A PUCT search that notes, for each move's search, its simulations, its root noise and root value."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.searches = []            # (simulations asked, dirichlet_epsilon, root value after the search)

    def run(self, simulations, deadline=None):
        done = super().run(simulations, deadline)
        self.searches.append((simulations, self.dirichlet_epsilon, self.root_value()))
        return done


def play(settings, seed=5):
    search = RecordingSearch(UniformEvaluator(9), SearchSettings(dirichlet_epsilon=0.25), rng=np.random.default_rng(seed))
    examples, record = play_selfplay_game(TicTacToe(), search, np.random.default_rng(seed), settings)
    return search, examples, record


def forced_moves(record):
    state, forced = TicTacToe().new_initial_state(), 0
    for text in record.moves:
        forced += len(state.legal_moves()) == 1
        state.apply(state.parse_move(text))
    return forced


def test_fast_searches_are_played_but_not_learned_from():
    fulls = fasts = 0
    for seed in range(8):
        search, examples, record = play(SelfPlaySettings(simulations=40, temperature_plies=9, fast_simulations=6,
                                                         full_search_share=0.3), seed)
        sizes = [s for s, _, _ in search.searches]
        assert set(sizes) <= {40, 6}
        full = sizes.count(40)
        # every full search and every forced move is an example; no fast search is
        assert len(examples) == full + forced_moves(record)
        # root noise only where the search is learned from
        assert all(eps == (0.25 if s == 40 else 0.0) for s, eps, _ in search.searches)
        fulls, fasts = fulls + full, fasts + sizes.count(6)
    assert fulls > 0 and fasts > fulls      # a 30% share of full searches


def test_without_fast_simulations_every_search_is_full():
    search, examples, record = play(SelfPlaySettings(simulations=20, temperature_plies=9))
    assert [s for s, _, _ in search.searches] == [20] * len(search.searches)
    assert len(examples) == len(record.moves)


@pytest.mark.parametrize("weight", [0.0, 0.4, 1.0])
def test_value_targets_mix_the_result_with_the_search_value(weight):
    search, examples, record = play(SelfPlaySettings(simulations=30, temperature_plies=9,
                                                     search_value_weight=weight), seed=2)
    state = TicTacToe().new_initial_state()
    searched = iter(q for _, _, q in search.searches)
    for i, text in enumerate(record.moves):
        result = record.returns[state.current_player()]
        if len(state.legal_moves()) > 1:
            expected = (1 - weight) * result + weight * next(searched)
        else:
            expected = result                 # a forced move has no search value
        assert examples.values[i] == pytest.approx(expected, abs=1e-6)
        state.apply(state.parse_move(text))


@pytest.mark.parametrize("share", [0.0, 1.0])
def test_the_batched_driver_learns_from_full_searches_only(share):
    game = TicTacToe()
    settings = SelfPlaySettings(simulations=24, temperature_plies=9, fast_simulations=4, full_search_share=share)

    def make_search():
        return PUCTSearch(UniformEvaluator(9), SearchSettings(dirichlet_epsilon=0.25), rng=np.random.default_rng(0))

    specs = [GameSpec(n, np.random.default_rng([1, n])) for n in range(6)]
    games = list(play_selfplay_games(game, specs, make_search, UniformEvaluator(9), settings, parallel_games=3))
    assert len(games) == 6
    for _, examples, record in games:
        assert len(examples) == (len(record.moves) if share == 1.0 else forced_moves(record))


def test_random_openings_are_played_but_not_learned_from():
    """A random opening's moves start the record but give no example and no search; from its end on
    every move is searched and learned from, and the value targets are the game's result."""
    openings = []
    for seed in range(12):
        search, examples, record = play(SelfPlaySettings(simulations=20, temperature_plies=9,
                                                         random_opening_share=0.5, random_opening_plies=4), seed)
        random_plies = int(record.tags.get("RandomOpening", 0))
        assert 0 <= random_plies <= 4
        openings.append(random_plies)
        learned = len(record.moves) - random_plies
        assert len(examples) == learned
        assert len(search.searches) == learned - forced_moves_after(record, random_plies)
        state = TicTacToe().new_initial_state()
        for text in record.moves[:random_plies]:
            state.apply(state.parse_move(text))
        assert examples.values[0] == record.returns[state.current_player()]
    # about half the games open at random, with openings of different lengths
    assert 3 <= sum(p > 0 for p in openings) <= 9 and len(set(openings) - {0}) >= 2


def forced_moves_after(record, plies):
    state, forced = TicTacToe().new_initial_state(), 0
    for i, text in enumerate(record.moves):
        forced += i >= plies and len(state.legal_moves()) == 1
        state.apply(state.parse_move(text))
    return forced


def test_the_batched_driver_plays_random_openings():
    game = TicTacToe()
    settings = SelfPlaySettings(simulations=12, temperature_plies=9, random_opening_share=1.0,
                                random_opening_plies=3)

    def make_search():
        return PUCTSearch(UniformEvaluator(9), SearchSettings(dirichlet_epsilon=0.25), rng=np.random.default_rng(0))

    specs = [GameSpec(n, np.random.default_rng([2, n])) for n in range(6)]
    for _, examples, record in play_selfplay_games(game, specs, make_search, UniformEvaluator(9), settings,
                                                   parallel_games=3):
        random_plies = int(record.tags["RandomOpening"])
        assert 1 <= random_plies <= 3
        assert len(examples) == len(record.moves) - random_plies
