"""The compiled PUCT search (players/search/compiled.py) grows the very tree of the State-API loop.

Both loops get the same deterministic evaluator (a fixed random linear map of
the observation: logits, and tanh of another for the value), so any
difference in selection, virtual loss, pass_forced, repetition draws, the
cache, root noise, Gumbel's halving or tree reuse shows as a node whose
visits, value, prior or shape differ.
"""
from __future__ import annotations

import numpy as np
import pytest

from plyground.plugins.trainers.alphazero.batched import GameSpec, play_selfplay_games
from plyground.plugins.trainers.alphazero.selfplay import SelfPlaySettings
from plyground.players.search.compiled import compiled_kernels
from plyground.players.search.tree import EXPANDED, LOSS, UNKNOWN, WIN
from plyground.errors import UsageError
from plyground.registry import get_registry

from move_helpers import random_play
from search_pairs import assert_same_tree, linear_evaluator, pair

def random_position(game, plies: int, seed: int):
    return random_play(game.new_initial_state(), plies, np.random.default_rng(seed))


@pytest.mark.parametrize("kind", ["puct", "gumbel"])
@pytest.mark.parametrize("game_name, plies, seed", [("checkers", 12, 1), ("checkers", 20, 5), ("checkers", 30, 2),
                                                    ("tictactoe", 1, 1), ("tictactoe", 2, 1)])
def test_both_loops_grow_the_same_tree(game_name, plies, seed, kind):
    game = get_registry().make_game(game_name)
    state = random_position(game, plies, seed)
    a, b = pair(game, kind)
    for search in (a, b):
        search.set_root(state.clone(), reuse=False, temperature=1.0)
        assert search.run(400) == 400
    assert_same_tree(a, b)
    assert a.evaluations == b.evaluations and a.network_calls == b.network_calls
    assert a.policy_target()[0] == b.policy_target()[0]
    assert np.allclose(a.policy_target()[1], b.policy_target()[1], rtol=0, atol=0)
    rng_a, rng_b = np.random.default_rng(0), np.random.default_rng(0)
    assert a.choose_move(1.0, rng_a) == b.choose_move(1.0, rng_b)


@pytest.mark.parametrize("kind", ["puct", "gumbel"])
def test_both_loops_grow_the_same_tree_with_a_policy_temperature(kind):
    """The priors' softmax temperature is applied alike by both loops, to fresh and cached leaves."""
    game = get_registry().make_game("checkers")
    state = random_position(game, 20, 5)
    a, b = pair(game, kind, policy_temperature=1.6)
    for search in (a, b):
        search.set_root(state.clone(), reuse=False, temperature=1.0)
        assert search.run(400) == 400
    assert_same_tree(a, b)
    assert a.evaluator.cache.hits > 0 and b.cache.hits > 0
    # Every expanded node's priors, fresh or from the cache, against a float64 reference from its position.
    evaluate = linear_evaluator(game)
    checked = 0
    for node in range(1, b.size):
        if b.flag[node] != EXPANDED or b.count[node] < 2:
            continue
        position = position_of(b, node)
        block = range(int(b.first[node]), int(b.first[node] + b.count[node]))
        actions = [position.action_index(b.k.code_to_move(position, int(b.code[c]))) for c in block]
        logits = evaluate(position.observation()[None])[0][0].astype(np.float64)
        assert [b.prior[c] for c in block] == pytest.approx(reference_priors(logits, actions, 1.6), rel=1e-9)
        checked += 1
    assert checked > 20


def position_of(search, node: int):
    """The position at a node of a compiled tree: its moves replayed from the root's."""
    codes = []
    while node != search.root:
        codes.append(int(search.code[node]))
        node = int(search.parent[node])
    state = search.state.clone()
    for code in reversed(codes):
        state.apply(search.k.code_to_move(state, code))
    return state


