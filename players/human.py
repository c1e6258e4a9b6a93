"""The ``human`` player: asks the renderer, which asks the person; answers hints with a bot's search."""
from __future__ import annotations

import threading

from plyground.errors import PlygroundError, UsageError
from plyground.hookspecs import hookimpl
from plyground.play.match import POLL_SECONDS, Interrupted, MoveOverstepped, PlayerFailed, ask_for_move, live_progress
from plyground.options import Option
from plyground.protocols import Budget, Command, Player

#: Seconds an infinite analysis (``Command.ANALYSE``, the window's I) searches at most, unless stopped first.
ANALYSIS_SECONDS = 600.0
#: The most simulations (alpha-beta: nodes) an infinite analysis (``hint`` with ``seconds``) searches: about a
#: gigabyte of MCTS tree at most.
ANALYSIS_SIMULATIONS = 1_000_000
#: Seconds beyond ``hint_seconds`` a hint may take before it is given up (its player is warmed up before).
HINT_GRACE = 30.0


class HumanPlayer(Player):
    name = "human"
    description = ("You: moves are entered through an interactive renderer (console: typed at the prompt; "
                   "pygame: the window; web: the browser page).")
    needs_renderer = True
    options = (
        Option("hint", str, "", "the player that answers 'hint' (a spec such as alphabeta:depth=6; "
               "empty: the game's strongest default opponent)"),
        Option("hint_seconds", float, 2.0, "seconds a hint may think", min=0.05, max=3600.0, remote=True),
    )

    def __init__(self, game, **options) -> None:
        super().__init__(game, **options)
        self._hinter: Player | None = None
        self._warming: threading.Thread | None = None   # the hint player's warm-up (once), while it runs

    def choose_move(self, state, budget):
        if self.renderer is None or not self.renderer.interactive:
            raise UsageError("player 'human' needs an interactive renderer: use --renderer console, pygame or web")
        while True:
            choice = self.renderer.ask_move(state)
            if choice not in (Command.HINT, Command.ANALYSE):
                return choice
            try:
                self.hint(state, ANALYSIS_SECONDS if choice is Command.ANALYSE else None)
            except Interrupted as stopped:      # the person left (or took back) while the hint thought
                if stopped.command is not Command.ANALYSE:     # ANALYSE: the analysis was stopped, ask again
                    return stopped.command

    def hint(self, state, seconds: float | None = None) -> None:
        """Let the hint player search ``state`` and show what it found through the renderer (its move is not
        played): the person's 'hint', and a reviewed position's (``plyground play --review``).  ``seconds``
        (default: the ``hint_seconds`` option) bounds the search (given: infinite analysis, up to
        :data:`ANALYSIS_SIMULATIONS`); a renderer that ``shows_progress`` sees it
        as it runs, and the renderer's interruption stops it (raising Interrupted)."""
        side = self.game.side_names[state.current_player()]
        try:
            hinter = self._hint_player()
            self._warm_up(hinter)
            # an explicit time (infinite analysis): the hint player's own simulation count does not end the
            # search sooner; ANALYSIS_SIMULATIONS (nodes, for alpha-beta) keeps a tree's memory bounded
            budget = Budget(seconds=self.config["hint_seconds"]) if seconds is None else \
                Budget(simulations=ANALYSIS_SIMULATIONS, seconds=seconds)
            seconds = budget.seconds
            title = f"hint from {hinter.name}"
            progress = live_progress(self.renderer, title, side) if self.renderer.shows_progress else None
            ask_for_move(hinter, state.clone(), budget, seconds + HINT_GRACE,
                         self.renderer.interruption, progress)
        except (PlygroundError, MoveOverstepped, PlayerFailed) as exc:
            cause = exc.cause if isinstance(exc, PlayerFailed) else exc
            self.renderer.show_analysis("hint", {"error": f"no hint: {cause}"}, side)
            return
        self.renderer.show_analysis(title, hinter.analysis(), side)

    def _warm_up(self, hinter: Player) -> None:
        """The hint player's first-use work (compiling its kernels, loading its model) done before its timed search,
        as a bot's is before its first move: else the first hint spends its seconds compiling and shows a one-move
        line.  On a thread of its own, polled as a search is (the window stays drawn); the person's take back or
        quit meanwhile comes back as Interrupted once it is done (compiling cannot be stopped midway)."""
        if self._warming is None:
            self._warming = threading.Thread(target=_warm_up_quietly, args=(hinter,), daemon=True,
                                             name="plyground-hint-warm-up")
            self._warming.start()
        while self._warming.is_alive():
            self._warming.join(POLL_SECONDS)
            command = self.renderer.interruption() if self._warming.is_alive() else None
            if command is not None:
                self._warming.join()   # the hint player must be quiet before the game goes on
                raise Interrupted(command)

    def _hint_player(self) -> Player:
        if self._hinter is None:
            from plyground.registry import get_registry   # the registry loads plugins: only when asked
            registry = get_registry()
            spec = self.config["hint"] or registry.default_opponent(self.game)
            self._hinter = registry.make_player(spec, self.game)
            self._hinter.analysing = True      # a hint searches the position (no opening book answers it)
        return self._hinter

    def reset(self, seed=None) -> None:
        if self._hinter is not None:
            self._hinter.reset(seed)

    def close(self) -> None:
        if self._hinter is not None:
            self._hinter.close()
            self._hinter, self._warming = None, None


def _warm_up_quietly(player: Player) -> None:
    try:
        player.warm_up()
    except Exception:  # noqa: BLE001 - its search meets the failure again, and the hint says what it is
        pass


@hookimpl
def register_players():
    return [HumanPlayer]
