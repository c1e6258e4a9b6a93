"""The ``uci`` player (any UCI engine) and the ``stockfish`` preset.

The engine runs as a separate process for the player's lifetime: started
when the player is made (so a wrong path is reported at once), told
``ucinewgame`` by :meth:`reset` (which also restarts an engine that died),
and ended by :meth:`close` or, failing that, when the player is garbage
collected or Python exits.  Each move sends the game from its start
position with every move played (engines see repetitions) and waits for
``bestmove`` within the per-move timeout.  A crash, a time-out or an
illegal answer raises :class:`EngineError` from ``choose_move``, so a match
records the game as unfinished with that reason.
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from plyground.capabilities import supports_uci
from plyground.errors import UsageError
from plyground.engines.process import parse_settings
from plyground.options import Option
from plyground.engines.player import EnginePlayer
from plyground.protocols import Budget, Game, State

from .engine import EXTRA_DIRS, INSTALL_HINT, EngineError, UciEngine

#: With no depth, nodes or movetime (and no match budget), engines think this long per move.
DEFAULT_MOVETIME_MS = 1000


def parse_engine_options(text: str) -> dict[str, str]:
    """``'Contempt=10; Move Overhead=30; Clear Hash'`` -> ``{'Contempt': '10', 'Move Overhead': '30', 'Clear Hash': ''}``."""
    return parse_settings(text, "option", value_required=False)


class UciPlayer(EnginePlayer):
    name = "uci"
    description = "Any UCI chess engine (Stockfish, Lc0, Komodo...) run as a separate process."
    options = (
        Option("path", str, "stockfish", "the engine: a path to its executable, or a name looked up on PATH "
                                         "and in /usr/games"),
        Option("depth", int, None, "search depth per move in plies", min=1, max=200, optional=True, remote=True),
        Option("nodes", int, None, "nodes searched per move (the match's --simulations overrides it)",
               min=1, optional=True),
        Option("movetime", int, None, "milliseconds per move (the match's --seconds overrides it); with no "
                                      f"depth, nodes or movetime: {DEFAULT_MOVETIME_MS} ms", min=1, optional=True),
        Option("skill", int, None, "Stockfish's 'Skill Level': 0 (weakest) to 20 (full strength)",
               min=0, max=20, optional=True, remote=True),
        Option("elo", int, None, "limit the strength to this Elo (UCI_LimitStrength and UCI_Elo)",
               min=0, max=5000, optional=True, remote=True),
        Option("threads", int, 1, "search threads (the engine option Threads)", min=1, max=1024),
        Option("hash", int, 16, "hash table in MB (the engine option Hash)", min=1, max=1 << 22),
        Option("options", str, "", "other engine options as 'Name=value; Name=value', e.g. "
                                   "'Contempt=10; Move Overhead=30' (separated by ';')"),
        Option("timeout", float, 30.0, "seconds an engine may take beyond its own time limit before it is "
                                       "killed and the game recorded as unfinished; none: wait forever",
               min=0.05, optional=True),
    )

    def __init__(self, game: Game, **options: Any) -> None:
        # Engine options may also be given one by one as option.NAME=value (from Python; the
        # command line has the 'options' string).
        extra = {k[len("option."):]: str(v) for k, v in options.items() if k.startswith("option.")}
        options = {k: v for k, v in options.items() if not k.startswith("option.")}
        super().__init__(game, **options)
        options = self.config
        self.engine_options = {**parse_engine_options(options["options"]), **extra}
        self._take_engine(UciEngine(options["path"], label=self.name if self.name != "uci" else None))

    # ------------------------------------------------------------ capability
    @classmethod
    def unsupported_reason(cls, game: Game) -> str | None:
        if supports_uci(game):
            return None
        return (f"UCI is a chess protocol: UCI engines play chess only, not {game.name} "
                f"(its states have no uci_position and move_to_uci)")

    # ------------------------------------------------------------ lifecycle
    def _configure(self) -> None:
        engine, cfg = self.engine, self.config
        if engine.has_option("Threads"):
            engine.set_option("Threads", cfg["threads"])
        elif cfg["threads"] != 1:
            engine.set_option("Threads", cfg["threads"])        # raises: names the engine's options
        if engine.has_option("Hash"):
            engine.set_option("Hash", cfg["hash"])
        if cfg["skill"] is not None:
            engine.set_option("Skill Level", cfg["skill"])
        if cfg["elo"] is not None:
            engine.set_option("UCI_LimitStrength", "true")
            elo = engine.options.get("uci_elo")
            value = cfg["elo"]
            if elo is not None and elo.min is not None and elo.max is not None and not elo.min <= value <= elo.max:
                raise UsageError(f"{engine.id_name or engine.label} plays at Elo {elo.min} to {elo.max}, not {value}")
            engine.set_option("UCI_Elo", value)
        for name, value in self.engine_options.items():
            engine.set_option(name, value)
        engine.is_ready()

    # ------------------------------------------------------------ moves
    def go_command(self, budget: Budget) -> tuple[str, float | None]:
        """The ``go`` command for this move, and the seconds of thinking it allows (None: unbounded)."""
        cfg = self.config
        depth, nodes, movetime = cfg["depth"], cfg["nodes"], cfg["movetime"]
        if budget.simulations is not None:
            nodes = budget.simulations
        if budget.seconds is not None:
            movetime = max(1, int(budget.seconds * 1000))
        if depth is None and nodes is None and movetime is None:
            movetime = DEFAULT_MOVETIME_MS
        parts = ["go"]
        if depth is not None:
            parts += ["depth", str(depth)]
        if nodes is not None:
            parts += ["nodes", str(nodes)]
        if movetime is not None:
            parts += ["movetime", str(movetime)]
        return " ".join(parts), (movetime / 1000.0 if movetime is not None else 0.0)

    def choose_move(self, state: State, budget: Budget = Budget()):
        self.check_can_move(state)
        go, thinking = self.go_command(budget)
        timeout = None if self.config["timeout"] is None else thinking + self.config["timeout"]
        best, info = self.engine.go(state.uci_position(), go, timeout, stop=self.stop_signal,
                                    on_info=self._live(state) if self.progress is not None else None)
        if best in ("(none)", "0000", "null"):
            raise EngineError(f"{self.engine.label} answered 'bestmove {best}' in a position with legal moves "
                              f"({state.to_text()})")
        move = next((m for m in state.legal_moves() if state.move_to_uci(m) == best), None)
        if move is None:
            raise EngineError(f"{self.engine.label} answered bestmove {best}, which is not a legal move in "
                              f"{state.to_text()}")
        self._analysis = self._describe(state, move, info)
        return move

    def _live(self, state):
        """``on_info`` for the engine: its search so far (the info lines folded), for whoever watches it."""
        folded: dict = {}

        def note(single: dict) -> None:
            folded.update(single)
            if folded.get("pv") and single.get("pv"):
                self.report_progress(lambda: self._describe(state, None, dict(folded)))
        return note

    def _describe(self, state, move, info: dict) -> dict:
        """The analysis of ``info`` (the engine's last search info); ``move`` the move it played (None: a
        search still running, its best move the line's first).  An engine held below its strength (a skill
        level, UCI_Elo) may play another move than its line's first: the line's first is then ``best``."""
        pv = _pv_text(state, info["pv"]) if info.get("pv") else ""
        first = pv.split()[0] if pv else None
        played = state.move_to_text(move) if move is not None else first
        out = {"move": played, "engine": self.engine.id_name or self.engine.label}
        if first is not None and first != played:
            out["best"] = first
        for key in ("depth", "seldepth", "nodes", "nps", "time"):
            if key in info:
                out[key] = info[key]
        if "score" in info:
            kind, value = info["score"]
            out["score"] = f"mate {value}" if kind == "mate" else f"{value / 100:+.2f} pawns"
            out["value"] = (1.0 if value > 0 else -1.0) if kind == "mate" else max(-1.0, min(1.0, value / 1000))
        if pv:
            out["pv"] = pv
        return out


def _pv_text(state, pv: list[str]) -> str:
    """The principal variation in SAN, as far as it is legal (``state`` is left as it was)."""
    try:
        board = state.board.copy(stack=False)
        words = []
        for uci in pv[:12]:
            move = board.parse_uci(uci)
            words.append(board.san(move))
            board.push(move)
        return " ".join(words)
    except (ValueError, AttributeError):
        return " ".join(pv)


def stockfish_path() -> str | None:
    """Where ``stockfish`` is: on PATH, else in /usr/games (None if nowhere)."""
    found = shutil.which("stockfish")
    if found:
        return found
    for folder in EXTRA_DIRS:
        candidate = Path(folder) / "stockfish"
        if candidate.is_file():
            return str(candidate)
    return None


class StockfishPlayer(UciPlayer):
    name = "stockfish"
    description = "Stockfish, the strong open-source chess engine (the uci player with path=stockfish)."
    options = UciPlayer.options

    @classmethod
    def unsupported_reason(cls, game: Game) -> str | None:
        reason = super().unsupported_reason(game)
        if reason is None and stockfish_path() is None:
            return f"Stockfish is not installed (no 'stockfish' on PATH or in /usr/games): {INSTALL_HINT}"
        return reason
