"""The curve of an AlphaZero run trained in chunks, against the GPU minutes it took (issue #55).

    python benchmarks/alphazero_gpu_curve.py runs/gpu/connect-four --out docs/alphazero/gpu-connect-four-curve

Writes OUT.jsonl -- a row per chunk (``"kind": "chunk"``: where it ran, its GPU, minutes, self-play games,
the state it started and ended in) and a row per rated network (``"kind": "network"``: iteration, GPU and
CPU minutes spent when it was trained, its mistakes against perfect play from ``mistakes.jsonl`` and its
ladder scores from ``ladder.jsonl``) -- and OUT.png: mistakes (Connect Four) and ladder score (checkers)
against GPU minutes, the chunks' ends marked.  Reads the run directory only.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from plyground.plugins.trainers.alphazero.sessions import minutes_by_iteration
from plyground.files.storage import read_json_lines


def rows_of(run: Path) -> tuple[list[dict], list[dict]]:
    def read(name: str) -> list[dict]:
        path = run / name
        return read_json_lines(path) if path.exists() else []
    sessions, metrics = read("sessions.jsonl"), read("metrics.jsonl")
    minutes = minutes_by_iteration(sessions, metrics)
    chunks = [{"kind": "chunk", "started": s.get("started"), "minutes": round(float(s.get("seconds", 0)) / 60, 4),
               "device": s.get("device"), "gpu": s.get("gpu"), "cpu": s.get("cpu"), "cores": s.get("cores"),
               "selfplay_games": s.get("selfplay_games"), "from": s.get("from"), "to": s.get("to"),
               "outcome": s.get("outcome")} for s in sessions]
    networks: dict[int, dict] = {}
    for row in read("mistakes.jsonl"):
        k = row["iteration"]
        classes = dict(row.get("classes") or {})
        overall = classes.pop("all", None)           # the probe's own total, beside the classes
        positions = overall["positions"] if overall else sum(c["positions"] for c in classes.values())
        wrong = overall["mistakes"] if overall else sum(c["mistakes"] for c in classes.values())
        networks.setdefault(k, {})["mistakes"] = {
            "set": row.get("set"), "simulations": row.get("simulations"), "positions": positions,
            "percent": round(100.0 * wrong / positions, 2) if positions else None,
            "classes": {name: c["percent"] for name, c in classes.items()}}
    for row in read("ladder.jsonl"):
        networks.setdefault(row["iteration"], {})["ladder"] = {
            "elo": row.get("elo"), "scores": {spec: s.get("score") for spec, s in (row.get("scores") or {}).items()}}
    out = [{"kind": "network", "iteration": k, **minutes.get(k, {"gpu_minutes": None, "cpu_minutes": None}), **v}
           for k, v in sorted(networks.items())]
    return chunks, out


def plot(chunks: list[dict], networks: list[dict], path: Path, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = [key for key in ("mistakes", "ladder") if any(key in n for n in networks)]
    fig, axes = plt.subplots(1, max(1, len(panels)), figsize=(6.5 * max(1, len(panels)), 4), squeeze=False)
    on_gpu = any(chunk.get("gpu") for chunk in chunks)     # a run on CPUs alone: against CPU minutes
    axis = "gpu_minutes" if on_gpu else "cpu_minutes"
    total, ends = 0.0, []
    for chunk in chunks:
        if bool(chunk.get("gpu")) == on_gpu:
            total += chunk["minutes"]
            ends.append(total)
    for ax, key in zip(axes[0], panels or ["none"]):
        rated = [n for n in networks if key in n and n.get(axis) is not None]
        xs = [n[axis] for n in rated]
        if key == "mistakes":
            ax.plot(xs, [n["mistakes"]["percent"] for n in rated], marker="o")
            ax.set_ylabel(f"mistakes, % of {rated[0]['mistakes']['positions']} positions" if rated else "mistakes %")
        elif key == "ladder":
            specs = sorted({spec for n in rated for spec in n["ladder"]["scores"]})
            for spec in specs:
                ax.plot(xs, [100 * (n["ladder"]["scores"].get(spec) or 0) for n in rated], marker="o", label=spec)
            ax.set_ylabel("ladder score, %")
            ax.legend(fontsize=8)
        for end in ends:
            ax.axvline(end, color="grey", linestyle=":", linewidth=0.8)
        ax.set_xlabel(f"{'GPU' if on_gpu else 'CPU'} minutes (dotted: a chunk's end)")
        ax.set_title(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="the run directory")
    parser.add_argument("--out", type=Path, required=True, help="OUT.jsonl and OUT.png are written")
    parser.add_argument("--title", default=None, help="the plot's title (default: the run folder's name)")
    args = parser.parse_args()
    if not (args.run / "state.json").is_file():
        sys.exit(f"alphazero_gpu_curve: {args.run} holds no AlphaZero run (no state.json)")
    chunks, networks = rows_of(args.run)
    jsonl = args.out.with_suffix(".jsonl")
    jsonl.parent.mkdir(parents=True, exist_ok=True)
    jsonl.write_text("".join(json.dumps(row) + "\n" for row in chunks + networks))
    plot(chunks, networks, args.out.with_suffix(".png"), args.title or args.run.name)
    gpu = sum(c["minutes"] for c in chunks if c.get("gpu"))
    print(f"{len(chunks)} chunks ({gpu:.1f} GPU minutes), {len(networks)} rated networks: {jsonl}, "
          f"{args.out.with_suffix('.png')}")


if __name__ == "__main__":
    main()
