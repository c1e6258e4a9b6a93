"""Deep Pepper's games: AlphaZero's, cut short by a Stockfish judge (resignation adjudication)."""
from __future__ import annotations

from typing import Any, Mapping

from plyground.plugins.trainers.alphazero.playbook import Playbook
from plyground.protocols import Game

from .stockfish import StockfishAdjudicator, StockfishEvaluator


class StockfishPlaybook(Playbook):
    """AlphaZero's playbook with Stockfish's resignation rule (``adjudicate``).

    Self-play games end once the engine's evaluation is decisive, their examples valued by
    ``adjudicate_value``; comparison and evaluation games end by the same rule as a plain win
    (``adjudicate_comparison``: a gate counts wins, draws and losses, not the scaled values self-play
    trains on).  The engine is started on first use and is this process's own.
    """

    def __init__(self, game: Game, config: Mapping[str, Any]) -> None:
        super().__init__(game, config)
        self._evaluator: StockfishEvaluator | None = None

    def selfplay_adjudicator(self) -> StockfishAdjudicator | None:
        if not self.config["adjudicate"]:
            return None
        return self._resignation_rule(self.config["adjudicate_value"])

    def match_adjudicator(self) -> StockfishAdjudicator | None:
        if not (self.config["adjudicate"] and self.config["adjudicate_comparison"]):
            return None
        return self._resignation_rule("result")

    def _resignation_rule(self, value: str) -> StockfishAdjudicator:
        cfg = self.config
        return StockfishAdjudicator(self._judge(), after_plies=cfg["adjudicate_after"],
                                    threshold_cp=cfg["adjudicate_threshold"], scale_cp=cfg["adjudicate_scale"],
                                    value=value, every=cfg["adjudicate_every"])

    def _judge(self) -> StockfishEvaluator:
        if self._evaluator is None:
            self._evaluator = StockfishEvaluator(self.config["stockfish"], self.config["adjudicate_depth"])
        return self._evaluator

    def close(self) -> None:
        if self._evaluator is not None:
            self._evaluator.close()
            self._evaluator = None
