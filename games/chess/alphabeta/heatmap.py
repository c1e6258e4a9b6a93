"""The heatmap of learned chess piece-square values (matplotlib, imported only here)."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from plyground.files.storage import write_bytes

from . import features


def write_heatmap(w: np.ndarray, path: Path, title: str = "learned piece-square values") -> None:
    """Twelve boards: each piece type in the opening (phase 1) and the endgame (phase 0), White's view (the
    side's own back rank at the bottom), in pawns of 100; the material values in the titles."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 6, figsize=(19, 7.4), layout="constrained")
    stages = (("opening", features.PST_OPEN, 0), ("endgame", features.PST_END, 5))
    tables = [w[base + 64 * t: base + 64 * (t + 1)] for _, base, _ in stages for t in range(6)]
    limit = max(1.0, float(np.max(np.abs(np.concatenate(tables)))))
    for row, (stage, base, extra) in enumerate(stages):
        for t, name in enumerate(features.PIECE_NAMES):
            ax = axes[row, t]
            values = w[base + 64 * t: base + 64 * (t + 1)].reshape(8, 8)[::-1]      # rank 8 at the top
            image = ax.imshow(values, cmap="RdBu_r", vmin=-limit, vmax=limit)
            for r in range(8):
                for f in range(8):
                    v = values[r, f]
                    ax.text(f, r, f"{v:+.0f}", ha="center", va="center", fontsize=6,
                            color="white" if abs(v) > 0.6 * limit else "black")
            material = ""
            if t < 5:
                value = w[features.MATERIAL + t] + (w[features.MATERIAL_END + t] if extra else 0.0)
                material = f" ({value:.0f})"
            ax.set_title(f"{name}, {stage}{material}", fontsize=9)
            ax.set_xticks(range(8), list("abcdefgh"), fontsize=6)
            ax.set_yticks(range(8), [str(8 - r) for r in range(8)], fontsize=6)
    fig.colorbar(image, ax=axes, shrink=0.6, label="value added to the piece on the square (a pawn = 100)")
    fig.suptitle(title, fontsize=11)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    write_bytes(path, buffer.getvalue())
