"""The ``expert-iteration`` trainer: Deep Pepper's training loop on top of the AlphaZero trainer.

Everything AlphaZero's trainer does (PUCT self-play with Dirichlet noise and
temperature annealing, Adam, the comparison gate, the resumable run
directory) is reused as it is; this trainer changes:

* the defaults to the paper's: a ``deep-pepper-parts`` network on the
  353-feature encoding (the game is switched to ``encoding=deep_pepper``),
  Adam, and a gate the new network passes by scoring **more than** 50%;
* Stockfish adjudication of self-play games (``adjudicate``): after
  ``adjudicate_after`` half-moves a fixed-depth evaluation of at least
  ``adjudicate_threshold`` centipawns for one side ends the game by
  resignation, and its examples take the value ``tanh(cp / adjudicate_scale)``
  (or the plain result); comparison and evaluation games are adjudicated by
  the same rule as wins and losses (``adjudicate_comparison``);
* optional pretraining of the initial network on Stockfish-labelled positions
  (``pretrain_positions``, see ``pretrain.py``); the labels are kept in
  ``DIR/pretrain/labels-NNNNN.npz`` chunks, so a killed run resumes labelling.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from plyground.capabilities import supports_uci
from plyground.errors import UsageError
from plyground.options import Option, Spec
from plyground.players.alphazero.networks import save_model
from plyground.plugins.trainers.alphazero.gate import Gate
from plyground.plugins.trainers.alphazero.pipeline import Step
from plyground.plugins.trainers.alphazero.trainer import FIXED_OPTIONS, AlphaZeroTrainer
from plyground.protocols import Game

from .pretrain import CHUNK_POSITIONS
from .playbook import StockfishPlaybook
from .stockfish import DEFAULT_ENGINE, VALUE_MODES

#: AlphaZero options whose defaults Deep Pepper changes.
_DEFAULTS = {
    "network": "deep-pepper-parts",
    "optimizer": "adam",
    "replace_threshold": 50.0,
    "c_puct": 1.0,
    "dirichlet_alpha": 0.3,
    "temperature_plies": 30,
    "max_plies": 300,
    "parallel_games": 8,
}

EXPERT_ITERATION_OPTIONS = (
    Option("encoding", str, "deep_pepper", "the game's learner encoding the network is trained on (chess: "
           "deep_pepper or planes); the game is switched to it", choices=("deep_pepper", "planes")),
    Option("gate_strict", bool, True, "the new network must score more than replace_threshold (the paper's "
           "'more than half the time'); false: at least"),
    Option("adjudicate", bool, True, "end self-play games by resignation when Stockfish's evaluation is decisive"),
    Option("adjudicate_comparison", bool, True, "with adjudicate: end comparison and evaluation games by the same "
           "rule too, scored as a win for the side ahead"),
    Option("adjudicate_after", int, 40, "half-moves before the first Stockfish check (the paper's k)", min=0),
    Option("adjudicate_every", int, 2, "half-moves between Stockfish checks after that", min=1),
    Option("adjudicate_threshold", int, 500, "centipawns for one side that make the other resign", min=1),
    Option("adjudicate_depth", int, 8, "Stockfish search depth of the evaluations", min=1, max=60),
    Option("adjudicate_scale", float, 400.0, "value of a resigned game for its examples: tanh(cp / this)",
           min=1.0),
    Option("adjudicate_value", str, "scaled", "examples of a resigned game get tanh(cp/scale) (scaled) or "
           "the result +-1 (result)", choices=VALUE_MODES),
    Option("stockfish", str, DEFAULT_ENGINE, "the UCI engine used as judge (a path or a name on PATH)"),
    Option("pretrain_positions", int, 0, "pretrain the initial network on this many Stockfish-labelled "
           "positions (0: no pretraining)", min=0),
    Option("pretrain_pgn", str, None, "PGN file whose games' positions are used for pretraining (none: "
           "positions from Stockfish self-play)", optional=True),
    Option("pretrain_depth", int, 6, "Stockfish depth of the pretraining labels", min=1, max=60),
    Option("pretrain_epochs", int, 5, "passes over the pretraining positions", min=1),
    Option("pretrain_temperature", float, 100.0, "centipawns per unit of the softmax over the children's "
           "evaluations (the policy label)", min=1.0),
    Option("pretrain_chunk", int, CHUNK_POSITIONS, "labelled positions written per chunk file in DIR/pretrain: "
           "a killed run resumes labelling after the last complete chunk", min=1),
    Option("pretrain_random_opponent", float, 0.0, "fraction of the pretraining self-play games in which one "
           "side plays random moves (lopsided positions: how a won game is finished)", min=0.0, max=1.0),
)


def _with_defaults(options: tuple[Option, ...]) -> tuple[Option, ...]:
    return tuple(dataclasses.replace(opt, default=_DEFAULTS[opt.name]) if opt.name in _DEFAULTS else opt
                 for opt in options)


class ExpertIterationTrainer(AlphaZeroTrainer):
    name = "expert-iteration"
    description = ("Deep Pepper expert iteration: AlphaZero self-play and gate with Deep Pepper networks on "
                   "hand-made features, Stockfish resignation adjudication and optional pretraining.")
    produces = "alphazero:model={run}/best.npz"
    options = _with_defaults(AlphaZeroTrainer.options) + EXPERT_ITERATION_OPTIONS
    #: Stockfish adjudication; each worker process builds its own playbook, with its own engine.
    playbook_class = StockfishPlaybook
    #: the network is trained on one encoding of the game: a resumed run must keep it
    fixed_options = FIXED_OPTIONS + ("encoding",)

    @classmethod
    def trained_game(cls, game: Game, options: dict) -> Game:
        return _with_encoding(game, options["encoding"])

    def __init__(self, game: Game, run_dir: Path, **options: Any) -> None:
        super().__init__(game, run_dir, **options)
        options, game = self.config, self.game
        if options["adjudicate"] or options["pretrain_positions"]:
            if not supports_uci(game):
                raise UsageError(f"trainer {self.name}: Stockfish adjudication and pretraining need chess, not "
                                 f"{game.name}; set adjudicate=false and pretrain_positions=0")
        # AlphaZero's roles, with the paper's gate rule and a pretraining step before everything else
        self.gate = Gate(options["replace_threshold"], strict=options["gate_strict"])
        self.pipeline.steps.insert(0, Step("pretraining", self._pretrained, self._pretrain))

    def _pretrained(self, state: dict) -> bool:
        return not self.config["pretrain_positions"] or bool(state.get("pretrained"))

    def _pretrain(self, state: dict) -> dict:
        """Train the initial network on Stockfish-labelled positions (``pretrain_positions``)."""
        from .pretrain import pretrain_network
        cfg, rundir = self.config, self.rundir
        network = self.models.network(rundir.checkpoint_path(0), cfg["device"])
        losses = pretrain_network(network, self.game, positions=cfg["pretrain_positions"], pgn=cfg["pretrain_pgn"],
                                  engine=cfg["stockfish"], depth=cfg["pretrain_depth"], epochs=cfg["pretrain_epochs"],
                                  batch_size=cfg["batch_size"], temperature_cp=cfg["pretrain_temperature"],
                                  scale_cp=cfg["adjudicate_scale"], random_opponent=cfg["pretrain_random_opponent"],
                                  seed=cfg["seed"], folder=self.run_dir / "pretrain",
                                  chunk_positions=cfg["pretrain_chunk"], log=self.log)
        save_model(network, rundir.checkpoint_path(0), self.game, Spec.parse(cfg["network"]).name, iteration=0,
                   epochs_done=0, role="pretrained", pretrain_losses=losses)
        self.models.copy(rundir.checkpoint_path(0), rundir.best_path)
        return {**state, "pretrained": True}

def _with_encoding(game: Game, encoding: str) -> Game:
    """``game`` with its ``encoding`` parameter set (games without one are returned as they are)."""
    params = dict(game.params)
    if "encoding" not in params or params["encoding"] == encoding:
        return game
    return type(game)(**{**params, "encoding": encoding})