def reference_priors(logits: np.ndarray, actions: list[int], temperature: float) -> list[float]:
    """softmax(logits / temperature) over the distinct actions in float64, a shared action's share split
    evenly among its moves."""
    distinct = sorted(set(actions))
    weights = np.exp((logits[distinct] - logits[distinct].max()) / temperature)
    share = dict(zip(distinct, weights / weights.sum()))
    return [share[a] / actions.count(a) for a in actions]


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("temperature", [0.5, 1.0, 2.0])
def test_the_priors_are_the_softmax_of_the_logits_over_the_temperature(compiled, temperature):
    """Each root child's prior against a float64 softmax of the evaluator's logits divided by the
    temperature (no root noise)."""
    game = get_registry().make_game("checkers")
    state = random_position(game, 12, 1)
    evaluate = linear_evaluator(game)
    searches = pair(game, evaluate=evaluate, dirichlet_epsilon=0.0, policy_temperature=temperature)
    search = searches[1] if compiled else searches[0]
    search.set_root(state.clone(), reuse=False)
    search.run(1)
    moves = state.legal_moves()
    actions = np.array([state.action_index(m) for m in moves])
    assert len(set(actions.tolist())) == len(actions)       # no two moves share an index here
    logits = evaluate(state.observation()[None])[0][0].astype(np.float64)
    priors = {c.move: c.prior for c in search.root_children()}
    assert [priors[m] for m in moves] == pytest.approx(reference_priors(logits, actions.tolist(), temperature),
                                                        rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("temperature", [0, -1.0])
def test_a_search_refuses_a_temperature_not_above_zero(temperature):
    with pytest.raises(UsageError, match="policy_temperature"):
        pair(get_registry().make_game("tictactoe"), policy_temperature=temperature)


def test_the_players_policy_temperature_reaches_its_search():
    """``alphazero:policy_temperature=2`` gives each move the prior sqrt(p) / sum(sqrt(p)) of the priors p it
    gets at 1 (softmax(l / 2) is that), with the bundled network; the analysis rounds priors to 4 places."""
    registry = get_registry()
    game = registry.make_game("tictactoe")
    priors = {}
    for temperature in (1.0, 2.0):
        player = registry.make_player(f"alphazero:simulations=20,policy_temperature={temperature}", game)
        player.choose_move(game.new_initial_state())
        priors[temperature] = player.analysis()["priors"]
    moves = sorted(priors[1.0])
    roots = np.sqrt([priors[1.0][m] for m in moves])
    assert [priors[2.0][m] for m in moves] == pytest.approx((roots / roots.sum()).tolist(), abs=1e-3)
    assert max(priors[2.0].values()) < max(priors[1.0].values()) - 0.05


def test_a_descent_longer_than_the_path_buffer_grows_it_and_the_tree_is_the_same():
    """A compiled search whose path buffer holds 3 nodes gets PATH_FULL, doubles it and goes on: the tree is
    the one grown with the usual buffer."""
    game = get_registry().make_game("checkers")
    state = random_position(game, 20, 5)
    _, usual = pair(game)
    _, short = pair(game)
    short._pathbuf = np.empty(3, dtype=np.int64)
    for search in (usual, short):
        search.set_root(state.clone(), reuse=False)
        assert search.run(400) == 400
    assert len(short._pathbuf) > 3
    assert_same_tree(usual, short)


def favouring(game, logits: dict[int, float]):
    """Every position gets these logits (by action index; the rest 0) and the value 0."""
    row = np.zeros(game.num_actions, np.float32)
    for action, logit in logits.items():
        row[action] = logit

    def evaluate(observations):
        return np.tile(row, (len(observations), 1)), np.zeros(len(observations), np.float32)
    return evaluate


def searched_until(search, state, proven_move: int, value: int, limit: int = 200):
    """Simulations one at a time until the root move ``proven_move`` is proven ``value`` for the side to
    move; the root's children then (None if ``limit`` simulations did not prove it)."""
    search.set_root(state.clone(), reuse=False)
    for _ in range(limit):
        search.run(1)
        children = {c.move: c for c in search.root_children()}
        if proven_move in children and children[proven_move].proven == value:
            return children
    return None


def test_a_move_proven_won_is_played_though_a_move_searched_longer_has_more_visits():
    """X wins at once at 2; the priors favour the block at 5, searched first and most.  When the one visit
    to 2 proves the win, 5 still has more visits -- the win is played, by both loops."""
    game = get_registry().make_game("tictactoe")
    state = game.new_state("XX./OO./... X")
    for search in pair(game, evaluate=favouring(game, {5: 3.0, 2: 1.0}), leaf_batch=1, dirichlet_epsilon=0.0):
        children = searched_until(search, state, 2, WIN)
        assert children is not None, "the win was never proven"
        assert children[5].visits > children[2].visits          # the visit count alone plays the block
        assert search.choose_move(0.0, np.random.default_rng(0)) == 2
        assert search.choose_move(1.0, np.random.default_rng(0)) == 2


@pytest.mark.parametrize("plies, seed", [(2, 1), (3, 4), (4, 2)])
def test_a_descent_stops_at_a_proven_node_and_backs_up_its_exact_result(plies, seed):
    """Below the root, a node the tree proved (a decided position, not a finished game) is not searched
    again: later simulations that reach it back up its exact result for its mover (1, 0 or -1) and its
    subtree stays as it was -- in both loops alike."""
    game = get_registry().make_game("tictactoe")
    state = random_position(game, plies, seed)
    for search in pair(game, leaf_batch=1, dirichlet_epsilon=0.0):
        search.set_root(state.clone(), reuse=False)
        search.run(300)
        decided = [n for n in range(search.size) if n != search.root and search.flag[n] == EXPANDED
                   and search.proven[n] != UNKNOWN]
        assert decided, "no position below the root was proven"
        before = {n: (search.visits[n], search.value_sum[n],
                      search.visits[search.first[n]:search.first[n] + search.count[n]].copy()) for n in decided}
        search.run(300)
        reached = 0
        for n, (visits, value_sum, children) in before.items():
            more = search.visits[n] - visits
            reached += more > 0
            assert search.value_sum[n] - value_sum == pytest.approx(more * int(search.proven[n]))
            assert np.array_equal(search.visits[search.first[n]:search.first[n] + search.count[n]], children)
        assert reached, "no simulation reached a proven node"


def test_gumbel_plays_a_proven_win_its_scores_rank_second():
    """Three simulations: the root, then the two moves of highest logit once each -- 2 wins at once, 5
    blocks.  With a small c_scale the scores (logits + sigma(q)) still rank the block first; the proof plays
    the win."""
    game = get_registry().make_game("tictactoe")
    state = game.new_state("XX./OO./... X")
    for search in pair(game, "gumbel", evaluate=favouring(game, {5: 3.0, 2: 1.0}), leaf_batch=1,
                       gumbel_scale=0.0, gumbel_c_scale=0.01):
        search.set_root(state.clone(), reuse=False)
        search.run(3)
        children = search.root_children()
        assert {c.move: c.proven for c in children}[2] == WIN
        assert children[int(np.argmax(search.scores()))].move == 5
        assert search.choose_move(0.0, np.random.default_rng(0)) == 2


def test_a_move_proven_lost_is_not_played_though_it_has_the_most_visits():
    """O must block at 2; the priors favour 8, after which X wins at 2.  Once that reply proves 8 lost,
    8 can still have the most visits; it is not played, at any temperature."""
    game = get_registry().make_game("tictactoe")
    state = game.new_state("XX./O../XO. O")
    for search in pair(game, evaluate=favouring(game, {8: 3.0, 2: 1.0}), leaf_batch=1, dirichlet_epsilon=0.0):
        children = searched_until(search, state, 8, LOSS)
        assert children is not None, "the loss was never proven"
        assert max(children.values(), key=lambda c: c.visits).move == 8
        assert search.choose_move(0.0, np.random.default_rng(0)) != 8
        assert all(search.choose_move(1.0, np.random.default_rng(seed)) != 8 for seed in range(20))


def test_the_same_tree_after_moves_with_tree_reuse_and_the_game_history():
    """Three moves of a game: each search keeps the played move's subtree (the compiled one recomputes its
    parents after re-rooting) and values returns to the game's positions as draws."""
    game = get_registry().make_game("checkers")
    state = random_position(game, 24, 3)
    a, b = pair(game)
    for _ in range(3):
        for search in (a, b):
            search.set_root(state.clone(), reuse=True)
            search.run(300)
        assert_same_tree(a, b)
        move = a.choose_move(0.0, np.random.default_rng(0))
        for search in (a, b):
            search.note_position(state)
            search.advance(state, move)
            search._compact()
        state.apply(move)
        assert_same_tree(a, b)


def test_repetition_draws_in_a_kings_ending_match_the_state_loop():
    """Kings shuffling back and forth: many leaves repeat the game's or the line's positions."""
    game = get_registry().make_game("checkers")
    state = game.new_state("W:WK10,K19:BK27,K32")
    history = []
    for move in state.legal_moves()[:1] * 1:
        history.append(state.clone())
        state.apply(move)
    a, b = pair(game)
    for search in (a, b):
        for earlier in history:
            search.note_position(earlier)
        search.set_root(state.clone(), reuse=False)
        search.run(600)
    assert_same_tree(a, b)
    draws = sum(1 for node in range(b.size) if b.flag[node] == 2 and not b.returns[node].any())
    assert draws > 0                        # the ending did produce repetitions


def test_a_transposition_is_evaluated_once_through_the_compiled_cache():
    game = get_registry().make_game("checkers")
    _, search = pair(game)
    search.set_root(game.new_initial_state(), reuse=False)
    search.run(800)
    assert search.cache.hits > 0
    assert search.evaluations + search.cache.hits <= 800


def test_selfplay_with_compiled_trees_plays_the_games_of_the_state_loop():
    """The batched driver over compiled trees (leaves encoded straight into its batch) plays, move for
    move, the games it plays over State-API trees, and records the same examples."""
    game = get_registry().make_game("tictactoe")
    settings = SelfPlaySettings(simulations=24, temperature_plies=2, fast_simulations=8, full_search_share=0.5)
    evaluate = linear_evaluator(game)
    results = []
    for compiled in (False, True):
        def make_search(compiled=compiled):
            a, b = pair(game, leaf_batch=4)
            return b if compiled else a
        specs = [GameSpec(n, np.random.default_rng(100 + n)) for n in range(6)]
        games = sorted(play_selfplay_games(game, specs, make_search, evaluate, settings, parallel_games=3),
                       key=lambda item: item[0])
        results.append(games)
    for (n_a, ex_a, rec_a), (n_b, ex_b, rec_b) in zip(*results):
        assert n_a == n_b and rec_a.moves == rec_b.moves and rec_a.returns == rec_b.returns
        assert np.array_equal(ex_a.observations, ex_b.observations)
        for name in ("policy_actions", "policy_probs", "policy_offsets", "values", "players"):
            assert np.array_equal(getattr(ex_a, name), getattr(ex_b, name)), name


def test_the_player_runs_compiled_where_the_game_has_learner_kernels():
    registry = get_registry()
    game = registry.make_game("tictactoe")
    compiled = registry.make_player("alphazero:simulations=50", game)
    plain = registry.make_player("alphazero:simulations=50,compiled=false", game)
    state = game.new_state("XX./OO./... X")
    assert compiled.choose_move(state.clone()) == plain.choose_move(state.clone()) == 2
    assert compiled.analysis()["compiled"] is True and plain.analysis()["compiled"] is False
    assert compiled.analysis()["visits"] == plain.analysis()["visits"]
    chess = registry.make_game("chess")
    assert compiled_kernels(chess) is None


def test_a_proven_win_is_reported():
    """The compiled tree keeps solver proofs: a mate in one is proven at the root."""
    game = get_registry().make_game("tictactoe")
    player = get_registry().make_player("alphazero:simulations=200", game)
    player.choose_move(game.new_state("XX./OO./... X"))
    assert player.analysis()["proven"] == "win in 1 ply"
