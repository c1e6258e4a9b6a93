"""The ``plyground`` command.  Plugins add subcommands through ``register_commands``."""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import click

from . import __version__
from .util import notices
from . import plugin_manager as plugins
from .capabilities import supports_uci
from .play.command_options import budget_options, check_time_control, side_options
from .play.clock import resumed_clock_note
from .util.durations import format_duration
from .errors import PlygroundError, PluginError, UsageError
from .play.match import MatchResult
from .levels import level_spec
from .options import Spec
from .protocols import Budget, Game
from .files.atomic import describe_os_error
from .files.recordio import RecordAppender, check_save_path
from .registry import get_registry
from .play.review import REVIEWING, GameReview, open_review
from .play.session import GameSession, PlaySettings
from .util.stopping import ctrl_c_ends_the_process, is_interrupt
from .play.resume import (check_resumed_game, game_of_record_file, keep_unfinished, kept_words, load_unfinished,
                     locate_saved, newest_unfinished, replay, resume_argument, resumed_players, saved_games)
from .tournament import Entrant, TournamentConfig, choose_openings, run_tournament
from .tournament.config import MAX_GAMES
from .tournament.command import time_control_note, tournament_command
from .util.wording import counted


class PlygroundGroup(click.Group):
    """Loads plugin commands only when a name is not a built-in one (keeps --help fast)."""

    _plugin_commands_loaded = False

    def _load_plugin_commands(self) -> None:
        if not PlygroundGroup._plugin_commands_loaded:
            PlygroundGroup._plugin_commands_loaded = True
            plugins.load_plugins()
            plugins.pm.hook.register_commands(cli=self)

    def list_commands(self, ctx):
        self._load_plugin_commands()
        return super().list_commands(ctx)

    def get_command(self, ctx, name):
        command = super().get_command(ctx, name)
        if command is None:
            self._load_plugin_commands()
            command = super().get_command(ctx, name)
        return command


@click.group(cls=PlygroundGroup)
@click.version_option(__version__, prog_name="plyground")
def cli():
    """plyground: board-game AI from plugins — games, players, trainers, renderers, networks."""
    # A first run compiles the kernels for many seconds before any output: say so (--quiet turns it off).
    notices.set_quiet(False)
    notices.announce_compiling()


# ------------------------------------------------------------------ plugins / list

@cli.command("plugins")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def plugins_command(as_json):
    """Every installed plugin: distribution, version, what it registers and the kinds it adds."""
    registry = get_registry()
    infos = plugins.plugin_infos()
    rows = []
    for name, info in sorted(infos.items()):
        provides = {kind: [e.name for e in registry.entries(kind) if e.plugin == name] for kind in registry.kinds}
        adds = [kind for kind, plugin in registry.declared_by.items() if plugin == name]
        rows.append({"name": name, "module": info.module, "distribution": info.distribution,
                     "version": info.version, **{k: v for k, v in provides.items() if v},
                     **({"adds_kinds": adds} if adds else {})})
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    # columns as wide as their longest entry, so a long name (expert-iteration) does not push its row out
    table = [("plugin", "distribution", "version", "provides")]
    for row in rows:
        parts = [f"{k}: {', '.join(row[k])}" for k in registry.kinds if k in row]
        if "adds_kinds" in row:
            parts.append(f"adds kinds: {', '.join(row['adds_kinds'])}")
        table.append((row["name"], row["distribution"], row["version"], "; ".join(parts) or "(commands only)"))
    for name, (info, by) in sorted(plugins.blocked_plugins().items()):
        table.append((name, info.distribution, info.version,
                      f"(blocked by PLYGROUND_DISABLE_PLUGINS: {', '.join(by)})"))
    widths = [max(len(line[i]) for line in table) for i in range(3)]
    for line in table:
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(line, widths)) + "  " + line[3])
    for failure in plugins.failures():
        click.echo(f"(broken) {failure}", err=True)


