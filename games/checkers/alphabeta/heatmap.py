"""The heatmap of learned piece-on-square values (matplotlib, imported only here)."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from plyground.files.storage import write_bytes

from . import features


def board_grid(values: np.ndarray) -> np.ndarray:
    """32 square values -> an 8x8 grid (NaN on light squares); row 0 holds squares 1-4."""
    grid = np.full((8, 8), np.nan)
    for s in range(32):
        row, k = divmod(s, 4)
        col = 2 * k + (1 if row % 2 == 0 else 0)
        grid[row, col] = values[s]
    return grid


def write_heatmap(w: np.ndarray, path: Path, title: str = "learned piece-on-square values") -> None:
    """Three boards (men in the opening, men in the endgame, kings), relative to the material values."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [("men, opening (phase 1)", w[features.MEN_OPEN:features.MEN_OPEN + 32]),
              ("men, endgame (phase 0)", w[features.MEN_END:features.MEN_END + 32]),
              ("kings", w[features.KINGS:features.KINGS + 32])]
    men_mask = np.ones(32, dtype=bool)
    men_mask[28:] = False              # a man never stands on its own crowning row
    limit = max(1.0, float(np.nanmax(np.abs(np.concatenate([p[1] for p in panels])))))
    fig, axes = plt.subplots(1, 3, figsize=(13.5, 4.6), layout="constrained")
    for ax, (label, values) in zip(axes, panels):
        shown = values.astype(float).copy()
        if label.startswith("men"):
            shown[~men_mask] = np.nan
        grid = board_grid(shown)
        image = ax.imshow(grid, cmap="RdBu_r", vmin=-limit, vmax=limit)
        for s in range(32):
            row, k = divmod(s, 4)
            col = 2 * k + (1 if row % 2 == 0 else 0)
            if np.isnan(grid[row, col]):
                ax.text(col, row, f"{s + 1}", ha="center", va="center", fontsize=7, color="0.6")
                continue
            ax.text(col, row - 0.22, f"{s + 1}", ha="center", va="center", fontsize=6, color="0.35")
            strong = abs(grid[row, col]) > 0.6 * limit
            ax.text(col, row + 0.12, f"{grid[row, col]:+.0f}", ha="center", va="center", fontsize=9,
                    color="white" if strong else "black")
        ax.set_title(label)
        ax.set_xticks([])
        ax.set_yticks([])
        for r in range(8):
            for c in range(8):
                if (r + c) % 2 == 0:
                    ax.add_patch(plt.Rectangle((c - 0.5, r - 0.5), 1, 1, color="0.93"))
    fig.colorbar(image, ax=axes, shrink=0.75, label="value added to the piece (a man = 100)")
    fig.suptitle(f"{title}\nking = {w[features.KING_VALUE]:.0f}, mobility = {w[features.MOBILITY]:+.1f} per move; "
                 f"boards from the side to move: its own back rank (1-4) at the top, advancing downwards",
                 fontsize=10)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    write_bytes(path, buffer.getvalue())
