"""Reports of a training run: JSON numbers, a Markdown summary, PNG plots and heatmaps.

Every file is written atomically (temporary file, then rename).  Plots need
matplotlib (the ``plots`` extra); without it the numbers are still written
and the Markdown says the plots were skipped.
"""
from __future__ import annotations

import io
from pathlib import Path
from typing import Sequence

import numpy as np

from plyground.files.atomic import atomic_write_text
from plyground.files.storage import write_bytes, write_json

from .model import BayesModel


def write_report(run_dir: Path, report: dict, model: BayesModel, adapter, plots: bool = True) -> list[Path]:
    run_dir = Path(run_dir)
    written = []
    if plots:
        try:
            written = write_plots(run_dir / "plots", report, model, adapter)
        except ImportError:
            report["plots_skipped"] = "matplotlib is not installed"
    report["plots"] = [str(p.relative_to(run_dir)) for p in written]
    write_json(run_dir / "report.json", report, indent=1)
    atomic_write_text(run_dir / "report.md", markdown(report, model))
    return written


# ------------------------------------------------------------------ markdown

def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def markdown(report: dict, model: BayesModel) -> str:
    fp, data, tr, ho = report["fingerprint"], report["data"], report["training"], report["held_out"]
    lines = [f"# bayes: {model.describe()}", ""]
    options = ", ".join(f"{k}={v}" for k, v in fp.items() if v is not None and k not in ("game", "games"))
    lines += [f"Options: {options}.", "",
              f"Data: {data['games_read']:,} games read from `{Path(data['games_file']).name}` "
              f"({data['unreadable_games']} unreadable skipped); trained on {data['train_games']:,} games "
              f"({tr['positions']:,} positions with two or more distinct candidates), "
              f"{data['held_out_games']:,} games held out.", ""]
    if ho:
        lines += [f"Held out: {ho['positions']:,} positions with two or more legal moves "
                  f"({ho['positions_single_move_excluded']:,} single-move positions excluded), "
                  f"{ho['mean_legal_moves']:.2f} legal moves on average.  A tie in mean counts as wrong.", "",
                  "## Top-k accuracy (held out)", "", "| k | model | random | model / random |", "|---:|---:|---:|---:|"]
        for k, (m, r) in enumerate(zip(ho["topk"], ho["random_topk"]), start=1):
            lines.append(f"| {k} | {_pct(m)} | {_pct(r)} | {m / r:.2f} |")
        lines += ["", "## Accuracy against training-set size (held out)", "",
                  "| games | positions | top-1 | top-3 | top-5 | random top-1 |", "|---:|---:|---:|---:|---:|---:|"]
        for c in report["curve"]:
            lines.append(f"| {c['games']:,} | {c['positions']:,} | {_pct(c['topk'][0])} | {_pct(c['topk'][2])} | "
                         f"{_pct(c['topk'][4])} | {_pct(c['random_topk'][0])} |")
        lines += ["", "## By the expert's move type (held out)", "",
                  "| type | positions | share | top-1 | top-3 | random top-1 |", "|---|---:|---:|---:|---:|---:|"]
        for t in ho["per_move_type"]:
            lines.append(f"| {t['type']} | {t['positions']:,} | {_pct(t['share'])} | {_pct(t['top1'])} | "
                         f"{_pct(t['top3'])} | {_pct(t['random_top1'])} |")
        lines += ["", "## By ply (held out; per-ply figures in report.json)", "",
                  "| plies | positions | top-1 | random top-1 |", "|---|---:|---:|---:|"]
        for b in ho["per_ply_band"]:
            lines.append(f"| {b['plies']} | {b['positions']:,} | {_pct(b['top1'])} | {_pct(b['random_top1'])} |")
    kps = tr.get("kernel_positions_per_second")
    pps = tr.get("positions_per_second")
    lines += ["", "## Training", "",
              f"* positions learned from: {tr['positions']:,}; inner sweeps per position: "
              f"{tr['sweeps_per_position']:.2f}; positions that hit max_sweeps: {tr['capped']:,}",
              f"* non-finite updates skipped: {tr['skipped_nonfinite']} (beliefs checked finite at the end)",
              f"* speed: {pps:,.0f} positions/s end to end (encoding + message passing, "
              f"{tr['loop_seconds']:.1f} s), {kps:,.0f} positions/s for message passing alone "
              f"({tr['kernel_seconds']:.2f} s); reading the games took {tr['read_seconds']:.1f} s"
              if pps and kps else "* speed: -",
              f"* ids seen: {report['ids_seen']:,} of {report['id_space']:,}", ""]
    if report.get("plots"):
        lines += ["## Plots", ""] + [f"![{Path(p).stem}]({p})" for p in report["plots"]] + [""]
    elif report.get("plots_skipped"):
        lines += [f"Plots skipped: {report['plots_skipped']}.", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------- plots

def _figure():
    import matplotlib
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    return plt


def save_figure(fig, path: Path) -> Path:
    """The figure as a PNG at ``path`` (a temporary file, then rename); the figure is closed."""
    try:
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    finally:
        _figure().close(fig)
    write_bytes(path, buffer.getvalue())
    return path


def _finish_chart(fig, ax, path: Path, legend_size: float | None = None, **axes) -> Path:
    """A percentage chart's axes (``axes``: labels, title, ticks; y from 0 to 100), a light grid and the
    legend, then the PNG (:func:`save_figure`)."""
    ax.set(ylim=(0, 100), **axes)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=legend_size)
    return save_figure(fig, path)


