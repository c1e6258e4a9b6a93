"""Checkers' NNUE evaluation (games/checkers/alphabeta/nnue.py): its accumulators, updated move by move, are
exactly the ones computed from scratch on every position of random lines (captures and crownings included, and
after going back down the line); its value is the float64 reference's; its search is the search of the same
network recomputed at every node."""
import numpy as np
import pytest
from numba import njit

from plyground.games.checkers import CheckersGame
from plyground.games.checkers.bits import popcount
from plyground.games.checkers.alphabeta import compiled, nnue
from plyground.games.checkers.kernels import MAX_MOVES, apply_move, gen_moves
from plyground.negamax import core

from move_helpers import random_play

LINE = 60     # plies per random line at most


@njit
def _kings(pos):
    return popcount(pos[1]) + popcount(pos[3])


@njit
def _walk_lines(start, n_lines, w1, b1, seed):
    """Random lines from ``start``: each move's accumulators by ``nnue.update`` from the parent's, checked
    against ``nnue.refresh`` of the child; at each line's end, every ply's stored accumulators are checked
    again on the way back (an unmade move returns to the ply below, which must still hold its own).
    Returns (positions checked, mismatches, captures made, crownings)."""
    np.random.seed(seed)
    hidden = w1.shape[1]
    stack = np.empty((LINE + 1, start.shape[0]), np.int64)
    acc = np.zeros((LINE + 1, 2, hidden), np.int16)
    fresh = np.zeros((2, hidden), np.int16)
    moves = np.empty(MAX_MOVES, np.int64)
    checked = mismatches = captures = crownings = 0
    for _ in range(n_lines):
        stack[0] = start
        nnue.refresh(stack[0], w1, b1, acc[0])
        ply = 0
        while ply < LINE:
            n = gen_moves(stack[ply], moves)
            if n == 0:
                break
            m = moves[np.random.randint(n)]
            stack[ply + 1] = stack[ply]
            apply_move(stack[ply + 1], m)
            if (m >> 10) != 0:
                captures += 1
            if _kings(stack[ply + 1]) > _kings(stack[ply]):
                crownings += 1
            nnue.update(stack[ply], stack[ply + 1], w1, acc[ply], acc[ply + 1])
            ply += 1
            nnue.refresh(stack[ply], w1, b1, fresh)
            checked += 1
            if not np.array_equal(acc[ply], fresh):
                mismatches += 1
        for back in range(ply, -1, -1):         # unmake the line: each ply's accumulators are still its own
            nnue.refresh(stack[back], w1, b1, fresh)
            checked += 1
            if not np.array_equal(acc[back], fresh):
                mismatches += 1
    return checked, mismatches, captures, crownings


def _random_start(seed: int, most: int = 50) -> np.ndarray:
    """A position 10 to ``most`` random plies into a game (a different mix of men and kings from the initial
    one)."""
    game = CheckersGame()
    rng = np.random.default_rng(seed)
    state = random_play(game.new_initial_state(), int(rng.integers(10, most)), rng)
    return game.kernels().state_to_pos(state)


def test_incrementally_updated_accumulators_equal_a_full_recomputation_on_10000_positions():
    E = nnue.quantize(nnue.initial(hidden=32, dense=16, seed=1))
    w1, b1 = E[0], E[1]
    totals = np.zeros(4, np.int64)
    starts = [CheckersGame().kernels().state_to_pos(CheckersGame().new_initial_state())]
    starts += [_random_start(seed) for seed in range(9)]
    for i, start in enumerate(starts):
        totals += _walk_lines(start, 25, w1, b1, i)
    checked, mismatches, captures, crownings = totals
    assert checked >= 10_000
    assert captures > 500 and crownings > 20          # the lines do take pieces and crown men
    assert mismatches == 0


def _bucketed(buckets: int, seed: int, hidden: int = 32, dense: int = 16):
    """A network whose buckets' dense layers differ (as trained ones do), so that a wrong bucket shows."""
    net = nnue.initial(hidden=hidden, dense=dense, seed=seed, buckets=buckets)
    rng = np.random.default_rng(seed)
    return net._replace(w2=net.w2 * rng.uniform(0.5, 1.5, net.w2.shape), b2=rng.normal(0, 0.1, net.b2.shape),
                        w3=net.w3 * rng.uniform(0.5, 1.5, net.w3.shape), b3=rng.normal(0, 0.3, net.b3.shape))


