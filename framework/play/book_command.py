"""``plyground book``: build an opening book from a game's records (``build``) and look into one (``show``); the
book itself is :mod:`plyground.play.book`."""
from __future__ import annotations

import time
from pathlib import Path

import click

from .book import BOOK_MODEL, PRIOR_DRAWS, check_books, count_moves, make_book, open_book, select_moves, verify_moves
from ..files.bundled_data import describe_bundled, records_file
from ..capabilities import bundled_model, bundled_records, record_reader
from ..util.durations import format_duration
from ..errors import PlygroundError, RecordError, UsageError
from ..options import Spec
from ..files.recordio import format_name, read_record_file
from ..files.atomic import check_regular_file
from ..registry import get_registry
from ..util.wording import counted

#: How deep a book goes by default, in plies from the initial position.
DEFAULT_PLIES = 16
#: Games a position and a move need by default to be in a book.
DEFAULT_MIN_GAMES = 10
#: By default a move is kept when its score is within this of the position's best book move's.
DEFAULT_MARGIN = 0.1
#: By default --verify drops a move that loses more expected score than this against the engine's best (in
#: checkers a third of a man near equality: the seven first moves of the ACF book stay, 0.05 would keep 11-15
#: alone -- every one of them is a draw with correct play).
DEFAULT_VERIFY_MARGIN = 0.1


@click.group("book")
def book_command():
    """Opening books: the moves of a game's records in the positions of the opening (plyground.play.book), for
    alphabeta's book option."""


@book_command.command("build")
@click.option("--game", "game_spec", default=None, help="Game spec (default: the default game, checkers).")
@click.option("--from", "source", default=None, metavar="NAME|FILE",
              help="The records: the name of games the game ships (checkers: acf, the ACF archive) or a record "
                   "file (PDN, PGN); default: the games the game ships, where it ships one set of them.")
@click.option("--plies", type=click.IntRange(min=1, max=200), default=DEFAULT_PLIES, show_default=True,
              help="How deep the book goes: the first N plies of each game.")
@click.option("--min-games", type=click.IntRange(min=1), default=DEFAULT_MIN_GAMES, show_default=True,
              help="Games a position, and a move in it, must have been played in.")
@click.option("--margin", type=click.FloatRange(min=0.0, max=1.0), default=DEFAULT_MARGIN, show_default=True,
              help=f"Keep a move whose score for its side (its games' with {PRIOR_DRAWS} draws added) is within "
                   f"this of the position's best kept move's.")
@click.option("--verify", "verify_spec", default=None, metavar="SPEC",
              help="An engine that judges every kept move (e.g. alphabeta:depth=8): a move it finds worse than "
                   "the best it sees in the position by more than --verify-margin is dropped.")
@click.option("--verify-margin", type=click.FloatRange(min=0.0, max=1.0), default=DEFAULT_VERIFY_MARGIN,
              show_default=True,
              help="Expected score a move may lose against the engine's best before --verify drops it.")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="The book file to write (.npz).")