@cli.command("list")
@click.argument("kind", required=False)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def list_command(kind, as_json):
    """Names, descriptions and options of installed games, players, renderers, trainers, or of a kind
    a plugin adds (networks, bayes-adapters, board-views); without KIND, every kind's names."""
    registry = get_registry()
    if kind is None:
        kinds = {name: registry.names(name) for name in registry.kinds}
        if as_json:
            click.echo(json.dumps(kinds, indent=2))
            return
        for name, names in kinds.items():
            click.echo(f"{name}: {', '.join(names) or '(none installed)'}")
        click.echo("details: plyground list KIND (names, descriptions and options)")
        return
    entries = registry.entries(kind)
    # A game's default opponent, as this machine resolves it (Stockfish only where it is installed).
    opponents = {e.name: registry.default_opponent(registry.make_game(e.name)) for e in entries} \
        if kind == "games" else {}
    if as_json:
        click.echo(json.dumps([{"name": e.name, "description": e.description, "plugin": e.plugin,
                                **({"default_opponent": opponents[e.name]} if e.name in opponents else {}),
                                "options": [{"name": o.name, "type": o.describe_type(), "default": _jsonable(o.default),
                                             "help": o.help} for o in e.options]} for e in entries], indent=2))
        return
    for entry in entries:
        click.echo(f"{entry.name}: {entry.description}")
        if entry.plugin != entry.name:
            click.echo(f"    from plugin {entry.plugin}")
        if entry.name in opponents:
            click.echo(f"    default opponent here: {opponents[entry.name]} (plyground play's, and the window's "
                       f"default level)")
        for opt in entry.options:
            click.echo(f"    {opt.name}={_jsonable(opt.default)}  ({opt.describe_type()}) {opt.help}")


def _jsonable(value):
    return str(value) if isinstance(value, Path) else value


# ------------------------------------------------------------------ play / match

def _budget(simulations, seconds) -> Budget:
    return Budget(simulations=simulations, seconds=seconds)


def _load_start(game: Game, fen: str | None):
    if fen is None:
        return None
    if not fen.strip():
        example = game.new_initial_state().to_text()
        raise UsageError(f"--fen is empty; give a {game.name} position, e.g. --fen {example!r} (the initial one)")
    return game.new_state(fen)


_SAVE_HELP = ("Append each game to this file as it finishes (an existing file must hold games of the same "
              "game and format).")


@cli.command("play")
@click.option("--game", "game_spec", default=None, help="Game spec (default: checkers).")
@side_options(black="Black's spec (checkers: moves first; chess: moves second).",
              first="Spec of the side that moves first, whatever its name (e.g. X).",
              second="Spec of the side that moves second (e.g. O).")
@click.option("--renderer", "renderer_spec", default="console", show_default=True, help="Renderer spec.")
@click.option("--fen", default=None, help="Start from this position.")
@click.option("--seed", type=int, default=None, help="Seed for reproducible bots.")
@budget_options
@click.option("--save", type=click.Path(path_type=Path), default=None, help=_SAVE_HELP)
@click.option("--resume", type=click.Path(path_type=Path), default=None,
              help="Play on the last unfinished game saved in this file (the 'save' command or the window's Save "
                   "button), with its players unless others are given.  A name is looked for in the current "
                   "folder, then in the saved-games folder ($PLYGROUND_GAMES, default ~/plyground-games); the "
                   "file's game is played (a different --game is refused).")
@click.option("--review", type=click.Path(path_type=Path), default=None,
              help="Step through a game of this record file (PDN, PGN or JSON lines; finished or not): back, forward, "
                   "goto N, start, end, hint; 'play' starts a new game from the position shown, with the players "
                   "given here.  Looked for as --resume looks.")
@click.option("--game-number", type=click.IntRange(min=1), default=None,
              help="Which game of the --review file (1 is the first; default: the last).")
@click.option("--level", default=None, metavar="LEVEL",
              help="The bot you play when you name no opponent: easy, medium, hard or strongest (the game's "
                   "levels, as in the window's menu; default: the strongest bundled player).")
