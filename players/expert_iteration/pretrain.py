"""Pretraining on Stockfish-labelled positions (Deep Pepper 3.6).

For each position the labels are
* policy: a softmax over Stockfish's evaluations of the children,
  ``pi(a) ∝ exp(score(a) / temperature_cp)``, ``score(a)`` = the evaluation of
  the position after ``a`` for the side that played it (one MultiPV search of
  the position scores every move at once);
* value: ``tanh(max_a score(a) / scale_cp)`` for the side to move (the best
  child's evaluation, i.e. Stockfish's evaluation one ply deeper; no extra
  engine call).

Positions come from a PGN file (every position of every game's main line, in
file order) or, without one, from Stockfish self-play: each next move is drawn
from the policy label itself, so the games vary.  Self-play between equals
rarely reaches the lopsided endgames in which a won game must be converted
(mating a bare king, promoting, avoiding stalemate); with ``random_opponent``
that fraction of the games has one side (alternating) play uniformly random
moves, so the labels also show how Stockfish finishes a won game and how the
losing side's positions are valued.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from .stockfish import MATE_CP, StockfishEvaluator, cp_to_value

SELFPLAY_MAX_PLIES = 120


def child_scores(evaluator: StockfishEvaluator, state: Any) -> tuple[list, np.ndarray]:
    """The legal moves of ``state`` and, for each, centipawns for the side that plays it: from one
    MultiPV search when the evaluator scores all moves at once, else one search per child position."""
    moves = list(state.legal_moves())
    mover = state.current_player()
    scores = np.empty(len(moves))
    scored = evaluator.evaluate_moves(state) if getattr(evaluator, "all_moves", False) else {}
    for i, move in enumerate(moves):
        uci = state.move_to_uci(move)
        if uci in scored:
            scores[i] = scored[uci]
            continue
        state.apply(move)
        try:
            if state.is_terminal():
                scores[i] = MATE_CP * float(state.returns()[mover])
            else:
                scores[i] = -evaluator.evaluate(state)
        finally:
            state.undo()
    return moves, scores


def label_position(evaluator: StockfishEvaluator, state: Any, num_actions: int, *, temperature_cp: float,
                   scale_cp: float) -> tuple[np.ndarray, np.ndarray, float, list, np.ndarray]:
    """(observation, dense policy label, value label, moves, policy over the moves) for a non-terminal state."""
    moves, scores = child_scores(evaluator, state)
    logits = (scores - scores.max()) / temperature_cp
    probabilities = np.exp(logits)
    probabilities /= probabilities.sum()
    policy = np.zeros(num_actions, np.float32)
    for move, p in zip(moves, probabilities):
        policy[state.action_index(move)] += p
    value = cp_to_value(float(scores.max()), scale_cp)
    return np.array(state.observation(), np.float32, copy=True), policy, value, moves, probabilities


def pgn_positions(game: Any, path: str | Path) -> Iterator[Any]:
    """Every non-terminal position of the main lines of a PGN file's games (states of ``game``)."""
    from plyground.games.chess.pgn import read_pgn
    for pgn_game in read_pgn(Path(path), strict=False):
        state = game.new_state(pgn_game.fen)
        for move in pgn_game.uci_moves:
            if state.is_terminal():
                break
            yield state
            state.apply(move)


def make_dataset(game: Any, evaluator: StockfishEvaluator, count: int, *, pgn: str | None = None,
                 temperature_cp: float = 100.0, scale_cp: float = 400.0, random_opponent: float = 0.0,
                 seed: int = 0,
                 log: Callable[[str], None] = lambda line: None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``count`` labelled positions: observations, dense policies and values (``random_opponent``:
    the fraction of self-play games in which one side moves at random)."""
    rng = np.random.default_rng([seed, 36])
    observations, policies, values = [], [], []

    def add(state: Any) -> tuple[list, np.ndarray]:
        obs, policy, value, moves, probabilities = label_position(
            evaluator, state, game.num_actions, temperature_cp=temperature_cp, scale_cp=scale_cp)
        observations.append(obs)
        policies.append(policy)
        values.append(value)
        if len(values) % 50 == 0:
            log(f"pretraining: {len(values)}/{count} positions labelled")
        return moves, probabilities

    if pgn is not None:
        for state in pgn_positions(game, pgn):
            if len(values) >= count:
                break
            add(state)
        if not values:
            raise ValueError(f"PGN file {pgn} holds no positions to pretrain on")
    else:
        games = 0
        while len(values) < count:
            state = game.new_initial_state()
            random_side = games % 2 if random_opponent > 0 and rng.random() < random_opponent else None
            games += 1
            plies = 0
            while not state.is_terminal() and plies < SELFPLAY_MAX_PLIES and len(values) < count:
                moves, probabilities = add(state)
                if state.current_player() == random_side:
                    state.apply(moves[int(rng.integers(len(moves)))])
                else:
                    state.apply(moves[int(rng.choice(len(moves), p=probabilities))])
                plies += 1
    return np.stack(observations), np.stack(policies), np.asarray(values, np.float32)


def pretrain_network(network: Any, game: Any, *, positions: int, pgn: str | None = None, engine: str = "stockfish",
                     depth: int = 6, epochs: int = 5, batch_size: int = 64, temperature_cp: float = 100.0,
                     scale_cp: float = 400.0, random_opponent: float = 0.0, seed: int = 0,
                     log: Callable[[str], None] = lambda line: None) -> list[dict[str, float]]:
    """Label ``positions`` positions with Stockfish and train ``network`` on them; the losses per epoch."""
    with StockfishEvaluator(engine, depth, all_moves=True) as evaluator:
        observations, policies, values = make_dataset(game, evaluator, positions, pgn=pgn,
                                                      temperature_cp=temperature_cp, scale_cp=scale_cp,
                                                      random_opponent=random_opponent, seed=seed, log=log)
    n = len(values)
    batch = min(batch_size, n)
    rng = np.random.default_rng([seed, 37])
    losses = []
    for epoch in range(epochs):
        order = rng.permutation(n)
        steps = max(1, n // batch)
        sums = {"loss": 0.0, "value_loss": 0.0, "policy_loss": 0.0}
        for step in range(steps):
            idx = order[step * batch:(step + 1) * batch]
            result = network.train_step(observations[idx], policies[idx], values[idx])
            for key in sums:
                sums[key] += float(result[key])
        losses.append({key: value / steps for key, value in sums.items()})
        log(f"pretraining epoch {epoch + 1}/{epochs} on {n} positions: loss {losses[-1]['loss']:.4f} "
            f"(value {losses[-1]['value_loss']:.4f}, policy {losses[-1]['policy_loss']:.4f})")
    return losses
