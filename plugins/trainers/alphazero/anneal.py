"""Annealing a run's network: more passes over its self-play examples at a lower learning rate.

AlphaZero's schedule ends with learning-rate drops.  A run at a constant rate
(the documented checkers run: Adam at 0.001) leaves a network that still
jumps with every batch; ``plyground alphazero anneal`` trains the newest
network of a run on the examples of its last iterations at a tenth of the
rate -- no new self-play, a few minutes -- and writes the result as a model
file.  On the checkers run it lowered the value error on games the network
never saw and raised its score against MCTS-10000 (docs/alphazero.md).

The output file is written after every epoch (atomically, with the
optimiser state and the epochs done), so an interrupted anneal resumes where
it stopped when the same command is run again.
"""
from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from plyground.errors import ModelFileError, UsageError
from plyground.options import settings_from
from plyground.protocols import Game
from plyground.registry import get_registry
from plyground.players.alphazero.compute import compute_threads
from plyground.players.alphazero.networks import load_model, save_model

from .examples import Examples
from .learner import Learner, accuracy
from .rundir import RunDirectory
from .settings import AlphaZeroSettings

#: Iterations annealed over unless told: the newest ones (more than the run's replay window, fewer
#: than all: the oldest games were played by much weaker networks).
DEFAULT_ITERATIONS = 10
#: The learning rate is the run's divided by this unless told.
DEFAULT_DROP = 10.0
#: The largest --lr taken: an SGD or Adam step beyond it sends a network's weights to NaN or infinity.
MAX_LR = 1.0
_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+))?\s*$")


@dataclass(frozen=True)
class AnnealPlan:
    """What an anneal does; stored in its output file, so a rerun knows whether it continues the same one."""

    start: str                  # the model file it starts from
    first: int                  # the iterations whose self-play examples it trains on
    last: int
    lr: float
    epochs: int
    held_out: int | None        # an iteration measured before and after, never trained on


def parse_iterations(text: str) -> tuple[int, int]:
    """'14-23' -> (14, 23); '23' -> (23, 23); UsageError otherwise."""
    match = _RANGE.match(str(text))
    if not match:
        raise UsageError(f"--iterations {text!r} is not valid: give a range of self-play iterations, e.g. 14-23")
    first = int(match.group(1))
    last = int(match.group(2) or first)
    if first < 1 or last < first:
        raise UsageError(f"--iterations {text!r} is not valid: iterations count from 1, first <= last (e.g. 14-23)")
    return first, last


def run_game(run: Path) -> tuple[RunDirectory, dict, Game]:
    """The run directory at ``run``, its state and its game; UsageError when it is not an AlphaZero run."""
    run = Path(run).expanduser()
    probe = RunDirectory(run, None)
    state = probe.read_state() if run.is_dir() else None
    if state is None:
        raise UsageError(f"{run} is not an AlphaZero run directory (no state.json): give the --run of "
                         f"`plyground train alphazero`")
    game = get_registry().make_game(state["game"])
    return RunDirectory(run, game), state, game


def start_path(rundir: RunDirectory, start: Path | None) -> Path:
    """The model file to start from: ``start``, or the run's newest checkpoint."""
    if start is None:
        start = rundir.newest_checkpoint()
        if start is None:
            raise UsageError(f"run {rundir.root} has no checkpoint to start from: give --from FILE")
    start = Path(start).expanduser()
    if not start.is_file():
        raise ModelFileError(f"--from {start}: no such model file")
    return start


def make_plan(rundir: RunDirectory, state: dict, start: Path, start_iteration: int | None, *,
              iterations: str | None, lr: float | None, epochs: int, held_out: int | None) -> AnnealPlan:
    """The plan the options give, with the defaults filled in from the run; UsageError for what it lacks.
    ``start_iteration``: the run iteration that trained the start network (its metadata), if it says."""
    have = rundir.replay_iterations()
    if not have:
        raise UsageError(f"run {rundir.root} has no self-play examples to anneal on (replay/ is empty)")
    usable = [k for k in have if k != held_out]
    if iterations is None:
        first, last = (usable[-DEFAULT_ITERATIONS:] or usable)[0], usable[-1]
    else:
        first, last = parse_iterations(iterations)
        # Only up to the newest iteration on disk is looked at: 1-99999999999999999 must not count to the end.
        on_disk = set(have)
        missing = next((k for k in range(first, min(last, have[-1]) + 1) if k not in on_disk),
                       max(first, have[-1] + 1) if last > have[-1] else None)
        if missing is not None:
            raise UsageError(f"--iterations {iterations}: run {rundir.root} has no self-play examples of "
                             f"iteration {missing} (it has {have[0]}-{have[-1]})")
    if held_out is not None:
        if held_out not in have:
            raise UsageError(f"--held-out {held_out}: run {rundir.root} has no self-play examples of that "
                             f"iteration (it has {have[0]}-{have[-1]})")
        if first <= held_out <= last:
            raise UsageError(f"--held-out {held_out} is inside --iterations {first}-{last}: a held-out iteration "
                             f"must not be trained on")
        if start_iteration is not None and held_out <= start_iteration:
            raise UsageError(f"--held-out {held_out}: the start network ({start.name}, iteration {start_iteration}) "
                             f"was trained on the examples of iterations up to {start_iteration}; hold out a newer "
                             f"one or start from an older checkpoint (--from .../checkpoints/iter-"
                             f"{held_out - 1:04d}.npz)")
    if lr is None:
        lr = float(state.get("fixed", {}).get("lr", 0.001)) / DEFAULT_DROP
    if not (math.isfinite(lr) and 0 < lr <= MAX_LR):
        raise UsageError(f"--lr {lr!r} is not a usable learning rate: give a number above 0 and at most {MAX_LR:g} "
                         f"(annealing lowers the run's: it used {state.get('fixed', {}).get('lr', 'its default')})")
    return AnnealPlan(str(start.resolve()), first, last, float(lr), int(epochs), held_out)