@pytest.mark.parametrize("buckets", [1, 4])
def test_the_compiled_value_is_the_float64_reference_of_the_same_arithmetic(buckets):
    net = _bucketed(buckets, seed=2)
    E = nnue.quantize(net)
    acc = np.zeros((2, net.hidden), np.int16)
    worst = 0.0
    values, seen = [], set()
    for seed in range(200):
        pos = _random_start(seed, most=200)          # long games too: few pieces, the other buckets
        nnue.refresh(pos, E[0], E[1], acc)
        value = nnue.dense_value(acc, pos, E)
        reference = nnue.reference_value(E, pos)
        seen.add(int(nnue.bucket(sum(popcount(pos[b]) for b in range(4)), buckets, nnue.MAX_PIECES)))
        values.append(reference)
        worst = max(worst, abs(value - reference))
    assert len(seen) == buckets                        # every bucket met (4: 1-6, 7-12, 13-18, 19-24 pieces)
    # float32 dense layers: 64 products into each of 16 sums of magnitude ~1, then 16 into the output, times
    # 100; float32's 6e-8 relative error makes that ~1e-4 at most.  The values themselves spread over units.
    assert worst < 1e-2
    assert np.std(values) > 1.0
    # The quantized network is the float network to within the rounding of its first layer (1/254 a weight).
    pos = _random_start(3)
    assert abs(nnue.reference_value(E, pos) - nnue.float_value(net, pos)) < 0.05 * nnue.OUTPUT_SCALE


def test_a_first_layer_at_its_limit_sums_24_pieces_without_overflow_even_clipped_in_float32():
    net = nnue.initial(hidden=8, dense=4, seed=0)
    for sign in (1.0, -1.0):
        limit = np.float32(sign * nnue.W1_LIMIT)              # a float32 model clips to this, a hair off
        big = net._replace(w1=np.full_like(net.w1, limit), b1=np.full_like(net.b1, limit))
        w1, b1 = nnue.quantize(big)[:2]
        acc = np.zeros((2, 8), np.int16)
        start = CheckersGame().kernels().state_to_pos(CheckersGame().new_initial_state())      # 24 pieces
        nnue.refresh(start, w1, b1, acc)
        exact = int(b1[0]) + 24 * int(w1[0, 0])
        assert abs(exact) <= 32767 and (acc == exact).all()


def test_a_first_layer_that_could_overflow_is_refused():
    net = nnue.initial(seed=0)
    w1, b1 = net.w1.copy(), net.b1.copy()
    w1[:30, 3] = nnue.W1_LIMIT * 1.05        # 24 of these and the bias: 24 x 1376 + 1310 = 34334 > 32767
    b1[3] = nnue.W1_LIMIT
    with pytest.raises(ValueError, match="could sum to 34334 accumulator units and overflow int16"):
        nnue.quantize(net._replace(w1=w1, b1=b1))
    w1[:30, 3] = nnue.W1_LIMIT * 0.4         # one weight far beyond the limit is fine while the sums fit
    w1[7, 3] = nnue.W1_LIMIT * 3
    nnue.quantize(net._replace(w1=w1, b1=b1))
    with pytest.raises(ValueError, match="shapes"):
        nnue.quantize(net._replace(w3=np.zeros(3)))
    with pytest.raises(ValueError, match="shapes"):
        nnue.quantize(net._replace(w1=np.zeros(5)))
    crowded = np.zeros((2, 7), np.int64)
    crowded[1, 0] = crowded[1, 2] = (1 << 13) - 1                 # 26 pieces
    with pytest.raises(ValueError, match="position 1 has more than 24 pieces"):
        nnue.batch_features(crowded)


@njit
def _recomputed_value(pos, ply, E):
    """The same network's value with its accumulators computed from scratch at the node."""
    acc = E[7][ply]
    nnue.refresh(pos, E[0], E[1], acc)
    return nnue.dense_value(acc, pos, E)


def _search(evaluation, E, pos, key, depth):
    search = core.compile_search(compiled.RULES, evaluation)
    ws = compiled.Workspace(tt_entries=1 << 14)
    ws.P[core.P_USE_TT] = ws.P[core.P_ORDERING] = ws.P[core.P_QUIESCENCE] = 1
    ws.P[core.P_NODE_LIMIT] = np.iinfo(np.int64).max
    ws.P[core.P_NO_PROGRESS] = 80
    ws.keys[0] = key
    out = []
    for d in range(1, depth + 1):
        value = search.search_root(pos, d, E, *ws.arrays())
        out.append((value, int(ws.C[core.C_NODES]), list(ws.pv[0, :ws.pvlen[0]])))
    return out


def test_the_search_with_updated_accumulators_is_the_search_recomputing_them_at_every_node():
    game = CheckersGame()
    state = game.new_initial_state()
    for text in "11-15 22-18 15x22 25x18 8-11 29-25".split():
        state.apply(state.parse_move(text))
    pos = game.kernels().state_to_pos(state)
    key = compiled.hash_position(pos)
    net = nnue.initial(hidden=32, dense=16, seed=4)
    incremental = _search(nnue.NNUE, nnue.quantize(net), pos, key, 9)
    recomputed = _search(core.stateless(_recomputed_value), nnue.quantize(net), pos, key, 9)
    assert incremental == recomputed
    assert incremental[-1][1] > 1000 and len({v for v, _, _ in incremental}) > 2
