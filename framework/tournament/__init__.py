"""Tournaments: who is stronger, settled by rated games (see docs/tournaments.md).

``config``   entrants, format, openings, budgets, seed; the game schedule and per-game seeds
``openings`` every N-ply opening of a game, or openings read from a file
``worker``   plays one scheduled game (in this process or a spawned worker)
``store``    the results directory: config, append-only results log, lock
``runner``   runs what is not stored yet, in parallel, storing games as they finish
``sprt``     the sequential probability ratio test of a two-player tournament, read from its game pairs
``report``   ratings, crosstable, terminal table, JSON summary, PNG plot
"""
from .config import FORMATS, Entrant, GameTask, Opening, TournamentConfig, game_seed, schedule
from .openings import all_openings, choose_openings, read_openings
from .report import crosstable, default_anchor, format_crosstable, format_table, plot_ratings, rate
from .runner import Progress, TournamentRun, run_tournament
from .store import GameResult, ResultStore, load_results

__all__ = ["FORMATS", "Entrant", "GameTask", "Opening", "TournamentConfig", "game_seed", "schedule",
           "all_openings", "choose_openings", "read_openings", "crosstable", "default_anchor",
           "format_crosstable", "format_table", "plot_ratings", "rate", "Progress", "TournamentRun",
           "run_tournament", "GameResult", "ResultStore", "load_results"]
