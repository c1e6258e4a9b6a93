"""PUCT search: perspective (split turns), terminal values, shared action indices, batching, cache, reuse."""
import numpy as np
import pytest

from plyground.games.checkers import CheckersGame
from plyground.games.tictactoe import TicTacToe
from plyground.players.search.priors import move_priors
from plyground.players.search.puct import choose_from_visits, PUCTSearch
from plyground.players.search.settings import SearchSettings

from aztestgames import LearnableDoubleTake, UniformEvaluator
from move_helpers import play
from testgames import doubletake_move_values, doubletake_value, expanded_nodes


def search_for(game, simulations, **kwargs):
    evaluator = UniformEvaluator(game.num_actions)
    search = PUCTSearch(evaluator, SearchSettings(**kwargs), rng=np.random.default_rng(0))
    return search, evaluator


def best_move(search, state, simulations):
    search.set_root(state)
    search.run(simulations)
    return choose_from_visits(search.root_children(), 0.0, np.random.default_rng(0)).move


@pytest.mark.parametrize("pile", [6, 10, 14])
def test_split_turns_finds_the_only_winning_move(pile):
    # From 6 only "take 4" (and move again) wins; a search that negates values at every ply gets it wrong.
    assert doubletake_move_values(6) == {1: -1, 2: -1, 4: 1}
    game = LearnableDoubleTake(pile=pile)
    search, _ = search_for(game, 3000, c_puct=1.0, leaf_batch=1)
    state = game.new_initial_state()
    assert best_move(search, state, 3000) == 4
    assert search.root_value() > 0.3


@pytest.mark.parametrize("pile", [7, 11])
def test_split_turns_lost_piles_have_negative_values(pile):
    assert doubletake_value(pile) == -1
    game = LearnableDoubleTake(pile=pile)
    search, _ = search_for(game, 4000, c_puct=1.0, leaf_batch=1)
    search.set_root(game.new_initial_state())
    search.run(4000)
    assert search.root_value() < 0


@pytest.mark.parametrize("leaf_batch", [1, 8])
def test_takes_a_win_and_blocks_a_loss_in_tictactoe(leaf_batch):
    game = TicTacToe()
    search, _ = search_for(game, 400, leaf_batch=leaf_batch)
    win = game.new_state("XX./OO./... X")
    assert win.move_to_text(best_move(search, win, 400)) == "c3"
    assert search.root_value() > 0.9
    search.clear()
    block = game.new_state("XX./O../... O")       # O must block at c3
    assert block.move_to_text(best_move(search, block, 400)) == "c3"


def test_leaf_batches_use_fewer_network_calls_and_count_every_simulation():
    game = TicTacToe()
    single, single_eval = search_for(game, 200, leaf_batch=1)
    batched, batched_eval = search_for(game, 200, leaf_batch=8)
    for search in (single, batched):
        search.set_root(game.new_initial_state())
        assert search.run(200) == 200
        assert search.root_visits() == 200
        assert sum(c.visits for c in search.root_children()) == 199     # the first simulation expands the root
        assert search.vloss[:search.size].sum() == 0                    # every virtual loss was taken back
    assert max(batched_eval.batch_sizes) > 1
    assert batched_eval.calls < single_eval.calls / 2


def test_shared_action_index_splits_the_prior_evenly():
    # Two captures from 2 to 18 (via 9 or via 11) share one action index in checkers.
    game = CheckersGame()
    state = game.new_state("B:W6,7,14,15:B2")
    moves = state.legal_moves()
    assert len(moves) == 2 and len({state.action_index(m) for m in moves}) == 1
    logits = np.random.default_rng(1).normal(size=game.num_actions).astype(np.float32)
    priors = move_priors(logits, np.array([state.action_index(m) for m in moves]))
    assert priors == pytest.approx([0.5, 0.5])
    # Mixed: two moves share index 3, one has index 5: the softmax runs over the distinct indices.
    logits = np.zeros(8, np.float32)
    logits[3], logits[5] = np.log(3.0), 0.0
    assert move_priors(logits, np.array([3, 5, 3])) == pytest.approx([0.375, 0.25, 0.375])