def play_command(game_spec, black, white, first, second, renderer_spec, fen, seed, max_plies, simulations, seconds,
                 move_limit, time_control, save, resume, review, game_number, level):
    """Play a game. With no options: checkers, you (Black) against the strongest bundled player."""
    check_time_control(time_control, seconds)
    registry = get_registry()
    game_given = game_spec is not None
    if review is not None and resume is not None:
        raise UsageError("--review and --resume both name the game to open: --review FILE steps through a game "
                         "(and 'play' there plays on from any position), --resume FILE plays an unfinished one on; "
                         "give one of them")
    if game_number is not None and review is None:
        raise UsageError(f"--game-number {game_number} picks a game of the file given to --review; add --review FILE")
    if review is not None:
        review = locate_saved(review, REVIEWING)  # as given, else in the saved-games folder
        if not game_given:                        # the file's own game
            game_spec = game_of_record_file(registry, review)
    if resume is not None:
        resume = locate_saved(resume)             # as given, else in the saved-games folder
        if not game_given:                        # the file's own game
            game_spec = game_of_record_file(registry, resume)
    game = registry.make_game(game_spec or registry.default_game())
    if level is not None and (resume is not None or review is not None):
        raise UsageError(f"--level {level} chooses the bot of a new game; a game opened with "
                         f"{'--resume' if resume is not None else '--review'} keeps its own players "
                         f"(give --black/--white to change them)")
    opponent = _level_opponent(registry, game, level, _seat(game, black, white, first, second)) \
        if level is not None else None
    if resume is not None and game_given:
        check_resumed_game(registry, resume, game)   # --game chess with a checkers file: one clear error
    if review is not None and game_given:
        check_resumed_game(registry, review, game, "--review", "review it")
    if resume is not None and fen is not None:
        raise UsageError("--fen and --resume both give the start: a resumed game starts where it was saved")
    if review is not None and fen is not None:
        raise UsageError("--fen and --review both give the start: 'play' in a review starts from the position shown")
    start = _load_start(game, fen)
    resumed = None
    if resume is not None:
        resumed = load_unfinished(game, resume)
        replay(game, resumed, str(resume))            # a damaged file fails here, naming the move
        clock_note = resumed_clock_note(resumed.tags, game.side_names, time_control)
        if clock_note:                                # its clocks go on, start afresh, or are gone: say which
            notices.note(clock_note)
        first, second = resumed_players(resumed, _seat(game, black, white, first, second))
        black = white = None
    new_game = resume is None and review is None     # told of an unfinished one once it is sure to start
    if save:
        save = check_save_path(game, save)
    reviewed = open_review(game, review, game_number) if review is not None else None  # damaged: fails here
    renderer = registry.make_renderer(renderer_spec, game)
    if reviewed is not None:
        start = _review(registry, reviewed, renderer, _seat(game, black, white, first, second))
        if start is None:                 # done looking: no game to play
            return
    settings = PlaySettings(budget=_budget(simulations, seconds), max_plies=max_plies, seed=seed,
                            time_control=time_control, move_limit_seconds=move_limit, save=save or None)
    if renderer.has_menu and not (black or white or first or second) and game_spec is None and level is None:
        if time_control is not None:
            raise UsageError("--tc needs the game and players on the command line (e.g. --game checkers --black "
                             "human --white alphabeta); for a game started from the window's menu, choose its "
                             "clock there (Clock)")
        if start is not None:
            raise UsageError("--fen needs the game and players on the command line (e.g. --game checkers --black "
                             "human --white alphabeta); for a game started from the window's menu, give its "
                             "start position there (Start position)")
        if save:
            raise UsageError(f"--save {save} needs the game and players on the command line (e.g. --game checkers "
                             f"--black human --white alphabeta); a game started from the window's menu is saved "
                             f"with its Save button")
        if new_game:
            offer_saved_game(game)
        try:
            renderer.menu_settings = settings
            renderer.run_menu(registry)  # the GUI's own menu chooses the game and players
        except BaseException as exc:
            if is_interrupt(exc):
                record = renderer.record
                _keep_interrupted_game(game if record is None or record.game == game.name
                                       else registry.make_game(record.game), record)
            raise
        return
    first, second = _fill_sides(game, *_seat(game, black, white, first, second), opponent=opponent)
    try:
        players = [registry.make_player(first, game), registry.make_player(second, game)]
    except PlygroundError as exc:
        if resumed is None:
            raise
        raise UsageError(f"{resume} names players that cannot play here ({exc}); choose them with "
                         f"--black/--white (or --first/--second)") from None
    _check_humans_can_play((first, second), players, renderer)
    session = GameSession(game, players, (first, second), settings, start=start, resume=resumed)
    if new_game:
        offer_saved_game(game)
    try:
        if renderer.runs_games:  # a windowed renderer runs the game loop itself (bots think off the UI thread)
            record = renderer.play(session)
        else:
            record = session.play(renderer)
    except BaseException as exc:
        if is_interrupt(exc):
            _keep_interrupted_game(game, renderer.record)
        raise
    finally:
        session.close_players()
        renderer.close()
    if session.saved_to is not None:
        click.echo(f"saved to {session.saved_to}")
    if not record.finished:          # quit, or a player that failed: kept as Ctrl-C keeps it, to play on
        _keep_interrupted_game(game, record)