def plot_topk(series: Sequence[tuple[str, Sequence[float]]], random: Sequence[float], path: Path, title: str) -> Path:
    plt = _figure()
    fig, ax = plt.subplots(figsize=(6, 4))
    ks = np.arange(1, len(random) + 1)
    for label, values in series:
        ax.plot(ks, 100 * np.asarray(values), marker="o", label=label)
    ax.plot(ks, 100 * np.asarray(random), marker="x", linestyle="--", color="grey", label="random legal move")
    return _finish_chart(fig, ax, path, xlabel="k", ylabel="expert move in top k (%)", title=title, xticks=ks)


def plot_curve(series: Sequence[tuple[str, Sequence[dict]]], path: Path, title: str) -> Path:
    plt = _figure()
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, curve in series:
        games = [c["games"] for c in curve]
        ax.plot(games, [100 * c["topk"][0] for c in curve], marker="o", label=f"{label} top-1")
        ax.plot(games, [100 * c["topk"][4] for c in curve], marker=".", alpha=0.6, label=f"{label} top-5")
    if series and series[0][1]:
        games = [c["games"] for c in series[0][1]]
        ax.plot(games, [100 * c["random_topk"][0] for c in series[0][1]], "--", color="grey", label="random top-1")
    ax.set_xscale("log", base=2)
    return _finish_chart(fig, ax, path, legend_size=8, xlabel="training games (log scale)",
                         ylabel="held-out accuracy (%)", title=title)


def plot_per_ply(series: Sequence[tuple[str, Sequence[dict]]], path: Path, title: str, min_positions: int = 50) -> Path:
    plt = _figure()
    fig, ax = plt.subplots(figsize=(7, 4))
    rand = None
    for label, per_ply in series:
        rows = [p for p in per_ply if p["positions"] >= min_positions]
        ax.plot([p["ply"] for p in rows], [100 * p["top1"] for p in rows], label=label)
        rand = rand or rows
    if rand:
        ax.plot([p["ply"] for p in rand], [100 * p["random_top1"] for p in rand], "--", color="grey",
                label="random legal move")
    return _finish_chart(fig, ax, path, xlabel=f"ply (plies with >= {min_positions} held-out positions)",
                         ylabel="top-1 accuracy (%)", title=title)


