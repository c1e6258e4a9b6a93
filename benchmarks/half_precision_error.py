"""The error half precision (float16 inference) introduces: values and move priors against float32.

    python benchmarks/half_precision_error.py                        # the bundled checkers network, CPU
    python benchmarks/half_precision_error.py --device cuda          # the same on a GPU (pip install 'plyground[gpu]')
    python benchmarks/half_precision_error.py --positions 500 --model runs/checkers/best.npz

The network predicts the same positions in float32 and in float16 on one
device (``cpu-portable`` by default: the GPU's code path with numpy's float16,
whose matrix products accumulate in float32 as a GPU's do; slow on a CPU - no
BLAS - so a few thousand positions take minutes).  Positions: distinct
positions of the ACF archive's games (``acf``, shipped with checkers) with more than
one legal move, each followed by the position after a random other move (as
the teacher bootstrap takes them); without the archive, positions of random
games.  Reported: the value's absolute difference (max, mean, 99th
percentile), the move priors' absolute difference (softmax over the legal
moves, as the search computes them: max over all priors, mean of each
position's largest difference), and how often the two precisions put the
same move first.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from plyground.errors import PlygroundError



def positions(game, count: int, seed: int) -> tuple[list, str]:
    """``count`` positions with more than one legal move: from the ACF archive, else from random games."""
    if game.name == "checkers":
        from plyground.plugins.trainers.alphazero.bootstrap import expert_positions
        found = []
        for position in expert_positions(game, Path("acf"), seed, siblings=True):
            found.append(position.state)
            if len(found) == count:
                break
        return found, f"{len(found)} positions of the ACF archive's games (and siblings)"
    rng, found = np.random.default_rng(seed), []
    while len(found) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(found) < count:
            legal = state.legal_moves()
            if len(legal) > 1:
                found.append(state.clone())
            state.apply(legal[int(rng.integers(len(legal)))])
    return found, f"{len(found)} positions of random {game.name} games"


def priors(logits: np.ndarray, states: list) -> list[np.ndarray]:
    """Each position's move priors, as the search computes them from the logits of the legal moves."""
    from plyground.players.search.priors import move_priors
    return [move_priors(row, np.array([state.action_index(m) for m in state.legal_moves()]))
            for row, state in zip(logits, states)]


def predict(network, observations: np.ndarray, batch: int) -> tuple[np.ndarray, np.ndarray]:
    parts = [network.predict(observations[i:i + batch]) for i in range(0, len(observations), batch)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="checkers")
    parser.add_argument("--model", type=Path, default=None, help="model file (default: the bundled one)")
    parser.add_argument("--device", default="cpu-portable", help="cpu-portable (default), cuda or cuda:N")
    parser.add_argument("--positions", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=256, help="positions per network call")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from plyground.players.alphazero.networks import load_model, resolve_model_path
    from plyground.registry import get_registry
    game = get_registry().make_game(args.game)
    path = resolve_model_path(args.model, game)
    try:
        full, half = (load_model(path, game, device=args.device, precision=p) for p in ("float32", "float16"))
    except PlygroundError as exc:
        sys.exit(f"half_precision_error: {exc}")
    states, source = positions(game, args.positions, args.seed)
    observations = np.stack([state.observation() for state in states]).astype(np.float32)
    started = time.perf_counter()
    logits32, values32 = predict(full, observations, args.batch)
    logits16, values16 = predict(half, observations, args.batch)
    seconds = time.perf_counter() - started

    value_error = np.abs(values16.astype(np.float64) - values32)
    p32, p16 = priors(logits32, states), priors(logits16, states)
    prior_error = [np.abs(a - b) for a, b in zip(p16, p32)]
    agree = np.mean([np.argmax(a) == np.argmax(b) for a, b in zip(p16, p32)])
    near_ties = np.mean([np.sort(p)[-1] - np.sort(p)[-2] < 0.01 for p in p32])
    # where the precisions pick different moves: how far apart float32 put those two moves
    gaps = [b[np.argmax(b)] - b[np.argmax(a)] for a, b in zip(p16, p32) if np.argmax(a) != np.argmax(b)]
    print(f"{game.name}: {path.name} ({getattr(full, 'config', {}).get('channels', '?')} channels, "
          f"{getattr(full, 'config', {}).get('blocks', '?')} blocks) on {args.device}; {source}; "
          f"{seconds:.0f} s for both precisions")
    print(f"value |v16 - v32|:  max {value_error.max():.2e}, mean {value_error.mean():.2e}, "
          f"99th percentile {np.percentile(value_error, 99):.2e} (values in [-1, 1])")
    print(f"prior |p16 - p32|:  max {max(e.max() for e in prior_error):.2e}, mean of each position's largest "
          f"{np.mean([e.max() for e in prior_error]):.2e}, mean {np.mean(np.concatenate(prior_error)):.2e}")
    print(f"top-1 move agreement: {100 * agree:.2f}% of {len(states)} positions "
          f"({100 * near_ties:.1f}% of the positions have their two best float32 priors within 0.01)")
    if gaps:
        print(f"where the top move differs ({len(gaps)} positions), float32 put the two moves "
              f"{min(gaps):.1e} to {max(gaps):.1e} apart in prior")


if __name__ == "__main__":
    main()