def _review(registry, reviewed: GameReview, renderer, seats: list[str | None]):
    """Let the person step through ``reviewed`` in ``renderer``; the position to play a new game from, or None.
    Hints come from the human player given (its ``hint=`` option), else from a default one."""
    if not renderer.reviews_games:
        renderer.close()
        able = [e.name for e in registry.entries("renderers") if e.cls.reviews_games]
        raise UsageError(f"renderer '{renderer.name}' cannot review games; renderers that can: {', '.join(able)}")
    people = [spec for spec in seats if spec is not None and Spec.parse(spec).name == "human"]
    hinter = registry.make_player(people[0] if people else "human", reviewed.game)
    hinter.renderer = renderer
    try:
        start = renderer.review(reviewed, hinter.hint)
    except BaseException:
        renderer.close()
        raise
    finally:
        hinter.close()
    if start is None:
        renderer.close()
    return start


def _keep_interrupted_game(game: Game, record) -> None:
    """Ctrl-C, 'quit' or a failing player ended a game with moves played: keep it in the saved-games folder
    (one file a game, never over another game), where --resume finds it, so nothing is lost."""
    if record is None or not record.moves:
        return
    try:
        path = keep_unfinished(game, record)
    except (PlygroundError, OSError) as exc:
        click.echo(f"\nthe game so far could not be saved: {exc}", err=True)
        return
    click.echo(f"\n{kept_words(path)}", err=True)


def offer_saved_game(game: Game) -> None:
    """Tell about the newest unfinished game saved under the default names (the saved-games folder, then the
    current one): ``--resume`` plays it on."""
    found = newest_unfinished(game, saved_games(game)[:10])
    if found is not None:
        path = found[0]
        click.echo(f"An unfinished {game.name} game is saved in {path}: play it on with "
                   f"plyground play --resume {resume_argument(path)}", err=True)


#: What to do about a person's player with no interactive renderer, in ``play`` and ``match``.
HUMANS_ADVICE = "add --renderer console (or pygame, or web)"


def _check_humans_can_play(specs, players, renderer) -> None:
    for spec, player in zip(specs, players):
        if player.needs_renderer and (renderer is None or not renderer.interactive):
            raise UsageError(f"player '{spec}' needs a person at a renderer; {HUMANS_ADVICE}")


def _seat(game: Game, black, white, first, second) -> list[str | None]:
    """Player specs by move order.  ``--black``/``--white`` follow the game's side names
    (Black moves first in checkers, second in chess); games without such sides seat
    ``--black`` first, as the first-mover flag of most board games."""
    seats = [first, second]
    names = [name.lower() for name in game.side_names]
    for colour, spec in (("black", black), ("white", white)):
        if spec is None:
            continue
        index = names.index(colour) if colour in names else (0 if colour == "black" else 1)
        if seats[index] is not None:
            raise UsageError(f"two players given for {game.side_names[index]}: {seats[index]!r} and {spec!r}")
        seats[index] = spec
    return seats


def _fill_sides(game: Game, first: str | None, second: str | None, *,
                opponent: str | None = None) -> tuple[str, str]:
    """One side named: the other is you if a bot was named, else a bot (``opponent``: a level's, else the
    game's default opponent)."""
    bot = opponent or (get_registry().default_opponent(game) if first is None or second is None else None)
    if first is None and second is None:
        return "human", bot
    if first is None or second is None:
        given = first or second
        other = bot if Spec.parse(given).name == "human" else "human"
        return (given, other) if first else (other, given)
    return first, second


