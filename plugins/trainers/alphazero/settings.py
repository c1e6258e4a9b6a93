"""The ``alphazero`` trainer's settings: one frozen dataclass, every default written out here.

:class:`AlphaZeroSettings` is the one declaration of the trainer's options:
the trainer's option list (what ``plyground train``, the config files and
``--set`` take) is derived from its fields (:func:`plyground.options.options_of`),
and the trainer and its roles read a run's settings as one of these
(``trainer.settings``; the playbook every worker builds has its own).  The
search's fields are the ``alphazero`` player's options with the trainer's
defaults for self-play (:func:`~plyground.players.alphazero.settings.search_setting`:
more root noise, fewer simulations, a smaller Gumbel ``c_scale``, no
endgame database); :meth:`AlphaZeroSettings.search_settings` is the
self-play search they make.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from plyground.options import options_of, setting, setting_like, settings_from
from plyground.players.alphazero.settings import search_setting
from plyground.players.search.settings import SearchSettings
from plyground.protocols import NETWORK_RUNTIME_OPTIONS

#: The settings baked into the network when the run starts; a resumed run must keep them.
FIXED_OPTIONS = ("network", "optimizer", "lr", "lr_schedule", "lr_steps", "momentum", "weight_decay")
#: The optimiser's settings, which the network is built with (the spec may not set them too).
TRAINING_KEYS = ("optimizer", "lr", "lr_schedule", "lr_steps", "momentum", "weight_decay")


@dataclass(frozen=True)
class AlphaZeroSettings:
    """A run's settings: self-play, training, the gate, the ladder, the workers, the bootstrap."""

    # the source document's hyperparameters
    iterations: int = setting(10, "training iterations (self-play, training, comparison)", min=1)
    selfplay_games: int = setting(50, "self-play games per iteration", min=1)
    simulations: int = search_setting("simulations", default=100, min=2, max=10**7,
                                      help="MCTS simulations per self-play move")
    c_puct: float = search_setting("c_puct")
    comparison_games: int = setting(20, "games new network vs best per iteration (0: always accept)", min=0)
    replace_threshold: float = setting(55.0, "score in percent the new network needs to become the best", min=0.0,
                                       max=100.0)
    epochs: int = setting(3, "passes over the replay window per iteration", min=1)
    # training
    batch_size: int = setting(64, "examples per optimiser step", min=1)
    optimizer: str = setting("adam", "update rule", choices=("sgd", "adam", "adamw"))
    lr: float = setting(0.001, "learning rate", min=0.0)
    lr_schedule: str = setting("constant", "learning-rate schedule over optimiser steps",
                               choices=("constant", "cosine", "step"))
    lr_steps: int = setting(100_000, "cosine: steps to reach zero; step: steps between 10x decays", min=1)
    momentum: float = setting(0.9, "SGD momentum", min=0.0, max=0.999)
    weight_decay: float = setting(1e-4, "L2 weight decay", min=0.0)
    replay_window: int = setting(5, "train on the examples of the last N iterations", min=1)
    augment: bool = setting(True, "train on random symmetric copies (game.augment) when the game has them")
    network: str = setting("resnet:channels=32,blocks=3", "network plugin and its options, e.g. "
                           "resnet:channels=64,blocks=6 or mlp:hidden=128,layers=2")
    # search and self-play
    fpu: float = search_setting("fpu", help="first-play urgency: unvisited moves are valued at the parent's value "
                                "minus this")
    leaf_batch: int = search_setting("leaf_batch", help="leaves evaluated per network call")
    endgame: str = search_setting("endgame", default="off", help="the game's endgame database for self-play "
                                  "(checkers has them): its positions end the searches and the games with their "
                                  "exact result, which becomes the value target of every earlier position (as Leela "
                                  "Chess Zero rescores with tablebases): 'off', 'auto' or a number of pieces")
    temperature_plies: int = setting(10, "self-play: tau = 1 for the first N plies, then 0", min=0)
    # learning efficiency for small compute (docs/alphazero.md, "Self-play that learns")
    fast_simulations: int | None = setting(None, "playout cap randomization: most moves get a fast search of this "
                                           "many simulations, played but not learned from; a share "
                                           "full_search_share of the moves get the full search, with root noise, "
                                           "as training examples (none: every move a full search)", min=1)
    full_search_share: float = setting(0.25, "with fast_simulations: the share of moves searched in full", min=0.0,
                                       max=1.0)
    search_value_weight: float = setting(0.0, "value target = (1 - w) * the game's result + w * the search's root "
                                         "value at the position", min=0.0, max=1.0)
    random_opening_share: float = setting(0.0, "the share of self-play games that begin with random_opening_plies "
                                          "random moves (played, not learned from)", min=0.0, max=1.0)
    random_opening_plies: int = setting(0, "random openings: each such game begins with 1..N uniformly random moves "
                                        "(0: none)", min=0)
    endgame_examples: int = setting(0, "with an endgame database (endgame=): a self-play game ends at its first "
                                    "position the database holds, and this many plies of perfect play on from there "
                                    "become examples too, with the exact result as value and the moves that keep it "
                                    "as policy (0: none)", min=0, max=1000)
    dirichlet_alpha: float = search_setting("dirichlet_alpha", default=1.0,
                                            help="Dirichlet noise concentration at the self-play root")
    dirichlet_epsilon: float = search_setting("dirichlet_epsilon", default=0.25,
                                              help="weight of the Dirichlet noise at the self-play root")
    max_plies: int | None = setting(None, "adjudicate self-play and comparison games as draws after this many plies",
                                    min=1)
    cache_size: int = search_setting("cache_size", help="network evaluations remembered by position during a phase")
    repetition_draws: bool = search_setting("repetition_draws", help="searches value a return to an earlier "
                                            "position of the game or line as a draw (no aimless cycling when ahead)")
    pass_forced: bool = search_setting("pass_forced")
    compiled: bool = search_setting("compiled")
    # puct or gumbel, in self-play, comparison and evaluation games
    search: str = search_setting("search")
    gumbel_actions: int = search_setting("gumbel_actions")
    gumbel_c_visit: float = search_setting("gumbel_c_visit")
    # c_scale 0.1 (mctx's default) instead of the paper's 1.0, measured on tic-tac-toe: with 1.0 sigma(q) swamps
    # the Gumbel noise and sharpens the targets, self-play settles into the same drawn games and the networks came
    # out worse (docs/gumbel.md).
    gumbel_c_scale: float = search_setting("gumbel_c_scale", default=0.1)
    gumbel_scale: float | None = search_setting("gumbel_scale")
    # comparison and evaluation
    comparison_simulations: int | None = setting(None, "simulations per move in comparison and evaluation games "
                                                 "(none: simulations)", min=1)
    comparison_temperature_plies: int = setting(2, "comparison games: moves of the first N plies are drawn from the "
                                                "visit counts, so that games differ", min=0)
    evaluation_games: int = setting(0, "games of each newly accepted network against evaluation_opponent (0: none)",
                                    min=0)
    evaluation_opponent: str = setting("random", "player spec for the evaluation games")
    # the ladder (ladder.py): the newest network of every iteration rated against fixed opponents
    ladder: str | None = setting(None, "player specs separated by ';' that each iteration's newest network (and the "
                                 "initial one) plays, rated in Elo against the first: ladder.jsonl and "
                                 "plots/ladder.png, e.g. 'mcts:simulations=1000; alphabeta:eval=learned,depth=4' "
                                 "(none: no ladder)")
    ladder_games: int = setting(10, "ladder games against each ladder player per network (colours alternate; each "
                                "opening is played twice)", min=1)
    ladder_openings: str = setting("2-ply", "where ladder games start: N-ply, an openings file, or none")
    mistakes: str | None = setting(None, "the game's set of positions labelled by a perfect player (Connect Four: "
                                   "dev or test; checkers: endgame) on which the ladder counts each network's "
                                   "mistakes, and where the set knows each position's result how often its value is "
                                   "wrong: mistakes.jsonl and plots/mistakes.png (none: not counted)")
    mistakes_positions: int = setting(100, "mistakes: the first N positions of each class", min=1)
    mistakes_simulations: int | None = setting(None, "mistakes: the network's simulations a move (none: "
                                               "comparison_simulations, else simulations; 0: no moves, the values "
                                               "only)", min=0)
    # bookkeeping
    parallel_games: int = setting(16, "self-play games advanced together, their leaves evaluated in one network "
                                  "call (1: one game at a time)", min=1, max=4096)
    save_every: int = setting(1, "self-play games per replay chunk written to disk", min=1)
    seed: int = setting(0, "seed for the initial network, self-play and comparison games", min=0)
    threads: int = setting(1, "BLAS/numba threads while training", min=1, max=256)
    # where the networks compute (docs/autograd.md "Devices")
    device: str = setting_like(NETWORK_RUNTIME_OPTIONS[0], help="where the networks train and play the games: cpu, "
                               "cuda (GPU 0), cuda:N (GPU N); each worker process uses that device too; a GPU needs "
                               "pip install 'plyground[gpu]'")
    precision: str = setting_like(NETWORK_RUNTIME_OPTIONS[1], help="the games' network inference precision "
                                  "(float16: on a GPU); training is float32")
    # worker processes (docs/distributed.md)
    workers: int = setting(0, "worker processes playing self-play, comparison and evaluation games (0: one per "
                           "available core, or per CPU of the Ray cluster; 1 with backend=local: all in this "
                           "process)", min=0, max=4096)
    backend: str = setting("local", "where the workers run: local processes, or Ray actors (pip install "
                           "'plyground[distributed]')", choices=("local", "ray"))
    address: str | None = setting(None, "backend=ray: address of a running Ray cluster, e.g. 10.0.0.5:6379 or auto "
                                  "(none: start a Ray instance on this machine)")
    plots: bool = setting(True, "draw PNG plots (needs matplotlib)")
    initial_model: Path | None = setting(None, "start from this AlphaZero model file (e.g. a bootstrapped network: "
                                         "its weights and optimiser state) instead of a fresh network; its "
                                         "architecture and optimiser settings must be those of network, optimizer, "
                                         "lr, ...")
    # teacher bootstrap of the initial network (bootstrap.py)
    bootstrap_games: Path | None = setting(None, "record file of expert games (e.g. PDN; checkers: acf, the bundled "
                                           "ACF archive) whose positions, labelled by bootstrap_teacher, train the "
                                           "initial network before iteration 1 (none: no bootstrap)")
    bootstrap_teacher: str = setting("alphabeta:eval=learned,depth=8,contempt=0", "player spec whose search labels "
                                     "the bootstrap positions (its move and value)")
    bootstrap_positions: int = setting(100_000, "positions to label (sibling positions included)", min=1)
    bootstrap_epochs: int = setting(4, "passes over the bootstrap positions", min=1)
    bootstrap_policy: str = setting("both", "policy label: the expert's and the teacher's move half each, or one of "
                                    "them", choices=("both", "expert", "teacher"))
    bootstrap_outcome_weight: float = setting(0.25, "weight of the game's outcome in the value label (the rest: the "
                                              "teacher's value)", min=0.0, max=1.0)
    bootstrap_siblings: bool = setting(True, "also label, for each position, the position after a random other "
                                       "move (the network sees what mistakes lead to)")

    @classmethod
    def from_options(cls, options) -> "AlphaZeroSettings":
        """The settings among resolved ``options`` (a subclass trainer's own options are left out)."""
        return settings_from(cls, options)

    def search_settings(self) -> SearchSettings:
        """The self-play search's settings (root noise on)."""
        return settings_from(SearchSettings, vars(self))

    def match_search_settings(self) -> SearchSettings:
        """The comparison and evaluation players' search: no root noise, ``comparison_simulations``."""
        return dataclasses.replace(self.search_settings(), simulations=self.comparison_simulations or self.simulations,
                                   dirichlet_epsilon=0.0)


#: The trainer's options, from the fields of :class:`AlphaZeroSettings`.
OPTIONS = options_of(AlphaZeroSettings)
