"""The gate: whether the newly trained network replaces the best one, from the comparison games.

Games are scored from the new network's side; an unfinished game (a crashed
player or worker) is counted apart, never as a draw: counting it as one would
pull every score towards 50% and could let a broken network through.  With
no comparison games the new network is always accepted; with games but none
finished there is nothing to judge it by, and the best network stays.
"""
from __future__ import annotations

from dataclasses import dataclass

from plyground.play.stats import Score, elo_from_score


@dataclass(frozen=True)
class Tally:
    """Comparison or evaluation games from the first-named side: the score of the finished games and the
    unfinished ones apart."""

    score: Score
    unfinished: int = 0
    first_failure: str = ""       # why the first unfinished game stopped

    @classmethod
    def of(cls, games: list[dict]) -> "Tally":
        """The tally of saved games (``{"record": ..., "new_first": ...}``, as the run directory keeps them)."""
        wins = draws = losses = unfinished = 0
        first_failure = ""
        for game in games:
            record = game["record"]
            if not record.finished:
                unfinished += 1
                first_failure = first_failure or record.reason or "no reason recorded"
                continue
            s = record.score(0 if game["new_first"] else 1)
            wins, draws, losses = wins + (s == 1.0), draws + (s == 0.5), losses + (s == 0.0)
        return cls(Score(wins, draws, losses), unfinished, first_failure)

    def text(self) -> str:
        """``6 W 2 D 1 L, 1 unfinished (not counted), score 72.2%``."""
        s = self.score
        unfinished = f", {self.unfinished} unfinished (not counted)" if self.unfinished else ""
        score = f"score {s.score:.1%}" if s.games else "no finished game to score"
        return f"{s.wins} W {s.draws} D {s.losses} L{unfinished}, {score}"

    def unfinished_note(self) -> str:
        """Why games went uncounted, for a phase's last line (empty when all finished)."""
        return f"; first unfinished game: {self.first_failure}" if self.unfinished else ""

    @property
    def elo_diff(self) -> float:
        return elo_diff(self.score)


def elo_diff(score: Score) -> float:
    """Elo difference from a score, with half a point of prior on each side so 100% stays finite."""
    if not score.games:
        return 0.0
    return elo_from_score((score.points + 0.5) / (score.games + 1))


@dataclass(frozen=True)
class Verdict:
    accepted: bool
    percent: float | None         # the new network's score; None: no finished game
    tally: Tally


@dataclass(frozen=True)
class Gate:
    """The new network is accepted with a score of at least ``threshold`` percent (``strict``: more than)."""

    threshold: float
    strict: bool = False

    def passes(self, percent: float) -> bool:
        return percent > self.threshold if self.strict else percent >= self.threshold

    def judge(self, games: list[dict], planned: int) -> Verdict:
        """The verdict on the first ``planned`` saved comparison games."""
        tally = Tally.of(games[:planned])
        if planned == 0:
            return Verdict(True, 100.0, tally)
        if not tally.score.games:    # nothing to judge the new network by: keep the network that is known to work
            return Verdict(False, None, tally)
        percent = 100.0 * tally.score.score
        return Verdict(self.passes(percent), percent, tally)
