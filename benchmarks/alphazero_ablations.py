"""Ablations of AlphaZero self-play at (about) equal wall time: which learning-efficiency options pay on 2 cores.

    python benchmarks/alphazero_ablations.py --out runs/ablations                 # every variant
    python benchmarks/alphazero_ablations.py --out runs/ablations --only no-pcr,gated
    python benchmarks/alphazero_ablations.py --out runs/ablations --iterations 3 --games 12
    python benchmarks/alphazero_ablations.py --out runs/size-32x3 --only base --start runs/sizes/resnet-32x3.npz \
        --change network=resnet:channels=32,blocks=3          # another network size (alphazero_network_sizes.py --save)

Every variant starts from the bootstrap network (checkers-bootstrap.npz, or ``--start``) and trains with
``configs/alphazero-checkers-selfplay.toml`` plus its own changes, for
``--iterations`` iterations without the ladder.  The changes keep a
variant's self-play cost per iteration close to the base config's (fewer
games where each costs more), so equal iterations are about equal wall time;
the training time each variant really took is measured and reported.
``--change key=value`` (repeatable) changes every variant, e.g. the network
size together with a ``--start`` network of that size.  Then
one round-robin ``plyground tournament`` (2-ply openings, both colours) rates
every variant's final network, the starting network (``start``) and the
reference ``mcts:simulations=3000``, anchored on ``start``.  Reported per
variant: training time, Elo gain over the start with its 95% interval, and
Elo per hour of training (the gain over the hours).

Everything resumes: rerunning the same command skips finished trainings and
finished tournament games.
"""
from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path

from plyground.files.storage import read_json_lines

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "configs" / "alphazero-checkers-selfplay.toml"
START = ROOT / "players" / "alphazero" / "models" / "checkers-bootstrap.npz"

# Base: playout cap randomization (160 / 32 simulations, a quarter full), value targets mixed 0.25 with
# the search value, continuous training, a 4-iteration replay window, the 64x4 residual network.
# Average search per move: 0.25 * 160 + 0.75 * 32 = 64 simulations.
VARIANTS: dict[str, dict[str, object]] = {
    "base": {},
    # every move a full search of 160 simulations, learned from: 2.5x the cost per game, so 2/5 the games
    "no-pcr": {"fast_simulations": "none", "selfplay_games": 80},
    # value target: the game's result alone
    "result-only-value": {"search_value_weight": 0.0},
    # Gumbel root search at 16 simulations, every move learned from (completed-Q targets): 4x the games
    "gumbel-16": {"search": "gumbel", "simulations": 16, "fast_simulations": "none", "selfplay_games": 800},
    # AlphaGo Zero's gate: 20 comparison games (200 simulations), 55% to replace the best network
    "gated": {"comparison_games": 20},
    # train on the newest iteration's games only
    "window-1": {"replay_window": 1},
}
REFERENCE = "mcts:simulations=3000"


def run(argv: list[str]) -> None:
    print(f"\n$ {shlex.join(argv)}", flush=True)
    if subprocess.run(argv, cwd=ROOT).returncode != 0:
        raise SystemExit("ablations: the command above failed; fix it and rerun (finished work is kept)")


def train(name: str, changes: dict[str, object], out: Path, iterations: int, start: Path) -> Path:
    run_dir = out / name
    argv = [sys.executable, "-m", "plyground", "train", "alphazero", "--game", "checkers", "--run", str(run_dir),
            "--config", str(CONFIG), "--set", f"iterations={iterations}", "--set", "ladder=none",
            "--set", f"initial_model={start}"]
    for key, value in changes.items():
        argv += ["--set", f"{key}={value}"]
    run(argv)
    return run_dir


def training_hours(run_dir: Path, iterations: int) -> float:
    rows = read_json_lines(run_dir / "metrics.jsonl")
    return sum(float(r.get("seconds") or 0.0) for r in rows if r["iteration"] <= iterations) / 3600.0


