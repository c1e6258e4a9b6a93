"""What the players that are external engine processes share (``uci``, ``hub``): the engine's lifecycle.

The engine process lives as long as the player: started when the player is
made (so a wrong path is reported at once), told of a new game by
:meth:`EnginePlayer.reset` -- which also restarts an engine that died or was
stopped after a time-out -- and ended by :meth:`EnginePlayer.close`.  A
subclass sets ``self.engine`` (an object with ``alive``, ``new_game``,
``restart``, ``close`` and ``pid``) and ``self._analysis``, and sends its
settings to a fresh engine in :meth:`EnginePlayer._configure`.
"""
from __future__ import annotations

from typing import Any

from plyground.engines.process import EngineError
from plyground.protocols import Player


class EnginePlayer(Player):
    engine: Any
    _analysis: dict | None = None

    def _take_engine(self, engine) -> None:
        """Play through ``engine`` (started), configured now; it is closed if that fails (a bad option),
        so a player that could not be made leaves no process behind."""
        self._analysis = None
        self.engine = engine
        try:
            self._configure()
        except BaseException:
            engine.close()
            raise

    def _configure(self) -> None:
        """Send the player's settings to a freshly started engine."""
        raise NotImplementedError

    def check_can_move(self, state) -> None:
        """Before asking the engine: EngineError if ``state`` is finished or the engine is not running --
        saying how it died (a kill between two moves is noticed here, not while waiting for an answer)."""
        if not state.legal_moves():
            raise EngineError(f"{self.name} was asked to move in a finished game ({state.to_text()})")
        if not self.engine.alive():
            raise EngineError(f"{self.engine.why_not_running()}; reset() restarts it")

    def reset(self, seed: int | None = None) -> None:
        """A new game: restart the engine if it died (or was stopped), else tell it a new game begins."""
        self._analysis = None
        if self.engine.alive():
            try:
                self.engine.new_game()
                return
            except EngineError:
                pass                      # it stopped answering: start afresh
        self.engine.restart()
        self._configure()
        self.engine.new_game()

    def close(self) -> None:
        self.engine.close()

    @property
    def pid(self) -> int | None:
        """The engine process id (for tests and monitoring)."""
        return self.engine.pid

    def analysis(self) -> dict | None:
        return self._analysis

    def engine_name(self) -> str:
        """The engine's own name (its ``id name``), else the label it runs under."""
        return getattr(self.engine, "id_name", "") or getattr(self.engine, "label", "") or ""
