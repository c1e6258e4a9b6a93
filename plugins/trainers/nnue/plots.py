"""The ``nnue`` trainer's curve: each generation's match scores against the training's wall time."""
from __future__ import annotations

from pathlib import Path

from plyground.files.atomic import atomic_writer
from plyground.files.storage import read_json_lines

from plyground.plugins.trainers.alphazero.plots import pyplot

SERIES = (("vs_today", "against today's engine ({today})"), ("vs_gen0", "against generation 0"),
          ("vs_best", "against the best engine before it"))


def plot_curve(curve: Path, path: Path, game: str, today: str = "learned") -> str | None:
    """Draw ``path`` from the rows of ``curve.jsonl``; returns why not, or None.  ``today``: the trainer's
    ``baseline`` (``learned``, the linear evaluation, or a network file, named by its file name); each point is
    labelled with its generation and its number of games (a gate by SPRT stops when it decides)."""
    today_name = "linear eval=learned" if today == "learned" else Path(today).name
    rows = read_json_lines(curve)
    if not rows:
        return None
    plt, problem = pyplot()
    if problem:
        return problem
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for key, label in SERIES:
        points = [(r["wall_hours"], r[key], r["generation"]) for r in rows if r.get(key)]
        if not points:
            continue
        x = [p[0] for p in points]
        y = [p[1]["score"] for p in points]
        low = [p[1]["score"] - p[1]["low"] for p in points]
        high = [p[1]["high"] - p[1]["score"] for p in points]
        ax.errorbar(x, y, yerr=[low, high], marker="o", capsize=3, label=label.format(today=today_name))
        for xi, yi, (_, score, g) in zip(x, y, points):
            games = score["wins"] + score["draws"] + score["losses"]
            ax.annotate(f"{g}: {games} games", (xi, yi), textcoords="offset points", xytext=(4, 4), fontsize=7)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    last = rows[-1]
    ax.set_xlabel(f"training wall time (hours; {last['cpu_hours']:.2f} CPU hours in all)")
    ax.set_ylabel(f"score ({last['match_seconds']} s a move)")
    ax.set_ylim(0, 1)
    ax.set_title(f"{game} NNUE: each generation's score (labels: generation: games; 95% intervals)")
    ax.legend(fontsize=8, loc="lower right")
    with atomic_writer(Path(path), "wb") as handle:
        fig.savefig(handle, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return None
