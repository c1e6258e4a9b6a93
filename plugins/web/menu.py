"""The web page's start page: the game, its level and clock, a player for each side, the start position; Start,
Set up position (the position editor, :mod:`.editor`), Resume saved and Open game -- the window's menu's choices,
from the same model (:class:`plyground.screen.menu.MenuModel`: the games, their players, levels and default
opponent, the saved game and the record files, the session a Start makes).

The page holds the choices while the person makes them (it has every game's players and levels from
:meth:`WebMenu.snapshot`); Start sends them, and the server checks every one as the command line would.

What comes from the page may do only what a player at the board may do (docs/web.md, "Safe by default"): a
player is one of the installed players offered for the game, named, with only the options its plugin lets a page
set (:attr:`plyground.options.Option.remote`: numbers, true/false, named choices -- never a program, a path or a
file).  Anything else is refused by name before anything is constructed; engines and model files are given on the
command line (``plyground play --renderer web --white hub:command=...``), where the page cannot change them."""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from plyground.boardview.views import view_for
from plyground.play.clock import TimeControl
from plyground.errors import PlygroundError
from plyground.levels import DEFAULT_LEVEL
from plyground.options import Spec, remote_refusal
from plyground.protocols import Game, State
from plyground.screen.menu import CLOCK_LABELS, MenuModel

from .messages import Refused

if TYPE_CHECKING:
    from .renderer import WebRenderer