def test_search_expands_both_moves_sharing_an_index():
    game = CheckersGame()
    search, _ = search_for(game, 10)
    state = game.new_state("B:W6,7,14,15:B2")
    search.set_root(state)
    search.run(10)
    children = search.root_children()
    assert sorted(c.move for c in children) == sorted(state.legal_moves())
    assert [c.prior for c in children] == pytest.approx([0.5, 0.5])


def test_cache_evaluates_a_position_once():
    game = TicTacToe()
    search, evaluator = search_for(game, 300, leaf_batch=1, cache_size=10_000)
    search.set_root(game.new_initial_state())
    search.run(300)
    first = evaluator.leaves
    search.clear()                        # a new tree, same positions: the cache answers
    search.set_root(game.new_initial_state())
    search.run(300)
    assert evaluator.leaves - first < first / 4
    assert search.cache.hits > 0


def searched_then_advanced(simulations: int):
    """A tic-tac-toe search of ``simulations`` from the start, advanced by its most visited move:
    (game, search, the start position, that move's child)."""
    game = TicTacToe()
    search, _ = search_for(game, simulations)
    state = game.new_initial_state()
    search.set_root(state)
    search.run(simulations)
    move = max(search.root_children(), key=lambda c: c.visits)
    search.advance(state, move.move)
    return game, search, state, move


def test_tree_reuse_keeps_the_played_subtree():
    game, search, state, move = searched_then_advanced(300)
    state.apply(move.move)
    assert search.set_root(state) is True
    assert search.root_visits() == move.visits
    other = game.new_state("X../.O./... X")
    assert search.set_root(other) is False and search.root_visits() == 0


def test_compaction_keeps_the_subtree_statistics():
    _, search, state, move = searched_then_advanced(2000)
    before = sorted((c.move, c.visits, round(c.value, 9), round(c.prior, 9)) for c in search.root_children())
    size = search.size
    search._compact()
    after = sorted((c.move, c.visits, round(c.value, 9), round(c.prior, 9)) for c in search.root_children())
    assert after == before and search.size < size
    state.apply(move.move)
    search.set_root(state)
    search.run(200)                        # the compacted tree is searchable
    assert search.root_visits() == move.visits + 200


def test_dirichlet_noise_changes_only_the_root_priors():
    game = TicTacToe()
    quiet, _ = search_for(game, 50)
    noisy = PUCTSearch(UniformEvaluator(9), SearchSettings(dirichlet_epsilon=0.25, dirichlet_alpha=0.3),
                       rng=np.random.default_rng(5))
    for search in (quiet, noisy):
        search.set_root(game.new_initial_state())
        search.run(50)
    assert all(c.prior == pytest.approx(1 / 9) for c in quiet.root_children())
    priors = [c.prior for c in noisy.root_children()]
    assert sum(priors) == pytest.approx(1.0) and max(priors) > 1 / 9 + 0.01


def test_temperature_zero_is_the_most_visited_and_one_samples():
    from plyground.players.search.puct import ChildInfo
    children = [ChildInfo("a", 10, 0.0, 0.1), ChildInfo("b", 30, 0.0, 0.1), ChildInfo("c", 0, 0.0, 0.8)]
    rng = np.random.default_rng(0)
    assert choose_from_visits(children, 0.0, rng).move == "b"
    drawn = [choose_from_visits(children, 1.0, rng).move for _ in range(400)]
    assert "c" not in drawn and 0.15 < drawn.count("a") / 400 < 0.35


class ConstantEvaluator(UniformEvaluator):
    """Uniform priors; every position is worth ``value`` to the side to move."""

    def __init__(self, num_actions, value):
        super().__init__(num_actions)
        self.value = value

    def __call__(self, observations):
        logits, values = super().__call__(observations)
        return logits, values + self.value


