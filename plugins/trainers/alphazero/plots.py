"""PNG plots of a training run: losses, comparison (gate) results and estimated Elo.

matplotlib is imported only here, and only when plots are drawn.  Each PNG
is written to a temporary file and moved into place.
"""
from __future__ import annotations

from pathlib import Path

from plyground.files.atomic import atomic_writer


def pyplot():
    """``(matplotlib.pyplot, None)`` set up to draw files, or ``(None, why not)``."""
    try:
        import matplotlib
        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError:
        return None, "matplotlib is not installed (pip install 'plyground[plots]')"
    return plt, None


def write_plots(folder: Path, metrics: list[dict], threshold: float) -> str | None:
    """Draw ``losses.png``, ``gate.png`` and ``elo.png``; returns why not, or None."""
    if not metrics:
        return None
    plt, problem = pyplot()
    if problem:
        return problem
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    iterations = [m["iteration"] for m in metrics]

    fig, ax = plt.subplots(figsize=(7, 4))
    for key, label in (("loss", "total"), ("value_loss", "value (MSE)"), ("policy_loss", "policy (cross-entropy)")):
        ax.plot(iterations, [m.get(key) for m in metrics], marker="o", label=label)
    ax.set_xlabel("iteration")
    ax.set_ylabel("loss (last epoch)")
    ax.set_title("Training losses")
    ax.grid(alpha=0.3)
    ax.legend()
    save_figure(fig, folder / "losses.png")
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 4))
    # A gate or evaluation whose games all went unfinished has no score (None): nothing to draw.
    gated = [m for m in metrics if m.get("gate") and m["gate"].get("score") is not None]
    colors = ["tab:green" if m.get("accepted") else "tab:red" for m in gated]
    ax.bar([m["iteration"] for m in gated], [m["gate"]["score"] for m in gated], color=colors)
    ax.axhline(threshold, color="black", linestyle="--", label=f"replace threshold {threshold:g}%")
    ax.set_ylim(0, 100)
    ax.set_xlabel("iteration")
    ax.set_ylabel("new network's score vs best (%)")
    ax.set_title("Comparison games (green: accepted)")
    ax.legend()
    save_figure(fig, folder / "gate.png")
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot([0] + iterations, [0.0] + [m.get("gate_elo", 0.0) for m in metrics], marker="o", drawstyle="steps-post",
            label="best network: cumulative Elo from gate scores (initial network = 0)")
    evaluated = [m for m in metrics if m.get("evaluation") and m["evaluation"].get("elo") is not None]
    if evaluated:
        opponent = evaluated[-1]["evaluation"]["opponent"]
        ax.plot([m["iteration"] for m in evaluated], [m["evaluation"]["elo"] for m in evaluated], marker="s",
                linestyle=":", label=f"accepted network vs {opponent} (Elo difference from evaluation games)")
    ax.set_xlabel("iteration")
    ax.set_ylabel("Elo")
    ax.set_title("Estimated strength")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    save_figure(fig, folder / "elo.png")
    plt.close(fig)
    return None


def save_figure(fig, path: Path) -> None:
    with atomic_writer(path, "wb") as handle:
        fig.savefig(handle, format="png", dpi=100, bbox_inches="tight")
