"""Training curves of an AlphaZero run with a teacher bootstrap, as one PNG.

    python benchmarks/alphazero_run_plots.py runs/checkers docs/alphazero/bundled-checkers-training.png

Left: the bootstrap's epoch losses (value MSE and policy cross-entropy, from
``DIR/bootstrap/summary.json``); right: each self-play iteration's epoch
losses and whether the gate accepted the network (``DIR/metrics.jsonl``).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path



def _gate_score(gate: dict) -> str:
    """The gate's score in words; null when none of its games finished."""
    score = gate.get("score", 100)
    return "no finished game" if score is None else f"{score:.0f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = json.loads((args.run / "bootstrap" / "summary.json").read_text())
    rows = [json.loads(line) for line in (args.run / "metrics.jsonl").read_text().splitlines() if line.strip()]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    epochs = range(1, len(summary["epoch_losses"]) + 1)
    for key, label in (("value_loss", "value (MSE)"), ("policy_loss", "policy (cross-entropy)")):
        left.plot(epochs, [e[key] for e in summary["epoch_losses"]], marker="o", label=label)
    left.set_title(f"bootstrap: {summary['positions']:,} positions labelled by\n{summary['teacher']}")
    left.set_xlabel("epoch")
    left.set_yscale("log")
    left.legend()
    x = 0
    for row in rows:
        losses = row["epoch_losses"]
        xs = [x + i + 1 for i in range(len(losses))]
        verdict = "accepted" if row["accepted"] else "rejected"
        right.plot(xs, [e["value_loss"] for e in losses], marker="o", color="C0")
        right.plot(xs, [e["policy_loss"] for e in losses], marker="s", color="C1")
        gate = row.get("gate") or {}
        right.annotate(f"iter {row['iteration']}: {verdict}\n({_gate_score(gate)} vs best)",
                       (xs[-1], losses[-1]["policy_loss"]), textcoords="offset points", xytext=(-60, 12))
        x = xs[-1]
    right.plot([], [], marker="o", color="C0", label="value (MSE)")
    right.plot([], [], marker="s", color="C1", label="policy (cross-entropy)")
    right.set_title("self-play iterations (training epochs)")
    right.set_xlabel("epoch")
    right.legend()
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