@pytest.mark.parametrize("repetition_draws", [True, False])
def test_a_return_to_an_earlier_position_is_valued_as_a_draw(repetition_draws):
    game = CheckersGame()
    root = game.new_state("B:WK32:BK1")
    move = root.parse_move("1-6")
    earlier = play(root.clone(), "1-6")        # this position occurred before in the game
    search = PUCTSearch(ConstantEvaluator(game.num_actions, -0.5),
                        SearchSettings(repetition_draws=repetition_draws, cache_size=0), rng=np.random.default_rng(0))
    search.new_game()
    search.note_position(earlier)
    search.set_root(root)
    search.run(100)
    child = next(c for c in range(search.first[search.root], search.first[search.root] + 2)
                 if search.moves[c] == move)
    value = next(c.value for c in search.root_children() if c.move == move)
    if repetition_draws:
        assert search.flag[child] == 2 and search.visits[child] > 0 and value == 0.0    # TERMINAL, a draw
        # The game goes there anyway: the reused node is searched, not taken for a finished game.
        search.advance(root, move)
        assert search.set_root(play(root.clone(), "1-6")) is True
        search.run(20)
        assert len(search.root_children()) == 2
    else:
        assert search.flag[child] == 1 and value != 0.0                                  # searched on
    search.new_game()
    assert search.history == set() and search.root < 0


class RecordingEvaluator(UniformEvaluator):
    """A uniform evaluator that remembers every observation it was given."""

    def __init__(self, num_actions: int) -> None:
        super().__init__(num_actions)
        self.seen: set[bytes] = set()

    def __call__(self, observations):
        self.seen.update(o.tobytes() for o in observations)
        return super().__call__(observations)


@pytest.mark.parametrize("pass_forced", [True, False])
def test_a_position_with_one_legal_move_costs_no_evaluation(pass_forced):
    game = CheckersGame()
    root = game.new_initial_state()
    root.apply(root.parse_move("11-15"))         # White's 22-18, 23-18 or 24-19 leaves Black one capture
    evaluator = RecordingEvaluator(game.num_actions)
    search = PUCTSearch(evaluator, SearchSettings(pass_forced=pass_forced, cache_size=0), rng=np.random.default_rng(0))
    search.set_root(root)
    search.run(600)
    assert search.vloss[:search.size].sum() == 0 and search.root_visits() == 600
    forced = 0
    for node, position, children in expanded_nodes(search, root):
        if node != search.root and len(position.legal_moves()) == 1:
            forced += 1
            evaluated = position.observation().tobytes() in evaluator.seen
            if pass_forced:     # passed through: every visit went on to the one child, none valued it here
                assert search.visits[node] == search.visits[children[0]] and not evaluated
                assert search.prior[children[0]] == 1.0
            else:               # valued by the network on its first visit, like any other leaf
                assert search.visits[node] == 1 + search.visits[children[0]] and evaluated
    assert forced >= 100


@pytest.mark.parametrize("pass_forced", [True, False])
def test_a_shot_through_forced_captures_is_seen_at_its_first_visit(pass_forced):
    # 25-30 gives a man away: White's one legal move takes it, Black's one legal move then takes both
    # White men and wins.  Passing through the forced positions, each simulation of 25-30 ends in the win.
    game = CheckersGame()
    root = game.new_state("B:W26,28:B24,25")
    shot = root.parse_move("25-30")
    line = play(root.clone(), "25-30")
    for _ in range(2):
        assert len(line.legal_moves()) == 1
        line.apply(line.legal_moves()[0])
    assert line.is_terminal() and line.returns()[0] == 1.0
    search = PUCTSearch(UniformEvaluator(game.num_actions), SearchSettings(pass_forced=pass_forced, leaf_batch=1),
                        rng=np.random.default_rng(0))
    search.set_root(root)
    search.run(40)
    child = next(c for c in search.root_children() if c.move == shot)
    assert child.visits >= 10
    if pass_forced:
        assert child.value == 1.0
    else:
        assert child.value < 1.0        # the two forced positions were valued (at 0) on the way
