"""Does pretraining lower Deep Pepper's early training loss?  One PNG from two run directories.

    plyground train expert-iteration --game chess --config configs/deep-pepper-chess.toml --run RUNS/pretrained
    plyground train expert-iteration --game chess --config configs/deep-pepper-chess.toml --run RUNS/scratch \\
        --set pretrain_positions=0 --set iterations=2
    python benchmarks/deep_pepper_pretraining.py RUNS/pretrained RUNS/scratch --iterations 2 \\
        --out docs/deep_pepper/pretraining.png

Both runs use the same config and seed; only ``pretrain_positions`` differs.
The plot reads each run's ``metrics.jsonl`` (the loss of every training epoch
of every iteration) and, for the pretrained run, the pretraining epochs stored
in its initial checkpoint, and draws the total, value and policy losses epoch
by epoch over the first ``--iterations`` iterations.  It prints the numbers it
plots, so the figure can be checked without opening it.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from plyground.errors import UsageError

PANELS = (("loss", "total loss"), ("value_loss", "value loss (MSE)"), ("policy_loss", "policy loss (cross-entropy)"))


def epoch_losses(run_dir: Path, iterations: int) -> list[tuple[float, dict]]:
    """(x, losses) for every training epoch of the first ``iterations`` iterations; x = iteration - 1 +
    (epoch / epochs), so the epochs of iteration k lie in (k - 1, k]."""
    path = run_dir / "metrics.jsonl"
    if not path.is_file():
        raise UsageError(f"{run_dir} has no metrics.jsonl: is it a training run directory with a finished "
                         f"iteration?")
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    points = []
    for row in rows:
        if row["iteration"] > iterations:
            continue
        epochs = row.get("epoch_losses") or []
        for e, losses in enumerate(epochs, start=1):
            points.append((row["iteration"] - 1 + e / len(epochs), losses))
    if not points:
        raise UsageError(f"{path} has no training epochs in its first {iterations} iteration(s)")
    return points


def pretraining_losses(run_dir: Path) -> list[dict]:
    """The pretraining epochs stored in the run's initial checkpoint (empty without pretraining)."""
    from plyground.players.alphazero.networks import load_model
    from plyground.games.chess.game import ChessGame
    checkpoint = run_dir / "checkpoints" / "iter-0000.npz"
    if not checkpoint.is_file():
        return []
    network = load_model(checkpoint, ChessGame(encoding="deep_pepper"))
    return list(network.metadata.get("pretrain_losses") or [])


def plot(runs: list[tuple[str, Path]], iterations: int, out: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from plyground.files.atomic import atomic_writer

    fig, axes = plt.subplots(1, len(PANELS), figsize=(13, 4))
    for (label, run_dir), style in zip(runs, ("o-", "s--")):
        points = epoch_losses(run_dir, iterations)
        pre = pretraining_losses(run_dir)
        print(f"{label} ({run_dir}):")
        if pre:
            print("  pretraining epochs: " + ", ".join(f"{p['loss']:.3f}" for p in pre))
        for x, losses in points:
            print(f"  x={x:.2f}  loss {losses['loss']:.4f}  value {losses['value_loss']:.4f}  "
                  f"policy {losses['policy_loss']:.4f}")
        for ax, (key, title) in zip(axes, PANELS):
            ax.plot([x for x, _ in points], [p[key] for _, p in points], style, label=label)
    for ax, (_, title) in zip(axes, PANELS):
        ax.set_title(title)
        ax.set_xlabel("iteration (epochs of its training)")
        ax.set_xticks(range(0, iterations + 1))
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("loss on the iteration's self-play examples")
    axes[0].legend()
    fig.suptitle("Deep Pepper expert iteration on chess: training loss with and without Stockfish pretraining")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_writer(out, "wb") as handle:
        fig.savefig(handle, format="png", dpi=100)
    plt.close(fig)
    print(f"wrote {out}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pretrained", type=Path, help="run directory of the run with pretraining")
    parser.add_argument("scratch", type=Path, help="run directory of the same run with pretrain_positions=0")
    parser.add_argument("--iterations", type=int, default=2, help="first iterations to plot (default 2)")
    parser.add_argument("--out", type=Path, default=Path("docs/deep_pepper/pretraining.png"))
    args = parser.parse_args(argv)
    try:
        plot([("with pretraining", args.pretrained), ("without pretraining", args.scratch)], args.iterations,
             args.out)
    except UsageError as exc:
        parser.error(str(exc))   # exits 2 with the message, as argparse's own usage errors
    return 0


if __name__ == "__main__":
    sys.exit(main())