def _level_opponent(registry, game: Game, level: str, seats: list) -> str:
    """The bot ``--level`` means for ``game`` here; refused when no seat is left for it."""
    given = [spec for spec in seats if spec is not None]
    if len(given) == 2 or any(Spec.parse(spec).name != "human" for spec in given):
        raise UsageError(f"--level {level} chooses the bot you play when you name no opponent; "
                         f"the players are already given ({', '.join(given)}): leave out --level or one of them")
    spec = level_spec(registry, game, level)       # an unknown level: one line naming the game's levels
    if spec is None:
        raise UsageError(f"no player that can play {game.name} here is installed for level {level!r}")
    return str(spec)


@cli.command("match")
@click.option("--game", "game_spec", required=True, help="Game spec, e.g. checkers or tictactoe.")
@side_options(black="Black's spec (player A if Black moves first in this game).",
              first="Player A: moves first in the odd-numbered games.", second="Player B.")
@click.option("-n", "--games", type=click.IntRange(min=1, max=MAX_GAMES), default=10, show_default=True,
              help="Number of games.")
@click.option("--renderer", "renderer_spec", default=None, help="Show the games with this renderer.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for reproducible matches.")
@budget_options
@click.option("--openings", default="none", show_default=True, metavar="none|N-ply|FILE|NAME",
              help="Start positions, each played twice with colours reversed (see `plyground tournament`).")
@click.option("--opening-plies", type=click.IntRange(min=1), default=None,
              help="Use only the first N plies of each game in an openings file.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Games played at once in worker processes.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Store results here as games finish; rerunning the same command resumes.")
@click.option("--save", type=click.Path(path_type=Path), default=None, help=_SAVE_HELP)
@click.option("--quiet", is_flag=True, help="Print only the summary.")
def match_command(game_spec, black, white, first, second, games, renderer_spec, seed, max_plies, simulations, seconds,
                  move_limit, time_control, openings, opening_plies, workers, out_dir, save, quiet):
    """N games between two players with alternating colours; W/D/L, score and a 95% interval.

    A match is a two-player tournament: the same seeding, openings, workers and resumable --out.
    """
    notices.set_quiet(quiet)
    check_time_control(time_control, seconds)
    registry = get_registry()
    game = registry.make_game(game_spec)
    first, second = _seat(game, black, white, first, second)
    if first is None or second is None:
        flags = "--black and --white" if {n.lower() for n in game.side_names} == {"black", "white"} \
            else "--first and --second (or --black for the first mover and --white for the second)"
        raise UsageError(f"a match of {game.name} needs two players: give {flags}")
    appender = RecordAppender(game, check_save_path(game, save)) if save else None
    renderer = registry.make_renderer(renderer_spec, game) if renderer_spec else None
    entrants = [Entrant(name, spec) for name, spec in zip(match_names(first, second), (first, second))]
    config = TournamentConfig(game=game_spec, entrants=entrants, games_per_pairing=games,
                              openings=choose_openings(game, openings, seed, opening_plies),
                              openings_source=openings, simulations=simulations, seconds=seconds,
                              max_plies=max_plies, seed=seed, move_limit=move_limit,
                              time_control=None if time_control is None else str(time_control))

    def progress(p):
        if not quiet:
            r = p.result.record
            click.echo(f"game {p.done}/{p.total}: {r.players[0]} vs {r.players[1]} "
                       f"{r.result_text} ({r.reason}, {len(r.moves)} plies)  ETA {format_duration(p.eta)}", err=True)

    def started(run, pending):
        if time_control is not None and pending and not quiet:   # games of minutes each: say so before the first
            click.echo(f"{counted(pending, 'game')} to play: {time_control_note(time_control)}", err=True)

    try:
        run = run_tournament(config, out_dir, workers=workers, renderer=renderer, on_game=progress, on_start=started,
                             sink=appender.append if appender is not None else None,
                             humans_advice=HUMANS_ADVICE)
    finally:
        if renderer:
            renderer.close()
    result = MatchResult(names=(entrants[0].name, entrants[1].name), records=[r.record for r in run.results],
                         a_first=[r.a_first for r in run.results])
    click.echo(result.summary())
    if run.stopped:
        click.echo(f"  stopped: {run.stopped}")
    if appender is not None:
        click.echo(f"{counted(appender.count, 'game')} saved to {save}")
    if run.interrupted:
        resume = f"rerun the same command to resume from {out_dir}" if out_dir else "give --out DIR to make a match resumable"
        click.echo(f"interrupted after {len(result.records)} of {counted(config.total_games, 'game')}; {resume}",
                   err=True)
        raise click.exceptions.Exit(130)


