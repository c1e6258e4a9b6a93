"""The ``plyground tournament`` command and the progress lines it shares with ``plyground match``."""
from __future__ import annotations

from pathlib import Path

import click

from ..util import notices
from ..play.clock import TimeControl
from ..play.command_options import SECONDS, check_time_control, move_limit_option, time_control_option
from ..util.durations import format_duration
from ..errors import UsageError
from ..options import MAX_SIMULATIONS
from ..play.ratings import INTERVAL_METHODS, INTERVAL_REFERENCES
from ..registry import get_registry
from ..play.stats import SPRT_FORM, Sprt
from ..util.wording import counted
from .config import FORMATS, MAX_GAMES, TournamentConfig, parse_entrants
from .openings import choose_openings
from .report import PLOT_FILE, crosstable, format_crosstable, format_table, plot_ratings, rate, summary, write_summary
from ..engines.workers import BACKENDS, check_backend
from ..util.machine import available_cores
from .runner import Progress, TournamentRun, games_file_path, run_tournament


def progress_line(p: Progress) -> str:
    """``[12/200] a vs b: 1-0 (three in a row, 7 plies)``, the test's LLR with ``--sprt``, and the ETA (with
    ``--sprt``: to the most games)."""
    r = p.result.record
    test = f"  {p.sprt.progress_text()}" if p.sprt is not None else ""
    return (f"[{p.done}/{p.total}] {r.players[0]} vs {r.players[1]}: {r.result_text} "
            f"({r.reason}, {len(r.moves)} plies){test}  ETA {format_duration(p.eta)}")


#: The most games of a --sprt tournament when -n is not given: enough for a test of a few tens of Elo.
SPRT_GAMES = 1000


def time_control_note(control: TimeControl) -> str:
    """How long games under ``control`` can take, said before the first one (a 60+1 game can run for
    minutes, and progress comes as each game ends)."""
    period = f"every {control.moves} moves" if control.moves else "the game"
    increment = f" and {control.increment:g} s more after each move" if control.increment else ""
    return (f"time control {control}: each side has {control.seconds:g} s for {period}{increment}, so one game can "
            f"last {format_duration(2 * control.seconds)} or more; a line follows as each game ends")


def default_out_dir(config: TournamentConfig) -> Path:
    """Same command, same directory: a rerun without --out resumes too."""
    game = config.game.split(":")[0]
    return Path("runs") / f"tournament-{game}-{config.fingerprint()[:10]}"


@click.command("tournament")
@click.argument("players", nargs=-1)
@click.option("--game", "game_spec", required=True, help="Game spec, e.g. checkers or tictactoe.")
@click.option("-p", "--player", "player_options", multiple=True, metavar="[NAME=]SPEC",
              help="An entrant, optionally named: mcts100=mcts:simulations=100 (repeatable; "
                   "specs may also be given as arguments).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="round-robin", show_default=True,
              help="round-robin: everyone plays everyone; gauntlet: the first player plays each of the others.")
@click.option("-n", "--games", type=click.IntRange(min=1, max=MAX_GAMES), default=None,
              help=f"Games per pairing (default: 10, or each opening twice); with --sprt the most games the test "
                   f"may take (default: {SPRT_GAMES}).")
@click.option("--openings", default="none", show_default=True, metavar="none|N-ply|FILE|NAME",
              help="Start positions: none, every N-ply opening (e.g. 3-ply: the checkers ballots), "
                   "a file of games (PDN for checkers) or of positions, one per line, or games the game ships "
                   "by name (checkers: acf, the ACF archive).")
@click.option("--opening-plies", type=click.IntRange(min=1), default=None,
              help="Use only the first N plies of each game in an openings file.")
@click.option("--simulations", type=click.IntRange(min=1, max=MAX_SIMULATIONS), default=None,
              help="Per-move simulation budget for every player (overrides their own options).")
@click.option("--seconds", type=SECONDS, default=None,
              help="Per-move time budget for every player (results then depend on machine load).")
@move_limit_option
@time_control_option
@click.option("--max-plies", type=click.IntRange(min=1), default=None, help="Adjudicate a draw after this many plies.")
@click.option("--seed", type=int, default=0, show_default=True, help="Tournament seed; every game's seed derives from it.")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Games played at once in worker processes (default: the cores available; with --backend ray, "
                   "the CPUs of the Ray cluster).")
@click.option("--backend", type=click.Choice(BACKENDS), default="local", show_default=True,
              help="Where the games are played: worker processes here, or Ray actors on this machine or a cluster "
                   "(pip install 'plyground[distributed]'; docs/distributed.md).  A player's files (eval=PATH) "
                   "must be at the same path on every machine.")
@click.option("--address", default=None, help="--backend ray: the address of a running Ray cluster (HOST:6379 or "
              "auto); none: ray.init() decides (RAY_ADDRESS, a cluster started here, else a new instance).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Results directory; rerunning the same command resumes it "
                   "(default: runs/tournament-GAME-FINGERPRINT).")
@click.option("--anchor", default=None, help="Player rated 0 (default: random if playing, else the first player).")
@click.option("--intervals", type=click.Choice(INTERVAL_METHODS), default="curvature", show_default=True,
              help="How the 95% rating intervals are computed.")
@click.option("--relative-to", type=click.Choice(INTERVAL_REFERENCES), default="pool", show_default=True,
              help="pool: intervals place each player among these players (compare players by them); "
                   "anchor: intervals of each player's difference to the anchor.")
@click.option("--prior-draws", type=click.FloatRange(min=0), default=1.0, show_default=True,
              help="Virtual draws added to every pairing that played (keeps perfect scores finite).")
