"""The ``hub`` player: any Hub engine that plays English checkers (``plyground hub SPEC`` among them).

Mirrors the ``uci`` player (players/uci/player.py).  The engine runs as a
separate process for the player's lifetime: started when the player is made
(so a wrong command is reported at once), told ``new-game`` by :meth:`reset`
(which also restarts an engine that died), and ended by :meth:`close` or,
failing that, when the player is garbage collected or Python exits.  Each
move sends the game from its start position with every move played (engines
see repetitions) and waits for ``done`` within the per-move timeout.  A
crash, a time-out or an illegal answer raises :class:`EngineError` from
``choose_move``, so a match records the game as unfinished with that reason.
"""
from __future__ import annotations

from typing import Any

from plyground.capabilities import has_position_layout
from plyground.engines.process import EngineError, parse_settings
from plyground.errors import MoveError, PlygroundError, UsageError
from plyground.options import Option
from plyground.engines.player import EnginePlayer
from plyground.protocols import Budget, Game, State

from . import protocol
from .engine import HubEngine

#: The engine with no command given: plyground's own, playing alpha-beta.
DEFAULT_COMMAND = "plyground hub alphabeta"


def parse_params(text: str) -> dict[str, str]:
    """``'eval=learned; depth=8'`` -> ``{'eval': 'learned', 'depth': '8'}`` (parameters are separated by ';')."""
    return parse_settings(text, "parameter")


class HubPlayer(EnginePlayer):
    name = "hub"
    description = "Any Hub engine (the protocol of Scan and pydraughts) playing checkers, run as a separate process."
    options = (
        Option("command", str, DEFAULT_COMMAND, "the engine's command line, split like a shell's: a program (a "
                                                "path, a name on PATH or beside this Python) and its arguments, "
                                                "e.g. 'plyground hub mcts:simulations=2000'"),
        Option("depth", int, None, "search depth per move (level depth)", min=1, max=200, optional=True, remote=True),
        Option("nodes", int, None, "nodes per move (level nodes; the match's --simulations overrides it)",
               min=1, optional=True),
        Option("seconds", float, None, "seconds per move (level move-time; the match's --seconds overrides it); "
                                       "with no depth, nodes or seconds the engine plays at its own settings",
               min=0.001, optional=True),
        Option("params", str, "", "engine parameters as 'name=value; name=value', set before init, e.g. "
                                  "'eval=learned; depth=8' for plyground hub alphabeta (separated by ';')"),
        Option("timeout", float, 30.0, "seconds an engine may take beyond its own time limit (with no time "
                                       "limit: in all) before it is killed and the game recorded as unfinished; "
                                       "none: wait forever", min=0.05, optional=True),
    )

    def __init__(self, game: Game, **options: Any) -> None:
        super().__init__(game, **options)
        options = self.config
        self.engine_params = parse_params(options["params"])
        self._take_engine(HubEngine(options["command"], answer_timeout=options["timeout"]))

    # ------------------------------------------------------------ capability
    @classmethod
    def unsupported_reason(cls, game: Game) -> str | None:
        if has_position_layout(game, "checkers-bitboard"):
            return None
        return (f"Hub is a draughts protocol: Hub engines play checkers only, not {game.name} "
                f"(it has no checkers-bitboard position layout)")

    # ------------------------------------------------------------ lifecycle
    def _configure(self) -> None:
        engine = self.engine
        variant = engine.params.get("variant")
        if variant is not None:
            # pydraughts' name for English checkers; an engine for other variants cannot play this game.
            allowed = [v for v in protocol.VARIANTS if not variant.values or v in variant.values]
            if not allowed:
                raise UsageError(f"engine {engine.name} plays the variants {', '.join(variant.values)}, "
                                 f"not English checkers (variant english)")
            engine.set_param("variant", allowed[0])
        for name, value in self.engine_params.items():
            engine.set_param(name, value)
        engine.init()

    # ------------------------------------------------------------ moves
    def level(self, budget: Budget) -> tuple[dict, float]:
        """The ``level`` arguments for this move, and the seconds of thinking they allow (0: not timed)."""
        cfg = self.config
        nodes = cfg["nodes"] if budget.simulations is None else budget.simulations
        seconds = cfg["seconds"] if budget.seconds is None else budget.seconds
        level: dict[str, Any] = {}
        if cfg["depth"] is not None:
            level["depth"] = cfg["depth"]
        if nodes is not None:
            level["nodes"] = nodes
        if seconds is not None:
            level["move-time"] = f"{seconds:g}"
        return level, seconds or 0.0

    def choose_move(self, state: State, budget: Budget = Budget()):
        self.check_can_move(state)
        level, thinking = self.level(budget)
        timeout = None if self.config["timeout"] is None else thinking + self.config["timeout"]
        start, moves = protocol.game_position(state)
        text, info = self.engine.search(start, moves, level, timeout, stop=self.stop_signal)
        try:
            move = protocol.parse_state_move(state, text)
        except MoveError as exc:
            raise EngineError(f"{self.engine.name} answered done move={text}, which is not a legal move in "
                              f"{state.to_text()}: {exc}") from None
        self._analysis = self._describe(state, move, info)
        return move

    def _describe(self, state: State, move, info: dict) -> dict:
        out: dict[str, Any] = {"move": state.move_to_text(move), "engine": self.engine.name}
        for key in ("depth", "nodes"):
            if key in info:
                out[key] = info[key]
        if "time" in info:
            out["seconds"] = info["time"]
        if "score" in info:
            out["score"] = protocol.score_words(info["score"])
        if info.get("pv"):
            out["pv"] = _pv_text(state, info["pv"])
        return out


def _pv_text(state: State, pv: list[str]) -> str:
    """The principal variation in plyground's notation, as far as it is legal."""
    s, words = state.clone(), []
    for text in pv[:16]:
        try:
            move = protocol.parse_state_move(s, text)
        except PlygroundError:
            break
        words.append(s.move_to_text(move))
        s.apply(move)
    return " ".join(words)
