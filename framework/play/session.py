"""One game session: a game, its two players, how it is played, its record and where it is kept.

Every path that plays a game goes through one: ``plyground play`` in the console or the window, the
games the window's menu starts, ``match``, and the tournament workers.  The command line resolves its
flags once into :class:`PlaySettings`; :meth:`GameSession.play` runs :func:`plyground.play.match.play_game`
with them (a renderer that runs games itself, the window, calls it on its own thread), keeps the record
and appends it to the ``--save`` file.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from .clock import TimeControl
from .match import DEFAULT_MOVE_LIMIT, MatchResult, play_game
from ..protocols import Budget, Game, GameRecord, Player, Renderer, State
from ..files.recordio import RecordAppender


@dataclass(frozen=True)
class PlaySettings:
    """How a command's games are played, resolved once from its flags (the window's menu adds its own
    clock and start position to each game it starts)."""

    budget: Budget = Budget()                  # --simulations / --seconds: each bot's budget for a move
    max_plies: int | None = None               # --max-plies: a draw after this many plies
    seed: int | None = None                    # --seed: players reset with seed*2 + side
    time_control: TimeControl | None = None    # --tc: a clock for each side
    move_limit_seconds: float | None = DEFAULT_MOVE_LIMIT   # --move-limit: a bot past it forfeits
    save: Path | None = None                   # --save: every game appended to this record file (checked)

    def replace(self, **changes) -> "PlaySettings":
        return dataclasses.replace(self, **changes)


class GameSession:
    """One game to play: ``play`` plays it (once) and returns its record, which the session keeps."""

    def __init__(self, game: Game, players: Sequence[Player], names: Sequence[str],
                 settings: PlaySettings = PlaySettings(), *, start: State | None = None,
                 resume: GameRecord | None = None,
                 adjudicator: Callable[[State, int], tuple[tuple[float, float], str] | None] | None = None) -> None:
        self.game, self.players, self.names = game, list(players), tuple(names)
        self.settings = settings
        self.start, self.resume, self.adjudicator = start, resume, adjudicator
        self.record: GameRecord | None = None
        self.saved_to: Path | None = None

    def play(self, renderer: Renderer | None = None) -> GameRecord:
        """Play the game to its end with ``renderer`` (None: unseen), then append its record to the
        ``save`` file if the settings name one."""
        s = self.settings
        self.record = play_game(self.game, self.players, names=self.names, renderer=renderer, budget=s.budget,
                                start=self.start, max_plies=s.max_plies, seed=s.seed, adjudicator=self.adjudicator,
                                move_limit_seconds=s.move_limit_seconds, resume=self.resume,
                                time_control=s.time_control)
        return self.finish(self.record)

    def finish(self, record: GameRecord) -> GameRecord:
        """Keep ``record`` as the game's and append it to the ``save`` file if the settings name one (``play``
        does this; a renderer that lost the game thread -- a window closed while a bot thought -- calls it with
        the game so far)."""
        self.record = record
        if self.settings.save is not None:
            RecordAppender(self.game, self.settings.save).append(record)
            self.saved_to = self.settings.save
        return record

    def close_players(self) -> None:
        """Close both players (engines, worker processes); a failure to close hides nothing else."""
        for player in self.players:
            try:
                player.close()
            except Exception:  # noqa: BLE001 - closing must not hide the game's result
                pass


def run_match(game: Game, player_a: Player, player_b: Player, games: int, *,
              names: tuple[str, str] | None = None, renderer: Renderer | None = None,
              budget: Budget = Budget(), max_plies: int | None = None, seed: int = 0,
              on_game: Callable[[int, GameRecord], None] | None = None) -> MatchResult:
    """``games`` games with colours alternating, A moving first in the even-numbered ones."""
    names = names or (player_a.name, player_b.name)
    result = MatchResult(names=names)
    for i in range(games):
        a_first = i % 2 == 0
        pair = (player_a, player_b) if a_first else (player_b, player_a)
        pair_names = names if a_first else names[::-1]
        settings = PlaySettings(budget=budget, max_plies=max_plies, seed=seed * 100003 + i)
        record = GameSession(game, pair, pair_names, settings).play(renderer)
        record.tags["Round"] = str(i + 1)
        result.records.append(record)
        result.a_first.append(a_first)
        if on_game is not None:
            on_game(i, record)
        if not record.finished and record.reason.endswith("quit"):
            break
    return result