@click.option("--sprt", "sprt_text", default=None, metavar=SPRT_FORM,
              help="Two players only: stop when a sequential probability ratio test decides whether the first "
                   "is at least elo1 stronger (H1) or at most elo0 (H0), logistic Elo, alpha and beta its error "
                   "rates (default 0.05), e.g. elo0=0,elo1=5,alpha=0.05,beta=0.05; -n is then the most games.")
@click.option("--quiet", is_flag=True, help="No progress lines.")
def tournament_command(players, game_spec, player_options, fmt, games, openings, opening_plies, simulations,
                       seconds, move_limit, time_control, max_plies, seed, workers, backend, address, out_dir, anchor,
                       intervals, relative_to, prior_draws, sprt_text, quiet):
    """Rate players by a round-robin or gauntlet; resumable, parallel, every game saved.

    \b
    plyground tournament --game tictactoe random mcts:simulations=100 mcts:simulations=1000
    plyground tournament --game checkers -p random -p m100=mcts:simulations=100 \\
        -p m1000=mcts:simulations=1000 --openings 3-ply -n 20 --out runs/ladder
    plyground tournament --game checkers new=alphabeta:eval=nnue old=alphabeta --openings 3-ply \\
        --seconds 0.1 --sprt elo0=0,elo1=20,alpha=0.05,beta=0.05 -n 2000
    """
    notices.set_quiet(quiet)
    check_time_control(time_control, seconds)
    check_backend(backend, address)
    entrants = parse_entrants(list(player_options) + list(players))
    if len(entrants) < 2:
        raise UsageError("a tournament needs at least two players: give specs as arguments or with --player")
    test = None if sprt_text is None else Sprt.parse(sprt_text)     # a bad test stops before the game is built
    game = get_registry().make_game(game_spec)
    chosen = choose_openings(game, openings, seed, opening_plies)
    default_games = SPRT_GAMES if test is not None else 2 * len(chosen) if chosen else 10
    config = TournamentConfig(game=game_spec, entrants=entrants, games_per_pairing=games or default_games,
                              format=fmt, openings=chosen, openings_source=_describe_openings(openings, opening_plies),
                              simulations=simulations, seconds=seconds, max_plies=max_plies, seed=seed,
                              move_limit=move_limit, time_control=None if time_control is None else str(time_control),
                              sprt=None if test is None else str(test))
    if anchor is not None:
        config.entrant(anchor)   # an unknown anchor stops the run before any game
    out_dir = out_dir or default_out_dir(config)
    workers = workers or (0 if backend == "ray" else available_cores())

    def started(run: TournamentRun, pending: int) -> None:
        if quiet:
            return
        used = "all the Ray cluster's" if not workers else max(1, min(workers, pending))
        if run.sprt is None:
            games_text = (f"{counted(config.total_games, 'game')} ({counted(len(config.pairings()), 'pairing')} x "
                          f"{config.games_per_pairing})")
        else:
            games_text = f"at most {counted(config.total_games, 'game')} (SPRT {config.sprt})"
        to_play = (f"{pending} to play on {used} worker(s)" if run.sprt is None or not run.sprt.decided
                   else f"the test has decided ({run.sprt.decision}), nothing to play")
        click.echo(f"{games_text} in {out_dir}: {run.resumed} stored, {to_play}", err=True)
        if time_control is not None and pending:
            click.echo(time_control_note(time_control), err=True)

    def progress(p: Progress) -> None:
        if not quiet:
            click.echo(progress_line(p), err=True)

    run = run_tournament(config, out_dir, workers=workers, backend=backend, address=address, on_game=progress,
                         on_start=started)
    if run.interrupted:
        click.echo(f"\nstopped; {counted(len(run.results), 'finished game')} stored in {out_dir}: "
                   f"rerun the same command to resume", err=True)
        raise click.exceptions.Exit(130)
    report(run, game, anchor=anchor, intervals=intervals, relative_to=relative_to, prior_draws=prior_draws)


def _describe_openings(source: str, plies: int | None) -> str:
    if plies is not None and source.strip().lower() != "none":
        return f"{source} (first {plies} plies)"
    return source


def report(run: TournamentRun, game, *, anchor: str | None, intervals: str = "curvature",
           relative_to: str = "pool", prior_draws: float = 1.0) -> None:
    """Print the ratings and crosstable; write summary.json and ratings.png beside the results."""
    config, results = run.config, run.results
    ratings = rate(config, results, anchor, method=intervals, relative_to=relative_to, prior_draws=prior_draws)
    unfinished = sum(not r.record.finished for r in results)
    click.echo(f"{config.game}: {len(results)} of {'at most ' if run.sprt is not None else ''}"
               f"{counted(config.total_games, 'game')}"
               + (f" ({unfinished} unfinished, not counted)" if unfinished else ""))
    if run.sprt is not None:
        click.echo(run.sprt.summary_lines(config.games_per_pairing, config.entrants[0].name))
    click.echo(format_table(ratings))
    click.echo("")
    click.echo(format_crosstable(ratings, crosstable(config, results)))
    if run.out_dir is not None:
        click.echo("")
        path = write_summary(run.out_dir, summary(config, results, ratings, run.sprt))
        click.echo(f"summary: {path}")
        title = f"{config.game}: {counted(len(results), 'game')}, seed {config.seed}"
        plot = plot_ratings(ratings, run.out_dir / PLOT_FILE, title)
        click.echo(f"plot: {plot}" if plot else "plot: skipped (pip install matplotlib)")
        click.echo(f"games: {games_file_path(game, run.out_dir)}")