class WebMenu(MenuModel):
    def __init__(self, app: "WebRenderer", registry) -> None:
        super().__init__(app, registry)
        self.default = registry.default_game(self.games)
        self._choices: dict[str, dict] = {}              # per game: what the start page offers
        self._last: dict | None = None       # the last Start's or Set up position's choices (Play again, from here)

    # ------------------------------------------------------------ what the page shows
    def _game_choices(self, name: str) -> dict:
        """What the start page offers for game ``name``: its sides, players, levels, defaults, rules, saved games
        (kept until :meth:`refresh`: the page is sent a picture four times a second)."""
        if name not in self._choices:
            self._choices[name] = self._read_choices(name)
        return self._choices[name]

    def _read_choices(self, name: str) -> dict:
        game = self.game(name)
        levels = {level: str(spec) for level, spec in self.levels(game).items()}
        saved = self.saved_game(game)
        view = view_for(game)
        return {"name": name, "title": name.capitalize(), "sides": list(game.side_names),
                "players": self.players_for(game), "levels": levels,
                "level": DEFAULT_LEVEL if DEFAULT_LEVEL in levels else "", "defaults": ["human", self.opponent(game)],
                "rules": getattr(view, "help_text", ""), "setup": self.can_set_up(game),
                "saved": saved[0].name if saved else None, "files": [p.name for p in self.record_files(game)]}

    def refresh(self) -> None:
        """Read the saved games again (a game was left, saved or finished since)."""
        self._choices.clear()

    def snapshot(self) -> dict:
        return {"type": "menu", "games": [self._game_choices(name) for name in self.games], "game": self.default,
                "clocks": list(CLOCK_LABELS), "error": self.error, "notice": self.notice, "progress": self.progress}

    # ------------------------------------------------------------ the page's choices
    def act(self, message: dict) -> None:
        if self.progress:
            raise Refused(f"please wait: {self.progress}")
        kind = message["type"]
        if kind == "start":
            self.start(message)
        elif kind == "setup":
            self.set_up(message)
        elif kind == "resume":
            self.resume(message["game"])
        elif kind == "open":
            self.open_file(message["game"], message["file"])

    def _check_game(self, name: str) -> Game:
        if name not in self.games:
            raise Refused(f"no game {name!r} here; the games are {', '.join(self.games)}")
        return self.game(name)

    def start(self, choices: dict) -> None:
        """Start the game the page chose: every choice checked now, the players built in a thread of their own
        (loading a network takes seconds), the page told meanwhile."""
        game = self._check_game(choices["game"])
        self.default = game.name
        specs, time_control = self._players_and_clock(game, choices)
        try:
            start = self.read_position(game, choices.get("position") or "")
        except PlygroundError as exc:
            raise Refused(f"the start position: {exc}") from None
        self._last = dict(choices)
        self.error, self.notice = "", ""
        self._build(game, specs, lambda players: self.new_session(game, players, specs, time_control=time_control,
                                                                   start=start))

    def _players_and_clock(self, game: Game, choices: dict) -> tuple[list[Spec], TimeControl | None]:
        """The players and the clock the page chose (its time control, None: no clock), each checked as Start
        checks them (:meth:`_check_seat`); :class:`Refused` naming the first one that may not be had."""
        specs = []
        for side, text in zip(game.side_names, choices["players"]):
            try:
                spec = Spec.parse(text.strip() or "human")
            except PlygroundError as exc:
                raise Refused(f"{side}'s player: {exc}") from None
            self._check_seat(game, side, spec)
            specs.append(spec)
        clock = choices.get("clock") or CLOCK_LABELS[0]
        if clock not in CLOCK_LABELS:
            raise Refused(f"no clock {clock!r}; the clocks are {', '.join(CLOCK_LABELS)}")
        return specs, self.time_control(clock)

    def set_up(self, choices: dict) -> None:
        """Set up position: the position editor for the game chosen, opened on the Start position's text (the
        usual start where it is empty or cannot be read).  The players and clock are checked now, as Start
        checks them, so that the editor's Play starts with them (:meth:`start`); they are also the players a
        Play from here of the editor's Analyse takes."""
        from .editor import WebEditor
        game = self._check_game(choices["game"])
        self.default = game.name
        specs, _ = self._players_and_clock(game, choices)
        choices = {**choices, "players": [str(spec) for spec in specs]}
        try:
            editor = WebEditor(self, game, choices)
        except PlygroundError as exc:
            raise Refused(str(exc)) from None
        self._last = choices
        self.error, self.notice = "", ""
        self.app.editor = editor

    def start_again(self) -> None:
        """Play again: the last Start's choices."""
        if self._last is not None:
            try:
                self.start(self._last)
            except Refused as exc:
                self.error = str(exc)

    def start_from(self, state: State) -> None:
        """Play from here (a game opened from the start page, or the position editor's Analyse): a new game of
        ``state``'s game from ``state``, with the last Start's or Set up position's players where they were for
        that game (its default players otherwise)."""
        name = state.game.name
        last = self._last if self._last is not None and self._last.get("game") == name else None
        choices = dict(last or {"game": name, "players": self._game_choices(name)["defaults"]})
        choices["position"] = state.to_text()
        try:
            self.start(choices)
        except Refused as exc:
            self.error = str(exc)

    def resume(self, name: str) -> None:
        game = self._check_game(name)
        self.default = name
        saved = self.saved_game(game)
        if saved is None:
            raise Refused(f"no unfinished {name} game is saved in {self.app.save_folder()}")
        path, record = saved
        specs = []
        for side, text in zip(game.side_names, record.players):
            try:
                spec = Spec.parse(text) if text and text != "?" else Spec("human")
                self._check_seat(game, side, spec)
            except (PlygroundError, Refused) as exc:
                raise Refused(f"{path.name}: {exc}; play it on with plyground play --resume {path.name} (players "
                              f"given there may be any)") from None
            specs.append(spec)
        self.error = self.notice = ""
        self._build(game, specs, lambda players: self.new_session(game, players, specs, resume=record),
                    doing=f"Resuming {path.name}")

    def open_file(self, name: str, file: str) -> None:
        """Review the last game of one of the record files listed (by name: the page names no other path)."""
        from plyground.play.review import open_review
        game = self._check_game(name)
        self.default = name
        listed = {p.name: p for p in self.record_files(game)}
        if file not in listed:
            raise Refused(f"{file!r} is not one of the {game.name} files listed"
                          + (f": {', '.join(listed)}" if listed else ""))
        try:
            review = open_review(game, listed[file])
        except (PlygroundError, OSError) as exc:
            raise Refused(f"cannot open {file}: {exc}") from None
        self.app.review_from_menu(review)

    def _check_seat(self, game: Game, side: str, spec: Spec) -> None:
        """Refuse (:class:`Refused`, naming what) a player the page may not seat: one not offered for ``game``, or
        an option its plugin does not let a page set.  Decided from the spec alone: nothing is built or opened."""
        offered = self._game_choices(game.name)["players"]
        if spec.name not in offered:
            raise Refused(f"{side}'s player: no player {spec.name!r} can be chosen here for {game.name}; the "
                          f"players are {', '.join(offered)}")
        reason = remote_refusal(self.registry.get("players", spec.name).options, spec.options,
                                f"player {spec.name}")
        if reason:
            raise Refused(f"{side}'s player: {reason}")

    def _build(self, game: Game, specs: list[Spec], session, doing: str = "Starting") -> None:
        """Build the players in a thread (the server's thread must not wait), then start ``session(players)``."""
        self.progress = f"{doing}\u2026"

        def build() -> None:
            players = []
            try:
                for spec in specs:
                    with self.app.lock:
                        self.progress = f"{doing}\u2026 (loading {spec.name})"
                    self.app.wake()
                    players.append(self.registry.make_player(spec, game))
                made = session(players)
            except Exception as exc:  # noqa: BLE001 - a plugin's own failure is shown on the page
                for player in players:
                    player.close()
                with self.app.lock:
                    self.error = str(exc) if isinstance(exc, PlygroundError) else f"{type(exc).__name__}: {exc}"
                    self.progress = ""
                self.app.wake()
                return
            with self.app.lock:
                self.progress = ""
                if self.app.done.is_set():     # the start page was closed meanwhile: no game to start
                    made.close_players()
                    return
                self.refresh()
                self.app.start_game(made, from_menu=True)

        threading.Thread(target=build, name="plyground-start", daemon=True).start()