def plot_per_type(series: Sequence[tuple[str, Sequence[dict]]], path: Path, title: str) -> Path:
    plt = _figure()
    fig, ax = plt.subplots(figsize=(7, 4))
    names = [t["type"] for t in series[0][1]] if series else []
    width = 0.8 / (len(series) + 1)
    x = np.arange(len(names))
    for i, (label, per_type) in enumerate(series):
        by = {t["type"]: t for t in per_type}
        ax.bar(x + i * width, [100 * by[n]["top1"] if n in by else 0 for n in names], width, label=label)
    if series:
        by = {t["type"]: t for t in series[0][1]}
        ax.bar(x + len(series) * width, [100 * by[n]["random_top1"] for n in names], width, color="grey",
               label="random legal move")
        ax.set_xticks(x + width * len(series) / 2)
        ax.set_xticklabels([f"{n}\n({by[n]['share']:.1%})" for n in names])
    ax.set(ylabel="top-1 accuracy (%)", title=title, ylim=(0, 100))
    ax.legend()
    return save_figure(fig, path)


def plot_heatmaps(maps, means: np.ndarray, counts: np.ndarray, path: Path, title: str) -> Path:
    """Learned means on boards: ``maps`` as returned by an adapter's ``heatmaps`` (cells may share ids)."""
    plt = _figure()
    cols = min(len(maps), 4)
    rows = (len(maps) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 3.0 * rows + 1.1), squeeze=False)
    grids = []
    for _, shape, cells in maps:
        grid = np.full(shape, np.nan)
        for fid, r, c in cells:
            grid[r, c] = means[fid] if counts[fid] > 0 else np.nan
        grids.append(grid)
    finite = [np.nanmax(np.abs(g)) for g in grids if np.isfinite(g).any()]
    limit = max(finite) if finite else 1.0
    image = None
    for ax, (name, _, cells), grid in zip(axes.flat, maps, grids):
        image = ax.imshow(grid, cmap="RdBu_r", vmin=-limit, vmax=limit)
        ax.set_title(name, fontsize=10)
        ax.set_xticks([])
        ax.set_yticks([])
        for fid, r, c in cells:
            if counts[fid] > 0:
                ax.text(c, r, f"{means[fid]:.2f}", ha="center", va="center", fontsize=6)
    for ax in list(axes.flat)[len(maps):]:
        ax.axis("off")
    if image is not None:
        fig.colorbar(image, ax=axes.ravel().tolist(), orientation="horizontal", fraction=0.05, pad=0.04,
                     label="mean value (blank: light square, or never seen)")
    fig.suptitle(title)
    return save_figure(fig, path)


def write_plots(folder: Path, report: dict, model: BayesModel, adapter) -> list[Path]:
    ho = report["held_out"]
    label = f"{model.kind} ({model.id_set})"
    out = []
    if ho:
        out.append(plot_topk([(label, ho["topk"])], ho["random_topk"], folder / "topk.png",
                             f"Top-k accuracy, held out ({ho['positions']:,} positions)"))
        out.append(plot_curve([(label, report["curve"])], folder / "training_size.png",
                              "Held-out accuracy against training-set size"))
        out.append(plot_per_ply([(label, ho["per_ply"])], folder / "per_ply.png", "Top-1 accuracy by ply"))
        out.append(plot_per_type([(label, ho["per_move_type"])], folder / "per_move_type.png",
                                 "Top-1 accuracy by the expert's move type (share of positions)"))
    maps = (adapter.heatmaps(model.id_set) if model.kind == "boardval"
            else adapter.key_heatmaps(model.id_set) if hasattr(adapter, "key_heatmaps") else [])
    if maps:
        what = "piece-on-square means" if model.kind == "boardval" else "mean urgency"
        out.append(plot_heatmaps(maps, model.means(), model.count, folder / "heatmaps.png",
                                 f"Learned {what} ({model.kind}, {model.id_set})"))
    return out