def network_after(run_dir: Path, iterations: int, gated: bool) -> Path:
    """The network a variant ends with: the gate's best, or (continuous training) the newest."""
    return run_dir / "best.npz" if gated else run_dir / "checkpoints" / f"iter-{iterations:04d}.npz"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("runs/ablations"))
    parser.add_argument("--iterations", type=int, default=3, help="training iterations per variant (default 3)")
    parser.add_argument("--games", type=int, default=12, help="tournament games per pairing (default 12)")
    parser.add_argument("--only", default="", help=f"comma-separated variants (default: all of {', '.join(VARIANTS)})")
    parser.add_argument("--workers", type=int, default=None, help="tournament worker processes (default: the cores)")
    parser.add_argument("--base-run", type=Path, default=None,
                        help="a finished run of the config itself (the documented run): its first --iterations "
                             "iterations stand for 'base' instead of training it again")
    parser.add_argument("--start", type=Path, default=START, help="the network every variant starts from "
                        "(default: the bootstrap network)")
    parser.add_argument("--change", action="append", default=[], metavar="KEY=VALUE",
                        help="a trainer option changed in every variant (repeatable)")
    args = parser.parse_args()
    common = dict(change.split("=", 1) for change in args.change if "=" in change)
    if len(common) != len(args.change):
        parser.error("--change takes KEY=VALUE, e.g. --change network=resnet:channels=32,blocks=3")
    start = args.start.resolve()
    if args.base_run and (start != START.resolve() or common):
        parser.error("--base-run stands for the config from the bootstrap network: it cannot go with --start "
                     "or --change")
    names = [n.strip() for n in args.only.split(",") if n.strip()] or list(VARIANTS)
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        parser.error(f"unknown variant {unknown[0]!r}; variants: {', '.join(VARIANTS)}")

    out = args.out.resolve()
    runs = {name: args.base_run.resolve() if name == "base" and args.base_run else
            train(name, {**common, **VARIANTS[name]}, out, args.iterations, start) for name in names}
    hours = {name: training_hours(run_dir, args.iterations) for name, run_dir in runs.items()}
    tournament = out / "tournament"
    argv = [sys.executable, "-m", "plyground", "tournament", "--game", "checkers", "--openings", "2-ply",
            "-n", str(args.games), "--anchor", "start", "--relative-to", "anchor", "--out", str(tournament),
            "-p", f"start=alphazero:model={start},simulations=200", "-p", f"reference={REFERENCE}"]
    for name, run_dir in runs.items():
        final = network_after(run_dir, args.iterations, bool(VARIANTS[name].get("comparison_games")))
        argv += ["-p", f"{name}=alphazero:model={final},simulations=200"]
    if args.workers:
        argv += ["--workers", str(args.workers)]
    run(argv)
    ratings = {p["name"]: p for p in json.loads((tournament / "summary.json").read_text())["ratings"]["players"]}
    print(f"\nAblations: {args.iterations} iterations each from {start.name}"
          + (f" with {', '.join(args.change)}" if args.change else "") + "; Elo from one round-robin "
          f"({args.games} games per pairing, 2-ply openings), start = 0, 95% intervals of the difference")
    print("| variant | changes | training time | Elo gain | Elo per hour |")
    print("|---|---|---|---|---|")
    for name in names:
        r = ratings[name]
        changes = ", ".join(f"{k}={v}" for k, v in VARIANTS[name].items()) or "(the config as it is)"
        per_hour = r["elo"] / hours[name] if hours[name] else float("nan")
        print(f"| {name} | {changes} | {hours[name] * 60:.1f} min | {r['elo']:+.0f} ({r['lower']:+.0f} to "
              f"{r['upper']:+.0f}) | {per_hour:+.0f} |")
    ref = ratings["reference"]
    print(f"| (reference) | {REFERENCE} | | {ref['elo']:+.0f} ({ref['lower']:+.0f} to {ref['upper']:+.0f}) | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
