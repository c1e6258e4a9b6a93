"""The start of every game a front end offers, its menu (the window's) or start page (the web page's): which games
it offers, each game's players, levels and default opponent, whether it has a position editor, its saved game to
resume and its record files to open, the clocks, reading a start position and making the game's session.

:class:`MenuModel` is the part of each front end's menu that is the same everywhere; it imports no GUI library.
The window's menu (``plugins/pygame_gui/menu.py``) holds the person's choices in its widgets, the page's start
page (``plugins/web/menu.py``) receives them in a message; both ask this model what to offer and build the game
it makes.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from plyground.boardview.views import has_view, view_class
from plyground.play.clock import MENU_CLOCKS, TimeControl
from plyground.errors import PlygroundError
from plyground.levels import DEFAULT_LEVEL, level_spec, level_table
from plyground.options import Spec
from plyground.protocols import Game, GameRecord, Player, State
from plyground.play.resume import newest_unfinished, recent_record_files, saved_games
from plyground.play.session import GameSession

#: Record files Open game lists (newest first).
LISTED = 8
#: The clocks a menu offers, by their labels (``--tc`` of each; None: no clock).
CLOCK_LABELS = tuple(label for label, _ in MENU_CLOCKS)


class MenuModel:
    """What a menu offers for the games of ``registry`` that can be shown (those with a board view), for ``app``,
    the renderer showing it (its ``save_folder`` and ``menu_settings``: the command line's settings)."""

    def __init__(self, app, registry) -> None:
        self.app, self.registry = app, registry
        self.games = [e.name for e in registry.entries("games") if has_view(e.cls)]
        self.error = ""            # why the last Start (or Resume) did not start
        self.notice = ""           # news of the last game (where leaving it kept it), until the next starts
        self.progress = ""         # "Starting... (loading X)" while the players are built
        self._games: dict[str, Game] = {}
        self._levels: dict[str, dict[str, Spec]] = {}
        self._saved: dict[str, tuple] = {}     # game -> ((path, mtime) of its saved files, the saved game or None)

    # ------------------------------------------------------------ a game and what it offers
    def game(self, name: str) -> Game:
        """Game ``name`` with its default options (kept: for listing players and checking positions)."""
        if name not in self._games:
            self._games[name] = self.registry.make_game(name)
        return self._games[name]

    def players_for(self, game: Game) -> list[str]:
        """The players that can play ``game`` as they are (alphazero on a game with no model bundled must be given
        one: from the command line, ``--white alphazero:model=FILE``)."""
        return [name for name in self.registry.players_for(game)
                if self.registry.get("players", name).cls.defaults_reason(game) is None]

    def levels(self, game: Game) -> dict[str, Spec]:
        """``game``'s levels (:mod:`plyground.levels`), easiest first, each with the player it means here; a level
        none of whose players is installed is left out."""
        if game.name not in self._levels:
            specs = {level: level_spec(self.registry, game, level) for level in level_table(game)}
            self._levels[game.name] = {level: spec for level, spec in specs.items() if spec is not None}
        return self._levels[game.name]

    def opponent(self, game: Game) -> str:
        """The computer's player a new game of ``game`` starts with: its default level's, else the strongest
        installed (:meth:`plyground.registry.Registry.default_opponent`)."""
        spec = self.levels(game).get(DEFAULT_LEVEL)
        return str(spec) if spec is not None else self.registry.default_opponent(game)

    def can_set_up(self, game: Game) -> bool:
        """Whether ``game`` has a position editor (its board view names pieces to set up)."""
        cls = view_class(game)
        return cls is not None and bool(cls.setup_pieces)

    # ------------------------------------------------------------ saved games and record files
    def folders(self) -> tuple[Path, Path]:
        """Where saved and recorded games are looked for: the front end's save folder, then the current one."""
        return self.app.save_folder(), Path(".")

    def saved_game(self, game: Game) -> tuple[Path, GameRecord] | None:
        """The newest unfinished game saved of ``game`` (``<game>-saved*.<ext>`` in :meth:`folders`) to play on,
        with its record; None when there is none.  Files are read again only when they change."""
        try:
            paths = saved_games(game, self.folders())
            stamp = tuple((str(path), path.stat().st_mtime_ns) for path in paths)
        except OSError:
            return None
        cached = self._saved.get(game.name)
        if cached is None or cached[0] != stamp:
            try:
                cached = self._saved[game.name] = (stamp, newest_unfinished(game, paths))
            except (OSError, PlygroundError):
                return None
        return cached[1]

    def record_files(self, game: Game, count: int = LISTED) -> list[Path]:
        """The ``count`` newest record files of ``game`` in :meth:`folders` (what Open game lists)."""
        return recent_record_files(game, self.folders(), count)

    # ------------------------------------------------------------ the game it starts
    @staticmethod
    def time_control(label: str) -> TimeControl | None:
        """The clock labelled ``label`` (one of :data:`CLOCK_LABELS`), read as ``--tc`` reads it; None: no clock."""
        text = dict(MENU_CLOCKS)[label]
        return None if text is None else TimeControl.parse(text)

    @staticmethod
    def read_position(game: Game, text: str) -> State | None:
        """The start position ``text`` (the game's notation, as ``--fen`` takes it) of ``game``; None for an empty
        text (the usual start).  A text the game cannot read raises a PlygroundError that says why."""
        if not text.strip():
            return None
        try:
            return game.new_state(text.strip())
        except PlygroundError:
            raise
        except Exception as exc:  # noqa: BLE001 - any parse failure is the person's input, said as such
            raise PlygroundError(f"cannot read this position: {exc}") from None

    def new_session(self, game: Game, players: Sequence[Player], specs: Sequence[str | Spec], *,
                    time_control: TimeControl | None = None, start: State | None = None,
                    resume: GameRecord | None = None) -> GameSession:
        """The session of a game the menu starts: ``players`` (built from ``specs``, which name them) with the
        command line's settings and the clock chosen, from ``start`` (None: the usual start); or played on from
        ``resume``, with its own clock."""
        settings = self.app.menu_settings
        if resume is None:
            settings = settings.replace(time_control=time_control)
        return GameSession(game, list(players), tuple(str(s) for s in specs), settings, start=start, resume=resume)


__all__ = ["MenuModel", "LISTED", "CLOCK_LABELS"]
