"""Where a front end (the window, the web page) saves games: what a game screen asks of the renderer showing it,
written once for both."""
from __future__ import annotations

from pathlib import Path

from plyground.protocols import Game
from plyground.play.resume import default_save_path, saves_folder


class SaveFolders:
    """Where a renderer showing game screens saves games (what :class:`GameScreen` asks of its app): its
    ``save_dir`` option (in ``self.config``), else the saved-games folder."""

    def save_folder(self) -> Path:
        """Where games are saved: the ``save_dir`` option, else the saved-games folder."""
        chosen = self.config.get("save_dir")
        return Path(chosen).expanduser() if chosen else saves_folder()

    def saved_game_path(self, game: Game) -> Path:
        """Where an unfinished game of ``game`` is saved (and a start page looks for one)."""
        return default_save_path(game, self.save_folder())
