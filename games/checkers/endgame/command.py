"""``plyground endgame build|probe``: the checkers endgame databases from the command line."""
from __future__ import annotations

from pathlib import Path

import click

DIR_HELP = "Folder of the database files (default: $PLYGROUND_ENDGAME_DIR or ~/.local/share/plyground/checkers-endgame)."


def register(cli) -> None:
    @cli.group("endgame")
    def endgame():
        """Checkers endgame databases: every position with few pieces solved by retrograde analysis."""

    @endgame.command("build")
    @click.option("--pieces", type=click.IntRange(2, 8), default=4, show_default=True,
                  help="Solve every position with at most this many pieces.")
    @click.option("--dir", "directory", type=click.Path(file_okay=False, path_type=Path), default=None, help=DIR_HELP)
    @click.option("--threads", type=click.IntRange(1, None), default=None,
                  help="Threads solving (default: one per core).")
    def build_command(pieces, directory, threads):
        """Solve (or finish solving: slices already on disk are kept) the N-piece database.  Up to 5 pieces it
        is held whole in memory; 6 pieces is built slice by slice (a few GB), each slice written when solved."""
        from plyground.util.stopping import ctrl_c_ends_the_process

        from . import store
        # A slice is solved by one compiled call that Python's Ctrl-C handler would wait for (seconds for a
        # 5-piece slice, more for the larger ones): Ctrl-C ends the build at once; the slices on disk are kept
        # (a file being written is finished first) and the next build goes on from them.
        with ctrl_c_ends_the_process():
            store.build(pieces, directory, log=lambda line: click.echo(line, err=True), threads=threads)
        counts = store.counts(pieces, directory)
        click.echo(f"{pieces} pieces: {sum(counts.values()):,} positions (either side to move): "
                   f"{counts['win']:,} wins, {counts['loss']:,} losses, {counts['draw']:,} draws for the side "
                   f"to move; in {directory or store.default_directory()}")

    @endgame.command("probe")
    @click.option("--fen", required=True, help="The position, e.g. W:WK1,K3:BK32 (White to move).")
    @click.option("--pieces", type=click.IntRange(2, 8), default=None,
                  help="The database to open (default: the position's number of pieces).")
    @click.option("--dir", "directory", type=click.Path(file_okay=False, path_type=Path), default=None, help=DIR_HELP)
    def probe_command(fen, pieces, directory):
        """The result of a position for the side to move, and of each of its moves."""
        from plyground.errors import PositionError, UsageError
        from plyground.games.checkers import CheckersGame

        from . import store
        from .oracle import EndgameOracle, pieces_on_board, result_words, sides_without_pieces
        game = CheckersGame()
        state = game.new_state(fen)
        empty = [game.side_names[player] for player in sides_without_pieces(state)]
        if empty:
            raise PositionError(f"--fen {fen!r}: {' and '.join(empty)} {'have' if len(empty) == 2 else 'has'} no "
                                f"pieces, so the game is over (or never was): there is nothing to probe; give a "
                                f"position with a piece of each side, e.g. W:WK1,K3:BK32")
        on_board = pieces_on_board(state)
        pieces = pieces or max(2, on_board)
        if on_board > pieces:
            raise UsageError(f"the position has {on_board} pieces; a {pieces}-piece database cannot tell "
                             f"(use --pieces {on_board} after building it)")
        directory = directory or store.default_directory()
        oracle = EndgameOracle(store.open_database(pieces, directory), directory, stored_distances=True)
        side = game.side_names[state.current_player()]
        click.echo(f"{state.to_text()} ({side} to move): {oracle.words(state)}")
        for move in state.legal_moves():
            click.echo(f"  {state.move_to_text(move):8s} {result_words(*oracle.move_result(state, move))}")