def anneal(run: Path, out: Path, *, start: Path | None = None, iterations: str | None = None,
           lr: float | None = None, epochs: int = 2, held_out: int | None = None,
           log: Callable[[str], None] = print) -> dict:
    """Anneal the network of ``run`` (module docstring) into the model file ``out``; returns the plan, the
    epochs' losses and, with ``held_out``, the accuracy on that iteration before and after."""
    rundir, state, game = run_game(run)
    start = start_path(rundir, start)
    start_network = load_model(start, game)
    iteration = start_network.metadata.get("iteration")
    iteration = int(iteration) if isinstance(iteration, int) else None
    plan = make_plan(rundir, state, start, iteration, iterations=iterations, lr=lr, epochs=epochs,
                     held_out=held_out)
    out = Path(out).expanduser()
    network, losses = _resume_or_start(out, plan, start_network, game)
    if len(losses) >= plan.epochs:
        log(f"{out} is this anneal, finished ({plan.epochs} epochs): nothing to do")
        return {"plan": asdict(plan), "losses": losses}
    shape = tuple(game.observation_shape)
    data = Examples.concatenate([e for e, _ in rundir.iter_chunks(range(plan.first, plan.last + 1))], shape)
    test = (Examples.concatenate([e for e, _ in rundir.iter_chunks(range(held_out, held_out + 1))], shape)
            if held_out is not None else None)
    log(f"annealing {Path(plan.start).name} on {len(data):,} self-play examples of iterations {plan.first}-"
        f"{plan.last}, learning rate {plan.lr:g}, {plan.epochs} epoch{'s' if plan.epochs != 1 else ''}"
        + (f" (from epoch {len(losses) + 1})" if losses else ""))
    report: dict = {"plan": asdict(plan), "examples": len(data)}
    if test is not None:      # before any training: the start network (the one trained, unless resumed)
        report["before"] = _measure(start_network, test, game, log, "before")
    # batch size, augmentation and network family as the run trains (the trainer's defaults where its
    # config.toml does not say)
    learner = Learner(game, settings_from(AlphaZeroSettings, rundir.read_config(), epochs=plan.epochs), log)

    def save(epoch_losses: list[dict]) -> None:
        save_model(network, out, game, learner.family, iteration=iteration, role="annealed",
                   annealed=asdict(plan), anneal_losses=epoch_losses)

    with compute_threads(1):
        learner.fit(network, data, losses, plan.epochs, seed_parts=(plan.first, plan.last), save=save,
                    prefix="anneal:")
    report["losses"] = losses
    if test is not None:
        report["after"] = _measure(network, test, game, log, "after")
    log(f"wrote {out}")
    return report


def _resume_or_start(out: Path, plan: AnnealPlan, start_network, game: Game):
    """The network to train and its epochs' losses so far: the partly annealed ``out`` of this same plan, or
    ``start_network`` at the plan's learning rate.  An ``out`` of another plan is not overwritten."""
    if out.exists():
        done = load_model(out, game)
        if done.metadata.get("annealed") == asdict(plan):
            return done, list(done.metadata.get("anneal_losses", []))
        raise UsageError(f"{out} exists and is not a partial anneal with these settings: remove it or choose "
                         f"another --out")
    network = start_network
    if not hasattr(network, "set_learning_rate"):
        raise UsageError(f"the network in {plan.start} cannot change its learning rate (its plugin has no "
                         f"set_learning_rate): it cannot be annealed")
    network.set_learning_rate(plan.lr)
    return network, []


def _measure(network, test: Examples, game: Game, log, when: str) -> dict:
    m = accuracy(network, test, game.num_actions)
    log(f"held out ({len(test):,} examples) {when}: policy cross-entropy {m['policy_ce']:.4f}, top-1 "
        f"{100 * m['top1']:.1f}%, value MSE {m['value_mse']:.4f}")
    return m