@click.option("--quiet", is_flag=True, help="No progress lines.")
def build_command(game_spec, source, plies, min_games, margin, verify_spec, verify_margin, out, quiet):
    """Build an opening book from a game's records: in each position of their first --plies plies, the moves
    played in at least --min-games games that score within --margin of the best, optionally judged by an
    engine (--verify)."""
    registry = get_registry()
    game = registry.make_game(game_spec or registry.default_game())
    check_books(game)
    if out.suffix != ".npz":
        raise UsageError(f"--out {out}: a book is an .npz file; give a name ending in .npz")
    check_regular_file(out, "--out")
    if out.parent != Path("") and not out.parent.is_dir():
        raise UsageError(f"--out {out}: the folder {out.parent} does not exist")
    judge = registry.make_player(Spec.parse(verify_spec), game) if verify_spec else None   # a bad spec: now
    log = (lambda line: None) if quiet else (lambda line: click.echo(line, err=True))
    started = time.perf_counter()
    if source is None:
        shipped = sorted(bundled_records(game))
        if len(shipped) != 1:
            raise UsageError(f"--from is needed: a record file, or {describe_bundled(game)}")
        source = shipped[0]
    try:
        path = records_file(game, source, "--from")
        reader = record_reader(game, plies)
        if reader is None:
            raise UsageError(f"{game.name} cannot read its record files, so no book can be built from {source}")
        log(f"reading {path} ...")
        try:
            records = reader(read_record_file(path, format_name(game), f"a {format_name(game)} file of "
                                              f"{game.name} games"))
        except (RecordError, ValueError) as exc:
            raise UsageError(f"--from {source}: {exc}") from None
        counts = count_moves(game, records, plies)
        if not counts.used:
            raise UsageError(f"--from {source}: none of its {counted(len(records), 'game')} is a finished game "
                             f"from {game.name}'s initial position")
        entries = select_moves(counts, min_games, margin)
        kept = sum(len(moves) for moves in entries.values())
        log(f"{counts.used:,} games: {counted(len(counts.moves), 'position')} in their first "
            f"{counted(plies, 'ply', 'plies')}; {counted(len(entries), 'position')} with "
            f"{counted(kept, 'move')} kept")
        metadata = {"source": str(source), "games": counts.used, "plies": plies, "min_games": min_games,
                    "margin": margin, "prior_draws": PRIOR_DRAWS}
        if judge is not None:
            judge.warm_up()
            entries, dropped = verify_moves(game, entries, counts.lines, judge, verify_margin, log=log)
            metadata.update(verify=verify_spec, verify_margin=verify_margin, verify_dropped=dropped)
            log(f"{verify_spec} dropped {counted(dropped, 'move')}")
        if not entries:
            raise UsageError(f"no position of --from {source} was played in {counted(min_games, 'game')} "
                             f"(--min-games): the book would be empty")
        book = make_book(game, entries, metadata)
        book.save(out)
    finally:
        if judge is not None:
            judge.close()
    click.echo(f"{out}: {game.name} opening book, {counted(len(book), 'position')}, {counted(book.move_count, 'move')} "
               f"(from {counted(counts.used, 'game')} of {source}, {counted(plies, 'ply', 'plies')} deep, at least "
               f"{counted(min_games, 'game')} a move{', judged by ' + verify_spec if verify_spec else ''}); "
               f"{out.stat().st_size:,} bytes, built in {format_duration(time.perf_counter() - started)}")
    skipped = {why: n for why, n in (counts.skipped or {}).items() if n}
    if skipped:
        click.echo("not used: " + ", ".join(f"{counted(n, 'game')} {why}" for why, n in skipped.items()))


@book_command.command("show")
@click.option("--game", "game_spec", default=None, help="Game spec (default: the default game, checkers).")
@click.option("--book", "book_spec", default="auto", show_default=True, metavar="auto|FILE",
              help="The book: the game's bundled one (auto) or a book file.")
@click.option("--moves", default="", help="The moves from the initial position to the position to show, "
                                          "e.g. '11-15 23-19' (default: the initial position).")
@click.option("--fen", default=None, help="The position to show, as a position text (instead of --moves).")
def show_command(game_spec, book_spec, moves, fen):
    """The book's moves in a position: each with the games that played it, its score and the engine's."""
    registry = get_registry()
    game = registry.make_game(game_spec or registry.default_game())
    book = open_book(game, book_spec, "--book")
    if book is None:
        where = "it ships none" if bundled_model(game, BOOK_MODEL) is None else "--book none"
        raise UsageError(f"no book to show for {game.name} ({where}); give --book FILE")
    if fen is not None and moves.strip():
        raise UsageError("--fen and --moves both give the position; give one of them")
    state = game.new_state(fen) if fen is not None else game.new_initial_state()
    for text in moves.replace(",", " ").split():
        try:
            state.apply(state.parse_move(text))
        except PlygroundError as exc:
            raise UsageError(f"--moves: {exc}") from None
    made = book.metadata
    click.echo(f"{game.name} book: {counted(len(book), 'position')}, {counted(book.move_count, 'move')}, from "
               f"{made.get('source', '?')} ({made.get('plies', '?')} plies, at least {made.get('min_games', '?')} "
               f"games a move{', judged by ' + str(made['verify']) if made.get('verify') else ''})")
    entries = book.moves(state)
    if not entries:
        click.echo(f"{state.to_text()}: not in the book")
        return
    click.echo(f"{state.to_text()}:")
    total = sum(entry.games for entry in entries)
    for entry in entries:
        judged = f"  engine {entry.engine:.0%}" if entry.engine is not None else ""
        click.echo(f"  {entry.move:<10} {entry.games:>7,} games  played {entry.games / total:>4.0%}  "
                   f"score {entry.score:.0%}{judged}")
