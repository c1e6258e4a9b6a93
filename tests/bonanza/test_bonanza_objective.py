"""The Bonanza objective: its sparse gradient against finite differences, the leaves it is built on,
and the agreement measure."""
import random

import numpy as np
import pytest

from plyground.games.checkers import CheckersGame, kernels
from plyground.games.checkers.alphabeta import features
from plyground.learning.expert import ExpertGame, split_games
from plyground.games.checkers.alphabeta.learning import CheckersLearning
from plyground.plugins.trainers.bonanza.leaves import compute_leaves, move_values
from plyground.plugins.trainers.bonanza.objective import Objective, agreement, objective_terms_for, random_agreement

LEARNING = CheckersLearning()


def random_games(count, seed):
    """Games of random moves, standing in for expert games."""
    game = CheckersGame()
    rng = random.Random(seed)
    out = []
    for n in range(count):
        state = game.new_initial_state()
        codes = []
        while not state.is_terminal() and len(codes) < 120:
            move = rng.choice(state.legal_moves())
            codes.append(move)
            state.apply(move)
        out.append(ExpertGame(n + 1, kernels.state_to_pos(game.new_initial_state()), codes))
    return out


@pytest.fixture(scope="module")
def positions():
    games = random_games(6, seed=1)
    return LEARNING.positions(games, range(len(games)))


def perturbed(seed, scale=20.0):
    w = features.material_weights() + np.random.default_rng(seed).normal(0, scale, features.NUM_FEATURES)
    w[features.MAN_VALUE] = features.MAN_MATERIAL
    return w


def trainable():
    mask = np.ones(features.NUM_FEATURES, dtype=bool)
    mask[list(features.FROZEN)] = False
    return mask


def test_positions_skip_single_move_positions(positions):
    assert positions.forced > 0 and positions.size > 100
    assert np.all(np.diff(positions.offsets) >= 2)
    for r in range(0, positions.size, 7):
        legal = kernels.legal_codes(positions.roots[r])
        assert np.array_equal(legal, positions.codes[positions.offsets[r]:positions.offsets[r + 1]])


def test_leaves_are_the_ends_of_the_principal_variations(positions):
    w = perturbed(1)
    leaves, nodes = compute_leaves(LEARNING, positions, w, depth=2)
    assert nodes > positions.moves
    values = move_values(LEARNING, positions, w, depth=2)
    assert np.array_equal(values, leaves.values)
    for r in range(0, positions.size, 5):
        side = positions.roots[r, 4]
        for j in range(positions.offsets[r], positions.offsets[r + 1]):
            if not leaves.terminal[j]:
                assert features.evaluate_boards(*leaves.rows[j], side, w) == pytest.approx(leaves.values[j], abs=1e-9)


@pytest.mark.parametrize("penalty", ["l2", "l1", "none"])
def test_sparse_gradient_matches_finite_differences(positions, penalty):
    w_leaves = perturbed(2)
    leaves, _ = compute_leaves(LEARNING, positions, w_leaves, depth=1)
    w0 = features.material_weights()
    objective = Objective(LEARNING, positions, leaves, slope=0.02, penalty_kind=penalty, strength=3e-4, w0=w0,
                          trainable=trainable())
    w = perturbed(3)              # away from w0, so |w - w0| has no kink nearby
    value, grad, info = objective(w)
    assert grad[features.MAN_VALUE] == 0.0
    h = 1e-3
    numeric = np.zeros_like(w)
    for i in np.flatnonzero(trainable()):
        up, down = w.copy(), w.copy()
        up[i] += h
        down[i] -= h
        numeric[i] = (objective(up, want_grad=False)[0] - objective(down, want_grad=False)[0]) / (2 * h)
    assert np.abs(grad).max() > 1e-4
    np.testing.assert_allclose(grad, numeric, rtol=1e-4, atol=1e-9)


def test_gradient_equals_the_dense_formula(positions):
    """sum over pairs of T'(v_m - v_e) (psi_m - psi_e), with psi built densely from each leaf."""
    w = perturbed(4)
    leaves, _ = compute_leaves(LEARNING, positions, w, depth=0)
    slope = 0.03
    grad = np.zeros_like(w)
    total, pairs, _, _ = objective_terms_for(LEARNING)(w, slope, positions.sides, positions.offsets, positions.expert,
                                                       leaves.rows, leaves.values, leaves.terminal, grad, True)
    dense = np.zeros_like(w)
    dense_total = 0.0
    for r in range(positions.size):
        side = positions.roots[r, 4]
        a, b = positions.offsets[r], positions.offsets[r + 1]
        e = a + positions.expert[r]

        def psi(j):
            if leaves.terminal[j]:
                return np.zeros_like(w)
            return features.dense_features(np.array([*leaves.rows[j], side, 0, 0]), side)

        for j in range(a, b):
            if j == e:
                continue
            d = leaves.values[j] - leaves.values[e]
            t = 0.5 * (1.0 + np.tanh(0.5 * slope * d))
            dense_total += t
            dense += slope * t * (1 - t) * (psi(j) - psi(e))
    assert total == pytest.approx(dense_total, rel=1e-9)
    np.testing.assert_allclose(grad, dense, rtol=1e-9, atol=1e-12)


def test_agreement_counts_ties_fairly():
    offsets = np.array([0, 3, 7, 9])
    values = np.array([5.0, 1.0, 0.0,      # expert (index 0) strictly first
                       2.0, 2.0, 2.0, 2.0,  # four-way tie: 1/4 top-1, 3/4 top-3
                       1.0, 3.0])           # expert second of two
    expert = np.array([0, 1, 0])
    top1, top3 = agreement(values, offsets, expert)
    assert top1 == pytest.approx(1 + 0.25 + 0)
    assert top3 == pytest.approx(1 + 0.75 + 1)
    r1, r3 = random_agreement(offsets)
    assert r1 == pytest.approx((1 / 3 + 1 / 4 + 1 / 2) / 3) and r3 == pytest.approx((1 + 3 / 4 + 1) / 3)
    # A constant evaluation is the random ranking in expectation.
    flat1, flat3 = agreement(np.zeros(9), offsets, expert)
    assert (flat1 / 3, flat3 / 3) == pytest.approx((r1, r3))


def test_split_is_by_game_seeded_and_disjoint():
    train, test = split_games(100, 0.1, seed=3)
    assert len(test) == 10 and len(train) == 90 and not set(train) & set(test)
    again = split_games(100, 0.1, seed=3)
    assert np.array_equal(again[1], test)
    assert not np.array_equal(split_games(100, 0.1, seed=4)[1], test)