def match_names(first: str, second: str) -> tuple[str, str]:
    """The players' names in a match's lines and records: their specs, or, when a player meets itself
    (random vs random), ``random (A)`` and ``random (B)``, A and B as --first and --second call them."""
    return (first, second) if first != second else (f"{first} (A)", f"{second} (B)")


cli.add_command(tournament_command)


# ------------------------------------------------------------------ perft

#: perft's deepest count: every game's tree at this depth is far past what any machine counts (the counts
#: are 64-bit integers), and the compiled counts hold one move list per ply.
MAX_PERFT_DEPTH = 64


@cli.command("perft")
@click.argument("game_spec")
@click.option("--depth", type=click.IntRange(min=0, max=MAX_PERFT_DEPTH), required=True,
              help="Search depth in plies.")
@click.option("--fen", default=None, help="Start position (default: the initial position).")
@click.option("--divide", is_flag=True,
              help="Also print the count below each legal move, as engines do ('g1f3: 20' in UCI for chess).")
def perft_command(game_spec, depth, fen, divide):
    """Count the leaves of the legal-move tree (checks move generation; measures its speed)."""
    game = get_registry().make_game(game_spec)
    state = game.new_state(fen) if fen else game.new_initial_state()
    with ctrl_c_ends_the_process():      # a compiled count would not hear Ctrl-C until it is done
        _perft(game, state, depth, divide)


def _perft(game: Game, state, depth: int, divide: bool) -> None:
    if divide and depth >= 1:
        # Lines as engines print them ("move: count", no digit grouping) so they diff against an engine's
        # divide; games engines talk to in UCI (chess: Stockfish's `go perft`) write moves in UCI.
        move_text = state.move_to_uci if supports_uci(game) else state.move_to_text
        for move in state.legal_moves():
            text = move_text(move)
            state.apply(move)
            click.echo(f"{text}: {game.perft(state, depth - 1)}")
            state.undo()
    game.perft(state, min(depth, 1))  # compile (if compiled) outside the timing
    started = time.perf_counter()
    nodes = game.perft(state, depth)
    elapsed = time.perf_counter() - started
    rate = nodes / elapsed if elapsed > 0 else float("inf")
    click.echo(f"perft({depth}) = {nodes:,} nodes in {elapsed:.3f} s ({rate:,.0f} nodes/s)")


from .learning.train_command import train_command  # noqa: E402  (the generic `plyground train`)

cli.add_command(train_command)

from .play.analyse_command import analyse_command  # noqa: E402  (plyground analyse: a game report)

cli.add_command(analyse_command)

from .play.book_command import book_command  # noqa: E402  (plyground book: opening books)

cli.add_command(book_command)


# ------------------------------------------------------------------ entry point

def main(argv: list[str] | None = None) -> None:
    """Run the CLI; every error a user can cause becomes one line and an exit code."""
    try:
        code = cli.main(args=argv, prog_name="plyground", standalone_mode=False)
        if isinstance(code, int) and code:   # a command's click Exit(code) comes back as a return value here
            sys.exit(code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except PluginError as exc:
        click.echo(f"plyground: error: {exc}", err=True)
        sys.exit(1)
    except PlygroundError as exc:
        click.echo(f"plyground: error: {exc}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        click.echo("\nInterrupted.", err=True)
        sys.exit(130)
    except SystemError as exc:
        if not is_interrupt(exc):   # a Ctrl-C that landed inside a numba dispatcher comes wrapped
            raise
        click.echo("\nInterrupted.", err=True)
        sys.exit(130)
    except BrokenPipeError:
        # Output piped into `head` and the like: not an error worth a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    except OSError as exc:
        # A full disk, a read-only folder, a vanished file: the user's to fix, so one line, not a traceback.
        where = f"{exc.filename}: " if exc.filename else ""
        click.echo(f"plyground: error: {where}{describe_os_error(exc)}", err=True)
        sys.exit(2)
