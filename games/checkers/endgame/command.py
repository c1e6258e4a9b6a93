"""``plyground endgame build|probe``: the checkers endgame databases from the command line."""
from __future__ import annotations

from pathlib import Path

import click

DIR_HELP = "Folder of the database files (default: $PLYGROUND_ENDGAME_DIR or ~/.local/share/plyground/checkers-endgame)."


def _words(result: str, plies: int) -> str:
    return "draw" if result == "draw" else f"{result} in {plies} {'ply' if plies == 1 else 'plies'}"


def register(cli) -> None:
    @cli.group("endgame")
    def endgame():
        """Checkers endgame databases: every position with few pieces solved by retrograde analysis."""

    @endgame.command("build")
    @click.option("--pieces", type=click.IntRange(2, 8), default=4, show_default=True,
                  help="Solve every position with at most this many pieces.")
    @click.option("--dir", "directory", type=click.Path(file_okay=False, path_type=Path), default=None, help=DIR_HELP)
    def build_command(pieces, directory):
        """Solve (or finish solving: slices already on disk are kept) the N-piece database."""
        from . import store
        db = store.build(pieces, directory, log=lambda line: click.echo(line, err=True))
        counts = db.counts()
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
        from plyground.errors import UsageError
        from plyground.games.checkers import CheckersGame
        from plyground.games.checkers.kernels import state_to_pos

        from . import store
        game = CheckersGame()
        state = game.new_state(fen)
        pos = state_to_pos(state)
        on_board = int(sum(bin(int(b)).count("1") for b in pos[:4]))
        pieces = pieces or max(2, on_board)
        if on_board > pieces:
            raise UsageError(f"the position has {on_board} pieces; a {pieces}-piece database cannot tell "
                             f"(use --pieces {on_board} after building it)")
        db = store.open_database(pieces, directory)
        result, plies = db.probe(pos)
        side = "Black" if state.current_player() == 0 else "White"
        click.echo(f"{state.to_text()} ({side} to move): {_words(result, plies)}")
        for move in state.legal_moves():
            after = state.clone()
            after.apply(move)
            theirs, their_plies = db.probe(state_to_pos(after))    # no piece or no move: a loss in 0
            mine = {"win": "loss", "loss": "win", "draw": "draw"}[theirs]
            click.echo(f"  {state.move_to_text(move):8s} {_words(mine, their_plies + 1 if mine != 'draw' else 0)}")
