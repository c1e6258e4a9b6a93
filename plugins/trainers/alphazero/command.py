"""``plyground alphazero anneal|pack|unpack``: the AlphaZero tools that are not a player or a trainer."""
from __future__ import annotations

from pathlib import Path

import click


def register(cli) -> None:
    @cli.group("alphazero")
    def alphazero():
        """AlphaZero tools for a training run (train with `plyground train alphazero`)."""

    @alphazero.command("anneal")
    @click.option("--run", "run", required=True, type=click.Path(path_type=Path),
                  help="The run directory of `plyground train alphazero`.")
    @click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path),
                  help="The model file to write (rerun the same command to resume an interrupted anneal).")
    @click.option("--from", "start", type=click.Path(dir_okay=False, path_type=Path), default=None,
                  help="The network to start from (default: the run's newest checkpoint).")
    @click.option("--iterations", default=None,
                  help="Self-play iterations to train on, e.g. 14-23 (default: the newest 10).")
    @click.option("--lr", type=click.FloatRange(min=0.0, min_open=True), default=None,
                  help="Learning rate (default: the run's divided by 10).")
    @click.option("--epochs", type=click.IntRange(1, 1000), default=2, show_default=True,
                  help="Passes over the examples.")
    @click.option("--held-out", "held_out", type=click.IntRange(1), default=None,
                  help="An iteration not trained on, to measure the network on before and after.")
    def anneal_command(run, out, start, iterations, lr, epochs, held_out):
        """Train a run's network further at a lower learning rate on its self-play examples.

        The learning-rate drop AlphaZero's schedule ends with: no new games, a few minutes; the result is
        a model file for alphazero:model=FILE.
        """
        from .anneal import anneal
        anneal(run, out, start=start, iterations=iterations, lr=lr, epochs=epochs, held_out=held_out,
               log=lambda line: click.echo(line, err=True))

    @alphazero.command("pack")
    @click.option("--run", "run", required=True, type=click.Path(path_type=Path),
                  help="The run directory of `plyground train alphazero`.")
    @click.option("--to", "out", required=True, type=click.Path(path_type=Path),
                  help="The folder to write the pack to (new, empty, or an earlier pack's).")
    @click.option("--no-replay", is_flag=True,
                  help="Leave the self-play examples out (the small pack a repository keeps).")
    def pack_command(run, out, no_replay):
        """Pack a run to go on elsewhere: at most 7 files, 24 MiB (docs/alphazero.md, "Runs in chunks").

        What the run needs to go on travels: its state, config and curves, the best network and the
        checkpoints the next phase starts from, the current iteration's games and the replay window.
        """
        from .travel import pack
        pack(run, out, replay=not no_replay, log=lambda line: click.echo(line, err=True))

    @alphazero.command("unpack")
    @click.option("--from", "source", required=True, type=click.Path(path_type=Path),
                  help="The folder `plyground alphazero pack --to` wrote.")
    @click.option("--run", "run", required=True, type=click.Path(path_type=Path),
                  help="The run directory to unpack into (new, empty, or the same run, behind the pack).")
    def unpack_command(source, run):
        """Unpack a run's pack, then `plyground train alphazero --run RUN` goes on with it."""
        from .travel import unpack
        manifest = unpack(source, run, log=lambda line: click.echo(line, err=True))
        click.echo(f"go on: plyground train {manifest.get('trainer', 'alphazero')} --run {run}")
