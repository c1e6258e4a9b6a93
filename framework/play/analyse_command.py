"""``plyground analyse FILE``: a game report -- every move of a recorded game judged by an engine, the
annotated game written back, an evaluation graph (the judging itself is :mod:`plyground.play.report`)."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from ..util.durations import format_duration
from ..errors import UsageError
from ..options import Spec
from ..protocols import Budget
from ..files.atomic import atomic_write_text
from ..registry import get_registry
from .report import ANALYSING, BLUNDER, INACCURACY, MISTAKE, analyse, check_new_file, default_out, open_game
from .resume import check_resumed_game, game_of_record_file, locate_saved
from ..files.storage import write_bytes

#: Seconds a position when neither --seconds nor the engine's own limits say.
DEFAULT_SECONDS = 0.1
#: Engine options that limit a search by themselves: given one, the engine's own limit rules.
_OWN_LIMITS = ("depth", "nodes", "seconds", "simulations", "movetime")


@click.command("analyse")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--game", "game_spec", default=None,
              help="Game spec (default: the file's own game, told by its suffix: .pdn checkers, .pgn chess).")
@click.option("--game-number", type=click.IntRange(min=1), default=None,
              help="Which game of the file (1 is the first; default: the first).")
@click.option("--engine", "engine_spec", default=None,
              help="The player that judges the moves (default: the game's strongest judge installed here, "
                   "e.g. Stockfish for chess, else alphabeta, the strongest bundled engine).")
@click.option("--seconds", type=click.FloatRange(min=0), default=None,
              help=f"Search time a position (default {DEFAULT_SECONDS}, or none when the engine spec sets its own "
                   f"limit, e.g. alphabeta:depth=6; 0: no time limit).")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="The annotated game (default: FILE with .analysed before the suffix, beside it).")
@click.option("--graph", type=click.Path(path_type=Path), default=None,
              help="The evaluation graph, PNG (default: beside --out, with the suffix .png).")
@click.option("--no-graph", is_flag=True, help="Draw no graph.")
@click.option("--force", is_flag=True, help="Replace --out and --graph when they exist.")
@click.option("--quiet", is_flag=True, help="No progress lines.")
def analyse_command(file, game_spec, game_number, engine_spec, seconds, out, graph, no_graph, force, quiet):
    """Judge every move of a recorded game (PDN, PGN, JSON lines) with an engine: inaccuracies (?!),
    mistakes (?) and blunders (??), each side's accuracy, the game written back annotated and an
    evaluation graph."""
    registry = get_registry()
    path = locate_saved(file, ANALYSING)                      # a missing file: one line, before anything else
    if game_spec is None:
        game_spec = game_of_record_file(registry, path)
    game = registry.make_game(game_spec)
    check_resumed_game(registry, path, game, "FILE", "analyse it")
    if graph is not None and no_graph:
        raise UsageError(f"--graph {graph} and --no-graph contradict each other; give one of them")
    review = open_game(game, path, game_number)                # not a game file, no such game: one line
    being_analysed = "the game file being analysed"
    out = check_new_file(out if out is not None else default_out(path, game), "--out", force,
                         protect={path: being_analysed})
    if not no_graph:
        graph = check_new_file(graph if graph is not None else out.with_suffix(".png"), "--graph", force,
                               protect={path: being_analysed, out: "the annotated game's file (--out)"})
        if graph.suffix.lower() != ".png":
            raise UsageError(f"--graph {graph}: the graph is a PNG picture; give a name ending in .png")
    passed_over: list[str] = []
    if engine_spec is None:
        engine_spec, passed_over = registry.default_judge(game)
    spec = Spec.parse(engine_spec)
    engine = registry.make_player(spec, game)
    try:
        if engine.needs_renderer:
            raise UsageError(f"--engine {engine_spec} is a person, not an engine; give a bot such as alphabeta")
        if seconds is None:
            seconds = None if any(name in spec.options for name in _OWN_LIMITS) else DEFAULT_SECONDS
        budget = Budget(seconds=seconds or None)
        engine.warm_up()
        judge = judge_name(spec, engine)
        report = analyse(review, engine, budget, judge, progress=None if quiet else _progress_printer())
    finally:
        engine.close()
    atomic_write_text(out, report.annotated_text())
    if not no_graph:
        write_bytes(graph, report.graph_png())
    which = f", game {review.number} of {review.count}" if review.count > 1 else ""
    limit = f"{seconds:g} s a position" if seconds else "its own limit a position"
    click.echo(f"{path}{which}: {game.name}, {review.plies} plies judged by {judge} ({limit}) in "
               f"{format_duration(report.seconds)}")
    for passed in passed_over:
        click.echo(f"not judged by {passed}")
    for line in report.summary_lines():
        click.echo(line)
    click.echo(f"(lost expected score: inaccuracy {INACCURACY:.0%}, mistake {MISTAKE:.0%}, blunder {BLUNDER:.0%})")
    click.echo(f"annotated game: {out}")
    if not no_graph:
        click.echo(f"graph: {graph}")


def judge_name(spec: Spec, engine) -> str:
    """The judge as the report names it: its spec, and the name the engine gives itself when that says more
    (``stockfish (Stockfish 16)``)."""
    own = engine.engine_name()
    return f"{spec} ({own})" if own and own.lower() != str(spec).lower() else str(spec)


def _progress_printer():
    """Progress on stderr: one line rewritten on a terminal, else a line every tenth of the game."""
    tty = sys.stderr.isatty()

    def show(done: int, total: int, elapsed: float) -> None:
        step = max(1, total // 10)
        if not tty and done % step and done != total:
            return
        eta = elapsed / done * (total - done)
        line = f"analysing position {done}/{total}, ETA {format_duration(eta)}"
        if tty:
            click.echo(f"\r{line}   ", err=True, nl=done == total)
        else:
            click.echo(line, err=True)
    return show
